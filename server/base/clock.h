/*
 * clock.h - the wall clock, in milliseconds and microseconds since the epoch.
 *
 * The data layer never reads it: its callers pass `now`, so a replayed log or
 * a test decides what time it is.
 */
#ifndef RBKV_CLOCK_H
#define RBKV_CLOCK_H

#include <stdint.h>

int64_t ustime(void);
int64_t mstime(void);

#endif
