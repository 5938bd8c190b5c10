/*
 * test_keyspace.c - directed and randomized differential tests of the
 * keyspace (server/data/keyspace.h): entries, binary key order, deadlines, lazy
 * and active expiry, the order statistics, the release hook (each value
 * leaving with its ks_free_how), a db detached whole (FLUSHALL ASYNC) and
 * range cuts of keys with deadlines (ks_cut).
 *
 * Owns: a reference model, a sorted array of (key, value, deadline) that is
 * trivially right, and the pointer values handed to ks_add_ptr(), counted by
 * their free function so a value freed twice or never shows up.
 *
 * The random test runs RANDOM_OPS operations on a keyspace and on the model
 * over a small universe of binary keys (bytes NUL, 0x01, 'a', 0xFF, length 0
 * to 5: keys that are prefixes of each other, and bytes that a signed compare
 * would misorder). After every mutation: ks_check() and the key count; every
 * FULL_COMPARE_EVERY operations, and whenever the db is small: every entry,
 * forward and backward, with its rank. Query operations check their own
 * answers. Growth and shrink phases alternate so the db keeps passing through
 * empty. The clock is simulated, so deadlines pass at known times.
 *
 * Every test ends with the keyspace freed and mem_used() back at zero: the
 * allocator wrappers count every byte, so a leak fails the test.
 *
 * usage: test_keyspace [edge|random]... (no argument runs both). The seed is
 * printed as SEED=<n> at the start and on failure; SEED=<n> in the
 * environment replays it.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "keyspace.h"
#include "mem.h"

#define RANDOM_OPS 250000
#define FULL_COMPARE_EVERY 500
#define SMALL_DB 16    /* at or below this many keys, compare everything after each op */
#define GROW_OPS 20000   /* operations of a growth phase ... */
#define SHRINK_OPS 5000  /* ... then of a shrink phase, which empties the db */
#define KEY_MAX 5
#define VALUE_MAX 2048 /* past 256 bytes so shrinking hands memory back (moves the entry) */
#define START_MS 1000000

static unsigned long test_op; /* operation number, printed on failure */

static uint64_t rng; /* every random choice, from the seed */

static void check_db(const struct db *db)
{
    const char *why = NULL;
    CHECK_MSG(ks_check(db, &why) >= 0, "ks_check: %s", why);
}

/* Pointer values: each is a heap byte; the count of live ones must match the
 * model's, and be zero once the keyspace is gone. */
static long live_ptrs;

static void ptr_free(void *p)
{
    CHECK(p != NULL);
    live_ptrs--;
    free(p);
}

static void *ptr_new(void)
{
    void *p = malloc(1);
    CHECK(p != NULL);
    live_ptrs++;
    return p;
}

/* Every test ends here: with the keyspace gone, no pointer value may be
 * left and the allocator wrappers must be back to zero bytes. */
static void free_checking_leaks(struct keyspace *ks)
{
    ks_free(ks);
    CHECK(live_ptrs == 0);
    CHECK(mem_used() == 0);
}

/* ---- the model ---- */

struct item {
    char key[KEY_MAX];
    size_t klen;
    enum ks_type type;
    char *val; /* string bytes, malloc'd; NULL when vlen is 0 */
    size_t vlen;
    void *ptr; /* the value of a KS_ZSET item */
    int64_t when;       /* deadline, -1 for none */
    uint64_t when_seq;  /* when it was set: ties expire in that order */
};

struct model {
    struct item *items; /* sorted by ks_keycmp */
    size_t n, cap;
    int64_t now;
    uint64_t seq;
    unsigned long long expired;
};

/* Index of the first item >= key (> key when after). */
static size_t model_bound(const struct model *m, const char *key, size_t klen, int after)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = ks_keycmp(m->items[mid].key, m->items[mid].klen, key, klen);
        if (c < 0 || (after && c == 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The item for key, or NULL; *pos is where it is or would go. */
static struct item *model_find(struct model *m, const char *key, size_t klen, size_t *pos)
{
    size_t i = model_bound(m, key, klen, 0);
    *pos = i;
    if (i < m->n && ks_keycmp(m->items[i].key, m->items[i].klen, key, klen) == 0)
        return &m->items[i];
    return NULL;
}

static struct item *model_insert(struct model *m, size_t pos, const char *key, size_t klen)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->items = realloc(m->items, m->cap * sizeof(*m->items));
        CHECK(m->items != NULL);
    }
    memmove(&m->items[pos + 1], &m->items[pos], (m->n - pos) * sizeof(*m->items));
    m->n++;
    struct item *it = &m->items[pos];
    memset(it, 0, sizeof(*it));
    memcpy(it->key, key, klen);
    it->klen = klen;
    it->when = -1;
    return it;
}

static void item_set_value(struct item *it, const char *val, size_t vlen)
{
    free(it->val);
    it->val = NULL;
    if (vlen) {
        it->val = malloc(vlen);
        CHECK(it->val != NULL);
        memcpy(it->val, val, vlen);
    }
    it->vlen = vlen;
    it->type = KS_STRING;
    it->ptr = NULL;
}

static void model_remove(struct model *m, size_t i)
{
    free(m->items[i].val);
    memmove(&m->items[i], &m->items[i + 1], (m->n - i - 1) * sizeof(*m->items));
    m->n--;
}

static void model_free(struct model *m)
{
    while (m->n)
        model_remove(m, m->n - 1);
    free(m->items);
    m->items = NULL;
    m->cap = 0;
}

static long model_ptrs(const struct model *m)
{
    long n = 0;
    for (size_t i = 0; i < m->n; i++)
        n += m->items[i].type != KS_STRING;
    return n;
}

/* ---- comparing the two ---- */

static void check_entry(const struct ks_entry *e, const struct item *it)
{
    CHECK(e != NULL);
    CHECK(ks_klen(e) == it->klen);
    CHECK(memcmp(ks_key(e), it->key, it->klen) == 0);
    CHECK(e->type == it->type);
    if (it->type == KS_STRING) {
        CHECK(ks_slen(e) == it->vlen);
        CHECK(it->vlen == 0 || memcmp(ks_str((struct ks_entry *)e), it->val, it->vlen) == 0);
    } else {
        CHECK(ks_ptr(e) == it->ptr);
    }
    CHECK(ks_get_expire(e) == it->when);
    CHECK(ks_entry_memory(e) >= offsetof(struct ks_entry, data) + it->klen);
}

static void full_compare(const struct db *db, const struct model *m)
{
    size_t i = 0;
    CHECK(ks_count(db) == m->n);
    for (struct ks_entry *e = ks_first(db); e; e = ks_next(e), i++) {
        CHECK(i < m->n);
        check_entry(e, &m->items[i]);
        CHECK(ks_rank(e) == i);
        CHECK(ks_select(db, i) == e);
    }
    CHECK(i == m->n);
    for (struct ks_entry *e = ks_last(db); e; e = ks_prev(e))
        check_entry(e, &m->items[--i]);
    CHECK(i == 0);
    CHECK(ks_select(db, m->n) == NULL);
    CHECK(live_ptrs == model_ptrs(m));
}

/* ---- random operations ---- */

static const char key_bytes[] = {'\0', '\x01', 'a', '\xff'};

static size_t random_key(char *key)
{
    size_t len = rng_below(&rng, KEY_MAX + 1);
    for (size_t i = 0; i < len; i++)
        key[i] = key_bytes[rng_below(&rng, sizeof(key_bytes))];
    return len;
}

static size_t random_len(void)
{
    switch (rng_below(&rng, 4)) {
    case 0:
        return 0;
    case 1:
        return rng_below(&rng, VALUE_MAX + 1);
    default:
        return rng_below(&rng, 24);
    }
}

static void random_bytes(char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char)rng_next(&rng);
}

/* An existing item, or NULL when the model is empty. */
static struct item *random_item(struct model *m)
{
    return m->n ? &m->items[rng_below(&rng, m->n)] : NULL;
}

static struct ks_entry *entry_for(struct db *db, const struct item *it)
{
    struct ks_entry *e = ks_find(db, it->key, it->klen);
    CHECK(e != NULL);
    return e;
}

static void op_set(struct db *db, struct model *m)
{
    char key[KEY_MAX], val[VALUE_MAX];
    size_t klen = random_key(key), vlen = random_len(), pos;
    int keep_ttl = (int)rng_below(&rng, 2);

    random_bytes(val, vlen);
    struct ks_entry *e = ks_set_string(db, key, klen, val, vlen, keep_ttl);
    struct item *it = model_find(m, key, klen, &pos);
    if (!it)
        it = model_insert(m, pos, key, klen);
    else if (!keep_ttl)
        it->when = -1;
    item_set_value(it, val, vlen);
    check_entry(e, it);
}

static void op_add_ptr(struct db *db, struct model *m)
{
    char key[KEY_MAX];
    size_t klen = random_key(key), pos;

    if (model_find(m, key, klen, &pos))
        return; /* ks_add_ptr requires an absent key */
    struct item *it = model_insert(m, pos, key, klen);
    it->type = KS_ZSET;
    it->ptr = ptr_new();
    check_entry(ks_add_ptr(db, key, klen, KS_ZSET, it->ptr), it);
}

static void op_delete(struct db *db, struct model *m)
{
    struct item *it = random_item(m);
    if (!it)
        return;
    ks_delete(db, entry_for(db, it));
    model_remove(m, (size_t)(it - m->items));
}

static void op_resize(struct db *db, struct model *m)
{
    struct item *it = random_item(m);
    if (!it || it->type != KS_STRING)
        return;
    size_t len = random_len(), keep = len < it->vlen ? len : it->vlen;
    char val[VALUE_MAX];

    if (keep)
        memcpy(val, it->val, keep);
    random_bytes(val + keep, len - keep);
    struct ks_entry *e = ks_string_resize(db, entry_for(db, it), len);
    CHECK(ks_slen(e) == len);
    CHECK(keep == 0 || memcmp(ks_str(e), it->val, keep) == 0);
    memcpy(ks_str(e) + keep, val + keep, len - keep);
    item_set_value(it, val, len);
    check_entry(e, it);
}

static void op_set_expire(struct db *db, struct model *m)
{
    struct item *it = random_item(m);
    if (!it)
        return;
    /* Some already due, the rest within a few hundred ticks (a tick moves the
     * clock up to 30 ms). */
    it->when = m->now - 50 + (int64_t)rng_below(&rng, 5000);
    it->when_seq = ++m->seq;
    check_entry(ks_set_expire(db, entry_for(db, it), it->when), it);
}

static void op_persist(struct db *db, struct model *m)
{
    struct item *it = random_item(m);
    if (!it)
        return;
    struct ks_entry *e = entry_for(db, it);
    CHECK(ks_persist(db, e) == (it->when != -1));
    it->when = -1;
    check_entry(e, it);
}

/* The model's next due item: earliest deadline, ties in the order set. */
static struct item *model_next_due(struct model *m)
{
    struct item *best = NULL;
    for (size_t i = 0; i < m->n; i++) {
        struct item *it = &m->items[i];
        if (it->when == -1 || it->when > m->now)
            continue;
        if (!best || it->when < best->when ||
            (it->when == best->when && it->when_seq < best->when_seq))
            best = it;
    }
    return best;
}

static void op_expire_due(struct db *db, struct model *m, size_t max)
{
    size_t expect = 0;
    struct item *it;

    while (expect < max && (it = model_next_due(m))) {
        model_remove(m, (size_t)(it - m->items));
        expect++;
    }
    CHECK(ks_expire_due(db, m->now, max) == expect);
    m->expired += expect;
    CHECK(db->expired == m->expired);
}

static void op_lookup(struct db *db, struct model *m)
{
    char key[KEY_MAX];
    size_t klen, pos;
    struct item *it = random_item(m);

    if (it && rng_below(&rng, 2)) {
        klen = it->klen;
        memcpy(key, it->key, klen);
    } else {
        klen = random_key(key);
        it = model_find(m, key, klen, &pos);
    }
    struct ks_entry *found = ks_find(db, key, klen);
    if (it)
        check_entry(found, it);
    else
        CHECK(found == NULL);

    struct ks_entry *e = ks_lookup(db, key, klen, m->now);
    if (it && it->when != -1 && it->when <= m->now) {
        CHECK(e == NULL);
        model_remove(m, (size_t)(it - m->items));
        m->expired++;
    } else if (it) {
        check_entry(e, it);
    } else {
        CHECK(e == NULL);
    }
    CHECK(db->expired == m->expired);
}

/* count_before, seek_ge, seek_le around a random key, and rank/select with
 * a step each way around a random position. */
static void op_query(const struct db *db, struct model *m)
{
    char key[KEY_MAX];
    size_t klen = random_key(key);
    int flag = (int)rng_below(&rng, 2);

    size_t before = model_bound(m, key, klen, flag);
    CHECK(ks_count_before(db, key, klen, flag) == before);

    size_t ge = model_bound(m, key, klen, flag);
    struct ks_entry *e = ks_seek_ge(db, key, klen, flag);
    if (ge < m->n)
        check_entry(e, &m->items[ge]);
    else
        CHECK(e == NULL);

    size_t le = model_bound(m, key, klen, !flag); /* first item past the range */
    e = ks_seek_le(db, key, klen, flag);
    if (le > 0)
        check_entry(e, &m->items[le - 1]);
    else
        CHECK(e == NULL);

    size_t k = rng_below(&rng, m->n + 1);
    e = ks_select(db, k);
    if (k == m->n) {
        CHECK(e == NULL);
        return;
    }
    check_entry(e, &m->items[k]);
    CHECK(ks_rank(e) == k);
    struct ks_entry *next = ks_next(e), *prev = ks_prev(e);
    if (k + 1 < m->n)
        check_entry(next, &m->items[k + 1]);
    else
        CHECK(next == NULL);
    if (k > 0)
        check_entry(prev, &m->items[k - 1]);
    else
        CHECK(prev == NULL);
}

enum op {
    OP_SET,
    OP_ADD_PTR,
    OP_DELETE,
    OP_RESIZE,
    OP_SET_EXPIRE,
    OP_PERSIST,
    OP_EXPIRE_DUE,
    OP_EXPIRE_ALL,
    OP_LOOKUP,
    OP_TICK,
    OP_QUERY,
    OP_COUNT
};

/* Weights per phase: growing favours creation, shrinking deletion and expiry. */
static const unsigned grow_weights[OP_COUNT] = {40, 6, 5, 10, 6, 4, 3, 1, 12, 6, 10};
static const unsigned shrink_weights[OP_COUNT] = {5, 1, 15, 6, 12, 3, 6, 1, 12, 8, 10};

static enum op pick_op(const unsigned *weights)
{
    unsigned total = 0;
    for (int i = 0; i < OP_COUNT; i++)
        total += weights[i];
    unsigned r = (unsigned)rng_below(&rng, total);
    int i = 0;
    while (r >= weights[i])
        r -= weights[i++];
    return (enum op)i;
}

static void test_random(void)
{
    struct keyspace *ks = ks_new(1);
    struct db *db = &ks->dbs[0];
    struct model m = {.now = START_MS};
    size_t max_n = 0, empty_seen = 0;
    /* make test-valgrind sets RBKV_TEST_SLOW: fewer operations, at least one
     * growth and shrink cycle. */
    int ops = RANDOM_OPS / check_slow();
    if (ops < GROW_OPS + SHRINK_OPS)
        ops = GROW_OPS + SHRINK_OPS;

    for (test_op = 0; test_op < (unsigned long)ops; test_op++) {
        int shrinking = test_op % (GROW_OPS + SHRINK_OPS) >= GROW_OPS;
        const unsigned *w = shrinking ? shrink_weights : grow_weights;
        enum op op = pick_op(w);
        switch (op) {
        case OP_SET: op_set(db, &m); break;
        case OP_ADD_PTR: op_add_ptr(db, &m); break;
        case OP_DELETE: op_delete(db, &m); break;
        case OP_RESIZE: op_resize(db, &m); break;
        case OP_SET_EXPIRE: op_set_expire(db, &m); break;
        case OP_PERSIST: op_persist(db, &m); break;
        case OP_EXPIRE_DUE: op_expire_due(db, &m, rng_below(&rng, 6)); break;
        case OP_EXPIRE_ALL: op_expire_due(db, &m, (size_t)-1); break;
        case OP_LOOKUP: op_lookup(db, &m); break;
        case OP_TICK: m.now += (int64_t)rng_below(&rng, 30); break;
        case OP_QUERY: op_query(db, &m); break;
        case OP_COUNT: break;
        }
        if (op != OP_TICK && op != OP_QUERY)
            check_db(db);
        CHECK(ks_count(db) == m.n);
        if (m.n <= SMALL_DB || test_op % FULL_COMPARE_EVERY == 0)
            full_compare(db, &m);
        if (m.n > max_n)
            max_n = m.n;
        empty_seen += m.n == 0;
    }
    full_compare(db, &m);
    /* The test is only as good as the states it went through. */
    CHECK(max_n > 400);
    CHECK(empty_seen > 0);
    CHECK(m.expired > (unsigned long long)ops / 250); /* 1000 in a full run */

    model_free(&m);
    free_checking_leaks(ks);
    printf("random: %d operations, up to %zu keys, %llu expired\n", ops, max_n,
           m.expired);
}

/* ---- directed cases ---- */

static void test_empty(void)
{
    struct keyspace *ks = ks_new(2);
    struct db *db = &ks->dbs[1];

    CHECK(db->id == 1);
    check_db(db);
    CHECK(ks_count(db) == 0);
    CHECK(ks_first(db) == NULL && ks_last(db) == NULL);
    CHECK(ks_select(db, 0) == NULL);
    CHECK(ks_seek_ge(db, "", 0, 0) == NULL && ks_seek_le(db, "\xff", 1, 0) == NULL);
    CHECK(ks_count_before(db, "a", 1, 1) == 0);
    CHECK(ks_lookup(db, "a", 1, START_MS) == NULL && ks_find(db, "", 0) == NULL);
    CHECK(ks_expire_due(db, START_MS, 10) == 0 && ks_expire_due(db, START_MS, SIZE_MAX) == 0);
    ks_flush(db);
    check_db(db);
    ks_free(NULL);
    free_checking_leaks(ks);
}

static void test_one_key(void)
{
    struct keyspace *ks = ks_new(1);
    struct db *db = &ks->dbs[0];
    struct ks_entry *e = ks_set_string(db, "k", 1, "v", 1, 0);

    check_db(db);
    CHECK(ks_count(db) == 1 && ks_rank(e) == 0);
    CHECK(ks_select(db, 0) == e && ks_select(db, 1) == NULL);
    CHECK(ks_first(db) == e && ks_last(db) == e && !ks_next(e) && !ks_prev(e));
    CHECK(ks_seek_ge(db, "k", 1, 0) == e && ks_seek_ge(db, "k", 1, 1) == NULL);
    CHECK(ks_seek_le(db, "k", 1, 0) == e && ks_seek_le(db, "k", 1, 1) == NULL);
    CHECK(ks_seek_ge(db, "", 0, 0) == e && ks_seek_le(db, "l", 1, 0) == e);
    CHECK(ks_count_before(db, "k", 1, 0) == 0 && ks_count_before(db, "k", 1, 1) == 1);

    /* The deadline is inclusive: due at exactly `when`. */
    e = ks_set_expire(db, e, START_MS + 10);
    check_db(db);
    CHECK(ks_get_expire(e) == START_MS + 10);
    CHECK(ks_expire_due(db, START_MS + 9, 10) == 0);
    CHECK(ks_lookup(db, "k", 1, START_MS + 9) == e);
    CHECK(ks_lookup(db, "k", 1, START_MS + 10) == NULL);
    CHECK(db->expired == 1 && ks_count(db) == 0);
    check_db(db);
    free_checking_leaks(ks);
}

/* Keys that are prefixes of each other, NUL inside keys, the empty key and
 * 0xFF (which a signed byte compare would put first). */
static void test_prefixes(void)
{
    static const struct {
        const char *p;
        size_t len;
    } sorted[] = {
        {"", 0}, {"\0", 1}, {"a", 1}, {"a\0", 2}, {"a\0\0", 3}, {"a\x01", 2},
        {"ab", 2}, {"\xff", 1}, {"\xff\xff", 2},
    };
    static const int insert_order[] = {6, 3, 8, 0, 4, 2, 7, 1, 5};
    const size_t n = sizeof(sorted) / sizeof(sorted[0]);
    struct keyspace *ks = ks_new(1);
    struct db *db = &ks->dbs[0];

    CHECK(ks_keycmp("a", 1, "a\0", 2) < 0 && ks_keycmp("\xff", 1, "a", 1) > 0);
    CHECK(ks_keycmp("", 0, "", 0) == 0 && ks_keycmp("", 0, "\0", 1) < 0);
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)insert_order[i];
        ks_set_string(db, sorted[k].p, sorted[k].len, sorted[k].p, sorted[k].len, 0);
        check_db(db);
    }
    size_t i = 0;
    for (struct ks_entry *e = ks_first(db); e; e = ks_next(e), i++) {
        CHECK(ks_klen(e) == sorted[i].len && memcmp(ks_key(e), sorted[i].p, sorted[i].len) == 0);
        CHECK(ks_rank(e) == i && ks_find(db, sorted[i].p, sorted[i].len) == e);
    }
    CHECK(i == n);

    CHECK(ks_seek_ge(db, "a", 1, 1) == ks_select(db, 3));      /* "a\0" */
    CHECK(ks_seek_le(db, "a\0", 2, 1) == ks_select(db, 2));    /* "a" */
    CHECK(ks_seek_ge(db, "a\0\0\0", 4, 0) == ks_select(db, 5)); /* "a\x01" */
    CHECK(ks_seek_le(db, "a\0\0\0", 4, 0) == ks_select(db, 4)); /* "a\0\0" */
    CHECK(ks_seek_ge(db, "", 0, 1) == ks_select(db, 1));
    CHECK(ks_seek_le(db, "\xff\xff\xff", 3, 0) == ks_last(db));
    CHECK(ks_count_before(db, "a\0", 2, 1) == 4 && ks_count_before(db, "a\0", 2, 0) == 3);
    CHECK(ks_count_before(db, "b", 1, 0) == 7);
    CHECK(ks_find(db, "a\0\0\0", 4) == NULL && ks_find(db, "b", 1) == NULL);

    /* Deleting the middle of a prefix chain leaves its neighbours in order. */
    ks_delete(db, ks_find(db, "a\0", 2));
    check_db(db);
    CHECK(ks_next(ks_find(db, "a", 1)) == ks_find(db, "a\0\0", 3));
    free_checking_leaks(ks);
}

/* Entries move when they grow or gain a deadline; the deadline record must
 * follow, and a value of another type must be freed exactly once. */
static void test_moves_and_values(void)
{
    struct keyspace *ks = ks_new(1);
    struct db *db = &ks->dbs[0];
    char big[VALUE_MAX];

    memset(big, 'x', sizeof(big));
    struct ks_entry *e = ks_set_string(db, "k\0", 2, "", 0, 0);
    e = ks_set_expire(db, e, START_MS + 5);
    for (size_t len = 1; len <= sizeof(big); len = len * 2 + 1) {
        e = ks_string_resize(db, e, len);
        memcpy(ks_str(e), big, len);
        check_db(db);
        CHECK(ks_get_expire(e) == START_MS + 5 && ks_slen(e) == len);
    }
    e = ks_string_resize(db, e, 3); /* under half of a big block: gives memory back */
    check_db(db);
    CHECK(ks_slen(e) == 3 && memcmp(ks_str(e), "xxx", 3) == 0);
    e = ks_set_string(db, "k\0", 2, "new", 3, 1);
    CHECK(ks_get_expire(e) == START_MS + 5);
    e = ks_set_string(db, "k\0", 2, "newer", 5, 0);
    CHECK(ks_get_expire(e) == -1);
    check_db(db);

    e = ks_add_ptr(db, "z", 1, KS_ZSET, ptr_new());
    e = ks_set_expire(db, e, START_MS + 1);
    CHECK(ks_persist(db, e) == 1 && ks_persist(db, e) == 0);
    ks_set_string(db, "z", 1, "s", 1, 0); /* a string replaces the value: freed */
    CHECK(live_ptrs == 0);
    e = ks_add_ptr(db, "v", 1, KS_ZSET, ptr_new());
    ks_set_expire(db, e, START_MS + 1);
    ks_set_string(db, "v", 1, "s", 1, 0); /* the same, dropping a deadline too */
    CHECK(live_ptrs == 0);
    check_db(db);
    ks_add_ptr(db, "y", 1, KS_ZSET, ptr_new());
    ks_delete(db, ks_find(db, "y", 1));
    CHECK(live_ptrs == 0);
    e = ks_add_ptr(db, "x", 1, KS_ZSET, ptr_new());
    ks_set_expire(db, e, START_MS);
    CHECK(ks_expire_due(db, START_MS, SIZE_MAX) == 1 && live_ptrs == 0);
    ks_add_ptr(db, "w", 1, KS_ZSET, ptr_new());
    ks_flush(db);
    check_db(db);
    CHECK(ks_count(db) == 0);
    free_checking_leaks(ks);
}

/* The reference order: memcmp over the common length, then the shorter first. */
static int ref_keycmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int r = memcmp(a, b, alen < blen ? alen : blen);
    return r ? r : (alen > blen) - (alen < blen);
}

static int sign(int v)
{
    return (v > 0) - (v < 0);
}

/* ks_keycmp compares up to 8 bytes at a time, in words that may overlap:
 * pairs of every length to past two words, sharing prefixes of every length,
 * with bytes a signed compare would misorder. Each key ends its own heap
 * block, so under ASan a read past it fails. */
static void test_keycmp_words(void)
{
    static const unsigned char alphabet[] = {0x00, 0x01, 'a', 0x7f, 0x80, 0xff};
    enum { LEN_MAX = 26, PAIRS = 200000 };
    char base[LEN_MAX];
    for (unsigned long i = 0; i < PAIRS; i++) {
        size_t alen = rng_below(&rng, LEN_MAX + 1), blen = rng_below(&rng, LEN_MAX + 1);
        size_t shared = rng_below(&rng, LEN_MAX + 1);
        for (size_t j = 0; j < LEN_MAX; j++)
            base[j] = (char)alphabet[rng_below(&rng, sizeof(alphabet))];
        char *a = malloc(alen ? alen : 1), *b = malloc(blen ? blen : 1);
        CHECK(a && b);
        memcpy(a, base, alen);
        for (size_t j = 0; j < blen; j++)
            b[j] = j < shared ? base[j] : (char)alphabet[rng_below(&rng, sizeof(alphabet))];
        CHECK(sign(ks_keycmp(a, alen, b, blen)) == sign(ref_keycmp(a, alen, b, blen)));
        CHECK(sign(ks_keycmp(b, blen, a, alen)) == sign(ref_keycmp(b, blen, a, alen)));
        CHECK(ks_keycmp(a, alen, a, alen) == 0);
        free(a);
        free(b);
    }
}

/* A lookup kept for the write after it: a missing key, a live one, and one
 * whose deadline passed (the lookup deletes it; the write makes a new one). */
static void test_probe(void)
{
    struct keyspace *ks = ks_new(1);
    struct db *db = &ks->dbs[0];
    struct ks_probe p;

    CHECK(ks_lookup_probe(db, "k", 1, START_MS, &p) == NULL && p.entry == NULL);
    struct ks_entry *e = ks_set_string_probed(db, &p, "v1", 2, 0);
    check_db(db);
    CHECK(ks_find(db, "k", 1) == e && ks_slen(e) == 2 && memcmp(ks_str(e), "v1", 2) == 0);

    CHECK(ks_lookup_probe(db, "k", 1, START_MS, &p) == e && p.entry == e);
    e = ks_set_string_probed(db, &p, "value two", 9, 0);
    check_db(db);
    CHECK(ks_count(db) == 1 && ks_find(db, "k", 1) == e && ks_slen(e) == 9);

    e = ks_set_expire(db, e, START_MS + 10);
    CHECK(ks_lookup_probe(db, "k", 1, START_MS + 10, &p) == NULL && p.entry == NULL);
    CHECK(ks_count(db) == 0 && db->expired == 1);
    e = ks_set_string_probed(db, &p, "v3", 2, 1);
    check_db(db);
    CHECK(ks_find(db, "k", 1) == e && ks_get_expire(e) == -1);
    free_checking_leaks(ks);
}

/* Bulk loading (ks_bulk_add) of db's strings into the empty loaded, in
 * order, odd key lengths with a deadline: each copy has the key, deadline
 * and value of its original. */
static void bulk_copy_and_check(struct db *db, struct db *loaded)
{
    struct ks_bulk b;
    ks_bulk_begin(&b, loaded);
    for (struct ks_entry *e = ks_first(db); e; e = ks_next(e))
        ks_bulk_add(&b, ks_key(e), ks_klen(e), KS_STRING, ks_str(e), ks_slen(e),
                    ks_klen(e) % 2 ? START_MS + 3 : -1);
    ks_bulk_finish(&b);
    check_db(loaded);
    for (struct ks_entry *e = ks_first(db), *f = ks_first(loaded); e; e = ks_next(e), f = ks_next(f)) {
        CHECK(f && ks_klen(f) == ks_klen(e) && memcmp(ks_key(f), ks_key(e), ks_klen(e)) == 0);
        CHECK(ks_get_expire(f) == (ks_klen(e) % 2 ? START_MS + 3 : -1));
        CHECK(ks_slen(f) == ks_slen(e) && memcmp(ks_str(f), ks_str(e), ks_slen(e)) == 0);
    }
}

/* A key as the test made it, for qsort. */
struct made_key {
    char key[64];
    size_t len;
};

static int made_key_cmp(const void *pa, const void *pb)
{
    const struct made_key *a = pa, *b = pb;
    int c = memcmp(a->key, b->key, a->len < b->len ? a->len : b->len);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* n keys in any order (an RDB file's) through ks_bulk_begin_any_order and
 * ks_bulk_add_new, sorted in runs of run_max (0: KS_BULK_RUN) and merged:
 * keys sharing prefixes shorter and longer than the 16 bytes the radix sort
 * looks at, of bytes a signed compare misorders, each offered twice (the
 * second refused), so buckets of every size, runs of one key and the
 * comparison past the prefix are exercised. The tree must hold exactly the
 * keys added, in qsort's order of them (memcmp, a proper prefix first), and
 * pass ks_check. */
static void bulk_unordered(size_t n, size_t run_max)
{
    static const char alphabet[] = {0, 1, 'a', (char)0xff};
    static const char *stems[] = {"", "user:", "a-key-prefix-longer-than-16:"};
    struct keyspace *ks = ks_new(1);
    struct db *db = &ks->dbs[0];
    struct ks_bulk b;
    struct made_key *made = malloc(n * sizeof(*made));
    size_t added = 0;
    CHECK(made != NULL);
    ks_reserve(db, n);
    ks_bulk_begin_any_order(&b, db);
    if (run_max)
        b.run_max = run_max;
    for (size_t i = 0; i < n; i++) {
        struct made_key *k = &made[added];
        const char *stem = stems[rng_below(&rng, 3)];
        size_t len = strlen(stem), tail = (size_t)rng_below(&rng, 12);
        memcpy(k->key, stem, len);
        for (size_t j = 0; j < tail; j++)
            k->key[len + j] = alphabet[rng_below(&rng, 4)];
        len += tail;
        k->len = len;
        uint64_t h = ks_bulk_prefetch(db, k->key, len);
        struct ks_entry *e = ks_bulk_add_new(&b, k->key, len, h, KS_STRING, "v", 1,
                                             rng_below(&rng, 8) ? -1 : START_MS + 5);
        if (e) {
            added++;
            CHECK(ks_bulk_add_new(&b, k->key, len, h, KS_STRING, "w", 1, -1) == NULL);
        } else {
            CHECK(ks_find(db, k->key, len) != NULL);
        }
    }
    ks_bulk_finish(&b);
    check_db(db);
    CHECK(ks_count(db) == added);
    qsort(made, added, sizeof(*made), made_key_cmp);
    struct ks_entry *e = ks_first(db);
    for (size_t i = 0; i < added; i++, e = ks_next(e)) {
        CHECK_MSG(e && ks_klen(e) == made[i].len && !memcmp(ks_key(e), made[i].key, made[i].len),
                  "key %zu of %zu (run_max %zu) out of order", i, added, run_max);
    }
    CHECK(e == NULL);
    free(made);
    free_checking_leaks(ks);
}

static void test_bulk_unordered(void)
{
    bulk_unordered(6000, 0); /* one run */
    bulk_unordered(0, 0);
    bulk_unordered(1, 1);
    for (int i = 0; i < 20; i++) /* many runs, of 1 to 300 keys */
        bulk_unordered((size_t)rng_below(&rng, 5000), (size_t)rng_below(&rng, 300) + 1);
    bulk_unordered(3 * KS_BULK_RUN + 1000, 0); /* the runs the loader makes */
}

/* Keys of 255 bytes and more keep their length in the entry's data, not
 * its 8-bit header field: each operation that moves the key within the
 * entry (a deadline added and removed, growth, replacement, bulk loading)
 * must find it there, around a short key in the same tree. */
static void test_long_keys(void)
{
    struct keyspace *ks = ks_new(2);
    struct db *db = &ks->dbs[0];
    size_t lens[] = {KS_KLEN_LONG - 1, KS_KLEN_LONG, KS_KLEN_LONG + 1, 200000};
    char *key = malloc(200001);
    CHECK(key != NULL);
    memset(key, 'k', 200001);

    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        size_t len = lens[i];
        key[len - 1] = (char)('0' + i); /* each key its own: k...k0 < k...k1 < ... */
        struct ks_entry *e = ks_set_string(db, key, len, "v", 1, 0);
        CHECK(ks_klen(e) == len && memcmp(ks_key(e), key, len) == 0);
        e = ks_set_expire(db, e, START_MS + 7);
        e = ks_string_resize(db, e, 1000);
        memset(ks_str(e), 'x', 1000);
        check_db(db);
        CHECK(ks_klen(e) == len && ks_get_expire(e) == START_MS + 7 &&
              memcmp(ks_key(e), key, len) == 0 && ks_str(e)[999] == 'x');
        e = ks_set_string(db, key, len, "short", 5, 0); /* drops the deadline */
        CHECK(ks_get_expire(e) == -1 && ks_klen(e) == len && memcmp(ks_str(e), "short", 5) == 0);
        e = ks_set_expire(db, e, START_MS + 9);
        CHECK(ks_persist(db, e) == 1 && ks_klen(e) == len && memcmp(ks_key(e), key, len) == 0);
        CHECK(ks_find(db, key, len) == e);
        key[len - 1] = 'k';
    }
    ks_set_string(db, "a", 1, "b", 1, 0);
    check_db(db);
    CHECK(ks_count(db) == 5 && ks_klen(ks_first(db)) == 1 && ks_klen(ks_last(db)) == 200000);

    bulk_copy_and_check(db, &ks->dbs[1]);
    free(key);
    free_checking_leaks(ks);
}

/* The first bytes of a value of len, a pattern that shows a shift by the
 * long length's 4 bytes. */
static void fill_value(char *v, size_t len)
{
    for (size_t i = 0; i < len; i++)
        v[i] = (char)(i * 7 + i / 251);
}

static int value_is(struct ks_entry *e, size_t len, const char *want)
{
    return ks_slen(e) == len && memcmp(ks_str(e), want, len) == 0;
}

/* Strings of 16 MB and more keep their length in the entry's data, not the
 * header's 24 bits: a value growing across the threshold and shrinking
 * back (ks_string_resize, in place and moved), replaced by a short one and
 * back, loaded in bulk, with a long key and a deadline beside it, keeps its
 * bytes, key, deadline and access bits. */
static void test_long_values(void)
{
    struct keyspace *ks = ks_new(2);
    struct db *db = &ks->dbs[0];
    size_t big = KS_VLEN_LONG + 100;
    char *val = malloc(big);
    char key[300];
    CHECK(val != NULL);
    fill_value(val, big);
    memset(key, 'q', sizeof(key));
    size_t klens[] = {3, KS_KLEN_LONG - 1, KS_KLEN_LONG, sizeof(key)};
    size_t lens[] = {KS_VLEN_LONG - 1, KS_VLEN_LONG, KS_VLEN_LONG + 1, 40, big, KS_VLEN_LONG - 1, 0};

    for (size_t k = 0; k < sizeof(klens) / sizeof(klens[0]); k++) {
        size_t klen = klens[k];
        key[klen - 1] = (char)('0' + k);
        struct ks_entry *e = ks_set_string(db, key, klen, val, 10, 0);
        e->access = 0xabcdefu;
        e = ks_set_expire(db, e, START_MS + (int64_t)k);
        for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
            size_t before = ks_slen(e);
            e = ks_string_resize(db, e, lens[i]);
            if (lens[i] > before)
                memcpy(ks_str(e) + before, val + before, lens[i] - before);
            check_db(db);
            CHECK(value_is(e, lens[i], val) && ks_klen(e) == klen &&
                  memcmp(ks_key(e), key, klen) == 0);
            CHECK(ks_get_expire(e) == START_MS + (int64_t)k && e->access == 0xabcdefu);
            CHECK(((e->flags & KS_LONG_VALUE) != 0) == (lens[i] >= KS_VLEN_LONG));
        }
        /* Replacing: long over short, short over long, keeping the deadline
         * or not; then the deadline added and removed around a long value. */
        e = ks_set_string(db, key, klen, val, big, 1);
        CHECK(value_is(e, big, val) && ks_get_expire(e) == START_MS + (int64_t)k);
        e = ks_set_string(db, key, klen, "tiny", 4, 0);
        CHECK(value_is(e, 4, "tiny") && ks_get_expire(e) == -1 && !(e->flags & KS_LONG_VALUE));
        e = ks_set_string(db, key, klen, val, KS_VLEN_LONG, 0);
        e = ks_set_expire(db, e, START_MS);
        CHECK(value_is(e, KS_VLEN_LONG, val) && ks_klen(e) == klen);
        CHECK(ks_persist(db, e) == 1 && value_is(e, KS_VLEN_LONG, val));
        CHECK(memcmp(ks_key(e), key, klen) == 0 && ks_find(db, key, klen) == e);
        check_db(db);
        key[klen - 1] = 'q';
    }

    bulk_copy_and_check(db, &ks->dbs[1]);
    free(val);
    free_checking_leaks(ks);
}

/* The release hook gets each value leaving with the right how, and owns it
 * (here: keeps it in `released` until the test frees it); ks_detach_all
 * empties a db in one step, the db works at once, and ks_detached_free
 * frees strings, values and deadline records. */
static void *released[4];
static enum ks_free_how released_how[4];
static int nreleased;

static void release_keep(enum ks_type type, void *value, enum ks_free_how how)
{
    CHECK(type == KS_ZSET && nreleased < 4);
    released[nreleased] = value;
    released_how[nreleased++] = how;
}

static void test_release_and_detach(void)
{
    struct keyspace *ks = ks_new(1);
    struct db *db = &ks->dbs[0];
    ks_on_release(release_keep);
    ks_add_ptr(db, "a", 1, KS_ZSET, ptr_new());
    ks_delete(db, ks_find(db, "a", 1));
    ks_add_ptr(db, "b", 1, KS_ZSET, ptr_new());
    ks_delete_how(db, ks_find(db, "b", 1), KS_FREE_LAZY);
    struct ks_entry *e = ks_add_ptr(db, "c", 1, KS_ZSET, ptr_new());
    ks_set_expire(db, e, START_MS);
    CHECK(ks_expire_due(db, START_MS, SIZE_MAX) == 1);
    ks_add_ptr(db, "d", 1, KS_ZSET, ptr_new());
    ks_delete_how(db, ks_find(db, "d", 1), KS_FREE_SYNC); /* never reaches the hook */
    CHECK(nreleased == 3 && live_ptrs == 3);
    CHECK(released_how[0] == KS_FREE_SERVER && released_how[1] == KS_FREE_LAZY &&
          released_how[2] == KS_FREE_EXPIRE);
    for (int i = 0; i < nreleased; i++)
        ks_value_free(KS_ZSET, released[i]);
    ks_on_release(NULL);
    CHECK(live_ptrs == 0 && ks_value_effort(KS_STRING, NULL) == 1);

    char key[16];
    for (int i = 0; i < 300; i++) {
        snprintf(key, sizeof(key), "k%03d", i);
        e = i % 3 ? ks_set_string(db, key, strlen(key), key, strlen(key), 0)
                  : ks_add_ptr(db, key, strlen(key), KS_ZSET, ptr_new());
        if (i % 2)
            ks_set_expire(db, e, START_MS + i);
    }
    struct ks_detached *d = ks_detach_all(db);
    CHECK(ks_detached_count(d) == 300 && ks_count(db) == 0 && db->expires_count == 0);
    CHECK(!ks_find(db, "k001", 4) && live_ptrs == 100);
    check_db(db);
    ks_set_string(db, "k001", 4, "again", 5, 0); /* the same name, while d still holds the old */
    check_db(db);
    CHECK(ks_count(db) == 1 && ks_slen(ks_find(db, "k001", 4)) == 5);
    ks_detached_free(d);
    ks_detached_free(NULL);
    CHECK(live_ptrs == 0);
    free_checking_leaks(ks);
}

/* The expiry tree's records in its order, as their keys joined by ','
 * into buf; those whose key starts with skip are left out. */
static void deadline_order(const struct db *db, char skip, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (struct rb_node *n = rb_first(&db->expires.rb_root); n; n = rb_next(n)) {
        const struct ks_entry *e = rb_entry(n, struct ks_expire, node)->entry;
        if (ks_key(e)[0] == skip)
            continue;
        CHECK(at + ks_klen(e) + 2 < size);
        memcpy(buf + at, ks_key(e), ks_klen(e));
        at += ks_klen(e);
        buf[at++] = ',';
        buf[at] = '\0';
    }
}

/* Keys "<prefix>%05d" for i in [0, n): a pointer value every third, a
 * deadline on all but every fourth (seven distinct ones, so many ties). */
static void cut_fill(struct db *db, const char *prefix, int n)
{
    char key[16];
    for (int i = 0; i < n; i++) {
        snprintf(key, sizeof(key), "%s%05d", prefix, i);
        struct ks_entry *e = i % 3 ? ks_set_string(db, key, strlen(key), "v", 1, 0)
                                   : ks_add_ptr(db, key, strlen(key), KS_ZSET, ptr_new());
        if (i % 4)
            ks_set_expire(db, e, START_MS + 100 * (i % 7));
    }
}

/* Deadlines leave with a cut (ks_cut): by a walk of the records when they
 * are few, by rebuilding the expiry tree from the keys that stay when those
 * are few (records in the same order, ties too), and no cut when both are
 * many. After each: ks_check, the counts, the due counts, a cut key set
 * again without a deadline, and every record freed once (no leak). */
static void test_cut_deadlines(void)
{
    static char before[1 << 12], after[1 << 12];
    struct keyspace *ks = ks_new(1);
    struct db *db = &ks->dbs[0];
    int big = KS_CUT_WALK_MAX / 3 * 4 + 3000, side = 40; /* 3/4 with a deadline */
    cut_fill(db, "a", side);
    cut_fill(db, "k", big);
    cut_fill(db, "z", side);
    size_t records = db->expires_count, side_records = 2 * (side - side / 4);
    CHECK(records == side_records + (size_t)(big - (big + 3) / 4));
    /* Many deadlines and many keys on both sides of a middle range. */
    CHECK(ks_cut(db, (size_t)side + 100, 1000) == NULL);
    CHECK(db->expires_count == records && ks_count(db) == (size_t)(big + 2 * side));
    check_db(db);
    /* All the k keys: few stay, so the tree is rebuilt from theirs. */
    deadline_order(db, 'k', before, sizeof(before));
    size_t due_side = ks_due_count(db, START_MS + 300);
    struct ks_entry *first = ks_cut(db, (size_t)side, (size_t)big);
    CHECK(first && !strncmp(ks_key(first), "k00000", 6));
    check_db(db);
    CHECK(db->expires_count == side_records && ks_count(db) == 2 * (size_t)side);
    deadline_order(db, 'k', after, sizeof(after));
    CHECK_MSG(!strcmp(before, after), "deadline order changed:\n%s\n%s", before, after);
    CHECK(due_side > ks_due_count(db, START_MS + 300));
    size_t due = 0;
    for (int i = 0; i < side; i++)
        due += (i % 4) && i % 7 <= 3;
    CHECK(ks_due_count(db, START_MS + 300) == 2 * due);
    CHECK(ks_lookup(db, "k00005", 6, START_MS) == NULL);
    struct ks_entry *again = ks_set_string(db, "k00005", 6, "again", 5, 0);
    CHECK(ks_get_expire(again) == -1 && db->expires_count == side_records);
    check_db(db);
    while (ks_cut_step(db, 1000))
        check_db(db);
    CHECK(db->cut_keys == 0 && db->cuts == NULL);
    /* Expiry never meets a cut key: every record left is a side key's. */
    CHECK(ks_expire_due(db, START_MS + 1000, SIZE_MAX) == side_records);
    CHECK(db->expires_count == 0 && ks_count(db) == 2 * (size_t)side - side_records + 1);
    check_db(db);
    ks_flush(db);

    /* Few deadlines, many keys that stay: a walk of the records. */
    cut_fill(db, "a", side);
    char key[16];
    for (int i = 0; i < big; i++) {
        snprintf(key, sizeof(key), "m%05d", i);
        ks_set_string(db, key, strlen(key), "v", 1, 0);
    }
    records = db->expires_count;
    CHECK(ks_cut(db, side / 2, (size_t)big / 2) != NULL);
    check_db(db);
    size_t cut_records = 0;
    for (int i = side / 2; i < side; i++)
        cut_records += (i % 4) != 0;
    CHECK(db->expires_count == records - cut_records);
    /* A cut pending when the db is flushed frees its records too. */
    free_checking_leaks(ks);
}

static void test_edge(void)
{
    test_empty();
    test_one_key();
    test_prefixes();
    test_keycmp_words();
    test_probe();
    test_moves_and_values();
    test_long_keys();
    test_bulk_unordered();
    test_long_values();
    test_release_and_detach();
    test_cut_deadlines();
    printf("edge: ok\n");
}

int main(int argc, char **argv)
{
    rng = check_seed(20240601);
    check_report_op(&test_op);
    ks_register_type(KS_ZSET, ptr_free, NULL);

    if (argc < 2) {
        test_edge();
        test_random();
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "edge")) {
            test_edge();
        } else if (!strcmp(argv[i], "random")) {
            test_random();
        } else {
            fprintf(stderr, "usage: test_keyspace [edge|random]...\n");
            return 2;
        }
    }
    return 0;
}
