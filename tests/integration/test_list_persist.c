/*
 * test_list_persist.c - lists through everything that keeps or rebuilds a
 * dataset: a snapshot with a restart and DEBUG RELOAD, the append-only
 * log's rewrite (RPUSH in batches) and replay, a huge list freed on
 * core/lazyfree.c's thread, and MEMORY USAGE and DEBUG OBJECT beside redis-server
 * when there is one. Each compares DEBUG DIGEST (order-sensitive for a
 * list), whole replies of the small lists, and the positions of a long one.
 *
 * Owns: its servers and the files they leave in their dirs, removed at the
 * end of each test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define AOF "appendonly.aof"
#define LONG_LIST 5000 /* many chunks and many RPUSH batches of 64 */
#define HUGE_LIST 400000 /* past the lazy-free threshold (64 chunks) many times */
#define BATCH 1000

/* The lists every test writes: binary, empty, repeated and integer elements
 * of every width, a long list pushed from both ends, a deadline, another
 * database. */
static int64_t one_set_ms; /* when write_lists gave "one" its deadline */

static void write_lists(redisContext *c)
{
    EXPECT_INT(c, 8, "RPUSH", "l", "a", "", "a", "12", "-7", "007", "9223372036854775807",
               "-9223372036854775808");
    freeReplyObject(H_CALL_BIN(c, H_S("RPUSH"), H_S("l"), H_B("\0\xff\r\n", 4)));
    EXPECT_INT(c, 1, "LPUSH", "one", "only");
    one_set_ms = h_now_ms();
    EXPECT_INT(c, 1, "EXPIRE", "one", "1000");
    for (int i = 0; i < LONG_LIST; i++) {
        char v[32];
        snprintf(v, sizeof(v), i % 2 ? "%d" : "elem:%d", i);
        H_APPEND(c, i % 3 ? "RPUSH" : "LPUSH", "long", v);
    }
    for (int i = 0; i < LONG_LIST; i++)
        freeReplyObject(h_get_reply(c));
    EXPECT_OK(c, "SELECT", "4");
    EXPECT_INT(c, 2, "RPUSH", "in4", "x", "y");
    EXPECT_OK(c, "SELECT", "0");
}

struct snapshot_of {
    char digest[64], small[1024], around[1024];
};

static void reply_into(redisContext *c, char *buf, size_t cap, int argc, const char *const *argv)
{
    redisReply *r = h_command(c, argc, argv, NULL);
    buf[0] = '\0';
    if (r)
        h_repr(r, buf, cap);
    freeReplyObject(r);
}

/* What the tests compare before and after: the digest, l whole, and a
 * stretch of the long list from its middle. */
static void take(redisContext *c, struct snapshot_of *s)
{
    reply_into(c, s->digest, sizeof(s->digest), 2, H_FLAGS("DEBUG", "DIGEST"));
    reply_into(c, s->small, sizeof(s->small), 4, H_FLAGS("LRANGE", "l", "0", "-1"));
    reply_into(c, s->around, sizeof(s->around), 4, H_FLAGS("LRANGE", "long", "2490", "2510"));
}

static void expect_same(redisContext *c, const struct snapshot_of *before, const char *how)
{
    struct snapshot_of after;
    take(c, &after);
    CHECK(before->digest[0] && !strcmp(before->digest, after.digest), "%s: DEBUG DIGEST %s, was %s",
          how, after.digest, before->digest);
    CHECK(!strcmp(before->small, after.small), "%s: LRANGE l: %s, was %s", how, after.small,
          before->small);
    CHECK(!strcmp(before->around, after.around), "%s: the long list's middle: %s, was %s", how,
          after.around, before->around);
    EXPECT_INT(c, LONG_LIST, "LLEN", "long");
    EXPECT_INT_RANGE(c, h_ttl_floor(1000, one_set_ms), 1000, "TTL", "one");
    EXPECT_BULK(c, "quicklist", "OBJECT", "ENCODING", "long");
    EXPECT_OK(c, "SELECT", "4");
    EXPECT_REPLY(c, "['x', 'y']", "LRANGE", "in4", "0", "-1");
    EXPECT_OK(c, "SELECT", "0");
}

/* SAVE, a restart from the file, then DEBUG RELOAD: the same lists. */
static void test_snapshot(void)
{
    struct h_server s;
    struct snapshot_of before;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    write_lists(c);
    take(c, &before);
    EXPECT_OK(c, "SAVE");
    h_close(&s, c);
    c = h_reopen(&s, NULL);
    if (!c)
        return;
    expect_same(c, &before, "restart");
    EXPECT_OK(c, "DEBUG", "RELOAD");
    expect_same(c, &before, "DEBUG RELOAD");
    /* A load cuts chunks by the configuration in force. */
    EXPECT_OK(c, "CONFIG", "SET", "list-max-listpack-size", "1");
    EXPECT_OK(c, "DEBUG", "RELOAD");
    expect_same(c, &before, "DEBUG RELOAD, one element a chunk");
    EXPECT_MATCH(c, "+*ql_nodes:5000 ql_avg_node:1.00 ql_listpack_max:1 *", "DEBUG", "OBJECT",
                 "long");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* BGREWRITEAOF writes each list as RPUSH in batches, and a restart from the
 * rewritten log brings back the same lists. */
static void test_rewrite(void)
{
    struct h_server s;
    struct snapshot_of before;
    redisContext *c = h_open(&s, H_FLAGS("--appendonly", "yes", "--appendfsync", "always"));
    if (!c)
        return;
    write_lists(c);
    take(c, &before);
    EXPECT_STATUS(c, "Background append only file rewriting started", "BGREWRITEAOF");
    CHECK(h_wait_info(c, "persistence", "aof_rewrite_in_progress", "0", 10000 * H_SLOW),
          "the rewrite did not end");
    h_close(&s, c);
    char path[512];
    size_t len = 0;
    snprintf(path, sizeof(path), "%s/%s", s.dir, AOF);
    char *log = h_read_file(path, &len);
    CHECK(log && memmem(log, len, "RPUSH", 5) && !memmem(log, len, "LPUSH", 5),
          "the rewritten log holds RPUSH, no LPUSH");
    free(log);
    c = h_reopen(&s, H_FLAGS("--appendonly", "yes"));
    if (!c)
        return;
    expect_same(c, &before, "rewrite");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* RPUSHes HUGE_LIST elements e:0 .. to "huge", in batches. */
static void push_huge(redisContext *c)
{
    char buf[BATCH][16];
    const char *argv[BATCH + 2];
    for (int i = 0; i < HUGE_LIST; i += BATCH) {
        int argc = 0;
        argv[argc++] = "RPUSH";
        argv[argc++] = "huge";
        for (int j = 0; j < BATCH; j++) {
            snprintf(buf[j], sizeof(buf[j]), "e:%d", i + j);
            argv[argc++] = buf[j];
        }
        freeReplyObject(h_command(c, argc, argv, NULL));
    }
}

/* UNLINK of a huge list, and DEL with lazyfree-lazy-user-del, hand it to
 * core/lazyfree.c's thread: the key is gone at once, the server answers,
 * and the memory comes back. */
static void test_lazy_free(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    EXPECT_STATUS(c, "OK", "CONFIG", "SET", "lazyfree-lazy-user-del", "yes");
    for (int k = 0; k < 2; k++) {
        long long base = h_info_ll(c, "memory", "used_memory");
        long long freed = h_info_ll(c, "memory", "lazyfreed_objects");
        push_huge(c);
        EXPECT_INT(c, HUGE_LIST, "LLEN", "huge");
        long long full = h_info_ll(c, "memory", "used_memory");
        CHECK(full > base + HUGE_LIST * 5, "used_memory %lld after %d elements (from %lld)", full,
              HUGE_LIST, base);
        EXPECT_INT(c, 1, k ? "UNLINK" : "DEL", "huge");
        EXPECT_INT(c, 0, "EXISTS", "huge");
        EXPECT_STATUS(c, "PONG", "PING");
        CHECK(h_wait_info(c, "memory", "lazyfree_pending_objects", "0", 10000 * H_SLOW),
              "the huge list was never freed");
        CHECK(h_info_ll(c, "memory", "lazyfreed_objects") == freed + 1,
              "the huge list was not freed on the lazy-free thread");
        long long after = h_info_ll(c, "memory", "used_memory");
        CHECK(after < base + (full - base) / 10, "used_memory %lld after freeing (full %lld, base %lld)",
              after, full, base);
    }
    /* A small one is freed at once, and DEL frees at once by default. */
    long long freed = h_info_ll(c, "memory", "lazyfreed_objects");
    EXPECT_INT(c, 3, "RPUSH", "small", "a", "b", "c");
    EXPECT_INT(c, 1, "DEL", "small");
    CHECK(h_info_ll(c, "memory", "lazyfreed_objects") == freed, "a small list went to lazyfree");
    EXPECT_STATUS(c, "OK", "CONFIG", "SET", "lazyfree-lazy-user-del", "no");
    push_huge(c);
    EXPECT_INT(c, 1, "DEL", "huge");
    CHECK(h_info_ll(c, "memory", "lazyfreed_objects") == freed, "DEL sent a huge list away");
    h_close(&s, c);
}

/* MEMORY USAGE of lists against redis-server's for the same data: never
 * more for a long list of small elements, and a small list not much more.
 * DEBUG DIGEST-VALUE is Redis's. */
static void test_memory_usage(void)
{
    struct h_server s, ref;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    /* The reference with DEBUG, so not h_start_comparison's. */
    int started = h_start_reference(&ref, H_FLAGS("--enable-debug-command", "yes"));
    if (started != 0) {
        if (started > 0)
            printf("no redis-server: MEMORY USAGE not compared\n");
        h_close(&s, c);
        return;
    }
    redisContext *r = h_connect(&ref);
    if (r) {
        EXPECT_OK(r, "FLUSHALL");
        for (int side = 0; side < 2; side++) {
            redisContext *x = side ? r : c;
            write_lists(x);
        }
        /* Keys without a deadline: the key's own cost differs with one, and
         * the digest mixes in its absolute time. */
        static const char *const keys[] = {"l", "long"};
        for (int i = 0; i < 2; i++) {
            long long mine = H_INT_REPLY(c, "MEMORY", "USAGE", keys[i], "SAMPLES", "0");
            long long theirs = H_INT_REPLY(r, "MEMORY", "USAGE", keys[i], "SAMPLES", "0");
            printf("MEMORY USAGE %s: %lld bytes, redis-server %lld\n", keys[i], mine, theirs);
            CHECK(mine > 0 && mine <= theirs, "MEMORY USAGE %s: %lld, redis-server %lld", keys[i],
                  mine, theirs);
            H_SAME(c, r, "DEBUG", "DIGEST-VALUE", keys[i]);
        }
        redisFree(r);
    }
    h_stop(&ref);
    h_close(&s, c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_snapshot);
    H_RUN(test_rewrite);
    H_RUN(test_lazy_free);
    H_RUN(test_memory_usage);
    return h_finish();
}
