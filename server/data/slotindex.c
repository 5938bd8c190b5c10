/*
 * slotindex.c - per-slot sets of entry pointers (see slotindex.h for what
 * it owns and why this shape).
 *
 * Invariants of a slot's set, checked by ks_slots_check():
 *  - count non-NULL cells among cap, each a distinct entry of the db whose
 *    key hashes to this slot; count is 0 and cell NULL when cap is 0;
 *  - every pointer sits at or after its home (cell_home), with no empty cell
 *    between its home and it (linear probing without wrap-around);
 *  - count <= cap * MAX_LOAD_NUM / MAX_LOAD_DEN except while a walk is on.
 */
#include "slotindex.h"

#include <stdlib.h>

#include "keyspace.h"
#include "mem.h"

int ks_slots_on;

/* Grow past 7/8 full: linear probing's runs stay short (an insertion probes
 * about 32 cells at 7/8, all in a few cache lines), and the sets average
 * about 0.7 full. */
#define MAX_LOAD_NUM 7
#define MAX_LOAD_DEN 8
/* Shrink under 1/4 full, to half: well below where it would grow again. */
#define MIN_LOAD_DEN 4
#define MIN_CAP 4

void ks_slots_enable(void)
{
    ks_slots_on = 1;
}

/* The set's home of e among cap cells: a hash of its address (entries are
 * 16-byte aligned, so its low bits say nothing; Fibonacci hashing mixes the
 * rest into the top 32 bits), scaled to [0, cap) by a multiply, so any cap
 * works and sets can be sized to the allocator's classes. */
static uint32_t cell_home(const struct ks_entry *e, uint32_t cap)
{
    uint32_t h = (uint32_t)(((uint64_t)(uintptr_t)e * 0x9e3779b97f4a7c15ull) >> 32);
    return (uint32_t)(((uint64_t)h * cap) >> 32);
}

static unsigned entry_slot(const struct ks_entry *e)
{
    return key_hash_slot(ks_key(e), ks_klen(e));
}

/* Puts e in its first free cell from its home; -1 when the run reaches the
 * end of the set (no wrap-around: the caller grows it). */
static int cell_put(struct ks_slot *s, struct ks_entry *e)
{
    for (uint32_t i = cell_home(e, s->cap); i < s->cap; i++) {
        if (!s->cell[i]) {
            s->cell[i] = e;
            return 0;
        }
    }
    return -1;
}

/* Rebuilds s with room for at least want cells (all the allocator's block
 * gives), keeping its entries. A set whose runs reach the end at that size
 * takes a larger one. */
static void set_resize(struct ks_slot *s, size_t want)
{
    for (;;) {
        struct ks_entry **cell = xmalloc(want * sizeof(*cell));
        size_t cap = xsize(cell) / sizeof(*cell);
        struct ks_slot bigger = {cell, 0, (uint32_t)cap};
        memset(cell, 0, cap * sizeof(*cell));
        uint32_t i = 0;
        for (; i < s->cap; i++) {
            if (s->cell[i] && cell_put(&bigger, s->cell[i]) < 0)
                break;
        }
        if (i == s->cap) {
            xfree(s->cell);
            s->cell = cell;
            s->cap = (uint32_t)cap;
            return;
        }
        xfree(cell);
        want = cap + cap / 2;
    }
}

static struct ks_slot *slot_of(struct db *db, const struct ks_entry *e)
{
    if (!db->slots) {
        db->slots = xcalloc(1, sizeof(*db->slots));
        db->slots->walking = -1;
    }
    unsigned slot = entry_slot(e);
    if (db->slots->walking == (int)slot)
        abort(); /* ks_slot_walk's rule: nothing joins or moves in the slot it walks */
    return &db->slots->slot[slot];
}

static void set_add(struct ks_slot *s, struct ks_entry *e)
{
    if ((uint64_t)(s->count + 1) * MAX_LOAD_DEN > (uint64_t)s->cap * MAX_LOAD_NUM)
        set_resize(s, s->cap < MIN_CAP ? MIN_CAP : s->cap + s->cap / 2);
    while (cell_put(s, e) < 0)
        set_resize(s, s->cap + s->cap / 2);
    s->count++;
}

void ks_slots_link(struct db *db, struct ks_entry *e)
{
    set_add(slot_of(db, e), e);
}

/* Where e is in s; e must be there. */
static uint32_t cell_find(const struct ks_slot *s, const struct ks_entry *e)
{
    uint32_t i = cell_home(e, s->cap);
    while (s->cell[i] != e) {
        if (!s->cell[i] || ++i == s->cap)
            abort(); /* an entry the keyspace linked is missing: the index is corrupt */
    }
    return i;
}

/* Shrinks s when it is mostly empty, frees its cells when it is empty. */
static void set_shrink(struct ks_slot *s)
{
    if (s->count == 0) {
        xfree(s->cell);
        s->cell = NULL;
        s->cap = 0;
    } else if (s->cap > MIN_CAP * 2 && s->count < s->cap / MIN_LOAD_DEN) {
        set_resize(s, s->cap / 2);
    }
}

/* Empties cell i, then backward-shifts the run after it: each later pointer
 * whose home is at or before the hole fills it, leaving its own cell the
 * hole. Cells move only to lower positions (ks_slot_walk relies on it). */
static void cell_delete(struct ks_slot *s, uint32_t i)
{
    s->cell[i] = NULL;
    for (uint32_t j = i + 1; j < s->cap && s->cell[j]; j++) {
        if (cell_home(s->cell[j], s->cap) <= i) {
            s->cell[i] = s->cell[j];
            s->cell[j] = NULL;
            i = j;
        }
    }
    s->count--;
}

void ks_slots_unlink(struct db *db, struct ks_entry *e)
{
    unsigned slot = entry_slot(e);
    struct ks_slot *s = &db->slots->slot[slot];
    cell_delete(s, cell_find(s, e));
    if (db->slots->walking != (int)slot)
        set_shrink(s);
}

void ks_slots_moved(struct db *db, const struct ks_entry *e, struct ks_entry *moved)
{
    /* The new address has another home: out and in again. */
    struct ks_slot *s = slot_of(db, moved);
    cell_delete(s, cell_find(s, e));
    set_add(s, moved);
}

void ks_slots_clear(struct db *db)
{
    if (!db->slots)
        return;
    for (unsigned i = 0; i < CLUSTER_SLOTS; i++)
        xfree(db->slots->slot[i].cell);
    xfree(db->slots);
    db->slots = NULL;
}

size_t ks_slot_count(const struct db *db, unsigned slot)
{
    return db->slots && slot < CLUSTER_SLOTS ? db->slots->slot[slot].count : 0;
}

size_t ks_slot_walk(struct db *db, unsigned slot, ks_slot_walk_fn *fn, void *arg)
{
    if (!db->slots || slot >= CLUSTER_SLOTS || db->slots->walking >= 0)
        return 0;
    struct ks_slot *s = &db->slots->slot[slot];
    size_t calls = 0;
    db->slots->walking = (int)slot;
    /* Downwards: deleting the entry at i moves only cells above i into
     * cells at or above i, all visited already, and the cells stay where
     * they are, as nothing shrinks the set until the walk ends. */
    for (uint32_t i = s->cap; i-- > 0;) {
        struct ks_entry *e = s->cell[i];
        if (!e)
            continue;
        calls++;
        if (fn(db, e, arg))
            break;
    }
    db->slots->walking = -1;
    set_shrink(s);
    return calls;
}

size_t ks_slots_memory(const struct db *db)
{
    if (!db->slots)
        return 0;
    size_t bytes = xsize(db->slots);
    for (unsigned i = 0; i < CLUSTER_SLOTS; i++)
        if (db->slots->slot[i].cell)
            bytes += xsize(db->slots->slot[i].cell);
    return bytes;
}

static int set_check(const struct ks_slot *s, unsigned slot, const char **why)
{
    uint32_t seen = 0;
    if ((s->cap == 0) != (s->cell == NULL)) {
        *why = "slot set has cells without capacity or capacity without cells";
        return -1;
    }
    for (uint32_t i = 0; i < s->cap; i++) {
        const struct ks_entry *e = s->cell[i];
        if (!e)
            continue;
        seen++;
        if (entry_slot(e) != slot) {
            *why = "entry in another slot's set";
            return -1;
        }
        uint32_t home = cell_home(e, s->cap);
        if (home > i) {
            *why = "entry before its home cell";
            return -1;
        }
        for (uint32_t j = home; j < i; j++) {
            if (!s->cell[j]) {
                *why = "empty cell between an entry and its home";
                return -1;
            }
        }
    }
    if (seen != s->count) {
        *why = "slot set's count differs from its cells";
        return -1;
    }
    if ((uint64_t)s->count * MAX_LOAD_DEN > (uint64_t)s->cap * MAX_LOAD_NUM) {
        *why = "slot set fuller than its maximum load";
        return -1;
    }
    return 0;
}

int ks_slots_check(const struct db *db, const char **why)
{
    if (!ks_slots_on) {
        if (db->slots) {
            *why = "slot index allocated while disabled";
            return -1;
        }
        return 0;
    }
    size_t total = 0;
    if (db->slots) {
        if (db->slots->walking != -1) {
            *why = "slot walk left on";
            return -1;
        }
        for (unsigned i = 0; i < CLUSTER_SLOTS; i++) {
            if (set_check(&db->slots->slot[i], i, why) < 0)
                return -1;
            total += db->slots->slot[i].count;
        }
    }
    /* As many as the tree, each found in its slot's set: with no pointer
     * twice in a set (a probe finds one of them; count catches the rest),
     * the sets hold exactly the tree's entries. */
    const struct ks_entry *root = ks_entry_of(db->keys.rb_node);
    if (total != (root ? root->size : 0)) {
        *why = "slot index and tree hold different numbers of entries";
        return -1;
    }
    for (const struct ks_entry *e = ks_first(db); e; e = ks_next(e)) {
        const struct ks_slot *s = &db->slots->slot[entry_slot(e)];
        uint32_t i = cell_home(e, s->cap);
        while (i < s->cap && s->cell[i] && s->cell[i] != e)
            i++;
        if (i == s->cap || s->cell[i] != e) {
            *why = "entry missing from its slot's set";
            return -1;
        }
    }
    return 0;
}
