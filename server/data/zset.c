/*
 * zset.c - the sorted-set value (see zset.h): the (score, member) tree with
 * subtree sizes, and the by-name hash table threaded through the same nodes.
 *
 * Every range descent here is a prefix count: the members below a bound (a
 * score under min, a name before "[x") form a prefix of the order, so one
 * walk down from the root adds up left subtree sizes to find the prefix's
 * length. A range is the difference of two such prefixes, so its count and
 * its first position cost O(log n), never a walk over members.
 */
#include "zset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "rbtree_order.h"

RB_DECLARE_ORDER(zst, struct zs_node, rb, size)

#define ZS_MIN_BUCKETS 4 /* power of two: a new set's table */

static struct zs_node *node_of(const struct rb_node *rb)
{
    return rb ? rb_entry(rb, struct zs_node, rb) : NULL;
}

/* memcmp order, a proper prefix first. */
static int bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int r = memcmp(a, b, alen < blen ? alen : blen);
    return r ? r : (alen > blen) - (alen < blen);
}

static int node_cmp(double score, const char *m, size_t len, const struct zs_node *n)
{
    if (score < n->score)
        return -1;
    if (score > n->score)
        return 1;
    return bytes_cmp(m, len, n->member, n->len);
}

/* ---- the member hash ---------------------------------------------------- */

/* The high and low halves of a 128-bit product folded together: a cheap,
 * well-mixing step (wyhash's), keyed by the set's seed so that names chosen to
 * collide in one set do not collide in another. */
static uint64_t mum(uint64_t a, uint64_t b)
{
    __extension__ unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static uint64_t member_hash(const struct zset *z, const char *p, size_t len)
{
    uint64_t h = z->seed ^ (len * UINT64_C(0xa0761d6478bd642f));
    uint64_t w;

    for (; len >= 8; p += 8, len -= 8) {
        memcpy(&w, p, 8);
        h = mum(h ^ w, UINT64_C(0xe7037ed1a0b428db));
    }
    w = 0;
    memcpy(&w, p, len);
    return mum(h ^ w ^ UINT64_C(0x8ebc6af09c88c6e3), UINT64_C(0x589965cc75374cc3));
}

/* ---- the by-name table --------------------------------------------------- */

/* A resize moves the old table's chains into the new one a few buckets at a
 * time, one step per insert and delete (resize_step), as Redis's dict
 * rehashes: rehashing 4M members at once held the loop 1.8 s in one ZADD.
 * Meanwhile a member is chained in the old table when its old bucket is at
 * or past the drain point, else in the new one (chain_of): inserts and
 * lookups follow the same rule, so a lookup walks one chain. Only one table
 * drains at a time: a resize is started only when none is in progress; the
 * steps drain a doubling's old table (one bucket per insert would do) before
 * the next doubling is due, and a halving's (one per 16 deletes of the
 * eighth left) before the next halving. */
struct zs_resize {
    struct zs_node **buckets; /* the old table: mask + 1 buckets */
    size_t mask;
    size_t drain;             /* old buckets below it are empty */
    char *released;           /* its pages below this went back to the kernel */
};

/* A step stops after moving ZS_STEP_MOVES members or visiting
 * ZS_STEP_VISITS buckets, after a whole bucket. A table of at most
 * ZS_RESIZE_EAGER buckets is rehashed at once (a few microseconds). */
#define ZS_STEP_MOVES 8
#define ZS_STEP_VISITS 64
#define ZS_RESIZE_EAGER 1024
/* An old table of ZS_RELEASE_TABLE bytes or more gives its drained pages
 * back ZS_RELEASE_SPAN at a time (mem_release_pages): freeing 128 MB of
 * touched pages at the end of a drain took 17 ms of CPU. */
#define ZS_RELEASE_TABLE ((size_t)16 << 20)
#define ZS_RELEASE_SPAN ((size_t)2 << 20)

static struct zs_node **chain_of(const struct zset *z, uint64_t h)
{
    const struct zs_resize *rs = z->resize;
    if (rs && (h & rs->mask) >= rs->drain)
        return &rs->buckets[h & rs->mask];
    return &z->buckets[h & z->mask];
}

static struct zs_node **bucket_of(const struct zset *z, const char *m, size_t len)
{
    return chain_of(z, member_hash(z, m, len));
}

/* The new table is not zeroed when it is made: zeroing (and so faulting in)
 * 64 MB at once held the loop 220 ms in the ZADD that doubled a 4M-member
 * set. Its buckets are zeroed as the old buckets that feed them drain:
 * growing, old bucket j feeds j, j + old size, ...; shrinking, new bucket j
 * is fed first by old bucket j. A new bucket is thus valid once the old
 * bucket of its own low bits (growing) or of its own index (shrinking) has
 * drained, and chain_of goes to the new table only for such buckets. */
static int new_bucket_valid(const struct zset *z, size_t b)
{
    const struct zs_resize *rs = z->resize;
    if (!rs)
        return 1;
    return (z->mask > rs->mask ? b & rs->mask : b) < rs->drain;
}

/* Moves old bucket rs->drain's chain into the new table. */
static size_t move_bucket(struct zset *z, struct zs_resize *rs)
{
    size_t moved = 0, j = rs->drain;
    if (z->mask > rs->mask) {
        for (size_t b = j; b <= z->mask; b += rs->mask + 1)
            z->buckets[b] = NULL;
    } else if (j <= z->mask) {
        z->buckets[j] = NULL;
    }
    for (struct zs_node *n = rs->buckets[rs->drain], *next; n; n = next, moved++) {
        struct zs_node **b = &z->buckets[member_hash(z, n->member, n->len) & z->mask];
        next = n->hnext;
        n->hnext = *b;
        *b = n;
    }
    rs->buckets[rs->drain++] = NULL;
    return moved;
}

static void resize_free(struct zs_resize *rs)
{
    if (rs) {
        xfree(rs->buckets);
        xfree(rs);
    }
}

static void resize_step(struct zset *z)
{
    struct zs_resize *rs = z->resize;
    size_t moved = 0, visited = 0;
    while (rs->drain <= rs->mask && moved < ZS_STEP_MOVES && visited < ZS_STEP_VISITS) {
        moved += move_bucket(z, rs);
        visited++;
    }
    char *drained = (char *)&rs->buckets[rs->drain];
    if ((rs->mask + 1) * sizeof(*rs->buckets) >= ZS_RELEASE_TABLE &&
        (size_t)(drained - rs->released) >= ZS_RELEASE_SPAN)
        rs->released = mem_release_pages(rs->released, (size_t)(drained - rs->released));
    if (rs->drain > rs->mask) {
        resize_free(rs);
        z->resize = NULL;
    }
}

/* Gives z a table of nbuckets (a power of two); none may be in progress. */
static void table_resize(struct zset *z, size_t nbuckets)
{
    struct zs_node **old = z->buckets;
    size_t old_mask = z->mask;

    z->mask = nbuckets - 1;
    if (!old) {
        z->buckets = xcalloc(nbuckets, sizeof(*z->buckets));
        return;
    }
    z->buckets = xmalloc(nbuckets * sizeof(*z->buckets)); /* zeroed as it fills */
    z->resize = xmalloc(sizeof(*z->resize));
    *z->resize = (struct zs_resize){
        .buckets = old, .mask = old_mask, .drain = 0, .released = (char *)old};
    do
        resize_step(z);
    while (z->resize && old_mask < ZS_RESIZE_EAGER);
}

/* Frees both tables (zs_len is 0, or the members go too). */
static void table_free(struct zset *z)
{
    xfree(z->buckets);
    z->buckets = NULL;
    z->mask = 0;
    resize_free(z->resize);
    z->resize = NULL;
}

static void table_unlink(struct zset *z, const struct zs_node *n)
{
    struct zs_node **link = bucket_of(z, n->member, n->len);
    while (*link != n)
        link = &(*link)->hnext;
    *link = n->hnext;
}

/* Unlinks n from z's table if it is chained there: a cut member may have
 * left it with a table that was emptied or rebuilt without it. */
static void table_drop(struct zset *z, const struct zs_node *n)
{
    if (!z->buckets)
        return;
    for (struct zs_node **link = bucket_of(z, n->member, n->len); *link; link = &(*link)->hnext) {
        if (*link == n) {
            *link = n->hnext;
            return;
        }
    }
}

/* Whether n, met in z's table, belongs to a pending cut: its tree's root is
 * not z's. Only walked while z has cuts; zs_cut_step frees a cut's members
 * children first, so the parents this walks are alive. */
static int is_cut(const struct zset *z, const struct zs_node *n)
{
    if (!z->cuts)
        return 0;
    const struct rb_node *rb = &n->rb;
    while (rb_parent(rb))
        rb = rb_parent(rb);
    return rb != z->tree.rb_node;
}

/* ---- the set ------------------------------------------------------------ */

struct zset *zs_new(void)
{
    struct zset *z = xcalloc(1, sizeof(*z));
    z->tree = RB_ROOT;
    z->seed = ((uint64_t)arc4random() << 32) | arc4random();
    return z;
}

void zs_free(struct zset *z)
{
    struct zs_node *pos, *next;

    if (!z)
        return;
    rbtree_postorder_for_each_entry_safe(pos, next, &z->tree, rb)
        xfree(pos);
    /* The table goes too, so the cuts' members need not leave it. */
    for (struct zset *cut = z->cuts, *after; cut; cut = after) {
        after = cut->cuts;
        cut->cuts = NULL;
        zs_free(cut);
    }
    table_free(z);
    xfree(z);
}

struct zset *zs_clone(const struct zset *z)
{
    struct zset *copy = zs_new();
    for (struct zs_node *n = zs_first(z); n; n = zs_next(n))
        zs_insert(copy, n->member, n->len, n->score);
    return copy;
}

size_t zs_len(const struct zset *z)
{
    return zst_count(&z->tree);
}

struct zs_node *zs_find(const struct zset *z, const char *m, size_t len)
{
    if (!z->buckets)
        return NULL;
    for (struct zs_node *n = *bucket_of(z, m, len); n; n = n->hnext)
        if (n->len == len && memcmp(n->member, m, len) == 0 && !is_cut(z, n))
            return n;
    return NULL;
}

/* Links n into the tree by its (score, member); it must not be there. */
static void tree_link(struct zset *z, struct zs_node *n)
{
    struct rb_node **link = &z->tree.rb_node, *parent = NULL;

    while (*link) {
        parent = *link;
        if (node_cmp(n->score, n->member, n->len, node_of(parent)) < 0)
            link = &parent->rb_left;
        else
            link = &parent->rb_right;
    }
    zst_insert(&n->rb, parent, link, &z->tree);
}

struct zs_node *zs_insert(struct zset *z, const char *m, size_t len, double score)
{
    struct zs_node *n = xmalloc(sizeof(*n) + len);
    size_t count = zs_len(z);

    n->len = (uint32_t)len;
    n->score = score;
    memcpy(n->member, m, len);
    if (z->resize)
        resize_step(z);
    else if (!z->buckets)
        table_resize(z, ZS_MIN_BUCKETS);
    else if (count + 1 > z->mask + 1)
        table_resize(z, 2 * (z->mask + 1));
    struct zs_node **b = bucket_of(z, m, len);
    n->hnext = *b;
    *b = n;
    tree_link(z, n);
    return n;
}

void zs_update(struct zset *z, struct zs_node *n, double score)
{
    struct zs_node *prev = zs_prev(n), *next = zs_next(n);

    /* Most updates leave the order alone (a counter going up a little among
     * distant neighbours): then the node stays where it is, as Redis's
     * zslUpdateScore does. */
    if ((!prev || node_cmp(score, n->member, n->len, prev) > 0) &&
        (!next || node_cmp(score, n->member, n->len, next) < 0)) {
        n->score = score;
        return;
    }
    zst_erase(&n->rb, &z->tree);
    n->score = score;
    tree_link(z, n);
}

void zs_delete(struct zset *z, struct zs_node *n)
{
    size_t nbuckets = z->mask + 1;

    zst_erase(&n->rb, &z->tree);
    table_unlink(z, n);
    xfree(n);
    if (zs_len(z) == 0)
        table_free(z);
    else if (z->resize)
        resize_step(z);
    else if (nbuckets > ZS_MIN_BUCKETS && zs_len(z) < nbuckets / 8)
        table_resize(z, nbuckets / 2);
}

struct zset *zs_cut(struct zset *z, size_t lo, size_t n)
{
    struct zset *out = xcalloc(1, sizeof(*out));
    struct zs_node *first = zs_select(z, lo), *last = zs_select(z, lo + n - 1);
    size_t nbuckets = z->mask + 1, left;

    out->seed = z->seed;
    rb_cut_augmented(&z->tree, &first->rb, &last->rb, &out->tree, &zst_callbacks);
    left = zs_len(z);
    if (z->buckets && (n <= left ? n : left) > ZS_CUT_EAGER) {
        out->cuts = z->cuts;
        z->cuts = out;
        return NULL;
    }
    if (n <= left) {
        for (struct zs_node *at = zs_first(out); at; at = zs_next(at))
            table_unlink(z, at);
        size_t want = nbuckets;
        while (want > ZS_MIN_BUCKETS && left < want / 8)
            want /= 2;
        if (want != nbuckets && !z->resize)
            table_resize(z, want);
        return out;
    }
    /* Fewer members stay than go: index them afresh. The old table, whose
     * chains mix both, goes with out, which frees it without reading it. */
    out->buckets = z->buckets;
    out->mask = z->mask;
    out->resize = z->resize;
    z->buckets = NULL;
    z->mask = 0;
    z->resize = NULL;
    if (left) {
        size_t nb = ZS_MIN_BUCKETS;
        while (nb <= left)
            nb *= 2;
        z->buckets = xcalloc(nb, sizeof(*z->buckets));
        z->mask = nb - 1;
        for (struct zs_node *at = zs_first(z); at; at = zs_next(at)) {
            struct zs_node **b = bucket_of(z, at->member, at->len);
            at->hnext = *b;
            *b = at;
        }
    }
    return out;
}

/* Children before parents (rb_take_leaf), so is_cut's walk up from a
 * member still chained meets no freed parent. */
int zs_cut_step(struct zset *z, size_t budget)
{
    while (z->cuts && budget) {
        struct zset *cut = z->cuts;
        struct rb_node *at = cut->tree.rb_node, *leaf;
        while (budget && (leaf = rb_take_leaf(&cut->tree, &at))) {
            table_drop(z, node_of(leaf));
            xfree(node_of(leaf));
            budget--;
        }
        if (cut->tree.rb_node)
            break;
        z->cuts = cut->cuts;
        xfree(cut);
    }
    return z->cuts != NULL;
}

size_t zs_cut_pending(const struct zset *z)
{
    size_t n = 0;
    for (const struct zset *cut = z->cuts; cut; cut = cut->cuts)
        n += zst_count(&cut->tree);
    return n;
}

size_t zs_rank(const struct zs_node *n)
{
    return zst_rank(&n->rb);
}

struct zs_node *zs_select(const struct zset *z, size_t k)
{
    return node_of(zst_select(&z->tree, k));
}

struct zs_node *zs_first(const struct zset *z)
{
    return node_of(rb_first(&z->tree));
}

struct zs_node *zs_last(const struct zset *z)
{
    return node_of(rb_last(&z->tree));
}

struct zs_node *zs_next(const struct zs_node *n)
{
    return node_of(rb_next(&n->rb));
}

struct zs_node *zs_prev(const struct zs_node *n)
{
    return node_of(rb_prev(&n->rb));
}

/* ---- ranges ------------------------------------------------------------- */

int zs_gte_min(double score, const struct zs_range *r)
{
    return r->minex ? score > r->min : score >= r->min;
}

int zs_lte_max(double score, const struct zs_range *r)
{
    return r->maxex ? score < r->max : score <= r->max;
}

/* A predicate that holds on a prefix of the order: "below the range's min"
 * or "not past its max", by score or by name. */
enum prefix_kind { BELOW_SCORE_MIN, UPTO_SCORE_MAX, BELOW_LEX_MIN, UPTO_LEX_MAX };

struct prefix {
    enum prefix_kind kind;
    const struct zs_range *range;
    const struct lex_bound *bound;
};

static int prefix_holds(const struct prefix *p, const struct zs_node *n)
{
    switch (p->kind) {
    case BELOW_SCORE_MIN:
        return !zs_gte_min(n->score, p->range);
    case UPTO_SCORE_MAX:
        return zs_lte_max(n->score, p->range);
    case BELOW_LEX_MIN:
        return !lex_gte_min(n->member, n->len, p->bound);
    case UPTO_LEX_MAX:
        break;
    }
    return lex_lte_max(n->member, n->len, p->bound);
}

/* The length of the prefix where p holds. One descent. */
static size_t prefix_walk(const struct zset *z, const struct prefix *p)
{
    const struct rb_node *rb = z->tree.rb_node;
    size_t count = 0;

    while (rb) {
        if (prefix_holds(p, node_of(rb))) {
            count += zst_passed(rb);
            rb = rb->rb_right;
        } else {
            rb = rb->rb_left;
        }
    }
    return count;
}

/* The span between two prefixes, empty when the second is the shorter.
 * An open end ("-inf", "-", "+inf", "+") needs no descent: ZCOUNT over a
 * whole set costs O(1). */
static struct zs_span span_of(const struct zset *z, const struct prefix *below, int below_none,
                              const struct prefix *upto, int upto_all)
{
    struct zs_span s;

    s.lo = below_none ? 0 : prefix_walk(z, below);
    s.hi = upto_all ? zs_len(z) : prefix_walk(z, upto);
    if (s.hi < s.lo)
        s.hi = s.lo;
    return s;
}

struct zs_span zs_score_span(const struct zset *z, const struct zs_range *r)
{
    const struct prefix below = {BELOW_SCORE_MIN, r, NULL};
    const struct prefix upto = {UPTO_SCORE_MAX, r, NULL};

    return span_of(z, &below, r->min == -INFINITY && !r->minex, &upto,
                   r->max == INFINITY && !r->maxex);
}

struct zs_node *zs_score_first(const struct zset *z, const struct zs_range *r)
{
    const struct prefix below = {BELOW_SCORE_MIN, r, NULL};
    const struct rb_node *rb = z->tree.rb_node, *first = NULL;

    while (rb) {
        if (prefix_holds(&below, node_of(rb))) {
            rb = rb->rb_right;
        } else {
            first = rb;
            rb = rb->rb_left;
        }
    }
    return first ? node_of(first) : NULL;
}

struct zs_span zs_lex_span(const struct zset *z, const struct lex_bound *min,
                           const struct lex_bound *max)
{
    const struct prefix below = {BELOW_LEX_MIN, NULL, min};
    const struct prefix upto = {UPTO_LEX_MAX, NULL, max};

    return span_of(z, &below, min->kind == LEX_BOUND_NEG_INF, &upto,
                   max->kind == LEX_BOUND_POS_INF);
}

/* ---- scanning ----------------------------------------------------------- */

static uint64_t reverse_bits(uint64_t v)
{
    uint64_t r = 0;
    for (int i = 0; i < 64; i++, v >>= 1)
        r = (r << 1) | (v & 1);
    return r;
}

static void scan_chain(const struct zset *z, const struct zs_node *n, zs_scan_cb *fn, void *arg)
{
    for (; n; n = n->hnext)
        if (!is_cut(z, n))
            fn(arg, n);
}

/* Increments the bits of cursor under mask as if reversed (the bits above
 * it set first, so the carry runs past them): buckets that split or merge
 * in a resize share their low bits, so none is skipped. */
static uint64_t next_cursor(uint64_t cursor, uint64_t mask)
{
    cursor |= ~mask;
    cursor = reverse_bits(cursor);
    cursor++;
    return reverse_bits(cursor);
}

/* Bucket b of table t (one of z's two), NULL when not valid yet. */
static const struct zs_node *scan_bucket(const struct zset *z, struct zs_node *const *t, size_t b)
{
    return t != z->buckets || new_bucket_valid(z, b) ? t[b] : NULL;
}

uint64_t zs_scan(const struct zset *z, uint64_t cursor, zs_scan_cb *fn, void *arg)
{
    if (!z->buckets)
        return 0;
    if (!z->resize) {
        scan_chain(z, z->buckets[cursor & z->mask], fn, arg);
        return next_cursor(cursor, z->mask);
    }
    /* Two tables (Redis's dictScan while rehashing): the smaller one's
     * bucket, then every bucket of the larger one that it expands into. */
    struct zs_node *const *small = z->buckets, *const *large = z->resize->buckets;
    uint64_t m0 = z->mask, m1 = z->resize->mask;
    if (m0 > m1) {
        small = z->resize->buckets;
        large = z->buckets;
        m0 = z->resize->mask;
        m1 = z->mask;
    }
    scan_chain(z, scan_bucket(z, small, cursor & m0), fn, arg);
    do {
        scan_chain(z, scan_bucket(z, large, cursor & m1), fn, arg);
        cursor = next_cursor(cursor, m1);
    } while (cursor & (m0 ^ m1));
    return cursor;
}

/* ---- checking ----------------------------------------------------------- */

int zs_check(const struct zset *z, const char **why)
{
    int nodes = rb_check(&z->tree, why);
    const struct zs_node *prev = NULL;
    size_t hashed = 0;

    if (nodes < 0)
        return -1;
    for (const struct zs_node *n = zs_first(z); n; prev = n, n = zs_next(n)) {
        if (isnan(n->score)) {
            *why = "a score is NaN";
            return -1;
        }
        if (prev && node_cmp(n->score, n->member, n->len, prev) <= 0) {
            *why = "members out of (score, member) order";
            return -1;
        }
        if (n->size != 1 + zst_size(n->rb.rb_left) + zst_size(n->rb.rb_right)) {
            *why = "a subtree size is wrong";
            return -1;
        }
        if (zs_find(z, n->member, n->len) != n) {
            *why = "a member is not found by name";
            return -1;
        }
    }
    if ((size_t)nodes != zs_len(z)) {
        *why = "the root's size is not the node count";
        return -1;
    }
    if (!z->buckets) {
        if (nodes) {
            *why = "members but no hash table";
            return -1;
        }
        return 0;
    }
    for (int t = 0; t < 2; t++) {
        struct zs_node **table = t ? (z->resize ? z->resize->buckets : NULL) : z->buckets;
        size_t mask = t ? (z->resize ? z->resize->mask : 0) : z->mask;
        for (size_t i = 0; table && i <= mask; i++) {
            for (const struct zs_node *n = scan_bucket(z, table, i); n; n = n->hnext) {
                if (chain_of(z, member_hash(z, n->member, n->len)) != &table[i]) {
                    *why = "a member is in the wrong bucket";
                    return -1;
                }
                hashed += !is_cut(z, n);
            }
        }
    }
    if (hashed != (size_t)nodes) {
        *why = "the hash table and the tree hold different counts";
        return -1;
    }
    return 0;
}

size_t zs_memory(const struct zset *z, size_t samples)
{
    size_t bytes = 0, seen = 0, len = zs_len(z);
    for (const struct zs_node *n = zs_first(z); n && (!samples || seen < samples);
         n = zs_next(n), seen++)
        bytes += xsize(n);
    if (seen && seen < len)
        bytes = (size_t)((double)bytes / (double)seen * (double)len);
    if (z->resize)
        bytes += xsize(z->resize) + xsize(z->resize->buckets);
    return xsize(z) + (z->buckets ? xsize(z->buckets) : 0) + bytes;
}
