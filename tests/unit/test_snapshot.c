/*
 * test_snapshot.c - the snapshot format (server/persist/snapshot.h): round trips of
 * every value type, binary keys and values, deadlines, 16 databases and the
 * empty keyspace; hashes and sets in every encoding, rebuilt under the
 * loader's thresholds; and refusal of damaged files: every byte flipped, every
 * truncation, trailing bytes, each reported with the file and an offset,
 * never a crash (run under ASan to make that mean something).
 *
 * Owns: a temp dir for its files, removed at the end. Every part ends with
 * its keyspaces freed and mem_used() back where it started, so a leak in the
 * loader's error paths fails the test.
 *
 * Also the keyspace's bulk build the loader uses (ks_bulk_*): every size up
 * to BULK_MAX_KEYS gives a valid red-black tree (ks_check) with the right
 * ranks, whatever the shape of its last level.
 *
 * Files written by hand (with a valid checksum) check that a map's elements
 * out of order, repeated, or counted wrong are refused with an offset, and
 * a list's count wrong.
 *
 * Lists round trip in order, integers, empty and long elements included,
 * and a load cuts them in chunks of its own list-max-listpack-size.
 *
 * usage: test_snapshot [crc|bulk|roundtrip|maps|lists|badmaps|corrupt|save|repl]... (none: all).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "commands.h"
#include "keyspace.h"
#include "mem.h"
#include "olist.h"
#include "omap.h"
#include "snapshot.h"
#include "zset.h"

#define DBS 16
#define FAR_FUTURE_MS 4102444800000LL /* 2100-01-01 */
#define BIG_VALUE (600 * 1024)        /* over the snapshot's I/O block */
#define BULK_MAX_KEYS 520             /* past several full trees (255, 511) */

/* Redis's defaults: hash-max-listpack-entries 128, -value 64;
 * set-max-listpack-entries 128, -value 64, set-max-intset-entries 512;
 * list-max-listpack-size -2. */
static const struct snap_limits limits = {{128, 64, 0}, {128, 64, 512}, {-2}, 0};

static char dir[256];

static void path_of(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", dir, name);
}

static void add_string(struct db *db, const char *k, size_t klen, const char *v, size_t vlen,
                       int64_t when)
{
    struct ks_entry *e = ks_set_string(db, k, klen, v, vlen, 0);
    if (when >= 0)
        ks_set_expire(db, e, when);
}

static void add_zset(struct db *db, const char *k, size_t klen, int members, int64_t when)
{
    struct zset *z = zs_new();
    static const double scores[] = {-INFINITY, -1.5, -0.0, 0.0, 1e-300, 3.25, 1e300, INFINITY};
    for (int i = 0; i < members; i++) {
        char m[16];
        int n = snprintf(m, sizeof(m), "m%c%d", (char)(i % 3), i); /* NULs and 0x01 inside */
        zs_insert(z, m, (size_t)n, scores[i % 8]);
    }
    struct ks_entry *e = ks_add_ptr(db, k, klen, KS_ZSET, z);
    if (when >= 0)
        ks_set_expire(db, e, when);
}

/* A hash (values) or set of n elements: field i is "f<i>" with bytes 0x00
 * and 0xff inside, value i is i bytes of a pattern (the first empty), plus
 * an empty field; with ints, a set of integers only. */
static struct omap *make_map(int values, int n, int ints, size_t value_len)
{
    struct omap *m = om_new(values);
    const struct om_limits *lim = values ? &limits.hash : &limits.set;
    char *v = xmalloc(value_len + 1);
    for (size_t i = 0; i < value_len; i++)
        v[i] = (char)(i * 7 + 3);
    for (int i = 0; i < n; i++) {
        char f[32];
        int len = ints ? snprintf(f, sizeof(f), "%d", i * 37 - 1000)
                       : snprintf(f, sizeof(f), "f%c%d%c", (char)(i % 2), i, (char)0xff);
        om_set(&m, f, (size_t)len, v, (size_t)i % (value_len + 1), lim);
    }
    if (!ints)
        om_set(&m, "", 0, v, value_len, lim);
    xfree(v);
    return m;
}

/* A hash, set or list value m under key k. */
static void add_map(struct db *db, const char *k, size_t klen, int type, void *m, int64_t when)
{
    struct ks_entry *e = ks_add_ptr(db, k, klen, (enum ks_type)type, m);
    if (when >= 0)
        ks_set_expire(db, e, when);
}

/* A list of n elements: element i is an integer when i % 3 is 0, else
 * "e<i>" with a NUL inside; then an empty element, and one of value_len
 * bytes when value_len is not 0. */
static struct olist *make_list(int n, size_t value_len)
{
    struct olist *l = ol_new();
    for (int i = 0; i < n; i++) {
        char v[32];
        int len = i % 3 ? snprintf(v, sizeof(v), "e%c%d", (char)0, i)
                        : snprintf(v, sizeof(v), "%d", i * 977 - 50000);
        ol_push(&l, 1, v, (size_t)len, &limits.list);
    }
    ol_push(&l, 1, "", 0, &limits.list);
    if (value_len) {
        char *v = xmalloc(value_len);
        for (size_t i = 0; i < value_len; i++)
            v[i] = (char)(i * 131);
        ol_push(&l, 0, v, value_len, &limits.list);
        xfree(v);
    }
    return l;
}

static void compare_lists(const struct olist *x, const struct olist *y, const struct ol_limits *lim)
{
    const char *why;
    struct ol_it i, j;
    CHECK_MSG(ol_check(y, lim, &why) == 0, "ol_check: %s", why);
    CHECK_MSG(ol_len(x) == ol_len(y), "list length %zu, loaded %zu", ol_len(x), ol_len(y));
    ol_seek(x, 0, &i);
    ol_seek(y, 0, &j);
    for (; ol_it_valid(&i) && ol_it_valid(&j); ol_next(&i), ol_next(&j)) {
        const char *a, *b;
        size_t alen, blen;
        ol_it_get(&i, &a, &alen);
        ol_it_get(&j, &b, &blen);
        CHECK_MSG(alen == blen && (alen == 0 || !memcmp(a, b, alen)), "list element %zu", i.pos);
    }
    CHECK_MSG(!ol_it_valid(&i) && !ol_it_valid(&j), "walks of different lengths");
}

static void compare_maps(const struct omap *x, const struct omap *y)
{
    const char *why;
    struct om_it i, j;
    struct om_elem a, b;
    CHECK_MSG(om_check(y, &why) == 0, "om_check: %s", why);
    CHECK_MSG(om_len(x) == om_len(y), "map size %zu, loaded %zu", om_len(x), om_len(y));
    CHECK_MSG(x->values == y->values, "hash or set");
    CHECK_MSG(!strcmp(om_encoding(x), om_encoding(y)), "encoding %s, loaded %s", om_encoding(x),
              om_encoding(y));
    om_seek(x, 0, &i);
    om_seek(y, 0, &j);
    for (; om_it_valid(&i) && om_it_valid(&j); om_next(x, &i), om_next(y, &j)) {
        om_it_get(x, &i, &a);
        om_it_get(y, &j, &b);
        CHECK_MSG(a.flen == b.flen && !memcmp(a.f, b.f, a.flen), "element %zu", i.rank);
        CHECK_MSG(a.vlen == b.vlen && (a.vlen == 0 || !memcmp(a.v, b.v, a.vlen)), "value %zu",
                  i.rank);
    }
    CHECK_MSG(!om_it_valid(&i) && !om_it_valid(&j), "walks of different lengths");
}

/* Every database of a and b holds the same keys, types, values and
 * deadlines, in the same order, and b passes ks_check. */
static void compare(const struct keyspace *a, const struct keyspace *b)
{
    for (int i = 0; i < a->count; i++) {
        const struct db *da = &a->dbs[i], *dbb = &b->dbs[i];
        const char *why;
        CHECK_MSG(ks_check(dbb, &why) == 0, "db %d: %s", i, why);
        CHECK_MSG(ks_count(da) == ks_count(dbb), "db %d: %zu keys, loaded %zu", i, ks_count(da),
                  ks_count(dbb));
        struct ks_entry *x = ks_first(da), *y = ks_first(dbb);
        for (; x && y; x = ks_next(x), y = ks_next(y)) {
            CHECK_MSG(ks_keycmp(ks_key(x), ks_klen(x), ks_key(y), ks_klen(y)) == 0, "db %d: key",
                      i);
            CHECK_MSG(x->type == y->type, "db %d: type", i);
            CHECK_MSG(ks_get_expire(x) == ks_get_expire(y), "db %d: deadline %lld vs %lld", i,
                      (long long)ks_get_expire(x), (long long)ks_get_expire(y));
            if (x->type == KS_STRING) {
                CHECK_MSG(ks_slen(x) == ks_slen(y) && !memcmp(ks_str(x), ks_str(y), ks_slen(x)),
                          "db %d: string value", i);
                continue;
            }
            if (x->type == KS_HASH || x->type == KS_SET) {
                compare_maps(ks_ptr(x), ks_ptr(y));
                continue;
            }
            if (x->type == KS_LIST) {
                compare_lists(ks_ptr(x), ks_ptr(y), &limits.list);
                continue;
            }
            const struct zset *zx = ks_ptr(x), *zy = ks_ptr(y);
            CHECK_MSG(zs_check(zy, &why) == 0, "zset: %s", why);
            CHECK_MSG(zs_len(zx) == zs_len(zy), "zset size");
            const struct zs_node *m = zs_first(zx), *n = zs_first(zy);
            for (; m && n; m = zs_next(m), n = zs_next(n)) {
                CHECK_MSG(m->len == n->len && !memcmp(m->member, n->member, m->len), "member");
                CHECK_MSG(!memcmp(&m->score, &n->score, sizeof(double)), "score bits");
            }
        }
        CHECK_MSG(!x && !y, "db %d: different key counts", i);
    }
}

static struct keyspace *load_or_null(const char *path, char *err, size_t errlen)
{
    struct keyspace *ks = ks_new(DBS);
    int absent;
    if (snap_load(ks, path, &limits, &absent, err, errlen) < 0 || absent) {
        ks_free(ks);
        return NULL;
    }
    return ks;
}

static void test_crc(void)
{
    /* The check value of CRC-64/Jones as Redis's crc64 test gives it. */
    CHECK_MSG(snap_crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9caULL, "crc64 check value");
    CHECK_MSG(snap_crc64(snap_crc64(0, "1234", 4), "56789", 5) == 0xe9c6d914c4b8d9caULL,
              "crc64 continued");
    /* Every split of a longer text: the eight-byte steps and the tail agree. */
    static const char text[] = "The quick brown fox jumps over the lazy dog, twice and thrice.";
    uint64_t whole = snap_crc64(0, text, sizeof(text) - 1), bytewise = 0;
    for (size_t i = 0; i < sizeof(text) - 1; i++)
        bytewise = snap_crc64(bytewise, text + i, 1);
    CHECK_MSG(whole == bytewise, "crc64 by 8s and by bytes differ");
    for (size_t cut = 0; cut < sizeof(text); cut++)
        CHECK_MSG(snap_crc64(snap_crc64(0, text, cut), text + cut, sizeof(text) - 1 - cut) == whole,
                  "crc64 split at %zu", cut);
}

static void test_bulk(void)
{
    size_t mem0 = mem_used();
    for (size_t n = 0; n <= BULK_MAX_KEYS; n++) {
        struct keyspace *ks = ks_new(1);
        struct db *db = &ks->dbs[0];
        struct ks_bulk b;
        const char *why;
        char k[16];
        ks_bulk_begin(&b, db);
        for (size_t i = 0; i < n; i++) {
            int len = snprintf(k, sizeof(k), "%08zu", i);
            ks_bulk_add(&b, k, (size_t)len, KS_STRING, k, (size_t)len,
                        i % 4 ? -1 : FAR_FUTURE_MS - (int64_t)i);
        }
        ks_bulk_finish(&b);
        CHECK_MSG(ks_check(db, &why) == 0, "%zu keys: %s", n, why);
        CHECK_MSG(ks_count(db) == n, "%zu keys: count %zu", n, ks_count(db));
        for (size_t i = 0; i < n; i++) {
            struct ks_entry *e = ks_select(db, i);
            int len = snprintf(k, sizeof(k), "%08zu", i);
            CHECK_MSG(e && ks_rank(e) == i && ks_find(db, k, (size_t)len) == e,
                      "%zu keys: rank %zu", n, i);
        }
        ks_free(ks);
    }
    CHECK_MSG(mem_used() == mem0, "leak: %zu bytes", mem_used() - mem0);
}

static void test_roundtrip(void)
{
    size_t mem0 = mem_used();
    char path[300], err[512];
    path_of(path, sizeof(path), "round.rbkv");

    /* Empty: loads as empty. */
    struct keyspace *a = ks_new(DBS), *b;
    CHECK_MSG(snap_save(a, path, 1000, err, sizeof(err)) == 0, "%s", err);
    b = load_or_null(path, err, sizeof(err));
    CHECK_MSG(b != NULL, "empty: %s", err);
    compare(a, b);
    ks_free(b);

    /* Every type, binary bytes, deadlines, every database. */
    char *big = xmalloc(BIG_VALUE);
    for (size_t i = 0; i < BIG_VALUE; i++)
        big[i] = (char)(i * 131);
    for (int d = 0; d < DBS; d++) {
        struct db *db = &a->dbs[d];
        char k[32];
        for (int i = 0; i < 50 + d * 7; i++) {
            int n = snprintf(k, sizeof(k), "key:%d:%d", d, i);
            add_string(db, k, (size_t)n, k, (size_t)n, i % 3 ? -1 : FAR_FUTURE_MS + i);
        }
        add_string(db, "", 0, "empty key", 9, -1);
        add_string(db, "\0\xff\x01", 3, "\0bin\0", 5, FAR_FUTURE_MS);
        add_string(db, "\xff\xff", 2, "", 0, -1);
        add_zset(db, "z\0set", 5, 1 + d * 3, d % 2 ? FAR_FUTURE_MS : -1);
        add_zset(db, "zz", 2, 1, -1);
    }
    add_string(&a->dbs[3], "big", 3, big, BIG_VALUE, -1);
    add_zset(&a->dbs[7], "bigz", 4, 5000, -1);
    /* Expired by save time: not written. */
    add_string(&a->dbs[0], "gone", 4, "x", 1, 500);
    add_zset(&a->dbs[0], "gonez", 5, 3, 500);
    CHECK_MSG(snap_save(a, path, 1000, err, sizeof(err)) == 0, "%s", err);
    b = load_or_null(path, err, sizeof(err));
    CHECK_MSG(b != NULL, "full: %s", err);
    ks_delete(&a->dbs[0], ks_find(&a->dbs[0], "gone", 4));
    ks_delete(&a->dbs[0], ks_find(&a->dbs[0], "gonez", 5));
    compare(a, b);
    ks_free(b);
    xfree(big);
    ks_free(a);
    unlink(path);
    CHECK_MSG(mem_used() == mem0, "leak: %zu bytes", mem_used() - mem0);
}

static void write_file(const char *path, const unsigned char *p, size_t n);

/* Hashes and sets of every encoding round trip with their elements, values
 * and encodings; a load rebuilds them under its own thresholds. */
static void test_maps(void)
{
    size_t mem0 = mem_used();
    char path[300], err[512];
    path_of(path, sizeof(path), "maps.rbkv");
    struct keyspace *a = ks_new(DBS), *b;
    struct db *db = &a->dbs[0];
    static const struct {
        const char *key;
        int type, n, ints;
        size_t value_len;
        const char *encoding;
    } maps[] = {
        {"h:packed", KS_HASH, 5, 0, 8, "listpack"},
        {"h:one", KS_HASH, 0, 0, 0, "listpack"}, /* only the empty field, empty value */
        {"h:many", KS_HASH, 3000, 0, 40, "rbtree"},
        {"h:long", KS_HASH, 3, 0, 65, "rbtree"},
        {"h:big", KS_HASH, 2, 0, BIG_VALUE, "rbtree"},
        {"s:packed", KS_SET, 5, 0, 0, "listpack"},
        {"s:ints", KS_SET, 300, 1, 0, "intset"},
        {"s:manyints", KS_SET, 600, 1, 0, "rbtree"},
        {"s:many", KS_SET, 100000, 0, 0, "rbtree"},
    };
    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
        struct omap *m = make_map(maps[i].type == KS_HASH, maps[i].n, maps[i].ints,
                                  maps[i].value_len);
        CHECK_MSG(!strcmp(om_encoding(m), maps[i].encoding), "%s: built as %s", maps[i].key,
                  om_encoding(m));
        add_map(db, maps[i].key, strlen(maps[i].key), maps[i].type, m,
                i % 2 ? FAR_FUTURE_MS : -1);
    }
    /* A set whose one member is longer than the I/O block, in another db. */
    char *big = xmalloc(BIG_VALUE);
    for (size_t i = 0; i < BIG_VALUE; i++)
        big[i] = (char)(i * 131);
    struct omap *bigset = om_new(0);
    om_set(&bigset, big, BIG_VALUE, NULL, 0, &limits.set);
    om_set(&bigset, "", 0, NULL, 0, &limits.set);
    add_map(&a->dbs[5], "s:big\0", 6, KS_SET, bigset, -1);
    add_map(&a->dbs[5], "gone", 4, KS_HASH, make_map(1, 2, 0, 2), 500); /* expired at save */
    CHECK_MSG(snap_save(a, path, 1000, err, sizeof(err)) == 0, "%s", err);
    ks_delete(&a->dbs[5], ks_find(&a->dbs[5], "gone", 4));
    b = load_or_null(path, err, sizeof(err));
    CHECK_MSG(b != NULL, "maps: %s", err);
    if (b)
        compare(a, b);
    ks_free(b);

    /* Other thresholds: a small map loads as a tree, a big one packed. */
    struct snap_limits tight = {{1, 64, 0}, {1, 64, 0}, {-2}, 0};
    struct snap_limits loose = {{5000, 64, 0}, {1000, 64, 0}, {-2}, 0};
    int absent;
    b = ks_new(DBS);
    CHECK_MSG(snap_load(b, path, &tight, &absent, err, sizeof(err)) > 0, "tight: %s", err);
    struct ks_entry *e = ks_find(&b->dbs[0], "h:packed", 8);
    CHECK_MSG(e && !strcmp(om_encoding(ks_ptr(e)), "rbtree"), "tight: h:packed not a tree");
    e = ks_find(&b->dbs[0], "s:ints", 6);
    CHECK_MSG(e && !strcmp(om_encoding(ks_ptr(e)), "rbtree"), "tight: s:ints not a tree");
    ks_free(b);
    b = ks_new(DBS);
    CHECK_MSG(snap_load(b, path, &loose, &absent, err, sizeof(err)) > 0, "loose: %s", err);
    e = ks_find(&b->dbs[0], "h:many", 6);
    CHECK_MSG(e && !strcmp(om_encoding(ks_ptr(e)), "listpack") && om_len(ks_ptr(e)) == 3001,
              "loose: h:many not packed");
    e = ks_find(&b->dbs[0], "s:manyints", 10);
    CHECK_MSG(e && !strcmp(om_encoding(ks_ptr(e)), "intset"), "loose: s:manyints not packed");
    e = ks_find(&b->dbs[0], "h:long", 6);
    CHECK_MSG(e && !strcmp(om_encoding(ks_ptr(e)), "rbtree"), "loose: h:long packed");
    const char *why;
    for (e = ks_first(&b->dbs[0]); e; e = ks_next(e))
        CHECK_MSG(om_check(ks_ptr(e), &why) == 0, "loose: %s", why);
    ks_free(b);

    xfree(big);
    ks_free(a);
    unlink(path);
    CHECK_MSG(mem_used() == mem0, "leak: %zu bytes", mem_used() - mem0);
}

/* Lists round trip; a load cuts them in its own chunk size. */
static void test_lists(void)
{
    size_t mem0 = mem_used();
    char path[300], err[512];
    int absent;
    path_of(path, sizeof(path), "lists.rbkv");
    struct keyspace *a = ks_new(DBS), *b;
    add_map(&a->dbs[0], "l:one", 5, KS_LIST, make_list(0, 0), -1); /* only "" */
    add_map(&a->dbs[0], "l:small", 7, KS_LIST, make_list(10, 70), FAR_FUTURE_MS);
    add_map(&a->dbs[0], "l:many", 6, KS_LIST, make_list(100000, 0), -1);
    add_map(&a->dbs[3], "l:big", 5, KS_LIST, make_list(3, BIG_VALUE), -1);
    add_map(&a->dbs[3], "l:gone", 6, KS_LIST, make_list(3, 0), 500); /* expired at save */
    CHECK_MSG(snap_save(a, path, 1000, err, sizeof(err)) == 0, "%s", err);
    ks_delete(&a->dbs[3], ks_find(&a->dbs[3], "l:gone", 6));
    b = load_or_null(path, err, sizeof(err));
    CHECK_MSG(b != NULL, "lists: %s", err);
    compare(a, b);
    ks_free(b);

    /* One element a chunk, then 64 KB chunks: the same elements either way. */
    static const long sizes[] = {1, -5};
    for (size_t i = 0; i < 2; i++) {
        struct snap_limits own = limits;
        own.list.max_listpack_size = sizes[i];
        b = ks_new(DBS);
        CHECK_MSG(snap_load(b, path, &own, &absent, err, sizeof(err)) == 4, "%ld: %s", sizes[i],
                  err);
        const struct olist *x = ks_ptr(ks_find(&a->dbs[0], "l:many", 6));
        const struct olist *y = ks_ptr(ks_find(&b->dbs[0], "l:many", 6));
        compare_lists(x, y, &own.list);
        CHECK_MSG(sizes[i] == 1 ? ol_chunks(y) == ol_len(y) : ol_chunks(y) < ol_chunks(x),
                  "%ld: %zu chunks", sizes[i], ol_chunks(y));
        ks_free(b);
    }
    ks_free(a);
    unlink(path);
    CHECK_MSG(mem_used() == mem0, "leak: %zu bytes", mem_used() - mem0);
}

/* A file of one database (0) holding body, with a valid checksum. */
static void write_snapshot(const char *path, const unsigned char *body, size_t n)
{
    unsigned char file[512];
    static const unsigned char header[] = {'R', 'B', 'K', 'V', 1, 0, 0, 0,
                                           0xe8, 3, 0, 0, 0, 0, 0, 0, 0xFE, 0};
    size_t len = 0;
    CHECK(sizeof(header) + n + 9 <= sizeof(file));
    memcpy(file, header, sizeof(header));
    len = sizeof(header);
    memcpy(file + len, body, n);
    len += n;
    file[len++] = 0xFF;
    uint64_t crc = snap_crc64(0, file, len);
    for (int i = 0; i < 8; i++)
        file[len++] = (unsigned char)(crc >> (8 * i));
    write_file(path, file, len);
}

/* A map's records written by hand: valid ones load, and each fault is
 * refused with its reason and an offset, leaking nothing. */
static void test_badmaps(void)
{
    size_t mem0 = mem_used();
    char path[300], err[512];
    int absent;
    path_of(path, sizeof(path), "badmap.rbkv");
    static const struct {
        const char *what;
        const char *body;
        size_t len;
        const char *reason; /* NULL: loads */
    } cases[] = {
        /* op 0x03 SET, flags 0, key "s", n, members */
        {"set in order", "\x03" "\x00" "\x01" "s" "\x04" "\x00" "\x01" "a" "\x02" "a" "\x00" "\x01" "b", 13, NULL},
        {"hash in order", "\x02" "\x00" "\x01" "h" "\x02" "\x00" "\x00" "\x01" "a" "\x01" "\xff", 11, NULL},
        {"set out of order", "\x03" "\x00" "\x01" "s" "\x02" "\x02" "ab" "\x01" "a", 10, "set members out of order"},
        {"set duplicate", "\x03" "\x00" "\x01" "s" "\x02" "\x01" "a" "\x01" "a", 9, "duplicate set member"},
        {"hash duplicate", "\x02" "\x00" "\x01" "h" "\x02" "\x01" "a" "\x01" "1" "\x01" "a" "\x01" "2", 13, "duplicate hash field"},
        {"hash out of order", "\x02" "\x00" "\x01" "h" "\x02" "\x01" "b" "\x00" "\x01" "a" "\x00", 11, "hash fields out of order"},
        {"empty set", "\x03" "\x00" "\x01" "s" "\x00", 5, "bad set size 0"},
        {"empty hash", "\x02" "\x00" "\x01" "h" "\x00", 5, "bad hash size 0"},
        {"set count past the file", "\x03" "\x00" "\x01" "s" "\x80" "\x80" "\x80" "\x80" "\x10" "\x01" "a", 11, "bad set size"},
        {"hash count past the file", "\x02" "\x00" "\x01" "h" "\x20" "\x01" "a" "\x00", 8, "bad hash size"},
        {"hash field without value", "\x02" "\x00" "\x01" "h" "\x01" "\x01" "a", 7, ""},
        {"set count over its members", "\x03" "\x00" "\x01" "s" "\x03" "\x01" "a" "\x01" "b", 9, ""},
        {"flags", "\x03" "\x02" "\x01" "s" "\x01" "\x01" "a", 7, "unknown entry flags"},
        /* op 0x04 LIST: any order, repeats allowed */
        {"list", "\x04" "\x00" "\x01" "l" "\x03" "\x01" "b" "\x00" "\x01" "b", 10, NULL},
        {"empty list", "\x04" "\x00" "\x01" "l" "\x00", 5, "bad list size 0"},
        {"list count past the file", "\x04" "\x00" "\x01" "l" "\x20" "\x01" "a", 7, "bad list size"},
        {"list count over its elements", "\x04" "\x00" "\x01" "l" "\x03" "\x01" "a" "\x01" "b", 9, ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        write_snapshot(path, (const unsigned char *)cases[i].body, cases[i].len);
        struct keyspace *ks = ks_new(DBS);
        err[0] = '\0';
        long long rc = snap_load(ks, path, &limits, &absent, err, sizeof(err));
        if (!cases[i].reason) {
            CHECK_MSG(rc == 1, "%s: %s", cases[i].what, err);
            struct ks_entry *e = ks_first(&ks->dbs[0]);
            const char *why;
            CHECK_MSG(e && (e->type == KS_LIST ? ol_check(ks_ptr(e), &limits.list, &why)
                                               : om_check(ks_ptr(e), &why)) == 0,
                      "%s: check", cases[i].what);
        } else {
            CHECK_MSG(rc < 0, "%s: accepted", cases[i].what);
            CHECK_MSG(strstr(err, " at offset ") && strstr(err, cases[i].reason),
                      "%s: message '%s'", cases[i].what, err);
        }
        ks_free(ks);
    }
    unlink(path);
    CHECK_MSG(mem_used() == mem0, "leak: %zu bytes", mem_used() - mem0);
}

static int give_position(struct snap_repl *pos)
{
    memcpy(pos->replid, "0123456789abcdef0123456789abcdef01234567", 41);
    pos->offset = 123456789012LL;
    pos->db = 7;
    return 1;
}

/* The replication position: written as a version 3 file (with the stream's
 * database), read back; a file
 * without it reports none; a REPL record where it may not be is corruption. */
static void test_repl_position(void)
{
    char path[300], err[512];
    struct snap_repl pos;
    int absent;
    path_of(path, sizeof(path), "repl.rbkv");
    struct keyspace *a = ks_new(DBS);
    add_string(&a->dbs[2], "k", 1, "v", 1, -1);
    snap_on_write_repl(give_position);
    CHECK_MSG(snap_save(a, path, 1000, err, sizeof(err)) == 0, "%s", err);
    snap_on_write_repl(NULL);
    struct keyspace *b = load_or_null(path, err, sizeof(err));
    CHECK_MSG(b != NULL, "with a position: %s", err);
    compare(a, b);
    ks_free(b);
    CHECK(snap_loaded_repl(&pos) && pos.offset == 123456789012LL && pos.db == 7 &&
          !strcmp(pos.replid, "0123456789abcdef0123456789abcdef01234567"));
    unsigned char bytes[512];
    FILE *f = fopen(path, "rb");
    size_t len = f ? fread(bytes, 1, sizeof(bytes), f) : 0;
    if (f)
        fclose(f);
    CHECK(len > 17 && bytes[4] == SNAP_VERSION_REPL && bytes[16] == 0xFD);
    /* Version 1 with the record: refused, nothing reported. */
    bytes[4] = SNAP_VERSION;
    write_file(path, bytes, len);
    b = ks_new(DBS);
    CHECK(snap_load(b, path, &limits, &absent, err, sizeof(err)) < 0 && strstr(err, "replication record"));
    CHECK(!snap_loaded_repl(&pos));
    ks_free(b);
    CHECK_MSG(snap_save(a, path, 1000, err, sizeof(err)) == 0, "%s", err);
    b = load_or_null(path, err, sizeof(err));
    CHECK(b && !snap_loaded_repl(&pos));
    ks_free(b);
    ks_free(a);
    unlink(path);
}

static const char *const libraries[] = {"#!lua name=a\nreturn 1", "#!lua name=b\n\0binary"};
static const size_t library_lens[] = {21, 20};

static const char *give_library(size_t i, size_t *len)
{
    if (i >= 2)
        return NULL;
    *len = library_lens[i];
    return libraries[i];
}

static void expect_refused(const char *path, size_t size, const char *what, size_t at);

/* Function libraries: written before the keys, read back in order for the
 * registry to take; a load without them leaves none to take (nothing
 * stale); truncated anywhere, or after a key, is refused without a leak. */
static void test_functions(void)
{
    size_t mem0 = mem_used();
    char path[300], err[512];
    path_of(path, sizeof(path), "functions.rbkv");
    struct keyspace *a = ks_new(DBS);
    add_string(&a->dbs[1], "k", 1, "v", 1, -1);
    snap_on_write_functions(give_library);
    CHECK_MSG(snap_save(a, path, 1000, err, sizeof(err)) == 0, "%s", err);
    snap_on_write_functions(NULL);
    struct keyspace *b = load_or_null(path, err, sizeof(err));
    CHECK_MSG(b != NULL, "with libraries: %s", err);
    compare(a, b);
    ks_free(b);
    size_t n;
    struct snap_code *codes = snap_take_loaded_functions(&n);
    CHECK(n == 2);
    for (size_t i = 0; i < n && i < 2; i++) {
        CHECK(codes[i].len == library_lens[i] && !memcmp(codes[i].code, libraries[i], codes[i].len));
        xfree(codes[i].code);
    }
    xfree(codes);
    CHECK(snap_take_loaded_functions(&n) == NULL && n == 0);

    unsigned char buf[512];
    FILE *f = fopen(path, "rb");
    size_t size = f ? fread(buf, 1, sizeof(buf), f) : 0;
    if (f)
        fclose(f);
    CHECK(size > 17 && buf[16] == 0xF5);
    for (size_t cut = 17; cut < size; cut++) {
        write_file(path, buf, cut);
        expect_refused(path, cut, "truncated", cut);
    }
    codes = snap_take_loaded_functions(&n);
    for (size_t i = 0; i < n; i++)
        xfree(codes[i].code);
    xfree(codes);

    /* A library after the first SELECT: the loader sees keys first. */
    unsigned char late[] = {'R', 'B', 'K', 'V', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                            0xFE, 0, 0xF5, 1, 'x', 0xFF, 0, 0, 0, 0, 0, 0, 0, 0};
    uint64_t crc = snap_crc64(0, late, sizeof(late) - 8);
    for (int i = 0; i < 8; i++)
        late[sizeof(late) - 8 + i] = (unsigned char)(crc >> (8 * i));
    write_file(path, late, sizeof(late));
    b = ks_new(DBS);
    int absent;
    CHECK(snap_load(b, path, &limits, &absent, err, sizeof(err)) < 0 &&
          strstr(err, "function library after the keys"));
    ks_free(b);
    ks_free(a);
    /* A load without libraries drops what a failed one read. */
    CHECK_MSG(snap_save(a = ks_new(DBS), path, 1000, err, sizeof(err)) == 0, "%s", err);
    b = load_or_null(path, err, sizeof(err));
    CHECK(b && snap_take_loaded_functions(&n) == NULL && n == 0);
    ks_free(b);
    ks_free(a);
    unlink(path);
    CHECK_MSG(mem_used() == mem0, "leak: %zu bytes", mem_used() - mem0);
}

static void write_file(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK_MSG(f && fwrite(p, 1, n, f) == n, "writing %s: %s", path, strerror(errno));
    fclose(f);
}

/* Loading must fail with the file's name and an offset within the file. */
static void expect_refused(const char *path, size_t size, const char *what, size_t at)
{
    char err[512] = "";
    struct keyspace *ks = ks_new(DBS);
    int absent;
    long long rc = snap_load(ks, path, &limits, &absent, err, sizeof(err));
    unsigned long long off = 0;
    const char *o = strstr(err, " at offset ");
    CHECK_MSG(rc < 0, "%s at %zu was accepted", what, at);
    CHECK_MSG(strstr(err, path) && o && sscanf(o, " at offset %llu", &off) == 1 && off <= size,
              "%s at %zu: message '%s'", what, at, err);
    ks_free(ks);
}

static void test_corrupt(void)
{
    size_t mem0 = mem_used();
    char good[300], bad[300], err[512];
    path_of(good, sizeof(good), "good.rbkv");
    path_of(bad, sizeof(bad), "bad.rbkv");

    struct keyspace *a = ks_new(DBS);
    add_string(&a->dbs[0], "a", 1, "1", 1, -1);
    add_string(&a->dbs[0], "b\0", 2, "two", 3, FAR_FUTURE_MS);
    add_zset(&a->dbs[2], "z", 1, 3, -1);
    add_map(&a->dbs[2], "zh", 2, KS_HASH, make_map(1, 3, 0, 4), -1);
    add_map(&a->dbs[2], "zs", 2, KS_SET, make_map(0, 2, 0, 0), FAR_FUTURE_MS);
    add_map(&a->dbs[2], "zt", 2, KS_SET, make_map(0, 3, 1, 0), -1);
    add_map(&a->dbs[2], "zu", 2, KS_LIST, make_list(4, 0), -1);
    add_string(&a->dbs[15], "last", 4, "v", 1, -1);
    CHECK_MSG(snap_save(a, good, 1000, err, sizeof(err)) == 0, "%s", err);
    ks_free(a);

    unsigned char buf[4096];
    FILE *f = fopen(good, "rb");
    size_t size = f ? fread(buf, 1, sizeof(buf), f) : 0;
    if (f)
        fclose(f);
    CHECK_MSG(size > 20 && size < sizeof(buf), "small file: %zu bytes", size);

    for (size_t i = 0; i < size; i++) {
        for (unsigned flip = 0x01; flip <= 0x80; flip <<= 7) {
            buf[i] ^= (unsigned char)flip;
            write_file(bad, buf, size);
            expect_refused(bad, size, "flipped byte", i);
            buf[i] ^= (unsigned char)flip;
        }
    }
    for (size_t n = 0; n < size; n++) {
        write_file(bad, buf, n);
        expect_refused(bad, n, "truncated", n);
    }
    buf[size] = 0;
    write_file(bad, buf, size + 1);
    expect_refused(bad, size + 1, "trailing byte", size);

    /* The good file still loads: nothing above wrote to it. */
    a = load_or_null(good, err, sizeof(err));
    CHECK_MSG(a && ks_count(&a->dbs[15]) == 1, "good file: %s", err);
    ks_free(a);
    unlink(good);
    unlink(bad);
    CHECK_MSG(mem_used() == mem0, "leak: %zu bytes", mem_used() - mem0);
}

/* A save that cannot finish leaves the previous file as it was and no temp
 * file behind. */
static void test_save_errors(void)
{
    char path[300], err[512], tmp[300];
    struct stat st;
    int absent;
    struct keyspace *a = ks_new(DBS);
    add_string(&a->dbs[0], "k", 1, "v", 1, -1);

    path_of(path, sizeof(path), "no/such/dir/x.rbkv");
    CHECK_MSG(snap_save(a, path, 1000, err, sizeof(err)) < 0, "save into a missing dir");

    /* The target is a non-empty directory: rename fails even for root. */
    path_of(path, sizeof(path), "isdir.rbkv");
    path_of(tmp, sizeof(tmp), "isdir.rbkv/inner");
    mkdir(path, 0755);
    write_file(tmp, (const unsigned char *)"x", 1);
    CHECK_MSG(snap_save(a, path, 1000, err, sizeof(err)) < 0, "save onto a directory");
    CHECK_MSG(strstr(err, path) != NULL, "message names the file: %s", err);
    snap_temp_name(tmp, sizeof(tmp), path, (long)getpid());
    CHECK_MSG(stat(tmp, &st) < 0, "temp file %s left behind", tmp);
    path_of(tmp, sizeof(tmp), "isdir.rbkv/inner");
    unlink(tmp);
    rmdir(path);

    path_of(path, sizeof(path), "absent.rbkv");
    struct keyspace *b = ks_new(DBS);
    CHECK_MSG(snap_load(b, path, &limits, &absent, err, sizeof(err)) == 0 && absent, "absent file");
    ks_free(b);
    ks_free(a);
}

int main(int argc, char **argv)
{
    const char *tmpdir = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/rbkv-snap-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    check_tmpdir(dir);
    commands_register();
    static const struct {
        const char *name;
        void (*fn)(void);
    } parts[] = {{"crc", test_crc},
                 {"bulk", test_bulk},
                 {"roundtrip", test_roundtrip},
                 {"maps", test_maps},
                 {"lists", test_lists},
                 {"badmaps", test_badmaps},
                 {"corrupt", test_corrupt},
                 {"save", test_save_errors},
                 {"repl", test_repl_position},
                 {"functions", test_functions}};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        int run = argc < 2;
        for (int j = 1; j < argc; j++)
            run |= !strcmp(argv[j], parts[i].name);
        if (run)
            parts[i].fn();
    }
    printf("ok\n");
    return 0;
}
