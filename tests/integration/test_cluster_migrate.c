/*
 * test_cluster_migrate.c - MIGRATE (server/commands/cmd_migrate.c,
 * migrate_link.c) between rbkv and redis-server 7.0.15 either way, and
 * resharding with redis-cli --cluster over it: real servers on loopback,
 * every wait a poll.
 *
 *  1. Errors side by side with a redis-server source, against one target:
 *     syntax, KEYS after a key, bad numbers, NOKEY, nothing listening, a
 *     target that never answers (the timeout), a target's AUTH and NOAUTH
 *     errors and BUSYKEY passed through.
 *  2. rbkv to rbkv, rbkv to redis-server and redis-server to rbkv: one key
 *     with its TTL, KEYS of every type with a missing one, COPY, REPLACE, a
 *     batch half refused (the taken keys go, the refused stay), another
 *     database (SELECT), AUTH and AUTH2, the cached connection reused and
 *     retried after the target dropped it; an rbkv source's replica sees the
 *     DEL (and nothing after COPY).
 *  3. The cached connection closes after 10 s idle.
 *  4. Resharding with redis-cli --cluster: three rbkv primaries made by
 *     `create`; `reshard` of half the slots while a client writes unique
 *     keys and reads them back, following MOVED, ASK and TRYAGAIN (the only
 *     errors it may see): no acknowledged key lost or changed. Then
 *     `add-node`, `rebalance`, `del-node`, `fix` (of an open slot), `call`,
 *     `set-timeout` and `info` exit 0, `check` covers every slot, and every
 *     key is still there.
 *  5. A mixed cluster, rbkv and redis-server primaries: `reshard` moves
 *     slots with their keys from rbkv to Redis and from Redis to rbkv.
 *  6. `import` of a live redis-server's keys into an rbkv cluster, with
 *     --cluster-copy and --cluster-replace (TTLs and every type kept), then
 *     without while the source takes writes: each write ends in the cluster
 *     or is left in the source, none is lost.
 *
 * The cluster nodes run in /dev/shm when there is one: every SETSLOT
 * writes nodes.conf (docs/cluster.md), five per slot moved, and on this
 * shared disk that once made a reshard of 8192 slots take minutes;
 * bench/cluster_reshard_vs_redis.sh measures on the disk, side by side.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "harness_cluster.h"

#define WAIT_MS (30000 * H_SLOW)

/* A server of either kind and a client of it. */
struct srv {
    struct h_server s;
    redisContext *c;
    int redis;
    char port[8];
};

/* Starts one (redis: a redis-server 7.0.15). 0; 1 when there is no
 * redis-server (skip); -1 on failure. */
static int srv_start(struct srv *v, int redis, const char *const *flags)
{
    memset(v, 0, sizeof(*v));
    v->redis = redis;
    /* rbkv's with a config file, which CONFIG REWRITE (set-timeout) needs. */
    int rc = redis ? h_start_reference(&v->s, flags) : h_start_config(&v->s, "", flags);
    if (rc != 0)
        return rc;
    snprintf(v->port, sizeof(v->port), "%d", v->s.port);
    v->c = h_connect(&v->s);
    return v->c ? 0 : -1;
}

static void srv_stop(struct srv *v)
{
    if (v->c)
        redisFree(v->c);
    v->c = NULL;
    /* A node leaves nodes.conf and server.conf beside its log, which the
     * harness would keep: gone too, unless the server did not exit cleanly. */
    if (v->s.pid && h_stop(&v->s) == 0)
        h_clean_dir(&v->s);
}

/* A loopback port that accepts connections (the kernel's backlog) and
 * never reads them: a target that does not answer. Its fd, or -1. */
static int silent_listener(char *port, size_t cap)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 16) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        CHECK(0, "silent listener");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    snprintf(port, cap, "%d", ntohs(a.sin_port));
    return fd;
}

/* 1. Replies compared with a redis-server source's, to one target. */
static void test_errors_side_by_side(void)
{
    struct srv src, ref, tgt;
    struct h_server refs;
    if (srv_start(&src, 0, NULL) != 0)
        return;
    if (!h_start_comparison(&refs)) {
        srv_stop(&src);
        return;
    }
    memset(&ref, 0, sizeof(ref));
    ref.s = refs;
    ref.c = h_connect(&ref.s);
    if (srv_start(&tgt, 1, H_FLAGS("--requirepass", "pw")) != 0)
        goto out;
    EXPECT_OK(tgt.c, "AUTH", "pw");
    redisContext *c = src.c, *r = ref.c;
    const char *tp = tgt.port;
    H_SAME(c, r, "SET", "k", "v");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "k", "0", "1000", "COPY", "REPLACE", "foo");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "k", "0", "1000", "AUTH");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "k", "0", "1000", "AUTH2", "u");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "k", "0", "1000", "KEYS", "k");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "k", "0", "x", "KEYS");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "k", "x", "1000");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "k", "0", "99999999999999999999");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "nokey", "0", "1000");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "", "0", "1000", "KEYS", "no1", "no2");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "", "0", "1000", "KEYS");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "", "0", "1000", "COPY", "KEYS");

    /* Nothing listens there: the connection fails. */
    char dead[8];
    snprintf(dead, sizeof(dead), "%d", h_free_port());
    H_SAME(c, r, "MIGRATE", "127.0.0.1", dead, "k", "0", "500");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", "notaport", "k", "0", "500");
    /* Accepted and never answered: the timeout, which is no retry. */
    char silent[8];
    int lfd = silent_listener(silent, sizeof(silent));
    if (lfd >= 0) {
        int64_t t0 = h_now_ms();
        EXPECT_ERR(c, "IOERR error or timeout reading to target instance", "MIGRATE",
                   "127.0.0.1", silent, "k", "0", "200");
        int64_t took = h_now_ms() - t0;
        CHECK(took >= 190 && took < 5000 * H_SLOW, "a 200 ms timeout took %lld ms",
              (long long)took);
        H_SAME(c, r, "MIGRATE", "127.0.0.1", silent, "k", "0", "200");
        close(lfd);
    }
    EXPECT_BULK(c, "v", "GET", "k");

    /* The target's own errors, passed through; nothing moves. */
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "k", "0", "1000");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "k", "0", "1000", "AUTH", "wrong");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "k", "0", "1000", "AUTH2", "default", "wrong");
    EXPECT_OK(tgt.c, "SET", "k", "there");
    H_SAME(c, r, "MIGRATE", "127.0.0.1", tp, "k", "0", "1000", "AUTH", "pw");
    H_SAME(c, r, "EXISTS", "k");
    EXPECT_BULK(tgt.c, "there", "GET", "k");
out:
    srv_stop(&tgt);
    srv_stop(&ref);
    srv_stop(&src);
}

static long long info_int(redisContext *c, const char *field)
{
    redisReply *r = H_CALL(c, "INFO", "all");
    char v[64] = "-1";
    if (r && r->type == REDIS_REPLY_STRING)
        h_info_field(r->str, field, v, sizeof(v));
    if (r)
        freeReplyObject(r);
    return atoll(v);
}

/* Polls until key's existence on c is want (a replica catching up). */
static int wait_exists(redisContext *c, const char *key, long long want)
{
    int64_t deadline = h_now_ms() + WAIT_MS;
    while (H_INT_REPLY(c, "EXISTS", key) != want) {
        if (h_now_ms() > deadline)
            return 0;
        h_sleep_ms(20);
    }
    return 1;
}

/* Kills every client of t but the test's own: the MIGRATE link too. */
static void kill_other_clients(redisContext *t)
{
    redisReply *r = H_CALL(t, "CLIENT", "KILL", "SKIPME", "yes");
    CHECK(r && r->type == REDIS_REPLY_INTEGER && r->integer >= 1, "CLIENT KILL killed nothing");
    if (r)
        freeReplyObject(r);
}

/* 2. src -> tgt of the kinds given; replica: src's replica, or NULL. */
static void migrate_between(struct srv *src, struct srv *tgt, redisContext *replica)
{
    redisContext *c = src->c, *t = tgt->c;
    const char *tp = tgt->port;
    EXPECT_OK(t, "FLUSHALL");
    EXPECT_OK(c, "FLUSHALL");

    /* One key, its TTL kept. */
    EXPECT_OK(c, "SET", "str", "hello", "PX", "100000");
    EXPECT_OK(c, "MIGRATE", "127.0.0.1", tp, "str", "0", "5000");
    EXPECT_INT(c, 0, "EXISTS", "str");
    EXPECT_BULK(t, "hello", "GET", "str");
    EXPECT_INT_RANGE(t, 1, 100000, "PTTL", "str");
    CHECK(info_int(c, "migrate_cached_sockets") == 1, "one cached link");
    if (replica)
        CHECK(wait_exists(replica, "str", 0), "the replica still has str");

    /* Every type at once, a missing key skipped. */
    EXPECT_INT(c, 3, "RPUSH", "list", "a", "b", "c");
    EXPECT_INT(c, 2, "HSET", "hash", "f1", "v1", "f2", "v2");
    EXPECT_INT(c, 3, "SADD", "set", "x", "y", "z");
    EXPECT_INT(c, 2, "ZADD", "zset", "1", "m1", "2.5", "m2");
    EXPECT_OK(c, "MIGRATE", "127.0.0.1", tp, "", "0", "5000", "KEYS", "list", "missing", "hash",
              "set", "zset");
    EXPECT_INT(c, 0, "EXISTS", "list", "hash", "set", "zset");
    EXPECT_REPLY(t, "['a', 'b', 'c']", "LRANGE", "list", "0", "-1");
    EXPECT_BULK(t, "v2", "HGET", "hash", "f2");
    EXPECT_INT(t, 2, "HLEN", "hash");
    EXPECT_INT(t, 3, "SCARD", "set");
    EXPECT_INT(t, 1, "SISMEMBER", "set", "y");
    EXPECT_REPLY(t, "['m1', '1', 'm2', '2.5']", "ZRANGE", "zset", "0", "-1", "WITHSCORES");
    EXPECT_INT(t, -1, "PTTL", "list");

    /* COPY keeps the source's; without REPLACE the target's key stays,
     * BUSYKEY passed through; REPLACE overwrites. */
    EXPECT_OK(c, "SET", "cp", "one");
    EXPECT_OK(c, "MIGRATE", "127.0.0.1", tp, "cp", "0", "5000", "COPY");
    EXPECT_BULK(c, "one", "GET", "cp");
    EXPECT_BULK(t, "one", "GET", "cp");
    EXPECT_OK(c, "SET", "cp", "two");
    EXPECT_ERR(c, "ERR Target instance replied with error: BUSYKEY Target key name already exists.",
               "MIGRATE", "127.0.0.1", tp, "cp", "0", "5000");
    EXPECT_BULK(c, "two", "GET", "cp");
    EXPECT_OK(c, "MIGRATE", "127.0.0.1", tp, "cp", "0", "5000", "REPLACE");
    EXPECT_INT(c, 0, "EXISTS", "cp");
    EXPECT_BULK(t, "two", "GET", "cp");
    EXPECT_OK(c, "SET", "cp", "three");
    EXPECT_OK(c, "MIGRATE", "127.0.0.1", tp, "", "0", "5000", "COPY", "REPLACE", "KEYS", "cp");
    EXPECT_BULK(c, "three", "GET", "cp");
    EXPECT_BULK(t, "three", "GET", "cp");
    if (replica)
        CHECK(wait_exists(replica, "cp", 1), "COPY deleted cp on the replica");

    /* A batch half refused: the keys taken go, the refused stay. */
    EXPECT_OK(c, "MSET", "b1", "1", "b2", "2", "b3", "3");
    EXPECT_OK(t, "SET", "b2", "theirs");
    EXPECT_ERR(c, "ERR Target instance replied with error: BUSYKEY Target key name already exists.",
               "MIGRATE", "127.0.0.1", tp, "", "0", "5000", "KEYS", "b1", "b2", "b3");
    EXPECT_INT(c, 1, "EXISTS", "b1", "b2", "b3");
    EXPECT_BULK(c, "2", "GET", "b2");
    EXPECT_BULK(t, "theirs", "GET", "b2");
    EXPECT_BULK(t, "3", "GET", "b3");
    if (replica)
        CHECK(wait_exists(replica, "b1", 0) && wait_exists(replica, "b3", 0) &&
                  wait_exists(replica, "b2", 1),
              "the replica's b1 b2 b3");

    /* Another database: SELECT goes first, and back. */
    EXPECT_OK(c, "SET", "indb", "3");
    EXPECT_OK(c, "MIGRATE", "127.0.0.1", tp, "indb", "3", "5000");
    EXPECT_INT(t, 0, "EXISTS", "indb");
    EXPECT_OK(t, "SELECT", "3");
    EXPECT_BULK(t, "3", "GET", "indb");
    EXPECT_OK(t, "SELECT", "0");
    EXPECT_OK(c, "SET", "indb", "0");
    EXPECT_OK(c, "MIGRATE", "127.0.0.1", tp, "indb", "0", "5000");
    EXPECT_BULK(t, "0", "GET", "indb");

    /* The target dropped the cached link: one retry on a new one. */
    kill_other_clients(t);
    EXPECT_OK(c, "SET", "retry", "r");
    EXPECT_OK(c, "MIGRATE", "127.0.0.1", tp, "retry", "0", "5000");
    EXPECT_BULK(t, "r", "GET", "retry");

    /* AUTH and AUTH2 (the test's own connection stays authenticated). */
    EXPECT_OK(t, "ACL", "SETUSER", "mover", "on", ">mpw", "~*", "+@all");
    EXPECT_OK(t, "CONFIG", "SET", "requirepass", "pw");
    kill_other_clients(t);
    EXPECT_OK(c, "SET", "au", "1");
    EXPECT_MATCH(c, "-ERR Target instance replied with error: NOAUTH *", "MIGRATE", "127.0.0.1",
                 tp, "au", "0", "5000");
    EXPECT_OK(c, "MIGRATE", "127.0.0.1", tp, "au", "0", "5000", "AUTH", "pw");
    EXPECT_BULK(t, "1", "GET", "au");
    EXPECT_OK(c, "SET", "au2", "2");
    /* A fresh link: the cached one is still authenticated, and would take
     * the RESTORE after a failed AUTH (as Redis's). */
    kill_other_clients(t);
    EXPECT_ERR(c,
               "ERR Target instance replied with error: WRONGPASS invalid username-password pair "
               "or user is disabled.",
               "MIGRATE", "127.0.0.1", tp, "au2", "0", "5000", "AUTH2", "mover", "nope");
    EXPECT_OK(c, "MIGRATE", "127.0.0.1", tp, "au2", "0", "5000", "AUTH2", "mover", "mpw");
    EXPECT_BULK(t, "2", "GET", "au2");
    EXPECT_INT(c, 0, "EXISTS", "au", "au2");
    EXPECT_OK(t, "CONFIG", "SET", "requirepass", "");
    EXPECT_INT(t, 1, "ACL", "DELUSER", "mover");
    /* The password is not shown to SLOWLOG or MONITOR. */
    if (!src->redis) {
        EXPECT_OK(c, "CONFIG", "SET", "slowlog-log-slower-than", "0");
        EXPECT_NIL(c, "GET", "nothing");
        EXPECT_STATUS(c, "NOKEY", "MIGRATE", "127.0.0.1", tp, "none", "0", "5000", "AUTH2", "u",
                      "secret");
        EXPECT_MATCH(c, "*'(redacted)', '(redacted)'*", "SLOWLOG", "GET", "1");
        EXPECT_OK(c, "CONFIG", "SET", "slowlog-log-slower-than", "10000");
    }
}

static void test_migrate_kinds(void)
{
    static const struct {
        int src_redis, tgt_redis;
        const char *name;
    } runs[] = {{0, 0, "rbkv -> rbkv"}, {0, 1, "rbkv -> redis-server"},
                {1, 0, "redis-server -> rbkv"}};
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        printf("  %s\n", runs[i].name);
        struct srv src, tgt, rep;
        int have_rep = 0;
        if (srv_start(&src, runs[i].src_redis, NULL) != 0)
            continue;
        if (srv_start(&tgt, runs[i].tgt_redis, NULL) != 0) {
            srv_stop(&src);
            continue;
        }
        if (!runs[i].src_redis && srv_start(&rep, 0, NULL) == 0) {
            have_rep = 1;
            EXPECT_OK(rep.c, "REPLICAOF", "127.0.0.1", src.port);
            int64_t deadline = h_now_ms() + WAIT_MS;
            redisReply *r = NULL;
            for (;;) {
                r = H_CALL(rep.c, "INFO", "replication");
                int up = r && r->str && strstr(r->str, "master_link_status:up");
                freeReplyObject(r);
                if (up || h_now_ms() > deadline)
                    break;
                h_sleep_ms(20);
            }
        }
        migrate_between(&src, &tgt, have_rep ? rep.c : NULL);
        if (have_rep)
            srv_stop(&rep);
        srv_stop(&tgt);
        srv_stop(&src);
    }
}

/* 3. Redis's MIGRATE_SOCKET_CACHE_TTL: a link idle for more than 10 s is
 * closed by the cron. */
static void test_idle_link_closed(void)
{
    struct srv src, tgt;
    if (srv_start(&src, 0, NULL) != 0)
        return;
    if (srv_start(&tgt, 0, NULL) == 0) {
        EXPECT_OK(src.c, "SET", "k", "v");
        EXPECT_OK(src.c, "MIGRATE", "127.0.0.1", tgt.port, "k", "0", "1000");
        int64_t used = h_now_ms();
        CHECK(info_int(src.c, "migrate_cached_sockets") == 1, "one cached link");
        int64_t deadline = used + 20000 * H_SLOW;
        while (info_int(src.c, "migrate_cached_sockets") != 0 && h_now_ms() < deadline)
            h_sleep_ms(200);
        int64_t idle = h_now_ms() - used;
        CHECK(info_int(src.c, "migrate_cached_sockets") == 0, "the link was never closed");
        CHECK(idle >= 10000, "closed after %lld ms idle, before 10 s", (long long)idle);
        srv_stop(&tgt);
    }
    srv_stop(&src);
}

/* ---- Clusters ---- */

#define MAX_NODES 6
#define NODE_TIMEOUT_MS 2000

struct node {
    struct h_node v;
    char id[41];
};

/* Starts n in cluster mode, as harness_cluster.h does, and learns its id.
 * 0; 1 when there is no redis-server (skip); -1. */
static int node_start(struct node *n, int redis)
{
    memset(n, 0, sizeof(*n));
    int rc = h_node_start(&n->v, redis, NODE_TIMEOUT_MS);
    if (rc == 0)
        h_node_id(&n->v, n->id);
    return rc;
}

/* A node leaves nodes.conf and server.conf beside its log, which the
 * harness would keep: gone too, unless the server did not exit cleanly. */
static void node_stop(struct node *n)
{
    if (n->v.c)
        redisFree(n->v.c);
    n->v.c = NULL;
    if (n->v.s.pid && h_stop(&n->v.s) == 0)
        h_clean_dir(&n->v.s);
}

/* `--cluster check` of the cluster n is in: exit 0, every slot covered
 * and no open slot. */
static int cluster_checks(const struct node *n)
{
    static char out[65536];
    int rc = h_redis_cli(out, sizeof(out), "--cluster check 127.0.0.1:%d", n->v.s.port);
    return CHECK(rc == 0 && strstr(out, "[OK] All 16384 slots covered.") &&
                     !strstr(out, "[WARNING]") && !strstr(out, "[ERR]"),
                 "check: %d %s", rc, out);
}

/* Polls until every node of n[0..count) says cluster_state:ok. */
static int wait_cluster_ok(struct node *n, int count)
{
    int64_t deadline = h_now_ms() + WAIT_MS;
    for (;;) {
        int ok = 1;
        for (int i = 0; i < count && ok; i++) {
            redisReply *r = H_CALL(n[i].v.c, "CLUSTER", "INFO");
            ok = r && r->str && strstr(r->str, "cluster_state:ok\r\n");
            if (r)
                freeReplyObject(r);
        }
        if (ok)
            return 1;
        if (h_now_ms() > deadline)
            return CHECK(0, "the cluster never reached cluster_state:ok");
        h_sleep_ms(50);
    }
}

/* Polls until every node of n[0..count) lists the node id in CLUSTER NODES:
 * add-node only MEETs one node, and the others learn of it by gossip. */
static int wait_all_know(struct node *n, int count, const char *id)
{
    int64_t deadline = h_now_ms() + WAIT_MS;
    for (;;) {
        int ok = 1;
        for (int i = 0; i < count && ok; i++) {
            redisReply *r = H_CALL(n[i].v.c, "CLUSTER", "NODES");
            ok = r && r->str && strstr(r->str, id) && !strstr(r->str, "handshake");
            if (r)
                freeReplyObject(r);
        }
        if (ok)
            return 1;
        if (h_now_ms() > deadline)
            return CHECK(0, "not every node learnt of %s", id);
        h_sleep_ms(50);
    }
}

/* `--cluster create` of n[0..count), waited until ok everywhere. */
static int cluster_create(struct node *n, int count)
{
    char args[512], out[16384];
    int len = snprintf(args, sizeof(args), "--cluster create");
    for (int i = 0; i < count; i++)
        len += snprintf(args + len, sizeof(args) - (size_t)len, " 127.0.0.1:%d", n[i].v.s.port);
    int rc = h_redis_cli(out, sizeof(out), "%s --cluster-yes", args);
    if (!CHECK(rc == 0 && strstr(out, "[OK] All 16384 slots covered."), "create: %d %s", rc, out))
        return 0;
    return wait_cluster_ok(n, count);
}

/* Starts n[0..count) (n[redis_at] a redis-server; -1: none) and creates
 * the cluster. Returns how many started, for the cleanup; *ok whether the
 * cluster is up. */
static int cluster_up(struct node *n, int count, int redis_at, int *ok)
{
    int started = 0;
    *ok = 0;
    for (; started < count; started++)
        if (node_start(&n[started], started == redis_at) != 0)
            return started;
    *ok = cluster_create(n, count);
    return started;
}

/* A small cluster client: a connection per node port, requests sent to the
 * node the slot map names, following MOVED (the map learns), ASK (ASKING
 * then the request, there) and TRYAGAIN (again, a little later). Any other
 * error is a failure of the test. */
struct cclient {
    int ports[MAX_NODES + 2];
    redisContext *conns[MAX_NODES + 2];
    int nconns;
    int slot_port[16384];
    long moved, ask, tryagain;
};

static redisContext *cc_conn(struct cclient *cc, int port)
{
    for (int i = 0; i < cc->nconns; i++)
        if (cc->ports[i] == port)
            return cc->conns[i];
    if (cc->nconns == MAX_NODES + 2)
        return NULL;
    struct h_server s = {.port = port};
    redisContext *c = h_connect(&s);
    if (!c)
        return NULL;
    cc->ports[cc->nconns] = port;
    cc->conns[cc->nconns++] = c;
    return c;
}

static void cc_free(struct cclient *cc)
{
    for (int i = 0; i < cc->nconns; i++)
        redisFree(cc->conns[i]);
    cc->nconns = 0;
}

/* Redis's key hash slot (CRC16/XMODEM of the key or its {tag}), so the
 * client asks the right node first, as real cluster clients do. */
static int cc_slot(const char *key)
{
    size_t len = strlen(key);
    const char *open = strchr(key, '{');
    if (open) {
        const char *close = strchr(open + 1, '}');
        if (close && close > open + 1) {
            key = open + 1;
            len = (size_t)(close - open - 1);
        }
    }
    unsigned crc = 0;
    for (size_t i = 0; i < len; i++) {
        crc ^= (unsigned)(unsigned char)key[i] << 8;
        for (int b = 0; b < 8; b++)
            crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
    return (int)(crc & 16383);
}

/* The reply to argv (a one-key command, key at argv[1]) once no longer
 * redirected; NULL when a connection failed (a recorded failure). */
static redisReply *cc_call(struct cclient *cc, int argc, const char *const *argv)
{
    int slot = cc_slot(argv[1]), port = cc->slot_port[slot], asking = 0;
    int64_t deadline = h_now_ms() + WAIT_MS;
    for (;;) {
        redisContext *c = cc_conn(cc, port);
        if (!CHECK(c != NULL, "no connection to %d", port))
            return NULL;
        if (asking) {
            redisReply *a = h_command(c, 1, (const char *const[]){"ASKING"}, NULL);
            if (a)
                freeReplyObject(a);
        }
        redisReply *r = h_command(c, argc, argv, NULL);
        if (!CHECK(r != NULL, "%s %s: no reply from %d", argv[0], argv[1], port))
            return NULL;
        if (r->type != REDIS_REPLY_ERROR)
            return r;
        int s2, p2;
        asking = 0;
        if (sscanf(r->str, "MOVED %d 127.0.0.1:%d", &s2, &p2) == 2) {
            cc->moved++;
            cc->slot_port[s2] = port = p2;
        } else if (sscanf(r->str, "ASK %d 127.0.0.1:%d", &s2, &p2) == 2) {
            cc->ask++;
            port = p2;
            asking = 1;
        } else if (!strncmp(r->str, "TRYAGAIN", 8)) {
            cc->tryagain++;
            h_sleep_ms(5);
        } else {
            CHECK(0, "%s %s: %s", argv[0], argv[1], r->str);
            return r;
        }
        freeReplyObject(r);
        if (!CHECK(h_now_ms() < deadline, "%s %s: redirected until the deadline", argv[0],
                   argv[1]))
            return NULL;
    }
}

static void cc_init(struct cclient *cc, int any_port)
{
    memset(cc, 0, sizeof(*cc));
    for (int i = 0; i < 16384; i++)
        cc->slot_port[i] = any_port;
}

/* Sets key to value through the cluster; 1 when acknowledged with +OK. */
static int cc_set(struct cclient *cc, const char *key, const char *value)
{
    redisReply *r = cc_call(cc, 3, (const char *const[]){"SET", key, value});
    int ok = r && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK");
    if (r)
        freeReplyObject(r);
    return ok;
}

/* Whether key reads back as value through the cluster. */
static int cc_has(struct cclient *cc, const char *key, const char *value)
{
    redisReply *r = cc_call(cc, 2, (const char *const[]){"GET", key});
    int ok = r && r->type == REDIS_REPLY_STRING && !strcmp(r->str, value);
    if (r)
        freeReplyObject(r);
    return ok;
}

/* The unique keys the tests write: u:<i> = v:<i>, into 32-byte buffers. */
static void u_pair(long i, char *key, char *val)
{
    snprintf(key, 32, "u:%ld", i);
    snprintf(val, 32, "v:%ld", i);
}

/* Each of keys u:0 .. u:n-1 reads back as v:<i>; returns how many do not. */
static long cc_count_lost(struct cclient *cc, long n)
{
    long lost = 0;
    char key[32], val[32];
    for (long i = 0; i < n; i++) {
        u_pair(i, key, val);
        if (!cc_has(cc, key, val))
            lost++;
    }
    return lost;
}

/* The node dirs on tmpfs when there is one (see the top of the file). */
static void nodes_on_tmpfs(void)
{
    if (access("/dev/shm", W_OK) == 0)
        setenv("TMPDIR", "/dev/shm", 1);
}

static int have_redis_cli(void)
{
    if (system("command -v redis-cli >/dev/null 2>&1") == 0)
        return 1;
    printf("  skipped: no redis-cli\n");
    return 0;
}

/* How many slots n serves, from CLUSTER NODES' myself line; *first, when
 * not NULL, is the first of them. */
static int slots_from(struct node *n, int *first)
{
    redisReply *r = H_CALL(n->v.c, "CLUSTER", "NODES");
    int count = 0;
    if (r && r->str) {
        const char *line = strstr(r->str, "myself");
        const char *end = line ? strchr(line, '\n') : NULL;
        /* The slots follow the link state. */
        line = line ? strstr(line, "connected") : NULL;
        for (const char *p = line; p && p < end; p++) {
            if (*p != ' ')
                continue;
            int a, b, used = 0;
            if (sscanf(p + 1, "%d-%d%n", &a, &b, &used) == 2 && used)
                b = b - a + 1;
            else if (sscanf(p + 1, "%d%n", &a, &used) == 1 && used &&
                     (p[1 + used] == ' ' || p[1 + used] == '\n'))
                b = 1;
            else
                continue;
            if (first && !count)
                *first = a;
            count += b;
        }
    }
    if (r)
        freeReplyObject(r);
    return count;
}

static int slots_of(struct node *n)
{
    return slots_from(n, NULL);
}

/* 4. The operator's tools on an rbkv cluster, and clients during a reshard. */
static void test_reshard_under_load(void)
{
    if (!have_redis_cli())
        return;
    nodes_on_tmpfs();
    struct node n[4];
    int ok, started = cluster_up(n, 3, -1, &ok);
    if (!ok)
        goto out;

    struct cclient cc;
    cc_init(&cc, n[0].v.s.port);
    long acked = 0;
    char key[32], val[32], args[512], out[65536], path[400];
    for (; acked < 2000; acked++) {
        u_pair(acked, key, val);
        if (!cc_set(&cc, key, val))
            break;
    }

    /* Half the slots, from the first two nodes to the third, while the
     * client writes new keys and reads old ones back. */
    snprintf(args, sizeof(args),
             "--cluster reshard 127.0.0.1:%d --cluster-from %s,%s --cluster-to %s "
             "--cluster-slots 8192 --cluster-yes --cluster-pipeline 20",
             n[0].v.s.port, n[0].id, n[1].id, n[2].id);
    snprintf(path, sizeof(path), "%s/reshard.out", n[0].v.s.dir);
    int64_t t0 = h_now_ms();
    pid_t pid = h_redis_cli_spawn(path, args);
    int status = -1;
    long reads_bad = 0;
    uint64_t seed = h_seed(), x = seed | 1;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        u_pair(acked, key, val);
        if (cc_set(&cc, key, val))
            acked++;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        long back = (long)(x % (uint64_t)acked);
        u_pair(back, key, val);
        reads_bad += !cc_has(&cc, key, val);
        if (h_now_ms() - t0 > 20 * WAIT_MS) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            CHECK(0, "the reshard did not end");
            break;
        }
    }
    size_t loglen;
    char *log = h_read_file(path, &loglen);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "reshard: %s", log ? log : "");
    free(log);
    printf("  reshard of 8192 slots: %lld ms; %ld keys acknowledged; MOVED %ld ASK %ld "
           "TRYAGAIN %ld\n",
           (long long)(h_now_ms() - t0), acked, cc.moved, cc.ask, cc.tryagain);
    CHECK(reads_bad == 0, "%ld reads during the reshard missed their key", reads_bad);
    /* redis-cli rounds each source's share up. */
    CHECK(slots_of(&n[2]) >= 5461 + 8192, "the third node serves %d slots", slots_of(&n[2]));
    cluster_checks(&n[0]);
    CHECK(cc_count_lost(&cc, acked) == 0, "acknowledged keys lost after the reshard");

    /* The other tools. */
    if (node_start(&n[3], 0) != 0)
        goto done;
    started++;
    int rc = h_redis_cli(out, sizeof(out), "--cluster add-node 127.0.0.1:%d 127.0.0.1:%d",
                       n[3].v.s.port, n[0].v.s.port);
    CHECK(rc == 0 && strstr(out, "[OK] New node added correctly."), "add-node: %d %s", rc, out);
    /* As an operator would: once the new node knows the cluster. */
    int64_t deadline = h_now_ms() + WAIT_MS;
    while (h_redis_cli(out, sizeof(out), "--cluster check 127.0.0.1:%d", n[3].v.s.port) != 0 &&
           h_now_ms() < deadline)
        h_sleep_ms(200);
    wait_all_know(n, 4, n[3].id);
    wait_cluster_ok(n, 4);
    rc = h_redis_cli(out, sizeof(out), "--cluster rebalance 127.0.0.1:%d "
                   "--cluster-use-empty-masters --cluster-pipeline 20", n[0].v.s.port);
    CHECK(rc == 0, "rebalance: %d %s", rc, out);
    CHECK(slots_of(&n[3]) > 3000, "rebalance gave the new node %d slots", slots_of(&n[3]));
    cluster_checks(&n[0]);
    /* Empty it (its weight 0), then del-node. */
    rc = h_redis_cli(out, sizeof(out), "--cluster rebalance 127.0.0.1:%d --cluster-weight %s=0 "
                   "--cluster-pipeline 20", n[0].v.s.port, n[3].id);
    CHECK(rc == 0 && slots_of(&n[3]) == 0, "rebalance to weight 0: %d %s", rc, out);
    rc = h_redis_cli(out, sizeof(out), "--cluster del-node 127.0.0.1:%d %s", n[0].v.s.port,
                   n[3].id);
    CHECK(rc == 0 && strstr(out, "Sending CLUSTER RESET SOFT to the deleted node."),
          "del-node: %d %s", rc, out);
    node_stop(&n[3]);
    started--;
    cluster_checks(&n[0]);

    /* fix: an open slot left by an interrupted move. */
    char slot[8];
    int first = -1;
    slots_from(&n[1], &first);
    snprintf(slot, sizeof(slot), "%d", first);
    EXPECT_OK(n[1].v.c, "CLUSTER", "SETSLOT", slot, "MIGRATING", n[0].id);
    EXPECT_OK(n[0].v.c, "CLUSTER", "SETSLOT", slot, "IMPORTING", n[1].id);
    rc = h_redis_cli(out, sizeof(out), "--cluster check 127.0.0.1:%d", n[0].v.s.port);
    CHECK(rc != 0 && strstr(out, "open slot"), "check found no open slot: %s", out);
    rc = h_redis_cli(out, sizeof(out), "--cluster fix 127.0.0.1:%d --cluster-yes", n[0].v.s.port);
    CHECK(rc == 0, "fix: %d %s", rc, out);
    cluster_checks(&n[0]);

    rc = h_redis_cli(out, sizeof(out), "--cluster call 127.0.0.1:%d DBSIZE", n[0].v.s.port);
    long total = 0;
    for (const char *p = strstr(out, ": "); p; p = strstr(p + 2, ": "))
        total += atol(p + 2);
    CHECK(rc == 0 && total == acked, "call DBSIZE: %d, %ld keys of %ld: %s", rc, total, acked,
          out);
    rc = h_redis_cli(out, sizeof(out), "--cluster set-timeout 127.0.0.1:%d 3000", n[0].v.s.port);
    CHECK(rc == 0 && strstr(out, "New node timeout set. 3 OK, 0 ERR."), "set-timeout: %d %s",
          rc, out);
    EXPECT_REPLY(n[1].v.c, "['cluster-node-timeout', '3000']", "CONFIG", "GET",
                 "cluster-node-timeout");
    rc = h_redis_cli(out, sizeof(out), "--cluster info 127.0.0.1:%d", n[0].v.s.port);
    char line[64];
    snprintf(line, sizeof(line), "%ld keys in 3 masters.", acked);
    CHECK(rc == 0 && strstr(out, line), "info: %d %s", rc, out);
    CHECK(cc_count_lost(&cc, acked) == 0, "acknowledged keys lost after the tools");
done:
    cc_free(&cc);
out:
    for (int i = 0; i < 4; i++)
        if (n[i].v.c || (i < started && n[i].v.s.pid))
            node_stop(&n[i]);
}

/* Writes u:0 .. u:count-1 through cc; how many were acknowledged. */
static long cc_fill(struct cclient *cc, long count)
{
    char key[32], val[32];
    long acked = 0;
    for (long i = 0; i < count; i++) {
        u_pair(i, key, val);
        acked += cc_set(cc, key, val);
    }
    return acked;
}

/* `--cluster reshard` of slots slots from one node to another: exit 0. */
static int reshard(struct node *via, struct node *from, struct node *to, int slots)
{
    static char out[1 << 20];
    int rc = h_redis_cli(out, sizeof(out),
                       "--cluster reshard 127.0.0.1:%d --cluster-from %s --cluster-to %s "
                       "--cluster-slots %d --cluster-yes",
                       via->v.s.port, from->id, to->id, slots);
    return CHECK(rc == 0, "reshard %s -> %s: %d %s", from->id, to->id, rc, out);
}

/* 5. rbkv and redis-server primaries: slots and their keys move both ways. */
static void test_mixed_reshard(void)
{
    if (!have_redis_cli())
        return;
    nodes_on_tmpfs();
    struct node n[3];
    int ok, started = cluster_up(n, 3, 1, &ok);
    if (!ok)
        goto out;
    struct cclient cc;
    cc_init(&cc, n[0].v.s.port);
    long acked = cc_fill(&cc, 3000);
    CHECK(acked == 3000, "%ld of 3000 writes acknowledged", acked);
    int before_redis = slots_of(&n[1]), before_rbkv = slots_of(&n[0]);
    /* rbkv -> redis-server, then redis-server -> rbkv, then rbkv -> rbkv
     * through a Redis node. */
    if (reshard(&n[0], &n[0], &n[1], 1000))
        CHECK(slots_of(&n[1]) == before_redis + 1000 && slots_of(&n[0]) == before_rbkv - 1000,
              "after rbkv -> redis: %d %d", slots_of(&n[0]), slots_of(&n[1]));
    cluster_checks(&n[2]);
    CHECK(cc_count_lost(&cc, acked) == 0, "keys lost moving rbkv -> redis-server");
    if (reshard(&n[1], &n[1], &n[2], 2000))
        CHECK(slots_of(&n[1]) == before_redis - 1000, "after redis -> rbkv: %d",
              slots_of(&n[1]));
    cluster_checks(&n[0]);
    CHECK(cc_count_lost(&cc, acked) == 0, "keys lost moving redis-server -> rbkv");
    redisReply *r = H_CALL(n[1].v.c, "DBSIZE");
    long on_redis = r ? r->integer : -1;
    if (r)
        freeReplyObject(r);
    CHECK(on_redis > 0 && on_redis < acked, "redis-server holds %ld keys", on_redis);
    cc_free(&cc);
out:
    for (int i = 0; i < started; i++)
        node_stop(&n[i]);
}

/* 6. A live redis-server's keys into an rbkv cluster. */
static void test_import_from_redis(void)
{
    if (!have_redis_cli())
        return;
    nodes_on_tmpfs();
    struct node n[3];
    struct srv src;
    if (srv_start(&src, 1, NULL) != 0)
        return;
    int ok, started = cluster_up(n, 3, -1, &ok);
    if (!ok)
        goto out;
    struct cclient cc;
    cc_init(&cc, n[0].v.s.port);
    /* 2000 strings u:i = v:i, some with TTLs, and one key of each other
     * type; one key already in the cluster with another value. */
    h_fill(src.c, "x", 10); /* x:0 .. x:9 = x:0 .. x:9 */
    for (long i = 0; i < 2000; i += 100) {
        redisReply *r = NULL;
        for (long j = i; j < i + 100; j++) {
            char key[32], val[32];
            u_pair(j, key, val);
            if (j % 7)
                H_APPEND(src.c, "SET", key, val);
            else
                H_APPEND(src.c, "SET", key, val, "EX", "1000");
        }
        for (long j = i; j < i + 100; j++) {
            r = h_get_reply(src.c);
            if (r)
                freeReplyObject(r);
        }
    }
    EXPECT_INT(src.c, 3, "RPUSH", "{t}list", "a", "b", "c");
    EXPECT_INT(src.c, 1, "HSET", "{t}hash", "f", "v");
    EXPECT_INT(src.c, 2, "ZADD", "{t}zset", "1", "a", "2", "b");
    CHECK(cc_set(&cc, "u:5", "old"), "SET u:5 in the cluster");
    char out[65536];
    /* COPY and REPLACE: the source keeps its keys, the cluster's u:5 is
     * replaced. */
    int rc = h_redis_cli(out, sizeof(out),
                       "--cluster import 127.0.0.1:%d --cluster-from 127.0.0.1:%d "
                       "--cluster-copy --cluster-replace",
                       n[0].v.s.port, src.s.port);
    CHECK(rc == 0, "import --cluster-copy --cluster-replace: %d %s", rc, out);
    CHECK(cc_count_lost(&cc, 2000) == 0, "keys missing after the import");
    EXPECT_INT(src.c, 2013, "DBSIZE");
    redisReply *r = cc_call(&cc, 2, (const char *const[]){"TTL", "u:7"});
    CHECK(r && r->type == REDIS_REPLY_INTEGER && r->integer > 900 && r->integer <= 1000,
          "u:7's TTL: %lld", r ? r->integer : -99);
    if (r)
        freeReplyObject(r);
    r = cc_call(&cc, 4, (const char *const[]){"LRANGE", "{t}list", "0", "-1"});
    CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 3, "{t}list imported");
    if (r)
        freeReplyObject(r);
    CHECK(cc_has(&cc, "x:3", "x:3"), "x:3 imported");
    /* Without COPY the source is emptied; the keys now exist in the
     * cluster, so without REPLACE redis-cli reports each as an error and
     * leaves it in the source: use REPLACE. */
    /* Meanwhile the source takes writes: each lands in the cluster, or
     * stays in the source when written after the import went past it. */
    char args[256], path[400];
    snprintf(args, sizeof(args),
             "--cluster import 127.0.0.1:%d --cluster-from 127.0.0.1:%d --cluster-replace",
             n[1].v.s.port, src.s.port);
    snprintf(path, sizeof(path), "%s/import.out", n[1].v.s.dir);
    pid_t pid = h_redis_cli_spawn(path, args);
    int status = -1;
    long written = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        char key[32], val[32];
        snprintf(key, sizeof(key), "w:%ld", written);
        snprintf(val, sizeof(val), "x:%ld", written);
        redisReply *w = H_CALL(src.c, "SET", key, val);
        written += w && w->type == REDIS_REPLY_STATUS;
        if (w)
            freeReplyObject(w);
    }
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "import --cluster-replace: %d",
          status);
    long nowhere = 0, in_source = 0;
    for (long i = 0; i < written; i++) {
        char key[32], val[32];
        snprintf(key, sizeof(key), "w:%ld", i);
        snprintf(val, sizeof(val), "x:%ld", i);
        redisReply *g = H_CALL(src.c, "GET", key);
        int here = g && g->type == REDIS_REPLY_STRING && !strcmp(g->str, val);
        if (g)
            freeReplyObject(g);
        in_source += here;
        nowhere += !here && !cc_has(&cc, key, val);
    }
    printf("  %ld writes to the source during the import, %ld left there\n", written, in_source);
    CHECK(nowhere == 0, "%ld of %ld writes during the import are nowhere", nowhere, written);
    EXPECT_INT(src.c, in_source, "DBSIZE");
    CHECK(cc_count_lost(&cc, 2000) == 0, "keys missing after the second import");
    cluster_checks(&n[0]);
    cc_free(&cc);
out:
    for (int i = 0; i < started; i++)
        node_stop(&n[i]);
    srv_stop(&src);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_errors_side_by_side);
    H_RUN(test_migrate_kinds);
    H_RUN(test_idle_link_closed);
    H_RUN(test_reshard_under_load);
    H_RUN(test_mixed_reshard);
    H_RUN(test_import_from_redis);
    return h_finish();
}
