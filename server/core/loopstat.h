/*
 * loopstat.h - what each turn of the event loop cost the loop thread: the
 * stall measurement behind INFO's eventloop_* fields. Not a latency monitor
 * event: a turn holds every command and cron step the monitor already
 * names, and LATENCY LATEST stays as Redis's.
 *
 * A turn is the work between two waits for I/O: the timers (the cron, the
 * expiry slices), the read callbacks with the commands they run, the write
 * and check callbacks, the lazy-free thread's hand-backs. Every client waits
 * for the whole turn it arrives in, so the longest turn is the longest stall
 * any request can see from the server itself. Two clocks: the wall clock
 * (what a client waits, including the time the thread was descheduled by
 * other processes) and the thread's CPU time (what the loop itself spent,
 * which other processes on a loaded machine barely disturb).
 *
 * Owns a prepare handle (unreferenced: it never keeps the loop alive) and
 * two histograms. Reads server.loop.
 */
#ifndef RBKV_LOOPSTAT_H
#define RBKV_LOOPSTAT_H

#include <stdint.h>

struct text;

/* The loop's bucket bounds, in microseconds: a turn of d us counts in the
 * first bucket whose bound is >= d; past the last bound, in "inf". */
#define LOOPSTAT_BUCKETS 12

struct loopstat {
    uint64_t turns;                     /* turns measured */
    uint64_t busy_us_sum, cpu_us_sum;   /* wall and CPU time spent in them */
    uint64_t busy_us_max, cpu_us_max;   /* the longest turn, by each clock */
    uint64_t busy_hist[LOOPSTAT_BUCKETS + 1], cpu_hist[LOOPSTAT_BUCKETS + 1];
};

/* Starts measuring server.loop's turns (server_serve). */
void loopstat_start(void);
/* Closes the handle (shutdown). */
void loopstat_close(void);
/* The figures so far; the pointer stays valid. */
const struct loopstat *loopstat_get(void);
/* The upper bound in us of bucket i (i < LOOPSTAT_BUCKETS). */
uint64_t loopstat_bound(int i);
/* CONFIG RESETSTAT. */
void loopstat_reset(void);

#endif
