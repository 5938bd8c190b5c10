/*
 * lexrange.h - lexicographic range bounds in Redis's syntax ("[x" inclusive,
 * "(x" exclusive, "-" and "+" the two ends), as ZRANGEBYLEX, ZLEXCOUNT and the
 * ordered keyspace commands (KRANGE BYLEX, KCOUNT, ...) take them.
 *
 * Owns nothing: a parsed bound points into the argument it was parsed from,
 * so it lives as long as that argument. Knows nothing of clients, keys or
 * sorted sets; strings compare as bytes (memcmp, a proper prefix first), the
 * order of both the keyspace and a sorted set's members.
 */
#ifndef RBKV_LEXRANGE_H
#define RBKV_LEXRANGE_H

#include <stddef.h>

/* Redis's reply to a bound that is none of the four forms. */
#define ERR_LEX_RANGE "ERR min or max not valid string range item"

enum lex_bound_kind {
    LEX_BOUND_NEG_INF, /* "-": before every string */
    LEX_BOUND_POS_INF, /* "+": after every string */
    LEX_BOUND_INCL,    /* "[x" */
    LEX_BOUND_EXCL,    /* "(x" */
};

struct lex_bound {
    enum lex_bound_kind kind;
    const char *ptr; /* x, for INCL and EXCL: borrowed from the argument */
    size_t len;
};

/* Parses arg[0..len) into *b. Returns 0, or -1 when it is not a bound
 * ("-" and "+" must stand alone; "[" and "(" alone are the empty string). */
int lex_bound_parse(const char *arg, size_t len, struct lex_bound *b);

/* Whether s[0..len) is at or after min taken as a lower bound (Redis's
 * zslLexValueGteMin): "-" admits everything, "+" nothing. */
int lex_gte_min(const char *s, size_t len, const struct lex_bound *min);
/* Whether s[0..len) is at or before max taken as an upper bound
 * (zslLexValueLteMax): "+" admits everything, "-" nothing. */
int lex_lte_max(const char *s, size_t len, const struct lex_bound *max);

#endif
