/*
 * cluster_failover.c - roles and failover in cluster mode
 * (cluster_failover.h), after Redis 7.0's cluster.c (clusterSetMaster,
 * clusterHandleSlaveFailover, clusterSendFailoverAuthIfNeeded,
 * clusterFailoverReplaceYourMaster, the manual failover's mf_* state):
 *
 * - A replica whose primary is FAIL waits 500 ms + 0-500 ms at random +
 *   1000 ms per replica of the same primary with a greater offset (its
 *   rank), so the FAIL spreads and the freshest replica asks first. Its data
 *   must be recent enough (cluster-replica-validity-factor), and
 *   cluster-replica-no-failover must be off. Then it bumps currentEpoch and
 *   asks every node for a vote (FAILOVER_AUTH_REQUEST); a majority of the
 *   slot-serving primaries' votes in time (twice the node timeout, at least
 *   2 s) makes it primary: it takes its primary's slots at the election's
 *   epoch and tells everyone (PONG). An election that runs out is retried
 *   after twice that time.
 * - A primary votes once per epoch (lastVoteEpoch, saved), only for a
 *   replica of a FAIL primary (or a manual failover's), not twice for one
 *   primary's replicas within twice the node timeout, and not when a slot
 *   claimed is served at a greater config epoch than the request's.
 * - Manual failover: the replica sends MFSTART; its primary pauses writes
 *   and sends its offset in a PING flagged PAUSED; once the replica has
 *   applied that much it runs an election without delay, which voters grant
 *   though the primary is up (FORCEACK). FORCE skips the handshake; TAKEOVER
 *   skips the election: a new config epoch without consensus, and the slots.
 * - Replica migration: when a slot-serving primary that had replicas has
 *   none working, a replica of the primary with the most (more than
 *   cluster-migration-barrier, two at least) moves to it, the one with the
 *   smallest name, after 5 s (cluster-allow-replica-migration).
 *
 * Owns nothing beyond cluster.h's failover_auth_* and mf_* fields. Sends
 * through cluster_send.h; the bus's receiver (cluster_gossip.c) calls in.
 * Only rbkv replication: a shard's nodes are one kind.
 */
#include "cluster_failover.h"

#include <inttypes.h>
#include <string.h>

#include "clock.h"
#include "cluster.h"
#include "cluster_config.h"
#include "cluster_msg.h"
#include "cluster_send.h"
#include "fastrand.h"
#include "log.h"
#include "mem.h"
#include "pause.h"
#include "repl_replica.h"
#include "repl_stream.h"
#include "server.h"

#define MF_TIMEOUT_MS 5000   /* Redis's CLUSTER_MF_TIMEOUT */
#define MF_PAUSE_MULT 2      /* CLUSTER_MF_PAUSE_MULT: the primary's pause lasts twice that */
#define ELECTION_DELAY_MS 500 /* fixed, and up to as much again at random */
#define RANK_DELAY_MS 1000
#define MIN_AUTH_TIMEOUT_MS 2000
#define VOTE_DELAY_MULT 2    /* no second vote for one primary's replicas before 2 node timeouts */
#define MIGRATION_DELAY_MS 5000 /* Redis's CLUSTER_SLAVE_MIGRATION_DELAY */

/* Why a replica of a FAIL primary does not fail over yet (Redis's
 * CLUSTER_CANT_FAILOVER_*), logged when it changes. */
enum cant_failover { CANT_NONE, CANT_DATA_AGE, CANT_WAITING_DELAY, CANT_EXPIRED, CANT_WAITING_VOTES };
static enum cant_failover cant_reason;

static void log_cant_failover(enum cant_failover reason)
{
    static const char *const why[] = {
        "",
        /* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one line, split for width */
        "Disconnected from master for longer than allowed. Please check the "
        "'cluster-replica-validity-factor' configuration option.",
        "Waiting the delay before I can start a new failover.",
        "Failover attempt expired.",
        "Waiting for votes, but majority still not reached.",
    };
    if (reason == cant_reason)
        return;
    cant_reason = reason;
    log_notice("Currently unable to failover: %s", why[reason]);
}

/* ---- Roles ---- */

/* The replication link follows primary's address. */
static void follow(const struct cluster_node *primary)
{
    if (server.cfg.replicaof_host && !strcmp(server.cfg.replicaof_host, primary->ip) &&
        server.cfg.replicaof_port == primary->port)
        return;
    repl_replica_follow(primary->ip, primary->port, 0);
    log_notice("Connecting to MASTER %s:%d", primary->ip, primary->port);
}

void cluster_failover_reset_manual(void)
{
    /* The pause is the manual failover's: only a primary that paused for
     * its replica ends one. */
    if (cluster->mf_replica)
        pause_end(PAUSE_BY_FAILOVER);
    cluster->mf_end = 0;
    cluster->mf_can_start = 0;
    cluster->mf_replica = NULL;
    cluster->mf_primary_offset = -1;
}

void cluster_failover_replicate(struct cluster_node *primary)
{
    struct cluster_node *me = cluster->myself;
    if (me->flags & CNODE_MASTER) {
        /* Redis's clusterCloseAllSlots: a replica migrates nothing. */
        memset(cluster->migrating_to, 0, sizeof(cluster->migrating_to));
        memset(cluster->importing_from, 0, sizeof(cluster->importing_from));
    }
    cluster_node_set_primary(me, primary);
    follow(primary);
    cluster_failover_reset_manual();
}

void cluster_failover_unset_primary(void)
{
    cluster_node_set_primary(cluster->myself, NULL);
    if (repl_replica_unfollow())
        log_notice("MASTER MODE enabled");
}

/* Redis's clusterFailoverReplaceYourMaster: myself stops replicating
 * (REPLICAOF NO ONE), takes every slot of its primary, saves and tells
 * every node. The caller has set the config epoch. */
static void replace_primary(void)
{
    struct cluster_node *me = cluster->myself, *old = me->primary;
    if ((me->flags & CNODE_MASTER) || !old)
        return;
    cluster_failover_unset_primary();
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        if (cluster->slots[s] == old) {
            cluster_del_slot(s);
            cluster_add_slot(me, s);
        }
    }
    cluster_changed(CLUSTER_TODO_SAVE | CLUSTER_TODO_FSYNC);
    cluster_send_broadcast_pong(0);
    cluster_failover_reset_manual();
}

/* ---- Votes ---- */

void cluster_failover_auth_request(struct cluster_node *sender, const struct cluster_msg_hdr *h)
{
    struct cluster_node *me = cluster->myself;
    struct cluster_node *primary = sender->primary;
    int force_ack = (h->mflags[0] & CLUSTER_MSG_FLAG0_FORCEACK) != 0;
    if (!(me->flags & CNODE_MASTER) || !me->numslots)
        return;
    if (h->current_epoch < cluster->current_epoch) {
        log_warning("Failover auth denied to %.40s: reqEpoch (%" PRIu64 ") < curEpoch(%" PRIu64
                    ")",
                    sender->name, h->current_epoch, cluster->current_epoch);
        return;
    }
    if (cluster->last_vote_epoch == cluster->current_epoch) {
        log_warning("Failover auth denied to %.40s: already voted for epoch %" PRIu64,
                    sender->name, cluster->current_epoch);
        return;
    }
    if ((sender->flags & CNODE_MASTER) || !primary || (!(primary->flags & CNODE_FAIL) && !force_ack)) {
        log_warning("Failover auth denied to %.40s: %s", sender->name,
                    (sender->flags & CNODE_MASTER) ? "it is a master node"
                    : !primary                     ? "I don't know its master"
                                                   : "its master is up");
        return;
    }
    int64_t now = mstime();
    int64_t wait = server.cfg.cluster_node_timeout * VOTE_DELAY_MULT;
    if (now - primary->voted_time < wait) {
        log_warning("Failover auth denied to %.40s: can't vote about this master before %lld "
                    "milliseconds",
                    sender->name, (long long)(wait - (now - primary->voted_time)));
        return;
    }
    /* Each slot claimed must be served at the request's config epoch or an
     * older one: a replica of an outdated primary asks for nothing. */
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        if (!(h->myslots[s / 8] & (1u << (s & 7))) || !cluster->slots[s] ||
            cluster->slots[s]->config_epoch <= h->config_epoch)
            continue;
        log_warning("Failover auth denied to %.40s: slot %d epoch (%" PRIu64
                    ") > reqEpoch (%" PRIu64 ")",
                    sender->name, s, cluster->slots[s]->config_epoch, h->config_epoch);
        return;
    }
    cluster->last_vote_epoch = cluster->current_epoch;
    primary->voted_time = now;
    /* The vote is recorded before it is sent: a restart never votes twice
     * in one epoch, even after a power loss (fsynced, as Redis). */
    cluster_changed(CLUSTER_TODO_SAVE | CLUSTER_TODO_FSYNC);
    cluster_send_bare(sender->link, CLUSTER_MSG_FAILOVER_AUTH_ACK);
    log_warning("Failover auth granted to %.40s for epoch %" PRIu64, sender->name,
                cluster->current_epoch);
}

/* Redis's clusterGetSlaveRank: the replicas of our primary that may fail
 * over and have a greater offset than ours. */
static int replica_rank(void)
{
    const struct cluster_node *me = cluster->myself;
    int rank = 0;
    for (int i = 0; me->primary && i < cluster->node_count; i++) {
        const struct cluster_node *n = cluster->nodes[i];
        rank += n != me && n->primary == me->primary && !(n->flags & CNODE_NOFAILOVER) &&
                n->repl_offset > repl.offset;
    }
    return rank;
}

/* Redis's clusterHandleSlaveFailover, run by the cron and on each vote. */
static void handle_failover(void)
{
    struct cluster_node *me = cluster->myself;
    int64_t now = mstime();
    int64_t auth_age = now - cluster->failover_auth_time;
    int quorum = cluster->size / 2 + 1;
    int manual = cluster->mf_end && cluster->mf_can_start;
    int64_t auth_timeout = server.cfg.cluster_node_timeout * 2;
    if (auth_timeout < MIN_AUTH_TIMEOUT_MS)
        auth_timeout = MIN_AUTH_TIMEOUT_MS;
    int64_t auth_retry = auth_timeout * 2;
    if ((me->flags & CNODE_MASTER) || !me->primary ||
        (!(me->primary->flags & CNODE_FAIL) && !manual) ||
        (server.cfg.cluster_replica_no_failover && !manual) || !me->primary->numslots) {
        cant_reason = CANT_NONE;
        return;
    }
    int64_t data_age = repl_replica_data_age();
    if (data_age > server.cfg.cluster_node_timeout)
        data_age -= server.cfg.cluster_node_timeout;
    if (server.cfg.cluster_replica_validity_factor && !manual &&
        data_age > server.cfg.repl_ping_replica_period * 1000 +
                       server.cfg.cluster_node_timeout * server.cfg.cluster_replica_validity_factor) {
        log_cant_failover(CANT_DATA_AGE);
        return;
    }
    if (auth_age > auth_retry) {
        cluster->failover_auth_time =
            now + ELECTION_DELAY_MS + (int64_t)fastrand_below(ELECTION_DELAY_MS);
        cluster->failover_auth_count = 0;
        cluster->failover_auth_sent = 0;
        cluster->failover_auth_rank = replica_rank();
        cluster->failover_auth_time += (int64_t)cluster->failover_auth_rank * RANK_DELAY_MS;
        if (cluster->mf_end) {
            cluster->failover_auth_time = now;
            cluster->failover_auth_rank = 0;
        }
        log_notice("Start of election delayed for %lld milliseconds (rank #%d, offset %lld).",
                   (long long)(cluster->failover_auth_time - now), cluster->failover_auth_rank,
                   repl.offset);
        /* Our offset reaches the other replicas at once: their ranks. */
        cluster_send_broadcast_pong(1);
        if (!cluster->mf_end)
            return;
        auth_age = now - cluster->failover_auth_time;
    }
    /* A replica overtaken while it waits waits longer. */
    if (!cluster->failover_auth_sent && !cluster->mf_end) {
        int rank = replica_rank();
        if (rank > cluster->failover_auth_rank) {
            int64_t added = (int64_t)(rank - cluster->failover_auth_rank) * RANK_DELAY_MS;
            cluster->failover_auth_time += added;
            cluster->failover_auth_rank = rank;
            log_notice("Replica rank updated to #%d, added %lld milliseconds of delay.", rank,
                       (long long)added);
        }
    }
    if (now < cluster->failover_auth_time) {
        log_cant_failover(CANT_WAITING_DELAY);
        return;
    }
    if (auth_age > auth_timeout) {
        log_cant_failover(CANT_EXPIRED);
        return;
    }
    if (!cluster->failover_auth_sent) {
        cluster->current_epoch++;
        cluster->failover_auth_epoch = cluster->current_epoch;
        log_notice("Starting a failover election for epoch %" PRIu64 ".", cluster->current_epoch);
        cluster_changed(CLUSTER_TODO_SAVE | CLUSTER_TODO_FSYNC);
        cluster_send_broadcast_bare(CLUSTER_MSG_FAILOVER_AUTH_REQUEST,
                                    cluster->mf_end ? CLUSTER_MSG_FLAG0_FORCEACK : 0);
        cluster->failover_auth_sent = 1;
        return;
    }
    if (cluster->failover_auth_count < quorum) {
        log_cant_failover(CANT_WAITING_VOTES);
        return;
    }
    log_notice("Failover election won: I'm the new master.");
    if (me->config_epoch < cluster->failover_auth_epoch) {
        me->config_epoch = cluster->failover_auth_epoch;
        log_notice("configEpoch set to %" PRIu64 " after successful failover", me->config_epoch);
    }
    replace_primary();
}

void cluster_failover_auth_ack(struct cluster_node *sender, const struct cluster_msg_hdr *h)
{
    /* Only a slot-serving primary's vote in this election counts. */
    if (!(sender->flags & CNODE_MASTER) || !sender->numslots ||
        h->current_epoch < cluster->failover_auth_epoch)
        return;
    cluster->failover_auth_count++;
    handle_failover();
}

/* ---- Manual failover ---- */

void cluster_failover_mfstart(struct cluster_link *l, struct cluster_node *sender)
{
    if (sender->primary != cluster->myself)
        return;
    cluster_failover_reset_manual();
    int64_t now = mstime();
    cluster->mf_end = now + MF_TIMEOUT_MS;
    cluster->mf_replica = sender;
    pause_start(PAUSE_BY_FAILOVER, PAUSE_WRITE, now + MF_TIMEOUT_MS * MF_PAUSE_MULT);
    log_warning("Manual failover requested by replica %.40s.", sender->name);
    /* Paused now: this PING's offset is final. */
    cluster_send_ping(l, CLUSTER_MSG_PING);
}

/* Redis's clusterHandleManualFailover: the election may start once the
 * paused primary's offset is applied here. */
static void handle_manual(void)
{
    if (!cluster->mf_end || cluster->mf_can_start || cluster->mf_primary_offset == -1)
        return;
    if (cluster->mf_primary_offset == repl.offset) {
        cluster->mf_can_start = 1;
        log_warning("All master replication stream processed, manual failover can start.");
        handle_failover();
    }
}

void cluster_failover_heard(struct cluster_node *sender, const struct cluster_msg_hdr *h)
{
    const struct cluster_node *me = cluster->myself;
    if (!cluster->mf_end || !(me->flags & CNODE_SLAVE) || me->primary != sender ||
        !(h->mflags[0] & CLUSTER_MSG_FLAG0_PAUSED) || cluster->mf_primary_offset != -1)
        return;
    cluster->mf_primary_offset = sender->repl_offset;
    log_warning("Received replication offset for paused master manual failover: %lld",
                cluster->mf_primary_offset);
    handle_manual();
}

int cluster_failover_manual(int force, int takeover, const char **err)
{
    struct cluster_node *me = cluster->myself;
    if (me->flags & CNODE_MASTER) {
        *err = "You should send CLUSTER FAILOVER to a replica";
        return -1;
    }
    if (!me->primary) {
        *err = "I'm a replica but my master is unknown to me";
        return -1;
    }
    if (!force && ((me->primary->flags & CNODE_FAIL) || !me->primary->link)) {
        *err = "Master is down or failed, please use CLUSTER FAILOVER FORCE";
        return -1;
    }
    cluster_failover_reset_manual();
    cluster->mf_end = mstime() + MF_TIMEOUT_MS;
    if (takeover) {
        log_warning("Taking over the master (user request).");
        if (cluster_bump_epoch())
            log_warning("New configEpoch set to %" PRIu64, me->config_epoch);
        replace_primary();
    } else if (force) {
        log_warning("Forced failover user request accepted.");
        cluster->mf_can_start = 1;
    } else {
        log_warning("Manual failover user request accepted.");
        cluster_send_bare(me->primary->link, CLUSTER_MSG_MFSTART);
    }
    return 0;
}

/* ---- Replica migration ---- */

/* Redis's clusterCountNonFailingSlaves. */
static int working_replicas(const struct cluster_node *primary)
{
    int count = 0;
    for (int i = 0; i < cluster->node_count; i++)
        count += cluster->nodes[i]->primary == primary && !(cluster->nodes[i]->flags & CNODE_FAIL);
    return count;
}

/* Redis's clusterHandleSlaveMigration: a replica of a primary with the most
 * working replicas, more than cluster-migration-barrier, and the smallest
 * name among them, moves to a primary orphaned for MIGRATION_DELAY_MS. */
static void migrate_if_needed(int max_replicas)
{
    struct cluster_node *me = cluster->myself, *mine = me->primary;
    if (cluster->state != CLUSTER_STATE_OK || !mine)
        return;
    int ok = 0;
    for (int i = 0; i < cluster->node_count; i++) {
        const struct cluster_node *n = cluster->nodes[i];
        ok += n->primary == mine && !(n->flags & (CNODE_FAIL | CNODE_PFAIL));
    }
    if (ok <= server.cfg.cluster_migration_barrier)
        return;
    struct cluster_node *target = NULL, *candidate = me;
    int64_t now = mstime();
    for (int i = 0; i < cluster->node_count; i++) {
        struct cluster_node *n = cluster->nodes[i];
        int replicas = (n->flags & CNODE_MASTER) ? working_replicas(n) : 0;
        int orphaned = (n->flags & CNODE_MASTER) && !(n->flags & CNODE_FAIL) &&
                       (n->flags & CNODE_MIGRATE_TO) && !replicas;
        if (orphaned) {
            if (!target && n->numslots)
                target = n;
            if (!n->orphaned_time)
                n->orphaned_time = now;
        } else {
            n->orphaned_time = 0;
        }
        if (replicas != max_replicas)
            continue;
        for (int j = 0; j < cluster->node_count; j++) {
            struct cluster_node *r = cluster->nodes[j];
            if (r->primary == n && memcmp(r->name, candidate->name, CLUSTER_NAMELEN) < 0)
                candidate = r;
        }
    }
    /* The orphan's own replicas get time to say they moved to its new
     * primary first (a failover in progress). */
    if (target && candidate == me && now - target->orphaned_time > MIGRATION_DELAY_MS) {
        log_notice("Migrating to orphaned master %.40s", target->name);
        cluster_failover_replicate(target);
        cluster_changed(CLUSTER_TODO_SAVE);
    }
}

/* Redis's clusterCron's census for migration: whether a slot-serving
 * primary that had replicas has none working, the most working replicas
 * any primary has, and how many ours has. */
static void consider_migration(void)
{
    const struct cluster_node *me = cluster->myself;
    int orphaned = 0, max_replicas = 0, ours = 0;
    for (int i = 0; i < cluster->node_count; i++) {
        const struct cluster_node *n = cluster->nodes[i];
        if (!(n->flags & CNODE_MASTER) || (n->flags & CNODE_FAIL))
            continue;
        int replicas = working_replicas(n);
        orphaned += !replicas && n->numslots && (n->flags & CNODE_MIGRATE_TO);
        if (replicas > max_replicas)
            max_replicas = replicas;
        if (me->primary == n)
            ours = replicas;
    }
    /* Only a primary with two working replicas at least can spare one. */
    if (orphaned && max_replicas >= 2 && ours == max_replicas &&
        server.cfg.cluster_allow_replica_migration)
        migrate_if_needed(max_replicas);
}

/* ---- The cron ---- */

void cluster_failover_cron(void)
{
    struct cluster_node *me = cluster->myself;
    if (cluster->mf_end && cluster->mf_end < mstime()) {
        log_warning("Manual failover timed out.");
        cluster_failover_reset_manual();
    }
    /* A paused primary keeps telling its replica the offset to reach. */
    if ((me->flags & CNODE_MASTER) && cluster->mf_end && cluster->mf_replica &&
        cluster->mf_replica->link)
        cluster_send_ping(cluster->mf_replica->link, CLUSTER_MSG_PING);
    if (!(me->flags & CNODE_SLAVE))
        return;
    /* A replica loaded from nodes.conf, or whose primary moved, replicates
     * from where its primary is now. */
    if (me->primary && me->primary->ip[0] && !(me->primary->flags & CNODE_NOADDR))
        follow(me->primary);
    handle_manual();
    handle_failover();
    consider_migration();
}
