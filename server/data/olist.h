/*
 * olist.h - the sequence behind lists: binary-safe elements in the order
 * they were put, with O(log n) access by position.
 *
 * Owns: the struct olist and its chunks (through mem.h). Knows nothing of
 * RESP, clients, the keyspace or the configuration: callers pass the chunk
 * size (struct ol_limits) of each write.
 *
 * Layout, and why: elements are packed in runs ("chunks") as a listpack
 * packs them, each element its length, its bytes and a back length so a run
 * is walked both ways. The chunks are the nodes of a red-black tree in list
 * order, augmented with the number of elements in each subtree, so the
 * element at position k is found in O(log(n / B) + B) for chunks of B
 * elements: LINDEX, LSET, LINSERT's insertion and LRANGE's start in the
 * middle of a million-element list cost a descent, where Redis's quicklist
 * walks the nodes from the nearer end. A chunk splits when it grows past the
 * limit and merges with a neighbour when small, so memory per element stays
 * that of a listpack: its bytes plus two or three.
 *
 * A list is never empty in the keyspace (the commands delete an emptied
 * key), but an olist may be: ol_new makes one.
 *
 * A write may move the list's own allocation: the write functions take the
 * caller's pointer and update it, and a caller whose list sits in the
 * keyspace stores it back (ks_set_ptr).
 *
 * Invariants (ol_check): no chunk is empty (an empty list has none); each
 * chunk's count and byte size describe its bytes exactly, forwards and
 * backwards; every subtree total is its element count; no chunk is over
 * its limit unless it holds one element.
 */
#ifndef RBKV_OLIST_H
#define RBKV_OLIST_H

#include <stddef.h>
#include <stdint.h>

struct olist;

/* The chunk size, from list-max-listpack-size: a positive value is the
 * most elements per chunk (and at most 8 KB, Redis's safety limit); -1..-5
 * the most bytes per chunk (4, 8, 16, 32, 64 KB; below -5 reads as -5), as
 * Redis reads it. A chunk's bytes count its header, so a full chunk is one
 * allocation of that size. */
struct ol_limits {
    long max_listpack_size;
};

/* A position in the list: valid until the list changes. Past either end it
 * is invalid (ol_it_valid 0). */
struct ol_it {
    const struct olist *l;
    void *chunk;        /* the chunk holding the element; NULL past the ends */
    uint32_t off;       /* the element's byte offset in its chunk */
    uint32_t idx;       /* the element's index in its chunk */
    size_t pos;         /* the element's position in the list */
    char num[24];       /* an element stored as an integer, as text (ol_it_get) */
};

/* An empty list, owned by the caller, freed with ol_free. ol_free(NULL)
 * does nothing. */
struct olist *ol_new(void);
void ol_free(struct olist *l);
/* A deep copy. O(bytes). */
struct olist *ol_clone(const struct olist *l);

/* Elements held. O(1). */
size_t ol_len(const struct olist *l);
/* Bytes allocated for the list. O(chunks). */
size_t ol_memory(const struct olist *l);
/* ol_memory from the chunks holding the first `samples` elements, scaled to
 * the whole list (MEMORY USAGE's SAMPLES); exact when samples is 0 or those
 * chunks are all there is. */
size_t ol_memory_sampled(const struct olist *l, size_t samples);
/* Chunks in the list (DEBUG OBJECT's ql_nodes). */
size_t ol_chunks(const struct olist *l);
/* Bytes the encoded elements take in their chunks (DEBUG OBJECT's
 * ql_uncompressed_size). O(chunks). */
size_t ol_bytes(const struct olist *l);

/* The longest element, as Redis's LIST_MAX_ITEM_SIZE: the commands refuse a
 * longer one ("Element too large") before calling here. */
#define OL_MAX_ELEM (((size_t)1 << 32) - 1024)

/* Adds v at the head (tail 0) or the tail (tail 1). */
void ol_push(struct olist **lp, int tail, const char *v, size_t vlen, const struct ol_limits *lim);
/* Inserts v before position k (0 <= k <= len; k == len appends). */
void ol_insert(struct olist **lp, size_t k, const char *v, size_t vlen,
               const struct ol_limits *lim);
/* Replaces the element at position k (< len) with v. */
void ol_set(struct olist **lp, size_t k, const char *v, size_t vlen, const struct ol_limits *lim);
/* Removes the elements at positions [lo, hi) (hi <= len). O(log n + removed). */
void ol_del_range(struct olist **lp, size_t lo, size_t hi, const struct ol_limits *lim);
/* Removes up to |count| elements equal to v (all when count is 0), from the
 * head when count >= 0, from the tail when negative (LREM). Returns how
 * many went. O(n). */
size_t ol_remove(struct olist **lp, const char *v, size_t vlen, long count,
                 const struct ol_limits *lim);

/* Positions: *it at position k; returns 0, or -1 (it invalid) when
 * k >= ol_len. O(log(n / B) + B). */
int ol_seek(const struct olist *l, size_t k, struct ol_it *it);
static inline int ol_it_valid(const struct ol_it *it) { return it->chunk != NULL; }
/* The element at a valid position, borrowed from its chunk: valid until the
 * list changes. An element that reads as an integer is stored as one (as a
 * listpack stores it) and its text is in the iterator's num: valid until
 * the iterator moves too. */
void ol_it_get(const struct ol_it *it, const char **v, size_t *vlen);
/* One step towards the tail or the head; O(1) amortised both ways. */
void ol_next(struct ol_it *it);
void ol_prev(struct ol_it *it);

/* Checks the invariants above against lim, or all but the chunk limit when
 * lim is NULL (chunks cut under a list-max-listpack-size changed since keep
 * their size until a write splits or merges them). Returns 0, or -1 with
 * *why set. O(bytes). */
int ol_check(const struct olist *l, const struct ol_limits *lim, const char **why);

#endif
