/*
 * test_xstream.c - the stream commands (server/commands/cmd_xstream.c on
 * server/data/xstream.[ch]) end to end: every reply and error compared with
 * a redis-server side by side in RESP2 and RESP3, blocking XREAD with
 * several clients and timeouts, keyspace events, the log's replay and the
 * snapshot, and a random run of XADD/XDEL/XTRIM/XRANGE with explicit IDs
 * against redis-server (SEED=<n> replays it).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "rng.h"
#include "harness_blocking.h"

#define REPR_CAP 8192
#define RANDOM_OPS 3000
#define RANDOM_KEYS 3

static struct h_server srv, ref;
static int have_ref;

/* ---- replies and errors, as Redis's ---- */

static const char *const same_as_redis[] = {
    "XADD s 1-1 a 1", "XADD s 1-1 a 1", "XADD s 1-* b 2", "XADD s 0-0 a 1", "XADD s 0-* a 1",
    "XADD s 5 a 1", "XADD s 5-x a 1", "XADD s 99999999999999999999 a 1", "XADD s +5-3 a 1",
    "XADD s 7-3 a", "XADD s 7-3", "XADD s NOMKSTREAM 8-0 a b", "XADD nos NOMKSTREAM 8-0 a b",
    "EXISTS nos", "XADD s MAXLEN 2 9-0 a b", "XADD s MAXLEN -1 10-0 a b",
    "XADD s MAXLEN = 2 10-0 a b", "XADD s maxlen ~ 2 11-0 a b", "XADD s MINID 9 12-0 a b",
    "XADD s minid ~ 9 13-0 a b", "XADD s MAXLEN 5 MINID 1 14-0 a b", "XADD s LIMIT 5 14-0 a b",
    "XADD s MAXLEN 5 LIMIT 5 14-0 a b", "XADD s MAXLEN ~ 5 LIMIT 5 14-0 a b",
    "XADD s MAXLEN ~ 5 LIMIT -5 14-0 a b", "XADD s MAXLEN x 14-0 a b", "XADD s MINID x 14-0 a b",
    "XADD s MINID - 14-0 a b", "XADD s bogus a b", "XADD s 15-0 '' ''", "XLEN s",
    "XRANGE s - +", "XRANGE s - + COUNT 1", "XRANGE s - + COUNT 0", "XRANGE s - + COUNT -1",
    "XRANGE s - + COUNT", "XRANGE s - + FOO 1", "XRANGE s (0 +", "XRANGE s (- +",
    "XRANGE s - (+", "XRANGE s 9 12", "XRANGE s (9-0 (12-0", "XRANGE s 12 9",
    "XRANGE s 18446744073709551615-18446744073709551615 +",
    "XRANGE s (18446744073709551615-18446744073709551615 +", "XRANGE s - (0-0",
    "XREVRANGE s + -", "XREVRANGE s + - COUNT 2", "XREVRANGE s (14 (9", "XREVRANGE s - +",
    "XRANGE nokey - +", "XRANGE nokey - + COUNT 0", "SET str x", "XRANGE str - +", "XLEN str",
    "XLEN nokey", "XADD str 1-1 a b", "XDEL s 12-0 99-0", "XDEL s 12-0 bad", "XDEL nokey 1-1",
    "XDEL str 1-1", "XDEL s -", "XINFO STREAM s", "XINFO STREAM nokey", "XINFO STREAM str",
    "XINFO HELP", "XINFO foo", "XINFO STREAM", "XINFO GROUPS s", "XINFO CONSUMERS s g",
    "XSETID s 1-1", "XSETID s 100-0", "XSETID s 200-0 ENTRIESADDED 1",
    "XSETID s 200-0 ENTRIESADDED 100 MAXDELETEDID 300-0",
    "XSETID s 200-0 ENTRIESADDED 100 MAXDELETEDID 150-0", "XSETID s 200-0 ENTRIESADDED -1",
    "XSETID s 200-0 foo", "XSETID nokey 1-1", "XSETID str 1-1", "XINFO STREAM s",
    "XADD s 200-* x y", "XADD s 200-5 x y", "XTRIM s MAXLEN 1", "XTRIM s", "XTRIM s foo",
    "XTRIM s MINID 0", "XTRIM nokey MAXLEN 1", "XTRIM str MAXLEN 1", "XTRIM s MAXLEN ~ 0 LIMIT 0",
    "XTRIM s MAXLEN 0", "XINFO STREAM s", "EXISTS s", "XREAD STREAMS s", "XREAD STREAMS s 0",
    "XADD s 300-1 k v", "XADD s 300-2 k v", "XREAD COUNT 1 STREAMS s 0",
    "XREAD STREAMS s nokey 0 0", "XREAD STREAMS s str 0 0", "XREAD STREAMS str s 0 0",
    "XREAD STREAMS s $", "XREAD STREAMS s >", "XREAD STREAMS s -", "XREAD STREAMS s 300",
    "XREAD COUNT x STREAMS s 0", "XREAD BLOCK x STREAMS s 0", "XREAD BLOCK -1 STREAMS s 0",
    "XREAD GROUP a b STREAMS s 0", "XREAD NOACK STREAMS s 0", "XREAD FOO STREAMS s 0",
    "XREAD STREAMS", "XREAD BLOCK 10 STREAMS s 300-2", "TYPE s", "OBJECT ENCODING s",
    "COPY s s2", "XRANGE s2 - +", "RENAME s2 s3", "XINFO STREAM s3", "DEL s3", "EXISTS s3",
    "XADD e 1-1 a b", "XDEL e 1-1", "XINFO STREAM e", "XADD e 1-1 a b", "XADD e 1-2 a b",
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

/* Fixed expectations that hold without a reference. */
static void test_basics(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_BULK(c, "1-1", "XADD", "s", "1-1", "f", "v");
    EXPECT_ERR(c, "ERR The ID specified in XADD is equal or smaller than the target stream top item",
               "XADD", "s", "1-1", "f", "v");
    EXPECT_BULK(c, "1-2", "XADD", "s", "1-*", "f", "v");
    EXPECT_MATCH(c, "'*-0'", "XADD", "s", "*", "f", "v");
    EXPECT_INT(c, 3, "XLEN", "s");
    EXPECT_STATUS(c, "stream", "TYPE", "s");
    EXPECT_BULK(c, "stream", "OBJECT", "ENCODING", "s");
    EXPECT_REPLY(c, "[['1-2', ['f', 'v']]]", "XRANGE", "s", "(1-1", "(2");
    EXPECT_INT(c, 2, "XTRIM", "s", "MAXLEN", "1");
    EXPECT_INT(c, 1, "XLEN", "s");
    EXPECT_INT(c, 0, "XDEL", "s", "1-1", "1-2", "9999999999999-0");
    EXPECT_INT(c, 1, "XTRIM", "s", "MINID", "99999999999999");
    EXPECT_INT(c, 0, "XLEN", "s");
    EXPECT_INT(c, 1, "EXISTS", "s"); /* an empty stream stays */
    EXPECT_INT_RANGE(c, 1, 100000, "MEMORY", "USAGE", "s");
    redisFree(c);
}

/* ---- blocking XREAD ---- */

static void test_blocking(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_BULK(c, "5-0", "XADD", "old", "5-0", "f", "v");
    /* "$" is the last ID when the read blocked; a key that does not exist yet reads after 0-0. */
    redisContext *a = H_BLOCKED_READER(&srv, "XREAD", "BLOCK", "0", "STREAMS", "old", "new", "$",
                                       "$");
    redisContext *b = H_BLOCKED_READER(&srv, "XREAD", "COUNT", "1", "BLOCK", "0", "STREAMS", "new",
                                       "0");
    redisContext *t = H_BLOCKED_READER(&srv, "XREAD", "BLOCK", "100", "STREAMS", "other", "$");
    h_await_blocked(c, 3);
    EXPECT_BULK(c, "1-1", "XADD", "new", "1-1", "x", "1");
    EXPECT_NEXT(a, "[['new', [['1-1', ['x', '1']]]]]");
    EXPECT_NEXT(b, "[['new', [['1-1', ['x', '1']]]]]");
    EXPECT_NEXT(t, "(nil)"); /* timed out */
    /* A blocked reader takes every entry after its ID, COUNT at most. */
    redisContext *d = H_BLOCKED_READER(&srv, "XREAD", "COUNT", "2", "BLOCK", "0", "STREAMS", "old",
                                       "5");
    h_await_blocked(c, 1);
    EXPECT_INT(c, 1, "XDEL", "old", "5-0"); /* nothing after 5-0 yet: still blocked */
    freeReplyObject(H_CALL(c, "MULTI"));
    freeReplyObject(H_CALL(c, "XADD", "old", "6-0", "a", "1"));
    freeReplyObject(H_CALL(c, "XADD", "old", "7-0", "b", "2"));
    freeReplyObject(H_CALL(c, "XADD", "old", "8-0", "c", "3"));
    EXPECT_REPLY(c, "['6-0', '7-0', '8-0']", "EXEC");
    EXPECT_NEXT(d, "[['old', [['6-0', ['a', '1']], ['7-0', ['b', '2']]]]]");
    /* Inside MULTI nothing blocks: the nil of a timeout, at once. */
    freeReplyObject(H_CALL(c, "MULTI"));
    freeReplyObject(H_CALL(c, "XREAD", "BLOCK", "0", "STREAMS", "none", "$"));
    EXPECT_REPLY(c, "[(nil)]", "EXEC");
    /* RESP3: a map of one key. */
    struct h_raw e;
    if (h_raw_open(&e, &srv) == 0) {
        RAW_SEND(&e, "HELLO 3\r\nXREAD BLOCK 0 STREAMS old $\r\n");
        RAW_EXPECT_MATCH(&e, "%*");
        h_await_blocked(c, 1);
        EXPECT_BULK(c, "9-0", "XADD", "old", "9-0", "z", "9");
        RAW_EXPECT(&e, "%1\r\n$3\r\nold\r\n*1\r\n*2\r\n$3\r\n9-0\r\n*2\r\n$1\r\nz\r\n$1\r\n9\r\n");
        h_raw_close(&e);
    }
    CHECK(h_info_ll(c, "clients", "blocked_clients") == 0, "nobody left blocked");
    redisFree(a);
    redisFree(b);
    redisFree(t);
    redisFree(d);
    redisFree(c);
}

/* ---- events, the log and the snapshot ---- */

static void test_keyspace_events(void)
{
    redisContext *c = h_connect_flushed(&srv), *sub = h_connect(&srv);
    if (!c || !sub)
        goto out;
    EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "KEA");
    freeReplyObject(H_CALL(sub, "PSUBSCRIBE", "__keyevent@*__:*"));
    freeReplyObject(H_CALL(c, "XADD", "s", "1-1", "a", "1"));
    freeReplyObject(H_CALL(c, "XADD", "s", "MAXLEN", "1", "2-1", "a", "1"));
    freeReplyObject(H_CALL(c, "XDEL", "s", "2-1"));
    freeReplyObject(H_CALL(c, "XDEL", "s", "2-1")); /* nothing: no event */
    freeReplyObject(H_CALL(c, "XSETID", "s", "5-5"));
    freeReplyObject(H_CALL(c, "XADD", "s", "6-1", "a", "1"));
    freeReplyObject(H_CALL(c, "XTRIM", "s", "MINID", "7"));
    const char *want[] = {"xadd", "xadd", "xtrim", "xdel", "xsetid", "xadd", "xtrim"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        redisReply *m = h_get_reply(sub);
        CHECK(m && m->type == REDIS_REPLY_ARRAY && m->elements == 4 &&
                  strcmp(m->element[2]->str + strlen(m->element[2]->str) - strlen(want[i]),
                         want[i]) == 0,
              "event %zu: want %s", i, want[i]);
        freeReplyObject(m);
    }
    EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "");
out:
    redisFree(sub);
    redisFree(c);
}

static void stream_state(redisContext *c, const char *key, char *out, size_t cap)
{
    redisReply *r = H_CALL(c, "XINFO", "STREAM", key);
    redisReply *g = H_CALL(c, "XRANGE", key, "-", "+");
    size_t n = strlen(h_repr(r, out, cap));
    h_repr(g, out + n, cap - n);
    freeReplyObject(r);
    freeReplyObject(g);
}

/* XADD "*" and "~" trimming replay to the same stream from the log (as what
 * they did) and from a snapshot. */
static void test_persistence(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--appendonly", "yes", "--appendfsync", "always"));
    if (!c)
        return;
    for (int i = 0; i < 350; i++)
        freeReplyObject(H_CALL(c, "XADD", "s", "MAXLEN", "~", "120", "*", "i", "v"));
    freeReplyObject(H_CALL(c, "XDEL", "s", "0-1"));
    freeReplyObject(H_CALL(c, "XADD", "e", "3-3", "a", "b"));
    freeReplyObject(H_CALL(c, "XDEL", "e", "3-3"));
    freeReplyObject(H_CALL(c, "XSETID", "e", "9-9", "ENTRIESADDED", "40", "MAXDELETEDID", "4-4"));
    EXPECT_INT_RANGE(c, 120, 219, "XLEN", "s");
    char before[REPR_CAP], before_e[REPR_CAP], after[REPR_CAP];
    stream_state(c, "s", before, sizeof(before));
    stream_state(c, "e", before_e, sizeof(before_e));
    char digest[H_DIGEST_CHARS + 1], digest_after[H_DIGEST_CHARS + 1];
    h_digest(c, digest);
    redisFree(c);
    h_stop(&s);
    /* Rounds: the log as written, the log after BGREWRITEAOF, the snapshot. */
    for (size_t i = 0; i < 3; i++) {
        c = h_reopen(&s, H_FLAGS("--appendonly", i < 2 ? "yes" : "no"));
        if (!c)
            return;
        stream_state(c, "s", after, sizeof(after));
        CHECK(strcmp(before, after) == 0, "round %zu: s was %s, is %s", i, before, after);
        stream_state(c, "e", after, sizeof(after));
        CHECK(strcmp(before_e, after) == 0, "round %zu: e was %s, is %s", i, before_e, after);
        h_digest(c, digest_after);
        CHECK(digest[0] && strcmp(digest, digest_after) == 0, "round %zu: DEBUG DIGEST was %s, is %s",
              i, digest, digest_after);
        if (i == 0) {
            freeReplyObject(H_CALL(c, "BGREWRITEAOF"));
            CHECK(h_wait_info(c, "persistence", "aof_rewrite_in_progress", "0", 30000 * H_SLOW),
                  "the rewrite ended");
            /* A failed rewrite leaves the old log, which replays the same:
             * only its status tells. */
            EXPECT_MATCH(c, "'*aof_last_bgrewrite_status:ok*'", "INFO", "persistence");
        }
        if (i == 1)
            EXPECT_OK(c, "SAVE");
        redisFree(c);
        h_stop(&s);
    }
}

/* ---- random, against redis-server ---- */

static uint64_t rng;
/* Rises with the operations, so IDs near it are mostly new ones. */
static unsigned tick;

static uint64_t next_rand(void)
{
    return rng_next(&rng);
}

static unsigned pick(unsigned n)
{
    return (unsigned)(next_rand() % n);
}

/* A millisecond part around tick. */
static unsigned near_ms(void)
{
    unsigned back = pick(8) ? pick(4) : pick(60);
    return tick > back ? tick - back + pick(3) : pick(3);
}

static void random_id(char *buf, size_t cap)
{
    switch (pick(4)) {
    case 0:
        snprintf(buf, cap, "%u", near_ms());
        break;
    case 1:
        snprintf(buf, cap, "%u-*", near_ms());
        break;
    default:
        snprintf(buf, cap, "%u-%u", near_ms(), pick(3));
        break;
    }
}

/* One random command into m. */
static void random_command(struct h_line *m)
{
    m->argc = 0;
#define W(...) h_line_add(m, __VA_ARGS__)
    unsigned op = pick(100);
    W("%s", op < 45   ? "XADD"
            : op < 60 ? "XDEL"
            : op < 68 ? "XTRIM"
            : op < 80 ? "XRANGE"
            : op < 88 ? "XREVRANGE"
            : op < 95 ? "XLEN"
                      : "XREAD");
    if (op >= 95)
        W("STREAMS");
    W("x%u", pick(RANDOM_KEYS));
    if (op < 45 || (op >= 60 && op < 68)) {
        if (op < 45 && pick(8) == 0)
            W("NOMKSTREAM");
        if (op >= 60 || pick(3) == 0) {
            int minid = pick(3) == 0;
            W("%s", minid ? "MINID" : "MAXLEN");
            /* Not "MINID ~": Redis keeps a node whose last entries XDEL removed
             * until its last ID ever added is below the threshold, which rbkv
             * does not remember (docs/commands.md, Streams). */
            unsigned how = minid ? 2 * pick(2) : pick(3);
            if (how)
                W("%s", how == 1 ? "~" : "=");
            if (minid)
                W("%u", near_ms());
            else
                W("%u", pick(3) ? pick(250) : pick(20));
            if (how == 1 && pick(4) == 0)
                W("LIMIT"), W("%u", pick(300));
        }
        if (op < 45) {
            char id[40];
            random_id(id, sizeof(id));
            W("%s", id);
            for (unsigned i = 0, f = 1 + pick(3); i < f; i++)
                W("f%u", pick(4)), W("v%u", pick(100));
        }
    } else if (op < 60) {
        for (unsigned i = 0, k = 1 + pick(4); i < k; i++)
            W("%u-%u", near_ms(), pick(3));
    } else if (op < 88) {
        const char *lo = pick(5) ? NULL : "-", *hi = pick(5) ? NULL : "+";
        char a[40], b[40];
        unsigned from = near_ms();
        snprintf(a, sizeof(a), "%s%u", pick(4) ? "" : "(", from > 20 ? from - 20 : 0);
        snprintf(b, sizeof(b), "%s%u-%u", pick(4) ? "" : "(", near_ms(), pick(3));
        if (op >= 80)
            W("%s", hi ? hi : b), W("%s", lo ? lo : a);
        else
            W("%s", lo ? lo : a), W("%s", hi ? hi : b);
        if (pick(3) == 0)
            W("COUNT"), W("%u", pick(12));
    } else if (op >= 95) {
        W("%u-%u", near_ms(), pick(3));
    }
#undef W
}

/* XINFO STREAM alike but for radix-tree-nodes, a count of Redis's radix
 * tree that rbkv only estimates (xstream.h); radix-tree-keys, its nodes of
 * entries, is emulated and compared. */
static int same_info(redisContext *c, redisContext *r, const char *key)
{
    redisReply *a = H_CALL(c, "XINFO", "STREAM", key), *b = H_CALL(r, "XINFO", "STREAM", key);
    char ours[REPR_CAP] = "", theirs[REPR_CAP] = "";
    for (redisReply *x = a; x; x = x == a ? b : NULL) {
        if (x->type == REDIS_REPLY_ARRAY && x->elements > 5)
            x->element[5]->integer = 0;
    }
    if (a && b) {
        h_repr(a, ours, sizeof(ours));
        h_repr(b, theirs, sizeof(theirs));
    }
    int ok = a && b && strcmp(ours, theirs) == 0;
    CHECK(ok, "XINFO STREAM %s: rbkv %s, redis %s", key, ours, theirs);
    freeReplyObject(a);
    freeReplyObject(b);
    return ok;
}

static void test_random_against_redis(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    uint64_t seed = h_seed();
    rng = seed;
    redisContext *r, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    /* Small nodes, so "~" trims whole nodes often. */
    static const char *const cfg[] = {"CONFIG SET stream-node-max-entries 7"};
    h_same_lines(__FILE__, __LINE__, c, r, cfg, 1);
    int failures = 0;
    for (int i = 0; i < RANDOM_OPS / H_SLOW && failures < 5; i++) {
        struct h_line m;
        tick = (unsigned)i / 2;
        random_command(&m);
        failures += !h_same(__FILE__, __LINE__, c, r, m.argc, m.argv, NULL);
    }
    for (int k = 0; k < RANDOM_KEYS; k++) {
        char key[16];
        snprintf(key, sizeof(key), "x%d", k);
        const char *all[] = {"XRANGE", key, "-", "+"};
        failures += !h_same(__FILE__, __LINE__, c, r, 4, all, NULL);
        failures += !same_info(c, r, key);
    }
    CHECK(failures == 0, "random comparison failed, SEED=%" PRIu64, seed);
    static const char *const reset[] = {"CONFIG SET stream-node-max-entries 100"};
    h_same_lines(__FILE__, __LINE__, c, r, reset, 1);
    h_close_pair(c, r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_same_as_redis);
    H_RUN(test_basics);
    H_RUN(test_blocking);
    H_RUN(test_keyspace_events);
    H_RUN(test_random_against_redis);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    H_RUN(test_persistence);
    return h_finish();
}
