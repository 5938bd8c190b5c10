/*
 * test_blocking.c - end-to-end tests of the blocking commands of both types
 * that have them (server/core/blocking.c): the sorted-set pops BZPOPMIN,
 * BZPOPMAX, BZMPOP (and ZMPOP) of server/commands/cmd_zset.c, and the list
 * pops and moves BLPOP, BRPOP, BLMPOP, BLMOVE and BRPOPLPUSH of
 * server/commands/cmd_list.c.
 *
 * The scenarios both types share (first come first served, timeouts,
 * several keys, keys made by other writes, MULTI, CLIENT UNBLOCK, a client
 * gone, pipelines, RESP3) are written once and run over the table `kinds`,
 * one row per type: its commands and its replies. What only one type has
 * follows them (ZMPOP and the errors, WATCH; BLMOVE chains, a wrong-typed
 * destination, the log of served list waits).
 *
 * Every test but test_list_logged_as_pops (which reads rbkv's own log file
 * and skips itself there) runs unchanged against Debian's redis-server 7.0,
 * which is how their expectations were checked (ctest's
 * integration_blocking_on_redis):
 *   test_integration_blocking redis-server
 * A blocking command is sent on one connection without reading its reply;
 * another connection waits until INFO shows the client blocked, does the
 * write that should wake it, and then the first reads its reply
 * (harness_blocking.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "harness_blocking.h"

static struct h_server srv;

#define AOF "appendonly.aof"
#define MAX_STEPS 8

/* One wait, served (EXPECT_SERVED's arguments): block on one client, wake
 * with a write on another and its reply, and what the waiter gets. */
struct served {
    const char *block, *wake, *wake_reply, *want;
};

/* A step of a scripted scenario: a served wait when block is set, else line
 * sent on the waiter ('c') or the writer ('w') and its expected reply. */
struct step {
    char who;
    const char *block, *line, *reply, *want;
};

/* A raw RESP3 request and its reply, byte for byte. */
struct raw_step {
    const char *send, *want;
};

/* One type's commands and replies for the shared scenarios. Lines are
 * words separated by spaces (h_split); replies in h_repr's text form. */
struct kind {
    const char *name;
    /* A wait on k for ever, a write of member/element a to k and what the
     * waiter then gets; the same for b; a timed wait on k; k's size. */
    const char *wait_k, *push_a, *served_a, *push_b, *served_b, *wait_k_short, *count_k;
    /* test_fifo: three waiters on q, one write of three, what each gets;
     * then two waiters and two writes, with their replies. */
    const char *fifo_block[3], *fifo_push, *fifo_push_reply, *fifo_want[3];
    const char *fifo_two[2], *fifo_first_push, *fifo_first_want, *fifo_second_push,
        *fifo_second_push_reply, *fifo_second_want;
    /* test_timeout: a 0.1 s wait that times out, more short ones that do
     * (NULL-terminated), the keys they left missing; a wait for ever held
     * 300 ms, and a timed wait served in time. */
    const char *timeout_wait, *timeout_nils[5], *timeout_exists;
    struct served forever, on_time;
    /* test_several_keys and test_wake_by_writes: scripted steps. */
    struct step several[MAX_STEPS], wake[MAX_STEPS];
    /* test_transactions: the blocking commands inside MULTI (NULL-
     * terminated) and EXEC's reply; a transaction that writes and takes
     * back, one that serves the waiter on wait_k, and what stays. */
    const char *tx_nonblocking[4], *tx_nonblocking_reply;
    const char *tx_undo[2], *tx_undo_reply, *tx_serve[2], *tx_serve_reply, *tx_want, *tx_left,
        *tx_left_reply;
    /* test_client_unblock: a wait (its CLIENT LIST cmd=) ended by CLIENT
     * UNBLOCK with its nil, another ended with an error. */
    const char *unblock_first, *unblock_cmd, *unblock_second;
    /* test_resp3: requests answered at once (NULL-terminated), then one
     * that waits and is served by a write on another client. */
    struct raw_step resp3[6];
    const char *resp3_block, *resp3_wake, *resp3_wake_reply, *resp3_want;
};

static const struct kind kinds[] = {
    {
        .name = "sorted sets",
        .wait_k = "BZPOPMIN k 0",
        .push_a = "ZADD k 1 a",
        .served_a = "['k', 'a', '1']",
        .push_b = "ZADD k 1 b",
        .served_b = "['k', 'b', '1']",
        .wait_k_short = "BZPOPMAX k 0.1",
        .count_k = "ZCARD k",
        .fifo_block = {"BZPOPMIN q 0", "BZPOPMIN q 0", "BZPOPMIN q 0"},
        .fifo_push = "ZADD q 1 a 2 b 3 c",
        .fifo_push_reply = ":3",
        .fifo_want = {"['q', 'a', '1']", "['q', 'b', '2']", "['q', 'c', '3']"},
        .fifo_two = {"BZPOPMIN q 0", "BZPOPMIN q 0"},
        .fifo_first_push = "ZADD q 1 x",
        .fifo_first_want = "['q', 'x', '1']",
        .fifo_second_push = "ZADD q 2 y",
        .fifo_second_push_reply = ":1",
        .fifo_second_want = "['q', 'y', '2']",
        .timeout_wait = "BZPOPMIN k 0.1",
        .timeout_nils = {"BZMPOP 0.05 1 k MIN"},
        .timeout_exists = "EXISTS k",
        .forever = {"BZPOPMAX k 0", "ZADD k 7 late", ":1", "['k', 'late', '7']"},
        .on_time = {"BZPOPMIN k 0.2", "ZADD k 1 on-time", ":1", "['k', 'on-time', '1']"},
        .several =
            {
                {'w', NULL, "ZADD k1 1 a", ":1", NULL},
                {'w', NULL, "ZADD k2 2 b", ":1", NULL},
                {'c', NULL, "BZPOPMIN k3 k2 k1 0", "['k2', 'b', '2']", NULL},
                {'c', NULL, "BZPOPMIN k3 k2 k1 0", "['k1', 'a', '1']", NULL},
                {0, "BZPOPMIN k1 k2 0", "ZADD k2 5 z", ":1", "['k2', 'z', '5']"},
                /* BZMPOP with COUNT, woken on its second key. */
                {0, "BZMPOP 0 2 m1 m2 MAX COUNT 2", "ZADD m2 1 x 2 y 3 z", ":3",
                 "['m2', [['z', '3'], ['y', '2']]]"},
                {'w', NULL, "ZRANGE m2 0 -1", "['x']", NULL},
            },
        .wake =
            {
                {0, "BZPOPMIN k 0", "ZADD k 1 a 2 b", ":2", "['k', 'a', '1']"},
                {'w', NULL, "ZRANGE k 0 -1", "['b']", NULL},
                {0, "BZPOPMAX k2 0", "ZINCRBY k2 2.5 m", "'2.5'", "['k2', 'm', '2.5']"},
                /* A key created by a STORE or a RENAME wakes its waiters too. */
                {0, "BZPOPMIN dst 0", "ZUNIONSTORE dst 1 k", ":1", "['dst', 'b', '2']"},
                {0, "BZPOPMIN renamed 0", "RENAME k renamed", "+OK", "['renamed', 'b', '2']"},
            },
        .tx_nonblocking = {"BZPOPMIN empty 0", "BZMPOP 0 1 empty MIN"},
        .tx_nonblocking_reply = "[(nil), (nil)]",
        .tx_undo = {"ZADD k 1 a", "ZPOPMIN k"},
        .tx_undo_reply = "[:1, ['a', '1']]",
        .tx_serve = {"ZADD k 1 a", "ZADD k 2 b"},
        .tx_serve_reply = "[:1, :1]",
        .tx_want = "['k', 'a', '1']",
        .tx_left = "ZRANGE k 0 -1",
        .tx_left_reply = "['b']",
        .unblock_first = "BZPOPMIN k 0",
        .unblock_cmd = "bzpopmin",
        .unblock_second = "BZMPOP 0 1 k MIN",
        /* Scores as doubles, and _ for the nil of a timeout or an empty ZMPOP. */
        .resp3 =
            {
                {"ZADD k 1.5 a 2 b\r\n", ":2\r\n"},
                {"BZPOPMIN k 0\r\n", "*3\r\n$1\r\nk\r\n$1\r\na\r\n,1.5\r\n"},
                {"ZMPOP 1 k MIN COUNT 2\r\n", "*2\r\n$1\r\nk\r\n*1\r\n*2\r\n$1\r\nb\r\n,2\r\n"},
                {"BZPOPMIN k 0.01\r\n", "_\r\n"},
                {"ZMPOP 1 k MIN\r\n", "_\r\n"},
            },
        .resp3_block = "BZPOPMAX k 0\r\n",
        .resp3_wake = "ZADD k 3 c",
        .resp3_wake_reply = ":1",
        .resp3_want = "*3\r\n$1\r\nk\r\n$1\r\nc\r\n,3\r\n",
    },
    {
        .name = "lists",
        .wait_k = "BLPOP k 0",
        .push_a = "RPUSH k a",
        .served_a = "['k', 'a']",
        .push_b = "RPUSH k b",
        .served_b = "['k', 'b']",
        .wait_k_short = "BRPOP k 0.1",
        .count_k = "LLEN k",
        .fifo_block = {"BLPOP q 0", "BRPOP q 0", "BLPOP other q 0"},
        .fifo_push = "RPUSH q a b c",
        .fifo_push_reply = ":3",
        .fifo_want = {"['q', 'a']", "['q', 'c']", "['q', 'b']"},
        .fifo_two = {"BLPOP q 0", "BLMPOP 0 1 q RIGHT COUNT 5"},
        .fifo_first_push = "LPUSH q x",
        .fifo_first_want = "['q', 'x']",
        .fifo_second_push = "RPUSH q y z",
        .fifo_second_push_reply = ":2",
        .fifo_second_want = "['q', ['z', 'y']]",
        .timeout_wait = "BLPOP k 0.1",
        .timeout_nils = {"BRPOP k k2 0.05", "BLMPOP 0.05 1 k LEFT", "BLMOVE k d LEFT LEFT 0.05",
                         "BRPOPLPUSH k d 0.05"},
        .timeout_exists = "EXISTS k d",
        .forever = {"BLPOP k 0", "RPUSH k late", ":1", "['k', 'late']"},
        .on_time = {"BLPOP k 0.2", "RPUSH k on-time", ":1", "['k', 'on-time']"},
        .several =
            {
                {'w', NULL, "RPUSH k1 a", ":1", NULL},
                {'w', NULL, "RPUSH k2 b", ":1", NULL},
                {'c', NULL, "BLPOP k3 k2 k1 0", "['k2', 'b']", NULL},
                {'c', NULL, "BLPOP k3 k2 k1 0", "['k1', 'a']", NULL},
                {0, "BLPOP k1 k2 0", "RPUSH k2 z", ":1", "['k2', 'z']"},
                /* BLMPOP with COUNT, woken on its second key. */
                {0, "BLMPOP 0 2 m1 m2 RIGHT COUNT 2", "RPUSH m2 x y z", ":3",
                 "['m2', ['z', 'y']]"},
                {'w', NULL, "LRANGE m2 0 -1", "['x']", NULL},
            },
        /* The key that gets an element serves a client waiting on several;
         * a key made by another command than a push (RENAME, COPY, LMOVE)
         * serves too. */
        .wake =
            {
                {0, "BRPOP k1 k2 0", "RPUSH k2 a b", ":2", "['k2', 'b']"},
                {0, "BLPOP renamed 0", "RENAME k2 renamed", "+OK", "['renamed', 'a']"},
                {'w', NULL, "RPUSH orig v", ":1", NULL},
                {0, "BLPOP copy 0", "COPY orig copy", ":1", "['copy', 'v']"},
                {0, "BLPOP moved 0", "LMOVE orig moved LEFT LEFT", "'v'", "['moved', 'v']"},
            },
        .tx_nonblocking = {"BLPOP empty 0", "BLMOVE empty d LEFT LEFT 0", "BLMPOP 0 1 empty LEFT"},
        .tx_nonblocking_reply = "[(nil), (nil), (nil)]",
        .tx_undo = {"LPUSH k a", "LPOP k"},
        .tx_undo_reply = "[:1, 'a']",
        .tx_serve = {"LPUSH k a", "LPUSH k b"},
        .tx_serve_reply = "[:1, :2]",
        .tx_want = "['k', 'b']",
        .tx_left = "LRANGE k 0 -1",
        .tx_left_reply = "['a']",
        .unblock_first = "BLMOVE k d LEFT RIGHT 0",
        .unblock_cmd = "blmove",
        .unblock_second = "BLPOP k 0",
        /* A timeout is a null, the served reply an array. */
        .resp3 =
            {
                {"BLPOP k 0.01\r\n", "_\r\n"},
                {"BLMOVE k d LEFT LEFT 0.01\r\n", "_\r\n"},
            },
        .resp3_block = "BLMPOP 0 1 k LEFT COUNT 2\r\n",
        .resp3_wake = "RPUSH k a b c",
        .resp3_wake_reply = ":3",
        .resp3_want = "*2\r\n$1\r\nk\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n",
    },
};
#define KINDS (sizeof(kinds) / sizeof(kinds[0]))

/* The table's lines, sent and expected at the caller's file:line. */
static int expect_line(const char *file, int line, redisContext *c, const char *want,
                       const char *text)
{
    struct h_line l;
    h_split(text, &l);
    return h_expect(file, line, c, want, 0, l.argc, l.argv, NULL);
}
#define EXPECT_LINE(c, want, text) expect_line(__FILE__, __LINE__, (c), (want), (text))

static void block_line(redisContext *c, redisContext *w, long n, const char *text)
{
    struct h_line l;
    h_split(text, &l);
    h_block(c, w, n, l.argc, l.argv);
}

static void send_line(redisContext *c, const char *text)
{
    struct h_line l;
    h_split(text, &l);
    h_send(c, l.argc, l.argv, NULL);
}

static void append_line(redisContext *c, const char *text)
{
    struct h_line l;
    h_split(text, &l);
    h_append(c, l.argc, l.argv, NULL);
}

/* Runs steps on the waiter c and the writer w; after each served wait, w
 * sees nobody blocked. */
static void run_steps(redisContext *c, redisContext *w, const struct step *steps)
{
    for (const struct step *s = steps; s < steps + MAX_STEPS && (s->block || s->line); s++) {
        if (s->block) {
            EXPECT_SERVED(c, w, s->block, 0, s->line, s->reply, s->want);
            h_await_blocked(w, 0);
        } else {
            EXPECT_LINE(s->who == 'c' ? c : w, s->reply, s->line);
        }
    }
}

/* Announces the row a shared scenario runs on. */
static void begin_kind(const struct kind *k)
{
    printf("   %s\n", k->name);
}

/* ---- the scenarios both types share ------------------------------------ */

/* Three clients on one key are served first come, first served, one
 * element each; with more waiters than elements the rest wait on. */
static void fifo_on(const struct kind *k)
{
    redisContext *c[3] = {h_connect_flushed(&srv), h_connect(&srv), h_connect(&srv)};
    redisContext *w = h_connect(&srv);
    if (!c[0] || !c[1] || !c[2] || !w)
        goto out;
    for (int i = 0; i < 3; i++)
        block_line(c[i], w, i + 1, k->fifo_block[i]);
    EXPECT_LINE(w, k->fifo_push_reply, k->fifo_push);
    for (int i = 0; i < 3; i++)
        EXPECT_NEXT(c[i], k->fifo_want[i]);
    EXPECT_INT(w, 0, "EXISTS", "q");

    /* One element for two waiters: the first gets it, the second waits on. */
    block_line(c[0], w, 1, k->fifo_two[0]);
    block_line(c[1], w, 2, k->fifo_two[1]);
    EXPECT_LINE(w, ":1", k->fifo_first_push);
    EXPECT_NEXT(c[0], k->fifo_first_want);
    h_await_blocked(w, 1);
    EXPECT_LINE(w, k->fifo_second_push_reply, k->fifo_second_push);
    EXPECT_NEXT(c[1], k->fifo_second_want);
    EXPECT_INT(w, 0, "EXISTS", "q");
out:
    for (int i = 0; i < 3; i++)
        redisFree(c[i]);
    redisFree(w);
}

static void timeout_on(const struct kind *k)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    struct h_line l;
    h_split(k->timeout_wait, &l);
    h_expect_timeout(__FILE__, __LINE__, c, 90, l.argc, l.argv);
    for (const char *const *nil = k->timeout_nils; *nil; nil++)
        EXPECT_LINE(c, "(nil)", *nil);
    EXPECT_LINE(w, ":0", k->timeout_exists);

    /* 0 is forever: still blocked well after, until woken. */
    EXPECT_SERVED(c, w, k->forever.block, 300, k->forever.wake, k->forever.wake_reply,
                  k->forever.want);

    /* A timed wait that is served does not time out later. */
    EXPECT_SERVED(c, w, k->on_time.block, 0, k->on_time.wake, k->on_time.wake_reply,
                  k->on_time.want);
    h_sleep_ms(300); /* the test: past the served wait's 0.2 s timeout */
    EXPECT_REPLY(c, "+PONG", "PING");
out:
    redisFree(c);
    redisFree(w);
}

static void steps_on(const struct kind *k, int wake)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (c && w)
        run_steps(c, w, wake ? k->wake : k->several);
    redisFree(c);
    redisFree(w);
}

/* Inside MULTI nothing blocks: the nil of a timeout, at once. A waiter is
 * served after EXEC, from what the whole transaction left. */
static void transactions_on(const struct kind *k)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    size_t n = 0;
    while (n < 4 && k->tx_nonblocking[n])
        n++;
    h_expect_transaction(__FILE__, __LINE__, w, k->tx_nonblocking_reply, k->tx_nonblocking, n);

    block_line(c, w, 1, k->wait_k);
    h_expect_transaction(__FILE__, __LINE__, w, k->tx_undo_reply, k->tx_undo, 2);
    h_await_blocked(w, 1);
    h_expect_transaction(__FILE__, __LINE__, w, k->tx_serve_reply, k->tx_serve, 2);
    EXPECT_NEXT(c, k->tx_want);
    EXPECT_LINE(w, k->tx_left_reply, k->tx_left);
out:
    redisFree(c);
    redisFree(w);
}

/* CLIENT UNBLOCK ends a wait with its timeout's nil, or an error; nothing
 * is left waiting after it. */
static void client_unblock_on(const struct kind *k)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    redisReply *r = H_CALL(c, "CLIENT", "ID");
    char id[32] = "0";
    if (CHECK(r && r->type == REDIS_REPLY_INTEGER, "CLIENT ID"))
        snprintf(id, sizeof(id), "%lld", r->integer);
    freeReplyObject(r);

    block_line(c, w, 1, k->unblock_first);
    char pattern[96];
    snprintf(pattern, sizeof(pattern), "*id=%s *flags=b *cmd=%s *", id, k->unblock_cmd);
    EXPECT_MATCH(w, pattern, "CLIENT", "LIST");
    EXPECT_INT(w, 1, "CLIENT", "UNBLOCK", id);
    EXPECT_NEXT(c, "(nil)");
    h_await_blocked(w, 0);
    EXPECT_INT(w, 0, "CLIENT", "UNBLOCK", id);
    EXPECT_MATCH(w, "*flags=N *", "CLIENT", "INFO");

    block_line(c, w, 1, k->unblock_second);
    EXPECT_INT(w, 1, "CLIENT", "UNBLOCK", id, "ERROR");
    EXPECT_NEXT(c, "-UNBLOCKED client unblocked via CLIENT UNBLOCK");
    EXPECT_REPLY(c, "+PONG", "PING");
    /* Nothing is left waiting: a write stays. */
    EXPECT_LINE(w, ":1", k->push_a);
    EXPECT_LINE(w, ":1", k->count_k);
out:
    redisFree(c);
    redisFree(w);
}

static void disconnect_on(const struct kind *k)
{
    redisContext *c = h_connect_flushed(&srv), *d = h_connect(&srv), *w = h_connect(&srv);
    if (!c || !d || !w)
        goto out;
    block_line(d, w, 1, k->wait_k);
    block_line(c, w, 2, k->wait_k);
    redisFree(d);
    d = NULL;
    h_await_blocked(w, 1);
    EXPECT_LINE(w, ":1", k->push_a);
    EXPECT_NEXT(c, k->served_a);
    /* A gone client with a deadline leaves no timer behind. */
    d = h_connect(&srv);
    if (!d)
        goto out;
    block_line(d, w, 1, k->on_time.block);
    redisFree(d);
    d = NULL;
    h_await_blocked(w, 0);
    h_sleep_ms(300); /* the test: past the gone client's 0.2 s deadline */
    EXPECT_LINE(w, ":1", k->push_a);
    EXPECT_LINE(w, ":1", k->count_k);
out:
    redisFree(c);
    redisFree(d);
    redisFree(w);
}

static void pipelined_on(const struct kind *k)
{
    redisContext *c = h_connect_flushed(&srv), *w = h_connect(&srv);
    if (!c || !w)
        goto out;
    /* The requests behind a blocking one wait for it, then run in order. */
    append_line(c, k->wait_k);
    H_APPEND(c, "SET", "after", "1");
    H_APPEND(c, "INCR", "after");
    H_SEND(c, "GET", "after");
    h_await_blocked(w, 1);
    EXPECT_NIL(w, "GET", "after");
    EXPECT_LINE(w, ":1", k->push_a);
    EXPECT_NEXT(c, k->served_a);
    EXPECT_NEXT(c, "+OK");
    EXPECT_NEXT(c, ":2");
    EXPECT_NEXT(c, "'2'");

    /* Two blocking requests in one pipeline: the second blocks in turn. */
    append_line(c, k->wait_k);
    send_line(c, k->wait_k_short);
    h_await_blocked(w, 1);
    EXPECT_LINE(w, ":1", k->push_b);
    EXPECT_NEXT(c, k->served_b);
    EXPECT_NEXT(c, "(nil)");
    EXPECT_REPLY(c, "+PONG", "PING");
out:
    redisFree(c);
    redisFree(w);
}

/* RESP3 (raw: the hiredis here reads RESP2 only). */
static void resp3_on(const struct kind *k)
{
    redisContext *w = h_connect_flushed(&srv);
    struct h_raw r;
    if (!w || h_raw_open_resp3(&r, &srv) < 0) {
        redisFree(w);
        return;
    }
    for (const struct raw_step *s = k->resp3; s->send; s++) {
        h_raw_send(&r, s->send, strlen(s->send));
        h_raw_expect(__FILE__, __LINE__, &r, s->want, strlen(s->want), 0);
    }
    h_raw_send(&r, k->resp3_block, strlen(k->resp3_block));
    h_await_blocked(w, 1);
    EXPECT_LINE(w, k->resp3_wake_reply, k->resp3_wake);
    h_raw_expect(__FILE__, __LINE__, &r, k->resp3_want, strlen(k->resp3_want), 0);
    h_raw_close(&r);
    redisFree(w);
}

/* Each shared scenario over every row of the table. */
#define FOR_EACH_KIND(call)                                                                       \
    for (size_t i_ = 0; i_ < KINDS; i_++) {                                                       \
        begin_kind(&kinds[i_]);                                                                   \
        call;                                                                                     \
    }
static void test_fifo(void) { FOR_EACH_KIND(fifo_on(&kinds[i_])) }
static void test_timeout(void) { FOR_EACH_KIND(timeout_on(&kinds[i_])) }
static void test_several_keys(void) { FOR_EACH_KIND(steps_on(&kinds[i_], 0)) }
static void test_wake_by_writes(void) { FOR_EACH_KIND(steps_on(&kinds[i_], 1)) }
static void test_transactions(void) { FOR_EACH_KIND(transactions_on(&kinds[i_])) }
static void test_client_unblock(void) { FOR_EACH_KIND(client_unblock_on(&kinds[i_])) }
static void test_disconnect(void) { FOR_EACH_KIND(disconnect_on(&kinds[i_])) }
static void test_pipelined(void) { FOR_EACH_KIND(pipelined_on(&kinds[i_])) }
static void test_resp3(void) { FOR_EACH_KIND(resp3_on(&kinds[i_])) }

/* ---- sorted sets only ---------------------------------------------------- */

static void test_zset_immediate(void)
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

static void test_zset_errors(void)
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

/* BZPOPMIN touches WATCH on the key it popped from only, not on every key
 * it names, as Redis signals the modified key only. */
static void test_zset_watch(void)
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

/* ---- lists only ---------------------------------------------------------- */

/* BLMOVE hands an element on: a chain of waiters, each BLMOVE's
 * destination the next one's source, ends at a BLPOP, all from one push. */
static void test_list_blmove_chain(void)
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
static void test_list_blmove_wrong_destination(void)
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

/* The log records a served wait as the non-blocking command it amounted to,
 * so a restart replays it without waiting and ends with the same lists. */
static void test_list_logged_as_pops(void)
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
    /* A served wait's ends in Redis 7.0's words, whatever the client wrote. */
    CHECK(h_file_has(&s, AOF, "$5\r\nLMOVE\r\n$1\r\nb\r\n$2\r\nb2\r\n$5\r\nright\r\n$4\r\nleft"),
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
    H_RUN(test_timeout);
    H_RUN(test_several_keys);
    H_RUN(test_wake_by_writes);
    H_RUN(test_transactions);
    H_RUN(test_client_unblock);
    H_RUN(test_disconnect);
    H_RUN(test_pipelined);
    H_RUN(test_resp3);
    H_RUN(test_zset_immediate);
    H_RUN(test_zset_errors);
    H_RUN(test_zset_watch);
    H_RUN(test_list_blmove_chain);
    H_RUN(test_list_blmove_wrong_destination);
    H_RUN(test_list_logged_as_pops);
    h_stop(&srv);
    return h_finish();
}
