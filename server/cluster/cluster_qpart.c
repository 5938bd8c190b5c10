/*
 * cluster_qpart.c - the primaries a cluster-wide query asks, and the
 * replies it keeps (cluster_qpart.h).
 *
 * Owns nothing beyond what each call returns: the address list is the
 * caller's, a kept reply's bytes are the struct cq_kept's.
 */
#include "cluster_qpart.h"

#include <stdio.h>
#include <string.h>

#include "client.h"
#include "config.h"
#include "mem.h"
#include "resp_writer.h"
#include "server.h"

int cq_hold_runs;

int cq_waits_for(const struct client *c, block_timeout_fn *on_timeout, uint64_t id)
{
    const uint64_t *waited = block_waiting_for(c, on_timeout);
    return waited && *waited == id;
}

void cq_held_reply(cluster_qlink_reply_fn *fn, uint64_t tag, const struct resp_reply *r,
                   const char *err)
{
    int held = cq_hold_runs;
    cq_hold_runs = 1;
    fn(tag, r, err);
    cq_hold_runs = held;
    if (!held)
        block_run_unblocked();
}

void cq_timed_out(struct client *c, const char *ip, int port)
{
    resp_add_errorf(&c->out,
                    "CLUSTERDOWN cluster-wide query: node %s:%d did not answer within %lld ms",
                    ip, port, server.cfg.cluster_node_timeout);
    int held = cq_hold_runs;
    cq_hold_runs = 1;
    cluster_qlink_close(ip, port);
    cq_hold_runs = held;
}

void cq_release(struct client *c)
{
    block_release(c);
    if (!cq_hold_runs)
        block_run_unblocked();
}

/* Whether n is asked for a part: a primary with an address, and either
 * slots to answer for or no failure flag (it may be importing). */
static int asked(const struct cluster_node *n)
{
    if (!(n->flags & CNODE_MASTER) || (n->flags & (CNODE_HANDSHAKE | CNODE_NOADDR)) || !n->ip[0])
        return 0;
    return n->numslots > 0 || !(n->flags & (CNODE_PFAIL | CNODE_FAIL));
}

int cq_primaries(struct cq_addr **out)
{
    int n = 0;
    *out = NULL;
    if (cluster->node_count == 0)
        return 0;
    struct cq_addr *a = xmalloc((size_t)cluster->node_count * sizeof(*a));
    for (int i = 0; i < cluster->node_count; i++) {
        const struct cluster_node *node = cluster->nodes[i];
        const char *ip = NULL;
        /* Myself before any peer has told it its address: loopback. */
        if (node == cluster->myself && !node->ip[0] && (node->flags & CNODE_MASTER))
            ip = "127.0.0.1";
        else if (asked(node))
            ip = node->ip;
        if (!ip)
            continue;
        snprintf(a[n].ip, sizeof(a[n].ip), "%s", ip);
        a[n++].port = node->port;
    }
    *out = a;
    return n;
}

void cq_kept_clear(struct cq_kept *k)
{
    xfree(k->bytes);
    xfree(k->elems);
    memset(k, 0, sizeof(*k));
}

void cq_keep(struct cq_kept *k, const struct resp_reply *r)
{
    k->got = 1;
    k->type = r->type;
    k->integer = r->integer;
    if (r->type == RESP_REPLY_ERROR || r->type == RESP_REPLY_STATUS) {
        k->bytes = xmemdup(r->str.ptr, r->str.len);
        return;
    }
    if (r->type != RESP_REPLY_ARRAY || r->n == 0)
        return;
    size_t total = 0;
    for (size_t i = 0; i < r->n; i++)
        total += r->elems[i].len;
    k->bytes = xmalloc(total ? total : 1);
    k->elems = xmalloc(r->n * sizeof(*k->elems));
    k->n = r->n;
    size_t at = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (!r->elems[i].ptr) {
            k->elems[i] = (struct resp_reply_elem){NULL, 0};
            continue;
        }
        memcpy(k->bytes + at, r->elems[i].ptr, r->elems[i].len);
        k->elems[i] = (struct resp_reply_elem){k->bytes + at, r->elems[i].len};
        at += r->elems[i].len;
    }
}

int cq_key_cmp(const struct resp_reply_elem *a, const struct resp_reply_elem *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int d = n ? memcmp(a->ptr, b->ptr, n) : 0;
    if (d)
        return d;
    return a->len < b->len ? -1 : a->len > b->len;
}
