/*
 * cmd_list.c - the list commands: LPUSH RPUSH LPUSHX RPUSHX LINSERT LSET,
 * LPOP RPOP LMPOP LMOVE RPOPLPUSH, LLEN LINDEX LRANGE LPOS, LREM LTRIM, and
 * the blocking BLPOP BRPOP BLMPOP BLMOVE BRPOPLPUSH.
 *
 * Owns: list_commands[]. A list is an olist (olist.h), which the keyspace
 * owns once a key holds it; every write passes the chunk size from
 * list-max-listpack-size and stores the list's pointer back (ks_set_ptr),
 * since a write may move it. Knows nothing of sockets.
 *
 * Rules kept from Redis 7.0 (t_list.c): a key is created by a push and
 * deleted with its last element; the order of the checks (most arguments
 * before the key's type, LINDEX's index after it), the reply types (LPOP
 * with a count: a nil array on a missing key, an empty array for count 0)
 * and the error texts are Redis's, and so are the keyspace events and their
 * order (LMOVE fires the push on the destination before the pop on the
 * source).
 *
 * Positions: LINDEX, LSET, LINSERT's insertion and LRANGE's first element
 * are reached with ol_seek, O(log n) where Redis's quicklist walks from the
 * nearer end; LINSERT's search for its pivot, LPOS and LREM are walks, as
 * in Redis.
 *
 * Blocking (blocking.h): BLPOP and its kin pop at once when a key has
 * elements; otherwise the client waits, except inside MULTI, where it gets
 * the nil a timeout would give. A wait is served by list_serve once a push
 * fills a key it names. As Redis does, what goes to the log and the
 * replicas is the non-blocking command a pop amounted to: LPOP/RPOP key
 * [count] for BLPOP, BRPOP, BLMPOP and LMPOP, LMOVE for BLMOVE and RPOPLPUSH
 * for BRPOPLPUSH, so replay never blocks and takes the same key. A waiting
 * BLMOVE whose destination holds another type when it is served gets
 * WRONGTYPE and the element stays in the source, as in Redis.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "blocking.h"
#include "client.h"
#include "cmd_list.h"
#include "keyspace.h"
#include "mem.h"
#include "notify.h"
#include "olist.h"
#include "propagate.h"
#include "resp_num.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"
#include "watch.h"

#define ERR_NOT_POSITIVE "ERR value is out of range, must be positive"
#define ERR_INDEX "ERR index out of range"
#define ERR_RANK_ZERO                                                                            \
    "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use " \
    "negative to start from the end of the list"
#define ERR_RANK_RANGE                                                                           \
    "ERR value is out of range, value must between -9223372036854775807 and "                   \
    "9223372036854775807"

/* Redis's quicklist caps the setting so (quicklistSetFill): below -5 is
 * -5, above FILL_MAX is FILL_MAX, and 0 lets one element in a node. */
#define FILL_MAX ((1 << 15) - 1)

void list_limits(struct ol_limits *lim)
{
    long long fill = server.cfg.list_max_listpack_size;
    if (fill < -5)
        fill = -5;
    else if (fill == 0)
        fill = 1;
    else if (fill > FILL_MAX)
        fill = FILL_MAX;
    lim->max_listpack_size = (long)fill;
}

/* The list at key: 0 with *l (and *e) set, or *l NULL when the key is
 * absent; -1 after replying WRONGTYPE. */
static int list_lookup_or_reply(struct client *c, const struct resp_slice *key, int write,
                                struct ks_entry **e, struct olist **l)
{
    *e = write ? lookup_write(c, key) : lookup_read(c, key);
    *l = NULL;
    if (!*e)
        return 0;
    if ((*e)->type != KS_LIST) {
        resp_add_error(&c->out, ERR_WRONGTYPE);
        return -1;
    }
    *l = ks_ptr(*e);
    return 0;
}

/* Redis checks every element against LIST_MAX_ITEM_SIZE before anything
 * else: argv[first..last] fit, or -1 after "Element too large". Reachable
 * only with proto-max-bulk-len raised past 4 GB. */
static int elems_fit_or_reply(struct client *c, int first, int last)
{
    for (int j = first; j <= last; j++) {
        if (c->argv[j].len > OL_MAX_ELEM) {
            resp_add_error(&c->out, "ERR Element too large");
            return -1;
        }
    }
    return 0;
}

/* Adds key (absent) holding l, which the keyspace then owns: "new" as Redis
 * fires it, and the clients waiting on key may now be served. */
static struct ks_entry *list_add_key(struct client *c, const struct resp_slice *key,
                                     struct olist *l)
{
    struct ks_entry *e = ks_add_ptr(c->db, key->ptr, key->len, KS_LIST, l);
    notify_key(c, NOTIFY_NEW, "new", key);
    block_signal_key(c->db, key->ptr, key->len);
    return e;
}

/* After elements left l at key (entry e): fires event, then deletes the key
 * when l is empty and fires "del", in Redis's order. The key is touched for
 * WATCH here because pops also run outside any command (a served wait) and
 * under movable keys (LMPOP). */
static void list_removed(struct client *c, const struct resp_slice *key, struct ks_entry *e,
                         struct olist *l, const char *event)
{
    notify_key(c, NOTIFY_LIST, event, key);
    if (ol_len(l) == 0) {
        ks_delete(c->db, e);
        notify_key(c, NOTIFY_GENERIC, "del", key);
    }
    watch_touch(c->db, key->ptr, key->len);
}

/* ---- pushes: LPUSH RPUSH LPUSHX RPUSHX ---------------------------------- */

static void push_generic(struct client *c, int tail, int only_existing)
{
    struct ks_entry *e;
    struct olist *l;
    struct ol_limits lim;

    if (elems_fit_or_reply(c, 2, c->argc - 1) < 0 ||
        list_lookup_or_reply(c, &c->argv[1], 1, &e, &l) < 0)
        return;
    if (!l && only_existing) {
        resp_add_int(&c->out, 0);
        return;
    }
    list_limits(&lim);
    /* The arity promises an element, so a list made here is never empty. */
    int created = l == NULL;
    if (created)
        l = ol_new();
    for (int j = 2; j < c->argc; j++)
        ol_push(&l, tail, c->argv[j].ptr, c->argv[j].len, &lim);
    if (created)
        list_add_key(c, &c->argv[1], l);
    else
        ks_set_ptr(e, l);
    notify_key(c, NOTIFY_LIST, tail ? "rpush" : "lpush", &c->argv[1]);
    server.dirty += (unsigned long long)(c->argc - 2);
    resp_add_int(&c->out, (long long)ol_len(l));
}

static void cmd_lpush(struct client *c)
{
    push_generic(c, 0, 0);
}

static void cmd_rpush(struct client *c)
{
    push_generic(c, 1, 0);
}

static void cmd_lpushx(struct client *c)
{
    push_generic(c, 0, 1);
}

static void cmd_rpushx(struct client *c)
{
    push_generic(c, 1, 1);
}

/* ---- LINSERT, LSET ------------------------------------------------------ */

static void cmd_linsert(struct client *c)
{
    const struct resp_slice *pivot = &c->argv[3], *v = &c->argv[4];
    struct ks_entry *e;
    struct olist *l;
    struct ol_limits lim;
    struct ol_it it;
    int after;

    if (arg_is(&c->argv[2], "AFTER")) {
        after = 1;
    } else if (arg_is(&c->argv[2], "BEFORE")) {
        after = 0;
    } else {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    if (elems_fit_or_reply(c, 4, 4) < 0 || list_lookup_or_reply(c, &c->argv[1], 1, &e, &l) < 0)
        return;
    if (!l) {
        resp_add_int(&c->out, 0);
        return;
    }
    /* Finding the pivot is a walk; the insertion itself a descent. */
    for (ol_seek(l, 0, &it); ol_it_valid(&it); ol_next(&it)) {
        const char *p;
        size_t plen;
        ol_it_get(&it, &p, &plen);
        if (plen == pivot->len && memcmp(p, pivot->ptr, plen) == 0)
            break;
    }
    if (!ol_it_valid(&it)) {
        resp_add_int(&c->out, -1);
        return;
    }
    list_limits(&lim);
    ol_insert(&l, it.pos + (size_t)after, v->ptr, v->len, &lim);
    ks_set_ptr(e, l);
    notify_key(c, NOTIFY_LIST, "linsert", &c->argv[1]);
    server.dirty++;
    resp_add_int(&c->out, (long long)ol_len(l));
}

/* A list index (negative from the tail) as a position: 0 with *pos set, or
 * -1 when it is outside the list. */
static int list_position(const struct olist *l, long long index, size_t *pos)
{
    long long len = (long long)ol_len(l);
    if (index < 0)
        index += len;
    if (index < 0 || index >= len)
        return -1;
    *pos = (size_t)index;
    return 0;
}

static void cmd_lset(struct client *c)
{
    struct ks_entry *e = lookup_write(c, &c->argv[1]);
    struct ol_limits lim;
    long long index;
    size_t pos;

    if (!e) {
        resp_add_error(&c->out, ERR_NO_SUCH_KEY);
        return;
    }
    if (e->type != KS_LIST) {
        resp_add_error(&c->out, ERR_WRONGTYPE);
        return;
    }
    if (elems_fit_or_reply(c, 3, 3) < 0 || arg_ll_or_reply(c, &c->argv[2], &index) < 0)
        return;
    struct olist *l = ks_ptr(e);
    if (list_position(l, index, &pos) < 0) {
        resp_add_error(&c->out, ERR_INDEX);
        return;
    }
    list_limits(&lim);
    ol_set(&l, pos, c->argv[3].ptr, c->argv[3].len, &lim);
    ks_set_ptr(e, l);
    notify_key(c, NOTIFY_LIST, "lset", &c->argv[1]);
    server.dirty++;
    reply_ok(c);
}

/* ---- reading: LLEN LINDEX LRANGE LPOS ----------------------------------- */

static void cmd_llen(struct client *c)
{
    struct ks_entry *e;
    struct olist *l;

    if (list_lookup_or_reply(c, &c->argv[1], 0, &e, &l) < 0)
        return;
    resp_add_int(&c->out, l ? (long long)ol_len(l) : 0);
}

static void add_elem(struct client *c, const struct ol_it *it)
{
    const char *v;
    size_t vlen;
    ol_it_get(it, &v, &vlen);
    resp_add_bulk(&c->out, v, vlen);
}

static void cmd_lindex(struct client *c)
{
    struct ks_entry *e;
    struct olist *l;
    struct ol_it it;
    long long index;
    size_t pos;

    if (list_lookup_or_reply(c, &c->argv[1], 0, &e, &l) < 0)
        return;
    if (!l) {
        resp_add_null(&c->out);
        return;
    }
    if (arg_ll_or_reply(c, &c->argv[2], &index) < 0)
        return;
    if (list_position(l, index, &pos) < 0) {
        resp_add_null(&c->out);
        return;
    }
    ol_seek(l, pos, &it);
    add_elem(c, &it);
}

static void cmd_lrange(struct client *c)
{
    struct ks_entry *e;
    struct olist *l;
    struct ol_it it;
    long long start, end;
    size_t lo, hi;

    if (arg_ll_or_reply(c, &c->argv[2], &start) < 0 || arg_ll_or_reply(c, &c->argv[3], &end) < 0)
        return;
    if (list_lookup_or_reply(c, &c->argv[1], 0, &e, &l) < 0)
        return;
    if (!l || rank_range(start, end, ol_len(l), &lo, &hi) < 0) {
        resp_add_array_len(&c->out, 0);
        return;
    }
    resp_add_array_len(&c->out, hi - lo + 1);
    /* A reply over the client's hard limit gets the client closed: walking
     * on would only hold the loop. */
    ol_seek(l, lo, &it);
    for (size_t n = hi - lo + 1; n && !c->out.failed; n--, ol_next(&it))
        add_elem(c, &it);
}

/* LPOS's options, parsed as Redis does: an option needs its value, a later
 * one overrides. RANK is 1 by default (negative: from the tail); COUNT -1
 * means none given (a single index or nil), 0 all matches; MAXLEN 0 no
 * limit. */
struct lpos_opts {
    long long rank, count, maxlen;
};

static int lpos_opts_or_reply(struct client *c, struct lpos_opts *o)
{
    o->rank = 1;
    o->count = -1;
    o->maxlen = 0;
    for (int j = 3; j < c->argc; j++) {
        const struct resp_slice *opt = &c->argv[j];
        int more = j + 1 < c->argc;
        if (more && arg_is(opt, "RANK")) {
            if (arg_ll_or_reply(c, &c->argv[++j], &o->rank) < 0)
                return -1;
            if (o->rank == LLONG_MIN) {
                resp_add_error(&c->out, ERR_RANK_RANGE);
                return -1;
            }
            if (o->rank == 0) {
                resp_add_error(&c->out, ERR_RANK_ZERO);
                return -1;
            }
        } else if (more && (arg_is(opt, "COUNT") || arg_is(opt, "MAXLEN"))) {
            int is_count = arg_is(opt, "COUNT");
            long long *v = is_count ? &o->count : &o->maxlen;
            /* Redis's one message for "not a number" and "negative". */
            if (resp_parse_ll(c->argv[j + 1].ptr, c->argv[j + 1].len, v) < 0 || *v < 0) {
                resp_add_error(&c->out, is_count ? "ERR COUNT can't be negative"
                                                 : "ERR MAXLEN can't be negative");
                return -1;
            }
            j++;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return -1;
        }
    }
    return 0;
}

static void cmd_lpos(struct client *c)
{
    const struct resp_slice *want = &c->argv[2];
    struct lpos_opts o;
    struct ks_entry *e;
    struct olist *l;
    struct ol_it it;
    struct resp_deferred len;

    if (lpos_opts_or_reply(c, &o) < 0 || list_lookup_or_reply(c, &c->argv[1], 0, &e, &l) < 0)
        return;
    if (!l) {
        if (o.count != -1)
            resp_add_array_len(&c->out, 0);
        else
            resp_add_null(&c->out);
        return;
    }
    int from_tail = o.rank < 0;
    unsigned long long rank = from_tail ? (unsigned long long)-o.rank : (unsigned long long)o.rank;
    size_t n = ol_len(l), found = 0, matches = 0, steps = 0, at = 0;
    if (o.count != -1)
        resp_add_deferred(&c->out, &len);
    ol_seek(l, from_tail ? n - 1 : 0, &it);
    for (; ol_it_valid(&it) && (o.maxlen == 0 || steps < (unsigned long long)o.maxlen); steps++) {
        const char *v;
        size_t vlen;
        ol_it_get(&it, &v, &vlen);
        if (vlen == want->len && memcmp(v, want->ptr, vlen) == 0 && ++matches >= rank) {
            at = it.pos;
            found++;
            if (o.count == -1)
                break;
            resp_add_int(&c->out, (long long)at);
            if (o.count && found >= (unsigned long long)o.count)
                break;
        }
        if (from_tail)
            ol_prev(&it);
        else
            ol_next(&it);
    }
    if (o.count != -1)
        resp_set_deferred_array(&c->out, &len, found);
    else if (found)
        resp_add_int(&c->out, (long long)at);
    else
        resp_add_null(&c->out);
}

/* ---- removing: LREM LTRIM ----------------------------------------------- */

static void cmd_lrem(struct client *c)
{
    struct ks_entry *e;
    struct olist *l;
    struct ol_limits lim;
    long long count;

    if (arg_ll_or_reply(c, &c->argv[2], &count) < 0 ||
        list_lookup_or_reply(c, &c->argv[1], 1, &e, &l) < 0)
        return;
    if (!l) {
        resp_add_int(&c->out, 0);
        return;
    }
    list_limits(&lim);
    size_t removed = ol_remove(&l, c->argv[3].ptr, c->argv[3].len, (long)count, &lim);
    ks_set_ptr(e, l);
    if (removed)
        list_removed(c, &c->argv[1], e, l, "lrem");
    server.dirty += removed;
    resp_add_int(&c->out, (long long)removed);
}

static void cmd_ltrim(struct client *c)
{
    struct ks_entry *e;
    struct olist *l;
    struct ol_limits lim;
    long long start, end;
    size_t lo, hi;

    if (arg_ll_or_reply(c, &c->argv[2], &start) < 0 || arg_ll_or_reply(c, &c->argv[3], &end) < 0 ||
        list_lookup_or_reply(c, &c->argv[1], 1, &e, &l) < 0)
        return;
    if (!l) {
        reply_ok(c);
        return;
    }
    size_t n = ol_len(l);
    /* An empty range keeps nothing: Redis's ltrim = llen, rtrim = 0. */
    if (rank_range(start, end, n, &lo, &hi) < 0) {
        lo = n;
        hi = n - 1;
    }
    list_limits(&lim);
    ol_del_range(&l, hi + 1, n, &lim);
    ol_del_range(&l, 0, lo, &lim);
    ks_set_ptr(e, l);
    server.dirty += n - ol_len(l);
    /* Redis fires "ltrim" and signals the key even when nothing went. */
    list_removed(c, &c->argv[1], e, l, "ltrim");
    reply_ok(c);
}

/* ---- pops and moves, blocking or not ------------------------------------ */

/* How a pop or a move takes and replies; a waiting client's copy lives in
 * blocking.h's wait, with the destination's bytes after it. */
struct list_how {
    int from_tail;       /* which end elements leave */
    int to_tail;         /* a move's end of the destination */
    long long count;     /* -1: [key, element] (BLPOP); else [key, [elements]] */
    int move;            /* BLMOVE / BRPOPLPUSH: dst follows */
    int rpoplpush;       /* logged as RPOPLPUSH rather than LMOVE */
    size_t dst_len;
    char dst[];
};

/* Removes n (<= len) elements from l's end, replying each in pop order. */
static void pop_elems(struct client *c, struct olist **lp, int from_tail, size_t n)
{
    struct ol_limits lim;
    struct ol_it it;
    size_t len = ol_len(*lp);

    ol_seek(*lp, from_tail ? len - 1 : 0, &it);
    for (size_t i = 0; i < n; i++) {
        add_elem(c, &it);
        if (from_tail)
            ol_prev(&it);
        else
            ol_next(&it);
    }
    list_limits(&lim);
    if (from_tail)
        ol_del_range(lp, len - n, len, &lim);
    else
        ol_del_range(lp, 0, n, &lim);
}

static void cmd_pop_generic(struct client *c, int from_tail)
{
    long long count = -1;
    struct ks_entry *e;
    struct olist *l;

    if (c->argc > 3) {
        reply_wrong_arity(c);
        return;
    }
    /* Redis's one message for a count that is negative or not a number. */
    if (c->argc == 3 && (resp_parse_ll(c->argv[2].ptr, c->argv[2].len, &count) < 0 || count < 0)) {
        resp_add_error(&c->out, ERR_NOT_POSITIVE);
        return;
    }
    if (list_lookup_or_reply(c, &c->argv[1], 1, &e, &l) < 0)
        return;
    if (!l) {
        if (count == -1)
            resp_add_null(&c->out);
        else
            resp_add_null_array(&c->out);
        return;
    }
    if (count == 0) {
        resp_add_array_len(&c->out, 0);
        return;
    }
    size_t n = 1;
    if (count != -1) {
        n = (unsigned long long)count < ol_len(l) ? (size_t)count : ol_len(l);
        resp_add_array_len(&c->out, n);
    }
    pop_elems(c, &l, from_tail, n);
    ks_set_ptr(e, l);
    server.dirty += n;
    list_removed(c, &c->argv[1], e, l, from_tail ? "rpop" : "lpop");
}

static void cmd_lpop(struct client *c)
{
    cmd_pop_generic(c, 0);
}

static void cmd_rpop(struct client *c)
{
    cmd_pop_generic(c, 1);
}

/* Pops from l, the non-empty list at key (entry e), replying with the key as
 * Redis's BLPOP ([key, element]) or LMPOP ([key, [elements]]) does. */
static size_t pop_with_key(struct client *c, const struct resp_slice *key, struct ks_entry *e,
                           const struct list_how *how)
{
    struct olist *l = ks_ptr(e);
    size_t n = 1;
    if (how->count >= 0)
        n = (unsigned long long)how->count < ol_len(l) ? (size_t)how->count : ol_len(l);
    resp_add_array_len(&c->out, 2);
    resp_add_bulk(&c->out, key->ptr, key->len);
    if (how->count >= 0)
        resp_add_array_len(&c->out, n);
    pop_elems(c, &l, how->from_tail, n);
    ks_set_ptr(e, l);
    server.dirty += n;
    list_removed(c, key, e, l, how->from_tail ? "rpop" : "lpop");
    return n;
}

/* Moves the element at src's end to dst's and replies it, as Redis's
 * lmoveGenericCommand once its checks passed: se holds a non-empty list, de
 * is dst's entry (a list, or the same entry as se) or NULL when absent. */
static void move_elem(struct client *c, const struct resp_slice *src, struct ks_entry *se,
                      const struct resp_slice *dst, struct ks_entry *de, int from_tail,
                      int to_tail)
{
    struct olist *sl = ks_ptr(se), *dl;
    struct ol_limits lim;
    struct ol_it it;
    const char *v;
    size_t vlen, pos = from_tail ? ol_len(sl) - 1 : 0;

    list_limits(&lim);
    ol_seek(sl, pos, &it);
    ol_it_get(&it, &v, &vlen);
    /* The element lives in the chunk the pop may free. */
    char *copy = xmemdup(v, vlen);
    ol_del_range(&sl, pos, pos + 1, &lim);
    ks_set_ptr(se, sl);
    if (de) {
        dl = ks_ptr(de); /* sl itself when src is dst */
        ol_push(&dl, to_tail, copy, vlen, &lim);
        ks_set_ptr(de, dl);
    } else {
        dl = ol_new();
        ol_push(&dl, to_tail, copy, vlen, &lim);
        list_add_key(c, dst, dl);
    }
    notify_key(c, NOTIFY_LIST, to_tail ? "rpush" : "lpush", dst);
    watch_touch(c->db, dst->ptr, dst->len);
    resp_add_bulk(&c->out, copy, vlen);
    xfree(copy);
    server.dirty++;
    list_removed(c, src, se, ks_ptr(se), from_tail ? "rpop" : "lpop");
}

/* LMOVE src dst from to, or RPOPLPUSH src dst, for the log: the effects of
 * a running BLMOVE or BRPOPLPUSH, with its own LEFT/RIGHT words as the
 * client wrote them, or a served wait's move as it is, with the words
 * Redis 7.0 writes there ("left", "right"). */
static void propagate_move(struct client *c, int in_command, const struct resp_slice *src,
                           const struct resp_slice *dst, const struct list_how *how)
{
    struct resp_slice argv[5] = {{"LMOVE", 5}, *src, *dst};
    int argc = 5;
    if (how->rpoplpush) {
        argv[0] = (struct resp_slice){"RPOPLPUSH", 9};
        argc = 3;
    } else if (in_command) {
        argv[3] = c->argv[3];
        argv[4] = c->argv[4];
    } else {
        argv[3] = how->from_tail ? (struct resp_slice){"right", 5} : (struct resp_slice){"left", 4};
        argv[4] = how->to_tail ? (struct resp_slice){"right", 5} : (struct resp_slice){"left", 4};
    }
    if (in_command)
        propagate_effects(c->db_index, argc, argv);
    else
        propagate_argv(c->db_index, argc, argv);
}

/* The pop it amounted to, as Redis 7.0 sends it (propagate_pop_as). */
static void propagate_pop(struct client *c, int in_command, const struct resp_slice *key,
                          const struct list_how *how, size_t n)
{
    propagate_pop_as(c, in_command, how->from_tail ? "RPOP" : "LPOP", key, how->count >= 0,
                     n);
}

/* block_serve_fn: serves a client waiting in BLPOP, BRPOP, BLMPOP, BLMOVE
 * or BRPOPLPUSH once key has elements. */
static int list_serve(struct client *c, const struct resp_slice *key, const void *how_bytes)
{
    const struct list_how *how = how_bytes;
    struct ks_entry *e = lookup_write(c, key);

    if (!e || e->type != KS_LIST)
        return 0;
    if (!how->move) {
        propagate_pop(c, 0, key, how, pop_with_key(c, key, e, how));
        return 1;
    }
    struct resp_slice dst = {how->dst, how->dst_len};
    struct ks_entry *de = lookup_write(c, &dst);
    if (de && de->type != KS_LIST) {
        resp_add_error(&c->out, ERR_WRONGTYPE);
        return 1;
    }
    move_elem(c, key, e, &dst, de, how->from_tail, how->to_tail);
    propagate_move(c, 0, key, &dst, how);
    return 1;
}

/* Redis's blockingPopGenericCommand and mpopGenericCommand: pops from the
 * first of keys that holds a list (WRONGTYPE for a key of another type
 * before it). With none, a nil array; or, when block and outside MULTI,
 * the client waits. */
static void pop_first_or_block(struct client *c, const struct resp_slice *keys, int nkeys,
                               const struct list_how *how, int block, int64_t timeout_ms)
{
    for (int i = 0; i < nkeys; i++) {
        struct ks_entry *e;
        struct olist *l;
        if (list_lookup_or_reply(c, &keys[i], 1, &e, &l) < 0)
            return;
        if (l) {
            propagate_pop(c, 1, &keys[i], how, pop_with_key(c, &keys[i], e, how));
            return;
        }
    }
    if (!block || c->multi) {
        resp_add_null_array(&c->out);
        return;
    }
    block_client(c, keys, nkeys, timeout_ms, list_serve, how, sizeof(*how));
}

static void bpop_generic(struct client *c, int from_tail)
{
    int64_t ms;
    if (arg_timeout_or_reply(c, &c->argv[c->argc - 1], &ms) < 0)
        return;
    struct list_how how = {.from_tail = from_tail, .count = -1};
    pop_first_or_block(c, &c->argv[1], c->argc - 2, &how, 1, ms);
}

static void cmd_blpop(struct client *c)
{
    bpop_generic(c, 0);
}

static void cmd_brpop(struct client *c)
{
    bpop_generic(c, 1);
}

/* LEFT or RIGHT: 0 with *tail set, or -1 after a syntax error. */
static int end_or_reply(struct client *c, const struct resp_slice *a, int *tail)
{
    if (arg_is(a, "LEFT")) {
        *tail = 0;
    } else if (arg_is(a, "RIGHT")) {
        *tail = 1;
    } else {
        resp_add_error(&c->out, ERR_SYNTAX);
        return -1;
    }
    return 0;
}

/* Redis's lmpopGenericCommand: numkeys at argv[numkeys_idx], the keys, LEFT
 * or RIGHT, then [COUNT count]; BLMPOP's timeout (argv[1]) is read after
 * them, as Redis reads it. */
static void lmpop_generic(struct client *c, int numkeys_idx, int block)
{
    struct mpop_args a;
    int64_t ms = 0;

    if (arg_mpop_or_reply(c, numkeys_idx, "LEFT", "RIGHT", &a) < 0 ||
        (block && arg_timeout_or_reply(c, &c->argv[1], &ms) < 0))
        return;
    struct list_how how = {.from_tail = a.which, .count = a.count};
    pop_first_or_block(c, a.keys, a.nkeys, &how, block, ms);
}

static void cmd_lmpop(struct client *c)
{
    lmpop_generic(c, 1, 0);
}

static void cmd_blmpop(struct client *c)
{
    lmpop_generic(c, 2, 1);
}

/* LMOVE and its kin once the ends and the timeout are read: Redis's
 * lmoveGenericCommand (a nil for an absent source, WRONGTYPE for either
 * key) and blmoveGenericCommand (an absent source blocks, outside MULTI). */
static void move_generic(struct client *c, struct list_how *how, int block, int64_t timeout_ms)
{
    const struct resp_slice *src = &c->argv[1], *dst = &c->argv[2];
    struct ks_entry *se, *de;
    struct olist *l;

    if (list_lookup_or_reply(c, src, 1, &se, &l) < 0)
        return;
    if (!l) {
        if (block && !c->multi) {
            /* The wait's copy carries the destination's bytes. */
            size_t size = sizeof(*how) + dst->len;
            struct list_how *w = xmalloc(size);
            *w = *how;
            w->move = 1;
            w->dst_len = dst->len;
            memcpy(w->dst, dst->ptr, dst->len);
            block_client(c, src, 1, timeout_ms, list_serve, w, size);
            xfree(w);
        } else if (block) {
            resp_add_null_array(&c->out);
        } else {
            resp_add_null(&c->out);
        }
        return;
    }
    de = lookup_write(c, dst);
    if (de && de->type != KS_LIST) {
        resp_add_error(&c->out, ERR_WRONGTYPE);
        return;
    }
    move_elem(c, src, se, dst, de, how->from_tail, how->to_tail);
    if (block)
        propagate_move(c, 1, src, dst, how);
}

static void cmd_lmove(struct client *c)
{
    struct list_how how = {0};
    if (end_or_reply(c, &c->argv[3], &how.from_tail) < 0 ||
        end_or_reply(c, &c->argv[4], &how.to_tail) < 0)
        return;
    move_generic(c, &how, 0, 0);
}

static void cmd_rpoplpush(struct client *c)
{
    struct list_how how = {.from_tail = 1, .to_tail = 0};
    move_generic(c, &how, 0, 0);
}

static void cmd_blmove(struct client *c)
{
    struct list_how how = {0};
    int64_t ms;
    if (end_or_reply(c, &c->argv[3], &how.from_tail) < 0 ||
        end_or_reply(c, &c->argv[4], &how.to_tail) < 0 ||
        arg_timeout_or_reply(c, &c->argv[5], &ms) < 0)
        return;
    move_generic(c, &how, 1, ms);
}

static void cmd_brpoplpush(struct client *c)
{
    struct list_how how = {.from_tail = 1, .to_tail = 0, .rpoplpush = 1};
    int64_t ms;
    if (arg_timeout_or_reply(c, &c->argv[3], &ms) < 0)
        return;
    move_generic(c, &how, 1, ms);
}

/* ---- the table ---------------------------------------------------------- */

#define LIST_COMMAND(nm, fn, ar, fl, fk, lk)                                                   \
    {.name = (nm), .proc = (fn), .arity = (ar), .flags = (fl), .first_key = (fk),              \
     .last_key = (lk), .key_step = (fk) != 0, .group = "list"}

const struct command list_commands[] = {
    LIST_COMMAND("lpush", cmd_lpush, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1),
    LIST_COMMAND("rpush", cmd_rpush, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1),
    LIST_COMMAND("lpushx", cmd_lpushx, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1),
    LIST_COMMAND("rpushx", cmd_rpushx, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1),
    LIST_COMMAND("linsert", cmd_linsert, 5, CMD_WRITE | CMD_DENYOOM, 1, 1),
    LIST_COMMAND("lset", cmd_lset, 4, CMD_WRITE | CMD_DENYOOM, 1, 1),
    LIST_COMMAND("llen", cmd_llen, 2, CMD_READONLY | CMD_FAST, 1, 1),
    LIST_COMMAND("lindex", cmd_lindex, 3, CMD_READONLY, 1, 1),
    LIST_COMMAND("lrange", cmd_lrange, 4, CMD_READONLY, 1, 1),
    LIST_COMMAND("lpos", cmd_lpos, -3, CMD_READONLY, 1, 1),
    LIST_COMMAND("lrem", cmd_lrem, 4, CMD_WRITE, 1, 1),
    LIST_COMMAND("ltrim", cmd_ltrim, 4, CMD_WRITE, 1, 1),
    LIST_COMMAND("lpop", cmd_lpop, -2, CMD_WRITE | CMD_FAST, 1, 1),
    LIST_COMMAND("rpop", cmd_rpop, -2, CMD_WRITE | CMD_FAST, 1, 1),
    LIST_COMMAND("lmpop", cmd_lmpop, -4, CMD_WRITE | CMD_MOVABLE_KEYS, 0, 0),
    LIST_COMMAND("lmove", cmd_lmove, 5, CMD_WRITE | CMD_DENYOOM, 1, 2),
    LIST_COMMAND("rpoplpush", cmd_rpoplpush, 3, CMD_WRITE | CMD_DENYOOM, 1, 2),
    {.name = "blpop", .proc = cmd_blpop, .arity = -3,
     .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING | CMD_TOUCHES_OWN_KEYS,
     .first_key = 1, .last_key = -2, .key_step = 1, .group = "list"},
    {.name = "brpop", .proc = cmd_brpop, .arity = -3,
     .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING | CMD_TOUCHES_OWN_KEYS,
     .first_key = 1, .last_key = -2, .key_step = 1, .group = "list"},
    LIST_COMMAND("blmpop", cmd_blmpop, -5,
                 CMD_WRITE | CMD_MOVABLE_KEYS | CMD_BLOCKING | CMD_TOUCHES_OWN_KEYS, 0, 0),
    LIST_COMMAND("blmove", cmd_blmove, 6,
                 CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT | CMD_BLOCKING | CMD_TOUCHES_OWN_KEYS, 1,
                 2),
    LIST_COMMAND("brpoplpush", cmd_brpoplpush, 4,
                 CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT | CMD_BLOCKING | CMD_TOUCHES_OWN_KEYS, 1,
                 2),
    {0},
};
