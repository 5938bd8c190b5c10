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
 * - CLIENT PAUSE WRITE holds a script that may write, not a no-writes one,
 *   and what may replicate (a script without a shebang, PUBLISH, PFCOUNT).
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

/* What CLIENT PAUSE WRITE holds besides writes: what may replicate (a
 * script that declares no flags, PUBLISH, SPUBLISH, PFCOUNT, even while
 * queued in MULTI), as Redis 7.0's CMD_MAY_REPLICATE; each request with the
 * reply it gets at once (MULTI's) and the last one it gets when the pause
 * ends. */
static const struct {
    const char *request, *reply;
    const char *before;
} held[] = {
    {"*3\r\n$4\r\nEVAL\r\n$14\r\n#!lua\nreturn 1\r\n$1\r\n0\r\n", ":1\r\n", NULL},
    {"*3\r\n$4\r\nEVAL\r\n$8\r\nreturn 1\r\n$1\r\n0\r\n", ":1\r\n", NULL},
    {"*3\r\n$7\r\nEVALSHA\r\n$40\r\ne0e1f9fabfc9d4800c877a703b823ac0578ff8db\r\n$1\r\n0\r\n",
     ":1\r\n", NULL},
    {"*3\r\n$5\r\nFCALL\r\n$2\r\nrd\r\n$1\r\n0\r\n", ":1\r\n", NULL},
    {"*3\r\n$7\r\nPUBLISH\r\n$2\r\nch\r\n$1\r\nm\r\n", ":0\r\n", NULL},
    {"*3\r\n$8\r\nSPUBLISH\r\n$2\r\nch\r\n$1\r\nm\r\n", ":0\r\n", NULL},
    {"*2\r\n$7\r\nPFCOUNT\r\n$3\r\nhll\r\n", ":0\r\n", NULL},
    {"*1\r\n$5\r\nMULTI\r\n*3\r\n$7\r\nPUBLISH\r\n$2\r\nch\r\n$1\r\nm\r\n"
     "*1\r\n$4\r\nEXEC\r\n",
     "*1\r\n:0\r\n", "+OK\r\n"},
};
#define HELD (sizeof(held) / sizeof(held[0]))

/* CLIENT PAUSE WRITE holds what may write or replicate, so a script
 * without no-writes, and lets a no-writes one and EVAL_RO run: on both
 * servers alike. */
static void pause_on(struct h_server *s)
{
    struct h_raw w[HELD];
    size_t opened = 0, len;
    redisContext *c = h_connect(s);
    while (c && opened < HELD && h_raw_open(&w[opened], s) == 0)
        opened++;
    if (!c || opened < HELD)
        goto out;
    EXPECT_BULK(c, "lib", "FUNCTION", "LOAD", "REPLACE", LIB);
    EXPECT_BULK(c, "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "SCRIPT", "LOAD", "return 1");
    EXPECT_OK(c, "CLIENT", "PAUSE", "60000", "WRITE");
    EXPECT_INT(c, 1, "EVAL", NO_WRITES, "0");
    EXPECT_INT(c, 1, "FCALL", "rdnw", "0");
    EXPECT_INT(c, 1, "EVAL_RO", "return 1", "0");
    for (size_t i = 0; i < HELD; i++)
        h_raw_send(&w[i], held[i].request, strlen(held[i].request));
    for (size_t i = 0; i < HELD; i++) {
        /* The first wait gives every request its time to run wrongly. */
        int wait_ms = i == 0 ? 300 : 20;
        if (held[i].before)
            h_raw_expect(__FILE__, __LINE__, &w[i], held[i].before, strlen(held[i].before), 0);
        CHECK(h_raw_read_reply(&w[i], &len, wait_ms) < 0 && w[i].len == 0,
              "ran during CLIENT PAUSE WRITE: %s", held[i].request);
    }
    EXPECT_OK(c, "CLIENT", "UNPAUSE");
    for (size_t i = 0; i < HELD; i++) {
        if (held[i].before) /* MULTI's: the held PUBLISH is queued now */
            RAW_EXPECT(&w[i], "+QUEUED\r\n");
        h_raw_expect(__FILE__, __LINE__, &w[i], held[i].reply, strlen(held[i].reply), 0);
    }
out:
    while (opened > 0)
        h_raw_close(&w[--opened]);
    if (c)
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
