/*
 * harness_blocking.c - the blocking-command helpers of harness_blocking.h,
 * built on the harness's commands and expectations only.
 */
#include "harness_blocking.h"

#include <stdint.h>

/* How far past its timeout a wait may answer: a loaded machine is slow, a
 * hung wait is not. */
#define TIMEOUT_BOUND_MS (1000 * H_SLOW)

void h_await_blocked(redisContext *w, long n)
{
    h_wait_blocked(w, n, H_BLOCK_WAIT_MS);
}

void h_block(redisContext *c, redisContext *w, long n, int argc, const char *const *argv)
{
    h_send(c, argc, argv, NULL);
    h_await_blocked(w, n);
}

redisContext *h_blocked_reader(const struct h_server *s, int argc, const char *const *argv)
{
    redisContext *w = h_connect(s);
    if (w)
        h_send(w, argc, argv, NULL);
    return w;
}

int h_expect_timeout(const char *file, int line, redisContext *c, int min_ms, int argc,
                     const char *const *argv)
{
    int64_t t0 = h_now_ms();
    int ok = h_expect(file, line, c, "(nil)", 0, argc, argv, NULL);
    int64_t took = h_now_ms() - t0;
    char cmd[128];
    return h_check(file, line, took >= min_ms && took < TIMEOUT_BOUND_MS,
                   "%s: its timeout took %lld ms", h_command_text(cmd, sizeof(cmd), argc, argv, NULL),
                   (long long)took) &&
           ok;
}

int h_expect_served(const char *file, int line, redisContext *c, redisContext *w,
                    const char *block, int hold_ms, const char *wake, const char *wake_reply,
                    const char *want)
{
    struct h_line l;
    h_split(block, &l);
    h_block(c, w, 1, l.argc, l.argv);
    if (hold_ms) {
        h_sleep_ms(hold_ms);
        h_await_blocked(w, 1);
    }
    h_split(wake, &l);
    int ok = h_expect(file, line, w, wake_reply, 0, l.argc, l.argv, NULL);
    return h_expect_next(file, line, c, want) && ok;
}
