/*
 * xstream.c - a stream's entries packed in nodes (see xstream.h for the
 * layout), and the node emulation that makes "~" trim as Redis does.
 *
 * Every entry of a node is found by walking the node from its first entry
 * (the strings carry lengths, not back links), so what touches one entry
 * costs O(B) for nodes of B entries, as a listpack's does in Redis; what
 * reaches a node (rank, select, the node of an ID) is the tree's O(log n).
 */
#include "xstream.h"

#include <string.h>

#include "mem.h"
#include "varint.h"
#include "xgroup.h"

/* IDs are 64-bit and varint.h's numbers are size_t. */
_Static_assert(sizeof(size_t) == sizeof(uint64_t), "size_t must hold a 64-bit ID part");

/* Redis's STREAM_LISTPACK_MAX_SIZE: a node's bytes are capped at 1 GB. */
#define NODE_MAX_BYTES (1ull << 30)
/* A listpack's header and end byte, and the master entry's count, deleted
 * count, field count and terminator. */
#define NODE_OVERHEAD 11
/* Per entry: flags, ms and seq deltas, and the trailing count. */
#define ENTRY_OVERHEAD 4

/* An entry's head varint (xstream.h): the ms delta above two flag bits. */
#define HEAD_BIG 1u    /* the delta follows as its own varint */
#define HEAD_SHARED 2u /* the master's field names: values only follow */
#define HEAD_SHIFT 2
#define BIG_DELTA (UINT64_C(1) << 62)

/* A chunk this much larger than its bytes gives the rest back. */
#define SHRINK_SLACK 256
/* A node grows to the byte (the allocator's size classes round it up, at
 * most an eighth) up to this, then by an eighth more, so a huge node is
 * not copied on every append. */
#define GROW_EXACT 4096

/* A node's header, at the start of its chunk's data; copied in and out,
 * since the data is not aligned. */
struct node_hdr {
    uint64_t ms, seq; /* the master ID */
    uint64_t node;    /* the emulated node's number */
    uint32_t first;   /* offset of the first entry, after the master's names */
    uint32_t last;    /* offset of the last entry */
    uint32_t nfields; /* the master's field count */
};

/* A Redis listpack element's bytes: the string, its header and its back
 * length. */
static uint64_t lp_elem_bytes(size_t len)
{
    return len + (len < 64 ? 2 : len < 4096 ? 4 : 10);
}

static void hdr_get(const struct ct_chunk *c, struct node_hdr *h)
{
    memcpy(h, c->data, sizeof(*h));
}

static void hdr_put(struct ct_chunk *c, const struct node_hdr *h)
{
    memcpy(c->data, h, sizeof(*h));
}

/* The string at p into *out; returns the byte after it. */
static const char *str_at(const char *p, struct xs_str *out)
{
    p += varint_get(p, &out->len);
    out->ptr = p;
    return p + out->len;
}

static const char *skip_strs(const char *p, size_t n)
{
    struct xs_str str;
    while (n--)
        p = str_at(p, &str);
    return p;
}

/* Decodes the entry at off of c (h its header) into *e; returns the offset
 * after it. */
static uint32_t entry_decode(const struct ct_chunk *c, const struct node_hdr *h, uint32_t off,
                             struct xs_entry *e)
{
    const char *p = c->data + off;
    size_t head, dms, seq;
    p += varint_get(p, &head);
    dms = head >> HEAD_SHIFT;
    if (head & HEAD_BIG)
        p += varint_get(p, &dms);
    p += varint_get(p, &seq);
    e->id.ms = h->ms + dms;
    e->id.seq = dms ? seq : h->seq + seq;
    e->node = h->node;
    if (head & HEAD_SHARED) {
        e->nfields = h->nfields;
        e->fields = c->data + sizeof(*h);
    } else {
        p += varint_get(p, &e->nfields);
        e->fields = NULL;
    }
    e->strs = p;
    e->end = skip_strs(p, e->fields ? e->nfields : 2 * e->nfields);
    return (uint32_t)(e->end - c->data);
}

/* The offset k entries after the entry at off. */
static uint32_t skip_entries(const struct ct_chunk *c, const struct node_hdr *h, uint32_t off,
                             size_t k)
{
    struct xs_entry e;
    while (k--)
        off = entry_decode(c, h, off, &e);
    return off;
}

static void node_last_id(const struct ct_chunk *c, struct xs_id *id)
{
    struct node_hdr h;
    struct xs_entry e;
    hdr_get(c, &h);
    entry_decode(c, &h, h.last, &e);
    *id = e.id;
}

/* ---- encoding, into p, or only counting the bytes when p is NULL ------- */

static size_t put_num(char *p, size_t n)
{
    return p ? varint_put(p, n) : varint_size(n);
}

static size_t put_str(char *p, const struct xs_str *s)
{
    size_t k = put_num(p, s->len);
    if (p && s->len)
        memcpy(p + k, s->ptr, s->len);
    return k + s->len;
}

static char *at(char *p, size_t n)
{
    return p ? p + n : NULL;
}

/* An entry of id under a node of header h: its bytes (written at p). */
static size_t entry_encode(char *p, const struct node_hdr *h, const struct xs_id *id, int shared,
                           const struct xs_str *pairs, size_t npairs)
{
    uint64_t dms = id->ms - h->ms;
    unsigned flags = shared ? HEAD_SHARED : 0;
    size_t n;
    if (dms < BIG_DELTA) {
        n = put_num(p, dms << HEAD_SHIFT | flags);
    } else {
        n = put_num(p, flags | HEAD_BIG);
        n += put_num(at(p, n), dms);
    }
    n += put_num(at(p, n), dms ? id->seq : id->seq - h->seq);
    if (!shared)
        n += put_num(at(p, n), npairs);
    for (size_t i = 0; i < 2 * npairs; i++)
        if (!shared || i % 2)
            n += put_str(at(p, n), &pairs[i]);
    return n;
}

/* Whether pairs has the master's field names, in order. */
static int shares_fields(const struct ct_chunk *c, const struct node_hdr *h,
                         const struct xs_str *pairs, size_t npairs)
{
    if (npairs != h->nfields)
        return 0;
    const char *f = c->data + sizeof(*h);
    struct xs_str name;
    for (size_t i = 0; i < npairs; i++) {
        f = str_at(f, &name);
        if (name.len != pairs[2 * i].len || (name.len && memcmp(name.ptr, pairs[2 * i].ptr, name.len)))
            return 0;
    }
    return 1;
}

/* ---- the nodes ---------------------------------------------------------- */

/* A new empty node after `after` (NULL: first), its master id and names
 * pairs' fields, with room for an entry of entry_room bytes. */
static struct ct_chunk *node_new(struct xstream *s, struct ct_chunk *after, const struct xs_id *id,
                                 uint64_t node, const struct xs_str *pairs, size_t npairs,
                                 size_t entry_room)
{
    struct node_hdr h = {.ms = id->ms, .seq = id->seq, .node = node, .nfields = (uint32_t)npairs};
    size_t names = 0;
    for (size_t i = 0; i < npairs; i++)
        names += put_str(NULL, &pairs[2 * i]);
    h.first = h.last = (uint32_t)(sizeof(h) + names);
    struct ct_chunk *c = ct_new(h.first + entry_room);
    hdr_put(c, &h);
    char *p = c->data + sizeof(h);
    for (size_t i = 0; i < npairs; i++)
        p += put_str(p, &pairs[2 * i]);
    c->used = h.first;
    c->n = 0;
    ct_link_after(&s->nodes, after, c);
    s->nnodes++;
    return c;
}

/* Appends an entry to the tail node c (NULL: none) when its number is
 * node, else to a new node after it. */
static void add_entry(struct xstream *s, struct ct_chunk *c, const struct xs_id *id, uint64_t node,
                      const struct xs_str *pairs, size_t npairs)
{
    struct node_hdr h;
    if (c)
        hdr_get(c, &h);
    if (!c || h.node != node) {
        /* The entry shares the names it brings: room for its values. */
        struct node_hdr nh = {.ms = id->ms, .seq = id->seq};
        c = node_new(s, c, id, node, pairs, npairs, entry_encode(NULL, &nh, id, 1, pairs, npairs));
        hdr_get(c, &h);
    }
    int shared = shares_fields(c, &h, pairs, npairs);
    size_t len = entry_encode(NULL, &h, id, shared, pairs, npairs);
    size_t need = c->used + len;
    if (need > ct_cap(c))
        c = ct_resize(&s->nodes, c, need < GROW_EXACT ? need : need + need / 8);
    entry_encode(c->data + c->used, &h, id, shared, pairs, npairs);
    h.last = c->used;
    hdr_put(c, &h);
    c->used = (uint32_t)need;
    c->n++;
    ct_totals_add(c, 1);
}

/* Removes the k entries of c from index idx, bytes [off, end); c goes when
 * they are all it holds. */
static void node_cut(struct xstream *s, struct ct_chunk *c, uint32_t idx, uint32_t off, uint32_t end,
                     uint32_t k)
{
    if (k == c->n) {
        ct_unlink_free(&s->nodes, c);
        s->nnodes--;
        return;
    }
    struct node_hdr h;
    hdr_get(c, &h);
    int tail = idx + k == c->n;
    memmove(c->data + off, c->data + end, c->used - end);
    c->used -= end - off;
    c->n -= k;
    h.last = tail ? skip_entries(c, &h, h.first, idx - 1) : h.last - (end - off);
    hdr_put(c, &h);
    ct_totals_add(c, -(long)k);
    if (ct_cap(c) > 2 * (size_t)c->used + SHRINK_SLACK)
        ct_resize(&s->nodes, c, c->used);
}

/* The last node whose master ID is at most id, with the entries of the
 * nodes before it in *before; NULL when id is below every master. */
static struct ct_chunk *node_find(const struct xstream *s, const struct xs_id *id, size_t *before)
{
    struct rb_node *rb = s->nodes.rb_node;
    struct ct_chunk *best = NULL;
    size_t acc = 0;
    *before = 0;
    while (rb) {
        struct ct_chunk *c = ct_of(rb);
        struct node_hdr h;
        hdr_get(c, &h);
        struct xs_id master = {h.ms, h.seq};
        if (xs_id_cmp(&master, id) <= 0) {
            best = c;
            acc += ct_total(rb->rb_left);
            *before = acc;
            acc += c->n;
            rb = rb->rb_right;
        } else {
            rb = rb->rb_left;
        }
    }
    return best;
}

/* The index of c's first entry at or above id (c->n when none), its bytes
 * [*off, *end), and whether it is id. */
static uint32_t node_lower(const struct ct_chunk *c, const struct xs_id *id, uint32_t *off,
                           uint32_t *end, int *found)
{
    struct node_hdr h;
    struct xs_entry e;
    hdr_get(c, &h);
    uint32_t o = h.first;
    *found = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        uint32_t next = entry_decode(c, &h, o, &e);
        int cmp = xs_id_cmp(&e.id, id);
        if (cmp >= 0) {
            *off = o;
            *end = next;
            *found = cmp == 0;
            return i;
        }
        o = next;
    }
    *off = *end = o;
    return c->n;
}

/* ---- the stream --------------------------------------------------------- */

struct xstream *xs_new(void)
{
    struct xstream *s = xcalloc(1, sizeof(*s));
    s->nodes = RB_ROOT;
    return s;
}

void xs_free(struct xstream *s)
{
    if (!s)
        return;
    ct_free_some(&s->nodes, SIZE_MAX);
    xg_free_all(s);
    xfree(s);
}

size_t xs_free_effort(const struct xstream *s)
{
    return 1 + s->nnodes + s->ngroups;
}

struct xstream *xs_clone(const struct xstream *s)
{
    struct xstream *c = xmalloc(sizeof(*c));
    *c = *s;
    c->nodes = RB_ROOT;
    ct_clone(&c->nodes, &s->nodes);
    xg_clone_all(c, s);
    return c;
}

size_t xs_len(const struct xstream *s)
{
    return ct_total(s->nodes.rb_node);
}

size_t xs_memory(const struct xstream *s, size_t samples)
{
    size_t nodes = samples ? ct_memory_sampled(&s->nodes, samples) : ct_memory(&s->nodes);
    return xsize(s) + nodes + xg_memory(s);
}

int xs_id_incr(struct xs_id *id)
{
    if (id->seq != UINT64_MAX) {
        id->seq++;
    } else if (id->ms != UINT64_MAX) {
        id->ms++;
        id->seq = 0;
    } else {
        return 1;
    }
    return 0;
}

int xs_id_decr(struct xs_id *id)
{
    if (id->seq != 0) {
        id->seq--;
    } else if (id->ms != 0) {
        id->ms--;
        id->seq = UINT64_MAX;
    } else {
        return 1;
    }
    return 0;
}

void xs_id_encode(const struct xs_id *id, char out[XS_ID_LEN])
{
    for (int i = 0; i < 8; i++) {
        out[i] = (char)(id->ms >> (56 - 8 * i));
        out[8 + i] = (char)(id->seq >> (56 - 8 * i));
    }
}

int xs_seek(const struct xstream *s, size_t k, struct xs_it *it)
{
    uint32_t idx;
    struct ct_chunk *c = ct_select(&s->nodes, k, &idx);
    it->c = c;
    it->rank = k;
    it->end = 0;
    if (!c)
        return -1;
    struct node_hdr h;
    hdr_get(c, &h);
    it->idx = idx;
    it->off = idx + 1 == c->n ? h.last : skip_entries(c, &h, h.first, idx);
    return 0;
}

void xs_next(const struct xstream *s, struct xs_it *it)
{
    (void)s;
    struct ct_chunk *c = it->c;
    struct node_hdr h;
    it->rank++;
    if (it->idx + 1 < c->n) {
        if (!it->end) {
            struct xs_entry e;
            hdr_get(c, &h);
            it->end = entry_decode(c, &h, it->off, &e);
        }
        it->idx++;
        it->off = it->end;
        it->end = 0;
        return;
    }
    it->c = c = ct_next(c);
    it->idx = 0;
    it->end = 0;
    if (c) {
        hdr_get(c, &h);
        it->off = h.first;
    }
}

void xs_prev(const struct xstream *s, struct xs_it *it)
{
    (void)s;
    struct ct_chunk *c = it->c;
    it->end = 0;
    if (!c || it->rank == 0) {
        it->c = NULL;
        return;
    }
    it->rank--;
    uint32_t idx;
    if (it->idx > 0) {
        idx = it->idx - 1;
    } else {
        c = ct_prev(c);
        idx = c->n - 1;
    }
    struct node_hdr h;
    hdr_get(c, &h);
    it->c = c;
    it->idx = idx;
    it->off = idx + 1 == c->n ? h.last : skip_entries(c, &h, h.first, idx);
}

void xs_entry_of(const struct xstream *s, struct xs_it *it, struct xs_entry *e)
{
    (void)s;
    struct node_hdr h;
    hdr_get(it->c, &h);
    it->end = entry_decode(it->c, &h, it->off, e);
}

struct xs_strs xs_strs_of(const struct xs_entry *e)
{
    return (struct xs_strs){.f = e->fields, .p = e->strs, .end = e->end, .at_value = 0};
}

int xs_next_str(struct xs_strs *w, struct xs_str *out)
{
    if (w->p >= w->end)
        return -1;
    if (w->f && !w->at_value) {
        w->f = str_at(w->f, out);
        w->at_value = 1;
        return 0;
    }
    w->p = str_at(w->p, out);
    w->at_value = 0;
    return 0;
}

int xs_at(const struct xstream *s, size_t k, struct xs_entry *e)
{
    struct xs_it it;
    if (xs_seek(s, k, &it) < 0)
        return -1;
    xs_entry_of(s, &it, e);
    return 0;
}

size_t xs_count_below(const struct xstream *s, const struct xs_id *id)
{
    size_t before;
    uint32_t off, end;
    int found;
    const struct ct_chunk *c = node_find(s, id, &before);
    return c ? before + node_lower(c, id, &off, &end, &found) : 0;
}

void xs_append(struct xstream *s, const struct xs_id *id, const struct xs_str *pairs,
               size_t npairs, const struct xs_limits *lim)
{
    uint64_t raw = 0, values = 0, fields = 0;
    for (size_t i = 0; i < npairs; i++) {
        raw += pairs[2 * i].len + pairs[2 * i + 1].len;
        fields += lp_elem_bytes(pairs[2 * i].len);
        values += lp_elem_bytes(pairs[2 * i + 1].len);
    }
    uint64_t max_bytes = lim->node_bytes && lim->node_bytes <= NODE_MAX_BYTES
                             ? lim->node_bytes
                             : NODE_MAX_BYTES;
    /* Redis frees a node with its last entry, and the next entry then
     * starts a new one: the tail node is alive while the last chunk is it. */
    struct ct_chunk *tail = ct_last(&s->nodes);
    struct node_hdr h;
    if (tail)
        hdr_get(tail, &h);
    /* streamAppendItem's test: a new node once this entry's strings would
     * pass the byte limit, or the node holds the entry limit already. */
    if (!tail || h.node != s->node || s->node_bytes + raw >= max_bytes ||
        (lim->node_entries && s->node_entries >= lim->node_entries)) {
        s->node++;
        s->node_entries = 0;
        s->node_bytes = NODE_OVERHEAD + fields;
    }
    s->node_entries++;
    s->node_bytes += ENTRY_OVERHEAD + values;
    add_entry(s, tail, id, s->node, pairs, npairs);
    if (xs_len(s) == 1)
        s->first_id = *id;
    s->last_id = *id;
    s->entries_added++;
}

/* recorded-first-entry-id after a removal: the first entry's ID, or 0-0
 * once the stream is empty. */
static void record_first(struct xstream *s)
{
    struct xs_entry e;
    if (xs_at(s, 0, &e) == 0)
        s->first_id = e.id;
    else
        s->first_id = (struct xs_id){0, 0};
}

int xs_delete(struct xstream *s, const struct xs_id *id)
{
    size_t before;
    uint32_t off, end;
    int found;
    struct ct_chunk *c = node_find(s, id, &before);
    if (!c)
        return 0;
    uint32_t idx = node_lower(c, id, &off, &end, &found);
    if (!found)
        return 0;
    node_cut(s, c, idx, off, end, 1);
    if (xs_id_cmp(id, &s->max_deleted) > 0)
        s->max_deleted = *id;
    if (before == 0 && idx == 0)
        record_first(s);
    return 1;
}

/* How many entries from the front a trim removes: whole nodes while the
 * strategy allows, then (exact only) single entries of the next node. */
static size_t trim_count(const struct xstream *s, const struct xs_trim *t)
{
    size_t len = xs_len(s), removed = 0;
    for (const struct ct_chunk *c = ct_first(&s->nodes); c; c = ct_next(c)) {
        if (!t->minid && len - removed <= t->maxlen)
            break;
        size_t n = c->n;
        int whole;
        if (t->minid) {
            struct xs_id last;
            node_last_id(c, &last);
            whole = xs_id_cmp(&last, &t->min) < 0;
        } else {
            whole = len - removed - n >= t->maxlen;
        }
        if (whole) {
            if (t->limit && removed + n > t->limit)
                break;
            removed += n;
            continue;
        }
        if (t->approx)
            break;
        /* Exact: the rest is a prefix of this node. */
        if (t->minid)
            return xs_count_below(s, &t->min);
        return len - t->maxlen;
    }
    return removed;
}

/* Removes the first n entries: whole nodes, then a prefix of one. */
static void del_prefix(struct xstream *s, size_t n)
{
    while (n) {
        struct ct_chunk *c = ct_first(&s->nodes);
        if (n < c->n) {
            struct node_hdr h;
            hdr_get(c, &h);
            node_cut(s, c, 0, h.first, skip_entries(c, &h, h.first, n), (uint32_t)n);
            return;
        }
        n -= c->n;
        ct_unlink_free(&s->nodes, c);
        s->nnodes--;
    }
}

size_t xs_trim(struct xstream *s, const struct xs_trim *t)
{
    size_t n = trim_count(s, t);
    if (!n)
        return 0;
    del_prefix(s, n);
    record_first(s);
    return n;
}

size_t xs_nodes(const struct xstream *s)
{
    return s->nnodes;
}

int xs_load_entry(struct xstream *s, const struct xs_id *id, uint64_t node,
                  const struct xs_str *pairs, size_t npairs)
{
    struct ct_chunk *tail = ct_last(&s->nodes);
    if (tail) {
        struct node_hdr h;
        struct xs_id last;
        hdr_get(tail, &h);
        node_last_id(tail, &last);
        if (xs_id_cmp(&last, id) >= 0 || h.node > node)
            return -1;
    }
    add_entry(s, tail, id, node, pairs, npairs);
    return 0;
}

/* One node's bytes against its header and count; the entries' IDs must
 * rise above *prev (NULL: the first node), left at its last. */
static int check_node(const struct ct_chunk *c, struct xs_entry *prev, int first,
                      const char **why)
{
    struct node_hdr h;
    hdr_get(c, &h);
    struct xs_id master = {h.ms, h.seq};
    if (!c->n) {
        *why = "a node is empty";
        return -1;
    }
    if (c->used < h.first || h.first < sizeof(h) ||
        skip_strs(c->data + sizeof(h), h.nfields) != c->data + h.first) {
        *why = "a node's names do not end where its entries start";
        return -1;
    }
    if (!first && (h.node <= prev->node || xs_id_cmp(&master, &prev->id) <= 0)) {
        *why = "a node's number or master ID is not above the previous node's";
        return -1;
    }
    uint32_t off = h.first, last = 0;
    struct xs_entry e;
    for (uint32_t i = 0; i < c->n; i++) {
        if (off >= c->used) {
            *why = "a node holds fewer entries than its count";
            return -1;
        }
        last = off;
        off = entry_decode(c, &h, off, &e);
        if (xs_id_cmp(&e.id, &master) < 0 || ((!first || i) && xs_id_cmp(&e.id, &prev->id) <= 0)) {
            *why = "an entry's ID is not above the one before and the master";
            return -1;
        }
        size_t strs = 0;
        struct xs_str str;
        struct xs_strs w = xs_strs_of(&e);
        while (xs_next_str(&w, &str) == 0)
            strs++;
        if (strs != 2 * e.nfields) {
            *why = "an entry's pairs do not match its field count";
            return -1;
        }
        *prev = e;
    }
    if (off != c->used || last != h.last) {
        *why = "a node's bytes or last offset do not match its entries";
        return -1;
    }
    return 0;
}

int xs_check(const struct xstream *s, const char **why)
{
    if (ct_check_totals(&s->nodes, why) < 0)
        return -1;
    struct xs_entry prev = {0};
    size_t nodes = 0;
    for (const struct ct_chunk *c = ct_first(&s->nodes); c; c = ct_next(c), nodes++) {
        if (check_node(c, &prev, nodes == 0, why) < 0)
            return -1;
        if (nodes == 0) {
            struct xs_entry e;
            if (xs_at(s, 0, &e) < 0 || xs_id_cmp(&e.id, &s->first_id) != 0) {
                *why = "first_id is not the first entry's ID";
                return -1;
            }
        }
    }
    if (nodes != s->nnodes) {
        *why = "nnodes is not the number of nodes";
        return -1;
    }
    if (nodes && xs_id_cmp(&prev.id, &s->last_id) > 0) {
        *why = "an entry is above last_id";
        return -1;
    }
    if (s->entries_added < xs_len(s)) {
        *why = "entries_added is below the length";
        return -1;
    }
    return xg_check(s, why);
}

/* Redis's streamEstimateDistanceFromFirstEverEntry (xstream.h). */
int64_t xs_estimate_entries_read(const struct xstream *s, const struct xs_id *id)
{
    if (!s->entries_added)
        return 0;
    int cmp_last = xs_id_cmp(id, &s->last_id);
    if (!xs_len(s) && cmp_last < 1)
        return (int64_t)s->entries_added;
    if (cmp_last == 0)
        return (int64_t)s->entries_added;
    if (cmp_last > 0)
        return XG_ENTRIES_READ_INVALID;
    int cmp_first = xs_id_cmp(id, &s->first_id);
    if ((!s->max_deleted.ms && !s->max_deleted.seq) || xs_id_cmp(&s->max_deleted, &s->first_id) < 0) {
        if (cmp_first < 0)
            return (int64_t)(s->entries_added - xs_len(s));
        if (cmp_first == 0)
            return (int64_t)(s->entries_added - xs_len(s) + 1);
    }
    return XG_ENTRIES_READ_INVALID;
}
