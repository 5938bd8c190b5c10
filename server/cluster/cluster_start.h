/*
 * cluster_start.h - the start of cluster mode (cluster_start.c).
 */
#ifndef RBKV_CLUSTER_START_H
#define RBKV_CLUSTER_START_H

/* At start, when cluster-enabled, before the dataset loads: locks and
 * loads nodes.conf (or makes a new node and writes it), refreshes what
 * myself announces, registers redirection with the dispatcher and the
 * cron. Returns 0, or -1 after logging why (the start fails). */
int cluster_init(void);

#endif
