/*
 * test_swapdb.c - end-to-end tests of SWAPDB: its errors, the data each
 * index shows afterwards, WATCH (a watcher of a key live in either db loses
 * its transaction, one of a key in neither keeps it), clients blocked on a
 * key the swap brings in (served) or takes away (XREADGROUP told its stream
 * went), keyspace events and dirty counts, cluster mode, and the swap kept
 * in the append-only log across a restart.
 *
 * Each scenario runs on the server under test and, when redis-server is
 * there, on it too: the transcripts of replies must be equal byte for byte
 * (h_repr's text form); fixed expectations keep the test meaningful
 * without the reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "harness_blocking.h"
#include "harness_cluster.h"

static struct h_server srv, ref;
static int have_ref;

/* A transcript of replies: each appended in h_repr's text form and ";". */
struct transcript {
    char text[8192];
    size_t used;
};

static void note(struct transcript *t, const redisReply *r)
{
    char buf[1024];
    h_repr(r, buf, sizeof(buf));
    int n = snprintf(t->text + t->used, sizeof(t->text) - t->used, "%s;", r ? buf : "(none)");
    if (n > 0 && t->used + (size_t)n < sizeof(t->text))
        t->used += (size_t)n;
}

/* Sends a line (words split at spaces) on c and notes its reply. */
static void say(struct transcript *t, redisContext *c, const char *line)
{
    struct h_line l;
    h_split(line, &l);
    redisReply *r = h_command(c, l.argc, l.argv, NULL);
    note(t, r);
    freeReplyObject(r);
}

/* The next reply of a command sent earlier on c (a blocked one). */
static void say_next(struct transcript *t, redisContext *c)
{
    redisReply *r = h_get_reply(c);
    note(t, r);
    freeReplyObject(r);
}

/* Errors and the data each index shows before and after. */
static void errors_and_data(const struct h_server *s, struct transcript *t)
{
    static const char *const lines[] = {
        "SWAPDB", "SWAPDB 0", "SWAPDB 0 1 2", "SWAPDB a 1", "SWAPDB 1 a", "SWAPDB a b",
        "SWAPDB 0 16", "SWAPDB -1 0", "SWAPDB 0 2147483648", "SWAPDB 2147483648 x",
        "SWAPDB 1.5 0", "SWAPDB 0 0",
        "SET k zero", "RPUSH l a b", "SELECT 1", "SET k one", "SET only1 x", "PEXPIRE only1 100000",
        "SELECT 0", "SWAPDB 0 1", "GET k", "GET only1", "TYPE l", "DBSIZE", "SELECT 1", "GET k",
        "LRANGE l 0 -1", "DBSIZE", "SWAPDB 1 0", "GET k", "SWAPDB 1 1", "GET k", "SELECT 0",
        "GET k", "EXISTS only1",
    };
    redisContext *c = h_connect(s);
    if (!c)
        return;
    say(t, c, "FLUSHALL");
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        say(t, c, lines[i]);
    redisFree(c);
}

/* WATCH across a swap: dirty when the key is live in either db. */
static void watch_cases(const struct h_server *s, struct transcript *t)
{
    redisContext *c = h_connect(s), *o = h_connect(s);
    if (!c || !o) {
        redisFree(c);
        redisFree(o);
        return;
    }
    say(t, c, "FLUSHALL");
    say(t, o, "SELECT 1");
    say(t, o, "SET in1 x");
    say(t, c, "SET in0 x");
    /* Watched in db 0, live only in db 1: dirty. */
    const char *watched[] = {"in1", "in0", "nowhere"};
    for (size_t i = 0; i < 3; i++) {
        char line[64];
        snprintf(line, sizeof(line), "WATCH %s", watched[i]);
        say(t, c, line);
        say(t, o, "SWAPDB 0 1");
        say(t, c, "MULTI");
        say(t, c, "PING");
        say(t, c, "EXEC");
    }
    /* A watcher in db 1 of a key live in db 0; a key only expired there. */
    say(t, c, "SELECT 1");
    say(t, c, "WATCH in0");
    say(t, o, "SWAPDB 1 0");
    say(t, c, "MULTI");
    say(t, c, "PING");
    say(t, c, "EXEC");
    say(t, o, "SELECT 0");
    say(t, o, "SET gone x PX 1");
    say(t, c, "WATCH gone");
    /* Past its deadline, with no command to look at it meanwhile. */
    int64_t set_at = h_now_ms();
    while (h_now_ms() - set_at < 5)
        h_sleep_ms(1);
    say(t, o, "SWAPDB 0 1");
    say(t, c, "MULTI");
    say(t, c, "PING");
    say(t, c, "EXEC");
    redisFree(c);
    redisFree(o);
}

/* Clients blocked in db 0 when a swap brings in (or takes away) their key. */
static void blocked_cases(const struct h_server *s, struct transcript *t)
{
    redisContext *c = h_connect(s);
    if (!c)
        return;
    say(t, c, "FLUSHALL");
    say(t, c, "XGROUP CREATE st g $ MKSTREAM");
    say(t, c, "SELECT 1");
    say(t, c, "RPUSH l v");
    say(t, c, "ZADD z 1 m");
    say(t, c, "SELECT 0");
    redisContext *bl = H_BLOCKED_READER(s, "BLPOP", "l", "0");
    h_await_blocked(c, 1);
    redisContext *bz = H_BLOCKED_READER(s, "BZPOPMIN", "z", "0");
    h_await_blocked(c, 2);
    redisContext *bx = H_BLOCKED_READER(s, "XREADGROUP", "GROUP", "g", "a", "BLOCK", "0",
                                        "STREAMS", "st", ">");
    h_await_blocked(c, 3);
    say(t, c, "SWAPDB 0 1");
    if (bl)
        say_next(t, bl);
    if (bz)
        say_next(t, bz);
    if (bx)
        say_next(t, bx);
    say(t, c, "LLEN l");
    say(t, c, "INFO keyspace");
    redisFree(bl);
    redisFree(bz);
    redisFree(bx);
    redisFree(c);
}

typedef void scenario_fn(const struct h_server *s, struct transcript *t);

/* Runs fn on srv and, with the reference, on ref; the transcripts must be
 * equal. Returns rbkv's, for fixed checks (the caller frees it). */
static struct transcript *run(scenario_fn *fn, const char *name)
{
    struct transcript *ours = calloc(1, sizeof(*ours));
    fn(&srv, ours);
    if (have_ref) {
        struct transcript *theirs = calloc(1, sizeof(*theirs));
        fn(&ref, theirs);
        CHECK(strcmp(ours->text, theirs->text) == 0, "%s:\n  rbkv  %s\n  redis %s", name,
              ours->text, theirs->text);
        free(theirs);
    }
    return ours;
}

static void test_errors_and_data(void)
{
    struct transcript *t = run(errors_and_data, "errors and data");
    CHECK(strstr(t->text, "-ERR invalid first DB index;-ERR invalid second DB index;") &&
              strstr(t->text, "-ERR DB index is out of range;"),
          "SWAPDB's errors: %s", t->text);
    free(t);
}

static void test_watch(void)
{
    struct transcript *t = run(watch_cases, "watch");
    CHECK(strstr(t->text, "+OK;+OK;+QUEUED;(nil);") != NULL, "a swap dirtied no watcher: %s",
          t->text);
    free(t);
}

static void test_blocked(void)
{
    struct transcript *t = run(blocked_cases, "blocked");
    CHECK(strstr(t->text, "['l', 'v']") != NULL, "BLPOP not served by the swap: %s", t->text);
    free(t);
}

/* No keyspace event, one dirty, as Redis. */
static void test_events(void)
{
    static const char *const lines[] = {"SET a 1", "SWAPDB 0 1", "SWAPDB 1 1", "SET end end"};
    char ours[512], theirs[512];
    long long dirty[4] = {0}, ref_dirty[4] = {0};
    h_events_and_dirty(&srv, lines, 4, ours, sizeof(ours), dirty);
    CHECK(strcmp(ours, "new a;set a;new end;set end;") == 0, "events: %s", ours);
    CHECK(dirty[1] == 1 && dirty[2] == 1, "SWAPDB's dirty: %lld %lld", dirty[1], dirty[2]);
    if (!have_ref)
        return;
    h_events_and_dirty(&ref, lines, 4, theirs, sizeof(theirs), ref_dirty);
    CHECK(strcmp(ours, theirs) == 0, "events: rbkv %s, redis %s", ours, theirs);
    for (int i = 0; i < 4; i++)
        CHECK(dirty[i] == ref_dirty[i], "line %d dirty: rbkv %lld, redis %lld", i, dirty[i],
              ref_dirty[i]);
}

/* The append-only log keeps the swap: after a restart the data is swapped. */
static void test_log_replay(void)
{
    if (h_is_reference())
        return;
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--appendonly", "yes"));
    if (!c)
        return;
    EXPECT_OK(c, "SET", "k", "zero");
    EXPECT_OK(c, "SWAPDB", "0", "1");
    EXPECT_OK(c, "SET", "k", "new0");
    EXPECT_OK(c, "SWAPDB", "2", "1");
    redisFree(c);
    h_stop(&s);
    c = h_reopen(&s, H_FLAGS("--appendonly", "yes"));
    if (!c)
        return;
    EXPECT_BULK(c, "new0", "GET", "k");
    EXPECT_OK(c, "SELECT", "2");
    EXPECT_BULK(c, "zero", "GET", "k");
    EXPECT_OK(c, "SELECT", "1");
    EXPECT_NIL(c, "GET", "k");
    h_close(&s, c);
}

static void test_cluster(void)
{
    if (h_is_reference())
        return;
    struct h_node n;
    if (!CHECK(h_node_start(&n, 0, 15000) == 0, "a cluster-mode node started"))
        return;
    EXPECT_ERR(n.c, "ERR SWAPDB is not allowed in cluster mode", "SWAPDB", "0", "1");
    EXPECT_ERR(n.c, "ERR SWAPDB is not allowed in cluster mode", "SWAPDB", "x", "1");
    h_node_stop(&n);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_errors_and_data);
    H_RUN(test_watch);
    H_RUN(test_blocked);
    H_RUN(test_events);
    H_RUN(test_log_replay);
    H_RUN(test_cluster);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
