/*
 * pubsub.h - publish/subscribe (prefix pubsub_): who listens to which
 * channel, shard channel or pattern, and the delivery of messages.
 *
 * Three kinds of subscription, each an ordered tree of names (so PUBSUB
 * CHANNELS lists in byte order) whose nodes hold their subscribers: channels
 * (SUBSCRIBE), shard channels (SSUBSCRIBE; on one node they behave as
 * channels of their own) and patterns (PSUBSCRIBE). A message to a channel
 * costs one tree lookup plus one glob match per distinct pattern.
 *
 * Delivery appends to each subscriber's output (RESP3: a push; RESP2: an
 * array) and sends once per loop turn for all of them, so a publisher never
 * waits for a subscriber; one that falls behind meets its output limit
 * (client-output-buffer-limit pubsub) and is closed.
 *
 * Owns: the trees, their nodes and each client's struct pubsub_client
 * (freed by pubsub_client_gone).
 */
#ifndef RBKV_PUBSUB_H
#define RBKV_PUBSUB_H

#include <stddef.h>

struct client;

enum pubsub_kind { PUBSUB_CHANNEL, PUBSUB_SHARD, PUBSUB_PATTERN, PUBSUB_KINDS };

/* At start: the flush handle, and the client-gone and subscriber hooks
 * (conn.h). */
void pubsub_init(void);
/* At shutdown: stops the flush handle. */
void pubsub_close(void);

/* c subscribes to name; returns 1 when it was not already. */
int pubsub_subscribe(struct client *c, enum pubsub_kind kind, const char *name, size_t len);
/* c unsubscribes from name; returns 1 when it was subscribed. */
int pubsub_unsubscribe(struct client *c, enum pubsub_kind kind, const char *name, size_t len);
/* c's subscriptions of a kind: how many, and the i-th name. */
size_t pubsub_client_count(const struct client *c, enum pubsub_kind kind);
const char *pubsub_client_name(const struct client *c, enum pubsub_kind kind, size_t i,
                               size_t *len);
/* Channels plus patterns (what SUBSCRIBE's replies count), as Redis. */
size_t pubsub_client_total(const struct client *c);
/* Whether c has any subscription: RESP2 subscribed mode, type pubsub. */
int pubsub_client_subscribed(const struct client *c);
/* c is being freed: drops every subscription. */
void pubsub_client_gone(struct client *c);

/* Delivers message to channel's subscribers and to the patterns matching
 * it (kind PUBSUB_CHANNEL), or to a shard channel's (PUBSUB_SHARD).
 * Returns how many clients got it. */
long long pubsub_publish(enum pubsub_kind kind, const char *channel, size_t clen,
                         const char *msg, size_t mlen);

/* Where a message published here goes beyond this node's subscribers:
 * cluster mode's bus (cluster/ registers it at start, as data/keyspace.h's
 * ks_on_change; core calls no subsystem). Unset, PUBLISH and SPUBLISH go to
 * the replicas through the replication stream. */
typedef void pubsub_relay_fn(enum pubsub_kind kind, const char *channel, size_t clen,
                             const char *msg, size_t mlen);
void pubsub_on_relay(pubsub_relay_fn *fn);
/* Hands a message PUBLISH (kind PUBSUB_CHANNEL) or SPUBLISH (PUBSUB_SHARD)
 * delivered here to the relay: returns 1, or 0 when none is registered
 * (the caller propagates the command to the replicas then). */
int pubsub_relay(enum pubsub_kind kind, const char *channel, size_t clen, const char *msg,
                 size_t mlen);

/* Names of a kind with at least one subscriber, in order, matching pattern
 * (NULL: all): calls fn for each. */
void pubsub_each_name(enum pubsub_kind kind, const char *pattern, size_t plen,
                      void (*fn)(void *ctx, const char *name, size_t len), void *ctx);
/* Subscribers of one name. */
size_t pubsub_subscribers(enum pubsub_kind kind, const char *name, size_t len);
/* Distinct names of a kind with subscribers (INFO pubsub_channels, NUMPAT). */
size_t pubsub_name_count(enum pubsub_kind kind);

#endif
