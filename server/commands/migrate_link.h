/*
 * migrate_link.h - MIGRATE's cached connections to its targets
 * (migrate_link.c), as Redis 7.0's migrate_cached_sockets: one per
 * "host:port" as the request spelled it, at most MIGRATE_LINKS_MAX (a new
 * one then closes one at random), each closed once idle for more than
 * MIGRATE_LINK_IDLE_S seconds, or on an I/O error.
 */
#ifndef RBKV_MIGRATE_LINK_H
#define RBKV_MIGRATE_LINK_H

#include <stddef.h>

#include "syncio.h"

#define MIGRATE_LINKS_MAX 64
#define MIGRATE_LINK_IDLE_S 10

struct migrate_link {
    char *name; /* "host:port" */
    struct sync_conn conn;
    long long last_dbid; /* the database the target has selected; -1: unknown */
    long long last_use_ms;
};

/* The link to host[0..hlen):port[0..plen), reused or connected within
 * timeout_ms (the port read as C's atoi, as Redis); NULL when the
 * connection failed. Owned by the cache: valid until the next call here. */
struct migrate_link *migrate_link_get(const char *host, size_t hlen, const char *port,
                                      size_t plen, long long timeout_ms);
/* Closes and forgets l (after an I/O error: its state is unknown). */
void migrate_link_close(struct migrate_link *l);
/* How many links are open (INFO stats' migrate_cached_sockets). */
size_t migrate_link_count(void);
/* At start, from commands_register: the cron that closes idle links. */
void migrate_link_init(void);

#endif
