/*
 * test_cluster_pubsub.c - pub/sub across a cluster over the bus
 * (server/cluster/cluster_pubsub.c), as Redis 7.0: real nodes on loopback,
 * every wait a poll.
 *
 *  1. Three rbkv primaries and an rbkv replica of the first: a PUBLISH sent
 *     to node A reaches a subscriber of node B and a pattern subscriber of
 *     node C, exactly once (a replica gets it from the bus, not also from
 *     the replication stream); PUBLISH's reply and PUBSUB NUMSUB count this
 *     node's subscribers only; a channel's SSUBSCRIBE on the replica gets
 *     the SPUBLISH sent to its primary, and an SPUBLISH to a replica
 *     reaches its primary's subscribers; a node of another shard answers
 *     SSUBSCRIBE with -MOVED.
 *  2. A mixed cluster, rbkv and redis-server 7.0.15 primaries: a PUBLISH
 *     crosses from rbkv to Redis and from Redis to rbkv.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "harness_cluster.h"

#define NODE_TIMEOUT_MS 1000
#define WAIT_MS (30000 * H_SLOW)

static const char *const ranges[][2] = {{"0", "5460"}, {"5461", "10922"}, {"10923", "16383"}};

/* Whether n knows count nodes, every other one with its link connected,
 * and says cluster_state:ok. */
static int settled(struct h_node *n, int count)
{
    char nodes[8192];
    h_call_text(n->c, nodes, sizeof(nodes), "CLUSTER NODES");
    int lines = 0, connected = 0;
    for (const char *p = nodes; *p; p++) {
        const char *end = strchr(p, '\n');
        if (!end)
            break;
        lines++;
        char line[1024];
        size_t len = (size_t)(end - p) < sizeof(line) - 1 ? (size_t)(end - p) : sizeof(line) - 1;
        memcpy(line, p, len);
        line[len] = 0;
        connected += strstr(line, "myself") || (strstr(line, " connected") &&
                                                !strstr(line, "handshake") && !strstr(line, "fail"));
        p = end;
    }
    return lines == count && connected == count && h_cluster_ok(n);
}

static int wait_settled(struct h_node *nodes, int count)
{
    int64_t deadline = h_now_ms() + WAIT_MS;
    for (;;) {
        int all = 1;
        for (int i = 0; i < count && all; i++)
            all = settled(&nodes[i], count);
        if (all)
            return 1;
        if (h_now_ms() > deadline)
            return CHECK(0, "the cluster of %d nodes never settled", count);
        h_sleep_ms(50);
    }
}

/* Primaries 0..count-1 with a third of the slots each at epochs 1..count,
 * met from node 0 (count is 3). */
static int form(struct h_node *n, int count)
{
    for (int i = 0; i < count; i++) {
        EXPECT_OK(n[i].c, "CLUSTER", "ADDSLOTSRANGE", ranges[i][0], ranges[i][1]);
        char epoch[16];
        snprintf(epoch, sizeof(epoch), "%d", i + 1);
        EXPECT_OK(n[i].c, "CLUSTER", "SET-CONFIG-EPOCH", epoch);
    }
    for (int i = 1; i < count; i++) {
        char port[8];
        snprintf(port, sizeof(port), "%d", n[i].s.port);
        EXPECT_OK(n[0].c, "CLUSTER", "MEET", "127.0.0.1", port, n[i].bus_port);
    }
    return wait_settled(n, count);
}

/* A subscriber of n: cmd (SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE) to name,
 * whose confirmation is want. */
static redisContext *subscriber(struct h_node *n, const char *cmd, const char *name,
                                const char *want)
{
    redisContext *c = h_connect(&n->s);
    if (c)
        EXPECT_REPLY(c, want, cmd, name);
    return c;
}

/* A shard channel whose slot is in [lo, hi]: "sch<i>" for the first i that
 * fits. */
static void shard_channel(struct h_node *n, long long lo, long long hi, char *out, size_t cap)
{
    for (int i = 0; i < 100000; i++) {
        snprintf(out, cap, "sch%d", i);
        redisReply *r = redisCommand(n->c, "CLUSTER KEYSLOT %s", out);
        long long slot = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
        freeReplyObject(r);
        if (slot >= lo && slot <= hi)
            return;
    }
    CHECK(0, "no shard channel in slots %lld-%lld", lo, hi);
}

static void test_rbkv_cluster(void)
{
    struct h_node n[4];
    int started = 0;
    redisContext *sub_b = NULL, *psub_c = NULL, *sub_r = NULL, *ssub_r = NULL, *ssub_a = NULL;
    for (; started < 4; started++)
        if (h_node_start(&n[started], 0, NODE_TIMEOUT_MS) != 0)
            goto out;
    if (!form(n, 3))
        goto out;
    /* Node 3 joins as the replica of node 0. */
    char id0[41], port[8];
    h_node_id(&n[0], id0);
    snprintf(port, sizeof(port), "%d", n[3].s.port);
    EXPECT_OK(n[0].c, "CLUSTER", "MEET", "127.0.0.1", port, n[3].bus_port);
    if (!wait_settled(n, 4))
        goto out;
    EXPECT_OK(n[3].c, "CLUSTER", "REPLICATE", id0);
    int64_t deadline = h_now_ms() + WAIT_MS;
    char nodes[8192];
    for (;;) {
        h_call_text(n[1].c, nodes, sizeof(nodes), "CLUSTER NODES");
        if (strstr(nodes, " slave ") || h_now_ms() > deadline)
            break;
        h_sleep_ms(50);
    }
    CHECK(strstr(nodes, " slave ") != NULL, "the replica is known as one: %s", nodes);
    /* Its replication link up: a PUBLISH could come both ways now. */
    char repl[4096];
    do {
        h_sleep_ms(50);
        h_call_text(n[3].c, repl, sizeof(repl), "INFO replication");
    } while (!strstr(repl, "master_link_status:up") && h_now_ms() < deadline);
    CHECK(strstr(repl, "master_link_status:up") != NULL, "the replica's link: %s", repl);
    if (!wait_settled(n, 4))
        goto out;

    /* PUBLISH on A reaches B's subscriber, C's pattern and the replica's
     * subscriber; the reply counts A's own subscribers (none). */
    sub_b = subscriber(&n[1], "SUBSCRIBE", "news", "['subscribe', 'news', :1]");
    psub_c = subscriber(&n[2], "PSUBSCRIBE", "ne*", "['psubscribe', 'ne*', :1]");
    sub_r = subscriber(&n[3], "SUBSCRIBE", "news", "['subscribe', 'news', :1]");
    if (!sub_b || !psub_c || !sub_r)
        goto out;
    EXPECT_INT(n[0].c, 0, "PUBLISH", "news", "hello");
    EXPECT_NEXT(sub_b, "['message', 'news', 'hello']");
    EXPECT_NEXT(psub_c, "['pmessage', 'ne*', 'news', 'hello']");
    EXPECT_NEXT(sub_r, "['message', 'news', 'hello']");
    /* Once each: the next message each sees is the next one published. */
    EXPECT_INT(n[2].c, 1, "PUBLISH", "news", "second");
    EXPECT_NEXT(sub_b, "['message', 'news', 'second']");
    EXPECT_NEXT(psub_c, "['pmessage', 'ne*', 'news', 'second']");
    EXPECT_NEXT(sub_r, "['message', 'news', 'second']");
    /* From B: B's subscriber counts in the reply; A's counts nowhere. */
    EXPECT_INT(n[1].c, 1, "PUBLISH", "news", "third");
    EXPECT_NEXT(sub_b, "['message', 'news', 'third']");
    EXPECT_NEXT(sub_r, "['message', 'news', 'third']");
    EXPECT_NEXT(psub_c, "['pmessage', 'ne*', 'news', 'third']");
    /* PUBSUB NUMSUB and NUMPAT stay per node, as in Redis. */
    EXPECT_REPLY(n[0].c, "['news', :0]", "PUBSUB", "NUMSUB", "news");
    EXPECT_REPLY(n[1].c, "['news', :1]", "PUBSUB", "NUMSUB", "news");
    EXPECT_INT(n[0].c, 0, "PUBSUB", "NUMPAT");
    EXPECT_INT(n[2].c, 1, "PUBSUB", "NUMPAT");

    /* SPUBLISH: a shard channel of node 0's slots, subscribed on its
     * replica (no READONLY needed, as Redis) and on node 0 itself. */
    char sch[32], want[96];
    shard_channel(&n[0], 0, 5460, sch, sizeof(sch));
    snprintf(want, sizeof(want), "['ssubscribe', '%s', :1]", sch);
    ssub_r = subscriber(&n[3], "SSUBSCRIBE", sch, want);
    ssub_a = subscriber(&n[0], "SSUBSCRIBE", sch, want);
    if (!ssub_r || !ssub_a)
        goto out;
    EXPECT_INT(n[0].c, 1, "SPUBLISH", sch, "s1");
    snprintf(want, sizeof(want), "['smessage', '%s', 's1']", sch);
    EXPECT_NEXT(ssub_r, want);
    EXPECT_NEXT(ssub_a, want);
    /* From the replica: the primary's subscriber gets it too. */
    EXPECT_INT(n[3].c, 1, "SPUBLISH", sch, "s2");
    snprintf(want, sizeof(want), "['smessage', '%s', 's2']", sch);
    EXPECT_NEXT(ssub_a, want);
    EXPECT_NEXT(ssub_r, want);
    /* Another shard's node redirects; a PUBLISH on the same name is no
     * shard message. */
    redisReply *r = redisCommand(n[1].c, "SSUBSCRIBE %s", sch);
    CHECK(r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "MOVED ", 6),
          "SSUBSCRIBE on another shard: %s", r && r->str ? r->str : "(no reply)");
    freeReplyObject(r);
    EXPECT_INT(n[0].c, 0, "PUBLISH", sch, "plain");
    EXPECT_INT(n[0].c, 1, "SPUBLISH", sch, "s3");
    snprintf(want, sizeof(want), "['smessage', '%s', 's3']", sch);
    EXPECT_NEXT(ssub_r, want);
    EXPECT_NEXT(ssub_a, want);
    /* The bus counts the messages both ways. */
    char info[4096];
    h_call_text(n[0].c, info, sizeof(info), "CLUSTER INFO");
    CHECK(strstr(info, "cluster_stats_messages_publish_sent:") &&
              strstr(info, "cluster_stats_messages_publish_received:") &&
              strstr(info, "cluster_stats_messages_publishshard_sent:"),
          "CLUSTER INFO counts publishes: %s", info);
out:
    redisFree(sub_b);
    redisFree(psub_c);
    redisFree(sub_r);
    redisFree(ssub_r);
    redisFree(ssub_a);
    /* The replica first: a primary would wait for it at shutdown. */
    for (int i = started - 1; i >= 0; i--)
        h_node_stop(&n[i]);
}

static void test_mixed_cluster(void)
{
    struct h_node n[3];
    int started = 0;
    redisContext *sub[3] = {NULL, NULL, NULL};
    /* Nodes 0 and 2 rbkv, 1 redis-server. */
    for (; started < 3; started++) {
        int rc = h_node_start(&n[started], started == 1, NODE_TIMEOUT_MS);
        if (rc == 1)
            printf("no redis-server: the mixed cluster is skipped\n");
        if (rc != 0)
            goto out;
    }
    if (!form(n, 3))
        goto out;
    for (int i = 0; i < 3; i++)
        if (!(sub[i] = subscriber(&n[i], "SUBSCRIBE", "mix", "['subscribe', 'mix', :1]")))
            goto out;
    /* rbkv to Redis and rbkv. */
    EXPECT_INT(n[0].c, 1, "PUBLISH", "mix", "from-rbkv");
    for (int i = 0; i < 3; i++)
        EXPECT_NEXT(sub[i], "['message', 'mix', 'from-rbkv']");
    /* Redis to both rbkv nodes. */
    EXPECT_INT(n[1].c, 1, "PUBLISH", "mix", "from-redis");
    for (int i = 0; i < 3; i++)
        EXPECT_NEXT(sub[i], "['message', 'mix', 'from-redis']");
    /* A binary message of some size crosses intact. */
    char big[70000];
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (char)(i * 7);
    redisReply *r = redisCommand(n[2].c, "PUBLISH mix %b", big, sizeof(big));
    CHECK(r && r->type == REDIS_REPLY_INTEGER && r->integer == 1, "PUBLISH of 70000 bytes");
    freeReplyObject(r);
    for (int i = 0; i < 3; i++) {
        r = h_get_reply(sub[i]);
        CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 3 &&
                  r->element[2]->len == sizeof(big) &&
                  !memcmp(r->element[2]->str, big, sizeof(big)),
              "node %d got the 70000 bytes intact", i);
        freeReplyObject(r);
    }
out:
    for (int i = 0; i < 3; i++)
        redisFree(sub[i]);
    for (int i = 0; i < started; i++)
        h_node_stop(&n[i]);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_rbkv_cluster);
    H_RUN(test_mixed_cluster);
    return h_finish();
}
