/*
 * krange.c - spans of the key order from lex bounds, prefixes and glob
 * patterns (see krange.h).
 */
#include "krange.h"

#include <string.h>
#include <strings.h>

#include "mem.h"

/* TYPE's names, as cmd_keys.c's TYPE command replies them; a type added to
 * enum ks_type without a name here simply matches no TYPE filter. */
static const char *const type_names[KS_TYPE_COUNT] = {
    [KS_STRING] = "string",
    [KS_ZSET] = "zset",
    [KS_HASH] = "hash",
    [KS_SET] = "set",
    [KS_LIST] = "list",
    [KS_STREAM] = "stream",
};

/* The number of keys before the bound, taken as a lower bound (upper 0:
 * where a span starts) or as an upper bound (upper 1: where it ends). */
static size_t rank_of_bound(const struct db *db, const struct lex_bound *b, int upper)
{
    switch (b->kind) {
    case LEX_BOUND_NEG_INF:
        return 0;
    case LEX_BOUND_POS_INF:
        return ks_count(db);
    case LEX_BOUND_INCL:
        return ks_count_before(db, b->ptr, b->len, upper);
    case LEX_BOUND_EXCL:
        break;
    }
    return ks_count_before(db, b->ptr, b->len, !upper);
}

struct kr_span kr_span_lex(const struct db *db, const struct lex_bound *min,
                           const struct lex_bound *max)
{
    struct kr_span s = {rank_of_bound(db, min, 0), rank_of_bound(db, max, 1)};
    if (s.hi < s.lo)
        s.hi = s.lo;
    return s;
}

/* Prefixes short enough that their successor fits on the stack. */
#define PREFIX_STACK_BYTES 256

/* The smallest string after every string with prefix p: p without its
 * trailing 0xFF bytes, last byte plus one. len is 0 when there is none (p is
 * only 0xFF bytes, or empty): then every key from p on has the prefix. */
struct successor {
    char *p;
    size_t len;
    char stack[PREFIX_STACK_BYTES];
};

size_t kr_prefix_successor(const char *p, size_t len, char *out)
{
    while (len > 0 && (unsigned char)p[len - 1] == 0xff)
        len--;
    if (len == 0)
        return 0;
    memcpy(out, p, len);
    out[len - 1] = (char)((unsigned char)out[len - 1] + 1);
    return len;
}

static void successor_init(struct successor *s, const char *p, size_t len)
{
    s->p = len <= sizeof(s->stack) ? s->stack : xmalloc(len);
    s->len = kr_prefix_successor(p, len, s->p);
}

static void successor_destroy(struct successor *s)
{
    if (s->p != s->stack)
        xfree(s->p);
}

struct kr_span kr_span_prefix(const struct db *db, const char *p, size_t len)
{
    struct kr_span span = {ks_count_before(db, p, len, 0), ks_count(db)};
    struct successor s;

    successor_init(&s, p, len);
    if (s.len)
        span.hi = ks_count_before(db, s.p, s.len, 0);
    successor_destroy(&s);
    return span;
}

int kr_has_prefix(const struct ks_entry *e, const char *p, size_t len)
{
    return ks_klen(e) >= len && memcmp(ks_key(e), p, len) == 0;
}

/* A bound on a key that exists, which is the usual case when paging with
 * "(last", is found through the hash index in O(1) instead of a descent;
 * only an absent one needs the tree, and then "[x" and "(x" agree. */
struct ks_entry *kr_seek_min(const struct db *db, const struct lex_bound *min)
{
    struct ks_entry *e;
    switch (min->kind) {
    case LEX_BOUND_NEG_INF:
        return ks_first(db);
    case LEX_BOUND_POS_INF:
        return NULL;
    case LEX_BOUND_INCL:
    case LEX_BOUND_EXCL:
        break;
    }
    if ((e = ks_find(db, min->ptr, min->len)))
        return min->kind == LEX_BOUND_INCL ? e : ks_next(e);
    return ks_seek_ge(db, min->ptr, min->len, 0);
}

struct ks_entry *kr_seek_max(const struct db *db, const struct lex_bound *max)
{
    struct ks_entry *e;
    switch (max->kind) {
    case LEX_BOUND_NEG_INF:
        return NULL;
    case LEX_BOUND_POS_INF:
        return ks_last(db);
    case LEX_BOUND_INCL:
    case LEX_BOUND_EXCL:
        break;
    }
    if ((e = ks_find(db, max->ptr, max->len)))
        return max->kind == LEX_BOUND_INCL ? e : ks_prev(e);
    return ks_seek_le(db, max->ptr, max->len, 0);
}

struct ks_entry *kr_prefix_first(const struct db *db, const char *p, size_t len)
{
    struct ks_entry *e = ks_seek_ge(db, p, len, 0);
    return e && kr_has_prefix(e, p, len) ? e : NULL;
}

struct ks_entry *kr_prefix_last(const struct db *db, const char *p, size_t len)
{
    struct successor s;

    successor_init(&s, p, len);
    struct ks_entry *e = s.len ? ks_seek_le(db, s.p, s.len, 1) : ks_last(db);
    successor_destroy(&s);
    return e && kr_has_prefix(e, p, len) ? e : NULL;
}

size_t kr_glob_prefix(const char *pat, size_t plen, char *out, int *star_rest)
{
    size_t i = 0, n = 0;
    while (i < plen && pat[i] != '*' && pat[i] != '?' && pat[i] != '[') {
        /* "\x" is the byte x; a lone trailing '\' is itself (glob.h). */
        if (pat[i] == '\\' && i + 1 < plen)
            i++;
        out[n++] = pat[i++];
    }
    *star_rest = i < plen;
    for (size_t k = i; k < plen; k++)
        *star_rest &= pat[k] == '*';
    return n;
}

const char *kr_type_name(int type)
{
    return type_names[type];
}

int kr_type_by_name(const char *name, size_t len)
{
    for (int t = 0; t < KS_TYPE_COUNT; t++) {
        if (type_names[t] && strlen(type_names[t]) == len && strncasecmp(type_names[t], name, len) == 0)
            return t;
    }
    return -1;
}

int rank_range(long long start, long long end, size_t len, size_t *lo, size_t *hi)
{
    long long llen = (long long)len;

    if (start < 0)
        start += llen;
    if (end < 0)
        end += llen;
    if (start < 0)
        start = 0;
    if (start > end || start >= llen)
        return -1;
    if (end >= llen)
        end = llen - 1;
    *lo = (size_t)start;
    *hi = (size_t)end;
    return 0;
}
