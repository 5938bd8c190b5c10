/*
 * test_script_flags.c - what a script's flags do before it runs, compared
 * byte for byte with redis-server 7.0.15 (h_start_comparison): the flags of
 * a #!lua shebang or a function are the request's flags for the
 * dispatcher's refusals, as Redis's getCommandFlags makes them
 * (commands/cmd_script.c's and cmd_function.c's flags_of), then the script's
 * own start refuses what is left (scripting/script.c, Redis's
 * scriptPrepareForRun).
 *
 * - Under min-replicas-to-write short of replicas: a script without
 *   no-writes gets -NOREPLICAS even when it only reads (EVAL, EVALSHA, their
 *   _RO forms, FCALL, FCALL_RO); a script without a shebang is refused at
 *   its first write only.
 * - Over maxmemory: -OOM for what lacks allow-oom and no-writes.
 * - On a read-only replica, and one whose link is down with
 *   replica-serve-stale-data no: -READONLY, -MASTERDOWN by the flags.
 * - The same inside MULTI (refused while queueing, EXECABORT).
 * - CLIENT PAUSE WRITE holds a script that may write, not a no-writes one.
 *
 * Owns: its server and the reference, started in main.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"

static struct h_server srv, ref;
static int have_ref;

#define SHEBANG "#!lua\nreturn 1"
#define NO_WRITES "#!lua flags=no-writes\nreturn 1"
#define LIB                                                                                       \
    "#!lua name=lib\n"                                                                            \
    "redis.register_function('rd', function() return 1 end)\n"                                  \
    "redis.register_function{function_name='rdnw', callback=function() return 1 end, "           \
    "flags={'no-writes'}}\n"                                                                      \
    "redis.register_function{function_name='rdst', callback=function() return 1 end, "           \
    "flags={'no-writes', 'allow-stale'}}\n"

/* The requests every state is tried with. */
static void same_requests(redisContext *c, redisContext *r, const char *sha)
{
    H_SAME(c, r, "EVAL", SHEBANG, "0");
    H_SAME(c, r, "EVAL", NO_WRITES, "0");
    H_SAME(c, r, "EVAL", "#!lua flags=no-writes,allow-oom\nreturn 1", "0");
    H_SAME(c, r, "EVAL", "#!lua flags=allow-oom\nreturn 1", "0");
    H_SAME(c, r, "EVAL", "#!lua flags=allow-stale\nreturn 1", "0");
    H_SAME(c, r, "EVAL", "#!lua flags=no-writes,allow-stale\nreturn 1", "0");
    H_SAME(c, r, "EVAL_RO", SHEBANG, "0");
    H_SAME(c, r, "EVAL_RO", NO_WRITES, "0");
    H_SAME(c, r, "EVALSHA", sha, "0");
    H_SAME(c, r, "EVALSHA_RO", sha, "0");
    H_SAME(c, r, "FCALL", "rd", "0");
    H_SAME(c, r, "FCALL_RO", "rd", "0");
    H_SAME(c, r, "FCALL", "rdnw", "0");
    H_SAME(c, r, "FCALL", "rdst", "0");
    H_SAME(c, r, "EVAL", "return 1", "0");
    H_SAME(c, r, "EVAL", "return redis.call('get', 'a')", "0");
    H_SAME(c, r, "EVAL", "return redis.call('set', 'a', '1')", "0");
    H_SAME(c, r, "EVAL", "return redis.pcall('set', 'a', '1')", "0");
    /* Refused while queueing, as any write. */
    H_SAME(c, r, "MULTI");
    H_SAME(c, r, "EVAL", SHEBANG, "0");
    H_SAME(c, r, "EVAL", NO_WRITES, "0");
    H_SAME(c, r, "FCALL", "rd", "0");
    H_SAME(c, r, "EXEC");
}

/* Each state in turn on both servers, set and undone by the same commands. */
static void test_states(void)
{
    redisContext *r = NULL, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    if (!c)
        return;
    char sha[64] = "", port[16];
    snprintf(port, sizeof(port), "%d", h_free_port());
    H_SAME(c, r, "FUNCTION", "LOAD", "REPLACE", LIB);
    redisReply *s = H_CALL(c, "SCRIPT", "LOAD", SHEBANG);
    if (s && s->type == REDIS_REPLY_STRING)
        snprintf(sha, sizeof(sha), "%s", s->str);
    freeReplyObject(s);
    if (r)
        freeReplyObject(H_CALL(r, "SCRIPT", "LOAD", SHEBANG));

    printf("  min-replicas-to-write 1, no replica\n");
    H_SAME(c, r, "CONFIG", "SET", "min-replicas-to-write", "1");
    same_requests(c, r, sha);
    H_SAME(c, r, "CONFIG", "SET", "min-replicas-to-write", "0");

    printf("  over maxmemory\n");
    H_SAME(c, r, "CONFIG", "SET", "maxmemory", "1");
    same_requests(c, r, sha);
    H_SAME(c, r, "CONFIG", "SET", "maxmemory", "0");

    printf("  a read-only replica, its primary down\n");
    H_SAME(c, r, "REPLICAOF", "127.0.0.1", port);
    same_requests(c, r, sha);

    printf("  and replica-serve-stale-data no\n");
    H_SAME(c, r, "CONFIG", "SET", "replica-serve-stale-data", "no");
    same_requests(c, r, sha);
    H_SAME(c, r, "CONFIG", "SET", "replica-serve-stale-data", "yes");
    H_SAME(c, r, "REPLICAOF", "NO", "ONE");

    printf("  the state changes between MULTI and EXEC\n");
    H_SAME(c, r, "MULTI");
    H_SAME(c, r, "EVAL", SHEBANG, "0");
    H_SAME(c, r, "EVAL", NO_WRITES, "0");
    H_SAME(c, r, "CONFIG", "SET", "min-replicas-to-write", "1");
    H_SAME(c, r, "EXEC");
    H_SAME(c, r, "EVAL", NO_WRITES, "0");
    H_SAME(c, r, "EVAL", SHEBANG, "0");
    H_SAME(c, r, "CONFIG", "SET", "min-replicas-to-write", "0");
    h_close_pair(c, r);
}

/* CLIENT PAUSE WRITE holds what may write, so a script without no-writes,
 * and lets a no-writes one run: on both servers alike. */
static void pause_on(struct h_server *s)
{
    struct h_raw w;
    size_t len;
    redisContext *c = h_connect(s);
    if (!c || h_raw_open(&w, s) < 0) {
        if (c)
            redisFree(c);
        return;
    }
    EXPECT_BULK(c, "lib", "FUNCTION", "LOAD", "REPLACE", LIB);
    EXPECT_OK(c, "CLIENT", "PAUSE", "60000", "WRITE");
    EXPECT_INT(c, 1, "EVAL", NO_WRITES, "0");
    EXPECT_INT(c, 1, "FCALL", "rdnw", "0");
    RAW_SEND(&w, "*3\r\n$4\r\nEVAL\r\n$14\r\n#!lua\nreturn 1\r\n$1\r\n0\r\n");
    CHECK(h_raw_read_reply(&w, &len, 300) < 0 && w.len == 0,
          "a script that may write ran during CLIENT PAUSE WRITE");
    EXPECT_OK(c, "CLIENT", "UNPAUSE");
    RAW_EXPECT(&w, ":1\r\n");
    h_raw_close(&w);
    redisFree(c);
}

static void test_pause(void)
{
    pause_on(&srv);
    if (have_ref)
        pause_on(&ref);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_states);
    H_RUN(test_pause);
    h_stop(&srv);
    if (have_ref)
        h_stop(&ref);
    return h_finish();
}
