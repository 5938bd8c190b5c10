/*
 * test_list.c - end-to-end tests of the list commands
 * (server/commands/cmd_list.c): every command and error path compared reply
 * by reply with redis-server 7.0 in RESP2 and RESP3, keyspace events, the
 * writes counted, TYPE / OBJECT ENCODING / COPY / RENAME / MOVE on lists,
 * the list settings, long lists reached in the middle, and a random
 * differential run.
 *
 * One server for the whole file; each test FLUSHALLs first. The comparisons
 * need a reference (h_start_comparison) and are skipped without one; the
 * fixed expectations run everywhere, and also pass against redis-server
 * itself (`test_integration_list redis-server`).
 *
 * test_random_against_redis sends the same random pushes, pops, inserts,
 * sets, removals, trims, moves, ranges and searches (indexes in and out of
 * range, both ends, a few keys, some of another type) to both servers with
 * list-max-listpack-size 4 so lists span many chunks, and compares every
 * reply, then every list whole. SEED=<n> replays a run; OPS=<n> sets its
 * length.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define RANDOM_OPS 4000
#define RANDOM_KEYS 4
#define LONG_LIST 100000

static struct h_server srv, ref;
static int have_ref;

/* Every command's replies and error paths, each line sent to both. */
static const char *const script[] = {
    /* pushes, and their errors */
    "SET s str", "ZADD z 1 a",
    "LPUSH l a b c", "RPUSH l d e", "LPUSHX l x", "RPUSHX l y", "LPUSHX nokey x",
    "RPUSHX nokey x y", "LPUSH s x", "RPUSH s x", "LPUSHX s x", "RPUSHX s x", "LPUSH l",
    "RPUSHX l", "EXISTS nokey", "LRANGE l 0 -1", "LLEN l", "LLEN nokey", "LLEN s",
    /* LINDEX */
    "LINDEX l 0", "LINDEX l -1", "LINDEX l 3", "LINDEX l -7", "LINDEX l 7", "LINDEX l -8",
    "LINDEX l 100", "LINDEX l abc", "LINDEX nokey abc", "LINDEX nokey 0", "LINDEX s 0",
    "LINDEX s abc", "LINDEX l 9223372036854775807", "LINDEX l -9223372036854775808",
    "LINDEX l 99999999999999999999",
    /* LSET */
    "LSET l 0 A", "LSET l -1 Y", "LSET l 6 Z", "LSET l -8 Z", "LSET l 7 Z", "LSET l x Z",
    "LSET nokey 0 Z", "LSET nokey x Z", "LSET s 0 Z", "LSET s x Z", "LRANGE l 0 -1",
    /* LRANGE */
    "LRANGE l 2 4", "LRANGE l -3 -1", "LRANGE l -100 100", "LRANGE l 5 2", "LRANGE l 7 10",
    "LRANGE l -1 -2", "LRANGE l 0 0", "LRANGE l a 1", "LRANGE l 1 b", "LRANGE nokey 0 -1",
    "LRANGE nokey a b", "LRANGE s 0 -1", "LRANGE s a 1",
    "LRANGE l -9223372036854775808 9223372036854775807",
    /* LINSERT */
    "LINSERT l BEFORE c C1", "LINSERT l after c C2", "LINSERT l before A first",
    "LINSERT l AFTER Y last", "LINSERT l BEFORE nothere v", "LINSERT l MIDDLE c v",
    "LINSERT nokey BEFORE a v", "LINSERT nokey MIDDLE a v", "LINSERT s BEFORE a v",
    "LINSERT s MIDDLE a v", "LRANGE l 0 -1",
    /* LPOS */
    "RPUSH p a b c a b c a", "LPOS p a", "LPOS p c", "LPOS p zz", "LPOS p a RANK 2",
    "LPOS p a RANK -1", "LPOS p a RANK -2", "LPOS p a RANK 4", "LPOS p a RANK -4",
    "LPOS p a COUNT 0", "LPOS p a COUNT 2", "LPOS p a COUNT 2 RANK -1", "LPOS p a COUNT 0 RANK 2",
    "LPOS p a MAXLEN 1", "LPOS p a MAXLEN 3 RANK 2", "LPOS p a COUNT 0 MAXLEN 4",
    "LPOS p a COUNT 0 MAXLEN 4 RANK -1", "LPOS p zz COUNT 0", "LPOS p a RANK 0",
    "LPOS p a RANK x", "LPOS p a RANK 9223372036854775807",
    "LPOS p a COUNT -1", "LPOS p a COUNT x", "LPOS p a MAXLEN -1", "LPOS p a MAXLEN x",
    "LPOS p a COUNT", "LPOS p a FOO 1", "LPOS p a RANK 1 RANK 2", "LPOS nokey a",
    "LPOS nokey a COUNT 1", "LPOS nokey a RANK 0", "LPOS s a", "LPOS s a COUNT 1",
    "LPOS s a RANK 0",
    /* LREM */
    "LREM p 0 zz", "LREM p 1 a", "LREM p -1 a", "LRANGE p 0 -1", "LREM p 0 b", "LREM p x b",
    "LREM nokey 0 a", "LREM nokey x a", "LREM s 0 a", "LRANGE p 0 -1", "LREM p 0 c",
    "LREM p 0 a", "EXISTS p",
    /* LTRIM */
    "RPUSH t 0 1 2 3 4 5 6 7 8 9", "LTRIM t 1 -2", "LRANGE t 0 -1", "LTRIM t -3 100",
    "LRANGE t 0 -1", "LTRIM t 0 0", "LRANGE t 0 -1", "LTRIM t x 1", "LTRIM t 1 x",
    "LTRIM nokey 0 1", "LTRIM nokey x 1", "LTRIM s 0 1", "LTRIM t 5 1", "EXISTS t",
    "RPUSH t a b", "LTRIM t -1 -2", "EXISTS t",
    /* LPOP / RPOP */
    "RPUSH q a b c d e", "LPOP q", "RPOP q", "LPOP q 2", "RPOP q 0", "LPOP q 0", "RPOP q 5",
    "EXISTS q", "LPOP q", "LPOP q 1", "LPOP q 0", "RPOP nokey 3", "LPOP s", "LPOP s 1",
    "LPOP l -1", "LPOP l x", "LPOP l 1 2", "RPOP l 1 2 3", "LPOP nokey -1", "LPOP s -1",
    /* LMPOP */
    "RPUSH m1 a b c", "RPUSH m2 d e", "LMPOP 2 nokey m1 LEFT", "LMPOP 2 m2 m1 RIGHT COUNT 5",
    "LMPOP 2 m2 m1 left count 1", "LMPOP 1 nokey LEFT", "LMPOP 2 nokey s LEFT",
    "LMPOP 2 s m1 LEFT", "LMPOP 0 m1 LEFT", "LMPOP -1 m1 LEFT", "LMPOP x m1 LEFT",
    "LMPOP 3 m1 LEFT", "LMPOP 1 m1 UP", "LMPOP 1 m1", "LMPOP 1 m1 LEFT COUNT 0",
    "LMPOP 1 m1 LEFT COUNT -1", "LMPOP 1 m1 LEFT COUNT x", "LMPOP 1 m1 LEFT COUNT",
    "LMPOP 1 m1 LEFT COUNT 1 COUNT 1", "LMPOP 1 m1 LEFT FOO", "LMPOP 1 m1 LEFT COUNT 9",
    "EXISTS m1",
    /* LMOVE / RPOPLPUSH */
    "RPUSH src a b c", "LMOVE src dst LEFT RIGHT", "LMOVE src dst RIGHT LEFT",
    "LRANGE dst 0 -1", "LMOVE src src LEFT RIGHT", "LRANGE src 0 -1", "RPOPLPUSH src dst",
    "EXISTS src", "RPOPLPUSH dst dst", "LRANGE dst 0 -1", "LMOVE nokey dst LEFT LEFT",
    "LMOVE nokey s LEFT LEFT", "LMOVE dst s LEFT LEFT", "LMOVE s dst LEFT LEFT",
    "LMOVE dst dst UP LEFT", "LMOVE dst dst LEFT DOWN", "RPOPLPUSH nokey dst",
    "RPOPLPUSH dst s", "RPOPLPUSH s dst", "LRANGE dst 0 -1",
    /* the blocking forms, when they need not block, and their errors */
    "RPUSH b1 a b", "BLPOP nokey b1 0", "BRPOP b1 0", "EXISTS b1", "BLPOP s 0",
    "BLPOP nokey s 0", "BLPOP b1 -1", "BLPOP b1 abc", "BLPOP b1",
    "BRPOP b1 1e100",
    "RPUSH b2 a b c", "BLMPOP 0 2 nokey b2 RIGHT COUNT 2",
    "BLMPOP 0 1 b2 LEFT", "BLMPOP x 1 b2 LEFT", "BLMPOP -1 1 b2 LEFT", "BLMPOP 0 0 b2 LEFT",
    "BLMPOP x 0 b2 LEFT", "BLMPOP 0 1 b2 UP", "BLMPOP 0 1 s LEFT", "BLMPOP 0 2 b2 LEFT",
    "RPUSH b3 a b", "BLMOVE b3 b4 RIGHT LEFT 0", "BRPOPLPUSH b3 b4 0", "LRANGE b4 0 -1",
    "BLMOVE b3 b4 UP LEFT 0", "BLMOVE b3 b4 LEFT UP 0", "BLMOVE b3 b4 LEFT LEFT x",
    "BLMOVE b3 b4 LEFT LEFT -1", "BLMOVE s b4 LEFT LEFT 0", "BLMOVE b4 s LEFT LEFT 0",
    "BRPOPLPUSH b4 b5 x", "BRPOPLPUSH b4 s 0", "BRPOPLPUSH s b4 0",
    /* types and the keyspace */
    "TYPE l", "OBJECT ENCODING l", "COPY l lcopy", "LRANGE lcopy 0 -1", "COPY l lcopy",
    "LPUSH lcopy new", "LRANGE l 0 0", "RENAME lcopy lrenamed", "LRANGE lrenamed 0 -1",
    "MOVE lrenamed 1", "EXISTS lrenamed", "SELECT 1", "LRANGE lrenamed 0 -1", "DEL lrenamed",
    "SELECT 0", "DEL l", "TYPE l",
};

/* The RESP3 shapes: nils, and the arrays of LMPOP and BLPOP. */
static const char *const script_resp3[] = {
    "RPUSH l a b c", "LPOP nokey", "LPOP nokey 1", "LPOP l 0", "LPOP l 1", "RPOP l",
    "LINDEX l 9", "LINDEX nokey 0", "LPOS l zz", "LPOS l zz COUNT 0", "LPOS nokey a COUNT 1",
    "LMPOP 1 nokey LEFT", "LMPOP 1 l LEFT", "RPUSH l a b", "BLPOP l 0", "BLMPOP 0 1 l RIGHT",
    "LMOVE nokey d LEFT LEFT", "RPOPLPUSH nokey d", "LRANGE nokey 0 -1", "MULTI",
    "BLPOP nokey 0", "BLMOVE nokey d LEFT LEFT 0", "BRPOPLPUSH nokey d 0", "BLMPOP 0 1 nokey LEFT",
    "EXEC",
};

static void test_same_as_redis(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    redisContext *c = h_connect_flushed(&srv), *r = h_connect_flushed(&ref);
    if (c && r) {
        H_SAME_LINES(c, r, script);
        /* The same in a transaction: a blocking command acts as its
         * non-blocking form. */
        static const char *const tx[] = {
            "MULTI", "BLPOP nokey 0", "BRPOP nokey 1", "BLMPOP 0 1 nokey LEFT",
            "BLMOVE nokey d LEFT LEFT 0", "BRPOPLPUSH nokey d 0", "RPUSH k a", "BLPOP k 0",
            "EXEC",
        };
        H_SAME_LINES(c, r, tx);
        H_SAME(c, r, "FLUSHALL");
    }
    redisFree(c);
    redisFree(r);
}

static void test_same_as_redis_resp3(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    H_SAME_LINES_RESP3(&srv, &ref, script_resp3);
}

/* COMMAND INFO's arity, flags and key positions of each list command. */
static void test_command_info_as_redis(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    static const char *const names[] = {
        "lpush",  "rpush", "lpushx", "rpushx", "linsert", "lset",      "llen",  "lindex",
        "lrange", "lpos",  "lrem",   "ltrim",  "lpop",    "rpop",      "lmpop", "lmove",
        "rpoplpush", "blpop", "brpop", "blmpop", "blmove", "brpoplpush",
    };
    redisContext *c = h_connect(&srv), *r = h_connect(&ref);
    for (size_t i = 0; c && r && i < sizeof(names) / sizeof(names[0]); i++) {
        redisReply *a = H_CALL(c, "COMMAND", "INFO", names[i]);
        redisReply *b = H_CALL(r, "COMMAND", "INFO", names[i]);
        char ra[2048], rb[2048];
        int ok = a && b && a->type == REDIS_REPLY_ARRAY && b->type == REDIS_REPLY_ARRAY &&
                 a->elements == 1 && b->elements == 1 && a->element[0]->elements >= 6 &&
                 b->element[0]->elements >= 6;
        /* name, arity, flags, first key, last key, step. */
        for (size_t j = 0; ok && j < 6; j++) {
            h_repr(a->element[0]->element[j], ra, sizeof(ra));
            h_repr(b->element[0]->element[j], rb, sizeof(rb));
            CHECK(strcmp(ra, rb) == 0, "COMMAND INFO %s field %zu: rbkv %s, redis %s", names[i],
                  j, ra, rb);
        }
        CHECK(ok, "COMMAND INFO %s", names[i]);
        freeReplyObject(a);
        freeReplyObject(b);
    }
    redisFree(c);
    redisFree(r);
}

/* The settings, their aliases and their errors. */
static void test_config(void)
{
    redisContext *c = h_connect(&srv);
    if (!c)
        return;
    EXPECT_REPLY(c, "['list-max-listpack-size', '-2']", "CONFIG", "GET", "list-max-listpack-size");
    EXPECT_REPLY(c, "['list-max-ziplist-size', '-2']", "CONFIG", "GET", "list-max-ziplist-size");
    EXPECT_REPLY(c, "['list-compress-depth', '0']", "CONFIG", "GET", "list-compress-depth");
    EXPECT_OK(c, "CONFIG", "SET", "list-max-ziplist-size", "5");
    EXPECT_REPLY(c, "['list-max-listpack-size', '5']", "CONFIG", "GET", "list-max-listpack-size");
    EXPECT_OK(c, "CONFIG", "SET", "list-compress-depth", "2");
    EXPECT_REPLY(c, "['list-compress-depth', '2']", "CONFIG", "GET", "list-compress-depth");
    EXPECT_OK(c, "CONFIG", "SET", "list-max-listpack-size", "-2");
    EXPECT_OK(c, "CONFIG", "SET", "list-compress-depth", "0");
    if (have_ref) {
        redisContext *r = h_connect(&ref);
        static const char *const lines[] = {
            "CONFIG SET list-max-listpack-size 2147483648",
            "CONFIG SET list-max-listpack-size -2147483649",
            "CONFIG SET list-max-listpack-size x", "CONFIG SET list-compress-depth -1",
            "CONFIG SET list-compress-depth x",
        };
        if (r)
            H_SAME_LINES(c, r, lines);
        redisFree(r);
    }
    redisFree(c);
}

/* Every setting of list-max-listpack-size keeps the lists whole: values that
 * cross chunk boundaries, byte limits with large elements, and the clamped
 * extremes. */
static void test_chunk_sizes(void)
{
    static const char *const sizes[] = {"1", "3", "-1", "-5", "0", "-100", "100000"};
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    char big[3000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        EXPECT_OK(c, "CONFIG", "SET", "list-max-listpack-size", sizes[i]);
        for (int j = 0; j < 50; j++) {
            char v[16];
            snprintf(v, sizeof(v), "%d", j);
            freeReplyObject(H_CALL(c, "RPUSH", "k", j % 7 ? v : big));
        }
        EXPECT_INT(c, 50, "LLEN", "k");
        EXPECT_REPLY(c, "'8'", "LINDEX", "k", "8");
        EXPECT_INT(c, 51, "LINSERT", "k", "BEFORE", "9", "ins");
        EXPECT_REPLY(c, "['8', 'ins', '9']", "LRANGE", "k", "8", "10");
        EXPECT_OK(c, "LSET", "k", "9", "set");
        EXPECT_REPLY(c, "['set', '9']", "LRANGE", "k", "9", "10");
        EXPECT_INT(c, 8, "LREM", "k", "0", big);
        EXPECT_OK(c, "LTRIM", "k", "1", "-2");
        EXPECT_INT(c, 41, "LLEN", "k");
        EXPECT_REPLY(c, "'2'", "LINDEX", "k", "0");
        EXPECT_INT(c, 1, "DEL", "k");
    }
    EXPECT_OK(c, "CONFIG", "SET", "list-max-listpack-size", "-2");
    redisFree(c);
}

/* A long list, reached in the middle by LINDEX, LSET, LINSERT and LRANGE. */
static void test_long_list(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    char v[16];
    for (int i = 0; i < LONG_LIST; i++) {
        snprintf(v, sizeof(v), "%d", i);
        H_APPEND(c, "RPUSH", "big", v);
    }
    for (int i = 0; i < LONG_LIST; i++)
        freeReplyObject(h_get_reply(c));
    EXPECT_INT(c, LONG_LIST, "LLEN", "big");
    EXPECT_REPLY(c, "'50000'", "LINDEX", "big", "50000");
    EXPECT_REPLY(c, "'49999'", "LINDEX", "big", "-50001");
    EXPECT_REPLY(c, "['70000', '70001', '70002']", "LRANGE", "big", "70000", "70002");
    EXPECT_OK(c, "LSET", "big", "-30000", "x");
    EXPECT_REPLY(c, "'x'", "LINDEX", "big", "70000");
    EXPECT_INT(c, LONG_LIST + 1, "LINSERT", "big", "AFTER", "x", "y");
    EXPECT_REPLY(c, "['x', 'y', '70001']", "LRANGE", "big", "70000", "70002");
    EXPECT_REPLY(c, "[:70001]", "LPOS", "big", "y", "COUNT", "0", "RANK", "-1");
    EXPECT_INT(c, 1, "LREM", "big", "-1", "y");
    EXPECT_OK(c, "LTRIM", "big", "25000", "-25001");
    EXPECT_INT(c, LONG_LIST / 2, "LLEN", "big");
    EXPECT_REPLY(c, "'25000'", "LINDEX", "big", "0");
    EXPECT_REPLY(c, "'74999'", "LINDEX", "big", "-1");
    EXPECT_REPLY(c, "'quicklist'", "OBJECT", "ENCODING", "big");
    EXPECT_INT(c, 1, "UNLINK", "big");
    redisFree(c);
}

static long long dirty(redisContext *c)
{
    return h_info_ll(c, "persistence", "rdb_changes_since_last_save");
}

/* SCAN's TYPE filter knows lists. */
static void test_scan_type(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_INT(c, 1, "RPUSH", "l", "a");
    EXPECT_OK(c, "SET", "s", "x");
    EXPECT_REPLY(c, "['0', ['l']]", "SCAN", "0", "TYPE", "list");
    EXPECT_REPLY(c, "['0', ['l']]", "SCAN", "0", "TYPE", "LIST");
    redisFree(c);
}

/* LPOS's RANK takes -LONG_MAX..LONG_MAX, as Redis 7.2 checks: Redis 7.0
 * negated LONG_MIN, an overflow (docs/commands.md, LPOS). */
static void test_lpos_rank_min(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c || h_is_reference()) {
        redisFree(c);
        return;
    }
    EXPECT_INT(c, 2, "RPUSH", "l", "a", "a");
    EXPECT_ERR(c, "ERR value is out of range, value must between -9223372036854775807 and "
                  "9223372036854775807",
               "LPOS", "l", "a", "RANK", "-9223372036854775808");
    EXPECT_NIL(c, "LPOS", "l", "a", "RANK", "-9223372036854775807");
    redisFree(c);
}

/* The writes each command counts (what goes to the log), as Redis counts. */
static void test_dirty(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    struct {
        const char *line;
        long long changes;
    } steps[] = {
        {"RPUSH k a b c d", 4}, {"LPUSHX nokey a", 0}, {"LPOP k", 1},    {"RPOP k 2", 2},
        {"LPOP k 0", 0},        {"RPUSH k a a b", 3},  {"LREM k 0 a", 2}, {"LREM k 0 zz", 0},
        {"LSET k 0 x", 1},      {"LINSERT k BEFORE x y", 1}, {"LINSERT k BEFORE zz y", 0},
        {"LTRIM k 0 -1", 0},    {"LTRIM k 1 1", 2},   {"LMOVE k k2 LEFT LEFT", 1},
        {"LMOVE nokey k2 LEFT LEFT", 0}, {"LMPOP 1 k2 LEFT COUNT 3", 1}, {"BLPOP nokey 0.01", 0},
    };
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        struct h_line l;
        long long before = dirty(c);
        freeReplyObject(h_command(c, h_split(steps[i].line, &l), l.argv, NULL));
        CHECK(dirty(c) - before == steps[i].changes, "%s: %lld changes, expected %lld",
              steps[i].line, dirty(c) - before, steps[i].changes);
    }
    redisFree(c);
}

/* The keyspace events of each command, in order, as Redis fires them. */
static void test_events(void)
{
    redisContext *c = h_connect_flushed(&srv), *sub = h_connect(&srv);
    if (!c || !sub)
        goto out;
    EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "KEAn");
    redisReply *r = H_CALL(sub, "PSUBSCRIBE", "__keyevent@0__:*");
    freeReplyObject(r);
    static const char *const lines[] = {
        "RPUSH k a b c",        "LPUSH k x",          "LPUSHX k y",          "RPUSHX k z",
        "LINSERT k BEFORE a i", "LSET k 0 s",         "LREM k 1 i",          "LTRIM k 0 -1",
        "LPOP k",               "RPOP k 2",           "LMOVE k d RIGHT LEFT", "RPOPLPUSH d k",
        "LMPOP 1 k LEFT COUNT 9", "RPUSH k a",        "BLPOP k 0",
    };
    static const char *const want[] = {
        "new:k", "rpush:k", "lpush:k", "lpush:k", "rpush:k", "linsert:k", "lset:k", "lrem:k",
        "ltrim:k", "lpop:k", "rpop:k", "new:d", "lpush:d", "rpop:k", "lpush:k", "rpop:d",
        "del:d", "lpop:k", "del:k", "new:k", "rpush:k", "lpop:k", "del:k",
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        struct h_line l;
        freeReplyObject(h_command(c, h_split(lines[i], &l), l.argv, NULL));
    }
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        redisReply *m = h_get_reply(sub);
        char got[256] = "(none)";
        if (m && m->type == REDIS_REPLY_ARRAY && m->elements == 4)
            snprintf(got, sizeof(got), "%s:%s", strrchr(m->element[2]->str, ':') + 1,
                     m->element[3]->str);
        CHECK(strcmp(got, want[i]) == 0, "event %zu: expected %s, got %s", i, want[i], got);
        freeReplyObject(m);
        if (!m)
            break;
    }
    EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "");
out:
    redisFree(c);
    redisFree(sub);
}

/* WATCH is invalidated by each kind of list write, LMPOP's movable keys
 * included, and not by a write that changed nothing. */
static void test_watch(void)
{
    redisContext *c = h_connect_flushed(&srv), *o = h_connect(&srv);
    if (!c || !o)
        goto out;
    static const char *const writes[][6] = {
        {"RPUSH", "w", "a"}, {"LSET", "w", "0", "b"}, {"LMPOP", "2", "nokey", "w", "LEFT"},
        {"LMOVE", "src", "w", "LEFT", "LEFT"},
    };
    EXPECT_INT(o, 2, "RPUSH", "src", "x", "y");
    for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
        int argc = 0;
        while (argc < 6 && writes[i][argc])
            argc++;
        EXPECT_OK(c, "WATCH", "w");
        freeReplyObject(h_command(o, argc, writes[i], NULL));
        EXPECT_TRANSACTION(c, "(nil)", "LLEN w");
    }
    EXPECT_OK(c, "WATCH", "w");
    EXPECT_INT(o, 0, "LPUSHX", "nothere", "a");
    EXPECT_INT(o, 0, "LREM", "w", "0", "zz");
    EXPECT_TRANSACTION(c, "[:1]", "LLEN w");
out:
    redisFree(c);
    redisFree(o);
}

/* A blocking pop touches only the key it popped from, not every key it
 * names (Redis signals the modified key only): at once, when served after
 * waiting, and when its wait times out. */
static void test_watch_blocking_pop(void)
{
    redisContext *c = h_connect_flushed(&srv), *o = h_connect(&srv), *b = h_connect(&srv);
    if (!c || !o || !b)
        goto out;
    EXPECT_INT(o, 1, "RPUSH", "w", "keep");
    for (int round = 0; round < 3; round++) {
        EXPECT_OK(c, "WATCH", "w");
        if (round == 0) {
            EXPECT_INT(o, 1, "RPUSH", "other", "x");
            EXPECT_REPLY(o, "['other', 'x']", "BLPOP", "empty", "other", "w", "0");
        } else if (round == 1) {
            H_SEND(b, "BRPOP", "empty", "other", "0");
            h_wait_blocked(o, 1, 2000 * H_SLOW);
            EXPECT_INT(o, 1, "RPUSH", "other", "y");
            EXPECT_NEXT(b, "['other', 'y']");
        } else {
            EXPECT_NIL(o, "BLPOP", "empty", "other", "0.01");
        }
        EXPECT_TRANSACTION(c, "[:1]", "LLEN w");
    }
    /* The key it popped from is touched. */
    EXPECT_OK(c, "WATCH", "w");
    EXPECT_REPLY(o, "['w', 'keep']", "BLPOP", "empty", "w", "0");
    EXPECT_TRANSACTION(c, "(nil)", "LLEN w");
out:
    redisFree(c);
    redisFree(o);
    redisFree(b);
}

/* ---- random operations against redis-server ---- */

static uint64_t rng_state;

static uint64_t rng(void)
{
    /* xorshift64*: a fixed sequence per SEED. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static int pick(int n)
{
    return (int)(rng() % (uint64_t)n);
}

static void add_key(struct h_line *m)
{
    h_line_add(m, "k%d", pick(RANDOM_KEYS));
}

/* Few distinct values, so LREM, LPOS and LINSERT find matches. */
static void add_value(struct h_line *m)
{
    h_line_add(m, "v%d", pick(6));
}

/* Mostly inside a list of a few dozen, sometimes far outside. */
static void add_index(struct h_line *m)
{
    h_line_add(m, "%d", pick(10) ? pick(60) - 30 : pick(2000) - 1000);
}

static void add_end(struct h_line *m)
{
    h_line_add(m, "%s", pick(2) ? "LEFT" : "RIGHT");
}

static void random_command(struct h_line *m)
{
    m->argc = 0;
    switch (pick(16)) {
    case 0:
    case 1: {
        h_line_add(m, "%s", pick(2) ? "LPUSH" : "RPUSH");
        add_key(m);
        int n = 1 + pick(8);
        for (int i = 0; i < n; i++)
            add_value(m);
        break;
    }
    case 2:
        h_line_add(m, "%s", pick(2) ? "LPUSHX" : "RPUSHX");
        add_key(m);
        add_value(m);
        break;
    case 3:
        h_line_add(m, "%s", pick(2) ? "LPOP" : "RPOP");
        add_key(m);
        if (pick(2))
            h_line_add(m, "%d", pick(6));
        break;
    case 4:
        h_line_add(m, "LINSERT");
        add_key(m);
        h_line_add(m, "%s", pick(2) ? "BEFORE" : "AFTER");
        add_value(m);
        add_value(m);
        break;
    case 5:
        h_line_add(m, "LSET");
        add_key(m);
        add_index(m);
        add_value(m);
        break;
    case 6:
        h_line_add(m, "LREM");
        add_key(m);
        h_line_add(m, "%d", pick(7) - 3);
        add_value(m);
        break;
    case 7:
        h_line_add(m, "LTRIM");
        add_key(m);
        add_index(m);
        add_index(m);
        break;
    case 8:
        h_line_add(m, "LMOVE");
        add_key(m);
        add_key(m);
        add_end(m);
        add_end(m);
        break;
    case 9:
        h_line_add(m, "LRANGE");
        add_key(m);
        add_index(m);
        add_index(m);
        break;
    case 10:
        h_line_add(m, "LINDEX");
        add_key(m);
        add_index(m);
        break;
    case 11:
        h_line_add(m, "LPOS");
        add_key(m);
        add_value(m);
        if (pick(2)) {
            h_line_add(m, "RANK");
            h_line_add(m, "%d", pick(2) ? pick(4) + 1 : -(pick(4) + 1));
        }
        if (pick(2)) {
            h_line_add(m, "COUNT");
            h_line_add(m, "%d", pick(4));
        }
        if (pick(3) == 0) {
            h_line_add(m, "MAXLEN");
            h_line_add(m, "%d", pick(20));
        }
        break;
    case 12:
        h_line_add(m, "LMPOP");
        h_line_add(m, "2");
        add_key(m);
        add_key(m);
        add_end(m);
        if (pick(2)) {
            h_line_add(m, "COUNT");
            h_line_add(m, "%d", 1 + pick(5));
        }
        break;
    case 13:
        h_line_add(m, "RPOPLPUSH");
        add_key(m);
        add_key(m);
        break;
    case 14:
        /* Another type now and then, for WRONGTYPE. */
        h_line_add(m, "%s", pick(8) ? "LLEN" : "SET");
        add_key(m);
        if (m->argv[0][0] == 'S')
            add_value(m);
        break;
    default:
        h_line_add(m, "BLPOP");
        add_key(m);
        add_key(m);
        h_line_add(m, "0.01");
        break;
    }
}

static void test_random_against_redis(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    uint64_t seed = h_seed();
    const char *ops_env = getenv("OPS");
    int n = ops_env && *ops_env ? (int)strtol(ops_env, NULL, 10) : RANDOM_OPS / H_SLOW;
    rng_state = seed ? seed : 1;
    redisContext *c = h_connect_flushed(&srv), *r = h_connect_flushed(&ref);
    int failures = 0;
    if (!c || !r)
        goto out;
    H_SAME(c, r, "CONFIG", "SET", "list-max-listpack-size", "4");
    for (int i = 0; i < n && failures < 5; i++) {
        struct h_line m;
        random_command(&m);
        if (!h_same(__FILE__, __LINE__, c, r, m.argc, m.argv, NULL)) {
            printf("  at command %d\n", i);
            failures++;
        }
    }
    for (int k = 0; k < RANDOM_KEYS; k++) {
        char key[16];
        snprintf(key, sizeof(key), "k%d", k);
        H_SAME(c, r, "TYPE", key);
        H_SAME(c, r, "LRANGE", key, "0", "-1");
    }
    H_SAME(c, r, "CONFIG", "SET", "list-max-listpack-size", "-2");
out:
    CHECK(failures == 0, "random comparison failed, SEED=%" PRIu64, seed);
    redisFree(c);
    redisFree(r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_same_as_redis);
    H_RUN(test_same_as_redis_resp3);
    H_RUN(test_command_info_as_redis);
    H_RUN(test_config);
    H_RUN(test_chunk_sizes);
    H_RUN(test_long_list);
    H_RUN(test_scan_type);
    H_RUN(test_lpos_rank_min);
    H_RUN(test_dirty);
    H_RUN(test_events);
    H_RUN(test_watch);
    H_RUN(test_watch_blocking_pop);
    H_RUN(test_random_against_redis);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
