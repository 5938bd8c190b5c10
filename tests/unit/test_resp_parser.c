/*
 * test_resp_parser.c - tests of proto/resp_parser.c.
 *
 * Every case of the tables is fed whole, byte by byte (through reserve/commit,
 * as a socket would), and split in two at every offset; each way must give the
 * same requests and the same outcome. Every prefix of every case is also parsed
 * with its last byte right before an inaccessible page, so reading one byte
 * too far faults. Then come the documented limits, big bulks, buffer
 * accounting, allocation failures, and random streams checked against a model
 * (SEED=... replays one).
 *
 * Results are compared as a dump: one line per request, "I" (inline) or "M"
 * (multibulk), then each argument quoted, bytes outside printable ASCII as \xHH.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "test_resp_util.h"

/* A growable byte string, for dumps and generated streams. */
struct buf {
    char *p;
    size_t len, cap;
};

static void buf_add(struct buf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (b->p == NULL)
            abort();
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_str(struct buf *b, const char *s)
{
    buf_add(b, s, strlen(s));
}

static void buf_free(struct buf *b)
{
    free(b->p);
    memset(b, 0, sizeof(*b));
}

static void dump_arg(struct buf *d, const char *p, size_t n)
{
    buf_str(d, " \"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        char hex[8];
        if (c == '"' || c == '\\') {
            snprintf(hex, sizeof(hex), "\\%c", c);
            buf_str(d, hex);
        } else if (c >= 0x20 && c < 0x7f) {
            buf_add(d, &c, 1);
        } else {
            snprintf(hex, sizeof(hex), "\\x%02x", c);
            buf_str(d, hex);
        }
    }
    buf_str(d, "\"");
}

static void dump_req(struct buf *d, const struct resp_request *r)
{
    buf_str(d, r->inline_form ? "I" : "M");
    for (int i = 0; i < r->argc; i++)
        dump_arg(d, r->argv[i].ptr, r->argv[i].len);
    buf_str(d, "\n");
}

/* What parsing a stream gave: the requests, and the final outcome. */
struct outcome {
    struct buf dump;
    char error[128]; /* "" when the stream ended with RESP_AGAIN */
};

/* Drains next() into o; checks that an error, once seen, is sticky. */
static void drain(struct resp_parser *p, struct outcome *o)
{
    struct resp_request req;
    int r;

    while ((r = resp_parser_next(p, &req)) == RESP_REQUEST) {
        CHECK(req.argc > 0);
        CHECK(o->error[0] == '\0');
        dump_req(&o->dump, &req);
    }
    if (r == RESP_ERR) {
        CHECK(resp_parser_error(p) != NULL);
        if (o->error[0] != '\0')
            CHECK(strcmp(o->error, resp_parser_error(p)) == 0);
        snprintf(o->error, sizeof(o->error), "%s", resp_parser_error(p));
        CHECK(resp_parser_next(p, &req) == RESP_ERR);
    } else {
        CHECK(r == RESP_AGAIN);
        CHECK(o->error[0] == '\0');
    }
}

/* Copies n bytes in through reserve/commit, at most `read` bytes per "read". */
static void feed_reads(struct resp_parser *p, const char *in, size_t n, size_t read)
{
    while (n > 0) {
        char *dst;
        size_t cap;
        CHECK(resp_parser_reserve(p, read, &dst, &cap) == 0);
        CHECK(cap >= 1);
        if (cap > read)
            cap = read;
        if (cap > n)
            cap = n;
        memcpy(dst, in, cap);
        resp_parser_commit(p, cap);
        in += cap;
        n -= cap;
    }
}

/* Parses in[0, n) fed in pieces that end at cuts[0..ncuts) and at n. */
static void run(const char *in, size_t n, const size_t *cuts, size_t ncuts, size_t read,
                const struct resp_limits *lim, struct outcome *o)
{
    struct resp_parser p;
    size_t from = 0;

    memset(o, 0, sizeof(*o));
    buf_str(&o->dump, "");
    CHECK(resp_parser_init(&p, lim) == 0);
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : n;
        if (read == 0)
            CHECK(resp_parser_feed(&p, in + from, to - from) == 0);
        else
            feed_reads(&p, in + from, to - from, read);
        from = to;
        drain(&p, o);
    }
    CHECK(resp_parser_buffered(&p) <= n);
    resp_parser_destroy(&p);
}

struct pcase {
    const char *name;
    const char *in;
    size_t len;
    const char *dump;  /* expected requests */
    const char *error; /* expected final error, NULL for RESP_AGAIN */
};

#define C(name, in, dump, error) { name, in, sizeof(in) - 1, dump, error }
/* Feeds a string literal, its length counted by the compiler. */
#define FEED(p, lit) resp_parser_feed(p, lit, sizeof(lit) - 1)

static const struct pcase cases[] = {
    /* Multibulk. */
    C("ping", "*1\r\n$4\r\nPING\r\n", "M \"PING\"\n", NULL),
    C("set", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n", "M \"SET\" \"k\" \"hello\"\n", NULL),
    C("empty bulk", "*2\r\n$3\r\nGET\r\n$0\r\n\r\n", "M \"GET\" \"\"\n", NULL),
    C("binary bulk", "*1\r\n$6\r\na\r\n\0\xff\n\r\n", "M \"a\\x0d\\x0a\\x00\\xff\\x0a\"\n", NULL),
    C("pipeline", "*1\r\n$1\r\na\r\n*2\r\n$1\r\nb\r\n$1\r\nc\r\n*1\r\n$1\r\nd\r\n",
      "M \"a\"\nM \"b\" \"c\"\nM \"d\"\n", NULL),
    C("count 0 skipped", "*0\r\n*1\r\n$1\r\na\r\n", "M \"a\"\n", NULL),
    C("count -1 skipped", "*-1\r\n*1\r\n$1\r\na\r\n", "M \"a\"\n", NULL),
    C("count llong_min skipped", "*-9223372036854775808\r\n*1\r\n$1\r\na\r\n", "M \"a\"\n", NULL),
    C("incomplete count", "*1", "", NULL),
    C("incomplete after cr", "*1\r", "", NULL),
    C("incomplete bulk", "*1\r\n$3\r\nfo", "", NULL),
    C("incomplete bulk crlf", "*1\r\n$3\r\nfoo\r", "", NULL),
    C("two-digit lengths", "*2\r\n$10\r\n0123456789\r\n$12\r\nabcdefghijkl\r\n",
      "M \"0123456789\" \"abcdefghijkl\"\n", NULL),
    /* Redis skips the byte after a header's CR and the two after a payload unchecked. */
    C("lax crlf", "*1\rX$3\r\nfooYZ*1\r\n$1\r\na\r\n", "M \"foo\"\nM \"a\"\n", NULL),
    /* Multibulk errors, with Redis's texts. */
    C("count empty", "*\r\n", "", "Protocol error: invalid multibulk length"),
    C("count -0", "*-0\r\n", "", "Protocol error: invalid multibulk length"),
    C("count leading zero", "*01\r\n", "", "Protocol error: invalid multibulk length"),
    C("count plus", "*+1\r\n", "", "Protocol error: invalid multibulk length"),
    C("count junk", "*1x\r\n", "", "Protocol error: invalid multibulk length"),
    C("count space", "*1 \r\n", "", "Protocol error: invalid multibulk length"),
    C("count over limit", "*1048577\r\n", "", "Protocol error: invalid multibulk length"),
    C("count overflow", "*9223372036854775808\r\n", "", "Protocol error: invalid multibulk length"),
    C("count at limit waits", "*1048576\r\n", "", NULL),
    C("expected dollar", "*1\r\n:3\r\nfoo\r\n", "", "Protocol error: expected '$', got ':'"),
    C("expected dollar star", "*2\r\n$1\r\na\r\n*1\r\n", "", "Protocol error: expected '$', got '*'"),
    C("expected dollar CR is a space", "*1\r\n\r\n", "", "Protocol error: expected '$', got ' '"),
    C("expected dollar LF is a space", "*1\r\n\n\r\n", "", "Protocol error: expected '$', got ' '"),
    C("expected dollar NUL ends the text", "*1\r\n\0\r\n", "", "Protocol error: expected '$', got '"),
    C("expected dollar high byte", "*1\r\n\xe9\r\n", "", "Protocol error: expected '$', got '\xe9'"),
    C("expected dollar waits for the line", "*1\r\nX", "", NULL),
    C("bulk negative", "*1\r\n$-1\r\n", "", "Protocol error: invalid bulk length"),
    C("bulk empty", "*1\r\n$\r\n", "", "Protocol error: invalid bulk length"),
    C("bulk leading zero", "*1\r\n$03\r\nfoo\r\n", "", "Protocol error: invalid bulk length"),
    C("bulk junk", "*1\r\n$3a\r\nfoo\r\n", "", "Protocol error: invalid bulk length"),
    C("bulk over limit", "*1\r\n$536870913\r\n", "", "Protocol error: invalid bulk length"),
    C("bulk overflow", "*1\r\n$99999999999999999999\r\n", "", "Protocol error: invalid bulk length"),
    C("error after requests", "*1\r\n$1\r\na\r\n*x\r\n*1\r\n$1\r\nb\r\n", "M \"a\"\n",
      "Protocol error: invalid multibulk length"),
    /* Inline commands, split as sdssplitargs() does. */
    C("inline", "PING\r\n", "I \"PING\"\n", NULL),
    C("inline lf only", "PING\n", "I \"PING\"\n", NULL),
    C("inline cr kept once", "PING\r\r\n", "I \"PING\"\n", NULL),
    C("inline words", "SET  key\tvalue \r\n", "I \"SET\" \"key\" \"value\"\n", NULL),
    C("inline leading blanks", " \t\v\fGET k\r\n", "I \"GET\" \"k\"\n", NULL),
    C("inline vt inside word", "a\vb c\r\n", "I \"a\\x0bb\" \"c\"\n", NULL),
    C("inline double quotes", "SET k \"a b\"\r\n", "I \"SET\" \"k\" \"a b\"\n", NULL),
    C("inline single quotes", "SET k 'a b'\r\n", "I \"SET\" \"k\" \"a b\"\n", NULL),
    C("inline empty quotes", "SET k \"\" ''\r\n", "I \"SET\" \"k\" \"\" \"\"\n", NULL),
    C("inline escapes", "ECHO \"\\n\\r\\t\\b\\a\\\\\\\"\\q\"\r\n",
      "I \"ECHO\" \"\\x0a\\x0d\\x09\\x08\\x07\\\\\\\"q\"\n", NULL),
    C("inline hex", "ECHO \"\\x41\\x4a\\xff\\x00z\"\n", "I \"ECHO\" \"AJ\\xff\\x00z\"\n", NULL),
    C("inline bad hex", "ECHO \"\\x4g\" \"\\x4\"\n", "I \"ECHO\" \"x4g\" \"x4\"\n", NULL),
    C("inline single quote escape", "ECHO 'it\\'s \\n'\n", "I \"ECHO\" \"it's \\\\n\"\n", NULL),
    C("inline quote mid word", "ECHO ab\"c d\"\n", "I \"ECHO\" \"abc d\"\n", NULL),
    C("inline quote then tab", "ECHO \"a\"\tb\n", "I \"ECHO\" \"a\" \"b\"\n", NULL),
    C("inline quote at end", "ECHO \"a\"\r\n", "I \"ECHO\" \"a\"\n", NULL),
    C("inline dollar is inline", "$3\r\nfoo\r\n", "I \"$3\"\nI \"foo\"\n", NULL),
    C("inline NUL ends the words", "GET a\0b c\r\nPING\r\n", "I \"GET\" \"a\"\nI \"PING\"\n", NULL),
    C("inline empty lines skipped", "\r\n\n   \r\nPING\r\n\t\n", "I \"PING\"\n", NULL),
    C("inline then multibulk", "PING\r\n*1\r\n$4\r\nPING\r\nECHO x\n", "I \"PING\"\nM \"PING\"\nI \"ECHO\" \"x\"\n", NULL),
    C("inline incomplete", "PING", "", NULL),
    C("inline unbalanced double", "ECHO \"abc\r\n", "", "Protocol error: unbalanced quotes in request"),
    C("inline unbalanced single", "ECHO 'abc\n", "", "Protocol error: unbalanced quotes in request"),
    C("inline text after quote", "ECHO \"a\"b\n", "", "Protocol error: unbalanced quotes in request"),
    C("inline text after single quote", "ECHO 'a'b\n", "", "Protocol error: unbalanced quotes in request"),
    C("inline backslash at end", "ECHO \"a\\\n", "", "Protocol error: unbalanced quotes in request"),
    C("inline NUL in quotes", "ECHO \"a\0\"\n", "", "Protocol error: unbalanced quotes in request"),
    C("inline error after requests", "PING\nECHO \"x\n", "I \"PING\"\n", "Protocol error: unbalanced quotes in request"),
};

/* A case built at run time (big bulks, long lines). */
struct gcase {
    struct pcase c;
    struct buf in, dump;
};

static void check_outcome(const char *name, const char *how, const struct outcome *o, const struct pcase *c)
{
    int ok_dump = o->dump.len == strlen(c->dump) && memcmp(o->dump.p, c->dump, o->dump.len) == 0;
    int ok_err = strcmp(o->error, c->error ? c->error : "") == 0;

    CHECK(ok_dump);
    CHECK(ok_err);
    if (!ok_dump || !ok_err)
        fprintf(stderr, "  case '%s' (%s): got\n%s[%s]\n  want\n%s[%s]\n", name, how, o->dump.p,
                o->error, c->dump, c->error ? c->error : "");
}

/* Whole, byte by byte, and split in two at every offset (stride > 1 only in
 * the middle of long cases, so the quadratic cost stays small). */
static void check_case(const struct pcase *c, const struct resp_limits *lim)
{
    struct outcome o;
    size_t *cuts = malloc((c->len + 1) * sizeof(*cuts));

    run(c->in, c->len, NULL, 0, 0, lim, &o);
    check_outcome(c->name, "whole", &o, c);
    buf_free(&o.dump);

    for (size_t i = 0; i + 1 < c->len; i++)
        cuts[i] = i + 1;
    run(c->in, c->len, cuts, c->len ? c->len - 1 : 0, 1, lim, &o);
    check_outcome(c->name, "byte by byte", &o, c);
    buf_free(&o.dump);

    for (size_t i = 0; i <= c->len; i++) {
        if (c->len > 4096 && i > 512 && i + 512 < c->len && i % 61 != 0)
            continue;
        run(c->in, c->len, &i, 1, i % 2 ? 7 : 0, lim, &o);
        check_outcome(c->name, "split", &o, c);
        buf_free(&o.dump);
    }
    free(cuts);
}

/*
 * Every prefix of the case, ending right before a PROT_NONE page: the parser
 * is pointed at that memory directly (white box: buf/len/cap are set by hand
 * and handed back before destroy), so any read past len faults. A prefix must
 * give a prefix of the case's requests, and an error only if it is the case's.
 */
static void check_guard(const struct pcase *c)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (c->len + page - 1) / page * page + page;
    char *map = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    CHECK(map != MAP_FAILED);
    if (map == MAP_FAILED)
        return;
    CHECK(mprotect(map + span, page, PROT_NONE) == 0);
    for (size_t n = 0; n <= c->len; n++) {
        struct resp_parser p;
        struct outcome o;
        char *at = map + span - n;

        memset(&o, 0, sizeof(o));
        buf_str(&o.dump, "");
        memcpy(at, c->in, n);
        resp_parser_init(&p, NULL);
        p.buf = at;
        p.len = p.cap = n;
        drain(&p, &o);
        CHECK(o.dump.len <= strlen(c->dump) && memcmp(o.dump.p, c->dump, o.dump.len) == 0);
        CHECK(o.error[0] == '\0' || (c->error && strcmp(o.error, c->error) == 0));
        if (n == c->len)
            check_outcome(c->name, "guard page", &o, c);
        p.buf = NULL;
        p.len = p.cap = p.pos = 0;
        resp_parser_destroy(&p);
        buf_free(&o.dump);
    }
    munmap(map, span + page);
}

static void test_tables(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        check_case(&cases[i], NULL);
        check_guard(&cases[i]);
    }
}

static void gcase_bulks(struct gcase *g, const char *name, const size_t *lens, int n)
{
    char hdr[32];

    memset(g, 0, sizeof(*g));
    snprintf(hdr, sizeof(hdr), "*%d\r\n", n);
    buf_str(&g->in, hdr);
    buf_str(&g->dump, "M");
    for (int i = 0; i < n; i++) {
        char *arg = malloc(lens[i] + 1);
        for (size_t j = 0; j < lens[i]; j++)
            arg[j] = (char)('a' + (i + j) % 26);
        snprintf(hdr, sizeof(hdr), "$%zu\r\n", lens[i]);
        buf_str(&g->in, hdr);
        buf_add(&g->in, arg, lens[i]);
        buf_str(&g->in, "\r\n");
        dump_arg(&g->dump, arg, lens[i]);
        free(arg);
    }
    buf_str(&g->dump, "\n");
    buf_str(&g->in, "*1\r\n$4\r\nPING\r\n");
    buf_str(&g->dump, "M \"PING\"\n");
    g->c.name = name;
    g->c.in = g->in.p;
    g->c.len = g->in.len;
    g->c.dump = g->dump.p;
}

/* Big bulks (their own buffer) and long lines, through the same table checks. */
static void test_generated(void)
{
    static const size_t one_big[] = { 3, RESP_BIG_ARG, 2 };
    static const size_t two_big[] = { RESP_BIG_ARG + 1, 1, RESP_BIG_ARG + 100 };
    static const size_t just_below[] = { RESP_BIG_ARG - 1 };
    struct gcase g;
    struct resp_limits small = { 64, 8, 16, 0, 0 };

    gcase_bulks(&g, "one big bulk", one_big, 3);
    check_case(&g.c, NULL);
    buf_free(&g.in);
    buf_free(&g.dump);
    gcase_bulks(&g, "two big bulks", two_big, 3);
    check_case(&g.c, NULL);
    buf_free(&g.in);
    buf_free(&g.dump);
    gcase_bulks(&g, "just below big", just_below, 1);
    check_case(&g.c, NULL);
    buf_free(&g.in);
    buf_free(&g.dump);

    /* Limits, at their edges, with small values so every split is cheap. */
    {
        static const struct pcase lc[] = {
            C("bulk at limit", "*1\r\n$64\r\n0123456789012345678901234567890123456789012345678901234567890123\r\n",
              "M \"0123456789012345678901234567890123456789012345678901234567890123\"\n", NULL),
            C("bulk over limit", "*1\r\n$65\r\n", "", "Protocol error: invalid bulk length"),
            C("count at limit", "*8\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n",
              "M \"a\" \"a\" \"a\" \"a\" \"a\" \"a\" \"a\" \"a\"\n", NULL),
            C("count over limit", "*9\r\n", "", "Protocol error: invalid multibulk length"),
            /* 16 bytes before the '\n' are allowed, 17 are too many. */
            C("inline at limit", "0123456789abcde\r\n", "I \"0123456789abcde\"\n", NULL),
            C("inline over limit", "0123456789abcdef\r\n", "", "Protocol error: too big inline request"),
            C("inline no newline at limit waits", "0123456789abcdef", "", NULL),
            C("inline no newline over limit", "0123456789abcdefg", "", "Protocol error: too big inline request"),
            C("count line over limit", "*00000000000000001\r\n", "", "Protocol error: too big mbulk count string"),
            C("count line no cr over limit", "*0000000000000000", "", "Protocol error: too big mbulk count string"),
            C("count line no cr at limit waits", "*000000000000000", "", NULL),
            C("count line long but invalid", "*000000000000001\r\n", "", "Protocol error: invalid multibulk length"),
            C("bulk line over limit", "*1\r\n$00000000000000001\r\n", "", "Protocol error: too big bulk count string"),
            C("bulk line no cr over limit", "*1\r\nXXXXXXXXXXXXXXXXX", "", "Protocol error: too big bulk count string"),
            C("bulk line no cr at limit waits", "*1\r\nXXXXXXXXXXXXXXXX", "", NULL),
        };
        for (size_t i = 0; i < sizeof(lc) / sizeof(lc[0]); i++)
            check_case(&lc[i], &small);
    }

    /* Before AUTH: Redis's own texts, checked after the ordinary limits. */
    {
        struct resp_limits unauth = { 64, 8, 16, 5, 2 };
        static const struct pcase uc[] = {
            C("unauth at limits", "*2\r\n$5\r\nhello\r\n$5\r\nworld\r\n", "M \"hello\" \"world\"\n", NULL),
            C("unauth count", "*3\r\n", "", "Protocol error: unauthenticated multibulk length"),
            C("unauth count over max", "*9\r\n", "", "Protocol error: invalid multibulk length"),
            C("unauth count invalid", "*x\r\n", "", "Protocol error: invalid multibulk length"),
            C("unauth negative count skipped", "*-1\r\n*1\r\n$1\r\na\r\n", "M \"a\"\n", NULL),
            C("unauth bulk", "*1\r\n$6\r\n", "", "Protocol error: unauthenticated bulk length"),
            C("unauth bulk over max", "*1\r\n$65\r\n", "", "Protocol error: invalid bulk length"),
            C("unauth bulk negative", "*1\r\n$-1\r\n", "", "Protocol error: invalid bulk length"),
        };
        for (size_t i = 0; i < sizeof(uc) / sizeof(uc[0]); i++)
            check_case(&uc[i], &unauth);
    }

    /* The default inline limit, 64 KB, once. */
    {
        struct pcase c;
        struct buf in = { 0 }, dump = { 0 };
        char *line = malloc(RESP_DEFAULT_MAX_INLINE_LEN + 2);
        struct outcome o;

        memset(line, 'x', RESP_DEFAULT_MAX_INLINE_LEN + 2);
        buf_add(&in, line, RESP_DEFAULT_MAX_INLINE_LEN);
        buf_str(&in, "\n");
        buf_str(&dump, "I");
        dump_arg(&dump, line, RESP_DEFAULT_MAX_INLINE_LEN);
        buf_str(&dump, "\n");
        c = (struct pcase){ "64KB inline line", in.p, in.len, dump.p, NULL };
        run(c.in, c.len, NULL, 0, 0, NULL, &o);
        check_outcome(c.name, "whole", &o, &c);
        buf_free(&o.dump);
        run(line, RESP_DEFAULT_MAX_INLINE_LEN + 1, NULL, 0, 1000, NULL, &o);
        CHECK(strcmp(o.error, "Protocol error: too big inline request") == 0);
        buf_free(&o.dump);
        buf_free(&in);
        buf_free(&dump);
        free(line);
    }
}

/* The big bulk path: its own buffer of exactly its size, reserve() hands out
 * the rest of it, and the argument points into it (no further copy). */
static void test_big_bulk(void)
{
    const size_t big = 100000;
    struct resp_parser p;
    struct resp_request req;
    char *dst, *first = NULL;
    size_t cap, left = big;
    char hdr[64];
    int n = snprintf(hdr, sizeof(hdr), "*2\r\n$3\r\nSET\r\n$%zu\r\nab", big);

    resp_parser_init(&p, NULL);
    CHECK(resp_parser_feed(&p, hdr, (size_t)n) == 0);
    CHECK(resp_parser_next(&p, &req) == RESP_AGAIN);
    CHECK(test_alloc.last_size == big);
    CHECK(resp_parser_buffered(&p) == (size_t)n);
    left -= 2;
    while (left > 0) {
        CHECK(resp_parser_reserve(&p, 16384, &dst, &cap) == 0);
        CHECK(cap == left);
        if (first == NULL)
            first = dst - 2;
        if (cap > 1000)
            cap = 1000;
        memset(dst, 'z', cap);
        resp_parser_commit(&p, cap);
        left -= cap;
        CHECK(resp_parser_next(&p, &req) == RESP_AGAIN);
    }
    CHECK(resp_parser_buffered(&p) == (size_t)n + big - 2);
    CHECK(resp_parser_reserve(&p, 16384, &dst, &cap) == 0);
    CHECK(dst < first || dst >= first + big); /* back to the query buffer */
    CHECK(FEED(&p, "\r\n*1\r\n$4\r\nPING\r\n") == 0);
    CHECK(resp_parser_next(&p, &req) == RESP_REQUEST);
    CHECK(req.argc == 2 && req.argv[1].ptr == first && req.argv[1].len == big);
    CHECK(req.argv[1].ptr[0] == 'a' && req.argv[1].ptr[1] == 'b' && req.argv[1].ptr[big - 1] == 'z');
    CHECK(req.argv[0].len == 3 && memcmp(req.argv[0].ptr, "SET", 3) == 0);
    CHECK(resp_parser_next(&p, &req) == RESP_REQUEST);
    CHECK(req.argc == 1 && memcmp(req.argv[0].ptr, "PING", 4) == 0);
    CHECK(resp_parser_next(&p, &req) == RESP_AGAIN);
    CHECK(resp_parser_buffered(&p) == 0);
    resp_parser_destroy(&p);
}

/* A 64 MB value arriving in 16 KB reads: the memory held stays the value plus
 * one read buffer, so nothing is copied again and again. */
static void test_huge_value(void)
{
    const size_t big = (size_t)64 << 20;
    struct resp_parser p;
    struct resp_request req;
    char hdr[64];
    int n = snprintf(hdr, sizeof(hdr), "*1\r\n$%zu\r\n", big);
    size_t left = big, base = test_alloc.live_bytes;
    long calls;

    test_alloc.peak_bytes = test_alloc.live_bytes;
    resp_parser_init(&p, NULL);
    CHECK(resp_parser_feed(&p, hdr, (size_t)n) == 0);
    CHECK(resp_parser_next(&p, &req) == RESP_AGAIN);
    calls = test_alloc.calls;
    while (left > 0) {
        char *dst;
        size_t cap;
        CHECK(resp_parser_reserve(&p, 16384, &dst, &cap) == 0);
        if (cap > 16384)
            cap = 16384;
        memset(dst, 'v', cap);
        resp_parser_commit(&p, cap);
        left -= cap;
        CHECK(resp_parser_next(&p, &req) == RESP_AGAIN);
    }
    CHECK(test_alloc.calls == calls); /* no allocation while the value streams in */
    CHECK(FEED(&p, "\r\n") == 0);
    CHECK(resp_parser_next(&p, &req) == RESP_REQUEST);
    CHECK(req.argc == 1 && req.argv[0].len == big && req.argv[0].ptr[big - 1] == 'v');
    CHECK(test_alloc.peak_bytes - base <= big + 64 * 1024);
    CHECK(resp_parser_memory(&p) >= big);
    resp_parser_destroy(&p);
}

/* A multibulk whose elements arrive one read at a time keeps its state: each
 * call parses only the new element (argc grows by one per read). */
static void test_incremental_state(void)
{
    struct resp_parser p;
    struct resp_request req;
    char el[32];

    resp_parser_init(&p, NULL);
    CHECK(FEED(&p, "*1000\r\n") == 0);
    CHECK(resp_parser_next(&p, &req) == RESP_AGAIN);
    for (int i = 0; i < 1000; i++) {
        int n = snprintf(el, sizeof(el), "$%d\r\n%d\r\n", i < 10 ? 1 : i < 100 ? 2 : 3, i);
        size_t before = resp_parser_buffered(&p);
        CHECK(resp_parser_feed(&p, el, (size_t)n) == 0);
        CHECK(resp_parser_buffered(&p) == before + (size_t)n);
        if (i < 999) {
            CHECK(resp_parser_next(&p, &req) == RESP_AGAIN);
            CHECK(p.argc == i + 1);
        }
    }
    CHECK(resp_parser_next(&p, &req) == RESP_REQUEST);
    CHECK(req.argc == 1000);
    for (int i = 0; i < 1000; i++) {
        snprintf(el, sizeof(el), "%d", i);
        CHECK(req.argv[i].len == strlen(el) && memcmp(req.argv[i].ptr, el, strlen(el)) == 0);
    }
    resp_parser_destroy(&p);
}

/* Limits changed between requests apply from the next one on; errors stick. */
static void test_set_limits_and_sticky(void)
{
    struct resp_parser p;
    struct resp_request req;
    struct resp_limits tight = { 4, 2, 64, 0, 0 };

    resp_parser_init(&p, NULL);
    CHECK(FEED(&p, "*1\r\n$5\r\nhello\r\n*1\r\n$5\r\nhello\r\n") == 0);
    CHECK(resp_parser_next(&p, &req) == RESP_REQUEST);
    resp_parser_set_limits(&p, &tight);
    CHECK(resp_parser_next(&p, &req) == RESP_ERR);
    CHECK(strcmp(resp_parser_error(&p), "Protocol error: invalid bulk length") == 0);
    CHECK(FEED(&p, "PING\r\n") == 0);
    CHECK(resp_parser_next(&p, &req) == RESP_ERR);
    CHECK(strcmp(resp_parser_error(&p), "Protocol error: invalid bulk length") == 0);
    resp_parser_destroy(&p);

    resp_parser_init(&p, &tight);
    CHECK(resp_parser_error(&p) == NULL);
    resp_parser_set_limits(&p, NULL);
    CHECK(FEED(&p, "*3\r\n$5\r\nhello\r\n$0\r\n\r\n$0\r\n\r\n") == 0);
    CHECK(resp_parser_next(&p, &req) == RESP_REQUEST && req.argc == 3);
    resp_parser_destroy(&p);
}

/* Buffered bytes: unparsed input plus the request in progress (big bulk too). */
static void test_buffered(void)
{
    struct resp_parser p;
    struct resp_request req;
    static const char part[] = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$40000\r\n";
    char *val = malloc(40000);

    memset(val, 'q', 40000);
    resp_parser_init(&p, NULL);
    CHECK(resp_parser_buffered(&p) == 0);
    CHECK(resp_parser_feed(&p, part, sizeof(part) - 1) == 0);
    CHECK(resp_parser_buffered(&p) == sizeof(part) - 1);
    CHECK(resp_parser_next(&p, &req) == RESP_AGAIN);
    CHECK(resp_parser_buffered(&p) == sizeof(part) - 1);
    CHECK(resp_parser_feed(&p, val, 1000) == 0);
    CHECK(resp_parser_next(&p, &req) == RESP_AGAIN);
    CHECK(resp_parser_buffered(&p) == sizeof(part) - 1 + 1000);
    CHECK(resp_parser_feed(&p, val, 39000) == 0);
    CHECK(FEED(&p, "\r\nPING\r\nPI") == 0);
    CHECK(resp_parser_next(&p, &req) == RESP_REQUEST && req.argc == 3 && req.argv[2].len == 40000);
    CHECK(resp_parser_buffered(&p) == 8);
    CHECK(resp_parser_next(&p, &req) == RESP_REQUEST && req.argc == 1);
    CHECK(resp_parser_buffered(&p) == 2);
    CHECK(resp_parser_next(&p, &req) == RESP_AGAIN);
    resp_parser_destroy(&p);
    free(val);
}

/* Every allocation of a scenario made to fail in turn: the parser reports it
 * (feed -1 or RESP_ERR "out of memory"), never crashes, never leaks. */
static void test_oom(void)
{
    static const char stream[] =
        "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\nPING a b c d e f g h i j k\r\n"
        "*20\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n4\r\n$1\r\n5\r\n$1\r\n6\r\n$1\r\n7\r\n"
        "$1\r\n8\r\n$1\r\n9\r\n$1\r\n0\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n4\r\n"
        "$1\r\n5\r\n$1\r\n6\r\n$1\r\n7\r\n$1\r\n8\r\n$1\r\n9\r\n$1\r\n0\r\n*1\r\n$32768\r\n";
    for (long k = 0; k < 40; k++) {
        struct resp_parser p;
        struct resp_request req;
        int r = RESP_AGAIN, fed;

        resp_parser_init(&p, NULL);
        test_alloc_fail_after(k);
        fed = resp_parser_feed(&p, stream, sizeof(stream) - 1);
        while (fed == 0 && (r = resp_parser_next(&p, &req)) == RESP_REQUEST)
            CHECK(req.argc > 0);
        test_alloc_fail_after(-1);
        CHECK(fed == -1 || r == RESP_AGAIN || (r == RESP_ERR && strcmp(resp_parser_error(&p), "out of memory") == 0));
        resp_parser_destroy(&p);
        CHECK(test_alloc.live == 0);
    }
}

/* ---- Random streams against a model ---- */

static void gen_bytes(uint64_t *rs, char *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (char)rng_next(rs);
}

static size_t gen_len(uint64_t *rs)
{
    size_t r = rng_below(rs, 1000);
    if (r < 700)
        return rng_below(rs, 17);
    if (r < 950)
        return 17 + rng_below(rs, 500);
    if (r < 992)
        return 500 + rng_below(rs, 5000);
    return RESP_BIG_ARG - 2 + rng_below(rs, 3000);
}

static void gen_multibulk(uint64_t *rs, struct buf *in, struct buf *dump)
{
    int argc = 1 + (int)(rng_below(rs, 20) == 0 ? rng_below(rs, 60) : rng_below(rs, 6));
    char hdr[32];

    snprintf(hdr, sizeof(hdr), "*%d\r\n", argc);
    buf_str(in, hdr);
    buf_str(dump, "M");
    for (int i = 0; i < argc; i++) {
        size_t n = gen_len(rs);
        char *arg = malloc(n + 1);
        gen_bytes(rs, arg, n);
        snprintf(hdr, sizeof(hdr), "$%zu\r\n", n);
        buf_str(in, hdr);
        buf_add(in, arg, n);
        buf_str(in, "\r\n");
        dump_arg(dump, arg, n);
        free(arg);
    }
    buf_str(dump, "\n");
}

/* One inline word in a random style; its decoded value goes to dump. */
static void gen_word(uint64_t *rs, struct buf *in, struct buf *dump, int first)
{
    char val[24], enc[128];
    size_t n = 0, e = 0, len;
    int style = (int)rng_below(rs, 3);

    if (style == 0) { /* bare: no blanks, quotes, controls; never '*' first */
        len = 1 + rng_below(rs, 10);
        while (n < len) {
            char c = (char)(0x21 + rng_below(rs, 0x5e));
            if (c == '"' || c == '\'' || (first && n == 0 && c == '*'))
                continue;
            val[n++] = enc[e++] = c;
        }
    } else if (style == 1) { /* double quotes: any byte but NUL, escaped as needed */
        len = rng_below(rs, 10);
        enc[e++] = '"';
        while (n < len) {
            unsigned char c = (unsigned char)rng_next(rs);
            static const char named[] = "\n\r\t\b\a";
            static const char names[] = "nrtba";
            const char *k = c ? strchr(named, c) : NULL;
            val[n++] = (char)c;
            if (k != NULL && rng_below(rs, 2)) {
                enc[e++] = '\\';
                enc[e++] = names[k - named];
            } else if (c == '"' || c == '\\') {
                enc[e++] = '\\';
                enc[e++] = (char)c;
            } else if (c < 0x20 || c >= 0x7f) {
                e += (size_t)snprintf(enc + e, 5, "\\x%02X", c);
            } else {
                enc[e++] = (char)c;
            }
        }
        enc[e++] = '"';
    } else { /* single quotes: printable, \' for a quote, no backslash */
        len = rng_below(rs, 10);
        enc[e++] = '\'';
        while (n < len) {
            char c = (char)(0x20 + rng_below(rs, 0x5f));
            if (c == '\\')
                continue;
            val[n++] = c;
            if (c == '\'')
                enc[e++] = '\\';
            enc[e++] = c;
        }
        enc[e++] = '\'';
    }
    buf_add(in, enc, e);
    dump_arg(dump, val, n);
}

static void gen_inline(uint64_t *rs, struct buf *in, struct buf *dump)
{
    int words = 1 + (int)rng_below(rs, 6);
    int lead = (int)rng_below(rs, 3);

    for (int i = 0; i < lead; i++)
        buf_str(in, rng_below(rs, 2) ? " " : "\t");
    buf_str(dump, "I");
    for (int i = 0; i < words; i++) {
        if (i > 0)
            buf_str(in, rng_below(rs, 4) ? " " : "\t ");
        gen_word(rs, in, dump, i == 0 && lead == 0);
    }
    if (rng_below(rs, 3) == 0)
        buf_str(in, "  ");
    buf_str(in, rng_below(rs, 2) ? "\r\n" : "\n");
    buf_str(dump, "\n");
}

static void gen_skip(uint64_t *rs, struct buf *in)
{
    static const char *const skips[] = { "\r\n", "\n", "  \t \r\n", "*0\r\n", "*-1\r\n", "*-5\r\n" };
    buf_str(in, skips[rng_below(rs, sizeof(skips) / sizeof(skips[0]))]);
}

static void test_random_streams(uint64_t seed)
{
    uint64_t rs = seed;

    for (int round = 0; round < 300; round++) {
        struct buf in = { 0 }, want = { 0 };
        struct outcome o;
        struct resp_parser p;
        int items = 1 + (int)rng_below(&rs, 40);
        size_t off = 0;

        buf_str(&want, "");
        for (int i = 0; i < items; i++) {
            size_t kind = rng_below(&rs, 10);
            if (kind < 6)
                gen_multibulk(&rs, &in, &want);
            else if (kind < 9)
                gen_inline(&rs, &in, &want);
            else
                gen_skip(&rs, &in);
        }
        memset(&o, 0, sizeof(o));
        buf_str(&o.dump, "");
        resp_parser_init(&p, NULL);
        while (off < in.len) {
            size_t r = rng_below(&rs, 10), n;
            n = r < 4 ? 1 + rng_below(&rs, 10) : r < 8 ? 1 + rng_below(&rs, 2000) : 1 + rng_below(&rs, 40000);
            if (n > in.len - off)
                n = in.len - off;
            feed_reads(&p, in.p + off, n, r == 9 ? n : 16384);
            off += n;
            drain(&p, &o);
            CHECK(resp_parser_buffered(&p) <= off);
        }
        CHECK(o.error[0] == '\0');
        CHECK(resp_parser_buffered(&p) == 0);
        CHECK_MSG(o.dump.len == want.len && memcmp(o.dump.p, want.p, want.len) == 0,
                  "random stream %d differs", round);
        resp_parser_destroy(&p);
        buf_free(&in);
        buf_free(&want);
        buf_free(&o.dump);
    }
}

/* Commands written by resp_add_command() parse back to the same arguments. */
static void test_writer_round_trip(uint64_t seed)
{
    uint64_t rs = seed ^ 0x9e3779b97f4a7c15ULL;
    struct resp_out out;
    struct resp_parser p;
    struct resp_request req;
    struct buf want = { 0 }, got = { 0 };

    resp_out_init(&out);
    resp_parser_init(&p, NULL);
    buf_str(&want, "");
    buf_str(&got, "");
    for (int i = 0; i < 200; i++) {
        struct resp_slice argv[8];
        char *args[8];
        int argc = 1 + (int)rng_below(&rs, 8);
        buf_str(&want, "M");
        for (int j = 0; j < argc; j++) {
            size_t n = gen_len(&rs);
            args[j] = malloc(n + 1);
            gen_bytes(&rs, args[j], n);
            argv[j].ptr = args[j];
            argv[j].len = n;
            dump_arg(&want, args[j], n);
        }
        buf_str(&want, "\n");
        resp_add_command(&out, argc, argv);
        for (int j = 0; j < argc; j++)
            free(args[j]);
        while (resp_out_pending(&out) > 0) {
            struct resp_iov iov[4];
            int n = resp_out_peek(&out, iov, 4);
            CHECK(n > 0);
            for (int j = 0; j < n; j++) {
                CHECK(resp_parser_feed(&p, iov[j].base, iov[j].len) == 0);
                resp_out_consume(&out, iov[j].len);
            }
        }
        while (resp_parser_next(&p, &req) == RESP_REQUEST)
            dump_req(&got, &req);
    }
    CHECK(!out.failed);
    CHECK(got.len == want.len && memcmp(got.p, want.p, want.len) == 0);
    resp_out_destroy(&out);
    resp_parser_destroy(&p);
    buf_free(&want);
    buf_free(&got);
}

int main(void)
{
    uint64_t seed = check_seed((uint64_t)time(NULL));

    test_tables();
    test_generated();
    test_big_bulk();
    test_huge_value();
    test_incremental_state();
    test_set_limits_and_sticky();
    test_buffered();
    test_oom();
    test_random_streams(seed);
    test_writer_round_trip(seed);
    return test_finish("test_resp_parser");
}
