/*
 * sha1.c - SHA-1 as FIPS 180-4 specifies it: 512-bit blocks, 80 rounds, the
 * length in bits appended big-endian after a 0x80 byte and zero padding.
 */
#include "sha1.h"

#include <string.h>

static uint32_t rol32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

static void sha1_block(uint32_t h[5], const unsigned char *p)
{
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 80; i++)
        w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);

    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5a827999;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ed9eba1;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8f1bbcdc;
        } else {
            f = b ^ c ^ d;
            k = 0xca62c1d6;
        }
        uint32_t t = rol32(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rol32(b, 30);
        b = a;
        a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

void sha1_init(struct sha1_ctx *ctx)
{
    static const uint32_t iv[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
    memcpy(ctx->h, iv, sizeof(iv));
    ctx->bytes = 0;
}

void sha1_update(struct sha1_ctx *ctx, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t used = (size_t)(ctx->bytes % 64);
    ctx->bytes += len;
    if (used) {
        size_t take = 64 - used < len ? 64 - used : len;
        memcpy(ctx->block + used, p, take);
        p += take;
        len -= take;
        if (used + take < 64)
            return;
        sha1_block(ctx->h, ctx->block);
    }
    for (; len >= 64; p += 64, len -= 64)
        sha1_block(ctx->h, p);
    if (len)
        memcpy(ctx->block, p, len);
}

void sha1_final(struct sha1_ctx *ctx, unsigned char out[SHA1_LEN])
{
    uint64_t bits = ctx->bytes * 8;
    size_t used = (size_t)(ctx->bytes % 64);
    ctx->block[used++] = 0x80;
    if (used > 56) {
        memset(ctx->block + used, 0, 64 - used);
        sha1_block(ctx->h, ctx->block);
        used = 0;
    }
    memset(ctx->block + used, 0, 56 - used);
    for (int i = 0; i < 8; i++)
        ctx->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
    sha1_block(ctx->h, ctx->block);
    for (int i = 0; i < 5; i++) {
        out[4 * i] = (unsigned char)(ctx->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(ctx->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(ctx->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)ctx->h[i];
    }
}

void sha1(const void *data, size_t len, unsigned char out[SHA1_LEN])
{
    struct sha1_ctx ctx;
    sha1_init(&ctx);
    sha1_update(&ctx, data, len);
    sha1_final(&ctx, out);
}
