/*
 * cluster_failure.h - failure detection (cluster_failure.c), Redis 7.0's
 * rules: a node not answering a PING within the node timeout is PFAIL in
 * this node's eyes; primaries' reports of PFAIL or FAIL, carried by gossip,
 * expire after twice the node timeout; a majority of the slot-serving
 * primaries' word (this node's own included when a primary) turns PFAIL
 * into FAIL, broadcast to all; a node back is cleared of FAIL at once when
 * a replica or serving no slot, else after twice the node timeout.
 */
#ifndef RBKV_CLUSTER_FAILURE_H
#define RBKV_CLUSTER_FAILURE_H

#include <stdint.h>

struct cluster_node;

/* The unexpired failure reports on n (expired ones dropped). */
int cluster_failure_count(struct cluster_node *n, int64_t now);
/* After a report on n: FAIL when the majority is reached (saved). Returns
 * 1 when n just became FAIL: the caller tells every node (a FAIL message). */
int cluster_failure_mark_if_needed(struct cluster_node *n, int64_t now);
/* n answered: clears FAIL when Redis's rule allows (saved). */
void cluster_failure_clear_if_needed(struct cluster_node *n, int64_t now);

#endif
