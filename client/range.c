/*
 * range.c - range, prefix, count and dump: intervals of any size in bounded
 * memory. Owns the resume bound and one page's reply at a time.
 *
 * Each page is KRANGE lo hi BYLEX [REV] LIMIT 0 page [WITHVALUES], and the
 * next one starts at "(" + the last key seen (its upper bound when REV), so
 * never at an offset: keys inserted or deleted between pages cannot shift
 * the listing, and a key that stays is listed exactly once, in order.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_bound_check(const char *b)
{
    return (b[0] == '[' || b[0] == '(' || !strcmp(b, "-") || !strcmp(b, "+")) ? 0 : -1;
}

void cli_prefix_bounds(const char *prefix, size_t plen, char *buf, struct cli_range_opts *o)
{
    char *min = buf, *max = buf + plen + 2;
    size_t n = plen;

    if (!plen) {
        o->min = "-";
        o->max = "+";
        return;
    }
    min[0] = '[';
    memcpy(min + 1, prefix, plen);
    min[plen + 1] = '\0';
    /* The least string above every key with the prefix: drop trailing 0xff
     * bytes, then add one to the last; none left means no upper bound. A
     * prefix from argv has no NUL, so C strings carry the bounds. */
    while (n && (unsigned char)prefix[n - 1] == 0xff)
        n--;
    o->min = min;
    if (!n) {
        o->max = "+";
        return;
    }
    max[0] = '(';
    memcpy(max + 1, prefix, n);
    max[n] = (char)((unsigned char)max[n] + 1);
    max[n + 1] = '\0';
    o->max = max;
}

/* The exclusive bound "(" + key, in *buf (grown as needed). Returns 0 or -1. */
static int set_resume(char **buf, size_t *cap, size_t *len, const char *key, size_t klen)
{
    if (!*buf || klen + 1 > *cap) {
        char *nb = realloc(*buf, klen + 1);
        if (!nb) {
            fputs("rbkv-cli: out of memory\n", stderr);
            return -1;
        }
        *buf = nb;
        *cap = klen + 1;
    }
    (*buf)[0] = '(';
    memcpy(*buf + 1, key, klen);
    *len = klen + 1;
    return 0;
}

/* One page: KRANGE's reply checked to be an array of keys, each followed by
 * its value when step is 2. Returns the reply (the caller frees it), or NULL
 * with *rc set, having printed why. */
static redisReply *fetch_page(redisContext *ctx, int argc, const char **argv,
                              const size_t *argvlen, size_t step, int *rc)
{
    redisReply *r = redisCommandArgv(ctx, argc, argv, argvlen);
    const char *why = NULL;

    if (!r) {
        *rc = cli_conn_error(ctx);
        return NULL;
    }
    if (r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "rbkv-cli: (error) %.*s\n", (int)r->len, r->str);
    } else if (r->type != REDIS_REPLY_ARRAY || r->elements % step) {
        why = "not an array of keys";
    } else {
        for (size_t i = 0; i < r->elements && !why; i += step)
            if (r->element[i]->type != REDIS_REPLY_STRING)
                why = "a key that is not a string";
        if (!why)
            return r;
    }
    if (why)
        fprintf(stderr, "rbkv-cli: unexpected reply to KRANGE: %s\n", why);
    freeReplyObject(r);
    *rc = CLI_ERR_REPLY;
    return NULL;
}

int cli_range(redisContext *ctx, const struct cli_range_opts *o, struct cli_writer *w)
{
    const char *lo = o->min, *hi = o->max;
    size_t lo_len = strlen(lo), hi_len = strlen(hi);
    char *resume = NULL, count[24];
    size_t resume_cap = 0, resume_len = 0;
    long long left = o->limit; /* negative: no limit */
    unsigned long long skipped = 0;
    size_t step = o->values ? 2 : 1;
    int rc = CLI_OK, done = 0;

    cli_writer_begin(w);
    while (!done && left != 0) {
        long long want = left >= 0 && left < o->page ? left : o->page;
        const char *argv[9];
        size_t argvlen[9];
        int argc = 0;

        snprintf(count, sizeof(count), "%lld", want);
#define ARG(s, n) (argv[argc] = (s), argvlen[argc++] = (n))
        ARG("KRANGE", 6);
        /* REV takes max first, as ZRANGE's. */
        if (o->rev) {
            ARG(hi, hi_len);
            ARG(lo, lo_len);
        } else {
            ARG(lo, lo_len);
            ARG(hi, hi_len);
        }
        ARG("BYLEX", 5);
        if (o->rev)
            ARG("REV", 3);
        ARG("LIMIT", 5);
        ARG("0", 1);
        ARG(count, strlen(count));
        if (o->values)
            ARG("WITHVALUES", 10);
#undef ARG
        redisReply *r = fetch_page(ctx, argc, argv, argvlen, step, &rc);
        if (!r)
            break;
        for (size_t i = 0; i < r->elements; i += step) {
            const redisReply *k = r->element[i];
            const redisReply *v = o->values ? r->element[i + 1] : NULL;
            const char *val = v && v->type == REDIS_REPLY_STRING ? v->str : NULL;
            if (o->dump && !val)
                skipped++;
            else
                cli_writer_entry(w, k->str, k->len, val, val ? v->len : 0);
        }
        size_t got = r->elements / step;
        if (left > 0)
            left -= (long long)got;
        /* A short page is the last; a full one may be followed by more. */
        done = got < (size_t)want;
        if (!done) {
            const redisReply *last = r->element[r->elements - step];
            if (set_resume(&resume, &resume_cap, &resume_len, last->str, last->len) < 0) {
                freeReplyObject(r);
                rc = CLI_ERR_USAGE;
                break;
            }
            if (o->rev) {
                hi = resume;
                hi_len = resume_len;
            } else {
                lo = resume;
                lo_len = resume_len;
            }
        }
        freeReplyObject(r);
    }
    cli_writer_end(w);
    free(resume);
    if (skipped)
        fprintf(stderr, "rbkv-cli: skipped %llu keys whose value is not a string\n", skipped);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("rbkv-cli: stdout");
        return rc ? rc : CLI_ERR_USAGE;
    }
    return rc;
}
