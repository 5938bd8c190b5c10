/* handoff: BLPOP hand-off latency, the same run against rbkv-server and redis-server.
 *
 *   handoff -p PORT [-H host] [-n rounds]
 *
 * Two connections play ping-pong through two lists, each always blocked on its list when the
 * other pushes to it: A runs "LPUSH b x; BLPOP a 0" and B runs "LPUSH a x; BLPOP b 0", each
 * pipelining its push with its next wait, so every element goes from a push straight to a client
 * already blocked on the list (the server processes a connection's pipelined pair in one event,
 * so the pusher is blocked again before its reply arrives). A round is two hand-offs; its time
 * runs from A's push to B's answering push having been acknowledged.
 * Output, one line of key=value: rounds, handoffs_per_s, and the latency of one round in
 * microseconds (p50, p99, max), from sorted samples.
 *
 * Owns: its two hiredis connections and the samples. Exit status 0, 1 on any unexpected reply.
 */
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Reads one reply of c and checks its type: exits on anything else. */
static void expect(redisContext *c, int type, const char *what)
{
    redisReply *r = NULL;
    if (redisGetReply(c, (void **)&r) != REDIS_OK || !r || r->type != type) {
        fprintf(stderr, "handoff: unexpected reply to %s: %s\n", what,
                r && r->type == REDIS_REPLY_ERROR ? r->str : c->errstr);
        exit(1);
    }
    freeReplyObject(r);
}

/* Sends "LPUSH to x; BLPOP from 0" on c as one write. */
static void push_then_wait(redisContext *c, const char *to, const char *from)
{
    int done = 0;
    redisAppendCommand(c, "LPUSH %s x", to);
    redisAppendCommand(c, "BLPOP %s 0", from);
    while (!done)
        if (redisBufferWrite(c, &done) != REDIS_OK) {
            fprintf(stderr, "handoff: write: %s\n", c->errstr);
            exit(1);
        }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1";
    int port = 0, rounds = 20000, opt;
    while ((opt = getopt(argc, argv, "H:p:n:")) != -1) {
        if (opt == 'H')
            host = optarg;
        else if (opt == 'p')
            port = atoi(optarg);
        else if (opt == 'n')
            rounds = atoi(optarg);
        else
            return 2;
    }
    if (port <= 0 || rounds <= 0) {
        fprintf(stderr, "usage: handoff -p PORT [-H host] [-n rounds]\n");
        return 2;
    }
    redisContext *a = redisConnect(host, port), *b = redisConnect(host, port);
    if (!a || a->err || !b || b->err) {
        fprintf(stderr, "handoff: cannot connect to %s:%d\n", host, port);
        return 2;
    }
    double *lat = malloc(sizeof(*lat) * (size_t)rounds);
    if (!lat)
        return 2;
    redisReply *r = redisCommand(a, "DEL a b");
    freeReplyObject(r);
    /* A waits on a; B (through A's first push) will wait on b. */
    redisAppendCommand(a, "BLPOP a 0");
    int done = 0;
    while (!done)
        redisBufferWrite(a, &done);
    nanosleep(&(struct timespec){0, 10000000}, NULL); /* A is blocked before the first push: only the start needs the wait */
    push_then_wait(b, "a", "b");
    expect(b, REDIS_REPLY_INTEGER, "LPUSH a");
    double t0 = now_us();
    for (int i = 0; i < rounds; i++) {
        double s = now_us();
        expect(a, REDIS_REPLY_ARRAY, "BLPOP a");
        push_then_wait(a, "b", "a");
        expect(a, REDIS_REPLY_INTEGER, "LPUSH b");
        expect(b, REDIS_REPLY_ARRAY, "BLPOP b");
        push_then_wait(b, "a", "b");
        expect(b, REDIS_REPLY_INTEGER, "LPUSH a");
        lat[i] = now_us() - s;
    }
    double secs = (now_us() - t0) / 1e6;
    qsort(lat, (size_t)rounds, sizeof(*lat), cmp_double);
    printf("rounds=%d handoffs_per_s=%.0f p50_us=%.1f p99_us=%.1f max_us=%.1f\n", rounds,
           2.0 * rounds / secs, lat[rounds / 2], lat[(size_t)(rounds * 0.99)], lat[rounds - 1]);
    free(lat);
    redisFree(a); /* A and B are still blocked: closing ends their waits */
    redisFree(b);
    return 0;
}
