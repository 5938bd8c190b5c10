/*
 * rdb_stream.c - Redis's stream encoding read into an xstream and written
 * from one (rdb_stream.h).
 *
 * A listpack of Redis's stream (t_stream.c) holds a master entry, then the
 * entries:
 *   count deleted nfields field_1 .. field_n 0
 *   flags ms-diff seq-diff [nf f_1 v_1 .. f_nf v_nf | v_1 .. v_n] lp-count
 * where the IDs are differences from the master ID (the radix tree key the
 * listpack is stored under), SAMEFIELDS entries carry only the values of
 * the master's fields, DELETED entries are tombstones, and lp-count is the
 * number of elements of the entry before it. Integers may be stored as
 * strings of digits (lpGetIntegerIfValid reads both).
 *
 * Reading builds the stream fresh and frees it whole on the first fault.
 * Each count read is checked against the bytes that could back it before
 * any loop or allocation. Integer elements that are fields or values
 * become text in a scratch buffer (an entry's strings are gathered there,
 * then handed to xs_load_entry).
 */
#include "rdb_stream.h"

#include <string.h>

#include "mem.h"
#include "rdb_blobs.h"
#include "rdb_value.h"
#include "resp_num.h"
#include "xgroup.h"

/* t_stream.c's entry flags. */
#define STREAM_ITEM_FLAG_DELETED 1
#define STREAM_ITEM_FLAG_SAMEFIELDS 2
/* A raw ID in a PEL: two 64-bit big-endian halves. */
#define RAW_ID_LEN 16

/* What is being read: the stream, and scratch space reused per listpack. */
struct sread {
    struct rdb_in *in;
    struct xstream *s;
    const char *why;
    struct xs_id prev;    /* the last ID seen, tombstones included */
    int have_prev;
    /* The master's field names, as text: mtext, at moff[i], mlen[i]. */
    struct rdb_out mtext;
    size_t *moff, *mlen, mcap;
    /* An entry's strings, as text, then as xs_str pointing into etext. */
    struct rdb_out etext;
    size_t *eoff;
    struct xs_str *pairs;
    size_t ecap;
};

static int bad(struct sread *r, const char *why)
{
    r->why = why;
    return -1;
}

/* The next element of the listpack, which must exist. */
static int lp_elem(struct sread *r, struct rdb_lp_it *it, struct rdb_lp_elem *e)
{
    return rdb_lp_next(it, e) == 1 ? 0 : bad(r, "stream listpack integrity check failed");
}

/* The next element as an integer (lpGetIntegerIfValid). */
static int lp_int(struct sread *r, struct rdb_lp_it *it, long long *v)
{
    struct rdb_lp_elem e;
    if (lp_elem(r, it, &e) < 0)
        return -1;
    if (e.is_int) {
        *v = e.v;
        return 0;
    }
    return resp_parse_ll(e.p, e.len, v) == 0 ? 0
                                             : bad(r, "stream listpack integrity check failed");
}

/* Appends the next element's text to buf; its length into *len. */
static int lp_text(struct sread *r, struct rdb_lp_it *it, struct rdb_out *buf, size_t *len)
{
    struct rdb_lp_elem e;
    if (lp_elem(r, it, &e) < 0)
        return -1;
    if (e.is_int) {
        char num[RESP_LL_CHARS];
        *len = resp_format_ll(num, e.v);
        rdb_out_bytes(buf, num, *len);
    } else {
        *len = e.len;
        rdb_out_bytes(buf, e.p, e.len);
    }
    return 0;
}

/* Room for mfields master fields, and for an entry of strs strings. */
static void reserve(struct sread *r, size_t mfields, size_t strs)
{
    if (mfields > r->mcap) {
        r->moff = xrealloc(r->moff, sizeof(*r->moff) * mfields);
        r->mlen = xrealloc(r->mlen, sizeof(*r->mlen) * mfields);
        r->mcap = mfields;
    }
    if (strs > r->ecap) {
        r->eoff = xrealloc(r->eoff, sizeof(*r->eoff) * strs);
        r->pairs = xrealloc(r->pairs, sizeof(*r->pairs) * strs);
        r->ecap = strs;
    }
}

/* One entry after the master entry; a live one joins the stream as node. */
static int read_entry(struct sread *r, struct rdb_lp_it *it, const struct xs_id *master,
                      long long mfields, uint64_t node, long long *live)
{
    long long flags, dms, dseq, nf, lp_count;
    if (lp_int(r, it, &flags) < 0 || lp_int(r, it, &dms) < 0 || lp_int(r, it, &dseq) < 0)
        return -1;
    if (flags & ~(long long)(STREAM_ITEM_FLAG_DELETED | STREAM_ITEM_FLAG_SAMEFIELDS))
        return bad(r, "bad stream entry flags");
    struct xs_id id = {master->ms + (uint64_t)dms, master->seq + (uint64_t)dseq};
    if (r->have_prev && xs_id_cmp(&id, &r->prev) <= 0)
        return bad(r, "stream entry IDs do not increase");
    r->prev = id;
    r->have_prev = 1;
    int same = (flags & STREAM_ITEM_FLAG_SAMEFIELDS) != 0;
    long long extra = 3;
    if (same) {
        nf = mfields;
    } else {
        if (lp_int(r, it, &nf) < 0)
            return -1;
        /* Each string takes at least two bytes of the listpack. */
        if (nf < 0 || (uint64_t)nf > (size_t)(it->end - it->p) / 4)
            return bad(r, "bad stream entry field count");
        extra += nf + 1;
    }
    if (nf == 0)
        return bad(r, "stream entry without fields");
    reserve(r, 0, 2 * (size_t)nf);
    r->etext.len = 0;
    for (long long j = 0; j < nf; j++) {
        size_t *f = &r->pairs[2 * j].len, *v = &r->pairs[2 * j + 1].len;
        if (same) {
            r->eoff[2 * j] = r->etext.len;
            rdb_out_bytes(&r->etext, r->mtext.buf + r->moff[j], r->mlen[j]);
            *f = r->mlen[j];
        } else {
            r->eoff[2 * j] = r->etext.len;
            if (lp_text(r, it, &r->etext, f) < 0)
                return -1;
        }
        r->eoff[2 * j + 1] = r->etext.len;
        if (lp_text(r, it, &r->etext, v) < 0)
            return -1;
    }
    if (lp_int(r, it, &lp_count) < 0)
        return -1;
    if (lp_count != nf + extra)
        return bad(r, "stream entry's element count is wrong");
    if (flags & STREAM_ITEM_FLAG_DELETED)
        return 0;
    for (long long j = 0; j < 2 * nf; j++)
        r->pairs[j].ptr = r->etext.buf + r->eoff[j];
    if (xs_load_entry(r->s, &id, node, r->pairs, (size_t)nf) < 0)
        return bad(r, "stream entry IDs do not increase");
    ++*live;
    return 0;
}

/* One listpack under the master ID held in key. */
static int read_listpack(struct sread *r, const char *key, const unsigned char *lp,
                         size_t size, uint64_t node)
{
    struct rdb_lp_it it;
    struct rdb_lp_elem e;
    long long count, deleted, mfields, zero;
    struct xs_id master = {rdb_be(key, 8), rdb_be(key + 8, 8)};
    if (rdb_lp_open(&it, lp, size) < 0)
        return bad(r, "stream listpack integrity check failed");
    if (it.p == it.end)
        return bad(r, "empty listpack inside stream");
    if (lp_int(r, &it, &count) < 0 || lp_int(r, &it, &deleted) < 0 ||
        lp_int(r, &it, &mfields) < 0)
        return -1;
    size_t room = (size_t)(it.end - it.p);
    if (count < 0 || deleted < 0 || mfields < 0 || (uint64_t)mfields > room / 2 ||
        (uint64_t)count > room / 8 || (uint64_t)deleted > room / 8)
        return bad(r, "bad stream master entry");
    reserve(r, (size_t)mfields, 0);
    r->mtext.len = 0;
    for (long long j = 0; j < mfields; j++) {
        r->moff[j] = r->mtext.len;
        if (lp_text(r, &it, &r->mtext, &r->mlen[j]) < 0)
            return -1;
    }
    if (lp_int(r, &it, &zero) < 0 || zero != 0)
        return bad(r, "bad stream master entry terminator");
    long long live = 0;
    for (long long j = 0; j < count + deleted; j++)
        if (read_entry(r, &it, &master, mfields, node, &live) < 0)
            return -1;
    if (rdb_lp_next(&it, &e) != 0)
        return bad(r, "stream listpack integrity check failed");
    if (live != count)
        return bad(r, "stream master entry's count is wrong");
    /* The tail node, as rbkv's emulation counts it (tombstones included). */
    r->s->node = node;
    r->s->node_entries = (uint64_t)(count + deleted);
    r->s->node_bytes = size;
    return 0;
}

static int read_len(struct sread *r, uint64_t *v, const char *what)
{
    return rdb_read_len(r->in, v, NULL) < 0 ? bad(r, what) : 0;
}

/* A count of records of at least min bytes each. */
static int read_count(struct sread *r, uint64_t *n, size_t min, const char *what)
{
    if (rdb_read_len(r->in, n, NULL) < 0 || *n > rdb_left(r->in) / min)
        return bad(r, what);
    return 0;
}

static int read_id(struct sread *r, struct xs_id *id, const char *what)
{
    return read_len(r, &id->ms, what) < 0 || read_len(r, &id->seq, what) < 0 ? -1 : 0;
}

static int read_raw_id(struct sread *r, struct xs_id *id)
{
    if (rdb_left(r->in) < RAW_ID_LEN)
        return bad(r, "truncated PEL ID");
    const char *p = (const char *)r->in->buf + r->in->pos;
    id->ms = rdb_be(p, 8);
    id->seq = rdb_be(p + 8, 8);
    r->in->pos += RAW_ID_LEN;
    return 0;
}

static int read_ms(struct sread *r, int64_t *ms)
{
    if (rdb_left(r->in) < 8)
        return bad(r, "truncated stream time");
    *ms = (int64_t)rdb_le(r->in->buf + r->in->pos, 8);
    r->in->pos += 8;
    return 0;
}

static int read_consumer(struct sread *r, struct xg_group *g, unsigned rdbtype)
{
    struct rdb_str name;
    uint64_t n;
    int64_t seen, active;
    if (rdb_read_string(r->in, &name) < 0)
        return bad(r, "truncated consumer name");
    struct xg_consumer *k = xg_consumer_create(g, name.p, name.len, 0);
    rdb_str_release(&name);
    if (!k)
        return bad(r, "duplicate stream consumer");
    if (read_ms(r, &seen) < 0 ||
        (rdbtype == RDB_TYPE_STREAM_LISTPACKS_3 && read_ms(r, &active) < 0) ||
        read_count(r, &n, RAW_ID_LEN, "bad consumer PEL size") < 0)
        return -1;
    k->seen_time = seen;
    for (uint64_t i = 0; i < n; i++) {
        struct xs_id id;
        if (read_raw_id(r, &id) < 0)
            return -1;
        struct xg_pending *p = xg_pending_find(g, &id);
        if (!p)
            return bad(r, "consumer entry not found in group global PEL");
        if (p->consumer)
            return bad(r, "duplicated consumer PEL entry");
        xg_pending_attach(p, k);
    }
    return 0;
}

static int read_group(struct sread *r, unsigned rdbtype)
{
    struct rdb_str name;
    struct xs_id last;
    uint64_t read = 0, n;
    if (rdb_read_string(r->in, &name) < 0) {
        return bad(r, "truncated consumer group name");
    }
    if (read_id(r, &last, "truncated consumer group ID") < 0 ||
        (rdbtype != RDB_TYPE_STREAM_LISTPACKS &&
         read_len(r, &read, "truncated consumer group entries-read") < 0)) {
        rdb_str_release(&name);
        return -1;
    }
    /* Redis writes an unknown counter (-1) as the largest length. */
    int64_t entries_read = rdbtype == RDB_TYPE_STREAM_LISTPACKS
                               ? xs_estimate_entries_read(r->s, &last)
                               : (int64_t)read;
    if (entries_read < XG_ENTRIES_READ_INVALID) {
        rdb_str_release(&name);
        return bad(r, "bad consumer group entries-read");
    }
    struct xg_group *g = xg_create(r->s, name.p, name.len, &last, entries_read);
    rdb_str_release(&name);
    if (!g)
        return bad(r, "duplicated consumer group name");
    if (read_count(r, &n, RAW_ID_LEN + 8 + 1, "bad PEL size") < 0)
        return -1;
    for (uint64_t i = 0; i < n; i++) {
        struct xs_id id;
        int64_t when;
        uint64_t count;
        if (read_raw_id(r, &id) < 0 || read_ms(r, &when) < 0 ||
            read_len(r, &count, "truncated PEL delivery count") < 0)
            return -1;
        if (xg_pending_find(g, &id))
            return bad(r, "duplicated global PEL entry");
        xg_pending_add(g, NULL, &id, when)->delivery_count = count;
    }
    if (read_count(r, &n, 1 + 8 + 1, "bad consumer count") < 0)
        return -1;
    for (uint64_t i = 0; i < n; i++)
        if (read_consumer(r, g, rdbtype) < 0)
            return -1;
    return 0;
}

static int read_stream(struct sread *r, unsigned rdbtype)
{
    uint64_t nlp, length, n;
    /* A listpack takes at least its key (17 bytes) and 8 of its own. */
    if (read_count(r, &nlp, 25, "bad stream listpack count") < 0)
        return -1;
    for (uint64_t i = 0; i < nlp; i++) {
        struct rdb_str key, lp;
        if (rdb_read_string(r->in, &key) < 0)
            return bad(r, "truncated stream master ID");
        if (key.len != XS_ID_LEN) {
            rdb_str_release(&key);
            return bad(r, "stream node key is not the size of a stream ID");
        }
        if (rdb_read_string(r->in, &lp) < 0) {
            rdb_str_release(&key);
            return bad(r, "truncated stream listpack");
        }
        int rc = read_listpack(r, key.p, (const unsigned char *)lp.p, lp.len, i + 1);
        rdb_str_release(&key);
        rdb_str_release(&lp);
        if (rc < 0)
            return -1;
    }
    struct xstream *s = r->s;
    if (read_len(r, &length, "truncated stream length") < 0 ||
        read_id(r, &s->last_id, "truncated stream last ID") < 0)
        return -1;
    if (rdbtype == RDB_TYPE_STREAM_LISTPACKS) {
        /* What Redis 7.0 infers for a stream of 6.x (streamGetEdgeID gives
         * an empty stream the largest ID as its first). */
        s->entries_added = length;
        struct xs_entry e;
        s->first_id = xs_at(s, 0, &e) == 0 ? e.id : (struct xs_id){UINT64_MAX, UINT64_MAX};
    } else if (read_id(r, &s->first_id, "truncated stream first ID") < 0 ||
               read_id(r, &s->max_deleted, "truncated stream max deleted ID") < 0 ||
               read_len(r, &s->entries_added, "truncated stream entries added") < 0) {
        return -1;
    }
    if (length != xs_len(s))
        return bad(r, "stream length inconsistent with its entries");
    if (read_count(r, &n, 1 + 2 + 1 + 1, "bad consumer group count") < 0)
        return -1;
    for (uint64_t i = 0; i < n; i++)
        if (read_group(r, rdbtype) < 0)
            return -1;
    if (xs_check(s, &r->why) < 0)
        return -1;
    return 0;
}

int rdb_stream_read(struct rdb_in *in, unsigned rdbtype, struct xstream **out, const char **why)
{
    struct sread r = {.in = in, .s = xs_new()};
    int rc = read_stream(&r, rdbtype);
    rdb_out_free(&r.mtext);
    rdb_out_free(&r.etext);
    xfree(r.moff);
    xfree(r.mlen);
    xfree(r.eoff);
    xfree(r.pairs);
    if (rc < 0) {
        xs_free(r.s);
        *why = r.why;
        return -1;
    }
    *out = r.s;
    return 0;
}

/* ---- writing ---- */

static void out_raw_id(struct rdb_out *o, const struct xs_id *id)
{
    char raw[XS_ID_LEN];
    xs_id_encode(id, raw);
    rdb_out_bytes(o, raw, sizeof(raw));
}

static void out_ms(struct rdb_out *o, int64_t ms)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)ms >> (8 * i));
    rdb_out_bytes(o, b, 8);
}

/* Whether e's fields are the master's, in order. */
static int same_fields(const struct xs_entry *m, const struct xs_entry *e)
{
    if (m->nfields != e->nfields)
        return 0;
    if (m->fields && m->fields == e->fields)
        return 1; /* both name their node's master fields */
    struct xs_strs p = xs_strs_of(m), q = xs_strs_of(e);
    struct xs_str a, b;
    while (xs_next_str(&p, &a) == 0 && xs_next_str(&q, &b) == 0) {
        if (a.len != b.len || memcmp(a.ptr, b.ptr, a.len))
            return 0;
        xs_next_str(&p, &a);
        xs_next_str(&q, &b);
    }
    return 1;
}

/* The entries [first, first + n) of s, one node, as a listpack in lp. */
static void write_listpack(struct rdb_out *lp, const struct xstream *s, size_t first, size_t n)
{
    struct xs_entry m, e;
    struct xs_str str;
    struct xs_it it;
    size_t start, elems = 0;
    xs_seek(s, first, &it);
    xs_entry_of(s, &it, &m);
    lp->len = 0;
    rdb_lp_begin(lp, &start);
    rdb_lp_append_int(lp, (long long)n);
    rdb_lp_append_int(lp, 0);
    rdb_lp_append_int(lp, (long long)m.nfields);
    elems += 3;
    struct xs_strs w = xs_strs_of(&m);
    for (size_t j = 0; j < m.nfields; j++, elems++) {
        xs_next_str(&w, &str);
        rdb_lp_append_str(lp, str.ptr, str.len);
        xs_next_str(&w, &str);
    }
    rdb_lp_append_int(lp, 0);
    elems++;
    for (size_t k = 0; k < n; k++, xs_next(s, &it)) {
        xs_entry_of(s, &it, &e);
        int same = same_fields(&m, &e);
        rdb_lp_append_int(lp, same ? STREAM_ITEM_FLAG_SAMEFIELDS : 0);
        rdb_lp_append_int(lp, (long long)(e.id.ms - m.id.ms));
        rdb_lp_append_int(lp, (long long)(e.id.seq - m.id.seq));
        size_t strs = 3;
        if (!same) {
            rdb_lp_append_int(lp, (long long)e.nfields);
            strs++;
        }
        w = xs_strs_of(&e);
        for (size_t j = 0; j < e.nfields; j++) {
            xs_next_str(&w, &str);
            if (!same) {
                rdb_lp_append_str(lp, str.ptr, str.len);
                strs++;
            }
            xs_next_str(&w, &str);
            rdb_lp_append_str(lp, str.ptr, str.len);
            strs++;
        }
        rdb_lp_append_int(lp, (long long)strs);
        elems += strs + 1;
    }
    rdb_lp_end(lp, start, elems);
}

static void write_groups(struct rdb_out *o, const struct xstream *s)
{
    const struct xs_id zero = {0, 0};
    rdb_out_len(o, s->ngroups);
    for (const struct xg_group *g = xg_first(s); g; g = xg_next(g)) {
        rdb_out_string(o, g->name, g->nlen);
        rdb_out_len(o, g->last_id.ms);
        rdb_out_len(o, g->last_id.seq);
        rdb_out_len(o, (uint64_t)g->entries_read);
        rdb_out_len(o, g->pel_count);
        for (const struct xg_pending *p = xg_pending_first(g); p; p = xg_pending_next(p, NULL)) {
            out_raw_id(o, &p->id);
            out_ms(o, p->delivery_time);
            rdb_out_len(o, p->delivery_count);
        }
        rdb_out_len(o, g->nconsumers);
        for (const struct xg_consumer *k = xg_consumer_first(g); k; k = xg_consumer_next(k)) {
            rdb_out_string(o, k->name, k->nlen);
            out_ms(o, k->seen_time);
            rdb_out_len(o, k->pel_count);
            for (const struct xg_pending *p = xg_pending_seek(g, k, &zero); p;
                 p = xg_pending_next(p, k))
                out_raw_id(o, &p->id);
        }
    }
}

void rdb_stream_write(struct rdb_out *o, const struct xstream *s)
{
    size_t len = xs_len(s);
    rdb_out_len(o, xs_nodes(s));
    struct rdb_out lp = {0};
    struct xs_it it;
    struct xs_entry e = {0};
    size_t first = 0;
    uint64_t node = 0;
    xs_seek(s, 0, &it);
    for (size_t i = 0; i <= len; i++) {
        if (i < len) {
            xs_entry_of(s, &it, &e);
            xs_next(s, &it);
        }
        if (i > first && (i == len || e.node != node)) {
            struct xs_entry m;
            char key[XS_ID_LEN];
            xs_at(s, first, &m);
            xs_id_encode(&m.id, key);
            rdb_out_string(o, key, sizeof(key));
            write_listpack(&lp, s, first, i - first);
            rdb_out_string(o, lp.buf, lp.len);
            first = i;
        }
        node = e.node;
    }
    rdb_out_free(&lp);
    rdb_out_len(o, len);
    rdb_out_len(o, s->last_id.ms);
    rdb_out_len(o, s->last_id.seq);
    rdb_out_len(o, s->first_id.ms);
    rdb_out_len(o, s->first_id.seq);
    rdb_out_len(o, s->max_deleted.ms);
    rdb_out_len(o, s->max_deleted.seq);
    rdb_out_len(o, s->entries_added);
    write_groups(o, s);
}
