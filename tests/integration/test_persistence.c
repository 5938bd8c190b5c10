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
#include <sys/wait.h>
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

static const char *server_path;

static int file_exists(const struct h_server *s, const char *name)
{
    char p[512];
    struct stat st;
    h_path_in(s, name, p, sizeof(p));
    return stat(p, &st) == 0;
}


static int info_field(redisContext *c, const char *name, char *out, size_t cap)
{
    redisReply *r = H_CALL(c, "INFO", "persistence");
    int rc = r && r->type == REDIS_REPLY_STRING ? h_info_field(r->str, name, out, cap) : -1;
    freeReplyObject(r);
    return rc;
}

/* Waits for the running BGSAVE to end; returns its status ("ok", "err"). */
static const char *wait_bgsave(redisContext *c)
{
    static char status[16];
    char v[16];
    int64_t deadline = h_now_ms() + BGSAVE_WAIT_MS;
    while (h_now_ms() < deadline) {
        if (info_field(c, "rdb_bgsave_in_progress", v, sizeof(v)) == 0 && !strcmp(v, "0") &&
            info_field(c, "rdb_last_bgsave_status", status, sizeof(status)) == 0)
            return status;
        h_sleep_ms(20);
    }
    CHECK(0, "BGSAVE did not finish within %d ms", BGSAVE_WAIT_MS);
    return "timeout";
}

static void test_save_restart(void)
{
    struct h_server s;
    if (h_start(&s, NULL) < 0)
        return;
    redisContext *c = h_connect(&s);
    if (!c)
        return;
    EXPECT_BIN(c, "+OK", H_S("SET"), H_S("bin\0key\xff"), H_S("val\0\r\nue"));
    EXPECT_INT(c, 3, "ZADD", "z", "1.5", "a", "-inf", "b", "2", "c");
    EXPECT_OK(c, "SET", "ttl", "v", "EX", "1000");
    EXPECT_OK(c, "SET", "gone", "v", "PX", "1");
    EXPECT_OK(c, "SELECT", "15");
    EXPECT_OK(c, "SET", "in15", "x");
    EXPECT_OK(c, "SAVE");
    redisFree(c);
    h_stop(&s); /* no save rules: SIGTERM does not save, the SAVE above did */

    if (h_restart(&s, NULL) < 0)
        return;
    c = h_connect(&s);
    if (!c)
        return;
    EXPECT_BIN(c, "'val\\x00\\r\\nue'", H_S("GET"), H_S("bin\0key\xff"));
    EXPECT_REPLY(c, "['b', '-inf', 'a', '1.5', 'c', '2']", "ZRANGE", "z", "0", "-1", "WITHSCORES");
    EXPECT_INT_RANGE(c, 900, 1000, "TTL", "ttl");
    EXPECT_NIL(c, "GET", "gone");
    EXPECT_INT(c, 3, "DBSIZE");
    EXPECT_OK(c, "SELECT", "15");
    EXPECT_BULK(c, "x", "GET", "in15");
    redisFree(c);
    h_stop(&s);
    h_clean_dir(&s);
}

static void test_lastsave(void)
{
    struct h_server s;
    if (h_start(&s, NULL) < 0)
        return;
    redisContext *c = h_connect(&s);
    if (!c)
        return;
    long long before = H_INT_REPLY(c, "LASTSAVE");
    CHECK(before > 1600000000, "LASTSAVE at start: %lld", before);
    h_sleep_ms(1100);
    EXPECT_OK(c, "SAVE");
    long long after = H_INT_REPLY(c, "LASTSAVE");
    CHECK(after > before, "LASTSAVE did not move: %lld then %lld", before, after);
    EXPECT_ERR(c, "ERR syntax error", "BGSAVE", "NOW");
    EXPECT_STATUS(c, "Background saving started", "BGSAVE", "SCHEDULE");
    CHECK(!strcmp(wait_bgsave(c), "ok"), "BGSAVE SCHEDULE status");
    redisFree(c);
    h_stop(&s);
    h_clean_dir(&s);
}

/* The loop serves writes while the child saves; the snapshot holds the keys
 * from before the fork. */
static void test_bgsave_while_writing(void)
{
    struct h_server s;
    if (h_start(&s, NULL) < 0)
        return;
    redisContext *c = h_connect(&s), *w = h_connect(&s);
    if (!c || !w)
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
    CHECK(!strcmp(wait_bgsave(c), "ok"), "BGSAVE status");
    redisFree(c);
    redisFree(w);
    h_stop(&s);

    if (h_restart(&s, NULL) < 0)
        return;
    c = h_connect(&s);
    if (!c)
        return;
    long long n = H_INT_REPLY(c, "DBSIZE");
    CHECK(n >= BG_KEYS && n <= BG_KEYS + BG_WRITES, "DBSIZE after restart: %lld", n);
    EXPECT_BULK(c, "k:0", "GET", "k:0");
    redisFree(c);
    h_stop(&s);
    h_clean_dir(&s);
}

static void test_kill9_during_bgsave(void)
{
    struct h_server s;
    if (h_start(&s, NULL) < 0)
        return;
    redisContext *c = h_connect(&s);
    if (!c)
        return;
    h_fill(c, "old", OLD_KEYS);
    EXPECT_OK(c, "SAVE");
    char *big = malloc(BIG_VALUE);
    memset(big, 'x', BIG_VALUE);
    for (int i = 0; i < BIG_VALUES; i++) {
        char k[32];
        int n = snprintf(k, sizeof(k), "big:%d", i);
        freeReplyObject(H_CALL_BIN(c, H_S("SET"), H_B(k, (size_t)n), H_B(big, BIG_VALUE)));
    }
    free(big);
    EXPECT_STATUS(c, "Background saving started", "BGSAVE");
    long child = h_child_of(s.pid);
    kill(s.pid, SIGKILL);
    if (child > 0)
        kill((pid_t)child, SIGKILL);
    h_wait_exit(&s, 5000);
    redisFree(c);

    if (h_restart(&s, NULL) < 0)
        return;
    c = h_connect(&s);
    if (!c)
        return;
    long long n = H_INT_REPLY(c, "DBSIZE");
    CHECK(n == OLD_KEYS || n == OLD_KEYS + BIG_VALUES, "DBSIZE after kill -9: %lld", n);
    printf("  kill -9 during BGSAVE: restarted with %s snapshot\n",
           n == OLD_KEYS ? "the previous" : "the new (the child had finished)");
    redisFree(c);
    h_stop(&s);
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
    if (h_start(&s, H_FLAGS("--save", "3600 1")) < 0)
        return;
    redisContext *c = h_connect(&s);
    if (!c)
        return;
    EXPECT_OK(c, "SET", "k", "v");
    block_saves(&s, 1);
    EXPECT_ERR(c, "ERR", "SAVE");
    EXPECT_OK(c, "SET", "still", "writable"); /* SAVE failing is not a BGSAVE failure */
    EXPECT_STATUS(c, "Background saving started", "BGSAVE");
    CHECK(!strcmp(wait_bgsave(c), "err"), "BGSAVE into a directory should fail");
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
    CHECK(!strcmp(wait_bgsave(c), "ok"), "BGSAVE after the fix");
    EXPECT_OK(c, "SET", "k", "x");
    redisFree(c);
    h_stop(&s); /* rules set: SIGTERM saves */

    if (h_restart(&s, NULL) < 0)
        return;
    c = h_connect(&s);
    if (!c)
        return;
    EXPECT_BULK(c, "x", "GET", "k");
    redisFree(c);
    h_stop(&s);
    h_clean_dir(&s);
}

static void test_shutdown(void)
{
    struct h_server s;
    if (h_start(&s, NULL) < 0)
        return;
    redisContext *c = h_connect(&s);
    if (!c)
        return;
    EXPECT_OK(c, "SET", "k", "saved by shutdown");
    freeReplyObject(H_CALL(c, "SHUTDOWN", "SAVE"));
    redisFree(c);
    CHECK(h_wait_exit(&s, START_EXIT_MS) == 0, "SHUTDOWN SAVE exit status");
    CHECK(file_exists(&s, DUMP), "SHUTDOWN SAVE wrote no " DUMP);

    if (h_restart(&s, H_FLAGS("--save", "3600 1")) < 0)
        return;
    c = h_connect(&s);
    if (!c)
        return;
    EXPECT_BULK(c, "saved by shutdown", "GET", "k");
    EXPECT_OK(c, "SET", "k", "not saved");
    freeReplyObject(H_CALL(c, "SHUTDOWN", "NOSAVE"));
    redisFree(c);
    CHECK(h_wait_exit(&s, START_EXIT_MS) == 0, "SHUTDOWN NOSAVE exit status");

    if (h_restart(&s, NULL) < 0)
        return;
    c = h_connect(&s);
    if (!c)
        return;
    EXPECT_BULK(c, "saved by shutdown", "GET", "k");
    redisFree(c);
    h_stop(&s);
    h_clean_dir(&s);
}

/* Runs the server in s's dir and expects it to exit non-zero at start. */
static void expect_refuses_start(const struct h_server *s)
{
    char log[600];
    snprintf(log, sizeof(log), "%s/refused.log", s->dir);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(log, "w", stdout) || chdir(s->dir) < 0)
            _exit(127);
        dup2(STDOUT_FILENO, STDERR_FILENO);
        execl(server_path, server_path, "--port", "0", (char *)NULL);
        _exit(127);
    }
    int status = -1;
    int64_t deadline = h_now_ms() + START_EXIT_MS;
    while (waitpid(pid, &status, WNOHANG) == 0 && h_now_ms() < deadline)
        h_sleep_ms(10);
    if (h_now_ms() >= deadline) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1, "a corrupt snapshot should stop the start");
    char text[4096] = "";
    FILE *f = fopen(log, "r");
    if (f) {
        text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
        fclose(f);
    }
    CHECK(strstr(text, "Bad snapshot file " DUMP " at offset ") != NULL, "log: %s", text);
}

static void test_corrupt_refuses_start(void)
{
    struct h_server s;
    if (h_start(&s, NULL) < 0)
        return;
    redisContext *c = h_connect(&s);
    if (!c)
        return;
    h_fill(c, "k", 100);
    EXPECT_OK(c, "SAVE");
    redisFree(c);
    h_stop(&s);

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
    static char path[4096];
    h_init(argc, argv);
    server_path = argc > 1 && realpath(argv[1], path) ? path : getenv("RBKV_SERVER");
    H_RUN(test_save_restart);
    H_RUN(test_lastsave);
    H_RUN(test_bgsave_while_writing);
    H_RUN(test_kill9_during_bgsave);
    H_RUN(test_misconf);
    H_RUN(test_shutdown);
    H_RUN(test_corrupt_refuses_start);
    return h_finish();
}
