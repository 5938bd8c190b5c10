/*
 * ordered_diff.h - a randomized differential test of the ordered keyspace
 * commands (KRANGE, KPREFIX, KCOUNT, KRANK, KREVRANK, KFIRST, KLAST, KNEXT,
 * KPREV, KDELRANGE, KSPLIT, SCAN, KEYS) against a reference model, shared by
 * the in-process test (tests/unit/test_ordered.c, which calls the handlers
 * through the dispatcher) and the end-to-end one
 * (tests/integration/test_ordered.c, through hiredis to a real server).
 *
 * Owns: the model, a sorted array of (key, value, type) that is trivially
 * right, and the random choices. Knows nothing of how a command reaches the
 * server: a target supplies that. Each operation sends one command and
 * checks its whole reply against the model's; inserts, deletes, deadlines
 * that pass and far-off deadlines are interleaved with the queries, over a
 * small universe of binary keys (bytes NUL, ':', 'a', 'b', 0xFF, length 0 to
 * 4) so that keys are prefixes of each other and bounds fall on, between and
 * beyond them.
 */
#ifndef RBKV_ORDERED_DIFF_H
#define RBKV_ORDERED_DIFF_H

#include <hiredis/hiredis.h>
#include <stddef.h>
#include <stdint.h>

struct od_target {
    /* Runs one command; returns its reply (the caller frees it with
     * freeReplyObject), or NULL when the target failed. */
    redisReply *(*call)(void *ctx, int argc, const char *const *argv, const size_t *lens);
    /* Makes the deadline of key (which exists) pass. The key may stay
     * stored: commands must not see it from now on. */
    void (*expire)(void *ctx, const char *key, size_t len);
    /* Stores an absent key holding a value of a type other than string, or
     * NULL when the target cannot. */
    void (*add_other)(void *ctx, const char *key, size_t len);
    void *ctx;
};

/* Runs ops random operations from seed. Prints each mismatch with the
 * command, the expected and the actual reply, and stops at the first;
 * returns 0 when every reply matched, else -1. */
int od_run(const struct od_target *t, uint64_t seed, long ops);

#endif
