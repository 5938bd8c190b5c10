/*
 * test_blocking.c - end-to-end tests of the blocking pops: BZPOPMIN,
 * BZPOPMAX, BZMPOP, and ZMPOP (server/core/blocking.c, server/commands/cmd_zset.c).
 *
 * Every test runs unchanged against Debian's redis-server 7.0, which is how
 * their expectations were checked:
 *   test_integration_blocking redis-server
 * A blocking command is sent on one connection without reading its reply;
 * another connection waits until INFO shows the client blocked, does the
 * write that should wake it, and then the first reads its reply.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "harness_blocking.h"

static struct h_server srv;


static void test_immediate(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_INT(c, 4, "ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d");
    EXPECT_REPLY(c, "['z', 'a', '1']", "BZPOPMIN", "nokey", "z", "0");
    EXPECT_REPLY(c, "['z', 'd', '4']", "BZPOPMAX", "z", "nokey", "1");
    EXPECT_REPLY(c, "['z', [['b', '2'], ['c', '3']]]", "ZMPOP", "2", "nokey", "z", "MIN",
                 "COUNT", "10");
    EXPECT_INT(c, 0, "EXISTS", "z");
    EXPECT_NIL(c, "ZMPOP", "1", "z", "MIN");
    EXPECT_INT(c, 2, "ZADD", "y", "1", "a", "2", "b");
    EXPECT_REPLY(c, "['y', [['b', '2']]]", "BZMPOP", "0", "1", "y", "MAX");
    EXPECT_REPLY(c, "['y', [['a', '1']]]", "ZMPOP", "1", "y", "max", "count", "1");
    redisFree(c);
}

static void test_errors(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_ERR(c, "ERR timeout is not a float or out of range", "BZPOPMIN", "k", "abc");
    EXPECT_ERR(c, "ERR timeout is negative", "BZPOPMIN", "k", "-1");
    EXPECT_ERR(c, "ERR timeout is negative", "BZMPOP", "-0.5", "1", "k", "MIN");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'bzpopmin' command", "BZPOPMIN", "k");
    EXPECT_ERR(c, "ERR numkeys should be greater than 0", "ZMPOP", "0", "k", "MIN");
    EXPECT_ERR(c, "ERR numkeys should be greater than 0", "ZMPOP", "x", "k", "MIN");
    EXPECT_ERR(c, "ERR syntax error", "ZMPOP", "2", "k", "MIN");
    EXPECT_ERR(c, "ERR syntax error", "ZMPOP", "1", "k", "MIDDLE");
    EXPECT_ERR(c, "ERR count should be greater than 0", "ZMPOP", "1", "k", "MIN", "COUNT", "0");
    EXPECT_ERR(c, "ERR syntax error", "ZMPOP", "1", "k", "MIN", "COUNT");
    EXPECT_ERR(c, "ERR syntax error", "ZMPOP", "1", "k", "MIN", "COUNT", "1", "COUNT", "2");
    EXPECT_ERR(c, "ERR count should be greater than 0", "BZMPOP", "0", "1", "k", "MAX", "COUNT",
               "-1");
    EXPECT_OK(c, "SET", "s", "1");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "BZPOPMIN",
               "nokey", "s", "0");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "ZMPOP",
               "1", "s", "MIN");
    EXPECT_ERR(c, "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR", "CLIENT", "UNBLOCK",
               "1", "SOON");
    EXPECT_INT(c, 0, "CLIENT", "UNBLOCK", "999999");
    redisFree(c);
}

static void test_wake_by_zadd(void)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    EXPECT_SERVED(c, w, "BZPOPMIN k 0", 0, "ZADD k 1 a 2 b", ":2", "['k', 'a', '1']");
    EXPECT_REPLY(w, "['b']", "ZRANGE", "k", "0", "-1");
    h_await_blocked(w, 0);

    EXPECT_SERVED(c, w, "BZPOPMAX k2 0", 0, "ZINCRBY k2 2.5 m", "'2.5'", "['k2', 'm', '2.5']");

    /* A key created by a STORE or a RENAME wakes its waiters too. */
    EXPECT_SERVED(c, w, "BZPOPMIN dst 0", 0, "ZUNIONSTORE dst 1 k", ":1", "['dst', 'b', '2']");
    EXPECT_SERVED(c, w, "BZPOPMIN renamed 0", 0, "RENAME k renamed", "+OK",
                  "['renamed', 'b', '2']");
out:
    redisFree(c);
    redisFree(w);
}

static void test_fifo(void)
{
    redisContext *c[3] = {h_connect_flushed(&srv), h_connect(&srv), h_connect(&srv)};
    redisContext *w = h_connect(&srv);
    if (!c[0] || !c[1] || !c[2] || !w)
        goto out;
    for (int i = 0; i < 3; i++)
        H_BLOCK(c[i], w, i + 1, "BZPOPMIN", "q", "0");
    EXPECT_INT(w, 3, "ZADD", "q", "1", "a", "2", "b", "3", "c");
    EXPECT_NEXT(c[0], "['q', 'a', '1']");
    EXPECT_NEXT(c[1], "['q', 'b', '2']");
    EXPECT_NEXT(c[2], "['q', 'c', '3']");
    EXPECT_INT(w, 0, "EXISTS", "q");

    /* One member for two waiters: the first gets it, the second waits on. */
    H_BLOCK(c[0], w, 1, "BZPOPMIN", "q", "0");
    H_BLOCK(c[1], w, 2, "BZPOPMIN", "q", "0");
    EXPECT_INT(w, 1, "ZADD", "q", "1", "x");
    EXPECT_NEXT(c[0], "['q', 'x', '1']");
    h_await_blocked(w, 1);
    EXPECT_INT(w, 1, "ZADD", "q", "2", "y");
    EXPECT_NEXT(c[1], "['q', 'y', '2']");
out:
    for (int i = 0; i < 3; i++)
        redisFree(c[i]);
    redisFree(w);
}

static void test_several_keys(void)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    EXPECT_INT(w, 1, "ZADD", "k1", "1", "a");
    EXPECT_INT(w, 1, "ZADD", "k2", "2", "b");
    EXPECT_REPLY(c, "['k2', 'b', '2']", "BZPOPMIN", "k3", "k2", "k1", "0");
    EXPECT_REPLY(c, "['k1', 'a', '1']", "BZPOPMIN", "k3", "k2", "k1", "0");

    EXPECT_SERVED(c, w, "BZPOPMIN k1 k2 0", 0, "ZADD k2 5 z", ":1", "['k2', 'z', '5']");
    h_await_blocked(w, 0);

    /* BZMPOP with COUNT, woken on its second key. */
    EXPECT_SERVED(c, w, "BZMPOP 0 2 m1 m2 MAX COUNT 2", 0, "ZADD m2 1 x 2 y 3 z", ":3",
                  "['m2', [['z', '3'], ['y', '2']]]");
    EXPECT_REPLY(w, "['x']", "ZRANGE", "m2", "0", "-1");
out:
    redisFree(c);
    redisFree(w);
}

static void test_timeout(void)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    EXPECT_TIMEOUT(c, 90, "BZPOPMIN", "k", "0.1");
    EXPECT_NIL(c, "BZMPOP", "0.05", "1", "k", "MIN");
    EXPECT_INT(w, 0, "EXISTS", "k");

    /* 0 is forever: still blocked well after, until woken. */
    EXPECT_SERVED(c, w, "BZPOPMAX k 0", 300, "ZADD k 7 late", ":1", "['k', 'late', '7']");

    /* A timed wait that is served does not time out later. */
    EXPECT_SERVED(c, w, "BZPOPMIN k 0.2", 0, "ZADD k 1 on-time", ":1", "['k', 'on-time', '1']");
    h_sleep_ms(300);
    EXPECT_REPLY(c, "+PONG", "PING");
out:
    redisFree(c);
    redisFree(w);
}

static void test_transactions(void)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    /* Inside MULTI nothing blocks: the nil of a timeout, at once. */
    EXPECT_TRANSACTION(w, "[(nil), (nil)]", "BZPOPMIN empty 0", "BZMPOP 0 1 empty MIN");

    /* Served after EXEC, from what the whole transaction left. */
    H_BLOCK(c, w, 1, "BZPOPMIN", "k", "0");
    EXPECT_TRANSACTION(w, "[:1, ['a', '1']]", "ZADD k 1 a", "ZPOPMIN k");
    h_await_blocked(w, 1);
    EXPECT_TRANSACTION(w, "[:1, :1]", "ZADD k 1 a", "ZADD k 2 b");
    EXPECT_NEXT(c, "['k', 'a', '1']");
    EXPECT_REPLY(w, "['b']", "ZRANGE", "k", "0", "-1");
out:
    redisFree(c);
    redisFree(w);
}

/* BZPOPMIN touches WATCH on the key it popped from only, not on every key
 * it names, as Redis signals the modified key only. */
static void test_watch(void)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    EXPECT_INT(w, 1, "ZADD", "watched", "1", "a");
    EXPECT_INT(w, 1, "ZADD", "other", "1", "b");
    EXPECT_OK(c, "WATCH", "watched");
    EXPECT_REPLY(w, "['other', 'b', '1']", "BZPOPMIN", "empty", "other", "watched", "0");
    EXPECT_TRANSACTION(c, "[:1]", "ZCARD watched");
    EXPECT_OK(c, "WATCH", "watched");
    EXPECT_REPLY(w, "['watched', 'a', '1']", "BZPOPMIN", "empty", "watched", "0");
    EXPECT_TRANSACTION(c, "(nil)", "ZCARD watched");
out:
    redisFree(c);
    redisFree(w);
}

static void test_disconnect(void)
{
    redisContext *c = h_connect_flushed(&srv), *d = h_connect(&srv), *w = h_connect(&srv);
    if (!c || !d || !w)
        goto out;
    H_BLOCK(d, w, 1, "BZPOPMIN", "k", "0");
    H_BLOCK(c, w, 2, "BZPOPMIN", "k", "0");
    redisFree(d);
    d = NULL;
    h_await_blocked(w, 1);
    EXPECT_INT(w, 1, "ZADD", "k", "1", "a");
    EXPECT_NEXT(c, "['k', 'a', '1']");
    /* A gone client with a deadline leaves no timer behind. */
    d = h_connect(&srv);
    if (!d)
        goto out;
    H_BLOCK(d, w, 1, "BZPOPMIN", "k", "0.2");
    redisFree(d);
    d = NULL;
    h_await_blocked(w, 0);
    h_sleep_ms(300);
    EXPECT_INT(w, 1, "ZADD", "k", "1", "a");
    EXPECT_INT(w, 1, "ZCARD", "k");
out:
    redisFree(c);
    redisFree(d);
    redisFree(w);
}

static void test_introspection(void)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    redisReply *r = H_CALL(c, "CLIENT", "ID");
    char id[32] = "0";
    if (CHECK(r && r->type == REDIS_REPLY_INTEGER, "CLIENT ID"))
        snprintf(id, sizeof(id), "%lld", r->integer);
    freeReplyObject(r);

    H_BLOCK(c, w, 1, "BZPOPMIN", "k", "0");
    char pattern[96];
    snprintf(pattern, sizeof(pattern), "*id=%s *flags=b *cmd=bzpopmin *", id);
    EXPECT_MATCH(w, pattern, "CLIENT", "LIST");
    EXPECT_INT(w, 1, "CLIENT", "UNBLOCK", id);
    EXPECT_NEXT(c, "(nil)");
    h_await_blocked(w, 0);
    EXPECT_INT(w, 0, "CLIENT", "UNBLOCK", id);
    EXPECT_MATCH(w, "*flags=N *", "CLIENT", "INFO");

    H_BLOCK(c, w, 1, "BZMPOP", "0", "1", "k", "MIN");
    EXPECT_INT(w, 1, "CLIENT", "UNBLOCK", id, "ERROR");
    EXPECT_NEXT(c, "-UNBLOCKED client unblocked via CLIENT UNBLOCK");
    EXPECT_REPLY(c, "+PONG", "PING");
out:
    redisFree(c);
    redisFree(w);
}

static void test_pipelined(void)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    /* The requests behind a blocking one wait for it, then run in order. */
    H_APPEND(c, "BZPOPMIN", "k", "0");
    H_APPEND(c, "SET", "after", "1");
    H_APPEND(c, "INCR", "after");
    H_SEND(c, "GET", "after");
    h_await_blocked(w, 1);
    EXPECT_NIL(w, "GET", "after");
    EXPECT_INT(w, 1, "ZADD", "k", "1", "a");
    EXPECT_NEXT(c, "['k', 'a', '1']");
    EXPECT_NEXT(c, "+OK");
    EXPECT_NEXT(c, ":2");
    EXPECT_NEXT(c, "'2'");

    /* Two blocking requests in one pipeline: the second blocks in turn. */
    H_APPEND(c, "BZPOPMIN", "k", "0");
    H_BLOCK(c, w, 1, "BZPOPMAX", "k", "0.1");
    EXPECT_INT(w, 1, "ZADD", "k", "1", "b");
    EXPECT_NEXT(c, "['k', 'b', '1']");
    EXPECT_NEXT(c, "(nil)");
    EXPECT_REPLY(c, "+PONG", "PING");
out:
    redisFree(c);
    redisFree(w);
}

/* RESP3: scores as doubles, and _ for the nil of a timeout or an empty ZMPOP. */
static void test_resp3(void)
{
    redisContext *w = h_connect_flushed(&srv);
    struct h_raw r;
    if (!w || h_raw_open_resp3(&r, &srv) < 0) {
        redisFree(w);
        return;
    }
    RAW_SEND(&r, "ZADD k 1.5 a 2 b\r\n");
    RAW_EXPECT(&r, ":2\r\n");
    RAW_SEND(&r, "BZPOPMIN k 0\r\n");
    RAW_EXPECT(&r, "*3\r\n$1\r\nk\r\n$1\r\na\r\n,1.5\r\n");
    RAW_SEND(&r, "ZMPOP 1 k MIN COUNT 2\r\n");
    RAW_EXPECT(&r, "*2\r\n$1\r\nk\r\n*1\r\n*2\r\n$1\r\nb\r\n,2\r\n");
    RAW_SEND(&r, "BZPOPMIN k 0.01\r\n");
    RAW_EXPECT(&r, "_\r\n");
    RAW_SEND(&r, "ZMPOP 1 k MIN\r\n");
    RAW_EXPECT(&r, "_\r\n");
    h_raw_close(&r);
    redisFree(w);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_immediate);
    H_RUN(test_errors);
    H_RUN(test_wake_by_zadd);
    H_RUN(test_fifo);
    H_RUN(test_several_keys);
    H_RUN(test_timeout);
    H_RUN(test_transactions);
    H_RUN(test_watch);
    H_RUN(test_disconnect);
    H_RUN(test_introspection);
    H_RUN(test_pipelined);
    H_RUN(test_resp3);
    h_stop(&srv);
    return h_finish();
}
