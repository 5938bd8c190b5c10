/*
 * cmd_cluster.c - the CLUSTER commands that need no bus (INFO, MYID, NODES,
 * SLOTS, SHARDS, KEYSLOT, the slot assignments, SETSLOT, FORGET, RESET, the
 * epochs, SAVECONFIG, COUNT-FAILURE-REPORTS, REPLICAS), MEET and LINKS
 * (the bus's, cluster_gossip.h and cluster_bus.h), and ASKING,
 * READONLY and READWRITE, with Redis 7.0's replies and errors.
 *
 * Owns no state: the cluster's is cluster.h's, changed through its
 * functions, which save nodes.conf. Without cluster-enabled every one of
 * them answers Redis's "cluster support disabled".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "clock.h"
#include "cluster.h"
#include "cluster_bus.h"
#include "cluster_config.h"
#include "cluster_failover.h"
#include "cluster_failure.h"
#include "cluster_gossip.h"
#include "cluster_query.h"
#include "cluster_route.h"
#include "cluster_send.h"
#include "cmd_cluster.h"
#include "command.h"
#include "keyspace.h"
#include "log.h"
#include "mem.h"
#include "repl_stream.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "server.h"
#include "slotindex.h"

/* A plaintext client of a tls-cluster node: replies name the nodes'
 * plaintext ports (Redis 7.0's use_pport). */
static int plaintext_tls_cluster(const struct client *c)
{
    return server.cfg.tls_cluster && !c->tls;
}

static int cluster_or_reply(struct client *c)
{
    if (cluster)
        return 0;
    resp_add_error(&c->out, "ERR This instance has cluster support disabled");
    return -1;
}

/* Redis's getSlotOrReply. */
static int slot_or_reply(struct client *c, const struct resp_slice *a)
{
    long long slot;
    if (resp_parse_ll(a->ptr, a->len, &slot) < 0 || slot < 0 || slot >= CLUSTER_SLOTS) {
        resp_add_error(&c->out, "ERR Invalid or out of range slot");
        return -1;
    }
    return (int)slot;
}

/* The node named by a, or NULL after Redis's "Unknown node" error. */
static struct cluster_node *node_or_reply(struct client *c, const struct resp_slice *a)
{
    struct cluster_node *n = cluster_lookup(a->ptr, a->len);
    if (!n)
        resp_add_errorf(&c->out, "ERR Unknown node %.*s", (int)a->len, a->ptr);
    return n;
}

static size_t db0_keys(void)
{
    return ks_count(&server.ks->dbs[0]);
}

static void cluster_info(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    int assigned = 0, ok = 0, pfail = 0, fail = 0;
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        const struct cluster_node *n = cluster->slots[s];
        if (!n)
            continue;
        assigned++;
        if (n->flags & CNODE_FAIL)
            fail++;
        else if (n->flags & CNODE_PFAIL)
            pfail++;
        else
            ok++;
    }
    const struct cluster_node *me = cluster->myself;
    char buf[4096];
    int len = snprintf(buf, sizeof(buf),
                       "cluster_state:%s\r\ncluster_slots_assigned:%d\r\ncluster_slots_ok:%d\r\n"
                       "cluster_slots_pfail:%d\r\ncluster_slots_fail:%d\r\n"
                       "cluster_known_nodes:%d\r\ncluster_size:%d\r\n"
                       "cluster_current_epoch:%" PRIu64 "\r\ncluster_my_epoch:%" PRIu64 "\r\n",
                       cluster->state == CLUSTER_STATE_OK ? "ok" : "fail", assigned, ok, pfail,
                       fail, cluster->node_count, cluster->size, cluster->current_epoch,
                       cluster_node_epoch(me));
    size_t n = (size_t)len;
    n += cluster_gossip_stats(buf + n, sizeof(buf) - n);
    n += (size_t)snprintf(buf + n, sizeof(buf) - n,
                          "total_cluster_links_buffer_limit_exceeded:%llu\r\n",
                          cluster_bus_links_limit_exceeded());
    resp_add_verbatim(&c->out, "txt", buf, n < sizeof(buf) ? n : sizeof(buf) - 1);
}

static void cluster_myid(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    resp_add_bulk(&c->out, cluster->myself->name, CLUSTER_NAMELEN);
}

static void cluster_nodes(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    size_t len;
    char *text = cluster_describe_nodes(0, plaintext_tls_cluster(c), &len);
    if (!text) {
        resp_add_error(&c->out, "ERR out of memory");
        return;
    }
    resp_add_verbatim(&c->out, "txt", text, len);
    free(text);
}

/* A node as CLUSTER SLOTS shows it: endpoint, port, id, and a map of the
 * addresses the endpoint did not give (Redis's addNodeToNodeReply). */
static void reply_slot_node(struct client *c, const struct cluster_node *n)
{
    int type = server.cfg.cluster_preferred_endpoint_type;
    resp_add_array_len(&c->out, 4);
    if (type == CLUSTER_ENDPOINT_UNKNOWN)
        resp_add_null(&c->out);
    else
        resp_add_bulk_cstr(&c->out, cluster_preferred_endpoint(n));
    resp_add_int(&c->out, cluster_client_port(n, !c->tls));
    resp_add_bulk(&c->out, n->name, CLUSTER_NAMELEN);
    int with_ip = type != CLUSTER_ENDPOINT_IP;
    int with_host = type != CLUSTER_ENDPOINT_HOSTNAME && n->hostname;
    resp_add_map_len(&c->out, (size_t)with_ip + (size_t)with_host);
    if (with_ip) {
        resp_add_bulk_cstr(&c->out, "ip");
        resp_add_bulk_cstr(&c->out, n->ip);
    }
    if (with_host) {
        resp_add_bulk_cstr(&c->out, "hostname");
        resp_add_bulk_cstr(&c->out, n->hostname);
    }
}

/* Redis's isReplicaAvailable: not failed, and it has replicated something. */
static int replica_available(const struct cluster_node *n)
{
    if (n->flags & CNODE_FAIL)
        return 0;
    return ((n->flags & CNODE_MYSELF) ? repl.offset : n->repl_offset) != 0;
}

static void reply_slot_range(struct client *c, const struct cluster_node *n, int start, int end)
{
    int replicas = 0;
    for (int i = 0; i < cluster->node_count; i++)
        replicas += cluster->nodes[i]->primary == n && replica_available(cluster->nodes[i]);
    resp_add_array_len(&c->out, 3 + (size_t)replicas);
    resp_add_int(&c->out, start);
    resp_add_int(&c->out, end);
    reply_slot_node(c, n);
    for (int i = 0; i < cluster->node_count; i++)
        if (cluster->nodes[i]->primary == n && replica_available(cluster->nodes[i]))
            reply_slot_node(c, cluster->nodes[i]);
}

/* Each run of slots one node serves, in slot order, as Redis 7.0. */
static void cluster_slots(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    struct resp_deferred len;
    resp_add_deferred(&c->out, &len);
    size_t ranges = 0;
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        const struct cluster_node *n = cluster->slots[s];
        if (!n)
            continue;
        int end = s;
        while (end + 1 < CLUSTER_SLOTS && cluster->slots[end + 1] == n)
            end++;
        reply_slot_range(c, n, s, end);
        ranges++;
        s = end;
    }
    resp_set_deferred_array(&c->out, &len, ranges);
}

/* A shard's node (Redis's addNodeDetailsToShardReply). */
static void reply_shard_node(struct client *c, const struct cluster_node *n)
{
    long long offset = (n->flags & CNODE_MYSELF) ? repl.offset : n->repl_offset;
    int slave = (n->flags & CNODE_SLAVE) != 0;
    /* With tls-cluster yes a node's port is its TLS one, its pport the
     * plaintext one (if it has one): Redis 7.0 names both so. */
    int plain = server.cfg.tls_cluster ? n->pport : n->port;
    int tls = server.cfg.tls_cluster ? n->port : 0;
    resp_add_map_len(&c->out, 6 + (size_t)(n->hostname != NULL) + (size_t)(plain != 0) +
                                  (size_t)(tls != 0));
    resp_add_bulk_cstr(&c->out, "id");
    resp_add_bulk(&c->out, n->name, CLUSTER_NAMELEN);
    if (plain) {
        resp_add_bulk_cstr(&c->out, "port");
        resp_add_int(&c->out, plain);
    }
    if (tls) {
        resp_add_bulk_cstr(&c->out, "tls-port");
        resp_add_int(&c->out, tls);
    }
    resp_add_bulk_cstr(&c->out, "ip");
    resp_add_bulk_cstr(&c->out, n->ip);
    resp_add_bulk_cstr(&c->out, "endpoint");
    resp_add_bulk_cstr(&c->out, cluster_preferred_endpoint(n));
    if (n->hostname) {
        resp_add_bulk_cstr(&c->out, "hostname");
        resp_add_bulk_cstr(&c->out, n->hostname);
    }
    resp_add_bulk_cstr(&c->out, "role");
    resp_add_bulk_cstr(&c->out, slave ? "replica" : "master");
    resp_add_bulk_cstr(&c->out, "replication-offset");
    resp_add_int(&c->out, offset);
    resp_add_bulk_cstr(&c->out, "health");
    resp_add_bulk_cstr(&c->out, (n->flags & CNODE_FAIL) ? "fail"
                                : slave && offset == 0  ? "loading"
                                                        : "online");
}

/* One shard per primary, slots or none: its slot ranges' bounds, then the
 * primary and its replicas. */
static void cluster_shards(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    size_t shards = 0;
    for (int i = 0; i < cluster->node_count; i++)
        shards += (cluster->nodes[i]->flags & CNODE_MASTER) != 0;
    resp_add_array_len(&c->out, shards);
    for (int i = 0; i < cluster->node_count; i++) {
        const struct cluster_node *p = cluster->nodes[i];
        if (!(p->flags & CNODE_MASTER))
            continue;
        resp_add_map_len(&c->out, 2);
        resp_add_bulk_cstr(&c->out, "slots");
        struct resp_deferred len;
        resp_add_deferred(&c->out, &len);
        size_t bounds = 0;
        for (int s = 0; p->numslots && s < CLUSTER_SLOTS; s++) {
            if (cluster->slots[s] != p)
                continue;
            int end = s;
            while (end + 1 < CLUSTER_SLOTS && cluster->slots[end + 1] == p)
                end++;
            resp_add_int(&c->out, s);
            resp_add_int(&c->out, end);
            bounds += 2;
            s = end;
        }
        resp_set_deferred_array(&c->out, &len, bounds);
        resp_add_bulk_cstr(&c->out, "nodes");
        resp_add_array_len(&c->out, 1 + (size_t)cluster_replica_count(p));
        reply_shard_node(c, p);
        for (int j = 0; j < cluster->node_count; j++)
            if (cluster->nodes[j]->primary == p)
                reply_shard_node(c, cluster->nodes[j]);
    }
}

static void cluster_keyslot(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    resp_add_int(&c->out, key_hash_slot(c->argv[2].ptr, c->argv[2].len));
}

/* CLUSTER COUNTKEYSINSLOT slot: the per-slot index's count, O(1); keys
 * past their deadline count until removed, as in Redis. */
static void cluster_countkeysinslot(struct client *c)
{
    long long slot;
    if (cluster_or_reply(c) < 0 || arg_ll_or_reply(c, &c->argv[2], &slot) < 0)
        return;
    if (slot < 0 || slot >= CLUSTER_SLOTS) {
        resp_add_error(&c->out, "ERR Invalid slot");
        return;
    }
    resp_add_int(&c->out, (long long)ks_slot_count(&server.ks->dbs[0], (unsigned)slot));
}

struct keys_in_slot {
    struct client *c;
    long long left;
};

static int reply_key_in_slot(struct db *db, struct ks_entry *e, void *arg)
{
    struct keys_in_slot *k = arg;
    (void)db;
    resp_add_bulk(&k->c->out, ks_key(e), ks_klen(e));
    return --k->left == 0;
}

/* CLUSTER GETKEYSINSLOT slot count: up to count of the slot's keys, O(count),
 * in the index's order (Redis's is its own too: clients take them as a set). */
static void cluster_getkeysinslot(struct client *c)
{
    long long slot, count;
    if (cluster_or_reply(c) < 0 || arg_ll_or_reply(c, &c->argv[2], &slot) < 0 ||
        arg_ll_or_reply(c, &c->argv[3], &count) < 0)
        return;
    if (slot < 0 || slot >= CLUSTER_SLOTS || count < 0) {
        resp_add_error(&c->out, "ERR Invalid slot or number of keys");
        return;
    }
    struct db *db = &server.ks->dbs[0];
    size_t in_slot = ks_slot_count(db, (unsigned)slot);
    struct keys_in_slot k = {c, count < (long long)in_slot ? count : (long long)in_slot};
    resp_add_array_len(&c->out, (size_t)k.left);
    if (k.left)
        ks_slot_walk(db, (unsigned)slot, reply_key_in_slot, &k);
}

/* Marks slots[s] for each slot the request names, refusing (Redis's
 * checkSlotAssignmentsOrReply) one already busy (del: already free) or
 * named twice. */
static int mark_slot_or_reply(struct client *c, unsigned char *slots, int del, int slot)
{
    if (del && !cluster->slots[slot]) {
        resp_add_errorf(&c->out, "ERR Slot %d is already unassigned", slot);
        return -1;
    }
    if (!del && cluster->slots[slot]) {
        resp_add_errorf(&c->out, "ERR Slot %d is already busy", slot);
        return -1;
    }
    if (slots[slot]++ == 1) {
        resp_add_errorf(&c->out, "ERR Slot %d specified multiple times", slot);
        return -1;
    }
    return 0;
}

static void update_slots(struct client *c, const unsigned char *slots, int del)
{
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        if (!slots[s])
            continue;
        /* Owning it now, this node imports it no more. */
        cluster->importing_from[s] = NULL;
        if (del)
            cluster_del_slot(s);
        else
            cluster_add_slot(cluster->myself, s);
    }
    cluster_changed(CLUSTER_TODO_SAVE);
    reply_ok(c);
}

static void slots_generic(struct client *c, int del)
{
    if (cluster_or_reply(c) < 0)
        return;
    unsigned char *slots = xcalloc(CLUSTER_SLOTS, 1);
    int j = 2;
    for (; j < c->argc; j++) {
        int slot = slot_or_reply(c, &c->argv[j]);
        if (slot < 0 || mark_slot_or_reply(c, slots, del, slot) < 0)
            break;
    }
    if (j == c->argc)
        update_slots(c, slots, del);
    xfree(slots);
}

static void ranges_generic(struct client *c, int del)
{
    if (cluster_or_reply(c) < 0)
        return;
    if (c->argc % 2 == 1) {
        reply_wrong_arity(c);
        return;
    }
    unsigned char *slots = xcalloc(CLUSTER_SLOTS, 1);
    int j = 2, failed = 0;
    for (; !failed && j < c->argc; j += 2) {
        int start = slot_or_reply(c, &c->argv[j]);
        int end = start < 0 ? -1 : slot_or_reply(c, &c->argv[j + 1]);
        if (start < 0 || end < 0) {
            failed = 1;
        } else if (start > end) {
            resp_add_errorf(&c->out, "ERR start slot number %d is greater than end slot number %d",
                            start, end);
            failed = 1;
        }
        for (int s = start; !failed && s <= end; s++)
            failed = mark_slot_or_reply(c, slots, del, s) < 0;
    }
    if (!failed)
        update_slots(c, slots, del);
    xfree(slots);
}

static void cluster_addslots(struct client *c)
{
    slots_generic(c, 0);
}

static void cluster_delslots(struct client *c)
{
    slots_generic(c, 1);
}

static void cluster_addslotsrange(struct client *c)
{
    ranges_generic(c, 0);
}

static void cluster_delslotsrange(struct client *c)
{
    ranges_generic(c, 1);
}

static void cluster_flushslots(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    if (db0_keys()) {
        resp_add_error(&c->out, "ERR DB must be empty to perform CLUSTER FLUSHSLOTS.");
        return;
    }
    cluster_del_node_slots(cluster->myself);
    cluster_changed(CLUSTER_TODO_SAVE);
    reply_ok(c);
}

/* The target of MIGRATING, IMPORTING or NODE: a known primary. */
static struct cluster_node *target_or_reply(struct client *c, const struct resp_slice *a,
                                            int unknown_is_node)
{
    struct cluster_node *n = cluster_lookup(a->ptr, a->len);
    if (!n) {
        resp_add_errorf(&c->out, unknown_is_node ? "ERR Unknown node %.*s"
                                                 : "ERR I don't know about node %.*s",
                        (int)a->len, a->ptr);
        return NULL;
    }
    if (n->flags & CNODE_SLAVE) {
        resp_add_error(&c->out, "ERR Target node is not a master");
        return NULL;
    }
    return n;
}

/* SETSLOT slot NODE id: the slot changes hands (Redis's checks: no key of
 * it may stay here when it leaves; taking an imported slot bumps the epoch
 * so the cluster learns the new owner, and tells every node at once, as
 * Redis 7.0 does: a node that hears of the new epoch only by the next
 * random ping may meanwhile bump its own to the same stale maximum while
 * importing another slot, and a claim of the old owner still in flight
 * then outranks it; both ends think the other serves the slot, for
 * good). */
static int setslot_node(struct client *c, int slot)
{
    struct cluster_node *n = target_or_reply(c, &c->argv[4], 1);
    if (!n)
        return -1;
    struct cluster_node *me = cluster->myself;
    int has_keys = cluster_slot_has_keys(slot);
    if (cluster->slots[slot] == me && n != me && has_keys) {
        resp_add_errorf(&c->out,
                        "ERR Can't assign hashslot %d to a different node while I still hold keys "
                        "for this hash slot.",
                        slot);
        return -1;
    }
    if (!has_keys)
        cluster->migrating_to[slot] = NULL;
    /* Read before cluster_del_slot, which ends the import. */
    int imported = n == me && cluster->importing_from[slot];
    int was_mine = cluster->slots[slot] == me;
    cluster_del_slot(slot);
    cluster_add_slot(n, slot);
    if (imported) {
        if (cluster_bump_epoch())
            log_warning("configEpoch updated after importing slot %d", slot);
        cluster->importing_from[slot] = NULL;
        cluster_send_broadcast_pong(0);
    }
    /* A primary that gave away its last slot becomes a replica of the node
     * it gave it to, as Redis 7.0. */
    if (was_mine && n != me && !me->numslots && server.cfg.cluster_allow_replica_migration) {
        log_warning("Configuration change detected. Reconfiguring myself as a replica of %.40s",
                    n->name);
        cluster_failover_replicate(n);
    }
    return 0;
}

static void cluster_setslot(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    struct cluster_node *me = cluster->myself;
    if (me->flags & CNODE_SLAVE) {
        resp_add_error(&c->out, "ERR Please use SETSLOT only with masters.");
        return;
    }
    int slot = slot_or_reply(c, &c->argv[2]);
    if (slot < 0)
        return;
    const struct resp_slice *action = &c->argv[3];
    if (arg_is(action, "migrating") && c->argc == 5) {
        if (cluster->slots[slot] != me) {
            resp_add_errorf(&c->out, "ERR I'm not the owner of hash slot %d", slot);
            return;
        }
        struct cluster_node *n = target_or_reply(c, &c->argv[4], 0);
        if (!n)
            return;
        cluster->migrating_to[slot] = n;
    } else if (arg_is(action, "importing") && c->argc == 5) {
        if (cluster->slots[slot] == me) {
            resp_add_errorf(&c->out, "ERR I'm already the owner of hash slot %d", slot);
            return;
        }
        struct cluster_node *n = target_or_reply(c, &c->argv[4], 0);
        if (!n)
            return;
        cluster->importing_from[slot] = n;
    } else if (arg_is(action, "stable") && c->argc == 4) {
        cluster->importing_from[slot] = NULL;
        cluster->migrating_to[slot] = NULL;
    } else if (arg_is(action, "node") && c->argc == 5) {
        if (setslot_node(c, slot) < 0)
            return;
    } else {
        resp_add_error(&c->out,
                       "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
        return;
    }
    cluster_changed(CLUSTER_TODO_SAVE);
    reply_ok(c);
}

/* The node argv[2] names, other than myself; NULL after Redis's error
 * (self_error when it names myself). */
static struct cluster_node *other_node_or_reply(struct client *c, const char *self_error)
{
    if (cluster_or_reply(c) < 0)
        return NULL;
    struct cluster_node *n = node_or_reply(c, &c->argv[2]);
    if (n == cluster->myself) {
        resp_add_error(&c->out, self_error);
        return NULL;
    }
    return n;
}

static void cluster_forget(struct client *c)
{
    struct cluster_node *n =
        other_node_or_reply(c, "ERR I tried hard but I can't forget myself...");
    if (!n)
        return;
    struct cluster_node *me = cluster->myself;
    if ((me->flags & CNODE_SLAVE) && me->primary == n) {
        resp_add_error(&c->out, "ERR Can't forget my master!");
        return;
    }
    cluster_gossip_ban(n->name);
    cluster_del_node(n);
    cluster_changed(CLUSTER_TODO_SAVE);
    reply_ok(c);
}

/* Redis's clusterReset: no open slot, no slot, no other node; HARD also
 * zeroes the epochs and gives this node a new name. */
static void cluster_reset(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    int hard = 0;
    if (c->argc == 3) {
        if (arg_is(&c->argv[2], "hard")) {
            hard = 1;
        } else if (!arg_is(&c->argv[2], "soft")) {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    struct cluster_node *me = cluster->myself;
    if ((me->flags & CNODE_MASTER) && db0_keys()) {
        resp_add_error(&c->out, "ERR CLUSTER RESET can't be called with master nodes containing keys");
        return;
    }
    /* A replica turns primary and drops the data it replicated. */
    if (me->flags & CNODE_SLAVE) {
        cluster_failover_unset_primary();
        server.dirty += db0_keys();
        ks_flush(&server.ks->dbs[0]);
    }
    cluster_failover_reset_manual();
    memset(cluster->migrating_to, 0, sizeof(cluster->migrating_to));
    memset(cluster->importing_from, 0, sizeof(cluster->importing_from));
    for (int s = 0; s < CLUSTER_SLOTS; s++)
        cluster_del_slot(s);
    for (int i = cluster->node_count - 1; i >= 0; i--)
        if (cluster->nodes[i] != me)
            cluster_del_node(cluster->nodes[i]);
    if (hard) {
        cluster->current_epoch = 0;
        cluster->last_vote_epoch = 0;
        me->config_epoch = 0;
        log_warning("configEpoch set to 0 via CLUSTER RESET HARD");
        repl_random_hex(me->name);
        log_notice("Node hard reset, now I'm %.40s", me->name);
    }
    cluster_changed(CLUSTER_TODO_SAVE | CLUSTER_TODO_FSYNC);
    reply_ok(c);
}

static void cluster_set_config_epoch(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    long long epoch;
    if (arg_ll_or_reply(c, &c->argv[2], &epoch) < 0)
        return;
    struct cluster_node *me = cluster->myself;
    if (epoch < 0) {
        resp_add_errorf(&c->out, "ERR Invalid config epoch specified: %lld", epoch);
    } else if (cluster->node_count > 1) {
        resp_add_error(&c->out, "ERR The user can assign a config epoch only when the node does "
                                "not know any other node.");
    } else if (me->config_epoch != 0) {
        resp_add_error(&c->out, "ERR Node config epoch is already non-zero");
    } else {
        me->config_epoch = (uint64_t)epoch;
        log_warning("configEpoch set to %llu via CLUSTER SET-CONFIG-EPOCH", (unsigned long long)epoch);
        if (cluster->current_epoch < (uint64_t)epoch)
            cluster->current_epoch = (uint64_t)epoch;
        cluster_changed(CLUSTER_TODO_SAVE);
        reply_ok(c);
    }
}

static void cluster_bumpepoch(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    int bumped = cluster_bump_epoch();
    if (bumped)
        cluster_changed(CLUSTER_TODO_SAVE);
    char buf[64];
    snprintf(buf, sizeof(buf), "%s %" PRIu64, bumped ? "BUMPED" : "STILL",
             cluster->myself->config_epoch);
    resp_add_simple(&c->out, buf);
}

static void cluster_saveconfig(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    if (cluster_config_save(server.cfg.cluster_config_file, 1) < 0) {
        resp_add_errorf(&c->out, "ERR error saving the cluster node config: %s", strerror(errno));
        return;
    }
    reply_ok(c);
}

static void cluster_count_failure_reports(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    struct cluster_node *n = node_or_reply(c, &c->argv[2]);
    if (n)
        resp_add_int(&c->out, cluster_failure_count(n, mstime()));
}

/* Redis's CLUSTER MEET: the errors name the argument as given. */
static void cluster_meet(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    if (c->argc > 5) {
        reply_subcommand_syntax(c, "CLUSTER");
        return;
    }
    long long port, cport;
    const struct resp_slice *ip = &c->argv[2], *p = &c->argv[3];
    if (resp_parse_ll(p->ptr, p->len, &port) < 0) {
        resp_add_errorf(&c->out, "ERR Invalid TCP base port specified: %.*s", (int)p->len, p->ptr);
        return;
    }
    if (c->argc == 5) {
        const struct resp_slice *b = &c->argv[4];
        if (resp_parse_ll(b->ptr, b->len, &cport) < 0) {
            resp_add_errorf(&c->out, "ERR Invalid TCP bus port specified: %.*s", (int)b->len,
                            b->ptr);
            return;
        }
    } else {
        cport = port + 10000;
    }
    char addr[64];
    snprintf(addr, sizeof(addr), "%.*s", (int)(ip->len < 63 ? ip->len : 63), ip->ptr);
    if (memchr(ip->ptr, '\0', ip->len) || cluster_gossip_meet(addr, port, cport) < 0) {
        resp_add_errorf(&c->out, "ERR Invalid node address specified: %.*s:%.*s", (int)ip->len,
                        ip->ptr, (int)p->len, p->ptr);
        return;
    }
    reply_ok(c);
}

static void reply_link(const struct cluster_link_info *info, void *arg)
{
    struct client *c = arg;
    resp_add_map_len(&c->out, 6);
    resp_add_bulk(&c->out, "direction", 9);
    resp_add_bulk(&c->out, info->direction, strlen(info->direction));
    resp_add_bulk(&c->out, "node", 4);
    resp_add_bulk(&c->out, info->node->name, CLUSTER_NAMELEN);
    resp_add_bulk(&c->out, "create-time", 11);
    resp_add_int(&c->out, info->create_time);
    resp_add_bulk(&c->out, "events", 6);
    resp_add_bulk(&c->out, info->events, strlen(info->events));
    resp_add_bulk(&c->out, "send-buffer-allocated", 21);
    resp_add_int(&c->out, (long long)info->send_buffer_allocated);
    resp_add_bulk(&c->out, "send-buffer-used", 16);
    resp_add_int(&c->out, (long long)info->send_buffer_used);
}

/* Redis 7.0's CLUSTER LINKS: a map per link bound to a node. */
static void cluster_links(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    resp_add_array_len(&c->out, (size_t)cluster_bus_link_count());
    cluster_bus_each_link(reply_link, c);
}

/* REPLICATE node-id: this node becomes a replica of that primary (Redis's
 * clusterCommand "replicate"). */
static void cluster_replicate(struct client *c)
{
    struct cluster_node *n = other_node_or_reply(c, "ERR Can't replicate myself");
    if (!n)
        return;
    struct cluster_node *me = cluster->myself;
    if (n->flags & CNODE_SLAVE) {
        resp_add_error(&c->out, "ERR I can only replicate a master, not a replica.");
        return;
    }
    /* A primary may turn replica only empty: its data would be replaced. */
    if ((me->flags & CNODE_MASTER) && (me->numslots || db0_keys())) {
        resp_add_error(&c->out,
                       "ERR To set a master the node must be empty and without assigned slots.");
        return;
    }
    cluster_failover_replicate(n);
    cluster_changed(CLUSTER_TODO_SAVE);
    reply_ok(c);
}

/* FAILOVER [FORCE|TAKEOVER], run by a replica (cluster_failover.h). */
static void cluster_failover(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    int force = 0, takeover = 0;
    if (c->argc == 3) {
        if (arg_is(&c->argv[2], "force")) {
            force = 1;
        } else if (arg_is(&c->argv[2], "takeover")) {
            takeover = force = 1;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    } else if (c->argc > 3) {
        reply_subcommand_syntax(c, "CLUSTER");
        return;
    }
    const char *err;
    if (cluster_failover_manual(force, takeover, &err) < 0) {
        resp_add_errorf(&c->out, "ERR %s", err);
        return;
    }
    reply_ok(c);
}

/* REPLICAS and SLAVES: each replica's CLUSTER NODES line, without its
 * newline. */
static void cluster_replicas(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    const struct cluster_node *n = node_or_reply(c, &c->argv[2]);
    if (!n)
        return;
    if (n->flags & CNODE_SLAVE) {
        resp_add_error(&c->out, "ERR The specified node is not a master");
        return;
    }
    resp_add_array_len(&c->out, (size_t)cluster_replica_count(n));
    for (int i = 0; i < cluster->node_count; i++) {
        const struct cluster_node *r = cluster->nodes[i];
        if (r->primary != n)
            continue;
        char *line = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&line, &len);
        if (f) {
            cluster_describe_node(f, r, plaintext_tls_cluster(c));
            fclose(f);
        }
        resp_add_bulk(&c->out, line ? line : "", line && len ? len - 1 : 0);
        free(line);
    }
}

static void cluster_help(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    /* Redis 7.0.15's text, whole: the subcommands the bus brings (MEET,
     * REPLICATE, FAILOVER, LINKS) and the per-slot key index's are listed
     * as Redis lists them. */
    static const char *const help[] = {
        "ADDSLOTS <slot> [<slot> ...]",
        "    Assign slots to current node.",
        "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
        "    Assign slots which are between <start-slot> and <end-slot> to current node.",
        "BUMPEPOCH",
        "    Advance the cluster config epoch.",
        "COUNT-FAILURE-REPORTS <node-id>",
        "    Return number of failure reports for <node-id>.",
        "COUNTKEYSINSLOT <slot>",
        "    Return the number of keys in <slot>.",
        "DELSLOTS <slot> [<slot> ...]",
        "    Delete slots information from current node.",
        "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
        /* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one line, split for width */
        "    Delete slots information which are between <start-slot> and <end-slot> from current "
        "node.",
        "FAILOVER [FORCE|TAKEOVER]",
        "    Promote current replica node to being a master.",
        "FORGET <node-id>",
        "    Remove a node from the cluster.",
        "GETKEYSINSLOT <slot> <count>",
        "    Return key names stored by current node in a slot.",
        "FLUSHSLOTS",
        "    Delete current node own slots information.",
        "INFO",
        "    Return information about the cluster.",
        "KEYSLOT <key>",
        "    Return the hash slot for <key>.",
        "MEET <ip> <port> [<bus-port>]",
        "    Connect nodes into a working cluster.",
        "MYID",
        "    Return the node id.",
        "NODES",
        "    Return cluster configuration seen by node. Output format:",
        "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
        "REPLICATE <node-id>",
        "    Configure current node as replica to <node-id>.",
        "RESET [HARD|SOFT]",
        "    Reset current node (default: soft).",
        "SET-CONFIG-EPOCH <epoch>",
        "    Set config epoch of current node.",
        "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
        "    Set slot state.",
        "REPLICAS <node-id>",
        "    Return <node-id> replicas.",
        "SAVECONFIG",
        "    Force saving cluster configuration on disk.",
        "SLOTS",
        "    Return information about slots range mappings. Each range is made of:",
        "    start, end, master and replicas IP addresses, ports and ids",
        "SHARDS",
        "    Return information about slot range mappings and the nodes associated with them.",
        "LINKS",
        "    Return information about all network links between this node and its peers.",
        "    Output format is an array where each array element is a map containing attributes "
        "of a link",
    };
    reply_help(c, help, sizeof(help) / sizeof(help[0]));
}

/* ASKING: the next command may touch a slot this node imports. */
static void cmd_asking(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    c->flags |= CLIENT_ASKING;
    reply_ok(c);
}

static void cmd_readonly(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    c->flags |= CLIENT_READONLY;
    reply_ok(c);
}

/* KLOCAL: the ordered queries on this connection answer with this node's
 * keys only: the parts of a cluster-wide query (cluster_query.c). Replies
 * how many slots this node imports now, which the asking node needs to
 * order its reads during a migration. Every query on the connection is
 * still checked against its user's ACL. */
static void cmd_klocal(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    c->flags |= CLIENT_LOCAL_QUERY;
    resp_add_int(&c->out, cluster_query_importing());
}

static void cmd_readwrite(struct client *c)
{
    if (cluster_or_reply(c) < 0)
        return;
    c->flags &= ~CLIENT_READONLY;
    reply_ok(c);
}

/* Redis 7.0's flags: the changes are admin, allowed on a stale replica,
 * not while a replica loads asynchronously. */
#define CLUSTER_ADMIN (CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING)
#define CLUSTER_ROW(name_, proc_, arity_, flags_)                                                 \
    {.name = "cluster|" name_, .proc = (proc_), .arity = (arity_), .flags = (flags_),             \
     .group = "cluster"}

static const struct command cluster_subcommands[] = {
    CLUSTER_ROW("addslots", cluster_addslots, -3, CLUSTER_ADMIN),
    CLUSTER_ROW("addslotsrange", cluster_addslotsrange, -4, CLUSTER_ADMIN),
    CLUSTER_ROW("bumpepoch", cluster_bumpepoch, 2, CLUSTER_ADMIN),
    CLUSTER_ROW("count-failure-reports", cluster_count_failure_reports, 3, CMD_ADMIN | CMD_STALE),
    CLUSTER_ROW("countkeysinslot", cluster_countkeysinslot, 3, CMD_STALE),
    CLUSTER_ROW("delslots", cluster_delslots, -3, CLUSTER_ADMIN),
    CLUSTER_ROW("delslotsrange", cluster_delslotsrange, -4, CLUSTER_ADMIN),
    CLUSTER_ROW("failover", cluster_failover, -2, CLUSTER_ADMIN),
    CLUSTER_ROW("flushslots", cluster_flushslots, 2, CLUSTER_ADMIN),
    CLUSTER_ROW("forget", cluster_forget, 3, CLUSTER_ADMIN),
    CLUSTER_ROW("getkeysinslot", cluster_getkeysinslot, 4, CMD_STALE),
    CLUSTER_ROW("info", cluster_info, 2, CMD_STALE),
    CLUSTER_ROW("keyslot", cluster_keyslot, 3, CMD_STALE),
    CLUSTER_ROW("links", cluster_links, 2, CMD_STALE),
    CLUSTER_ROW("meet", cluster_meet, -4, CLUSTER_ADMIN),
    CLUSTER_ROW("myid", cluster_myid, 2, CMD_STALE),
    CLUSTER_ROW("nodes", cluster_nodes, 2, CMD_STALE),
    CLUSTER_ROW("replicas", cluster_replicas, 3, CMD_ADMIN | CMD_STALE),
    CLUSTER_ROW("replicate", cluster_replicate, 3, CLUSTER_ADMIN),
    CLUSTER_ROW("reset", cluster_reset, -2, CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE),
    CLUSTER_ROW("saveconfig", cluster_saveconfig, 2, CLUSTER_ADMIN),
    CLUSTER_ROW("set-config-epoch", cluster_set_config_epoch, 3, CLUSTER_ADMIN),
    CLUSTER_ROW("setslot", cluster_setslot, -4, CLUSTER_ADMIN),
    CLUSTER_ROW("shards", cluster_shards, 2, CMD_STALE),
    CLUSTER_ROW("slaves", cluster_replicas, 3, CMD_ADMIN | CMD_STALE),
    CLUSTER_ROW("slots", cluster_slots, 2, CMD_STALE),
    SUBCOMMAND_HELP("cluster|help", cluster_help, "cluster"),
    {0},
};

const struct command cluster_commands[] = {
    {.name = "cluster", .arity = -2, .group = "cluster", .subcommands = cluster_subcommands},
    {.name = "asking", .proc = cmd_asking, .arity = 1, .flags = CMD_FAST, .group = "cluster"},
    {.name = "klocal", .proc = cmd_klocal, .arity = 1, .flags = CMD_FAST, .group = "cluster",
     .docs = &(const struct command_docs){
         .since = "0.1.0",
         .summary = "Makes the connection's ordered queries answer with this node's keys only",
         .complexity = "O(1)", .args = ""}},
    {.name = "readonly", .proc = cmd_readonly, .arity = 1,
     .flags = CMD_FAST | CMD_LOADING | CMD_STALE, .group = "cluster"},
    {.name = "readwrite", .proc = cmd_readwrite, .arity = 1,
     .flags = CMD_FAST | CMD_LOADING | CMD_STALE, .group = "cluster"},
    {0},
};
