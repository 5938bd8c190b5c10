/*
 * notify.h - keyspace notifications (prefix notify_), as Redis 7.0's
 * notify.c: a change to a key is published to the pub/sub channels
 * __keyspace@<db>__:<key> (message: the event) and __keyevent@<db>__:<event>
 * (message: the key), when the notify-keyspace-events setting asks for the
 * event's class.
 *
 * The NOTIFY_ bits are Redis's, so the setting's letters map one to one;
 * classes of types rbkv does not have (l s h t d) are kept and printed back,
 * never fired. Commands call notify_keyspace_event after each change, once per
 * key, with Redis's event names; the keyspace's expiry hook (propagate.c)
 * fires "expired".
 *
 * Owns nothing: the channel name is built on the stack (or a temporary
 * buffer for a long key) and delivered by pubsub_publish, which copies it.
 */
#ifndef RBKV_NOTIFY_H
#define RBKV_NOTIFY_H

#include <stddef.h>

#define NOTIFY_KEYSPACE (1 << 0) /* K */
#define NOTIFY_KEYEVENT (1 << 1) /* E */
#define NOTIFY_GENERIC (1 << 2)  /* g */
#define NOTIFY_STRING (1 << 3)   /* $ */
#define NOTIFY_LIST (1 << 4)     /* l */
#define NOTIFY_SET (1 << 5)      /* s */
#define NOTIFY_HASH (1 << 6)     /* h */
#define NOTIFY_ZSET (1 << 7)     /* z */
#define NOTIFY_EXPIRED (1 << 8)  /* x */
#define NOTIFY_EVICTED (1 << 9)  /* e */
#define NOTIFY_STREAM (1 << 10)  /* t */
#define NOTIFY_KEY_MISS (1 << 11) /* m, not part of A */
#define NOTIFY_MODULE (1 << 13)  /* d */
#define NOTIFY_NEW (1 << 14)     /* n, not part of A */
/* A: every class but m and n. */
#define NOTIFY_ALL                                                                                \
    (NOTIFY_GENERIC | NOTIFY_STRING | NOTIFY_LIST | NOTIFY_SET | NOTIFY_HASH | NOTIFY_ZSET |      \
     NOTIFY_EXPIRED | NOTIFY_EVICTED | NOTIFY_STREAM | NOTIFY_MODULE)

/* The bits of a notify-keyspace-events value ("" is 0), or -1 when a
 * character is not one of Redis's letters. */
int notify_flags_parse(const char *s);
/* The letters of flags in Redis's order (A or the classes, then K, E, m),
 * into buf (at least NOTIFY_FLAGS_CHARS bytes, NUL-terminated). */
#define NOTIFY_FLAGS_CHARS 20
void notify_flags_format(int flags, char *buf);

/* Publishes event for key[0..klen) of database dbid when the setting has
 * type's class and K and/or E. One test of the setting when it is off.
 * event is NUL-terminated; both pointers are only read. */
void notify_keyspace_event(int type, const char *event, const char *key, size_t klen, int dbid);
/* Whether events of type's class would be published now: for a command
 * that must look a key up only to know which events to fire. */
int notify_enabled(int type);

#endif
