/*
 * keyindex.h - a hash index of a database's entries beside its tree, so a
 * point lookup costs about two cache misses (one slot, one entry) instead of
 * a descent through ~20 tree levels. Part of the keyspace module: only
 * keyspace.c calls it.
 *
 * Owns: its slot arrays (allocated through mem.h, so used_memory counts them)
 * and nothing else. It holds pointers to entries that the keyspace owns, and
 * reads only their key (ks_key/ks_klen); it never allocates, frees or moves
 * an entry. The keyspace tells it when one appears (kix_insert), moves
 * (kix_replace) or goes (kix_remove).
 *
 * Layout: open addressing with linear probing over 8-byte slots. A slot is 0
 * when empty, else the entry's address (which must fit in KIX_PTR_BITS) with
 * the low 16 bits of the key's hash above it as a tag, so a probe compares a
 * key only when the tags agree (a false match costs 1 in 65536). The home
 * slot of hash h in a table of cap slots is h * cap / 2^64: any cap works, so
 * the load can stay between KIX_LOAD_GROWN and KIX_LOAD_MAX percent (60 and
 * 85, in keyindex.c) instead of halving at each doubling.
 * Deletion shifts the rest of the cluster back (no tombstones).
 *
 * Resizing is incremental, so growing a table of millions of keys never
 * stalls the loop: a new table `cur` takes every insert, and each call that
 * changes the index (and kix_step, which ks_lookup runs) moves a bounded
 * number of entries out of the draining table `old`; lookups try `cur`, then
 * `old`. The tables themselves are not touched at once either: a large
 * table is an anonymous mapping, zero without a write, whose pages fault
 * in as it fills; and a large draining table gives its drained pages back
 * to the kernel as the drain passes them, so its free at the end unmaps
 * little.
 *
 * Invariants, checked by kix_check():
 *  - every entry in a table lies in its home slot or after it, with no empty
 *    slot between (it is found by probing), and its tag is its hash's;
 *  - each table's `used` counts its full slots, and together they never
 *    exceed KIX_LOAD_MAX percent of cur's capacity, so a probe always ends;
 *  - while draining, old.slots[drain] is empty and the clusters of `old` not
 *    yet drained are whole: a step stops only at an empty slot, so `old`
 *    stays a valid table for lookups and for deletion's backward shift.
 *
 * The hash is seeded per index (kix_init), so keys chosen to collide under
 * one seed do not collide under another.
 */
#ifndef RBKV_KEYINDEX_H
#define RBKV_KEYINDEX_H

#include <stddef.h>
#include <stdint.h>

struct ks_entry;

/* GCC's and Clang's 128-bit integer, for 64x64->128 multiplies. */
__extension__ typedef unsigned __int128 kix_u128;

/* Bits of an entry's address a slot keeps: x86-64 and AArch64 user
 * addresses fit in 48 (47 unless a program asks mmap for higher ones). */
#define KIX_PTR_BITS 48

struct kix_table {
    uint64_t *slots; /* cap slots, NULL when cap is 0 */
    size_t cap;
    size_t used;     /* full slots */
};

struct kix {
    struct kix_table cur; /* takes every insert */
    struct kix_table old; /* being drained into cur; cap 0 when not resizing */
    size_t drain;         /* the slot of old where draining goes on */
    char *released;       /* old's pages from where the drain began up to
                             here went back to the kernel */
    uint64_t seed[2];
};

/* The entry a full slot points at. */
static inline struct ks_entry *kix_slot_entry(uint64_t slot)
{
    return (struct ks_entry *)(uintptr_t)(slot & ((UINT64_C(1) << KIX_PTR_BITS) - 1));
}

/* The home slot of hash h in t: h * cap / 2^64, which maps h onto [0, cap)
 * without a division and for any cap. */
static inline size_t kix_home(const struct kix_table *t, uint64_t h)
{
    return (size_t)(((kix_u128)h * t->cap) >> 64);
}

/* An empty index whose hash is keyed by seed (copied). */
void kix_init(struct kix *ix, const uint64_t seed[2]);
/* Frees the slot arrays, not the entries; the index is then empty, as after
 * kix_init with the same seed. */
void kix_clear(struct kix *ix);

/* The hash of a key under the index's seed; pass it to kix_find/kix_insert. */
uint64_t kix_hash(const struct kix *ix, const char *key, size_t klen);

/* The entry whose key is key, or NULL; h is kix_hash(ix, key, klen). */
struct ks_entry *kix_find(const struct kix *ix, const char *key, size_t klen, uint64_t h);

/* Adds e, whose key must be absent; h is the hash of its key. Aborts if e's
 * address does not fit in KIX_PTR_BITS. May resize, or move entries out of a
 * draining table. */
void kix_insert(struct kix *ix, struct ks_entry *e, uint64_t h);

/* Removes e, which must be in the index. Read e's key first: e must still be
 * valid. May shrink the index (an empty one frees its tables). */
void kix_remove(struct kix *ix, const struct ks_entry *e);
/* Sizes an empty index for n keys at once, so a load that knows its count
 * (an RDB file's RESIZEDB) does not rehash as it grows; nothing when the
 * index holds keys. The caller bounds n by what its input can back. */
void kix_reserve(struct kix *ix, size_t n);

/* The entry at `gone` now lives at `moved`, which holds the same key; the
 * index points at moved. Reads moved only, so gone may already be freed. */
void kix_replace(struct kix *ix, const struct ks_entry *gone, struct ks_entry *moved);

/* Does a bounded amount of resizing work, when a resize is under way, so an
 * index that only serves lookups still finishes one. */
void kix_rehash_step(struct kix *ix);
static inline void kix_step(struct kix *ix)
{
    if (ix->old.used)
        kix_rehash_step(ix);
}

static inline size_t kix_count(const struct kix *ix) { return ix->cur.used + ix->old.used; }
static inline int kix_resizing(const struct kix *ix) { return ix->old.used != 0; }

/* An entry drawn with the random bits r, or NULL when the index is empty:
 * the first full slot from a random one, in a table chosen in proportion to
 * the entries it holds. About two cache misses; not quite uniform (an entry
 * after empty slots is likelier), as Redis's dictGetSomeKeys is not. */
struct ks_entry *kix_random(const struct kix *ix, uint64_t r);

/* 1 if e itself (not just its key) is in the index, where a lookup of its
 * key would find it; else 0. For checks: cheaper than kix_find, as it
 * compares slots, not keys. */
int kix_contains(const struct kix *ix, const struct ks_entry *e);

/* Checks the invariants above. Returns 0, or -1 with *why set. */
int kix_check(const struct kix *ix, const char **why);
/* Bytes of the slot arrays (both while resizing). */
size_t kix_memory(const struct kix *ix);

#endif
