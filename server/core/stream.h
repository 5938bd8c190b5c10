/*
 * stream.h - replies sent in chunks as the client's socket drains (stream.c):
 * a command that lists a long range writes its first chunk, hands the rest
 * to a stream, and the connection continues the walk a chunk at a time, so
 * the server holds a few chunks of such a reply, never all of it.
 *
 * Atomicity: a streamed reply is exactly what the command would have
 * replied when it ran. A stream only reads; before anything changes the db
 * it walks, the keyspace's change hook (ks_will_change) finishes every
 * stream over that db at once into its client's output buffer, as an
 * unstreamed reply would have been. So a stream may hold entry pointers
 * between loop turns: an entry moves or goes only through a change, and no
 * change happens while a stream over its db is open.
 *
 * Ownership: a client owns its one stream (c->stream) from stream_start on;
 * it is freed when its walk ends, when the db changes (finished first), or
 * when the client goes. Only one ordinary network client at top level
 * streams (stream_allowed): not inside MULTI/EXEC, not the append-only
 * log's replay client, not a replication link, not a client that can be sent
 * pushes. While its stream is open the client runs no further request; those
 * it pipelined run, in order, once the stream has ended.
 */
#ifndef RBKV_STREAM_H
#define RBKV_STREAM_H

#include <stddef.h>

struct client;
struct db;
struct reply_stream;

/* Appends the next part of the reply to c->out until its pending output
 * reaches until bytes (SIZE_MAX: the whole rest) or the reply is complete.
 * Returns 1 once the reply is complete (or c->out failed), else 0. Never
 * changes the keyspace. */
typedef int stream_fill_fn(struct client *c, struct reply_stream *s, size_t until);

/* The core's part of a stream: the command's state embeds it first and is
 * one allocation (xmalloc), freed with xfree once the stream ends. */
struct reply_stream {
    stream_fill_fn *fill;
    struct db *db; /* what the walk reads: a change to it finishes the stream */
};

/* A reply's first chunk is this much output; the connection then tops the
 * output up to it whenever it falls below STREAM_LOW_MARK. */
#define STREAM_CHUNK (64 * 1024)
#define STREAM_LOW_MARK (STREAM_CHUNK / 2)

/* Registers the keyspace's change hook, and stream_drop on the client-
 * closing and client-gone lists (conn.h), at start. */
void stream_init(void);
/* Whether a reply to c may be streamed (see above). Cheap: flag tests. */
int stream_allowed(const struct client *c);
/* Hands the rest of the reply being built in c->out to s, over s->db; c
 * owns s from here. Only when stream_allowed(c), once per command. */
void stream_start(struct client *c, struct reply_stream *s);
/* For the connection: tops c's output up from its stream while it holds less
 * than STREAM_LOW_MARK bytes; once the reply is complete, frees the stream
 * and sets CLIENT_STREAM_ENDED (the requests behind it may run). Closes c
 * when its output failed. */
void stream_top_up(struct client *c);
/* Frees c's stream, if any, with the rest unsent (c is going). */
void stream_drop(struct client *c);

#endif
