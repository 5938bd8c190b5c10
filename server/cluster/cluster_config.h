/*
 * cluster_config.h - nodes.conf (cluster_config.c): Redis 7.0's file of the
 * cluster's state as this node sees it, one CLUSTER NODES line per node and
 * a "vars currentEpoch N lastVoteEpoch M" line, locked while the server
 * runs, rewritten whole and atomically on every change.
 *
 * Owns: the lock's descriptor (held until exit, as Redis holds it), the
 * spare file's (<path>.spare, removed at shutdown) and the text it builds;
 * reads and changes cluster.h's state only through its functions.
 */
#ifndef RBKV_CLUSTER_CONFIG_H
#define RBKV_CLUSTER_CONFIG_H

#include <stddef.h>
#include <stdio.h>

struct cluster_node;

/* Writes n's CLUSTER NODES line (with '\n'): id, ip:port@cport[,hostname],
 * flags, primary, ping-sent, pong-recv, config-epoch, link-state, slots,
 * and for myself the [slot->-id] / [slot-<-id] of open slots. port is the
 * plaintext port when use_pport and n has one (a plaintext client of a
 * tls-cluster node, as Redis 7.0), else n's port (nodes.conf's). */
void cluster_describe_node(FILE *f, const struct cluster_node *n, int use_pport);
/* Every node's line but those flagged skip (CNODE_ bits), as a text the
 * caller frees with free() (open_memstream's); *len its length. NULL when
 * out of memory. */
char *cluster_describe_nodes(unsigned skip, int use_pport, size_t *len);

/* Takes an exclusive flock on path (created if missing); -1 logged when
 * another process holds it or it cannot be opened. */
int cluster_config_lock(const char *path);
/* At shutdown: lets the lock go. */
void cluster_config_unlock(void);
/* Loads path into the (empty) state. Returns 1 when loaded, 0 when there
 * is no file or it is empty (a new node), -1 after logging which line is
 * wrong. */
int cluster_config_load(const char *path);
/* Writes the state to path: into the spare beside it (<path>.spare, the
 * version before last, rewritten in place), renamed over path, the old
 * version becoming the spare; with do_fsync the file is fsynced before the
 * rename and the folder after it. Returns 0, or -1 logged. */
int cluster_config_save(const char *path, int do_fsync);

/* After a change of the state: recomputes the cluster's ok/fail, and with
 * CLUSTER_TODO_SAVE in todo rewrites nodes.conf at once, fsynced when
 * CLUSTER_TODO_FSYNC is in todo or was set in cluster->todo since the last
 * save (cluster.h says where); a node that cannot
 * record what it promised exits, as Redis's clusterSaveConfigOrDie. */
void cluster_changed(unsigned todo);

#endif
