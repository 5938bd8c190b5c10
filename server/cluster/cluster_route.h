/*
 * cluster_route.h - redirection (cluster_route.c): where a request's keys
 * live, as Redis 7.0's getNodeByQuery and clusterRedirectClient, through
 * the dispatcher's route hook (command.h, struct command_route).
 *
 * Reads cluster.h's state and the keyspace (whether a key of an open slot
 * is here); owns nothing.
 */
#ifndef RBKV_CLUSTER_ROUTE_H
#define RBKV_CLUSTER_ROUTE_H

/* Registers the route hook with the dispatcher (cluster_init). */
void cluster_route_init(void);
/* Every cron tick: a client blocked on keys (BLPOP, BZPOPMIN, XREAD...)
 * whose slot is no longer served here, or while the cluster is down, gets
 * -MOVED or -CLUSTERDOWN and its wait ends (Redis 7.0's
 * clusterRedirectBlockedClientIfNeeded). */
void cluster_route_blocked(void);

/* The endpoint a redirection or CLUSTER SLOTS names for a node, by
 * cluster-preferred-endpoint-type: its ip, its hostname ("?" when it has
 * none), or "" for unknown-endpoint. */
struct cluster_node;
const char *cluster_preferred_endpoint(const struct cluster_node *n);
/* The client port a reply names for n (-MOVED, -ASK, CLUSTER SLOTS and
 * NODES): with tls-cluster yes, n's TLS port, or its plaintext port (when
 * known) for a plaintext client (Redis 7.0's use_pport). */
int cluster_client_port(const struct cluster_node *n, int plaintext_client);

#endif
