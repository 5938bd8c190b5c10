/*
 * cmd_ordered.c - the ordered keyspace commands: KRANGE, KPREFIX, KCOUNT,
 * KRANK, KREVRANK, KFIRST, KLAST, KNEXT, KPREV, KDELRANGE and KSPLIT.
 *
 * Owns: ordered_commands[] and nothing else; entries belong to the keyspace.
 * Knows nothing of sockets: handlers read argument slices and write replies
 * into c->out.
 *
 * Rules every handler keeps:
 *  - keys whose deadline has passed are skipped, never deleted (live.h):
 *    counts, ranks and offsets are live positions, so answers are exact
 *    and a read after a mass expiry does not delete the keys inline;
 *  - a range is a span of positions (krange.h), so offsets, ranks and counts
 *    cost O(log n) through the subtree sizes, never a walk; only listing m
 *    keys walks them, O(log n + m). A listing that ends at a bound or a
 *    prefix starts from one seek and stops at the first key past it, which
 *    saves the descent that counting would take. The one exception to
 *    O(log n) offsets is a TYPE filter, which has to look at each key to
 *    know whether it counts;
 *  - a listing long enough streams (listing.h) when its length is known
 *    before its end: by rank, or without a TYPE filter, whose walk counts
 *    the rest of its span once it has written a chunk;
 *  - syntax borrowed from ZRANGE/ZRANGEBYLEX keeps Redis 7.0's rules and
 *    error texts (t_zset.c): "[x" "(x" "-" "+" bounds, REV taking max before
 *    min, LIMIT with a negative offset listing nothing and a negative count
 *    meaning all, WITHVALUES flat in RESP2 and pairs in RESP3 as WITHSCORES.
 */
#include <stdint.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "cluster_query.h"
#include "cmd_ordered.h"
#include "keyspace.h"
#include "krange.h"
#include "lazyfree.h"
#include "lexrange.h"
#include "listing.h"
#include "live.h"
#include "mem.h"
#include "reach.h"
#include "notify.h"
#include "propagate.h"
#include "range_opts.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"
#include "tracking.h"
#include "watch.h"

/* Redis's text for a count that must not be negative (LPOP, SPOP, ...). */
#define ERR_NOT_POSITIVE "ERR value is out of range, must be positive"

/* Where a listing's candidates end: after a number of positions, past a lex
 * bound, at the keyspace's end (a bound of "+" ascending or "-" descending,
 * which every key is inside: no test per key), or at the first key without
 * a prefix. A listing that knows its positions also knows its length before
 * the walk; the others learn it by walking, and so are sent with a deferred
 * length. */
enum walk_end { END_SPAN, END_BOUND, END_ALL, END_PREFIX };

/* What a reply lists: the candidates from start on, ascending or (rev)
 * descending, those of one type only, skipping offset of them and listing at
 * most count, each key with its value or not. Offset and count count listed
 * keys, so with a TYPE filter they count keys of that type. */
struct walk {
    struct ks_entry *start; /* first candidate; NULL when there is none */
    enum walk_end end;
    size_t len;             /* END_SPAN: the number of candidates */
    struct lex_bound bound; /* END_BOUND, END_ALL: max ascending, min descending */
    const struct resp_slice *prefix; /* END_PREFIX */
    int rev;
    long long offset;       /* negative: list nothing, as Redis's LIMIT; only
                             * with END_BOUND, END_ALL and END_PREFIX, as
                             * LIMIT is */
    size_t count;
    int withvalues;
    int type;               /* enum ks_type, or RANGE_TYPE_ANY */
    struct live_view *live; /* what the walk sees: due keys skipped */
};

/* The db as of the command's start time, the clock the lookups use too. */
static void live_init(struct client *c, struct live_view *v)
{
    live_view_for(c, v, server.cmd_start_us / 1000);
}

static size_t list_len(const struct client *c, size_t n, int withvalues)
{
    return withvalues && c->out.proto == 2 ? 2 * n : n;
}

static struct ks_entry *walk_step(const struct walk *w, struct ks_entry *e)
{
    return w->rev ? ks_prev(e) : ks_next(e);
}

/* Whether e, the visited-th candidate from start, is still one. */
static int walk_inside(const struct walk *w, const struct ks_entry *e, size_t visited)
{
    switch (w->end) {
    case END_SPAN:
        return visited < w->len;
    case END_BOUND:
        return w->rev ? lex_gte_min(ks_key(e), ks_klen(e), &w->bound)
                      : lex_lte_max(ks_key(e), ks_klen(e), &w->bound);
    case END_ALL:
        return 1;
    case END_PREFIX:
        break;
    }
    return kr_has_prefix(e, w->prefix->ptr, w->prefix->len);
}

/* The entry skip live positions past e in the walk's direction, or NULL:
 * through the subtree sizes, O(log n) however far while no key is due. */
static struct ks_entry *walk_jump(const struct walk *w, struct ks_entry *e, size_t skip)
{
    size_t rank = live_rank(w->live, e);
    if (w->rev)
        return skip <= rank ? live_select(w->live, rank - skip) : NULL;
    return skip < live_count(w->live) - rank ? live_select(w->live, rank + skip) : NULL;
}

/* How many candidates of a walk to a bound or to a prefix's end there are
 * from e (one of them) on: counted only once a listing turns out long enough
 * to stream, as its length must be known before the rest goes. O(log n). */
static size_t walk_rest(struct client *c, const struct walk *w, const struct ks_entry *e)
{
    struct kr_span span;

    if (w->end == END_PREFIX) {
        span = kr_span_prefix(c->db, w->prefix->ptr, w->prefix->len);
    } else {
        struct lex_bound inf = {w->rev ? LEX_BOUND_POS_INF : LEX_BOUND_NEG_INF, NULL, 0};
        span = w->rev ? kr_span_lex(c->db, &w->bound, &inf) : kr_span_lex(c->db, &inf, &w->bound);
    }
    live_span(w->live, &span.lo, &span.hi);
    size_t rank = live_rank(w->live, e);
    return w->rev ? rank + 1 - span.lo : span.hi - rank;
}

static void reply_walk(struct client *c, const struct walk *w)
{
    struct ks_entry *e = w->offset < 0 ? NULL : w->start;
    size_t visited = 0, n = 0;
    size_t skip = w->offset < 0 ? 0 : (size_t)w->offset;

    if (w->end == END_SPAN && w->type == RANGE_TYPE_ANY) {
        n = w->len < w->count ? w->len : w->count;
        resp_add_array_len(&c->out, list_len(c, n, w->withvalues));
        listing_span(c, e, n, w->rev, w->withvalues, w->live);
        return;
    }
    /* Without a TYPE filter every candidate is listed, so the offset is a
     * distance in positions: a jump, unless keys are due and the offset is
     * no longer than they are many, when walking it costs less than a
     * select by live position (live.h). */
    if (e && skip > 0 && w->type == RANGE_TYPE_ANY && skip > live_due(w->live)) {
        e = live_nearest(w->live, e, w->rev);
        e = e ? walk_jump(w, e, skip) : NULL;
        skip = 0;
    }
    /* Only a listing without a TYPE filter can know its length before its
     * end, and so stream: once it has written a chunk, it counts the rest
     * and hands over to listing_span. */
    size_t stop = w->type == RANGE_TYPE_ANY ? listing_stop(c) : SIZE_MAX;
    struct resp_deferred d;
    resp_add_deferred(&c->out, &d);
    /* The walk's next entries are warmed (ks_warm) a batch at a time: with
     * a LIMIT, as many as it may list; without one, batches growing from a
     * few, so a short range whose bound comes early loads little past it. */
    size_t warm_left = 0, warm_grow = 16;
    /* The keys go into a run of bulks (listing_add), ended before the
     * reply's other writes. */
    struct resp_bulks run;
    resp_bulks_begin(&c->out, &run);
    /* A due key is skipped where it stands, so a walk never runs past its
     * end over due keys; visited counts live candidates. */
    for (; e && n < w->count && !c->out.failed && walk_inside(w, e, visited);
         e = walk_step(w, e)) {
        if (warm_left == 0) {
            warm_left = warm_grow;
            if (w->count != SIZE_MAX && w->count - n < SIZE_MAX - skip)
                warm_left = w->count - n + skip;
            if (warm_left > KS_WARM_MAX)
                warm_left = KS_WARM_MAX;
            ks_warm(e, warm_left, w->rev);
            if (warm_grow < KS_WARM_MAX)
                warm_grow *= 2;
        }
        warm_left--;
        if (live_hides(w->live, e))
            continue;
        visited++;
        if (resp_bulks_pending(&c->out, &run) >= stop) {
            resp_bulks_end(&c->out, &run);
            size_t rest = walk_rest(c, w, e);
            if (rest > w->count - n)
                rest = w->count - n;
            resp_set_deferred_array(&c->out, &d, list_len(c, n + rest, w->withvalues));
            listing_span(c, e, rest, w->rev, w->withvalues, w->live);
            return;
        }
        if (w->type != RANGE_TYPE_ANY && e->type != w->type)
            continue;
        if (skip > 0) {
            skip--;
            continue;
        }
        listing_add(c, &run, e, w->withvalues);
        n++;
    }
    resp_bulks_end(&c->out, &run);
    resp_set_deferred_array(&c->out, &d, list_len(c, n, w->withvalues));
}

/* A walk over the live positions of span, from its first (or, rev, its
 * last) key. */
static void walk_span(struct walk *w, struct kr_span span)
{
    size_t len = kr_span_len(&span);
    w->start = len ? live_select(w->live, w->rev ? span.hi - 1 : span.lo) : NULL;
    w->end = END_SPAN;
    w->len = len;
}

/* A walk over the live keys among the tree positions of span, from the
 * first (or, rev, the last) of them: found from the tree position, with no
 * select by live position (live_select), which costs more while keys are
 * due. */
static void walk_tree_span(struct walk *w, struct kr_span span)
{
    w->len = live_in(w->live, span.lo, span.hi);
    w->start = w->len ? live_nearest(w->live, ks_select(w->live->db, w->rev ? span.hi - 1 : span.lo),
                                     w->rev)
                      : NULL;
    w->end = END_SPAN;
}

/* The walk's options from KRANGE's or KPREFIX's (range_opts.h). */
static void walk_opts(struct walk *w, const struct range_opts *o)
{
    w->rev = (o->flags & RANGE_REV) != 0;
    w->withvalues = (o->flags & RANGE_WITHVALUES) != 0;
    w->offset = o->offset;
    w->count = o->count < 0 ? SIZE_MAX : (size_t)o->count;
    w->type = o->type;
}

/* Parses a min and a max bound. Returns 0, or -1 (replied). */
static int lex_pair_or_reply(struct client *c, const struct resp_slice *min,
                             const struct resp_slice *max, struct lex_bound *bmin,
                             struct lex_bound *bmax)
{
    if (lex_bound_parse(min->ptr, min->len, bmin) == 0 &&
        lex_bound_parse(max->ptr, max->len, bmax) == 0)
        return 0;
    resp_add_error(&c->out, ERR_LEX_RANGE);
    return -1;
}

/* "min max" or "PREFIX p" at argv[j], argv[j + 1] as a span: "PREFIX" is
 * never a valid bound, so the two forms cannot be confused. Returns 0, or -1
 * (replied). */
static int span_or_reply(struct client *c, int j, struct kr_span *span)
{
    const struct resp_slice *a = &c->argv[j], *b = &c->argv[j + 1];
    struct lex_bound min, max;

    if (arg_is(a, "PREFIX")) {
        *span = kr_span_prefix(c->db, b->ptr, b->len);
        return 0;
    }
    if (lex_pair_or_reply(c, a, b, &min, &max) < 0)
        return -1;
    *span = kr_span_lex(c->db, &min, &max);
    return 0;
}

/* A listing's options for the cluster-wide merge (cluster_query.h). */
static void cluster_listing(struct client *c, int first, const struct range_opts *o,
                            struct cluster_query *q)
{
    q->kind = CQ_LIST;
    q->rev = (o->flags & RANGE_REV) != 0;
    q->withvalues = (o->flags & RANGE_WITHVALUES) != 0;
    q->typed = o->type != RANGE_TYPE_ANY;
    q->offset = o->offset;
    q->count = o->count;
    for (int j = first; j + 2 < c->argc; j++)
        if (arg_is(&c->argv[j], "LIMIT"))
            q->limit_at = j + 1; /* the last LIMIT counts, as it does here */
}

static void cmd_krange(struct client *c)
{
    struct range_opts o;
    struct walk w = {0};

    if (range_opts_or_reply(c, 3, RANGE_BYLEX | RANGE_REV | RANGE_LIMIT | RANGE_WITHVALUES |
                            RANGE_TYPE, &o) < 0)
        return;
    walk_opts(&w, &o);
    struct live_view live;
    live_init(c, &live);
    w.live = &live;
    if (o.flags & RANGE_BYLEX) {
        struct lex_bound min, max;
        if (lex_pair_or_reply(c, &c->argv[w.rev ? 2 : 1], &c->argv[w.rev ? 1 : 2], &min, &max) < 0)
            return;
        struct cluster_query q = {0};
        cluster_listing(c, 3, &o, &q);
        if (cluster_query_takes(c, &q))
            return;
        /* From the near bound to the far one: a hash probe or one descent to
         * start, and no counting. */
        w.start = w.rev ? kr_seek_max(c->db, &max) : kr_seek_min(c->db, &min);
        w.bound = w.rev ? min : max;
        w.end = w.bound.kind == (w.rev ? LEX_BOUND_NEG_INF : LEX_BOUND_POS_INF) ? END_ALL
                                                                                 : END_BOUND;
    } else {
        long long start, stop;
        if (arg_ll_or_reply(c, &c->argv[1], &start) < 0 ||
            arg_ll_or_reply(c, &c->argv[2], &stop) < 0)
            return;
        struct cluster_query q = {.kind = CQ_RANKS, .rev = w.rev, .withvalues = w.withvalues,
                                  .typed = w.type != RANGE_TYPE_ANY, .start = start, .stop = stop};
        if (cluster_query_takes(c, &q))
            return;
        struct kr_span span;
        rank_span(start, stop, live_count(&live), w.rev, &span.lo, &span.hi);
        walk_span(&w, span);
    }
    reply_walk(c, &w);
}

static void cmd_kprefix(struct client *c)
{
    struct range_opts o;
    struct walk w = {0};

    if (range_opts_or_reply(c, 2, RANGE_REV | RANGE_LIMIT | RANGE_WITHVALUES, &o) < 0)
        return;
    struct cluster_query q = {0};
    cluster_listing(c, 2, &o, &q);
    if (cluster_query_takes(c, &q))
        return;
    walk_opts(&w, &o);
    struct live_view live;
    live_init(c, &live);
    w.live = &live;
    w.prefix = &c->argv[1];
    w.start = (w.rev ? kr_prefix_last : kr_prefix_first)(c->db, w.prefix->ptr, w.prefix->len);
    w.end = END_PREFIX;
    reply_walk(c, &w);
}

static void cmd_kcount(struct client *c)
{
    struct kr_span span;
    struct live_view live;

    live_init(c, &live);
    if (span_or_reply(c, 1, &span) < 0)
        return;
    struct cluster_query q = {.kind = CQ_COUNT};
    if (!cluster_query_takes(c, &q))
        resp_add_int(&c->out, (long long)live_in(&live, span.lo, span.hi));
}

static void rank_generic(struct client *c, int rev)
{
    struct live_view live;
    struct cluster_query q = {.kind = CQ_RANK, .rev = rev};

    if (cluster_query_takes(c, &q))
        return;
    struct ks_entry *e = lookup_read(c, &c->argv[1]);
    if (!e) {
        resp_add_null(&c->out);
        return;
    }
    live_init(c, &live);
    size_t rank = live_rank(&live, e);
    resp_add_int(&c->out, (long long)(rev ? live_count(&live) - 1 - rank : rank));
}

static void cmd_krank(struct client *c)
{
    rank_generic(c, 0);
}

static void cmd_krevrank(struct client *c)
{
    rank_generic(c, 1);
}

/* An optional count at argv[at], 1 when absent; more arguments are an arity
 * error, as LPOP's. Returns 0, or -1 (replied). */
static int count_or_reply(struct client *c, int at, size_t *count)
{
    long long n = 1;

    if (c->argc > at + 1) {
        reply_wrong_arity(c);
        return -1;
    }
    if (c->argc == at + 1) {
        if (arg_ll_or_reply(c, &c->argv[at], &n) < 0)
            return -1;
        if (n < 0) {
            resp_add_error(&c->out, ERR_NOT_POSITIVE);
            return -1;
        }
    }
    *count = (size_t)n;
    return 0;
}

/* KFIRST/KLAST [count] (has_key 0) and KNEXT/KPREV key [count]: the keys
 * nearest an end or strictly beyond key, nearest first; key need not exist. */
static void neighbours_generic(struct client *c, int has_key, int rev)
{
    struct live_view live;
    struct walk w = {.type = RANGE_TYPE_ANY, .rev = rev, .live = &live};
    struct kr_span span = {0, 0};

    if (count_or_reply(c, has_key ? 2 : 1, &w.count) < 0)
        return;
    struct cluster_query q = {.kind = CQ_NEAREST, .rev = rev, .count = (long long)w.count};
    if (cluster_query_takes(c, &q))
        return;
    live_init(c, &live);
    span.hi = ks_count(c->db);
    if (has_key) {
        const struct resp_slice *key = &c->argv[1];
        if (rev)
            span.hi = ks_count_before(c->db, key->ptr, key->len, 0);
        else
            span.lo = ks_count_before(c->db, key->ptr, key->len, 1);
    }
    walk_tree_span(&w, span);
    reply_walk(c, &w);
}

static void cmd_kfirst(struct client *c)
{
    neighbours_generic(c, 0, 0);
}

static void cmd_klast(struct client *c)
{
    neighbours_generic(c, 0, 1);
}

static void cmd_knext(struct client *c)
{
    neighbours_generic(c, 1, 0);
}

static void cmd_kprev(struct client *c)
{
    neighbours_generic(c, 1, 1);
}

/* Sends the n keys of batch on as one DEL (while the entries still hold the
 * keys' bytes: the effect copies them). */
static void propagate_batch(struct client *c, struct ks_entry **batch, int n)
{
    struct resp_slice argv[1 + PROPAGATE_EFFECT_BATCH];
    argv[0] = (struct resp_slice){"DEL", 3};
    for (int i = 0; i < n; i++)
        argv[1 + i] = (struct resp_slice){ks_key(batch[i]), ks_klen(batch[i])};
    propagate_effects(c->db_index, 1 + n, argv);
}

/* What each deleted key of KDELRANGE sets off, in key order from e for n
 * keys: WATCH and client-side caching are told, "del" fires, the keys go on
 * as DELs in batches; with cut 0 they are also deleted, batch by batch
 * (each entry is deleted after its DEL copied its key). */
static void each_deleted(struct client *c, struct live_view *live, struct ks_entry *e, size_t n,
                         int cut, int send)
{
    struct ks_entry *batch[PROPAGATE_EFFECT_BATCH];
    int held = 0;
    for (size_t i = 0; i < n; i++) {
        /* Deleting an entry never moves another, so next stays valid; nor
         * does deleting a live key change what live hides. A cut's entries
         * are all live and consecutive: their own tree walks them. */
        struct ks_entry *next = i + 1 == n ? NULL : cut ? ks_next(e) : live_step(live, e, 0);
        watch_touch(c->db, ks_key(e), ks_klen(e));
        /* "del" as DEL fires it, once per key in key order. Before the
         * delete, as the entry holds the key's bytes: publishing copies them
         * and reads nothing else, so no one can tell it from after. */
        notify_keyspace_event(NOTIFY_GENERIC, "del", ks_key(e), ks_klen(e), c->db->id);
        batch[held++] = e;
        if (held == PROPAGATE_EFFECT_BATCH || i + 1 == n) {
            if (send || !cut)
                propagate_batch(c, batch, held);
            if (!cut)
                for (int j = 0; j < held; j++)
                    ks_delete(c->db, batch[j]);
            held = 0;
        }
        e = next;
    }
}

/* A cut of the keys from first's to last's goes to the log and rbkv
 * replicas as KDELRANGE [first [last: on the same data (a replica's, or the
 * log's replay, which both see due keys as present) it deletes exactly
 * these keys, which were consecutive and all live here. */
static void propagate_cut(struct client *c, const struct ks_entry *first,
                          const struct ks_entry *last)
{
    size_t fl = ks_klen(first), ll = ks_klen(last);
    char *lo = xmalloc(2 + fl + ll), *hi = lo + 1 + fl;
    lo[0] = hi[0] = '[';
    memcpy(lo + 1, ks_key(first), fl);
    memcpy(hi + 1, ks_key(last), ll);
    struct resp_slice argv[3] = {{"KDELRANGE", 9}, {lo, 1 + fl}, {hi, 1 + ll}};
    propagate_rbkv_effect(c->db_index, 3, argv);
    xfree(lo);
}

/* Fewer keys than this are deleted one by one: a cut and its slices cost
 * more than they save. */
#define KDELRANGE_CUT_MIN 1024

/* KDELRANGE min max [LIMIT count] and KDELRANGE PREFIX p [LIMIT count]:
 * deletes the first count keys of the span (all when count is negative),
 * ascending. It reaches the log and the replicas as the DELs it made, which
 * a redis-server replica applies too (Redis has no KDELRANGE); a cut goes
 * as KDELRANGE over its first and last key instead (propagate_cut), unless
 * a redis-server replica is attached, so nothing is walked per key for
 * them.
 *
 * A big range whose keys are all live is cut out of the db at once
 * (ks_cut: O(log^2 n)) and freed in slices afterwards (lazyfree.h), so the
 * reply does not wait for a million frees (docs/internals.md, "Range
 * deletion"). What each key sets off is then done from the cut's own tree
 * only when someone listens: "del" events, client-side caching, a log or a
 * replica; WATCH asks about the watched keys alone. */
static void cmd_kdelrange(struct client *c)
{
    long long limit = -1;
    struct kr_span span;

    if (c->argc != 3 && !(c->argc == 5 && arg_is(&c->argv[3], "LIMIT"))) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    if (c->argc == 5 && arg_ll_or_reply(c, &c->argv[4], &limit) < 0)
        return;
    struct live_view live;
    live_init(c, &live);
    if (span_or_reply(c, 1, &span) < 0)
        return;
    size_t n = live_in(&live, span.lo, span.hi);
    if (limit >= 0 && (unsigned long long)limit < n)
        n = (size_t)limit;
    /* The live keys only: the due ones are active expiry's to delete, with
     * their "expired" events. A cut takes consecutive positions, so only
     * when the first n of the span are all live. */
    struct ks_entry *e = NULL, *last = NULL;
    if (n >= KDELRANGE_CUT_MIN && live_in(&live, span.lo, span.lo + n) == n) {
        last = ks_select(c->db, span.lo + n - 1); /* before the cut: its rank */
        e = ks_cut(c->db, span.lo, n);
    }
    if (e) {
        /* The cut's entries keep their keys until the slices free them,
         * after this command: each DEL or the bounds copy them first. */
        int plain = propagate_plain_wanted();
        if (notify_enabled(NOTIFY_GENERIC) || tracking_clients() || plain)
            each_deleted(c, &live, e, n, 1, plain);
        else
            watch_touch_cut(c->db);
        if (!plain && propagate_wanted())
            propagate_cut(c, e, last);
        lazyfree_cuts_start();
    } else if (n) {
        each_deleted(c, &live, live_nearest(&live, ks_select(c->db, span.lo), 0), n, 0,
                     propagate_wanted());
    }
    server.dirty += n;
    resp_add_int(&c->out, (long long)n);
}

/*
 * KSPLIT n [min max | PREFIX p]: the keys that split the span into n parts
 * of equal count, for handing the parts to n workers. With c keys in the
 * span, the split keys are those at span positions floor(i * c / n) for
 * i = 1 .. n-1; each starts a part, the first part starting at the span's
 * start. When n <= c these are n-1 distinct keys and no part is empty; when
 * n > c, positions repeat or fall on 0, and only the distinct ones other
 * than 0 are listed: the c-1 keys after the first, one key per part.
 */
static void cmd_ksplit(struct client *c)
{
    long long parts;
    struct kr_span span;

    if (c->argc != 2 && c->argc != 4) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    if (arg_ll_or_reply(c, &c->argv[1], &parts) < 0)
        return;
    if (parts < 1) {
        resp_add_error(&c->out, ERR_NOT_POSITIVE);
        return;
    }
    struct live_view live;
    live_init(c, &live);
    span = (struct kr_span){0, ks_count(c->db)};
    if (c->argc == 4 && span_or_reply(c, 2, &span) < 0)
        return;
    struct cluster_query q = {.kind = CQ_SPLIT, .count = parts};
    if (cluster_query_takes(c, &q))
        return;
    live_span(&live, &span.lo, &span.hi);

    uint64_t count = kr_span_len(&span);
    if ((uint64_t)parts > count) {
        struct walk w = {.count = SIZE_MAX, .type = RANGE_TYPE_ANY, .live = &live};
        walk_span(&w, (struct kr_span){span.lo + (count > 0), span.hi});
        reply_walk(c, &w);
        return;
    }
    resp_add_array_len(&c->out, (size_t)parts - 1);
    /* parts <= count < 2^32 (subtree sizes are 32-bit), so i * count fits. */
    for (uint64_t i = 1; i < (uint64_t)parts; i++) {
        struct ks_entry *e = live_select(&live, span.lo + (size_t)(i * count / (uint64_t)parts));
        resp_add_bulk(&c->out, ks_key(e), ks_klen(e));
    }
}

/* reach_: the keys it may reach beyond its key (reach.h), for ACLs. */
#define KEYSPACE_COMMAND(name_, proc_, arity_, flags_, key, reach_, summary_, complexity_, args_) \
    {.name = (name_), .proc = (proc_), .arity = (arity_), .flags = (flags_), .first_key = (key),  \
     .last_key = (key), .key_step = (key) != 0, .group = "keyspace", .key_reach = (reach_),       \
     .docs = &(const struct command_docs){.since = "0.1.0", .summary = (summary_),                \
                                          .complexity = (complexity_), .args = (args_)}}

#define WALK_COMPLEXITY                                                                          \
    "O(log(N)+M) with N the number of keys in the database and M the number of keys returned."

/* Arity, flags, key positions and docs for COMMAND INFO and COMMAND DOCS:
 * rbkv's own commands, which Redis's docs (redis_docs.c) do not have. Only
 * KRANK and KREVRANK name a key: the others take bounds or positions. */
const struct command ordered_commands[] = {
    KEYSPACE_COMMAND("krange", cmd_krange, -3, CMD_READONLY, 0, reach_krange,
                     "Return the keys in a range of ranks or, with BYLEX, of key order",
                     WALK_COMPLEXITY " With TYPE, M is the number of keys visited.",
                     "start stop [BYLEX] [REV] [LIMIT offset count] [WITHVALUES] [TYPE type]"),
    KEYSPACE_COMMAND("kprefix", cmd_kprefix, -2, CMD_READONLY, 0, reach_prefix_arg,
                     "Return the keys that start with a prefix", WALK_COMPLEXITY,
                     "prefix [REV] [LIMIT offset count] [WITHVALUES]"),
    KEYSPACE_COMMAND("kcount", cmd_kcount, 3, CMD_READONLY | CMD_FAST, 0, reach_span_arg,
                     "Count the keys in a range of key order or with a prefix",
                     "O(log(N)) with N the number of keys in the database.",
                     "min max|PREFIX prefix"),
    KEYSPACE_COMMAND("krank", cmd_krank, 2, CMD_READONLY | CMD_FAST, 1, reach_all,
                     "Return the position of a key in key order",
                     "O(log(N)) with N the number of keys in the database.", "key"),
    KEYSPACE_COMMAND("krevrank", cmd_krevrank, 2, CMD_READONLY | CMD_FAST, 1, reach_all,
                     "Return the position of a key in reverse key order",
                     "O(log(N)) with N the number of keys in the database.", "key"),
    KEYSPACE_COMMAND("kfirst", cmd_kfirst, -1, CMD_READONLY, 0, reach_all,
                     "Return the smallest keys, ascending", WALK_COMPLEXITY, "[count]"),
    KEYSPACE_COMMAND("klast", cmd_klast, -1, CMD_READONLY, 0, reach_all,
                     "Return the largest keys, descending", WALK_COMPLEXITY, "[count]"),
    KEYSPACE_COMMAND("knext", cmd_knext, -2, CMD_READONLY, 0, reach_all,
                     "Return the keys after a key, ascending", WALK_COMPLEXITY, "key [count]"),
    KEYSPACE_COMMAND("kprev", cmd_kprev, -2, CMD_READONLY, 0, reach_all,
                     "Return the keys before a key, descending", WALK_COMPLEXITY, "key [count]"),
    KEYSPACE_COMMAND("kdelrange", cmd_kdelrange, -3, CMD_WRITE, 0, reach_span_arg,
                     "Delete the keys in a range of key order or with a prefix",
                     "O((1+M)*log(N)) with N the number of keys in the database and M the "
                     "number of keys deleted.",
                     "min max [LIMIT count]|PREFIX prefix [LIMIT count]"),
    KEYSPACE_COMMAND("ksplit", cmd_ksplit, -2, CMD_READONLY, 0, reach_ksplit,
                     "Return the keys that split a range into parts of equal count",
                     "O(P*log(N)) with N the number of keys in the database and P the number "
                     "of parts.",
                     "n [min max|PREFIX prefix]"),
    {0},
};
