/*
 * bench_resp.c - request parsing throughput: proto/resp_parser against
 * hiredis's reader on the same bytes.
 *
 * One buffer holds N pipelined "SET key:NNNNNNNN <16-byte value>" requests as
 * multibulk arrays (what redis-benchmark and every client send). Each parser
 * gets it in pieces of READ bytes, as socket reads would deliver it, and is
 * drained after each piece:
 *   rbkv:    resp_parser_feed (reserve + memcpy + commit), then
 *            resp_parser_next until RESP_AGAIN;
 *   hiredis: redisReaderFeed, then redisReaderGetReply until no reply (the same
 *            grammar: arrays of bulk strings), freeing each reply.
 * Both copy each piece once into their own buffer. The best of RUNS runs is
 * reported, and every run checks the request count and the argument bytes, so
 * neither side can skip work.
 * usage: bench_resp [requests=1000000] [read=16384] [runs=5]
 */
#include <hiredis/hiredis.h>
#include <hiredis/read.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "resp_parser.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *build(long n, size_t *len)
{
    /* "*3\r\n$3\r\nSET\r\n$12\r\nkey:NNNNNNNN\r\n$16\r\n<16 bytes>\r\n" is 55 bytes. */
    char *buf = malloc((size_t)n * 64), *p = buf;

    if (buf == NULL)
        exit(1);
    for (long i = 0; i < n; i++)
        p += sprintf(p, "*3\r\n$3\r\nSET\r\n$12\r\nkey:%08ld\r\n$16\r\nvalue-%010ld\r\n", i % 100000000, i);
    *len = (size_t)(p - buf);
    return buf;
}

/* Returns requests parsed; *bytes gets the sum of argument lengths. */
static long run_rbkv(const char *in, size_t len, size_t read, size_t *bytes)
{
    struct resp_parser p;
    struct resp_request req;
    long count = 0;
    size_t sum = 0;

    resp_parser_init(&p, NULL);
    for (size_t off = 0; off < len;) {
        size_t n = len - off < read ? len - off : read;
        if (resp_parser_feed(&p, in + off, n) != 0)
            exit(1);
        off += n;
        while (resp_parser_next(&p, &req) == RESP_REQUEST) {
            for (int i = 0; i < req.argc; i++)
                sum += req.argv[i].len;
            count++;
        }
    }
    resp_parser_destroy(&p);
    *bytes = sum;
    return count;
}

static long run_hiredis(const char *in, size_t len, size_t read, size_t *bytes)
{
    redisReader *r = redisReaderCreate();
    long count = 0;
    size_t sum = 0;

    for (size_t off = 0; off < len;) {
        size_t n = len - off < read ? len - off : read;
        void *reply;
        if (redisReaderFeed(r, in + off, n) != REDIS_OK)
            exit(1);
        off += n;
        while (redisReaderGetReply(r, &reply) == REDIS_OK && reply != NULL) {
            redisReply *rep = reply;
            for (size_t i = 0; i < rep->elements; i++)
                sum += (size_t)rep->element[i]->len;
            count++;
            freeReplyObject(reply);
        }
    }
    redisReaderFree(r);
    *bytes = sum;
    return count;
}

typedef long (*runner)(const char *, size_t, size_t, size_t *);

/* Best time of `runs`; exits if a run parses anything else than expected. */
static double best(runner f, const char *in, size_t len, size_t read, int runs, long n)
{
    double t = 1e30;
    for (int i = 0; i < runs; i++) {
        size_t bytes;
        double t0 = now();
        long got = f(in, len, read, &bytes);
        double dt = now() - t0;
        if (got != n || bytes != (size_t)n * (3 + 12 + 16)) {
            fprintf(stderr, "bench_resp: parsed %ld requests / %zu bytes, expected %ld\n", got, bytes, n);
            exit(1);
        }
        if (dt < t)
            t = dt;
    }
    return t;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    size_t read = argc > 2 ? (size_t)atol(argv[2]) : 16384;
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    size_t len;
    char *in;
    double ours, theirs;

    if (n <= 0 || read == 0 || runs <= 0) {
        fprintf(stderr, "usage: bench_resp [requests] [read] [runs]\n");
        return 2;
    }
    in = build(n, &len);
    ours = best(run_rbkv, in, len, read, runs, n);
    theirs = best(run_hiredis, in, len, read, runs, n);
    printf("%ld pipelined SET requests, %.1f MB, read size %zu, best of %d runs\n", n, (double)len / 1e6,
           read, runs);
    printf("%-22s %10s %14s\n", "parser", "MB/s", "requests/s");
    printf("%-22s %10.0f %14.0f\n", "rbkv resp_parser", (double)len / 1e6 / ours, (double)n / ours);
    printf("%-22s %10.0f %14.0f\n", "hiredis redisReader", (double)len / 1e6 / theirs, (double)n / theirs);
    printf("ratio: %.2fx hiredis\n", theirs / ours);
    free(in);
    return 0;
}
