/*
 * keyaccess.c - LRU clock and LFU counter arithmetic on an entry's access
 * bits (keyaccess.h), as Redis's evict.c does it.
 */
#include "keyaccess.h"

#include "fastrand.h"

#define LFU_MINUTES_MAX 0xffffu
#define LFU_COUNTER_MAX 255u

void ka_clock_set_time(struct ka_clock *clock, int64_t now_ms)
{
    uint64_t seconds = now_ms > 0 ? (uint64_t)now_ms / 1000 : 0;
    clock->lru = (uint32_t)(seconds & KA_LRU_MAX);
    clock->minutes = (uint32_t)((seconds / 60) & LFU_MINUTES_MAX);
}

uint32_t ka_initial(const struct ka_clock *clock)
{
    return clock->lfu ? clock->minutes << 8 | KA_LFU_INIT : clock->lru;
}

/* Minutes since ldt, across one wrap of the 16-bit minutes. */
static uint32_t lfu_elapsed(uint32_t ldt, const struct ka_clock *clock)
{
    return clock->minutes >= ldt ? clock->minutes - ldt : LFU_MINUTES_MAX - ldt + clock->minutes;
}

unsigned ka_freq(const struct ks_entry *e, const struct ka_clock *clock)
{
    uint32_t ldt = e->access >> 8, counter = e->access & 0xffu;
    uint32_t periods =
        clock->decay_time > 0 ? lfu_elapsed(ldt, clock) / (uint32_t)clock->decay_time : 0;
    return periods > counter ? 0 : counter - periods;
}

/* Adds one with a probability that falls as the counter grows, so 255
 * stands for about a million accesses at lfu-log-factor 10. */
static unsigned lfu_log_incr(unsigned counter, long long log_factor)
{
    if (counter == LFU_COUNTER_MAX)
        return counter;
    double r = (double)(fastrand() >> 11) * 0x1p-53;
    double base = counter > KA_LFU_INIT ? (double)(counter - KA_LFU_INIT) : 0.0;
    return r < 1.0 / (base * (double)log_factor + 1.0) ? counter + 1 : counter;
}

void ka_touch(struct ks_entry *e, const struct ka_clock *clock)
{
    if (!clock->touch)
        return;
    if (!clock->lfu) {
        /* Stored only when it changes (once a second at most for a hot
         * key), so reads of an entry do not keep dirtying its cache line. */
        if (e->access != clock->lru)
            e->access = clock->lru;
        return;
    }
    unsigned counter = lfu_log_incr(ka_freq(e, clock), clock->log_factor);
    e->access = clock->minutes << 8 | counter;
}

uint64_t ka_idle_ms(const struct ks_entry *e, const struct ka_clock *clock)
{
    uint64_t then = e->access;
    uint64_t ticks = clock->lru >= then ? clock->lru - then : clock->lru + (KA_LRU_MAX - then);
    return ticks * 1000;
}

void ka_restore(struct ks_entry *e, const struct ka_clock *clock, long long freq,
                long long idle)
{
    if (clock->lfu) {
        if (freq >= 0)
            e->access = (clock->minutes << 8 | (uint32_t)freq) & KA_LRU_MAX;
        return;
    }
    if (idle < 0)
        return;
    /* Redis wraps a time before the clock's start once, by LRU_CLOCK_MAX. */
    long long when = (long long)clock->lru - idle;
    if (when < 0)
        when += KA_LRU_MAX;
    e->access = (uint32_t)((unsigned long long)when & KA_LRU_MAX);
}
