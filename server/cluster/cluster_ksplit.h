/*
 * cluster_ksplit.h - KSPLIT answered for the whole cluster (cluster_ksplit.c;
 * docs/cluster.md, "KSPLIT across the cluster").
 *
 * KSPLIT n [min max | PREFIX p] sent to a node in cluster mode, unless its
 * span lies in one {hash tag} (then the slot's node answers it), gives the
 * keys one node holding every key of the cluster would give: those at the
 * span's positions floor(i * c / n). They are found by distributed selection
 * over the primaries' order statistics, in rounds over the same pooled
 * links as the other cluster-wide queries (cluster_qlink.h), while the
 * client waits as a blocked client does.
 */
#ifndef RBKV_CLUSTER_KSPLIT_H
#define RBKV_CLUSTER_KSPLIT_H

#include <stdint.h>

#include "resp_reply.h"

struct client;

/* The tags of KSPLIT's requests have this bit set; the other cluster-wide
 * queries' never do. */
#define CLUSTER_KSPLIT_TAG (1ULL << 63)

/* Takes c's KSPLIT parts (>= 1) over the span its arguments give, already
 * checked by the handler: c then waits until the reply or an error, or is
 * answered at once (an error, or no split key to find). Returns 1. */
int cluster_ksplit_start(struct client *c, long long parts);

/* The reply to a request sent with tag, or err (the link failed): returns
 * 0 when tag is not KSPLIT's, else 1 (handled; dropped when its query is
 * gone). */
int cluster_ksplit_reply(uint64_t tag, const struct resp_reply *r, const char *err);

/* At start in cluster mode: the client hook. */
void cluster_ksplit_init(void);

#endif
