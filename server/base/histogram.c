/*
 * histogram.c - the log-linear histogram of histogram.h.
 *
 * Bucket 0 counts the value 0. A value v >= 1 is indexed by w = v - 1:
 * w below HIST_SUB has a bucket of its own; otherwise its top bit e and the
 * HIST_SUB_BITS bits under it pick the bucket, so each power-of-two range
 * [2^e, 2^(e+1)) of w is cut into HIST_SUB equal parts. Indexing by v - 1
 * rather than v puts each power of two of v at the top of a bucket.
 */
#include "histogram.h"

static unsigned bucket_of(uint64_t value)
{
    if (value == 0)
        return 0;
    uint64_t w = (value > HIST_MAX ? HIST_MAX : value) - 1;
    if (w < HIST_SUB)
        return 1 + (unsigned)w;
    unsigned e = 63u - (unsigned)__builtin_clzll(w);
    unsigned shift = e - HIST_SUB_BITS;
    return 1 + (shift + 1) * HIST_SUB + (unsigned)((w >> shift) & (HIST_SUB - 1));
}

/* The largest value bucket b counts. */
static uint64_t bucket_top(unsigned b)
{
    if (b == 0)
        return 0;
    unsigned j = b - 1;
    if (j < HIST_SUB)
        return (uint64_t)j + 1;
    unsigned shift = j / HIST_SUB - 1;
    uint64_t low = (uint64_t)(HIST_SUB + j % HIST_SUB) << shift;
    return low + (UINT64_C(1) << shift); /* top w + 1 */
}

void histogram_add(struct histogram *h, uint64_t value)
{
    h->counts[bucket_of(value)]++;
    h->total++;
}

uint64_t histogram_percentile(const struct histogram *h, double pct)
{
    if (h->total == 0)
        return 0;
    /* The rank of the value at pct, counting from 1, as HdrHistogram's
     * hdr_value_at_percentile does. */
    double want = pct / 100.0 * (double)h->total;
    uint64_t rank = (uint64_t)want;
    if ((double)rank < want)
        rank++;
    if (rank == 0)
        rank = 1;
    uint64_t seen = 0;
    for (unsigned b = 0; b < HIST_BUCKETS; b++) {
        seen += h->counts[b];
        if (seen >= rank)
            return bucket_top(b);
    }
    return HIST_MAX;
}

uint64_t histogram_count_upto(const struct histogram *h, uint64_t limit)
{
    uint64_t n = 0;
    for (unsigned b = 0; b < HIST_BUCKETS && bucket_top(b) <= limit; b++)
        n += h->counts[b];
    return n;
}
