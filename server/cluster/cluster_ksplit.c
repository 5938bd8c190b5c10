/*
 * cluster_ksplit.c - KSPLIT for the whole cluster by distributed selection
 * (cluster_ksplit.h).
 *
 * Owns: the running KSPLITs (a list), each with its targets, the current
 * round's commands and every node's replies to them. A query lives from
 * cluster_ksplit_start until its reply or error is written, its client's
 * wait times out, or its client closes; a reply whose query is gone is
 * dropped (the links know queries only by their requests' tags).
 *
 * One node answers KSPLIT n with the keys at span positions
 * floor(i * c / n), i = 1 .. n-1, c the span's keys. Across the cluster:
 *
 *  1. Each primary counts its keys in the span (KCOUNT): c is the sum.
 *  2. A small span, or one whose split keys are dense, is listed whole
 *     (KRANGE min max BYLEX on every node), merged (equal keys once), and
 *     split exactly as one node splits its keys.
 *  3. Otherwise each split key i is a target: the key of index d in a
 *     window (lo, hi) of key order, at first the span with d = its
 *     position. Rounds then alternate, for every target at once (targets
 *     sharing a window share its commands):
 *       - sample: each node gives s keys evenly spaced in its part of the
 *         window (its own KSPLIT s lo hi);
 *       - count: each node counts its window keys up to each sampled key
 *         (KCOUNT lo [x); the sums are the samples' global positions. A
 *         sample at exactly d + 1 is the key. Else the window narrows to
 *         the two samples around position d: between two neighbouring
 *         samples each node holds at most 1/s of its window's keys, so
 *         the window shrinks about s-fold per two rounds;
 *       - list: a window of at most WINDOW_LIST_MAX keys is listed
 *         (KRANGE lo hi BYLEX LIMIT 0 d+1), merged, and its key of index
 *         d taken.
 * Every request a node gets starts with KLOCAL, which says whether the
 * node imports slots; such nodes are asked the round again once every
 * node has answered it (as the other cluster-wide queries do), and their
 * second answers replace the first: a key a migration moves during the
 * round is counted once or twice, never missed.
 */
#include "cluster_ksplit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "blocking.h"
#include "client.h"
#include "cluster_qlink.h"
#include "cluster_qpart.h"
#include "config.h"
#include "conn.h"
#include "krange.h"
#include "mem.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "server.h"

/* A tag: CLUSTER_KSPLIT_TAG, the query's id, the node's index, the
 * command's index in the node's request (0 is KLOCAL). */
#define TAG_ID_BITS 23
#define TAG_NODE_BITS 12
#define TAG_CMD_BITS 28
#define NODES_MAX (1 << TAG_NODE_BITS)

/* A span of at most this many keys is listed whole: a few round trips
 * less, and the listing is no longer than a sample round's replies. */
#define FULL_LIST_MAX 2048
/* ... and so is one where a split key falls every DENSE_EVERY keys or
 * closer: each target costs a node tens of commands and a small window's
 * listing, more than the keys it saves listing. */
#define DENSE_EVERY 256
/* More split keys than this: the span is listed whole (one node's
 * selections cost P log N; here each target costs rounds of commands). */
#define TARGETS_MAX 65536
/* A window of at most this many keys is listed, fewer when many targets
 * are: each node lists at most ROUND_LIST_KEYS keys a round. */
#define WINDOW_LIST_MAX 1024
#define WINDOW_LIST_MIN 16
#define ROUND_LIST_KEYS 262144
/* Samples per node and window in a round: SAMPLES_MAX, fewer when a node
 * would send more than ROUND_SAMPLES in all. */
#define SAMPLES_MAX 1024
#define SAMPLES_MIN 16
#define ROUND_SAMPLES 65536
/* Sample rounds a target may take before its window is listed whatever
 * its size: writes during the query could otherwise keep it from
 * narrowing. */
#define TARGET_ROUNDS_MAX 48
/* The longest command: KRANGE lo hi BYLEX LIMIT 0 count. */
#define CMD_ARGS_MAX 7

/* Owned bytes: a lex bound as sent ("[x" "(x" "-" "+"), or a key. */
struct bytes {
    char *p;
    size_t len;
};

/* Sampled keys, sorted and distinct, shared by the targets of a window:
 * with bounds on each one's position in the window (the keys up to and
 * including it, on every node), from the positions each node's own samples
 * have on it, and which of them the count round counts. */
struct samples {
    int refs;
    size_t n;
    struct bytes *keys;
    long long *lb, *ub; /* bounds on each key's position */
    int *cmd;           /* the count round's command for each, or -1 */
};

enum step { STEP_SAMPLE, STEP_COUNT, STEP_LIST, STEP_DONE };

struct target {
    enum step step;
    struct bytes lo, hi;   /* the window */
    long long d;           /* the index of the key sought in the window */
    long long from, to;    /* STEP_COUNT: the samples counted around d */
    long long w;           /* the window's keys, as last counted */
    int rounds;
    struct samples *samples; /* STEP_COUNT: the window's samples */
    int found;
    struct bytes key;        /* found: the split key */
};

/* Targets [t0, t1) sharing a window and a step this round, whose commands
 * are cmds[cmd0 .. cmd0 + ncmds). */
struct group {
    int t0, t1;
    int cmd0, ncmds;
    long long s; /* STEP_SAMPLE: the samples asked of each node */
};

struct command {
    int argc;
    struct resp_slice argv[CMD_ARGS_MAX];
    char *bytes; /* owned: what argv points to */
    int counts;  /* 1: answered by an integer, 0: by an array */
};

enum stage { STAGE_COUNT, STAGE_FULL, STAGE_SELECT };

struct ksq {
    uint64_t id;
    struct client *c;
    long long parts;
    struct bytes lo, hi; /* the span */
    int nnodes;
    struct cq_addr *nodes;
    enum stage stage;
    int ntargets;
    struct target *targets;
    long long list_max; /* a window this small is listed */
    /* The round: its commands (cmds[0] is KLOCAL), its groups, and every
     * node's replies, replies[node * ncmds + cmd]. */
    int ncmds, cmds_cap;
    struct command *cmds;
    int ngroups, groups_cap;
    struct group *groups;
    struct cq_kept *replies;
    int *pending; /* per node: replies still awaited this round */
    int waiting;  /* the sum of pending */
    int asked_again;
    int sending;  /* inside a round's sends: a failure is handled after */
    int blocked;  /* its client waits (else it is still being started) */
    char failed[256];
    struct ksq *next;
};

static struct ksq *queries;
static uint64_t next_id = 1;

/* ---- Bytes ---- */

static struct bytes bytes_of(char mark, const char *p, size_t len)
{
    struct bytes b = {xmalloc(len + 2), len + (mark != 0)};
    if (mark)
        b.p[0] = mark;
    if (len)
        memcpy(b.p + (mark != 0), p, len);
    b.p[b.len] = '\0';
    return b;
}

static void bytes_free(struct bytes *b)
{
    xfree(b->p);
    b->p = NULL;
    b->len = 0;
}

static int bytes_eq(const struct bytes *a, const struct bytes *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0);
}

static void samples_drop(struct samples *s)
{
    if (!s || --s->refs > 0)
        return;
    for (size_t i = 0; i < s->n; i++)
        bytes_free(&s->keys[i]);
    xfree(s->keys);
    xfree(s->lb);
    xfree(s->ub);
    xfree(s->cmd);
    xfree(s);
}

/* floor(i * c / n) without overflow for i < n < 2^32. */
static uint64_t position(uint64_t i, uint64_t c, uint64_t n)
{
    return i * (c / n) + i * (c % n) / n;
}

/* ---- Queries ---- */

static struct ksq *query_find(uint64_t id)
{
    struct ksq *q = queries;
    while (q && q->id != id)
        q = q->next;
    return q;
}

static void round_clear(struct ksq *q)
{
    for (int i = 0; q->replies && i < q->nnodes * q->ncmds; i++)
        cq_kept_clear(&q->replies[i]);
    xfree(q->replies);
    q->replies = NULL;
    for (int j = 0; j < q->ncmds; j++)
        xfree(q->cmds[j].bytes);
    q->ncmds = 0;
    q->ngroups = 0;
    q->asked_again = 0;
}

static void query_free(struct ksq *q)
{
    for (struct ksq **p = &queries; *p; p = &(*p)->next)
        if (*p == q) {
            *p = q->next;
            break;
        }
    round_clear(q);
    for (int i = 0; i < q->ntargets; i++) {
        struct target *t = &q->targets[i];
        bytes_free(&t->lo);
        bytes_free(&t->hi);
        bytes_free(&t->key);
        samples_drop(t->samples);
    }
    bytes_free(&q->lo);
    bytes_free(&q->hi);
    xfree(q->targets);
    xfree(q->cmds);
    xfree(q->groups);
    xfree(q->pending);
    xfree(q->nodes);
    xfree(q);
}

/* Appends a command of argc arguments to the round. */
static void add_cmd(struct ksq *q, int argc, const struct resp_slice *argv, int counts)
{
    if (q->ncmds == q->cmds_cap) {
        q->cmds_cap = q->cmds_cap ? 2 * q->cmds_cap : 8;
        q->cmds = xrealloc(q->cmds, (size_t)q->cmds_cap * sizeof(*q->cmds));
    }
    struct command *cmd = &q->cmds[q->ncmds++];
    cmd->argc = argc;
    cmd->counts = counts;
    cmd->bytes = xmalloc(resp_slices_bytes(argc, argv) + 1);
    resp_slices_copy(cmd->argv, cmd->bytes, argc, argv);
}

static void round_begin(struct ksq *q)
{
    round_clear(q);
    static const struct resp_slice klocal = {"KLOCAL", 6};
    add_cmd(q, 1, &klocal, 1);
}

static uint64_t tag_of(const struct ksq *q, int node, int cmd)
{
    return CLUSTER_KSPLIT_TAG | q->id << (TAG_NODE_BITS + TAG_CMD_BITS) |
           (uint64_t)node << TAG_CMD_BITS | (uint64_t)cmd;
}

/* Sends the round to node i; a failure at once reaches on the callback. */
static void send_node(struct ksq *q, int i)
{
    struct cluster_qlink_cmd *cmds = xmalloc((size_t)q->ncmds * sizeof(*cmds));
    for (int j = 0; j < q->ncmds; j++) {
        cq_kept_clear(&q->replies[i * q->ncmds + j]);
        cmds[j] = (struct cluster_qlink_cmd){q->cmds[j].argc, q->cmds[j].argv, tag_of(q, i, j)};
    }
    q->pending[i] += q->ncmds;
    q->waiting += q->ncmds;
    cluster_qlink_send(q->nodes[i].ip, q->nodes[i].port, q->ncmds, cmds);
    xfree(cmds);
}

/* Sends the round to every node. Returns -1 when a link failed at once
 * (q->failed says how). */
static int send_round(struct ksq *q)
{
    if (q->ncmds > (1 << TAG_CMD_BITS)) {
        snprintf(q->failed, sizeof(q->failed), "ERR KSPLIT across the cluster: too many parts");
        return -1;
    }
    q->replies = xcalloc((size_t)q->nnodes * (size_t)q->ncmds, sizeof(*q->replies));
    q->sending = 1;
    for (int i = 0; i < q->nnodes && !q->failed[0]; i++)
        send_node(q, i);
    q->sending = 0;
    return q->failed[0] ? -1 : 0;
}

static void on_timeout(struct client *c, const void *how);

/* Ends q: its error (q->failed) or, with ok, the reply the caller wrote
 * into its client first. Only frees q when its client no longer waits for
 * it (CLIENT UNBLOCK ended the wait). */
static void finish(struct ksq *q)
{
    struct client *c = q->c;
    if (!cq_waits_for(c, on_timeout, q->id)) {
        query_free(q);
        return;
    }
    if (q->failed[0])
        resp_add_error(&c->out, q->failed);
    query_free(q);
    cq_release(c);
}

/* ---- Reading a round ---- */

static const struct cq_kept *reply_at(const struct ksq *q, int node, int cmd)
{
    return &q->replies[node * q->ncmds + cmd];
}

/* The sum of every node's integer reply to cmd. */
static long long sum_of(const struct ksq *q, int cmd)
{
    long long sum = 0;
    for (int i = 0; i < q->nnodes; i++) {
        long long v = reply_at(q, i, cmd)->integer;
        if (v > 0)
            sum += v;
    }
    return sum;
}

static int elem_cmp(const void *a, const void *b)
{
    return cq_key_cmp(a, b);
}

/* Every node's keys in its reply to cmd, sorted, equal keys once: *n of
 * them, pointing into the replies; the array is the caller's. */
static struct resp_reply_elem *union_of(const struct ksq *q, int cmd, size_t *n)
{
    size_t total = 0;
    for (int i = 0; i < q->nnodes; i++)
        total += reply_at(q, i, cmd)->n;
    struct resp_reply_elem *all = xmalloc((total ? total : 1) * sizeof(*all));
    size_t at = 0;
    for (int i = 0; i < q->nnodes; i++) {
        const struct cq_kept *k = reply_at(q, i, cmd);
        for (size_t j = 0; j < k->n; j++)
            if (k->elems[j].ptr)
                all[at++] = k->elems[j];
    }
    qsort(all, at, sizeof(*all), elem_cmp);
    size_t kept = 0;
    for (size_t j = 0; j < at; j++)
        if (kept == 0 || cq_key_cmp(&all[kept - 1], &all[j]) != 0)
            all[kept++] = all[j];
    *n = kept;
    return all;
}

/* An error or a reply of the wrong shape in the round, into q->failed.
 * Returns -1 when there is one. */
static int round_errors(struct ksq *q)
{
    for (int i = 0; i < q->nnodes; i++)
        for (int j = 0; j < q->ncmds; j++) {
            const struct cq_kept *k = reply_at(q, i, j);
            if (k->type == RESP_REPLY_ERROR) {
                snprintf(q->failed, sizeof(q->failed), "%s", k->bytes);
                return -1;
            }
            if (k->type != (q->cmds[j].counts ? RESP_REPLY_INT : RESP_REPLY_ARRAY)) {
                snprintf(q->failed, sizeof(q->failed),
                         "ERR cluster-wide query: a node answered in an unexpected shape");
                return -1;
            }
        }
    return 0;
}

/* ---- The stages ---- */

static void reply_keys(struct client *c, const struct resp_reply_elem *keys, size_t n)
{
    resp_add_array_len(&c->out, n);
    for (size_t i = 0; i < n; i++)
        resp_add_bulk(&c->out, keys[i].ptr, keys[i].len);
}

/* The whole span listed: split as one node splits its keys. */
static void reply_full(struct ksq *q)
{
    size_t n;
    struct resp_reply_elem *keys = union_of(q, 1, &n);
    struct client *c = q->c;
    if ((unsigned long long)q->parts > n) {
        reply_keys(c, keys + (n > 0), n - (n > 0));
    } else {
        resp_add_array_len(&c->out, (size_t)q->parts - 1);
        for (uint64_t i = 1; i < (uint64_t)q->parts; i++) {
            const struct resp_reply_elem *e = &keys[position(i, n, (uint64_t)q->parts)];
            resp_add_bulk(&c->out, e->ptr, e->len);
        }
    }
    xfree(keys);
}

/* The split keys found, in order, each once. */
static void reply_targets(struct ksq *q)
{
    size_t n = 0;
    struct resp_reply_elem *keys = xmalloc((size_t)q->ntargets * sizeof(*keys));
    for (int i = 0; i < q->ntargets; i++) {
        const struct target *t = &q->targets[i];
        struct resp_reply_elem e = {t->key.p, t->key.len};
        /* Writes during the query may leave a target without its key, or
         * two on one key: what is listed stays ascending and distinct. */
        if (t->found && (n == 0 || cq_key_cmp(&keys[n - 1], &e) < 0))
            keys[n++] = e;
    }
    reply_keys(q->c, keys, n);
    xfree(keys);
}

static void count_commands(struct ksq *q, const struct group *gr);

/* The round for every target not done: its groups and their commands. */
static void select_round(struct ksq *q)
{
    round_begin(q);
    int nsample = 0;
    for (int i = 0; i < q->ntargets;) {
        struct target *t = &q->targets[i];
        if (t->step == STEP_DONE) {
            i++;
            continue;
        }
        int j = i + 1;
        while (j < q->ntargets && q->targets[j].step == t->step &&
               bytes_eq(&q->targets[j].lo, &t->lo) && bytes_eq(&q->targets[j].hi, &t->hi) &&
               q->targets[j].samples == t->samples)
            j++;
        if (q->ngroups == q->groups_cap) {
            q->groups_cap = q->groups_cap ? 2 * q->groups_cap : 8;
            q->groups = xrealloc(q->groups, (size_t)q->groups_cap * sizeof(*q->groups));
        }
        q->groups[q->ngroups++] = (struct group){i, j, 0, 0, 0};
        nsample += t->step == STEP_SAMPLE;
        i = j;
    }
    long long per_window = nsample ? ROUND_SAMPLES / nsample : 0;
    if (per_window > SAMPLES_MAX)
        per_window = SAMPLES_MAX;
    if (per_window < SAMPLES_MIN)
        per_window = SAMPLES_MIN;
    for (int g = 0; g < q->ngroups; g++) {
        struct group *gr = &q->groups[g];
        struct target *t = &q->targets[gr->t0];
        gr->cmd0 = q->ncmds;
        char num[RESP_LL_CHARS + 1];
        struct resp_slice lo = {t->lo.p, t->lo.len}, hi = {t->hi.p, t->hi.len};
        if (t->step == STEP_SAMPLE) {
            gr->s = per_window;
            struct resp_slice count[3] = {{"KCOUNT", 6}, lo, hi};
            add_cmd(q, 3, count, 1);
            struct resp_slice split[4] = {{"KSPLIT", 6}, {num, resp_format_ll(num, gr->s)}, lo, hi};
            add_cmd(q, 4, split, 0);
        } else if (t->step == STEP_COUNT) {
            count_commands(q, gr);
        } else {
            long long want = 0;
            for (int k = gr->t0; k < gr->t1; k++)
                if (q->targets[k].d + 1 > want)
                    want = q->targets[k].d + 1;
            struct resp_slice argv[7] = {{"KRANGE", 6}, lo, hi, {"BYLEX", 5}, {"LIMIT", 5},
                                         {"0", 1}, {num, resp_format_ll(num, want)}};
            add_cmd(q, 7, argv, 0);
        }
        gr->ncmds = q->ncmds - gr->cmd0;
    }
}

/* The key of node's reply to a KSPLIT s over a window of w of its keys at
 * index j: its position in that window, counting it (the keys up to and
 * including it), as cmd_ksplit places it. */
static long long own_position(long long j, long long w, long long s)
{
    if (s > w)
        return j + 2; /* every key after the first */
    return (long long)position((uint64_t)j + 1, (uint64_t)w, (uint64_t)s) + 1;
}

/* A window's samples: the nodes' replies to KSPLIT s (command kcmd), sorted,
 * each once, with "[" before each (KCOUNT's bound); and the bounds on each
 * one's position in the window from each node's count of its window keys
 * (command wcmd): on a node, a key between two of that node's own samples
 * is past as many of its keys as the first counts, and past at most as
 * many as the second. */
static struct samples *samples_of(const struct ksq *q, int wcmd, int kcmd, long long s_asked)
{
    size_t n;
    struct resp_reply_elem *keys = union_of(q, kcmd, &n);
    struct samples *s = xcalloc(1, sizeof(*s));
    s->n = n;
    s->keys = xmalloc((n ? n : 1) * sizeof(*s->keys));
    s->lb = xcalloc(n ? n : 1, sizeof(*s->lb));
    s->ub = xcalloc(n ? n : 1, sizeof(*s->ub));
    s->cmd = xmalloc((n ? n : 1) * sizeof(*s->cmd));
    for (int l = 0; l < q->nnodes; l++) {
        const struct cq_kept *own = reply_at(q, l, kcmd);
        long long w = reply_at(q, l, wcmd)->integer, m = (long long)own->n, j = 0;
        for (size_t k = 0; k < n; k++) {
            while (j < m && cq_key_cmp(&own->elems[j], &keys[k]) < 0)
                j++;
            if (j < m && cq_key_cmp(&own->elems[j], &keys[k]) == 0) {
                s->lb[k] += own_position(j, w, s_asked);
                s->ub[k] += own_position(j, w, s_asked);
                continue;
            }
            s->lb[k] += j > 0 ? own_position(j - 1, w, s_asked) : 0;
            s->ub[k] += j < m ? own_position(j, w, s_asked) - 1 : w;
        }
    }
    for (size_t i = 0; i < n; i++) {
        s->keys[i] = bytes_of('[', keys[i].ptr, keys[i].len);
        s->cmd[i] = -1;
    }
    xfree(keys);
    return s;
}

/* The first k with v[k] > x in the nondecreasing v[0..n), or n. */
static long long first_above(const long long *v, long long n, long long x)
{
    long long lo = 0, hi = n;
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        if (v[mid] > x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The count round's commands for a group sharing samples: the exact
 * position of each sample whose bounds do not already place it on one side
 * of a target's key, and of the nearest sample placed on each side. */
static void count_commands(struct ksq *q, const struct group *gr)
{
    struct samples *s = q->targets[gr->t0].samples;
    long long n = (long long)s->n;
    char *want = xcalloc((size_t)(n ? n : 1), 1);
    for (int i = gr->t0; i < gr->t1; i++) {
        struct target *t = &q->targets[i];
        /* The bounds grow with k: a is the last sample surely before the
         * key (ub <= d), b the first surely at or after it (lb > d). */
        long long a = first_above(s->ub, n, t->d) - 1, b = first_above(s->lb, n, t->d);
        long long from = a < 0 ? 0 : a, to = b >= n ? n - 1 : b;
        if (from > to) { /* bounds from a moving keyspace disagree */
            long long x = from;
            from = to;
            to = x;
        }
        t->from = from;
        t->to = to;
        for (long long k = from; k <= to; k++)
            want[k] = 1;
    }
    struct resp_slice lo = {q->targets[gr->t0].lo.p, q->targets[gr->t0].lo.len};
    for (long long k = 0; k < n; k++) {
        if (!want[k])
            continue;
        s->cmd[k] = q->ncmds;
        struct resp_slice argv[3] = {{"KCOUNT", 6}, lo, {s->keys[k].p, s->keys[k].len}};
        add_cmd(q, 3, argv, 1);
    }
    xfree(want);
}

static void set_next_step(const struct ksq *q, struct target *t)
{
    t->step = t->w <= q->list_max || t->rounds >= TARGET_ROUNDS_MAX ? STEP_LIST : STEP_SAMPLE;
}

/* Target t narrowed by its window's samples, whose exact window positions
 * (keys up to and including each) are at[k] for the samples counted, -1
 * for the others. */
static void narrow(const struct ksq *q, struct target *t, const long long *at)
{
    const struct samples *s = t->samples;
    /* Only the samples counted for t: any counted ones narrow correctly,
     * these are the nearest. */
    long long n = t->to + 1, a = -1;
    for (long long k = t->from; k < n; k++)
        if (at[k] >= 0 && at[k] <= t->d)
            a = k;
    long long b = a < 0 ? t->from : a + 1;
    while (b < n && (at[b] < 0 || at[b] < t->d + 1))
        b++;
    if (b < n && at[b] == t->d + 1) {
        /* Position d + 1 counts the key itself: this sample is it. */
        const struct bytes *x = &s->keys[b];
        t->key = bytes_of(0, x->p + 1, x->len - 1);
        t->found = 1;
        t->step = STEP_DONE;
        return;
    }
    long long below = a >= 0 ? at[a] : 0;
    long long end = b < n ? at[b] - 1 : t->w;
    if (a >= 0) {
        bytes_free(&t->lo);
        t->lo = bytes_of('(', s->keys[a].p + 1, s->keys[a].len - 1);
    }
    if (b < n) {
        bytes_free(&t->hi);
        t->hi = bytes_of('(', s->keys[b].p + 1, s->keys[b].len - 1);
    }
    t->d -= below;
    t->w = end - below > t->d ? end - below : t->d + 1;
    t->rounds++;
    set_next_step(q, t);
}

/* The targets of [t0, t1) take samples s (no sample: their windows are
 * listed). */
static void share_samples(struct ksq *q, int t0, int t1, struct samples *s)
{
    for (int k = t0; k < t1; k++) {
        struct target *t = &q->targets[k];
        if (s->n == 0) {
            t->step = STEP_LIST;
            continue;
        }
        s->refs++;
        t->samples = s;
        t->step = STEP_COUNT;
    }
    if (s->refs == 0) {
        s->refs = 1;
        samples_drop(s);
    }
}

/* Takes in a select round's replies; returns 1 when every target is done. */
static int select_read(struct ksq *q)
{
    int done = 1;
    for (int g = 0; g < q->ngroups; g++) {
        const struct group *gr = &q->groups[g];
        struct target *t0 = &q->targets[gr->t0];
        enum step step = t0->step;
        if (step == STEP_SAMPLE) {
            for (int k = gr->t0; k < gr->t1; k++)
                q->targets[k].w = sum_of(q, gr->cmd0);
            share_samples(q, gr->t0, gr->t1, samples_of(q, gr->cmd0, gr->cmd0 + 1, gr->s));
        } else if (step == STEP_COUNT) {
            const struct samples *s = t0->samples;
            long long *at = xmalloc((s->n ? s->n : 1) * sizeof(*at));
            for (size_t k = 0; k < s->n; k++)
                at[k] = s->cmd[k] >= 0 ? sum_of(q, s->cmd[k]) : -1;
            for (int k = gr->t0; k < gr->t1; k++) {
                struct target *t = &q->targets[k];
                narrow(q, t, at);
                samples_drop(t->samples);
                t->samples = NULL;
            }
            xfree(at);
        } else {
            size_t n;
            struct resp_reply_elem *keys = union_of(q, gr->cmd0, &n);
            for (int k = gr->t0; k < gr->t1; k++) {
                struct target *t = &q->targets[k];
                t->step = STEP_DONE;
                if (t->d >= 0 && (size_t)t->d < n) {
                    t->key = bytes_of(0, keys[t->d].ptr, keys[t->d].len);
                    t->found = 1;
                }
            }
            xfree(keys);
        }
        for (int k = gr->t0; k < gr->t1; k++)
            done &= q->targets[k].step == STEP_DONE;
    }
    return done;
}

/* The span counted and sampled: the targets, or the listing. */
static void count_read(struct ksq *q)
{
    long long total = sum_of(q, 1);
    long long parts = q->parts;
    if (total <= FULL_LIST_MAX || parts > total || parts - 1 > TARGETS_MAX ||
        parts - 1 >= total / DENSE_EVERY) {
        round_begin(q);
        q->stage = STAGE_FULL;
        struct resp_slice argv[4] = {{"KRANGE", 6}, {q->lo.p, q->lo.len}, {q->hi.p, q->hi.len},
                                     {"BYLEX", 5}};
        add_cmd(q, 4, argv, 0);
        return;
    }
    q->stage = STAGE_SELECT;
    q->ntargets = (int)(parts - 1);
    long long list_max = ROUND_LIST_KEYS / q->ntargets;
    q->list_max = list_max > WINDOW_LIST_MAX   ? WINDOW_LIST_MAX
                  : list_max < WINDOW_LIST_MIN ? WINDOW_LIST_MIN
                                               : list_max;
    q->targets = xcalloc((size_t)q->ntargets, sizeof(*q->targets));
    for (int i = 0; i < q->ntargets; i++) {
        struct target *t = &q->targets[i];
        t->lo = bytes_of(0, q->lo.p, q->lo.len);
        t->hi = bytes_of(0, q->hi.p, q->hi.len);
        t->d = (long long)position((uint64_t)i + 1, (uint64_t)total, (uint64_t)parts);
        t->w = total;
    }
    /* The first round sampled the span already. */
    share_samples(q, 0, q->ntargets, samples_of(q, 1, 2, SAMPLES_MAX));
    select_round(q);
}

/* Every node answered the round (twice for an importing one): the next
 * round is sent, or the reply written. */
static void round_done(struct ksq *q)
{
    if (round_errors(q) < 0 || !cq_waits_for(q->c, on_timeout, q->id)) {
        finish(q);
        return;
    }
    switch (q->stage) {
    case STAGE_COUNT:
        count_read(q);
        break;
    case STAGE_FULL:
        reply_full(q);
        finish(q);
        return;
    case STAGE_SELECT:
        if (select_read(q)) {
            reply_targets(q);
            finish(q);
            return;
        }
        select_round(q);
        break;
    }
    if (send_round(q) < 0)
        finish(q);
}

/* The nodes that import a slot are asked the round again, now that every
 * node they import from has answered it. Returns 1 when any was. */
static int ask_again(struct ksq *q)
{
    int any = 0;
    q->asked_again = 1;
    q->sending = 1;
    for (int i = 0; i < q->nnodes && !q->failed[0]; i++) {
        const struct cq_kept *k = reply_at(q, i, 0);
        if (k->type == RESP_REPLY_INT && k->integer > 0) {
            send_node(q, i);
            any = 1;
        }
    }
    q->sending = 0;
    return any;
}

/* A node's reply r (or err) to a command of a round. */
static void take_reply(uint64_t tag, const struct resp_reply *r, const char *err)
{
    uint64_t id = (tag & ~CLUSTER_KSPLIT_TAG) >> (TAG_NODE_BITS + TAG_CMD_BITS);
    struct ksq *q = query_find(id);
    int node = (int)(tag >> TAG_CMD_BITS & (NODES_MAX - 1));
    int cmd = (int)(tag & ((1ULL << TAG_CMD_BITS) - 1));
    if (!q || node >= q->nnodes || cmd >= q->ncmds)
        return;
    q->pending[node]--;
    q->waiting--;
    if (err) {
        if (!q->failed[0])
            snprintf(q->failed, sizeof(q->failed),
                     "CLUSTERDOWN cluster-wide query: node %s:%d failed: %s", q->nodes[node].ip,
                     q->nodes[node].port, err);
    } else {
        struct cq_kept *k = &q->replies[node * q->ncmds + cmd];
        cq_kept_clear(k);
        cq_keep(k, r);
    }
    if (q->sending)
        return;
    if (q->failed[0]) {
        /* What the other nodes send later finds no query. */
        if (q->blocked)
            finish(q);
        return;
    }
    if (q->waiting > 0)
        return;
    if (!q->asked_again && ask_again(q) && q->waiting > 0 && !q->failed[0])
        return;
    if (q->failed[0]) {
        finish(q);
        return;
    }
    round_done(q);
}

int cluster_ksplit_reply(uint64_t tag, const struct resp_reply *r, const char *err)
{
    if (!(tag & CLUSTER_KSPLIT_TAG) || tag == UINT64_MAX)
        return 0;
    cq_held_reply(take_reply, tag, r, err); /* the next round sends */
    return 1;
}

/* The client's wait passed cluster-node-timeout: an error naming a node
 * that has not answered the round, whose link is closed (it may be
 * stopped: what it sends later belongs to nobody). */
static void on_timeout(struct client *c, const void *how)
{
    uint64_t id;
    memcpy(&id, how, sizeof(id));
    struct ksq *q = query_find(id);
    if (!q)
        return;
    struct cq_addr late = {"?", 0};
    for (int i = 0; i < q->nnodes; i++)
        if (q->pending[i] > 0) {
            late = q->nodes[i];
            break;
        }
    query_free(q);
    cq_timed_out(c, late.ip, late.port);
}

/* c's queries go with it; their replies that come later find none. */
static void client_closing(struct client *c)
{
    struct ksq *q = queries;
    while (q) {
        struct ksq *next = q->next;
        if (q->c == c)
            query_free(q);
        q = next;
    }
}

/* The span of KSPLIT's arguments as two lex bounds: "-" "+" for all keys,
 * "[p" and the prefix's successor for PREFIX p. */
static void span_bounds(const struct client *c, struct ksq *q)
{
    if (c->argc < 4) {
        q->lo = bytes_of(0, "-", 1);
        q->hi = bytes_of(0, "+", 1);
        return;
    }
    const struct resp_slice *a = &c->argv[2], *b = &c->argv[3];
    if (a->len == 6 && !strncasecmp(a->ptr, "PREFIX", 6)) {
        q->lo = bytes_of('[', b->ptr, b->len);
        char *succ = xmalloc(b->len + 1);
        size_t n = kr_prefix_successor(b->ptr, b->len, succ);
        q->hi = n ? bytes_of('(', succ, n) : bytes_of(0, "+", 1);
        xfree(succ);
        return;
    }
    q->lo = bytes_of(0, a->ptr, a->len);
    q->hi = bytes_of(0, b->ptr, b->len);
}

int cluster_ksplit_start(struct client *c, long long parts)
{
    /* One part has no split key, on one node as on many. */
    if (parts <= 1) {
        resp_add_array_len(&c->out, 0);
        return 1;
    }
    struct ksq *q = xcalloc(1, sizeof(*q));
    q->nnodes = cq_primaries(&q->nodes);
    if (q->nnodes > NODES_MAX) {
        resp_add_error(&c->out, "ERR KSPLIT across the cluster: too many primaries");
        query_free(q);
        return 1;
    }
    /* Never all ones: UINT64_MAX is a link's own tag. */
    q->id = next_id++ % ((1ULL << TAG_ID_BITS) - 1);
    q->c = c;
    q->parts = parts;
    q->pending = xcalloc((size_t)(q->nnodes ? q->nnodes : 1), sizeof(*q->pending));
    q->next = queries;
    queries = q;
    span_bounds(c, q);
    q->stage = STAGE_COUNT;
    round_begin(q);
    struct resp_slice count[3] = {{"KCOUNT", 6}, {q->lo.p, q->lo.len}, {q->hi.p, q->hi.len}};
    add_cmd(q, 3, count, 1);
    /* The span's samples in the same round, for a selection (a listing
     * does without them). */
    char num[RESP_LL_CHARS + 1];
    struct resp_slice split[4] = {{"KSPLIT", 6}, {num, resp_format_ll(num, SAMPLES_MAX)},
                                  count[1], count[2]};
    add_cmd(q, 4, split, 0);
    int held = cq_hold_runs;
    cq_hold_runs = 1;
    int rc = send_round(q);
    cq_hold_runs = held;
    if (rc < 0) {
        resp_add_error(&c->out, q->failed);
        query_free(q);
        return 1;
    }
    q->blocked = 1;
    block_client_until(c, server.cfg.cluster_node_timeout, on_timeout, &q->id, sizeof(q->id));
    return 1;
}

void cluster_ksplit_init(void)
{
    conn_on_closing(client_closing);
}
