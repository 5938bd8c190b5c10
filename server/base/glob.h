/*
 * glob.h - Redis-style glob matching (CONFIG GET, KEYS, SCAN MATCH).
 *
 * Owns nothing: a pure function over two byte ranges. Knows nothing of
 * clients, keys or settings.
 */
#ifndef RBKV_GLOB_H
#define RBKV_GLOB_H

#include <stddef.h>

/*
 * Returns 1 when the whole of s[0..slen) matches pat[0..plen), else 0. Both
 * are binary-safe byte ranges; neither needs a NUL terminator. nocase folds
 * ASCII letters only.
 *
 * Syntax as Redis's stringmatchlen: '*' any run of bytes, '?' one byte,
 * '[abc]' '[^abc]' '[a-z]' a class (ends reversed as in '[z-a]' are swapped,
 * an unterminated class runs to the end of the pattern), '\x' the byte x,
 * also inside a class; a trailing lone '\' is a literal backslash.
 *
 * Two deliberate differences from Redis 7, both at its edges: an empty s
 * matches a pattern made only of '*' (Redis returns no match, and its KEYS and
 * SCAN special-case a lone "*" to hide that), and class ranges compare bytes
 * as unsigned.
 *
 * Work is O(plen * slen) at worst, whatever the pattern: "*a*a*a*a*b" against
 * a long run of 'a' cannot go exponential.
 */
int glob_match(const char *pat, size_t plen, const char *s, size_t slen, int nocase);

#endif
