/*
 * rbtree.h - an intrusive red-black tree: nodes live inside the caller's
 * structs, and the tree has no keys, no comparator and never allocates.
 *
 * Owns: nothing but the links. The caller owns every entry, before, during
 * and after its time in a tree; the tree never frees. To delete an entry,
 * rb_erase() it, then free it. Must not know: what a key is or how entries
 * compare; that is why the caller does its own descent (below) and the
 * tree only links and rebalances.
 *
 * Invariants (checked by rb_check()): the red-black properties numbered at
 * the top of rbtree.c, and every node's parent pointer names the node whose
 * child it is (NULL for the root). An rb_node that is in no tree should be
 * RB_CLEAR_NODE()d by its owner if it wants RB_EMPTY_NODE() to tell so; the
 * tree itself never clears a node it erases.
 *
 * Not thread-safe: one thread owns a tree and everything in it.
 *
 * Names: rb_ for the API; a name that also ends in _ (rb_parent_color_,
 * rb_erase_color_) is the tree's own, for rbtree.c and rbtree_augmented.h
 * only. (The kernel writes these __rb_*, which C reserves outside the
 * implementation.)
 *
 * Searching and inserting are written by the caller, who owns the keys: walk
 * a `struct rb_node **link` down from the root, return the existing entry on
 * a duplicate, otherwise rb_link_node() at the empty link and
 * rb_insert_color() to rebalance. Two examples follow; the same code is
 * compiled and run by tests/unit/test_rbtree_example.c, and the test
 * rbtree_example_sync fails if the two drift apart.
 *
 * BEGIN EXAMPLE int-key
 *     struct int_item {
 *         struct rb_node node;
 *         int key;
 *     };
 *
 *     // Returns the item holding `key`, or NULL.
 *     static struct int_item *int_search(const struct rb_root *root, int key)
 *     {
 *         const struct rb_node *n = root->rb_node;
 *
 *         while (n) {
 *             struct int_item *item = rb_entry(n, struct int_item, node);
 *
 *             if (key < item->key)
 *                 n = n->rb_left;
 *             else if (key > item->key)
 *                 n = n->rb_right;
 *             else
 *                 return item;
 *         }
 *         return NULL;
 *     }
 *
 *     // Links `item` and returns NULL, or, when its key is taken, leaves the
 *     // tree alone and returns the item that holds it.
 *     static struct int_item *int_insert(struct rb_root *root, struct int_item *item)
 *     {
 *         struct rb_node **link = &root->rb_node, *parent = NULL;
 *
 *         while (*link) {
 *             struct int_item *cur = rb_entry(*link, struct int_item, node);
 *
 *             parent = *link;
 *             if (item->key < cur->key)
 *                 link = &parent->rb_left;
 *             else if (item->key > cur->key)
 *                 link = &parent->rb_right;
 *             else
 *                 return cur;
 *         }
 *         rb_link_node(&item->node, parent, link);
 *         rb_insert_color(&item->node, root);
 *         return NULL;
 *     }
 * END EXAMPLE int-key
 *
 * BEGIN EXAMPLE string-key
 *     struct str_item {
 *         struct rb_node node;
 *         const char *key; // NUL-terminated, owned by whoever owns the item
 *     };
 *
 *     static struct str_item *str_search(const struct rb_root *root, const char *key)
 *     {
 *         const struct rb_node *n = root->rb_node;
 *
 *         while (n) {
 *             struct str_item *item = rb_entry(n, struct str_item, node);
 *             int cmp = strcmp(key, item->key);
 *
 *             if (cmp < 0)
 *                 n = n->rb_left;
 *             else if (cmp > 0)
 *                 n = n->rb_right;
 *             else
 *                 return item;
 *         }
 *         return NULL;
 *     }
 *
 *     static struct str_item *str_insert(struct rb_root *root, struct str_item *item)
 *     {
 *         struct rb_node **link = &root->rb_node, *parent = NULL;
 *
 *         while (*link) {
 *             struct str_item *cur = rb_entry(*link, struct str_item, node);
 *             int cmp = strcmp(item->key, cur->key);
 *
 *             parent = *link;
 *             if (cmp < 0)
 *                 link = &parent->rb_left;
 *             else if (cmp > 0)
 *                 link = &parent->rb_right;
 *             else
 *                 return cur;
 *         }
 *         rb_link_node(&item->node, parent, link);
 *         rb_insert_color(&item->node, root);
 *         return NULL;
 *     }
 * END EXAMPLE string-key
 *
 * Freeing a whole tree is O(n) without rebalancing: visit it in post-order,
 * where every child comes before its parent, so an entry can be freed as
 * soon as it is visited:
 *
 *     struct int_item *pos, *next;
 *     rbtree_postorder_for_each_entry_safe(pos, next, &root, node)
 *         free(pos);
 *     root = RB_ROOT;
 *
 * Augmented trees (a value per node computed from its subtree) are in
 * rbtree_augmented.h; order statistics (rank, select) in rbtree_order.h.
 */
#ifndef RBKV_RBTREE_H
#define RBKV_RBTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One link of the tree. The parent pointer and the node's colour share one
 * word: nodes are at least 4-byte aligned, so the low bits of a node's
 * address are always zero and bit 0 can hold the colour. This keeps the node
 * at three words, which matters when the keyspace holds millions of them.
 * Use rb_parent() rather than reading rb_parent_color_.
 */
struct rb_node {
    uintptr_t rb_parent_color_;
    struct rb_node *rb_right;
    struct rb_node *rb_left;
};

_Static_assert(sizeof(struct rb_node) == 3 * sizeof(void *),
               "rb_node must stay three words (24 bytes on x86-64)");
_Static_assert(_Alignof(struct rb_node) >= 4, "the low two bits of a node address must be free");

struct rb_root {
    struct rb_node *rb_node;
};

/*
 * A root that also remembers its leftmost node, so rb_first_cached() is O(1):
 * useful when the smallest entry is wanted far more often than the tree
 * changes (a timer queue). Keep it current by using only the _cached calls
 * on such a root.
 */
struct rb_root_cached {
    struct rb_root rb_root;
    struct rb_node *rb_leftmost;
};

/* An empty tree, as an initializer or a value: `struct rb_root r = RB_ROOT;`. */
#define RB_ROOT ((struct rb_root){ NULL })
#define RB_ROOT_CACHED ((struct rb_root_cached){ { NULL }, NULL })

/* The struct of type `type` whose member `member` is the node `ptr`. */
#define rb_entry(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

#define rb_parent(node) ((struct rb_node *)((node)->rb_parent_color_ & ~(uintptr_t)3))

#define RB_EMPTY_ROOT(root) ((root)->rb_node == NULL)

/* A node that is its own parent is in no tree: an erased node cannot be
 * mistaken for that, because no tree ever links a node to itself. */
#define RB_EMPTY_NODE(node) ((node)->rb_parent_color_ == (uintptr_t)(node))
#define RB_CLEAR_NODE(node) ((node)->rb_parent_color_ = (uintptr_t)(node))

#define rb_first_cached(root) ((root)->rb_leftmost)

/*
 * Puts `node` at the empty link `*rb_link` (found by the caller's descent)
 * under `parent` (NULL when the tree is empty), coloured red. The tree is not
 * balanced until rb_insert_color() (or an augmented insert) runs.
 */
static inline void rb_link_node(struct rb_node *node, struct rb_node *parent,
                                struct rb_node **rb_link)
{
    /* The colour bit left at zero is red: a new node adds no black height. */
    node->rb_parent_color_ = (uintptr_t)parent;
    node->rb_left = NULL;
    node->rb_right = NULL;
    *rb_link = node;
}

/* Rebalances after rb_link_node(). O(log n), at most two rotations. */
void rb_insert_color(struct rb_node *node, struct rb_root *root);

/* Unlinks `node` and rebalances; the node's own links are left stale and the
 * caller still owns (and may free) it. O(log n), at most three rotations. */
void rb_erase(struct rb_node *node, struct rb_root *root);

/* Puts `new_node` exactly where `victim` is, with its colour and children,
 * without rebalancing. The caller promises both sort the same. */
void rb_replace_node(struct rb_node *victim, struct rb_node *new_node, struct rb_root *root);

/* In-order traversal: the smallest or largest node, and a node's neighbours.
 * NULL past either end, on an empty tree, and for an RB_EMPTY_NODE. The
 * result is not const because the caller owns the entries, as in Linux. */
struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);
struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);

/* Post-order traversal: children before their parent. NULL at the end. */
struct rb_node *rb_first_postorder(const struct rb_root *root);
struct rb_node *rb_next_postorder(const struct rb_node *node);

/*
 * Takes a tree apart in slices, children before parents: descends from *at
 * (the root's node on the first call) to a node without children, unlinks it
 * from its parent (or empties root), leaves *at at that parent for the next
 * call and returns it; NULL once the tree is empty. The nodes left always
 * form a tree whose parent links hold, so a walk up from any of them meets
 * only nodes not yet taken, and the caller may free each node taken at once.
 * No rebalancing: O(n) for the whole tree.
 */
static inline struct rb_node *rb_take_leaf(struct rb_root *root, struct rb_node **at)
{
    struct rb_node *rb = *at;
    if (!rb)
        return NULL;
    for (;;) {
        struct rb_node *child = rb->rb_left ? rb->rb_left : rb->rb_right;
        if (!child)
            break;
        rb = child;
    }
    struct rb_node *up = rb_parent(rb);
    if (!up)
        root->rb_node = NULL;
    else if (up->rb_left == rb)
        up->rb_left = NULL;
    else
        up->rb_right = NULL;
    *at = up;
    return rb;
}

/* Variants for a root that caches its leftmost node. `leftmost` tells
 * rb_insert_color_cached() that the caller's descent never went right, so the
 * new node is the smallest. */
void rb_insert_color_cached(struct rb_node *node, struct rb_root_cached *root, bool leftmost);
void rb_erase_cached(struct rb_node *node, struct rb_root_cached *root);
void rb_replace_node_cached(struct rb_node *victim, struct rb_node *new_node,
                            struct rb_root_cached *root);

/*
 * Checks the tree's structure: the root is black, no red node has a red
 * child, every path from the root down to an empty link crosses the same
 * number of black nodes, and every child's parent pointer names its parent
 * (the root's names none). Returns the number of nodes, or -1 with *why (if
 * why is not NULL) set to a static message; a tree of more than INT_MAX nodes
 * is reported as an error too. O(n) time, O(height) stack. Key order and
 * augmented values are the caller's to check: it owns the keys.
 */
int rb_check(const struct rb_root *root, const char **why);

/* Used by rbtree_postorder_for_each_entry_safe: the entry at `offset` before
 * `node`, or NULL for a NULL node, without evaluating `node` twice. */
static inline void *rb_entry_or_null_(const struct rb_node *node, size_t offset)
{
    return node ? (char *)node - offset : NULL;
}

/*
 * Visits every entry of the tree under `root` in post-order, so the body may
 * free `pos`: the next entry `n` is found before the body runs. The tree is
 * left dangling; reset the root afterwards. O(n) for the whole walk.
 */
#define rbtree_postorder_for_each_entry_safe(pos, n, root, field)                                   \
    for ((pos) = rb_entry_or_null_(rb_first_postorder(root), offsetof(__typeof__(*(pos)), field)); \
         (pos) && ((n) = rb_entry_or_null_(rb_next_postorder(&(pos)->field),                      \
                                            offsetof(__typeof__(*(pos)), field)),                   \
                   1);                                                                              \
         (pos) = (n))

#endif
