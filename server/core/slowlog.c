/*
 * slowlog.c - the slow log (slowlog.h).
 *
 * A ring of entry pointers sized to slowlog-max-len when an entry is added
 * (CONFIG SET may change it at any time): newest first at head. Entries
 * are built only for slow commands, so the copies cost nothing on the fast
 * path, which is one comparison in command_call.
 */
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "command.h"
#include "mem.h"
#include "server.h"
#include "slowlog.h"

static struct slowlog_entry **ring; /* ring[(head + i) % cap] is the i-th newest */
static size_t ring_cap, head, count;
static long long next_id;

void slowlog_entry_free(struct slowlog_entry *e)
{
    if (!e)
        return;
    for (int i = 0; i < e->argc; i++)
        xfree((char *)e->argv[i].ptr);
    xfree(e->argv);
    xfree(e->peer);
    xfree(e->name);
    xfree(e);
}

static struct resp_slice copy_text(const char *text)
{
    char *p = xstrdup(text);
    return (struct resp_slice){p, strlen(p)};
}

static struct resp_slice copy_arg(const struct resp_slice *a)
{
    if (a->len <= SLOWLOG_MAX_STRING) {
        char *p = xmalloc(a->len + 1);
        memcpy(p, a->ptr, a->len);
        p[a->len] = '\0';
        return (struct resp_slice){p, a->len};
    }
    char more[64];
    int n = snprintf(more, sizeof(more), "... (%zu more bytes)", a->len - SLOWLOG_MAX_STRING);
    char *p = xmalloc(SLOWLOG_MAX_STRING + (size_t)n + 1);
    memcpy(p, a->ptr, SLOWLOG_MAX_STRING);
    memcpy(p + SLOWLOG_MAX_STRING, more, (size_t)n + 1);
    return (struct resp_slice){p, SLOWLOG_MAX_STRING + (size_t)n};
}

static struct slowlog_entry *entry_new(const struct client *c, long long duration_us)
{
    struct slowlog_entry *e = xcalloc(1, sizeof(*e));
    int argc = c->argc > SLOWLOG_MAX_ARGC ? SLOWLOG_MAX_ARGC : c->argc;

    e->time = server.cmd_start_us / 1000000;
    e->duration_us = duration_us;
    e->argc = argc;
    e->argv = xcalloc((size_t)argc, sizeof(*e->argv));
    for (int i = 0; i < argc; i++) {
        if (argc != c->argc && i == argc - 1) {
            char more[64];
            snprintf(more, sizeof(more), "... (%d more arguments)", c->argc - argc + 1);
            e->argv[i] = copy_text(more);
        } else {
            e->argv[i] = copy_arg(&c->argv[i]);
        }
    }
    e->peer = xstrdup(c->addr);
    e->name = xstrdup(c->name ? c->name : "");
    return e;
}

/* Drops the oldest entries past max, and regrows the ring to max. */
static void fit(size_t max)
{
    while (count > max)
        slowlog_entry_free(ring[(head + --count) % ring_cap]);
    if (max == ring_cap)
        return;
    struct slowlog_entry **fresh = max ? xcalloc(max, sizeof(*fresh)) : NULL;
    for (size_t i = 0; i < count; i++)
        fresh[i] = ring[(head + i) % ring_cap];
    xfree(ring);
    ring = fresh;
    ring_cap = max;
    head = 0;
}

/* Puts e (owned) at the head, then trims the log to slowlog-max-len. */
static void push(struct slowlog_entry *e)
{
    size_t max = (size_t)server.cfg.slowlog_max_len;
    fit(max);
    if (max == 0) {
        slowlog_entry_free(e);
        return;
    }
    if (count == max)
        slowlog_entry_free(ring[(head + --count) % ring_cap]);
    e->id = next_id++;
    head = (head + ring_cap - 1) % ring_cap;
    ring[head] = e;
    count++;
}

void slowlog_push_if_needed(const struct client *c, long long duration_us)
{
    long long threshold = server.cfg.slowlog_log_slower_than;
    if (threshold < 0 || duration_us < threshold)
        return;
    push(entry_new(c, duration_us));
}

struct slowlog_entry *slowlog_entry_of(const struct client *c)
{
    return server.cfg.slowlog_log_slower_than < 0 ? NULL : entry_new(c, 0);
}

void slowlog_push_entry(struct slowlog_entry *e, long long duration_us)
{
    long long threshold = server.cfg.slowlog_log_slower_than;
    if (!e || threshold < 0 || duration_us < threshold) {
        slowlog_entry_free(e);
        return;
    }
    e->time = server.cmd_start_us / 1000000;
    e->duration_us = duration_us;
    push(e);
}

size_t slowlog_len(void)
{
    /* As in Redis, a CONFIG SET that shrank the log trims it at the next push. */
    return count;
}

const struct slowlog_entry *slowlog_at(size_t i)
{
    return i < count ? ring[(head + i) % ring_cap] : NULL;
}

void slowlog_reset(void)
{
    while (count)
        slowlog_entry_free(ring[(head + --count) % ring_cap]);
}
