/*
 * resp_num.h - decimal integers to and from text, as Redis reads and writes
 * them (string2ll, ll2string): the one home of this code for the reply
 * writer, the request parser and the whole server (resp_num.c).
 *
 * The bytes are slices from the wire or a file: never NUL-terminated, so the
 * parser is bounded by the length. Nothing here knows RESP; it lives in
 * proto/, the lowest layer, so the parser and the writer can use it, and so
 * can every layer of the server (data/ included: numbers as text are no RESP).
 */
#ifndef RBKV_RESP_NUM_H
#define RBKV_RESP_NUM_H

#include <stddef.h>

/* "00".."99" (and a NUL): two digits per division (Redis's ull2string), also
 * read by the writer for a bulk's length under 100. */
extern const char resp_digit_pairs[201];

/* Redis's string2ll on exactly len bytes: optional '-', digits, no leading
 * zeros ("0" alone is fine, "-0" and "+1" are not), no spaces, fits a long
 * long. Returns 0 with *out set, or -1. */
int resp_parse_ll(const char *p, size_t len, long long *out);

/* The longest decimal text of a long long: "-9223372036854775808". */
#define RESP_LL_CHARS 20
/* Writes v in decimal into buf (RESP_LL_CHARS bytes; no NUL), the text
 * "%lld" gives and resp_parse_ll reads back: where a write stores or sends a
 * number it just computed (INCR's new value), snprintf costs several hundred
 * instructions more than the digits. Returns the length. */
size_t resp_format_ll(char *buf, long long v);
/* The same for an unsigned value (at most 20 digits). */
size_t resp_format_u64(char *buf, unsigned long long v);

#endif
