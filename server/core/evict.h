/*
 * evict.h - maxmemory eviction (Redis 7's evict.c): before a command runs
 * over maxmemory, keys chosen by maxmemory-policy are deleted until used
 * memory is under the cap again, within a time slice.
 *
 * Owns: the eviction pool (the best candidates seen so far, kept between
 * runs as in Redis), the access clock that lookups stamp keys with
 * (keyaccess.h), and the timer that goes on evicting after a slice ran out.
 * Knows no command module: an evicted key goes the way of an expired one,
 * as DEL to the log and the replicas, with the "evicted" keyspace event.
 */
#ifndef RBKV_EVICT_H
#define RBKV_EVICT_H

#include <stddef.h>
#include <stdint.h>

#include "keyaccess.h"

enum evict_result {
    EVICT_OK,      /* under maxmemory (or nothing to do here) */
    EVICT_RUNNING, /* still over, but the slice ran out: the timer goes on */
    EVICT_FAIL,    /* still over and nothing left that the policy may evict */
};

/* At start, before any key exists: the access clock and the timer. */
void evict_init(void);
/* At shutdown: closes the timer, so the loop closes with nothing open. */
void evict_close(void);

/* The clock accesses are stamped with; current as of the running command. */
const struct ka_clock *evict_clock(void);

/* Before each command, with the time the dispatcher read: keeps the access
 * clock current. (CLIENT NO-TOUCH is the lookups' business: args.h.) */
void evict_begin_command(int64_t now_us);

/* Redis's performEvictions: frees keys while used memory is over maxmemory,
 * for at most the slice maxmemory-eviction-tenacity allows. A replica and a
 * server without maxmemory evict nothing and answer EVICT_OK; the caller
 * refuses a command that may grow memory on EVICT_FAIL only. */
enum evict_result evict_perform(void);

/* Redis's freeMemoryGetNotCountedMemory: bytes of used_memory that
 * maxmemory leaves out (the replicas' output buffers, the append-only log's
 * buffer); INFO's mem_not_counted_for_evict. Walks the clients. */
size_t evict_not_counted_memory(void);
/* The replication stream a primary holds for its replicas outside their
 * clients' output (replication/'s, above core: the stream held for a
 * replica while its snapshot is made and sent), registered at start; its
 * bytes are left out too. Unset: none. */
void evict_on_replica_held(size_t (*fn)(void));

/* True when maxmemory-policy reads the access bits as LFU state. */
int evict_policy_is_lfu(void);

#endif
