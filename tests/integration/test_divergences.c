/*
 * test_divergences.c - side-by-side checks, against redis-server, of the
 * replies where side-by-side runs once found rbkv differing: sorted-set
 * algebra over plain sets, scans of a missing key, doubles written out in
 * full (DBL_MAX's 309 digits) in every command that parses one, SMOVE and
 * WATCH, EXEC while a script is busy, waiters served by a key that
 * RENAME, MOVE, COPY, SORT ... STORE or a script creates, and Lua details
 * (_G's metatable, BLOCK in a script).
 *
 * Each check runs on both servers and compares the replies byte for byte
 * (H_SAME); without redis-server the commands still run, and the fixed
 * expectations beside them keep the test meaningful.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "harness_blocking.h"

static struct h_server srv, ref;
static int have_ref;

static void test_zset_algebra_over_sets(void)
{
    static const char *const lines[] = {
        "SADD s a b c", "ZADD z 2 a 3 d", "SET str x",
        "ZUNIONSTORE d 2 s z", "ZRANGE d 0 -1 WITHSCORES",
        "ZINTERSTORE d 2 s z WEIGHTS 2 1 AGGREGATE MAX", "ZRANGE d 0 -1 WITHSCORES",
        "ZDIFFSTORE d 2 s z", "ZRANGE d 0 -1 WITHSCORES", "ZDIFFSTORE d 2 z s",
        "ZUNION 2 s z WITHSCORES", "ZINTER 2 z s WITHSCORES", "ZDIFF 2 s z WITHSCORES",
        "ZINTERCARD 2 s z", "ZINTERCARD 1 s LIMIT 2", "ZUNION 3 s missing z",
        "ZUNION 2 s str", "ZINTERSTORE d 2 str s", "ZUNIONSTORE s 1 s", "TYPE s",
        "ZRANGE s 0 -1 WITHSCORES",
    };
    redisContext *r = NULL, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    H_SAME_LINES(c, r, lines);
    EXPECT_REPLY(c, "['b', '1', 'c', '1', 'a', '3', 'd', '3']", "ZUNION", "2", "s", "z",
                 "WITHSCORES");
    h_close_pair(c, r);
}

static void test_scan_missing_key(void)
{
    static const char *const lines[] = {
        "HSCAN missing 0 COUNT 0", "HSCAN missing 0 MATCH", "HSCAN missing 0 foo bar",
        "SSCAN missing 0 COUNT 0", "ZSCAN missing 0 COUNT -1", "HSCAN missing x COUNT 0",
        "HSET h f v", "HSCAN h 0 COUNT 0",
    };
    redisContext *r = NULL, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    H_SAME_LINES(c, r, lines);
    EXPECT_REPLY(c, "['0', []]", "HSCAN", "missing", "0", "COUNT", "0");
    h_close_pair(c, r);
}

/* DBL_MAX written out (309 digits, then ".5"), and 1 followed by 400
 * zeros (past DBL_MAX: refused by strtod's ERANGE, accepted as inf by a
 * range bound) in each command that reads a double. */
static void test_long_doubles(void)
{
    char dbl_max[400], over[410], excl[412], neg[401];
    snprintf(dbl_max, sizeof(dbl_max), "%.0f.5", 1.7976931348623157e308);
    memset(over, '0', 401);
    over[0] = '1';
    over[401] = '\0';
    snprintf(excl, sizeof(excl), "(%s", over);
    snprintf(neg, sizeof(neg), "-%s", dbl_max);
    redisContext *r = NULL, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    H_SAME(c, r, "ZADD", "z", dbl_max, "x");
    EXPECT_BULK(c, "1.7976931348623157e+308", "ZSCORE", "z", "x");
    H_SAME(c, r, "ZADD", "z", over, "y");
    H_SAME(c, r, "ZADD", "z", "INCR", neg, "x");
    H_SAME(c, r, "ZINCRBY", "z", dbl_max, "x");
    H_SAME(c, r, "ZINCRBY", "z", over, "x");
    H_SAME(c, r, "ZRANGEBYSCORE", "z", dbl_max, "+inf");
    H_SAME(c, r, "ZRANGEBYSCORE", "z", excl, "+inf");
    H_SAME(c, r, "ZCOUNT", "z", neg, over);
    H_SAME(c, r, "ZCOUNT", "z", " 1", "+inf");
    H_SAME(c, r, "ZREMRANGEBYSCORE", "z", over, "+inf");
    H_SAME(c, r, "ZUNIONSTORE", "d", "1", "z", "WEIGHTS", dbl_max);
    H_SAME(c, r, "GEOADD", "g", dbl_max, "1", "m");
    H_SAME(c, r, "GEOADD", "g", "1", over, "m");
    H_SAME(c, r, "SET", "f", "1");
    H_SAME(c, r, "INCRBYFLOAT", "f", dbl_max);
    H_SAME(c, r, "INCRBYFLOAT", "f", over);
    H_SAME(c, r, "HSET", "h", "f", "1");
    H_SAME(c, r, "HINCRBYFLOAT", "h", "f", dbl_max);
    H_SAME(c, r, "BLPOP", "nolist", dbl_max);
    h_close_pair(c, r);
}

/* Replies noted as text on rbkv (text[0]) and on redis-server (text[1]):
 * the first n must be equal; all are freed. */
static void same_texts(char *text[2][3], int n, const char *what)
{
    for (int k = 0; k < n; k++) {
        if (have_ref)
            CHECK(strcmp(text[0][k], text[1][k]) == 0, "%s %d: rbkv %s, redis %s", what, k,
                  text[0][k], text[1][k]);
        free(text[0][k]);
        free(text[1][k]);
    }
}

/* SMOVE of a member the destination already holds leaves it untouched: a
 * WATCH of the destination keeps its transaction; of the source, not. */
static void test_smove_watch(void)
{
    const struct h_server *both[2] = {&srv, &ref};
    char *text[2][3] = {{0}};
    for (int i = 0; i < 1 + have_ref; i++) {
        redisContext *w = h_connect_flushed(both[i]), *o = h_connect(both[i]);
        EXPECT_INT(o, 2, "SADD", "src", "a", "b");
        EXPECT_INT(o, 1, "SADD", "dst", "a");
        EXPECT_OK(w, "WATCH", "dst");
        EXPECT_INT(o, 1, "SMOVE", "src", "dst", "a");
        EXPECT_TRANSACTION(w, "[+PONG]", "PING");
        EXPECT_OK(w, "WATCH", "dst");
        EXPECT_INT(o, 1, "SMOVE", "src", "dst", "b");
        text[i][0] = H_REPLY_TEXT(w, "MULTI");
        free(text[i][0]);
        text[i][0] = H_REPLY_TEXT(w, "EXEC");
        EXPECT_OK(w, "WATCH", "src");
        EXPECT_INT(o, 1, "SADD", "src", "c");
        EXPECT_INT(o, 1, "SMOVE", "src", "dst", "c");
        text[i][1] = H_REPLY_TEXT(w, "MULTI");
        free(text[i][1]);
        text[i][1] = H_REPLY_TEXT(w, "EXEC");
        redisFree(w);
        redisFree(o);
    }
    CHECK(strcmp(text[0][0], "(nil)") == 0 && strcmp(text[0][1], "(nil)") == 0,
          "SMOVE that changed a watched key kept the transaction: %s %s", text[0][0],
          text[0][1]);
    same_texts(text, 2, "EXEC");
}

/* EXEC while another client's script is past busy-reply-threshold:
 * EXECABORT with the BUSY text, and the client is out of MULTI. */
static void test_exec_while_busy(void)
{
    const struct h_server *both[2] = {&srv, &ref};
    char *text[2][3] = {{0}};
    for (int i = 0; i < 1 + have_ref; i++) {
        redisContext *a = h_connect_flushed(both[i]), *b = h_connect(both[i]);
        redisContext *k = h_connect(both[i]);
        EXPECT_OK(a, "CONFIG", "SET", "busy-reply-threshold", "50");
        EXPECT_OK(b, "MULTI");
        EXPECT_STATUS(b, "QUEUED", "SET", "x", "1");
        H_SEND(a, "EVAL", "while true do end", "0");
        h_wait_busy(k, 5000 * H_SLOW);
        text[i][0] = H_REPLY_TEXT(b, "EXEC");
        text[i][1] = H_REPLY_TEXT(b, "MULTI");
        text[i][2] = H_REPLY_TEXT(b, "DISCARD");
        EXPECT_OK(k, "SCRIPT", "KILL");
        redisReply *killed = h_get_reply(a);
        freeReplyObject(killed);
        EXPECT_OK(a, "CONFIG", "SET", "busy-reply-threshold", "5000");
        EXPECT_NIL(a, "GET", "x");
        redisFree(a);
        redisFree(b);
        redisFree(k);
    }
    static const char abort_busy[] = "-EXECABORT Transaction discarded because of: BUSY ";
    CHECK(strncmp(text[0][0], abort_busy, sizeof(abort_busy) - 1) == 0 &&
              strcmp(text[0][1], "+OK") == 0,
          "EXEC while busy: %s, then MULTI: %s", text[0][0], text[0][1]);
    same_texts(text, 3, "reply");
}

/* A waiter on a key that a command creates whole. */
struct creation {
    const char *block;     /* the blocking command, words split at spaces */
    const char *setup[3];  /* run first, on a client in db 0 (NULL ends) */
    const char *create;    /* what makes the key */
};

static const struct creation creations[] = {
    {"BLPOP l 0", {"RPUSH src a"}, "RENAME src l"},
    {"BLMPOP 0 1 l LEFT", {"RPUSH src a"}, "RENAME src l"},
    {"BLPOP l 0", {"SELECT 1", "RPUSH l a"}, "MOVE l 0"},
    {"BLPOP l 0", {"RPUSH src a"}, "COPY src l"},
    {"BLPOP l 0", {"SELECT 1", "RPUSH src a"}, "COPY src l DB 0"},
    {"BLPOP l 0", {"RPUSH src b a"}, "SORT src ALPHA STORE l"},
    {"BLMPOP 0 1 l LEFT", {"RPUSH src 2 1"}, "SORT src STORE l"},
    {"BLPOP l 0", {NULL}, "EVAL redis.call('rpush','l','x') 0"},
    {"BZPOPMIN z 0", {"ZADD src 1 a"}, "RENAME src z"},
    {"XREADGROUP GROUP g c BLOCK 0 STREAMS st >",
     {"XADD src 1-1 f v", "XGROUP CREATE src g 0"}, "RENAME src st"},
    {"XREADGROUP GROUP g c BLOCK 0 STREAMS st >",
     {"XADD src 1-1 f v", "XGROUP CREATE src g 0"}, "COPY src st REPLACE"},
    {"XREADGROUP GROUP g c BLOCK 0 STREAMS st >", {NULL},
     "EVAL redis.call('xadd','st','2-1','f','v') 0"},
};

static char *served_by(const struct h_server *s, const struct creation *k)
{
    struct h_line l;
    redisContext *o = h_connect_flushed(s);
    if (!o)
        return strdup("(no connection)");
    if (strncmp(k->block, "XREADGROUP", 10) == 0)
        EXPECT_OK(o, "XGROUP", "CREATE", "st", "g", "$", "MKSTREAM");
    h_split(k->block, &l);
    redisContext *b = h_blocked_reader(s, l.argc, l.argv);
    h_await_blocked(o, 1);
    for (int i = 0; i < 3 && k->setup[i]; i++) {
        h_split(k->setup[i], &l);
        freeReplyObject(h_command(o, l.argc, l.argv, NULL));
    }
    h_split(k->create, &l);
    freeReplyObject(h_command(o, l.argc, l.argv, NULL));
    char buf[1024] = "(none)";
    redisReply *rep = b ? h_get_reply(b) : NULL;
    if (rep)
        h_repr(rep, buf, sizeof(buf));
    freeReplyObject(rep);
    redisFree(b);
    redisFree(o);
    return strdup(buf);
}

static void test_waiters_served_by_created_keys(void)
{
    for (size_t i = 0; i < sizeof(creations) / sizeof(creations[0]); i++) {
        char *ours = served_by(&srv, &creations[i]);
        CHECK(ours[0] == '[', "%s not served by %s: %s", creations[i].block, creations[i].create,
              ours);
        if (have_ref) {
            char *theirs = served_by(&ref, &creations[i]);
            CHECK(strcmp(ours, theirs) == 0, "%s served by %s: rbkv %s, redis %s",
                  creations[i].block, creations[i].create, ours, theirs);
            free(theirs);
        }
        free(ours);
    }
}

/* Lua details: _G's metatable and the read-only errors, XREAD and
 * XREADGROUP with BLOCK refused in a script with Redis's text (the
 * command named as called), before BLOCK's value is read. */
static void test_lua_details(void)
{
    redisContext *r = NULL, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    H_SAME(c, r, "EVAL", "return type(getmetatable(_G))", "0");
    H_SAME(c, r, "EVAL", "return type(getmetatable(_G).__index)", "0");
    H_SAME(c, r, "EVAL", "local m = getmetatable(_G) m.__index = nil return 1", "0");
    H_SAME(c, r, "EVAL", "rawset(getmetatable(_G), 'a', 1) return 1", "0");
    H_SAME(c, r, "EVAL", "x = 1", "0");
    H_SAME(c, r, "EVAL", "return redis.call('XREAD','BLOCK','x','STREAMS','s','$')", "0");
    H_SAME(c, r, "EVAL", "return redis.call('xread','COUNT','x','BLOCK','0','STREAMS','s','$')",
           "0");
    H_SAME(c, r, "EVAL",
           "return redis.call('xreadgroup','GROUP','g','c','BLOCK','0','STREAMS','s','>')", "0");
    EXPECT_MATCH(c, "-ERR xread command is not allowed with BLOCK option from scripts *", "EVAL",
                 "return redis.call('xread','BLOCK','0','STREAMS','s')", "0");
    h_close_pair(c, r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_zset_algebra_over_sets);
    H_RUN(test_scan_missing_key);
    H_RUN(test_long_doubles);
    H_RUN(test_smove_watch);
    H_RUN(test_exec_while_busy);
    H_RUN(test_waiters_served_by_created_keys);
    H_RUN(test_lua_details);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
