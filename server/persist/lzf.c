/*
 * lzf.c - LZF compression and decompression (lzf.h). The format, per control byte c:
 * c < 32: a literal run of c + 1 bytes follows; otherwise a back reference
 * of (c >> 5) + 2 bytes (when c >> 5 is 7, one more byte adds to the
 * length) at distance ((c & 31) << 8) + next byte + 1 behind the output.
 * A reference may overlap what it writes (a run), so it copies byte by byte.
 */
#include "lzf.h"

#include <stdint.h>
#include <string.h>

/* The compressor's hash of 3-byte prefixes: 2^HASH_BITS slots, each the
 * position + 1 of the last prefix seen with that hash (0: none). */
#define HASH_BITS 14
/* The farthest a reference reaches back, and the longest it copies. */
#define MAX_DIST 8192
#define MAX_REF 264
#define MAX_LIT 32

size_t lzf_decompress(const void *in, size_t in_len, void *out, size_t out_len)
{
    const unsigned char *ip = in, *in_end = ip + in_len;
    unsigned char *op = out, *out_start = out, *out_end = op + out_len;

    while (ip < in_end) {
        size_t ctrl = *ip++;
        if (ctrl < 32) {
            size_t run = ctrl + 1;
            if ((size_t)(in_end - ip) < run || (size_t)(out_end - op) < run)
                return 0;
            memcpy(op, ip, run);
            op += run;
            ip += run;
            continue;
        }
        size_t len = ctrl >> 5;
        if (len == 7) {
            if (ip >= in_end)
                return 0;
            len += *ip++;
        }
        if (ip >= in_end)
            return 0;
        size_t dist = ((ctrl & 31) << 8) + *ip++ + 1;
        len += 2;
        if ((size_t)(op - out_start) < dist || (size_t)(out_end - op) < len)
            return 0;
        const unsigned char *ref = op - dist;
        while (len--)
            *op++ = *ref++;
    }
    return (size_t)(op - out_start);
}

static uint32_t hash3(const unsigned char *p)
{
    uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
    return (v * 2654435761u) >> (32 - HASH_BITS);
}

/* Closes the literal run of lit bytes whose control byte sits before them,
 * or gives back the control byte reserved for a run that got no byte. */
static unsigned char *close_run(unsigned char *op, size_t lit)
{
    if (!lit)
        return op - 1;
    op[-(ptrdiff_t)lit - 1] = (unsigned char)(lit - 1);
    return op;
}

size_t lzf_compress(const void *in, size_t in_len, void *out, size_t out_len)
{
    const unsigned char *base = in, *ip = base, *in_end = base + in_len;
    unsigned char *op = out, *out_end = op + out_len;
    uint32_t htab[1u << HASH_BITS];
    size_t lit = 0;
    if (out_len == 0 || in_len == 0 || in_len >= UINT32_MAX)
        return 0;
    memset(htab, 0, sizeof(htab));
    op++; /* the first run's control byte */
    while (ip < in_end) {
        if (in_end - ip >= 3) {
            uint32_t *slot = &htab[hash3(ip)];
            size_t prev = *slot;
            *slot = (uint32_t)(ip - base) + 1;
            const unsigned char *ref = base + prev - 1;
            /* As liblzf, never from the first byte (its empty slots point there). */
            if (prev > 1 && (size_t)(ip - ref) <= MAX_DIST && !memcmp(ref, ip, 3)) {
                size_t dist = (size_t)(ip - ref);
                size_t max = (size_t)(in_end - ip) < MAX_REF ? (size_t)(in_end - ip) : MAX_REF;
                size_t len = 3;
                while (len < max && ref[len] == ip[len])
                    len++;
                op = close_run(op, lit);
                lit = 0;
                /* the reference (2 or 3 bytes) and the next run's control byte */
                if (out_end - op < 4)
                    return 0;
                size_t l = len - 2, off = dist - 1;
                if (l < 7) {
                    *op++ = (unsigned char)((off >> 8) + (l << 5));
                } else {
                    *op++ = (unsigned char)((off >> 8) + (7 << 5));
                    *op++ = (unsigned char)(l - 7);
                }
                *op++ = (unsigned char)off;
                op++;
                ip += len;
                /* The match's last two places go in the hash, as liblzf's
                 * default (VERY_FAST) does. */
                for (const unsigned char *q = ip - 2; q < ip; q++)
                    if (in_end - q >= 3)
                        htab[hash3(q)] = (uint32_t)(q - base) + 1;
                continue;
            }
        }
        if (op >= out_end)
            return 0;
        *op++ = *ip++;
        if (++lit == MAX_LIT) {
            op = close_run(op, lit);
            lit = 0;
            if (op >= out_end)
                return 0;
            op++;
        }
    }
    op = close_run(op, lit);
    return (size_t)(op - (unsigned char *)out);
}
