/*
 * cluster_qlink.c - the pooled connections of cluster-wide ordered queries
 * (cluster_qlink.h).
 *
 * Owns: the pool (a list of struct qlink), each link's libuv handle, its
 * read buffer and its queue of tags awaiting replies. A link is freed only
 * in its handle's close callback; once closing it is out of the pool and
 * its tags have been failed, so no reply is ever delivered twice or after
 * a failure. Knows nothing of queries: a reply goes to the registered
 * callback with the tag its request was sent with.
 *
 * Writes are queued by libuv even while the connect is in flight, so a
 * request is written at once whatever the link's state.
 *
 * With tls-cluster yes (where the nodes announce their tls-port as their
 * client port) a link speaks TLS, as the bus's links and MIGRATE do:
 * core's tls.h does the handshake and the records in memory, libuv keeps
 * the socket. Requests go into `plain`; tls_pump encrypts what the
 * handshake allows and writes the ciphertext (handshake messages too);
 * ciphertext read is decrypted into the link's reply buffer.
 */
#include "cluster_qlink.h"

#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "cluster.h"
#include "config.h"
#include "log.h"
#include "mem.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "server.h"
#include "tls.h"

/* Caps on what a reply may claim: a bulk as Redis's proto-max-bulk-len
 * default, elements as a listing of every key of a large node. */
#define REPLY_MAX_BULK (512LL * 1024 * 1024)
#define REPLY_MAX_ELEMS (1ULL << 32)
#define READ_CHUNK (64 * 1024)
/* The tag of AUTH's and KLOCAL's replies, which are the link's own. */
#define TAG_OWN UINT64_MAX

struct qlink {
    char ip[CLUSTER_IPLEN];
    int port;
    uv_tcp_t tcp;
    uv_connect_t connect_req;
    int closing;
    struct tls_input in; /* bytes read and not yet consumed */
    struct resp_reply_scan scan; /* of the reply at in[0] */
    uint64_t *tags; /* awaiting replies, oldest at tags[head] */
    size_t head, ntags, tags_cap;
    struct tls_conn *tls; /* owned; NULL on a plaintext link */
    struct resp_out plain; /* TLS: requests not yet encrypted */
    struct qlink *next;
};

struct write_req {
    uv_write_t req;
    char bytes[];
};

static struct qlink *pool;
static cluster_qlink_reply_fn *reply_cb;

static void link_closed_cb(uv_handle_t *h)
{
    struct qlink *l = h->data;
    tls_conn_free(l->tls);
    resp_out_destroy(&l->plain);
    xfree(l->in.buf);
    xfree(l->tags);
    xfree(l);
}

/* Takes l out of the pool, fails its waiting tags with why, closes it. */
static void link_fail(struct qlink *l, const char *why, int tell)
{
    if (l->closing)
        return;
    l->closing = 1;
    for (struct qlink **p = &pool; *p; p = &(*p)->next)
        if (*p == l) {
            *p = l->next;
            break;
        }
    log_verbose("Cluster query link to %s:%d closed: %s", l->ip, l->port, why);
    /* The callback may send on another link (never this one: it is out
     * of the pool), so the tags are read from the struct, which lives
     * until close_cb. */
    while (l->ntags) {
        uint64_t tag = l->tags[l->head];
        l->head++;
        l->ntags--;
        if (tell && tag != TAG_OWN)
            reply_cb(tag, NULL, why);
    }
    uv_close((uv_handle_t *)&l->tcp, link_closed_cb);
}

static void push_tag(struct qlink *l, uint64_t tag)
{
    if (l->head + l->ntags == l->tags_cap) {
        if (l->head) {
            memmove(l->tags, l->tags + l->head, l->ntags * sizeof(*l->tags));
            l->head = 0;
        } else {
            l->tags_cap = l->tags_cap ? 2 * l->tags_cap : 8;
            l->tags = xrealloc(l->tags, l->tags_cap * sizeof(*l->tags));
        }
    }
    l->tags[l->head + l->ntags++] = tag;
}

static void write_cb(uv_write_t *req, int status)
{
    struct qlink *l = req->handle->data;
    xfree(req);
    if (status < 0 && status != UV_ECANCELED)
        link_fail(l, uv_strerror(status), 1);
}

/* Writes len bytes at p on l's socket. Returns -1 when l failed. */
static int write_bytes(struct qlink *l, const char *p, size_t len)
{
    struct write_req *w = xmalloc(sizeof(*w) + len);
    memcpy(w->bytes, p, len);
    uv_buf_t buf = uv_buf_init(w->bytes, (unsigned)len);
    int rc = uv_write(&w->req, (uv_stream_t *)&l->tcp, &buf, 1, write_cb);
    if (rc < 0) {
        xfree(w);
        link_fail(l, uv_strerror(rc), 1);
        return -1;
    }
    return 0;
}

/* TLS failed on l: fails l with the reason. */
static void tls_failed(struct qlink *l)
{
    char why[256];
    snprintf(why, sizeof(why), "TLS: %s", tls_error(l->tls));
    link_fail(l, why, 1);
}

/* A TLS link: encrypts what plaintext the handshake allows and writes the
 * ciphertext (handshake messages too). Returns -1 when l failed. */
static int tls_pump(struct qlink *l)
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
        if (write_bytes(l, iov.base, iov.len) < 0)
            return -1;
        resp_out_consume(wire, iov.len);
    }
    return 0;
}

/* The bytes of argv as one RESP command at p (room enough: command_len);
 * returns the end. */
static char *put_command(char *p, int argc, const struct resp_slice *argv)
{
    *p++ = '*';
    p += resp_format_ll(p, argc);
    *p++ = '\r';
    *p++ = '\n';
    for (int i = 0; i < argc; i++) {
        *p++ = '$';
        p += resp_format_ll(p, (long long)argv[i].len);
        *p++ = '\r';
        *p++ = '\n';
        if (argv[i].len)
            memcpy(p, argv[i].ptr, argv[i].len);
        p += argv[i].len;
        *p++ = '\r';
        *p++ = '\n';
    }
    return p;
}

static size_t command_len(int argc, const struct resp_slice *argv)
{
    size_t len = 1 + RESP_LL_CHARS + 2;
    for (int i = 0; i < argc; i++)
        len += 1 + RESP_LL_CHARS + 2 + argv[i].len + 2;
    return len;
}

/* Queues cmds[0..n) on l in one write, their replies expected under their
 * tags. */
static void write_commands(struct qlink *l, int n, const struct cluster_qlink_cmd *cmds)
{
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += command_len(cmds[i].argc, cmds[i].argv);
    struct write_req *w = xmalloc(sizeof(*w) + len);
    char *p = w->bytes;
    for (int i = 0; i < n; i++) {
        p = put_command(p, cmds[i].argc, cmds[i].argv);
        push_tag(l, cmds[i].tag);
    }
    if (l->tls) {
        resp_add_raw(&l->plain, w->bytes, (size_t)(p - w->bytes));
        xfree(w);
        tls_pump(l);
        return;
    }
    uv_buf_t buf = uv_buf_init(w->bytes, (unsigned)(p - w->bytes));
    int rc = uv_write(&w->req, (uv_stream_t *)&l->tcp, &buf, 1, write_cb);
    if (rc < 0) {
        xfree(w);
        link_fail(l, uv_strerror(rc), 1);
    }
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    struct qlink *l = h->data;
    char *p;
    size_t cap;
    tls_input_space(l->tls, &l->in, &p, &cap);
    *buf = uv_buf_init(p, (unsigned)cap);
}

/* Hands over every complete reply in l->in. Returns -1 when l failed. */
static int deliver(struct qlink *l)
{
    size_t at = 0;
    while (!l->closing && at < l->in.len) {
        long long n = resp_reply_measure(&l->scan, l->in.buf + at, l->in.len - at);
        if (n == 0)
            break;
        if (n < 0 || l->ntags == 0) {
            link_fail(l, n < 0 ? "protocol error in a reply" : "a reply nobody asked for", 1);
            return -1;
        }
        struct resp_reply r;
        if (resp_reply_parse(l->in.buf + at, (size_t)n, &r) < 0) {
            link_fail(l, "out of memory", 1);
            return -1;
        }
        uint64_t tag = l->tags[l->head];
        l->head++;
        l->ntags--;
        at += (size_t)n;
        resp_reply_scan_reset(&l->scan, REPLY_MAX_ELEMS, REPLY_MAX_BULK);
        if (tag == TAG_OWN) {
            if (r.type == RESP_REPLY_ERROR) {
                char why[256];
                snprintf(why, sizeof(why), "%.*s", (int)r.str.len, r.str.ptr);
                resp_reply_clear(&r);
                link_fail(l, why, 1);
                return -1;
            }
        } else {
            reply_cb(tag, &r, NULL);
        }
        resp_reply_clear(&r);
    }
    if (l->closing)
        return -1;
    memmove(l->in.buf, l->in.buf + at, l->in.len - at);
    l->in.len -= at;
    return 0;
}

static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    (void)buf;
    struct qlink *l = s->data;
    if (nread == 0 || l->closing)
        return;
    if (nread < 0) {
        link_fail(l, nread == UV_EOF ? "connection closed by the node" : uv_strerror((int)nread),
                  1);
        return;
    }
    /* With TLS, the handshake's answer and what waited for its end go. */
    if (tls_input_take(l->tls, &l->in, (size_t)nread) < 0) {
        tls_failed(l);
        return;
    }
    if (tls_pump(l) < 0)
        return;
    deliver(l);
}

static void connect_cb(uv_connect_t *req, int status)
{
    struct qlink *l = req->data;
    if (l->closing)
        return;
    if (status < 0) {
        link_fail(l, uv_strerror(status), 1);
        return;
    }
    uv_tcp_nodelay(&l->tcp, 1);
    int rc = uv_read_start((uv_stream_t *)&l->tcp, alloc_cb, read_cb);
    if (rc < 0)
        link_fail(l, uv_strerror(rc), 1);
}

static struct qlink *link_open(const char *ip, int port)
{
    struct sockaddr_storage ss;
    int rc = strchr(ip, ':') ? uv_ip6_addr(ip, port, (struct sockaddr_in6 *)&ss)
                             : uv_ip4_addr(ip, port, (struct sockaddr_in *)&ss);
    if (rc < 0)
        return NULL;
    struct tls_conn *t = NULL;
    if (server.cfg.tls_cluster && !(t = tls_conn_new(0))) {
        log_warning("Cluster query link to %s:%d: tls-cluster yes needs the TLS settings "
                    "(tls-cert-file, tls-key-file, tls-ca-cert-file)",
                    ip, port);
        return NULL;
    }
    struct qlink *l = xcalloc(1, sizeof(*l));
    l->tls = t;
    l->in.chunk = READ_CHUNK;
    resp_out_init(&l->plain);
    snprintf(l->ip, sizeof(l->ip), "%s", ip);
    l->port = port;
    resp_reply_scan_reset(&l->scan, REPLY_MAX_ELEMS, REPLY_MAX_BULK);
    uv_tcp_init(server.loop, &l->tcp);
    l->tcp.data = l;
    l->connect_req.data = l;
    l->next = pool;
    pool = l;
    rc = uv_tcp_connect(&l->connect_req, &l->tcp, (const struct sockaddr *)&ss, connect_cb);
    if (rc < 0) {
        link_fail(l, uv_strerror(rc), 0);
        return NULL;
    }
    /* As a replica's link: the user masteruser (or the default one) with
     * masterauth; then every ordered query on it answers locally. */
    const struct config_bytes *pass = &server.cfg.masterauth;
    if (pass->p) {
        struct resp_slice auth[3] = {{"AUTH", 4}};
        int n = 1;
        if (server.cfg.masteruser)
            auth[n++] = (struct resp_slice){server.cfg.masteruser, strlen(server.cfg.masteruser)};
        auth[n++] = (struct resp_slice){pass->p, pass->len};
        struct cluster_qlink_cmd cmd = {n, auth, TAG_OWN};
        write_commands(l, 1, &cmd);
    } else if (l->tls) {
        tls_pump(l); /* the ClientHello */
    }
    return l->closing ? NULL : l;
}

void cluster_qlink_send(const char *ip, int port, int n, const struct cluster_qlink_cmd *cmds)
{
    struct qlink *l = pool;
    while (l && (l->port != port || strcmp(l->ip, ip)))
        l = l->next;
    if (!l)
        l = link_open(ip, port);
    if (!l) {
        for (int i = 0; i < n; i++)
            reply_cb(cmds[i].tag, NULL, "cannot connect");
        return;
    }
    write_commands(l, n, cmds);
}

void cluster_qlink_close(const char *ip, int port)
{
    for (struct qlink *l = pool; l; l = l->next)
        if (l->port == port && !strcmp(l->ip, ip)) {
            link_fail(l, "closed", 1);
            return;
        }
}

void cluster_qlink_init(cluster_qlink_reply_fn *on_reply)
{
    reply_cb = on_reply;
}

void cluster_qlink_close_all(void)
{
    while (pool)
        link_fail(pool, "shutdown", 0);
}
