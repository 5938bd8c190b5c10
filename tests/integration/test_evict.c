/*
 * test_evict.c - end-to-end tests of maxmemory eviction (server/core/evict.c)
 * and of the access state it reads (OBJECT IDLETIME and FREQ).
 *
 * Each policy runs against a model of what it may evict: 2000 keys without
 * a deadline (p:NNNN) and 2000 with distinct ones (v:NNNN, nearer deadlines
 * first), then maxmemory is lowered under used_memory and one write makes
 * room ("~trigger", which sorts after them). volatile-* never evicts a p:
 * key; volatile-ttl evicts exactly the nearest deadlines; every policy
 * leaves used memory under the cap, counts evicted_keys, and leaves the
 * tree's counts and ranks right (KCOUNT, KRANK, DBSIZE against the model).
 * allkeys-lru keeps a recently read hot set far better than allkeys-random;
 * allkeys-lfu keeps a often read one. Pipelined writes past the cap stay at
 * it. An evicted key is a DEL in the append-only log (a restart without
 * maxmemory has the same keys), fires "evicted" and breaks a WATCH. A run
 * out of time lets the command through and goes on in later loop turns. A
 * replica over its cap evicts nothing. OBJECT IDLETIME, OBJECT FREQ, TOUCH
 * and EXISTS give what redis-server gives for the same commands, errors
 * included (skipped, and said so, without redis-server).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define KEYS 2000
#define VALUE_LEN 100
/* What INFO may add to used_memory as it is measured: its query buffer and
 * reply are part of used_memory, as in Redis. */
#define INFO_REPLY_MAX (32 * 1024)

static struct h_server srv;

static void key_name(char *buf, size_t cap, const char *prefix, int i)
{
    snprintf(buf, cap, "%s:%04d", prefix, i);
}

/* p:0000... without a deadline and v:0000... with deadlines i seconds
 * apart, v:0000 the nearest; values of VALUE_LEN bytes. */
static void load_model(redisContext *c)
{
    char key[32], when[32], value[VALUE_LEN + 1];
    memset(value, 'x', VALUE_LEN);
    value[VALUE_LEN] = '\0';
    for (int i = 0; i < KEYS; i++) {
        key_name(key, sizeof(key), "p", i);
        H_APPEND(c, "SET", key, value);
        key_name(key, sizeof(key), "v", i);
        snprintf(when, sizeof(when), "%d", 10000 + i);
        H_APPEND(c, "SET", key, value, "EX", when);
    }
    for (int i = 0; i < 2 * KEYS; i++)
        freeReplyObject(h_get_reply(c));
}

/* Which of prefix:0000 ... are present, into present[]; returns how many. */
static int present_keys(redisContext *c, const char *prefix, int *present)
{
    char key[32];
    int n = 0;
    for (int i = 0; i < KEYS; i++) {
        key_name(key, sizeof(key), prefix, i);
        H_APPEND(c, "EXISTS", key);
    }
    for (int i = 0; i < KEYS; i++) {
        redisReply *r = h_get_reply(c);
        present[i] = r && r->type == REDIS_REPLY_INTEGER && r->integer == 1;
        n += present[i];
        freeReplyObject(r);
    }
    return n;
}

/* Lowers maxmemory to a fraction of used memory above floor and writes one
 * key: the eviction before that write must bring memory under the cap,
 * which the next command sees (INFO's own reply aside). Then lifts the cap
 * again, so what the test reads next (pipelined, in a query buffer that
 * counts too) evicts nothing more. squeeze's floor is what the clients
 * hold: their buffers count in used_memory, but what the test pipelined
 * before left them at sizes that have nothing to do with the data. */
static void squeeze_above(redisContext *c, double fraction, long long floor)
{
    char cap[32];
    long long used = h_info_ll(c, "memory", "used_memory");
    long long maxmemory = (long long)((double)(used - floor) * fraction) + floor;
    snprintf(cap, sizeof(cap), "%lld", maxmemory);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", cap);
    EXPECT_OK(c, "SET", "~trigger", "1");
    used = h_info_ll(c, "memory", "used_memory");
    CHECK(used <= maxmemory + INFO_REPLY_MAX, "used_memory %lld over maxmemory %lld", used,
          maxmemory);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "0");
}

static void squeeze(redisContext *c, double fraction)
{
    squeeze_above(c, fraction, h_info_ll(c, "memory", "mem_clients_normal"));
}

/* KCOUNT, KRANK and DBSIZE agree with what EXISTS found. */
static void check_counts(redisContext *c, int p_count, int v_count, int trigger,
                         const int *v_present)
{
    char key[32];
    EXPECT_INT(c, p_count, "KCOUNT", "PREFIX", "p:");
    EXPECT_INT(c, v_count, "KCOUNT", "PREFIX", "v:");
    EXPECT_INT(c, p_count + v_count + trigger, "DBSIZE");
    for (int i = 0, before = 0; i < KEYS; i++) {
        if (!v_present[i])
            continue;
        key_name(key, sizeof(key), "v", i);
        /* Every p: key sorts before the v: keys, "~trigger" after them. */
        EXPECT_INT(c, p_count + before, "KRANK", key);
        before++;
        if (before > 50)
            break;
    }
}

static void test_policy(redisContext *c, const char *policy)
{
    static int p_present[KEYS], v_present[KEYS];
    int volatile_only = !strncmp(policy, "volatile", 8);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "0");
    EXPECT_OK(c, "FLUSHALL");
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", policy);
    load_model(c);
    squeeze(c, 0.8);
    long long evicted = h_info_ll(c, "stats", "evicted_keys");
    int p_count = present_keys(c, "p", p_present), v_count = present_keys(c, "v", v_present);
    int trigger = (int)H_INT_REPLY(c, "EXISTS", "~trigger");
    int gone = 2 * KEYS + 1 - p_count - v_count - trigger;
    CHECK(evicted > 0 && evicted == gone, "%s: evicted_keys %lld, keys gone %d", policy, evicted,
          gone);
    CHECK(h_info_ll(c, "stats", "evicted_clients") == 0, "evicted_clients is not 0");
    if (volatile_only)
        CHECK(p_count == KEYS, "%s evicted %d keys without a deadline", policy, KEYS - p_count);
    if (!strcmp(policy, "volatile-ttl")) {
        /* Exactly the nearest deadlines: the v: keys left are a suffix. */
        int first = KEYS - v_count, suffix = 1;
        for (int i = 0; i < KEYS; i++)
            suffix &= v_present[i] == (i >= first);
        CHECK(suffix, "volatile-ttl did not evict the nearest deadlines first");
    }
    check_counts(c, p_count, v_count, trigger, v_present);
}

static void test_policies(void)
{
    static const char *const policies[] = {"allkeys-lru",  "allkeys-lfu",   "allkeys-random",
                                           "volatile-lru", "volatile-lfu",  "volatile-random",
                                           "volatile-ttl"};
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
        test_policy(c, policies[i]);
    redisFree(c);
}

/* When the policy finds nothing it may evict, a write gets the OOM error
 * as under noeviction, and reads still work. */
static void test_nothing_to_evict(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "volatile-lru");
    h_fill(c, "keep", 500);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "1");
    EXPECT_ERR(c, "OOM command not allowed when used memory > 'maxmemory'.", "SET", "x", "y");
    EXPECT_BULK(c, "keep:7", "GET", "keep:7");
    /* Unlimited tenacity: every key goes before the SET is refused. */
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "allkeys-random",
              "maxmemory-eviction-tenacity", "100");
    EXPECT_ERR(c, "OOM command not allowed when used memory > 'maxmemory'.", "SET", "x", "y");
    EXPECT_INT(c, 0, "DBSIZE");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "0", "maxmemory-eviction-tenacity", "10");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "noeviction");
    redisFree(c);
}

/* Tenacity 0 gives each run a slice of nothing: 16 keys go, the command runs
 * (eviction is under way, not failed), and the loop goes on evicting in
 * later turns until nothing is left. */
static void test_eviction_goes_on(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    h_fill(c, "k", 500);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "allkeys-random",
              "maxmemory-eviction-tenacity", "0");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "1");
    /* Pipelined, so no loop turn (and no timer) runs between the two. */
    H_APPEND(c, "SET", "x", "y");
    H_APPEND(c, "DBSIZE");
    redisReply *set = h_get_reply(c), *size = h_get_reply(c);
    CHECK(set && set->type == REDIS_REPLY_STATUS, "SET over the cap during eviction refused");
    long long left = size && size->type == REDIS_REPLY_INTEGER ? size->integer : -1;
    CHECK(left > 0 && left < 500, "%lld keys after two runs of no slice", left);
    freeReplyObject(set);
    freeReplyObject(size);
    int64_t until = h_now_ms() + 5000 * H_SLOW;
    while (left > 0 && h_now_ms() < until) {
        h_sleep_ms(10);
        left = H_INT_REPLY(c, "DBSIZE");
    }
    CHECK(left == 0, "%lld keys left: eviction did not go on", left);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "0", "maxmemory-eviction-tenacity", "10");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "noeviction");
    redisFree(c);
}

/* No eviction while clients are paused (the dataset holds still), and a
 * long eviction run is the latency monitor's eviction-cycle event. */
static void test_pause_and_latency(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    h_fill(c, "k", 20000);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "allkeys-random",
              "maxmemory-eviction-tenacity", "100", "latency-monitor-threshold", "1");
    freeReplyObject(H_CALL(c, "LATENCY", "RESET"));
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    EXPECT_OK(c, "CLIENT", "PAUSE", "10000", "WRITE");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "1");
    EXPECT_NIL(c, "GET", "nokey");
    EXPECT_INT(c, 20000, "DBSIZE");
    CHECK(h_info_ll(c, "stats", "evicted_keys") == 0, "keys evicted during a pause");
    EXPECT_OK(c, "CLIENT", "UNPAUSE");
    /* Nearly 20,000 keys in one unlimited slice: far more than a millisecond. */
    long long left = H_INT_REPLY(c, "DBSIZE");
    CHECK(left < 1000, "%lld keys left after the pause", left);
    /* Among others: under valgrind a command may pass the 1 ms threshold too. */
    EXPECT_MATCH(c, "[*['eviction-cycle', :*, :*, :*]*]", "LATENCY", "LATEST");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "0", "maxmemory-eviction-tenacity", "10",
              "latency-monitor-threshold", "0");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "noeviction");
    redisFree(c);
}

/* A maxmemory under what the data uses is logged with Redis's words, the
 * line operators alert on. */
static void test_maxmemory_warning(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_OK(c, "SET", "k", "v");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "1");
    CHECK(h_wait_log(&srv,
                     "WARNING: the new maxmemory value set via CONFIG SET (1) is smaller than the "
                     "current memory usage (",
                     5000 * H_SLOW),
          "no maxmemory warning in the log");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "0");
    redisFree(c);
}

/* CLIENT NO-TOUCH: reads leave the access time alone, TOUCH still sets it. */
static void test_no_touch(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_OK(c, "SET", "nt", "v");
    h_sleep_ms(2100); /* the test: OBJECT IDLETIME counts seconds */
    EXPECT_OK(c, "CLIENT", "NO-TOUCH", "on");
    EXPECT_BULK(c, "v", "GET", "nt");
    EXPECT_INT_RANGE(c, 2, 100, "OBJECT", "IDLETIME", "nt");
    EXPECT_INT(c, 1, "TOUCH", "nt");
    EXPECT_INT(c, 0, "OBJECT", "IDLETIME", "nt");
    EXPECT_OK(c, "CLIENT", "NO-TOUCH", "off");
    redisFree(c);
}

/* How many of the first `hot` keys of prefix survive a squeeze to half of
 * used memory after they alone were read. */
static int hot_survivors(redisContext *c, const char *policy, int hot, int wait_ms)
{
    static int present[KEYS];
    char key[32];
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "0");
    EXPECT_OK(c, "FLUSHALL");
    /* What the server holds with no keys (buffers, the lazy-free thread's
     * batches) stays: the squeeze halves what the keys take. */
    long long empty = h_info_ll(c, "memory", "used_memory");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", policy);
    for (int i = 0; i < KEYS; i++) {
        key_name(key, sizeof(key), "p", i);
        H_APPEND(c, "SET", key, "some value of twenty");
    }
    for (int i = 0; i < KEYS; i++)
        freeReplyObject(h_get_reply(c));
    /* The LRU clock counts seconds: the reads must come in a later one. */
    h_sleep_ms(wait_ms);
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < hot; i++) {
            key_name(key, sizeof(key), "p", i * (KEYS / hot));
            H_APPEND(c, "GET", key);
        }
        for (int i = 0; i < hot; i++)
            freeReplyObject(h_get_reply(c));
    }
    squeeze_above(c, 0.5, empty);
    present_keys(c, "p", present);
    int kept = 0;
    for (int i = 0; i < hot; i++)
        kept += present[i * (KEYS / hot)];
    return kept;
}

static void test_hot_set(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    int hot = 200;
    int lru = hot_survivors(c, "allkeys-lru", hot, 2100);
    int lfu = hot_survivors(c, "allkeys-lfu", hot, 0);
    int random = hot_survivors(c, "allkeys-random", hot, 0);
    printf("hot keys kept of %d: allkeys-lru %d, allkeys-lfu %d, allkeys-random %d\n", hot, lru,
           lfu, random);
    /* Random keeps about half; sampling 5 keeps a hot key unless all 5 are hot. */
    CHECK(lru >= hot * 9 / 10, "allkeys-lru kept %d of %d hot keys", lru, hot);
    CHECK(lfu >= hot * 9 / 10, "allkeys-lfu kept %d of %d hot keys", lfu, hot);
    CHECK(random < hot * 8 / 10, "allkeys-random kept %d of %d hot keys", random, hot);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "noeviction");
    redisFree(c);
}

/* Pipelined writes far past the cap: memory stays at it, the data keeps
 * the most recent keys' share, and the counts stay right. */
static void test_pipelined_at_cap(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    char key[32], value[VALUE_LEN + 1];
    memset(value, 'y', VALUE_LEN);
    value[VALUE_LEN] = '\0';
    long long base = h_info_ll(c, "memory", "used_memory");
    long long cap = base + 2 * 1024 * 1024;
    char capbuf[32];
    snprintf(capbuf, sizeof(capbuf), "%lld", cap);
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", capbuf);
    long long worst = 0;
    int total = 0;
    for (int batch = 0; batch < 40; batch++) {
        for (int i = 0; i < 1000; i++, total++) {
            snprintf(key, sizeof(key), "w:%07d", total);
            H_APPEND(c, "SET", key, value);
        }
        for (int i = 0; i < 1000; i++) {
            redisReply *r = h_get_reply(c);
            CHECK(r && r->type == REDIS_REPLY_STATUS, "a pipelined SET past the cap failed");
            freeReplyObject(r);
        }
        long long used = h_info_ll(c, "memory", "used_memory");
        if (used > worst)
            worst = used;
    }
    /* Every command evicts first while over the cap: lift it so the
     * counts below see one state. */
    long long now_used = h_info_ll(c, "memory", "used_memory");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "0");
    long long evicted = h_info_ll(c, "stats", "evicted_keys");
    long long keys = H_INT_REPLY(c, "DBSIZE");
    printf("pipelined: cap %lld, worst used_memory after a batch %lld, %lld keys, %lld evicted\n",
           cap, worst, keys, evicted);
    /* Eviction runs before INFO too; INFO's own reply is what may be over. */
    CHECK(worst <= cap + INFO_REPLY_MAX, "used_memory %lld over the cap %lld", worst, cap);
    CHECK(now_used >= cap - cap / 10, "memory far under the cap");
    CHECK(evicted > 0 && keys + evicted == total, "%lld keys and %lld evicted of %d", keys,
          evicted, total);
    EXPECT_INT(c, keys, "KCOUNT", "PREFIX", "w:");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "noeviction");
    redisFree(c);
}

/* An evicted key: "evicted" to subscribers, WATCH broken, DEL in the log. */
static void test_eviction_effects(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--appendonly", "yes", "--appendfsync", "always",
                                         "--notify-keyspace-events", "Ee",
                                         "--latency-tracking", "no"));
    if (!c)
        return;
    redisContext *sub = h_connect(&s);
    if (!sub) {
        h_close(&s, c);
        return;
    }
    EXPECT_REPLY(sub, "['subscribe', '__keyevent@0__:evicted', :1]", "SUBSCRIBE",
                 "__keyevent@0__:evicted");
    load_model(c);
    EXPECT_OK(c, "WATCH", "v:0000"); /* the nearest deadline: volatile-ttl takes it first */
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "volatile-ttl");
    squeeze(c, 0.9);
    EXPECT_TRANSACTION(c, "(nil)", "SET v:0000 again");
    long long evicted = h_info_ll(c, "stats", "evicted_keys");
    CHECK(evicted > 0, "nothing evicted");
    redisReply *r = h_get_reply(sub);
    CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 3 &&
              !strcmp(r->element[2]->str, "v:0000"),
          "the first \"evicted\" event is not v:0000");
    freeReplyObject(r);
    long long keys = H_INT_REPLY(c, "DBSIZE");
    redisFree(sub);
    redisFree(c);
    /* Replayed without a cap, the log has the evicted keys deleted. */
    c = h_reopen(&s, H_FLAGS("--appendonly", "yes"));
    if (!c)
        return;
    EXPECT_INT(c, keys, "DBSIZE");
    EXPECT_INT(c, 0, "EXISTS", "v:0000");
    h_close(&s, c);
}

/* A replica over its own maxmemory evicts nothing: it keeps every key its
 * primary sends, and only the primary's DELs remove any; and it refuses
 * nothing for memory, until replica-ignore-maxmemory is no. */
static void test_replica_never_evicts(void)
{
    struct h_server rs;
    redisContext *p = h_connect_flushed(&srv);
    redisContext *r = h_open(&rs, H_FLAGS("--maxmemory", "1", "--maxmemory-policy", "allkeys-lru"));
    if (!p || !r) {
        if (p)
            redisFree(p);
        if (r)
            h_close(&rs, r);
        return;
    }
    char port[16];
    snprintf(port, sizeof(port), "%d", srv.port);
    EXPECT_OK(r, "REPLICAOF", "127.0.0.1", port);
    CHECK(h_wait_info(r, "replication", "master_link_status", "up", 10000 * H_SLOW), "link up");
    h_fill(p, "r", 1000);
    EXPECT_INT(p, 1, "WAIT", "1", "5000");
    EXPECT_INT(r, 1000, "DBSIZE");
    CHECK(h_info_ll(r, "stats", "evicted_keys") == 0, "the replica evicted keys");
    EXPECT_INT(p, 1, "DEL", "r:0");
    EXPECT_INT(p, 1, "WAIT", "1", "5000");
    EXPECT_INT(r, 999, "DBSIZE");
    /* Nor does it refuse anything for memory (Redis's isSafeToPerformEvictions):
     * a transaction of reads, and with replica-read-only no a write. */
    EXPECT_TRANSACTION(r, "['r:1']", "GET r:1");
    EXPECT_OK(r, "CONFIG", "SET", "replica-read-only", "no");
    EXPECT_OK(r, "SET", "local", "v");
    EXPECT_OK(r, "CONFIG", "SET", "replica-ignore-maxmemory", "no");
    EXPECT_OK(r, "CONFIG", "SET", "maxmemory-policy", "noeviction");
    EXPECT_ERR(r, "OOM command not allowed when used memory > 'maxmemory'.", "SET", "local", "w");
    redisFree(p);
    h_close(&rs, r);
}

/* The same commands to rbkv and redis-server give the same replies. */
static void compare(redisContext *ours, redisContext *ref, const char *const *argv, int argc)
{
    char a[512], b[512];
    redisReply *x = h_command(ours, argc, argv, NULL), *y = h_command(ref, argc, argv, NULL);
    h_repr(x, a, sizeof(a));
    h_repr(y, b, sizeof(b));
    CHECK(!strcmp(a, b), "%s %s: rbkv %s, redis %s", argv[0], argc > 1 ? argv[1] : "", a, b);
    freeReplyObject(x);
    freeReplyObject(y);
}
#define COMPARE(ours, ref, ...) compare((ours), (ref), (const char *const[]){__VA_ARGS__}, \
                                        H_ARGC(__VA_ARGS__))

static void test_object_vs_redis(void)
{
    struct h_server ref;
    int rc = h_is_reference() ? 1 : h_start_reference(&ref, NULL);
    if (rc == 1) {
        printf("no redis-server on PATH: the comparison with Redis is skipped\n");
        return;
    }
    if (rc < 0)
        return;
    redisContext *c = h_connect_flushed(&srv), *r = h_connect_flushed(&ref);
    if (c && r) {
        COMPARE(c, r, "CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
        COMPARE(c, r, "SET", "k", "v");
        COMPARE(c, r, "OBJECT", "IDLETIME", "k");
        COMPARE(c, r, "OBJECT", "FREQ", "k");
        COMPARE(c, r, "OBJECT", "IDLETIME", "missing");
        COMPARE(c, r, "CONFIG", "SET", "maxmemory-policy", "volatile-lfu");
        COMPARE(c, r, "OBJECT", "IDLETIME", "k");
        COMPARE(c, r, "SET", "f", "v");
        COMPARE(c, r, "OBJECT", "FREQ", "f"); /* a new key's counter: 5 */
        COMPARE(c, r, "EXISTS", "f");         /* no access */
        COMPARE(c, r, "TYPE", "f");
        COMPARE(c, r, "TTL", "f");
        COMPARE(c, r, "OBJECT", "FREQ", "f");
        COMPARE(c, r, "GET", "f"); /* from 5 an access always counts */
        COMPARE(c, r, "OBJECT", "FREQ", "f");
        COMPARE(c, r, "SET", "t", "v");
        COMPARE(c, r, "TOUCH", "t", "missing");
        COMPARE(c, r, "OBJECT", "FREQ", "t");
        COMPARE(c, r, "CONFIG", "GET", "maxmemory-policy");
        COMPARE(c, r, "CONFIG", "GET", "maxmemory-samples");
        COMPARE(c, r, "CONFIG", "GET", "maxmemory-eviction-tenacity");
        COMPARE(c, r, "CONFIG", "GET", "lfu-log-factor");
        COMPARE(c, r, "CONFIG", "GET", "lfu-decay-time");
        COMPARE(c, r, "CONFIG", "SET", "maxmemory-samples", "0");
        COMPARE(c, r, "CONFIG", "SET", "maxmemory-eviction-tenacity", "-1");
        COMPARE(c, r, "CONFIG", "SET", "maxmemory-policy", "lru");
        COMPARE(c, r, "CONFIG", "SET", "maxmemory-policy", "noeviction");
    }
    if (c)
        redisFree(c);
    if (r)
        redisFree(r);
    h_stop(&ref);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    /* No per-command latency histograms: each is allocated at a command's
     * first call and would be overhead that squeeze's fractions of
     * used_memory, meant for the data, do not expect. */
    redisContext *c = h_open(&srv, H_FLAGS("--latency-tracking", "no"));
    if (!c)
        return h_finish();
    redisFree(c);
    H_RUN(test_policies);
    H_RUN(test_nothing_to_evict);
    H_RUN(test_eviction_goes_on);
    H_RUN(test_pause_and_latency);
    H_RUN(test_maxmemory_warning);
    H_RUN(test_no_touch);
    H_RUN(test_hot_set);
    H_RUN(test_pipelined_at_cap);
    H_RUN(test_eviction_effects);
    H_RUN(test_replica_never_evicts);
    H_RUN(test_object_vs_redis);
    h_stop(&srv);
    return h_finish();
}
