/*
 * test_parity.c - end-to-end tests of what issue 34 found differing from
 * Redis 7.0 in the replication stream and the diagnostics, each run on the
 * server under test and, when redis-server is on PATH, on redis-server with
 * the same steps, the outcomes compared:
 *  - the stream as a replica applies it (its MONITOR) and the replica's
 *    INFO commandstats: GETSET arrives as SET, GETDEL as DEL, FLUSHDB and
 *    FLUSHALL as called, also on an empty dataset; the commands that
 *    rewrite themselves (SET EX and SETEX as SET PXAT, EXPIRE and GETEX as
 *    PEXPIREAT, PERSIST or DEL, INCRBYFLOAT as SET KEEPTTL, HINCRBYFLOAT as
 *    HSET, SPOP as SREM or DEL, blocking pops served at once or later as
 *    the pops they were), and MULTI/EXEC only around more than one write;
 *  - SLOWLOG's redaction of secrets (ACL SETUSER, AUTH, HELLO, CONFIG SET);
 *  - FLUSHALL with save rules saves, so rdb_changes_since_last_save is 0;
 *  - the latency monitor's expire-cycle event;
 *  - blocking calls unblocked by CLIENT UNBLOCK or served, in INFO
 *    commandstats (failed_calls), errorstats, the latency histograms and
 *    SLOWLOG (a served call logged when served, one unblocked with no
 *    arguments, one timed out not at all).
 *
 * The fixed expectations are what Redis 7.0.15 gives, so the whole program
 * also passes against redis-server (integration_parity_on_redis).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MAX_LINES 64
#define LINE_CAP 200

typedef int start_fn(struct h_server *s, const char *const *flags);

/* A workload for stream_run: what it runs on the primary p through c, the
 * last line of the stream it makes, the commands whose calls the replica's
 * commandstats are compared for. */
struct workload {
    void (*run)(const struct h_server *p, redisContext *c);
    const char *last_line;
    const char *const *counted;
    size_t ncounted;
};

/* Sends each of lines[0..n) (words split at spaces) on c, whatever the reply. */
static void run_lines(redisContext *c, const char *const *lines, size_t n)
{
    struct h_line l;
    for (size_t i = 0; i < n; i++) {
        h_split(lines[i], &l);
        freeReplyObject(h_command(c, l.argc, l.argv, NULL));
    }
}

/* Redis 7.0.15's replica MONITOR lines (after "] ") for stream_sequence. */
static const char *const stream_lines[] = {
    "\"set\" \"k\" \"v\"",   "\"SET\" \"k\" \"w\"",         "\"DEL\" \"k\"",
    "\"SET\" \"k2\" \"x\"",  "\"flushdb\"",                 "\"flushdb\" \"async\"",
    "\"flushall\" \"sync\"", "\"flushall\"",                "\"FLUSHDB\" \"SYNC\"",
    "\"set\" \"end\" \"1\"",
};
#define STREAM_LINES ((int)(sizeof(stream_lines) / sizeof(stream_lines[0])))
/* And its INFO commandstats calls for the commands the stream may carry. */
static const char stream_stats[] = "set=4 del=1 flushdb=3 flushall=2";
static const char *const stream_counted[] = {"set", "del", "flushdb", "flushall", "getset",
                                             "getdel"};

static void stream_sequence(const struct h_server *p, redisContext *c)
{
    static const char *const lines[] = {
        "set k v",       "getset k w",    "getdel k", "getdel nokey", "getset k2 x", "flushdb",
        "flushdb async", "flushall sync", "flushall", "FLUSHDB SYNC", "set end 1",
    };
    (void)p;
    run_lines(c, lines, sizeof(lines) / sizeof(lines[0]));
}

static const struct workload flush_workload = {
    stream_sequence, "\"set\" \"end\" \"1\"", stream_counted,
    sizeof(stream_counted) / sizeof(stream_counted[0])};

/* A MONITOR line's words into out (LINE_CAP): a 13-digit "17..." or "18..."
 * word (a deadline in unix ms counted from now) as "T", the member of an
 * SREM (SPOP's random pick) as "*". */
static void normalize_line(char *out, const char *rest, int len)
{
    size_t n = 0;
    int srem = len >= 6 && !strncasecmp(rest, "\"SREM\"", 6), word = 0;
    for (int i = 0; i < len && n + 8 < LINE_CAP;) {
        int j = i + 1;
        if (rest[i] != '"') {
            out[n++] = rest[i++];
            continue;
        }
        while (j < len && rest[j] != '"')
            j += rest[j] == '\\' ? 2 : 1;
        int wl = j - i - 1;
        if (srem && word == 2)
            n += (size_t)snprintf(out + n, LINE_CAP - n, "\"*\"");
        else if (wl == 13 && rest[i + 1] == '1' && (rest[i + 2] == '7' || rest[i + 2] == '8'))
            n += (size_t)snprintf(out + n, LINE_CAP - n, "\"T\"");
        else
            n += (size_t)snprintf(out + n, LINE_CAP - n, "%.*s", wl + 2, rest + i);
        word++;
        i = j + 1;
    }
    out[n] = '\0';
}

/* Whether a replica's MONITOR line is the link's own traffic. */
static int link_line(const char *rest)
{
    return !strncasecmp(rest, "\"ping\"", 6) || !strncasecmp(rest, "\"select\"", 8) ||
           !strncasecmp(rest, "\"replconf\"", 10);
}

/* "name=calls ..." of w's counted commands in INFO commandstats, in its
 * order, those never called left out. */
static void counted_stats(redisContext *c, const struct workload *w, char *out, size_t cap)
{
    redisReply *r = H_CALL(c, "INFO", "commandstats");
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; r && r->type != REDIS_REPLY_ERROR && r->str &&
                       i < w->ncounted;
         i++) {
        char key[64];
        snprintf(key, sizeof(key), "cmdstat_%s:calls=", w->counted[i]);
        const char *p = strstr(r->str, key);
        if (p && n < cap)
            n += (size_t)snprintf(out + n, cap - n, "%s%s=%ld", n ? " " : "", w->counted[i],
                                  strtol(p + strlen(key), NULL, 10));
    }
    freeReplyObject(r);
}

/* A primary and its replica, both started by start, the replica's MONITOR
 * while w runs on the primary: its lines (after "] ", the link's own left
 * out, an absolute deadline of now give or take a few years written as T)
 * into lines, and the replica's counted commandstats into stats. Returns
 * the number of lines. */
static int stream_run(start_fn *start, const struct workload *w, char lines[][LINE_CAP],
                      char *stats, size_t cap)
{
    struct h_server p, r;
    struct h_raw m;
    char port[16];
    int n = 0;
    stats[0] = '\0';
    if (start(&p, H_FLAGS("--repl-diskless-sync-delay", "0")) != 0)
        return 0;
    if (start(&r, NULL) != 0) {
        h_stop(&p);
        return 0;
    }
    redisContext *pc = h_connect(&p), *rc = h_connect(&r);
    snprintf(port, sizeof(port), "%d", p.port);
    if (pc && rc && EXPECT_OK(rc, "REPLICAOF", "127.0.0.1", port) &&
        CHECK(h_wait_info(rc, "replication", "master_link_status", "up", 10000 * H_SLOW),
              "the replica's link came up") &&
        h_raw_open(&m, &r) == 0) {
        EXPECT_OK(rc, "CONFIG", "RESETSTAT");
        RAW_SEND(&m, "MONITOR\r\n");
        RAW_EXPECT(&m, "+OK\r\n");
        w->run(&p, pc);
        size_t len;
        while (n < MAX_LINES && h_raw_read_reply(&m, &len, H_RAW_TIMEOUT_MS) == 0) {
            const char *rest = memmem(m.buf, len, "] ", 2);
            rest = rest ? rest + 2 : m.buf;
            int restlen = (int)(len - 2 - (size_t)(rest - m.buf));
            if (!link_line(rest))
                normalize_line(lines[n++], rest, restlen);
            h_raw_consume(&m, len);
            if (n && !strcmp(lines[n - 1], w->last_line))
                break;
        }
        h_raw_close(&m);
        counted_stats(rc, w, stats, cap);
    }
    if (pc)
        redisFree(pc);
    if (rc)
        redisFree(rc);
    h_stop(&r);
    h_stop(&p);
    return n;
}

static int start_reference(struct h_server *s, const char *const *flags)
{
    return h_start_reference(s, flags);
}

/* w's stream and the replica's counted commandstats on the server under
 * test against Redis 7.0.15's, want_lines[0..nwant) and want_stats, and,
 * when redis-server is there, against a pair of redis-servers running it. */
static void check_stream(const struct workload *w, const char *const *want_lines, int nwant,
                         const char *want_stats)
{
    char lines[MAX_LINES][LINE_CAP], stats[512];
    int n = stream_run(h_start, w, lines, stats, sizeof(stats));
    CHECK(n == nwant, "the replica applied %d commands, Redis's applies %d", n, nwant);
    for (int i = 0; i < n && i < nwant; i++)
        CHECK(!strcmp(lines[i], want_lines[i]), "stream line %d: expected %s, got %s", i,
              want_lines[i], lines[i]);
    CHECK(!strcmp(stats, want_stats), "the replica's commandstats: expected '%s', got '%s'",
          want_stats, stats);

    /* The same on a pair of redis-servers, now. */
    struct h_server probe;
    if (!h_start_comparison(&probe))
        return;
    h_stop(&probe);
    char ref_lines[MAX_LINES][LINE_CAP], ref_stats[512];
    int rn = stream_run(start_reference, w, ref_lines, ref_stats, sizeof(ref_stats));
    CHECK(rn == n, "redis-server's replica applied %d commands, this one's %d", rn, n);
    for (int i = 0; i < n && i < rn; i++)
        CHECK(!strcmp(lines[i], ref_lines[i]), "stream line %d: redis-server %s, this %s", i,
              ref_lines[i], lines[i]);
    CHECK(!strcmp(stats, ref_stats), "the replica's commandstats: redis-server '%s', this '%s'",
          ref_stats, stats);
}

static void test_stream_carries_what_redis_carries(void)
{
    check_stream(&flush_workload, stream_lines, STREAM_LINES, stream_stats);
}

/* ---- commands that rewrite themselves for the stream ---- */

/* Redis 7.0.15's replica MONITOR lines for rewrite_sequence (T: a deadline
 * counted from now; *: SPOP's random member). */
static const char *const rewrite_lines[] = {
    "\"SET\" \"s1\" \"v\" \"PXAT\" \"T\"",
    "\"SET\" \"s2\" \"v\" \"PXAT\" \"T\"",
    "\"SET\" \"s3\" \"v\" \"PXAT\" \"9999999999000\"",
    "\"SET\" \"s4\" \"v\" \"PXAT\" \"9999999999000\"",
    "\"set\" \"s5\" \"v\"",
    "\"SET\" \"s5\" \"w\" \"PXAT\" \"T\"",
    "\"SET\" \"s6\" \"v\" \"PXAT\" \"T\"",
    "\"SET\" \"s7\" \"v\" \"PXAT\" \"T\"",
    "\"PEXPIREAT\" \"s6\" \"T\" \"GT\"",
    "\"PEXPIREAT\" \"s6\" \"9999999999000\"",
    "\"pexpireat\" \"s6\" \"9999999999001\"",
    "\"DEL\" \"s6\"",
    "\"PEXPIREAT\" \"s7\" \"T\"",
    "\"PERSIST\" \"s7\"",
    "\"DEL\" \"s7\"",
    "\"SET\" \"f\" \"1.5\"",
    "\"SET\" \"f\" \"3.5\" \"KEEPTTL\"",
    "\"HSET\" \"h\" \"a\" \"2.5\"",
    "\"SADD\" \"st\" \"a\" \"b\" \"c\"",
    "\"MULTI\"",
    "\"SREM\" \"st\" \"*\"",
    "\"SREM\" \"st\" \"*\"",
    "\"EXEC\"",
    "\"SREM\" \"st\" \"*\"",
    "\"SADD\" \"st\" \"a\" \"b\"",
    "\"DEL\" \"st\"",
    "\"RPUSH\" \"l\" \"a\" \"b\" \"c\" \"d\" \"e\"",
    "\"LPOP\" \"l\"",
    "\"LMOVE\" \"l\" \"l2\" \"RIGHT\" \"left\"",
    "\"LPOP\" \"l\" \"3\"",
    "\"RPOPLPUSH\" \"l2\" \"l3\"",
    "\"ZADD\" \"z\" \"1\" \"a\" \"2\" \"b\" \"3\" \"c\"",
    "\"ZPOPMIN\" \"z\"",
    "\"ZPOPMAX\" \"z\" \"2\"",
    "\"SET\" \"t1\" \"v\"",
    "\"MULTI\"",
    "\"SET\" \"t2\" \"v\" \"PXAT\" \"T\"",
    "\"SET\" \"t3\" \"1\" \"KEEPTTL\"",
    "\"EXEC\"",
    "\"SET\" \"sc\" \"v\" \"PXAT\" \"T\"",
    "\"RPUSH\" \"q\" \"a\" \"b\"",
    "\"LPOP\" \"q\"",
    "\"RPUSH\" \"q2\" \"x\"",
    "\"LMOVE\" \"q2\" \"q3\" \"left\" \"right\"",
    "\"ZADD\" \"zq\" \"1\" \"a\" \"2\" \"b\"",
    "\"ZPOPMIN\" \"zq\" \"2\"",
    "\"set\" \"end\" \"1\"",
};
#define REWRITE_LINES ((int)(sizeof(rewrite_lines) / sizeof(rewrite_lines[0])))
static const char *const rewrite_counted[] = {
    "set",  "hset", "sadd", "srem",      "del",     "pexpireat", "persist", "rpush",
    "lpop", "lmove", "rpoplpush", "zadd", "zpopmin", "zpopmax", "multi",     "exec",
    "setex", "expire", "getex", "incrbyfloat", "hincrbyfloat", "spop", "blpop", "eval"};
static const char rewrite_stats[] = "set=15 hset=1 sadd=2 srem=3 del=3 pexpireat=4 persist=1 "
                                    "rpush=3 lpop=3 lmove=2 rpoplpush=1 zadd=2 zpopmin=2 "
                                    "zpopmax=1 multi=2 exec=2";

static void rewrite_sequence(const struct h_server *p, redisContext *c)
{
    static const char *const lines[] = {
        "SET s1 v EX 100", "SET s2 v PX 100000", "SET s3 v EXAT 9999999999",
        "SET s4 v PXAT 9999999999000 GET", "set s5 v GET", "SET s5 w XX EX 100 GET",
        "SETEX s6 100 v", "PSETEX s7 100000 v", "EXPIRE s6 200 GT", "PEXPIRE s6 100 NX",
        "EXPIREAT s6 9999999999", "pexpireat s6 9999999999001", "EXPIRE s6 -1",
        "GETEX s7 EX 100", "GETEX s7 PERSIST", "GETEX s7 PERSIST", "GETEX s7 EXAT 1",
        "SET f 1.5", "INCRBYFLOAT f 2", "HINCRBYFLOAT h a 2.5", "SADD st a b c", "SPOP st 2",
        "SPOP st", "SADD st a b", "SPOP st 5", "RPUSH l a b c d e", "BLPOP l 0",
        "BLMOVE l l2 RIGHT left 0", "BLMPOP 0 1 l LEFT COUNT 9", "BRPOPLPUSH l2 l3 0",
        "ZADD z 1 a 2 b 3 c", "BZPOPMIN z 0", "ZMPOP 1 z MAX COUNT 5",
        "MULTI", "SET t1 v", "GET t1", "EXEC",
        "MULTI", "SET t2 v EX 100", "INCRBYFLOAT t3 1", "EXEC",
    };
    run_lines(c, lines, sizeof(lines) / sizeof(lines[0]));
    freeReplyObject(H_CALL(c, "EVAL", "redis.call('SET', KEYS[1], 'v', 'EX', '100')", "1", "sc"));
    /* Three clients waiting, then served: each pop or move on its own. */
    redisContext *w[3] = {h_connect(p), h_connect(p), h_connect(p)};
    if (w[0] && w[1] && w[2]) {
        H_SEND(w[0], "BLPOP", "q", "0");
        H_SEND(w[1], "BLMOVE", "q2", "q3", "LEFT", "RIGHT", "0");
        H_SEND(w[2], "BZMPOP", "0", "1", "zq", "MIN", "COUNT", "5");
        if (h_wait_blocked(c, 3, 5000 * H_SLOW) == 0) {
            static const char *const serve[] = {"RPUSH q a b", "RPUSH q2 x", "ZADD zq 1 a 2 b"};
            run_lines(c, serve, 3);
            EXPECT_NEXT(w[0], "['q', 'a']");
            EXPECT_NEXT(w[1], "'x'");
            EXPECT_NEXT(w[2], "['zq', [['a', '1'], ['b', '2']]]");
        }
    }
    for (int i = 0; i < 3; i++)
        if (w[i])
            redisFree(w[i]);
    freeReplyObject(H_CALL(c, "set", "end", "1"));
}

static const struct workload rewrite_workload = {
    rewrite_sequence, "\"set\" \"end\" \"1\"", rewrite_counted,
    sizeof(rewrite_counted) / sizeof(rewrite_counted[0])};

static void test_stream_rewrites_as_redis_does(void)
{
    check_stream(&rewrite_workload, rewrite_lines, REWRITE_LINES, rewrite_stats);
}

/* Each slow log entry's arguments (h_repr of the array), newest first,
 * joined by newlines into out. */
static void slowlog_args(redisContext *c, char *out, size_t cap)
{
    redisReply *r = H_CALL(c, "SLOWLOG", "GET", "100");
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
        const redisReply *e = r->element[i];
        char text[512];
        if (e->type == REDIS_REPLY_ARRAY && e->elements >= 4 && n < cap)
            n += (size_t)snprintf(out + n, cap - n, "%s\n",
                                  h_repr(e->element[3], text, sizeof(text)));
    }
    freeReplyObject(r);
}

/* The secrets' commands on s, then its slow log's arguments into out. */
static void redaction_run(const struct h_server *s, char *out, size_t cap)
{
    static const char *const admin[] = {
        "ACL SETUSER u1 on >secret +get ~*",
        "ACL SETUSER u3 +get",
        "ACL SETUSER u9 >p badrule",
        "ACL DELUSER u3",
        "CONFIG SET masterauth a masteruser b",
        "CONFIG SET requirepass ''",
        "CONFIG GET masterauth",
        "CLIENT SETNAME n",
    };
    static const char *const auth[] = {
        "AUTH u1 secret",
        "AUTH nosuch",
        "HELLO 2 AUTH u1 secret SETNAME m",
    };
    struct h_line l;
    redisContext *c = h_connect(s), *a = c ? h_connect(s) : NULL;
    out[0] = '\0';
    if (a) {
        EXPECT_OK(c, "CONFIG", "SET", "slowlog-log-slower-than", "0");
        EXPECT_OK(c, "SLOWLOG", "RESET");
        for (size_t i = 0; i < sizeof(admin) / sizeof(admin[0]); i++) {
            h_split(admin[i], &l);
            freeReplyObject(h_command(c, l.argc, l.argv, NULL));
        }
        for (size_t i = 0; i < sizeof(auth) / sizeof(auth[0]); i++) {
            h_split(auth[i], &l);
            freeReplyObject(h_command(a, l.argc, l.argv, NULL));
        }
        EXPECT_OK(c, "CONFIG", "SET", "slowlog-log-slower-than", "10000");
        slowlog_args(c, out, cap);
        EXPECT_OK(c, "CONFIG", "SET", "masterauth", "", "masteruser", "");
        EXPECT_OK(c, "SLOWLOG", "RESET");
    }
    if (a)
        redisFree(a);
    if (c)
        redisFree(c);
}

/* Redis 7.0.15's slow log for redaction_run, newest first. */
static const char redaction_log[] =
    "['HELLO', '2', 'AUTH', '(redacted)', '(redacted)', 'SETNAME', 'm']\n"
    "['AUTH', '(redacted)']\n"
    "['AUTH', '(redacted)', '(redacted)']\n"
    "['CLIENT', 'SETNAME', 'n']\n"
    "['CONFIG', 'GET', 'masterauth']\n"
    "['CONFIG', 'SET', 'requirepass', '(redacted)']\n"
    "['CONFIG', 'SET', 'masterauth', '(redacted)', 'masteruser', '(redacted)']\n"
    "['ACL', 'DELUSER', 'u3']\n"
    "['ACL', 'SETUSER', '(redacted)', '(redacted)', '(redacted)']\n"
    "['ACL', 'SETUSER', '(redacted)', '(redacted)']\n"
    "['ACL', 'SETUSER', '(redacted)', '(redacted)', '(redacted)', '(redacted)', '(redacted)']\n"
    "['SLOWLOG', 'RESET']\n";

static void test_slowlog_redacts_secrets(void)
{
    struct h_server s, ref;
    char got[4096], want[4096];
    if (h_start(&s, NULL) < 0)
        return;
    redaction_run(&s, got, sizeof(got));
    CHECK(!strcmp(got, redaction_log), "the slow log:\n%s\nRedis 7.0.15's:\n%s", got,
          redaction_log);
    if (h_start_comparison(&ref)) {
        redaction_run(&ref, want, sizeof(want));
        CHECK(!strcmp(got, want), "the slow log:\n%s\nredis-server's:\n%s", got, want);
        h_stop(&ref);
    }
    h_stop(&s);
}

/* FLUSHALL's effect on rdb_changes_since_last_save, with and without save
 * rules, into out. */
static void flushall_run(const struct h_server *s, char *out, size_t cap)
{
    redisContext *c = h_connect(s);
    out[0] = '\0';
    if (!c)
        return;
    EXPECT_OK(c, "CONFIG", "SET", "save", "3600 1");
    EXPECT_OK(c, "MSET", "a", "1", "b", "2");
    EXPECT_OK(c, "FLUSHALL");
    long long with_save = h_info_ll(c, "persistence", "rdb_changes_since_last_save");
    EXPECT_OK(c, "CONFIG", "SET", "save", "");
    EXPECT_OK(c, "MSET", "a", "1", "b", "2");
    EXPECT_OK(c, "FLUSHALL");
    long long without = h_info_ll(c, "persistence", "rdb_changes_since_last_save");
    snprintf(out, cap, "with save rules %lld, without %lld", with_save, without);
    redisFree(c);
}

static void test_flushall_saves_with_save_rules(void)
{
    struct h_server s, ref;
    char got[128], want[128];
    if (h_start(&s, NULL) < 0)
        return;
    flushall_run(&s, got, sizeof(got));
    CHECK(!strcmp(got, "with save rules 0, without 4"), "rdb_changes_since_last_save: %s", got);
    if (h_start_comparison(&ref)) {
        flushall_run(&ref, want, sizeof(want));
        CHECK(!strcmp(got, want), "rdb_changes_since_last_save: %s, redis-server: %s", got,
              want);
        h_stop(&ref);
    }
    h_stop(&s);
}

/* Many keys due at once, active expiry on: whether LATENCY LATEST comes to
 * name expire-cycle within a few seconds. */
static int expire_cycle_run(const struct h_server *s)
{
    enum { KEYS = 100000 };
    int seen = 0;
    redisContext *c = h_connect_flushed(s);
    if (!c)
        return 0;
    EXPECT_OK(c, "CONFIG", "SET", "latency-monitor-threshold", "1");
    freeReplyObject(H_CALL(c, "LATENCY", "RESET"));
    /* In one transaction, so that they are all there when the first is due. */
    H_APPEND(c, "MULTI");
    for (int i = 0; i < KEYS; i++) {
        char key[32];
        snprintf(key, sizeof(key), "e:%d", i);
        H_APPEND(c, "SET", key, "v", "PX", "1");
    }
    H_APPEND(c, "EXEC");
    for (int i = 0; i < KEYS + 2; i++)
        freeReplyObject(h_get_reply(c));
    int64_t deadline = h_now_ms() + 10000 * H_SLOW;
    while (!seen && h_now_ms() < deadline) {
        redisReply *r = H_CALL(c, "LATENCY", "LATEST");
        for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
            const redisReply *e = r->element[i];
            seen |= e->type == REDIS_REPLY_ARRAY && e->elements > 0 &&
                    e->element[0]->type == REDIS_REPLY_STRING &&
                    !strcmp(e->element[0]->str, "expire-cycle");
        }
        freeReplyObject(r);
        if (!seen)
            h_sleep_ms(50);
    }
    EXPECT_OK(c, "CONFIG", "SET", "latency-monitor-threshold", "0");
    redisFree(c);
    return seen;
}

static void test_latency_expire_cycle(void)
{
    struct h_server s, ref;
    if (h_start(&s, NULL) < 0)
        return;
    CHECK(expire_cycle_run(&s), "LATENCY LATEST named expire-cycle");
    if (h_start_comparison(&ref)) {
        CHECK(expire_cycle_run(&ref), "redis-server's LATENCY LATEST named expire-cycle");
        h_stop(&ref);
    }
    h_stop(&s);
}

/* "calls=C failed=F samples=S" of cmd: INFO commandstats and the number of
 * samples in its LATENCY HISTOGRAM. */
static void blocked_figures(redisContext *c, const char *cmd, char *out, size_t cap)
{
    char key[64];
    long calls = -1, failed = -1;
    long long samples = 0;
    redisReply *r = H_CALL(c, "INFO", "commandstats");
    snprintf(key, sizeof(key), "cmdstat_%s:calls=", cmd);
    const char *p = r && r->str ? strstr(r->str, key) : NULL;
    if (p) {
        calls = strtol(p + strlen(key), NULL, 10);
        const char *f = strstr(p, "failed_calls=");
        failed = f ? strtol(f + 13, NULL, 10) : -1;
    }
    freeReplyObject(r);
    r = H_CALL(c, "LATENCY", "HISTOGRAM", cmd);
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
        r->element[1]->type == REDIS_REPLY_ARRAY && r->element[1]->elements >= 2 &&
        r->element[1]->element[1]->type == REDIS_REPLY_INTEGER)
        samples = r->element[1]->element[1]->integer;
    freeReplyObject(r);
    snprintf(out, cap, "%s calls=%ld failed=%ld samples=%lld", cmd, calls, failed, samples);
}

/* w's next command blocks; then CLIENT UNBLOCK with mode on c, and w's reply
 * is want. */
static void unblock(redisContext *c, redisContext *w, long long id, const char *mode,
                    const char *want)
{
    char idtext[32];
    snprintf(idtext, sizeof(idtext), "%lld", id);
    if (h_wait_blocked(c, 1, 5000 * H_SLOW) == 0)
        EXPECT_INT(c, 1, "CLIENT", "UNBLOCK", idtext, mode);
    EXPECT_NEXT(w, want);
}

/* Blocking calls ended four ways: timed out by themselves, CLIENT UNBLOCK
 * ERROR and TIMEOUT, served by a push; their figures into out. */
static void blocked_run(const struct h_server *s, char *out, size_t cap)
{
    char blpop[128], bzpopmin[128], unblocked[32] = "none";
    redisContext *c = h_connect_flushed(s), *w = c ? h_connect(s) : NULL;
    out[0] = '\0';
    if (!w) {
        if (c)
            redisFree(c);
        return;
    }
    long long id = H_INT_REPLY(w, "CLIENT", "ID");
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    EXPECT_OK(c, "CONFIG", "SET", "slowlog-log-slower-than", "0");
    EXPECT_OK(c, "SLOWLOG", "RESET");
    EXPECT_REPLY(c, "(nil)", "BLPOP", "nokey", "0.01");
    H_SEND(w, "BLPOP", "nokey", "0");
    unblock(c, w, id, "ERROR", "-UNBLOCKED client unblocked via CLIENT UNBLOCK");
    H_SEND(w, "BZPOPMIN", "z", "0");
    unblock(c, w, id, "TIMEOUT", "(nil)");
    H_SEND(w, "BLPOP", "l", "0");
    if (h_wait_blocked(c, 1, 5000 * H_SLOW) == 0)
        EXPECT_INT(c, 1, "RPUSH", "l", "a");
    EXPECT_NEXT(w, "['l', 'a']");
    blocked_figures(c, "blpop", blpop, sizeof(blpop));
    blocked_figures(c, "bzpopmin", bzpopmin, sizeof(bzpopmin));
    h_info_str(c, "errorstats", "errorstat_UNBLOCKED", unblocked, sizeof(unblocked));
    /* The slow log, oldest first, without the client c's own commands. */
    char logged[1024], calls[512] = "";
    slowlog_args(c, logged, sizeof(logged));
    for (char *line = strtok(logged, "\n"); line; line = strtok(NULL, "\n")) {
        if (strstr(line, "'CLIENT'") || strstr(line, "'INFO'") || strstr(line, "'CONFIG'") ||
            strstr(line, "'SLOWLOG'") || strstr(line, "'RPUSH'") || strstr(line, "'LATENCY'"))
            continue;
        char tmp[512];
        snprintf(tmp, sizeof(tmp), "%s%s%s", line, calls[0] ? " " : "", calls);
        snprintf(calls, sizeof(calls), "%s", tmp);
    }
    snprintf(out, cap, "%s; %s; UNBLOCKED %s; slowlog %s", blpop, bzpopmin, unblocked, calls);
    redisFree(w);
    redisFree(c);
}

static void test_blocked_calls_in_stats(void)
{
    static const char redis_figures[] = "blpop calls=3 failed=1 samples=2; bzpopmin calls=1 "
                                        "failed=1 samples=1; UNBLOCKED count=1; slowlog "
                                        "[] [] ['BLPOP', 'l', '0']";
    struct h_server s, ref;
    char got[512], want[512];
    if (h_start(&s, NULL) < 0)
        return;
    blocked_run(&s, got, sizeof(got));
    CHECK(!strcmp(got, redis_figures), "expected %s, got %s", redis_figures, got);
    if (h_start_comparison(&ref)) {
        blocked_run(&ref, want, sizeof(want));
        CHECK(!strcmp(got, want), "redis-server: %s, this: %s", want, got);
        h_stop(&ref);
    }
    h_stop(&s);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_stream_carries_what_redis_carries);
    H_RUN(test_stream_rewrites_as_redis_does);
    H_RUN(test_slowlog_redacts_secrets);
    H_RUN(test_flushall_saves_with_save_rules);
    H_RUN(test_latency_expire_cycle);
    H_RUN(test_blocked_calls_in_stats);
    return h_finish();
}
