/*
 * lexrange.c - parsing of lex range bounds and comparison against them (see
 * lexrange.h).
 */
#include "lexrange.h"

#include <string.h>

int lex_bound_parse(const char *arg, size_t len, struct lex_bound *b)
{
    if (len == 0)
        return -1;
    b->ptr = arg + 1;
    b->len = len - 1;
    switch (arg[0]) {
    case '-':
        b->kind = LEX_BOUND_NEG_INF;
        return len == 1 ? 0 : -1;
    case '+':
        b->kind = LEX_BOUND_POS_INF;
        return len == 1 ? 0 : -1;
    case '[':
        b->kind = LEX_BOUND_INCL;
        return 0;
    case '(':
        b->kind = LEX_BOUND_EXCL;
        return 0;
    default:
        return -1;
    }
}

/* memcmp order, a proper prefix first: the same order as the keyspace's
 * ks_keycmp, kept here so that sorted sets need not know the keyspace. */
static int bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int r = memcmp(a, b, alen < blen ? alen : blen);
    return r ? r : (alen > blen) - (alen < blen);
}

int lex_gte_min(const char *s, size_t len, const struct lex_bound *min)
{
    switch (min->kind) {
    case LEX_BOUND_NEG_INF:
        return 1;
    case LEX_BOUND_POS_INF:
        return 0;
    case LEX_BOUND_INCL:
        return bytes_cmp(s, len, min->ptr, min->len) >= 0;
    case LEX_BOUND_EXCL:
        break;
    }
    return bytes_cmp(s, len, min->ptr, min->len) > 0;
}

int lex_lte_max(const char *s, size_t len, const struct lex_bound *max)
{
    switch (max->kind) {
    case LEX_BOUND_NEG_INF:
        return 0;
    case LEX_BOUND_POS_INF:
        return 1;
    case LEX_BOUND_INCL:
        return bytes_cmp(s, len, max->ptr, max->len) <= 0;
    case LEX_BOUND_EXCL:
        break;
    }
    return bytes_cmp(s, len, max->ptr, max->len) < 0;
}
