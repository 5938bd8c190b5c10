/*
 * clock.c - the wall clock (clock.h).
 */
#include "clock.h"

#include <stddef.h>
#include <sys/time.h>

int64_t ustime(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

int64_t mstime(void)
{
    return ustime() / 1000;
}
