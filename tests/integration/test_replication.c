/*
 * test_replication.c - end-to-end tests of replication with real processes
 * on loopback: full sync of a large dataset, the stream under pipelined and
 * random writes (expiries, blocked pops, MULTI, databases) compared with
 * the primary key by key, partial resync after a cut link from either side,
 * a backlog overrun falling back to a full sync, WAIT surviving kill -9 of
 * the primary, promotion with REPLICAOF NO ONE and another replica
 * continuing partially from the new primary, a chained replica, a replica
 * with an append-only log restarted, a replica restarted from its snapshot
 * continuing partially, redis-cli --replica, and bad input:
 * bad ports, PSYNC from clients that are not rbkv replicas, a primary that
 * sends a truncated snapshot; a shutdown waiting for a lagging replica
 * (shutdown-timeout, SHUTDOWN ABORT and NOW).
 *
 * Owns: its servers (each test stops them) and the fake primary's socket.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "rng.h"

#define SYNC_MS (60000 * H_SLOW)
#define BIG_KEYS (1000000 / H_SLOW)
#define DBS 16
/* Flags every server here gets: a full sync starts at once. */
#define FAST "--repl-diskless-sync-delay", "0"

static char port_text[4][16];

static const char *port_of(const struct h_server *s, int slot)
{
    snprintf(port_text[slot], sizeof(port_text[slot]), "%d", s->port);
    return port_text[slot];
}

/* Makes replica follow primary (REPLICAOF) and waits for the link. */
static int follow(redisContext *replica, const struct h_server *primary)
{
    EXPECT_OK(replica, "REPLICAOF", "127.0.0.1", port_of(primary, 0));
    int up = h_wait_info(replica, "replication", "master_link_status", "up", SYNC_MS);
    CHECK(up, "the replica's link to port %d did not come up", primary->port);
    return up ? 0 : -1;
}

/* Waits until replica has applied everything primary streamed so far. */
static int caught_up(redisContext *primary, redisContext *replica)
{
    return h_wait_caught_up(primary, replica, SYNC_MS);
}

static void append_reply(char **text, size_t *len, redisReply *r)
{
    char buf[4096];
    h_repr(r, buf, sizeof(buf));
    size_t n = strlen(buf);
    *text = realloc(*text, *len + n + 2);
    memcpy(*text + *len, buf, n);
    (*text)[*len + n] = '\n';
    *len += n + 1;
    (*text)[*len] = '\0';
}

/* Every database as text: keys in order, their types, values, and whether
 * they have a deadline (the deadline itself is checked by TTL tests). */
static char *dump(redisContext *c)
{
    char *text = calloc(1, 1);
    size_t len = 0;
    for (int db = 0; db < DBS; db++) {
        char dbs[8];
        snprintf(dbs, sizeof(dbs), "%d", db);
        freeReplyObject(H_CALL(c, "SELECT", dbs));
        redisReply *keys = H_CALL(c, "KEYS", "*");
        if (!keys || keys->type != REDIS_REPLY_ARRAY) {
            freeReplyObject(keys);
            break;
        }
        for (size_t i = 0; i < keys->elements; i++) {
            struct h_arg k = H_B(keys->element[i]->str, keys->element[i]->len);
            append_reply(&text, &len, keys->element[i]);
            redisReply *type = H_CALL_BIN(c, H_S("TYPE"), k);
            append_reply(&text, &len, type);
            /* Hashes and sets list in byte order, so equal data prints alike. */
            const char *t = type ? type->str : "";
            redisReply *v = !strcmp(t, "zset")   ? H_CALL_BIN(c, H_S("ZRANGE"), k, H_S("0"),
                                                              H_S("-1"), H_S("WITHSCORES"))
                            : !strcmp(t, "list") ? H_CALL_BIN(c, H_S("LRANGE"), k, H_S("0"),
                                                              H_S("-1"))
                            : !strcmp(t, "hash") ? H_CALL_BIN(c, H_S("HGETALL"), k)
                            : !strcmp(t, "set")  ? H_CALL_BIN(c, H_S("SMEMBERS"), k)
                                                 : H_CALL_BIN(c, H_S("GET"), k);
            append_reply(&text, &len, v);
            redisReply *ttl = H_CALL_BIN(c, H_S("PTTL"), k);
            text = realloc(text, len + 4);
            len += (size_t)sprintf(text + len, "%c\n", ttl && ttl->integer >= 0 ? 'T' : '-');
            freeReplyObject(type);
            freeReplyObject(v);
            freeReplyObject(ttl);
        }
        freeReplyObject(keys);
    }
    freeReplyObject(H_CALL(c, "SELECT", "0"));
    return text;
}

/* The replica's data is the primary's, key by key. The primary's KEYS
 * removes the keys past their deadline first, and the replica gets their DELs
 * before the two are compared. */
static void expect_same_data(redisContext *primary, redisContext *replica)
{
    h_sleep_ms(100); /* the tests' short deadlines are past */
    free(dump(primary));
    caught_up(primary, replica);
    char *a = dump(primary), *b = dump(replica);
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    CHECK(!strcmp(a, b), "datasets differ at byte %zu: primary '%.80s' replica '%.80s'", i,
          a + i, b + i);
    free(a);
    free(b);
}

static void expect_same_digest(redisContext *primary, redisContext *replica)
{
    char a[H_DIGEST_CHARS + 1], b[H_DIGEST_CHARS + 1];
    h_digest(primary, a);
    h_digest(replica, b);
    CHECK(a[0] && !strcmp(a, b), "digests differ: %s / %s", a, b);
}

/* A test's servers, the first its primary, each with a client: started
 * with FAST and closed together, replicas first. */
struct group {
    struct h_server s[3];
    redisContext *c[3];
    int n;
};

/* FAST then extra (NULL-terminated, may be NULL) into flags[16]. */
static const char *const *with_fast(const char **flags, const char *const *extra)
{
    const char *const fast[] = {FAST};
    int n = 0;
    for (; n < 2; n++)
        flags[n] = fast[n];
    for (int i = 0; extra && extra[i] && n < 15; i++)
        flags[n++] = extra[i];
    flags[n] = NULL;
    return flags;
}

/* Starts one more server, with FAST and extra flags; returns its client, or
 * NULL after a recorded failure. */
static redisContext *group_add(struct group *g, const char *const *extra)
{
    const char *flags[16];
    int i = g->n++;
    g->c[i] = h_open(&g->s[i], with_fast(flags, extra));
    return g->c[i];
}

/* Server i was killed: only its client goes. */
static void group_lost(struct group *g, int i)
{
    redisFree(g->c[i]);
    g->c[i] = NULL;
}

/* Server i stopped and started again in its dir, with FAST and extra. */
static redisContext *group_restart(struct group *g, int i, const char *const *extra)
{
    const char *flags[16];
    if (g->c[i])
        h_close(&g->s[i], g->c[i]);
    g->c[i] = h_reopen(&g->s[i], with_fast(flags, extra));
    return g->c[i];
}

static void group_close(struct group *g)
{
    for (int i = g->n - 1; i >= 0; i--)
        if (g->c[i])
            h_close(&g->s[i], g->c[i]);
}

/* ---- full sync ---- */

static void test_full_sync_large(void)
{
    struct group g = {0};
    /* The replica serves its old data while it loads (swapdb; the default,
     * disabled, is test_diskless_load.c's). */
    redisContext *p = group_add(&g, NULL);
    redisContext *r = group_add(&g, H_FLAGS("--repl-diskless-load", "swapdb"));
    if (!p || !r)
        goto out;
    h_fill(p, "key", BIG_KEYS);
    /* Deadlines, sorted sets, lists (pushed from both ends) and other
     * databases too. */
    for (int i = 0; i < 1000; i++) {
        char k[32], v[32];
        snprintf(k, sizeof(k), "ttl:%d", i);
        snprintf(v, sizeof(v), "%d", 1000 + i);
        H_APPEND(p, "SET", k, "v", "EX", v);
        snprintf(k, sizeof(k), "z:%d", i % 10);
        H_APPEND(p, "ZADD", k, v, k + 2);
        snprintf(k, sizeof(k), "l:%d", i % 10);
        H_APPEND(p, i % 3 ? "RPUSH" : "LPUSH", k, v);
    }
    for (int i = 0; i < 3000; i++)
        freeReplyObject(h_get_reply(p));
    EXPECT_OK(p, "SELECT", "7");
    EXPECT_OK(p, "SET", "in7", "x");
    EXPECT_OK(p, "SELECT", "0");
    long long keys = H_INT_REPLY(p, "DBSIZE");
    /* While the snapshot comes and loads, the replica serves its old data. */
    EXPECT_OK(r, "SET", "old", "1");
    EXPECT_OK(r, "REPLICAOF", "127.0.0.1", port_of(&g.s[0], 0));
    int polls = 0, stale = 0, bad = 0;
    int64_t deadline = h_now_ms() + SYNC_MS;
    char link[16] = "";
    while (strcmp(link, "up") && h_now_ms() < deadline) {
        redisReply *v = H_CALL(r, "GET", "old");
        polls++;
        stale += v && v->type == REDIS_REPLY_STRING;
        bad += !v || v->type == REDIS_REPLY_ERROR;
        freeReplyObject(v);
        h_info_str(r, "replication", "master_link_status", link, sizeof(link));
    }
    CHECK(!bad && stale > 0, "%d reads during the sync: %d of the old data, %d errors", polls,
          stale, bad);
    if (!CHECK(!strcmp(link, "up"), "the link came up"))
        goto out;
    EXPECT_NIL(r, "GET", "old");
    EXPECT_INT(r, keys, "DBSIZE");
    EXPECT_INT_RANGE(r, 1000, 2000, "TTL", "ttl:999");
    EXPECT_REPLY(r, "['9', '1999']", "ZRANGE", "z:9", "-1", "-1", "WITHSCORES");
    EXPECT_REPLY(r, "['1999', '1969']", "LRANGE", "l:9", "0", "1");
    EXPECT_REPLY(r, "['1979', '1989']", "LRANGE", "l:9", "-2", "-1");
    EXPECT_INT(r, 100, "LLEN", "l:0");
    EXPECT_OK(r, "SELECT", "7");
    EXPECT_BULK(r, "x", "GET", "in7");
    EXPECT_OK(r, "SELECT", "0");
    expect_same_digest(p, r);
    CHECK(h_info_ll(p, "stats", "sync_full") == 1, "one full sync");
    /* Its child is a fork INFO counts, as Redis's. */
    CHECK(h_info_ll(p, "stats", "total_forks") == 1, "the full sync's fork counted");
    CHECK(h_info_ll(p, "stats", "latest_fork_usec") > 0, "the full sync's fork timed");
    EXPECT_MATCH(p, "['master', :*, [['127.0.0.1', '*', '*']]]", "ROLE");
    char want[64];
    snprintf(want, sizeof(want), "['slave', '127.0.0.1', :%d, 'connected', :*]", g.s[0].port);
    EXPECT_MATCH(r, want, "ROLE");
out:
    group_close(&g);
}

/* ---- the stream ---- */

static uint64_t rng = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
    return (unsigned)rng_below(&rng, n);
}

/* Random writes of every kind the stream must make deterministic. */
static void random_writes(redisContext *p, int n)
{
    int queued = 0;
    for (int i = 0; i < n; i++) {
        char k[16], v[32], db[8];
        snprintf(k, sizeof(k), "k%u", rnd(200));
        snprintf(v, sizeof(v), "%u", rnd(1000));
        switch (rnd(19)) {
        case 0:
            H_APPEND(p, "SET", k, v);
            break;
        case 1:
            H_APPEND(p, "SET", k, v, "PX", rnd(2) ? "30" : "100000");
            break;
        case 2:
            H_APPEND(p, "EXPIRE", k, rnd(3) ? "100" : "-1");
            break;
        case 3:
            H_APPEND(p, "DEL", k);
            break;
        case 4:
            H_APPEND(p, "INCRBY", "counter", v);
            break;
        case 5:
            H_APPEND(p, "ZADD", "z", v, k);
            break;
        case 6:
            H_APPEND(p, "ZINCRBY", "z", v, k);
            break;
        case 7:
            H_APPEND(p, "ZPOPMIN", "z");
            break;
        case 8:
            snprintf(db, sizeof(db), "%u", rnd(3));
            H_APPEND(p, "SELECT", db);
            break;
        case 9:
            H_APPEND(p, "MULTI");
            H_APPEND(p, "SET", k, v);
            H_APPEND(p, "INCR", "counter");
            H_APPEND(p, "PEXPIRE", k, "50");
            H_APPEND(p, "EXEC");
            queued += 4;
            break;
        case 10:
            H_APPEND(p, "APPEND", k, v);
            break;
        case 11:
            H_APPEND(p, "RANDOMKEY"); /* may remove a key past its deadline */
            break;
        /* Hashes and sets; SPOP is random, so it must reach the replica as
         * the SREM it amounted to. */
        case 12:
            H_APPEND(p, "HSET", rnd(2) ? "h" : k, k, v);
            break;
        case 13:
            H_APPEND(p, "HINCRBYFLOAT", "h", k, "0.1");
            break;
        case 14:
            H_APPEND(p, "SADD", rnd(2) ? "s" : "t", k, v);
            break;
        case 15:
            H_APPEND(p, "SPOP", "s", rnd(2) ? "1" : "3");
            break;
        case 16:
            H_APPEND(p, rnd(2) ? "SINTERSTORE" : "SUNIONSTORE", "u", "s", "t");
            break;
        case 17:
            H_APPEND(p, "HDELRANGE", "h", "[k1", "(k2");
            break;
        default:
            H_APPEND(p, "GETEX", k, "PX", "40");
            break;
        }
        queued++;
    }
    for (int i = 0; i < queued; i++)
        freeReplyObject(h_get_reply(p));
    freeReplyObject(H_CALL(p, "SELECT", "0"));
}

static void test_stream_deterministic(void)
{
    struct group g = {0};
    redisContext *p = group_add(&g, NULL), *r = group_add(&g, NULL);
    redisContext *waiter = NULL;
    if (!p || !r || follow(r, &g.s[0]) < 0)
        goto out;
    /* A pop served to a blocked client goes on as the pop it was. */
    waiter = h_connect(&g.s[0]);
    H_SEND(waiter, "BZPOPMIN", "bz", "5");
    h_wait_blocked(p, 1, 5000 * H_SLOW);
    EXPECT_INT(p, 2, "ZADD", "bz", "1", "a", "2", "b");
    redisReply *got = h_get_reply(waiter);
    CHECK(got && got->type == REDIS_REPLY_ARRAY && got->elements == 3, "BZPOPMIN served");
    freeReplyObject(got);
    for (int round = 0; round < 4; round++) {
        random_writes(p, 3000 / H_SLOW);
        h_sleep_ms(60); /* keys with 30-50 ms deadlines expire, as DELs */
        if (!caught_up(p, r))
            break;
        expect_same_data(p, r);
    }
    /* Expiry on the primary removes the key on the replica. */
    EXPECT_OK(p, "SET", "short", "v", "PX", "20");
    h_sleep_ms(100);
    EXPECT_NIL(p, "GET", "short");
    caught_up(p, r);
    EXPECT_INT(r, 0, "EXISTS", "short");
    expect_same_digest(p, r);
    EXPECT_REPLY(r, "['b']", "ZRANGE", "bz", "0", "-1");
out:
    if (waiter)
        redisFree(waiter);
    group_close(&g);
}

/* ---- partial resync, backlog overrun ---- */

static void cut_and_write(redisContext *p, redisContext *r, const struct h_server *rs,
                          int from_primary, int bytes)
{
    /* A stopped replica cannot reconnect before the writes are made. */
    kill(rs->pid, SIGSTOP);
    if (from_primary)
        EXPECT_INT(p, 1, "CLIENT", "KILL", "TYPE", "replica");
    char *big = malloc((size_t)bytes + 1);
    memset(big, 'x', (size_t)bytes);
    big[bytes] = '\0';
    for (int i = 0; i < 4; i++) {
        char k[16];
        snprintf(k, sizeof(k), "cut%d", i);
        EXPECT_OK(p, "SET", k, big);
    }
    free(big);
    kill(rs->pid, SIGCONT);
    if (!from_primary)
        EXPECT_INT(r, 1, "CLIENT", "KILL", "TYPE", "master");
}

static void test_partial_resync(void)
{
    struct group g = {0};
    redisContext *p = group_add(&g, NULL), *r = group_add(&g, NULL);
    if (!p || !r || follow(r, &g.s[0]) < 0)
        goto out;
    h_fill(p, "a", 1000);
    caught_up(p, r);
    for (int side = 0; side < 2; side++) {
        long long full = h_info_ll(p, "stats", "sync_full");
        long long partial = h_info_ll(p, "stats", "sync_partial_ok");
        cut_and_write(p, r, &g.s[1], side == 0, 1000);
        int64_t deadline = h_now_ms() + SYNC_MS;
        while (h_info_ll(p, "stats", "sync_partial_ok") == partial && h_now_ms() < deadline)
            h_sleep_ms(20);
        CHECK(h_info_ll(p, "stats", "sync_partial_ok") == partial + 1,
              "a partial resync after the cut from the %s", side == 0 ? "primary" : "replica");
        CHECK(h_info_ll(p, "stats", "sync_full") == full, "no full sync after the cut");
        caught_up(p, r);
        expect_same_data(p, r);
    }
out:
    group_close(&g);
}

static void test_backlog_overrun(void)
{
    struct group g = {0};
    redisContext *p = group_add(&g, H_FLAGS("--repl-backlog-size", "16kb"));
    redisContext *r = group_add(&g, NULL);
    if (!p || !r || follow(r, &g.s[0]) < 0)
        goto out;
    EXPECT_OK(p, "SET", "before", "1");
    cut_and_write(p, r, &g.s[1], 1, 10000); /* 40 KB: more than the backlog holds */
    int64_t deadline = h_now_ms() + SYNC_MS;
    while (h_info_ll(p, "stats", "sync_full") < 2 && h_now_ms() < deadline)
        h_sleep_ms(20);
    CHECK(h_info_ll(p, "stats", "sync_full") == 2, "a second full sync after the overrun");
    CHECK(h_info_ll(p, "stats", "sync_partial_err") == 1, "the partial resync refused");
    h_wait_info(r, "replication", "master_link_status", "up", SYNC_MS);
    caught_up(p, r);
    expect_same_data(p, r);
out:
    group_close(&g);
}

/* ---- WAIT, kill -9 ---- */

static void test_wait_then_kill9(void)
{
    struct group g = {0};
    redisContext *p = group_add(&g, NULL), *r = group_add(&g, NULL);
    if (!p || !r || follow(r, &g.s[0]) < 0)
        goto out;
    EXPECT_INT(p, 1, "WAIT", "2", "1000"); /* one replica only: times out with what it has */
    int acked = 0;
    for (int i = 0; i < 200; i++) {
        char k[16];
        snprintf(k, sizeof(k), "w%d", i);
        EXPECT_OK(p, "SET", k, k);
        acked += H_INT_REPLY(p, "WAIT", "1", "5000") == 1;
    }
    CHECK(acked == 200, "WAIT 1 answered 1 for %d of 200 writes", acked);
    kill(g.s[0].pid, SIGKILL);
    h_wait_exit(&g.s[0], 5000);
    for (int i = 0; i < 200; i += 37) {
        char k[16];
        snprintf(k, sizeof(k), "w%d", i);
        redisReply *v = H_CALL(r, "GET", k);
        CHECK(v && v->type == REDIS_REPLY_STRING && !strcmp(v->str, k), "%s on the replica", k);
        freeReplyObject(v);
    }
    EXPECT_INT(r, 200, "DBSIZE");
    h_wait_info(r, "replication", "master_link_status", "down", 5000 * H_SLOW);
    EXPECT_MATCH(r, "['slave', '127.0.0.1', :*, 'conn*', :-1]", "ROLE");
    group_lost(&g, 0);
out:
    group_close(&g);
}

/* A replica deletes no key past its deadline (its primary's DEL does), and
 * its clients see none of them: not by lookups, nor in listings (KEYS,
 * SCAN, RANDOMKEY, the ordered commands), as Redis's replica hides them;
 * DBSIZE counts them, as there. */
static void test_replica_hides_due_keys(void)
{
    struct group g = {0};
    redisContext *p = group_add(&g, NULL), *r = group_add(&g, NULL);
    if (!p || !r || follow(r, &g.s[0]) < 0)
        goto out;
    EXPECT_OK(p, "DEBUG", "SET-ACTIVE-EXPIRE", "0"); /* so no DEL comes */
    EXPECT_OK(p, "SET", "a", "1", "PX", "30");
    EXPECT_OK(p, "SET", "b", "2");
    caught_up(p, r);
    int64_t deadline = h_now_ms() + SYNC_MS;
    long long pttl = 0;
    while ((pttl = H_INT_REPLY(r, "PTTL", "a")) != -2 && h_now_ms() < deadline)
        h_sleep_ms(10);
    CHECK(pttl == -2, "the replica still reads a key past its deadline");
    EXPECT_INT(r, 2, "DBSIZE");
    EXPECT_REPLY(r, "['b']", "KEYS", "*");
    EXPECT_REPLY(r, "['0', ['b']]", "SCAN", "0");
    EXPECT_BULK(r, "b", "RANDOMKEY");
    EXPECT_INT(r, 1, "KCOUNT", "-", "+");
    EXPECT_REPLY(r, "['b']", "KRANGE", "0", "-1");
    EXPECT_REPLY(r, "['b']", "KRANGE", "-", "+", "BYLEX");
    EXPECT_REPLY(r, "['b']", "KFIRST");
    /* The primary's lazy expiry sends the DEL that removes it there. */
    EXPECT_NIL(p, "GET", "a");
    caught_up(p, r);
    EXPECT_INT(r, 1, "DBSIZE");
    EXPECT_OK(p, "DEBUG", "SET-ACTIVE-EXPIRE", "1");
out:
    group_close(&g);
}

/* ---- promotion, chains ---- */

static void test_promote_and_follow(void)
{
    struct group g = {0};
    redisContext *p = group_add(&g, NULL), *r1 = group_add(&g, NULL), *r2 = group_add(&g, NULL);
    if (!p || !r1 || !r2 || follow(r1, &g.s[0]) < 0 || follow(r2, &g.s[0]) < 0)
        goto out;
    h_fill(p, "x", 500);
    caught_up(p, r1);
    caught_up(p, r2);
    char old_id[64];
    h_info_str(p, "replication", "master_replid", old_id, sizeof(old_id));
    kill(g.s[0].pid, SIGKILL);
    h_wait_exit(&g.s[0], 5000);
    EXPECT_OK(r1, "REPLICAOF", "NO", "ONE");
    EXPECT_MATCH(r1, "['master', :*, []]", "ROLE");
    char id2[64];
    h_info_str(r1, "replication", "master_replid2", id2, sizeof(id2));
    CHECK(!strcmp(id2, old_id), "the promoted replica's replid2 %s is the old primary's %s", id2,
          old_id);
    EXPECT_OK(r1, "SET", "after", "promotion");
    if (follow(r2, &g.s[1]) < 0)
        goto out;
    CHECK(h_info_ll(r1, "stats", "sync_partial_ok") == 1, "the other replica continued partially");
    CHECK(h_info_ll(r1, "stats", "sync_full") == 0, "no full sync from the new primary");
    caught_up(r1, r2);
    EXPECT_BULK(r2, "promotion", "GET", "after");
    expect_same_data(r1, r2);
    group_lost(&g, 0);
out:
    group_close(&g);
}

static void test_chained(void)
{
    struct group g = {0};
    redisContext *p = group_add(&g, NULL), *r1 = group_add(&g, NULL), *r2 = group_add(&g, NULL);
    if (!p || !r1 || !r2 || follow(r1, &g.s[0]) < 0 || follow(r2, &g.s[1]) < 0)
        goto out;
    random_writes(p, 2000 / H_SLOW);
    /* The end of the chain reaches the primary's offset: the same bytes all
     * along (the primary's expiry cycle may still be adding DELs). */
    caught_up(p, r2);
    expect_same_data(p, r2);
    EXPECT_ERR(r2, "READONLY You can't write against a read only replica.", "SET", "k", "v");
out:
    group_close(&g);
}

static void test_replica_with_aof_restarted(void)
{
    struct group g = {0};
    redisContext *p = group_add(&g, NULL), *r = group_add(&g, H_FLAGS("--appendonly", "yes"));
    if (!p || !r || follow(r, &g.s[0]) < 0)
        goto out;
    h_fill(p, "f", 300);
    EXPECT_OK(p, "SET", "late", "1");
    caught_up(p, r);
    /* Back on its own log and without REPLICAOF: what it applied is there. */
    r = group_restart(&g, 1, H_FLAGS("--appendonly", "yes"));
    if (!r)
        goto out;
    EXPECT_INT(r, 301, "DBSIZE");
    EXPECT_BULK(r, "1", "GET", "late");
    EXPECT_OK(p, "SET", "later", "2");
    /* Its log ends with the position it was at: it continues partially. */
    if (follow(r, &g.s[0]) < 0)
        goto out;
    CHECK(h_info_ll(p, "stats", "sync_partial_ok") == 1, "the replica continued from its log");
    CHECK(h_info_ll(p, "stats", "sync_full") == 1, "no second full sync");
    caught_up(p, r);
    EXPECT_BULK(r, "2", "GET", "later");
    expect_same_data(p, r);
    /* Killed, it has no position to offer: a full sync, and the same data. */
    kill(g.s[1].pid, SIGKILL);
    h_wait_exit(&g.s[1], 5000);
    group_lost(&g, 1);
    r = group_restart(&g, 1, H_FLAGS("--appendonly", "yes", "--replicaof", "127.0.0.1",
                                     port_of(&g.s[0], 0)));
    if (!r)
        goto out;
    CHECK(h_wait_info(r, "replication", "master_link_status", "up", SYNC_MS), "link up");
    CHECK(h_info_ll(p, "stats", "sync_full") == 2, "a full sync after kill -9");
    caught_up(p, r);
    expect_same_data(p, r);
out:
    group_close(&g);
    h_clean_dir(&g.s[1]);
}

/* A replica restarted from its snapshot continues where the snapshot was. */
static void test_replica_restart_partial(void)
{
    struct group g = {0};
    redisContext *p = group_add(&g, NULL), *r = group_add(&g, NULL);
    if (!p || !r || follow(r, &g.s[0]) < 0)
        goto out;
    h_fill(p, "s", 500);
    caught_up(p, r);
    EXPECT_OK(r, "SAVE");
    if (h_close(&g.s[1], r) < 0)
        goto out;
    g.c[1] = NULL;
    EXPECT_OK(p, "SET", "while", "away");
    r = group_restart(&g, 1, H_FLAGS("--replicaof", "127.0.0.1", port_of(&g.s[0], 0)));
    if (!r)
        goto out;
    CHECK(h_wait_info(r, "replication", "master_link_status", "up", SYNC_MS), "link up");
    CHECK(h_info_ll(p, "stats", "sync_partial_ok") == 1, "the restarted replica continued");
    CHECK(h_info_ll(p, "stats", "sync_full") == 1, "no second full sync");
    caught_up(p, r);
    EXPECT_BULK(r, "away", "GET", "while");
    expect_same_data(p, r);
out:
    group_close(&g);
    h_clean_dir(&g.s[1]);
}

/* ---- refusals and bad input ---- */

static void test_refusals(void)
{
    struct group g = {0};
    redisContext *p = group_add(&g, NULL), *r = group_add(&g, NULL);
    if (!p || !r)
        goto out;
    EXPECT_ERR(r, "ERR Invalid master port", "REPLICAOF", "127.0.0.1", "70000");
    EXPECT_ERR(r, "ERR value is not an integer or out of range", "REPLICAOF", "h", "x");
    EXPECT_ERR(r, "ERR wrong number of arguments for 'replicaof' command", "REPLICAOF", "h");
    EXPECT_MATCH(r, "['master', :0, []]", "ROLE");
    EXPECT_ERR(p, "ERR value is not an integer or out of range", "PSYNC", "?", "zz");
    EXPECT_ERR(p, "ERR syntax error", "REPLCONF", "capa");
    EXPECT_ERR(p, "ERR Unrecognized REPLCONF option: bogus", "REPLCONF", "bogus", "1");
    EXPECT_ERR(p, "ERR value is out of range, value must between 0 and 1", "REPLCONF", "rdb-only",
               "2");
    EXPECT_OK(p, "REPLCONF", "listening-port", "1234", "capa", "eof");
    EXPECT_INT(p, 0, "WAIT", "0", "0");
    EXPECT_ERR(p, "ERR timeout is negative", "WAIT", "1", "-1");
    /* min-replicas-to-write without replicas. */
    EXPECT_OK(p, "CONFIG", "SET", "min-replicas-to-write", "1");
    EXPECT_ERR(p, "NOREPLICAS Not enough good replicas to write.", "SET", "k", "v");
    EXPECT_OK(p, "CONFIG", "SET", "min-replicas-to-write", "0");
    if (follow(r, &g.s[0]) < 0)
        goto out;
    EXPECT_STATUS(r, "OK Already connected to specified master", "REPLICAOF", "127.0.0.1",
                  port_of(&g.s[0], 1));
    EXPECT_ERR(r, "READONLY You can't write against a read only replica.", "SET", "k", "v");
    EXPECT_MATCH(r, "-ERR WAIT cannot be used with replica instances*", "WAIT", "1", "0");
    EXPECT_OK(r, "MULTI");
    EXPECT_ERR(r, "READONLY You can't write against a read only replica.", "INCR", "k");
    EXPECT_MATCH(r, "-EXECABORT*", "EXEC");
    EXPECT_OK(r, "CONFIG", "SET", "replica-read-only", "no");
    EXPECT_OK(r, "SET", "local", "v");
    EXPECT_OK(r, "CONFIG", "SET", "replica-read-only", "yes");
    EXPECT_OK(p, "CONFIG", "SET", "min-replicas-to-write", "1");
    EXPECT_OK(p, "SET", "k", "v"); /* one good replica now */
    EXPECT_OK(p, "CONFIG", "SET", "min-replicas-to-write", "0");
    /* A replica whose primary is gone, told not to serve stale data. */
    EXPECT_OK(r, "CONFIG", "SET", "replica-serve-stale-data", "no");
    h_close(&g.s[0], p);
    g.c[0] = NULL;
    h_wait_info(r, "replication", "master_link_status", "down", 5000 * H_SLOW);
    EXPECT_ERR(r,
               "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
               "GET", "k");
    EXPECT_MATCH(r, "*role:slave*", "INFO", "replication");
    /* Nor can it feed a replica of its own, in Redis's words. */
    EXPECT_OK(r, "CONFIG", "SET", "replica-serve-stale-data", "yes");
    redisContext *sub = h_connect(&g.s[1]);
    if (sub) {
        EXPECT_ERR(sub, "NOMASTERLINK Can't SYNC while not connected with my master", "PSYNC",
                   "?", "-1");
        redisFree(sub);
    }
    EXPECT_OK(r, "REPLICAOF", "NO", "ONE");
    EXPECT_BULK(r, "v", "GET", "k");
    EXPECT_OK(r, "SET", "k", "mine");
out:
    group_close(&g);
}

/* A PSYNC that sends garbage after it loses only its own connection. */
static void test_garbage_from_replica(void)
{
    struct group g = {0};
    redisContext *p = group_add(&g, NULL);
    if (!p)
        return;
    EXPECT_OK(p, "SET", "kept", "1");
    struct h_raw raw;
    if (h_raw_open(&raw, &g.s[0]) == 0) {
        RAW_SEND(&raw, "REPLCONF capa eof capa rbkv\r\n");
        RAW_EXPECT(&raw, "+OK\r\n");
        RAW_SEND(&raw, "PSYNC ? -1\r\n*2\r\n$-7\r\nzzz\r\n");
        int64_t deadline = h_now_ms() + 10000 * H_SLOW;
        while (h_raw_wait_closed(&raw, 200) != 1 && h_now_ms() < deadline) {
            size_t n;
            while (h_raw_read_reply(&raw, &n, 10) == 0)
                h_raw_consume(&raw, n);
            raw.len = 0; /* snapshot bytes */
        }
        CHECK(h_now_ms() < deadline, "the garbage closed the connection");
        h_raw_close(&raw);
    }
    EXPECT_BULK(p, "1", "GET", "kept");
    EXPECT_MATCH(p, "*connected_slaves:0*", "INFO", "replication");
    group_close(&g);
}

/* A fake primary that answers the handshake, then sends half a snapshot. */
static int fake_primary(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0)
        return -1;
    *port = ntohs(a.sin_port);
    return fd;
}

static void serve_truncated(int lfd)
{
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        return;
    char buf[4096];
    size_t have = 0;
    for (;;) {
        ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
        if (n <= 0)
            break;
        have += (size_t)n;
        buf[have] = '\0';
        if (strstr(buf, "PSYNC"))
            break;
        /* The replica waits for each reply: one per read (PING, REPLCONF x2). */
        static const char ok[] = "+OK\r\n";
        if (write(fd, ok, sizeof(ok) - 1) < 0)
            break;
        have = 0;
    }
    static const char head[] = "+FULLRESYNC 0123456789012345678901234567890123456789 0\r\n"
                               "$100000\r\nRBKV";
    if (write(fd, head, sizeof(head) - 1) < 0) {
        /* the replica went away: nothing to check here */
    }
    close(fd);
}

/* Whether s's log tells of a failed full sync. */
static int sync_failure_logged(const struct h_server *s)
{
    return h_file_has(s, "server.log", "full sync failed") ||
           h_file_has(s, "server.log", "connection closed by the primary");
}

static void test_truncated_snapshot(void)
{
    struct group g = {0};
    redisContext *r = group_add(&g, NULL);
    int port, lfd = fake_primary(&port);
    if (!r || lfd < 0)
        goto out;
    EXPECT_OK(r, "SET", "mine", "1");
    char ports[16];
    snprintf(ports, sizeof(ports), "%d", port);
    EXPECT_OK(r, "REPLICAOF", "127.0.0.1", ports);
    serve_truncated(lfd);
    /* Polled: the replica read the cut snapshot to its end and gave it up. */
    int64_t deadline = h_now_ms() + 5000 * H_SLOW;
    while (!sync_failure_logged(&g.s[0]) && h_now_ms() < deadline)
        h_sleep_ms(20);
    /* The cut snapshot replaced nothing, and the replica tries again. */
    EXPECT_BULK(r, "1", "GET", "mine");
    EXPECT_MATCH(r, "*master_link_status:down*", "INFO", "replication");
    serve_truncated(lfd);
    EXPECT_BULK(r, "1", "GET", "mine");
    CHECK(sync_failure_logged(&g.s[0]), "the failed sync is logged");
    EXPECT_OK(r, "REPLICAOF", "NO", "ONE");
out:
    if (lfd >= 0)
        close(lfd);
    group_close(&g);
}

static void test_redis_cli_replica(void)
{
    struct group g = {0};
    /* redis-cli --replica never acknowledges: the shutdown would wait
     * shutdown-timeout for it, as Redis's does. */
    redisContext *p = group_add(&g, H_FLAGS("--shutdown-timeout", "0"));
    if (!p)
        return;
    if (access("/usr/bin/redis-cli", X_OK) != 0) {
        printf("redis-cli missing: skipped\n");
        group_close(&g);
        return;
    }
    char out[300], cmd[512];
    h_path_in(&g.s[0], "cli.out", out, sizeof(out));
    snprintf(cmd, sizeof(cmd), "timeout 10 stdbuf -oL redis-cli -p %d --replica > %s 2>&1 &",
             g.s[0].port, out);
    CHECK(system(cmd) == 0, "redis-cli started");
    h_wait_info(p, "replication", "connected_slaves", "1", 5000 * H_SLOW);
    EXPECT_OK(p, "SET", "streamed", "yes");
    int64_t deadline = h_now_ms() + 8000 * H_SLOW;
    while (!h_file_has(&g.s[0], "cli.out", "\"streamed\"") && h_now_ms() < deadline)
        h_sleep_ms(50);
    CHECK(h_file_has(&g.s[0], "cli.out", "\"streamed\""), "redis-cli --replica shows the stream");
    group_close(&g);
}

/* ---- a shutdown waits for its replicas (shutdown-timeout) ---- */

/* Sends SHUTDOWN (plus arg, may be NULL) on a new client of s, which stays
 * blocked while the shutdown waits; returns that client. */
static redisContext *send_shutdown(const struct h_server *s, const char *arg)
{
    redisContext *q = h_connect(s);
    if (!q)
        return NULL;
    if (arg)
        H_SEND(q, "SHUTDOWN", arg);
    else
        H_SEND(q, "SHUTDOWN");
    return q;
}

/* A new primary in slot 0, whose server exited (its dir is gone). */
static redisContext *restart_primary(struct group *g, const char *const *extra)
{
    const char *flags[16];
    g->c[0] = h_open(&g->s[0], with_fast(flags, extra));
    return g->c[0];
}

/* Redis 7.0's rule: a primary whose replica lags pauses writes and waits up
 * to shutdown-timeout for it (the shutting-down client blocked) before it
 * saves and exits; SHUTDOWN ABORT cancels the wait, NOW skips it, and a
 * replica that catches up ends it at once, holding the last write. The
 * replica lags because it is stopped (SIGSTOP). */
static void test_shutdown_waits_for_replica(void)
{
    struct group g = {0};
    redisContext *p = group_add(&g, H_FLAGS("--shutdown-timeout", "60")), *r = group_add(&g, NULL);
    redisContext *q = NULL;
    if (!p || !r || follow(r, &g.s[0]) < 0)
        goto out;
    EXPECT_OK(p, "SET", "a", "1");
    caught_up(p, r);
    kill(g.s[1].pid, SIGSTOP);
    EXPECT_OK(p, "SET", "b", "2");

    /* Waits, blocked; ABORT answers it with Redis's error and writes go on. */
    q = send_shutdown(&g.s[0], NULL);
    CHECK(h_wait_log(&g.s[0], "Waiting for replicas before shutting down.", 5000 * H_SLOW),
          "no 'Waiting for replicas' in the log");
    h_wait_blocked(p, 1, 5000 * H_SLOW);
    EXPECT_STATUS(p, "PONG", "PING");
    EXPECT_OK(p, "SHUTDOWN", "ABORT");
    if (q)
        EXPECT_NEXT(q, "-ERR Errors trying to SHUTDOWN. Check logs.");
    CHECK(h_wait_log(&g.s[0], "Shutdown manually aborted.", 5000 * H_SLOW), "abort not logged");
    EXPECT_ERR(p, "ERR No shutdown in progress.", "SHUTDOWN", "ABORT");
    EXPECT_ERR(p, "ERR syntax error", "SHUTDOWN", "ABORT", "NOW");
    EXPECT_ERR(p, "ERR syntax error", "SHUTDOWN", "SAVE", "NOSAVE");
    EXPECT_OK(p, "SET", "c", "3");

    /* Waits again, writes paused meanwhile; the replica wakes, catches up,
     * and the primary exits long before the 60 s. */
    if (q)
        H_SEND(q, "SHUTDOWN");
    h_wait_blocked(p, 1, 5000 * H_SLOW);
    redisContext *w = h_connect(&g.s[0]);
    if (w)
        H_SEND(w, "SET", "d", "4");
    kill(g.s[1].pid, SIGCONT);
    /* The log first: h_wait_exit removes it. */
    CHECK(h_wait_log(&g.s[0], "1 of 1 replicas are in sync when shutting down.", 20000 * H_SLOW),
          "no '1 of 1 replicas are in sync' in the log");
    int status = h_wait_exit(&g.s[0], 20000 * H_SLOW);
    CHECK(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the primary did not exit cleanly once its replica caught up (status %d)", status);
    if (w) {
        redisReply *x = h_get_reply(w);
        CHECK(x == NULL, "a write ran while the shutdown waited");
        freeReplyObject(x);
        redisFree(w);
    }
    EXPECT_BULK(r, "3", "GET", "c");
    EXPECT_NIL(r, "GET", "d");
    redisFree(q);
    q = NULL;
    group_lost(&g, 0);

    /* SIGTERM: waits shutdown-timeout (1 s) for a replica that never
     * answers, then logs it as lagging and exits. */
    p = restart_primary(&g, H_FLAGS("--shutdown-timeout", "1"));
    if (!p || follow(r, &g.s[0]) < 0)
        goto out;
    caught_up(p, r);
    kill(g.s[1].pid, SIGSTOP);
    EXPECT_OK(p, "SET", "e", "5");
    kill(g.s[0].pid, SIGTERM);
    CHECK(h_wait_log(&g.s[0], "0 of 1 replicas are in sync when shutting down.", 20000 * H_SLOW),
          "no '0 of 1 replicas are in sync' in the log");
    CHECK(h_file_has(&g.s[0], "server.log", "Waiting for replicas before shutting down."),
          "SIGTERM did not wait for the replica");
    CHECK(h_file_has(&g.s[0], "server.log", "Lagging replica 127.0.0.1:"),
          "no 'Lagging replica' in the log");
    status = h_wait_exit(&g.s[0], 20000 * H_SLOW);
    CHECK(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "SIGTERM: the primary did not exit after shutdown-timeout (status %d)", status);
    group_lost(&g, 0);

    /* SHUTDOWN NOW waits for nobody. */
    p = restart_primary(&g, H_FLAGS("--shutdown-timeout", "60"));
    kill(g.s[1].pid, SIGCONT);
    if (!p || follow(r, &g.s[0]) < 0)
        goto out;
    caught_up(p, r);
    kill(g.s[1].pid, SIGSTOP);
    EXPECT_OK(p, "SET", "f", "6");
    q = send_shutdown(&g.s[0], "NOW");
    CHECK(h_wait_log(&g.s[0], "ready to exit", 10000 * H_SLOW), "SHUTDOWN NOW did not exit");
    CHECK(!h_file_has(&g.s[0], "server.log", "Waiting for replicas"), "SHUTDOWN NOW waited");
    status = h_wait_exit(&g.s[0], 10000 * H_SLOW);
    CHECK(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "SHUTDOWN NOW did not exit at once (status %d)", status);
    group_lost(&g, 0);
out:
    if (g.n > 1)
        kill(g.s[1].pid, SIGCONT);
    redisFree(q);
    group_close(&g);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_full_sync_large);
    H_RUN(test_stream_deterministic);
    H_RUN(test_partial_resync);
    H_RUN(test_backlog_overrun);
    H_RUN(test_wait_then_kill9);
    H_RUN(test_promote_and_follow);
    H_RUN(test_replica_hides_due_keys);
    H_RUN(test_chained);
    H_RUN(test_replica_with_aof_restarted);
    H_RUN(test_replica_restart_partial);
    H_RUN(test_refusals);
    H_RUN(test_garbage_from_replica);
    H_RUN(test_truncated_snapshot);
    H_RUN(test_redis_cli_replica);
    H_RUN(test_shutdown_waits_for_replica);
    return h_finish();
}
