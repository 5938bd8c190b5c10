/*
 * bench_rbtree.c - the intrusive red-black tree against glibc's tsearch
 * family, on the same workload: N random 16-byte keys inserted, each looked
 * up, the whole set walked in order, each erased.
 *
 * Owns: the keys, the rbtree entries and the timing. Not a test: it asserts
 * only that both trees gave the right answers, and prints ns per operation.
 *
 * Fairness, as printed in the output: allocation is timed on both sides. An
 * rbtree insert is malloc(entry) + copying the key into it + the caller's
 * descent with an inline compare + rb_link_node + rb_insert_color; a tsearch
 * insert is tsearch() with a comparison callback, which allocates its own node
 * and keeps a pointer to the caller's key. An rbtree erase is rb_erase + free
 * (the caller holds the entry, so there is no search); tdelete() searches,
 * unlinks and frees its node. The keys live in one array made before timing,
 * and both trees see the same insert, lookup and erase orders.
 *
 * usage: bench_rbtree [-n keys] [-r rounds] [-s seed] [-f]   (-f: see the heap note in main)
 */
#include <malloc.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rbtree.h"

#define KEY_LEN 16

struct bench_entry {
    struct rb_node node;
    char key[KEY_LEN];
};

enum phase { PH_INSERT, PH_LOOKUP, PH_WALK, PH_ERASE, PH_COUNT };
static const char *const phase_names[PH_COUNT] = { "insert", "lookup", "in-order walk", "erase" };

struct workload {
    size_t n;
    char (*keys)[KEY_LEN];  /* n unique keys, random order: the insert order */
    size_t *lookup_order;   /* permutations of [0, n) */
    size_t *erase_order;
};

static void die(const char *what)
{
    fprintf(stderr, "bench_rbtree: %s\n", what);
    exit(1);
}

static void *xmalloc(size_t size)
{
    void *p = malloc(size);

    if (!p)
        die("out of memory");
    return p;
}

/* CPU time of this thread, not wall time: the benchmark must give usable
 * figures on a shared machine, where wall time also counts other processes. */
static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* xorshift64: enough randomness for keys and shuffles. */
static uint64_t rand_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static size_t *random_permutation(size_t n, uint64_t *rng)
{
    size_t *p = xmalloc(n * sizeof(*p));

    for (size_t i = 0; i < n; i++)
        p[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(rand_next(rng) % i), tmp = p[i - 1];

        p[i - 1] = p[j];
        p[j] = tmp;
    }
    return p;
}

static uint64_t key_word(const char *p)
{
    uint64_t w;

    memcpy(&w, p, sizeof(w));
    return __builtin_bswap64(w); /* big-endian, so integer order is byte order */
}

/*
 * memcmp's order on two 16-byte keys, as two 64-bit compares. Both trees use
 * it: inline in the rbtree's descent, inside the callback for tsearch. (A
 * memcmp call per level cost the rbtree lookup about a quarter of its time
 * here.)
 */
static inline int key_cmp(const char *a, const char *b)
{
    uint64_t x = key_word(a), y = key_word(b);

    if (x == y) {
        x = key_word(a + 8);
        y = key_word(b + 8);
    }
    return (x > y) - (x < y);
}

/* key_cmp for qsort, bsearch and tsearch. */
static int key_cmp_cb(const void *a, const void *b)
{
    return key_cmp(a, b);
}

/* Printable random keys; duplicates (odds about n^2 / 2^97) are refused. */
static void workload_init(struct workload *w, size_t n, uint64_t seed)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
    char (*sorted)[KEY_LEN];
    uint64_t rng = seed ? seed : 1;

    w->n = n;
    w->keys = xmalloc(n * KEY_LEN);
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < KEY_LEN; j++)
            w->keys[i][j] = alphabet[rand_next(&rng) % 64];
    }
    sorted = xmalloc(n * KEY_LEN);
    memcpy(sorted, w->keys, n * KEY_LEN);
    qsort(sorted, n, KEY_LEN, key_cmp_cb);
    for (size_t i = 1; i < n; i++) {
        if (!key_cmp(sorted[i - 1], sorted[i]))
            die("duplicate key generated; try another -s");
    }
    free(sorted);
    w->lookup_order = random_permutation(n, &rng);
    w->erase_order = random_permutation(n, &rng);
}

static void workload_destroy(struct workload *w)
{
    free(w->keys);
    free(w->lookup_order);
    free(w->erase_order);
}

/* ---- the rbtree side ---- */

/* The caller's descent, shared by lookup and insert: returns the link that
 * holds `key`'s entry, or the empty link where it belongs, under *parent. */
static struct rb_node **descend(struct rb_root *root, const char *key, struct rb_node **parent)
{
    struct rb_node **link = &root->rb_node, *up = NULL;

    while (*link) {
        int cmp = key_cmp(key, rb_entry(*link, struct bench_entry, node)->key);

        up = *link;
        if (cmp < 0)
            link = &up->rb_left;
        else if (cmp > 0)
            link = &up->rb_right;
        else
            break;
    }
    *parent = up;
    return link;
}

static struct bench_entry *rb_search_key(struct rb_root *root, const char *key)
{
    struct rb_node *parent, **link = descend(root, key, &parent);

    return *link ? rb_entry(*link, struct bench_entry, node) : NULL;
}

static int rb_insert_entry(struct rb_root *root, struct bench_entry *e)
{
    struct rb_node *parent, **link = descend(root, e->key, &parent);

    if (*link)
        return -1;
    rb_link_node(&e->node, parent, link);
    rb_insert_color(&e->node, root);
    return 0;
}

/* Walks in order, checking the order as a consumer reading keys would. */
static size_t rb_walk(const struct rb_root *root)
{
    const char *prev = NULL;
    size_t count = 0;

    for (struct rb_node *n = rb_first(root); n; n = rb_next(n)) {
        const char *key = rb_entry(n, struct bench_entry, node)->key;

        if (prev && key_cmp(prev, key) >= 0)
            die("rbtree walk out of order");
        prev = key;
        count++;
    }
    return count;
}

static void bench_rbtree(const struct workload *w, double ns[PH_COUNT])
{
    struct rb_root root = RB_ROOT;
    struct bench_entry **entries = xmalloc(w->n * sizeof(*entries));
    size_t found = 0;
    double t0, t1;

    t0 = now_ns();
    for (size_t i = 0; i < w->n; i++) {
        struct bench_entry *e = xmalloc(sizeof(*e));

        memcpy(e->key, w->keys[i], KEY_LEN);
        if (rb_insert_entry(&root, e) < 0)
            die("rbtree refused a unique key");
        entries[i] = e;
    }
    t1 = now_ns();
    ns[PH_INSERT] = (t1 - t0) / (double)w->n;

    for (size_t i = 0; i < w->n; i++)
        found += rb_search_key(&root, w->keys[w->lookup_order[i]]) != NULL;
    t0 = now_ns();
    ns[PH_LOOKUP] = (t0 - t1) / (double)w->n;
    if (found != w->n)
        die("rbtree lookup missed");

    if (rb_walk(&root) != w->n)
        die("rbtree walk miscounted");
    t1 = now_ns();
    ns[PH_WALK] = (t1 - t0) / (double)w->n;

    for (size_t i = 0; i < w->n; i++) {
        struct bench_entry *e = entries[w->erase_order[i]];

        rb_erase(&e->node, &root);
        free(e);
    }
    t0 = now_ns();
    ns[PH_ERASE] = (t0 - t1) / (double)w->n;
    if (!RB_EMPTY_ROOT(&root))
        die("rbtree not empty after erasing all");
    free(entries);
}

/* The walk again, with entries laid out in key order in one array (an
 * arena) but inserted in the same random order: in-order then means
 * sequential memory. Returns ns per node. */
static double bench_rbtree_arena_walk(const struct workload *w)
{
    struct rb_root root = RB_ROOT;
    struct bench_entry *arena = xmalloc(w->n * sizeof(*arena));
    char (*sorted)[KEY_LEN] = xmalloc(w->n * KEY_LEN);
    double t0, t1;

    memcpy(sorted, w->keys, w->n * KEY_LEN);
    qsort(sorted, w->n, KEY_LEN, key_cmp_cb);
    for (size_t i = 0; i < w->n; i++)
        memcpy(arena[i].key, sorted[i], KEY_LEN);
    for (size_t i = 0; i < w->n; i++) {
        /* Insert in the workload's random order: find each key's slot. */
        char (*slot)[KEY_LEN] = bsearch(w->keys[i], sorted, w->n, KEY_LEN, key_cmp_cb);

        if (!slot || rb_insert_entry(&root, &arena[slot - sorted]) < 0)
            die("arena insert failed");
    }
    t0 = now_ns();
    if (rb_walk(&root) != w->n)
        die("arena walk miscounted");
    t1 = now_ns();
    free(sorted);
    free(arena);
    return (t1 - t0) / (double)w->n;
}

/* ---- the tsearch side ---- */

struct walk_state {
    const char *prev;
    size_t count;
};

static void twalk_action(const void *nodep, VISIT which, void *closure)
{
    struct walk_state *st = closure;
    const char *key;

    /* In-order is the visit after the left subtree, or a leaf's only one. */
    if (which != postorder && which != leaf)
        return;
    key = *(const char *const *)nodep;
    if (st->prev && key_cmp(st->prev, key) >= 0)
        die("twalk out of order");
    st->prev = key;
    st->count++;
}

static void bench_tsearch(const struct workload *w, double ns[PH_COUNT])
{
    void *root = NULL;
    struct walk_state st = { NULL, 0 };
    size_t found = 0;
    double t0, t1;

    t0 = now_ns();
    for (size_t i = 0; i < w->n; i++) {
        void *r = tsearch(w->keys[i], &root, key_cmp_cb);

        if (!r || *(char **)r != w->keys[i])
            die("tsearch refused a unique key");
    }
    t1 = now_ns();
    ns[PH_INSERT] = (t1 - t0) / (double)w->n;

    for (size_t i = 0; i < w->n; i++)
        found += tfind(w->keys[w->lookup_order[i]], &root, key_cmp_cb) != NULL;
    t0 = now_ns();
    ns[PH_LOOKUP] = (t0 - t1) / (double)w->n;
    if (found != w->n)
        die("tfind missed");

    twalk_r(root, twalk_action, &st);
    if (st.count != w->n)
        die("twalk miscounted");
    t1 = now_ns();
    ns[PH_WALK] = (t1 - t0) / (double)w->n;

    for (size_t i = 0; i < w->n; i++) {
        if (!tdelete(w->keys[w->erase_order[i]], &root, key_cmp_cb))
            die("tdelete missed");
    }
    t0 = now_ns();
    ns[PH_ERASE] = (t0 - t1) / (double)w->n;
    if (root)
        die("tsearch tree not empty after deleting all");
}

/* ---- driver ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define MAX_ROUNDS 99

int main(int argc, char **argv)
{
    size_t n = 1000000;
    int rounds = 3, opt, scrambled = 0;
    uint64_t seed = 1;
    double rb[PH_COUNT][MAX_ROUNDS], ts[PH_COUNT][MAX_ROUNDS], arena[MAX_ROUNDS], warmup[PH_COUNT];
    struct workload w;

    while ((opt = getopt(argc, argv, "n:r:s:f")) != -1) {
        switch (opt) {
        case 'n':
            n = strtoull(optarg, NULL, 10);
            break;
        case 'r':
            rounds = atoi(optarg);
            break;
        case 's':
            seed = strtoull(optarg, NULL, 10);
            break;
        case 'f':
            scrambled = 1;
            break;
        default:
            fprintf(stderr, "usage: bench_rbtree [-n keys] [-r rounds 1-%d] [-s seed] [-f]\n", MAX_ROUNDS);
            return 2;
        }
    }
    if (n < 2 || rounds < 1 || rounds > MAX_ROUNDS)
        die("need -n >= 2 and -r in 1..99");

    workload_init(&w, n, seed);
    /*
     * Keep freed memory in the process and fault it in with one untimed
     * round, so no timed phase pays the kernel for fresh pages (the rbtree's
     * larger entries would pay more of that). By default fastbins are off, so
     * each run's frees coalesce back into one block and every run allocates
     * in insertion order. With -f they stay on: each run then gets its chunks
     * back in the previous run's random erase order, as a long-running
     * server's heap would hand them out.
     */
    mallopt(M_TRIM_THRESHOLD, -1);
    if (!scrambled)
        mallopt(M_MXFAST, 0);
    bench_rbtree(&w, warmup);
    bench_tsearch(&w, warmup);
    for (int r = 0; r < rounds; r++) {
        double a[PH_COUNT], b[PH_COUNT];

        /* Alternate who goes first, so neither always runs in the same spot. */
        if (r % 2) {
            bench_tsearch(&w, b);
            bench_rbtree(&w, a);
        } else {
            bench_rbtree(&w, a);
            bench_tsearch(&w, b);
        }
        for (int p = 0; p < PH_COUNT; p++) {
            rb[p][r] = a[p];
            ts[p][r] = b[p];
        }
        arena[r] = bench_rbtree_arena_walk(&w);
    }

    printf("bench_rbtree: %zu random %d-byte keys, seed %llu, median of %d rounds\n"
           "(ns of thread CPU time per operation)\n",
           n, KEY_LEN, (unsigned long long)seed, rounds);
    printf("allocation is timed on both sides: rbtree insert = malloc(entry of %zu bytes) + key copy +\n"
           "descent + link + rebalance, erase = rb_erase + free; tsearch/tdelete allocate and free their\n"
           "own nodes, and tdelete searches first (rb_erase needs no search: the caller holds the entry).\n"
           "heap: faulted in by an untimed run of each first, never trimmed; %s\n",
           sizeof(struct bench_entry),
           scrambled ? "fastbins on (-f): chunks come back\nin the previous run's random erase order"
                     : "fastbins off: every run allocates\nfrom one coalesced block, in insertion order");
    printf("%-16s %12s %12s %10s\n", "phase", "rbtree", "tsearch", "speed-up");
    for (int p = 0; p < PH_COUNT; p++) {
        double x = median(rb[p], rounds), y = median(ts[p], rounds);

        printf("%-16s %12.1f %12.1f %9.2fx\n", phase_names[p], x, y, y / x);
    }
    printf("%-16s %12.1f   (entries in one array in key order, inserted in random order)\n",
           "walk, arena", median(arena, rounds));
    workload_destroy(&w);
    return 0;
}
