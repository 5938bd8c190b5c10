/*
 * test_cluster_ordered.c - ordered queries answered for the whole cluster
 * (server/cluster/cluster_query.c, cluster_ksplit.c, cluster_qlink.c):
 * three rbkv primaries made by `redis-cli --cluster create`, and one
 * standalone rbkv node holding the same keys, the model. Every wait a poll.
 *
 *  1. Random keys (some sharing {hash tags}, some hashes), then random
 *     KRANGE (BYLEX and by rank, REV, LIMIT, WITHVALUES, TYPE), KPREFIX,
 *     KCOUNT, KRANK/KREVRANK, KFIRST/KLAST, KNEXT/KPREV and KSPLIT (its
 *     span listed whole: few keys) sent to a random primary: the same
 *     reply as the standalone node's, in RESP2 and RESP3; paging by the last key lists every key once. A range within
 *     one {hash tag} is redirected with MOVED to its node; KDELRANGE across
 *     slots gets CROSSSLOT; inside MULTI a cluster-wide query is refused.
 *  2. During `redis-cli --cluster reshard`, a range over the fixed keys
 *     lists each exactly once, a count never misses one, and KSPLIT (its
 *     span listed whole) equals one node's.
 *  3. One primary stopped (SIGSTOP): a clear error within the bound (KCOUNT
 *     and KSPLIT), and a
 *     client that disconnects while it waits leaves nothing behind; after
 *     SIGCONT the queries are answered again.
 *  4. KSPLIT by selection: 20,000 random keys, a fifth of them under one
 *     {tag} (one node), then 150,000 more in one range per node (DEBUG
 *     POPULATE); fixed and random n and spans against the standalone node,
 *     in RESP2 and RESP3; the other nodes were sampled, not listed.
 *
 * SEED=n replays the random parts.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "harness_cluster.h"

#define WAIT_MS (30000 * H_SLOW)
#define NODE_TIMEOUT_MS 2000
#define NPRIMARIES 3
#define NKEYS 1500
#define NQUERIES 600

static struct h_node nodes[NPRIMARIES];
static struct h_server model;
static redisContext *mc;
static char ids[NPRIMARIES][41];
static uint64_t rng;

static int rand_below(int n)
{
    return h_rand_below(&rng, n);
}

/* A key of 1 to 6 bytes over a small alphabet with braces: many share
 * prefixes, and some carry a complete {hash tag}. */
static void rand_key(char *out)
{
    h_rand_word(&rng, "ab{}c", 6, out);
}

/* argv sent to c, following one MOVED as a cluster client does. */
static redisReply *cluster_call(redisContext *c, int argc, const char *const *argv)
{
    return h_cluster_call(nodes, NPRIMARIES, c, argc, argv, NULL);
}

/* The reply of a random primary to argv equals the model's. */
static int same_as_model(int argc, const char *const *argv)
{
    redisContext *c = nodes[rand_below(NPRIMARIES)].c;
    redisReply *a = cluster_call(c, argc, argv), *b = h_command(mc, argc, argv, NULL);
    int ok = a && b && h_reply_equal(a, b);
    if (!ok) {
        char cmd[512], ra[2048], rb[2048];
        h_command_text(cmd, sizeof(cmd), argc, argv, NULL);
        CHECK(0, "%s: cluster %s, one node %s", cmd, a ? h_repr(a, ra, sizeof(ra)) : "(none)",
              b ? h_repr(b, rb, sizeof(rb)) : "(none)");
    }
    if (a)
        freeReplyObject(a);
    if (b)
        freeReplyObject(b);
    return ok;
}

static void rand_bound(char *out)
{
    int k = rand_below(10);
    if (k == 0) {
        strcpy(out, "-");
        return;
    }
    if (k == 1) {
        strcpy(out, "+");
        return;
    }
    out[0] = k < 6 ? '[' : '(';
    rand_key(out + 1);
}

static void rand_int(char *out, int lo, int hi)
{
    snprintf(out, 16, "%d", lo + rand_below(hi - lo + 1));
}

/* A random KSPLIT n [min max | PREFIX p] into argv; its argc. n is mostly
 * small, at times 0 (an error), or larger than the keys of the span. */
static int rand_ksplit(const char **argv, char bufs[][32])
{
    int argc = 0;
    argv[argc++] = "KSPLIT";
    int k = rand_below(10);
    rand_int(bufs[2], k == 0 ? 0 : 1, k == 1 ? 3000 : k == 2 ? 400 : 40);
    argv[argc++] = bufs[2];
    switch (rand_below(3)) {
    case 0:
        break;
    case 1:
        argv[argc++] = "PREFIX";
        rand_key(bufs[0]);
        bufs[0][1 + rand_below(3)] = '\0';
        argv[argc++] = bufs[0];
        break;
    default:
        rand_bound(bufs[0]);
        rand_bound(bufs[1]);
        argv[argc++] = bufs[0];
        argv[argc++] = bufs[1];
        break;
    }
    return argc;
}

/* One random ordered query into argv (buffers in bufs); its argc. */
static int rand_query(const char **argv, char bufs[][32])
{
    int argc = 0;
    switch (rand_below(10)) {
    case 0:
    case 1: { /* KRANGE BYLEX */
        argv[argc++] = "KRANGE";
        rand_bound(bufs[0]);
        rand_bound(bufs[1]);
        argv[argc++] = bufs[0];
        argv[argc++] = bufs[1];
        argv[argc++] = "BYLEX";
        if (rand_below(2))
            argv[argc++] = "REV";
        if (rand_below(2)) {
            argv[argc++] = "LIMIT";
            rand_int(bufs[2], -1, 40);
            rand_int(bufs[3], -1, 60);
            argv[argc++] = bufs[2];
            argv[argc++] = bufs[3];
        }
        if (rand_below(3) == 0)
            argv[argc++] = "WITHVALUES";
        if (rand_below(4) == 0) {
            argv[argc++] = "TYPE";
            argv[argc++] = rand_below(2) ? "string" : "hash";
        }
        break;
    }
    case 2: /* KRANGE by rank */
        argv[argc++] = "KRANGE";
        rand_int(bufs[0], -60, 60);
        rand_int(bufs[1], -60, 60);
        argv[argc++] = bufs[0];
        argv[argc++] = bufs[1];
        if (rand_below(2))
            argv[argc++] = "REV";
        if (rand_below(2))
            argv[argc++] = "WITHVALUES";
        if (rand_below(3) == 0) {
            argv[argc++] = "TYPE";
            argv[argc++] = rand_below(2) ? "string" : "hash";
        }
        break;
    case 3:
        argv[argc++] = "KPREFIX";
        rand_key(bufs[0]);
        bufs[0][1 + rand_below(2)] = '\0';
        argv[argc++] = bufs[0];
        if (rand_below(2))
            argv[argc++] = "REV";
        if (rand_below(2)) {
            argv[argc++] = "LIMIT";
            rand_int(bufs[2], 0, 20);
            rand_int(bufs[3], -1, 30);
            argv[argc++] = bufs[2];
            argv[argc++] = bufs[3];
        }
        break;
    case 4:
        argv[argc++] = "KCOUNT";
        if (rand_below(3) == 0) {
            argv[argc++] = "PREFIX";
            rand_key(bufs[0]);
            argv[argc++] = bufs[0];
        } else {
            rand_bound(bufs[0]);
            rand_bound(bufs[1]);
            argv[argc++] = bufs[0];
            argv[argc++] = bufs[1];
        }
        break;
    case 5:
        argv[argc++] = rand_below(2) ? "KRANK" : "KREVRANK";
        rand_key(bufs[0]);
        argv[argc++] = bufs[0];
        break;
    case 6:
        argv[argc++] = rand_below(2) ? "KFIRST" : "KLAST";
        if (rand_below(3)) {
            rand_int(bufs[0], 0, 30);
            argv[argc++] = bufs[0];
        }
        break;
    case 8:
        argc = rand_ksplit(argv, bufs);
        break;
    default:
        argv[argc++] = rand_below(2) ? "KNEXT" : "KPREV";
        rand_key(bufs[0]);
        argv[argc++] = bufs[0];
        if (rand_below(3)) {
            rand_int(bufs[1], 0, 30);
            argv[argc++] = bufs[1];
        }
        break;
    }
    return argc;
}

static int cluster_up(void)
{
    if (!h_cluster_model_up(nodes, NPRIMARIES, NODE_TIMEOUT_MS, &model, &mc))
        return 0;
    for (int i = 0; i < NPRIMARIES; i++)
        h_node_id(&nodes[i], ids[i]);
    return 1;
}

static void cluster_down(void)
{
    h_cluster_model_down(nodes, NPRIMARIES, &model, &mc);
}

/* The same random keys in the cluster and in the model; returns how many
 * distinct keys there are. */
static long fill(void)
{
    char key[16], val[32];
    for (int i = 0; i < NKEYS; i++) {
        rand_key(key);
        /* A few more keys under the tags {aa} and {cc}, whose slots the
         * reshard moves first. */
        if (i % 25 == 0)
            snprintf(key, sizeof(key), "{%s}%d", i % 50 ? "aa" : "cc", i);
        snprintf(val, sizeof(val), "v%d", i);
        const char *set[] = {"SET", key, val};
        const char *hset[] = {"HSET", key, "f", val};
        const char *del[] = {"DEL", key};
        const char *const *argv = rand_below(8) == 0 ? hset : set;
        int argc = argv == hset ? 4 : 3;
        for (int j = 0; j < 2; j++) {
            redisContext *c = j ? mc : nodes[0].c;
            redisReply *r = cluster_call(c, 2, del);
            if (r)
                freeReplyObject(r);
            r = cluster_call(c, argc, argv);
            if (!CHECK(r && r->type != REDIS_REPLY_ERROR, "write of %s failed", key))
                return -1;
            freeReplyObject(r);
        }
    }
    redisReply *r = H_CALL(mc, "DBSIZE");
    long n = r ? (long)r->integer : -1;
    if (r)
        freeReplyObject(r);
    return n;
}

/* The cluster and the model up, with the same random keys: how many, or
 * -1 (failed). */
static long cluster_with_keys(void)
{
    if (!cluster_up())
        return -1;
    rng = h_seed() | 1;
    long total = fill();
    return CHECK(total > 0, "no keys") ? total : -1;
}

/* Pages through every key with KRANGE BYLEX LIMIT 0 page from the last key
 * on, against node c: the pages joined must be the model's whole listing.
 * rev pages downwards. */
static int paged_listing_matches(redisContext *c, int page, int rev)
{
    redisReply *all = rev ? H_CALL(mc, "KRANGE", "+", "-", "BYLEX", "REV")
                          : H_CALL(mc, "KRANGE", "-", "+", "BYLEX");
    if (!all || all->type != REDIS_REPLY_ARRAY)
        return CHECK(0, "the model's listing failed");
    char from[32] = "-", pagetext[16];
    if (rev)
        strcpy(from, "+");
    snprintf(pagetext, sizeof(pagetext), "%d", page);
    size_t at = 0;
    int ok = 1;
    for (;;) {
        const char *argv[] = {"KRANGE", from, rev ? "-" : "+", "BYLEX", "LIMIT", "0", pagetext,
                              "REV"};
        redisReply *r = h_command(c, rev ? 8 : 7, argv, NULL);
        if (!r || r->type != REDIS_REPLY_ARRAY) {
            ok = CHECK(0, "a page failed: %s", r && r->str ? r->str : "");
            if (r)
                freeReplyObject(r);
            break;
        }
        for (size_t i = 0; i < r->elements && ok; i++, at++)
            ok = CHECK(at < all->elements && !strcmp(r->element[i]->str, all->element[at]->str),
                       "page key %zu: %s", at, r->element[i]->str);
        size_t n = r->elements;
        if (n)
            snprintf(from, sizeof(from), "(%s", r->element[n - 1]->str);
        freeReplyObject(r);
        if (!ok || n < (size_t)page)
            break;
    }
    ok = ok && CHECK(at == all->elements, "paging listed %zu of %zu keys", at, all->elements);
    freeReplyObject(all);
    return ok;
}

/* 1. Random queries against the model, paging, routing and refusals. */
static void test_compare(void)
{
    long total = cluster_with_keys();
    if (total <= 0)
        goto out;
    printf("  %ld distinct keys\n", total);
    const char *argv[16];
    char bufs[4][32];
    for (int i = 0; i < NQUERIES; i++) {
        int argc = rand_query(argv, bufs);
        if (!same_as_model(argc, argv))
            break;
    }
    /* RESP3 (raw: this hiredis reads no RESP3): WITHVALUES as pairs, nil
     * values and KRANK's nil as RESP3's null, byte for byte. */
    static const char *const resp3[] = {
        "*5\r\n$6\r\nKRANGE\r\n$1\r\n-\r\n$1\r\n+\r\n$5\r\nBYLEX\r\n$10\r\nWITHVALUES\r\n",
        "*4\r\n$6\r\nKRANGE\r\n$1\r\n0\r\n$2\r\n50\r\n$10\r\nWITHVALUES\r\n",
        "*2\r\n$5\r\nKRANK\r\n$3\r\nzzz\r\n",
        "*6\r\n$6\r\nKRANGE\r\n$3\r\n-40\r\n$2\r\n-1\r\n$10\r\nWITHVALUES\r\n"
        "$4\r\nTYPE\r\n$4\r\nhash\r\n",
        "*3\r\n$6\r\nKSPLIT\r\n$1\r\n9\r\n$3\r\nREV\r\n",
        "*2\r\n$6\r\nKSPLIT\r\n$2\r\n20\r\n",
    };
    struct h_raw a, b;
    if (h_raw_open_resp3(&a, &nodes[1].s) == 0) {
        if (h_raw_open_resp3(&b, &model) == 0) {
            for (size_t i = 0; i < sizeof(resp3) / sizeof(resp3[0]); i++) {
                size_t la = 0, lb = 0;
                h_raw_send(&a, resp3[i], strlen(resp3[i]));
                h_raw_send(&b, resp3[i], strlen(resp3[i]));
                int ok = h_raw_read_reply(&a, &la, H_RAW_TIMEOUT_MS) == 0 &&
                         h_raw_read_reply(&b, &lb, H_RAW_TIMEOUT_MS) == 0 && la == lb &&
                         memcmp(a.buf, b.buf, la) == 0;
                CHECK(ok, "RESP3 reply %zu differs: %.*s vs %.*s", i, (int)(la < 200 ? la : 200),
                      a.buf, (int)(lb < 200 ? lb : 200), b.buf);
                h_raw_consume(&a, la);
                h_raw_consume(&b, lb);
            }
            h_raw_close(&b);
        }
        h_raw_close(&a);
    }

    for (int i = 0; i < NPRIMARIES; i++) {
        paged_listing_matches(nodes[i].c, 1 + rand_below(100), 0);
        paged_listing_matches(nodes[i].c, 1 + rand_below(100), 1);
    }

    /* A range within one tag: its node answers, the others redirect. */
    int moved = 0, answered = 0;
    for (int i = 0; i < NPRIMARIES; i++) {
        redisReply *r = H_CALL(nodes[i].c, "KRANGE", "[{ab}", "[{ab}c", "BYLEX");
        if (r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "MOVED ", 6))
            moved++;
        else if (r && r->type == REDIS_REPLY_ARRAY)
            answered++;
        if (r)
            freeReplyObject(r);
    }
    CHECK(moved == NPRIMARIES - 1 && answered == 1, "tagged range: %d MOVED, %d answered", moved,
          answered);
    same_as_model(4, (const char *[]){"KRANGE", "[{ab}", "[{ab}c", "BYLEX"});
    same_as_model(3, (const char *[]){"KCOUNT", "PREFIX", "{b}"});
    EXPECT_ERR(nodes[0].c, "CROSSSLOT Keys in request don't hash to the same slot", "KDELRANGE",
               "-", "+");
    EXPECT_ERR(nodes[1].c, "CROSSSLOT Keys in request don't hash to the same slot", "KDELRANGE",
               "PREFIX", "a");
    EXPECT_OK(nodes[0].c, "MULTI");
    EXPECT_STATUS(nodes[0].c, "QUEUED", "KCOUNT", "-", "+");
    EXPECT_REPLY(nodes[0].c,
                 "[-ERR a cluster-wide ordered query cannot run inside MULTI or a script: give "
                 "bounds within one {hash tag}]",
                 "EXEC");
    /* A tagged KDELRANGE runs on its slot's node. */
    redisReply *d = cluster_call(nodes[0].c, 3, (const char *[]){"KDELRANGE", "PREFIX", "{c}"});
    redisReply *m = H_CALL(mc, "KDELRANGE", "PREFIX", "{c}");
    CHECK(d && m && h_reply_equal(d, m), "tagged KDELRANGE differs");
    if (d)
        freeReplyObject(d);
    if (m)
        freeReplyObject(m);
    same_as_model(3, (const char *[]){"KRANGE", "-", "+", "BYLEX"});
out:
    cluster_down();
}

/* 2. A reshard under cluster-wide queries: every key listed once. */
static void test_during_reshard(void)
{
    if (access("/dev/shm", W_OK) == 0)
        setenv("TMPDIR", "/dev/shm", 1);
    long total = cluster_with_keys();
    if (total <= 0)
        goto out;
    char args[512], path[400];
    snprintf(args, sizeof(args),
             "--cluster reshard 127.0.0.1:%d --cluster-from %s --cluster-to %s "
             "--cluster-slots 3000 --cluster-yes --cluster-pipeline 5",
             nodes[0].s.port, ids[0], ids[1]);
    snprintf(path, sizeof(path), "%s/reshard.out", nodes[0].s.dir);
    pid_t pid = h_redis_cli_spawn(path, args);
    int status = -1, ok = 1;
    long queries = 0, pages = 0;
    int64_t t0 = h_now_ms();
    while (ok && waitpid(pid, &status, WNOHANG) == 0) {
        redisContext *c = nodes[rand_below(NPRIMARIES)].c;
        if (queries % 4 == 3) {
            ok = paged_listing_matches(c, 50 + rand_below(200), rand_below(2));
            pages++;
        } else if (queries % 4 == 2) {
            /* One tag's range, whose slot (700, 1180) moves early. */
            ok = same_as_model(3, (const char *[]){"KPREFIX", "{cc}", "WITHVALUES"}) &&
                 same_as_model(4, (const char *[]){"KRANGE", "[{aa}", "[{aa}c", "BYLEX"});
        } else if (queries % 4 == 1) {
            /* Few keys: listed whole and split as one node, exactly. */
            ok = same_as_model(2, (const char *[]){"KSPLIT", "7"}) &&
                 same_as_model(4, (const char *[]){"KSPLIT", "40", "[b", "+"});
        } else {
            ok = same_as_model(4, (const char *[]){"KRANGE", "-", "+", "BYLEX"});
        }
        redisReply *r = H_CALL(c, "KCOUNT", "-", "+");
        ok = ok && CHECK(r && r->type == REDIS_REPLY_INTEGER && r->integer >= total,
                         "KCOUNT during the reshard: %lld of %ld",
                         r ? r->integer : -1LL, total);
        if (r)
            freeReplyObject(r);
        queries++;
        if (h_now_ms() - t0 > 4 * WAIT_MS) {
            CHECK(0, "the reshard did not end");
            break;
        }
    }
    if (waitpid(pid, &status, WNOHANG) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "reshard failed");
    printf("  %ld queries and %ld pagings during a reshard of 3000 slots (%lld ms)\n", queries,
           pages, (long long)(h_now_ms() - t0));
    same_as_model(3, (const char *[]){"KCOUNT", "-", "+"});
out:
    cluster_down();
}

/* Writes argv-style SETs of keys[0..n) to the cluster, pipelined: all to
 * node 0 first, then each MOVED one to its node. Returns 0, or -1. */
static int cluster_set_many(char (*keys)[24], int n)
{
    int *moved = calloc((size_t)n, sizeof(*moved)), ok = 1;
    for (int i = 0; i < n; i++)
        h_append(nodes[0].c, 3, (const char *[]){"SET", keys[i], "v"}, NULL);
    for (int i = 0; i < n; i++) {
        redisReply *r = h_get_reply(nodes[0].c);
        if (r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "MOVED ", 6))
            moved[i] = atoi(strrchr(r->str, ':') + 1);
        else
            ok = ok && CHECK(r && r->type == REDIS_REPLY_STATUS, "SET %s failed", keys[i]);
        if (r)
            freeReplyObject(r);
    }
    for (int pass = 0; pass < 2 && ok; pass++)
        for (int i = 0; i < n; i++) {
            redisContext *to = NULL;
            for (int k = 0; moved[i] && k < NPRIMARIES; k++)
                if (nodes[k].s.port == moved[i])
                    to = nodes[k].c;
            if (!to)
                continue;
            if (pass == 0) {
                h_append(to, 3, (const char *[]){"SET", keys[i], "v"}, NULL);
                continue;
            }
            redisReply *r = h_get_reply(to);
            ok = ok && CHECK(r && r->type == REDIS_REPLY_STATUS, "SET %s on its node failed",
                             keys[i]);
            if (r)
                freeReplyObject(r);
        }
    free(moved);
    return ok ? 0 : -1;
}

/* 4. KSPLIT over many keys, skewed (one {tag} holds a fifth of them, so
 * one node does): the split keys come by selection, not by a listing, and
 * equal the standalone node's, in RESP2 and RESP3. */
static void test_ksplit_selection(void)
{
    if (!cluster_up())
        goto out;
    /* A selection is several rounds, all within the node timeout: a loaded
     * machine must not turn it into an error here (test 3 checks that). */
    for (int i = 0; i < NPRIMARIES; i++)
        EXPECT_OK(nodes[i].c, "CONFIG", "SET", "cluster-node-timeout", "15000");
    rng = h_seed() | 1;
    enum { N = 24000 };
    char (*keys)[24] = malloc(N * sizeof(*keys));
    for (int i = 0; i < N; i++) {
        int k = rand_below(10);
        if (k < 5)
            snprintf(keys[i], sizeof(keys[i]), "u:%08x", (unsigned)h_xorshift(&rng));
        else if (k < 7)
            snprintf(keys[i], sizeof(keys[i]), "{t}%06d", rand_below(1000000));
        else
            rand_key(keys[i]);
        h_append(mc, 3, (const char *[]){"SET", keys[i], "v"}, NULL);
    }
    int ok = 1;
    for (int i = 0; i < N; i++) {
        redisReply *r = h_get_reply(mc);
        ok = ok && CHECK(r && r->type == REDIS_REPLY_STATUS, "model SET failed");
        if (r)
            freeReplyObject(r);
    }
    ok = ok && cluster_set_many(keys, N) == 0;
    free(keys);
    redisReply *size = H_CALL(mc, "DBSIZE");
    long total = size ? (long)size->integer : -1;
    if (size)
        freeReplyObject(size);
    if (!ok)
        goto out;
    static const char *const fixed[][5] = {
        {"KSPLIT", "2"},          {"KSPLIT", "7"},           {"KSPLIT", "64"},
        {"KSPLIT", "1000"},       {"KSPLIT", "1"},           {"KSPLIT", "3", "PREFIX", "u:"},
        {"KSPLIT", "50", "PREFIX", "{t}"}, {"KSPLIT", "9", "(u:4", "[{t}5"},
        {"KSPLIT", "5", "+", "-"}, {"KSPLIT", "4000"},
    };
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
        int argc = 0;
        while (argc < 5 && fixed[i][argc])
            argc++;
        same_as_model(argc, fixed[i]);
    }
    const char *argv[8];
    char bufs[4][32];
    for (int i = 0; i < 120; i++) {
        int argc = 0;
        argv[argc++] = "KSPLIT";
        rand_int(bufs[2], 1, rand_below(4) ? 20 : 600);
        argv[argc++] = bufs[2];
        if (rand_below(2)) {
            static const char *const lows[] = {"-", "[u:", "(u:8", "[a", "[{t}3", "[b"};
            static const char *const highs[] = {"+", "[u:c", "(u;", "[{t}7", "[{", "(c"};
            argv[argc++] = lows[rand_below(6)];
            argv[argc++] = highs[rand_below(6)];
        }
        if (!same_as_model(argc, argv))
            break;
    }
    /* RESP3: the same bytes. */
    static const char ksplit3[] = "*2\r\n$6\r\nKSPLIT\r\n$2\r\n11\r\n";
    struct h_raw a, b;
    if (h_raw_open_resp3(&a, &nodes[2].s) == 0) {
        if (h_raw_open_resp3(&b, &model) == 0) {
            size_t la = 0, lb = 0;
            h_raw_send(&a, ksplit3, strlen(ksplit3));
            h_raw_send(&b, ksplit3, strlen(ksplit3));
            CHECK(h_raw_read_reply(&a, &la, H_RAW_TIMEOUT_MS) == 0 &&
                      h_raw_read_reply(&b, &lb, H_RAW_TIMEOUT_MS) == 0 && la == lb &&
                      memcmp(a.buf, b.buf, la) == 0,
                  "RESP3 KSPLIT differs: %.*s vs %.*s", (int)(la < 200 ? la : 200), a.buf,
                  (int)(lb < 200 ? lb : 200), b.buf);
            h_raw_close(&b);
        }
        h_raw_close(&a);
    }
    /* Selection, not a listing of the span: the other nodes were asked
     * for samples (their own KSPLIT). */
    EXPECT_OK(nodes[0].c, "CONFIG", "RESETSTAT");
    same_as_model(2, (const char *[]){"KSPLIT", "5"});
    redisReply *st = H_CALL(nodes[0].c, "INFO", "commandstats");
    char calls[64] = "calls=0";
    if (st && st->str)
        h_info_field(st->str, "cmdstat_ksplit", calls, sizeof(calls));
    int sampled = strncmp(calls, "calls=", 6) ? 0 : atoi(calls + 6);
    CHECK(sampled >= 1, "KSPLIT 5 over %ld keys took no sample round: %s", total, calls);
    printf("  %ld distinct keys; KSPLIT 5 sampled node 0 %d times\n", total, sampled);
    if (st)
        freeReplyObject(st);
    /* More keys, each node's in a range of its own (DEBUG POPULATE: p0:*
     * on the first node only, ...), and many split keys: selected (600) or
     * listed (16000, one every ten keys). */
    for (int i = 0; i < NPRIMARIES && ok; i++) {
        char prefix[8];
        snprintf(prefix, sizeof(prefix), "p%d", i);
        redisReply *on = H_CALL(nodes[i].c, "DEBUG", "POPULATE", "50000", prefix);
        redisReply *om = H_CALL(mc, "DEBUG", "POPULATE", "50000", prefix);
        ok = CHECK(on && om && on->type == REDIS_REPLY_STATUS && om->type == REDIS_REPLY_STATUS,
                   "DEBUG POPULATE failed: %s", on && on->str ? on->str : "");
        if (on)
            freeReplyObject(on);
        if (om)
            freeReplyObject(om);
    }
    same_as_model(2, (const char *[]){"KSPLIT", "600"});
    same_as_model(2, (const char *[]){"KSPLIT", "16000"});
    same_as_model(2, (const char *[]){"KSPLIT", "3"});
    same_as_model(4, (const char *[]){"KSPLIT", "200", "[p1", "+"});
    same_as_model(4, (const char *[]){"KSPLIT", "1000", "PREFIX", "p2:"});
    /* A tagged span is its slot's node's: MOVED elsewhere. */
    int moved = 0;
    for (int i = 0; i < NPRIMARIES; i++) {
        redisReply *r = H_CALL(nodes[i].c, "KSPLIT", "4", "PREFIX", "{t}");
        moved += r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "MOVED ", 6);
        if (r)
            freeReplyObject(r);
    }
    CHECK(moved == NPRIMARIES - 1, "tagged KSPLIT: %d MOVED", moved);
    EXPECT_ERR(nodes[0].c, "ERR value is out of range, must be positive", "KSPLIT", "0");
    EXPECT_OK(nodes[1].c, "MULTI");
    EXPECT_STATUS(nodes[1].c, "QUEUED", "KSPLIT", "3");
    EXPECT_REPLY(nodes[1].c,
                 "[-ERR a cluster-wide ordered query cannot run inside MULTI or a script: give "
                 "bounds within one {hash tag}]",
                 "EXEC");
out:
    cluster_down();
}

/* KCOUNT - + on c: its reply's text into out. */
static void count_text(redisContext *c, char *out, size_t cap)
{
    redisReply *r = H_CALL(c, "KCOUNT", "-", "+");
    h_repr(r, out, cap);
    if (r)
        freeReplyObject(r);
}

static long blocked_clients(redisContext *c)
{
    char out[64];
    redisReply *r = H_CALL(c, "INFO", "clients");
    long n = -1;
    if (r && r->str && h_info_field(r->str, "blocked_clients", out, sizeof(out)) == 0)
        n = atol(out);
    if (r)
        freeReplyObject(r);
    return n;
}

/* 3. A stopped primary: an error within the bound, never a partial count. */
static void test_stopped_node(void)
{
    long total = cluster_with_keys();
    if (total <= 0)
        goto out;
    char want[32], got[512];
    snprintf(want, sizeof(want), ":%ld", total);
    kill(nodes[2].s.pid, SIGSTOP);
    int64_t t0 = h_now_ms();
    count_text(nodes[0].c, got, sizeof(got));
    int64_t took = h_now_ms() - t0;
    CHECK(strstr(got, "-CLUSTERDOWN cluster-wide query: node 127.0.0.1:") &&
              strstr(got, "did not answer within"),
          "with a node stopped: %s", got);
    CHECK(took < 3 * NODE_TIMEOUT_MS * H_SLOW, "the error took %lld ms", (long long)took);
    printf("  stopped node: %s after %lld ms\n", got, (long long)took);
    redisReply *split = H_CALL(nodes[1].c, "KSPLIT", "3");
    CHECK(split && split->type == REDIS_REPLY_ERROR &&
              strstr(split->str, "CLUSTERDOWN cluster-wide query: node 127.0.0.1:") &&
              strstr(split->str, "did not answer within"),
          "KSPLIT with a node stopped: %s", split && split->str ? split->str : "(none)");
    if (split)
        freeReplyObject(split);

    /* A client that goes away while it waits. */
    redisContext *w = h_connect(&nodes[1].s);
    if (CHECK(w != NULL, "no connection")) {
        h_send(w, 3, (const char *[]){"KCOUNT", "-", "+"}, NULL);
        int64_t deadline = h_now_ms() + WAIT_MS;
        while (blocked_clients(nodes[1].c) != 1 && h_now_ms() < deadline)
            h_sleep_ms(20);
        CHECK(blocked_clients(nodes[1].c) == 1, "the query did not wait");
        redisFree(w);
        while (blocked_clients(nodes[1].c) != 0 && h_now_ms() < deadline)
            h_sleep_ms(20);
        CHECK(blocked_clients(nodes[1].c) == 0, "the gone client still waits");
    }
    /* CLIENT UNBLOCK ends a wait as its timeout would (as WAIT's), and
     * the parts that answer later write nothing to that client. */
    redisContext *u = h_connect(&nodes[1].s);
    if (CHECK(u != NULL, "no connection")) {
        redisReply *id = H_CALL(u, "CLIENT", "ID");
        char idtext[32];
        snprintf(idtext, sizeof(idtext), "%lld", id ? id->integer : -1LL);
        if (id)
            freeReplyObject(id);
        h_send(u, 3, (const char *[]){"KCOUNT", "-", "+"}, NULL);
        int64_t deadline = h_now_ms() + WAIT_MS;
        while (blocked_clients(nodes[1].c) != 1 && h_now_ms() < deadline)
            h_sleep_ms(20);
        EXPECT_INT(nodes[1].c, 1, "CLIENT", "UNBLOCK", idtext);
        redisReply *r = h_get_reply(u);
        CHECK(r && r->type == REDIS_REPLY_ERROR &&
                  strstr(r->str, "CLUSTERDOWN cluster-wide query: node"),
              "after CLIENT UNBLOCK: %s", r && r->str ? r->str : "(none)");
        if (r)
            freeReplyObject(r);
        EXPECT_STATUS(u, "PONG", "PING");
    }
    kill(nodes[2].s.pid, SIGCONT);
    if (u) {
        /* The late parts (if the link was still open) leave no reply. */
        EXPECT_STATUS(u, "PONG", "PING");
        redisFree(u);
    }
    /* Answered again once the node reads its connections. */
    int64_t deadline = h_now_ms() + WAIT_MS;
    do {
        count_text(nodes[0].c, got, sizeof(got));
        if (!strcmp(got, want))
            break;
        h_sleep_ms(50);
    } while (h_now_ms() < deadline);
    CHECK(!strcmp(got, want), "after SIGCONT: %s, want %s", got, want);
    count_text(nodes[1].c, got, sizeof(got));
    CHECK(!strcmp(got, want), "the node whose client left: %s, want %s", got, want);
out:
    cluster_down();
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_compare);
    H_RUN(test_during_reshard);
    H_RUN(test_stopped_node);
    H_RUN(test_ksplit_selection);
    return h_finish();
}
