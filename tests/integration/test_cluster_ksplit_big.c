/*
 * test_cluster_ksplit_big.c - KSPLIT across the cluster
 * (server/cluster/cluster_ksplit.c) over more than a million keys: three
 * rbkv primaries made by `redis-cli --cluster create` hold the keys
 * key:0000000 .. key:1099999 (loaded with `rbkv-cli -c load`). Each KSPLIT
 * n sent to a primary answers what one node holding them answers, the
 * keys at the span's positions floor(i * c / n), i = 1 .. n - 1 (computed
 * here: the keys are numbered), in the number of rounds docs/cluster.md gives
 * ("KSPLIT across the cluster"), counted as the KLOCAL every round sends
 * each primary first (INFO commandstats):
 *  - a span of at most 1,048,576 keys (c / 1,024 <= 1,024) split into a
 *    few parts: at most 3 rounds (count and sample, count, list; 2 when
 *    every count lands on a split key);
 *  - the 1,100,000 keys: 2 to 5, a window still over 1,024 keys after
 *    the first count costs a sample and a count round more;
 *  - a densely split span (n - 1 >= c / 256): 2 rounds (count, listing).
 * No key is written or moved while the queries run, so every reply is
 * exactly one node's. The rbkv-cli used to load is RBKV_CLI_BIN. The
 * standalone node's KSPLIT over the same numbered keys is this rule
 * (commands.md; test_cluster_ordered.c compares the two).
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

/* KSPLIT n [min max] on primary at, the span being keys first .. first +
 * c - 1: the split keys one node gives. Returns the rounds it took, the
 * KLOCALs each primary got (the same on each), or -1. */
static int ksplit_rounds(int at, long long n, long long first, long long c)
{
    char ntext[16], lo[32], hi[32];
    snprintf(ntext, sizeof(ntext), "%lld", n);
    snprintf(lo, sizeof(lo), "[key:%07lld", first);
    snprintf(hi, sizeof(hi), "(key:%07lld", first + c);
    int whole = first == 0 && c == NKEYS;
    const char *argv[] = {"KSPLIT", ntext, lo, hi};
    long long before[NPRIMARIES];
    for (int i = 0; i < NPRIMARIES; i++)
        before[i] = klocals(i);
    redisReply *r = h_command(nodes[at].c, whole ? 2 : 4, argv, NULL);
    int ok = CHECK(r && r->type == REDIS_REPLY_ARRAY && (long long)r->elements == n - 1,
                   "KSPLIT %lld over %lld keys: not %lld keys", n, c, n - 1);
    for (long long i = 1; ok && i < n; i++) {
        char want[32];
        /* floor(i * c / n) without overflow. */
        long long pos = i * (c / n) + i * (c % n) / n;
        snprintf(want, sizeof(want), "key:%07lld", first + pos);
        const redisReply *e = r->element[i - 1];
        ok = CHECK(e->type == REDIS_REPLY_STRING && !strcmp(e->str, want),
                   "KSPLIT %lld over %lld keys: split key %lld is %s, not %s", n, c, i,
                   e->type == REDIS_REPLY_STRING ? e->str : "?", want);
    }
    if (r)
        freeReplyObject(r);
    if (!ok)
        return -1;
    long long rounds = klocals(0) - before[0];
    for (int i = 1; i < NPRIMARIES; i++)
        if (!CHECK(klocals(i) - before[i] == rounds, "KSPLIT %lld: %lld KLOCALs on node 0, %lld on %d",
                   n, rounds, klocals(i) - before[i], i))
            return -1;
    printf("  KSPLIT %lld over %lld keys: %lld rounds\n", n, c, rounds);
    return (int)rounds;
}

static void test_ksplit_million(void)
{
    if (!h_cluster_create(nodes, NPRIMARIES, NODE_TIMEOUT_MS))
        goto out;

    /* key:0000000 .. key:1099999, loaded into the cluster. */
    char path[512];
    snprintf(path, sizeof(path), "%s/keys.tsv", nodes[0].s.dir);
    FILE *f = fopen(path, "w");
    if (!CHECK(f, "%s", path))
        goto out;
    for (int i = 0; i < NKEYS; i++)
        fprintf(f, "key:%07d\tv\n", i);
    if (!CHECK(fclose(f) == 0, "%s", path))
        goto out;
    int64_t t0 = h_now_ms();
    if (!CHECK(load(nodes[0].s.port, 1, path) == 0, "rbkv-cli -c load failed"))
        goto out;
    printf("  %d keys loaded in %lld ms\n", NKEYS, (long long)(h_now_ms() - t0));
    EXPECT_INT(nodes[1].c, NKEYS, "KCOUNT", "-", "+");

    /* A span of 1,000,000 keys in a few parts: count and sample, count,
     * list; then all 1,100,000 keys, whose c / 1,024 is over 1,024, so a
     * window may need one more sample and count. */
    static const long long parts[] = {2, 17, 200};
    for (int i = 0; i < 3; i++) {
        int rounds = ksplit_rounds(i, parts[i], 100000, 1000000);
        CHECK(rounds >= 2 && rounds <= 3, "KSPLIT %lld over 1,000,000 keys: %d rounds, not 2 or 3",
              parts[i], rounds);
    }
    for (int i = 0; i < 3; i++) {
        int rounds = ksplit_rounds((i + 1) % NPRIMARIES, parts[i], 0, NKEYS);
        CHECK(rounds >= 2 && rounds <= 5, "KSPLIT %lld over %d keys: %d rounds, not 2 to 5",
              parts[i], NKEYS, rounds);
    }
    /* Densely split (a split key every 200 keys): listed whole. */
    int rounds = ksplit_rounds(2, 5500, 0, NKEYS);
    CHECK(rounds == 2, "KSPLIT 5500 over %d keys: %d rounds, not 2", NKEYS, rounds);
out:
    h_cluster_destroy(nodes, NPRIMARIES);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_ksplit_million);
    return h_finish();
}
