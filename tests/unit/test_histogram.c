/*
 * test_histogram.c - the log-linear histogram (server/base/histogram.c):
 * exact counts up to 16, counts at or below every power of two exact,
 * percentiles within 1/16 above the true value, against a sorted array of
 * random values from a fixed seed (SEED=<n> replays).
 */
#include <stdlib.h>

#include "check.h"
#include "histogram.h"

#define VALUES 20000

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_small_exact(void)
{
    static struct histogram h;
    for (uint64_t v = 0; v <= 16; v++)
        histogram_add(&h, v);
    CHECK(h.total == 17);
    for (uint64_t v = 0; v <= 16; v++)
        CHECK(histogram_count_upto(&h, v) == v + 1);
    CHECK(histogram_percentile(&h, 0) == 0);
    CHECK(histogram_percentile(&h, 100) == 16);
    CHECK(histogram_percentile(&h, 50) == 8); /* the 9th of 17 */
}

static void test_random(void)
{
    static struct histogram h;
    static uint64_t vals[VALUES];
    uint64_t rng = check_seed(21);
    for (int i = 0; i < VALUES; i++) {
        /* Spread over many powers of two, as durations are. */
        unsigned bits = (unsigned)(rng_next(&rng) % 36);
        vals[i] = rng_next(&rng) & ((UINT64_C(1) << bits) - 1);
        histogram_add(&h, vals[i]);
    }
    histogram_add(&h, UINT64_MAX); /* clamped, still counted */
    CHECK(h.total == VALUES + 1);
    CHECK(histogram_percentile(&h, 100) == HIST_MAX);
    qsort(vals, VALUES, sizeof(vals[0]), cmp_u64);
    for (unsigned k = 0; k < 36; k++) {
        uint64_t limit = UINT64_C(1) << k, want = 0;
        while (want < VALUES && vals[want] <= limit)
            want++;
        CHECK_MSG(histogram_count_upto(&h, limit) == want, "count <= 2^%u", k);
    }
    static const double pcts[] = {1, 10, 50, 90, 99, 99.9};
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
        /* Over VALUES + 1 values, the largest being UINT64_MAX. */
        double want_rank = pcts[i] / 100.0 * (VALUES + 1);
        size_t rank = (size_t)want_rank;
        if ((double)rank < want_rank)
            rank++;
        uint64_t truth = vals[rank - 1], got = histogram_percentile(&h, pcts[i]);
        CHECK_MSG(got >= truth && got <= truth + truth / HIST_SUB + 1, "p%g: %llu for %llu",
                  pcts[i], (unsigned long long)got, (unsigned long long)truth);
    }
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    test_small_exact();
    test_random();
    printf("histogram: ok\n");
    return 0;
}
