/*
 * test_xgroup.c - the stream consumer group commands (server/commands/
 * cmd_xgroup.c on server/data/xgroup.[ch]) end to end: replies and errors
 * compared with a redis-server side by side in RESP2 and RESP3, blocking
 * XREADGROUP (served, and the errors when its key or group goes away),
 * idle times through IDLE and TIME arguments, keyspace events, the groups
 * kept by a snapshot, the log and its rewrite, a replica ending identical,
 * and a random run of group commands against redis-server (SEED=<n>
 * replays it).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "harness.h"
#include "rng.h"
#include "harness_blocking.h"

#define REPR_CAP 16384
#define RANDOM_OPS 2000
#define SYNC_MS (10000 * H_SLOW)

static struct h_server srv, ref;
static int have_ref;

/* ---- replies and errors, as Redis's ---- */

static const char *const same_as_redis[] = {
    "XADD s 1-1 a 1", "XADD s 2-1 b 2", "XADD s 3-1 c 3",
    "XGROUP CREATE s g 0", "XGROUP CREATE s g 0", "XGROUP CREATE s g2 $ ENTRIESREAD 3",
    "XGROUP CREATE nokey g 0", "XGROUP CREATE nokey g 0 MKSTREAM", "TYPE nokey",
    "XGROUP CREATE s g3 bad", "XGROUP CREATE s g3 0 ENTRIESREAD -3",
    "XGROUP CREATE s g3 0 ENTRIESREAD x", "XGROUP CREATE s g3 0 ENTRIESREAD 5 foo",
    "XGROUP CREATE s g3 0 FOO", "XGROUP CREATE s", "XGROUP FOO", "XGROUP HELP",
    "XINFO GROUPS s", "XINFO STREAM s",
    "XREADGROUP GROUP g c1 COUNT 1 STREAMS s >", "XREADGROUP GROUP g c2 STREAMS s >",
    "XREADGROUP GROUP g c2 STREAMS s >", "XREADGROUP GROUP g c1 STREAMS s 0",
    "XREADGROUP GROUP g c2 COUNT 1 STREAMS s 0", "XREADGROUP GROUP g c2 STREAMS s 2-1",
    "XREADGROUP GROUP g c1 STREAMS s $", "XREADGROUP GROUP nog c1 STREAMS s >",
    "XREADGROUP GROUP g c1 STREAMS nokey2 >", "XREADGROUP GROUP g c1 STREAMS s",
    "XREADGROUP STREAMS s >", "XREADGROUP GROUP g c1 FOO STREAMS s >",
    "XREADGROUP GROUP g c1 STREAMS s nokey > >", "XREADGROUP GROUP g c1 COUNT x STREAMS s >",
    "XREADGROUP GROUP g c1 BLOCK -1 STREAMS s >", "XREADGROUP GROUP g c1 STREAMS s bad",
    "XREADGROUP GROUP g c1 NOACK STREAMS s 0", "XREADGROUP GROUP g c8 STREAMS s >",
    "XPENDING s g", "XPENDING s g - +", "XPENDING s nog",
    "XPENDING s g x + 10", "XPENDING s g - + x", "XPENDING s g IDLE x - + 10",
    "XPENDING s g IDLE 5 - +", "XPENDING s g - + 10 nobody", "XPENDING s g - (0-0 10",
    "XPENDING s g a b c d e f", "XPENDING nokey2 g",
    "XINFO GROUPS s",
    "XACK s g 1-1 9-9", "XACK s g bad", "XACK s nog 1-1", "XACK nokey3 g 1-1", "XPENDING s g",
    "XCLAIM s g c3 0 2-1 JUSTID", "XCLAIM s g c3 0 2-1", "XCLAIM s g c3 x 2-1",
    "XCLAIM s g c3 0 2-1 FOO", "XCLAIM s g c3 0 2-1 IDLE x", "XCLAIM s g c3 0 2-1 TIME x",
    "XCLAIM s g c3 0 2-1 RETRYCOUNT x", "XCLAIM s g c3 0 2-1 LASTID bad",
    "XCLAIM s g c1 0 1-1 FORCE JUSTID", "XCLAIM s g c1 0 1-1 FORCE", "XCLAIM s g c1 0 1-1",
    "XCLAIM nokey2 g c1 0 1-1", "XCLAIM s nog c1 0 1-1", "XCLAIM s g c1 99999999 1-1",
    "XCLAIM s g c3 0 1-1 2-1 3-1 JUSTID LASTID 3-5", "XINFO GROUPS s",
    "XDEL s 3-1", "XCLAIM s g c1 0 3-1", "XPENDING s g",
    "XADD s 4-1 d 4", "XADD s 5-1 e 5", "XREADGROUP GROUP g c1 STREAMS s >", "XDEL s 4-1",
    "XAUTOCLAIM s g c4 0 0 COUNT 1", "XAUTOCLAIM s g c4 0 0", "XAUTOCLAIM s g c4 0 0 COUNT 0",
    "XAUTOCLAIM s g c4 0 0 COUNT x", "XAUTOCLAIM s g c4 0 0 JUSTID", "XAUTOCLAIM s g c4 0 0 FOO",
    "XAUTOCLAIM s nog c4 0 0", "XAUTOCLAIM nokey2 g c4 0 0", "XAUTOCLAIM s g c4 x 0",
    "XAUTOCLAIM s g c4 0 bad", "XAUTOCLAIM s g c4 0 (5-1", "XAUTOCLAIM s g c5 99999999 0",
    "XAUTOCLAIM s g c4 0 0 COUNT 9223372036854775807",
    "XINFO GROUPS s", "XPENDING s g",
    "XGROUP SETID s g 0 ENTRIESREAD 0", "XINFO GROUPS s", "XGROUP SETID s g $",
    "XGROUP SETID s nog $", "XGROUP SETID s g bad", "XGROUP SETID s g 0 ENTRIESREAD",
    "XGROUP SETID s g 0 FOO 1", "XGROUP SETID s g -", "XINFO GROUPS s",
    "XGROUP CREATECONSUMER s g c9", "XGROUP CREATECONSUMER s g c9",
    "XGROUP CREATECONSUMER s nog c9", "XGROUP DELCONSUMER s g c4", "XGROUP DELCONSUMER s g c4",
    "XGROUP DELCONSUMER s nog c4", "XGROUP DESTROY s g2", "XGROUP DESTROY s g2",
    "XGROUP DESTROY nokey3 g", "XPENDING s g", "XINFO GROUPS s",
    "XINFO STREAM s FULL COUNT", "XINFO STREAM s FOO", "XINFO STREAM s FULL COUNT x",
    "XINFO CONSUMERS s nog", "XINFO CONSUMERS nokey3 g",
    "SET str x", "XREADGROUP GROUP g c STREAMS str >", "XGROUP CREATE str g 0",
    "XPENDING str g", "XACK str g 1-1", "XCLAIM str g c 0 1-1", "XAUTOCLAIM str g c 0 0",
    "XINFO GROUPS str",
    /* A group's lag and entries-read around deletions, as Redis estimates them. */
    "XADD t 1-1 a 1", "XADD t 2-1 a 1", "XADD t 3-1 a 1", "XGROUP CREATE t g 0",
    "XINFO GROUPS t", "XREADGROUP GROUP g c COUNT 1 STREAMS t >", "XINFO GROUPS t",
    "XDEL t 2-1", "XINFO GROUPS t", "XREADGROUP GROUP g c COUNT 1 STREAMS t >",
    "XINFO GROUPS t", "XADD t 4-1 a 1", "XINFO GROUPS t", "XTRIM t MAXLEN 0", "XINFO GROUPS t",
    "XGROUP CREATE t g2 1-1 ENTRIESREAD 1", "XINFO GROUPS t", "XSETID t 9-9 ENTRIESADDED 20",
    "XINFO GROUPS t", "COPY t t2", "XINFO GROUPS t2", "XINFO STREAM t2",
    /* XSETID's 7.0 arguments, kept with the groups. */
    "XSETID t 10-0 ENTRIESADDED 30 MAXDELETEDID 9-9", "XINFO GROUPS t",
    /* An ENTRIESREAD past the entries added: a negative lag, not a nil (not FULL:
     * its delivery times are each server's own millisecond). */
    "XGROUP SETID t g 10-0 ENTRIESREAD 45", "XINFO GROUPS t", "XINFO STREAM t",
};

static void test_same_as_redis(void)
{
    if (!have_ref)
        printf("  no reference server: every command is only checked to answer\n");
    size_t n = sizeof(same_as_redis) / sizeof(same_as_redis[0]);
    redisContext *r, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    h_same_lines(__FILE__, __LINE__, c, r, same_as_redis, n);
    h_close_pair(c, r);
    if (have_ref)
        h_same_lines_resp3(__FILE__, __LINE__, &srv, &ref, same_as_redis, n);
}

/* ---- replies that carry times: the times zeroed, the rest compared ---- */

static long long now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* Unix milliseconds from 2001 on: a delivery time in XINFO STREAM FULL. */
#define STAMP_MIN 1000000000000LL

/* Zeroes what depends on the clock: the value after "seen-time" or "idle"
 * (XINFO), and with mode the third element of each row (XPENDING's
 * idle time); with mode 2, every time stamp too (delivery times
 * two servers stamp a millisecond apart) and radix-tree-nodes (which rbkv
 * only estimates: docs/commands.md, Streams). */
static void mask_times(redisReply *r, int mode)
{
    if (!r || r->type != REDIS_REPLY_ARRAY)
        return;
    for (size_t i = 0; i < r->elements; i++) {
        redisReply *e = r->element[i];
        if (mode == 2 && e->type == REDIS_REPLY_INTEGER && e->integer >= STAMP_MIN)
            e->integer = 0;
        if (e->type == REDIS_REPLY_STRING && i + 1 < r->elements &&
            (strcmp(e->str, "seen-time") == 0 || strcmp(e->str, "idle") == 0 ||
             (mode == 2 && strcmp(e->str, "radix-tree-nodes") == 0)))
            r->element[i + 1]->integer = 0;
        if (mode == 1 && e->type == REDIS_REPLY_ARRAY && e->elements == 4)
            e->element[2]->integer = 0;
        mask_times(e, mode == 2 ? 2 : 0);
    }
}

/* argv on both servers, the times masked, compared; returns 1 when equal. */
static int same_masked(redisContext *c, redisContext *r, int mode, int argc,
                       const char *const *argv)
{
    redisReply *a = h_command(c, argc, argv, NULL), *b = h_command(r, argc, argv, NULL);
    char ours[REPR_CAP] = "", theirs[REPR_CAP] = "";
    mask_times(a, mode);
    mask_times(b, mode);
    if (a && b) {
        h_repr(a, ours, sizeof(ours));
        h_repr(b, theirs, sizeof(theirs));
    }
    int ok = a && b && strcmp(ours, theirs) == 0;
    CHECK(ok, "%s %s: rbkv %s, redis %s", argv[0], argv[1], ours, theirs);
    freeReplyObject(a);
    freeReplyObject(b);
    return ok;
}
#define SAME_MASKED(c, r, rows, ...)                                                              \
    same_masked((c), (r), (rows), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__})

static void test_timed_replies(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    redisContext *r, *c = h_connect_pair(&srv, &ref, &r);
    static const char *const setup[] = {
        "XADD s 1-1 a 1", "XADD s 2-1 b 2", "XADD s 3-1 c 3", "XGROUP CREATE s g 0",
        "XREADGROUP GROUP g alice COUNT 2 STREAMS s >", "XREADGROUP GROUP g bob STREAMS s >",
        "XGROUP CREATECONSUMER s g carol",
    };
    H_SAME_LINES(c, r, setup);
    SAME_MASKED(c, r, 1, "XPENDING", "s", "g", "-", "+", "10");
    SAME_MASKED(c, r, 1, "XPENDING", "s", "g", "-", "+", "10", "alice");
    SAME_MASKED(c, r, 0, "XINFO", "CONSUMERS", "s", "g");
    SAME_MASKED(c, r, 2, "XINFO", "STREAM", "s", "FULL");
    SAME_MASKED(c, r, 2, "XINFO", "STREAM", "s", "FULL", "COUNT", "1");
    SAME_MASKED(c, r, 2, "XINFO", "STREAM", "s", "FULL", "COUNT", "0");
    h_close_pair(c, r);
}

/* IDLE and TIME set delivery times far apart, so the idle filters and
 * XAUTOCLAIM's min-idle-time choose without racing the clock. */
static void test_idle_times(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    char old[24];
    snprintf(old, sizeof(old), "%lld", now_ms() - 1000000);
    freeReplyObject(H_CALL(c, "XADD", "s", "1-1", "a", "1"));
    freeReplyObject(H_CALL(c, "XADD", "s", "2-1", "b", "2"));
    freeReplyObject(H_CALL(c, "XADD", "s", "3-1", "c", "3"));
    EXPECT_OK(c, "XGROUP", "CREATE", "s", "g", "0");
    freeReplyObject(H_CALL(c, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "s", ">"));
    /* 1-1 looks idle for 1000 s, 2-1 for 500 s, 3-1 was just delivered. */
    EXPECT_REPLY(c, "['1-1']", "XCLAIM", "s", "g", "a", "0", "1-1", "TIME", old, "JUSTID");
    EXPECT_REPLY(c, "['2-1']", "XCLAIM", "s", "g", "a", "0", "2-1", "IDLE", "500000", "JUSTID");
    EXPECT_MATCH(c, "[['1-1', 'a', :1000*, :1], ['2-1', 'a', :50*, :1]]", "XPENDING", "s", "g",
                 "IDLE", "400000", "-", "+", "10");
    EXPECT_MATCH(c, "[['1-1', 'a', :1000*, :1]]", "XPENDING", "s", "g", "IDLE", "700000", "-",
                 "+", "10", "a");
    /* min-idle-time: only what waited long enough changes hands. */
    EXPECT_REPLY(c, "[]", "XCLAIM", "s", "g", "b", "700000", "2-1", "3-1");
    EXPECT_REPLY(c, "[['1-1', ['a', '1']]]", "XCLAIM", "s", "g", "b", "700000", "1-1", "2-1");
    EXPECT_REPLY(c, "['0-0', ['2-1'], []]", "XAUTOCLAIM", "s", "g", "b", "400000", "0", "JUSTID");
    /* RETRYCOUNT sets the count; JUSTID leaves it; a claim without either adds one. */
    EXPECT_REPLY(c, "['3-1']", "XCLAIM", "s", "g", "b", "0", "3-1", "RETRYCOUNT", "7", "JUSTID");
    EXPECT_MATCH(c, "[['1-1', 'b', :*, :2], ['2-1', 'b', :*, :1], ['3-1', 'b', :*, :7]]", "XPENDING",
                 "s", "g", "-", "+", "10");
    /* A TIME in the future counts as now. */
    EXPECT_REPLY(c, "['3-1']", "XCLAIM", "s", "g", "b", "0", "3-1", "TIME", "99999999999999",
                 "JUSTID");
    EXPECT_REPLY(c, "[]", "XPENDING", "s", "g", "IDLE", "100000", "3-1", "3-1", "1");
    redisFree(c);
}

/* ---- blocking XREADGROUP ---- */

static void expect_next(redisContext *w, const char *want)
{
    if (w)
        EXPECT_NEXT(w, want);
}

static void test_blocking(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_OK(c, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
    EXPECT_OK(c, "XGROUP", "CREATE", "s", "h", "$");
    /* Two readers of g and one of h: one XADD serves one of g (first come)
     * and the one of h; the next serves the other of g. */
    redisContext *a = H_BLOCKED_READER(&srv, "XREADGROUP", "GROUP", "g", "a", "BLOCK", "0",
                                       "STREAMS", "s", ">");
    h_await_blocked(c, 1);
    redisContext *b = H_BLOCKED_READER(&srv, "XREADGROUP", "GROUP", "g", "b", "COUNT", "1",
                                       "BLOCK", "0", "STREAMS", "s", ">");
    h_await_blocked(c, 2);
    redisContext *x = H_BLOCKED_READER(&srv, "XREADGROUP", "GROUP", "h", "x", "NOACK", "BLOCK", "0",
                                       "STREAMS", "s", ">");
    h_await_blocked(c, 3);
    EXPECT_BULK(c, "1-1", "XADD", "s", "1-1", "f", "v");
    expect_next(a, "[['s', [['1-1', ['f', 'v']]]]]");
    expect_next(x, "[['s', [['1-1', ['f', 'v']]]]]");
    h_await_blocked(c, 1);
    EXPECT_BULK(c, "2-1", "XADD", "s", "2-1", "f", "w");
    expect_next(b, "[['s', [['2-1', ['f', 'w']]]]]");
    /* NOACK leaves h's PEL empty; g's holds both, one per consumer. */
    EXPECT_REPLY(c, "[:2, '1-1', '2-1', [['a', '1'], ['b', '1']]]", "XPENDING", "s", "g");
    EXPECT_REPLY(c, "[:0, (nil), (nil), (nil)]", "XPENDING", "s", "h");
    /* A timeout answers nil; inside MULTI nothing blocks. */
    EXPECT_TIMEOUT(c, 100, "XREADGROUP", "GROUP", "g", "a", "BLOCK", "100", "STREAMS", "s", ">");
    EXPECT_TRANSACTION(c, "[(nil)]", "XREADGROUP GROUP g a BLOCK 0 STREAMS s >");
    /* A history read never blocks. */
    EXPECT_REPLY(c, "[['s', []]]", "XREADGROUP", "GROUP", "g", "zed", "BLOCK", "0", "STREAMS",
                 "s", "0");

    /* The key or the group going away: Redis's errors. */
    static const struct {
        const char *why[4];
        const char *want;
    } gone[] = {
        {{"DEL", "s"}, "-UNBLOCKED the stream key no longer exists"},
        {{"XGROUP", "DESTROY", "s", "g"},
         "-NOGROUP the consumer group this client was blocked on no longer exists"},
        {{"SET", "s", "x"}, "-UNBLOCKED the stream key no longer exists"},
        {{"FLUSHALL"}, "-UNBLOCKED the stream key no longer exists"},
    };
    for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
        freeReplyObject(H_CALL(c, "DEL", "s"));
        EXPECT_OK(c, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
        /* An XREAD on the same key waits on through it all, as in Redis. */
        redisContext *plain = H_BLOCKED_READER(&srv, "XREAD", "BLOCK", "0", "STREAMS", "s", "$");
        h_await_blocked(c, 1);
        redisContext *w = H_BLOCKED_READER(&srv, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0",
                                           "STREAMS", "s", ">");
        h_await_blocked(c, 2);
        int argc = 0;
        while (argc < 4 && gone[i].why[argc])
            argc++;
        freeReplyObject(h_command(c, argc, gone[i].why, NULL));
        expect_next(w, gone[i].want);
        h_await_blocked(c, 1);
        freeReplyObject(H_CALL(c, "DEL", "s"));
        freeReplyObject(H_CALL(c, "XADD", "s", "9-9", "k", "v"));
        expect_next(plain, "[['s', [['9-9', ['k', 'v']]]]]");
        redisFree(w);
        redisFree(plain);
    }
    /* A deadline passing is a deletion too (seen by a lookup here, or by
     * Redis's active expiry): polled, not slept on. */
    freeReplyObject(H_CALL(c, "DEL", "s"));
    EXPECT_OK(c, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
    EXPECT_INT(c, 1, "PEXPIRE", "s", "100");
    redisContext *w = H_BLOCKED_READER(&srv, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0",
                                       "STREAMS", "s", ">");
    h_await_blocked(c, 1);
    for (int i = 0; i < 200 * H_SLOW && h_info_ll(c, "clients", "blocked_clients") > 0; i++) {
        freeReplyObject(H_CALL(c, "EXISTS", "s"));
        h_sleep_ms(10);
    }
    expect_next(w, "-UNBLOCKED the stream key no longer exists");
    redisFree(w);
    CHECK(h_info_ll(c, "clients", "blocked_clients") == 0, "nobody left blocked");
    redisFree(a);
    redisFree(b);
    redisFree(x);
    redisFree(c);
}

/* ---- events ---- */

static void test_keyspace_events(void)
{
    redisContext *c = h_connect_flushed(&srv), *sub = h_connect(&srv);
    if (!c || !sub)
        goto out;
    EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "KEA");
    freeReplyObject(H_CALL(sub, "PSUBSCRIBE", "__keyevent@*__:*"));
    freeReplyObject(H_CALL(c, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"));
    freeReplyObject(H_CALL(c, "XGROUP", "CREATECONSUMER", "s", "g", "a"));
    freeReplyObject(H_CALL(c, "XGROUP", "CREATECONSUMER", "s", "g", "a")); /* exists: none */
    freeReplyObject(H_CALL(c, "XGROUP", "SETID", "s", "g", "0"));
    freeReplyObject(H_CALL(c, "XREADGROUP", "GROUP", "g", "b", "STREAMS", "s", ">")); /* none */
    freeReplyObject(H_CALL(c, "XREADGROUP", "GROUP", "g", "b", "STREAMS", "s", "0"));
    freeReplyObject(H_CALL(c, "XGROUP", "DELCONSUMER", "s", "g", "a"));
    freeReplyObject(H_CALL(c, "XGROUP", "DESTROY", "s", "g"));
    /* (No "new": KEA leaves out n, as Redis's A does.) */
    const char *want[] = {"xgroup-create", "xgroup-createconsumer", "xgroup-setid",
                          "xgroup-createconsumer", "xgroup-delconsumer", "xgroup-destroy"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        redisReply *m = h_get_reply(sub);
        CHECK(m && m->type == REDIS_REPLY_ARRAY && m->elements == 4 &&
                  strcmp(m->element[2]->str + strlen(m->element[2]->str) - strlen(want[i]),
                         want[i]) == 0 &&
                  m->element[2]->str[strlen(m->element[2]->str) - strlen(want[i]) - 1] == ':',
              "event %zu: want %s, got %s", i, want[i],
              m && m->elements == 4 ? m->element[2]->str : "?");
        freeReplyObject(m);
    }
    EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "");
out:
    redisFree(sub);
    redisFree(c);
}

/* ---- the snapshot, the log, its rewrite, a replica ---- */

/* A dataset with every kind of group state: consumers with and without
 * pending entries, an entry delivered twice, a NOACK group, a group whose
 * entries-read is unknown, and a pending entry whose stream entry is gone. */
static void build_groups(redisContext *c)
{
    static const char *const lines[] = {
        "XADD s 1-1 a 1", "XADD s 2-1 b 2", "XADD s 3-1 c 3", "XADD s 4-1 d 4",
        "XGROUP CREATE s g 0", "XGROUP CREATE s h $", "XGROUP CREATE s u 2-1",
        "XREADGROUP GROUP g alice COUNT 2 STREAMS s >", "XREADGROUP GROUP g bob STREAMS s >",
        "XGROUP CREATECONSUMER s g carol", "XCLAIM s g bob 0 1-1 TIME 1700000000000",
        "XCLAIM s g bob 0 2-1 RETRYCOUNT 9 IDLE 1000", "XACK s g 4-1",
        "XREADGROUP GROUP h x NOACK STREAMS s 0", "XADD s 5-1 e 5",
        "XREADGROUP GROUP u y STREAMS s >",
        "XREADGROUP GROUP g alice STREAMS s 0", "XGROUP CREATE e g $ MKSTREAM",
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        struct h_line l;
        h_split(lines[i], &l);
        redisReply *r = h_command(c, l.argc, l.argv, NULL);
        CHECK(r && r->type != REDIS_REPLY_ERROR, "%s: %s", lines[i], r ? r->str : "no reply");
        freeReplyObject(r);
    }
}

/* XINFO STREAM FULL of each key, the consumers' seen times masked (a
 * replay or a replica sees them when it runs), into out. */
static void groups_state(redisContext *c, char *out, size_t cap)
{
    static const char *const keys[] = {"s", "e"};
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < 2 && n < cap; i++) {
        redisReply *r = H_CALL(c, "XINFO", "STREAM", keys[i], "FULL");
        mask_times(r, 0);
        n += strlen(h_repr(r, out + n, cap - n));
        freeReplyObject(r);
    }
}

static void test_persistence(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--appendonly", "yes", "--appendfsync", "always"));
    if (!c)
        return;
    build_groups(c);
    char before[REPR_CAP], after[REPR_CAP];
    groups_state(c, before, sizeof(before));
    CHECK(strstr(before, "'alice'") && strstr(before, "1700000000000"),
          "the state names its consumers and times: %s", before);
    redisFree(c);
    h_stop(&s);
    /* Rounds: the log as written, the log after BGREWRITEAOF, the snapshot. */
    for (size_t i = 0; i < 3; i++) {
        c = h_reopen(&s, H_FLAGS("--appendonly", i < 2 ? "yes" : "no"));
        if (!c)
            return;
        groups_state(c, after, sizeof(after));
        CHECK(strcmp(before, after) == 0, "round %zu: was %s, is %s", i, before, after);
        if (i == 0) {
            freeReplyObject(H_CALL(c, "BGREWRITEAOF"));
            CHECK(h_wait_info(c, "persistence", "aof_rewrite_in_progress", "0", 30000 * H_SLOW),
                  "the rewrite ended");
            EXPECT_MATCH(c, "'*aof_last_bgrewrite_status:ok*'", "INFO", "persistence");
        }
        if (i == 1)
            EXPECT_OK(c, "SAVE");
        redisFree(c);
        h_stop(&s);
    }
}

static void test_replica(void)
{
    struct h_server p, r;
    redisContext *pc = h_open(&p, NULL), *rc = h_open(&r, NULL);
    if (!pc || !rc)
        goto out;
    char port[16];
    snprintf(port, sizeof(port), "%d", p.port);
    freeReplyObject(H_CALL(pc, "XADD", "before", "1-1", "a", "b"));
    freeReplyObject(H_CALL(pc, "XGROUP", "CREATE", "before", "g", "0"));
    freeReplyObject(H_CALL(pc, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "before", ">"));
    EXPECT_OK(rc, "REPLICAOF", "127.0.0.1", port);
    CHECK(h_wait_info(rc, "replication", "master_link_status", "up", SYNC_MS), "link up");
    build_groups(pc);
    /* A blocked read served on the primary reaches the replica too. */
    redisContext *w = h_connect(&p);
    if (w)
        H_SEND(w, "XREADGROUP", "GROUP", "u", "dave", "BLOCK", "0", "STREAMS", "s", ">");
    h_await_blocked(pc, 1);
    freeReplyObject(H_CALL(pc, "XADD", "s", "6-1", "f", "6"));
    expect_next(w, "[['s', [['6-1', ['f', '6']]]]]");
    freeReplyObject(H_CALL(pc, "XAUTOCLAIM", "s", "g", "erin", "0", "0", "COUNT", "2"));
    freeReplyObject(H_CALL(pc, "XREADGROUP", "GROUP", "g", "z", "NOACK", "STREAMS", "s", ">"));
    CHECK(h_wait_caught_up(pc, rc, SYNC_MS), "the replica caught up");
    char ps[REPR_CAP], rs[REPR_CAP];
    const char *const keys[] = {"s", "e", "before"};
    for (size_t i = 0; i < 3; i++) {
        redisReply *a = H_CALL(pc, "XINFO", "STREAM", keys[i], "FULL");
        redisReply *b = H_CALL(rc, "XINFO", "STREAM", keys[i], "FULL");
        mask_times(a, 0);
        mask_times(b, 0);
        h_repr(a, ps, sizeof(ps));
        h_repr(b, rs, sizeof(rs));
        CHECK(a && b && strcmp(ps, rs) == 0, "%s: primary %s, replica %s", keys[i], ps, rs);
        freeReplyObject(a);
        freeReplyObject(b);
    }
    redisFree(w);
out:
    if (rc)
        h_close(&r, rc);
    if (pc)
        h_close(&p, pc);
}

/* ---- random, against redis-server ---- */

static uint64_t rng;

static unsigned pick(unsigned n)
{
    return (unsigned)rng_below(&rng, n);
}

/* One random group command into m: replies that carry no time. */
static void random_command(struct h_line *m, unsigned tick)
{
    m->argc = 0;
#define W(...) h_line_add(m, __VA_ARGS__)
    const char *key = pick(6) ? "s" : "t";
    unsigned op = pick(100);
    char group[4] = {'g', (char)('0' + pick(2)), 0};
    char consumer[4] = {'c', (char)('0' + pick(3)), 0};
    if (op < 25) {
        W("XADD"), W("%s", key), W("%u-%u", tick, pick(3)), W("f"), W("%u", pick(100));
    } else if (op < 45) {
        W("XREADGROUP"), W("GROUP"), W("%s", group), W("%s", consumer);
        if (pick(2))
            W("COUNT"), W("%u", 1 + pick(4));
        if (pick(6) == 0)
            W("NOACK");
        W("STREAMS"), W("%s", key);
        if (pick(4))
            W(">");
        else
            W("%u", tick > 20 ? tick - pick(20) : 0);
    } else if (op < 55) {
        W("XACK"), W("%s", key), W("%s", group);
        for (unsigned i = 0, n = 1 + pick(3); i < n; i++)
            W("%u-%u", tick > 30 ? tick - pick(30) : pick(30), pick(3));
    } else if (op < 63) {
        W("XCLAIM"), W("%s", key), W("%s", group), W("%s", consumer), W("0");
        for (unsigned i = 0, n = 1 + pick(3); i < n; i++)
            W("%u-%u", tick > 30 ? tick - pick(30) : pick(30), pick(3));
        W("JUSTID");
        if (pick(4) == 0)
            W("FORCE");
    } else if (op < 70) {
        W("XAUTOCLAIM"), W("%s", key), W("%s", group), W("%s", consumer), W("0"), W("0");
        W("COUNT"), W("%u", 1 + pick(5));
        if (pick(2))
            W("JUSTID");
    } else if (op < 76) {
        W("XPENDING"), W("%s", key), W("%s", group);
    } else if (op < 80) {
        W("XINFO"), W("GROUPS"), W("%s", key);
    } else if (op < 86) {
        W("XDEL"), W("%s", key), W("%u-%u", tick > 30 ? tick - pick(30) : pick(30), pick(3));
    } else if (op < 89) {
        W("XGROUP"), W("CREATE"), W("%s", key), W("%s", group), W("%s", pick(2) ? "$" : "0");
        W("MKSTREAM");
    } else if (op < 92) {
        W("XGROUP"), W("SETID"), W("%s", key), W("%s", group);
        W("%u", tick > 20 ? tick - pick(20) : 0);
    } else if (op < 94) {
        W("XGROUP"), W("DELCONSUMER"), W("%s", key), W("%s", group), W("%s", consumer);
    } else if (op < 96) {
        W("XGROUP"), W("DESTROY"), W("%s", key), W("%s", group);
    } else if (op < 98) {
        W("XTRIM"), W("%s", key), W("MAXLEN"), W("%u", pick(10));
    } else {
        W("XREADGROUP"), W("GROUP"), W("%s", group), W("%s", consumer), W("STREAMS"),
            W("%s", key), W("0");
    }
#undef W
}

static void test_random_against_redis(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    uint64_t seed = h_seed();
    rng = seed;
    redisContext *r, *c = h_connect_pair(&srv, &ref, &r);
    static const char *const setup[] = {"XGROUP CREATE s g0 0 MKSTREAM",
                                        "XGROUP CREATE t g1 0 MKSTREAM"};
    H_SAME_LINES(c, r, setup);
    int failures = 0;
    for (int i = 0; i < RANDOM_OPS / H_SLOW && failures < 5; i++) {
        struct h_line m;
        random_command(&m, 1 + (unsigned)i / 3);
        failures += !h_same(__FILE__, __LINE__, c, r, m.argc, m.argv, NULL);
    }
    static const char *const keys[] = {"s", "t"};
    for (size_t k = 0; k < 2; k++) {
        failures += !SAME_MASKED(c, r, 2, "XINFO", "STREAM", keys[k], "FULL", "COUNT", "0");
    }
    CHECK(failures == 0, "random comparison failed, SEED=%" PRIu64, seed);
    h_close_pair(c, r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_same_as_redis);
    H_RUN(test_timed_replies);
    H_RUN(test_idle_times);
    H_RUN(test_blocking);
    H_RUN(test_keyspace_events);
    H_RUN(test_random_against_redis);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    H_RUN(test_persistence);
    H_RUN(test_replica);
    return h_finish();
}
