/*
 * rng.h - the random numbers of the tests: splitmix64. Every seed, 0
 * included, gives a full-period sequence, and its state is one word the
 * caller owns, so each part of a test can draw from a stream of its own.
 *
 * Header-only and apart from check.h, so that an integration test (whose
 * harness has a CHECK of its own) draws the same sequences as a unit test.
 */
#ifndef RBKV_TEST_RNG_H
#define RBKV_TEST_RNG_H

#include <stddef.h>
#include <stdint.h>

/* The next number of the stream whose state is *state. */
static inline uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform enough in [0, n) for test sizes (n far below 2^32); 0 when n is 0. */
static inline size_t rng_below(uint64_t *state, size_t n)
{
    return n ? (size_t)(rng_next(state) % n) : 0;
}

/* Uniform enough in [lo, hi] for test sizes. */
static inline long long rng_range(uint64_t *state, long long lo, long long hi)
{
    return lo + (long long)(rng_next(state) % (uint64_t)(hi - lo + 1));
}

#endif
