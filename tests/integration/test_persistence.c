/*
 * test_persistence.c - end-to-end tests of snapshots: what is saved comes
 * back after a restart in the same dir (h_restart), BGSAVE while clients
 * write, LASTSAVE, SHUTDOWN SAVE/NOSAVE and SIGTERM with save rules, a
 * failed background save turning writes into MISCONF errors, kill -9 during
 * a BGSAVE leaving the previous file loadable, and a corrupt file refusing
 * to start without being touched.
 *
 * Owns: its servers and the files they leave in their dirs, removed at the
 * end of each test (the harness removes only its log).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define DUMP "dump.rbkv"
#define BG_KEYS (20000 / H_SLOW)
#define BG_WRITES 2000
#define BIG_VALUES 60                /* of BIG_VALUE bytes: a BGSAVE that takes a while */
#define BIG_VALUE (1024 * 1024)
#define OLD_KEYS 1000
#define BGSAVE_WAIT_MS (20000 * H_SLOW)
#define START_EXIT_MS (10000 * H_SLOW)

static void test_save_restart(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    EXPECT_BIN(c, "+OK", H_S("SET"), H_S("bin\0key\xff"), H_S("val\0\r\nue"));
    EXPECT_INT(c, 3, "ZADD", "z", "1.5", "a", "-inf", "b", "2", "c");
    EXPECT_OK(c, "SET", "ttl", "v", "EX", "1000");
    EXPECT_OK(c, "SET", "gone", "v", "PX", "1");
    EXPECT_OK(c, "SELECT", "15");
    EXPECT_OK(c, "SET", "in15", "x");
    EXPECT_OK(c, "SAVE");
    h_close(&s, c); /* no save rules: SIGTERM does not save, the SAVE above did */

    c = h_reopen(&s, NULL);
    if (!c)
        return;
    EXPECT_BIN(c, "'val\\x00\\r\\nue'", H_S("GET"), H_S("bin\0key\xff"));
    EXPECT_REPLY(c, "['b', '-inf', 'a', '1.5', 'c', '2']", "ZRANGE", "z", "0", "-1", "WITHSCORES");
    EXPECT_INT_RANGE(c, 900, 1000, "TTL", "ttl");
    EXPECT_NIL(c, "GET", "gone");
    EXPECT_INT(c, 3, "DBSIZE");
    EXPECT_OK(c, "SELECT", "15");
    EXPECT_BULK(c, "x", "GET", "in15");
    h_close(&s, c);
    h_clean_dir(&s);
}

static void test_lastsave(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    long long before = H_INT_REPLY(c, "LASTSAVE");
    CHECK(before > 1600000000, "LASTSAVE at start: %lld", before);
    h_sleep_ms(1100); /* the test: LASTSAVE counts seconds */
    EXPECT_OK(c, "SAVE");
    long long after = H_INT_REPLY(c, "LASTSAVE");
    CHECK(after > before, "LASTSAVE did not move: %lld then %lld", before, after);
    EXPECT_ERR(c, "ERR syntax error", "BGSAVE", "NOW");
    EXPECT_STATUS(c, "Background saving started", "BGSAVE", "SCHEDULE");
    CHECK(!strcmp(h_wait_bgsave(c, BGSAVE_WAIT_MS), "ok"), "BGSAVE SCHEDULE status");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* The loop serves writes while the child saves; the snapshot holds the keys
 * from before the fork. */
static void test_bgsave_while_writing(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    redisContext *w = c ? h_connect(&s) : NULL;
    if (!w)
        return;
    h_fill(c, "k", BG_KEYS);
    EXPECT_STATUS(c, "Background saving started", "BGSAVE");
    int ok = 0;
    for (int i = 0; i < BG_WRITES; i++) {
        char k[32];
        snprintf(k, sizeof(k), "during:%d", i);
        redisReply *r = H_CALL(w, "SET", k, "v");
        ok += r && r->type == REDIS_REPLY_STATUS;
        freeReplyObject(r);
    }
    CHECK(ok == BG_WRITES, "%d of %d writes during BGSAVE answered OK", ok, BG_WRITES);
    CHECK(!strcmp(h_wait_bgsave(c, BGSAVE_WAIT_MS), "ok"), "BGSAVE status");
    redisFree(w);
    h_close(&s, c);

    c = h_reopen(&s, NULL);
    if (!c)
        return;
    long long n = H_INT_REPLY(c, "DBSIZE");
    CHECK(n >= BG_KEYS && n <= BG_KEYS + BG_WRITES, "DBSIZE after restart: %lld", n);
    EXPECT_BULK(c, "k:0", "GET", "k:0");
    h_close(&s, c);
    h_clean_dir(&s);
}

static void test_kill9_during_bgsave(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    h_fill(c, "old", OLD_KEYS);
    EXPECT_OK(c, "SAVE");
    h_fill_big(c, "big", BIG_VALUES, BIG_VALUE);
    EXPECT_STATUS(c, "Background saving started", "BGSAVE");
    h_kill9_with_child(&s, 5000 * H_SLOW);
    redisFree(c);

    c = h_reopen(&s, NULL);
    if (!c)
        return;
    long long n = H_INT_REPLY(c, "DBSIZE");
    CHECK(n == OLD_KEYS || n == OLD_KEYS + BIG_VALUES, "DBSIZE after kill -9: %lld", n);
    printf("  kill -9 during BGSAVE: restarted with %s snapshot\n",
           n == OLD_KEYS ? "the previous" : "the new (the child had finished)");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* The snapshot's target is a non-empty directory, so every save fails (even
 * as root, where permissions would not stop us). */
static void block_saves(const struct h_server *s, int block)
{
    char p[512], inner[600];
    h_path_in(s, DUMP, p, sizeof(p));
    snprintf(inner, sizeof(inner), "%s/keep", p);
    if (block) {
        mkdir(p, 0755);
        FILE *f = fopen(inner, "w");
        if (f)
            fclose(f);
    } else {
        unlink(inner);
        rmdir(p);
    }
}

static void test_misconf(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--save", "3600 1"));
    if (!c)
        return;
    EXPECT_OK(c, "SET", "k", "v");
    block_saves(&s, 1);
    EXPECT_ERR(c, "ERR", "SAVE");
    EXPECT_OK(c, "SET", "still", "writable"); /* SAVE failing is not a BGSAVE failure */
    EXPECT_STATUS(c, "Background saving started", "BGSAVE");
    CHECK(!strcmp(h_wait_bgsave(c, BGSAVE_WAIT_MS), "err"), "BGSAVE into a directory should fail");
    EXPECT_MATCH(c, "-MISCONF Redis is configured to save RDB snapshots*", "SET", "k", "w");
    EXPECT_MATCH(c, "-MISCONF *", "DEL", "k");
    EXPECT_BULK(c, "v", "GET", "k");
    EXPECT_STATUS(c, "PONG", "PING");
    /* With rules set, SHUTDOWN saves; it fails, so the server stays up. */
    EXPECT_ERR(c, "ERR Errors trying to SHUTDOWN. Check logs.", "SHUTDOWN");
    EXPECT_BULK(c, "v", "GET", "k");
    EXPECT_OK(c, "CONFIG", "SET", "stop-writes-on-bgsave-error", "no");
    EXPECT_OK(c, "SET", "k", "w");
    EXPECT_OK(c, "CONFIG", "SET", "stop-writes-on-bgsave-error", "yes");
    block_saves(&s, 0);
    EXPECT_STATUS(c, "Background saving started", "BGSAVE");
    CHECK(!strcmp(h_wait_bgsave(c, BGSAVE_WAIT_MS), "ok"), "BGSAVE after the fix");
    EXPECT_OK(c, "SET", "k", "x");
    h_close(&s, c); /* rules set: SIGTERM saves */

    c = h_reopen(&s, NULL);
    if (!c)
        return;
    EXPECT_BULK(c, "x", "GET", "k");
    h_close(&s, c);
    h_clean_dir(&s);
}

static void test_shutdown(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    EXPECT_OK(c, "SET", "k", "saved by shutdown");
    freeReplyObject(H_CALL(c, "SHUTDOWN", "SAVE"));
    redisFree(c);
    CHECK(h_wait_exit(&s, START_EXIT_MS) == 0, "SHUTDOWN SAVE exit status");
    CHECK(h_file_size(&s, DUMP) >= 0, "SHUTDOWN SAVE wrote no " DUMP);

    c = h_reopen(&s, H_FLAGS("--save", "3600 1"));
    if (!c)
        return;
    EXPECT_BULK(c, "saved by shutdown", "GET", "k");
    EXPECT_OK(c, "SET", "k", "not saved");
    freeReplyObject(H_CALL(c, "SHUTDOWN", "NOSAVE"));
    redisFree(c);
    CHECK(h_wait_exit(&s, START_EXIT_MS) == 0, "SHUTDOWN NOSAVE exit status");

    c = h_reopen(&s, NULL);
    if (!c)
        return;
    EXPECT_BULK(c, "saved by shutdown", "GET", "k");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* Runs the server in s's dir and expects it to exit non-zero at start. */
static void expect_refuses_start(const struct h_server *s)
{
    char log[600];
    size_t len;
    CHECK(h_exec(s, "refused.log", START_EXIT_MS, H_FLAGS("--port", "0")) == 1,
          "a corrupt snapshot should stop the start");
    h_path_in(s, "refused.log", log, sizeof(log));
    char *text = h_read_file(log, &len);
    CHECK(text && strstr(text, "Bad snapshot file " DUMP " at offset ") != NULL, "log: %s",
          text ? text : "");
    free(text);
}

static void test_corrupt_refuses_start(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    h_fill(c, "k", 100);
    EXPECT_OK(c, "SAVE");
    h_close(&s, c);

    char p[512];
    h_path_in(&s, DUMP, p, sizeof(p));
    FILE *f = fopen(p, "r+b");
    struct stat before, after;
    CHECK(f && fseek(f, 200, SEEK_SET) == 0 && fputc('#', f) != EOF, "corrupting %s", p);
    if (f)
        fclose(f);
    stat(p, &before);
    expect_refuses_start(&s);
    stat(p, &after);
    CHECK(before.st_mtime == after.st_mtime && before.st_size == after.st_size &&
              before.st_ino == after.st_ino,
          "the refused snapshot was touched");
    h_clean_dir(&s);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_save_restart);
    H_RUN(test_lastsave);
    H_RUN(test_bgsave_while_writing);
    H_RUN(test_kill9_during_bgsave);
    H_RUN(test_misconf);
    H_RUN(test_shutdown);
    H_RUN(test_corrupt_refuses_start);
    return h_finish();
}
