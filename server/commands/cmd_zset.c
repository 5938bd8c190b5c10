/*
 * cmd_zset.c - the sorted-set commands: ZADD, ZINCRBY, ZREM, ZCARD, ZSCORE,
 * ZMSCORE, ZCOUNT, ZLEXCOUNT, ZRANK, ZREVRANK, the ZRANGE family and
 * ZRANGESTORE, ZREMRANGEBY*, ZPOPMIN/ZPOPMAX, ZMPOP and the blocking pops
 * (BZPOPMIN/BZPOPMAX/BZMPOP, waiting through blocking.h), ZRANDMEMBER, ZSCAN
 * and the set algebra (ZUNION/ZINTER/ZDIFF[STORE], ZINTERCARD). Every key
 * these commands create is signalled to blocking.h, which serves the clients
 * waiting on it.
 *
 * Owns: zset_commands[]. The values themselves are zset.h's; the
 * keyspace owns them once they hold a key. Knows nothing of sockets:
 * handlers read argument slices and write replies into c->out.
 *
 * Rules kept from Redis 7 (t_zset.c): every argument is parsed, and every
 * error replied, before the first change; the replies' shapes, the order of
 * the checks and the error texts are Redis's; a set left empty is deleted
 * with its key; RESP3 gets doubles for scores and [member, score] pairs for
 * WITHSCORES where Redis 7 sends them. ZRANK/ZREVRANK take Redis 7.2's
 * WITHSCORE.
 *
 * Costs: positions come from subtree sizes, so a count, a rank, or the start
 * of a listing after an offset is O(log n); only listing or deleting m
 * members walks them, O(log n + m).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notify.h"
#include "propagate.h"
#include "args.h"
#include "blocking.h"
#include "client.h"
#include "cmd_zset.h"
#include "glob.h"
#include "keyspace.h"
#include "lazyfree.h"
#include "lexrange.h"
#include "mem.h"
#include "numparse.h"
#include "omap.h"
#include "resp_num.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "sample.h"
#include "server.h"
#include "watch.h"
#include "zset.h"

#define ERR_SCORE_RANGE "ERR min or max is not a float"
#define ERR_NAN "ERR resulting score is not a number (NaN)"
#define ERR_NOT_POSITIVE "ERR value is out of range, must be positive"
#define ERR_LIMIT_RANK                                                                           \
    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
#define ERR_WITHSCORES_BYLEX "ERR syntax error, WITHSCORES not supported in combination with BYLEX"

/* A set this small is scanned whole in one ZSCAN call with cursor 0, as
 * Redis does for its listpack encoding (zset-max-listpack-entries). */
#define ZSCAN_WHOLE_MAX 128
#define ZSCAN_DEFAULT_COUNT 10

/* ---- lookups and replies ------------------------------------------------ */

/* The sorted set at key, NULL when absent; -1 after replying WRONGTYPE. */
static int zset_lookup_or_reply(struct client *c, const struct resp_slice *key, int write,
                                struct ks_entry **e, struct zset **z)
{
    *e = write ? lookup_write(c, key) : lookup_read(c, key);
    *z = NULL;
    if (!*e)
        return 0;
    if ((*e)->type != KS_ZSET) {
        resp_add_error(&c->out, ERR_WRONGTYPE);
        return -1;
    }
    *z = ks_ptr(*e);
    return 0;
}

/* After a command removed members from the set z at key (entry e): fires
 * its event, then deletes the key when the set is empty and fires "del", in
 * Redis's order. */
static void removed_from(struct client *c, const struct resp_slice *key, struct ks_entry *e,
                         struct zset *z, const char *event)
{
    notify_key(c, NOTIFY_ZSET, event, key);
    if (zs_len(z) == 0) {
        ks_delete(c->db, e);
        notify_key(c, NOTIFY_GENERIC, "del", key);
    }
}

/* store_and_reply for a sorted set z. Takes z. */
static void store_result(struct client *c, const struct resp_slice *dst, struct zset *z,
                         const char *event)
{
    size_t n = zs_len(z);
    if (!n) {
        zs_free(z);
        z = NULL;
    }
    store_and_reply(c, dst, KS_ZSET, z, n, NOTIFY_ZSET, event);
}

/* A member, or with its score: flat in RESP2, a pair in RESP3. */
static void add_member(struct client *c, const struct zs_node *n, int withscores)
{
    if (withscores && c->out.proto == 3)
        resp_add_array_len(&c->out, 2);
    resp_add_bulk(&c->out, n->member, n->len);
    if (withscores)
        resp_add_double(&c->out, n->score);
}

static size_t list_len(const struct client *c, size_t n, int withscores)
{
    return withscores && c->out.proto == 2 ? 2 * n : n;
}

/* ---- argument parsing --------------------------------------------------- */

/* One end of a score interval, as Redis's zslParseRange reads it: strtod over
 * the argument as a C string, after an optional "(" for an exclusive end. */
static int score_bound(const struct resp_slice *a, double *v, int *ex)
{
    const char *p = a->ptr;
    size_t len = a->len, used;
    int erange;

    *ex = len > 0 && p[0] == '(';
    if (*ex) {
        p++;
        len--;
    }
    /* Any length, leading spaces, an overflow to inf: all as strtod takes them. */
    *v = numparse_strtod(p, len, &used, &erange);
    return used != strnlen(p, len) || isnan(*v) ? -1 : 0;
}

static int score_range_or_reply(struct client *c, const struct resp_slice *min,
                                const struct resp_slice *max, struct zs_range *r)
{
    if (score_bound(min, &r->min, &r->minex) == 0 && score_bound(max, &r->max, &r->maxex) == 0)
        return 0;
    resp_add_error(&c->out, ERR_SCORE_RANGE);
    return -1;
}

static int lex_range_or_reply(struct client *c, const struct resp_slice *min,
                              const struct resp_slice *max, struct lex_bound *lo,
                              struct lex_bound *hi)
{
    if (lex_bound_parse(min->ptr, min->len, lo) == 0 && lex_bound_parse(max->ptr, max->len, hi) == 0)
        return 0;
    resp_add_error(&c->out, ERR_LEX_RANGE);
    return -1;
}

/* ---- ZADD, ZINCRBY, ZREM ------------------------------------------------ */

#define ZADD_NX (1u << 0)
#define ZADD_XX (1u << 1)
#define ZADD_GT (1u << 2)
#define ZADD_LT (1u << 3)
#define ZADD_CH (1u << 4)
#define ZADD_INCR (1u << 5)

/* What one score-member pair did. */
enum zadd_result { ZADD_NOP, ZADD_ADDED, ZADD_UPDATED, ZADD_SAME };

/* Redis's zsetAdd: *score is the argument in, the member's score out.
 * Returns -1 when an increment made NaN (nothing changed). */
static int zadd_one(struct zset *z, unsigned flags, const struct resp_slice *m, double *score,
                    enum zadd_result *res)
{
    struct zs_node *n = zs_find(z, m->ptr, m->len);

    *res = ZADD_NOP;
    if (!n) {
        if (!(flags & ZADD_XX)) {
            zs_insert(z, m->ptr, m->len, *score);
            *res = ZADD_ADDED;
        }
        return 0;
    }
    if (flags & ZADD_NX)
        return 0;
    double cur = n->score, next = *score;
    if (flags & ZADD_INCR) {
        next += cur;
        if (isnan(next))
            return -1;
    }
    if (((flags & ZADD_LT) && next >= cur) || ((flags & ZADD_GT) && next <= cur))
        return 0;
    *score = next;
    *res = ZADD_SAME;
    if (next != cur) {
        zs_update(z, n, next);
        *res = ZADD_UPDATED;
    }
    return 0;
}

/* ZADD, and ZINCRBY as ZADD INCR: Redis runs both through one function, so
 * ZINCRBY reads options too. */
static void zadd_generic(struct client *c, unsigned flags)
{
    static const struct {
        const char *name;
        unsigned flag;
    } options[] = {{"nx", ZADD_NX}, {"xx", ZADD_XX},     {"gt", ZADD_GT},
                   {"lt", ZADD_LT}, {"ch", ZADD_CH}, {"incr", ZADD_INCR}};
    int idx = 2;

    for (; idx < c->argc; idx++) {
        size_t o = 0;
        while (o < sizeof(options) / sizeof(options[0]) && !arg_is(&c->argv[idx], options[o].name))
            o++;
        if (o == sizeof(options) / sizeof(options[0]))
            break;
        flags |= options[o].flag;
    }
    int elements = c->argc - idx;
    if (elements % 2 || !elements) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    elements /= 2;
    if ((flags & ZADD_NX) && (flags & ZADD_XX)) {
        resp_add_error(&c->out, "ERR XX and NX options at the same time are not compatible");
        return;
    }
    if ((flags & ZADD_NX) ? (flags & (ZADD_GT | ZADD_LT)) != 0
                          : (flags & (ZADD_GT | ZADD_LT)) == (ZADD_GT | ZADD_LT)) {
        resp_add_error(&c->out, "ERR GT, LT, and/or NX options at the same time are not compatible");
        return;
    }
    if ((flags & ZADD_INCR) && elements > 1) {
        resp_add_error(&c->out, "ERR INCR option supports a single increment-element pair");
        return;
    }
    double *scores = xmalloc(sizeof(double) * (size_t)elements);
    for (int j = 0; j < elements; j++) {
        if (arg_double_or_reply(c, &c->argv[idx + 2 * j], &scores[j]) < 0) {
            xfree(scores);
            return;
        }
    }

    struct ks_entry *e;
    struct zset *z;
    long long added = 0, updated = 0, processed = 0;
    double score = 0;
    int created = 0, got_nan = 0;

    if (zset_lookup_or_reply(c, &c->argv[1], 1, &e, &z) < 0) {
        xfree(scores);
        return;
    }
    if (!z && !(flags & ZADD_XX)) {
        z = zs_new();
        created = 1;
    }
    for (int j = 0; z && j < elements; j++) {
        enum zadd_result res;
        score = scores[j];
        if (zadd_one(z, flags, &c->argv[idx + 2 * j + 1], &score, &res) < 0) {
            got_nan = 1;
            break;
        }
        added += res == ZADD_ADDED;
        updated += res == ZADD_UPDATED;
        processed += res != ZADD_NOP;
    }
    xfree(scores);
    if (got_nan)
        resp_add_error(&c->out, ERR_NAN);
    else if (!(flags & ZADD_INCR))
        resp_add_int(&c->out, added + ((flags & ZADD_CH) ? updated : 0));
    else if (processed)
        resp_add_double(&c->out, score);
    else
        resp_add_null(&c->out);
    server.dirty += (unsigned long long)(added + updated);
    if (created) {
        if (zs_len(z)) {
            ks_add_ptr(c->db, c->argv[1].ptr, c->argv[1].len, KS_ZSET, z);
            block_signal_key(c->db, c->argv[1].ptr, c->argv[1].len);
            notify_key(c, NOTIFY_NEW, "new", &c->argv[1]);
        } else {
            zs_free(z);
        }
    }
    if (added || updated)
        notify_key(c, NOTIFY_ZSET, (flags & ZADD_INCR) ? "zincr" : "zadd", &c->argv[1]);
}

static void cmd_zadd(struct client *c)
{
    zadd_generic(c, 0);
}

static void cmd_zincrby(struct client *c)
{
    zadd_generic(c, ZADD_INCR);
}

static void cmd_zrem(struct client *c)
{
    struct ks_entry *e;
    struct zset *z;
    long long deleted = 0;

    if (zset_lookup_or_reply(c, &c->argv[1], 1, &e, &z) < 0)
        return;
    for (int j = 2; z && j < c->argc && zs_len(z); j++) {
        struct zs_node *n = zs_find(z, c->argv[j].ptr, c->argv[j].len);
        if (n) {
            zs_delete(z, n);
            deleted++;
        }
    }
    if (deleted)
        removed_from(c, &c->argv[1], e, z, "zrem");
    server.dirty += (unsigned long long)deleted;
    resp_add_int(&c->out, deleted);
}

/* ---- reading one member or a count -------------------------------------- */

static void cmd_zcard(struct client *c)
{
    struct ks_entry *e;
    struct zset *z;

    if (zset_lookup_or_reply(c, &c->argv[1], 0, &e, &z) < 0)
        return;
    resp_add_int(&c->out, z ? (long long)zs_len(z) : 0);
}

static void cmd_zscore(struct client *c)
{
    struct ks_entry *e;
    struct zset *z;

    if (zset_lookup_or_reply(c, &c->argv[1], 0, &e, &z) < 0)
        return;
    struct zs_node *n = z ? zs_find(z, c->argv[2].ptr, c->argv[2].len) : NULL;
    if (n)
        resp_add_double(&c->out, n->score);
    else
        resp_add_null(&c->out);
}

static void cmd_zmscore(struct client *c)
{
    struct ks_entry *e;
    struct zset *z;

    if (zset_lookup_or_reply(c, &c->argv[1], 0, &e, &z) < 0)
        return;
    resp_add_array_len(&c->out, (size_t)c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        struct zs_node *n = z ? zs_find(z, c->argv[j].ptr, c->argv[j].len) : NULL;
        if (n)
            resp_add_double(&c->out, n->score);
        else
            resp_add_null(&c->out);
    }
}

static void cmd_zcount(struct client *c)
{
    struct zs_range r;
    struct ks_entry *e;
    struct zset *z;

    if (score_range_or_reply(c, &c->argv[2], &c->argv[3], &r) < 0 ||
        zset_lookup_or_reply(c, &c->argv[1], 0, &e, &z) < 0)
        return;
    struct zs_span s = z ? zs_score_span(z, &r) : (struct zs_span){0, 0};
    resp_add_int(&c->out, (long long)(s.hi - s.lo));
}

static void cmd_zlexcount(struct client *c)
{
    struct lex_bound min, max;
    struct ks_entry *e;
    struct zset *z;

    if (lex_range_or_reply(c, &c->argv[2], &c->argv[3], &min, &max) < 0 ||
        zset_lookup_or_reply(c, &c->argv[1], 0, &e, &z) < 0)
        return;
    struct zs_span s = z ? zs_lex_span(z, &min, &max) : (struct zs_span){0, 0};
    resp_add_int(&c->out, (long long)(s.hi - s.lo));
}

/* ZRANK and ZREVRANK, with Redis 7.2's WITHSCORE: [rank, score]. */
static void rank_generic(struct client *c, int rev)
{
    int withscore = 0;
    struct ks_entry *e;
    struct zset *z;

    if (c->argc > 4) {
        reply_wrong_arity(c);
        return;
    }
    if (c->argc == 4) {
        if (!arg_is(&c->argv[3], "withscore")) {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
        withscore = 1;
    }
    if (zset_lookup_or_reply(c, &c->argv[1], 0, &e, &z) < 0)
        return;
    struct zs_node *n = z ? zs_find(z, c->argv[2].ptr, c->argv[2].len) : NULL;
    if (!n) {
        if (withscore)
            resp_add_null_array(&c->out);
        else
            resp_add_null(&c->out);
        return;
    }
    size_t rank = zs_rank(n);
    if (rev)
        rank = zs_len(z) - 1 - rank;
    if (withscore) {
        resp_add_array_len(&c->out, 2);
        resp_add_int(&c->out, (long long)rank);
        resp_add_double(&c->out, n->score);
    } else {
        resp_add_int(&c->out, (long long)rank);
    }
}

static void cmd_zrank(struct client *c)
{
    rank_generic(c, 0);
}

static void cmd_zrevrank(struct client *c)
{
    rank_generic(c, 1);
}

/* ---- the ZRANGE family -------------------------------------------------- */

enum range_type { RANGE_AUTO, RANGE_RANK, RANGE_SCORE, RANGE_LEX };
enum range_dir { DIR_AUTO, DIR_FORWARD, DIR_REVERSE };

/* Where a range's members go: to the client, or into ZRANGESTORE's new set. */
struct range_out {
    struct client *c;
    struct zset *store;
    int withscores;
};

/* Starts the output of n members. */
static void out_begin(struct range_out *o, size_t n)
{
    if (!o->store)
        resp_add_array_len(&o->c->out, list_len(o->c, n, o->withscores));
}

static void out_add(struct range_out *o, const struct zs_node *n)
{
    if (o->store)
        zs_insert(o->store, n->member, n->len, n->score);
    else
        add_member(o->c, n, o->withscores);
}

/* Whether the client's reply broke (over its hard output limit): it is
 * dropped after this command, so walking on would only hold the loop. */
static int out_failed(const struct range_out *o)
{
    return !o->store && o->c->out.failed;
}

static void out_end(struct range_out *o, const struct resp_slice *dst)
{
    if (o->store)
        store_result(o->c, dst, o->store, "zrangestore");
}

static struct zs_node *step(const struct zs_node *n, int rev)
{
    return rev ? zs_prev(n) : zs_next(n);
}

static void range_by_rank(struct range_out *o, const struct zset *z, long long start,
                          long long end, int rev)
{
    size_t lo, hi, len = zs_len(z);

    if (rank_range(start, end, len, &lo, &hi) < 0) {
        out_begin(o, 0);
        return;
    }
    out_begin(o, hi - lo + 1);
    struct zs_node *n = zs_select(z, rev ? len - 1 - lo : lo);
    for (size_t i = lo; i <= hi && !out_failed(o); i++, n = step(n, rev))
        out_add(o, n);
}

/* A score or lex listing with Redis's LIMIT rules (a negative offset lists
 * nothing, a negative count everything). The span of the range, from two
 * descents, gives the reply's length up front and the first member through
 * one select: O(log n + m) whatever the offset. */
static void range_by_bound(struct range_out *o, const struct zset *z, const struct zs_range *r,
                           const struct lex_bound *min, const struct lex_bound *max,
                           long long offset, long long limit, int rev)
{
    struct zs_span s = r ? zs_score_span(z, r) : zs_lex_span(z, min, max);
    size_t len = s.hi - s.lo;

    if (offset < 0 || (unsigned long long)offset >= len) {
        out_begin(o, 0);
        return;
    }
    size_t n = len - (size_t)offset;
    if (limit >= 0 && (unsigned long long)limit < n)
        n = (size_t)limit;
    out_begin(o, n);
    struct zs_node *node = zs_select(z, rev ? s.hi - 1 - (size_t)offset : s.lo + (size_t)offset);
    for (size_t i = 0; i < n && !out_failed(o); i++, node = step(node, rev))
        out_add(o, node);
}

/* Redis's zrangeGenericCommand: src at argv[first], then min and max (max
 * first with REV by score or lex), then options. ZRANGESTORE (store) has its
 * destination at argv[1] and takes no WITHSCORES. */
static void zrange_generic(struct client *c, int first, int store, enum range_type type,
                           enum range_dir dir)
{
    int minidx = first + 1, maxidx = first + 2;
    long long offset = 0, limit = -1, start = 0, end = 0;
    int withscores = 0;
    struct zs_range r;
    struct lex_bound lmin, lmax;

    for (int j = first + 3; j < c->argc; j++) {
        int left = c->argc - j - 1;
        const struct resp_slice *a = &c->argv[j];
        if (!store && arg_is(a, "withscores")) {
            withscores = 1;
        } else if (arg_is(a, "limit") && left >= 2) {
            if (arg_ll_or_reply(c, &c->argv[j + 1], &offset) < 0 ||
                arg_ll_or_reply(c, &c->argv[j + 2], &limit) < 0)
                return;
            j += 2;
        } else if (dir == DIR_AUTO && arg_is(a, "rev")) {
            dir = DIR_REVERSE;
        } else if (type == RANGE_AUTO && arg_is(a, "bylex")) {
            type = RANGE_LEX;
        } else if (type == RANGE_AUTO && arg_is(a, "byscore")) {
            type = RANGE_SCORE;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    if (dir == DIR_AUTO)
        dir = DIR_FORWARD;
    if (type == RANGE_AUTO)
        type = RANGE_RANK;
    if (limit != -1 && type == RANGE_RANK) {
        resp_add_error(&c->out, ERR_LIMIT_RANK);
        return;
    }
    if (withscores && type == RANGE_LEX) {
        resp_add_error(&c->out, ERR_WITHSCORES_BYLEX);
        return;
    }
    int rev = dir == DIR_REVERSE;
    if (rev && type != RANGE_RANK) {
        minidx = first + 2;
        maxidx = first + 1;
    }
    if (type == RANGE_RANK) {
        if (arg_ll_or_reply(c, &c->argv[minidx], &start) < 0 ||
            arg_ll_or_reply(c, &c->argv[maxidx], &end) < 0)
            return;
    } else if (type == RANGE_SCORE) {
        if (score_range_or_reply(c, &c->argv[minidx], &c->argv[maxidx], &r) < 0)
            return;
    } else if (lex_range_or_reply(c, &c->argv[minidx], &c->argv[maxidx], &lmin, &lmax) < 0) {
        return;
    }

    struct ks_entry *e;
    struct zset *z;
    if (zset_lookup_or_reply(c, &c->argv[first], 0, &e, &z) < 0)
        return;
    struct range_out o = {.c = c, .store = store ? zs_new() : NULL, .withscores = withscores};
    if (!z) {
        out_begin(&o, 0);
    } else if (type == RANGE_RANK) {
        range_by_rank(&o, z, start, end, rev);
    } else {
        range_by_bound(&o, z, type == RANGE_SCORE ? &r : NULL, &lmin, &lmax, offset, limit, rev);
    }
    out_end(&o, &c->argv[1]);
}

static void cmd_zrange(struct client *c)
{
    zrange_generic(c, 1, 0, RANGE_AUTO, DIR_AUTO);
}

static void cmd_zrangestore(struct client *c)
{
    zrange_generic(c, 2, 1, RANGE_AUTO, DIR_AUTO);
}

static void cmd_zrevrange(struct client *c)
{
    zrange_generic(c, 1, 0, RANGE_RANK, DIR_REVERSE);
}

static void cmd_zrangebyscore(struct client *c)
{
    zrange_generic(c, 1, 0, RANGE_SCORE, DIR_FORWARD);
}

static void cmd_zrevrangebyscore(struct client *c)
{
    zrange_generic(c, 1, 0, RANGE_SCORE, DIR_REVERSE);
}

static void cmd_zrangebylex(struct client *c)
{
    zrange_generic(c, 1, 0, RANGE_LEX, DIR_FORWARD);
}

static void cmd_zrevrangebylex(struct client *c)
{
    zrange_generic(c, 1, 0, RANGE_LEX, DIR_REVERSE);
}

/* ---- ZREMRANGEBY* ------------------------------------------------------- */

/* Fewer members than this are deleted one by one. */
#define ZREM_CUT_MIN 1024

/* Redis's zremrangeGenericCommand: the range is parsed before the lookup. */
static void zremrange_generic(struct client *c, enum range_type type)
{
    long long start = 0, end = 0;
    struct zs_range r;
    struct lex_bound min, max;
    struct ks_entry *e;
    struct zset *z;
    struct zs_node *n = NULL;
    size_t count = 0, lo, hi;

    if (type == RANGE_RANK) {
        if (arg_ll_or_reply(c, &c->argv[2], &start) < 0 ||
            arg_ll_or_reply(c, &c->argv[3], &end) < 0)
            return;
    } else if (type == RANGE_SCORE) {
        if (score_range_or_reply(c, &c->argv[2], &c->argv[3], &r) < 0)
            return;
    } else if (lex_range_or_reply(c, &c->argv[2], &c->argv[3], &min, &max) < 0) {
        return;
    }
    if (zset_lookup_or_reply(c, &c->argv[1], 1, &e, &z) < 0)
        return;
    if (!z) {
        resp_add_int(&c->out, 0);
        return;
    }
    if (type == RANGE_RANK) {
        if (rank_range(start, end, zs_len(z), &lo, &hi) == 0) {
            n = zs_select(z, lo);
            count = hi - lo + 1;
        }
    } else {
        struct zs_span s = type == RANGE_SCORE ? zs_score_span(z, &r) : zs_lex_span(z, &min, &max);
        n = zs_select(z, s.lo);
        count = s.hi - s.lo;
    }
    if (count >= ZREM_CUT_MIN) {
        /* Cut out at once, freed on the lazy-free thread, or, when many
         * names would leave the set's table, cleared from it and freed in
         * slices on the loop (docs/internals.md, "Range deletion"). */
        struct zset *cut = zs_cut(z, zs_rank(n), count);
        if (cut)
            ks_value_release(KS_ZSET, cut, KS_FREE_LAZY);
        else
            lazyfree_zset_cut(c->db_index, c->argv[1].ptr, c->argv[1].len);
    } else {
        for (size_t i = 0; i < count; i++) {
            struct zs_node *next = zs_next(n);
            zs_delete(z, n);
            n = next;
        }
    }
    static const char *const events[] = {[RANGE_RANK] = "zremrangebyrank",
                                         [RANGE_SCORE] = "zremrangebyscore",
                                         [RANGE_LEX] = "zremrangebylex"};
    if (count)
        removed_from(c, &c->argv[1], e, z, events[type]);
    server.dirty += count;
    resp_add_int(&c->out, (long long)count);
}

static void cmd_zremrangebyrank(struct client *c)
{
    zremrange_generic(c, RANGE_RANK);
}

static void cmd_zremrangebyscore(struct client *c)
{
    zremrange_generic(c, RANGE_SCORE);
}

static void cmd_zremrangebylex(struct client *c)
{
    zremrange_generic(c, RANGE_LEX);
}

/* ---- ZPOPMIN, ZPOPMAX --------------------------------------------------- */

static void zpop_generic(struct client *c, int max)
{
    long long count = -1;
    struct ks_entry *e;
    struct zset *z;

    if (c->argc > 3) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    if (c->argc == 3) {
        /* Redis gives the one message for a count that is negative or not
         * an integer at all. */
        if (resp_parse_ll(c->argv[2].ptr, c->argv[2].len, &count) < 0 || count < 0) {
            resp_add_error(&c->out, ERR_NOT_POSITIVE);
            return;
        }
    }
    /* RESP3 pairs only when a count was given, as Redis 7. */
    int nested = c->out.proto == 3 && count != -1;
    if (zset_lookup_or_reply(c, &c->argv[1], 1, &e, &z) < 0)
        return;
    if (!z || count == 0) {
        resp_add_array_len(&c->out, 0);
        return;
    }
    if (count == -1)
        count = 1;
    size_t n = (unsigned long long)count < zs_len(z) ? (size_t)count : zs_len(z);
    resp_add_array_len(&c->out, nested ? n : 2 * n);
    for (size_t i = 0; i < n; i++) {
        struct zs_node *node = max ? zs_last(z) : zs_first(z);
        if (nested)
            resp_add_array_len(&c->out, 2);
        resp_add_bulk(&c->out, node->member, node->len);
        resp_add_double(&c->out, node->score);
        zs_delete(z, node);
    }
    server.dirty += n;
    removed_from(c, &c->argv[1], e, z, max ? "zpopmax" : "zpopmin");
}

static void cmd_zpopmin(struct client *c)
{
    zpop_generic(c, 0);
}

static void cmd_zpopmax(struct client *c)
{
    zpop_generic(c, 1);
}

/* ---- ZMPOP, BZPOPMIN, BZPOPMAX, BZMPOP ---------------------------------- */

/* What a pop takes and how it replies; a blocked client's copy lives in
 * blocking.h's wait. */
struct pop_how {
    int max;
    long long count; /* -1: BZPOPMIN/BZPOPMAX's flat [key, member, score] */
};

/* Pops from z, the non-empty set at key, and replies as Redis's
 * genericZpopCommand with the key: [key, member, score], or with a count
 * [key, [[member, score], ...]]. */
static size_t pop_reply(struct client *c, const struct resp_slice *key, struct ks_entry *e,
                        struct zset *z, const struct pop_how *how)
{
    size_t n = 1;
    if (how->count >= 0)
        n = (unsigned long long)how->count < zs_len(z) ? (size_t)how->count : zs_len(z);
    resp_add_array_len(&c->out, how->count < 0 ? 3 : 2);
    resp_add_bulk(&c->out, key->ptr, key->len);
    if (how->count >= 0)
        resp_add_array_len(&c->out, n);
    for (size_t i = 0; i < n; i++) {
        struct zs_node *node = how->max ? zs_last(z) : zs_first(z);
        if (how->count >= 0)
            resp_add_array_len(&c->out, 2);
        resp_add_bulk(&c->out, node->member, node->len);
        resp_add_double(&c->out, node->score);
        zs_delete(z, node);
    }
    server.dirty += n;
    /* Here, not through the key specs: ZMPOP's keys move with numkeys, and a
     * served client's pop runs outside any command. */
    watch_touch(c->db, key->ptr, key->len);
    removed_from(c, key, e, z, how->max ? "zpopmax" : "zpopmin");
    return n;
}

/* The pop it amounted to, as Redis 7.0 sends it (propagate_pop_as). */
static void propagate_pop(struct client *c, int in_command, const struct resp_slice *key,
                          const struct pop_how *how, size_t n)
{
    propagate_pop_as(c, in_command, how->max ? "ZPOPMAX" : "ZPOPMIN", key, how->count >= 0,
                     n);
}

/* block_serve_fn: serves a client blocked by pop_first_or_block. */
static int pop_serve(struct client *c, const struct resp_slice *key, const void *how)
{
    struct ks_entry *e = lookup_write(c, key);
    if (!e || e->type != KS_ZSET)
        return 0;
    propagate_pop(c, 0, key, how, pop_reply(c, key, e, ks_ptr(e), how));
    return 1;
}

/* Redis's blockingGenericZpopCommand: pops from the first of keys that holds
 * a set (WRONGTYPE for a key of another type before it). With none, a nil
 * array, or when block the client waits; inside a transaction nothing may
 * block, so it gets the nil a timeout would give, at once. */
static void pop_first_or_block(struct client *c, const struct resp_slice *keys, int nkeys,
                               const struct pop_how *how, int block, int64_t timeout_ms)
{
    for (int i = 0; i < nkeys; i++) {
        struct ks_entry *e;
        struct zset *z;
        if (zset_lookup_or_reply(c, &keys[i], 1, &e, &z) < 0)
            return;
        if (z) {
            propagate_pop(c, 1, &keys[i], how, pop_reply(c, &keys[i], e, z, how));
            return;
        }
    }
    if (!block || c->multi) {
        resp_add_null_array(&c->out);
        return;
    }
    block_client(c, keys, nkeys, timeout_ms, pop_serve, how, sizeof(*how));
}

static void bzpop_generic(struct client *c, int max)
{
    int64_t ms;
    if (arg_timeout_or_reply(c, &c->argv[c->argc - 1], &ms) < 0)
        return;
    struct pop_how how = {max, -1};
    pop_first_or_block(c, &c->argv[1], c->argc - 2, &how, 1, ms);
}

static void cmd_bzpopmin(struct client *c)
{
    bzpop_generic(c, 0);
}

static void cmd_bzpopmax(struct client *c)
{
    bzpop_generic(c, 1);
}

/* Redis's zmpopGenericCommand: numkeys at argv[numkeys_idx], the keys, MIN
 * or MAX, then [COUNT count]. */
static void zmpop_generic(struct client *c, int numkeys_idx, int block, int64_t timeout_ms)
{
    struct mpop_args a;
    if (arg_mpop_or_reply(c, numkeys_idx, "MIN", "MAX", &a) < 0)
        return;
    struct pop_how how = {.max = a.which, .count = a.count};
    pop_first_or_block(c, a.keys, a.nkeys, &how, block, timeout_ms);
}

static void cmd_zmpop(struct client *c)
{
    zmpop_generic(c, 1, 0, 0);
}

static void cmd_bzmpop(struct client *c)
{
    int64_t ms;
    if (arg_timeout_or_reply(c, &c->argv[1], &ms) < 0)
        return;
    zmpop_generic(c, 2, 1, ms);
}

/* ---- ZRANDMEMBER -------------------------------------------------------- */

static struct zs_node *random_node(const struct zset *z)
{
    /* Sizes are 32-bit, so the count fits arc4random's range. */
    return zs_select(z, arc4random_uniform((uint32_t)zs_len(z)));
}

/* count distinct members, drawn uniformly (sample.h). */
static void random_distinct(struct client *c, const struct zset *z, size_t count, int withscores)
{
    size_t *ranks = xmalloc(count * sizeof(*ranks));
    sample_distinct(zs_len(z), count, ranks);
    for (size_t i = 0; i < count && !c->out.failed; i++)
        add_member(c, zs_select(z, ranks[i]), withscores);
    xfree(ranks);
}

static void randmember_count(struct client *c, long long l, int withscores)
{
    struct ks_entry *e;
    struct zset *z;

    if (zset_lookup_or_reply(c, &c->argv[1], 0, &e, &z) < 0)
        return;
    if (!z || l == 0) {
        resp_add_array_len(&c->out, 0);
        return;
    }
    size_t size = zs_len(z);
    /* A negative count may repeat members; -LLONG_MIN does not fit, its
     * magnitude does. */
    unsigned long long count = l >= 0 ? (unsigned long long)l : 0ULL - (unsigned long long)l;
    if (l < 0 || count == 1) {
        resp_add_array_len(&c->out, list_len(c, count, withscores));
        /* A client asking for more than it lets us buffer is closed after
         * this command (conn.c), as Redis does: stop producing for it once
         * its reply broke at the hard limit. */
        for (unsigned long long i = 0; i < count && !c->out.failed; i++)
            add_member(c, random_node(z), withscores);
        return;
    }
    if (count >= size) {
        resp_add_array_len(&c->out, list_len(c, size, withscores));
        for (struct zs_node *n = zs_first(z); n && !c->out.failed; n = zs_next(n))
            add_member(c, n, withscores);
        return;
    }
    resp_add_array_len(&c->out, list_len(c, count, withscores));
    random_distinct(c, z, count, withscores);
}

static void cmd_zrandmember(struct client *c)
{
    struct ks_entry *e;
    struct zset *z;
    long long l;

    if (c->argc >= 3) {
        if (arg_rand_count_or_reply(c, &c->argv[2], &l) < 0)
            return;
        if (c->argc > 4 || (c->argc == 4 && !arg_is(&c->argv[3], "withscores"))) {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
        if (c->argc == 4 && (l < -LLONG_MAX / 2 || l > LLONG_MAX / 2)) {
            resp_add_error(&c->out, "ERR value is out of range");
            return;
        }
        randmember_count(c, l, c->argc == 4);
        return;
    }
    if (zset_lookup_or_reply(c, &c->argv[1], 0, &e, &z) < 0)
        return;
    if (!z) {
        resp_add_null(&c->out);
        return;
    }
    struct zs_node *n = random_node(z);
    resp_add_bulk(&c->out, n->member, n->len);
}

/* ---- ZSCAN -------------------------------------------------------------- */

struct scan_acc {
    const struct zs_node **nodes;
    size_t n, cap;
    const struct resp_slice *match; /* NULL: every member */
};

static void scan_collect(void *arg, const struct zs_node *n)
{
    struct scan_acc *acc = arg;

    if (acc->match && !glob_match(acc->match->ptr, acc->match->len, n->member, n->len, 0))
        return;
    if (acc->n == acc->cap) {
        acc->cap = acc->cap ? 2 * acc->cap : 16;
        acc->nodes = xrealloc(acc->nodes, acc->cap * sizeof(*acc->nodes));
    }
    acc->nodes[acc->n++] = n;
}

/* Redis's parseScanCursorOrReply: strtoul over the argument as a C string. */
static int cursor_or_reply(struct client *c, const struct resp_slice *a, uint64_t *cursor)
{
    char buf[32];
    char *end;

    if (a->len == 0 || a->len >= sizeof(buf) || isspace((unsigned char)a->ptr[0]))
        goto invalid;
    memcpy(buf, a->ptr, a->len);
    buf[a->len] = '\0';
    errno = 0;
    *cursor = strtoull(buf, &end, 10);
    if (*end == '\0' && errno != ERANGE)
        return 0;
invalid:
    resp_add_error(&c->out, "ERR invalid cursor");
    return -1;
}

/* A score as Redis 7.0's listpack holds it, which is what ZSCAN of a small
 * sorted set shows: an integral score within +-LLONG_MAX/2 as an integer
 * ("100000000000000000", and "0" for -0), any other as a reply prints it. */
static int listpack_score_text(char *buf, double d)
{
    /* The bounds are integers, divided exactly as intended, then converted. */
    // NOLINTNEXTLINE(bugprone-integer-division)
    if (d >= (double)(-LLONG_MAX / 2) && d <= (double)(LLONG_MAX / 2) && (double)(long long)d == d) {
        int len = (int)resp_format_ll(buf, (long long)d);
        buf[len] = '\0';
        return len;
    }
    return resp_format_double(buf, d);
}

static void cmd_zscan(struct client *c)
{
    uint64_t cursor;
    long long count = ZSCAN_DEFAULT_COUNT;
    struct scan_acc acc = {NULL, 0, 0, NULL};
    struct ks_entry *e;
    struct zset *z;

    if (cursor_or_reply(c, &c->argv[2], &cursor) < 0 ||
        zset_lookup_or_reply(c, &c->argv[1], 0, &e, &z) < 0)
        return;
    if (!z) {
        reply_empty_scan(c);
        return;
    }
    for (int j = 3; j < c->argc; j++) {
        int left = c->argc - j - 1;
        if (arg_is(&c->argv[j], "count") && left >= 1) {
            if (arg_ll_or_reply(c, &c->argv[++j], &count) < 0)
                return;
            if (count < 1) {
                resp_add_error(&c->out, ERR_SYNTAX);
                return;
            }
        } else if (arg_is(&c->argv[j], "match") && left >= 1) {
            j++;
            /* A lone "*" matches everything, the empty member included. */
            acc.match = c->argv[j].len == 1 && c->argv[j].ptr[0] == '*' ? NULL : &c->argv[j];
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    if (zs_len(z) <= ZSCAN_WHOLE_MAX) {
        for (struct zs_node *n = zs_first(z); n; n = zs_next(n))
            scan_collect(&acc, n);
        cursor = 0;
    } else {
        /* Redis's bound on empty buckets visited: ten per member asked for. */
        long long visits = count * 10;
        do
            cursor = zs_scan(z, cursor, scan_collect, &acc);
        while (cursor && --visits > 0 && acc.n < (unsigned long long)count);
    }
    int small = zs_len(z) <= ZSCAN_WHOLE_MAX;
    char buf[RESP_DOUBLE_BUFLEN];
    int len = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)cursor);
    resp_add_array_len(&c->out, 2);
    resp_add_bulk(&c->out, buf, (size_t)len);
    resp_add_array_len(&c->out, 2 * acc.n);
    for (size_t i = 0; i < acc.n; i++) {
        resp_add_bulk(&c->out, acc.nodes[i]->member, acc.nodes[i]->len);
        len = small ? listpack_score_text(buf, acc.nodes[i]->score)
                    : resp_format_double(buf, acc.nodes[i]->score);
        resp_add_bulk(&c->out, buf, (size_t)len);
    }
    xfree(acc.nodes);
}

/* ---- set algebra -------------------------------------------------------- */

enum setop { OP_UNION, OP_INTER, OP_DIFF };
enum aggregate { AGG_SUM, AGG_MIN, AGG_MAX };

struct source {
    const struct zset *z; /* NULL for a missing key: an empty set */
    struct zset *owned;   /* z when made here from a plain set, freed after */
    double weight;
};

/* The input at key as a source: a sorted set, a plain set read as one whose
 * members all score 1 (as Redis's zuiInitIterator), nothing for a missing
 * key. -1 after replying WRONGTYPE for any other type. */
static int source_lookup_or_reply(struct client *c, const struct resp_slice *key, int write,
                                  struct source *s)
{
    struct ks_entry *e = write ? lookup_write(c, key) : lookup_read(c, key);
    *s = (struct source){NULL, NULL, 1.0};
    if (!e)
        return 0;
    if (e->type == KS_ZSET) {
        s->z = ks_ptr(e);
        return 0;
    }
    if (e->type != KS_SET) {
        resp_add_error(&c->out, ERR_WRONGTYPE);
        return -1;
    }
    const struct omap *m = ks_ptr(e);
    struct om_it it;
    struct om_elem el;
    s->owned = zs_new();
    for (om_seek(m, 0, &it); om_it_valid(&it); om_next(m, &it)) {
        om_it_get(m, &it, &el);
        zs_insert(s->owned, el.f, el.flen, 1.0);
    }
    s->z = s->owned;
    return 0;
}

/* weight * score, where inf * 0 counts as 0, as in Redis. */
static double weighted(const struct source *s, double score)
{
    double v = s->weight * score;
    return isnan(v) ? 0 : v;
}

/* Redis's zunionInterAggregate: a sum of +inf and -inf is 0. */
static double aggregate(enum aggregate agg, double acc, double v)
{
    switch (agg) {
    case AGG_SUM:
        acc += v;
        return isnan(acc) ? 0 : acc;
    case AGG_MIN:
        return v < acc ? v : acc;
    case AGG_MAX:
        break;
    }
    return v > acc ? v : acc;
}

static size_t source_len(const struct source *s)
{
    return s->z ? zs_len(s->z) : 0;
}

/* Smallest first, as Redis orders its inputs: an intersection then probes
 * the fewest members. Stable, so equal sizes keep their argument order. */
static void sort_by_size(struct source *src, long long n)
{
    for (long long i = 1; i < n; i++) {
        struct source s = src[i];
        long long j = i;
        for (; j > 0 && source_len(&src[j - 1]) > source_len(&s); j--)
            src[j] = src[j - 1];
        src[j] = s;
    }
}

static struct zset *compute_union(const struct source *src, long long n, enum aggregate agg)
{
    struct zset *res = zs_new();

    for (long long i = 0; i < n; i++) {
        for (const struct zs_node *m = src[i].z ? zs_first(src[i].z) : NULL; m; m = zs_next(m)) {
            double v = weighted(&src[i], m->score);
            struct zs_node *r = zs_find(res, m->member, m->len);
            if (r)
                zs_update(res, r, aggregate(agg, r->score, v));
            else
                zs_insert(res, m->member, m->len, v);
        }
    }
    return res;
}

/* The intersection into a new set, or (res NULL) only its size, stopping at
 * limit when limit > 0. src is sorted by size. */
static size_t compute_inter(const struct source *src, long long n, enum aggregate agg,
                            struct zset *res, long long limit)
{
    size_t found = 0;

    if (!src[0].z)
        return 0;
    for (const struct zs_node *m = zs_first(src[0].z); m; m = zs_next(m)) {
        double acc = weighted(&src[0], m->score);
        long long j = 1;
        for (; j < n; j++) {
            const struct zs_node *o = src[j].z ? zs_find(src[j].z, m->member, m->len) : NULL;
            if (!o)
                break;
            acc = aggregate(agg, acc, weighted(&src[j], o->score));
        }
        if (j < n)
            continue;
        found++;
        if (res)
            zs_insert(res, m->member, m->len, acc);
        else if (limit > 0 && found >= (unsigned long long)limit)
            break;
    }
    return found;
}

/* The members of the first set found in no other, with their own scores. */
static struct zset *compute_diff(const struct source *src, long long n)
{
    struct zset *res = zs_new();

    for (const struct zs_node *m = src[0].z ? zs_first(src[0].z) : NULL; m; m = zs_next(m)) {
        long long j = 1;
        while (j < n && !(src[j].z && zs_find(src[j].z, m->member, m->len)))
            j++;
        if (j == n)
            zs_insert(res, m->member, m->len, m->score);
    }
    return res;
}

/* Redis's zunionInterDiffGenericCommand: numkeys at argv[numkeys_idx], the
 * keys after it, then WEIGHTS and AGGREGATE (not for DIFF), WITHSCORES
 * (replying commands only) or LIMIT (ZINTERCARD). dst is the STORE
 * commands' destination, NULL for the others. */
static void setop_generic(struct client *c, const struct resp_slice *dst, int numkeys_idx,
                          enum setop op, int card_only)
{
    long long setnum, limit = 0;
    enum aggregate agg = AGG_SUM;
    int withscores = 0;

    if (arg_ll_or_reply(c, &c->argv[numkeys_idx], &setnum) < 0)
        return;
    if (setnum < 1) {
        resp_add_errorf(&c->out, "ERR at least 1 input key is needed for '%s' command",
                        c->last_cmd ? c->last_cmd->name : "?");
        return;
    }
    if (setnum > c->argc - (numkeys_idx + 1)) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    struct source *src = xcalloc((size_t)setnum, sizeof(*src));
    int j = numkeys_idx + 1;
    for (long long i = 0; i < setnum; i++, j++) {
        if (source_lookup_or_reply(c, &c->argv[j], dst != NULL, &src[i]) < 0)
            goto out;
    }
    while (j < c->argc) {
        int left = c->argc - j;
        const struct resp_slice *a = &c->argv[j];
        if (op != OP_DIFF && left >= setnum + 1 && arg_is(a, "weights")) {
            j++;
            for (long long i = 0; i < setnum; i++, j++) {
                if (parse_double(c->argv[j].ptr, c->argv[j].len, &src[i].weight) < 0) {
                    resp_add_error(&c->out, "ERR weight value is not a float");
                    goto out;
                }
            }
        } else if (op != OP_DIFF && left >= 2 && arg_is(a, "aggregate")) {
            const struct resp_slice *how = &c->argv[j + 1];
            if (arg_is(how, "sum")) {
                agg = AGG_SUM;
            } else if (arg_is(how, "min")) {
                agg = AGG_MIN;
            } else if (arg_is(how, "max")) {
                agg = AGG_MAX;
            } else {
                resp_add_error(&c->out, ERR_SYNTAX);
                goto out;
            }
            j += 2;
        } else if (!dst && !card_only && arg_is(a, "withscores")) {
            withscores = 1;
            j++;
        } else if (card_only && left >= 2 && arg_is(a, "limit")) {
            /* Redis's one message for a limit negative or not an integer. */
            if (resp_parse_ll(c->argv[j + 1].ptr, c->argv[j + 1].len, &limit) < 0 || limit < 0) {
                resp_add_error(&c->out, "ERR LIMIT can't be negative");
                goto out;
            }
            j += 2;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            goto out;
        }
    }

    struct zset *res = NULL;
    if (op == OP_DIFF) {
        res = compute_diff(src, setnum);
    } else {
        sort_by_size(src, setnum);
        if (card_only) {
            resp_add_int(&c->out, (long long)compute_inter(src, setnum, agg, NULL, limit));
            goto out;
        }
        if (op == OP_UNION) {
            res = compute_union(src, setnum, agg);
        } else {
            res = zs_new();
            compute_inter(src, setnum, agg, res, 0);
        }
    }
    if (dst) {
        store_result(c, dst, res,
                     op == OP_UNION ? "zunionstore" : op == OP_INTER ? "zinterstore" : "zdiffstore");
    } else {
        resp_add_array_len(&c->out, list_len(c, zs_len(res), withscores));
        for (struct zs_node *n = zs_first(res); n; n = zs_next(n))
            add_member(c, n, withscores);
        zs_free(res);
    }
out:
    for (long long i = 0; i < setnum; i++)
        zs_free(src[i].owned);
    xfree(src);
}

static void cmd_zunionstore(struct client *c)
{
    setop_generic(c, &c->argv[1], 2, OP_UNION, 0);
}

static void cmd_zinterstore(struct client *c)
{
    setop_generic(c, &c->argv[1], 2, OP_INTER, 0);
}

static void cmd_zdiffstore(struct client *c)
{
    setop_generic(c, &c->argv[1], 2, OP_DIFF, 0);
}

static void cmd_zunion(struct client *c)
{
    setop_generic(c, NULL, 1, OP_UNION, 0);
}

static void cmd_zinter(struct client *c)
{
    setop_generic(c, NULL, 1, OP_INTER, 0);
}

static void cmd_zdiff(struct client *c)
{
    setop_generic(c, NULL, 1, OP_DIFF, 0);
}

static void cmd_zintercard(struct client *c)
{
    setop_generic(c, NULL, 1, OP_INTER, 1);
}

/* ---- the table ---------------------------------------------------------- */

#define ZSET_COMMAND(name_, proc_, arity_, flags_, first, last)                                    \
    {.name = (name_), .proc = (proc_), .arity = (arity_), .flags = (flags_),                       \
     .first_key = (first), .last_key = (last), .key_step = (first) != 0, .group = "sorted-set"}

/* Arity, flags and key positions for COMMAND INFO, from Redis 7's table
 * (COMMAND DOCS answers Redis's own docs, redis_docs.c). The commands that take numkeys give only their first
 * key position here: the rest move with numkeys. */
const struct command zset_commands[] = {
    ZSET_COMMAND("zadd", cmd_zadd, -4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1),
    ZSET_COMMAND("zincrby", cmd_zincrby, 4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1),
    ZSET_COMMAND("zrem", cmd_zrem, -3, CMD_WRITE | CMD_FAST, 1, 1),
    ZSET_COMMAND("zcard", cmd_zcard, 2, CMD_READONLY | CMD_FAST, 1, 1),
    ZSET_COMMAND("zscore", cmd_zscore, 3, CMD_READONLY | CMD_FAST, 1, 1),
    ZSET_COMMAND("zmscore", cmd_zmscore, -3, CMD_READONLY | CMD_FAST, 1, 1),
    ZSET_COMMAND("zcount", cmd_zcount, 4, CMD_READONLY | CMD_FAST, 1, 1),
    ZSET_COMMAND("zlexcount", cmd_zlexcount, 4, CMD_READONLY | CMD_FAST, 1, 1),
    ZSET_COMMAND("zrank", cmd_zrank, -3, CMD_READONLY | CMD_FAST, 1, 1),
    ZSET_COMMAND("zrevrank", cmd_zrevrank, -3, CMD_READONLY | CMD_FAST, 1, 1),
    ZSET_COMMAND("zrange", cmd_zrange, -4, CMD_READONLY, 1, 1),
    ZSET_COMMAND("zrangestore", cmd_zrangestore, -5,
                 CMD_WRITE | CMD_DENYOOM | CMD_TOUCHES_OWN_KEYS, 1, 2),
    ZSET_COMMAND("zrevrange", cmd_zrevrange, -4, CMD_READONLY, 1, 1),
    ZSET_COMMAND("zrangebyscore", cmd_zrangebyscore, -4, CMD_READONLY, 1, 1),
    ZSET_COMMAND("zrevrangebyscore", cmd_zrevrangebyscore, -4, CMD_READONLY, 1, 1),
    ZSET_COMMAND("zrangebylex", cmd_zrangebylex, -4, CMD_READONLY, 1, 1),
    ZSET_COMMAND("zrevrangebylex", cmd_zrevrangebylex, -4, CMD_READONLY, 1, 1),
    ZSET_COMMAND("zremrangebyrank", cmd_zremrangebyrank, 4, CMD_WRITE, 1, 1),
    ZSET_COMMAND("zremrangebyscore", cmd_zremrangebyscore, 4, CMD_WRITE, 1, 1),
    ZSET_COMMAND("zremrangebylex", cmd_zremrangebylex, 4, CMD_WRITE, 1, 1),
    ZSET_COMMAND("zpopmin", cmd_zpopmin, -2, CMD_WRITE | CMD_FAST, 1, 1),
    ZSET_COMMAND("zpopmax", cmd_zpopmax, -2, CMD_WRITE | CMD_FAST, 1, 1),
    ZSET_COMMAND("zmpop", cmd_zmpop, -4, CMD_WRITE | CMD_MOVABLE_KEYS, 0, 0),
    {.name = "bzpopmin", .proc = cmd_bzpopmin, .arity = -3,
     .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_FAST | CMD_BLOCKING | CMD_TOUCHES_OWN_KEYS,
     .first_key = 1, .last_key = -2, .key_step = 1, .group = "sorted-set"},
    {.name = "bzpopmax", .proc = cmd_bzpopmax, .arity = -3,
     .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_FAST | CMD_BLOCKING | CMD_TOUCHES_OWN_KEYS,
     .first_key = 1, .last_key = -2, .key_step = 1, .group = "sorted-set"},
    ZSET_COMMAND("bzmpop", cmd_bzmpop, -5,
                 CMD_WRITE | CMD_MOVABLE_KEYS | CMD_BLOCKING | CMD_TOUCHES_OWN_KEYS, 0, 0),
    ZSET_COMMAND("zrandmember", cmd_zrandmember, -2, CMD_READONLY, 1, 1),
    ZSET_COMMAND("zscan", cmd_zscan, -3, CMD_READONLY, 1, 1),
    ZSET_COMMAND("zunionstore", cmd_zunionstore, -4,
                 CMD_WRITE | CMD_DENYOOM | CMD_TOUCHES_OWN_KEYS | CMD_MOVABLE_KEYS, 1, 1),
    ZSET_COMMAND("zinterstore", cmd_zinterstore, -4,
                 CMD_WRITE | CMD_DENYOOM | CMD_TOUCHES_OWN_KEYS | CMD_MOVABLE_KEYS, 1, 1),
    ZSET_COMMAND("zdiffstore", cmd_zdiffstore, -4,
                 CMD_WRITE | CMD_DENYOOM | CMD_TOUCHES_OWN_KEYS | CMD_MOVABLE_KEYS, 1, 1),
    ZSET_COMMAND("zunion", cmd_zunion, -3, CMD_READONLY | CMD_MOVABLE_KEYS, 0, 0),
    ZSET_COMMAND("zinter", cmd_zinter, -3, CMD_READONLY | CMD_MOVABLE_KEYS, 0, 0),
    ZSET_COMMAND("zdiff", cmd_zdiff, -3, CMD_READONLY | CMD_MOVABLE_KEYS, 0, 0),
    ZSET_COMMAND("zintercard", cmd_zintercard, -3, CMD_READONLY | CMD_MOVABLE_KEYS, 0, 0),
    {0},
};
