/*
 * lzf.c - LZF decompression (lzf.h). The format, per control byte c:
 * c < 32: a literal run of c + 1 bytes follows; otherwise a back reference
 * of (c >> 5) + 2 bytes (when c >> 5 is 7, one more byte adds to the
 * length) at distance ((c & 31) << 8) + next byte + 1 behind the output.
 * A reference may overlap what it writes (a run), so it copies byte by byte.
 */
#include "lzf.h"

#include <string.h>

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
