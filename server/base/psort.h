/*
 * psort.h - a partial sort: the k smallest of an array, in order, at its
 * front (Redis's pqsort for GEOSEARCH ... COUNT and SORT ... LIMIT), in
 * O(n + k log k) on average instead of a whole sort's O(n log n).
 *
 * Owns nothing; sorts in place. Like qsort, not stable.
 */
#ifndef RBKV_PSORT_H
#define RBKV_PSORT_H

#include <stddef.h>

/* Puts the k smallest of the n elements of size bytes at base (by cmp, as
 * qsort's) first, sorted; the rest follow in no order. k >= n sorts all. */
void psort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *), size_t k);

#endif
