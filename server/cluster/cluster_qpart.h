/*
 * cluster_qpart.h - what the cluster-wide ordered queries (cluster_query.c)
 * and the cluster-wide KSPLIT (cluster_ksplit.c) share about their parts
 * (cluster_qpart.c): which primaries are asked, and a node's reply kept
 * after its link's buffer moves on.
 */
#ifndef RBKV_CLUSTER_QPART_H
#define RBKV_CLUSTER_QPART_H

#include <stddef.h>

#include <stdint.h>

#include "blocking.h"
#include "cluster.h"
#include "cluster_qlink.h"
#include "resp_reply.h"

/* A node asked for a part: its client address. */
struct cq_addr {
    char ip[CLUSTER_IPLEN];
    int port;
};

/* The primaries a cluster-wide query asks, this node included: every node
 * flagged master with an address, and either slots or no failure flag (a
 * primary without slots may be importing one). Returns how many; *out is
 * the caller's to xfree (NULL when none). */
int cq_primaries(struct cq_addr **out);

/* Nonzero inside on_timeout (which a timer or CLIENT UNBLOCK calls) or a
 * handler's sends: the queries a failing link ends there are released, and
 * their clients' next requests run after (the timer's own
 * block_run_unblocked, or the one after the running client's requests),
 * never nested in it. Shared by every cluster-wide query, as one link
 * failing ends the queries of both kinds. */
extern int cq_hold_runs;

/* Whether c waits, through on_timeout, for the query numbered id (else
 * CLIENT UNBLOCK or a timeout ended that wait, and its reply goes nowhere). */
int cq_waits_for(const struct client *c, block_timeout_fn *on_timeout, uint64_t id);
/* A query's wait passed cluster-node-timeout (or CLIENT UNBLOCK ended it)
 * while the node at ip:port had not answered: its error to c, and that
 * node's link closed (it may be stopped: what it sends later belongs to
 * nobody). The caller has freed its query first. */
void cq_timed_out(struct client *c, const char *ip, int port);
/* Ends c's wait, whose reply was written; its next requests run now unless
 * cq_hold_runs. */
void cq_release(struct client *c);
/* Hands a link's reply to fn with cq_hold_runs set, then, unless it was
 * set already, runs the requests of the clients whose waits ended
 * meanwhile: a reply's handling may send, and a send may fail other
 * queries' links at once, whose clients' requests must not run while the
 * query is still being read. */
void cq_held_reply(cluster_qlink_reply_fn *fn, uint64_t tag, const struct resp_reply *r,
                   const char *err);

/* A reply kept: an error's or a status's text, an integer, or an array's
 * elements (their bytes in one block). Zeroed: nothing kept yet. */
struct cq_kept {
    int got;
    enum resp_reply_type type;
    long long integer;
    char *bytes; /* owned: the text, or the elements' bytes */
    size_t n;
    struct resp_reply_elem *elems; /* owned; into bytes */
};

/* Copies r into k (zeroed or cleared); r stays the caller's. */
void cq_keep(struct cq_kept *k, const struct resp_reply *r);
/* Frees what k holds and zeroes it. */
void cq_kept_clear(struct cq_kept *k);

/* Byte order of keys, a proper prefix first: <0, 0, >0. */
int cq_key_cmp(const struct resp_reply_elem *a, const struct resp_reply_elem *b);

#endif
