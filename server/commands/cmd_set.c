/*
 * cmd_set.c - the set commands: SADD, SREM, SISMEMBER, SMISMEMBER, SCARD,
 * SMEMBERS, SRANDMEMBER, SPOP, SMOVE, the algebra (SINTER, SINTERCARD,
 * SUNION, SDIFF and the STORE forms) and SSCAN.
 *
 * Owns: set_commands[]. A set is an ordered map without values (omap.h),
 * which the keyspace owns once a key holds it; coll.h gives the lookups,
 * the STORE step and SSCAN. Knows nothing of sockets: handlers read
 * argument slices and write replies into c->out.
 *
 * Rules kept from Redis 7.0 (t_set.c): every argument is parsed, and every
 * error replied, before the first change; a key is created only when a
 * member goes into it, and deleted with its last member; the reply types
 * (RESP3 sets for SMEMBERS, the algebra and SPOP with a count; arrays for
 * SRANDMEMBER with a count and SMISMEMBER), the order of the checks and the
 * error texts are Redis's; every input key of the algebra is type-checked,
 * a missing one being an empty set. Members are kept in byte order, so
 * SMEMBERS, the algebra and SPOP with a count reply in that order (Redis's
 * order is arbitrary, so any order is Redis's).
 *
 * Random picks: SPOP and SRANDMEMBER draw ranks uniformly (arc4random) and
 * reach them through the map's counts (om_seek). SPOP goes to the log and
 * the replicas as what it did (propagate_effects), as Redis 7.0 sends it:
 * SREM key member, one a member (in MULTI/EXEC), or DEL key when the
 * whole set went.
 *
 * The algebra walks the inputs in order:
 *  - SUNION merges all inputs: O(N * K) for N members in K inputs;
 *  - SINTER walks the smallest input and keeps each member every other input
 *    holds; SDIFF walks the first and keeps what no other holds. Each other
 *    input is asked in one of two ways, chosen per input. By default it is
 *    walked in step with the candidates (om_next until it reaches the
 *    candidate: O(its length) for the whole command). When it is
 *    tree-encoded and at least LOOKUP_RATIO times longer than the walked
 *    set, it is probed with om_find instead: O(log(n / B) + B) per candidate
 *    for chunks of B members, where scanning into a chunk costs about B / 2
 *    members, so probing pays once the input holds more than ~B / 2 members
 *    per candidate. A packed input is never probed: finding in it is a scan
 *    of all of it.
 * Results come out in order, so a STORE builds its set by appending (the
 * map splits a fresh chunk off its end), and a reply streams the members
 * under a deferred length without building anything.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "cursor.h"
#include "cmd_set.h"
#include "coll.h"
#include "keyspace.h"
#include "mem.h"
#include "notify.h"
#include "omap.h"
#include "propagate.h"
#include "resp_num.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "sample.h"
#include "server.h"
#include "watch.h"

#define ERR_NOT_POSITIVE "ERR value is out of range, must be positive"
#define ERR_NUMKEYS "ERR numkeys should be greater than 0"
#define ERR_NUMKEYS_ARGS "ERR Number of keys can't be greater than number of args"
#define ERR_LIMIT_NEGATIVE "ERR LIMIT can't be negative"

/* See the top comment: an input this many times longer than the walked set
 * is probed, not walked (about half of OM_CHUNK_ENTRIES). */
#define LOOKUP_RATIO (OM_CHUNK_ENTRIES / 2)

/* omap's order: bytes, then the shorter first. */
static int elem_cmp(const struct om_elem *a, const struct om_elem *b)
{
    size_t n = a->flen < b->flen ? a->flen : b->flen;
    int r = n ? memcmp(a->f, b->f, n) : 0;
    return r ? r : (a->flen > b->flen) - (a->flen < b->flen);
}

static int set_lookup_or_reply(struct client *c, const struct resp_slice *key, int write,
                               struct ks_entry **e, struct omap **m)
{
    return coll_lookup_or_reply(c, key, KS_SET, write, e, m);
}

/* The whole set, in order, as a RESP3 set (an array in RESP2). */
static void reply_members(struct client *c, const struct omap *m)
{
    struct om_it it;
    struct om_elem e;
    size_t n = m ? om_len(m) : 0;

    resp_add_set_len(&c->out, n);
    if (!n)
        return;
    /* A reply over the client's hard limit gets the client closed: walking
     * on would only hold the loop. */
    for (om_seek(m, 0, &it); om_it_valid(&it) && !c->out.failed; om_next(m, &it)) {
        om_it_get(m, &it, &e);
        resp_add_bulk(&c->out, e.f, e.flen);
    }
}

/* ---- SADD, SREM, SMOVE -------------------------------------------------- */

static void cmd_sadd(struct client *c)
{
    struct ks_entry *e;
    struct omap *m;
    struct om_limits lim;
    long long added = 0;

    if (set_lookup_or_reply(c, &c->argv[1], 1, &e, &m) < 0)
        return;
    coll_limits(KS_SET, &lim);
    /* The arity promises a member, so a set made here is never left empty. */
    int created = m == NULL;
    if (created)
        m = om_new(0);
    for (int j = 2; j < c->argc; j++)
        added += om_add(&m, c->argv[j].ptr, c->argv[j].len, NULL, 0, &lim);
    if (created)
        coll_add_key(c, &c->argv[1], KS_SET, m);
    else
        ks_set_ptr(e, m); /* a packed set moves as it grows */
    if (added)
        notify_key(c, NOTIFY_SET, "sadd", &c->argv[1]);
    server.dirty += (unsigned long long)added;
    resp_add_int(&c->out, added);
}

static void cmd_srem(struct client *c)
{
    struct ks_entry *e;
    struct omap *m;
    struct om_limits lim;
    long long deleted = 0;

    if (set_lookup_or_reply(c, &c->argv[1], 1, &e, &m) < 0)
        return;
    coll_limits(KS_SET, &lim);
    for (int j = 2; m && j < c->argc && om_len(m); j++)
        deleted += om_del(&m, c->argv[j].ptr, c->argv[j].len, &lim);
    if (deleted) {
        ks_set_ptr(e, m);
        coll_removed(c, &c->argv[1], e, m, NOTIFY_SET, "srem");
    }
    server.dirty += (unsigned long long)deleted;
    resp_add_int(&c->out, deleted);
}

/* Redis's smoveCommand: a missing source is 0 before any type check; then
 * WRONGTYPE for either key; a move onto itself only asks. */
static void cmd_smove(struct client *c)
{
    const struct resp_slice *src_key = &c->argv[1], *dst_key = &c->argv[2], *mem = &c->argv[3];
    struct ks_entry *se = lookup_write(c, src_key), *de = lookup_write(c, dst_key);
    struct om_limits lim;
    struct om_it it;

    if (!se) {
        resp_add_int(&c->out, 0);
        return;
    }
    if (se->type != KS_SET || (de && de->type != KS_SET)) {
        resp_add_error(&c->out, ERR_WRONGTYPE);
        return;
    }
    struct omap *src = ks_ptr(se), *dst = de ? ks_ptr(de) : NULL;
    if (se == de) {
        resp_add_int(&c->out, om_find(src, mem->ptr, mem->len, &it));
        return;
    }
    coll_limits(KS_SET, &lim);
    if (!om_del(&src, mem->ptr, mem->len, &lim)) {
        resp_add_int(&c->out, 0);
        return;
    }
    ks_set_ptr(se, src);
    coll_removed(c, src_key, se, src, NOTIFY_SET, "srem");
    watch_touch(c->db, src_key->ptr, src_key->len);
    server.dirty++;
    int created = dst == NULL;
    if (created)
        dst = om_new(0);
    int added = om_add(&dst, mem->ptr, mem->len, NULL, 0, &lim);
    if (created)
        coll_add_key(c, dst_key, KS_SET, dst);
    else
        ks_set_ptr(de, dst);
    /* The destination changed only when it gained the member: a WATCH of
     * it holds otherwise, as Redis signals it. */
    if (added) {
        server.dirty++;
        watch_touch(c->db, dst_key->ptr, dst_key->len);
        notify_key(c, NOTIFY_SET, "sadd", dst_key);
    }
    resp_add_int(&c->out, 1);
}

/* ---- reading: SISMEMBER, SMISMEMBER, SCARD, SMEMBERS -------------------- */

static void cmd_sismember(struct client *c)
{
    struct ks_entry *e;
    struct omap *m;
    struct om_it it;

    if (set_lookup_or_reply(c, &c->argv[1], 0, &e, &m) < 0)
        return;
    resp_add_int(&c->out, m ? om_find(m, c->argv[2].ptr, c->argv[2].len, &it) : 0);
}

static void cmd_smismember(struct client *c)
{
    struct ks_entry *e;
    struct omap *m;
    struct om_it it;

    if (set_lookup_or_reply(c, &c->argv[1], 0, &e, &m) < 0)
        return;
    resp_add_array_len(&c->out, (size_t)c->argc - 2);
    for (int j = 2; j < c->argc; j++)
        resp_add_int(&c->out, m ? om_find(m, c->argv[j].ptr, c->argv[j].len, &it) : 0);
}

static void cmd_scard(struct client *c)
{
    struct ks_entry *e;
    struct omap *m;

    if (set_lookup_or_reply(c, &c->argv[1], 0, &e, &m) < 0)
        return;
    resp_add_int(&c->out, m ? (long long)om_len(m) : 0);
}

static void cmd_smembers(struct client *c)
{
    struct ks_entry *e;
    struct omap *m;

    if (set_lookup_or_reply(c, &c->argv[1], 0, &e, &m) < 0)
        return;
    reply_members(c, m);
}

/* ---- random picks: SRANDMEMBER, SPOP ------------------------------------ */

/* A uniform rank below n; a map's counts are 32-bit, so n fits. */
static size_t random_rank(size_t n)
{
    return arc4random_uniform((uint32_t)n);
}

static int rank_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static void add_member_at(struct client *c, const struct omap *m, size_t rank)
{
    struct om_it it;
    struct om_elem e;

    om_seek(m, rank, &it);
    om_it_get(m, &it, &e);
    resp_add_bulk(&c->out, e.f, e.flen);
}

/* Redis's srandmemberWithCountCommand: a negative count may repeat members;
 * a count at or over the size lists the set; else distinct members in a
 * random order. Always an array, in RESP3 too. */
static void srandmember_count(struct client *c)
{
    struct ks_entry *e;
    struct omap *m;
    long long l;

    if (arg_rand_count_or_reply(c, &c->argv[2], &l) < 0)
        return;
    if (set_lookup_or_reply(c, &c->argv[1], 0, &e, &m) < 0)
        return;
    if (!m || l == 0) {
        resp_add_array_len(&c->out, 0);
        return;
    }
    size_t size = om_len(m);
    if (l < 0) {
        unsigned long long count = (unsigned long long)-l;
        resp_add_array_len(&c->out, (size_t)count);
        for (unsigned long long i = 0; i < count && !c->out.failed; i++)
            add_member_at(c, m, random_rank(size));
        return;
    }
    if ((unsigned long long)l >= size) {
        struct om_it it;
        struct om_elem el;
        resp_add_array_len(&c->out, size);
        for (om_seek(m, 0, &it); om_it_valid(&it) && !c->out.failed; om_next(m, &it)) {
            om_it_get(m, &it, &el);
            resp_add_bulk(&c->out, el.f, el.flen);
        }
        return;
    }
    size_t count = (size_t)l, *ranks = xmalloc(count * sizeof(*ranks));
    sample_distinct(size, count, ranks);
    resp_add_array_len(&c->out, count);
    for (size_t i = 0; i < count && !c->out.failed; i++)
        add_member_at(c, m, ranks[i]);
    xfree(ranks);
}

static void cmd_srandmember(struct client *c)
{
    struct ks_entry *e;
    struct omap *m;

    if (c->argc > 3) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    if (c->argc == 3) {
        srandmember_count(c);
        return;
    }
    if (set_lookup_or_reply(c, &c->argv[1], 0, &e, &m) < 0)
        return;
    if (!m) {
        resp_add_null(&c->out);
        return;
    }
    add_member_at(c, m, random_rank(om_len(m)));
}

/* Sends SREM key member to the log and the replicas for each of
 * members[0..n), as Redis 7.0 does: one command a member, which the unit
 * wraps in MULTI/EXEC when they are more than one (propagate.h). */
static void propagate_srem(struct client *c, const struct resp_slice *key,
                           const struct resp_slice *members, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct resp_slice argv[3] = {{"SREM", 4}, *key, members[i]};
        propagate_effects(c->db_index, 3, argv);
    }
}

/* SPOP key: one member, a bulk (nil for a missing key). */
static void spop_one(struct client *c)
{
    const struct resp_slice *key = &c->argv[1];
    struct ks_entry *e;
    struct omap *m;
    struct om_limits lim;
    struct om_it it;
    struct om_elem el;

    if (set_lookup_or_reply(c, key, 1, &e, &m) < 0)
        return;
    if (!m) {
        resp_add_null(&c->out);
        return;
    }
    size_t rank = random_rank(om_len(m));
    om_seek(m, rank, &it);
    om_it_get(m, &it, &el);
    resp_add_bulk(&c->out, el.f, el.flen);
    /* The member's bytes live in the map: a copy outlives its removal. */
    struct resp_slice member = {xmalloc(el.flen + 1), el.flen};
    memcpy((char *)member.ptr, el.f, el.flen);
    coll_limits(KS_SET, &lim);
    om_del_span(&m, rank, rank + 1, &lim);
    ks_set_ptr(e, m);
    propagate_srem(c, key, &member, 1);
    xfree((char *)member.ptr);
    coll_removed(c, key, e, m, NOTIFY_SET, "spop");
    server.dirty++;
}

/* The ranks SPOP count takes from a set of size (count < size), ascending,
 * in a new array: count drawn, or size - count drawn to keep when that is
 * fewer draws. */
static size_t *pop_ranks(size_t size, size_t count)
{
    size_t *pop = xmalloc(count * sizeof(*pop));
    if (count <= size / 2) {
        sample_distinct(size, count, pop);
        qsort(pop, count, sizeof(*pop), rank_cmp);
        return pop;
    }
    size_t keep_n = size - count, *keep = xmalloc((keep_n ? keep_n : 1) * sizeof(*keep));
    sample_distinct(size, keep_n, keep);
    qsort(keep, keep_n, sizeof(*keep), rank_cmp);
    for (size_t r = 0, k = 0, n = 0; r < size; r++) {
        if (k < keep_n && keep[k] == r)
            k++;
        else
            pop[n++] = r;
    }
    xfree(keep);
    return pop;
}

/* Redis's spopWithCountCommand: a set (RESP3) of the members popped. */
static void spop_count(struct client *c)
{
    const struct resp_slice *key = &c->argv[1];
    struct ks_entry *e;
    struct omap *m;
    struct om_limits lim;
    struct om_it it;
    struct om_elem el;
    long long l;

    /* Redis's one message for a count that is negative or no integer. */
    if (resp_parse_ll(c->argv[2].ptr, c->argv[2].len, &l) < 0 || l < 0) {
        resp_add_error(&c->out, ERR_NOT_POSITIVE);
        return;
    }
    if (set_lookup_or_reply(c, key, 1, &e, &m) < 0)
        return;
    if (!m || l == 0) {
        resp_add_set_len(&c->out, 0);
        return;
    }
    size_t size = om_len(m);
    notify_key(c, NOTIFY_SET, "spop", key);
    if ((unsigned long long)l >= size) {
        reply_members(c, m);
        struct resp_slice argv[2] = {{"DEL", 3}, *key};
        propagate_effects(c->db_index, 2, argv);
        ks_delete(c->db, e);
        notify_key(c, NOTIFY_GENERIC, "del", key);
        server.dirty += size;
        return;
    }
    size_t count = (size_t)l, *pop = pop_ranks(size, count);
    struct resp_slice *members = xmalloc(count * sizeof(*members));

    /* Copy the members first (their removal moves the bytes), then remove
     * them from the highest rank down, a run of neighbours at a time, so the
     * lower ranks stay where they were drawn. */
    resp_add_set_len(&c->out, count);
    for (size_t i = 0; i < count; i++) {
        if (i == 0 || pop[i] - pop[i - 1] > OM_CHUNK_ENTRIES) {
            om_seek(m, pop[i], &it);
        } else {
            for (size_t s = pop[i - 1]; s < pop[i]; s++)
                om_next(m, &it);
        }
        om_it_get(m, &it, &el);
        resp_add_bulk(&c->out, el.f, el.flen);
        char *copy = xmalloc(el.flen + 1);
        memcpy(copy, el.f, el.flen);
        members[i] = (struct resp_slice){copy, el.flen};
    }
    coll_limits(KS_SET, &lim);
    for (size_t i = count; i > 0;) {
        size_t hi = pop[--i] + 1, lo = hi - 1;
        while (i > 0 && pop[i - 1] == lo - 1) {
            lo--;
            i--;
        }
        om_del_span(&m, lo, hi, &lim);
    }
    ks_set_ptr(e, m);
    propagate_srem(c, key, members, count);
    for (size_t i = 0; i < count; i++)
        xfree((char *)members[i].ptr);
    xfree(members);
    xfree(pop);
    server.dirty += count;
}

static void cmd_spop(struct client *c)
{
    if (c->argc > 3)
        resp_add_error(&c->out, ERR_SYNTAX);
    else if (c->argc == 3)
        spop_count(c);
    else
        spop_one(c);
}

/* ---- set algebra -------------------------------------------------------- */

enum setop { SET_UNION, SET_INTER, SET_DIFF };

/* One input of an operation. */
struct input {
    const struct omap *m; /* NULL for a missing key: an empty set */
    struct om_it it;      /* a walked input: the first member not passed yet */
    int probe;            /* asked through om_find instead of walked */
};

/* Where the result goes: a new set (the STORE commands), the reply, or
 * only a count (SINTERCARD). */
struct sink {
    struct client *c;
    struct omap *res;            /* STORE: the set being built, else NULL */
    const struct om_limits *lim; /* res's */
    int count_only;
    size_t n;                    /* members given so far */
    size_t limit;                /* SINTERCARD's LIMIT; 0: none */
};

static void emit(struct sink *s, const struct om_elem *e)
{
    if (s->res) /* a merge's output comes in order */
        om_append(&s->res, e->f, e->flen, NULL, 0, s->lim);
    else if (!s->count_only)
        resp_add_bulk(&s->c->out, e->f, e->flen);
    s->n++;
}

/* Whether the walk can stop: LIMIT reached, or the reply broke. */
static int sink_done(const struct sink *s)
{
    return (s->limit && s->n >= s->limit) || (!s->res && !s->count_only && s->c->out.failed);
}

/* Readies in to be asked about the members of a walked set of walked
 * members (0: in is itself walked): probed or walked, by the rule above. */
static void input_start(struct input *in, size_t walked)
{
    in->it.c = NULL;
    in->probe = 0;
    if (!in->m)
        return;
    in->probe = walked && !in->m->packed && om_len(in->m) / LOOKUP_RATIO >= walked;
    if (!in->probe)
        om_seek(in->m, 0, &in->it);
}

/* Whether in holds f. Asked about increasing members only: a walked input
 * steps to its first member not below f and stays there. */
static int input_has(struct input *in, const struct om_elem *f)
{
    struct om_elem e;

    if (!in->m)
        return 0;
    if (in->probe) {
        struct om_it it;
        return om_find(in->m, f->f, f->flen, &it);
    }
    while (om_it_valid(&in->it)) {
        om_it_get(in->m, &in->it, &e);
        int r = elem_cmp(&e, f);
        if (r >= 0)
            return r == 0;
        om_next(in->m, &in->it);
    }
    return 0;
}

static int input_len_cmp(const void *a, const void *b)
{
    const struct input *x = a, *y = b;
    size_t lx = x->m ? om_len(x->m) : 0, ly = y->m ? om_len(y->m) : 0;
    return (lx > ly) - (lx < ly);
}

/* The members of in[0] that every other input holds; none is missing. */
static void walk_inter(struct input *in, size_t n, struct sink *s)
{
    struct om_it it;
    struct om_elem e;

    /* Smallest first: it bounds the candidates. */
    qsort(in, n, sizeof(*in), input_len_cmp);
    for (size_t j = 1; j < n; j++)
        input_start(&in[j], om_len(in[0].m));
    for (om_seek(in[0].m, 0, &it); om_it_valid(&it) && !sink_done(s); om_next(in[0].m, &it)) {
        om_it_get(in[0].m, &it, &e);
        size_t j = 1;
        while (j < n && input_has(&in[j], &e))
            j++;
        if (j == n)
            emit(s, &e);
    }
}

/* The members of in[0] that no other input holds. */
static void walk_diff(struct input *in, size_t n, struct sink *s)
{
    struct om_it it;
    struct om_elem e;

    if (!in[0].m)
        return;
    for (size_t j = 1; j < n; j++) {
        /* A set minus itself: nothing, found without a walk. */
        if (in[j].m == in[0].m)
            return;
        input_start(&in[j], om_len(in[0].m));
    }
    for (om_seek(in[0].m, 0, &it); om_it_valid(&it) && !sink_done(s); om_next(in[0].m, &it)) {
        om_it_get(in[0].m, &it, &e);
        size_t j = 1;
        while (j < n && !input_has(&in[j], &e))
            j++;
        if (j == n)
            emit(s, &e);
    }
}

/* Every input's members, merged: the least of the inputs' next members,
 * then each input at it steps past it. */
static void walk_union(struct input *in, size_t n, struct sink *s)
{
    struct om_elem best, e;

    for (size_t j = 0; j < n; j++)
        input_start(&in[j], 0);
    while (!sink_done(s)) {
        int have = 0;
        for (size_t j = 0; j < n; j++) {
            if (!in[j].m || !om_it_valid(&in[j].it))
                continue;
            om_it_get(in[j].m, &in[j].it, &e);
            if (!have || elem_cmp(&e, &best) < 0)
                best = e;
            have = 1;
        }
        if (!have)
            return;
        emit(s, &best);
        for (size_t j = 0; j < n; j++) {
            if (!in[j].m || !om_it_valid(&in[j].it))
                continue;
            om_it_get(in[j].m, &in[j].it, &e);
            if (elem_cmp(&e, &best) == 0)
                om_next(in[j].m, &in[j].it);
        }
    }
}

/* Redis's sinterGenericCommand and sunionDiffGenericCommand: keys[0..nkeys)
 * are the inputs (each a set or missing, else WRONGTYPE before anything);
 * dst the STORE commands' destination (never type-checked: it is replaced),
 * or NULL to reply the members, or with card their count up to limit. */
static void setop_generic(struct client *c, const struct resp_slice *keys, int nkeys,
                          const struct resp_slice *dst, enum setop op, int card, size_t limit)
{
    struct input *in = xcalloc((size_t)nkeys, sizeof(*in));
    int missing = 0;

    for (int i = 0; i < nkeys; i++) {
        struct ks_entry *e;
        struct omap *m;
        if (set_lookup_or_reply(c, &keys[i], dst != NULL, &e, &m) < 0) {
            xfree(in);
            return;
        }
        in[i].m = m;
        missing += m == NULL;
    }
    struct om_limits lim;
    coll_limits(KS_SET, &lim);
    struct sink s = {c, dst ? om_new(0) : NULL, &lim, card, 0, limit};
    struct resp_deferred d;
    if (!dst && !card)
        resp_add_deferred(&c->out, &d);
    switch (op) {
    case SET_INTER:
        /* With an empty input the intersection is empty. */
        if (!missing)
            walk_inter(in, (size_t)nkeys, &s);
        break;
    case SET_UNION:
        walk_union(in, (size_t)nkeys, &s);
        break;
    case SET_DIFF:
        walk_diff(in, (size_t)nkeys, &s);
        break;
    }
    xfree(in);
    if (dst)
        coll_store(c, dst, KS_SET, s.res,
                   op == SET_INTER ? "sinterstore" : op == SET_UNION ? "sunionstore" : "sdiffstore");
    else if (card)
        resp_add_int(&c->out, (long long)s.n);
    else
        resp_set_deferred_set(&c->out, &d, s.n);
}

static void cmd_sinter(struct client *c)
{
    setop_generic(c, &c->argv[1], c->argc - 1, NULL, SET_INTER, 0, 0);
}

static void cmd_sunion(struct client *c)
{
    setop_generic(c, &c->argv[1], c->argc - 1, NULL, SET_UNION, 0, 0);
}

static void cmd_sdiff(struct client *c)
{
    setop_generic(c, &c->argv[1], c->argc - 1, NULL, SET_DIFF, 0, 0);
}

static void cmd_sinterstore(struct client *c)
{
    setop_generic(c, &c->argv[2], c->argc - 2, &c->argv[1], SET_INTER, 0, 0);
}

static void cmd_sunionstore(struct client *c)
{
    setop_generic(c, &c->argv[2], c->argc - 2, &c->argv[1], SET_UNION, 0, 0);
}

static void cmd_sdiffstore(struct client *c)
{
    setop_generic(c, &c->argv[2], c->argc - 2, &c->argv[1], SET_DIFF, 0, 0);
}

/* Redis's sinterCardCommand: one message for numkeys not an integer or
 * below 1, and one for LIMIT not an integer or negative. */
static void cmd_sintercard(struct client *c)
{
    long long numkeys, limit = 0;

    if (resp_parse_ll(c->argv[1].ptr, c->argv[1].len, &numkeys) < 0 || numkeys < 1) {
        resp_add_error(&c->out, ERR_NUMKEYS);
        return;
    }
    if (numkeys > c->argc - 2) {
        resp_add_error(&c->out, ERR_NUMKEYS_ARGS);
        return;
    }
    for (int j = 2 + (int)numkeys; j < c->argc; j++) {
        if (arg_is(&c->argv[j], "LIMIT") && j + 1 < c->argc) {
            j++;
            if (resp_parse_ll(c->argv[j].ptr, c->argv[j].len, &limit) < 0 || limit < 0) {
                resp_add_error(&c->out, ERR_LIMIT_NEGATIVE);
                return;
            }
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    setop_generic(c, &c->argv[2], (int)numkeys, NULL, SET_INTER, 1, (size_t)limit);
}

/* ---- SSCAN -------------------------------------------------------------- */

/* Redis's order: the cursor, then the key (a missing key is an empty scan
 * whatever the options), then the options (coll_scan). */
static void cmd_sscan(struct client *c)
{
    struct ks_entry *e;
    struct omap *m;
    uint64_t id;

    if (scan_cursor_arg_or_reply(c, &c->argv[2], &id) < 0 ||
        set_lookup_or_reply(c, &c->argv[1], 0, &e, &m) < 0)
        return;
    coll_scan(c, m);
}

/* ---- the table ---------------------------------------------------------- */

#define SET_COMMAND(name_, proc_, arity_, flags_, first, last)                                     \
    {.name = (name_), .proc = (proc_), .arity = (arity_), .flags = (flags_),                       \
     .first_key = (first), .last_key = (last), .key_step = (first) != 0, .group = "set"}

/* Arity, flags and key positions for COMMAND INFO, from Redis 7.0's table
 * (COMMAND DOCS answers Redis's own docs, redis_docs.c). SINTERCARD's keys move with numkeys: no fixed
 * positions (0 0 0), as Redis reports them. */
const struct command set_commands[] = {
    SET_COMMAND("sadd", cmd_sadd, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1),
    SET_COMMAND("srem", cmd_srem, -3, CMD_WRITE | CMD_FAST, 1, 1),
    SET_COMMAND("sismember", cmd_sismember, 3, CMD_READONLY | CMD_FAST, 1, 1),
    SET_COMMAND("smismember", cmd_smismember, -3, CMD_READONLY | CMD_FAST, 1, 1),
    SET_COMMAND("scard", cmd_scard, 2, CMD_READONLY | CMD_FAST, 1, 1),
    SET_COMMAND("smembers", cmd_smembers, 2, CMD_READONLY, 1, 1),
    SET_COMMAND("srandmember", cmd_srandmember, -2, CMD_READONLY, 1, 1),
    SET_COMMAND("spop", cmd_spop, -2, CMD_WRITE | CMD_FAST, 1, 1),
    SET_COMMAND("smove", cmd_smove, 4, CMD_WRITE | CMD_FAST | CMD_TOUCHES_OWN_KEYS, 1, 2),
    SET_COMMAND("sinter", cmd_sinter, -2, CMD_READONLY, 1, -1),
    SET_COMMAND("sintercard", cmd_sintercard, -3, CMD_READONLY | CMD_MOVABLE_KEYS, 0, 0),
    SET_COMMAND("sinterstore", cmd_sinterstore, -3,
                CMD_WRITE | CMD_DENYOOM | CMD_TOUCHES_OWN_KEYS, 1, -1),
    SET_COMMAND("sunion", cmd_sunion, -2, CMD_READONLY, 1, -1),
    SET_COMMAND("sunionstore", cmd_sunionstore, -3,
                CMD_WRITE | CMD_DENYOOM | CMD_TOUCHES_OWN_KEYS, 1, -1),
    SET_COMMAND("sdiff", cmd_sdiff, -2, CMD_READONLY, 1, -1),
    SET_COMMAND("sdiffstore", cmd_sdiffstore, -3, CMD_WRITE | CMD_DENYOOM | CMD_TOUCHES_OWN_KEYS,
                1, -1),
    SET_COMMAND("sscan", cmd_sscan, -3, CMD_READONLY, 1, 1),
    {0},
};
