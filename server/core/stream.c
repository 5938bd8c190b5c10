/*
 * stream.c - replies sent in chunks as the socket drains (see stream.h for
 * the rules: atomicity, ownership, which clients stream).
 *
 * Owns: each client's one open stream (c->stream) and the db's count of
 * them (db->streams), which keeps the keyspace's change hook down to one
 * untaken branch while nothing streams. Knows nothing of what a stream
 * lists: the command that started it fills it through s->fill.
 */
#include "stream.h"

#include <stdint.h>

#include "client.h"
#include "conn.h"
#include "keyspace.h"
#include "log.h"
#include "mem.h"
#include "pubsub.h"
#include "server.h"
#include "tracking.h"

static void stream_end(struct client *c)
{
    struct reply_stream *s = c->stream;
    s->db->streams--;
    c->stream = NULL;
    xfree(s);
}

/* After c's stream wrote its last part: the requests behind it may run (the
 * connection sees the flag), and a reply that failed (over the output limit,
 * or out of memory) closes c as an unstreamed one would. */
static void ended(struct client *c)
{
    stream_end(c);
    c->flags |= CLIENT_STREAM_ENDED;
    if (conn_check_output_limits(c) || !c->out.failed)
        return;
    log_warning("Client id=%llu addr=%s: out of memory for its replies; closing it",
                (unsigned long long)c->id, c->addr);
    conn_close(c);
}

/* The keyspace's change hook: db is about to change, so every reply
 * streaming from it is written out whole now, while it still holds what the
 * command saw. Rare (a write while a long reply streams), so a walk of the
 * clients is cheap enough; it stops once db has no stream left. */
static void finish_db(struct db *db)
{
    for (struct client *c = server.clients; c && db->streams; c = c->next) {
        if (c->stream && c->stream->db == db) {
            c->stream->fill(c, c->stream, SIZE_MAX);
            ended(c);
        }
    }
}

void stream_init(void)
{
    ks_on_change(finish_db);
    /* At once when the close starts: its db need no longer finish it
     * before a change. */
    conn_on_closing(stream_drop);
    conn_on_gone(stream_drop);
    conn_on_top_up(stream_top_up);
}

int stream_allowed(const struct client *c)
{
    /* A real connection (the log's replay client has no handle), no
     * replication link, no transaction (inside EXEC c->multi is still set),
     * nothing that may push into the middle of the reply. */
    return (c->h.handle.type == UV_TCP || c->h.handle.type == UV_NAMED_PIPE) &&
           !(c->flags & (CLIENT_MASTER | CLIENT_REPLICA)) && !c->multi &&
           !pubsub_client_subscribed(c) && !tracking_may_push(c);
}

void stream_start(struct client *c, struct reply_stream *s)
{
    c->stream = s;
    s->db->streams++;
}

void stream_top_up(struct client *c)
{
    struct reply_stream *s = c->stream;
    if (s && resp_out_pending(&c->out) < STREAM_LOW_MARK && s->fill(c, s, STREAM_CHUNK))
        ended(c);
}

void stream_drop(struct client *c)
{
    if (c->stream)
        stream_end(c);
}
