/*
 * repl_replica.c - following a primary (repl_replica.h).
 *
 * Owns the link: its client (made here, freed by conn.c, which tells us by
 * repl_replica_link_gone), the temporary file a snapshot is received into,
 * and the retry schedule. The cron tick makes every attempt, so REPLICAOF
 * answers at once and a primary that is down costs a try per back-off step.
 */
#include "repl_replica.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "aof.h"
#include "backlog.h"
#include "bgsave.h"
#include "blocking.h"
#include "client.h"
#include "conn.h"
#include "fileio.h"
#include "functions.h"
#include "keyspace.h"
#include "lazyfree.h"
#include "log.h"
#include "mem.h"
#include "process.h"
#include "rdb_file.h"
#include "repl_stream.h"
#include "repl_primary.h"
#include "repl_reader.h"
#include "server.h"
#include "snapshot.h"
#include "tls.h"
#include "tracking.h"
#include "watch.h"

#define RETRY_FIRST_MS 200
#define RETRY_MAX_MS 5000
#define ACK_PERIOD_MS 1000

enum link_state {
    LINK_NONE,       /* not a replica */
    LINK_CONNECT,    /* a replica, waiting for its next attempt */
    LINK_CONNECTING, /* TCP connect in flight */
    LINK_HANDSHAKE,  /* PING .. PSYNC */
    LINK_TRANSFER,   /* receiving the snapshot */
    LINK_LOADING,    /* loading it on a worker thread (struct load_job) */
    LINK_UP,         /* applying the stream */
};

/* The reply the handshake waits for. */
enum hs_step { HS_PING, HS_AUTH, HS_PORT, HS_IP, HS_CAPA, HS_PSYNC, HS_PAYLOAD_HEAD };

static struct {
    enum link_state state;
    enum hs_step step;
    struct client *c;
    uv_connect_t connect_req;
    int64_t next_attempt_ms;
    int64_t backoff_ms;
    int64_t last_io_ms;
    int64_t down_since_ms;       /* when the link last went down, 0 never up */
    int64_t last_ack_ms;
    int stream_db;               /* the stream's database when the link went down */
    int ack_due;                 /* a GETACK came: ACK after this command */
    int was_up;                  /* the last link was up: the next attempt reconnects */
    int failover;                /* our PSYNC says FAILOVER until it is answered */
    void (*on_failover_psync)(int accepted);
    struct repl_reader reader;   /* the handshake's replies and the snapshot */
    /* The snapshot on its way. */
    int fd;
    char path[64];
    long long received;
    char new_replid[41];
    long long new_offset;
    struct resp_out scratch;     /* an applied command, encoded again for our stream */
    struct load_job *job;        /* the load under way, owned by the worker until load_done */
} ml = {.fd = -1};

static int64_t now_ms(void)
{
    return (int64_t)uv_now(server.loop);
}

static void send_command(struct client *c, int argc, const char *const *words)
{
    struct resp_slice argv[8];
    for (int i = 0; i < argc; i++) {
        argv[i].ptr = words[i];
        argv[i].len = strlen(words[i]);
    }
    resp_add_command(&c->out, argc, argv);
    conn_send(c);
}

static void drop_temp_file(void)
{
    if (ml.fd >= 0) {
        close(ml.fd);
        ml.fd = -1;
        unlink(ml.path);
    }
    repl_reader_reset(&ml.reader);
}

/* Ends the current attempt: the link closes and link_gone schedules the next. */
static void close_link(void)
{
    if (ml.c && !(ml.c->flags & CLIENT_CLOSING))
        conn_close(ml.c);
}

/* close_link, saying why. */
static void fail_link(const char *why)
{
    log_warning("Replication link to %s:%d: %s", server.cfg.replicaof_host,
                server.cfg.replicaof_port, why);
    close_link();
}

static void send_ack(void)
{
    char off[32];
    snprintf(off, sizeof(off), "%lld", repl.offset);
    const char *w[] = {"REPLCONF", "ACK", off};
    send_command(ml.c, 3, w);
    ml.last_ack_ms = now_ms();
}

/* ---- the stream ---- */

/* partial: the stream continues where it was (+CONTINUE), in the database
 * its last SELECT chose, as Redis's cached master keeps its db; after a full
 * sync it starts with a SELECT. */
static void go_up(const char *rest, size_t n, int partial)
{
    struct client *c = ml.c;
    int db = partial && ml.stream_db < server.ks->count ? ml.stream_db : 0;
    ml.state = LINK_UP;
    ml.last_ack_ms = now_ms();
    c->flags |= CLIENT_AUTHENTICATED;
    c->db_index = db;
    c->db = &server.ks->dbs[db];
    uv_read_stop(&c->h.stream);
    log_notice(partial ? "MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization."
                       : "MASTER <-> REPLICA sync: Finished with success");
    process_status(partial ? "MASTER <-> REPLICA sync: Partial Resynchronization accepted. Ready "
                             "to accept connections in read-write mode."
                           : "MASTER <-> REPLICA sync: Finished with success. Ready to accept "
                             "connections in read-write mode.");
    if (n && resp_parser_feed(&c->parser, rest, n) < 0) {
        fail_link("out of memory for the stream");
        return;
    }
    conn_start_reading(c);
    send_ack();
    if (n)
        conn_process_input(c);
}

void repl_replica_applied(struct client *c)
{
    if (c != ml.c || ml.state != LINK_UP)
        return;
    /* What the primary sent, byte for byte (its encoding is the canonical
     * one), counts in our offset and goes on to our own replicas. */
    resp_add_command(&ml.scratch, c->argc, c->argv);
    resp_out_drain(&ml.scratch, repl_feed_raw_cb, NULL);
    /* The primary reads no replies, only ACKs. */
    resp_out_reset(&c->out);
    ml.last_io_ms = now_ms();
    if (ml.ack_due) {
        ml.ack_due = 0;
        send_ack();
    }
}

void repl_replica_getack(void)
{
    ml.ack_due = 1;
}

/* ---- the snapshot ---- */

/* A snapshot loading on a libuv worker thread into a keyspace of its own;
 * the loop swaps it in when it loaded whole. Meanwhile the loop serves the
 * old data (repl-diskless-load swapdb) or, the old data dropped, answers
 * -LOADING (disabled, on-empty-db): server.loading says which. The worker
 * touches nothing else: its allocations are counted on its own thread and
 * handed over with the keyspace. */
struct load_job {
    uv_work_t req;
    char path[64];
    int databases;
    struct snap_limits lim;      /* the configuration's, copied on the loop */
    const struct ka_clock *clock; /* the LRU/LFU clock an RDB file's IDLE/FREQ apply under */
    struct keyspace *ks;         /* NULL when it did not load (freed on the worker) */
    long long keys;
    char err[512];
    size_t mem;                  /* the worker's allocation count */
    char *rest;                  /* stream bytes that came after the snapshot */
    size_t rest_len;
};

/* The payload's own magic says whose it is: a redis-server primary sends
 * an RDB file, an rbkv primary (which heard capa rbkv) its snapshot. Keys
 * past their deadline are loaded: the primary's DELs remove them, as a
 * Redis replica keeps them. */
static long long load_payload(struct load_job *j, int *absent)
{
    if (!rdb_file_sniff(j->path))
        return snap_load(j->ks, j->path, &j->lim, absent, j->err, sizeof(j->err));
    struct rdb_file_opts o = {.lim = {.list = j->lim.list, .hash = j->lim.hash, .set = j->lim.set},
                              .clock = j->clock,
                              .now_ms = -1};
    return rdb_file_load(j->ks, j->path, &o, j->err, sizeof(j->err));
}

static void load_work(uv_work_t *req)
{
    struct load_job *j = req->data;
    int absent = 0;
    j->ks = ks_new(j->databases);
    j->keys = load_payload(j, &absent);
    if (j->keys < 0 || absent) {
        if (absent)
            snprintf(j->err, sizeof(j->err), "no file %s", j->path);
        ks_free(j->ks);
        j->ks = NULL;
    }
    unlink(j->path);
    j->mem = mem_take_thread_count();
}

static void free_job(struct load_job *j)
{
    if (j->ks)
        ks_free(j->ks);
    xfree(j->rest);
    xfree(j);
}

/* Swaps the loaded data in. Every struct db keeps its address (clients,
 * WATCH and blocked clients point at them): the contents move. */
static void install(struct load_job *j)
{
    struct keyspace *ks = j->ks;
    log_notice("Done loading the primary's snapshot, keys loaded: %lld (%lld bytes)", j->keys,
               ml.received);
    /* Redis's words for its repl-diskless-load swapdb: the old data was
     * served meanwhile and goes now. Its "Discarding old DB in background"
     * is not said: the old contents are freed here on the loop, with the
     * job. Without swapdb the old data was dropped before the load: the
     * swap moves the new data in past empty dbs. */
    if (server.loading == LOADING_ASYNC)
        log_notice("MASTER <-> REPLICA sync: Swapping active DB with loaded DB");
    for (int i = 0; i < ks->count; i++) {
        /* The old contents are freed with the job: replies streaming from
         * them are finished first (which also brings db->streams to 0, so
         * the count that moves with the contents is right). */
        ks_swap(&server.ks->dbs[i], &ks->dbs[i]);
        watch_touch_db(&server.ks->dbs[i]);
    }
    tracking_flush();
    /* The primary's function libraries replace ours, as its keys did. */
    fn_install_loaded();
    server.dirty++;
    repl_adopt(ml.new_replid, ml.new_offset);
    repl_backlog();
    /* Our replicas hold another history now: they sync again from us. */
    repl_primary_drop_replicas();
    if (aof_enabled() && !aof_rewrite_in_progress() && aof_rewrite_start() < 0)
        log_warning("The append-only log could not be rewritten after a full sync: it holds "
                    "the data before it until the next rewrite");
}

static void load_done(uv_work_t *req, int status)
{
    struct load_job *j = req->data;
    enum server_loading mode = server.loading;
    mem_add(j->mem);
    ml.job = NULL;
    if (status < 0 || ml.state != LINK_LOADING || !ml.c) {
        server.loading = LOADING_NONE;
        free_job(j); /* the link was dropped meanwhile */
        return;
    }
    if (!j->ks) {
        log_warning("Failed trying to load the MASTER synchronization DB from disk, check server "
                    "logs.");
        log_warning("MASTER <-> REPLICA sync: the primary's snapshot does not load (%s); %s",
                    j->err,
                    mode == LOADING_ASYNC ? "keeping the data as it was"
                                          : "the old data was flushed before");
        server.loading = LOADING_NONE;
        free_job(j);
        fail_link("full sync failed; retrying");
        return;
    }
    install(j);
    server.loading = LOADING_NONE;
    go_up(j->rest, j->rest_len, 0);
    free_job(j);
}

/* Every db emptied, as FLUSHALL's (its WATCHers see the change), and the
 * function libraries gone, as Redis's emptyData does before such a load:
 * on the lazy-free thread with replica-lazy-flush, as Redis's
 * EMPTYDB_ASYNC. */
static void flush_old_data(void)
{
    for (int i = 0; i < server.ks->count; i++) {
        watch_touch_db(&server.ks->dbs[i]);
        if (server.cfg.replica_lazy_flush)
            lazyfree_flush_db(&server.ks->dbs[i]);
        else
            ks_flush(&server.ks->dbs[i]);
    }
    tracking_flush();
    fn_flush();
}

/* The snapshot is in the file: loads it off the loop; rest (the stream
 * that followed it) waits with the link's reading stopped. */
static void start_load(const char *rest, size_t n)
{
    struct load_job *j = xcalloc(1, sizeof(*j));
    memcpy(j->path, ml.path, sizeof(j->path));
    j->databases = server.ks->count;
    persist_snap_limits(&j->lim);
    j->clock = ks_access_clock_in_use();
    if (n) {
        j->rest = xmalloc(n);
        memcpy(j->rest, rest, n);
        j->rest_len = n;
    }
    j->req.data = j;
    uv_read_stop(&ml.c->h.stream);
    ml.state = LINK_LOADING;
    ml.job = j;
    if (server.cfg.repl_diskless_load == DISKLESS_LOAD_SWAPDB) {
        /* The old data is served while this loads, and replaced whole
         * when it loaded (install). */
        server.loading = LOADING_ASYNC;
    } else {
        /* As Redis's disabled and on-empty-db: the replica never holds
         * two datasets; until the new one is in, it answers -LOADING. */
        log_notice("MASTER <-> REPLICA sync: Flushing old data");
        flush_old_data();
        server.loading = LOADING_SYNC;
    }
    log_notice("MASTER <-> REPLICA sync: Loading DB in memory");
    int rc = uv_queue_work(server.loop, &j->req, load_work, load_done);
    if (rc < 0) {
        server.loading = LOADING_NONE;
        ml.job = NULL;
        free_job(j);
        fail_link(uv_strerror(rc));
    }
}

/* The reader's callback: payload bytes into the temporary file. */
static int write_payload(void *ctx, const char *p, size_t n)
{
    (void)ctx;
    if (write_full(ml.fd, p, n) < 0) {
        char why[256];
        snprintf(why, sizeof(why), "writing %s: %s", ml.path, strerror(errno));
        fail_link(why);
        return -1;
    }
    ml.received += (long long)n;
    return 0;
}

static void begin_payload(const char *head)
{
    snprintf(ml.path, sizeof(ml.path), "temp-repl-%ld.rbkv", (long)getpid());
    ml.fd = open(ml.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (ml.fd < 0) {
        log_warning("Opening the temp file needed for MASTER <-> REPLICA synchronization: %s",
                    strerror(errno));
        close_link();
        return;
    }
    ml.received = 0;
    if (repl_reader_begin_payload(&ml.reader, head) < 0) {
        fail_link("bad snapshot header from the primary");
        return;
    }
    ml.state = LINK_TRANSFER;
    if (ml.reader.eof_mode)
        log_notice("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to disk");
    else
        log_notice("MASTER <-> REPLICA sync: receiving %lld bytes from master to disk",
                   ml.reader.remaining);
}

/* ---- the handshake ---- */

static void send_psync(void)
{
    char off[32];
    if (ml.failover) {
        /* A primary handing over: the target promotes itself when our
         * history is its own (Redis's PSYNC <replid> <offset> FAILOVER). */
        snprintf(off, sizeof(off), "%lld", repl.offset + 1);
        log_notice("Trying a partial resynchronization (request %s:%s).", repl.replid, off);
        const char *w[] = {"PSYNC", repl.replid, off, "FAILOVER"};
        send_command(ml.c, 4, w);
        ml.step = HS_PSYNC;
        return;
    }
    /* A server with no history asks for a full sync outright; one with a
     * history (a former primary, or a replica of another) offers it. */
    if (repl.offset == 0) {
        log_notice("Partial resynchronization not possible (no cached master)");
        const char *w[] = {"PSYNC", "?", "-1"};
        send_command(ml.c, 3, w);
    } else {
        snprintf(off, sizeof(off), "%lld", repl.offset + 1);
        log_notice("Trying a partial resynchronization (request %s:%s).", repl.replid, off);
        const char *w[] = {"PSYNC", repl.replid, off};
        send_command(ml.c, 3, w);
    }
    ml.step = HS_PSYNC;
}

static void send_capa(void)
{
    const char *w[] = {"REPLCONF", "capa", "eof", "capa", "psync2", "capa", "rbkv"};
    send_command(ml.c, 7, w);
    ml.step = HS_CAPA;
}

static void send_ip(void)
{
    if (!server.cfg.replica_announce_ip) {
        send_capa();
        return;
    }
    const char *w[] = {"REPLCONF", "ip-address", server.cfg.replica_announce_ip};
    send_command(ml.c, 3, w);
    ml.step = HS_IP;
}

/* The port the primary lists this replica on (INFO replication), where Sentinel
 * will reach it: as Redis, the TLS port when replication runs over TLS, so a
 * TLS-only replica (port 0) is not announced on port 0. */
static long long announced_port(void)
{
    if (server.cfg.replica_announce_port)
        return server.cfg.replica_announce_port;
    if (server.cfg.tls_replication && server.cfg.tls_port)
        return server.cfg.tls_port;
    return server.cfg.port;
}

static void send_port(void)
{
    char port[16];
    snprintf(port, sizeof(port), "%lld", announced_port());
    const char *w[] = {"REPLCONF", "listening-port", port};
    send_command(ml.c, 3, w);
    ml.step = HS_PORT;
}

/* AUTH [masteruser] masterauth: masterauth with its length, as it is a
 * binary-safe setting, so a password may hold NULs (as the primary's
 * requirepass may). */
static void send_auth(void)
{
    const char *user = server.cfg.masteruser;
    const struct config_bytes *pass = &server.cfg.masterauth;
    struct resp_slice argv[3] = {{.ptr = "AUTH", .len = 4}};
    int argc = 1;

    if (!pass->p) {
        send_port();
        return;
    }
    if (user)
        argv[argc++] = (struct resp_slice){.ptr = user, .len = strlen(user)};
    argv[argc++] = (struct resp_slice){.ptr = pass->p, .len = pass->len};
    resp_add_command(&ml.c->out, argc, argv);
    conn_send(ml.c);
    ml.step = HS_AUTH;
}

/* A FAILOVER's PSYNC was answered: the failover learns whether the target
 * took over. Called last: a refusal may make us a primary again. */
static void failover_answered(int failover, int accepted)
{
    if (failover && ml.on_failover_psync)
        ml.on_failover_psync(accepted);
}

/* The answer to PSYNC. */
static void psync_reply(const char *line)
{
    struct repl_psync_reply reply;
    enum repl_psync_answer answer = repl_reader_psync_reply(line, &reply);
    int failover = ml.failover;
    ml.failover = 0;
    if (answer == REPL_PSYNC_BAD_FULL) {
        log_warning("Master replied with wrong +FULLRESYNC syntax.");
        close_link();
        failover_answered(failover, 0);
        return;
    }
    if (answer == REPL_PSYNC_FULL) {
        memcpy(ml.new_replid, reply.replid, sizeof(ml.new_replid));
        ml.new_offset = reply.offset;
        ml.step = HS_PAYLOAD_HEAD;
        log_notice("Full resync from master: %s:%lld", ml.new_replid, ml.new_offset);
        /* Our history (Redis's cached master) is no use now; it stays
         * until the new data is installed, as the data it goes with. */
        if (repl.offset)
            log_notice("Discarding previously cached master state.");
        failover_answered(failover, 1);
        return;
    }
    if (answer == REPL_PSYNC_CONTINUE) {
        const char *id = reply.replid;
        log_notice("Successful partial resynchronization with master.");
        if (id[0] && memcmp(id, repl.replid, 40) != 0) {
            /* The primary's history has a new name (it was promoted): ours
             * continues under it, the old one is replid2 for our replicas. */
            repl_shift_replid();
            memcpy(repl.replid, id, 40);
            repl_primary_drop_replicas();
        }
        repl_backlog();
        ml.step = HS_PAYLOAD_HEAD; /* unused: go_up follows */
        failover_answered(failover, 1);
        return;
    }
    /* -NOMASTERLINK, -LOADING, or a refusal: try again later. */
    if (!strncmp(line, "-NOMASTERLINK", 13) || !strncmp(line, "-LOADING", 8))
        log_notice("Master is currently unable to PSYNC but should be in the future: %s", line);
    else
        log_warning("Unexpected reply to PSYNC from master: %s", line);
    close_link();
    failover_answered(failover, 0);
}

/* One reply line of the handshake (without its CRLF). */
static void handshake_line(const char *line)
{
    int err = line[0] == '-';
    switch (ml.step) {
    case HS_PING:
        /* Without our password the primary still proves it is alive. */
        if (err && strncmp(line, "-NOAUTH", 7) && strncmp(line, "-NOPERM", 7)) {
            log_warning("Error reply to PING from master: '%s'", line);
            close_link();
            return;
        }
        log_notice("Master replied to PING, replication can continue...");
        send_auth();
        return;
    case HS_AUTH:
        if (err) {
            log_warning("Unable to AUTH to MASTER: %s", line);
            close_link();
            return;
        }
        send_port();
        return;
    case HS_PORT:
        if (err)
            log_notice("(Non critical) Master does not understand REPLCONF listening-port: %s",
                       line);
        send_ip();
        return;
    case HS_IP:
        if (err)
            log_notice("(Non critical) Master does not understand REPLCONF ip-address: %s",
                       line);
        send_capa();
        return;
    case HS_CAPA:
        if (err)
            log_notice("(Non critical) Master does not understand REPLCONF capa: %s", line);
        send_psync();
        return;
    case HS_PSYNC:
        if (line[0] == '\0')
            return; /* a Redis primary's keepalive before its answer */
        psync_reply(line);
        return;
    case HS_PAYLOAD_HEAD:
        if (line[0] == '\0')
            return; /* the primary's keepalive while it prepares the snapshot */
        if (line[0] != '$') {
            char why[600];
            snprintf(why, sizeof(why), "bad snapshot header: %s", line);
            fail_link(why);
            return;
        }
        begin_payload(line);
        return;
    }
}

/* The handshake's replies and the snapshot, plaintext (conn_read_raw). */
static void link_read(struct client *c, const char *buf, ssize_t nread)
{
    if (nread < 0) {
        fail_link(nread == UV_EOF ? "connection closed by the primary"
                                  : uv_strerror((int)nread));
        return;
    }
    ml.last_io_ms = now_ms();
    const char *p = buf;
    size_t n = (size_t)nread;
    while (n && c == ml.c && !(c->flags & CLIENT_CLOSING)) {
        enum repl_read ev;
        size_t used = repl_reader_feed(&ml.reader, p, n, &ev);
        p += used;
        n -= used;
        switch (ev) {
        case REPL_READ_MORE:
            return;
        case REPL_READ_ERROR:
            if (!(c->flags & CLIENT_CLOSING)) /* a failed write has closed it, saying why */
                fail_link(ml.reader.err);
            return;
        case REPL_READ_PAYLOAD_END:
            close(ml.fd);
            ml.fd = -1;
            start_load(p, n);
            return;
        case REPL_READ_LINE:
            handshake_line(ml.reader.line);
            if (ml.step == HS_PAYLOAD_HEAD && !strncmp(ml.reader.line, "+CONTINUE", 9)) {
                go_up(p, n, 1);
                return;
            }
            break;
        }
    }
}

static void connected(uv_connect_t *req, int status)
{
    struct client *c = req->data;
    int rc;
    if (c != ml.c || (c->flags & CLIENT_CLOSING))
        return;
    if (status < 0) {
        /* strerror's text, as Redis's: libuv's errors are -errno here. */
        log_warning("Error condition on socket for SYNC: %s", strerror(-status));
        close_link();
        return;
    }
    conn_name_peers(c);
    uv_tcp_nodelay(&c->h.tcp, 1);
    ml.state = LINK_HANDSHAKE;
    ml.last_io_ms = now_ms();
    repl_reader_reset(&ml.reader);
    log_notice("Non blocking connect for SYNC fired the event.");
    rc = conn_read_raw(c, link_read);
    if (rc < 0) {
        fail_link(uv_strerror(rc));
        return;
    }
    const char *w[] = {"PING"};
    send_command(c, 1, w);
    ml.step = HS_PING;
}

static void schedule_retry(void)
{
    ml.state = LINK_CONNECT;
    ml.next_attempt_ms = now_ms() + ml.backoff_ms;
    ml.backoff_ms = ml.backoff_ms * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : ml.backoff_ms * 2;
}

/* bind-source-addr: the link leaves from that address (any port), as
 * Redis's; 0, or a libuv error for fail_link. */
static int bind_source(struct client *c)
{
    const char *addr = server.cfg.bind_source_addr;
    struct sockaddr_storage ss;
    if (!addr)
        return 0;
    int rc = strchr(addr, ':') ? uv_ip6_addr(addr, 0, (struct sockaddr_in6 *)&ss)
                               : uv_ip4_addr(addr, 0, (struct sockaddr_in *)&ss);
    if (rc == 0)
        rc = uv_tcp_bind(&c->h.tcp, (const struct sockaddr *)&ss, 0);
    return rc;
}

static void connect_now(void)
{
    /* Redis reconnects at once after it lost an up link, in these words. */
    log_notice(ml.was_up ? "Reconnecting to MASTER %s:%d" : "Connecting to MASTER %s:%d",
               server.cfg.replicaof_host, server.cfg.replicaof_port);
    ml.was_up = 0;
    char port[16];
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    uv_getaddrinfo_t gai;
    snprintf(port, sizeof(port), "%d", server.cfg.replicaof_port);
    /* Synchronous (no callback): a replica has nothing better to do, and
     * the primary is usually an address or a name in /etc/hosts. */
    int rc = uv_getaddrinfo(server.loop, &gai, NULL, server.cfg.replicaof_host, port, &hints);
    if (rc < 0) {
        log_warning("Replication: can't resolve %s: %s", server.cfg.replicaof_host,
                    uv_strerror(rc));
        schedule_retry();
        return;
    }
    struct client *c = conn_new_outgoing(server.cfg.tls_replication);
    if (!c) {
        if (server.cfg.tls_replication && !tls_configured())
            log_warning("Replication: tls-replication yes needs the TLS settings "
                        "(tls-cert-file, tls-key-file, tls-ca-cert-file)");
        uv_freeaddrinfo(gai.addrinfo);
        schedule_retry();
        return;
    }
    c->flags |= CLIENT_MASTER;
    c->after_command = repl_replica_applied;
    ml.c = c;
    ml.state = LINK_CONNECTING;
    ml.connect_req.data = c;
    rc = bind_source(c);
    if (rc == 0)
        rc = uv_tcp_connect(&ml.connect_req, &c->h.tcp, gai.addrinfo->ai_addr, connected);
    uv_freeaddrinfo(gai.addrinfo);
    if (rc < 0) {
        log_warning("Unable to connect to MASTER: %s", strerror(-rc));
        close_link();
        return;
    }
    log_notice("MASTER <-> REPLICA sync started");
}

/* The link is going down: the stream's database at our offset is kept for
 * the next partial resync and the saved position. */
static void remember_stream_db(void)
{
    if (ml.state == LINK_UP && ml.c)
        ml.stream_db = ml.c->db_index;
}

void repl_replica_link_gone(struct client *c)
{
    if (c != ml.c)
        return;
    remember_stream_db();
    if (ml.state == LINK_UP) {
        ml.down_since_ms = now_ms();
        ml.was_up = 1;
        /* Redis 7.0's words. Its cached master is our replid and offset,
         * kept for the next PSYNC. */
        log_warning("Connection with master lost.");
        log_notice("Caching the disconnected master state.");
    }
    ml.c = NULL;
    drop_temp_file();
    if (server.cfg.replicaof_host)
        schedule_retry();
    else
        ml.state = LINK_NONE;
}

/* ---- lifecycle ---- */

void repl_replica_init(void)
{
    resp_out_init(&ml.scratch);
    repl_reader_init(&ml.reader, write_payload, NULL);
    ml.state = LINK_NONE;
    ml.fd = -1;
    ml.down_since_ms = 0;
    conn_on_gone(repl_replica_link_gone);
}

void repl_replica_close(void)
{
    remember_stream_db();
    ml.state = LINK_NONE; /* a load still running is discarded when it ends */
    if (ml.c && !(ml.c->flags & CLIENT_CLOSING))
        conn_close(ml.c);
    drop_temp_file();
    resp_out_destroy(&ml.scratch);
}

void repl_replica_start(void)
{
    remember_stream_db();
    if (ml.c && !(ml.c->flags & CLIENT_CLOSING))
        conn_close(ml.c);
    ml.c = NULL;
    drop_temp_file();
    /* A client blocked here would be served later by the primary's stream,
     * taking what the primary keeps: Redis 7.0 fails every wait and closes
     * the client, on each REPLICAOF to a new primary. */
    block_fail_all("UNBLOCKED force unblock from blocking operation, instance state changed "
                   "(master -> replica?)");
    /* A primary turned replica offers its own history in PSYNC (a demoted
     * primary continues from the promoted replica when it wrote nothing the
     * replica lacks). Its replicas stay, as Redis's do, until the sync with
     * the new primary changes the history they hold: a partial one under a
     * new ID (psync_reply) or a full one (install) drops them. */
    if (ml.state == LINK_NONE)
        ml.down_since_ms = 0; /* never up yet: INFO says -1, as Redis */
    /* Keys expire on the primary, which sends their DELs. */
    ks_set_expiry(KS_EXPIRY_HELD);
    log_set_role('S');
    ml.was_up = 0; /* a new primary: "Connecting", not "Reconnecting" */
    ml.failover = 0;
    ml.state = LINK_CONNECT;
    ml.backoff_ms = RETRY_FIRST_MS;
    ml.next_attempt_ms = now_ms();
}

void repl_replica_follow(const char *host, int port, int failover)
{
    char *copy = xstrdup(host);
    xfree(server.cfg.replicaof_host);
    server.cfg.replicaof_host = copy;
    server.cfg.replicaof_port = port;
    repl_replica_start();
    ml.failover = failover;
}

int repl_replica_unfollow(void)
{
    if (!server.cfg.replicaof_host)
        return 0;
    xfree(server.cfg.replicaof_host);
    server.cfg.replicaof_host = NULL;
    server.cfg.replicaof_port = 0;
    repl_replica_stop();
    return 1;
}

void repl_replica_on_failover_psync(void (*cb)(int accepted))
{
    ml.on_failover_psync = cb;
}

void repl_replica_stop(void)
{
    remember_stream_db();
    if (ml.c && !(ml.c->flags & CLIENT_CLOSING))
        conn_close(ml.c);
    ml.c = NULL;
    drop_temp_file();
    ml.state = LINK_NONE;
    ml.failover = 0;
    ks_set_expiry(KS_EXPIRY_ON);
    log_set_role('M');
    /* A new history starts here; our old one stays valid as replid2, so
     * the primary's other replicas continue from us partially. Our stream's
     * next entry starts with a SELECT: the database the old primary's last
     * SELECT chose is not our encoder's. */
    repl_shift_replid();
    repl_backlog();
    repl_reselect();
    /* Our own replicas learn the new ID only by a PSYNC: as Redis 7.0 does,
     * they are dropped, and continue partially when they come back. */
    repl_primary_drop_replicas();
}

void repl_replica_cron(void)
{
    int64_t now = now_ms();
    switch (ml.state) {
    case LINK_NONE:
        return;
    case LINK_CONNECT:
        /* An earlier load still running on its thread finishes first. */
        if (now >= ml.next_attempt_ms && !ml.job)
            connect_now();
        return;
    /* The timeouts are logged in Redis's words, which monitoring greps for. */
    case LINK_CONNECTING:
    case LINK_HANDSHAKE:
        if (now - ml.last_io_ms > server.cfg.repl_timeout * 1000) {
            log_warning("Timeout connecting to the MASTER...");
            close_link();
        }
        return;
    case LINK_TRANSFER:
        if (now - ml.last_io_ms > server.cfg.repl_timeout * 1000) {
            log_warning("Timeout receiving bulk data from MASTER... If the problem persists try "
                        "to set the 'repl-timeout' parameter in redis.conf to a larger value.");
            close_link();
        }
        return;
    case LINK_LOADING:
        return; /* the link is not read meanwhile: no timeout */
    case LINK_UP:
        if (now - ml.last_io_ms > server.cfg.repl_timeout * 1000) {
            log_warning("MASTER timeout: no data nor PING received...");
            close_link();
            return;
        }
        if (now - ml.last_ack_ms >= ACK_PERIOD_MS)
            send_ack();
        ml.backoff_ms = RETRY_FIRST_MS;
        return;
    }
}

void repl_replica_status(struct repl_link_status *st)
{
    static const char *const words[] = {"none", "connect", "connecting", "handshake", "sync",
                                        "sync", "connected"};
    st->state = words[ml.state];
    st->up = ml.state == LINK_UP;
    st->sync_in_progress = ml.state == LINK_TRANSFER || ml.state == LINK_LOADING;
    st->last_io_ms = ml.last_io_ms;
    st->down_since_ms = ml.down_since_ms;
    st->transferred = ml.received;
}

int repl_replica_link_up(void)
{
    return ml.state == LINK_UP;
}

int64_t repl_replica_data_age(void)
{
    int64_t now = now_ms();
    if (ml.state == LINK_UP)
        return now - ml.last_io_ms;
    /* A link never up holds nothing of the primary's: as old as can be,
     * as Redis's repl_down_since of 0 makes it. */
    return ml.down_since_ms ? now - ml.down_since_ms : INT64_MAX / 2;
}

int repl_replica_stream_db(void)
{
    return ml.state == LINK_UP && ml.c ? ml.c->db_index : ml.stream_db;
}

void repl_replica_resume_in(int db)
{
    ml.stream_db = db;
}

int repl_replica_in_transaction(void)
{
    return ml.c && ml.c->multi;
}
