/*
 * rdb_io.h - the primitives of Redis's RDB format (rdb.c): lengths, strings
 * (raw, integer-encoded, LZF-compressed), doubles, read from a buffer held
 * in memory and written to a growing one. The value codec (rdb_value.h) is
 * built on them; the RDB file work will be too.
 *
 * Owns: a struct rdb_out's bytes (until rdb_out_take hands them over) and a
 * struct rdb_str's decompressed copy. The input is borrowed and untrusted:
 * every length is checked against the bytes left before it is used, and no
 * allocation is sized by a length the input could not back.
 */
#ifndef RBKV_RDB_IO_H
#define RBKV_RDB_IO_H

#include <stddef.h>
#include <stdint.h>

/* Input: buf[pos, len). */
struct rdb_in {
    const unsigned char *buf;
    size_t len, pos;
};

/* A string read: p/len, which point into the input (raw), into num (an
 * integer encoding, as decimal text) or into owned (LZF, decompressed).
 * Valid until rdb_str_release, and while the input lives. */
struct rdb_str {
    const char *p;
    size_t len;
    char *owned;
    char num[24];
};

/* The n-byte (n <= 8) little-endian unsigned integer at p. */
uint64_t rdb_le(const void *p, int n);
/* The n-byte (n <= 8) big-endian unsigned integer at p. */
uint64_t rdb_be(const void *q, int n);
/* The little-endian one read as two's complement. */
long long rdb_le_signed(const void *p, int n);

/* Bytes left to read. */
static inline size_t rdb_left(const struct rdb_in *in) { return in->len - in->pos; }

/* Each returns 0, or -1 when the input is short or malformed. */
int rdb_read_byte(struct rdb_in *in, unsigned *byte);
/* A length (rdb.c's rdbLoadLen); *encoded is set when it is the 11xxxxxx
 * form naming a string encoding (then *len is that encoding). encoded may be
 * NULL: the form is then an error. */
int rdb_read_len(struct rdb_in *in, uint64_t *len, int *encoded);
/* A string in any of its encodings. On failure s owns nothing. */
int rdb_read_string(struct rdb_in *in, struct rdb_str *s);
void rdb_str_release(struct rdb_str *s);
/* A score of the old ZSET type: a length byte, then text (253 NaN, 254
 * +inf, 255 -inf). */
int rdb_read_text_double(struct rdb_in *in, double *d);
/* An 8-byte little-endian IEEE double (ZSET_2). */
int rdb_read_binary_double(struct rdb_in *in, double *d);

/* Output: a buffer grown as needed (through mem.h). */
struct rdb_out {
    char *buf;
    size_t len, cap;
};
void rdb_out_bytes(struct rdb_out *o, const void *p, size_t n);
void rdb_out_byte(struct rdb_out *o, unsigned byte);
void rdb_out_len(struct rdb_out *o, uint64_t len);
/* A string as rdb.c's rdbSaveRawString writes it, for DUMP payloads and
 * files alike: the canonical text of an integer that fits 32 bits (up to 11
 * bytes, "-2147483648") as RDB_ENC_INT8/16/32; else LZF-compressed when
 * compression is on, it is longer than 20 bytes and compressing saves at
 * least 4 (rdbSaveLzfStringObject); else raw. p must not point into o's
 * buffer. */
void rdb_out_string(struct rdb_out *o, const char *p, size_t len);
/* Where rdb_out_string reads whether to compress (Redis's rdbcompression),
 * at every string, so a CONFIG SET acts at once: main.c points it at
 * server.cfg.rdbcompression. NULL, the default, compresses, as Redis does
 * by default (--convert-rdb reads no configuration). */
void rdb_set_compression_source(const int *on);
void rdb_out_binary_double(struct rdb_out *o, double d);
/* Hands the bytes to the caller (who frees them with xfree) and empties o. */
char *rdb_out_take(struct rdb_out *o, size_t *len);
void rdb_out_free(struct rdb_out *o);

#endif
