/*
 * cluster_failover.h - roles and failover in cluster mode
 * (cluster_failover.c), after Redis 7.0's cluster.c: a node turned replica
 * of a primary (CLUSTER REPLICATE, or a primary that lost its last slot),
 * the replica's election when its primary fails (delays, rank, validity,
 * FAILOVER_AUTH_REQUEST), the primaries' votes (FAILOVER_AUTH_ACK), the
 * winner taking its primary's slots, and manual failover (CLUSTER FAILOVER
 * [FORCE|TAKEOVER], MFSTART).
 */
#ifndef RBKV_CLUSTER_FAILOVER_H
#define RBKV_CLUSTER_FAILOVER_H

struct cluster_link;
struct cluster_msg_hdr;
struct cluster_node;

/* Redis's clusterSetMaster: myself becomes a replica of primary (open slots
 * closed, a manual failover given up) and replicates from it. The caller
 * saves (cluster_changed). */
void cluster_failover_replicate(struct cluster_node *primary);
/* Myself becomes a primary and stops replicating (REPLICAOF NO ONE); its
 * data stays. */
void cluster_failover_unset_primary(void);
/* Redis's resetManualFailover: no manual failover any more; a primary
 * paused for one resumes. */
void cluster_failover_reset_manual(void);

/* What the bus received from sender (known, not in handshake; h its
 * header), after the header's epochs and offset were taken:
 * FAILOVER_AUTH_REQUEST: a primary votes for sender if Redis's rules allow. */
void cluster_failover_auth_request(struct cluster_node *sender, const struct cluster_msg_hdr *h);
/* FAILOVER_AUTH_ACK: a vote for this replica's election. */
void cluster_failover_auth_ack(struct cluster_node *sender, const struct cluster_msg_hdr *h);
/* MFSTART on l: sender, our replica, asks for a manual failover; writes are
 * paused and our offset sent. */
void cluster_failover_mfstart(struct cluster_link *l, struct cluster_node *sender);
/* Any message: a paused primary's offset ends a manual failover's wait. */
void cluster_failover_heard(struct cluster_node *sender, const struct cluster_msg_hdr *h);

/* CLUSTER FAILOVER [FORCE|TAKEOVER]: 0, or -1 with *err set to Redis's text
 * (without "ERR "). */
int cluster_failover_manual(int force, int takeover, const char **err);

/* Every cron tick: a replica keeps replicating from its primary, runs its
 * manual failover and its election; a manual failover times out; a paused
 * primary keeps its replica told of its offset. */
void cluster_failover_cron(void);

#endif
