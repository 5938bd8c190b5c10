/*
 * cluster_pubsub.c - pub/sub across the cluster (cluster_pubsub.h), after
 * Redis 7.0's clusterPropagatePublish(Shard) and the PUBLISH branch of
 * clusterProcessPacket.
 *
 * A message published here is delivered here by the command (core's
 * pubsub_publish), then handed to the relay below, which sends it on the
 * bus: PUBLISH to every node with a link, PUBLISHSHARD to the shard's other
 * nodes. A node that receives one delivers it to its own subscribers and
 * sends it nowhere else, so each node delivers a message once. In cluster
 * mode the relay replaces the replication stream's copy of PUBLISH (Redis's
 * publishCommand does not propagate it there then), so a replica does not
 * get it twice. PUBSUB NUMSUB and the reply's count stay this node's own.
 *
 * Owns nothing; reads the state (cluster.h), sends through cluster_send.h.
 */
#include "cluster_pubsub.h"

#include <stdint.h>

#include "cluster.h"
#include "cluster_msg.h"
#include "cluster_send.h"
#include "log.h"
#include "pubsub.h"

/* The bus takes no message longer than this (cluster_bus.c's BUS_MAX_MSG
 * on rbkv peers): a bigger one would close their links. */
#define RELAY_MAX ((size_t)256 << 20)

static void relay(enum pubsub_kind kind, const char *channel, size_t clen, const char *msg,
                  size_t mlen)
{
    if (!cluster)
        return;
    if (clen > RELAY_MAX || mlen > RELAY_MAX - clen) {
        log_warning("A published message of %zu bytes is too long for the cluster bus: "
                    "delivered on this node only",
                    clen + mlen);
        return;
    }
    uint16_t type = kind == PUBSUB_SHARD ? CLUSTER_MSG_PUBLISHSHARD : CLUSTER_MSG_PUBLISH;
    cluster_send_publish(type, channel, (uint32_t)clen, msg, (uint32_t)mlen);
}

void cluster_pubsub_init(void)
{
    pubsub_on_relay(relay);
}

void cluster_pubsub_receive(const struct cluster_msg *m, const struct cluster_node *sender)
{
    if (!sender)
        return;
    enum pubsub_kind kind =
        m->hdr.type == CLUSTER_MSG_PUBLISHSHARD ? PUBSUB_SHARD : PUBSUB_CHANNEL;
    pubsub_publish(kind, m->body.publish.channel, m->body.publish.channel_len,
                   m->body.publish.message, m->body.publish.message_len);
}
