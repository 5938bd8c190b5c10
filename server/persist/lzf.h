/*
 * lzf.h - LZF compression and decompression, as Redis's RDB format
 * compresses long strings (liblzf's format: literal runs and back
 * references).
 *
 * Owns nothing. Reads untrusted input: every length and back reference is
 * checked against both buffers.
 */
#ifndef RBKV_LZF_H
#define RBKV_LZF_H

#include <stddef.h>

/* LZF never expands a byte of input into more than this many of output (a
 * 3-byte back reference copies at most 264): a claimed length above
 * in_len * LZF_MAX_EXPANSION cannot be true, so a caller refuses it before
 * allocating. */
#define LZF_MAX_EXPANSION 88

/* Decompresses in[0, in_len) into out[0, out_len). Returns the bytes
 * written, or 0 when the input is malformed or does not fit out. */
size_t lzf_decompress(const void *in, size_t in_len, void *out, size_t out_len);

/* Compresses in[0, in_len) into out[0, out_len), greedily (each 3-byte
 * prefix looked up in a hash of the last place it was seen, up to 8192
 * bytes back). Returns the bytes written, or 0 when the result would not
 * fit out (so a caller that wants a gain passes less room than in_len).
 * Uses 64 KB of stack. */
size_t lzf_compress(const void *in, size_t in_len, void *out, size_t out_len);

#endif
