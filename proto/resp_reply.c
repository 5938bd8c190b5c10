/*
 * resp_reply.c - the RESP2 reply reader (resp_reply.h).
 *
 * Invariant: resp_reply_parse is only given what resp_reply_measure
 * accepted whole, so it re-reads checked bytes and cannot fail on them; the
 * scan alone judges outside bytes.
 */
#include "resp_reply.h"

#include <string.h>

#include "resp_alloc.h"
#include "resp_num.h"

/* The longest header line: a type byte, a 20-digit number, CRLF. */
#define LINE_MAX_LEN 32

void resp_reply_scan_reset(struct resp_reply_scan *s, size_t max_elems, size_t max_bulk)
{
    s->pos = 0;
    s->left = -1;
    s->max_elems = max_elems;
    s->max_bulk = max_bulk;
}

/* The line at buf[at..len): its length before CRLF, -2 when incomplete, -1
 * when malformed (a CR not followed by LF, or a header too long). */
static long long line_at(const char *buf, size_t at, size_t len, size_t cap)
{
    const char *p = memchr(buf + at, '\r', len - at);
    if (!p)
        return len - at > cap ? -1 : -2;
    size_t n = (size_t)(p - (buf + at));
    if (n > cap)
        return -1;
    if (at + n + 1 >= len)
        return -2;
    return p[1] == '\n' ? (long long)n : -1;
}

/* Scans one bulk or nil ("$n" ...) at buf[at..): its total length, 0 when
 * incomplete, -1 when malformed. */
static long long scan_bulk(const struct resp_reply_scan *s, const char *buf, size_t at,
                           size_t len)
{
    long long n = line_at(buf, at, len, LINE_MAX_LEN);
    if (n == -2)
        return 0;
    if (n < 2 || buf[at] != '$')
        return -1;
    long long blen;
    if (resp_parse_ll(buf + at + 1, (size_t)n - 1, &blen) < 0 || blen < -1 ||
        (blen >= 0 && (unsigned long long)blen > s->max_bulk))
        return -1;
    size_t head = (size_t)n + 2;
    if (blen == -1)
        return (long long)head;
    size_t total = head + (size_t)blen + 2;
    if (len - at < total)
        return 0;
    if (buf[at + total - 2] != '\r' || buf[at + total - 1] != '\n')
        return -1;
    return (long long)total;
}

long long resp_reply_measure(struct resp_reply_scan *s, const char *buf, size_t len)
{
    if (s->left < 0) {
        if (len == 0)
            return 0;
        if (buf[0] == '$') {
            long long n = scan_bulk(s, buf, 0, len);
            return n;
        }
        long long n = line_at(buf, 0, len, buf[0] == '*' || buf[0] == ':' ? LINE_MAX_LEN
                                                                          : s->max_bulk);
        if (n == -2)
            return 0;
        if (n < 1)
            return -1;
        long long v;
        switch (buf[0]) {
        case '+':
        case '-':
            return n + 2;
        case ':':
            return resp_parse_ll(buf + 1, (size_t)n - 1, &v) < 0 ? -1 : n + 2;
        case '*':
            if (resp_parse_ll(buf + 1, (size_t)n - 1, &v) < 0 || v < -1 ||
                (v > 0 && (unsigned long long)v > s->max_elems))
                return -1;
            if (v == -1)
                return n + 2;
            s->pos = (size_t)n + 2;
            s->left = v;
            break;
        default:
            return -1;
        }
    }
    while (s->left > 0) {
        long long n = scan_bulk(s, buf, s->pos, len);
        if (n <= 0)
            return n;
        s->pos += (size_t)n;
        s->left--;
    }
    return (long long)s->pos;
}

/* The number after buf[at]'s type byte, up to CR; checked by the scan. */
static long long number_at(const char *buf, size_t at, size_t *next)
{
    const char *cr = memchr(buf + at, '\r', LINE_MAX_LEN + 1);
    long long v = 0;
    (void)resp_parse_ll(buf + at + 1, (size_t)(cr - buf) - at - 1, &v);
    *next = (size_t)(cr - buf) + 2;
    return v;
}

int resp_reply_parse(const char *buf, size_t len, struct resp_reply *r)
{
    memset(r, 0, sizeof(*r));
    size_t next;
    switch (buf[0]) {
    case '+':
    case '-':
        r->type = buf[0] == '+' ? RESP_REPLY_STATUS : RESP_REPLY_ERROR;
        r->str = (struct resp_slice){buf + 1, len - 3};
        return 0;
    case ':':
        r->type = RESP_REPLY_INT;
        r->integer = number_at(buf, 0, &next);
        return 0;
    case '$': {
        long long blen = number_at(buf, 0, &next);
        r->type = blen < 0 ? RESP_REPLY_NIL : RESP_REPLY_BULK;
        if (blen >= 0)
            r->str = (struct resp_slice){buf + next, (size_t)blen};
        return 0;
    }
    default:
        break;
    }
    long long n = number_at(buf, 0, &next);
    if (n < 0) {
        r->type = RESP_REPLY_NIL;
        return 0;
    }
    r->type = RESP_REPLY_ARRAY;
    if (n == 0)
        return 0;
    r->elems = RESP_MALLOC((size_t)n * sizeof(*r->elems));
    if (!r->elems)
        return -1;
    r->n = (size_t)n;
    size_t at = next;
    for (size_t i = 0; i < r->n; i++) {
        long long blen = number_at(buf, at, &next);
        if (blen < 0) {
            r->elems[i] = (struct resp_reply_elem){NULL, 0};
            at = next;
        } else {
            r->elems[i] = (struct resp_reply_elem){buf + next, (size_t)blen};
            at = next + (size_t)blen + 2;
        }
    }
    return 0;
}

void resp_reply_clear(struct resp_reply *r)
{
    RESP_FREE(r->elems);
    r->elems = NULL;
    r->n = 0;
}
