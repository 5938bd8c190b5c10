/*
 * test_psort.c - server/base/psort.c against qsort: for random arrays of
 * every shape that breaks a quickselect (sorted, reversed, all equal, few
 * distinct values, random) and every k, the first k are the k smallest in
 * order and the whole array is still the same multiset. Elements larger
 * than the partition's inline pivot take its other path.
 * SEED=<n> replays a run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "psort.h"
#include "rng.h"

/* An element larger than psort's inline pivot, ordered by key alone. */
struct wide {
    int key;
    char pad[96];
};

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_wide(const void *a, const void *b)
{
    return cmp_int(&((const struct wide *)a)->key, &((const struct wide *)b)->key);
}

/* n values of one shape into v. */
static void fill(int *v, size_t n, int shape, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++) {
        switch (shape) {
        case 0:
            v[i] = (int)i;
            break;
        case 1:
            v[i] = (int)(n - i);
            break;
        case 2:
            v[i] = 7;
            break;
        case 3:
            v[i] = (int)rng_below(rng, 3);
            break;
        default:
            v[i] = (int)rng_below(rng, 1000000);
            break;
        }
    }
}

static void test_ints(uint64_t *rng)
{
    enum { MAX = 600 };
    int v[MAX], sorted[MAX], rest[MAX];
    for (int round = 0; round < 400; round++) {
        size_t n = rng_below(rng, MAX) + 1, k = rng_below(rng, n + 2);
        fill(v, n, round % 5, rng);
        memcpy(sorted, v, n * sizeof(int));
        qsort(sorted, n, sizeof(int), cmp_int);
        psort(v, n, sizeof(int), cmp_int, k);
        size_t first = k < n ? k : n;
        CHECK_MSG(memcmp(v, sorted, first * sizeof(int)) == 0, "round %d n %zu k %zu", round,
                  n, k);
        memcpy(rest, v, n * sizeof(int));
        qsort(rest, n, sizeof(int), cmp_int);
        CHECK_MSG(memcmp(rest, sorted, n * sizeof(int)) == 0, "round %d: elements changed", round);
    }
}

static void test_wide(uint64_t *rng)
{
    enum { N = 300 };
    static struct wide v[N];
    int keys[N];
    for (int round = 0; round < 50; round++) {
        size_t k = rng_below(rng, N);
        fill(keys, N, round % 5, rng);
        for (size_t i = 0; i < N; i++) {
            v[i].key = keys[i];
            memset(v[i].pad, (int)(i & 0x7f), sizeof(v[i].pad));
        }
        qsort(keys, N, sizeof(int), cmp_int);
        psort(v, N, sizeof(v[0]), cmp_wide, k);
        for (size_t i = 0; i < k; i++)
            CHECK_MSG(v[i].key == keys[i], "round %d k %zu at %zu", round, k, i);
    }
}

int main(void)
{
    uint64_t rng = check_seed((uint64_t)time(NULL));
    test_ints(&rng);
    test_wide(&rng);
    printf("psort: ok\n");
    return 0;
}
