/*
 * cluster_qlink.h - the connections a cluster-wide ordered query asks the
 * primaries through (cluster_qlink.c): one pooled RESP connection per
 * node's client address, made on first use, kept while it works.
 *
 * Each connection opens with AUTH (masteruser/masterauth, when masterauth
 * is set, as a replica's link); what it sends is the caller's (cluster-wide
 * queries start each part with KLOCAL). Requests are pipelined; their
 * replies come back in order, each handed to the callback registered with
 * cluster_qlink_init with the tag it was sent with.
 */
#ifndef RBKV_CLUSTER_QLINK_H
#define RBKV_CLUSTER_QLINK_H

#include <stdint.h>

#include "resp_parser.h"
#include "resp_reply.h"

/* A reply to the request sent with tag: r, or r NULL and err the reason
 * the connection failed (the request then has no reply). r and its bytes
 * are borrowed for the call. */
typedef void cluster_qlink_reply_fn(uint64_t tag, const struct resp_reply *r, const char *err);

/* One command to send, and the tag its reply is handed over with. */
struct cluster_qlink_cmd {
    int argc;
    const struct resp_slice *argv;
    uint64_t tag;
};

/* Sends cmds[0..n) to the node at ip:port over its pooled connection, in
 * one write; each reply (or the connection's failure) reaches the callback
 * with its command's tag. Failing at once (a bad address, a refused write),
 * the callback is called before this returns. */
void cluster_qlink_send(const char *ip, int port, int n, const struct cluster_qlink_cmd *cmds);
/* Closes the connection to ip:port, if any: its requests fail ("closed"). */
void cluster_qlink_close(const char *ip, int port);
/* At start: the callback every reply goes to. */
void cluster_qlink_init(cluster_qlink_reply_fn *on_reply);
/* At shutdown: closes every connection (no callback is called). */
void cluster_qlink_close_all(void);

#endif
