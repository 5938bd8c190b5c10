/*
 * test_diag.c - end-to-end tests of the diagnostics: SLOWLOG (what is
 * logged, argument capping and redaction, the length cap, RESET), LATENCY
 * (a deliberately slow DEBUG SLEEP in LATEST, HISTORY, GRAPH and DOCTOR;
 * RESET; HISTOGRAM's shape in RESP2 and RESP3), INFO latencystats,
 * errorstats, cpu, eventloop_* (each loop turn timed) and the allocator's
 * timed trims, CONFIG RESETSTAT, and LOLWUT (the version line;
 * VERSION 5's Schotter byte for byte where Redis's is not random, else its
 * shape; VERSION 6's skyline, random, by its shape).
 *
 * Where redis-server is installed, the help texts, the error replies and
 * the error counters after the same failing requests are compared with
 * its own (Redis 7.0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static struct h_server srv, ref;
static int have_ref;

/* Sends argv to both servers and expects the same reply text. */
static void same_at(const char *file, int line, redisContext *c, redisContext *r, int argc,
                    const char *const *argv)
{
    if (!r)
        return;
    redisReply *ours = h_command(c, argc, argv, NULL);
    redisReply *theirs = h_command(r, argc, argv, NULL);
    char a[4096], b[4096];
    h_repr(ours, a, sizeof(a));
    h_repr(theirs, b, sizeof(b));
    h_check(file, line, ours && theirs && !strcmp(a, b), "%s %s: rbkv %s, redis %s", argv[0],
            argc > 1 ? argv[1] : "", a, b);
    freeReplyObject(ours);
    freeReplyObject(theirs);
}
#define SAME(c, r, ...)                                                                           \
    same_at(__FILE__, __LINE__, (c), (r), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__})

/* INFO section into out ("" when it fails). */
static void info(redisContext *c, const char *section, char *out, size_t cap)
{
    redisReply *r = H_CALL(c, "INFO", section);
    out[0] = '\0';
    if (CHECK(r && r->type == REDIS_REPLY_STRING, "INFO %s",
              section))
        snprintf(out, cap, "%s", r->str);
    freeReplyObject(r);
}

static redisContext *ref_connect(void)
{
    return have_ref ? h_connect_flushed(&ref) : NULL;
}

static void test_slowlog_slow_command(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    /* 40 ms and 50 ms, longer by H_SLOW: under valgrind a plain SET may
     * take 40 ms. */
    char threshold[32], sleep_s[32], glob[128];
    snprintf(threshold, sizeof(threshold), "%d", 40000 * H_SLOW);
    snprintf(sleep_s, sizeof(sleep_s), "%g", 0.05 * H_SLOW);
    snprintf(glob, sizeof(glob), "[:*, :*, :*, ['DEBUG', 'SLEEP', '%s'], '127.0.0.1:*', 'sleeper']",
             sleep_s);
    EXPECT_OK(c, "SLOWLOG", "RESET");
    EXPECT_OK(c, "CONFIG", "SET", "slowlog-log-slower-than", threshold);
    /* The fast commands are out of the log when their round trips, which
     * bound their time in the server, stayed under the threshold: on a
     * loaded machine they may not, and then only the newest entry counts. */
    int64_t t0 = h_now_ms();
    EXPECT_OK(c, "CLIENT", "SETNAME", "sleeper");
    EXPECT_OK(c, "SET", "fast", "1");
    int fast = (h_now_ms() - t0) * 1000 < 40000LL * H_SLOW;
    EXPECT_OK(c, "DEBUG", "SLEEP", sleep_s);
    if (fast)
        EXPECT_INT(c, 1, "SLOWLOG", "LEN");
    redisReply *r = H_CALL(c, "SLOWLOG", "GET");
    if (CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements >= 1 && (!fast || r->elements == 1),
              "SLOWLOG GET: one entry")) {
        redisReply *e = r->element[0];
        char buf[512];
        h_repr(e, buf, sizeof(buf));
        CHECK(e->elements == 6 && e->element[2]->integer >= 50000LL * H_SLOW &&
                  e->element[2]->integer < 5000000,
              "entry: duration in us, got %s", buf);
        CHECK(h_glob(glob, buf, strlen(buf)), "entry: %s", buf);
    }
    freeReplyObject(r);
    EXPECT_REPLY(c, "[]", "SLOWLOG", "GET", "0");
    EXPECT_OK(c, "SLOWLOG", "RESET");
    EXPECT_INT(c, 0, "SLOWLOG", "LEN");
    /* Negative: off. */
    EXPECT_OK(c, "CONFIG", "SET", "slowlog-log-slower-than", "-1");
    EXPECT_OK(c, "DEBUG", "SLEEP", "0.01");
    EXPECT_INT(c, 0, "SLOWLOG", "LEN");
    EXPECT_OK(c, "CONFIG", "SET", "slowlog-log-slower-than", "10000");
    EXPECT_OK(c, "CLIENT", "SETNAME", "");
    redisFree(c);
}

static void test_slowlog_capping(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_OK(c, "SLOWLOG", "RESET");
    EXPECT_OK(c, "CONFIG", "SET", "slowlog-log-slower-than", "0");
    /* 40 arguments: 31 kept, then "... (9 more arguments)". */
    const char *argv[40];
    char names[40][8];
    argv[0] = "DEL";
    for (int i = 1; i < 40; i++) {
        snprintf(names[i], sizeof(names[i]), "k%d", i);
        argv[i] = names[i];
    }
    freeReplyObject(h_command(c, 40, argv, NULL));
    char big[201];
    memset(big, 'x', 200);
    big[200] = '\0';
    EXPECT_OK(c, "SET", "big", big);
    freeReplyObject(H_CALL(c, "AUTH", "secretpass")); /* an error: no password is set */
    /* DEL, SET, AUTH (its error is a reply too) and the CONFIG SET itself. */
    redisReply *r = H_CALL(c, "SLOWLOG", "GET", "-1");
    if (CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 4, "4 entries, got %zu",
              r ? r->elements : 0)) {
        redisReply *auth = r->element[0]->element[3];
        CHECK(auth->elements == 2 && !strcmp(auth->element[1]->str, "(redacted)"),
              "AUTH's password redacted");
        redisReply *set = r->element[1]->element[3];
        char want[300];
        snprintf(want, sizeof(want), "%.128s... (72 more bytes)", big);
        CHECK(set->elements == 3 && !strcmp(set->element[2]->str, want),
              "a long argument is cut at 128 bytes: %s", set->element[2]->str);
        redisReply *del = r->element[2]->element[3];
        CHECK(del->elements == 32 && !strcmp(del->element[30]->str, "k30") &&
                  !strcmp(del->element[31]->str, "... (9 more arguments)"),
              "40 arguments shown as 31 and a count");
        CHECK(r->element[0]->element[0]->integer == r->element[3]->element[0]->integer + 3,
              "ids count up");
    }
    freeReplyObject(r);
    /* slowlog-max-len: the newest kept, ids go on after a RESET. */
    EXPECT_OK(c, "CONFIG", "SET", "slowlog-max-len", "2");
    EXPECT_OK(c, "SET", "a", "1");
    EXPECT_INT(c, 2, "SLOWLOG", "LEN");
    EXPECT_MATCH(c, "[[:*, :*, :*, ['SLOWLOG', 'LEN'], *], [:*, :*, :*, ['SET', 'a', '1'], *]]",
                 "SLOWLOG", "GET");
    /* EXEC is not logged, the commands it ran are. */
    EXPECT_OK(c, "SLOWLOG", "RESET");
    EXPECT_OK(c, "CONFIG", "SET", "slowlog-max-len", "128");
    EXPECT_TRANSACTION(c, "[+OK]", "SET b 2");
    EXPECT_MATCH(c, "[[:*, :*, :*, ['SET', 'b', '2'], *], [:*, :*, :*, ['MULTI'], *], *]",
                 "SLOWLOG", "GET");
    EXPECT_OK(c, "CONFIG", "SET", "slowlog-log-slower-than", "10000");
    redisFree(c);
}

static void test_slowlog_like_redis(void)
{
    redisContext *c = h_connect_flushed(&srv), *r = ref_connect();
    if (!c)
        return;
    SAME(c, r, "SLOWLOG", "HELP");
    SAME(c, r, "SLOWLOG", "GET", "-2");
    SAME(c, r, "SLOWLOG", "GET", "abc");
    SAME(c, r, "SLOWLOG", "GET", "1", "2");
    SAME(c, r, "SLOWLOG", "LEN", "1");
    SAME(c, r, "SLOWLOG", "NOSUCH");
    SAME(c, r, "SLOWLOG");
    SAME(c, r, "CONFIG", "SET", "slowlog-log-slower-than", "-2");
    SAME(c, r, "CONFIG", "SET", "slowlog-log-slower-than", "x");
    static const char *const names[] = {"slowlog-log-slower-than", "slowlog-max-len",
                                        "latency-monitor-threshold", "latency-tracking",
                                        "latency-tracking-info-percentiles"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        SAME(c, r, "CONFIG", "GET", names[i]);
    SAME(c, r, "CONFIG", "SET", "latency-tracking-info-percentiles", "50 101");
    SAME(c, r, "CONFIG", "SET", "latency-tracking-info-percentiles", "50 x");
    SAME(c, r, "COMMAND", "INFO", "exec");
    redisFree(c);
    if (r)
        redisFree(r);
}

static void test_latency_monitor(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_INT_RANGE(c, 0, 100, "LATENCY", "RESET");
    EXPECT_MATCH(c, "'I\\'m sorry, Dave*", "LATENCY", "DOCTOR");
    EXPECT_OK(c, "DEBUG", "SLEEP", "0.02");
    EXPECT_REPLY(c, "[]", "LATENCY", "LATEST"); /* threshold 0: off */
    EXPECT_OK(c, "CONFIG", "SET", "latency-monitor-threshold", "10");
    EXPECT_MATCH(c, "'Dave, no latency spike*", "LATENCY", "DOCTOR");
    EXPECT_OK(c, "DEBUG", "SLEEP", "0.05");
    EXPECT_OK(c, "SET", "quick", "1");
    redisReply *r = H_CALL(c, "LATENCY", "LATEST");
    if (CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 1, "one event")) {
        redisReply *e = r->element[0];
        CHECK(e->elements == 4 && !strcmp(e->element[0]->str, "command") &&
                  e->element[2]->integer >= 50 && e->element[3]->integer >= 50,
              "command, time, latest >= 50 ms, max");
    }
    freeReplyObject(r);
    EXPECT_MATCH(c, "[[:*, :*]]", "LATENCY", "HISTORY", "command");
    EXPECT_REPLY(c, "[]", "LATENCY", "HISTORY", "fork");
    EXPECT_MATCH(c, "'command - high * ms, low * ms (all time high * ms)\\n-----*\\n_\\n*0\\ns\\n'",
                 "LATENCY", "GRAPH", "command");
    EXPECT_ERR(c, "ERR No samples available for event 'fork'", "LATENCY", "GRAPH", "fork");
    EXPECT_MATCH(c, "*1. command: 1 latency spikes (average *ms, mean deviation 0ms, period *"
                    "Slow Log*",
                 "LATENCY", "DOCTOR");
    EXPECT_INT(c, 0, "LATENCY", "RESET", "fork");
    EXPECT_INT(c, 1, "LATENCY", "RESET", "command", "fork");
    EXPECT_REPLY(c, "[]", "LATENCY", "LATEST");
    EXPECT_OK(c, "CONFIG", "SET", "latency-monitor-threshold", "0");
    redisFree(c);
}

static void test_latency_like_redis(void)
{
    redisContext *c = h_connect_flushed(&srv), *r = ref_connect();
    if (!c)
        return;
    SAME(c, r, "LATENCY", "HELP");
    SAME(c, r, "LATENCY", "RESET");
    SAME(c, r, "LATENCY", "LATEST");
    SAME(c, r, "LATENCY", "DOCTOR");
    SAME(c, r, "LATENCY", "HISTORY");
    SAME(c, r, "LATENCY", "HISTORY", "command");
    SAME(c, r, "LATENCY", "GRAPH", "command");
    SAME(c, r, "LATENCY", "LATEST", "x");
    SAME(c, r, "LATENCY", "NOSUCH");
    SAME(c, r, "LATENCY", "HISTOGRAM", "nosuchcommand");
    SAME(c, r, "CONFIG", "SET", "latency-monitor-threshold", "-1");
    redisFree(c);
    if (r)
        redisFree(r);
}

static void test_histogram(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    for (int i = 0; i < 3; i++)
        EXPECT_OK(c, "SET", "h", "v");
    EXPECT_MATCH(c, "['set', ['calls', :3, 'histogram_usec', [*:3]]]", "LATENCY", "HISTOGRAM",
                 "set", "nosuch");
    EXPECT_MATCH(c, "[*'set', ['calls', :3, *]*]", "LATENCY", "HISTOGRAM");
    EXPECT_MATCH(c, "*\\r\\nlatency_percentiles_usec_set:p50=*.000,p99=*.000,p99.9=*.000\\r\\n*",
                 "INFO", "latencystats");
    EXPECT_OK(c, "CONFIG", "SET", "latency-tracking-info-percentiles", "50.0 99.99 0");
    EXPECT_REPLY(c, "['latency-tracking-info-percentiles', '50 99.99 0']", "CONFIG", "GET",
                 "latency-tracking-info-percentiles");
    EXPECT_MATCH(c, "*\\r\\nlatency_percentiles_usec_set:p50=*,p99.99=*,p0=*\\r\\n*", "INFO",
                 "latencystats");
    EXPECT_OK(c, "CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9");
    /* RESP3: a map of command names to maps, the buckets a map too. */
    struct h_raw raw;
    if (h_raw_open(&raw, &srv) == 0) {
        RAW_SEND(&raw, "HELLO 3\r\n");
        size_t len;
        if (CHECK(h_raw_read_reply(&raw, &len, H_RAW_TIMEOUT_MS) == 0, "HELLO 3"))
            h_raw_consume(&raw, len);
        RAW_SEND(&raw, "LATENCY HISTOGRAM set\r\n");
        RAW_EXPECT_MATCH(&raw, "%1\r\n$3\r\nset\r\n%2\r\n$5\r\ncalls\r\n:3\r\n"
                               "$14\r\nhistogram_usec\r\n%*\r\n:*\r\n:3\r\n");
        h_raw_close(&raw);
    }
    /* latency-tracking no: no histogram for what runs then. */
    EXPECT_OK(c, "CONFIG", "SET", "latency-tracking", "no");
    EXPECT_NIL(c, "GET", "nothing");
    EXPECT_OK(c, "CONFIG", "SET", "latency-tracking", "yes");
    EXPECT_REPLY(c, "[]", "LATENCY", "HISTOGRAM", "get");
    /* RESETSTAT drops the histograms but not the slow log. */
    EXPECT_OK(c, "CONFIG", "SET", "slowlog-log-slower-than", "0");
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    EXPECT_OK(c, "CONFIG", "SET", "slowlog-log-slower-than", "10000");
    EXPECT_INT_RANGE(c, 2, 200, "SLOWLOG", "LEN");
    /* A subcommand's line is its own, named as Redis 7.0 names it. */
    EXPECT_MATCH(c, "*# Latencystats\\r\\nlatency_percentiles_usec_config|set:*", "INFO",
                 "latencystats");
    redisFree(c);
}

/* The same failing requests to both servers; then errorstats, the totals
 * and the rejected/failed counts of the commands involved must agree. */
static void test_errorstats_like_redis(void)
{
    redisContext *c = h_connect_flushed(&srv), *r = ref_connect();
    if (!c)
        return;
    static const char *const reqs[][5] = {
        {"SET", "s", "text"},        {"ZADD", "s", "1", "a"},     {"INCR", "s"},
        {"NOSUCHCOMMAND", "x"},      {"GET"},                     {"MULTI"},
        {"SET", "only-key"},         {"EXEC"},                    {"ZADD", "s", "x", "a"},
        {"CONFIG", "GET"},           {"AUTH", "pw"},
    };
    for (int side = 0; side < 2; side++) {
        redisContext *x = side ? r : c;
        if (!x)
            continue;
        freeReplyObject(H_CALL(x, "CONFIG", "RESETSTAT"));
        for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
            int argc = 0;
            while (argc < 5 && reqs[i][argc])
                argc++;
            freeReplyObject(h_command(x, argc, reqs[i], NULL));
        }
    }
    static char ours[65536], theirs[65536];
    info(c, "errorstats", ours, sizeof(ours));
    CHECK(strstr(ours, "errorstat_WRONGTYPE:count=1\r\n") && strstr(ours, "errorstat_EXECABORT"),
          "errorstats: %s", ours);
    if (r) {
        info(r, "errorstats", theirs, sizeof(theirs));
        CHECK(!strcmp(ours, theirs), "errorstats: rbkv\n%s\nredis\n%s", ours, theirs);
        static const char *const fields[] = {"total_error_replies", "unexpected_error_replies",
                                             "cmdstat_zadd", "cmdstat_incr", "cmdstat_set",
                                             "cmdstat_exec", "cmdstat_get", "cmdstat_auth"};
        static char sa[65536], sb[65536];
        info(c, "all", sa, sizeof(sa));
        info(r, "all", sb, sizeof(sb));
        for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
            char a[256] = "", b[256] = "";
            h_info_field(sa, fields[i], a, sizeof(a));
            h_info_field(sb, fields[i], b, sizeof(b));
            /* Only the counts: usec differ. */
            const char *ca = strstr(a, "rejected"), *cb = strstr(b, "rejected");
            CHECK(!strcmp(ca ? ca : a, cb ? cb : b), "%s: rbkv %s, redis %s", fields[i], a, b);
        }
    }
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    info(c, "errorstats", ours, sizeof(ours));
    CHECK(!strcmp(ours, "# Errorstats\r\n"), "RESETSTAT clears errorstats: %s", ours);
    redisFree(c);
    if (r)
        redisFree(r);
}

static void test_info_cpu(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    char text[8192], v[64];
    info(c, "cpu", text, sizeof(text));
    static const char *const fields[] = {"used_cpu_sys",           "used_cpu_user",
                                         "used_cpu_sys_children",  "used_cpu_user_children",
                                         "used_cpu_sys_main_thread", "used_cpu_user_main_thread"};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        CHECK(h_info_field(text, fields[i], v, sizeof(v)) == 0 && strchr(v, '.'), "%s: %s",
              fields[i], text);
    /* errorstats is a default section, latencystats is not. */
    info(c, "default", text, sizeof(text));
    CHECK(strstr(text, "# Errorstats") && !strstr(text, "# Latencystats"), "default sections");
    redisFree(c);
}

/* An INFO stats field as a number (-1 when absent). */
static long long stat_of(const char *text, const char *name)
{
    char v[64];
    return h_info_field(text, name, v, sizeof(v)) == 0 ? strtoll(v, NULL, 10) : -1;
}

/* The buckets of "name:le250us=N,...,inf=N", added up (-1 when absent);
 * *from_us: the count of the buckets whose turns took more than from_us. */
static long long hist_sum(const char *text, const char *name, long long from_us, long long *above)
{
    char v[512];
    long long sum = 0, prev_bound = 0;
    *above = 0;
    if (h_info_field(text, name, v, sizeof(v)) < 0)
        return -1;
    for (char *p = v; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        char *eq = strchr(p, '=');
        if (!eq)
            return -1;
        long long n = strtoll(eq + 1, NULL, 10);
        sum += n;
        if (prev_bound >= from_us)
            *above += n;
        prev_bound = strncmp(p, "inf", 3) ? strtoll(p + 2, NULL, 10) : prev_bound;
    }
    return sum;
}

/* A connection with INFO's counters cleared; NULL against redis-server,
 * whose INFO has none of rbkv's own fields. */
static redisContext *connect_reset(void)
{
    if (h_is_reference())
        return NULL;
    redisContext *c = h_connect_flushed(&srv);
    if (c)
        EXPECT_OK(c, "CONFIG", "RESETSTAT");
    return c;
}

/* INFO stats' eventloop_* (server/core/loopstat.c): each turn of the loop
 * timed. A DEBUG SLEEP holds one turn for its whole length on the wall
 * clock, and for next to no CPU; the histograms count every turn once;
 * CONFIG RESETSTAT starts them again. */
static void test_info_eventloop(void)
{
    redisContext *c = connect_reset();
    if (!c)
        return;
    char text[16384];
    for (int i = 0; i < 50; i++) /* one request a turn: a client that waits for each reply */
        EXPECT_REPLY(c, "+PONG", "PING");
    EXPECT_OK(c, "DEBUG", "SLEEP", "0.2");
    info(c, "stats", text, sizeof(text));
    long long cycles = stat_of(text, "eventloop_cycles"), above = 0;
    CHECK(cycles >= 51, "eventloop_cycles %lld after 51 requests", cycles);
    CHECK(stat_of(text, "eventloop_duration_max") >= 200000, "a 0.2 s sleep is the longest turn: %s",
          text);
    CHECK(stat_of(text, "eventloop_duration_sum") >= 200000, "eventloop_duration_sum: %s", text);
    CHECK(hist_sum(text, "eventloop_duration_hist", 128000, &above) == cycles && above >= 1,
          "every turn in eventloop_duration_hist, the sleep above 128 ms: %s", text);
    CHECK(hist_sum(text, "eventloop_cpu_hist", 0, &above) == cycles,
          "every turn in eventloop_cpu_hist: %s", text);
    /* The sleep costs no CPU; in a slow build (valgrind) other turns may. */
    if (H_SLOW == 1)
        CHECK(stat_of(text, "eventloop_cpu_max") < 200000, "eventloop_cpu_max: %s", text);
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    info(c, "stats", text, sizeof(text));
    long long after = stat_of(text, "eventloop_cycles");
    CHECK(after >= 0 && after < cycles, "eventloop_cycles %lld after RESETSTAT, %lld before",
          after, cycles);
    CHECK(hist_sum(text, "eventloop_duration_hist", 0, &above) == after,
          "the histogram restarted with the count: %s", text);
    redisFree(c);
}

/* The allocator's trims are timed: MEMORY PURGE is one. */
static void test_info_allocator_trims(void)
{
    redisContext *c = connect_reset();
    if (!c)
        return;
    char text[16384];
    info(c, "stats", text, sizeof(text));
    long long before = stat_of(text, "allocator_trims");
    CHECK(before >= 0, "allocator_trims: %s", text);
    EXPECT_OK(c, "MEMORY", "PURGE");
    info(c, "stats", text, sizeof(text));
    long long runs = stat_of(text, "allocator_trims");
    long long sum = stat_of(text, "allocator_trim_usec_sum");
    long long max = stat_of(text, "allocator_trim_usec_max");
    long long last = stat_of(text, "allocator_trim_usec_last");
    CHECK(runs > before, "MEMORY PURGE counted: %lld -> %lld", before, runs);
    CHECK(last >= 0 && last <= max && max <= sum, "last %lld <= max %lld <= sum %lld", last, max,
          sum);
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    info(c, "stats", text, sizeof(text));
    CHECK(stat_of(text, "allocator_trims") < runs, "allocator_trims after RESETSTAT: %s", text);
    redisFree(c);
}

/* INFO persistence while a BGSAVE child runs: the child's copy-on-write is
 * read from /proc on a worker (childinfo.c), so INFO answers with the last
 * figure and its age; the figure comes once a read ended. */
static void test_info_cow_while_saving(void)
{
    redisContext *c = connect_reset();
    if (!c)
        return;
    char text[16384], v[64];
    EXPECT_OK(c, "DEBUG", "POPULATE", "2000");
    EXPECT_OK(c, "CONFIG", "SET", "rdb-key-save-delay", "500"); /* 1 s of saving, at least */
    EXPECT_REPLY(c, "+Background saving started", "BGSAVE");
    long long cow = -1, age = -1, saving = 1;
    for (int64_t end = h_now_ms() + 30000 * H_SLOW; h_now_ms() < end;) {
        info(c, "persistence", text, sizeof(text));
        saving = stat_of(text, "rdb_bgsave_in_progress");
        cow = stat_of(text, "current_cow_size");
        age = stat_of(text, "current_cow_size_age");
        if (saving != 1 || cow > 0)
            break;
        h_sleep_ms(20);
    }
    CHECK(saving == 1 && cow > 0 && age >= 0 && age <= 30 * H_SLOW,
          "while saving: current_cow_size %lld, its age %lld s (in progress %lld)", cow, age, saving);
    EXPECT_OK(c, "CONFIG", "SET", "rdb-key-save-delay", "0");
    for (int64_t end = h_now_ms() + 60000 * H_SLOW; saving == 1 && h_now_ms() < end;) {
        h_sleep_ms(50);
        info(c, "persistence", text, sizeof(text));
        saving = stat_of(text, "rdb_bgsave_in_progress");
    }
    CHECK(saving == 0 && h_info_field(text, "rdb_last_bgsave_status", v, sizeof(v)) == 0 &&
              !strcmp(v, "ok"),
          "the save ended: %s", text);
    CHECK(stat_of(text, "current_cow_size") == 0 && stat_of(text, "current_cow_size_age") == 0,
          "no child, no figure: %s", text);
    EXPECT_OK(c, "FLUSHALL");
    redisFree(c);
}

/* MODULE as Redis with no module loaded: the same registration (test_command_info
 * compares flags and categories), HELP, LIST and the refusals. */
static void test_module_like_redis(void)
{
    redisContext *c = h_connect_flushed(&srv), *r = ref_connect();
    if (!c)
        goto out;
    SAME(c, r, "MODULE", "HELP");
    SAME(c, r, "MODULE", "LIST");
    SAME(c, r, "MODULE", "LIST", "x");
    SAME(c, r, "MODULE", "NOSUCH");
    SAME(c, r, "MODULE");
    SAME(c, r, "MODULE", "LOAD");
    SAME(c, r, "MODULE", "UNLOAD", "a", "b");
    /* enable-module-command's default, no, refuses the changes first. */
    SAME(c, r, "MODULE", "LOAD", "/nonexistent.so");
    SAME(c, r, "MODULE", "LOADEX", "/nonexistent.so", "CONFIG", "a", "b", "ARGS", "x");
    SAME(c, r, "MODULE", "UNLOAD", "nosuch");
    SAME(c, r, "CONFIG", "GET", "enable-module-command");
    /* The whole entries (tips aside: rbkv gives none) are test_subcommand's. */
    SAME(c, r, "COMMAND", "INFO", "module|load", "module|loadex", "module|unload", "module|help");
    SAME(c, r, "COMMAND", "DOCS", "module|list", "module|unload");
out:
    if (c)
        redisFree(c);
    if (r)
        redisFree(r);
}

/* With enable-module-command yes: LOAD and LOADEX keep Redis's error prefix and
 * say why (no module ABI), whatever their arguments; UNLOAD and LIST answer as
 * Redis with no module loaded. */
static void test_module_allowed(void)
{
    struct h_server mod, mref;
    redisContext *c = h_open(&mod, H_FLAGS("--enable-module-command", "yes")), *r = NULL;
    if (!c)
        return;
    int have_mref = 0;
    if (!h_is_reference() && have_ref &&
        h_start_reference(&mref, H_FLAGS("--enable-module-command", "yes")) == 0) {
        have_mref = 1;
        r = h_connect(&mref);
    }
    static const char *const loads[][6] = {
        {"MODULE", "LOAD", "/nonexistent.so", "a", "b"},
        {"MODULE", "LOADEX", "/nonexistent.so"},
        {"MODULE", "LOADEX", "/nonexistent.so", "CONFIG", "a"},
        {"MODULE", "LOADEX", "/nonexistent.so", "FOO"},
    };
    for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++) {
        int argc = 0;
        while (argc < 6 && loads[i][argc])
            argc++;
        redisReply *reply = h_command(c, argc, loads[i], NULL);
        const char *want = h_is_reference()
                               ? "ERR Error loading the extension. Please check the server logs."
                               : "ERR Error loading the extension. rbkv does not load Redis "
                                 "modules (no module ABI).";
        CHECK(reply && reply->type == REDIS_REPLY_ERROR && strcmp(reply->str, want) == 0,
              "%s %s: %s", loads[i][1], loads[i][2], reply && reply->str ? reply->str : "(none)");
        freeReplyObject(reply);
    }
    EXPECT_ERR(c, "ERR Error unloading module: no such module with that name", "MODULE",
               "UNLOAD", "nosuch");
    SAME(c, r, "MODULE", "UNLOAD", "nosuch");
    SAME(c, r, "MODULE", "LIST");
    SAME(c, r, "MODULE", "LOAD");
    /* Still refused inside scripts (noscript) and queued in MULTI. */
    SAME(c, r, "EVAL", "return redis.pcall('module', 'list')", "0");
    SAME(c, r, "MULTI");
    SAME(c, r, "MODULE", "LIST");
    SAME(c, r, "EXEC");
    if (r)
        redisFree(r);
    if (have_mref)
        h_stop(&mref);
    h_close(&mod, c);
}

/* LOLWUT's line is "Redis ver. " and INFO's redis_version; c's reply to argv
 * must be it. */
static void expect_lolwut_line(redisContext *c, int argc, const char *const *argv)
{
    char text[8192], version[64] = "", want[128];
    info(c, "server", text, sizeof(text));
    CHECK(h_info_field(text, "redis_version", version, sizeof(version)) == 0, "redis_version");
    snprintf(want, sizeof(want), "Redis ver. %s\n", version);
    redisReply *reply = h_command(c, argc, argv, NULL);
    CHECK(reply && reply->type == REDIS_REPLY_STRING && strcmp(reply->str, want) == 0,
          "LOLWUT %s: %s", argc > 1 ? argv[1] : "", reply && reply->str ? reply->str : "(none)");
    freeReplyObject(reply);
}
#define EXPECT_LOLWUT_LINE(c, ...)                                                                \
    expect_lolwut_line((c), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__})

/* LOLWUT in RESP3 on s (c a RESP2 client of it, for INFO): the line as a
 * verbatim text, format "txt". */
static void lolwut_resp3(const struct h_server *s, redisContext *c)
{
    char text[8192], version[64] = "", want[160];
    info(c, "server", text, sizeof(text));
    h_info_field(text, "redis_version", version, sizeof(version));
    size_t n = strlen("txt:Redis ver. \n") + strlen(version);
    int len = snprintf(want, sizeof(want), "=%zu\r\ntxt:Redis ver. %s\n\r\n", n, version);
    struct h_raw raw;
    if (h_raw_open_resp3(&raw, s) < 0)
        return;
    RAW_SEND(&raw, "LOLWUT\r\n");
    h_raw_expect(__FILE__, __LINE__, &raw, want, (size_t)len, 0);
    h_raw_close(&raw);
}

/* c's reply to LOLWUT VERSION 5 or 6 args, its closing "Redis ver.
 * <INFO's redis_version>\n" checked and cut off; NULL after a failure. The
 * caller frees it. */
static char *art_reply(redisContext *c, int argc, const char *const *argv, size_t *len)
{
    char text[8192], version[64] = "", tail[128];
    info(c, "server", text, sizeof(text));
    h_info_field(text, "redis_version", version, sizeof(version));
    int tlen = snprintf(tail, sizeof(tail), "Redis ver. %s\n", version);
    redisReply *r = h_command(c, argc, argv, NULL);
    char *art = NULL;
    if (CHECK(r && r->type == REDIS_REPLY_STRING && r->len >= (size_t)tlen &&
                  !memcmp(r->str + r->len - (size_t)tlen, tail, (size_t)tlen),
              "LOLWUT VERSION 5: no '%s' at the end", tail)) {
        *len = r->len - (size_t)tlen;
        art = malloc(*len + 1);
        memcpy(art, r->str, *len);
        art[*len] = '\0';
    }
    freeReplyObject(r);
    return art;
}

/* How many lines text has, and whether each of a's is as long as b's. */
static int same_line_lengths(const char *a, const char *b)
{
    for (;;) {
        const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        if (!ea || !eb)
            return !ea && !eb && strlen(a) == strlen(b);
        if (ea - a != eb - b)
            return 0;
        a = ea + 1;
        b = eb + 1;
    }
}

/* LOLWUT VERSION 5 (Schotter) beside Redis: with two rows or fewer nothing
 * is random, and the picture and its line are Redis's to the byte (but the
 * version each names); with more rows the squares shake at random, in Redis
 * too, so only the shape is compared: the same lines, each as long. */
static void test_lolwut_schotter(void)
{
    redisContext *c = h_connect_flushed(&srv), *r = ref_connect();
    if (!c || !r) {
        if (!r)
            printf("  (no reference: Schotter is not compared)\n");
        goto out;
    }
    static const char *const fixed[][3] = {
        {"66", "8", "2"}, {"1", "1", "1"}, {"0", "-5", "0"}, {"20", "3", "1"},
        {"1000", "200", "2"}, {"7", "3", "2"}, {"100", "1", "2"}, {"2", "1", "1"},
        {"3", "1", "1"}, {"999999", "999999", "1"}, {"33", "5", "2"},
    };
    static const char *const shaken[][3] = {{"66", "8", "12"}, {"40", "3", "7"}, {"200", "50", "200"}};
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) + sizeof(shaken) / sizeof(shaken[0]);
         i++) {
        int is_fixed = i < sizeof(fixed) / sizeof(fixed[0]);
        const char *const *a = is_fixed ? fixed[i] : shaken[i - sizeof(fixed) / sizeof(fixed[0])];
        const char *argv[] = {"LOLWUT", "VERSION", "5", a[0], a[1], a[2]};
        size_t la = 0, lb = 0;
        char *mine = art_reply(c, 6, argv, &la), *theirs = art_reply(r, 6, argv, &lb);
        if (mine && theirs) {
            if (is_fixed)
                CHECK(la == lb && !memcmp(mine, theirs, la),
                      "LOLWUT VERSION 5 %s %s %s: %zu bytes, Redis %zu, not the same", a[0], a[1],
                      a[2], la, lb);
            else
                CHECK(same_line_lengths(mine, theirs),
                      "LOLWUT VERSION 5 %s %s %s: not Redis's shape", a[0], a[1], a[2]);
        }
        free(mine);
        free(theirs);
    }
    /* The defaults (66 columns, 8 squares, 12 rows): the shape again. */
    const char *argv[] = {"LOLWUT", "VERSION", "5"};
    size_t la = 0, lb = 0;
    char *mine = art_reply(c, 3, argv, &la), *theirs = art_reply(r, 3, argv, &lb);
    if (mine && theirs)
        CHECK(same_line_lengths(mine, theirs), "LOLWUT VERSION 5: not Redis's shape");
    free(mine);
    free(theirs);
out:
    if (c)
        redisFree(c);
    if (r)
        redisFree(r);
}

/* text with each of the skyline's four cells (a grey's escape, a space,
 * the reset) written as its grey's digit, and 'X' for anything else that
 * starts with an escape: what is left is the picture's shape and lines. */
static void skyline_shape(char *text)
{
    static const char *const cell[4] = {"\033[0;30;40m \033[0m", "\033[0;90;100m \033[0m",
                                        "\033[0;37;47m \033[0m", "\033[0;97;107m \033[0m"};
    char *out = text;
    for (const char *p = text; *p;) {
        int k = 0;
        while (k < 4 && strncmp(p, cell[k], strlen(cell[k])) != 0)
            k++;
        if (k < 4) {
            *out++ = (char)('0' + k);
            p += strlen(cell[k]);
        } else {
            *out++ = *p == '\033' ? 'X' : *p;
            p++;
        }
    }
    *out = '\0';
}

/* Whether a and b (shapes) have the same lines, each as long, and no 'X'. */
static int same_skyline(const char *a, const char *b)
{
    return !strchr(a, 'X') && !strchr(b, 'X') && same_line_lengths(a, b);
}

/* LOLWUT VERSION 6 (the skyline) beside Redis: random in both, so the
 * shape is compared: lines, cells a line, each cell one of Redis's four
 * greys, the two closing lines. */
static void test_lolwut_skyline(void)
{
    redisContext *c = h_connect_flushed(&srv), *r = ref_connect();
    if (!c || !r)
        goto out;
    static const char *const args[][2] = {
        {NULL, NULL}, {"1", NULL}, {"1", "1"}, {"13", "7"}, {"0", "-3"}, {"2000", "3"}, {"40", "60"},
    };
    for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
        const char *argv[] = {"LOLWUT", "VERSION", "6", args[i][0], args[i][1]};
        int argc = 3 + (args[i][0] != NULL) + (args[i][1] != NULL);
        size_t la = 0, lb = 0;
        char *mine = art_reply(c, argc, argv, &la), *theirs = art_reply(r, argc, argv, &lb);
        if (mine && theirs) {
            skyline_shape(mine);
            skyline_shape(theirs);
            CHECK(same_skyline(mine, theirs), "LOLWUT VERSION 6 %s %s: not Redis's shape",
                  args[i][0] ? args[i][0] : "", args[i][1] ? args[i][1] : "");
            const char *dedication = "\nDedicated to the 8 bit game developers of past and "
                                     "present.\nOriginal 8 bit image from Plaguemon by hikikomori. ";
            size_t dl = strlen(dedication);
            CHECK(la >= dl && strlen(mine) >= dl &&
                      !strcmp(mine + strlen(mine) - dl, dedication),
                  "LOLWUT VERSION 6: the closing lines");
        }
        free(mine);
        free(theirs);
    }
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "LOLWUT", "VERSION", "6", "1",
               "x");
out:
    if (c)
        redisFree(c);
    if (r)
        redisFree(r);
}

/* LOLWUT as Redis 7.0.15: the version line for every version but the art
 * ones (5 and 6, picked by the low 32 bits), and Redis's errors, the art
 * versions' own arguments too. */
static void test_lolwut_like_redis(void)
{
    redisContext *c = h_connect_flushed(&srv), *r = ref_connect();
    if (!c)
        goto out;
    static const char *const lines[][4] = {
        {"LOLWUT"}, {"LOLWUT", "VERSION", "7"}, {"LOLWUT", "version", "59"},
        {"LOLWUT", "VERSION"}, {"LOLWUT", "foo"}, {"LOLWUT", "VERSION", "-1"},
        {"LOLWUT", "VERSION", "7", "x"}, {"LOLWUT", "VERSION", "4294967303"},
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        int argc = 1;
        while (argc < 4 && lines[i][argc])
            argc++;
        expect_lolwut_line(c, argc, lines[i]);
        if (r)
            expect_lolwut_line(r, argc, lines[i]);
    }
    SAME(c, r, "LOLWUT", "VERSION", "x");
    SAME(c, r, "LOLWUT", "VERSION", " 7");
    SAME(c, r, "LOLWUT", "VERSION", "99999999999999999999");
    SAME(c, r, "LOLWUT", "VERSION", "5", "x");
    SAME(c, r, "LOLWUT", "VERSION", "6", "1", "x");
    SAME(c, r, "LOLWUT", "VERSION", "4294967301", "x");
    SAME(c, r, "COMMAND", "INFO", "lolwut");
    if (!h_is_reference()) {
        EXPECT_ERR(c, "ERR LOLWUT picture too large: use fewer columns or rows", "LOLWUT",
                   "VERSION", "5", "1000", "1", "200");
    }
    /* RESP3: a verbatim text, "txt", on both. */
    lolwut_resp3(&srv, c);
    if (r)
        lolwut_resp3(&ref, r);
out:
    if (c)
        redisFree(c);
    if (r)
        redisFree(r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_slowlog_slow_command);
    H_RUN(test_slowlog_capping);
    H_RUN(test_slowlog_like_redis);
    H_RUN(test_latency_monitor);
    H_RUN(test_latency_like_redis);
    H_RUN(test_histogram);
    H_RUN(test_errorstats_like_redis);
    H_RUN(test_info_cpu);
    H_RUN(test_info_eventloop);
    H_RUN(test_info_allocator_trims);
    H_RUN(test_info_cow_while_saving);
    H_RUN(test_module_like_redis);
    H_RUN(test_module_allowed);
    H_RUN(test_lolwut_like_redis);
    H_RUN(test_lolwut_schotter);
    H_RUN(test_lolwut_skyline);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
