/*
 * fuzz_resp_parser.c - libFuzzer target for proto/resp_parser.c, with the
 * writer's resp_add_command() as the way back.
 *
 * Input: byte 0 picks the limits (bits 0-5 the ordinary ones, bits 6-7 the
 * pre-AUTH ones), byte 1 seeds how the stream is cut into
 * reads, the rest is the stream. Checked, aborting on any violation:
 *  1. Fed whole, and fed in reads of sizes drawn from byte 1, the stream gives
 *     the same requests and the same outcome.
 *  2. Every request has arguments; an error is one of the parser's texts and
 *     sticky; buffered() never exceeds what was fed.
 *  3. The requests, written back with resp_add_command() and parsed again,
 *     give the same arguments.
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "resp_parser.h"
#include "resp_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct summary {
    uint64_t hash;      /* FNV-1a over each request's form and arguments */
    uint64_t args_hash; /* the same without the form, to compare with the round trip */
    long requests;
    const char *error;  /* final error text, NULL if the stream ended in RESP_AGAIN */
};

static void check(int ok)
{
    if (!ok)
        abort();
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ULL;
    return h;
}

static void add_request(struct summary *s, const struct resp_request *r, struct resp_out *echo)
{
    check(r->argc > 0);
    s->hash = fnv(s->hash, &r->inline_form, sizeof(r->inline_form));
    for (int i = 0; i < r->argc; i++) {
        check(r->argv[i].ptr != NULL || r->argv[i].len == 0);
        s->hash = fnv(s->hash, &r->argv[i].len, sizeof(r->argv[i].len));
        s->hash = fnv(s->hash, r->argv[i].ptr, r->argv[i].len);
        s->args_hash = fnv(s->args_hash, &r->argv[i].len, sizeof(r->argv[i].len));
        s->args_hash = fnv(s->args_hash, r->argv[i].ptr, r->argv[i].len);
    }
    s->args_hash = fnv(s->args_hash, "|", 1);
    s->requests++;
    if (echo != NULL)
        resp_add_command(echo, r->argc, r->argv);
}

static void drain(struct resp_parser *p, struct summary *s, struct resp_out *echo)
{
    struct resp_request req;
    int r;

    while ((r = resp_parser_next(p, &req)) == RESP_REQUEST) {
        check(s->error == NULL);
        add_request(s, &req, echo);
    }
    if (r == RESP_ERR) {
        const char *e = resp_parser_error(p);
        check(e != NULL);
        check(strncmp(e, "Protocol error: ", 16) == 0 || strcmp(e, "out of memory") == 0);
        check(s->error == NULL || strcmp(s->error, e) == 0);
        s->error = e;
        check(resp_parser_next(p, &req) == RESP_ERR && resp_parser_error(p) == e);
    } else {
        check(r == RESP_AGAIN && s->error == NULL);
    }
}

static struct resp_limits pick_limits(uint8_t b)
{
    static const size_t inl[] = { 16, 64, 1024, RESP_DEFAULT_MAX_INLINE_LEN };
    static const size_t bulk[] = { 16, 1000, RESP_BIG_ARG + 4096, 1 << 20 };
    static const size_t multi[] = { 1, 3, 100, 1024 };
    struct resp_limits l = { bulk[(b >> 2) & 3], multi[(b >> 4) & 3], inl[b & 3], 0, 0 };

    /* The top bits add pre-AUTH limits: tiny ones, or Redis's. */
    if (b >> 6 == 1) {
        l.unauth_max_bulk_len = 8;
        l.unauth_max_multibulk_len = 2;
    } else if (b >> 6 == 2) {
        l.unauth_max_bulk_len = RESP_UNAUTH_MAX_BULK_LEN;
        l.unauth_max_multibulk_len = RESP_UNAUTH_MAX_MULTIBULK_LEN;
    }
    return l;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct resp_parser whole, reads, again;
    struct summary a = { 0xcbf29ce484222325ULL, 0xcbf29ce484222325ULL, 0, NULL };
    struct summary b = a, c = a;
    struct resp_limits lim;
    struct resp_out echo;
    uint32_t rng;
    const char *in;
    size_t n, off = 0;

    if (size < 2)
        return 0;
    lim = pick_limits(data[0]);
    rng = data[1] * 2654435761u + 1;
    in = (const char *)data + 2;
    n = size - 2;

    /* 1 and 2: whole, echoing the requests into a writer for 3. */
    resp_out_init(&echo);
    resp_parser_init(&whole, &lim);
    check(resp_parser_feed(&whole, in, n) == 0);
    drain(&whole, &a, &echo);
    check(resp_parser_buffered(&whole) <= n);

    resp_parser_init(&reads, &lim);
    while (off < n) {
        size_t want;
        rng = rng * 1103515245u + 12345u;
        want = 1 + (rng >> 16) % (1u << ((rng >> 8) % 12));
        if (want > n - off)
            want = n - off;
        check(resp_parser_feed(&reads, in + off, want) == 0);
        off += want;
        drain(&reads, &b, NULL);
        check(resp_parser_buffered(&reads) <= off);
    }
    drain(&reads, &b, NULL);
    check(a.hash == b.hash && a.requests == b.requests);
    check((a.error == NULL) == (b.error == NULL));
    check(a.error == NULL || strcmp(a.error, b.error) == 0);

    /* 3: what resp_add_command() wrote parses back to the same arguments. */
    check(!echo.failed);
    resp_parser_init(&again, NULL);
    while (resp_out_pending(&echo) > 0) {
        struct resp_iov iov[4];
        int k = resp_out_peek(&echo, iov, 4);
        check(k > 0);
        for (int i = 0; i < k; i++) {
            check(resp_parser_feed(&again, iov[i].base, iov[i].len) == 0);
            resp_out_consume(&echo, iov[i].len);
        }
        drain(&again, &c, NULL);
    }
    check(c.error == NULL && c.requests == a.requests && c.args_hash == a.args_hash);

    resp_out_destroy(&echo);
    resp_parser_destroy(&whole);
    resp_parser_destroy(&reads);
    resp_parser_destroy(&again);
    return 0;
}
