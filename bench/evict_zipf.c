/*
 * evict_zipf.c - the cache workload of bench/evict_vs_redis.sh: GET a key
 * drawn from a Zipf distribution, and SET it when the GET missed, against a
 * server with a memory cap, counting hits.
 *
 * usage: evict_zipf PORT KEYS OPS [ALPHA] [VALUE_BYTES] [SEED] [PIPELINE]
 *   KEYS the universe (key:00000000 ...), OPS the GETs, ALPHA the Zipf
 *   exponent (0.99), VALUE_BYTES of every SET (100), SEED of the key
 *   sequence (1), PIPELINE GETs in flight (64).
 * Prints one line: "gets G hits H hit_rate R warm_hit_rate W seconds S",
 * warm_hit_rate over the second half of the GETs, when the cache is full.
 *
 * The same arguments give the same key sequence whatever the server, so two
 * servers are compared on identical requests. Popularity ranks are spread
 * over the key names by a multiplicative permutation, so the hot keys are
 * not neighbours in key order. Owns its hiredis context and the CDF table.
 */
#include <hiredis/hiredis.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state;

/* splitmix64: a reproducible sequence from the seed. */
static uint64_t next_random(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* cdf[i] = P(rank <= i) for ranks 0..n-1 with weight 1/(i+1)^alpha. */
static double *zipf_cdf(size_t n, double alpha)
{
    double *cdf = malloc(n * sizeof(*cdf)), sum = 0;
    if (!cdf)
        return NULL;
    for (size_t i = 0; i < n; i++)
        cdf[i] = (sum += 1.0 / pow((double)(i + 1), alpha));
    for (size_t i = 0; i < n; i++)
        cdf[i] /= sum;
    return cdf;
}

static size_t zipf_draw(const double *cdf, size_t n)
{
    double u = (double)(next_random() >> 11) * 0x1p-53;
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A bijection of [0, n) when gcd(step, n) = 1: rank -> key number. */
static size_t spread(size_t rank, size_t n)
{
    const uint64_t step = 2654435761u;
    return (size_t)(((uint64_t)rank * step + 12345) % n);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr,
                "usage: evict_zipf PORT KEYS OPS [ALPHA] [VALUE_BYTES] [SEED] [PIPELINE]\n");
        return 2;
    }
    int port = atoi(argv[1]);
    size_t keys = strtoull(argv[2], NULL, 10), ops = strtoull(argv[3], NULL, 10);
    double alpha = argc > 4 ? atof(argv[4]) : 0.99;
    size_t vlen = argc > 5 ? strtoull(argv[5], NULL, 10) : 100;
    rng_state = argc > 6 ? strtoull(argv[6], NULL, 10) : 1;
    size_t pipeline = argc > 7 ? strtoull(argv[7], NULL, 10) : 64;
    if (keys == 0 || keys % 2654435761u == 0 || pipeline == 0) {
        fprintf(stderr, "evict_zipf: bad KEYS or PIPELINE\n");
        return 2;
    }
    double *cdf = zipf_cdf(keys, alpha);
    char *value = malloc(vlen + 1);
    size_t *batch = malloc(pipeline * sizeof(*batch));
    char (*names)[32] = malloc(pipeline * sizeof(*names));
    redisContext *c = redisConnect("127.0.0.1", port);
    if (!cdf || !value || !batch || !names || !c || c->err) {
        fprintf(stderr, "evict_zipf: %s\n", c && c->err ? c->errstr : "out of memory");
        return 1;
    }
    memset(value, 'v', vlen);
    value[vlen] = '\0';

    size_t hits = 0, warm_hits = 0, warm_gets = 0, done = 0;
    double start = now_s();
    while (done < ops) {
        size_t n = ops - done < pipeline ? ops - done : pipeline;
        for (size_t i = 0; i < n; i++) {
            batch[i] = spread(zipf_draw(cdf, keys), keys);
            snprintf(names[i], sizeof(names[i]), "key:%08zu", batch[i]);
            redisAppendCommand(c, "GET %s", names[i]);
        }
        size_t misses = 0;
        for (size_t i = 0; i < n; i++) {
            redisReply *r = NULL;
            if (redisGetReply(c, (void **)&r) != REDIS_OK || !r) {
                fprintf(stderr, "evict_zipf: %s\n", c->errstr);
                return 1;
            }
            int hit = r->type == REDIS_REPLY_STRING;
            freeReplyObject(r);
            hits += (size_t)hit;
            if (done + i >= ops / 2) {
                warm_gets++;
                warm_hits += (size_t)hit;
            }
            if (!hit) {
                redisAppendCommand(c, "SET %s %b", names[i], value, vlen);
                misses++;
            }
        }
        for (size_t i = 0; i < misses; i++) {
            redisReply *r = NULL;
            if (redisGetReply(c, (void **)&r) != REDIS_OK || !r) {
                fprintf(stderr, "evict_zipf: %s\n", c->errstr);
                return 1;
            }
            if (r->type == REDIS_REPLY_ERROR) {
                fprintf(stderr, "evict_zipf: SET: %s\n", r->str);
                return 1;
            }
            freeReplyObject(r);
        }
        done += n;
    }
    printf("gets %zu hits %zu hit_rate %.4f warm_hit_rate %.4f seconds %.2f\n", ops, hits,
           (double)hits / (double)ops, warm_gets ? (double)warm_hits / (double)warm_gets : 0.0,
           now_s() - start);
    redisFree(c);
    free(names);
    free(batch);
    free(value);
    free(cdf);
    return 0;
}
