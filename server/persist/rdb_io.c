/*
 * rdb_io.c - the RDB format's lengths, strings and doubles (rdb_io.h).
 *
 * Lengths, as rdb.c writes them: 00xxxxxx (6 bits), 01xxxxxx xxxxxxxx (14
 * bits, big endian), 0x80 + 32 bits or 0x81 + 64 bits (big endian), or
 * 11xxxxxx, which is no length but a string's special encoding: 0, 1, 2 an
 * 8, 16 or 32-bit little-endian integer, 3 LZF (compressed length,
 * original length, compressed bytes).
 */
#include "rdb_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lzf.h"
#include "mem.h"
#include "resp_num.h"

#define RDB_6BITLEN 0
#define RDB_14BITLEN 1
#define RDB_ENCVAL 3
#define RDB_32BITLEN 0x80
#define RDB_64BITLEN 0x81
#define RDB_ENC_INT8 0
#define RDB_ENC_INT16 1
#define RDB_ENC_INT32 2
#define RDB_ENC_LZF 3

/* rdbLoadDoubleValue's markers for the non-finite scores. */
#define RDB_TEXT_NAN 253
#define RDB_TEXT_POS_INF 254
#define RDB_TEXT_NEG_INF 255

static int take(struct rdb_in *in, size_t n, const unsigned char **p)
{
    if (rdb_left(in) < n)
        return -1;
    *p = in->buf + in->pos;
    in->pos += n;
    return 0;
}

int rdb_read_byte(struct rdb_in *in, unsigned *byte)
{
    const unsigned char *p;
    if (take(in, 1, &p) < 0)
        return -1;
    *byte = *p;
    return 0;
}

uint64_t rdb_be(const void *q, int n)
{
    const unsigned char *p = q;
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

uint64_t rdb_le(const void *p, int n)
{
    const unsigned char *b = p;
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

long long rdb_le_signed(const void *p, int n)
{
    uint64_t v = rdb_le(p, n);
    if (n < 8 && (v >> (8 * n - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * n);
    return (long long)v;
}

int rdb_read_len(struct rdb_in *in, uint64_t *len, int *encoded)
{
    unsigned b;
    const unsigned char *p;
    if (rdb_read_byte(in, &b) < 0)
        return -1;
    if (encoded)
        *encoded = 0;
    switch (b >> 6) {
    case RDB_6BITLEN:
        *len = b & 0x3f;
        return 0;
    case RDB_14BITLEN:
        if (take(in, 1, &p) < 0)
            return -1;
        *len = (uint64_t)(b & 0x3f) << 8 | *p;
        return 0;
    case RDB_ENCVAL:
        if (!encoded)
            return -1;
        *encoded = 1;
        *len = b & 0x3f;
        return 0;
    default:
        if (b != RDB_32BITLEN && b != RDB_64BITLEN)
            return -1;
        if (take(in, b == RDB_32BITLEN ? 4 : 8, &p) < 0)
            return -1;
        *len = rdb_be(p, b == RDB_32BITLEN ? 4 : 8);
        return 0;
    }
}

static int read_lzf(struct rdb_in *in, struct rdb_str *s)
{
    uint64_t clen, len;
    const unsigned char *p;
    if (rdb_read_len(in, &clen, NULL) < 0 || rdb_read_len(in, &len, NULL) < 0 ||
        clen > rdb_left(in) || len > clen * LZF_MAX_EXPANSION || take(in, clen, &p) < 0)
        return -1;
    /* An empty string is never compressed: Redis refuses the pair too. */
    if (len == 0)
        return -1;
    s->owned = xmalloc(len);
    if (lzf_decompress(p, clen, s->owned, len) != len) {
        xfree(s->owned);
        s->owned = NULL;
        return -1;
    }
    s->p = s->owned;
    s->len = len;
    return 0;
}

int rdb_read_string(struct rdb_in *in, struct rdb_str *s)
{
    uint64_t len;
    int encoded;
    const unsigned char *p;
    s->owned = NULL;
    if (rdb_read_len(in, &len, &encoded) < 0)
        return -1;
    if (!encoded) {
        if (take(in, len, &p) < 0)
            return -1;
        s->p = (const char *)p;
        s->len = len;
        return 0;
    }
    long long v;
    switch (len) {
    case RDB_ENC_INT8:
        if (take(in, 1, &p) < 0)
            return -1;
        v = rdb_le_signed(p, 1);
        break;
    case RDB_ENC_INT16:
        if (take(in, 2, &p) < 0)
            return -1;
        v = rdb_le_signed(p, 2);
        break;
    case RDB_ENC_INT32:
        if (take(in, 4, &p) < 0)
            return -1;
        v = rdb_le_signed(p, 4);
        break;
    case RDB_ENC_LZF:
        return read_lzf(in, s);
    default:
        return -1;
    }
    s->len = resp_format_ll(s->num, v);
    s->p = s->num;
    return 0;
}

void rdb_str_release(struct rdb_str *s)
{
    xfree(s->owned);
    s->owned = NULL;
}

int rdb_read_text_double(struct rdb_in *in, double *d)
{
    unsigned n;
    const unsigned char *p;
    if (rdb_read_byte(in, &n) < 0)
        return -1;
    switch (n) {
    case RDB_TEXT_NAN:
        *d = NAN;
        return 0;
    case RDB_TEXT_POS_INF:
        *d = INFINITY;
        return 0;
    case RDB_TEXT_NEG_INF:
        *d = -INFINITY;
        return 0;
    default:
        break;
    }
    if (take(in, n, &p) < 0)
        return -1;
    /* sscanf("%lg") in Redis: leading space allowed, the rest ignored. */
    char text[256], *end;
    memcpy(text, p, n);
    text[n] = '\0';
    *d = strtod(text, &end);
    return end == text ? -1 : 0;
}

int rdb_read_binary_double(struct rdb_in *in, double *d)
{
    const unsigned char *p;
    if (take(in, 8, &p) < 0)
        return -1;
    uint64_t bits = rdb_le(p, 8);
    memcpy(d, &bits, sizeof(*d));
    return 0;
}

/* rdbSaveRawString tries no compression below this many bytes. */
#define LZF_MIN_LEN 21
/* rdbSaveLzfStringObject keeps a compressed string only this much shorter. */
#define LZF_MIN_GAIN 4
/* rdbSaveRawString tries the integer encodings only up to this many bytes. */
#define RDB_INT_TEXT_MAX 11
/* The longest length encoding: 0x81 and 8 bytes. */
#define LEN_MAX_BYTES 9

static const int *compression_source;

void rdb_set_compression_source(const int *on)
{
    compression_source = on;
}

/* Room for n more bytes in o. */
static void reserve(struct rdb_out *o, size_t n)
{
    if (o->cap - o->len >= n)
        return;
    size_t cap = o->cap ? o->cap : 64;
    while (cap - o->len < n)
        cap *= 2;
    o->buf = xrealloc(o->buf, cap);
    o->cap = cap;
}

void rdb_out_bytes(struct rdb_out *o, const void *p, size_t n)
{
    reserve(o, n);
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

void rdb_out_byte(struct rdb_out *o, unsigned byte)
{
    unsigned char b = (unsigned char)byte;
    rdb_out_bytes(o, &b, 1);
}

/* len's encoding into b (LEN_MAX_BYTES); returns its size. */
static size_t encode_len(unsigned char *b, uint64_t len)
{
    if (len < 1u << 6) {
        b[0] = (unsigned char)len;
        return 1;
    }
    if (len < 1u << 14) {
        b[0] = (unsigned char)(RDB_14BITLEN << 6 | len >> 8);
        b[1] = (unsigned char)len;
        return 2;
    }
    int n = len <= UINT32_MAX ? 4 : 8;
    b[0] = n == 4 ? RDB_32BITLEN : RDB_64BITLEN;
    for (int i = 0; i < n; i++)
        b[1 + i] = (unsigned char)(len >> (8 * (n - 1 - i)));
    return (size_t)n + 1;
}

void rdb_out_len(struct rdb_out *o, uint64_t len)
{
    unsigned char b[LEN_MAX_BYTES];
    size_t n = encode_len(b, len); /* before the call: cppcheck reads b first otherwise */
    rdb_out_bytes(o, b, n);
}

/* p[0, len) LZF-compressed: the encoding byte, the compressed and the
 * original length, the compressed bytes. The bytes are compressed where
 * they will end, past room for the longest header, then the header is put
 * before them. Returns 0, or -1 (o unchanged) when it would not save
 * LZF_MIN_GAIN bytes. */
static int out_lzf(struct rdb_out *o, const char *p, size_t len)
{
    size_t room = len - LZF_MIN_GAIN, head = 1 + 2 * LEN_MAX_BYTES;
    reserve(o, head + room);
    unsigned char *at = (unsigned char *)o->buf + o->len;
    size_t clen = lzf_compress(p, len, at + head, room);
    if (!clen)
        return -1;
    unsigned char hdr[1 + 2 * LEN_MAX_BYTES];
    size_t h = 0;
    hdr[h++] = RDB_ENCVAL << 6 | RDB_ENC_LZF;
    h += encode_len(hdr + h, clen);
    h += encode_len(hdr + h, len);
    memmove(at + h, at + head, clen);
    memcpy(at, hdr, h);
    o->len += h + clen;
    return 0;
}

/* rdbTryIntegerEncoding: p[0, len) as RDB_ENC_INT8/16/32 when it is the
 * canonical text of an integer that fits 32 bits (what string2ll reads and
 * ll2string writes back the same), as Redis writes it. Returns 0, or -1 (o
 * unchanged). */
static int out_int(struct rdb_out *o, const char *p, size_t len)
{
    long long v;
    if (len > RDB_INT_TEXT_MAX || resp_parse_ll(p, len, &v) < 0)
        return -1;
    unsigned char b[5];
    int n;
    if (v >= INT8_MIN && v <= INT8_MAX) {
        b[0] = RDB_ENCVAL << 6 | RDB_ENC_INT8;
        n = 1;
    } else if (v >= INT16_MIN && v <= INT16_MAX) {
        b[0] = RDB_ENCVAL << 6 | RDB_ENC_INT16;
        n = 2;
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        b[0] = RDB_ENCVAL << 6 | RDB_ENC_INT32;
        n = 4;
    } else {
        return -1;
    }
    for (int i = 0; i < n; i++)
        b[1 + i] = (unsigned char)((uint64_t)v >> (8 * i));
    rdb_out_bytes(o, b, (size_t)n + 1);
    return 0;
}

void rdb_out_string(struct rdb_out *o, const char *p, size_t len)
{
    if (len <= RDB_INT_TEXT_MAX && len > 0 && out_int(o, p, len) == 0)
        return;
    if (len >= LZF_MIN_LEN && (!compression_source || *compression_source) &&
        out_lzf(o, p, len) == 0)
        return;
    rdb_out_len(o, len);
    rdb_out_bytes(o, p, len);
}

void rdb_out_binary_double(struct rdb_out *o, double d)
{
    uint64_t bits;
    unsigned char b[8];
    memcpy(&bits, &d, sizeof(bits));
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(bits >> (8 * i));
    rdb_out_bytes(o, b, 8);
}

char *rdb_out_take(struct rdb_out *o, size_t *len)
{
    char *buf = o->buf;
    *len = o->len;
    *o = (struct rdb_out){0};
    return buf;
}

void rdb_out_free(struct rdb_out *o)
{
    xfree(o->buf);
    *o = (struct rdb_out){0};
}
