/*
 * test_hostile_protocol.c - end-to-end tests of broken and hostile request
 * streams: malformed RESP of every kind, lengths that are too big, negative or
 * not numbers, bad inline quoting, NUL bytes and binary keys, streams fed
 * whole and byte by byte, and the limits before AUTH.
 *
 * For every bad stream the offending connection gets Redis 7's exact error and
 * is closed, and a bystander connection, left in the middle of a request of
 * its own, sees nothing and is served on. The cases test_connection.c already
 * has (*abc, *2147483648, $-5, $abc, the 64 KB lines, ...) are not repeated.
 *
 * Runs against redis-server too (argv[1] = redis-server); the few cases where
 * rbkv deliberately differs are marked and skipped there.
 */
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define BYSTANDER_QUIET_MS 50 /* how long the bystander must stay silent */
#define TRICKLE_GAP_MS 1      /* between two bytes fed one at a time */

static struct h_server srv;

struct bad_stream {
    const char *name;
    const char *bytes;
    size_t len;
    const char *before; /* replies to good requests ahead of the bad one, or NULL */
    const char *error;  /* the whole error reply */
    int rbkv_only;      /* rbkv deliberately differs from Redis here */
};
#define BAD(name, lit, before, error) {name, lit, sizeof(lit) - 1, before, error, 0}
#define BAD_RBKV(name, lit, before, error) {name, lit, sizeof(lit) - 1, before, error, 1}

#define E_MBULK "-ERR Protocol error: invalid multibulk length\r\n"
#define E_BULK "-ERR Protocol error: invalid bulk length\r\n"
#define E_QUOTES "-ERR Protocol error: unbalanced quotes in request\r\n"

static const struct bad_stream bad_streams[] = {
    BAD("count 99999999999", "*99999999999\r\n", NULL, E_MBULK),
    BAD("count 9223372036854775808", "*9223372036854775808\r\n", NULL, E_MBULK),
    BAD("count with a leading zero", "*01\r\n$4\r\nPING\r\n", NULL, E_MBULK),
    BAD("count with a plus sign", "*+1\r\n$4\r\nPING\r\n", NULL, E_MBULK),
    BAD("count followed by a space", "*1 \r\n$4\r\nPING\r\n", NULL, E_MBULK),
    BAD("empty count", "*\r\n", NULL, E_MBULK),
    BAD("fractional count", "*1.5\r\n", NULL, E_MBULK),
    BAD("bulk length 99999999999", "*1\r\n$99999999999\r\n", NULL, E_BULK),
    BAD("bulk length 2147483648", "*1\r\n$2147483648\r\n", NULL, E_BULK),
    BAD("bulk length 536870913 (over proto-max-bulk-len)", "*2\r\n$3\r\nGET\r\n$536870913\r\n",
        NULL, E_BULK),
    BAD("a 1 GB bulk (over proto-max-bulk-len)", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1000000000\r\n",
        NULL, E_BULK),
    BAD("bulk length -1 (a null is no argument)", "*1\r\n$-1\r\n", NULL, E_BULK),
    BAD("bulk length with a leading zero", "*1\r\n$04\r\nPING\r\n", NULL, E_BULK),
    BAD("bulk length with a plus sign", "*1\r\n$+4\r\nPING\r\n", NULL, E_BULK),
    BAD("bulk length followed by a space", "*1\r\n$4 \r\nPING\r\n", NULL, E_BULK),
    BAD("empty bulk length", "*1\r\n$\r\n", NULL, E_BULK),
    BAD("fractional bulk length", "*1\r\n$1.5\r\n", NULL, E_BULK),
    BAD("integer where a bulk belongs", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n:5\r\n", NULL,
        "-ERR Protocol error: expected '$', got ':'\r\n"),
    BAD("letter where a bulk belongs", "*2\r\n$3\r\nSET\r\nx\r\n", NULL,
        "-ERR Protocol error: expected '$', got 'x'\r\n"),
    BAD("nested array", "*2\r\n$4\r\nECHO\r\n*1\r\n$1\r\na\r\n", NULL,
        "-ERR Protocol error: expected '$', got '*'\r\n"),
    BAD("empty line where a bulk belongs (CR shows as a space)", "*2\r\n$4\r\nECHO\r\n\r\n",
        NULL, "-ERR Protocol error: expected '$', got ' '\r\n"),
    BAD("closing double quote followed by a letter", "ECHO \"a\"b\r\n", NULL, E_QUOTES),
    BAD("single quote never closed", "ECHO 'abc\r\n", NULL, E_QUOTES),
    BAD("double quote never closed", "ECHO \"abc\r\n", NULL, E_QUOTES),
    BAD("escaped closing quote", "ECHO \"a\\\"\r\n", NULL, E_QUOTES),
    BAD("good pipelined requests, then a bad one",
        "*1\r\n$4\r\nPING\r\nECHO x\r\n*2\r\n$4\r\nECHO\r\n$-9\r\nPING\r\n",
        "+PONG\r\n$1\r\nx\r\n", E_BULK),
    /* Redis looks for the end of a header line with strchr(), which stops at
     * a NUL, so it waits for 64 KB and then fails; rbkv sees the line. */
    BAD_RBKV("NUL where a bulk belongs", "*2\r\n$4\r\nECHO\r\n\0\r\n", NULL,
             "-ERR Protocol error: expected '$', got '\r\n"),
    BAD_RBKV("NUL inside a count", "*1\0\r\n$4\r\nPING\r\n", NULL, E_MBULK),
    BAD_RBKV("NUL inside a bulk length", "*1\r\n$4\0\r\nPING\r\n", NULL, E_BULK),
};

/* Whether the server closed r (bytes before the close may still be unread). */
static int raw_peer_closed(const struct h_raw *r)
{
    struct pollfd pfd = {.fd = r->fd, .events = POLLRDHUP};
    return poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* Sends n bytes one at a time, stopping early once the server closed the
 * connection (after an error; bytes sent then would only reset it). */
static void trickle(struct h_raw *r, const char *p, size_t n)
{
    for (size_t i = 0; i < n && !raw_peer_closed(r); i++) {
        if (h_raw_send(r, p + i, 1) < 0)
            return;
        h_sleep_ms(TRICKLE_GAP_MS);
    }
}

/* A bystander connection in the middle of an ECHO of its own. */
static int bystander_open(struct h_raw *b)
{
    if (h_raw_open(b, &srv) < 0)
        return -1;
    RAW_SEND(b, "*2\r\n$4\r\nECHO\r\n$11\r\nhello");
    return 0;
}

/* The bystander heard nothing while another connection failed, then finishes
 * its request and gets exactly its reply. */
static void bystander_check(struct h_raw *b, const char *after)
{
    CHECK(h_raw_wait_closed(b, BYSTANDER_QUIET_MS) == -1,
          "the bystander got %zu bytes or a close after %s", b->len, after);
    RAW_SEND(b, " world\r\n");
    RAW_EXPECT(b, "$11\r\nhello world\r\n");
    RAW_SEND(b, "*2\r\n$4\r\nECHO\r\n$11\r\nhello");
}

/* Expects the next replies, however many frames, to be exactly want. */
static int raw_expect_bytes(struct h_raw *r, const char *want, const char *what)
{
    size_t len = strlen(want), got = 0, n;
    char seen[512];
    while (got < len && h_raw_read_reply(r, &n, H_RAW_TIMEOUT_MS) == 0) {
        size_t keep = got + n <= sizeof(seen) ? n : got < sizeof(seen) ? sizeof(seen) - got : 0;
        memcpy(seen + got, r->buf, keep);
        got += n;
        h_raw_consume(r, n);
    }
    return CHECK(got == len && memcmp(seen, want, len) == 0,
                 "%s: got %zu bytes (%.*s), not the %zu expected", what, got,
                 (int)(got < sizeof(seen) ? got : sizeof(seen)), seen, len);
}

static void expect_bad_stream(const struct bad_stream *bs, int byte_by_byte, struct h_raw *b)
{
    struct h_raw r;
    if (h_raw_open(&r, &srv) < 0)
        return;
    if (byte_by_byte)
        trickle(&r, bs->bytes, bs->len);
    else
        h_raw_send(&r, bs->bytes, bs->len);
    if (bs->before)
        raw_expect_bytes(&r, bs->before, bs->name);
    if (!h_raw_expect(__FILE__, __LINE__, &r, bs->error, strlen(bs->error), 0))
        fprintf(stderr, "    in case: %s%s\n", bs->name, byte_by_byte ? " (byte by byte)" : "");
    else if (h_raw_wait_closed(&r, H_RAW_TIMEOUT_MS) != 1)
        CHECK(0, "case %s: the connection was not closed after the error", bs->name);
    h_raw_close(&r);
    bystander_check(b, bs->name);
}

static void test_bad_streams(void)
{
    struct h_raw b;
    if (bystander_open(&b) < 0)
        return;
    for (size_t i = 0; i < sizeof(bad_streams) / sizeof(bad_streams[0]); i++) {
        const struct bad_stream *bs = &bad_streams[i];
        if (bs->rbkv_only && h_is_reference())
            continue;
        printf("   %s\n", bs->name);
        expect_bad_stream(bs, 0, &b);
        expect_bad_stream(bs, 1, &b);
    }
    /* Nothing a bad stream tried was run: "SET k 5" never completed. */
    redisContext *c = h_connect(&srv);
    EXPECT_INT(c, 0, "EXISTS", "k");
    redisFree(c);
    h_raw_close(&b);
}

/* What looks odd but is no error, as in Redis: skipped counts, stray
 * prefixes read as inline commands, bytes after a payload skipped unchecked. */
static void test_odd_but_valid(void)
{
    static const struct {
        const char *name, *bytes, *replies;
    } cases[] = {
        {"counts 0 and below are skipped", "*-1\r\n*0\r\n*-99\r\n*-2147483649\r\nPING\r\n",
         "+PONG\r\n"},
        {"empty lines are skipped", "\r\n\n \r\nPING\r\n", "+PONG\r\n"},
        {"a bulk header outside a multibulk is an inline command",
         "$4\r\nPING\r\n", "-ERR unknown command '$4', with args beginning with: \r\n+PONG\r\n"},
        {"a status line is an inline command", "+PING\r\n",
         "-ERR unknown command '+PING', with args beginning with: \r\n"},
        {"the two bytes after a payload are not checked", "*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n",
         "+PONG\r\n+PONG\r\n"},
        {"the byte after a header's CR is not checked", "*1\r\n$4\r\nPING\rX", "+PONG\r\n"},
        {"an empty command name", "*1\r\n$0\r\n\r\n",
         "-ERR unknown command '', with args beginning with: \r\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        for (int byte_by_byte = 0; byte_by_byte < 2; byte_by_byte++) {
            struct h_raw r;
            if (h_raw_open(&r, &srv) < 0)
                return;
            if (byte_by_byte)
                trickle(&r, cases[i].bytes, strlen(cases[i].bytes));
            else
                h_raw_send(&r, cases[i].bytes, strlen(cases[i].bytes));
            raw_expect_bytes(&r, cases[i].replies, cases[i].name);
            /* ...and the connection is still served. */
            RAW_SEND(&r, "PING\r\n");
            RAW_EXPECT(&r, "+PONG\r\n");
            h_raw_close(&r);
        }
    }
}

/* Redis 7.0 caps a request's element count only at INT_MAX: a big count is
 * accepted and the elements are awaited. */
static void test_big_counts_accepted(void)
{
    static const char *const counts[] = {"*1048577\r\n", "*2147483647\r\n"};
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        struct h_raw r;
        if (h_raw_open(&r, &srv) < 0)
            return;
        h_raw_send(&r, counts[i], strlen(counts[i]));
        CHECK(h_raw_wait_closed(&r, 200 * H_SLOW) == -1, "%.*s was refused: got %zu bytes",
              (int)strlen(counts[i]) - 2, counts[i], r.len);
        h_raw_close(&r);
    }
    /* A request that big really works: MSET of 600,000 pairs is 1,200,001
     * elements. Sent raw: building it through hiredis would be slow. */
    enum { PAIRS = 600000 };
    struct h_raw r;
    if (h_raw_open(&r, &srv) < 0)
        return;
    size_t cap = (size_t)PAIRS * 40 + 64, len = 0;
    char *req = malloc(cap);
    len += (size_t)snprintf(req, cap, "*%d\r\n$4\r\nMSET\r\n", 2 * PAIRS + 1);
    for (int i = 0; i < PAIRS; i++) {
        char k[16];
        int kl = snprintf(k, sizeof(k), "m%07d", i);
        len += (size_t)snprintf(req + len, cap - len, "$%d\r\n%s\r\n$1\r\nv\r\n", kl, k);
    }
    h_raw_send(&r, req, len);
    free(req);
    size_t n;
    CHECK(h_raw_read_reply(&r, &n, H_RAW_TIMEOUT_MS * 30) == 0 && n == 5 &&
              memcmp(r.buf, "+OK\r\n", 5) == 0,
          "MSET with %d elements did not answer +OK", 2 * PAIRS + 1);
    h_raw_close(&r);
    redisContext *c = h_connect(&srv);
    EXPECT_BULK(c, "v", "GET", "m0599999");
    EXPECT_INT(c, PAIRS, "DBSIZE");
    EXPECT_OK(c, "FLUSHALL");
    redisFree(c);
}

/* NUL, CR, LF and high bytes are ordinary bytes in keys, values, members and
 * patterns sent as bulks. */
static void test_binary_keys(void)
{
    redisContext *c = h_connect_flushed(&srv);
    static const char k1[] = "\0", k2[] = "a\0b", k3[] = "a\r\nb", k4[] = "\xff\xfe\0";
    EXPECT_BIN(c, "+OK", H_S("SET"), H_S(k1), H_S("\0v\0"));
    EXPECT_BIN(c, "+OK", H_S("SET"), H_S(k2), H_S("two"));
    EXPECT_BIN(c, "+OK", H_S("SET"), H_S(k3), H_S("three"));
    EXPECT_BIN(c, "+OK", H_S("SET"), H_S(k4), H_S("four"));
    EXPECT_OK(c, "SET", "a", "plain");
    EXPECT_BIN(c, "'\\x00v\\x00'", H_S("GET"), H_S(k1));
    EXPECT_BIN(c, "'two'", H_S("GET"), H_S(k2));
    EXPECT_BIN(c, "(nil)", H_S("GET"), H_S("a\0"));
    EXPECT_BIN(c, ":3", H_S("STRLEN"), H_S(k1));
    EXPECT_BIN(c, ":2", H_S("EXISTS"), H_S(k3), H_S(k4));
    EXPECT_BIN(c, "+string", H_S("TYPE"), H_S(k4));
    EXPECT_BIN(c, ":5", H_S("APPEND"), H_S(k1), H_S("\r\n"));
    EXPECT_BIN(c, "'\\x00v'", H_S("GETRANGE"), H_S(k1), H_S("0"), H_S("1"));
    EXPECT_BIN(c, "+OK", H_S("RENAME"), H_S(k2), H_S("a\0c"));
    EXPECT_BIN(c, "'two'", H_S("GET"), H_S("a\0c"));
    /* Patterns: a NUL in the pattern is a literal byte. */
    EXPECT_BIN(c, "['a\\x00c']", H_S("KEYS"), H_S("a\0*"));
    EXPECT_BIN(c, "['a\\r\\nb']", H_S("KEYS"), H_S("a\r\n?"));
    EXPECT_BIN(c, "['\\xff\\xfe\\x00']", H_S("KEYS"), H_S("\xff*"));
    EXPECT_INT(c, 5, "DBSIZE");
    /* Members of a sorted set. */
    EXPECT_BIN(c, ":3", H_S("ZADD"), H_S("z\0"), H_S("1"), H_S("\0"), H_S("2"), H_S("\0\0"),
               H_S("3"), H_S("\r\n"));
    EXPECT_BIN(c, "['\\x00', '1', '\\x00\\x00', '2', '\\r\\n', '3']", H_S("ZRANGE"), H_S("z\0"),
               H_S("0"), H_S("-1"), H_S("WITHSCORES"));
    EXPECT_BIN(c, "['\\x00\\x00']", H_S("ZRANGEBYLEX"), H_S("z\0"), H_S("(\0"), H_S("[\0\0"));
    EXPECT_BIN(c, "'2'", H_S("ZSCORE"), H_S("z\0"), H_S("\0\0"));
    EXPECT_BIN(c, ":1", H_S("ZREM"), H_S("z\0"), H_S("\0"));
    if (!h_is_reference()) {
        /* Keys compare as bytes: "\0" first, "\xff\xfe\0" last. */
        EXPECT_REPLY(c, "['\\x00', 'a', 'a\\x00c', 'a\\r\\nb', 'z\\x00', '\\xff\\xfe\\x00']",
                     "KRANGE", "0", "-1");
        EXPECT_BIN(c, "['a\\x00c', 'a\\r\\nb']", H_S("KRANGE"), H_S("(a"), H_S("[a\xff"),
                   H_S("BYLEX"));
        EXPECT_BIN(c, ":2", H_S("KRANK"), H_S("a\0c"));
        EXPECT_BIN(c, "['a\\x00c']", H_S("KPREFIX"), H_S("a\0"));
        EXPECT_BIN(c, "['a\\r\\nb']", H_S("KNEXT"), H_S("a\0c"));
    }
    EXPECT_BIN(c, ":2", H_S("DEL"), H_S(k1), H_S(k4));
    EXPECT_OK(c, "FLUSHALL");
    redisFree(c);

    /* Binary bytes in an inline request: quoted escapes make any byte, and a
     * raw NUL ends the line in rbkv (Redis would wait for 64 KB, see above). */
    struct h_raw r;
    if (h_raw_open(&r, &srv) < 0)
        return;
    RAW_SEND(&r, "ECHO \"\\x00\\xff\\r\\n\"\r\n");
    RAW_EXPECT(&r, "$4\r\n\0\xff\r\n\r\n");
    if (!h_is_reference()) {
        h_raw_send(&r, "ECHO a\0b\r\nPING\0junk\r\n", 22);
        RAW_EXPECT(&r, "$1\r\na\r\n");
        RAW_EXPECT(&r, "+PONG\r\n");
    }
    h_raw_close(&r);
}

/* Before AUTH: every command but AUTH, HELLO and QUIT is refused, requests are
 * capped at 10 elements and 16 KB bulks (test_connection.c checks the exact
 * boundary; here the hostile shapes), and a client that cannot authenticate
 * makes the server allocate nothing large. */
static void test_unauthenticated(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--requirepass", "pw"));
    if (!c)
        return;
    static const char *const refused[][4] = {
        {"SET", "k", "v"}, {"KEYS", "*"},       {"FLUSHALL"},        {"CONFIG", "GET", "*"},
        {"MULTI"},         {"SCAN", "0"},       {"INFO"},            {"SHUTDOWN"},
        {"ECHO", "x"},     {"CLIENT", "LIST"},  {"DBSIZE"},          {"ZADD", "z", "1", "m"},
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        int argc = 0;
        while (argc < 4 && refused[i][argc])
            argc++;
        h_expect(__FILE__, __LINE__, c, "-NOAUTH Authentication required.", 0, argc,
                 refused[i], NULL);
    }
    EXPECT_ERR(c, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH",
               "PW");
    EXPECT_ERR(c, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "");
    EXPECT_BIN(c, "-WRONGPASS invalid username-password pair or user is disabled.", H_S("AUTH"),
               H_S("pw\0"));
    EXPECT_ERR(c, "NOAUTH Authentication required.", "GET", "k");
    redisFree(c);

    long rss0 = h_rss_kb(s.pid);
    static const struct bad_stream unauth[] = {
        BAD("count 11 after a good AUTH attempt",
            "*2\r\n$4\r\nAUTH\r\n$1\r\nx\r\n*11\r\n",
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n",
            "-ERR Protocol error: unauthenticated multibulk length\r\n"),
        BAD("count 2147483647", "*2147483647\r\n", NULL,
            "-ERR Protocol error: unauthenticated multibulk length\r\n"),
        BAD("bulk length 536870912", "*2\r\n$4\r\nAUTH\r\n$536870912\r\n", NULL,
            "-ERR Protocol error: unauthenticated bulk length\r\n"),
        BAD("bulk length 99999999999 is invalid first", "*1\r\n$99999999999\r\n", NULL, E_BULK),
        BAD("count 99999999999 is invalid first", "*99999999999\r\n", NULL, E_MBULK),
    };
    struct h_raw conns[50];
    for (size_t i = 0; i < sizeof(unauth) / sizeof(unauth[0]); i++) {
        struct h_raw r;
        if (h_raw_open(&r, &s) < 0)
            break;
        h_raw_send(&r, unauth[i].bytes, unauth[i].len);
        if (unauth[i].before)
            raw_expect_bytes(&r, unauth[i].before, unauth[i].name);
        if (h_raw_expect(__FILE__, __LINE__, &r, unauth[i].error, strlen(unauth[i].error), 0))
            RAW_EXPECT_CLOSED(&r);
        else
            fprintf(stderr, "    in case: %s\n", unauth[i].name);
        h_raw_close(&r);
    }
    /* 50 clients each start the biggest request allowed before AUTH, a 16 KB
     * bulk, and stop: a few MB at most. */
    char head[64];
    int hl = snprintf(head, sizeof(head), "*2\r\n$4\r\nAUTH\r\n$16384\r\n");
    int opened = 0;
    for (int i = 0; i < 50 && h_raw_open(&conns[i], &s) == 0; i++, opened++)
        h_raw_send(&conns[i], head, (size_t)hl);
    /* The test: time for the server to read what it was sent and buffer
     * what it would (no condition to poll for: it must not). */
    h_sleep_ms(100 * H_SLOW);
    long rss1 = h_rss_kb(s.pid);
    printf("   server RSS %ld KB before, %ld KB with %d half-sent AUTH requests\n", rss0, rss1,
           opened);
    CHECK(rss0 > 0 && rss1 - rss0 < 16 * 1024, "RSS grew by %ld KB", rss1 - rss0);
    for (int i = 0; i < opened; i++) {
        CHECK(h_raw_wait_closed(&conns[i], 0) == -1, "a half-sent AUTH was answered");
        h_raw_close(&conns[i]);
    }
    h_stop(&s);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_bad_streams);
    H_RUN(test_odd_but_valid);
    H_RUN(test_big_counts_accepted);
    H_RUN(test_binary_keys);
    H_RUN(test_unauthenticated);
    h_stop(&srv);
    return h_finish();
}
