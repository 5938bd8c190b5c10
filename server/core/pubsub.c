/*
 * pubsub.c - subscriptions and message delivery (pubsub.h).
 *
 * Each name subscribed to is a node of its kind's tree, holding an array of
 * its subscribers; each client holds an array of its nodes per kind. Both
 * arrays are unordered and removal swaps the last element in, so
 * (un)subscribing costs the length of one of them, and a client that goes
 * drops all of its subscriptions in one pass over its own arrays.
 */
#include "pubsub.h"

#include <string.h>

#include "client.h"
#include "conn.h"
#include "glob.h"
#include "mem.h"
#include "rbtree.h"
#include "server.h"

struct name_node {
    struct rb_node node;
    struct client **subs;
    size_t nsubs, cap;
    size_t len;
    char name[];
};

/* One client's subscriptions, per kind. */
struct pubsub_client {
    struct name_node **nodes[PUBSUB_KINDS];
    size_t n[PUBSUB_KINDS], cap[PUBSUB_KINDS];
};

static struct rb_root trees[PUBSUB_KINDS];
static size_t tree_sizes[PUBSUB_KINDS];

/* Subscribers whose output grew this loop turn, sent by flush_cb. */
static struct client **pending;
static size_t npending, pending_cap;
static uv_check_t flush_check;
static int flush_on;

static int name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int r = memcmp(a, b, alen < blen ? alen : blen);
    return r ? r : (alen > blen) - (alen < blen);
}

static struct name_node *find(enum pubsub_kind kind, const char *name, size_t len)
{
    struct rb_node *n = trees[kind].rb_node;
    while (n) {
        struct name_node *x = rb_entry(n, struct name_node, node);
        int r = name_cmp(name, len, x->name, x->len);
        if (r == 0)
            return x;
        n = r < 0 ? n->rb_left : n->rb_right;
    }
    return NULL;
}

static struct name_node *find_or_add(enum pubsub_kind kind, const char *name, size_t len)
{
    struct rb_node **link = &trees[kind].rb_node, *parent = NULL;
    while (*link) {
        struct name_node *x = rb_entry(*link, struct name_node, node);
        int r = name_cmp(name, len, x->name, x->len);
        if (r == 0)
            return x;
        parent = *link;
        link = r < 0 ? &(*link)->rb_left : &(*link)->rb_right;
    }
    struct name_node *x = xcalloc(1, sizeof(*x) + len + 1);
    memcpy(x->name, name, len);
    x->len = len;
    rb_link_node(&x->node, parent, link);
    rb_insert_color(&x->node, &trees[kind]);
    tree_sizes[kind]++;
    return x;
}

static void remove_sub(enum pubsub_kind kind, struct name_node *x, struct client *c)
{
    for (size_t i = 0; i < x->nsubs; i++) {
        if (x->subs[i] == c) {
            x->subs[i] = x->subs[--x->nsubs];
            break;
        }
    }
    if (x->nsubs == 0) {
        rb_erase(&x->node, &trees[kind]);
        tree_sizes[kind]--;
        xfree(x->subs);
        xfree(x);
    }
}

static void grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return;
    *cap = *cap ? *cap * 2 : 4;
    if (*cap < need)
        *cap = need;
    *arr = xrealloc(*arr, *cap * elem);
}

int pubsub_subscribe(struct client *c, enum pubsub_kind kind, const char *name, size_t len)
{
    struct pubsub_client *pc = c->pubsub;
    if (!pc)
        pc = c->pubsub = xcalloc(1, sizeof(*pc));
    struct name_node *x = find(kind, name, len);
    if (x) {
        for (size_t i = 0; i < pc->n[kind]; i++)
            if (pc->nodes[kind][i] == x)
                return 0;
    } else {
        x = find_or_add(kind, name, len);
    }
    grow((void **)&x->subs, &x->cap, x->nsubs + 1, sizeof(*x->subs));
    x->subs[x->nsubs++] = c;
    grow((void **)&pc->nodes[kind], &pc->cap[kind], pc->n[kind] + 1, sizeof(*pc->nodes[kind]));
    pc->nodes[kind][pc->n[kind]++] = x;
    return 1;
}

int pubsub_unsubscribe(struct client *c, enum pubsub_kind kind, const char *name, size_t len)
{
    struct pubsub_client *pc = c->pubsub;
    if (!pc)
        return 0;
    for (size_t i = 0; i < pc->n[kind]; i++) {
        struct name_node *x = pc->nodes[kind][i];
        if (x->len == len && !memcmp(x->name, name, len)) {
            pc->nodes[kind][i] = pc->nodes[kind][--pc->n[kind]];
            remove_sub(kind, x, c);
            return 1;
        }
    }
    return 0;
}

size_t pubsub_client_count(const struct client *c, enum pubsub_kind kind)
{
    return c->pubsub ? c->pubsub->n[kind] : 0;
}

const char *pubsub_client_name(const struct client *c, enum pubsub_kind kind, size_t i,
                               size_t *len)
{
    const struct name_node *x = c->pubsub->nodes[kind][i];
    *len = x->len;
    return x->name;
}

size_t pubsub_client_total(const struct client *c)
{
    return pubsub_client_count(c, PUBSUB_CHANNEL) + pubsub_client_count(c, PUBSUB_PATTERN);
}

int pubsub_client_subscribed(const struct client *c)
{
    return pubsub_client_total(c) + pubsub_client_count(c, PUBSUB_SHARD) > 0;
}

void pubsub_client_gone(struct client *c)
{
    struct pubsub_client *pc = c->pubsub;
    if (c->flags & CLIENT_PUBSUB_PENDING) {
        for (size_t i = 0; i < npending; i++) {
            if (pending[i] == c) {
                pending[i] = pending[--npending];
                break;
            }
        }
        c->flags &= ~CLIENT_PUBSUB_PENDING;
    }
    if (!pc)
        return;
    for (int k = 0; k < PUBSUB_KINDS; k++) {
        for (size_t i = 0; i < pc->n[k]; i++)
            remove_sub((enum pubsub_kind)k, pc->nodes[k][i], c);
        xfree(pc->nodes[k]);
    }
    xfree(pc);
    c->pubsub = NULL;
}

/* ---- delivery ---- */

static void flush_cb(uv_check_t *h)
{
    (void)h;
    uv_check_stop(&flush_check);
    flush_on = 0;
    /* conn_send may close a client (a write error), which unlists it here:
     * take the list first. */
    while (npending) {
        struct client *c = pending[--npending];
        c->flags &= ~CLIENT_PUBSUB_PENDING;
        if (!(c->flags & CLIENT_CLOSING))
            conn_send(c);
    }
}

static void deliver(struct client *c, const char *kind_word, size_t kind_len,
                    const char *pattern, size_t plen, const char *channel, size_t clen,
                    const char *msg, size_t mlen)
{
    if (c->flags & CLIENT_CLOSING)
        return;
    size_t n = pattern ? 4 : 3;
    /* A message reaches a client whose replies are silenced (CLIENT REPLY
     * OFF), as Redis 7.0.15's CLIENT_PUSHING. */
    int muted = resp_out_unmute_begin(&c->out);
    if (c->out.proto == 3)
        resp_add_push_len(&c->out, n);
    else
        resp_add_array_len(&c->out, n);
    resp_add_bulk(&c->out, kind_word, kind_len);
    if (pattern)
        resp_add_bulk(&c->out, pattern, plen);
    resp_add_bulk(&c->out, channel, clen);
    resp_add_bulk(&c->out, msg, mlen);
    resp_out_unmute_end(&c->out, muted);
    if (conn_check_output_limits(c))
        return;
    if (!(c->flags & CLIENT_PUBSUB_PENDING)) {
        grow((void **)&pending, &pending_cap, npending + 1, sizeof(*pending));
        pending[npending++] = c;
        c->flags |= CLIENT_PUBSUB_PENDING;
    }
    if (!flush_on) {
        uv_check_start(&flush_check, flush_cb);
        flush_on = 1;
    }
}

long long pubsub_publish(enum pubsub_kind kind, const char *channel, size_t clen,
                         const char *msg, size_t mlen)
{
    long long receivers = 0;
    struct name_node *x = find(kind, channel, clen);
    if (x) {
        for (size_t i = 0; i < x->nsubs; i++) {
            if (kind == PUBSUB_SHARD)
                deliver(x->subs[i], "smessage", 8, NULL, 0, channel, clen, msg, mlen);
            else
                deliver(x->subs[i], "message", 7, NULL, 0, channel, clen, msg, mlen);
        }
        receivers += (long long)x->nsubs;
    }
    if (kind != PUBSUB_CHANNEL)
        return receivers;
    for (struct rb_node *n = rb_first(&trees[PUBSUB_PATTERN]); n; n = rb_next(n)) {
        struct name_node *p = rb_entry(n, struct name_node, node);
        if (!glob_match(p->name, p->len, channel, clen, 0))
            continue;
        for (size_t i = 0; i < p->nsubs; i++)
            deliver(p->subs[i], "pmessage", 8, p->name, p->len, channel, clen, msg, mlen);
        receivers += (long long)p->nsubs;
    }
    return receivers;
}

static pubsub_relay_fn *relay;

void pubsub_on_relay(pubsub_relay_fn *fn)
{
    relay = fn;
}

int pubsub_relay(enum pubsub_kind kind, const char *channel, size_t clen, const char *msg,
                 size_t mlen)
{
    if (!relay)
        return 0;
    relay(kind, channel, clen, msg, mlen);
    return 1;
}

/* ---- introspection ---- */

void pubsub_each_name(enum pubsub_kind kind, const char *pattern, size_t plen,
                      void (*fn)(void *ctx, const char *name, size_t len), void *ctx)
{
    for (struct rb_node *n = rb_first(&trees[kind]); n; n = rb_next(n)) {
        struct name_node *x = rb_entry(n, struct name_node, node);
        if (!pattern || glob_match(pattern, plen, x->name, x->len, 0))
            fn(ctx, x->name, x->len);
    }
}

size_t pubsub_subscribers(enum pubsub_kind kind, const char *name, size_t len)
{
    struct name_node *x = find(kind, name, len);
    return x ? x->nsubs : 0;
}

size_t pubsub_name_count(enum pubsub_kind kind)
{
    return tree_sizes[kind];
}

void pubsub_init(void)
{
    uv_check_init(server.loop, &flush_check);
    conn_on_gone(pubsub_client_gone);
    conn_on_subscriber_test(pubsub_client_subscribed);
}

void pubsub_close(void)
{
    if (flush_check.type == UV_CHECK && !uv_is_closing((uv_handle_t *)&flush_check))
        uv_close((uv_handle_t *)&flush_check, NULL);
    xfree(pending);
    pending = NULL;
    npending = pending_cap = 0;
}
