/*
 * util.c - clock and argument parsing helpers shared by the commands.
 *
 * Arguments are slices from the wire: never NUL-terminated, so every parser
 * here is bounded by the slice length and rejects what Redis rejects.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "keyspace.h"
#include "mem.h"
#include "server.h"

int64_t ustime(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

int64_t mstime(void)
{
    return ustime() / 1000;
}

int arg_is(const struct resp_slice *a, const char *word)
{
    size_t n = strlen(word);
    return a->len == n && strncasecmp(a->ptr, word, n) == 0;
}

/* Redis's string2ll: optional '-', digits, no leading zeros, no spaces, no '+'. */
int parse_ll(const char *p, size_t len, long long *out)
{
    unsigned long long v = 0;
    size_t i = 0;
    int neg = 0;

    if (len == 0 || len > 20)
        return -1;
    if (len == 1 && p[0] == '0') {
        *out = 0;
        return 0;
    }
    if (p[0] == '-') {
        neg = 1;
        i = 1;
        if (len == 1)
            return -1;
    }
    if (p[i] < '1' || p[i] > '9')
        return -1;
    for (; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        if (v > (ULLONG_MAX - (unsigned)(p[i] - '0')) / 10)
            return -1;
        v = v * 10 + (unsigned)(p[i] - '0');
    }
    if (neg) {
        if (v > (unsigned long long)LLONG_MAX + 1)
            return -1;
        *out = v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v;
    } else {
        if (v > LLONG_MAX)
            return -1;
        *out = (long long)v;
    }
    return 0;
}

/* As Redis's string2ld/strtod use: the whole slice must be a number, no
 * leading space, NaN refused. "inf", "+inf", "-inf" are accepted. */
int parse_double(const char *p, size_t len, double *out)
{
    char buf[256];
    char *end;
    if (len == 0 || len >= sizeof(buf) || isspace((unsigned char)p[0]))
        return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    errno = 0;
    double v = strtod(buf, &end);
    if (end != buf + len || isnan(v))
        return -1;
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || v == 0))
        return -1;
    *out = v;
    return 0;
}

int arg_ll_or_reply(struct client *c, const struct resp_slice *a, long long *out)
{
    if (parse_ll(a->ptr, a->len, out) == 0)
        return 0;
    resp_add_error(&c->out, ERR_NOT_INT);
    return -1;
}

int arg_db_or_reply(struct client *c, const struct resp_slice *a, struct db **db)
{
    long long id;
    if (arg_ll_or_reply(c, a, &id) < 0)
        return -1;
    /* getIntFromObjectOrReply's range check comes before selectDb's. */
    if (id < INT_MIN || id > INT_MAX) {
        resp_add_errorf(&c->out, "ERR value is out of range, value must between %d and %d",
                        INT_MIN, INT_MAX);
        return -1;
    }
    if (id < 0 || id >= server.ks->count) {
        resp_add_error(&c->out, ERR_DB_INDEX);
        return -1;
    }
    *db = &server.ks->dbs[id];
    return 0;
}

int arg_double_or_reply(struct client *c, const struct resp_slice *a, double *out)
{
    if (parse_double(a->ptr, a->len, out) == 0)
        return 0;
    resp_add_error(&c->out, ERR_NOT_FLOAT);
    return -1;
}

char *arg_strdup(const struct resp_slice *a)
{
    return xmemdup(a->ptr, a->len);
}

void reply_ok(struct client *c)
{
    /* The same bytes in RESP2 and RESP3, appended whole (Redis's shared.ok):
     * every SET answers this, and framing it costs more than copying it. */
    static const char ok[] = "+OK\r\n";
    resp_add_raw(&c->out, ok, sizeof(ok) - 1);
}

struct ks_entry *lookup_write(struct client *c, const struct resp_slice *key)
{
    struct ks_probe p;
    return lookup_write_probe(c, key, &p);
}

struct ks_entry *lookup_write_probe(struct client *c, const struct resp_slice *key,
                                    struct ks_probe *p)
{
    /* The command's start time, read once by the dispatcher: a clock read
     * per lookup showed up in profiles of pipelined GETs. */
    return ks_lookup_probe(c->db, key->ptr, key->len, server.cmd_start_us / 1000, p);
}

struct ks_entry *lookup_read(struct client *c, const struct resp_slice *key)
{
    struct ks_entry *e = lookup_write(c, key);
    if (e)
        server.stats.keyspace_hits++;
    else
        server.stats.keyspace_misses++;
    return e;
}
