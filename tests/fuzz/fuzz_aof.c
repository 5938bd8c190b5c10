/*
 * fuzz_aof.c - libFuzzer target for the append-only log's loader (aof_load
 * in server/persist/aof.c): its RESP reader and the replay of each command through
 * the real command layer into server.ks (harness.h).
 *
 * Input: the bytes of the log file. `appendfilename` points at an in-memory
 * file (harness_file) holding them, with the default aof-load-truncated yes,
 * so a log cut mid-command is loaded up to its last whole command and
 * trimmed (in memory). Checked, aborting on a violation:
 *  1. Nothing crashes, leaks or reads out of bounds, whatever the log holds
 *     (any command, in any order, with any arguments).
 *  2. Loaded or refused, the keyspace passes ks_check and every sorted set
 *     zs_check; no client is left blocked.
 *  3. A log the loader accepted and trimmed is accepted again unchanged.
 * The keyspace is flushed after each input. Commands that fork, write
 * files, change the config or kill connections answer an error (harness.c),
 * in the log as anywhere.
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "aof.h"
#include "blocking.h"
#include "harness.h"
#include "mem.h"
#include "replay.h"
#include "server.h"

/* aof_load as the server calls it, replaying through the dispatcher. */
static int load(void)
{
    struct replay *r = replay_new();
    int rc = aof_load(replay_command, r);
    replay_free(r);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    const char *path;
    struct stat st;

    harness_init();
    if (fd < 0) {
        fd = harness_file(0, &path);
        xfree(server.cfg.appendfilename);
        server.cfg.appendfilename = xstrdup(path);
        server.cfg.aof_load_truncated = 1;
    }
    harness_file_fill(fd, data, size);
    int rc = load();
    if (rc == 1 || fstat(fd, &st) < 0 || (size_t)st.st_size > size)
        abort();
    harness_check_keyspace(server.ks);
    if (block_count() || server.clients)
        abort();
    if (rc == 0 && (size_t)st.st_size < size) {
        /* Trimmed: what is left is a whole log. */
        harness_reset();
        if (load() != 0 || fstat(fd, &st) < 0 || (size_t)st.st_size > size)
            abort();
        harness_check_keyspace(server.ks);
    }
    harness_reset();
    harness_check_keyspace(server.ks);
    return 0;
}
