/*
 * ctree.c - the counted chunk tree (see ctree.h).
 *
 * A new chunk is linked beside a known neighbour, never searched for: the
 * callers know where their elements go. The totals are the tree's augmented
 * value, kept through rotations by the callbacks below and along a path by
 * ct_totals_add when only a chunk's count changed.
 */
#include "ctree.h"

#include <stdbool.h>
#include <string.h>

#include "mem.h"
#include "rbtree_augmented.h"

static bool total_compute(struct ct_chunk *c, bool exit)
{
    size_t t = c->n + ct_total(c->rb.rb_left) + ct_total(c->rb.rb_right);
    if (exit && c->total == t)
        return true;
    c->total = (uint32_t)t;
    return false;
}

RB_DECLARE_CALLBACKS(static, ct_cb, struct ct_chunk, rb, total, total_compute);

struct ct_chunk *ct_new(size_t cap)
{
    struct ct_chunk *c = xmalloc(CT_HDR + cap);
    memset(c, 0, CT_HDR);
    return c;
}

size_t ct_cap(const struct ct_chunk *c)
{
    return xsize(c) - CT_HDR;
}

void ct_totals_add(struct ct_chunk *c, long delta)
{
    for (struct rb_node *rb = &c->rb; rb; rb = rb_parent(rb))
        ct_of(rb)->total = (uint32_t)((long)ct_of(rb)->total + delta);
}

/* The new node's place is the leftmost spot of prev's right subtree (of
 * the whole tree when prev is NULL). */
void ct_link_after(struct rb_root *root, struct ct_chunk *prev, struct ct_chunk *c)
{
    struct rb_node *parent = prev ? &prev->rb : NULL;
    struct rb_node **link = prev ? &prev->rb.rb_right : &root->rb_node;

    while (*link) {
        parent = *link;
        link = &parent->rb_left;
    }
    for (struct rb_node *up = parent; up; up = rb_parent(up))
        ct_of(up)->total += c->n;
    c->total = c->n;
    rb_link_node(&c->rb, parent, link);
    rb_insert_augmented(&c->rb, root, &ct_cb);
}

void ct_unlink_free(struct rb_root *root, struct ct_chunk *c)
{
    rb_erase_augmented(&c->rb, root, &ct_cb);
    xfree(c);
}

/* The links are read before the realloc, so nothing reads the old block
 * after it. */
struct ct_chunk *ct_resize(struct rb_root *root, struct ct_chunk *c, size_t cap)
{
    struct rb_node *parent = rb_parent(&c->rb);
    bool left = parent && parent->rb_left == &c->rb;
    struct ct_chunk *nc = xrealloc(c, CT_HDR + cap);
    if (nc == c)
        return nc;
    if (!parent)
        root->rb_node = &nc->rb;
    else if (left)
        parent->rb_left = &nc->rb;
    else
        parent->rb_right = &nc->rb;
    if (nc->rb.rb_left)
        rb_set_parent(nc->rb.rb_left, &nc->rb);
    if (nc->rb.rb_right)
        rb_set_parent(nc->rb.rb_right, &nc->rb);
    return nc;
}

struct ct_chunk *ct_select(const struct rb_root *root, size_t k, uint32_t *idx)
{
    struct rb_node *rb = root->rb_node;
    *idx = 0;
    while (rb) {
        struct ct_chunk *c = ct_of(rb);
        size_t left = ct_total(rb->rb_left);
        if (k < left) {
            rb = rb->rb_left;
        } else if (k < left + c->n) {
            *idx = (uint32_t)(k - left);
            return c;
        } else {
            k -= left + c->n;
            rb = rb->rb_right;
        }
    }
    return NULL;
}

/* Split and join relink O(log^2 chunks) nodes and recompute the total of
 * each through the rotate callback, so no chunk is visited per element. */
void ct_cut(struct rb_root *root, struct ct_chunk *first, struct ct_chunk *last,
            struct rb_root *cut)
{
    rb_cut_augmented(root, &first->rb, &last->rb, cut, &ct_cb);
}

/* Post-order without recursion: a chunk goes once both its sides are gone,
 * cut from its parent first, so a later call starts again from the root
 * over live nodes only (an in-order walk would climb through freed
 * parents). */
size_t ct_free_some(struct rb_root *root, size_t budget)
{
    struct rb_node *at = root->rb_node, *leaf;
    size_t freed = 0;
    while (freed < budget && (leaf = rb_take_leaf(root, &at))) {
        xfree(ct_of(leaf));
        freed++;
    }
    return freed;
}

void ct_clone(struct rb_root *dst, const struct rb_root *src)
{
    struct ct_chunk *last = NULL;
    for (const struct ct_chunk *c = ct_first(src); c; c = ct_next(c)) {
        struct ct_chunk *nc = ct_new(c->used);
        memcpy(nc->data, c->data, c->used);
        nc->n = c->n;
        nc->used = c->used;
        ct_link_after(dst, last, nc);
        last = nc;
    }
}

size_t ct_memory(const struct rb_root *root)
{
    size_t bytes = 0;
    for (const struct ct_chunk *c = ct_first(root); c; c = ct_next(c))
        bytes += xsize(c);
    return bytes;
}

size_t ct_memory_sampled(const struct rb_root *root, size_t samples)
{
    size_t bytes = 0, elems = 0;
    const struct ct_chunk *c = ct_first(root);
    for (; c && elems < samples; c = ct_next(c)) {
        bytes += xsize(c);
        elems += c->n;
    }
    if (!c || !elems)
        return bytes;
    return (size_t)((double)bytes / (double)elems * (double)ct_total(root->rb_node));
}

static int check_subtree(const struct rb_node *rb, const char **why)
{
    if (!rb)
        return 0;
    if (check_subtree(rb->rb_left, why) < 0 || check_subtree(rb->rb_right, why) < 0)
        return -1;
    const struct ct_chunk *c = ct_of(rb);
    if (c->total != c->n + ct_total(rb->rb_left) + ct_total(rb->rb_right)) {
        *why = "a chunk's total is not its subtree's element count";
        return -1;
    }
    return 0;
}

int ct_check_totals(const struct rb_root *root, const char **why)
{
    return check_subtree(root->rb_node, why);
}
