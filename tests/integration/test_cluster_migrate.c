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
    int rc = redis ? h_start_reference(&v->s, flags) : h_start(&v->s, flags);
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
    if (v->s.pid)
        h_stop(&v->s);
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

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_errors_side_by_side);
    H_RUN(test_migrate_kinds);
    H_RUN(test_idle_link_closed);
    return h_finish();
}
