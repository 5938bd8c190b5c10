/*
 * resp_writer.h - RESP2/RESP3 reply writer over a chunked output buffer.
 *
 * Owns: the output bytes of one connection, in a fixed inline buffer followed
 * by a list of heap chunks. Knows nothing of sockets or libuv: the owner takes
 * iovec-like views (resp_out_peek), writes them however it likes, then drops
 * what was written (resp_out_consume).
 *
 * Invariant that makes asynchronous writes safe: bytes already in the buffer
 * never move and are never changed until they are consumed. Appending only adds
 * bytes after them (in free space of the last chunk or in new chunks), so a view
 * handed to the kernel or to uv_write stays valid until resp_out_consume().
 *
 * Protocol: o->proto is 2 or 3. RESP3-only types fall back as Redis 7 does in
 * RESP2: null -> $-1 (or *-1 for resp_add_null_array), map -> flat array of 2n,
 * set -> array, double -> bulk string, bool -> integer 1/0, big number -> bulk,
 * verbatim -> bulk, push -> array.
 */
#ifndef RBKV_RESP_WRITER_H
#define RBKV_RESP_WRITER_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "resp_num.h"

#define RESP_OUT_INLINE 16384      /* size of the fixed buffer */
#define RESP_OUT_CHUNK 16384       /* smallest heap chunk; bigger for big bulks */

/* Private: a heap chunk. Its bytes are data[start, used). A chunk made by
 * resp_add_deferred() keeps RESP_DEFERRED_ROOM bytes before its first element
 * for the header, and while unfilled is set nothing from it on is visible. */
struct resp_chunk {
    struct resp_chunk *next;
    size_t start, used, cap;
    int unfilled;
    char data[];
};

/* Room kept for a deferred header: '*' + 20 digits + CRLF. */
#define RESP_DEFERRED_ROOM 24

struct resp_out {
    int proto; /* 2 or 3 */
    char inline_buf[RESP_OUT_INLINE];
    size_t inline_start, inline_used; /* unconsumed bytes: [inline_start, inline_used) */
    struct resp_chunk *head, *tail;  /* new bytes go to tail once it exists */
    size_t pending;                  /* total unconsumed bytes, visible or not */
    size_t chunk_bytes;              /* heap bytes held by chunks, spare included (accounting) */
    struct resp_chunk *spare;        /* one emptied small chunk kept for the next reply */
    int failed;                      /* set when an allocation failed: the reply stream is broken */
    /* When set, every resp_add_* writes nothing (Redis's CLIENT REPLY
     * OFF|SKIP): the owner sets and clears it; reset keeps it. */
    int muted;
    /* When nonzero, a new chunk that would take pending past limit is not
     * made: over_limit and failed are set instead, so one huge reply stops
     * growing at the limit (the owner then drops the client). Checked only
     * when a chunk is allocated, so small replies pay nothing for it. */
    size_t limit;
    int over_limit;
    /* When set, called with each error reply's message before it is
     * written (the owner's error statistics); NULL after resp_out_init. */
    void (*on_error)(struct resp_out *o, const char *msg);
};

/* A view of pending bytes; same layout idea as struct iovec. */
struct resp_iov {
    const char *base;
    size_t len;
};

/* A placeholder for an aggregate length not known yet (see resp_add_deferred). */
struct resp_deferred {
    struct resp_chunk *chunk; /* NULL when unused */
};

/* Empty buffer, RESP2. Allocates nothing. */
void resp_out_init(struct resp_out *o);
/* Frees every chunk. */
void resp_out_destroy(struct resp_out *o);
/* Drops all pending bytes (e.g. on CLIENT KILL) and clears failed and
 * over_limit (limit, proto and on_error stay); deferred
 * lengths not set yet are abandoned and must not be set afterwards. */
void resp_out_reset(struct resp_out *o);

/* Heap bytes of the chunks that hold pending replies, the kept spare left
 * out: Redis's reply-list memory (CLIENT LIST omem, the output limits),
 * which the inline buffer is not part of. */
size_t resp_out_list_memory(const struct resp_out *o);

/* Unconsumed bytes. */
static inline size_t resp_out_pending(const struct resp_out *o) { return o->pending; }

/* Fills at most max views of the pending bytes, in order; returns how many.
 * Stops before a deferred length that is not set yet: nothing after it is
 * visible. Views stay valid until those bytes are consumed. */
int resp_out_peek(const struct resp_out *o, struct resp_iov *iov, int max);
/* Drops the first n pending bytes (n <= pending), freeing emptied chunks. */
void resp_out_consume(struct resp_out *o, size_t n);
/* Hands every pending byte, in order, to emit, then drops it (a buffer moved
 * into another sink rather than written to a socket). */
void resp_out_drain(struct resp_out *o, void (*emit)(void *ctx, const char *p, size_t n),
                    void *ctx);

/* Clears muted for a push that reaches even a silenced client (a pub/sub
 * message or subscription reply, as Redis 7.0.15's CLIENT_PUSHING); returns
 * what resp_out_unmute_end sets back. */
static inline int resp_out_unmute_begin(struct resp_out *o)
{
    int was = o->muted;
    o->muted = 0;
    return was;
}
static inline void resp_out_unmute_end(struct resp_out *o, int was) { o->muted = was; }

/* Raw bytes, e.g. a pre-encoded reply or a command for the append-only log. */
void resp_add_raw(struct resp_out *o, const void *p, size_t len);

/* Every resp_add_* function below does nothing once failed or muted is set. */

/* +s\r\n ; s must not contain CR or LF. */
void resp_add_simple(struct resp_out *o, const char *s);
/* "-<msg>\r\n". msg includes the code, e.g. "ERR syntax error" or "WRONGTYPE ...".
 * CR and LF inside msg are replaced by spaces, as Redis does. */
void resp_add_error(struct resp_out *o, const char *msg);
/* As Redis's addReplyErrorFormat(): CR and LF at either end are trimmed first. */
void resp_add_errorf(struct resp_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* :n\r\n */
void resp_add_int(struct resp_out *o, long long n);
/* $len\r\n...\r\n */
void resp_add_bulk(struct resp_out *o, const void *p, size_t len);
/* Copies len bytes that dst has room for, in at most four word moves when
 * len is 8 to 32 (a key or a field, mostly): a call to memcpy for so few
 * bytes cost as much as the rest of writing the bulk. The moves may overlap;
 * dst and p do not. */
static inline void resp_copy_short(char *dst, const char *p, size_t len)
{
    uint64_t a, b, c, d;
    if (len < 8 || len > 32) {
        if (len > 0) /* p may be NULL then */
            memcpy(dst, p, len);
    } else if (len <= 16) {
        memcpy(&a, p, 8);
        memcpy(&b, p + len - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + len - 8, &b, 8);
    } else {
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        memcpy(&c, p + len - 16, 8);
        memcpy(&d, p + len - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + 8, &b, 8);
        memcpy(dst + len - 16, &c, 8);
        memcpy(dst + len - 8, &d, 8);
    }
}

/* A run of short bulks written straight into the room left in the buffer's
 * tail, for a reply that lists many keys (KRANGE ... LIMIT 100: a hundred
 * bulks). resp_add_bulk's fast path costs a call, a look for the tail and
 * an update of three counters per bulk; a run looks once, writes each bulk
 * by an inline resp_bulks_add, and counts them once at resp_bulks_end.
 * While a run is open nothing else may write to its resp_out: the caller
 * ends it first (and may begin another after). */
struct resp_bulks {
    char *start, *at, *end; /* the tail's room: written [start, at), free [at, end) */
};

/* Opens a run at o's tail; an empty one (every add refused) when o is failed
 * or muted, so the caller's resp_add_bulk fallback applies those rules. */
void resp_bulks_begin(struct resp_out *o, struct resp_bulks *b);
/* Closes the run: its bytes join o's pending output. */
void resp_bulks_end(struct resp_out *o, struct resp_bulks *b);
/* o's pending bytes counting the run's (resp_out_pending while it is open). */
static inline size_t resp_bulks_pending(const struct resp_out *o, const struct resp_bulks *b)
{
    return o->pending + (size_t)(b->at - b->start);
}
/* Writes $len\r\n, the bytes, \r\n when len is under 100 and it fits in the
 * run's room; returns 0, or -1 having written nothing (the caller ends the
 * run, writes the bulk with resp_add_bulk, and begins a new one). */
static inline int resp_bulks_add(struct resp_bulks *b, const void *p, size_t len)
{
    /* 5 bytes of header at most, 2 of CRLF. */
    if (len >= 100 || (size_t)(b->end - b->at) < len + 7)
        return -1;
    char *dst = b->at;
    size_t hl = len < 10 ? 4 : 5;
    dst[0] = '$';
    dst[1] = resp_digit_pairs[2 * len + (len < 10)];
    dst[2] = resp_digit_pairs[2 * len + 1];
    dst[hl - 2] = '\r';
    dst[hl - 1] = '\n';
    resp_copy_short(dst + hl, (const char *)p, len);
    dst[hl + len] = '\r';
    dst[hl + len + 1] = '\n';
    b->at = dst + hl + len + 2;
    return 0;
}

/* s NULL writes a null, as Redis's addReplyBulkCString(). */
void resp_add_bulk_cstr(struct resp_out *o, const char *s);
void resp_add_bulk_ll(struct resp_out *o, long long n);
/* RESP3 _ ; RESP2 $-1 */
void resp_add_null(struct resp_out *o);
/* RESP3 _ ; RESP2 *-1 */
void resp_add_null_array(struct resp_out *o);
/* *n ; %n (RESP2: *2n) ; ~n (RESP2: *n) ; >n (RESP2: *n) */
void resp_add_array_len(struct resp_out *o, size_t n);
void resp_add_map_len(struct resp_out *o, size_t n);
void resp_add_set_len(struct resp_out *o, size_t n);
void resp_add_push_len(struct resp_out *o, size_t n);
/* |n: an attribute of n key/value pairs, then the reply it describes.
 * RESP3 only (RESP2 has no such type, and Redis sends nothing of the
 * attribute there): in RESP2 it writes nothing, and the caller skips the
 * attribute's elements too. */
void resp_add_attribute_len(struct resp_out *o, size_t n);
/* RESP3 ,<d> ; RESP2 bulk. Text as resp_format_double(). */
void resp_add_double(struct resp_out *o, double d);
/* RESP3 #t/#f ; RESP2 :1/:0 */
void resp_add_bool(struct resp_out *o, int b);
/* RESP3 (digits ; RESP2 bulk */
void resp_add_bignum(struct resp_out *o, const char *digits, size_t len);
/* RESP3 =len\r\nfmt:text ; RESP2 bulk of text. fmt is 3 chars, e.g. "txt". */
void resp_add_verbatim(struct resp_out *o, const char *fmt, const char *text, size_t len);

/* Formats d as Redis 7.0's addReplyDouble() does: "%.17g" ("0.10000000000000001",
 * "3", "1e+17", "nan", "-0"), infinities as "inf" and "-inf". Returns the length;
 * buf gets a NUL too and needs at least RESP_DOUBLE_BUFLEN bytes. */
#define RESP_DOUBLE_BUFLEN 32
int resp_format_double(char *buf, double d);

/* Aggregates whose length is known only after the elements are written:
 *   struct resp_deferred d; resp_add_deferred(o, &d);
 *   ... add elements ...
 *   resp_set_deferred_array(o, &d, count);
 * The header lands before the elements without moving them. */
void resp_add_deferred(struct resp_out *o, struct resp_deferred *d);
void resp_set_deferred_array(struct resp_out *o, struct resp_deferred *d, size_t n);
void resp_set_deferred_map(struct resp_out *o, struct resp_deferred *d, size_t n);
void resp_set_deferred_set(struct resp_out *o, struct resp_deferred *d, size_t n);

/* A command as a RESP array of bulks (for the append-only log and replication). */
struct resp_slice;
void resp_add_command(struct resp_out *o, int argc, const struct resp_slice *argv);

#endif
