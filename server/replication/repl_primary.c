/*
 * repl_primary.c - serving replicas (repl_primary.h).
 *
 * Owns the sync child, the pipe from it and the pending GETACK. A replica's
 * state is its struct repl_peer (repl.h): WAIT_SNAPSHOT until a child is
 * started for it, SNAPSHOT while the child's bytes are relayed, WAIT_ACK
 * after a $EOF: snapshot until its first ACK, ONLINE once the stream held
 * meanwhile is queued to it.
 */
#include "repl_primary.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backlog.h"
#include "blocking.h"
#include "childinfo.h"
#include "client.h"
#include "clock.h"
#include "latency.h"
#include "conn.h"
#include "fileio.h"
#include "log.h"
#include "mem.h"
#include "pause.h"
#include "repl_stream.h"
#include "server.h"
#include "rdb_file.h"
#include "snapshot.h"

/* The snapshot waits in the pipe while a replica has more than this unsent. */
#define RELAY_PAUSE_BYTES (32u << 20)
#define COPY_CHUNK (64 * 1024)

static struct {
    pid_t child;
    uv_pipe_t pipe;
    int pipe_open;
    int paused;                  /* reading the pipe stopped for a slow replica */
    int eof;                     /* the running child frames its snapshot as $EOF: */
    int rdb;                     /* ... and writes an RDB file, not rbkv's snapshot */
    int64_t last_ping_ms;
    int getack_sent;             /* a GETACK is in the stream since the last ACK round */
} job;

struct wait_target {
    long long offset;
    long long numreplicas;
};

pid_t repl_primary_child_pid(void)
{
    return job.child;
}

static void pipe_closed(uv_handle_t *h);

void repl_primary_shutdown(void)
{
    if (job.child) {
        kill(job.child, SIGKILL);
        while (waitpid(job.child, NULL, 0) < 0 && errno == EINTR)
            ;
        job.child = 0;
    }
    if (job.pipe_open && !uv_is_closing((uv_handle_t *)&job.pipe))
        uv_close((uv_handle_t *)&job.pipe, pipe_closed);
}

static int64_t now_ms(void)
{
    return (int64_t)uv_now(server.loop);
}

/* ---- the child ---- */

/* The data as of the fork, in the format the child's replicas read: an
 * rbkv snapshot for rbkv replicas, Redis's RDB for every other peer. */
static int child_write(int fd, int rdb, char *err, size_t errlen)
{
    return rdb ? rdb_file_write_fd(fd, server.ks, mstime(), err, errlen)
               : snap_write_fd(fd, server.ks, mstime(), err, errlen);
}

/* "$<length>\r\n" and the snapshot: through a file, to learn the length. */
static int child_send_sized(int out, int rdb, char *err, size_t errlen)
{
    char path[64];
    snprintf(path, sizeof(path), "temp-sync-%ld.%s", (long)getpid(), rdb ? "rdb" : "rbkv");
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "Can't open %s: %s", path, strerror(errno));
        return -1;
    }
    unlink(path);
    int rc = child_write(fd, rdb, err, errlen);
    struct stat st;
    if (rc == 0 && (fstat(fd, &st) < 0 || lseek(fd, 0, SEEK_SET) < 0)) {
        snprintf(err, errlen, "%s", strerror(errno));
        rc = -1;
    }
    if (rc == 0) {
        char head[32];
        int n = snprintf(head, sizeof(head), "$%lld\r\n", (long long)st.st_size);
        rc = write_full(out, head, (size_t)n);
        char *buf = malloc(COPY_CHUNK);
        ssize_t r;
        while (rc == 0 && buf && (r = read(fd, buf, COPY_CHUNK)) > 0)
            rc = write_full(out, buf, (size_t)r);
        free(buf);
        if (rc < 0)
            snprintf(err, errlen, "writing to the replicas: %s", strerror(errno));
    }
    close(fd);
    return rc;
}

static int child_send_eof(int out, int rdb, char *err, size_t errlen)
{
    char mark[41], head[64];
    repl_random_hex(mark);
    int n = snprintf(head, sizeof(head), "$EOF:%s\r\n", mark);
    if (write_full(out, head, (size_t)n) < 0 || child_write(out, rdb, err, errlen) < 0 ||
        write_full(out, mark, 40) < 0) {
        if (!err[0])
            snprintf(err, errlen, "writing to the replicas: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static void child_main(int out, int eof, int rdb)
{
    char err[512] = "";
    log_set_role('C');
    server_child_close_listeners();
    int rc = eof ? child_send_eof(out, rdb, err, sizeof(err))
                 : child_send_sized(out, rdb, err, sizeof(err));
    if (rc < 0)
        log_warning("Snapshot for the replicas failed: %s", err);
    close(out);
    _exit(rc < 0 ? 1 : 0);
}

/* ---- relaying ---- */

static void relay_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    static char chunk[COPY_CHUNK];
    (void)h;
    (void)suggested;
    *buf = uv_buf_init(chunk, sizeof(chunk));
}

static void pipe_closed(uv_handle_t *h)
{
    (void)h;
    job.pipe_open = 0;
}

/* resp_out_drain's emit, into another reply buffer. */
static void emit_to(void *ctx, const char *p, size_t n)
{
    resp_add_raw(ctx, p, n);
}

/* Sends p the stream held for it since its snapshot began. */
static void put_online(struct repl_peer *p)
{
    char name[REPL_PEER_NAME_MAX];
    resp_out_drain(&p->held, emit_to, &p->c->out);
    p->state = PEER_ONLINE;
    p->ack_ms = now_ms();
    log_notice("Synchronization with replica %s succeeded", repl_peer_name(p, name, sizeof(name)));
    conn_send(p->c);
}

/* The child is done: its replicas get the stream held for them, or, when it
 * failed, lose their links and try again. */
static void sync_finished(void)
{
    int status = 0;
    while (waitpid(job.child, &status, 0) < 0 && errno == EINTR)
        ;
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    job.child = 0;
    if (ok)
        log_notice(job.eof ? "Background RDB transfer terminated with success"
                           : "Background saving terminated with success");
    uv_close((uv_handle_t *)&job.pipe, pipe_closed);
    job.paused = 0;
    struct repl_peer *next;
    for (struct repl_peer *p = repl.peers; p; p = next) {
        next = p->next;
        if (p->state != PEER_SNAPSHOT)
            continue;
        if (!ok) {
            char name[REPL_PEER_NAME_MAX];
            log_warning("Replica %s lost its full sync: the snapshot child failed",
                        repl_peer_name(p, name, sizeof(name)));
            conn_close(p->c);
            continue;
        }
        p->ack_ms = now_ms();
        if (p->rdb_only) {
            /* redis-cli --rdb wanted the file alone: it goes once the
             * file is out, as Redis's replicaPutOnline lets it go. */
            char name[REPL_PEER_NAME_MAX];
            log_notice("RDB transfer completed, rdb only replica (%s) should be disconnected asap",
                       repl_peer_name(p, name, sizeof(name)));
            p->c->flags |= CLIENT_CLOSE_AFTER_REPLY;
            conn_send(p->c);
            continue;
        }
        if (job.eof) {
            /* A reader of the $EOF: form cannot tell where the snapshot ends
             * and the stream begins in one read: the stream waits for its
             * first ACK, as Redis's does. */
            char name[REPL_PEER_NAME_MAX];
            log_notice("Streamed RDB transfer with replica %s succeeded (socket). Waiting for "
                       "REPLCONF ACK from slave to enable streaming",
                       repl_peer_name(p, name, sizeof(name)));
            p->state = PEER_WAIT_ACK;
            continue;
        }
        put_online(p);
    }
}

static void relay_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    (void)s;
    if (nread < 0) {
        uv_read_stop((uv_stream_t *)&job.pipe);
        sync_finished();
        return;
    }
    for (struct repl_peer *p = repl.peers; p; p = p->next) {
        if (p->state != PEER_SNAPSHOT)
            continue;
        resp_add_raw(&p->c->out, buf->base, (size_t)nread);
        conn_send(p->c);
        if (resp_out_pending(&p->c->out) > RELAY_PAUSE_BYTES && !job.paused) {
            job.paused = 1;
            uv_read_stop((uv_stream_t *)&job.pipe);
        }
    }
}

/* A paused relay resumes once every replica in the sync drained half. */
static void relay_resume_if_drained(void)
{
    if (!job.paused)
        return;
    for (struct repl_peer *p = repl.peers; p; p = p->next) {
        if (p->state == PEER_SNAPSHOT && resp_out_pending(&p->c->out) > RELAY_PAUSE_BYTES / 2)
            return;
    }
    job.paused = 0;
    uv_read_start((uv_stream_t *)&job.pipe, relay_alloc, relay_read);
}

/* Whether p reads the snapshot as an RDB file: every peer that did not
 * say it is rbkv (redis-server, redis-cli --rdb, --replica). */
static int wants_rdb(const struct repl_peer *p)
{
    return !p->capa_rbkv;
}

/* Forks the child for the replicas waiting for a snapshot that read the
 * format of the first of them; those reading the other wait for the next
 * child, as one that arrives while a child runs does. */
static void start_sync(void)
{
    int eof = server.cfg.repl_diskless_sync;
    int rdb = -1;
    for (struct repl_peer *p = repl.peers; p; p = p->next) {
        if (p->state != PEER_WAIT_SNAPSHOT)
            continue;
        if (rdb < 0)
            rdb = wants_rdb(p);
        if (wants_rdb(p) == rdb)
            eof = eof && p->capa_eof;
    }
    if (rdb < 0 || job.child || job.pipe_open)
        return;
    /* Redis's words, though the snapshot is rbkv's own format: "disk" is
     * the child's temporary file, "replicas sockets" the $EOF: stream. */
    log_notice("Starting BGSAVE for SYNC with target: %s", eof ? "replicas sockets" : "disk");
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) {
        log_warning("Can't start a full sync: pipe: %s", strerror(errno));
        return;
    }
    int64_t fork_start = ustime();
    pid_t pid = fork();
    if (pid > 0) {
        child_info_forked(fork_start);
        latency_add_since(server.cfg.latency_monitor_threshold, "fork", fork_start);
    }
    if (pid < 0) {
        log_warning("Can't start a full sync: fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        child_info_child_started();
        child_main(fds[1], eof, rdb);
    }
    close(fds[1]);
    job.child = pid;
    job.eof = eof;
    job.rdb = rdb;
    uv_pipe_init(server.loop, &job.pipe, 0);
    uv_pipe_open(&job.pipe, fds[0]);
    job.pipe_open = 1;
    uv_read_start((uv_stream_t *)&job.pipe, relay_alloc, relay_read);
    log_notice(eof ? "Background RDB transfer started by pid %ld"
                   : "Background saving started by pid %ld",
               (long)pid);
    /* The snapshot is the data up to here; the stream from here is held. */
    repl_reselect();
    for (struct repl_peer *p = repl.peers; p; p = p->next) {
        if (p->state != PEER_WAIT_SNAPSHOT || wants_rdb(p) != rdb)
            continue;
        p->state = PEER_SNAPSHOT;
        if (!p->old_sync) {
            resp_add_raw(&p->c->out, "+FULLRESYNC ", 12);
            resp_add_raw(&p->c->out, repl.replid, 40);
            char off[32];
            int n = snprintf(off, sizeof(off), " %lld\r\n", repl.offset);
            resp_add_raw(&p->c->out, off, (size_t)n);
            conn_send(p->c);
        }
    }
}

/* ---- SYNC / PSYNC ---- */

/* Whether the history p asks for (replid, from offset) continues here; when
 * it does not, logs why in Redis's words (masterTryPartialResynchronization),
 * name being p's. A replica that is not rbkv (plain) does not continue from
 * before a write only rbkv reads (a range deletion sent as itself while no
 * such replica was attached): it would get a command it does not know. */
static int can_continue(const char *name, const char *replid, long long offset, int plain)
{
    if (strcmp(replid, repl.replid) != 0 &&
        (strcmp(replid, repl.replid2) != 0 || offset > repl.second_offset)) {
        if (!strcmp(replid, "?"))
            log_notice("Full resync requested by replica %s", name);
        else if (strcmp(replid, repl.replid2) != 0)
            log_notice("Partial resynchronization not accepted: Replication ID mismatch "
                       "(Replica asked for '%s', my replication IDs are '%s' and '%s')",
                       replid, repl.replid, repl.replid2);
        else
            log_notice("Partial resynchronization not accepted: Requested offset for second "
                       "ID was %lld, but I can reply up to %lld",
                       offset, repl.second_offset);
        return 0;
    }
    if (plain && offset <= repl.rbkv_only_end) {
        log_notice("Partial resynchronization not accepted: replica %s is not rbkv and the "
                   "backlog from offset %lld holds rbkv's own commands (up to %lld)",
                   name, offset, repl.rbkv_only_end);
        return 0;
    }
    if (!repl.backlog || !backlog_covers(repl.backlog, offset)) {
        log_notice("Unable to partial resync with replica %s for lack of backlog (Replica "
                   "request was: %lld).",
                   name, offset);
        if (offset > repl.offset)
            log_warning("Warning: replica %s tried to PSYNC with an offset that is greater than "
                        "the master replication offset.",
                        name);
        return 0;
    }
    return 1;
}

void repl_primary_sync(struct client *c, const char *replid, long long offset, int old_sync)
{
    struct repl_peer *p = repl_peer_of(c);
    if (p->state != PEER_HANDSHAKE)
        return; /* already a replica: Redis ignores it too */
    if (!p->ip[0]) {
        const char *colon = strrchr(c->addr, ':');
        size_t n = colon ? (size_t)(colon - c->addr) : strlen(c->addr);
        n = n < sizeof(p->ip) - 1 ? n : sizeof(p->ip) - 1;
        memcpy(p->ip, c->addr, n);
        p->ip[n] = '\0';
    }
    char name[REPL_PEER_NAME_MAX];
    repl_peer_name(p, name, sizeof(name));
    log_notice("Replica %s asks for synchronization", name);
    p->old_sync = old_sync;
    if (!old_sync && can_continue(name, replid, offset, !p->capa_rbkv)) {
        repl_peer_attach(p, PEER_ONLINE);
        p->ack_ms = now_ms();
        p->ack_offset = offset - 1;
        resp_add_raw(&c->out, "+CONTINUE ", 10);
        resp_add_raw(&c->out, repl.replid, 40);
        resp_add_raw(&c->out, "\r\n", 2);
        backlog_copy_from(repl.backlog, offset, emit_to, &c->out);
        repl.stats.sync_partial_ok++;
        log_notice("Partial resynchronization request from %s accepted. Sending %lld bytes of "
                   "backlog starting from offset %lld.",
                   name, repl.offset + 1 - offset, offset);
        return;
    }
    if (!old_sync && strcmp(replid, "?") != 0)
        repl.stats.sync_partial_err++;
    repl.stats.sync_full++;
    repl_peer_attach(p, PEER_WAIT_SNAPSHOT);
    p->ack_ms = now_ms(); /* when it started waiting, for the diskless delay */
    if (!server.cfg.repl_diskless_sync || server.cfg.repl_diskless_sync_delay <= 0)
        start_sync();
    else
        log_notice("Delay next BGSAVE for diskless SYNC");
}

/* ---- acknowledgements, WAIT ---- */

int repl_primary_acked(long long offset)
{
    int n = 0;
    for (struct repl_peer *p = repl.peers; p; p = p->next) {
        if (p->state == PEER_ONLINE && p->ack_offset >= offset)
            n++;
    }
    return n;
}

static void wait_timeout(struct client *c, const void *how)
{
    const struct wait_target *t = how;
    resp_add_int(&c->out, repl_primary_acked(t->offset));
}

void repl_primary_ack(struct client *c, long long offset)
{
    struct repl_peer *p = c->repl;
    if (!p || p->state == PEER_HANDSHAKE)
        return;
    if (offset > p->ack_offset)
        p->ack_offset = offset;
    p->ack_ms = now_ms();
    if (p->state == PEER_WAIT_ACK)
        put_online(p);
    job.getack_sent = 0;
    for (struct client *w = server.clients; w; w = w->next) {
        const struct wait_target *t = block_waiting_for(w, wait_timeout);
        if (!t || w->flags & CLIENT_CLOSING)
            continue;
        int n = repl_primary_acked(t->offset);
        if (n >= t->numreplicas) {
            resp_add_int(&w->out, n);
            block_release(w);
        }
    }
}

void repl_primary_wait(struct client *c, long long numreplicas, long long timeout_ms)
{
    struct wait_target t = {repl.offset, numreplicas};
    int n = repl_primary_acked(t.offset);
    if (n >= numreplicas) {
        resp_add_int(&c->out, n);
        return;
    }
    /* Inside MULTI a client cannot wait: answer with what is known now. */
    if (c->multi) {
        resp_add_int(&c->out, n);
        return;
    }
    block_client_until(c, timeout_ms, wait_timeout, &t, sizeof(t));
    repl_primary_ask_acks();
}

void repl_primary_ask_acks(void)
{
    if (!job.getack_sent) {
        static const char getack[] = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n";
        repl_feed_raw(getack, sizeof(getack) - 1);
        job.getack_sent = 1;
    }
}

int repl_primary_behind(int log, int *total)
{
    int behind = 0;
    int64_t now = now_ms();
    *total = 0;
    for (struct repl_peer *p = repl.peers; p; p = p->next) {
        ++*total;
        if (p->state == PEER_ONLINE && p->ack_offset >= repl.offset)
            continue;
        behind++;
        if (log)
            log_warning("Lagging replica %s:%d reported offset %lld behind master, lag=%lld, "
                        "state=%s.",
                        p->ip, p->listening_port, repl.offset - p->ack_offset,
                        p->state == PEER_ONLINE ? (long long)((now - p->ack_ms) / 1000) : 0LL,
                        repl_peer_state_name(p->state));
    }
    return behind;
}

int repl_primary_good_replicas(void)
{
    int n = 0;
    int64_t now = now_ms();
    for (struct repl_peer *p = repl.peers; p; p = p->next) {
        if (p->state == PEER_ONLINE && !p->old_sync &&
            now - p->ack_ms <= server.cfg.min_replicas_max_lag * 1000)
            n++;
    }
    return n;
}

int repl_primary_refuses_writes(void)
{
    return server.cfg.min_replicas_to_write > 0 && !server.cfg.replicaof_host &&
           server.cfg.min_replicas_max_lag > 0 &&
           repl_primary_good_replicas() < server.cfg.min_replicas_to_write;
}

void repl_primary_drop_replicas(void)
{
    for (struct repl_peer *p = repl.peers; p; p = p->next)
        conn_close(p->c);
}

/* ---- cron ---- */

void repl_primary_cron(void)
{
    int64_t now = now_ms();
    relay_resume_if_drained();
    repl_backlog_resize(); /* after a CONFIG SET repl-backlog-size */
    /* Replicas that came while a child ran, or wait for the diskless delay. */
    long long delay = server.cfg.repl_diskless_sync ? server.cfg.repl_diskless_sync_delay * 1000 : 0;
    /* ... unless repl-diskless-sync-max-replicas of them already wait. */
    long long waiting = 0, enough = server.cfg.repl_diskless_sync_max_replicas;
    for (struct repl_peer *p = repl.peers; p; p = p->next)
        waiting += p->state == PEER_WAIT_SNAPSHOT;
    if (server.cfg.repl_diskless_sync && enough > 0 && waiting >= enough)
        delay = 0;
    for (struct repl_peer *p = repl.peers; p; p = p->next) {
        if (p->state == PEER_WAIT_SNAPSHOT && now - p->ack_ms >= delay) {
            start_sync();
            break;
        }
    }
    /* Not while a failover holds the offsets still for its target to
     * reach, as Redis 7.0 sends none then. */
    if (!server.cfg.replicaof_host && repl.peers && !pause_by(PAUSE_BY_FAILOVER) &&
        now - job.last_ping_ms >= server.cfg.repl_ping_replica_period * 1000) {
        static const char ping[] = "*1\r\n$4\r\nPING\r\n";
        repl_feed_raw(ping, sizeof(ping) - 1);
        job.last_ping_ms = now;
    }
    struct repl_peer *next;
    for (struct repl_peer *p = repl.peers; p; p = next) {
        next = p->next;
        if ((p->state == PEER_ONLINE || p->state == PEER_WAIT_ACK) && !p->old_sync &&
            now - p->ack_ms > server.cfg.repl_timeout * 1000) {
            char name[REPL_PEER_NAME_MAX];
            log_warning("Disconnecting timedout replica (streaming sync): %s",
                        repl_peer_name(p, name, sizeof(name)));
            conn_close(p->c);
        }
    }
    if (!server.cfg.replicaof_host && repl.backlog && !repl.peers &&
        server.cfg.repl_backlog_ttl > 0 &&
        now - repl.no_peers_since_ms > server.cfg.repl_backlog_ttl * 1000) {
        log_notice("Replication backlog freed after %lld seconds without connected replicas.",
                   server.cfg.repl_backlog_ttl);
        repl_free_backlog();
    }
}
