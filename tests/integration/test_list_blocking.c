/*
 * test_list_blocking.c - end-to-end tests of the blocking list commands:
 * BLPOP, BRPOP, BLMPOP, BLMOVE and BRPOPLPUSH (server/commands/cmd_list.c
 * on server/core/blocking.c).
 *
 * Every test but test_logged_as_pops (which reads rbkv's own log file) runs
 * unchanged against Debian's redis-server 7.0, which is how their
 * expectations were checked:
 *   test_integration_list_blocking redis-server
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

#define AOF "appendonly.aof"

/* Three clients on one key are served first come, first served, one element
 * each; with more waiters than elements the rest wait on. */
static void test_fifo(void)
{
    redisContext *c[3] = {h_connect_flushed(&srv), h_connect(&srv), h_connect(&srv)};
    redisContext *w = h_connect(&srv);
    if (!c[0] || !c[1] || !c[2] || !w)
        goto out;
    H_BLOCK(c[0], w, 1, "BLPOP", "q", "0");
    H_BLOCK(c[1], w, 2, "BRPOP", "q", "0");
    H_BLOCK(c[2], w, 3, "BLPOP", "other", "q", "0");
    EXPECT_INT(w, 3, "RPUSH", "q", "a", "b", "c");
    EXPECT_NEXT(c[0], "['q', 'a']");
    EXPECT_NEXT(c[1], "['q', 'c']");
    EXPECT_NEXT(c[2], "['q', 'b']");
    EXPECT_INT(w, 0, "EXISTS", "q");

    H_BLOCK(c[0], w, 1, "BLPOP", "q", "0");
    H_BLOCK(c[1], w, 2, "BLMPOP", "0", "1", "q", "RIGHT", "COUNT", "5");
    EXPECT_INT(w, 1, "LPUSH", "q", "x");
    EXPECT_NEXT(c[0], "['q', 'x']");
    h_await_blocked(w, 1);
    EXPECT_INT(w, 2, "RPUSH", "q", "y", "z");
    EXPECT_NEXT(c[1], "['q', ['z', 'y']]");
    EXPECT_INT(w, 0, "EXISTS", "q");
out:
    for (int i = 0; i < 3; i++)
        redisFree(c[i]);
    redisFree(w);
}

/* The key that gets an element serves a client waiting on several; a key
 * made by another command than a push (RENAME, COPY, LMOVE) serves too. */
static void test_wake_by_any_write(void)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    EXPECT_SERVED(c, w, "BRPOP k1 k2 0", 0, "RPUSH k2 a b", ":2", "['k2', 'b']");
    EXPECT_SERVED(c, w, "BLPOP renamed 0", 0, "RENAME k2 renamed", "+OK", "['renamed', 'a']");
    EXPECT_INT(w, 1, "RPUSH", "orig", "v");
    EXPECT_SERVED(c, w, "BLPOP copy 0", 0, "COPY orig copy", ":1", "['copy', 'v']");
    EXPECT_SERVED(c, w, "BLPOP moved 0", 0, "LMOVE orig moved LEFT LEFT", "'v'", "['moved', 'v']");
out:
    redisFree(c);
    redisFree(w);
}

static void test_timeout(void)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    EXPECT_TIMEOUT(c, 90, "BLPOP", "k", "0.1");
    EXPECT_NIL(c, "BRPOP", "k", "k2", "0.05");
    EXPECT_NIL(c, "BLMPOP", "0.05", "1", "k", "LEFT");
    EXPECT_NIL(c, "BLMOVE", "k", "d", "LEFT", "LEFT", "0.05");
    EXPECT_NIL(c, "BRPOPLPUSH", "k", "d", "0.05");
    EXPECT_INT(w, 0, "EXISTS", "k", "d");

    /* 0 is forever: still blocked well after, until woken. */
    EXPECT_SERVED(c, w, "BLPOP k 0", 300, "RPUSH k late", ":1", "['k', 'late']");

    /* A timed wait that is served does not time out later. */
    EXPECT_SERVED(c, w, "BLPOP k 0.2", 0, "RPUSH k on-time", ":1", "['k', 'on-time']");
    h_sleep_ms(300);
    EXPECT_REPLY(c, "+PONG", "PING");
out:
    redisFree(c);
    redisFree(w);
}

/* CLIENT UNBLOCK ends a list wait with its timeout's nil, or an error. */
static void test_client_unblock(void)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    long long id = c ? h_int_reply(c, 2, (const char *const[]){"CLIENT", "ID"}) : -1;
    char idbuf[24];
    snprintf(idbuf, sizeof(idbuf), "%lld", id);
    if (!c || !w)
        goto out;
    H_BLOCK(c, w, 1, "BLMOVE", "k", "d", "LEFT", "RIGHT", "0");
    EXPECT_INT(w, 1, "CLIENT", "UNBLOCK", idbuf);
    EXPECT_NEXT(c, "(nil)");
    EXPECT_INT(w, 0, "CLIENT", "UNBLOCK", idbuf);
    H_BLOCK(c, w, 1, "BLPOP", "k", "0");
    EXPECT_INT(w, 1, "CLIENT", "UNBLOCK", idbuf, "ERROR");
    EXPECT_NEXT(c, "-UNBLOCKED client unblocked via CLIENT UNBLOCK");
    /* Nothing is left waiting: a push stays in the list. */
    EXPECT_INT(w, 1, "RPUSH", "k", "v");
    EXPECT_INT(w, 1, "LLEN", "k");
out:
    redisFree(c);
    redisFree(w);
}

/* BLMOVE hands an element on: a chain of waiters, each BLMOVE's
 * destination the next one's source, ends at a BLPOP, all from one push. */
static void test_blmove_chain(void)
{
    redisContext *a = h_connect_flushed(&srv), *b = h_connect(&srv), *d = h_connect(&srv);
    redisContext *w = h_connect(&srv);
    if (!a || !b || !d || !w)
        goto out;
    H_BLOCK(a, w, 1, "BLMOVE", "l1", "l2", "RIGHT", "LEFT", "0");
    H_BLOCK(b, w, 2, "BRPOPLPUSH", "l2", "l3", "0");
    H_BLOCK(d, w, 3, "BLPOP", "l3", "0");
    EXPECT_INT(w, 1, "LPUSH", "l1", "token");
    EXPECT_NEXT(a, "'token'");
    EXPECT_NEXT(b, "'token'");
    EXPECT_NEXT(d, "['l3', 'token']");
    EXPECT_INT(w, 0, "EXISTS", "l1", "l2", "l3");

    /* A rotation onto the same key serves its own waiter's key again. */
    EXPECT_SERVED(a, w, "BLMOVE r r LEFT RIGHT 0", 0, "RPUSH r x y", ":2", "'x'");
    EXPECT_REPLY(w, "['y', 'x']", "LRANGE", "r", "0", "-1");
out:
    redisFree(a);
    redisFree(b);
    redisFree(d);
    redisFree(w);
}

/* A waiting BLMOVE whose destination holds another type by the time it is
 * served gets WRONGTYPE, and the element stays for the next waiter. */
static void test_blmove_wrong_destination(void)
{
    redisContext *a = h_connect_flushed(&srv), *b = h_connect(&srv), *w = h_connect(&srv);
    if (!a || !b || !w)
        goto out;
    H_BLOCK(a, w, 1, "BLMOVE", "src", "dst", "LEFT", "LEFT", "0");
    H_BLOCK(b, w, 2, "BLPOP", "src", "0");
    EXPECT_OK(w, "SET", "dst", "string");
    EXPECT_INT(w, 1, "RPUSH", "src", "v");
    EXPECT_NEXT(a, "-WRONGTYPE Operation against a key holding the wrong kind of value");
    EXPECT_NEXT(b, "['src', 'v']");
    EXPECT_REPLY(w, "'string'", "GET", "dst");
out:
    redisFree(a);
    redisFree(b);
    redisFree(w);
}

/* Inside MULTI nothing blocks; a waiter is served after EXEC from what the
 * whole transaction left. */
static void test_transactions(void)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    EXPECT_TRANSACTION(w, "[(nil), (nil), (nil)]", "BLPOP empty 0", "BLMOVE empty d LEFT LEFT 0",
                       "BLMPOP 0 1 empty LEFT");

    H_BLOCK(c, w, 1, "BLPOP", "k", "0");
    EXPECT_TRANSACTION(w, "[:1, 'a']", "LPUSH k a", "LPOP k");
    h_await_blocked(w, 1);
    EXPECT_TRANSACTION(w, "[:1, :2]", "LPUSH k a", "LPUSH k b");
    EXPECT_NEXT(c, "['k', 'b']");
    EXPECT_REPLY(w, "['a']", "LRANGE", "k", "0", "-1");
out:
    redisFree(c);
    redisFree(w);
}

/* RESP3 (raw: the hiredis here reads RESP2 only): a timeout is a null, the
 * served reply an array. */
static void test_resp3(void)
{
    struct h_raw r;
    redisContext *w = h_connect_flushed(&srv);
    if (!w || h_raw_open_resp3(&r, &srv) < 0) {
        redisFree(w);
        return;
    }
    RAW_SEND(&r, "BLPOP k 0.01\r\n");
    RAW_EXPECT(&r, "_\r\n");
    RAW_SEND(&r, "BLMOVE k d LEFT LEFT 0.01\r\n");
    RAW_EXPECT(&r, "_\r\n");
    RAW_SEND(&r, "BLMPOP 0 1 k LEFT COUNT 2\r\n");
    h_await_blocked(w, 1);
    EXPECT_INT(w, 3, "RPUSH", "k", "a", "b", "c");
    RAW_EXPECT(&r, "*2\r\n$1\r\nk\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n");
    h_raw_close(&r);
    redisFree(w);
}

/* The log records a served wait as the non-blocking command it amounted to,
 * so a restart replays it without waiting and ends with the same lists. */
static void test_logged_as_pops(void)
{
    if (h_is_reference()) {
        printf("  skipped: reads rbkv's own log file\n");
        return;
    }
    struct h_server s;
    redisContext *waiter, *more[3];
    redisContext *c = h_open_blocked(&s, H_FLAGS("--appendonly", "yes", "--appendfsync", "always"),
                                     &waiter, H_FLAGS("BLPOP", "a", "5"));
    if (!c)
        return;
    more[0] = h_connect(&s);
    more[1] = h_connect(&s);
    more[2] = h_connect(&s);
    if (!more[0] || !more[1] || !more[2])
        goto out;
    H_BLOCK(more[0], c, 2, "BLMOVE", "b", "b2", "RIGHT", "LEFT", "5");
    H_BLOCK(more[1], c, 3, "BRPOPLPUSH", "c", "c2", "5");
    H_BLOCK(more[2], c, 4, "BLMPOP", "5", "1", "d", "RIGHT", "COUNT", "2");
    EXPECT_INT(c, 2, "RPUSH", "a", "1", "2");
    EXPECT_INT(c, 2, "RPUSH", "b", "1", "2");
    EXPECT_INT(c, 2, "RPUSH", "c", "1", "2");
    EXPECT_INT(c, 3, "RPUSH", "d", "1", "2", "3");
    EXPECT_NEXT(waiter, "['a', '1']");
    EXPECT_NEXT(more[0], "'2'");
    EXPECT_NEXT(more[1], "'2'");
    EXPECT_NEXT(more[2], "['d', ['3', '2']]");
    /* And one that did not wait: its own pop, too. */
    EXPECT_REPLY(c, "['d', '1']", "BLPOP", "d", "0");
    CHECK(h_file_has(&s, AOF, "$4\r\nLPOP\r\n$1\r\na\r\n"), "BLPOP logged as LPOP");
    CHECK(h_file_has(&s, AOF, "$5\r\nLMOVE\r\n$1\r\nb\r\n$2\r\nb2\r\n$5\r\nRIGHT\r\n$4\r\nLEFT"),
          "BLMOVE logged as LMOVE");
    CHECK(h_file_has(&s, AOF, "$9\r\nRPOPLPUSH\r\n$1\r\nc\r\n$2\r\nc2\r\n"),
          "BRPOPLPUSH logged as RPOPLPUSH");
    CHECK(h_file_has(&s, AOF, "$4\r\nRPOP\r\n$1\r\nd\r\n$1\r\n2\r\n"), "BLMPOP logged as RPOP");
    CHECK(h_file_has(&s, AOF, "$4\r\nLPOP\r\n$1\r\nd\r\n"), "an immediate BLPOP logged as LPOP");
    CHECK(!h_file_has(&s, AOF, "BLPOP") && !h_file_has(&s, AOF, "BLMOVE") &&
              !h_file_has(&s, AOF, "BRPOPLPUSH") && !h_file_has(&s, AOF, "BLMPOP"),
          "no blocking command in the log");
    for (int i = 0; i < 3; i++)
        redisFree(more[i]);
    redisFree(waiter);
    h_close(&s, c);
    c = h_reopen(&s, H_FLAGS("--appendonly", "yes"));
    if (c) {
        EXPECT_REPLY(c, "['2']", "LRANGE", "a", "0", "-1");
        EXPECT_REPLY(c, "['1']", "LRANGE", "b", "0", "-1");
        EXPECT_REPLY(c, "['2']", "LRANGE", "b2", "0", "-1");
        EXPECT_REPLY(c, "['1']", "LRANGE", "c", "0", "-1");
        EXPECT_REPLY(c, "['2']", "LRANGE", "c2", "0", "-1");
        EXPECT_INT(c, 0, "EXISTS", "d");
        h_close(&s, c);
    }
    h_clean_dir(&s);
    return;
out:
    for (int i = 0; i < 3; i++)
        redisFree(more[i]);
    redisFree(waiter);
    h_close(&s, c);
    h_clean_dir(&s);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_fifo);
    H_RUN(test_wake_by_any_write);
    H_RUN(test_timeout);
    H_RUN(test_client_unblock);
    H_RUN(test_blmove_chain);
    H_RUN(test_blmove_wrong_destination);
    H_RUN(test_transactions);
    H_RUN(test_resp3);
    H_RUN(test_logged_as_pops);
    h_stop(&srv);
    return h_finish();
}
