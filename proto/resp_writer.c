/*
 * resp_writer.c - RESP2/RESP3 reply writer (API in resp_writer.h).
 *
 * Owns: one connection's pending output, in the inline buffer and then a list
 * of heap chunks. Knows nothing of sockets or libuv. Redis 7's networking.c is
 * the reference for every byte written.
 *
 * Invariants:
 *  - Output order is: inline_buf[inline_start, inline_used), then each chunk's
 *    data[start, used) from head to tail. Once a chunk exists, new bytes go to
 *    the tail chunk or a new one, never to the inline buffer; the inline buffer
 *    is reused only when every chunk is gone.
 *  - A byte, once written, is neither moved nor changed until consumed: bytes
 *    are only added after it, and a deferred header is written into room that
 *    was kept free before the chunk's first element.
 *  - peek never shows a chunk whose deferred header is unfilled, or anything
 *    after it; consume frees chunks it empties, never an unfilled one.
 *  - No allocation for a reply that fits the free space of the inline buffer or
 *    the tail chunk; a big payload is copied once, into a chunk sized to fit.
 *  - After an allocation failure (failed set) nothing more is written; the
 *    same when a new chunk would pass the owner's limit (over_limit set too),
 *    and while the owner has muted the stream.
 */
#include "resp_writer.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "resp_alloc.h"
#include "resp_num.h"
#include "resp_parser.h" /* struct resp_slice */

/* Longest header: a type byte, "-" and 20 digits, CRLF. */
#define HEADER_MAX 24

/* "<type><n>\r\n" into dst (HEADER_MAX bytes). */
static size_t format_header(char *dst, char type, unsigned long long n)
{
    size_t len = 1 + resp_format_u64(dst + 1, n);
    dst[0] = type;
    dst[len] = '\r';
    dst[len + 1] = '\n';
    return len + 2;
}

/* Free contiguous space where the next byte goes. */
static char *tail_room(struct resp_out *o, size_t *room)
{
    if (o->tail == NULL) {
        *room = RESP_OUT_INLINE - o->inline_used;
        return o->inline_buf + o->inline_used;
    }
    *room = o->tail->cap - o->tail->used;
    return o->tail->data + o->tail->used;
}

static void tail_wrote(struct resp_out *o, size_t n)
{
    if (o->tail == NULL)
        o->inline_used += n;
    else
        o->tail->used += n;
    o->pending += n;
}

/* The largest chunk kept as the spare: the size small replies and deferred
 * aggregates ask for. */
#define SPARE_CAP (RESP_DEFERRED_ROOM + RESP_OUT_CHUNK)

/* A pipelined stream of replies that each need a chunk (every deferred
 * aggregate does) would otherwise pay a malloc and a free per reply. */
static struct resp_chunk *chunk_new(struct resp_out *o, size_t cap, size_t start)
{
    struct resp_chunk *c;

    if (o->limit != 0 && o->pending + cap > o->limit) {
        o->over_limit = 1;
        o->failed = 1;
        return NULL;
    }
    if (o->spare != NULL && cap <= o->spare->cap) {
        c = o->spare;
        o->spare = NULL;
    } else {
        c = RESP_MALLOC(sizeof(*c) + cap);
        if (c == NULL) {
            o->failed = 1;
            return NULL;
        }
        c->cap = cap;
        o->chunk_bytes += cap;
    }
    c->next = NULL;
    c->start = c->used = start;
    c->unfilled = 0;
    if (o->tail != NULL)
        o->tail->next = c;
    else
        o->head = c;
    o->tail = c;
    return c;
}

/* Frees an emptied chunk, or keeps it as the spare. */
static void chunk_release(struct resp_out *o, struct resp_chunk *c)
{
    if (o->spare == NULL && c->cap <= SPARE_CAP) {
        o->spare = c;
        return;
    }
    o->chunk_bytes -= c->cap;
    RESP_FREE(c);
}

/*
 * Appends len bytes: as many as fit in the current free space, the rest in one
 * new chunk of at least RESP_OUT_CHUNK bytes, sized to hold them plus `then`
 * bytes the caller will append next (so a big bulk and its CRLF share a chunk
 * of their own and the payload is copied once).
 */
static void out_append(struct resp_out *o, const void *src, size_t len, size_t then)
{
    const char *s = src;
    size_t room;
    char *dst;

    if (o->failed || o->muted || len == 0)
        return;
    dst = tail_room(o, &room);
    if (room > 0) {
        size_t n = len < room ? len : room;
        memcpy(dst, s, n);
        tail_wrote(o, n);
        s += n;
        len -= n;
        if (len == 0)
            return;
    }
    if (len > SIZE_MAX / 2) {
        o->failed = 1;
        return;
    }
    if (chunk_new(o, len + then > RESP_OUT_CHUNK ? len + then : RESP_OUT_CHUNK, 0) == NULL)
        return;
    memcpy(o->tail->data, s, len);
    tail_wrote(o, len);
}

static void out_header(struct resp_out *o, char type, unsigned long long n)
{
    char buf[HEADER_MAX];
    out_append(o, buf, format_header(buf, type, n), 0);
}

/* head, body, CRLF: the shape of every string reply. Written in one go when
 * it fits where the next byte goes (no allocation, one bounds check). */
static void out_framed(struct resp_out *o, const char *head, size_t hl, const void *body, size_t len)
{
    size_t room;
    char *dst = tail_room(o, &room);

    if (!(o->failed | o->muted) && len < room && hl + 2 <= room - len) {
        memcpy(dst, head, hl);
        if (len > 0) /* body may be NULL then */
            memcpy(dst + hl, body, len);
        dst[hl + len] = '\r';
        dst[hl + len + 1] = '\n';
        tail_wrote(o, hl + len + 2);
        return;
    }
    out_append(o, head, hl, 0);
    out_append(o, body, len, 2);
    out_append(o, "\r\n", 2, 0);
}

void resp_out_init(struct resp_out *o)
{
    o->proto = 2;
    o->inline_start = o->inline_used = 0;
    o->head = o->tail = NULL;
    o->pending = 0;
    o->chunk_bytes = 0;
    o->spare = NULL;
    o->failed = 0;
    o->muted = 0;
    o->limit = 0;
    o->over_limit = 0;
    o->on_error = NULL;
}

size_t resp_out_list_memory(const struct resp_out *o)
{
    return o->chunk_bytes - (o->spare != NULL ? o->spare->cap : 0);
}

void resp_out_destroy(struct resp_out *o)
{
    struct resp_chunk *c = o->head;

    while (c != NULL) {
        struct resp_chunk *next = c->next;
        RESP_FREE(c);
        c = next;
    }
    RESP_FREE(o->spare);
    o->spare = NULL;
    o->head = o->tail = NULL;
    o->chunk_bytes = 0;
}

void resp_out_reset(struct resp_out *o)
{
    int proto = o->proto;
    size_t limit = o->limit;
    int muted = o->muted;
    void (*on_error)(struct resp_out *, const char *) = o->on_error;

    resp_out_destroy(o);
    resp_out_init(o);
    o->proto = proto;
    o->muted = muted;
    o->limit = limit;
    o->on_error = on_error;
}

int resp_out_peek(const struct resp_out *o, struct resp_iov *iov, int max)
{
    int n = 0;

    if (max > 0 && o->inline_used > o->inline_start) {
        iov[n].base = o->inline_buf + o->inline_start;
        iov[n].len = o->inline_used - o->inline_start;
        n++;
    }
    for (const struct resp_chunk *c = o->head; c != NULL && n < max && !c->unfilled; c = c->next) {
        if (c->used > c->start) {
            iov[n].base = c->data + c->start;
            iov[n].len = c->used - c->start;
            n++;
        }
    }
    return n;
}

void resp_out_consume(struct resp_out *o, size_t n)
{
    size_t k = o->inline_used - o->inline_start;

    if (k > n)
        k = n;
    o->inline_start += k;
    o->pending -= k;
    n -= k;
    while (n > 0 && o->head != NULL && !o->head->unfilled) {
        struct resp_chunk *c = o->head;
        size_t avail = c->used - c->start;

        if (n < avail) {
            c->start += n;
            o->pending -= n;
            break;
        }
        n -= avail;
        o->pending -= avail;
        o->head = c->next;
        if (o->head == NULL)
            o->tail = NULL;
        chunk_release(o, c);
    }
    if (o->head == NULL && o->inline_start == o->inline_used)
        o->inline_start = o->inline_used = 0;
}

void resp_add_raw(struct resp_out *o, const void *p, size_t len)
{
    out_append(o, p, len, 0);
}

void resp_add_simple(struct resp_out *o, const char *s)
{
    out_framed(o, "+", 1, s, strlen(s));
}

void resp_add_error(struct resp_out *o, const char *msg)
{
    if (o->on_error)
        o->on_error(o, msg);
    out_append(o, "-", 1, 0);
    /* A CR or LF would end the reply early and desynchronize the client. */
    for (;;) {
        size_t n = strcspn(msg, "\r\n");
        out_append(o, msg, n, 0);
        if (msg[n] == '\0')
            break;
        out_append(o, " ", 1, 0);
        msg += n + 1;
    }
    out_append(o, "\r\n", 2, 0);
}

void resp_add_errorf(struct resp_out *o, const char *fmt, ...)
{
    char small[256];
    char *msg = small;
    size_t len;
    va_list ap;
    int n;

    if (o->failed)
        return;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0) {
        o->failed = 1; /* an encoding error: there is no message to send */
        return;
    }
    if ((size_t)n >= sizeof(small)) {
        msg = RESP_MALLOC((size_t)n + 1);
        if (msg == NULL) {
            o->failed = 1;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(msg, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    /* Redis trims CR and LF from both ends (sdstrim) before mapping the rest. */
    len = (size_t)n;
    while (len > 0 && (msg[len - 1] == '\r' || msg[len - 1] == '\n'))
        msg[--len] = '\0';
    resp_add_error(o, msg + strspn(msg, "\r\n"));
    if (msg != small)
        RESP_FREE(msg);
}

void resp_add_int(struct resp_out *o, long long n)
{
    char buf[HEADER_MAX];
    size_t len = 1 + resp_format_ll(buf + 1, n);

    buf[0] = ':';
    buf[len] = '\r';
    buf[len + 1] = '\n';
    out_append(o, buf, len + 2, 0);
}

void resp_add_bulk(struct resp_out *o, const void *p, size_t len)
{
    size_t room;
    char *dst = tail_room(o, &room);
    char hdr[HEADER_MAX];

    /* The common case, a bulk that fits where the next byte goes: its header
     * is formatted in place (a range reply is mostly small bulks, and the
     * copy through hdr was a tenth of writing one), a two-digit length
     * without the general formatter. */
    if (!(o->failed | o->muted) && len < room && HEADER_MAX + 2 <= room - len) {
        size_t hl;
        if (len < 100) {
            dst[0] = '$';
            dst[1] = resp_digit_pairs[2 * len];
            dst[2] = resp_digit_pairs[2 * len + 1];
            hl = len < 10 ? 4 : 5;
            if (len < 10)
                dst[1] = dst[2];
            dst[hl - 2] = '\r';
            dst[hl - 1] = '\n';
        } else {
            hl = format_header(dst, '$', len);
        }
        resp_copy_short(dst + hl, p, len);
        dst[hl + len] = '\r';
        dst[hl + len + 1] = '\n';
        tail_wrote(o, hl + len + 2);
        return;
    }
    out_framed(o, hdr, format_header(hdr, '$', len), p, len);
}

void resp_bulks_begin(struct resp_out *o, struct resp_bulks *b)
{
    size_t room;
    b->start = b->at = tail_room(o, &room);
    /* No room while failed or muted: every add is refused, and the
     * caller's resp_add_bulk applies those rules. */
    b->end = b->start + (o->failed | o->muted ? 0 : room);
}

void resp_bulks_end(struct resp_out *o, struct resp_bulks *b)
{
    if (b->at != b->start)
        tail_wrote(o, (size_t)(b->at - b->start));
    b->start = b->end = b->at; /* closed: no room, nothing to count again */
}

void resp_add_bulk_cstr(struct resp_out *o, const char *s)
{
    if (s == NULL)
        resp_add_null(o);
    else
        resp_add_bulk(o, s, strlen(s));
}

void resp_add_bulk_ll(struct resp_out *o, long long n)
{
    char buf[HEADER_MAX];
    resp_add_bulk(o, buf, resp_format_ll(buf, n));
}

void resp_add_null(struct resp_out *o)
{
    if (o->proto == 3)
        out_append(o, "_\r\n", 3, 0);
    else
        out_append(o, "$-1\r\n", 5, 0);
}

void resp_add_null_array(struct resp_out *o)
{
    if (o->proto == 3)
        out_append(o, "_\r\n", 3, 0);
    else
        out_append(o, "*-1\r\n", 5, 0);
}

void resp_add_array_len(struct resp_out *o, size_t n)
{
    out_header(o, '*', n);
}

void resp_add_map_len(struct resp_out *o, size_t n)
{
    if (o->proto == 3)
        out_header(o, '%', n);
    else
        out_header(o, '*', 2ULL * n);
}

void resp_add_set_len(struct resp_out *o, size_t n)
{
    out_header(o, o->proto == 3 ? '~' : '*', n);
}

void resp_add_push_len(struct resp_out *o, size_t n)
{
    out_header(o, o->proto == 3 ? '>' : '*', n);
}

void resp_add_attribute_len(struct resp_out *o, size_t n)
{
    if (o->proto == 3)
        out_header(o, '|', n);
}

int resp_format_double(char *buf, double d)
{
    /* Spelled out rather than left to the libc, as Redis does. */
    if (isinf(d)) {
        memcpy(buf, d > 0 ? "inf" : "-inf", d > 0 ? 4 : 5);
        return d > 0 ? 3 : 4;
    }
    return snprintf(buf, RESP_DOUBLE_BUFLEN, "%.17g", d);
}

void resp_add_double(struct resp_out *o, double d)
{
    char buf[RESP_DOUBLE_BUFLEN + 3];
    int len = resp_format_double(buf + 1, d);

    if (o->proto != 3) {
        resp_add_bulk(o, buf + 1, (size_t)len);
        return;
    }
    buf[0] = ',';
    buf[len + 1] = '\r';
    buf[len + 2] = '\n';
    out_append(o, buf, (size_t)len + 3, 0);
}

void resp_add_bool(struct resp_out *o, int b)
{
    if (o->proto == 3)
        out_append(o, b ? "#t\r\n" : "#f\r\n", 4, 0);
    else
        out_append(o, b ? ":1\r\n" : ":0\r\n", 4, 0);
}

void resp_add_bignum(struct resp_out *o, const char *digits, size_t len)
{
    if (o->proto == 3)
        out_framed(o, "(", 1, digits, len);
    else
        resp_add_bulk(o, digits, len);
}

void resp_add_verbatim(struct resp_out *o, const char *fmt, const char *text, size_t len)
{
    char hdr[HEADER_MAX + 4];
    size_t hl;

    if (o->proto != 3) {
        resp_add_bulk(o, text, len);
        return;
    }
    hl = format_header(hdr, '=', (unsigned long long)len + 4);
    memcpy(hdr + hl, fmt, 3);
    hdr[hl + 3] = ':';
    out_framed(o, hdr, hl + 4, text, len);
}

void resp_add_deferred(struct resp_out *o, struct resp_deferred *d)
{
    d->chunk = NULL;
    if (o->failed || o->muted)
        return;
    /* Elements go into this chunk after the kept room, then into later ones. */
    d->chunk = chunk_new(o, RESP_DEFERRED_ROOM + RESP_OUT_CHUNK, RESP_DEFERRED_ROOM);
    if (d->chunk != NULL)
        d->chunk->unfilled = 1;
}

/* Writes the header right before the chunk's first element and shows it. */
static void set_deferred(struct resp_out *o, struct resp_deferred *d, char type, unsigned long long n)
{
    struct resp_chunk *c = d->chunk;
    char hdr[HEADER_MAX];
    size_t hl;

    if (c == NULL)
        return;
    hl = format_header(hdr, type, n);
    memcpy(c->data + c->start - hl, hdr, hl);
    c->start -= hl;
    c->unfilled = 0;
    o->pending += hl;
    d->chunk = NULL;
}

void resp_set_deferred_array(struct resp_out *o, struct resp_deferred *d, size_t n)
{
    set_deferred(o, d, '*', n);
}

void resp_set_deferred_map(struct resp_out *o, struct resp_deferred *d, size_t n)
{
    if (o->proto == 3)
        set_deferred(o, d, '%', n);
    else
        set_deferred(o, d, '*', 2ULL * n);
}

void resp_set_deferred_set(struct resp_out *o, struct resp_deferred *d, size_t n)
{
    set_deferred(o, d, o->proto == 3 ? '~' : '*', n);
}

void resp_add_command(struct resp_out *o, int argc, const struct resp_slice *argv)
{
    out_header(o, '*', (unsigned long long)argc);
    for (int i = 0; i < argc; i++)
        resp_add_bulk(o, argv[i].ptr, argv[i].len);
}

void resp_out_drain(struct resp_out *o, void (*emit)(void *ctx, const char *p, size_t n),
                    void *ctx)
{
    while (resp_out_pending(o)) {
        struct resp_iov iov[16];
        int n = resp_out_peek(o, iov, 16);
        size_t total = 0;
        for (int i = 0; i < n; i++) {
            emit(ctx, iov[i].base, iov[i].len);
            total += iov[i].len;
        }
        resp_out_consume(o, total);
    }
}
