/*
 * test_expiry.c - end-to-end tests of expiry in time: lazy expiry (a key is
 * never returned after its deadline, nor lost before it) and active expiry
 * (a mass of keys with one deadline disappears on its own, while other
 * clients keep being served: their worst PING is printed, not bounded).
 *
 * Times are measured on the client's monotonic clock around each request, so
 * a check only fails when the server is wrong for every possible ordering of
 * the events, never because the machine is slow.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define SHORT_TTL_MS 100
#define SHORT_ROUNDS 5
#define POLL_PAST_MS 300                 /* how long to keep reading after the deadline */
/* Servers keep whole milliseconds of their wall clock and expire a key when
 * now > deadline; our monotonic clock ticks at another phase. Together that
 * is up to 2 ms that no test can attribute. */
#define CLOCK_SLACK_MS 2
#define MASS_KEYS (100000 / H_SLOW)
#define MASS_BATCH 10000                 /* pipelined SETs between reads of their replies */
#define MASS_TTL_S 1
#define MASS_GONE_MS (3000 * H_SLOW)     /* after the deadline, until DBSIZE is 0 */
#define DBSIZE_EVERY_MS 20

static struct h_server srv;

static long long int_reply(redisContext *c, const char *cmd, const char *arg)
{
    redisReply *r = arg ? H_CALL(c, cmd, arg) : H_CALL(c, cmd);
    long long v = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -999;
    freeReplyObject(r);
    return v;
}

/* One key with a 100 ms TTL, read in a tight loop with GET, EXISTS and PTTL
 * from before its deadline until well after it. */
static void short_ttl_round(redisContext *c, int round)
{
    char key[32];
    snprintf(key, sizeof(key), "short:%d", round);
    int64_t before = h_now_ms();
    EXPECT_OK(c, "SET", key, "alive", "PX", "100");
    int64_t after = h_now_ms();
    /* The server's deadline lies in [before, after] + TTL. */
    int64_t earliest = before + SHORT_TTL_MS, latest = after + SHORT_TTL_MS;
    int late_hits = 0, early_misses = 0, reads = 0, live_reads = 0, odd = 0;

    for (int i = 0; h_now_ms() < latest + POLL_PAST_MS; i++) {
        int64_t sent = h_now_ms();
        redisReply *r = i % 3 == 0 ? H_CALL(c, "GET", key)
                        : i % 3 == 1 ? H_CALL(c, "EXISTS", key)
                                     : H_CALL(c, "PTTL", key);
        int64_t received = h_now_ms();
        if (!r) {
            CHECK(0, "connection lost while polling %s", key);
            return;
        }
        int present = i % 3 == 0   ? r->type == REDIS_REPLY_STRING && !strcmp(r->str, "alive")
                      : i % 3 == 1 ? r->type == REDIS_REPLY_INTEGER && r->integer == 1
                                   : r->type == REDIS_REPLY_INTEGER && r->integer >= 0 &&
                                         r->integer <= SHORT_TTL_MS;
        int absent = i % 3 == 0 ? r->type == REDIS_REPLY_NIL
                                : r->type == REDIS_REPLY_INTEGER &&
                                      r->integer == (i % 3 == 1 ? 0 : -2);
        odd += !present && !absent;
        freeReplyObject(r);
        reads++;
        if (sent > latest + CLOCK_SLACK_MS && present)
            late_hits++;
        if (received < earliest - CLOCK_SLACK_MS) {
            live_reads++;
            early_misses += absent;
        }
    }
    printf("   round %d: %d reads, %d before the deadline\n", round, reads, live_reads);
    CHECK(odd == 0, "%s: %d replies were neither the key's nor its absence", key, odd);
    CHECK(late_hits == 0, "%s: %d reads sent after its deadline still found it", key, late_hits);
    CHECK(early_misses == 0, "%s: %d reads answered before its deadline did not find it", key,
          early_misses);
    EXPECT_INT(c, 0, "EXISTS", key);
}

static void test_short_ttl(void)
{
    redisContext *c = h_connect(&srv);
    EXPECT_OK(c, "FLUSHALL");
    for (int round = 0; round < SHORT_ROUNDS; round++)
        short_ttl_round(c, round);
    /* The same through EXPIRE on an existing key, and through SET EX's cousins. */
    EXPECT_OK(c, "SET", "k", "v");
    EXPECT_INT(c, 1, "PEXPIRE", "k", "100");
    EXPECT_OK(c, "PSETEX", "p", "100", "v");
    EXPECT_BULK(c, "v", "GETEX", "k");
    h_sleep_ms(150); /* the test: the 100 ms deadlines pass */
    EXPECT_NIL(c, "GET", "k");
    EXPECT_NIL(c, "GETEX", "p");
    EXPECT_INT(c, 0, "DBSIZE");
    redisFree(c);
}

static void test_mass_expiry(void)
{
    redisContext *c = h_connect(&srv), *pinger = h_connect(&srv);
    EXPECT_OK(c, "FLUSHALL");
    int64_t t0 = h_now_ms();
    int ok = 0;
    for (int base = 0; base < MASS_KEYS; base += MASS_BATCH) {
        int n = MASS_KEYS - base < MASS_BATCH ? MASS_KEYS - base : MASS_BATCH;
        for (int i = 0; i < n; i++) {
            char key[32];
            snprintf(key, sizeof(key), "mass:%d", base + i);
            H_APPEND(c, "SET", key, "value", "EX", "1");
        }
        for (int i = 0; i < n; i++) {
            redisReply *r = h_get_reply(c);
            ok += r && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK");
            freeReplyObject(r);
        }
    }
    int64_t loaded = h_now_ms();
    CHECK(ok == MASS_KEYS, "pipelined SET EX: %d of %d OK", ok, MASS_KEYS);
    printf("   %d keys set in %lld ms\n", MASS_KEYS, (long long)(loaded - t0));
    /* All there, all with a TTL (unless the load itself took a whole second). */
    if (loaded - t0 < MASS_TTL_S * 1000 / 2) {
        EXPECT_INT(c, MASS_KEYS, "DBSIZE");
        char want[128];
        snprintf(want, sizeof(want), "'# Keyspace\\r\\ndb0:keys=%d,expires=%d,avg_ttl=*'",
                 MASS_KEYS, MASS_KEYS);
        EXPECT_MATCH(c, want, "INFO", "keyspace");
    }

    /* Nobody reads the keys: only active expiry can remove them. Meanwhile
     * another client PINGs, and its worst round trip is the stall expiry causes. */
    int64_t deadline = loaded + MASS_TTL_S * 1000, gone_at = 0, next_dbsize = 0;
    int64_t worst_ping = 0, worst_in_burst = 0;
    long long size = -1;
    int pings = 0;
    while (h_now_ms() < deadline + MASS_GONE_MS) {
        int64_t p0 = h_now_ms();
        redisReply *r = H_CALL(pinger, "PING");
        int64_t rtt = h_now_ms() - p0;
        int pong = r && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "PONG");
        freeReplyObject(r);
        if (!pong) {
            CHECK(0, "PING during mass expiry failed");
            break;
        }
        pings++;
        if (rtt > worst_ping)
            worst_ping = rtt;
        if (p0 >= deadline && rtt > worst_in_burst)
            worst_in_burst = rtt;
        if (h_now_ms() >= next_dbsize) {
            size = int_reply(c, "DBSIZE", NULL);
            next_dbsize = h_now_ms() + DBSIZE_EVERY_MS;
            if (size == 0) {
                gone_at = h_now_ms();
                break;
            }
        }
        h_sleep_ms(1);
    }
    printf("   keys gone %lld ms after the deadline; %d PINGs, worst round trip %lld ms "
           "(during expiry %lld ms)\n",
           gone_at ? (long long)(gone_at - deadline) : -1LL, pings, (long long)worst_ping,
           (long long)worst_in_burst);
    CHECK(gone_at != 0, "DBSIZE still %lld %d ms after the deadline", size, MASS_GONE_MS);
    redisReply *r = H_CALL(c, "INFO", "stats");
    char val[32];
    CHECK(r && r->type == REDIS_REPLY_STRING &&
              h_info_field(r->str, "expired_keys", val, sizeof(val)) == 0 &&
              atoll(val) >= MASS_KEYS,
          "INFO stats expired_keys: expected at least %d", MASS_KEYS);
    freeReplyObject(r);
    EXPECT_BULK(c, "# Keyspace\\r\\n", "INFO", "keyspace");
    redisFree(pinger);
    redisFree(c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_short_ttl);
    H_RUN(test_mass_expiry);
    h_stop(&srv);
    return h_finish();
}
