/*
 * test_diskless_load.c - what a replica serves while it loads its primary's
 * snapshot, by repl-diskless-load, end to end with real processes. The
 * key-load-delay test hook makes the load last seconds.
 *
 * - disabled (Redis's default): the old data is dropped first ("Flushing old
 *   data"), a GET during the load gets -LOADING, INFO says loading:1, then
 *   the new data is served and loading:0. The program runs unchanged against
 *   redis-server (integration_diskless_load_on_redis), which proves it.
 * - swapdb: the old data is served during the load (async_loading:1), then
 *   replaced. rbkv only: Redis 7.0 loads beside the old data only when the
 *   sync continues the replica's own history (the same replication ID), and
 *   from the socket; a fresh REPLICAOF loads as disabled with a backup.
 *
 * Owns: its servers, each started and stopped by one test.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define SYNC_MS (60000 * H_SLOW)
/* 2000 keys at 1 ms each: a load of two seconds at least. */
#define KEYS 2000
#define LOADING "LOADING Redis is loading the dataset in memory"
/* Flags every server here gets: a full sync starts at once. */
#define FAST "--repl-diskless-sync-delay", "0"

/* Starts a primary holding KEYS keys and a replica with mode, holding the
 * key "old"; the replica is not following yet. */
static int start_pair(struct h_server *sp, struct h_server *sr, redisContext **p,
                      redisContext **r, const char *mode)
{
    *p = h_open(sp, H_FLAGS(FAST));
    *r = *p ? h_open(sr, H_FLAGS(FAST, "--repl-diskless-load", mode, "--key-load-delay", "1000"))
            : NULL;
    if (!*r)
        return -1;
    h_fill(*p, "k", KEYS);
    EXPECT_OK(*r, "SET", "old", "1");
    /* Redis serves clients during a load every so many bytes read (2 MB by
     * default, more than this snapshot): every KB here. rbkv's load runs
     * on a thread, and the loop serves meanwhile. */
    if (h_is_reference())
        EXPECT_OK(*r, "CONFIG", "SET", "loading-process-events-interval-bytes", "1024");
    return 0;
}

static void follow(redisContext *r, const struct h_server *sp)
{
    char port[16];
    snprintf(port, sizeof(port), "%d", sp->port);
    EXPECT_OK(r, "REPLICAOF", "127.0.0.1", port);
}

static int link_up(redisContext *r)
{
    char link[32] = "";
    h_info_str(r, "replication", "master_link_status", link, sizeof(link));
    return !strcmp(link, "up");
}

/* After the load: the new data only, and the flags down. */
static void expect_new_data(redisContext *r)
{
    int up = h_wait_info(r, "replication", "master_link_status", "up", SYNC_MS);
    CHECK(up, "the replica's link did not come up");
    if (!up)
        return;
    CHECK(h_info_ll(r, "persistence", "loading") == 0, "loading:0 after the load");
    CHECK(h_info_ll(r, "persistence", "async_loading") == 0, "async_loading:0 after the load");
    EXPECT_NIL(r, "GET", "old");
    EXPECT_BULK(r, "k:1999", "GET", "k:1999");
    EXPECT_INT(r, KEYS, "DBSIZE");
}

static void close_pair(struct h_server *sp, struct h_server *sr, redisContext *p, redisContext *r)
{
    if (r)
        h_close(sr, r);
    if (p)
        h_close(sp, p);
}

static void test_disabled_answers_loading(void)
{
    struct h_server sp, sr;
    redisContext *p, *r;
    if (start_pair(&sp, &sr, &p, &r, "disabled") < 0)
        goto out;
    follow(r, &sp);
    int refused = 0, info_loading = 0, old_seen_after = 0;
    int64_t deadline = h_now_ms() + SYNC_MS;
    while (h_now_ms() < deadline && !link_up(r)) {
        redisReply *g = H_CALL(r, "GET", "old");
        if (!g)
            break;
        if (g->type == REDIS_REPLY_ERROR) {
            CHECK(!strcmp(g->str, LOADING), "the refusal during the load: %s", g->str);
            refused++;
        } else if (refused && g->type == REDIS_REPLY_STRING) {
            old_seen_after = 1; /* the old data back after the refusals */
        }
        freeReplyObject(g);
        if (h_info_ll(r, "persistence", "loading") == 1)
            info_loading = 1;
        h_sleep_ms(5);
    }
    CHECK(refused > 0, "GET was never refused with -LOADING during a load of seconds");
    CHECK(info_loading, "INFO persistence never said loading:1 during the load");
    CHECK(!old_seen_after, "the old data came back after the load started");
    CHECK(h_file_has(&sr, "server.log", "MASTER <-> REPLICA sync: Flushing old data"),
          "the replica logs Redis's words for dropping the old data");
    expect_new_data(r);
out:
    close_pair(&sp, &sr, p, r);
}

static void test_swapdb_serves_old_data(void)
{
    struct h_server sp, sr;
    redisContext *p, *r;
    if (h_is_reference())
        return; /* see the file's comment */
    if (start_pair(&sp, &sr, &p, &r, "swapdb") < 0)
        goto out;
    follow(r, &sp);
    int async_seen = 0, served = 0, wrong = 0;
    int64_t deadline = h_now_ms() + SYNC_MS;
    while (h_now_ms() < deadline && !link_up(r)) {
        int async = h_info_ll(r, "persistence", "async_loading") == 1;
        CHECK(h_info_ll(r, "persistence", "loading") == 0, "loading:0 while swapdb loads");
        redisReply *g = H_CALL(r, "GET", "old");
        if (!g)
            break;
        if (g->type == REDIS_REPLY_STRING && !strcmp(g->str, "1"))
            served += async;
        else if (h_info_ll(r, "persistence", "async_loading") == 1)
            wrong = 1; /* neither the old value nor the load's end */
        freeReplyObject(g);
        if (async && !async_seen) {
            /* What has the no_async_loading flag waits for the end. */
            char port[16];
            snprintf(port, sizeof(port), "%d", sp.port);
            redisReply *e = H_CALL(r, "REPLICAOF", "127.0.0.1", port);
            int refused = e && e->type == REDIS_REPLY_ERROR && !strcmp(e->str, LOADING);
            /* Not refused: only right, were the load over by then. */
            CHECK(refused || (e && e->type != REDIS_REPLY_ERROR &&
                              h_info_ll(r, "persistence", "async_loading") == 0),
                  "REPLICAOF during the load: %s", e && e->str ? e->str : "no error");
            freeReplyObject(e);
        }
        async_seen |= async;
        h_sleep_ms(5);
    }
    CHECK(async_seen, "INFO persistence never said async_loading:1 during a load of seconds");
    CHECK(served > 0, "the old data was not served during the load");
    CHECK(!wrong, "GET old gave something else during the load");
    CHECK(!h_file_has(&sr, "server.log", "Flushing old data"), "swapdb keeps the old data");
    CHECK(h_file_has(&sr, "server.log", "MASTER <-> REPLICA sync: Swapping active DB with loaded DB"),
          "the replica logs Redis's words for the swap");
    expect_new_data(r);
out:
    close_pair(&sp, &sr, p, r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_disabled_answers_loading);
    H_RUN(test_swapdb_serves_old_data);
    return h_finish();
}
