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

#include <stddef.h>
#include <stdarg.h>

#define RESP_OUT_INLINE 16384      /* size of the fixed buffer */
#define RESP_OUT_CHUNK 16384       /* smallest heap chunk; bigger for big bulks */

struct resp_chunk {
    struct resp_chunk *next;
    size_t used, cap;
    char data[];
};

struct resp_out {
    int proto; /* 2 or 3 */
    char inline_buf[RESP_OUT_INLINE];
    size_t inline_start, inline_used; /* unconsumed bytes: [inline_start, inline_used) */
    struct resp_chunk *head, *tail;
    size_t head_start;               /* consumed bytes at the front of head */
    size_t pending;                  /* total unconsumed bytes */
    size_t chunk_bytes;              /* heap bytes held by chunks (for memory accounting) */
    int failed;                      /* set when an allocation failed: the reply stream is broken */
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

void resp_out_init(struct resp_out *o);
/* Frees every chunk. */
void resp_out_destroy(struct resp_out *o);
/* Drops all pending bytes (e.g. on CLIENT KILL). */
void resp_out_reset(struct resp_out *o);

/* Unconsumed bytes. */
static inline size_t resp_out_pending(const struct resp_out *o) { return o->pending; }

/* Fills at most max views of the pending bytes, in order; returns how many. */
int resp_out_peek(const struct resp_out *o, struct resp_iov *iov, int max);
/* Drops the first n pending bytes (n <= pending), freeing emptied chunks. */
void resp_out_consume(struct resp_out *o, size_t n);

/* Raw bytes, e.g. a pre-encoded reply or a command for the append-only log. */
void resp_add_raw(struct resp_out *o, const void *p, size_t len);

/* +s\r\n ; s must not contain CR or LF. */
void resp_add_simple(struct resp_out *o, const char *s);
/* "-<msg>\r\n". msg includes the code, e.g. "ERR syntax error" or "WRONGTYPE ...".
 * CR and LF inside msg are replaced by spaces, as Redis does. */
void resp_add_error(struct resp_out *o, const char *msg);
void resp_add_errorf(struct resp_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* :n\r\n */
void resp_add_int(struct resp_out *o, long long n);
/* $len\r\n...\r\n */
void resp_add_bulk(struct resp_out *o, const void *p, size_t len);
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
/* RESP3 ,<d> ; RESP2 bulk. Shortest text that reads back as the same double;
 * "inf", "-inf", "nan". */
void resp_add_double(struct resp_out *o, double d);
/* RESP3 #t/#f ; RESP2 :1/:0 */
void resp_add_bool(struct resp_out *o, int b);
/* RESP3 (digits ; RESP2 bulk */
void resp_add_bignum(struct resp_out *o, const char *digits, size_t len);
/* RESP3 =len\r\nfmt:text ; RESP2 bulk of text. fmt is 3 chars, e.g. "txt". */
void resp_add_verbatim(struct resp_out *o, const char *fmt, const char *text, size_t len);

/* Formats d as Redis does for replies (shortest round-trip); returns length.
 * buf needs at least RESP_DOUBLE_BUFLEN bytes. */
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
