/*
 * test_cluster_ksplit_big.c - KSPLIT across the cluster
 * (server/cluster/cluster_ksplit.c) over more than a million keys: three
 * rbkv primaries made by `redis-cli --cluster create` and one standalone
 * node hold the same 1,100,000 keys (loaded with `rbkv-cli -c load` and
 * `rbkv-cli load`). Each KSPLIT sent to a primary answers the bytes of
 * the standalone node's, in the number of rounds docs/cluster.md gives
 * ("KSPLIT across the cluster"), counted as the KLOCAL every round sends
 * each primary first (INFO commandstats):
 *  - a span of at most 1,048,576 keys (c / 1,024 <= 1,024) split into a
 *    few parts: at most 3 rounds (count and sample, count, list; 2 when
 *    every count lands on a split key);
 *  - the 1,100,000 keys: 2 to 5, a window still over 1,024 keys after
 *    the first count costs a sample and a count round more;
 *  - a densely split span (n - 1 >= c / 256): 2 rounds (count, listing).
 * No key is written or moved while the queries run, so every reply is
 * exactly one node's. The rbkv-cli used to load is RBKV_CLI_BIN.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "harness_cluster.h"

#define NPRIMARIES 3
#define NODE_TIMEOUT_MS 5000
#define NKEYS 1100000

static struct h_node nodes[NPRIMARIES];
static struct h_server model;

/* Runs RBKV_CLI_BIN -p port [-c] load path. Returns its exit status. */
static int load(int port, int cluster, const char *path)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "%s -p %d %s load %s", RBKV_CLI_BIN, port, cluster ? "-c" : "",
             path);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* KLOCAL calls on node i so far. */
static long long klocals(int i)
{
    char text[256];
    long long n = 0;
    if (h_info_str(nodes[i].c, "commandstats", "cmdstat_klocal", text, sizeof(text)) == 0)
        sscanf(text, "calls=%lld", &n);
    return n;
}

/* KSPLIT args on primary at, and on the model: the same reply. Returns the
 * rounds it took, the KLOCALs each primary got (the same on each), or -1. */
static int ksplit_rounds(redisContext *mc, int at, const char *const *args, int argc)
{
    const char *argv[8] = {"KSPLIT"};
    for (int i = 0; i < argc; i++)
        argv[1 + i] = args[i];
    long long before[NPRIMARIES];
    for (int i = 0; i < NPRIMARIES; i++)
        before[i] = klocals(i);
    if (!h_same(__FILE__, __LINE__, nodes[at].c, mc, argc + 1, argv, NULL))
        return -1;
    long long rounds = klocals(0) - before[0];
    for (int i = 1; i < NPRIMARIES; i++)
        if (!CHECK(klocals(i) - before[i] == rounds, "KSPLIT %s: %lld KLOCALs on node 0, %lld on %d",
                   args[0], rounds, klocals(i) - before[i], i))
            return -1;
    printf("  KSPLIT %s%s%s: %lld rounds\n", args[0], argc > 1 ? " " : "", argc > 1 ? args[1] : "",
           rounds);
    return (int)rounds;
}

static void test_ksplit_million(void)
{
    redisContext *mc = NULL;
    if (!h_cluster_create(nodes, NPRIMARIES, NODE_TIMEOUT_MS) ||
        !CHECK(h_start(&model, NULL) == 0 && (mc = h_connect(&model)), "the model did not start"))
        goto out;

    /* key:0000000 .. key:1099999, loaded into the cluster and the model. */
    char path[512];
    h_path_in(&model, "keys.tsv", path, sizeof(path));
    FILE *f = fopen(path, "w");
    if (!CHECK(f, "%s", path))
        goto out;
    for (int i = 0; i < NKEYS; i++)
        fprintf(f, "key:%07d\tv\n", i);
    if (!CHECK(fclose(f) == 0, "%s", path))
        goto out;
    int64_t t0 = h_now_ms();
    if (!CHECK(load(nodes[0].s.port, 1, path) == 0, "rbkv-cli -c load failed") ||
        !CHECK(load(model.port, 0, path) == 0, "rbkv-cli load failed"))
        goto out;
    printf("  %d keys loaded into both in %lld ms\n", NKEYS, (long long)(h_now_ms() - t0));
    EXPECT_INT(nodes[1].c, NKEYS, "KCOUNT", "-", "+");

    /* A span of 1,000,000 keys in a few parts: count and sample, count, list. */
    static const char *const parts[] = {"2", "17", "200"};
    for (int i = 0; i < 3; i++) {
        const char *args[] = {parts[i], "[key:0000000", "(key:1000000"};
        int rounds = ksplit_rounds(mc, i, args, 3);
        CHECK(rounds >= 2 && rounds <= 3, "KSPLIT %s over 1,000,000 keys: %d rounds, not 2 or 3",
              parts[i], rounds);
    }
    /* All 1,100,000 keys: c / 1,024 is over 1,024, so a window may need
     * one more sample and count. */
    for (int i = 0; i < 3; i++) {
        int rounds = ksplit_rounds(mc, (i + 1) % NPRIMARIES, (const char *[]){parts[i]}, 1);
        CHECK(rounds >= 2 && rounds <= 5, "KSPLIT %s over %d keys: %d rounds, not 2 to 5", parts[i],
              NKEYS, rounds);
    }
    /* Densely split (a split key every 200 keys): listed whole. */
    int rounds = ksplit_rounds(mc, 2, (const char *[]){"5500"}, 1);
    CHECK(rounds == 2, "KSPLIT 5500 over %d keys: %d rounds, not 2", NKEYS, rounds);
out:
    if (mc)
        redisFree(mc);
    h_cluster_destroy(nodes, NPRIMARIES);
    if (model.pid && h_stop(&model) == 0)
        h_clean_dir(&model);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_ksplit_million);
    return h_finish();
}
