/*
 * numparse.h - numbers from length-bounded bytes, as Redis parses them, and
 * back to text as Redis writes them.
 *
 * The bytes are slices from the wire or a file: never NUL-terminated, so
 * every parser here is bounded by the length and rejects what Redis rejects.
 */
#ifndef RBKV_NUMPARSE_H
#define RBKV_NUMPARSE_H

#include <stddef.h>

/* Redis's string2ll: optional '-', digits, no leading zeros, no spaces, no
 * '+'. Returns 0 with *out set, or -1. */
int parse_ll(const char *p, size_t len, long long *out);
/* As Redis's strtod use: the whole slice must be a number, no leading space,
 * NaN refused; "inf", "+inf", "-inf" accepted. Returns 0 with *out set, or -1. */
int parse_double(const char *p, size_t len, double *out);

/* The longest decimal text of a long long: "-9223372036854775808". */
#define NUMPARSE_LL_CHARS 20
/* Writes v in decimal into buf (NUMPARSE_LL_CHARS bytes; no NUL), the text
 * "%lld" gives and parse_ll reads back, as Redis's ll2string: where a write
 * stores or sends a number it just computed (INCR's new value), snprintf
 * costs several hundred instructions more than the digits. Returns the
 * length. (proto/'s reply writer keeps its own: it sits below base/.) */
size_t format_ll(char *buf, long long v);

/* Redis's MAX_LONG_DOUBLE_CHARS: the longest long double text it parses. */
#define NUMPARSE_LONG_DOUBLE_CHARS (5 * 1024)
/* Redis's string2ld: strtold over the whole text (so hex and "inf" pass), no
 * leading space, no NaN, no overflow or underflow to zero. Returns 0 with
 * *out set, or -1. */
int parse_long_double(const char *p, size_t len, long double *out);
/* Redis's ld2string in its "human" mode, as INCRBYFLOAT and HINCRBYFLOAT
 * reply and store: "%.17Lf" with trailing zeros and a trailing point
 * removed, and "-0" written "0". v must be finite; buf holds
 * NUMPARSE_LONG_DOUBLE_CHARS (room for any finite long double so printed).
 * Returns the length; buf is not NUL-terminated past it. */
size_t format_long_double(char *buf, long double v);

#endif
