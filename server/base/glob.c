/*
 * glob.c - Redis-style glob matching without exponential backtracking.
 *
 * Every pattern token other than '*' consumes exactly one byte of the
 * subject. That makes the classic two-cursor algorithm exact: when a token
 * fails, only the most recent '*' needs to grow by one byte; growing an
 * earlier '*' instead could only move the rest of the pattern further right,
 * which the latest '*' already tries. So the matcher keeps one backtrack point
 * and never recurses, and the work is bounded by plen * slen.
 *
 * Reads stay inside [pat, pat + plen) and [s, s + slen): no NUL is assumed.
 */
#include "glob.h"

/* ASCII-only folding: a locale must not change which keys a pattern selects. */
static unsigned char fold(unsigned char c, int nocase)
{
    return nocase && c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

/*
 * Matches the class starting at p[i] == '[' against c, mirroring Redis's
 * parse: '^' negates, '\x' is the byte x, "a-z" a range (three bytes must be
 * left), ']' ends the class, the end of the pattern ends it too. Stores the
 * index just past the class in *next.
 */
static int class_match(const unsigned char *p, size_t plen, size_t i, unsigned char c, int nocase,
                       size_t *next)
{
    int negate, match = 0;

    i++;
    negate = i < plen && p[i] == '^';
    if (negate)
        i++;
    c = fold(c, nocase);
    while (i < plen && p[i] != ']') {
        if (p[i] == '\\' && plen - i >= 2) {
            match |= fold(p[i + 1], nocase) == c;
            i += 2;
        } else if (plen - i >= 3 && p[i + 1] == '-') {
            unsigned char lo = fold(p[i], nocase), hi = fold(p[i + 2], nocase);
            if (lo > hi) {
                unsigned char t = lo;
                lo = hi;
                hi = t;
            }
            match |= c >= lo && c <= hi;
            i += 3;
        } else {
            match |= fold(p[i], nocase) == c;
            i++;
        }
    }
    *next = i < plen ? i + 1 : plen;
    return negate ? !match : match;
}

/* Matches the one-byte token at p[i] (anything but '*') against c; stores the
 * index of the next token in *next. */
static int token_match(const unsigned char *p, size_t plen, size_t i, unsigned char c, int nocase,
                       size_t *next)
{
    switch (p[i]) {
    case '?':
        *next = i + 1;
        return 1;
    case '[':
        return class_match(p, plen, i, c, nocase, next);
    case '\\':
        if (plen - i >= 2)
            i++;
        /* A lone trailing '\' is itself the literal. */
        break;
    default:
        break;
    }
    *next = i + 1;
    return fold(p[i], nocase) == fold(c, nocase);
}

int glob_match(const char *pat, size_t plen, const char *str, size_t slen, int nocase)
{
    const unsigned char *p = (const unsigned char *)pat;
    const unsigned char *s = (const unsigned char *)str;
    size_t pi = 0, si = 0, next;
    /* Where the pattern resumes after the latest '*', and the subject byte
     * that '*' would swallow next if we have to backtrack. */
    size_t star_pi = 0, star_si = 0;
    int have_star = 0;

    while (si < slen) {
        if (pi < plen && p[pi] == '*') {
            while (pi < plen && p[pi] == '*')
                pi++;
            if (pi == plen)
                return 1;
            have_star = 1;
            star_pi = pi;
            star_si = si;
        } else if (pi < plen && token_match(p, plen, pi, s[si], nocase, &next)) {
            pi = next;
            si++;
        } else if (have_star) {
            pi = star_pi;
            si = ++star_si;
        } else {
            return 0;
        }
    }
    while (pi < plen && p[pi] == '*')
        pi++;
    return pi == plen;
}
