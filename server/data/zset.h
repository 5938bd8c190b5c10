/*
 * zset.h - the sorted-set value: members with double scores, in order of
 * (score, member bytes), with ranks, and found by name in O(1).
 *
 * Owns: every node of a set (one allocation per member, through mem.h, that
 * carries the tree links, the subtree size, the score, the hash chain and the
 * member bytes) and the set's bucket array. Knows nothing of RESP, clients or
 * the keyspace: the commands (cmd_zset.c) own the replies, the keyspace owns
 * the struct zset once it holds it.
 *
 * Layout, and why: the order is an order-statistics red-black tree
 * (rbtree_order.h), so rank, select and counting the members below a bound are
 * O(log n) through subtree sizes, never a walk. Lookup by name goes through a
 * chained hash table of 8-byte buckets whose chain link lives in the node,
 * which costs less per member than a second rb_node (24 bytes) and answers in
 * O(1). The table doubles when it holds as many members as buckets and halves
 * when it falls under an eighth; a resize moves the old table's chains a few
 * buckets per insert and delete (zset.c's resize_step), so no one command
 * pays O(n) for it.
 *
 * Invariants (zs_check): the tree holds every node once, in strictly
 * increasing (score, member) order, every size is its subtree's count; every
 * node is in the bucket its hash names, once (in the old table while a
 * resize drains it, when its old bucket is not drained yet); no score is
 * NaN. The buckets also chain members of pending cuts (zs_cut), which are
 * in no tree but their own and are never returned.
 *
 * Scores compare as doubles (so -0 and 0 tie, and the member decides); members
 * as bytes, a proper prefix first (lexrange.h's order).
 */
#ifndef RBKV_ZSET_H
#define RBKV_ZSET_H

#include <stddef.h>
#include <stdint.h>

#include "lexrange.h"
#include "rbtree.h"

struct zs_node {
    struct rb_node rb;     /* in zset.tree, by (score, member) */
    uint32_t size;         /* nodes in this subtree (rbtree_order.h) */
    uint32_t len;          /* member bytes */
    double score;
    struct zs_node *hnext; /* next in the same hash bucket */
    char member[];
};

struct zset {
    struct rb_root tree;
    struct zs_node **buckets; /* mask + 1 buckets; NULL when empty */
    size_t mask;
    struct zs_resize *resize; /* the old table while it drains; else NULL */
    uint64_t seed;            /* of the member hash: colliding names are per set */
    /* Runs cut off (zs_cut) whose members are still chained in this set's
     * buckets, each a set of its own linked through its cuts field; lookups
     * and scans pass over their members, zs_cut_step frees them. */
    struct zset *cuts;
};

/* A score interval as ZRANGEBYSCORE takes it: min and max, each inclusive
 * unless its ex flag is set ("(1.5"). */
struct zs_range {
    double min, max;
    int minex, maxex;
};

/* A span of positions [lo, hi) in the order; empty when lo >= hi. */
struct zs_span {
    size_t lo, hi;
};

/* An empty set, owned by the caller; free it with zs_free. */
struct zset *zs_new(void);
/* Frees every node and the set. zs_free(NULL) does nothing. O(n). */
void zs_free(struct zset *z);
/* A deep copy, owned by the caller. O(n log n). */
struct zset *zs_clone(const struct zset *z);

/* Members held. O(1). */
size_t zs_len(const struct zset *z);
/* Bytes allocated for the set: its struct, hash buckets and nodes, the
 * nodes measured on the first `samples` (in order) and scaled to the whole
 * set; all of them when samples is 0 (MEMORY USAGE's SAMPLES). */
size_t zs_memory(const struct zset *z, size_t samples);

/* The node named m[0..len), or NULL. O(1) expected. */
struct zs_node *zs_find(const struct zset *z, const char *m, size_t len);
/* Adds a member that must be absent, with a score that must not be NaN.
 * Returns its node, which the set owns. O(log n). */
struct zs_node *zs_insert(struct zset *z, const char *m, size_t len, double score);
/* Gives n a new score (not NaN), moving it in the order when it must.
 * The node does not move in memory. O(log n). */
void zs_update(struct zset *z, struct zs_node *n, double score);
/* Unlinks and frees n. O(log n). */
void zs_delete(struct zset *z, struct zs_node *n);
/* Takes the n >= 1 members at ranks lo .. lo + n - 1 out of z. The tree
 * is cut in O(log^2 n) (rbtree_augmented.h). When at most ZS_CUT_EAGER
 * names must move (min(n, members left)), the names leave z's hash table
 * at once (one by one when they are at most as many as the members left,
 * else the table is rebuilt from the members left), and the run is
 * returned as a set owned by the caller, which frees it with zs_free (on
 * any thread: it shares nothing with z; it serves only zs_free and zs_len).
 * Else the run stays in z's table, on z's list of cuts, and NULL is
 * returned: from then on z's lookups, scans and checks pass over its
 * members (telling them by their tree's root, O(log n) per member met),
 * and the caller has zs_cut_step clear and free them in slices. */
#define ZS_CUT_EAGER 4096
struct zset *zs_cut(struct zset *z, size_t lo, size_t n);
/* Frees up to budget members of z's pending cuts, each unlinked from z's
 * table first. Returns 1 while some are left, 0 when none. */
int zs_cut_step(struct zset *z, size_t budget);
/* Members of z's pending cuts (an upper bound once zs_cut_step began on
 * one); zs_free frees them too. O(cuts). */
size_t zs_cut_pending(const struct zset *z);

/* Order statistics, O(log n): n's 0-based position, the node at position k
 * (NULL when k >= zs_len). */
size_t zs_rank(const struct zs_node *n);
struct zs_node *zs_select(const struct zset *z, size_t k);
struct zs_node *zs_first(const struct zset *z);
struct zs_node *zs_last(const struct zset *z);
struct zs_node *zs_next(const struct zs_node *n);
struct zs_node *zs_prev(const struct zs_node *n);

/* Whether a score lies on the right side of each end of r. */
int zs_gte_min(double score, const struct zs_range *r);
int zs_lte_max(double score, const struct zs_range *r);

/* The first member whose score is at least r's min (as zs_gte_min), or
 * NULL: one descent, O(log n). Walking from it with zs_next while
 * zs_lte_max holds reads the members in r without counting them. */
struct zs_node *zs_score_first(const struct zset *z, const struct zs_range *r);
/* The positions of the members whose score lies in r: two descents, O(log n).
 * Empty when r is (a min above max, or equal ends with one excluded). */
struct zs_span zs_score_span(const struct zset *z, const struct zs_range *r);
/* The positions of the members in [min, max] by name (lexrange.h). As in
 * Redis, meaningful when all scores are equal: the descents compare names
 * only. O(log n). */
struct zs_span zs_lex_span(const struct zset *z, const struct lex_bound *min,
                           const struct lex_bound *max);
/* Visits the members of the bucket `cursor` names and returns the cursor of
 * the next bucket, 0 after the last (Redis's dictScan for one table: the
 * cursor counts with its bits reversed, so a member present from the first
 * call to the last is visited at least once even if the table is resized
 * between calls). fn must not change the set. */
typedef void zs_scan_cb(void *arg, const struct zs_node *n);
uint64_t zs_scan(const struct zset *z, uint64_t cursor, zs_scan_cb *fn, void *arg);

/* Checks the invariants above. Returns 0, or -1 with *why set. O(n). */
int zs_check(const struct zset *z, const char **why);

#endif
