/*
 * repl_stream.c - replication's shared state and the stream (repl_stream.h).
 *
 * Feeding: a write is encoded once into `stream` (feed.h), then its bytes go
 * to the backlog and to every replica: straight into an online replica's
 * output, into `held` for one whose snapshot is on its way. Replies to the
 * replicas are sent once per loop turn, by a check handle, so a pipelined
 * batch of writes costs each replica one write call, not one per command.
 */
#include "repl_stream.h"

#include <stdio.h>
#include <string.h>

#include "backlog.h"
#include "client.h"
#include "clock.h"
#include "conn.h"
#include "feed.h"
#include "log.h"
#include "mem.h"
#include "server.h"

struct repl_state repl;

static struct feed stream;
static uv_check_t flush_check;
static int flush_on;

void repl_random_hex(char *out)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[20];
    FILE *f = fopen("/dev/urandom", "rb");
    size_t got = f ? fread(raw, 1, sizeof(raw), f) : 0;
    if (f)
        fclose(f);
    for (size_t i = got; i < sizeof(raw); i++)
        raw[i] = (unsigned char)((uint64_t)ustime() >> (i % 8 * 8));
    for (size_t i = 0; i < sizeof(raw); i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[40] = '\0';
}

static void flush_cb(uv_check_t *h)
{
    (void)h;
    uv_check_stop(&flush_check);
    flush_on = 0;
    for (struct repl_peer *p = repl.peers; p; p = p->next) {
        if (p->state == PEER_ONLINE && resp_out_pending(&p->c->out))
            conn_send(p->c);
    }
}

void repl_stream_init(void)
{
    repl_change_replid();
    repl.no_peers_since_ms = (int64_t)uv_now(server.loop);
    feed_init(&stream);
    uv_check_init(server.loop, &flush_check);
}

void repl_cleanup(void)
{
    if (flush_check.type == UV_CHECK && !uv_is_closing((uv_handle_t *)&flush_check))
        uv_close((uv_handle_t *)&flush_check, NULL);
    feed_destroy(&stream);
    backlog_free(repl.backlog);
    repl.backlog = NULL;
}

void repl_shift_replid(void)
{
    memcpy(repl.replid2, repl.replid, sizeof(repl.replid2));
    /* The replica's next byte would have been offset + 1: a PSYNC up to
     * there on the old ID can continue here. */
    repl.second_offset = repl.offset + 1;
    repl_random_hex(repl.replid);
}

void repl_change_replid(void)
{
    repl_random_hex(repl.replid);
    memset(repl.replid2, '0', 40);
    repl.second_offset = -1;
}

void repl_adopt(const char *id, long long offset)
{
    memcpy(repl.replid, id, 40);
    repl.replid[40] = '\0';
    memset(repl.replid2, '0', 40);
    repl.second_offset = -1;
    repl.offset = offset;
    /* The backlog's history is another stream's now. */
    backlog_free(repl.backlog);
    repl.backlog = NULL;
}

struct backlog *repl_backlog(void)
{
    if (!repl.backlog)
        repl.backlog = backlog_new(server.cfg.repl_backlog_size, repl.offset);
    return repl.backlog;
}

void repl_free_backlog(void)
{
    repl_change_replid();
    backlog_free(repl.backlog);
    repl.backlog = NULL;
    repl.plain_peers = 0; /* a new history: nobody continues the old one */
}

void repl_backlog_resize(void)
{
    if (repl.backlog && repl.backlog->size != server.cfg.repl_backlog_size)
        backlog_resize(repl.backlog, server.cfg.repl_backlog_size);
}

void repl_feed_raw(const char *p, size_t n)
{
    repl.offset += (long long)n;
    /* Without replicas nor a backlog nobody can ever ask for these bytes. */
    if (!repl.backlog)
        return;
    backlog_append(repl.backlog, p, n);
    for (struct repl_peer *peer = repl.peers; peer; peer = peer->next) {
        if (peer->state == PEER_ONLINE)
            resp_add_raw(&peer->c->out, p, n);
        else if (peer->state == PEER_SNAPSHOT || peer->state == PEER_WAIT_ACK)
            resp_add_raw(&peer->held, p, n);
    }
    if (!flush_on && repl.peers) {
        uv_check_start(&flush_check, flush_cb);
        flush_on = 1;
    }
}

void repl_feed_raw_cb(void *ctx, const char *p, size_t n)
{
    (void)ctx;
    repl_feed_raw(p, n);
}

/* Moves what the encoder made into the stream. */
static void drain(void)
{
    resp_out_drain(&stream.buf, repl_feed_raw_cb, NULL);
}

void repl_feed_command(struct db *db, const struct command *cmd, int argc,
                       const struct resp_slice *argv)
{
    if (!repl.backlog)
        return;
    feed_command(&stream, db, cmd, argc, argv);
    drain();
}

void repl_feed_argv(int db, int argc, const struct resp_slice *argv)
{
    if (!repl.backlog)
        return;
    feed_argv(&stream, db, argc, argv);
    drain();
}

void repl_exec_begin(int db)
{
    if (!repl.backlog)
        return;
    feed_begin_multi(&stream, db);
    drain();
}

void repl_exec_end(void)
{
    feed_end_multi(&stream);
    drain();
}

size_t repl_held_memory(void)
{
    size_t n = 0;
    for (const struct repl_peer *p = repl.peers; p; p = p->next)
        n += p->held.chunk_bytes;
    return n;
}

int repl_stream_kept(void)
{
    return repl.backlog != NULL;
}

int repl_stream_plain(void)
{
    return repl.plain_peers;
}

void repl_stream_rbkv_only(void)
{
    if (repl.backlog)
        repl.rbkv_only_end = repl.offset;
}

void repl_reselect(void)
{
    stream.db = -1;
}

struct repl_peer *repl_peer_of(struct client *c)
{
    if (!c->repl) {
        c->repl = xcalloc(1, sizeof(*c->repl));
        c->repl->c = c;
        resp_out_init(&c->repl->held);
    }
    return c->repl;
}

void repl_peer_attach(struct repl_peer *p, enum peer_state st)
{
    repl_backlog();
    if (!p->capa_rbkv)
        repl.plain_peers = 1;
    p->state = st;
    p->c->flags |= CLIENT_REPLICA;
    p->prev = NULL;
    p->next = repl.peers;
    if (repl.peers)
        repl.peers->prev = p;
    repl.peers = p;
    repl.peer_count++;
}

const char *repl_peer_name(const struct repl_peer *p, char *buf, size_t cap)
{
    /* An IPv6 address is bracketed, as Redis's anetFormatAddr does. */
    int v6 = strchr(p->ip, ':') != NULL;
    if (p->listening_port)
        snprintf(buf, cap, "%s%s%s:%d", v6 ? "[" : "", p->ip, v6 ? "]" : "", p->listening_port);
    else
        snprintf(buf, cap, "%s:<unknown-replica-port>", p->ip);
    return buf;
}

void repl_peer_gone(struct client *c)
{
    struct repl_peer *p = c->repl;
    if (!p)
        return;
    if (p->state != PEER_HANDSHAKE) {
        char name[REPL_PEER_NAME_MAX];
        log_warning("Connection with replica %s lost.", repl_peer_name(p, name, sizeof(name)));
        if (p->prev)
            p->prev->next = p->next;
        else
            repl.peers = p->next;
        if (p->next)
            p->next->prev = p->prev;
        if (--repl.peer_count == 0)
            repl.no_peers_since_ms = (int64_t)uv_now(server.loop);
    }
    resp_out_destroy(&p->held);
    xfree(p);
    c->repl = NULL;
}

const char *repl_peer_state_name(enum peer_state st)
{
    switch (st) {
    case PEER_WAIT_SNAPSHOT:
        return "wait_bgsave";
    case PEER_SNAPSHOT:
    case PEER_WAIT_ACK:
        return "send_bulk";
    case PEER_ONLINE:
        return "online";
    case PEER_HANDSHAKE:
        break;
    }
    return "handshake";
}
