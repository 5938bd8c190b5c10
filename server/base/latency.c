/*
 * latency.c - the latency monitor's events (latency.h).
 *
 * A small array searched by name: the events are few and a sample is added
 * only when something was already slow, so a linear search costs nothing
 * that matters. Reset events are removed by moving the later ones down, so
 * latency_event_at keeps the order first seen.
 */
#include <string.h>
#include <time.h>

#include "clock.h"
#include "latency.h"

static struct latency_event events[LATENCY_MAX_EVENTS];
static size_t event_count;

static struct latency_event *find(const char *name, size_t len)
{
    for (size_t i = 0; i < event_count; i++)
        if (strlen(events[i].name) == len && !memcmp(events[i].name, name, len))
            return &events[i];
    return NULL;
}

void latency_add_sample_if_needed(long long threshold_ms, const char *event, int64_t ms)
{
    if (threshold_ms <= 0 || ms < threshold_ms)
        return;
    size_t len = strlen(event);
    struct latency_event *e = find(event, len);
    if (!e) {
        if (event_count == LATENCY_MAX_EVENTS || len >= LATENCY_NAME_MAX)
            return;
        e = &events[event_count++];
        memset(e, 0, sizeof(*e));
        memcpy(e->name, event, len + 1);
    }
    uint32_t v = ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
    int64_t now = (int64_t)time(NULL);
    if (v > e->max)
        e->max = v;
    struct latency_sample *prev = &e->samples[(e->idx + LATENCY_HISTORY - 1) % LATENCY_HISTORY];
    if (prev->time == now) {
        if (v > prev->ms)
            prev->ms = v;
        return;
    }
    e->samples[e->idx].time = now;
    e->samples[e->idx].ms = v;
    e->idx = (e->idx + 1) % LATENCY_HISTORY;
}

void latency_add_since(long long threshold_ms, const char *event, int64_t start_us)
{
    if (threshold_ms > 0)
        latency_add_sample_if_needed(threshold_ms, event, (ustime() - start_us) / 1000);
}

const struct latency_event *latency_event_at(size_t i)
{
    return i < event_count ? &events[i] : NULL;
}

const struct latency_event *latency_find(const char *name, size_t len)
{
    return find(name, len);
}

const struct latency_sample *latency_last(const struct latency_event *e)
{
    return &e->samples[(e->idx + LATENCY_HISTORY - 1) % LATENCY_HISTORY];
}

int latency_reset(const char *name, size_t len)
{
    struct latency_event *e = find(name, len);
    if (!e)
        return 0;
    size_t i = (size_t)(e - events);
    memmove(&events[i], &events[i + 1], (event_count - i - 1) * sizeof(events[0]));
    event_count--;
    return 1;
}

size_t latency_reset_all(void)
{
    size_t n = event_count;
    event_count = 0;
    return n;
}
