/*
 * keyspace.c - entries, key order, deadlines and order statistics (see
 * keyspace.h for the ownership rules).
 *
 * Invariants, checked by ks_check():
 *  - db->keys is a valid red-black tree in strictly increasing ks_keycmp order,
 *    and every node's size is 1 + the sizes of its children;
 *  - db->index holds exactly the entries of db->keys, at their current
 *    addresses (entry_move tells it of every move);
 *  - in cluster mode db->slots holds them too, each in its hash slot's set
 *    (slotindex.h), and outside it db->slots is NULL;
 *  - an entry has KS_HAS_EXPIRE exactly when it owns a struct ks_expire, which is
 *    linked in db->expires (unless the entry was cut: ks_cut) and points back
 *    at the entry;
 *  - db->expires is ordered by deadline and holds db->expires_count records;
 *    every record's size is 1 + the sizes of its children.
 */
#include "keyspace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keyaccess.h"
#include "keyslot.h"
#include "mem.h"
#include "rbtree_augmented.h"
#include "rbtree_order.h"

RB_DECLARE_ORDER(ks_order, struct ks_entry, node, size)
/* Counted deadlines: how many are due is one descent (ks_due_count). */
RB_DECLARE_ORDER(expire_order, struct ks_expire, node, size)

static ks_value_free_fn *value_free[KS_TYPE_COUNT];
static ks_value_effort_fn *value_effort[KS_TYPE_COUNT];
static ks_release_fn *release_hook;
static ks_expired_fn *expired_hook;
static ks_change_fn *change_hook;
static enum ks_expiry expiry_mode;

void ks_register_type(enum ks_type type, ks_value_free_fn *free_fn, ks_value_effort_fn *effort)
{
    value_free[type] = free_fn;
    value_effort[type] = effort;
}

void ks_on_release(ks_release_fn *fn)
{
    release_hook = fn;
}

void ks_value_free(enum ks_type type, void *value)
{
    if (type != KS_STRING && value_free[type])
        value_free[type](value);
}

size_t ks_value_effort(enum ks_type type, const void *value)
{
    return type != KS_STRING && value_effort[type] ? value_effort[type](value) : 1;
}

static const struct ka_clock *access_clock;

void ks_access_clock(const struct ka_clock *clock)
{
    access_clock = clock;
}

const struct ka_clock *ks_access_clock_in_use(void)
{
    return access_clock;
}

void ks_on_expired(ks_expired_fn *fn)
{
    expired_hook = fn;
}

void ks_on_change(ks_change_fn *fn)
{
    change_hook = fn;
}

void ks_changing(struct db *db)
{
    if (change_hook)
        change_hook(db);
}

void ks_set_expiry(enum ks_expiry mode)
{
    expiry_mode = mode;
}

enum ks_expiry ks_expiry(void)
{
    return expiry_mode;
}

int ks_expiry_paused(void)
{
    return expiry_mode != KS_EXPIRY_ON;
}

/* Tells the hook (due: lazy or active expiry), deletes e. */
static void expire_entry(struct db *db, struct ks_entry *e, int due)
{
    if (expired_hook)
        expired_hook(db, ks_key(e), ks_klen(e), due);
    ks_delete_how(db, e, KS_FREE_EXPIRE);
}

void ks_expire_entry(struct db *db, struct ks_entry *e)
{
    expire_entry(db, e, 0);
}

/* n (1..8) bytes at p as a number that orders as the bytes do: n >= 4 reads
 * the first and the last 4 (they overlap unless n is 8), n < 4 the first,
 * middle and last byte (all of them). Two runs of n bytes give numbers in
 * their memcmp order: up to the first difference both read the same bytes. */
static inline uint64_t key_word(const unsigned char *p, size_t n)
{
    uint32_t hi, lo;
    if (n < 4)
        return (uint64_t)p[0] << 16 | (uint64_t)p[n / 2] << 8 | p[n - 1];
    memcpy(&hi, p, sizeof(hi));
    memcpy(&lo, p + n - 4, sizeof(lo));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    hi = __builtin_bswap32(hi);
    lo = __builtin_bswap32(lo);
#endif
    return (uint64_t)hi << 32 | lo;
}

static inline uint64_t key_word8(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* ks_keycmp inline, for the descents: a tree search compares ~20 keys, and
 * memcmp's call and length dispatch cost more than comparing short keys
 * (the common case) a word at a time. Whole 8-byte words first; then the
 * last up to 8 bytes, as one word that may overlap the previous one (the
 * bytes it repeats compared equal). */
static inline int keycmp_inline(const char *a, size_t alen, const char *b, size_t blen)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    size_t n = alen < blen ? alen : blen;
    uint64_t u = 0, v = 0;
    if (n > 8) {
        size_t i = 0;
        for (; i + 8 < n; i += 8) {
            u = key_word8(x + i);
            v = key_word8(y + i);
            if (u != v)
                return u < v ? -1 : 1;
        }
        u = key_word8(x + n - 8);
        v = key_word8(y + n - 8);
    } else if (n > 0) {
        u = key_word(x, n);
        v = key_word(y, n);
    }
    if (u != v)
        return u < v ? -1 : 1;
    return (alen > blen) - (alen < blen);
}

int ks_keycmp(const char *a, size_t alen, const char *b, size_t blen)
{
    return keycmp_inline(a, alen, b, blen);
}

struct keyspace *ks_new(int databases)
{
    struct keyspace *ks = xmalloc(sizeof(*ks));
    ks->count = databases;
    ks->dbs = xcalloc((size_t)databases, sizeof(*ks->dbs));
    for (int i = 0; i < databases; i++) {
        /* A secret seed per index: clients cannot pick keys that collide. */
        uint64_t seed[2];
        arc4random_buf(seed, sizeof(seed));
        ks->dbs[i].id = i;
        ks->dbs[i].keys = RB_ROOT;
        kix_init(&ks->dbs[i].index, seed);
        ks->dbs[i].expires = RB_ROOT_CACHED;
    }
    return ks;
}

void ks_free(struct keyspace *ks)
{
    if (!ks)
        return;
    for (int i = 0; i < ks->count; i++)
        ks_flush(&ks->dbs[i]);
    xfree(ks->dbs);
    xfree(ks);
}

static struct ks_expire *entry_expire(const struct ks_entry *e)
{
    struct ks_expire *x;
    memcpy(&x, e->data + ks_expire_offset(e), sizeof(x));
    return x;
}

/* Bytes before the deadline slot of a new entry for a key of klen bytes and
 * a value of vlen: the lengths the header's short fields cannot hold. */
static size_t lengths_bytes(size_t klen, size_t vlen)
{
    return (klen >= KS_KLEN_LONG ? sizeof(uint32_t) : 0) +
           (vlen >= KS_VLEN_LONG ? sizeof(uint32_t) : 0);
}

/* Stores a string's length in an entry already laid out for it (with the
 * long length's slot exactly when vlen >= KS_VLEN_LONG). */
static void entry_store_vlen(struct ks_entry *e, size_t vlen)
{
    uint32_t len = (uint32_t)vlen;
    if (!(e->flags & KS_LONG_VALUE)) {
        e->vlen = len;
        return;
    }
    e->vlen = KS_VLEN_LONG;
    memcpy(e->data + ks_vlen_offset(e), &len, sizeof(len));
}

/* Sets the header of a new entry: its type, no flags, the key's length and
 * the value's (in the data when too long for the header), access state 0. */
static void entry_set_header(struct ks_entry *e, enum ks_type type, size_t klen, size_t vlen)
{
    e->type = type;
    e->flags = 0;
    e->access = access_clock ? ka_initial(access_clock) : 0;
    if (klen < KS_KLEN_LONG) {
        e->klen = (uint32_t)klen;
    } else {
        uint32_t len = (uint32_t)klen;
        e->klen = KS_KLEN_LONG;
        e->flags |= KS_LONG_KEY;
        memcpy(e->data, &len, sizeof(len));
    }
    if (vlen >= KS_VLEN_LONG)
        e->flags |= KS_LONG_VALUE;
    entry_store_vlen(e, vlen);
}

/* Adds or removes the long value length's slot, so that e is laid out for a
 * string of vlen bytes, keeping the first keep bytes of the value. The
 * deadline's pointer, the key and those bytes shift by the slot; e must have
 * room for it. */
static void entry_fit_vlen_slot(struct ks_entry *e, size_t vlen, size_t keep)
{
    int want = vlen >= KS_VLEN_LONG, has = (e->flags & KS_LONG_VALUE) != 0;
    if (want == has)
        return;
    char *slot = e->data + ks_vlen_offset(e);
    size_t tail = ((e->flags & KS_HAS_EXPIRE) ? sizeof(struct ks_expire *) : 0) + ks_klen(e) + keep;
    if (want) {
        memmove(slot + sizeof(uint32_t), slot, tail);
        e->flags |= KS_LONG_VALUE;
    } else {
        memmove(slot, slot + sizeof(uint32_t), tail);
        e->flags &= ~KS_LONG_VALUE & 0xfu;
    }
    entry_store_vlen(e, keep);
}

int64_t ks_get_expire(const struct ks_entry *e)
{
    return (e->flags & KS_HAS_EXPIRE) ? entry_expire(e)->when : -1;
}

/* Bytes an entry needs for a value of vlen bytes, with key_offset bytes
 * before its key (ks_key_offset). */
static size_t entry_bytes(size_t key_offset, size_t klen, size_t vlen)
{
    return offsetof(struct ks_entry, data) + key_offset + klen + vlen;
}

/* Starts loading the bytes of n a descent compares: its links and lengths
 * at the start of the entry, and the end of its key when that is about klen
 * long (the usual case: keys alike in shape) and there is no deadline slot.
 * A prefetch never faults, so guesses wrong on either count cost nothing
 * but the load. */
static inline void prefetch_node(const struct rb_node *n, size_t klen)
{
    if (!n)
        return;
    const char *p = (const char *)ks_entry_of(n);
    __builtin_prefetch(p);
    __builtin_prefetch(p + offsetof(struct ks_entry, data) + klen);
}

/* Links e, whose key the index has just reported absent (so no entry of the
 * tree compares equal), into db->keys and the index; h is its key's hash. */
static void entry_link(struct db *db, struct ks_entry *e, uint64_t h)
{
    ks_will_change(db);
    struct rb_node **link = &db->keys.rb_node, *parent = NULL;
    while (*link) {
        const struct ks_entry *at = ks_entry_of(*link);
        parent = *link;
        /* Each level below the cached top of a big tree is a cache miss,
         * and the next one cannot start until this key is compared; start
         * loading both children now so their misses overlap the compare
         * (whose key may be a second line of this entry). */
        prefetch_node(parent->rb_left, ks_klen(e));
        prefetch_node(parent->rb_right, ks_klen(e));
        link = keycmp_inline(ks_key(e), ks_klen(e), ks_key(at), ks_klen(at)) < 0 ? &parent->rb_left
                                                                        : &parent->rb_right;
    }
    ks_order_insert(&e->node, parent, link, &db->keys);
    kix_insert(&db->index, e, h);
    if (__builtin_expect(ks_slots_on, 0))
        ks_slots_link(db, e);
}

/* kix_find that sees no cut entry: one it meets leaves the index, so the
 * index never holds two entries of one key (a new one is added only after
 * a lookup found its key absent). */
static struct ks_entry *index_find(struct db *db, const char *key, size_t klen, uint64_t h)
{
    struct ks_entry *e = kix_find(&db->index, key, klen, h);
    if (__builtin_expect(db->cuts != NULL, 0) && e && ks_entry_cut(db, e)) {
        kix_remove(&db->index, e);
        e = NULL;
    }
    return e;
}

struct ks_entry *ks_find(const struct db *db, const char *key, size_t klen)
{
    struct ks_entry *e = kix_find(&db->index, key, klen, kix_hash(&db->index, key, klen));
    if (__builtin_expect(db->cuts != NULL, 0) && e && ks_entry_cut(db, e))
        return NULL;
    return e;
}

struct ks_entry *ks_lookup_probe(struct db *db, const char *key, size_t klen, int64_t now_ms,
                                 struct ks_probe *p)
{
    kix_step(&db->index); /* so a resize finishes under a read-only load too */
    p->key = key;
    p->klen = klen;
    p->hash = kix_hash(&db->index, key, klen);
    struct ks_entry *e = index_find(db, key, klen, p->hash);
    if (e && (e->flags & KS_HAS_EXPIRE) && entry_expire(e)->when <= now_ms &&
        expiry_mode == KS_EXPIRY_ON) {
        expire_entry(db, e, 1);
        db->expired++;
        e = NULL;
    }
    p->entry = e;
    return e;
}

struct ks_entry *ks_lookup(struct db *db, const char *key, size_t klen, int64_t now_ms)
{
    struct ks_probe p;
    return ks_lookup_probe(db, key, klen, now_ms, &p);
}

/* Moves e into a block of `bytes` (copying what fits) and relinks the copy in
 * e's place. The tree's links, the index's slot and the deadline's back
 * pointer go to the new address; e is freed. */
static struct ks_entry *entry_move(struct db *db, struct ks_entry *e, size_t bytes)
{
    size_t used = entry_bytes(ks_key_offset(e), ks_klen(e), ks_slen(e));
    struct ks_entry *moved = xmalloc(bytes);
    memcpy(moved, e, used < bytes ? used : bytes);
    ks_order_replace(&e->node, &moved->node, &db->keys);
    kix_replace(&db->index, e, moved);
    if (moved->flags & KS_HAS_EXPIRE)
        entry_expire(moved)->entry = moved;
    if (__builtin_expect(ks_slots_on, 0))
        ks_slots_moved(db, e, moved);
    xfree(e);
    return moved;
}

static struct ks_entry *entry_new(const char *key, size_t klen, enum ks_type type, size_t vlen)
{
    struct ks_entry *e = xmalloc(entry_bytes(lengths_bytes(klen, vlen), klen, vlen));
    entry_set_header(e, type, klen, vlen);
    memcpy(e->data + ks_key_offset(e), key, klen);
    return e;
}

/* The value of e, which leaves the keyspace, to the release hook (which may
 * free it later on another thread), or freed now. */
static void value_release(struct ks_entry *e, enum ks_free_how how)
{
    if (e->type != KS_STRING)
        ks_value_release((enum ks_type)e->type, ks_ptr(e), how);
}

void ks_value_release(enum ks_type type, void *value, enum ks_free_how how)
{
    if (release_hook && how != KS_FREE_SYNC)
        release_hook(type, value, how);
    else
        ks_value_free(type, value);
}

/* Takes e's deadline record out of the expiry tree; e still points at it. */
static void expire_detach(struct db *db, struct ks_entry *e)
{
    rb_erase_augmented_cached(&entry_expire(e)->node, &db->expires, &expire_order_callbacks);
    db->expires_count--;
}

static void expire_unlink(struct db *db, struct ks_entry *e)
{
    expire_detach(db, e);
    xfree(entry_expire(e));
}

struct ks_entry *ks_set_string(struct db *db, const char *key, size_t klen, const char *val,
                               size_t vlen, int keep_ttl)
{
    struct ks_probe p = {key, klen, kix_hash(&db->index, key, klen), NULL};
    p.entry = index_find(db, key, klen, p.hash);
    return ks_set_string_probed(db, &p, val, vlen, keep_ttl);
}

struct ks_entry *ks_set_string_probed(struct db *db, const struct ks_probe *p, const char *val,
                                      size_t vlen, int keep_ttl)
{
    ks_will_change(db);
    struct ks_entry *old = p->entry;
    size_t klen = p->klen;
    struct ks_entry *e;

    /* Only a new key descends the tree, to find where it goes. */
    if (!old) {
        e = entry_new(p->key, klen, KS_STRING, vlen);
        memcpy(ks_str(e), val, vlen);
        entry_link(db, e, p->hash);
        return e;
    }
    value_release(old, KS_FREE_SERVER); /* before the key moves: it reads the value's pointer */
    if (!keep_ttl && (old->flags & KS_HAS_EXPIRE)) {
        expire_unlink(db, old);
        /* Drop the deadline slot: the key moves down into it. */
        char *slot = old->data + ks_expire_offset(old);
        memmove(slot, slot + sizeof(struct ks_expire *), klen);
        old->flags &= ~KS_HAS_EXPIRE & 0xfu;
    }
    old->type = KS_STRING;
    if (old->flags & KS_LONG_VALUE)
        entry_fit_vlen_slot(old, 0, 0);
    old->vlen = 0;
    e = ks_string_resize(db, old, vlen);
    memcpy(ks_str(e), val, vlen);
    return e;
}

struct ks_entry *ks_add_ptr(struct db *db, const char *key, size_t klen, enum ks_type type,
                            void *value)
{
    uint64_t h = kix_hash(&db->index, key, klen);
    if (index_find(db, key, klen, h))
        abort(); /* callers check first: two entries for one key would break the tree */
    struct ks_entry *e = entry_new(key, klen, type, sizeof(void *));
    memcpy(ks_str(e), &value, sizeof(value));
    entry_link(db, e, h);
    return e;
}

struct ks_entry *ks_string_resize(struct db *db, struct ks_entry *e, size_t vlen)
{
    ks_will_change(db);
    size_t old = ks_slen(e), keep = old < vlen ? old : vlen;
    size_t slot_now = (e->flags & KS_LONG_VALUE) ? sizeof(uint32_t) : 0;
    size_t slot_then = vlen >= KS_VLEN_LONG ? sizeof(uint32_t) : 0;
    size_t key_offset = ks_key_offset(e) - slot_now + slot_then;
    size_t need = entry_bytes(key_offset, ks_klen(e), vlen);
    size_t have = xsize(e);

    /* A value leaving the long lengths gives up the slot before any move,
     * one entering them takes it after (when there is room). */
    if (slot_then < slot_now)
        entry_fit_vlen_slot(e, vlen, keep);
    /* Growing past the block adds half again, so a run of APPENDs costs
     * amortised O(1) per byte; shrinking to under half gives memory back. */
    if (need > have) {
        size_t want = need;
        if (old > 0)
            want = entry_bytes(key_offset, ks_klen(e), vlen + vlen / 2);
        e = entry_move(db, e, want);
    } else if (need < have / 2 && have > 256) {
        entry_store_vlen(e, keep);
        e = entry_move(db, e, need);
    }
    if (slot_then > slot_now)
        entry_fit_vlen_slot(e, vlen, keep);
    entry_store_vlen(e, vlen);
    return e;
}

void ks_delete(struct db *db, struct ks_entry *e)
{
    ks_delete_how(db, e, KS_FREE_SERVER);
}

void ks_delete_how(struct db *db, struct ks_entry *e, enum ks_free_how how)
{
    ks_will_change(db);
    kix_remove(&db->index, e);
    if (__builtin_expect(ks_slots_on, 0))
        ks_slots_unlink(db, e);
    ks_order_erase(&e->node, &db->keys);
    if (e->flags & KS_HAS_EXPIRE)
        expire_unlink(db, e);
    value_release(e, how);
    xfree(e);
}

static void expire_link(struct db *db, struct ks_expire *x)
{
    struct rb_node **link = &db->expires.rb_root.rb_node, *parent = NULL;
    int leftmost = 1;
    while (*link) {
        parent = *link;
        if (x->when < rb_entry(parent, struct ks_expire, node)->when) {
            link = &parent->rb_left;
        } else {
            link = &parent->rb_right;
            leftmost = 0;
        }
    }
    /* The path down gains the record before the rotations, which then only
     * move sizes around (as expire_order_insert, with the leftmost cached). */
    for (struct rb_node *up = parent; up; up = rb_parent(up))
        rb_entry(up, struct ks_expire, node)->size++;
    x->size = 1;
    rb_link_node(&x->node, parent, link);
    rb_insert_augmented_cached(&x->node, &db->expires, leftmost, &expire_order_callbacks);
}

size_t ks_due_count(const struct db *db, int64_t now_ms)
{
    size_t n = 0;
    for (const struct rb_node *at = db->expires.rb_root.rb_node; at;) {
        if (rb_entry(at, struct ks_expire, node)->when <= now_ms) {
            n += expire_order_passed(at);
            at = at->rb_right;
        } else {
            at = at->rb_left;
        }
    }
    return n;
}

/* One key to sort: the first 16 bytes of its key as two big-endian words
 * (zero-padded), so most comparisons never touch the entry. */
struct ks_bulk_key {
    uint64_t w0, w1;
    struct ks_entry *e;
};

/* Any order, from the run's sort until the merge takes the entry: its tree
 * node holds the next key of its sorted run (e NULL after the last). */
_Static_assert(sizeof(struct rb_node) >= sizeof(struct ks_bulk_key),
               "a sorted run's next key fits in an entry's tree node");

/* In order, while the bulk lasts, an entry's tree node (unused until
 * finish) holds the next entry added. */
static void link_store(struct ks_entry *e, struct ks_entry *next)
{
    memcpy(&e->node, &next, sizeof(next));
}

static void bulk_begin(struct ks_bulk *b, struct db *db, int any_order)
{
    ks_will_change(db);
    ks_cut_finish(db); /* the bulk adds to the index without looking up */
    *b = (struct ks_bulk){.db = db, .any_order = any_order, .run_max = KS_BULK_RUN};
}

void ks_bulk_begin(struct ks_bulk *b, struct db *db)
{
    bulk_begin(b, db, 0);
}

void ks_bulk_begin_any_order(struct ks_bulk *b, struct db *db)
{
    bulk_begin(b, db, 1);
}

static uint64_t prefix_word(const char *key, size_t klen, size_t at)
{
    unsigned char b[8] = {0};
    if (klen > at)
        memcpy(b, key + at, klen - at < 8 ? klen - at : 8);
    return key_word8(b);
}

static int sort_key_cmp(const void *pa, const void *pb)
{
    const struct ks_bulk_key *a = pa, *b = pb;
    if (a->w0 != b->w0)
        return a->w0 < b->w0 ? -1 : 1;
    if (a->w1 != b->w1)
        return a->w1 < b->w1 ? -1 : 1;
    return keycmp_inline(ks_key(a->e), ks_klen(a->e), ks_key(b->e), ks_klen(b->e));
}

/* Byte d (0..15) of k's 16-byte prefix. */
static inline unsigned prefix_byte(const struct ks_bulk_key *k, unsigned d)
{
    uint64_t w = d < 8 ? k->w0 : k->w1;
    return (unsigned)(w >> (56 - 8 * (d & 7))) & 0xffu;
}

/* Below this many entries a run is finished by insertion sort. */
#define RADIX_SMALL 32

static void insertion_sort(struct ks_bulk_key *k, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct ks_bulk_key x = k[i];
        size_t j = i;
        while (j > 0 && sort_key_cmp(&x, &k[j - 1]) < 0) {
            k[j] = k[j - 1];
            j--;
        }
        k[j] = x;
    }
}

/* Sorts k[0, n), whose prefixes agree on their first d bytes, by a
 * most-significant-byte radix sort through tmp (n entries): a pass per byte
 * that differs instead of log2(n) comparison passes, and the keys of an RDB
 * file ("user:1234") share long prefixes that one counting pass skips.
 * Recursion is at most 16 deep; past the prefix, the full comparison. */
static void radix_sort(struct ks_bulk_key *k, struct ks_bulk_key *tmp, size_t n, unsigned d)
{
    for (;;) {
        if (n < RADIX_SMALL) {
            insertion_sort(k, n);
            return;
        }
        if (d == 16) {
            qsort(k, n, sizeof(*k), sort_key_cmp);
            return;
        }
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[prefix_byte(&k[i], d)]++;
        if (count[prefix_byte(&k[0], d)] == n) { /* one bucket: the next byte */
            d++;
            continue;
        }
        size_t start[256], at = 0;
        for (unsigned c = 0; c < 256; c++) {
            start[c] = at;
            at += count[c];
        }
        for (size_t i = 0; i < n; i++)
            tmp[start[prefix_byte(&k[i], d)]++] = k[i];
        memcpy(k, tmp, n * sizeof(*k));
        at = 0;
        for (unsigned c = 0; c < 256; c++) {
            if (count[c] > 1)
                radix_sort(k + at, tmp + at, count[c], d + 1);
            at += count[c];
        }
        return;
    }
}

/* Sorts the keys in b->run into a sorted run: its first key goes to
 * b->runs, and each entry's node gets the key after it, so the buffer is
 * free for the next keys. The stores miss the cache, but nothing waits on
 * them: they overlap in the store buffer, and the entries were added
 * lately (a run's are a few MB), so many are still in the cache. */
static void run_close(struct ks_bulk *b)
{
    if (!b->run_n)
        return;
    struct ks_bulk_key *k = b->run;
    radix_sort(k, b->tmp, b->run_n, 0);
    if (b->runs_n == b->runs_cap) {
        b->runs_cap = b->runs_cap ? b->runs_cap * 2 : 16;
        b->runs = xrealloc(b->runs, b->runs_cap * sizeof(*b->runs));
    }
    b->runs[b->runs_n++] = k[0];
    for (size_t i = 0; i + 1 < b->run_n; i++)
        memcpy(&k[i].e->node, &k[i + 1], sizeof(*k));
    memcpy(&k[b->run_n - 1].e->node, &(struct ks_bulk_key){0, 0, NULL}, sizeof(*k));
    b->run_n = 0;
}

/* ks_bulk_add with the key's hash h already computed. */
static struct ks_entry *bulk_add_hashed(struct ks_bulk *b, const char *key, size_t klen,
                                        uint64_t h, enum ks_type type, const void *value,
                                        size_t vlen, int64_t when_ms)
{
    size_t expire_bytes = when_ms >= 0 ? sizeof(struct ks_expire *) : 0;
    size_t value_bytes = type == KS_STRING ? vlen : sizeof(value);
    /* Built with its deadline slot at once: ks_set_expire could move it. */
    struct ks_entry *e =
        xmalloc(entry_bytes(lengths_bytes(klen, value_bytes) + expire_bytes, klen, value_bytes));
    entry_set_header(e, type, klen, value_bytes);
    if (when_ms >= 0) {
        struct ks_expire *x = xmalloc(sizeof(*x));
        x->entry = e;
        x->when = when_ms;
        memcpy(e->data + ks_expire_offset(e), &x, sizeof(x));
        e->flags |= KS_HAS_EXPIRE;
        expire_link(b->db, x);
        b->db->expires_count++;
    }
    memcpy(e->data + ks_key_offset(e), key, klen);
    if (type == KS_STRING)
        memcpy(ks_str(e), value, vlen);
    else
        memcpy(ks_str(e), &value, sizeof(value));
    kix_insert(&b->db->index, e, h);
    if (__builtin_expect(ks_slots_on, 0))
        ks_slots_link(b->db, e);
    b->n++;
    if (!b->any_order) { /* chained through the entries, in the order added */
        if (b->tail)
            link_store(b->tail, e);
        else
            b->first = e;
        link_store(e, NULL);
        b->tail = e;
        return e;
    }
    if (!b->run)
        b->run = xmalloc(b->run_max * sizeof(*b->run));
    if (!b->tmp)
        b->tmp = xmalloc(b->run_max * sizeof(*b->tmp));
    b->run[b->run_n++] = (struct ks_bulk_key){prefix_word(key, klen, 0), prefix_word(key, klen, 8), e};
    if (b->run_n == b->run_max)
        run_close(b);
    return e;
}

struct ks_entry *ks_bulk_add(struct ks_bulk *b, const char *key, size_t klen, enum ks_type type,
                             const void *value, size_t vlen, int64_t when_ms)
{
    return bulk_add_hashed(b, key, klen, kix_hash(&b->db->index, key, klen), type, value, vlen,
                           when_ms);
}

uint64_t ks_bulk_prefetch(const struct db *db, const char *key, size_t klen)
{
    const struct kix_table *t = &db->index.cur;
    uint64_t h = kix_hash(&db->index, key, klen);
    if (t->cap)
        __builtin_prefetch(&t->slots[kix_home(t, h)]);
    return h;
}

struct ks_entry *ks_bulk_add_new(struct ks_bulk *b, const char *key, size_t klen, uint64_t h,
                                 enum ks_type type, const void *value, size_t vlen,
                                 int64_t when_ms)
{
    if (kix_find(&b->db->index, key, klen, h))
        return NULL;
    return bulk_add_hashed(b, key, klen, h, type, value, vlen, when_ms);
}

void ks_reserve(struct db *db, size_t n)
{
    kix_reserve(&db->index, n);
}

/* Entries the merge takes at a time, before any is written. */
#define MERGE_BATCH 64

/* The entries in key order: in order, the chain through the entries; else
 * the merge of the sorted runs, a binary min-heap of the runs' next keys,
 * taken MERGE_BATCH at a time into batch. */
struct merge {
    struct ks_entry *chain;
    struct ks_bulk_key *heap;
    size_t n;
    struct ks_entry *batch[MERGE_BATCH];
    size_t batch_at, batch_n;
    unsigned deepest; /* the tree's deepest level, whose nodes are red */
};

static void heap_down(struct merge *m, size_t at)
{
    struct ks_bulk_key x = m->heap[at];
    for (;;) {
        size_t c = 2 * at + 1;
        if (c >= m->n)
            break;
        if (c + 1 < m->n && sort_key_cmp(&m->heap[c + 1], &m->heap[c]) < 0)
            c++;
        if (sort_key_cmp(&m->heap[c], &x) >= 0)
            break;
        m->heap[at] = m->heap[c];
        at = c;
    }
    m->heap[at] = x;
}

/* The least run's next entry, which it gives up; the run's next key is read
 * from the entry's node, which is then free for merge_link. That read would
 * be a miss the heap waits on, so each entry is prefetched when it becomes
 * its run's next: about as many takes as there are runs pass before it is
 * taken. */
static struct ks_entry *heap_take(struct merge *m)
{
    struct ks_bulk_key *r = &m->heap[0];
    struct ks_entry *e = r->e;
    memcpy(r, &e->node, sizeof(*r));
    if (r->e)
        __builtin_prefetch(&r->e->node);
    else
        *r = m->heap[--m->n];
    if (m->n > 1)
        heap_down(m, 0);
    return e;
}

/* The next entry in key order. The merge's comparisons branch on the keys
 * and mispredict, and each entry written is a cache and TLB miss: taken
 * one at a time, each miss was waited alone (a third of a 10M-key load).
 * So a batch is taken first and written after, where nothing but the
 * stores waits on the misses, which overlap in the store buffer. Not
 * prefetched: on the test VM a prefetch that misses the TLB waits for the
 * page walk, and the batch took 40% longer with one (bench/README.md). */
static struct ks_entry *merge_pop(struct merge *m)
{
    struct ks_entry *e;
    if (!m->heap) {
        e = m->chain;
        memcpy(&m->chain, &e->node, sizeof(m->chain));
        return e;
    }
    if (m->batch_at == m->batch_n) {
        m->batch_at = m->batch_n = 0;
        while (m->batch_n < MERGE_BATCH && m->n) {
            e = heap_take(m);
            m->batch[m->batch_n++] = e;
        }
    }
    return m->batch[m->batch_at++];
}

static int level_color(const struct merge *m, unsigned depth)
{
    return depth == m->deepest && depth ? RB_RED : RB_BLACK;
}

/* Links the next n keys of the merge as a subtree at depth, in key order as
 * they come: the left half, the middle entry, the right half, so subtree
 * sizes differ by at most one and every level but the deepest is full. All
 * black but the deepest level, red, so every path has the same black count
 * (the deepest level is never the root's, so the root is black). A node's
 * children are linked to it once it is known; most were taken just before
 * it and are still in the cache. */
static struct rb_node *merge_link(struct merge *m, size_t n, unsigned depth)
{
    if (!n)
        return NULL;
    struct rb_node *left = merge_link(m, n / 2, depth + 1);
    struct ks_entry *e = merge_pop(m); /* in order, its link is read: the node is free */
    struct rb_node *right;
    e->node.rb_left = left;
    if (left)
        rb_set_parent_color(left, &e->node, level_color(m, depth + 1));
    right = merge_link(m, n - n / 2 - 1, depth + 1);
    e->node.rb_right = right;
    if (right)
        rb_set_parent_color(right, &e->node, level_color(m, depth + 1));
    e->size = (uint32_t)n;
    return &e->node;
}

void ks_bulk_finish(struct ks_bulk *b)
{
    if (b->any_order)
        run_close(b);
    xfree(b->run);
    xfree(b->tmp);
    b->run = b->tmp = NULL;
    struct merge m = {.chain = b->first};
    if (b->any_order) { /* the runs' first keys become the heap */
        m.heap = b->runs;
        m.n = b->runs_n;
        for (size_t i = m.n; i-- > 0;)
            __builtin_prefetch(&m.heap[i].e->node);
        for (size_t i = m.n / 2; i-- > 0;)
            heap_down(&m, i);
    }
    while (((size_t)2 << m.deepest) - 1 < b->n) /* a full tree of depth d holds 2^(d+1)-1 */
        m.deepest++;
    struct rb_node *root = merge_link(&m, b->n, 0);
    if (root)
        rb_set_parent_color(root, NULL, RB_BLACK);
    b->db->keys.rb_node = root;
    xfree(b->runs);
    b->runs = NULL;
    b->n = b->runs_n = b->runs_cap = b->run_n = 0;
    b->first = b->tail = NULL;
}

struct ks_entry *ks_set_expire(struct db *db, struct ks_entry *e, int64_t when_ms)
{
    ks_will_change(db);
    struct ks_expire *x;
    if (e->flags & KS_HAS_EXPIRE) {
        x = entry_expire(e);
        rb_erase_augmented_cached(&x->node, &db->expires, &expire_order_callbacks);
    } else {
        size_t need = entry_bytes(ks_key_offset(e) + sizeof(x), ks_klen(e), ks_slen(e));
        size_t payload = ks_klen(e) + ks_slen(e);
        if (need > xsize(e))
            e = entry_move(db, e, need);
        char *slot = e->data + ks_expire_offset(e);
        memmove(slot + sizeof(x), slot, payload);
        e->flags |= KS_HAS_EXPIRE;
        x = xmalloc(sizeof(*x));
        x->entry = e;
        memcpy(slot, &x, sizeof(x));
        db->expires_count++;
    }
    x->when = when_ms;
    expire_link(db, x);
    return e;
}

int ks_persist(struct db *db, struct ks_entry *e)
{
    ks_will_change(db);
    if (!(e->flags & KS_HAS_EXPIRE))
        return 0;
    expire_unlink(db, e);
    char *slot = e->data + ks_expire_offset(e);
    memmove(slot, slot + sizeof(struct ks_expire *), ks_klen(e) + ks_slen(e));
    e->flags &= ~KS_HAS_EXPIRE & 0xfu;
    return 1;
}

size_t ks_expire_due(struct db *db, int64_t now_ms, size_t max)
{
    size_t n = 0;
    while (n < max && expiry_mode == KS_EXPIRY_ON) {
        struct rb_node *first = rb_first_cached(&db->expires);
        if (!first)
            break;
        struct ks_expire *x = rb_entry(first, struct ks_expire, node);
        if (x->when > now_ms)
            break;
        expire_entry(db, x->entry, 1);
        db->expired++;
        n++;
    }
    return n;
}

/* ---- range deletion: cut now, free later (ks_cut) ---- */

struct ks_cut {
    struct ks_cut *next;
    struct rb_root keys;  /* the cut entries, as a tree of their own */
    struct rb_node *at;   /* the next to free, in post-order */
};

/* Frees one cut entry: its index slot if a lookup has not taken it yet,
 * its slot set's cell, its deadline record (out of the expiry tree since
 * the cut), its value (to the release hook), its block. */
static void cut_entry_free(struct db *db, struct ks_entry *e)
{
    if (kix_contains(&db->index, e))
        kix_remove(&db->index, e);
    if (__builtin_expect(ks_slots_on, 0))
        ks_slots_unlink_cut(db, e);
    if (e->flags & KS_HAS_EXPIRE)
        xfree(entry_expire(e));
    value_release(e, KS_FREE_SERVER);
    xfree(e);
}

/* Frees a cut's entries without their index (which is being freed whole). */
static void cut_free_all(struct ks_cut *cut)
{
    while (cut->at) {
        struct ks_entry *e = ks_entry_of(cut->at);
        cut->at = rb_next_postorder(cut->at); /* reads only e's parent word */
        if (e->flags & KS_HAS_EXPIRE)
            xfree(entry_expire(e));
        if (e->type != KS_STRING)
            ks_value_free(e->type, ks_ptr(e));
        xfree(e);
    }
    xfree(cut);
}

/* A db emptied at once (FLUSHALL, shutdown): its cuts go with it. */
static void cuts_free(struct db *db)
{
    while (db->cuts) {
        struct ks_cut *cut = db->cuts;
        db->cuts = cut->next;
        cut_free_all(cut);
    }
    db->cut_keys = 0;
}

/* Frees every entry of a tree detached from its db, with values and
 * deadline records (whose tree is dropped whole, not unlinked). */
static void entries_free(struct rb_root *keys)
{
    struct ks_entry *e, *tmp;
    rbtree_postorder_for_each_entry_safe(e, tmp, keys, node) {
        if (e->flags & KS_HAS_EXPIRE)
            xfree(entry_expire(e));
        if (e->type != KS_STRING) /* a string has no pointer to read */
            ks_value_free(e->type, ks_ptr(e));
        xfree(e);
    }
    *keys = RB_ROOT;
}

/* Leaves db empty, as a new one with its index's seed. */
static void db_empty(struct db *db)
{
    uint64_t seed[2] = {db->index.seed[0], db->index.seed[1]};
    db->keys = RB_ROOT;
    kix_init(&db->index, seed);
    db->slots = NULL;
    db->expires = RB_ROOT_CACHED;
    db->expires_count = 0;
}

void ks_flush(struct db *db)
{
    ks_will_change(db);
    cuts_free(db);
    entries_free(&db->keys);
    kix_clear(&db->index);
    ks_slots_clear(db);
    db_empty(db);
}

struct ks_detached {
    struct rb_root keys;
    struct kix index;
    struct ks_slots *slots;
    struct ks_cut *cuts;
    size_t count;
};

struct ks_detached *ks_detach_all(struct db *db)
{
    ks_will_change(db);
    struct ks_detached *d = xmalloc(sizeof(*d));
    d->count = ks_count(db) + db->cut_keys;
    d->cuts = db->cuts; /* their entries go with the index that may hold them */
    db->cuts = NULL;
    db->cut_keys = 0;
    d->keys = db->keys;
    d->index = db->index;
    d->slots = db->slots;
    db_empty(db);
    return d;
}

size_t ks_detached_count(const struct ks_detached *d)
{
    return d->count;
}

void ks_detached_free(struct ks_detached *d)
{
    if (!d)
        return;
    entries_free(&d->keys);
    while (d->cuts) {
        struct ks_cut *cut = d->cuts;
        d->cuts = cut->next;
        cut_free_all(cut);
    }
    kix_clear(&d->index);
    ks_slots_free(d->slots);
    xfree(d);
}

/* Whether every key from first's to last's has one hash tag, so one slot:
 * their common prefix holds it. */
static int cut_one_slot(const struct ks_entry *first, const struct ks_entry *last)
{
    size_t n = 0, max = ks_klen(first) < ks_klen(last) ? ks_klen(first) : ks_klen(last);
    while (n < max && ks_key(first)[n] == ks_key(last)[n])
        n++;
    return key_prefix_tagged(ks_key(first), n);
}

/* The deadline records of cut keys leave the expiry tree by a walk of its
 * records: each one whose key lies from first's to last's is taken out
 * (the cut took every key of db between them, so a comparison tells,
 * cheaper than ks_entry_cut's walk up). O(records). */
static void cut_deadlines_by_records(struct db *db, const struct ks_entry *first,
                                     const struct ks_entry *last)
{
    struct rb_node *x = rb_first_cached(&db->expires);
    while (x) {
        struct rb_node *next = rb_next(x);
        struct ks_entry *e = rb_entry(x, struct ks_expire, node)->entry;
        if (keycmp_inline(ks_key(e), ks_klen(e), ks_key(first), ks_klen(first)) >= 0 &&
            keycmp_inline(ks_key(e), ks_klen(e), ks_key(last), ks_klen(last)) <= 0)
            expire_detach(db, e);
        x = next;
    }
}

/* A record that stays and its position in the expiry tree before the cut. */
struct kept_deadline {
    size_t rank;
    struct ks_expire *x;
};

static int kept_deadline_cmp(const void *a, const void *b)
{
    size_t ra = ((const struct kept_deadline *)a)->rank;
    size_t rb = ((const struct kept_deadline *)b)->rank;
    return (ra > rb) - (ra < rb);
}

/* The same by a walk of the keys that stay (db->keys after the cut): the
 * expiry tree is rebuilt from their records alone, and the cut keys'
 * records, left in the old tree's nodes, are never read through it again.
 * The records keep their order, ties of one deadline included (ranked in
 * the old tree, then linked in that order; equal deadlines go after).
 * O(stay log stay), whatever the number of records cut. */
static void cut_deadlines_by_keys(struct db *db)
{
    size_t kept = 0, stay = ks_count(db);
    struct kept_deadline *keep = xmalloc((stay + 1) * sizeof(*keep)); /* never 0 bytes */
    for (struct ks_entry *e = ks_first(db); e; e = ks_next(e)) {
        if (!(e->flags & KS_HAS_EXPIRE))
            continue;
        struct ks_expire *x = entry_expire(e);
        keep[kept++] = (struct kept_deadline){expire_order_rank(&x->node), x};
    }
    if (kept > 1)
        qsort(keep, kept, sizeof(*keep), kept_deadline_cmp);
    db->expires = RB_ROOT_CACHED;
    for (size_t i = 0; i < kept; i++)
        expire_link(db, keep[i].x);
    db->expires_count = kept;
    xfree(keep);
}

struct ks_entry *ks_cut(struct db *db, size_t from, size_t n)
{
    if (n == 0 || from + n > ks_count(db))
        return NULL;
    /* The deadlines of cut keys leave at the cut, so the due counts
     * (live.h), active expiry and volatile eviction never meet one: a walk
     * of the expiry tree's records or of the keys that stay, whichever is
     * shorter, and too long when both pass KS_CUT_WALK_MAX. */
    size_t stay = ks_count(db) - n;
    int by_keys = stay < db->expires_count;
    if ((by_keys ? stay : db->expires_count) > KS_CUT_WALK_MAX)
        return NULL;
    struct ks_entry *first = ks_select(db, from), *last = ks_select(db, from + n - 1);
    /* In cluster mode the cut entries stay in their slot's set until
     * freed, counted there as cut (ks_slots_cut), so the slot's count is
     * right at once; a cut over several slots would have to count each
     * key's slot, a walk, and KDELRANGE is refused across slots anyway
     * (docs/cluster.md), but for a KLOCAL connection's. */
    if (ks_slots_on && !cut_one_slot(first, last))
        return NULL;
    ks_will_change(db);
    struct ks_cut *cut = xmalloc(sizeof(*cut));
    rb_cut_augmented(&db->keys, &first->node, &last->node, &cut->keys, &ks_order_callbacks);
    if (by_keys)
        cut_deadlines_by_keys(db);
    else if (db->expires_count)
        cut_deadlines_by_records(db, first, last);
    cut->at = rb_first_postorder(&cut->keys);
    if (__builtin_expect(ks_slots_on, 0))
        ks_slots_cut(db, key_hash_slot(ks_key(first), ks_klen(first)), n);
    cut->next = db->cuts;
    db->cuts = cut;
    db->cut_keys += n;
    /* A cut entry keeps its record (and its flag, on which its key's
     * offset depends) out of every tree until its slice frees both. */
    return first;
}

int ks_cut_holds(const struct db *db, const char *key, size_t klen)
{
    if (!db->cuts)
        return 0;
    const struct ks_entry *e = kix_find(&db->index, key, klen, kix_hash(&db->index, key, klen));
    return e && ks_entry_cut(db, e);
}

size_t ks_cut_step(struct db *db, size_t max)
{
    size_t done = 0;
    while (db->cuts && done < max) {
        struct ks_cut *cut = db->cuts;
        if (!cut->at) {
            db->cuts = cut->next;
            xfree(cut);
            continue;
        }
        struct ks_entry *e = ks_entry_of(cut->at);
        cut->at = rb_next_postorder(cut->at); /* reads only e's parent word */
        cut_entry_free(db, e);
        db->cut_keys--;
        done++;
    }
    if (db->cuts && !db->cuts->at) { /* the last one's entries are all freed */
        struct ks_cut *cut = db->cuts;
        db->cuts = cut->next;
        xfree(cut);
    }
    return done;
}

void ks_cut_finish(struct db *db)
{
    while (db->cuts)
        ks_cut_step(db, SIZE_MAX);
}

size_t ks_count(const struct db *db)
{
    return ks_order_count(&db->keys);
}

void ks_warm(const struct ks_entry *e, size_t n, int rev)
{
    _Static_assert(KS_WARM_MAX == RB_WARM_MAX, "keyspace.h promises the tree's bound");
    /* The keys of a range are alike in length: e's guides where the others'
     * ends lie, as in a descent (prefetch_node). */
    if (e)
        ks_order_warm(&e->node, n, rev, prefetch_node, ks_klen(e));
}

size_t ks_rank(const struct ks_entry *e)
{
    return ks_order_rank(&e->node);
}

struct ks_entry *ks_select(const struct db *db, size_t k)
{
    return ks_entry_of(ks_order_select(&db->keys, k));
}

struct ks_entry *ks_random(const struct db *db, uint64_t r)
{
    struct ks_entry *e = kix_random(&db->index, r);
    /* A cut entry still in the index: draw by rank instead (uniform,
     * O(log n)), only while a cut is being freed. */
    if (__builtin_expect(db->cuts != NULL, 0) && e && ks_entry_cut(db, e)) {
        size_t n = ks_count(db);
        e = n ? ks_select(db, (size_t)(r % n)) : NULL;
    }
    return e;
}

size_t ks_count_before(const struct db *db, const char *key, size_t klen, int inclusive)
{
    const struct rb_node *n = db->keys.rb_node;
    size_t before = 0;
    while (n) {
        const struct ks_entry *e = rb_entry(n, struct ks_entry, node);
        /* As entry_link: the next level's miss overlaps this compare. */
        prefetch_node(n->rb_left, klen);
        prefetch_node(n->rb_right, klen);
        int c = keycmp_inline(key, klen, ks_key(e), ks_klen(e));
        if (c < 0 || (c == 0 && !inclusive)) {
            n = n->rb_left;
        } else {
            before += ks_order_passed(n);
            n = n->rb_right;
        }
    }
    return before;
}

struct ks_entry *ks_seek_ge(const struct db *db, const char *key, size_t klen, int exclusive)
{
    const struct rb_node *n = db->keys.rb_node;
    struct ks_entry *best = NULL;
    while (n) {
        struct ks_entry *e = rb_entry(n, struct ks_entry, node);
        int c = keycmp_inline(ks_key(e), ks_klen(e), key, klen);
        if (c > 0 || (c == 0 && !exclusive)) {
            best = e;
            n = n->rb_left;
        } else {
            n = n->rb_right;
        }
    }
    return best;
}

struct ks_entry *ks_seek_le(const struct db *db, const char *key, size_t klen, int exclusive)
{
    const struct rb_node *n = db->keys.rb_node;
    struct ks_entry *best = NULL;
    while (n) {
        struct ks_entry *e = rb_entry(n, struct ks_entry, node);
        int c = keycmp_inline(ks_key(e), ks_klen(e), key, klen);
        if (c < 0 || (c == 0 && !exclusive)) {
            best = e;
            n = n->rb_right;
        } else {
            n = n->rb_left;
        }
    }
    return best;
}

void ks_swap(struct db *a, struct db *b)
{
    ks_will_change(a);
    ks_will_change(b);
    struct db tmp = *a;
    *a = *b;
    *b = tmp;
    b->id = a->id;
    a->id = tmp.id;
}

struct ks_entry *ks_move(struct db *from, struct ks_entry *e, struct db *to, const char *key,
                         size_t klen)
{
    int64_t when = ks_get_expire(e);
    struct ks_entry *moved;

    if (e->type == KS_STRING) {
        moved = ks_set_string(to, key, klen, ks_str(e), ks_slen(e), 0);
    } else {
        moved = ks_add_ptr(to, key, klen, (enum ks_type)e->type, ks_ptr(e));
        /* The value belongs to `moved` now. As a string, e's payload is just
         * the pointer's bytes inside the entry, so deleting e frees only e. */
        e->type = KS_STRING;
    }
    if (when != -1)
        moved = ks_set_expire(to, moved, when);
    ks_delete(from, e);
    return moved;
}

size_t ks_entry_memory(const struct ks_entry *e)
{
    size_t bytes = xsize(e);
    if (e->flags & KS_HAS_EXPIRE)
        bytes += xsize(entry_expire(e));
    return bytes;
}

int ks_check(const struct db *db, const char **why)
{
    if (rb_check(&db->keys, why) < 0)
        return -1;
    if (rb_check(&db->expires.rb_root, why) < 0)
        return -1;
    const struct ks_entry *prev = NULL;
    size_t with_deadline = 0;
    for (struct ks_entry *e = ks_first(db); e; e = ks_next(e)) {
        if (prev && ks_keycmp(ks_key(prev), ks_klen(prev), ks_key(e), ks_klen(e)) >= 0) {
            *why = "keys out of order";
            return -1;
        }
        if (!(e->flags & KS_LONG_KEY) != (e->klen != KS_KLEN_LONG) ||
            ((e->flags & KS_LONG_KEY) && ks_klen(e) < KS_KLEN_LONG)) {
            *why = "long key length stored wrong";
            return -1;
        }
        if (!(e->flags & KS_LONG_VALUE) != (e->vlen != KS_VLEN_LONG) ||
            ((e->flags & KS_LONG_VALUE) && (e->type != KS_STRING || ks_slen(e) < KS_VLEN_LONG))) {
            *why = "long value length stored wrong";
            return -1;
        }
        if (e->size != 1 + ks_order_size(e->node.rb_left) + ks_order_size(e->node.rb_right)) {
            *why = "subtree size wrong";
            return -1;
        }
        if (e->flags & KS_HAS_EXPIRE) {
            with_deadline++;
            if (entry_expire(e)->entry != e) {
                *why = "deadline does not point back at its entry";
                return -1;
            }
        }
        prev = e;
    }
    size_t records = 0;
    int64_t last = INT64_MIN;
    for (struct rb_node *n = rb_first(&db->expires.rb_root); n; n = rb_next(n)) {
        const struct ks_expire *x = rb_entry(n, struct ks_expire, node);
        if (x->when < last) {
            *why = "deadlines out of order";
            return -1;
        }
        if (x->size != 1 + expire_order_size(n->rb_left) + expire_order_size(n->rb_right)) {
            *why = "deadline subtree size wrong";
            return -1;
        }
        last = x->when;
        records++;
    }
    if (records != with_deadline || records != db->expires_count) {
        *why = "deadline records and flagged entries differ";
        return -1;
    }
    if (rb_first_cached(&db->expires) != rb_first(&db->expires.rb_root)) {
        *why = "cached leftmost deadline is stale";
        return -1;
    }
    /* The same count, and every entry of the tree in the index where its
     * key leads: the index holds exactly the tree's entries, and as the tree
     * has no two equal keys, a lookup finds the right one. */
    if (kix_check(&db->index, why) < 0)
        return -1;
    /* Cut entries may still be in the index until freed (ks_cut). */
    if (kix_count(&db->index) < ks_count(db) ||
        kix_count(&db->index) > ks_count(db) + db->cut_keys) {
        *why = "index and tree hold different numbers of entries";
        return -1;
    }
    for (struct ks_entry *e = ks_first(db); e; e = ks_next(e)) {
        if (!kix_contains(&db->index, e)) {
            *why = "entry missing from the index";
            return -1;
        }
    }
    return ks_slots_check(db, why);
}
