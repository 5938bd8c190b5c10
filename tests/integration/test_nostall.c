/*
 * test_nostall.c - big deletions that must not hold the loop (issue 38):
 * KDELRANGE over a range of a million keys cuts it out of the keyspace at
 * once and frees it in slices (server/data/keyspace.c's ks_cut,
 * server/core/lazyfree.c), and a mass expiry runs in the active cycle's
 * 1 ms slices (200,000 keys here, set due by one script), and
 * ZREMRANGEBYRANK of a million members cuts them off at once for the
 * lazy-free thread, and so does HDELRANGE of a million fields with the
 * chunks of its hash (omap.c's om_cut_span); ZREMRANGEBYRANK of half of a
 * million members leaves the names in the set's hash table, passed over
 * until the slices clear them (zset.c's zs_cut_step). KDELRANGE over a
 * million keys that all have a deadline is cut too, their records leaving
 * the expiry tree at once (INFO keyspace's expires=, TTL, active expiry).
 *
 * Each probe sends the deletion on one connection and PINGs on another
 * until the deletion answered and nothing is pending, keeping the worst
 * PING wait. Before the cut, KDELRANGE PREFIX over 1,000,000 keys held the
 * loop 940 ms on this machine (2.5 to 2.9 s in bench/lazyfree_vs_redis.sh);
 * the bound asserted, PROBE_BOUND_MS, is under that and far above the 1
 * to 10 ms the slices give: on this shared machine at load averages of 16
 * to 23 the worst waits seen were 99 to 285 ms, all of it waiting for a
 * core. The command's own time (INFO commandstats, which no scheduling
 * delay of the client inflates) must stay under COMMAND_BOUND_US, the
 * steadier of the two. Neither is asserted in slow builds (sanitizers,
 * valgrind), where both are only printed. The data is checked exactly: DBSIZE, KCOUNT, what is left, a key
 * written again at once; a randomized run compares KDELRANGE with LIMIT
 * and SETs of deleted keys (while their old entries are being freed) with
 * a model (SEED= printed, accepted); WATCH of a key in a cut range aborts
 * EXEC and of a key outside it does not; the append-only log replays a cut
 * to the same keys, and a replica ends with the primary's keys. HDELRANGE
 * is compared with a model of the hash over random bounds, with fields
 * written back at once, and its HDELs replayed from the log and applied by
 * a replica give the same hash. In cluster mode (a one-node cluster) the
 * cut's entries wait in their slot's key set: COUNTKEYSINSLOT and
 * GETKEYSINSLOT are compared with a model, right after cuts and after the
 * slices.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define PROBE_KEYS 1000000  /* divided by H_SLOW */
#define PROBE_BOUND_MS 750  /* under the 940 ms measured before the cut */
#define COMMAND_BOUND_US 50000 /* the command's own time, as INFO commandstats says */
/* The same with the log on, where walking a million keys' DELs into it
 * took 1.1 s before (bench/README.md, branch h-rangedel); the command
 * itself takes about 0.2 ms now. */
#define PROPAGATE_BOUND_US 20000
/* KDELRANGE over PROBE_KEYS keys with deadlines held the loop 6.8 to 10 s
 * before it was cut (bench/lazyfree_vs_redis.sh's kdelttl); this is under
 * a fourth of that, and above the 99 to 285 ms of waiting for a core seen
 * with the cut at load averages of 16 (asserted in every build, scaled by
 * H_SLOW, unlike PROBE_BOUND_MS). */
#define TTL_PROBE_BOUND_MS 1500
#define BATCH 1000
#define WAIT_MS (20000 * H_SLOW)
/* The mass expiry's keys: one script gives them their deadline, and a
 * script of a million PEXPIREs outlasts a client's patience on a loaded
 * machine. */
#define EXPIRY_KEYS (PROBE_KEYS / 5)

static struct h_server srv;

/* SETs keys "<prefix>%07d" for i in [0, n), value "v", MSET by BATCH. */
static void fill(redisContext *c, const char *prefix, int n)
{
    static char keys[BATCH][32];
    const char *argv[1 + 2 * BATCH];
    int sent = 0;
    for (int i = 0; i < n; i += BATCH) {
        int argc = 0;
        argv[argc++] = "MSET";
        for (int j = 0; j < BATCH && i + j < n; j++) {
            snprintf(keys[j], sizeof(keys[j]), "%s%07d", prefix, i + j);
            argv[argc++] = keys[j];
            argv[argc++] = "v";
        }
        h_append(c, argc, argv, NULL);
        sent++;
    }
    for (int i = 0; i < sent; i++) {
        redisReply *r = h_get_reply(c);
        CHECK(r && r->type == REDIS_REPLY_STATUS, "MSET failed");
        if (r)
            freeReplyObject(r);
    }
}

static long long info_ll(redisContext *c, const char *field)
{
    redisReply *r = H_CALL(c, "INFO", "everything");
    char out[64] = "";
    long long v = -1;
    if (r && r->type == REDIS_REPLY_STRING && h_info_field(r->str, field, out, sizeof(out)) == 0)
        v = atoll(out);
    if (r)
        freeReplyObject(r);
    return v;
}

/* Sends cmd (raw RESP) on r and PINGs on p until its reply came and
 * done(p) says the work behind it is over; returns the worst PING wait in
 * ms, or -1. The reply is left in r->buf, *len bytes. */
static long long probe(struct h_raw *r, redisContext *p, const char *cmd, size_t *len,
                       int (*done)(redisContext *))
{
    long long worst = 0;
    int replied = 0;
    int64_t end = h_now_ms() + WAIT_MS;
    if (h_raw_send(r, cmd, strlen(cmd)) < 0)
        return -1;
    while (h_now_ms() < end) {
        int64_t t0 = h_now_ms();
        redisReply *pong = H_CALL(p, "PING");
        long long waited = h_now_ms() - t0;
        if (!pong)
            return -1;
        freeReplyObject(pong);
        if (waited > worst)
            worst = waited;
        if (!replied)
            replied = h_raw_read_reply(r, len, 1) == 0; /* 0 ms reads nothing */
        if (replied && done(p))
            return worst;
    }
    CHECK(0, "the deletion did not finish within %d ms", WAIT_MS);
    return -1;
}

static int nothing_pending(redisContext *p)
{
    return info_ll(p, "lazyfree_pending_objects") == 0;
}

/* Waits for the slices and the thread to finish what is pending. */
static void wait_nothing_pending(redisContext *c)
{
    int64_t end = h_now_ms() + WAIT_MS;
    while (!nothing_pending(c) && h_now_ms() < end)
        h_sleep_ms(5);
    CHECK(nothing_pending(c), "frees still pending after %d ms", WAIT_MS);
}

/* The usec INFO commandstats gives cmdstat_<name>, or -1. */
static long long command_usec(redisContext *c, const char *name)
{
    redisReply *r = H_CALL(c, "INFO", "commandstats");
    char field[64], out[128] = "";
    long long usec = -1;
    snprintf(field, sizeof(field), "cmdstat_%s", name);
    if (r && r->type == REDIS_REPLY_STRING && h_info_field(r->str, field, out, sizeof(out)) == 0) {
        const char *u = strstr(out, "usec=");
        if (u)
            usec = atoll(u + 5);
    }
    if (r)
        freeReplyObject(r);
    return usec;
}

/* Judges the worst PING wait, and the command's own time when name is set. */
static void judge(redisContext *c, const char *what, long long worst, const char *name)
{
    long long usec = name ? command_usec(c, name) : 0;
    printf("# worst PING wait during %s: %lld ms (the command itself: %lld us)\n", what, worst,
           usec);
    if (h_slow() > 1)
        return;
    CHECK(worst >= 0 && worst < PROBE_BOUND_MS, "%s held the loop %lld ms", what, worst);
    CHECK(usec >= 0 && usec < COMMAND_BOUND_US, "%s ran %lld us", what, usec);
}

/* A flushed server s, the connection *c that fills and checks, *p that
 * PINGs, and r that sends the deletion; its stats reset. Returns 0, or -1
 * after a failure. */
static int probe_open_on(const struct h_server *s, redisContext **c, redisContext **p,
                         struct h_raw *r)
{
    *c = h_connect_flushed(s);
    *p = h_connect(s);
    if (!*c || !*p || h_raw_open(r, s) < 0)
        return -1;
    EXPECT_OK(*c, "CONFIG", "RESETSTAT");
    return 0;
}

/* probe_open_on the shared server. */
static int probe_open(redisContext **c, redisContext **p, struct h_raw *r)
{
    return probe_open_on(&srv, c, p, r);
}

/* Probes the deletion cmd (inline) on r, PINGing on p, expects it to
 * answer :removed, judges it (the command's name in INFO is name), then
 * closes r and p. Returns the worst PING wait in ms, or -1. */
static long long probe_deletion(redisContext *c, redisContext *p, struct h_raw *r, const char *cmd,
                           long long removed, const char *what, const char *name)
{
    char line[128], want[32];
    size_t len = 0;
    snprintf(line, sizeof(line), "%s\r\n", cmd);
    long long worst = probe(r, p, line, &len, nothing_pending);
    snprintf(want, sizeof(want), ":%lld\r\n", removed);
    CHECK(worst >= 0 && len == strlen(want) && !memcmp(r->buf, want, len), "%s's reply", cmd);
    judge(c, what, worst, name);
    h_raw_close(r);
    redisFree(p);
    return worst;
}

/* A probe test: c (its own, flushed), p and r (probe_open's, which
 * probe_deletion closes), n the keys or members it fills. */
typedef void probe_fn(redisContext *c, redisContext *p, struct h_raw *r, int n);

static void run_probe(probe_fn *test)
{
    redisContext *c, *p;
    struct h_raw r;
    if (probe_open(&c, &p, &r) < 0)
        return;
    test(c, p, &r, PROBE_KEYS / H_SLOW);
    redisFree(c);
}

#define RUN_PROBE(fn)                                                                             \
    do {                                                                                          \
        if (h_begin(#fn)) {                                                                       \
            run_probe(fn);                                                                        \
            h_end();                                                                              \
        }                                                                                         \
    } while (0)

/* KDELRANGE PREFIX over PROBE_KEYS keys between two that stay. */
static void test_kdelrange_probe(redisContext *c, redisContext *p, struct h_raw *r, int n)
{
    fill(c, "k:", n);
    EXPECT_OK(c, "SET", "a", "1");
    EXPECT_OK(c, "SET", "z", "1");
    EXPECT_INT(c, n + 2, "DBSIZE");
    probe_deletion(c, p, r, "KDELRANGE PREFIX k:", n, "KDELRANGE PREFIX over a million keys",
                   "kdelrange");
    EXPECT_INT(c, 2, "DBSIZE");
    EXPECT_INT(c, 2, "KCOUNT", "-", "+");
    EXPECT_INT(c, 0, "EXISTS", "k:0000005");
    EXPECT_OK(c, "SET", "k:0000005", "again");
    EXPECT_BULK(c, "again", "GET", "k:0000005");
    EXPECT_REPLY(c, "['a', 'k:0000005', 'z']", "KRANGE", "0", "-1");
}

/* SETs keys "<prefix>%07d" for i in [0, n), value "v", each with a
 * deadline secs seconds away (SET ... EX), BATCH at a time in flight. */
static void fill_ex(redisContext *c, const char *prefix, int n, const char *secs)
{
    char key[32];
    for (int i = 0; i < n; i += BATCH) {
        int sent = 0;
        for (; sent < BATCH && i + sent < n; sent++) {
            snprintf(key, sizeof(key), "%s%07d", prefix, i + sent);
            H_APPEND(c, "SET", key, "v", "EX", secs);
        }
        for (int j = 0; j < sent; j++) {
            redisReply *r = h_get_reply(c);
            CHECK(r && r->type == REDIS_REPLY_STATUS, "SET EX failed");
            if (r)
                freeReplyObject(r);
        }
    }
}

/* KDELRANGE PREFIX over PROBE_KEYS keys that each have a deadline far off,
 * far more than KS_CUT_WALK_MAX (server/data/keyspace.h): before, such a
 * db was deleted key by key (6.8 to 10 s of loop at a million keys). The
 * cut rebuilds the expiry tree from the few keys that stay: "a" (a
 * deadline) and "z" (none). Then the same over a tenth as many keys, with
 * the checks sent right after the reply, while the slices still free the
 * keys, and a key "b" due soon that active expiry must find in the rebuilt
 * tree (and nothing else). */
static void test_kdelttl_probe(redisContext *c, redisContext *p, struct h_raw *r, int n)
{
    fill_ex(c, "k:", n, "1000000");
    EXPECT_OK(c, "SET", "a", "1", "EX", "1000");
    EXPECT_OK(c, "SET", "z", "1");
    char keyspace[96];
    snprintf(keyspace, sizeof(keyspace), "*db0:keys=%d,expires=%d,*", n + 2, n + 1);
    EXPECT_MATCH(c, keyspace, "INFO", "keyspace");
    long long worst = probe_deletion(c, p, r, "KDELRANGE PREFIX k:", n,
                                     "KDELRANGE PREFIX over a million keys with deadlines",
                                     "kdelrange");
    /* Bounds far from both sides, scaled by the harness's slowness: the
     * per-key path took seconds of loop and of the command's own time. */
    CHECK(worst >= 0 && worst < TTL_PROBE_BOUND_MS * H_SLOW, "the loop was held %lld ms", worst);
    long long usec = command_usec(c, "kdelrange");
    CHECK(usec >= 0 && usec < COMMAND_BOUND_US * H_SLOW, "KDELRANGE ran %lld us", usec);
    EXPECT_MATCH(c, "*db0:keys=2,expires=1,*", "INFO", "keyspace");

    int m = n / 10;
    fill_ex(c, "k:", m, "1000000");
    EXPECT_OK(c, "SET", "b", "1", "PX", "300");
    EXPECT_INT(c, m, "KDELRANGE", "PREFIX", "k:");
    EXPECT_INT(c, 3, "DBSIZE");
    EXPECT_MATCH(c, "*db0:keys=3,expires=2,*", "INFO", "keyspace");
    EXPECT_INT(c, 3, "KCOUNT", "-", "+");
    EXPECT_REPLY(c, "['0', ['a', 'b', 'z']]", "SCAN", "0", "COUNT", "100");
    EXPECT_INT(c, -1, "TTL", "z");
    redisReply *ttl = H_CALL(c, "TTL", "a");
    CHECK(ttl && ttl->type == REDIS_REPLY_INTEGER && ttl->integer > 900 && ttl->integer <= 1000,
          "a kept its deadline");
    if (ttl)
        freeReplyObject(ttl);
    EXPECT_INT(c, -2, "TTL", "k:0000005");
    EXPECT_OK(c, "SET", "k:0000005", "again");
    EXPECT_INT(c, -1, "TTL", "k:0000005");
    EXPECT_MATCH(c, "*db0:keys=4,expires=2,*", "INFO", "keyspace");
    /* The active cycle walks the rebuilt expiry tree and removes b alone. */
    CHECK(h_wait_info(c, "stats", "expired_keys", "1", WAIT_MS), "b was not expired");
    wait_nothing_pending(c);
    EXPECT_MATCH(c, "*db0:keys=3,expires=1,*", "INFO", "keyspace");
    EXPECT_REPLY(c, "['a', 'k:0000005', 'z']", "KRANGE", "0", "-1");
}

/* One pair of arguments of element i: a score and a member, or a field
 * and a value; prefix is the caller's. */
typedef void pair_fn(const char *prefix, int i, char *a, char *b, size_t size);

/* cmd key and the pairs of elements [0, n), BATCH to a command, every
 * reply an integer. */
static void pairs_fill(redisContext *c, const char *cmd, const char *key, int n, pair_fn *pair,
                       const char *prefix)
{
    static char buf[BATCH][2][32];
    const char *argv[2 + 2 * BATCH];
    int sent = 0;
    for (int i = 0; i < n; i += BATCH) {
        int argc = 0;
        argv[argc++] = cmd;
        argv[argc++] = key;
        for (int j = 0; j < BATCH && i + j < n; j++) {
            pair(prefix, i + j, buf[j][0], buf[j][1], sizeof(buf[j][0]));
            argv[argc++] = buf[j][0];
            argv[argc++] = buf[j][1];
        }
        h_append(c, argc, argv, NULL);
        sent++;
    }
    for (int i = 0; i < sent; i++) {
        redisReply *r = h_get_reply(c);
        CHECK(r && r->type == REDIS_REPLY_INTEGER, "%s failed", cmd);
        if (r)
            freeReplyObject(r);
    }
}

static void member_scored(const char *prefix, int i, char *a, char *b, size_t size)
{
    (void)prefix;
    snprintf(a, size, "%d", i);
    snprintf(b, size, "m:%07d", i);
}

static void member_flat(const char *prefix, int i, char *a, char *b, size_t size)
{
    (void)prefix;
    snprintf(a, size, "0");
    snprintf(b, size, "m:%07d", i);
}

static void field_valued(const char *prefix, int i, char *a, char *b, size_t size)
{
    snprintf(a, size, "%s%07d", prefix, i);
    snprintf(b, size, "v%d", i);
}

/* ZADDs n members m:<i> scored i (or all scored 0 when flat) to key. */
static void zfill(redisContext *c, const char *key, int n, int flat)
{
    pairs_fill(c, "ZADD", key, n, flat ? member_flat : member_scored, NULL);
}

/* HSETs fields "<prefix>%07d" for i in [0, n) of key, value "v<i>". */
static void hfill(redisContext *c, const char *key, const char *prefix, int n)
{
    pairs_fill(c, "HSET", key, n, field_valued, prefix);
}

/* The last of n members zfill gave z is there, with its score. */
static void expect_last_member(redisContext *c, int n)
{
    char last[24], lastscore[16];
    snprintf(last, sizeof(last), "m:%07d", n - 1);
    snprintf(lastscore, sizeof(lastscore), "'%d'", n - 1);
    EXPECT_REPLY(c, lastscore, "ZSCORE", "z", last);
}

/* ZREMRANGEBYRANK of all but the last of PROBE_KEYS members: the run is
 * cut off at once and freed on the lazy-free thread. */
static void test_zrem_probe(redisContext *c, redisContext *p, struct h_raw *r, int n)
{
    zfill(c, "z", n, 0);
    probe_deletion(c, p, r, "ZREMRANGEBYRANK z 0 -2", n - 1,
                   "ZREMRANGEBYRANK over a million members", "zremrangebyrank");
    EXPECT_INT(c, 1, "ZCARD", "z");
    expect_last_member(c, n);
    EXPECT_NIL(c, "ZSCORE", "z", "m:0000005");
    EXPECT_INT(c, 1, "ZADD", "z", "5", "m:0000005");
    EXPECT_INT(c, 2, "ZCARD", "z");
}

/* ZREMRANGEBYRANK of half of PROBE_KEYS members: the run is cut off at
 * once and its names, too many to clear from the set's table at once,
 * are cleared and freed in slices. */
static void test_zrem_half_probe(redisContext *c, redisContext *p, struct h_raw *r, int n)
{
    zfill(c, "z", n, 0);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "ZREMRANGEBYRANK z 0 %d", n / 2 - 1);
    probe_deletion(c, p, r, cmd, n / 2, "ZREMRANGEBYRANK of half of a million members",
                   "zremrangebyrank");
    EXPECT_INT(c, n - n / 2, "ZCARD", "z");
    EXPECT_NIL(c, "ZSCORE", "z", "m:0000005");
    expect_last_member(c, n);
}

/* Right after such a cut, before its slices ran: names of the cut run are
 * absent, come back, and ZSCAN returns only members; renamed, deleted or
 * flushed, the set leaves nothing pending. */
static void test_zrem_pending(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    zfill(c, "z", 20000, 0);
    /* One pipeline, so no slice runs between the cut and the reads. */
    H_APPEND(c, "ZREMRANGEBYRANK", "z", "0", "9999");
    H_APPEND(c, "ZSCORE", "z", "m:0000005");
    H_APPEND(c, "ZADD", "z", "-5", "m:0000005");
    H_APPEND(c, "ZSCORE", "z", "m:0000005");
    H_APPEND(c, "ZCARD", "z");
    H_APPEND(c, "ZRANGE", "z", "0", "1");
    EXPECT_NEXT(c, ":10000");
    EXPECT_NEXT(c, "(nil)");
    EXPECT_NEXT(c, ":1");
    EXPECT_NEXT(c, "'-5'");
    EXPECT_NEXT(c, ":10001");
    EXPECT_NEXT(c, "['m:0000005', 'm:0010000']");
    /* A whole ZSCAN: every member once at least, no cut one. */
    char cursor[32] = "0";
    static unsigned char seen[20000];
    memset(seen, 0, sizeof(seen));
    int stray = 0, rounds = 0;
    do {
        redisReply *rep = H_CALL(c, "ZSCAN", "z", cursor, "COUNT", "1000");
        if (!rep || rep->type != REDIS_REPLY_ARRAY || rep->elements != 2) {
            CHECK(0, "ZSCAN's reply");
            if (rep)
                freeReplyObject(rep);
            break;
        }
        snprintf(cursor, sizeof(cursor), "%s", rep->element[0]->str);
        for (size_t i = 0; i < rep->element[1]->elements; i += 2) {
            int k = atoi(rep->element[1]->element[i]->str + 2);
            stray |= k < 0 || k >= 20000 || (k < 10000 && k != 5);
            if (k >= 0 && k < 20000)
                seen[k] = 1;
        }
        freeReplyObject(rep);
    } while (strcmp(cursor, "0") != 0 && ++rounds < 100000);
    int count = 0;
    for (int k = 0; k < 20000; k++)
        count += seen[k];
    CHECK(!stray && count == 10001, "ZSCAN saw %d members, stray %d", count, stray);
    /* Renamed while pending, then deleted; and a cut flushed at once. */
    H_APPEND(c, "ZREMRANGEBYRANK", "z", "0", "4999");
    H_APPEND(c, "RENAME", "z", "z2");
    H_APPEND(c, "ZCARD", "z2");
    H_APPEND(c, "DEL", "z2");
    EXPECT_NEXT(c, ":5000");
    EXPECT_NEXT(c, "+OK");
    EXPECT_NEXT(c, ":5001");
    EXPECT_NEXT(c, ":1");
    zfill(c, "z", 20000, 0);
    H_APPEND(c, "ZREMRANGEBYRANK", "z", "5000", "14999");
    H_APPEND(c, "FLUSHALL");
    H_APPEND(c, "INFO", "everything");
    EXPECT_NEXT(c, ":10000");
    EXPECT_NEXT(c, "+OK");
    redisReply *info = h_get_reply(c);
    char pending[32] = "";
    CHECK(info && info->type == REDIS_REPLY_STRING &&
              h_info_field(info->str, "lazyfree_pending_objects", pending, sizeof(pending)) == 0 &&
              !strcmp(pending, "0"),
          "a cut pending in FLUSHALL's reply: %s", pending);
    if (info)
        freeReplyObject(info);
    wait_nothing_pending(c);
    redisFree(c);
}

/* INFO's lazyfree_pending_objects, read from the next reply of c's
 * pipeline; -1 when it is not there. */
static long long next_pending(redisContext *c)
{
    redisReply *info = h_get_reply(c);
    char pending[32] = "";
    long long n = -1;
    if (info && info->type == REDIS_REPLY_STRING &&
        h_info_field(info->str, "lazyfree_pending_objects", pending, sizeof(pending)) == 0)
        n = atoll(pending);
    if (info)
        freeReplyObject(info);
    return n;
}

/* A set moved while its cut is pending (RENAME, MOVE, SWAPDB): the cut is
 * still counted pending under the set's new place, and cleared there; it
 * used to be found by the old name only, so it stayed until the set went. */
static void test_zrem_pending_moved(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    static const char *const moves[][4] = {
        {"RENAME", "z", "z2", NULL}, {"MOVE", "z", "1", NULL}, {"SWAPDB", "0", "1", NULL}};
    for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++) {
        EXPECT_OK(c, "FLUSHALL");
        zfill(c, "z", 20000, 0);
        /* One pipeline, so no slice runs between the cut and the INFO. */
        H_APPEND(c, "ZREMRANGEBYRANK", "z", "0", "9999");
        H_APPEND(c, moves[i][0], moves[i][1], moves[i][2]);
        H_APPEND(c, "INFO", "memory");
        EXPECT_NEXT(c, ":10000");
        redisReply *r = h_get_reply(c);
        CHECK(r && (r->type == REDIS_REPLY_STATUS || r->type == REDIS_REPLY_INTEGER),
              "%s's reply", moves[i][0]);
        if (r)
            freeReplyObject(r);
        long long pending = next_pending(c);
        CHECK(pending >= 1, "after %s, the cut counts pending: %lld", moves[i][0], pending);
        wait_nothing_pending(c);
        const char *db = !strcmp(moves[i][0], "RENAME") ? "0" : "1";
        const char *key = !strcmp(moves[i][0], "RENAME") ? "z2" : "z";
        EXPECT_OK(c, "SELECT", db);
        EXPECT_INT(c, 10000, "ZCARD", key);
        EXPECT_OK(c, "SELECT", "0");
    }
    redisFree(c);
}

/* The other ZREMRANGEBY* over runs big enough to be cut, both ways (fewer
 * members go than stay, and more), against what is left. */
static void test_zrem_ranges(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    zfill(c, "z", 20000, 0);
    EXPECT_INT(c, 5000, "ZREMRANGEBYSCORE", "z", "100", "(5100");
    EXPECT_INT(c, 15000, "ZCARD", "z");
    EXPECT_BULK(c, "99", "ZSCORE", "z", "m:0000099");
    EXPECT_NIL(c, "ZSCORE", "z", "m:0000100");
    EXPECT_NIL(c, "ZSCORE", "z", "m:0005099");
    EXPECT_BULK(c, "5100", "ZSCORE", "z", "m:0005100");
    EXPECT_INT(c, 14000, "ZREMRANGEBYRANK", "z", "1000", "-1");
    EXPECT_INT(c, 1000, "ZCARD", "z");
    EXPECT_INT(c, 100, "ZCOUNT", "z", "0", "99");
    EXPECT_INT(c, 900, "ZCOUNT", "z", "5100", "+inf");
    EXPECT_INT(c, 1, "ZADD", "z", "7", "m:0000100");
    EXPECT_BULK(c, "7", "ZSCORE", "z", "m:0000100");
    zfill(c, "flat", 20000, 1);
    EXPECT_INT(c, 12000, "ZREMRANGEBYLEX", "flat", "[m:0004000", "(m:0016000");
    EXPECT_INT(c, 8000, "ZLEXCOUNT", "flat", "-", "+");
    EXPECT_REPLY(c, "['m:0003999', 'm:0016000']", "ZRANGEBYLEX", "flat", "[m:0003999", "+",
                 "LIMIT", "0", "2");
    EXPECT_INT(c, 8000, "ZREMRANGEBYLEX", "flat", "-", "+");
    EXPECT_INT(c, 0, "EXISTS", "flat");
    redisFree(c);
}

/* HDELRANGE PREFIX over PROBE_KEYS fields between two that stay: the
 * chunks are cut out at once and freed on the lazy-free thread. */
static void test_hdelrange_probe(redisContext *c, redisContext *p, struct h_raw *r, int n)
{
    hfill(c, "h", "f:", n);
    EXPECT_INT(c, 2, "HSET", "h", "a", "1", "z", "2");
    probe_deletion(c, p, r, "HDELRANGE h PREFIX f:", n, "HDELRANGE PREFIX over a million fields",
                   "hdelrange");
    EXPECT_INT(c, 2, "HLEN", "h");
    EXPECT_INT(c, 0, "HCOUNT", "h", "PREFIX", "f:");
    EXPECT_NIL(c, "HGET", "h", "f:0000005");
    EXPECT_BULK(c, "2", "HGET", "h", "z");
    EXPECT_INT(c, 1, "HSET", "h", "f:0000005", "again");
    EXPECT_REPLY(c, "['a', '1', 'f:0000005', 'again', 'z', '2']", "HRANGE", "h", "0", "-1",
                 "WITHVALUES");
    EXPECT_BULK(c, "listpack", "OBJECT", "ENCODING", "h");
}

/* With the append-only log on, KDELRANGE's cut and HDELRANGE go to it as
 * themselves, not as a million DELs or HDELs walked on the loop; the log
 * replaying them is test_aof's. */
static void test_aof_probe(void)
{
    struct h_server s;
    if (h_start(&s, H_FLAGS("--appendonly", "yes")) < 0)
        return;
    redisContext *c, *p;
    struct h_raw r;
    if (probe_open_on(&s, &c, &p, &r) == 0) {
        int n = PROBE_KEYS / H_SLOW;
        fill(c, "k:", n);
        hfill(c, "h", "f:", n);
        probe_deletion(c, p, &r, "KDELRANGE PREFIX k:", n, "KDELRANGE PREFIX, the log on",
                       "kdelrange");
        long long usec = command_usec(c, "kdelrange");
        CHECK(h_slow() > 1 || (usec >= 0 && usec < PROPAGATE_BOUND_US), "KDELRANGE ran %lld us", usec);
        if (h_raw_open(&r, &s) == 0 && (p = h_connect(&s)) != NULL) {
            probe_deletion(c, p, &r, "HDELRANGE h PREFIX f:", n, "HDELRANGE PREFIX, the log on",
                           "hdelrange");
            usec = command_usec(c, "hdelrange");
            CHECK(h_slow() > 1 || (usec >= 0 && usec < PROPAGATE_BOUND_US), "HDELRANGE ran %lld us",
                  usec);
        }
        EXPECT_INT(c, 0, "DBSIZE");
    }
    if (c)
        redisFree(c);
    h_stop(&s);
}

/* The random tests' generator: Knuth's MMIX LCG, whose high bits are
 * drawn. */
static void lcg_step(uint64_t *rng)
{
    *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
}

/* Random HDELRANGEs over a hash of MODEL_FIELDS fields against a model (a
 * flag per field), some fields written back at once after each: ranges
 * that cut whole chunks and trim partial ones, ranges within one chunk,
 * and at the end a range that leaves few enough to pack the hash again. */
#define MODEL_FIELDS 20000
static void test_hdelrange_model(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    static unsigned char present[MODEL_FIELDS];
    uint64_t rng = h_seed();
    hfill(c, "h", "m:", MODEL_FIELDS);
    memset(present, 1, sizeof(present));
    for (int round = 0; round < 80; round++) {
        lcg_step(&rng);
        int lo = (int)((rng >> 33) % MODEL_FIELDS);
        lcg_step(&rng);
        int hi = lo + (int)((rng >> 33) % (round % 3 ? 9000 : 100));
        int lo_ex = (int)(rng >> 11) & 1, hi_ex = (int)(rng >> 12) & 1;
        if (hi >= MODEL_FIELDS)
            hi = MODEL_FIELDS - 1;
        char blo[32], bhi[32];
        snprintf(blo, sizeof(blo), "%cm:%07d", lo_ex ? '(' : '[', lo);
        snprintf(bhi, sizeof(bhi), "%cm:%07d", hi_ex ? '(' : '[', hi);
        long long want = 0;
        for (int i = lo + lo_ex; i <= hi - hi_ex; i++) {
            want += present[i];
            present[i] = 0;
        }
        EXPECT_INT(c, want, "HDELRANGE", "h", blo, bhi);
        for (int k = 0; k < 20; k++) {
            lcg_step(&rng);
            int i = lo + (int)((rng >> 33) % (unsigned)(hi - lo + 1));
            char f[32], v[32];
            snprintf(f, sizeof(f), "m:%07d", i);
            snprintf(v, sizeof(v), "v%d", i);
            EXPECT_INT(c, !present[i], "HSET", "h", f, v);
            present[i] = 1;
        }
        long long count = 0;
        for (int i = 0; i < MODEL_FIELDS; i++)
            count += present[i];
        EXPECT_INT(c, count, "HLEN", "h");
        EXPECT_INT(c, count, "HCOUNT", "h", "-", "+");
        int i = (int)((rng >> 7) % MODEL_FIELDS);
        char f[32], v[32];
        snprintf(f, sizeof(f), "m:%07d", i);
        snprintf(v, sizeof(v), "'v%d'", i);
        EXPECT_REPLY(c, present[i] ? v : "(nil)", "HGET", "h", f);
    }
    redisReply *all = H_CALL(c, "HRANGE", "h", "0", "-1", "WITHVALUES");
    size_t j = 0;
    int ok = all && all->type == REDIS_REPLY_ARRAY;
    for (int i = 0; ok && i < MODEL_FIELDS; i++) {
        char f[32], v[32];
        snprintf(f, sizeof(f), "m:%07d", i);
        snprintf(v, sizeof(v), "v%d", i);
        if (present[i])
            ok = j + 1 < all->elements && !strcmp(all->element[j]->str, f) &&
                 !strcmp(all->element[j + 1]->str, v);
        j += 2 * present[i];
    }
    CHECK(ok && all && j == all->elements, "HRANGE differs from the model");
    if (all)
        freeReplyObject(all);
    /* Down to the fields below m:0000010: packed again, as a delete of
     * one field at a time leaves it. */
    EXPECT_INT(c, !present[3], "HSET", "h", "m:0000003", "v3");
    present[3] = 1;
    long long left = 0, gone = 0;
    for (int i = 0; i < MODEL_FIELDS; i++) {
        left += i < 10 && present[i];
        gone += i >= 10 && present[i];
    }
    EXPECT_INT(c, gone, "HDELRANGE", "h", "[m:0000010", "+");
    EXPECT_INT(c, left, "HLEN", "h");
    EXPECT_BULK(c, "listpack", "OBJECT", "ENCODING", "h");
    EXPECT_BULK(c, "v3", "HGET", "h", "m:0000003");
    redisFree(c);
}

/* Right after a cut, before its slices ran: lookups, writes and counts see
 * the keys gone; a WATCH of a cut key aborts EXEC, of another does not. */
static void test_watch(void)
{
    redisContext *c = h_connect_flushed(&srv);
    redisContext *w1 = h_connect(&srv), *w2 = h_connect(&srv);
    if (!c || !w1 || !w2)
        return;
    fill(c, "w:", 50000);
    EXPECT_OK(c, "SET", "other", "1");
    EXPECT_OK(w1, "WATCH", "w:0000100");
    EXPECT_OK(w2, "WATCH", "other");
    EXPECT_OK(w1, "MULTI");
    EXPECT_OK(w2, "MULTI");
    EXPECT_STATUS(w1, "QUEUED", "SET", "x", "1");
    EXPECT_STATUS(w2, "QUEUED", "SET", "y", "1");
    /* One pipeline, so no slice runs between the cut and the reads. */
    H_APPEND(c, "KDELRANGE", "[w:", "[w:9");
    H_APPEND(c, "EXISTS", "w:0000100");
    H_APPEND(c, "DBSIZE");
    H_APPEND(c, "SET", "w:0000200", "new");
    H_APPEND(c, "GET", "w:0000200");
    H_APPEND(c, "KCOUNT", "-", "+");
    EXPECT_NEXT(c, ":50000");
    EXPECT_NEXT(c, ":0");
    EXPECT_NEXT(c, ":1");
    EXPECT_NEXT(c, "+OK");
    EXPECT_NEXT(c, "'new'");
    EXPECT_NEXT(c, ":2");
    EXPECT_REPLY(w1, "(nil)", "EXEC");
    EXPECT_REPLY(w2, "[+OK]", "EXEC");
    redisFree(w1);
    redisFree(w2);
    redisFree(c);
}

#define MODEL_KEYS 20000

/* One round of a KDELRANGE model over MODEL_KEYS keys "<prefix>%07d":
 * random bounds [lo, lo + least + [0, spread)) and LIMIT least + [0,
 * limit_spread), the model's present (and ttl, when given) cleared for what
 * it should delete, its reply checked; then sets keys of the range written
 * again at once, while their old entries are being freed. */
struct model_cut {
    const char *prefix;
    int least, spread, limit_spread, sets;
};

static void model_kdelrange(redisContext *c, uint64_t *rng, const struct model_cut *m,
                            unsigned char *present, unsigned char *ttl)
{
    lcg_step(rng);
    int lo = (int)((*rng >> 33) % MODEL_KEYS);
    lcg_step(rng);
    int hi = lo + m->least + (int)((*rng >> 33) % (unsigned)m->spread);
    if (hi >= MODEL_KEYS)
        hi = MODEL_KEYS - 1;
    long long limit = m->least + (long long)((*rng >> 20) % (unsigned)m->limit_spread);
    char blo[32], bhi[32], blim[24], key[32];
    snprintf(blo, sizeof(blo), "[%s%07d", m->prefix, lo);
    snprintf(bhi, sizeof(bhi), "[%s%07d", m->prefix, hi);
    snprintf(blim, sizeof(blim), "%lld", limit);
    long long want = 0;
    for (int i = lo; i <= hi && want < limit; i++) {
        want += present[i];
        present[i] = 0;
        if (ttl)
            ttl[i] = 0;
    }
    EXPECT_INT(c, want, "KDELRANGE", blo, bhi, "LIMIT", blim);
    for (int k = 0; k < m->sets; k++) {
        lcg_step(rng);
        int i = lo + (int)((*rng >> 33) % (unsigned)(hi - lo + 1));
        snprintf(key, sizeof(key), "%s%07d", m->prefix, i);
        EXPECT_OK(c, "SET", key, "v");
        present[i] = 1;
        if (ttl)
            ttl[i] = 0;
    }
}

/* Random KDELRANGEs (with LIMIT, over bounds drawn from the keys) and SETs
 * of keys they deleted, against a model: a flag per key. */
static void test_model(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    static unsigned char present[MODEL_KEYS], ttl[MODEL_KEYS];
    uint64_t rng = h_seed();
    fill(c, "m:", MODEL_KEYS);
    memset(present, 1, sizeof(present));
    /* Every 7th key with a deadline far off: the cut takes their records
     * out of the expiry tree (INFO keyspace's expires=). */
    for (int i = 0; i < MODEL_KEYS; i += 7) {
        char key[32];
        snprintf(key, sizeof(key), "m:%07d", i);
        H_APPEND(c, "EXPIRE", key, "100000");
        ttl[i] = 1;
    }
    for (int i = 0; i < MODEL_KEYS; i += 7)
        EXPECT_NEXT(c, ":1");
    for (int round = 0; round < 60; round++) {
        struct model_cut mc = {"m:", 0, 8000, 6000, 50};
        model_kdelrange(c, &rng, &mc, present, ttl);
        long long count = 0, expires = 0;
        for (int i = 0; i < MODEL_KEYS; i++) {
            count += present[i];
            expires += ttl[i];
        }
        EXPECT_INT(c, count, "DBSIZE");
        char keyspace[96];
        snprintf(keyspace, sizeof(keyspace), "*db0:keys=%lld,expires=%lld,*", count, expires);
        EXPECT_MATCH(c, keyspace, "INFO", "keyspace");
        EXPECT_INT(c, count, "KCOUNT", "-", "+");
        int i = (int)((rng >> 7) % MODEL_KEYS);
        char key[32];
        snprintf(key, sizeof(key), "m:%07d", i);
        EXPECT_INT(c, present[i], "EXISTS", key);
    }
    /* Every key, once the slices are done. */
    wait_nothing_pending(c);
    redisReply *all = H_CALL(c, "KRANGE", "0", "-1");
    size_t j = 0;
    int ok = all && all->type == REDIS_REPLY_ARRAY;
    for (int i = 0; ok && i < MODEL_KEYS; i++) {
        char key[32];
        snprintf(key, sizeof(key), "m:%07d", i);
        if (present[i])
            ok = j < all->elements && !strcmp(all->element[j++]->str, key);
    }
    CHECK(ok && all && j == all->elements, "KRANGE differs from the model");
    if (all)
        freeReplyObject(all);
    redisFree(c);
}

/* A mass expiry: EXPIRY_KEYS keys due at once, removed by the active cycle. */
static int none_left(redisContext *p)
{
    return info_ll(p, "expired_keys") >= EXPIRY_KEYS / H_SLOW;
}

static void test_expiry_probe(void)
{
    redisContext *c, *p;
    struct h_raw r;
    if (probe_open(&c, &p, &r) < 0)
        return;
    EXPECT_OK(c, "DEBUG", "SET-ACTIVE-EXPIRE", "0");
    int n = EXPIRY_KEYS / H_SLOW;
    fill(c, "e:", n);
    /* One deadline for all, set by a script so it is one command. */
    EXPECT_INT(c, n,
               "EVAL",
               "local n = 0 for _, k in ipairs(redis.call('KEYS', 'e:*')) do "
               "redis.call('PEXPIRE', k, 1) n = n + 1 end return n", "0");
    h_sleep_ms(5);
    size_t len = 0;
    long long worst = probe(&r, p, "DEBUG SET-ACTIVE-EXPIRE 1\r\n", &len, none_left);
    judge(c, "the expiry of 200,000 keys", worst, NULL);
    EXPECT_INT(c, 0, "KCOUNT", "-", "+");
    h_raw_close(&r);
    redisFree(p);
    redisFree(c);
}

/* The log replays a cut to the same keys. */
static void test_aof(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--appendonly", "yes"));
    if (!c)
        return;
    fill(c, "l:", 5000);
    EXPECT_INT(c, 3000, "KDELRANGE", "[l:0001000", "+", "LIMIT", "3000");
    EXPECT_INT(c, 2000, "DBSIZE");
    hfill(c, "lh", "f:", 5000);
    EXPECT_INT(c, 3000, "HDELRANGE", "lh", "[f:0001000", "(f:0004000");
    EXPECT_INT(c, 2001, "DBSIZE");
    redisReply *before = H_CALL(c, "KRANGE", "0", "-1");
    redisReply *hbefore = H_CALL(c, "HRANGE", "lh", "0", "-1", "WITHVALUES");
    redisFree(c);
    h_stop(&s);
    c = h_reopen(&s, H_FLAGS("--appendonly", "yes"));
    if (c) {
        redisReply *after = H_CALL(c, "KRANGE", "0", "-1");
        CHECK(before && after && before->elements == 2001 && h_reply_equal(before, after),
              "the log replayed other keys");
        redisReply *hafter = H_CALL(c, "HRANGE", "lh", "0", "-1", "WITHVALUES");
        CHECK(hbefore && hafter && hbefore->elements == 4000 && h_reply_equal(hbefore, hafter),
              "the log replayed other fields");
        if (after)
            freeReplyObject(after);
        if (hafter)
            freeReplyObject(hafter);
        redisFree(c);
    }
    if (before)
        freeReplyObject(before);
    if (hbefore)
        freeReplyObject(hbefore);
    h_stop(&s);
}

/* A primary and its replica, linked (h_open_two, then REPLICAOF). */
static redisContext *open_linked(struct h_server *primary, struct h_server *replica,
                                 redisContext **r)
{
    redisContext *p = h_open_two(primary, replica, r);
    if (p)
        h_replicate(*r, primary, WAIT_MS);
    return p;
}

/* A replica applies the cut (as KDELRANGE and HDELRANGE themselves) and
 * ends with the primary's keys. */
static void test_replica(void)
{
    struct h_server primary, replica;
    redisContext *r;
    redisContext *p = open_linked(&primary, &replica, &r);
    if (!p)
        return;
    fill(p, "r:", 6000);
    EXPECT_INT(p, 4000, "KDELRANGE", "[r:0000500", "+", "LIMIT", "4000");
    EXPECT_OK(p, "SET", "r:0000600", "back");
    hfill(p, "rh", "f:", 6000);
    EXPECT_INT(p, 4000, "HDELRANGE", "rh", "[f:0000500", "(f:0004500");
    EXPECT_INT(p, 1, "HSET", "rh", "f:0000600", "back");
    CHECK(h_wait_caught_up(p, r, WAIT_MS), "the replica caught up");
    redisReply *hwant = H_CALL(p, "HRANGE", "rh", "0", "-1", "WITHVALUES");
    redisReply *hgot = H_CALL(r, "HRANGE", "rh", "0", "-1", "WITHVALUES");
    CHECK(hwant && hgot && hwant->elements == 2 * 2001 && h_reply_equal(hwant, hgot),
          "the replica holds other fields");
    if (hwant)
        freeReplyObject(hwant);
    if (hgot)
        freeReplyObject(hgot);
    /* Both went as themselves, not per key or field: the replica's own
     * KDELRANGE cut the same keys. */
    redisReply *st = H_CALL(r, "INFO", "commandstats");
    CHECK(st && st->type == REDIS_REPLY_STRING && strstr(st->str, "cmdstat_kdelrange:calls=1,") &&
              strstr(st->str, "cmdstat_hdelrange:calls=1,") && !strstr(st->str, "cmdstat_del:") &&
              !strstr(st->str, "cmdstat_hdel:"),
          "the replica got KDELRANGE and HDELRANGE, no DEL or HDEL");
    if (st)
        freeReplyObject(st);
    EXPECT_INT(p, 1, "DEL", "rh");
    redisReply *want = H_CALL(p, "KRANGE", "0", "-1");
    int64_t end = h_now_ms() + WAIT_MS;
    redisReply *got = NULL;
    int same = 0;
    while (want && !same && h_now_ms() < end) {
        if (got)
            freeReplyObject(got);
        h_sleep_ms(10);
        got = H_CALL(r, "KRANGE", "0", "-1");
        same = got && h_reply_equal(want, got);
    }
    CHECK(same && want->elements == 2001, "the replica holds other keys");
    EXPECT_INT(r, 2001, "DBSIZE");
    if (want)
        freeReplyObject(want);
    if (got)
        freeReplyObject(got);
    h_close(&replica, r);
    h_close(&primary, p);
}

/* A sorted array of the keys of GETKEYSINSLOT's reply, or of the model's. */
static int strcmp_cb(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether GETKEYSINSLOT slot lists exactly want[0..n) (sorted), in any
 * order. */
static int slot_keys_are(redisContext *c, const char *slot, const char **want, size_t n)
{
    redisReply *r = H_CALL(c, "CLUSTER", "GETKEYSINSLOT", slot, "100000");
    int same = r && r->type == REDIS_REPLY_ARRAY && r->elements == n;
    if (same) {
        const char **got = malloc(n * sizeof(*got) + 1);
        for (size_t i = 0; i < n; i++)
            got[i] = r->element[i]->str;
        qsort(got, n, sizeof(*got), strcmp_cb);
        for (size_t i = 0; same && i < n; i++)
            same = !strcmp(got[i], want[i]);
        free(got);
    }
    if (r)
        freeReplyObject(r);
    return same;
}

/* test_cluster_probe's body, on c, p and r of a one-node cluster. */
static void cluster_probe(redisContext *c, redisContext *p, struct h_raw *r)
{
    EXPECT_OK(c, "CLUSTER", "ADDSLOTSRANGE", "0", "16383");
    int64_t end = h_now_ms() + WAIT_MS;
    redisReply *info = NULL;
    int ok = 0;
    while (!ok && h_now_ms() < end) {
        if (info)
            freeReplyObject(info);
        info = H_CALL(c, "CLUSTER", "INFO");
        ok = info && info->type == REDIS_REPLY_STRING && strstr(info->str, "cluster_state:ok");
        if (!ok)
            h_sleep_ms(10);
    }
    if (info)
        freeReplyObject(info);
    CHECK(ok, "the one-node cluster is ok");
    char slot[16];
    redisReply *ks = H_CALL(c, "CLUSTER", "KEYSLOT", "{t}");
    CHECK(ks && ks->type == REDIS_REPLY_INTEGER, "CLUSTER KEYSLOT");
    snprintf(slot, sizeof(slot), "%lld", ks ? ks->integer : 0);
    if (ks)
        freeReplyObject(ks);
    int n = PROBE_KEYS / H_SLOW;
    fill(c, "{t}k:", n);
    EXPECT_OK(c, "MSET", "{t}a", "1", "{t}z", "1");
    EXPECT_OK(c, "SET", "x", "1");
    EXPECT_INT(c, n + 2, "CLUSTER", "COUNTKEYSINSLOT", slot);
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    size_t len = 0;
    long long worst = probe(r, p, "KDELRANGE PREFIX {t}k:\r\n", &len, nothing_pending);
    char want[32];
    snprintf(want, sizeof(want), ":%d\r\n", n);
    CHECK(worst >= 0 && len == strlen(want) && !memcmp(r->buf, want, len), "KDELRANGE's reply");
    judge(c, "KDELRANGE PREFIX over a million keys of one slot", worst, "kdelrange");
    EXPECT_INT(c, 3, "DBSIZE");
    EXPECT_INT(c, 2, "CLUSTER", "COUNTKEYSINSLOT", slot);
    const char *two[] = {"{t}a", "{t}z"};
    CHECK(slot_keys_are(c, slot, two, 2), "GETKEYSINSLOT after the slices");

    /* Asked before the slices ran: the same pipeline as the cut. */
    fill(c, "{t}m:", 5000);
    H_APPEND(c, "KDELRANGE", "PREFIX", "{t}m:");
    H_APPEND(c, "CLUSTER", "COUNTKEYSINSLOT", slot);
    H_APPEND(c, "SET", "{t}m:0000007", "again");
    H_APPEND(c, "CLUSTER", "COUNTKEYSINSLOT", slot);
    EXPECT_NEXT(c, ":5000");
    EXPECT_NEXT(c, ":2");
    EXPECT_NEXT(c, "+OK");
    EXPECT_NEXT(c, ":3");
    const char *three[] = {"{t}a", "{t}m:0000007", "{t}z"};
    CHECK(slot_keys_are(c, slot, three, 3), "GETKEYSINSLOT with the cut pending or freed");
    EXPECT_INT(c, 1, "DEL", "{t}m:0000007");
    EXPECT_INT(c, 1, "DEL", "x");

    /* The model: keys {t}r:%07d of MODEL_KEYS, cut with LIMIT, some set
     * again at once while their old entries wait in the slot's set. */
    static unsigned char present[MODEL_KEYS];
    static char names[MODEL_KEYS][16];
    static const char *listed[MODEL_KEYS + 2];
    uint64_t rng = h_seed();
    fill(c, "{t}r:", MODEL_KEYS);
    memset(present, 1, sizeof(present));
    for (int round = 0; round < 20; round++) {
        struct model_cut mc = {"{t}r:", 1024, 6000, 5000, 20};
        model_kdelrange(c, &rng, &mc, present, NULL);
        size_t count = 1;
        listed[0] = "{t}a";
        for (int i = 0; i < MODEL_KEYS; i++) {
            if (present[i]) {
                snprintf(names[i], sizeof(names[i]), "{t}r:%07d", i);
                listed[count++] = names[i];
            }
        }
        listed[count++] = "{t}z";
        EXPECT_INT(c, (long long)count, "CLUSTER", "COUNTKEYSINSLOT", slot);
        EXPECT_INT(c, (long long)count, "DBSIZE");
        CHECK(slot_keys_are(c, slot, listed, count), "GETKEYSINSLOT, round %d", round);
    }
    wait_nothing_pending(c);
    long long left = 2; /* {t}a and {t}z */
    for (int i = 0; i < MODEL_KEYS; i++)
        left += present[i];
    EXPECT_INT(c, left, "CLUSTER", "COUNTKEYSINSLOT", slot);
}

/* KDELRANGE PREFIX {t}k: over PROBE_KEYS keys on a one-node cluster: the
 * cut entries stay in their slot's key set until freed, yet
 * COUNTKEYSINSLOT and GETKEYSINSLOT never see them, before the slices
 * (asked in the same pipeline as the cut) or after. A randomized part
 * compares KDELRANGE with LIMIT and keys set again with a model through
 * both (SEED= printed, accepted). */
static void test_cluster_probe(void)
{
    struct h_server cs;
    char bus[16];
    snprintf(bus, sizeof(bus), "%d", h_free_port());
    if (h_start(&cs, H_FLAGS("--cluster-enabled", "yes", "--cluster-port", bus)) < 0)
        return;
    redisContext *c = h_connect(&cs), *p = h_connect(&cs);
    struct h_raw r;
    if (c && p && h_raw_open(&r, &cs) == 0) {
        cluster_probe(c, p, &r);
        h_raw_close(&r);
    }
    if (c)
        redisFree(c);
    if (p)
        redisFree(p);
    h_stop(&cs);
}

/* Sends PSYNC replid offset on a new raw connection to s after REPLCONF
 * capa eof (and capa rbkv when rbkv); whether the answer starts with want. */
static int psync_answers(const struct h_server *s, const char *replid, long long offset, int rbkv,
                         const char *want)
{
    struct h_raw r;
    char cmd[160];
    size_t len = 0;
    if (h_raw_open(&r, s) < 0)
        return 0;
    snprintf(cmd, sizeof(cmd), "REPLCONF capa eof%s\r\nPSYNC %s %lld\r\n",
             rbkv ? " capa rbkv" : "", replid, offset);
    int ok = h_raw_send(&r, cmd, strlen(cmd)) == 0 && h_raw_read_reply(&r, &len, WAIT_MS) == 0 &&
             len == 5 && !memcmp(r.buf, "+OK\r\n", 5);
    if (ok) {
        h_raw_consume(&r, len);
        ok = h_raw_read_reply(&r, &len, WAIT_MS) == 0 && len > strlen(want) &&
             !memcmp(r.buf, want, strlen(want));
    }
    h_raw_close(&r);
    return ok;
}

/* A cut sent as KDELRANGE itself is rbkv's own: a replica that is not rbkv
 * (no capa rbkv: a redis-server) asking to continue from before it gets a
 * full sync; an rbkv one continues. With such a replica attached, the cut
 * goes as DELs (test_repl_redis applies them on a redis-server). */
static void test_psync_after_cut(void)
{
    struct h_server primary, replica;
    redisContext *r;
    redisContext *p = open_linked(&primary, &replica, &r);
    if (!p)
        return;
    fill(p, "s:", 3000);
    CHECK(h_wait_caught_up(p, r, WAIT_MS), "the replica caught up");
    char replid[64] = "", off[32] = "";
    redisReply *info = H_CALL(p, "INFO", "replication");
    CHECK(info && info->type == REDIS_REPLY_STRING &&
              h_info_field(info->str, "master_replid", replid, sizeof(replid)) == 0 &&
              h_info_field(info->str, "master_repl_offset", off, sizeof(off)) == 0,
          "INFO replication");
    if (info)
        freeReplyObject(info);
    long long from = atoll(off) + 1;
    EXPECT_INT(p, 2000, "KDELRANGE", "-", "+", "LIMIT", "2000");
    CHECK(psync_answers(&primary, replid, from, 0, "+FULLRESYNC"),
          "a plain replica does not continue from before the cut");
    CHECK(psync_answers(&primary, replid, from, 1, "+CONTINUE"),
          "an rbkv replica continues from before the cut");
    CHECK(h_wait_caught_up(p, r, WAIT_MS), "the replica caught up");
    EXPECT_INT(r, 1000, "DBSIZE");
    h_close(&replica, r);
    h_close(&primary, p);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    RUN_PROBE(test_kdelrange_probe);
    RUN_PROBE(test_kdelttl_probe);
    H_RUN(test_watch);
    RUN_PROBE(test_zrem_probe);
    H_RUN(test_zrem_ranges);
    RUN_PROBE(test_zrem_half_probe);
    H_RUN(test_zrem_pending);
    H_RUN(test_zrem_pending_moved);
    RUN_PROBE(test_hdelrange_probe);
    H_RUN(test_aof_probe);
    H_RUN(test_hdelrange_model);
    H_RUN(test_model);
    H_RUN(test_expiry_probe);
    H_RUN(test_aof);
    H_RUN(test_replica);
    H_RUN(test_psync_after_cut);
    H_RUN(test_cluster_probe);
    h_stop(&srv);
    return h_finish();
}
