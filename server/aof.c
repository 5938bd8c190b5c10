/*
 * aof.c - the append-only log: feeding commands, writing and syncing them,
 * replaying the file at start, and the --check-aof tool (see aof.h).
 *
 * Owns the state below. Pending bytes live in a struct resp_out, whose bytes
 * never move until consumed, so a write that stops part way resumes where it
 * stopped. A failed write is sticky until a later one succeeds: the bytes
 * stay pending (a partial write is cut back off the file, so the log never
 * holds half a command followed by whole ones), write commands get MISCONF,
 * and the timer retries every second.
 *
 * The reader is a bounded RESP multibulk parser over the whole file in
 * memory: every length is checked against the bytes left before it is used,
 * and each command's start offset is kept, so a cut command is trimmed there
 * and a corrupt one is reported by offset. Lines starting with '#' (Redis 7's
 * annotations) are skipped.
 */
#include "aof.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "blocking.h"
#include "keyspace.h"
#include "log.h"
#include "mem.h"
#include "server.h"
#include "zset.h"

#define AOF_IOVS 64
#define AOF_SYNC_INTERVAL_MS 1000
#define ZADD_BATCH 64       /* members per ZADD when writing a whole set */
#define ARGC_MAX (1 << 20)  /* a larger multibulk count in the log is corruption */

static struct {
    int fd;                      /* -1 while the log is closed */
    struct resp_out buf;         /* fed, not yet written */
    int db;                      /* database of the log's last SELECT, -1 none */
    int write_err;               /* errno of the last failed write or sync, 0 ok */
    int need_sync;               /* written since the last fdatasync */
    unsigned long long fed;
    off_t size;                  /* bytes in the file */
    uv_timer_t timer;
    int timer_on;
} aof = {.fd = -1, .db = -1};

/* ---- feeding ---- */

static void add_argv(int argc, const char *const *words, const size_t *lens)
{
    struct resp_slice argv[4];
    for (int i = 0; i < argc; i++) {
        argv[i].ptr = words[i];
        argv[i].len = lens[i];
    }
    resp_add_command(&aof.buf, argc, argv);
}

static void add_select(int db)
{
    char num[24];
    int n = snprintf(num, sizeof(num), "%d", db);
    const char *w[] = {"SELECT", num};
    size_t l[] = {6, (size_t)n};
    add_argv(2, w, l);
    aof.db = db;
}

static void add_pexpireat(const char *key, size_t klen, int64_t when)
{
    char num[24];
    int n = snprintf(num, sizeof(num), "%" PRId64, when);
    const char *w[] = {"PEXPIREAT", key, num};
    size_t l[] = {9, klen, (size_t)n};
    add_argv(3, w, l);
}

void aof_feed(const struct client *c, const struct command *cmd)
{
    if (aof.fd < 0)
        return;
    if (c->db_index != aof.db)
        add_select(c->db_index);
    resp_add_command(&aof.buf, c->argc, c->argv);
    aof.fed++;
    if (cmd->first_key <= 0 || cmd->key_step <= 0)
        return;
    int last = cmd->last_key < 0 ? c->argc + cmd->last_key : cmd->last_key;
    for (int i = cmd->first_key; i <= last && i < c->argc; i += cmd->key_step) {
        const struct ks_entry *e = ks_find(c->db, c->argv[i].ptr, c->argv[i].len);
        int64_t when = e ? ks_get_expire(e) : -1;
        if (when >= 0)
            add_pexpireat(c->argv[i].ptr, c->argv[i].len, when);
    }
}

unsigned long long aof_fed_count(void)
{
    return aof.fed;
}

/* ---- writing ---- */

static void write_failed(int err)
{
    if (!aof.write_err)
        log_warning("Error writing to the AOF file %s: %s", server.cfg.appendfilename,
                    strerror(err));
    aof.write_err = err;
}

/* Writes every pending byte. Returns 0, or -1 (state set, unwritten bytes
 * kept). Bytes go out in order and are consumed only once written, so after
 * a failure the file holds a prefix of the stream and the next attempt
 * continues it exactly: a crash in between leaves a cut command, which the
 * loader trims. */
static int write_pending(void)
{
    while (resp_out_pending(&aof.buf)) {
        struct resp_iov iov[AOF_IOVS];
        struct iovec v[AOF_IOVS];
        int n = resp_out_peek(&aof.buf, iov, AOF_IOVS);
        for (int i = 0; i < n; i++) {
            v[i].iov_base = (void *)iov[i].base;
            v[i].iov_len = iov[i].len;
        }
        ssize_t w = writev(aof.fd, v, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            write_failed(w < 0 ? errno : ENOSPC);
            return -1;
        }
        resp_out_consume(&aof.buf, (size_t)w);
        aof.size += w;
        aof.need_sync = 1;
    }
    return 0;
}

static int sync_file(void)
{
    if (!aof.need_sync)
        return 0;
    if (fdatasync(aof.fd) < 0) {
        write_failed(errno);
        return -1;
    }
    aof.need_sync = 0;
    return 0;
}

static void recovered(void)
{
    if (aof.write_err)
        log_warning("AOF write error looks solved, rbkv can write again.");
    aof.write_err = 0;
}

int aof_flush_before_reply(void)
{
    if (aof.fd < 0)
        return 0;
    int always = server.cfg.appendfsync == APPENDFSYNC_ALWAYS;
    if (!resp_out_pending(&aof.buf) && !(always && aof.need_sync))
        return aof.write_err && always ? -1 : 0;
    if (write_pending() < 0)
        return always ? -1 : 0;
    if (always && sync_file() < 0)
        return -1;
    recovered();
    return 0;
}

/* Every second: retries a failed write, and syncs under everysec. The
 * fdatasync runs on the loop thread, so a slow disk stalls clients for its
 * duration (Redis does it in a background thread). */
static void timer_cb(uv_timer_t *t)
{
    (void)t;
    if (write_pending() < 0)
        return;
    if (server.cfg.appendfsync != APPENDFSYNC_NO && sync_file() < 0)
        return;
    recovered();
}

int aof_writes_refused(const char **why)
{
    if (!aof.write_err)
        return 0;
    *why = strerror(aof.write_err);
    return 1;
}

int aof_enabled(void)
{
    return aof.fd >= 0;
}

int aof_last_write_ok(void)
{
    return !aof.write_err;
}

/* ---- a whole dataset as commands ---- */

static void add_string(const char *key, size_t klen, const char *val, size_t vlen)
{
    const char *w[] = {"SET", key, val};
    size_t l[] = {3, klen, vlen};
    add_argv(3, w, l);
}

/* ZADD key score member ..., ZADD_BATCH members per command. Scores as
 * %.17g, which reads back as the same double ("inf" and "-inf" included). */
static void add_zset(const char *key, size_t klen, const struct zset *z)
{
    struct resp_slice argv[2 + 2 * ZADD_BATCH];
    char scores[ZADD_BATCH][32];
    const struct zs_node *n = zs_first(z);
    while (n) {
        int argc = 2;
        argv[0] = (struct resp_slice){"ZADD", 4};
        argv[1] = (struct resp_slice){key, klen};
        for (int i = 0; i < ZADD_BATCH && n; i++, n = zs_next(n)) {
            int len = snprintf(scores[i], sizeof(scores[i]), "%.17g", n->score);
            argv[argc++] = (struct resp_slice){scores[i], (size_t)len};
            argv[argc++] = (struct resp_slice){n->member, n->len};
        }
        resp_add_command(&aof.buf, argc, argv);
    }
}

/* Appends every live key of the keyspace as SELECT/SET/ZADD/PEXPIREAT. */
static void add_dataset(int64_t now_ms)
{
    for (int i = 0; i < server.ks->count; i++) {
        struct db *db = &server.ks->dbs[i];
        for (struct ks_entry *e = ks_first(db); e; e = ks_next(e)) {
            int64_t when = ks_get_expire(e);
            if (when >= 0 && when <= now_ms)
                continue;
            if (aof.db != i)
                add_select(i);
            if (e->type == KS_STRING)
                add_string(ks_key(e), ks_klen(e), ks_str(e), ks_slen(e));
            else
                add_zset(ks_key(e), ks_klen(e), ks_ptr(e));
            if (when >= 0)
                add_pexpireat(ks_key(e), ks_klen(e), when);
        }
    }
}

int aof_open(void)
{
    const char *path = server.cfg.appendfilename;
    struct stat st;
    int existed = stat(path, &st) == 0;
    aof.fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (aof.fd < 0) {
        log_warning("Can't open the append-only file %s: %s", path, strerror(errno));
        return -1;
    }
    resp_out_init(&aof.buf);
    aof.size = lseek(aof.fd, 0, SEEK_END);
    if (!existed) {
        add_dataset(mstime());
        if (write_pending() < 0 || sync_file() < 0) {
            log_warning("Can't write the initial append-only file %s", path);
            aof_close();
            unlink(path);
            return -1;
        }
    }
    uv_timer_init(server.loop, &aof.timer);
    uv_timer_start(&aof.timer, timer_cb, AOF_SYNC_INTERVAL_MS, AOF_SYNC_INTERVAL_MS);
    aof.timer_on = 1;
    return 0;
}

void aof_close(void)
{
    if (aof.fd < 0)
        return;
    if (write_pending() < 0 || sync_file() < 0)
        log_warning("Writes not in the append-only file at exit: %s", strerror(aof.write_err));
    if (aof.timer_on) {
        uv_close((uv_handle_t *)&aof.timer, NULL);
        aof.timer_on = 0;
    }
    close(aof.fd);
    aof.fd = -1;
    resp_out_destroy(&aof.buf);
}

/* ---- reading ---- */

enum { PARSE_CMD = 1, PARSE_END = 0, PARSE_CUT = -1, PARSE_BAD = -2 };

struct aof_reader {
    const char *p;
    size_t len;
    size_t off;               /* start of the next command */
    size_t bad_at;            /* PARSE_BAD: offset of the fault */
    const char *why;
    struct resp_slice *argv;  /* owned, grown as needed */
    int argc, cap;
};

/* Reads "<c><digits>\r\n" at *at. Returns 1, 0 when the file ends first, -1
 * when malformed (r->bad_at set). */
static int read_len(struct aof_reader *r, size_t *at, char c, long long max, long long *out)
{
    size_t i = *at;
    long long v = 0;
    if (i >= r->len)
        return 0;
    if (r->p[i] != c) {
        r->bad_at = i;
        r->why = c == '*' ? "expected '*'" : "expected '$'";
        return -1;
    }
    for (i++; i < r->len && r->p[i] >= '0' && r->p[i] <= '9'; i++) {
        v = v * 10 + (r->p[i] - '0');
        if (v > max) {
            r->bad_at = i;
            r->why = "length out of range";
            return -1;
        }
    }
    if (i + 2 > r->len)
        return 0;
    if (i == *at + 1 || r->p[i] != '\r' || r->p[i + 1] != '\n') {
        r->bad_at = i;
        r->why = "malformed length";
        return -1;
    }
    *at = i + 2;
    *out = v;
    return 1;
}

/* The next command, into r->argv (slices of the file's bytes). */
static int read_command(struct aof_reader *r)
{
    while (r->off < r->len && r->p[r->off] == '#') {
        const char *nl = memchr(r->p + r->off, '\n', r->len - r->off);
        if (!nl)
            return PARSE_CUT;
        r->off = (size_t)(nl - r->p) + 1;
    }
    if (r->off == r->len)
        return PARSE_END;
    size_t at = r->off;
    long long argc, n;
    int rc = read_len(r, &at, '*', ARGC_MAX, &argc);
    if (rc <= 0)
        return rc == 0 ? PARSE_CUT : PARSE_BAD;
    if (argc < 1) {
        r->bad_at = r->off;
        r->why = "empty command";
        return PARSE_BAD;
    }
    if (argc > r->cap) {
        r->cap = (int)argc;
        r->argv = xrealloc(r->argv, sizeof(*r->argv) * (size_t)argc);
    }
    for (int i = 0; i < argc; i++) {
        rc = read_len(r, &at, '$', (long long)(r->len - at), &n);
        if (rc <= 0)
            return rc == 0 ? PARSE_CUT : PARSE_BAD;
        if (at + (size_t)n + 2 > r->len)
            return PARSE_CUT;
        if (r->p[at + n] != '\r' || r->p[at + n + 1] != '\n') {
            r->bad_at = at + (size_t)n;
            r->why = "bulk not followed by CRLF";
            return PARSE_BAD;
        }
        r->argv[i] = (struct resp_slice){r->p + at, (size_t)n};
        at += (size_t)n + 2;
    }
    r->argc = (int)argc;
    r->off = at;
    return PARSE_CMD;
}

/* Reads the whole file at path. Returns its bytes (owned, NULL for an empty
 * file) or sets *err to an errno. */
static char *read_file(const char *path, size_t *len, int *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    *err = 0;
    if (fd < 0 || fstat(fd, &st) < 0) {
        *err = errno;
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    *len = (size_t)st.st_size;
    char *buf = *len ? xmalloc(*len) : NULL;
    size_t got = 0;
    while (got < *len) {
        ssize_t k = read(fd, buf + got, *len - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            *err = k < 0 ? errno : EIO;
            break;
        }
        got += (size_t)k;
    }
    close(fd);
    if (*err) {
        xfree(buf);
        return NULL;
    }
    return buf;
}

/* Cuts path at off, the end of its last whole command. */
static int trim(const char *path, size_t off)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    int rc = fd < 0 || ftruncate(fd, (off_t)off) < 0 || fsync(fd) < 0 ? -1 : 0;
    if (fd >= 0)
        close(fd);
    return rc;
}

static struct client *fake_client(void)
{
    struct client *c = xcalloc(1, sizeof(*c));
    resp_out_init(&c->out);
    c->out.proto = 2;
    c->flags = CLIENT_AUTHENTICATED;
    c->db = &server.ks->dbs[0];
    return c;
}

/* Runs one command from the log through the dispatcher's call path, as its
 * client did; the reply is dropped. SELECT only moves the fake client. */
static int replay(struct client *c, struct aof_reader *r)
{
    const struct command *cmd = command_lookup(r->argv[0].ptr, r->argv[0].len);
    if (!cmd) {
        r->why = "unknown command";
        return -1;
    }
    c->argc = r->argc;
    c->argv = r->argv;
    command_call(c, cmd);
    resp_out_reset(&c->out);
    /* A blocking pop is logged only once it popped, so its replay finds the
     * same members; one that would wait means the log lies. */
    if (c->blocked) {
        block_client_gone(c);
        r->why = "a blocking command found nothing to serve it";
        return -1;
    }
    return 0;
}

int aof_load(void)
{
    const char *path = server.cfg.appendfilename;
    size_t len = 0;
    int err;
    int64_t start = mstime();
    char *buf = read_file(path, &len, &err);
    if (err == ENOENT)
        return 1;
    if (err) {
        log_warning("Can't read the append-only file %s: %s", path, strerror(err));
        return -1;
    }
    struct aof_reader r = {.p = buf, .len = len};
    struct client *c = fake_client();
    long long count = 0;
    int rc;
    for (;;) {
        size_t cmd_at = r.off;
        if ((rc = read_command(&r)) != PARSE_CMD)
            break;
        if (replay(c, &r) < 0) {
            rc = PARSE_BAD;
            r.bad_at = cmd_at;
            break;
        }
        count++;
    }
    int result = 0;
    if (rc == PARSE_BAD) {
        log_warning("Bad file format reading the append only file %s at offset %zu: %s. "
                    "Refusing to start: the file is left as it is; rbkv-server --check-aof "
                    "tells more.", path, r.bad_at, r.why);
        result = -1;
    } else if (rc == PARSE_CUT) {
        if (!server.cfg.aof_load_truncated) {
            log_warning("The append only file %s is truncated at offset %zu (a crash?). "
                        "Refusing to start: set aof-load-truncated yes, or run rbkv-server "
                        "--check-aof --fix %s.", path, r.off, path);
            result = -1;
        } else {
            log_warning("!!! Warning: short read while loading the AOF file %s!!! "
                        "Loaded up to offset %zu of %zu; trimming the incomplete command.",
                        path, r.off, len);
            if (trim(path, r.off) < 0) {
                log_warning("Can't trim the append-only file %s: %s", path, strerror(errno));
                result = -1;
            }
        }
    }
    if (result == 0)
        log_notice("DB loaded from append only file %s: %lld commands in %.3f seconds", path,
                   count, (double)(mstime() - start) / 1000.0);
    resp_out_destroy(&c->out);
    xfree(c);
    xfree(r.argv);
    xfree(buf);
    /* The log's last SELECT is unknown to what we append next; what it
     * replayed is saved already. */
    aof.db = -1;
    server.dirty = 0;
    return result;
}

int aof_check_main(int argc, char **argv)
{
    int fix = argc == 2 && !strcmp(argv[1], "--fix");
    if (argc < 1 || argc > 2 || (argc == 2 && !fix)) {
        fprintf(stderr, "Usage: rbkv-server --check-aof <file.aof> [--fix]\n");
        return 1;
    }
    size_t len = 0;
    int err;
    char *buf = read_file(argv[0], &len, &err);
    if (err) {
        fprintf(stderr, "Cannot read %s: %s\n", argv[0], strerror(err));
        return 1;
    }
    struct aof_reader r = {.p = buf, .len = len};
    long long count = 0;
    int rc;
    while ((rc = read_command(&r)) == PARSE_CMD)
        count++;
    int status = 0;
    if (rc == PARSE_END) {
        printf("AOF %s is valid: %lld commands, %zu bytes\n", argv[0], count, len);
    } else if (rc == PARSE_BAD) {
        printf("AOF %s is not valid: %s at offset %zu (after %lld whole commands). "
               "Not fixable automatically.\n", argv[0], r.why, r.bad_at, count);
        status = 1;
    } else if (!fix) {
        printf("AOF %s is truncated at offset %zu of %zu (%lld whole commands). "
               "Run with --fix to cut it there.\n", argv[0], r.off, len, count);
        status = 1;
    } else if (trim(argv[0], r.off) < 0) {
        printf("Failed to truncate %s: %s\n", argv[0], strerror(errno));
        status = 1;
    } else {
        printf("Successfully truncated AOF %s to %zu bytes (%lld commands)\n", argv[0], r.off,
               count);
    }
    xfree(r.argv);
    xfree(buf);
    return status;
}
