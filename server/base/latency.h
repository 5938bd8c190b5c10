/*
 * latency.h - the latency monitor (LATENCY LATEST, HISTORY, RESET, GRAPH,
 * DOCTOR): per named event, the last LATENCY_HISTORY samples of
 * (unix time, milliseconds) and the all-time maximum, as Redis's latency.c.
 *
 * Code that does something that may be slow times it and calls
 * latency_add_sample_if_needed with latency-monitor-threshold; the caller
 * passes the threshold so this module reads no server state, and so that
 * persist/ can report its forks and writes. Events are named as Redis names
 * them ("command", "fast-command", "expire-cycle", "fork", "aof-write", ...).
 *
 * Owns: a fixed table of LATENCY_MAX_EVENTS events, the names copied. An
 * event past that many distinct names is dropped (the names are the
 * server's own, a few dozen at most in Redis).
 */
#ifndef RBKV_LATENCY_H
#define RBKV_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#define LATENCY_HISTORY 160 /* samples kept per event, as Redis's LATENCY_TS_LEN */
#define LATENCY_MAX_EVENTS 32
#define LATENCY_NAME_MAX 48

struct latency_sample {
    int64_t time;   /* unix seconds; 0 = unused slot */
    uint32_t ms;
};

struct latency_event {
    char name[LATENCY_NAME_MAX];
    struct latency_sample samples[LATENCY_HISTORY]; /* a ring: idx is the next to write */
    unsigned idx;
    uint32_t max;
};

/* Records ms for event when threshold_ms is not 0 and ms >= threshold_ms.
 * Two samples in the same second keep the larger, as Redis does. */
void latency_add_sample_if_needed(long long threshold_ms, const char *event, int64_t ms);
/* The same for something that began at start_us (ustime()). */
void latency_add_since(long long threshold_ms, const char *event, int64_t start_us);
/* The events with samples, in the order first seen; NULL past the end. */
const struct latency_event *latency_event_at(size_t i);
const struct latency_event *latency_find(const char *name, size_t len);
/* The newest sample of e (e has at least one). */
const struct latency_sample *latency_last(const struct latency_event *e);
/* Forgets the named event (1) or nothing (0). */
int latency_reset(const char *name, size_t len);
/* Forgets every event; returns how many there were. */
size_t latency_reset_all(void);

#endif
