/*
 * test_hash.c - end-to-end tests of the hash commands (server/commands/cmd_hash.c)
 * through hiredis and, for RESP3 shapes, raw sockets: HSET HSETNX HMSET HGET
 * HMGET HDEL HEXISTS HLEN HSTRLEN HGETALL HKEYS HVALS HINCRBY HINCRBYFLOAT
 * HRANDFIELD HSCAN, their errors, keyspace events, the writes they count
 * (and so propagate), WATCH, the append-only log's replay, and a random
 * differential run.
 *
 * One server for the whole file; each test FLUSHALLs first. Expected replies
 * are Redis 7.0's: every test but the rbkv-only checks (fields in byte order,
 * HSCAN's cursors) also passes against Debian's redis-server 7.0
 * (`test_integration_hash redis-server`), which is how they were checked.
 *
 * test_differential runs random HSET/HMSET/HSETNX/HDEL/HINCRBY/HGETALL/...
 * sequences against rbkv, against a model kept here, and against a
 * redis-server started beside it (h_start_comparison: skipped without one,
 * unless the reference is required), with
 * hash-max-listpack-entries 4 and hash-max-listpack-value 16 so the hashes
 * cross both encodings both ways. Redis's HGETALL/HKEYS/HVALS come in its
 * own order, so those replies are compared sorted; rbkv's must already be
 * in field order. SEED=<n> replays a run; OPS=<n> sets its length.
 */
#include <errno.h>
#include <hiredis/hiredis.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define BIG 3000 /* fields of the large hashes: past any packed encoding */
#define REPR_CAP 65536

static struct h_server srv;

static const char *const wrongtype = "-WRONGTYPE Operation against a key holding the wrong kind "
                                     "of value";

/* The large hashes: fields f00000.. valued their number. */
static const struct h_coll hash_coll = {"HSET", "HDEL", "HSCAN", 'f', 0};

static long long dirty(redisContext *c)
{
    return h_info_ll(c, "persistence", "rdb_changes_since_last_save");
}

/* Sorts a flat HGETALL/HKEYS reply's rows by field (step 2 or 1), in place:
 * Redis's order is its hashtable's. */
static void sort_rows(redisReply *r, size_t step)
{
    if (!r || r->type != REDIS_REPLY_ARRAY)
        return;
    size_t rows = r->elements / step;
    for (size_t i = 1; i < rows; i++) {
        for (size_t j = i; j > 0; j--) {
            redisReply **a = &r->element[(j - 1) * step], **b = &r->element[j * step];
            const redisReply *fa = a[0], *fb = b[0];
            size_t n = fa->len < fb->len ? fa->len : fb->len;
            int cmp = memcmp(fa->str, fb->str, n);
            if (cmp < 0 || (cmp == 0 && fa->len <= fb->len))
                break;
            for (size_t s = 0; s < step; s++) {
                redisReply *t = a[s];
                a[s] = b[s];
                b[s] = t;
            }
        }
    }
}

/* ---- the commands one by one -------------------------------------------- */

static void test_set_and_get(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 2, "HSET", "h", "a", "1", "b", "2");
    EXPECT_INT(c, 1, "HSET", "h", "a", "10", "c", "3");
    EXPECT_INT(c, 0, "HSET", "h", "a", "1");
    EXPECT_INT(c, 1, "HSET", "h", "a", "x", "a", "y", "d", "4"); /* the last value wins */
    EXPECT_BULK(c, "y", "HGET", "h", "a");
    EXPECT_OK(c, "HMSET", "h", "a", "1", "e", "5");
    EXPECT_OK(c, "HMSET", "hm", "k", "v");
    EXPECT_BULK(c, "v", "HGET", "hm", "k");
    EXPECT_INT(c, 0, "HSETNX", "h", "a", "100");
    EXPECT_BULK(c, "1", "HGET", "h", "a");
    EXPECT_INT(c, 1, "HSETNX", "h", "f", "6");
    EXPECT_INT(c, 1, "HSETNX", "fresh", "f", "v");
    EXPECT_BULK(c, "v", "HGET", "fresh", "f");
    EXPECT_NIL(c, "HGET", "h", "nosuch");
    EXPECT_NIL(c, "HGET", "nosuch", "a");
    EXPECT_REPLY(c, "['1', (nil), '2']", "HMGET", "h", "a", "x", "b");
    EXPECT_REPLY(c, "[(nil), (nil)]", "HMGET", "nosuch", "a", "b");
    EXPECT_INT(c, 1, "HEXISTS", "h", "a");
    EXPECT_INT(c, 0, "HEXISTS", "h", "x");
    EXPECT_INT(c, 0, "HEXISTS", "nosuch", "a");
    EXPECT_INT(c, 6, "HLEN", "h");
    EXPECT_INT(c, 0, "HLEN", "nosuch");
    EXPECT_INT(c, 1, "HSET", "h", "long", "0123456789");
    EXPECT_INT(c, 10, "HSTRLEN", "h", "long");
    EXPECT_INT(c, 0, "HSTRLEN", "h", "x");
    EXPECT_INT(c, 0, "HSTRLEN", "nosuch", "x");
    EXPECT_INT(c, 1, "HSET", "h", "empty", "");
    EXPECT_BULK(c, "", "HGET", "h", "empty");
    EXPECT_INT(c, 1, "HEXISTS", "h", "empty");
    EXPECT_INT(c, 0, "HSTRLEN", "h", "empty");

    /* Binary-safe fields and values; "" is a field too. */
    EXPECT_BIN(c, ":2", H_S("HSET"), H_S("bin"), H_S("a\0b"), H_S("x\0y"), H_S(""), H_S("e"));
    EXPECT_BIN(c, "'x\\x00y'", H_S("HGET"), H_S("bin"), H_S("a\0b"));
    EXPECT_BIN(c, "(nil)", H_S("HGET"), H_S("bin"), H_S("a"));
    EXPECT_BIN(c, "'e'", H_S("HGET"), H_S("bin"), H_S(""));
    EXPECT_BIN(c, ":3", H_S("HSTRLEN"), H_S("bin"), H_S("a\0b"));

    /* Arity: the dispatcher's, and HSET's and HMSET's own for an odd count. */
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hset' command", "HSET", "n", "a");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hset' command", "HSET", "n", "a", "1", "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hmset' command", "HMSET", "n", "a", "1",
               "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hmset' command", "hmset", "n");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hsetnx' command", "HSETNX", "n", "a");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hget' command", "HGET", "n");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hmget' command", "HMGET", "n");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hdel' command", "HDEL", "n");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hexists' command", "HEXISTS", "n");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hlen' command", "HLEN", "n", "x");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hstrlen' command", "HSTRLEN", "n");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hgetall' command", "HGETALL");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hkeys' command", "HKEYS", "n", "x");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hvals' command", "HVALS");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hincrby' command", "HINCRBY", "n", "a");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hincrbyfloat' command", "HINCRBYFLOAT",
               "n", "a", "1", "2");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hrandfield' command", "HRANDFIELD");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hscan' command", "HSCAN", "n");
    EXPECT_INT(c, 0, "EXISTS", "n");

    /* WRONGTYPE everywhere a hash is read or written, and the string stays. */
    EXPECT_OK(c, "SET", "str", "v");
    static const char *const wrong[][6] = {
        {"HSET", "str", "a", "1"},     {"HSETNX", "str", "a", "1"},  {"HMSET", "str", "a", "1"},
        {"HGET", "str", "a"},          {"HMGET", "str", "a"},        {"HDEL", "str", "a"},
        {"HEXISTS", "str", "a"},       {"HLEN", "str"},              {"HSTRLEN", "str", "a"},
        {"HGETALL", "str"},            {"HKEYS", "str"},             {"HVALS", "str"},
        {"HINCRBY", "str", "a", "1"},  {"HINCRBYFLOAT", "str", "a", "1"},
        {"HRANDFIELD", "str"},         {"HRANDFIELD", "str", "0"},
        {"HRANDFIELD", "str", "-3", "WITHVALUES"},                   {"HSCAN", "str", "0"},
    };
    for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
        int argc = 0;
        while (argc < 6 && wrong[i][argc])
            argc++;
        h_expect(__FILE__, __LINE__, c, wrongtype, 0, argc, wrong[i], NULL);
    }
    EXPECT_BULK(c, "v", "GET", "str");
    EXPECT_STATUS(c, "hash", "TYPE", "h");
    redisFree(c);
}

static void test_del(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 4, "HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4");
    EXPECT_INT(c, 0, "HDEL", "h", "x");
    EXPECT_INT(c, 0, "HDEL", "nosuch", "a");
    EXPECT_INT(c, 2, "HDEL", "h", "a", "x", "b", "a");
    EXPECT_INT(c, 2, "HLEN", "h");
    EXPECT_REPLY(c, "[(nil), '3']", "HMGET", "h", "a", "c");
    /* The last field takes the key with it. */
    EXPECT_INT(c, 2, "HDEL", "h", "c", "d", "e");
    EXPECT_INT(c, 0, "EXISTS", "h");
    EXPECT_INT(c, 0, "HLEN", "h");
    redisFree(c);
}

/* Field order is rbkv's promise (byte order); Redis's hashtable has none. */
static void test_getall(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_REPLY(c, "[]", "HGETALL", "nosuch");
    EXPECT_REPLY(c, "[]", "HKEYS", "nosuch");
    EXPECT_REPLY(c, "[]", "HVALS", "nosuch");
    /* Inserted in order, so a listpack agrees. */
    EXPECT_INT(c, 3, "HSET", "h", "a", "1", "b", "2", "c", "3");
    EXPECT_REPLY(c, "['a', '1', 'b', '2', 'c', '3']", "HGETALL", "h");
    EXPECT_REPLY(c, "['a', 'b', 'c']", "HKEYS", "h");
    EXPECT_REPLY(c, "['1', '2', '3']", "HVALS", "h");
    if (h_is_reference()) {
        redisFree(c);
        return;
    }
    /* Byte order whatever the insertion order, in both encodings. */
    EXPECT_INT(c, 5, "HSET", "s", "zz", "1", "\xff", "2", "B", "3", "b", "4", "a\x01", "5");
    EXPECT_INT(c, 1, "HSET", "s", "a", "6");
    EXPECT_REPLY(c, "['B', 'a', 'a\\x01', 'b', 'zz', '\\xff']", "HKEYS", "s");
    EXPECT_REPLY(c, "['3', '6', '5', '4', '1', '2']", "HVALS", "s");
    EXPECT_OK(c, "CONFIG", "SET", "hash-max-listpack-entries", "2");
    EXPECT_INT(c, 1, "HSET", "s", "A", "7");
    EXPECT_REPLY(c, "['A', '7', 'B', '3', 'a', '6', 'a\\x01', '5', 'b', '4', 'zz', '1', '\\xff', "
                    "'2']",
                 "HGETALL", "s");
    EXPECT_OK(c, "CONFIG", "SET", "hash-max-listpack-entries", "128");

    /* A large hash walks its chunks in order. */
    h_coll_fill(c, &hash_coll, "big", BIG);
    redisReply *r = H_CALL(c, "HKEYS", "big");
    if (CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == BIG, "HKEYS of %d", BIG)) {
        int sorted = 1;
        for (size_t i = 1; i < r->elements; i++)
            sorted &= strcmp(r->element[i - 1]->str, r->element[i]->str) < 0;
        CHECK(sorted, "HKEYS in byte order");
    }
    freeReplyObject(r);
    r = H_CALL(c, "HGETALL", "big");
    if (CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 * BIG, "HGETALL of %d", BIG))
        CHECK(!strcmp(r->element[2 * 1234]->str, "f01234") &&
                  !strcmp(r->element[2 * 1234 + 1]->str, "1234"),
              "HGETALL's 1234th pair");
    freeReplyObject(r);
    redisFree(c);
}

static void test_hincr(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 5, "HINCRBY", "h", "n", "5");
    EXPECT_INT(c, 2, "HINCRBY", "h", "n", "-3");
    EXPECT_INT(c, -10, "HINCRBY", "h", "m", "-10");
    EXPECT_BULK(c, "-10", "HGET", "h", "m");
    EXPECT_INT(c, 1, "HSET", "h", "s", "abc");
    EXPECT_ERR(c, "ERR hash value is not an integer", "HINCRBY", "h", "s", "1");
    EXPECT_INT(c, 0, "HSET", "h", "s", "010"); /* not canonical: not an integer */
    EXPECT_ERR(c, "ERR hash value is not an integer", "HINCRBY", "h", "s", "1");
    EXPECT_INT(c, 0, "HSET", "h", "s", " 1");
    EXPECT_ERR(c, "ERR hash value is not an integer", "HINCRBY", "h", "s", "1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "HINCRBY", "h", "n", "x");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "HINCRBY", "h", "n", "1.5");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "HINCRBY", "h", "n",
               "9223372036854775808");
    EXPECT_INT(c, 1, "HSET", "h", "max", "9223372036854775807");
    EXPECT_ERR(c, "ERR increment or decrement would overflow", "HINCRBY", "h", "max", "1");
    EXPECT_INT(c, 9223372036854775806LL, "HINCRBY", "h", "max", "-1");
    EXPECT_INT(c, LLONG_MIN, "HINCRBY", "h", "min", "-9223372036854775808");
    EXPECT_ERR(c, "ERR increment or decrement would overflow", "HINCRBY", "h", "min", "-1");
    EXPECT_INT(c, -1, "HINCRBY", "h", "min", "9223372036854775807");
    /* A bad increment creates nothing; the argument is read before the key. */
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "HINCRBY", "new", "f", "x");
    EXPECT_INT(c, 0, "EXISTS", "new");
    EXPECT_OK(c, "SET", "str", "v");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "HINCRBY", "str", "f", "x");

    EXPECT_BULK(c, "10.5", "HINCRBYFLOAT", "f", "x", "10.5");
    EXPECT_BULK(c, "10.6", "HINCRBYFLOAT", "f", "x", "0.1");
    EXPECT_BULK(c, "5.6", "HINCRBYFLOAT", "f", "x", "-5");
    EXPECT_INT(c, 0, "HSET", "f", "x", "5.0e3");
    EXPECT_BULK(c, "5200", "HINCRBYFLOAT", "f", "x", "2.0e2");
    EXPECT_BULK(c, "5200", "HGET", "f", "x");
    EXPECT_BULK(c, "16", "HINCRBYFLOAT", "f", "hex", "0x10");
    EXPECT_BULK(c, "0", "HINCRBYFLOAT", "f", "zero", "-0");
    EXPECT_BULK(c, "3", "HINCRBYFLOAT", "f", "n", "3.0");
    EXPECT_INT(c, 3, "HINCRBY", "f", "n", "0"); /* stored as "3": an integer again */
    EXPECT_BULK(c, "9223372036854775807", "HINCRBYFLOAT", "h", "max", "1");
    EXPECT_BULK(c, "9223372036854775808", "HINCRBYFLOAT", "h", "max", "1"); /* past LLONG_MAX */
    EXPECT_ERR(c, "ERR hash value is not an integer", "HINCRBY", "h", "max", "1");
    EXPECT_ERR(c, "ERR hash value is not a float", "HINCRBYFLOAT", "h", "s", "1");
    EXPECT_INT(c, 0, "HSET", "h", "s", "abc");
    EXPECT_ERR(c, "ERR hash value is not a float", "HINCRBYFLOAT", "h", "s", "1");
    EXPECT_ERR(c, "ERR value is not a valid float", "HINCRBYFLOAT", "f", "x", "abc");
    EXPECT_ERR(c, "ERR value is not a valid float", "HINCRBYFLOAT", "f", "x", "nan");
    EXPECT_ERR(c, "ERR value is not a valid float", "HINCRBYFLOAT", "f", "x", " 1");
    EXPECT_ERR(c, "ERR value is not a valid float", "HINCRBYFLOAT", "f", "x", "");
    EXPECT_ERR(c, "ERR value is NaN or Infinity", "HINCRBYFLOAT", "f", "x", "inf");
    EXPECT_ERR(c, "ERR value is NaN or Infinity", "HINCRBYFLOAT", "f", "x", "-inf");
    /* Long doubles: 1e308 + 1e308 is finite, 1e4932 + 1e4932 is not. */
    EXPECT_MATCH(c, "'99999999999999999996*'", "HINCRBYFLOAT", "f", "big", "1e308");
    EXPECT_MATCH(c, "'199999999999999999993*'", "HINCRBYFLOAT", "f", "big", "1e308");
    EXPECT_INT(c, 1, "HSET", "f", "huge", "1e4932");
    EXPECT_ERR(c, "ERR increment would produce NaN or Infinity", "HINCRBYFLOAT", "f", "huge",
               "1e4932");
    EXPECT_BULK(c, "1e4932", "HGET", "f", "huge");
    EXPECT_ERR(c, "ERR value is NaN or Infinity", "HINCRBYFLOAT", "new", "f", "inf");
    EXPECT_ERR(c, "ERR value is not a valid float", "HINCRBYFLOAT", "new", "f", "x");
    EXPECT_INT(c, 0, "EXISTS", "new");
    EXPECT_ERR(c, "ERR value is not a valid float", "HINCRBYFLOAT", "str", "f", "x");
    EXPECT_REPLY(c, wrongtype, "HINCRBYFLOAT", "str", "f", "1");
    redisFree(c);
}

static void test_randfield(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_NIL(c, "HRANDFIELD", "nosuch");
    EXPECT_REPLY(c, "[]", "HRANDFIELD", "nosuch", "5");
    EXPECT_REPLY(c, "[]", "HRANDFIELD", "nosuch", "-5", "WITHVALUES");
    EXPECT_INT(c, 3, "HSET", "h", "x", "1", "y", "2", "z", "3");
    EXPECT_MATCH(c, "'*'", "HRANDFIELD", "h");
    EXPECT_REPLY(c, "[]", "HRANDFIELD", "h", "0");
    EXPECT_REPLY(c, "[]", "HRANDFIELD", "h", "0", "WITHVALUES");
    EXPECT_MATCH(c, "['*']", "HRANDFIELD", "h", "1");
    EXPECT_MATCH(c, "['*', '*']", "HRANDFIELD", "h", "1", "withvalues");
    EXPECT_ERR(c, "ERR syntax error", "HRANDFIELD", "h", "1", "x");
    EXPECT_ERR(c, "ERR syntax error", "HRANDFIELD", "h", "1", "WITHVALUES", "x");
    EXPECT_ERR(c, "ERR syntax error", "HRANDFIELD", "nosuch", "1", "WITHSCORES");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "HRANDFIELD", "h", "x");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "HRANDFIELD", "h", "1.0");
    EXPECT_ERR(c, "ERR value is out of range, value must between -9223372036854775807 and "
                  "9223372036854775807",
               "HRANDFIELD", "h", "-9223372036854775808");
    EXPECT_ERR(c, "ERR value is out of range", "HRANDFIELD", "h", "-4611686018427387904",
               "WITHVALUES");
    EXPECT_ERR(c, "ERR value is out of range", "HRANDFIELD", "h", "4611686018427387904",
               "WITHVALUES");
    /* The checks run before the lookup. */
    EXPECT_ERR(c, "ERR value is out of range", "HRANDFIELD", "nosuch", "9223372036854775807",
               "WITHVALUES");
    /* A count past the size lists each field once. */
    EXPECT_MATCH(c, "[*]", "HRANDFIELD", "h", "4611686018427387903", "WITHVALUES");
    redisReply *r = H_CALL(c, "HRANDFIELD", "h", "5", "WITHVALUES");
    CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 6 && h_count_distinct(r, 0, 2) == 3,
          "HRANDFIELD above the size lists each field once");
    freeReplyObject(r);
    if (!h_is_reference())
        EXPECT_REPLY(c, "['x', 'y', 'z']", "HRANDFIELD", "h", "3");

    /* A negative count repeats, each pick a field with its own value, and
     * picks every field about as often. */
    enum { DRAWS = 3000 };
    r = H_CALL(c, "HRANDFIELD", "h", "-3000", "WITHVALUES");
    if (CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 * DRAWS, "HRANDFIELD -3000")) {
        int seen[3] = {0};
        for (size_t i = 0; i < r->elements; i += 2) {
            int k = r->element[i]->str[0] - 'x';
            if (CHECK(k >= 0 && k < 3 && atoi(r->element[i + 1]->str) == k + 1,
                      "a field with its value"))
                seen[k]++;
        }
        for (int k = 0; k < 3; k++)
            CHECK(seen[k] > DRAWS / 3 - 300 && seen[k] < DRAWS / 3 + 300,
                  "field %d drawn %d times of %d", k, seen[k], DRAWS);
    }
    freeReplyObject(r);
    r = H_CALL(c, "HRANDFIELD", "h", "-7");
    CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 7, "HRANDFIELD -7");
    freeReplyObject(r);

    /* Fewer than the size: distinct fields, on a large hash too. */
    h_coll_fill(c, &hash_coll, "big", BIG);
    static const char *const counts[] = {"2", "100", "1500", "2999"};
    for (size_t t = 0; t < sizeof(counts) / sizeof(counts[0]); t++) {
        size_t n = (size_t)atoi(counts[t]);
        r = H_CALL(c, "HRANDFIELD", "big", counts[t], "WITHVALUES");
        if (CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 * n, "HRANDFIELD %zu",
                  n)) {
            static unsigned char seen[BIG];
            memset(seen, 0, sizeof(seen));
            int dup = 0, bad = 0;
            for (size_t i = 0; i < r->elements; i += 2) {
                int k = atoi(r->element[i]->str + 1);
                bad += k < 0 || k >= BIG || atoi(r->element[i + 1]->str) != k;
                if (k >= 0 && k < BIG) {
                    dup += seen[k];
                    seen[k] = 1;
                }
            }
            CHECK(!dup && !bad, "HRANDFIELD %zu: %d repeated, %d wrong", n, dup, bad);
        }
        freeReplyObject(r);
    }
    redisFree(c);
}

static void test_scan(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_REPLY(c, "['0', []]", "HSCAN", "nosuch", "0");
    EXPECT_INT(c, 3, "HSET", "h", "a", "1", "b", "2", "c", "3");
    EXPECT_REPLY(c, "['0', ['a', '1', 'b', '2', 'c', '3']]", "HSCAN", "h", "0");
    EXPECT_REPLY(c, "['0', ['b', '2']]", "HSCAN", "h", "0", "MATCH", "b*");
    EXPECT_REPLY(c, "['0', ['a', '1', 'b', '2', 'c', '3']]", "HSCAN", "h", "0", "COUNT", "1");
    EXPECT_ERR(c, "ERR syntax error", "HSCAN", "h", "0", "COUNT", "0");
    EXPECT_ERR(c, "ERR syntax error", "HSCAN", "h", "0", "MATCH");
    EXPECT_ERR(c, "ERR syntax error", "HSCAN", "h", "0", "TYPE", "hash");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "HSCAN", "h", "0", "COUNT",
               "x");
    EXPECT_ERR(c, "ERR invalid cursor", "HSCAN", "h", "x");
    /* The cursor is read before the key's type, as Redis does. */
    EXPECT_OK(c, "SET", "str", "v");
    EXPECT_ERR(c, "ERR invalid cursor", "HSCAN", "str", "x");

    /* A large hash by cursor, fields coming and going meanwhile: every field
     * present throughout is returned, with its value. */
    h_coll_fill(c, &hash_coll, "big", BIG);
    H_COLL_SCAN_CHURN(c, &hash_coll, "big", BIG);
    EXPECT_REPLY(c, "['0', ['f00007', '7']]", "HSCAN", "big", "0", "MATCH", "f00007", "COUNT",
                 "100000");
    redisFree(c);
}

/* ---- what the writes do besides replying -------------------------------- */

/* A subscriber of '__key*__:*' on a connection of its own. */
static redisContext *subscriber(void)
{
    redisContext *s = h_connect(&srv);
    redisReply *r = H_CALL(s, "PSUBSCRIBE", "__key*__:*");
    CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 3, "PSUBSCRIBE's reply");
    freeReplyObject(r);
    return s;
}

/* Expects the keyevent messages of events ("event key" each, db 0) in order,
 * then nothing more (the subscriber's PING comes back next). */
static void expect_events(const char *file, int line, redisContext *s, int n,
                          const char *const *events)
{
    char got[256], want[256];
    for (int i = 0; i < n; i++) {
        char event[64], key[64];
        if (sscanf(events[i], "%63s %63s", event, key) != 2)
            return;
        snprintf(want, sizeof(want), "__keyevent@0__:%s %s", event, key);
        redisReply *r = h_get_reply(s);
        got[0] = '\0';
        if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 4)
            snprintf(got, sizeof(got), "%s %s", r->element[2]->str, r->element[3]->str);
        freeReplyObject(r);
        if (!h_check(file, line, !strcmp(got, want), "event %d: expected '%s', got '%s'", i, want,
                     got))
            return;
    }
    redisReply *r = H_CALL(s, "PING");
    h_check(file, line, r && !strcmp(h_repr(r, got, sizeof(got)), "['pong', '']"),
            "expected no more events, got %s", r ? got : "nothing");
    freeReplyObject(r);
}
#define EXPECT_EVENTS(s, ...)                                                                     \
    expect_events(__FILE__, __LINE__, (s), H_ARGC(__VA_ARGS__),                                   \
                  (const char *const[]){__VA_ARGS__})

static void test_events(void)
{
    redisContext *c = h_connect_flushed(&srv), *s = subscriber();
    EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "Ehgn");
    EXPECT_INT(c, 2, "HSET", "h", "a", "1", "b", "2");
    EXPECT_INT(c, 0, "HSET", "h", "a", "1");
    EXPECT_OK(c, "HMSET", "h", "c", "3");
    EXPECT_INT(c, 0, "HSETNX", "h", "a", "9");
    EXPECT_INT(c, 1, "HSETNX", "h", "d", "4");
    EXPECT_INT(c, 1, "HSETNX", "n1", "d", "4");
    EXPECT_INT(c, 5, "HINCRBY", "h", "e", "5");
    EXPECT_INT(c, 1, "HINCRBY", "n2", "e", "1");
    EXPECT_BULK(c, "1.5", "HINCRBYFLOAT", "h", "f", "1.5");
    EXPECT_BULK(c, "1.5", "HINCRBYFLOAT", "n3", "f", "1.5");
    EXPECT_EVENTS(s, "new h", "hset h", "hset h", "hset h", "hset h", "new n1", "hset n1",
                  "hincrby h", "new n2", "hincrby n2", "hincrbyfloat h", "new n3",
                  "hincrbyfloat n3");
    /* Failures and no-ops fire nothing. */
    EXPECT_INT(c, 0, "HDEL", "h", "x");
    EXPECT_INT(c, 0, "HDEL", "nosuch", "x");
    EXPECT_INT(c, 1, "HSET", "h", "s", "x");
    EXPECT_ERR(c, "ERR hash value is not an integer", "HINCRBY", "h", "s", "1");
    EXPECT_ERR(c, "ERR hash value is not a float", "HINCRBYFLOAT", "h", "s", "1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "HINCRBY", "n4", "s", "x");
    EXPECT_INT(c, 1, "HDEL", "h", "s");
    EXPECT_INT(c, 2, "HDEL", "h", "a", "b");
    EXPECT_INT(c, 1, "HDEL", "n1", "d", "x");
    EXPECT_EVENTS(s, "hset h", "hdel h", "hdel h", "hdel n1", "del n1");
    EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "");
    redisFree(s);
    redisFree(c);
}

/* server.dirty moves once per field set or removed (as Redis counts), and
 * not at all for a no-op or an error; a write that counted touches WATCH. */
static void test_dirty_and_watch(void)
{
    redisContext *c = h_connect_flushed(&srv);
    long long d = dirty(c);
    EXPECT_INT(c, 2, "HSET", "h", "a", "1", "b", "2");
    CHECK(dirty(c) == d + 2, "HSET of two fields counts 2, got %lld", dirty(c) - d);
    d = dirty(c);
    EXPECT_INT(c, 0, "HSET", "h", "a", "1");
    CHECK(dirty(c) == d + 1, "HSET of an equal value counts 1, got %lld", dirty(c) - d);
    d = dirty(c);
    EXPECT_INT(c, 0, "HSETNX", "h", "a", "1");
    EXPECT_INT(c, 0, "HDEL", "h", "x");
    EXPECT_INT(c, 0, "HDEL", "nosuch", "x");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "HINCRBY", "h", "x", "x");
    EXPECT_INT(c, 0, "HSTRLEN", "h", "x");
    CHECK(dirty(c) == d, "no-ops count nothing, got %lld", dirty(c) - d);
    EXPECT_INT(c, 1, "HSETNX", "h", "c", "3");
    EXPECT_INT(c, 4, "HINCRBY", "h", "c", "1");
    EXPECT_BULK(c, "4.5", "HINCRBYFLOAT", "h", "c", "0.5");
    EXPECT_INT(c, 2, "HDEL", "h", "a", "b", "x");
    CHECK(dirty(c) == d + 5, "HSETNX HINCRBY HINCRBYFLOAT HDEL 2 count 5, got %lld",
          dirty(c) - d);

    redisContext *other = h_connect(&srv);
    EXPECT_OK(c, "WATCH", "h");
    EXPECT_INT(other, 0, "HSETNX", "h", "c", "x");
    EXPECT_TRANSACTION(c, "['4.5']", "HGET h c");
    EXPECT_OK(c, "WATCH", "h");
    EXPECT_INT(other, 1, "HSETNX", "h", "d", "x");
    EXPECT_TRANSACTION(c, "(nil)", "HGET h c");
    /* HSET's odd count is its own check, made when it runs: the
     * transaction runs and the error is its reply. */
    EXPECT_TRANSACTION(c, "[-ERR wrong number of arguments for 'hset' command, :2]", "HSET h a 1 b",
                          "HLEN h");
    redisFree(other);
    redisFree(c);
}

/* The append-only log replays every hash write to the same contents,
 * HINCRBYFLOAT's included. */
static void test_hincrbyfloat_replay(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--appendonly", "yes", "--appendfsync", "always"));
    if (!c)
        return;
    EXPECT_INT(c, 3, "HSET", "h", "a", "1", "b", "2", "c", "3");
    EXPECT_OK(c, "HMSET", "h", "d", "4");
    EXPECT_INT(c, 1, "HSETNX", "h", "e", "5");
    EXPECT_INT(c, 11, "HINCRBY", "h", "a", "10");
    EXPECT_BULK(c, "10.6", "HINCRBYFLOAT", "h", "f", "10.6");
    EXPECT_BULK(c, "10.7", "HINCRBYFLOAT", "h", "f", "0.1");
    EXPECT_MATCH(c, "'99999999999999999996*'", "HINCRBYFLOAT", "h", "g", "1e308");
    EXPECT_INT(c, 1, "HDEL", "h", "b");
    EXPECT_INT(c, 1, "HSET", "gone", "x", "1");
    EXPECT_INT(c, 1, "HDEL", "gone", "x");
    redisReply *before = H_CALL(c, "HGETALL", "h");
    char want[REPR_CAP], got[REPR_CAP];
    sort_rows(before, 2);
    h_repr(before, want, sizeof(want));
    freeReplyObject(before);
    redisFree(c);
    if (h_stop(&s) < 0)
        return;
    c = h_reopen(&s, H_FLAGS("--appendonly", "yes"));
    if (!c)
        return;
    /* The harness waits for any reply; redis-server answers -LOADING first. */
    for (int i = 0; i < 500; i++) {
        redisReply *pong = H_CALL(c, "PING");
        int loading = pong && pong->type == REDIS_REPLY_ERROR;
        freeReplyObject(pong);
        if (!loading)
            break;
        h_sleep_ms(10);
    }
    redisReply *after = H_CALL(c, "HGETALL", "h");
    sort_rows(after, 2);
    CHECK(after && !strcmp(h_repr(after, got, sizeof(got)), want),
          "after the log's replay: %s, before: %s", got, want);
    freeReplyObject(after);
    EXPECT_INT(c, 0, "EXISTS", "gone");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* ---- RESP3 -------------------------------------------------------------- */

static void test_resp3(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 2, "HSET", "h", "a", "1", "b", "2");
    redisFree(c);
    struct h_raw r;
    if (h_raw_open_resp3(&r, &srv) < 0)
        return;
    RAW_SEND(&r, "HGETALL h\r\n");
    RAW_EXPECT(&r, "%2\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n");
    RAW_SEND(&r, "HGETALL nosuch\r\n");
    RAW_EXPECT(&r, "%0\r\n");
    RAW_SEND(&r, "HKEYS h\r\n");
    RAW_EXPECT(&r, "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
    RAW_SEND(&r, "HVALS nosuch\r\n");
    RAW_EXPECT(&r, "*0\r\n");
    RAW_SEND(&r, "HGET h x\r\n");
    RAW_EXPECT(&r, "_\r\n");
    RAW_SEND(&r, "HMGET h a x\r\n");
    RAW_EXPECT(&r, "*2\r\n$1\r\n1\r\n_\r\n");
    RAW_SEND(&r, "HRANDFIELD nosuch\r\n");
    RAW_EXPECT(&r, "_\r\n");
    RAW_SEND(&r, "HRANDFIELD nosuch 3 WITHVALUES\r\n");
    RAW_EXPECT(&r, "*0\r\n");
    RAW_SEND(&r, "HRANDFIELD h -1 WITHVALUES\r\n");
    RAW_EXPECT_MATCH(&r, "*1\r\n*2\r\n$1\r\n*\r\n$1\r\n*\r\n");
    RAW_SEND(&r, "HRANDFIELD h 1 WITHVALUES\r\n");
    RAW_EXPECT_MATCH(&r, "*1\r\n*2\r\n$1\r\n*\r\n$1\r\n*\r\n");
    RAW_SEND(&r, "HRANDFIELD h -2\r\n");
    RAW_EXPECT_MATCH(&r, "*2\r\n$1\r\n*\r\n$1\r\n*\r\n");
    RAW_SEND(&r, "HRANDFIELD h 5 WITHVALUES\r\n");
    RAW_EXPECT_MATCH(&r, "*2\r\n*2\r\n$1\r\n*\r\n$1\r\n*\r\n*2\r\n$1\r\n*\r\n$1\r\n*\r\n");
    RAW_SEND(&r, "HSCAN h 0\r\n");
    RAW_EXPECT(&r, "*2\r\n$1\r\n0\r\n*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n");
    RAW_SEND(&r, "HINCRBYFLOAT h a 0.5\r\n");
    RAW_EXPECT(&r, "$3\r\n1.5\r\n");
    RAW_SEND(&r, "HINCRBY h b 1\r\n");
    RAW_EXPECT(&r, ":3\r\n");
    RAW_SEND(&r, "HMSET h c 3\r\n");
    RAW_EXPECT(&r, "+OK\r\n");
    RAW_SEND(&r, "HELLO 2\r\n");
    RAW_EXPECT_MATCH(&r, "*");
    RAW_SEND(&r, "HGETALL nosuch\r\n");
    RAW_EXPECT(&r, "*0\r\n");
    RAW_SEND(&r, "HGET h x\r\n");
    RAW_EXPECT(&r, "$-1\r\n");
    RAW_SEND(&r, "HRANDFIELD h -1 WITHVALUES\r\n");
    RAW_EXPECT_MATCH(&r, "*2\r\n$1\r\n*\r\n$*\r\n*\r\n");
    h_raw_close(&r);
}

/* ---- the differential run ----------------------------------------------- */

#define KEYS 3
#define FIELDS 12
#define MAX_ARGS 8

/* The model: per key, which fields are set and their values. */
struct model {
    char set[KEYS][FIELDS];
    char val[KEYS][FIELDS][48];
};

static unsigned long long rng_state;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

/* Fields in byte order by index (the names are chosen so); some longer than
 * hash-max-listpack-value, to convert by length as well as by count. */
static const char *const field_names[FIELDS] = {
    "a", "b", "c", "d", "e", "f", "g", "h", "i-a-rather-long-field-name", "j", "k", "l"};
static const char *const key_names[KEYS] = {"d0", "d1", "d2"};

static void random_value(char *out, size_t cap)
{
    static const long long edges[] = {LLONG_MAX, LLONG_MIN, LLONG_MAX - 5, LLONG_MIN + 5, 0, -1};
    switch (rnd(6)) {
    case 0:
        snprintf(out, cap, "v%u", rnd(100));
        break;
    case 1:
        snprintf(out, cap, "a-value-longer-than-sixteen-%u", rnd(10));
        break;
    case 2:
        snprintf(out, cap, "%lld", edges[rnd(sizeof(edges) / sizeof(edges[0]))]);
        break;
    default:
        snprintf(out, cap, "%d", (int)rnd(200) - 100);
        break;
    }
}

/* Appends "'s'" or ", 's'" to out. */
static void add_bulk(char *out, size_t cap, int first, const char *s)
{
    size_t n = strlen(out);
    snprintf(out + n, cap - n, "%s'%s'", first ? "" : ", ", s);
}

static int model_len(const struct model *m, int k)
{
    int n = 0;
    for (int f = 0; f < FIELDS; f++)
        n += m->set[k][f];
    return n;
}

/* Runs one command on the model; its reply's h_repr text into want. */
static void model_apply(struct model *m, int argc, const char *const *argv, const int *fidx, int k,
                        char *want, size_t cap)
{
    const char *cmd = argv[0];
    want[0] = '\0';
    if (!strcmp(cmd, "HSET") || !strcmp(cmd, "HMSET")) {
        int added = 0;
        for (int j = 2; j < argc; j += 2) {
            int f = fidx[j];
            added += !m->set[k][f];
            m->set[k][f] = 1;
            snprintf(m->val[k][f], sizeof(m->val[k][f]), "%s", argv[j + 1]);
        }
        if (!strcmp(cmd, "HSET"))
            snprintf(want, cap, ":%d", added);
        else
            snprintf(want, cap, "+OK");
    } else if (!strcmp(cmd, "HSETNX")) {
        int f = fidx[2];
        snprintf(want, cap, ":%d", !m->set[k][f]);
        if (!m->set[k][f]) {
            m->set[k][f] = 1;
            snprintf(m->val[k][f], sizeof(m->val[k][f]), "%s", argv[3]);
        }
    } else if (!strcmp(cmd, "HDEL")) {
        int n = 0;
        for (int j = 2; j < argc; j++) {
            n += m->set[k][fidx[j]];
            m->set[k][fidx[j]] = 0;
        }
        snprintf(want, cap, ":%d", n);
    } else if (!strcmp(cmd, "HINCRBY")) {
        int f = fidx[2];
        long long v = 0, incr = strtoll(argv[3], NULL, 10);
        char *end = NULL;
        if (m->set[k][f]) {
            errno = 0;
            v = strtoll(m->val[k][f], &end, 10);
            /* Canonical integers only: what printing it back gives. */
            char back[32];
            snprintf(back, sizeof(back), "%lld", v);
            if (errno || *end || strcmp(back, m->val[k][f]) != 0) {
                snprintf(want, cap, "-ERR hash value is not an integer");
                return;
            }
        }
        if ((incr < 0 && v < 0 && incr < LLONG_MIN - v) ||
            (incr > 0 && v > 0 && incr > LLONG_MAX - v)) {
            snprintf(want, cap, "-ERR increment or decrement would overflow");
            return;
        }
        v += incr;
        m->set[k][f] = 1;
        snprintf(m->val[k][f], sizeof(m->val[k][f]), "%lld", v);
        snprintf(want, cap, ":%lld", v);
    } else if (!strcmp(cmd, "HGET")) {
        int f = fidx[2];
        if (m->set[k][f])
            snprintf(want, cap, "'%s'", m->val[k][f]);
        else
            snprintf(want, cap, "(nil)");
    } else if (!strcmp(cmd, "HLEN")) {
        snprintf(want, cap, ":%d", model_len(m, k));
    } else if (!strcmp(cmd, "HMGET")) {
        snprintf(want, cap, "[");
        for (int j = 2; j < argc; j++) {
            if (m->set[k][fidx[j]]) {
                add_bulk(want, cap, j == 2, m->val[k][fidx[j]]);
            } else {
                size_t n = strlen(want);
                snprintf(want + n, cap - n, "%s(nil)", j == 2 ? "" : ", ");
            }
        }
        strncat(want, "]", cap - strlen(want) - 1);
    } else { /* HGETALL, HKEYS: in field order */
        int first = 1, vals = !strcmp(cmd, "HGETALL");
        snprintf(want, cap, "[");
        for (int f = 0; f < FIELDS; f++) {
            if (!m->set[k][f])
                continue;
            add_bulk(want, cap, first, field_names[f]);
            if (vals)
                add_bulk(want, cap, 0, m->val[k][f]);
            first = 0;
        }
        strncat(want, "]", cap - strlen(want) - 1);
    }
}

static int is_listing(const char *cmd)
{
    return !strcmp(cmd, "HGETALL") || !strcmp(cmd, "HKEYS");
}

static void test_differential(void)
{
    const char *seed_env = getenv("SEED"), *ops_env = getenv("OPS");
    unsigned long long seed = seed_env ? strtoull(seed_env, NULL, 10)
                                       : (unsigned long long)time(NULL) ^ (unsigned long long)getpid();
    long ops = ops_env ? atol(ops_env) : 6000 / H_SLOW;
    printf("test_differential: SEED=%llu OPS=%ld\n", seed, ops);
    rng_state = seed;

    struct h_server ref;
    int have_ref = h_start_comparison(&ref);
    redisContext *rc = have_ref ? h_connect(&ref) : NULL;

    redisContext *c = h_connect_flushed(&srv);
    static const char *const config[][2] = {
        {"hash-max-listpack-entries", "4"}, {"hash-max-listpack-value", "16"}};
    for (size_t i = 0; i < 2; i++) {
        EXPECT_OK(c, "CONFIG", "SET", config[i][0], config[i][1]);
        if (rc)
            freeReplyObject(H_CALL(rc, "CONFIG", "SET", config[i][0], config[i][1]));
    }
    if (rc)
        freeReplyObject(H_CALL(rc, "FLUSHALL"));

    static struct model m;
    memset(&m, 0, sizeof(m));
    static char want[REPR_CAP], got[REPR_CAP], theirs[REPR_CAP];
    char values[MAX_ARGS][48];
    int failures = 0, grown[KEYS] = {0}, crossings = 0;
    /* Past ops, it goes on (up to 4x) until the hashes crossed the entry
     * limit five times: a seed that crosses it less still tests it. */
    for (long op = 0; (op < ops || (crossings < 5 && op < 4 * ops)) && failures < 5; op++) {
        const char *argv[MAX_ARGS];
        int fidx[MAX_ARGS] = {0}, argc = 2, k = (int)rnd(KEYS);
        /* Deletes weigh as much as sets, so hashes empty and shrink too. */
        static const char *const cmds[] = {"HSET", "HSET", "HMSET", "HSETNX", "HDEL", "HDEL",
                                           "HDEL", "HINCRBY", "HINCRBY", "HGETALL", "HKEYS",
                                           "HGET", "HLEN", "HMGET"};
        const char *cmd = cmds[rnd(sizeof(cmds) / sizeof(cmds[0]))];
        argv[0] = cmd;
        argv[1] = key_names[k];
        if (!strcmp(cmd, "HSET") || !strcmp(cmd, "HMSET")) {
            int pairs = 1 + (int)rnd(3);
            for (int p = 0; p < pairs; p++) {
                fidx[argc] = (int)rnd(FIELDS);
                argv[argc] = field_names[fidx[argc]];
                random_value(values[argc + 1], sizeof(values[0]));
                argv[argc + 1] = values[argc + 1];
                argc += 2;
            }
        } else if (!strcmp(cmd, "HSETNX")) {
            fidx[2] = (int)rnd(FIELDS);
            argv[2] = field_names[fidx[2]];
            random_value(values[3], sizeof(values[0]));
            argv[3] = values[3];
            argc = 4;
        } else if (!strcmp(cmd, "HDEL") || !strcmp(cmd, "HMGET")) {
            int n = 1 + (int)rnd(4);
            for (int j = 0; j < n; j++, argc++) {
                fidx[argc] = (int)rnd(FIELDS);
                argv[argc] = field_names[fidx[argc]];
            }
        } else if (!strcmp(cmd, "HINCRBY")) {
            static const char *const incrs[] = {"1", "-1", "7", "-100", "9223372036854775807",
                                                "-9223372036854775808", "0"};
            fidx[2] = (int)rnd(FIELDS);
            argv[2] = field_names[fidx[2]];
            argv[3] = incrs[rnd(sizeof(incrs) / sizeof(incrs[0]))];
            argc = 4;
        } else if (!strcmp(cmd, "HGET")) {
            fidx[2] = (int)rnd(FIELDS);
            argv[2] = field_names[fidx[2]];
            argc = 3;
        }
        model_apply(&m, argc, argv, fidx, k, want, sizeof(want));
        /* Past the entry limit (4) and back to half of it, where rbkv
         * packs a map again. */
        int len = model_len(&m, k);
        if (len > 4)
            grown[k] = 1;
        if (grown[k] && len <= 2) {
            grown[k] = 0;
            crossings++;
        }
        redisReply *r = h_command(c, argc, argv, NULL);
        h_repr(r, got, sizeof(got));
        if (r && is_listing(cmd)) {
            /* rbkv's promise: already in field order (redis-server's
             * replies, when it is the server under test, are sorted here). */
            sort_rows(r, !strcmp(cmd, "HGETALL") ? 2 : 1);
            h_repr(r, theirs, sizeof(theirs));
            if (!CHECK(h_is_reference() || !strcmp(got, theirs),
                       "op %ld %s %s: not in field order: %s", op, cmd, argv[1], got))
                failures++;
            strcpy(got, theirs);
        }
        freeReplyObject(r);
        if (!CHECK(!strcmp(got, want), "op %ld (SEED=%llu) %s %s ...: rbkv %s, model %s", op, seed,
                   cmd, argv[1], got, want))
            failures++;
        if (rc) {
            r = h_command(rc, argc, argv, NULL);
            if (is_listing(cmd))
                sort_rows(r, !strcmp(cmd, "HGETALL") ? 2 : 1);
            h_repr(r, theirs, sizeof(theirs));
            freeReplyObject(r);
            if (!CHECK(!strcmp(got, theirs), "op %ld (SEED=%llu) %s %s ...: rbkv %s, redis %s", op,
                       seed, cmd, argv[1], got, theirs))
                failures++;
        }
    }
    CHECK(ops < 1000 || crossings >= 5, "the hashes crossed the entry limit both ways only %d times",
          crossings);
    printf("test_differential: %d crossings of the entry limit and back\n", crossings);
    /* The contents at the end, key by key, and the keys that exist. */
    for (int k = 0; k < KEYS; k++) {
        const char *argv[] = {"HGETALL", key_names[k]};
        model_apply(&m, 2, argv, NULL, k, want, sizeof(want));
        redisReply *r = h_command(c, 2, argv, NULL);
        if (h_is_reference())
            sort_rows(r, 2);
        CHECK(!strcmp(h_repr(r, got, sizeof(got)), want), "%s at the end: rbkv %s, model %s",
              key_names[k], got, want);
        freeReplyObject(r);
        const char *exists[] = {"EXISTS", key_names[k]};
        snprintf(want, sizeof(want), ":%d", model_len(&m, k) > 0);
        r = h_command(c, 2, exists, NULL);
        CHECK(!strcmp(h_repr(r, got, sizeof(got)), want), "EXISTS %s: %s, model %s",
              key_names[k], got, want);
        freeReplyObject(r);
    }
    EXPECT_OK(c, "CONFIG", "SET", "hash-max-listpack-entries", "128");
    EXPECT_OK(c, "CONFIG", "SET", "hash-max-listpack-value", "64");
    redisFree(c);
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
    H_RUN(test_set_and_get);
    H_RUN(test_del);
    H_RUN(test_getall);
    H_RUN(test_hincr);
    H_RUN(test_randfield);
    H_RUN(test_scan);
    H_RUN(test_events);
    H_RUN(test_dirty_and_watch);
    H_RUN(test_resp3);
    H_RUN(test_differential);
    H_RUN(test_hincrbyfloat_replay);
    h_stop(&srv);
    return h_finish();
}
