/*
 * cluster_query.h - ordered queries answered for the whole cluster
 * (cluster_query.c; docs/cluster.md, "Ordered queries across the cluster").
 *
 * KRANGE, KPREFIX, KCOUNT, KRANK/KREVRANK, KFIRST/KLAST, KNEXT/KPREV and
 * KSPLIT (cluster_ksplit.h, which this hands it to) sent to a node in
 * cluster mode are answered for every primary's keys,
 * unless their bounds share a complete {hash tag} (one slot: routed and
 * answered as any keyed command) or the connection said KLOCAL (it is one
 * part of such a query). The handler (commands/cmd_ordered.c) parses and
 * checks its arguments as on one node, then hands the request over here.
 */
#ifndef RBKV_CLUSTER_QUERY_H
#define RBKV_CLUSTER_QUERY_H

#include "resp_parser.h"

struct client;

/* Where an ordered command's request is answered. */
enum cluster_query_scope {
    CQ_SCOPE_NONE,    /* not an ordered query, or not in cluster mode */
    CQ_SCOPE_LOCAL,   /* a part (KLOCAL): this node's keys */
    CQ_SCOPE_SLOT,    /* bounds within one {hash tag}: that slot's node */
    CQ_SCOPE_CLUSTER, /* every primary's keys */
};

/* The scope of the request in argv[0..argc) from c; CQ_SCOPE_SLOT sets
 * *tagged to a slice whose hash slot is the range's (borrowed from argv). */
enum cluster_query_scope cluster_query_scope(const struct client *c, int argc,
                                             const struct resp_slice *argv,
                                             struct resp_slice *tagged);

/* What the merge must do with the parts, from the handler's parsing. */
enum cluster_query_kind {
    CQ_LIST,    /* KRANGE BYLEX, KPREFIX: by key order, with LIMIT */
    CQ_RANKS,   /* KRANGE start stop: by rank */
    CQ_NEAREST, /* KFIRST, KLAST, KNEXT, KPREV: the count nearest */
    CQ_COUNT,   /* KCOUNT: a sum */
    CQ_RANK,    /* KRANK (rev 0), KREVRANK (rev 1): a sum, or nil */
    CQ_SPLIT,   /* KSPLIT n: by selection (cluster_ksplit.h), n in count */
};

struct cluster_query {
    enum cluster_query_kind kind;
    int rev, withvalues, typed;
    long long offset, count; /* CQ_LIST: LIMIT's (count < 0: all); CQ_NEAREST: count;
                              * CQ_SPLIT: the number of parts */
    int limit_at;            /* CQ_LIST: argv index of LIMIT's offset, 0 when none */
    long long start, stop;   /* CQ_RANKS */
};

/* Returns 0 when c's request is answered here by its handler, or 1 when
 * it was taken over: fanned out to every primary (c then waits as a
 * blocked client until the merged reply or an error), or refused with a
 * reply. */
int cluster_query_takes(struct client *c, const struct cluster_query *s);

/* How many slots this node imports now (KLOCAL's reply). */
long long cluster_query_importing(void);

/* At start in cluster mode: the links' callback, the client hooks. */
void cluster_query_init(void);

#endif
