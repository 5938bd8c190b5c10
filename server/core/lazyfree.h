/*
 * lazyfree.h - values and databases detached from the keyspace, freed on
 * one background thread, as Redis's lazyfree.c with its BIO_LAZY_FREE
 * thread: UNLINK, FLUSHALL/FLUSHDB ASYNC and the lazyfree-lazy-* settings
 * (docs/internals.md, "Lazy freeing").
 *
 * Owns: the thread, its queue and its counters. The thread only ever sees
 * what left the keyspace (a value, or a db's former contents from
 * ks_detach_all): nothing live, so the loop thread still owns all live
 * data. It frees through the data layer's free functions, which touch only
 * the value (no shared objects, no refcounts), and through mem.h, whose
 * count it returns to the loop thread's after each job (mem.h's
 * mem_return_thread_count). With mimalloc it gathers the small blocks in
 * batches that the loop thread frees, one batch per callback (mem.h's
 * mem_defer_frees): mimalloc would make the loop walk the blocks another
 * thread freed, all at once, later.
 */
#ifndef RBKV_LAZYFREE_H
#define RBKV_LAZYFREE_H

#include <stddef.h>

struct db;
struct ks_entry;

/* Redis's LAZYFREE_THRESHOLD: a value whose free effort (keyspace.h's
 * ks_value_effort) is above it goes to the thread; a smaller one costs less
 * to free than to queue. */
#define LAZYFREE_THRESHOLD 64

/* With mimalloc, the blocks the thread gathers and hands to the loop at
 * once (lazyfree.c). The loop frees them in slices of LAZYFREE_SLICE_US: a
 * whole batch took 1 to 5.6 ms of the loop's CPU under bench/
 * latency_vs_redis.sh's load (the blocks are cold, a cache miss each). */
#define LAZYFREE_BATCH 4096
#define LAZYFREE_SLICE_US 500
#define LAZYFREE_SLICE_STEP 64 /* blocks between two looks at the clock */

/* How much nicer than the loop thread the lazy-free thread runs (its own
 * nice value, at most 19): the loop keeps its CPU on a busy machine while
 * the thread still gets about a tenth of a nice-0 thread's share when both
 * wait for one (docs/internals.md, "Lazy freeing"). */
#define LAZYFREE_NICE 10

/* Starts the thread and becomes the keyspace's release hook. */
void lazyfree_init(void);
/* Empties db now and frees what it held on the thread (FLUSHALL ASYNC).
 * The caller has told WATCH, blocked clients and streamed replies. */
void lazyfree_flush_db(struct db *db);
/* Waits until the thread has freed everything queued (FLUSHALL SYNC, so
 * its reply finds every byte back and no free pending). */
void lazyfree_drain(void);
/* Objects queued and not yet freed (INFO's lazyfree_pending_objects: a
 * value is one, a flushed db its keys, a cut range its keys, a sorted set
 * with cuts to clear one). */
size_t lazyfree_pending(void);
/* Objects the thread freed since start or RESETSTAT (INFO's
 * lazyfreed_objects), and its reset (CONFIG RESETSTAT). */
unsigned long long lazyfree_freed(void);
void lazyfree_reset_stats(void);
/* A range was cut out of a db (ks_cut): frees its entries on the loop in
 * slices of at most LAZYFREE_CUT_SLICE_US between other clients' turns,
 * one per loop turn, until every db's cuts are freed. */
#define LAZYFREE_CUT_SLICE_US 1000
void lazyfree_cuts_start(void);
/* ZREMRANGEBY* left a cut in the sorted set at key of db whose names are
 * still in the set's hash table (zset.h's zs_cut): the same slices clear
 * and free them (zs_cut_step). The set is found again by its name at each
 * slice, never kept by pointer, so a set deleted or freed in the meantime
 * is simply not found (zs_free frees its cuts with it); one that moves is
 * followed by the two calls below. */
void lazyfree_zset_cut(int db, const char *key, size_t klen);
/* Entry e now lives in db under its key (RENAME, MOVE): when it is a sorted
 * set with cuts, they are cleared under that name too, or they would stay
 * (and keep every lookup in its table walking to the root) until it goes. */
void lazyfree_zset_moved(const struct db *db, const struct ks_entry *e);
/* SWAPDB swapped dbs a and b: the pending cuts follow their sets. */
void lazyfree_zset_dbs_swapped(int a, int b);
/* At shutdown: frees everything queued and joins the thread. */
void lazyfree_close(void);

#endif
