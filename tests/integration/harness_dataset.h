/*
 * harness_dataset.h - comparing two servers' whole datasets, rbkv's with
 * redis-server's, when data crossed between them (an RDB file, a full sync,
 * a replication stream): test_rdb_file.c and test_repl_redis.c.
 *
 * Owns nothing: the connections are the caller's. A difference is recorded
 * at the caller's file:line and the test goes on.
 */
#ifndef RBKV_HARNESS_DATASET_H
#define RBKV_HARNESS_DATASET_H

#include "harness.h"

/* Expects c and r to hold the same keys in databases 0 to dbs-1, each with
 * the same type and deadline (PEXPIRETIME, to the millisecond), and the
 * same values (DEBUG DIGEST: both need the DEBUG command), and something to
 * hold. The deadlines are dropped on both (PERSIST) before the digests,
 * since rbkv's DEBUG DIGEST mixes a deadline's time in where Redis's mixes
 * only its presence: neither may be a read-only replica. Leaves both in
 * database 0. */
void h_same_dataset(const char *file, int line, redisContext *c, redisContext *r, int dbs);
#define H_SAME_DATASET(c, r, dbs) h_same_dataset(__FILE__, __LINE__, (c), (r), (dbs))

/* Expects XINFO STREAM key FULL to be the same to the byte on c and r, but
 * for what differs between two correct servers: radix-tree-nodes (the
 * radix tree's inner nodes, which rbkv estimates); radix-tree-keys by one
 * (Redis may keep a node whose entries are all deleted, which rbkv does
 * not: an exact MINID trim that deletes every live entry of a node whose
 * last entry XDEL removed leaves one at the front, and an empty stream may
 * keep its last; docs/commands.md, RESTORE); and with H_FULL_NO_SEEN, each
 * consumer's seen-time, which a replica sets when it applies a command and
 * its primary when it ran it. Returns 1 when they matched; on a difference
 * prints both. */
#define H_FULL_NO_SEEN 1
int h_same_stream_full(const char *file, int line, redisContext *c, redisContext *r,
                       const char *key, int flags);
#define H_SAME_STREAM_FULL(c, r, key, flags)                                                       \
    h_same_stream_full(__FILE__, __LINE__, (c), (r), (key), (flags))

#endif
