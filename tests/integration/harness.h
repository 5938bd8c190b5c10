/*
 * harness.h - end-to-end test harness: starts the real server binary on a
 * free loopback port, talks to it through hiredis and through raw sockets,
 * and counts expectations.
 *
 * Owns: the server child processes it starts (each in its own temp dir, its
 * output in server.log there), and the pass/fail counters. Knows nothing of
 * the server's code: it only runs the binary, so the same tests can be run
 * against Debian's redis-server to check the tests themselves (the harness
 * then adds --save "" --appendonly no).
 *
 * Every EXPECT_* sends one command and compares the reply's text form (see
 * h_repr) with the expected one; a failure prints file:line, the command, the
 * expected and the actual reply, and the test goes on. A test program ends
 * with `return h_finish();`, which prints "N passed, M failed" and returns the
 * exit status. Servers still running then are killed, and a server's temp dir
 * is kept when anything failed, for its log.
 *
 * Reply text form (h_repr): status +OK, error -ERR text, integer :12,
 * bulk 'text' (', \ and non-printable bytes escaped as \', \\, \r, \n, \t,
 * \xHH), nil (nil), array [a, b, c].
 */
#ifndef RBKV_HARNESS_H
#define RBKV_HARNESS_H

#include <hiredis/hiredis.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

/* Under AddressSanitizer the server is about three times slower: loops scale
 * down and deadlines scale up by this factor. */
#if defined(__SANITIZE_ADDRESS__) /* gcc */
#define H_SLOW_BUILD 3
#elif defined(__has_feature) /* clang */
#if __has_feature(address_sanitizer)
#define H_SLOW_BUILD 3
#endif
#endif
#ifndef H_SLOW_BUILD
#define H_SLOW_BUILD 1
#endif
/* H_SLOW_BUILD times $RBKV_TEST_SLOW (a positive integer, default 1): `make
 * test-valgrind` sets it, as memcheck slows everything ten times or more. A
 * function call, so it cannot size arrays or appear in #if. */
int h_slow(void);
#define H_SLOW (h_slow())

struct h_server {
    pid_t pid;          /* 0 once reaped */
    int port;
    char dir[256];      /* temp dir: the server's cwd and log */
    char log_path[300];
    const char *bin;    /* the binary it runs; NULL for the one under test */
    char config_path[300]; /* its first argument, a config file; "" for none */
};

/* Reads the server binary from argv[1] (or $RBKV_SERVER) and the names of the
 * test functions to run from argv[2...] (all when none); exits with a usage
 * message when there is no binary. $RBKV_SERVER_WRAPPER, when set, is a
 * command line (words split at spaces, no quoting) that every server started
 * by h_start/h_restart runs under, e.g. "valgrind --error-exitcode=99 -q":
 * h_stop's check of exit status 0 then also fails on the wrapper's errors,
 * and h_stop and h_wait_exit fail the test when the server's dir holds a
 * valgrind.<pid>.log (--log-file=valgrind.%p.log) reporting lost memory. */
void h_init(int argc, char **argv);
/* h_init's exit status when the binary is a bare "redis-server" that is not
 * on $PATH and h_reference_required() is 0 (it fails the run otherwise):
 * CTest's SKIP_RETURN_CODE for the *_on_redis tests. */
#define H_SKIP_STATUS 77

/* Prints the summary line, kills servers still running. Returns the exit
 * status of the test program: 0 when nothing failed. */
int h_finish(void);

/* A free loopback port (bound with port 0, then released), or -1. */
int h_free_port(void);
/* Starts the server with extra flags (NULL-terminated, may be NULL) and waits
 * until it answers (any reply to PING, so --requirepass works too). Returns 0,
 * or -1 after recording a failure. */
int h_start(struct h_server *s, const char *const *flags);
/* Starts Debian's redis-server (the first on $PATH) as h_start does, with
 * --save "" --appendonly no, as the reference that a test compares the
 * server's replies with. Returns 0; 1 when there is no redis-server and
 * h_reference_required() is 0 (not a failure: the caller skips the
 * comparison); -1 after recording a failure, which a missing redis-server is
 * when h_reference_required() is 1. */
int h_start_reference(struct h_server *s, const char *const *flags);
/* Whether the comparisons with Redis are mandatory, so that a missing
 * redis-server fails the run instead of skipping them: under CI ($CI=true)
 * or $RBKV_REQUIRE_REFERENCE set and not "0" (the Makefile's test targets
 * set it). A developer without redis-server still gets the skip. */
int h_reference_required(void);
/* The reference beside the server under test: 1 when it runs; 0, having
 * printed why, when there is nothing to compare with (no redis-server while
 * h_reference_required() is 0, or the tests run against redis-server
 * itself) or it failed to start or is required and missing (a recorded
 * failure). */
int h_start_comparison(struct h_server *ref);
/* As h_start, with the config file "server.conf" in s's dir holding text as
 * the server's first argument; h_restart gives it again, as CONFIG REWRITE
 * left it. */
int h_start_config(struct h_server *s, const char *text, const char *const *flags);
/* When set, the binary under test starts with only the port and the test's
 * flags: without the "--enable-debug-command local" every other start gets
 * (rbkv's default, as Redis 7.0's, is no), to see the defaults themselves.
 * A test that sets it clears it after the start. */
extern int h_bare_start;

/* Starts the server again in s's dir, after it stopped (h_stop, SHUTDOWN,
 * SIGKILL and h_wait_exit): files it left there, such as a snapshot, are
 * still there. A new port; otherwise as h_start. */
int h_restart(struct h_server *s, const char *const *flags);
#define H_FLAGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* SIGTERM, then expects exit status 0 within a few seconds; kills it with
 * SIGKILL otherwise. Returns 0 when it exited cleanly. */
int h_stop(struct h_server *s);
/* Waits up to timeout_ms for the server to exit by itself (SHUTDOWN); returns
 * its wait status, or -1 on timeout (the server is then still running). */
int h_wait_exit(struct h_server *s, int timeout_ms);

/* A hiredis connection with a bounded reply timeout, or NULL after recording
 * a failure. The caller frees it with redisFree. */
redisContext *h_connect(const struct h_server *s);

/* h_connect, then FLUSHALL (expected to answer +OK): a test's clean start. */
redisContext *h_connect_flushed(const struct h_server *s);

/* A server of the test's own and a client of it: h_start, then h_connect.
 * Returns the connection, or NULL after recording a failure (a server that
 * started but took no connection is stopped again, its log kept). End with
 * h_close. */
redisContext *h_open(struct h_server *s, const char *const *flags);
/* The same with h_restart: s again in its dir, after it stopped. */
redisContext *h_reopen(struct h_server *s, const char *const *flags);
/* redisFree(c), then h_stop(s); returns h_stop's result. */
int h_close(struct h_server *s, redisContext *c);
/* h_open of two servers of the test's own (a primary and its replica to
 * be, say): returns a's client and sets *bc to b's, or returns NULL after
 * recording a failure, neither left running. End with h_close of each. */
redisContext *h_open_two(struct h_server *a, struct h_server *b, redisContext **bc);
/* h_open for a test of what serving a blocked client does: a second client,
 * *waiter, sends argv (a blocking command, NULL-terminated: H_FLAGS("BZPOPMIN",
 * "k", "5")), and the server is seen counting it blocked. Returns the first
 * client, or NULL after recording a failure. */
redisContext *h_open_blocked(struct h_server *s, const char *const *flags, redisContext **waiter,
                             const char *const *argv);

/* Sends one command and returns its reply (caller frees with
 * freeReplyObject), or NULL when the connection failed. lens NULL means
 * every argument is a NUL-terminated string. */
redisReply *h_command(redisContext *c, int argc, const char *const *argv, const size_t *lens);
#define H_ARGC(...) ((int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)))
#define H_CALL(c, ...) h_command((c), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__}, NULL)
/* Queues a command for pipelining; read the replies with h_get_reply. */
void h_append(redisContext *c, int argc, const char *const *argv, const size_t *lens);
#define H_APPEND(c, ...)                                                                          \
    h_append((c), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__}, NULL)
redisReply *h_get_reply(redisContext *c);
/* Queues a command and writes it out without waiting for its reply (a
 * blocking command, say); read the reply later with h_get_reply. */
void h_send(redisContext *c, int argc, const char *const *argv, const size_t *lens);
#define H_SEND(c, ...) h_send((c), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__}, NULL)

/* The text form of a reply into buf (truncated to cap); returns buf. */
char *h_repr(const redisReply *r, char *buf, size_t cap);
/* The text form (h_repr, up to 4 KB) of the reply to argv sent on c, in a
 * string the caller frees with free(), "(no reply)" when the connection
 * failed: for comparing two replies later. */
char *h_reply_text(redisContext *c, int argc, const char *const *argv);
#define H_REPLY_TEXT(c, ...)                                                                      \
    h_reply_text((c), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__})

/* The command as a failure shows it into buf (truncated to cap): words
 * separated by spaces, long or unprintable ones quoted and cut; returns buf. */
char *h_command_text(char *buf, size_t cap, int argc, const char *const *argv,
                     const size_t *lens);

/* Whether text[0..len) matches pattern, where only '*' is special (any run of
 * bytes, so patterns need no escaping). */
int h_glob(const char *pattern, const char *text, size_t len);

/* The core of every EXPECT: sends argv, compares the reply's text form with
 * want (exactly, or as an h_glob pattern when glob is set). Returns 1 when it
 * matched. */
int h_expect(const char *file, int line, redisContext *c, const char *want, int glob, int argc,
             const char *const *argv, const size_t *lens);
#define H_EXPECT_(c, want, glob, ...)                                                             \
    h_expect(__FILE__, __LINE__, (c), (want), (glob), H_ARGC(__VA_ARGS__),                        \
             (const char *const[]){__VA_ARGS__}, NULL)
#define EXPECT_REPLY(c, want, ...) H_EXPECT_(c, want, 0, __VA_ARGS__)
#define EXPECT_MATCH(c, pattern, ...) H_EXPECT_(c, pattern, 1, __VA_ARGS__)
#define EXPECT_OK(c, ...) H_EXPECT_(c, "+OK", 0, __VA_ARGS__)
#define EXPECT_STATUS(c, status, ...) H_EXPECT_(c, "+" status, 0, __VA_ARGS__)
#define EXPECT_ERR(c, error, ...) H_EXPECT_(c, "-" error, 0, __VA_ARGS__)
#define EXPECT_NIL(c, ...) H_EXPECT_(c, "(nil)", 0, __VA_ARGS__)
/* text: a literal of printable bytes without ' or \ (others: EXPECT_REPLY). */
#define EXPECT_BULK(c, text, ...) H_EXPECT_(c, "'" text "'", 0, __VA_ARGS__)
#define EXPECT_INT(c, n, ...)                                                                     \
    h_expect_int(__FILE__, __LINE__, (c), (n), H_ARGC(__VA_ARGS__),                               \
                 (const char *const[]){__VA_ARGS__})
int h_expect_int(const char *file, int line, redisContext *c, long long want, int argc,
                 const char *const *argv);
/* Reads the reply of a command sent earlier (H_SEND: a blocked one) and
 * expects its text form to be want. Returns 1 when it matched. */
int h_expect_next(const char *file, int line, redisContext *c, const char *want);
#define EXPECT_NEXT(c, want) h_expect_next(__FILE__, __LINE__, (c), (want))
/* MULTI, each of lines[0..n) (words split at spaces) answered +QUEUED, then
 * EXEC, whose reply's text form must be want. Returns 1 when all matched. */
int h_expect_transaction(const char *file, int line, redisContext *c, const char *want,
                         const char *const *lines, size_t n);
#define EXPECT_TRANSACTION(c, want, ...)                                                          \
    h_expect_transaction(__FILE__, __LINE__, (c), (want), (const char *const[]){__VA_ARGS__},     \
                         (size_t)H_ARGC(__VA_ARGS__))
/* How many of a flat reply's elements start, start + step, ... differ from
 * every one before them (the distinct members, fields or values). */
int h_count_distinct(const redisReply *r, size_t start, size_t step);
/* Whether two replies are the same to the byte: type, integer, string bytes
 * and every element in order; not compared through h_repr, which cuts long
 * replies. (The hiredis here reads RESP2 only.) */
int h_reply_equal(const redisReply *a, const redisReply *b);
/* Sends argv to c and, when r is not NULL, to the reference r; expects c to
 * answer, and with r the same reply to the byte (type, bytes, elements in
 * order: a nil and an empty array, an integer and a string differ). Without
 * r the command still runs on c, so a table sets up the same state with or
 * without a reference. Returns 1 when it matched. */
int h_same(const char *file, int line, redisContext *c, redisContext *r, int argc,
           const char *const *argv, const size_t *lens);
#define H_SAME(c, r, ...)                                                                         \
    h_same(__FILE__, __LINE__, (c), (r), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__}, \
           NULL)
/* A command written as one line of words separated by spaces (test
 * tables): h_split fills l and returns l->argc; longer words are cut, and
 * '' is an empty word. */
#define H_LINE_ARGS 32
#define H_LINE_CHARS 64
struct h_line {
    int argc;
    const char *argv[H_LINE_ARGS];
    char words[H_LINE_ARGS][H_LINE_CHARS];
};
int h_split(const char *text, struct h_line *l);
/* Appends one word, printf-style, to l (set l->argc = 0 to start a
 * command): how the random tests build theirs. A word past H_LINE_ARGS is
 * a recorded failure. */
void h_line_add(struct h_line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* h_same for each of lines[0..n), split at spaces. */
void h_same_lines(const char *file, int line, redisContext *c, redisContext *r,
                  const char *const *lines, size_t n);
#define H_SAME_LINES(c, r, lines)                                                                  \
    h_same_lines(__FILE__, __LINE__, (c), (r), (lines), sizeof(lines) / sizeof((lines)[0]))
/* The seed of a random test: $SEED when set (SEED=<n> replays a run), else
 * the clock; printed as "  SEED=<n>" either way. */
uint64_t h_seed(void);
/* CRC-64/Jones, reflected, a bit at a time (independent of the server's
 * table-driven one): the checksum of rbkv's snapshot and of Redis's RDB and
 * DUMP payloads. */
uint64_t h_crc64(const unsigned char *p, size_t n);
/* A flushed client of s, and in *r a flushed client of the reference ref
 * (NULL when ref is NULL: nothing to compare with). End with h_close_pair. */
redisContext *h_connect_pair(const struct h_server *s, const struct h_server *ref,
                             redisContext **r);
void h_close_pair(redisContext *c, redisContext *r);
/* DUMPs key on from and RESTOREs it on to (as key, with ttl in ms, "0":
 * none); returns whether RESTORE said OK (a failure is recorded). */
int h_move_key(redisContext *from, redisContext *to, const char *key, const char *ttl);
/* An integer in [lo, hi]: for TTLs, which a stalled machine may see lower. */
#define EXPECT_INT_RANGE(c, lo, hi, ...)                                                          \
    h_expect_int_range(__FILE__, __LINE__, (c), (lo), (hi), H_ARGC(__VA_ARGS__),                  \
                       (const char *const[]){__VA_ARGS__})
int h_expect_int_range(const char *file, int line, redisContext *c, long long lo, long long hi,
                       int argc, const char *const *argv);

/* Binary-safe arguments: H_S("lit\0eral") keeps embedded NULs, H_B(p, n) is n
 * bytes at p. EXPECT_BIN and H_CALL_BIN take a list of them. */
struct h_arg {
    const char *p;
    size_t len;
};
#define H_S(lit) ((struct h_arg){(lit), sizeof(lit) - 1})
#define H_B(ptr, n) ((struct h_arg){(ptr), (n)})
#define H_NARGS(...) ((int)(sizeof((struct h_arg[]){__VA_ARGS__}) / sizeof(struct h_arg)))
#define EXPECT_BIN(c, want, ...)                                                                  \
    h_expect_bin(__FILE__, __LINE__, (c), (want), H_NARGS(__VA_ARGS__),                           \
                 (const struct h_arg[]){__VA_ARGS__})
#define H_CALL_BIN(c, ...)                                                                        \
    h_command_bin((c), H_NARGS(__VA_ARGS__), (const struct h_arg[]){__VA_ARGS__})
int h_expect_bin(const char *file, int line, redisContext *c, const char *want, int argc,
                 const struct h_arg *args);
redisReply *h_command_bin(redisContext *c, int argc, const struct h_arg *args);

/* A plain assertion; the message is printf-style. Returns cond. */
int h_check(const char *file, int line, int cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define CHECK(cond, ...) h_check(__FILE__, __LINE__, !!(cond), __VA_ARGS__)

/* Runs one test function, announcing it and how long it took; only the
 * functions named after the server binary on the command line, when any are,
 * and none named in $RBKV_TEST_SKIP (names separated by spaces or commas). */
#define H_RUN(fn)                                                                                 \
    do {                                                                                          \
        if (h_begin(#fn)) {                                                                       \
            fn();                                                                                 \
            h_end();                                                                              \
        }                                                                                         \
    } while (0)
int h_begin(const char *name);
void h_end(void);

/* A raw TCP connection, for what hiredis cannot do: RESP3 replies, protocol
 * errors, unread replies. buf holds bytes read but not yet consumed. */
struct h_raw {
    int fd;
    char *buf;
    size_t len, cap;
};
/* Returns 0, or -1 after recording a failure (fd is then -1). */
int h_raw_open(struct h_raw *r, const struct h_server *s);
/* h_raw_open, then HELLO 3 answered with its map: a connection speaking
 * RESP3. Returns 0, or -1 after recording a failure (nothing left open). */
int h_raw_open_resp3(struct h_raw *r, const struct h_server *s);
void h_raw_close(struct h_raw *r);
/* Sends all n bytes. Returns 0, or -1 when the peer is gone (not a failure:
 * callers expect that in some tests). */
int h_raw_send(struct h_raw *r, const void *p, size_t n);
/* Reads one complete RESP2 or RESP3 reply within timeout_ms; *len is its
 * length and the bytes stay at r->buf until h_raw_consume(r, *len). Returns
 * 0, or -1 on timeout, EOF or a malformed reply. */
int h_raw_read_reply(struct h_raw *r, size_t *len, int timeout_ms);
void h_raw_consume(struct h_raw *r, size_t n);
/* Waits for the peer to close. Returns 1 when it closed without sending
 * anything more, 0 when bytes came first, -1 on timeout. */
int h_raw_wait_closed(struct h_raw *r, int timeout_ms);

/* Expects the next reply to be exactly these bytes, or (glob) to match the
 * pattern want. */
int h_raw_expect(const char *file, int line, struct h_raw *r, const char *want, size_t len,
                 int glob);
#define RAW_EXPECT(r, lit) h_raw_expect(__FILE__, __LINE__, (r), (lit), sizeof(lit) - 1, 0)
#define RAW_EXPECT_MATCH(r, pattern) \
    h_raw_expect(__FILE__, __LINE__, (r), (pattern), strlen(pattern), 1)
#define RAW_SEND(r, lit) h_raw_send((r), (lit), sizeof(lit) - 1)
/* Each of lines[0..n) (words split at spaces) in RESP3 (HELLO 3) on a raw
 * connection to s and to the reference ref, both flushed first: the same
 * bytes back, the RESP3 types the hiredis here cannot read. */
void h_same_lines_resp3(const char *file, int line, const struct h_server *s,
                        const struct h_server *ref, const char *const *lines, size_t n);
#define H_SAME_LINES_RESP3(s, ref, lines)                                                          \
    h_same_lines_resp3(__FILE__, __LINE__, (s), (ref), (lines), sizeof(lines) / sizeof((lines)[0]))
/* How long a raw read waits for a reply or a close. */
#define H_RAW_TIMEOUT_MS (2000 * H_SLOW)
/* Expects the server to close the connection with nothing more to say. */
#define RAW_EXPECT_CLOSED(r)                                                                      \
    CHECK(h_raw_wait_closed((r), H_RAW_TIMEOUT_MS) == 1,                                          \
          "expected the server to close the connection")

/* Monotonic milliseconds, and a sleep. */
int64_t h_now_ms(void);
void h_sleep_ms(int ms);
/* The least TTL (seconds) a key given ttl_s seconds at set_ms (h_now_ms)
 * may show now: what a slow run (valgrind, a busy machine, restarts in
 * between) spent since is taken off, so a window never assumes a speed. */
long long h_ttl_floor(long long ttl_s, int64_t set_ms);

/* Copies the value of "name:value" from an INFO text into out (NUL-terminated).
 * Returns 0, or -1 when the field is absent. */
int h_info_field(const char *info, const char *name, char *out, size_t cap);

/* Helpers for tests that restart servers on their files. */
/* "<s->dir>/<name>" into buf. */
void h_path_in(const struct h_server *s, const char *name, char *buf, size_t cap);
/* The whole file at path, malloc'ed with a NUL after its *len bytes; NULL
 * when it cannot be read. */
char *h_read_file(const char *path, size_t *len);
/* Whether the file name in s's dir contains text. */
int h_file_has(const struct h_server *s, const char *name, const char *text);
/* The size of the file name in s's dir, or -1 when there is none. */
long long h_file_size(const struct h_server *s, const char *name);
/* Runs the server binary with args (NULL-terminated; $RBKV_SERVER_WRAPPER is
 * not applied) in s's dir, its output into the file out there, for runs that
 * end by themselves: a refused start, --check-aof. Returns its exit status;
 * -1 when a signal ended it, or when it was still running after timeout_ms
 * and was killed. */
int h_exec(const struct h_server *s, const char *out, int timeout_ms, const char *const *args);
/* Writes "dump.rbkv" into s's dir (made again if h_stop removed it): a snapshot (server/persist/snapshot.h,
 * version 1) of database 0 holding the records, then END and the checksum,
 * so a test can start a server on values before the commands that write
 * them. Returns 0, or -1 when the file cannot be written. */
int h_write_snapshot(const struct h_server *s, const void *records, size_t len);
/* Appends to out (at least 3 + n * 128 bytes free) one HASH record (hash 1;
 * elems: field, value, field, value ...) or SET record (hash 0; elems: the
 * members) without a deadline, n elements, each shorter than 128 bytes, in
 * the order given (the loader wants them increasing). Returns the bytes
 * written. */
size_t h_snapshot_map(unsigned char *out, int hash, const char *key, int n,
                      const char *const *elems);
/* Removes what the server left in its dir (files and empty dirs), then the dir. */
void h_clean_dir(const struct h_server *s);
/* An integer reply's value, or -999 for anything else. */
long long h_int_reply(redisContext *c, int argc, const char *const *argv);
#define H_INT_REPLY(c, ...) h_int_reply((c), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__})
/* SETs prefix:i = prefix:i for i < n, pipelined. */
void h_fill(redisContext *c, const char *prefix, int n);
/* A collection's big keys (test_hash.c, test_zset.c): entries named prefix
 * and five digits, prefix00000 .. , each valued (a hash's value, a sorted
 * set's score) its number. */
struct h_coll {
    const char *add, *del, *scan; /* "HSET" "HDEL" "HSCAN", "ZADD" "ZREM" "ZSCAN" */
    char prefix;                  /* of the entries' names */
    int value_first;              /* the value comes before the name (ZADD's score) */
};
/* Adds entries 0 .. n-1 to key, pipelined. */
void h_coll_fill(redisContext *c, const struct h_coll *t, const char *key, int n);
/* Walks key (h_coll_fill'ed with n entries) by cursor, COUNT 100, while
 * between two calls 50 entries "x<i>" (valued -1) come and 50 older ones go,
 * resizing the table: every numbered entry, present throughout, must come
 * back with its value. Records failures at file:line. Returns how many of
 * them it missed. */
int h_coll_scan_churn(const char *file, int line, redisContext *c, const struct h_coll *t,
                      const char *key, int n);
#define H_COLL_SCAN_CHURN(c, t, key, n)                                                           \
    h_coll_scan_churn(__FILE__, __LINE__, (c), (t), (key), (n))
/* SIGKILL to s and to its fork child, if any, then waits up to timeout_ms for
 * s to be gone: a crash in the middle of a background save. */
void h_kill9_with_child(struct h_server *s, int timeout_ms);
/* The state letter of /proc/<pid>/stat (R, S, T, Z...), or 0 when there is
 * no such process. */
char h_proc_state(long pid);
/* DEBUG DIGEST: 40 hex digits, all zeros for an empty dataset. h_digest
 * puts them into out (H_DIGEST_CHARS + 1 bytes), or "" after recording a
 * failure. */
#define H_DIGEST_CHARS 40
#define H_DIGEST_ZEROS "0000000000000000000000000000000000000000"
void h_digest(redisContext *c, char *out);
/* Waits up to timeout_ms for INFO's blocked_clients to be n. Returns 0, or
 * -1 after a failed CHECK. */
int h_wait_blocked(redisContext *c, long n, int timeout_ms);
/* Waits up to timeout_ms for the BGSAVE under way to end. Returns INFO's
 * rdb_last_bgsave_status then ("ok" or "err", in a static buffer), or
 * "timeout" after a failed CHECK. */
const char *h_wait_bgsave(redisContext *c, int timeout_ms);
/* The pid of pid's first child (a BGSAVE or rewrite child), from /proc, or -1. */
long h_child_of(pid_t pid);

/* Helpers for the hostile-client tests (tests/integration/test_hostile_*.c). */
/* Whether the binary under test is Debian's redis-server (the reference). */
int h_is_reference(void);
/* VmRSS of process pid in KB, from /proc/<pid>/status, or -1. */
long h_rss_kb(pid_t pid);
/* The text of field in INFO section into out (NUL-terminated). Returns 0, or
 * -1 when the reply or the field is missing. */
int h_info_str(redisContext *c, const char *section, const char *field, char *out, size_t cap);
/* A numeric field of INFO section (e.g. "memory", "used_memory"), or -1 when
 * the reply or the field is missing. */
long long h_info_ll(redisContext *c, const char *section, const char *field);
/* Runs lines[0..n) (words split at spaces; the last must be "SET end end")
 * on a flushed client of s with every keyspace event on, then writes into
 * events (cap bytes) each keyevent as "event key;" up to that SET's, and
 * into dirty[i] how much lines[i] changed rdb_changes_since_last_save: a
 * command's events and dirty count, to compare with fixed ones and with the
 * reference's. notify-keyspace-events is "" again afterwards. */
void h_events_and_dirty(const struct h_server *s, const char *const *lines, size_t n,
                        char *events, size_t cap, long long *dirty);
/* Polls INFO section until field reads want, for up to timeout_ms. Returns 1
 * when it got there, 0 (not a recorded failure: callers CHECK) otherwise. */
int h_wait_info(redisContext *c, const char *section, const char *field, const char *want,
                int timeout_ms);
/* Polls INFO clients until connected_clients is n, for up to timeout_ms: the
 * server learns of a close asynchronously. Returns 1 when it got there, 0
 * (not a recorded failure: callers CHECK) otherwise. */
int h_wait_clients(redisContext *c, long n, int timeout_ms);
/* Makes replica (a client of one server) a replica of primary with
 * REPLICAOF 127.0.0.1 <port>, then polls until its link is up, for up to
 * timeout_ms. Returns 1 when it got there, 0 after a failed CHECK. */
int h_replicate(redisContext *replica, const struct h_server *primary, int timeout_ms);
/* Polls INFO replication until replica's slave_repl_offset is primary's
 * master_repl_offset (it applied everything streamed so far), for up to
 * timeout_ms. Returns 1 when it got there, 0 after a failed CHECK. */
int h_wait_caught_up(redisContext *primary, redisContext *replica, int timeout_ms);
/* Polls PING on c until it answers -BUSY, for up to timeout_ms: a script or
 * function sent on another client is running past busy-reply-threshold.
 * Returns 1 when it got there, 0 after a failed CHECK. */
int h_wait_busy(redisContext *c, int timeout_ms);
/* Raises this process's RLIMIT_NOFILE soft limit to at least n, as far as the
 * hard limit allows (a server started later inherits it). Returns the soft
 * limit now in force. */
long h_raise_nofile(long n);

/* Waits up to timeout_ms for pid's first child (a BGSAVE, AOF rewrite or
 * full-sync child) and stops it with SIGSTOP, so a test kills it at a moment
 * of its choosing, mid-work. Returns the child's pid, stopped; -1 when none
 * appeared in time or it had already exited (the test may try again). */
long h_freeze_child(pid_t pid, int timeout_ms);

/* Waits up to timeout_ms for s's server.log to contain text. Returns 1 when
 * it does, 0 (not a recorded failure: callers CHECK) otherwise. */
int h_wait_log(const struct h_server *s, const char *text, int timeout_ms);
/* Whether dir holds a file whose name starts with prefix (a temp file left). */
int h_dir_has_prefix(const char *dir, const char *prefix);
/* SETs prefix:i to size bytes of 'x' for i < n: a dataset a child takes a
 * while over. */
void h_fill_big(redisContext *c, const char *prefix, int n, size_t size);
/* Writes up to n bytes into a new file at path (SIZE_MAX: until the disk is
 * full) and returns how many fit: to fill a small tmpfs. */
size_t h_write_filler(const char *path, size_t n);

#endif
