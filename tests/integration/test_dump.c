/*
 * test_dump.c - end-to-end tests of DUMP and RESTORE (server/commands/
 * cmd_dump.c, server/persist/rdb_*.c) against redis-server 7.0 side by side:
 *  - random values of every type and size (small ones Redis keeps as
 *    listpack or intset, big ones as quicklist, hashtable or skiplist;
 *    strings as integers, LZF-compressed and raw; list elements past
 *    DEBUG QUICKLIST-PACKED-THRESHOLD, so quicklist's PLAIN nodes too) are
 *    written on Redis, DUMPed there, RESTOREd here and compared; then the
 *    reverse: written here, DUMPed here, RESTOREd on Redis, compared;
 *  - payloads of the encodings Redis 7.0 reads but no longer writes
 *    (ziplist, zipmap, quicklist 1, the old ZSET's text scores), built
 *    here, restored on both, compared;
 *  - the errors, compared with Redis's byte for byte: a flipped byte, a
 *    later version, a body that is wrong under a right checksum (a
 *    module's value among them), BUSYKEY, the TTL, IDLETIME and FREQ
 *    checks; sanitize-dump-payload yes refusing a listpack with a
 *    duplicate field that no accepts (streams: test_dump_stream.c);
 *  - the "restore" event, and what the append-only log gets (RESTORE with
 *    an absolute TTL and ABSTTL, or DEL), replayed by a restart.
 * SEED=<n> replays the random values. Without redis-server the comparisons
 * are skipped unless the reference is required.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "rng.h"

#define RDB_VERSION 10
#define MAX_ELEMS 700   /* past every packed limit (512 intset, 128 listpack) */
#define ELEM_CAP 300    /* longest random element */
#define PLAIN_THRESHOLD "150" /* bytes: list elements over it go in PLAIN nodes */

static struct h_server srv, ref;
static uint64_t rng;

static uint64_t next(void)
{
    return rng_next(&rng);
}

/* Sets the trailer of a payload whose value is buf[0, body): version then
 * CRC. Returns the payload's length. */
static size_t seal(unsigned char *buf, size_t body, unsigned version)
{
    buf[body] = (unsigned char)version;
    buf[body + 1] = (unsigned char)(version >> 8);
    uint64_t crc = h_crc64(buf, body + 2);
    for (int i = 0; i < 8; i++)
        buf[body + 2 + i] = (unsigned char)(crc >> (8 * i));
    return body + 10;
}

/* ---- random values ---- */

struct elem {
    size_t len;
    char p[ELEM_CAP];
};

/* One random element: an integer (Redis's int encodings), a short word, a
 * long repetitive run (LZF), or random bytes. */
static void random_elem(struct elem *e, int big)
{
    switch (next() % 5) {
    case 0:
        e->len = (size_t)snprintf(e->p, sizeof(e->p), "%lld",
                                  (long long)(next() % 2000) - 1000);
        break;
    case 1:
        e->len = (size_t)snprintf(e->p, sizeof(e->p), "%lld", (long long)next());
        break;
    case 2:
        e->len = 1 + next() % 12;
        for (size_t i = 0; i < e->len; i++)
            e->p[i] = (char)('a' + next() % 26);
        break;
    case 3:
        e->len = 30 + next() % (big ? ELEM_CAP - 30 : 40);
        memset(e->p, 'x', e->len);
        e->p[0] = (char)('a' + next() % 26);
        break;
    default:
        e->len = next() % (big ? ELEM_CAP : 60);
        for (size_t i = 0; i < e->len; i++)
            e->p[i] = (char)next();
        break;
    }
}

enum vtype { V_STRING, V_LIST, V_SET, V_INTSET, V_HASH, V_ZSET, V_TYPES };

/* Writes one random value of type t at key on every context given (NULL
 * ones skipped), the same on each. */
static void write_random(redisContext *const *cs, int ncs, const char *key, enum vtype t)
{
    int big = next() % 3 == 0;
    size_t n = big ? 100 + next() % (MAX_ELEMS - 100) : 1 + next() % 10;
    static struct elem el[MAX_ELEMS * 2];
    static const char *argv[MAX_ELEMS * 3 + 2];
    static size_t lens[MAX_ELEMS * 3 + 2];
    static char scores[MAX_ELEMS][32];
    int argc = 2;
    argv[1] = key;
    lens[1] = strlen(key);
    switch (t) {
    case V_STRING:
        argv[0] = "SET";
        random_elem(&el[0], big);
        argv[argc] = el[0].p;
        lens[argc++] = el[0].len;
        break;
    case V_LIST:
    case V_SET:
        argv[0] = t == V_LIST ? "RPUSH" : "SADD";
        for (size_t i = 0; i < n; i++) {
            random_elem(&el[i], big);
            argv[argc] = el[i].p;
            lens[argc++] = el[i].len;
        }
        break;
    case V_INTSET:
        argv[0] = "SADD";
        for (size_t i = 0; i < n; i++) {
            long long v = (long long)next() >> (next() % 60);
            el[i].len = (size_t)snprintf(el[i].p, sizeof(el[i].p), "%lld", v);
            argv[argc] = el[i].p;
            lens[argc++] = el[i].len;
        }
        break;
    case V_HASH:
        argv[0] = "HSET";
        for (size_t i = 0; i < 2 * n; i++) {
            random_elem(&el[i], big);
            argv[argc] = el[i].p;
            lens[argc++] = el[i].len;
        }
        break;
    default:
        argv[0] = "ZADD";
        for (size_t i = 0; i < n; i++) {
            switch (next() % 4) {
            case 0:
                snprintf(scores[i], sizeof(scores[i]), "%d", (int)(next() % 100) - 50);
                break;
            case 1:
                snprintf(scores[i], sizeof(scores[i]), "%.17g",
                         (double)(int64_t)next() / (double)(1 + next() % 1000000));
                break;
            case 2:
                snprintf(scores[i], sizeof(scores[i]), "%s", next() % 2 ? "inf" : "-inf");
                break;
            default:
                snprintf(scores[i], sizeof(scores[i]), "0.%llu",
                         (unsigned long long)(next() % 1000));
                break;
            }
            random_elem(&el[i], big);
            argv[argc] = scores[i];
            lens[argc++] = strlen(scores[i]);
            argv[argc] = el[i].p;
            lens[argc++] = el[i].len;
        }
        break;
    }
    lens[0] = strlen(argv[0]);
    for (int i = 0; i < ncs; i++) {
        if (!cs[i])
            continue;
        redisReply *r = h_command(cs[i], argc, argv, lens);
        CHECK(r && r->type != REDIS_REPLY_ERROR, "%s %s: %s", argv[0], key,
              r && r->str ? r->str : "(no reply)");
        freeReplyObject(r);
    }
}

/* ---- comparing ---- */

static int str_cmp(const redisReply *x, const redisReply *y)
{
    size_t n = x->len < y->len ? x->len : y->len;
    int r = n ? memcmp(x->str, y->str, n) : 0;
    return r ? r : (x->len > y->len) - (x->len < y->len);
}

static int elem_cmp(const void *a, const void *b)
{
    return str_cmp(*(redisReply *const *)a, *(redisReply *const *)b);
}

/* Pairs (field, value) compared by field. */
static int pair_cmp(const void *a, const void *b)
{
    return str_cmp(((redisReply *const *)a)[0], ((redisReply *const *)b)[0]);
}

/* An array reply's elements in byte order, in place: one by one, or in
 * pairs by the first of each. */
static void sort_reply(redisReply *r, int pairs)
{
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements < 2)
        return;
    if (pairs)
        qsort(r->element, r->elements / 2, 2 * sizeof(*r->element), pair_cmp);
    else
        qsort(r->element, r->elements, sizeof(*r->element), elem_cmp);
}

/* Whether two ZRANGE WITHSCORES replies hold the same members in the same
 * order with the same scores as doubles: Redis 7.0 writes a score with
 * %.17g, rbkv with the shortest text that reads back the same. */
static int same_scored(const redisReply *a, const redisReply *b)
{
    if (!a || !b || a->type != REDIS_REPLY_ARRAY || b->type != REDIS_REPLY_ARRAY ||
        a->elements != b->elements)
        return 0;
    for (size_t i = 0; i < a->elements; i++) {
        const redisReply *x = a->element[i], *y = b->element[i];
        if (i % 2 == 0 ? !h_reply_equal(x, y) : strtod(x->str, NULL) != strtod(y->str, NULL))
            return 0;
    }
    return 1;
}

/* Whether key holds the same value on a and b: type, then contents (sets
 * and hashes sorted, since Redis's order is its hash table's). */
static int same_value(redisContext *a, redisContext *b, const char *key)
{
    redisReply *ta = H_CALL(a, "TYPE", key), *tb = H_CALL(b, "TYPE", key);
    int ok = ta && tb && h_reply_equal(ta, tb);
    char type[16] = "";
    if (ok)
        snprintf(type, sizeof(type), "%s", ta->str);
    CHECK(ok, "TYPE %s: %s vs %s", key, ta && ta->str ? ta->str : "?", tb && tb->str ? tb->str : "?");
    freeReplyObject(ta);
    freeReplyObject(tb);
    if (!ok)
        return 0;
    const char *argv[6] = {NULL, key, "0", "-1", "WITHSCORES"};
    int argc = 2, sorted = 0, pairs = 0;
    if (strcmp(type, "string") == 0) {
        argv[0] = "GET";
    } else if (strcmp(type, "list") == 0) {
        argv[0] = "LRANGE";
        argc = 4;
    } else if (strcmp(type, "set") == 0) {
        argv[0] = "SMEMBERS";
        sorted = 1;
    } else if (strcmp(type, "hash") == 0) {
        argv[0] = "HGETALL";
        sorted = pairs = 1;
    } else {
        argv[0] = "ZRANGE";
        argc = 5;
    }
    redisReply *ra = h_command(a, argc, argv, NULL), *rb = h_command(b, argc, argv, NULL);
    if (sorted) {
        sort_reply(ra, pairs);
        sort_reply(rb, pairs);
    }
    ok = ra && rb && ra->type != REDIS_REPLY_ERROR && h_reply_equal(ra, rb);
    if (!ok && !sorted && argc == 5)
        ok = same_scored(ra, rb);
    if (!ok) {
        char x[256] = "?", y[256] = "?";
        size_t i = 0;
        if (ra && rb && ra->type == REDIS_REPLY_ARRAY && rb->type == REDIS_REPLY_ARRAY) {
            while (i < ra->elements && i < rb->elements &&
                   h_reply_equal(ra->element[i], rb->element[i]))
                i++;
            if (i < ra->elements)
                h_repr(ra->element[i], x, sizeof(x));
            if (i < rb->elements)
                h_repr(rb->element[i], y, sizeof(y));
        }
        CHECK(0, "%s %s differs (%zu vs %zu elements), first at %zu: %s vs %s", argv[0], key,
              ra ? ra->elements : 0, rb ? rb->elements : 0, i, x, y);
    }
    freeReplyObject(ra);
    freeReplyObject(rb);
    return ok;
}

/* Closes what a test opened; c and r may be NULL. */
static void finish(redisContext *c, redisContext *r)
{
    if (c)
        redisFree(c);
    if (r) {
        redisFree(r);
        h_stop(&ref);
    }
}

/* The reference with DEBUG allowed (for the PLAIN-node threshold); NULL
 * when there is none to compare with. */
static redisContext *start_ref(void)
{
    if (h_is_reference())
        return NULL;
    int rc = h_start_reference(&ref, H_FLAGS("--enable-debug-command", "yes"));
    if (rc != 0) {
        if (rc > 0)
            printf("  skipped: no redis-server to compare with\n");
        return NULL;
    }
    return h_connect(&ref);
}

/* Random values of every type, both ways. */
static void test_random_both_ways(void)
{
    redisContext *r = start_ref(), *c = h_connect_flushed(&srv);
    if (!c || !r)
        goto out;
    rng = h_seed();
    freeReplyObject(H_CALL(r, "DEBUG", "QUICKLIST-PACKED-THRESHOLD", PLAIN_THRESHOLD));
    int rounds = 120 / H_SLOW + V_TYPES;
    for (int i = 0; i < rounds; i++) {
        char key[32];
        enum vtype t = (enum vtype)(i % V_TYPES);
        snprintf(key, sizeof(key), "r%d", i);
        redisContext *on_ref[] = {r}, *on_srv[] = {c};
        /* Redis -> rbkv */
        write_random(on_ref, 1, key, t);
        if (h_move_key(r, c, key, i % 4 == 0 ? "100000" : "0") && !same_value(r, c, key))
            printf("  (Redis -> rbkv, type %d, round %d)\n", (int)t, i);
        if (i % 4 == 0)
            EXPECT_INT_RANGE(c, 1, 100000, "PTTL", key);
        /* rbkv -> Redis */
        snprintf(key, sizeof(key), "s%d", i);
        write_random(on_srv, 1, key, t);
        if (h_move_key(c, r, key, "0") && !same_value(c, r, key))
            printf("  (rbkv -> Redis, type %d, round %d)\n", (int)t, i);
    }
    /* A payload travels back unchanged in meaning: rbkv's own DUMP restores
     * here too, and OBJECT ENCODING on Redis shows it rebuilt the compact
     * encodings from rbkv's plain forms. */
    freeReplyObject(H_CALL(c, "HSET", "small", "a", "1", "b", "2"));
    h_move_key(c, r, "small", "0");
    EXPECT_BULK(r, "listpack", "OBJECT", "ENCODING", "small");
    freeReplyObject(H_CALL(c, "SADD", "ints", "1", "2", "3"));
    h_move_key(c, r, "ints", "0");
    EXPECT_BULK(r, "intset", "OBJECT", "ENCODING", "ints");
    freeReplyObject(H_CALL(c, "ZADD", "z", "1", "a"));
    h_move_key(c, r, "z", "0");
    EXPECT_BULK(r, "listpack", "OBJECT", "ENCODING", "z");
out:
    finish(c, r);
}

/* ---- old encodings, built here ---- */

struct buf {
    unsigned char b[4096];
    size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
    memcpy(b->b + b->n, p, n);
    b->n += n;
}

static void put_byte(struct buf *b, unsigned v)
{
    b->b[b->n++] = (unsigned char)v;
}

/* An RDB string of n < 64 bytes. */
static void put_str(struct buf *b, const char *s)
{
    put_byte(b, (unsigned)strlen(s));
    put(b, s, strlen(s));
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A ziplist of short strings, as an RDB string. */
static void put_ziplist(struct buf *b, const char *const *el, int n)
{
    struct buf z = {.n = 10};
    size_t prev = 0, last = 10;
    for (int i = 0; i < n; i++) {
        last = z.n;
        size_t len = strlen(el[i]);
        put_byte(&z, (unsigned)prev);
        put_byte(&z, (unsigned)len); /* 00pppppp */
        put(&z, el[i], len);
        prev = 2 + len;
    }
    put_byte(&z, 0xff);
    put_le(z.b, z.n, 4);
    put_le(z.b + 4, last, 4);
    put_le(z.b + 8, (uint64_t)n, 2);
    put_byte(b, (unsigned)z.n);
    put(b, z.b, z.n);
}

/* A zipmap of short fields and values (no free space), as an RDB string. */
static void put_zipmap(struct buf *b, const char *const *el, int n)
{
    struct buf z = {0};
    put_byte(&z, (unsigned)(n / 2));
    for (int i = 0; i < n; i += 2) {
        put_str(&z, el[i]);
        put_byte(&z, (unsigned)strlen(el[i + 1]));
        put_byte(&z, 0);
        put(&z, el[i + 1], strlen(el[i + 1]));
    }
    put_byte(&z, 0xff);
    put_byte(b, (unsigned)z.n);
    put(b, z.b, z.n);
}

/* RESTOREs the payload b (sealed here) as key on both and compares. */
static void restore_both(redisContext *c, redisContext *r, const char *key, struct buf *b,
                         const char *what)
{
    size_t n = seal(b->b, b->n, RDB_VERSION);
    const char *argv[] = {"RESTORE", key, "0", (const char *)b->b};
    size_t lens[] = {7, strlen(key), 1, n};
    redisReply *x = h_command(c, 4, argv, lens);
    CHECK(x && x->type == REDIS_REPLY_STATUS, "%s: %s", what, x && x->str ? x->str : "?");
    freeReplyObject(x);
    if (r) {
        x = h_command(r, 4, argv, lens);
        CHECK(x && x->type == REDIS_REPLY_STATUS, "%s on Redis: %s", what,
              x && x->str ? x->str : "?");
        freeReplyObject(x);
        same_value(c, r, key);
    }
}

static void same_restore(redisContext *c, redisContext *r, const char *key, const unsigned char *p,
                         size_t n, const char *extra);

static void test_old_encodings(void)
{
    redisContext *r = start_ref(), *c = h_connect_flushed(&srv);
    if (!c)
        goto out;
    static const char *const list[] = {"a", "bb", "", "ccc"};
    static const char *const pairs[] = {"f1", "v1", "f2", "", "f3", "v3"};
    /* In score order, as Redis keeps a packed sorted set (it does not sort one it loads). */
    static const char *const zpairs[] = {"m2", "-3", "m1", "1.5", "m3", "10"};
    struct buf b = {0};

    put_byte(&b, 10); /* LIST_ZIPLIST */
    put_ziplist(&b, list, 4);
    restore_both(c, r, "ziplist-list", &b, "list as a ziplist");
    EXPECT_REPLY(c, "['a', 'bb', '', 'ccc']", "LRANGE", "ziplist-list", "0", "-1");

    b.n = 0;
    put_byte(&b, 14); /* LIST_QUICKLIST: nodes of ziplists */
    put_byte(&b, 2);
    put_ziplist(&b, list, 4);
    put_ziplist(&b, list, 2);
    restore_both(c, r, "quicklist1", &b, "quicklist 1");
    EXPECT_INT(c, 6, "LLEN", "quicklist1");

    b.n = 0;
    put_byte(&b, 9); /* HASH_ZIPMAP */
    put_zipmap(&b, pairs, 6);
    restore_both(c, r, "zipmap", &b, "hash as a zipmap");
    EXPECT_BULK(c, "v3", "HGET", "zipmap", "f3");

    b.n = 0;
    put_byte(&b, 13); /* HASH_ZIPLIST */
    put_ziplist(&b, pairs, 6);
    restore_both(c, r, "ziplist-hash", &b, "hash as a ziplist");

    /* A field twice in a ziplist or zipmap: refused even without deep
     * sanitization (sanitize-dump-payload is no here), as Redis refuses it. */
    static const char *const dup_pairs[] = {"f1", "v1", "f1", "v2"};
    b.n = 0;
    put_byte(&b, 13);
    put_ziplist(&b, dup_pairs, 4);
    same_restore(c, r, "dup-ziplist", b.b, seal(b.b, b.n, RDB_VERSION), NULL);
    b.n = 0;
    put_byte(&b, 9);
    put_zipmap(&b, dup_pairs, 4);
    same_restore(c, r, "dup-zipmap", b.b, seal(b.b, b.n, RDB_VERSION), NULL);

    b.n = 0;
    put_byte(&b, 12); /* ZSET_ZIPLIST */
    put_ziplist(&b, zpairs, 6);
    restore_both(c, r, "ziplist-zset", &b, "sorted set as a ziplist");
    EXPECT_REPLY(c, "['m2', '-3', 'm1', '1.5', 'm3', '10']", "ZRANGE", "ziplist-zset", "0", "-1",
                 "WITHSCORES");

    b.n = 0;
    put_byte(&b, 3); /* ZSET: scores as text, 254 +inf, 255 -inf */
    put_byte(&b, 3);
    put_str(&b, "x");
    put_str(&b, "2.25");
    put_str(&b, "y");
    put_byte(&b, 254);
    put_str(&b, "z");
    put_byte(&b, 255);
    restore_both(c, r, "oldzset", &b, "old ZSET");
    EXPECT_REPLY(c, "['z', '-inf', 'x', '2.25', 'y', 'inf']", "ZRANGE", "oldzset", "0", "-1",
                 "WITHSCORES");

    b.n = 0;
    put_byte(&b, 0); /* STRING, LZF: 5 bytes for 20: a literal 'a', then 19 at distance 1 */
    static const unsigned char lzf[] = {0xc3, 5, 20, 0x00, 'a', 0xe0, 0x0a, 0x00};
    put(&b, lzf, sizeof(lzf));
    restore_both(c, r, "lzf", &b, "LZF string");
    EXPECT_BULK(c, "aaaaaaaaaaaaaaaaaaaa", "GET", "lzf");
out:
    finish(c, r);
}

/* ---- errors ---- */

/* RESTORE key 0 payload[0, n) on both, replies compared. */
static void same_restore(redisContext *c, redisContext *r, const char *key, const unsigned char *p,
                         size_t n, const char *extra)
{
    const char *argv[] = {"RESTORE", key, "0", (const char *)p, extra};
    size_t lens[] = {7, strlen(key), 1, n, extra ? strlen(extra) : 0};
    h_same(__FILE__, __LINE__, c, r, extra ? 5 : 4, argv, lens);
}

static void test_errors(void)
{
    redisReply *d = NULL;
    redisContext *r = start_ref(), *c = h_connect_flushed(&srv);
    if (!c)
        goto out;
    freeReplyObject(H_CALL(c, "RPUSH", "src", "a", "b", "c"));
    if (r)
        freeReplyObject(H_CALL(r, "RPUSH", "src", "a", "b", "c"));
    d = H_CALL(r ? r : c, "DUMP", "src");
    if (!CHECK(d && d->type == REDIS_REPLY_STRING && d->len > 10, "DUMP src"))
        goto out;
    unsigned char p[512];
    size_t n = d->len;
    memcpy(p, d->str, n);

    H_SAME(c, r, "DUMP", "nosuchkey");
    H_SAME(c, r, "RESTORE", "src", "0", "x");                   /* BUSYKEY before the payload */
    H_SAME(c, r, "RESTORE", "k", "-1", "x");
    H_SAME(c, r, "RESTORE", "k", "abc", "x");
    H_SAME(c, r, "RESTORE", "k", "0", "x");                     /* too short */
    H_SAME(c, r, "RESTORE", "k", "0", "x", "IDLETIME", "-1");
    H_SAME(c, r, "RESTORE", "k", "0", "x", "FREQ", "256");
    H_SAME(c, r, "RESTORE", "k", "0", "x", "FREQ", "1", "IDLETIME", "1");
    H_SAME(c, r, "RESTORE", "k", "0", "x", "IDLETIME", "x");
    H_SAME(c, r, "RESTORE", "k", "0", "x", "BOGUS");
    H_SAME(c, r, "RESTORE", "k", "0", "x", "IDLETIME");
    H_SAME(c, r, "RESTORE", "k");

    unsigned char q[512];
    for (size_t i = 0; i < n; i += 3) { /* a flipped byte anywhere: the checksum */
        memcpy(q, p, n);
        q[i] ^= 0x20;
        same_restore(c, r, "k", q, n, NULL);
    }
    memcpy(q, p, n);
    size_t m = seal(q, n - 10, RDB_VERSION + 1); /* a later version */
    same_restore(c, r, "k", q, m, NULL);
    m = seal(q, n - 10, 9); /* an earlier one reads */
    same_restore(c, r, "k9", q, m, NULL);
    /* Right checksums over wrong bodies: Bad data format. */
    for (size_t cut = 0; cut < n - 10; cut++) {
        memcpy(q, p, n);
        m = seal(q, cut, RDB_VERSION);
        same_restore(c, r, "k", q, m, NULL);
    }
    static const struct {
        unsigned char b[8];
        size_t n;
    } bodies[] = {
        {{1, 0}, 2},                      /* an empty list */
        {{2, 2, 1, 'a', 1, 'a'}, 6},      /* a set with a member twice */
        {{4, 1, 1, 'f'}, 4},              /* a hash field without its value */
        {{5, 1, 1, 'm', 0, 0, 0, 0}, 8},  /* a score cut short */
        {{99}, 1},                        /* no such type */
        {{11, 4, 2, 0, 0, 0}, 6},         /* an intset cut short */
        {{7, 1, 2, 3, 4, 5, 6, 7}, 8},    /* a module's value, no such module */
    };
    for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        memcpy(q, bodies[i].b, bodies[i].n);
        m = seal(q, bodies[i].n, RDB_VERSION);
        same_restore(c, r, "k", q, m, NULL);
    }
    /* A listpack hash with a field twice: sanitize-dump-payload yes
     * refuses it, no lets it in. */
    freeReplyObject(H_CALL(r ? r : c, "HSET", "h", "aa", "1", "ab", "2"));
    redisReply *h = H_CALL(r ? r : c, "DUMP", "h");
    if (CHECK(h && h->type == REDIS_REPLY_STRING && h->len < sizeof(q), "DUMP h") && r) {
        memcpy(q, h->str, h->len);
        unsigned char *ab = NULL;
        for (size_t i = 0; i + 1 < h->len && !ab; i++)
            if (q[i] == 'a' && q[i + 1] == 'b')
                ab = q + i;
        if (CHECK(ab, "a listpack with 'ab'")) {
            ab[1] = 'a';
            m = seal(q, h->len - 10, RDB_VERSION);
            H_SAME(c, r, "CONFIG", "SET", "sanitize-dump-payload", "yes");
            same_restore(c, r, "dup", q, m, NULL);
            H_SAME(c, r, "CONFIG", "SET", "sanitize-dump-payload", "no");
            same_restore(c, r, "dup", q, m, NULL);
            /* Redis keeps both in its listpack; rbkv keeps the first. */
            EXPECT_INT(c, 1, "HLEN", "dup");
        }
    }
    freeReplyObject(h);
    /* REPLACE, ABSTTL, an expired deadline. */
    same_restore(c, r, "src", p, n, "REPLACE");
    H_SAME(c, r, "LRANGE", "src", "0", "-1");
    const char *argv[] = {"RESTORE", "gone", "1", (const char *)p, "ABSTTL"};
    size_t lens[] = {7, 4, 1, n, 6};
    h_same(__FILE__, __LINE__, c, r, 5, argv, lens);
    H_SAME(c, r, "EXISTS", "gone");
    const char *argv2[] = {"RESTORE", "idle", "0", (const char *)p, "IDLETIME", "1000"};
    size_t lens2[] = {7, 4, 1, n, 8, 4};
    h_same(__FILE__, __LINE__, c, r, 6, argv2, lens2);
    EXPECT_INT_RANGE(c, 1000, 1010, "OBJECT", "IDLETIME", "idle");
    /* FREQ counts under an LFU policy, IDLETIME is then ignored. */
    H_SAME(c, r, "CONFIG", "SET", "maxmemory-policy", "allkeys-lfu");
    same_restore(c, r, "freq", p, n, "REPLACE");
    const char *argv3[] = {"RESTORE", "freq", "0", (const char *)p, "REPLACE", "FREQ", "100"};
    size_t lens3[] = {7, 4, 1, n, 7, 4, 3};
    h_same(__FILE__, __LINE__, c, r, 7, argv3, lens3);
    H_SAME(c, r, "OBJECT", "FREQ", "freq");
    H_SAME(c, r, "CONFIG", "SET", "maxmemory-policy", "noeviction");
out:
    freeReplyObject(d);
    finish(c, r);
}

/* RESTORE fires "restore" (and "new", which "A" leaves out). */
static void test_events(void)
{
    redisContext *c = h_connect_flushed(&srv), *sub = h_connect(&srv);
    if (!c || !sub)
        goto out;
    EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "KEA");
    EXPECT_OK(c, "SET", "s", "v");
    redisReply *d = H_CALL(c, "DUMP", "s");
    freeReplyObject(H_CALL(sub, "PSUBSCRIBE", "__keyevent@0__:*"));
    const char *argv[] = {"RESTORE", "t", "0", d->str};
    size_t lens[] = {7, 1, 1, d->len};
    freeReplyObject(h_command(c, 4, argv, lens));
    EXPECT_NEXT(sub, "['pmessage', '__keyevent@0__:*', '__keyevent@0__:restore', 't']");
    EXPECT_BULK(c, "v", "GET", "t");
    EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "");
    freeReplyObject(d);
out:
    if (c)
        redisFree(c);
    if (sub)
        redisFree(sub);
}

/* Whether the n bytes at p hold the text t. */
static int holds(const char *p, size_t n, const char *t)
{
    size_t tl = strlen(t);
    for (size_t i = 0; i + tl <= n; i++)
        if (memcmp(p + i, t, tl) == 0)
            return 1;
    return 0;
}

/* RESTORE goes to the append-only log as itself, a relative TTL as the
 * deadline with ABSTTL (so a replay ends at the same time), and one whose
 * deadline has passed under REPLACE as the DEL it amounted to; a restart
 * replays both. (The replicas get the same stream.) */
static void test_log(void)
{
    struct h_server s;
    if (h_is_reference() ||
        h_start(&s, H_FLAGS("--appendonly", "yes", "--appendfsync", "always")) < 0)
        return;
    redisContext *c = h_connect(&s);
    if (!c)
        goto out;
    EXPECT_OK(c, "SET", "src", "v");
    EXPECT_OK(c, "SET", "old", "x");
    redisReply *d = H_CALL(c, "DUMP", "src");
    if (!CHECK(d && d->type == REDIS_REPLY_STRING, "DUMP src")) {
        freeReplyObject(d);
        goto out;
    }
    const char *a1[] = {"RESTORE", "t", "100000", d->str};
    size_t l1[] = {7, 1, 6, d->len};
    freeReplyObject(h_command(c, 4, a1, l1));
    const char *a2[] = {"RESTORE", "old", "1", d->str, "ABSTTL", "REPLACE"};
    size_t l2[] = {7, 3, 1, d->len, 6, 7};
    freeReplyObject(h_command(c, 6, a2, l2));
    freeReplyObject(d);
    EXPECT_INT(c, 0, "EXISTS", "old");
    char path[512];
    size_t len;
    h_path_in(&s, "appendonly.aof", path, sizeof(path));
    char *log = h_read_file(path, &len);
    CHECK(log && holds(log, len, "$7\r\nRESTORE\r\n$1\r\nt\r\n$13\r\n1") &&
              holds(log, len, "$6\r\nABSTTL\r\n"),
          "RESTORE t with an absolute deadline and ABSTTL in the log");
    CHECK(log && holds(log, len, "*2\r\n$3\r\nDEL\r\n$3\r\nold\r\n"), "DEL old in the log");
    free(log);
    redisFree(c);
    c = h_reopen(&s, H_FLAGS("--appendonly", "yes"));
    if (!c)
        goto out;
    EXPECT_BULK(c, "v", "GET", "t");
    EXPECT_INT_RANGE(c, 1, 100000, "PTTL", "t");
    EXPECT_INT(c, 0, "EXISTS", "old");
out:
    if (c)
        redisFree(c);
    h_stop(&s);
}

/* rdbcompression: a string over 20 bytes is LZF-compressed when that
 * saves 4 bytes, in DUMP as in Redis, and redis-server restores it; "no"
 * writes it raw. */
static void test_compression(void)
{
    redisContext *r = start_ref(), *c = h_connect_flushed(&srv);
    if (!c)
        goto out;
    static const char *const values[] = {
        "aaaaaaaaaaaaaaaaaaaa",  /* 20 bytes: never compressed */
        "aaaaaaaaaaaaaaaaaaaaa", /* 21: compressed */
        "0123456789abcdefghijklmnopqrstuv", /* nothing repeats: raw */
    };
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        H_SAME(c, r, "SET", "v", values[i]);
        H_SAME(c, r, "DUMP", "v");
    }
    char run[301];
    memset(run, 'x', 300);
    run[300] = '\0';
    EXPECT_OK(c, "SET", "run", run);
    redisReply *d = H_CALL(c, "DUMP", "run");
    CHECK(d && d->type == REDIS_REPLY_STRING && d->len < 40 && (unsigned char)d->str[1] == 0xc3,
          "DUMP of 300 x's: LZF (%zu bytes)", d ? d->len : 0);
    freeReplyObject(d);
    if (r && h_move_key(c, r, "run", "0"))
        H_SAME(c, r, "GET", "run");
    H_SAME(c, r, "CONFIG", "SET", "rdbcompression", "no");
    d = H_CALL(c, "DUMP", "run");
    CHECK(d && d->type == REDIS_REPLY_STRING && d->len == 1 + 2 + 300 + 10,
          "DUMP of 300 x's under rdbcompression no: raw (%zu bytes)", d ? d->len : 0);
    freeReplyObject(d);
    if (r) {
        freeReplyObject(H_CALL(r, "DEL", "run"));
        if (h_move_key(c, r, "run", "0"))
            H_SAME(c, r, "GET", "run");
    }
    H_SAME(c, r, "CONFIG", "SET", "rdbcompression", "yes");
out:
    finish(c, r);
}

/* A string that is the canonical text of an integer fitting 32 bits is
 * written as Redis writes it (RDB_ENC_INT8/16/32, rdbTryIntegerEncoding):
 * each boundary, and the texts that look like integers but are not
 * canonical (leading zero, "-0", a sign, a space) or do not fit, give
 * redis-server's payload byte for byte, and restore there. */
static void test_integer_strings(void)
{
    redisContext *r = start_ref(), *c = h_connect_flushed(&srv);
    if (!c)
        goto out;
    static const char *const values[] = {
        "0", "1", "-1", "127", "-128", "128", "-129", "32767", "-32768", "32768", "-32769",
        "2147483647", "-2147483648", "2147483648", "-2147483649", "12345678901", "007", "-0",
        "+1", "1 ", " 1", "", "9223372036854775807",
    };
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        EXPECT_OK(c, "SET", "v", values[i]);
        if (r)
            EXPECT_OK(r, "SET", "v", values[i]);
        H_SAME(c, r, "DUMP", "v");
    }
    /* Without the reference too: the type byte, then the encoding byte and
     * the integer's little-endian bytes, then version and CRC. */
    static const struct {
        const char *text;
        unsigned char enc;
        size_t n;
    } enc[] = {{"-128", 0xc0, 1}, {"-32768", 0xc1, 2}, {"-2147483648", 0xc2, 4}};
    for (size_t i = 0; i < sizeof(enc) / sizeof(enc[0]); i++) {
        EXPECT_OK(c, "SET", "v", enc[i].text);
        redisReply *d = H_CALL(c, "DUMP", "v");
        CHECK(d && d->type == REDIS_REPLY_STRING && d->len == 1 + 1 + enc[i].n + 10 &&
                  d->str[0] == 0 && (unsigned char)d->str[1] == enc[i].enc &&
                  (unsigned char)d->str[1 + enc[i].n] == 0x80,
              "DUMP of %s: encoding %#x, %zu bytes", enc[i].text, enc[i].enc, d ? d->len : 0);
        freeReplyObject(d);
        if (!r)
            continue;
        freeReplyObject(H_CALL(r, "DEL", "v"));
        if (h_move_key(c, r, "v", "0"))
            H_SAME(c, r, "GET", "v");
    }
out:
    finish(c, r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_errors);
    H_RUN(test_events);
    H_RUN(test_old_encodings);
    H_RUN(test_random_both_ways);
    H_RUN(test_compression);
    H_RUN(test_integer_strings);
    h_stop(&srv);
    H_RUN(test_log);
    return h_finish();
}
