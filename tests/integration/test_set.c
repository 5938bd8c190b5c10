/*
 * test_set.c - end-to-end tests of the set commands (server/commands/cmd_set.c)
 * through hiredis and, for RESP3 shapes, raw sockets: SADD SREM SISMEMBER
 * SMISMEMBER SCARD SMEMBERS SRANDMEMBER SPOP SMOVE SINTER SINTERCARD
 * SINTERSTORE SUNION SUNIONSTORE SDIFF SDIFFSTORE SSCAN, their errors,
 * keyspace events, COMMAND INFO rows, SPOP's way into the append-only log
 * (as SREM/DEL, restart and compare) and a random differential test.
 *
 * One server for most of the file; each test FLUSHALLs first. Expected
 * replies are Redis 7.0's: the file passes against redis-server 7.0 too
 * (`test_integration_set /usr/bin/redis-server`), where Redis's arbitrary
 * member order is sorted before comparing (expect_sorted); the byte order
 * rbkv promises is checked only against rbkv.
 *
 * The differential test runs random SADD/SREM/SMOVE/S*STORE/SISMEMBER/
 * SCARD/SMEMBERS/S{INTER,UNION,DIFF}[CARD] over four keys and a string key
 * against a model (a set is a 64-bit mask over a fixed universe kept in byte
 * order), and against a redis-server started beside it (h_start_comparison:
 * skipped without one, unless the reference is required); it changes set-max-intset-entries and
 * set-max-listpack-entries to small values as it goes, so sets cross the
 * encodings both ways. SEED=<n> replays it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define BIG 3000 /* members of the large sets: past the packed encodings */

static struct h_server srv;

/* Adds members m00000..m<n-1> to key, pipelined. */
static void fill(redisContext *c, const char *key, int n, const char *prefix)
{
    char member[32];
    for (int i = 0; i < n; i++) {
        snprintf(member, sizeof(member), "%s%05d", prefix, i);
        H_APPEND(c, "SADD", key, member);
    }
    for (int i = 0; i < n; i++)
        freeReplyObject(h_get_reply(c));
}

static int elem_cmp(const void *a, const void *b)
{
    const redisReply *x = *(redisReply *const *)a, *y = *(redisReply *const *)b;
    size_t n = x->len < y->len ? x->len : y->len;
    int r = n ? memcmp(x->str, y->str, n) : 0;
    if (r)
        return r;
    return (x->len > y->len) - (x->len < y->len);
}

/* An array reply's string elements in byte order, in place. */
static void sort_reply(redisReply *r)
{
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements > 1)
        qsort(r->element, r->elements, sizeof(*r->element), elem_cmp);
}

/* Expects the reply, its members sorted, to read want (h_repr's form). */
static int expect_sorted(const char *file, int line, redisContext *c, const char *want, int argc,
                         const char *const *argv)
{
    char buf[8192];
    redisReply *r = h_command(c, argc, argv, NULL);
    sort_reply(r);
    if (r)
        h_repr(r, buf, sizeof(buf));
    int ok = h_check(file, line, r && strcmp(buf, want) == 0, "%s: expected %s, got %s", argv[0],
                     want, r ? buf : "(no reply)");
    freeReplyObject(r);
    return ok;
}
#define EXPECT_SORTED(c, want, ...)                                                               \
    expect_sorted(__FILE__, __LINE__, (c), (want), H_ARGC(__VA_ARGS__),                           \
                  (const char *const[]){__VA_ARGS__})

/* The members of an array reply, in byte order, as one string "a b c". */
static void members_of(redisContext *c, const char *key, char *out, size_t cap)
{
    redisReply *r = H_CALL(c, "SMEMBERS", key);
    size_t used = 0;
    out[0] = '\0';
    sort_reply(r);
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++)
        used += (size_t)snprintf(out + used, used < cap ? cap - used : 0, "%s%s", i ? " " : "",
                                 r->element[i]->str);
    freeReplyObject(r);
}

/* ---- SADD, SREM, lookups ------------------------------------------------ */

static void test_sadd_srem_lookups(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 3, "SADD", "s", "b", "a", "c");
    EXPECT_INT(c, 1, "SADD", "s", "a", "d", "d");
    EXPECT_INT(c, 0, "SADD", "s", "a");
    EXPECT_INT(c, 4, "SCARD", "s");
    EXPECT_INT(c, 0, "SCARD", "nokey");
    EXPECT_INT(c, 1, "SISMEMBER", "s", "a");
    EXPECT_INT(c, 0, "SISMEMBER", "s", "z");
    EXPECT_INT(c, 0, "SISMEMBER", "nokey", "a");
    EXPECT_REPLY(c, "[:1, :0, :1]", "SMISMEMBER", "s", "a", "z", "d");
    EXPECT_REPLY(c, "[:0, :0]", "SMISMEMBER", "nokey", "a", "b");
    EXPECT_SORTED(c, "['a', 'b', 'c', 'd']", "SMEMBERS", "s");
    EXPECT_REPLY(c, "[]", "SMEMBERS", "nokey");
    if (!h_is_reference())
        EXPECT_REPLY(c, "['a', 'b', 'c', 'd']", "SMEMBERS", "s"); /* byte order */
    EXPECT_STATUS(c, "set", "TYPE", "s");
    /* Binary-safe members: an empty one, one with a NUL. */
    EXPECT_BIN(c, ":2", H_S("SADD"), H_S("bin"), H_S(""), H_S("x\0y"));
    EXPECT_BIN(c, ":1", H_S("SISMEMBER"), H_S("bin"), H_S("x\0y"));
    EXPECT_BIN(c, ":0", H_S("SISMEMBER"), H_S("bin"), H_S("x"));
    EXPECT_BIN(c, ":1", H_S("SISMEMBER"), H_S("bin"), H_S(""));
    EXPECT_SORTED(c, "['', 'x\\x00y']", "SMEMBERS", "bin");
    /* Integers and strings mixed, either side of set-max-intset-entries. */
    EXPECT_INT(c, 3, "SADD", "ints", "10", "-3", "7");
    EXPECT_SORTED(c, "['-3', '10', '7']", "SMEMBERS", "ints");
    EXPECT_INT(c, 1, "SADD", "ints", "x");
    EXPECT_INT(c, 1, "SISMEMBER", "ints", "10");
    EXPECT_INT(c, 1, "SREM", "ints", "x");
    EXPECT_INT(c, 1, "SISMEMBER", "ints", "-3");

    EXPECT_INT(c, 2, "SREM", "s", "a", "z", "b", "a");
    EXPECT_INT(c, 0, "SREM", "s", "z");
    EXPECT_INT(c, 0, "SREM", "nokey", "z");
    EXPECT_INT(c, 2, "SREM", "s", "c", "d", "e");
    EXPECT_INT(c, 0, "EXISTS", "s"); /* the last member takes the key along */

    /* Errors: wrong type, arity; nothing created. */
    EXPECT_OK(c, "SET", "str", "x");
    const char *wt = "-WRONGTYPE Operation against a key holding the wrong kind of value";
    EXPECT_REPLY(c, wt, "SADD", "str", "a");
    EXPECT_REPLY(c, wt, "SREM", "str", "a");
    EXPECT_REPLY(c, wt, "SCARD", "str");
    EXPECT_REPLY(c, wt, "SISMEMBER", "str", "a");
    EXPECT_REPLY(c, wt, "SMISMEMBER", "str", "a");
    EXPECT_REPLY(c, wt, "SMEMBERS", "str");
    EXPECT_REPLY(c, wt, "SRANDMEMBER", "str");
    EXPECT_REPLY(c, wt, "SRANDMEMBER", "str", "3");
    EXPECT_REPLY(c, wt, "SPOP", "str");
    EXPECT_REPLY(c, wt, "SPOP", "str", "3");
    EXPECT_REPLY(c, wt, "SSCAN", "str", "0");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sadd' command", "SADD", "s");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'srem' command", "SREM", "s");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sismember' command", "SISMEMBER", "s");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sismember' command", "SISMEMBER", "s", "a",
               "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'smismember' command", "SMISMEMBER", "s");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'scard' command", "SCARD", "s", "t");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'smembers' command", "SMEMBERS");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'smove' command", "SMOVE", "a", "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sinter' command", "SINTER");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sinterstore' command", "SINTERSTORE", "d");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sintercard' command", "SINTERCARD", "1");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sscan' command", "SSCAN", "s");
    EXPECT_INT(c, 0, "EXISTS", "s");

    /* A large set: past every packed limit, and back below them. */
    fill(c, "big", BIG, "m");
    EXPECT_INT(c, BIG, "SCARD", "big");
    EXPECT_INT(c, 1, "SISMEMBER", "big", "m01234");
    EXPECT_INT(c, 0, "SISMEMBER", "big", "m01234x");
    redisReply *r = H_CALL(c, "SMEMBERS", "big");
    CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == BIG, "SMEMBERS big: %zu",
          r ? r->elements : 0);
    if (r && !h_is_reference() && r->elements == BIG) {
        int ordered = 1;
        for (size_t i = 1; i < r->elements; i++)
            ordered &= elem_cmp(&r->element[i - 1], &r->element[i]) < 0;
        CHECK(ordered, "SMEMBERS of a large set comes back in byte order");
    }
    freeReplyObject(r);
    for (int i = 0; i < BIG - 5; i++) {
        char m[16];
        snprintf(m, sizeof(m), "m%05d", i);
        H_APPEND(c, "SREM", "big", m);
    }
    for (int i = 0; i < BIG - 5; i++)
        freeReplyObject(h_get_reply(c));
    EXPECT_SORTED(c, "['m02995', 'm02996', 'm02997', 'm02998', 'm02999']", "SMEMBERS", "big");
    redisFree(c);
}

/* ---- SMOVE -------------------------------------------------------------- */

static void test_smove(void)
{
    redisContext *c = h_connect_flushed(&srv);
    const char *wt = "-WRONGTYPE Operation against a key holding the wrong kind of value";
    EXPECT_OK(c, "SET", "str", "x");
    EXPECT_INT(c, 2, "SADD", "s", "a", "b");
    EXPECT_INT(c, 0, "SMOVE", "nokey", "str", "a"); /* a missing source before any type check */
    EXPECT_REPLY(c, wt, "SMOVE", "str", "s", "a");
    EXPECT_REPLY(c, wt, "SMOVE", "s", "str", "a");
    EXPECT_INT(c, 1, "SMOVE", "s", "s", "a");
    EXPECT_INT(c, 0, "SMOVE", "s", "s", "z");
    EXPECT_INT(c, 0, "SMOVE", "s", "t", "z");
    EXPECT_INT(c, 0, "EXISTS", "t"); /* nothing moved, nothing created */
    EXPECT_INT(c, 1, "SMOVE", "s", "t", "a");
    EXPECT_INT(c, 1, "SADD", "s", "a");
    EXPECT_INT(c, 1, "SMOVE", "s", "t", "a"); /* already there: still 1 */
    EXPECT_INT(c, 1, "SMOVE", "s", "t", "b");
    EXPECT_INT(c, 0, "EXISTS", "s");
    EXPECT_SORTED(c, "['a', 'b']", "SMEMBERS", "t");
    /* From a large set into a small one and back. */
    fill(c, "big", BIG, "m");
    EXPECT_INT(c, 1, "SMOVE", "big", "t", "m00007");
    EXPECT_INT(c, BIG - 1, "SCARD", "big");
    EXPECT_INT(c, 1, "SMOVE", "t", "big", "m00007");
    EXPECT_INT(c, BIG, "SCARD", "big");
    EXPECT_INT(c, 2, "SCARD", "t");
    redisFree(c);
}

/* ---- SRANDMEMBER, SPOP -------------------------------------------------- */

/* Whether an array reply's elements are distinct members of key. */
static int distinct_members(redisContext *c, redisReply *r, const char *key)
{
    int ok = r && r->type == REDIS_REPLY_ARRAY;
    for (size_t i = 0; ok && i < r->elements; i++) {
        for (size_t j = 0; j < i; j++)
            ok &= !(r->element[i]->len == r->element[j]->len &&
                    memcmp(r->element[i]->str, r->element[j]->str, r->element[i]->len) == 0);
        if (key)
            ok &= h_int_reply(c, 3, (const char *const[]){"SISMEMBER", key, r->element[i]->str}) == 1;
    }
    return ok;
}

static void test_random(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 5, "SADD", "s", "a", "b", "c", "d", "e");
    EXPECT_MATCH(c, "'*'", "SRANDMEMBER", "s");
    EXPECT_NIL(c, "SRANDMEMBER", "nokey");
    EXPECT_REPLY(c, "[]", "SRANDMEMBER", "nokey", "3");
    EXPECT_REPLY(c, "[]", "SRANDMEMBER", "s", "0");
    EXPECT_SORTED(c, "['a', 'b', 'c', 'd', 'e']", "SRANDMEMBER", "s", "5");
    EXPECT_SORTED(c, "['a', 'b', 'c', 'd', 'e']", "SRANDMEMBER", "s", "100");
    EXPECT_ERR(c, "ERR syntax error", "SRANDMEMBER", "s", "1", "2");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SRANDMEMBER", "s", "x");
    EXPECT_ERR(c, "ERR value is out of range, value must between -9223372036854775807 and "
                  "9223372036854775807",
               "SRANDMEMBER", "s", "-9223372036854775808");
    redisReply *r = H_CALL(c, "SRANDMEMBER", "s", "3");
    CHECK(r && r->elements == 3 && distinct_members(c, r, "s"), "SRANDMEMBER 3: distinct");
    freeReplyObject(r);
    r = H_CALL(c, "SRANDMEMBER", "s", "-20");
    CHECK(r && r->elements == 20, "SRANDMEMBER -20");
    for (size_t i = 0; r && i < r->elements; i++)
        CHECK(r->element[i]->len == 1 && r->element[i]->str[0] >= 'a' &&
                  r->element[i]->str[0] <= 'e',
              "SRANDMEMBER -20 gives members");
    freeReplyObject(r);
    /* Every member comes up, with a large set too. */
    fill(c, "big", BIG, "m");
    r = H_CALL(c, "SRANDMEMBER", "big", "2000");
    CHECK(r && r->elements == 2000 && distinct_members(c, r, NULL), "SRANDMEMBER big 2000");
    freeReplyObject(r);
    r = H_CALL(c, "SRANDMEMBER", "big", "-50");
    CHECK(r && r->elements == 50, "SRANDMEMBER big -50");
    freeReplyObject(r);
    EXPECT_INT(c, BIG, "SCARD", "big");

    /* SPOP */
    EXPECT_NIL(c, "SPOP", "nokey");
    EXPECT_REPLY(c, "[]", "SPOP", "nokey", "3");
    EXPECT_REPLY(c, "[]", "SPOP", "s", "0");
    EXPECT_ERR(c, "ERR value is out of range, must be positive", "SPOP", "s", "-1");
    EXPECT_ERR(c, "ERR value is out of range, must be positive", "SPOP", "s", "x");
    EXPECT_ERR(c, "ERR syntax error", "SPOP", "s", "1", "2");
    EXPECT_INT(c, 5, "SCARD", "s");
    r = H_CALL(c, "SPOP", "s");
    CHECK(r && r->type == REDIS_REPLY_STRING, "SPOP gives a bulk");
    if (r && r->type == REDIS_REPLY_STRING)
        EXPECT_INT(c, 0, "SISMEMBER", "s", r->str);
    freeReplyObject(r);
    EXPECT_INT(c, 4, "SCARD", "s");
    r = H_CALL(c, "SPOP", "s", "3");
    CHECK(r && r->elements == 3 && distinct_members(c, r, NULL), "SPOP 3");
    for (size_t i = 0; r && i < r->elements; i++)
        EXPECT_INT(c, 0, "SISMEMBER", "s", r->element[i]->str);
    freeReplyObject(r);
    EXPECT_INT(c, 1, "SCARD", "s");
    r = H_CALL(c, "SPOP", "s", "7");
    CHECK(r && r->elements == 1, "SPOP over the size pops all");
    freeReplyObject(r);
    EXPECT_INT(c, 0, "EXISTS", "s");
    EXPECT_INT(c, 1, "SADD", "s", "x");
    EXPECT_BULK(c, "x", "SPOP", "s");
    EXPECT_INT(c, 0, "EXISTS", "s");
    /* Large counts either side of half the set. */
    char before[64], after[64];
    snprintf(before, sizeof(before), "%d", BIG / 4);
    r = H_CALL(c, "SPOP", "big", before);
    CHECK(r && r->elements == BIG / 4 && distinct_members(c, r, NULL), "SPOP big BIG/4");
    for (size_t i = 0; r && i < r->elements; i += 97)
        EXPECT_INT(c, 0, "SISMEMBER", "big", r->element[i]->str);
    freeReplyObject(r);
    EXPECT_INT(c, BIG - BIG / 4, "SCARD", "big");
    snprintf(after, sizeof(after), "%d", BIG / 2);
    r = H_CALL(c, "SPOP", "big", after);
    CHECK(r && r->elements == BIG / 2 && distinct_members(c, r, NULL), "SPOP big BIG/2");
    freeReplyObject(r);
    EXPECT_INT(c, BIG - BIG / 4 - BIG / 2, "SCARD", "big");
    r = H_CALL(c, "SMEMBERS", "big");
    CHECK(r && distinct_members(c, r, NULL), "what stays is a set");
    freeReplyObject(r);
    redisFree(c);
}

/* ---- the algebra -------------------------------------------------------- */

static void test_algebra(void)
{
    redisContext *c = h_connect_flushed(&srv);
    const char *wt = "-WRONGTYPE Operation against a key holding the wrong kind of value";
    EXPECT_INT(c, 4, "SADD", "a", "1", "2", "3", "x");
    EXPECT_INT(c, 3, "SADD", "b", "2", "3", "y");
    EXPECT_INT(c, 3, "SADD", "c", "3", "x", "z");
    EXPECT_OK(c, "SET", "str", "v");
    EXPECT_SORTED(c, "['3']", "SINTER", "a", "b", "c");
    EXPECT_SORTED(c, "['2', '3']", "SINTER", "a", "b");
    EXPECT_SORTED(c, "['1', '2', '3', 'x']", "SINTER", "a");
    EXPECT_SORTED(c, "['1', '2', '3', 'x']", "SINTER", "a", "a");
    EXPECT_REPLY(c, "[]", "SINTER", "a", "nokey");
    EXPECT_SORTED(c, "['1', '2', '3', 'x', 'y', 'z']", "SUNION", "a", "b", "c");
    EXPECT_SORTED(c, "['1', '2', '3', 'x']", "SUNION", "a", "nokey", "a");
    EXPECT_REPLY(c, "[]", "SUNION", "nokey");
    EXPECT_SORTED(c, "['1']", "SDIFF", "a", "b", "c");
    EXPECT_SORTED(c, "['1', 'x']", "SDIFF", "a", "b", "nokey");
    EXPECT_REPLY(c, "[]", "SDIFF", "a", "a");
    EXPECT_REPLY(c, "[]", "SDIFF", "nokey", "a");
    if (!h_is_reference()) {
        EXPECT_REPLY(c, "['1', '2', '3', 'x', 'y', 'z']", "SUNION", "c", "b", "a");
        EXPECT_REPLY(c, "['2', '3']", "SINTER", "b", "a");
    }
    /* Every input is type-checked, a missing one before it too. */
    EXPECT_REPLY(c, wt, "SINTER", "nokey", "str");
    EXPECT_REPLY(c, wt, "SINTER", "a", "str");
    EXPECT_REPLY(c, wt, "SUNION", "nokey", "str");
    EXPECT_REPLY(c, wt, "SDIFF", "nokey", "str");
    EXPECT_REPLY(c, wt, "SDIFF", "a", "str");
    EXPECT_REPLY(c, wt, "SINTERCARD", "2", "nokey", "str");
    EXPECT_REPLY(c, wt, "SINTERSTORE", "d", "nokey", "str");
    EXPECT_REPLY(c, wt, "SUNIONSTORE", "d", "a", "str");
    EXPECT_REPLY(c, wt, "SDIFFSTORE", "d", "a", "str");
    EXPECT_INT(c, 0, "EXISTS", "d");

    /* STORE: replaces any destination, deletes it for an empty result. */
    EXPECT_INT(c, 2, "SINTERSTORE", "d", "a", "b");
    EXPECT_SORTED(c, "['2', '3']", "SMEMBERS", "d");
    EXPECT_INT(c, 6, "SUNIONSTORE", "d", "a", "b", "c");
    EXPECT_INT(c, 6, "SCARD", "d");
    EXPECT_INT(c, 1, "SDIFFSTORE", "d", "a", "b", "c");
    EXPECT_SORTED(c, "['1']", "SMEMBERS", "d");
    EXPECT_INT(c, 0, "SINTERSTORE", "d", "a", "nokey");
    EXPECT_INT(c, 0, "EXISTS", "d");
    EXPECT_INT(c, 2, "SINTERSTORE", "str", "a", "b"); /* the destination is not type-checked */
    EXPECT_STATUS(c, "set", "TYPE", "str");
    EXPECT_INT(c, 0, "SDIFFSTORE", "str", "a", "a");
    EXPECT_INT(c, 0, "EXISTS", "str");
    EXPECT_INT(c, 4, "SUNIONSTORE", "a", "a", "nokey"); /* a destination among the inputs */
    EXPECT_INT(c, 1, "SDIFFSTORE", "a", "a", "b", "c");
    EXPECT_SORTED(c, "['1']", "SMEMBERS", "a");
    EXPECT_INT(c, 0, "SUNIONSTORE", "d", "nokey");
    EXPECT_INT(c, 0, "EXISTS", "d");

    /* SINTERCARD */
    EXPECT_INT(c, 3, "SADD", "a", "2", "3", "x");
    EXPECT_INT(c, 1, "SINTERCARD", "3", "a", "b", "c");
    EXPECT_INT(c, 2, "SINTERCARD", "2", "a", "b");
    EXPECT_INT(c, 1, "SINTERCARD", "2", "a", "b", "LIMIT", "1");
    EXPECT_INT(c, 2, "SINTERCARD", "2", "a", "b", "limit", "0");
    EXPECT_INT(c, 2, "SINTERCARD", "2", "a", "b", "LIMIT", "5", "LIMIT", "9");
    EXPECT_INT(c, 0, "SINTERCARD", "2", "a", "nokey");
    EXPECT_INT(c, 4, "SINTERCARD", "1", "a");
    EXPECT_ERR(c, "ERR numkeys should be greater than 0", "SINTERCARD", "0", "a");
    EXPECT_ERR(c, "ERR numkeys should be greater than 0", "SINTERCARD", "-1", "a");
    EXPECT_ERR(c, "ERR numkeys should be greater than 0", "SINTERCARD", "x", "a");
    EXPECT_ERR(c, "ERR Number of keys can't be greater than number of args", "SINTERCARD", "3",
               "a", "b");
    EXPECT_ERR(c, "ERR LIMIT can't be negative", "SINTERCARD", "1", "a", "LIMIT", "-1");
    EXPECT_ERR(c, "ERR LIMIT can't be negative", "SINTERCARD", "1", "a", "LIMIT", "x");
    EXPECT_ERR(c, "ERR syntax error", "SINTERCARD", "1", "a", "LIMIT");
    EXPECT_ERR(c, "ERR syntax error", "SINTERCARD", "1", "a", "b");
    EXPECT_ERR(c, "ERR syntax error", "SINTERCARD", "1", "a", "FOO", "1");

    /* Large inputs: a small set against a big one takes probes, two big
     * ones walk in step; both agree with the counts. */
    fill(c, "big", BIG, "m");
    fill(c, "big2", BIG / 2, "m");
    fill(c, "odd", 10, "o"); /* in no other set */
    EXPECT_INT(c, 3, "SADD", "small", "m00005", "m02999", "zz");
    EXPECT_SORTED(c, "['m00005', 'm02999']", "SINTER", "big", "small");
    EXPECT_SORTED(c, "['m00005', 'm02999']", "SINTER", "small", "big");
    EXPECT_SORTED(c, "['m00005']", "SINTER", "small", "big", "big2");
    EXPECT_SORTED(c, "['zz']", "SDIFF", "small", "big");
    EXPECT_INT(c, 1, "SINTERCARD", "3", "big", "small", "big2");
    EXPECT_INT(c, BIG / 2, "SINTERCARD", "2", "big", "big2");
    EXPECT_INT(c, 100, "SINTERCARD", "2", "big", "big2", "LIMIT", "100");
    EXPECT_INT(c, BIG / 2, "SINTERSTORE", "d", "big2", "big");
    EXPECT_INT(c, BIG - BIG / 2, "SDIFFSTORE", "d", "big", "big2");
    EXPECT_INT(c, 0, "SISMEMBER", "d", "m00000");
    EXPECT_INT(c, 1, "SISMEMBER", "d", "m02999");
    EXPECT_INT(c, BIG + 11, "SUNIONSTORE", "d", "big", "small", "big2", "odd");
    EXPECT_INT(c, 0, "SINTERCARD", "2", "odd", "big");
    EXPECT_INT(c, 10, "SINTERCARD", "2", "odd", "d");
    redisFree(c);
}

/* ---- SSCAN -------------------------------------------------------------- */

static void test_sscan(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 3, "SADD", "s", "a", "b", "c");
    EXPECT_REPLY(c, "['0', []]", "SSCAN", "nokey", "0");
    EXPECT_REPLY(c, "['0', []]", "SSCAN", "nokey", "0", "COUNT", "0"); /* options unread */
    EXPECT_ERR(c, "ERR invalid cursor", "SSCAN", "s", "x");
    EXPECT_ERR(c, "ERR syntax error", "SSCAN", "s", "0", "COUNT", "0");
    EXPECT_ERR(c, "ERR syntax error", "SSCAN", "s", "0", "FOO", "1");
    EXPECT_ERR(c, "ERR syntax error", "SSCAN", "s", "0", "COUNT");
    redisReply *r = H_CALL(c, "SSCAN", "s", "0", "MATCH", "[ab]");
    CHECK(r && r->elements == 2 && r->element[1]->elements == 2, "SSCAN MATCH on a small set");
    freeReplyObject(r);
    /* A whole walk of a big set returns each member once. */
    fill(c, "big", BIG, "m");
    char cursor[64] = "0";
    size_t seen = 0, calls = 0;
    do {
        r = H_CALL(c, "SSCAN", "big", cursor, "COUNT", "100");
        if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
            CHECK(0, "SSCAN reply shape");
            freeReplyObject(r);
            break;
        }
        snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
        seen += r->element[1]->elements;
        freeReplyObject(r);
    } while (strcmp(cursor, "0") != 0 && ++calls < 10000);
    /* Redis may return a member twice across a rehash; rbkv never does. */
    CHECK(h_is_reference() ? seen >= BIG : seen == BIG, "SSCAN saw %zu of %d", seen, BIG);
    redisFree(c);
}

/* ---- keyspace events ---------------------------------------------------- */

/* Reads the events (event:key, space-separated) up to and including the
 * "sadd" of marker, which the caller's client causes last. */
static void expect_events(const char *file, int line, redisContext *c, redisContext *sub,
                          const char *want)
{
    static int n;
    char marker[32], got[1024] = "";
    size_t used = 0;
    snprintf(marker, sizeof(marker), "mark%d", ++n);
    freeReplyObject(H_CALL(c, "SADD", marker, "x"));
    for (int i = 0; i < 64; i++) {
        redisReply *r = NULL;
        if (redisGetReply(sub, (void **)&r) != REDIS_OK || !r)
            break;
        int done = 0;
        if (r->type == REDIS_REPLY_ARRAY && r->elements == 4) {
            const char *ev = strrchr(r->element[2]->str, ':');
            const char *key = r->element[3]->str;
            if (strcmp(key, marker) == 0)
                done = strcmp(ev + 1, "sadd") == 0;
            else if (strncmp(key, "mark", 4) != 0)
                used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%s:%s",
                                         used ? " " : "", ev + 1, key);
        }
        freeReplyObject(r);
        if (done || used >= sizeof(got))
            break;
    }
    h_check(file, line, strcmp(got, want) == 0, "events: expected %s, got %s", want, got);
}
#define EXPECT_EVENTS(c, sub, want) expect_events(__FILE__, __LINE__, (c), (sub), (want))

static void test_keyspace_events(void)
{
    redisContext *c = h_connect_flushed(&srv), *sub = h_connect(&srv);
    if (!c || !sub)
        goto out;
    EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "Egsn");
    freeReplyObject(H_CALL(sub, "PSUBSCRIBE", "__keyevent@0__:*"));
    EXPECT_INT(c, 2, "SADD", "s", "a", "b");
    EXPECT_INT(c, 0, "SADD", "s", "a");
    EXPECT_EVENTS(c, sub, "new:s sadd:s");
    EXPECT_INT(c, 1, "SREM", "s", "a", "z");
    EXPECT_INT(c, 0, "SREM", "s", "z");
    EXPECT_INT(c, 1, "SMOVE", "s", "t", "b");
    EXPECT_EVENTS(c, sub, "srem:s srem:s del:s new:t sadd:t");
    EXPECT_INT(c, 2, "SADD", "s", "b", "c");
    EXPECT_INT(c, 0, "SMOVE", "s", "t", "z");
    EXPECT_INT(c, 1, "SMOVE", "s", "t", "b"); /* b already in t: no sadd */
    EXPECT_EVENTS(c, sub, "new:s sadd:s srem:s");
    EXPECT_MATCH(c, "'*'", "SPOP", "s");
    EXPECT_REPLY(c, "[]", "SPOP", "s", "3");
    EXPECT_INT(c, 2, "SADD", "s", "1", "2");
    freeReplyObject(H_CALL(c, "SPOP", "s", "1"));
    freeReplyObject(H_CALL(c, "SPOP", "s", "5"));
    EXPECT_EVENTS(c, sub, "spop:s del:s new:s sadd:s spop:s spop:s del:s");
    EXPECT_INT(c, 1, "SINTERSTORE", "d", "t");
    EXPECT_INT(c, 1, "SUNIONSTORE", "d", "t");
    EXPECT_INT(c, 0, "SDIFFSTORE", "d", "t", "t");
    EXPECT_INT(c, 0, "SDIFFSTORE", "d", "t", "t");
    EXPECT_EVENTS(c, sub, "new:d sinterstore:d sunionstore:d del:d");
out:
    if (sub)
        redisFree(sub);
    if (c) {
        EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "");
        redisFree(c);
    }
}

/* ---- RESP3 shapes ------------------------------------------------------- */

static void test_resp3(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 1, "SADD", "s", "a");
    EXPECT_INT(c, 1, "SADD", "t", "b");
    redisFree(c);
    struct h_raw r;
    if (h_raw_open_resp3(&r, &srv) < 0)
        return;
    RAW_SEND(&r, "SMEMBERS s\r\n");
    RAW_EXPECT(&r, "~1\r\n$1\r\na\r\n");
    RAW_SEND(&r, "SMEMBERS nokey\r\n");
    RAW_EXPECT(&r, "~0\r\n");
    RAW_SEND(&r, "SINTER s\r\n");
    RAW_EXPECT(&r, "~1\r\n$1\r\na\r\n");
    RAW_SEND(&r, "SINTER s nokey\r\n");
    RAW_EXPECT(&r, "~0\r\n");
    RAW_SEND(&r, "SUNION s s\r\n");
    RAW_EXPECT(&r, "~1\r\n$1\r\na\r\n");
    RAW_SEND(&r, "SDIFF s t\r\n");
    RAW_EXPECT(&r, "~1\r\n$1\r\na\r\n");
    RAW_SEND(&r, "SMISMEMBER s a b\r\n");
    RAW_EXPECT(&r, "*2\r\n:1\r\n:0\r\n");
    RAW_SEND(&r, "SRANDMEMBER s 5\r\n");
    RAW_EXPECT(&r, "*1\r\n$1\r\na\r\n");
    RAW_SEND(&r, "SRANDMEMBER s -2\r\n");
    RAW_EXPECT(&r, "*2\r\n$1\r\na\r\n$1\r\na\r\n");
    RAW_SEND(&r, "SRANDMEMBER nokey 2\r\n");
    RAW_EXPECT(&r, "*0\r\n");
    RAW_SEND(&r, "SRANDMEMBER nokey\r\n");
    RAW_EXPECT(&r, "_\r\n");
    RAW_SEND(&r, "SPOP nokey\r\n");
    RAW_EXPECT(&r, "_\r\n");
    RAW_SEND(&r, "SPOP nokey 2\r\n");
    RAW_EXPECT(&r, "~0\r\n");
    RAW_SEND(&r, "SPOP s 0\r\n");
    RAW_EXPECT(&r, "~0\r\n");
    RAW_SEND(&r, "SSCAN s 0\r\n");
    RAW_EXPECT(&r, "*2\r\n$1\r\n0\r\n*1\r\n$1\r\na\r\n");
    RAW_SEND(&r, "SPOP s 1\r\n");
    RAW_EXPECT(&r, "~1\r\n$1\r\na\r\n");
    RAW_SEND(&r, "SADD s a b\r\nSPOP s 1\r\n");
    RAW_EXPECT(&r, ":2\r\n");
    RAW_EXPECT_MATCH(&r, "~1\r\n$1\r\n*\r\n");
    RAW_SEND(&r, "HELLO 2\r\n");
    RAW_EXPECT_MATCH(&r, "*");
    RAW_SEND(&r, "SMEMBERS nokey\r\nSPOP nokey 1\r\nSPOP nokey\r\nSRANDMEMBER nokey\r\n");
    RAW_EXPECT(&r, "*0\r\n");
    RAW_EXPECT(&r, "*0\r\n");
    RAW_EXPECT(&r, "$-1\r\n");
    RAW_EXPECT(&r, "$-1\r\n");
    h_raw_close(&r);
}

/* ---- COMMAND INFO ------------------------------------------------------- */

static void test_command_info(void)
{
    redisContext *c = h_connect(&srv);
    EXPECT_MATCH(c, "[['sadd', :-3, [+write, +denyoom, +fast], :1, :1, :1, *", "COMMAND", "INFO",
                 "sadd");
    EXPECT_MATCH(c, "[['smove', :4, [+write, +fast], :1, :2, :1, *", "COMMAND", "INFO", "smove");
    EXPECT_MATCH(c, "[['sinter', :-2, [+readonly], :1, :-1, :1, *", "COMMAND", "INFO", "sinter");
    EXPECT_MATCH(c, "[['sinterstore', :-3, [+write, +denyoom], :1, :-1, :1, *", "COMMAND", "INFO",
                 "sinterstore");
    EXPECT_MATCH(c, "[['sintercard', :-3, [+readonly*], :0, :0, :0, *", "COMMAND", "INFO",
                 "sintercard");
    EXPECT_MATCH(c, "[['spop', :-2, [+write, +fast], :1, :1, :1, [+@write, +@set, +@fast]*",
                 "COMMAND", "INFO", "spop");
    EXPECT_MATCH(c, "[['srandmember', :-2, [+readonly], :1, :1, :1, [+@read, +@set, +@slow]*",
                 "COMMAND", "INFO", "srandmember");
    EXPECT_MATCH(c, "[['sscan', :-3, [+readonly], :1, :1, :1, *", "COMMAND", "INFO", "sscan");
    EXPECT_REPLY(c, "['d', 'a', 'b']", "COMMAND", "GETKEYS", "SINTERSTORE", "d", "a", "b");
    EXPECT_REPLY(c, "['s', 't']", "COMMAND", "GETKEYS", "SMOVE", "s", "t", "m");
    redisFree(c);
}

/* ---- SPOP reaches the log as what it did -------------------------------- */

static void test_spop_propagation(void)
{
    struct h_server s;
    if (h_is_reference())
        return; /* the harness runs redis-server without its log */
    const char *const *flags = H_FLAGS("--appendonly", "yes", "--appendfsync", "always");
    redisContext *c = h_open(&s, flags);
    if (!c)
        return;
    fill(c, "s", 40, "m");
    fill(c, "n", 20, "1"); /* 100000..100019: integers, the intset */
    EXPECT_INT(c, 3, "SADD", "whole", "a", "b", "c");
    freeReplyObject(H_CALL(c, "SPOP", "s"));
    freeReplyObject(H_CALL(c, "SPOP", "s", "5"));
    freeReplyObject(H_CALL(c, "SPOP", "s", "25")); /* more than half: drawn as the ones kept */
    freeReplyObject(H_CALL(c, "SPOP", "n", "3"));
    freeReplyObject(H_CALL(c, "SPOP", "whole", "10"));
    EXPECT_STATUS(c, "OK", "MULTI");
    EXPECT_STATUS(c, "QUEUED", "SPOP", "s");
    EXPECT_STATUS(c, "QUEUED", "SPOP", "n", "2");
    EXPECT_STATUS(c, "QUEUED", "SADD", "s", "added");
    freeReplyObject(H_CALL(c, "EXEC"));
    EXPECT_INT(c, 9, "SCARD", "s");
    EXPECT_INT(c, 15, "SCARD", "n");
    EXPECT_INT(c, 0, "EXISTS", "whole");
    /* WATCH is touched by a pop all the same. */
    redisContext *other = h_connect(&s);
    EXPECT_STATUS(c, "OK", "WATCH", "n");
    if (other) {
        freeReplyObject(H_CALL(other, "SPOP", "n"));
        redisFree(other);
    }
    EXPECT_STATUS(c, "OK", "MULTI");
    EXPECT_STATUS(c, "QUEUED", "SCARD", "n");
    EXPECT_NIL(c, "EXEC");
    char s_before[1024], n_before[1024], s_after[1024], n_after[1024];
    members_of(c, "s", s_before, sizeof(s_before));
    members_of(c, "n", n_before, sizeof(n_before));
    redisFree(c);
    h_stop(&s);
    CHECK(!h_file_has(&s, "appendonly.aof", "SPOP") && !h_file_has(&s, "appendonly.aof", "spop"),
          "the log holds no SPOP");
    CHECK(h_file_has(&s, "appendonly.aof", "SREM"), "the log holds SREM");
    c = h_reopen(&s, flags);
    if (!c)
        return;
    members_of(c, "s", s_after, sizeof(s_after));
    members_of(c, "n", n_after, sizeof(n_after));
    CHECK(strcmp(s_before, s_after) == 0, "s after restart: %s, was %s", s_after, s_before);
    CHECK(strcmp(n_before, n_after) == 0, "n after restart: %s, was %s", n_after, n_before);
    EXPECT_INT(c, 0, "EXISTS", "whole");
    EXPECT_INT(c, 14, "SCARD", "n");
    h_close(&s, c);
}

/* ---- random differential test ------------------------------------------- */

#define NKEYS 4
#define UNIVERSE 48

static char universe[UNIVERSE][80];

static int cstr_cmp(const void *a, const void *b)
{
    const char *x = a, *y = b;
    return strcmp(x, y); /* no NULs: byte order */
}

/* 20 integers, 20 short strings and 8 longer than set-max-listpack-value. */
static void universe_init(void)
{
    for (int i = 0; i < 20; i++)
        snprintf(universe[i], sizeof(universe[i]), "%d", i * 7 - 30);
    for (int i = 0; i < 20; i++)
        snprintf(universe[20 + i], sizeof(universe[0]), "%c%c", 'a' + i % 5, 'k' + i / 5);
    for (int i = 0; i < 8; i++)
        snprintf(universe[40 + i], sizeof(universe[0]), "long-%d-%070d", i, i);
    qsort(universe, UNIVERSE, sizeof(universe[0]), cstr_cmp);
}

/* The model's reply for a set of members, in byte order. */
static void model_members(uint64_t m, char *out, size_t cap)
{
    size_t used = (size_t)snprintf(out, cap, "[");
    int first = 1;
    for (int i = 0; i < UNIVERSE; i++) {
        if (m >> i & 1) {
            used += (size_t)snprintf(out + used, used < cap ? cap - used : 0, "%s'%s'",
                                     first ? "" : ", ", universe[i]);
            first = 0;
        }
    }
    snprintf(out + used, used < cap ? cap - used : 0, "]");
}

static int popcount64(uint64_t m)
{
    return __builtin_popcountll(m);
}

static void test_differential(void)
{
    const char *seed_env = getenv("SEED");
    unsigned seed = seed_env ? (unsigned)strtoul(seed_env, NULL, 10) : (unsigned)h_now_ms();
    printf("  SEED=%u\n", seed);
    srand(seed);
    universe_init();
    struct h_server ref;
    int have_ref = h_start_comparison(&ref);
    redisContext *rc = have_ref ? h_connect(&ref) : NULL;
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        goto out;
    const char *keys[NKEYS + 1] = {"k0", "k1", "k2", "k3", "str"};
    uint64_t set[NKEYS] = {0};
    const char *wt = "-WRONGTYPE Operation against a key holding the wrong kind of value";
    freeReplyObject(H_CALL(c, "SET", "str", "v"));
    if (rc)
        freeReplyObject(H_CALL(rc, "SET", "str", "v"));
    int ops = 4000 / H_SLOW, failures = 0;
    for (int op = 0; op < ops && failures < 5; op++) {
        const char *argv[16];
        char numkeys[8], limbuf[8]; /* argv may point here until the command is sent */
        int argc = 0;
        char want[8192];
        int k = rand() % NKEYS;
        /* Now and then the key of another type, as an input. */
        int ki = rand() % 20 == 0 ? NKEYS : k;
        int kind = rand() % 13;
        if (op % 200 == 0) {
            /* Small thresholds, so sets cross between packed and tree both
             * ways; the model does not care. */
            char v1[16], v2[16];
            snprintf(v1, sizeof(v1), "%d", 2 + rand() % 30);
            snprintf(v2, sizeof(v2), "%d", 2 + rand() % 30);
            freeReplyObject(H_CALL(c, "CONFIG", "SET", "set-max-intset-entries", v1));
            freeReplyObject(H_CALL(c, "CONFIG", "SET", "set-max-listpack-entries", v2));
            if (rc)
                freeReplyObject(H_CALL(rc, "CONFIG", "SET", "set-max-intset-entries", v1));
        }
        if (kind <= 3) { /* SADD, SREM */
            int add = kind <= 2, n = 1 + rand() % 6;
            uint64_t bits = 0;
            argv[argc++] = add ? "SADD" : "SREM";
            argv[argc++] = keys[ki];
            for (int i = 0; i < n; i++) {
                int u = rand() % UNIVERSE;
                argv[argc++] = universe[u];
                bits |= UINT64_C(1) << u;
            }
            if (ki == NKEYS) {
                snprintf(want, sizeof(want), "%s", wt);
            } else {
                uint64_t changed = add ? bits & ~set[k] : bits & set[k];
                snprintf(want, sizeof(want), ":%d", popcount64(changed));
                set[k] = add ? set[k] | bits : set[k] & ~bits;
            }
        } else if (kind == 4) { /* SMOVE */
            int d = rand() % NKEYS, u = rand() % UNIVERSE;
            uint64_t bit = UINT64_C(1) << u;
            argv[argc++] = "SMOVE";
            argv[argc++] = keys[ki];
            argv[argc++] = keys[d];
            argv[argc++] = universe[u];
            if (ki == NKEYS) {
                snprintf(want, sizeof(want), "%s", wt);
            } else if (!set[k]) {
                snprintf(want, sizeof(want), ":0");
            } else {
                snprintf(want, sizeof(want), ":%d", (set[k] & bit) != 0);
                if ((set[k] & bit) && k != d) {
                    set[k] &= ~bit;
                    set[d] |= bit;
                }
            }
        } else if (kind <= 9) { /* the algebra, stored or replied */
            int op3 = rand() % 3, store = kind <= 6, card = !store && op3 == 0 && rand() % 2;
            int n = 1 + rand() % 3, d = rand() % NKEYS, wrong = 0;
            uint64_t acc = 0;
            int limit = card && rand() % 2 ? rand() % 4 : -1;
            static const char *const names[2][3] = {{"SINTER", "SUNION", "SDIFF"},
                                                    {"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"}};
            argv[argc++] = card ? "SINTERCARD" : names[store][op3];
            if (store)
                argv[argc++] = keys[d];
            if (card) {
                snprintf(numkeys, sizeof(numkeys), "%d", n);
                argv[argc++] = numkeys;
            }
            for (int i = 0; i < n; i++) {
                int j = i == 0 ? ki : rand() % 25 == 0 ? NKEYS : rand() % NKEYS;
                argv[argc++] = keys[j];
                wrong |= j == NKEYS;
                uint64_t m = j == NKEYS ? 0 : set[j];
                if (i == 0)
                    acc = m;
                else
                    acc = op3 == 0 ? acc & m : op3 == 1 ? acc | m : acc & ~m;
            }
            if (limit >= 0) {
                snprintf(limbuf, sizeof(limbuf), "%d", limit);
                argv[argc++] = "LIMIT";
                argv[argc++] = limbuf;
            }
            if (wrong) {
                snprintf(want, sizeof(want), "%s", wt);
            } else if (card) {
                int cnt = popcount64(acc);
                snprintf(want, sizeof(want), ":%d", limit > 0 && cnt > limit ? limit : cnt);
            } else if (store) {
                snprintf(want, sizeof(want), ":%d", popcount64(acc));
                set[d] = acc;
            } else {
                model_members(acc, want, sizeof(want));
            }
        } else if (kind == 10) {
            int u = rand() % UNIVERSE;
            argv[argc++] = "SISMEMBER";
            argv[argc++] = keys[ki];
            argv[argc++] = universe[u];
            if (ki == NKEYS)
                snprintf(want, sizeof(want), "%s", wt);
            else
                snprintf(want, sizeof(want), ":%d", (int)(set[k] >> u & 1));
        } else if (kind == 11) {
            argv[argc++] = "SCARD";
            argv[argc++] = keys[ki];
            if (ki == NKEYS)
                snprintf(want, sizeof(want), "%s", wt);
            else
                snprintf(want, sizeof(want), ":%d", popcount64(set[k]));
        } else {
            argv[argc++] = "SMEMBERS";
            argv[argc++] = keys[ki];
            if (ki == NKEYS)
                snprintf(want, sizeof(want), "%s", wt);
            else
                model_members(set[k], want, sizeof(want));
        }
        char got[8192], ref_got[8192];
        redisReply *r = h_command(c, argc, argv, NULL);
        if (r)
            h_repr(r, got, sizeof(got));
        else
            snprintf(got, sizeof(got), "(no reply)");
        /* Against the reference the order is Redis's own: sort first. */
        if (r && h_is_reference()) {
            sort_reply(r);
            h_repr(r, got, sizeof(got));
        }
        freeReplyObject(r);
        if (!CHECK(strcmp(got, want) == 0, "op %d %s %s: expected %s, got %s", op, argv[0],
                   argv[1], want, got))
            failures++;
        if (rc) {
            redisReply *rr = h_command(rc, argc, argv, NULL);
            sort_reply(rr);
            if (rr)
                h_repr(rr, ref_got, sizeof(ref_got));
            else
                snprintf(ref_got, sizeof(ref_got), "(no reply)");
            freeReplyObject(rr);
            if (!CHECK(strcmp(ref_got, want) == 0, "op %d %s %s: redis-server says %s, model %s",
                       op, argv[0], argv[1], ref_got, want))
                failures++;
        }
        /* No key is ever left empty. */
        if (op % 50 == 0) {
            for (int j = 0; j < NKEYS; j++)
                failures += !EXPECT_INT(c, set[j] != 0, "EXISTS", keys[j]);
        }
    }
    if (failures)
        printf("  replay with SEED=%u\n", seed);
    freeReplyObject(H_CALL(c, "CONFIG", "SET", "set-max-intset-entries", "512"));
    freeReplyObject(H_CALL(c, "CONFIG", "SET", "set-max-listpack-entries", "128"));
    redisFree(c);
out:
    if (rc)
        redisFree(rc);
    if (have_ref)
        h_stop(&ref);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_sadd_srem_lookups);
    H_RUN(test_smove);
    H_RUN(test_random);
    H_RUN(test_algebra);
    H_RUN(test_sscan);
    H_RUN(test_keyspace_events);
    H_RUN(test_resp3);
    H_RUN(test_command_info);
    H_RUN(test_differential);
    h_stop(&srv);
    H_RUN(test_spop_propagation);
    return h_finish();
}
