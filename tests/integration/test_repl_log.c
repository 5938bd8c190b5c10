/*
 * test_repl_log.c - replication's operator-facing behaviour side by side with
 * redis-server 7.0.15: the log lines operators alert on, and MASTERDOWN at
 * EXEC (issue 34).
 *
 * - test_log_lines: a primary and a replica, on the server under test and on
 *   redis-server, go through a full sync (streamed, then again through a file:
 *   repl-diskless-sync no), a partial resync after the replica
 *   drops the link (CLIENT KILL TYPE master), another after the primary drops
 *   it (CLIENT KILL TYPE replica), and a lost link (the primary killed). Both
 *   pairs' logs must hold the same key lines in the same order
 *   (docs/operations.md lists them). The reference replica runs with
 *   repl-diskless-load swapdb, as rbkv's replica does (the old
 *   data is served while the new loads, then swapped in).
 * - test_exec_masterdown: on a replica with replica-serve-stale-data no, a
 *   transaction queued with GET while the link was up is refused at EXEC once
 *   the link is down (EXECABORT ... MASTERDOWN) and discarded; one holding only
 *   commands flagged stale (SELECT, CLIENT GETNAME; not PING in Redis 7) runs; a GET queued while the link is down is
 *   refused at once, and EXEC then aborts.
 *
 * Without redis-server (and not required) each test still runs on the server
 * under test against the expected lines and replies. Owns: its servers, each
 * started and stopped by one test.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define SYNC_MS (30000 * H_SLOW)
/* A full sync starts at once; the replica loads beside its old data (swapdb). */
#define FAST "--repl-diskless-sync-delay", "0", "--repl-diskless-load", "swapdb"
#define MASTERDOWN "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."

/* A primary and its replica, both the server under test or both redis-server. */
struct pair {
    struct h_server p, r;
    redisContext *pc, *rc;
};

/* Starts p (diskless: repl-diskless-sync), then r with --replicaof p (so r
 * has no history: Redis's "no cached master") and, when stale is not NULL,
 * replica-serve-stale-data stale. reference: redis-server. Returns 1 when
 * both run and the link is up; 0 (nothing to compare: no redis-server) or -1
 * (a recorded failure). */
static int pair_open(struct pair *x, int reference, const char *diskless, const char *stale)
{
    char port[16];
    memset(x, 0, sizeof(*x));
    const char *const *pflags = H_FLAGS(FAST, "--repl-diskless-sync", diskless);
    int rc = reference ? h_start_reference(&x->p, pflags) : h_start(&x->p, pflags);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    snprintf(port, sizeof(port), "%d", x->p.port);
    const char *const *flags = stale ? H_FLAGS(FAST, "--replicaof", "127.0.0.1", port,
                                               "--replica-serve-stale-data", stale)
                                     : H_FLAGS(FAST, "--replicaof", "127.0.0.1", port);
    rc = reference ? h_start_reference(&x->r, flags) : h_start(&x->r, flags);
    if (rc != 0)
        return -1;
    x->pc = h_connect(&x->p);
    x->rc = h_connect(&x->r);
    if (!x->pc || !x->rc)
        return -1;
    return CHECK(h_wait_info(x->rc, "replication", "master_link_status", "up", SYNC_MS),
                 "%s: the replica's link did not come up", x->r.dir)
               ? 1
               : -1;
}

static void pair_close(struct pair *x)
{
    if (x->pc)
        redisFree(x->pc);
    if (x->rc)
        redisFree(x->rc);
    if (x->p.pid)
        h_stop(&x->p);
    if (x->r.pid)
        h_stop(&x->r);
}

/* How many times text is in s's log. */
static int log_count(const struct h_server *s, const char *text)
{
    size_t len;
    char *log = h_read_file(s->log_path, &len);
    int n = 0;
    for (const char *at = log; at && (at = strstr(at, text)); at += strlen(text))
        n++;
    free(log);
    return n;
}

/* Waits until text is in s's log n times. */
static int wait_log_count(const struct h_server *s, const char *text, int n)
{
    int64_t deadline = h_now_ms() + SYNC_MS;
    while (log_count(s, text) < n) {
        if (h_now_ms() >= deadline)
            return CHECK(0, "%s: '%s' not logged %d times", s->dir, text, n);
        h_sleep_ms(20);
    }
    return 1;
}

/* Whether s's log holds each of lines[0..n), in that order (other lines
 * between them). */
static void expect_in_order(const struct h_server *s, const char *const *lines, size_t n)
{
    size_t len;
    char *log = h_read_file(s->log_path, &len);
    const char *at = log;
    for (size_t i = 0; at && i < n; i++) {
        const char *hit = strstr(at, lines[i]);
        if (!CHECK(hit, "%s: key line %zu '%s' missing or out of order", s->log_path, i,
                   lines[i]))
            break;
        at = hit + strlen(lines[i]);
    }
    CHECK(log, "cannot read %s", s->log_path);
    free(log);
}

/* The scenario on one pair, then its logs against the key lines. disk: the
 * full sync goes through a file, its length known (Redis's target disk). */
static void log_scenario(int reference, int disk)
{
    struct pair x;
    int rc = pair_open(&x, reference, disk ? "no" : "yes", NULL);
    if (rc <= 0) {
        pair_close(&x);
        return;
    }
    char p_at[64], r_at[64], asks[128], full_req[128], streamed[192], succeeded[128], lost[128],
        accepted[128];
    snprintf(p_at, sizeof(p_at), "to MASTER 127.0.0.1:%d", x.p.port);
    snprintf(r_at, sizeof(r_at), "127.0.0.1:%d", x.r.port);
    snprintf(asks, sizeof(asks), "Replica %s asks for synchronization", r_at);
    snprintf(full_req, sizeof(full_req), "Full resync requested by replica %s", r_at);
    snprintf(streamed, sizeof(streamed),
             "Streamed RDB transfer with replica %s succeeded (socket). Waiting for REPLCONF ACK "
             "from slave to enable streaming",
             r_at);
    snprintf(succeeded, sizeof(succeeded), "Synchronization with replica %s succeeded", r_at);
    snprintf(lost, sizeof(lost), "Connection with replica %s lost.", r_at);
    snprintf(accepted, sizeof(accepted), "Partial resynchronization request from %s accepted. "
                                         "Sending ", r_at);
    static const char partial_done[] =
        "MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.";

    /* The full sync is done when the primary put the replica online. */
    wait_log_count(&x.p, succeeded, 1);
    /* Some history, so the replica has an offset to continue from. */
    EXPECT_OK(x.pc, "SET", "k", "v");
    h_wait_caught_up(x.pc, x.rc, SYNC_MS);
    /* A partial resync after the replica drops the link ... */
    EXPECT_INT(x.rc, 1, "CLIENT", "KILL", "TYPE", "master");
    wait_log_count(&x.r, partial_done, 1);
    wait_log_count(&x.p, accepted, 1);
    /* ... and after the primary drops it. */
    EXPECT_INT(x.pc, 1, "CLIENT", "KILL", "TYPE", "replica");
    wait_log_count(&x.r, partial_done, 2);
    wait_log_count(&x.p, accepted, 2);
    const char *primary_lines[16];
    size_t primary_n = 0;
    primary_lines[primary_n++] = asks;
    primary_lines[primary_n++] = full_req;
    if (disk) {
        primary_lines[primary_n++] = "Starting BGSAVE for SYNC with target: disk";
        primary_lines[primary_n++] = "Background saving started by pid ";
        primary_lines[primary_n++] = "Background saving terminated with success";
    } else {
        primary_lines[primary_n++] = "Starting BGSAVE for SYNC with target: replicas sockets";
        primary_lines[primary_n++] = "Background RDB transfer started by pid ";
        primary_lines[primary_n++] = "Background RDB transfer terminated with success";
        primary_lines[primary_n++] = streamed;
    }
    primary_lines[primary_n++] = succeeded;
    for (int cut = 0; cut < 2; cut++) { /* the link cut by the replica, then by the primary */
        primary_lines[primary_n++] = lost;
        primary_lines[primary_n++] = asks;
        primary_lines[primary_n++] = accepted;
    }
    expect_in_order(&x.p, primary_lines, primary_n);
    /* The primary is gone (h_wait_exit removes its dir: its log was read
     * just before). */
    kill(x.p.pid, SIGKILL);
    CHECK(h_wait_exit(&x.p, SYNC_MS) != -1, "the primary did not die");
    wait_log_count(&x.r, "Error condition on socket for SYNC: Connection refused", 1);

#define PARTIAL_AFTER_LOSS                                                                        \
    "Connection with master lost.", "Caching the disconnected master state.", "Reconnecting",    \
        p_at, "MASTER <-> REPLICA sync started", "Non blocking connect for SYNC fired the event.", \
        "Master replied to PING, replication can continue...",                                     \
        "Trying a partial resynchronization (request ",                                            \
        "Successful partial resynchronization with master.", partial_done
    const char *const replica_lines[] = {
        "Connecting", p_at, "MASTER <-> REPLICA sync started",
        "Non blocking connect for SYNC fired the event.",
        "Master replied to PING, replication can continue...",
        "Partial resynchronization not possible (no cached master)", "Full resync from master: ",
        "MASTER <-> REPLICA sync: receiving ",
        disk ? " bytes from master to " : "streamed RDB from master with EOF ",
        "MASTER <-> REPLICA sync: Loading DB in memory",
        "MASTER <-> REPLICA sync: Swapping active DB with loaded DB",
        "MASTER <-> REPLICA sync: Finished with success", PARTIAL_AFTER_LOSS, PARTIAL_AFTER_LOSS,
        "Connection with master lost.", "Caching the disconnected master state.", "Reconnecting",
        p_at, "MASTER <-> REPLICA sync started",
        "Error condition on socket for SYNC: Connection refused"};
#undef PARTIAL_AFTER_LOSS
    expect_in_order(&x.r, replica_lines, sizeof(replica_lines) / sizeof(replica_lines[0]));
    pair_close(&x);
}

static void test_log_lines(void)
{
    for (int disk = 0; disk <= 1; disk++) {
        log_scenario(0, disk);
        if (!h_is_reference())
            log_scenario(1, disk);
    }
}

/* Kills both primaries and waits for the replicas' links to be down (asked
 * on a client of its own: y->rc is in MULTI). */
static void primaries_gone(struct pair *x, struct pair *ref)
{
    for (struct pair *y = x; y; y = y == x ? ref : NULL) {
        kill(y->p.pid, SIGKILL);
        h_wait_exit(&y->p, SYNC_MS);
        redisContext *c = h_connect(&y->r);
        CHECK(c && h_wait_info(c, "replication", "master_link_status", "down", SYNC_MS),
              "%s: the link is still up", y->r.dir);
        if (c)
            redisFree(c);
    }
}

static void test_exec_masterdown(void)
{
    struct pair x, ref = {0};
    if (pair_open(&x, 0, "yes", "no") <= 0) {
        pair_close(&x);
        return;
    }
    int have_ref = !h_is_reference() && pair_open(&ref, 1, "yes", "no") > 0;
    if (!have_ref)
        pair_close(&ref);
    redisContext *r = have_ref ? ref.rc : NULL;
    /* Queued while the link is up: GET (not stale) in one client, commands
     * flagged stale in another. */
    redisContext *stale = h_connect(&x.r);
    redisContext *stale_ref = have_ref ? h_connect(&ref.r) : NULL;
    H_SAME(x.rc, r, "MULTI");
    EXPECT_STATUS(x.rc, "QUEUED", "GET", "k");
    if (r)
        EXPECT_STATUS(r, "QUEUED", "GET", "k");
    H_SAME(stale, stale_ref, "MULTI");
    H_SAME(stale, stale_ref, "SELECT", "0");
    H_SAME(stale, stale_ref, "CLIENT", "GETNAME");
    primaries_gone(&x, have_ref ? &ref : NULL);
    EXPECT_ERR(x.rc, "EXECABORT Transaction discarded because of: " MASTERDOWN, "EXEC");
    if (r)
        EXPECT_ERR(r, "EXECABORT Transaction discarded because of: " MASTERDOWN, "EXEC");
    /* Discarded: no transaction any more. */
    H_SAME(x.rc, r, "EXEC");
    EXPECT_ERR(x.rc, "ERR EXEC without MULTI", "EXEC");
    /* Only stale commands: it runs. */
    EXPECT_REPLY(stale, "[+OK, (nil)]", "EXEC");
    if (stale_ref)
        EXPECT_REPLY(stale_ref, "[+OK, (nil)]", "EXEC");
    /* Queued while the link is down: GET refused at once, EXEC aborts. */
    H_SAME(x.rc, r, "MULTI");
    EXPECT_ERR(x.rc, MASTERDOWN, "GET", "k");
    if (r)
        EXPECT_ERR(r, MASTERDOWN, "GET", "k");
    H_SAME(x.rc, r, "SELECT", "0");
    H_SAME(x.rc, r, "EXEC");
    EXPECT_ERR(x.rc, "ERR EXEC without MULTI", "EXEC");
    if (stale)
        redisFree(stale);
    if (stale_ref)
        redisFree(stale_ref);
    pair_close(&x);
    if (have_ref)
        pair_close(&ref);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_log_lines);
    H_RUN(test_exec_masterdown);
    return h_finish();
}
