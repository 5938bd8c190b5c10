/*
 * rbtree_order.h - order statistics over an intrusive red-black tree: each
 * node counts the nodes of its subtree, which gives rank (position of a node)
 * and select (node at a position) in O(log n).
 *
 * Owns: nothing but the size field of each entry, which only these functions
 * may write while the entry is in the tree. Must not know keys: the caller's
 * descent finds where a node goes, as with the plain tree.
 *
 * Invariant, after every call below: for every node x in the tree,
 *     size(x) = 1 + size(x->rb_left) + size(x->rb_right),  size(NULL) = 0,
 * so size(root) is the number of nodes. A caller may rely on it inside its own
 * descent, e.g. to count the keys below a bound in one pass by adding
 * PREFIX_passed(n) whenever it goes right.
 *
 * RB_DECLARE_ORDER(PREFIX, RBSTRUCT, RBFIELD, SIZEFIELD) declares, for
 * entries of type RBSTRUCT linked by their rb_node member RBFIELD, whose
 * unsigned integer member SIZEFIELD (of any width: a uint32_t saves memory
 * and caps the tree at 2^32 - 1 nodes) holds the subtree size:
 *
 *   size_t PREFIX_size(const struct rb_node *node)
 *       nodes in the subtree under node; 0 for NULL.
 *   size_t PREFIX_count(const struct rb_root *root)
 *       nodes in the tree. O(1).
 *   void PREFIX_insert(struct rb_node *node, struct rb_node *parent,
 *                      struct rb_node **link, struct rb_root *root)
 *       use instead of rb_link_node() + rb_insert_color() once the caller's
 *       descent found the empty `link` under `parent`. O(log n).
 *   void PREFIX_erase(struct rb_node *node, struct rb_root *root)
 *       use instead of rb_erase(). O(log n).
 *   void PREFIX_replace(struct rb_node *victim, struct rb_node *new_node,
 *                       struct rb_root *root)
 *       new_node takes victim's place and size. O(1).
 *   size_t PREFIX_passed(const struct rb_node *node)
 *       the nodes a descent passes when it goes right from node: node and its
 *       left subtree, size(node) - size(node->rb_right). Read from node and
 *       the right child, which the descent loads next anyway, never from the
 *       left child, which it does not visit: a load (at depth, a cache miss)
 *       saved per right turn.
 *   size_t PREFIX_rank(const struct rb_node *node)
 *       node's 0-based in-order position in its tree. O(log n).
 *   struct rb_node *PREFIX_select(const struct rb_root *root, size_t k)
 *       the node at 0-based position k, or NULL when k >= count. O(log n).
 *   const struct rb_augment_callbacks PREFIX_callbacks
 *       for the rb_*_augmented_cached() calls of rbtree_augmented.h.
 *   void PREFIX_warm(const struct rb_node *node, size_t n, int rev,
 *                    void (*prefetch)(const struct rb_node *, size_t),
 *                    size_t hint)
 *       starts loading the n nodes an in-order walk from node visits
 *       (node first; ascending, or descending when rev), by calling
 *       prefetch(node, hint) for each before it is read, once: for the
 *       nodes after node, and for the ancestors the climb reads. Changes
 *       nothing; the others it reads or prefetches are few (below).
 *       O(n + log size) reads; n above RB_WARM_MAX warms RB_WARM_MAX.
 *
 * All are static and marked unused, so a file may use any subset. Use the
 * macro at file scope; it ends with a function body, so a semicolon after it
 * is optional.
 */
#ifndef RBKV_RBTREE_ORDER_H
#define RBKV_RBTREE_ORDER_H

#include "rbtree_augmented.h"

/*
 * The warm-up of an in-order walk (PREFIX_warm). A walk by rb_next is one
 * dependent cache miss after another: a step down the left spine of a right
 * subtree cannot start before the node above it has arrived. But the nodes
 * the next n steps visit are known in advance from the subtree sizes, and
 * most of them lie in disjoint subtrees: this visits them breadth first, so
 * each level's misses are in flight together and the walk's latency is the
 * height of the region times one miss rather than n misses.
 *
 * What the walk from x visits, ascending: x, then all of x's right subtree,
 * then for each ancestor p reached from its left side, p and its right
 * subtree, until n nodes. The climb finds those ancestors and the budget of
 * each right subtree (how many of its first nodes are wanted); then a FIFO
 * of (subtree, budget) items, each prefetched when queued and read when
 * dequeued, expands level by level. A subtree wanted whole queues both
 * children whole; one wanted in part queues the part of its left child,
 * and its right child only once the left child's size is known (the item
 * for the left child carries the right child and what is left for it).
 * Descending is the mirror image (dir below is the walk's direction).
 *
 * Only a prefetch: nothing is written, and a queue that fills (deep
 * partial paths on top of n nodes) just stops warming more.
 */
#define RB_WARM_MAX 128
#define RB_WARM_QUEUE (RB_WARM_MAX + 64)

struct rb_warm_item {
    const struct rb_node *node;
    size_t budget;              /* first nodes of node's subtree wanted (clamped to its size) */
    const struct rb_node *sib;  /* node's sibling on the walk's side, or NULL */
    size_t sib_rest;            /* what the sibling gets: sib_rest - size(node), if positive */
};

struct rb_warm {
    struct rb_warm_item q[RB_WARM_QUEUE];
    unsigned head, tail;
    void (*prefetch)(const struct rb_node *, size_t);
    size_t hint;
};

static inline const struct rb_node *rb_warm_child_(const struct rb_node *n, int dir)
{
    return dir ? n->rb_right : n->rb_left;
}

static inline void rb_warm_push_(struct rb_warm *w, const struct rb_node *node, size_t budget,
                                 const struct rb_node *sib, size_t sib_rest)
{
    if (!node || budget == 0 || w->tail == RB_WARM_QUEUE)
        return;
    /* A prefetch has no effect the compiler must keep, and so neither has
     * the walk that finds what to prefetch: an empty asm taking each node
     * keeps the walk (measured: without it GCC deleted the whole loop). */
    __asm__ __volatile__("" : : "r"(node));
    w->prefetch(node, w->hint);
    w->q[w->tail++] = (struct rb_warm_item){node, budget, sib, sib_rest};
}

/* Reads the queued items before position until, and those they queue
 * while still before it (RB_WARM_QUEUE: all): breadth first, so by the time
 * an item is read, those queued before it have had their loads in flight
 * beside it. */
static inline __attribute__((always_inline)) void
rb_warm_expand_(struct rb_warm *w, unsigned until, int dir, size_t (*size)(const struct rb_node *))
{
    while (w->head < w->tail && w->head < until) {
        struct rb_warm_item it = w->q[w->head++];
        size_t s = size(it.node);
        if (it.sib && it.sib_rest > s)
            rb_warm_push_(w, it.sib, it.sib_rest - s, NULL, 0);
        const struct rb_node *b = rb_warm_child_(it.node, !dir), *f = rb_warm_child_(it.node, dir);
        if (it.budget >= s) {
            rb_warm_push_(w, b, SIZE_MAX, NULL, 0);
            rb_warm_push_(w, f, SIZE_MAX, NULL, 0);
        } else if (!b) {
            rb_warm_push_(w, f, it.budget - 1, NULL, 0);
        } else {
            rb_warm_push_(w, b, it.budget, f, it.budget - 1);
        }
    }
}

/* size: the subtree size of a node (PREFIX_size); dir: 1 ascending. */
static inline __attribute__((always_inline)) void
rb_warm_(const struct rb_node *x, size_t n, int dir, size_t (*size)(const struct rb_node *),
         void (*prefetch)(const struct rb_node *, size_t), size_t hint)
{
    struct rb_warm w;

    if (!x || n < 2)
        return;
    if (n > RB_WARM_MAX)
        n = RB_WARM_MAX;
    w.head = w.tail = 0;
    w.prefetch = prefetch;
    w.hint = hint;
    /* x's own subtree: what follows x in it is its forward subtree. The
     * back child is loaded only for its size, with the forward one and
     * the parent, all three at once. */
    const struct rb_node *back = rb_warm_child_(x, !dir), *c = x, *p;
    if (back)
        prefetch(back, hint);
    p = rb_parent(x);
    if (p)
        prefetch(p, hint);
    rb_warm_push_(&w, rb_warm_child_(x, dir), n - 1, NULL, 0);
    size_t before = size(back) + 1; /* nodes of c's subtree up to x in the walk's order */
    unsigned mark = 0; /* the queue's tail one climbing step ago */
    /* Up while the subtree under c holds fewer than n nodes from x on. */
    for (; size(c) - before < n - 1 && (p = rb_parent(c)); c = p) {
        if (c == rb_warm_child_(p, !dir)) {
            /* p follows all of c's subtree, then p's forward subtree. */
            size_t after = size(c) - before + 1; /* x's followers up to p */
            if (after < n - 1)
                rb_warm_push_(&w, rb_warm_child_(p, dir), n - 1 - after, NULL, 0);
        } else {
            before += size(p) - size(c);
        }
        /* The next ancestor's load, begun now, overlaps this one's queueing
         * and the reading of what the steps before queued (their loads have
         * had this step's time to arrive): the climb's chain of misses and
         * the subtrees' levels overlap. */
        const struct rb_node *up = rb_parent(p);
        if (up)
            prefetch(up, hint);
        rb_warm_expand_(&w, mark, dir, size);
        mark = w.tail;
    }
    rb_warm_expand_(&w, RB_WARM_QUEUE, dir, size);
}

#define RB_DECLARE_ORDER(PREFIX, RBSTRUCT, RBFIELD, SIZEFIELD)                                      \
    static inline __attribute__((unused)) size_t PREFIX##_size(const struct rb_node *node)         \
    {                                                                                              \
        if (!node)                                                                                 \
            return 0;                                                                              \
        return ((const RBSTRUCT *)((const char *)node - offsetof(RBSTRUCT, RBFIELD)))->SIZEFIELD;  \
    }                                                                                              \
                                                                                                   \
    static inline __attribute__((unused)) size_t PREFIX##_count(const struct rb_root *root)        \
    {                                                                                              \
        return PREFIX##_size(root->rb_node);                                                       \
    }                                                                                              \
                                                                                                   \
    static inline __attribute__((unused)) size_t PREFIX##_passed(const struct rb_node *node)       \
    {                                                                                              \
        return PREFIX##_size(node) - PREFIX##_size(node->rb_right);                                \
    }                                                                                              \
                                                                                                   \
    /* NOLINTNEXTLINE(bugprone-macro-parentheses): RBSTRUCT is a type */                           \
    static inline bool PREFIX##_compute_size(RBSTRUCT *entry, bool exit)                           \
    {                                                                                              \
        size_t size = 1 + PREFIX##_size(entry->RBFIELD.rb_left) +                                  \
                      PREFIX##_size(entry->RBFIELD.rb_right);                                      \
                                                                                                   \
        if (exit && entry->SIZEFIELD == size)                                                      \
            return true;                                                                           \
        entry->SIZEFIELD = (__typeof__(entry->SIZEFIELD))size;                                     \
        return false;                                                                              \
    }                                                                                              \
                                                                                                   \
    RB_DECLARE_CALLBACKS(static __attribute__((unused)), PREFIX##_callbacks, RBSTRUCT, RBFIELD,    \
                         SIZEFIELD, PREFIX##_compute_size);                                        \
                                                                                                   \
    static inline __attribute__((unused)) void PREFIX##_insert(                                    \
        struct rb_node *node, struct rb_node *parent, struct rb_node **link, struct rb_root *root) \
    {                                                                                              \
        /* The path down to the new node gains it before the rotations, which                     \
         * then only need to move sizes around (rb_insert_augmented's rule). */                    \
        for (struct rb_node *up = parent; up; up = rb_parent(up))                                  \
            rb_entry(up, RBSTRUCT, RBFIELD)->SIZEFIELD++;                                          \
        rb_entry(node, RBSTRUCT, RBFIELD)->SIZEFIELD = 1;                                          \
        rb_link_node(node, parent, link);                                                          \
        rb_insert_augmented(node, root, &PREFIX##_callbacks);                                      \
    }                                                                                              \
                                                                                                   \
    static inline __attribute__((unused)) void PREFIX##_erase(struct rb_node *node,                \
                                                              struct rb_root *root)                \
    {                                                                                              \
        rb_erase_augmented(node, root, &PREFIX##_callbacks);                                       \
    }                                                                                              \
                                                                                                   \
    static inline __attribute__((unused)) void PREFIX##_replace(                                   \
        struct rb_node *victim, struct rb_node *new_node, struct rb_root *root)                    \
    {                                                                                              \
        rb_entry(new_node, RBSTRUCT, RBFIELD)->SIZEFIELD =                                         \
            rb_entry(victim, RBSTRUCT, RBFIELD)->SIZEFIELD;                                        \
        rb_replace_node(victim, new_node, root);                                                   \
    }                                                                                              \
                                                                                                   \
    static inline __attribute__((unused)) size_t PREFIX##_rank(const struct rb_node *node)         \
    {                                                                                              \
        size_t rank = PREFIX##_size(node->rb_left);                                                \
        const struct rb_node *parent;                                                              \
                                                                                                   \
        /* Every ancestor reached from its right side precedes node, with                          \
         * its whole left subtree: size(parent) - size(node) of them, read                         \
         * from the path itself rather than from the sibling, which the                            \
         * climb would otherwise load for this alone. */                                           \
        for (; (parent = rb_parent(node)); node = parent) {                                        \
            if (node == parent->rb_right)                                                          \
                rank += PREFIX##_size(parent) - PREFIX##_size(node);                               \
        }                                                                                          \
        return rank;                                                                               \
    }                                                                                              \
                                                                                                   \
    static inline __attribute__((unused)) struct rb_node *PREFIX##_select(                         \
        const struct rb_root *root, size_t k)                                                      \
    {                                                                                              \
        struct rb_node *node = root->rb_node;                                                      \
                                                                                                   \
        while (node) {                                                                             \
            size_t left = PREFIX##_size(node->rb_left);                                            \
                                                                                                   \
            if (k < left) {                                                                        \
                node = node->rb_left;                                                              \
            } else if (k == left) {                                                                \
                return node;                                                                       \
            } else {                                                                               \
                k -= left + 1;                                                                     \
                node = node->rb_right;                                                             \
            }                                                                                      \
        }                                                                                          \
        return NULL;                                                                               \
    }                                                                                              \
                                                                                                   \
    static inline __attribute__((unused)) void PREFIX##_warm(                                      \
        const struct rb_node *node, size_t n, int rev,                                             \
        void (*prefetch)(const struct rb_node *, size_t), size_t hint)                             \
    {                                                                                              \
        rb_warm_(node, n, !rev, PREFIX##_size, prefetch, hint);                                    \
    }

#endif
