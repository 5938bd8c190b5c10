/*
 * test_cluster_script.c - the commands a script runs, checked against the
 * cluster as Redis 7.0.15's scriptVerifyClusterState checks them
 * (server/cluster/cluster_route.c's script hook), side by side with a
 * redis-server 7.0.15 node: each node a one-node cluster serving every
 * slot, the same scripts sent to both, the replies compared byte for byte.
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

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_scripts);
    return h_finish();
}
