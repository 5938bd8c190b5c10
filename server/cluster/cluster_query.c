/*
 * cluster_query.c - cluster-wide ordered queries: the scope rule, the
 * fan-out to every primary, and the merge (cluster_query.h).
 *
 * Owns: the running queries (a list), each with copies of its parts'
 * commands and replies. A query lives from cluster_query_takes until its
 * merged reply or error is written, its client's wait times out, or its
 * client closes; the links (cluster_qlink.c) know it only by the tags of
 * its requests, so a reply for a query that is gone is dropped.
 *
 * Each part is "KLOCAL" (which also answers how many slots the node
 * imports) and the command's local form, pipelined on the node's pooled
 * connection. Slot migration: keys are copied to the importing node before
 * the migrating one deletes them, so once every first-round part has
 * answered, the nodes that were importing are asked again; the merge
 * takes the union of every part's keys, equal keys once. Counts and ranks
 * take the second answer of the nodes asked twice.
 */
#include "cluster_query.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "blocking.h"
#include "client.h"
#include "cluster.h"
#include "cluster_ksplit.h"
#include "cluster_qlink.h"
#include "cluster_qpart.h"
#include "config.h"
#include "conn.h"
#include "keyslot.h"
#include "krange.h"
#include "longrun.h"
#include "mem.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "server.h"

#define MAX_CMDS 3 /* KLOCAL and at most two commands */

struct part {
    char ip[CLUSTER_IPLEN];
    int port;
    int round;    /* 1, or 2 for a node asked again */
    int ncmds;    /* KLOCAL included */
    int answered; /* replies kept */
    struct cq_kept replies[MAX_CMDS];
};

struct query {
    uint64_t id;
    struct client *c;
    struct cluster_query q;
    int proto;
    int nparts, cap;
    struct part *parts;
    int waiting; /* requests without a reply */
    int second_round;
    int sending; /* inside cluster_query_takes: no reply is written yet */
    /* the commands each part sends after KLOCAL, copied */
    int ncmds;
    int argc[MAX_CMDS - 1];
    struct resp_slice *argv[MAX_CMDS - 1];
    char *arg_bytes[MAX_CMDS - 1];
    char failed[256]; /* the first link failure, "" when none */
    struct query *next;
};

static struct query *queries;
static uint64_t next_id = 1;

/* ---- The scope rule ---- */

static int word_is(const struct resp_slice *a, const char *w)
{
    return a->len == strlen(w) && strncasecmp(a->ptr, w, a->len) == 0;
}

/* A lex bound's key ("[x" "(x"), or 0 for "-" "+" and anything else. */
static int bound_key(const struct resp_slice *b, struct resp_slice *key)
{
    if (b->len < 1 || (b->ptr[0] != '[' && b->ptr[0] != '('))
        return 0;
    *key = (struct resp_slice){b->ptr + 1, b->len - 1};
    return 1;
}

/* Bounds min and max confine a range to one tag when their common prefix
 * does: every key between them starts with that prefix. */
static int bounds_tagged(const struct resp_slice *a, const struct resp_slice *b,
                         struct resp_slice *tagged)
{
    struct resp_slice x, y;
    if (!bound_key(a, &x) || !bound_key(b, &y))
        return 0;
    size_t n = 0;
    while (n < x.len && n < y.len && x.ptr[n] == y.ptr[n])
        n++;
    if (!key_prefix_tagged(x.ptr, n))
        return 0;
    *tagged = (struct resp_slice){x.ptr, n};
    return 1;
}

/* "min max" or "PREFIX p" at argv[j]. */
static int span_tagged(int argc, const struct resp_slice *argv, int j, struct resp_slice *tagged)
{
    if (argc < j + 2)
        return 0;
    if (word_is(&argv[j], "PREFIX")) {
        if (!key_prefix_tagged(argv[j + 1].ptr, argv[j + 1].len))
            return 0;
        *tagged = argv[j + 1];
        return 1;
    }
    return bounds_tagged(&argv[j], &argv[j + 1], tagged);
}

static int has_word(int argc, const struct resp_slice *argv, int from, const char *w)
{
    for (int i = from; i < argc; i++)
        if (word_is(&argv[i], w))
            return 1;
    return 0;
}

enum cluster_query_scope cluster_query_scope(const struct client *c, int argc,
                                             const struct resp_slice *argv,
                                             struct resp_slice *tagged)
{
    static const char *const names[] = {"krange", "kprefix", "kcount", "krank",
                                        "krevrank", "kfirst", "klast", "knext",
                                        "kprev", "kdelrange", "ksplit"};
    if (!cluster || argc < 1)
        return CQ_SCOPE_NONE;
    const struct resp_slice *name = &argv[0];
    /* Every request in cluster mode comes through here (the route hook):
     * the names all begin with K, so one test sends GET, SET and the rest
     * on without eleven compares. */
    if (name->len == 0 || (name->ptr[0] | 0x20) != 'k')
        return CQ_SCOPE_NONE;
    size_t i = 0;
    while (i < sizeof(names) / sizeof(names[0]) && !word_is(name, names[i]))
        i++;
    if (i == sizeof(names) / sizeof(names[0]))
        return CQ_SCOPE_NONE;
    if (c->flags & CLIENT_LOCAL_QUERY)
        return CQ_SCOPE_LOCAL;
    int one = 0;
    switch (i) {
    case 0: /* KRANGE: by key order only with BYLEX */
        one = argc >= 3 && has_word(argc, argv, 3, "BYLEX") &&
              bounds_tagged(&argv[1], &argv[2], tagged);
        break;
    case 1:
        one = argc >= 2 && key_prefix_tagged(argv[1].ptr, argv[1].len);
        if (one)
            *tagged = argv[1];
        break;
    case 2:
    case 9: /* KCOUNT, KDELRANGE */
        one = span_tagged(argc, argv, 1, tagged);
        break;
    case 10: /* KSPLIT n [span] */
        one = span_tagged(argc, argv, 2, tagged);
        break;
    default:
        break;
    }
    return one ? CQ_SCOPE_SLOT : CQ_SCOPE_CLUSTER;
}

long long cluster_query_importing(void)
{
    long long n = 0;
    for (int s = 0; s < CLUSTER_SLOTS; s++)
        n += cluster->importing_from[s] != NULL;
    return n;
}

/* ---- Queries ---- */

static struct query *query_find(uint64_t id)
{
    struct query *q = queries;
    while (q && q->id != id)
        q = q->next;
    return q;
}

static void query_free(struct query *q)
{
    for (struct query **p = &queries; *p; p = &(*p)->next)
        if (*p == q) {
            *p = q->next;
            break;
        }
    for (int i = 0; i < q->nparts; i++)
        for (int j = 0; j < MAX_CMDS; j++)
            cq_kept_clear(&q->parts[i].replies[j]);
    for (int j = 0; j < q->ncmds; j++) {
        xfree(q->argv[j]);
        xfree(q->arg_bytes[j]);
    }
    xfree(q->parts);
    xfree(q);
}

static uint64_t tag_of(const struct query *q, int part, int cmd)
{
    return q->id << 20 | (uint64_t)part << 2 | (uint64_t)cmd;
}

static void part_send(struct query *q, int i)
{
    struct part *p = &q->parts[i];
    static const struct resp_slice klocal = {"KLOCAL", 6};
    p->ncmds = 1 + q->ncmds;
    q->waiting += p->ncmds;
    struct cluster_qlink_cmd cmds[MAX_CMDS] = {{1, &klocal, tag_of(q, i, 0)}};
    for (int j = 0; j < q->ncmds; j++)
        cmds[j + 1] = (struct cluster_qlink_cmd){q->argc[j], q->argv[j], tag_of(q, i, j + 1)};
    /* The part's index outlives a send that fails at once: parts is not
     * grown while sending. */
    cluster_qlink_send(p->ip, p->port, p->ncmds, cmds);
}

static struct part *part_add(struct query *q, const char *ip, int port, int round)
{
    if (q->nparts == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 8;
        q->parts = xrealloc(q->parts, (size_t)q->cap * sizeof(*q->parts));
    }
    struct part *p = &q->parts[q->nparts++];
    memset(p, 0, sizeof(*p));
    snprintf(p->ip, sizeof(p->ip), "%s", ip);
    p->port = port;
    p->round = round;
    return p;
}

/* ---- The merge ---- */

/* One listed key: its part's reply and its index there. */
struct pick {
    const struct cq_kept *from;
    size_t at;
};

/* The k-way merge of every part's listing (reply idx) in the query's
 * order, equal keys once, skipping skip of them and keeping at most max
 * (SIZE_MAX: all). Returns the picks (owned by the caller) and *n. */
static struct pick *merge(const struct query *q, int idx, size_t stride, size_t skip, size_t max,
                          size_t *n)
{
    int k = q->nparts;
    size_t *pos = xcalloc((size_t)k, sizeof(*pos));
    size_t cap = 16, got = 0;
    struct pick *out = xmalloc(cap * sizeof(*out));
    const struct resp_reply_elem *last = NULL;
    while (got < max) {
        int best = -1;
        for (int i = 0; i < k; i++) {
            const struct cq_kept *r = &q->parts[i].replies[idx];
            if (pos[i] >= r->n)
                continue;
            if (best < 0)
                best = i;
            else {
                int d = cq_key_cmp(&r->elems[pos[i]],
                                &q->parts[best].replies[idx].elems[pos[best]]);
                if (q->q.rev ? d > 0 : d < 0)
                    best = i;
            }
        }
        if (best < 0)
            break;
        const struct cq_kept *r = &q->parts[best].replies[idx];
        const struct resp_reply_elem *e = &r->elems[pos[best]];
        size_t at = pos[best];
        pos[best] += stride;
        if (last && cq_key_cmp(last, e) == 0)
            continue;
        last = e;
        if (skip) {
            skip--;
            continue;
        }
        if (got == cap) {
            cap *= 2;
            out = xrealloc(out, cap * sizeof(*out));
        }
        out[got++] = (struct pick){r, at};
    }
    xfree(pos);
    *n = got;
    return out;
}

static void reply_picks(struct client *c, const struct query *q, const struct pick *p, size_t n)
{
    int pairs = q->q.withvalues;
    resp_add_array_len(&c->out, pairs && c->out.proto == 2 ? 2 * n : n);
    for (size_t i = 0; i < n; i++) {
        const struct resp_reply_elem *e = &p[i].from->elems[p[i].at];
        if (pairs && c->out.proto == 3)
            resp_add_array_len(&c->out, 2);
        resp_add_bulk(&c->out, e->ptr, e->len);
        if (!pairs)
            continue;
        const struct resp_reply_elem *v = e + 1;
        if (v->ptr)
            resp_add_bulk(&c->out, v->ptr, v->len);
        else
            resp_add_null(&c->out);
    }
}

/* KRANGE start stop TYPE t: the keys of the window [lo, hi) of every
 * key's merged listing (window) that the typed listings (reply 2) hold,
 * which are the keys of that type there, in the window's order. */
static void reply_typed_window(struct client *c, const struct query *q,
                               const struct pick *window, size_t lo, size_t hi)
{
    if (lo >= hi) {
        resp_add_array_len(&c->out, 0);
        return;
    }
    const struct resp_reply_elem *first = &window[lo].from->elems[window[lo].at];
    const struct resp_reply_elem *last = &window[hi - 1].from->elems[window[hi - 1].at];
    size_t n;
    struct pick *typed = merge(q, 2, q->q.withvalues ? 2 : 1, 0, SIZE_MAX, &n);
    size_t from = 0;
    int sign = q->q.rev ? -1 : 1;
    while (from < n && sign * cq_key_cmp(&typed[from].from->elems[typed[from].at], first) < 0)
        from++;
    size_t to = from;
    while (to < n && sign * cq_key_cmp(&typed[to].from->elems[typed[to].at], last) <= 0)
        to++;
    reply_picks(c, q, typed + from, to - from);
    xfree(typed);
}

/* Whether part i's answer is the one counts use: the second of a node
 * asked twice, else the only one. */
static int counts_use(const struct query *q, int i)
{
    const struct part *p = &q->parts[i];
    if (p->round == 2)
        return 1;
    for (int j = i + 1; j < q->nparts; j++)
        if (q->parts[j].round == 2 && q->parts[j].port == p->port && !strcmp(q->parts[j].ip, p->ip))
            return 0;
    return 1;
}

static void reply_merged(struct client *c, const struct query *q)
{
    const struct cluster_query *s = &q->q;
    size_t stride = s->withvalues ? 2 : 1, n = 0;
    struct pick *picks = NULL;
    switch (s->kind) {
    case CQ_LIST:
        if (s->offset < 0) {
            resp_add_array_len(&c->out, 0);
            return;
        }
        picks = merge(q, 1, stride, (size_t)s->offset, s->count < 0 ? SIZE_MAX : (size_t)s->count,
                      &n);
        break;
    case CQ_NEAREST:
        picks = merge(q, 1, 1, 0, (size_t)s->count, &n);
        break;
    case CQ_RANKS: {
        /* The parts listed from the window's end (both ranks from the
         * start, or both from the end) or in full, so the window over
         * the merged listing is the window over every key. */
        picks = merge(q, 1, s->typed ? 1 : stride, 0, SIZE_MAX, &n);
        size_t lo = 0, hi = 0;
        if (rank_range(s->start, s->stop, n, &lo, &hi) == 0)
            hi++;
        if (s->typed)
            reply_typed_window(c, q, picks, lo, hi);
        else
            reply_picks(c, q, picks + lo, hi - lo);
        xfree(picks);
        return;
    }
    case CQ_COUNT: {
        long long sum = 0;
        for (int i = 0; i < q->nparts; i++)
            if (counts_use(q, i))
                sum += q->parts[i].replies[1].integer;
        resp_add_int(&c->out, sum);
        return;
    }
    case CQ_RANK: {
        long long sum = 0, found = 0;
        for (int i = 0; i < q->nparts; i++)
            if (counts_use(q, i)) {
                sum += q->parts[i].replies[1].integer;
                found += q->parts[i].replies[2].integer;
            }
        if (found)
            resp_add_int(&c->out, sum);
        else
            resp_add_null(&c->out);
        return;
    }
    case CQ_SPLIT:
        break;
    }
    reply_picks(c, q, picks, n);
    xfree(picks);
}

/* The reply a part's shape must have; anything else is an error. */
static int reply_fits(const struct query *q, int cmd, const struct cq_kept *k)
{
    if (cmd == 0)
        return k->type == RESP_REPLY_INT;
    switch (q->q.kind) {
    case CQ_COUNT:
    case CQ_RANK:
        return k->type == RESP_REPLY_INT;
    default:
        /* A typed range of ranks's first listing is of keys alone. */
        return k->type == RESP_REPLY_ARRAY &&
               (!q->q.withvalues || q->q.kind == CQ_NEAREST ||
                (q->q.kind == CQ_RANKS && q->q.typed && cmd == 1) || k->n % 2 == 0);
    }
}

static void on_timeout(struct client *c, const void *how);

/* The query's answer, or its error, to its client, whose wait ends; only
 * freed when the client no longer waits for it (CLIENT UNBLOCK ended the
 * wait). */
static void finish(struct query *q)
{
    struct client *c = q->c;
    if (!cq_waits_for(c, on_timeout, q->id)) {
        query_free(q);
        return;
    }
    if (q->failed[0]) {
        resp_add_error(&c->out, q->failed);
    } else {
        const struct cq_kept *err = NULL;
        for (int i = 0; i < q->nparts && !err; i++)
            for (int j = 0; j < q->parts[i].ncmds && !err; j++) {
                const struct cq_kept *k = &q->parts[i].replies[j];
                if (k->type == RESP_REPLY_ERROR || !reply_fits(q, j, k))
                    err = k;
            }
        if (err && err->type == RESP_REPLY_ERROR)
            resp_add_error(&c->out, err->bytes);
        else if (err)
            resp_add_error(&c->out, "ERR cluster-wide query: a node answered in an unexpected "
                                    "shape");
        else
            reply_merged(c, q);
    }
    query_free(q);
    cq_release(c);
}

/* Every first-round part has answered: the nodes that import a slot are
 * asked again, now that every node they import from has been read. */
static int ask_again(struct query *q)
{
    int first = q->nparts;
    for (int i = 0; i < first; i++) {
        struct part *p = &q->parts[i];
        if (p->replies[0].type != RESP_REPLY_INT || p->replies[0].integer <= 0)
            continue;
        char ip[CLUSTER_IPLEN];
        snprintf(ip, sizeof(ip), "%s", p->ip);
        int port = p->port;
        part_add(q, ip, port, 2);
    }
    q->second_round = 1;
    q->sending = 1;
    for (int i = first; i < q->nparts && !q->failed[0]; i++)
        part_send(q, i);
    q->sending = 0;
    return q->nparts > first;
}

static void take_reply(uint64_t tag, const struct resp_reply *r, const char *err)
{
    struct query *q = query_find(tag >> 20);
    if (!q)
        return;
    int part = (int)(tag >> 2 & 0x3ffff), cmd = (int)(tag & 3);
    struct part *p = &q->parts[part];
    q->waiting--;
    if (err) {
        if (!q->failed[0])
            snprintf(q->failed, sizeof(q->failed),
                     "CLUSTERDOWN cluster-wide query: node %s:%d failed: %s", p->ip, p->port,
                     err);
    } else {
        cq_keep(&p->replies[cmd], r);
        p->answered++;
    }
    if (q->waiting > 0 || q->sending)
        return;
    if (!q->failed[0] && !q->second_round && ask_again(q) && q->waiting > 0)
        return;
    finish(q);
}

static void on_reply(uint64_t tag, const struct resp_reply *r, const char *err)
{
    if (cluster_ksplit_reply(tag, r, err))
        return;
    cq_held_reply(take_reply, tag, r, err); /* asking again sends */
}

/* The client's wait passed cluster-node-timeout: an error naming a node
 * that did not answer, whose link is closed (it may be stopped: what it
 * would send later belongs to nobody). */
static void on_timeout(struct client *c, const void *how)
{
    uint64_t id;
    memcpy(&id, how, sizeof(id));
    struct query *q = query_find(id);
    if (!q)
        return;
    char ip[CLUSTER_IPLEN] = "?";
    int port = 0;
    for (int i = 0; i < q->nparts; i++)
        if (q->parts[i].answered < q->parts[i].ncmds) {
            snprintf(ip, sizeof(ip), "%s", q->parts[i].ip);
            port = q->parts[i].port;
            break;
        }
    query_free(q);
    cq_timed_out(c, ip, port);
}

/* c's queries go with it; a reply that comes later finds none. Several
 * when CLIENT UNBLOCK ended a wait whose parts had not all answered. */
static void client_closing(struct client *c)
{
    struct query *q = queries;
    while (q) {
        struct query *next = q->next;
        if (q->c == c)
            query_free(q);
        q = next;
    }
}

/* The copy of argv the parts send, with LIMIT's or the ranks' numbers
 * replaced as the merge needs them. */
static void set_command(struct query *q, int argc, const struct resp_slice *argv)
{
    int j = q->ncmds++;
    q->argc[j] = argc;
    q->argv[j] = xmalloc((size_t)argc * sizeof(*argv));
    q->arg_bytes[j] = xmalloc(resp_slices_bytes(argc, argv) + 1);
    resp_slices_copy(q->argv[j], q->arg_bytes[j], argc, argv);
}

/* The part's form of c's command: a listing of the first offset + count
 * (LIMIT), or the ranks each node must give for the merge to find the
 * window. */
static void part_commands(struct query *q, const struct client *c)
{
    const struct cluster_query *s = &q->q;
    int argc = c->argc;
    struct resp_slice *argv = xmalloc(((size_t)argc + 3) * sizeof(*argv));
    memcpy(argv, c->argv, (size_t)argc * sizeof(*argv));
    char a[RESP_LL_CHARS + 1], b[RESP_LL_CHARS + 1];
    if (s->kind == CQ_LIST && s->limit_at && s->offset >= 0) {
        argv[s->limit_at] = (struct resp_slice){"0", 1};
        long long want = s->count < 0 || s->count > LLONG_MAX - s->offset ? -1
                                                                          : s->offset + s->count;
        argv[s->limit_at + 1] = (struct resp_slice){b, resp_format_ll(b, want)};
    } else if (s->kind == CQ_RANKS) {
        long long lo = 0, hi = -1;
        if (s->start >= 0 && s->stop >= 0)
            hi = s->stop;
        else if (s->start < 0 && s->stop < 0)
            lo = s->start;
        argv[1] = (struct resp_slice){a, resp_format_ll(a, lo)};
        argv[2] = (struct resp_slice){b, resp_format_ll(b, hi)};
    }
    if (s->kind == CQ_RANK) {
        /* The keys before it (after it, KREVRANK), and whether it is
         * there: KRANK's nil comes from no node having it. */
        char *bound = xmalloc(argv[1].len + 1);
        bound[0] = '(';
        memcpy(bound + 1, argv[1].ptr, argv[1].len);
        struct resp_slice key = {bound, argv[1].len + 1};
        char *incl = xmalloc(argv[1].len + 1);
        incl[0] = '[';
        memcpy(incl + 1, argv[1].ptr, argv[1].len);
        struct resp_slice same = {incl, argv[1].len + 1};
        struct resp_slice before[3] = {{"KCOUNT", 6}, {"-", 1}, key};
        if (s->rev) {
            before[1] = key;
            before[2] = (struct resp_slice){"+", 1};
        }
        set_command(q, 3, before);
        struct resp_slice exists[3] = {{"KCOUNT", 6}, same, same};
        set_command(q, 3, exists);
        xfree(bound);
        xfree(incl);
    } else {
        if (s->kind == CQ_RANKS && s->typed) {
            /* The window's keys come from every key's listing: the same
             * ranks without TYPE and without values; then the typed one. */
            struct resp_slice *all = xmalloc((size_t)argc * sizeof(*all));
            int n = 0;
            for (int i = 0; i < argc; i++) {
                if (i >= 3 && i + 1 < argc && word_is(&argv[i], "TYPE"))
                    i++;
                else if (i < 3 || !word_is(&argv[i], "WITHVALUES"))
                    all[n++] = argv[i];
            }
            set_command(q, n, all);
            xfree(all);
        }
        set_command(q, argc, argv);
    }
    xfree(argv);
}

int cluster_query_takes(struct client *c, const struct cluster_query *s)
{
    struct resp_slice tagged;
    enum cluster_query_scope scope = cluster_query_scope(c, c->argc, c->argv, &tagged);
    if (scope == CQ_SCOPE_NONE || scope == CQ_SCOPE_LOCAL)
        return 0;
    if (scope == CQ_SCOPE_SLOT) {
        /* Routed here, the slot stable: its keys are all here. */
        int slot = (int)key_hash_slot(tagged.ptr, tagged.len);
        if (!cluster->importing_from[slot] && !cluster->migrating_to[slot])
            return 0;
    }
    /* A transaction or a script cannot wait for other nodes. */
    if (c->multi || c->id == CLIENT_ID_LONG_RUN) {
        resp_add_error(&c->out, "ERR a cluster-wide ordered query cannot run inside MULTI or a "
                                "script: give bounds within one {hash tag}");
        return 1;
    }
    if (s->kind == CQ_SPLIT)
        return cluster_ksplit_start(c, s->count);
    struct query *q = xcalloc(1, sizeof(*q));
    /* 43 bits: a tag's top bit is KSPLIT's (cluster_ksplit.h). */
    q->id = next_id++ & ((1ULL << 43) - 1);
    q->c = c;
    q->q = *s;
    q->next = queries;
    queries = q;
    part_commands(q, c);
    struct cq_addr *addrs;
    int naddrs = cq_primaries(&addrs);
    for (int i = 0; i < naddrs; i++)
        part_add(q, addrs[i].ip, addrs[i].port, 1);
    xfree(addrs);
    /* Sending may fail at once: the error is then replied without a wait. */
    q->sending = 1;
    int held = cq_hold_runs;
    cq_hold_runs = 1;
    for (int i = 0; i < q->nparts && !q->failed[0]; i++)
        part_send(q, i);
    cq_hold_runs = held;
    q->sending = 0;
    if (q->failed[0]) {
        resp_add_error(&c->out, q->failed);
        query_free(q);
        return 1;
    }
    block_client_until(c, server.cfg.cluster_node_timeout, on_timeout, &q->id, sizeof(q->id));
    return 1;
}

void cluster_query_init(void)
{
    cluster_ksplit_init();
    cluster_qlink_init(on_reply);
    conn_on_closing(client_closing);
}
