/*
 * sha1.h - SHA-1 (FIPS 180-4), for DEBUG DIGEST's dataset fingerprint.
 *
 * Not for security: SHA-1 is broken against chosen collisions. DEBUG DIGEST
 * only needs a well-mixed 160-bit value, as Redis's does. Reads no server
 * state; the context lives in the caller's storage.
 */
#ifndef RBKV_SHA1_H
#define RBKV_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_LEN 20

struct sha1_ctx {
    uint32_t h[5];
    uint64_t bytes;          /* message length so far */
    unsigned char block[64]; /* a partial block, bytes % 64 of it used */
};

void sha1_init(struct sha1_ctx *ctx);
void sha1_update(struct sha1_ctx *ctx, const void *data, size_t len);
/* Writes the 20-byte digest to out; ctx is spent (sha1_init it again). */
void sha1_final(struct sha1_ctx *ctx, unsigned char out[SHA1_LEN]);
/* The digest of data[0..len) in one call. */
void sha1(const void *data, size_t len, unsigned char out[SHA1_LEN]);

#endif
