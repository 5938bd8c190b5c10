/*
 * test_zset.c - the sorted-set value (server/data/zset.[ch]) against a model: a
 * sorted array of (score, member), with zs_check() after every change.
 *
 * Owns: one set and its model per run. No server, no RESP: zset.h knows
 * nothing of them.
 *
 * Parts:
 *   random  RANDOM_OPS random inserts, score updates and deletes over a small
 *           alphabet of names and scores (ties, -0 and 0, both infinities),
 *           each followed by zs_check and by comparing lookups, ranks,
 *           selects and score spans with the model;
 *   lex     the same with every score equal, for the lex spans;
 *   scan    a full ZSCAN-style iteration visits every member present
 *           throughout, while members come and go and the table resizes;
 *   clone   a clone equals its source and is independent of it;
 *   cut     zs_cut of a random run (range deletion), both of its ways;
 *   cutlazy cuts too big to clear the table at once: left in it, passed
 *           over by lookups and scans, cleared by zs_cut_step or zs_free;
 *   resize  tables big enough to resize a few buckets per change, through
 *           doublings and halvings, with lookups, checks and a scan across;
 *   release a 16 MB table draining, its drained pages given back meanwhile.
 * Every part ends with mem_used() back at zero: a leaked node fails.
 *
 * usage: test_zset [part]... (no argument runs all). Prints SEED=<n>;
 * SEED=<n> in the environment replays a run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "lexrange.h"
#include "mem.h"
#include "zset.h"

#define RANDOM_OPS 20000
#define NAMES 300   /* distinct member names: the set fills and empties */
#define NAME_MAX 8

static uint64_t seed, rng; /* each part draws from the seed anew */

/* ---- the model ---------------------------------------------------------- */

struct item {
    char m[NAME_MAX];
    size_t len;
    double score;
};

static struct item model[NAMES];
static size_t model_len;

static int bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int r = memcmp(a, b, alen < blen ? alen : blen);
    return r ? r : (alen > blen) - (alen < blen);
}

static int item_cmp(const struct item *a, const struct item *b)
{
    if (a->score != b->score)
        return a->score < b->score ? -1 : 1;
    return bytes_cmp(a->m, a->len, b->m, b->len);
}

static long model_find(const char *m, size_t len)
{
    for (size_t i = 0; i < model_len; i++)
        if (model[i].len == len && memcmp(model[i].m, m, len) == 0)
            return (long)i;
    return -1;
}

static void model_remove(size_t i)
{
    memmove(&model[i], &model[i + 1], (model_len - i - 1) * sizeof(model[0]));
    model_len--;
}

static void model_insert(const char *m, size_t len, double score)
{
    struct item it = {{0}, len, score};
    size_t i = 0;

    memcpy(it.m, m, len);
    while (i < model_len && item_cmp(&model[i], &it) < 0)
        i++;
    memmove(&model[i + 1], &model[i], (model_len - i) * sizeof(model[0]));
    model[i] = it;
    model_len++;
}

/* Name number k % NAMES, in bijective base 4 over "abcd": distinct numbers
 * give distinct names of 0 to 4 bytes, so prefixes and the empty name come
 * up. */
static size_t random_name(char *buf, size_t k)
{
    size_t len = 0;
    for (k %= NAMES; k > 0; k = (k - 1) / 4)
        buf[len++] = (char)('a' + (k - 1) % 4);
    return len;
}

static double random_score(void)
{
    static const double scores[] = {-INFINITY, -2.5, -1, -0.0, 0, 1, 1.5, 2, 3, 1e300, INFINITY};
    return scores[rng_below(&rng, sizeof(scores) / sizeof(scores[0]))];
}

/* ---- comparing ---------------------------------------------------------- */

static void check_set(const struct zset *z)
{
    const char *why = NULL;
    if (zs_check(z, &why) != 0) {
        fprintf(stderr, "zs_check: %s\n", why);
        CHECK(0);
    }
    CHECK(zs_len(z) == model_len);
    size_t i = 0;
    for (const struct zs_node *n = zs_first(z); n; n = zs_next(n), i++) {
        CHECK(i < model_len);
        CHECK(n->len == model[i].len && memcmp(n->member, model[i].m, n->len) == 0);
        CHECK(n->score == model[i].score && signbit(n->score) == signbit(model[i].score));
    }
    CHECK(i == model_len);
}

static void check_point(const struct zset *z)
{
    char m[NAME_MAX];
    size_t len = random_name(m, rng_next(&rng));
    const struct zs_node *n = zs_find(z, m, len);
    long i = model_find(m, len);

    CHECK((n != NULL) == (i >= 0));
    if (n) {
        CHECK(zs_rank(n) == (size_t)i);
        CHECK(n->score == model[i].score);
    }
    size_t k = rng_below(&rng, model_len + 2);
    n = zs_select(z, k);
    CHECK((n != NULL) == (k < model_len));
    if (n)
        CHECK(n->len == model[k].len && memcmp(n->member, model[k].m, n->len) == 0);
}

/* The model's positions [lo, hi) of the items in range (by score or lex). */
static void model_span(int (*in)(const struct item *, const void *), const void *arg, size_t *lo,
                       size_t *hi)
{
    *lo = *hi = 0;
    size_t i = 0;
    while (i < model_len && !in(&model[i], arg))
        i++;
    *lo = *hi = i;
    while (i < model_len && in(&model[i], arg))
        i++;
    *hi = i;
    for (; i < model_len; i++)
        CHECK(!in(&model[i], arg)); /* a range is contiguous in the order */
}

static int in_score(const struct item *it, const void *arg)
{
    const struct zs_range *r = arg;
    /* Written out rather than through zs_gte_min/zs_lte_max: the model must
     * not share the code it checks. */
    int above_min = r->minex ? it->score > r->min : it->score >= r->min;
    int below_max = r->maxex ? it->score < r->max : it->score <= r->max;
    return above_min && below_max;
}

static void check_score_range(const struct zset *z)
{
    struct zs_range r = {random_score(), random_score(), (int)rng_below(&rng, 2),
                         (int)rng_below(&rng, 2)};
    size_t lo, hi;

    model_span(in_score, &r, &lo, &hi);
    struct zs_span s = zs_score_span(z, &r);
    CHECK(s.hi - s.lo == hi - lo);
    if (hi > lo)
        CHECK(s.lo == lo);
}

struct lex_pair {
    struct lex_bound min, max;
};

static int in_lex(const struct item *it, const void *arg)
{
    const struct lex_pair *p = arg;
    return lex_gte_min(it->m, it->len, &p->min) && lex_lte_max(it->m, it->len, &p->max);
}

static void random_bound(struct lex_bound *b, char *buf)
{
    static const char kinds[] = "-+[(";
    size_t len = random_name(buf + 1, rng_next(&rng));
    buf[0] = kinds[rng_below(&rng, 4)];
    if (buf[0] == '-' || buf[0] == '+')
        len = 0;
    CHECK(lex_bound_parse(buf, len + 1, b) == 0);
}

static void check_lex_range(const struct zset *z)
{
    char a[NAME_MAX + 1], b[NAME_MAX + 1];
    struct lex_pair p;
    size_t lo, hi;

    random_bound(&p.min, a);
    random_bound(&p.max, b);
    model_span(in_lex, &p, &lo, &hi);
    struct zs_span s = zs_lex_span(z, &p.min, &p.max);
    CHECK(s.hi - s.lo == hi - lo);
    if (hi > lo)
        CHECK(s.lo == lo);
}

/* One random change to both; fixed_score (not NaN) keeps every score equal. */
static void random_change(struct zset *z, double fixed_score)
{
    char m[NAME_MAX];
    size_t len = random_name(m, rng_next(&rng));
    struct zs_node *n = zs_find(z, m, len);
    long i = model_find(m, len);
    double score = isnan(fixed_score) ? random_score() : fixed_score;

    CHECK((n != NULL) == (i >= 0));
    /* Lean towards inserting while small and deleting while large, so the
     * set keeps passing through empty and through its table's resizes. */
    if (!n && rng_below(&rng, NAMES) >= model_len / 2) {
        zs_insert(z, m, len, score);
        model_insert(m, len, score);
    } else if (n && rng_below(&rng, 3) == 0) {
        zs_update(z, n, score);
        model_remove((size_t)i);
        model_insert(m, len, score);
    } else if (n) {
        zs_delete(z, n);
        model_remove((size_t)i);
    }
}

static void run_random(double fixed_score)
{
    struct zset *z = zs_new();

    model_len = 0;
    for (int op = 0; op < RANDOM_OPS; op++) {
        random_change(z, fixed_score);
        check_set(z);
        check_point(z);
        if (isnan(fixed_score))
            check_score_range(z);
        else
            check_lex_range(z);
    }
    zs_free(z);
}

static void part_random(void)
{
    run_random(NAN);
}

static void part_lex(void)
{
    run_random(0);
}

/* ---- scan and clone ----------------------------------------------------- */

struct seen {
    unsigned char hits[NAMES];
};

static void seen_cb(void *arg, const struct zs_node *n)
{
    struct seen *s = arg;
    char m[NAME_MAX];
    /* Names are random_name(k) for k < NAMES: find k back. */
    for (size_t k = 0; k < NAMES; k++) {
        if (random_name(m, k) == n->len && memcmp(m, n->member, n->len) == 0) {
            s->hits[k] = 1;
            return;
        }
    }
    CHECK(0);
}

static void part_scan(void)
{
    for (int round = 0; round < 50; round++) {
        struct zset *z = zs_new();
        struct seen seen = {{0}};
        char m[NAME_MAX];
        /* Names 0..99 stay throughout; 100..NAMES-1 come and go, growing and
         * shrinking the table between calls. */
        for (size_t k = 0; k < 100; k++)
            zs_insert(z, m, random_name(m, k), 1);
        uint64_t cursor = 0;
        do {
            cursor = zs_scan(z, cursor, seen_cb, &seen);
            for (int j = 0; j < 20; j++) {
                size_t k = 100 + rng_below(&rng, NAMES - 100), len = random_name(m, k);
                struct zs_node *n = zs_find(z, m, len);
                if (n)
                    zs_delete(z, n);
                else if (rng_below(&rng, 2))
                    zs_insert(z, m, len, (double)rng_below(&rng, 5));
            }
            if (rng_below(&rng, 8) == 0) /* a burst: the table doubles or halves */
                for (size_t k = 100; k < NAMES; k++) {
                    size_t len = random_name(m, k);
                    struct zs_node *n = zs_find(z, m, len);
                    if (round % 2 && !n)
                        zs_insert(z, m, len, 0);
                    else if (!(round % 2) && n)
                        zs_delete(z, n);
                }
            const char *why;
            CHECK(zs_check(z, &why) == 0);
        } while (cursor);
        for (size_t k = 0; k < 100; k++)
            CHECK(seen.hits[k]);
        zs_free(z);
    }
}

static void part_clone(void)
{
    struct zset *z = zs_new();
    char m[NAME_MAX];

    for (size_t k = 0; k < NAMES; k++)
        zs_insert(z, m, random_name(m, k), random_score());
    struct zset *copy = zs_clone(z);
    const char *why;
    CHECK(zs_check(copy, &why) == 0);
    CHECK(zs_len(copy) == zs_len(z));
    for (const struct zs_node *a = zs_first(z), *b = zs_first(copy); a;
         a = zs_next(a), b = zs_next(b)) {
        CHECK(b && a != b && a->len == b->len && memcmp(a->member, b->member, a->len) == 0);
        CHECK(a->score == b->score);
    }
    zs_delete(z, zs_first(z));
    CHECK(zs_len(copy) == NAMES);
    zs_free(z);
    zs_free(copy);
    zs_free(NULL);
}

/* zs_cut of a random run from sets of random sizes, both of its ways (the
 * names leave the table, or the table is rebuilt from the rest): z passes
 * zs_check and keeps exactly the members outside the run, the cut set has
 * the run's count, and freeing both returns every byte. */
static void part_cut(void)
{
    char m[16];

    for (int round = 0; round < 400; round++) {
        size_t size = 1 + (size_t)(rng_next(&rng) % (round < 200 ? 64 : 5000));
        struct zset *z = zs_new();
        for (size_t i = 0; i < size; i++) {
            int len = snprintf(m, sizeof(m), "m%zu", i);
            zs_insert(z, m, (size_t)len, (double)i);
        }
        size_t lo = (size_t)(rng_next(&rng) % size);
        size_t n = 1 + (size_t)(rng_next(&rng) % (size - lo));
        struct zset *out = zs_cut(z, lo, n);
        const char *why;
        CHECK_MSG(zs_check(z, &why) == 0, "%s", why);
        CHECK(zs_len(z) == size - n && zs_len(out) == n);
        for (size_t i = 0; i < size; i++) {
            int len = snprintf(m, sizeof(m), "m%zu", i);
            struct zs_node *at = zs_find(z, m, (size_t)len);
            CHECK((at != NULL) == (i < lo || i >= lo + n));
        }
        zs_free(out);
        zs_free(z);
    }
}

/* The members zs_scan visits, counted, and whether any is not in z by
 * name (a pending cut's). */
struct visits {
    const struct zset *z;
    size_t count;
    int stray;
};

static void visit_cb(void *arg, const struct zs_node *n)
{
    struct visits *v = arg;
    v->count++;
    v->stray |= zs_find(v->z, n->member, n->len) != n;
}

/* z's members by name: m<i> for i in [0, size) is there exactly when
 * present[i], and a full scan visits those only. */
static void check_names(const struct zset *z, const unsigned char *present, size_t size)
{
    char m[16];
    size_t count = 0;
    const char *why;
    CHECK_MSG(zs_check(z, &why) == 0, "%s", why);
    for (size_t i = 0; i < size; i++) {
        int len = snprintf(m, sizeof(m), "m%zu", i);
        CHECK((zs_find(z, m, (size_t)len) != NULL) == present[i]);
        count += present[i];
    }
    CHECK(zs_len(z) == count);
    struct visits v = {z, 0, 0};
    uint64_t cursor = 0;
    do
        cursor = zs_scan(z, cursor, visit_cb, &v);
    while (cursor);
    CHECK(v.count == count && !v.stray);
}

/* Cuts too big to clear at once (more than ZS_CUT_EAGER names both ways)
 * stay in the set's table: lookups and scans pass over them while members
 * of the same names come back, a second cut joins the first, the table
 * empties and resizes, and zs_cut_step clears them in slices of random
 * size, or zs_free frees them with the set. */
static void part_cut_lazy(void)
{
    enum { MAX = 24000 };
    static unsigned char present[MAX];
    char m[16];

    for (int round = 0; round < 12; round++) {
        size_t size = 2 * ZS_CUT_EAGER + 2 + (size_t)(rng_next(&rng) % (MAX - 2 * ZS_CUT_EAGER - 2));
        struct zset *z = zs_new();
        for (size_t i = 0; i < size; i++) {
            int len = snprintf(m, sizeof(m), "m%zu", i);
            zs_insert(z, m, (size_t)len, (double)i);
            present[i] = 1;
        }
        size_t lo = (size_t)(rng_next(&rng) % (size - 2 * ZS_CUT_EAGER - 1));
        size_t n = ZS_CUT_EAGER + 1 + (size_t)(rng_next(&rng) % (size - lo - 2 * ZS_CUT_EAGER - 1 + 1));
        if (size - n < ZS_CUT_EAGER + 1)
            n = size - ZS_CUT_EAGER - 1;
        CHECK(zs_cut(z, lo, n) == NULL && zs_cut_pending(z) == n);
        memset(present + lo, 0, n);
        check_names(z, present, size);
        for (int k = 0; k < 300; k++) { /* some names come back, scored anew */
            size_t i = lo + (size_t)(rng_next(&rng) % n);
            int len = snprintf(m, sizeof(m), "m%zu", i);
            if (!present[i])
                zs_insert(z, m, (size_t)len, -(double)i);
            present[i] = 1;
        }
        check_names(z, present, size);
        if (round % 3 == 1) { /* all the rest go: the table is freed, then new */
            while (zs_len(z))
                zs_delete(z, zs_first(z));
            memset(present, 0, size);
            int len = snprintf(m, sizeof(m), "m%zu", lo);
            zs_insert(z, m, (size_t)len, 1);
            present[lo] = 1;
            check_names(z, present, size);
        }
        if (round % 4 == 3) {
            zs_free(z); /* the pending cut with it */
            CHECK(mem_used() == 0);
            continue;
        }
        while (zs_cut_step(z, 1 + (size_t)(rng_next(&rng) % 3000)))
            check_names(z, present, size);
        CHECK(zs_cut_pending(z) == 0 && z->cuts == NULL);
        check_names(z, present, size);
        zs_free(z);
        CHECK(mem_used() == 0);
    }
}

/* The stayers a scan visited (members "s<k>"). */
struct stayers {
    unsigned char hit[1000];
};

static void stayer_cb(void *arg, const struct zs_node *n)
{
    struct stayers *s = arg;
    char name[16];
    if (n->len < 2 || n->len >= sizeof(name) || n->member[0] != 's')
        return;
    memcpy(name, n->member, n->len);
    name[n->len] = '\0';
    int k = atoi(name + 1);
    if (k >= 0 && k < (int)sizeof(s->hit))
        s->hit[k] = 1;
}

/* A table past ZS_RESIZE_EAGER buckets resizes a few buckets per change: a
 * set grows through several doublings, then shrinks through halvings, with
 * inserts and deletes mixed both ways. Each name is found exactly when
 * present, zs_check holds (every 500 changes and whenever a resize starts
 * or ends), a scan going on throughout visits every member present
 * throughout (1,000 stayers), and resizes are seen in progress, into
 * tables of 16,384 buckets and more. */
static void part_resize(void)
{
    enum { MAX = 40000, STAY = 1000, GROWN = 30000 };
    static unsigned char present[MAX];
    char m[16];
    struct zset *z = zs_new();
    struct stayers seen;
    const char *why;
    size_t members = 0, draining = 0, biggest = 0, scans = 0;
    uint64_t cursor = 0;

    memset(present, 0, sizeof(present));
    memset(&seen, 0, sizeof(seen));
    for (int k = 0; k < STAY; k++)
        zs_insert(z, m, (size_t)snprintf(m, sizeof(m), "s%d", k), (double)k);
    for (int phase = 0; phase < 2; phase++) {
        for (long op = 0; phase ? members > 100 : members < GROWN; op++) {
            /* Three changes in four go the phase's way: from a random
             * index, the next name absent (to insert) or present. */
            int add = (rng_below(&rng, 4) != 0) != phase || !members;
            size_t i = (size_t)rng_below(&rng, MAX);
            while (present[i] == add)
                i = (i + 1) % MAX;
            size_t len = (size_t)snprintf(m, sizeof(m), "m%zu", i);
            int was_resizing = z->resize != NULL;
            struct zs_node *n = zs_find(z, m, len);
            CHECK((n != NULL) == present[i]);
            if (!n) {
                zs_insert(z, m, len, (double)rng_below(&rng, 1000));
                members++;
            } else {
                zs_delete(z, n);
                members--;
            }
            present[i] = !present[i];
            if (z->resize) {
                draining++;
                if (z->mask + 1 > biggest)
                    biggest = z->mask + 1;
            }
            if (op % 500 == 0 || was_resizing != (z->resize != NULL))
                CHECK_MSG(zs_check(z, &why) == 0, "%s", why);
            cursor = zs_scan(z, cursor, stayer_cb, &seen);
            if (!cursor) {
                for (int k = 0; k < STAY; k++)
                    CHECK(seen.hit[k]);
                memset(&seen, 0, sizeof(seen));
                scans++;
            }
        }
    }
    CHECK(zs_len(z) == members + STAY);
    CHECK_MSG(zs_check(z, &why) == 0, "%s", why);
    CHECK(draining > 0 && biggest >= 16384 && scans > 0);
    zs_free(z);
}

/* Whether m<i> for every i < n is in z, each once. */
static int all_found(const struct zset *z, size_t n)
{
    char m[16];
    for (size_t i = 0; i < n; i++)
        if (!zs_find(z, m, (size_t)snprintf(m, sizeof(m), "m%zx", i)))
            return 0;
    return zs_len(z) == n;
}

/* A table of 16 MB and more gives its drained pages back to the kernel as
 * it drains (zset.c's ZS_RELEASE_TABLE): the 2M-bucket table of a set
 * growing past 2,097,152 members. Every member is found halfway through
 * the drain and after it, and the set checks. */
static void part_release(void)
{
    enum { DOUBLED = 2097152 + 1, HALFWAY = DOUBLED + 130000, AFTER = DOUBLED + 300000 };
    struct zset *z = zs_new();
    char m[16];
    const char *why;
    size_t i = 0;

    for (; i < DOUBLED; i++)
        zs_insert(z, m, (size_t)snprintf(m, sizeof(m), "m%zx", i), (double)i);
    CHECK(z->resize != NULL);
    for (; i < HALFWAY; i++)
        zs_insert(z, m, (size_t)snprintf(m, sizeof(m), "m%zx", i), (double)i);
    CHECK(z->resize != NULL && all_found(z, i));
    for (; i < AFTER; i++)
        zs_insert(z, m, (size_t)snprintf(m, sizeof(m), "m%zx", i), (double)i);
    CHECK(z->resize == NULL && all_found(z, i));
    CHECK_MSG(zs_check(z, &why) == 0, "%s", why);
    zs_free(z);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } parts[] = {{"random", part_random}, {"lex", part_lex}, {"scan", part_scan},
                 {"clone", part_clone}, {"cut", part_cut}, {"cutlazy", part_cut_lazy},
                 {"resize", part_resize}, {"release", part_release}};

    seed = check_seed((uint64_t)time(NULL));
    for (size_t p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
        int run = argc < 2;
        for (int a = 1; a < argc; a++)
            run |= strcmp(argv[a], parts[p].name) == 0;
        if (!run)
            continue;
        rng = seed;
        parts[p].fn();
        CHECK(mem_used() == 0);
        printf("%s: ok\n", parts[p].name);
    }
    return 0;
}
