/*
 * cluster_send.c - the messages this node sends on the bus (cluster_send.h):
 * the header every message starts with (Redis 7.0's clusterBuildMessageHdr),
 * PING/PONG/MEET with their gossip, FAIL, UPDATE, PUBLISH/PUBLISHSHARD,
 * and the header-only messages of failover; and how many of each type went
 * out.
 *
 * Owns: the sent-message counters. Reads the state (cluster.h), writes
 * through the bus's links (cluster_bus.h); decides nothing: what to send
 * and when is cluster_gossip.c's and cluster_failover.c's.
 */
#include "cluster_send.h"

#include <string.h>

#include "clock.h"
#include "cluster.h"
#include "cluster_bus.h"
#include "cluster_msg.h"
#include "fastrand.h"
#include "mem.h"
#include "repl_stream.h"
#include "server.h"

#define GOSSIP_MIN 3

static unsigned long long sent[CLUSTER_MSG_TYPE_COUNT];

unsigned long long cluster_send_count(uint16_t type)
{
    return type < CLUSTER_MSG_TYPE_COUNT ? sent[type] : 0;
}

/* Node flags on the wire are Redis's CLUSTER_NODE_* values, which are not
 * cluster.h's bits. */
static const unsigned wire_flags[][2] = {
    {CNODE_MASTER, 1},     {CNODE_SLAVE, 2},   {CNODE_PFAIL, 4},   {CNODE_FAIL, 8},
    {CNODE_MYSELF, 16},    {CNODE_HANDSHAKE, 32}, {CNODE_NOADDR, 64}, {CNODE_MEET, 128},
    {CNODE_NOFAILOVER, 512},
};
#define WIRE_FLAGS (sizeof(wire_flags) / sizeof(wire_flags[0]))

uint16_t cluster_send_flags_to_wire(unsigned flags)
{
    unsigned wire = 0;
    for (size_t i = 0; i < WIRE_FLAGS; i++)
        if (flags & wire_flags[i][0])
            wire |= wire_flags[i][1];
    return (uint16_t)wire;
}

unsigned cluster_send_flags_from_wire(uint16_t wire)
{
    unsigned flags = 0;
    for (size_t i = 0; i < WIRE_FLAGS; i++)
        if (wire & wire_flags[i][1])
            flags |= wire_flags[i][0];
    return flags;
}

/* Redis's clusterBuildMessageHdr. */
static void build_header(struct cluster_msg_hdr *h, uint16_t type)
{
    struct cluster_node *me = cluster->myself;
    struct cluster_node *owner = cluster_node_owner(me);
    memset(h, 0, sizeof(*h));
    h->ver = CLUSTER_MSG_VERSION;
    h->type = type;
    memcpy(h->sender, me->name, CLUSTER_NAMELEN);
    if (server.cfg.cluster_announce_ip)
        strncpy(h->myip, server.cfg.cluster_announce_ip, CLUSTER_MSG_IPLEN - 1);
    for (int s = 0; owner->numslots && s < CLUSTER_SLOTS; s++)
        if (cluster->slots[s] == owner)
            h->myslots[s / 8] |= (unsigned char)(1u << (s & 7));
    if (owner != me)
        memcpy(h->slaveof, owner->name, CLUSTER_NAMELEN);
    h->port = (uint16_t)me->port;
    h->pport = (uint16_t)me->pport;
    h->cport = (uint16_t)me->cport;
    h->flags = cluster_send_flags_to_wire(me->flags);
    h->state = (uint8_t)cluster->state;
    h->current_epoch = cluster->current_epoch;
    h->config_epoch = owner->config_epoch;
    h->offset = (uint64_t)repl.offset;
    /* A primary paused for its replica's manual failover says so: its
     * offset is then final (Redis's CLUSTERMSG_FLAG0_PAUSED). */
    if ((me->flags & CNODE_MASTER) && cluster->mf_end)
        h->mflags[0] |= CLUSTER_MSG_FLAG0_PAUSED;
}

static void send_bytes(struct cluster_link *l, uint16_t type, const void *p, size_t len)
{
    cluster_link_send(l, p, len);
    if (type < CLUSTER_MSG_TYPE_COUNT)
        sent[type]++;
}

static void gossip_entry(struct cluster_msg_gossip *g, const struct cluster_node *n)
{
    memset(g, 0, sizeof(*g));
    memcpy(g->nodename, n->name, CLUSTER_NAMELEN);
    g->ping_sent = (uint32_t)(n->ping_sent / 1000);
    g->pong_received = (uint32_t)(n->pong_received / 1000);
    memcpy(g->ip, n->ip, sizeof(n->ip));
    g->port = (uint16_t)n->port;
    g->pport = (uint16_t)n->pport;
    g->cport = (uint16_t)n->cport;
    g->flags = cluster_send_flags_to_wire(n->flags);
}

static int listed(const struct cluster_msg_gossip *g, int count, const struct cluster_node *n)
{
    for (int i = 0; i < count; i++)
        if (!memcmp(g[i].nodename, n->name, CLUSTER_NAMELEN))
            return 1;
    return 0;
}

/* Redis's clusterSendPing: PING, PONG or MEET with gossip on a few random
 * nodes (a tenth, at least 3, as many as there are) and every PFAIL one. */
void cluster_send_ping(struct cluster_link *l, uint16_t type)
{
    int64_t now = mstime();
    int freshnodes = cluster->node_count - 2;
    int wanted = cluster->node_count / 10;
    if (wanted < GOSSIP_MIN)
        wanted = GOSSIP_MIN;
    if (wanted > freshnodes)
        wanted = freshnodes;
    int pfail_wanted = 0;
    for (int i = 0; i < cluster->node_count; i++)
        pfail_wanted += (cluster->nodes[i]->flags & CNODE_PFAIL) != 0;
    struct cluster_node *peer = cluster_link_node(l);
    if (peer && type == CLUSTER_MSG_PING)
        peer->ping_sent = now;
    int cap = (wanted > 0 ? wanted : 0) + pfail_wanted;
    struct cluster_msg_gossip *g = xcalloc((size_t)(cap ? cap : 1), sizeof(*g));
    int count = 0;
    for (int tries = wanted * 3; freshnodes > 0 && count < wanted && tries > 0; tries--) {
        struct cluster_node *n = cluster->nodes[fastrand_below((uint64_t)cluster->node_count)];
        if (n == cluster->myself || (n->flags & (CNODE_PFAIL | CNODE_HANDSHAKE | CNODE_NOADDR)))
            continue;
        /* A node long out of reach that serves nothing is not worth the
         * others' time (Redis skips it too). */
        if (!n->link && !n->numslots)
            continue;
        if (listed(g, count, n))
            continue;
        gossip_entry(&g[count++], n);
        freshnodes--;
    }
    for (int i = 0; i < cluster->node_count && count < cap; i++) {
        struct cluster_node *n = cluster->nodes[i];
        if ((n->flags & CNODE_PFAIL) && !(n->flags & (CNODE_HANDSHAKE | CNODE_NOADDR)))
            gossip_entry(&g[count++], n);
    }
    struct cluster_msg_hdr h;
    build_header(&h, type);
    const char *host = cluster->myself->hostname;
    size_t host_len = host ? strlen(host) : 0;
    size_t len = cluster_msg_len_ping((uint16_t)count, host_len);
    unsigned char *buf = xmalloc(len);
    cluster_msg_encode_ping(buf, &h, g, (uint16_t)count, host, host_len);
    send_bytes(l, type, buf, len);
    xfree(buf);
    xfree(g);
}

/* Redis's clusterBroadcastMessage's targets: every node with a link, not
 * in handshake. */
static void broadcast(uint16_t type, const void *p, size_t len)
{
    for (int i = 0; i < cluster->node_count; i++) {
        struct cluster_node *n = cluster->nodes[i];
        if (n->link && !(n->flags & (CNODE_MYSELF | CNODE_HANDSHAKE)))
            send_bytes(n->link, type, p, len);
    }
}

void cluster_send_fail(const struct cluster_node *n)
{
    struct cluster_msg_hdr h;
    build_header(&h, CLUSTER_MSG_FAIL);
    unsigned char buf[CLUSTER_MSG_LEN_FAIL];
    cluster_msg_encode_fail(buf, &h, n->name);
    broadcast(CLUSTER_MSG_FAIL, buf, sizeof(buf));
}

/* Tells the node on l that owner serves its slots at owner's config epoch
 * (Redis's clusterSendUpdate). */
void cluster_send_update(struct cluster_link *l, const struct cluster_node *owner)
{
    if (!l)
        return;
    unsigned char slots[CLUSTER_MSG_SLOT_BYTES] = {0};
    for (int s = 0; s < CLUSTER_SLOTS; s++)
        if (cluster->slots[s] == owner)
            slots[s / 8] |= (unsigned char)(1u << (s & 7));
    struct cluster_msg_hdr h;
    build_header(&h, CLUSTER_MSG_UPDATE);
    unsigned char *buf = xmalloc(CLUSTER_MSG_LEN_UPDATE);
    cluster_msg_encode_update(buf, &h, owner->config_epoch, owner->name, slots);
    send_bytes(l, CLUSTER_MSG_UPDATE, buf, CLUSTER_MSG_LEN_UPDATE);
    xfree(buf);
}

/* A message of the header alone. */
static void encode_bare(unsigned char *buf, uint16_t type, uint8_t mflags0)
{
    struct cluster_msg_hdr h;
    build_header(&h, type);
    h.mflags[0] |= mflags0;
    cluster_msg_encode_bare(buf, &h);
}

void cluster_send_bare(struct cluster_link *l, uint16_t type)
{
    if (!l)
        return;
    unsigned char *buf = xmalloc(CLUSTER_MSG_HEADER_LEN);
    encode_bare(buf, type, 0);
    send_bytes(l, type, buf, CLUSTER_MSG_HEADER_LEN);
    xfree(buf);
}

void cluster_send_broadcast_bare(uint16_t type, uint8_t mflags0)
{
    unsigned char *buf = xmalloc(CLUSTER_MSG_HEADER_LEN);
    encode_bare(buf, type, mflags0);
    broadcast(type, buf, CLUSTER_MSG_HEADER_LEN);
    xfree(buf);
}

/* Redis's clusterPropagatePublish and clusterPropagatePublishShard: PUBLISH
 * to every node with a link, PUBLISHSHARD to the nodes of this node's shard
 * (its primary and that primary's replicas; Redis's
 * clusterGetNodesServingMySlots), myself excepted. */
void cluster_send_publish(uint16_t type, const char *channel, uint32_t channel_len,
                          const char *message, uint32_t message_len)
{
    struct cluster_msg_hdr h;
    build_header(&h, type);
    size_t len = cluster_msg_len_publish(channel_len, message_len);
    unsigned char *buf = xmalloc(len);
    cluster_msg_encode_publish(buf, &h, channel, channel_len, message, message_len);
    if (type == CLUSTER_MSG_PUBLISH) {
        broadcast(type, buf, len);
    } else {
        struct cluster_node *owner = cluster_node_owner(cluster->myself);
        for (int i = 0; i < cluster->node_count; i++) {
            struct cluster_node *n = cluster->nodes[i];
            if (n == cluster->myself || !n->link || (n != owner && n->primary != owner))
                continue;
            send_bytes(n->link, type, buf, len);
        }
    }
    xfree(buf);
}

void cluster_send_broadcast_pong(int local_replicas)
{
    struct cluster_node *owner = cluster_node_owner(cluster->myself);
    for (int i = 0; i < cluster->node_count; i++) {
        struct cluster_node *n = cluster->nodes[i];
        if (!n->link || (n->flags & (CNODE_MYSELF | CNODE_HANDSHAKE)))
            continue;
        if (local_replicas && !((n->flags & CNODE_SLAVE) && n->primary == owner))
            continue;
        cluster_send_ping(n->link, CLUSTER_MSG_PONG);
    }
}
