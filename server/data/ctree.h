/*
 * ctree.h - the counted chunk tree that hashes, sets (omap.h), lists
 * (olist.h) and streams (xstream.h, a chunk per node) keep their elements
 * in: runs of packed elements ("chunks"), each one allocation, as the
 * nodes of a red-black tree in element order augmented with the number of
 * elements in each subtree.
 *
 * Owns: the chunks' header and their allocation (through mem.h), linking
 * and unlinking them, the subtree totals, select by position, cutting a
 * run of chunks out, freeing in slices, copying and the totals' check.
 * Knows nothing of what the bytes hold: the map and the list encode their
 * elements and decide when a chunk splits, merges or grows.
 *
 * Invariant (ct_check_totals): every chunk's total is its n plus its
 * children's totals. A chunk's room is the allocation's usable size, so no
 * field keeps a capacity.
 */
#ifndef RBKV_CTREE_H
#define RBKV_CTREE_H

#include <stddef.h>
#include <stdint.h>

#include "rbtree.h"

struct ct_chunk {
    struct rb_node rb;
    uint32_t total; /* elements in this subtree */
    uint32_t n;     /* elements in this chunk */
    uint32_t used;  /* bytes of data */
    char data[];
};

#define CT_HDR offsetof(struct ct_chunk, data)

static inline struct ct_chunk *ct_of(const struct rb_node *rb)
{
    return rb ? rb_entry(rb, struct ct_chunk, rb) : NULL;
}

/* Elements in the subtree under rb (0 for none). */
static inline size_t ct_total(const struct rb_node *rb)
{
    return rb ? ct_of(rb)->total : 0;
}

static inline struct ct_chunk *ct_first(const struct rb_root *root)
{
    return ct_of(rb_first(root));
}

static inline struct ct_chunk *ct_last(const struct rb_root *root)
{
    return ct_of(rb_last(root));
}

static inline struct ct_chunk *ct_next(const struct ct_chunk *c)
{
    return ct_of(rb_next(&c->rb));
}

static inline struct ct_chunk *ct_prev(const struct ct_chunk *c)
{
    return ct_of(rb_prev(&c->rb));
}

/* A chunk, not linked, with room for at least cap bytes of data and none
 * used. */
struct ct_chunk *ct_new(size_t cap);
/* Bytes of data c has room for. */
size_t ct_cap(const struct ct_chunk *c);
/* Adds delta to the totals of c and its ancestors (c's n changed by it). */
void ct_totals_add(struct ct_chunk *c, long delta);
/* Links c (its n set) right after prev, or first when prev is NULL. */
void ct_link_after(struct rb_root *root, struct ct_chunk *prev, struct ct_chunk *c);
/* Unlinks c and frees it. */
void ct_unlink_free(struct rb_root *root, struct ct_chunk *c);
/* c reallocated with room for cap bytes of data (at least its used ones),
 * its neighbours pointed at the new place; returns it. */
struct ct_chunk *ct_resize(struct rb_root *root, struct ct_chunk *c, size_t cap);
/* The chunk holding position k and k's index in it, or NULL when k is past
 * the end. O(log chunks). */
struct ct_chunk *ct_select(const struct rb_root *root, size_t k, uint32_t *idx);
/* Moves the chunks first .. last (in order, first not after last) of root
 * into the empty tree cut, totals kept on both sides. O(log^2 chunks). */
void ct_cut(struct rb_root *root, struct ct_chunk *first, struct ct_chunk *last,
            struct rb_root *cut);
/* Frees up to budget chunks, the tree left unusable but for more calls;
 * returns how many went (root is empty once all are). */
size_t ct_free_some(struct rb_root *root, size_t budget);
/* Copies every chunk of src, in order, into the empty tree dst, each
 * allocation cut to its bytes. */
void ct_clone(struct rb_root *dst, const struct rb_root *src);
/* Bytes allocated for the chunks. O(chunks). */
size_t ct_memory(const struct rb_root *root);
/* ct_memory from the chunks holding the first `samples` elements, scaled
 * to all of them; exact when those chunks are all there is. */
size_t ct_memory_sampled(const struct rb_root *root, size_t samples);
/* 0, or -1 with *why set when a total is not its subtree's count. */
int ct_check_totals(const struct rb_root *root, const char **why);

#endif
