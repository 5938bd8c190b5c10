/*
 * test_rdb_file.c - end-to-end tests of Redis's RDB file in rbkv
 * (server/persist/rdb_file.c, rdb_convert.c), against redis-server 7.0
 * side by side:
 *  - a dataset of every type and encoding (strings raw, integer and
 *    LZF-compressed; HyperLogLogs sparse and dense; lists, sets (intset and
 *    plain), hashes and sorted sets small and big; streams with deleted
 *    entries, consumer groups and pending entries; deadlines; three
 *    databases; a function library; random keys on top, SEED=<n>) is
 *    written in redis-server under allkeys-lfu (so its file carries FREQ
 *    opcodes), SAVEd, and rbkv starts from that dump.rdb: every key's type
 *    and deadline (to the millisecond), DEBUG DIGEST (keys and values),
 *    DBSIZE of each database, OBJECT FREQ of a hot key and the function
 *    match Redis's;
 *  - the reverse: the same dataset written in rbkv, SAVEd, converted with
 *    `rbkv-server --convert-rdb` into dump.rdb, and redis-server starts from
 *    it with the same digest; Redis's file converted the other way starts
 *    rbkv with the same digest too;
 *  - the fuzz target's seeds (old versions and encodings among them):
 *    refused exactly when redis-check-rdb refuses them, else loaded with
 *    the data redis-server loads;
 *  - corrupt files (a bad checksum, cut short, an unknown type, a bad value,
 *    a module's data, a stream cut short) refuse the start with their reason in the
 *    log, the key named when the fault is in one, and a checksum of 0 is
 *    not checked;
 *  - a file of 24 MB, past the points where the loader checksums and gives
 *    back the mapped pages it has read: it loads whole, and a bad checksum
 *    or a duplicate key at its end is still found and named.
 * Without redis-server the comparisons are skipped unless the reference is
 * required; the corrupt-file tests need none.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "harness_dataset.h"
#include "rng.h"

#define RANDOM_KEYS 150
#define BIG 600 /* elements: past the 128-entry listpacks and 512-entry intsets */
#define START_EXIT_MS (10000 * H_SLOW)
#define LIBRARY "#!lua name=rdblib\nredis.register_function('rdbf', function() return 'rdb' end)"
#define REF_FLAGS H_FLAGS("--enable-debug-command", "yes", "--maxmemory-policy", "allkeys-lfu")

static uint64_t rng;

static uint64_t next(void)
{
    return rng_next(&rng);
}

/* Sends argv to each of the n contexts, expecting no error from any. */
static void on_all(redisContext *const *cs, int n, int argc, const char *const *argv,
                   const size_t *lens)
{
    for (int i = 0; i < n; i++) {
        redisReply *r = h_command(cs[i], argc, argv, lens);
        char shown[200];
        CHECK(r && r->type != REDIS_REPLY_ERROR, "%s: %s",
              h_command_text(shown, sizeof(shown), argc, argv, lens),
              r && r->type == REDIS_REPLY_ERROR ? r->str : "no reply");
        freeReplyObject(r);
    }
}
#define ON_ALL(cs, n, ...)                                                                        \
    on_all((cs), (n), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__}, NULL)

/* A collection command (add) at key with count generated elements, each
 * preceded by a score when scored, written to every context. kind: 0
 * words, 1 integers, 2 long runs (over the 64-byte listpack value limit). */
static void add_many(redisContext *const *cs, int n, const char *add, const char *key, int count,
                     int per, int kind)
{
    const char **argv = malloc(sizeof(*argv) * (size_t)(2 + count * per));
    char(*buf)[128] = malloc(sizeof(*buf) * (size_t)(count * per));
    int argc = 0;
    argv[argc++] = add;
    argv[argc++] = key;
    for (int i = 0; i < count * per; i++) {
        if (kind == 1 || (per == 2 && i % 2 == 0 && add[0] == 'Z'))
            snprintf(buf[i], sizeof(buf[i]), "%lld", (long long)(next() % 100000) - 50000);
        else if (kind == 2)
            snprintf(buf[i], sizeof(buf[i]), "%070d-%d", i, (int)(next() % 1000));
        else
            snprintf(buf[i], sizeof(buf[i]), "w%d-%llu", i, (unsigned long long)(next() % 997));
        argv[argc++] = buf[i];
    }
    on_all(cs, n, argc, argv, NULL);
    free(argv);
    free(buf);
}

/* The dataset, the same on every context given. */
static void fill(redisContext *const *cs, int n)
{
    static char big[20000], bin[256];
    memset(big, 'a', sizeof(big) - 1);
    for (size_t i = 0; i < sizeof(bin); i++)
        bin[i] = (char)i;
    ON_ALL(cs, n, "SET", "str:raw", "hello world");
    ON_ALL(cs, n, "SET", "str:int", "12345");
    ON_ALL(cs, n, "SET", "str:negint", "-9000000000");
    ON_ALL(cs, n, "SET", "str:lzf", big);
    on_all(cs, n, 3, (const char *const[]){"SET", "str:bin", bin}, (size_t[]){3, 7, sizeof(bin)});
    ON_ALL(cs, n, "PFADD", "hll:sparse", "a", "b", "c", "d");
    for (int i = 0; i < 5; i++)
        add_many(cs, n, "PFADD", "hll:dense", 1000, 1, 0);
    add_many(cs, n, "RPUSH", "list:small", 5, 1, 0);
    add_many(cs, n, "RPUSH", "list:big", BIG * 2, 1, 0);
    add_many(cs, n, "SADD", "set:int", 100, 1, 1);
    add_many(cs, n, "SADD", "set:bigint", BIG, 1, 1);
    add_many(cs, n, "SADD", "set:words", 50, 1, 0);
    add_many(cs, n, "HSET", "hash:small", 5, 2, 0);
    add_many(cs, n, "HSET", "hash:big", BIG, 2, 0);
    add_many(cs, n, "HSET", "hash:long", 3, 2, 2);
    add_many(cs, n, "ZADD", "zset:small", 5, 2, 0);
    add_many(cs, n, "ZADD", "zset:big", BIG, 2, 0);
    ON_ALL(cs, n, "ZADD", "zset:inf", "-inf", "lo", "inf", "hi", "0.125", "mid");
    ON_ALL(cs, n, "SET", "ttl:str", "v", "PX", "100000000");
    ON_ALL(cs, n, "PEXPIRE", "hash:small", "200000000");
    ON_ALL(cs, n, "EXPIRE", "zset:big", "300000");
    for (int i = 0; i < RANDOM_KEYS; i++) {
        char key[32];
        snprintf(key, sizeof(key), "rnd:%d", i);
        static const char *const adds[] = {"RPUSH", "SADD", "HSET", "ZADD"};
        int t = (int)(next() % 5);
        int count = next() % 4 == 0 ? 150 + (int)(next() % 400) : 1 + (int)(next() % 10);
        if (t == 4)
            ON_ALL(cs, n, "SET", key, next() % 2 ? "123" : "text");
        else
            add_many(cs, n, adds[t], key, count, t >= 2 ? 2 : 1, (int)(next() % 3));
        if (next() % 3 == 0)
            ON_ALL(cs, n, "PEXPIRE", key, "500000000");
    }
    /* Streams: nodes of 4, a deletion, a trim, a group with pending
     * entries of two consumers; and one emptied by XDEL. */
    ON_ALL(cs, n, "CONFIG", "SET", "stream-node-max-entries", "4");
    for (int i = 1; i <= 30; i++) {
        char id[32], v[32];
        snprintf(id, sizeof(id), "%d-%d", 1000 + i * 7, i % 3);
        snprintf(v, sizeof(v), "%llu", (unsigned long long)(next() % 100000));
        if (i % 5)
            ON_ALL(cs, n, "XADD", "stream:groups", id, "temp", v, "site", "north");
        else
            ON_ALL(cs, n, "XADD", "stream:groups", id, "other", v);
    }
    ON_ALL(cs, n, "XDEL", "stream:groups", "1014-2");
    ON_ALL(cs, n, "XTRIM", "stream:groups", "MAXLEN", "26");
    ON_ALL(cs, n, "XGROUP", "CREATE", "stream:groups", "grp", "0");
    ON_ALL(cs, n, "XREADGROUP", "GROUP", "grp", "ann", "COUNT", "5", "STREAMS", "stream:groups", ">");
    ON_ALL(cs, n, "XREADGROUP", "GROUP", "grp", "bo", "COUNT", "3", "STREAMS", "stream:groups", ">");
    ON_ALL(cs, n, "XACK", "stream:groups", "grp", "1049-1");
    ON_ALL(cs, n, "XGROUP", "CREATE", "stream:groups", "late", "$");
    ON_ALL(cs, n, "XADD", "stream:empty", "5-5", "a", "b");
    ON_ALL(cs, n, "XDEL", "stream:empty", "5-5");
    ON_ALL(cs, n, "SELECT", "2");
    ON_ALL(cs, n, "SET", "in2", "two");
    add_many(cs, n, "ZADD", "z2", 3, 2, 0);
    ON_ALL(cs, n, "SELECT", "15");
    ON_ALL(cs, n, "SET", "in15", "fifteen", "EX", "5000");
    ON_ALL(cs, n, "SELECT", "0");
    for (int i = 0; i < 200; i++)
        ON_ALL(cs, n, "GET", "str:raw"); /* a hot key: its LFU counter climbs */
    ON_ALL(cs, n, "FUNCTION", "LOAD", LIBRARY);
}

/* The same, after some values read whole and the function. */
static void expect_same_data(redisContext *c, redisContext *r)
{
    H_SAME(c, r, "FCALL", "rdbf", "0");
    H_SAME(c, r, "GET", "str:lzf");
    H_SAME(c, r, "LRANGE", "list:big", "0", "-1");
    H_SAME(c, r, "ZRANGE", "zset:inf", "0", "-1", "WITHSCORES");
    H_SAME(c, r, "PFCOUNT", "hll:dense");
    H_SAME(c, r, "XRANGE", "stream:groups", "-", "+");
    H_SAME(c, r, "XINFO", "GROUPS", "stream:groups");
    H_SAME(c, r, "XPENDING", "stream:groups", "grp");
    H_SAME(c, r, "XLEN", "stream:empty");
    H_SAME_DATASET(c, r, 16);
}

static void expect_freq_close(redisContext *c, redisContext *r)
{
    redisReply *a = H_CALL(c, "OBJECT", "FREQ", "str:raw"), *b = H_CALL(r, "OBJECT", "FREQ",
                                                                          "str:raw");
    CHECK(a && b && a->type == REDIS_REPLY_INTEGER && b->type == REDIS_REPLY_INTEGER &&
              b->integer > 5 && llabs(a->integer - b->integer) <= 1,
          "OBJECT FREQ str:raw: %lld here, %lld on Redis", a ? a->integer : -1,
          b ? b->integer : -1);
    freeReplyObject(a);
    freeReplyObject(b);
}

/* Copies the file from into s's dir as name. Returns 0 or -1 (recorded). */
static int copy_into(const char *from, const struct h_server *s, const char *name)
{
    size_t len;
    char *bytes = h_read_file(from, &len);
    char to[600];
    h_path_in(s, name, to, sizeof(to));
    mkdir(s->dir, 0700);
    FILE *f = bytes ? fopen(to, "wb") : NULL;
    int ok = f && fwrite(bytes, 1, len, f) == len;
    if (f)
        ok &= fclose(f) == 0;
    free(bytes);
    return CHECK(ok, "copying %s to %s", from, to) ? 0 : -1;
}

/* Redis's dump.rdb of the dataset, in ref's dir; ref's client in *r. */
static redisContext *redis_dataset(struct h_server *ref)
{
    if (h_is_reference()) {
        printf("running against redis-server itself: nothing to compare with\n");
        return NULL;
    }
    int rc = h_start_reference(ref, REF_FLAGS);
    if (rc != 0)
        return NULL;
    redisContext *r = h_connect(ref);
    if (!r)
        return NULL;
    rng = h_seed();
    fill(&r, 1);
    EXPECT_OK(r, "SAVE");
    return r;
}

static void test_redis_to_rbkv(void)
{
    struct h_server ref, s;
    redisContext *r = redis_dataset(&ref);
    if (!r)
        return;
    char from[600];
    h_path_in(&ref, "dump.rdb", from, sizeof(from));
    const char *const *flags = H_FLAGS("--dbfilename", "dump.rdb", "--maxmemory-policy",
                                       "allkeys-lfu");
    if (h_start(&s, flags) < 0 || h_stop(&s) < 0 || copy_into(from, &s, "dump.rdb") < 0)
        goto out;
    redisContext *c = h_reopen(&s, flags);
    if (!c)
        goto out;
    expect_freq_close(c, r); /* first: reads raise the counter */
    expect_same_data(c, r);
    CHECK(h_file_has(&s, "server.log", "Loading the Redis RDB file dump.rdb"), "the log line");
    CHECK(h_file_has(&s, "server.log", "Loading RDB produced by version 7.0.15"), "redis-ver");
    h_close(&s, c);

    /* The same file converted into rbkv's snapshot starts rbkv the same. */
    struct h_server t;
    if (h_start(&t, NULL) < 0 || h_stop(&t) < 0 || copy_into(from, &t, "in.rdb") < 0)
        goto out;
    CHECK(h_exec(&t, "convert.log", START_EXIT_MS,
                 H_FLAGS("--convert-rdb", "in.rdb", "dump.rbkv")) == 0,
          "--convert-rdb in.rdb dump.rbkv");
    c = h_reopen(&t, NULL);
    EXPECT_OK(r, "DEBUG", "RELOAD", "NOSAVE"); /* the deadlines back, from its dump.rdb */
    if (c) {
        expect_same_data(c, r);
        h_close(&t, c);
    }
    h_clean_dir(&t);
out:
    h_clean_dir(&s);
    redisFree(r);
    h_stop(&ref);
    h_clean_dir(&ref);
}

static void test_rbkv_to_redis(void)
{
    if (h_is_reference())
        return;
    struct h_server s, ref;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    rng = h_seed();
    fill(&c, 1);
    EXPECT_OK(c, "SAVE");
    CHECK(h_exec(&s, "convert.log", START_EXIT_MS,
                 H_FLAGS("--convert-rdb", "dump.rbkv", "out.rdb")) == 0,
          "--convert-rdb dump.rbkv out.rdb");
    CHECK(h_file_has(&s, "convert.log", "Wrote out.rdb (Redis RDB version 10)"), "its output");
    int rc = h_start_reference(&ref, REF_FLAGS);
    char from[600];
    h_path_in(&s, "out.rdb", from, sizeof(from));
    if (rc == 0 && h_stop(&ref) == 0 && copy_into(from, &ref, "dump.rdb") == 0 &&
        h_restart(&ref, REF_FLAGS) == 0) {
        redisContext *r = h_connect(&ref);
        if (r) {
            CHECK(h_file_has(&ref, "server.log", "Done loading RDB"), "Redis loaded it");
            expect_same_data(c, r);
            redisFree(r);
        }
    }
    if (rc == 0) {
        h_stop(&ref);
        h_clean_dir(&ref);
    }
    h_close(&s, c);
    h_clean_dir(&s);
}

/* The fuzz target's seeds (tests/fuzz/corpus/rdb_file: redis-server's
 * files, hand-made ones of old versions, values in the encodings Redis no
 * longer writes), each refused by rbkv exactly when redis-check-rdb
 * refuses it; each one both load, rbkv starts from with the data
 * redis-server starts from. */
static void test_seeds_like_redis(void)
{
    if (h_is_reference())
        return;
    if (system("command -v redis-check-rdb >/dev/null 2>&1") != 0) {
        CHECK(!h_reference_required(), "no redis-check-rdb on PATH");
        printf("no redis-check-rdb on PATH: skipped\n");
        return;
    }
    DIR *d = opendir(RDB_SEEDS);
    if (!CHECK(d, "opening %s", RDB_SEEDS))
        return;
    struct dirent *ent;
    int loaded = 0;
    while ((ent = readdir(d))) {
        if (ent->d_name[0] == '.')
            continue;
        char path[600], cmd[700];
        snprintf(path, sizeof(path), "%s/%s", RDB_SEEDS, ent->d_name);
        snprintf(cmd, sizeof(cmd), "redis-check-rdb '%s' >/dev/null 2>&1", path);
        int redis_ok = system(cmd) == 0;
        struct h_server s, ref;
        const char *const *flags = H_FLAGS("--dbfilename", "dump.rdb");
        if (h_start(&s, flags) < 0 || h_stop(&s) < 0 || copy_into(path, &s, "dump.rdb") < 0)
            break;
        int rbkv_ok = h_exec(&s, "convert.log", START_EXIT_MS,
                             H_FLAGS("--convert-rdb", "dump.rdb", "out.rbkv")) == 0;
        CHECK(redis_ok == rbkv_ok, "%s: redis-check-rdb %s it, rbkv %s it", ent->d_name,
              redis_ok ? "accepts" : "refuses", rbkv_ok ? "accepts" : "refuses");
        redisContext *c = redis_ok && rbkv_ok ? h_reopen(&s, flags) : NULL;
        if (c && h_start_reference(&ref, REF_FLAGS) == 0) {
            redisContext *r = NULL;
            if (h_stop(&ref) == 0 && copy_into(path, &ref, "dump.rdb") == 0 &&
                h_restart(&ref, REF_FLAGS) == 0 && (r = h_connect(&ref))) {
                H_SAME_DATASET(c, r, 16);
                loaded++;
            }
            if (r)
                redisFree(r);
            h_stop(&ref);
            h_clean_dir(&ref);
        }
        if (c)
            h_close(&s, c);
        h_clean_dir(&s);
    }
    closedir(d);
    CHECK(loaded >= 5, "only %d seeds compared", loaded);
}

/* ---- corrupt files ---- */

/* A small RDB file into buf: header, SELECTDB 0, then body[0, n), EOF and
 * the checksum. Returns its length. */
static size_t rdb_file(unsigned char *buf, const void *body, size_t n)
{
    size_t len = 0;
    memcpy(buf, "REDIS0010\xfe\x00", 11);
    len = 11;
    memcpy(buf + len, body, n);
    len += n;
    buf[len++] = 0xff;
    uint64_t crc = h_crc64(buf, len);
    for (int i = 0; i < 8; i++)
        buf[len++] = (unsigned char)(crc >> (8 * i));
    return len;
}

/* Starts rbkv on the file buf[0, len) as dump.rdb: with want NULL expects it
 * to start and hold k = v among keys keys, else to refuse with want in its
 * log. */
static void start_on_keys(const unsigned char *buf, size_t len, const char *want, long long keys)
{
    struct h_server s;
    const char *const *flags = H_FLAGS("--dbfilename", "dump.rdb");
    if (h_start(&s, flags) < 0 || h_stop(&s) < 0)
        return;
    char p[600];
    h_path_in(&s, "dump.rdb", p, sizeof(p));
    mkdir(s.dir, 0700); /* h_stop removes it when empty */
    FILE *f = fopen(p, "wb");
    CHECK(f && fwrite(buf, 1, len, f) == len && fclose(f) == 0, "writing %s", p);
    if (!want) {
        redisContext *c = h_reopen(&s, flags);
        if (c) {
            EXPECT_BULK(c, "v", "GET", "k");
            EXPECT_INT(c, keys, "DBSIZE");
            if (keys > 1) /* test_big_file's: a byte deep in its last big value */
                EXPECT_BULK(c, "A", "GETRANGE", "big:23", "1000026", "1000026");
            h_close(&s, c);
        }
    } else {
        CHECK(h_exec(&s, "refused.log", START_EXIT_MS,
                     H_FLAGS("--port", "0", "--dbfilename", "dump.rdb")) == 1,
              "a start on a bad RDB file (%s) should fail", want);
        CHECK(h_file_has(&s, "refused.log", want), "the log should say: %s", want);
    }
    h_clean_dir(&s);
}

static void start_on(const unsigned char *buf, size_t len, const char *want)
{
    start_on_keys(buf, len, want, 1);
}

#define BIG_KEYS 24
#define BIG_VALUE (1u << 20)

/* The body of a file of BIG_KEYS strings "big:NN" of BIG_VALUE bytes (byte j
 * of key i is (i + j) % 251), then k = v, then the first key again when dup. */
static size_t big_body(unsigned char *b, int dup)
{
    size_t n = 0;
    for (int i = 0; i < BIG_KEYS + dup; i++) {
        int k = i % BIG_KEYS;
        b[n++] = 0x00;
        b[n++] = 6;
        n += (size_t)snprintf((char *)b + n, 7, "big:%02d", k);
        b[n++] = 0x80; /* a 32-bit length, big-endian */
        for (int s = 24; s >= 0; s -= 8)
            b[n++] = (unsigned char)(BIG_VALUE >> s);
        for (size_t j = 0; j < BIG_VALUE; j++)
            b[n++] = (unsigned char)((k + j) % 251);
        if (i == BIG_KEYS - 1) {
            static const unsigned char good[] = {0x00, 1, 'k', 1, 'v'};
            memcpy(b + n, good, sizeof(good));
            n += sizeof(good);
        }
    }
    return n;
}

static void test_big_file(void)
{
    if (h_is_reference())
        return;
    size_t cap = (BIG_KEYS + 1) * (BIG_VALUE + 16) + 64;
    unsigned char *body = malloc(cap), *buf = malloc(cap + 32);
    CHECK(body && buf, "no memory for a %zu-byte file", cap);
    if (!body || !buf)
        exit(1);
    size_t len = rdb_file(buf, body, big_body(body, 0));
    start_on_keys(buf, len, NULL, BIG_KEYS + 1);
    buf[len - 1] ^= 0x01;
    start_on_keys(buf, len, "Wrong RDB checksum", 0);
    len = rdb_file(buf, body, big_body(body, 1));
    start_on_keys(buf, len, "key \"big:00\" in db 0: duplicated key", 0);
    free(body);
    free(buf);
}

static void test_corrupt_files(void)
{
    if (h_is_reference())
        return;
    unsigned char buf[256];
    static const unsigned char good[] = {0x00, 1, 'k', 1, 'v'};
    size_t len = rdb_file(buf, good, sizeof(good));
    start_on(buf, len, NULL);

    buf[len - 1] ^= 0x40;
    start_on(buf, len, "Wrong RDB checksum");
    memset(buf + len - 8, 0, 8); /* 0: written unchecked, read unchecked */
    start_on(buf, len, NULL);

    start_on(buf, len - 9, "unexpected end of file");
    start_on(buf, len - 10, "key \"k\" in db 0: bad value of type 0");
    start_on(buf, 13, "truncated key");
    start_on(buf, 7, "Wrong signature");

    static const unsigned char unknown[] = {0x08, 1, 'k', 1, 'v'};
    start_on(buf, rdb_file(buf, unknown, sizeof(unknown)), "unknown value type 8");
    /* An intset whose blob is three bytes: bad, and the key named. */
    static const unsigned char bad_intset[] = {0x0b, 3, 'b', 'a', 'd', 3, 'x', 'y', 'z'};
    start_on(buf, rdb_file(buf, bad_intset, sizeof(bad_intset)),
             "key \"bad\" in db 0: bad value of type 11");
    /* A stream of one listpack, cut after its master ID. */
    static const unsigned char stream[] = {0x13, 2, 's', 't', 1, 16, 0, 0, 0, 0, 0, 0, 0, 1,
                                           0, 0, 0, 0, 0, 0, 0, 1};
    start_on(buf, rdb_file(buf, stream, sizeof(stream)),
             "key \"st\" in db 0: bad value of type 19 (truncated stream listpack)");
    static const unsigned char module[] = {0xf7, 1, 0, 0};
    start_on(buf, rdb_file(buf, module, sizeof(module)), "rbkv loads no modules");
    static const unsigned char dup[] = {0x00, 1, 'k', 1, 'v', 0x00, 1, 'k', 1, 'w'};
    start_on(buf, rdb_file(buf, dup, sizeof(dup)), "key \"k\" in db 0: duplicated key");
    static const unsigned char far_db[] = {0xfe, 16};
    start_on(buf, rdb_file(buf, far_db, sizeof(far_db)), "database 16 out of range");
    len = rdb_file(buf, good, sizeof(good));
    memcpy(buf, "REDIS0011", 9);
    start_on(buf, len, "Can't handle RDB format version 11");
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_redis_to_rbkv);
    H_RUN(test_rbkv_to_redis);
    H_RUN(test_seeds_like_redis);
    H_RUN(test_corrupt_files);
    H_RUN(test_big_file);
    return h_finish();
}
