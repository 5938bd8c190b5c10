/*
 * notify.c - keyspace notifications (notify.h).
 */
#include "notify.h"

#include <stdio.h>
#include <string.h>

#include "mem.h"
#include "pubsub.h"
#include "server.h"

/* "__keyspace@" + a db number + "__:" fit in this; a key or event that
 * does not fit with them takes a heap buffer. */
#define CHANNEL_STACK 256

/* Redis's letters, in the order CONFIG GET prints them. */
static const struct {
    char letter;
    int flag;
} classes[] = {
    {'g', NOTIFY_GENERIC}, {'$', NOTIFY_STRING},  {'l', NOTIFY_LIST},    {'s', NOTIFY_SET},
    {'h', NOTIFY_HASH},    {'z', NOTIFY_ZSET},    {'x', NOTIFY_EXPIRED}, {'e', NOTIFY_EVICTED},
    {'t', NOTIFY_STREAM},  {'d', NOTIFY_MODULE},  {'n', NOTIFY_NEW},
};
#define NCLASSES (sizeof(classes) / sizeof(classes[0]))

int notify_flags_parse(const char *s)
{
    int flags = 0;
    for (; *s; s++) {
        int f = 0;
        switch (*s) {
        case 'A': f = NOTIFY_ALL; break;
        case 'K': f = NOTIFY_KEYSPACE; break;
        case 'E': f = NOTIFY_KEYEVENT; break;
        case 'm': f = NOTIFY_KEY_MISS; break;
        default:
            for (size_t i = 0; i < NCLASSES; i++)
                if (classes[i].letter == *s)
                    f = classes[i].flag;
            if (!f)
                return -1;
        }
        flags |= f;
    }
    return flags;
}

void notify_flags_format(int flags, char *buf)
{
    size_t n = 0;
    if ((flags & NOTIFY_ALL) == NOTIFY_ALL) {
        buf[n++] = 'A';
        /* Redis 7.0 prints nothing for n next to A, so CONFIG GET loses it;
         * it is kept here so the text sets the same value again. */
        if (flags & NOTIFY_NEW)
            buf[n++] = 'n';
    } else {
        for (size_t i = 0; i < NCLASSES; i++)
            if (flags & classes[i].flag)
                buf[n++] = classes[i].letter;
    }
    if (flags & NOTIFY_KEYSPACE)
        buf[n++] = 'K';
    if (flags & NOTIFY_KEYEVENT)
        buf[n++] = 'E';
    if (flags & NOTIFY_KEY_MISS)
        buf[n++] = 'm';
    buf[n] = '\0';
}

/* Publishes msg on "<prefix><dbid>__:<name>". */
static void publish(const char *prefix, int dbid, const char *name, size_t nlen, const char *msg,
                    size_t mlen)
{
    char stack[CHANNEL_STACK];
    char head[32];
    int hlen = snprintf(head, sizeof(head), "%s%d__:", prefix, dbid);
    size_t len = (size_t)hlen + nlen;
    char *chan = len <= sizeof(stack) ? stack : xmalloc(len);

    memcpy(chan, head, (size_t)hlen);
    memcpy(chan + hlen, name, nlen);
    pubsub_publish(PUBSUB_CHANNEL, chan, len, msg, mlen);
    if (chan != stack)
        xfree(chan);
}

void notify_keyspace_event(int type, const char *event, const char *key, size_t klen, int dbid)
{
    int flags = server.cfg.notify_keyspace_events;
    if (!(flags & type))
        return;
    size_t elen = strlen(event);
    if (flags & NOTIFY_KEYSPACE)
        publish("__keyspace@", dbid, key, klen, event, elen);
    if (flags & NOTIFY_KEYEVENT)
        publish("__keyevent@", dbid, event, elen, key, klen);
}

int notify_enabled(int type)
{
    return (server.cfg.notify_keyspace_events & type) != 0;
}
