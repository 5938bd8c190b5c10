/*
 * slotindex.c - per-slot sets of entry pointers (see slotindex.h for what
 * it owns and why this shape).
 *
 * Invariants of a slot's set, checked by ks_slots_check():
 *  - count non-NULL cells among cap, each a distinct entry of the db whose
 *    key hashes to this slot; count is 0 and cell NULL when cap is 0;
 *  - every pointer sits at its home (cell_home) or after it, wrapping
 *    around the end, with no empty cell between (linear probing);
 *  - count <= cap * MAX_LOAD_NUM / MAX_LOAD_DEN except while a walk is on.
 */
#include "slotindex.h"

#include <stdlib.h>

#include "keyspace.h"
#include "mem.h"

int ks_slots_on;

/* Grow past 7/8 full, by half: linear probing's runs stay short (an
 * insertion probes about 32 cells at 7/8, a few cache lines) and the sets
 * stay 0.58 to 0.875 full. Growing by a quarter saved 0.5 of 11.6 bytes per
 * key at 1M keys (bench/README.md) for twice the rehashing. */
#define MAX_LOAD_NUM 7
#define MAX_LOAD_DEN 8
#define GROW_DIV 2
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

static uint32_t cell_next(const struct ks_slot *s, uint32_t i)
{
    return i + 1 == s->cap ? 0 : i + 1;
}

/* Puts e in its first free cell from its home on, wrapping around; the set
 * has one (count < cap). */
static void cell_put(struct ks_slot *s, struct ks_entry *e)
{
    uint32_t i = cell_home(e, s->cap);
    while (s->cell[i])
        i = cell_next(s, i);
    s->cell[i] = e;
}

/* Rebuilds s with room for at least want cells (all the allocator's block
 * gives: sets sized to its classes waste nothing), keeping its entries. */
static void set_resize(struct ks_slot *s, size_t want)
{
    struct ks_entry **old = s->cell;
    uint32_t old_cap = s->cap;
    s->cell = xmalloc(want * sizeof(*s->cell));
    s->cap = (uint32_t)(xsize(s->cell) / sizeof(*s->cell));
    memset(s->cell, 0, s->cap * sizeof(*s->cell));
    for (uint32_t i = 0; i < old_cap; i++)
        if (old[i])
            cell_put(s, old[i]);
    xfree(old);
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
        set_resize(s, s->cap < MIN_CAP ? MIN_CAP : s->cap + s->cap / GROW_DIV);
    cell_put(s, e);
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
        if (!s->cell[i])
            abort(); /* an entry the keyspace linked is missing: the index is corrupt */
        i = cell_next(s, i);
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

/* Whether home h lies in the cyclic interval (i, j]: a pointer at j with
 * that home may not move back to i, which would put it before its home. */
static int home_between(uint32_t h, uint32_t i, uint32_t j)
{
    return i <= j ? (h > i && h <= j) : (h > i || h <= j);
}

/* Empties cell i, then backward-shifts the run after it (up to the next
 * empty cell): each later pointer whose home is not between the hole and
 * itself fills the hole, leaving its own cell the hole. Pointers move only
 * back towards their homes, within the run (ks_slot_walk relies on it). */
static void cell_delete(struct ks_slot *s, uint32_t i)
{
    s->cell[i] = NULL;
    for (uint32_t j = cell_next(s, i); s->cell[j]; j = cell_next(s, j)) {
        if (!home_between(cell_home(s->cell[j], s->cap), i, j)) {
            s->cell[i] = s->cell[j];
            s->cell[j] = NULL;
            i = j;
        }
    }
    s->count--;
}

void ks_slots_unlink(struct db *db, struct ks_entry *e)
{
    if (!db->slots)
        abort(); /* a key from before ks_slots_enable: see its rule */
    unsigned slot = entry_slot(e);
    struct ks_slot *s = &db->slots->slot[slot];
    cell_delete(s, cell_find(s, e));
    if (db->slots->walking != (int)slot)
        set_shrink(s);
}

void ks_slots_cut(struct db *db, unsigned slot, size_t n)
{
    struct ks_slots *s = db->slots;
    if (!s->cut)
        s->cut = xcalloc(CLUSTER_SLOTS, sizeof(*s->cut));
    s->cut[slot] += (uint32_t)n; /* at most the set's count, a uint32_t */
    s->cut_total += n;
}

void ks_slots_unlink_cut(struct db *db, struct ks_entry *e)
{
    struct ks_slots *s = db->slots;
    s->cut[entry_slot(e)]--;
    ks_slots_unlink(db, e);
    if (--s->cut_total == 0) {
        xfree(s->cut);
        s->cut = NULL;
    }
}

void ks_slots_moved(struct db *db, const struct ks_entry *e, struct ks_entry *moved)
{
    /* The new address has another home: out and in again. */
    struct ks_slot *s = slot_of(db, moved);
    cell_delete(s, cell_find(s, e));
    set_add(s, moved);
}

void ks_slots_free(struct ks_slots *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < CLUSTER_SLOTS; i++)
        xfree(s->slot[i].cell);
    xfree(s->cut);
    xfree(s);
}

void ks_slots_clear(struct db *db)
{
    ks_slots_free(db->slots);
    db->slots = NULL;
}

size_t ks_slot_count(const struct db *db, unsigned slot)
{
    if (!db->slots || slot >= CLUSTER_SLOTS)
        return 0;
    const struct ks_slots *s = db->slots;
    return s->slot[slot].count - (s->cut ? s->cut[slot] : 0);
}

size_t ks_slot_walk(struct db *db, unsigned slot, ks_slot_walk_fn *fn, void *arg)
{
    if (!db->slots || slot >= CLUSTER_SLOTS || db->slots->walking >= 0)
        return 0;
    struct ks_slot *s = &db->slots->slot[slot];
    size_t calls = 0;
    if (s->count == 0)
        return 0;
    /* Entries cut out of the keyspace (ks_cut) stay here until freed; the
     * walk passes over them, asking only while the slot holds some. */
    int cuts = db->slots->cut && db->slots->cut[slot] > 0;
    /* Downwards, from just below an empty cell z round to z: deleting the
     * entry at i shifts only the run after i, which ends at an empty cell
     * no later than z, and whose cells the walk has passed already; the
     * cells before i stay put, and so does the set, as nothing shrinks it
     * until the walk ends. */
    uint32_t z = 0;
    while (s->cell[z])
        z++;
    db->slots->walking = (int)slot;
    for (uint32_t n = 1; n <= s->cap; n++) {
        struct ks_entry *e = s->cell[(z + s->cap - n) % s->cap];
        if (!e || (cuts && ks_entry_cut(db, e)))
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
    size_t bytes = xsize(db->slots) + (db->slots->cut ? xsize(db->slots->cut) : 0);
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
        for (uint32_t j = cell_home(e, s->cap); j != i; j = cell_next(s, j)) {
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
    /* As many as the tree, each found in its slot's set: with no pointer
     * twice in a set (a probe finds one of them; count catches the rest),
     * the sets hold exactly the tree's entries. */
    const struct ks_entry *root = ks_entry_of(db->keys.rb_node);
    size_t keys = root ? root->size : 0, total = 0;
    if (!db->slots) {
        if (keys == 0)
            return 0;
        *why = "slot index and tree hold different numbers of entries";
        return -1;
    }
    if (db->slots->walking != -1) {
        *why = "slot walk left on";
        return -1;
    }
    size_t cut = 0;
    for (unsigned i = 0; i < CLUSTER_SLOTS; i++) {
        if (set_check(&db->slots->slot[i], i, why) < 0)
            return -1;
        total += db->slots->slot[i].count;
        if (db->slots->cut) {
            if (db->slots->cut[i] > db->slots->slot[i].count) {
                *why = "slot set holds fewer entries than were cut from it";
                return -1;
            }
            cut += db->slots->cut[i];
        }
    }
    if (cut != db->slots->cut_total || cut != db->cut_keys) {
        *why = "slot sets' cut counts differ from the keyspace's";
        return -1;
    }
    /* Cut entries stay in their slot's set until freed (ks_cut). */
    if (total != keys + db->cut_keys) {
        *why = "slot index and tree hold different numbers of entries";
        return -1;
    }
    for (const struct ks_entry *e = ks_first(db); e; e = ks_next(e)) {
        const struct ks_slot *s = &db->slots->slot[entry_slot(e)];
        uint32_t i = s->cap ? cell_home(e, s->cap) : 0;
        for (uint32_t n = 0; n < s->cap && s->cell[i] && s->cell[i] != e; n++)
            i = cell_next(s, i);
        if (s->cap == 0 || s->cell[i] != e) {
            *why = "entry missing from its slot's set";
            return -1;
        }
    }
    return 0;
}
