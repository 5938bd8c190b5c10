/*
 * rdb_blobs.c - walking and validating listpacks, ziplists, intsets and
 * zipmaps (rdb_blobs.h). Every read is bounded by the blob's end, computed
 * from the size given, never from the blob's own header; the header is
 * only compared with it.
 */
#include "rdb_blobs.h"

#include <stdint.h>
#include <stdio.h>

#include "rdb_io.h"

#define LP_HEADER 6
#define LP_EOF 0xff
#define LP_COUNT_UNKNOWN 65535u

#define ZL_HEADER 10
#define ZL_END 0xff
#define ZL_BIGPREV 254
#define ZL_COUNT_UNKNOWN 65535u

#define IS_HEADER 8

#define ZM_BIGLEN 254
#define ZM_END 0xff

static int give_int(rdb_elem_cb *cb, void *arg, long long v)
{
    char num[24];
    int n = snprintf(num, sizeof(num), "%lld", v);
    return cb(arg, num, (size_t)n);
}

/* ---- listpack ---- */

/* The back length of an entry of l bytes, as listpack.c encodes it. */
static size_t lp_backlen(uint64_t l, unsigned char *buf)
{
    size_t n = l <= 127 ? 1 : l < 16383 ? 2 : l < 2097151 ? 3 : l < 268435455 ? 4 : 5;
    buf[n - 1] = (unsigned char)(l & 127);
    for (size_t i = n - 1; i > 0; i--) {
        l >>= 7;
        buf[i] |= 128;
        buf[i - 1] = (unsigned char)(l & 127);
    }
    return n;
}

int rdb_lp_open(struct rdb_lp_it *it, const unsigned char *lp, size_t size)
{
    if (size < LP_HEADER + 1 || rdb_le(lp, 4) != size || lp[size - 1] != LP_EOF)
        return -1;
    it->lp = lp;
    it->p = lp + LP_HEADER;
    it->end = lp + size - 1;
    it->count = 0;
    return 0;
}

int rdb_lp_next(struct rdb_lp_it *it, struct rdb_lp_elem *e)
{
    const unsigned char *p = it->p;
    if (p == it->end) {
        uint64_t declared = rdb_le(it->lp + 4, 2);
        return declared != LP_COUNT_UNKNOWN && declared != (uint64_t)it->count ? -1 : 0;
    }
    size_t avail = (size_t)(it->end - p), hdr, data = 0;
    unsigned b = p[0];
    e->is_int = 1;
    e->v = 0;
    if (b < 0x80) {
        hdr = 1;
        e->v = b;
    } else if ((b & 0xc0) == 0x80) {
        hdr = 1;
        data = b & 0x3f;
        e->is_int = 0;
    } else if ((b & 0xe0) == 0xc0) {
        hdr = 2;
        if (avail < 2)
            return -1;
        e->v = (long long)((b & 0x1f) << 8 | p[1]);
        if (e->v >= 1 << 12)
            e->v -= 1 << 13;
    } else if ((b & 0xf0) == 0xe0) {
        hdr = 2;
        if (avail < 2)
            return -1;
        data = (size_t)((b & 0x0f) << 8 | p[1]);
        e->is_int = 0;
    } else if (b == 0xf0) {
        hdr = 5;
        if (avail < 5)
            return -1;
        data = (size_t)rdb_le(p + 1, 4);
        e->is_int = 0;
    } else if (b >= 0xf1 && b <= 0xf4) {
        static const int bytes[] = {2, 3, 4, 8};
        int n = bytes[b - 0xf1];
        hdr = 1 + (size_t)n;
        if (avail < hdr)
            return -1;
        e->v = rdb_le_signed(p + 1, n);
    } else {
        return -1; /* 0xf5..0xfe are no encoding; 0xff ends early */
    }
    if (avail < hdr || avail - hdr < data)
        return -1;
    unsigned char back[5];
    size_t entry = hdr + data, blen = lp_backlen(entry, back);
    if (avail - entry < blen)
        return -1;
    for (size_t i = 0; i < blen; i++)
        if (p[entry + i] != back[i])
            return -1;
    e->p = (const char *)p + hdr;
    e->len = data;
    it->count++;
    it->p = p + entry + blen;
    return 1;
}

long rdb_listpack_walk(const unsigned char *lp, size_t size, rdb_elem_cb *cb, void *arg)
{
    struct rdb_lp_it it;
    struct rdb_lp_elem e;
    int rc;
    if (rdb_lp_open(&it, lp, size) < 0)
        return -1;
    while ((rc = rdb_lp_next(&it, &e)) == 1)
        if ((e.is_int ? give_int(cb, arg, e.v) : cb(arg, e.p, e.len)) < 0)
            return -1;
    return rc < 0 ? -1 : it.count;
}

/* The bytes of an entry's encoding (header and data) for the string
 * p[0, len) as listpack.c's lpEncodeString picks them. */
static void lp_put(struct rdb_out *o, const unsigned char *hdr, size_t hlen, const char *p,
                   size_t len)
{
    unsigned char back[5];
    rdb_out_bytes(o, hdr, hlen);
    rdb_out_bytes(o, p, len);
    rdb_out_bytes(o, back, lp_backlen(hlen + len, back));
}

void rdb_lp_begin(struct rdb_out *o, size_t *start)
{
    static const unsigned char header[LP_HEADER];
    *start = o->len;
    rdb_out_bytes(o, header, sizeof(header));
}

void rdb_lp_append_int(struct rdb_out *o, long long v)
{
    unsigned char hdr[9];
    size_t n;
    if (v >= 0 && v <= 127) {
        hdr[0] = (unsigned char)v;
        n = 1;
    } else if (v >= -4096 && v <= 4095) {
        uint64_t u = (uint64_t)v & 0x1fff;
        hdr[0] = (unsigned char)(0xc0 | u >> 8);
        hdr[1] = (unsigned char)u;
        n = 2;
    } else {
        int bytes = v >= -32768 && v <= 32767 ? 2 : v >= -8388608 && v <= 8388607 ? 3
                  : v >= INT32_MIN && v <= INT32_MAX ? 4 : 8;
        hdr[0] = (unsigned char)(bytes == 2 ? 0xf1 : bytes == 3 ? 0xf2 : bytes == 4 ? 0xf3 : 0xf4);
        for (int i = 0; i < bytes; i++)
            hdr[1 + i] = (unsigned char)((uint64_t)v >> (8 * i));
        n = 1 + (size_t)bytes;
    }
    lp_put(o, hdr, n, "", 0);
}

void rdb_lp_append_str(struct rdb_out *o, const char *p, size_t len)
{
    unsigned char hdr[5];
    size_t n;
    if (len < 64) {
        hdr[0] = (unsigned char)(0x80 | len);
        n = 1;
    } else if (len < 4096) {
        hdr[0] = (unsigned char)(0xe0 | len >> 8);
        hdr[1] = (unsigned char)len;
        n = 2;
    } else {
        hdr[0] = 0xf0;
        for (int i = 0; i < 4; i++)
            hdr[1 + i] = (unsigned char)(len >> (8 * i));
        n = 5;
    }
    lp_put(o, hdr, n, len ? p : "", len);
}

void rdb_lp_end(struct rdb_out *o, size_t start, size_t count)
{
    rdb_out_byte(o, LP_EOF);
    size_t size = o->len - start;
    unsigned char *h = (unsigned char *)o->buf + start;
    for (int i = 0; i < 4; i++)
        h[i] = (unsigned char)(size >> (8 * i));
    uint64_t c = count < LP_COUNT_UNKNOWN ? count : LP_COUNT_UNKNOWN;
    h[4] = (unsigned char)c;
    h[5] = (unsigned char)(c >> 8);
}

/* ---- ziplist ---- */

long rdb_ziplist_walk(const unsigned char *zl, size_t size, rdb_elem_cb *cb, void *arg)
{
    if (size < ZL_HEADER + 1 || rdb_le(zl, 4) != size || zl[size - 1] != ZL_END)
        return -1;
    const unsigned char *p = zl + ZL_HEADER, *end = zl + size - 1;
    size_t prev_len = 0, last = ZL_HEADER;
    long count = 0;
    while (p < end) {
        size_t avail = (size_t)(end - p), plen, hdr, data = 0;
        uint64_t prev;
        if (p[0] < ZL_BIGPREV) {
            plen = 1;
            prev = p[0];
        } else if (p[0] == ZL_BIGPREV && avail >= 5) {
            plen = 5;
            prev = rdb_le(p + 1, 4);
        } else {
            return -1;
        }
        if (prev != prev_len || avail <= plen)
            return -1;
        const unsigned char *q = p + plen;
        size_t qa = avail - plen;
        unsigned b = q[0];
        long long v = 0;
        int is_int = 1;
        switch (b >> 6) {
        case 0:
            hdr = 1;
            data = b & 0x3f;
            is_int = 0;
            break;
        case 1:
            if (qa < 2)
                return -1;
            hdr = 2;
            data = (size_t)((b & 0x3f) << 8 | q[1]);
            is_int = 0;
            break;
        case 2:
            if (qa < 5)
                return -1;
            hdr = 5;
            data = (size_t)((uint64_t)q[1] << 24 | (uint64_t)q[2] << 16 | (uint64_t)q[3] << 8 | q[4]);
            is_int = 0;
            break;
        default: {
            int n;
            if (b == 0xc0)
                n = 2;
            else if (b == 0xd0)
                n = 4;
            else if (b == 0xe0)
                n = 8;
            else if (b == 0xf0)
                n = 3;
            else if (b == 0xfe)
                n = 1;
            else if (b >= 0xf1 && b <= 0xfd)
                n = 0;
            else
                return -1;
            hdr = 1 + (size_t)n;
            if (qa < hdr)
                return -1;
            v = n ? rdb_le_signed(q + 1, n) : (long long)(b & 0x0f) - 1;
            break;
        }
        }
        if (qa < hdr || qa - hdr < data)
            return -1;
        int rc = is_int ? give_int(cb, arg, v) : cb(arg, (const char *)q + hdr, data);
        if (rc < 0)
            return -1;
        count++;
        last = (size_t)(p - zl);
        prev_len = plen + hdr + data;
        p += prev_len;
    }
    uint64_t declared = rdb_le(zl + 8, 2);
    if (rdb_le(zl + 4, 4) != last || (declared != ZL_COUNT_UNKNOWN && declared != (uint64_t)count))
        return -1;
    return count;
}

/* ---- intset ---- */

long rdb_intset_walk(const unsigned char *is, size_t size, int strict, rdb_elem_cb *cb,
                     void *arg)
{
    if (size < IS_HEADER)
        return -1;
    uint64_t width = rdb_le(is, 4), count = rdb_le(is + 4, 4);
    if ((width != 2 && width != 4 && width != 8) || count == 0 ||
        (size - IS_HEADER) / width != count || (size - IS_HEADER) % width != 0)
        return -1;
    long long prev = 0;
    for (uint64_t i = 0; i < count; i++) {
        long long v = rdb_le_signed(is + IS_HEADER + i * width, (int)width);
        if (strict && i > 0 && v <= prev)
            return -1;
        if (give_int(cb, arg, v) < 0)
            return -1;
        prev = v;
    }
    return (long)count;
}

/* ---- zipmap ---- */

/* A zipmap length at *p (one byte under 254, else 254 and 4 bytes little
 * endian): 0 with *len set and *p past it, or -1. */
static int zm_len(const unsigned char **p, const unsigned char *end, size_t *len)
{
    if (*p >= end || **p == ZM_END)
        return -1;
    if (**p < ZM_BIGLEN) {
        *len = *(*p)++;
        return 0;
    }
    if (end - *p < 5)
        return -1;
    *len = (size_t)rdb_le(*p + 1, 4);
    *p += 5;
    return 0;
}

long rdb_zipmap_walk(const unsigned char *zm, size_t size, rdb_elem_cb *cb, void *arg)
{
    if (size < 2 || zm[size - 1] != ZM_END)
        return -1;
    const unsigned char *p = zm + 1, *end = zm + size - 1;
    long pairs = 0;
    while (p < end) {
        size_t flen, vlen;
        if (zm_len(&p, end, &flen) < 0 || (size_t)(end - p) < flen ||
            cb(arg, (const char *)p, flen) < 0)
            return -1;
        p += flen;
        if (zm_len(&p, end, &vlen) < 0 || p >= end)
            return -1;
        size_t spare = *p++;
        if ((size_t)(end - p) < vlen || (size_t)(end - p) - vlen < spare ||
            cb(arg, (const char *)p, vlen) < 0)
            return -1;
        p += vlen + spare;
        pairs++;
    }
    if (pairs == 0 || (zm[0] != ZM_BIGLEN && zm[0] != pairs))
        return -1;
    return pairs * 2;
}
