/*
 * omap.c - the ordered map (see omap.h): one packed run in the map's own
 * allocation, or sorted packed chunks in a red-black tree counted by
 * elements (ctree.h, shared with the lists).
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
#include "varint.h"

#define OMAP_HDR offsetof(struct omap, data)

/* ---- the packed format -------------------------------------------------- */

static int bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int r = n ? memcmp(a, b, n) : 0;
    return r ? r : (alen > blen) - (alen < blen);
}

/* Decodes the element at off of a run (a chunk's data, or a packed map's);
 * returns the offset after it. */
static uint32_t elem_decode(const struct omap *m, const char *data, uint32_t off,
                            struct om_elem *e)
{
    const char *p = data + off;
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
    return (uint32_t)(p - data);
}

static uint32_t elem_skip(const struct omap *m, const char *data, uint32_t off)
{
    struct om_elem e;
    return elem_decode(m, data, off, &e);
}

/* The offset of element idx of a run. */
static uint32_t run_offset(const struct omap *m, const char *data, uint32_t idx)
{
    uint32_t off = 0;
    for (uint32_t i = 0; i < idx; i++)
        off = elem_skip(m, data, off);
    return off;
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

/* c with room for need bytes of data, grown by half again so a run of
 * inserts is amortised; may move it. */
static struct ct_chunk *chunk_reserve(struct omap *m, struct ct_chunk *c, size_t need)
{
    size_t cap = ct_cap(c);
    if (need <= cap)
        return c;
    cap += cap / 2;
    return ct_resize(&m->tree, c, cap < need ? need : cap);
}

/* Gives back what c no longer needs once under half full, keeping a quarter
 * for growth. May move it. */
static struct ct_chunk *chunk_shrink(struct omap *m, struct ct_chunk *c)
{
    if (ct_cap(c) <= 2 * (size_t)c->used + 128)
        return c;
    return ct_resize(&m->tree, c, c->used + c->used / 4);
}

/* An unlinked chunk (to_tree's) cut down to its bytes and a quarter more,
 * for the inserts to come. */
static struct ct_chunk *chunk_fit(struct ct_chunk *c)
{
    size_t cap = c->used + c->used / 4;
    return cap + 16 <= ct_cap(c) ? xrealloc(c, CT_HDR + cap) : c;
}

/* ---- the packed run ----------------------------------------------------- */

/* A packed map with room for exactly used bytes of data; may move it. */
static struct omap *packed_resize(struct omap *m, size_t used)
{
    return xrealloc(m, OMAP_HDR + used);
}

/* ---- lookups ------------------------------------------------------------ */

/* Where f is or would go: chunk c (NULL in a packed map), the index and
 * offset in its run (idx == n: after its last element), and the rank.
 * locate returns 1 when f is there. A tree map always has a chunk. */
struct spot {
    struct ct_chunk *c;
    uint32_t idx, off;
    size_t rank;
};

/* Scans a run of n elements for f from rank base; fills s's idx, off and
 * rank. Returns 1 when f is there. */
static int scan_run(const struct omap *m, const char *data, uint32_t n, size_t base,
                    const char *f, size_t flen, struct spot *s)
{
    struct om_elem e;
    s->idx = 0;
    s->off = 0;
    s->rank = base;
    for (uint32_t off = 0; s->idx < n; s->idx++, s->rank++) {
        uint32_t next = elem_decode(m, data, off, &e);
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

static int locate(const struct omap *m, const char *f, size_t flen, struct spot *s)
{
    struct rb_node *rb = m->tree.rb_node;
    struct ct_chunk *cand = NULL;
    size_t before = 0, cand_rank = 0;
    struct om_elem e;

    if (m->packed) {
        s->c = NULL;
        return scan_run(m, m->data, m->n, 0, f, flen, s);
    }
    while (rb) {
        struct ct_chunk *c = ct_of(rb);
        elem_decode(m, c->data, 0, &e);
        if (bytes_cmp(f, flen, e.f, e.flen) < 0) {
            rb = rb->rb_left;
        } else {
            cand = c;
            cand_rank = before + ct_total(rb->rb_left);
            before = cand_rank + c->n;
            rb = rb->rb_right;
        }
    }
    if (!cand) { /* before everything */
        s->c = ct_first(&m->tree);
        s->idx = s->off = 0;
        s->rank = 0;
        return 0;
    }
    s->c = cand;
    return scan_run(m, cand->data, cand->n, cand_rank, f, flen, s);
}

/* Points it at chunk c's element idx (offset off), or, c being NULL, at the
 * packed run's; past the run's end it moves to the next chunk's first. */
static void it_set(const struct omap *m, struct om_it *it, struct ct_chunk *c, uint32_t idx,
                   uint32_t off, size_t rank)
{
    it->c = c;
    it->data = c ? c->data : m->data;
    it->n = c ? c->n : m->n;
    it->idx = idx;
    it->off = off;
    it->end = 0;
    it->rank = rank;
    if (idx < it->n)
        return;
    it->c = c ? ct_next(c) : NULL;
    it->data = it->c ? it->c->data : NULL;
    it->n = it->c ? it->c->n : 0;
    it->idx = it->off = 0;
}

int om_find(const struct omap *m, const char *f, size_t flen, struct om_it *it)
{
    struct spot s;
    int found = locate(m, f, flen, &s);
    it_set(m, it, s.c, s.idx, s.off, s.rank);
    return found;
}

int om_get(const struct omap *m, const char *f, size_t flen, const char **v, size_t *vlen)
{
    struct spot s;
    struct om_elem e;
    if (!locate(m, f, flen, &s))
        return 0;
    elem_decode(m, s.c ? s.c->data : m->data, s.off, &e);
    *v = e.v;
    *vlen = e.vlen;
    return 1;
}

size_t om_len(const struct omap *m)
{
    return m->packed ? m->n : ct_total(m->tree.rb_node);
}

int om_seek(const struct omap *m, size_t k, struct om_it *it)
{
    uint32_t idx;

    if (m->packed) {
        if (k >= m->n) {
            it->data = NULL;
            return -1;
        }
        it_set(m, it, NULL, (uint32_t)k, run_offset(m, m->data, (uint32_t)k), k);
        return 0;
    }
    struct ct_chunk *c = ct_select(&m->tree, k, &idx);
    if (!c) {
        it->data = NULL;
        return -1;
    }
    it_set(m, it, c, idx, run_offset(m, c->data, idx), k);
    return 0;
}

void om_it_get(const struct omap *m, struct om_it *it, struct om_elem *e)
{
    it->end = elem_decode(m, it->data, it->off, e);
}

void om_next(const struct omap *m, struct om_it *it)
{
    uint32_t off = it->end ? it->end : elem_skip(m, it->data, it->off);
    it_set(m, it, it->c, it->idx + 1, off, it->rank + 1);
}

void om_prev(const struct omap *m, struct om_it *it)
{
    struct ct_chunk *c = it->c;
    uint32_t idx;

    if (it->idx > 0) {
        idx = it->idx - 1;
    } else {
        c = c ? ct_prev(c) : NULL;
        if (!c) {
            it->data = NULL;
            return;
        }
        idx = c->n - 1;
    }
    it_set(m, it, c, idx, run_offset(m, c ? c->data : m->data, idx), it->rank - 1);
}

size_t om_count_before(const struct omap *m, const char *f, size_t flen, int inclusive)
{
    struct spot s;
    int found = locate(m, f, flen, &s);
    return s.rank + (size_t)(found && inclusive);
}

/* The position where a lex bound puts the span's start (lower) or end (upper):
 * an inclusive bound keeps its own field, so a lower one starts before it and
 * an upper one ends after it; an exclusive one the other way round. */
static size_t bound_pos(const struct omap *m, const struct lex_bound *b, int upper)
{
    switch (b->kind) {
    case LEX_BOUND_NEG_INF:
        return 0;
    case LEX_BOUND_POS_INF:
        return om_len(m);
    case LEX_BOUND_INCL:
        return om_count_before(m, b->ptr, b->len, upper);
    case LEX_BOUND_EXCL:
        break;
    }
    return om_count_before(m, b->ptr, b->len, !upper);
}

struct om_span om_lex_span(const struct omap *m, const struct lex_bound *min,
                           const struct lex_bound *max)
{
    struct om_span s = {bound_pos(m, min, 0), bound_pos(m, max, 1)};
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

/* A tree map packed into its own allocation. O(bytes). */
static struct omap *to_packed(struct omap *m)
{
    size_t bytes = 0;
    for (struct ct_chunk *c = ct_first(&m->tree); c; c = ct_next(c))
        bytes += c->used;
    struct omap *p = xmalloc(OMAP_HDR + bytes);
    memcpy(p, m, OMAP_HDR); /* the struct's size has padding the header lacks */
    p->tree = RB_ROOT;
    p->packed = 1;
    p->n = p->used = 0;
    for (struct ct_chunk *c = ct_first(&m->tree); c; c = ct_next(c)) {
        memcpy(p->data + p->used, c->data, c->used);
        p->used += c->used;
        p->n += c->n;
    }
    ct_free_some(&m->tree, SIZE_MAX);
    xfree(m);
    return p;
}

/* A packed map laid out in tree chunks three quarters full, so the next
 * inserts do not split at once. O(bytes). */
static struct omap *to_tree(struct omap *m)
{
    struct ct_chunk *cur = NULL, *last = NULL;
    uint32_t off = 0;

    m->packed = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        uint32_t next = elem_skip(m, m->data, off), len = next - off;
        if (!cur || cur->n >= OM_CHUNK_ENTRIES * 3 / 4 ||
            (cur->n > 0 && cur->used + len > OM_CHUNK_BYTES * 3 / 4)) {
            if (cur) {
                cur = chunk_fit(cur);
                ct_link_after(&m->tree, last, cur);
                last = cur;
            }
            cur = ct_new(len > OM_CHUNK_BYTES ? len : OM_CHUNK_BYTES);
        }
        memcpy(cur->data + cur->used, m->data + off, len);
        cur->used += len;
        cur->n++;
        off = next;
    }
    if (cur)
        ct_link_after(&m->tree, last, chunk_fit(cur));
    m->n = m->used = 0;
    /* The root moves with the struct: no node points back at it. */
    return xrealloc(m, OMAP_HDR);
}

/* After a write grew tree chunk c by the element at index at: splits c when
 * it is past its bounds. */
static void split_if_big(struct omap *m, struct ct_chunk *c, uint32_t at)
{
    if (c->n <= OM_CHUNK_ENTRIES && (c->used <= OM_CHUNK_BYTES || c->n == 1))
        return;
    /* An append to the last chunk (elements inserted in order) starts a new
     * chunk with it, so chunks filled in order stay full; any other split
     * is at the middle byte, or the middle element when there are many small
     * ones, with one element at least on each side. */
    uint32_t off = 0, idx = 0;
    int append = at == c->n - 1 && at > 0 && !ct_next(c);
    if (append) {
        idx = at;
        off = run_offset(m, c->data, at);
    } else {
        while (idx < c->n - 1 && (idx == 0 || off < c->used / 2)) {
            off = elem_skip(m, c->data, off);
            idx++;
        }
        if (c->n > OM_CHUNK_ENTRIES && idx > c->n / 2) {
            idx = c->n / 2;
            off = run_offset(m, c->data, idx);
        }
    }
    size_t tail = c->used - off;
    size_t cap = append ? OM_CHUNK_BYTES : tail + tail / 4;
    struct ct_chunk *nc = ct_new(cap > tail ? cap : tail);
    memcpy(nc->data, c->data + off, tail);
    nc->used = (uint32_t)tail;
    nc->n = c->n - idx;
    ct_totals_add(c, -(long)nc->n);
    c->n = idx;
    c->used = off;
    ct_link_after(&m->tree, c, nc);
    /* The left part keeps a quarter for growth; after an append it is
     * complete (elements come in order), so it keeps none. */
    size_t keep = append ? c->used : c->used + c->used / 4;
    if (ct_cap(c) >= keep + 16)
        ct_resize(&m->tree, c, keep);
}

/* After a write added an element (of those lengths) to a packed map:
 * converts it to the tree past its limits. */
static struct omap *packed_after_grow(struct omap *m, size_t flen, size_t vlen,
                                      const struct om_limits *lim)
{
    if (flen > lim->value || vlen > lim->value || !fits_packed(m, m->n, lim))
        return to_tree(m);
    return m;
}

/* After a delete shrank tree chunk c (or emptied it; NULL when a cut took
 * whole chunks only): frees an empty chunk, packs a small enough map again,
 * or merges a small chunk into a neighbour. Returns the map, which may have
 * moved. */
static struct omap *tree_after_shrink(struct omap *m, struct ct_chunk *c,
                                      const struct om_limits *lim)
{
    if (c && c->n == 0) {
        ct_unlink_free(&m->tree, c);
        c = NULL;
    }
    if (!m->tree.rb_node) { /* empty: packed again, with nothing in it */
        m->packed = 1;
        m->allint = (uint8_t)!m->values;
        return m;
    }
    if (om_len(m) <= lim->entries / 2) {
        int fits = 1, allint = !m->values;
        for (struct ct_chunk *k = ct_first(&m->tree); k && fits; k = ct_next(k)) {
            uint32_t off = 0;
            struct om_elem e;
            for (uint32_t i = 0; i < k->n; i++) {
                off = elem_decode(m, k->data, off, &e);
                fits = fits && e.flen <= lim->value && e.vlen <= lim->value;
                allint = allint && is_integer(e.f, e.flen);
            }
        }
        if (fits) {
            m->allint = (uint8_t)allint;
            return to_packed(m);
        }
    }
    if (!c)
        return m;
    if (c->n >= OM_CHUNK_ENTRIES / 4 || c->used >= OM_CHUNK_BYTES / 4) {
        chunk_shrink(m, c);
        return m;
    }
    struct ct_chunk *next = ct_next(c), *prev = ct_prev(c);
    struct ct_chunk *into = NULL, *from = NULL;
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
        return m;
    }
    uint32_t moved = from->n;
    into = chunk_reserve(m, into, (size_t)into->used + from->used);
    memcpy(into->data + into->used, from->data, from->used);
    into->used += from->used;
    into->n += moved;
    ct_totals_add(into, (long)moved);
    /* from's elements are now counted twice on the shared path; erasing it
     * recomputes every total above it from the children. */
    from->n = 0;
    ct_totals_add(from, -(long)moved);
    ct_unlink_free(&m->tree, from);
    return m;
}

/* ---- writes ------------------------------------------------------------- */

/* Makes room for size bytes at offset off of a run (the packed map's, or
 * tree chunk *c's) that already uses used bytes, moving the tail; returns
 * where they go. May move the map or the chunk (both updated). */
static char *run_open(struct omap **mp, struct ct_chunk **c, uint32_t off, size_t size)
{
    char *data;
    uint32_t used;
    if (*c) {
        *c = chunk_reserve(*mp, *c, (size_t)(*c)->used + size);
        data = (*c)->data;
        used = (*c)->used;
        (*c)->used += (uint32_t)size;
    } else {
        *mp = packed_resize(*mp, (size_t)(*mp)->used + size);
        data = (*mp)->data;
        used = (*mp)->used;
        (*mp)->used += (uint32_t)size;
    }
    memmove(data + off + size, data + off, used - off);
    return data + off;
}

/* Removes size bytes at offset off of a run, moving the tail; a packed map
 * gives them back (may move). */
static void run_close(struct omap **mp, struct ct_chunk *c, uint32_t off, size_t size)
{
    char *data = c ? c->data : (*mp)->data;
    uint32_t *used = c ? &c->used : &(*mp)->used;
    memmove(data + off, data + off + size, *used - off - size);
    *used -= (uint32_t)size;
    if (!c)
        *mp = packed_resize(*mp, *used);
}

/* Counts n elements more (or fewer) in the run. */
static void run_count(struct omap *m, struct ct_chunk *c, long n)
{
    if (c) {
        c->n = (uint32_t)((long)c->n + n);
        ct_totals_add(c, n);
    } else {
        m->n = (uint32_t)((long)m->n + n);
    }
}

static int put(struct omap **mp, const char *f, size_t flen, const char *v, size_t vlen,
               const struct om_limits *lim, int replace)
{
    struct omap *m = *mp;
    struct spot s;
    int found = locate(m, f, flen, &s);
    size_t size = elem_size(m, flen, vlen);
    struct ct_chunk *c = s.c;

    if (found) {
        if (!replace || !m->values)
            return 0;
        uint32_t old = elem_skip(m, c ? c->data : m->data, s.off) - s.off;
        if (size > old)
            run_open(mp, &c, s.off, size - old);
        else if (size < old)
            run_close(mp, c, s.off, old - size);
        m = *mp;
        elem_encode(m, (c ? c->data : m->data) + s.off, f, flen, v, vlen);
        if (c && size > old)
            split_if_big(m, c, s.idx);
        else if (c && size < old)
            chunk_shrink(m, c);
        else if (!c && size > old)
            *mp = packed_after_grow(m, flen, vlen, lim);
        return 0;
    }
    char *at = run_open(mp, &c, s.off, size); /* may move m */
    m = *mp;
    elem_encode(m, at, f, flen, v, vlen);
    run_count(m, c, 1);
    if (!m->values && m->allint && !is_integer(f, flen))
        m->allint = 0;
    if (c)
        split_if_big(m, c, s.idx);
    else
        *mp = packed_after_grow(m, flen, vlen, lim);
    return 1;
}

int om_set(struct omap **mp, const char *f, size_t flen, const char *v, size_t vlen,
           const struct om_limits *lim)
{
    return put(mp, f, flen, v, vlen, lim, 1);
}

int om_add(struct omap **mp, const char *f, size_t flen, const char *v, size_t vlen,
           const struct om_limits *lim)
{
    return put(mp, f, flen, v, vlen, lim, 0);
}

void om_append(struct omap **mp, const char *f, size_t flen, const char *v, size_t vlen,
               const struct om_limits *lim)
{
    struct omap *m = *mp;
    size_t size = elem_size(m, flen, vlen);
    struct ct_chunk *c = m->packed ? NULL : ct_of(rb_last(&m->tree));
    uint32_t at = c ? c->n : m->n;

    char *dst = run_open(mp, &c, c ? c->used : m->used, size); /* may move m */
    m = *mp;
    elem_encode(m, dst, f, flen, v, vlen);
    run_count(m, c, 1);
    if (!m->values && m->allint && !is_integer(f, flen))
        m->allint = 0;
    if (c)
        split_if_big(m, c, at);
    else
        *mp = packed_after_grow(m, flen, vlen, lim);
}

int om_del(struct omap **mp, const char *f, size_t flen, const struct om_limits *lim)
{
    struct spot s;
    struct omap *m = *mp;
    if (!locate(m, f, flen, &s))
        return 0;
    uint32_t size = elem_skip(m, s.c ? s.c->data : m->data, s.off) - s.off;
    run_close(mp, s.c, s.off, size);
    run_count(*mp, s.c, -1);
    if (s.c)
        *mp = tree_after_shrink(*mp, s.c, lim);
    return 1;
}

void om_del_span(struct omap **mp, size_t lo, size_t hi, const struct om_limits *lim)
{
    struct om_it it;
    while (hi > lo && om_seek(*mp, lo, &it) == 0) {
        uint32_t k = (uint32_t)((hi - lo) < (size_t)(it.n - it.idx) ? hi - lo : it.n - it.idx);
        uint32_t end = it.off;
        for (uint32_t i = 0; i < k; i++)
            end = elem_skip(*mp, it.data, end);
        run_close(mp, it.c, it.off, end - it.off);
        run_count(*mp, it.c, -(long)k);
        hi -= k;
        if (it.c)
            *mp = tree_after_shrink(*mp, it.c, lim);
    }
}

/* The whole chunks of [lo, hi) are those after the one holding lo (from it
 * when lo is its first element) up to the one holding hi - 1 (to it when
 * hi - 1 is its last); [a, b) are their positions. What is left of the span
 * once they are gone, [lo, hi - (b - a)), is at most the two partial
 * chunks, deleted in place; a cut that takes no partial chunk still lets
 * tree_after_shrink pack a map left small, as om_del_span would. */
struct omap *om_cut_span(struct omap **mp, size_t lo, size_t hi, const struct om_limits *lim)
{
    struct omap *m = *mp;
    uint32_t ilo, ihi;

    if (m->packed || hi <= lo || hi > om_len(m) || hi - lo < OM_CUT_MIN) {
        om_del_span(mp, lo, hi, lim);
        return NULL;
    }
    struct ct_chunk *cl = ct_select(&m->tree, lo, &ilo);
    struct ct_chunk *ch = ct_select(&m->tree, hi - 1, &ihi);
    size_t a = ilo ? lo - ilo + cl->n : lo;
    size_t b = ihi + 1 == ch->n ? hi : hi - 1 - ihi;
    if (b < a + OM_CUT_MIN) {
        om_del_span(mp, lo, hi, lim);
        return NULL;
    }
    struct ct_chunk *first = ilo ? ct_next(cl) : cl;
    struct ct_chunk *last = ihi + 1 == ch->n ? ch : ct_prev(ch);
    struct omap *out = xmalloc(OMAP_HDR);
    memcpy(out, m, OMAP_HDR);
    out->tree = RB_ROOT;
    ct_cut(&m->tree, first, last, &out->tree);
    hi -= b - a;
    if (hi > lo)
        om_del_span(mp, lo, hi, lim);
    else
        *mp = tree_after_shrink(m, NULL, lim);
    return out;
}

/* ---- whole maps --------------------------------------------------------- */

struct omap *om_new(int values)
{
    struct omap *m = xmalloc(OMAP_HDR);
    m->tree = RB_ROOT;
    m->n = m->used = 0;
    m->values = (uint8_t)(values != 0);
    m->packed = 1;
    m->allint = (uint8_t)!values;
    return m;
}

void om_free(struct omap *m)
{
    if (!m)
        return;
    ct_free_some(&m->tree, SIZE_MAX);
    xfree(m);
}

size_t om_free_effort(const struct omap *m)
{
    return m->packed ? 1 : 1 + om_len(m) / OM_CHUNK_ENTRIES;
}

struct omap *om_clone(const struct omap *m)
{
    struct omap *copy = xmalloc(OMAP_HDR + m->used);
    memcpy(copy, m, OMAP_HDR + m->used);
    copy->tree = RB_ROOT;
    ct_clone(&copy->tree, &m->tree);
    return copy;
}

size_t om_memory(const struct omap *m)
{
    return xsize(m) + ct_memory(&m->tree);
}

size_t om_memory_sampled(const struct omap *m, size_t samples)
{
    if (m->packed || samples == 0)
        return om_memory(m);
    return xsize(m) + ct_memory_sampled(&m->tree, samples);
}

const char *om_encoding(const struct omap *m)
{
    if (!m->packed)
        return "rbtree";
    return !m->values && m->allint ? "intset" : "listpack";
}

/* Checks one run: its elements decode to exactly used bytes and follow
 * *prev (the last element before, when *have). */
static int check_run(const struct omap *m, const char *data, uint32_t n, uint32_t used,
                     struct om_elem *prev, int *have, int *allint, const char **why)
{
    uint32_t off = 0;
    struct om_elem e;
    for (uint32_t i = 0; i < n; i++) {
        if (off >= used) {
            *why = "a run holds fewer elements than it counts";
            return -1;
        }
        off = elem_decode(m, data, off, &e);
        if (*have && bytes_cmp(prev->f, prev->flen, e.f, e.flen) >= 0) {
            *why = "elements out of order";
            return -1;
        }
        *allint = *allint && is_integer(e.f, e.flen);
        *prev = e;
        *have = 1;
    }
    if (off != used) {
        *why = "a run's bytes do not end with its last element";
        return -1;
    }
    return 0;
}

int om_check(const struct omap *m, const char **why)
{
    struct om_elem prev = {0};
    size_t count = 0;
    int have = 0, allint = 1;

    if (m->packed) {
        if (m->tree.rb_node) {
            *why = "a packed map has chunks";
            return -1;
        }
        if (OMAP_HDR + m->used > xsize(m)) {
            *why = "a packed map uses more bytes than it has";
            return -1;
        }
        if (check_run(m, m->data, m->n, m->used, &prev, &have, &allint, why) < 0)
            return -1;
        count = m->n;
    } else {
        if (!m->tree.rb_node) {
            *why = "a tree map has no chunks";
            return -1;
        }
        for (struct ct_chunk *c = ct_first(&m->tree); c; c = ct_next(c)) {
            if (c->n == 0) {
                *why = "an empty chunk";
                return -1;
            }
            if (c->used > ct_cap(c)) {
                *why = "a chunk uses more bytes than it has";
                return -1;
            }
            if (check_run(m, c->data, c->n, c->used, &prev, &have, &allint, why) < 0)
                return -1;
            count += c->n;
        }
        if (ct_check_totals(&m->tree, why) < 0)
            return -1;
    }
    if (count != om_len(m)) {
        *why = "the element count is not the map's length";
        return -1;
    }
    if (!m->values && m->allint && !allint) {
        *why = "a set marked all-integer holds another member";
        return -1;
    }
    return 0;
}
