/*
 * aof.c - the append-only log: feeding commands, writing and syncing them,
 * replaying the file at start, and the --check-aof tool (see aof.h).
 *
 * Owns the state below. Pending bytes live in a struct resp_out, whose bytes
 * never move until consumed, so a write that stops part way resumes where it
 * stopped. A failed write is sticky until a later one succeeds: the bytes
 * not written stay pending (the file holds a prefix of the stream, which the
 * next write continues exactly), write commands get MISCONF, and the timer
 * retries every second.
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "childinfo.h"
#include "clock.h"
#include "latency.h"
#include "command_table.h"
#include "config.h"
#include "feed.h"
#include "fileio.h"
#include "keyspace.h"
#include "log.h"
#include "mem.h"
#include "olist.h"
#include "omap.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"
#include "snapshot.h"
#include "xgroup.h"
#include "xstream.h"
#include "zset.h"

#define AOF_IOVS 64
#define AOF_SYNC_INTERVAL_MS 1000
#define ZADD_BATCH 64       /* members per ZADD when writing a whole set */
#define MAP_BATCH 64        /* fields per HSET, members per SADD (Redis's AOF_REWRITE_ITEMS_PER_CMD) */
#define ARGC_MAX (1 << 20)  /* a larger multibulk count in the log is corruption */
/* A longer bulk in the log is corruption. Shorter ones that run past the end
 * of the file are a cut: nothing is allocated from a length, so no tighter
 * bound is needed. */
#define BULK_MAX (1LL << 40)
#define WRITE_CHUNK (1024 * 1024) /* bytes buffered while writing a whole dataset */

static struct {
    int fd;                      /* -1 while the log is closed */
    struct feed main;            /* fed, not yet written to fd */
    struct feed rewrite;         /* fed since the rewrite child forked */
    pid_t child;                 /* the BGREWRITEAOF child, 0 when none */
    struct child_info info;      /* its pipe and start */
    long long last_rewrite_time_s; /* how long the last rewrite took, -1 none yet */
    size_t last_cow_bytes;       /* the copy-on-write it cost */
    unsigned long long rewrites; /* children started (INFO's aof_rewrites) */
    unsigned long long rewrite_failures; /* in a row, since the last good one */
    off_t base_size;             /* of the log after the last rewrite, for auto-rewrite */
    int write_err;               /* errno of the last failed write or sync, 0 ok */
    int need_sync;               /* written since the last fdatasync */
    unsigned long long fed;
    off_t size;                  /* bytes in the file */
    uv_timer_t timer;
    int timer_on;
    uv_work_t sync_req;          /* everysec's fdatasync on a libuv worker */
    int sync_busy;               /* sync_req is in flight */
    int sync_fd;                 /* its own dup of fd, closed when it is done */
    int sync_err;                /* its errno, written by the worker */
    int64_t sync_start_ms;       /* when it started */
    int64_t slow_sync_logged_ms; /* note_slow_sync's last line */
} aof = {.fd = -1, .main.db = -1, .info.fd = -1, .last_rewrite_time_s = -1};

static void rewrite_cron(void);
static void rewrite_kill(void);

/* ---- feeding ---- */

void aof_feed(struct db *db, const struct command *cmd, int argc, const struct resp_slice *argv)
{
    if (aof.fd < 0)
        return;
    feed_command(&aof.main, db, cmd, argc, argv);
    if (aof.child)
        feed_command(&aof.rewrite, db, cmd, argc, argv);
    aof.fed++;
}

void aof_feed_argv(int db, int argc, const struct resp_slice *argv)
{
    if (aof.fd < 0)
        return;
    feed_argv(&aof.main, db, argc, argv);
    if (aof.child)
        feed_argv(&aof.rewrite, db, argc, argv);
    aof.fed++;
}

void aof_exec_begin(int db)
{
    if (aof.fd < 0)
        return;
    feed_begin_multi(&aof.main, db);
    if (aof.child)
        feed_begin_multi(&aof.rewrite, db);
    aof.fed++;
}

void aof_exec_end(void)
{
    feed_end_multi(&aof.main);
    feed_end_multi(&aof.rewrite);
}

unsigned long long aof_fed_count(void)
{
    return aof.fed;
}

/* ---- writing ---- */

static void write_failed(int err)
{
    if (!aof.write_err)
        log_warning("Error writing to the AOF file: %s", strerror(err));
    aof.write_err = err;
}

/* Writes b's bytes to fd, consuming them and adding to *size. Returns 0, or
 * the errno that stopped it. */
static int write_out(int fd, struct resp_out *b, off_t *size)
{
    while (resp_out_pending(b)) {
        struct resp_iov iov[AOF_IOVS];
        struct iovec v[AOF_IOVS];
        int n = resp_out_peek(b, iov, AOF_IOVS);
        for (int i = 0; i < n; i++) {
            v[i].iov_base = (void *)iov[i].base;
            v[i].iov_len = iov[i].len;
        }
        ssize_t w = writev(fd, v, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : ENOSPC;
        resp_out_consume(b, (size_t)w);
        *size += w;
    }
    return 0;
}

/* Writes every pending byte. Returns 0, or -1 (state set, unwritten bytes
 * kept). Bytes go out in order and are consumed only once written, so after
 * a failure the file holds a prefix of the stream and the next attempt
 * continues it exactly: a crash in between leaves a cut command, which the
 * loader trims. */
static int write_pending(void)
{
    off_t before = aof.size;
    int64_t start = ustime();
    int err = write_out(aof.fd, &aof.main.buf, &aof.size);
    latency_add_since(server.cfg.latency_monitor_threshold, "aof-write", start);
    if (aof.size != before)
        aof.need_sync = 1;
    if (err) {
        write_failed(err);
        return -1;
    }
    return 0;
}

static int sync_file(void)
{
    if (!aof.need_sync)
        return 0;
    /* Under appendfsync always the loop waits for this sync: Redis's
     * aof-fsync-always (everysec's runs on a worker). */
    int64_t start = ustime();
    int rc = fdatasync(aof.fd);
    if (server.cfg.appendfsync == APPENDFSYNC_ALWAYS)
        latency_add_since(server.cfg.latency_monitor_threshold, "aof-fsync-always", start);
    if (rc < 0) {
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
    if (!resp_out_pending(&aof.main.buf) && !(always && aof.need_sync))
        return aof.write_err && always ? -1 : 0;
    if (write_pending() < 0)
        return always ? -1 : 0;
    if (always && sync_file() < 0)
        return -1;
    recovered();
    return 0;
}

/* everysec's fdatasync runs on a libuv worker, so the loop never waits for
 * the disk. It syncs a dup of the log's fd: closing or switching the log
 * while it runs is then safe. The loop touches sync_fd and sync_err only
 * while no sync is in flight; uv_queue_work orders the accesses. */
static void sync_work_cb(uv_work_t *req)
{
    (void)req;
    aof.sync_err = fdatasync(aof.sync_fd) < 0 ? errno : 0;
}

static void sync_done_cb(uv_work_t *req, int status)
{
    (void)req;
    close(aof.sync_fd);
    aof.sync_busy = 0;
    if (status == 0 && aof.sync_err) {
        write_failed(aof.sync_err);
        aof.need_sync = 1;
    }
}

/* Starts a background fdatasync, or syncs here when that is impossible. */
static void sync_in_background(void)
{
    if (aof.sync_busy || !aof.need_sync)
        return;
    aof.sync_fd = fcntl(aof.fd, F_DUPFD_CLOEXEC, 0);
    if (aof.sync_fd < 0) {
        sync_file();
        return;
    }
    aof.need_sync = 0;
    aof.sync_busy = 1;
    aof.sync_start_ms = mstime();
    if (uv_queue_work(server.loop, &aof.sync_req, sync_work_cb, sync_done_cb) < 0) {
        close(aof.sync_fd);
        aof.sync_busy = 0;
        aof.need_sync = 1;
        sync_file();
    }
}

/* Redis 7.0 postpones an everysec write while the last fsync runs, up to
 * two seconds, then writes anyway and logs the line operators watch for a
 * slow disk. Writes here never wait, so the same line marks more to write
 * while an fsync has run for two seconds, at most once every two seconds. */
static void note_slow_sync(void)
{
    int64_t now = mstime();
    if (!aof.sync_busy || !resp_out_pending(&aof.main.buf) || now - aof.sync_start_ms < 2000 ||
        now - aof.slow_sync_logged_ms < 2000)
        return;
    aof.slow_sync_logged_ms = now;
    log_notice("Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF "
               "buffer without waiting for fsync to complete, this may slow down rbkv.");
}

/* Every second: reaps or starts a rewrite, retries a failed write, syncs
 * under everysec (and under always after a failed sync). */
static void timer_cb(uv_timer_t *t)
{
    (void)t;
    rewrite_cron();
    if (server.cfg.appendfsync == APPENDFSYNC_EVERYSEC)
        note_slow_sync();
    if (write_pending() < 0)
        return;
    if (server.cfg.appendfsync == APPENDFSYNC_EVERYSEC)
        sync_in_background();
    else if (server.cfg.appendfsync == APPENDFSYNC_ALWAYS && sync_file() < 0)
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

int aof_sync_always(void)
{
    return aof.fd >= 0 && server.cfg.appendfsync == APPENDFSYNC_ALWAYS;
}

int aof_last_write_ok(void)
{
    return !aof.write_err;
}

/* ---- a whole dataset as commands ---- */

static void add_string(struct feed *k, const char *key, size_t klen, const char *val,
                       size_t vlen)
{
    const char *w[] = {"SET", key, val};
    size_t l[] = {3, klen, vlen};
    feed_words(k, 3, w, l);
}

/* ZADD key score member ..., ZADD_BATCH members per command. Scores as
 * %.17g, which reads back as the same double ("inf" and "-inf" included). */
static void add_zset(struct feed *k, const char *key, size_t klen, const struct zset *z)
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
        resp_add_command(&k->buf, argc, argv);
    }
}

/* HSET key field value ... for a hash, SADD key member ... for a set,
 * MAP_BATCH elements per command, in order. */
static void add_map(struct feed *k, const char *key, size_t klen, const struct omap *m)
{
    struct resp_slice argv[2 + 2 * MAP_BATCH];
    struct om_it it;
    struct om_elem el;
    om_seek(m, 0, &it);
    while (om_it_valid(&it)) {
        int argc = 2;
        argv[0] = m->values ? (struct resp_slice){"HSET", 4} : (struct resp_slice){"SADD", 4};
        argv[1] = (struct resp_slice){key, klen};
        for (int i = 0; i < MAP_BATCH && om_it_valid(&it); i++, om_next(m, &it)) {
            om_it_get(m, &it, &el);
            argv[argc++] = (struct resp_slice){el.f, el.flen};
            if (m->values)
                argv[argc++] = (struct resp_slice){el.v, el.vlen};
        }
        resp_add_command(&k->buf, argc, argv);
    }
}

/* RPUSH key element ..., MAP_BATCH elements per command, head to tail. */
static void add_list(struct feed *k, const char *key, size_t klen, const struct olist *l)
{
    struct resp_slice argv[2 + MAP_BATCH];
    /* An element stored as an integer is text in its iterator only: one
     * iterator per element of the batch keeps each alive until it is fed. */
    struct ol_it its[MAP_BATCH];
    size_t pos = 0, len = ol_len(l);
    while (pos < len) {
        int argc = 2;
        argv[0] = (struct resp_slice){"RPUSH", 5};
        argv[1] = (struct resp_slice){key, klen};
        ol_seek(l, pos, &its[0]);
        for (int i = 0; i < MAP_BATCH && ol_it_valid(&its[i]); i++, pos++) {
            ol_it_get(&its[i], &argv[argc].ptr, &argv[argc].len);
            argc++;
            if (i + 1 < MAP_BATCH) {
                its[i + 1] = its[i];
                ol_next(&its[i + 1]);
            }
        }
        resp_add_command(&k->buf, argc, argv);
    }
}

static struct resp_slice id_slice(const struct xs_id *id, char *buf, size_t cap)
{
    return (struct resp_slice){buf, (size_t)snprintf(buf, cap, "%llu-%llu",
                                                     (unsigned long long)id->ms,
                                                     (unsigned long long)id->seq)};
}

/* A stream's consumer groups as Redis's rewriteStreamObject writes them:
 * XGROUP CREATE key group last-id ENTRIESREAD n per group, then per
 * consumer XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n JUSTID FORCE
 * for each entry it owns, or XGROUP CREATECONSUMER for one that owns none. */
static void add_groups(struct feed *k, const char *key, size_t klen, const struct xstream *s)
{
    enum { ID_BUF = 48 };
    char idbuf[ID_BUF], num[24], time[24];
    const struct xs_id zero = {0, 0};
    for (const struct xg_group *g = xg_first(s); g; g = xg_next(g)) {
        size_t numlen = (size_t)snprintf(num, sizeof(num), "%lld", (long long)g->entries_read);
        struct resp_slice create[] = {
            {"XGROUP", 6}, {"CREATE", 6}, {key, klen}, {g->name, g->nlen},
            id_slice(&g->last_id, idbuf, sizeof(idbuf)), {"ENTRIESREAD", 11}, {num, numlen},
        };
        resp_add_command(&k->buf, 7, create);
        for (const struct xg_consumer *c = xg_consumer_first(g); c; c = xg_consumer_next(c)) {
            if (!c->pel_count) {
                struct resp_slice cc[] = {
                    {"XGROUP", 6}, {"CREATECONSUMER", 14}, {key, klen}, {g->name, g->nlen},
                    {c->name, c->nlen},
                };
                resp_add_command(&k->buf, 5, cc);
                continue;
            }
            for (const struct xg_pending *p = xg_pending_seek(g, c, &zero); p;
                 p = xg_pending_next(p, c)) {
                size_t timelen = (size_t)snprintf(time, sizeof(time), "%lld",
                                                  (long long)p->delivery_time);
                numlen = (size_t)snprintf(num, sizeof(num), "%llu",
                                          (unsigned long long)p->delivery_count);
                struct resp_slice claim[] = {
                    {"XCLAIM", 6}, {key, klen}, {g->name, g->nlen}, {c->name, c->nlen},
                    {"0", 1}, id_slice(&p->id, idbuf, sizeof(idbuf)), {"TIME", 4},
                    {time, timelen}, {"RETRYCOUNT", 10}, {num, numlen}, {"JUSTID", 6},
                    {"FORCE", 5},
                };
                resp_add_command(&k->buf, 12, claim);
            }
        }
    }
}

/* A stream as Redis's rewriteStreamObject writes it: XADD key id field
 * value ... per entry (an empty stream: XADD key MAXLEN 0 0-1 x y), then
 * XSETID key last-id ENTRIESADDED n MAXDELETEDID id for the counters the
 * entries alone do not give. */
static void add_stream(struct feed *k, const char *key, size_t klen, const struct xstream *s)
{
    enum { ID_BUF = 48 };
    char idbuf[ID_BUF], added[24], maxdel[ID_BUF];
    struct resp_slice *argv = NULL;
    size_t cap = 0;
    struct xs_it it;
    struct xs_entry e;
    struct xs_str str;
    for (xs_seek(s, 0, &it); xs_it_valid(&it); xs_next(s, &it)) {
        xs_entry_of(s, &it, &e);
        if (!argv || 3 + 2 * e.nfields > cap) {
            cap = 3 + 2 * e.nfields;
            argv = xrealloc(argv, sizeof(*argv) * cap);
        }
        int argc = 0;
        argv[argc++] = (struct resp_slice){"XADD", 4};
        argv[argc++] = (struct resp_slice){key, klen};
        argv[argc++] = id_slice(&e.id, idbuf, sizeof(idbuf));
        for (struct xs_strs w = xs_strs_of(&e); xs_next_str(&w, &str) == 0;)
            argv[argc++] = (struct resp_slice){str.ptr, str.len};
        resp_add_command(&k->buf, argc, argv);
    }
    xfree(argv);
    if (!xs_len(s)) {
        const char *w[] = {"XADD", key, "MAXLEN", "0", "0-1", "x", "y"};
        size_t l[] = {4, klen, 6, 1, 3, 1, 1};
        feed_words(k, 7, w, l);
    }
    struct resp_slice set[] = {
        {"XSETID", 6},
        {key, klen},
        id_slice(&s->last_id, idbuf, sizeof(idbuf)),
        {"ENTRIESADDED", 12},
        {added, (size_t)snprintf(added, sizeof(added), "%llu",
                                 (unsigned long long)s->entries_added)},
        {"MAXDELETEDID", 12},
        id_slice(&s->max_deleted, maxdel, sizeof(maxdel)),
    };
    resp_add_command(&k->buf, 7, set);
    add_groups(k, key, klen, s);
}

/* Writes every live key of the keyspace to aof.fd as SELECT/SET/ZADD/HSET/SADD/
 * RPUSH/PEXPIREAT, through aof.main a chunk at a time. Returns 0 or -1. */
static int write_dataset(int64_t now_ms)
{
    /* Function libraries first: a replayed FCALL needs its library. */
    const char *code;
    size_t clen;
    for (size_t i = 0; (code = snap_function_code(i, &clen)); i++) {
        const char *words[] = {"FUNCTION", "LOAD", code};
        size_t lens[] = {8, 4, clen};
        feed_words(&aof.main, 3, words, lens);
    }
    for (int i = 0; i < server.ks->count; i++) {
        struct db *db = &server.ks->dbs[i];
        for (struct ks_entry *e = ks_first(db); e; e = ks_next(e)) {
            int64_t when = ks_get_expire(e);
            if (when >= 0 && when <= now_ms)
                continue;
            if (aof.main.db != i)
                feed_select(&aof.main, i);
            if (e->type == KS_STRING)
                add_string(&aof.main, ks_key(e), ks_klen(e), ks_str(e), ks_slen(e));
            else if (e->type == KS_ZSET)
                add_zset(&aof.main, ks_key(e), ks_klen(e), ks_ptr(e));
            else if (e->type == KS_LIST)
                add_list(&aof.main, ks_key(e), ks_klen(e), ks_ptr(e));
            else if (e->type == KS_STREAM)
                add_stream(&aof.main, ks_key(e), ks_klen(e), ks_ptr(e));
            else
                add_map(&aof.main, ks_key(e), ks_klen(e), ks_ptr(e));
            if (when >= 0)
                feed_pexpireat(&aof.main, ks_key(e), ks_klen(e), when);
            if (resp_out_pending(&aof.main.buf) >= WRITE_CHUNK && write_pending() < 0)
                return -1;
        }
    }
    return write_pending() < 0 || sync_file() < 0 ? -1 : 0;
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
    resp_out_init(&aof.main.buf);
    aof.size = lseek(aof.fd, 0, SEEK_END);
    if (!existed) {
        if (write_dataset(mstime()) < 0) {
            log_warning("Can't write the initial append-only file %s", path);
            aof_close();
            unlink(path);
            return -1;
        }
    }
    uv_timer_init(server.loop, &aof.timer);
    uv_timer_start(&aof.timer, timer_cb, AOF_SYNC_INTERVAL_MS, AOF_SYNC_INTERVAL_MS);
    aof.timer_on = 1;
    aof.base_size = aof.size;
    return 0;
}

void aof_close(void)
{
    if (aof.fd < 0)
        return;
    rewrite_kill();
    if (write_pending() < 0 || sync_file() < 0)
        log_warning("Writes not in the append-only file at exit: %s", strerror(aof.write_err));
    if (aof.timer_on) {
        uv_close((uv_handle_t *)&aof.timer, NULL);
        aof.timer_on = 0;
    }
    close(aof.fd);
    aof.fd = -1;
    resp_out_destroy(&aof.main.buf);
}

/* ---- BGREWRITEAOF ----
 * The child writes the dataset it inherited (copy-on-write) into a temp
 * file while the parent keeps appending to the old log and also collects
 * what it feeds into aof.rewrite. When the child succeeded, the parent
 * appends that to the temp file, syncs it and renames it onto the log: the
 * log is the old one or the whole new one at every moment, so a kill -9 at
 * any point leaves a valid log. Bytes still pending for the old log are all
 * in aof.rewrite too (or, from before the fork, in the child's dataset), so
 * they are dropped. The parent learns how the child went from the 1 s timer
 * (waitpid WNOHANG), as bgsave.c does for BGSAVE. */

static void rewrite_temp_name(char *buf, size_t cap, long pid)
{
    snprintf(buf, cap, "temp-rewriteaof-%ld.aof", pid);
}

static void rewrite_child(void)
{
    char tmp[64];
    server_child_close_listeners();
    rewrite_temp_name(tmp, sizeof(tmp), (long)getpid());
    aof.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (aof.fd < 0)
        _exit(1);
    /* The parent's pending bytes are part of the dataset written here. */
    resp_out_init(&aof.main.buf);
    aof.main.db = -1;
    aof.size = 0;
    int rc = write_dataset(mstime());
    child_info_send(&aof.info);
    _exit(rc < 0 ? 1 : 0);
}

int aof_rewrite_start(void)
{
    int64_t fork_start = ustime();
    pid_t pid = child_info_fork(&aof.info);
    if (pid < 0) {
        log_warning("Can't rewrite append only file in background: fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0)
        rewrite_child();
    latency_add_since(server.cfg.latency_monitor_threshold, "fork", fork_start);
    aof.child = pid;
    aof.rewrites++;
    resp_out_init(&aof.rewrite.buf);
    aof.rewrite.db = -1;
    aof.rewrite.in_multi = 0; /* an EXEC that started it opens its own MULTI there */
    log_notice("Background append only file rewriting started by pid %ld", (long)pid);
    return 0;
}

/* Appends aof.rewrite to the child's file and switches the log to it.
 * Returns 0, or -1 (logged) with the old log still in use. */
static int rewrite_switch(const char *tmp)
{
    int fd = open(tmp, O_WRONLY | O_APPEND | O_CLOEXEC);
    off_t size = fd < 0 ? 0 : lseek(fd, 0, SEEK_END);
    int err = fd < 0 ? errno : write_out(fd, &aof.rewrite.buf, &size);
    if (!err && fdatasync(fd) < 0)
        err = errno;
    if (!err && rename(tmp, server.cfg.appendfilename) < 0)
        err = errno;
    if (err) {
        log_warning("Background AOF rewrite could not switch to %s: %s", tmp, strerror(err));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (fsync_dir_of(server.cfg.appendfilename) < 0)
        log_warning("Failed to fsync the directory of %s: %s", server.cfg.appendfilename,
                    strerror(errno));
    close(aof.fd);
    aof.fd = fd;
    aof.size = aof.base_size = size;
    aof.need_sync = 0;
    resp_out_reset(&aof.main.buf);
    aof.main.db = aof.rewrite.db;
    recovered();
    log_notice("Background AOF rewrite finished successfully: %lld bytes", (long long)size);
    return 0;
}

static void rewrite_done(int status)
{
    char tmp[64];
    aof.last_rewrite_time_s = (mstime() - aof.info.start_ms) / 1000;
    aof.last_cow_bytes = child_info_receive(&aof.info);
    rewrite_temp_name(tmp, sizeof(tmp), (long)aof.child);
    aof.child = 0;
    /* Redis 7.0's lines for how the child ended, which operators watch. */
    if (!WIFEXITED(status))
        log_warning("Background AOF rewrite terminated by signal %d", WTERMSIG(status));
    else if (WEXITSTATUS(status) != 0)
        log_warning("Background AOF rewrite terminated with error");
    else
        log_notice("Background AOF rewrite terminated with success");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || rewrite_switch(tmp) < 0) {
        unlink(tmp);
        aof.rewrite_failures++;
    } else {
        aof.rewrite_failures = 0;
    }
    resp_out_destroy(&aof.rewrite.buf);
}

/* Reaps the child; starts one when the log has grown by
 * auto-aof-rewrite-percentage since the last rewrite (or start). */
static void rewrite_cron(void)
{
    int status;
    if (aof.child) {
        if (waitpid(aof.child, &status, WNOHANG) == aof.child)
            rewrite_done(status);
        return;
    }
    long long pct = server.cfg.auto_aof_rewrite_percentage;
    if (pct && (unsigned long long)aof.size >= server.cfg.auto_aof_rewrite_min_size &&
        aof.size >= aof.base_size + aof.base_size * pct / 100) {
        log_notice("Starting automatic rewriting of AOF on %lld%% growth", pct);
        aof_rewrite_start();
    }
}

static void rewrite_kill(void)
{
    char tmp[64];
    if (!aof.child)
        return;
    log_warning("There is a child rewriting the AOF. Killing it!");
    kill(aof.child, SIGKILL);
    waitpid(aof.child, NULL, 0);
    child_info_receive(&aof.info);
    rewrite_temp_name(tmp, sizeof(tmp), (long)aof.child);
    unlink(tmp);
    aof.child = 0;
    resp_out_destroy(&aof.rewrite.buf);
}

int aof_rewrite_in_progress(void)
{
    return aof.child != 0;
}

pid_t aof_child_pid(void)
{
    return aof.child;
}

void aof_get_rewrite_status(struct aof_rewrite_status *st)
{
    st->last_time_s = aof.last_rewrite_time_s;
    st->current_time_s = aof.child ? (mstime() - aof.info.start_ms) / 1000 : -1;
    st->last_cow_bytes = aof.last_cow_bytes;
    st->current_cow_bytes = child_info_current_cow(&aof.info, &st->current_cow_age_s);
    st->buffer_bytes = resp_out_pending(&aof.main.buf) + resp_out_pending(&aof.rewrite.buf);
    st->rewrites = aof.rewrites;
    st->consecutive_failures = aof.rewrite_failures;
}

size_t aof_buffer_memory(void)
{
    return aof.main.buf.chunk_bytes + aof.rewrite.buf.chunk_bytes;
}

void aof_reset_stats(void)
{
    aof.rewrites = 0;
    aof.rewrite_failures = 0;
}

/* ---- reading ---- */

enum { PARSE_CMD = 1, PARSE_END = 0, PARSE_CUT = -1, PARSE_BAD = -2 };

struct aof_reader {
    const char *p;
    size_t len;
    size_t off;               /* start of the next command */
    size_t cmd_at;            /* start of the command read last */
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
    size_t at = r->cmd_at = r->off;
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
        rc = read_len(r, &at, '$', BULK_MAX, &n);
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

static int is_word(const struct aof_reader *r, const char *word)
{
    return r->argc == 1 && r->argv[0].len == strlen(word) &&
           !strncasecmp(r->argv[0].ptr, word, r->argv[0].len);
}

/* Past a MULTI read at multi_at: PARSE_CMD when its EXEC is in the file (the
 * reader is left right after the MULTI), PARSE_CUT with r->off at the MULTI
 * when the file ends first (a crash in the middle of writing the
 * transaction, which is then dropped whole), or PARSE_BAD. */
static int find_exec(struct aof_reader *r, size_t multi_at)
{
    size_t after = r->off;
    int rc;
    while ((rc = read_command(r)) == PARSE_CMD) {
        if (is_word(r, "exec")) {
            r->off = after;
            return PARSE_CMD;
        }
        if (is_word(r, "multi")) {
            r->bad_at = r->cmd_at;
            r->why = "MULTI inside MULTI";
            return PARSE_BAD;
        }
    }
    if (rc == PARSE_BAD)
        return rc;
    r->off = multi_at;
    return PARSE_CUT;
}

/* The next command to run. MULTI and EXEC are markers, not commands: a
 * transaction's commands run one after the other once its EXEC is known to
 * be in the file. */
static int next_command(struct aof_reader *r)
{
    for (;;) {
        int rc = read_command(r);
        if (rc != PARSE_CMD)
            return rc;
        if (is_word(r, "exec"))
            continue;
        if (!is_word(r, "multi"))
            return PARSE_CMD;
        if ((rc = find_exec(r, r->cmd_at)) != PARSE_CMD)
            return rc;
    }
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

int aof_load(aof_replay_fn *replay, void *ctx)
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
    long long count = 0;
    int rc;
    /* Deadlines that passed since the log was written remove nothing here:
     * the log's DELs say when each key went. */
    enum ks_expiry was = ks_expiry();
    ks_set_expiry(KS_EXPIRY_OFF);
    while ((rc = next_command(&r)) == PARSE_CMD) {
        if (replay(ctx, r.argc, r.argv, &r.why) < 0) {
            rc = PARSE_BAD;
            r.bad_at = r.cmd_at;
            break;
        }
        count++;
    }
    ks_set_expiry(was);
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
    xfree(r.argv);
    xfree(buf);
    /* The log's last SELECT is unknown to what we append next; what it
     * replayed is saved already. */
    aof.main.db = -1;
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
    while ((rc = next_command(&r)) == PARSE_CMD)
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
