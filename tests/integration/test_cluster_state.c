/*
 * test_cluster_state.c - end-to-end tests of cluster mode without the bus
 * (server/cluster/, server/commands/cmd_cluster.c): the CLUSTER commands
 * with Redis 7.0's replies and errors, nodes.conf written, reloaded and
 * refused, and redirection (MOVED, ASK, TRYAGAIN, CROSSSLOT, CLUSTERDOWN)
 * for plain commands, MULTI and EVAL. Node ids are random: the checks use
 * patterns or the id the node reports. Every expectation is Redis's: the
 * twin (integration_cluster_state_on_redis) runs this very program against
 * redis-server 7.0.15.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define ID_GLOB "*" /* a node id (h_glob knows only *) */
#define STATE_MS (15000 * H_SLOW) /* the writable and rejoin delays are 2 s and 5 s */

/* Three nodes' worth of slots: A (this node), B and C (never running). */
#define NODE_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define NODE_C "cccccccccccccccccccccccccccccccccccccccc"
#define NODE_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

/* Keys and their slots (CLUSTER KEYSLOT, checked below): "{b}" is A's,
 * "{9}" B's, "foo" C's. */
#define SLOT_OF_B_TAG "3300"
#define SLOT_OF_9_TAG "10106"

#define NODE_TIMEOUT "--cluster-node-timeout", "600000" /* no PFAIL of B and C */

/* The bus's port, given: Redis refuses a client port past 55535 without
 * one (port + 10000 must fit), and binds it. */
static char bus_port[8];
static const char *const cluster_flags[] = {"--cluster-enabled", "yes", "--cluster-config-file",
                                            "nodes-test.conf", NODE_TIMEOUT, "--cluster-port",
                                            bus_port, NULL};

static int pick_bus_port(void)
{
    int port = h_free_port();
    snprintf(bus_port, sizeof(bus_port), "%d", port);
    return CHECK(port > 0, "a free port for the bus") ? 0 : -1;
}

/* Waits for CLUSTER INFO's cluster_state to be want. */
static int wait_state(redisContext *c, const char *want)
{
    int64_t deadline = h_now_ms() + STATE_MS;
    char state[16] = "";
    do {
        redisReply *r = H_CALL(c, "CLUSTER", "INFO");
        if (r && (r->type == REDIS_REPLY_STRING))
            h_info_field(r->str, "cluster_state", state, sizeof(state));
        freeReplyObject(r);
        if (!strcmp(state, want))
            return 1;
        h_sleep_ms(50);
    } while (h_now_ms() < deadline);
    return CHECK(0, "cluster_state %s, want %s", state, want);
}

static void test_disabled(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
#define DISABLED "ERR This instance has cluster support disabled"
    EXPECT_ERR(c, DISABLED, "CLUSTER", "INFO");
    EXPECT_ERR(c, DISABLED, "CLUSTER", "HELP");
    EXPECT_ERR(c, DISABLED, "CLUSTER", "KEYSLOT", "a");
    EXPECT_ERR(c, DISABLED, "ASKING");
    EXPECT_ERR(c, DISABLED, "READONLY");
    EXPECT_ERR(c, DISABLED, "READWRITE");
    EXPECT_MATCH(c, "'*cluster_enabled:0*'", "INFO", "cluster");
    EXPECT_OK(c, "SELECT", "1");
    h_close(&s, c);
#undef DISABLED
}

/* One node, its slots given by hand: the commands' replies and errors. */
static void test_single_node(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, cluster_flags);
    if (!c)
        return;
    EXPECT_MATCH(c, "'*cluster_enabled:1*'", "INFO", "cluster");
    redisReply *r = H_CALL(c, "CLUSTER", "MYID");
    char me[41] = "";
    if (CHECK(r && r->type == REDIS_REPLY_STRING && r->len == 40, "CLUSTER MYID"))
        memcpy(me, r->str, 40);
    freeReplyObject(r);

    EXPECT_INT(c, 12182, "CLUSTER", "KEYSLOT", "foo");
    EXPECT_INT(c, 3300, "CLUSTER", "KEYSLOT", "{b}");
    EXPECT_INT(c, 10106, "CLUSTER", "KEYSLOT", "{9}");
    EXPECT_ERR(c, "CLUSTERDOWN Hash slot not served", "SET", "foo", "bar");
    EXPECT_OK(c, "CLUSTER", "ADDSLOTSRANGE", "0", "100");
    EXPECT_ERR(c, "ERR Slot 5 is already busy", "CLUSTER", "ADDSLOTS", "5");
    EXPECT_ERR(c, "ERR Invalid or out of range slot", "CLUSTER", "ADDSLOTS", "16384");
    EXPECT_ERR(c, "ERR Invalid or out of range slot", "CLUSTER", "ADDSLOTS", "x");
    EXPECT_ERR(c, "ERR Slot 200 specified multiple times", "CLUSTER", "ADDSLOTS", "200", "200");
    EXPECT_ERR(c, "ERR start slot number 300 is greater than end slot number 200", "CLUSTER",
               "ADDSLOTSRANGE", "300", "200");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'cluster|addslotsrange' command", "CLUSTER",
               "ADDSLOTSRANGE", "1", "2", "3");
    EXPECT_ERR(c, "ERR Slot 9000 is already unassigned", "CLUSTER", "DELSLOTS", "9000");
    EXPECT_ERR(c, "ERR Slot 0 specified multiple times", "CLUSTER", "DELSLOTSRANGE", "0", "1", "0",
               "1");
    EXPECT_ERR(c, "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP",
               "CLUSTER", "SETSLOT", "5", "bogus");
    EXPECT_ERR(c, "ERR I don't know about node abc", "CLUSTER", "SETSLOT", "5", "MIGRATING", "abc");
    EXPECT_ERR(c, "ERR I'm already the owner of hash slot 5", "CLUSTER", "SETSLOT", "5",
               "IMPORTING", "abc");
    EXPECT_ERR(c, "ERR Unknown node abc", "CLUSTER", "SETSLOT", "5", "NODE", "abc");
    EXPECT_ERR(c, "ERR I'm not the owner of hash slot 200", "CLUSTER", "SETSLOT", "200",
               "MIGRATING", me);
    EXPECT_ERR(c, "ERR Unknown node abc", "CLUSTER", "FORGET", "abc");
    EXPECT_ERR(c, "ERR I tried hard but I can't forget myself...", "CLUSTER", "FORGET", me);
    EXPECT_ERR(c, "ERR Unknown node abc", "CLUSTER", "COUNT-FAILURE-REPORTS", "abc");
    EXPECT_INT(c, 0, "CLUSTER", "COUNT-FAILURE-REPORTS", me);
    EXPECT_REPLY(c, "[]", "CLUSTER", "REPLICAS", me);
    EXPECT_ERR(c, "ERR syntax error", "CLUSTER", "RESET", "foo");
    EXPECT_ERR(c, "ERR Invalid config epoch specified: -1", "CLUSTER", "SET-CONFIG-EPOCH", "-1");
    EXPECT_OK(c, "CLUSTER", "SET-CONFIG-EPOCH", "5");
    EXPECT_ERR(c, "ERR Node config epoch is already non-zero", "CLUSTER", "SET-CONFIG-EPOCH", "6");
    EXPECT_STATUS(c, "STILL 5", "CLUSTER", "BUMPEPOCH");
    EXPECT_ERR(c, "ERR unknown subcommand 'nope'. Try CLUSTER HELP.", "CLUSTER", "nope");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'cluster|myid' command", "CLUSTER", "MYID",
               "x");

    /* The shapes, with this node's id and address. */
    char want[512];
    snprintf(want, sizeof(want), "'%s :%d@%s myself,master - 0 0 5 connected 0-100\\n'", me,
             s.port, bus_port);
    EXPECT_REPLY(c, want, "CLUSTER", "NODES");
    snprintf(want, sizeof(want), "[[:0, :100, ['', :%d, '%s', []]]]", s.port, me);
    EXPECT_REPLY(c, want, "CLUSTER", "SLOTS");
    snprintf(want, sizeof(want),
             "[['slots', [:0, :100], 'nodes', [['id', '%s', 'port', :%d, 'ip', '', 'endpoint', '', "
             "'role', 'master', 'replication-offset', :0, 'health', 'online']]]]",
             me, s.port);
    EXPECT_REPLY(c, want, "CLUSTER", "SHARDS");
    EXPECT_MATCH(c, "'cluster_state:fail\\r\\ncluster_slots_assigned:101\\r\\ncluster_slots_ok:101\\r\\n"
                    "cluster_slots_pfail:0\\r\\ncluster_slots_fail:0\\r\\ncluster_known_nodes:1\\r\\n"
                    "cluster_size:1\\r\\ncluster_current_epoch:5\\r\\ncluster_my_epoch:5\\r\\n*'",
                 "CLUSTER", "INFO");
    /* nodes.conf holds the same line and the epochs. */
    char path[400], line[512];
    h_path_in(&s, "nodes-test.conf", path, sizeof(path));
    size_t len = 0;
    char *file = h_read_file(path, &len);
    snprintf(line, sizeof(line), "%s :%d@%s myself,master - 0 0 5 connected 0-100\n"
             "vars currentEpoch 5 lastVoteEpoch 0\n", me, s.port, bus_port);
    CHECK(file && !strcmp(file, line), "nodes.conf: [%s], want [%s]", file ? file : "", line);
    free(file);

    /* Full coverage: the cluster comes up (after Redis's delays). */
    EXPECT_OK(c, "CLUSTER", "ADDSLOTSRANGE", "101", "16383");
    wait_state(c, "ok");
    EXPECT_OK(c, "SET", "foo", "bar");
    EXPECT_ERR(c, "CROSSSLOT Keys in request don't hash to the same slot", "MSET", "a", "1", "b",
               "2");
    EXPECT_OK(c, "MSET", "{a}1", "1", "{a}2", "2");
    EXPECT_ERR(c, "ERR SELECT is not allowed in cluster mode", "SELECT", "1");
    EXPECT_OK(c, "SELECT", "0");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SELECT", "x");
    EXPECT_ERR(c, "ERR MOVE is not allowed in cluster mode", "MOVE", "foo", "1");
    EXPECT_ERR(c, "ERR Copying to another database is not allowed in cluster mode", "COPY", "{a}1",
               "{a}3", "DB", "1");
    EXPECT_ERR(c, "ERR DB must be empty to perform CLUSTER FLUSHSLOTS.", "CLUSTER", "FLUSHSLOTS");
    EXPECT_ERR(c, "ERR CLUSTER RESET can't be called with master nodes containing keys", "CLUSTER",
               "RESET");
    EXPECT_OK(c, "FLUSHALL");
    EXPECT_OK(c, "CLUSTER", "FLUSHSLOTS");
    EXPECT_REPLY(c, "[]", "CLUSTER", "SLOTS");
    wait_state(c, "fail");
    EXPECT_ERR(c, "CLUSTERDOWN Hash slot not served", "GET", "foo");
    EXPECT_OK(c, "CLUSTER", "RESET", "HARD");
    EXPECT_MATCH(c, "'" ID_GLOB " :*@* myself,master - 0 0 0 connected\\n'", "CLUSTER", "NODES");
    r = H_CALL(c, "CLUSTER", "MYID");
    CHECK(r && r->type == REDIS_REPLY_STRING && strcmp(r->str, me), "RESET HARD: a new id");
    freeReplyObject(r);
    h_close(&s, c);
}

/* Writes a nodes.conf of three primaries into s's dir: this node A (its
 * address is refreshed at start), B and C on ports nobody listens on. */
static int write_three_nodes(const struct h_server *s, const char *name, const char *tail)
{
    char path[400];
    h_path_in(s, name, path, sizeof(path));
    FILE *f = fopen(path, "w");
    int ok = f && fprintf(f,
                          NODE_A " 127.0.0.1:1@2 myself,master - 0 0 1 connected 0-5460\n"
                          NODE_B " 127.0.0.1:7002@17002 master - 0 0 2 connected 5461-10922\n"
                          NODE_C " 127.0.0.1:7003@17003 master - 0 0 3 connected 10923-16383\n"
                          "%s",
                          tail) > 0;
    if (f && fclose(f) != 0)
        ok = 0;
    return CHECK(ok, "writing %s", path) ? 0 : -1;
}

/* A node started on a nodes.conf naming two others (not running): keys of
 * their slots are theirs; open slots redirect as Redis does. */
static void test_three_nodes(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, cluster_flags);
    if (!c)
        return;
    redisFree(c);
    h_stop(&s);
    if (write_three_nodes(&s, "nodes-test.conf", "vars currentEpoch 3 lastVoteEpoch 0\n") < 0)
        return;
    c = h_reopen(&s, cluster_flags);
    if (!c)
        return;
    EXPECT_BULK(c, NODE_A, "CLUSTER", "MYID");
    wait_state(c, "ok");
    EXPECT_MATCH(c, "'cluster_state:ok\\r\\ncluster_slots_assigned:16384\\r\\ncluster_slots_ok:16384\\r\\n"
                    "cluster_slots_pfail:0\\r\\ncluster_slots_fail:0\\r\\ncluster_known_nodes:3\\r\\n"
                    "cluster_size:3\\r\\ncluster_current_epoch:3\\r\\ncluster_my_epoch:1\\r\\n*'",
                 "CLUSTER", "INFO");
    EXPECT_ERR(c, "MOVED 12182 127.0.0.1:7003", "SET", "foo", "bar");
    EXPECT_ERR(c, "MOVED " SLOT_OF_9_TAG " 127.0.0.1:7002", "GET", "{9}");
    EXPECT_ERR(c, "CROSSSLOT Keys in request don't hash to the same slot", "MGET", "{b}", "foo");
    EXPECT_OK(c, "SET", "{b}here", "1");
    /* Inside MULTI: refused as queued (the transaction is doomed), and at
     * EXEC when the keys of the queue differ in slot. */
    EXPECT_OK(c, "MULTI");
    EXPECT_ERR(c, "MOVED 12182 127.0.0.1:7003", "GET", "foo");
    EXPECT_STATUS(c, "QUEUED", "GET", "{b}here");
    EXPECT_ERR(c, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    EXPECT_OK(c, "MULTI");
    EXPECT_STATUS(c, "QUEUED", "GET", "{b}here");
    EXPECT_REPLY(c, "['1']", "EXEC");
    /* EVAL's declared keys. */
    EXPECT_ERR(c, "CROSSSLOT Keys in request don't hash to the same slot", "EVAL", "return 1", "2",
               "{b}", "foo");
    EXPECT_ERR(c, "MOVED 12182 127.0.0.1:7003", "EVAL", "return 1", "1", "foo");
    EXPECT_INT(c, 1, "EVAL", "return 1", "1", "{b}");
    EXPECT_INT(c, 1, "EVAL", "return 1", "0");
    /* Shard channels are routed by their slots; plain channels are not. */
    EXPECT_ERR(c, "MOVED 12182 127.0.0.1:7003", "SPUBLISH", "foo", "x");
    EXPECT_INT(c, 0, "SPUBLISH", "{b}", "x");
    EXPECT_INT(c, 0, "PUBLISH", "foo", "x");

    /* A slot being migrated to B: a key still here is served, one that is
     * not is asked of B. */
    EXPECT_OK(c, "CLUSTER", "SETSLOT", SLOT_OF_B_TAG, "MIGRATING", NODE_B);
    EXPECT_BULK(c, "1", "GET", "{b}here");
    EXPECT_ERR(c, "ASK " SLOT_OF_B_TAG " 127.0.0.1:7002", "GET", "{b}gone");
    /* A slot being imported from C: MOVED, unless ASKING, for one command;
     * several keys not all here: TRYAGAIN. */
    EXPECT_OK(c, "CLUSTER", "SETSLOT", SLOT_OF_9_TAG, "IMPORTING", NODE_C);
    EXPECT_ERR(c, "MOVED " SLOT_OF_9_TAG " 127.0.0.1:7002", "GET", "{9}");
    EXPECT_OK(c, "ASKING");
    EXPECT_NIL(c, "GET", "{9}");
    EXPECT_ERR(c, "MOVED " SLOT_OF_9_TAG " 127.0.0.1:7002", "GET", "{9}");
    EXPECT_OK(c, "ASKING");
    EXPECT_ERR(c, "TRYAGAIN Multiple keys request during rehashing of slot", "MGET", "{9}a",
               "{9}b");
    EXPECT_OK(c, "ASKING");
    EXPECT_OK(c, "SET", "{9}a", "1");
    EXPECT_MATCH(c, "'*" NODE_A " 127.0.0.1:*@* myself,master - 0 0 1 connected 0-5460 [3300->-" NODE_B
                    "] [10106-<-" NODE_C "]\\n*'",
                 "CLUSTER", "NODES");
    /* B and C, known only from the file, have no link. */
    EXPECT_MATCH(c, "*" NODE_B " 127.0.0.1:7002@17002 master - * 0 2 disconnected 5461-10922\\n*",
                 "CLUSTER", "NODES");
    /* Restarted: the open slots and the map are kept. */
    redisFree(c);
    h_stop(&s);
    c = h_reopen(&s, cluster_flags);
    if (!c)
        return;
    EXPECT_MATCH(c, "'*" NODE_A " 127.0.0.1:*@* myself,master - 0 0 1 connected 0-5460 [3300->-" NODE_B
                    "] [10106-<-" NODE_C "]\\n*'",
                 "CLUSTER", "NODES");
    EXPECT_MATCH(c, "*" NODE_C " 127.0.0.1:7003@17003 master - * 0 3 disconnected 10923-16383\\n*",
                 "CLUSTER", "NODES");
    EXPECT_OK(c, "CLUSTER", "SETSLOT", SLOT_OF_9_TAG, "STABLE");
    EXPECT_OK(c, "CLUSTER", "FORGET", NODE_C);
    /* Forgotten, C's slots are nobody's. */
    EXPECT_ERR(c, "CLUSTERDOWN Hash slot not served", "GET", "foo");
    EXPECT_MATCH(c, "'cluster_state:fail\\r\\ncluster_slots_assigned:10923\\r\\n*'", "CLUSTER", "INFO");
    h_close(&s, c);
}

/* A nodes.conf cut short, or in use by a running node, stops the start. */
static void test_refused_files(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, cluster_flags);
    if (!c)
        return;
    char path[400];
    h_path_in(&s, "nodes-test.conf", path, sizeof(path));
    /* Locked by the running node. */
    CHECK(h_exec(&s, "locked.out", 10000 * H_SLOW,
                 H_FLAGS("--port", "0", "--cluster-enabled", "yes", "--cluster-config-file",
                         path)) != 0,
          "a second node on the same nodes.conf is refused");
    /* redis-server logs the same lines (checked by hand against 7.0.15);
     * its output does not reach the file here. */
    if (!h_is_reference())
        CHECK(h_file_has(&s, "locked.out", "is already used by a different Redis Cluster node"),
              "the refusal says the file is in use");
    h_close(&s, c);
    /* Cut in the middle of B's line: fewer than the eight fields. */
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(NODE_A " 127.0.0.1:1@2 myself,master - 0 0 1 connected 0-5460\n" NODE_B
                     " 127.0.0.1:70",
                     f) >= 0 && fclose(f) == 0,
          "writing a cut nodes.conf");
    CHECK(h_exec(&s, "cut.out", 10000 * H_SLOW,
                 H_FLAGS("--port", "0", "--cluster-enabled", "yes", "--cluster-config-file",
                         path)) != 0,
          "a cut nodes.conf is refused");
    if (!h_is_reference())
        CHECK(h_file_has(&s, "cut.out",
                         "Unrecoverable error: corrupted cluster config file"),
              "the refusal says the file is corrupt");
    if (!h_is_reference())
        CHECK(h_file_has(&s, "cut.out", "line 2: the file ends in the middle of this line"),
              "rbkv's refusal names the line");
    /* rbkv's refusals of lines that do not parse, each naming its line
     * (Redis aborts on some, reads others wrongly). */
    static const struct {
        const char *text, *want;
    } bad[] = {
        {NODE_A " 127.0.0.1:1@2 myself,bogus - 0 0 1 connected\n", "line 1: unknown flag in"},
        {NODE_A " 127.0.0.1:1@2 myself,master - 0 0 1 connected 0-99999\n",
         "line 1: bad slot range '0-99999'"},
        {NODE_A " 127.0.0.1:1@2 myself,master - 0 0 1 connected 5\n" NODE_B
                " 127.0.0.1:7002@17002 master - 0 0 2 connected 5\n",
         "line 2: slot claimed twice '5'"},
        {NODE_B " 127.0.0.1:7002@17002 master - 0 0 2 connected\n", "no node is flagged myself"},
        {"abc 127.0.0.1:1@2 myself,master - 0 0 1 connected\n", "line 1: bad node id 'abc'"},
        {NODE_A " 127.0.0.1:1@2 myself,master - 0 x 1 connected\n",
         "line 1: bad ping or pong time"},
    };
    for (size_t i = 0; !h_is_reference() && i < sizeof(bad) / sizeof(bad[0]); i++) {
        f = fopen(path, "w");
        CHECK(f && fputs(bad[i].text, f) >= 0 && fclose(f) == 0, "writing a bad nodes.conf");
        CHECK(h_exec(&s, "bad.out", 10000 * H_SLOW,
                     H_FLAGS("--port", "0", "--cluster-enabled", "yes", "--cluster-config-file",
                             path)) == 1,
              "bad nodes.conf %zu is refused", i);
        CHECK(h_file_has(&s, "bad.out", bad[i].want), "the refusal says: %s", bad[i].want);
    }
}

/* redis-cli's output for args on port, first line, into out. */
static void cli_line(int port, const char *args, char *out, size_t cap)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "redis-cli -c -h 127.0.0.1 -p %d %s 2>&1", port, args);
    out[0] = '\0';
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    if (fgets(out, (int)cap, p))
        out[strcspn(out, "\n")] = '\0';
    pclose(p);
}

/* Two nodes whose nodes.conf describe each other's slots, no bus between
 * them: redis-cli -c follows the MOVED one gives to the other. Y knows only
 * itself (its slots by hand, full coverage not required); X's file names
 * Y at its address. */
static void test_redis_cli_follows(void)
{
    if (system("command -v redis-cli >/dev/null 2>&1") != 0) {
        printf("  skipped: no redis-cli\n");
        return;
    }
    char ybus[8];
    snprintf(ybus, sizeof(ybus), "%d", h_free_port());
    struct h_server y, x;
    redisContext *cy = h_open(&y, H_FLAGS("--cluster-enabled", "yes", "--cluster-port", ybus,
                                          "--cluster-require-full-coverage", "no", NODE_TIMEOUT));
    if (!cy)
        return;
    EXPECT_OK(cy, "CLUSTER", "ADDSLOTSRANGE", "8192", "16383");
    redisReply *r = H_CALL(cy, "CLUSTER", "MYID");
    char yid[41] = "";
    if (CHECK(r && r->type == REDIS_REPLY_STRING && r->len == 40, "CLUSTER MYID"))
        memcpy(yid, r->str, 40);
    freeReplyObject(r);
    wait_state(cy, "ok");
    redisContext *cx = h_open(&x, cluster_flags);
    if (!cx)
        goto out;
    redisFree(cx);
    h_stop(&x);
    char path[400];
    h_path_in(&x, "nodes-test.conf", path, sizeof(path));
    FILE *f = fopen(path, "w");
    CHECK(f && fprintf(f, NODE_A " 127.0.0.1:1@2 myself,master - 0 0 1 connected 0-8191\n"
                          "%s 127.0.0.1:%d@%s master - 0 0 2 connected 8192-16383\n"
                          "vars currentEpoch 2 lastVoteEpoch 0\n", yid, y.port, ybus) > 0 &&
              fclose(f) == 0,
          "writing %s", path);
    cx = h_reopen(&x, cluster_flags);
    if (!cx)
        goto out;
    wait_state(cx, "ok");
    char want[64], got[128];
    snprintf(want, sizeof(want), "-MOVED 12182 127.0.0.1:%d", y.port);
    EXPECT_REPLY(cx, want, "GET", "foo");
    cli_line(x.port, "SET foo bar", got, sizeof(got));
    CHECK(!strcmp(got, "OK"), "redis-cli -c SET foo bar through X: [%s]", got);
    EXPECT_BULK(cy, "bar", "GET", "foo");
    cli_line(x.port, "GET foo", got, sizeof(got));
    CHECK(!strcmp(got, "bar"), "redis-cli -c GET foo through X: [%s]", got);
    h_close(&x, cx);
out:
    h_close(&y, cy);
}

/* COUNTKEYSINSLOT and GETKEYSINSLOT from the per-slot index, through
 * writes, deletes and a restart that loads the snapshot. */
static void test_keys_in_slot(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, cluster_flags);
    if (!c)
        return;
    EXPECT_OK(c, "CLUSTER", "ADDSLOTSRANGE", "0", "16383");
    if (!wait_state(c, "ok"))
        goto out;
    long long slot = H_INT_REPLY(c, "CLUSTER", "KEYSLOT", "{t}");
    char slot_s[16], key[32];
    snprintf(slot_s, sizeof(slot_s), "%lld", slot);
    for (int i = 0; i < 50; i++) {
        snprintf(key, sizeof(key), "{t}%d", i);
        EXPECT_OK(c, "SET", key, "v");
    }
    EXPECT_OK(c, "SET", "other", "v");
    EXPECT_INT(c, 50, "CLUSTER", "COUNTKEYSINSLOT", slot_s);
    EXPECT_MATCH(c, "['{t}*', '{t}*', '{t}*']", "CLUSTER", "GETKEYSINSLOT", slot_s, "3");
    redisReply *r = H_CALL(c, "CLUSTER", "GETKEYSINSLOT", slot_s, "100");
    int tagged = 0;
    if (CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 50, "GETKEYSINSLOT of 50 keys"))
        for (size_t i = 0; i < r->elements; i++)
            tagged += !strncmp(r->element[i]->str, "{t}", 3);
    CHECK(tagged == 50, "%d of the slot's keys carry its tag", tagged);
    freeReplyObject(r);
    EXPECT_INT(c, 5, "DEL", "{t}0", "{t}1", "{t}2", "{t}3", "{t}4");
    EXPECT_INT(c, 45, "CLUSTER", "COUNTKEYSINSLOT", slot_s);
    EXPECT_REPLY(c, "[]", "CLUSTER", "GETKEYSINSLOT", slot_s, "0");
    EXPECT_INT(c, 0, "CLUSTER", "COUNTKEYSINSLOT", "0");
    EXPECT_REPLY(c, "[]", "CLUSTER", "GETKEYSINSLOT", "0", "10");
    EXPECT_ERR(c, "ERR Invalid slot", "CLUSTER", "COUNTKEYSINSLOT", "16384");
    EXPECT_ERR(c, "ERR Invalid slot", "CLUSTER", "COUNTKEYSINSLOT", "-1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "CLUSTER", "COUNTKEYSINSLOT",
               "x");
    EXPECT_ERR(c, "ERR Invalid slot or number of keys", "CLUSTER", "GETKEYSINSLOT", slot_s, "-1");
    EXPECT_ERR(c, "ERR Invalid slot or number of keys", "CLUSTER", "GETKEYSINSLOT", "16384", "1");
    /* A restart loads the snapshot into the index. */
    EXPECT_OK(c, "SAVE");
    redisFree(c);
    h_stop(&s);
    c = h_reopen(&s, cluster_flags);
    if (!c)
        return;
    EXPECT_INT(c, 45, "CLUSTER", "COUNTKEYSINSLOT", slot_s);
out:
    h_close(&s, c);
}

/* The inode number of path, 0 when there is none. */
static unsigned long long inode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* Whether nodes.conf at path is exactly CLUSTER NODES then the vars line
 * of epoch 0 (a node alone, no vote cast). */
static int file_is_nodes(redisContext *c, const char *path)
{
    redisReply *r = H_CALL(c, "CLUSTER", "NODES");
    size_t len = 0;
    char *file = h_read_file(path, &len);
    char want[4096] = "";
    if (r && r->type == REDIS_REPLY_STRING)
        snprintf(want, sizeof(want), "%svars currentEpoch 0 lastVoteEpoch 0\n", r->str);
    int same = file && want[0] && !strcmp(file, want);
    CHECK(same, "nodes.conf: [%s], want [%s]", file ? file : "", want);
    free(file);
    freeReplyObject(r);
    return same;
}

/* rbkv's saves take turns between nodes.conf and <file>.spare (the version
 * before, rewritten in place by the next save, then renamed over the file):
 * each save leaves the file exactly the state and the spare the version
 * before; both stay locked; the spare goes at shutdown; leftovers of a
 * process that died are replaced. Redis 7.0 rewrites the file in place. */
static void test_spare_file(void)
{
    if (h_is_reference())
        return;
    struct h_server s;
    redisContext *c = h_open(&s, cluster_flags);
    if (!c)
        return;
    char path[400], spare[420], old[420];
    h_path_in(&s, "nodes-test.conf", path, sizeof(path));
    snprintf(spare, sizeof(spare), "%s.spare", path);
    snprintf(old, sizeof(old), "%s.old", path);
    /* Slots added one by one and taken back, so the text grows and shrinks:
     * a spare longer than the new text must be cut. */
    static const char *const steps[][2] = {{"ADDSLOTS", "7"},     {"ADDSLOTS", "9"},
                                           {"ADDSLOTSRANGE", "100"}, {"DELSLOTS", "9"},
                                           {"DELSLOTS", "7"},     {"ADDSLOTS", "16383"}};
    char *before = h_read_file(path, &(size_t){0});
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        unsigned long long file_ino = inode_of(path), spare_ino = inode_of(spare);
        CHECK(file_ino && spare_ino && file_ino != spare_ino, "step %zu: two files", i);
        redisReply *r = !strcmp(steps[i][0], "ADDSLOTSRANGE")
                            ? H_CALL(c, "CLUSTER", steps[i][0], steps[i][1], "200")
                            : H_CALL(c, "CLUSTER", steps[i][0], steps[i][1]);
        CHECK(r && r->type == REDIS_REPLY_STATUS, "step %zu: CLUSTER %s %s", i, steps[i][0],
              steps[i][1]);
        freeReplyObject(r);
        file_is_nodes(c, path);
        CHECK(inode_of(path) == spare_ino && inode_of(spare) == file_ino,
              "step %zu: the spare became the file and the file the spare", i);
        char *prev = h_read_file(spare, &(size_t){0});
        CHECK(before && prev && !strcmp(before, prev), "step %zu: the spare is the version before",
              i);
        free(before);
        before = h_read_file(path, &(size_t){0});
        free(prev);
    }
    free(before);
    CHECK(access(old, F_OK) != 0, "no second name is left after a save");
    /* Whichever inode holds the name is locked. */
    CHECK(h_exec(&s, "locked.out", 10000 * H_SLOW,
                 H_FLAGS("--port", "0", "--cluster-enabled", "yes", "--cluster-config-file",
                         path)) != 0,
          "a second node on the same nodes.conf is refused after the saves");
    h_close(&s, c);
    CHECK(access(spare, F_OK) != 0, "the spare goes at shutdown");

    /* Leftovers of a node killed in the middle of a save: a spare of
     * garbage and the old inode's second name. */
    FILE *f = fopen(spare, "w");
    CHECK(f && fputs("garbage\n", f) >= 0 && fclose(f) == 0, "writing a stale spare");
    CHECK(link(path, old) == 0, "a stale second name");
    c = h_reopen(&s, cluster_flags);
    if (!c)
        return;
    EXPECT_MATCH(c, "'*cluster_slots_assigned:102\\r\\n*'", "CLUSTER", "INFO");
    EXPECT_OK(c, "CLUSTER", "ADDSLOTS", "300");
    file_is_nodes(c, path);
    CHECK(access(old, F_OK) != 0, "the stale second name is gone");
    char *prev = h_read_file(spare, &(size_t){0});
    CHECK(prev && !strstr(prev, "garbage") && strstr(prev, " 100-200 16383\n"),
          "the spare is the version before: [%s]", prev ? prev : "");
    free(prev);
    h_close(&s, c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (pick_bus_port() < 0)
        return h_finish();
    H_RUN(test_disabled);
    H_RUN(test_single_node);
    H_RUN(test_keys_in_slot);
    H_RUN(test_three_nodes);
    H_RUN(test_refused_files);
    H_RUN(test_spare_file);
    H_RUN(test_redis_cli_follows);
    return h_finish();
}
