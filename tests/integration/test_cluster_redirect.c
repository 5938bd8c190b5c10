/*
 * test_cluster_redirect.c - redirections beyond a request's own keys
 * (server/cluster/cluster_route.c), side by side with redis-server 7.0.15.
 *
 * Blocked clients (Redis 7.0's clusterRedirectBlockedClientIfNeeded), on
 * each kind of node: a BLPOP waiting on a key whose slot goes unserved is
 * answered -CLUSTERDOWN Hash slot not served; a BZPOPMIN waiting while the
 * cluster goes down, -CLUSTERDOWN The cluster is down; on a two-node
 * cluster, a BLPOP whose slot is given to the other node, -MOVED to it.
 *
 * Scripts: the commands a script runs, checked against the cluster as
 * Redis 7.0.15's scriptVerifyClusterState checks them: each node a one-node
 * cluster serving every slot, the same scripts sent to both, the replies
 * compared byte for byte.
 *
 *  - a script with a shebang (and every function) keeps to one slot, its
 *    declared keys' first: "Script attempted to access keys that do not
 *    hash to the same slot"; without a shebang, or with
 *    allow-cross-slot-keys, any slot of the node;
 *  - a command whose keys are in two slots, or in a slot the node does not
 *    serve: "Script attempted to access a non local key in a cluster node";
 *  - the cluster down: "... execute a command while the cluster is down",
 *    and with cluster-allow-reads-when-down yes, reads run and writes get
 *    "... execute a write command while the cluster is down and readonly".
 * Skips the comparison (and checks rbkv's texts alone) without redis-server.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "harness_cluster.h"

#define NODE_TIMEOUT_MS 1000
#define WAIT_MS (30000 * H_SLOW)

static int wait_state(struct h_node *n, const char *state)
{
    char want[64], info[4096];
    snprintf(want, sizeof(want), "cluster_state:%s", state);
    int64_t deadline = h_now_ms() + WAIT_MS;
    for (;;) {
        h_call_text(n->c, info, sizeof(info), "CLUSTER INFO");
        if (strstr(info, want))
            return 1;
        if (h_now_ms() > deadline)
            return CHECK(0, "node on port %d never became %s", n->s.port, state);
        h_sleep_ms(50);
    }
}

/* Sends the same command to rbkv (c) and, when there is one, Redis (r):
 * both replies must be equal; rbkv's must match want (glob) too. */
#define BOTH(want, ...)                                                                           \
    do {                                                                                          \
        if (r)                                                                                    \
            H_SAME(c, r, __VA_ARGS__);                                                            \
        else                                                                                      \
            EXPECT_MATCH(c, want, __VA_ARGS__);                                                   \
    } while (0)

static const char one_slot[] = "-ERR Script attempted to access keys that do not hash to the same "
                               "slot script: *";
static const char non_local[] =
    "-ERR Script attempted to access a non local key in a cluster node script: *";

static void test_scripts(void)
{
    struct h_node n[2];
    int started = 0;
    for (; started < 2; started++) {
        int rc = h_node_start(&n[started], started == 1, NODE_TIMEOUT_MS);
        if (rc == 1 && started == 1) {
            printf("no redis-server: rbkv's texts checked alone\n");
            break;
        }
        if (rc != 0)
            goto out;
    }
    for (int i = 0; i < started; i++)
        EXPECT_OK(n[i].c, "CLUSTER", "ADDSLOTSRANGE", "0", "16383");
    for (int i = 0; i < started; i++)
        if (!wait_state(&n[i], "ok"))
            goto out;
    redisContext *c = n[0].c, *r = started > 1 ? n[1].c : NULL;
    /* "a" is in slot 15495, "b" in 3300. */
    BOTH("+OK", "EVAL", "return redis.call('set', KEYS[1], 'x')", "1", "a");
    BOTH("+OK", "EVAL", "return redis.call('set', 'a', 'x')", "0");
    /* No shebang: any slot of this node. */
    BOTH("+OK", "EVAL", "redis.call('set', 'a', 'x'); return redis.call('set', 'b', 'x')", "0");
    BOTH("+OK", "EVAL", "return redis.call('set', 'b', 'x')", "1", "a");
    /* A shebang: one slot, the declared keys' first. */
    BOTH(one_slot, "EVAL", "#!lua\nredis.call('set', 'a', 'x'); return redis.call('set', 'b', 'x')",
         "0");
    BOTH(one_slot, "EVAL", "#!lua\nreturn redis.call('set', 'b', 'x')", "1", "a");
    BOTH("-ERR Script attempted to access keys that do not hash to the same slot", "EVAL",
         "#!lua\nreturn redis.pcall('set', 'b', 'x')", "1", "a");
    BOTH("+OK", "EVAL", "#!lua\nredis.call('set', 'a', 'x'); return redis.call('get', 'a')", "1",
         "a");
    BOTH("+OK", "EVAL",
         "#!lua flags=allow-cross-slot-keys\nredis.call('set', 'a', 'x'); return redis.call('set', "
         "'b', 'x')",
         "0");
    BOTH("+OK", "EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'b')", "1", "a");
    BOTH("'lib'", "FUNCTION", "LOAD",
         "#!lua name=lib\nredis.register_function('f', function(keys, args) redis.call('set', "
         "'a', 'x') return redis.call('set', 'b', 'x') end)");
    BOTH("-ERR Script attempted to access keys that do not hash to the same slot script: f, *",
         "FCALL", "f", "0");
    /* One command over two slots. */
    BOTH(non_local, "EVAL", "return redis.call('mset', 'a', 'x', 'b', 'y')", "0");
    BOTH(non_local, "EVAL", "#!lua\nreturn redis.call('mset', 'a', 'x', 'b', 'y')", "0");
    /* A slot nobody serves (the cluster stays ok without full coverage). */
    for (int i = 0; i < started; i++) {
        EXPECT_OK(n[i].c, "CONFIG", "SET", "cluster-require-full-coverage", "no");
        EXPECT_OK(n[i].c, "CLUSTER", "DELSLOTS", "15495");
    }
    BOTH(non_local, "EVAL", "return redis.call('set', 'a', 'x')", "0");
    BOTH("-ERR Script attempted to access a non local key in a cluster node", "EVAL",
         "return redis.pcall('get', 'a')", "0");
    BOTH(":1", "EVAL", "return 1", "0");
    /* The cluster down: a slot unserved under full coverage (DELSLOTS, not
     * CONFIG SET, has both kinds compute their state again). */
    for (int i = 0; i < started; i++) {
        EXPECT_OK(n[i].c, "CONFIG", "SET", "cluster-require-full-coverage", "yes");
        EXPECT_OK(n[i].c, "CLUSTER", "DELSLOTS", "0");
    }
    for (int i = 0; i < started; i++)
        if (!wait_state(&n[i], "fail"))
            goto out;
    BOTH("-ERR Script attempted to execute a command while the cluster is down script: *", "EVAL",
         "return redis.call('get', 'b')", "0");
    BOTH(":1", "EVAL", "return 1", "0");
    for (int i = 0; i < started; i++)
        EXPECT_OK(n[i].c, "CONFIG", "SET", "cluster-allow-reads-when-down", "yes");
    BOTH("'x'", "EVAL", "return redis.call('get', 'b')", "0");
    BOTH("-ERR Script attempted to execute a write command while the cluster is down and readonly "
         "script: *",
         "EVAL", "return redis.call('set', 'b', 'y')", "0");
    BOTH("'x'", "EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'b')", "0");
out:
    for (int i = 0; i < started; i++)
        h_node_stop(&n[i]);
}

/* One node of a kind (redis) serving every slot: blocked clients are told
 * when their slot goes unserved or the cluster goes down. */
static void blocked_on(int redis)
{
    struct h_node n;
    int rc = h_node_start(&n, redis, NODE_TIMEOUT_MS);
    if (rc == 1)
        printf("no redis-server: skipped on Redis\n");
    if (rc != 0)
        return;
    redisContext *b = h_connect(&n.s);
    EXPECT_OK(n.c, "CLUSTER", "ADDSLOTSRANGE", "0", "16383");
    if (!b || !wait_state(&n, "ok"))
        goto out;
    EXPECT_OK(n.c, "CONFIG", "SET", "cluster-require-full-coverage", "no");
    /* "a" is in slot 15495. */
    H_SEND(b, "BLPOP", "a", "0");
    h_wait_blocked(n.c, 1, WAIT_MS);
    EXPECT_OK(n.c, "CLUSTER", "DELSLOTS", "15495");
    EXPECT_NEXT(b, "-CLUSTERDOWN Hash slot not served");
    h_wait_blocked(n.c, 0, WAIT_MS);
    EXPECT_OK(n.c, "CLUSTER", "ADDSLOTS", "15495");
    /* The cluster down: a slot unserved under full coverage. */
    H_SEND(b, "BZPOPMIN", "z", "0");
    h_wait_blocked(n.c, 1, WAIT_MS);
    EXPECT_OK(n.c, "CONFIG", "SET", "cluster-require-full-coverage", "yes");
    EXPECT_OK(n.c, "CLUSTER", "DELSLOTS", "0");
    EXPECT_NEXT(b, "-CLUSTERDOWN The cluster is down");
    h_wait_blocked(n.c, 0, WAIT_MS);
    /* The client is served as before once the cluster is back. */
    EXPECT_OK(n.c, "CLUSTER", "ADDSLOTS", "0");
    if (wait_state(&n, "ok"))
        EXPECT_REPLY(b, "(nil)", "BLPOP", "a", "0.01");
out:
    redisFree(b);
    h_node_stop(&n);
}

static void test_blocked(void)
{
    blocked_on(0);
    blocked_on(1);
}

/* Two nodes of a kind: the first serves every slot and gives "a"'s to the
 * second while a client waits on "a": -MOVED to the second. */
static void moved_on(int redis)
{
    struct h_node n[2];
    int started = 0;
    redisContext *b = NULL;
    for (; started < 2; started++) {
        int rc = h_node_start(&n[started], redis, NODE_TIMEOUT_MS);
        if (rc == 1)
            printf("no redis-server: skipped on Redis\n");
        if (rc != 0)
            goto out;
    }
    EXPECT_OK(n[0].c, "CLUSTER", "ADDSLOTSRANGE", "0", "16383");
    char port[8], id1[41], want[64];
    snprintf(port, sizeof(port), "%d", n[1].s.port);
    EXPECT_OK(n[0].c, "CLUSTER", "MEET", "127.0.0.1", port, n[1].bus_port);
    h_node_id(&n[1], id1);
    for (int i = 0; i < 2; i++)
        if (!wait_state(&n[i], "ok"))
            goto out;
    b = h_connect(&n[0].s);
    if (!b)
        goto out;
    H_SEND(b, "BLPOP", "a", "0");
    h_wait_blocked(n[0].c, 1, WAIT_MS);
    EXPECT_OK(n[0].c, "CLUSTER", "SETSLOT", "15495", "NODE", id1);
    snprintf(want, sizeof(want), "-MOVED 15495 127.0.0.1:%d", n[1].s.port);
    EXPECT_NEXT(b, want);
    h_wait_blocked(n[0].c, 0, WAIT_MS);
out:
    redisFree(b);
    for (int i = 0; i < started; i++)
        h_node_stop(&n[i]);
}

static void test_blocked_moved(void)
{
    moved_on(0);
    moved_on(1);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_blocked);
    H_RUN(test_blocked_moved);
    H_RUN(test_scripts);
    return h_finish();
}
