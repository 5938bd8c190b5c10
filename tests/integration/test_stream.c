/*
 * test_stream.c - end-to-end tests of streamed replies (server/core/stream.c,
 * server/commands/listing.c): a long KRANGE, KPREFIX or KEYS goes out in
 * chunks as the client reads, and is still exactly the keyspace as of the
 * command.
 *
 * One server for the file, loaded with KEYS keys "key:%012d" holding
 * "val:%012d". A slow reader is a raw socket with a small receive buffer
 * that reads part of a reply and then stops; while it stops, the server's
 * output for it (CLIENT LIST omem, and tot-mem) must stay far below
 * the reply's size, which an unstreamed reply of this size could not do
 * (the kernel's socket buffers hold a few MB at most). Covered: memory while
 * a reader stalls; writes, lazy expiry and FLUSHALL from another client
 * mid-stream (the reply is the data as it was, the writes all take effect);
 * pipelined requests behind a streamed reply answered in order; a
 * disconnect mid-stream; KPREFIX, REV, LIMIT, WITHVALUES, KEYS and RESP3
 * replies byte for byte equal to the same command's reply inside
 * MULTI/EXEC, which never streams.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "harness.h"

#define KEYS (300000 / H_SLOW)
#define LOAD_BATCH 1000
/* What a stalled reader may leave in the server's output buffer: two
 * stream chunks of 64 KB and the 16 KB chunk the last entry spilled into,
 * with room to spare; a whole reply is megabytes. */
#define OMEM_BOUND (256 * 1024)
/* What the client may hold in all (its output chunks, spare included, and
 * its request buffer) meanwhile; the WITHVALUES reply is about 46 bytes a
 * key, 14 MB for 300,000 keys. (used_memory does not count output buffers,
 * so it cannot tell.) */
#define MEM_BOUND (OMEM_BOUND + 64 * 1024)
#define READ_TIMEOUT_MS (20000 * H_SLOW)

static struct h_server srv;

static void load(redisContext *c, long from, long to)
{
    char k[32], v[32];
    long bad = 0;
    for (long i = from; i < to;) {
        long end = i + LOAD_BATCH < to ? i + LOAD_BATCH : to;
        for (long j = i; j < end; j++) {
            snprintf(k, sizeof(k), "key:%012ld", j);
            snprintf(v, sizeof(v), "val:%012ld", j);
            H_APPEND(c, "SET", k, v);
        }
        for (; i < end; i++) {
            redisReply *r = h_get_reply(c);
            bad += !r || r->type != REDIS_REPLY_STATUS;
            if (r)
                freeReplyObject(r);
        }
    }
    CHECK(bad == 0, "%ld SETs failed while loading", bad);
}

static redisContext *loaded(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (c)
        load(c, 0, KEYS);
    return c;
}

/* A raw connection that reads slowly: a small receive buffer, so the kernel
 * takes little of a reply the client does not read. */
static int slow_open(struct h_raw *r)
{
    if (h_raw_open(r, &srv) < 0)
        return -1;
    int small = 16 * 1024;
    setsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    return 0;
}

/* Reads until r->buf holds at least n bytes. Returns 0, or -1 (failed). */
static int read_some(struct h_raw *r, size_t n)
{
    int64_t deadline = h_now_ms() + READ_TIMEOUT_MS;
    while (r->len < n && h_now_ms() < deadline) {
        if (r->cap - r->len < 65536) {
            size_t cap = r->cap ? r->cap * 2 : 131072;
            char *nb = realloc(r->buf, cap);
            if (!nb)
                break;
            r->buf = nb;
            r->cap = cap;
        }
        ssize_t got = recv(r->fd, r->buf + r->len, r->cap - r->len, 0);
        if (got <= 0)
            break;
        r->len += (size_t)got;
    }
    return CHECK(r->len >= n, "read %zu of the first %zu bytes of a reply", r->len, n) ? 0 : -1;
}

static void send_cmd(struct h_raw *r, int argc, const char *const *argv)
{
    char buf[1024];
    int n = snprintf(buf, sizeof(buf), "*%d\r\n", argc);
    for (int i = 0; i < argc; i++)
        n += snprintf(buf + n, sizeof(buf) - (size_t)n, "$%zu\r\n%s\r\n", strlen(argv[i]), argv[i]);
    h_raw_send(r, buf, (size_t)n);
}
#define SEND(r, ...) send_cmd((r), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__})

/* Whether p[0..len) is exactly the RESP2 reply listing the keys first,
 * first + step, ... (n of them), each with its original value when
 * withvalues. */
static int is_listing(const char *p, size_t len, long first, long n, long step, int withvalues)
{
    char want[96];
    size_t at = 0;
    int w = snprintf(want, sizeof(want), "*%ld\r\n", withvalues ? 2 * n : n);
    if ((size_t)w > len || memcmp(p, want, (size_t)w) != 0)
        return 0;
    at = (size_t)w;
    for (long i = 0, k = first; i < n; i++, k += step) {
        w = withvalues ? snprintf(want, sizeof(want), "$16\r\nkey:%012ld\r\n$16\r\nval:%012ld\r\n", k, k)
                       : snprintf(want, sizeof(want), "$16\r\nkey:%012ld\r\n", k);
        if (at + (size_t)w > len || memcmp(p + at, want, (size_t)w) != 0)
            return 0;
        at += (size_t)w;
    }
    return at == len;
}

/* Reads one whole reply and checks it lists the original keys. */
static void expect_listing(struct h_raw *r, long first, long n, long step, int withvalues,
                           const char *what)
{
    size_t len;
    if (!CHECK(h_raw_read_reply(r, &len, READ_TIMEOUT_MS) == 0, "%s: no whole reply", what))
        return;
    CHECK(is_listing(r->buf, len, first, n, step, withvalues),
          "%s: the reply (%zu bytes) is not the %ld keys from key:%012ld", what, len, n, first);
    h_raw_consume(r, len);
}

/* A field of CLIENT LIST ("omem", "tot-mem") for the client whose last
 * command is cmd; -1 when there is none. */
static long long client_field(redisContext *c, const char *cmd, const char *field)
{
    long long v = -1;
    char needle[64], key[32];
    snprintf(needle, sizeof(needle), " cmd=%s ", cmd);
    snprintf(key, sizeof(key), " %s=", field);
    redisReply *r = H_CALL(c, "CLIENT", "LIST");
    if (!r || r->type != REDIS_REPLY_STRING) {
        if (r)
            freeReplyObject(r);
        return -1;
    }
    for (char *line = r->str; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        const char *o = strstr(line, key);
        if (strstr(line, needle) && o)
            v = atoll(o + strlen(key));
        line = end ? end + 1 : NULL;
    }
    freeReplyObject(r);
    return v;
}

/* (a) A reader that stalls after part of a 14 MB reply costs the server a
 * few chunks; the reply, read on, is whole and right. */
static void test_bounded_memory(void)
{
    struct h_raw r;
    redisContext *c = loaded();
    if (!c || slow_open(&r) < 0)
        goto out;
    SEND(&r, "KRANGE", "-", "+", "BYLEX", "WITHVALUES");
    if (read_some(&r, 200000) == 0) {
        /* The test: time for the server to fill what the sockets take and
         * then to wait, not to buffer the rest (no condition to poll for). */
        h_sleep_ms(200);
        long long omem = client_field(c, "krange", "omem");
        long long mem = client_field(c, "krange", "tot-mem");
        CHECK(omem >= 0 && omem <= OMEM_BOUND, "omem %lld of a stalled streamed reply", omem);
        CHECK(mem >= 0 && mem <= MEM_BOUND, "tot-mem %lld of a stalled streamed reply", mem);
        expect_listing(&r, 0, KEYS, 1, 1, "KRANGE - + BYLEX WITHVALUES");
    }
    h_raw_close(&r);
    EXPECT_REPLY(c, "+PONG", "PING");
out:
    if (c)
        redisFree(c);
}

/* (b) Writes from another client mid-stream: the reply is the keyspace as
 * the command saw it, and every write took effect. */
static void test_writes_mid_stream(void)
{
    struct h_raw r;
    char mid[32], late[32];
    redisContext *c = loaded();
    if (!c || slow_open(&r) < 0)
        goto out;
    snprintf(mid, sizeof(mid), "key:%012d", KEYS / 2);
    snprintf(late, sizeof(late), "key:%012d", KEYS - 1);
    SEND(&r, "KRANGE", "-", "+", "BYLEX", "WITHVALUES");
    if (read_some(&r, 100000) == 0) {
        EXPECT_INT(c, 1, "DEL", mid);
        EXPECT_INT(c, 1, "DEL", "key:000000000000"); /* already sent */
        EXPECT_OK(c, "SET", "key:000000000010x", "new");
        EXPECT_INT(c, 16, "SETRANGE", late, "0", "VAL:");    /* in place */
        EXPECT_INT(c, 20, "APPEND", "key:000000000020", "tail"); /* moves */
        expect_listing(&r, 0, KEYS, 1, 1, "KRANGE WITHVALUES with writes mid-stream");
    }
    EXPECT_NIL(c, "GET", mid);
    EXPECT_BULK(c, "new", "GET", "key:000000000010x");
    EXPECT_MATCH(c, "'VAL:*'", "GET", late);
    EXPECT_BULK(c, "val:000000000020tail", "GET", "key:000000000020");
    EXPECT_INT(c, KEYS - 1, "DBSIZE");
    h_raw_close(&r);
out:
    if (c)
        redisFree(c);
}

/* (b) A key whose deadline passes mid-stream, read by another client (lazy
 * expiry) or reached by the cron (active expiry): either removal finishes
 * the stream first, so the key is in the reply and gone afterwards. */
static void test_expiry_mid_stream(void)
{
    struct h_raw r;
    char k[32];
    redisContext *c = loaded();
    if (!c || slow_open(&r) < 0)
        goto out;
    snprintf(k, sizeof(k), "key:%012d", KEYS - 2);
    EXPECT_INT(c, 1, "PEXPIRE", k, "400");
    SEND(&r, "KRANGE", "-", "+", "BYLEX");
    if (read_some(&r, 100000) == 0) {
        h_sleep_ms(500 * H_SLOW); /* the test: the 400 ms deadline passes mid-stream */
        EXPECT_NIL(c, "GET", k);
        expect_listing(&r, 0, KEYS, 1, 0, "KRANGE with a key expiring mid-stream");
    }
    EXPECT_INT(c, KEYS - 1, "DBSIZE");
    h_raw_close(&r);
out:
    if (c)
        redisFree(c);
}

/* (b) FLUSHALL mid-stream: the reply still lists every key. */
static void test_flushall_mid_stream(void)
{
    struct h_raw r;
    redisContext *c = loaded();
    if (!c || slow_open(&r) < 0)
        goto out;
    SEND(&r, "KPREFIX", "key:");
    if (read_some(&r, 100000) == 0) {
        EXPECT_OK(c, "FLUSHALL");
        expect_listing(&r, 0, KEYS, 1, 0, "KPREFIX with FLUSHALL mid-stream");
    }
    EXPECT_INT(c, 0, "DBSIZE");
    h_raw_close(&r);
out:
    if (c)
        redisFree(c);
}

/* (c) Requests pipelined behind a streamed reply are answered after it, in
 * order; so are those of a reader that reads everything at once. */
static void test_pipelined(void)
{
    struct h_raw r;
    redisContext *c = loaded();
    if (!c || slow_open(&r) < 0)
        goto out;
    RAW_SEND(&r, "*4\r\n$6\r\nKRANGE\r\n$1\r\n-\r\n$1\r\n+\r\n$5\r\nBYLEX\r\n"
                 "*1\r\n$4\r\nPING\r\n"
                 "*2\r\n$4\r\nKEYS\r\n$1\r\n*\r\n"
                 "*7\r\n$6\r\nKRANGE\r\n$1\r\n-\r\n$1\r\n+\r\n$5\r\nBYLEX\r\n$5\r\nLIMIT\r\n"
                 "$1\r\n1\r\n$1\r\n2\r\n");
    expect_listing(&r, 0, KEYS, 1, 0, "KRANGE - + BYLEX, pipelined");
    RAW_EXPECT(&r, "+PONG\r\n");
    expect_listing(&r, 0, KEYS, 1, 0, "KEYS *, pipelined");
    RAW_EXPECT(&r, "*2\r\n$16\r\nkey:000000000001\r\n$16\r\nkey:000000000002\r\n");
    h_raw_close(&r);
out:
    if (c)
        redisFree(c);
}

/* (d) A client that goes mid-stream: the server frees its stream and goes
 * on serving; a write to the db afterwards has no stream to finish. */
static void test_disconnect(void)
{
    struct h_raw r;
    redisContext *c = loaded();
    if (!c || slow_open(&r) < 0)
        goto out;
    SEND(&r, "KRANGE", "0", "-1", "WITHVALUES");
    read_some(&r, 100000);
    h_raw_close(&r);
    CHECK(h_wait_clients(c, 1, 3000 * H_SLOW), "the server saw the streaming client go");
    EXPECT_OK(c, "SET", "after", "1");
    EXPECT_INT(c, KEYS + 1, "DBSIZE");
    EXPECT_MATCH(c, "'*connected_clients:1\\r\\n*'", "INFO", "clients");
out:
    if (c)
        redisFree(c);
}

/* Sends argv on a raw connection as is, then inside MULTI/EXEC (never
 * streamed), and expects the same bytes; the reply must be long enough to
 * have streamed (min_len). */
static void expect_same_as_exec(struct h_raw *r, int argc, const char *const *argv,
                                size_t min_len)
{
    size_t len, xlen;
    char *plain;
    send_cmd(r, argc, argv);
    if (!CHECK(h_raw_read_reply(r, &len, READ_TIMEOUT_MS) == 0, "%s: no reply", argv[1]))
        return;
    plain = malloc(len);
    memcpy(plain, r->buf, len);
    h_raw_consume(r, len);
    CHECK(len >= min_len, "%s %s: a %zu byte reply is too short to stream", argv[0], argv[1], len);
    SEND(r, "MULTI");
    RAW_EXPECT(r, "+OK\r\n");
    send_cmd(r, argc, argv);
    RAW_EXPECT(r, "+QUEUED\r\n");
    SEND(r, "EXEC");
    if (CHECK(h_raw_read_reply(r, &xlen, READ_TIMEOUT_MS) == 0, "EXEC: no reply")) {
        CHECK(xlen == len + 4 && memcmp(r->buf, "*1\r\n", 4) == 0 &&
                  memcmp(r->buf + 4, plain, len) == 0,
              "%s %s ...: the streamed reply (%zu bytes) differs from EXEC's (%zu)", argv[0],
              argv[1], len, xlen);
        h_raw_consume(r, xlen);
    }
    free(plain);
}
#define SAME_AS_EXEC(r, ...)                                                                      \
    expect_same_as_exec((r), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__},            \
                        256 * 1024 / H_SLOW)

/* (e), (f) Every form that streams, in RESP2 and RESP3, equals its reply
 * inside MULTI/EXEC; and a few against the keys they must list. */
static void test_forms(void)
{
    struct h_raw r;
    redisContext *c = loaded();
    if (!c || h_raw_open(&r, &srv) < 0)
        goto out;
    char lo[40], hi[40];
    snprintf(lo, sizeof(lo), "[key:%012d", KEYS / 10);
    snprintf(hi, sizeof(hi), "(key:%012d", KEYS - KEYS / 10);
    for (int proto = 2; proto <= 3; proto++) {
        if (proto == 3) {
            SEND(&r, "HELLO", "3");
            size_t len;
            if (CHECK(h_raw_read_reply(&r, &len, READ_TIMEOUT_MS) == 0, "HELLO 3"))
                h_raw_consume(&r, len);
        }
        SAME_AS_EXEC(&r, "KRANGE", "-", "+", "BYLEX");
        SAME_AS_EXEC(&r, "KRANGE", "+", "-", "BYLEX", "REV", "WITHVALUES");
        SAME_AS_EXEC(&r, "KRANGE", lo, hi, "BYLEX", "LIMIT", "7", "-1", "WITHVALUES");
        SAME_AS_EXEC(&r, "KRANGE", hi, lo, "BYLEX", "REV", "LIMIT", "3", "20000");
        SAME_AS_EXEC(&r, "KRANGE", "5", "-6", "REV", "WITHVALUES");
        SAME_AS_EXEC(&r, "KPREFIX", "key:00000000", "WITHVALUES"); /* 10,000 keys */
        SAME_AS_EXEC(&r, "KPREFIX", "key:", "REV", "LIMIT", "11", "-1");
        SAME_AS_EXEC(&r, "KEYS", "key:*");
        SAME_AS_EXEC(&r, "KFIRST", "100000");
    }
    h_raw_close(&r);
    if (h_raw_open(&r, &srv) < 0)
        goto out;
    SEND(&r, "KRANGE", "+", "-", "BYLEX", "REV");
    expect_listing(&r, KEYS - 1, KEYS, -1, 0, "KRANGE + - BYLEX REV");
    SEND(&r, "KRANGE", lo, hi, "BYLEX", "LIMIT", "7", "-1", "WITHVALUES");
    expect_listing(&r, KEYS / 10 + 7, KEYS - 2 * (KEYS / 10) - 7, 1, 1, "KRANGE [lo (hi LIMIT 7");
    SEND(&r, "KRANGE", "5", "-6");
    expect_listing(&r, 5, KEYS - 10, 1, 0, "KRANGE 5 -6");
    h_raw_close(&r);
out:
    if (c)
        redisFree(c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_bounded_memory);
    H_RUN(test_writes_mid_stream);
    H_RUN(test_expiry_mid_stream);
    H_RUN(test_flushall_mid_stream);
    H_RUN(test_pipelined);
    H_RUN(test_disconnect);
    H_RUN(test_forms);
    h_stop(&srv);
    return h_finish();
}
