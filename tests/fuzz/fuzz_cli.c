/*
 * fuzz_cli.c - libFuzzer target for what rbkv-cli reads: a load file (tsv
 * lines or RESP commands, client/load.c and escape.c) and a server's replies
 * (range, prefix and dump paging through KRANGE, TYPE, HSCAN, ZRANGE,
 * XRANGE and XINFO in client/range.c; plain mode's printing in print.c;
 * -c's CLUSTER SLOTS and -MOVED/-ASK readers in cluster.c, and load -c's
 * COMMAND INFO reader in cload.c).
 *
 * The client runs as it does, on a hiredis context over a socketpair whose
 * other end holds the answers before it starts, and its side closed: in
 * load mode a +OK (or an error every few) for as many commands as the file
 * can hold, in reply mode the input's bytes, whatever is asked. What the
 * client sends waits in the socket and is checked after it returns. No
 * thread, so a run is quick and the same every time; an input too big for
 * the socket's buffers ends in a connection error (SO_SNDTIMEO), not a hang.
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
 *  4. A load of RESP input that succeeds read it to the end of a command.
 * The load file is read as `load -` reads stdin, and output and messages go
 * to memory and /dev/null while the client runs: the target swaps glibc's
 * stdin, stdout and stderr streams, which are variables; the sanitizers
 * write their reports to the real stderr.
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The server's side of the socketpair. */
struct peer {
    int fd;
    int load;            /* answers for load; else the input as the replies */
    int tsv;             /* load mode: each command must be SET key value */
    size_t commands;     /* what the client sent */
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

/* Writes what fits of p[0..n) to the nonblocking fd, then closes its
 * writing side: the client sees the end after it. */
static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            break; /* full: the rest is cut */
        p += w;
        n -= (size_t)w;
    }
    shutdown(fd, SHUT_WR);
}

/* load mode: +OK for each of up to n commands, an error every `every`-th. */
static void send_answers(int fd, size_t n, int every)
{
    static const char ok[] = "+OK\r\n", err[] = "-ERR fuzz\r\n";
    char *text = malloc(n * (sizeof(err) - 1) + 1), *at = text;
    if (!text)
        fail("out of memory");
    for (size_t i = 1; i <= n; i++) {
        const char *a = every && i % (size_t)every == 0 ? err : ok;
        size_t len = strlen(a);
        memcpy(at, a, len);
        at += len;
    }
    send_all(fd, text, (size_t)(at - text));
    free(text);
}

/* Reads what the client sent, once it is done, checking each command. */
static void read_commands(struct peer *p)
{
    redisReader *reader = redisReaderCreate();
    char buf[4096];
    ssize_t n;
    void *r;
    while ((n = read(p->fd, buf, sizeof(buf))) > 0) {
        redisReaderFeed(reader, buf, (size_t)n);
        while (redisReaderGetReply(reader, &r) == REDIS_OK && r) {
            if (p->load)
                check_command(p, r);
            freeReplyObject(r);
            p->commands++;
        }
        if (reader->err)
            fail("the client sent malformed RESP");
    }
    redisReaderFree(reader);
}

/* A reply announcing a huge array makes hiredis allocate its slots at
 * once (16 GB for "*2000000000"), which libFuzzer reports as running out of
 * memory; rbkv-cli takes replies as they come, as redis-cli does, so the
 * target refuses such arrays itself (hiredis then reports out of memory,
 * and the client a connection error). */
#define REPLY_MAX_ELEMENTS (1 << 20)
static void *(*create_array_hiredis)(const redisReadTask *, int);

static void *create_array(const redisReadTask *task, int elements)
{
    return elements > REPLY_MAX_ELEMENTS ? NULL : create_array_hiredis(task, elements);
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

/* Whether text[0..len) is whole RESP values, one after another; with
 * commands set, each an array of at least two bulk strings. */
static int whole_resp(const char *text, size_t len, int commands)
{
    redisReader *reader = redisReaderCreate();
    size_t whole = 0;
    void *r;
    int ok = 1;
    redisReaderFeed(reader, text, len);
    while (ok && redisReaderGetReply(reader, &r) == REDIS_OK && r) {
        const redisReply *c = r;
        if (commands) {
            ok = c->type == REDIS_REPLY_ARRAY && c->elements >= 2;
            for (size_t i = 0; ok && i < c->elements; i++)
                ok = c->element[i]->type == REDIS_REPLY_STRING;
        }
        freeReplyObject(r);
        whole = len - (reader->len - reader->pos);
    }
    ok = ok && !reader->err && whole == len;
    redisReaderFree(reader);
    return ok;
}

/* A redirect read from a reply is within its limits. */
static void check_redirect(const redisReply *r)
{
    char host[16];
    int slot = -1, port = -1;
    int ask = cli_parse_redirect(r, &slot, host, sizeof(host), &port);
    if (ask < 0)
        return;
    if (ask > 1 || slot < 0 || slot > 16383 || port < 1 || port > 65535 ||
        strnlen(host, sizeof(host)) == sizeof(host))
        fail("a redirect out of its limits");
}

/* A reply read as COMMAND INFO's for load -c: a key's index is never
 * negative, and a reply that is no entry names none. */
static void check_keyspec(const redisReply *r)
{
    struct cli_keyspec s = {-1, -1, -1, -1};
    int rc = cli_keyspec_parse(r, &s);
    if (s.first < 0 || s.step < 0 || (!s.first && (s.last || s.step)) ||
        (s.movable != 0 && s.movable != 1) ||
        (rc < 0 && (s.first || s.last || s.step || s.movable)))
        fail("COMMAND INFO read out of its limits");
    /* Any argument count, even one shorter than the key positions. */
    for (long long argc = 0; argc < 8; argc++)
        if (cli_keyspec_many(&s, argc) && (argc < 3 || s.first >= argc))
            fail("COMMAND INFO read as several keys in too few arguments");
}

/* Plain mode, as main.c's run_plain, for as many replies as come; with
 * cluster, CLUSTER SLOTS's reply read first (-c's primaries), and each
 * reply read as a redirect too (-c follows them). */
static int run_plain(redisContext *ctx, int cluster)
{
    int rc = CLI_OK;
    if (cluster) {
        struct cli_node *nodes = NULL;
        char *map = NULL;
        int n = -1;
        short owner[CLI_SLOTS];
        rc = cli_cluster_primaries(ctx, "seed", &nodes, &n, &map, owner);
        if (rc == CLI_OK) {
            if (n < 1 || !map)
                fail("CLUSTER SLOTS read as no primary");
            for (int i = 0; i < n; i++)
                if (nodes[i].port < 1 || nodes[i].port > 65535 || !nodes[i].host[0])
                    fail("a primary out of its limits");
            for (int s = 0; s < CLI_SLOTS; s++)
                if (owner[s] < -1 || owner[s] >= n)
                    fail("a slot's owner is no primary");
        }
        free(nodes);
        free(map);
        if (rc == CLI_NOT_CLUSTER)
            rc = CLI_OK;
    }
    for (int i = 0; i < 64 && rc == CLI_OK; i++) {
        redisReply *r = redisCommand(ctx, "GET k");
        if (!r)
            return cli_conn_error(ctx);
        if (cluster) {
            check_redirect(r);
            check_keyspec(r);
        }
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
 * Reply mode (bit 0 set): bits 1-2 plain, range, prefix "p" or dump; plain:
 * bit 3 -c (CLUSTER SLOTS read first, redirects parsed); others: bits
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
        return run_plain(ctx, how >> 3 & 1);
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
    static const int every[] = {0, 2, 3, 5};
    int fds[2];
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
                        .tsv = !(data[0] & 1) && (data[0] >> 1 & 3) == 0};
    int error_every = peer.load ? every[data[0] >> 6] : 0;
    /* A blocked write or read fails after a second instead of hanging. */
    struct timeval limit = {.tv_sec = 1};
    if (fcntl(fds[1], F_SETFL, O_NONBLOCK) < 0 ||
        setsockopt(fds[0], SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit)) < 0 ||
        setsockopt(fds[0], SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit)) < 0)
        fail("socket options");
    /* Every command takes 2 bytes of a file at least ("\t\n"). */
    if (peer.load)
        send_answers(fds[1], size, error_every);
    else
        send_all(fds[1], (const char *)data + 1, size - 1);
    redisContext *ctx = redisConnectFd(fds[0]);
    if (!ctx || ctx->err)
        fail("redisConnectFd");
    static redisReplyObjectFunctions capped;
    capped = *ctx->reader->fn;
    create_array_hiredis = capped.createArray;
    capped.createArray = create_array;
    ctx->reader->fn = &capped;

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

    /* The answers are all there before the commands: hiredis hands out an
     * answer it holds without sending the commands queued before it, which
     * a real server never allows. Sent now, so the peer sees each one. */
    int done = 0;
    while (!ctx->err && !done && redisBufferWrite(ctx, &done) == REDIS_OK)
        ;
    redisFree(ctx); /* closes fds[0] */
    read_commands(&peer);
    close(fds[1]);
    if (rc != CLI_OK && rc != CLI_ERR_REPLY && rc != CLI_ERR_USAGE)
        fail("an exit code rbkv-cli does not have");
    if (peer.load && rc == CLI_ERR_REPLY && (!error_every || peer.commands < (size_t)error_every))
        fail("an error reported with no error reply");
    if (tsv)
        check_tsv(text, text_len);
    if (resp && !whole_resp(text, text_len, 1))
        fail("dump's RESP output is not whole commands of bulk strings");
    /* A load that succeeds read its RESP input to the end of a command. */
    int format = data[0] >> 1 & 3;
    int resp_input = format == 1 || (format >= 2 && size > 1 && data[1] == '*');
    if (peer.load && resp_input && rc == CLI_OK && !whole_resp((const char *)data + 1, size - 1, 0))
        fail("load succeeded on RESP input that ends inside a command");
    free(text);
    return 0;
}
