/*
 * cluster_send.h - the messages this node sends on the bus (cluster_send.c),
 * each with the header Redis 7.0 builds: the sender's slots at its config
 * epoch (a replica's: its primary's), epochs, replication offset, flags.
 */
#ifndef RBKV_CLUSTER_SEND_H
#define RBKV_CLUSTER_SEND_H

#include <stdint.h>

struct cluster_link;
struct cluster_node;

/* Node flags between cluster.h's CNODE_ bits and Redis's CLUSTER_NODE_*
 * values, which travel on the wire. */
uint16_t cluster_send_flags_to_wire(unsigned flags);
unsigned cluster_send_flags_from_wire(uint16_t wire);
/* Redis's clusterSendPing: PING, PONG or MEET (type) on l, with gossip on a
 * few random nodes (a tenth, at least 3) and every PFAIL one. */
void cluster_send_ping(struct cluster_link *l, uint16_t type);
/* FAIL about n to every node with a link (Redis's clusterSendFail). */
void cluster_send_fail(const struct cluster_node *n);
/* UPDATE on l (nothing when NULL): owner serves its slots at its config
 * epoch (Redis's clusterSendUpdate). */
void cluster_send_update(struct cluster_link *l, const struct cluster_node *owner);
/* A header-only message of type on l (nothing when NULL): FAILOVER_AUTH_ACK,
 * MFSTART. */
void cluster_send_bare(struct cluster_link *l, uint16_t type);
/* A header-only message of type, with mflags0 or-ed into mflags[0], to every
 * node with a link (FAILOVER_AUTH_REQUEST). */
void cluster_send_broadcast_bare(uint16_t type, uint8_t mflags0);
/* PUBLISH (type) with channel and message to every node with a link, or
 * PUBLISHSHARD to the other nodes of this node's shard: its primary and
 * the primary's replicas. */
void cluster_send_publish(uint16_t type, const char *channel, uint32_t channel_len,
                          const char *message, uint32_t message_len);
/* PONG to every node with a link, or (local_replicas) only to the replicas
 * of this node's shard (Redis's clusterBroadcastPong). */
void cluster_send_broadcast_pong(int local_replicas);
/* Messages of type sent since start. */
unsigned long long cluster_send_count(uint16_t type);

#endif
