/*
 * test_child_failure.c - end-to-end tests of a background child killed
 * (kill -9) while its parent lives: the BGSAVE child, the AOF rewrite child
 * and the child that writes a replica's full sync. Each time the parent logs
 * the failure, keeps serving everything it had, leaves its files as they were
 * and succeeds at the next attempt (a replica retries and converges).
 *
 * The child is caught with h_freeze_child (SIGSTOP, so it is surely still at
 * work) and then killed; a child that had already finished is not a kill
 * and the attempt is made again. The BGSAVE case also runs against
 * redis-server when it is installed, which must behave the same.
 *
 * Owns: its servers.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define OLD_KEYS 200
#define BIG_VALUES 24
#define BIG_VALUE (1024 * 1024) /* 24 MB: a child takes a while over it */
#define ATTEMPTS 5
#define CATCH_MS (10000 * H_SLOW)
#define DONE_MS (30000 * H_SLOW)

/* BGSAVE, then the child frozen and killed: returns 1 when a child was
 * killed mid-save, 0 when every attempt found it done already. */
static int kill_bgsave_child(const struct h_server *s, redisContext *c)
{
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        EXPECT_STATUS(c, "Background saving started", "BGSAVE");
        long child = h_freeze_child(s->pid, CATCH_MS);
        if (child > 0) {
            kill((pid_t)child, SIGKILL);
            return 1;
        }
        h_wait_bgsave(c, DONE_MS);
    }
    CHECK(0, "the BGSAVE child finished before it could be killed, %d times", ATTEMPTS);
    return 0;
}

/* One server (rbkv, or redis-server as the reference): the snapshot saved
 * before the kill is still there byte for byte, no temp file is left,
 * INFO says err, the data is served, and the next BGSAVE works. */
static void bgsave_child_killed_on(const struct h_server *s, redisContext *c, const char *dump)
{
    char path[512];
    size_t before_len = 0, after_len = 0;
    h_fill(c, "old", OLD_KEYS);
    EXPECT_OK(c, "SAVE");
    h_path_in(s, dump, path, sizeof(path));
    char *before = h_read_file(path, &before_len);
    CHECK(before && before_len > 0, "%s after SAVE", dump);
    h_fill_big(c, "big", BIG_VALUES, BIG_VALUE);
    if (kill_bgsave_child(s, c)) {
        CHECK(!strcmp(h_wait_bgsave(c, DONE_MS), "err"),
              "rdb_last_bgsave_status after the child was killed");
        CHECK(h_wait_log(s, "Background saving terminated by signal 9", DONE_MS),
              "no log line for the killed BGSAVE child");
    }
    char *after = h_read_file(path, &after_len);
    CHECK(before && after && after_len == before_len && !memcmp(before, after, before_len),
          "%s changed by the killed BGSAVE (%zu -> %zu bytes)", dump, before_len, after_len);
    free(before);
    free(after);
    CHECK(!h_dir_has_prefix(s->dir, "temp-"), "the killed BGSAVE left a temp file in %s", s->dir);
    EXPECT_INT(c, OLD_KEYS + BIG_VALUES, "DBSIZE");
    EXPECT_BULK(c, "old:7", "GET", "old:7");
    EXPECT_INT(c, BIG_VALUE, "STRLEN", "big:3");
    EXPECT_OK(c, "SET", "after", "kill");
    EXPECT_STATUS(c, "Background saving started", "BGSAVE");
    CHECK(!strcmp(h_wait_bgsave(c, DONE_MS), "ok"), "the BGSAVE after the kill");
}

static void test_bgsave_child_killed(void)
{
    struct h_server s, ref;
    /* No save rules, as the reference has: a failed BGSAVE then refuses no
     * write (test_persistence covers MISCONF). */
    redisContext *c = h_open(&s, H_FLAGS("--save", ""));
    if (!c)
        return;
    bgsave_child_killed_on(&s, c, "dump.rbkv");
    h_close(&s, c);

    c = h_reopen(&s, H_FLAGS("--save", ""));
    if (c) {
        EXPECT_INT(c, OLD_KEYS + BIG_VALUES + 1, "DBSIZE");
        EXPECT_BULK(c, "kill", "GET", "after");
        h_close(&s, c);
    }
    h_clean_dir(&s);

    if (!h_start_comparison(&ref))
        return;
    redisContext *r = h_connect(&ref);
    if (r) {
        bgsave_child_killed_on(&ref, r, "dump.rdb");
        redisFree(r);
    }
    h_stop(&ref);
    h_clean_dir(&ref);
}

/* 1 when this process can listen on 127.0.0.1:port (SO_REUSEADDR, as a
 * server sets it: only a socket still listening there refuses the bind). */
static int can_listen(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1, ok;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0)
        return 0;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    ok = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(fd, 1) == 0;
    close(fd);
    return ok;
}

/* A fork child keeps no listening socket: the parent killed while its BGSAVE
 * child is frozen mid-save, the client port and the cluster bus port are
 * free at once, not when the child ends (Redis's
 * closeChildUnusedResourceAfterFork). */
static void test_child_frees_ports(void)
{
    struct h_server s;
    char bus[16];
    int bus_port = h_free_port();
    snprintf(bus, sizeof(bus), "%d", bus_port);
    redisContext *c = h_open(&s, H_FLAGS("--save", "", "--cluster-enabled", "yes",
                                         "--cluster-port", bus));
    if (!c)
        return;
    h_fill_big(c, "{a}big", BIG_VALUES, BIG_VALUE);
    long child = -1;
    for (int attempt = 0; attempt < ATTEMPTS && child <= 0; attempt++) {
        EXPECT_STATUS(c, "Background saving started", "BGSAVE");
        child = h_freeze_child(s.pid, CATCH_MS);
        if (child > 0) {
            /* Frozen perhaps before it closed its copies: it runs on until its
             * temp file has bytes (its long work begun), then stops again. */
            char name[64], path[512];
            struct stat st;
            snprintf(name, sizeof(name), "temp-%ld.rbkv", child);
            h_path_in(&s, name, path, sizeof(path));
            kill((pid_t)child, SIGCONT);
            int64_t deadline = h_now_ms() + CATCH_MS;
            while ((stat(path, &st) != 0 || st.st_size == 0) && h_proc_state(child) != 'Z' &&
                   h_proc_state(child) != 0 && h_now_ms() < deadline)
                h_sleep_ms(1);
            kill((pid_t)child, SIGSTOP);
            char state;
            while ((state = h_proc_state(child)) != 'T' && state != 't' && state != 'Z' &&
                   state != 0 && h_now_ms() < deadline)
                h_sleep_ms(1);
            if (state != 'T' && state != 't')
                child = -1; /* it finished first: try again */
        }
        if (child <= 0)
            h_wait_bgsave(c, DONE_MS);
    }
    redisFree(c);
    CHECK(child > 0, "the BGSAVE child finished before it could be frozen, %d times", ATTEMPTS);
    kill(s.pid, SIGKILL);
    h_wait_exit(&s, DONE_MS);
    if (child > 0) {
        CHECK(can_listen(s.port), "the frozen child still listens on the client port %d",
              s.port);
        CHECK(can_listen(bus_port), "the frozen child still listens on the bus port %d",
              bus_port);
        kill((pid_t)child, SIGKILL);
    }
    h_clean_dir(&s);
}

/* The rewrite child killed: the rewrite fails (logged, INFO err), the log
 * in use goes on taking writes, no temp file is left, the next rewrite
 * works, and a restart finds every write. */
static void test_rewrite_child_killed(void)
{
    const char *const *flags =
        H_FLAGS("--appendonly", "yes", "--appendfsync", "always", "--save", "");
    struct h_server s;
    redisContext *c = h_open(&s, flags);
    if (!c)
        return;
    h_fill(c, "old", OLD_KEYS);
    h_fill_big(c, "big", BIG_VALUES, BIG_VALUE);
    int killed = 0;
    for (int attempt = 0; attempt < ATTEMPTS && !killed; attempt++) {
        EXPECT_STATUS(c, "Background append only file rewriting started", "BGREWRITEAOF");
        long child = h_freeze_child(s.pid, CATCH_MS);
        if (child > 0) {
            kill((pid_t)child, SIGKILL);
            killed = 1;
        }
        CHECK(h_wait_info(c, "persistence", "aof_rewrite_in_progress", "0", DONE_MS),
              "the AOF rewrite did not end");
    }
    CHECK(killed, "the rewrite child finished before it could be killed, %d times", ATTEMPTS);
    if (killed) {
        EXPECT_MATCH(c, "*aof_last_bgrewrite_status:err*", "INFO", "persistence");
        CHECK(h_wait_log(&s, "Background AOF rewrite terminated by signal 9", DONE_MS),
              "no log line for the killed rewrite child");
    }
    CHECK(!h_dir_has_prefix(s.dir, "temp-rewriteaof-"), "the killed rewrite left its temp file");
    EXPECT_OK(c, "SET", "after", "kill");
    EXPECT_INT(c, 1, "DEL", "old:0");
    EXPECT_MATCH(c, "*aof_last_write_status:ok*", "INFO", "persistence");
    h_close(&s, c);

    /* The log as the kill left it, then appended to: everything is there. */
    c = h_reopen(&s, flags);
    if (!c)
        return;
    EXPECT_INT(c, OLD_KEYS + BIG_VALUES, "DBSIZE");
    EXPECT_BULK(c, "kill", "GET", "after");
    EXPECT_NIL(c, "GET", "old:0");
    EXPECT_INT(c, BIG_VALUE, "STRLEN", "big:5");
    EXPECT_STATUS(c, "Background append only file rewriting started", "BGREWRITEAOF");
    CHECK(h_wait_info(c, "persistence", "aof_rewrite_in_progress", "0", DONE_MS),
          "the second AOF rewrite did not end");
    EXPECT_MATCH(c, "*aof_last_bgrewrite_status:ok*", "INFO", "persistence");
    EXPECT_OK(c, "SET", "after", "rewrite");
    h_close(&s, c);

    c = h_reopen(&s, flags);
    if (!c)
        return;
    EXPECT_INT(c, OLD_KEYS + BIG_VALUES, "DBSIZE");
    EXPECT_BULK(c, "rewrite", "GET", "after");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* The child writing a replica's full sync killed: the primary logs it and
 * drops the replica's link, keeps serving, and the replica connects again,
 * gets a new full sync and ends with the same data. */
static void test_sync_child_killed(void)
{
    struct h_server p, r;
    redisContext *pc = h_open(&p, H_FLAGS("--save", ""));
    if (!pc)
        return;
    redisContext *rc = h_open(&r, H_FLAGS("--save", ""));
    if (!rc) {
        h_close(&p, pc);
        return;
    }
    h_fill(pc, "old", OLD_KEYS);
    h_fill_big(pc, "big", BIG_VALUES, BIG_VALUE);
    char port[16];
    snprintf(port, sizeof(port), "%d", p.port);
    EXPECT_OK(rc, "REPLICAOF", "127.0.0.1", port);
    long child = h_freeze_child(p.pid, CATCH_MS);
    CHECK(child > 0, "no full-sync child to kill on the primary");
    if (child > 0) {
        kill((pid_t)child, SIGKILL);
        CHECK(h_wait_log(&p, "lost its full sync: the snapshot child failed", DONE_MS),
              "no log line for the killed full-sync child on the primary");
        CHECK(h_wait_log(&r, "Replication link to 127.0.0.1", DONE_MS),
              "the replica did not log its lost link");
    }
    EXPECT_OK(pc, "SET", "during", "retry");
    EXPECT_INT(pc, OLD_KEYS + BIG_VALUES + 1, "DBSIZE");
    CHECK(h_wait_info(rc, "replication", "master_link_status", "up", DONE_MS),
          "the replica did not sync again after the child was killed");
    EXPECT_OK(pc, "SET", "after", "sync");
    char offset[32] = "";
    h_info_str(pc, "replication", "master_repl_offset", offset, sizeof(offset));
    CHECK(h_wait_info(rc, "replication", "master_repl_offset", offset, DONE_MS),
          "the replica did not catch up to offset %s", offset);
    char pd[H_DIGEST_CHARS + 1], rd[H_DIGEST_CHARS + 1];
    h_digest(pc, pd);
    h_digest(rc, rd);
    CHECK(!strcmp(pd, rd), "digests differ after the retried sync: %s, %s", pd, rd);
    EXPECT_BULK(rc, "sync", "GET", "after");
    EXPECT_BULK(rc, "retry", "GET", "during");
    CHECK(!h_dir_has_prefix(r.dir, "temp-repl-"), "the replica left its temp file");
    h_close(&r, rc);
    h_close(&p, pc);
    h_clean_dir(&r);
    h_clean_dir(&p);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_bgsave_child_killed);
    H_RUN(test_child_frees_ports);
    H_RUN(test_rewrite_child_killed);
    H_RUN(test_sync_child_killed);
    return h_finish();
}
