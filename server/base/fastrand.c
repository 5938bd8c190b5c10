/*
 * fastrand.c - xoshiro256** (Blackman and Vigna), seeded once from
 * arc4random (fastrand.h).
 */
#include "fastrand.h"

#include <stdlib.h>

static uint64_t state[4];
static int seeded;

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t fastrand(void)
{
    if (__builtin_expect(!seeded, 0)) {
        arc4random_buf(state, sizeof(state));
        state[0] |= 1; /* never the all-zero state, which stays zero */
        seeded = 1;
    }
    uint64_t result = rotl(state[1] * 5, 7) * 9, t = state[1] << 17;
    state[2] ^= state[0];
    state[3] ^= state[1];
    state[1] ^= state[2];
    state[0] ^= state[3];
    state[2] ^= t;
    state[3] = rotl(state[3], 45);
    return result;
}
