/*
 * fuzz_rdb_file.c - libFuzzer target for Redis's RDB file as rbkv reads it
 * at start (server/persist/rdb_file.c, on rdb_value.c, rdb_blobs.c,
 * rdb_io.c, lzf.c): the input is a whole file. A checksum of 0 is not
 * checked (as in Redis), so the seeds carry 0 and the fuzzer's mutations
 * reach the parser instead of stopping at the trailer.
 *
 * Checked, aborting on a violation:
 *  1. Nothing crashes, leaks, hangs or reads out of bounds, whatever the
 *     input; a refusal always says why.
 *  2. A file read leaves every database consistent (ks_check).
 *  3. Written back (rdb_file_write_fd), it reads again to the same number
 *     of keys, and that keyspace writes the same bytes: rbkv's RDB output is
 *     canonical and passes its own strict reader.
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "keyspace.h"
#include "olist.h"
#include "omap.h"
#include "rdb_file.h"
#include "snapshot.h"
#include "xstream.h"
#include "zset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DATABASES 16

static void free_list(void *v) { ol_free(v); }
static void free_map(void *v) { om_free(v); }
static void free_zset(void *v) { zs_free(v); }
static void free_stream(void *v) { xs_free(v); }

static const struct rdb_file_opts opts = {
    .lim = {.list = {.max_listpack_size = -2},
            .hash = {.entries = 128, .value = 64},
            .set = {.entries = 128, .value = 64, .int_entries = 512}},
    .now_ms = -1, /* keep every key, so a second read sees the same ones */
};

/* The keyspace's RDB file, malloc'ed, its length in *len. */
static char *write_file(const struct keyspace *ks, size_t *len)
{
    char err[256];
    int fd = memfd_create("rdb", 0);
    if (fd < 0 || rdb_file_write_fd(fd, ks, -1, err, sizeof(err)) < 0)
        abort();
    off_t end = lseek(fd, 0, SEEK_END);
    char *buf = malloc((size_t)end + 1);
    if (end < 0 || !buf || pread(fd, buf, (size_t)end, 0) != end)
        abort();
    close(fd);
    *len = (size_t)end;
    return buf;
}

static void check_dbs(const struct keyspace *ks)
{
    const char *why;
    for (int i = 0; i < ks->count; i++)
        if (ks_check(&ks->dbs[i], &why) < 0)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int registered;
    if (!registered) {
        ks_register_type(KS_LIST, free_list, NULL);
        ks_register_type(KS_SET, free_map, NULL);
        ks_register_type(KS_HASH, free_map, NULL);
        ks_register_type(KS_ZSET, free_zset, NULL);
        ks_register_type(KS_STREAM, free_stream, NULL);
        registered = 1;
    }
    char err[512] = "";
    struct keyspace *ks = ks_new(DATABASES);
    long long n = rdb_file_read(ks, data, size, "fuzz.rdb", &opts, err, sizeof(err));
    snap_drop_loaded_functions();
    if (n < 0) {
        if (!err[0])
            abort();
        ks_free(ks);
        return 0;
    }
    check_dbs(ks);

    size_t len1, len2;
    char *first = write_file(ks, &len1);
    ks_free(ks);
    ks = ks_new(DATABASES);
    if (rdb_file_read(ks, (const unsigned char *)first, len1, "first.rdb", &opts, err,
                      sizeof(err)) != n)
        abort();
    snap_drop_loaded_functions();
    check_dbs(ks);
    char *second = write_file(ks, &len2);
    if (len1 != len2 || memcmp(first, second, len1) != 0)
        abort();
    free(first);
    free(second);
    ks_free(ks);
    return 0;
}
