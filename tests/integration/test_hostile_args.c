/*
 * test_hostile_args.c - end-to-end tests of well-formed requests with bad
 * arguments: wrong arity, wrong types, non-integers, overflowing integers,
 * negative counts, huge offsets and limits. Each gets Redis 7's exact error
 * (or its exact answer, for the odd values Redis accepts) and the server
 * lives on; none may make it loop or allocate for the size it was told.
 *
 * Runs against redis-server too (argv[1] = redis-server): rbkv's own
 * commands are skipped there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "harness.h"

#define MAX_WORDS 16

static struct h_server srv;

struct arg_case {
    const char *command; /* words separated by single spaces; no word has one */
    const char *reply;   /* h_repr form */
};

#define E_NOT_INT "-ERR value is not an integer or out of range"
#define E_NOT_FLOAT "-ERR value is not a valid float"
#define E_OVERFLOW "-ERR increment or decrement would overflow"
#define E_SYNTAX "-ERR syntax error"
#define E_WRONGTYPE "-WRONGTYPE Operation against a key holding the wrong kind of value"
#define E_EXPIRE(cmd) "-ERR invalid expire time in '" cmd "' command"
#define E_POSITIVE "-ERR value is out of range, must be positive"
#define LL_MAX "9223372036854775807"
#define LL_MIN "-9223372036854775808"

/* In order: each case may rely on the keys the ones before it left. */
static const struct arg_case cases[] = {
    /* Integers that overflow, or are not integers in Redis's strict sense. */
    {"SET n " LL_MAX, "+OK"},
    {"INCRBY n 1", E_OVERFLOW},
    {"INCR n", E_OVERFLOW},
    {"INCRBY n " LL_MAX, E_OVERFLOW},
    {"GET n", "'" LL_MAX "'"},
    {"SET m " LL_MIN, "+OK"},
    {"DECR m", E_OVERFLOW},
    {"DECRBY m 1", E_OVERFLOW},
    {"INCRBY m -1", E_OVERFLOW},
    {"DECRBY x " LL_MIN, "-ERR decrement would overflow"},
    {"INCRBY x " LL_MIN, ":" LL_MIN},
    {"INCRBY y " LL_MAX, ":" LL_MAX},
    {"INCRBY y " LL_MAX, E_OVERFLOW},
    {"INCRBY x 9223372036854775808", E_NOT_INT},
    {"INCRBY x 99999999999999999999", E_NOT_INT},
    {"INCRBY x abc", E_NOT_INT},
    {"INCRBY x 1.5", E_NOT_INT},
    {"INCRBY x 1e3", E_NOT_INT},
    {"INCRBY x 0x10", E_NOT_INT},
    {"SET s 01", "+OK"},
    {"INCR s", E_NOT_INT},
    {"SET s +1", "+OK"},
    {"INCR s", E_NOT_INT},
    {"SET s -0", "+OK"},
    {"INCR s", E_NOT_INT},
    /* Sizes and offsets: nothing of the asked size is allocated. */
    {"SETRANGE big 536870912 x", "-ERR string exceeds maximum allowed size (proto-max-bulk-len)"},
    {"SETRANGE big " LL_MAX " x", "-ERR string exceeds maximum allowed size (proto-max-bulk-len)"},
    {"SETRANGE big -1 x", "-ERR offset is out of range"},
    {"SETRANGE big 536870912 ", ":0"},
    {"EXISTS big", ":0"},
    {"SET big abc", "+OK"},
    {"SETRANGE big 536870912 ", ":3"},
    {"GETRANGE big 0 " LL_MAX, "'abc'"},
    {"GETRANGE big " LL_MIN " -1", "'abc'"},
    {"GETRANGE big " LL_MIN " " LL_MIN, "'a'"},
    {"GETRANGE big " LL_MAX " " LL_MAX, "''"},
    {"GETRANGE big abc 1", E_NOT_INT},
    /* Expiry times: zero, negative and overflowing. */
    {"SET k v EX 0", E_EXPIRE("set")},
    {"SET k v EX -1", E_EXPIRE("set")},
    {"SET k v EX " LL_MAX, E_EXPIRE("set")},
    {"SET k v PX " LL_MAX, E_EXPIRE("set")},
    {"SET k v EXAT " LL_MAX, E_EXPIRE("set")},
    {"SET k v PXAT " LL_MIN, E_EXPIRE("set")},
    {"SET k v EX abc", E_NOT_INT},
    {"SET k v EX", E_SYNTAX},
    {"SET k v NX XX", E_SYNTAX},
    {"SET k v EX 10 PX 10", E_SYNTAX},
    {"SET k v KEEPTTL EX 10", E_SYNTAX},
    {"SETEX k 0 v", E_EXPIRE("setex")},
    {"SETEX k -5 v", E_EXPIRE("setex")},
    {"PSETEX k " LL_MAX " v", E_EXPIRE("psetex")},
    {"EXISTS k", ":0"},
    {"EXPIRE n " LL_MAX, E_EXPIRE("expire")},
    {"PEXPIRE n " LL_MAX, E_EXPIRE("pexpire")},
    {"EXPIREAT n " LL_MAX, E_EXPIRE("expireat")},
    {"EXPIRE n abc", E_NOT_INT},
    {"EXPIRE n 10 NX XX", "-ERR NX and XX, GT or LT options at the same time are not compatible"},
    {"EXPIRE n 10 GT LT", "-ERR GT and LT options at the same time are not compatible"},
    {"EXPIRE n 10 FOO", "-ERR Unsupported option FOO"},
    {"GETEX n EX 0", E_EXPIRE("getex")},
    {"GETEX n PX -1", E_EXPIRE("getex")},
    {"GETEX n EX " LL_MAX, E_EXPIRE("getex")},
    {"GETEX n PERSIST EX 10", E_SYNTAX},
    {"TTL n", ":-1"},
    /* Arity. */
    {"MSET a", "-ERR wrong number of arguments for 'mset' command"},
    {"MSET a 1 b", "-ERR wrong number of arguments for 'mset' command"},
    {"MSETNX a 1 b", "-ERR wrong number of arguments for 'msetnx' command"},
    {"DEL", "-ERR wrong number of arguments for 'del' command"},
    {"GETRANGE big 0", "-ERR wrong number of arguments for 'getrange' command"},
    {"ZADD z 1", "-ERR wrong number of arguments for 'zadd' command"},
    {"ZMSCORE z", "-ERR wrong number of arguments for 'zmscore' command"},
    /* Sorted-set scores, flags and counts. */
    {"ZADD z 1 a 2 b 3 c", ":3"},
    {"ZADD z abc m", E_NOT_FLOAT},
    {"ZADD z nan m", E_NOT_FLOAT},
    {"ZADD z 1e400 m", E_NOT_FLOAT},
    {"ZADD z 1 a 2", E_SYNTAX},
    {"ZADD z NX XX 1 a", "-ERR XX and NX options at the same time are not compatible"},
    {"ZADD z GT LT 1 a", "-ERR GT, LT, and/or NX options at the same time are not compatible"},
    {"ZADD z NX GT 1 a", "-ERR GT, LT, and/or NX options at the same time are not compatible"},
    {"ZADD z INCR 1 a 2 b", "-ERR INCR option supports a single increment-element pair"},
    {"ZADD z inf a", ":0"},
    {"ZINCRBY z -inf a", "-ERR resulting score is not a number (NaN)"},
    {"ZINCRBY z abc a", E_NOT_FLOAT},
    {"ZRANGE z 0 -1 LIMIT 0 1",
     "-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"},
    {"ZRANGE z 0 " LL_MAX, "['b', 'c', 'a']"},
    {"ZRANGE z " LL_MIN " " LL_MAX, "['b', 'c', 'a']"},
    {"ZRANGE z 0 99999999999999999999", E_NOT_INT},
    {"ZRANGE z -inf +inf BYSCORE LIMIT " LL_MAX " 1", "[]"},
    {"ZRANGE z -inf +inf BYSCORE LIMIT 0 -5", "['b', 'c', 'a']"},
    {"ZRANGE z -inf +inf BYSCORE LIMIT -1 5", "[]"},
    {"ZRANGE z -inf +inf BYSCORE LIMIT 0 99999999999999999999", E_NOT_INT},
    {"ZRANGE z -inf +inf BYSCORE LIMIT 0", E_SYNTAX},
    {"ZRANGE z (abc 5 BYSCORE", "-ERR min or max is not a float"},
    {"ZRANGE z a b BYLEX", "-ERR min or max not valid string range item"},
    {"ZRANGE z - + BYLEX LIMIT " LL_MAX " " LL_MAX, "[]"},
    {"ZRANGE z 0 -1 BYSCORE BYLEX", E_SYNTAX},
    {"ZRANGEBYSCORE z -inf +inf LIMIT " LL_MIN " " LL_MIN, "[]"},
    {"ZRANGEBYSCORE z nan 1", "-ERR min or max is not a float"},
    {"ZRANGEBYLEX z - + LIMIT 1 " LL_MAX, "['c', 'a']"},
    {"ZREVRANGEBYSCORE z +inf -inf WITHSCORES LIMIT 2 " LL_MAX, "['b', '2']"},
    {"ZREMRANGEBYRANK z " LL_MAX " " LL_MIN, ":0"},
    {"ZCOUNT z abc 1", "-ERR min or max is not a float"},
    {"ZLEXCOUNT z a b", "-ERR min or max not valid string range item"},
    {"ZPOPMIN z -1", E_POSITIVE},
    {"ZPOPMIN z abc", E_POSITIVE},
    {"ZPOPMAX z 1.5", E_POSITIVE},
    {"ZPOPMIN z 99999999999999999999", E_POSITIVE},
    {"ZPOPMIN z 0", "[]"},
    {"ZRANDMEMBER z " LL_MIN,
     "-ERR value is out of range, value must between -9223372036854775807 and "
     "9223372036854775807"},
    {"ZRANDMEMBER z " LL_MIN " WITHSCORES",
     "-ERR value is out of range, value must between -9223372036854775807 and "
     "9223372036854775807"},
    {"ZRANDMEMBER z 4611686018427387904 WITHSCORES", "-ERR value is out of range"},
    {"ZRANDMEMBER z -4611686018427387904 WITHSCORES", "-ERR value is out of range"},
    {"ZRANDMEMBER nokey " LL_MIN,
     "-ERR value is out of range, value must between -9223372036854775807 and "
     "9223372036854775807"},
    {"ZRANDMEMBER z abc", E_NOT_INT},
    {"ZRANDMEMBER z 0", "[]"},
    {"ZRANDMEMBER z 1 FOO", E_SYNTAX},
    {"ZMPOP 0 z MIN", "-ERR numkeys should be greater than 0"},
    {"ZMPOP -1 z MIN", "-ERR numkeys should be greater than 0"},
    {"ZMPOP 1 z MIN COUNT 0", "-ERR count should be greater than 0"},
    {"ZMPOP 1 z MIN COUNT -1", "-ERR count should be greater than 0"},
    {"ZMPOP 1 z MIN COUNT abc", "-ERR count should be greater than 0"},
    {"ZMPOP " LL_MAX " z MIN", E_SYNTAX},
    {"ZMPOP 1 z FOO", E_SYNTAX},
    {"ZUNIONSTORE d 0 z", "-ERR at least 1 input key is needed for 'zunionstore' command"},
    {"ZUNIONSTORE d -1 z", "-ERR at least 1 input key is needed for 'zunionstore' command"},
    {"ZUNIONSTORE d " LL_MAX " z", E_SYNTAX},
    {"ZUNIONSTORE d 2147483648 z", E_SYNTAX},
    {"ZUNIONSTORE d 1 z WEIGHTS abc", "-ERR weight value is not a float"},
    {"ZUNIONSTORE d 1 z WEIGHTS 1 2", E_SYNTAX},
    {"ZUNIONSTORE d 1 z AGGREGATE foo", E_SYNTAX},
    {"ZINTER " LL_MAX " z", E_SYNTAX},
    {"ZINTERCARD 1 z LIMIT -1", "-ERR LIMIT can't be negative"},
    {"ZINTERCARD 1 z LIMIT abc", "-ERR LIMIT can't be negative"},
    {"ZINTERCARD 0 z", "-ERR at least 1 input key is needed for 'zintercard' command"},
    {"ZPOPMIN z " LL_MAX, "['b', '2', 'c', '3', 'a', 'inf']"},
    {"BZPOPMIN z -1", "-ERR timeout is negative"},
    {"BZPOPMIN z abc", "-ERR timeout is not a float or out of range"},
    {"SCAN abc", "-ERR invalid cursor"},
    {"SCAN 18446744073709551616", "-ERR invalid cursor"},
    {"SCAN 0 COUNT 0", E_SYNTAX},
    {"SCAN 0 COUNT -1", E_SYNTAX},
    {"SCAN 0 COUNT abc", E_NOT_INT},
    {"SCAN 0 MATCH", E_SYNTAX},
    {"SCAN 0 FOO bar", E_SYNTAX},
    {"ZSCAN z abc", "-ERR invalid cursor"},
    /* Wrong types, both ways. */
    {"ZADD zz 1 a", ":1"},
    {"GET zz", E_WRONGTYPE},
    {"INCR zz", E_WRONGTYPE},
    {"INCRBYFLOAT zz 1", E_WRONGTYPE},
    {"APPEND zz x", E_WRONGTYPE},
    {"SETRANGE zz 0 x", E_WRONGTYPE},
    {"SETRANGE zz 536870912 x", E_WRONGTYPE},
    {"GETRANGE zz 0 1", E_WRONGTYPE},
    {"STRLEN zz", E_WRONGTYPE},
    {"GETSET zz v", E_WRONGTYPE},
    {"GETDEL zz", E_WRONGTYPE},
    {"ZADD n 1 a", E_WRONGTYPE},
    {"ZCARD n", E_WRONGTYPE},
    {"ZRANGE n 0 -1", E_WRONGTYPE},
    {"ZUNIONSTORE d 2 zz n", E_WRONGTYPE},
    {"MGET zz n", "[(nil), '" LL_MAX "']"},
    {"MOVE n 16", "-ERR DB index is out of range"},
    {"MOVE n -1", "-ERR DB index is out of range"},
    {"COPY n n2 DB 99", "-ERR DB index is out of range"},
    {"COPY n n2 DB abc", E_NOT_INT},
    {"SELECT " LL_MAX, "-ERR value is out of range, value must between -2147483648 and 2147483647"},
    {"SELECT 16", "-ERR DB index is out of range"},
    {"SELECT -1", "-ERR DB index is out of range"},
    {"SELECT x", E_NOT_INT},
    {"RENAME nokey x", "-ERR no such key"},
};

/* Floats that are not finite numbers. Apart from the cases above because
 * valgrind computes long double in double precision, where the server's
 * check for an infinite result cannot see "inf" (VALGRIND_SKIP). */
static const struct arg_case float_cases[] = {
    {"INCRBYFLOAT f inf", "-ERR increment would produce NaN or Infinity"},
    {"INCRBYFLOAT f -inf", "-ERR increment would produce NaN or Infinity"},
    {"INCRBYFLOAT f nan", E_NOT_FLOAT},
    {"INCRBYFLOAT f abc", E_NOT_FLOAT},
    {"EXISTS f", ":0"},
};

/* rbkv's own commands: their counts, offsets and limits. */
static const struct arg_case rbkv_cases[] = {
    {"MSET k1 a k2 b k3 c", "+OK"},
    {"KRANGE 0 99999999999999999999", E_NOT_INT},
    {"KRANGE " LL_MIN " " LL_MAX, "['k1', 'k2', 'k3']"},
    {"KRANGE " LL_MAX " " LL_MIN, "[]"},
    {"KRANGE - + BYLEX LIMIT " LL_MAX " 10", "[]"},
    {"KRANGE - + BYLEX LIMIT " LL_MIN " 10", "[]"},
    {"KRANGE - + BYLEX LIMIT 1 " LL_MAX, "['k2', 'k3']"},
    {"KRANGE - + BYLEX LIMIT 1 " LL_MIN, "['k2', 'k3']"},
    {"KRANGE - + BYLEX LIMIT 0 abc", E_NOT_INT},
    {"KRANGE - + BYLEX LIMIT 0", E_SYNTAX},
    {"KRANGE 0 -1 LIMIT 0 1", "-ERR syntax error, LIMIT is only supported in combination with BYLEX"},
    {"KRANGE a b BYLEX", "-ERR min or max not valid string range item"},
    {"KPREFIX k LIMIT " LL_MAX " " LL_MAX, "[]"},
    {"KFIRST " LL_MAX, "['k1', 'k2', 'k3']"},
    {"KLAST " LL_MAX, "['k3', 'k2', 'k1']"},
    {"KFIRST -1", E_POSITIVE},
    {"KFIRST abc", E_NOT_INT},
    {"KNEXT k1 " LL_MAX, "['k2', 'k3']"},
    {"KPREV k3 -1", E_POSITIVE},
    {"KSPLIT 0", E_POSITIVE},
    {"KSPLIT " LL_MIN, E_POSITIVE},
    {"KSPLIT " LL_MAX, "['k2', 'k3']"},
    {"KSPLIT 2147483648", "['k2', 'k3']"},
    {"KDELRANGE - + LIMIT abc", E_NOT_INT},
    {"KCOUNT PREFIX", "-ERR wrong number of arguments for 'kcount' command"},
    {"KRANK", "-ERR wrong number of arguments for 'krank' command"},
    {"KRANGE 0 -1 TYPE string LIMIT 0 1",
     "-ERR syntax error, LIMIT is only supported in combination with BYLEX"},
    {"ZADD kz 1 a", ":1"},
    {"KRANGE 0 -1 WITHVALUES", "['k1', 'a', 'k2', 'b', 'k3', 'c', 'kz', (nil)]"},
};

static void run_cases(redisContext *c, const struct arg_case *cs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char buf[512];
        const char *argv[MAX_WORDS];
        int argc = 0;
        snprintf(buf, sizeof(buf), "%s", cs[i].command);
        /* Single spaces separate words; a trailing space makes an empty last
         * word (SETRANGE k 5 ""). */
        char *p = buf;
        argv[argc++] = p;
        while ((p = strchr(p, ' ')) && argc < MAX_WORDS) {
            *p++ = '\0';
            argv[argc++] = p;
        }
        if (!h_expect(__FILE__, __LINE__, c, cs[i].reply, 0, argc, argv, NULL))
            fprintf(stderr, "    case %zu: %s\n", i, cs[i].command);
    }
}

static void test_bad_arguments(void)
{
    redisContext *c = h_connect_flushed(&srv);
    run_cases(c, cases, sizeof(cases) / sizeof(cases[0]));
    EXPECT_STATUS(c, "PONG", "PING");
    redisFree(c);
}

static void test_bad_floats(void)
{
    redisContext *c = h_connect_flushed(&srv);
    run_cases(c, float_cases, sizeof(float_cases) / sizeof(float_cases[0]));
    redisFree(c);
}

static void test_rbkv_bad_arguments(void)
{
    if (h_is_reference())
        return;
    redisContext *c = h_connect_flushed(&srv);
    run_cases(c, rbkv_cases, sizeof(rbkv_cases) / sizeof(rbkv_cases[0]));
    EXPECT_STATUS(c, "PONG", "PING");
    redisFree(c);
}

/* A count that asks for a practically endless reply (repeats allowed) is
 * cut off by the hard output limit, like any other huge reply, and the
 * server serves others right after. */
static void test_endless_count(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--client-output-buffer-limit", "normal 4mb 0 0"));
    if (!c)
        return;
    EXPECT_INT(c, 2, "ZADD", "z", "1", "a", "2", "b");
    struct h_raw g;
    if (h_raw_open(&g, &s) == 0) {
        RAW_SEND(&g, "ZRANDMEMBER z -9223372036854775807 WITHSCORES\r\n"
                     "ZRANDMEMBER z -4611686018427387903 WITHSCORES\r\n");
        RAW_SEND(&g, "PING\r\n");
        int64_t t0 = h_now_ms();
        int st;
        while ((st = h_raw_wait_closed(&g, 5000 * H_SLOW)) == 0)
            g.len = 0; /* the cut-off reply's start, if any reached us */
        printf("   endless ZRANDMEMBER: connection %s after %lld ms\n",
               st == 1 ? "closed" : "still open", (long long)(h_now_ms() - t0));
        CHECK(st == 1, "the client asking for an endless reply was not disconnected");
        h_raw_close(&g);
    }
    EXPECT_STATUS(c, "PONG", "PING");
    EXPECT_INT(c, 2, "ZCARD", "z");
    h_close(&s, c);
}

/* A sorted-set reply over the hard limit, never read: the client is dropped
 * and counted, and the set is untouched. 300,000 members make a ZRANGE ...
 * WITHSCORES reply of about 9 MB, more than the 1 MB limit and what the
 * socket buffers of a loopback connection take (4 MB sending by default). */
#define BIG_ZSET 300000
#define ZADD_BATCH 1000
static void test_big_zset_reply(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--client-output-buffer-limit", "normal 1mb 0 0"));
    if (!c)
        return;
    static char names[ZADD_BATCH][2][24];
    const char *args[2 + 2 * ZADD_BATCH] = {"ZADD", "z"};
    for (int base = 0; base < BIG_ZSET; base += ZADD_BATCH) {
        for (int i = 0; i < ZADD_BATCH; i++) {
            snprintf(names[i][0], sizeof(names[i][0]), "%d", base + i);
            snprintf(names[i][1], sizeof(names[i][1]), "member:%06d", base + i);
            args[2 + 2 * i] = names[i][0];
            args[3 + 2 * i] = names[i][1];
        }
        freeReplyObject(h_command(c, 2 + 2 * ZADD_BATCH, args, NULL));
    }
    EXPECT_INT(c, BIG_ZSET, "ZCARD", "z");
    static const char *const queries[] = {"ZRANGE z 0 -1 WITHSCORES\r\n",
                                          "ZRANGEBYSCORE z -inf +inf WITHSCORES\r\n",
                                          "ZRANDMEMBER z 300000 WITHSCORES\r\n"};
    for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
        long long drops = h_info_ll(c, "stats", "client_output_buffer_limit_disconnections");
        struct h_raw g;
        if (h_raw_open(&g, &s) < 0)
            break;
        int small = 4096; /* so the kernel does not swallow the reply */
        setsockopt(g.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
        CHECK(h_wait_clients(c, 2, 5000 * H_SLOW), "the greedy client never showed up");
        h_raw_send(&g, queries[q], strlen(queries[q]));
        /* Never read: wait for the server to drop it. */
        int64_t t0 = h_now_ms();
        int gone = 0;
        while (!gone && h_now_ms() - t0 < 5000 * H_SLOW) {
            h_sleep_ms(5);
            gone = h_info_ll(c, "clients", "connected_clients") == 1;
        }
        CHECK(gone, "the client of %.*s was not dropped", (int)strcspn(queries[q], "\r"),
              queries[q]);
        if (!h_is_reference()) /* Redis 7.0 has no such counter */
            CHECK(h_info_ll(c, "stats", "client_output_buffer_limit_disconnections") == drops + 1,
                  "the drop for %.*s was not counted", (int)strcspn(queries[q], "\r"), queries[q]);
        h_raw_close(&g);
    }
    EXPECT_STATUS(c, "PONG", "PING");
    EXPECT_INT(c, BIG_ZSET, "ZCARD", "z");
    h_close(&s, c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_bad_arguments);
    H_RUN(test_bad_floats);
    H_RUN(test_rbkv_bad_arguments);
    H_RUN(test_endless_count);
    H_RUN(test_big_zset_reply);
    h_stop(&srv);
    return h_finish();
}
