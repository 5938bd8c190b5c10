/*
 * test_multi.c - end-to-end tests of transactions: MULTI, EXEC, DISCARD,
 * WATCH, UNWATCH (server/core/multi.c, server/core/watch.c).
 *
 * Every test but test_ordered_in_multi runs unchanged against Debian's
 * redis-server 7.0, which is how their expectations were checked:
 *   test_integration_multi redis-server test_errors test_exec_oom test_watch ...
 * Two connections play "us" and "them": WATCH is about changes by anyone.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"

static struct h_server srv;

/* A one-PING transaction on c, whose EXEC shows whether a watched key
 * changed since the WATCH. */
#define EXPECT_EXEC(c, want) EXPECT_TRANSACTION(c, want, "PING")
#define EXEC_RAN "[+PONG]"
#define EXEC_ABORTED "(nil)"

static void test_errors(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_ERR(c, "ERR EXEC without MULTI", "EXEC");
    EXPECT_ERR(c, "ERR DISCARD without MULTI", "DISCARD");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'multi' command", "MULTI", "x");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'watch' command", "WATCH");

    /* Nested MULTI and WATCH inside MULTI are refused but do not doom it. */
    EXPECT_OK(c, "MULTI");
    EXPECT_ERR(c, "ERR MULTI calls can not be nested", "MULTI");
    EXPECT_ERR(c, "ERR WATCH inside MULTI is not allowed", "WATCH", "k");
    EXPECT_STATUS(c, "QUEUED", "SET", "k", "1");
    EXPECT_STATUS(c, "QUEUED", "UNWATCH");
    EXPECT_REPLY(c, "[+OK, +OK]", "EXEC");
    EXPECT_ERR(c, "ERR EXEC without MULTI", "EXEC");

    /* Refused at queue time: EXECABORT, nothing runs, MULTI is over. */
    EXPECT_OK(c, "MULTI");
    EXPECT_STATUS(c, "QUEUED", "SET", "k", "2");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'set' command", "SET", "k");
    EXPECT_ERR(c, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    EXPECT_BULK(c, "1", "GET", "k");
    EXPECT_OK(c, "MULTI");
    EXPECT_ERR(c, "ERR unknown command 'NOSUCH', with args beginning with: 'a' ", "NOSUCH", "a");
    EXPECT_STATUS(c, "QUEUED", "SET", "k", "3");
    EXPECT_ERR(c, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    EXPECT_BULK(c, "1", "GET", "k");
    EXPECT_ERR(c, "ERR EXEC without MULTI", "EXEC");

    /* Errors at run time are replies; nothing rolls back. */
    EXPECT_TRANSACTION(c, "[+OK, -ERR value is not an integer or out of range, +OK, '4']",
                          "SET s text", "INCR s", "SET k 4", "GET k");
    EXPECT_BULK(c, "text", "GET", "s");

    /* DISCARD drops the queue. */
    EXPECT_OK(c, "MULTI");
    EXPECT_STATUS(c, "QUEUED", "SET", "k", "5");
    EXPECT_OK(c, "DISCARD");
    EXPECT_BULK(c, "4", "GET", "k");
    EXPECT_ERR(c, "ERR DISCARD without MULTI", "DISCARD");

    /* An empty transaction, and SELECT inside one. */
    EXPECT_OK(c, "MULTI");
    EXPECT_REPLY(c, "[]", "EXEC");
    EXPECT_TRANSACTION(c, "[+OK, +OK]", "SELECT 1", "SET k db1");
    EXPECT_BULK(c, "db1", "GET", "k");
    EXPECT_OK(c, "SELECT", "0");
    EXPECT_BULK(c, "4", "GET", "k");
    redisFree(c);
}

/* Over maxmemory, as in Redis: inside MULTI every command but EXEC, DISCARD
 * and QUIT is refused (a queue could grow without bound), and by EXEC time
 * a transaction holding a DENYOOM command is refused as a whole. */
static void test_exec_oom(void)
{
    redisContext *c = h_connect_flushed(&srv), *them = h_connect(&srv);
    if (!c || !them)
        goto out;
    EXPECT_OK(c, "MULTI");
    EXPECT_STATUS(c, "QUEUED", "SET", "a", "1");
    EXPECT_OK(them, "CONFIG", "SET", "maxmemory", "1");
    EXPECT_ERR(c,
               "EXECABORT Transaction discarded because of: OOM command not allowed when used "
               "memory > 'maxmemory'.",
               "EXEC");
    EXPECT_ERR(c, "ERR EXEC without MULTI", "EXEC");
    EXPECT_OK(c, "MULTI");
    EXPECT_ERR(c, "OOM command not allowed when used memory > 'maxmemory'.", "DEL", "a");
    EXPECT_ERR(c, "OOM command not allowed when used memory > 'maxmemory'.", "MULTI");
    EXPECT_ERR(c, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    EXPECT_OK(c, "MULTI");
    EXPECT_OK(c, "DISCARD");
    EXPECT_OK(them, "CONFIG", "SET", "maxmemory", "0");
    EXPECT_OK(c, "MULTI");
    EXPECT_STATUS(c, "QUEUED", "DEL", "a");
    EXPECT_OK(them, "CONFIG", "SET", "maxmemory", "1");
    EXPECT_REPLY(c, "[:0]", "EXEC");
    EXPECT_OK(them, "CONFIG", "SET", "maxmemory", "0");
    EXPECT_NIL(c, "GET", "a");
out:
    if (c)
        redisFree(c);
    if (them)
        redisFree(them);
}

static void test_watch(void)
{
    redisContext *c = h_connect_flushed(&srv), *them = h_connect(&srv);
    if (!c || !them)
        goto out;
    EXPECT_OK(c, "SET", "k", "1");

    /* Untouched: the transaction runs. */
    EXPECT_OK(c, "WATCH", "k", "other");
    EXPECT_OK(c, "UNWATCH");
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_OK(them, "SET", "unrelated", "1");
    EXPECT_EXEC(c, EXEC_RAN);

    /* Changed by another client. */
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_OK(them, "SET", "k", "2");
    EXPECT_TRANSACTION(c, "(nil)", "SET k mine");
    EXPECT_BULK(c, "2", "GET", "k");

    /* EXEC unwatches, aborted or not. */
    EXPECT_OK(them, "SET", "k", "3");
    EXPECT_EXEC(c, EXEC_RAN);

    /* Our own change counts too; UNWATCH forgets it. */
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_OK(c, "SET", "k", "4");
    EXPECT_EXEC(c, EXEC_ABORTED);
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_OK(c, "SET", "k", "5");
    EXPECT_OK(c, "UNWATCH");
    EXPECT_EXEC(c, EXEC_RAN);

    /* DISCARD unwatches. */
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_OK(them, "SET", "k", "6");
    EXPECT_OK(c, "MULTI");
    EXPECT_OK(c, "DISCARD");
    EXPECT_EXEC(c, EXEC_RAN);

    /* DEL; a DEL of a missing key and a failed SETNX change nothing. */
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_INT(them, 1, "DEL", "k");
    EXPECT_EXEC(c, EXEC_ABORTED);
    EXPECT_OK(c, "WATCH", "k", "gone");
    EXPECT_INT(them, 0, "DEL", "gone");
    EXPECT_INT(them, 1, "SETNX", "k", "7");
    EXPECT_EXEC(c, EXEC_ABORTED);
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_INT(them, 0, "SETNX", "k", "8");
    EXPECT_EXEC(c, EXEC_RAN);

    /* Creating a watched missing key counts. */
    EXPECT_OK(c, "WATCH", "new");
    EXPECT_INT(them, 1, "INCR", "new");
    EXPECT_EXEC(c, EXEC_ABORTED);

    /* Multi-key writes: MSET, and each name of RENAME. */
    EXPECT_OK(c, "WATCH", "m2");
    EXPECT_OK(them, "MSET", "m1", "a", "m2", "b");
    EXPECT_EXEC(c, EXEC_ABORTED);
    EXPECT_OK(c, "WATCH", "m1");
    EXPECT_OK(them, "RENAME", "m1", "r1");
    EXPECT_EXEC(c, EXEC_ABORTED);
    EXPECT_OK(c, "WATCH", "r2");
    EXPECT_OK(them, "RENAME", "r1", "r2");
    EXPECT_EXEC(c, EXEC_ABORTED);

    /* Sorted sets, and an expiry change. */
    EXPECT_OK(c, "WATCH", "z");
    EXPECT_INT(them, 1, "ZADD", "z", "1", "a");
    EXPECT_EXEC(c, EXEC_ABORTED);
    EXPECT_OK(c, "WATCH", "z");
    EXPECT_INT(them, 1, "EXPIRE", "z", "100");
    EXPECT_EXEC(c, EXEC_ABORTED);

    /* A key is per database. */
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_OK(them, "SELECT", "1");
    EXPECT_OK(them, "SET", "k", "db1");
    EXPECT_EXEC(c, EXEC_RAN);
    /* MOVE changes the key in both databases. */
    EXPECT_OK(c, "SELECT", "1");
    EXPECT_OK(c, "WATCH", "mv");
    EXPECT_OK(them, "SELECT", "0");
    EXPECT_OK(them, "SET", "mv", "x");
    EXPECT_INT(them, 1, "MOVE", "mv", "1");
    EXPECT_EXEC(c, EXEC_ABORTED);
    /* COPY ... DB n writes in n. */
    EXPECT_OK(c, "WATCH", "cp");
    EXPECT_INT(them, 1, "COPY", "k", "cp", "DB", "1");
    EXPECT_EXEC(c, EXEC_ABORTED);
    EXPECT_OK(c, "SELECT", "0");

    /* Many keys at once (the table grows past its first size), and many
     * watchers of one key. */
    enum { MANY = 100 };
    char names[MANY][8];
    const char *argv[MANY + 1] = {"WATCH"};
    for (int i = 0; i < MANY; i++) {
        snprintf(names[i], sizeof(names[i]), "w%d", i);
        argv[i + 1] = names[i];
    }
    for (int round = 0; round < 2; round++) {
        redisReply *r = h_command(c, MANY + 1, argv, NULL);
        CHECK(r && r->type == REDIS_REPLY_STATUS, "WATCH of %d keys", MANY);
        if (r)
            freeReplyObject(r);
        r = h_command(them, MANY + 1, argv, NULL);
        CHECK(r && r->type == REDIS_REPLY_STATUS, "their WATCH of %d keys", MANY);
        if (r)
            freeReplyObject(r);
        if (round == 0) {
            EXPECT_OK(c, "SET", "w99x", "1");
            EXPECT_EXEC(c, EXEC_RAN);
            EXPECT_EXEC(them, EXEC_RAN);
        } else {
            EXPECT_OK(c, "SET", "w73", "1");
            EXPECT_EXEC(them, EXEC_ABORTED);
            EXPECT_EXEC(c, EXEC_ABORTED);
        }
    }

    /* Writes inside our own EXEC do not dirty the next transaction. */
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_TRANSACTION(c, "[+OK]", "SET k 9");
    EXPECT_EXEC(c, EXEC_RAN);
out:
    if (c)
        redisFree(c);
    if (them)
        redisFree(them);
}

/* A write that reads some keys and changes others invalidates WATCH only on
 * what it changed, as Redis signals them: the STORE commands' and BITOP's
 * destination, COPY's copy, the keys DEL found. */
static void test_watch_written_keys(void)
{
    redisContext *c = h_connect_flushed(&srv), *them = h_connect(&srv);
    if (!c || !them)
        goto out;
    EXPECT_INT(c, 1, "SADD", "s1", "a");
    EXPECT_INT(c, 1, "SADD", "s2", "a");
    EXPECT_INT(c, 1, "ZADD", "z1", "1", "a");
    EXPECT_OK(c, "MSET", "b1", "x", "b2", "y");
    static const char *const runs[][8] = {
        {"SINTERSTORE", "d", "s1", "s2"}, {"SUNIONSTORE", "d", "s1", "s2"},
        {"SDIFFSTORE", "d", "s1", "nosuch"},  {"ZUNIONSTORE", "d", "2", "z1", "z1"},
        {"ZRANGESTORE", "d", "z1", "0", "-1"}, {"BITOP", "AND", "d", "b1", "b2"},
        {"COPY", "b1", "d", "REPLACE"},
    };
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        int argc = 0;
        while (argc < 8 && runs[i][argc])
            argc++;
        /* A source watched: untouched. */
        const char *src = runs[i][0][0] == 'B' ? runs[i][3] : runs[i][0][0] == 'C' ? runs[i][1]
                                                                                   : runs[i][2];
        if (strcmp(runs[i][0], "ZUNIONSTORE") == 0)
            src = "z1";
        EXPECT_OK(c, "WATCH", src);
        freeReplyObject(h_command(them, argc, runs[i], NULL));
        EXPECT_EXEC(c, EXEC_RAN);
        /* The destination watched: changed. */
        EXPECT_OK(c, "WATCH", "d");
        freeReplyObject(h_command(them, argc, runs[i], NULL));
        EXPECT_EXEC(c, EXEC_ABORTED);
    }
    /* An empty result deletes the destination: a change; none there: none. */
    EXPECT_OK(c, "WATCH", "d");
    EXPECT_INT(them, 0, "SINTERSTORE", "d", "s1", "nosuch");
    EXPECT_EXEC(c, EXEC_ABORTED);
    EXPECT_OK(c, "WATCH", "d");
    EXPECT_INT(them, 0, "SINTERSTORE", "d", "s1", "nosuch");
    EXPECT_EXEC(c, EXEC_RAN);
    /* DEL: only the keys it found. */
    EXPECT_OK(c, "WATCH", "gone");
    EXPECT_INT(them, 1, "DEL", "b2", "gone");
    EXPECT_EXEC(c, EXEC_RAN);
    EXPECT_OK(c, "WATCH", "b1");
    EXPECT_INT(them, 1, "UNLINK", "b1", "gone");
    EXPECT_EXEC(c, EXEC_ABORTED);
out:
    if (them)
        redisFree(them);
    if (c)
        redisFree(c);
}

static void test_watch_expiry(void)
{
    redisContext *c = h_connect_flushed(&srv), *them = h_connect(&srv);
    if (!c || !them)
        goto out;
    /* A watched key expiring is a change, whether or not anything deleted
     * it yet. */
    EXPECT_OK(c, "SET", "k", "v", "PX", "50");
    EXPECT_OK(c, "WATCH", "k");
    h_sleep_ms(150); /* the test, here and below: the deadlines pass */
    EXPECT_EXEC(c, EXEC_ABORTED);
    EXPECT_OK(c, "SET", "k", "v", "PX", "50");
    EXPECT_OK(c, "WATCH", "k");
    h_sleep_ms(150);
    EXPECT_NIL(them, "GET", "k"); /* deleted now */
    EXPECT_EXEC(c, EXEC_ABORTED);
    /* Watched after it expired: it was already gone, nothing changes. */
    EXPECT_OK(c, "SET", "k", "v", "PX", "20");
    h_sleep_ms(100);
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_EXEC(c, EXEC_RAN);
    /* A deadline far away changes nothing by itself. */
    EXPECT_OK(c, "SET", "k", "v", "EX", "100");
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_EXEC(c, EXEC_RAN);
out:
    if (c)
        redisFree(c);
    if (them)
        redisFree(them);
}

static void test_watch_flush(void)
{
    redisContext *c = h_connect_flushed(&srv), *them = h_connect(&srv);
    if (!c || !them)
        goto out;
    EXPECT_OK(c, "SET", "k", "1");
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_OK(them, "FLUSHDB");
    EXPECT_EXEC(c, EXEC_ABORTED);
    EXPECT_OK(c, "SET", "k", "1");
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_OK(them, "FLUSHALL");
    EXPECT_EXEC(c, EXEC_ABORTED);
    /* Redis 7: flushing a database where the watched key does not exist
     * changes nothing; flushing another database neither. */
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_OK(them, "FLUSHDB");
    EXPECT_EXEC(c, EXEC_RAN);
    EXPECT_OK(c, "SET", "k", "1");
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_OK(them, "SELECT", "1");
    EXPECT_OK(them, "FLUSHDB");
    EXPECT_EXEC(c, EXEC_RAN);
out:
    if (c)
        redisFree(c);
    if (them)
        redisFree(them);
}

/* Pipelined: the whole transaction in one write, replies in order. */
static void test_pipelined(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    redisFree(c);
    struct h_raw r;
    if (h_raw_open(&r, &srv) < 0)
        return;
    RAW_SEND(&r, "MULTI\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$2\r\nv1\r\nINCR n\r\nGET a\r\nEXEC\r\n"
                 "GET n\r\n");
    RAW_EXPECT(&r, "+OK\r\n");
    RAW_EXPECT(&r, "+QUEUED\r\n");
    RAW_EXPECT(&r, "+QUEUED\r\n");
    RAW_EXPECT(&r, "+QUEUED\r\n");
    RAW_EXPECT(&r, "*3\r\n+OK\r\n:1\r\n$2\r\nv1\r\n");
    RAW_EXPECT(&r, "$1\r\n1\r\n");
    /* RESP3: an aborted EXEC is a null. */
    RAW_SEND(&r, "HELLO 3\r\n");
    RAW_EXPECT_MATCH(&r, "%*");
    RAW_SEND(&r, "WATCH a\r\nSET a x\r\nMULTI\r\nEXEC\r\n");
    RAW_EXPECT(&r, "+OK\r\n");
    RAW_EXPECT(&r, "+OK\r\n");
    RAW_EXPECT(&r, "+OK\r\n");
    RAW_EXPECT(&r, "_\r\n");
    h_raw_close(&r);
}

/* CLIENT LIST shows a transaction as flags=x and its queue as multi=N, also
 * while EXEC runs it. */
static void test_client_list(void)
{
    redisContext *c = h_connect_flushed(&srv), *them = h_connect(&srv);
    if (!c || !them)
        goto out;
    EXPECT_OK(c, "CLIENT", "SETNAME", "tx");
    EXPECT_MATCH(them, "'*name=tx * flags=N *multi=-1 *", "CLIENT", "LIST");
    EXPECT_OK(c, "MULTI");
    EXPECT_STATUS(c, "QUEUED", "PING");
    EXPECT_STATUS(c, "QUEUED", "PING");
    EXPECT_MATCH(them, "'*name=tx * flags=x *multi=2 *", "CLIENT", "LIST");
    EXPECT_STATUS(c, "QUEUED", "CLIENT", "INFO");
    EXPECT_MATCH(c, "[+PONG, +PONG, '*flags=x *multi=3 *']", "EXEC");
    EXPECT_MATCH(c, "'*flags=N *multi=-1 *", "CLIENT", "INFO");
out:
    if (c)
        redisFree(c);
    if (them)
        redisFree(them);
}

/* A client that leaves in the middle of a transaction, watching keys: its
 * state is freed (the ASan build checks at exit), other watchers unharmed. */
static void test_disconnect(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    for (int i = 0; i < 10; i++) {
        struct h_raw r;
        if (h_raw_open(&r, &srv) < 0)
            break;
        RAW_SEND(&r, "WATCH k other\r\nMULTI\r\nSET k 1\r\nSET other 2\r\n");
        RAW_EXPECT(&r, "+OK\r\n");
        RAW_EXPECT(&r, "+OK\r\n");
        RAW_EXPECT(&r, "+QUEUED\r\n");
        RAW_EXPECT(&r, "+QUEUED\r\n");
        h_raw_close(&r);
    }
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_NIL(c, "GET", "k");
    EXPECT_EXEC(c, EXEC_RAN);
    EXPECT_OK(c, "WATCH", "k");
    EXPECT_OK(c, "SET", "k", "1");
    EXPECT_EXEC(c, EXEC_ABORTED);
    /* A client closed inside MULTI: QUIT runs at once. */
    EXPECT_OK(c, "MULTI");
    EXPECT_STATUS(c, "QUEUED", "SET", "q", "1");
    EXPECT_OK(c, "QUIT");
    redisFree(c);
    c = h_connect(&srv);
    if (c) {
        EXPECT_NIL(c, "GET", "q");
        redisFree(c);
    }
}

/* rbkv's ordered commands inside a transaction, and KDELRANGE as a change
 * of every key it deletes. */
static void test_ordered_in_multi(void)
{
    redisContext *c = h_connect_flushed(&srv), *them = h_connect(&srv);
    if (!c || !them)
        goto out;
    EXPECT_OK(c, "MSET", "a", "1", "b", "2", "c", "3", "d", "4");
    EXPECT_TRANSACTION(c, "[['a', 'b', 'c', 'd'], :3, :2, ['a', 'b']]", "KRANGE 0 -1",
                          "KCOUNT [b +", "KDELRANGE [c +", "KRANGE 0 -1");
    EXPECT_OK(c, "MSET", "c", "3", "d", "4");
    EXPECT_OK(c, "WATCH", "a", "c");
    EXPECT_INT(them, 0, "KDELRANGE", "[x", "+");
    EXPECT_EXEC(c, EXEC_RAN);
    EXPECT_OK(c, "WATCH", "a", "c");
    EXPECT_INT(them, 2, "KDELRANGE", "[c", "+");
    EXPECT_EXEC(c, EXEC_ABORTED);
    EXPECT_OK(c, "WATCH", "b");
    EXPECT_INT(them, 1, "KDELRANGE", "PREFIX", "b");
    EXPECT_EXEC(c, EXEC_ABORTED);
out:
    if (c)
        redisFree(c);
    if (them)
        redisFree(them);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_errors);
    H_RUN(test_exec_oom);
    H_RUN(test_watch);
    H_RUN(test_watch_written_keys);
    H_RUN(test_watch_expiry);
    H_RUN(test_watch_flush);
    H_RUN(test_pipelined);
    H_RUN(test_client_list);
    H_RUN(test_disconnect);
    H_RUN(test_ordered_in_multi);
    h_stop(&srv);
    return h_finish();
}
