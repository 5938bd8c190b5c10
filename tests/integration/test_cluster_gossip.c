/*
 * test_cluster_gossip.c - the cluster bus's links end to end
 * (server/cluster/cluster_bus.c, cluster_gossip.c, cluster_failure.c):
 * real nodes on loopback, every wait a poll.
 *
 *  1. Three rbkv nodes set up as `redis-cli --cluster create` does (slots,
 *     SET-CONFIG-EPOCH, then MEET from one of them): every node learns every
 *     other through gossip, the handshakes end, all agree on CLUSTER NODES
 *     and SLOTS and reach cluster_state:ok; CLUSTER LINKS and the message
 *     counters of CLUSTER INFO are live; MEET's errors are Redis's; a node
 *     forgotten is not learnt again from gossip.
 *  2. Three rbkv nodes left at config epoch 0: the collision rule gives
 *     each its own. One is killed: the others flag it fail? then fail
 *     (failure reports counted), and the cluster fails; it restarts on new
 *     ports, the others learn its address and clear it, the cluster is ok.
 *  3. A mixed cluster, two rbkv and two redis-server 7.0.15 nodes, met from
 *     both kinds: all four agree on the nodes, slots and epochs and are ok;
 *     slots taken at a new epoch move on both kinds; a Redis replica joins
 *     and is listed as one by all; a killed rbkv node is
 *     failed by the others, Redis included, and cleared when it is back on
 *     new ports; a killed redis-server node is failed by the three others.
 *  4. Garbage on a bus port closes that link only; a MEET where nothing
 *     listens leaves a handshake that ends by itself.
 *  5. `redis-cli --cluster create` of three rbkv nodes, then `--cluster
 *     check`: both exit 0, every slot covered.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "harness_cluster.h"

#define NODE_TIMEOUT_MS 1000
#define WAIT_MS (30000 * H_SLOW)
#define MAX_NODES 5

static int cmp_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The cluster as n sees it, in a form every node shares: each node's id,
 * address, flags but "myself", primary, config epoch and slots, sorted; the
 * pings, pongs and link state, which are each node's own, left out. Also
 * counts the lines and whether any is in handshake or fail?/fail. */
struct view {
    char text[8192];
    int nodes, unsettled;
};

static void view_of(struct h_node *n, struct view *v)
{
    static char nodes[16384];
    h_call_text(n->c, nodes, sizeof(nodes), "CLUSTER NODES");
    char *lines[64] = {0};
    int count = 0;
    for (char *save = NULL, *line = strtok_r(nodes, "\n", &save); line && count < 64;
         line = strtok_r(NULL, "\n", &save)) {
        char *f[32];
        int nf = 0;
        for (char *s2 = NULL, *w = strtok_r(line, " ", &s2); w && nf < 32;
             w = strtok_r(NULL, " ", &s2))
            f[nf++] = w;
        if (nf < 8)
            continue;
        char *comma = strchr(f[1], ',');
        if (comma)
            *comma = '\0';
        const char *flags = f[2];
        if (!strncmp(flags, "myself,", 7))
            flags += 7;
        static char buf[64][512];
        int len = snprintf(buf[count], sizeof(buf[count]), "%s %s %s %s %s", f[0], f[1], flags,
                           f[3], f[6]);
        for (int i = 8; i < nf && len < 480; i++)
            len += snprintf(buf[count] + len, sizeof(buf[count]) - (size_t)len, " %s", f[i]);
        if (strstr(flags, "handshake") || strstr(flags, "fail") || strstr(flags, "noaddr"))
            v->unsettled++;
        lines[count] = buf[count];
        count++;
    }
    qsort(lines, (size_t)count, sizeof(lines[0]), cmp_lines);
    v->nodes = count;
    v->text[0] = '\0';
    size_t at = 0;
    for (int i = 0; i < count; i++)
        at += (size_t)snprintf(v->text + at, sizeof(v->text) - at, "%s\n", lines[i]);
}

/* Polls until every node of nodes[0..count) knows count nodes, none in
 * handshake or failing, all see the same, and (want_ok) each is ok. */
static int wait_agree(struct h_node *nodes, int count, int want_ok)
{
    static struct view v[MAX_NODES];
    int64_t deadline = h_now_ms() + WAIT_MS;
    for (;;) {
        int agree = 1;
        for (int i = 0; i < count; i++) {
            memset(&v[i], 0, sizeof(v[i]));
            view_of(&nodes[i], &v[i]);
            agree &= v[i].nodes == count && !v[i].unsettled && !strcmp(v[i].text, v[0].text) &&
                     (!want_ok || h_cluster_ok(&nodes[i]));
        }
        if (agree)
            return 1;
        if (h_now_ms() > deadline)
            break;
        h_sleep_ms(50);
    }
    for (int i = 0; i < count; i++)
        printf("node %d (%s, port %d) sees:\n%s", i, nodes[i].redis ? "redis" : "rbkv",
               nodes[i].s.port, v[i].text);
    return CHECK(0, "the nodes did not agree within %d ms", WAIT_MS);
}

/* Polls until n's CLUSTER NODES line of id shows flag ("fail?" "fail" as a
 * whole flag) or, with absent, no longer shows it. */
static int wait_flag(struct h_node *n, const char *id, const char *flag, int absent)
{
    int64_t deadline = h_now_ms() + WAIT_MS;
    char nodes[16384];
    while (h_now_ms() < deadline) {
        h_call_text(n->c, nodes, sizeof(nodes), "CLUSTER NODES");
        char *line = strstr(nodes, id);
        int has = 0;
        if (line) {
            char *end = strchr(line, '\n');
            if (end)
                *end = '\0';
            char flags[128] = "";
            if (sscanf(line, "%*s %*s %127s", flags) == 1) {
                char wrapped[140];
                snprintf(wrapped, sizeof(wrapped), ",%s,", flags);
                char want[32];
                snprintf(want, sizeof(want), ",%s,", flag);
                has = strstr(wrapped, want) != NULL;
            }
        }
        if (has != absent)
            return 1;
        h_sleep_ms(50);
    }
    return CHECK(0, "node on port %d: %s %s flag %s", n->s.port, id,
                 absent ? "still has" : "never got", flag);
}

static int wait_state(struct h_node *n, int ok)
{
    int64_t deadline = h_now_ms() + WAIT_MS;
    while (h_now_ms() < deadline) {
        if (h_cluster_ok(n) == ok)
            return 1;
        h_sleep_ms(50);
    }
    return CHECK(0, "node on port %d never became %s", n->s.port, ok ? "ok" : "fail");
}

static const char *const ranges[][2] = {{"0", "5460"}, {"5461", "10922"}, {"10923", "16383"}};
static const char *const ranges4[][2] = {
    {"0", "4095"}, {"4096", "8191"}, {"8192", "12287"}, {"12288", "16383"}};

/* MEETs every other node from nodes[from]. */
static void meet_all(struct h_node *nodes, int count, int from)
{
    for (int i = 0; i < count; i++) {
        if (i == from)
            continue;
        char port[8];
        snprintf(port, sizeof(port), "%d", nodes[i].s.port);
        EXPECT_OK(nodes[from].c, "CLUSTER", "MEET", "127.0.0.1", port, nodes[i].bus_port);
    }
}

/* cluster_stats_messages_received of n. */
static long long received(struct h_node *n)
{
    char info[4096];
    h_call_text(n->c, info, sizeof(info), "CLUSTER INFO");
    const char *at = strstr(info, "cluster_stats_messages_received:");
    return at ? atoll(at + strlen("cluster_stats_messages_received:")) : -1;
}

static void test_create_and_agree(void)
{
    struct h_node n[3];
    for (int i = 0; i < 3; i++)
        if (h_node_start(&n[i], 0, NODE_TIMEOUT_MS) != 0)
            return;
    for (int i = 0; i < 3; i++) {
        EXPECT_OK(n[i].c, "CLUSTER", "ADDSLOTSRANGE", ranges[i][0], ranges[i][1]);
        char epoch[4];
        snprintf(epoch, sizeof(epoch), "%d", i + 1);
        EXPECT_OK(n[i].c, "CLUSTER", "SET-CONFIG-EPOCH", epoch);
    }
    /* MEET's errors, as Redis's. */
    EXPECT_ERR(n[0].c, "ERR Invalid node address specified: nohost:7000", "CLUSTER", "MEET",
             "nohost", "7000");
    EXPECT_ERR(n[0].c, "ERR Invalid TCP base port specified: x", "CLUSTER", "MEET", "127.0.0.1",
             "x");
    EXPECT_ERR(n[0].c, "ERR Invalid TCP bus port specified: y", "CLUSTER", "MEET", "127.0.0.1",
             "7000", "y");
    EXPECT_ERR(n[0].c, "ERR Invalid node address specified: 127.0.0.1:70000", "CLUSTER", "MEET",
             "127.0.0.1", "70000");
    /* Node 0 meets node 1 only: node 2 comes to node 1 through gossip. */
    char port[8];
    snprintf(port, sizeof(port), "%d", n[1].s.port);
    EXPECT_OK(n[0].c, "CLUSTER", "MEET", "127.0.0.1", port, n[1].bus_port);
    snprintf(port, sizeof(port), "%d", n[2].s.port);
    EXPECT_OK(n[0].c, "CLUSTER", "MEET", "127.0.0.1", port, n[2].bus_port);
    if (wait_agree(n, 3, 1)) {
        /* Every node's slots known to all, as SLOTS shows them. */
        redisReply *r = redisCommand(n[0].c, "CLUSTER SLOTS");
        CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 3, "3 ranges in CLUSTER SLOTS");
        if (r)
            freeReplyObject(r);
        char info[4096];
        h_call_text(n[1].c, info, sizeof(info), "CLUSTER INFO");
        CHECK(strstr(info, "cluster_known_nodes:3\r\n") && strstr(info, "cluster_size:3\r\n") &&
                  strstr(info, "cluster_current_epoch:3\r\n") &&
                  strstr(info, "cluster_my_epoch:2\r\n") &&
                  strstr(info, "cluster_stats_messages_ping_sent:") &&
                  strstr(info, "cluster_stats_messages_pong_received:"),
              "CLUSTER INFO after the create: %s", info);
        /* Links both ways to each of the two others (an inbound link is
         * listed once a message on it named its sender: poll). */
        int64_t deadline = h_now_ms() + WAIT_MS;
        for (r = NULL;; h_sleep_ms(50)) {
            r = redisCommand(n[2].c, "CLUSTER LINKS");
            if ((r && r->type == REDIS_REPLY_ARRAY && r->elements == 4) || h_now_ms() > deadline)
                break;
            if (r)
                freeReplyObject(r);
        }
        CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 4, "CLUSTER LINKS: 4 links");
        if (r && r->type == REDIS_REPLY_ARRAY && r->elements) {
            redisReply *m = r->element[0];
            CHECK(m->elements == 12 && !strcmp(m->element[0]->str, "direction") &&
                      !strcmp(m->element[2]->str, "node") &&
                      !strcmp(m->element[4]->str, "create-time") &&
                      !strcmp(m->element[6]->str, "events") &&
                      !strcmp(m->element[8]->str, "send-buffer-allocated") &&
                      !strcmp(m->element[10]->str, "send-buffer-used"),
                  "CLUSTER LINKS' fields");
        }
        if (r)
            freeReplyObject(r);
        /* Keys route across the cluster: a MOVED names the owner. */
        EXPECT_MATCH(n[0].c, "-MOVED 12182 127.0.0.1:*", "SET", "foo", "bar");
        /* A node forgotten is not taken back from the others' gossip while
         * its ban lasts: node 0 hears node 1 gossip many times over. */
        char id2[41], nodes[8192];
        h_node_id(&n[2], id2);
        EXPECT_OK(n[0].c, "CLUSTER", "FORGET", id2);
        long long before = received(&n[0]), now = before;
        deadline = h_now_ms() + WAIT_MS;
        while ((now = received(&n[0])) < before + 30 && h_now_ms() < deadline)
            h_sleep_ms(50);
        h_call_text(n[0].c, nodes, sizeof(nodes), "CLUSTER NODES");
        CHECK(now >= before + 30 && !strstr(nodes, id2), "forgotten node back after %lld messages",
              now - before);
    }
    for (int i = 0; i < 3; i++)
        h_node_stop(&n[i]);
}

static int wait_count_reports(struct h_node *a, struct h_node *b, const char *id)
{
    int64_t deadline = h_now_ms() + WAIT_MS;
    while (h_now_ms() < deadline) {
        for (int k = 0; k < 2; k++) {
            redisReply *r =
                redisCommand((k ? b : a)->c, "CLUSTER COUNT-FAILURE-REPORTS %s", id);
            long long n = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
            if (r)
                freeReplyObject(r);
            if (n >= 1)
                return 1;
        }
        h_sleep_ms(20);
    }
    return CHECK(0, "no failure report seen on %s", id);
}

static void test_failure_detection(void)
{
    struct h_node n[3];
    for (int i = 0; i < 3; i++)
        if (h_node_start(&n[i], 0, NODE_TIMEOUT_MS) != 0)
            return;
    for (int i = 0; i < 3; i++)
        EXPECT_OK(n[i].c, "CLUSTER", "ADDSLOTSRANGE", ranges[i][0], ranges[i][1]);
    meet_all(n, 3, 0);
    /* All at config epoch 0: the collision rule must part them. */
    if (!wait_agree(n, 3, 1))
        goto out;
    char info[3][4096];
    for (int i = 0; i < 3; i++)
        h_call_text(n[i].c, info[i], sizeof(info[i]), "CLUSTER INFO");
    for (int i = 0; i < 3; i++) {
        const char *mine = strstr(info[i], "cluster_my_epoch:");
        for (int j = 0; mine && j < i; j++) {
            const char *other = strstr(info[j], "cluster_my_epoch:");
            CHECK(other && strncmp(mine, other, strcspn(mine, "\r")) != 0,
                  "nodes %d and %d share a config epoch", i, j);
        }
    }
    char id[41];
    h_node_id(&n[2], id);
    h_node_kill(&n[2]);
    wait_count_reports(&n[0], &n[1], id);
    wait_flag(&n[0], id, "fail", 0);
    wait_flag(&n[1], id, "fail", 0);
    wait_state(&n[0], 0);
    wait_state(&n[1], 0);
    /* Back, on new ports: the others learn its address from its pings and
     * clear its FAIL (a primary with slots: after twice the node timeout). */
    if (h_node_restart(&n[2], NODE_TIMEOUT_MS) != 0)
        goto out;
    wait_flag(&n[0], id, "fail", 1);
    wait_flag(&n[1], id, "fail", 1);
    wait_agree(n, 3, 1);
out:
    for (int i = 0; i < 3; i++)
        h_node_stop(&n[i]);
}

/* nodes[to] takes slot from nodes[from] as resharding ends: SETSLOT
 * IMPORTING, then SETSLOT NODE to itself, which takes a new config epoch
 * (no moment where the slot is free for the old owner's pings to claim
 * back); then every node must agree that nodes[to] serves it. */
static void take_slot(struct h_node *nodes, int count, int to, int from, const char *slot)
{
    char id[41], from_id[41], line[64];
    h_node_id(&nodes[to], id);
    h_node_id(&nodes[from], from_id);
    EXPECT_OK(nodes[to].c, "CLUSTER", "SETSLOT", slot, "IMPORTING", from_id);
    EXPECT_OK(nodes[to].c, "CLUSTER", "SETSLOT", slot, "NODE", id);
    if (!wait_agree(nodes, count, 1))
        return;
    struct view v = {0};
    view_of(&nodes[0], &v);
    const char *at = strstr(v.text, id);
    const char *end = at ? strchr(at, '\n') : NULL;
    snprintf(line, sizeof(line), " %s", slot);
    int found = 0;
    for (const char *p = at; p && end && (p = strstr(p, line)) && p < end; p++) {
        char after = p[strlen(line)];
        found |= after == ' ' || after == '\n' || after == '-';
    }
    CHECK(found, "slot %s served by node %d everywhere: %s", slot, to, v.text);
}

static void test_mixed_cluster(void)
{
    struct h_node n[5];
    int started = 0;
    /* Nodes 0 and 2 rbkv, 1 and 3 redis-server. */
    for (; started < 4; started++) {
        int rc = h_node_start(&n[started], started % 2, NODE_TIMEOUT_MS);
        if (rc == 1)
            printf("no redis-server: the mixed cluster is skipped\n");
        if (rc != 0)
            goto out;
    }
    for (int i = 0; i < 4; i++) {
        EXPECT_OK(n[i].c, "CLUSTER", "ADDSLOTSRANGE", ranges4[i][0], ranges4[i][1]);
        char epoch[4];
        snprintf(epoch, sizeof(epoch), "%d", i + 1);
        EXPECT_OK(n[i].c, "CLUSTER", "SET-CONFIG-EPOCH", epoch);
    }
    /* rbkv meets a Redis node and an rbkv node; Redis meets the last. */
    char port[8];
    snprintf(port, sizeof(port), "%d", n[1].s.port);
    EXPECT_OK(n[0].c, "CLUSTER", "MEET", "127.0.0.1", port, n[1].bus_port);
    snprintf(port, sizeof(port), "%d", n[2].s.port);
    EXPECT_OK(n[0].c, "CLUSTER", "MEET", "127.0.0.1", port, n[2].bus_port);
    snprintf(port, sizeof(port), "%d", n[3].s.port);
    EXPECT_OK(n[1].c, "CLUSTER", "MEET", "127.0.0.1", port, n[3].bus_port);
    if (!wait_agree(n, 4, 1))
        goto out;
    /* A slot taken at a new epoch reaches all, both ways: rbkv takes one
     * of Redis's, then Redis takes one of rbkv's. */
    take_slot(n, 4, 0, 3, "12288");
    take_slot(n, 4, 1, 0, "0");
    /* A Redis replica of a Redis primary: every node lists it as such. */
    int rc = h_node_start(&n[4], 1, NODE_TIMEOUT_MS);
    if (rc != 0)
        goto out;
    started = 5;
    char id1[41], port4[8];
    h_node_id(&n[1], id1);
    snprintf(port4, sizeof(port4), "%d", n[4].s.port);
    EXPECT_OK(n[0].c, "CLUSTER", "MEET", "127.0.0.1", port4, n[4].bus_port);
    int64_t known = h_now_ms() + WAIT_MS;
    char nodes4[8192];
    do {
        h_sleep_ms(50);
        h_call_text(n[4].c, nodes4, sizeof(nodes4), "CLUSTER NODES");
    } while (!strstr(nodes4, id1) && h_now_ms() < known);
    EXPECT_OK(n[4].c, "CLUSTER", "REPLICATE", id1);
    if (!wait_agree(n, 5, 1))
        goto out;
    struct view v = {0};
    view_of(&n[0], &v);
    char want[64];
    snprintf(want, sizeof(want), " slave %s ", id1);
    CHECK(strstr(v.text, want) != NULL, "rbkv lists the Redis replica: %s", v.text);
    /* An rbkv node dies: the Redis nodes, with the other rbkv one, fail
     * it; back on new ports, Redis takes its address and clears it. */
    char id2[41], id3[41];
    h_node_id(&n[2], id2);
    h_node_id(&n[3], id3);
    h_node_kill(&n[2]);
    for (int i = 0; i < 5; i++)
        if (i != 2)
            wait_flag(&n[i], id2, "fail", 0);
    wait_state(&n[1], 0);
    if (h_node_restart(&n[2], NODE_TIMEOUT_MS) != 0)
        goto out;
    for (int i = 0; i < 5; i++)
        if (i != 2)
            wait_flag(&n[i], id2, "fail", 1);
    if (!wait_agree(n, 5, 1))
        goto out;
    /* A Redis node dies: two rbkv and one Redis node fail it. */
    h_node_kill(&n[3]);
    for (int i = 0; i < 3; i++)
        wait_flag(&n[i], id3, "fail", 0);
    wait_state(&n[0], 0);
    wait_state(&n[1], 0);
out:
    for (int i = 0; i < started; i++)
        h_node_stop(&n[i]);
}

static void test_garbage_on_bus(void)
{
    struct h_node n[2];
    for (int i = 0; i < 2; i++)
        if (h_node_start(&n[i], 0, NODE_TIMEOUT_MS) != 0)
            return;
    meet_all(n, 2, 0);
    if (wait_agree(n, 2, 0)) {
        struct h_server bus = n[0].s;
        bus.port = atoi(n[0].bus_port);
        struct h_raw raw;
        if (h_raw_open(&raw, &bus) == 0) {
            static const char junk[] = "GET foo\r\nthis is not a cluster message at all\r\n";
            h_raw_send(&raw, junk, sizeof(junk) - 1);
            CHECK(h_raw_wait_closed(&raw, WAIT_MS) == 1, "garbage closes its link");
            h_raw_close(&raw);
        }
        /* The real links are untouched: the two still agree, and node 0
         * still answers its peer's pings. */
        char nodes[4096];
        h_call_text(n[0].c, nodes, sizeof(nodes), "CLUSTER NODES");
        CHECK(!strstr(nodes, "disconnected") && !strstr(nodes, "fail"),
              "links after garbage: %s", nodes);
        wait_agree(n, 2, 0);
        /* MEET where nothing listens: a handshake that ends by itself. */
        char port[8];
        snprintf(port, sizeof(port), "%d", h_free_port());
        EXPECT_OK(n[0].c, "CLUSTER", "MEET", "127.0.0.1", port, port);
        h_call_text(n[0].c, nodes, sizeof(nodes), "CLUSTER NODES");
        CHECK(strstr(nodes, "handshake") != NULL, "a handshake under way: %s", nodes);
        int64_t deadline = h_now_ms() + WAIT_MS;
        do {
            h_sleep_ms(50);
            h_call_text(n[0].c, nodes, sizeof(nodes), "CLUSTER NODES");
        } while (strstr(nodes, "handshake") && h_now_ms() < deadline);
        CHECK(!strstr(nodes, "handshake"), "the handshake never ended: %s", nodes);
        wait_agree(n, 2, 0);
    }
    for (int i = 0; i < 2; i++)
        h_node_stop(&n[i]);
}

/* The operator's way: `redis-cli --cluster create` of three rbkv nodes,
 * then `--cluster check`, both exit 0 and the check finds every slot. */
static void test_redis_cli_create(void)
{
    if (system("command -v redis-cli >/dev/null 2>&1") != 0) {
        printf("  skipped: no redis-cli\n");
        return;
    }
    struct h_node n[3];
    for (int i = 0; i < 3; i++)
        if (h_node_start(&n[i], 0, NODE_TIMEOUT_MS) != 0)
            return;
    char args[512], out[16384];
    snprintf(args, sizeof(args),
             "--cluster create 127.0.0.1:%d 127.0.0.1:%d 127.0.0.1:%d --cluster-yes", n[0].s.port,
             n[1].s.port, n[2].s.port);
    int rc = h_redis_cli(out, sizeof(out), "%s", args);
    CHECK(rc == 0 && strstr(out, "[OK] All 16384 slots covered."), "create: %d %s", rc, out);
    if (wait_agree(n, 3, 1)) {
        snprintf(args, sizeof(args), "--cluster check 127.0.0.1:%d", n[1].s.port);
        rc = h_redis_cli(out, sizeof(out), "%s", args);
        CHECK(rc == 0 && strstr(out, "[OK] All nodes agree about slots configuration.") &&
                  strstr(out, "[OK] All 16384 slots covered."),
              "check: %d %s", rc, out);
        snprintf(args, sizeof(args), "-c -p %d SET foo bar", n[0].s.port);
        rc = h_redis_cli(out, sizeof(out), "%s", args);
        CHECK(rc == 0 && !strcmp(out, "OK\n"), "redis-cli -c SET: %s", out);
    }
    for (int i = 0; i < 3; i++)
        h_node_stop(&n[i]);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_create_and_agree);
    H_RUN(test_garbage_on_bus);
    H_RUN(test_failure_detection);
    H_RUN(test_mixed_cluster);
    H_RUN(test_redis_cli_create);
    return h_finish();
}
