/*
 * conn.c - listeners and client connections: reading requests, running them
 * in order, writing replies, limits and timeouts.
 *
 * Ownership: a struct client is allocated on accept and freed only in its
 * handle's close callback (libuv calls it after any write in flight has been
 * cancelled). conn_close() only starts that; callers may keep using the
 * struct until they return to the loop, but must check CLIENT_CLOSING.
 *
 * Writes: after a batch of requests we try a synchronous uv_try_write of all
 * pending output (one syscall in the common case), and queue a uv_write for
 * what the kernel did not take. The output buffer never moves bytes that are
 * pending (resp_writer.h), so replies added while that write is in flight are
 * simply appended.
 *
 * TLS (tls.h): a client of the tls-port has a struct tls_conn under it. Its
 * reads go to the TLS layer's buffer and come out decrypted into the same
 * parser; its replies are written into the same c->out, and the write path
 * sends the TLS layer's ciphertext output instead (wire()), so requests and
 * replies take one path whatever the transport, and a plaintext client pays
 * one pointer test per read and per write. Closing a TLS client after its
 * handshake first offers the socket TLS's close_notify (send_close_notify).
 *
 * Listeners: each port's sockets are one heap struct listener_set, so that a
 * CONFIG SET of port or tls-port (conn_relisten) opens the new ones before
 * the old ones close; a released set frees itself in its last close_cb.
 *
 * Streamed replies (stream.h): while a client's reply streams, its requests
 * wait; conn_send tops the output up from the stream whenever it runs low,
 * so the reply goes out at the socket's pace. Once the stream has ended
 * (CLIENT_STREAM_ENDED), the requests behind it run.
 *
 * The transport knows no module (docs/internals.md, "Layers"): what a module
 * keeps per client it releases through the closing and gone lists it
 * registered (conn_on_closing, conn_on_gone); the clients a batch woke up
 * run through the hook blocking.c registered; the append-only log's group
 * commit (persist/group_commit.c) reaches conn.c as struct conn_log, filled
 * at start by wiring.c, and conn.c only holds and releases the replies.
 * check_layers.sh holds conn.c to the headers it includes now.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "conn.h"
#include "errorstats.h"
#include "keyspace.h"
#include "log.h"
#include "mem.h"
#include "server.h"
#include "tls.h"

#define READ_SUGGESTED (16 * 1024)
#define WRITE_IOVS 64

static void yield_unlink(struct client *c);

/* ---- what modules registered (conn.h) ---- */

#define CONN_HOOKS_MAX 16
static conn_client_fn *closing_fns[CONN_HOOKS_MAX], *gone_fns[CONN_HOOKS_MAX];
static int nclosing, ngone;
static void (*requests_ran)(void);
static conn_client_fn *dispatch, *top_up;
static const struct conn_auth *auth;
static conn_client_test_fn *subscriber;
static const struct conn_log *log_hooks;
static conn_describe_fn *describe;

static void add_hook(conn_client_fn **fns, int *n, conn_client_fn *fn)
{
    for (int i = 0; i < *n; i++)
        if (fns[i] == fn)
            return; /* a second start (the fuzz harness) registers again */
    if (*n == CONN_HOOKS_MAX)
        abort(); /* a build with more modules than slots: raise CONN_HOOKS_MAX */
    fns[(*n)++] = fn;
}

void conn_on_closing(conn_client_fn *fn)
{
    add_hook(closing_fns, &nclosing, fn);
}

void conn_on_gone(conn_client_fn *fn)
{
    add_hook(gone_fns, &ngone, fn);
}

void conn_on_request(conn_client_fn *fn)
{
    dispatch = fn;
}

void conn_dispatch(struct client *c)
{
    dispatch(c);
}

void conn_on_top_up(conn_client_fn *fn)
{
    top_up = fn;
}

void conn_on_auth(const struct conn_auth *a)
{
    auth = a;
}

void conn_on_requests_ran(void (*fn)(void))
{
    requests_ran = fn;
}

void conn_on_subscriber_test(conn_client_test_fn *fn)
{
    subscriber = fn;
}

void conn_on_log(const struct conn_log *log)
{
    log_hooks = log;
}

void conn_on_describe(conn_describe_fn *fn)
{
    describe = fn;
}

/* c's CLIENT LIST line for a log line, or its id and address when no
 * describer is registered. */
static void describe_client(const struct client *c, char *buf, size_t len)
{
    if (describe)
        describe(c, buf, len);
    else
        snprintf(buf, len, "id=%llu addr=%s", (unsigned long long)c->id, c->addr);
}

/* ---- the clients' memory (maxmemory-clients) ----
 * Each normal and pub/sub client's memory (conn_client_memory) as last
 * measured, summed in clients_mem: measured again after each request, read
 * and write and once a cron tick, so the check before a request costs one
 * comparison. Replicas, the primary's link and closing clients count 0, as
 * Redis's client eviction leaves them out. With maxmemory-clients off every
 * client counts 0 and nothing is measured, so a request pays one branch;
 * once it is set, the next cron tick measures every client. */
static size_t clients_mem;

static inline void track_memory(struct client *c)
{
    if (!server.cfg.maxmemory_clients && !c->mem_tracked)
        return;
    size_t now = !server.cfg.maxmemory_clients ||
                         (c->flags & (CLIENT_REPLICA | CLIENT_MASTER | CLIENT_CLOSING))
                     ? 0
                     : conn_client_memory(c);
    clients_mem = clients_mem - c->mem_tracked + now;
    c->mem_tracked = now;
}

static int evictable(const struct client *c)
{
    return !(c->flags & (CLIENT_NO_EVICT | CLIENT_REPLICA | CLIENT_MASTER | CLIENT_CLOSING |
                         CLIENT_PROTECTED));
}

#define CLIENT_EVICTION_MIN (128 * 1024)

/* maxmemory-clients in bytes: a percentage reads maxmemory now; never under
 * 128 KB, so a bad setting still lets a client in; 0 when off. */
static unsigned long long client_eviction_limit(void)
{
    const struct config *cfg = &server.cfg;
    unsigned long long limit;
    if (cfg->maxmemory_clients < 0 && cfg->maxmemory > 0)
        limit = (unsigned long long)((double)cfg->maxmemory *
                                     (double)-cfg->maxmemory_clients / 100.0);
    else if (cfg->maxmemory_clients > 0)
        limit = (unsigned long long)cfg->maxmemory_clients;
    else
        return 0;
    return limit < CLIENT_EVICTION_MIN ? CLIENT_EVICTION_MIN : limit;
}

/* Redis's evictClients: while the clients together hold maxmemory-clients
 * or more, closes the biggest one that CLIENT NO-EVICT does not protect.
 * Closing takes a client out of the sum at once; its memory goes back when
 * its handle's close ends. */
static void evict_clients(void)
{
    if (!server.cfg.maxmemory_clients)
        return;
    unsigned long long limit = client_eviction_limit();
    while (limit && clients_mem >= limit) {
        struct client *victim = NULL;
        for (struct client *c = server.clients; c; c = c->next) {
            if (!evictable(c))
                continue;
            track_memory(c);
            if (!victim || c->mem_tracked > victim->mem_tracked)
                victim = c;
        }
        if (!victim || clients_mem < limit)
            return;
        char info[1024];
        describe_client(victim, info, sizeof(info));
        log_notice("Evicting client: %s", info);
        server.stats.evicted_clients++;
        conn_close(victim);
    }
}

/* The clients the requests just run woke up (blocking.c's hook). */
static void run_woken(void)
{
    if (requests_ran)
        requests_ran();
}

/* The last of server.clients: new clients go after it, so the list (and
 * CLIENT LIST) runs oldest first, as Redis's. */
static struct client *clients_tail;

void conn_client_free(struct client *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        server.clients = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        clients_tail = c->prev;
    server.client_count--;
    clients_mem -= c->mem_tracked;
    c->mem_tracked = 0;
    if (c->flags & CLIENT_READ_YIELDED)
        yield_unlink(c);
    for (int i = 0; i < ngone; i++)
        gone_fns[i](c);
    resp_parser_destroy(&c->parser);
    resp_out_destroy(&c->out);
    tls_conn_free(c->tls);
    xfree(c->name);
    xfree(c->lib_name);
    xfree(c->lib_ver);
    xfree(c);
}

static void close_cb(uv_handle_t *h)
{
    conn_client_free(h->data);
}

/* Redis's connTLSClose: a TLS client closed by us after its handshake (QUIT,
 * CLIENT KILL, a timeout, shutdown) is sent close_notify, with whatever
 * ciphertext was still owed before it, if the socket takes it now: the loop
 * never waits for it. Skipped while a write is in flight, which uv_close
 * cancels, as nothing may overtake it. */
static void send_close_notify(struct client *c)
{
    struct resp_iov iov[WRITE_IOVS];
    uv_buf_t bufs[WRITE_IOVS];

    if ((c->flags & CLIENT_WRITING) || tls_close_notify(c->tls) < 0)
        return;
    int n = resp_out_peek(tls_wire(c->tls), iov, WRITE_IOVS);
    for (int i = 0; i < n; i++)
        bufs[i] = uv_buf_init((char *)iov[i].base, (unsigned int)iov[i].len);
    if (n > 0)
        uv_try_write(&c->h.stream, bufs, (unsigned int)n);
}

void conn_close(struct client *c)
{
    if (c->flags & CLIENT_CLOSING)
        return;
    /* A busy script's caller is still inside its EVAL: it closes once its
     * replies are out, after the script (script.h). */
    if (c->flags & CLIENT_PROTECTED) {
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        return;
    }
    if (c->tls)
        send_close_notify(c);
    c->flags |= CLIENT_CLOSING;
    track_memory(c);
    for (int i = 0; i < nclosing; i++)
        closing_fns[i](c);
    uv_close(&c->h.handle, close_cb);
}

struct client *conn_find(uint64_t id)
{
    for (struct client *c = server.clients; c; c = c->next) {
        if (c->id == id && !(c->flags & CLIENT_CLOSING))
            return c;
    }
    return NULL;
}

/* Closes c when its output is over the hard limit, or has been over the soft
 * limit for too long. Returns 1 when it closed it. */
static int check_output_limits(struct client *c, int64_t now_ms)
{
    /* The common case, once per request: no reply list is buffered, so no
     * limit can be reached and a soft limit's clock stops (as below). */
    if (resp_out_list_memory(&c->out) == 0 && !c->out.over_limit) {
        c->soft_limit_since_ms = 0;
        return 0;
    }
    /* Redis's classes: a replica that falls this far behind is cut off and
     * comes back by a new sync; a subscriber that cannot keep up is dropped. */
    const struct output_limit *lim = (c->flags & CLIENT_REPLICA) ? &server.cfg.replica_output_limit
                                     : c->pubsub && subscriber && subscriber(c)
                                         ? &server.cfg.pubsub_output_limit
                                                                   : &server.cfg.client_output_limit;
    if (c->flags & CLIENT_MASTER)
        return 0;
    /* What Redis counts: the reply list's memory, not its inline buffer. */
    size_t used = resp_out_list_memory(&c->out);
    /* over_limit: a reply stopped growing at the hard limit (resp_writer.h). */
    int over_hard = (lim->hard_bytes && used >= lim->hard_bytes) || c->out.over_limit;
    int over_soft = lim->soft_bytes && used >= lim->soft_bytes;

    if (over_soft && !c->soft_limit_since_ms)
        c->soft_limit_since_ms = now_ms;
    else if (!over_soft)
        c->soft_limit_since_ms = 0;
    /* As Redis: the soft limit closes once it lasted longer than its seconds. */
    if (over_hard || (over_soft && now_ms - c->soft_limit_since_ms > lim->soft_seconds * 1000)) {
        char info[1024];
        describe_client(c, info, sizeof(info));
        log_warning("Client %s scheduled to be closed ASAP for overcoming of output buffer "
                    "limits.",
                    info);
        server.stats.output_limit_disconnects++;
        resp_out_reset(&c->out);
        conn_close(c);
        return 1;
    }
    return 0;
}

int conn_check_output_limits(struct client *c)
{
    return check_output_limits(c, (int64_t)uv_now(server.loop));
}

static void pause_reading(struct client *c)
{
    if (!(c->flags & CLIENT_READ_PAUSED)) {
        c->flags |= CLIENT_READ_PAUSED;
        uv_read_stop(&c->h.stream);
    }
}

/* A TLS client's reads go to the TLS layer's buffer, as ciphertext. */
static void tls_read_buf(struct client *c, uv_buf_t *buf)
{
    char *p;
    size_t cap;
    tls_read_space(c->tls, &p, &cap);
    *buf = uv_buf_init(p, (unsigned int)cap);
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct client *c = h->data;
    char *p;
    size_t cap;
    (void)suggested;
    if (c->tls) {
        tls_read_buf(c, buf);
        return;
    }
    if (resp_parser_reserve(&c->parser, READ_SUGGESTED, &p, &cap) < 0) {
        *buf = uv_buf_init(NULL, 0); /* read_cb gets UV_ENOBUFS and closes */
        return;
    }
    *buf = uv_buf_init(p, (unsigned int)(cap > UINT32_MAX ? UINT32_MAX : cap));
}

/* c's parser as tls_read_all's room; stops when the parser can take no
 * more (out of its memory). */
static int parser_room(void *ctx, size_t n, char **p, size_t *cap)
{
    struct client *c = ctx;
    resp_parser_commit(&c->parser, n);
    return resp_parser_reserve(&c->parser, READ_SUGGESTED, p, cap) < 0;
}

/* Decrypts the ciphertext just read into c's parser. Returns 0, or -1 when
 * c must close (a TLS failure is logged). */
static int tls_take(struct client *c, size_t nread)
{
    int rc = tls_read_all(c->tls, nread, parser_room, c);
    if (rc < 0) {
        if (!tls_handshake_done(c->tls))
            log_warning("Error accepting a client connection: %s (addr=%s laddr=%s)",
                        tls_error(c->tls), c->addr, c->laddr);
        else
            log_verbose("Client id=%llu addr=%s TLS error: %s", (unsigned long long)c->id,
                        c->addr, tls_error(c->tls));
    }
    return rc ? -1 : 0;
}

/* Fairness between clients, as Redis reads a client once per event: libuv
 * would read a stream up to 32 times in a row while each read fills its
 * buffer, so one client pipelining (a flood of wrong AUTHs, say) could hold
 * the loop for 32 buffers' worth of commands while a PING elsewhere waits.
 * A client whose read filled its buffer stops reading for the rest of the
 * loop turn and starts again in the check phase, after every other ready
 * client had its turn. */
static uv_check_t yield_check;
static int yield_handle; /* yield_check is initialized (conn_listen) */

/* The clients with CLIENT_READ_YIELDED, so that the check phase touches only
 * them and not every client; linked by yield_prev/yield_next, left by a
 * client when the check phase restarts it or when it is freed. */
static struct client *yielded;

static void yield_unlink(struct client *c)
{
    if (c->yield_prev)
        c->yield_prev->yield_next = c->yield_next;
    else
        yielded = c->yield_next;
    if (c->yield_next)
        c->yield_next->yield_prev = c->yield_prev;
    c->yield_prev = c->yield_next = NULL;
    c->flags &= ~CLIENT_READ_YIELDED;
}

static void yield_check_cb(uv_check_t *h)
{
    (void)h;
    uv_check_stop(&yield_check);
    while (yielded) {
        struct client *c = yielded;
        yield_unlink(c);
        /* Stopped meanwhile for a reason of its own: that reason restarts it. */
        if (!(c->flags & (CLIENT_CLOSING | CLIENT_READ_PAUSED | CLIENT_PROTECTED)))
            conn_start_reading(c);
    }
}

static void yield_reading(struct client *c)
{
    if (c->flags & (CLIENT_CLOSING | CLIENT_READ_PAUSED | CLIENT_PROTECTED | CLIENT_MASTER |
                    CLIENT_REPLICA))
        return;
    uv_read_stop(&c->h.stream);
    if (c->flags & CLIENT_READ_YIELDED) /* restarted before the check phase: listed already */
        return;
    c->flags |= CLIENT_READ_YIELDED;
    c->yield_prev = NULL;
    c->yield_next = yielded;
    if (yielded)
        yielded->yield_prev = c;
    yielded = c;
    uv_check_start(&yield_check, yield_check_cb);
}

static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    struct client *c = s->data;
    if (nread < 0) {
        if (nread != UV_EOF)
            log_verbose("Client id=%llu addr=%s read error: %s", (unsigned long long)c->id,
                        c->addr, uv_strerror((int)nread));
        conn_close(c);
        return;
    }
    if (nread == 0)
        return;
    if (!c->tls) {
        resp_parser_commit(&c->parser, (size_t)nread);
    } else if (tls_take(c, (size_t)nread) < 0) {
        conn_close(c);
        return;
    }
    server.stats.net_input_bytes += (unsigned long long)nread;
    server.stats.total_reads++;
    c->last_interaction_ms = uv_now(server.loop);
    /* A request still arriving holds memory too (Redis's beforeSleep). */
    track_memory(c);
    evict_clients();
    if (c->flags & CLIENT_CLOSING)
        return;
    conn_process_input(c);
    run_woken();
    if ((size_t)nread == buf->len)
        yield_reading(c);
}

/* ---- bytes read by their owner (conn_read_raw) ---- */

/* One read's plaintext: a read takes at most TLS's read room of ciphertext,
 * and with what a partial record held back, its plaintext fits. */
#define RAW_CHUNK (64 * 1024)
static char raw_chunk[RAW_CHUNK];

static void raw_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct client *c = h->data;
    (void)suggested;
    if (c->tls)
        tls_read_buf(c, buf);
    else
        *buf = uv_buf_init(raw_chunk, sizeof(raw_chunk));
}

static void raw_read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    struct client *c = s->data;
    if (nread == 0)
        return;
    if (nread < 0 || !c->tls) {
        c->raw_read(c, buf->base, nread);
        return;
    }
    /* All of it decrypted before the owner sees any, so the owner's "the
     * rest" when it hands over to conn.c's own reads (a replica's link
     * going up) is the whole rest. */
    struct tls_fixed_room r = {.buf = raw_chunk, .cap = sizeof(raw_chunk)};
    int rc = tls_read_all(c->tls, (size_t)nread, tls_fixed_room, &r);
    if (r.len)
        c->raw_read(c, raw_chunk, (ssize_t)r.len);
    if (c->flags & CLIENT_CLOSING)
        return;
    if (rc < 0) {
        log_warning("TLS error on the link to %s: %s", c->addr, tls_error(c->tls));
        c->raw_read(c, NULL, UV_EPROTO);
        return;
    }
    conn_send(c); /* the handshake's next message, and what waited for its end */
}

int conn_read_raw(struct client *c, conn_bytes_fn *on_bytes)
{
    c->raw_read = on_bytes;
    return uv_read_start(&c->h.stream, raw_alloc_cb, raw_read_cb);
}

void conn_start_reading(struct client *c)
{
    c->flags &= ~CLIENT_READ_PAUSED;
    int rc = uv_read_start(&c->h.stream, alloc_cb, read_cb);
    if (rc < 0 && rc != UV_EALREADY)
        conn_close(c);
}

/* Redis's resetClient for CLIENT REPLY SKIP: the skip lasts one request,
 * and a blocked one's served reply is still part of it, so the mode moves
 * on when the next request starts. */
static void reply_mode_next(struct client *c)
{
    c->flags &= ~CLIENT_REPLY_SKIP;
    if (c->flags & CLIENT_REPLY_SKIP_NEXT)
        c->flags = (c->flags & ~CLIENT_REPLY_SKIP_NEXT) | CLIENT_REPLY_SKIP;
    c->out.muted = (c->flags & (CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP)) != 0;
}

/* Runs complete requests in order until the buffer has no whole one left,
 * the client must close or has blocked (the rest waits for its wake-up:
 * block_run_unblocked), CLIENT PAUSE holds its request (the rest waits for
 * the pause's end: pause.c), a reply streams (the rest waits for its end),
 * or its unsent output calls for a pause. */
static void run_requests(struct client *c)
{
    while (!(c->flags & (CLIENT_CLOSING | CLIENT_CLOSE_AFTER_REPLY | CLIENT_POSTPONED)) &&
           !c->blocked && !c->stream) {
        /* With a hard limit configured, the limit bounds the output as in
         * Redis (over it, the client is closed); without one we bound it
         * ourselves by reading no more requests until replies drain. */
        if (!server.cfg.client_output_limit.hard_bytes &&
            !(c->flags & (CLIENT_REPLICA | CLIENT_MASTER)) &&
            resp_out_pending(&c->out) > CLIENT_PAUSE_OUTPUT) {
            pause_reading(c);
            return;
        }
        /* As Redis's processCommand: clients over maxmemory-clients go
         * before a command, this one too. */
        evict_clients();
        if (c->flags & CLIENT_CLOSING)
            return;
        struct resp_request req;
        int r = resp_parser_next(&c->parser, &req);
        if (r == RESP_AGAIN)
            return;
        if (r == RESP_ERR) {
            const char *msg = resp_parser_error(&c->parser);
            log_verbose("Client id=%llu addr=%s protocol error: %s", (unsigned long long)c->id,
                        c->addr, msg);
            resp_add_errorf(&c->out, "ERR %s", msg);
            c->flags |= CLIENT_CLOSE_AFTER_REPLY;
            return;
        }
        c->argc = req.argc;
        c->argv = req.argv;
        reply_mode_next(c);
        /* The writer stops a reply at the hard limit while it is being built,
         * so one command over a million keys cannot buffer more than that
         * (Redis checks after every addReply). Refreshed here for CONFIG SET. */
        c->out.limit = server.cfg.client_output_limit.hard_bytes;
        dispatch(c);
        if (c->after_command)
            c->after_command(c);
        c->argc = 0;
        c->argv = NULL;
        track_memory(c);
        if (check_output_limits(c, (int64_t)uv_now(server.loop)))
            return;
        if (c->out.failed) {
            log_warning("Client id=%llu addr=%s: out of memory for its replies; closing it",
                        (unsigned long long)c->id, c->addr);
            conn_close(c);
            return;
        }
    }
}

/* The append-only log's group commit (struct conn_log): a client whose batch
 * wrote to the log under appendfsync always keeps its replies
 * (CLIENT_AWAIT_SYNC) until the log's sync at the end of the loop turn. When
 * the sync failed, acknowledging their writes would be a lie, so those
 * clients are closed with their replies unsent. resume: go on with their
 * requests. */
static void release_held(int failed, int resume)
{
    struct client *next;
    for (struct client *c = server.clients; c; c = next) {
        next = c->next; /* a closed client stays listed until its close callback */
        if (!(c->flags & CLIENT_AWAIT_SYNC))
            continue;
        c->flags &= ~CLIENT_AWAIT_SYNC;
        if (c->flags & CLIENT_CLOSING)
            continue;
        if (failed) {
            resp_out_reset(&c->out);
            conn_close(c);
        } else if (resume) {
            conn_process_input(c);
        }
    }
}

void conn_release_held(int failed)
{
    release_held(failed, 1);
}

/* After c's batch, which began at the log's mark: its replies wait for the
 * turn's sync, or its commands could not be written and c closes
 * unanswered. Returns 1 when c's replies may not go now. */
static int log_must_wait(struct client *c, unsigned long long mark)
{
    int rc = log_hooks->after(mark);
    if (rc > 0)
        c->flags |= CLIENT_AWAIT_SYNC;
    if (rc < 0) {
        resp_out_reset(&c->out);
        conn_close(c);
    }
    return rc != 0;
}

/* Runs what the client sent and sends the replies. When a pause's replies all
 * went out synchronously there will be no write callback to resume it, so
 * the loop resumes here instead. */
void conn_process_input(struct client *c)
{
    for (;;) {
        unsigned long long mark = log_hooks ? log_hooks->mark() : 0;
        run_requests(c);
        if (c->flags & CLIENT_CLOSING)
            return;
        if (resp_parser_buffered(&c->parser) > server.cfg.client_query_buffer_limit) {
            log_warning("Client id=%llu addr=%s closed for overcoming of input buffer limits.",
                        (unsigned long long)c->id, c->addr);
            conn_close(c);
            return;
        }
        if (log_hooks && log_must_wait(c, mark))
            return;
        conn_send(c);
        if (c->flags & (CLIENT_CLOSING | CLIENT_WRITING))
            return;
        if (c->flags & CLIENT_STREAM_ENDED) {
            c->flags &= ~CLIENT_STREAM_ENDED;
            continue; /* the requests pipelined behind the streamed reply */
        }
        if (!(c->flags & CLIENT_READ_PAUSED))
            return;
        conn_start_reading(c);
    }
}

/* What goes on the wire: the replies themselves, or their ciphertext. */
static struct resp_out *wire(struct client *c)
{
    return c->tls ? tls_wire(c->tls) : &c->out;
}

/* Bytes owed to c that the socket has not taken: replies not yet encrypted
 * included. */
static size_t unsent(struct client *c)
{
    return resp_out_pending(&c->out) + (c->tls ? resp_out_pending(tls_wire(c->tls)) : 0);
}

/* Views of the next bytes to write; returns how many (0: nothing can go
 * yet, as replies before the TLS handshake's end), or -1 when encrypting
 * failed. */
static int fill_bufs(struct client *c, uv_buf_t *bufs, size_t *total)
{
    struct resp_iov iov[WRITE_IOVS];
    *total = 0;
    if (c->tls && tls_encrypt(c->tls, &c->out) < 0) {
        log_verbose("Client id=%llu addr=%s TLS error: %s", (unsigned long long)c->id, c->addr,
                    tls_error(c->tls));
        return -1;
    }
    int n = resp_out_peek(wire(c), iov, WRITE_IOVS);
    for (int i = 0; i < n; i++) {
        bufs[i] = uv_buf_init((char *)iov[i].base, (unsigned int)iov[i].len);
        *total += iov[i].len;
    }
    return n;
}

static void written(struct client *c, size_t n)
{
    resp_out_consume(wire(c), n);
    server.stats.net_output_bytes += n;
    server.stats.total_writes++;
    track_memory(c);
}

static void write_cb(uv_write_t *req, int status)
{
    struct client *c = req->data;
    c->flags &= ~CLIENT_WRITING;
    if (status < 0) {
        conn_close(c);
        return;
    }
    written(c, c->write_len);
    c->write_len = 0;
    /* A busy script's caller runs nothing more until its EVAL returns. */
    if (c->flags & (CLIENT_CLOSING | CLIENT_PROTECTED))
        return;
    /* The socket drained part of a streamed reply: the next chunk, and once
     * the stream has ended, the requests that waited behind it. */
    if (c->stream || (c->flags & CLIENT_STREAM_ENDED)) {
        c->flags &= ~CLIENT_STREAM_ENDED;
        conn_process_input(c);
        run_woken();
        return;
    }
    if (!(c->flags & CLIENT_READ_PAUSED) || resp_out_pending(&c->out) > CLIENT_PAUSE_OUTPUT / 2) {
        conn_send(c);
        /* Paused, and the kernel took all the rest at once: there will be
         * no write callback to resume reading, so resume now. */
        if ((c->flags & (CLIENT_CLOSING | CLIENT_WRITING | CLIENT_READ_PAUSED)) != CLIENT_READ_PAUSED)
            return;
    }
    conn_start_reading(c);
    conn_process_input(c); /* requests that arrived before the pause */
    run_woken();
}

void conn_send(struct client *c)
{
    uv_buf_t bufs[WRITE_IOVS];
    size_t total;
    int n;

    if (c->flags & CLIENT_CLOSING)
        return;
    track_memory(c); /* replies added outside its requests: messages, a stream */
    if (c->flags & CLIENT_WRITING)
        return;
    for (;;) {
        if (c->stream)
            top_up(c);
        if ((c->flags & CLIENT_CLOSING) || unsent(c) == 0)
            break;
        n = fill_bufs(c, bufs, &total);
        if (n < 0) {
            conn_close(c);
            return;
        }
        if (n == 0)
            break;
        int w = uv_try_write(&c->h.stream, bufs, (unsigned int)n);
        if (w == UV_EAGAIN || w == UV_ENOSYS)
            break;
        if (w < 0) {
            conn_close(c);
            return;
        }
        written(c, (size_t)w);
        if ((size_t)w < total)
            break; /* the kernel's buffer is full: queue the rest */
    }
    if (c->flags & CLIENT_CLOSING)
        return;
    if (unsent(c) == 0) {
        if (c->flags & CLIENT_CLOSE_AFTER_REPLY)
            conn_close(c);
        return;
    }
    n = fill_bufs(c, bufs, &total);
    if (n < 0) {
        conn_close(c);
        return;
    }
    if (n == 0)
        return; /* replies wait for the TLS handshake's end */
    c->write_len = total;
    c->write_req.data = c;
    c->flags |= CLIENT_WRITING;
    if (uv_write(&c->write_req, &c->h.stream, bufs, (unsigned int)n, write_cb) < 0) {
        c->flags &= ~CLIENT_WRITING;
        conn_close(c);
    }
}

static void name_of(const struct sockaddr_storage *ss, char *out, size_t len)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        uv_ip4_name(a, ip, sizeof(ip));
        port = ntohs(a->sin_port);
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        uv_ip6_name(a, ip, sizeof(ip));
        port = ntohs(a->sin6_port);
    }
    snprintf(out, len, "%s:%d", ip, port);
}

/* The parser's limits from the settings; before AUTH (when a password is
 * set) Redis's much smaller caps, so an unauthenticated client cannot make
 * the server allocate large buffers. */
static void limits_for(const struct client *c, struct resp_limits *lim)
{
    int unauth = !(c->flags & CLIENT_AUTHENTICATED) && auth && auth->requires_auth();
    lim->max_bulk_len = server.cfg.proto_max_bulk_len;
    /* Redis 7 caps a request's element count only at INT_MAX (argv grows as
     * elements arrive, and the query buffer limit bounds the bytes). */
    lim->max_multibulk_len = INT_MAX;
    lim->max_inline_len = RESP_DEFAULT_MAX_INLINE_LEN;
    lim->unauth_max_bulk_len = unauth ? RESP_UNAUTH_MAX_BULK_LEN : 0;
    lim->unauth_max_multibulk_len = unauth ? RESP_UNAUTH_MAX_MULTIBULK_LEN : 0;
}

void conn_update_limits(struct client *c)
{
    struct resp_limits lim;
    limits_for(c, &lim);
    resp_parser_set_limits(&c->parser, &lim);
}

static struct client *client_new(void)
{
    struct client *c = xcalloc(1, sizeof(*c));
    struct resp_limits lim;
    limits_for(c, &lim);
    if (resp_parser_init(&c->parser, &lim) < 0) {
        xfree(c);
        return NULL;
    }
    resp_out_init(&c->out);
    errorstats_watch(c, 0);
    c->out.proto = 2;
    c->out.limit = server.cfg.client_output_limit.hard_bytes;
    c->id = ++server.next_client_id;
    c->db = &server.ks->dbs[0];
    c->ctime_ms = c->last_interaction_ms = uv_now(server.loop);
    c->h.handle.data = c;
    return c;
}

void conn_list_client(struct client *c)
{
    c->prev = clients_tail;
    c->next = NULL;
    if (clients_tail)
        clients_tail->next = c;
    else
        server.clients = c;
    clients_tail = c;
    server.client_count++;
}

struct client *conn_new_outgoing(int tls)
{
    struct client *c = client_new();
    if (!c)
        return NULL;
    if (tls && !(c->tls = tls_conn_new(0))) {
        resp_parser_destroy(&c->parser);
        resp_out_destroy(&c->out);
        xfree(c);
        return NULL;
    }
    uv_tcp_init(server.loop, &c->h.tcp);
    c->h.handle.data = c;
    conn_list_client(c);
    return c;
}

void conn_name_peers(struct client *c)
{
    struct sockaddr_storage ss;
    int len = sizeof(ss);
    if (uv_tcp_getpeername(&c->h.tcp, (struct sockaddr *)&ss, &len) == 0)
        name_of(&ss, c->addr, sizeof(c->addr));
    len = sizeof(ss);
    if (uv_tcp_getsockname(&c->h.tcp, (struct sockaddr *)&ss, &len) == 0)
        name_of(&ss, c->laddr, sizeof(c->laddr));
}

/* ---- protected mode (Redis's): without a password, only local clients ---- */

/* Redis 7's text with our name, sent as a reply before closing: clients show
 * it to the user, who needs the ways out it lists. */
#define ERR_DENIED                                                                                \
    "DENIED rbkv is running in protected mode because protected mode is enabled and no "         \
    "password is set for the default user. In this mode connections are only accepted from "     \
    "the loopback interface. If you want to connect from external computers to rbkv you may "    \
    "adopt one of the following solutions: 1) Just disable protected mode sending the command "  \
    "'CONFIG SET protected-mode no' from the loopback interface by connecting to rbkv from the "  \
    "same host the server is running, however MAKE SURE rbkv is not publicly accessible from "    \
    "internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively "  \
    "you can just disable the protected mode by editing the rbkv configuration file, and "        \
    "setting the protected mode option to 'no', and then restarting the server. 3) If you "      \
    "started the server manually just for testing, restart it with the '--protected-mode no' "    \
    "option. 4) Set up an authentication password for the default user (requirepass). NOTE: "   \
    "You only need to do one of the above things in order for the server to start accepting "    \
    "connections from the outside."

/* Redis's test: the default user takes any password (its nopass flag). */
static int no_password(void)
{
    return auth && auth->no_password();
}

/* Whether the IP ip[0..len) is on the loopback interface: 127.0.0.0/8 (as
 * Redis 7.2), ::1, and IPv4 loopback mapped into IPv6, which is how a
 * dual-stack listener sees 127.0.0.1. */
static int is_loopback(const char *ip, size_t len)
{
    return (len > 4 && !strncmp(ip, "127.", 4)) || (len > 11 && !strncmp(ip, "::ffff:127.", 11)) ||
           (len == 3 && !strncmp(ip, "::1", 3));
}

int conn_is_local(const struct client *c)
{
    const char *port = strrchr(c->addr, ':');
    return (c->flags & CLIENT_UNIX) || (port && is_loopback(c->addr, (size_t)(port - c->addr)));
}

/* As Redis 7: the bind addresses play no part, only the peer's. A peer whose
 * address is unknown (c->addr "") counts as remote, as in Redis. */
static int protected_mode_refuses(const struct client *c)
{
    return server.cfg.protected_mode && no_password() && !conn_is_local(c);
}

/* At start: a password-less server listening beyond loopback is either
 * refusing the clients it was probably opened for, or open to anyone. */
static void warn_if_exposed(void)
{
    char exposed[256] = "";
    size_t used = 0;

    if (!no_password() || !server.cfg.port)
        return;
    for (int i = 0; i < server.cfg.bind_count && used < sizeof(exposed); i++) {
        const char *a = server.cfg.bind[i] + (server.cfg.bind[i][0] == '-');
        if (!is_loopback(a, strlen(a))) {
            int n = snprintf(exposed + used, sizeof(exposed) - used, "%s%s", used ? " " : "", a);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    if (!exposed[0])
        return;
    if (server.cfg.protected_mode)
        log_warning("WARNING: listening on %s with no requirepass. Protected mode is on, so "
                    "only loopback and unix socket clients are served; others are refused with "
                    "a DENIED error. Set requirepass to serve them.",
                    exposed);
    else
        log_warning("WARNING: listening on %s with no requirepass and protected-mode no: this "
                    "server is exposed. Anyone who can reach port %d can read or delete every "
                    "key (FLUSHALL) and reconfigure the server (CONFIG SET). Set requirepass, or "
                    "bind 127.0.0.1 only.",
                    exposed, server.cfg.port);
}

/* A refused client gets its error and is closed after it; over TLS the
 * error can only go after the handshake, which needs its reads. */
static void refuse(struct client *c, const char *err)
{
    server.stats.rejected_connections++;
    resp_add_error(&c->out, err);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    if (c->tls)
        conn_start_reading(c);
    conn_send(c);
}

static void accept_client(uv_stream_t *listener, int is_unix, int is_tls)
{
    struct client *c = client_new();
    if (!c)
        return;
    c->user = auth ? auth->default_user() : NULL;
    /* As Redis's clientSetDefaultAuth: a connection made while the default
     * user needs no password is authenticated, and stays so when one is set
     * later (CONFIG SET requirepass, ACL SETUSER default). */
    if (auth && !auth->requires_auth())
        c->flags |= CLIENT_AUTHENTICATED;
    int rc = is_unix ? uv_pipe_init(server.loop, &c->h.pipe, 0)
                     : uv_tcp_init(server.loop, &c->h.tcp);
    if (rc < 0) {
        resp_parser_destroy(&c->parser);
        resp_out_destroy(&c->out);
        xfree(c);
        return;
    }
    c->h.handle.data = c;
    conn_list_client(c);
    if (uv_accept(listener, &c->h.stream) < 0) {
        conn_close(c);
        return;
    }
    if (is_unix) {
        c->flags |= CLIENT_UNIX;
        snprintf(c->addr, sizeof(c->addr), "%s:0", server.cfg.unixsocket);
        snprintf(c->laddr, sizeof(c->laddr), "%s:0", server.cfg.unixsocket);
    } else {
        conn_name_peers(c);
        uv_tcp_nodelay(&c->h.tcp, 1);
        if (server.cfg.tcp_keepalive > 0)
            uv_tcp_keepalive(&c->h.tcp, 1, (unsigned int)server.cfg.tcp_keepalive);
    }
    if (is_tls && !(c->tls = tls_conn_new(1))) {
        log_warning("Error accepting a client connection: out of memory for TLS (addr=%s)",
                    c->addr);
        conn_close(c);
        return;
    }
    server.stats.total_connections++;
    /* The new client is already counted, hence ">". */
    if (server.client_count > (unsigned long long)server.cfg.maxclients) {
        refuse(c, "ERR max number of clients reached");
        return;
    }
    if (protected_mode_refuses(c)) {
        refuse(c, ERR_DENIED);
        return;
    }
    conn_start_reading(c);
}

static void on_tcp_connection(uv_stream_t *listener, int status)
{
    if (status < 0) {
        log_warning("Accepting a client connection failed: %s", uv_strerror(status));
        return;
    }
    accept_client(listener, 0, 0);
}

static void on_tls_connection(uv_stream_t *listener, int status)
{
    if (status < 0) {
        log_warning("Accepting a TLS client connection failed: %s", uv_strerror(status));
        return;
    }
    accept_client(listener, 0, 1);
}

static void on_unix_connection(uv_stream_t *listener, int status)
{
    if (status < 0) {
        log_warning("Accepting a unix socket connection failed: %s", uv_strerror(status));
        return;
    }
    accept_client(listener, 1, 0);
}

/* One port's listening sockets, one per bind address. On the heap, so that a
 * CONFIG SET of the port can open the new set while the old one still
 * serves; freed once released and its last handle's close_cb has run. */
struct listener_set {
    uv_tcp_t tcp[CONFIG_MAX_BIND];
    int count;         /* listening handles in tcp[] */
    int open_handles;  /* handles initialised whose close_cb has not run */
    int released;
};

static void listener_close_cb(uv_handle_t *h)
{
    struct listener_set *set = h->data;
    if (--set->open_handles == 0 && set->released)
        xfree(set);
}

/* Stops listening on set's sockets (connections accepted from them stay);
 * the set frees itself once they are closed. Takes NULL. */
static void listeners_release(struct listener_set *set)
{
    if (!set)
        return;
    for (int i = 0; i < set->count; i++)
        uv_close((uv_handle_t *)&set->tcp[i], listener_close_cb);
    set->count = 0;
    set->released = 1;
    if (set->open_handles == 0)
        xfree(set);
}

/* Adds to set a socket listening on bind_addr at port: the plaintext port,
 * or tls-port (is_tls). */
static int listen_tcp(struct listener_set *set, const char *bind_addr, int port, int is_tls)
{
    struct sockaddr_storage ss;
    const char *addr = bind_addr;
    int optional = 0;
    int rc;

    /* Redis's syntax: a leading '-' means "skip if unavailable"; '*' any IPv4. */
    if (addr[0] == '-') {
        optional = 1;
        addr++;
    }
    if (strcmp(addr, "*") == 0)
        addr = "0.0.0.0";
    else if (strcmp(addr, "::*") == 0)
        addr = "::";
    if (strchr(addr, ':'))
        rc = uv_ip6_addr(addr, port, (struct sockaddr_in6 *)&ss);
    else
        rc = uv_ip4_addr(addr, port, (struct sockaddr_in *)&ss);
    if (rc < 0) {
        log_warning("Invalid bind address '%s'", bind_addr);
        return -1;
    }
    uv_tcp_t *t = &set->tcp[set->count];
    uv_tcp_init(server.loop, t);
    t->data = set;
    set->open_handles++;
    rc = uv_tcp_bind(t, (const struct sockaddr *)&ss, strchr(addr, ':') ? UV_TCP_IPV6ONLY : 0);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)t, (int)server.cfg.tcp_backlog,
                       is_tls ? on_tls_connection : on_tcp_connection);
    if (rc < 0) {
        uv_close((uv_handle_t *)t, listener_close_cb);
        if (optional) {
            log_notice("Skipping optional bind address %s:%d: %s", addr, port,
                       uv_strerror(rc));
            return 0;
        }
        log_warning("Could not create server %s listening socket %s:%d: %s",
                    is_tls ? "TLS" : "TCP", addr, port, uv_strerror(rc));
        return -1;
    }
    set->count++;
    return 0;
}

static int listen_unix(void)
{
    const char *path = server.cfg.unixsocket;
    unlink(path);
    uv_pipe_init(server.loop, &server.unix_listener, 0);
    int rc = uv_pipe_bind(&server.unix_listener, path);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&server.unix_listener, (int)server.cfg.tcp_backlog,
                       on_unix_connection);
    if (rc < 0) {
        uv_close((uv_handle_t *)&server.unix_listener, NULL);
        log_warning("Opening Unix socket %s: %s", path, uv_strerror(rc));
        return -1;
    }
    if (server.cfg.unixsocketperm)
        chmod(path, (mode_t)server.cfg.unixsocketperm);
    server.unix_listening = 1;
    return 0;
}

/* Listens on port at every bind address: the new set, or NULL when one
 * that is not optional failed or none could be listened on. */
static struct listener_set *listen_port(int port, int is_tls)
{
    struct listener_set *set = xcalloc(1, sizeof(*set));
    for (int i = 0; i < server.cfg.bind_count; i++) {
        if (listen_tcp(set, server.cfg.bind[i], port, is_tls) < 0) {
            listeners_release(set);
            return NULL;
        }
    }
    if (set->count == 0) {
        log_warning("No bind address could be listened on%s", is_tls ? " for TLS" : "");
        listeners_release(set);
        return NULL;
    }
    return set;
}

int conn_listen(void)
{
    server_on_child_close(conn_close_listener_fds);
    uv_check_init(server.loop, &yield_check);
    yield_handle = 1;
    if (server.cfg.port && !(server.listeners = listen_port(server.cfg.port, 0)))
        return -1;
    if (server.cfg.tls_port && !(server.tls_listeners = listen_port(server.cfg.tls_port, 1)))
        return -1;
    if (server.cfg.unixsocket && server.cfg.unixsocket[0] && listen_unix() < 0)
        return -1;
    if (!server.listeners && !server.tls_listeners && !server.unix_listening) {
        log_warning("Configured to not listen anywhere (port 0, tls-port 0 and no unixsocket)");
        return -1;
    }
    warn_if_exposed();
    return 0;
}

int conn_relisten(int is_tls)
{
    struct listener_set **current = is_tls ? &server.tls_listeners : &server.listeners;
    int port = is_tls ? server.cfg.tls_port : server.cfg.port;
    struct listener_set *fresh = NULL;

    if (port && !(fresh = listen_port(port, is_tls)))
        return -1;
    listeners_release(*current);
    *current = fresh;
    if (port)
        log_notice("Ready to accept connections %s on port %d", is_tls ? "tls" : "tcp", port);
    return 0;
}

int conn_rebind(void)
{
    listeners_release(server.listeners);
    listeners_release(server.tls_listeners);
    server.listeners = server.tls_listeners = NULL;
    if (server.cfg.port && !(server.listeners = listen_port(server.cfg.port, 0)))
        return -1;
    if (server.cfg.tls_port && !(server.tls_listeners = listen_port(server.cfg.tls_port, 1)))
        return -1;
    return 0;
}

void conn_close_listeners(void)
{
    if (yield_handle) {
        uv_close((uv_handle_t *)&yield_check, NULL);
        yield_handle = 0;
    }
    listeners_release(server.listeners);
    server.listeners = NULL;
    listeners_release(server.tls_listeners);
    server.tls_listeners = NULL;
    if (server.unix_listening) {
        uv_close((uv_handle_t *)&server.unix_listener, NULL);
        unlink(server.cfg.unixsocket);
        server.unix_listening = 0;
    }
}

static void close_fd_of(uv_handle_t *h)
{
    uv_os_fd_t fd;
    if (uv_fileno(h, &fd) == 0)
        close(fd);
}

void conn_close_listener_fds(void)
{
    struct listener_set *sets[] = {server.listeners, server.tls_listeners};
    for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++)
        for (int i = 0; sets[s] && i < sets[s]->count; i++)
            close_fd_of((uv_handle_t *)&sets[s]->tcp[i]);
    if (server.unix_listening)
        close_fd_of((uv_handle_t *)&server.unix_listener);
}

/* At shutdown: one last non-blocking attempt to send what each client is
 * owed, then close it. */
void conn_close_all(void)
{
    if (log_hooks) /* replies that wait for the log go out only once it is synced */
        release_held(log_hooks->sync() < 0, 0);
    for (struct client *c = server.clients; c; c = c->next) {
        if (c->flags & CLIENT_CLOSING)
            continue;
        if (!(c->flags & CLIENT_WRITING)) {
            uv_buf_t bufs[WRITE_IOVS];
            size_t total;
            int n = fill_bufs(c, bufs, &total);
            if (n > 0) {
                int w = uv_try_write(&c->h.stream, bufs, (unsigned int)n);
                if (w > 0)
                    written(c, (size_t)w);
            }
        }
        conn_close(c);
    }
}

/* INFO's client_recent_max_input_buffer and _output_buffer: the largest
 * query buffer and reply list any client held in each of the last
 * RECENT_SECONDS seconds, one slot a second (Redis's
 * clientsCronTrackExpansiveClients, which samples the same way). */
#define RECENT_SECONDS 8
/* Idle time after which a client's empty query buffer is freed (Redis:
 * more than 2 s by its seconds clock). */
#define QUERY_IDLE_MS 2000
static size_t recent_in[RECENT_SECONDS], recent_out[RECENT_SECONDS];
static int64_t recent_second;

static void track_recent_max(const struct client *c, int64_t now_ms)
{
    int64_t sec = now_ms / 1000;
    /* Slots of the seconds passed since the last sample start empty. */
    for (int64_t s = recent_second + 1; s <= sec && s - recent_second <= RECENT_SECONDS; s++)
        recent_in[s % RECENT_SECONDS] = recent_out[s % RECENT_SECONDS] = 0;
    if (sec > recent_second)
        recent_second = sec;
    size_t slot = (size_t)(sec % RECENT_SECONDS);
    size_t in = resp_parser_memory(&c->parser), out = resp_out_list_memory(&c->out);
    if (in > recent_in[slot])
        recent_in[slot] = in;
    if (out > recent_out[slot])
        recent_out[slot] = out;
}

void conn_recent_max_buffers(size_t *in, size_t *out)
{
    *in = *out = 0;
    for (int i = 0; i < RECENT_SECONDS; i++) {
        if (recent_in[i] > *in)
            *in = recent_in[i];
        if (recent_out[i] > *out)
            *out = recent_out[i];
    }
}

/* Once per cron tick: idle timeouts, the soft output limit's clock and the
 * recent buffer peaks. */
void conn_cron(int64_t now_ms)
{
    struct client *next;
    for (struct client *c = server.clients; c; c = next) {
        next = c->next;
        if (c->flags & CLIENT_CLOSING)
            continue;
        track_recent_max(c, now_ms);
        /* A blocked client is idle by design, as Redis exempts it. */
        if (server.cfg.timeout > 0 &&
            !(c->flags & (CLIENT_WRITING | CLIENT_REPLICA | CLIENT_MASTER | CLIENT_POSTPONED)) &&
            !c->blocked &&
            now_ms - c->last_interaction_ms > server.cfg.timeout * 1000) {
            log_verbose("Closing idle client id=%llu addr=%s", (unsigned long long)c->id,
                        c->addr);
            conn_close(c);
            continue;
        }
        if (resp_out_pending(&c->out) && check_output_limits(c, now_ms))
            continue;
        /* Redis's clientsCronResizeQueryBuffer: an idle client's empty query
         * buffer goes after QUERY_IDLE_MS. */
        if (now_ms - c->last_interaction_ms > QUERY_IDLE_MS)
            resp_parser_shrink(&c->parser);
        track_memory(c);
    }
    evict_clients();
}

size_t conn_client_memory(const struct client *c)
{
    return xsize(c) + resp_parser_memory(&c->parser) + c->out.chunk_bytes + c->multi_mem +
           (c->tls ? tls_conn_memory(c->tls) : 0);
}
