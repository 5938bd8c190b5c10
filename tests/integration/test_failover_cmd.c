/*
 * test_failover_cmd.c - FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms]
 * (server/replication/repl_failover.c), end to end with a primary and a
 * replica as real processes. The expectations are Redis 7.0.15's: the
 * program runs unchanged against redis-server (integration_failover_cmd
 * _on_redis), which proves them, error texts byte for byte.
 *
 * - The errors of every argument and state, in Redis's order.
 * - FAILOVER swaps the roles: every write acknowledged before the pause is
 *   on the new primary, each write the pause held is answered -READONLY
 *   afterwards, and the old primary continues partially (+CONTINUE, no
 *   full sync) under the new primary's history.
 * - While it waits (a replica that cannot catch up: stopped by SIGSTOP):
 *   waiting-for-sync, writes held (CLIENT UNPAUSE does not free them),
 *   reads served, FAILOVER/REPLICAOF/PSYNC refused; ABORT, and TIMEOUT
 *   without FORCE, leave it a primary and run the held writes.
 * - TO with FORCE hands over at the timeout anyway (failover-in-progress
 *   until the target answers), and both end on one dataset.
 * - rbkv and redis-server fail over to each other (rbkv only).
 *
 * Owns: its servers, each started and stopped by one test.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define SYNC_MS (30000 * H_SLOW)
/* A full sync starts at once; DEBUG DIGEST. */
#define FAST "--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes"
#define READONLY "READONLY You can't write against a read only replica."
#define WRITES 2000
#define FORCE_ERR "ERR FAILOVER with force option requires both a timeout and target HOST and IP."

static const char *port_text(const struct h_server *s, char *buf, size_t cap)
{
    snprintf(buf, cap, "%d", s->port);
    return buf;
}

/* b follows a, and a lists b online (FAILOVER TO needs that). */
static int make_replica(redisContext *b, const struct h_server *sa, redisContext *a)
{
    int up = h_replicate(b, sa, SYNC_MS);
    int64_t deadline = h_now_ms() + SYNC_MS;
    char line[256] = "";
    while (h_now_ms() < deadline) {
        if (h_info_str(a, "replication", "slave0", line, sizeof(line)) == 0 &&
            strstr(line, "state=online"))
            return up;
        h_sleep_ms(20);
    }
    CHECK(0, "the primary never listed its replica online: %s", line);
    return 0;
}

static void expect_role(redisContext *c, const char *role, const char *who)
{
    CHECK(h_wait_info(c, "replication", "role", role, SYNC_MS), "%s never became %s", who, role);
}

static void expect_state(redisContext *c, const char *state)
{
    CHECK(h_wait_info(c, "replication", "master_failover_state", state, SYNC_MS),
          "master_failover_state never became %s", state);
}

static void expect_same_digest(redisContext *a, redisContext *b)
{
    char da[H_DIGEST_CHARS + 1] = "", db[H_DIGEST_CHARS + 1] = "";
    int64_t deadline = h_now_ms() + SYNC_MS;
    while (h_now_ms() < deadline) {
        h_digest(a, da);
        h_digest(b, db);
        if (da[0] && !strcmp(da, db))
            return;
        h_sleep_ms(20);
    }
    CHECK(0, "digests differ: %s / %s", da, db);
}

/* Whether r answers nothing within ms (a write held by the pause). */
static int silent_for(struct h_raw *r, int ms)
{
    size_t len;
    return h_raw_read_reply(r, &len, ms) < 0 && r->len == 0;
}

/* The primary p, its replica stopped (SIGSTOP) after one more write, so it
 * cannot acknowledge p's whole stream. */
static void stop_replica_behind(const struct h_server *sb, redisContext *p)
{
    kill(sb->pid, SIGSTOP);
    EXPECT_OK(p, "SET", "behind", "1");
}

/* Opens a primary (*a) and its replica (*b) on sa and sb. Returns 0, or -1
 * after a failed expectation (what opened is still to close_pair). */
static int open_pair(struct h_server *sa, redisContext **a, struct h_server *sb, redisContext **b)
{
    *a = h_open(sa, H_FLAGS(FAST));
    *b = *a ? h_open(sb, H_FLAGS(FAST)) : NULL;
    return *b && make_replica(*b, sa, *a) ? 0 : -1;
}

/* Closes both servers of a pair, the replica woken first if stopped. */
static void close_pair(struct h_server *sa, redisContext *a, struct h_server *sb,
                       redisContext *b)
{
    if (b) {
        kill(sb->pid, SIGCONT);
        h_close(sb, b);
    }
    if (a)
        h_close(sa, a);
}

static void test_errors(void)
{
    struct h_server sa, sb;
    char bport[16];
    redisContext *a = h_open(&sa, H_FLAGS(FAST)), *b = NULL;
    if (!a)
        return;
    EXPECT_ERR(a, "ERR FAILOVER requires connected replicas.", "FAILOVER");
    EXPECT_ERR(a, "ERR No failover in progress.", "FAILOVER", "ABORT");
    EXPECT_ERR(a, "ERR syntax error", "FAILOVER", "ABORT", "FORCE");
    EXPECT_ERR(a, "ERR syntax error", "FAILOVER", "bogus");
    EXPECT_ERR(a, "ERR syntax error", "FAILOVER", "TO", "127.0.0.1");
    EXPECT_ERR(a, "ERR syntax error", "FAILOVER", "TIMEOUT");
    EXPECT_ERR(a, "ERR syntax error", "FAILOVER", "TIMEOUT", "5", "TIMEOUT", "6");
    EXPECT_ERR(a, "ERR syntax error", "FAILOVER", "FORCE", "FORCE");
    EXPECT_ERR(a, "ERR syntax error", "FAILOVER", "TO", "h", "1", "TO", "h", "2");
    EXPECT_ERR(a, "ERR value is not an integer or out of range", "FAILOVER", "TO", "h", "x");
    EXPECT_ERR(a, "ERR value is not an integer or out of range", "FAILOVER", "TIMEOUT", "x");
    EXPECT_ERR(a, "ERR FAILOVER timeout must be greater than 0", "FAILOVER", "TIMEOUT", "0");
    EXPECT_ERR(a, "ERR FAILOVER timeout must be greater than 0", "FAILOVER", "TIMEOUT", "-5");
    /* Syntax first, then the state. */
    EXPECT_ERR(a, "ERR FAILOVER requires connected replicas.", "FAILOVER", "FORCE");
    EXPECT_ERR(a, "ERR PSYNC FAILOVER can't be sent to a master.", "PSYNC", "x", "1",
               "FAILOVER");
    EXPECT_MATCH(a, "*master_failover_state:no-failover*", "INFO", "replication");

    b = h_open(&sb, H_FLAGS(FAST));
    if (!b || !make_replica(b, &sa, a))
        goto out;
    port_text(&sb, bport, sizeof(bport));
    EXPECT_ERR(a, FORCE_ERR, "FAILOVER", "FORCE");
    EXPECT_ERR(a, FORCE_ERR, "FAILOVER", "TO", "127.0.0.1", bport, "FORCE");
    EXPECT_ERR(a, FORCE_ERR, "FAILOVER", "TIMEOUT", "100", "FORCE");
    EXPECT_ERR(a, "ERR FAILOVER target HOST and PORT is not a replica.", "FAILOVER", "TO",
               "127.0.0.1", "1");
    EXPECT_ERR(a, "ERR FAILOVER target HOST and PORT is not a replica.", "FAILOVER", "TO",
               "localhost", bport);
    EXPECT_ERR(b, "ERR FAILOVER is not valid when server is a replica.", "FAILOVER");
    EXPECT_ERR(b, "ERR PSYNC FAILOVER replid must match my replid.", "PSYNC",
               "0123456789012345678901234567890123456789", "1", "FAILOVER");
    EXPECT_MATCH(b, "*role:slave*", "INFO", "replication");

    /* Waiting for a replica that cannot catch up. */
    struct h_raw w, p;
    stop_replica_behind(&sb, a);
    EXPECT_OK(a, "FAILOVER", "TIMEOUT", "60000");
    EXPECT_MATCH(a, "*master_failover_state:waiting-for-sync*", "INFO", "replication");
    EXPECT_ERR(a, "ERR FAILOVER already in progress.", "FAILOVER");
    EXPECT_ERR(a, "ERR FAILOVER already in progress.", "FAILOVER", "TO", "127.0.0.1", bport);
    EXPECT_ERR(a, "ERR REPLICAOF not allowed while failing over.", "REPLICAOF", "NO", "ONE");
    EXPECT_ERR(a, "ERR REPLICAOF not allowed while failing over.", "REPLICAOF", "127.0.0.1",
               "1");
    if (h_raw_open(&p, &sa) == 0) {
        RAW_SEND(&p, "PSYNC ? -1\r\n");
        RAW_EXPECT(&p, "-NOMASTERLINK Can't SYNC while failing over\r\n");
        h_raw_close(&p);
    }
    if (h_raw_open(&w, &sa) == 0) {
        RAW_SEND(&w, "SET held 1\r\n");
        CHECK(silent_for(&w, 300), "a write was served during the failover's pause");
        /* CLIENT UNPAUSE ends CLIENT PAUSE's pause, not the failover's. */
        EXPECT_OK(a, "CLIENT", "UNPAUSE");
        CHECK(silent_for(&w, 300), "CLIENT UNPAUSE freed a write held by FAILOVER");
        EXPECT_BULK(a, "1", "GET", "behind");
        EXPECT_OK(a, "FAILOVER", "ABORT");
        RAW_EXPECT(&w, "+OK\r\n");
        h_raw_close(&w);
    }
    EXPECT_MATCH(a, "*master_failover_state:no-failover*", "INFO", "replication");
    EXPECT_MATCH(a, "*role:master*", "INFO", "replication");
    EXPECT_ERR(a, "ERR No failover in progress.", "FAILOVER", "ABORT");
out:
    close_pair(&sa, a, &sb, b);
}

/* Reads n replies of the pipelined SETs on w: a run of +OK, then only
 * -READONLY. Returns how many were +OK, or -1 after a failed CHECK. */
static int count_acked(struct h_raw *w, int n)
{
    int ok = 0, refused = 0;
    for (int i = 0; i < n; i++) {
        size_t len;
        if (h_raw_read_reply(w, &len, SYNC_MS) < 0) {
            CHECK(0, "reply %d of %d never came", i, n);
            return -1;
        }
        if (len == 5 && !memcmp(w->buf, "+OK\r\n", 5) && !refused) {
            ok++;
        } else if (len == sizeof(READONLY) + 2 && w->buf[0] == '-' &&
                   !memcmp(w->buf + 1, READONLY, sizeof(READONLY) - 1)) {
            refused++;
        } else {
            CHECK(0, "reply %d: %.*s", i, (int)len, w->buf);
            return -1;
        }
        h_raw_consume(w, len);
    }
    return ok;
}

/* FAILOVER (to any replica) while a client streams writes. */
static void test_swap(void)
{
    struct h_server sa, sb;
    struct h_raw w;
    redisContext *a, *b;
    if (open_pair(&sa, &a, &sb, &b) < 0 || h_raw_open(&w, &sa) < 0)
        goto out;
    for (int i = 0; i < 100; i++) {
        char k[16];
        snprintf(k, sizeof(k), "pre%d", i);
        EXPECT_OK(a, "SET", k, "v");
    }
    static char pipeline[WRITES * 40];
    size_t n = 0;
    for (int i = 0; i < WRITES; i++) {
        char k[16];
        int kl = snprintf(k, sizeof(k), "k%d", i);
        n += (size_t)snprintf(pipeline + n, sizeof(pipeline) - n,
                              "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", kl, k);
    }
    /* A tenth of the writes is acknowledged; FAILOVER is sent, and the rest
     * of the writes right behind it, on the other connection. */
    size_t tenth = n / 10;
    while (pipeline[tenth] != '*')
        tenth++;
    h_raw_send(&w, pipeline, tenth);
    int first = count_acked(&w, WRITES / 10);
    CHECK(first == WRITES / 10, "the first writes: %d acknowledged", first);
    H_SEND(a, "FAILOVER");
    h_raw_send(&w, pipeline + tenth, n - tenth);
    EXPECT_NEXT(a, "+OK");
    int rest = count_acked(&w, WRITES - WRITES / 10);
    int acked = first == WRITES / 10 && rest >= 0 ? first + rest : -1;
    h_raw_close(&w);
    printf("  %d of %d pipelined writes acknowledged before the pause\n", acked, WRITES);
    expect_role(b, "master", "the replica");
    expect_role(a, "slave", "the old primary");
    expect_state(a, "no-failover");
    EXPECT_MATCH(b, "*master_failover_state:no-failover*", "INFO", "replication");
    CHECK(h_wait_info(a, "replication", "master_link_status", "up", SYNC_MS),
          "the old primary's link to the new one did not come up");
    char bport[16], text[64] = "";
    h_info_str(a, "replication", "master_port", text, sizeof(text));
    CHECK(!strcmp(text, port_text(&sb, bport, sizeof(bport))), "master_port:%s", text);
    if (acked >= 0) {
        /* Every acknowledged write is on the new primary, none other. */
        EXPECT_INT(b, 100 + acked, "DBSIZE");
        char k[16];
        snprintf(k, sizeof(k), "k%d", acked > 0 ? acked - 1 : 0);
        EXPECT_INT(b, acked > 0, "EXISTS", k);
        snprintf(k, sizeof(k), "k%d", acked);
        EXPECT_INT(b, 0, "EXISTS", k);
    }
    /* The old primary continued partially under the new history. */
    EXPECT_MATCH(b, "*sync_full:0*", "INFO", "stats");
    EXPECT_MATCH(b, "*sync_partial_ok:1*", "INFO", "stats");
    EXPECT_ERR(a, READONLY, "SET", "x", "1");
    EXPECT_OK(b, "SET", "after", "1");
    expect_same_digest(a, b);
    EXPECT_BULK(a, "1", "GET", "after");
out:
    close_pair(&sa, a, &sb, b);
}

/* TO with FORCE: the target never catches up, the primary hands over at the
 * timeout all the same. */
static void test_force(void)
{
    struct h_server sa, sb;
    char bport[16];
    redisContext *a, *b;
    if (open_pair(&sa, &a, &sb, &b) < 0)
        goto out;
    stop_replica_behind(&sb, a);
    EXPECT_OK(a, "FAILOVER", "TO", "127.0.0.1", port_text(&sb, bport, sizeof(bport)), "FORCE",
              "TIMEOUT", "200");
    EXPECT_MATCH(a, "*master_failover_state:waiting-for-sync*", "INFO", "replication");
    /* Past the timeout it follows the target, which is stopped: in progress
     * until the target answers its PSYNC. */
    expect_state(a, "failover-in-progress");
    EXPECT_MATCH(a, "*role:slave*", "INFO", "replication");
    kill(sb.pid, SIGCONT);
    expect_role(b, "master", "the target");
    expect_state(a, "no-failover");
    CHECK(h_wait_info(a, "replication", "master_link_status", "up", SYNC_MS),
          "the old primary's link to the target did not come up");
    expect_same_digest(a, b);
out:
    close_pair(&sa, a, &sb, b);
}

/* TIMEOUT without FORCE: the replica never catches up, the primary stays
 * one and runs the writes it held. */
static void test_timeout(void)
{
    struct h_server sa, sb;
    struct h_raw w;
    redisContext *a, *b;
    if (open_pair(&sa, &a, &sb, &b) < 0)
        goto out;
    stop_replica_behind(&sb, a);
    EXPECT_OK(a, "FAILOVER", "TIMEOUT", "300");
    if (h_raw_open(&w, &sa) == 0) {
        RAW_SEND(&w, "INCR held\r\n");
        expect_state(a, "no-failover");
        RAW_EXPECT(&w, ":1\r\n");
        h_raw_close(&w);
    }
    EXPECT_MATCH(a, "*role:master*", "INFO", "replication");
    EXPECT_OK(a, "SET", "x", "1");
    kill(sb.pid, SIGCONT);
    expect_same_digest(a, b);
out:
    close_pair(&sa, a, &sb, b);
}

/* One failover between rbkv and redis-server, p (primary) handing over to
 * r (its replica). */
static void swap_mixed(struct h_server *sp, redisContext *p, struct h_server *sr,
                       redisContext *r)
{
    char port[16];
    if (!make_replica(r, sp, p))
        return;
    EXPECT_OK(p, "SET", "k", "v");
    EXPECT_OK(p, "FAILOVER", "TO", "127.0.0.1", port_text(sr, port, sizeof(port)));
    expect_role(r, "master", "the replica");
    expect_role(p, "slave", "the primary");
    expect_state(p, "no-failover");
    CHECK(h_wait_info(p, "replication", "master_link_status", "up", SYNC_MS),
          "the old primary's link did not come up");
    EXPECT_OK(r, "SET", "after", "1");
    CHECK(h_wait_info(p, "keyspace", "db0", "keys=2,expires=0,avg_ttl=0", SYNC_MS),
          "the old primary did not get the new primary's write");
    EXPECT_BULK(p, "v", "GET", "k");
    EXPECT_MATCH(r, "*sync_partial_ok:1*", "INFO", "stats");
}

static void test_with_redis(void)
{
    struct h_server s, ref;
    if (h_is_reference())
        return; /* redis-server with redis-server is test_swap */
    int rc = h_start_reference(&ref, H_FLAGS(FAST));
    if (rc != 0)
        return;
    redisContext *r = h_connect(&ref), *c = h_open(&s, H_FLAGS(FAST));
    if (r && c) {
        /* rbkv hands over to redis-server, which then hands back. */
        swap_mixed(&s, c, &ref, r);
        EXPECT_OK(c, "REPLICAOF", "NO", "ONE");
        EXPECT_OK(c, "FLUSHALL");
        EXPECT_OK(r, "FLUSHALL");
        swap_mixed(&ref, r, &s, c);
    }
    if (r)
        redisFree(r);
    if (c)
        h_close(&s, c);
    h_stop(&ref);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_errors);
    H_RUN(test_swap);
    H_RUN(test_force);
    H_RUN(test_timeout);
    H_RUN(test_with_redis);
    return h_finish();
}
