/*
 * cluster_route.c - redirection (cluster_route.h): Redis 7.0's
 * getNodeByQuery for each keyed request, or EXEC's whole queue, with
 * clusterRedirectClient's replies.
 *
 * A request's keys come from its key specs (keyspec.h), the same walk the
 * ACLs and COMMAND GETKEYS use, so every keyed command (EVAL's and FCALL's
 * declared keys, rbkv's ordered commands' keys too) is routed by what
 * COMMAND tells clients; SPUBLISH, SSUBSCRIBE and SUNSUBSCRIBE by their
 * shard channels. Keyless commands run anywhere.
 */
#include "cluster_route.h"

#include <string.h>

#include "blocking.h"
#include "client.h"
#include "clock.h"
#include "cluster.h"
#include "cluster_query.h"
#include "command.h"
#include "keyspace.h"
#include "keyspec.h"
#include "multi.h"
#include "resp_writer.h"
#include "server.h"

/* Redis's CLUSTER_REDIR_*. */
enum redirect {
    REDIR_NONE,
    REDIR_CROSS_SLOT,
    REDIR_UNSTABLE,
    REDIR_ASK,
    REDIR_MOVED,
    REDIR_DOWN_STATE,
    REDIR_DOWN_UNBOUND,
    REDIR_DOWN_RO_STATE,
};

/* What the walk over a request's keys (or a queue's) found. */
struct query {
    const struct resp_slice *first; /* the first key, NULL until one */
    int slot;
    struct cluster_node *owner;
    int migrating, importing, multiple_keys, missing_keys, cross_slot;
    int unbound;
    int shard; /* SPUBLISH, SSUBSCRIBE, SUNSUBSCRIBE: routed by their channels */
    /* the command whose keys are being walked */
    const struct resp_slice *argv;
};

static const struct command *exec_cmd, *asking_cmd, *migrate_cmd, *kdelrange_cmd;

const char *cluster_preferred_endpoint(const struct cluster_node *n)
{
    switch (server.cfg.cluster_preferred_endpoint_type) {
    case CLUSTER_ENDPOINT_HOSTNAME:
        return n->hostname ? n->hostname : "?";
    case CLUSTER_ENDPOINT_UNKNOWN:
        return "";
    default:
        return n->ip;
    }
}

int cluster_client_port(const struct cluster_node *n, int plaintext_client)
{
    return server.cfg.tls_cluster && plaintext_client && n->pport ? n->pport : n->port;
}

static int visit_key(void *ctx, int pos, unsigned flags)
{
    (void)flags;
    struct query *q = ctx;
    const struct resp_slice *key = &q->argv[pos];
    int slot = (int)key_hash_slot(key->ptr, key->len);
    if (!q->first) {
        q->first = key;
        q->slot = slot;
        q->owner = cluster->slots[slot];
        if (!q->owner) {
            q->unbound = 1;
            return 1;
        }
        /* An open slot serves only requests whose keys are all here. */
        if (q->owner == cluster->myself && cluster->migrating_to[slot])
            q->migrating = 1;
        else if (cluster->importing_from[slot])
            q->importing = 1;
    } else if (key->len != q->first->len || memcmp(key->ptr, q->first->ptr, key->len)) {
        if (slot != q->slot) {
            q->cross_slot = 1;
            return 1;
        }
        q->multiple_keys = 1;
    }
    /* A shard channel is served by the slot's source until the slot
     * moves: whether it "exists" here does not matter. */
    if ((q->migrating || q->importing) && !q->shard &&
        !ks_lookup(&server.ks->dbs[0], key->ptr, key->len, mstime()))
        q->missing_keys++;
    return 0;
}

/* Walks cmd's keys by its specs (keyspec_of(cmd), NULL for none). */
static int visit_specs(struct query *q, const struct command *cmd,
                       const struct command_key_specs *specs, int argc,
                       const struct resp_slice *argv)
{
    if (!specs)
        return 0;
    q->argv = argv;
    if (keyspec_has_keys(specs)) {
        keyspec_visit(specs, argc, argv, visit_key, q);
    } else {
        /* Its specs name shard channels (NOT_KEY), which Redis routes by
         * their slots as keys. */
        q->shard = 1;
        int last = cmd->last_channel < 0 ? argc + cmd->last_channel : cmd->last_channel;
        for (int i = cmd->first_channel; i > 0 && i <= last && i < argc; i++)
            if (visit_key(q, i, 0))
                break;
    }
    return q->cross_slot || q->unbound;
}

static int visit_command(void *ctx, const struct command *cmd, int argc,
                         const struct resp_slice *argv)
{
    return visit_specs(ctx, cmd, keyspec_of(cmd), argc, argv);
}

/* Redis's getNodeByQuery: the node that serves cmd with argc/argv, asked by
 * c (its ASKING, READONLY and, for EXEC, its queue), NULL with *why set when
 * none may; *slot is the keys' slot (left alone when there is no key). With
 * range set, the keys are that one {hash tag}'s range instead of argv's.
 * specs is keyspec_of(cmd), which the callers have asked already (unused
 * for EXEC and a range). */
static struct cluster_node *node_for_query(struct client *c, const struct command *cmd,
                                           const struct command_key_specs *specs, int argc,
                                           const struct resp_slice *argv,
                                           const struct resp_slice *range, int *slot,
                                           enum redirect *why)
{
    struct query q = {0};
    *why = REDIR_NONE;
    /* As Redis: the down state's read-only rule asks the command itself
     * (EXEC is no write), READONLY's the transaction's writes too. */
    int write = (cmd->flags & CMD_WRITE) != 0, writes = write;
    if (cmd == exec_cmd) {
        if (!c->multi)
            return cluster->myself;
        multi_visit(c, visit_command, &q);
        writes = multi_has_write(c);
    } else if (range) {
        /* A range within one {hash tag}: routed by its slot; whether its
         * keys are here does not matter (an open slot's range is answered
         * for the whole cluster, cluster_query.c). */
        q.argv = range;
        q.shard = 1;
        visit_key(&q, 0, 0);
        q.shard = 0;
        q.migrating = q.importing = 0;
    } else {
        visit_specs(&q, cmd, specs, argc, argv);
    }
    if (q.unbound) {
        *why = REDIR_DOWN_UNBOUND;
        return NULL;
    }
    if (q.cross_slot) {
        *why = REDIR_CROSS_SLOT;
        return NULL;
    }
    if (!q.owner)
        return cluster->myself;
    if (cluster->state != CLUSTER_STATE_OK) {
        if (q.shard) {
            if (!server.cfg.cluster_allow_pubsubshard_when_down) {
                *why = REDIR_DOWN_STATE;
                return NULL;
            }
        } else if (!server.cfg.cluster_allow_reads_when_down) {
            *why = REDIR_DOWN_STATE;
            return NULL;
        }
        if (write) {
            *why = REDIR_DOWN_RO_STATE;
            return NULL;
        }
    }
    *slot = q.slot;
    /* MIGRATE runs here while the slot is open either way: resharding moves
     * the keys that are here, whichever are missing. */
    if ((q.migrating || q.importing) && cmd == migrate_cmd)
        return cluster->myself;
    if (q.migrating && q.missing_keys) {
        *why = REDIR_ASK;
        return cluster->migrating_to[q.slot];
    }
    /* RESTORE-ASKING carries its own ASKING (CMD_ASKING), as Redis's. */
    if (q.importing && ((c->flags & CLIENT_ASKING) || (cmd->flags & CMD_ASKING))) {
        if (q.multiple_keys && q.missing_keys) {
            *why = REDIR_UNSTABLE;
            return NULL;
        }
        return cluster->myself;
    }
    /* A replica serves reads of its primary's slots to READONLY clients,
     * and its shard channels to anyone. */
    struct cluster_node *me = cluster->myself;
    if (((c->flags & CLIENT_READONLY) || q.shard) && !writes && (me->flags & CNODE_SLAVE) &&
        me->primary == q.owner)
        return me;
    if (q.owner != me)
        *why = REDIR_MOVED;
    return q.owner;
}

static void reply_redirect(struct client *c, const struct cluster_node *n, int slot,
                           enum redirect why)
{
    switch (why) {
    case REDIR_CROSS_SLOT:
        resp_add_error(&c->out, "CROSSSLOT Keys in request don't hash to the same slot");
        break;
    case REDIR_UNSTABLE:
        resp_add_error(&c->out, "TRYAGAIN Multiple keys request during rehashing of slot");
        break;
    case REDIR_DOWN_STATE:
        resp_add_error(&c->out, "CLUSTERDOWN The cluster is down");
        break;
    case REDIR_DOWN_RO_STATE:
        resp_add_error(&c->out, "CLUSTERDOWN The cluster is down and only accepts read commands");
        break;
    case REDIR_DOWN_UNBOUND:
        resp_add_error(&c->out, "CLUSTERDOWN Hash slot not served");
        break;
    default:
        resp_add_errorf(&c->out, "%s %d %s:%d", why == REDIR_ASK ? "ASK" : "MOVED", slot,
                        cluster_preferred_endpoint(n), cluster_client_port(n, !c->tls));
        break;
    }
}

static int route_refuses(struct client *c, const struct command *cmd)
{
    int slot = 0;
    enum redirect why;
    struct resp_slice tagged, *range = NULL;
    const struct command_key_specs *specs = NULL;
    if (cmd != exec_cmd) {
        switch (cluster_query_scope(c, c->argc, c->argv, &tagged)) {
        case CQ_SCOPE_LOCAL:
        case CQ_SCOPE_CLUSTER:
            /* Answered here for the whole cluster, or a part of that. */
            if (cmd != kdelrange_cmd)
                return 0;
            /* Deleting across slots would need every node to delete its
             * part at once, which nothing makes atomic. */
            reply_redirect(c, NULL, 0, REDIR_CROSS_SLOT);
            return 1;
        case CQ_SCOPE_SLOT:
            range = &tagged;
            break;
        case CQ_SCOPE_NONE: {
            if (!(specs = keyspec_of(cmd)))
                return 0;
            /* The common case, what node_for_query would find without its
             * walk: one key, of a stable slot served here, the cluster up
             * (then neither ASKING, READONLY nor the down rules matter). */
            int at = keyspec_single_key(specs, c->argc);
            if (at && cluster->state == CLUSTER_STATE_OK) {
                unsigned s = key_hash_slot(c->argv[at].ptr, c->argv[at].len);
                if (cluster->slots[s] == cluster->myself && !cluster->migrating_to[s] &&
                    !cluster->importing_from[s])
                    return 0;
            }
            break;
        }
        }
    }
    struct cluster_node *n = node_for_query(c, cmd, specs, c->argc, c->argv, range, &slot, &why);
    if (n == cluster->myself)
        return 0;
    /* Redis discards a redirected EXEC's transaction; a queued command's
     * refusal dooms its transaction (the dispatcher flags it). */
    if (cmd == exec_cmd)
        multi_discard(c);
    reply_redirect(c, n, slot, why);
    return 1;
}

/* Redis 7.0.15's scriptVerifyClusterState: a script's command is asked
 * where it runs as the caller's request would be (its ASKING and READONLY);
 * the primary's link and the log's replay are obeyed. Then, unless
 * cross_slot, its keys must share the run's slot. */
static const char *route_script_refuses(struct client *caller, const struct command *cmd,
                                        int argc, const struct resp_slice *argv, int cross_slot,
                                        int *run_slot)
{
    const struct command_key_specs *specs;
    if ((caller->flags & CLIENT_MASTER) || caller->id == 0 || !(specs = keyspec_of(cmd)))
        return NULL;
    int slot = -1;
    enum redirect why;
    if (node_for_query(caller, cmd, specs, argc, argv, NULL, &slot, &why) != cluster->myself) {
        switch (why) {
        case REDIR_DOWN_RO_STATE:
            return "Script attempted to execute a write command while the cluster is down and "
                   "readonly";
        case REDIR_DOWN_STATE:
            return "Script attempted to execute a command while the cluster is down";
        default: /* Redis 7.0 names a cross-slot command so too */
            return "Script attempted to access a non local key in a cluster node";
        }
    }
    if (slot != -1 && !cross_slot) {
        if (*run_slot == -1)
            *run_slot = slot;
        else if (*run_slot != slot)
            return "Script attempted to access keys that do not hash to the same slot";
    }
    return NULL;
}

void cluster_route_blocked(void)
{
    if (!block_count())
        return;
    struct cluster_node *me = cluster->myself;
    for (struct client *c = server.clients; c; c = c->next) {
        const char *key;
        size_t klen;
        if (!block_first_key(c, &key, &klen))
            continue;
        /* Down: even with reads allowed, the write that would serve the
         * wait may never come. */
        if (cluster->state != CLUSTER_STATE_OK) {
            reply_redirect(c, NULL, 0, REDIR_DOWN_STATE);
            block_abort(c);
            continue;
        }
        int slot = (int)key_hash_slot(key, klen);
        struct cluster_node *n = cluster->slots[slot];
        /* A replica serves its primary's keys to a READONLY reader. */
        if ((c->flags & CLIENT_READONLY) && c->last_cmd && !(c->last_cmd->flags & CMD_WRITE) &&
            (me->flags & CNODE_SLAVE) && me->primary == n)
            n = me;
        if (n == me || cluster->importing_from[slot])
            continue;
        reply_redirect(c, n, slot, n ? REDIR_MOVED : REDIR_DOWN_UNBOUND);
        block_abort(c);
    }
    /* From the cron, a loop callback: their replies go out now, and what
     * they pipelined runs. */
    block_run_unblocked();
}

/* ASKING lasts for the next command, or the whole transaction it opens. */
static void route_done(struct client *c, const struct command *cmd)
{
    if (!c->multi && cmd != asking_cmd)
        c->flags &= ~CLIENT_ASKING;
}

void cluster_route_init(void)
{
    static const struct command_route route = {
        .refuses = route_refuses, .done = route_done, .script_refuses = route_script_refuses};
    exec_cmd = command_lookup("exec", 4);
    asking_cmd = command_lookup("asking", 6);
    migrate_cmd = command_lookup_builtin("migrate", 7);
    kdelrange_cmd = command_lookup("kdelrange", 9);
    command_on_route(&route);
}
