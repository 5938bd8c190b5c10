/*
 * cluster_bus.c - the cluster bus's transport (cluster_bus.h): the listener
 * on the bus port and the links on the server's libuv loop.
 *
 * Owns: the listening handles and every link (a list of them). A link owns
 * its handle, what it has read of the next message and what waits to be
 * sent; it is freed in its handle's close callback, which touches no node
 * (the cluster's state may be gone by then, at shutdown). A node points to
 * its links (node->link, node->inbound_link) and a link to its node; both
 * pointers are cleared together, when the link closes or the node goes.
 *
 * Sending: one write at a time is in flight (`out`, owned until its
 * callback); what is queued meanwhile waits in `pending`, so the buffer
 * under a write never moves.
 *
 * TLS (tls-cluster yes, as Redis: both directions of every link): core's
 * tls.h does the handshake and the records in memory, libuv keeps the
 * socket. A TLS link queues plaintext in `plain`; tls_encrypt turns it into
 * ciphertext (once the handshake is over), which moves to `pending` and is
 * written as above. Ciphertext read goes into the tls_conn's room and comes
 * out as plaintext in `in`, read exactly as a plain link's.
 */
#include "cluster_bus.h"

#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "clock.h"
#include "cluster.h"
#include "cluster_msg.h"
#include "log.h"
#include "mem.h"
#include "resp_writer.h"
#include "server.h"
#include "tls.h"

/* Redis has no cap on a message's length; a peer's totlen above this closes
 * its link instead of growing a buffer without end. */
#define BUS_MAX_MSG (256u << 20)
#define BUS_MAX_LISTENERS 16

struct cluster_link {
    uv_tcp_t tcp;
    uv_connect_t connect_req;
    uv_write_t write_req;
    struct cluster_node *node;
    int inbound, connected, closing;
    int64_t ctime;
    struct tls_input in; /* bytes read and not yet taken */
    unsigned char *out; /* the write in flight, or NULL */
    size_t out_len;
    unsigned char *pending;
    size_t pending_len, pending_cap;
    struct tls_conn *tls; /* owned; NULL on a plaintext link */
    struct resp_out plain; /* a TLS link's plaintext not yet encrypted */
    struct cluster_link *prev, *next;
};

static struct {
    uv_tcp_t listeners[BUS_MAX_LISTENERS];
    int listener_count;
    struct cluster_link *links;
    cluster_bus_receive_cb receive;
    unsigned long long limit_exceeded;
    int stopping;
} bus;

static void link_list(struct cluster_link *l)
{
    l->next = bus.links;
    if (bus.links)
        bus.links->prev = l;
    bus.links = l;
}

static void link_close_cb(uv_handle_t *h)
{
    struct cluster_link *l = h->data;
    xfree(l->in.buf);
    xfree(l->out);
    xfree(l->pending);
    tls_conn_free(l->tls);
    resp_out_destroy(&l->plain);
    xfree(l);
}

void cluster_link_close(struct cluster_link *l)
{
    if (l->closing)
        return;
    l->closing = 1;
    if (l->node) {
        if (l->node->link == l) {
            l->node->link = NULL;
            l->node->link_up = 0;
        }
        if (l->node->inbound_link == l)
            l->node->inbound_link = NULL;
        l->node = NULL;
    }
    if (l->prev)
        l->prev->next = l->next;
    else
        bus.links = l->next;
    if (l->next)
        l->next->prev = l->prev;
    uv_close((uv_handle_t *)&l->tcp, link_close_cb);
}

void cluster_bus_node_gone(struct cluster_node *n)
{
    if (n->link)
        cluster_link_close(n->link);
    if (n->inbound_link)
        cluster_link_close(n->inbound_link);
}

static void flush(struct cluster_link *l);
static void queue(struct cluster_link *l, const void *buf, size_t len);

/* TLS failed on l: logs why and closes l. */
static void tls_failed(struct cluster_link *l)
{
    log_warning("Cluster bus: TLS on the link %s %.40s failed: %s", l->inbound ? "from" : "to",
                l->node ? l->node->name : "an unknown node", tls_error(l->tls));
    cluster_link_close(l);
}

/* A TLS link: encrypts what plaintext the handshake allows and moves the
 * ciphertext (handshake messages too) to pending. Returns -1 when l closed. */
static int tls_pump(struct cluster_link *l)
{
    if (!l->tls || l->closing)
        return 0;
    if (tls_encrypt(l->tls, &l->plain) < 0) {
        tls_failed(l);
        return -1;
    }
    struct resp_out *wire = tls_wire(l->tls);
    struct resp_iov iov;
    while (resp_out_pending(wire) && resp_out_peek(wire, &iov, 1) == 1) {
        queue(l, iov.base, iov.len);
        resp_out_consume(wire, iov.len);
    }
    return 0;
}

static void write_cb(uv_write_t *req, int status)
{
    struct cluster_link *l = req->data;
    xfree(l->out);
    l->out = NULL;
    l->out_len = 0;
    if (l->closing)
        return;
    if (status < 0) {
        log_debug("Cluster bus: write to %.40s failed: %s", l->node ? l->node->name : "?",
                  uv_strerror(status));
        cluster_link_close(l);
        return;
    }
    if (tls_pump(l) == 0)
        flush(l);
}

static void flush(struct cluster_link *l)
{
    if (l->closing || !l->connected || l->out || !l->pending_len)
        return;
    l->out = l->pending;
    l->out_len = l->pending_len;
    l->pending = NULL;
    l->pending_len = l->pending_cap = 0;
    uv_buf_t b = uv_buf_init((char *)l->out, (unsigned)l->out_len);
    l->write_req.data = l;
    int rc = uv_write(&l->write_req, (uv_stream_t *)&l->tcp, &b, 1, write_cb);
    if (rc < 0) {
        xfree(l->out);
        l->out = NULL;
        l->out_len = 0;
        cluster_link_close(l);
    }
}

void cluster_link_send(struct cluster_link *l, const void *buf, size_t len)
{
    if (l->closing)
        return;
    unsigned long long limit = server.cfg.cluster_link_sendbuf_limit;
    size_t used = l->pending_len + l->out_len + resp_out_pending(&l->plain);
    if (limit && used + len > limit) {
        log_warning("Freeing cluster link(%s node %.40s, used memory: %zu) due to exceeding "
                    "send buffer memory limit.",
                    l->inbound ? "from" : "to", l->node ? l->node->name : "?", used);
        bus.limit_exceeded++;
        cluster_link_close(l);
        return;
    }
    if (l->tls) {
        resp_add_raw(&l->plain, buf, len);
        if (tls_pump(l) == 0)
            flush(l);
        return;
    }
    queue(l, buf, len);
    flush(l);
}

/* Appends bytes for the socket (ciphertext on a TLS link) to pending. */
static void queue(struct cluster_link *l, const void *buf, size_t len)
{
    if (l->pending_len + len > l->pending_cap) {
        l->pending_cap = (l->pending_len + len) * 2;
        l->pending = xrealloc(l->pending, l->pending_cap);
    }
    memcpy(l->pending + l->pending_len, buf, len);
    l->pending_len += len;
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
    (void)suggested;
    struct cluster_link *l = h->data;
    char *p;
    size_t cap;
    tls_input_space(l->tls, &l->in, &p, &cap);
    *b = uv_buf_init(p, (unsigned)cap);
}

/* Hands every whole message in l->in to the receiver; -1 when l closed. */
static int process_input(struct cluster_link *l)
{
    size_t pos = 0;
    char why[256];
    while (!l->closing) {
        uint32_t want;
        int rc = cluster_msg_frame(l->in.buf + pos, l->in.len - pos, BUS_MAX_MSG, &want, why,
                                   sizeof(why));
        if (rc == 0)
            break;
        struct cluster_msg m;
        if (rc == 1)
            rc = cluster_msg_decode(l->in.buf + pos, want, &m, why, sizeof(why));
        if (rc < 0) {
            log_warning("Cluster bus: closing the link %s %.40s: %s", l->inbound ? "from" : "to",
                        l->node ? l->node->name : "an unknown node", why);
            cluster_link_close(l);
            return -1;
        }
        bus.receive(l, &m);
        pos += want;
    }
    if (l->closing)
        return -1;
    memmove(l->in.buf, l->in.buf + pos, l->in.len - pos);
    l->in.len -= pos;
    /* A big message came and went: do not keep its buffer. */
    if (l->in.cap > (1u << 20) && l->in.len < 65536) {
        l->in.cap = 65536;
        l->in.buf = xrealloc(l->in.buf, l->in.cap);
    }
    return 0;
}

static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *b)
{
    (void)b;
    struct cluster_link *l = s->data;
    if (l->closing)
        return;
    if (nread < 0) {
        if (nread != UV_EOF)
            log_debug("Cluster bus: read error on a link: %s", uv_strerror((int)nread));
        cluster_link_close(l);
        return;
    }
    if (tls_input_take(l->tls, &l->in, (size_t)nread) < 0) {
        tls_failed(l);
        return;
    }
    if (l->tls) { /* the handshake's answer, what waited for its end */
        if (tls_pump(l) < 0)
            return;
        flush(l);
    }
    process_input(l);
}

/* A new link, listed; NULL when tls-cluster is on and TLS is not set up
 * (no certificate: the link could not speak to any node). */
static struct cluster_link *link_new(int inbound)
{
    struct tls_conn *t = NULL;
    if (server.cfg.tls_cluster && !(t = tls_conn_new(inbound))) {
        log_warning("Cluster bus: tls-cluster yes needs the TLS settings (tls-cert-file, "
                    "tls-key-file, tls-ca-cert-file)");
        return NULL;
    }
    struct cluster_link *l = xcalloc(1, sizeof(*l));
    l->tls = t;
    l->in.chunk = 16384;
    resp_out_init(&l->plain);
    l->inbound = inbound;
    l->ctime = mstime();
    uv_tcp_init(server.loop, &l->tcp);
    l->tcp.data = l;
    uv_tcp_nodelay(&l->tcp, 1);
    link_list(l);
    return l;
}

static void connect_cb(uv_connect_t *req, int status)
{
    struct cluster_link *l = req->data;
    if (l->closing)
        return;
    if (status < 0) {
        log_debug("Cluster bus: connecting to %.40s failed: %s",
                  l->node ? l->node->name : "?", uv_strerror(status));
        cluster_link_close(l);
        return;
    }
    l->connected = 1;
    if (l->node)
        l->node->link_up = 1;
    uv_read_start((uv_stream_t *)&l->tcp, alloc_cb, read_cb);
    if (tls_pump(l) == 0) /* the ClientHello first */
        flush(l);
}

struct cluster_link *cluster_link_connect(struct cluster_node *n)
{
    struct sockaddr_storage ss;
    int rc = strchr(n->ip, ':') ? uv_ip6_addr(n->ip, n->cport, (struct sockaddr_in6 *)&ss)
                                : uv_ip4_addr(n->ip, n->cport, (struct sockaddr_in *)&ss);
    if (rc < 0 || n->cport <= 0 || n->cport > 65535 || bus.stopping)
        return NULL;
    struct cluster_link *l = link_new(0);
    if (!l)
        return NULL;
    l->node = n;
    n->link = l;
    l->connect_req.data = l;
    rc = uv_tcp_connect(&l->connect_req, &l->tcp, (const struct sockaddr *)&ss, connect_cb);
    if (rc < 0) {
        log_debug("Cluster bus: cannot connect to %s:%d: %s", n->ip, n->cport, uv_strerror(rc));
        cluster_link_close(l);
        return NULL;
    }
    return l;
}

static void free_handle_cb(uv_handle_t *h)
{
    xfree(h);
}

static void accept_cb(uv_stream_t *listener, int status)
{
    if (status < 0 || bus.stopping)
        return;
    struct cluster_link *l = link_new(1);
    if (!l) { /* take the connection, to close it */
        uv_tcp_t *t = xmalloc(sizeof(*t));
        uv_tcp_init(server.loop, t);
        if (uv_accept(listener, (uv_stream_t *)t) < 0)
            log_debug("Cluster bus: accept failed");
        uv_close((uv_handle_t *)t, free_handle_cb);
        return;
    }
    if (uv_accept(listener, (uv_stream_t *)&l->tcp) < 0) {
        cluster_link_close(l);
        return;
    }
    l->connected = 1;
    uv_read_start((uv_stream_t *)&l->tcp, alloc_cb, read_cb);
}

static int listen_on(const char *bind_addr, int port)
{
    const char *addr = bind_addr;
    int optional = addr[0] == '-';
    addr += optional;
    if (!strcmp(addr, "*"))
        addr = "0.0.0.0";
    else if (!strcmp(addr, "::*"))
        addr = "::";
    struct sockaddr_storage ss;
    int v6 = strchr(addr, ':') != NULL;
    int rc = v6 ? uv_ip6_addr(addr, port, (struct sockaddr_in6 *)&ss)
                : uv_ip4_addr(addr, port, (struct sockaddr_in *)&ss);
    if (rc < 0) {
        log_warning("Invalid bind address '%s'", bind_addr);
        return -1;
    }
    if (bus.listener_count == BUS_MAX_LISTENERS)
        return -1;
    uv_tcp_t *t = &bus.listeners[bus.listener_count];
    uv_tcp_init(server.loop, t);
    rc = uv_tcp_bind(t, (const struct sockaddr *)&ss, v6 ? UV_TCP_IPV6ONLY : 0);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)t, (int)server.cfg.tcp_backlog, accept_cb);
    if (rc < 0) {
        uv_close((uv_handle_t *)t, NULL);
        if (optional)
            return 0;
        log_warning("Could not create the cluster bus's listening socket %s:%d: %s", addr, port,
                    uv_strerror(rc));
        return -1;
    }
    bus.listener_count++;
    return 0;
}

int cluster_bus_port(void)
{
    if (server.cfg.cluster_port)
        return (int)server.cfg.cluster_port;
    return (server.cfg.tls_cluster ? server.cfg.tls_port : server.cfg.port) + 10000;
}

int cluster_bus_listen(cluster_bus_receive_cb receive)
{
    bus.receive = receive;
    int port = cluster_bus_port();
    for (int i = 0; i < server.cfg.bind_count; i++)
        if (listen_on(server.cfg.bind[i], port) < 0)
            return -1;
    if (!bus.listener_count) {
        log_warning("Failed listening on the cluster bus's port %d", port);
        return -1;
    }
    return 0;
}

void cluster_bus_close_listener_fds(void)
{
    for (int i = 0; i < bus.listener_count; i++) {
        uv_os_fd_t fd;
        if (uv_fileno((uv_handle_t *)&bus.listeners[i], &fd) == 0)
            close(fd);
    }
}

void cluster_bus_close_all(void)
{
    bus.stopping = 1;
    for (int i = 0; i < bus.listener_count; i++)
        uv_close((uv_handle_t *)&bus.listeners[i], NULL);
    bus.listener_count = 0;
    while (bus.links)
        cluster_link_close(bus.links);
}

struct cluster_node *cluster_link_node(const struct cluster_link *l)
{
    return l->node;
}

int cluster_link_inbound(const struct cluster_link *l)
{
    return l->inbound;
}

int64_t cluster_link_ctime(const struct cluster_link *l)
{
    return l->ctime;
}

void cluster_link_bind_inbound(struct cluster_link *l, struct cluster_node *n)
{
    if (n->inbound_link == l)
        return;
    /* The peer opened a new link: the old one is dead to it (Redis frees
     * it the same way). */
    if (n->inbound_link)
        cluster_link_close(n->inbound_link);
    if (l->node && l->node != n && l->node->inbound_link == l)
        l->node->inbound_link = NULL;
    n->inbound_link = l;
    l->node = n;
}

static int name_ip(const struct sockaddr_storage *ss, char *ip, size_t cap)
{
    if (ss->ss_family == AF_INET6)
        return uv_ip6_name((const struct sockaddr_in6 *)ss, ip, cap) < 0 ? -1 : 0;
    return uv_ip4_name((const struct sockaddr_in *)ss, ip, cap) < 0 ? -1 : 0;
}

int cluster_link_peer_ip(const struct cluster_link *l, char *ip, size_t cap)
{
    struct sockaddr_storage ss;
    int len = sizeof(ss);
    if (uv_tcp_getpeername(&l->tcp, (struct sockaddr *)&ss, &len) < 0)
        return -1;
    return name_ip(&ss, ip, cap);
}

int cluster_link_local_ip(const struct cluster_link *l, char *ip, size_t cap)
{
    struct sockaddr_storage ss;
    int len = sizeof(ss);
    if (uv_tcp_getsockname(&l->tcp, (struct sockaddr *)&ss, &len) < 0)
        return -1;
    return name_ip(&ss, ip, cap);
}

int cluster_bus_link_count(void)
{
    int count = 0;
    for (const struct cluster_link *l = bus.links; l; l = l->next)
        count += l->node != NULL;
    return count;
}

void cluster_bus_each_link(void (*fn)(const struct cluster_link_info *info, void *arg), void *arg)
{
    for (const struct cluster_link *l = bus.links; l; l = l->next) {
        if (!l->node)
            continue;
        struct cluster_link_info info = {
            .direction = l->inbound ? "from" : "to",
            .node = l->node,
            .create_time = l->ctime,
            .events = l->pending_len || l->out_len || !l->connected ? "rw" : "r",
            .send_buffer_allocated = l->pending_cap + l->out_len,
            .send_buffer_used = l->pending_len + l->out_len,
        };
        fn(&info, arg);
    }
}

unsigned long long cluster_bus_links_limit_exceeded(void)
{
    return bus.limit_exceeded;
}
