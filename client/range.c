/*
 * range.c - range, prefix, count and dump: intervals of any size in bounded
 * memory. Owns the resume bound and one page's reply at a time.
 *
 * Each page is KRANGE lo hi BYLEX [REV] LIMIT 0 page [WITHVALUES], and the
 * next one starts at "(" + the last key seen (its upper bound when REV), so
 * never at an offset: keys inserted or deleted between pages cannot shift
 * the listing, and a key that stays is listed exactly once, in order.
 *
 * dump --format resp writes a string as SET, and a key whose value is not
 * one (KRANGE WITHVALUES gives nil) as the commands that rebuild it, asked
 * for a page at a time so memory stays bounded whatever its size: a hash
 * from HSCAN as HSET, a set from SSCAN as SADD, a sorted set from ZRANGE
 * ... WITHSCORES by rank as ZADD, a list from LRANGE by position as RPUSH,
 * at most DUMP_BATCH elements a command, a stream from XRANGE as XADD per
 * entry then XSETID for its counters.
 * Deadlines are not dumped, for strings or others. A value that changes
 * while it is paged through comes out as the pages saw it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define DUMP_BATCH 256 /* elements per page fetched and per HSET, SADD, ZADD or RPUSH written */

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

int cli_range_resume(char **buf, size_t *cap, size_t *len, const char *key, size_t klen)
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

int cli_range_page_argv(const struct cli_range_opts *o, const char *lo, size_t lo_len,
                        const char *hi, size_t hi_len, const char *count, const char **argv,
                        size_t *lens)
{
    int argc = 0;
#define ARG(s, n) (argv[argc] = (s), lens[argc++] = (n))
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
    return argc;
}

int cli_range_page_check(const redisReply *r, size_t step, const char *node)
{
    const char *why = NULL;
    const char *sep = node ? ": " : "";

    if (!node)
        node = "";
    if (r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "rbkv-cli: %s%s(error) %.*s\n", node, sep, (int)r->len, r->str);
        return CLI_ERR_REPLY;
    }
    if (r->type != REDIS_REPLY_ARRAY || r->elements % step) {
        why = "not an array of keys";
    } else {
        for (size_t i = 0; i < r->elements && !why; i += step)
            if (r->element[i]->type != REDIS_REPLY_STRING)
                why = "a key that is not a string";
        if (!why)
            return CLI_OK;
    }
    fprintf(stderr, "rbkv-cli: %s%sunexpected reply to KRANGE: %s\n", node, sep, why);
    return CLI_ERR_REPLY;
}

/* Writes elements el[0..n) (pairs of field and value when pairs; member and
 * score when zset, written score first) as cmd key ... commands of at most
 * DUMP_BATCH elements. */
static void write_elements(struct cli_writer *w, const char *cmd, const char *key, size_t klen,
                           redisReply **el, size_t n, int pairs, int zset)
{
    const char *argv[2 + 2 * DUMP_BATCH];
    size_t lens[2 + 2 * DUMP_BATCH];
    size_t step = pairs ? 2 : 1;
    for (size_t i = 0; i < n;) {
        int argc = 2;
        argv[0] = cmd;
        lens[0] = strlen(cmd);
        argv[1] = key;
        lens[1] = klen;
        for (size_t k = 0; k < DUMP_BATCH && i < n; k++, i += step) {
            if (pairs && zset) {
                argv[argc] = el[i + 1]->str, lens[argc++] = el[i + 1]->len;
                argv[argc] = el[i]->str, lens[argc++] = el[i]->len;
            } else {
                for (size_t j = 0; j < step; j++)
                    argv[argc] = el[i + j]->str, lens[argc++] = el[i + j]->len;
            }
        }
        cli_writer_command(w, argc, argv, lens);
    }
}

/* A page's reply: an array of strings, a multiple of step long. Returns 0,
 * or an exit code after printing why (and freeing r). */
static int strings_ok(const redisReply *arr, size_t step)
{
    int ok = arr && arr->type == REDIS_REPLY_ARRAY && arr->elements % step == 0;
    for (size_t i = 0; ok && i < arr->elements; i++)
        ok = arr->element[i]->type == REDIS_REPLY_STRING;
    return ok;
}

static int check_strings(redisReply *r, const redisReply *arr, size_t step, const char *cmd)
{
    if (strings_ok(arr, step))
        return CLI_OK;
    if (r->type == REDIS_REPLY_ERROR)
        fprintf(stderr, "rbkv-cli: (error) %.*s\n", (int)r->len, r->str);
    else
        fprintf(stderr, "rbkv-cli: unexpected reply to %s\n", cmd);
    freeReplyObject(r);
    return CLI_ERR_REPLY;
}

/* HSCAN or SSCAN through the whole key, writing HSET or SADD. */
static int dump_scan(redisContext *ctx, struct cli_writer *w, const char *key, size_t klen,
                     int hash)
{
    char cursor[32] = "0", count[16];
    snprintf(count, sizeof(count), "%d", DUMP_BATCH);
    do {
        const char *argv[] = {hash ? "HSCAN" : "SSCAN", key, cursor, "COUNT", count};
        size_t lens[] = {5, klen, strlen(cursor), 5, strlen(count)};
        redisReply *r = redisCommandArgv(ctx, 5, argv, lens);
        if (!r)
            return cli_conn_error(ctx);
        int rc = r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
                         r->element[0]->type == REDIS_REPLY_STRING &&
                         r->element[0]->len < sizeof(cursor)
                     ? check_strings(r, r->element[1], hash ? 2 : 1, argv[0])
                     : check_strings(r, NULL, 1, argv[0]);
        if (rc)
            return rc;
        memcpy(cursor, r->element[0]->str, r->element[0]->len);
        cursor[r->element[0]->len] = '\0';
        write_elements(w, hash ? "HSET" : "SADD", key, klen, r->element[1]->element,
                       r->element[1]->elements, hash, 0);
        freeReplyObject(r);
    } while (strcmp(cursor, "0") != 0);
    return CLI_OK;
}

/* By rank, DUMP_BATCH at a time: ZRANGE key start stop WITHSCORES writing
 * ZADD for a sorted set, LRANGE key start stop writing RPUSH (head to tail)
 * for a list. */
static int dump_by_rank(redisContext *ctx, struct cli_writer *w, const char *key, size_t klen,
                        int zset)
{
    const char *cmd = zset ? "ZRANGE" : "LRANGE";
    size_t step = zset ? 2 : 1;
    for (long long start = 0;; start += DUMP_BATCH) {
        char from[24], to[24];
        snprintf(from, sizeof(from), "%lld", start);
        snprintf(to, sizeof(to), "%lld", start + DUMP_BATCH - 1);
        const char *argv[] = {cmd, key, from, to, "WITHSCORES"};
        size_t lens[] = {6, klen, strlen(from), strlen(to), 10};
        redisReply *r = redisCommandArgv(ctx, zset ? 5 : 4, argv, lens);
        if (!r)
            return cli_conn_error(ctx);
        int rc = check_strings(r, r, step, cmd);
        if (rc)
            return rc;
        write_elements(w, zset ? "ZADD" : "RPUSH", key, klen, r->element, r->elements, zset,
                       zset);
        size_t got = r->elements / step;
        freeReplyObject(r);
        if (got < DUMP_BATCH)
            return CLI_OK;
    }
}

/* The reply to XINFO STREAM key's field name (a flat array in RESP2), or NULL. */
static const redisReply *info_field(const redisReply *info, const char *name)
{
    for (size_t i = 0; info->type == REDIS_REPLY_ARRAY && i + 1 < info->elements; i += 2)
        if (info->element[i]->type == REDIS_REPLY_STRING && !strcmp(info->element[i]->str, name))
            return info->element[i + 1];
    return NULL;
}

/* XRANGE key (last + DUMP_BATCH entries at a time, writing XADD key id
 * field value ... each, then XSETID key last-id ENTRIESADDED n MAXDELETEDID
 * id from XINFO STREAM, as the server's own log rewrite does (an empty
 * stream first as XADD key MAXLEN 0 0-1 x y). */
static int dump_stream(redisContext *ctx, struct cli_writer *w, const char *key, size_t klen)
{
    char from[48] = "-", count[16];
    size_t n = 0;
    snprintf(count, sizeof(count), "%d", DUMP_BATCH);
    for (;;) {
        const char *argv[] = {"XRANGE", key, from, "+", "COUNT", count};
        size_t lens[] = {6, klen, strlen(from), 1, 5, strlen(count)};
        redisReply *r = redisCommandArgv(ctx, 6, argv, lens);
        if (!r)
            return cli_conn_error(ctx);
        int ok = r->type == REDIS_REPLY_ARRAY;
        for (size_t i = 0; ok && i < r->elements; i++) {
            const redisReply *e = r->element[i];
            ok = e->type == REDIS_REPLY_ARRAY && e->elements == 2 &&
                 e->element[0]->type == REDIS_REPLY_STRING && e->element[0]->len < 40 &&
                 strings_ok(e->element[1], 2);
        }
        if (!ok)
            return check_strings(r, NULL, 1, "XRANGE");
        for (size_t i = 0; i < r->elements; i++) {
            const redisReply *id = r->element[i]->element[0], *f = r->element[i]->element[1];
            const char *xadd[2 + 1 + 2 * DUMP_BATCH];
            size_t xlens[2 + 1 + 2 * DUMP_BATCH];
            int argc = 0;
            xadd[argc] = "XADD", xlens[argc++] = 4;
            xadd[argc] = key, xlens[argc++] = klen;
            xadd[argc] = id->str, xlens[argc++] = id->len;
            for (size_t j = 0; j < f->elements && j < 2 * DUMP_BATCH; j++)
                xadd[argc] = f->element[j]->str, xlens[argc++] = f->element[j]->len;
            cli_writer_command(w, argc, xadd, xlens);
            snprintf(from, sizeof(from), "(%s", id->str);
        }
        size_t got = r->elements;
        n += got;
        freeReplyObject(r);
        if (got < DUMP_BATCH)
            break;
    }
    if (!n) {
        const char *empty[] = {"XADD", key, "MAXLEN", "0", "0-1", "x", "y"};
        size_t elens[] = {4, klen, 6, 1, 3, 1, 1};
        cli_writer_command(w, 7, empty, elens);
    }
    const char *argv[] = {"XINFO", "STREAM", key};
    size_t lens[] = {5, 6, klen};
    redisReply *info = redisCommandArgv(ctx, 3, argv, lens);
    if (!info)
        return cli_conn_error(ctx);
    const redisReply *last = info_field(info, "last-generated-id");
    const redisReply *added = info_field(info, "entries-added");
    const redisReply *maxdel = info_field(info, "max-deleted-entry-id");
    if (!last || !added || !maxdel || last->type != REDIS_REPLY_STRING ||
        added->type != REDIS_REPLY_INTEGER || maxdel->type != REDIS_REPLY_STRING)
        return check_strings(info, NULL, 1, "XINFO STREAM");
    char num[24];
    snprintf(num, sizeof(num), "%lld", added->integer);
    const char *set[] = {"XSETID", key, last->str, "ENTRIESADDED", num, "MAXDELETEDID", maxdel->str};
    size_t slens[] = {6, klen, last->len, 12, strlen(num), 12, maxdel->len};
    cli_writer_command(w, 7, set, slens);
    freeReplyObject(info);
    return CLI_OK;
}

/* A key whose value is not a string, in RESP: its commands by its TYPE.
 * Returns an exit code; *skipped grows for a type it cannot write (or a
 * key gone or turned into a string since the page was read). */
static int dump_other(redisContext *ctx, struct cli_writer *w, const char *key, size_t klen,
                      unsigned long long *skipped)
{
    const char *argv[] = {"TYPE", key};
    size_t lens[] = {4, klen};
    redisReply *r = redisCommandArgv(ctx, 2, argv, lens);
    if (!r)
        return cli_conn_error(ctx);
    int hash = r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "hash");
    int set = r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "set");
    int zset = r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "zset");
    int list = r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "list");
    int stream = r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "stream");
    freeReplyObject(r);
    if (stream)
        return dump_stream(ctx, w, key, klen);
    if (hash || set)
        return dump_scan(ctx, w, key, klen, hash);
    if (zset || list)
        return dump_by_rank(ctx, w, key, klen, zset);
    (*skipped)++;
    return CLI_OK;
}

int cli_range_emit(redisContext *ctx, const struct cli_range_opts *o, struct cli_writer *w,
                   const redisReply *k, const redisReply *v, unsigned long long *skipped)
{
    const char *val = v && v->type == REDIS_REPLY_STRING ? v->str : NULL;

    if (o->dump && !val && w->format == FMT_RESP)
        return dump_other(ctx, w, k->str, k->len, skipped);
    if (o->dump && !val)
        (*skipped)++;
    else
        cli_writer_entry(w, k->str, k->len, val, val ? v->len : 0);
    return CLI_OK;
}

enum cli_progress_mode cli_range_progress_mode(const struct cli_range_opts *o)
{
    /* Keys listed on the terminal would be torn by a line redrawn there. */
    if (o->progress)
        return CLI_PROGRESS_ALWAYS;
    return isatty(STDOUT_FILENO) ? CLI_PROGRESS_OFF : CLI_PROGRESS_TTY;
}

int cli_range_end(struct cli_writer *w, unsigned long long skipped, int rc)
{
    cli_writer_end(w);
    if (skipped)
        fprintf(stderr, "rbkv-cli: skipped %llu keys whose value is not a string\n", skipped);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("rbkv-cli: stdout");
        return rc ? rc : CLI_ERR_USAGE;
    }
    return rc;
}

int cli_range(redisContext *ctx, const struct cli_range_opts *o, struct cli_writer *w)
{
    const char *lo = o->min, *hi = o->max;
    size_t lo_len = strlen(lo), hi_len = strlen(hi);
    char *resume = NULL, count[24];
    size_t resume_cap = 0, resume_len = 0;
    long long left = o->limit; /* negative: no limit */
    unsigned long long skipped = 0, listed = 0;
    size_t step = o->values ? 2 : 1;
    int rc = CLI_OK, done = 0;
    struct cli_progress progress;

    cli_progress_init(&progress, cli_range_progress_mode(o));
    cli_writer_begin(w);
    while (!done && left != 0) {
        long long want = left >= 0 && left < o->page ? left : o->page;
        const char *argv[CLI_RANGE_MAX_ARGS];
        size_t argvlen[CLI_RANGE_MAX_ARGS];

        snprintf(count, sizeof(count), "%lld", want);
        int argc = cli_range_page_argv(o, lo, lo_len, hi, hi_len, count, argv, argvlen);
        redisReply *r = redisCommandArgv(ctx, argc, argv, argvlen);
        if (!r) {
            rc = cli_conn_error(ctx);
            break;
        }
        if ((rc = cli_range_page_check(r, step, NULL)) != CLI_OK) {
            freeReplyObject(r);
            break;
        }
        for (size_t i = 0; i < r->elements && rc == CLI_OK; i += step)
            rc = cli_range_emit(ctx, o, w, r->element[i], o->values ? r->element[i + 1] : NULL,
                                &skipped);
        if (rc) {
            freeReplyObject(r);
            break;
        }
        size_t got = r->elements / step;
        listed += got;
        cli_progress_draw(&progress, 0, "%llu keys  %.0f keys/s", listed,
                          cli_progress_rate(&progress, listed));
        if (left > 0)
            left -= (long long)got;
        /* A short page is the last; a full one may be followed by more. */
        done = got < (size_t)want;
        if (!done) {
            const redisReply *last = r->element[r->elements - step];
            if (cli_range_resume(&resume, &resume_cap, &resume_len, last->str, last->len) < 0) {
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
    free(resume);
    cli_progress_draw(&progress, 1, "%llu keys  %.0f keys/s", listed,
                      cli_progress_rate(&progress, listed));
    return cli_range_end(w, skipped, rc);
}
