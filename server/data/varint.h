/*
 * varint.h - the 7-bits-a-byte lengths (low group first, high bit: more
 * follow) that the ordered map's packed runs and a stream's entries use.
 * Inline only: the callers' hot loops decode one per element.
 *
 * The bytes are the caller's own, written by varint_put: varint_get trusts
 * them and never reads past the terminating byte.
 */
#ifndef RBKV_VARINT_H
#define RBKV_VARINT_H

#include <stddef.h>

/* Bytes varint_put writes for n. */
static inline size_t varint_size(size_t n)
{
    size_t s = 1;
    while (n >= 0x80) {
        n >>= 7;
        s++;
    }
    return s;
}

/* Writes n at p; returns the bytes written. */
static inline size_t varint_put(char *p, size_t n)
{
    size_t i = 0;
    while (n >= 0x80) {
        p[i++] = (char)(0x80 | (n & 0x7f));
        n >>= 7;
    }
    p[i++] = (char)n;
    return i;
}

/* Reads one into *n; returns the bytes read. */
static inline size_t varint_get(const char *p, size_t *n)
{
    if (!((unsigned char)p[0] & 0x80)) { /* under 128: nearly every length */
        *n = (unsigned char)p[0];
        return 1;
    }
    size_t v = 0, i = 0;
    unsigned shift = 0;
    unsigned char b;
    do {
        b = (unsigned char)p[i++];
        v |= (size_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    *n = v;
    return i;
}

#endif
