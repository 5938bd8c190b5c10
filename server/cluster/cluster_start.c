/*
 * cluster_start.c - the start of cluster mode (cluster_start.h): the lock
 * and load of nodes.conf, what myself announces, the bus's listener, the
 * hooks and the cron.
 * Above the rest of cluster/, which it puts together.
 */
#include "cluster_start.h"

#include <string.h>

#include "clock.h"
#include "cluster.h"
#include "cluster_bus.h"
#include "cluster_config.h"
#include "cluster_failover.h"
#include "cluster_gossip.h"
#include "cluster_pubsub.h"
#include "cluster_qlink.h"
#include "cluster_query.h"
#include "cluster_route.h"
#include "lifecycle.h"
#include "log.h"
#include "mem.h"
#include "server.h"
#include "slotindex.h"

/* Redis 7.0's deriveAnnouncedPorts. The clients' port others are told:
 * with tls-cluster yes the TLS one (cluster-announce-tls-port, else
 * tls-port), the plaintext one going as pport (cluster-announce-port, else
 * port); without, cluster-announce-port, else port, and no pport. */
static int announced_port(void)
{
    if (server.cfg.tls_cluster)
        return server.cfg.cluster_announce_tls_port ? (int)server.cfg.cluster_announce_tls_port
                                                    : server.cfg.tls_port;
    return server.cfg.cluster_announce_port ? (int)server.cfg.cluster_announce_port
                                            : server.cfg.port;
}

static int announced_pport(void)
{
    if (!server.cfg.tls_cluster)
        return 0;
    if (server.cfg.cluster_announce_tls_port)
        return (int)server.cfg.cluster_announce_port;
    return server.cfg.port;
}

/* The bus's port: cluster-announce-bus-port, else the one it listens on. */
static int announced_cport(void)
{
    if (server.cfg.cluster_announce_bus_port)
        return (int)server.cfg.cluster_announce_bus_port;
    return cluster_bus_port();
}

/* Redis refreshes what myself announces from the configuration at every
 * start (and on CONFIG SET): the ports, the hostname, an announced ip. */
static int refresh_myself(void)
{
    struct cluster_node *me = cluster->myself;
    const char *host = server.cfg.cluster_announce_hostname;
    const char *ip = server.cfg.cluster_announce_ip;
    me->pport = announced_pport();
    int changed = me->port != announced_port() || me->cport != announced_cport() ||
                  (host ? !me->hostname || strcmp(host, me->hostname) : me->hostname != NULL) ||
                  (ip && strcmp(ip, me->ip));
    if (changed)
        cluster_node_set_addr(me, ip, announced_port(), announced_cport(), host);
    me->link_up = 1;
    return changed;
}

static void cluster_cron(void)
{
    /* CONFIG SET of a cluster-announce-* setting reaches myself here, as
     * Redis's clusterCron applies them. */
    if (refresh_myself())
        cluster_changed(CLUSTER_TODO_SAVE);
    /* The writable delay ends with time, not with a change. */
    else if (cluster->state == CLUSTER_STATE_FAIL)
        cluster_update_state();
    cluster_gossip_cron();
    cluster_failover_cron();
    cluster_route_blocked();
}

/* Last in the shutdown: the lock goes with the process anyway; the state
 * is freed so a leak check sees nothing left. */
static void cluster_stopped(void)
{
    cluster_config_unlock();
    cluster_free();
}

/* The bus's links and the cluster-wide queries' connections. */
static void close_links(void)
{
    cluster_bus_close_all();
    cluster_qlink_close_all();
}

static const struct server_module cluster_module = {
    .cron = cluster_cron, .close_links = close_links, .stopped = cluster_stopped};

int cluster_init(void)
{
    const char *path = server.cfg.cluster_config_file;
    if (!server.cfg.cluster_port && cluster_bus_port() > 65535) {
        log_warning("Redis port number too high. Cluster communication port is 10,000 port "
                    "numbers higher than your Redis port. Your Redis port number must be 55535 "
                    "or less.");
        return -1;
    }
    if (cluster_config_lock(path) < 0)
        return -1;
    /* Before the dataset loads: every key goes into its slot's index. */
    ks_slots_enable();
    cluster = xcalloc(1, sizeof(*cluster));
    cluster->state = CLUSTER_STATE_FAIL;
    cluster->size = 1;
    cluster->mf_primary_offset = -1;
    int loaded = cluster_config_load(path);
    if (loaded < 0) {
        cluster_free();
        return -1;
    }
    int save = !loaded;
    if (!loaded) {
        cluster->myself = cluster_node_new(NULL, CNODE_MYSELF | CNODE_MASTER);
        cluster_add_node(cluster->myself);
        log_notice("No cluster configuration found, I'm %s", cluster->myself->name);
    }
    save |= refresh_myself();
    cluster_on_node_gone(cluster_bus_node_gone);
    if (cluster_bus_listen(cluster_gossip_receive) < 0) {
        cluster_free();
        return -1;
    }
    server_on_child_close(cluster_bus_close_listener_fds);
    cluster_route_init();
    cluster_query_init();
    cluster_pubsub_init();
    server_add_module(&cluster_module);
    cluster_changed(save ? CLUSTER_TODO_SAVE | CLUSTER_TODO_FSYNC : 0);
    return 0;
}
