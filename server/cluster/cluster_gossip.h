/*
 * cluster_gossip.h - what the bus's messages carry and what a node does on
 * receipt (cluster_gossip.c): MEET and the handshake, PING/PONG with their
 * gossip, slot ownership by config epoch, UPDATE, FAIL, and the cron that
 * keeps a link and a ping going to every node (Redis 7.0's clusterCron and
 * clusterProcessPacket; failover and pub/sub are handed on, modules ignored).
 */
#ifndef RBKV_CLUSTER_GOSSIP_H
#define RBKV_CLUSTER_GOSSIP_H

#include <stddef.h>

struct cluster_link;
struct cluster_msg;
struct cluster_node;

/* The bus's receiver (cluster_bus_listen). */
void cluster_gossip_receive(struct cluster_link *l, const struct cluster_msg *m);
/* Every cron tick; acts every 100 ms as Redis's clusterCron. */
void cluster_gossip_cron(void);
/* CLUSTER MEET: a node in handshake, under a random name, at ip (an IPv4 or
 * IPv6 address), port and cport, to be sent a MEET. Returns 0 (also when
 * such a handshake is already under way), -1 for a bad address or port. */
int cluster_gossip_meet(const char *ip, long long port, long long cport);
/* CLUSTER FORGET: the node named name (40 chars) is not taken back from
 * gossip for a minute, so the others have time to forget it too. */
void cluster_gossip_ban(const char *name);
/* CLUSTER INFO's message counters, Redis 7.0's lines
 * (cluster_stats_messages_<type>_sent ... cluster_stats_messages_received),
 * into buf[0..cap); returns the length written. */
size_t cluster_gossip_stats(char *buf, size_t cap);

#endif
