/*
 * hll.c - Redis's HyperLogLog as bytes (hll.h).
 *
 * What must be Redis's to the bit, because a value moves between servers
 * and replies are compared byte for byte: the hash (MurmurHash64A, seed
 * 0xadc83b19, register from the low 14 bits, run from the rest), the packing
 * of dense registers, the sparse opcodes each write produces (which opcode
 * a split yields, which neighbours merge), when a sparse value turns dense,
 * the cache bit, and the estimator: Ertl's (arXiv:1702.01284), which Redis
 * uses since 5.0, computed in the same order of double operations, so the
 * same registers give the same count.
 *
 * Nothing here trusts a sparse value: every walk is bounded by the value's
 * length and by the register count, in 64-bit arithmetic, and what does not
 * cover exactly HLL_REGISTERS registers is reported, never written through.
 */
#include "hll.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mem.h"

#define HLL_Q (64 - HLL_P)        /* hash bits left to count a run in */
#define HLL_BITS 6
#define HLL_REGISTER_MAX ((1u << HLL_BITS) - 1)
#define HLL_CARD 8                /* the cached cardinality's offset */
#define HLL_STALE 0x80u           /* in its last byte: "count again" */
#define HLL_SEED 0xadc83b19u
/* 0.5 / ln 2: the estimator's alpha for an infinite register count. */
#define HLL_ALPHA_INF 0.721347520444481703680

#define SPARSE_VAL_BIT 0x80u
#define SPARSE_XZERO_BIT 0x40u
#define SPARSE_VAL_MAX_VALUE 32u
#define SPARSE_VAL_MAX_LEN 4u
#define SPARSE_ZERO_MAX_LEN 64u
/* A split writes at most XZERO VAL XZERO. */
#define SPARSE_SEQ_MAX 5

static const char hll_magic[4] = {'H', 'Y', 'L', 'L'};

int hll_is_valid(const unsigned char *s, size_t len)
{
    if (len < HLL_HDR_SIZE || memcmp(s, hll_magic, sizeof(hll_magic)) != 0)
        return 0;
    if (s[4] == HLL_SPARSE)
        return 1;
    return s[4] == HLL_DENSE && len == HLL_DENSE_SIZE;
}

void hll_init_sparse(unsigned char *out)
{
    memset(out, 0, HLL_SPARSE_EMPTY_SIZE);
    memcpy(out, hll_magic, sizeof(hll_magic));
    out[4] = HLL_SPARSE;
    /* One XZERO of all 16384 registers: its 14 bits hold the run minus 1. */
    out[HLL_HDR_SIZE] = (unsigned char)(SPARSE_XZERO_BIT | ((HLL_REGISTERS - 1) >> 8));
    out[HLL_HDR_SIZE + 1] = (unsigned char)((HLL_REGISTERS - 1) & 0xff);
}

/* ---- Hashing ---- */

uint64_t hll_murmur64a(const void *key, size_t len)
{
    const uint64_t m = 0xc6a4a7935bd1e995ULL;
    const int r = 47;
    const unsigned char *p = key;
    /* Redis passes the length as an int. */
    uint64_t h = HLL_SEED ^ ((uint64_t)(int)len * m);
    size_t blocks = len / 8;

    for (size_t i = 0; i < blocks; i++, p += 8) {
        uint64_t k;
        /* Each block read little endian, whatever the host. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(&k, p, sizeof(k));
#else
        k = 0;
        for (int b = 7; b >= 0; b--)
            k = k << 8 | p[b];
#endif
        k *= m;
        k ^= k >> r;
        k *= m;
        h ^= k;
        h *= m;
    }
    size_t tail = len & 7;
    if (tail) {
        for (size_t b = tail; b-- > 0;)
            h ^= (uint64_t)p[b] << (8 * b);
        h *= m;
    }
    h ^= h >> r;
    h *= m;
    h ^= h >> r;
    return h;
}

void hll_hash(const void *ele, size_t len, unsigned *index, unsigned *count)
{
    uint64_t hash = hll_murmur64a(ele, len);
    *index = (unsigned)(hash & (HLL_REGISTERS - 1));
    /* The run of zeros above the index bits, plus its closing 1; bit Q set
     * bounds it at Q + 1. */
    hash >>= HLL_P;
    hash |= (uint64_t)1 << HLL_Q;
    *count = (unsigned)__builtin_ctzll(hash) + 1;
}

/* ---- Dense registers ----
 *
 * Register i is 6 bits starting at bit 6i of the registers, counted from
 * each byte's least significant bit up:
 *
 *   byte:      0          1          2
 *           76543210   76543210   76543210
 *           11000000   22221111   33333322
 *
 * A register starting at bit 0 or 2 of its byte lies in that byte alone
 * (the last one, 16383, starts at bit 2 of the last byte), so only those
 * starting at bit 4 or 6 reach into the next. */

static unsigned reg_get(const unsigned char *regs, unsigned index)
{
    size_t byte = (size_t)index * HLL_BITS / 8;
    unsigned fb = (index * HLL_BITS) & 7;
    unsigned v = regs[byte] >> fb;
    if (fb > 8 - HLL_BITS)
        v |= (unsigned)regs[byte + 1] << (8 - fb);
    return v & HLL_REGISTER_MAX;
}

static void reg_put(unsigned char *regs, unsigned index, unsigned val)
{
    size_t byte = (size_t)index * HLL_BITS / 8;
    unsigned fb = (index * HLL_BITS) & 7;
    regs[byte] = (unsigned char)((regs[byte] & ~(HLL_REGISTER_MAX << fb)) | (val << fb));
    if (fb > 8 - HLL_BITS) {
        unsigned rs = 8 - fb;
        regs[byte + 1] =
            (unsigned char)((regs[byte + 1] & ~(HLL_REGISTER_MAX >> rs)) | (val >> rs));
    }
}

unsigned hll_dense_get(const unsigned char *s, unsigned index)
{
    return reg_get(s + HLL_HDR_SIZE, index);
}

int hll_dense_set(unsigned char *s, unsigned index, unsigned count)
{
    unsigned char *regs = s + HLL_HDR_SIZE;
    if (count <= reg_get(regs, index))
        return 0;
    reg_put(regs, index, count);
    return 1;
}

/* ---- Sparse opcodes ---- */

size_t hll_sparse_op(const unsigned char *p, const unsigned char *end, struct hll_op *op)
{
    unsigned b = p[0];
    if ((b & 0xc0u) == 0) {
        *op = (struct hll_op){HLL_OP_ZERO, (b & 0x3fu) + 1, 0};
        return 1;
    }
    if (b & SPARSE_VAL_BIT) {
        *op = (struct hll_op){HLL_OP_VAL, (b & 0x3u) + 1, ((b >> 2) & 0x1fu) + 1};
        return 1;
    }
    /* Past the value's end, Redis reads its string's terminating zero. */
    unsigned low = p + 1 < end ? p[1] : 0;
    *op = (struct hll_op){HLL_OP_XZERO, (((b & 0x3fu) << 8) | low) + 1, 0};
    return 2;
}

static unsigned char val_op(unsigned value, unsigned run)
{
    return (unsigned char)(SPARSE_VAL_BIT | (value - 1) << 2 | (run - 1));
}

/* Writes a run of zeros as ZERO when it fits one, else XZERO; returns the
 * byte after it. */
static unsigned char *put_zeros(unsigned char *n, unsigned run)
{
    if (run <= SPARSE_ZERO_MAX_LEN) {
        *n = (unsigned char)(run - 1);
        return n + 1;
    }
    n[0] = (unsigned char)(SPARSE_XZERO_BIT | (run - 1) >> 8);
    n[1] = (unsigned char)((run - 1) & 0xff);
    return n + 2;
}

/* Merges runs of equal VALs that fit one opcode, looking at up to five
 * opcodes from p (the opcode before the one just written, so both of its
 * sides are seen); returns the new end. */
static unsigned char *merge_vals(unsigned char *p, unsigned char *end)
{
    int scan = 5;
    while (p < end && scan-- > 0) {
        unsigned b = *p;
        if ((b & 0xc0u) == SPARSE_XZERO_BIT) {
            p += 2;
            continue;
        }
        if (!(b & SPARSE_VAL_BIT)) {
            p++;
            continue;
        }
        if (p + 1 < end && (p[1] & SPARSE_VAL_BIT)) {
            struct hll_op a, c;
            hll_sparse_op(p, end, &a);
            hll_sparse_op(p + 1, end, &c);
            if (a.value == c.value && a.run + c.run <= SPARSE_VAL_MAX_LEN) {
                p[1] = val_op(a.value, a.run + c.run);
                memmove(p, p + 1, (size_t)(end - p - 1));
                end--;
                /* The merged opcode may merge again with the next. */
                continue;
            }
        }
        p++;
    }
    return end;
}

enum hll_set hll_sparse_set(unsigned char *s, size_t *len, unsigned index, unsigned count,
                            size_t max_bytes)
{
    if (count > SPARSE_VAL_MAX_VALUE)
        return HLL_SET_PROMOTE;

    unsigned char *sparse = s + HLL_HDR_SIZE, *end = s + *len, *p = sparse, *prev = NULL;
    uint64_t first = 0;
    struct hll_op op = {HLL_OP_ZERO, 0, 0};
    size_t oplen = 0;

    /* The opcode covering index: first is the first register it covers. */
    while (p < end) {
        oplen = hll_sparse_op(p, end, &op);
        if (index < first + op.run)
            break;
        prev = p;
        p += oplen;
        first += op.run;
    }
    if (op.run == 0 || p >= end)
        return HLL_SET_CORRUPT;
    unsigned char *next = p + oplen < end ? p + oplen : NULL;

    if (op.kind == HLL_OP_VAL) {
        if (op.value >= count)
            return HLL_SET_SAME;
        if (op.run == 1) {
            *p = val_op(count, 1);
            goto updated;
        }
    } else if (op.kind == HLL_OP_ZERO && op.run == 1) {
        *p = val_op(count, 1);
        goto updated;
    }

    /* Split the opcode around index: what comes before it, index's own
     * VAL, what comes after. */
    unsigned char seq[SPARSE_SEQ_MAX], *n = seq;
    unsigned before = (unsigned)(index - first);
    unsigned after = (unsigned)(first + op.run - 1 - index);
    if (op.kind == HLL_OP_VAL) {
        if (before)
            *n++ = val_op(op.value, before);
        *n++ = val_op(count, 1);
        if (after)
            *n++ = val_op(op.value, after);
    } else {
        if (before)
            n = put_zeros(n, before);
        *n++ = val_op(count, 1);
        if (after)
            n = put_zeros(n, after);
    }
    size_t seqlen = (size_t)(n - seq);
    long delta = (long)seqlen - (long)oplen;
    if (delta > 0 && *len + (size_t)delta > max_bytes)
        return HLL_SET_PROMOTE;
    if (delta && next)
        memmove(next + delta, next, (size_t)(end - next));
    size_t newlen = (size_t)((long)*len + delta);
    /* An XZERO that was the value's last byte had only one of its two
     * bytes: Redis writes the new sequence from there and keeps the bytes
     * that fit the new length, so the same happens here. */
    size_t fits = (size_t)(s + newlen - p);
    memcpy(p, seq, seqlen < fits ? seqlen : fits);
    end = s + newlen;

updated:
    end = merge_vals(prev ? prev : sparse, end);
    *len = (size_t)(end - s);
    hll_invalidate(s);
    return HLL_SET_CHANGED;
}

/* Calls fn for each opcode of the sparse s[0..len), with the first register
 * it covers, in order. 0 when the runs cover exactly HLL_REGISTERS
 * registers; -1, stopping before the run that would pass them, when not. */
typedef void sparse_run_fn(void *ctx, unsigned first, const struct hll_op *op);

static int sparse_walk(const unsigned char *s, size_t len, sparse_run_fn *fn, void *ctx)
{
    const unsigned char *p = s + HLL_HDR_SIZE, *end = s + len;
    uint64_t idx = 0;
    while (p < end) {
        struct hll_op op;
        p += hll_sparse_op(p, end, &op);
        if (idx + op.run > HLL_REGISTERS)
            return -1;
        fn(ctx, (unsigned)idx, &op);
        idx += op.run;
    }
    return idx == HLL_REGISTERS ? 0 : -1;
}

static void run_to_dense(void *regs, unsigned first, const struct hll_op *op)
{
    for (unsigned i = 0; op->value && i < op->run; i++)
        reg_put(regs, first + i, op->value);
}

int hll_sparse_to_dense(const unsigned char *s, size_t len, unsigned char *dense)
{
    memcpy(dense, s, HLL_HDR_SIZE);
    dense[4] = HLL_DENSE;
    memset(dense + HLL_HDR_SIZE, 0, HLL_DENSE_SIZE - HLL_HDR_SIZE);
    return sparse_walk(s, len, run_to_dense, dense + HLL_HDR_SIZE);
}

/* ---- The cached cardinality ---- */

int hll_cached(const unsigned char *s, uint64_t *card)
{
    if (s[HLL_CARD + 7] & HLL_STALE)
        return 0;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | s[HLL_CARD + i];
    *card = v;
    return 1;
}

void hll_set_cached(unsigned char *s, uint64_t card)
{
    for (int i = 0; i < 8; i++)
        s[HLL_CARD + i] = (unsigned char)(card >> (8 * i));
}

void hll_invalidate(unsigned char *s)
{
    s[HLL_CARD + 7] |= HLL_STALE;
}

/* ---- Counting ---- */

/* Ertl's sigma and tau, as Redis computes them. */
static double hll_sigma(double x)
{
    if (x == 1.)
        return INFINITY;
    double z_prev, y = 1, z = x;
    do {
        x *= x;
        z_prev = z;
        z += x * y;
        y += y;
    } while (z_prev != z);
    return z;
}

static double hll_tau(double x)
{
    if (x == 0. || x == 1.)
        return 0.;
    double z_prev, y = 1.0, z = 1 - x;
    do {
        x = sqrt(x);
        z_prev = z;
        y *= 0.5;
        z -= pow(1 - x, 2) * y;
    } while (z_prev != z);
    return z / 3;
}

/* The estimate from how many registers hold each value (64 slots: a dense
 * value may hold up to 63, though no hash yields more than Q + 1). */
static uint64_t estimate(const int *histo)
{
    double m = HLL_REGISTERS;
    double z = m * hll_tau((m - histo[HLL_Q + 1]) / m);
    for (int j = HLL_Q; j >= 1; --j) {
        z += histo[j];
        z *= 0.5;
    }
    z += m * hll_sigma(histo[0] / m);
    return (uint64_t)llround(HLL_ALPHA_INF * m * m / z);
}

/* Four registers in every three bytes. */
static void dense_histo(const unsigned char *regs, int *histo)
{
    for (size_t i = 0; i < HLL_REGISTERS * HLL_BITS / 8; i += 3) {
        uint32_t v = (uint32_t)regs[i] | (uint32_t)regs[i + 1] << 8 | (uint32_t)regs[i + 2] << 16;
        histo[v & 63]++;
        histo[(v >> 6) & 63]++;
        histo[(v >> 12) & 63]++;
        histo[(v >> 18) & 63]++;
    }
}

static void run_to_histo(void *histo, unsigned first, const struct hll_op *op)
{
    (void)first;
    ((int *)histo)[op->value] += (int)op->run;
}

int hll_count(const unsigned char *s, size_t len, uint64_t *card)
{
    int histo[64] = {0};
    if (hll_encoding_of(s) == HLL_DENSE)
        dense_histo(s + HLL_HDR_SIZE, histo);
    else if (sparse_walk(s, len, run_to_histo, histo) < 0)
        return -1;
    *card = estimate(histo);
    return 0;
}

uint64_t hll_count_registers(const uint8_t *regs)
{
    int histo[64] = {0};
    for (unsigned i = 0; i < HLL_REGISTERS; i++)
        histo[regs[i] & 63]++;
    return estimate(histo);
}

static void run_to_max(void *max, unsigned first, const struct hll_op *op)
{
    uint8_t *m = max;
    for (unsigned i = 0; op->value && i < op->run; i++) {
        if (op->value > m[first + i])
            m[first + i] = (uint8_t)op->value;
    }
}

int hll_merge(uint8_t *max, const unsigned char *s, size_t len)
{
    if (hll_encoding_of(s) == HLL_SPARSE)
        return sparse_walk(s, len, run_to_max, max);
    const unsigned char *regs = s + HLL_HDR_SIZE;
    for (unsigned i = 0; i < HLL_REGISTERS; i++) {
        unsigned v = reg_get(regs, i);
        if (v > max[i])
            max[i] = (uint8_t)v;
    }
    return 0;
}

/* ---- PFSELFTEST ---- */

#define SELFTEST_CYCLES 1000
#define SELFTEST_MAX_CARD 10000000u

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* An HLL in a heap buffer as PFADD keeps one in a key: sparse, turning
 * dense when a write needs it. */
struct hll_buf {
    unsigned char *s;
    size_t len, cap;
};

static void buf_add(struct hll_buf *b, const void *ele, size_t len, size_t sparse_max)
{
    unsigned index, count;
    hll_hash(ele, len, &index, &count);
    if (hll_encoding_of(b->s) == HLL_SPARSE) {
        if (b->cap < b->len + HLL_SPARSE_ROOM) {
            b->cap = (b->len + HLL_SPARSE_ROOM) * 2;
            b->s = xrealloc(b->s, b->cap);
        }
        if (hll_sparse_set(b->s, &b->len, index, count, sparse_max) != HLL_SET_PROMOTE)
            return;
        unsigned char *dense = xmalloc(HLL_DENSE_SIZE);
        /* The buffer only ever held what this test wrote: it converts. */
        hll_sparse_to_dense(b->s, b->len, dense);
        xfree(b->s);
        *b = (struct hll_buf){dense, HLL_DENSE_SIZE, HLL_DENSE_SIZE};
    }
    if (hll_dense_set(b->s, index, count))
        hll_invalidate(b->s);
}

static int selftest_registers(unsigned char *dense, uint64_t *rng, char *why, size_t whylen)
{
    uint8_t *expect = xmalloc(HLL_REGISTERS);
    unsigned char *regs = dense + HLL_HDR_SIZE;
    int rc = 0;
    for (int cycle = 0; rc == 0 && cycle < SELFTEST_CYCLES; cycle++) {
        for (unsigned i = 0; i < HLL_REGISTERS; i++) {
            expect[i] = (uint8_t)(splitmix64(rng) & HLL_REGISTER_MAX);
            reg_put(regs, i, expect[i]);
        }
        for (unsigned i = 0; i < HLL_REGISTERS; i++) {
            unsigned v = reg_get(regs, i);
            if (v != expect[i]) {
                snprintf(why, whylen, "TESTFAILED Register %u should be %d but is %u", i,
                         (int)expect[i], v);
                rc = -1;
                break;
            }
        }
    }
    xfree(expect);
    return rc;
}

int hll_selftest(uint64_t seed, size_t sparse_max, char *why, size_t whylen)
{
    unsigned char *dense = xmalloc(HLL_DENSE_SIZE);
    struct hll_buf sparse = {xmalloc(HLL_SPARSE_EMPTY_SIZE), HLL_SPARSE_EMPTY_SIZE,
                             HLL_SPARSE_EMPTY_SIZE};
    uint64_t rng = seed;
    int rc = -1;

    memset(dense, 0, HLL_DENSE_SIZE);
    memcpy(dense, hll_magic, sizeof(hll_magic));
    dense[4] = HLL_DENSE;
    hll_init_sparse(sparse.s);
    if (selftest_registers(dense, &rng, why, whylen) < 0)
        goto out;

    /* Distinct elements into both; at 1, 10, 100, ... the two agree and
     * the estimate is within six standard errors (1 at 10, where a
     * collision is likely enough to fail a fair run otherwise). */
    memset(dense + HLL_HDR_SIZE, 0, HLL_DENSE_SIZE - HLL_HDR_SIZE);
    double relerr = 1.04 / sqrt(HLL_REGISTERS);
    uint64_t checkpoint = 1, base = splitmix64(&rng);
    for (uint64_t j = 1; j <= SELFTEST_MAX_CARD; j++) {
        uint64_t ele = j ^ base;
        unsigned index, count;
        hll_hash(&ele, sizeof(ele), &index, &count);
        hll_dense_set(dense, index, count);
        buf_add(&sparse, &ele, sizeof(ele), sparse_max);
        if (j != checkpoint)
            continue;
        if (j < sparse_max / 2 && hll_encoding_of(sparse.s) != HLL_SPARSE) {
            snprintf(why, whylen, "TESTFAILED sparse encoding not used");
            goto out;
        }
        uint64_t a, b;
        if (hll_count(dense, HLL_DENSE_SIZE, &a) < 0 || hll_count(sparse.s, sparse.len, &b) < 0 ||
            a != b) {
            snprintf(why, whylen, "TESTFAILED dense/sparse disagree");
            goto out;
        }
        uint64_t abserr = a > checkpoint ? a - checkpoint : checkpoint - a;
        uint64_t maxerr = j == 10 ? 1 : (uint64_t)ceil(relerr * 6 * (double)checkpoint);
        if (abserr > maxerr) {
            snprintf(why, whylen, "TESTFAILED Too big error. card:%llu abserr:%llu",
                     (unsigned long long)checkpoint, (unsigned long long)abserr);
            goto out;
        }
        checkpoint *= 10;
    }
    rc = 0;
out:
    xfree(dense);
    xfree(sparse.s);
    return rc;
}
