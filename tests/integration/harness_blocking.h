/*
 * harness_blocking.h - what the end-to-end tests of blocking commands share
 * (the sorted-set pops and the list pops and moves of test_blocking.c,
 * XREAD BLOCK in test_xstream.c, CLIENT PAUSE in test_monitor.c): one client sends a
 * blocking command without reading its reply, another waits until INFO
 * counts it blocked and does the write that serves it, and the first reads
 * its reply at last.
 *
 * Owns nothing: the connections are the caller's. Like the EXPECT_* of
 * harness.h, a failed expectation is recorded at the caller's file:line
 * (a wait that ran out, at h_wait_blocked's) and the test goes on.
 */
#ifndef RBKV_HARNESS_BLOCKING_H
#define RBKV_HARNESS_BLOCKING_H

#include "harness.h"

/* How long a client may take to show up as blocked in INFO. */
#define H_BLOCK_WAIT_MS (2000 * H_SLOW)

/* Waits until INFO through w counts n blocked clients, for H_BLOCK_WAIT_MS
 * at most (a recorded failure then). */
void h_await_blocked(redisContext *w, long n);

/* Sends argv on c without reading its reply, then waits until w counts n
 * blocked clients: c is the n-th to block. */
void h_block(redisContext *c, redisContext *w, long n, int argc, const char *const *argv);
#define H_BLOCK(c, w, n, ...)                                                                     \
    h_block((c), (w), (n), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__})

/* A new connection to s that sends argv without reading its reply: a
 * client left to block, the caller's to read and free. NULL when it could
 * not connect (a recorded failure). */
redisContext *h_blocked_reader(const struct h_server *s, int argc, const char *const *argv);
#define H_BLOCKED_READER(s, ...)                                                                  \
    h_blocked_reader((s), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__})

/* Expects argv, a blocking command that nothing serves, to answer (nil) no
 * sooner than min_ms and within a second (times H_SLOW): its timeout fired,
 * neither early nor never. Returns 1 when it did. */
int h_expect_timeout(const char *file, int line, redisContext *c, int min_ms, int argc,
                     const char *const *argv);
#define EXPECT_TIMEOUT(c, min_ms, ...)                                                            \
    h_expect_timeout(__FILE__, __LINE__, (c), (min_ms), H_ARGC(__VA_ARGS__),                      \
                     (const char *const[]){__VA_ARGS__})

/* One wait, served: c sends block (one line of words, as h_split reads it)
 * and w sees one client blocked; hold_ms later (when not 0) w still does,
 * so a timeout of 0 waits on; then w sends wake and expects wake_reply, and
 * c's reply is want (replies in h_repr's text form). Returns 1 when all
 * matched. */
int h_expect_served(const char *file, int line, redisContext *c, redisContext *w,
                    const char *block, int hold_ms, const char *wake, const char *wake_reply,
                    const char *want);
#define EXPECT_SERVED(c, w, block, hold_ms, wake, wake_reply, want)                               \
    h_expect_served(__FILE__, __LINE__, (c), (w), (block), (hold_ms), (wake), (wake_reply),       \
                    (want))

#endif
