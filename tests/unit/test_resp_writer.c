/*
 * test_resp_writer.c - tests of proto/resp_writer.c.
 *
 * A table gives the exact bytes of every reply type in RESP2 and RESP3 (Redis
 * 7's bytes); doubles have their own table plus a random round-trip check.
 * Then the buffer's promises: no allocation for small replies, written bytes
 * never move, a run of bulks writes what resp_add_bulk would, a big bulk is
 * one chunk, a deferred length hides what follows
 * until set, a large array never reallocates, allocation failures only set
 * failed. Last, random reply sequences, drained in random pieces, against a
 * model encoder written with snprintf (SEED=... replays one).
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "test_resp_util.h"

/* Everything pending, in order, consumed; the caller frees the result. */
static char *drain(struct resp_out *o, size_t *len)
{
    char *all = malloc(resp_out_pending(o) + 1);
    size_t n = 0;

    while (resp_out_pending(o) > 0) {
        struct resp_iov iov[8];
        int k = resp_out_peek(o, iov, 8);
        CHECK(k > 0);
        if (k <= 0)
            break;
        for (int i = 0; i < k; i++) {
            CHECK(iov[i].len > 0);
            memcpy(all + n, iov[i].base, iov[i].len);
            n += iov[i].len;
            resp_out_consume(o, iov[i].len);
        }
    }
    all[n] = '\0';
    *len = n;
    return all;
}

static int drained_is(struct resp_out *o, const char *want, size_t want_len)
{
    size_t n;
    char *got = drain(o, &n);
    int ok = n == want_len && memcmp(got, want, n) == 0;

    if (!ok)
        fprintf(stderr, "  got  [%.*s]\n  want [%.*s]\n", (int)n, got, (int)want_len, want);
    free(got);
    return ok;
}

enum op {
    OP_SIMPLE, OP_ERROR, OP_ERRORF, OP_INT, OP_BULK, OP_BULK_CSTR, OP_BULK_NULL, OP_BULK_LL, OP_NULL,
    OP_NULL_ARRAY, OP_ARRAY, OP_MAP, OP_SET, OP_PUSH, OP_ATTRIBUTE, OP_DOUBLE, OP_BOOL, OP_BIGNUM,
    OP_VERBATIM,
    OP_RAW, OP_COMMAND,
};

struct wcase {
    enum op op;
    const char *s;
    long long n;
    double d;
    const char *want2, *want3;
};

static void apply(struct resp_out *o, const struct wcase *c)
{
    switch (c->op) {
    case OP_SIMPLE: resp_add_simple(o, c->s); break;
    case OP_ERROR: resp_add_error(o, c->s); break;
    case OP_ERRORF: resp_add_errorf(o, "ERR %s %lld", c->s, c->n); break;
    case OP_INT: resp_add_int(o, c->n); break;
    case OP_BULK: resp_add_bulk(o, c->s, (size_t)c->n); break;
    case OP_BULK_CSTR: resp_add_bulk_cstr(o, c->s); break;
    case OP_BULK_NULL: resp_add_bulk_cstr(o, NULL); break;
    case OP_BULK_LL: resp_add_bulk_ll(o, c->n); break;
    case OP_NULL: resp_add_null(o); break;
    case OP_NULL_ARRAY: resp_add_null_array(o); break;
    case OP_ARRAY: resp_add_array_len(o, (size_t)c->n); break;
    case OP_MAP: resp_add_map_len(o, (size_t)c->n); break;
    case OP_SET: resp_add_set_len(o, (size_t)c->n); break;
    case OP_PUSH: resp_add_push_len(o, (size_t)c->n); break;
    case OP_ATTRIBUTE: resp_add_attribute_len(o, (size_t)c->n); break;
    case OP_DOUBLE: resp_add_double(o, c->d); break;
    case OP_BOOL: resp_add_bool(o, (int)c->n); break;
    case OP_BIGNUM: resp_add_bignum(o, c->s, strlen(c->s)); break;
    case OP_VERBATIM: resp_add_verbatim(o, "txt", c->s, strlen(c->s)); break;
    case OP_RAW: resp_add_raw(o, c->s, strlen(c->s)); break;
    case OP_COMMAND: {
        struct resp_slice argv[2] = { { "SET", 3 }, { c->s, strlen(c->s) } };
        resp_add_command(o, 2, argv);
        break;
    }
    }
}

static const struct wcase wcases[] = {
    { OP_SIMPLE, "OK", 0, 0, "+OK\r\n", "+OK\r\n" },
    { OP_SIMPLE, "", 0, 0, "+\r\n", "+\r\n" },
    { OP_ERROR, "ERR syntax error", 0, 0, "-ERR syntax error\r\n", "-ERR syntax error\r\n" },
    { OP_ERROR, "ERR a\r\nb\rc\n", 0, 0, "-ERR a  b c \r\n", "-ERR a  b c \r\n" },
    { OP_ERRORF, "x\ny", 42, 0, "-ERR x y 42\r\n", "-ERR x y 42\r\n" },
    { OP_ERRORF, "\r\n", -1, 0, "-ERR    -1\r\n", "-ERR    -1\r\n" },
    { OP_INT, NULL, 0, 0, ":0\r\n", ":0\r\n" },
    { OP_INT, NULL, 7, 0, ":7\r\n", ":7\r\n" },
    { OP_INT, NULL, -42, 0, ":-42\r\n", ":-42\r\n" },
    { OP_INT, NULL, 1234567890123LL, 0, ":1234567890123\r\n", ":1234567890123\r\n" },
    { OP_INT, NULL, 9223372036854775807LL, 0, ":9223372036854775807\r\n", ":9223372036854775807\r\n" },
    { OP_INT, NULL, -9223372036854775807LL - 1, 0, ":-9223372036854775808\r\n", ":-9223372036854775808\r\n" },
    { OP_BULK, "hello", 5, 0, "$5\r\nhello\r\n", "$5\r\nhello\r\n" },
    { OP_BULK, "", 0, 0, "$0\r\n\r\n", "$0\r\n\r\n" },
    { OP_BULK, "a\r\nb", 4, 0, "$4\r\na\r\nb\r\n", "$4\r\na\r\nb\r\n" },
    { OP_BULK_CSTR, "value", 0, 0, "$5\r\nvalue\r\n", "$5\r\nvalue\r\n" },
    { OP_BULK_NULL, NULL, 0, 0, "$-1\r\n", "_\r\n" },
    { OP_BULK_LL, NULL, -100, 0, "$4\r\n-100\r\n", "$4\r\n-100\r\n" },
    { OP_BULK_LL, NULL, 99, 0, "$2\r\n99\r\n", "$2\r\n99\r\n" },
    { OP_NULL, NULL, 0, 0, "$-1\r\n", "_\r\n" },
    { OP_NULL_ARRAY, NULL, 0, 0, "*-1\r\n", "_\r\n" },
    { OP_ARRAY, NULL, 0, 0, "*0\r\n", "*0\r\n" },
    { OP_ARRAY, NULL, 3, 0, "*3\r\n", "*3\r\n" },
    { OP_MAP, NULL, 2, 0, "*4\r\n", "%2\r\n" },
    { OP_MAP, NULL, 0, 0, "*0\r\n", "%0\r\n" },
    { OP_SET, NULL, 5, 0, "*5\r\n", "~5\r\n" },
    { OP_PUSH, NULL, 3, 0, "*3\r\n", ">3\r\n" },
    { OP_ATTRIBUTE, NULL, 1, 0, "", "|1\r\n" }, /* RESP2: nothing */
    { OP_DOUBLE, NULL, 0, 1.5, "$3\r\n1.5\r\n", ",1.5\r\n" },
    { OP_DOUBLE, NULL, 0, 3, "$1\r\n3\r\n", ",3\r\n" },
    { OP_DOUBLE, NULL, 0, INFINITY, "$3\r\ninf\r\n", ",inf\r\n" },
    { OP_DOUBLE, NULL, 0, -INFINITY, "$4\r\n-inf\r\n", ",-inf\r\n" },
    { OP_DOUBLE, NULL, 0, NAN, "$3\r\nnan\r\n", ",nan\r\n" },
    { OP_BOOL, NULL, 1, 0, ":1\r\n", "#t\r\n" },
    { OP_BOOL, NULL, 0, 0, ":0\r\n", "#f\r\n" },
    { OP_BIGNUM, "3492890328409238509324850943850943825024385", 0, 0,
      "$43\r\n3492890328409238509324850943850943825024385\r\n",
      "(3492890328409238509324850943850943825024385\r\n" },
    { OP_VERBATIM, "Some string", 0, 0, "$11\r\nSome string\r\n", "=15\r\ntxt:Some string\r\n" },
    { OP_RAW, "+PONG\r\n", 0, 0, "+PONG\r\n", "+PONG\r\n" },
    { OP_COMMAND, "key", 0, 0, "*2\r\n$3\r\nSET\r\n$3\r\nkey\r\n", "*2\r\n$3\r\nSET\r\n$3\r\nkey\r\n" },
};

static void test_table(void)
{
    for (int proto = 2; proto <= 3; proto++) {
        for (size_t i = 0; i < sizeof(wcases) / sizeof(wcases[0]); i++) {
            struct resp_out o;
            const char *want = proto == 2 ? wcases[i].want2 : wcases[i].want3;
            int ok;

            resp_out_init(&o);
            o.proto = proto;
            apply(&o, &wcases[i]);
            CHECK(resp_out_pending(&o) == strlen(want));
            ok = drained_is(&o, want, strlen(want));
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "  writer case %zu, RESP%d\n", i, proto);
            CHECK(resp_out_pending(&o) == 0 && !o.failed);
            resp_out_destroy(&o);
        }
    }
}

/* resp_format_double: Redis 7.0.15's addReplyDouble() texts (redis-server's
 * ZSCORE of each, checked by hand). */
static void test_doubles(uint64_t seed)
{
    static const struct {
        double d;
        const char *want;
    } t[] = {
        { 0.0, "0" }, { -0.0, "-0" }, { 1.0, "1" }, { -1.0, "-1" }, { 1.5, "1.5" },
        { 0.1, "0.10000000000000001" }, { -0.1, "-0.10000000000000001" },
        { 0.1 + 0.2, "0.30000000000000004" }, { 3.14, "3.1400000000000001" }, { 100.5, "100.5" },
        { 1e-5, "1.0000000000000001e-05" }, { 1.5e-7, "1.4999999999999999e-07" },
        { 1e17, "1e+17" }, { 4503599627370497.0, "4503599627370497" },
        { 4611686018427387904.0, "4.6116860184273879e+18" }, { 1e21, "1e+21" },
        { 5e-324, "4.9406564584124654e-324" }, { DBL_MAX, "1.7976931348623157e+308" },
        { DBL_MIN, "2.2250738585072014e-308" }, { INFINITY, "inf" }, { -INFINITY, "-inf" },
        { NAN, "nan" },
    };
    uint64_t rs = seed ^ 0x5bd1e995ULL;
    char buf[RESP_DOUBLE_BUFLEN];

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        int n = resp_format_double(buf, t[i].d);
        CHECK(n == (int)strlen(buf) && strcmp(buf, t[i].want) == 0);
        if (strcmp(buf, t[i].want) != 0)
            fprintf(stderr, "  double %.17g: got %s want %s\n", t[i].d, buf, t[i].want);
    }
    /* Random bit patterns: each text fits and reads back as the same double. */
    for (int i = 0; i < 20000; i++) {
        uint64_t bits = rng_next(&rs);
        double d;
        int n;

        memcpy(&d, &bits, sizeof(d));
        if (!isfinite(d))
            continue;
        n = resp_format_double(buf, d);
        CHECK(n > 0 && n < RESP_DOUBLE_BUFLEN);
        CHECK(strtod(buf, NULL) == d);
    }
}

/* Small replies cost no allocation while they fit the inline buffer. */
static void test_no_alloc(void)
{
    struct resp_out o;
    long calls = test_alloc.calls;

    resp_out_init(&o);
    for (int i = 0; i < 1000; i++)
        resp_add_int(&o, i);
    for (int i = 0; i < 200; i++)
        resp_add_bulk(&o, "value", 5);
    CHECK(test_alloc.calls == calls);
    CHECK(o.head == NULL);
    CHECK(resp_out_pending(&o) < RESP_OUT_INLINE);
    resp_out_consume(&o, resp_out_pending(&o));
    CHECK(o.inline_used == 0 && o.inline_start == 0);
    resp_out_destroy(&o);
}

/* Bulks of every length from 0 to 120 (the writer formats lengths under 100
 * and copies 8 to 32 bytes its own way), each from a heap block of exactly
 * its size so an over-read faults under ASan, each byte distinct, written
 * after 0 to 40 bytes of filler so the copy starts at every alignment and
 * lands on both sides of the inline buffer's and a chunk's end. */
static void test_bulk_lengths(void)
{
    for (size_t lead = 0; lead <= 40; lead++) {
        struct resp_out o;
        char want[16384];
        size_t w = 0;

        resp_out_init(&o);
        for (size_t len = 0; len <= 120; len++) {
            char *p = malloc(len ? len : 1);
            CHECK(p != NULL);
            for (size_t i = 0; i < len; i++)
                p[i] = (char)('A' + (i * 7 + len) % 58);
            if (len % 8 == 0) { /* filler: raw bytes, one at a time */
                for (size_t i = 0; i < lead; i++)
                    resp_add_raw(&o, "x", 1);
                memset(want + w, 'x', lead);
                w += lead;
            }
            resp_add_bulk(&o, p, len);
            w += (size_t)snprintf(want + w, sizeof(want) - w, "$%zu\r\n", len);
            memcpy(want + w, p, len);
            w += len;
            want[w++] = '\r';
            want[w++] = '\n';
            free(p);
        }
        CHECK(w < sizeof(want));
        CHECK(drained_is(&o, want, w));
        resp_out_destroy(&o);
    }
}

/* A run of bulks (resp_bulks_*) writes the bytes resp_add_bulk would: every
 * length 0 to 120 (the run takes those under 100 that fit; the caller's
 * fallback the rest), runs that fill the inline buffer and chunk after
 * chunk, after a deferred header, with resp_bulks_pending counting the
 * open run's bytes; a muted buffer's run takes nothing. */
static void test_bulk_runs(void)
{
    static char want[4 * RESP_OUT_INLINE + 4 * RESP_OUT_CHUNK];
    char p[120];

    for (size_t i = 0; i < sizeof(p); i++)
        p[i] = (char)('a' + i % 26);
    for (size_t lead = 0; lead <= 40; lead += 13) {
        struct resp_out o;
        struct resp_bulks run;
        struct resp_deferred d;
        size_t w = 0, fell = 0, count = 0;

        resp_out_init(&o);
        for (size_t i = 0; i < lead; i++)
            resp_add_raw(&o, "x", 1);
        memset(want, 'x', lead);
        w = lead;
        resp_add_deferred(&o, &d);
        size_t header_at = w;
        resp_bulks_begin(&o, &run);
        /* Past the inline buffer and two chunks, so runs end full. */
        for (size_t k = 0; w + 200 < sizeof(want) - 64 && k < 4000; k++) {
            size_t len = (k * 37 + lead) % 121;
            CHECK(resp_bulks_pending(&o, &run) == w - header_at + lead);
            if (resp_bulks_add(&run, p, len) < 0) {
                CHECK(len >= 100 || run.end - run.at < (ptrdiff_t)(len + 7));
                fell++;
                resp_bulks_end(&o, &run);
                resp_add_bulk(&o, p, len);
                resp_bulks_begin(&o, &run);
            }
            w += (size_t)snprintf(want + w, sizeof(want) - w, "$%zu\r\n", len);
            memcpy(want + w, p, len);
            w += len;
            want[w++] = '\r';
            want[w++] = '\n';
            count++;
        }
        resp_bulks_end(&o, &run);
        CHECK(fell > count / 121); /* the long ones at least */
        resp_set_deferred_array(&o, &d, count);
        char hdr[32];
        int hl = snprintf(hdr, sizeof(hdr), "*%zu\r\n", count);
        memmove(want + header_at + (size_t)hl, want + header_at, w - header_at);
        memcpy(want + header_at, hdr, (size_t)hl);
        w += (size_t)hl;
        CHECK(!o.failed);
        CHECK(drained_is(&o, want, w));
        resp_out_destroy(&o);
    }

    struct resp_out o;
    struct resp_bulks run;
    resp_out_init(&o);
    o.muted = 1;
    resp_bulks_begin(&o, &run);
    CHECK(resp_bulks_add(&run, "a", 1) < 0);
    CHECK(resp_bulks_pending(&o, &run) == 0);
    resp_bulks_end(&o, &run);
    o.muted = 0;
    resp_bulks_begin(&o, &run);
    CHECK(resp_bulks_add(&run, "", 0) == 0);
    CHECK(resp_bulks_add(&run, p, 9) == 0);
    CHECK(resp_bulks_add(&run, p, 10) == 0);
    CHECK(resp_bulks_add(&run, p, 99) == 0);
    CHECK(resp_bulks_add(&run, p, 100) < 0);
    resp_bulks_end(&o, &run);
    char one[256];
    int n = snprintf(one, sizeof(one), "$0\r\n\r\n$9\r\n%.9s\r\n$10\r\n%.10s\r\n$99\r\n%.99s\r\n", p,
                     p, p);
    CHECK(drained_is(&o, one, (size_t)n));
    resp_out_destroy(&o);
}

/* Bytes handed out by peek stay where they are, unchanged, while more replies
 * are appended and earlier ones consumed. */
static void test_stability(void)
{
    struct resp_out o;
    struct resp_iov iov[64], again[64];
    char *copy[64];
    int n;

    resp_out_init(&o);
    for (int i = 0; i < 3000; i++)
        resp_add_bulk_ll(&o, i);
    n = resp_out_peek(&o, iov, 64);
    CHECK(n >= 2);
    for (int i = 0; i < n; i++) {
        copy[i] = malloc(iov[i].len);
        memcpy(copy[i], iov[i].base, iov[i].len);
    }
    for (int i = 0; i < 5000; i++) {
        static const char big[20000];
        resp_add_simple(&o, "OK");
        if (i % 1000 == 0)
            resp_add_bulk(&o, big, sizeof(big));
    }
    CHECK(resp_out_peek(&o, again, 64) > n);
    for (int i = 0; i < n; i++) {
        CHECK(again[i].base == iov[i].base && again[i].len >= iov[i].len); /* the tail view may grow */
        CHECK(memcmp(again[i].base, copy[i], iov[i].len) == 0);
    }
    /* Consume part of the first view: the rest of it stays put. */
    resp_out_consume(&o, 10);
    CHECK(resp_out_peek(&o, again, 64) > 0);
    CHECK(again[0].base == iov[0].base + 10 && memcmp(again[0].base, copy[0] + 10, iov[0].len - 10) == 0);
    for (int i = 0; i < n; i++)
        free(copy[i]);
    resp_out_destroy(&o);
}

/* A big bulk is copied once, into one chunk that also holds its CRLF. */
static void test_big_bulk(void)
{
    const size_t big = 1 << 20;
    char *val = malloc(big);
    struct resp_out o;
    struct resp_iov iov[8];
    long calls;
    char hdr[32];
    size_t hl;

    memset(val, 'x', big);
    resp_out_init(&o);
    resp_add_simple(&o, "OK");
    calls = test_alloc.calls;
    resp_add_bulk(&o, val, big);
    CHECK(test_alloc.calls == calls + 1);
    CHECK(o.head != NULL && o.head == o.tail && o.tail->cap >= big + 2 - RESP_OUT_INLINE);
    CHECK(resp_out_peek(&o, iov, 8) == 2);
    hl = (size_t)snprintf(hdr, sizeof(hdr), "$%zu\r\n", big);
    CHECK(iov[0].len + iov[1].len == 5 + hl + big + 2);
    CHECK(memcmp(iov[1].base + iov[1].len - 2, "\r\n", 2) == 0);
    resp_out_consume(&o, resp_out_pending(&o));
    CHECK(o.head == NULL && o.chunk_bytes == 0 && o.inline_used == 0);
    resp_out_destroy(&o);
    free(val);
}

/* Deferred lengths: nothing after an unset one is visible; set, the header
 * lands right before the elements; nested ones; RESP2/RESP3 maps and sets. */
static void test_deferred(void)
{
    struct resp_out o;
    struct resp_deferred outer, inner, empty;
    struct resp_iov iov[8];
    static const char want[] =
        "+before\r\n*3\r\n:1\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n*0\r\n+after\r\n";

    resp_out_init(&o);
    resp_add_simple(&o, "before");
    resp_add_deferred(&o, &outer);
    resp_add_int(&o, 1);
    CHECK(resp_out_peek(&o, iov, 8) == 1 && iov[0].len == 9); /* only "+before" */
    resp_add_deferred(&o, &inner);
    resp_add_bulk(&o, "a", 1);
    resp_add_bulk(&o, "b", 1);
    resp_set_deferred_array(&o, &inner, 2);
    CHECK(resp_out_peek(&o, iov, 8) == 1); /* the outer one still hides all */
    resp_add_deferred(&o, &empty);
    resp_set_deferred_array(&o, &empty, 0);
    resp_set_deferred_array(&o, &outer, 3);
    resp_add_simple(&o, "after");
    CHECK(resp_out_pending(&o) == sizeof(want) - 1);
    CHECK(drained_is(&o, want, sizeof(want) - 1));
    CHECK(o.head == NULL);

    /* Consume what is visible while a deferred length is still open. */
    resp_add_simple(&o, "x");
    resp_add_deferred(&o, &outer);
    resp_add_simple(&o, "y");
    CHECK(resp_out_peek(&o, iov, 8) == 1);
    resp_out_consume(&o, iov[0].len);
    CHECK(resp_out_peek(&o, iov, 8) == 0);
    CHECK(resp_out_pending(&o) == 4);
    resp_set_deferred_map(&o, &outer, 1);
    CHECK(drained_is(&o, "*2\r\n+y\r\n", 8));

    o.proto = 3;
    resp_add_deferred(&o, &outer);
    resp_add_deferred(&o, &inner);
    resp_set_deferred_set(&o, &inner, 0);
    resp_set_deferred_map(&o, &outer, 1);
    CHECK(drained_is(&o, "%1\r\n~0\r\n", 8));
    o.proto = 2;
    resp_add_deferred(&o, &outer);
    resp_set_deferred_set(&o, &outer, 7);
    CHECK(drained_is(&o, "*7\r\n", 4));
    resp_out_destroy(&o);
}

/* A muted stream takes nothing from any writer, deferred aggregates and
 * big bulks included, keeps the mute across a reset, and a push written
 * between unmute_begin and unmute_end goes out. */
static void test_muted(void)
{
    struct resp_out o;
    struct resp_deferred d;
    static char big[RESP_OUT_CHUNK * 2];

    resp_out_init(&o);
    resp_add_simple(&o, "kept");
    o.muted = 1;
    resp_add_simple(&o, "a");
    resp_add_error(&o, "ERR x");
    resp_add_errorf(&o, "ERR %d", 1);
    resp_add_int(&o, 5);
    resp_add_bulk(&o, "b", 1);
    resp_add_bulk(&o, big, sizeof(big));
    resp_add_null(&o);
    resp_add_double(&o, 1.5);
    resp_add_verbatim(&o, "txt", "t", 1);
    resp_add_raw(&o, "r", 1);
    resp_add_deferred(&o, &d);
    resp_add_int(&o, 1);
    resp_set_deferred_array(&o, &d, 1);
    CHECK(!o.failed);
    CHECK(drained_is(&o, "+kept\r\n", 7));
    int was = resp_out_unmute_begin(&o);
    resp_add_push_len(&o, 1);
    resp_add_bulk(&o, "m", 1);
    resp_out_unmute_end(&o, was);
    resp_add_int(&o, 2);
    CHECK(drained_is(&o, "*1\r\n$1\r\nm\r\n", 11));
    resp_out_reset(&o);
    CHECK(o.muted == 1);
    o.muted = 0;
    resp_add_int(&o, 3);
    CHECK(drained_is(&o, ":3\r\n", 4));
    resp_out_destroy(&o);
}

/* A reply of many elements fills chunk after chunk: no realloc, ever. */
static void test_large_array(void)
{
    struct resp_out o;
    long calls = test_alloc.calls, reallocs = test_alloc.reallocs;
    size_t total;

    resp_out_init(&o);
    resp_add_array_len(&o, 200000);
    for (int i = 0; i < 200000; i++)
        resp_add_bulk_ll(&o, i);
    total = resp_out_pending(&o);
    CHECK(test_alloc.reallocs == reallocs);
    CHECK((size_t)(test_alloc.calls - calls) <= total / RESP_OUT_CHUNK + 1);
    CHECK(o.chunk_bytes >= total - RESP_OUT_INLINE);
    resp_out_destroy(&o);
}

static void fill_scenario(struct resp_out *o, const char *big, size_t big_len)
{
    struct resp_deferred d;

    for (int i = 0; i < 3000; i++)
        resp_add_bulk_ll(o, i);
    resp_add_deferred(o, &d);
    resp_add_bulk(o, big, big_len);
    resp_add_errorf(o, "ERR %0300d", 1);
    resp_set_deferred_array(o, &d, 2);
    resp_add_bulk(o, big, big_len);
}

/* Each allocation of a scenario failing in turn: failed is set, nothing
 * crashes, and destroy frees everything. */
static void test_oom(void)
{
    const size_t big = 100000;
    char *val = malloc(big);
    struct resp_out o;
    long needed;

    memset(val, 'y', big);
    resp_out_init(&o);
    needed = test_alloc.calls;
    fill_scenario(&o, val, big);
    needed = test_alloc.calls - needed;
    CHECK(!o.failed && needed >= 3);
    resp_out_destroy(&o);
    for (long k = 0; k < needed; k++) {
        struct resp_iov iov[16];
        resp_out_init(&o);
        test_alloc_fail_after(k);
        fill_scenario(&o, val, big);
        test_alloc_fail_after(-1);
        CHECK(o.failed);
        CHECK(resp_out_peek(&o, iov, 16) >= 0);
        resp_add_simple(&o, "ignored");
        resp_out_destroy(&o);
        CHECK(test_alloc.live == 0);
    }
    /* reset clears failed and drops everything, keeping the protocol. */
    resp_out_init(&o);
    o.proto = 3;
    test_alloc_fail_after(0);
    fill_scenario(&o, val, big);
    test_alloc_fail_after(-1);
    CHECK(o.failed);
    resp_out_reset(&o);
    CHECK(!o.failed && resp_out_pending(&o) == 0 && o.proto == 3 && test_alloc.live == 0);
    resp_add_null(&o);
    CHECK(drained_is(&o, "_\r\n", 3));
    resp_out_destroy(&o);
    free(val);
}

/* ---- The error hook ---- */

static int hook_calls;
static char hook_last[64];

static void count_error_hook(struct resp_out *o, const char *msg)
{
    (void)o;
    hook_calls++;
    snprintf(hook_last, sizeof(hook_last), "%s", msg);
}

/* on_error sees each error reply's message, from resp_add_error and
 * resp_add_errorf alike, nothing else, and survives resp_out_reset. */
static void test_error_hook(void)
{
    struct resp_out o;
    resp_out_init(&o);
    CHECK(o.on_error == NULL);
    resp_add_error(&o, "ERR before the hook");
    o.on_error = count_error_hook;
    resp_add_simple(&o, "OK");
    resp_add_int(&o, 1);
    CHECK(hook_calls == 0);
    resp_add_error(&o, "WRONGTYPE x");
    CHECK(hook_calls == 1 && !strcmp(hook_last, "WRONGTYPE x"));
    resp_add_errorf(&o, "ERR n=%d", 7);
    CHECK(hook_calls == 2 && !strcmp(hook_last, "ERR n=7"));
    resp_out_reset(&o);
    resp_add_error(&o, "ERR after reset");
    CHECK(hook_calls == 3 && o.on_error == count_error_hook);
    resp_out_destroy(&o);
}

/* ---- Random replies against a model encoder ---- */

struct sbuf {
    char *p;
    size_t len, cap;
};

static void sb_add(struct sbuf *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (b->p == NULL)
            abort();
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    sb_add(b, tmp, (size_t)n);
}

/* Writes a random reply (maybe nested, maybe deferred) to o and its expected
 * bytes to model. A deferred aggregate's header is only known at the end, so
 * its elements go to a side buffer first. */
static void random_reply(uint64_t *rs, struct resp_out *o, struct sbuf *model, int depth, const char *blob)
{
    int p3 = o->proto == 3;
    size_t k = rng_below(rs, depth < 3 ? 12 : 8);

    switch (k) {
    case 0: {
        long long v = (long long)rng_next(rs) >> rng_below(rs, 64);
        resp_add_int(o, v);
        sb_printf(model, ":%lld\r\n", v);
        break;
    }
    case 1: {
        size_t n = rng_below(rs, 10) == 0 ? rng_below(rs, 70000) : rng_below(rs, 40);
        size_t off = rng_below(rs, 1000);
        resp_add_bulk(o, blob + off, n);
        sb_printf(model, "$%zu\r\n", n);
        sb_add(model, blob + off, n);
        sb_add(model, "\r\n", 2);
        break;
    }
    case 2:
        resp_add_simple(o, "OK");
        sb_add(model, "+OK\r\n", 5);
        break;
    case 3:
        resp_add_null(o);
        sb_add(model, p3 ? "_\r\n" : "$-1\r\n", p3 ? 3 : 5);
        break;
    case 4: {
        int b = (int)rng_below(rs, 2);
        resp_add_bool(o, b);
        sb_printf(model, p3 ? "#%c\r\n" : ":%c\r\n", p3 ? (b ? 't' : 'f') : (b ? '1' : '0'));
        break;
    }
    case 5: {
        double d = (double)(long long)rng_below(rs, 2000000) / 64.0 - 10000.0;
        char txt[64];
        /* test_doubles checks the text; here only its framing is modelled. */
        int n = resp_format_double(txt, d);
        CHECK(strtod(txt, NULL) == d);
        resp_add_double(o, d);
        if (p3)
            sb_printf(model, ",%s\r\n", txt);
        else
            sb_printf(model, "$%d\r\n%s\r\n", n, txt);
        break;
    }
    case 6:
        resp_add_error(o, "ERR x");
        sb_add(model, "-ERR x\r\n", 8);
        break;
    case 7:
        resp_add_null_array(o);
        sb_add(model, p3 ? "_\r\n" : "*-1\r\n", p3 ? 3 : 5);
        break;
    default: { /* aggregates: array, map, set, deferred array */
        size_t n = rng_below(rs, 6);
        int kind = (int)rng_below(rs, 4);
        struct resp_deferred d;
        struct sbuf side = { 0 };
        if (kind == 3) {
            resp_add_deferred(o, &d);
        } else if (kind == 0) {
            resp_add_array_len(o, n);
            sb_printf(model, "*%zu\r\n", n);
        } else if (kind == 1) {
            resp_add_map_len(o, n);
            sb_printf(model, p3 ? "%%%zu\r\n" : "*%zu\r\n", p3 ? n : 2 * n);
        } else {
            resp_add_set_len(o, n);
            sb_printf(model, p3 ? "~%zu\r\n" : "*%zu\r\n", n);
        }
        for (size_t i = 0; i < (kind == 1 ? 2 * n : n); i++)
            random_reply(rs, o, kind == 3 ? &side : model, depth + 1, blob);
        if (kind == 3) {
            resp_set_deferred_array(o, &d, n);
            sb_printf(model, "*%zu\r\n", n);
            sb_add(model, side.p, side.len);
            free(side.p);
        }
        break;
    }
    }
}

static void test_random(uint64_t seed)
{
    uint64_t rs = seed;
    char *blob = malloc(80000);

    for (size_t i = 0; i < 80000; i++)
        blob[i] = (char)rng_next(&rs);
    for (int round = 0; round < 200; round++) {
        struct resp_out o;
        struct sbuf model = { 0 }, got = { 0 };
        int replies = 1 + (int)rng_below(&rs, 100);

        resp_out_init(&o);
        o.proto = 2 + (int)rng_below(&rs, 2);
        for (int i = 0; i < replies; i++) {
            random_reply(&rs, &o, &model, 0, blob);
            /* Write out a random part of what is visible, as a socket would. */
            if (rng_below(&rs, 3) == 0) {
                struct resp_iov iov[4];
                int n = resp_out_peek(&o, iov, 4);
                size_t want = rng_below(&rs, 30000);
                for (int j = 0; j < n && want > 0; j++) {
                    size_t take = iov[j].len < want ? iov[j].len : want;
                    sb_add(&got, iov[j].base, take);
                    resp_out_consume(&o, take);
                    want -= take;
                    if (take < iov[j].len)
                        break;
                }
            }
        }
        {
            size_t n;
            char *rest = drain(&o, &n);
            sb_add(&got, rest, n);
            free(rest);
        }
        CHECK(!o.failed);
        CHECK_MSG(got.len == model.len && memcmp(got.p, model.p, got.len) == 0,
                  "random round %d differs", round);
        resp_out_destroy(&o);
        free(model.p);
        free(got.p);
    }
    free(blob);
}

int main(void)
{
    uint64_t seed = check_seed((uint64_t)time(NULL));

    test_table();
    test_doubles(seed);
    test_no_alloc();
    test_bulk_lengths();
    test_bulk_runs();
    test_stability();
    test_big_bulk();
    test_deferred();
    test_muted();
    test_large_array();
    test_oom();
    test_error_hook();
    test_random(seed);
    return test_finish("test_resp_writer");
}
