/*
 * rdb_convert.c - rbkv-server --convert-rdb (rdb_convert.h): loads IN with
 * the reader its magic names, then writes OUT in the other format. The
 * function libraries read are handed to the writer through the same hook
 * the registry sets in a server (snap_on_write_functions), so they cross
 * too.
 */
#include "rdb_convert.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bgsave.h"
#include "clock.h"
#include "keyspace.h"
#include "mem.h"
#include "rdb_file.h"
#include "snapshot.h"

/* Databases the conversion takes: it runs without the server's
 * configuration file, so any file of a server with up to this many
 * converts (the writers skip the empty ones). */
#define CONVERT_DATABASES 1024

/* The libraries IN held, for the writer. */
static struct snap_code *codes;
static size_t ncodes;

static const char *loaded_code(size_t i, size_t *len)
{
    if (i >= ncodes)
        return NULL;
    *len = codes[i].len;
    return codes[i].code;
}

/* The progress line goes to stderr, so the summary on stdout stays as it
 * was: redrawn in place on a terminal, else one line per report (every
 * SNAP_PROGRESS_EVERY keys), so a log of the run shows it too. */
static int progress_tty, progress_open;

static void progress_end(void)
{
    if (progress_open)
        fputc('\n', stderr);
    progress_open = 0;
}

static void show_progress(int writing, long long keys, unsigned long long done,
                          unsigned long long total)
{
    unsigned pct = total ? (unsigned)(done * 100 / total) : 100;
    fprintf(stderr, "%s%s: %lld keys, %u%%%s", progress_tty ? "\r" : "",
            writing ? "Writing" : "Reading", keys, pct, progress_tty ? "\033[K" : "\n");
    progress_open = progress_tty;
    if (progress_tty && done == total)
        progress_end();
}

static long long load(struct keyspace *ks, const char *in, int rdb, char *err, size_t errlen)
{
    struct snap_limits lim;
    persist_snap_limits(&lim);
    if (rdb) {
        struct rdb_file_opts o = {.lim = {.list = lim.list, .hash = lim.hash, .set = lim.set},
                                  .now_ms = mstime()};
        return rdb_file_load(ks, in, &o, err, errlen);
    }
    int absent;
    long long n = snap_load(ks, in, &lim, &absent, err, errlen);
    if (n == 0 && absent) {
        snprintf(err, errlen, "No file %s", in);
        return -1;
    }
    return n;
}

/* OUT as an RDB file, written whole before it takes the name. */
static int write_rdb(const struct keyspace *ks, const char *out, char *err, size_t errlen)
{
    char tmp[4096], why[256];
    snap_temp_name(tmp, sizeof(tmp), out, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "Can't create %.900s: %s", tmp, strerror(errno));
        return -1;
    }
    int rc = rdb_file_write_fd(fd, ks, mstime(), why, sizeof(why));
    if (close(fd) < 0 && rc == 0) {
        snprintf(why, sizeof(why), "%s", strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rename(tmp, out) < 0) {
        snprintf(why, sizeof(why), "rename to %.200s: %s", out, strerror(errno));
        rc = -1;
    }
    if (rc < 0) {
        snprintf(err, errlen, "Can't write the RDB file %.500s: %s", out, why);
        unlink(tmp);
    }
    return rc;
}

int rdb_convert_main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "Usage: rbkv-server --convert-rdb IN OUT\n"
                        "  IN a Redis RDB file: OUT is an rbkv snapshot;\n"
                        "  IN an rbkv snapshot: OUT is an RDB file redis-server 7.0 loads.\n");
        return 1;
    }
    const char *in = argv[0], *out = argv[1];
    int rdb = rdb_file_sniff(in);
    char err[1024];
    struct keyspace *ks = ks_new(CONVERT_DATABASES);
    int64_t start = mstime();
    progress_tty = isatty(STDERR_FILENO);
    snap_on_progress(show_progress);
    long long n = load(ks, in, rdb, err, sizeof(err));
    progress_end();
    int rc = n < 0 ? -1 : 0;
    codes = snap_take_loaded_functions(&ncodes);
    snap_on_write_functions(loaded_code);
    if (rc == 0) {
        printf("Read %lld keys and %zu function libraries from %s (%s) in %.3f seconds\n", n,
               ncodes, in, rdb ? "Redis RDB" : "rbkv snapshot",
               (double)(mstime() - start) / 1000.0);
        fflush(stdout); /* before the writing progress on stderr */
        rc = rdb ? snap_save(ks, out, mstime(), err, sizeof(err))
                 : write_rdb(ks, out, err, sizeof(err));
    }
    progress_end();
    snap_on_progress(NULL);
    if (rc == 0)
        printf("Wrote %s (%s)\n", out, rdb ? "rbkv snapshot" : "Redis RDB version 10");
    else
        fprintf(stderr, "%s\n", err);
    snap_on_write_functions(NULL);
    for (size_t i = 0; i < ncodes; i++)
        xfree(codes[i].code);
    xfree(codes);
    codes = NULL;
    ncodes = 0;
    ks_free(ks);
    return rc < 0 ? 1 : 0;
}
