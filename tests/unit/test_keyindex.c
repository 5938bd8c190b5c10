/*
 * test_keyindex.c - tests of the hash index beside the keyspace's tree
 * (server/data/keyindex.h), alone and through the keyspace.
 *
 * Parts:
 *  - hash: reads only the key's bytes (keys placed against inaccessible
 *    pages), depends on every byte, on the length and on the seed; flipping
 *    one input bit flips each output bit about half the time; keys shaped
 *    like redis-benchmark's spread over a table as linear probing predicts.
 *  - index: a randomized differential test of kix_* on hand-made entries
 *    against a model (a flag per key of a fixed universe of binary keys):
 *    inserts, removes, moves (kix_replace) and lookups through growth and
 *    shrink phases, so the index resizes many times and every kind of
 *    operation also runs while a table drains. kix_check() after every
 *    mutation; the run fails if it did not see enough resizes or enough
 *    operations during one. Then 2.2M keys: no table but the index's own
 *    right before it grows, and a 19 MB table draining with its pages
 *    given back, every key found midway and after.
 *  - keyspace: random ks_* operations whose entries move (values growing and
 *    shrinking, deadlines added) and go (DEL, lazy and active expiry, FLUSHDB
 *    mid-resize), with ks_check() after each; it checks that used_memory is
 *    exactly the entries plus the index's tables.
 *
 * Every part ends with mem_used() back at zero (the allocator wrappers count
 * every byte the index allocates). The seed is printed as SEED=<n> and read
 * from the environment to replay a run; it also seeds the index's hash, so a
 * replay lays the tables out the same way.
 *
 * usage: test_keyindex [hash|index|keyspace]... (no argument runs all)
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "keyindex.h"
#include "keyspace.h"
#include "mem.h"

static uint64_t test_seed;
static unsigned long test_op; /* operation number, printed on failure */
static uint64_t rng; /* the current part's stream */

/* A stream of its own for each part, so one part runs alike alone or after
 * the others. */
static void rand_seed(uint64_t salt)
{
    rng = (test_seed ^ salt) * UINT64_C(0x9fb21c651e98df25);
}

static void index_init_seeded(struct kix *ix)
{
    uint64_t seed[2] = {rng_next(&rng), rng_next(&rng)};
    kix_init(ix, seed);
}

static void check_index(const struct kix *ix)
{
    const char *why = NULL;
    CHECK_MSG(kix_check(ix, &why) >= 0, "kix_check: %s", why);
}

static void check_db(const struct db *db)
{
    const char *why = NULL;
    CHECK_MSG(ks_check(db, &why) >= 0, "ks_check: %s", why);
}

/* Bytes the index's tables hold, as the allocator wrappers count them. */
static size_t index_bytes(const struct kix *ix)
{
    return kix_memory(ix);
}

/* ---- hash ---- */

#define HASH_MAX_LEN 40

static void test_hash_bounds(const struct kix *ix)
{
    /* Three pages: none, data, none. A key ending at the second guard or
     * starting at the first one faults on any read outside it. */
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *map = mmap(NULL, (size_t)page * 3, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    CHECK(mprotect(map, (size_t)page, PROT_NONE) == 0);
    CHECK(mprotect(map + 2 * page, (size_t)page, PROT_NONE) == 0);
    unsigned char *data = map + page;
    unsigned char key[HASH_MAX_LEN];

    for (size_t len = 0; len <= HASH_MAX_LEN; len++) {
        for (size_t i = 0; i < len; i++)
            key[i] = (unsigned char)rng_next(&rng);
        memcpy(data, key, len);
        memcpy(data + page - len, key, len);
        uint64_t at_start = kix_hash(ix, (const char *)data, len);
        uint64_t at_end = kix_hash(ix, (const char *)data + page - len, len);
        CHECK(at_start == at_end);
        CHECK(at_start == kix_hash(ix, (const char *)key, len));
    }
    CHECK(munmap(map, (size_t)page * 3) == 0);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* No two of these keys may share a hash: every 0- to 2-byte key, and the
 * prefixes of one buffer (so keys differing only in length, NULs included). */
static void test_hash_distinct(const struct kix *ix)
{
    size_t n = 0, cap = 1 + 256 + 65536 + 2 * (HASH_MAX_LEN + 1);
    uint64_t *h = malloc(cap * sizeof(*h));
    CHECK(h != NULL);
    unsigned char key[HASH_MAX_LEN];

    h[n++] = kix_hash(ix, "", 0);
    for (unsigned a = 0; a < 256; a++) {
        key[0] = (unsigned char)a;
        h[n++] = kix_hash(ix, (const char *)key, 1);
        for (unsigned b = 0; b < 256; b++) {
            key[1] = (unsigned char)b;
            h[n++] = kix_hash(ix, (const char *)key, 2);
        }
    }
    memset(key, 0, sizeof(key));
    for (size_t len = 3; len <= HASH_MAX_LEN; len++)
        h[n++] = kix_hash(ix, (const char *)key, len);
    for (size_t i = 0; i < sizeof(key); i++)
        key[i] = (unsigned char)rng_next(&rng);
    for (size_t len = 3; len <= HASH_MAX_LEN; len++)
        h[n++] = kix_hash(ix, (const char *)key, len);
    CHECK(n <= cap);
    qsort(h, n, sizeof(*h), cmp_u64);
    for (size_t i = 1; i < n; i++)
        CHECK(h[i] != h[i - 1]);
    free(h);
}

/* Each output bit must flip with probability near 1/2 when any one input
 * bit flips, for key lengths on each of the hash's paths: every one-byte
 * key (each pair of keys one bit apart counted once), and about
 * AVALANCHE_FLIPS random flips of each longer length. A good hash's rate
 * has a standard deviation of 0.5 / sqrt(flips); the bounds are 6 of them,
 * which chance alone crosses once in 10^8 runs of this test. */
#define AVALANCHE_FLIPS 6400

static void test_hash_avalanche(const struct kix *ix)
{
    static const size_t lens[] = {1, 3, 4, 7, 8, 12, 16, 17, 24, 33, 40};
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
        size_t len = lens[l], trials = 0;
        size_t keys = len == 1 ? 256 : AVALANCHE_FLIPS / (len * 8);
        unsigned long flips[64] = {0};
        unsigned char key[HASH_MAX_LEN];
        for (size_t k = 0; k < keys; k++) {
            for (size_t i = 0; i < len; i++)
                key[i] = len == 1 ? (unsigned char)k : (unsigned char)rng_next(&rng);
            uint64_t base = kix_hash(ix, (const char *)key, len);
            for (size_t bit = 0; bit < len * 8; bit++) {
                unsigned char mask = (unsigned char)(1u << bit % 8);
                if (len == 1 && (key[0] & mask))
                    continue; /* the pair was counted from its other key */
                key[bit / 8] ^= mask;
                uint64_t d = base ^ kix_hash(ix, (const char *)key, len);
                key[bit / 8] ^= mask;
                CHECK(d != 0);
                for (int o = 0; o < 64; o++)
                    flips[o] += (d >> o) & 1;
                trials++;
            }
        }
        double bound = 6 * 0.5 / sqrt((double)trials);
        for (int o = 0; o < 64; o++) {
            double p = (double)flips[o] / (double)trials;
            if (fabs(p - 0.5) > bound) {
                fprintf(stderr, "length %zu: output bit %d flips with p=%.3f (%zu flips)\n", len,
                        o, p, trials);
                CHECK(!"weak avalanche");
            }
        }
    }
}

static void test_hash_seeded(void)
{
    struct kix a, b;
    index_init_seeded(&a);
    index_init_seeded(&b);
    for (int k = 0; k < 100; k++) {
        char key[16];
        int len = snprintf(key, sizeof(key), "key:%d", k);
        CHECK(kix_hash(&a, key, (size_t)len) != kix_hash(&b, key, (size_t)len));
        CHECK(kix_hash(&a, key, (size_t)len) == kix_hash(&a, key, (size_t)len));
    }
}

static struct ks_entry *entry_make(const void *key, size_t klen)
{
    struct ks_entry *e = calloc(1, offsetof(struct ks_entry, data) + klen + 1);
    CHECK(e != NULL);
    e->klen = (uint32_t)klen;
    memcpy(e->data, key, klen);
    return e;
}

/* Linear probing at load a averages (1/(1-a) - 1)/2 slots from home for a
 * key that is present. Keys shaped like redis-benchmark's, and keys that are
 * bare little-endian counters, must come close to it. */
#define SPREAD_KEYS 100000

static void test_hash_spread(int counters)
{
    struct kix ix;
    struct ks_entry **es = malloc(SPREAD_KEYS * sizeof(*es));
    CHECK(es != NULL);
    index_init_seeded(&ix);
    for (uint64_t i = 0; i < SPREAD_KEYS; i++) {
        char key[32];
        size_t len = sizeof(i);
        if (counters)
            memcpy(key, &i, len);
        else
            len = (size_t)snprintf(key, sizeof(key), "key:%012" PRIu64, i);
        es[i] = entry_make(key, len);
        kix_insert(&ix, es[i], kix_hash(&ix, key, len));
    }
    while (kix_resizing(&ix))
        kix_rehash_step(&ix);
    check_index(&ix);

    double load = (double)ix.cur.used / (double)ix.cur.cap, total = 0;
    for (size_t i = 0; i < ix.cur.cap; i++) {
        if (!ix.cur.slots[i])
            continue;
        const struct ks_entry *e = kix_slot_entry(ix.cur.slots[i]);
        size_t home = kix_home(&ix.cur, kix_hash(&ix, ks_key(e), ks_klen(e)));
        total += (double)(i >= home ? i - home : i + ix.cur.cap - home);
    }
    double mean = total / (double)ix.cur.used, expected = (1 / (1 - load) - 1) / 2;
    printf("hash spread (%s): load %.3f, mean distance from home %.3f, linear probing expects %.3f\n",
           counters ? "counters" : "key:%012d", load, mean, expected);
    CHECK(mean < expected * 1.25 + 0.05);

    kix_clear(&ix);
    for (size_t i = 0; i < SPREAD_KEYS; i++)
        free(es[i]);
    free(es);
}

static void test_hash(void)
{
    struct kix ix;
    rand_seed(1);
    index_init_seeded(&ix);
    test_hash_bounds(&ix);
    test_hash_distinct(&ix);
    test_hash_avalanche(&ix);
    test_hash_seeded();
    test_hash_spread(0);
    test_hash_spread(1);
    CHECK(mem_used() == 0);
    printf("hash: ok\n");
}

/* ---- index: random operations against a model ---- */

#define UNIVERSE 1200
#define KEY_MAX 20
#define INDEX_OPS 60000
#define PHASE_OPS 4000 /* growth and shrink phases alternate */

struct universe {
    char key[UNIVERSE][KEY_MAX];
    size_t klen[UNIVERSE];
    struct ks_entry *entry[UNIVERSE]; /* the model: NULL when absent */
    size_t present[UNIVERSE], absent[UNIVERSE]; /* key numbers, for picking */
    size_t npresent, nabsent;
    size_t pos[UNIVERSE]; /* where each key number sits in present[] or absent[] */
};

static const char key_alphabet[] = {'\0', '\x01', 'a', '\x7f', '\x80', '\xff'};

/* Distinct binary keys: the empty key, and keys of up to KEY_MAX bytes over
 * a small alphabet, many of them prefixes of others. */
static void universe_init(struct universe *u)
{
    memset(u, 0, sizeof(*u));
    for (size_t k = 0; k < UNIVERSE; k++) {
        int fresh;
        do {
            u->klen[k] = k == 0 ? 0 : 1 + rng_below(&rng, rng_below(&rng, 2) ? 4 : KEY_MAX);
            for (size_t i = 0; i < u->klen[k]; i++)
                u->key[k][i] = key_alphabet[rng_below(&rng, sizeof(key_alphabet))];
            fresh = 1;
            for (size_t j = 0; j < k && fresh; j++)
                fresh = u->klen[j] != u->klen[k] || memcmp(u->key[j], u->key[k], u->klen[k]);
        } while (!fresh);
        u->absent[u->nabsent] = k;
        u->pos[k] = u->nabsent++;
    }
}

/* Moves key number k between the present and absent lists. */
static void universe_flip(struct universe *u, size_t k, int now_present)
{
    size_t *from = now_present ? u->absent : u->present, *to = now_present ? u->present : u->absent;
    size_t *nfrom = now_present ? &u->nabsent : &u->npresent;
    size_t *nto = now_present ? &u->npresent : &u->nabsent;
    size_t last = from[--*nfrom];
    from[u->pos[k]] = last;
    u->pos[last] = u->pos[k];
    to[*nto] = k;
    u->pos[k] = (*nto)++;
}

static int in_old_table(const struct kix *ix, const struct ks_entry *e)
{
    for (size_t i = 0; i < ix->old.cap; i++)
        if (kix_slot_entry(ix->old.slots[i]) == e)
            return 1;
    return 0;
}

enum index_op { OP_LOOKUP, OP_INSERT, OP_REMOVE, OP_REPLACE, OP_COUNT };

/* A table reserved past KIX_HUGE_BYTES (keyindex.c) asks for huge pages
 * and is zeroed by hand after the hint, not by calloc: every slot must
 * start empty (check_index counts the full ones) and the entries go in. */
static void test_index_huge(void)
{
    struct kix ix;
    index_init_seeded(&ix);
    kix_reserve(&ix, (size_t)3 << 20);
    CHECK(ix.cur.cap * sizeof(*ix.cur.slots) >= ((size_t)16 << 20));
    check_index(&ix);
    enum { N = 1000 };
    struct ks_entry *es[N];
    for (int i = 0; i < N; i++) {
        char key[16];
        size_t len = (size_t)snprintf(key, sizeof(key), "huge:%d", i);
        es[i] = entry_make(key, len);
        kix_insert(&ix, es[i], kix_hash(&ix, key, len));
    }
    check_index(&ix);
    for (int i = 0; i < N; i++)
        CHECK(kix_find(&ix, ks_key(es[i]), ks_klen(es[i]),
                       kix_hash(&ix, ks_key(es[i]), ks_klen(es[i]))) == es[i]);
    CHECK(kix_count(&ix) == N);
    kix_clear(&ix);
    for (int i = 0; i < N; i++)
        free(es[i]);
}

/* A large index holds no table but its own right before it grows (its next
 * one is a fresh mapping then, not prepared ahead: 13 bytes per key at 1M
 * keys, keyindex.c's KIX_MAP_BYTES); a draining table of 16 MB
 * and more gives its drained pages back as it drains (KIX_RELEASE_BYTES):
 * every key is found halfway through such a drain and after it, with keys
 * removed in between, and the index checks. */
static void test_index_large(void)
{
    enum { GROWN = 2015351, HALFWAY = GROWN + 20000, AFTER = GROWN + 150000 };
    struct kix ix;
    index_init_seeded(&ix);
    struct ks_entry **es = calloc(AFTER, sizeof(*es));
    CHECK(es != NULL);
    size_t n = 0;
    int removed_ok = 1;

    for (; n < AFTER; n++) {
        char key[16];
        size_t len = (size_t)snprintf(key, sizeof(key), "big:%zu", n);
        size_t cap = ix.cur.cap;
        es[n] = entry_make(key, len);
        kix_insert(&ix, es[n], kix_hash(&ix, key, len));
        if (n + 2 == GROWN) /* 85% loaded: the next insert grows it */
            CHECK(!kix_resizing(&ix) && kix_memory(&ix) == ix.cur.cap * sizeof(uint64_t));
        if (n + 1 == GROWN) { /* this insert grew a 19 MB table */
            CHECK(cap * sizeof(uint64_t) >= ((size_t)16 << 20) && ix.cur.cap != cap);
            CHECK(kix_resizing(&ix) &&
                  kix_memory(&ix) == (ix.cur.cap + ix.old.cap) * sizeof(uint64_t));
        }
        if (n + 1 == HALFWAY) {
            CHECK(kix_resizing(&ix));
            for (size_t i = 0; i < n; i += 7) { /* some go, mid-drain */
                kix_remove(&ix, es[i]);
                free(es[i]);
                es[i] = NULL;
            }
            check_index(&ix);
            for (size_t i = 0; i <= n; i++)
                removed_ok &= !es[i] || kix_find(&ix, ks_key(es[i]), ks_klen(es[i]),
                                                 kix_hash(&ix, ks_key(es[i]), ks_klen(es[i]))) == es[i];
        }
    }
    CHECK(!kix_resizing(&ix) && removed_ok);
    check_index(&ix);
    for (size_t i = 0; i < n; i++)
        CHECK(!es[i] || kix_find(&ix, ks_key(es[i]), ks_klen(es[i]),
                                 kix_hash(&ix, ks_key(es[i]), ks_klen(es[i]))) == es[i]);
    kix_clear(&ix);
    for (size_t i = 0; i < n; i++)
        free(es[i]);
    free(es);
}

static void test_index(void)
{
    test_index_huge();
    test_index_large();
    struct universe *u = malloc(sizeof(*u));
    struct kix ix;
    unsigned long during_resize[OP_COUNT] = {0}, from_old[OP_COUNT] = {0};
    unsigned long grows = 0, shrinks = 0;

    CHECK(u != NULL);
    rand_seed(2);
    universe_init(u);
    index_init_seeded(&ix);
    for (test_op = 0; test_op < INDEX_OPS; test_op++) {
        int growing = test_op / PHASE_OPS % 2 == 0;
        size_t cap_before = ix.cur.cap, r = rng_below(&rng, 100);
        enum index_op op = r < 15 ? OP_LOOKUP : r < 30 ? OP_REPLACE
                         : (r < 80) == growing ? OP_INSERT : OP_REMOVE;
        if ((op == OP_REMOVE || op == OP_REPLACE) && !u->npresent)
            op = OP_INSERT;
        if (op == OP_INSERT && !u->nabsent)
            op = OP_REMOVE;
        int resizing = kix_resizing(&ix);
        during_resize[op] += (unsigned long)resizing;

        if (op == OP_LOOKUP) {
            size_t k = rng_below(&rng, UNIVERSE);
            CHECK(kix_find(&ix, u->key[k], u->klen[k], kix_hash(&ix, u->key[k], u->klen[k])) ==
                  u->entry[k]);
            continue;
        }
        if (op == OP_INSERT) {
            size_t k = u->absent[rng_below(&rng, u->nabsent)];
            u->entry[k] = entry_make(u->key[k], u->klen[k]);
            kix_insert(&ix, u->entry[k], kix_hash(&ix, u->key[k], u->klen[k]));
            universe_flip(u, k, 1);
        } else {
            size_t k = u->present[rng_below(&rng, u->npresent)];
            from_old[op] += (unsigned long)(resizing && in_old_table(&ix, u->entry[k]));
            if (op == OP_REMOVE) {
                kix_remove(&ix, u->entry[k]);
                free(u->entry[k]);
                u->entry[k] = NULL;
                universe_flip(u, k, 0);
            } else {
                struct ks_entry *moved = entry_make(u->key[k], u->klen[k]);
                kix_replace(&ix, u->entry[k], moved);
                free(u->entry[k]);
                u->entry[k] = moved;
            }
        }
        check_index(&ix);
        CHECK(kix_count(&ix) == u->npresent);
        grows += ix.cur.cap > cap_before;
        shrinks += ix.cur.cap < cap_before && ix.cur.cap;
        if (test_op % 500 == 0 || u->npresent < 8)
            for (size_t k = 0; k < UNIVERSE; k++)
                CHECK(kix_find(&ix, u->key[k], u->klen[k],
                               kix_hash(&ix, u->key[k], u->klen[k])) == u->entry[k]);
    }
    printf("index: %lu grows, %lu shrinks; while resizing: %lu lookups, %lu inserts, %lu removes "
           "(%lu from the draining table), %lu moves (%lu)\n",
           grows, shrinks, during_resize[OP_LOOKUP], during_resize[OP_INSERT],
           during_resize[OP_REMOVE], from_old[OP_REMOVE], during_resize[OP_REPLACE],
           from_old[OP_REPLACE]);
    /* A run that did not reach these did not test what it claims to. */
    CHECK(grows >= 10 && shrinks >= 2);
    for (int op = 0; op < OP_COUNT; op++)
        CHECK(during_resize[op] >= 20);
    CHECK(from_old[OP_REMOVE] >= 5 && from_old[OP_REPLACE] >= 5);

    /* Removing the last key frees the tables. */
    while (u->npresent) {
        size_t k = u->present[0];
        kix_remove(&ix, u->entry[k]);
        free(u->entry[k]);
        u->entry[k] = NULL;
        universe_flip(u, k, 0);
        check_index(&ix);
    }
    CHECK(ix.cur.cap == 0 && ix.old.cap == 0 && mem_used() == 0);

    /* So does kix_clear, in the middle of a resize. */
    while (!kix_resizing(&ix)) {
        size_t k = u->absent[rng_below(&rng, u->nabsent)];
        u->entry[k] = entry_make(u->key[k], u->klen[k]);
        kix_insert(&ix, u->entry[k], kix_hash(&ix, u->key[k], u->klen[k]));
        universe_flip(u, k, 1);
    }
    kix_clear(&ix);
    CHECK(kix_count(&ix) == 0 && mem_used() == 0);
    for (size_t k = 0; k < UNIVERSE; k++)
        free(u->entry[k]);
    free(u);
    printf("index: ok\n");
}

/* ---- the keyspace: moves, deletes and expiry keep tree and index as one ---- */

#define KS_KEYS 700
#define KS_OPS 40000
#define KS_PHASE_OPS 3000
#define VALUE_MAX 600 /* past 256 bytes, so shrinking a value moves its entry */
#define START_MS 1000000

/* Key number k: its two bytes, then up to two more (a NUL, 0xFF). */
static size_t ks_key_of(size_t k, char *key)
{
    key[0] = (char)(k & 0xff);
    key[1] = (char)(k >> 8);
    key[2] = '\0';
    key[3] = '\xff';
    return 2 + k % 3;
}

/* used_memory must be the keyspace's own blocks, its entries and the index. */
static void check_accounting(const struct keyspace *ks, const struct db *db)
{
    size_t bytes = xsize(ks) + xsize(ks->dbs) + index_bytes(&db->index);
    for (const struct ks_entry *e = ks_first(db); e; e = ks_next(e))
        bytes += ks_entry_memory(e);
    CHECK(mem_used() == bytes);
}

static void test_keyspace(void)
{
    struct keyspace *ks = ks_new(1);
    struct db *db = &ks->dbs[0];
    static char val[VALUE_MAX];
    int64_t now = START_MS;
    unsigned long moves = 0, resizing_ops = 0;

    rand_seed(3);
    kix_clear(&db->index);
    index_init_seeded(&db->index); /* replayable layout */
    for (test_op = 0; test_op < KS_OPS; test_op++) {
        char key[4];
        size_t k = rng_below(&rng, KS_KEYS), klen = ks_key_of(k, key);
        size_t vlen = rng_below(&rng, VALUE_MAX);
        int growing = test_op / KS_PHASE_OPS % 2 == 0;
        struct ks_entry *e = ks_find(db, key, klen), *after;

        resizing_ops += (unsigned long)kix_resizing(&db->index);
        switch (rng_below(&rng, 10)) {
        case 0: case 1: case 2: case 3:
            if (!e && !growing && rng_below(&rng, 3))
                break;
            after = ks_set_string(db, key, klen, val, vlen, (int)rng_below(&rng, 2));
            moves += e && after != e;
            CHECK(ks_find(db, key, klen) == after);
            break;
        case 4:
            if (e) {
                after = ks_string_resize(db, e, vlen);
                moves += after != e;
                CHECK(ks_find(db, key, klen) == after);
            }
            break;
        case 5:
            if (e) {
                after = ks_set_expire(db, e, now + (int64_t)rng_below(&rng, 50));
                moves += after != e;
                CHECK(ks_find(db, key, klen) == after);
            }
            break;
        case 6:
            if (e && (!growing || rng_below(&rng, 2)))
                ks_delete(db, e);
            else if (e)
                ks_persist(db, e);
            break;
        case 7:
            now += (int64_t)rng_below(&rng, 5);
            e = ks_lookup(db, key, klen, now);
            CHECK(e == ks_find(db, key, klen));
            break;
        case 8:
            ks_expire_due(db, now, 1 + rng_below(&rng, 4));
            break;
        default:
            if (rng_below(&rng, 500) == 0) {
                ks_flush(db);
                CHECK(index_bytes(&db->index) == 0);
            }
            break;
        }
        check_db(db);
        if (test_op % 1000 == 0)
            check_accounting(ks, db);
    }
    printf("keyspace: %lu entries moved, %lu operations while resizing\n", moves, resizing_ops);
    CHECK(moves >= 1000 && resizing_ops >= 50);
    check_accounting(ks, db);

    /* FLUSHDB in the middle of a resize frees both tables. Growing from
     * empty through 700 keys passes several resizes past 100. */
    ks_flush(db);
    for (size_t k = 0; ks_count(db) < 100 || !kix_resizing(&db->index); k++) {
        char key[4];
        CHECK(k < KS_KEYS);
        size_t klen = ks_key_of(k, key);
        ks_set_string(db, key, klen, val, rng_below(&rng, VALUE_MAX), 0);
    }
    CHECK(db->index.old.slots != NULL);
    ks_flush(db);
    check_db(db);
    CHECK(index_bytes(&db->index) == 0);
    check_accounting(ks, db);
    ks_free(ks);
    CHECK(mem_used() == 0);
    printf("keyspace: ok\n");
}

int main(int argc, char **argv)
{
    test_seed = check_seed(7031);
    check_report_op(&test_op);

    static const struct {
        const char *name;
        void (*run)(void);
    } parts[] = {{"hash", test_hash}, {"index", test_index}, {"keyspace", test_keyspace}};
    size_t nparts = sizeof(parts) / sizeof(parts[0]);
    for (int i = 1; i < argc; i++) {
        size_t p = 0;
        while (p < nparts && strcmp(argv[i], parts[p].name))
            p++;
        if (p == nparts) {
            fprintf(stderr, "usage: test_keyindex [hash|index|keyspace]...\n");
            return 2;
        }
        parts[p].run();
    }
    for (size_t p = 0; argc < 2 && p < nparts; p++)
        parts[p].run();
    return 0;
}
