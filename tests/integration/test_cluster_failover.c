/*
 * test_cluster_failover.c - replicas and failover in cluster mode
 * (server/cluster/cluster_failover.c): real nodes on loopback, every wait a
 * poll with a deadline.
 *
 *  1. `redis-cli --cluster create --cluster-replicas 1` of six rbkv nodes:
 *     three primaries, three replicas replicating; `--cluster check` exits 0
 *     with every slot covered; CLUSTER REPLICAS names the replica; a replica
 *     answers reads after READONLY and MOVED before; CLUSTER REPLICATE's and
 *     FAILOVER's errors are Redis's.
 *  2. Keys written to a primary and acknowledged by WAIT 1, then kill -9 of
 *     that primary: its replica is elected (the other primaries vote), owns
 *     the slots, takes writes and holds every key; the killed node,
 *     restarted with its nodes.conf, comes back as the new primary's
 *     replica, with the keys.
 *  3. CLUSTER FAILOVER, FORCE and TAKEOVER each swap the two roles of that
 *     shard; a key acknowledged before each is still there.
 *  4. Replica migration: a primary left without a working replica gets one
 *     from the primary that has two; a primary that gives its last slot away
 *     by SETSLOT ... NODE becomes the receiver's replica.
 *  5. Mixed: redis-server 7.0.15 primaries elect an rbkv replica of a killed
 *     rbkv primary; rbkv primaries elect a redis-server replica of a killed
 *     redis-server primary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "harness_cluster.h"

#define NODE_TIMEOUT_MS 1000
#define WAIT_MS (60000 * H_SLOW)
#define KEYS 300

static int64_t deadline(void)
{
    return h_now_ms() + WAIT_MS;
}

/* The flags word of n's myself line ("myself,master", "myself,slave") and
 * its primary's id ("-" for none), from CLUSTER NODES. */
static void my_role(struct h_node *n, char *flags, char *primary)
{
    static char nodes[16384];
    flags[0] = primary[0] = '\0';
    h_call_text(n->c, nodes, sizeof(nodes), "CLUSTER NODES");
    for (char *save = NULL, *line = strtok_r(nodes, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char id[64], addr[128], f[128], p[64];
        if (sscanf(line, "%63s %127s %127s %63s", id, addr, f, p) == 4 && strstr(f, "myself")) {
            strcpy(flags, f);
            strcpy(primary, p);
            return;
        }
    }
}

static int is_primary(struct h_node *n)
{
    char flags[128], primary[64];
    my_role(n, flags, primary);
    return strstr(flags, "master") != NULL;
}

/* n replicates from the node named id: its line says so and its link is up. */
static int replicates(struct h_node *n, const char *id)
{
    char flags[128], primary[64], info[4096];
    my_role(n, flags, primary);
    if (!strstr(flags, "slave") || strcmp(primary, id))
        return 0;
    h_call_text(n->c, info, sizeof(info), "INFO replication");
    return strstr(info, "master_link_status:up") != NULL;
}

/* How many lines of n's CLUSTER NODES hold word, and whether any is
 * unsettled (handshake, fail?, fail). */
static int count_lines(struct h_node *n, const char *word, int *unsettled)
{
    static char nodes[16384];
    h_call_text(n->c, nodes, sizeof(nodes), "CLUSTER NODES");
    int count = 0;
    *unsettled = 0;
    for (char *save = NULL, *line = strtok_r(nodes, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        count += strstr(line, word) != NULL;
        *unsettled |= strstr(line, "handshake") || strstr(line, "fail");
    }
    return count;
}

/* Until every node of n[0..count) knows count nodes, primaries of them, all
 * settled and ok. */
static int wait_settled(struct h_node *n, int count, int primaries)
{
    int64_t until = deadline();
    for (;;) {
        int ok = 1;
        for (int i = 0; i < count && ok; i++) {
            int unsettled;
            ok = count_lines(&n[i], " ", &unsettled) == count && !unsettled &&
                 count_lines(&n[i], "master", &unsettled) == primaries && h_cluster_ok(&n[i]);
        }
        if (ok)
            return 1;
        if (h_now_ms() > until)
            return 0;
        h_sleep_ms(100);
    }
}

/* A hash tag whose slot n serves: the first "{t<i>}" n takes a SET of. */
static int tag_of(struct h_node *n, char *tag, size_t cap)
{
    for (int i = 0; i < 10000; i++) {
        snprintf(tag, cap, "{t%d}", i);
        redisReply *r = redisCommand(n->c, "SET %sprobe 1", tag);
        int ok = r && r->type == REDIS_REPLY_STATUS;
        if (r)
            freeReplyObject(r);
        if (ok)
            return 0;
    }
    return -1;
}

/* Writes KEYS keys of tag to n (value = key) and returns WAIT 1's count. */
static long long write_acked(struct h_node *n, const char *tag, const char *prefix)
{
    for (int i = 0; i < KEYS; i++) {
        redisReply *r = redisCommand(n->c, "SET %s%s%d %s%s%d", tag, prefix, i, tag, prefix, i);
        if (r)
            freeReplyObject(r);
    }
    redisReply *r = redisCommand(n->c, "WAIT 1 %d", 10000 * H_SLOW);
    long long acked = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
    if (r)
        freeReplyObject(r);
    return acked;
}

/* How many of write_acked's keys n holds (reading as a replica may). */
static int keys_present(struct h_node *n, const char *tag, const char *prefix)
{
    redisReply *r = redisCommand(n->c, "READONLY");
    if (r)
        freeReplyObject(r);
    int present = 0;
    for (int i = 0; i < KEYS; i++) {
        char want[64];
        snprintf(want, sizeof(want), "%s%s%d", tag, prefix, i);
        r = redisCommand(n->c, "GET %s", want);
        present += r && r->type == REDIS_REPLY_STRING && !strcmp(r->str, want);
        if (r)
            freeReplyObject(r);
    }
    return present;
}

/* The node of n[0..count) that replicates from the one named id, or -1. */
static int replica_of(struct h_node *n, int count, const char *id)
{
    for (int i = 0; i < count; i++) {
        char flags[128], primary[64];
        my_role(&n[i], flags, primary);
        if (strstr(flags, "slave") && !strcmp(primary, id))
            return i;
    }
    return -1;
}

/* Until n's line of the node named id says master (and holds slots). */
static int wait_seen_primary(struct h_node *n, const char *id, const char *slots)
{
    static char nodes[16384];
    int64_t until = deadline();
    for (;;) {
        h_call_text(n->c, nodes, sizeof(nodes), "CLUSTER NODES");
        char *line = strstr(nodes, id);
        char *end = line ? strchr(line, '\n') : NULL;
        if (end)
            *end = '\0';
        if (line && strstr(line, "master") && strstr(line, slots))
            return 1;
        if (h_now_ms() > until) {
            printf("  %s\n", line ? line : nodes);
            return 0;
        }
        h_sleep_ms(50);
    }
}

static int wait_primary(struct h_node *n)
{
    int64_t until = deadline();
    while (!is_primary(n) || !h_cluster_ok(n)) {
        if (h_now_ms() > until)
            return 0;
        h_sleep_ms(50);
    }
    return 1;
}

static int wait_replicates(struct h_node *n, const char *id)
{
    int64_t until = deadline();
    while (!replicates(n, id)) {
        if (h_now_ms() > until)
            return 0;
        h_sleep_ms(50);
    }
    return 1;
}

static int have_redis_cli(void)
{
    if (system("command -v redis-cli >/dev/null 2>&1") == 0)
        return 1;
    printf("  skipped: no redis-cli\n");
    return 0;
}

/* Six rbkv nodes made a cluster by redis-cli, each replica's link up. */
static int create_six(struct h_node *n)
{
    for (int i = 0; i < 6; i++)
        if (h_node_start(&n[i], 0, NODE_TIMEOUT_MS) != 0)
            return -1;
    char args[512], out[16384];
    int len = snprintf(args, sizeof(args), "--cluster create");
    for (int i = 0; i < 6; i++)
        len += snprintf(args + len, sizeof(args) - (size_t)len, " 127.0.0.1:%d", n[i].s.port);
    snprintf(args + len, sizeof(args) - (size_t)len, " --cluster-replicas 1 --cluster-yes");
    int rc = h_redis_cli(out, sizeof(out), "%s", args);
    CHECK(rc == 0 && strstr(out, "[OK] All 16384 slots covered."), "create: %d %s", rc, out);
    CHECK(wait_settled(n, 6, 3), "six nodes, three primaries, all ok");
    for (int i = 0; i < 6; i++) {
        char flags[128], primary[64];
        my_role(&n[i], flags, primary);
        if (strstr(flags, "slave"))
            CHECK(wait_replicates(&n[i], primary), "node %d replicates from %s", i, primary);
    }
    return rc == 0 ? 0 : -1;
}

static void stop_all(struct h_node *n, int count)
{
    for (int i = 0; i < count; i++)
        h_node_stop(&n[i]);
}

/* create_six, then a primary *p, its replica *r and a tag of p's slots
 * (32 bytes). Returns 0, or -1 with every node stopped. */
static int six_with_shard(struct h_node *n, int *p, int *r, char *tag)
{
    if (!have_redis_cli())
        return -1;
    memset(n, 0, 6 * sizeof(*n));
    if (create_six(n) == 0) {
        char pid[41];
        *p = is_primary(&n[0]) ? 0 : 1;
        h_node_id(&n[*p], pid);
        *r = replica_of(n, 6, pid);
        CHECK(*r >= 0 && tag_of(&n[*p], tag, 32) == 0, "a replica and a tag");
        if (*r >= 0)
            return 0;
    }
    stop_all(n, 6);
    return -1;
}

static void test_replicas(void)
{
    struct h_node n[6];
    int p, r;
    char pid[41], rid[41], tag[32];
    if (six_with_shard(n, &p, &r, tag) < 0)
        return;
    char args[256], out[16384];
    snprintf(args, sizeof(args), "--cluster check 127.0.0.1:%d", n[0].s.port);
    int rc = h_redis_cli(out, sizeof(out), "%s", args);
    CHECK(rc == 0 && strstr(out, "[OK] All 16384 slots covered.") && strstr(out, "| 1 slaves."),
          "check: %d %s", rc, out);
    h_node_id(&n[p], pid);
    h_node_id(&n[r], rid);
    /* CLUSTER REPLICAS and SLAVES: the replica's CLUSTER NODES line. */
    redisReply *rep = redisCommand(n[p].c, "CLUSTER REPLICAS %s", pid);
    CHECK(rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 1 &&
              !strncmp(rep->element[0]->str, rid, 40) && strstr(rep->element[0]->str, "slave"),
          "CLUSTER REPLICAS");
    if (rep)
        freeReplyObject(rep);
    rep = redisCommand(n[r].c, "CLUSTER SLAVES %s", pid);
    CHECK(rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 1, "CLUSTER SLAVES");
    if (rep)
        freeReplyObject(rep);
    /* Reads on the replica: MOVED, then served after READONLY. */
    CHECK(write_acked(&n[p], tag, "r") == 1, "WAIT 1 on the primary");
    char key[64];
    snprintf(key, sizeof(key), "%sr7", tag);
    EXPECT_MATCH(n[r].c, "-MOVED *", "GET", key);
    EXPECT_OK(n[r].c, "READONLY");
    CHECK(keys_present(&n[r], tag, "r") == KEYS, "the replica serves reads after READONLY");
    EXPECT_MATCH(n[r].c, "-MOVED *", "SET", key, "x");
    EXPECT_OK(n[r].c, "READWRITE");
    EXPECT_MATCH(n[r].c, "-MOVED *", "GET", key);
    /* Redis's errors. */
    EXPECT_ERR(n[p].c, "ERR Can't replicate myself", "CLUSTER", "REPLICATE", pid);
    EXPECT_ERR(n[p].c, "ERR I can only replicate a master, not a replica.", "CLUSTER",
               "REPLICATE", rid);
    char other[41];
    int q = 0;
    while (q < 6 && (q == p || !is_primary(&n[q])))
        q++;
    h_node_id(&n[q], other);
    EXPECT_ERR(n[p].c, "ERR To set a master the node must be empty and without assigned slots.",
               "CLUSTER", "REPLICATE", other);
    EXPECT_ERR(n[p].c, "ERR You should send CLUSTER FAILOVER to a replica", "CLUSTER",
               "FAILOVER");
    EXPECT_ERR(n[r].c, "ERR syntax error", "CLUSTER", "FAILOVER", "SOON");
    EXPECT_ERR(n[r].c, "ERR REPLICAOF not allowed in cluster mode.", "REPLICAOF", "NO", "ONE");
    stop_all(n, 6);
}

static void test_kill_primary(void)
{
    struct h_node n[6];
    int p, r;
    char rid[41], tag[32];
    if (six_with_shard(n, &p, &r, tag) < 0)
        return;
    h_node_id(&n[r], rid);
    CHECK(write_acked(&n[p], tag, "k") == 1, "WAIT 1 acknowledged the writes");
    int64_t killed = h_now_ms();
    h_node_kill(&n[p]);
    CHECK(wait_primary(&n[r]), "the replica was elected");
    printf("  promoted %lld ms after kill -9\n", (long long)(h_now_ms() - killed));
    char key[64];
    snprintf(key, sizeof(key), "%safter", tag);
    EXPECT_OK(n[r].c, "SET", key, "1");
    CHECK(keys_present(&n[r], tag, "k") == KEYS, "every acknowledged write survived");
    /* Every other node sees the new primary. */
    for (int i = 0; i < 6; i++)
        if (i != p)
            CHECK(wait_seen_primary(&n[i], rid, ""), "node %d sees the new primary", i);
    /* The killed node comes back with its nodes.conf as a replica. */
    CHECK(h_node_restart(&n[p], NODE_TIMEOUT_MS) == 0, "restart");
    CHECK(wait_replicates(&n[p], rid), "the old primary replicates from the new one");
    CHECK(keys_present(&n[p], tag, "k") == KEYS, "the old primary holds the keys");
    stop_all(n, 6);
}

/* One manual failover on replica r of primary p: roles swap, a key acked
 * before is there after. */
static void swap_roles(struct h_node *n, int p, int r, const char *how, const char *tag)
{
    char pid[41], rid[41];
    h_node_id(&n[p], pid);
    h_node_id(&n[r], rid);
    CHECK(write_acked(&n[p], tag, how) == 1, "%s: WAIT 1", how);
    if (*how)
        EXPECT_OK(n[r].c, "CLUSTER", "FAILOVER", how);
    else
        EXPECT_OK(n[r].c, "CLUSTER", "FAILOVER");
    CHECK(wait_primary(&n[r]), "%s: the replica became primary", how[0] ? how : "FAILOVER");
    CHECK(wait_replicates(&n[p], rid), "%s: the primary became its replica",
          how[0] ? how : "FAILOVER");
    CHECK(keys_present(&n[r], tag, how) == KEYS, "%s: the keys are there", how);
    /* The next manual failover's votes need every primary to know the
     * new roles: a voter that still takes the candidate for a primary
     * refuses it (as Redis's would). */
    CHECK(wait_settled(n, 6, 3), "%s: every node knows the new roles", how);
}

static void test_manual_failover(void)
{
    struct h_node n[6];
    int p, r;
    char tag[32];
    if (six_with_shard(n, &p, &r, tag) < 0)
        return;
    swap_roles(n, p, r, "", tag);
    swap_roles(n, r, p, "FORCE", tag);
    swap_roles(n, p, r, "TAKEOVER", tag);
    char args[256], out[16384];
    snprintf(args, sizeof(args), "--cluster check 127.0.0.1:%d", n[p].s.port);
    CHECK(wait_settled(n, 6, 3), "settled after the failovers");
    int rc = h_redis_cli(out, sizeof(out), "%s", args);
    CHECK(rc == 0 && strstr(out, "[OK] All 16384 slots covered."), "check: %d %s", rc, out);
    stop_all(n, 6);
}

/* A seventh node made a second replica of primary p; then the replica of
 * another primary is killed: one of p's two replicas migrates to the
 * orphaned primary. */
static void test_replica_migration(void)
{
    struct h_node n[7];
    int p, r;
    char tag[32], pid[41], qid[41];
    if (six_with_shard(n, &p, &r, tag) < 0)
        return;
    int q = 0;
    while (q < 6 && (q == p || !is_primary(&n[q])))
        q++;
    h_node_id(&n[p], pid);
    h_node_id(&n[q], qid);
    int rq = replica_of(n, 6, qid);
    CHECK(rq >= 0, "primary %d has a replica", q);
    if (rq >= 0 && h_node_start(&n[6], 0, NODE_TIMEOUT_MS) == 0) {
        char port[8];
        snprintf(port, sizeof(port), "%d", n[6].s.port);
        EXPECT_OK(n[0].c, "CLUSTER", "MEET", "127.0.0.1", port, n[6].bus_port);
        int64_t until = deadline();
        int unsettled = 1;
        while ((count_lines(&n[6], " ", &unsettled) != 7 || unsettled) && h_now_ms() < until)
            h_sleep_ms(50);
        EXPECT_OK(n[6].c, "CLUSTER", "REPLICATE", pid);
        CHECK(wait_replicates(&n[6], pid), "the seventh node replicates from %d", p);
        CHECK(wait_settled(n, 7, 3), "seven nodes settled");
        h_node_kill(&n[rq]);
        int64_t killed = h_now_ms();
        int moved = -1;
        while (moved < 0 && h_now_ms() < until + WAIT_MS) {
            if (replicates(&n[r], qid))
                moved = r;
            else if (replicates(&n[6], qid))
                moved = 6;
            else
                h_sleep_ms(100);
        }
        CHECK(moved >= 0, "a replica of %d migrated to the orphaned primary %d", p, q);
        printf("  migrated %lld ms after the kill\n", (long long)(h_now_ms() - killed));
        if (moved >= 0)
            CHECK(replicates(&n[moved == r ? 6 : r], pid), "the other stayed with %d", p);
        h_node_stop(&n[6]);
    }
    stop_all(n, 6);
}

/* A primary that gives its only slot away by SETSLOT ... NODE becomes a
 * replica of the node it gave it to. */
static void test_setslot_last_slot(void)
{
    struct h_node n[2];
    memset(n, 0, sizeof(n));
    if (h_node_start(&n[0], 0, NODE_TIMEOUT_MS) == 0 &&
        h_node_start(&n[1], 0, NODE_TIMEOUT_MS) == 0) {
        EXPECT_OK(n[0].c, "CLUSTER", "ADDSLOTSRANGE", "0", "0");
        EXPECT_OK(n[0].c, "CLUSTER", "SET-CONFIG-EPOCH", "1");
        EXPECT_OK(n[1].c, "CLUSTER", "ADDSLOTSRANGE", "1", "16383");
        EXPECT_OK(n[1].c, "CLUSTER", "SET-CONFIG-EPOCH", "2");
        char port[8], id1[41];
        snprintf(port, sizeof(port), "%d", n[1].s.port);
        EXPECT_OK(n[0].c, "CLUSTER", "MEET", "127.0.0.1", port, n[1].bus_port);
        CHECK(wait_settled(n, 2, 2), "two primaries");
        h_node_id(&n[1], id1);
        /* The giver first: once the receiver claims the slot at its greater
         * epoch, the bus alone would take it from the giver (and make it a
         * replica) before its SETSLOT. */
        EXPECT_OK(n[0].c, "CLUSTER", "SETSLOT", "0", "NODE", id1);
        EXPECT_OK(n[1].c, "CLUSTER", "SETSLOT", "0", "NODE", id1);
        CHECK(wait_replicates(&n[0], id1), "the node without slots replicates from the other");
        CHECK(wait_settled(n, 2, 1), "one primary, one replica");
        /* A cluster node's primary is nodes.conf's, never a replicaof line. */
        EXPECT_OK(n[0].c, "CONFIG", "REWRITE");
        CHECK(h_file_has(&n[0].s, "server.conf", "cluster-enabled yes") &&
                  !h_file_has(&n[0].s, "server.conf", "replicaof"),
              "CONFIG REWRITE writes no replicaof in cluster mode");
    }
    stop_all(n, 2);
}

/* Primaries 0-2 (kinds[i]: 1 for redis-server) each given a third of the
 * slots and their own config epoch, met from node 0; node 3, of kind
 * kinds[3], made replica of node 0. */
static int build_mixed(struct h_node *n, const int *kinds)
{
    for (int i = 0; i < 4; i++) {
        int rc = h_node_start(&n[i], kinds[i], NODE_TIMEOUT_MS);
        if (rc != 0)
            return rc;
    }
    static const int ranges[3][2] = {{0, 5460}, {5461, 10922}, {10923, 16383}};
    for (int i = 0; i < 3; i++) {
        char lo[8], hi[8], epoch[8];
        snprintf(lo, sizeof(lo), "%d", ranges[i][0]);
        snprintf(hi, sizeof(hi), "%d", ranges[i][1]);
        snprintf(epoch, sizeof(epoch), "%d", i + 1);
        EXPECT_OK(n[i].c, "CLUSTER", "ADDSLOTSRANGE", lo, hi);
        EXPECT_OK(n[i].c, "CLUSTER", "SET-CONFIG-EPOCH", epoch);
    }
    for (int i = 1; i < 4; i++) {
        char port[8];
        snprintf(port, sizeof(port), "%d", n[i].s.port);
        EXPECT_OK(n[0].c, "CLUSTER", "MEET", "127.0.0.1", port, n[i].bus_port);
    }
    if (!wait_settled(n, 4, 4)) {
        CHECK(0, "the four nodes never agreed");
        return -1;
    }
    char pid[41];
    h_node_id(&n[0], pid);
    EXPECT_OK(n[3].c, "CLUSTER", "REPLICATE", pid);
    if (!wait_replicates(&n[3], pid) || !wait_settled(n, 4, 3)) {
        CHECK(0, "the replica never settled");
        return -1;
    }
    return 0;
}

/* kinds: the three primaries' and the replica's; the primary 0 is killed,
 * the two others elect the replica. */
static void mixed_election(const int *kinds)
{
    struct h_node n[4];
    memset(n, 0, sizeof(n));
    int rc = build_mixed(n, kinds);
    if (rc == 1) {
        printf("  skipped: no redis-server\n");
    } else if (rc == 0) {
        char tag[32], rid[41];
        h_node_id(&n[3], rid);
        CHECK(tag_of(&n[0], tag, sizeof(tag)) == 0, "a tag of the primary");
        CHECK(write_acked(&n[0], tag, "m") == 1, "WAIT 1");
        h_node_kill(&n[0]);
        CHECK(wait_primary(&n[3]), "the replica was elected");
        for (int i = 1; i < 3; i++)
            CHECK(wait_seen_primary(&n[i], rid, " 0-5460"), "voter %d sees the new primary", i);
        CHECK(keys_present(&n[3], tag, "m") == KEYS, "the keys survived");
    }
    for (int i = 0; i < 4; i++)
        if (n[i].s.pid)
            h_node_stop(&n[i]);
}

static void test_mixed_rbkv_candidate(void)
{
    static const int kinds[4] = {0, 1, 1, 0};
    mixed_election(kinds);
}

static void test_mixed_redis_candidate(void)
{
    static const int kinds[4] = {1, 0, 0, 1};
    mixed_election(kinds);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_replicas);
    H_RUN(test_kill_primary);
    H_RUN(test_manual_failover);
    H_RUN(test_replica_migration);
    H_RUN(test_setslot_last_slot);
    H_RUN(test_mixed_rbkv_candidate);
    H_RUN(test_mixed_redis_candidate);
    return h_finish();
}
