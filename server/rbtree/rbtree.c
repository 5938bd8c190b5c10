/*
 * rbtree.c - rebalancing, traversal and checking of the intrusive red-black
 * tree declared in rbtree.h.
 *
 * Owns: the shape and colours of a tree, never its entries (no allocation, no
 * keys). Must not know how entries compare: callers link new nodes at the
 * place their own search found, and everything here keeps in-order sequence
 * unchanged.
 *
 * The red-black properties, referred to by number below:
 *   1. Every node is red or black.
 *   2. The root is black.
 *   3. Every empty link (NULL child) counts as a black leaf.
 *   4. A red node has no red child.
 *   5. Every path from a node down to an empty link below it crosses the same
 *      number of black nodes: that node's black height.
 * Together 4 and 5 bound the height by 2 log2(n + 1): the shortest root-leaf
 * path is all black, and the longest can at most interleave one red per black.
 *
 * Diagrams: a capital letter is a black node, a small letter a red node, and
 * (x) a node of either colour. Each fix-up is drawn with the short or red side
 * on the left; the code handles the mirror image with the same lines by
 * indexing children by direction.
 *
 * One core serves plain and augmented trees: the fix-ups are inlined with the
 * caller's rotate callback, and for the plain tree that callback is empty, so
 * the compiler removes it (rb_insert_color and rb_erase call nothing).
 */
#include "rbtree_augmented.h"

#include <limits.h>

/* Directions index a node's two children, so mirrored cases share code. */
#define RB_DIR_LEFT 0
#define RB_DIR_RIGHT 1

typedef void rb_rotate_cb(struct rb_node *old, struct rb_node *new_node);

static inline struct rb_node **rb_link_(struct rb_node *node, int dir)
{
    return dir == RB_DIR_LEFT ? &node->rb_left : &node->rb_right;
}

static inline struct rb_node *rb_get_(const struct rb_node *node, int dir)
{
    return dir == RB_DIR_LEFT ? node->rb_left : node->rb_right;
}

/*
 * Rotates at `x` so that x goes down on side `down` and its child `y` on the
 * other side comes up in its place. In-order sequence (a x b y c) and every
 * colour stay as they were; the callers recolour. Drawn for down = left:
 *
 *         (x)                 (y)
 *         / \                 / \
 *       (a) (y)      ->     (x) (c)
 *           / \             / \
 *         (b) (c)         (a) (b)
 */
static inline __attribute__((always_inline)) void
rb_rotate_(struct rb_node *x, int down, struct rb_root *root, rb_rotate_cb *augment_rotate)
{
    struct rb_node *y = rb_get_(x, !down);
    struct rb_node *b = rb_get_(y, down);
    struct rb_node *parent = rb_parent(x);

    *rb_link_(x, !down) = b;
    if (b)
        rb_set_parent(b, x);
    *rb_link_(y, down) = x;
    rb_set_parent(y, parent);
    rb_change_child_(x, y, parent, root);
    rb_set_parent(x, y);
    /* After the links: y's value is x's old one (same nodes below), x's is
     * recomputed from its new children. */
    augment_rotate(x, y);
}

/*
 * Restores property 4 after a red node was linked (properties 1, 3 and 5 hold
 * already: a red node adds no black height). The only possible violation is
 * `node` red under a red parent; each pass either ends it or moves it two
 * levels up.
 */
static inline __attribute__((always_inline)) void
rb_insert_(struct rb_node *node, struct rb_root *root, rb_rotate_cb *augment_rotate)
{
    for (;;) {
        struct rb_node *parent = rb_parent(node), *gparent, *uncle;
        int side;

        if (!parent) {
            /* node is the root: painting it black restores property 2 and
             * adds one to every path's count, which keeps property 5. */
            rb_set_color_(node, RB_BLACK);
            return;
        }
        if (rb_is_black(parent))
            return;
        /* A red parent is not the root (property 2), so gparent exists, and
         * it is black (property 4 held before this insert). */
        gparent = rb_parent(parent);
        side = parent == gparent->rb_left ? RB_DIR_LEFT : RB_DIR_RIGHT;
        uncle = rb_get_(gparent, !side);

        if (rb_is_red_node_(uncle)) {
            /*
             * Case 1, red uncle: push G's blackness down to p and u.
             *
             *         G                 g
             *        / \               / \
             *       p   u     ->      P   U
             *      /                 /
             *     n                 n
             *
             * Every path through G still crosses one black node among G, P,
             * U (property 5), and n's parent is black (property 4). But g may
             * now be red under a red parent: go again from g.
             */
            rb_set_color_(parent, RB_BLACK);
            rb_set_color_(uncle, RB_BLACK);
            rb_set_color_(gparent, RB_RED);
            node = gparent;
            continue;
        }

        if (node == rb_get_(parent, !side)) {
            /*
             * Case 2, black uncle, n the inner grandchild: rotate at p.
             *
             *         G                 G
             *        / \               / \
             *       p   U     ->      n   U
             *        \               /
             *         n             p
             *
             * Restores nothing yet (both are red, so no black height
             * changes); it turns the red pair into the outer line that case
             * 3 handles, with p now the lower one.
             */
            rb_rotate_(parent, side, root, augment_rotate);
            parent = node;
        }

        /*
         * Case 3, black uncle, the red pair on the outer line: rotate at G
         * toward the uncle, and swap the colours of G and p.
         *
         *         G                 P
         *        / \               / \
         *       p   U     ->      n   g
         *      /                       \
         *     n                         U
         *
         * Restores property 4: the top of the subtree is black again, as G
         * was, so nothing above changes. Property 5 holds: paths through n
         * cross P where they crossed G, paths through U cross P and U as
         * they crossed G and U.
         */
        rb_rotate_(gparent, !side, root, augment_rotate);
        rb_set_color_(parent, RB_BLACK);
        rb_set_color_(gparent, RB_RED);
        return;
    }
}

/*
 * Restores property 5 after erase removed a black node: every path through
 * `node` (the subtree on one side of `parent`; at first an empty link) crosses
 * one black node fewer than paths through its sibling. Each pass either ends
 * the deficit or moves it one level up; at most three rotations in all.
 */
static inline __attribute__((always_inline)) void
rb_erase_fixup_(struct rb_node *parent, struct rb_root *root, rb_rotate_cb *augment_rotate)
{
    struct rb_node *node = NULL;

    for (;;) {
        /* At first node is NULL: the short side is the empty link, and the
         * other side cannot be empty since it has black height at least 1. */
        int side = node == parent->rb_left ? RB_DIR_LEFT : RB_DIR_RIGHT;
        struct rb_node *sibling = rb_get_(parent, !side);
        struct rb_node *near, *far;

        if (rb_is_red(sibling)) {
            /*
             * Case 1, red sibling: rotate at P toward N, swap colours of P
             * and s.
             *
             *         P                 S
             *        / \               / \
             *       N   s     ->      p   Sr
             *          / \           / \
             *         Sl  Sr        N   Sl
             *
             * Restores nothing yet: N is still short. But N's new sibling Sl
             * is black (property 4 held under s), and their parent is red, so
             * cases 2 to 4 below finish here.
             */
            rb_rotate_(parent, side, root, augment_rotate);
            rb_set_color_(sibling, RB_BLACK);
            rb_set_color_(parent, RB_RED);
            sibling = rb_get_(parent, !side);
        }

        near = rb_get_(sibling, side);
        far = rb_get_(sibling, !side);
        if (!rb_is_red_node_(far)) {
            if (!rb_is_red_node_(near)) {
                /*
                 * Case 2, black sibling with two black children: paint S red.
                 *
                 *        (p)               (p)
                 *        / \               / \
                 *       N   S     ->      N   s
                 *          / \               / \
                 *         Sl  Sr            Sl  Sr
                 *
                 * Now both sides of p are one short. A red p turns black and
                 * that restores property 5 (and 4: s's parent is black).
                 * Otherwise all of p's subtree is short: go again one level
                 * up, unless p is the root, where every path lost one black
                 * node alike.
                 */
                rb_set_color_(sibling, RB_RED);
                if (rb_is_red(parent)) {
                    rb_set_color_(parent, RB_BLACK);
                    return;
                }
                node = parent;
                parent = rb_parent(node);
                if (!parent)
                    return;
                continue;
            }
            /*
             * Case 3, black sibling, red near child, black far child: rotate
             * at S away from N, swap colours of S and sl.
             *
             *        (p)               (p)
             *        / \               / \
             *       N   S     ->      N   Sl
             *          / \                 \
             *         sl  Sr                s
             *                                \
             *                                 Sr
             *
             * Restores nothing yet, changes no black height: it gives N a
             * black sibling with a red far child, which is case 4.
             */
            rb_rotate_(sibling, !side, root, augment_rotate);
            rb_set_color_(near, RB_BLACK);
            rb_set_color_(sibling, RB_RED);
            far = sibling;
            sibling = near;
        }

        /*
         * Case 4, black sibling with a red far child: rotate at p toward N;
         * S takes p's colour, p and sr turn black.
         *
         *        (p)               (s)
         *        / \               / \
         *       N   S     ->      P   Sr
         *          / \           / \
         *       (sl)  sr        N  (sl)
         *
         * Restores property 5: paths through N gain the black P; paths
         * through sl cross P and (s) as they crossed (p) and S; paths
         * through Sr cross (s) and Sr as they crossed (p) and S. The top keeps
         * p's colour, so nothing above changes, and property 4 holds.
         */
        rb_rotate_(parent, side, root, augment_rotate);
        rb_set_color_(sibling, rb_color(parent));
        rb_set_color_(parent, RB_BLACK);
        rb_set_color_(far, RB_BLACK);
        return;
    }
}

/* The plain tree's callbacks: no value to maintain. Being static and empty,
 * they vanish once the core is inlined with them. */
static inline void rb_dummy_propagate_(struct rb_node *node, struct rb_node *stop)
{
    (void)node;
    (void)stop;
}

static inline void rb_dummy_copy_(struct rb_node *old, struct rb_node *new_node)
{
    (void)old;
    (void)new_node;
}

static inline void rb_dummy_rotate_(struct rb_node *old, struct rb_node *new_node)
{
    (void)old;
    (void)new_node;
}

static const struct rb_augment_callbacks rb_dummy_callbacks_ = {
    .propagate = rb_dummy_propagate_,
    .copy = rb_dummy_copy_,
    .rotate = rb_dummy_rotate_,
};

void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
    rb_insert_(node, root, rb_dummy_rotate_);
}

void rb_insert_augmented_(struct rb_node *node, struct rb_root *root, rb_rotate_cb *augment_rotate)
{
    rb_insert_(node, root, augment_rotate);
}

void rb_erase(struct rb_node *node, struct rb_root *root)
{
    struct rb_node *rebalance = rb_erase_augmented_(node, root, &rb_dummy_callbacks_);

    if (rebalance)
        rb_erase_fixup_(rebalance, root, rb_dummy_rotate_);
}

void rb_erase_color_(struct rb_node *parent, struct rb_root *root, rb_rotate_cb *augment_rotate)
{
    rb_erase_fixup_(parent, root, augment_rotate);
}

void rb_replace_node(struct rb_node *victim, struct rb_node *new_node, struct rb_root *root)
{
    struct rb_node *parent = rb_parent(victim);

    *new_node = *victim;
    if (victim->rb_left)
        rb_set_parent(victim->rb_left, new_node);
    if (victim->rb_right)
        rb_set_parent(victim->rb_right, new_node);
    rb_change_child_(victim, new_node, parent, root);
}

void rb_insert_color_cached(struct rb_node *node, struct rb_root_cached *root, bool leftmost)
{
    if (leftmost)
        root->rb_leftmost = node;
    rb_insert_color(node, &root->rb_root);
}

void rb_erase_cached(struct rb_node *node, struct rb_root_cached *root)
{
    if (root->rb_leftmost == node)
        root->rb_leftmost = rb_next(node);
    rb_erase(node, &root->rb_root);
}

void rb_replace_node_cached(struct rb_node *victim, struct rb_node *new_node,
                            struct rb_root_cached *root)
{
    if (root->rb_leftmost == victim)
        root->rb_leftmost = new_node;
    rb_replace_node(victim, new_node, &root->rb_root);
}

/* The last node reached by always going `dir` from `node`. The results of the
 * traversal functions drop const: the caller owns the entries. */
static struct rb_node *rb_extreme_(const struct rb_node *node, int dir)
{
    struct rb_node *next;

    while ((next = rb_get_(node, dir)))
        node = next;
    return (struct rb_node *)node;
}

/* In-order neighbour of `node` on side `dir`: the nearest node of its `dir`
 * subtree, else the first ancestor reached from its other side. */
static struct rb_node *rb_step_(const struct rb_node *node, int dir)
{
    struct rb_node *parent;

    if (RB_EMPTY_NODE(node))
        return NULL;
    if (rb_get_(node, dir))
        return rb_extreme_(rb_get_(node, dir), !dir);
    while ((parent = rb_parent(node)) && node == rb_get_(parent, dir))
        node = parent;
    return parent;
}

struct rb_node *rb_first(const struct rb_root *root)
{
    return root->rb_node ? rb_extreme_(root->rb_node, RB_DIR_LEFT) : NULL;
}

struct rb_node *rb_last(const struct rb_root *root)
{
    return root->rb_node ? rb_extreme_(root->rb_node, RB_DIR_RIGHT) : NULL;
}

struct rb_node *rb_next(const struct rb_node *node)
{
    return rb_step_(node, RB_DIR_RIGHT);
}

struct rb_node *rb_prev(const struct rb_node *node)
{
    return rb_step_(node, RB_DIR_LEFT);
}

/* The first node in post-order of the subtree under `node`: go down, left
 * when possible, until a node without children. */
static struct rb_node *rb_first_postorder_(const struct rb_node *node)
{
    for (;;) {
        if (node->rb_left)
            node = node->rb_left;
        else if (node->rb_right)
            node = node->rb_right;
        else
            return (struct rb_node *)node;
    }
}

struct rb_node *rb_first_postorder(const struct rb_root *root)
{
    return root->rb_node ? rb_first_postorder_(root->rb_node) : NULL;
}

struct rb_node *rb_next_postorder(const struct rb_node *node)
{
    struct rb_node *parent;

    if (!node)
        return NULL;
    /* Only reads node's parent word, so the caller may free node right after. */
    parent = rb_parent(node);
    if (parent && node == parent->rb_left && parent->rb_right)
        return rb_first_postorder_(parent->rb_right);
    return parent;
}

/* No valid tree is deeper than 2 log2(n + 1) < 2 * pointer bits; a deeper
 * path means corruption, and stopping there bounds the checker's stack. */
#define RB_CHECK_MAX_DEPTH (2 * (int)sizeof(void *) * CHAR_BIT)

struct rb_check_state {
    const char *why;
    size_t count;
};

/* Returns the black height of the subtree under `node`, which must hang under
 * `parent`, or -1 after setting st->why. */
static int rb_check_subtree_(const struct rb_node *node, const struct rb_node *parent, int depth,
                              struct rb_check_state *st)
{
    int left, right;

    if (!node)
        return 0;
    if (rb_parent(node) != parent) {
        st->why = "a node's parent pointer does not name its parent";
        return -1;
    }
    if (depth > RB_CHECK_MAX_DEPTH) {
        st->why = "a path is longer than any red-black tree allows";
        return -1;
    }
    if (node->rb_left && node->rb_left == node->rb_right) {
        st->why = "a node links the same child on both sides";
        return -1;
    }
    if (rb_is_red(node) && (rb_is_red_node_(node->rb_left) || rb_is_red_node_(node->rb_right))) {
        st->why = "a red node has a red child";
        return -1;
    }
    if (++st->count > INT_MAX) {
        st->why = "more than INT_MAX nodes";
        return -1;
    }
    left = rb_check_subtree_(node->rb_left, node, depth + 1, st);
    if (left < 0)
        return -1;
    right = rb_check_subtree_(node->rb_right, node, depth + 1, st);
    if (right < 0)
        return -1;
    if (left != right) {
        st->why = "two paths cross different numbers of black nodes";
        return -1;
    }
    return left + rb_is_black(node);
}

int rb_check(const struct rb_root *root, const char **why)
{
    struct rb_check_state st = { NULL, 0 };

    if (root->rb_node && rb_is_red(root->rb_node))
        st.why = "the root is red";
    else
        rb_check_subtree_(root->rb_node, NULL, 0, &st);
    if (st.why) {
        if (why)
            *why = st.why;
        return -1;
    }
    return (int)st.count;
}

/*
 * Cutting a run of consecutive nodes out of a tree in O(log^2 n), by split
 * and join (Tarjan's, bottom-up along parent pointers), so a range of a
 * million keys leaves the keyspace without a million erases.
 *
 * join(l, x, r), every node of l before x and every node of r after it: both
 * roots are painted black (a tree's root may be either colour, property 2
 * makes it black), then with equal black heights x becomes a black root over
 * the two; otherwise x goes red down the taller tree's inner spine to the
 * first black node c of the shorter tree's black height, takes c's place with
 * c and the shorter tree as its children, and the insert fix-up repairs a red
 * parent above it (property 4); property 5 holds since x is red over two
 * subtrees of equal black height.
 *
 *          L                     L
 *         / \                   / \
 *       ..   C    join(L,x,R)  ..   x      (bh(C) == bh(R), C and R black)
 *           / \      ->            / \
 *                                 C   R
 *
 * split(x) walks from x up: an ancestor reached from its right side goes,
 * with its left subtree, in front of what is before x; one reached from its
 * left side goes, with its right subtree, behind what is after x. Each join
 * measures black heights down a spine (O(log n)), so a split costs
 * O(log^2 n): about 400 steps at a million nodes.
 */

/* Recomputes the augmented value of node and each ancestor, never stopping
 * early: a node that took a new place may hold a stale value equal to the
 * right one by chance. rotate(n, n) copies n onto itself, then recomputes
 * n from its children. */
static void rb_recompute_up_(struct rb_node *node, const struct rb_augment_callbacks *augment)
{
    for (; node; node = rb_parent(node))
        augment->rotate(node, node);
}

/* Black nodes on the path from node down its left side (every path alike,
 * property 5). */
static int rb_black_height_(const struct rb_node *node)
{
    int h = 0;

    for (; node; node = node->rb_left)
        h += rb_is_black(node);
    return h;
}

/* The subtree under node as a tree of its own: no parent, a black root. */
static struct rb_node *rb_make_root_(struct rb_node *node)
{
    if (node)
        rb_set_parent_color(node, NULL, RB_BLACK);
    return node;
}

struct rb_node *rb_join_augmented(struct rb_node *l, struct rb_node *x, struct rb_node *r,
                                  const struct rb_augment_callbacks *augment)
{
    int hl, hr, h, target, dir;
    struct rb_node *tall, *low, *c, *parent = NULL;
    struct rb_root tree;

    l = rb_make_root_(l);
    r = rb_make_root_(r);
    hl = rb_black_height_(l);
    hr = rb_black_height_(r);
    if (hl == hr) {
        x->rb_left = l;
        x->rb_right = r;
        if (l)
            rb_set_parent(l, x);
        if (r)
            rb_set_parent(r, x);
        rb_set_parent_color(x, NULL, RB_BLACK);
        augment->rotate(x, x);
        return x;
    }
    /* Down the taller tree's side that faces the shorter one. */
    dir = hl > hr ? RB_DIR_RIGHT : RB_DIR_LEFT;
    tall = hl > hr ? l : r;
    low = hl > hr ? r : l;
    h = hl > hr ? hl : hr;
    target = hl > hr ? hr : hl;
    c = tall;
    /* h is c's black height; it drops by one below each black node, so it
     * meets target at a black node or at the empty link (target 0). */
    while (c && !(rb_is_black(c) && h == target)) {
        if (rb_is_black(c))
            h--;
        parent = c;
        c = rb_get_(c, dir);
    }
    /* tall's root is black and taller than target, so parent is set. */
    *rb_link_(parent, dir) = x;
    rb_set_parent_color(x, parent, RB_RED);
    *rb_link_(x, !dir) = c;
    *rb_link_(x, dir) = low;
    if (c)
        rb_set_parent(c, x);
    if (low)
        rb_set_parent(low, x);
    rb_recompute_up_(x, augment);
    tree.rb_node = tall;
    rb_insert_augmented_(x, &tree, augment->rotate);
    return tree.rb_node;
}

void rb_split_augmented(struct rb_root *root, struct rb_node *x, struct rb_root *before,
                        struct rb_root *after, const struct rb_augment_callbacks *augment)
{
    struct rb_node *l = x->rb_left, *r = x->rb_right;
    struct rb_node *cur = x, *p = rb_parent(x);

    while (p) {
        /* Read p's links before a join relinks p. */
        struct rb_node *up = rb_parent(p);

        if (cur == p->rb_right)
            l = rb_join_augmented(p->rb_left, p, l, augment);
        else
            r = rb_join_augmented(r, p, p->rb_right, augment);
        cur = p;
        p = up;
    }
    before->rb_node = rb_make_root_(l);
    after->rb_node = rb_make_root_(r);
    root->rb_node = NULL;
    x->rb_left = x->rb_right = NULL;
    rb_set_parent_color(x, NULL, RB_BLACK);
}

void rb_cut_augmented(struct rb_root *root, struct rb_node *first, struct rb_node *last,
                      struct rb_root *cut, const struct rb_augment_callbacks *augment)
{
    struct rb_root before, rest, mid = RB_ROOT, after;
    struct rb_node *join;

    rb_split_augmented(root, first, &before, &rest, augment);
    if (last != first)
        rb_split_augmented(&rest, last, &mid, &after, augment);
    else
        after = rest;
    cut->rb_node = rb_join_augmented(NULL, first, mid.rb_node, augment);
    if (last != first)
        cut->rb_node = rb_join_augmented(cut->rb_node, last, NULL, augment);
    if (!before.rb_node || !after.rb_node) {
        root->rb_node = before.rb_node ? before.rb_node : after.rb_node;
        return;
    }
    /* Two trees and no node between them: the last of `before` joins them. */
    join = rb_last(&before);
    rb_erase_augmented(join, &before, augment);
    root->rb_node = rb_join_augmented(before.rb_node, join, after.rb_node, augment);
}
