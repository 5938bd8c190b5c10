/*
 * slotindex.h - the keys of each Redis Cluster hash slot (keyslot.h), per
 * database, for cluster mode: COUNTKEYSINSLOT in O(1), GETKEYSINSLOT in O(k),
 * and resharding's walk over a slot's keys.
 *
 * Owns: per db, one small open-addressing set of entry pointers per slot
 * (struct ks_slots, allocated when the db gets its first key after
 * ks_slots_enable). Not the entries: the keyspace owns them and tells this
 * index of every entry that appears, moves or goes (keyspace.c calls the
 * ks_slots_* hooks below; nothing else may). Knows no cluster state: which
 * slots this node serves is the cluster layer's business.
 *
 * Why a set of pointers beside the entries rather than links inside them
 * (Redis 7.0 adds a prev/next pair to every dictEntry): an entry's header is
 * 36 bytes so that a small key fits a 64-byte block (keyspace.h); 16 more
 * bytes would cost every key in cluster mode a size class, and a layout
 * that depends on the mode would cost every server a branch on every key
 * access. The sets cost 8 bytes / load (0.58 to 0.875) per key, in blocks
 * sized to the allocator's classes, about 11.6 bytes per key at 1M keys,
 * and only in cluster mode (bench/README.md, "Memory per key in cluster
 * mode").
 *
 * A set is linear probing: a pointer's home is a hash of its address scaled
 * to the set's capacity, it sits at its home or in the run of full cells
 * after it (wrapping around the end), and deleting backward-shifts the rest
 * of the run towards their homes. That is what makes ks_slot_walk safe
 * against deleting the entry it is on: it walks downwards from just below
 * an empty cell, and a deletion moves only cells of the run above the hole,
 * which the walk has already passed.
 *
 * Before ks_slots_enable nothing is indexed and the keyspace pays one
 * predictable branch where an entry appears, moves or goes.
 */
#ifndef RBKV_SLOTINDEX_H
#define RBKV_SLOTINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "keyslot.h"

struct db;
struct ks_entry;

/* One slot's entries: cap cells, NULL where empty. */
struct ks_slot {
    struct ks_entry **cell; /* owned; NULL when cap is 0 */
    uint32_t count, cap;
};

struct ks_slots {
    struct ks_slot slot[CLUSTER_SLOTS];
    int walking; /* the slot ks_slot_walk is on, or -1 */
    /* Per slot, how many of its set's entries were cut out of the
     * keyspace (ks_cut) and are not freed yet: not counted, not walked.
     * Allocated at the first cut, freed when the last is freed; cut_total
     * is their sum. */
    uint32_t *cut;
    size_t cut_total;
};

/* Nonzero once ks_slots_enable ran; read through ks_slots_enabled. */
extern int ks_slots_on;

/* Turns the index on for the process. Call once at start, before any key
 * exists (before loading a snapshot or log): keys that exist already are not
 * indexed, ks_check reports them, and deleting one aborts. There is no
 * turning it off. */
void ks_slots_enable(void);
static inline int ks_slots_enabled(void) { return ks_slots_on; }

/* Keys of db in slot (0..CLUSTER_SLOTS-1), expired or not; 0 when the index
 * is off. O(1). Entries cut out of the keyspace (keyspace.h's ks_cut) stay
 * in their slot's set until freed and are neither counted here nor walked
 * by ks_slot_walk. */
size_t ks_slot_count(const struct db *db, unsigned slot);

/* Calls fn(db, e, arg) for each key e of db in slot (expired or not, in no
 * particular order) until fn returns nonzero or the keys run out; returns
 * how many calls it made. O(k) for k calls (plus the empty cells between
 * them, fewer than 2 per key).
 * fn may delete e (ks_delete, ks_expire_entry), and may change keys of other
 * slots and other dbs. It must not add, move (a string that grows, a new
 * deadline) or delete any other key of this slot of db, nor flush db: the
 * walk would miss or repeat keys. Adding or moving one aborts. A walk
 * started inside another walk of db makes no calls. A walk that deleted
 * keys gives memory back when it ends.
 * GETKEYSINSLOT slot count: fn replies with e's key and returns nonzero at
 * the count-th; COUNTKEYSINSLOT: ks_slot_count. */
typedef int ks_slot_walk_fn(struct db *db, struct ks_entry *e, void *arg);
size_t ks_slot_walk(struct db *db, unsigned slot, ks_slot_walk_fn *fn, void *arg);

/* Bytes the index holds for db (its slot array and every set). */
size_t ks_slots_memory(const struct db *db);

/* The keyspace's hooks (keyspace.c only). link, unlink and moved are called
 * only while enabled: the caller tests ks_slots_on, so a server outside
 * cluster mode pays that one branch and no call. */
void ks_slots_link(struct db *db, struct ks_entry *e);
void ks_slots_unlink(struct db *db, struct ks_entry *e);
/* n entries of slot, all in its set, were cut out of db's tree (ks_cut):
 * they stay in the set until ks_slots_unlink_cut, uncounted. */
void ks_slots_cut(struct db *db, unsigned slot, size_t n);
/* A cut entry is freed: it leaves its set. */
void ks_slots_unlink_cut(struct db *db, struct ks_entry *e);
/* e was reallocated at moved (same key); e's address is only compared. */
void ks_slots_moved(struct db *db, const struct ks_entry *e, struct ks_entry *moved);
/* Forgets every key of db (ks_flush) and frees the sets. */
void ks_slots_clear(struct db *db);
/* Frees a slot index detached from its db (ks_detach_all); NULL does
 * nothing. Touches nothing else, so any thread may call it. */
void ks_slots_free(struct ks_slots *s);
/* Every set's invariants, and exactly the keys of db->keys indexed, each in
 * its slot's set, beside the cut ones not freed yet. O(n). 0, or -1 with
 * *why set. */
int ks_slots_check(const struct db *db, const char **why);

#endif
