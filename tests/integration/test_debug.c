/*
 * test_debug.c - end-to-end tests of DEBUG (DIGEST, DIGEST-VALUE, SLEEP,
 * HELP, its errors; POPULATE, PROTOCOL, CHANGE-REPL-ID, STRINGMATCH-TEST,
 * QUICKLIST-PACKED-THRESHOLD, LISTPACK, JMAP) and of CLIENT LIST / CLIENT
 * KILL by TYPE.
 *
 * The tooling subcommands are compared with redis-server 7.0.15 reply by
 * reply, byte for byte, in RESP2 and RESP3 (skipped without one on PATH):
 * every PROTOCOL type, what POPULATE writes (names, values, padding, keys
 * it skips, WATCH it breaks) and every error text.
 *
 * The digest's promises: zeros for an empty dataset; equal datasets give
 * equal digests whatever order they were written in (two servers, opposite
 * orders); a change of one value, deadline, score or database changes it.
 * Values without a deadline give Redis 7.0's own digest, checked against a
 * value Redis printed; so do hashes and sets, loaded from a snapshot (passes
 * without the hash and set commands) and written with HSET and SADD in
 * another order (needs them).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "harness.h"

/* Redis 7.0.15: SET a 1, then DEBUG DIGEST-VALUE a. */
#define REDIS_DIGEST_OF_1 "b4fc66738120fba0b5aa500ab5c2bf89cea1c5da"

/* Redis 7.0.15, empty, then: HSET h f v "" empty a ""; SADD s m n "";
 * SADD ints 1 2 -3; DEBUG DIGEST-VALUE h s ints; DEBUG DIGEST. */
#define REDIS_DIGEST_H "382f79e546babe92e933048a8dc2ada74bb50442"
#define REDIS_DIGEST_S "d20817797cb02b0187852ece602fddd20d42c5ad"
#define REDIS_DIGEST_INTS "836878cc027f259476c1f062e588720a8848c1d0"
#define REDIS_DIGEST_MAPS "4d6954ef86f0900975d78c7cfbbbd79a79283f60"
#define REDIS_DIGESTS_MAPS                                                                        \
    "[+" REDIS_DIGEST_H ", +" REDIS_DIGEST_S ", +" REDIS_DIGEST_INTS "]"

/* The same data, written in one order or the other: strings, a sorted set,
 * keys in two databases, an absolute deadline (so both servers agree). */
static void load(redisContext *c, int reverse)
{
    if (!reverse) {
        EXPECT_OK(c, "SET", "a", "1");
        EXPECT_OK(c, "SET", "b", "two");
        EXPECT_INT(c, 3, "ZADD", "z", "1", "x", "2.5", "y", "-3", "w");
        EXPECT_OK(c, "SET", "t", "v", "PXAT", "4102444800000");
        EXPECT_OK(c, "SELECT", "3");
        EXPECT_OK(c, "SET", "a", "1");
        EXPECT_OK(c, "SELECT", "0");
    } else {
        EXPECT_OK(c, "SELECT", "3");
        EXPECT_OK(c, "SET", "a", "1");
        EXPECT_OK(c, "SELECT", "0");
        EXPECT_OK(c, "SET", "t", "v");
        EXPECT_INT(c, 1, "PEXPIREAT", "t", "4102444800000");
        EXPECT_INT(c, 1, "ZADD", "z", "-3", "w");
        EXPECT_INT(c, 2, "ZADD", "z", "2.5", "y", "1", "x");
        EXPECT_OK(c, "SET", "b", "two");
        EXPECT_OK(c, "SET", "a", "1");
    }
}

static void expect_same(const char *what, const char *want, const char *got)
{
    CHECK(strcmp(want, got) == 0, "%s: digest %s, expected %s", what, got, want);
}

static void expect_changed(const char *what, const char *base, const char *got)
{
    CHECK(strcmp(base, got) != 0 && strcmp(got, H_DIGEST_ZEROS) != 0,
          "%s: digest unchanged (%s)", what, got);
}

static void test_digest(void)
{
    struct h_server s1, s2;
    redisContext *a = h_open(&s1, NULL);
    redisContext *b = h_open(&s2, NULL);
    if (!a || !b)
        return;
    char base[H_DIGEST_CHARS + 1], other[H_DIGEST_CHARS + 1], d[H_DIGEST_CHARS + 1];

    EXPECT_STATUS(a, H_DIGEST_ZEROS, "DEBUG", "DIGEST");
    EXPECT_REPLY(a, "[+" H_DIGEST_ZEROS ", +" H_DIGEST_ZEROS "]", "DEBUG", "DIGEST-VALUE", "a",
                 "b");
    EXPECT_REPLY(a, "[]", "DEBUG", "DIGEST-VALUE");

    load(a, 0);
    load(b, 1);
    h_digest(a, base);
    h_digest(b, other);
    expect_same("same data, other order", base, other);
    expect_changed("data against empty", H_DIGEST_ZEROS, base);

    /* DIGEST-VALUE: of the value, not the key's name; Redis's for a string. */
    EXPECT_REPLY(a, "[+" REDIS_DIGEST_OF_1 ", +" H_DIGEST_ZEROS "]", "DEBUG", "DIGEST-VALUE",
                 "a", "nokey");
    EXPECT_OK(b, "SET", "a2", "1");
    EXPECT_REPLY(b, "[+" REDIS_DIGEST_OF_1 ", +" REDIS_DIGEST_OF_1 "]", "DEBUG", "DIGEST-VALUE",
                 "a", "a2");
    EXPECT_INT(b, 1, "DEL", "a2");
    redisReply *za = H_CALL(a, "DEBUG", "DIGEST-VALUE", "z");
    redisReply *zb = H_CALL(b, "DEBUG", "DIGEST-VALUE", "z");
    CHECK(za && zb && za->type == REDIS_REPLY_ARRAY && zb->type == REDIS_REPLY_ARRAY &&
              za->elements == 1 && zb->elements == 1 &&
              strcmp(za->element[0]->str, zb->element[0]->str) == 0 &&
              strcmp(za->element[0]->str, H_DIGEST_ZEROS) != 0,
          "DIGEST-VALUE of equal sorted sets");
    freeReplyObject(za);
    freeReplyObject(zb);

    /* One value. */
    EXPECT_OK(b, "SET", "b", "tw0");
    h_digest(b, d);
    expect_changed("one value", base, d);
    EXPECT_OK(b, "SET", "b", "two");
    h_digest(b, d);
    expect_same("value restored", base, d);

    /* One deadline, then none. */
    EXPECT_INT(b, 1, "PEXPIREAT", "t", "4102444800001");
    h_digest(b, d);
    expect_changed("one deadline", base, d);
    EXPECT_INT(b, 1, "PERSIST", "t");
    h_digest(b, d);
    expect_changed("no deadline", base, d);
    EXPECT_INT(b, 1, "PEXPIREAT", "t", "4102444800000");
    h_digest(b, d);
    expect_same("deadline restored", base, d);

    /* One score, one member. */
    EXPECT_INT(b, 0, "ZADD", "z", "2.25", "y");
    h_digest(b, d);
    expect_changed("one score", base, d);
    EXPECT_INT(b, 0, "ZADD", "z", "2.5", "y");
    h_digest(b, d);
    expect_same("score restored", base, d);
    EXPECT_INT(b, 1, "ZADD", "z", "1", "x2");
    h_digest(b, d);
    expect_changed("one member more", base, d);
    EXPECT_INT(b, 1, "ZREM", "z", "x2");

    /* The same key in another database. */
    EXPECT_INT(b, 1, "MOVE", "b", "5");
    h_digest(b, d);
    expect_changed("key moved to db 5", base, d);
    EXPECT_OK(b, "SELECT", "5");
    EXPECT_INT(b, 1, "MOVE", "b", "0");
    EXPECT_OK(b, "SELECT", "0");
    h_digest(b, d);
    expect_same("key moved back", base, d);

    EXPECT_OK(a, "FLUSHALL");
    EXPECT_STATUS(a, H_DIGEST_ZEROS, "DEBUG", "DIGEST");
    h_close(&s1, a);
    h_close(&s2, b);
}

static long long elapsed_ms(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* The values of REDIS_DIGEST_MAPS in a snapshot, elements in order. */
static void write_maps(const struct h_server *s)
{
    static const char *const h[] = {"", "empty", "a", "", "f", "v"};
    static const char *const ints[] = {"-3", "1", "2"};
    static const char *const set[] = {"", "m", "n"};
    unsigned char rec[1024];
    size_t n = h_snapshot_map(rec, 1, "h", 3, h);
    n += h_snapshot_map(rec + n, 0, "ints", 3, ints);
    n += h_snapshot_map(rec + n, 0, "s", 3, set);
    CHECK(h_write_snapshot(s, rec, n) == 0, "writing the snapshot");
}

/* Hashes and sets from a snapshot give Redis's digests, whatever the
 * encoding, and COPY's deep copy the same digest. */
static void test_digest_maps(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    h_close(&s, c);
    write_maps(&s);
    c = h_reopen(&s, NULL);
    if (!c)
        return;
    EXPECT_REPLY(c, REDIS_DIGESTS_MAPS, "DEBUG", "DIGEST-VALUE", "h", "s", "ints");
    EXPECT_STATUS(c, REDIS_DIGEST_MAPS, "DEBUG", "DIGEST");
    EXPECT_INT(c, 1, "COPY", "h", "h2");
    EXPECT_INT(c, 1, "COPY", "s", "s2");
    EXPECT_REPLY(c, "[+" REDIS_DIGEST_H ", +" REDIS_DIGEST_S "]", "DEBUG", "DIGEST-VALUE", "h2",
                 "s2");
    EXPECT_INT(c, 2, "DEL", "h2", "s2");
    EXPECT_STATUS(c, REDIS_DIGEST_MAPS, "DEBUG", "DIGEST");
    /* The same data under other thresholds, so in the other encodings. */
    h_close(&s, c);
    c = h_reopen(&s, H_FLAGS("--hash-max-listpack-entries", "1", "--set-max-intset-entries", "1",
                             "--set-max-listpack-entries", "1"));
    if (!c)
        return;
    EXPECT_BULK(c, "rbtree", "OBJECT", "ENCODING", "h");
    EXPECT_BULK(c, "rbtree", "OBJECT", "ENCODING", "ints");
    EXPECT_REPLY(c, REDIS_DIGESTS_MAPS, "DEBUG", "DIGEST-VALUE", "h", "s", "ints");
    EXPECT_STATUS(c, REDIS_DIGEST_MAPS, "DEBUG", "DIGEST");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* The same values written by HSET and SADD in another order; one changed
 * value changes the digest. Needs the hash and set commands. */
static void test_digest_maps_commands(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    EXPECT_INT(c, 3, "SADD", "ints", "2", "-3", "1");
    EXPECT_INT(c, 3, "SADD", "s", "n", "", "m");
    EXPECT_INT(c, 3, "HSET", "h", "a", "", "f", "v", "", "empty");
    EXPECT_REPLY(c, REDIS_DIGESTS_MAPS, "DEBUG", "DIGEST-VALUE", "h", "s", "ints");
    EXPECT_STATUS(c, REDIS_DIGEST_MAPS, "DEBUG", "DIGEST");
    char d[H_DIGEST_CHARS + 1];
    EXPECT_INT(c, 0, "HSET", "h", "a", "x");
    h_digest(c, d);
    expect_changed("one hash value", REDIS_DIGEST_MAPS, d);
    EXPECT_INT(c, 0, "HSET", "h", "a", "");
    EXPECT_INT(c, 1, "SADD", "s", "o");
    h_digest(c, d);
    expect_changed("one more member", REDIS_DIGEST_MAPS, d);
    EXPECT_INT(c, 1, "SREM", "s", "o");
    EXPECT_STATUS(c, REDIS_DIGEST_MAPS, "DEBUG", "DIGEST");
    h_close(&s, c);
    h_clean_dir(&s);
}

static void test_debug_misc(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    EXPECT_OK(c, "DEBUG", "SLEEP", "0.2");
    CHECK(elapsed_ms(&t0) >= 190, "DEBUG SLEEP 0.2 took %lld ms", elapsed_ms(&t0));
    EXPECT_OK(c, "DEBUG", "SLEEP", "0");
    EXPECT_OK(c, "DEBUG", "SLEEP", "abc"); /* strtod, as Redis: 0 s */

    EXPECT_ERR(c, "ERR unknown subcommand or wrong number of arguments for 'foo'. Try DEBUG HELP.",
               "DEBUG", "foo");
    EXPECT_ERR(c, "ERR unknown subcommand or wrong number of arguments for 'digest'. Try DEBUG "
                  "HELP.",
               "DEBUG", "digest", "x");
    EXPECT_ERR(c, "ERR unknown subcommand or wrong number of arguments for 'sleep'. Try DEBUG "
                  "HELP.",
               "DEBUG", "sleep");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'debug' command", "DEBUG");
    EXPECT_MATCH(c, "[+DEBUG <subcommand> *, +DIGEST, *+HELP, +    Prints this help.]", "DEBUG",
                 "HELP");
    EXPECT_MATCH(c,
                 "[['debug', :-2, [+admin, +noscript, +loading, +stale], :0, :0, :0, "
                 "[+@admin, +@slow, +@dangerous]*",
                 "COMMAND", "INFO", "debug");
    h_close(&s, c);
}

/* Compared line by line with Redis in RESP2 (hiredis, byte-equal
 * replies): what POPULATE writes and skips, and the errors. */
static const char *const tools_lines[] = {
    "DEBUG POPULATE 10",
    "DBSIZE",
    "GET key:3",
    "GET key:9",
    "EXISTS key:10",
    "SET key:5 mine",
    "DEBUG POPULATE 12",
    "GET key:5",
    "GET key:11",
    "DBSIZE",
    "DEBUG POPULATE 3 p 12",
    "GET p:1",
    "STRLEN p:2",
    "DEBUG POPULATE 4 q 3",
    "GET q:3",
    "DEBUG POPULATE 2 r 0",
    "GET r:1",
    "DEBUG populate 0",
    "DEBUG POPULATE -1",
    "DEBUG POPULATE x",
    "DEBUG POPULATE 2 s -1",
    "DEBUG POPULATE 2 s x",
    "EXISTS s:0",
    "DEBUG POPULATE",
    "DEBUG POPULATE 1 a 2 b",
    "WATCH w:0",
    "DEBUG POPULATE 1 w",
    "MULTI",
    "PING",
    "EXEC",
    "DEBUG PROTOCOL string",
    "DEBUG PROTOCOL integer",
    "DEBUG PROTOCOL double",
    "DEBUG PROTOCOL bignum",
    "DEBUG PROTOCOL null",
    "DEBUG PROTOCOL array",
    "DEBUG PROTOCOL set",
    "DEBUG PROTOCOL map",
    "DEBUG PROTOCOL attrib",
    "DEBUG PROTOCOL push",
    "DEBUG PROTOCOL verbatim",
    "DEBUG PROTOCOL TRUE",
    "DEBUG PROTOCOL false",
    "DEBUG PROTOCOL nope",
    "DEBUG PROTOCOL",
    "DEBUG CHANGE-REPL-ID",
    "DEBUG CHANGE-REPL-ID x",
    "DEBUG STRINGMATCH-TEST x",
    "DEBUG STRINGMATCH-LEN",
    "DEBUG QUICKLIST-PACKED-THRESHOLD 0",
    "DEBUG QUICKLIST-PACKED-THRESHOLD 1",
    "DEBUG QUICKLIST-PACKED-THRESHOLD 100mb",
    "DEBUG QUICKLIST-PACKED-THRESHOLD 4293918720",
    "DEBUG QUICKLIST-PACKED-THRESHOLD 4293918721",
    "DEBUG QUICKLIST-PACKED-THRESHOLD 5gb",
    "DEBUG QUICKLIST-PACKED-THRESHOLD -1",
    "DEBUG QUICKLIST-PACKED-THRESHOLD abc",
    "HSET h f v",
    "SADD st a b",
    "RPUSH l a",
    "SET str v",
    "DEBUG LISTPACK h",
    "DEBUG LISTPACK st",
    "DEBUG LISTPACK l",
    "DEBUG LISTPACK str",
    "DEBUG LISTPACK nokey",
    "DEBUG LISTPACK",
    "DEBUG SDSLEN",
    "DEBUG HTSTATS",
};

/* Every PROTOCOL type in RESP3, on raw connections: pushes and attributes
 * are followed by a real reply, read as the next one. */
static const char *const protocol_resp3[] = {
    "DEBUG PROTOCOL string", "DEBUG PROTOCOL integer", "DEBUG PROTOCOL double",
    "DEBUG PROTOCOL bignum", "DEBUG PROTOCOL null",    "DEBUG PROTOCOL array",
    "DEBUG PROTOCOL set",    "DEBUG PROTOCOL map",     "DEBUG PROTOCOL attrib",
    "PING",                  "DEBUG PROTOCOL push",    "PING",
    "DEBUG PROTOCOL verbatim", "DEBUG PROTOCOL true",  "DEBUG PROTOCOL false",
    "DEBUG PROTOCOL nope",   "PING",
};

static void test_debug_tools_vs_redis(void)
{
    struct h_server s, ref;
    if (h_is_reference()) {
        printf("running against redis-server itself: nothing to compare with\n");
        return;
    }
    int rc = h_start_reference(&ref, H_FLAGS("--enable-debug-command", "yes"));
    if (rc == 1)
        printf("no redis-server on PATH: the comparisons with Redis are skipped\n");
    if (rc != 0)
        return;
    redisContext *c = h_open(&s, NULL);
    redisContext *r = h_connect(&ref);
    if (c && r) {
        H_SAME_LINES(c, r, tools_lines);
        H_SAME_LINES_RESP3(&s, &ref, protocol_resp3);
    }
    redisFree(r);
    h_stop(&ref);
    h_clean_dir(&ref);
    if (c)
        h_close(&s, c);
}

/* What is not compared: the new replication ID, JMAP (which Redis 7.0
 * refuses), HELP's lines, STRINGMATCH-TEST, a prefix cut where Redis cuts
 * it (longer than a test line's word), the size rbkv refuses. */
static void test_debug_tools(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    char before[64], after[64], second[64];
    redisReply *r = H_CALL(c, "INFO", "replication");
    int ok = r && r->type == REDIS_REPLY_STRING &&
             h_info_field(r->str, "master_replid", before, sizeof(before)) == 0;
    freeReplyObject(r);
    EXPECT_OK(c, "DEBUG", "CHANGE-REPL-ID");
    r = H_CALL(c, "INFO", "replication");
    ok = ok && r && r->type == REDIS_REPLY_STRING &&
         h_info_field(r->str, "master_replid", after, sizeof(after)) == 0 &&
         h_info_field(r->str, "master_replid2", second, sizeof(second)) == 0;
    freeReplyObject(r);
    CHECK(ok, "INFO replication without master_replid / master_replid2");
    if (ok) {
        CHECK(strlen(after) == 40 && strcmp(before, after) != 0,
              "DEBUG CHANGE-REPL-ID kept the ID %s (now %s)", before, after);
        CHECK(strcmp(second, "0000000000000000000000000000000000000000") == 0,
              "master_replid2 after CHANGE-REPL-ID: %s", second);
    }
    EXPECT_OK(c, "DEBUG", "JMAP");
    /* Redis's text; its own run takes seconds, so it is not compared. */
    EXPECT_STATUS(c, "Apparently Redis did not crash: test passed", "DEBUG", "STRINGMATCH-TEST");
    EXPECT_MATCH(c, "*+POPULATE <count> *+PROTOCOL <type>*+STRINGMATCH-TEST*", "DEBUG", "HELP");

    /* Redis writes "prefix:N" into 128 bytes: a long prefix is cut there. */
    char prefix[200];
    memset(prefix, 'x', sizeof(prefix) - 1);
    prefix[sizeof(prefix) - 1] = '\0';
    EXPECT_OK(c, "DEBUG", "POPULATE", "1", prefix);
    EXPECT_INT(c, 1, "EXISTS", prefix + (sizeof(prefix) - 1 - 127));
    EXPECT_INT(c, 1, "DBSIZE");
    EXPECT_ERR(c, "ERR DEBUG POPULATE size is larger than proto-max-bulk-len", "DEBUG",
               "POPULATE", "1", "k", "100000000000");
    h_close(&s, c);
}

static void test_client_type(void)
{
    struct h_server s;
    redisContext *a = h_open(&s, NULL);
    redisContext *b = h_connect(&s);
    if (!a || !b)
        return;
    redisReply *r = H_CALL(a, "CLIENT", "ID");
    long long id = r && r->type == REDIS_REPLY_INTEGER ? r->integer : 0;
    freeReplyObject(r);
    char pattern[64], num[32];
    snprintf(pattern, sizeof(pattern), "'*id=%lld *flags=N *", id);
    EXPECT_MATCH(a, pattern, "CLIENT", "LIST", "TYPE", "normal");
    EXPECT_MATCH(a, pattern, "CLIENT", "LIST", "TYPE", "NORMAL");
    snprintf(num, sizeof(num), "%lld", id);
    EXPECT_MATCH(a, pattern, "CLIENT", "LIST", "ID", num, "999999");
    EXPECT_BULK(a, "", "CLIENT", "LIST", "ID", "999999");
    EXPECT_BULK(a, "", "CLIENT", "LIST", "TYPE", "replica");
    EXPECT_BULK(a, "", "CLIENT", "LIST", "TYPE", "slave");
    EXPECT_BULK(a, "", "CLIENT", "LIST", "TYPE", "master");
    EXPECT_BULK(a, "", "CLIENT", "LIST", "TYPE", "pubsub");
    EXPECT_ERR(a, "ERR Unknown client type 'bogus'", "CLIENT", "LIST", "TYPE", "bogus");
    EXPECT_ERR(a, "ERR Invalid client ID", "CLIENT", "LIST", "ID", "1", "x");
    EXPECT_ERR(a, "ERR syntax error", "CLIENT", "LIST", "TYPE");
    EXPECT_ERR(a, "ERR syntax error", "CLIENT", "LIST", "foo");

    EXPECT_ERR(a, "ERR Unknown client type 'bogus'", "CLIENT", "KILL", "TYPE", "bogus");
    EXPECT_INT(a, 0, "CLIENT", "KILL", "TYPE", "master");
    EXPECT_INT(a, 0, "CLIENT", "KILL", "TYPE", "replica");
    EXPECT_INT(a, 0, "CLIENT", "KILL", "TYPE", "slave");
    EXPECT_INT(a, 0, "CLIENT", "KILL", "TYPE", "pubsub");
    /* normal: b, not a (SKIPME yes by default). */
    EXPECT_INT(a, 1, "CLIENT", "KILL", "TYPE", "normal");
    redisReply *gone = H_CALL(b, "PING");
    CHECK(gone == NULL, "the killed client still answers");
    freeReplyObject(gone);
    EXPECT_STATUS(a, "PONG", "PING");
    redisFree(b);
    h_close(&s, a);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_digest);
    H_RUN(test_digest_maps);
    H_RUN(test_digest_maps_commands);
    H_RUN(test_debug_misc);
    H_RUN(test_debug_tools_vs_redis);
    H_RUN(test_debug_tools);
    H_RUN(test_client_type);
    return h_finish();
}
