/*
 * resp_parser.c - incremental RESP request parser (API in resp_parser.h).
 *
 * Owns: one connection's query buffer, the argument vector of the request it
 * is assembling or last returned, and the buffers of big bulks. Knows nothing
 * of sockets or the server. Redis 7's processInlineBuffer(),
 * processMultibulkBuffer() and sdssplitargs() are the reference for every
 * accepted byte and every error text.
 *
 * Invariants:
 *  - 0 <= pos <= len <= cap. Only bytes [pos, len) are read, and no byte at or
 *    past len is ever looked at (input is not NUL-terminated).
 *  - multibulk_left > 0 exactly while a multibulk request is being assembled;
 *    its bytes [req_start, len), from its '*' on, are kept when the buffer is
 *    compacted, and its arguments so far are argv[0, argc).
 *  - big != NULL exactly while a bulk of RESP_BIG_ARG bytes or more is read
 *    into its own buffer; reserve() hands out the rest of that buffer.
 *  - The buffer moves (compaction, growth) only inside reserve(), which first
 *    releases the request handed out last; so slices stay valid as documented.
 *  - Every protocol error is sticky: error stays set, next() keeps failing.
 *
 * Redis quirks kept on purpose, since Redis is the reference:
 *  - A header line ends at the first '\r'; the byte after it is skipped
 *    unchecked, as are the two bytes after a bulk's payload.
 *  - Inline lines end at '\n' (one '\r' before it is dropped); words follow
 *    sdssplitargs(), which sees a C string, so a NUL byte ends the line.
 * Deliberate difference: "too big" limits are judged on the position of the
 * line's end, not on how much happened to arrive in one read, so the outcome
 * never depends on how the stream was split.
 */
#include "resp_parser.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "resp_alloc.h"
#include "resp_num.h"

/* First size of the query buffer: one socket read's worth. */
#define PARSER_MIN_BUF ((size_t)16 * 1024)
/* An idle buffer bigger than this is freed, so one burst does not pin memory. */
#define PARSER_IDLE_MAX ((size_t)64 * 1024)
/* argv grows on demand; a request longer than this does not keep its argv. */
#define PARSER_ARGV_KEEP 1024
/* argoff value of an argument that lives in its own (big bulk) buffer. */
#define ARG_OWNED SIZE_MAX
/* Results of the line finders and step functions below. */
#define STEP_AGAIN 0
#define STEP_DONE 1
#define STEP_ERR (-1)
#define LINE_AGAIN (-1)
#define LINE_TOO_BIG (-2)

static const struct resp_limits default_limits = {
    RESP_DEFAULT_MAX_BULK_LEN,
    RESP_DEFAULT_MAX_MULTIBULK_LEN,
    RESP_DEFAULT_MAX_INLINE_LEN,
    0,
    0,
};

static int fail(struct resp_parser *p, const char *msg)
{
    p->error = msg;
    return STEP_ERR;
}

/* Moves the parse position; any memory of a half-searched line is void. */
static void advance(struct resp_parser *p, size_t n)
{
    p->pos += n;
    p->scanned = 0;
}

/*
 * Finds the line that starts at pos and ends at the first `term` byte.
 * Returns the number of bytes before term, LINE_AGAIN, or LINE_TOO_BIG when no
 * term occurs in the first max_inline_len + 1 bytes. `after` is how many bytes
 * must have arrived past term (a header's '\r' is followed by one skipped byte).
 * Only the first max_inline_len + 1 bytes are ever searched, and never twice.
 */
static long long find_line(struct resp_parser *p, char term, size_t after)
{
    size_t avail = p->len - p->pos;
    size_t window = avail <= p->limits.max_inline_len ? avail : p->limits.max_inline_len + 1;
    const char *s = p->buf + p->pos;
    const char *hit = NULL;
    size_t k;

    if (p->scanned < window)
        hit = memchr(s + p->scanned, term, window - p->scanned);
    if (hit == NULL) {
        if (avail > p->limits.max_inline_len)
            return LINE_TOO_BIG;
        p->scanned = window;
        return LINE_AGAIN;
    }
    k = (size_t)(hit - s);
    if (avail - k <= after) {
        p->scanned = k;
        return LINE_AGAIN;
    }
    return (long long)k;
}

/* Room for one more argument; grows argv (and argoff) geometrically, but never
 * past the announced element count, so "*1000000" costs nothing up front. */
static int reserve_arg(struct resp_parser *p)
{
    struct resp_slice *argv;
    size_t *argoff;
    long long want;

    if (p->argc < p->argv_cap)
        return 0;
    want = p->argv_cap ? (long long)p->argv_cap * 2 : 8;
    if (p->multibulk_left > 0 && want > p->argc + p->multibulk_left)
        want = p->argc + p->multibulk_left;
    if (want > INT_MAX)
        want = INT_MAX;
    if (want <= p->argc)
        return fail(p, "out of memory");
    argv = RESP_REALLOC(p->argv, (size_t)want * sizeof(*argv));
    if (argv == NULL)
        return fail(p, "out of memory");
    p->argv = argv;
    argoff = RESP_REALLOC(p->argoff, (size_t)want * sizeof(*argoff));
    if (argoff == NULL)
        return fail(p, "out of memory");
    p->argoff = argoff;
    p->argv_cap = (int)want;
    return 0;
}

/* Frees the big bulk buffers among argv[0, argc). */
static void free_owned(struct resp_parser *p)
{
    for (int i = 0; p->owned_count > 0 && i < p->argc; i++) {
        if (p->argoff[i] == ARG_OWNED) {
            RESP_FREE((void *)p->argv[i].ptr);
            p->owned_count--;
        }
    }
    p->owned_count = 0;
    p->owned_bytes = 0;
}

/* Ends the lifetime of the request handed out last. */
static void release_request(struct resp_parser *p)
{
    if (!p->returned)
        return;
    if (p->owned_count > 0)
        free_owned(p);
    p->argc = 0;
    p->returned = 0;
    if (p->argv_cap > PARSER_ARGV_KEEP) {
        RESP_FREE(p->argv);
        RESP_FREE(p->argoff);
        p->argv = NULL;
        p->argoff = NULL;
        p->argv_cap = 0;
    }
}

int resp_parser_init(struct resp_parser *p, const struct resp_limits *limits)
{
    memset(p, 0, sizeof(*p));
    p->bulk_len = -1;
    resp_parser_set_limits(p, limits);
    return 0;
}

void resp_parser_destroy(struct resp_parser *p)
{
    free_owned(p);
    RESP_FREE(p->big);
    RESP_FREE(p->argv);
    RESP_FREE(p->argoff);
    RESP_FREE(p->buf);
    memset(p, 0, sizeof(*p));
}

void resp_parser_set_limits(struct resp_parser *p, const struct resp_limits *limits)
{
    p->limits = limits ? *limits : default_limits;
    /* argc is an int; the line window is max_inline_len + 1 bytes. */
    if (p->limits.max_multibulk_len > INT_MAX)
        p->limits.max_multibulk_len = INT_MAX;
    if (p->limits.max_inline_len > SIZE_MAX / 4)
        p->limits.max_inline_len = SIZE_MAX / 4;
    if (p->limits.max_bulk_len > (size_t)LLONG_MAX / 2)
        p->limits.max_bulk_len = (size_t)LLONG_MAX / 2;
    if (p->limits.unauth_max_multibulk_len > INT_MAX)
        p->limits.unauth_max_multibulk_len = INT_MAX;
    if (p->limits.unauth_max_bulk_len > (size_t)LLONG_MAX / 2)
        p->limits.unauth_max_bulk_len = (size_t)LLONG_MAX / 2;
}

/* Makes want free bytes at the end of buf: drops what is parsed (keeping the
 * request in progress), releases an oversized idle buffer, grows if needed.
 * Each byte is moved at most once by compaction while its request is pending,
 * and growth doubles, so a request trickling in costs linear time. */
static int make_room(struct resp_parser *p, size_t want)
{
    size_t base = p->multibulk_left > 0 ? p->req_start : p->pos;
    size_t live = p->len - base;
    size_t newcap;
    char *nb;

    if (base > 0) {
        memmove(p->buf, p->buf + base, live);
        p->pos -= base;
        p->len = live;
        p->req_start = p->multibulk_left > 0 ? 0 : p->pos;
    }
    if (live == 0 && p->cap > PARSER_IDLE_MAX && p->cap / 2 > want) {
        RESP_FREE(p->buf);
        p->buf = NULL;
        p->cap = 0;
    }
    if (p->cap - p->len >= want)
        return 0;
    if (want > SIZE_MAX / 2 - live)
        return -1;
    newcap = p->cap * 2;
    if (newcap < live + want)
        newcap = live + want;
    if (newcap < PARSER_MIN_BUF)
        newcap = PARSER_MIN_BUF;
    nb = RESP_REALLOC(p->buf, newcap);
    if (nb == NULL)
        return -1;
    p->buf = nb;
    p->cap = newcap;
    return 0;
}

int resp_parser_reserve(struct resp_parser *p, size_t suggested, char **buf, size_t *cap)
{
    release_request(p);
    if (p->big != NULL && p->big_filled < p->big_len) {
        *buf = p->big + p->big_filled;
        *cap = p->big_len - p->big_filled;
        return 0;
    }
    if (suggested == 0)
        suggested = 1;
    if (p->pos == p->len && p->multibulk_left == 0) {
        p->pos = p->len = 0; /* all parsed: start over for free */
        p->scanned = 0;
    }
    if ((p->cap - p->len < suggested || (p->len == 0 && p->cap > PARSER_IDLE_MAX)) &&
        make_room(p, suggested) < 0)
        return -1;
    *buf = p->buf + p->len;
    *cap = p->cap - p->len;
    return 0;
}

void resp_parser_commit(struct resp_parser *p, size_t n)
{
    if (p->big != NULL && p->big_filled < p->big_len)
        p->big_filled += n;
    else
        p->len += n;
}

int resp_parser_feed(struct resp_parser *p, const char *data, size_t len)
{
    while (len > 0) {
        char *dst;
        size_t room;

        if (resp_parser_reserve(p, len, &dst, &room) < 0)
            return -1;
        if (room > len)
            room = len;
        /* resp_parser_reserve sets dst whenever it succeeds. */
        memcpy(dst, data, room); // NOLINT(clang-analyzer-core.NonNullParamChecker)
        resp_parser_commit(p, room);
        data += room;
        len -= room;
    }
    return 0;
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* isspace() in the C locale, whatever locale the server runs in. */
static int is_space(int c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Byte at q, or 0 at and past e: the NUL that ends sdssplitargs' C string. */
static int at(const char *q, const char *e)
{
    return q < e ? (unsigned char)*q : 0;
}

static char unescape(int c)
{
    switch (c) {
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'b': return '\b';
    case 'a': return '\a';
    default: return (char)c;
    }
}

/*
 * Splits the inline line [s, e) into words with sdssplitargs() rules, writing
 * each unescaped word over the line itself: a word is never longer than the
 * bytes it came from, so the write position w never passes the read position
 * r, and no word is copied elsewhere. argv[i] points at the words.
 */
static int split_inline(struct resp_parser *p, char *s, const char *e)
{
    const char *r = s;
    char *w = s;

    for (;;) {
        int quote = 0, done = 0; /* quote: the open quote, '"' or '\'', or 0 */
        char *word;

        while (is_space(at(r, e)))
            r++;
        if (at(r, e) == 0)
            return STEP_DONE;
        word = w;
        while (!done) {
            int c = at(r, e), hi, lo;

            if (!quote) {
                switch (c) {
                case ' ': case '\n': case '\r': case '\t': case 0:
                    done = 1;
                    break;
                case '"':
                case '\'':
                    quote = c;
                    break;
                default:
                    *w++ = (char)c;
                    break;
                }
            } else if (quote == '"' && c == '\\' && at(r + 1, e) == 'x' &&
                       (hi = hex_value(at(r + 2, e))) >= 0 &&
                       (lo = hex_value(at(r + 3, e))) >= 0) {
                *w++ = (char)(hi * 16 + lo);
                r += 3;
            } else if (quote == '"' && c == '\\' && at(r + 1, e) != 0) {
                r++;
                *w++ = unescape(at(r, e));
            } else if (quote == '\'' && c == '\\' && at(r + 1, e) == '\'') {
                r++;
                *w++ = '\'';
            } else if (c == quote) {
                /* The closing quote must be followed by a space or the end. */
                if (at(r + 1, e) != 0 && !is_space(at(r + 1, e)))
                    return fail(p, "Protocol error: unbalanced quotes in request");
                done = 1;
            } else if (c == 0) {
                return fail(p, "Protocol error: unbalanced quotes in request");
            } else {
                *w++ = (char)c;
            }
            if (c != 0)
                r++;
        }
        if (reserve_arg(p) < 0)
            return STEP_ERR;
        p->argv[p->argc].ptr = word;
        p->argv[p->argc].len = (size_t)(w - word);
        p->argc++;
    }
}

/* One inline line: STEP_DONE with argc words (0 for a blank line), STEP_AGAIN, STEP_ERR. */
static int parse_inline(struct resp_parser *p)
{
    long long k = find_line(p, '\n', 0);
    char *s;
    size_t n;

    if (k == LINE_AGAIN)
        return STEP_AGAIN;
    if (k == LINE_TOO_BIG)
        return fail(p, "Protocol error: too big inline request");
    s = p->buf + p->pos;
    n = (size_t)k;
    if (n > 0 && s[n - 1] == '\r')
        n--;
    advance(p, (size_t)k + 1);
    return split_inline(p, s, s + n);
}

/*
 * Fast path for the usual header: the type byte, a positive number without
 * leading zeros, '\r' and the byte after it, all arrived. Returns the number
 * and sets *k to the index of the '\r', or returns -1 for anything else (zero,
 * negative, malformed, incomplete, long), which find_line() and resp_parse_ll() then
 * judge exactly. Saves a memchr() call per header line.
 */
static long long quick_header(const struct resp_parser *p, size_t *k)
{
    const char *s = p->buf + p->pos;
    size_t avail = p->len - p->pos;
    unsigned long long v;
    size_t i = 2;

    if (avail < 4 || s[1] < '1' || s[1] > '9')
        return -1;
    v = (unsigned long long)(s[1] - '0');
    /* 12 bytes hold at most 11 digits: no overflow, and far above any limit. */
    while (i < avail && i < 12 && s[i] >= '0' && s[i] <= '9')
        v = v * 10 + (unsigned long long)(s[i++] - '0');
    if (i + 1 >= avail || s[i] != '\r' || i > p->limits.max_inline_len)
        return -1;
    *k = i;
    return (long long)v;
}

/* A header line the quick path could not read: its end, found by scanning,
 * in *k. STEP_DONE, or what to return: STEP_AGAIN before the line is
 * complete, the failure too_big names when it is longer than an inline
 * line may be. */
static int header_line(struct resp_parser *p, long long *k, const char *too_big)
{
    *k = find_line(p, '\r', 1);
    if (*k == LINE_AGAIN)
        return STEP_AGAIN;
    if (*k == LINE_TOO_BIG)
        return fail(p, too_big);
    return STEP_DONE;
}

/* The "*<count>" line. A count <= 0 is consumed and starts nothing. */
static int parse_count(struct resp_parser *p)
{
    size_t qk, start = p->pos;
    long long count = quick_header(p, &qk);
    long long k;

    if (count >= 0 && (unsigned long long)count <= p->limits.max_multibulk_len) {
        k = (long long)qk;
    } else {
        int step = header_line(p, &k, "Protocol error: too big mbulk count string");
        if (step != STEP_DONE)
            return step;
        if (resp_parse_ll(p->buf + p->pos + 1, (size_t)k - 1, &count) ||
            count > (long long)p->limits.max_multibulk_len)
            return fail(p, "Protocol error: invalid multibulk length");
    }
    if (p->limits.unauth_max_multibulk_len && count > (long long)p->limits.unauth_max_multibulk_len)
        return fail(p, "Protocol error: unauthenticated multibulk length");
    advance(p, (size_t)k + 2);
    if (count > 0) {
        p->multibulk_left = count;
        p->req_start = start; /* the count line counts as buffered too */
        p->big_copied = 0;
    }
    return STEP_DONE;
}

/* Starts reading a big bulk into a buffer of exactly its size, taking what
 * already arrived; reserve() then hands out the rest of that buffer. */
static int start_big(struct resp_parser *p, size_t n)
{
    size_t have = p->len - p->pos;

    p->big = RESP_MALLOC(n);
    if (p->big == NULL)
        return fail(p, "out of memory");
    if (have > n)
        have = n;
    memcpy(p->big, p->buf + p->pos, have);
    advance(p, have);
    p->big_copied += have;
    p->big_len = n;
    p->big_filled = have;
    return STEP_DONE;
}

/* The "$<len>" line of the next element; a big bulk that has not fully
 * arrived then gets its own buffer. */
static int parse_bulk_header(struct resp_parser *p)
{
    const char *s = p->buf + p->pos;
    size_t qk;
    long long len = quick_header(p, &qk);
    long long k;

    /* quick_header() checked that bytes arrived before s[0] is looked at. */
    if (len >= 0 && s[0] == '$' && (unsigned long long)len <= p->limits.max_bulk_len) {
        k = (long long)qk;
    } else {
        int step = header_line(p, &k, "Protocol error: too big bulk count string");
        if (step != STEP_DONE)
            return step;
        if (s[0] != '$') {
            /* Redis prints the byte with %c: CR and LF become spaces in the
             * reply and a NUL ends the text, so do the same. */
            static const char prefix[] = "Protocol error: expected '$', got '";
            char c = s[0] == '\r' || s[0] == '\n' ? ' ' : s[0];
            memcpy(p->errbuf, prefix, sizeof(prefix) - 1);
            p->errbuf[sizeof(prefix) - 1] = c;
            memcpy(p->errbuf + sizeof(prefix), "'", 2);
            return fail(p, p->errbuf);
        }
        if (resp_parse_ll(s + 1, (size_t)k - 1, &len) || len < 0 ||
            (unsigned long long)len > p->limits.max_bulk_len)
            return fail(p, "Protocol error: invalid bulk length");
    }
    if (p->limits.unauth_max_bulk_len && (unsigned long long)len > p->limits.unauth_max_bulk_len)
        return fail(p, "Protocol error: unauthenticated bulk length");
    advance(p, (size_t)k + 2);
    p->bulk_len = len;
    if (len >= RESP_BIG_ARG && p->len - p->pos < (size_t)len + 2)
        return start_big(p, (size_t)len);
    return STEP_DONE;
}

/* Reads the elements of the multibulk in progress. STEP_DONE when all are in. */
static int parse_bulks(struct resp_parser *p)
{
    while (p->multibulk_left > 0) {
        if (p->bulk_len < 0) {
            int r = parse_bulk_header(p);
            if (r != STEP_DONE)
                return r;
        }
        if (p->big != NULL) {
            /* The payload is in its own buffer; two trailing bytes remain. */
            if (p->big_filled < p->big_len || p->len - p->pos < 2)
                return STEP_AGAIN;
            if (reserve_arg(p) < 0)
                return STEP_ERR;
            p->argv[p->argc].ptr = p->big;
            p->argv[p->argc].len = p->big_len;
            p->argoff[p->argc] = ARG_OWNED;
            p->owned_count++;
            p->owned_bytes += p->big_len;
            p->big = NULL;
            p->big_len = p->big_filled = 0;
            advance(p, 2);
        } else {
            if (p->len - p->pos < (size_t)p->bulk_len + 2)
                return STEP_AGAIN;
            if (reserve_arg(p) < 0)
                return STEP_ERR;
            p->argv[p->argc].len = (size_t)p->bulk_len;
            p->argoff[p->argc] = p->pos - p->req_start;
            advance(p, (size_t)p->bulk_len + 2);
        }
        p->argc++;
        p->bulk_len = -1;
        p->multibulk_left--;
    }
    return STEP_DONE;
}

static int hand_out(struct resp_parser *p, struct resp_request *req, int inline_form)
{
    req->argc = p->argc;
    req->argv = p->argv;
    req->inline_form = inline_form;
    p->returned = 1;
    return RESP_REQUEST;
}

int resp_parser_next(struct resp_parser *p, struct resp_request *req)
{
    int r;

    release_request(p);
    if (p->error != NULL)
        return RESP_ERR;
    while (p->multibulk_left == 0) {
        if (p->pos == p->len)
            return RESP_AGAIN;
        r = p->buf[p->pos] == '*' ? parse_count(p) : parse_inline(p);
        if (r != STEP_DONE)
            return r == STEP_AGAIN ? RESP_AGAIN : RESP_ERR;
        if (p->argc > 0)
            return hand_out(p, req, 1);
    }
    r = parse_bulks(p);
    if (r != STEP_DONE)
        return r == STEP_AGAIN ? RESP_AGAIN : RESP_ERR;
    /* Only now do the in-buffer arguments get pointers: nothing moves until the
     * request is released. */
    for (int i = 0; i < p->argc; i++)
        if (p->argoff[i] != ARG_OWNED)
            p->argv[i].ptr = p->buf + p->req_start + p->argoff[i];
    return hand_out(p, req, 0);
}

size_t resp_parser_buffered(const struct resp_parser *p)
{
    if (p->multibulk_left == 0)
        return p->len - p->pos;
    return p->len - p->req_start - p->big_copied + p->owned_bytes + (p->big ? p->big_filled : 0);
}

size_t resp_parser_memory(const struct resp_parser *p)
{
    return p->cap + p->big_len + p->owned_bytes +
           (size_t)p->argv_cap * (sizeof(*p->argv) + sizeof(*p->argoff));
}

const char *resp_parser_error(const struct resp_parser *p)
{
    return p->error;
}

size_t resp_parser_free_space(const struct resp_parser *p)
{
    return p->cap - p->len;
}

size_t resp_slices_bytes(int argc, const struct resp_slice *argv)
{
    size_t bytes = 0;
    for (int i = 0; i < argc; i++)
        bytes += argv[i].len;
    return bytes;
}

void resp_slices_copy(struct resp_slice *dst, char *bytes, int argc, const struct resp_slice *argv)
{
    for (int i = 0; i < argc; i++) {
        /* A zero-length slice may have no pointer to copy from. */
        if (argv[i].len)
            memcpy(bytes, argv[i].ptr, argv[i].len);
        dst[i].ptr = bytes;
        dst[i].len = argv[i].len;
        bytes += argv[i].len;
    }
}
