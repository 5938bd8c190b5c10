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
 *
 * All are static and marked unused, so a file may use any subset. Use the
 * macro at file scope; it ends with a function body, so a semicolon after it
 * is optional.
 */
#ifndef RBKV_RBTREE_ORDER_H
#define RBKV_RBTREE_ORDER_H

#include "rbtree_augmented.h"

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
    }

#endif
