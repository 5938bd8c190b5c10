/*
 * cluster_bus.h - the cluster bus's transport (cluster_bus.c): the listener
 * on the bus port and the links, one TCP connection per pair of nodes and
 * direction, as Redis 7.0 (a node's outbound link, `node->link`, and the
 * link it opened to us, `node->inbound_link`).
 *
 * A link frames what it reads into whole messages (cluster_msg.h), decodes
 * them and hands each to the receiver registered at cluster_bus_listen; a
 * message that fails the checks closes that link only. What a message means
 * is cluster_gossip.c's business, not this file's.
 */
#ifndef RBKV_CLUSTER_BUS_H
#define RBKV_CLUSTER_BUS_H

#include <stddef.h>
#include <stdint.h>

struct cluster_link;
struct cluster_msg;
struct cluster_node;

/* Called for each well-formed message a link reads. The receiver may close
 * the link (cluster_link_close) or free nodes; the link stays valid until
 * the call returns. */
typedef void (*cluster_bus_receive_cb)(struct cluster_link *l, const struct cluster_msg *m);

/* The bus's port: cluster-port, else the client port + 10000 (tls-port +
 * 10000 with tls-cluster yes, as Redis 7.0); may be above 65535. */
int cluster_bus_port(void);
/* At start: listens on the bus port at every bind address (over TLS in
 * both directions with tls-cluster yes), and registers the receiver.
 * Returns 0, or -1 logged. */
int cluster_bus_listen(cluster_bus_receive_cb receive);
/* Shutdown: stops listening and closes every link. */
void cluster_bus_close_all(void);
/* In a fork child (snapshot, rewrite, full sync): closes its copies of the
 * bus's listening sockets without libuv, so a parent killed meanwhile frees
 * the bus port at once, as the client port (server_on_child_close). */
void cluster_bus_close_listener_fds(void);

/* Opens n's outbound link (n->link) to n->ip:n->cport; what is sent before
 * the connection is made waits in the link. Returns the link, or NULL when
 * the address is unusable or the bus is shutting down (the cron tries
 * again). */
struct cluster_link *cluster_link_connect(struct cluster_node *n);
/* Queues len bytes of buf (copied) on l; a link whose queue passes
 * cluster-link-sendbuf-limit is closed instead (Redis's rule). */
void cluster_link_send(struct cluster_link *l, const void *buf, size_t len);
/* Closes l: the node forgets it at once, the memory goes with the handle. */
void cluster_link_close(struct cluster_link *l);
/* n is being forgotten: its links are closed. */
void cluster_bus_node_gone(struct cluster_node *n);

/* The link's node: the peer of an outbound link, or the sender an inbound
 * link was bound to (NULL until then). */
struct cluster_node *cluster_link_node(const struct cluster_link *l);
int cluster_link_inbound(const struct cluster_link *l);
/* When l was made (unix ms). */
int64_t cluster_link_ctime(const struct cluster_link *l);
/* Binds an inbound link to the node that sent on it (Redis's
 * setClusterNodeToInboundClusterLink: a newer link replaces an older one). */
void cluster_link_bind_inbound(struct cluster_link *l, struct cluster_node *n);
/* The peer's or this end's IP address of l into ip[0..cap); -1 when unknown. */
int cluster_link_peer_ip(const struct cluster_link *l, char *ip, size_t cap);
int cluster_link_local_ip(const struct cluster_link *l, char *ip, size_t cap);

/* CLUSTER LINKS: calls fn for every link bound to a node, with what Redis
 * 7.0 reports of it. */
struct cluster_link_info {
    const char *direction; /* "to" or "from" */
    const struct cluster_node *node;
    int64_t create_time;   /* ms */
    const char *events;    /* "r", "w" or "rw" */
    size_t send_buffer_allocated, send_buffer_used;
};
int cluster_bus_link_count(void);
void cluster_bus_each_link(void (*fn)(const struct cluster_link_info *info, void *arg), void *arg);
/* How many links were closed for passing cluster-link-sendbuf-limit. */
unsigned long long cluster_bus_links_limit_exceeded(void);

#endif
