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

#endif
