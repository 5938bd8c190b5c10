/*
 * omap.c - the ordered map (see omap.h): sorted packed chunks in a
 * red-black tree counted by elements.
 *
 * Every lookup is one descent that compares against each visited chunk's
 * first element (the chunk to search is the last one whose first element is
 * not after the target) and then a scan of that chunk. The descent also adds
 * up the elements before the chunk, so a lookup knows its rank for free.
 */
#include "omap.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "rbtree_augmented.h"

#define CHUNK_HDR offsetof(struct om_chunk, data)

static struct om_chunk *chunk_of(const struct rb_node *rb)
{
    return rb ? rb_entry(rb, struct om_chunk, rb) : NULL;
}

static size_t total_of(const struct rb_node *rb)
{
    return rb ? chunk_of(rb)->total : 0;
}

static bool total_compute(struct om_chunk *c, bool exit)
{
    size_t t = c->n + total_of(c->rb.rb_left) + total_of(c->rb.rb_right);
    if (exit && c->total == t)
        return true;
    c->total = (uint32_t)t;
    return false;
}

RB_DECLARE_CALLBACKS(static, om_cb, struct om_chunk, rb, total, total_compute);

/* ---- the packed format -------------------------------------------------- */

static size_t varint_size(size_t n)
{
    size_t s = 1;
    while (n >= 0x80) {
        n >>= 7;
        s++;
    }
    return s;
}

static size_t varint_put(char *p, size_t n)
{
    size_t i = 0;
    while (n >= 0x80) {
        p[i++] = (char)(0x80 | (n & 0x7f));
        n >>= 7;
    }
    p[i++] = (char)n;
    return i;
}

static inline size_t varint_get(const char *p, size_t *n)
{
    if (!((unsigned char)p[0] & 0x80)) { /* under 128: nearly every length */
        *n = (unsigned char)p[0];
        return 1;
    }
    size_t v = 0, i = 0;
    unsigned shift = 0;
    unsigned char b;
    do {
        b = (unsigned char)p[i++];
        v |= (size_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    *n = v;
    return i;
}

static int bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int r = n ? memcmp(a, b, n) : 0;
    return r ? r : (alen > blen) - (alen < blen);
}

/* Decodes the element at off; returns the offset after it. */
static uint32_t elem_decode(const struct omap *m, const struct om_chunk *c, uint32_t off,
                            struct om_elem *e)
{
    const char *p = c->data + off;
    p += varint_get(p, &e->flen);
    e->f = p;
    p += e->flen;
    e->v = NULL;
    e->vlen = 0;
    if (m->values) {
        p += varint_get(p, &e->vlen);
        e->v = p;
        p += e->vlen;
    }
    return (uint32_t)(p - c->data);
}

static uint32_t elem_skip(const struct omap *m, const struct om_chunk *c, uint32_t off)
{
    struct om_elem e;
    return elem_decode(m, c, off, &e);
}

static size_t elem_size(const struct omap *m, size_t flen, size_t vlen)
{
    size_t s = varint_size(flen) + flen;
    return m->values ? s + varint_size(vlen) + vlen : s;
}

static void elem_encode(const struct omap *m, char *p, const char *f, size_t flen, const char *v,
                        size_t vlen)
{
    p += varint_put(p, flen);
    if (flen)
        memcpy(p, f, flen);
    p += flen;
    if (m->values) {
        p += varint_put(p, vlen);
        if (vlen)
            memcpy(p, v, vlen);
    }
}

/* Redis's string2ll: an optional '-', no leading zero, fits in int64. */
static int is_integer(const char *s, size_t len)
{
    char buf[24];
    if (len == 0 || len > 20)
        return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    const char *d = buf[0] == '-' ? buf + 1 : buf;
    if (!*d || (d[0] == '0' && (d[1] || d != buf)))
        return 0;
    for (const char *q = d; *q; q++)
        if (*q < '0' || *q > '9')
            return 0;
    if (strlen(d) == 19) {
        const char *lim = buf[0] == '-' ? "9223372036854775808" : "9223372036854775807";
        return strcmp(d, lim) <= 0;
    }
    return 1;
}

/* ---- chunks in the tree ------------------------------------------------- */

static struct om_chunk *chunk_new(size_t cap)
{
    struct om_chunk *c = xmalloc(CHUNK_HDR + cap);
    memset(c, 0, CHUNK_HDR);
    return c;
}

/* Bytes of data c has room for: what malloc really gave, so no field keeps
 * it (a field would push a 10-field hash into the next size class). */
static size_t chunk_cap(const struct om_chunk *c)
{
    return xsize(c) - CHUNK_HDR;
}

/* Adds delta to the totals of c and its ancestors (c's n changed). */
static void totals_add(struct om_chunk *c, long delta)
{
    for (struct rb_node *rb = &c->rb; rb; rb = rb_parent(rb))
        chunk_of(rb)->total = (uint32_t)((long)chunk_of(rb)->total + delta);
}

/* Links c (its n set) right after prev, or first when prev is NULL. */
static void chunk_link_after(struct omap *m, struct om_chunk *prev, struct om_chunk *c)
{
    struct rb_node *parent = NULL, **link = &m->tree.rb_node;

    if (!prev) {
        while (*link) {
            parent = *link;
            link = &parent->rb_left;
        }
    } else if (!prev->rb.rb_right) {
        parent = &prev->rb;
        link = &parent->rb_right;
    } else {
        parent = prev->rb.rb_right;
        while (parent->rb_left)
            parent = parent->rb_left;
        link = &parent->rb_left;
    }
    for (struct rb_node *up = parent; up; up = rb_parent(up))
        chunk_of(up)->total += c->n;
    c->total = c->n;
    rb_link_node(&c->rb, parent, link);
    rb_insert_augmented(&c->rb, &m->tree, &om_cb);
}

static void chunk_unlink_free(struct omap *m, struct om_chunk *c)
{
    rb_erase_augmented(&c->rb, &m->tree, &om_cb);
    xfree(c);
}

/* c moved to an allocation with room for cap bytes of data (at least its
 * used ones); returns it. A packed map's one chunk is the tree's only node,
 * with no links to fix, so realloc does; a tree chunk is copied and put in
 * the old one's place. */
static struct om_chunk *chunk_move(struct omap *m, struct om_chunk *c, size_t cap)
{
    if (m->packed) {
        c = xrealloc(c, CHUNK_HDR + cap);
        m->tree.rb_node = &c->rb;
        return c;
    }
    struct om_chunk *nc = xmalloc(CHUNK_HDR + cap);
    memcpy(nc, c, CHUNK_HDR + c->used);
    rb_replace_node(&c->rb, &nc->rb, &m->tree);
    xfree(c);
    return nc;
}

/* c with room for need bytes of data; may move it. A packed map's one chunk
 * grows to the byte, as a listpack does; tree chunks grow by half again so a
 * run of inserts is amortised. */
static struct om_chunk *chunk_reserve(struct omap *m, struct om_chunk *c, size_t need)
{
    size_t cap = chunk_cap(c);
    if (need <= cap)
        return c;
    cap += cap / 2;
    return chunk_move(m, c, m->packed || cap < need ? need : cap);
}

/* Gives back what c no longer needs once it shrank (a packed chunk: all
 * of it; a tree chunk: once under half full, keeping a quarter for growth).
 * May move it. */
static struct om_chunk *chunk_shrink(struct omap *m, struct om_chunk *c)
{
    size_t cap = chunk_cap(c);
    if (m->packed)
        return cap >= (size_t)c->used + 16 ? chunk_move(m, c, c->used) : c;
    if (cap <= 2 * (size_t)c->used + 128)
        return c;
    return chunk_move(m, c, c->used + c->used / 4);
}

/* An unlinked chunk (a rebuild's) cut down to its bytes and a quarter more,
 * for the inserts to come. */
static struct om_chunk *chunk_fit(struct om_chunk *c)
{
    size_t cap = c->used + c->used / 4;
    return cap + 16 <= chunk_cap(c) ? xrealloc(c, CHUNK_HDR + cap) : c;
}

static struct om_chunk *first_chunk(const struct omap *m)
{
    return chunk_of(rb_first(&m->tree));
}

/* ---- lookups ------------------------------------------------------------ */

/* Where f is or would go: chunk c (NULL only in an empty map), the index
 * and offset in it (idx == c->n: after its last element), and the rank.
 * Returns 1 when f is there. */
struct spot {
    struct om_chunk *c;
    uint32_t idx, off;
    size_t rank;
};

static int locate(const struct omap *m, const char *f, size_t flen, struct spot *s)
{
    struct rb_node *rb = m->tree.rb_node;
    struct om_chunk *cand = NULL;
    size_t before = 0, cand_rank = 0;
    struct om_elem e;

    while (rb) {
        struct om_chunk *c = chunk_of(rb);
        elem_decode(m, c, 0, &e);
        if (bytes_cmp(f, flen, e.f, e.flen) < 0) {
            rb = rb->rb_left;
        } else {
            cand = c;
            cand_rank = before + total_of(rb->rb_left);
            before = cand_rank + c->n;
            rb = rb->rb_right;
        }
    }
    s->idx = 0;
    s->off = 0;
    if (!cand) { /* before everything (or empty) */
        s->c = first_chunk(m);
        s->rank = 0;
        return 0;
    }
    s->c = cand;
    s->rank = cand_rank;
    for (uint32_t off = 0; s->idx < cand->n; s->idx++, s->rank++) {
        uint32_t next = elem_decode(m, cand, off, &e);
        int r = bytes_cmp(f, flen, e.f, e.flen);
        s->off = off;
        if (r == 0)
            return 1;
        if (r < 0)
            return 0;
        off = next;
        s->off = off;
    }
    return 0;
}

static void spot_to_it(const struct omap *m, const struct spot *s, struct om_it *it)
{
    it->c = s->c;
    it->idx = s->idx;
    it->off = s->off;
    it->end = 0;
    it->rank = s->rank;
    if (it->c && it->idx >= it->c->n) {
        it->c = chunk_of(rb_next(&s->c->rb));
        it->idx = 0;
        it->off = 0;
    }
    (void)m;
}

int om_find(const struct omap *m, const char *f, size_t flen, struct om_it *it)
{
    struct spot s;
    int found = locate(m, f, flen, &s);
    spot_to_it(m, &s, it);
    return found;
}

int om_get(const struct omap *m, const char *f, size_t flen, const char **v, size_t *vlen)
{
    struct spot s;
    struct om_elem e;
    if (!locate(m, f, flen, &s))
        return 0;
    elem_decode(m, s.c, s.off, &e);
    *v = e.v;
    *vlen = e.vlen;
    return 1;
}

size_t om_len(const struct omap *m)
{
    return total_of(m->tree.rb_node);
}

int om_seek(const struct omap *m, size_t k, struct om_it *it)
{
    struct rb_node *rb = m->tree.rb_node;
    it->rank = k;
    while (rb) {
        struct om_chunk *c = chunk_of(rb);
        size_t left = total_of(rb->rb_left);
        if (k < left) {
            rb = rb->rb_left;
        } else if (k < left + c->n) {
            it->c = c;
            it->idx = 0;
            it->off = 0;
            it->end = 0;
            for (k -= left; it->idx < k; it->idx++)
                it->off = elem_skip(m, c, it->off);
            return 0;
        } else {
            k -= left + c->n;
            rb = rb->rb_right;
        }
    }
    it->c = NULL;
    return -1;
}

void om_it_get(const struct omap *m, struct om_it *it, struct om_elem *e)
{
    it->end = elem_decode(m, it->c, it->off, e);
}

void om_next(const struct omap *m, struct om_it *it)
{
    it->rank++;
    if (it->idx + 1 < it->c->n) {
        it->off = it->end ? it->end : elem_skip(m, it->c, it->off);
        it->end = 0;
        it->idx++;
        return;
    }
    it->end = 0;
    it->c = chunk_of(rb_next(&it->c->rb));
    it->idx = 0;
    it->off = 0;
}

void om_prev(const struct omap *m, struct om_it *it)
{
    uint32_t want;
    it->rank--;
    if (it->idx > 0) {
        want = it->idx - 1;
    } else {
        it->c = chunk_of(rb_prev(&it->c->rb));
        if (!it->c)
            return;
        want = it->c->n - 1;
    }
    it->idx = 0;
    it->off = 0;
    it->end = 0;
    for (; it->idx < want; it->idx++)
        it->off = elem_skip(m, it->c, it->off);
}

size_t om_count_before(const struct omap *m, const char *f, size_t flen, int inclusive)
{
    struct spot s;
    int found = locate(m, f, flen, &s);
    return s.rank + (size_t)(found && inclusive);
}

static size_t lower_pos(const struct omap *m, const struct lex_bound *b)
{
    switch (b->kind) {
    case LEX_BOUND_NEG_INF:
        return 0;
    case LEX_BOUND_POS_INF:
        return om_len(m);
    case LEX_BOUND_INCL:
        return om_count_before(m, b->ptr, b->len, 0);
    case LEX_BOUND_EXCL:
        break;
    }
    return om_count_before(m, b->ptr, b->len, 1);
}

static size_t upper_pos(const struct omap *m, const struct lex_bound *b)
{
    switch (b->kind) {
    case LEX_BOUND_NEG_INF:
        return 0;
    case LEX_BOUND_POS_INF:
        return om_len(m);
    case LEX_BOUND_INCL:
        return om_count_before(m, b->ptr, b->len, 1);
    case LEX_BOUND_EXCL:
        break;
    }
    return om_count_before(m, b->ptr, b->len, 0);
}

struct om_span om_lex_span(const struct omap *m, const struct lex_bound *min,
                           const struct lex_bound *max)
{
    struct om_span s = {lower_pos(m, min), upper_pos(m, max)};
    if (s.hi < s.lo)
        s.hi = s.lo;
    return s;
}

struct om_span om_prefix_span(const struct omap *m, const char *p, size_t plen)
{
    struct om_span s = {om_count_before(m, p, plen, 0), om_len(m)};
    size_t n = plen;

    /* The least string above everything with the prefix: drop trailing 0xff
     * bytes and add one to the last; none left means no upper bound. */
    while (n && (unsigned char)p[n - 1] == 0xff)
        n--;
    if (n) {
        char *up = xmalloc(n);
        memcpy(up, p, n);
        up[n - 1] = (char)((unsigned char)up[n - 1] + 1);
        s.hi = om_count_before(m, up, n, 0);
        xfree(up);
    }
    return s;
}

/* ---- encodings ---------------------------------------------------------- */

static int fits_packed(const struct omap *m, size_t count, const struct om_limits *lim)
{
    if (!m->values && m->allint)
        return count <= (lim->int_entries > lim->entries ? lim->int_entries : lim->entries);
    return count <= lim->entries;
}

/* Frees up to budget chunks of the tree, post-order without recursion: a
 * chunk goes once both its sides are gone (an in-order walk would climb
 * through freed parents), so a later call resumes from the root. Returns
 * how many it freed; root is empty once all are. */
static size_t free_chunks(struct rb_root *root, size_t budget)
{
    struct rb_node *rb = root->rb_node;
    size_t freed = 0;

    while (rb && freed < budget) {
        if (rb->rb_left) {
            rb = rb->rb_left;
        } else if (rb->rb_right) {
            rb = rb->rb_right;
        } else {
            struct rb_node *parent = rb_parent(rb);
            if (!parent)
                root->rb_node = NULL;
            else if (parent->rb_left == rb)
                parent->rb_left = NULL;
            else
                parent->rb_right = NULL;
            xfree(chunk_of(rb));
            freed++;
            rb = parent;
        }
    }
    return freed;
}

/* Lays every element out again: in one chunk (packed) or in tree chunks
 * three quarters full, so the next inserts do not split at once. O(bytes). */
static void rebuild(struct omap *m, int packed)
{
    struct rb_root old = m->tree;
    struct omap src = *m;
    struct om_chunk *cur = NULL, *last = NULL;
    size_t bytes = 0;

    m->tree = RB_ROOT;
    m->packed = (uint8_t)packed;
    if (packed) {
        for (struct om_chunk *c = chunk_of(rb_first(&old)); c; c = chunk_of(rb_next(&c->rb)))
            bytes += c->used;
        cur = chunk_new(bytes);
    }
    for (struct om_chunk *c = chunk_of(rb_first(&old)); c; c = chunk_of(rb_next(&c->rb))) {
        uint32_t off = 0;
        for (uint32_t i = 0; i < c->n; i++) {
            uint32_t next = elem_skip(&src, c, off), len = next - off;
            if (!packed && (!cur || cur->n >= OM_CHUNK_ENTRIES * 3 / 4 ||
                            (cur->n > 0 && cur->used + len > OM_CHUNK_BYTES * 3 / 4))) {
                if (cur) {
                    cur = chunk_fit(cur);
                    chunk_link_after(m, last, cur);
                    last = cur;
                }
                cur = chunk_new(len > OM_CHUNK_BYTES ? len : OM_CHUNK_BYTES);
            }
            memcpy(cur->data + cur->used, c->data + off, len);
            cur->used += len;
            cur->n++;
            off = next;
        }
    }
    if (cur && cur->n)
        chunk_link_after(m, last, packed ? cur : chunk_fit(cur));
    else
        xfree(cur);
    free_chunks(&old, SIZE_MAX);
}

/* After a write grew c by the element (of those lengths) at index idx:
 * converts a packed map past its limits, or splits a tree chunk past its
 * bounds. */
static void after_grow(struct omap *m, struct om_chunk *c, uint32_t at, size_t flen, size_t vlen,
                       const struct om_limits *lim)
{
    if (m->packed) {
        if (flen > lim->value || vlen > lim->value || !fits_packed(m, om_len(m), lim))
            rebuild(m, 0);
        return;
    }
    if (c->n <= OM_CHUNK_ENTRIES && (c->used <= OM_CHUNK_BYTES || c->n == 1))
        return;
    /* An append to the last chunk (elements inserted in order) starts a new
     * chunk with it, so chunks filled in order stay full; any other split
     * is at the middle byte, or the middle element when there are many small
     * ones, with one element at least on each side. */
    uint32_t off = 0, idx = 0;
    int append = at == c->n - 1 && at > 0 && !rb_next(&c->rb);
    if (append) {
        for (; idx < at; idx++)
            off = elem_skip(m, c, off);
    } else {
        while (idx < c->n - 1 && (idx == 0 || off < c->used / 2)) {
            off = elem_skip(m, c, off);
            idx++;
        }
        if (c->n > OM_CHUNK_ENTRIES && idx > c->n / 2) {
            off = 0;
            for (idx = 0; idx < c->n / 2; idx++)
                off = elem_skip(m, c, off);
        }
    }
    size_t tail = c->used - off;
    size_t cap = append ? OM_CHUNK_BYTES : tail + tail / 4;
    struct om_chunk *nc = chunk_new(cap > tail ? cap : tail);
    memcpy(nc->data, c->data + off, tail);
    nc->used = (uint32_t)tail;
    nc->n = c->n - idx;
    totals_add(c, -(long)nc->n);
    c->n = idx;
    c->used = off;
    chunk_link_after(m, c, nc);
    /* The left part keeps a quarter for growth; after an append it is
     * complete (elements come in order), so it keeps none. */
    size_t keep = append ? c->used : c->used + c->used / 4;
    if (chunk_cap(c) >= keep + 16)
        chunk_move(m, c, keep);
}

/* After a delete shrank c (or emptied it): frees an empty chunk, merges a
 * small one into a neighbour, converts a small enough map back to packed. */
static void after_shrink(struct omap *m, struct om_chunk *c, const struct om_limits *lim)
{
    if (c->n == 0) {
        chunk_unlink_free(m, c);
        if (!m->tree.rb_node) {
            m->packed = 1;
            m->allint = (uint8_t)!m->values;
        }
        return;
    }
    if (m->packed) {
        chunk_shrink(m, c);
        return;
    }
    size_t len = om_len(m);
    if (len <= lim->entries / 2) {
        int fits = 1, allint = 1;
        for (struct om_chunk *k = first_chunk(m); k && fits; k = chunk_of(rb_next(&k->rb))) {
            uint32_t off = 0;
            struct om_elem e;
            for (uint32_t i = 0; i < k->n; i++) {
                off = elem_decode(m, k, off, &e);
                fits = fits && e.flen <= lim->value && e.vlen <= lim->value;
                allint = allint && !m->values && is_integer(e.f, e.flen);
            }
        }
        if (fits) {
            m->allint = (uint8_t)allint;
            rebuild(m, 1);
            return;
        }
    }
    if (c->n >= OM_CHUNK_ENTRIES / 4 || c->used >= OM_CHUNK_BYTES / 4) {
        chunk_shrink(m, c);
        return;
    }
    struct om_chunk *next = chunk_of(rb_next(&c->rb)), *prev = chunk_of(rb_prev(&c->rb));
    struct om_chunk *into = NULL, *from = NULL;
    if (next && c->n + next->n <= OM_CHUNK_ENTRIES * 3 / 4 &&
        c->used + next->used <= OM_CHUNK_BYTES * 3 / 4) {
        into = c;
        from = next;
    } else if (prev && c->n + prev->n <= OM_CHUNK_ENTRIES * 3 / 4 &&
               c->used + prev->used <= OM_CHUNK_BYTES * 3 / 4) {
        into = prev;
        from = c;
    }
    if (!into) {
        chunk_shrink(m, c);
        return;
    }
    uint32_t moved = from->n;
    into = chunk_reserve(m, into, (size_t)into->used + from->used);
    memcpy(into->data + into->used, from->data, from->used);
    into->used += from->used;
    into->n += moved;
    totals_add(into, (long)moved);
    /* from's elements are now counted twice on the shared path; erasing it
     * recomputes every total above it from the children. */
    from->n = 0;
    totals_add(from, -(long)moved);
    chunk_unlink_free(m, from);
}

/* ---- writes ------------------------------------------------------------- */

static int put(struct omap *m, const char *f, size_t flen, const char *v, size_t vlen,
               const struct om_limits *lim, int replace)
{
    struct spot s;
    int found = locate(m, f, flen, &s);
    size_t size = elem_size(m, flen, vlen);
    struct om_chunk *c = s.c;

    if (found) {
        if (!replace || !m->values)
            return 0;
        uint32_t end = elem_skip(m, c, s.off), old = end - s.off;
        if (size > old)
            c = chunk_reserve(m, c, (size_t)c->used + (size - old));
        memmove(c->data + s.off + size, c->data + end, c->used - end);
        elem_encode(m, c->data + s.off, f, flen, v, vlen);
        c->used = (uint32_t)(c->used + size - old);
        if (size > old)
            after_grow(m, c, s.idx, flen, vlen, lim);
        else if (size < old)
            chunk_shrink(m, c);
        return 0;
    }
    if (!c) { /* empty map */
        c = chunk_new(m->packed ? size : OM_CHUNK_BYTES);
        chunk_link_after(m, NULL, c);
    }
    c = chunk_reserve(m, c, (size_t)c->used + size);
    memmove(c->data + s.off + size, c->data + s.off, c->used - s.off);
    elem_encode(m, c->data + s.off, f, flen, v, vlen);
    c->used += (uint32_t)size;
    c->n++;
    totals_add(c, 1);
    if (!m->values && m->allint && !is_integer(f, flen))
        m->allint = 0;
    after_grow(m, c, s.idx, flen, vlen, lim);
    return 1;
}

int om_set(struct omap *m, const char *f, size_t flen, const char *v, size_t vlen,
           const struct om_limits *lim)
{
    return put(m, f, flen, v, vlen, lim, 1);
}

int om_add(struct omap *m, const char *f, size_t flen, const char *v, size_t vlen,
           const struct om_limits *lim)
{
    return put(m, f, flen, v, vlen, lim, 0);
}

void om_append(struct omap *m, const char *f, size_t flen, const char *v, size_t vlen,
               const struct om_limits *lim)
{
    size_t size = elem_size(m, flen, vlen);
    struct om_chunk *c = chunk_of(rb_last(&m->tree));

    if (!c) {
        c = chunk_new(m->packed ? size : OM_CHUNK_BYTES);
        chunk_link_after(m, NULL, c);
    }
    c = chunk_reserve(m, c, (size_t)c->used + size);
    elem_encode(m, c->data + c->used, f, flen, v, vlen);
    c->used += (uint32_t)size;
    c->n++;
    totals_add(c, 1);
    if (!m->values && m->allint && !is_integer(f, flen))
        m->allint = 0;
    after_grow(m, c, c->n - 1, flen, vlen, lim);
}

int om_del(struct omap *m, const char *f, size_t flen, const struct om_limits *lim)
{
    struct spot s;
    if (!locate(m, f, flen, &s))
        return 0;
    struct om_chunk *c = s.c;
    uint32_t end = elem_skip(m, c, s.off);
    memmove(c->data + s.off, c->data + end, c->used - end);
    c->used -= end - s.off;
    c->n--;
    totals_add(c, -1);
    after_shrink(m, c, lim);
    return 1;
}

void om_del_span(struct omap *m, size_t lo, size_t hi, const struct om_limits *lim)
{
    struct om_it it;
    while (hi > lo && om_seek(m, lo, &it) == 0) {
        struct om_chunk *c = it.c;
        uint32_t k = (uint32_t)((hi - lo) < (size_t)(c->n - it.idx) ? hi - lo : c->n - it.idx);
        uint32_t end = it.off;
        for (uint32_t i = 0; i < k; i++)
            end = elem_skip(m, c, end);
        memmove(c->data + it.off, c->data + end, c->used - end);
        c->used -= end - it.off;
        c->n -= k;
        totals_add(c, -(long)k);
        hi -= k;
        after_shrink(m, c, lim);
    }
}

/* ---- whole maps --------------------------------------------------------- */

struct omap *om_new(int values)
{
    struct omap *m = xmalloc(sizeof(*m));
    m->tree = RB_ROOT;
    m->values = (uint8_t)(values != 0);
    m->packed = 1;
    m->allint = (uint8_t)!values;
    return m;
}

void om_free(struct omap *m)
{
    if (!m)
        return;
    free_chunks(&m->tree, SIZE_MAX);
    xfree(m);
}

int om_free_some(struct omap *m, size_t budget)
{
    free_chunks(&m->tree, budget);
    if (m->tree.rb_node)
        return 0;
    xfree(m);
    return 1;
}

struct omap *om_clone(const struct omap *m)
{
    struct omap *copy = xmalloc(sizeof(*copy));
    struct om_chunk *last = NULL;
    *copy = *m;
    copy->tree = RB_ROOT;
    for (struct om_chunk *c = first_chunk(m); c; c = chunk_of(rb_next(&c->rb))) {
        struct om_chunk *nc = chunk_new(c->used);
        memcpy(nc->data, c->data, c->used);
        nc->n = c->n;
        nc->used = c->used;
        chunk_link_after(copy, last, nc);
        last = nc;
    }
    return copy;
}

size_t om_memory(const struct omap *m)
{
    size_t bytes = xsize(m);
    for (struct om_chunk *c = first_chunk(m); c; c = chunk_of(rb_next(&c->rb)))
        bytes += xsize(c);
    return bytes;
}

const char *om_encoding(const struct omap *m)
{
    if (!m->packed)
        return "rbtree";
    return !m->values && m->allint ? "intset" : "listpack";
}

static int check_totals(const struct rb_node *rb, const char **why)
{
    if (!rb)
        return 0;
    if (check_totals(rb->rb_left, why) < 0 || check_totals(rb->rb_right, why) < 0)
        return -1;
    const struct om_chunk *c = chunk_of(rb);
    if (c->total != c->n + total_of(rb->rb_left) + total_of(rb->rb_right)) {
        *why = "a chunk's total is not its subtree's element count";
        return -1;
    }
    return 0;
}

int om_check(const struct omap *m, const char **why)
{
    struct om_elem prev = {0}, e;
    size_t count = 0, chunks = 0;
    int have_prev = 0, allint = 1;

    for (struct om_chunk *c = first_chunk(m); c; c = chunk_of(rb_next(&c->rb))) {
        uint32_t off = 0;
        chunks++;
        if (c->n == 0) {
            *why = "an empty chunk";
            return -1;
        }
        if (c->used > chunk_cap(c)) {
            *why = "a chunk uses more bytes than it has";
            return -1;
        }
        for (uint32_t i = 0; i < c->n; i++) {
            if (off >= c->used) {
                *why = "a chunk holds fewer elements than it counts";
                return -1;
            }
            off = elem_decode(m, c, off, &e);
            if (have_prev && bytes_cmp(prev.f, prev.flen, e.f, e.flen) >= 0) {
                *why = "elements out of order";
                return -1;
            }
            allint = allint && is_integer(e.f, e.flen);
            prev = e;
            have_prev = 1;
            count++;
        }
        if (off != c->used) {
            *why = "a chunk's bytes do not end with its last element";
            return -1;
        }
    }
    if (check_totals(m->tree.rb_node, why) < 0)
        return -1;
    if (count != om_len(m)) {
        *why = "the root's total is not the element count";
        return -1;
    }
    if (m->packed && chunks > 1) {
        *why = "a packed map has more than one chunk";
        return -1;
    }
    if (!m->values && m->allint && !allint) {
        *why = "a set marked all-integer holds another member";
        return -1;
    }
    return 0;
}
