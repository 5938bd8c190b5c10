/*
 * test_aof.c - end-to-end tests of the append-only log (server/persist/aof.h):
 * restarts in the same dir bring back strings, sorted sets, deadlines (as
 * absolute times) and databases; kill -9 under appendfsync always loses no
 * acknowledged write; a log cut mid-command loads and is trimmed; a corrupt
 * one refuses to start and is left untouched; --check-aof and --fix; a
 * failed write of the log (a file size limit, which works without root)
 * turns writes into MISCONF errors until it can be written again;
 * BGREWRITEAOF with writes during it, kill -9 during it leaving a loadable
 * log, and the automatic rewrite; hashes and sets through a rewrite (HSET
 * and SADD in batches, deadlines, empty and binary elements, both
 * encodings: needs the hash and set commands).
 *
 * Owns: its servers and the files they leave in their dirs, removed at the
 * end of each test (the harness removes only its log).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h> /* prlimit: the build defines _GNU_SOURCE */
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define AOF "appendonly.aof"
#define ALWAYS "--appendonly", "yes", "--appendfsync", "always"
#define KEYS 100
#define CUTS 150                     /* cut points tried at the log's end */
#define BIG_VALUES 20                /* of BIG_VALUE bytes: a rewrite that takes a while */
#define BIG_VALUE (1024 * 1024)
#define WRITER_MS (600 * H_SLOW)     /* how long the writer runs before kill -9 */
#define EXIT_MS (10000 * H_SLOW)
#define RETRY_MS (3000 * H_SLOW)     /* the log's write is retried every second */

/* Runs the binary with the arguments in s's dir, its output into out.log
 * there; returns its exit status (h_exec). */
#define RUN_IN(s, ...) h_exec((s), "out.log", EXIT_MS, H_FLAGS(__VA_ARGS__))

static void test_round_trip(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    h_fill(c, "k", KEYS);
    EXPECT_INT(c, 1, "DEL", "k:0");
    EXPECT_OK(c, "SET", "bin", "a\r\nb");
    EXPECT_INT(c, 3, "ZADD", "z", "1.5", "a", "-inf", "b", "0.1", "c");
    EXPECT_BULK(c, "2.6000000000000001", "ZINCRBY", "z", "1.1", "a");
    int64_t long_set_ms = h_now_ms();
    EXPECT_OK(c, "SET", "long", "v", "EX", "1000");
    EXPECT_OK(c, "SET", "e", "v");
    EXPECT_INT(c, 1, "EXPIRE", "e", "500");
    EXPECT_OK(c, "SET", "short", "v", "PX", "800");
    /* A write that keeps a deadline must not make the key outlive it. */
    EXPECT_OK(c, "SET", "cnt", "5", "PX", "800");
    EXPECT_INT(c, 6, "INCR", "cnt");
    EXPECT_OK(c, "SELECT", "3");
    EXPECT_OK(c, "SET", "in3", "three");
    EXPECT_OK(c, "SELECT", "0");
    EXPECT_TRANSACTION(c, "[:1, :2]", "INCR n", "INCR n");
    h_close(&s, c);
    h_sleep_ms(1000); /* past the 800 ms deadlines */

    c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_NIL(c, "GET", "k:0");
    EXPECT_BULK(c, "k:99", "GET", "k:99");
    EXPECT_REPLY(c, "'a\\r\\nb'", "GET", "bin");
    EXPECT_REPLY(c, "['b', '-inf', 'c', '0.10000000000000001', 'a', '2.6000000000000001']", "ZRANGE",
                 "z", "0", "-1", "WITHSCORES");
    EXPECT_INT_RANGE(c, h_ttl_floor(1000, long_set_ms), 1000, "TTL", "long");
    EXPECT_INT_RANGE(c, 490, 500, "TTL", "e");
    EXPECT_INT(c, 0, "EXISTS", "short");
    EXPECT_INT(c, 0, "EXISTS", "cnt");
    EXPECT_BULK(c, "2", "GET", "n");
    EXPECT_OK(c, "SELECT", "3");
    EXPECT_BULK(c, "three", "GET", "in3");
    EXPECT_MATCH(c, "*aof_enabled:1*aof_last_write_status:ok*", "INFO", "persistence");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* A pop served to a client that waited changes the set outside any logged
 * command: the log records the pop it amounted to. */
static void test_blocked_pop(void)
{
    struct h_server s;
    redisContext *waiter;
    /* The BZPOPMIN must be waiting before the ZADD. */
    redisContext *c = h_open_blocked(&s, H_FLAGS(ALWAYS), &waiter, H_FLAGS("BZPOPMIN", "z", "5"));
    if (!c)
        return;
    EXPECT_INT(c, 2, "ZADD", "z", "1", "a", "2", "b");
    redisReply *r = NULL;
    CHECK(redisGetReply(waiter, (void **)&r) == REDIS_OK && r && r->type == REDIS_REPLY_ARRAY &&
              r->elements == 3 && !strcmp(r->element[1]->str, "a"),
          "BZPOPMIN should pop a");
    freeReplyObject(r);
    redisFree(waiter);
    h_close(&s, c);

    c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_REPLY(c, "['b', '2']", "ZRANGE", "z", "0", "-1", "WITHSCORES");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* A snapshot taken without the log is what a new log starts from, so the
 * next start, which reads only the log, still has those keys. */
static void test_from_snapshot(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    h_fill(c, "snap", KEYS);
    EXPECT_INT(c, 1, "ZADD", "z", "2", "m");
    EXPECT_OK(c, "SAVE");
    h_close(&s, c);
    for (int round = 0; round < 2; round++) {
        c = h_reopen(&s, H_FLAGS(ALWAYS));
        if (!c)
            return;
        EXPECT_INT(c, KEYS + 1 + round, "DBSIZE");
        EXPECT_OK(c, "SET", round ? "more2" : "more1", "x");
        h_close(&s, c);
    }
    h_clean_dir(&s);
}

/* The writer, in a child process: SETs w:i = i until the server dies, then
 * reports the last i that was acknowledged. */
static void writer(const struct h_server *s, int fd)
{
    redisContext *c = redisConnect("127.0.0.1", s->port);
    long long last = -1;
    char k[32], v[32];
    for (long long i = 0; c && !c->err; i++) {
        snprintf(k, sizeof(k), "w:%lld", i);
        snprintf(v, sizeof(v), "%lld", i);
        redisReply *r = redisCommand(c, "SET %s %s", k, v);
        if (!r)
            break;
        if (r->type == REDIS_REPLY_STATUS)
            last = i;
        freeReplyObject(r);
    }
    if (write(fd, &last, sizeof(last)) != sizeof(last))
        _exit(1);
    _exit(0);
}

static void test_kill9_always(void)
{
    struct h_server s;
    if (h_start(&s, H_FLAGS(ALWAYS)) < 0)
        return;
    int fds[2];
    if (pipe(fds) < 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        writer(&s, fds[1]);
    }
    close(fds[1]);
    h_sleep_ms(WRITER_MS); /* the test: the writer writes for a while, then the crash */
    kill(s.pid, SIGKILL);
    h_wait_exit(&s, EXIT_MS);
    long long last = -1;
    CHECK(read(fds[0], &last, sizeof(last)) == sizeof(last), "the writer's report");
    close(fds[0]);
    waitpid(pid, NULL, 0);
    CHECK(last > 0, "the writer got no reply before kill -9");

    redisContext *c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    long long missing = 0;
    char k[32], v[32];
    for (long long i = 0; i <= last; i++) {
        snprintf(k, sizeof(k), "w:%lld", i);
        H_APPEND(c, "GET", k);
    }
    for (long long i = 0; i <= last; i++) {
        redisReply *r = h_get_reply(c);
        snprintf(v, sizeof(v), "%lld", i);
        if (!r || r->type != REDIS_REPLY_STRING || strcmp(r->str, v))
            missing++;
        freeReplyObject(r);
    }
    CHECK(missing == 0, "%lld of %lld acknowledged writes lost", missing, last + 1);
    long long n = H_INT_REPLY(c, "DBSIZE");
    /* The write in flight at the kill may or may not have made it. */
    CHECK(n == last + 1 || n == last + 2, "DBSIZE %lld after %lld acknowledged", n, last + 1);
    if (missing == 0)
        printf("  kill -9 under appendfsync always: %lld acknowledged writes, all there\n",
               last + 1);
    h_close(&s, c);
    h_clean_dir(&s);
}

/* everysec: the sync runs on a worker; acknowledged writes a second old are
 * in the log after kill -9 (the page cache would keep them anyway: this
 * checks the path runs cleanly, not the disk). */
static void test_everysec(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--appendonly", "yes", "--appendfsync", "everysec"));
    if (!c)
        return;
    for (int round = 0; round < 3; round++) {
        h_fill(c, round ? "more" : "k", KEYS);
        h_sleep_ms(600); /* the test: writes a second old by the kill, past everysec's sync */
    }
    EXPECT_MATCH(c, "*aof_last_write_status:ok*", "INFO", "persistence");
    kill(s.pid, SIGKILL);
    h_wait_exit(&s, EXIT_MS);
    redisFree(c);
    c = h_reopen(&s, H_FLAGS("--appendonly", "yes"));
    if (!c)
        return;
    EXPECT_INT(c, 2 * KEYS, "DBSIZE");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* A server with KEYS keys in its log, stopped. Returns 0 when ready. */
static int prepare(struct h_server *s)
{
    redisContext *c = h_open(s, H_FLAGS(ALWAYS));
    if (!c)
        return -1;
    h_fill(c, "k", KEYS);
    return h_close(s, c);
}

static void append_bytes(const struct h_server *s, const char *bytes)
{
    char p[512];
    h_path_in(s, AOF, p, sizeof(p));
    FILE *f = fopen(p, "ab");
    CHECK(f && fputs(bytes, f) >= 0, "appending to %s", p);
    if (f)
        fclose(f);
}

static void test_truncated(void)
{
    struct h_server s;
    if (prepare(&s) < 0)
        return;
    long long whole = h_file_size(&s, AOF);
    append_bytes(&s, "*3\r\n$3\r\nSET\r\n$4\r\ncut");
    /* With aof-load-truncated no it refuses, and leaves the file. */
    CHECK(RUN_IN(&s, "--port", "0", "--appendonly", "yes", "--aof-load-truncated", "no") == 1,
          "a cut log with aof-load-truncated no should stop the start");
    CHECK(h_file_has(&s, "out.log", "is truncated at offset"), "the refusal names the offset");
    CHECK(h_file_size(&s, AOF) > whole, "the refused log was trimmed");

    redisContext *c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    CHECK(h_file_has(&s, "server.log", "short read while loading the AOF"), "no warning logged");
    CHECK(h_file_size(&s, AOF) == whole, "log not trimmed: %lld bytes, %lld whole",
          h_file_size(&s, AOF), whole);
    EXPECT_INT(c, KEYS, "DBSIZE");
    EXPECT_OK(c, "SET", "after", "trim");
    h_close(&s, c);
    c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_BULK(c, "trim", "GET", "after");
    h_close(&s, c);
    h_clean_dir(&s);
}

static void test_corrupt(void)
{
    struct h_server s;
    if (prepare(&s) < 0)
        return;
    char p[512];
    size_t len, len2;
    h_path_in(&s, AOF, p, sizeof(p));
    char *before = h_read_file(p, &len);
    if (!before)
        return;
    /* A '$' in the middle of the file becomes '%'. */
    char *at = strstr(before + len / 2, "\r\n$");
    CHECK(at != NULL, "no '$' in the second half of the log");
    if (!at) {
        free(before);
        return;
    }
    at[2] = '%';
    FILE *f = fopen(p, "wb");
    CHECK(f && fwrite(before, 1, len, f) == len, "rewriting %s", p);
    if (f)
        fclose(f);
    char want[128];
    snprintf(want, sizeof(want),
             "Bad file format reading the append only file " AOF " at offset %ld: expected '$'",
             (long)(at + 2 - before));
    CHECK(RUN_IN(&s, "--port", "0", "--appendonly", "yes") == 1,
          "a corrupt log should stop the start");
    CHECK(h_file_has(&s, "out.log", want), "the log should say: %s", want);
    char *after = h_read_file(p, &len2);
    CHECK(after && len2 == len && !memcmp(before, after, len), "the corrupt log was changed");
    free(after);

    /* --check-aof: corrupt is not fixable, and --fix leaves it as it is. */
    CHECK(RUN_IN(&s, "--check-aof", AOF) == 1, "--check-aof on a corrupt log");
    CHECK(h_file_has(&s, "out.log", "is not valid: expected '$' at offset"), "check verdict");
    CHECK(RUN_IN(&s, "--check-aof", AOF, "--fix") == 1, "--fix on a corrupt log");
    after = h_read_file(p, &len2);
    CHECK(after && len2 == len && !memcmp(before, after, len), "--fix changed a corrupt log");
    free(after);
    free(before);
    h_clean_dir(&s);
}

/* Well-formed RESP that no log holds: a command that is not a write, or a
 * write with the wrong number of arguments, refuses the start, naming the
 * command's offset. */
static void test_not_a_logged_command(void)
{
    static const char *const bad[][2] = {
        {"*2\r\n$5\r\nWATCH\r\n$1\r\nk\r\n", "not a write command"},
        {"*1\r\n$8\r\nSHUTDOWN\r\n", "not a write command"},
        {"*2\r\n$3\r\nSET\r\n$1\r\nk\r\n", "wrong number of arguments"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct h_server s;
        if (prepare(&s) < 0)
            return;
        long long whole = h_file_size(&s, AOF);
        append_bytes(&s, bad[i][0]);
        char want[160];
        snprintf(want, sizeof(want), "append only file " AOF " at offset %lld: %s", whole,
                 bad[i][1]);
        CHECK(RUN_IN(&s, "--port", "0", "--appendonly", "yes") == 1, "%s should stop the start",
              bad[i][1]);
        CHECK(h_file_has(&s, "out.log", want), "the log should say: %s", want);
        h_clean_dir(&s);
    }
}

static void test_check_aof(void)
{
    struct h_server s;
    if (prepare(&s) < 0)
        return;
    long long whole = h_file_size(&s, AOF);
    CHECK(RUN_IN(&s, "--check-aof", AOF) == 0, "--check-aof on a good log");
    CHECK(h_file_has(&s, "out.log", "is valid"), "check verdict");
    append_bytes(&s, "*2\r\n$3\r\nDEL\r\n$2\r");
    CHECK(RUN_IN(&s, "--check-aof", AOF) == 1, "--check-aof on a cut log");
    CHECK(h_file_has(&s, "out.log", "is truncated at offset"), "check verdict");
    CHECK(h_file_size(&s, AOF) > whole, "--check-aof without --fix changed the log");
    CHECK(RUN_IN(&s, "--check-aof", AOF, "--fix") == 0, "--check-aof --fix on a cut log");
    CHECK(h_file_size(&s, AOF) == whole, "--fix left %lld bytes, want %lld", h_file_size(&s, AOF),
          whole);
    CHECK(RUN_IN(&s, "--check-aof", AOF) == 0, "--check-aof after --fix");
    CHECK(RUN_IN(&s, "--check-aof", "missing.aof") == 1, "--check-aof on a missing file");
    h_clean_dir(&s);
}

/* Every cut of a good log in its last commands is either at a command's end
 * (valid) or inside one (truncated, fixable), never "not valid". */
static void test_every_cut(void)
{
    struct h_server s;
    if (prepare(&s) < 0)
        return;
    char p[512], cut[600];
    size_t len;
    h_path_in(&s, AOF, p, sizeof(p));
    snprintf(cut, sizeof(cut), "%s/cut.aof", s.dir);
    char *log = h_read_file(p, &len);
    if (!log)
        return;
    int valid = 0, bad = 0;
    for (size_t n = len > CUTS ? len - CUTS : 0; n <= len; n++) {
        FILE *f = fopen(cut, "wb");
        if (!f || fwrite(log, 1, n, f) != n) {
            CHECK(0, "writing %s", cut);
            if (f)
                fclose(f);
            break;
        }
        fclose(f);
        int rc = RUN_IN(&s, "--check-aof", "cut.aof");
        if (rc == 0)
            valid++;
        else if (!h_file_has(&s, "out.log", "is truncated at offset"))
            bad++;
    }
    /* Commands here are 30-40 bytes: a few end inside the last CUTS bytes. */
    CHECK(bad == 0, "%d cuts of a good log called not valid", bad);
    CHECK(valid >= CUTS / 40, "only %d cuts at a command's end", valid);
    free(log);
    h_clean_dir(&s);
}

static void test_misconf(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_OK(c, "SET", "before", "limit");
    /* Only the soft limit: lowering the hard one cannot be undone without
     * privilege. */
    struct rlimit old;
    if (prlimit(s.pid, RLIMIT_FSIZE, NULL, &old) < 0) {
        CHECK(0, "prlimit: cannot read the server's limits");
        h_close(&s, c);
        h_clean_dir(&s);
        return;
    }
    struct rlimit lim = {(rlim_t)h_file_size(&s, AOF), old.rlim_max};
    CHECK(prlimit(s.pid, RLIMIT_FSIZE, &lim, NULL) == 0, "prlimit");
    /* The write that cannot be logged is not acknowledged: the client is
     * closed with its reply unsent. */
    redisReply *r = H_CALL(c, "SET", "during", "limit");
    CHECK(r == NULL, "a write whose log failed was acknowledged");
    freeReplyObject(r);
    redisFree(c);
    c = h_connect(&s);
    if (!c)
        return;
    EXPECT_ERR(c, "MISCONF Errors writing to the AOF file: File too large", "SET", "x", "y");
    EXPECT_MATCH(c, "*aof_last_write_status:err*", "INFO", "persistence");
    EXPECT_BULK(c, "limit", "GET", "before");
    CHECK(prlimit(s.pid, RLIMIT_FSIZE, &old, NULL) == 0, "prlimit back");
    int64_t deadline = h_now_ms() + RETRY_MS;
    redisReply *ok = NULL;
    while (h_now_ms() < deadline) {
        ok = H_CALL(c, "SET", "x", "y");
        if (ok && ok->type == REDIS_REPLY_STATUS)
            break;
        freeReplyObject(ok);
        ok = NULL;
        h_sleep_ms(100);
    }
    CHECK(ok != NULL, "writes still refused %d ms after the limit was lifted", RETRY_MS);
    freeReplyObject(ok);
    h_close(&s, c);

    /* The unacknowledged write was kept and logged once the limit was gone. */
    c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_BULK(c, "limit", "GET", "before");
    EXPECT_BULK(c, "limit", "GET", "during");
    EXPECT_BULK(c, "y", "GET", "x");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* Waits for the rewrite to be over (the child is reaped within a second). */
static int wait_rewrite(redisContext *c)
{
    if (h_wait_info(c, "persistence", "aof_rewrite_in_progress", "0", RETRY_MS))
        return 1;
    CHECK(0, "the AOF rewrite did not end within %d ms", RETRY_MS);
    return 0;
}

static void overwrite(redisContext *c, const char *key, int n)
{
    char v[32];
    for (int i = 0; i < n; i++) {
        snprintf(v, sizeof(v), "value-%d", i);
        H_APPEND(c, "SET", key, v);
    }
    for (int i = 0; i < n; i++)
        freeReplyObject(h_get_reply(c));
}

static void test_rewrite(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    h_fill(c, "k", KEYS);
    overwrite(c, "hot", 2000);
    EXPECT_INT(c, 3, "ZADD", "z", "0.1", "a", "-inf", "b", "1e300", "c");
    int64_t ttl_set_ms = h_now_ms();
    EXPECT_OK(c, "SET", "ttl", "v", "EX", "1000");
    EXPECT_OK(c, "SELECT", "5");
    EXPECT_OK(c, "SET", "in5", "five");
    long long before = h_file_size(&s, AOF);
    EXPECT_STATUS(c, "Background append only file rewriting started", "BGREWRITEAOF");
    /* Written while the child runs: kept aside and appended at the switch. */
    EXPECT_OK(c, "SET", "during", "rewrite");
    EXPECT_OK(c, "SELECT", "0");
    EXPECT_INT(c, 1, "DEL", "k:1");
    if (wait_rewrite(c)) {
        long long after = h_file_size(&s, AOF);
        CHECK(after > 0 && after < before / 4, "rewrite: %lld bytes, before %lld", after, before);
    }
    EXPECT_OK(c, "SET", "after", "rewrite");
    h_close(&s, c);

    c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_INT(c, KEYS - 1 + 4, "DBSIZE");
    EXPECT_BULK(c, "value-1999", "GET", "hot");
    EXPECT_REPLY(c, "['b', '-inf', 'a', '0.10000000000000001', 'c', '1.0000000000000001e+300']", "ZRANGE", "z", "0", "-1",
                 "WITHSCORES");
    EXPECT_INT_RANGE(c, h_ttl_floor(1000, ttl_set_ms), 1000, "TTL", "ttl");
    EXPECT_NIL(c, "GET", "k:1");
    EXPECT_BULK(c, "rewrite", "GET", "after");
    EXPECT_OK(c, "SELECT", "5");
    EXPECT_BULK(c, "five", "GET", "in5");
    EXPECT_BULK(c, "rewrite", "GET", "during");
    h_close(&s, c);
    h_clean_dir(&s);
}

#define MAP_FIELDS 1000 /* over the packed limit and many HSET/SADD batches */

/* The text form of one reply into buf ("" on no reply). */
static void reply_text(redisContext *c, char *buf, size_t cap, const char *cmd, const char *key)
{
    redisReply *r = H_CALL(c, cmd, key);
    buf[0] = '\0';
    if (r)
        h_repr(r, buf, cap);
    freeReplyObject(r);
}

/* Hashes and sets written again by a rewrite (HSET/SADD in batches) load
 * back the same: DEBUG DIGEST, the small ones' whole replies, deadlines,
 * encodings and databases. */
static void test_rewrite_maps(void)
{
    enum { SMALL, BIGH, SET, BIGS, INTS, NTEXT };
    static const char *const keys[NTEXT] = {"h", "bigh", "s", "bigs", "ints"};
    static const char *const cmds[NTEXT] = {"HGETALL", "HLEN", "SMEMBERS", "SCARD", "SMEMBERS"};
    char before[NTEXT][512], after[512], digest[H_DIGEST_CHARS + 1], v[32];
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_INT(c, 3, "HSET", "h", "f", "v", "", "empty field", "empty value", "");
    EXPECT_INT(c, 1, "SADD", "s", "");
    EXPECT_INT(c, 2, "SADD", "s", "m", "n");
    freeReplyObject(H_CALL_BIN(c, H_S("HSET"), H_S("h"), H_B("a\r\n\0b", 5), H_B("\0\xff", 2)));
    freeReplyObject(H_CALL_BIN(c, H_S("SADD"), H_S("s"), H_B("\0\xff\r\n", 4)));
    EXPECT_INT(c, 3, "SADD", "ints", "-5", "12", "7");
    for (int i = 0; i < MAP_FIELDS; i++) {
        char f[32];
        snprintf(f, sizeof(f), "field:%d", i);
        snprintf(v, sizeof(v), "value-%d", i * 7);
        H_APPEND(c, "HSET", "bigh", f, v);
        H_APPEND(c, "SADD", "bigs", f);
    }
    for (int i = 0; i < 2 * MAP_FIELDS; i++)
        freeReplyObject(h_get_reply(c));
    EXPECT_INT(c, 1, "HDEL", "bigh", "field:3");
    int64_t h_set_ms = h_now_ms();
    EXPECT_INT(c, 1, "EXPIRE", "h", "1000");
    EXPECT_OK(c, "SELECT", "4");
    EXPECT_INT(c, 1, "SADD", "in4", "x");
    EXPECT_OK(c, "SELECT", "0");
    for (int i = 0; i < NTEXT; i++)
        reply_text(c, before[i], sizeof(before[i]), cmds[i], keys[i]);
    h_digest(c, digest);
    EXPECT_STATUS(c, "Background append only file rewriting started", "BGREWRITEAOF");
    wait_rewrite(c);
    h_close(&s, c);
    size_t len = 0;
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", s.dir, AOF);
    char *log = h_read_file(path, &len);
    CHECK(log && !memmem(log, len, "HDEL", 4) && memmem(log, len, "HSET", 4) &&
              memmem(log, len, "SADD", 4),
          "the rewritten log holds HSET and SADD, no HDEL");
    free(log);

    c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    for (int i = 0; i < NTEXT; i++) {
        reply_text(c, after, sizeof(after), cmds[i], keys[i]);
        CHECK(strcmp(before[i], after) == 0, "%s %s: %s, before the rewrite %s", cmds[i], keys[i],
              after, before[i]);
    }
    char again[H_DIGEST_CHARS + 1];
    h_digest(c, again);
    CHECK(digest[0] && strcmp(again, digest) == 0, "DEBUG DIGEST %s, before the rewrite %s", again,
          digest);
    EXPECT_BIN(c, "'\\x00\\xff'", H_S("HGET"), H_S("h"), H_B("a\r\n\0b", 5));
    EXPECT_INT(c, 1, "SISMEMBER", "s", "");
    EXPECT_BULK(c, "", "HGET", "h", "empty value");
    EXPECT_INT(c, MAP_FIELDS - 1, "HLEN", "bigh");
    EXPECT_INT_RANGE(c, h_ttl_floor(1000, h_set_ms), 1000, "TTL", "h");
    EXPECT_INT(c, -1, "TTL", "bigs");
    EXPECT_BULK(c, "rbtree", "OBJECT", "ENCODING", "bigh");
    EXPECT_BULK(c, "listpack", "OBJECT", "ENCODING", "h");
    EXPECT_BULK(c, "intset", "OBJECT", "ENCODING", "ints");
    EXPECT_OK(c, "SELECT", "4");
    EXPECT_INT(c, 1, "SISMEMBER", "in4", "x");
    h_close(&s, c);
    h_clean_dir(&s);
}

static void test_kill9_during_rewrite(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    h_fill(c, "k", KEYS);
    h_fill_big(c, "big", BIG_VALUES, BIG_VALUE);
    EXPECT_STATUS(c, "Background append only file rewriting started", "BGREWRITEAOF");
    h_kill9_with_child(&s, EXIT_MS);
    redisFree(c);

    c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_INT(c, KEYS + BIG_VALUES, "DBSIZE");
    EXPECT_INT(c, BIG_VALUE, "STRLEN", "big:0");
    h_close(&s, c);
    h_clean_dir(&s);
}

static void test_auto_rewrite(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS(ALWAYS, "--auto-aof-rewrite-min-size", "16kb"));
    if (!c)
        return;
    overwrite(c, "hot", 1000); /* about 40 kB of log for one key */
    int64_t deadline = h_now_ms() + RETRY_MS;
    while (h_now_ms() < deadline && h_file_size(&s, AOF) >= 16 * 1024)
        h_sleep_ms(50);
    CHECK(h_file_size(&s, AOF) < 16 * 1024, "no automatic rewrite: %lld bytes",
          h_file_size(&s, AOF));
    wait_rewrite(c);
    h_close(&s, c);
    c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_BULK(c, "value-999", "GET", "hot");
    h_close(&s, c);
    h_clean_dir(&s);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_round_trip);
    H_RUN(test_from_snapshot);
    H_RUN(test_blocked_pop);
    H_RUN(test_kill9_always);
    H_RUN(test_everysec);
    H_RUN(test_truncated);
    H_RUN(test_corrupt);
    H_RUN(test_not_a_logged_command);
    H_RUN(test_check_aof);
    H_RUN(test_every_cut);
    H_RUN(test_misconf);
    H_RUN(test_rewrite);
    H_RUN(test_rewrite_maps);
    H_RUN(test_kill9_during_rewrite);
    H_RUN(test_auto_rewrite);
    return h_finish();
}
