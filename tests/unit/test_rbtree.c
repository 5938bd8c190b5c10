/*
 * test_rbtree.c - unit and randomized differential tests of server/rbtree/rbtree.c
 * and its order-statistics (rbtree_order.h) and augmented
 * (rbtree_augmented.h) layers.
 *
 * Owns: test entries, each allocated through item_new() so that a count of
 * live items proves every test frees what it made, ASan or not.
 *
 * The randomized tests compare a tree with a model that is trivially right: a
 * sorted array of pointers to the entries the tree should hold. What is
 * checked when (see after_mutation()):
 *   - after every mutation of a tree of at most FULL_CHECK_MAX_LEN entries,
 *     and after every FULL_CHECK_EVERY-th mutation of a larger one: the full
 *     check, O(n): rb_check(), the height bound, in-order walks forward and
 *     backward equal to the model, every subtree size, the cached leftmost;
 *   - after every other mutation, a sample, O(log n): the path from the
 *     touched node to the root (parent links, no red-red, sizes), black counts
 *     on random root-to-leaf paths, the node count and the cached leftmost;
 *   - the query operations (lookup, next/prev, rank, select, count-below,
 *     post-order) check their own answers against the model.
 *
 * usage: test_rbtree [edge|check|widths|augment|cut|plain|cached|order|order-cached]...
 * (no argument runs all). A seed is printed as SEED=<n> at the start and on
 * failure; SEED=<n> in the environment replays it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rbtree.h"
#include "rbtree_augmented.h"
#include "rbtree_order.h"

static uint64_t test_seed;

/* ---- entries and the counting allocator ---- */

struct item {
    struct rb_node node;
    uint32_t size; /* order statistics; the plain and cached trees leave it alone */
    int key;
    bool visited;  /* post-order checks */
};

RB_DECLARE_ORDER(ost, struct item, node, size);

static long live_items;

static struct item *item_new(int key)
{
    struct item *it = malloc(sizeof(*it));

    CHECK(it != NULL);
    memset(it, 0, sizeof(*it));
    it->key = key;
    RB_CLEAR_NODE(&it->node);
    live_items++;
    return it;
}

static void item_free(struct item *it)
{
    if (!it)
        return;
    live_items--;
    free(it);
}

static struct item *item_of(const struct rb_node *node)
{
    return node ? rb_entry(node, struct item, node) : NULL;
}

/* ---- the caller's side of the tree: descent, lookup, count below ---- */

/* Returns the item holding `key`, or NULL with *link and *parent at the empty
 * link where it belongs; *leftmost says whether the descent never went right. */
static struct item *descend(struct rb_root *root, int key, struct rb_node ***link,
                            struct rb_node **parent, bool *leftmost)
{
    struct rb_node **l = &root->rb_node, *p = NULL;
    bool lm = true;

    while (*l) {
        struct item *cur = item_of(*l);

        p = *l;
        if (key < cur->key) {
            l = &p->rb_left;
        } else if (key > cur->key) {
            l = &p->rb_right;
            lm = false;
        } else {
            return cur;
        }
    }
    *link = l;
    *parent = p;
    *leftmost = lm;
    return NULL;
}

static struct item *lookup(const struct rb_root *root, int key)
{
    const struct rb_node *n = root->rb_node;

    while (n) {
        struct item *it = item_of(n);

        if (key == it->key)
            return it;
        n = key < it->key ? n->rb_left : n->rb_right;
    }
    return NULL;
}

/* Keys below `bound`, in one descent: the pattern the keyspace uses. */
static size_t count_below(const struct rb_root *root, int bound)
{
    const struct rb_node *n = root->rb_node;
    size_t below = 0;

    while (n) {
        if (item_of(n)->key < bound) {
            below += ost_size(n->rb_left) + 1;
            n = n->rb_right;
        } else {
            n = n->rb_left;
        }
    }
    return below;
}

/* ---- one tree, four ways to maintain it ---- */

enum tree_kind { TREE_PLAIN, TREE_CACHED, TREE_ORDER, TREE_ORDER_CACHED };

struct tree {
    enum tree_kind kind;
    struct rb_root_cached rc; /* the uncached kinds use only rc.rb_root */
};

static bool kind_cached(enum tree_kind kind)
{
    return kind == TREE_CACHED || kind == TREE_ORDER_CACHED;
}

static bool kind_order(enum tree_kind kind)
{
    return kind == TREE_ORDER || kind == TREE_ORDER_CACHED;
}

/* Links `it`, or returns the item already holding its key. */
static struct item *tree_insert(struct tree *t, struct item *it)
{
    struct rb_node **link, *parent;
    bool leftmost;
    struct item *dup = descend(&t->rc.rb_root, it->key, &link, &parent, &leftmost);

    if (dup)
        return dup;
    switch (t->kind) {
    case TREE_PLAIN:
        rb_link_node(&it->node, parent, link);
        rb_insert_color(&it->node, &t->rc.rb_root);
        break;
    case TREE_CACHED:
        rb_link_node(&it->node, parent, link);
        rb_insert_color_cached(&it->node, &t->rc, leftmost);
        break;
    case TREE_ORDER:
        ost_insert(&it->node, parent, link, &t->rc.rb_root);
        break;
    case TREE_ORDER_CACHED:
        /* What ost_insert does, by hand, for a cached root: the documented
         * recipe for rb_insert_augmented_cached with ost_callbacks. */
        for (struct rb_node *up = parent; up; up = rb_parent(up))
            item_of(up)->size++;
        it->size = 1;
        rb_link_node(&it->node, parent, link);
        rb_insert_augmented_cached(&it->node, &t->rc, leftmost, &ost_callbacks);
        break;
    }
    return NULL;
}

static void tree_erase(struct tree *t, struct item *it)
{
    switch (t->kind) {
    case TREE_PLAIN:
        rb_erase(&it->node, &t->rc.rb_root);
        break;
    case TREE_CACHED:
        rb_erase_cached(&it->node, &t->rc);
        break;
    case TREE_ORDER:
        ost_erase(&it->node, &t->rc.rb_root);
        break;
    case TREE_ORDER_CACHED:
        rb_erase_augmented_cached(&it->node, &t->rc, &ost_callbacks);
        break;
    }
}

static void tree_replace(struct tree *t, struct item *victim, struct item *new_item)
{
    switch (t->kind) {
    case TREE_PLAIN:
        rb_replace_node(&victim->node, &new_item->node, &t->rc.rb_root);
        break;
    case TREE_CACHED:
        rb_replace_node_cached(&victim->node, &new_item->node, &t->rc);
        break;
    case TREE_ORDER:
        ost_replace(&victim->node, &new_item->node, &t->rc.rb_root);
        break;
    case TREE_ORDER_CACHED:
        new_item->size = victim->size;
        rb_replace_node_cached(&victim->node, &new_item->node, &t->rc);
        break;
    }
}

/* Frees every entry in O(n) through the post-order walk; returns how many. */
static size_t tree_free_all(struct tree *t)
{
    struct item *pos, *next;
    size_t freed = 0;

    rbtree_postorder_for_each_entry_safe(pos, next, &t->rc.rb_root, node) {
        item_free(pos);
        freed++;
    }
    t->rc = RB_ROOT_CACHED;
    return freed;
}

/* ---- the model: a sorted array ---- */

struct model {
    struct item **v;
    size_t len, cap;
};

static size_t model_lower_bound(const struct model *m, int key)
{
    size_t lo = 0, hi = m->len;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (m->v[mid]->key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct item *model_find(const struct model *m, int key)
{
    size_t i = model_lower_bound(m, key);

    return i < m->len && m->v[i]->key == key ? m->v[i] : NULL;
}

static void model_insert_at(struct model *m, size_t i, struct item *it)
{
    if (m->len == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->v = realloc(m->v, m->cap * sizeof(*m->v));
        CHECK(m->v != NULL);
    }
    memmove(&m->v[i + 1], &m->v[i], (m->len - i) * sizeof(*m->v));
    m->v[i] = it;
    m->len++;
}

static void model_remove_at(struct model *m, size_t i)
{
    memmove(&m->v[i], &m->v[i + 1], (m->len - i - 1) * sizeof(*m->v));
    m->len--;
}

static struct rb_node *model_node(const struct model *m, size_t i)
{
    return i < m->len ? &m->v[i]->node : NULL;
}

/* ---- checks ---- */

static void check_rb(const struct rb_root *root, size_t expected)
{
    const char *why = NULL;
    int n = rb_check(root, &why);

    if (n < 0)
        fprintf(stderr, "rb_check: %s\n", why);
    CHECK(n >= 0 && (size_t)n == expected);
}

static int height(const struct rb_node *n)
{
    int l, r;

    if (!n)
        return 0;
    l = height(n->rb_left);
    r = height(n->rb_right);
    return 1 + (l > r ? l : r);
}

/* Property 4 and 5 promise height <= 2 log2(n + 1), i.e. 2^height <= (n+1)^2. */
static void check_height(int h, size_t n)
{
    CHECK(h < 63 && (UINT64_C(1) << h) <= (uint64_t)(n + 1) * (n + 1));
}

static void check_size_at(const struct rb_node *n)
{
    CHECK(ost_size(n) == 1 + ost_size(n->rb_left) + ost_size(n->rb_right));
}

static void check_full(const struct tree *t, const struct model *m)
{
    const struct rb_root *root = &t->rc.rb_root;
    const struct rb_node *n;
    size_t i = 0;

    check_rb(root, m->len);
    check_height(height(root->rb_node), m->len);
    for (n = rb_first(root); n; n = rb_next(n), i++) {
        CHECK(n == model_node(m, i));
        if (kind_order(t->kind))
            check_size_at(n);
    }
    CHECK(i == m->len);
    for (n = rb_last(root); n; n = rb_prev(n))
        CHECK(n == model_node(m, --i));
    CHECK(i == 0);
    if (kind_cached(t->kind))
        CHECK(rb_first_cached(&t->rc) == rb_first(root));
}

/* Black nodes on the path from the root down to an empty link, turning by
 * the bits of `turns`. */
static int black_count_on_path(const struct rb_root *root, uint64_t turns)
{
    const struct rb_node *n = root->rb_node;
    int blacks = 0;

    for (; n; turns >>= 1) {
        blacks += rb_is_black(n);
        n = (turns & 1) ? n->rb_right : n->rb_left;
    }
    return blacks;
}

static void check_sample(const struct tree *t, const struct model *m, const struct rb_node *touched,
                         uint64_t *rng)
{
    const struct rb_root *root = &t->rc.rb_root;
    int depth = 0;

    if (kind_order(t->kind))
        CHECK(ost_count(root) == m->len);
    if (kind_cached(t->kind))
        CHECK(rb_first_cached(&t->rc) == model_node(m, 0));
    for (const struct rb_node *n = touched; n; n = rb_parent(n), depth++) {
        const struct rb_node *p = rb_parent(n);

        if (p)
            CHECK(p->rb_left == n || p->rb_right == n);
        else
            CHECK(root->rb_node == n);
        CHECK(!(rb_is_red(n) && p && rb_is_red(p)));
        if (kind_order(t->kind))
            check_size_at(n);
    }
    check_height(depth, m->len);
    CHECK(black_count_on_path(root, rng_next(rng)) == black_count_on_path(root, 0));
}

#define FULL_CHECK_MAX_LEN 256
#define FULL_CHECK_EVERY 256

struct random_stats {
    unsigned long mutations, full_checks;
    size_t max_len;
};

static void after_mutation(const struct tree *t, const struct model *m, const struct rb_node *touched,
                           uint64_t *rng, struct random_stats *stats)
{
    stats->mutations++;
    if (m->len > stats->max_len)
        stats->max_len = m->len;
    if (m->len <= FULL_CHECK_MAX_LEN || stats->mutations % FULL_CHECK_EVERY == 0) {
        check_full(t, m);
        stats->full_checks++;
    } else {
        check_sample(t, m, touched, rng);
    }
}

/* Post-order visits every node once, each after both its children. */
static void check_postorder(const struct rb_root *root, const struct model *m)
{
    size_t count = 0;

    for (size_t i = 0; i < m->len; i++)
        m->v[i]->visited = false;
    for (struct rb_node *n = rb_first_postorder(root); n; n = rb_next_postorder(n)) {
        struct item *it = item_of(n);

        CHECK(!it->visited);
        CHECK(!n->rb_left || item_of(n->rb_left)->visited);
        CHECK(!n->rb_right || item_of(n->rb_right)->visited);
        CHECK(!rb_parent(n) || !item_of(rb_parent(n))->visited);
        it->visited = true;
        count++;
    }
    CHECK(count == m->len);
}

/* ---- the randomized differential test ---- */

static void check_neighbours(const struct model *m, size_t i)
{
    const struct rb_node *n = model_node(m, i);

    CHECK(rb_next(n) == model_node(m, i + 1));
    CHECK(rb_prev(n) == (i ? model_node(m, i - 1) : NULL));
}

/* What ost_warm asked to load, in order. */
static const struct rb_node *warmed[RB_WARM_QUEUE + 64];
static size_t warmed_len;

static void record_warm(const struct rb_node *n, size_t hint)
{
    CHECK(hint == 7 && n != NULL && warmed_len < RB_WARM_QUEUE + 64);
    warmed[warmed_len++] = n;
}

static bool was_warmed(const struct rb_node *n)
{
    for (size_t j = 0; j < warmed_len; j++)
        if (warmed[j] == n)
            return true;
    return false;
}

/* ost_warm from m's i-th node: every node the walk visits after it within
 * the n (at most RB_WARM_MAX) is warmed, each at most once, and few others
 * are: the start's back child, one ancestor past the climb, and the nodes on
 * the partial path at the window's far end and the ancestors the climb
 * reads, each at most a height's worth. */
static void check_warm(const struct rb_node *root, const struct model *m, size_t i, size_t n, bool rev)
{
    size_t want = n < RB_WARM_MAX ? n : RB_WARM_MAX, inside = 0;
    const struct rb_node *x = model_node(m, i);

    warmed_len = 0;
    ost_warm(x, n, rev, record_warm, 7);
    for (size_t k = 1; k < want; k++) {
        const struct rb_node *at = rev ? (k <= i ? model_node(m, i - k) : NULL) : model_node(m, i + k);
        if (!at)
            break;
        if (!was_warmed(at))
            fprintf(stderr, "warm: len %zu i %zu n %zu rev %d k %zu\n", m->len, i, n, rev, k);
        CHECK(was_warmed(at));
        inside++;
    }
    for (size_t j = 0; j < warmed_len; j++)
        for (size_t k = j + 1; k < warmed_len; k++)
            CHECK(warmed[j] != warmed[k]);
    CHECK(warmed_len <= inside + 2 + 2 * (size_t)height(root));
}

static void check_order_queries(const struct tree *t, const struct model *m, uint64_t *rng, int key_range)
{
    const struct rb_root *root = &t->rc.rb_root;
    size_t k = rng_below(rng, m->len + 2);
    int bound = (int)rng_below(rng, (size_t)key_range + 2) - 1;

    if (m->len) {
        size_t i = rng_below(rng, m->len);

        CHECK(ost_rank(&m->v[i]->node) == i);
        check_warm(root->rb_node, m, i, rng_below(rng, 2 * RB_WARM_MAX), rng_below(rng, 2));
    }
    CHECK(ost_select(root, k) == model_node(m, k));
    CHECK(count_below(root, bound) == model_lower_bound(m, bound));
}

/* Tree sizes the test steers toward, one per phase: empty and tiny trees
 * are where the root and its children change most. */
static const size_t phase_targets[] = { 0, 1, 2, 7, 64, 300, 2000, 20000 };

/*
 * Runs `ops` random operations on a tree of `kind`, comparing each result
 * with the model. `max_target` caps the phase targets, so the slower kinds
 * can run small trees only.
 */
static void random_test(enum tree_kind kind, long ops, size_t max_target)
{
    struct tree t = { kind, RB_ROOT_CACHED };
    struct model m = { NULL, 0, 0 };
    uint64_t rng = test_seed ^ ((uint64_t)kind << 56);
    struct random_stats stats = { 0, 0, 0 };
    const long phase_len = ops / 20 > 1000 ? ops / 20 : 1000;
    size_t target = 0;
    int key_range = 16;

    for (long op = 0; op < ops; op++) {
        const struct rb_node *touched = NULL;
        bool grow;
        unsigned insert_w, erase_w, r;
        int key;
        size_t i;

        if (op % phase_len == 0) {
            do
                target = phase_targets[rng_below(&rng, sizeof(phase_targets) / sizeof(phase_targets[0]))];
            while (target > max_target);
            key_range = 4 * (int)target + 16;
        }
        /* Steer toward the target: inserts outweigh erases below it. */
        grow = m.len < target;
        insert_w = grow ? 40 : 15;
        erase_w = grow ? 12 : 37;
        r = (unsigned)rng_below(&rng, 100);
        key = (int)rng_below(&rng, (size_t)key_range);
        i = m.len ? rng_below(&rng, m.len) : 0;

        if (r < insert_w) {
            /* Insert a random key: refused, returning the holder, if taken. */
            struct item *it = item_new(key), *held = model_find(&m, key);

            CHECK(tree_insert(&t, it) == held);
            if (held) {
                item_free(it);
                continue;
            }
            model_insert_at(&m, model_lower_bound(&m, key), it);
            touched = &it->node;
        } else if (r < insert_w + 5) {
            /* Insert a key surely taken: refused, tree untouched. */
            struct item *it;

            if (!m.len)
                continue;
            it = item_new(m.v[i]->key);
            CHECK(tree_insert(&t, it) == m.v[i]);
            item_free(it);
            if (kind_order(kind))
                CHECK(ost_count(&t.rc.rb_root) == m.len);
            continue;
        } else if (r < insert_w + 5 + erase_w) {
            /* Erase an entry the caller holds: no search needed. */
            struct item *it;

            if (!m.len)
                continue;
            it = m.v[i];
            tree_erase(&t, it);
            model_remove_at(&m, i);
            item_free(it);
            touched = model_node(&m, i < m.len ? i : i - 1);
        } else if (r < insert_w + erase_w + 10) {
            /* Erase by key, which may be missing. */
            struct item *it = lookup(&t.rc.rb_root, key);

            CHECK(it == model_find(&m, key));
            if (!it)
                continue;
            i = model_lower_bound(&m, key);
            tree_erase(&t, it);
            model_remove_at(&m, i);
            item_free(it);
            touched = model_node(&m, i < m.len ? i : i - 1);
        } else if (r < insert_w + erase_w + 15) {
            /* Replace an entry by another with the same key. */
            struct item *old, *it;

            if (!m.len)
                continue;
            old = m.v[i];
            it = item_new(old->key);
            tree_replace(&t, old, it);
            m.v[i] = it;
            item_free(old);
            touched = &it->node;
        } else if (r < insert_w + erase_w + 25) {
            CHECK(lookup(&t.rc.rb_root, key) == model_find(&m, key));
            continue;
        } else if (r < insert_w + erase_w + 35) {
            CHECK(rb_first(&t.rc.rb_root) == model_node(&m, 0));
            CHECK(rb_last(&t.rc.rb_root) == (m.len ? model_node(&m, m.len - 1) : NULL));
            if (m.len)
                check_neighbours(&m, i);
            continue;
        } else {
            /* The remaining share: order statistics, and now and then a
             * whole post-order walk (O(n), so rarely). */
            if (kind_order(kind))
                check_order_queries(&t, &m, &rng, key_range);
            if (r == 99 && rng_below(&rng, 64) == 0)
                check_postorder(&t.rc.rb_root, &m);
            continue;
        }
        after_mutation(&t, &m, touched, &rng, &stats);
    }

    check_full(&t, &m);
    check_postorder(&t.rc.rb_root, &m);
    CHECK(tree_free_all(&t) == m.len);
    CHECK(live_items == 0);
    free(m.v);
    printf("random %s: %ld operations, %lu mutations, %lu full checks, largest tree %zu\n",
           kind == TREE_PLAIN ? "plain" : kind == TREE_CACHED ? "cached"
           : kind == TREE_ORDER ? "order" : "order-cached",
           ops, stats.mutations, stats.full_checks, stats.max_len);
}

/* ---- deterministic edge cases ---- */

/* Builds a tree of `kind` holding keys[0..n) in that insertion order, with a
 * full check after each insert. */
static void build(struct tree *t, struct model *m, const int *keys, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct item *it = item_new(keys[i]);

        CHECK(tree_insert(t, it) == NULL);
        model_insert_at(m, model_lower_bound(m, keys[i]), it);
        check_full(t, m);
    }
}

static int *shuffled_keys(size_t n, uint64_t *rng)
{
    int *keys = malloc(n * sizeof(*keys));

    CHECK(keys != NULL);
    for (size_t i = 0; i < n; i++)
        keys[i] = (int)i;
    for (size_t i = n; i > 1; i--) {
        size_t j = rng_below(rng, i);
        int tmp = keys[i - 1];

        keys[i - 1] = keys[j];
        keys[j] = tmp;
    }
    return keys;
}

static struct rb_root static_root = RB_ROOT; /* RB_ROOT must serve as a static initializer */

static void test_empty(void)
{
    struct rb_root root = RB_ROOT;
    struct rb_root_cached rc = RB_ROOT_CACHED;

    CHECK(RB_EMPTY_ROOT(&root) && RB_EMPTY_ROOT(&static_root));
    CHECK(rb_first(&root) == NULL && rb_last(&root) == NULL);
    CHECK(rb_first_postorder(&root) == NULL);
    CHECK(rb_next_postorder(NULL) == NULL);
    CHECK(rb_check(&root, NULL) == 0);
    CHECK(ost_count(&root) == 0 && ost_size(NULL) == 0);
    CHECK(ost_select(&root, 0) == NULL);
    CHECK(count_below(&root, 5) == 0);
    CHECK(rb_first_cached(&rc) == NULL && RB_EMPTY_ROOT(&rc.rb_root));
}

static void test_one_node(enum tree_kind kind)
{
    struct tree t = { kind, RB_ROOT_CACHED };
    struct item *it = item_new(42), *dup = item_new(42);

    CHECK(RB_EMPTY_NODE(&it->node));
    CHECK(rb_next(&it->node) == NULL && rb_prev(&it->node) == NULL);
    CHECK(tree_insert(&t, it) == NULL);
    CHECK(!RB_EMPTY_NODE(&it->node) && rb_parent(&it->node) == NULL);
    CHECK(tree_insert(&t, dup) == it);
    item_free(dup);
    check_rb(&t.rc.rb_root, 1);
    CHECK(rb_is_black(&it->node));
    CHECK(rb_first(&t.rc.rb_root) == &it->node && rb_last(&t.rc.rb_root) == &it->node);
    CHECK(rb_next(&it->node) == NULL && rb_prev(&it->node) == NULL);
    CHECK(rb_first_postorder(&t.rc.rb_root) == &it->node && rb_next_postorder(&it->node) == NULL);
    if (kind_order(kind)) {
        CHECK(ost_count(&t.rc.rb_root) == 1 && ost_rank(&it->node) == 0);
        CHECK(ost_select(&t.rc.rb_root, 0) == &it->node && ost_select(&t.rc.rb_root, 1) == NULL);
    }
    if (kind_cached(kind))
        CHECK(rb_first_cached(&t.rc) == &it->node);
    tree_erase(&t, it);
    CHECK(RB_EMPTY_ROOT(&t.rc.rb_root) && rb_first(&t.rc.rb_root) == NULL);
    if (kind_cached(kind))
        CHECK(rb_first_cached(&t.rc) == NULL);
    item_free(it);
}

enum erase_order { ERASE_ASCENDING, ERASE_DESCENDING, ERASE_RANDOM, ERASE_ROOT };

/* Builds n keys in random order, then erases them all in `order`, with a
 * full check after each erase. */
static void test_erase_order(enum tree_kind kind, size_t n, enum erase_order order, uint64_t *rng)
{
    struct tree t = { kind, RB_ROOT_CACHED };
    struct model m = { NULL, 0, 0 };
    int *keys = shuffled_keys(n, rng);

    build(&t, &m, keys, n);
    while (m.len) {
        size_t i;
        struct item *it;

        switch (order) {
        case ERASE_ASCENDING:
            i = 0;
            break;
        case ERASE_DESCENDING:
            i = m.len - 1;
            break;
        case ERASE_RANDOM:
            i = rng_below(rng, m.len);
            break;
        case ERASE_ROOT:
        default:
            i = model_lower_bound(&m, item_of(t.rc.rb_root.rb_node)->key);
            break;
        }
        it = m.v[i];
        tree_erase(&t, it);
        model_remove_at(&m, i);
        item_free(it);
        check_full(&t, &m);
    }
    CHECK(RB_EMPTY_ROOT(&t.rc.rb_root));
    free(keys);
    free(m.v);
}

/* Inserting in key order is the classic worst case of an unbalanced tree. */
static void test_sequential_insert(enum tree_kind kind)
{
    enum { N = 1 << 16 };
    struct tree t = { kind, RB_ROOT_CACHED };

    for (int k = 0; k < N; k++)
        CHECK(tree_insert(&t, item_new(k)) == NULL);
    check_rb(&t.rc.rb_root, N);
    check_height(height(t.rc.rb_root.rb_node), N);
    if (kind_order(kind)) {
        for (int k = 0; k < N; k += 997)
            CHECK(item_of(ost_select(&t.rc.rb_root, (size_t)k))->key == k);
    }
    CHECK(tree_free_all(&t) == N);
    CHECK(live_items == 0);
}

/* Frees a large tree in post-order; the live count (and ASan, valgrind)
 * proves nothing leaks and nothing is touched after its free. */
static void test_postorder_free(uint64_t *rng)
{
    enum { N = 200000 };
    struct tree t = { TREE_ORDER, RB_ROOT_CACHED };
    int *keys = shuffled_keys(N, rng);

    for (size_t i = 0; i < N; i++)
        CHECK(tree_insert(&t, item_new(keys[i])) == NULL);
    check_rb(&t.rc.rb_root, N);
    CHECK(live_items == N);
    CHECK(tree_free_all(&t) == N);
    CHECK(live_items == 0 && RB_EMPTY_ROOT(&t.rc.rb_root));
    free(keys);
}

static void test_edge(void)
{
    static const enum tree_kind kinds[] = { TREE_PLAIN, TREE_CACHED, TREE_ORDER, TREE_ORDER_CACHED };
    uint64_t rng = test_seed;

    test_empty();
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        test_one_node(kinds[k]);
        for (int order = ERASE_ASCENDING; order <= ERASE_ROOT; order++)
            test_erase_order(kinds[k], 1000, (enum erase_order)order, &rng);
        test_sequential_insert(kinds[k]);
    }
    test_postorder_free(&rng);
    CHECK(live_items == 0);
}

/* ---- rb_check must catch each kind of damage ---- */

static void link_manual(struct rb_node *n, struct rb_node *parent, int color, struct rb_node *left,
                        struct rb_node *right)
{
    rb_set_parent_color(n, parent, color);
    n->rb_left = left;
    n->rb_right = right;
}

static void expect_broken(const struct rb_root *root, const char *expected)
{
    const char *why = NULL;

    CHECK(rb_check(root, &why) == -1);
    CHECK(why != NULL && strcmp(why, expected) == 0);
    CHECK(rb_check(root, NULL) == -1);
}

static void test_check(void)
{
    /* B over two red children: valid. Each case damages one thing. */
    struct rb_node b, l, r, x, chain[200];
    struct rb_root root = { &b };

    link_manual(&b, NULL, RB_BLACK, &l, &r);
    link_manual(&l, &b, RB_RED, NULL, NULL);
    link_manual(&r, &b, RB_RED, NULL, NULL);
    check_rb(&root, 3);

    rb_set_parent_color(&b, NULL, RB_RED);
    expect_broken(&root, "the root is red");
    rb_set_parent_color(&b, NULL, RB_BLACK);

    link_manual(&x, &l, RB_RED, NULL, NULL);
    l.rb_left = &x;
    expect_broken(&root, "a red node has a red child");
    l.rb_left = NULL;

    rb_set_parent_color(&l, &b, RB_BLACK);
    expect_broken(&root, "two paths cross different numbers of black nodes");
    rb_set_parent_color(&l, &b, RB_RED);

    rb_set_parent_color(&r, &l, RB_RED);
    expect_broken(&root, "a node's parent pointer does not name its parent");
    rb_set_parent_color(&r, &b, RB_RED);

    b.rb_right = &l;
    expect_broken(&root, "a node links the same child on both sides");
    b.rb_right = &r;
    check_rb(&root, 3);

    /* A chain: deeper than any valid tree, caught before the stack grows. */
    for (size_t i = 0; i < 200; i++)
        link_manual(&chain[i], i ? &chain[i - 1] : NULL, RB_BLACK, i + 1 < 200 ? &chain[i + 1] : NULL,
                    NULL);
    root.rb_node = &chain[0];
    expect_broken(&root, "a path is longer than any red-black tree allows");
}

/* ---- the size field may have any unsigned width ---- */

#define WIDTH_TEST(NAME, TYPE, N)                                                              \
    struct NAME##_item {                                                                       \
        TYPE size;                                                                             \
        struct rb_node link;                                                                   \
        int key;                                                                               \
    };                                                                                         \
    RB_DECLARE_ORDER(NAME, struct NAME##_item, link, size)                                     \
    static void test_##NAME(uint64_t *rng)                                                     \
    {                                                                                          \
        struct NAME##_item items[N];                                                           \
        struct rb_root root = RB_ROOT;                                                         \
        int *keys = shuffled_keys(N, rng);                                                     \
                                                                                               \
        for (size_t i = 0; i < N; i++) {                                                       \
            struct rb_node **link = &root.rb_node, *parent = NULL;                             \
                                                                                               \
            items[i].key = keys[i];                                                            \
            while (*link) {                                                                    \
                parent = *link;                                                                \
                link = keys[i] < rb_entry(parent, struct NAME##_item, link)->key               \
                           ? &parent->rb_left                                                  \
                           : &parent->rb_right;                                                \
            }                                                                                  \
            NAME##_insert(&items[i].link, parent, link, &root);                                \
        }                                                                                      \
        check_rb(&root, N);                                                                    \
        CHECK(NAME##_count(&root) == N);                                                       \
        for (size_t k = 0; k < N; k++) {                                                       \
            struct rb_node *n = NAME##_select(&root, k);                                       \
                                                                                               \
            CHECK(rb_entry(n, struct NAME##_item, link)->key == (int)k);                       \
            CHECK(NAME##_rank(n) == k);                                                        \
        }                                                                                      \
        for (size_t i = 0; i < N; i += 2)                                                      \
            NAME##_erase(&items[i].link, &root);                                               \
        check_rb(&root, N / 2);                                                                \
        CHECK(NAME##_count(&root) == N / 2);                                                   \
        for (struct rb_node *n = rb_first(&root); n; n = rb_next(n))                           \
            CHECK(NAME##_size(n) == 1 + NAME##_size(n->rb_left) + NAME##_size(n->rb_right));   \
        free(keys);                                                                            \
    }

/* 254 entries: the most a uint8_t size can count, rounded down to even. */
WIDTH_TEST(ost8, uint8_t, 254)
WIDTH_TEST(ost16, uint16_t, 3000)
WIDTH_TEST(ostz, size_t, 3000)

static void test_widths(void)
{
    uint64_t rng = test_seed;

    test_ost8(&rng);
    test_ost16(&rng);
    test_ostz(&rng);
}

/* ---- a second augmentation: subtree maximum, whose propagation stops early ---- */

struct mitem {
    struct rb_node node;
    int key;
    int value;
    int max; /* largest value in the subtree */
};

/* The larger of `at_least` and the maximum under n. */
static int mitem_max_of(const struct rb_node *n, int at_least)
{
    int m = n ? rb_entry(n, struct mitem, node)->max : at_least;

    return m > at_least ? m : at_least;
}

static bool mitem_compute(struct mitem *it, bool exit)
{
    int max = mitem_max_of(it->node.rb_right, mitem_max_of(it->node.rb_left, it->value));

    if (exit && it->max == max)
        return true;
    it->max = max;
    return false;
}

RB_DECLARE_CALLBACKS(static, mitem_callbacks, struct mitem, node, max, mitem_compute);

static void check_max_tree(const struct rb_root *root, size_t len)
{
    check_rb(root, len);
    for (struct rb_node *n = rb_first(root); n; n = rb_next(n)) {
        struct mitem *it = rb_entry(n, struct mitem, node);
        int max = mitem_max_of(n->rb_right, mitem_max_of(n->rb_left, it->value));

        CHECK(it->max == max);
    }
}

static void test_augment(void)
{
    enum { KEYS = 256, OPS = 100000 };
    struct mitem *slots[KEYS] = { NULL }; /* the model: slot k holds key k */
    struct rb_root root = RB_ROOT;
    uint64_t rng = test_seed;
    size_t len = 0;

    for (long op = 0; op < OPS; op++) {
        int key = (int)rng_below(&rng, KEYS);
        int value = (int)rng_below(&rng, 1000);
        struct mitem *it = slots[key];

        if (!it) {
            struct rb_node **link = &root.rb_node, *parent = NULL;

            it = malloc(sizeof(*it));
            CHECK(it != NULL);
            it->key = key;
            it->value = it->max = value;
            while (*link) {
                parent = *link;
                link = key < rb_entry(parent, struct mitem, node)->key ? &parent->rb_left
                                                                       : &parent->rb_right;
            }
            /* The path must account for the new value before the insert. */
            for (struct rb_node *up = parent; up; up = rb_parent(up)) {
                struct mitem *anc = rb_entry(up, struct mitem, node);

                if (anc->max >= value)
                    break;
                anc->max = value;
            }
            rb_link_node(&it->node, parent, link);
            rb_insert_augmented(&it->node, &root, &mitem_callbacks);
            slots[key] = it;
            len++;
        } else if (value % 2) {
            /* Change a value in place, then propagate: stops where the
             * maximum no longer changes. */
            it->value = value;
            mitem_callbacks.propagate(&it->node, NULL);
        } else {
            rb_erase_augmented(&it->node, &root, &mitem_callbacks);
            slots[key] = NULL;
            free(it);
            len--;
        }
        check_max_tree(&root, len);
    }
    for (int k = 0; k < KEYS; k++)
        free(slots[k]);
}

/* ---- cut (split and join) ---- */

/* Every node of the tree under root: sizes right, keys lo, lo+1, ... in order
 * except the keys in [skip_lo, skip_hi]; returns how many. */
static size_t check_cut_tree(const struct rb_root *root, int lo, int hi, int skip_lo, int skip_hi)
{
    size_t n = 0;
    int want = lo;

    check_rb(root, ost_count(root));
    for (const struct rb_node *at = rb_first(root); at; at = rb_next(at), want++, n++) {
        if (want == skip_lo)
            want = skip_hi + 1;
        CHECK(item_of(at)->key == want);
        check_size_at(at);
    }
    if (want == skip_lo)
        want = skip_hi + 1;
    CHECK(want == hi + 1);
    CHECK(n == ost_count(root));
    return n;
}

/* rb_cut_augmented over order trees of every small size and some large ones,
 * built in random or ascending order (an insert-only tree and a lopsided
 * one), cutting a random run: both trees pass rb_check, keep their sizes and
 * hold exactly the right keys in order. */
static void test_cut(void)
{
    uint64_t rng = test_seed;

    for (int trial = 0; trial < 3000; trial++) {
        int n = trial < 2000 ? 1 + trial % 200 : 1 + (int)rng_below(&rng, 20000);
        struct rb_root root = RB_ROOT, cut = RB_ROOT;
        struct item **v = malloc(sizeof(*v) * (size_t)n);
        int *order = malloc(sizeof(*order) * (size_t)n);

        CHECK(v && order);
        for (int i = 0; i < n; i++)
            order[i] = i;
        if (trial % 3) {
            for (int i = n - 1; i > 0; i--) {
                int j = (int)rng_below(&rng, (size_t)i + 1), t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
        for (int i = 0; i < n; i++) {
            struct rb_node **link = &root.rb_node, *parent = NULL;
            v[order[i]] = item_new(order[i]);
            while (*link) {
                parent = *link;
                link = order[i] < item_of(parent)->key ? &parent->rb_left : &parent->rb_right;
            }
            ost_insert(&v[order[i]]->node, parent, link, &root);
        }
        int a = (int)rng_below(&rng, (size_t)n);
        int b = a + (int)rng_below(&rng, (size_t)(trial % 4 == 0 ? 3 : n - a));
        if (b >= n)
            b = n - 1;
        rb_cut_augmented(&root, &v[a]->node, &v[b]->node, &cut, &ost_callbacks);
        CHECK(check_cut_tree(&cut, a, b, -1, -1) == (size_t)(b - a + 1));
        CHECK(check_cut_tree(&root, 0, n - 1, a, b) == (size_t)(n - (b - a + 1)));
        free(v);
        free(order);
        struct item *it, *tmp;
        rbtree_postorder_for_each_entry_safe(it, tmp, &root, node)
            item_free(it);
        rbtree_postorder_for_each_entry_safe(it, tmp, &cut, node)
            item_free(it);
    }
}

/* ---- driver ---- */

static void run(const char *name)
{
    if (!strcmp(name, "edge"))
        test_edge();
    else if (!strcmp(name, "check"))
        test_check();
    else if (!strcmp(name, "widths"))
        test_widths();
    else if (!strcmp(name, "augment"))
        test_augment();
    else if (!strcmp(name, "cut"))
        test_cut();
    else if (!strcmp(name, "plain"))
        random_test(TREE_PLAIN, 300000, 2000);
    else if (!strcmp(name, "cached"))
        random_test(TREE_CACHED, 300000, 2000);
    else if (!strcmp(name, "order"))
        random_test(TREE_ORDER, 1000000, SIZE_MAX);
    else if (!strcmp(name, "order-cached"))
        random_test(TREE_ORDER_CACHED, 300000, 2000);
    else {
        fprintf(stderr, "test_rbtree: unknown test '%s'\n", name);
        exit(2);
    }
    CHECK(live_items == 0);
    printf("ok %s\n", name);
}

int main(int argc, char **argv)
{
    static const char *const all[] = { "edge", "check", "widths", "augment", "cut",
                                       "plain", "cached", "order", "order-cached" };

    test_seed = check_seed(20240601);
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            run(argv[i]);
    } else {
        for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
            run(all[i]);
    }
    return 0;
}
