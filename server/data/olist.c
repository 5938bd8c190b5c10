/*
 * olist.c - the list sequence (see olist.h): chunks of listpack-encoded
 * elements, the nodes of a red-black tree in list order counted by
 * elements.
 *
 * An element is [head][payload][back length], the head and payload as
 * Redis's listpack writes them, so a small list costs what Redis's costs:
 *   0xxxxxxx                   an integer 0..127, no payload
 *   10xxxxxx                   a string of up to 63 bytes
 *   110xxxxx yyyyyyyy          an integer -4096..4095 (13 bits, two's complement)
 *   1110xxxx yyyyyyyy          a string of up to 4095 bytes
 *   0xf0 + 4 bytes length      a longer string
 *   0xf1..0xf4 + 2/3/4/8 bytes an integer of 16/24/32/64 bits
 * (lengths and integers little-endian). The back length is the length of
 * head and payload in 1 to 5 bytes read from the right, 7 bits a byte, the
 * top bit set on every byte but the leftmost, so a chunk is walked both
 * ways. Only an element that reads back as the same text is stored as an
 * integer (Redis's string2ll: no '+', no leading zero, no "-0"), so every
 * value has exactly one encoding, and two elements are equal exactly when
 * their bytes are: LREM and LPOS compare bytes, never numbers.
 *
 * The chunks and their counted tree are ctree.h's, shared with hashes and
 * sets; this file decides what the bytes are and when a chunk grows,
 * splits or merges. The tree is not searched by key: a position is found
 * by descending with the subtree totals, and chunks are linked beside a
 * known neighbour.
 */
#include "olist.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ctree.h"
#include "mem.h"
#include "resp_num.h"

struct olist {
    struct rb_root tree;
    size_t chunks;
    /* The first and last chunks (NULL when empty), so a push or pop at
     * either end finds its chunk without walking the tree; kept by
     * chunk_link, chunk_unlink_free and chunk_resize, the only places the
     * chunks come, go or move. */
    struct ct_chunk *head, *tail;
};


/* Redis's SIZE_SAFETY_LIMIT: a chunk limited by count stays within it too. */
#define SAFETY_BYTES 8192

/* The heads (see the top of the file). */
#define ENC_STR32 0xf0
#define ENC_INT16 0xf1
#define ENC_INT24 0xf2
#define ENC_INT32 0xf3
#define ENC_INT64 0xf4

/* ---- elements ----------------------------------------------------------- */

/* An element to write or look for: its head (integers: all of it), its
 * payload (a string's bytes, borrowed) and its whole size. */
struct enc {
    unsigned char head[9];
    uint32_t hlen;
    const char *payload;
    size_t plen;
    size_t size; /* head, payload and back length */
};

static size_t backlen_size(size_t len)
{
    if (len < 128)
        return 1;
    if (len < 16384)
        return 2;
    if (len < 2097152)
        return 3;
    if (len < 268435456)
        return 4;
    return 5;
}

/* Writes len's back length at p (backlen_size(len) bytes). */
static void backlen_put(unsigned char *p, size_t len)
{
    size_t bs = backlen_size(len);
    for (size_t i = 0; i < bs; i++)
        p[bs - 1 - i] = (unsigned char)(((len >> (7 * i)) & 127) | (i + 1 < bs ? 128 : 0));
}

/* The length of head and payload of the element that ends at end. */
static inline size_t backlen_get(const unsigned char *end, size_t *bs)
{
    if (end[-1] < 128) { /* an element of under 128 bytes: nearly all */
        *bs = 1;
        return end[-1];
    }
    size_t len = 0, i = 0;
    unsigned char b;
    do {
        b = end[-1 - (long)i];
        len |= (size_t)(b & 127) << (7 * i);
        i++;
    } while (b & 128);
    *bs = i;
    return len;
}

static uint64_t le_get(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void le_put(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++, v >>= 8)
        p[i] = (unsigned char)v;
}

/* The length of head and payload of the element at p. */
static size_t elem_body(const unsigned char *p)
{
    unsigned b = p[0];
    if (b < 0x80)
        return 1;
    if ((b & 0xc0) == 0x80)
        return 1 + (b & 0x3f);
    if ((b & 0xe0) == 0xc0)
        return 2;
    if ((b & 0xf0) == 0xe0)
        return 2 + ((size_t)(b & 0x0f) << 8 | p[1]);
    switch (b) {
    case ENC_STR32:
        return 5 + (size_t)le_get(p + 1, 4);
    case ENC_INT16:
        return 3;
    case ENC_INT24:
        return 4;
    case ENC_INT32:
        return 5;
    default:
        return 9;
    }
}

/* The whole size of the element at p. */
static inline size_t elem_size(const unsigned char *p)
{
    /* The two heads of nearly every element first: a seek walks up to half
     * a chunk of them. */
    if (p[0] < 0x80)
        return 2;
    if ((p[0] & 0xc0) == 0x80)
        return (size_t)(p[0] & 0x3f) + 2;
    size_t body = elem_body(p);
    return body + backlen_size(body);
}

static bool head_is_int(unsigned b)
{
    return b < 0x80 || (b & 0xe0) == 0xc0 || (b >= ENC_INT16 && b <= ENC_INT64);
}

/* The integer of an element whose head_is_int. */
static int64_t elem_int(const unsigned char *p)
{
    unsigned b = p[0];
    if (b < 0x80)
        return b;
    if ((b & 0xe0) == 0xc0) {
        int v = (int)((b & 0x1f) << 8 | p[1]);
        return v >= 4096 ? v - 8192 : v;
    }
    int bytes = b == ENC_INT16 ? 2 : b == ENC_INT24 ? 3 : b == ENC_INT32 ? 4 : 8;
    uint64_t u = le_get(p + 1, bytes);
    if (bytes < 8 && (u >> (8 * bytes - 1)))
        u |= ~(uint64_t)0 << (8 * bytes); /* sign-extend */
    return (int64_t)u;
}

/* A string element's bytes. */
static const unsigned char *elem_str(const unsigned char *p, size_t *len)
{
    unsigned b = p[0];
    if ((b & 0xc0) == 0x80) {
        *len = b & 0x3f;
        return p + 1;
    }
    if ((b & 0xf0) == 0xe0) {
        *len = (size_t)(b & 0x0f) << 8 | p[1];
        return p + 2;
    }
    *len = (size_t)le_get(p + 1, 4);
    return p + 5;
}

/* Writes v in decimal and a NUL into buf (RESP_LL_CHARS + 1 bytes);
 * returns its length. */
static size_t int_to_text(int64_t v, char *buf)
{
    size_t len = resp_format_ll(buf, v);
    buf[len] = '\0';
    return len;
}

static void enc_make(struct enc *e, const char *v, size_t vlen)
{
    long long x;
    e->payload = v;
    e->plen = 0;
    if (resp_parse_ll(v, vlen, &x) == 0) {
        if (x >= 0 && x <= 127) {
            e->head[0] = (unsigned char)x;
            e->hlen = 1;
        } else if (x >= -4096 && x <= 4095) {
            unsigned u = (unsigned)x & 0x1fff;
            e->head[0] = (unsigned char)(0xc0 | u >> 8);
            e->head[1] = (unsigned char)(u & 0xff);
            e->hlen = 2;
        } else {
            int bytes = x >= INT16_MIN && x <= INT16_MAX       ? 2
                        : x >= -8388608 && x <= 8388607        ? 3
                        : x >= INT32_MIN && x <= INT32_MAX     ? 4
                                                               : 8;
            e->head[0] = bytes == 2 ? ENC_INT16 : bytes == 3 ? ENC_INT24
                                              : bytes == 4   ? ENC_INT32
                                                             : ENC_INT64;
            le_put(e->head + 1, (uint64_t)x, bytes);
            e->hlen = 1 + (uint32_t)bytes;
        }
    } else if (vlen <= 63) {
        e->head[0] = (unsigned char)(0x80 | vlen);
        e->hlen = 1;
        e->plen = vlen;
    } else if (vlen <= 4095) {
        e->head[0] = (unsigned char)(0xe0 | vlen >> 8);
        e->head[1] = (unsigned char)(vlen & 0xff);
        e->hlen = 2;
        e->plen = vlen;
    } else {
        e->head[0] = ENC_STR32;
        le_put(e->head + 1, vlen, 4);
        e->hlen = 5;
        e->plen = vlen;
    }
    e->size = e->hlen + e->plen + backlen_size(e->hlen + e->plen);
}

static void enc_write(const struct enc *e, unsigned char *p)
{
    memcpy(p, e->head, e->hlen);
    if (e->plen)
        memcpy(p + e->hlen, e->payload, e->plen);
    backlen_put(p + e->hlen + e->plen, e->hlen + e->plen);
}

/* Whether the element at p is e's value: the encoding is canonical, so the
 * bytes decide. The first byte fixes the head's length, so nothing is read
 * past a shorter element. */
static bool enc_matches(const struct enc *e, const unsigned char *p)
{
    return p[0] == e->head[0] && memcmp(p + 1, e->head + 1, e->hlen - 1) == 0 &&
           elem_body(p) == e->hlen + e->plen &&
           (e->plen == 0 || memcmp(p + e->hlen, e->payload, e->plen) == 0);
}

/* ---- chunks and the tree ------------------------------------------------ */

/* A chunk's data as the bytes the element code reads. */
static inline unsigned char *bytes_of(const struct ct_chunk *c)
{
    return (unsigned char *)c->data;
}

/* What lim allows a chunk: bytes (its header included) and elements. */
struct caps {
    size_t bytes, n;
};

static struct caps caps_of(const struct ol_limits *lim)
{
    long v = lim->max_listpack_size;
    if (v < 0) {
        long level = v < -5 ? 4 : -v - 1;
        return (struct caps){(size_t)4096 << level, SIZE_MAX};
    }
    return (struct caps){SAFETY_BYTES, v > 0 ? (size_t)v : 1};
}

/* Whether c takes `more` elements of `bytes` bytes in all. */
static bool chunk_takes(const struct ct_chunk *c, size_t more, size_t bytes, struct caps k)
{
    return c->n + more <= k.n && CT_HDR + c->used + bytes <= k.bytes;
}

/* The tree's link and unlink, counting the chunks. */
static void chunk_link(struct olist *l, struct ct_chunk *prev, struct ct_chunk *c)
{
    ct_link_after(&l->tree, prev, c);
    l->chunks++;
    if (!prev)
        l->head = c;
    if (prev == l->tail)
        l->tail = c;
}

static void chunk_unlink_free(struct olist *l, struct ct_chunk *c)
{
    if (c == l->head)
        l->head = ct_next(c);
    if (c == l->tail)
        l->tail = ct_prev(c);
    ct_unlink_free(&l->tree, c);
    l->chunks--;
}

/* ct_resize, the end caches following c when it moves. */
static struct ct_chunk *chunk_resize(struct olist *l, struct ct_chunk *c, size_t cap)
{
    bool head = c == l->head, tail = c == l->tail;
    c = ct_resize(&l->tree, c, cap);
    if (head)
        l->head = c;
    if (tail)
        l->tail = c;
    return c;
}

/* c with room for need bytes of data: grown by an eighth again, as far as
 * the chunk limit, so pushes are amortised while a partly filled chunk
 * wastes no more than the allocator's size classes would (a listpack grows
 * to the byte and leaves that to jemalloc's); a full chunk is one
 * allocation of the limit's size. May move it. */
static struct ct_chunk *chunk_reserve(struct olist *l, struct ct_chunk *c, size_t need,
                                      struct caps k)
{
    size_t cap = ct_cap(c);
    if (need <= cap)
        return c;
    cap += cap / 8;
    if (CT_HDR + cap > k.bytes)
        cap = k.bytes > CT_HDR ? k.bytes - CT_HDR : 0;
    return chunk_resize(l, c, cap < need ? need : cap);
}

/* Gives back what c no longer needs once under half full, keeping a quarter
 * for growth. May move it. */
static struct ct_chunk *chunk_trim(struct olist *l, struct ct_chunk *c)
{
    if (ct_cap(c) <= 2 * (size_t)c->used + 64)
        return c;
    return chunk_resize(l, c, c->used + c->used / 4);
}

/* The byte offset of element idx of c (idx <= n), walked from the nearer
 * end. */
static uint32_t chunk_offset(const struct ct_chunk *c, uint32_t idx)
{
    size_t off = 0;
    if (idx <= c->n / 2) {
        for (uint32_t i = 0; i < idx; i++)
            off += elem_size(bytes_of(c) + off);
        return (uint32_t)off;
    }
    off = c->used;
    for (uint32_t i = c->n; i > idx; i--) {
        size_t bs, body = backlen_get(bytes_of(c) + off, &bs);
        off -= bs + body;
    }
    return (uint32_t)off;
}

/* Writes e at offset off of c, moving what follows. May move c. */
static struct ct_chunk *chunk_put(struct olist *l, struct ct_chunk *c, uint32_t off,
                                  const struct enc *e, struct caps k)
{
    c = chunk_reserve(l, c, c->used + e->size, k);
    memmove(bytes_of(c) + off + e->size, bytes_of(c) + off, c->used - off);
    enc_write(e, bytes_of(c) + off);
    c->used += (uint32_t)e->size;
    c->n++;
    ct_totals_add(c, 1);
    return c;
}

/* Removes `bytes` bytes holding `count` elements at offset off of c. */
static void chunk_cut(struct ct_chunk *c, uint32_t off, size_t bytes, uint32_t count)
{
    memmove(bytes_of(c) + off, bytes_of(c) + off + bytes, c->used - off - bytes);
    c->used -= (uint32_t)bytes;
    c->n -= count;
    ct_totals_add(c, -(long)count);
}

/* A new chunk holding only e, linked after prev (NULL: at the front). */
static void chunk_alone(struct olist *l, struct ct_chunk *prev, const struct enc *e)
{
    struct ct_chunk *c = ct_new(e->size);
    enc_write(e, bytes_of(c));
    c->used = (uint32_t)e->size;
    c->n = 1;
    chunk_link(l, prev, c);
}

/* Moves c's elements from idx (at offset off, 0 < idx < n) to a new chunk
 * linked after c; returns it. */
static struct ct_chunk *chunk_split(struct olist *l, struct ct_chunk *c, uint32_t idx,
                                    uint32_t off)
{
    size_t tail = c->used - off;
    struct ct_chunk *nc = ct_new(tail);
    memcpy(bytes_of(nc), bytes_of(c) + off, tail);
    nc->used = (uint32_t)tail;
    nc->n = c->n - idx;
    ct_totals_add(c, -(long)nc->n);
    c->n = idx;
    c->used = off;
    chunk_link(l, c, nc);
    return nc;
}

/* Inserts e before element idx of c (at offset off; idx == n: after c's
 * last): into c when it has room, else into a neighbour with room at that
 * edge, else into one of the halves of c split there, else alone. */
static void insert_at(struct olist *l, struct ct_chunk *c, uint32_t idx, uint32_t off,
                      const struct enc *e, struct caps k)
{
    if (chunk_takes(c, 1, e->size, k)) {
        chunk_put(l, c, off, e, k);
        return;
    }
    if (idx == 0) {
        struct ct_chunk *prev = ct_prev(c);
        if (prev && chunk_takes(prev, 1, e->size, k))
            chunk_put(l, prev, prev->used, e, k);
        else
            chunk_alone(l, prev, e);
        return;
    }
    if (idx == c->n) {
        struct ct_chunk *next = ct_next(c);
        if (next && chunk_takes(next, 1, e->size, k))
            chunk_put(l, next, 0, e, k);
        else
            chunk_alone(l, c, e);
        return;
    }
    struct ct_chunk *nc = chunk_split(l, c, idx, off);
    if (chunk_takes(c, 1, e->size, k))
        chunk_put(l, c, c->used, e, k);
    else if (chunk_takes(nc, 1, e->size, k))
        chunk_put(l, nc, 0, e, k);
    else
        chunk_alone(l, c, e);
}

/* After c lost elements: frees it when empty, else merges it with a
 * neighbour when both fit in one chunk, else gives back spare room. */
static void after_shrink(struct olist *l, struct ct_chunk *c, struct caps k)
{
    if (c->n == 0) {
        chunk_unlink_free(l, c);
        return;
    }
    struct ct_chunk *into = NULL, *from = NULL;
    struct ct_chunk *next = ct_next(c), *prev = ct_prev(c);
    if (next && chunk_takes(c, next->n, next->used, k)) {
        into = c;
        from = next;
    } else if (prev && chunk_takes(prev, c->n, c->used, k)) {
        into = prev;
        from = c;
    }
    if (!into) {
        chunk_trim(l, c);
        return;
    }
    uint32_t moved = from->n;
    into = chunk_reserve(l, into, (size_t)into->used + from->used, k);
    memcpy(bytes_of(into) + into->used, bytes_of(from), from->used);
    into->used += from->used;
    into->n += moved;
    ct_totals_add(into, (long)moved);
    /* from's elements are counted twice on the shared path until it goes:
     * erasing it recomputes every total above it from the children. */
    from->n = 0;
    ct_totals_add(from, -(long)moved);
    chunk_unlink_free(l, from);
}

/* ---- whole lists -------------------------------------------------------- */

struct olist *ol_new(void)
{
    struct olist *l = xmalloc(sizeof(*l));
    l->tree = RB_ROOT;
    l->chunks = 0;
    l->head = l->tail = NULL;
    return l;
}

void ol_free(struct olist *l)
{
    if (!l)
        return;
    ct_free_some(&l->tree, SIZE_MAX);
    xfree(l);
}

struct olist *ol_clone(const struct olist *l)
{
    struct olist *copy = ol_new();
    ct_clone(&copy->tree, &l->tree);
    copy->chunks = l->chunks;
    copy->head = ct_first(&copy->tree);
    copy->tail = ct_last(&copy->tree);
    return copy;
}

size_t ol_len(const struct olist *l)
{
    return ct_total(l->tree.rb_node);
}

size_t ol_chunks(const struct olist *l)
{
    return l->chunks;
}

size_t ol_bytes(const struct olist *l)
{
    size_t bytes = 0;
    for (struct ct_chunk *c = ct_first(&l->tree); c; c = ct_next(c))
        bytes += c->used;
    return bytes;
}

size_t ol_memory(const struct olist *l)
{
    return xsize(l) + ct_memory(&l->tree);
}

size_t ol_memory_sampled(const struct olist *l, size_t samples)
{
    return samples ? xsize(l) + ct_memory_sampled(&l->tree, samples) : ol_memory(l);
}

/* ct_select, with the ends answered from the caches: pops, LINDEX 0 / -1
 * and the first page of LRANGE skip the descent. */
static struct ct_chunk *chunk_select(const struct olist *l, size_t k, uint32_t *idx)
{
    if (l->head && k < l->head->n) {
        *idx = (uint32_t)k;
        return l->head;
    }
    size_t len = ol_len(l);
    if (l->tail && k < len && k >= len - l->tail->n) {
        *idx = (uint32_t)(k - (len - l->tail->n));
        return l->tail;
    }
    return ct_select(&l->tree, k, idx);
}

/* ---- writes ------------------------------------------------------------- */

void ol_push(struct olist **lp, int tail, const char *v, size_t vlen, const struct ol_limits *lim)
{
    struct olist *l = *lp;
    struct enc e;
    enc_make(&e, v, vlen);
    struct ct_chunk *c = tail ? l->tail : l->head;
    if (!c)
        chunk_alone(l, NULL, &e);
    else if (tail)
        insert_at(l, c, c->n, c->used, &e, caps_of(lim));
    else
        insert_at(l, c, 0, 0, &e, caps_of(lim));
}

void ol_insert(struct olist **lp, size_t k, const char *v, size_t vlen,
               const struct ol_limits *lim)
{
    struct olist *l = *lp;
    uint32_t idx;
    if (k >= ol_len(l)) {
        ol_push(lp, 1, v, vlen, lim);
        return;
    }
    struct ct_chunk *c = chunk_select(l, k, &idx);
    struct enc e;
    enc_make(&e, v, vlen);
    insert_at(l, c, idx, chunk_offset(c, idx), &e, caps_of(lim));
}

void ol_set(struct olist **lp, size_t k, const char *v, size_t vlen, const struct ol_limits *lim)
{
    struct olist *l = *lp;
    struct caps caps = caps_of(lim);
    uint32_t idx;
    struct ct_chunk *c = chunk_select(l, k, &idx);
    uint32_t off = chunk_offset(c, idx);
    size_t old = elem_size(bytes_of(c) + off);
    struct enc e;
    enc_make(&e, v, vlen);

    if (e.size > old && c->n > 1 && !chunk_takes(c, 0, e.size - old, caps)) {
        /* Too big for c now: out, and in again as an insert would go. */
        chunk_cut(c, off, old, 1);
        insert_at(l, c, idx, off, &e, caps);
        return;
    }
    if (e.size > old) {
        c = chunk_reserve(l, c, c->used - old + e.size, caps);
        memmove(bytes_of(c) + off + e.size, bytes_of(c) + off + old, c->used - off - old);
    } else if (e.size < old) {
        memmove(bytes_of(c) + off + e.size, bytes_of(c) + off + old, c->used - off - old);
    }
    c->used = (uint32_t)(c->used - old + e.size);
    enc_write(&e, bytes_of(c) + off);
    if (e.size < old)
        chunk_trim(l, c);
}

void ol_del_range(struct olist **lp, size_t lo, size_t hi, const struct ol_limits *lim)
{
    struct olist *l = *lp;
    struct caps caps = caps_of(lim);
    while (hi > lo) {
        uint32_t idx;
        struct ct_chunk *c = chunk_select(l, lo, &idx);
        uint32_t count = (uint32_t)(hi - lo < (size_t)(c->n - idx) ? hi - lo : c->n - idx);
        if (count == c->n) {
            chunk_unlink_free(l, c);
        } else {
            uint32_t off = chunk_offset(c, idx), end = off;
            for (uint32_t i = 0; i < count; i++)
                end += (uint32_t)elem_size(bytes_of(c) + end);
            chunk_cut(c, off, end - off, count);
            after_shrink(l, c, caps);
        }
        hi -= count;
    }
}

/* Removes from c's elements [from, to) up to `limit` that are e, in one
 * pass; returns how many went. */
static uint32_t chunk_remove(struct ct_chunk *c, const struct enc *e, uint32_t from, uint32_t to,
                             size_t limit)
{
    size_t rd = chunk_offset(c, from), wr = rd;
    uint32_t gone = 0;
    for (uint32_t i = from; i < to; i++) {
        size_t size = elem_size(bytes_of(c) + rd);
        if (gone < limit && enc_matches(e, bytes_of(c) + rd)) {
            gone++;
        } else {
            if (wr != rd)
                memmove(bytes_of(c) + wr, bytes_of(c) + rd, size);
            wr += size;
        }
        rd += size;
    }
    if (gone) {
        memmove(bytes_of(c) + wr, bytes_of(c) + rd, c->used - rd);
        c->used = (uint32_t)(c->used - (rd - wr));
        c->n -= gone;
        ct_totals_add(c, -(long)gone);
    }
    return gone;
}

/* Walking c back from element last, the index of the `want`th element that
 * is e (or of the earliest when fewer are); last + 1 when none is. */
static uint32_t chunk_match_back(const struct ct_chunk *c, const struct enc *e, uint32_t last,
                                 size_t want)
{
    size_t off = chunk_offset(c, last + 1), seen = 0;
    uint32_t at = last + 1;
    for (uint32_t i = last + 1; i > 0 && seen < want; i--) {
        size_t bs, body = backlen_get(bytes_of(c) + off, &bs);
        off -= bs + body;
        if (enc_matches(e, bytes_of(c) + off)) {
            seen++;
            at = i - 1;
        }
    }
    return at;
}

size_t ol_remove(struct olist **lp, const char *v, size_t vlen, long count,
                 const struct ol_limits *lim)
{
    struct olist *l = *lp;
    struct caps caps = caps_of(lim);
    size_t want = count == 0 ? SIZE_MAX : count > 0 ? (size_t)count : 0 - (size_t)count;
    size_t gone = 0;
    uint32_t idx;
    struct enc e;
    enc_make(&e, v, vlen);

    /* The walk keeps a position, not a chunk: a chunk that lost elements
     * may merge with a neighbour or go, which moves no position outside
     * the part already walked. */
    if (count >= 0) {
        for (size_t pos = 0; gone < want && pos < ol_len(l);) {
            struct ct_chunk *c = chunk_select(l, pos, &idx);
            uint32_t went = chunk_remove(c, &e, idx, c->n, want - gone);
            gone += went;
            pos += c->n - idx;
            if (went)
                after_shrink(l, c, caps);
        }
        return gone;
    }
    for (size_t end = ol_len(l); gone < want && end > 0;) {
        struct ct_chunk *c = chunk_select(l, end - 1, &idx);
        uint32_t from = chunk_match_back(c, &e, idx, want - gone);
        uint32_t went = from <= idx ? chunk_remove(c, &e, from, idx + 1, want - gone) : 0;
        gone += went;
        end -= idx + 1;
        if (went)
            after_shrink(l, c, caps);
    }
    return gone;
}

/* ---- positions ---------------------------------------------------------- */

static void it_invalid(struct ol_it *it)
{
    it->chunk = NULL;
    it->off = it->idx = 0;
}

/* Fills num when the element at it is stored as an integer. */
static void it_load(struct ol_it *it)
{
    const struct ct_chunk *c = it->chunk;
    const unsigned char *p = bytes_of(c) + it->off;
    if (head_is_int(p[0]))
        int_to_text(elem_int(p), it->num);
}

int ol_seek(const struct olist *l, size_t k, struct ol_it *it)
{
    uint32_t idx;
    struct ct_chunk *c = chunk_select(l, k, &idx);
    it->l = l;
    it->pos = k;
    if (!c) {
        it_invalid(it);
        return -1;
    }
    it->chunk = c;
    it->idx = idx;
    it->off = chunk_offset(c, idx);
    it_load(it);
    return 0;
}

void ol_it_get(const struct ol_it *it, const char **v, size_t *vlen)
{
    const struct ct_chunk *c = it->chunk;
    const unsigned char *p = bytes_of(c) + it->off;
    if (head_is_int(p[0])) {
        *v = it->num;
        *vlen = strlen(it->num);
        return;
    }
    *v = (const char *)elem_str(p, vlen);
}

void ol_next(struct ol_it *it)
{
    const struct ct_chunk *c = it->chunk;
    it->pos++;
    if (it->idx + 1 < c->n) {
        it->off += (uint32_t)elem_size(bytes_of(c) + it->off);
        it->idx++;
    } else {
        it->chunk = ct_next(c);
        it->off = it->idx = 0;
        if (!it->chunk)
            return;
    }
    it_load(it);
}

void ol_prev(struct ol_it *it)
{
    const struct ct_chunk *c = it->chunk;
    it->pos--;
    if (it->idx == 0) {
        c = ct_prev(c);
        if (!c) {
            it_invalid(it);
            return;
        }
        it->chunk = (void *)c;
        it->idx = c->n;
        it->off = c->used;
    }
    size_t bs, body = backlen_get(bytes_of(c) + it->off, &bs);
    it->off -= (uint32_t)(bs + body);
    it->idx--;
    it_load(it);
}

/* ---- the checker -------------------------------------------------------- */

/* Checks one chunk's bytes: n elements forwards to exactly used bytes, the
 * same boundaries backwards, each in its one encoding. */
static int check_chunk(const struct ct_chunk *c, const char **why)
{
    size_t off = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        if (off >= c->used || off + elem_size(bytes_of(c) + off) > c->used) {
            *why = "a chunk holds fewer elements than it counts";
            return -1;
        }
        const unsigned char *p = bytes_of(c) + off;
        size_t body = elem_body(p), bs;
        if (backlen_get(p + body + backlen_size(body), &bs) != body || bs != backlen_size(body)) {
            *why = "an element's back length is not its length";
            return -1;
        }
        struct enc e;
        char num[24];
        const char *v;
        size_t vlen;
        if (head_is_int(p[0])) {
            vlen = int_to_text(elem_int(p), num);
            v = num;
        } else {
            v = (const char *)elem_str(p, &vlen);
        }
        enc_make(&e, v, vlen);
        if (!enc_matches(&e, p)) {
            *why = "an element is not in its one encoding";
            return -1;
        }
        off += elem_size(p);
    }
    if (off != c->used) {
        *why = "a chunk's bytes do not end with its last element";
        return -1;
    }
    return 0;
}

int ol_check(const struct olist *l, const struct ol_limits *lim, const char **why)
{
    struct caps k = lim ? caps_of(lim) : (struct caps){SIZE_MAX, SIZE_MAX};
    size_t count = 0, chunks = 0;
    for (struct ct_chunk *c = ct_first(&l->tree); c; c = ct_next(c)) {
        if (c->n == 0) {
            *why = "an empty chunk";
            return -1;
        }
        if (c->used > ct_cap(c)) {
            *why = "a chunk uses more bytes than it has";
            return -1;
        }
        if (c->n > 1 && (c->n > k.n || CT_HDR + c->used > k.bytes)) {
            *why = "a chunk is over its limit";
            return -1;
        }
        if (check_chunk(c, why) < 0)
            return -1;
        count += c->n;
        chunks++;
    }
    if (ct_check_totals(&l->tree, why) < 0)
        return -1;
    if (l->head != ct_first(&l->tree) || l->tail != ct_last(&l->tree)) {
        *why = "the head or tail cache is not the first or last chunk";
        return -1;
    }
    if (count != ol_len(l)) {
        *why = "the element count is not the list's length";
        return -1;
    }
    if (chunks != l->chunks) {
        *why = "the chunk count is wrong";
        return -1;
    }
    return 0;
}
