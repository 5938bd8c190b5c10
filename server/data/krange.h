/*
 * krange.h - ranges of the keyspace by position: the layer between the
 * ordered commands (KRANGE, KPREFIX, KCOUNT, ..., SCAN, KEYS) and the
 * keyspace's order statistics.
 *
 * Every ordered question reduces to a span of consecutive positions (ranks)
 * in one database, found in O(log n) from the subtree sizes: a lex interval,
 * a prefix, the keys a glob pattern can match. Commands then count it
 * (hi - lo), index into it (ks_select) or walk it (ks_next/ks_prev). A
 * listing that stops at a bound rather than after a count needs only its
 * first key: the seeks below find it with one descent instead of two.
 *
 * Owns nothing; knows nothing of RESP or clients. A span is valid only until
 * the database next changes.
 */
#ifndef RBKV_KRANGE_H
#define RBKV_KRANGE_H

#include <stddef.h>

#include "keyspace.h"
#include "lexrange.h"

/* Positions [lo, hi) of a database's key order; lo <= hi always. */
struct kr_span {
    size_t lo, hi;
};

static inline size_t kr_span_len(const struct kr_span *s) { return s->hi - s->lo; }

/* The keys k with min <= k <= max (each bound inclusive, exclusive or
 * infinite). An empty or reversed interval gives an empty span. O(log n). */
struct kr_span kr_span_lex(const struct db *db, const struct lex_bound *min,
                           const struct lex_bound *max);

/* The keys that start with p[0..len); every key when len is 0. O(log n + len). */
struct kr_span kr_span_prefix(const struct db *db, const char *p, size_t len);
/* The smallest string after every string with prefix p[0..len) into out
 * (room for len bytes): p without its trailing 0xFF bytes, last byte plus
 * one. Returns its length, 0 when there is none (p empty or all 0xFF):
 * every string from p on has the prefix. */
size_t kr_prefix_successor(const char *p, size_t len, char *out);

/* Whether e's key starts with p[0..len). */
int kr_has_prefix(const struct ks_entry *e, const char *p, size_t len);

/* The first key at or after min taken as a lower bound, and the last key at
 * or before max taken as an upper bound; NULL when there is none. Where a
 * listing starts without knowing where it ends: no counting, and O(1) when
 * the bound names a key that exists, O(log n) otherwise. */
struct ks_entry *kr_seek_min(const struct db *db, const struct lex_bound *min);
struct ks_entry *kr_seek_max(const struct db *db, const struct lex_bound *max);

/* The first and the last key with prefix p[0..len), or NULL. O(log n + len). */
struct ks_entry *kr_prefix_first(const struct db *db, const char *p, size_t len);
struct ks_entry *kr_prefix_last(const struct db *db, const char *p, size_t len);

/* The literal prefix of a glob pattern (glob.h syntax): the bytes every
 * match must start with, escapes resolved. Writes it to out (room for plen
 * bytes) and returns its length. *star_rest is set when the rest of the
 * pattern is one or more '*' and nothing else: then every key with the
 * prefix matches and no glob is needed. */
size_t kr_glob_prefix(const char *pat, size_t plen, char *out, int *star_rest);

/* The enum ks_type named by name[0..len) as TYPE names it ("string",
 * "zset", "hash", "set"; ASCII case ignored), or -1 for a name no type has. */
int kr_type_by_name(const char *name, size_t len);
/* TYPE's name of an enum ks_type. */
const char *kr_type_name(int type);

/* Redis's rank range rules (ZRANGE, LRANGE, KRANGE by rank): negative ranks
 * count from the end, start is clamped at 0 and end at the last. Returns 0
 * with the inclusive [*lo, *hi] inside len elements, or -1 when the range is
 * empty. */
int rank_range(long long start, long long end, size_t len, size_t *lo, size_t *hi);

#endif
