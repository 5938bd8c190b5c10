/*
 * test_hiredis_async.c - hiredis's asynchronous API on its libuv adapter
 * (hiredis/adapters/libuv.h) against the real server: what an event-driven C
 * application embedding hiredis does.
 *
 * Owns: one uv loop per test (never the default loop, as an application with
 * a loop of its own would run it), the async contexts on it, and a watchdog
 * timer that stops a loop that would otherwise hang on a missing reply. Knows
 * nothing of the server's code; the harness starts the binary.
 *
 * Every command is queued before the loop runs, so all of them are in flight
 * at once and the server sees one long pipeline split however the kernel
 * splits it. Each callback gets its command's index as privdata and checks
 * that replies arrive in exactly the order sent and carry the right value.
 * Each test ends by asserting that uv_loop_close succeeds: the adapter and
 * the test closed every handle they opened.
 */
#include "harness.h"

#include <hiredis/adapters/libuv.h>
#include <hiredis/async.h>
#include <inttypes.h>
#include <stdio.h>
#include <uv.h>

/* Commands in flight at once in the pipeline test. */
#define PIPELINE_COMMANDS 10000
/* One command in this many is unknown, so error replies are interleaved. */
#define ERROR_EVERY 1000
/* How long a loop may run before the watchdog stops it: the pipeline takes
 * well under a second; this only turns a hang into a failure. */
#define WATCHDOG_MS (20000 * H_SLOW)

static struct h_server srv;

/* State shared by a test's callbacks, reached through ac->data. */
struct run {
    uv_loop_t loop;
    uv_timer_t watchdog;
    redisAsyncContext *ac;
    int connected;    /* connect callback saw REDIS_OK */
    int disconnected; /* disconnect callback ran */
    int disconnect_status;
    long next;        /* index of the reply expected next */
    long total;       /* commands queued */
    long bad;         /* replies out of order or wrong; only the first few are printed */
    int timed_out;
};

static void watchdog_cb(uv_timer_t *t)
{
    struct run *run = t->data;

    run->timed_out = 1;
    /* Disconnecting frees the context and closes the adapter's poll handle,
     * so the loop can still be closed cleanly after a hang. */
    if (run->ac && !run->disconnected)
        redisAsyncFree(run->ac);
    uv_stop(&run->loop);
}

static void connect_cb(const redisAsyncContext *ac, int status)
{
    struct run *run = ac->data;

    run->connected = status == REDIS_OK;
    CHECK(status == REDIS_OK, "async connect failed: %s", ac->errstr);
}

static void disconnect_cb(const redisAsyncContext *ac, int status)
{
    struct run *run = ac->data;

    run->disconnected = 1;
    run->disconnect_status = status;
    run->ac = NULL; /* hiredis frees the context after this callback */
    /* The watchdog is the last handle of ours; the adapter closes its own. */
    uv_close((uv_handle_t *)&run->watchdog, NULL);
}

/* Opens the loop, the watchdog and the async connection. Returns 0, or -1
 * after recording a failure (nothing is left open then). */
static int run_open(struct run *run)
{
    memset(run, 0, sizeof(*run));
    if (!CHECK(uv_loop_init(&run->loop) == 0, "uv_loop_init failed"))
        return -1;
    uv_timer_init(&run->loop, &run->watchdog);
    run->watchdog.data = run;
    run->ac = redisAsyncConnect("127.0.0.1", srv.port);
    if (!CHECK(run->ac && !run->ac->err, "redisAsyncConnect: %s",
               run->ac ? run->ac->errstr : "out of memory") ||
        !CHECK(redisLibuvAttach(run->ac, &run->loop) == REDIS_OK, "redisLibuvAttach failed")) {
        if (run->ac)
            redisAsyncFree(run->ac);
        uv_close((uv_handle_t *)&run->watchdog, NULL);
        uv_run(&run->loop, UV_RUN_DEFAULT);
        uv_loop_close(&run->loop);
        return -1;
    }
    run->ac->data = run;
    redisAsyncSetConnectCallback(run->ac, connect_cb);
    redisAsyncSetDisconnectCallback(run->ac, disconnect_cb);
    return 0;
}

/* Runs the loop until every handle is closed (or the watchdog fires), then
 * checks the ending: a clean disconnect and a loop with no handle left. */
static void run_finish(struct run *run)
{
    uv_timer_start(&run->watchdog, watchdog_cb, WATCHDOG_MS, 0);
    uv_run(&run->loop, UV_RUN_DEFAULT);
    CHECK(!run->timed_out, "the loop was still running after %d ms: %ld of %ld replies came",
          WATCHDOG_MS, run->next, run->total);
    if (run->timed_out) {
        /* Let the handles closed by the watchdog finish closing. */
        if (!uv_is_closing((uv_handle_t *)&run->watchdog))
            uv_close((uv_handle_t *)&run->watchdog, NULL);
        uv_run(&run->loop, UV_RUN_DEFAULT);
    } else {
        CHECK(run->connected, "the connect callback never reported success");
        CHECK(run->disconnected && run->disconnect_status == REDIS_OK,
              "expected a clean disconnect (status %d)", run->disconnect_status);
    }
    CHECK(uv_loop_close(&run->loop) == 0, "uv_loop_close: a handle was left open");
}

/* Records a reply that is out of order or wrong. */
static void bad_reply(struct run *run, long index, const redisReply *r, const char *want)
{
    char got[128];

    if (run->bad++ < 5)
        CHECK(0, "command %ld (reply %ld in arrival order): expected %s, got %s", index, run->next,
              want, r ? h_repr(r, got, sizeof(got)) : "no reply");
}

/* Command i of the pipeline: a rotation of writes and reads whose replies
 * each depend on i, so a reply delivered to the wrong callback is caught. */
static void pipeline_append(redisAsyncContext *ac, redisCallbackFn *fn, long i)
{
    void *priv = (void *)(intptr_t)i;

    if (i % ERROR_EVERY == ERROR_EVERY - 1)
        redisAsyncCommand(ac, fn, priv, "NOSUCHCOMMAND %ld", i);
    else if (i % 4 == 0)
        redisAsyncCommand(ac, fn, priv, "SET pk:%ld v%ld", i, i);
    else if (i % 4 == 1)
        redisAsyncCommand(ac, fn, priv, "GET pk:%ld", i - 1);
    else if (i % 4 == 2)
        redisAsyncCommand(ac, fn, priv, "INCR counter");
    else
        redisAsyncCommand(ac, fn, priv, "ECHO e%ld", i);
}

/* INCRs among the commands before index i. */
static long incrs_before(long i)
{
    long n = 0;

    for (long j = 2; j < i; j += 4)
        if (j % ERROR_EVERY != ERROR_EVERY - 1)
            n++;
    return n;
}

static void pipeline_cb(redisAsyncContext *ac, void *reply, void *privdata)
{
    struct run *run = ac->data;
    const redisReply *r = reply;
    long i = (long)(intptr_t)privdata;
    char want[64];
    int ok;

    if (!r) /* the context is going away: hiredis calls back pending commands with NULL */
        return;
    if (i % ERROR_EVERY == ERROR_EVERY - 1) {
        snprintf(want, sizeof(want), "-ERR unknown command*");
        ok = r->type == REDIS_REPLY_ERROR && h_glob("ERR unknown command*", r->str, r->len);
    } else if (i % 4 == 0) {
        snprintf(want, sizeof(want), "+OK");
        ok = r->type == REDIS_REPLY_STATUS && r->len == 2 && !memcmp(r->str, "OK", 2);
    } else if (i % 4 == 1 || i % 4 == 3) {
        snprintf(want, sizeof(want), "%s%ld", i % 4 == 1 ? "v" : "e", i % 4 == 1 ? i - 1 : i);
        ok = r->type == REDIS_REPLY_STRING && r->len == strlen(want) && !memcmp(r->str, want, r->len);
    } else {
        long long n = incrs_before(i) + 1;
        snprintf(want, sizeof(want), ":%lld", n);
        ok = r->type == REDIS_REPLY_INTEGER && r->integer == n;
    }
    if (i != run->next)
        bad_reply(run, i, r, "the reply of the command sent next");
    else if (!ok)
        bad_reply(run, i, r, want);
    run->next++;
    if (run->next == run->total)
        redisAsyncDisconnect(ac); /* sends nothing more; closes once replies are in */
}

/* 10,000 commands in flight on one connection, queued before the loop
 * starts: replies come in order, each correct, errors in their place. */
static void test_pipeline_in_order(void)
{
    struct run run;
    redisContext *c = h_connect_flushed(&srv);

    if (!c)
        return;
    if (run_open(&run) < 0) {
        redisFree(c);
        return;
    }
    run.total = PIPELINE_COMMANDS;
    for (long i = 0; i < run.total; i++)
        pipeline_append(run.ac, pipeline_cb, i);
    run_finish(&run);
    CHECK(run.next == run.total, "%ld of %ld replies came", run.next, run.total);
    CHECK(run.bad == 0, "%ld replies were out of order or wrong", run.bad);

    /* What the pipeline wrote is what a synchronous client reads. */
    char want[32];
    snprintf(want, sizeof(want), "%ld", incrs_before(PIPELINE_COMMANDS));
    redisReply *r = H_CALL(c, "GET", "counter");
    CHECK(r && r->type == REDIS_REPLY_STRING && !strcmp(r->str, want), "counter: expected %s",
          want);
    freeReplyObject(r);
    redisFree(c);
}

/* Ordered commands, sorted sets and a transaction through the async API:
 * aggregate replies (nested for EXEC) arrive whole and in order. */
static const char *const ordered_cmds[][2] = {
    /* format, expected reply text */
    {"MSET user:1 alice user:2 bob user:10 carol users x order:7 pending", "+OK"},
    {"KRANGE 0 -1", "['order:7', 'user:1', 'user:10', 'user:2', 'users']"},
    {"KRANGE [user: + BYLEX LIMIT 0 2", "['user:1', 'user:10']"},
    {"KPREFIX user: WITHVALUES", "['user:1', 'alice', 'user:10', 'carol', 'user:2', 'bob']"},
    {"KCOUNT PREFIX user:", ":3"},
    {"KRANK user:2", ":3"},
    {"KNEXT user:1 2", "['user:10', 'user:2']"},
    {"ZADD z 2 b 1 a 3 c", ":3"},
    {"ZRANGE z 0 -1 WITHSCORES", "['a', '1', 'b', '2', 'c', '3']"},
    {"MULTI", "+OK"},
    {"KDELRANGE PREFIX order:", "+QUEUED"},
    {"KFIRST", "+QUEUED"},
    {"EXEC", "[:1, ['user:1']]"},
};
#define ORDERED_COUNT ((long)(sizeof(ordered_cmds) / sizeof(ordered_cmds[0])))

static void ordered_cb(redisAsyncContext *ac, void *reply, void *privdata)
{
    struct run *run = ac->data;
    const redisReply *r = reply;
    long i = (long)(intptr_t)privdata;
    char got[256];

    if (!r)
        return;
    if (i != run->next)
        bad_reply(run, i, r, "the reply of the command sent next");
    else if (strcmp(h_repr(r, got, sizeof(got)), ordered_cmds[i][1]) != 0)
        bad_reply(run, i, r, ordered_cmds[i][1]);
    run->next++;
    if (run->next == run->total)
        redisAsyncDisconnect(ac);
}

static void test_ordered_commands(void)
{
    struct run run;
    redisContext *c = h_connect_flushed(&srv);

    if (!c)
        return;
    redisFree(c);
    if (run_open(&run) < 0)
        return;
    run.total = ORDERED_COUNT;
    for (long i = 0; i < run.total; i++)
        redisAsyncCommand(run.ac, ordered_cb, (void *)(intptr_t)i, ordered_cmds[i][0]);
    run_finish(&run);
    CHECK(run.next == run.total, "%ld of %ld replies came", run.next, run.total);
    CHECK(run.bad == 0, "%ld replies were out of order or wrong", run.bad);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_pipeline_in_order);
    H_RUN(test_ordered_commands);
    h_stop(&srv);
    return h_finish();
}
