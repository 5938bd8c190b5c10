/*
 * cmd_collrange.c - the ordered commands over hash fields and set members:
 * HRANGE, HRANGEBYLEX, HPREFIX, HCOUNT, HRANK, HDELRANGE, SRANGE, SCOUNT and
 * SRANK, what Redis has declined to offer (redis/redis#272) and a sorted
 * value answers in O(log n).
 *
 * Owns: collrange_commands[] and nothing else; maps belong to the keyspace.
 *
 * One grammar with the ordered keyspace commands (cmd_ordered.c, through
 * coll.h): ranks by default, BYLEX bounds "[a" "(a" "-" "+", REV (max first
 * with BYLEX), LIMIT offset count with BYLEX or a prefix, WITHVALUES for a
 * hash's values. HRANGEBYLEX is Kvrocks's command of that name: fields with
 * their values, so its users move over unchanged. Counts and ranks are
 * two descents (omap.h's element-counted tree); listings walk only what they
 * return.
 */
#include <stdint.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "cmd_collrange.h"
#include "coll.h"
#include "lexrange.h"
#include "notify.h"
#include "omap.h"
#include "propagate.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"

/* The map at argv[1] for a read, or NULL (absent); -1 after WRONGTYPE. */
static int read_map_or_reply(struct client *c, int type, struct omap **m)
{
    struct ks_entry *e;
    return coll_lookup_or_reply(c, &c->argv[1], type, 0, &e, m);
}

/* HRANGE and SRANGE: key start stop [BYLEX] [REV] [LIMIT o c] [WITHVALUES]. */
static void range_generic(struct client *c, int type)
{
    unsigned allowed =
        RANGE_BYLEX | RANGE_REV | RANGE_LIMIT | (type == KS_HASH ? RANGE_WITHVALUES : 0);
    struct range_opts o;
    struct om_span span;
    struct omap *m;

    if (range_opts_or_reply(c, 4, allowed, &o) < 0 || read_map_or_reply(c, type, &m) < 0 ||
        coll_span_or_reply(c, m, 2, &o, &span) < 0)
        return;
    coll_reply_span(c, m, span, &o);
}

static void cmd_hrange(struct client *c)
{
    range_generic(c, KS_HASH);
}

static void cmd_srange(struct client *c)
{
    range_generic(c, KS_SET);
}

/* HRANGEBYLEX key min max [REV] [LIMIT o c]: Kvrocks's form, fields and
 * values. */
static void cmd_hrangebylex(struct client *c)
{
    struct range_opts o;
    struct om_span span;
    struct omap *m;

    if (range_opts_or_reply(c, 4, RANGE_REV | RANGE_LIMIT, &o) < 0)
        return;
    o.flags |= RANGE_BYLEX | RANGE_WITHVALUES;
    if (read_map_or_reply(c, KS_HASH, &m) < 0 || coll_span_or_reply(c, m, 2, &o, &span) < 0)
        return;
    coll_reply_span(c, m, span, &o);
}

/* HPREFIX key prefix [REV] [LIMIT o c] [WITHVALUES]. */
static void cmd_hprefix(struct client *c)
{
    struct range_opts o;
    struct omap *m;

    if (range_opts_or_reply(c, 3, RANGE_REV | RANGE_LIMIT | RANGE_WITHVALUES, &o) < 0 ||
        read_map_or_reply(c, KS_HASH, &m) < 0)
        return;
    struct om_span span = {0, 0};
    if (m)
        span = om_prefix_span(m, c->argv[2].ptr, c->argv[2].len);
    coll_reply_span(c, m, span, &o);
}

/* "min max" or "PREFIX p" at argv[2], argv[3], as KCOUNT and KDELRANGE take
 * them: "PREFIX" is never a valid bound, so the forms cannot be confused.
 * Returns 0, or -1 (replied). */
static int bounds_or_reply(struct client *c, const struct omap *m, struct om_span *span)
{
    const struct resp_slice *a = &c->argv[2], *b = &c->argv[3];
    struct lex_bound min, max;

    if (arg_is(a, "PREFIX")) {
        *span = m ? om_prefix_span(m, b->ptr, b->len) : (struct om_span){0, 0};
        return 0;
    }
    if (lex_bound_parse(a->ptr, a->len, &min) < 0 || lex_bound_parse(b->ptr, b->len, &max) < 0) {
        resp_add_error(&c->out, ERR_LEX_RANGE);
        return -1;
    }
    *span = m ? om_lex_span(m, &min, &max) : (struct om_span){0, 0};
    return 0;
}

static void count_generic(struct client *c, int type)
{
    struct om_span span;
    struct omap *m;

    if (read_map_or_reply(c, type, &m) < 0 || bounds_or_reply(c, m, &span) < 0)
        return;
    resp_add_int(&c->out, span.hi > span.lo ? (long long)(span.hi - span.lo) : 0);
}

static void cmd_hcount(struct client *c)
{
    count_generic(c, KS_HASH);
}

static void cmd_scount(struct client *c)
{
    count_generic(c, KS_SET);
}

/* HRANK and SRANK: the 0-based position in byte order, or nil. */
static void rank_generic(struct client *c, int type)
{
    struct omap *m;
    struct om_it it;

    if (read_map_or_reply(c, type, &m) < 0)
        return;
    if (m && om_find(m, c->argv[2].ptr, c->argv[2].len, &it))
        resp_add_int(&c->out, (long long)it.rank);
    else
        resp_add_null(&c->out);
}

static void cmd_hrank(struct client *c)
{
    rank_generic(c, KS_HASH);
}

static void cmd_srank(struct client *c)
{
    rank_generic(c, KS_SET);
}

/* HDELRANGE's fields of ranks [lo, hi) go on to the log and the replicas as
 * the HDELs they amount to, for a redis-server replica (Redis has no
 * HDELRANGE); the last HDEL of a hash removes it there as here. */
static void propagate_hdels(struct client *c, const struct omap *m, size_t lo, size_t hi)
{
    struct resp_slice argv[2 + PROPAGATE_EFFECT_BATCH];
    argv[0] = (struct resp_slice){"HDEL", 4};
    argv[1] = c->argv[1];
    int n = 2;
    struct om_it it;
    struct om_elem el;
    om_seek(m, lo, &it);
    for (size_t r = lo; r < hi; r++, om_next(m, &it)) {
        om_it_get(m, &it, &el);
        argv[n++] = (struct resp_slice){el.f, el.flen};
        if (n == 2 + PROPAGATE_EFFECT_BATCH || r + 1 == hi) {
            propagate_effects(c->db_index, n, argv);
            n = 2;
        }
    }
}

/* HDELRANGE key min max|PREFIX p: the fields removed. The chunks wholly
 * inside the range are cut out of the map's tree at once (om_cut_span) and
 * freed on the lazy-free thread, as ZREMRANGEBY* does with a sorted set's
 * run (docs/internals.md, "Range deletion"); it goes to the log and rbkv
 * replicas as itself, and the HDELs it amounts to are walked only when a
 * redis-server replica is attached, so nothing is done per field else. */
static void cmd_hdelrange(struct client *c)
{
    struct ks_entry *e;
    struct om_span span;
    struct omap *m;

    if (coll_lookup_or_reply(c, &c->argv[1], KS_HASH, 1, &e, &m) < 0 ||
        bounds_or_reply(c, m, &span) < 0)
        return;
    size_t n = span.hi > span.lo ? span.hi - span.lo : 0;
    if (n) {
        struct om_limits lim;
        coll_limits(KS_HASH, &lim);
        /* The command itself replays the same on the same hash (it has
         * no LIMIT and a field no deadline); only a redis-server replica
         * needs the HDELs. */
        if (propagate_plain_wanted())
            propagate_hdels(c, m, span.lo, span.hi);
        else if (propagate_wanted())
            propagate_rbkv_effect(c->db_index, c->argc, c->argv);
        struct omap *cut = om_cut_span(&m, span.lo, span.hi, &lim);
        ks_set_ptr(e, m);
        if (cut)
            ks_value_release(KS_HASH, cut, KS_FREE_LAZY);
        server.dirty += n;
        coll_removed(c, &c->argv[1], e, m, NOTIFY_HASH, "hdel");
    }
    resp_add_int(&c->out, (long long)n);
}

#define COLL_COMMAND(name_, proc_, arity_, flags_, group_, summary_, complexity_, args_)          \
    {.name = (name_), .proc = (proc_), .arity = (arity_), .flags = (flags_), .first_key = 1,      \
     .last_key = 1, .key_step = 1, .group = (group_),                                             \
     .docs = &(const struct command_docs){.since = "0.1.0", .summary = (summary_),                \
                                          .complexity = (complexity_), .args = (args_)}}

#define LOG_M(what)                                                                              \
    "O(log(N)+M) with N the number of " what " and M the number returned."
#define LOG_N(what) "O(log(N)) with N the number of " what "."

/* Arity, flags, key positions and docs for COMMAND INFO and COMMAND DOCS:
 * rbkv's own commands, which Redis's docs (redis_docs.c) do not have. */
const struct command collrange_commands[] = {
    COLL_COMMAND("hrange", cmd_hrange, -4, CMD_READONLY, "hash",
                 "Return the fields of a hash in a range of ranks or, with BYLEX, of byte order",
                 LOG_M("fields"),
                 "key start stop [BYLEX] [REV] [LIMIT offset count] [WITHVALUES]"),
    COLL_COMMAND("hrangebylex", cmd_hrangebylex, -4, CMD_READONLY, "hash",
                 "Return the fields and values of a hash in a range of byte order (Kvrocks's "
                 "command)",
                 LOG_M("fields"), "key min max [REV] [LIMIT offset count]"),
    COLL_COMMAND("hprefix", cmd_hprefix, -3, CMD_READONLY, "hash",
                 "Return the fields of a hash that start with a prefix, in byte order",
                 LOG_M("fields"), "key prefix [REV] [LIMIT offset count] [WITHVALUES]"),
    COLL_COMMAND("hcount", cmd_hcount, 4, CMD_READONLY | CMD_FAST, "hash",
                 "Count the fields of a hash in a range of byte order or with a prefix",
                 LOG_N("fields"), "key min max|PREFIX prefix"),
    COLL_COMMAND("hrank", cmd_hrank, 3, CMD_READONLY | CMD_FAST, "hash",
                 "Return the position of a field in its hash's byte order", LOG_N("fields"),
                 "key field"),
    COLL_COMMAND("hdelrange", cmd_hdelrange, 4, CMD_WRITE, "hash",
                 "Delete the fields of a hash in a range of byte order or with a prefix",
                 "O(log(N)+M) with N the number of fields and M the number deleted.",
                 "key min max|PREFIX prefix"),
    COLL_COMMAND("srange", cmd_srange, -4, CMD_READONLY, "set",
                 "Return the members of a set in a range of ranks or, with BYLEX, of byte order",
                 LOG_M("members"), "key start stop [BYLEX] [REV] [LIMIT offset count]"),
    COLL_COMMAND("scount", cmd_scount, 4, CMD_READONLY | CMD_FAST, "set",
                 "Count the members of a set in a range of byte order or with a prefix",
                 LOG_N("members"), "key min max|PREFIX prefix"),
    COLL_COMMAND("srank", cmd_srank, 3, CMD_READONLY | CMD_FAST, "set",
                 "Return the position of a member in its set's byte order", LOG_N("members"),
                 "key member"),
    {0},
};
