/*
 * cmd_sort.c - SORT and SORT_RO, as Redis 7.0.15's sort.c answers them.
 *
 * Owns: sort_commands[] and one call's working state (struct sort_run),
 * freed before the handler returns. Knows nothing of sockets: the handler
 * reads argument slices, reads keys through args.h's lookups and writes its
 * reply or its stored list.
 *
 * A call runs in Redis's order, which is the order of its errors: the
 * options, left to right (a BY pattern holding '*', and every GET, refused
 * in cluster mode and for a user who may not read every key, at its place);
 * the key's type; the elements; their weights through BY (every lookup
 * made, as Redis makes them, even after a weight failed to parse); the sort;
 * then the reply, or the list STORE writes ("sortstore"; an empty result
 * deletes the destination).
 *
 * The order is Redis's sortCompare: by weight (the element's own text, or
 * its BY value; a missing BY value weighs 0), equal weights by the
 * elements' bytes; under ALPHA by the bytes as strcmp compares them
 * (Redis's strcoll in the C locales), or as memcmp with STORE, a missing
 * BY value first. The sort is stable, as glibc's merge sort under Redis's
 * qsort is: equal values keep the order the elements were read in. A LIMIT
 * that keeps few of many elements selects them with a heap over that same
 * order (the read position breaking the last ties), so the reply is the
 * full sort's.
 * Without a sort (BY a pattern without '*'), a list or sorted set gives its
 * own order, reversed by DESC, and only LIMIT's range is read; a set is
 * sorted ALPHA all the same under STORE and inside scripts, as Redis does,
 * so that the log and replicas get the same list.
 *
 * Borrowing: elements and BY values point into the keyspace's values (a
 * list's integer elements, which the list keeps as numbers, are written as
 * text into the run's nums). No value changes before the last read: every
 * lookup sees the command's one instant, so a key found live stays live,
 * and STORE writes only once its new list is whole.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "args.h"
#include "client.h"
#include "cmd_list.h"
#include "cmd_sort.h"
#include "keyspace.h"
#include "longrun.h"
#include "mem.h"
#include "notify.h"
#include "olist.h"
#include "omap.h"
#include "resp_writer.h"
#include "server.h"
#include "zset.h"

/* sort_commands' rows, which the ACL question names. */
enum { ROW_SORT, ROW_SORT_RO };

struct sort_item {
    const char *s;  /* the element */
    size_t len;
    double score;   /* its weight, when sorted by number */
    const char *by; /* under ALPHA BY, what it sorts by; NULL when missing */
    size_t bylen;
    size_t pos;     /* where it was read: the stable order's last word */
};

struct sort_opts {
    int desc, alpha, dontsort;
    long long start, count;          /* LIMIT; a negative count: all */
    const struct resp_slice *by;     /* NULL without BY (or once dropped) */
    const struct resp_slice *store;  /* NULL without STORE */
    const struct resp_slice **gets;  /* the GET patterns, in order */
    int ngets;
};

/* One call's scratch, each buffer owned here and freed by run_free. */
struct sort_run {
    struct sort_item *v;
    size_t n;
    char (*nums)[24]; /* a list's integer elements as text */
    size_t nnums;
    char *key;        /* the key a pattern names */
    size_t keycap;
    char *text;       /* a long weight, NUL-terminated for strtod */
    size_t textcap;
};

static void run_free(struct sort_run *run)
{
    xfree(run->v);
    xfree(run->nums);
    xfree(run->key);
    xfree(run->text);
}

/* buf grown to at least need bytes. */
static char *grow(char **buf, size_t *cap, size_t need)
{
    if (need > *cap) {
        *cap = need > 2 * *cap ? need : 2 * *cap;
        *buf = xrealloc(*buf, *cap);
    }
    return *buf;
}

/* How much of a slice Redis's strchr and strstr see: up to its first NUL. */
static size_t cstr_len(const char *p, size_t len)
{
    const char *z = memchr(p, '\0', len);
    return z ? (size_t)(z - p) : len;
}

/* ---- patterns ------------------------------------------------------------ */

/* Redis's lookupKeyByPattern: "#" is the element itself; otherwise the
 * first '*' is replaced by the element and the key read as a string, or,
 * when "->" and a field follow the '*', as a hash and the field's value.
 * A pattern without '*', a missing key, field, or a key of another type
 * give nothing. Returns 1 with *v, *vlen set (borrowed), or 0. */
static int pattern_value(struct client *c, struct sort_run *run, const struct resp_slice *pat,
                         const char *el, size_t ellen, const char **v, size_t *vlen)
{
    size_t clen = cstr_len(pat->ptr, pat->len);
    if (clen == 1 && pat->ptr[0] == '#') {
        *v = el;
        *vlen = ellen;
        return 1;
    }
    const char *star = memchr(pat->ptr, '*', clen);
    if (!star)
        return 0;
    size_t pre = (size_t)(star - pat->ptr);
    const char *field = NULL;
    size_t flen = 0;
    for (size_t i = pre + 1; i + 2 < clen; i++) {
        if (pat->ptr[i] == '-' && pat->ptr[i + 1] == '>') {
            field = pat->ptr + i + 2;
            flen = pat->len - i - 2;
            break;
        }
    }
    size_t post = pat->len - pre - 1 - (field ? flen + 2 : 0);
    size_t klen = pre + ellen + post;
    char *k = grow(&run->key, &run->keycap, klen ? klen : 1);
    memcpy(k, pat->ptr, pre);
    memcpy(k + pre, el, ellen);
    memcpy(k + pre + ellen, star + 1, post);

    struct resp_slice key = {k, klen};
    struct ks_entry *e = lookup_read(c, &key);
    if (!e)
        return 0;
    if (field)
        return e->type == KS_HASH && om_get(ks_ptr(e), field, flen, v, vlen);
    if (e->type != KS_STRING)
        return 0;
    *v = ks_str(e);
    *vlen = ks_slen(e);
    return 1;
}

/* ---- options ------------------------------------------------------------- */

/* Whether c may use a BY pattern or GET (what names the option): not in
 * cluster mode, where the keys could live anywhere, and only for a user who
 * may read every key, since the keys come from the data. *full caches the
 * ACL's answer (-1: not asked yet). Replies the refusal. */
static int pattern_allowed_or_reply(struct client *c, int readonly, const char *what, int *full)
{
    if (server.cfg.cluster_enabled) {
        resp_add_errorf(&c->out, "ERR %s option of SORT denied in Cluster mode.", what);
        return -1;
    }
    if (*full < 0)
        *full = acl_reads_every_key(c->user, &sort_commands[readonly ? ROW_SORT_RO : ROW_SORT],
                                    c->argc, c->argv);
    if (!*full) {
        resp_add_errorf(&c->out,
                        "ERR %s option of SORT denied due to insufficient ACL permissions.", what);
        return -1;
    }
    return 0;
}

/* Redis's option loop: each word where it stands, the last of a repeated
 * one winning, except that a BY without '*' leaves the call unsorted even
 * when a later BY has one (Redis never clears its dontsort). */
static int sort_opts_or_reply(struct client *c, int readonly, struct sort_opts *o)
{
    int full = -1;

    for (int j = 2; j < c->argc; j++) {
        const struct resp_slice *a = &c->argv[j];
        int left = c->argc - j - 1;
        if (arg_is(a, "asc")) {
            o->desc = 0;
        } else if (arg_is(a, "desc")) {
            o->desc = 1;
        } else if (arg_is(a, "alpha")) {
            o->alpha = 1;
        } else if (arg_is(a, "limit") && left >= 2) {
            if (arg_ll_or_reply(c, &c->argv[j + 1], &o->start) < 0 ||
                arg_ll_or_reply(c, &c->argv[j + 2], &o->count) < 0)
                return -1;
            j += 2;
        } else if (!readonly && arg_is(a, "store") && left >= 1) {
            o->store = &c->argv[++j];
        } else if (arg_is(a, "by") && left >= 1) {
            o->by = &c->argv[++j];
            if (!memchr(o->by->ptr, '*', cstr_len(o->by->ptr, o->by->len)))
                o->dontsort = 1;
            else if (pattern_allowed_or_reply(c, readonly, "BY", &full) < 0)
                return -1;
        } else if (arg_is(a, "get") && left >= 1) {
            if (pattern_allowed_or_reply(c, readonly, "GET", &full) < 0)
                return -1;
            o->gets[o->ngets++] = &c->argv[++j];
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return -1;
        }
    }
    return 0;
}

/* ---- the elements -------------------------------------------------------- */

static void add_item(struct sort_run *run, const char *s, size_t len)
{
    run->v[run->n] = (struct sort_item){.s = s, .len = len, .pos = run->n};
    run->n++;
}

/* n elements of l from position from, towards the head when backwards. */
static void load_list(struct sort_run *run, const struct olist *l, size_t from, size_t n,
                      int backwards)
{
    struct ol_it it;
    if (!n || ol_seek(l, from, &it) < 0)
        return;
    run->nums = xmalloc(sizeof(*run->nums) * n);
    for (size_t i = 0; i < n && ol_it_valid(&it); i++) {
        const char *v;
        size_t vlen;
        ol_it_get(&it, &v, &vlen);
        if (v == it.num) {
            /* it.num is rewritten at the next step: the text is kept. */
            memcpy(run->nums[run->nnums], v, vlen);
            v = run->nums[run->nnums++];
        }
        add_item(run, v, vlen);
        if (backwards)
            ol_prev(&it);
        else
            ol_next(&it);
    }
}

static void load_set(struct sort_run *run, const struct omap *m)
{
    struct om_it it;
    for (int ok = om_seek(m, 0, &it) == 0; ok && om_it_valid(&it); om_next(m, &it)) {
        struct om_elem e;
        om_it_get(m, &it, &e);
        add_item(run, e.f, e.flen);
    }
}

/* n members of z from rank from, towards the lowest when backwards. */
static void load_zset(struct sort_run *run, const struct zset *z, size_t from, size_t n,
                      int backwards)
{
    const struct zs_node *node = n ? zs_select(z, from) : NULL;
    for (size_t i = 0; i < n && node; i++) {
        add_item(run, node->member, node->len);
        node = backwards ? zs_prev(node) : zs_next(node);
    }
}

/* ---- weights and order --------------------------------------------------- */

/* A weight as Redis reads one: strtod over the text as a C string (an
 * embedded NUL ends it, and "" is 0), refused when anything follows, out
 * of range (ERANGE, an underflow too) or NaN. 0, or -1 when refused. */
static int weight_of(struct sort_run *run, const char *s, size_t len, double *out)
{
    char small[64];
    char *buf = len < sizeof(small) ? small : grow(&run->text, &run->textcap, len + 1);
    char *end;

    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    *out = strtod(buf, &end);
    return *end == '\0' && errno != ERANGE && !isnan(*out) ? 0 : -1;
}

/* Fills each item's weight, or its ALPHA BY value. Returns -1 when a
 * weight did not parse (Redis's "One or more scores ..."), after reading
 * them all. */
static int load_weights(struct client *c, struct sort_run *run, const struct sort_opts *o)
{
    int failed = 0;
    for (size_t j = 0; j < run->n; j++) {
        struct sort_item *it = &run->v[j];
        const char *w = it->s;
        size_t wlen = it->len;
        if (o->by && !pattern_value(c, run, o->by, it->s, it->len, &w, &wlen))
            continue;
        if (o->alpha) {
            if (o->by) {
                it->by = w;
                it->bylen = wlen;
            }
        } else if (weight_of(run, w, wlen, &it->score) < 0) {
            failed = 1;
        }
    }
    return failed ? -1 : 0;
}

struct sort_order {
    int desc, alpha, by, binary; /* binary: memcmp (STORE), else strcmp's order */
};

static int bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int r = memcmp(a, b, alen < blen ? alen : blen);
    return r ? r : (alen > blen) - (alen < blen);
}

/* strcmp's order on the slices as C strings (each ends at its first NUL). */
static int cstr_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    const char *z = memchr(a, '\0', n);
    if (z)
        n = (size_t)(z - a) + 1;
    int r = memcmp(a, b, n);
    if (r || z)
        return r;
    /* Equal over the shorter one, which holds no NUL: the longer one is
     * greater unless a NUL ends it right there. */
    if (alen < blen)
        return b[n] ? -1 : 0;
    if (alen > blen)
        return a[n] ? 1 : 0;
    return 0;
}

static int text_cmp(const struct sort_order *k, const char *a, size_t alen, const char *b,
                    size_t blen)
{
    return k->binary ? bytes_cmp(a, alen, b, blen) : cstr_cmp(a, alen, b, blen);
}

/* Redis's sortCompare. */
static int item_cmp(const struct sort_order *k, const struct sort_item *a,
                    const struct sort_item *b)
{
    int cmp;
    if (!k->alpha) {
        if (a->score != b->score)
            cmp = a->score > b->score ? 1 : -1;
        else
            cmp = bytes_cmp(a->s, a->len, b->s, b->len);
    } else if (k->by) {
        if (!a->by || !b->by)
            cmp = a->by == b->by ? 0 : a->by ? 1 : -1;
        else
            cmp = text_cmp(k, a->by, a->bylen, b->by, b->bylen);
    } else {
        cmp = text_cmp(k, a->s, a->len, b->s, b->len);
    }
    return k->desc ? -cmp : cmp;
}

/* A stable merge sort of v[0..n) with tmp[0..n/2) as scratch. */
static void merge_sort(struct sort_item *v, struct sort_item *tmp, size_t n,
                       const struct sort_order *k)
{
    if (n <= 8) {
        for (size_t i = 1; i < n; i++) {
            struct sort_item x = v[i];
            size_t j = i;
            for (; j > 0 && item_cmp(k, &v[j - 1], &x) > 0; j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    merge_sort(v, tmp, h, k);
    merge_sort(v + h, tmp, n - h, k);
    if (item_cmp(k, &v[h - 1], &v[h]) <= 0)
        return;
    memcpy(tmp, v, sizeof(*v) * h);
    size_t i = 0, j = h, out = 0;
    while (i < h && j < n)
        v[out++] = item_cmp(k, &v[j], &tmp[i]) < 0 ? v[j++] : tmp[i++];
    while (i < h)
        v[out++] = tmp[i++];
}

/* The stable order as a total one: equal values by where they were read. */
static int item_before(const struct sort_order *k, const struct sort_item *a,
                       const struct sort_item *b)
{
    int cmp = item_cmp(k, a, b);
    return cmp ? cmp < 0 : a->pos < b->pos;
}

/* Restores the max-heap v[0..n) (its last item first) below i. */
static void sift_down(struct sort_item *v, size_t i, size_t n, const struct sort_order *k)
{
    for (;;) {
        size_t top = i, l = 2 * i + 1, r = l + 1;
        if (l < n && item_before(k, &v[top], &v[l]))
            top = l;
        if (r < n && item_before(k, &v[top], &v[r]))
            top = r;
        if (top == i)
            return;
        struct sort_item t = v[i];
        v[i] = v[top];
        v[top] = t;
        i = top;
    }
}

/* The first want items of v[0..n)'s stable order into v[0..want), sorted,
 * in O(n log want): a LIMIT that keeps a few of many reads no more than
 * that (Redis sorts partially too, for BY). The rest of v is left in no
 * order. */
static void partial_sort(struct sort_item *v, size_t n, size_t want, const struct sort_order *k)
{
    for (size_t i = want / 2; i-- > 0;)
        sift_down(v, i, want, k);
    for (size_t j = want; j < n; j++) {
        if (item_before(k, &v[j], &v[0])) {
            struct sort_item t = v[0];
            v[0] = v[j];
            v[j] = t;
            sift_down(v, 0, want, k);
        }
    }
    for (size_t last = want; last > 1; last--) {
        struct sort_item t = v[0];
        v[0] = v[last - 1];
        v[last - 1] = t;
        sift_down(v, 0, last - 1, k);
    }
}

/* ---- the result ---------------------------------------------------------- */

static void reply_items(struct client *c, struct sort_run *run, const struct sort_opts *o,
                        size_t lo, size_t n)
{
    resp_add_array_len(&c->out, o->ngets ? (size_t)o->ngets * n : n);
    for (size_t j = lo; j < lo + n; j++) {
        const struct sort_item *it = &run->v[j];
        if (!o->ngets)
            resp_add_bulk(&c->out, it->s, it->len);
        for (int g = 0; g < o->ngets; g++) {
            const char *v;
            size_t vlen;
            if (pattern_value(c, run, o->gets[g], it->s, it->len, &v, &vlen))
                resp_add_bulk(&c->out, v, vlen);
            else
                resp_add_null(&c->out);
        }
    }
}

/* STORE: the result as a list (a missing GET value as ""), replacing the
 * destination, or deleting it when empty. */
static void store_items(struct client *c, struct sort_run *run, const struct sort_opts *o,
                        size_t lo, size_t n)
{
    size_t total = o->ngets ? (size_t)o->ngets * n : n;
    struct olist *l = ol_new();
    struct ol_limits lim;

    list_limits(&lim);
    for (size_t j = lo; j < lo + n; j++) {
        const struct sort_item *it = &run->v[j];
        if (!o->ngets)
            ol_push(&l, 1, it->s, it->len, &lim);
        for (int g = 0; g < o->ngets; g++) {
            const char *v = "";
            size_t vlen = 0;
            pattern_value(c, run, o->gets[g], it->s, it->len, &v, &vlen);
            ol_push(&l, 1, v, vlen, &lim);
        }
    }
    if (!total) {
        ol_free(l);
        l = NULL;
    }
    store_and_reply(c, o->store, KS_LIST, l, total, NOTIFY_LIST, "sortstore");
    /* Redis counts each element stored as a change. */
    if (total > 1)
        server.dirty += total - 1;
}

/* ---- the commands -------------------------------------------------------- */

static size_t value_len(int type, const void *value)
{
    if (!value)
        return 0;
    if (type == KS_LIST)
        return ol_len(value);
    return type == KS_SET ? om_len(value) : zs_len(value);
}

/* Loads the elements of value (a list, set or sorted set of len elements;
 * NULL: empty) that the call reads, and narrows [*start, *end] to run->v's
 * positions. */
static void load_elements(struct sort_run *run, const struct sort_opts *o, int type,
                          const void *value, long long len, long long *start, long long *end)
{
    /* Unsorted, a list or sorted set reads only the range, in its order. */
    int ranged = o->dontsort && type != KS_SET;
    size_t want = ranged ? (size_t)(*end >= *start ? *end - *start + 1 : 0) : (size_t)len;

    run->v = xmalloc(sizeof(*run->v) * (want ? want : 1));
    if (!want)
        return;
    if (ranged) {
        size_t from = (size_t)(o->desc ? len - *start - 1 : *start);
        if (type == KS_LIST)
            load_list(run, value, from, want, o->desc);
        else
            load_zset(run, value, from, want, o->desc);
        *end -= *start;
        *start = 0;
    } else if (type == KS_LIST) {
        load_list(run, value, 0, want, 0);
    } else if (type == KS_SET) {
        load_set(run, value);
    } else {
        load_zset(run, value, 0, want, 0);
    }
}

/* SORT after its options: the key read, sorted and answered or stored. */
static void sort_key(struct client *c, struct sort_opts *o, struct sort_run *run)
{
    struct ks_entry *e = lookup_read(c, &c->argv[1]);
    if (e && e->type != KS_LIST && e->type != KS_SET && e->type != KS_ZSET) {
        resp_add_error(&c->out, ERR_WRONGTYPE);
        return;
    }
    /* A missing key sorts as an empty list. */
    int type = e ? e->type : KS_LIST;
    const void *value = e ? ks_ptr(e) : NULL;

    /* A set has no order of its own that replicas and the log would share:
     * for them, and for a script's determinism, Redis sorts it ALPHA. */
    if (o->dontsort && type == KS_SET && (o->store || c->id == CLIENT_ID_LONG_RUN)) {
        o->dontsort = 0;
        o->alpha = 1;
        o->by = NULL;
    }

    /* LIMIT as Redis bounds it: offset and count clamped to the length
     * first, so nothing overflows; an empty range has start > end. */
    long long len = (long long)value_len(type, value);
    long long start = o->start < 0 ? 0 : o->start > len ? len : o->start;
    long long count = o->count < 0 ? -1 : o->count > len ? len : o->count;
    long long end = count < 0 ? len - 1 : start + count - 1;
    if (start >= len) {
        start = len - 1;
        end = len - 2;
    }
    if (end >= len)
        end = len - 1;

    load_elements(run, o, type, value, len, &start, &end);
    if (!o->dontsort) {
        if (load_weights(c, run, o) < 0) {
            resp_add_error(&c->out, "ERR One or more scores can't be converted into double");
            return;
        }
        struct sort_order k = {o->desc, o->alpha, o->by != NULL, o->store != NULL};
        /* Only the order's first end + 1 items are ever read. */
        size_t want = end >= start ? (size_t)end + 1 : 0;
        if (want && want <= run->n / 4) {
            partial_sort(run->v, run->n, want, &k);
        } else if (want) {
            struct sort_item *tmp = xmalloc(sizeof(*tmp) * (run->n / 2 + 1));
            merge_sort(run->v, tmp, run->n, &k);
            xfree(tmp);
        }
    }

    /* The range lies inside what was loaded; the bound says so. */
    size_t lo = end >= start ? (size_t)start : 0;
    size_t n = end >= start ? (size_t)(end - start + 1) : 0;
    if (lo > run->n || n > run->n - lo)
        n = 0;
    if (o->store)
        store_items(c, run, o, lo, n);
    else
        reply_items(c, run, o, lo, n);
}

static void sort_generic(struct client *c, int readonly)
{
    struct sort_opts o = {.count = -1};
    struct sort_run run = {0};

    o.gets = xmalloc(sizeof(*o.gets) * (size_t)c->argc);
    if (sort_opts_or_reply(c, readonly, &o) == 0)
        sort_key(c, &o, &run);
    run_free(&run);
    xfree(o.gets);
}

static void cmd_sort(struct client *c)
{
    sort_generic(c, 0);
}

static void cmd_sort_ro(struct client *c)
{
    sort_generic(c, 1);
}

/* ROW_SORT and ROW_SORT_RO name these rows. SORT's keys are found by
 * key_specs.c (Redis's sortGetKeys), and it touches for WATCH only what
 * STORE writes. */
const struct command sort_commands[] = {
    {.name = "sort", .proc = cmd_sort, .arity = -2,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_MOVABLE_KEYS | CMD_TOUCHES_OWN_KEYS, .first_key = 1,
     .last_key = 1, .key_step = 1, .group = "generic"},
    {.name = "sort_ro", .proc = cmd_sort_ro, .arity = -2,
     .flags = CMD_READONLY | CMD_MOVABLE_KEYS, .first_key = 1, .last_key = 1, .key_step = 1,
     .group = "generic"},
    {0},
};
