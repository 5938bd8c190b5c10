/*
 * fastrand.h - a fast pseudo-random source for choices made per key or per
 * access (eviction sampling, the LFU counter's increments), where a call
 * into arc4random, a system call per draw with this libc, costs more than
 * the work it decides. Not for anything an attacker must not predict.
 *
 * Owns: one xoshiro256** state of the process, seeded from arc4random at
 * the first draw. Loop thread only.
 */
#ifndef RBKV_FASTRAND_H
#define RBKV_FASTRAND_H

#include <stdint.h>

/* 64 uniformly distributed bits. */
uint64_t fastrand(void);

__extension__ typedef unsigned __int128 fastrand_u128;

/* A uniform draw in [0, n), n > 0 (Lemire's multiply, no division). */
static inline uint64_t fastrand_below(uint64_t n)
{
    return (uint64_t)(((fastrand_u128)fastrand() * n) >> 64);
}

#endif
