/*
 * cluster_failure.c - from PFAIL to FAIL and back (cluster_failure.h).
 *
 * Owns nothing: the reports are the nodes' (cluster.h); a node's FAIL is
 * told to the others by the caller (cluster_gossip.c).
 */
#include "cluster_failure.h"

#include "cluster.h"
#include "cluster_config.h"
#include "log.h"
#include "server.h"

/* Redis's CLUSTER_FAIL_REPORT_VALIDITY_MULT and CLUSTER_FAIL_UNDO_TIME_MULT. */
#define REPORT_VALIDITY_MULT 2
#define FAIL_UNDO_TIME_MULT 2

int cluster_failure_count(struct cluster_node *n, int64_t now)
{
    int64_t max_age = server.cfg.cluster_node_timeout * REPORT_VALIDITY_MULT;
    for (int i = 0; i < n->failure_reports;) {
        if (now - n->reports[i].time > max_age)
            n->reports[i] = n->reports[--n->failure_reports];
        else
            i++;
    }
    return n->failure_reports;
}

int cluster_failure_mark_if_needed(struct cluster_node *n, int64_t now)
{
    if (!(n->flags & CNODE_PFAIL) || (n->flags & CNODE_FAIL))
        return 0;
    int quorum = cluster->size / 2 + 1;
    int failures = cluster_failure_count(n, now);
    if (cluster->myself->flags & CNODE_MASTER)
        failures++;
    if (failures < quorum)
        return 0;
    log_notice("Marking node %.40s as failing (quorum reached).", n->name);
    n->flags = (n->flags & ~CNODE_PFAIL) | CNODE_FAIL;
    n->fail_time = now;
    cluster_changed(CLUSTER_TODO_SAVE);
    return 1;
}

void cluster_failure_clear_if_needed(struct cluster_node *n, int64_t now)
{
    if (!(n->flags & CNODE_FAIL))
        return;
    if ((n->flags & CNODE_SLAVE) || !n->numslots) {
        log_notice("Clear FAIL state for node %.40s: %s is reachable again.", n->name,
                   (n->flags & CNODE_SLAVE) ? "replica" : "master without slots");
    } else if (now - n->fail_time > server.cfg.cluster_node_timeout * FAIL_UNDO_TIME_MULT) {
        /* A primary with slots stays FAIL a while: time for a replica to
         * take its slots over, if one will. */
        log_notice("Clear FAIL state for node %.40s: is reachable again and nobody is serving "
                   "its slots after some time.",
                   n->name);
    } else {
        return;
    }
    n->flags &= ~CNODE_FAIL;
    cluster_changed(CLUSTER_TODO_SAVE);
}
