/*
 * psort.c - the k smallest first (psort.h): quickselect narrows the range
 * holding the k-th element until the first k are the k smallest, then
 * qsort orders those k.
 *
 * Why this way: the selection touches each element a few times on average
 * and needs no second array. The pivot is the median of three (sorted
 * input, such as a geo search's points in score order, stays linear) and
 * the partition is Hoare's, which splits runs of equal elements evenly, so
 * many equal keys (a SORT of one repeated value) stay linear too.
 */
#include "psort.h"

#include <stdlib.h>
#include <string.h>

#define PIVOT_INLINE 64 /* bytes of an element kept on the stack as the pivot */

static void swap_bytes(char *a, char *b, size_t size)
{
    while (size--) {
        char t = *a;
        *a++ = *b;
        *b++ = t;
    }
}

/* The index of the median of elements a, b and c of v. */
static size_t median3(const char *v, size_t size, int (*cmp)(const void *, const void *),
                      size_t a, size_t b, size_t c)
{
    const char *x = v + a * size, *y = v + b * size, *z = v + c * size;
    if (cmp(x, y) < 0)
        return cmp(y, z) < 0 ? b : cmp(x, z) < 0 ? c : a;
    return cmp(x, z) < 0 ? a : cmp(y, z) < 0 ? c : b;
}

/* Hoare's partition of [lo, hi] (hi > lo) around a copy of the median of
 * three in pivot: returns j, lo <= j < hi, with every element of [lo, j]
 * no greater than the pivot and every element of [j + 1, hi] no smaller. */
static size_t partition(char *v, size_t lo, size_t hi, size_t size,
                        int (*cmp)(const void *, const void *), char *pivot)
{
    memcpy(pivot, v + median3(v, size, cmp, lo, lo + (hi - lo) / 2, hi) * size, size);
    size_t i = lo, j = hi;
    for (;;) {
        while (cmp(v + i * size, pivot) < 0)
            i++;
        while (cmp(v + j * size, pivot) > 0)
            j--;
        if (i >= j)
            return j == hi ? j - 1 : j;
        swap_bytes(v + i * size, v + j * size, size);
        i++;
        j--;
    }
}

void psort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *), size_t k)
{
    if (k >= n) {
        qsort(base, n, size, cmp);
        return;
    }
    if (k == 0)
        return;
    char inline_pivot[PIVOT_INLINE];
    char *pivot = size <= sizeof(inline_pivot) ? inline_pivot : malloc(size);
    if (!pivot) {
        qsort(base, n, size, cmp); /* no room for the pivot: sort all */
        return;
    }
    /* Narrow [lo, hi] until the elements before k are the k smallest. */
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t j = partition(base, lo, hi, size, cmp, pivot);
        if (k - 1 <= j)
            hi = j;
        else
            lo = j + 1;
    }
    if (pivot != inline_pivot)
        free(pivot);
    qsort(base, k, size, cmp);
}
