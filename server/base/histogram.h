/*
 * histogram.h - a log-linear histogram of durations in microseconds, for
 * INFO latencystats and LATENCY HISTOGRAM (Redis keeps an HdrHistogram per
 * command; this is the same idea in a fixed array).
 *
 * Values 0..16 are counted exactly; above, each power of two is split into
 * HIST_SUB linear buckets, so a reported value is at most 1/HIST_SUB above
 * the true one. Bucket edges sit so that every power of two is the top of a
 * bucket: the count of values <= 2^k is exact, which LATENCY HISTOGRAM's
 * cumulative buckets need. Values past HIST_MAX (about 12.7 days) count as
 * HIST_MAX. Owns nothing but itself; reads no server state.
 */
#ifndef RBKV_HISTOGRAM_H
#define RBKV_HISTOGRAM_H

#define HIST_SUB_BITS 4

#include <stdint.h>

#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_MAX_BITS 40
#define HIST_MAX (UINT64_C(1) << HIST_MAX_BITS) /* the top of the last bucket */
/* Bucket 0 holds 0; the rest are indexed by value - 1 (see histogram.c). */
#define HIST_BUCKETS (1 + (HIST_MAX_BITS - HIST_SUB_BITS + 1) * HIST_SUB)

struct histogram {
    uint64_t total;
    uint64_t counts[HIST_BUCKETS];
};

void histogram_add(struct histogram *h, uint64_t value);
/* The smallest bucket top at or below which pct percent (0..100) of the
 * values lie; 0 when empty. */
uint64_t histogram_percentile(const struct histogram *h, double pct);
/* How many values are <= limit; exact when limit is a power of two, 0 or
 * below 17. */
uint64_t histogram_count_upto(const struct histogram *h, uint64_t limit);

#endif
