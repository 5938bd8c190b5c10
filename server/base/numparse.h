/*
 * numparse.h - numbers from length-bounded bytes, as Redis parses them, and
 * back to text as Redis writes them.
 *
 * The bytes are slices from the wire or a file: never NUL-terminated, so
 * every parser here is bounded by the length and rejects what Redis rejects.
 * Integers are proto's (resp_num.h: resp_parse_ll, resp_format_ll), so the
 * request parser and reply writer share them.
 */
#ifndef RBKV_NUMPARSE_H
#define RBKV_NUMPARSE_H

#include <stddef.h>

/* strtod over p[0..len) read as a C string, of any length (Redis caps
 * none): an embedded NUL ends the text, as it ends Redis's strtod over an
 * sds. *used is how many bytes the number took (so the text was all number
 * when *used == strnlen(p, len)); *erange is set when strtod reported
 * ERANGE (overflow, or underflow to 0 or a denormal). Returns the value. */
double numparse_strtod(const char *p, size_t len, size_t *used, int *erange);

/* As Redis's strtod use: the whole slice must be a number, no leading space,
 * NaN refused; "inf", "+inf", "-inf" accepted. Returns 0 with *out set, or -1. */
int parse_double(const char *p, size_t len, double *out);

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
