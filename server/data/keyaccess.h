/*
 * keyaccess.h - the 24 bits of access state in every entry's header
 * (struct ks_entry's access field), with Redis's encoding (evict.c), so that
 * an eviction policy can tell old keys from recent ones without a word more
 * per key.
 *
 * Under an LRU policy (or none) the bits are the clock in seconds, modulo
 * 2^24 (194 days), of the last access. Under an LFU policy they are the
 * minutes, modulo 2^16, of the counter's last decrement over an 8-bit
 * logarithmic counter of accesses: each access adds one with probability
 * 1 / ((counter - KA_LFU_INIT) * lfu-log-factor + 1), and each
 * lfu-decay-time minutes without access take one off. Switching policy
 * reinterprets the bits, as in Redis: the state adjusts over time.
 *
 * Owns nothing. Knows no clock of its own: the caller fills a struct
 * ka_clock once per command (one clock read) and passes it.
 */
#ifndef RBKV_KEYACCESS_H
#define RBKV_KEYACCESS_H

#include <stdint.h>

#include "keyspace.h"

#define KA_LRU_MAX 0xffffffu /* the LRU clock wraps here (Redis's LRU_CLOCK_MAX) */
#define KA_LFU_INIT 5        /* a new key's counter, so it is not evicted at once */

struct ka_clock {
    uint32_t lru;     /* seconds, modulo KA_LRU_MAX + 1 */
    uint32_t minutes; /* minutes, modulo 2^16 */
    int lfu;          /* the bits hold minutes and a counter, not the LRU clock */
    int touch;        /* 0: accesses leave the bits alone (a child is saving) */
    long long log_factor; /* lfu-log-factor */
    long long decay_time; /* lfu-decay-time, minutes per decrement; 0: never */
};

/* Sets the clock's time fields from a wall-clock time in ms. */
void ka_clock_set_time(struct ka_clock *clock, int64_t now_ms);

/* The state a new entry starts with: now, or a fresh counter at now. */
uint32_t ka_initial(const struct ka_clock *clock);

/* An access to e: records the time, or decays and increments the counter. */
void ka_touch(struct ks_entry *e, const struct ka_clock *clock);

/* Milliseconds since e was last accessed, reading the bits as the LRU clock
 * (Redis's estimateObjectIdleTime). */
uint64_t ka_idle_ms(const struct ks_entry *e, const struct ka_clock *clock);

/* e's counter after the decay due by now, reading the bits as LFU state
 * (Redis's LFUDecrAndReturn); the bits are not changed. */
unsigned ka_freq(const struct ks_entry *e, const struct ka_clock *clock);

/* RESTORE's IDLETIME and FREQ (Redis's objectSetLRUOrLFU): under an LFU
 * clock, a freq >= 0 sets the counter to it at now; otherwise an idle >= 0
 * (seconds) sets the last access that long ago. Anything else leaves e. */
void ka_restore(struct ks_entry *e, const struct ka_clock *clock, long long freq,
                long long idle);

#endif
