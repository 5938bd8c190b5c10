/*
 * cluster_gossip.c - what the bus's messages carry and what this node does
 * on receipt (cluster_gossip.h), after Redis 7.0's cluster.c:
 *
 * - MEET: CLUSTER MEET makes a node in handshake under a random name; the
 *   cron opens a link and sends MEET; the peer adds us (in handshake too)
 *   and answers PONG, whose sender names the node for real. A node that is
 *   met learns the others from the gossip of the nodes it knows, and links
 *   to them under their real names (no handshake: the name is known).
 * - PING/PONG: each carries the sender's slots at its config epoch, its
 *   current epoch, its primary, and a few other nodes (a tenth of them, at
 *   least 3) plus every node it holds PFAIL. A slot goes to the sender when
 *   its owner's config epoch is lower (cluster.h's rule); a sender claiming
 *   a slot whose owner has a greater epoch is sent an UPDATE. Two primaries
 *   of one config epoch: the one with the smaller node id takes a new one.
 * - FAIL and failure reports: cluster_failure.c's rules, fed from here.
 *
 * - FAILOVER_AUTH_REQUEST/ACK and MFSTART: handed to cluster_failover.c.
 *
 * - PUBLISH/PUBLISHSHARD: handed to cluster_pubsub.c.
 *
 * Owns: the received-message counters and the cron's clock. Not here:
 * MODULE, which is counted and ignored.
 */
#include "cluster_gossip.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "clock.h"
#include "cluster.h"
#include "cluster_bus.h"
#include "cluster_config.h"
#include "cluster_failover.h"
#include "cluster_failure.h"
#include "cluster_msg.h"
#include "cluster_pubsub.h"
#include "cluster_send.h"
#include "fastrand.h"
#include "log.h"
#include "mem.h"
#include "repl_stream.h"
#include "server.h"

#define CRON_PERIOD_MS 100
#define BAN_MS 60000 /* Redis's CLUSTER_BLACKLIST_TTL */
#define BAN_SLOTS 64 /* forgotten at once: more replace the ones that end first */

static struct {
    unsigned long long received[CLUSTER_MSG_TYPE_COUNT];
    int64_t last_cron;
    unsigned long iteration;
    struct {
        char name[CLUSTER_NAMELEN];
        int64_t until; /* unix ms; 0 for a free entry */
    } bans[BAN_SLOTS];
} gossip;

static int is_primary(const struct cluster_node *n)
{
    return (n->flags & CNODE_MASTER) != 0;
}

static int valid_name(const char *p)
{
    for (int i = 0; i < CLUSTER_NAMELEN; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return 0;
    return 1;
}


/* ---- MEET ---- */

int cluster_gossip_meet(const char *ip, long long port, long long cport)
{
    unsigned char addr[sizeof(struct in6_addr)];
    char norm[CLUSTER_IPLEN];
    /* Redis normalizes the address, so one node is not met twice under two
     * spellings of it; a name that is not an address is refused. */
    if (inet_pton(AF_INET, ip, addr) == 1)
        inet_ntop(AF_INET, addr, norm, sizeof(norm));
    else if (inet_pton(AF_INET6, ip, addr) == 1)
        inet_ntop(AF_INET6, addr, norm, sizeof(norm));
    else
        return -1;
    if (port <= 0 || port > 65535 || cport <= 0 || cport > 65535)
        return -1;
    for (int i = 0; i < cluster->node_count; i++) {
        const struct cluster_node *n = cluster->nodes[i];
        if ((n->flags & CNODE_HANDSHAKE) && !strcasecmp(n->ip, norm) && n->port == port &&
            n->cport == cport)
            return 0;
    }
    struct cluster_node *n = cluster_node_new(NULL, CNODE_HANDSHAKE | CNODE_MEET);
    cluster_node_set_addr(n, norm, (int)port, (int)cport, NULL);
    cluster_add_node(n);
    return 0;
}

/* ---- Forgotten nodes ---- */

void cluster_gossip_ban(const char *name)
{
    int64_t now = mstime();
    int slot = 0;
    for (int i = 0; i < BAN_SLOTS; i++) {
        if (gossip.bans[i].until > now && !memcmp(gossip.bans[i].name, name, CLUSTER_NAMELEN)) {
            slot = i;
            break;
        }
        if (gossip.bans[i].until < gossip.bans[slot].until)
            slot = i;
    }
    memcpy(gossip.bans[slot].name, name, CLUSTER_NAMELEN);
    gossip.bans[slot].until = now + BAN_MS;
}

static int banned(const char *name, int64_t now)
{
    for (int i = 0; i < BAN_SLOTS; i++)
        if (gossip.bans[i].until > now && !memcmp(gossip.bans[i].name, name, CLUSTER_NAMELEN))
            return 1;
    return 0;
}

/* ---- Receiving ---- */

/* The address a message announces for its sender: its myip, else the
 * link's peer. */
static void sender_ip(const struct cluster_link *l, const struct cluster_msg_hdr *h, char *ip)
{
    if (h->myip[0]) {
        memcpy(ip, h->myip, CLUSTER_IPLEN - 1);
        ip[CLUSTER_IPLEN - 1] = '\0';
    } else if (cluster_link_peer_ip(l, ip, CLUSTER_IPLEN) < 0) {
        ip[0] = '\0';
    }
}

/* Redis's nodeUpdateAddressIfNeeded: n speaks from another address than we
 * knew (it restarted elsewhere): take it, and drop the link to the old. */
static int update_address(struct cluster_node *n, const struct cluster_link *l,
                          const struct cluster_msg_hdr *h)
{
    char ip[CLUSTER_IPLEN];
    if (n == cluster->myself)
        return 0;
    sender_ip(l, h, ip);
    if (!ip[0] || (!strcmp(ip, n->ip) && n->port == h->port && n->cport == h->cport))
        return 0;
    cluster_node_set_addr(n, ip, h->port, h->cport, n->hostname);
    if (n->link)
        cluster_link_close(n->link);
    n->flags &= ~CNODE_NOADDR;
    log_notice("Address updated for node %.40s, now %s:%d", n->name, n->ip, n->port);
    return 1;
}

/* Redis's clusterUpdateSlotsConfigWith: sender, at config epoch epoch,
 * serves slots; each goes to it unless its owner's epoch is not lower or
 * this node imports it. A node whose shard lost its last slot this way
 * becomes a replica of the sender (a failover happened: the old primary
 * and its other replicas follow the new one); a primary that lost only
 * some slots drops their keys. */
static int take_slots(struct cluster_node *sender, uint64_t epoch, const unsigned char *slots)
{
    struct cluster_node *me = cluster->myself;
    if (sender == me) {
        log_notice("Discarding UPDATE message about myself.");
        return 0;
    }
    struct cluster_node *mine = cluster_node_owner(me);
    unsigned char dirty[CLUSTER_SLOTS / 8] = {0};
    int changed = 0, lost = 0, dirty_count = 0, sender_slots = 0;
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        if (!(slots[s / 8] & (1u << (s & 7))))
            continue;
        sender_slots++;
        if (cluster->slots[s] == sender || cluster->importing_from[s])
            continue;
        struct cluster_node *owner = cluster->slots[s];
        if (owner && owner->config_epoch >= epoch)
            continue;
        if (owner == me && cluster_slot_has_keys(s)) {
            dirty[s / 8] |= (unsigned char)(1u << (s & 7));
            dirty_count++;
        }
        lost += owner == mine;
        cluster_del_slot(s);
        cluster_add_slot(sender, s);
        changed = 1;
    }
    if (!changed)
        return 0;
    cluster->todo |= CLUSTER_TODO_FSYNC;
    if (lost && !mine->numslots &&
        (server.cfg.cluster_allow_replica_migration || sender_slots == lost)) {
        log_warning("Configuration change detected. Reconfiguring myself as a replica of %.40s",
                    sender->name);
        cluster_failover_replicate(sender);
    } else if (me->primary && me->primary->primary && me->primary->primary != me) {
        /* No replica of a replica: follow the primary's primary. */
        cluster_failover_replicate(me->primary->primary);
    } else if (dirty_count) {
        for (int s = 0; s < CLUSTER_SLOTS; s++)
            if (dirty[s / 8] & (1u << (s & 7)))
                cluster_del_slot_keys(s);
    }
    return changed;
}

/* Redis's clusterHandleConfigEpochCollision: two primaries of one config
 * epoch; the one with the smaller node id takes a new epoch. */
static int handle_epoch_collision(const struct cluster_node *sender)
{
    struct cluster_node *me = cluster->myself;
    if (sender->config_epoch != me->config_epoch || !is_primary(sender) || !is_primary(me) ||
        memcmp(sender->name, me->name, CLUSTER_NAMELEN) <= 0)
        return 0;
    cluster->current_epoch++;
    me->config_epoch = cluster->current_epoch;
    cluster->todo |= CLUSTER_TODO_FSYNC;
    log_verbose("WARNING: configEpoch collision with node %.40s. configEpoch set to %" PRIu64,
                sender->name, me->config_epoch);
    return 1;
}

/* Redis's clusterProcessGossipSection: what sender says of the others. */
static int process_gossip(const struct cluster_msg *m, struct cluster_node *sender, int64_t now)
{
    int changed = 0;
    for (uint16_t i = 0; i < m->hdr.count; i++) {
        struct cluster_msg_gossip g;
        cluster_msg_gossip_at(m, i, &g);
        unsigned flags = cluster_send_flags_from_wire(g.flags);
        struct cluster_node *n = cluster_lookup(g.nodename, CLUSTER_NAMELEN);
        if (!n) {
            /* Only a node we know may introduce another, by its real name
             * (not by address: it may belong to another cluster now). */
            if ((flags & CNODE_NOADDR) || !valid_name(g.nodename) || banned(g.nodename, now))
                continue;
            n = cluster_node_new(g.nodename, flags & ~(CNODE_MYSELF | CNODE_MEET |
                                                       CNODE_HANDSHAKE | CNODE_PFAIL));
            cluster_node_set_addr(n, g.ip, g.port, g.cport, NULL);
            n->pport = g.pport;
            cluster_add_node(n);
            changed = 1;
            continue;
        }
        if (is_primary(sender) && n != cluster->myself) {
            if (flags & (CNODE_FAIL | CNODE_PFAIL)) {
                if (!cluster_node_del_report(n, sender))
                    log_verbose("Node %.40s reported node %.40s as not reachable.", sender->name,
                                n->name);
                cluster_node_add_report(n, sender, now);
                /* Every reachable node hears of a FAIL at once, so none
                 * waits for its own majority. */
                if (cluster_failure_mark_if_needed(n, now))
                    cluster_send_fail(n);
            } else if (cluster_node_del_report(n, sender)) {
                log_verbose("Node %.40s reported node %.40s is back online.", sender->name,
                            n->name);
            }
        }
        /* A PONG the sender got recently counts as ours, so a node idle on
         * our link is not pinged for nothing. */
        if (!(flags & (CNODE_FAIL | CNODE_PFAIL)) && n->ping_sent == 0 &&
            cluster_failure_count(n, now) == 0) {
            int64_t pong = (int64_t)g.pong_received * 1000;
            if (pong <= now + 500 && pong > n->pong_received)
                n->pong_received = pong;
        }
        /* A node we cannot reach, seen elsewhere by one who can. */
        if ((n->flags & (CNODE_FAIL | CNODE_PFAIL)) && !(flags & CNODE_NOADDR) &&
            !(flags & (CNODE_FAIL | CNODE_PFAIL)) && n != cluster->myself &&
            (strcasecmp(n->ip, g.ip) || n->port != g.port || n->cport != g.cport)) {
            if (n->link)
                cluster_link_close(n->link);
            cluster_node_set_addr(n, g.ip, g.port, g.cport, n->hostname);
            n->pport = g.pport;
            n->flags &= ~CNODE_NOADDR;
            changed = 1;
        }
    }
    return changed;
}

/* The sender's primary (or none) as the header names it. */
static int update_role(struct cluster_node *sender, const struct cluster_msg_hdr *h)
{
    static const char none[CLUSTER_NAMELEN];
    if (!memcmp(h->slaveof, none, CLUSTER_NAMELEN)) {
        if (is_primary(sender))
            return 0;
        cluster_node_set_primary(sender, NULL);
        return 1;
    }
    struct cluster_node *primary = cluster_lookup(h->slaveof, CLUSTER_NAMELEN);
    int changed = 0;
    if (is_primary(sender)) {
        /* A primary turned replica gives up its slots (Redis: its new
         * primary's config says who serves them); a replica of a primary
         * not known yet is a replica all the same. */
        cluster_del_node_slots(sender);
        sender->flags = (sender->flags & ~CNODE_MASTER) | CNODE_SLAVE;
        changed = 1;
    }
    if (primary && sender->primary != primary && primary != sender) {
        cluster_node_set_primary(sender, primary);
        changed = 1;
    }
    return changed;
}

static int slots_differ(const struct cluster_node *owner, const unsigned char *slots)
{
    for (int s = 0; s < CLUSTER_SLOTS; s++)
        if (((slots[s / 8] >> (s & 7)) & 1) != (cluster->slots[s] == owner))
            return 1;
    return 0;
}

/* PING, PONG and MEET (Redis's clusterProcessPacket for those types).
 * Returns CLUSTER_TODO_SAVE when the state changed, -1 when l closed. */
static int process_ping(struct cluster_link *l, const struct cluster_msg *m,
                        struct cluster_node *sender, int64_t now)
{
    const struct cluster_msg_hdr *h = &m->hdr;
    struct cluster_node *me = cluster->myself;
    int todo = 0;
    if (h->type == CLUSTER_MSG_PING || h->type == CLUSTER_MSG_MEET) {
        /* The address others reach us at, as the one who met us sees it. */
        if ((h->type == CLUSTER_MSG_MEET || !me->ip[0]) && !server.cfg.cluster_announce_ip) {
            char ip[CLUSTER_IPLEN];
            if (cluster_link_local_ip(l, ip, sizeof(ip)) == 0 && strcmp(ip, me->ip)) {
                cluster_node_set_addr(me, ip, me->port, me->cport, me->hostname);
                log_notice("IP address for this node updated to %s", me->ip);
                todo = CLUSTER_TODO_SAVE;
            }
        }
        if (!sender && h->type == CLUSTER_MSG_MEET) {
            char ip[CLUSTER_IPLEN];
            sender_ip(l, h, ip);
            struct cluster_node *n = cluster_node_new(NULL, CNODE_HANDSHAKE);
            cluster_node_set_addr(n, ip, h->port, h->cport, NULL);
            n->pport = h->pport;
            cluster_add_node(n);
        }
        if (sender && h->type == CLUSTER_MSG_PING && update_address(sender, l, h))
            todo = CLUSTER_TODO_SAVE;
        cluster_send_ping(l, CLUSTER_MSG_PONG);
    }
    struct cluster_node *peer = cluster_link_inbound(l) ? NULL : cluster_link_node(l);
    if (peer && (peer->flags & CNODE_HANDSHAKE)) {
        if (sender) {
            /* We knew it already, under its name: the handshake node
             * goes, its address may be news. */
            update_address(sender, l, h);
            cluster_del_node(peer);
            return CLUSTER_TODO_SAVE;
        }
        if (!valid_name(h->sender)) {
            cluster_link_close(l);
            return -1;
        }
        memcpy(peer->name, h->sender, CLUSTER_NAMELEN);
        peer->flags &= ~CNODE_HANDSHAKE;
        peer->flags |= cluster_send_flags_from_wire(h->flags) & (CNODE_MASTER | CNODE_SLAVE);
        log_verbose("Handshake with node %.40s completed.", peer->name);
        todo = CLUSTER_TODO_SAVE;
    } else if (peer && memcmp(peer->name, h->sender, CLUSTER_NAMELEN)) {
        /* Another node answers at its address: the address is stale. */
        log_verbose("PONG contains mismatching sender ID. About node %.40s added %d ms ago, "
                    "having flags %u",
                    peer->name, (int)(now - peer->ctime), peer->flags);
        peer->flags |= CNODE_NOADDR;
        peer->ip[0] = '\0';
        peer->port = peer->cport = 0;
        cluster_link_close(l);
        return CLUSTER_TODO_SAVE;
    }
    if (sender) {
        const char *host = m->body.ping.hostname;
        size_t host_len = host ? m->body.ping.hostname_len : 0;
        if (host_len != (sender->hostname ? strlen(sender->hostname) : 0) ||
            (host_len && memcmp(host, sender->hostname, host_len))) {
            char *copy = host_len ? xmemdup(host, host_len) : NULL;
            cluster_node_set_addr(sender, NULL, sender->port, sender->cport, copy);
            xfree(copy);
            todo = CLUSTER_TODO_SAVE;
        }
        sender->flags = (sender->flags & ~CNODE_NOFAILOVER) |
                        (cluster_send_flags_from_wire(h->flags) & CNODE_NOFAILOVER);
    }
    if (peer && h->type == CLUSTER_MSG_PONG) {
        peer->pong_received = now;
        peer->ping_sent = 0;
        if (peer->flags & CNODE_PFAIL) {
            peer->flags &= ~CNODE_PFAIL;
            cluster_changed(0);
        } else if (peer->flags & CNODE_FAIL) {
            cluster_failure_clear_if_needed(peer, now);
        }
    }
    if (!sender || sender == me)
        return todo;
    if (update_role(sender, h))
        todo = CLUSTER_TODO_SAVE;
    /* Whose slots the header shows: the sender's, or its primary's when
     * it is a replica (none while that primary is unknown). */
    struct cluster_node *owner = is_primary(sender) ? sender : sender->primary;
    int dirty = owner && owner != cluster->myself && slots_differ(owner, h->myslots);
    if (dirty && is_primary(sender) && take_slots(sender, h->config_epoch, h->myslots))
        todo = CLUSTER_TODO_SAVE;
    if (dirty) {
        /* The sender claims a slot someone holds at a greater epoch: it has
         * missed a change; tell it who serves the slot. */
        for (int s = 0; s < CLUSTER_SLOTS; s++) {
            struct cluster_node *holder = cluster->slots[s];
            if (!(h->myslots[s / 8] & (1u << (s & 7))) || !holder || holder == sender)
                continue;
            if (holder->config_epoch > h->config_epoch) {
                log_verbose("Node %.40s has old slots configuration, sending an UPDATE message "
                            "about %.40s",
                            sender->name, holder->name);
                cluster_send_update(sender->link, holder);
                break;
            }
        }
    }
    if (is_primary(me) && is_primary(sender) && h->config_epoch == me->config_epoch &&
        handle_epoch_collision(sender))
        todo = CLUSTER_TODO_SAVE;
    if (process_gossip(m, sender, now))
        todo = CLUSTER_TODO_SAVE;
    return todo;
}

static int process_fail(const struct cluster_msg *m, struct cluster_node *sender, int64_t now)
{
    if (!sender)
        return 0;
    struct cluster_node *n = cluster_lookup(m->body.fail.nodename, CLUSTER_NAMELEN);
    if (!n || (n->flags & (CNODE_FAIL | CNODE_MYSELF)))
        return 0;
    log_notice("FAIL message received from %.40s about %.40s", sender->name, n->name);
    n->flags = (n->flags & ~CNODE_PFAIL) | CNODE_FAIL;
    n->fail_time = now;
    return CLUSTER_TODO_SAVE;
}

static int process_update(const struct cluster_msg *m, struct cluster_node *sender)
{
    if (!sender)
        return 0;
    struct cluster_node *n = cluster_lookup(m->body.update.nodename, CLUSTER_NAMELEN);
    if (!n || n->config_epoch >= m->body.update.config_epoch)
        return 0;
    if (n->flags & CNODE_SLAVE)
        cluster_node_set_primary(n, NULL);
    n->config_epoch = m->body.update.config_epoch;
    take_slots(n, m->body.update.config_epoch, m->body.update.slots);
    return CLUSTER_TODO_SAVE;
}

void cluster_gossip_receive(struct cluster_link *l, const struct cluster_msg *m)
{
    const struct cluster_msg_hdr *h = &m->hdr;
    if (h->type >= CLUSTER_MSG_TYPE_COUNT)
        return; /* Redis ignores a type it does not know */
    gossip.received[h->type]++;
    int64_t now = mstime();
    struct cluster_node *sender = cluster_lookup(h->sender, CLUSTER_NAMELEN);
    if (sender && (sender->flags & CNODE_HANDSHAKE))
        sender = NULL;
    int todo = 0;
    if (sender) {
        sender->data_received = now;
        /* Its plaintext port beside a TLS one (Redis takes it with the
         * address; every header carries it). */
        sender->pport = h->pport;
        if (cluster_link_inbound(l))
            cluster_link_bind_inbound(l, sender);
        if (h->current_epoch > cluster->current_epoch) {
            cluster->current_epoch = h->current_epoch;
            todo = CLUSTER_TODO_SAVE;
        }
        if (h->config_epoch > sender->config_epoch) {
            sender->config_epoch = h->config_epoch;
            todo = CLUSTER_TODO_SAVE | CLUSTER_TODO_FSYNC;
        }
        sender->repl_offset = (long long)h->offset;
        cluster_failover_heard(sender, h);
    }
    int more = 0;
    switch (h->type) {
    case CLUSTER_MSG_PING:
    case CLUSTER_MSG_PONG:
    case CLUSTER_MSG_MEET:
        more = process_ping(l, m, sender, now);
        break;
    case CLUSTER_MSG_FAIL:
        more = process_fail(m, sender, now);
        break;
    case CLUSTER_MSG_UPDATE:
        more = process_update(m, sender);
        break;
    case CLUSTER_MSG_FAILOVER_AUTH_REQUEST:
        if (sender)
            cluster_failover_auth_request(sender, h);
        break;
    case CLUSTER_MSG_FAILOVER_AUTH_ACK:
        if (sender)
            cluster_failover_auth_ack(sender, h);
        break;
    case CLUSTER_MSG_MFSTART:
        if (sender)
            cluster_failover_mfstart(l, sender);
        break;
    case CLUSTER_MSG_PUBLISH:
    case CLUSTER_MSG_PUBLISHSHARD:
        cluster_pubsub_receive(m, sender);
        break;
    default: /* MODULE: rbkv has no modules */
        break;
    }
    if (more > 0)
        todo |= more;
    cluster_changed((unsigned)todo);
}

/* ---- The cron ---- */

/* Opens a link to every node without one and greets it: MEET for a node
 * met by CLUSTER MEET, else PING. A handshake that lasts too long is
 * dropped. */
static void connect_nodes(int64_t now)
{
    int64_t handshake_timeout = server.cfg.cluster_node_timeout;
    if (handshake_timeout < 1000)
        handshake_timeout = 1000;
    for (int i = 0; i < cluster->node_count; i++) {
        struct cluster_node *n = cluster->nodes[i];
        if (n->flags & (CNODE_MYSELF | CNODE_NOADDR))
            continue;
        if ((n->flags & CNODE_HANDSHAKE) && now - n->ctime > handshake_timeout) {
            cluster_del_node(n);
            i--;
            continue;
        }
        if (n->link)
            continue;
        struct cluster_link *l = cluster_link_connect(n);
        if (!l)
            continue;
        /* A ping still unanswered keeps its time across reconnections, or
         * a node that refuses connections would never time out. */
        int64_t old_ping_sent = n->ping_sent;
        cluster_send_ping(l, (n->flags & CNODE_MEET) ? CLUSTER_MSG_MEET : CLUSTER_MSG_PING);
        if (old_ping_sent)
            n->ping_sent = old_ping_sent;
        n->flags &= ~CNODE_MEET;
    }
}

/* Once a second: of five random nodes, the one whose PONG is oldest. */
static void ping_random_node(void)
{
    struct cluster_node *oldest = NULL;
    for (int j = 0; j < 5 && cluster->node_count > 1; j++) {
        struct cluster_node *n = cluster->nodes[fastrand_below((uint64_t)cluster->node_count)];
        if (!n->link || n->ping_sent || (n->flags & (CNODE_MYSELF | CNODE_HANDSHAKE)))
            continue;
        if (!oldest || n->pong_received < oldest->pong_received)
            oldest = n;
    }
    if (oldest)
        cluster_send_ping(oldest->link, CLUSTER_MSG_PING);
}

void cluster_gossip_cron(void)
{
    int64_t now = mstime();
    if (now - gossip.last_cron < CRON_PERIOD_MS)
        return;
    gossip.last_cron = now;
    gossip.iteration++;
    int64_t timeout = server.cfg.cluster_node_timeout;
    connect_nodes(now);
    if (gossip.iteration % 10 == 0)
        ping_random_node();
    int update = 0;
    for (int i = 0; i < cluster->node_count; i++) {
        struct cluster_node *n = cluster->nodes[i];
        if (n->flags & (CNODE_MYSELF | CNODE_NOADDR | CNODE_HANDSHAKE))
            continue;
        int64_t ping_delay = now - n->ping_sent, data_delay = now - n->data_received;
        /* A link up for long that carries nothing back: reconnect, the
         * peer may be alive behind a dead connection. */
        if (n->link && n->ping_sent && ping_delay > timeout / 2 && data_delay > timeout / 2 &&
            now - cluster_link_ctime(n->link) > timeout) {
            cluster_link_close(n->link);
        }
        if (n->link && !n->ping_sent && now - n->pong_received > timeout / 2) {
            cluster_send_ping(n->link, CLUSTER_MSG_PING);
            continue;
        }
        if (!n->ping_sent)
            continue;
        int64_t delay = ping_delay < data_delay ? ping_delay : data_delay;
        if (delay > timeout && !(n->flags & (CNODE_PFAIL | CNODE_FAIL))) {
            log_verbose("*** NODE %.40s possibly failing", n->name);
            n->flags |= CNODE_PFAIL;
            update = 1;
        }
    }
    if (update || cluster->state == CLUSTER_STATE_FAIL)
        cluster_update_state();
}

/* Appends to buf[*len..cap) what fits. */
static void append(char *buf, size_t cap, size_t *len, const char *fmt, const char *a,
                   const char *b, unsigned long long n)
{
    if (*len >= cap)
        return;
    int w = snprintf(buf + *len, cap - *len, fmt, a, b, n);
    if (w > 0)
        *len = *len + (size_t)w < cap ? *len + (size_t)w : cap - 1;
}

size_t cluster_gossip_stats(char *buf, size_t cap)
{
    size_t len = 0;
    for (int dir = 0; dir < 2; dir++) {
        const char *what = dir ? "received" : "sent";
        unsigned long long total = 0;
        for (int t = 0; t < CLUSTER_MSG_TYPE_COUNT; t++) {
            unsigned long long count = dir ? gossip.received[t] : cluster_send_count((uint16_t)t);
            if (!count)
                continue;
            total += count;
            append(buf, cap, &len, "cluster_stats_messages_%s_%s:%llu\r\n",
                   cluster_msg_type_name((uint16_t)t), what, count);
        }
        append(buf, cap, &len, "cluster_stats_messages%s_%s:%llu\r\n", "", what, total);
    }
    return len;
}
