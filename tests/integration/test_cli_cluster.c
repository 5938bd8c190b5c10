/*
 * test_cli_cluster.c - rbkv-cli -c (client/cluster.c, client/crange.c)
 * against three rbkv primaries made by `redis-cli --cluster create`, and
 * one standalone rbkv node holding the same keys, the model.
 *
 *  1. Random keys (binary bytes, {hash tags}, strings and other types),
 *     then random range, prefix, count and dump runs: `rbkv-cli -c` on a
 *     random primary writes the same bytes as plain rbkv-cli on the model,
 *     and --progress ends with every key counted; -c against the model
 *     itself (not in cluster mode) is the plain run.
 *  2. Plain mode follows -MOVED (and prints redis-cli's "-> Redirected"
 *     line on a terminal only) and -ASK (with ASKING) during a slot's
 *     migration; without -c the -MOVED is the reply. A range while a node
 *     imports a slot warns and exits 1.
 *  3. load -c (client/cload.c): the model's dump, in tsv during a slot's
 *     migration to a node added after the load began (-ASK, then -MOVED)
 *     and in RESP, loaded into the cluster, which then dumps the same
 *     bytes; a keyless command is refused. Then MSET of a {hash tag}
 *     whose keys a migration has half moved: sent again after -TRYAGAIN
 *     until it lands, the later commands of its keys after it; and a split
 *     that lasts ends the load after its attempts.
 *  4. load -c into three redis-server 7.0.15 primaries (skipped without
 *     redis-server): every key of the model reads back alike.
 *
 * SEED=n replays the random parts. The rbkv-cli under test is
 * RBKV_CLI_BIN, its path from the build.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "harness_cluster.h"

#define RUN_MS (60000 * H_SLOW)
#define NODE_TIMEOUT_MS 2000
#define NPRIMARIES 3
#define NKEYS 2000
#define NRUNS 40

/* The primaries, and a fourth node that test_load adds to the cluster. */
#define EXTRA NPRIMARIES
static struct h_node nodes[NPRIMARIES + 1];
static struct h_server model;
static redisContext *mc;
static uint64_t rng;

static int rand_below(int n)
{
    return h_rand_below(&rng, n);
}

/* A key of 1 to 6 bytes: many share prefixes, some carry a {hash tag},
 * some a TAB or a byte above 0x7f (escaped in tsv, last in byte order). */
static void rand_key(char *out)
{
    h_rand_word(&rng, "ab{}c\t\xff", 6, out);
}

/* A bound from letters only, so it passes through argv as it is. */
static void rand_bound(char *out)
{
    static const char letters[] = "abc{";
    int k = rand_below(8);
    if (k < 2) {
        strcpy(out, k ? "+" : "-");
        return;
    }
    out[0] = k < 5 ? '[' : '(';
    int len = 1 + rand_below(3);
    for (int i = 0; i < len; i++)
        out[1 + i] = letters[rand_below((int)sizeof(letters) - 1)];
    out[1 + len] = '\0';
}

/* Starts rbkv-cli with args, its stdout and stderr into out and err (in
 * the model's dir), its stdin from stdin_fd (-1: /dev/null). Its pid, or
 * -1. */
static pid_t spawn_cli(const char *out, const char *err, const char *const *args, int stdin_fd)
{
    const char *argv[40] = {RBKV_CLI_BIN};
    int n = 1;
    for (; args[n - 1] && n < 39; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    char po[512], pe[512];
    h_path_in(&model, out, po, sizeof(po));
    h_path_in(&model, err, pe, sizeof(pe));
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(po, "w", stdout) || !freopen(pe, "w", stderr))
            _exit(126);
        if (stdin_fd >= 0 ? dup2(stdin_fd, STDIN_FILENO) < 0 : !freopen("/dev/null", "r", stdin))
            _exit(126);
        execv(RBKV_CLI_BIN, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Waits for spawn_cli's pid. Returns its exit status, or -1 (killed after
 * RUN_MS, or a signal). */
static int wait_cli(pid_t pid)
{
    int status = -1;
    pid_t done = 0;
    int64_t deadline = h_now_ms() + RUN_MS;
    while (pid > 0 && (done = waitpid(pid, &status, WNOHANG)) == 0 && h_now_ms() < deadline)
        h_sleep_ms(5);
    if (pid > 0 && done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return -1;
    }
    return pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Runs rbkv-cli with args as spawn_cli does, stdin empty; wait_cli's
 * status. */
static int run_cli(const char *out, const char *err, const char *const *args)
{
    return wait_cli(spawn_cli(out, err, args, -1));
}

/* The bytes of a file in the model's dir (the caller frees them). */
static char *read_out(const char *name, size_t *len)
{
    char path[512];
    h_path_in(&model, name, path, sizeof(path));
    char *s = h_read_file(path, len);
    if (!s) {
        *len = 0;
        s = calloc(1, 1);
    }
    return s;
}

static const char *port_text(const struct h_server *s)
{
    static char text[4][8];
    static int next;
    char *t = text[next++ % 4];
    snprintf(t, 8, "%d", s->port);
    return t;
}

/* rbkv-cli -p <random primary> -c ARGS and rbkv-cli -p <model> ARGS write
 * the same stdout and exit the same, 0. */
static int same_run(const char *const *args)
{
    const char *a[40] = {"-p", port_text(&nodes[rand_below(NPRIMARIES)].s), "-c"};
    const char *b[40] = {"-p", port_text(&model)};
    int n = 0;
    for (; args[n] && n < 36; n++) {
        a[3 + n] = args[n];
        b[2 + n] = args[n];
    }
    int ra = run_cli("c.out", "c.err", a), rb = run_cli("m.out", "m.err", b);
    size_t la, lb, le;
    char *oa = read_out("c.out", &la), *ob = read_out("m.out", &lb);
    char *ea = read_out("c.err", &le);
    char cmd[512] = "";
    for (int i = 0; args[i]; i++)
        snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s", args[i]);
    int ok = CHECK(ra == 0 && rb == 0, "rbkv-cli%s: exit %d with -c (%s), %d without", cmd, ra,
                   ea, rb) &&
             CHECK(la == lb && memcmp(oa, ob, la) == 0,
                   "rbkv-cli%s: %zu bytes with -c, %zu from one node", cmd, la, lb);
    free(oa);
    free(ob);
    free(ea);
    return ok;
}

static int cluster_up(void)
{
    return h_cluster_model_up(nodes, NPRIMARIES, NODE_TIMEOUT_MS, &model, &mc);
}

static void cluster_down(void)
{
    h_cluster_model_down(nodes, NPRIMARIES + 1, &model, &mc); /* test_load's fourth too */
}

/* argv written to the cluster and to the model. */
static int write_both(int argc, const char *const *argv, const size_t *lens)
{
    redisReply *a = h_cluster_call(nodes, NPRIMARIES, nodes[0].c, argc, argv, lens);
    redisReply *b = h_command(mc, argc, argv, lens);
    int ok = CHECK(a && b && a->type != REDIS_REPLY_ERROR && b->type != REDIS_REPLY_ERROR,
                   "a write of %s failed", argv[0]);
    if (a)
        freeReplyObject(a);
    if (b)
        freeReplyObject(b);
    return ok;
}

/* The model's DBSIZE, or -1. */
static long model_keys(void)
{
    redisReply *r = H_CALL(mc, "DBSIZE");
    long n = r ? (long)r->integer : -1;
    if (r)
        freeReplyObject(r);
    return n;
}

/* The same random keys in the cluster and the model; how many there are. */
static long fill(void)
{
    char key[16], val[32];
    for (int i = 0; i < NKEYS; i++) {
        rand_key(key); /* no NUL byte: C strings carry every argument */
        snprintf(val, sizeof(val), "v%d", i);
        if (!write_both(2, (const char *[]){"DEL", key}, NULL))
            return -1;
        int kind = rand_below(12);
        const char *set[] = {"SET", key, val};
        const char *hset[] = {"HSET", key, "f", val};
        const char *zadd[] = {"ZADD", key, "1.5", val};
        const char *rpush[] = {"RPUSH", key, val, "x"};
        const char *const *argv = kind == 1 ? hset : kind == 2 ? zadd : kind == 3 ? rpush : set;
        if (!write_both(argv == set ? 3 : 4, argv, NULL))
            return -1;
    }
    return model_keys();
}

/* One random run's arguments into args (text in bufs). */
static void rand_run(const char **args, char bufs[][16])
{
    int n = 0;
    switch (rand_below(5)) {
    case 0:
        args[n++] = "count";
        rand_bound(bufs[0]);
        rand_bound(bufs[1]);
        args[n++] = bufs[0];
        args[n++] = bufs[1];
        args[n] = NULL;
        return;
    case 1:
        args[n++] = "dump";
        if (rand_below(2)) {
            rand_bound(bufs[0]);
            rand_bound(bufs[1]);
            args[n++] = bufs[0];
            args[n++] = bufs[1];
        }
        args[n++] = "--format";
        args[n++] = rand_below(2) ? "resp" : "tsv";
        break;
    case 2:
        args[n++] = "prefix";
        rand_bound(bufs[0]);
        args[n++] = bufs[0][0] == '-' || bufs[0][0] == '+' ? "a" : bufs[0] + 1;
        break;
    default:
        args[n++] = "range";
        rand_bound(bufs[0]);
        rand_bound(bufs[1]);
        args[n++] = bufs[0];
        args[n++] = bufs[1];
        break;
    }
    if (strcmp(args[0], "dump") != 0) {
        static const char *const formats[] = {"plain", "tsv", "json", "resp"};
        args[n++] = "--format";
        args[n++] = formats[rand_below(3) + 1]; /* plain is not binary-safe */
        if (rand_below(2))
            args[n++] = "--values";
        if (rand_below(2))
            args[n++] = "--rev";
        if (rand_below(3) == 0) {
            snprintf(bufs[2], 16, "%d", rand_below(300));
            args[n++] = "--limit";
            args[n++] = bufs[2];
        }
    }
    if (rand_below(2)) {
        snprintf(bufs[3], 16, "%d", 1 + rand_below(50));
        args[n++] = "--page";
        args[n++] = bufs[3];
    }
    args[n] = NULL;
}

/* 1. Cluster-wide runs against the model. */
static void test_compare(void)
{
    if (!cluster_up())
        goto out;
    rng = h_seed() | 1;
    long total = fill();
    if (!CHECK(total > 0, "no keys"))
        goto out;
    printf("  %ld distinct keys\n", total);
    /* The whole listing, with values, in the default page and in pages of 7. */
    if (!same_run((const char *[]){"range", "-", "+", "--values", "--format", "tsv", NULL}) ||
        !same_run((const char *[]){"dump", "--format", "resp", "--page", "7", NULL}) ||
        !same_run((const char *[]){"range", "-", "+", "--rev", "--format", "json", NULL}))
        goto out;
    const char *args[32];
    char bufs[4][16];
    for (int i = 0; i < NRUNS; i++) {
        rand_run(args, bufs);
        if (!same_run(args))
            break;
    }

    /* --progress: one line per draw off a terminal, the last counting all. */
    char want[64];
    snprintf(want, sizeof(want), "%ld of %ld keys  100%%", total, total);
    int rc = run_cli("p.out", "p.err",
                     (const char *[]){"-p", port_text(&nodes[1].s), "-c", "range", "-", "+",
                                      "--progress", "--page", "100", NULL});
    size_t len;
    char *err = read_out("p.err", &len);
    CHECK(rc == 0 && strstr(err, want) && strstr(err, "3 nodes") && !strchr(err, '\r'),
          "--progress: exit %d, stderr %s", rc, err);
    free(err);

    /* -c against a node not in cluster mode: the plain run. */
    rc = run_cli("m1.out", "m1.err",
                 (const char *[]){"-p", port_text(&model), "-c", "range", "-", "+", NULL});
    int rc2 = run_cli("m2.out", "m2.err",
                      (const char *[]){"-p", port_text(&model), "range", "-", "+", NULL});
    size_t l1, l2;
    char *o1 = read_out("m1.out", &l1), *o2 = read_out("m2.out", &l2);
    CHECK(rc == 0 && rc2 == 0 && l1 == l2 && l1 > 0 && !memcmp(o1, o2, l1),
          "-c on a standalone node: exit %d, %zu bytes vs %zu", rc, l1, l2);
    free(o1);
    free(o2);
out:
    cluster_down();
}

/* The port of the primary serving key's slot, and the slot. */
static int owner_of(const char *key, long long *slot)
{
    redisReply *r = H_CALL(nodes[0].c, "CLUSTER", "KEYSLOT", key);
    *slot = r ? r->integer : -1;
    if (r)
        freeReplyObject(r);
    redisReply *a = h_cluster_call(nodes, NPRIMARIES, nodes[0].c, 3,
                                   (const char *[]){"SET", key, "here"}, NULL);
    char text[256];
    CHECK(a && a->type == REDIS_REPLY_STATUS, "SET %s: %s", key, a ? h_repr(a, text, sizeof(text)) : "(none)");
    if (a)
        freeReplyObject(a);
    for (int i = 0; i < NPRIMARIES; i++) {
        r = H_CALL(nodes[i].c, "EXISTS", key);
        int here = r && r->integer == 1;
        if (r)
            freeReplyObject(r);
        if (here)
            return i;
    }
    return -1;
}

/* Runs rbkv-cli ARGS; CHECKs exit code rc and stdout want (exactly). */
static void expect_run(int rc, const char *want, const char *const *args)
{
    int got = run_cli("r.out", "r.err", args);
    size_t len, elen;
    char *out = read_out("r.out", &len), *err = read_out("r.err", &elen);
    CHECK(got == rc && !strcmp(out, want), "rbkv-cli %s %s: exit %d, stdout [%s], stderr [%s]",
          args[2], args[3], got, out, err);
    free(out);
    free(err);
}

/* 2. Redirects in plain mode, and a range during a migration. */
static void test_redirects(void)
{
    if (!cluster_up())
        goto out;
    long long slot;
    int owner = owner_of("redirected", &slot);
    if (!CHECK(owner >= 0, "no node holds the key"))
        goto out;
    int other = (owner + 1) % NPRIMARIES, third = (owner + 2) % NPRIMARIES;
    const char *p = port_text(&nodes[other].s);
    expect_run(0, "OK\n", (const char *[]){"-p", p, "-c", "SET", "redirected", "v1", NULL});
    expect_run(0, "v1\n", (const char *[]){"-p", p, "-c", "GET", "redirected", NULL});
    char moved[128];
    snprintf(moved, sizeof(moved), "(error) MOVED %lld 127.0.0.1:%d", slot, nodes[owner].s.port);
    int rc = run_cli("r.out", "r.err", (const char *[]){"-p", p, "GET", "redirected", NULL});
    size_t len;
    char *err = read_out("r.err", &len);
    CHECK(rc == 1 && strstr(err, moved), "without -c: exit %d, %s", rc, err);
    free(err);

    /* On a terminal, redis-cli's line for each redirect. */
    if (access("/usr/bin/script", X_OK) == 0) {
        char cmd[1024], line[128], out[4096];
        snprintf(cmd, sizeof(cmd),
                 "script -qec '%s -p %d -c GET redirected' /dev/null </dev/null 2>&1",
                 RBKV_CLI_BIN, nodes[other].s.port);
        snprintf(line, sizeof(line), "-> Redirected to slot [%lld] located at 127.0.0.1:%d", slot,
                 nodes[owner].s.port);
        FILE *f = popen(cmd, "r");
        size_t got = f ? fread(out, 1, sizeof(out) - 1, f) : 0;
        out[got] = '\0';
        if (f)
            pclose(f);
        CHECK(strstr(out, line) && strstr(out, "v1"), "on a terminal: %s", out);
    }

    /* -ASK: the slot migrates from owner to third and the key has moved:
     * the owner answers -ASK, and third serves it only after ASKING. */
    char owner_id[41], third_id[41], slottext[16], sp[8], tp[8];
    h_node_id(&nodes[owner], owner_id);
    h_node_id(&nodes[third], third_id);
    snprintf(slottext, sizeof(slottext), "%lld", slot);
    snprintf(sp, sizeof(sp), "%d", nodes[owner].s.port);
    snprintf(tp, sizeof(tp), "%d", nodes[third].s.port);
    EXPECT_OK(nodes[third].c, "CLUSTER", "SETSLOT", slottext, "IMPORTING", owner_id);
    EXPECT_OK(nodes[owner].c, "CLUSTER", "SETSLOT", slottext, "MIGRATING", third_id);
    EXPECT_OK(nodes[owner].c, "MIGRATE", "127.0.0.1", tp, "redirected", "0", "5000");
    expect_run(0, "v1\n", (const char *[]){"-p", sp, "-c", "GET", "redirected", NULL});
    expect_run(0, "v1\n", (const char *[]){"-p", p, "-c", "GET", "redirected", NULL});

    /* A range while third imports a slot: what it read, then a warning. */
    rc = run_cli("r.out", "r.err", (const char *[]){"-p", p, "-c", "range", "-", "+", NULL});
    err = read_out("r.err", &len);
    size_t olen;
    char *out = read_out("r.out", &olen);
    CHECK(rc == 1 && strstr(err, "slots moved while the keys were read") &&
              strstr(out, "redirected\n"),
          "range during a migration: exit %d, %s", rc, err);
    free(err);
    free(out);
    /* The migration ends (the owner gives the slot to third): plain runs again. */
    EXPECT_OK(nodes[third].c, "CLUSTER", "SETSLOT", slottext, "NODE", third_id);
    EXPECT_OK(nodes[owner].c, "CLUSTER", "SETSLOT", slottext, "NODE", third_id);
    EXPECT_OK(nodes[other].c, "CLUSTER", "SETSLOT", slottext, "NODE", third_id);
    expect_run(0, "v1\n", (const char *[]){"-p", sp, "-c", "GET", "redirected", NULL});
    expect_run(0, "1\n", (const char *[]){"-p", sp, "-c", "count", "[redirected", "[redirected",
                                          NULL});
out:
    cluster_down();
}

/* The model alone: NKEYS random keys of the kinds dump writes (strings,
 * hashes, sorted sets, sets, lists) and NTAGGED strings "a{m}N", whose
 * slot test_load moves while they load. Returns how many keys there are. */
#define NTAGGED 300
static long fill_model(void)
{
    char key[16], val[32], f2[16];
    for (int i = 0; i < NKEYS + NTAGGED; i++) {
        if (i < NKEYS)
            rand_key(key);
        else
            snprintf(key, sizeof(key), "a{m}%d", i - NKEYS);
        snprintf(val, sizeof(val), "v%d", i);
        snprintf(f2, sizeof(f2), "%d", rand_below(1000));
        int kind = i < NKEYS ? rand_below(8) : 0;
        const char *set[] = {"SET", key, val};
        const char *hset[] = {"HSET", key, "f", val, f2, key};
        const char *zadd[] = {"ZADD", key, "1.5", val, f2, key};
        const char *sadd[] = {"SADD", key, val, f2};
        const char *rpush[] = {"RPUSH", key, val, "x", f2};
        const char *const *argv = kind == 1   ? hset
                                  : kind == 2 ? zadd
                                  : kind == 3 ? sadd
                                  : kind == 4 ? rpush
                                              : set;
        int argc = argv == set ? 3 : argv == sadd ? 4 : argv == rpush ? 5 : 6;
        redisReply *r = H_CALL(mc, "DEL", key);
        if (r)
            freeReplyObject(r);
        r = h_command(mc, argc, argv, NULL);
        int ok = CHECK(r && r->type != REDIS_REPLY_ERROR, "a write of %s failed", argv[0]);
        if (r)
            freeReplyObject(r);
        if (!ok)
            return -1;
    }
    return model_keys();
}

/* rbkv-cli -p model dump --format fmt into name; whether it exited 0. */
static int dump_model(const char *fmt, const char *name)
{
    return CHECK(run_cli(name, "dump.err",
                         (const char *[]){"-p", port_text(&model), "dump", "--format", fmt,
                                          NULL}) == 0,
                 "dump --format %s of the model failed", fmt);
}

/* The cluster's `rbkv-cli -c dump --format fmt` is byte for byte the
 * model's, in file want. */
static void same_dump(const char *fmt, const char *want)
{
    int rc = run_cli("cd.out", "cd.err",
                     (const char *[]){"-p", port_text(&nodes[rand_below(NPRIMARIES)].s), "-c",
                                      "dump", "--format", fmt, NULL});
    size_t la, lb;
    char *a = read_out("cd.out", &la), *b = read_out(want, &lb);
    CHECK(rc == 0 && la == lb && !memcmp(a, b, la),
          "-c dump --format %s after -c load: exit %d, %zu bytes, %zu in the model's", fmt, rc, la,
          lb);
    free(a);
    free(b);
}

static void flush_cluster(void)
{
    for (int i = 0; i <= NPRIMARIES; i++)
        if (nodes[i].c)
            EXPECT_OK(nodes[i].c, "FLUSHALL");
}

/* How many keys node i holds in slot. */
static long long keys_in_slot(int i, const char *slot)
{
    redisReply *r = H_CALL(nodes[i].c, "CLUSTER", "COUNTKEYSINSLOT", slot);
    long long n = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
    if (r)
        freeReplyObject(r);
    return n;
}

/* The model's keys that hash to slot (node i says where each hashes): the
 * NTAGGED "a{m}N" of {m}'s slot, and any random key that lands there too. */
static long long model_keys_in_slot(int i, long long slot)
{
    redisReply *keys = H_CALL(mc, "KEYS", "*");
    long long n = 0;
    for (size_t k = 0; keys && keys->type == REDIS_REPLY_ARRAY && k < keys->elements; k++) {
        const redisReply *key = keys->element[k];
        redisReply *r = redisCommand(nodes[i].c, "CLUSTER KEYSLOT %b", key->str, key->len);
        n += r && r->type == REDIS_REPLY_INTEGER && r->integer == slot;
        if (r)
            freeReplyObject(r);
    }
    if (keys)
        freeReplyObject(keys);
    return n;
}

/* Writes len bytes to fd; whether all went. */
static int write_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n <= 0)
            return 0;
        p += n;
        len -= (size_t)n;
    }
    return 1;
}

/* Writes argv as a RESP command to fd; whether all went. */
static int write_command(int fd, int argc, const char **argv)
{
    char *buf;
    int len = redisFormatCommandArgv(&buf, argc, argv, NULL);
    int ok = len > 0 && write_all(fd, buf, (size_t)len);
    if (len > 0)
        redisFreeCommand(buf);
    return ok;
}

/* How many -TRYAGAIN node i has answered (INFO errorstats). */
static long tryagains(int i)
{
    char text[8192], count[64];
    h_call_text(nodes[i].c, text, sizeof(text), "INFO errorstats");
    if (h_info_field(text, "errorstat_TRYAGAIN", count, sizeof(count)) < 0)
        return 0;
    return strncmp(count, "count=", 6) ? -1 : atol(count + 6);
}

/* The value of key, read from the cluster, into out ("(nil)" when it has
 * none). */
static const char *cluster_get(const char *key, char *out, size_t cap)
{
    redisReply *r = h_cluster_call(nodes, NPRIMARIES, nodes[0].c, 2,
                                   (const char *[]){"GET", key}, NULL);
    snprintf(out, cap, "%s", !r ? "(no reply)" : r->type == REDIS_REPLY_STRING ? r->str : "(nil)");
    if (r)
        freeReplyObject(r);
    return out;
}

/* The slot of tag's keys migrates from its owner to another primary, and
 * NSPLIT keys "{tag}i" (each "old") are split: the first half on the
 * target, the rest still on the source. Sets *from and *to (the nodes) and
 * slot's text (16 bytes). Whether it got there. */
#define NSPLIT 20
static int split_slot(const char *tag, int *from, int *to, char *slottext)
{
    char key[32], owner_id[41], target_id[41], port[8];
    long long slot;
    snprintf(key, sizeof(key), "{%s}0", tag);
    *from = owner_of(key, &slot);
    if (!CHECK(*from >= 0, "no node holds %s", key))
        return 0;
    *to = (*from + 1) % NPRIMARIES;
    const char *migrate[8 + NSPLIT / 2] = {"MIGRATE", "127.0.0.1", port, "", "0", "5000", "KEYS"};
    char keys[NSPLIT][32];
    for (int i = 0; i < NSPLIT; i++) {
        snprintf(keys[i], sizeof(keys[i]), "{%s}%d", tag, i);
        EXPECT_OK(nodes[*from].c, "SET", keys[i], "old");
        if (i < NSPLIT / 2)
            migrate[7 + i] = keys[i];
    }
    h_node_id(&nodes[*from], owner_id);
    h_node_id(&nodes[*to], target_id);
    snprintf(slottext, 16, "%lld", slot);
    snprintf(port, sizeof(port), "%d", nodes[*to].s.port);
    EXPECT_OK(nodes[*to].c, "CLUSTER", "SETSLOT", slottext, "IMPORTING", owner_id);
    EXPECT_OK(nodes[*from].c, "CLUSTER", "SETSLOT", slottext, "MIGRATING", target_id);
    redisReply *r = h_command(nodes[*from].c, 7 + NSPLIT / 2, migrate, NULL);
    int ok = CHECK(r && r->type == REDIS_REPLY_STATUS, "MIGRATE of half the {%s} keys failed", tag);
    if (r)
        freeReplyObject(r);
    return ok && CHECK(keys_in_slot(*to, slottext) == NSPLIT / 2 &&
                           keys_in_slot(*from, slottext) == NSPLIT / 2,
                       "{%s}: %lld keys on the target, %lld on the source", tag,
                       keys_in_slot(*to, slottext), keys_in_slot(*from, slottext));
}

/* load -c of RESP commands while the slot of {n} migrates with its keys
 * half moved: MSET of every {n} key gets -TRYAGAIN from the importing
 * node (after -ASK from the source) and is sent again until the rest have
 * moved, then lands; the SETs of one {n} key in each half and the DEL of
 * two after it in the input wait for it, so they land after it. Then a
 * split that never ends: the load stops after its attempts, exit 1. The
 * cluster is test_load's, emptied first. */
static void load_tryagain(void)
{
    int from, to, fds[2];
    char slottext[16], port[8], key[32], got[64];
    flush_cluster(); /* no key of the load before shares the slots */
    if (!split_slot("n", &from, &to, slottext) || !CHECK(pipe2(fds, O_CLOEXEC) == 0, "pipe"))
        return;
    long before = tryagains(to);
    pid_t pid = spawn_cli("t.out", "t.err",
                          (const char *[]){"-p", port_text(&nodes[from].s), "-c", "load", "-",
                                           "--format", "resp", NULL},
                          fds[0]);
    close(fds[0]);
    const char *mset[1 + 2 * NSPLIT] = {"MSET"};
    char keys[NSPLIT][32], vals[NSPLIT][32];
    for (int i = 0; i < NSPLIT; i++) {
        snprintf(keys[i], sizeof(keys[i]), "{n}%d", i);
        snprintf(vals[i], sizeof(vals[i]), "new%d", i);
        mset[1 + 2 * i] = keys[i];
        mset[2 + 2 * i] = vals[i];
    }
    int ok = write_command(fds[1], 3, (const char *[]){"SET", "before", "b"}) &&
             write_command(fds[1], 1 + 2 * NSPLIT, mset) &&
             write_command(fds[1], 3, (const char *[]){"SET", "{n}0", "later"}) &&
             write_command(fds[1], 3, (const char *[]){"SET", "{n}19", "later"}) &&
             write_command(fds[1], 3, (const char *[]){"DEL", "{n}5", "{n}15"}) &&
             write_command(fds[1], 3, (const char *[]){"SET", "after", "a"});
    close(fds[1]);
    /* Two -TRYAGAIN: the client tried again; nothing of {n} moved yet. */
    int64_t deadline = h_now_ms() + RUN_MS;
    while (ok && tryagains(to) < before + 2 && h_now_ms() < deadline)
        h_sleep_ms(10);
    CHECK(ok && tryagains(to) >= before + 2, "the importing node answered %ld -TRYAGAIN",
          tryagains(to) - before);
    EXPECT_OK(nodes[to].c, "ASKING"); /* it imports the slot */
    EXPECT_BULK(nodes[to].c, "old", "GET", "{n}0");
    EXPECT_BULK(nodes[from].c, "old", "GET", "{n}19");
    /* The rest move: the next attempt lands, the slot still migrating. */
    const char *migrate[7 + NSPLIT / 2] = {"MIGRATE", "127.0.0.1", port, "", "0", "5000", "KEYS"};
    snprintf(port, sizeof(port), "%d", nodes[to].s.port);
    for (int i = NSPLIT / 2; i < NSPLIT; i++)
        migrate[7 + i - NSPLIT / 2] = keys[i];
    redisReply *r = h_command(nodes[from].c, 7 + NSPLIT / 2, migrate, NULL);
    CHECK(r && r->type == REDIS_REPLY_STATUS, "MIGRATE of the other {n} keys failed");
    if (r)
        freeReplyObject(r);
    int rc = wait_cli(pid);
    size_t len;
    char *err = read_out("t.err", &len);
    CHECK(rc == 0 && !len, "load -c through -TRYAGAIN: exit %d, stderr [%s]", rc, err);
    free(err);
    char target_id[41];
    h_node_id(&nodes[to], target_id);
    for (int i = 0; i < NPRIMARIES; i++)
        EXPECT_OK(nodes[(to + i) % NPRIMARIES].c, "CLUSTER", "SETSLOT", slottext, "NODE",
                  target_id);
    /* Every key: the MSET's value, but for the later SETs and the DEL. */
    for (int i = 0; i < NSPLIT; i++) {
        snprintf(key, sizeof(key), "{n}%d", i);
        const char *want =
            i == 0 || i == 19 ? "later" : i == 5 || i == 15 ? "(nil)" : vals[i];
        CHECK(!strcmp(cluster_get(key, got, sizeof(got)), want), "%s: %s, not %s", key, got, want);
    }
    CHECK(keys_in_slot(to, slottext) == NSPLIT - 2 && keys_in_slot(from, slottext) == 0,
          "slot %s: %lld keys on the target, %lld on the source", slottext,
          keys_in_slot(to, slottext), keys_in_slot(from, slottext));
    CHECK(!strcmp(cluster_get("before", got, sizeof(got)), "b") &&
              !strcmp(cluster_get("after", got, sizeof(got)), "a"),
          "the keys of other slots were not loaded");

    /* A split that lasts: the MSET's attempts end the load, nothing set. */
    if (!split_slot("f", &from, &to, slottext))
        return;
    char path[512];
    h_path_in(&model, "split.resp", path, sizeof(path));
    FILE *f = fopen(path, "w");
    if (!CHECK(f, "%s", path))
        return;
    fputs("*5\r\n$4\r\nMSET\r\n$4\r\n{f}0\r\n$1\r\nx\r\n$5\r\n{f}19\r\n$1\r\nx\r\n", f);
    fclose(f);
    rc = run_cli("t.out", "t.err",
                 (const char *[]){"-p", port_text(&nodes[from].s), "-c", "load", path, NULL});
    err = read_out("t.err", &len);
    CHECK(rc == 1 && strstr(err, "split.resp: command 1: still -TRYAGAIN after 20 attempts"),
          "a split that lasts: exit %d, stderr [%s]", rc, err);
    free(err);
    EXPECT_OK(nodes[to].c, "ASKING");
    EXPECT_BULK(nodes[to].c, "old", "GET", "{f}0");
    EXPECT_BULK(nodes[from].c, "old", "GET", "{f}19");
}

/* 3. load -c: a dump of the model loaded into the cluster, which then
 *    dumps the same bytes; in tsv while the slot of "{m}" migrates to a
 *    fourth node that had no slot when the load began (the keys first go
 *    to it by -ASK, which adds it to the client's nodes, and after the
 *    move, to a client whose map is then stale, by -MOVED), then in RESP;
 *    and a keyless command refused. */
static void test_load(void)
{
    if (!cluster_up())
        goto out;
    rng = h_seed() | 1;
    long total = fill_model();
    if (!CHECK(total > NTAGGED, "no keys") || !dump_model("resp", "m.resp") ||
        !dump_model("tsv", "m.tsv"))
        goto out;
    printf("  %ld keys\n", total);

    /* A fourth node joins, with no slot, so the client's map does not
     * name it; the slot of {m} migrates to it before the load. */
    long long slot;
    int owner = owner_of("a{m}0", &slot);
    EXPECT_INT(nodes[owner].c, 1, "DEL", "a{m}0");
    const int third = EXTRA;
    if (!CHECK(h_node_start(&nodes[EXTRA], 0, NODE_TIMEOUT_MS) == 0, "the fourth node did not start"))
        goto out;
    char owner_id[41], third_id[41], slottext[16], port[8];
    h_node_id(&nodes[owner], owner_id);
    h_node_id(&nodes[third], third_id);
    snprintf(port, sizeof(port), "%d", nodes[0].s.port);
    EXPECT_OK(nodes[third].c, "CLUSTER", "MEET", "127.0.0.1", port, nodes[0].bus_port);
    int64_t deadline = h_now_ms() + RUN_MS;
    for (int known = 0; !known && h_now_ms() < deadline;) {
        known = 1;
        for (int i = 0; i <= NPRIMARIES && known; i++) {
            char text[4096];
            h_call_text(nodes[i].c, text, sizeof(text), "CLUSTER NODES");
            known = strstr(text, i == third ? owner_id : third_id) != NULL &&
                    (i != third || h_cluster_ok(&nodes[third]));
        }
        if (!known)
            h_sleep_ms(20);
    }
    snprintf(slottext, sizeof(slottext), "%lld", slot);
    EXPECT_OK(nodes[third].c, "CLUSTER", "SETSLOT", slottext, "IMPORTING", owner_id);
    EXPECT_OK(nodes[owner].c, "CLUSTER", "SETSLOT", slottext, "MIGRATING", third_id);

    /* The tsv dump through a pipe (getline hands each line on at once;
     * RESP is read 64 KB at a time): up to the 40th line naming {m}, so
     * some reach third by -ASK (a batch of 3: at most 5 wait in the
     * client)... */
    size_t len;
    char *tsv = read_out("m.tsv", &len);
    const char *cut = tsv;
    for (int i = 0; i < 40 && cut; i++)
        cut = memmem(cut + 1, len - (size_t)(cut + 1 - tsv), "{m}", 3);
    if (cut)
        cut = memchr(cut, '\n', len - (size_t)(cut - tsv));
    int fds[2];
    if (!CHECK(cut, "the dump has fewer than 40 {m} keys") || !CHECK(pipe2(fds, O_CLOEXEC) == 0, "pipe")) {
        free(tsv);
        goto out;
    }
    const char *p = port_text(&nodes[(owner + 2) % NPRIMARIES].s);
    pid_t pid = spawn_cli("l.out", "l.err",
                          (const char *[]){"-p", p, "-c", "load", "-", "--batch", "3", NULL},
                          fds[0]);
    close(fds[0]);
    size_t first = (size_t)(cut + 1 - tsv);
    int ok = write_all(fds[1], tsv, first);
    deadline = h_now_ms() + RUN_MS;
    while (ok && keys_in_slot(third, slottext) < 20 && h_now_ms() < deadline)
        h_sleep_ms(10);
    CHECK(keys_in_slot(third, slottext) >= 20 && keys_in_slot(owner, slottext) == 0,
          "-ASK: third holds %lld keys of slot %s, the owner %lld", keys_in_slot(third, slottext),
          slottext, keys_in_slot(owner, slottext));
    /* ... then the slot is third's, which the client learns by -MOVED. */
    EXPECT_OK(nodes[third].c, "CLUSTER", "SETSLOT", slottext, "NODE", third_id);
    for (int i = 0; i < NPRIMARIES; i++)
        EXPECT_OK(nodes[(owner + i) % NPRIMARIES].c, "CLUSTER", "SETSLOT", slottext, "NODE",
                  third_id);
    ok = ok && write_all(fds[1], tsv + first, len - first);
    close(fds[1]);
    free(tsv);
    int rc = wait_cli(pid);
    char *err = read_out("l.err", &len);
    CHECK(ok && rc == 0 && !len, "load -c: exit %d, stderr [%s]", rc, err);
    free(err);
    long long want = model_keys_in_slot(third, slot);
    CHECK(want >= NTAGGED && keys_in_slot(third, slottext) == want,
          "third holds %lld keys of slot %s, not %lld", keys_in_slot(third, slottext), slottext,
          want);
    same_dump("tsv", "m.tsv");

    /* RESP (every kind of value), from a file, in the default batches. */
    flush_cluster();
    char path[512];
    h_path_in(&model, "m.resp", path, sizeof(path));
    rc = run_cli("l.out", "l.err",
                 (const char *[]){"-p", port_text(&nodes[owner].s), "-c", "load", path, NULL});
    CHECK(rc == 0, "load -c of RESP: exit %d", rc);
    same_dump("resp", "m.resp");

    /* A command without a key has no node: refused with its number. */
    h_path_in(&model, "keyless.resp", path, sizeof(path));
    FILE *f = fopen(path, "w");
    if (CHECK(f, "%s", path)) {
        fputs("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*1\r\n$4\r\nPING\r\n", f);
        fclose(f);
        rc = run_cli("l.out", "l.err",
                     (const char *[]){"-p", port_text(&nodes[owner].s), "-c", "load", path, NULL});
        err = read_out("l.err", &len);
        CHECK(rc == 2 && strstr(err, "command 2 (byte offset 27): names no key") &&
                  strstr(err, "1 command sent before it"),
              "a keyless command: exit %d, %s", rc, err);
        free(err);
    }
    load_tryagain();
out:
    cluster_down();
}

/* The reply of argv from the cluster (through nodes, following -MOVED) or
 * from the model (nodes NULL). */
static redisReply *call_on(struct h_node *ns, redisContext *c, int argc, const char **argv,
                           const size_t *lens)
{
    return ns ? h_cluster_call(ns, NPRIMARIES, ns[0].c, argc, argv, lens)
              : h_command(c, argc, argv, lens);
}

/* An element of a value: a member, or a hash's field and value. */
struct elem {
    const redisReply *k, *v;
};

static int cmp_elem(const void *a, const void *b)
{
    const redisReply *x = ((const struct elem *)a)->k, *y = ((const struct elem *)b)->k;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->str, y->str, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* A key's value as text that two servers holding the same value give
 * alike: its type, then its elements, length-prefixed (a set's sorted, a
 * hash's as field=value pairs sorted by field). The caller frees it; NULL
 * on a failed call. */
static char *value_text(struct h_node *ns, redisContext *c, const char *key, size_t klen)
{
    const char *argv[5] = {"TYPE", key};
    size_t lens[5] = {4, klen};
    redisReply *t = call_on(ns, c, 2, argv, lens);
    if (!t || t->type != REDIS_REPLY_STATUS) {
        if (t)
            freeReplyObject(t);
        return NULL;
    }
    int argc = 2, step = 1, sorted = 1;
    if (!strcmp(t->str, "string")) {
        argv[0] = "GET";
    } else if (!strcmp(t->str, "hash")) {
        argv[0] = "HGETALL";
        step = 2;
    } else if (!strcmp(t->str, "set")) {
        argv[0] = "SMEMBERS";
    } else {
        int zset = !strcmp(t->str, "zset");
        argv[0] = zset ? "ZRANGE" : "LRANGE";
        argv[2] = "0";
        argv[3] = "-1";
        argv[4] = "WITHSCORES";
        argc = zset ? 5 : 4;
        sorted = 0;
    }
    for (int i = 0; i < argc; i++)
        if (i != 1)
            lens[i] = strlen(argv[i]);
    redisReply *v = call_on(ns, c, argc, argv, lens);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fputs(t->str, f);
    if (v && v->type == REDIS_REPLY_STRING) {
        fprintf(f, " %zu:", v->len);
        fwrite(v->str, 1, v->len, f);
    } else if (v && v->type == REDIS_REPLY_ARRAY) {
        size_t n = v->elements / (size_t)step;
        struct elem *e = calloc(n ? n : 1, sizeof(*e));
        for (size_t i = 0; e && i < n; i++)
            e[i] = (struct elem){v->element[i * (size_t)step],
                                 step == 2 ? v->element[i * 2 + 1] : NULL};
        if (e && sorted)
            qsort(e, n, sizeof(*e), cmp_elem);
        for (size_t i = 0; e && i < n; i++) {
            fprintf(f, " %zu:", e[i].k->len);
            fwrite(e[i].k->str, 1, e[i].k->len, f);
            if (e[i].v) {
                fprintf(f, "=%zu:", e[i].v->len);
                fwrite(e[i].v->str, 1, e[i].v->len, f);
            }
        }
        free(e);
    } else {
        fputs(" ?", f);
    }
    fclose(f);
    freeReplyObject(t);
    if (v)
        freeReplyObject(v);
    return text;
}

/* 4. load -c into a cluster of three redis-server 7.0.15 primaries: a
 *    RESP dump holds Redis commands only (SET, HSET, SADD, ZADD, RPUSH),
 *    and every key of the model reads back alike. */
static void test_load_redis(void)
{
    int up = h_cluster_create_of(nodes, NPRIMARIES, 1, NODE_TIMEOUT_MS);
    if (up < 0) {
        printf("  no redis-server: skipped\n");
        goto out;
    }
    if (!up)
        goto out;
    if (h_start(&model, NULL) != 0 || !(mc = h_connect(&model))) {
        CHECK(0, "the standalone node did not start");
        goto out;
    }
    rng = h_seed() | 1;
    long total = fill_model();
    if (!CHECK(total > 0, "no keys") || !dump_model("resp", "m.resp"))
        goto out;
    char path[512];
    h_path_in(&model, "m.resp", path, sizeof(path));
    int rc = run_cli("l.out", "l.err",
                     (const char *[]){"-p", port_text(&nodes[1].s), "-c", "load", path, NULL});
    if (!CHECK(rc == 0, "load -c into redis-server: exit %d", rc))
        goto out;
    redisReply *keys = H_CALL(mc, "KEYS", "*");
    long loaded = 0;
    for (int i = 0; i < NPRIMARIES; i++) {
        redisReply *r = H_CALL(nodes[i].c, "DBSIZE");
        loaded += r ? (long)r->integer : 0;
        if (r)
            freeReplyObject(r);
    }
    CHECK(keys && (long)keys->elements == total && loaded == total,
          "%ld keys in the model, %ld in the cluster", total, loaded);
    for (size_t i = 0; keys && i < keys->elements; i++) {
        const redisReply *k = keys->element[i];
        char *a = value_text(NULL, mc, k->str, k->len), *b = value_text(nodes, NULL, k->str, k->len);
        int same = CHECK(a && b && !strcmp(a, b), "key %s: [%s] in the model, [%s] in redis",
                         k->str, a ? a : "?", b ? b : "?");
        free(a);
        free(b);
        if (!same)
            break;
    }
    if (keys)
        freeReplyObject(keys);
out:
    cluster_down();
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_compare);
    H_RUN(test_redirects);
    H_RUN(test_load);
    H_RUN(test_load_redis);
    return h_finish();
}
