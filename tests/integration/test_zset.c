/*
 * test_zset.c - end-to-end tests of the sorted-set commands (server/commands/cmd_zset.c)
 * through hiredis and, for RESP3 shapes, raw sockets: ZADD (NX XX GT LT CH
 * INCR) ZINCRBY ZREM ZCARD ZSCORE ZMSCORE ZCOUNT ZLEXCOUNT ZRANK ZREVRANK
 * (WITHSCORE) ZRANGE (BYSCORE BYLEX REV LIMIT WITHSCORES) ZRANGEBYSCORE
 * ZREVRANGEBYSCORE ZRANGEBYLEX ZREVRANGEBYLEX ZREVRANGE ZRANGESTORE
 * ZREMRANGEBY{RANK,SCORE,LEX} ZPOPMIN ZPOPMAX ZRANDMEMBER ZSCAN ZUNION[STORE]
 * ZINTER[STORE] ZDIFF[STORE] ZINTERCARD, and sorted-set keys under TYPE,
 * COPY, RENAME, MOVE and deadlines.
 *
 * One server for the whole file; each test FLUSHALLs first. Expected replies
 * are Redis 7's (checked against redis-server 7.0, and 7.2 for WITHSCORE);
 * the redis-cli transcript tests/integration/transcripts/zset.txt covers more
 * error texts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define BIG 3000 /* members of the large sets: past the 128 of a one-call ZSCAN */

static struct h_server srv;

/* The large sets: members m00000.. scored their number. */
static const struct h_coll zset_coll = {"ZADD", "ZREM", "ZSCAN", 'm', 1};

static void test_zadd_and_lookups(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 3, "ZADD", "z", "1", "a", "2", "b", "3", "c");
    EXPECT_INT(c, 1, "ZADD", "z", "1", "a", "4", "d");
    EXPECT_INT(c, 2, "ZADD", "z", "CH", "10", "a", "4", "d", "5", "e");
    EXPECT_INT(c, 0, "ZADD", "z", "NX", "100", "a");
    EXPECT_BULK(c, "10", "ZSCORE", "z", "a");
    EXPECT_INT(c, 0, "ZADD", "z", "XX", "7", "g");
    EXPECT_NIL(c, "ZSCORE", "z", "g");
    EXPECT_INT(c, 1, "ZADD", "z", "GT", "CH", "1", "a", "30", "b");
    EXPECT_INT(c, 1, "ZADD", "z", "LT", "CH", "1", "a", "40", "c");
    EXPECT_INT(c, 1, "ZADD", "z", "gt", "xx", "ch", "2", "a", "9", "nosuch");
    EXPECT_BULK(c, "7", "ZADD", "z", "INCR", "5", "a");
    EXPECT_NIL(c, "ZADD", "z", "NX", "INCR", "5", "a");
    EXPECT_NIL(c, "ZADD", "z", "GT", "INCR", "-1", "a");
    EXPECT_NIL(c, "ZADD", "z", "GT", "INCR", "0", "a"); /* not greater: no change */
    EXPECT_NIL(c, "ZADD", "missing", "XX", "INCR", "1", "a");
    EXPECT_INT(c, 0, "ZADD", "missing", "XX", "1", "a");
    EXPECT_INT(c, 0, "EXISTS", "missing");
    EXPECT_ERR(c, "ERR XX and NX options at the same time are not compatible", "ZADD", "z", "NX",
               "XX", "1", "a");
    EXPECT_ERR(c, "ERR GT, LT, and/or NX options at the same time are not compatible", "ZADD",
               "z", "GT", "LT", "1", "a");
    EXPECT_ERR(c, "ERR GT, LT, and/or NX options at the same time are not compatible", "ZADD",
               "z", "NX", "LT", "1", "a");
    EXPECT_ERR(c, "ERR INCR option supports a single increment-element pair", "ZADD", "z",
               "INCR", "1", "a", "2", "b");
    EXPECT_ERR(c, "ERR syntax error", "ZADD", "z", "1", "a", "2");
    EXPECT_ERR(c, "ERR syntax error", "ZADD", "z", "NX", "CH");
    EXPECT_ERR(c, "ERR value is not a valid float", "ZADD", "z", "1", "a", "x", "b");
    EXPECT_ERR(c, "ERR value is not a valid float", "ZADD", "z", "nan", "a");
    EXPECT_NIL(c, "ZSCORE", "z", "x"); /* nothing added before the bad score */
    EXPECT_ERR(c, "ERR wrong number of arguments for 'zadd' command", "ZADD", "z", "1");

    /* Infinities, and the NaN an increment can make. */
    EXPECT_INT(c, 2, "ZADD", "z", "+inf", "top", "-inf", "bottom");
    EXPECT_BULK(c, "inf", "ZSCORE", "z", "top");
    EXPECT_BULK(c, "-inf", "ZSCORE", "z", "bottom");
    EXPECT_ERR(c, "ERR resulting score is not a number (NaN)", "ZADD", "z", "INCR", "-inf", "top");
    EXPECT_ERR(c, "ERR resulting score is not a number (NaN)", "ZINCRBY", "z", "+inf", "bottom");
    EXPECT_BULK(c, "inf", "ZSCORE", "z", "top");
    EXPECT_BULK(c, "2.5", "ZINCRBY", "z", "2.5", "fresh");
    EXPECT_BULK(c, "3", "ZINCRBY", "z", "0.5", "fresh");
    EXPECT_ERR(c, "ERR value is not a valid float", "ZINCRBY", "z", "x", "fresh");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'zincrby' command", "ZINCRBY", "z", "1");

    EXPECT_INT(c, 8, "ZCARD", "z");
    EXPECT_INT(c, 0, "ZCARD", "nosuch");
    EXPECT_REPLY(c, "['7', (nil), '3']", "ZMSCORE", "z", "a", "x", "c");
    EXPECT_REPLY(c, "[(nil), (nil)]", "ZMSCORE", "nosuch", "a", "b");
    EXPECT_NIL(c, "ZSCORE", "nosuch", "a");

    /* ZREM deletes the key with its last member. */
    EXPECT_INT(c, 2, "ZREM", "z", "a", "b", "a", "nosuch");
    EXPECT_INT(c, 0, "ZREM", "nosuch", "a");
    EXPECT_INT(c, 2, "ZADD", "one", "1", "x", "2", "y");
    EXPECT_INT(c, 2, "ZREM", "one", "x", "y");
    EXPECT_INT(c, 0, "EXISTS", "one");

    /* Binary-safe members; -0 and 0 tie and the member decides. */
    EXPECT_BIN(c, ":2", H_S("ZADD"), H_S("bin"), H_S("0"), H_S("a\0b"), H_S("-0"), H_S("a"));
    EXPECT_BIN(c, "['a', 'a\\x00b']", H_S("ZRANGE"), H_S("bin"), H_S("0"), H_S("-1"));
    /* "-0" as Redis's skiplist encoding says, "0" from its listpack. */
    EXPECT_MATCH(c, "'*0'", "ZSCORE", "bin", "a");

    /* WRONGTYPE everywhere a sorted set is read or written. */
    EXPECT_OK(c, "SET", "str", "v");
    static const char *const wrong[][6] = {
        {"ZADD", "str", "1", "a"}, {"ZINCRBY", "str", "1", "a"}, {"ZREM", "str", "a"},
        {"ZCARD", "str"},          {"ZSCORE", "str", "a"},       {"ZMSCORE", "str", "a"},
        {"ZCOUNT", "str", "0", "1"}, {"ZLEXCOUNT", "str", "-", "+"}, {"ZRANK", "str", "a"},
        {"ZRANGE", "str", "0", "1"}, {"ZPOPMIN", "str"},          {"ZRANDMEMBER", "str"},
        {"ZSCAN", "str", "0"},     {"ZREMRANGEBYRANK", "str", "0", "1"},
        {"ZUNION", "1", "str"},    {"ZRANGESTORE", "d", "str", "0", "1"},
    };
    for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
        int argc = 0;
        while (argc < 6 && wrong[i][argc])
            argc++;
        h_expect(__FILE__, __LINE__, c,
                 "-WRONGTYPE Operation against a key holding the wrong kind of value", 0, argc,
                 wrong[i], NULL);
    }
    EXPECT_BULK(c, "v", "GET", "str");
    redisFree(c);
}

static void test_ranks_and_counts(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 6, "ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "6", "f");
    EXPECT_INT(c, 2, "ZRANK", "z", "c");
    EXPECT_INT(c, 3, "ZREVRANK", "z", "c");
    EXPECT_NIL(c, "ZRANK", "z", "x");
    EXPECT_NIL(c, "ZRANK", "nosuch", "x");
    /* Redis 7.2's WITHSCORE, which the 7.0 reference (h_is_reference) has not:
     * there ZRANK's third argument is a wrong number of arguments. */
    if (!h_is_reference()) {
        EXPECT_REPLY(c, "[:2, '3']", "ZRANK", "z", "c", "WITHSCORE");
        EXPECT_REPLY(c, "[:0, '6']", "ZREVRANK", "z", "f", "withscore");
        EXPECT_REPLY(c, "(nil)", "ZRANK", "z", "x", "WITHSCORE");
        EXPECT_ERR(c, "ERR syntax error", "ZRANK", "z", "c", "WITHSCORES");
    }
    EXPECT_ERR(c, "ERR wrong number of arguments for 'zrank' command", "ZRANK", "z", "c",
               "WITHSCORE", "x");

    EXPECT_INT(c, 6, "ZCOUNT", "z", "-inf", "+inf");
    EXPECT_INT(c, 2, "ZCOUNT", "z", "(1", "3");
    EXPECT_INT(c, 0, "ZCOUNT", "z", "3", "(3");
    EXPECT_INT(c, 1, "ZCOUNT", "z", "3", "3");
    EXPECT_INT(c, 0, "ZCOUNT", "z", "5", "2");
    EXPECT_INT(c, 0, "ZCOUNT", "nosuch", "0", "1");
    EXPECT_ERR(c, "ERR min or max is not a float", "ZCOUNT", "z", "x", "1");
    EXPECT_ERR(c, "ERR min or max is not a float", "ZCOUNT", "z", "1", "((2");
    EXPECT_ERR(c, "ERR min or max is not a float", "ZCOUNT", "nosuch", "nan", "1");

    EXPECT_INT(c, 5, "ZADD", "lex", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e");
    EXPECT_INT(c, 5, "ZLEXCOUNT", "lex", "-", "+");
    EXPECT_INT(c, 2, "ZLEXCOUNT", "lex", "[b", "(d");
    EXPECT_INT(c, 0, "ZLEXCOUNT", "lex", "+", "-");
    EXPECT_INT(c, 0, "ZLEXCOUNT", "lex", "[d", "[b");
    EXPECT_INT(c, 0, "ZLEXCOUNT", "nosuch", "-", "+");
    EXPECT_ERR(c, "ERR min or max not valid string range item", "ZLEXCOUNT", "lex", "a", "+");
    EXPECT_ERR(c, "ERR min or max not valid string range item", "ZLEXCOUNT", "lex", "-x", "+");

    /* Ranks and counts on a set large enough for a deep tree. */
    h_coll_fill(c, &zset_coll, "big", BIG);
    EXPECT_INT(c, BIG, "ZCARD", "big");
    EXPECT_INT(c, 1234, "ZRANK", "big", "m01234");
    EXPECT_INT(c, BIG - 1 - 1234, "ZREVRANK", "big", "m01234");
    EXPECT_INT(c, 1001, "ZCOUNT", "big", "1000", "2000");
    EXPECT_INT(c, 999, "ZCOUNT", "big", "(1000", "(2000");
    EXPECT_INT(c, BIG - 10, "ZCOUNT", "big", "10", "+inf");
    EXPECT_INT(c, 10, "ZLEXCOUNT", "big", "[m00010", "(m00020"); /* lex is by name here */
    redisFree(c);
}

static void test_ranges(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 6, "ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "6", "f");
    EXPECT_REPLY(c, "['a', 'b', 'c']", "ZRANGE", "z", "0", "2");
    EXPECT_REPLY(c, "['e', '5', 'f', '6']", "ZRANGE", "z", "-2", "-1", "WITHSCORES");
    EXPECT_REPLY(c, "[]", "ZRANGE", "z", "5", "1");
    EXPECT_REPLY(c, "['f', 'e']", "ZRANGE", "z", "0", "1", "REV");
    EXPECT_REPLY(c, "['b', 'c', 'd', 'e']", "ZRANGE", "z", "(1", "5", "BYSCORE");
    EXPECT_REPLY(c, "['e', 'd']", "ZRANGE", "z", "5", "(1", "BYSCORE", "REV", "LIMIT", "0", "2");
    EXPECT_REPLY(c, "['c', 'd']", "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "2", "2");
    EXPECT_REPLY(c, "[]", "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "-1", "2");
    EXPECT_REPLY(c, "['e', 'f']", "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "4", "-1");
    EXPECT_REPLY(c, "[]", "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "6", "1");
    EXPECT_REPLY(c, "[]", "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "1", "0");
    EXPECT_REPLY(c, "['b', 'a']", "ZRANGE", "z", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "4",
                 "5");
    EXPECT_ERR(c, "ERR syntax error, LIMIT is only supported in combination with either BYSCORE "
                  "or BYLEX",
               "ZRANGE", "z", "0", "1", "LIMIT", "0", "1");
    EXPECT_ERR(c, "ERR syntax error, WITHSCORES not supported in combination with BYLEX",
               "ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES");
    EXPECT_ERR(c, "ERR syntax error", "ZRANGE", "z", "0", "1", "BYSCORE", "BYLEX");
    EXPECT_ERR(c, "ERR syntax error", "ZRANGE", "z", "0", "1", "LIMIT", "0");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "ZRANGE", "z", "a", "1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "ZRANGE", "z", "0", "1",
               "BYSCORE", "LIMIT", "x", "1");
    EXPECT_REPLY(c, "[]", "ZRANGE", "nosuch", "0", "-1");

    EXPECT_REPLY(c, "['f', '6', 'e', '5']", "ZREVRANGE", "z", "0", "1", "WITHSCORES");
    EXPECT_ERR(c, "ERR syntax error", "ZREVRANGE", "z", "0", "1", "REV");
    EXPECT_REPLY(c, "['b', '2', 'c', '3']", "ZRANGEBYSCORE", "z", "2", "(4", "WITHSCORES");
    EXPECT_REPLY(c, "['d', 'e']", "ZRANGEBYSCORE", "z", "(2", "+inf", "LIMIT", "1", "2");
    EXPECT_ERR(c, "ERR syntax error", "ZRANGEBYSCORE", "z", "1", "2", "BYSCORE");
    EXPECT_ERR(c, "ERR min or max is not a float", "ZRANGEBYSCORE", "z", "[1", "2");
    EXPECT_REPLY(c, "['d', 'c', 'b']", "ZREVRANGEBYSCORE", "z", "4", "2");
    EXPECT_REPLY(c, "['f', '6']", "ZREVRANGEBYSCORE", "z", "+inf", "-inf", "WITHSCORES", "LIMIT",
                 "0", "1");

    EXPECT_INT(c, 7, "ZADD", "lex", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e", "0", "f",
               "0", "g");
    EXPECT_REPLY(c, "['b', 'c', 'd']", "ZRANGEBYLEX", "lex", "[b", "(e");
    EXPECT_REPLY(c, "['d', 'e']", "ZRANGEBYLEX", "lex", "(b", "[e", "LIMIT", "1", "2");
    EXPECT_REPLY(c, "[]", "ZRANGEBYLEX", "lex", "[e", "[b");
    EXPECT_ERR(c, "ERR min or max not valid string range item", "ZRANGEBYLEX", "lex", "b", "e");
    EXPECT_ERR(c, "ERR syntax error, WITHSCORES not supported in combination with BYLEX",
               "ZRANGEBYLEX", "lex", "-", "+", "WITHSCORES");
    EXPECT_REPLY(c, "['g', 'f']", "ZREVRANGEBYLEX", "lex", "+", "-", "LIMIT", "0", "2");
    EXPECT_REPLY(c, "['d', 'c']", "ZREVRANGEBYLEX", "lex", "[e", "(b", "LIMIT", "1", "2");
    EXPECT_REPLY(c, "['g', 'f', 'e']", "ZRANGE", "lex", "+", "[e", "BYLEX", "REV");

    /* ZRANGESTORE: replaces the destination (any type, its TTL too), deletes
     * it for an empty result; the source may be the destination. */
    EXPECT_INT(c, 3, "ZRANGESTORE", "dst", "z", "0", "2");
    EXPECT_REPLY(c, "['a', '1', 'b', '2', 'c', '3']", "ZRANGE", "dst", "0", "-1", "WITHSCORES");
    EXPECT_OK(c, "SET", "s", "x", "EX", "100");
    EXPECT_INT(c, 2, "ZRANGESTORE", "s", "lex", "[b", "+", "BYLEX", "LIMIT", "0", "2");
    EXPECT_STATUS(c, "zset", "TYPE", "s");
    EXPECT_INT(c, -1, "TTL", "s");
    EXPECT_INT(c, 0, "ZRANGESTORE", "dst", "z", "10", "20");
    EXPECT_INT(c, 0, "EXISTS", "dst");
    EXPECT_INT(c, 2, "ZRANGESTORE", "z", "z", "5", "(2", "BYSCORE", "REV", "LIMIT", "1", "2");
    EXPECT_REPLY(c, "['c', 'd']", "ZRANGE", "z", "0", "-1");
    EXPECT_ERR(c, "ERR syntax error", "ZRANGESTORE", "dst", "z", "0", "-1", "WITHSCORES");
    EXPECT_INT(c, 0, "ZRANGESTORE", "dst", "nosuch", "0", "-1");

    /* Offsets far into a large set, from either end. */
    h_coll_fill(c, &zset_coll, "big", BIG);
    EXPECT_REPLY(c, "['m02000', 'm02001']", "ZRANGE", "big", "2000", "2001");
    EXPECT_REPLY(c, "['m01999', 'm01998']", "ZRANGE", "big", "1000", "1001", "REV");
    EXPECT_REPLY(c, "[]", "ZRANGE", "big", "-1001", "-1002", "REV");
    EXPECT_REPLY(c, "['m02500', 'm02501']", "ZRANGEBYSCORE", "big", "(1000", "+inf", "LIMIT",
                 "1499", "2");
    EXPECT_REPLY(c, "['m00499', 'm00498']", "ZREVRANGEBYSCORE", "big", "(1000", "-inf", "LIMIT",
                 "500", "2");
    EXPECT_REPLY(c, "['m02999']", "ZRANGEBYLEX", "big", "[m01000", "+", "LIMIT", "1999", "5");
    redisFree(c);
}

static void test_remrange_and_pop(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 6, "ZADD", "s", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "6", "f");
    EXPECT_INT(c, 2, "ZREMRANGEBYRANK", "s", "0", "1");
    EXPECT_INT(c, 1, "ZREMRANGEBYRANK", "s", "-1", "-1");
    EXPECT_INT(c, 0, "ZREMRANGEBYRANK", "s", "5", "10");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "ZREMRANGEBYRANK", "s", "a", "1");
    EXPECT_INT(c, 1, "ZREMRANGEBYSCORE", "s", "(3", "4");
    EXPECT_ERR(c, "ERR min or max is not a float", "ZREMRANGEBYSCORE", "s", "x", "1");
    EXPECT_REPLY(c, "['c', 'e']", "ZRANGE", "s", "0", "-1");
    EXPECT_INT(c, 2, "ZREMRANGEBYSCORE", "s", "-inf", "+inf");
    EXPECT_INT(c, 0, "EXISTS", "s");
    EXPECT_INT(c, 0, "ZREMRANGEBYRANK", "nosuch", "0", "-1");
    EXPECT_INT(c, 4, "ZADD", "l", "0", "a", "0", "b", "0", "c", "0", "d");
    EXPECT_INT(c, 2, "ZREMRANGEBYLEX", "l", "(a", "[c");
    EXPECT_ERR(c, "ERR min or max not valid string range item", "ZREMRANGEBYLEX", "l", "a", "c");
    EXPECT_REPLY(c, "['a', 'd']", "ZRANGE", "l", "0", "-1");

    EXPECT_INT(c, 4, "ZADD", "p", "1", "a", "2", "b", "3", "c", "4", "d");
    EXPECT_REPLY(c, "['a', '1']", "ZPOPMIN", "p");
    EXPECT_REPLY(c, "['d', '4', 'c', '3']", "ZPOPMAX", "p", "2");
    EXPECT_REPLY(c, "[]", "ZPOPMIN", "p", "0");
    EXPECT_ERR(c, "ERR value is out of range, must be positive", "ZPOPMIN", "p", "-1");
    EXPECT_ERR(c, "ERR syntax error", "ZPOPMIN", "p", "1", "2");
    EXPECT_REPLY(c, "['b', '2']", "ZPOPMIN", "p", "10");
    EXPECT_INT(c, 0, "EXISTS", "p");
    EXPECT_REPLY(c, "[]", "ZPOPMIN", "nosuch");
    EXPECT_REPLY(c, "[]", "ZPOPMAX", "nosuch", "3");

    h_coll_fill(c, &zset_coll, "big", BIG);
    EXPECT_INT(c, 1000, "ZREMRANGEBYRANK", "big", "1000", "1999");
    EXPECT_INT(c, 2000, "ZCARD", "big");
    EXPECT_INT(c, 1000, "ZRANK", "big", "m02000");
    EXPECT_INT(c, 500, "ZREMRANGEBYSCORE", "big", "(2499", "+inf");
    EXPECT_INT(c, 10, "ZREMRANGEBYLEX", "big", "[m00000", "(m00010");
    EXPECT_INT(c, 1490, "ZCARD", "big");
    redisFree(c);
}

static void test_randmember_and_scan(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_NIL(c, "ZRANDMEMBER", "nosuch");
    EXPECT_REPLY(c, "[]", "ZRANDMEMBER", "nosuch", "5");
    EXPECT_INT(c, 3, "ZADD", "a", "1", "x", "2", "y", "3", "z");
    EXPECT_MATCH(c, "'*'", "ZRANDMEMBER", "a");
    EXPECT_REPLY(c, "[]", "ZRANDMEMBER", "a", "0");
    EXPECT_ERR(c, "ERR syntax error", "ZRANDMEMBER", "a", "1", "x");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "ZRANDMEMBER", "a", "x");
    EXPECT_ERR(c, "ERR value is out of range", "ZRANDMEMBER", "a", "-9223372036854775807",
               "WITHSCORES");

    h_coll_fill(c, &zset_coll, "big", BIG);
    redisReply *r = H_CALL(c, "ZRANDMEMBER", "big", "100");
    if (CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 100, "ZRANDMEMBER 100"))
        CHECK(h_count_distinct(r, 0, 1) == 100, "ZRANDMEMBER with a positive count repeats");
    freeReplyObject(r);
    r = H_CALL(c, "ZRANDMEMBER", "a", "-50", "WITHSCORES");
    if (CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 100, "ZRANDMEMBER -50")) {
        CHECK(h_count_distinct(r, 0, 2) <= 3, "ZRANDMEMBER -50 of 3 members");
        for (size_t i = 0; i < r->elements; i += 2)
            CHECK(r->element[i + 1]->str[0] - '1' == r->element[i]->str[0] - 'x',
                  "a member's score");
    }
    freeReplyObject(r);
    r = H_CALL(c, "ZRANDMEMBER", "a", "5", "WITHSCORES");
    CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 6 && h_count_distinct(r, 0, 2) == 3,
          "ZRANDMEMBER above the size lists each member once");
    freeReplyObject(r);

    /* ZSCAN: a small set in one call, as Redis; a large one by cursor, every
     * member at least once. */
    EXPECT_REPLY(c, "['0', ['x', '1', 'y', '2', 'z', '3']]", "ZSCAN", "a", "0");
    EXPECT_REPLY(c, "['0', ['y', '2']]", "ZSCAN", "a", "0", "MATCH", "y*");
    EXPECT_REPLY(c, "['0', []]", "ZSCAN", "nosuch", "0");
    EXPECT_ERR(c, "ERR syntax error", "ZSCAN", "a", "0", "COUNT", "0");
    EXPECT_ERR(c, "ERR syntax error", "ZSCAN", "a", "0", "TYPE", "zset");
    EXPECT_ERR(c, "ERR invalid cursor", "ZSCAN", "a", "x");
    /* Members come and go meanwhile, resizing the table; m00000.. stay. */
    H_COLL_SCAN_CHURN(c, &zset_coll, "big", BIG);
    EXPECT_REPLY(c, "['0', ['m00007', '7']]", "ZSCAN", "big", "0", "MATCH", "m00007",
                 "COUNT", "100000");
    redisFree(c);
}

static void test_set_algebra(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 3, "ZADD", "a", "1", "x", "2", "y", "3", "z");
    EXPECT_INT(c, 3, "ZADD", "b", "10", "y", "20", "z", "30", "w");
    EXPECT_INT(c, 4, "ZUNIONSTORE", "u", "2", "a", "b");
    EXPECT_REPLY(c, "['x', '1', 'y', '12', 'z', '23', 'w', '30']", "ZRANGE", "u", "0", "-1",
                 "WITHSCORES");
    EXPECT_REPLY(c, "['x', '2', 'y', '30', 'z', '60', 'w', '90']", "ZUNION", "2", "a", "b",
                 "WEIGHTS", "2", "3", "AGGREGATE", "MAX", "WITHSCORES");
    EXPECT_REPLY(c, "['x', '1', 'y', '2', 'z', '3', 'w', '30']", "ZUNION", "2", "a", "b",
                 "AGGREGATE", "MIN", "WITHSCORES");
    EXPECT_INT(c, 2, "ZINTERSTORE", "i", "2", "a", "b");
    EXPECT_REPLY(c, "['y', '12', 'z', '23']", "ZRANGE", "i", "0", "-1", "WITHSCORES");
    EXPECT_REPLY(c, "['y', 'z']", "ZINTER", "2", "b", "a");
    EXPECT_REPLY(c, "['y', '10', 'z', '20']", "ZINTER", "2", "a", "b", "AGGREGATE", "MAX",
                 "WEIGHTS", "0", "1", "WITHSCORES");
    EXPECT_INT(c, 0, "ZINTERSTORE", "i", "2", "a", "nosuch");
    EXPECT_INT(c, 0, "EXISTS", "i");
    EXPECT_INT(c, 1, "ZDIFFSTORE", "d", "2", "a", "b");
    EXPECT_REPLY(c, "['x', '1']", "ZRANGE", "d", "0", "-1", "WITHSCORES");
    EXPECT_REPLY(c, "['w', '30']", "ZDIFF", "2", "b", "a", "WITHSCORES");
    EXPECT_REPLY(c, "['x', 'y', 'z']", "ZDIFF", "2", "a", "nosuch");
    EXPECT_REPLY(c, "[]", "ZDIFF", "1", "nosuch");
    EXPECT_INT(c, 2, "ZINTERCARD", "2", "a", "b");
    EXPECT_INT(c, 1, "ZINTERCARD", "2", "a", "b", "LIMIT", "1");
    EXPECT_INT(c, 2, "ZINTERCARD", "2", "a", "b", "LIMIT", "0");
    EXPECT_ERR(c, "ERR LIMIT can't be negative", "ZINTERCARD", "2", "a", "b", "LIMIT", "-1");
    EXPECT_ERR(c, "ERR at least 1 input key is needed for 'zintercard' command", "ZINTERCARD",
               "0", "a");
    EXPECT_ERR(c, "ERR at least 1 input key is needed for 'zunionstore' command", "ZUNIONSTORE",
               "u", "0", "a");
    EXPECT_ERR(c, "ERR syntax error", "ZUNION", "3", "a", "b");
    EXPECT_ERR(c, "ERR syntax error", "ZUNION", "2", "a", "b", "WEIGHTS", "1");
    EXPECT_ERR(c, "ERR weight value is not a float", "ZUNION", "2", "a", "b", "WEIGHTS", "1", "x");
    EXPECT_ERR(c, "ERR syntax error", "ZUNION", "2", "a", "b", "AGGREGATE", "avg");
    EXPECT_ERR(c, "ERR syntax error", "ZDIFF", "2", "a", "b", "WEIGHTS", "1", "1");
    EXPECT_ERR(c, "ERR syntax error", "ZUNIONSTORE", "u", "2", "a", "b", "WITHSCORES");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "ZUNION", "x", "a");
    /* inf * 0 and inf + -inf count as 0. */
    EXPECT_INT(c, 1, "ZADD", "inf", "+inf", "x");
    EXPECT_INT(c, 1, "ZADD", "ninf", "-inf", "x");
    EXPECT_REPLY(c, "['x', '0']", "ZUNION", "2", "inf", "ninf", "WITHSCORES");
    EXPECT_REPLY(c, "['x', '0']", "ZUNION", "1", "inf", "WEIGHTS", "0", "WITHSCORES");
    /* The destination may be a source. */
    EXPECT_INT(c, 4, "ZUNIONSTORE", "a", "2", "a", "b");
    EXPECT_INT(c, 4, "ZCARD", "a");
    redisFree(c);
}

static void test_keyspace(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 2, "ZADD", "z", "1", "a", "2", "b");
    EXPECT_STATUS(c, "zset", "TYPE", "z");
    EXPECT_INT(c, 1, "COPY", "z", "c");
    EXPECT_INT(c, 1, "ZADD", "c", "3", "x");
    EXPECT_INT(c, 2, "ZCARD", "z"); /* the copy is deep */
    EXPECT_INT(c, 0, "COPY", "z", "c");
    EXPECT_INT(c, 1, "COPY", "z", "c", "REPLACE");
    EXPECT_INT(c, 2, "ZCARD", "c");
    EXPECT_INT(c, 1, "COPY", "z", "c", "DB", "1");
    EXPECT_OK(c, "RENAME", "c", "r");
    EXPECT_REPLY(c, "['a', 'b']", "ZRANGE", "r", "0", "-1");
    EXPECT_INT(c, 1, "EXPIRE", "r", "100");
    EXPECT_INT(c, 1, "MOVE", "r", "2");
    EXPECT_INT(c, 0, "EXISTS", "r");
    EXPECT_OK(c, "SELECT", "2");
    EXPECT_INT_RANGE(c, 98, 100, "TTL", "r");
    EXPECT_REPLY(c, "['a', 'b']", "ZRANGE", "r", "0", "-1");
    EXPECT_OK(c, "SELECT", "1");
    EXPECT_REPLY(c, "['a', 'b']", "ZRANGE", "c", "0", "-1");
    EXPECT_OK(c, "SELECT", "0");
    /* A set past its deadline is gone for every command. */
    EXPECT_INT(c, 1, "PEXPIRE", "z", "1");
    h_sleep_ms(20); /* the test: the deadline passes */
    EXPECT_INT(c, 0, "ZCARD", "z");
    EXPECT_INT(c, 1, "ZADD", "z", "5", "new");
    EXPECT_REPLY(c, "['new']", "ZRANGE", "z", "0", "-1");
    EXPECT_INT(c, 1, "DEL", "z");
    redisFree(c);
}

/* Scores are printed as Redis 7.0 prints them, "%.17g" (7.2 prints the
 * shortest text instead): the twin run on redis-server checks the texts. */
static void test_score_text(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 6, "ZADD", "z", "0.1", "a", "1e17", "b", "1.5e-7", "c", "3", "d", "-inf", "e",
               "4611686018427387904", "f");
    EXPECT_BULK(c, "0.10000000000000001", "ZSCORE", "z", "a");
    EXPECT_BULK(c, "1e+17", "ZSCORE", "z", "b");
    EXPECT_BULK(c, "1.4999999999999999e-07", "ZSCORE", "z", "c");
    EXPECT_BULK(c, "4.6116860184273879e+18", "ZSCORE", "z", "f");
    EXPECT_BULK(c, "0.30000000000000004", "ZINCRBY", "z", "0.2", "a");
    EXPECT_REPLY(c, "['e', '-inf', 'c', '1.4999999999999999e-07', 'a', '0.30000000000000004', 'd', "
                    "'3', 'b', '1e+17', 'f', '4.6116860184273879e+18']",
                 "ZRANGE", "z", "0", "-1", "WITHSCORES");
    /* ZSCAN of a small set shows the scores as Redis's listpack holds them. */
    EXPECT_REPLY(c, "['0', ['e', '-inf', 'c', '1.4999999999999999e-07', 'a', "
                    "'0.30000000000000004', 'd', '3', 'b', '100000000000000000', 'f', "
                    "'4611686018427387904']]",
                 "ZSCAN", "z", "0");
    redisFree(c);
    struct h_raw r;
    if (h_raw_open_resp3(&r, &srv) < 0)
        return;
    RAW_SEND(&r, "ZSCORE z c\r\n");
    RAW_EXPECT(&r, ",1.4999999999999999e-07\r\n");
    RAW_SEND(&r, "ZMSCORE z b e\r\n");
    RAW_EXPECT(&r, "*2\r\n,1e+17\r\n,-inf\r\n");
    h_raw_close(&r);
}

static void test_resp3(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 2, "ZADD", "z", "1.5", "a", "2", "b");
    redisFree(c);
    struct h_raw r;
    if (h_raw_open_resp3(&r, &srv) < 0)
        return;
    RAW_SEND(&r, "ZSCORE z a\r\n");
    RAW_EXPECT(&r, ",1.5\r\n");
    RAW_SEND(&r, "ZSCORE z x\r\n");
    RAW_EXPECT(&r, "_\r\n");
    RAW_SEND(&r, "ZMSCORE z a x\r\n");
    RAW_EXPECT(&r, "*2\r\n,1.5\r\n_\r\n");
    RAW_SEND(&r, "ZADD z INCR 1 b\r\n");
    RAW_EXPECT(&r, ",3\r\n");
    RAW_SEND(&r, "ZRANGE z 0 -1 WITHSCORES\r\n");
    RAW_EXPECT(&r, "*2\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\nb\r\n,3\r\n");
    RAW_SEND(&r, "ZRANGEBYSCORE z -inf +inf WITHSCORES LIMIT 1 1\r\n");
    RAW_EXPECT(&r, "*1\r\n*2\r\n$1\r\nb\r\n,3\r\n");
    if (!h_is_reference()) { /* 7.2's WITHSCORE, as above */
        RAW_SEND(&r, "ZRANK z b WITHSCORE\r\n");
        RAW_EXPECT(&r, "*2\r\n:1\r\n,3\r\n");
        RAW_SEND(&r, "ZRANK z x WITHSCORE\r\n");
        RAW_EXPECT(&r, "_\r\n");
    }
    RAW_SEND(&r, "ZUNION 1 z WITHSCORES\r\n");
    RAW_EXPECT(&r, "*2\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\nb\r\n,3\r\n");
    RAW_SEND(&r, "ZRANDMEMBER z -1 WITHSCORES\r\n");
    RAW_EXPECT_MATCH(&r, "*1\r\n*2\r\n$1\r\n*\r\n,*\r\n");
    RAW_SEND(&r, "ZSCAN z 0\r\n");
    RAW_EXPECT(&r, "*2\r\n$1\r\n0\r\n*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\n3\r\n");
    /* ZPOPMIN pairs only with a count. */
    RAW_SEND(&r, "ZPOPMIN z\r\n");
    RAW_EXPECT(&r, "*2\r\n$1\r\na\r\n,1.5\r\n");
    RAW_SEND(&r, "ZPOPMAX z 1\r\n");
    RAW_EXPECT(&r, "*1\r\n*2\r\n$1\r\nb\r\n,3\r\n");
    if (!h_is_reference()) { /* 7.2's WITHSCORE, as above */
        RAW_SEND(&r, "ZRANK z b WITHSCORE\r\nHELLO 2\r\n");
        RAW_EXPECT(&r, "_\r\n");
        RAW_EXPECT_MATCH(&r, "*");
        RAW_SEND(&r, "ZRANK z b WITHSCORE\r\n");
        RAW_EXPECT(&r, "*-1\r\n");
    }
    h_raw_close(&r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_zadd_and_lookups);
    H_RUN(test_ranks_and_counts);
    H_RUN(test_ranges);
    H_RUN(test_remrange_and_pop);
    H_RUN(test_randmember_and_scan);
    H_RUN(test_set_algebra);
    H_RUN(test_keyspace);
    H_RUN(test_resp3);
    H_RUN(test_score_text);
    h_stop(&srv);
    return h_finish();
}
