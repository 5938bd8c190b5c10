/*
 * test_role_change.c - what a client holds across a role change (REPLICAOF
 * host port on a primary or on a replica, REPLICAOF NO ONE on a replica),
 * end to end with real processes: the expectations are Redis 7.0.15's, and
 * the program runs unchanged against redis-server (integration_role_change
 * _on_redis), which proves them.
 *
 * - Clients blocked on keys or in WAIT on a server turned replica get
 *   -UNBLOCKED and are closed, their pipelined requests unread; none pops
 *   from the new primary's stream, so both servers' DEBUG DIGESTs agree after
 *   the writes that would have served them (issue 34). A replica switched to
 *   another primary does the same to its XREAD BLOCK clients; the same
 *   primary again, or a promotion, leaves them waiting.
 * - A transaction with writes queued on a primary is refused at EXEC once it
 *   is a replica (EXECABORT ... READONLY); one whose write was refused on a
 *   replica still fails at EXEC after a promotion.
 * - A busy script refuses REPLICAOF (-BUSY).
 * - Subscribers and MONITOR stay, and see the new primary's PUBLISH.
 * - Clients held by CLIENT PAUSE WRITE stay held, and run from scratch at
 *   the pause's end: a replica's READONLY, not -UNBLOCKED.
 * - A promoted replica drops its own replicas, which come back and continue
 *   partially under its new ID; a demoted primary's replicas end on the new
 *   primary's history too.
 *
 * Owns: its servers, each started and stopped by one test.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "harness_blocking.h"

#define SYNC_MS (30000 * H_SLOW)
/* Flags every server here gets: a full sync starts at once; DEBUG DIGEST. */
#define FAST "--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes"

#define UNBLOCKED                                                                                 \
    "-UNBLOCKED force unblock from blocking operation, instance state changed (master -> "      \
    "replica?)\r\n"
#define READONLY "READONLY You can't write against a read only replica."
#define BUSY "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."

static const char *port_text(const struct h_server *s, char *buf, size_t cap)
{
    snprintf(buf, cap, "%d", s->port);
    return buf;
}

/* REPLICAOF host primary's port on replica, expecting +OK. */
static void replicaof(redisContext *replica, const char *host, const struct h_server *primary)
{
    char port[16];
    EXPECT_OK(replica, "REPLICAOF", host, port_text(primary, port, sizeof(port)));
}

static int link_up(redisContext *replica)
{
    int up = h_wait_info(replica, "replication", "master_link_status", "up", SYNC_MS);
    CHECK(up, "the replica's link did not come up");
    return up;
}

static void expect_same_digest(redisContext *a, redisContext *b)
{
    char da[H_DIGEST_CHARS + 1], db[H_DIGEST_CHARS + 1];
    h_digest(a, da);
    h_digest(b, db);
    CHECK(da[0] && !strcmp(da, db), "digests differ: %s / %s", da, db);
}

/* Polls until field of INFO section reads the same on a and b. */
static int same_info(redisContext *a, redisContext *b, const char *section, const char *field)
{
    char va[128] = "", vb[128] = "?";
    int64_t deadline = h_now_ms() + SYNC_MS;
    while (h_now_ms() < deadline) {
        if (h_info_str(a, section, field, va, sizeof(va)) == 0 &&
            h_info_str(b, section, field, vb, sizeof(vb)) == 0 && !strcmp(va, vb))
            return 1;
        h_sleep_ms(20);
    }
    CHECK(0, "%s: '%s' and '%s'", field, va, vb);
    return 0;
}

/* Expects the error reply Redis gives a client unblocked by a role change,
 * then the connection closed with nothing more (what it pipelined unread). */
static void expect_unblocked_and_closed(struct h_raw *r, const char *what)
{
    if (!RAW_EXPECT(r, UNBLOCKED))
        printf("  (the client of %s)\n", what);
    CHECK(h_raw_wait_closed(r, H_RAW_TIMEOUT_MS) == 1,
          "the client of %s was closed after its error", what);
}

/* The blocking commands, each on a client of its own, each with a PING
 * pipelined behind it. */
static const char *const blocking_lines[] = {
    "BLPOP foo 0",
    "BRPOP foo 0",
    "BLMOVE foo dst LEFT RIGHT 0",
    "BRPOPLPUSH foo dst 0",
    "BLMPOP 0 1 foo LEFT",
    "BZPOPMIN z 0",
    "BZPOPMAX z 0",
    "BZMPOP 0 1 z MIN",
    "XREAD BLOCK 0 STREAMS s $",
    "WAIT 1 0",
};
#define NBLOCKING (sizeof(blocking_lines) / sizeof(blocking_lines[0]))

/* Issue 34: B, a primary with clients blocked, follows A. */
static void test_primary_turned_replica_unblocks(void)
{
    struct h_server sa, sb;
    struct h_raw w[NBLOCKING];
    size_t opened = 0;
    redisContext *a = h_open(&sa, H_FLAGS(FAST));
    redisContext *b = a ? h_open(&sb, H_FLAGS(FAST)) : NULL;
    if (!a || !b)
        goto out;
    for (; opened < NBLOCKING; opened++) {
        char line[128];
        if (h_raw_open(&w[opened], &sb) < 0)
            goto out;
        int n = snprintf(line, sizeof(line), "%s\r\nPING\r\n", blocking_lines[opened]);
        h_raw_send(&w[opened], line, (size_t)n);
        h_await_blocked(b, (long)opened + 1);
    }
    EXPECT_OK(a, "REPLICAOF", "NO", "ONE");
    replicaof(b, "127.0.0.1", &sa);
    for (size_t i = 0; i < NBLOCKING; i++)
        expect_unblocked_and_closed(&w[i], blocking_lines[i]);
    CHECK(h_info_ll(b, "clients", "blocked_clients") == 0, "nobody is blocked on the replica");
    char text[256] = "";
    h_info_str(b, "errorstats", "errorstat_UNBLOCKED", text, sizeof(text));
    CHECK(!strcmp(text, "count=10"), "errorstat_UNBLOCKED:%s", text);
    /* The errors were written while REPLICAOF ran: Redis counts it failed. */
    h_info_str(b, "commandstats", "cmdstat_replicaof", text, sizeof(text));
    CHECK(h_glob("calls=1,*,rejected_calls=0,failed_calls=1", text, strlen(text)),
          "cmdstat_replicaof:%s", text);
    /* ... and none of the unblocked calls. */
    h_info_str(b, "commandstats", "cmdstat_blpop", text, sizeof(text));
    CHECK(h_glob("calls=1,*,rejected_calls=0,failed_calls=0", text, strlen(text)),
          "cmdstat_blpop:%s", text);
    if (!link_up(b))
        goto out;
    /* The writes that would have served them: B takes them as A has them. */
    EXPECT_INT(a, 3, "RPUSH", "foo", "a", "b", "c");
    EXPECT_INT(a, 2, "ZADD", "z", "1", "m", "2", "n");
    EXPECT_MATCH(a, "'*-*'", "XADD", "s", "*", "f", "v");
    h_wait_caught_up(a, b, SYNC_MS);
    EXPECT_REPLY(b, "['a', 'b', 'c']", "LRANGE", "foo", "0", "-1");
    EXPECT_INT(b, 2, "ZCARD", "z");
    EXPECT_INT(b, 1, "XLEN", "s");
    expect_same_digest(a, b);
out:
    for (size_t i = 0; i < opened; i++)
        h_raw_close(&w[i]);
    if (b)
        h_close(&sb, b);
    if (a)
        h_close(&sa, a);
}

/* A replica's XREAD BLOCK clients (a read, allowed there): the same primary
 * again changes nothing; a promotion leaves them waiting, served by the
 * next write; another primary ("localhost" is another name) unblocks them. */
static void test_replica_switched_unblocks(void)
{
    struct h_server sa, sb;
    struct h_raw x = {.fd = -1};
    redisContext *a = h_open(&sa, H_FLAGS(FAST));
    redisContext *b = a ? h_open(&sb, H_FLAGS(FAST)) : NULL;
    if (!a || !b)
        goto out;
    replicaof(b, "127.0.0.1", &sa);
    if (!link_up(b) || h_raw_open(&x, &sb) < 0)
        goto out;
    RAW_SEND(&x, "XREAD BLOCK 0 STREAMS s $\r\n");
    h_await_blocked(b, 1);
    char port[16];
    EXPECT_STATUS(b, "OK Already connected to specified master", "REPLICAOF", "127.0.0.1",
                  port_text(&sa, port, sizeof(port)));
    CHECK(h_info_ll(b, "clients", "blocked_clients") == 1, "the reader still waits");
    /* Promoted: the reader still waits, and its own XADD serves it. */
    EXPECT_OK(b, "REPLICAOF", "NO", "ONE");
    CHECK(h_info_ll(b, "clients", "blocked_clients") == 1, "the reader waits on the primary");
    EXPECT_BULK(b, "1-1", "XADD", "s", "1-1", "f", "v");
    RAW_EXPECT(&x, "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
    /* A replica again, of A (its data replaces B's), then of A by another name. */
    RAW_SEND(&x, "XREAD BLOCK 0 STREAMS s $\r\n");
    h_await_blocked(b, 1);
    replicaof(b, "127.0.0.1", &sa);
    expect_unblocked_and_closed(&x, "XREAD BLOCK on the promoted replica");
    h_raw_close(&x);
    if (!link_up(b) || h_raw_open(&x, &sb) < 0)
        goto out;
    RAW_SEND(&x, "XREAD BLOCK 0 STREAMS s $\r\n");
    h_await_blocked(b, 1);
    replicaof(b, "localhost", &sa);
    expect_unblocked_and_closed(&x, "XREAD BLOCK on the replica");
    /* WAIT is refused on a replica. */
    EXPECT_ERR(b, "ERR WAIT cannot be used with replica instances. Please also note that since "
                  "Redis 4.0 if a replica is configured to be writable (which is not the default) "
                  "writes to replicas are just local and are not propagated.",
               "WAIT", "0", "0");
    if (link_up(b)) {
        EXPECT_MATCH(a, "'*-*'", "XADD", "s", "*", "f", "v");
        h_wait_caught_up(a, b, SYNC_MS);
        expect_same_digest(a, b);
    }
out:
    h_raw_close(&x);
    if (b)
        h_close(&sb, b);
    if (a)
        h_close(&sa, a);
}

/* MULTI on either side of a role change, and the connection stays. */
static void test_transactions(void)
{
    struct h_server sa, sb;
    redisContext *a = h_open(&sa, H_FLAGS(FAST));
    redisContext *b = a ? h_open(&sb, H_FLAGS(FAST)) : NULL;
    redisContext *t = b ? h_connect(&sb) : NULL, *ro = t ? h_connect(&sb) : NULL;
    if (!ro)
        goto out;
    EXPECT_OK(a, "SET", "k", "from-a");
    EXPECT_OK(b, "SET", "k", "from-b");
    EXPECT_OK(t, "MULTI");
    EXPECT_STATUS(t, "QUEUED", "SET", "k", "v");
    EXPECT_STATUS(t, "QUEUED", "GET", "k");
    /* A read-only transaction runs, unless the sync replaced what it watched. */
    EXPECT_OK(ro, "WATCH", "k");
    EXPECT_OK(ro, "MULTI");
    EXPECT_STATUS(ro, "QUEUED", "GET", "k");
    replicaof(b, "127.0.0.1", &sa);
    EXPECT_ERR(t, "EXECABORT Transaction discarded because of: " READONLY, "EXEC");
    EXPECT_STATUS(t, "PONG", "PING");
    if (!link_up(b))
        goto out;
    EXPECT_NIL(ro, "EXEC");
    EXPECT_OK(ro, "MULTI");
    EXPECT_STATUS(ro, "QUEUED", "GET", "k");
    EXPECT_REPLY(ro, "['from-a']", "EXEC");
    /* A write refused on the replica still fails the transaction once it
     * is a primary. */
    EXPECT_OK(t, "MULTI");
    EXPECT_ERR(t, READONLY, "SET", "k", "v");
    EXPECT_OK(b, "REPLICAOF", "NO", "ONE");
    EXPECT_ERR(t, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    EXPECT_BULK(t, "from-a", "GET", "k");
    /* The same rule for a primary short of replicas since MULTI. */
    EXPECT_OK(t, "MULTI");
    EXPECT_STATUS(t, "QUEUED", "SET", "k", "v");
    EXPECT_OK(b, "CONFIG", "SET", "min-replicas-to-write", "1");
    EXPECT_ERR(t, "EXECABORT Transaction discarded because of: NOREPLICAS Not enough good "
                  "replicas to write.", "EXEC");
out:
    if (ro)
        redisFree(ro);
    if (t)
        redisFree(t);
    if (b)
        h_close(&sb, b);
    if (a)
        h_close(&sa, a);
}

/* A script past busy-reply-threshold: REPLICAOF waits its end (-BUSY). */
static void test_busy_script(void)
{
    struct h_server sa, sb;
    redisContext *a = h_open(&sa, H_FLAGS(FAST));
    redisContext *b = a ? h_open(&sb, H_FLAGS(FAST, "--busy-reply-threshold", "100")) : NULL;
    redisContext *e = b ? h_connect(&sb) : NULL;
    if (!e)
        goto out;
    H_SEND(e, "EVAL", "while true do end", "0");
    if (!h_wait_busy(b, 5000 * H_SLOW))
        goto out;
    char port[16];
    EXPECT_ERR(b, BUSY, "REPLICAOF", "127.0.0.1", port_text(&sa, port, sizeof(port)));
    EXPECT_ERR(b, BUSY, "ROLE");
    EXPECT_OK(b, "SCRIPT", "KILL");
    EXPECT_MATCH(e, "-ERR Script killed by user with SCRIPT KILL*", "PING");
    EXPECT_MATCH(b, "['master', :0, []]", "ROLE");
out:
    if (e)
        redisFree(e);
    if (b)
        h_close(&sb, b);
    if (a)
        h_close(&sa, a);
}

/* Reads from c, which is in MONITOR, until a line matching pattern (the
 * INFOs that polled the link come first). */
static int monitor_sees(redisContext *c, const char *pattern)
{
    for (int i = 0; i < 100000; i++) {
        redisReply *r = h_get_reply(c);
        int hit = r && r->type == REDIS_REPLY_STATUS && h_glob(pattern, r->str, r->len);
        int gone = !r;
        freeReplyObject(r);
        if (hit)
            return 1;
        if (gone)
            break;
    }
    return CHECK(0, "MONITOR never showed %s", pattern);
}

/* Subscribers and MONITOR stay across the change, and see what the new
 * primary's stream brings: PUBLISH is replicated. */
static void test_pubsub_and_monitor(void)
{
    struct h_server sa, sb;
    redisContext *a = h_open(&sa, H_FLAGS(FAST));
    redisContext *b = a ? h_open(&sb, H_FLAGS(FAST)) : NULL;
    redisContext *sub = b ? h_connect(&sb) : NULL, *mon = sub ? h_connect(&sb) : NULL;
    if (!mon)
        goto out;
    EXPECT_REPLY(sub, "['subscribe', 'ch', :1]", "SUBSCRIBE", "ch");
    EXPECT_OK(mon, "MONITOR");
    replicaof(b, "127.0.0.1", &sa);
    if (!link_up(b))
        goto out;
    EXPECT_INT(a, 0, "PUBLISH", "ch", "hello");
    EXPECT_NEXT(sub, "['message', 'ch', 'hello']");
    monitor_sees(mon, "* \"PUBLISH\" \"ch\" \"hello\"");
    EXPECT_REPLY(b, "['ch', :1]", "PUBSUB", "NUMSUB", "ch");
out:
    if (mon)
        redisFree(mon);
    if (sub)
        redisFree(sub);
    if (b)
        h_close(&sb, b);
    if (a)
        h_close(&sa, a);
}

/* CLIENT PAUSE WRITE holds a SET and a BLPOP (writes) but not an XREAD
 * BLOCK (a read, which blocks): the role change unblocks the reader only;
 * the held ones run at the pause's end, on a replica now. */
static void test_pause(void)
{
    struct h_server sa, sb;
    struct h_raw set = {.fd = -1}, pop = {.fd = -1}, rd = {.fd = -1};
    redisContext *a = h_open(&sa, H_FLAGS(FAST));
    redisContext *b = a ? h_open(&sb, H_FLAGS(FAST)) : NULL;
    if (!b || h_raw_open(&set, &sb) < 0 || h_raw_open(&pop, &sb) < 0 || h_raw_open(&rd, &sb) < 0)
        goto out;
    EXPECT_OK(b, "CLIENT", "PAUSE", "100000", "WRITE");
    RAW_SEND(&rd, "XREAD BLOCK 0 STREAMS s $\r\n");
    RAW_SEND(&set, "SET p 1\r\n");
    RAW_SEND(&pop, "BLPOP foo 0\r\n");
    h_await_blocked(b, 3); /* Redis counts the held ones as blocked */
    replicaof(b, "127.0.0.1", &sa);
    expect_unblocked_and_closed(&rd, "XREAD BLOCK during CLIENT PAUSE");
    EXPECT_OK(b, "CLIENT", "UNPAUSE");
    RAW_EXPECT(&set, "-" READONLY "\r\n");
    RAW_EXPECT(&pop, "-" READONLY "\r\n");
    RAW_SEND(&set, "PING\r\n");
    RAW_EXPECT(&set, "+PONG\r\n");
    RAW_SEND(&pop, "PING\r\n");
    RAW_EXPECT(&pop, "+PONG\r\n");
out:
    h_raw_close(&rd);
    h_raw_close(&pop);
    h_raw_close(&set);
    if (b)
        h_close(&sb, b);
    if (a)
        h_close(&sa, a);
}

/* A's replica R across A's demotion (A follows B, its promoted replica)
 * and A's promotion again: R ends on each new history, continuing
 * partially every time, and gets the writes. */
static void test_replicas_of_a_changing_server(void)
{
    struct h_server sa, sb, sr;
    redisContext *a = h_open(&sa, H_FLAGS(FAST));
    redisContext *b = a ? h_open(&sb, H_FLAGS(FAST)) : NULL;
    redisContext *r = b ? h_open(&sr, H_FLAGS(FAST)) : NULL;
    if (!r)
        goto out;
    replicaof(b, "127.0.0.1", &sa);
    replicaof(r, "127.0.0.1", &sa);
    if (!link_up(b) || !link_up(r))
        goto out;
    EXPECT_OK(a, "SET", "k", "1");
    h_wait_caught_up(a, b, SYNC_MS);
    h_wait_caught_up(a, r, SYNC_MS);
    CHECK(h_info_ll(a, "stats", "sync_full") == 2, "A served two full syncs");

    /* A demoted: it continues partially from B; R, its replica, follows. */
    EXPECT_OK(b, "REPLICAOF", "NO", "ONE");
    replicaof(a, "127.0.0.1", &sb);
    if (!link_up(a))
        goto out;
    CHECK(h_info_ll(b, "stats", "sync_partial_ok") == 1, "A continued partially from B");
    same_info(b, r, "replication", "master_replid");
    if (!link_up(r))
        goto out;
    EXPECT_OK(b, "SET", "k", "2");
    h_wait_caught_up(b, a, SYNC_MS);
    h_wait_caught_up(b, r, SYNC_MS);
    EXPECT_BULK(r, "2", "GET", "k");
    CHECK(h_info_ll(a, "stats", "sync_partial_ok") == 1, "R continued partially from A");

    /* A promoted: R learns A's new ID by coming back, partially again. */
    EXPECT_OK(a, "REPLICAOF", "NO", "ONE");
    same_info(a, r, "replication", "master_replid");
    if (!link_up(r))
        goto out;
    CHECK(h_info_ll(a, "stats", "sync_partial_ok") == 2, "R continued partially again");
    CHECK(h_info_ll(a, "stats", "sync_full") == 2, "and no full sync since the first");
    EXPECT_OK(a, "SET", "k", "3");
    h_wait_caught_up(a, r, SYNC_MS);
    expect_same_digest(a, r);
out:
    if (r)
        h_close(&sr, r);
    if (b)
        h_close(&sb, b);
    if (a)
        h_close(&sa, a);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_primary_turned_replica_unblocks);
    H_RUN(test_replica_switched_unblocks);
    H_RUN(test_transactions);
    H_RUN(test_busy_script);
    H_RUN(test_pubsub_and_monitor);
    H_RUN(test_pause);
    H_RUN(test_replicas_of_a_changing_server);
    return h_finish();
}
