/*
 * xstream.c - a stream's entries in an ordered map keyed by ID (see
 * xstream.h), and the node emulation that makes "~" trim as Redis does.
 */
#include "xstream.h"

#include <string.h>

#include "mem.h"
#include "xgroup.h"
#include "varint.h"

/* A small stream stays in one packed run, as a small hash does; entries
 * are only ever appended, so growing it is a realloc, never a shift. */
static const struct om_limits map_limits = {.entries = 128, .value = 256, .int_entries = 0};

/* Redis's STREAM_LISTPACK_MAX_SIZE: a node's bytes are capped at 1 GB. */
#define NODE_MAX_BYTES (1ull << 30)
/* A listpack's header and end byte, and the master entry's count, deleted
 * count, field count and terminator. */
#define NODE_OVERHEAD 11
/* Per entry: flags, ms and seq deltas, and the trailing count. */
#define ENTRY_OVERHEAD 4

/* A listpack element's bytes: the string, its header and its back length. */
static uint64_t lp_elem_bytes(size_t len)
{
    return len + (len < 64 ? 2 : len < 4096 ? 4 : 10);
}

struct xstream *xs_new(void)
{
    struct xstream *s = xcalloc(1, sizeof(*s));
    s->m = om_new(1);
    return s;
}

void xs_free(struct xstream *s)
{
    if (!s)
        return;
    om_free(s->m);
    xg_free_all(s);
    xfree(s);
}

size_t xs_free_effort(const struct xstream *s)
{
    return om_free_effort(s->m) + s->ngroups;
}

struct xstream *xs_clone(const struct xstream *s)
{
    struct xstream *c = xmalloc(sizeof(*c));
    *c = *s;
    c->m = om_clone(s->m);
    xg_clone_all(c, s);
    return c;
}

size_t xs_len(const struct xstream *s)
{
    return om_len(s->m);
}

size_t xs_memory(const struct xstream *s, size_t samples)
{
    return xsize(s) + om_memory_sampled(s->m, samples) + xg_memory(s);
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

static void id_decode(const char *p, struct xs_id *id)
{
    const unsigned char *u = (const unsigned char *)p;
    id->ms = id->seq = 0;
    for (int i = 0; i < 8; i++) {
        id->ms = id->ms << 8 | u[i];
        id->seq = id->seq << 8 | u[8 + i];
    }
}

void xs_entry_of(const struct xstream *s, struct om_it *it, struct xs_entry *e)
{
    struct om_elem el;
    size_t node;
    om_it_get(s->m, it, &el);
    id_decode(el.f, &e->id);
    const char *p = el.v;
    p += varint_get(p, &node);
    p += varint_get(p, &e->nfields);
    e->node = node;
    e->data = p;
    e->end = el.v + el.vlen;
}

int xs_next_str(const char **p, const char *end, struct xs_str *out)
{
    if (*p >= end)
        return -1;
    *p += varint_get(*p, &out->len);
    out->ptr = *p;
    *p += out->len;
    return 0;
}

int xs_at(const struct xstream *s, size_t k, struct xs_entry *e)
{
    struct om_it it;
    if (om_seek(s->m, k, &it) < 0)
        return -1;
    xs_entry_of(s, &it, e);
    return 0;
}

size_t xs_count_below(const struct xstream *s, const struct xs_id *id)
{
    char key[XS_ID_LEN];
    xs_id_encode(id, key);
    return om_count_before(s->m, key, XS_ID_LEN, 0);
}

/* Packs node and pairs as an entry's value; the caller frees it. */
static char *pack_value(uint64_t node, const struct xs_str *pairs, size_t npairs, size_t *len)
{
    size_t n = varint_size(node) + varint_size(npairs);
    for (size_t i = 0; i < 2 * npairs; i++)
        n += varint_size(pairs[i].len) + pairs[i].len;
    char *v = xmalloc(n ? n : 1), *p = v;
    p += varint_put(p, node);
    p += varint_put(p, npairs);
    for (size_t i = 0; i < 2 * npairs; i++) {
        p += varint_put(p, pairs[i].len);
        if (pairs[i].len)
            memcpy(p, pairs[i].ptr, pairs[i].len);
        p += pairs[i].len;
    }
    *len = n;
    return v;
}

/* Whether the tail node still holds an entry: Redis frees a node with its
 * last entry, and the next entry then starts a new one. */
static int tail_node_alive(const struct xstream *s)
{
    struct xs_entry last;
    return xs_len(s) && xs_at(s, xs_len(s) - 1, &last) == 0 && last.node == s->node;
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
    /* streamAppendItem's test: a new node once this entry's strings would
     * pass the byte limit, or the node holds the entry limit already. */
    if (!tail_node_alive(s) || s->node_bytes + raw >= max_bytes ||
        (lim->node_entries && s->node_entries >= lim->node_entries)) {
        s->node++;
        s->node_entries = 0;
        s->node_bytes = NODE_OVERHEAD + fields;
    }
    s->node_entries++;
    s->node_bytes += ENTRY_OVERHEAD + values;

    char key[XS_ID_LEN];
    size_t vlen;
    xs_id_encode(id, key);
    char *v = pack_value(s->node, pairs, npairs, &vlen);
    om_append(&s->m, key, XS_ID_LEN, v, vlen, &map_limits);
    xfree(v);
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
    char key[XS_ID_LEN];
    struct om_it it;
    xs_id_encode(id, key);
    if (!om_find(s->m, key, XS_ID_LEN, &it))
        return 0;
    int first = it.rank == 0;
    om_del(&s->m, key, XS_ID_LEN, &map_limits);
    if (xs_id_cmp(id, &s->max_deleted) > 0)
        s->max_deleted = *id;
    if (first)
        record_first(s);
    return 1;
}

/* How many entries from the front a trim removes: whole nodes while the
 * strategy allows, then (exact only) single entries of the next node. */
static size_t trim_count(const struct xstream *s, const struct xs_trim *t)
{
    size_t len = xs_len(s), removed = 0;
    struct om_it it;
    struct xs_entry e;
    om_seek(s->m, 0, &it);
    while (om_it_valid(&it)) {
        if (!t->minid && len - removed <= t->maxlen)
            break;
        /* The node starting here: its entries and its last ID. */
        xs_entry_of(s, &it, &e);
        uint64_t node = e.node;
        size_t n = 0;
        struct xs_id last = e.id;
        struct om_it end = it;
        while (om_it_valid(&end)) {
            xs_entry_of(s, &end, &e);
            if (e.node != node)
                break;
            last = e.id;
            n++;
            om_next(s->m, &end);
        }
        int whole = t->minid ? xs_id_cmp(&last, &t->min) < 0 : len - removed - n >= t->maxlen;
        if (whole) {
            if (t->limit && removed + n > t->limit)
                break;
            removed += n;
            it = end;
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

size_t xs_trim(struct xstream *s, const struct xs_trim *t)
{
    size_t n = trim_count(s, t);
    if (!n)
        return 0;
    om_del_span(&s->m, 0, n, &map_limits);
    record_first(s);
    return n;
}

size_t xs_nodes(const struct xstream *s)
{
    size_t n = 0;
    uint64_t node = 0;
    struct om_it it;
    struct xs_entry e;
    for (om_seek(s->m, 0, &it); om_it_valid(&it); om_next(s->m, &it)) {
        xs_entry_of(s, &it, &e);
        if (n == 0 || e.node != node)
            n++;
        node = e.node;
    }
    return n;
}

int xs_load_entry(struct xstream *s, const struct xs_id *id, uint64_t node,
                  const struct xs_str *pairs, size_t npairs)
{
    struct xs_entry last;
    if (xs_len(s) && xs_at(s, xs_len(s) - 1, &last) == 0 &&
        (xs_id_cmp(&last.id, id) >= 0 || last.node > node))
        return -1;
    char key[XS_ID_LEN];
    size_t vlen;
    xs_id_encode(id, key);
    char *v = pack_value(node, pairs, npairs, &vlen);
    om_append(&s->m, key, XS_ID_LEN, v, vlen, &map_limits);
    xfree(v);
    return 0;
}

int xs_check(const struct xstream *s, const char **why)
{
    if (om_check(s->m, why) < 0)
        return -1;
    struct om_it it;
    struct xs_entry e, prev = {0};
    size_t i = 0;
    for (om_seek(s->m, 0, &it); om_it_valid(&it); om_next(s->m, &it), i++) {
        xs_entry_of(s, &it, &e);
        if (i == 0 && xs_id_cmp(&e.id, &s->first_id) != 0) {
            *why = "first_id is not the first entry's ID";
            return -1;
        }
        if (i > 0 && e.node < prev.node) {
            *why = "a node number decreases";
            return -1;
        }
        size_t strs = 0;
        struct xs_str str;
        const char *p = e.data;
        while (xs_next_str(&p, e.end, &str) == 0)
            strs++;
        if (p != e.end || strs != 2 * e.nfields) {
            *why = "an entry's pairs do not match its field count";
            return -1;
        }
        prev = e;
    }
    if (i && xs_id_cmp(&prev.id, &s->last_id) > 0) {
        *why = "an entry is above last_id";
        return -1;
    }
    if (s->entries_added < i) {
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
