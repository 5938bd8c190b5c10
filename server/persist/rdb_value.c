/*
 * rdb_value.c - Redis 7.0's RDB value encodings read into rbkv's values and
 * written from them (rdb_value.h).
 *
 * Reading: each element goes into a value built fresh (ol_push, om_add,
 * zs_insert), which is freed whole on the first fault. A count read from
 * the input is checked against the bytes left before any loop (an element
 * takes at least one byte), so a huge count fails at once instead of
 * spinning. Packed blobs (rdb_blobs.h) are walked with a callback that
 * feeds the value being built; hashes and sorted sets take their elements
 * in pairs, and the first of a pair is kept (copied when short, since an
 * integer entry's text lives in the walker's buffer only for the call).
 */
#include "rdb_value.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rdb_blobs.h"
#include "rdb_stream.h"
#include "zset.h"

/* quicklist 2's node containers (quicklist.h). */
#define QUICKLIST_NODE_PLAIN 1
#define QUICKLIST_NODE_PACKED 2
/* zzlStrtod's limit: a listpack score longer than this is read no further. */
#define SCORE_TEXT_MAX 127

/* What a blob's elements are being added to. */
struct build {
    struct rdb_value *v;
    const struct rdb_limits *lim;
    int deep;
    int dups_refused; /* in the blob being walked */
    const char *why;
    /* The first of a pair (hash field, sorted-set member). */
    int have_first;
    const char *first;
    size_t first_len;
    char first_buf[32];
};

static void value_free(int type, void *ptr)
{
    switch (type) {
    case KS_LIST:
        ol_free(ptr);
        break;
    case KS_SET:
    case KS_HASH:
        om_free(ptr);
        break;
    case KS_ZSET:
        zs_free(ptr);
        break;
    case KS_STREAM:
        xs_free(ptr);
        break;
    default:
        break;
    }
}

void rdb_value_release(struct rdb_value *v)
{
    if (v->type == KS_STRING)
        rdb_str_release(&v->str);
    else
        value_free(v->type, v->ptr);
    v->ptr = NULL;
}

static size_t value_len(const struct rdb_value *v)
{
    switch (v->type) {
    case KS_LIST:
        return ol_len(v->ptr);
    case KS_SET:
    case KS_HASH:
        return om_len(v->ptr);
    case KS_ZSET:
        return zs_len(v->ptr);
    default:
        return 1;
    }
}

/* Adds one element (a set member, or a list's) or a pair's second half. */
static int add_member(struct build *b, const char *p, size_t len, int dups_refused)
{
    if (b->v->type == KS_LIST) {
        ol_push((struct olist **)&b->v->ptr, 1, p, len, &b->lim->list);
        return 0;
    }
    if (om_add((struct omap **)&b->v->ptr, p, len, NULL, 0, &b->lim->set) == 0 && dups_refused) {
        b->why = "duplicate set member";
        return -1;
    }
    return 0;
}

static int add_field(struct build *b, const char *f, size_t flen, const char *v, size_t vlen,
                     int dups_refused)
{
    if (om_add((struct omap **)&b->v->ptr, f, flen, v, vlen, &b->lim->hash) == 0 &&
        dups_refused) {
        b->why = "duplicate hash field";
        return -1;
    }
    return 0;
}

static int add_scored(struct build *b, const char *m, size_t mlen, double score,
                      int dups_refused)
{
    if (isnan(score)) {
        b->why = "NaN score";
        return -1;
    }
    struct zset *z = b->v->ptr;
    if (zs_find(z, m, mlen)) {
        if (!dups_refused)
            return 0;
        b->why = "duplicate sorted-set member";
        return -1;
    }
    zs_insert(z, m, mlen, score);
    return 0;
}

/* A sorted set's score as a listpack or ziplist holds it: an integer
 * entry's text or a string read as strtod reads it (zzlStrtod). Stricter
 * than Redis, which reads a non-number as 0: refused here. */
static int parse_score(const char *p, size_t len, double *d)
{
    char text[SCORE_TEXT_MAX + 1], *end;
    if (len > SCORE_TEXT_MAX)
        len = SCORE_TEXT_MAX;
    memcpy(text, p, len);
    text[len] = '\0';
    *d = strtod(text, &end);
    return end == text || *end != '\0' ? -1 : 0;
}

/* rdb_elem_cb: every element is one (list, set). */
static int elem_single_cb(void *arg, const char *p, size_t len)
{
    struct build *b = arg;
    return add_member(b, p, len, b->dups_refused);
}

/* rdb_elem_cb: elements come in pairs (hash field and value, sorted-set
 * member and score). */
static int elem_pair_cb(void *arg, const char *p, size_t len)
{
    struct build *b = arg;
    if (!b->have_first) {
        b->have_first = 1;
        b->first_len = len;
        if (len <= sizeof(b->first_buf)) {
            memcpy(b->first_buf, p, len);
            b->first = b->first_buf;
        } else {
            b->first = p; /* a string entry: in the blob, which outlives the walk */
        }
        return 0;
    }
    b->have_first = 0;
    if (b->v->type == KS_HASH)
        return add_field(b, b->first, b->first_len, p, len, b->dups_refused);
    double score;
    if (parse_score(p, len, &score) < 0) {
        b->why = "score is not a number";
        return -1;
    }
    return add_scored(b, b->first, b->first_len, score, b->dups_refused);
}

enum blob_kind { BLOB_LISTPACK, BLOB_ZIPLIST, BLOB_INTSET, BLOB_ZIPMAP };

/* Reads a string holding a blob of kind and walks it into b's value. */
static int read_blob(struct rdb_in *in, struct build *b, enum blob_kind kind, int pairs)
{
    struct rdb_str s;
    if (rdb_read_string(in, &s) < 0) {
        b->why = "truncated blob";
        return -1;
    }
    const unsigned char *p = (const unsigned char *)s.p;
    rdb_elem_cb *cb = pairs ? elem_pair_cb : elem_single_cb;
    long n;
    b->have_first = 0;
    /* Redis converts the encodings it no longer keeps (ziplist, zipmap)
     * through a duplicate check whatever the sanitization; the ones it keeps
     * (listpack, intset) are checked only deeply. */
    b->dups_refused = kind == BLOB_ZIPLIST || kind == BLOB_ZIPMAP || b->deep;
    switch (kind) {
    case BLOB_LISTPACK:
        n = rdb_listpack_walk(p, s.len, cb, b);
        break;
    case BLOB_ZIPLIST:
        n = rdb_ziplist_walk(p, s.len, cb, b);
        break;
    case BLOB_INTSET:
        n = rdb_intset_walk(p, s.len, b->deep, cb, b);
        break;
    default:
        n = rdb_zipmap_walk(p, s.len, cb, b);
        break;
    }
    rdb_str_release(&s);
    if (n < 0 || (pairs && n % 2 != 0)) {
        if (!b->why)
            b->why = "malformed blob";
        return -1;
    }
    return 0;
}

/* A count of elements, each at least min_bytes long in what is left. */
static int read_count(struct rdb_in *in, struct build *b, size_t min_bytes, uint64_t *n)
{
    if (rdb_read_len(in, n, NULL) < 0 || *n > rdb_left(in) / min_bytes) {
        b->why = "bad element count";
        return -1;
    }
    return 0;
}

static int read_plain(struct rdb_in *in, struct build *b, int rdbtype)
{
    uint64_t n;
    int pairs = rdbtype == RDB_TYPE_HASH;
    if (read_count(in, b, pairs ? 2 : 1, &n) < 0)
        return -1;
    for (uint64_t i = 0; i < n; i++) {
        struct rdb_str e, val;
        if (rdb_read_string(in, &e) < 0) {
            b->why = "truncated element";
            return -1;
        }
        int rc;
        if (rdbtype == RDB_TYPE_HASH) {
            rc = rdb_read_string(in, &val);
            if (rc < 0) {
                b->why = "truncated value";
            } else {
                rc = add_field(b, e.p, e.len, val.p, val.len, 1);
                rdb_str_release(&val);
            }
        } else if (rdbtype == RDB_TYPE_ZSET || rdbtype == RDB_TYPE_ZSET_2) {
            double score;
            rc = rdbtype == RDB_TYPE_ZSET_2 ? rdb_read_binary_double(in, &score)
                                            : rdb_read_text_double(in, &score);
            if (rc < 0)
                b->why = "truncated score";
            else
                rc = add_scored(b, e.p, e.len, score, 1);
        } else {
            rc = add_member(b, e.p, e.len, 1);
        }
        rdb_str_release(&e);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int read_quicklist(struct rdb_in *in, struct build *b, int version)
{
    uint64_t nodes;
    if (read_count(in, b, version == 2 ? 2 : 1, &nodes) < 0)
        return -1;
    for (uint64_t i = 0; i < nodes; i++) {
        uint64_t container = QUICKLIST_NODE_PACKED;
        if (version == 2 && (rdb_read_len(in, &container, NULL) < 0 ||
                             (container != QUICKLIST_NODE_PLAIN &&
                              container != QUICKLIST_NODE_PACKED))) {
            b->why = "bad quicklist container";
            return -1;
        }
        if (container == QUICKLIST_NODE_PACKED) {
            /* An empty node is skipped, as Redis skips it. */
            if (read_blob(in, b, version == 2 ? BLOB_LISTPACK : BLOB_ZIPLIST, 0) < 0)
                return -1;
            continue;
        }
        struct rdb_str e;
        if (rdb_read_string(in, &e) < 0) {
            b->why = "truncated element";
            return -1;
        }
        add_member(b, e.p, e.len, 0);
        rdb_str_release(&e);
    }
    return 0;
}

/* The rbkv type an RDB type builds, or -1. */
static int ks_type_of(unsigned rdbtype)
{
    switch (rdbtype) {
    case RDB_TYPE_STRING:
        return KS_STRING;
    case RDB_TYPE_LIST:
    case RDB_TYPE_LIST_ZIPLIST:
    case RDB_TYPE_LIST_QUICKLIST:
    case RDB_TYPE_LIST_QUICKLIST_2:
        return KS_LIST;
    case RDB_TYPE_SET:
    case RDB_TYPE_SET_INTSET:
        return KS_SET;
    case RDB_TYPE_HASH:
    case RDB_TYPE_HASH_ZIPMAP:
    case RDB_TYPE_HASH_ZIPLIST:
    case RDB_TYPE_HASH_LISTPACK:
        return KS_HASH;
    case RDB_TYPE_ZSET:
    case RDB_TYPE_ZSET_2:
    case RDB_TYPE_ZSET_ZIPLIST:
    case RDB_TYPE_ZSET_LISTPACK:
        return KS_ZSET;
    case RDB_TYPE_STREAM_LISTPACKS:
    case RDB_TYPE_STREAM_LISTPACKS_2:
    case RDB_TYPE_STREAM_LISTPACKS_3:
        return KS_STREAM;
    default:
        return -1;
    }
}

static void *empty_value(int type)
{
    switch (type) {
    case KS_LIST:
        return ol_new();
    case KS_SET:
        return om_new(0);
    case KS_HASH:
        return om_new(1);
    default:
        return zs_new();
    }
}

static int read_body(struct rdb_in *in, struct build *b, unsigned rdbtype)
{
    switch (rdbtype) {
    case RDB_TYPE_LIST:
    case RDB_TYPE_SET:
    case RDB_TYPE_HASH:
    case RDB_TYPE_ZSET:
    case RDB_TYPE_ZSET_2:
        return read_plain(in, b, (int)rdbtype);
    case RDB_TYPE_LIST_QUICKLIST:
        return read_quicklist(in, b, 1);
    case RDB_TYPE_LIST_QUICKLIST_2:
        return read_quicklist(in, b, 2);
    case RDB_TYPE_LIST_ZIPLIST:
        return read_blob(in, b, BLOB_ZIPLIST, 0);
    case RDB_TYPE_SET_INTSET:
        return read_blob(in, b, BLOB_INTSET, 0);
    case RDB_TYPE_HASH_ZIPMAP:
        return read_blob(in, b, BLOB_ZIPMAP, 1);
    case RDB_TYPE_HASH_ZIPLIST:
    case RDB_TYPE_ZSET_ZIPLIST:
        return read_blob(in, b, BLOB_ZIPLIST, 1);
    default: /* RDB_TYPE_HASH_LISTPACK, RDB_TYPE_ZSET_LISTPACK */
        return read_blob(in, b, BLOB_LISTPACK, 1);
    }
}

int rdb_value_read(struct rdb_in *in, const struct rdb_limits *lim, int deep,
                   struct rdb_value *v, const char **why)
{
    unsigned rdbtype;
    *v = (struct rdb_value){0};
    if (rdb_read_byte(in, &rdbtype) < 0) {
        *why = "no type";
        return RDB_ERR_FORMAT;
    }
    return rdb_value_read_body(in, rdbtype, lim, deep, v, why);
}

int rdb_value_read_body(struct rdb_in *in, unsigned rdbtype, const struct rdb_limits *lim,
                        int deep, struct rdb_value *v, const char **why)
{
    *v = (struct rdb_value){0};
    int type = ks_type_of(rdbtype);
    if (type < 0) {
        /* A module value is what Redis without that module refuses too. */
        *why = "unknown or module type";
        return RDB_ERR_FORMAT;
    }
    v->type = type;
    /* A stream may be empty (XDEL and XTRIM leave it), unlike the others. */
    if (type == KS_STREAM) {
        struct xstream *s;
        if (rdb_stream_read(in, rdbtype, &s, why) < 0)
            return RDB_ERR_FORMAT;
        v->ptr = s;
        return 0;
    }
    if (type == KS_STRING) {
        if (rdb_read_string(in, &v->str) < 0) {
            *why = "truncated string";
            return RDB_ERR_FORMAT;
        }
        return 0;
    }
    struct build b = {.v = v, .lim = lim, .deep = deep};
    v->ptr = empty_value(type);
    if (read_body(in, &b, rdbtype) < 0 || value_len(v) == 0) {
        *why = b.why ? b.why : "empty value";
        rdb_value_release(v);
        return RDB_ERR_FORMAT;
    }
    return 0;
}

/* ---- writing ---- */

static void write_list(struct rdb_out *o, const struct olist *l)
{
    struct ol_it it;
    rdb_out_byte(o, RDB_TYPE_LIST);
    rdb_out_len(o, ol_len(l));
    for (ol_seek(l, 0, &it); ol_it_valid(&it); ol_next(&it)) {
        const char *p;
        size_t len;
        ol_it_get(&it, &p, &len);
        rdb_out_string(o, p, len);
    }
}

static void write_map(struct rdb_out *o, const struct omap *m)
{
    struct om_it it;
    rdb_out_byte(o, m->values ? RDB_TYPE_HASH : RDB_TYPE_SET);
    rdb_out_len(o, om_len(m));
    for (om_seek(m, 0, &it); om_it_valid(&it); om_next(m, &it)) {
        struct om_elem e;
        om_it_get(m, &it, &e);
        rdb_out_string(o, e.f, e.flen);
        if (m->values)
            rdb_out_string(o, e.v, e.vlen);
    }
}

static void write_zset(struct rdb_out *o, const struct zset *z)
{
    rdb_out_byte(o, RDB_TYPE_ZSET_2);
    rdb_out_len(o, zs_len(z));
    /* From the highest, as Redis writes a skiplist, so its load inserts at
     * the head of its list each time. */
    for (const struct zs_node *n = zs_last(z); n; n = zs_prev(n)) {
        rdb_out_string(o, n->member, n->len);
        rdb_out_binary_double(o, n->score);
    }
}

void rdb_value_write_string(struct rdb_out *o, const char *p, size_t len)
{
    rdb_out_byte(o, RDB_TYPE_STRING);
    rdb_out_string(o, p, len);
}

void rdb_value_write(struct rdb_out *o, int type, const void *value)
{
    switch (type) {
    case KS_LIST:
        write_list(o, value);
        break;
    case KS_SET:
    case KS_HASH:
        write_map(o, value);
        break;
    case KS_ZSET:
        write_zset(o, value);
        break;
    default: /* KS_STREAM */
        rdb_out_byte(o, RDB_TYPE_STREAM_LISTPACKS_2);
        rdb_stream_write(o, value);
        break;
    }
}
