/*
 * keyindex.c - the hash index beside each database's tree (see keyindex.h
 * for the layout, the ownership rules and the invariants).
 *
 * Knows an entry only through ks_key()/ks_klen(); knows nothing of the tree,
 * deadlines or values.
 */
#include "keyindex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyspace.h"
#include "mem.h"

_Static_assert(sizeof(uint64_t) >= sizeof(uintptr_t), "a slot must hold an address");

/* Loads, as percentages of capacity. An index grows past KIX_LOAD_MAX into
 * a table loaded KIX_LOAD_GROWN: linear probing's probe lengths climb fast
 * past ~85%, while 8-byte slots at 60..85% cost 9.4..13.3 bytes per key. It
 * shrinks below KIX_LOAD_MIN (far below, so a size near a boundary does not
 * resize back and forth). */
#define KIX_LOAD_MAX 85
#define KIX_LOAD_GROWN 60
#define KIX_LOAD_MIN 10
#define KIX_MIN_CAP 8
/* A table this large asks for transparent huge pages (mem_advise_huge). */
#define KIX_HUGE_BYTES ((size_t)16 << 20)
/* Zeroing (so faulting in) a new table at once held the loop in the one
 * insert that started the resize: 740 ms of wall time for 27 MB at a load
 * average of 30. A table of KIX_MAP_BYTES or more is an anonymous mapping
 * instead (xmap_zeroed): zero without a write, its pages faulting in one by
 * one as the drain and the inserts fill it. (A next table prepared a page
 * per insert from 70% load on, as before, held its whole size resident
 * near every growth: 13 bytes per key at 1M keys.) */
#define KIX_MAP_BYTES ((size_t)1 << 20)
/* A draining table of KIX_RELEASE_BYTES or more gives back its drained
 * pages every KIX_RELEASE_SPAN bytes (mem_release_pages). */
#define KIX_RELEASE_BYTES ((size_t)16 << 20)
#define KIX_RELEASE_SPAN ((size_t)2 << 20)

/* Work of one rehash step: it moves at least KIX_STEP_MOVES entries unless
 * it has visited KIX_STEP_VISITS slots, then goes on to the end of the
 * cluster it is in. A drain must end before the new table, loaded 60%,
 * reaches 85%, i.e. within 0.42 inserts per key: growing needs 1 / 0.42 =
 * 2.4 moves per insert, and shrinking from 10% load needs 10 / 0.42 = 24
 * slots visited per insert. Every insert runs a step, which does more. */
#define KIX_STEP_MOVES 16
#define KIX_STEP_VISITS 128
/* Entries a step moves as one batch: it starts loading all their keys, then
 * hashes them and starts loading their slots in the new table, then stores
 * them. Each move costs two cache misses (the entry's key, the new slot);
 * in a batch they overlap instead of coming one after another. */
#define KIX_MOVE_BATCH 16

/* Odd constants with no structure (fractional digits of the golden ratio and
 * of pi), to spread the key length and to finish the hash. */
#define KIX_K_LEN UINT64_C(0x9e3779b97f4a7c15)
#define KIX_K_FINAL UINT64_C(0x243f6a8885a308d3)

/* ---- the hash ---- */

/* The 128-bit product of a and b with its halves xored: every input bit
 * reaches the middle output bits, and it costs one multiply. */
static inline uint64_t fold_mul(uint64_t a, uint64_t b)
{
    kix_u128 p = (kix_u128)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

static inline uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static inline uint64_t load32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

uint64_t kix_hash(const struct kix *ix, const char *key, size_t klen)
{
    const unsigned char *p = (const unsigned char *)key;
    uint64_t h = ix->seed[0] ^ (klen * KIX_K_LEN);
    uint64_t a, b;

    /* Keys of up to 16 bytes, the common case, cost one multiply besides the
     * final one. A tail is read as two words that may overlap rather than
     * byte by byte: every byte is read and the length is already in h, so
     * two different keys still give different words. */
    if (klen > 16) {
        const unsigned char *last = p + klen - 16;
        for (; p < last; p += 16)
            h = fold_mul(load64(p) ^ ix->seed[1], load64(p + 8) ^ h);
        a = load64(last);
        b = load64(last + 8);
    } else if (klen >= 8) {
        a = load64(p);
        b = load64(p + klen - 8);
    } else if (klen >= 4) {
        a = load32(p);
        b = load32(p + klen - 4);
    } else if (klen > 0) {
        a = (uint64_t)p[0] | (uint64_t)p[klen / 2] << 8 | (uint64_t)p[klen - 1] << 16;
        b = 0;
    } else {
        a = b = 0;
    }
    /* The seed enters both factors, so no key known in advance can zero one. */
    h = fold_mul(a ^ ix->seed[1], b ^ h);
    return fold_mul(h, KIX_K_FINAL);
}

static inline uint64_t entry_hash(const struct kix *ix, const struct ks_entry *e)
{
    return kix_hash(ix, ks_key(e), ks_klen(e));
}

/* ---- slots and tables ---- */

static inline uint64_t slot_of(const struct ks_entry *e, uint64_t h)
{
    return (uint64_t)(uintptr_t)e | (h << KIX_PTR_BITS);
}

static inline int tag_matches(uint64_t s, uint64_t h)
{
    return ((s ^ (h << KIX_PTR_BITS)) >> KIX_PTR_BITS) == 0;
}

static inline size_t next_slot(const struct kix_table *t, size_t i)
{
    return ++i == t->cap ? 0 : i;
}

/* Steps forward from slot `from` to slot `to`, wrapping. */
static inline size_t distance(const struct kix_table *t, size_t from, size_t to)
{
    return to >= from ? to - from : to + t->cap - from;
}

static size_t max_used(size_t cap)
{
    return cap * KIX_LOAD_MAX / 100;
}

static size_t cap_for(size_t count)
{
    size_t cap = count * 100 / KIX_LOAD_GROWN;
    return cap > KIX_MIN_CAP ? cap : KIX_MIN_CAP;
}

static int table_mapped(size_t cap)
{
    return cap * sizeof(uint64_t) >= KIX_MAP_BYTES;
}

static void table_free(struct kix_table *t)
{
    if (table_mapped(t->cap))
        xunmap(t->slots, t->cap * sizeof(uint64_t));
    else
        xfree(t->slots);
    *t = (struct kix_table){0};
}

static size_t table_bytes(const struct kix_table *t)
{
    if (!t->slots)
        return 0;
    return table_mapped(t->cap) ? t->cap * sizeof(uint64_t) : xsize(t->slots);
}

static struct ks_entry *table_find(const struct kix_table *t, const char *key, size_t klen,
                                   uint64_t h)
{
    if (!t->used)
        return NULL;
    for (size_t i = kix_home(t, h);; i = next_slot(t, i)) {
        uint64_t s = t->slots[i];
        if (!s)
            return NULL;
        if (tag_matches(s, h)) {
            struct ks_entry *e = kix_slot_entry(s);
            if (ks_klen(e) == klen && memcmp(ks_key(e), key, klen) == 0)
                return e;
        }
    }
}

/* The slot holding e (whose hash is h), or SIZE_MAX: compares whole slots,
 * so it never reads another entry. */
static size_t table_slot(const struct kix_table *t, const struct ks_entry *e, uint64_t h)
{
    uint64_t want = slot_of(e, h);
    if (!t->used)
        return SIZE_MAX;
    for (size_t i = kix_home(t, h); t->slots[i]; i = next_slot(t, i))
        if (t->slots[i] == want)
            return i;
    return SIZE_MAX;
}

/* Stores slot s (of hash h) in the first empty slot from its home. The
 * caller keeps the load under KIX_LOAD_MAX, so there is one. */
static void table_put(struct kix_table *t, uint64_t s, uint64_t h)
{
    size_t i = kix_home(t, h);
    while (t->slots[i])
        i = next_slot(t, i);
    t->slots[i] = s;
    t->used++;
}

/* Empties slot `hole` without a tombstone: each later entry of the cluster
 * whose probe path (home..position) crosses the hole moves back into it,
 * leaving a new hole, until the cluster ends. */
static void table_delete_at(const struct kix *ix, struct kix_table *t, size_t hole)
{
    for (size_t i = next_slot(t, hole);; i = next_slot(t, i)) {
        /* hole was found in t, so t->slots is allocated. */
        uint64_t s = t->slots[i]; // NOLINT(clang-analyzer-core.NullDereference)
        if (!s)
            break;
        size_t home = kix_home(t, entry_hash(ix, kix_slot_entry(s)));
        if (distance(t, home, i) >= distance(t, hole, i)) {
            t->slots[hole] = s;
            hole = i;
        }
    }
    t->slots[hole] = 0;
    t->used--;
}

/* ---- resizing ---- */

/* Asks for huge pages for t when it is large (mem_advise_huge): every
 * lookup reads a slot at random, and past a few huge pages 4 kB pages make
 * nearly each one a TLB miss (a third of a 10M-key RDB load's samples sat
 * on the slot's prefetch). */
static void table_advise_huge(const struct kix_table *t)
{
    if (t->cap * sizeof(uint64_t) >= KIX_HUGE_BYTES)
        mem_advise_huge(t->slots, t->cap * sizeof(uint64_t));
}

/* An array of cap zeroed slots. */
static uint64_t *slots_alloc(size_t cap)
{
    if (!table_mapped(cap))
        return xcalloc(cap, sizeof(uint64_t));
    return xmap_zeroed(cap * sizeof(uint64_t));
}

/* The drain ended: old goes, and cur, now holding every entry, asks for
 * huge pages. Not before: pages of a fresh mapping that asked for them
 * fault in 2 MB at a time, zeroed and perhaps after the kernel compacted
 * memory for them, which cost the inserts filling a 76 MB table up to 93
 * ms of loop CPU in one turn; asked once it is full, khugepaged collapses
 * it in the background. */
static void drain_done(struct kix *ix)
{
    table_free(&ix->old);
    table_advise_huge(&ix->cur);
}

/* Moves the n full slots of old at positions at[] into cur (see
 * KIX_MOVE_BATCH), in that order. */
static void move_batch(struct kix *ix, const size_t *at, size_t n)
{
    struct kix_table *old = &ix->old, *cur = &ix->cur;
    uint64_t h[KIX_MOVE_BATCH];

    for (size_t k = 0; k < n; k++) {
        const struct ks_entry *e = kix_slot_entry(old->slots[at[k]]);
        __builtin_prefetch(e);       /* klen and flags */
        __builtin_prefetch(e->data); /* the key, or the deadline just before it */
    }
    for (size_t k = 0; k < n; k++) {
        h[k] = entry_hash(ix, kix_slot_entry(old->slots[at[k]]));
        __builtin_prefetch(&cur->slots[kix_home(cur, h[k])], 1);
    }
    for (size_t k = 0; k < n; k++) {
        table_put(cur, old->slots[at[k]], h[k]);
        old->slots[at[k]] = 0;
    }
    old->used -= n;
}

void kix_rehash_step(struct kix *ix)
{
    struct kix_table *old = &ix->old;
    size_t at[KIX_MOVE_BATCH];
    size_t n = 0, moved = 0, visited = 0, i = ix->drain;

    /* old->used - n: the entries of old not yet in a batch. */
    while (old->used > n) {
        if (old->slots[i]) {
            at[n++] = i;
            if (n == KIX_MOVE_BATCH) {
                move_batch(ix, at, n);
                moved += n;
                n = 0;
            }
        } else if (moved + n >= KIX_STEP_MOVES || visited >= KIX_STEP_VISITS) {
            break; /* at an empty slot: no cluster of old is left cut in two */
        }
        i = next_slot(old, i);
        visited++;
    }
    move_batch(ix, at, n);
    ix->drain = i;
    if (!old->used) {
        drain_done(ix);
        return;
    }
    /* After the drain wraps past the end, it is behind `released`. */
    char *drained = (char *)&old->slots[i];
    if (old->cap * sizeof(*old->slots) >= KIX_RELEASE_BYTES && drained > ix->released &&
        (size_t)(drained - ix->released) >= KIX_RELEASE_SPAN)
        ix->released = mem_release_pages(ix->released, (size_t)(drained - ix->released));
}

/* Starts moving every entry into a new table of cap slots. */
static void rehash_start(struct kix *ix, size_t cap)
{
    /* Only one table drains at a time. The step sizes above finish a drain
     * before cur can need resizing again, so this loop finds nothing to do;
     * it keeps the index correct if they are ever tuned wrong. */
    while (ix->old.used)
        kix_rehash_step(ix);
    ix->old = ix->cur;
    ix->cur.slots = slots_alloc(cap);
    ix->cur.cap = cap;
    ix->cur.used = 0;
    if (!ix->old.used) {
        /* Nothing to drain (a bulk load's kix_reserve): the inserts that
         * fill it are the load itself, which huge pages speed up. */
        drain_done(ix);
        return;
    }
    /* Drain from an empty slot, so no cluster is split between the tables.
     * The load limit guarantees one. */
    size_t d = 0;
    while (ix->old.slots[d])
        d++;
    ix->drain = d;
    ix->released = (char *)&ix->old.slots[d]; /* slots before d drain last */
}

/* ---- the public operations ---- */

void kix_init(struct kix *ix, const uint64_t seed[2])
{
    *ix = (struct kix){0};
    ix->seed[0] = seed[0];
    ix->seed[1] = seed[1];
}

void kix_clear(struct kix *ix)
{
    table_free(&ix->cur);
    table_free(&ix->old);
    ix->drain = 0;
}

struct ks_entry *kix_find(const struct kix *ix, const char *key, size_t klen, uint64_t h)
{
    struct ks_entry *e = table_find(&ix->cur, key, klen, h);
    if (!e)
        e = table_find(&ix->old, key, klen, h);
    return e;
}

static _Noreturn void address_too_wide(const struct ks_entry *e)
{
    fprintf(stderr, "rbkv: entry address %p does not fit the key index's %d-bit slots\n",
            (const void *)e, KIX_PTR_BITS);
    abort();
}

void kix_insert(struct kix *ix, struct ks_entry *e, uint64_t h)
{
    if ((uint64_t)(uintptr_t)e >> KIX_PTR_BITS)
        address_too_wide(e);
    kix_step(ix);
    size_t count = kix_count(ix) + 1;
    if (count > max_used(ix->cur.cap))
        rehash_start(ix, cap_for(count));
    table_put(&ix->cur, slot_of(e, h), h);
}

void kix_reserve(struct kix *ix, size_t n)
{
    if (kix_count(ix) == 0 && n > max_used(ix->cur.cap))
        rehash_start(ix, cap_for(n));
}

void kix_remove(struct kix *ix, const struct ks_entry *e)
{
    uint64_t h = entry_hash(ix, e);
    kix_step(ix);
    struct kix_table *t = &ix->cur;
    size_t i = table_slot(t, e, h);
    if (i == SIZE_MAX) {
        t = &ix->old;
        i = table_slot(t, e, h);
    }
    table_delete_at(ix, t, i);

    size_t count = kix_count(ix);
    if (count == 0) {
        kix_clear(ix); /* e.g. the last key deleted: hold no memory at all */
    } else if (!ix->old.used) {
        if (ix->old.slots)
            drain_done(ix); /* e's table was the draining one, now empty */
        if (ix->cur.cap > KIX_MIN_CAP && count * 100 < ix->cur.cap * KIX_LOAD_MIN)
            rehash_start(ix, cap_for(count));
    }
}

void kix_replace(struct kix *ix, const struct ks_entry *gone, struct ks_entry *moved)
{
    if ((uint64_t)(uintptr_t)moved >> KIX_PTR_BITS)
        address_too_wide(moved);
    uint64_t h = entry_hash(ix, moved);
    struct kix_table *t = &ix->cur;
    size_t i = table_slot(t, gone, h);
    if (i == SIZE_MAX) {
        t = &ix->old;
        i = table_slot(t, gone, h);
    }
    t->slots[i] = slot_of(moved, h);
}

int kix_contains(const struct kix *ix, const struct ks_entry *e)
{
    uint64_t h = entry_hash(ix, e);
    return table_slot(&ix->cur, e, h) != SIZE_MAX || table_slot(&ix->old, e, h) != SIZE_MAX;
}

static int table_check(const struct kix *ix, const struct kix_table *t, const char **why)
{
    size_t full = 0;
    if ((t->slots == NULL) != (t->cap == 0)) {
        *why = "index table capacity and array disagree";
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++) {
        uint64_t s = t->slots[i];
        if (!s)
            continue;
        full++;
        uint64_t h = entry_hash(ix, kix_slot_entry(s));
        if (!tag_matches(s, h)) {
            *why = "index slot's tag is not its key's hash";
            return -1;
        }
        /* Probing from home reaches this slot: no empty slot, nor an equal
         * slot that would hide this one, comes first. */
        if (table_slot(t, kix_slot_entry(s), h) != i) {
            *why = "index entry not reachable from its home slot";
            return -1;
        }
    }
    if (full != t->used) {
        *why = "index table's used count is wrong";
        return -1;
    }
    return 0;
}

struct ks_entry *kix_random(const struct kix *ix, uint64_t r)
{
    size_t n = kix_count(ix);
    if (!n)
        return NULL;
    const struct kix_table *t = &ix->cur;
    if (ix->old.used && (size_t)((uint32_t)r % n) < ix->old.used)
        t = &ix->old;
    size_t i = kix_home(t, r);
    for (size_t k = 0; k < t->cap; k++, i = i + 1 == t->cap ? 0 : i + 1) {
        if (t->slots[i])
            return kix_slot_entry(t->slots[i]);
    }
    return NULL; /* not reached: t holds an entry */
}

int kix_check(const struct kix *ix, const char **why)
{
    if (table_check(ix, &ix->cur, why) < 0 || table_check(ix, &ix->old, why) < 0)
        return -1;
    if (kix_count(ix) > max_used(ix->cur.cap)) {
        *why = "index loaded past its limit";
        return -1;
    }
    if (ix->old.cap && (!ix->old.used || ix->old.slots[ix->drain])) {
        *why = "draining table empty but kept, or draining stopped inside a cluster";
        return -1;
    }
    return 0;
}

size_t kix_memory(const struct kix *ix)
{
    return table_bytes(&ix->cur) + table_bytes(&ix->old);
}
