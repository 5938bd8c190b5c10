/*
 * cluster.c - cluster mode's state (cluster.h): the nodes, the slot map,
 * the epochs and the cluster's ok/fail.
 *
 * Every change goes through a function here; its caller then calls
 * cluster_changed (cluster_config.h), which recomputes the cluster's state
 * and rewrites nodes.conf at once, so the file never lags what a client
 * was told.
 */
#include "cluster.h"

#include <string.h>
#include <strings.h>

#include "clock.h"
#include "keyspace.h"
#include "log.h"
#include "mem.h"
#include "notify.h"
#include "propagate.h"
#include "repl_stream.h"
#include "resp_parser.h"
#include "server.h"
#include "slotindex.h"
#include "watch.h"

struct cluster_state *cluster;

/* Redis's CLUSTER_WRITABLE_DELAY: a primary that just started waits this
 * long before calling the cluster ok, so it can hear of a newer
 * configuration first. */
#define CLUSTER_WRITABLE_DELAY_MS 2000
#define CLUSTER_MIN_REJOIN_DELAY_MS 500
#define CLUSTER_MAX_REJOIN_DELAY_MS 5000

struct cluster_node *cluster_node_new(const char *name, unsigned flags)
{
    struct cluster_node *n = xcalloc(1, sizeof(*n));
    if (name)
        memcpy(n->name, name, CLUSTER_NAMELEN);
    else
        repl_random_hex(n->name);
    n->name[CLUSTER_NAMELEN] = '\0';
    n->flags = flags;
    n->ctime = mstime();
    return n;
}

void cluster_node_free(struct cluster_node *n)
{
    if (!n)
        return;
    xfree(n->hostname);
    xfree(n->reports);
    xfree(n);
}

static cluster_node_gone_fn *node_gone;

void cluster_on_node_gone(cluster_node_gone_fn *fn)
{
    node_gone = fn;
}

void cluster_node_add_report(struct cluster_node *n, struct cluster_node *reporter, int64_t now)
{
    for (int i = 0; i < n->failure_reports; i++) {
        if (n->reports[i].reporter == reporter) {
            n->reports[i].time = now;
            return;
        }
    }
    n->reports = xrealloc(n->reports, (size_t)(n->failure_reports + 1) * sizeof(*n->reports));
    n->reports[n->failure_reports++] = (struct cluster_fail_report){reporter, now};
}

int cluster_node_del_report(struct cluster_node *n, const struct cluster_node *reporter)
{
    for (int i = 0; i < n->failure_reports; i++) {
        if (n->reports[i].reporter == reporter) {
            n->reports[i] = n->reports[--n->failure_reports];
            return 1;
        }
    }
    return 0;
}

void cluster_free(void)
{
    if (!cluster)
        return;
    for (int i = 0; i < cluster->node_count; i++)
        cluster_node_free(cluster->nodes[i]);
    xfree(cluster->nodes);
    xfree(cluster);
    cluster = NULL;
}

void cluster_add_node(struct cluster_node *n)
{
    if (cluster->node_count == cluster->node_cap) {
        cluster->node_cap = cluster->node_cap ? cluster->node_cap * 2 : 8;
        cluster->nodes = xrealloc(cluster->nodes, (size_t)cluster->node_cap * sizeof(*cluster->nodes));
    }
    cluster->nodes[cluster->node_count++] = n;
}

struct cluster_node *cluster_lookup(const char *name, size_t len)
{
    if (len != CLUSTER_NAMELEN)
        return NULL;
    for (int i = 0; i < cluster->node_count; i++)
        if (!strncasecmp(cluster->nodes[i]->name, name, len))
            return cluster->nodes[i];
    return NULL;
}

void cluster_del_node(struct cluster_node *n)
{
    if (node_gone)
        node_gone(n);
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        if (cluster->importing_from[s] == n)
            cluster->importing_from[s] = NULL;
        if (cluster->migrating_to[s] == n)
            cluster->migrating_to[s] = NULL;
        if (cluster->slots[s] == n)
            cluster_del_slot(s);
    }
    if (cluster->mf_replica == n)
        cluster->mf_replica = NULL;
    int j = 0;
    for (int i = 0; i < cluster->node_count; i++) {
        struct cluster_node *m = cluster->nodes[i];
        if (m == n)
            continue;
        if (m->primary == n)
            m->primary = NULL;
        /* Redis's clusterDelNode: its word on the others goes with it. */
        cluster_node_del_report(m, n);
        cluster->nodes[j++] = m;
    }
    cluster->node_count = j;
    cluster_node_free(n);
}

void cluster_node_set_addr(struct cluster_node *n, const char *ip, int port, int cport,
                           const char *hostname)
{
    if (ip) {
        strncpy(n->ip, ip, sizeof(n->ip) - 1);
        n->ip[sizeof(n->ip) - 1] = '\0';
    }
    n->port = port;
    n->cport = cport;
    xfree(n->hostname);
    n->hostname = hostname && *hostname ? xstrdup(hostname) : NULL;
}

void cluster_node_set_primary(struct cluster_node *n, struct cluster_node *primary)
{
    if (primary)
        primary->flags |= CNODE_MIGRATE_TO;
    else if (n->primary && n != cluster->myself)
        n->flags |= CNODE_MIGRATE_TO;
    n->primary = primary;
    n->flags &= ~(CNODE_MASTER | CNODE_SLAVE);
    n->flags |= primary ? CNODE_SLAVE : CNODE_MASTER;
}

struct cluster_node *cluster_node_owner(struct cluster_node *n)
{
    return (n->flags & CNODE_SLAVE) && n->primary ? n->primary : n;
}

int cluster_replica_count(const struct cluster_node *n)
{
    int count = 0;
    for (int i = 0; i < cluster->node_count; i++)
        count += cluster->nodes[i]->primary == n;
    return count;
}

uint64_t cluster_node_epoch(const struct cluster_node *n)
{
    return (n->flags & CNODE_SLAVE) && n->primary ? n->primary->config_epoch : n->config_epoch;
}

int cluster_add_slot(struct cluster_node *n, int slot)
{
    if (cluster->slots[slot])
        return -1;
    cluster->slots[slot] = n;
    n->numslots++;
    return 0;
}

int cluster_del_slot(int slot)
{
    struct cluster_node *n = cluster->slots[slot];
    if (!n)
        return -1;
    /* Redis: a slot deleted is not imported any more either. */
    cluster->importing_from[slot] = NULL;
    cluster->slots[slot] = NULL;
    n->numslots--;
    return 0;
}

int cluster_del_node_slots(struct cluster_node *n)
{
    int deleted = 0;
    for (int s = 0; s < CLUSTER_SLOTS; s++)
        if (cluster->slots[s] == n)
            deleted += cluster_del_slot(s) == 0;
    return deleted;
}

int cluster_claim_slot(struct cluster_node *n, int slot, uint64_t epoch)
{
    struct cluster_node *owner = cluster->slots[slot];
    if (owner == n)
        return 1;
    if (owner && owner->config_epoch >= epoch)
        return 0;
    if (owner)
        cluster_del_slot(slot);
    cluster_add_slot(n, slot);
    return 1;
}

int cluster_slot_has_keys(int slot)
{
    return ks_slot_count(&server.ks->dbs[0], (unsigned)slot) > 0;
}

/* A key of slot: deleted, its DEL propagated and notified, as Redis's
 * delKeysInSlot. */
static int del_slot_key(struct db *db, struct ks_entry *e, void *arg)
{
    (void)arg;
    struct resp_slice argv[2] = {{"DEL", 3}, {ks_key(e), ks_klen(e)}};
    char *key = xmemdup(ks_key(e), ks_klen(e));
    size_t klen = ks_klen(e);
    propagate_argv(0, 2, argv);
    ks_delete(db, e);
    watch_touch(db, key, klen);
    notify_keyspace_event(NOTIFY_GENERIC, "del", key, klen, 0);
    server.dirty++;
    xfree(key);
    return 0;
}

size_t cluster_del_slot_keys(int slot)
{
    return ks_slot_walk(&server.ks->dbs[0], (unsigned)slot, del_slot_key, NULL);
}

uint64_t cluster_max_epoch(void)
{
    uint64_t max = cluster->current_epoch;
    for (int i = 0; i < cluster->node_count; i++)
        if (cluster->nodes[i]->config_epoch > max)
            max = cluster->nodes[i]->config_epoch;
    return max;
}

/* Redis's clusterBumpConfigEpochWithoutConsensus: myself takes a new epoch
 * unless its own is 0 or not the unique greatest. */
int cluster_bump_epoch(void)
{
    uint64_t max = cluster_max_epoch();
    struct cluster_node *me = cluster->myself;
    if (me->config_epoch == 0 || me->config_epoch != max) {
        cluster->current_epoch++;
        me->config_epoch = cluster->current_epoch;
        cluster->todo |= CLUSTER_TODO_SAVE | CLUSTER_TODO_FSYNC;
        return 1;
    }
    return 0;
}

void cluster_update_state(void)
{
    struct cluster_node *me = cluster->myself;
    if (!cluster->first_update_ms)
        cluster->first_update_ms = mstime();
    if ((me->flags & CNODE_MASTER) && cluster->state == CLUSTER_STATE_FAIL &&
        mstime() - cluster->first_update_ms < CLUSTER_WRITABLE_DELAY_MS)
        return;
    int state = CLUSTER_STATE_OK;
    if (server.cfg.cluster_require_full_coverage) {
        for (int s = 0; s < CLUSTER_SLOTS; s++) {
            if (!cluster->slots[s] || (cluster->slots[s]->flags & CNODE_FAIL)) {
                state = CLUSTER_STATE_FAIL;
                break;
            }
        }
    }
    int size = 0, reachable = 0;
    for (int i = 0; i < cluster->node_count; i++) {
        const struct cluster_node *n = cluster->nodes[i];
        if (!(n->flags & CNODE_MASTER) || !n->numslots)
            continue;
        size++;
        if (!(n->flags & (CNODE_FAIL | CNODE_PFAIL)))
            reachable++;
    }
    cluster->size = size;
    int64_t now = mstime();
    if (reachable < size / 2 + 1) {
        state = CLUSTER_STATE_FAIL;
        cluster->among_minority_ms = now;
    }
    if (state == cluster->state)
        return;
    /* A primary back from the minority side waits before serving again,
     * so the majority can fail it over first (Redis's rejoin delay: the
     * node timeout, between 0.5 and 5 s). */
    int64_t rejoin = server.cfg.cluster_node_timeout;
    rejoin = rejoin > CLUSTER_MAX_REJOIN_DELAY_MS   ? CLUSTER_MAX_REJOIN_DELAY_MS
             : rejoin < CLUSTER_MIN_REJOIN_DELAY_MS ? CLUSTER_MIN_REJOIN_DELAY_MS
                                                    : rejoin;
    if (state == CLUSTER_STATE_OK && (me->flags & CNODE_MASTER) &&
        now - cluster->among_minority_ms < rejoin)
        return;
    log_notice("Cluster state changed: %s", state == CLUSTER_STATE_OK ? "ok" : "fail");
    cluster->state = state;
}

