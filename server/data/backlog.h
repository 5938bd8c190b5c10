/*
 * backlog.h - the replication backlog (prefix backlog_): the last `size`
 * bytes of the replication stream in a ring, addressed by stream offset, so a
 * replica that lost its link can be sent what it missed (partial resync).
 *
 * Offsets count stream bytes from 1, as Redis's: after n bytes were ever
 * appended, `end` is n and the ring holds bytes [first, end], first being
 * end - histlen + 1. Knows nothing of replicas or sockets.
 */
#ifndef RBKV_BACKLOG_H
#define RBKV_BACKLOG_H

#include <stddef.h>

struct backlog {
    char *buf;
    size_t size;       /* capacity */
    size_t idx;        /* where the next byte goes */
    size_t histlen;    /* bytes held, <= size */
    long long end;     /* offset of the last byte appended (0: none yet) */
};

/* An empty ring of size bytes (at least 1) whose next byte will be end + 1. */
struct backlog *backlog_new(size_t size, long long end);
void backlog_free(struct backlog *b);
void backlog_append(struct backlog *b, const char *p, size_t n);
/* Offset of the first byte held (end + 1 when empty). */
long long backlog_first(const struct backlog *b);
/* Whether the bytes from offset `from` to the end are held (from may be
 * end + 1: nothing is missing). */
int backlog_covers(const struct backlog *b, long long from);
/* Calls emit for the bytes from offset `from` (covered) to the end, in at
 * most two pieces. */
void backlog_copy_from(const struct backlog *b, long long from,
                       void (*emit)(void *ctx, const char *p, size_t n), void *ctx);
/* A new capacity: keeps the newest bytes that fit. */
void backlog_resize(struct backlog *b, size_t size);

#endif
