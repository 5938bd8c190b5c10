/*
 * test_repl_chain.c - chained replicas across topology changes, and partial
 * resynchronization after a restart, each run on the server under test and,
 * as integration_repl_chain_on_redis, on redis-server with the same steps
 * and expectations (Redis 7.0.15's outcomes):
 *  - A <- B <- C, B's link to A cut and made again: C keeps getting A's
 *    writes (B continues partially; C is not touched);
 *  - A <- B <- C, B promoted and made A's replica again: C is dropped at
 *    each change, continues partially from B each time, and gets the next
 *    writes; B's own writes as primary reach C in the right database;
 *  - a replica restarted from its snapshot continues with PSYNC (the saved
 *    replication ID and offset): +CONTINUE, no full sync;
 *  - a primary restarted from its snapshot: its replicas continue
 *    partially with it;
 *  - a replica restarted from its append-only log: rbkv continues
 *    partially, Redis 7.0.15 syncs in full (it keeps no position there);
 *    both in database 5 with the primary's data.
 *
 * Owns: its servers (each test stops them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define SYNC_MS (60000 * H_SLOW)
#define FAST "--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes"

struct trio {
    struct h_server s[3];
    redisContext *c[3];
    char port[3][16];
};

static int start(struct trio *t, int i, const char *const *flags)
{
    t->c[i] = h_open(&t->s[i], flags);
    snprintf(t->port[i], sizeof(t->port[i]), "%d", t->s[i].port);
    return t->c[i] ? 0 : -1;
}

static void stop_all(struct trio *t)
{
    for (int i = 2; i >= 0; i--) {
        if (t->c[i])
            h_close(&t->s[i], t->c[i]);
        t->c[i] = NULL;
    }
}

/* REPLICAOF and the link up. */
static int follow(struct trio *t, int replica, int primary)
{
    EXPECT_OK(t->c[replica], "REPLICAOF", "127.0.0.1", t->port[primary]);
    int up = h_wait_info(t->c[replica], "replication", "master_link_status", "up", SYNC_MS);
    CHECK(up, "server %d's link to server %d did not come up", replica, primary);
    return up ? 0 : -1;
}

/* Waits until server r's offset is server p's; returns 1 when it got there. */
static int caught_up(struct trio *t, int p, int r)
{
    int64_t deadline = h_now_ms() + SYNC_MS;
    long long want = -1, got = -2;
    while (h_now_ms() < deadline) {
        want = h_info_ll(t->c[p], "replication", "master_repl_offset");
        got = h_info_ll(t->c[r], "replication", "master_repl_offset");
        if (want == got && want > 0)
            return 1;
        h_sleep_ms(20);
    }
    CHECK(0, "server %d at offset %lld, server %d at %lld", r, got, p, want);
    return 0;
}

/* Every server's digest is server 0's... n's. */
static void same_digests(struct trio *t, int n)
{
    char a[H_DIGEST_CHARS + 1], b[H_DIGEST_CHARS + 1];
    h_digest(t->c[0], a);
    for (int i = 1; i < n; i++) {
        h_digest(t->c[i], b);
        CHECK(a[0] && !strcmp(a, b), "server %d's digest %s, server 0's %s", i, b, a);
    }
}

static long long stat_of(struct trio *t, int i, const char *field)
{
    return h_info_ll(t->c[i], "stats", field);
}

/* Waits for the rewrite of server i's log that a full sync starts to end:
 * Redis refuses to shut down meanwhile ("Writing initial AOF, can't
 * exit"). */
static void log_rewritten(struct trio *t, int i)
{
    CHECK(h_wait_info(t->c[i], "persistence", "aof_rewrite_scheduled", "0", SYNC_MS) &&
              h_wait_info(t->c[i], "persistence", "aof_rewrite_in_progress", "0", SYNC_MS) &&
              h_wait_info(t->c[i], "persistence", "aof_rewrite_scheduled", "0", SYNC_MS),
          "server %d's log rewrite after its full sync ended", i);
}

static int start_chain(struct trio *t)
{
    for (int i = 0; i < 3; i++)
        if (start(t, i, H_FLAGS(FAST)) < 0)
            return -1;
    if (follow(t, 1, 0) < 0 || follow(t, 2, 1) < 0)
        return -1;
    EXPECT_OK(t->c[0], "SET", "before", "1");
    return caught_up(t, 0, 2) ? 0 : -1;
}

/* B's link to A is cut (A drops its replica): B continues partially, C
 * stays attached to B and gets the writes A makes after. */
static void test_chain_link_cut(void)
{
    struct trio t = {0};
    if (start_chain(&t) < 0)
        goto out;
    EXPECT_INT(t.c[0], 1, "CLIENT", "KILL", "TYPE", "replica");
    EXPECT_OK(t.c[0], "SET", "after", "cut");
    CHECK(h_wait_info(t.c[1], "replication", "master_link_status", "up", SYNC_MS), "B's link up");
    EXPECT_INT(t.c[0], 1, "INCR", "n");
    if (!caught_up(&t, 0, 2))
        goto out;
    EXPECT_BULK(t.c[2], "cut", "GET", "after");
    EXPECT_BULK(t.c[2], "1", "GET", "n");
    same_digests(&t, 3);
    CHECK(stat_of(&t, 0, "sync_full") == 1 && stat_of(&t, 0, "sync_partial_ok") == 1,
          "A: %lld full syncs, %lld partial (expected 1 and 1)", stat_of(&t, 0, "sync_full"),
          stat_of(&t, 0, "sync_partial_ok"));
    CHECK(stat_of(&t, 1, "sync_full") == 1 && stat_of(&t, 1, "sync_partial_ok") == 0,
          "B: %lld full syncs, %lld partial (expected 1 and 0: C was not touched)",
          stat_of(&t, 1, "sync_full"), stat_of(&t, 1, "sync_partial_ok"));
out:
    stop_all(&t);
}

/* B promoted, then a replica of A again. Each change drops C, which
 * continues from B partially and gets the next writes; what B wrote as a
 * primary, in another database than A's last write, reaches C there. */
static void test_chain_middle_switches(void)
{
    struct trio t = {0};
    if (start_chain(&t) < 0)
        goto out;
    /* A's last write is in database 5: B must not pass its own next write
     * on to C without a SELECT of its own. */
    EXPECT_OK(t.c[0], "SELECT", "5");
    EXPECT_OK(t.c[0], "SET", "in5", "a");
    EXPECT_OK(t.c[0], "SELECT", "0");
    if (!caught_up(&t, 0, 2))
        goto out;
    EXPECT_OK(t.c[1], "REPLICAOF", "NO", "ONE");
    CHECK(h_wait_info(t.c[2], "replication", "master_link_status", "up", SYNC_MS), "C's link up");
    EXPECT_OK(t.c[1], "SET", "b", "primary");
    if (!caught_up(&t, 1, 2))
        goto out;
    EXPECT_BULK(t.c[2], "primary", "GET", "b");
    char id[64] = "", idc[64] = "";
    h_info_str(t.c[1], "replication", "master_replid", id, sizeof(id));
    h_info_str(t.c[2], "replication", "master_replid", idc, sizeof(idc));
    CHECK(id[0] && !strcmp(id, idc), "C's replid %s is its promoted primary's %s", idc, id);
    CHECK(stat_of(&t, 1, "sync_partial_ok") == 1, "C continued from B after the promotion");
    /* B's write is gone from A's history: B syncs in full from A, and C
     * follows it. */
    EXPECT_OK(t.c[1], "REPLICAOF", "127.0.0.1", t.port[0]);
    CHECK(h_wait_info(t.c[1], "replication", "master_link_status", "up", SYNC_MS), "B's link up");
    EXPECT_OK(t.c[0], "SET", "after", "rejoin");
    if (!caught_up(&t, 0, 2))
        goto out;
    EXPECT_BULK(t.c[2], "rejoin", "GET", "after");
    EXPECT_NIL(t.c[2], "GET", "b");
    same_digests(&t, 3);
    CHECK(stat_of(&t, 0, "sync_full") == 2, "A: %lld full syncs (expected 2)",
          stat_of(&t, 0, "sync_full"));
    CHECK(stat_of(&t, 1, "sync_full") == 2, "B: %lld full syncs (expected 2)",
          stat_of(&t, 1, "sync_full"));
    /* B promoted and back with nothing written meanwhile: B's promotion
     * named a new history, which A does not know: a full sync again. */
    EXPECT_OK(t.c[1], "REPLICAOF", "NO", "ONE");
    /* C continued from B under its new name before B moves. */
    h_info_str(t.c[1], "replication", "master_replid", id, sizeof(id));
    CHECK(h_wait_info(t.c[2], "replication", "master_replid", id, SYNC_MS) &&
              h_wait_info(t.c[2], "replication", "master_link_status", "up", SYNC_MS),
          "C continued from B after its second promotion");
    EXPECT_OK(t.c[1], "REPLICAOF", "127.0.0.1", t.port[0]);
    CHECK(h_wait_info(t.c[1], "replication", "master_link_status", "up", SYNC_MS), "B's link up");
    EXPECT_INT(t.c[0], 1, "INCR", "n");
    if (!caught_up(&t, 0, 2))
        goto out;
    EXPECT_BULK(t.c[2], "1", "GET", "n");
    same_digests(&t, 3);
    CHECK(stat_of(&t, 0, "sync_full") == 3 && stat_of(&t, 0, "sync_partial_ok") == 0,
          "A: %lld full, %lld partial (expected 3 and 0)", stat_of(&t, 0, "sync_full"),
          stat_of(&t, 0, "sync_partial_ok"));
    CHECK(stat_of(&t, 1, "sync_full") == 3, "B: %lld full syncs (expected 3)",
          stat_of(&t, 1, "sync_full"));
out:
    stop_all(&t);
}

/* A primary and its replica, the primary's client in database 5 and its
 * stream's last SELECT there: a restart that resumes the stream must
 * resume it in that database (Redis saves it as repl-stream-db). */
static int start_pair_in_db5(struct trio *t)
{
    if (start(t, 0, H_FLAGS(FAST)) < 0 || start(t, 1, H_FLAGS(FAST)) < 0 || follow(t, 1, 0) < 0)
        return -1;
    EXPECT_OK(t->c[0], "SELECT", "5");
    EXPECT_OK(t->c[0], "SET", "k", "1");
    return caught_up(t, 0, 1) ? 0 : -1;
}

/* A replica saved, stopped and started again from its snapshot offers the
 * position the snapshot holds: +CONTINUE. */
static void test_replica_restart_partial(void)
{
    struct trio t = {0};
    if (start_pair_in_db5(&t) < 0)
        goto out;
    long long offset = h_info_ll(t.c[1], "replication", "master_repl_offset");
    EXPECT_OK(t.c[1], "SAVE");
    redisFree(t.c[1]);
    t.c[1] = NULL;
    h_stop(&t.s[1]);
    EXPECT_OK(t.c[0], "SET", "while", "away");
    t.c[1] = h_reopen(&t.s[1], H_FLAGS(FAST, "--replicaof", "127.0.0.1", t.port[0]));
    if (!t.c[1])
        goto out;
    CHECK(h_info_ll(t.c[1], "replication", "master_repl_offset") >= offset,
          "the restarted replica's offset is its snapshot's (%lld)", offset);
    CHECK(h_wait_info(t.c[1], "replication", "master_link_status", "up", SYNC_MS), "link up");
    CHECK(stat_of(&t, 0, "sync_full") == 1 && stat_of(&t, 0, "sync_partial_ok") == 1,
          "primary: %lld full, %lld partial (expected 1 and 1)", stat_of(&t, 0, "sync_full"),
          stat_of(&t, 0, "sync_partial_ok"));
    EXPECT_OK(t.c[1], "SELECT", "5");
    if (caught_up(&t, 0, 1))
        EXPECT_BULK(t.c[1], "away", "GET", "while");
    same_digests(&t, 2);
out:
    stop_all(&t);
}

/* A primary saved, stopped and started again from its snapshot (on a new
 * port): its replicas, told to follow it there, continue partially. */
static void test_primary_restart_partial(void)
{
    struct trio t = {0};
    if (start_pair_in_db5(&t) < 0)
        goto out;
    /* Saved at its shutdown: a SAVE before it would leave out what the
     * shutdown sends its replicas (Redis's REPLCONF GETACK). */
    freeReplyObject(H_CALL(t.c[0], "SHUTDOWN", "SAVE"));
    redisFree(t.c[0]);
    t.c[0] = NULL;
    CHECK(h_wait_exit(&t.s[0], SYNC_MS) == 0, "the primary exited after SHUTDOWN SAVE");
    t.c[0] = h_reopen(&t.s[0], H_FLAGS(FAST));
    if (!t.c[0])
        goto out;
    snprintf(t.port[0], sizeof(t.port[0]), "%d", t.s[0].port);
    if (follow(&t, 1, 0) < 0)
        goto out;
    CHECK(stat_of(&t, 0, "sync_full") == 0 && stat_of(&t, 0, "sync_partial_ok") == 1,
          "restarted primary: %lld full, %lld partial (expected 0 and 1)",
          stat_of(&t, 0, "sync_full"), stat_of(&t, 0, "sync_partial_ok"));
    EXPECT_OK(t.c[0], "SET", "after", "restart");
    if (caught_up(&t, 0, 1))
        EXPECT_BULK(t.c[1], "restart", "GET", "after");
    same_digests(&t, 2);
out:
    stop_all(&t);
}

/* A replica with the append-only log, stopped cleanly and started again on
 * its log. rbkv's log ends with the position (REPLCONF POSITION, with the
 * stream's database): it continues partially, in database 5. Redis 7.0.15
 * restores no position from its append-only files: a full sync. Both end
 * with the primary's data. */
static void test_replica_restart_from_log(void)
{
    struct trio t = {0};
    if (start(&t, 0, H_FLAGS(FAST)) < 0 ||
        start(&t, 1, H_FLAGS(FAST, "--appendonly", "yes")) < 0 || follow(&t, 1, 0) < 0)
        goto out;
    EXPECT_OK(t.c[0], "SELECT", "5");
    EXPECT_OK(t.c[0], "SET", "k", "1");
    if (!caught_up(&t, 0, 1))
        goto out;
    log_rewritten(&t, 1);
    freeReplyObject(H_CALL(t.c[1], "SHUTDOWN"));
    redisFree(t.c[1]);
    t.c[1] = NULL;
    CHECK(h_wait_exit(&t.s[1], SYNC_MS) == 0, "the replica exited after SHUTDOWN");
    EXPECT_OK(t.c[0], "SET", "while", "away");
    t.c[1] = h_reopen(&t.s[1], H_FLAGS(FAST, "--appendonly", "yes", "--replicaof", "127.0.0.1",
                                      t.port[0]));
    if (!t.c[1])
        goto out;
    CHECK(h_wait_info(t.c[1], "replication", "master_link_status", "up", SYNC_MS), "link up");
    int partial = !h_is_reference();
    CHECK(stat_of(&t, 0, "sync_full") == 2 - partial && stat_of(&t, 0, "sync_partial_ok") == partial,
          "primary: %lld full, %lld partial (expected %d and %d)", stat_of(&t, 0, "sync_full"),
          stat_of(&t, 0, "sync_partial_ok"), 2 - partial, partial);
    EXPECT_OK(t.c[1], "SELECT", "5");
    if (caught_up(&t, 0, 1))
        EXPECT_BULK(t.c[1], "away", "GET", "while");
    same_digests(&t, 2);
    log_rewritten(&t, 1);
out:
    stop_all(&t);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_chain_link_cut);
    H_RUN(test_chain_middle_switches);
    H_RUN(test_replica_restart_partial);
    H_RUN(test_primary_restart_partial);
    H_RUN(test_replica_restart_from_log);
    return h_finish();
}
