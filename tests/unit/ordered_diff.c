/*
 * ordered_diff.c - the model and the random operations of the ordered
 * commands' differential test (see ordered_diff.h).
 *
 * The model answers every query by brute force over its sorted array,
 * restating each command's definition (ZRANGE's rank rules, lex bounds,
 * LIMIT, KSPLIT's positions, glob '*' and '?') without the server's span
 * arithmetic, so the two share no code that could be wrong the same way.
 * Replies are compared in a text form: :n, (nil), 'bulk' (bytes outside
 * printable ASCII as \xHH), +status, -error, [a, b].
 */
#include "ordered_diff.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h" /* the generator only */

#define KEY_MAX 4
#define UNIVERSE 781 /* keys of length 0..4 over 5 bytes: 1 + 5 + 25 + 125 + 625 */
#define VALUE_MAX 16
#define ARGS_MAX 16
#define ARENA_BYTES 512

static const char alphabet[] = {'\0', ':', 'a', 'b', '\xff'};

enum { TYPE_STRING, TYPE_OTHER };

struct mkey {
    char p[KEY_MAX];
    size_t len;
};

struct mentry {
    struct mkey key;
    char val[VALUE_MAX];
    size_t vlen;
    int type;
};

/* A lex bound as the model sees it: '-', '+', '[' or '(' and a key, or
 * 'x' for an argument that is not a bound at all. */
struct mbound {
    char kind;
    struct mkey key;
};

/* Text forms grow in a heap buffer. */
struct buf {
    char *p;
    size_t len, cap;
};

/* One command: arguments point into the arena. */
struct cmd {
    int argc;
    const char *argv[ARGS_MAX];
    size_t lens[ARGS_MAX];
    char arena[ARENA_BYTES];
    size_t used;
};

struct od {
    const struct od_target *t;
    uint64_t rng;
    long op;
    struct mentry m[UNIVERSE];
    size_t n;
    struct buf want, got, line;
};

static uint64_t rnd(struct od *d)
{
    return rng_next(&d->rng);
}

static long rnd_in(struct od *d, long lo, long hi)
{
    return lo + (long)(rnd(d) % (uint64_t)(hi - lo + 1));
}

static int chance(struct od *d, int percent)
{
    return rnd(d) % 100 < (uint64_t)percent;
}

static void buf_put(struct buf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(struct buf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    buf_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void buf_bytes(struct buf *b, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '\'' && ch != '\\')
            buf_put(b, &p[i], 1);
        else
            buf_printf(b, "\\x%02x", ch);
    }
}

static void buf_bulk(struct buf *b, const char *p, size_t n)
{
    buf_put(b, "'", 1);
    buf_bytes(b, p, n);
    buf_put(b, "'", 1);
}

static void repr(struct buf *b, const redisReply *r)
{
    switch (r->type) {
    case REDIS_REPLY_INTEGER:
        buf_printf(b, ":%lld", r->integer);
        return;
    case REDIS_REPLY_NIL:
        buf_put(b, "(nil)", 5);
        return;
    case REDIS_REPLY_STRING:
        buf_bulk(b, r->str, r->len);
        return;
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR:
        buf_put(b, r->type == REDIS_REPLY_STATUS ? "+" : "-", 1);
        buf_put(b, r->str, r->len);
        return;
    case REDIS_REPLY_ARRAY:
        buf_put(b, "[", 1);
        for (size_t i = 0; i < r->elements; i++) {
            if (i)
                buf_put(b, ", ", 2);
            repr(b, r->element[i]);
        }
        buf_put(b, "]", 1);
        return;
    default:
        buf_printf(b, "<reply type %d>", r->type);
    }
}

/* ---- The model ---- */

static int key_cmp(const struct mkey *a, const struct mkey *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int r = n ? memcmp(a->p, b->p, n) : 0;
    return r ? r : (a->len > b->len) - (a->len < b->len);
}

/* The first index whose key is >= k. */
static size_t m_lower(const struct od *d, const struct mkey *k)
{
    size_t i = 0;
    while (i < d->n && key_cmp(&d->m[i].key, k) < 0)
        i++;
    return i;
}

static struct mentry *m_find(struct od *d, const struct mkey *k)
{
    size_t i = m_lower(d, k);
    return i < d->n && key_cmp(&d->m[i].key, k) == 0 ? &d->m[i] : NULL;
}

static void m_remove(struct od *d, struct mentry *e)
{
    size_t i = (size_t)(e - d->m);
    memmove(&d->m[i], &d->m[i + 1], (d->n - i - 1) * sizeof(d->m[0]));
    d->n--;
}

/* Inserts k (absent) and returns its entry. */
static struct mentry *m_insert(struct od *d, const struct mkey *k)
{
    size_t i = m_lower(d, k);
    memmove(&d->m[i + 1], &d->m[i], (d->n - i) * sizeof(d->m[0]));
    d->n++;
    d->m[i].key = *k;
    return &d->m[i];
}

static int admits_min(const struct mbound *b, const struct mkey *k)
{
    int c = key_cmp(k, &b->key);
    return b->kind == '-' || (b->kind == '[' && c >= 0) || (b->kind == '(' && c > 0);
}

static int admits_max(const struct mbound *b, const struct mkey *k)
{
    int c = key_cmp(k, &b->key);
    return b->kind == '+' || (b->kind == '[' && c <= 0) || (b->kind == '(' && c < 0);
}

static int has_prefix(const struct mkey *k, const struct mkey *p)
{
    return k->len >= p->len && (p->len == 0 || memcmp(k->p, p->p, p->len) == 0);
}

static int glob(const char *p, size_t pn, const char *s, size_t sn)
{
    if (pn == 0)
        return sn == 0;
    if (p[0] == '*')
        return glob(p + 1, pn - 1, s, sn) || (sn > 0 && glob(p, pn, s + 1, sn - 1));
    if (sn == 0 || (p[0] != '?' && p[0] != s[0]))
        return 0;
    return glob(p + 1, pn - 1, s + 1, sn - 1);
}

/* ---- Random arguments ---- */

static struct mkey rnd_key(struct od *d, size_t max_len)
{
    struct mkey k;
    k.len = (size_t)rnd_in(d, 0, (long)max_len);
    for (size_t i = 0; i < k.len; i++)
        k.p[i] = alphabet[rnd(d) % sizeof(alphabet)];
    return k;
}

/* Mostly a key the model holds, so ranks and bounds land on keys. */
static struct mkey rnd_probe(struct od *d)
{
    if (d->n && chance(d, 50))
        return d->m[rnd(d) % d->n].key;
    return rnd_key(d, KEY_MAX);
}

static struct mbound rnd_bound(struct od *d, int allow_invalid)
{
    static const char kinds[] = "-+[[[(((";
    struct mbound b = {kinds[rnd(d) % (sizeof(kinds) - 1)], rnd_probe(d)};
    if (allow_invalid && chance(d, 3))
        b.kind = 'x';
    return b;
}

static const char *const type_names[] = {"string", "zset", "STRING", "nosuchtype"};
static const int type_of_name[] = {TYPE_STRING, TYPE_OTHER, TYPE_STRING, -1};

/* ---- Commands ---- */

static void cmd_start(struct cmd *c)
{
    c->argc = 0;
    c->used = 0;
}

static void cmd_arg(struct cmd *c, const char *p, size_t n)
{
    if (c->argc == ARGS_MAX || c->used + n > sizeof(c->arena))
        abort();
    memcpy(c->arena + c->used, p, n);
    c->argv[c->argc] = c->arena + c->used;
    c->lens[c->argc++] = n;
    c->used += n;
}

static void cmd_str(struct cmd *c, const char *s)
{
    cmd_arg(c, s, strlen(s));
}

static void cmd_long(struct cmd *c, long v)
{
    char tmp[24];
    cmd_arg(c, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%ld", v));
}

static void cmd_key(struct cmd *c, const struct mkey *k)
{
    cmd_arg(c, k->p, k->len);
}

static void cmd_bound(struct cmd *c, const struct mbound *b)
{
    char tmp[KEY_MAX + 1];
    tmp[0] = b->kind;
    memcpy(tmp + 1, b->key.p, b->key.len);
    cmd_arg(c, tmp, b->kind == '-' || b->kind == '+' ? 1 : b->key.len + 1);
}

/* Sends c and compares its reply's text with d->want. Returns 0 or -1. */
static int run(struct od *d, const struct cmd *c)
{
    redisReply *r = d->t->call(d->t->ctx, c->argc, c->argv, c->lens);
    d->got.len = 0;
    if (r)
        repr(&d->got, r);
    else
        buf_put(&d->got, "<no reply>", 10);
    freeReplyObject(r);
    if (r && d->got.len == d->want.len && memcmp(d->got.p, d->want.p, d->got.len) == 0)
        return 0;
    d->line.len = 0;
    for (int i = 0; i < c->argc; i++) {
        buf_put(&d->line, " ", i > 0);
        buf_bulk(&d->line, c->argv[i], c->lens[i]);
    }
    fprintf(stderr, "operation %ld: %s\n  expected: %s\n  got:      %s\n", d->op, d->line.p,
            d->want.p, d->got.p);
    return -1;
}

static void want_reset(struct od *d)
{
    d->want.len = 0;
}

/* The expected reply to a listing: each entry's key, and with values its
 * value or nil, flat (RESP2). */
static void want_list(struct od *d, struct mentry *const *list, size_t n, int withvalues)
{
    buf_put(&d->want, "[", 1);
    for (size_t i = 0; i < n; i++) {
        buf_put(&d->want, ", ", i ? 2 : 0);
        buf_bulk(&d->want, list[i]->key.p, list[i]->key.len);
        if (!withvalues)
            continue;
        buf_put(&d->want, ", ", 2);
        if (list[i]->type == TYPE_STRING)
            buf_bulk(&d->want, list[i]->val, list[i]->vlen);
        else
            buf_put(&d->want, "(nil)", 5);
    }
    buf_put(&d->want, "]", 1);
}

/* Options of a listing, chosen at random and applied as the commands
 * define them: reverse, keep one type, skip offset, keep count. */
struct listing {
    int rev, withvalues, limit, type_i; /* type_i: index in type_names, or -1 */
    long offset, count;
};

static struct listing rnd_listing(struct od *d, int allow_limit, int allow_type)
{
    struct listing l = {chance(d, 50), chance(d, 30), allow_limit && chance(d, 50), -1, 0, -1};
    if (allow_type && chance(d, 15))
        l.type_i = (int)(rnd(d) % (sizeof(type_names) / sizeof(type_names[0])));
    if (l.limit) {
        l.offset = rnd_in(d, -1, (long)d->n + 2);
        l.count = rnd_in(d, -2, (long)d->n + 2);
    }
    return l;
}

/* Filters in[0..n) (already in listing order) into out by type, offset and
 * count; returns how many remain. */
static size_t apply_listing(const struct listing *l, struct mentry **in, size_t n,
                            struct mentry **out)
{
    size_t kept = 0, skipped = 0;
    if (l->offset < 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (l->type_i >= 0 && in[i]->type != type_of_name[l->type_i])
            continue;
        if (skipped < (size_t)l->offset) {
            skipped++;
            continue;
        }
        if (l->count >= 0 && kept == (size_t)l->count)
            break;
        out[kept++] = in[i];
    }
    return kept;
}

/* Appends the option words of l to c in a random order. */
static void cmd_listing(struct od *d, struct cmd *c, const struct listing *l, int bylex)
{
    int order[5] = {0, 1, 2, 3, 4};
    for (int i = 4; i > 0; i--) {
        int j = (int)(rnd(d) % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < 5; i++) {
        if (order[i] == 0 && bylex)
            cmd_str(c, chance(d, 50) ? "BYLEX" : "bylex");
        if (order[i] == 1 && l->rev)
            cmd_str(c, "REV");
        if (order[i] == 2 && l->withvalues)
            cmd_str(c, "WITHVALUES");
        if (order[i] == 3 && l->limit) {
            cmd_str(c, "LIMIT");
            cmd_long(c, l->offset);
            cmd_long(c, l->count);
        }
        if (order[i] == 4 && l->type_i >= 0) {
            cmd_str(c, "TYPE");
            cmd_str(c, type_names[l->type_i]);
        }
    }
}

/* The model's entries in order (or reversed) into list; returns n. */
static size_t all_entries(struct od *d, int rev, struct mentry **list)
{
    for (size_t i = 0; i < d->n; i++)
        list[i] = &d->m[rev ? d->n - 1 - i : i];
    return d->n;
}

static int op_krange_rank(struct od *d, struct cmd *c)
{
    struct mentry *all[UNIVERSE], *sel[UNIVERSE], *out[UNIVERSE];
    struct listing l = rnd_listing(d, 0, 1);
    long n = (long)d->n, start = rnd_in(d, -n - 3, n + 3), stop = rnd_in(d, -n - 3, n + 3);
    int bad_limit = chance(d, 2);

    cmd_str(c, "KRANGE");
    cmd_long(c, start);
    cmd_long(c, stop);
    cmd_listing(d, c, &l, 0);
    if (bad_limit) {
        cmd_str(c, "LIMIT");
        cmd_str(c, "0");
        cmd_str(c, "1");
        buf_printf(&d->want, "-ERR syntax error, LIMIT is only supported in combination with "
                             "BYLEX");
        return run(d, c);
    }
    all_entries(d, l.rev, all);
    size_t k = 0;
    for (long r = start < 0 ? start + n : start; r <= (stop < 0 ? stop + n : stop) && r < n; r++)
        if (r >= 0)
            sel[k++] = all[r];
    want_list(d, out, apply_listing(&l, sel, k, out), l.withvalues);
    return run(d, c);
}

/* Appends "min max" (or, with prefix_ok, sometimes "PREFIX p") to c and
 * collects the model's entries in it, ascending. Returns the count, or -1
 * when an argument is not a valid bound. */
static long rnd_span(struct od *d, struct cmd *c, int prefix_ok, int rev_args,
                     struct mentry **list)
{
    size_t k = 0;
    if (prefix_ok && chance(d, 30)) {
        struct mkey p = rnd_key(d, 3);
        cmd_str(c, "PREFIX");
        cmd_key(c, &p);
        for (size_t i = 0; i < d->n; i++)
            if (has_prefix(&d->m[i].key, &p))
                list[k++] = &d->m[i];
        return (long)k;
    }
    struct mbound min = rnd_bound(d, 1), max = rnd_bound(d, 1);
    cmd_bound(c, rev_args ? &max : &min);
    cmd_bound(c, rev_args ? &min : &max);
    if (min.kind == 'x' || max.kind == 'x')
        return -1;
    for (size_t i = 0; i < d->n; i++)
        if (admits_min(&min, &d->m[i].key) && admits_max(&max, &d->m[i].key))
            list[k++] = &d->m[i];
    return (long)k;
}

static void want_lex_error(struct od *d)
{
    buf_printf(&d->want, "-ERR min or max not valid string range item");
}

static void reverse(struct mentry **list, size_t n)
{
    for (size_t i = 0; i < n / 2; i++) {
        struct mentry *t = list[i];
        list[i] = list[n - 1 - i];
        list[n - 1 - i] = t;
    }
}

static int op_krange_lex(struct od *d, struct cmd *c)
{
    struct mentry *sel[UNIVERSE], *out[UNIVERSE];
    struct listing l = rnd_listing(d, 1, 1);

    cmd_str(c, "KRANGE");
    long k = rnd_span(d, c, 0, l.rev, sel);
    cmd_listing(d, c, &l, 1);
    if (k < 0) {
        want_lex_error(d);
    } else {
        if (l.rev)
            reverse(sel, (size_t)k);
        want_list(d, out, apply_listing(&l, sel, (size_t)k, out), l.withvalues);
    }
    return run(d, c);
}

static int op_kprefix(struct od *d, struct cmd *c)
{
    struct mentry *all[UNIVERSE], *sel[UNIVERSE], *out[UNIVERSE];
    struct listing l = rnd_listing(d, 1, 0);
    struct mkey p = rnd_key(d, 3);
    size_t k = 0;

    cmd_str(c, "KPREFIX");
    cmd_key(c, &p);
    cmd_listing(d, c, &l, 0);
    for (size_t i = 0, n = all_entries(d, l.rev, all); i < n; i++)
        if (has_prefix(&all[i]->key, &p))
            sel[k++] = all[i];
    want_list(d, out, apply_listing(&l, sel, k, out), l.withvalues);
    return run(d, c);
}

static int op_kcount(struct od *d, struct cmd *c)
{
    struct mentry *sel[UNIVERSE];
    cmd_str(c, "KCOUNT");
    long k = rnd_span(d, c, 1, 0, sel);
    if (k < 0)
        want_lex_error(d);
    else
        buf_printf(&d->want, ":%ld", k);
    return run(d, c);
}

static int op_krank(struct od *d, struct cmd *c)
{
    int rev = chance(d, 50);
    struct mkey k = rnd_probe(d);
    struct mentry *e = m_find(d, &k);

    cmd_str(c, rev ? "KREVRANK" : "KRANK");
    cmd_key(c, &k);
    if (!e)
        buf_put(&d->want, "(nil)", 5);
    else
        buf_printf(&d->want, ":%zu", rev ? d->n - 1 - (size_t)(e - d->m) : (size_t)(e - d->m));
    return run(d, c);
}

/* KFIRST, KLAST, KNEXT, KPREV with or without a count. */
static int op_neighbours(struct od *d, struct cmd *c)
{
    static const char *const names[] = {"KFIRST", "KLAST", "KNEXT", "KPREV"};
    struct mentry *all[UNIVERSE], *sel[UNIVERSE];
    int which = (int)(rnd(d) % 4), rev = which == 1 || which == 3, has_key = which >= 2;
    struct mkey key = rnd_probe(d);
    long count = 1;
    size_t k = 0;

    cmd_str(c, names[which]);
    if (has_key)
        cmd_key(c, &key);
    if (chance(d, 70)) {
        count = rnd_in(d, 0, (long)d->n + 2);
        cmd_long(c, count);
    }
    for (size_t i = 0, n = all_entries(d, rev, all); i < n && k < (size_t)count; i++) {
        int cmp = key_cmp(&all[i]->key, &key);
        if (!has_key || (rev ? cmp < 0 : cmp > 0))
            sel[k++] = all[i];
    }
    want_list(d, sel, k, 0);
    return run(d, c);
}

static int op_ksplit(struct od *d, struct cmd *c)
{
    struct mentry *span[UNIVERSE], *sel[UNIVERSE];
    long parts = chance(d, 5) ? rnd_in(d, 1, 100000) : rnd_in(d, 1, (long)d->n + 3);
    long k;

    cmd_str(c, "KSPLIT");
    cmd_long(c, parts);
    if (chance(d, 60)) {
        k = rnd_span(d, c, 1, 0, span);
    } else {
        k = (long)all_entries(d, 0, span);
    }
    if (k < 0) {
        want_lex_error(d);
        return run(d, c);
    }
    /* The definition, literally: positions floor(i * c / n), skipping 0 and
     * repeats. */
    size_t got = 0, prev = 0;
    for (long i = 1; i < parts; i++) {
        size_t pos = (size_t)(i * k / parts);
        if (pos == 0 || pos == prev)
            continue;
        sel[got++] = span[pos];
        prev = pos;
    }
    want_list(d, sel, got, 0);
    return run(d, c);
}

/* A pattern: a literal prefix, then wildcards. */
static size_t rnd_pattern(struct od *d, char *out)
{
    static const char *const tails[] = {"*", "", "?", "?*", "*a*", "*\xff", "**", "*?"};
    struct mkey p = rnd_key(d, 2);
    const char *tail = tails[rnd(d) % (sizeof(tails) / sizeof(tails[0]))];
    memcpy(out, p.p, p.len);
    memcpy(out + p.len, tail, strlen(tail));
    return p.len + strlen(tail);
}

static int op_keys(struct od *d, struct cmd *c)
{
    struct mentry *sel[UNIVERSE];
    char pat[KEY_MAX + 8];
    size_t plen = rnd_pattern(d, pat), k = 0;

    cmd_str(c, "KEYS");
    cmd_arg(c, pat, plen);
    for (size_t i = 0; i < d->n; i++)
        if (glob(pat, plen, d->m[i].key.p, d->m[i].key.len))
            sel[k++] = &d->m[i];
    want_list(d, sel, k, 0);
    return run(d, c);
}

/* A whole SCAN iteration: every call's reply must be well formed and list
 * at most COUNT keys, and together they must list the expected keys in
 * order. */
static int op_scan(struct od *d, struct cmd *c)
{
    struct mentry *sel[UNIVERSE];
    char pat[KEY_MAX + 8], cursor[24] = "0";
    size_t plen = chance(d, 60) ? rnd_pattern(d, pat) : 0, k = 0;
    long count = chance(d, 70) ? rnd_in(d, 1, 25) : 0;
    int type_i = chance(d, 15) ? (int)(rnd(d) % 4) : -1;

    for (size_t i = 0; i < d->n; i++)
        if ((!plen || glob(pat, plen, d->m[i].key.p, d->m[i].key.len)) &&
            (type_i < 0 || d->m[i].type == type_of_name[type_i]))
            sel[k++] = &d->m[i];
    want_list(d, sel, k, 0);

    d->got.len = 0;
    buf_put(&d->got, "[", 1);
    size_t listed = 0;
    /* A call may visit only keys past their deadline, which the server
     * still holds but skips, and so list nothing: the bound is every key
     * that can be stored, not the model's. */
    for (size_t calls = 0; calls <= UNIVERSE + 1; calls++) {
        cmd_start(c);
        cmd_str(c, "SCAN");
        cmd_str(c, cursor);
        if (plen) {
            cmd_str(c, "MATCH");
            cmd_arg(c, pat, plen);
        }
        if (count) {
            cmd_str(c, "COUNT");
            cmd_long(c, count);
        }
        if (type_i >= 0) {
            cmd_str(c, "TYPE");
            cmd_str(c, type_names[type_i]);
        }
        redisReply *r = d->t->call(d->t->ctx, c->argc, c->argv, c->lens);
        int ok = r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
                 r->element[0]->type == REDIS_REPLY_STRING && r->element[0]->len < sizeof(cursor) &&
                 r->element[1]->type == REDIS_REPLY_ARRAY &&
                 r->element[1]->elements <= (size_t)(count ? count : 10);
        for (size_t i = 0; ok && i < r->element[1]->elements; i++) {
            const redisReply *key = r->element[1]->element[i];
            ok = key->type == REDIS_REPLY_STRING;
            buf_put(&d->got, ", ", listed++ ? 2 : 0);
            buf_bulk(&d->got, key->str, key->len);
        }
        if (ok) {
            memcpy(cursor, r->element[0]->str, r->element[0]->len);
            cursor[r->element[0]->len] = '\0';
        } else {
            d->got.len = 0;
            if (r)
                repr(&d->got, r);
        }
        freeReplyObject(r);
        if (!ok || strcmp(cursor, "0") == 0)
            break;
    }
    buf_put(&d->got, "]", strcmp(cursor, "0") == 0);
    if (d->got.len == d->want.len && memcmp(d->got.p, d->want.p, d->got.len) == 0)
        return 0;
    fprintf(stderr, "operation %ld: a SCAN iteration (last call: SCAN %s%s%.*s COUNT %ld "
                    "TYPE %s)\n  expected: %s\n  got:      %s\n",
            d->op, cursor, plen ? " MATCH " : "", (int)plen, pat, count,
            type_i >= 0 ? type_names[type_i] : "-", d->want.p, d->got.p);
    return -1;
}

static int op_set(struct od *d, struct cmd *c)
{
    struct mkey k = rnd_key(d, KEY_MAX);
    struct mentry *e = m_find(d, &k);
    if (!e)
        e = m_insert(d, &k);
    e->type = TYPE_STRING;
    e->vlen = (size_t)snprintf(e->val, sizeof(e->val), "%.*s%" PRIu64, (int)(rnd(d) % 3), "vv",
                               rnd(d) % 1000);
    cmd_str(c, "SET");
    cmd_key(c, &k);
    cmd_arg(c, e->val, e->vlen);
    buf_put(&d->want, "+OK", 3);
    return run(d, c);
}

static int op_del(struct od *d, struct cmd *c)
{
    struct mkey k = rnd_probe(d);
    struct mentry *e = m_find(d, &k);
    cmd_str(c, "DEL");
    cmd_key(c, &k);
    buf_printf(&d->want, ":%d", e != NULL);
    if (e)
        m_remove(d, e);
    return run(d, c);
}

/* A deadline far in the future: the key stays, with an entry in the
 * expiry tree that must never count as due. */
static int op_far_deadline(struct od *d, struct cmd *c)
{
    struct mkey k = rnd_probe(d);
    cmd_str(c, "PEXPIRE");
    cmd_key(c, &k);
    cmd_str(c, "3600000");
    buf_printf(&d->want, ":%d", m_find(d, &k) != NULL);
    return run(d, c);
}

static int op_expire(struct od *d)
{
    for (long i = rnd_in(d, 1, 3); i > 0 && d->n; i--) {
        struct mentry *e = &d->m[rnd(d) % d->n];
        d->t->expire(d->t->ctx, e->key.p, e->key.len);
        m_remove(d, e);
    }
    return 0;
}

static int op_add_other(struct od *d, struct cmd *c)
{
    struct mkey k = rnd_key(d, KEY_MAX);
    struct mentry *e = m_find(d, &k);
    if (e) {
        cmd_str(c, "DEL");
        cmd_key(c, &k);
        buf_put(&d->want, ":1", 2);
        m_remove(d, e);
        if (run(d, c) < 0)
            return -1;
    }
    d->t->add_other(d->t->ctx, k.p, k.len);
    m_insert(d, &k)->type = TYPE_OTHER;
    return 0;
}

static int op_kdelrange(struct od *d, struct cmd *c)
{
    struct mentry *sel[UNIVERSE];
    long limit = chance(d, 50) ? rnd_in(d, -1, 20) : -2;

    cmd_str(c, "KDELRANGE");
    long k = rnd_span(d, c, 1, 0, sel);
    if (limit >= -1) {
        cmd_str(c, "LIMIT");
        cmd_long(c, limit);
    }
    if (k < 0) {
        want_lex_error(d);
        return run(d, c);
    }
    if (limit >= 0 && limit < k)
        k = limit;
    buf_printf(&d->want, ":%ld", k);
    /* Back to front, so each removal leaves the earlier pointers valid. */
    for (long i = k - 1; i >= 0; i--)
        m_remove(d, sel[i]);
    return run(d, c);
}

static int op_flush(struct od *d, struct cmd *c)
{
    cmd_str(c, "FLUSHDB");
    buf_put(&d->want, "+OK", 3);
    d->n = 0;
    return run(d, c);
}

/* Weighted operations: writes keep the db around half the universe, so
 * queries see keys of every length on both sides of every bound. */
static int one_op(struct od *d, struct cmd *c)
{
    long w = rnd_in(d, 0, 999);
    if (w < 240)
        return op_set(d, c);
    if (w < 320)
        return op_del(d, c);
    if (w < 350)
        return op_expire(d);
    if (w < 370)
        return op_far_deadline(d, c);
    if (w < 400)
        return d->t->add_other ? op_add_other(d, c) : 0;
    if (w < 410)
        return op_kdelrange(d, c);
    if (w < 411)
        return op_flush(d, c);
    if (w < 500)
        return op_krange_rank(d, c);
    if (w < 620)
        return op_krange_lex(d, c);
    if (w < 680)
        return op_kprefix(d, c);
    if (w < 760)
        return op_kcount(d, c);
    if (w < 820)
        return op_krank(d, c);
    if (w < 900)
        return op_neighbours(d, c);
    if (w < 940)
        return op_ksplit(d, c);
    if (w < 980)
        return op_keys(d, c);
    return op_scan(d, c);
}

int od_run(const struct od_target *t, uint64_t seed, long ops)
{
    struct od *d = calloc(1, sizeof(*d));
    struct cmd *c = malloc(sizeof(*c));
    int rc = 0;

    if (!d || !c)
        abort();
    d->t = t;
    d->rng = seed;
    cmd_start(c);
    cmd_str(c, "FLUSHDB");
    buf_put(&d->want, "+OK", 3);
    rc = run(d, c);
    for (d->op = 1; rc == 0 && d->op <= ops; d->op++) {
        cmd_start(c);
        want_reset(d);
        rc = one_op(d, c);
    }
    free(d->want.p);
    free(d->got.p);
    free(d->line.p);
    free(d);
    free(c);
    return rc;
}
