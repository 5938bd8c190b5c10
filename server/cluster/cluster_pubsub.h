/*
 * cluster_pubsub.h - pub/sub across the cluster (cluster_pubsub.c), as Redis
 * 7.0: PUBLISH on any node reaches the subscribers of every node over the
 * bus, SPUBLISH those of the slot's shard (its primary and replicas).
 */
#ifndef RBKV_CLUSTER_PUBSUB_H
#define RBKV_CLUSTER_PUBSUB_H

struct cluster_msg;
struct cluster_node;

/* At start: registers the relay with core's pub/sub (pubsub_on_relay). */
void cluster_pubsub_init(void);
/* A PUBLISH or PUBLISHSHARD m from sender (NULL: a node not known, or in
 * handshake, whose message is dropped as Redis drops it): delivered to
 * this node's subscribers. */
void cluster_pubsub_receive(const struct cluster_msg *m, const struct cluster_node *sender);

#endif
