/*
 * keyspace.h - the databases: entries in an order-statistics red-black tree
 * keyed by binary-safe keys in memcmp order (a prefix sorts first), a hash
 * index of the same entries for point lookups (keyindex.h), and a
 * per-database expiry tree ordered by deadline.
 *
 * Owns: every entry and every value. One allocation per entry holds the tree
 * node, the key bytes and the value (a string's bytes, or a pointer to a value
 * of another type, freed through that type's free function). Knows nothing of
 * RESP or clients.
 *
 * Entries with a deadline own a small struct ks_expire linked into the expiry
 * tree; keys without one pay only a flag bit for it.
 *
 * Entries can MOVE: growing a string or adding a deadline may reallocate the
 * entry. Functions that can move one return the new address; any pointer the
 * caller held to the old one is dead.
 *
 * Every entry is linked both in the tree (order, ranks, ranges) and in the
 * index (lookups by key, which then skip the tree's descent).
 */
#ifndef RBKV_KEYSPACE_H
#define RBKV_KEYSPACE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "keyindex.h"
#include "rbtree.h"
#include "slotindex.h"

enum ks_type {
    KS_STRING = 0, KS_ZSET = 1, KS_HASH = 2, KS_SET = 3, KS_LIST = 4, KS_STREAM = 5, KS_TYPE_COUNT
};

#define KS_HAS_EXPIRE 0x01  /* the data holds a struct ks_expire * */
#define KS_LONG_KEY 0x02    /* klen is KS_KLEN_LONG; the real length is stored in the data */
#define KS_LONG_VALUE 0x04  /* vlen is KS_VLEN_LONG; the real length is stored in the data */

/* klen of an entry whose key is too long for the header's 8 bits. */
#define KS_KLEN_LONG 0xffu
/* vlen of a string too long for the header's 24 bits (16 MB and more). */
#define KS_VLEN_LONG 0xffffffu

struct ks_expire {
    struct rb_node node;    /* in db->expires, ordered by when (ties: insertion order) */
    int64_t when;           /* absolute unix time in ms */
    struct ks_entry *entry;
    /* Records in this subtree, so the due ones are counted in O(log n)
     * (live.h). It takes the record from mimalloc's 40-byte class to the
     * 48-byte one: 8 bytes per key with a deadline (bench/README.md). */
    uint32_t size;
};

/* 36 bytes of header: with a 12-byte key and a 16-byte value an entry is 64
 * bytes, one size class of the allocator with no per-block header (see
 * docs/internals.md). The data is, in order: the key's 32-bit length when
 * KS_LONG_KEY, the string's 32-bit length when KS_LONG_VALUE, the deadline
 * record's pointer when KS_HAS_EXPIRE, the key, the value (a string's bytes,
 * or a pointer).
 *
 * The 24 bits of access state are Redis's (evict.c): the LRU clock in
 * seconds (KS_LRU_BITS) under an LRU policy or none, or under an LFU policy
 * the minutes of the last decrement (16 bits) over a logarithmic counter (8
 * bits). They fit because the short key and value lengths keep the common
 * case in the header and move the rare long ones into the data (keyaccess.h
 * reads and writes the field). */
struct ks_entry {
    struct rb_node node;    /* in db->keys */
    uint32_t size;          /* entries in this subtree (order statistics) */
    uint32_t vlen : 24;     /* string: bytes of the value, or KS_VLEN_LONG; other types: unused */
    uint32_t klen : 8;      /* the key's length, or KS_KLEN_LONG */
    uint32_t access : 24;   /* LRU clock or LFU minutes and counter (keyaccess.h) */
    uint32_t type : 4;      /* enum ks_type */
    uint32_t flags : 4;     /* KS_HAS_EXPIRE, KS_LONG_KEY, KS_LONG_VALUE */
    char data[];
};
/* A field added or widened here costs every key a size class (measured in
 * bench/README.md, "Memory per key"): make it a decision, not an accident. */
_Static_assert(offsetof(struct ks_entry, data) == 36, "struct ks_entry's header is 36 bytes");

struct db {
    int id;
    struct rb_root keys;
    struct kix index;       /* the entries of keys, by hash of key */
    /* The entries of keys by cluster hash slot (slotindex.h); NULL until
     * the db's first key in cluster mode, always NULL outside it. */
    struct ks_slots *slots;
    struct rb_root_cached expires;
    size_t expires_count;
    unsigned long long expired; /* keys removed because their deadline passed */
    /* Readers that hold entry pointers between loop turns (replies streamed
     * in chunks): every change to the db tells the change hook first while
     * this is nonzero (ks_will_change). */
    unsigned streams;
    /* Runs of entries cut out of keys (ks_cut) and not freed yet: in no
     * tree of the db any more, but maybe still in the index, which a lookup
     * clears as it meets one. cut_keys counts them. */
    struct ks_cut *cuts;
    size_t cut_keys;
};

struct keyspace {
    int count;
    struct db *dbs;
};

/* The clock whose ka_initial (keyaccess.h) a new entry's access bits start
 * from; borrowed, set once at start by core, which keeps it current. Until
 * then (unit tests) new entries start at 0. */
struct ka_clock;
void ks_access_clock(const struct ka_clock *clock);
/* That clock, NULL when none is set (a loader restores access state with it). */
const struct ka_clock *ks_access_clock_in_use(void);

/* Frees a value of a non-string type; set once at start by each type's
 * module, with its effort: about how many blocks the free gives back
 * (Redis's lazyfreeGetFreeEffort: 1 for a packed value, else its nodes or
 * chunks), which says whether freeing it is worth another thread. Both
 * touch only the value, so any thread may call them on a value no longer
 * in a db. */
typedef void ks_value_free_fn(void *value);
typedef size_t ks_value_effort_fn(const void *value);
void ks_register_type(enum ks_type type, ks_value_free_fn *free_fn, ks_value_effort_fn *effort);
/* The type's free function on value (nothing for a string: its bytes live
 * in the entry), and its effort (1 for a string). */
void ks_value_free(enum ks_type type, void *value);
size_t ks_value_effort(enum ks_type type, const void *value);

/* Why a value leaves the keyspace, for the release hook to choose when it
 * is freed (Redis's lazyfree-lazy-* settings):
 *   KS_FREE_SERVER  deleted or overwritten by the server on a command's
 *                   behalf (an emptied key, RENAME's target, SET over a hash);
 *   KS_FREE_EXPIRE  its deadline passed;
 *   KS_FREE_SYNC    now, on this thread (DEL, FLUSHALL SYNC, eviction by
 *                   default);
 *   KS_FREE_LAZY    whenever the hook likes (UNLINK). */
enum ks_free_how { KS_FREE_SERVER, KS_FREE_EXPIRE, KS_FREE_SYNC, KS_FREE_LAZY };
/* Takes a value of type that left the keyspace (and owns it from then on),
 * unless how is KS_FREE_SYNC, which never reaches it. One hook for the
 * process, set at start by core (lazyfree.h); without one, every value is
 * freed at once. */
typedef void ks_release_fn(enum ks_type type, void *value, enum ks_free_how how);
void ks_on_release(ks_release_fn *fn);
/* Hands a value no key holds any more (part of one cut off: zs_cut) to
 * the release hook as how says, as a deleted key's value goes. */
void ks_value_release(enum ks_type type, void *value, enum ks_free_how how);

struct keyspace *ks_new(int databases);
void ks_free(struct keyspace *ks);

/* Accessors. */
/* Where the long string's length is (after a long key's length). */
static inline size_t ks_vlen_offset(const struct ks_entry *e)
{
    return (e->flags & KS_LONG_KEY) ? sizeof(uint32_t) : 0;
}
/* Where the deadline's pointer is (after the long lengths). */
static inline size_t ks_expire_offset(const struct ks_entry *e)
{
    return ks_vlen_offset(e) + ((e->flags & KS_LONG_VALUE) ? sizeof(uint32_t) : 0);
}
static inline size_t ks_key_offset(const struct ks_entry *e)
{
    return ks_expire_offset(e) + ((e->flags & KS_HAS_EXPIRE) ? sizeof(struct ks_expire *) : 0);
}
static inline const char *ks_key(const struct ks_entry *e) { return e->data + ks_key_offset(e); }
static inline size_t ks_klen(const struct ks_entry *e)
{
    uint32_t len;
    if (e->klen != KS_KLEN_LONG)
        return e->klen;
    memcpy(&len, e->data, sizeof(len));
    return len;
}
static inline char *ks_str(struct ks_entry *e) { return e->data + ks_key_offset(e) + ks_klen(e); }
static inline size_t ks_slen(const struct ks_entry *e)
{
    uint32_t len;
    if (e->vlen != KS_VLEN_LONG)
        return e->vlen;
    memcpy(&len, e->data + ks_vlen_offset(e), sizeof(len));
    return len;
}
static inline void *ks_ptr(const struct ks_entry *e)
{
    void *p;
    memcpy(&p, e->data + ks_key_offset(e) + ks_klen(e), sizeof(p));
    return p;
}
/* Replaces the pointer a value of another type than string is held by (a
 * packed hash or set moves when it grows: omap.h). */
static inline void ks_set_ptr(struct ks_entry *e, void *p)
{
    memcpy(e->data + ks_key_offset(e) + ks_klen(e), &p, sizeof(p));
}
static inline struct ks_entry *ks_entry_of(const struct rb_node *n)
{
    return n ? rb_entry(n, struct ks_entry, node) : NULL;
}

/* memcmp order; a proper prefix sorts first. Negative, 0 or positive. */
int ks_keycmp(const char *a, size_t alen, const char *b, size_t blen);

/* The live entry for key, or NULL. An expired entry found on the way is
 * deleted (lazy expiry, through ks_expire_entry). While expiry is paused an
 * entry past its deadline is still returned. */
struct ks_entry *ks_lookup(struct db *db, const char *key, size_t klen, int64_t now_ms);

/* A lookup kept for a write of the same key that follows it (SET looks the
 * key up for NX/XX, then writes it): the write reuses the key's hash and the
 * lookup's answer instead of hashing and probing the index again. It borrows
 * key (the caller's bytes) and is valid only until the db next changes. */
struct ks_probe {
    const char *key;
    size_t klen;
    uint64_t hash;          /* kix_hash of key */
    struct ks_entry *entry; /* the live entry, or NULL */
};
/* ks_lookup that also fills *p; returns p->entry. */
struct ks_entry *ks_lookup_probe(struct db *db, const char *key, size_t klen, int64_t now_ms,
                                 struct ks_probe *p);

/* The entry for key whether expired or not (for internal use such as tests). */
struct ks_entry *ks_find(const struct db *db, const char *key, size_t klen);

/* Creates or replaces key with a string value. A replaced key loses its
 * deadline unless keep_ttl. Returns the new entry. */
struct ks_entry *ks_set_string(struct db *db, const char *key, size_t klen, const char *val,
                               size_t vlen, int keep_ttl);
/* ks_set_string of p's key, which p found (or found absent) with no change
 * to db since. */
struct ks_entry *ks_set_string_probed(struct db *db, const struct ks_probe *p, const char *val,
                                      size_t vlen, int keep_ttl);
/* Creates key (which must be absent) holding a value of another type. */
struct ks_entry *ks_add_ptr(struct db *db, const char *key, size_t klen, enum ks_type type,
                            void *value);
/* Bulk loading into an empty db without a tree descent per key: ks_bulk_add
 * and ks_bulk_add_new put each key in the index and, with a deadline, the
 * expiry tree; ks_bulk_finish links them all into db->keys as one balanced
 * tree. Until then the entries are in no tree and must not be deleted (in
 * order, their tree nodes hold the chain of them); finish must be called,
 * also after an error, before db is used or freed.
 *
 * ks_bulk_begin: the keys come in strictly increasing order (a snapshot is
 * written in key order; the caller checks, and may compare with the entry it
 * got last), and finish links them in O(n) without comparing keys.
 *
 * ks_bulk_begin_any_order: the keys come in any order (Redis's RDB file, in
 * hash order) and are distinct (the index finds a repeat as it is added).
 * Every run_max keys are sorted (a radix sort of 24-byte keys, a 16-byte
 * prefix and the entry, in one buffer the size of a run and its scratch,
 * in the cache) and the sorted run is then kept in the entries themselves:
 * each entry's unused tree node holds the next entry's 24-byte key, and
 * only the run's first key is kept beside. finish merges the runs as it
 * links the tree. So the memory beside the entries is the two run buffers
 * and 24 bytes a run, whatever the number of keys (docs/internals.md). */
struct ks_bulk_key;
struct ks_bulk {
    struct db *db;
    size_t n;                    /* entries added */
    int any_order;
    struct ks_entry *first;      /* in order: the first added; each entry's node links */
    struct ks_entry *tail;       /* to the next until finish; the last added */
    struct ks_bulk_key *run;     /* any order: the added keys not yet sorted; owned */
    struct ks_bulk_key *tmp;     /* the radix sort's scratch, as long as run; owned */
    size_t run_n;                /* keys in run */
    size_t run_max;              /* keys per run: KS_BULK_RUN (a test may lower it before adding) */
    struct ks_bulk_key *runs;    /* each sorted run's first key (the rest chained in the
                                  * entries' nodes); owned */
    size_t runs_n, runs_cap;
};
/* Keys sorted per run by ks_bulk_begin_any_order: two 3 MB buffers, in the
 * cache while a run is sorted and chained. Runs of 65,536 took 15% more CPU
 * at 10M keys (twice the runs: a deeper heap, and a longer wait between an
 * entry's prefetch and its read). */
#define KS_BULK_RUN ((size_t)1 << 17)
void ks_bulk_begin(struct ks_bulk *b, struct db *db);
void ks_bulk_begin_any_order(struct ks_bulk *b, struct db *db);
/* type KS_STRING copies vlen bytes at value; another type stores the
 * pointer value (vlen unused). when_ms is an absolute deadline, or -1.
 * Returns the entry, which never moves before finish. */
struct ks_entry *ks_bulk_add(struct ks_bulk *b, const char *key, size_t klen, enum ks_type type,
                             const void *value, size_t vlen, int64_t when_ms);
void ks_bulk_finish(struct ks_bulk *b);
/* For keys that come in any order and may repeat (Redis's RDB file): the
 * key's index hash, with its home slot prefetched, so the caller can read
 * the key's value while the slot comes in, then ks_bulk_add_new with it. */
uint64_t ks_bulk_prefetch(const struct db *db, const char *key, size_t klen);
/* ks_bulk_add of a key whose hash h is ks_bulk_prefetch's, unless the key is
 * in the db already: then NULL, and nothing is added (value not taken). */
struct ks_entry *ks_bulk_add_new(struct ks_bulk *b, const char *key, size_t klen, uint64_t h,
                                 enum ks_type type, const void *value, size_t vlen,
                                 int64_t when_ms);
/* Sizes an empty db's index for n keys (kix_reserve). */
void ks_reserve(struct db *db, size_t n);
/* Changes a string's length to vlen keeping the first min(old, new) bytes;
 * new bytes are uninitialised. May move the entry; returns it. Grows with
 * slack so repeated APPENDs are amortised O(1). */
struct ks_entry *ks_string_resize(struct db *db, struct ks_entry *e, size_t vlen);

/* Unlinks and frees the entry and its deadline; its value goes to the
 * release hook as how says (ks_delete: KS_FREE_SERVER). */
void ks_delete(struct db *db, struct ks_entry *e);
void ks_delete_how(struct db *db, struct ks_entry *e, enum ks_free_how how);

/* Deadlines. ks_set_expire may move the entry; returns it. */
struct ks_entry *ks_set_expire(struct db *db, struct ks_entry *e, int64_t when_ms);
/* Removes the deadline; returns 1 if there was one. Never moves the entry. */
int ks_persist(struct db *db, struct ks_entry *e);
/* Absolute deadline in ms, or -1 when none. */
int64_t ks_get_expire(const struct ks_entry *e);

/* Told of each key removed because its deadline passed, just before it goes:
 * the append-only log records the removal as a DEL, so a replay never depends
 * on the clock it runs at. One hook for the process, set at start. */
/* due is 1 when lazy or active expiry removes the key (its deadline
 * passed), 0 when a command does (ks_expire_entry): Redis's "expired" event
 * against the command's own "del". */
typedef void ks_expired_fn(struct db *db, const char *key, size_t klen, int due);
void ks_on_expired(ks_expired_fn *fn);
/* Removes e because its deadline passed: tells the hook (due 0), deletes it. Lazy
 * and active expiry count it in db->expired; a command removing a key for a
 * deadline already given in the past does not, as in Redis. */
void ks_expire_entry(struct db *db, struct ks_entry *e);
/* Who removes the keys past their deadline (Redis's server.loading and
 * server.masterhost):
 *   KS_EXPIRY_ON    this server: lookups and ks_expire_due delete them.
 *   KS_EXPIRY_HELD  its primary, whose DELs come in its stream (a replica):
 *                   nothing here deletes them, but its clients' reads skip
 *                   them (live.h, the commands' lookups), as in Redis.
 *   KS_EXPIRY_OFF   nobody for now (replaying the log, whose own DELs say
 *                   when each key went): nothing deletes them and every read
 *                   sees them, so each replayed command sees the keys its
 *                   original saw.
 * Not ON (ks_expiry_paused), lookups return entries past their deadline and
 * ks_expire_due does nothing; commands that remove a key for a deadline
 * already past set the deadline instead. */
enum ks_expiry { KS_EXPIRY_ON, KS_EXPIRY_HELD, KS_EXPIRY_OFF };
void ks_set_expiry(enum ks_expiry mode);
enum ks_expiry ks_expiry(void);
int ks_expiry_paused(void);

/* Told that db is about to change while db->streams is nonzero: the hook
 * (one for the process, set at start by core) finishes every streamed reply
 * over db, so a reply is the db as it was when its command ran and no
 * reader holds an entry that moves or goes. Every mutating ks_* function
 * calls ks_will_change first; so must whoever changes a db by other means (a
 * write command changing a value in place, swapping a db's contents). One
 * predictable branch when nothing streams. */
typedef void ks_change_fn(struct db *db);
void ks_on_change(ks_change_fn *fn);
void ks_changing(struct db *db);
static inline void ks_will_change(struct db *db)
{
    if (__builtin_expect(db->streams != 0, 0))
        ks_changing(db);
}

/* Deletes up to max entries whose deadline is <= now_ms, earliest first
 * (none while expiry is paused). Returns how many it deleted. */
size_t ks_expire_due(struct db *db, int64_t now_ms, size_t max);
/* How many entries have a deadline <= now_ms (due, not deleted yet),
 * whether expiry is paused or not. O(log n). */
size_t ks_due_count(const struct db *db, int64_t now_ms);
/* Deletes every entry, now. */
void ks_flush(struct db *db);
/* Empties db in O(1) (the index's table is not walked) and returns what it
 * held, for ks_detached_free to free on any thread: the detached entries
 * are in no db, so nothing else reads them. Owned by the caller. */
struct ks_detached;
struct ks_detached *ks_detach_all(struct db *db);
/* Keys the detached contents hold. */
size_t ks_detached_count(const struct ks_detached *d);
/* Frees every entry, value, deadline record and index table of d, and d;
 * NULL does nothing. */
void ks_detached_free(struct ks_detached *d);
/* Swaps everything a and b hold (keys, index, deadlines, counters); each
 * keeps its id and address. Both are told of the change first. */
void ks_swap(struct db *a, struct db *b);
/* Gives e's value and deadline to a new entry named key in db `to`, where
 * key must be absent, then deletes e from `from`. A string's bytes are
 * copied (they live inside the entry); a pointer value changes owner.
 * Returns the new entry. */
struct ks_entry *ks_move(struct db *from, struct ks_entry *e, struct db *to, const char *key,
                         size_t klen);

/* Range deletion without a stall (docs/internals.md, "Range deletion").
 * ks_cut takes the n >= 1 entries at positions from .. from + n - 1 out of
 * db->keys at once, by split and join (O(log^2 n)), and their deadline
 * records out of the expiry tree, by a walk of its records or of the keys
 * that stay (the tree is rebuilt from theirs), whichever is shorter: it
 * refuses when both pass KS_CUT_WALK_MAX (a db with many deadlines on
 * both sides of the range); from then on counts, ranks, ranges and
 * lookups no longer see them. Their index slots, values and blocks are
 * freed later by ks_cut_step, on the same thread, a bounded number at a
 * time. Returns the first cut entry, from which ks_next walks the others
 * in key order until ks_cut_step runs (their keys stay readable until
 * then); NULL, with nothing done, when the cut cannot be made this way: in
 * cluster mode over keys of more than one hash tag (the slot sets) or with
 * too many deadlines and keys that stay. The caller deletes one by one
 * then. Values go to the release hook as KS_FREE_SERVER; a cut entry's
 * deadline record, out of the expiry tree, is freed with it. In cluster
 * mode the cut entries stay in their slot's set until freed: ks_slot_count
 * leaves them out (ks_slots_cut) and ks_slot_walk passes over them
 * (ks_entry_cut). */
#define KS_CUT_WALK_MAX 16384
struct ks_entry *ks_cut(struct db *db, size_t from, size_t n);
/* Whether key is one of db's cut entries, not freed yet and not yet met by
 * a lookup (WATCH asks right after a cut). */
int ks_cut_holds(const struct db *db, const char *key, size_t klen);
/* Whether e, found through db's index or slot sets, was cut out of db
 * (ks_cut) and not freed yet: it is in a cut's tree, whose root is not
 * db's. O(log n) while db has cuts, else O(1). An entry still in the index
 * or a slot set is not freed, and a cut frees its entries in post-order,
 * children first, so e's ancestors are not freed either. Inline, so the
 * slot sets ask without calling back into keyspace.c. */
static inline int ks_entry_cut(const struct db *db, const struct ks_entry *e)
{
    if (!db->cuts)
        return 0;
    const struct rb_node *n = &e->node, *up;
    while ((up = rb_parent(n)))
        n = up;
    return n != db->keys.rb_node;
}
/* Frees up to max cut entries of db; returns how many it freed. */
size_t ks_cut_step(struct db *db, size_t max);
/* Frees every cut entry of db now. */
void ks_cut_finish(struct db *db);

/* Order statistics over db->keys, O(log n). */
size_t ks_count(const struct db *db);
size_t ks_rank(const struct ks_entry *e);
struct ks_entry *ks_select(const struct db *db, size_t k);
/* A random entry (kix_random: nearly uniform, two cache misses), or NULL
 * when db is empty; r is random bits from the caller. */
struct ks_entry *ks_random(const struct db *db, uint64_t r);
/* Number of keys that sort before key (or at or before it when inclusive). */
size_t ks_count_before(const struct db *db, const char *key, size_t klen, int inclusive);
/* First entry >= key (> when exclusive), or NULL. */
struct ks_entry *ks_seek_ge(const struct db *db, const char *key, size_t klen, int exclusive);
/* Last entry <= key (< when exclusive), or NULL. */
struct ks_entry *ks_seek_le(const struct db *db, const char *key, size_t klen, int exclusive);
static inline struct ks_entry *ks_first(const struct db *db) { return ks_entry_of(rb_first(&db->keys)); }
static inline struct ks_entry *ks_last(const struct db *db) { return ks_entry_of(rb_last(&db->keys)); }
static inline struct ks_entry *ks_next(const struct ks_entry *e) { return ks_entry_of(rb_next(&e->node)); }
static inline struct ks_entry *ks_prev(const struct ks_entry *e) { return ks_entry_of(rb_prev(&e->node)); }
/* Starts loading the n entries a walk by ks_next (rev: ks_prev) from e visits,
 * e first, so that walk's cache misses overlap instead of following one
 * another (rbtree_order.h, _warm): for a caller about to list n keys. Changes
 * nothing; at most KS_WARM_MAX entries; O(n + log size). */
#define KS_WARM_MAX 128
void ks_warm(const struct ks_entry *e, size_t n, int rev);

/* Bytes of memory the entry uses (with its deadline record, without a
 * pointed-to value). */
size_t ks_entry_memory(const struct ks_entry *e);

/* Checks tree structure, key order, subtree sizes, the expiry tree, and the
 * index: its own invariants, the tree's count, every entry found through it.
 * Returns 0, or -1 with *why set. */
int ks_check(const struct db *db, const char **why);

#endif
