/*
 * sample.c - Floyd's sampling of distinct ranks (see sample.h): for each j
 * of the last count ranks, draw t in [0, j]; take t unless taken already,
 * else j. "Taken already?" is an open-addressing table of rank + 1 (0 is
 * empty), sized a power of two at least twice count.
 */
#include "sample.h"

#include <stdint.h>
#include <stdlib.h>

#include "mem.h"

/* Adds rank to the table; returns 0 when it was there already. */
static int taken_add(size_t *slots, size_t mask, size_t rank)
{
    size_t i = (rank * UINT64_C(0x9e3779b97f4a7c15)) >> 7 & mask;
    for (; slots[i]; i = (i + 1) & mask)
        if (slots[i] == rank + 1)
            return 0;
    slots[i] = rank + 1;
    return 1;
}

void sample_distinct(size_t size, size_t count, size_t *out)
{
    size_t cap = 2;
    while (cap < 2 * count)
        cap *= 2;
    size_t *slots = xcalloc(cap, sizeof(*slots));

    for (size_t j = size - count, k = 0; j < size; j++) {
        size_t t = arc4random_uniform((uint32_t)j + 1);
        if (!taken_add(slots, cap - 1, t)) {
            taken_add(slots, cap - 1, j);
            t = j;
        }
        out[k++] = t;
    }
    xfree(slots);
}
