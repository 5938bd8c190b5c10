/*
 * test_hostile_stall.c - end-to-end tests of clients that are slow on
 * purpose: one that trickles a request a byte at a time, and ones that
 * announce a 1 GB bulk, send a few bytes of it and stop.
 *
 * What must hold: the server's memory stays bounded (RSS grows by a few MB at
 * most: a big bulk's buffer is only address space until bytes arrive), a
 * trickling client is served and not taken for idle while bytes keep coming,
 * and `timeout` closes each stalled client about that many seconds after its
 * last byte, while a bystander is served throughout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define TIMEOUT_S 2
#define TRICKLE_GAP_MS 80         /* the trickler's pace: far below the timeout */
#define STALLERS 5                /* clients that announce 1 GB each */
/* Under ASan a 1 GB malloc holds the loop for seconds (the allocator's own
 * bookkeeping, not the server's), so slow builds announce 100 MB. */
#define STALL_BULK (H_SLOW > 1 ? "100000000" : "1000000000")
/* "A few MB"; under ASan its shadow and allocator metadata add to RSS for
 * the same buffers (9.7 MB seen once for five stallers), and a build that
 * took the announced 100 MB bulks would still pass it fivefold. */
#define RSS_BOUND_KB (8 * 1024 * H_SLOW)
#define CLOSE_EARLIEST_MS (TIMEOUT_S * 1000 - 200)
#define CLOSE_LATEST_MS ((TIMEOUT_S + 2) * 1000 * H_SLOW)

static struct h_server srv; /* --timeout 2, bulks up to 2 GB */

/* Waits for r's close while a bystander keeps being served; returns ms from
 * since to the close, or -1 when it stayed open until CLOSE_LATEST_MS. */
static int64_t close_after(struct h_raw *r, int64_t since, redisContext *bystander)
{
    while (h_now_ms() - since < CLOSE_LATEST_MS) {
        EXPECT_STATUS(bystander, "PONG", "PING");
        int st = h_raw_wait_closed(r, 50);
        if (st == 1)
            return h_now_ms() - since;
        if (st == 0)
            return CHECK(0, "a stalled client got %zu bytes instead of a close", r->len), -1;
    }
    return -1;
}

static void test_trickle(void)
{
    redisContext *c = h_connect_flushed(&srv);
    struct h_raw r;
    if (h_raw_open(&r, &srv) < 0) {
        redisFree(c);
        return;
    }
    long rss0 = h_rss_kb(srv.pid);
    static const char req[] = "*3\r\n$3\r\nSET\r\n$7\r\ntrickle\r\n$5\r\nhello\r\n";
    int64_t t0 = h_now_ms();
    int alive = 1;
    for (size_t i = 0; i < sizeof(req) - 1 && alive; i++) {
        alive = h_raw_send(&r, req + i, 1) == 0 && h_raw_wait_closed(&r, TRICKLE_GAP_MS) != 1;
        if (i % 8 == 0)
            EXPECT_STATUS(c, "PONG", "PING");
    }
    int64_t took = h_now_ms() - t0;
    CHECK(alive, "the trickler was closed after %lld ms though it kept sending",
          (long long)took);
    CHECK(took > TIMEOUT_S * 1000, "the trickle took only %lld ms: not longer than the timeout",
          (long long)took);
    RAW_EXPECT(&r, "+OK\r\n");
    EXPECT_BULK(c, "hello", "GET", "trickle");
    /* Then it goes quiet, and is closed for it. */
    int64_t quiet = h_now_ms();
    int64_t closed = close_after(&r, quiet, c);
    printf("   trickled %zu bytes over %lld ms; closed %lld ms after its last byte; RSS %ld -> "
           "%ld KB\n",
           sizeof(req) - 1, (long long)took, (long long)closed, rss0, h_rss_kb(srv.pid));
    CHECK(closed >= CLOSE_EARLIEST_MS, "closed %lld ms after its last byte (timeout %d s)",
          (long long)closed, TIMEOUT_S);
    h_raw_close(&r);
    redisFree(c);
}

static void test_big_bulk_header_then_silence(void)
{
    redisContext *c = h_connect_flushed(&srv);
    CHECK(h_wait_clients(c, 1, 5000 * H_SLOW), "other clients still connected");
    long rss0 = h_rss_kb(srv.pid);
    struct h_raw r[STALLERS];
    int opened = 0;
    char head[128];
    int hl = snprintf(head, sizeof(head), "*3\r\n$3\r\nSET\r\n$5\r\nstall\r\n$%s\r\nsome bytes",
                      STALL_BULK);
    for (; opened < STALLERS && h_raw_open(&r[opened], &srv) == 0; opened++)
        h_raw_send(&r[opened], head, (size_t)hl);
    int64_t t0 = h_now_ms();
    EXPECT_STATUS(c, "PONG", "PING");
    CHECK(h_wait_clients(c, opened + 1, 5000 * H_SLOW), "the stallers did not all connect");
    long rss1 = h_rss_kb(srv.pid);
    int64_t latest = 0;
    int closed = 0;
    for (int i = 0; i < opened; i++) {
        int64_t ms = close_after(&r[i], t0, c);
        if (ms >= 0) {
            closed++;
            CHECK(ms >= CLOSE_EARLIEST_MS, "a staller was closed after %lld ms (timeout %d s)",
                  (long long)ms, TIMEOUT_S);
            if (ms > latest)
                latest = ms;
        }
        h_raw_close(&r[i]);
    }
    long rss2 = h_rss_kb(srv.pid);
    printf("   %d clients announced %s bytes each: RSS %ld KB before, %ld KB while they waited, "
           "%ld KB after; all closed %lld ms after their last byte\n",
           opened, STALL_BULK, rss0, rss1, rss2, (long long)latest);
    CHECK(closed == opened, "%d of %d stalled clients were closed by the timeout", closed,
          opened);
    CHECK(rss1 - rss0 < RSS_BOUND_KB, "RSS grew by %ld KB for %d stalled 1 GB bulks",
          rss1 - rss0, opened);
    CHECK(h_wait_clients(c, 1, 5000 * H_SLOW), "connected_clients did not come back to 1");
    EXPECT_NIL(c, "GET", "stall");
    redisFree(c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    char timeout[16];
    snprintf(timeout, sizeof(timeout), "%d", TIMEOUT_S);
    if (h_start(&srv, H_FLAGS("--timeout", timeout, "--proto-max-bulk-len", "2gb")) < 0)
        return h_finish();
    H_RUN(test_trickle);
    H_RUN(test_big_bulk_header_then_silence);
    h_stop(&srv);
    return h_finish();
}
