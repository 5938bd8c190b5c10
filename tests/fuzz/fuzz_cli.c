/*
 * fuzz_cli.c - libFuzzer target for what rbkv-cli reads: a load file (tsv
 * lines or RESP commands, client/load.c and escape.c) and a server's replies
 * (range, prefix and dump paging through KRANGE, TYPE, HSCAN, ZRANGE,
 * XRANGE and XINFO in client/range.c; plain mode's printing in print.c).
 *
 * The client runs as it does, on a hiredis context over a socketpair whose
 * other end a thread of this file serves: in load mode it answers every
 * command (+OK, or an error every few), in reply mode it sends the input's
 * bytes as the replies, whatever was asked, then closes its side.
 *
 * Input: byte 0 picks the mode and its options (below); the rest is the
 * load file, or the replies. Checked, aborting on a violation:
 *  1. Nothing crashes, leaks, reads out of bounds or hangs; the exit code is
 *     one of CLI_OK, CLI_ERR_REPLY, CLI_ERR_USAGE, and CLI_ERR_REPLY only
 *     after an error reply.
 *  2. load sends tsv lines as SET key value, RESP input as arrays of bulk
 *     strings; what a tsv SET carries, escaped as dump writes it, unescapes
 *     to the same bytes.
 *  3. What range writes in tsv is load's tsv (every line unescapes, key and
 *     value); what dump writes in RESP is load's RESP (arrays of bulk
 *     strings only, nothing cut).
 * The load file is read as `load -` reads stdin, and output and messages go
 * to memory and /dev/null while the client runs: the target swaps glibc's
 * stdin, stdout and stderr streams, which are variables; the sanitizers
 * write their reports to the real stderr.
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The server's side of the socketpair. */
struct peer {
    int fd;
    int load;            /* answer each command; else send `replies` */
    int tsv;             /* load mode: each command must be SET key value */
    int error_every;     /* load mode: every n-th command gets an error (0 never) */
    const char *replies;
    size_t replies_len;
    size_t commands;     /* what it read */
    size_t errors_sent;
};

static void fail(const char *why)
{
    fprintf(stderr, "fuzz_cli: %s\n", why);
    abort();
}

/* A tsv SET's key or value, escaped and unescaped again. */
static void check_escape(const char *s, size_t len)
{
    char *text = NULL;
    size_t tlen = 0;
    FILE *m = open_memstream(&text, &tlen);
    if (!m)
        fail("open_memstream");
    cli_tsv_escape(m, s, len);
    fclose(m);
    if (memchr(text, '\t', tlen) || memchr(text, '\n', tlen))
        fail("an escaped string holds a TAB or a newline");
    long n = cli_tsv_unescape(text, tlen);
    if (n < 0 || (size_t)n != len || memcmp(text, s, len))
        fail("tsv escaping does not round-trip");
    free(text);
}

static void check_command(const struct peer *p, const redisReply *r)
{
    if (r->type != REDIS_REPLY_ARRAY || r->elements == 0)
        fail("load sent something other than an array");
    for (size_t i = 0; i < r->elements; i++)
        if (r->element[i]->type != REDIS_REPLY_STRING)
            fail("load sent an argument that is not a bulk string");
    if (!p->tsv)
        return;
    if (r->elements != 3 || r->element[0]->len != 3 || memcmp(r->element[0]->str, "SET", 3))
        fail("a tsv line went out as something other than SET key value");
    check_escape(r->element[1]->str, r->element[1]->len);
    check_escape(r->element[2]->str, r->element[2]->len);
}

struct out {
    char *p;
    size_t len, sent;
};

static void out_add(struct out *o, const char *s)
{
    size_t n = strlen(s);
    o->p = realloc(o->p, o->len + n);
    if (!o->p)
        fail("out of memory");
    memcpy(o->p + o->len, s, n);
    o->len += n;
}

/* Serves until the client closes its end; never blocks on one direction
 * while the other has bytes waiting, so neither side can fill up. */
static void *peer_main(void *arg)
{
    struct peer *p = arg;
    redisReader *reader = redisReaderCreate();
    struct out out = {0}; /* load mode: the answers */
    int shut = 0;
    char buf[4096];

    for (;;) {
        const char *pending = p->load ? out.p : p->replies;
        size_t len = p->load ? out.len : p->replies_len;
        struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
        if (out.sent < len)
            pfd.events |= POLLOUT;
        if (poll(&pfd, 1, -1) < 0)
            fail("poll");
        if (pfd.revents & POLLOUT) {
            ssize_t w = send(p->fd, pending + out.sent, len - out.sent, MSG_NOSIGNAL);
            if (w > 0)
                out.sent += (size_t)w;
        }
        if (!p->load && !shut && out.sent == len) {
            shutdown(p->fd, SHUT_WR); /* no more replies: the client sees the end */
            shut = 1;
        }
        if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t n = read(p->fd, buf, sizeof(buf));
        if (n <= 0)
            break;
        if (!p->load)
            continue;
        void *r;
        redisReaderFeed(reader, buf, (size_t)n);
        while (redisReaderGetReply(reader, &r) == REDIS_OK && r) {
            check_command(p, r);
            freeReplyObject(r);
            p->commands++;
            if (p->error_every && p->commands % (size_t)p->error_every == 0) {
                out_add(&out, "-ERR fuzz\r\n");
                p->errors_sent++;
            } else {
                out_add(&out, "+OK\r\n");
            }
        }
        if (reader->err)
            fail("load sent malformed RESP");
    }
    free(out.p);
    redisReaderFree(reader);
    return NULL;
}

/* Every line of a tsv listing is key[TAB value], each unescaping. */
static void check_tsv(char *text, size_t len)
{
    char *line = text, *end = text + len;
    while (line < end) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        if (!nl)
            fail("tsv output does not end in a newline");
        char *tab = memchr(line, '\t', (size_t)(nl - line));
        char *kend = tab ? tab : nl;
        if (cli_tsv_unescape(line, (size_t)(kend - line)) < 0 ||
            (tab && cli_tsv_unescape(tab + 1, (size_t)(nl - tab - 1)) < 0))
            fail("a tsv line load would refuse");
        line = nl + 1;
    }
}

/* dump --format resp's output: arrays of bulk strings, nothing cut. */
static void check_resp(const char *text, size_t len)
{
    redisReader *reader = redisReaderCreate();
    void *r;
    redisReaderFeed(reader, text, len);
    while (redisReaderGetReply(reader, &r) == REDIS_OK && r) {
        const redisReply *c = r;
        if (c->type != REDIS_REPLY_ARRAY || c->elements < 2)
            fail("dump wrote something other than a command");
        for (size_t i = 0; i < c->elements; i++)
            if (c->element[i]->type != REDIS_REPLY_STRING)
                fail("dump wrote an argument that is not a bulk string");
        freeReplyObject(r);
    }
    if (reader->err || reader->pos != reader->len)
        fail("dump's RESP output is malformed or cut");
    redisReaderFree(reader);
}

/* Plain mode, as main.c's run_plain, for as many replies as come. */
static int run_plain(redisContext *ctx)
{
    int rc = CLI_OK;
    for (int i = 0; i < 64 && rc == CLI_OK; i++) {
        redisReply *r = redisCommand(ctx, "GET k");
        if (!r)
            return cli_conn_error(ctx);
        if (r->type == REDIS_REPLY_ERROR)
            rc = CLI_ERR_REPLY;
        else
            cli_print_reply(r);
        freeReplyObject(r);
    }
    return rc;
}

/*
 * Byte 0, load mode (bit 0 clear): bits 1-2 the format (tsv, resp, then
 * guessed from the first byte twice), bit 3 --skip-bad, bits 4-5 --batch
 * (1, 2, 3, 1000), bits 6-7 an error reply every 0 (never), 2, 3 or 5.
 * Reply mode (bit 0 set): bits 1-2 plain, range, prefix "p" or dump; bits
 * 3-4 the format (plain, tsv, json, resp; dump: tsv or resp by bit 3),
 * bit 5 --values, bit 6 --rev, bit 7 --page 1 (else 3).
 */
static int run(redisContext *ctx, uint8_t how, char *bounds, int *tsv_out, int *resp_out)
{
    if (!(how & 1)) {
        static const long long batches[] = {1, 2, 3, 1000};
        struct cli_load_opts o = {.path = "-",
                                  .resp = (how >> 1 & 3) < 2 ? (how >> 1 & 3) : -1,
                                  .skip_bad = how >> 3 & 1,
                                  .batch = batches[how >> 4 & 3]};
        return cli_load(ctx, &o);
    }
    int what = how >> 1 & 3;
    if (what == 0)
        return run_plain(ctx);
    struct cli_range_opts o = {.min = "-", .max = "+", .limit = -1,
                               .values = how >> 5 & 1, .rev = how >> 6 & 1,
                               .page = how >> 7 ? 1 : 3};
    struct cli_writer w = {.format = (enum cli_format)(how >> 3 & 3)};
    if (what == 2)
        cli_prefix_bounds("p", 1, bounds, &o);
    if (what == 3) {
        w.format = how >> 3 & 1 ? FMT_RESP : FMT_TSV;
        o.values = w.as_set = o.dump = 1;
        o.rev = 0;
    }
    w.values = o.values;
    *tsv_out = w.format == FMT_TSV;
    *resp_out = w.format == FMT_RESP && o.dump;
    return cli_range(ctx, &o, &w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *quiet;
    int fds[2];
    pthread_t thread;
    char bounds[CLI_PREFIX_BOUNDS_SIZE(1)];
    char *text = NULL;
    size_t text_len = 0;
    int tsv = 0, resp = 0;

    if (size < 1)
        return 0;
    if (!quiet && !(quiet = fopen("/dev/null", "w")))
        fail("/dev/null");
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
        fail("socketpair");
    struct peer peer = {.fd = fds[1],
                        .load = !(data[0] & 1),
                        .tsv = !(data[0] & 1) && (data[0] >> 1 & 3) == 0,
                        .replies = (const char *)data + 1,
                        .replies_len = size - 1};
    static const int every[] = {0, 2, 3, 5};
    peer.error_every = peer.load ? every[data[0] >> 6] : 0;
    if (pthread_create(&thread, NULL, peer_main, &peer) != 0)
        fail("pthread_create");
    redisContext *ctx = redisConnectFd(fds[0]);
    if (!ctx || ctx->err)
        fail("redisConnectFd");

    /* fmemopen refuses an empty buffer: /dev/null is an empty file. */
    FILE *in = size > 1 ? fmemopen((void *)(data + 1), size - 1, "r") : fopen("/dev/null", "r");
    FILE *out = open_memstream(&text, &text_len);
    FILE *real_in = stdin, *real_out = stdout, *real_err = stderr;
    if (!in || !out)
        fail("fmemopen, open_memstream");
    stdin = in;
    stdout = out;
    stderr = quiet;
    int rc = run(ctx, data[0], bounds, &tsv, &resp);
    stdin = real_in;
    stdout = real_out;
    stderr = real_err;
    fclose(in);
    fclose(out);

    redisFree(ctx); /* closes fds[0]: the peer sees the end */
    pthread_join(thread, NULL);
    close(fds[1]);
    if (rc != CLI_OK && rc != CLI_ERR_REPLY && rc != CLI_ERR_USAGE)
        fail("an exit code rbkv-cli does not have");
    if (peer.load && rc == CLI_ERR_REPLY && !peer.errors_sent)
        fail("an error reported with no error reply");
    if (tsv)
        check_tsv(text, text_len);
    if (resp)
        check_resp(text, text_len);
    free(text);
    return 0;
}
