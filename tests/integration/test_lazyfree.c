/*
 * test_lazyfree.c - end-to-end tests of the lazy-free thread
 * (server/core/lazyfree.c) and the settings that send values to it.
 *
 * Each lazy path (UNLINK, DEL with lazyfree-lazy-user-del, an overwrite with
 * lazyfree-lazy-server-del, a past deadline and active expiry with
 * lazyfree-lazy-expire, eviction with lazyfree-lazy-eviction,
 * FLUSHALL/FLUSHDB ASYNC and a plain FLUSHALL with
 * lazyfree-lazy-user-flush, a replica's full sync with replica-lazy-flush)
 * sends its value or its db to the thread: INFO's lazyfreed_objects grows
 * by what it counts (a value one, a db its keys) and lazyfree_pending_objects
 * returns to 0; with the settings off the same deletions free at once
 * (lazyfreed_objects stays). A small value never goes (Redis's effort
 * threshold). used_memory comes back after the thread freed a big value.
 * FLUSHALL SYNC replies with nothing pending. Writes right after FLUSHALL
 * ASYNC and after UNLINK reuse the key while the old value is freed: run
 * under ASan (make test-asan) a touch of a freed value fails the server.
 * A big zset, hash, set and list leave by one UNLINK while other keys are
 * read and written: all freed, memory back, the other keys' digest the
 * same. SHUTDOWN with a free pending exits cleanly.
 * A PING from another client during the UNLINK of a 2M-member sorted set
 * answers; its wait is printed (on a shared box a timing is no assertion).
 * The thread is named rbkv-lazyfree and runs LAZYFREE_NICE (10) nicer than
 * the loop thread, at most 19 (/proc/PID/task/TID: comm, stat's nice).
 * The settings round-trip through CONFIG SET/GET and REWRITE, and the
 * replies, errors and INFO fields are redis-server's (skipped, and said so,
 * without one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

#define BIG 20000          /* members: far past the effort threshold (64) */
#define PROBE_ZSET 2000000 /* the stall probe's sorted set (divided by H_SLOW) */
#define BATCH 1000
#define FLUSH_KEYS 50000 /* divided by H_SLOW */
#define WAIT_MS (10000 * H_SLOW)

static struct h_server srv, ref;
static int have_ref;

static const char *const settings[] = {
    "lazyfree-lazy-eviction", "lazyfree-lazy-expire",     "lazyfree-lazy-server-del",
    "lazyfree-lazy-user-del", "lazyfree-lazy-user-flush", "replica-lazy-flush",
};
#define SETTINGS (sizeof(settings) / sizeof(settings[0]))

/* ZADDs n members m:<i> scored i to key, BATCH to a command, pipelined. */
static void zset_fill(redisContext *c, const char *key, int n)
{
    static char buf[BATCH][2][16];
    const char *argv[2 + 2 * BATCH];
    int sent = 0;
    for (int i = 0; i < n; i += BATCH) {
        int argc = 0;
        argv[argc++] = "ZADD";
        argv[argc++] = key;
        for (int j = 0; j < BATCH && i + j < n; j++) {
            snprintf(buf[j][0], sizeof(buf[j][0]), "%d", i + j);
            snprintf(buf[j][1], sizeof(buf[j][1]), "m:%d", i + j);
            argv[argc++] = buf[j][0];
            argv[argc++] = buf[j][1];
        }
        h_append(c, argc, argv, NULL);
        sent++;
        /* The arguments are copied into hiredis's buffer: reuse them, and
         * read the replies every 64 commands to bound it. */
        if (sent % 64 == 0 || i + BATCH >= n)
            for (; sent; sent--)
                freeReplyObject(h_get_reply(c));
    }
}

static long long freed_count(redisContext *c)
{
    return h_info_ll(c, "memory", "lazyfreed_objects");
}

/* The thread freed `more` objects since `before` and nothing is pending. */
static void expect_freed(int line, redisContext *c, long long before, long long more,
                         const char *what)
{
    char want[32];
    snprintf(want, sizeof(want), "%lld", before + more);
    int got = h_wait_info(c, "memory", "lazyfreed_objects", want, WAIT_MS);
    h_check(__FILE__, line, got, "%s: lazyfreed_objects %lld, want %s", what, freed_count(c),
            want);
    h_check(__FILE__, line, h_wait_info(c, "memory", "lazyfree_pending_objects", "0", WAIT_MS),
            "%s: lazyfree_pending_objects never returned to 0", what);
}
#define EXPECT_FREED(c, before, more, what) expect_freed(__LINE__, (c), (before), (more), (what))

static void set_on(redisContext *c, const char *name, int on)
{
    EXPECT_OK(c, "CONFIG", "SET", name, on ? "yes" : "no");
}

/* UNLINK always; DEL only with lazyfree-lazy-user-del; a small value never.
 * The memory comes back once the thread is done. */
static void test_user_del(void)
{
    redisContext *c = h_connect_flushed(&srv);
    long long base = h_info_ll(c, "memory", "used_memory");
    zset_fill(c, "z", BIG);
    long long full = h_info_ll(c, "memory", "used_memory");
    long long before = freed_count(c);
    EXPECT_INT(c, 1, "UNLINK", "z");
    EXPECT_INT(c, 0, "EXISTS", "z");
    EXPECT_FREED(c, before, 1, "UNLINK");
    long long after = h_info_ll(c, "memory", "used_memory");
    CHECK(after < base + (full - base) / 10, "used_memory %lld after UNLINK (full %lld, base %lld)",
          after, full, base);

    zset_fill(c, "z", BIG);
    EXPECT_INT(c, 1, "DEL", "z");
    CHECK(freed_count(c) == before + 1, "DEL sent a value away with lazyfree-lazy-user-del no");
    set_on(c, "lazyfree-lazy-user-del", 1);
    zset_fill(c, "z", BIG);
    EXPECT_INT(c, 1, "DEL", "z");
    EXPECT_FREED(c, before, 2, "DEL with lazyfree-lazy-user-del");
    set_on(c, "lazyfree-lazy-user-del", 0);

    /* A packed hash: effort 1, freed at once. */
    EXPECT_INT(c, 2, "HSET", "h", "a", "1", "b", "2");
    EXPECT_INT(c, 1, "UNLINK", "h");
    CHECK(freed_count(c) == before + 2, "a packed hash went to the thread");
    /* 64 members: effort 65 here (a node each), sent away; Redis keeps them
     * in a listpack (effort 1). */
    if (!h_is_reference()) {
        zset_fill(c, "small", 64);
        EXPECT_INT(c, 1, "UNLINK", "small");
        EXPECT_FREED(c, before, 3, "UNLINK of 64 members");
    }
    redisFree(c);
}

/* An overwrite and an emptied key's delete go by lazyfree-lazy-server-del. */
static void test_server_del(void)
{
    redisContext *c = h_connect_flushed(&srv);
    long long before = freed_count(c);
    zset_fill(c, "z", BIG);
    EXPECT_OK(c, "SET", "z", "x");
    CHECK(freed_count(c) == before, "an overwrite went to the thread with the setting off");
    set_on(c, "lazyfree-lazy-server-del", 1);
    zset_fill(c, "y", BIG);
    EXPECT_OK(c, "SET", "y", "x");
    EXPECT_BULK(c, "x", "GET", "y");
    EXPECT_FREED(c, before, 1, "SET over a big sorted set");
    zset_fill(c, "src", BIG);
    EXPECT_OK(c, "RENAME", "src", "y");
    EXPECT_INT(c, 0, "EXISTS", "src");
    EXPECT_INT(c, BIG, "ZCARD", "y");
    zset_fill(c, "src", BIG);
    EXPECT_OK(c, "RENAME", "src", "y"); /* replaces the big one RENAME moved there */
    EXPECT_FREED(c, before, 2, "RENAME over a big sorted set");
    set_on(c, "lazyfree-lazy-server-del", 0);
    redisFree(c);
}

/* A deadline already past (EXPIREAT) and active expiry go by
 * lazyfree-lazy-expire. */
static void test_expire(void)
{
    redisContext *c = h_connect_flushed(&srv);
    long long before = freed_count(c);
    zset_fill(c, "z", BIG);
    EXPECT_INT(c, 1, "PEXPIREAT", "z", "1");
    CHECK(freed_count(c) == before, "an expiry went to the thread with the setting off");
    set_on(c, "lazyfree-lazy-expire", 1);
    zset_fill(c, "z", BIG);
    EXPECT_INT(c, 1, "PEXPIREAT", "z", "1");
    EXPECT_INT(c, 0, "EXISTS", "z");
    EXPECT_FREED(c, before, 1, "PEXPIREAT in the past");
    zset_fill(c, "z", BIG);
    EXPECT_INT(c, 1, "PEXPIRE", "z", "20");
    /* Nothing reads z: the active cycle removes it. */
    EXPECT_FREED(c, before, 2, "active expiry");
    EXPECT_INT(c, 0, "DBSIZE");
    set_on(c, "lazyfree-lazy-expire", 0);
    redisFree(c);
}

/* Eviction goes by lazyfree-lazy-eviction, and still gets under the cap. */
static void test_eviction(void)
{
    redisContext *c = h_connect_flushed(&srv);
    long long before = freed_count(c);
    set_on(c, "lazyfree-lazy-eviction", 1);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "allkeys-random");
    zset_fill(c, "z", BIG * 5);
    long long used = h_info_ll(c, "memory", "used_memory");
    char cap[32];
    snprintf(cap, sizeof(cap), "%lld", used / 2);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", cap);
    EXPECT_OK(c, "SET", "k", "v");
    EXPECT_INT(c, 0, "EXISTS", "z");
    EXPECT_FREED(c, before, 1, "eviction");
    CHECK(h_info_ll(c, "stats", "evicted_keys") >= 1, "nothing counted as evicted");
    CHECK(h_info_ll(c, "memory", "used_memory") < used / 2, "used_memory still over the cap");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "0");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "noeviction");
    set_on(c, "lazyfree-lazy-eviction", 0);
    redisFree(c);
}

/* FLUSHALL/FLUSHDB ASYNC count each key; writes go on at once; SYNC leaves
 * nothing pending; without a mode lazyfree-lazy-user-flush chooses. */
static void test_flush(void)
{
    redisContext *c = h_connect_flushed(&srv);
    long long before = freed_count(c);
    const long long keys = FLUSH_KEYS / H_SLOW;
    h_fill(c, "k", (int)keys);
    EXPECT_OK(c, "FLUSHALL", "ASYNC");
    EXPECT_INT(c, 0, "DBSIZE");
    /* The same names again at once, while the old entries are freed. */
    h_fill(c, "k", 100);
    EXPECT_BULK(c, "k:7", "GET", "k:7");
    EXPECT_INT(c, 100, "DBSIZE");
    EXPECT_BULK(c, "k:99", "GET", "k:99");
    EXPECT_FREED(c, before, keys, "FLUSHALL ASYNC");

    EXPECT_OK(c, "SELECT", "3");
    h_fill(c, "d", 500);
    EXPECT_OK(c, "FLUSHDB", "async");
    EXPECT_INT(c, 0, "DBSIZE");
    EXPECT_OK(c, "SELECT", "0");
    EXPECT_INT(c, 100, "DBSIZE");
    EXPECT_FREED(c, before, keys + 500, "FLUSHDB ASYNC");

    EXPECT_OK(c, "FLUSHALL");
    CHECK(freed_count(c) == before + keys + 500, "a plain FLUSHALL went to the thread");
    set_on(c, "lazyfree-lazy-user-flush", 1);
    h_fill(c, "k", 300);
    EXPECT_OK(c, "FLUSHALL");
    EXPECT_FREED(c, before, keys + 800, "FLUSHALL with lazyfree-lazy-user-flush");
    h_fill(c, "k", 300);
    EXPECT_OK(c, "FLUSHDB");
    EXPECT_FREED(c, before, keys + 1100, "FLUSHDB with lazyfree-lazy-user-flush");
    set_on(c, "lazyfree-lazy-user-flush", 0);

    /* SYNC waits for what UNLINK left pending: its reply finds none (Redis
     * 7.0's does not wait). */
    if (h_is_reference()) {
        redisFree(c);
        return;
    }
    zset_fill(c, "z", BIG * 10);
    H_APPEND(c, "UNLINK", "z");
    H_APPEND(c, "FLUSHALL", "SYNC");
    H_APPEND(c, "INFO", "memory");
    freeReplyObject(h_get_reply(c));
    freeReplyObject(h_get_reply(c));
    redisReply *r = h_get_reply(c);
    char pending[32] = "";
    CHECK(r && r->type == REDIS_REPLY_STRING &&
              h_info_field(r->str, "lazyfree_pending_objects", pending, sizeof(pending)) == 0 &&
              strcmp(pending, "0") == 0,
          "lazyfree_pending_objects '%s' right after FLUSHALL SYNC", pending);
    freeReplyObject(r);
    EXPECT_FREED(c, before, keys + 1101, "UNLINK before FLUSHALL SYNC");
    redisFree(c);
}

/* A key is written again while its old value is freed, many times over:
 * under ASan any touch of a freed value ends the server. */
static void test_reuse(void)
{
    redisContext *c = h_connect_flushed(&srv);
    long long before = freed_count(c);
    for (int i = 0; i < 10; i++) {
        zset_fill(c, "z", BIG / 4);
        H_APPEND(c, "UNLINK", "z");
        H_APPEND(c, "ZADD", "z", "1", "a");
        H_APPEND(c, "ZCARD", "z");
        H_APPEND(c, "ZRANGE", "z", "0", "-1");
        freeReplyObject(h_get_reply(c));
        freeReplyObject(h_get_reply(c));
        EXPECT_NEXT(c, ":1");
        EXPECT_NEXT(c, "['a']");
        EXPECT_INT(c, 1, "DEL", "z");
    }
    EXPECT_FREED(c, before, 10, "UNLINK then reuse");
    EXPECT_STATUS(c, "PONG", "PING");
    redisFree(c);
}

/* Fills key with n elements by a script (the ADD command, one element a
 * call; a list's elements are long enough to pass the effort threshold). */
static void script_fill(redisContext *c, const char *add, const char *key, int n)
{
    static const char body[] =
        "local add = ARGV[1] for i = 1, tonumber(ARGV[2]) do "
        "local m = 'm:' .. i .. string.rep('x', 100) "
        "if add == 'HSET' or add == 'ZADD' then redis.call(add, KEYS[1], i, m) "
        "else redis.call(add, KEYS[1], m) end end return 1";
    char num[16];
    snprintf(num, sizeof(num), "%d", n);
    EXPECT_INT(c, 1, "EVAL", body, "1", key, add, num);
}

/* A big value of each kind leaves by one UNLINK while other keys are read
 * and written: the thread frees them (with mimalloc the loop frees the
 * blocks it gathers, batch by batch, between these requests), the other
 * keys are intact, and the memory comes back. */
static void test_every_type(void)
{
    redisContext *c = h_connect_flushed(&srv);
    const int n = 40000 / H_SLOW;
    h_fill(c, "k", 1000);
    char digest[H_DIGEST_CHARS + 1], again[H_DIGEST_CHARS + 1];
    h_digest(c, digest);
    long long base = h_info_ll(c, "memory", "used_memory");
    script_fill(c, "ZADD", "z", n);
    script_fill(c, "HSET", "h", n);
    script_fill(c, "SADD", "s", n);
    script_fill(c, "RPUSH", "l", n);
    long long full = h_info_ll(c, "memory", "used_memory");
    long long before = freed_count(c);
    EXPECT_INT(c, 4, "UNLINK", "z", "h", "s", "l");
    for (int i = 0; i < 2000; i++) {
        char key[32], val[32], quoted[40];
        snprintf(key, sizeof(key), "x:%d", i);
        snprintf(val, sizeof(val), "v:%d", i);
        snprintf(quoted, sizeof(quoted), "'%s'", val);
        H_APPEND(c, "SET", key, val);
        H_APPEND(c, "GET", key);
        H_APPEND(c, "GET", "k:7");
        EXPECT_NEXT(c, "+OK");
        EXPECT_NEXT(c, quoted);
        EXPECT_NEXT(c, "'k:7'");
    }
    EXPECT_INT(c, 0, "EXISTS", "z", "h", "s", "l");
    EXPECT_FREED(c, before, 4, "UNLINK of a zset, a hash, a set and a list");
    long long after = h_info_ll(c, "memory", "used_memory");
    CHECK(after < base + (full - base) / 10, "used_memory %lld after UNLINK (full %lld, base %lld)",
          after, full, base);
    EXPECT_INT(c, 1, "EVAL", "for i = 0, 1999 do redis.call('DEL', 'x:' .. i) end return 1", "0");
    h_digest(c, again);
    CHECK(strcmp(digest, again) == 0, "the other keys changed: digest %s, was %s", again, digest);
    redisFree(c);
}

/* SHUTDOWN while the thread frees a big value: the server frees what is
 * pending and exits cleanly (the thread may wait for the loop to take a
 * batch, so the loop must not just wait for the thread). */
static void test_shutdown_pending(void)
{
    struct h_server s;
    if (h_is_reference() || h_start(&s, NULL) < 0)
        return;
    redisContext *c = h_connect(&s);
    if (c) {
        zset_fill(c, "z", BIG * 10);
        H_APPEND(c, "UNLINK", "z");
        H_APPEND(c, "SHUTDOWN", "NOSAVE");
        EXPECT_NEXT(c, ":1");
        redisFree(c);
    }
    int st = h_wait_exit(&s, WAIT_MS);
    CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "SHUTDOWN with a free pending: wait status %d", st);
    if (st < 0)
        h_stop(&s);
}

/* CONFIG RESETSTAT zeroes lazyfreed_objects, as Redis's resetServerStats. */
static void test_resetstat(void)
{
    redisContext *c = h_connect_flushed(&srv);
    long long before = freed_count(c);
    zset_fill(c, "z", BIG);
    EXPECT_INT(c, 1, "UNLINK", "z");
    EXPECT_FREED(c, before, 1, "UNLINK");
    CHECK(freed_count(c) > 0, "nothing freed");
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    CHECK(freed_count(c) == 0, "lazyfreed_objects %lld after RESETSTAT", freed_count(c));
    redisFree(c);
}

/* A PING on another client while UNLINK of a big sorted set runs: it
 * answers; the wait is printed for the record, not judged. */
static void test_probe(void)
{
    redisContext *c = h_connect_flushed(&srv);
    redisContext *p = h_connect(&srv);
    if (!c || !p)
        return;
    int n = PROBE_ZSET / H_SLOW;
    zset_fill(c, "big", n);
    EXPECT_INT(c, n, "ZCARD", "big");
    long long before = freed_count(c);
    int64_t t0 = h_now_ms();
    H_SEND(c, "UNLINK", "big");
    EXPECT_STATUS(p, "PONG", "PING");
    int64_t waited = h_now_ms() - t0;
    EXPECT_NEXT(c, ":1");
    printf("# PING during UNLINK of a %d-member sorted set answered after %lld ms\n", n,
           (long long)waited);
    EXPECT_FREED(c, before, 1, "UNLINK of the probe's sorted set");
    redisFree(p);
    redisFree(c);
}

/* The nice value (stat's field 19) of thread tid of the server, or -100
 * when it cannot be read. */
static int task_nice(const char *tid)
{
    char path[128], line[1024];
    snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)srv.pid, tid);
    FILE *f = fopen(path, "r");
    int nice = -100;
    if (f && fgets(line, sizeof(line), f)) {
        const char *p = strrchr(line, ')'); /* the name may hold spaces */
        /* Fields 3 (the state) to 19 (nice) follow the name. */
        for (int field = 2; p && field < 19; field++)
            p = strchr(p + 1, ' ');
        if (p)
            nice = atoi(p + 1);
    }
    if (f)
        fclose(f);
    return nice;
}

/* The thread, found by its name, is LAZYFREE_NICE nicer than the loop
 * thread (the main thread, tid = pid), so its wakeups rarely preempt the
 * loop on a busy machine. */
static void test_thread_priority(void)
{
    char dir[64], main_tid[32], path[400], comm[64];
    snprintf(dir, sizeof(dir), "/proc/%d/task", (int)srv.pid);
    snprintf(main_tid, sizeof(main_tid), "%d", (int)srv.pid);
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot list %s", dir);
    if (!d)
        return;
    int found = 0, nice = -100;
    const struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s/comm", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(comm, sizeof(comm), f) && strcmp(comm, "rbkv-lazyfree\n") == 0) {
            found = 1;
            nice = task_nice(e->d_name);
        }
        if (f)
            fclose(f);
    }
    closedir(d);
    if (!found && getenv("RBKV_SERVER_WRAPPER")) {
        printf("# no thread named rbkv-lazyfree under the wrapper: skipped\n");
        return;
    }
    CHECK(found, "no thread named rbkv-lazyfree in %s", dir);
    int loop = task_nice(main_tid);
    int want = loop + 10 > 19 ? 19 : loop + 10;
    CHECK(loop != -100 && nice == want, "lazy-free thread at nice %d, loop at %d: want %d", nice,
          loop, want);
}

/* Each setting: Redis's default, SET and GET both ways, a bad value
 * refused, and REWRITE writes it. */
static void test_config(void)
{
    struct h_server s;
    if (h_start_config(&s, "port 0\n", NULL) < 0)
        return;
    redisContext *c = h_connect(&s);
    if (!c) {
        h_stop(&s);
        return;
    }
    for (size_t i = 0; i < SETTINGS; i++) {
        char want[128];
        snprintf(want, sizeof(want), "['%s', 'no']", settings[i]);
        EXPECT_REPLY(c, want, "CONFIG", "GET", settings[i]);
        set_on(c, settings[i], 1);
        snprintf(want, sizeof(want), "['%s', 'yes']", settings[i]);
        EXPECT_REPLY(c, want, "CONFIG", "GET", settings[i]);
    }
    EXPECT_REPLY(c, "['slave-lazy-flush', 'yes']", "CONFIG", "GET", "slave-lazy-flush");
    EXPECT_OK(c, "CONFIG", "REWRITE");
    for (size_t i = 0; i < SETTINGS; i++) {
        char line[128];
        snprintf(line, sizeof(line), "\n%s yes\n", settings[i]);
        CHECK(h_file_has(&s, "server.conf", line), "REWRITE left out '%s yes'", settings[i]);
    }
    redisFree(c);
    h_stop(&s);
    h_clean_dir(&s);
}

/* replica-lazy-flush: the replica's old keys go to the thread at the full
 * sync, each counted. */
static void test_replica_flush(void)
{
    struct h_server primary, replica;
    redisContext *r;
    redisContext *p = h_open_two(&primary, &replica, &r);
    if (!p)
        return;
    EXPECT_OK(p, "SET", "from", "primary");
    h_fill(r, "old", 1000);
    set_on(r, "replica-lazy-flush", 1);
    long long before = freed_count(r);
    h_replicate(r, &primary, WAIT_MS);
    EXPECT_FREED(r, before, 1000, "replica-lazy-flush");
    EXPECT_INT(r, 1, "DBSIZE");
    EXPECT_BULK(r, "primary", "GET", "from");
    h_close(&replica, r);
    h_close(&primary, p);
}

/* Replies, errors and INFO's field names beside redis-server's. */
static void test_same_as_redis(void)
{
    if (!have_ref) {
        printf("# no redis-server to compare with: skipped\n");
        return;
    }
    redisContext *r;
    redisContext *c = h_connect_pair(&srv, &ref, &r);
    zset_fill(c, "z", BIG);
    zset_fill(r, "z", BIG);
    H_SAME(c, r, "UNLINK", "z", "nosuch");
    H_SAME(c, r, "UNLINK", "z");
    H_SAME(c, r, "UNLINK");
    H_SAME(c, r, "FLUSHALL", "ASYNC");
    H_SAME(c, r, "FLUSHALL", "SYNC");
    H_SAME(c, r, "FLUSHALL", "async");
    H_SAME(c, r, "FLUSHDB", "ASYNC");
    H_SAME(c, r, "FLUSHDB", "SYNC");
    H_SAME(c, r, "FLUSHALL", "LAZY");
    H_SAME(c, r, "FLUSHALL", "ASYNC", "SYNC");
    H_SAME(c, r, "FLUSHDB", "NOW");
    /* One by one: a glob's order is Redis's hash table's. */
    H_SAME(c, r, "CONFIG", "GET", "slave-lazy-flush");
    H_SAME(c, r, "CONFIG", "SET", "lazyfree-lazy-user-del", "maybe");
    H_SAME(c, r, "CONFIG", "SET", "replica-lazy-flush", "1");
    for (size_t i = 0; i < SETTINGS; i++) {
        H_SAME(c, r, "CONFIG", "SET", settings[i], "yes");
        H_SAME(c, r, "CONFIG", "GET", settings[i]);
        H_SAME(c, r, "CONFIG", "SET", settings[i], "no");
    }
    static const char *const fields[] = {"lazyfree_pending_objects", "lazyfreed_objects"};
    for (size_t i = 0; i < 2; i++) {
        CHECK(h_info_ll(c, "memory", fields[i]) >= 0, "rbkv's INFO memory lacks %s", fields[i]);
        CHECK(h_info_ll(r, "memory", fields[i]) >= 0, "redis's INFO memory lacks %s", fields[i]);
    }
    h_close_pair(c, r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_user_del);
    H_RUN(test_server_del);
    H_RUN(test_expire);
    H_RUN(test_eviction);
    H_RUN(test_flush);
    H_RUN(test_reuse);
    H_RUN(test_every_type);
    H_RUN(test_shutdown_pending);
    H_RUN(test_resetstat);
    H_RUN(test_probe);
    H_RUN(test_thread_priority);
    H_RUN(test_config);
    H_RUN(test_replica_flush);
    H_RUN(test_same_as_redis);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
