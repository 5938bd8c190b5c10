/*
 * tls.c - rbkv-cli's --tls: Debian's hiredis 0.14 has no SSL, so the TLS
 * connection is made here with OpenSSL, and hiredis talks plaintext to one
 * end of a socketpair whose other end a relay thread carries over it.
 *
 * Ownership: cli_tls_connect returns the socketpair end hiredis takes
 * (redisConnectFd; redisFree closes it). The thread owns the TLS connection,
 * the TCP socket and the other end; it ends, freeing them, when either side
 * closes, so closing hiredis's context ends it, and cli_tls_wait waits for
 * that before rbkv-cli exits (an exit under way would leave them unfreed).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli.h"

struct relay {
    SSL *ssl;
    SSL_CTX *ctx;
    int tcp, pair;
};

/* The relay of the one TLS connection rbkv-cli makes, joined by cli_tls_wait. */
static pthread_t relay_thread;
static int relay_running;

static void relay_free(struct relay *r)
{
    SSL_free(r->ssl);
    SSL_CTX_free(r->ctx);
    close(r->tcp);
    close(r->pair);
    free(r);
}

/* Writes all of p over ssl on the non-blocking socket fd. Returns 0 or -1. */
static int ssl_write_all(SSL *ssl, int fd, const char *p, int n)
{
    while (n > 0) {
        int w = SSL_write(ssl, p, n);
        if (w > 0) {
            p += w;
            n -= w;
            continue;
        }
        int e = SSL_get_error(ssl, w);
        if (e != SSL_ERROR_WANT_WRITE && e != SSL_ERROR_WANT_READ)
            return -1;
        struct pollfd pf = {.fd = fd, .events = e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN};
        poll(&pf, 1, -1);
    }
    return 0;
}

/* Copies both ways until either side closes or fails. The TCP socket is
 * non-blocking: a record with no application data in it (TLSv1.3's session
 * tickets, which come after the handshake) must not leave the relay waiting
 * for data while hiredis's request waits on the other side. */
static void *relay_run(void *arg)
{
    struct relay *r = arg;
    char buf[16384];
    sigset_t pipe_sig;
    /* A peer gone makes write fail with EPIPE here, instead of a SIGPIPE
     * that would kill rbkv-cli. */
    sigemptyset(&pipe_sig);
    sigaddset(&pipe_sig, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_sig, NULL);
    for (;;) {
        struct pollfd p[2] = {{.fd = r->tcp, .events = POLLIN}, {.fd = r->pair, .events = POLLIN}};
        /* Plaintext OpenSSL already holds needs no poll. */
        if (!SSL_pending(r->ssl) && poll(p, 2, -1) < 0)
            break;
        if (SSL_pending(r->ssl) || (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            int n = SSL_read(r->ssl, buf, sizeof(buf));
            if (n > 0) {
                if (write(r->pair, buf, (size_t)n) != n)
                    break;
            } else if (SSL_get_error(r->ssl, n) != SSL_ERROR_WANT_READ) {
                break;
            }
        }
        if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(r->pair, buf, sizeof(buf));
            if (n <= 0 || ssl_write_all(r->ssl, r->tcp, buf, (int)n) < 0)
                break;
        }
    }
    /* hiredis reads the end of the connection, while what it still writes
     * is taken and dropped until it closes its end: a write into a closed
     * socketpair would kill rbkv-cli with SIGPIPE. */
    shutdown(r->pair, SHUT_WR);
    while (read(r->pair, buf, sizeof(buf)) > 0)
        ;
    relay_free(r);
    return NULL;
}

static int tcp_connect(const char *host, int port, const struct timeval *tv, char *err, size_t len)
{
    char service[16];
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *a;
    snprintf(service, sizeof(service), "%d", port);
    int rc = getaddrinfo(host, service, &hints, &res);
    if (rc) {
        snprintf(err, len, "%s", gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    for (a = res; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0)
            continue;
        /* The handshake's reads and writes are bounded by --timeout. */
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, tv, sizeof(*tv));
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, tv, sizeof(*tv));
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
            break;
        snprintf(err, len, "%s", strerror(errno));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

/* OpenSSL's first queued error, or what SSL_get_verify_result says. */
static void tls_reason(SSL *ssl, char *err, size_t len)
{
    long v = ssl ? SSL_get_verify_result(ssl) : X509_V_OK;
    unsigned long e = ERR_get_error();
    if (v != X509_V_OK)
        snprintf(err, len, "%s", X509_verify_cert_error_string(v));
    else if (e)
        ERR_error_string_n(e, err, len);
    else
        snprintf(err, len, "the handshake failed");
}

static SSL_CTX *make_ctx(const struct cli_tls_opts *t, char *err, size_t len)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx)
        goto fail;
    SSL_CTX_set_verify(ctx, t->insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, NULL);
    if (t->cacert || t->cacertdir) {
        if (SSL_CTX_load_verify_locations(ctx, t->cacert, t->cacertdir) != 1)
            goto fail;
    } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
        goto fail;
    }
    if (t->cert && SSL_CTX_use_certificate_chain_file(ctx, t->cert) != 1)
        goto fail;
    if (t->key && SSL_CTX_use_PrivateKey_file(ctx, t->key, SSL_FILETYPE_PEM) != 1)
        goto fail;
    return ctx;
fail:
    tls_reason(NULL, err, len);
    SSL_CTX_free(ctx);
    return NULL;
}

int cli_tls_connect(const struct cli_conn_opts *o, const struct timeval *tv, char *err, size_t len)
{
    int sv[2];
    struct relay *r = calloc(1, sizeof(*r));
    if (!r) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    r->tcp = r->pair = -1;
    if (!(r->ctx = make_ctx(&o->tls, err, len)) ||
        (r->tcp = tcp_connect(o->host, o->port, tv, err, len)) < 0)
        goto fail;
    ERR_clear_error();
    r->ssl = SSL_new(r->ctx);
    if (!r->ssl || !SSL_set_fd(r->ssl, r->tcp) ||
        (o->tls.sni && !SSL_set_tlsext_host_name(r->ssl, o->tls.sni)) ||
        SSL_connect(r->ssl) != 1) {
        tls_reason(r->ssl, err, len);
        goto fail;
    }
    /* After the handshake the relay waits in poll (hiredis's own timeout
     * bounds each reply on its end). */
    fcntl(r->tcp, F_SETFL, fcntl(r->tcp, F_GETFL) | O_NONBLOCK);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
        snprintf(err, len, "socketpair: %s", strerror(errno));
        goto fail;
    }
    r->pair = sv[1];
    if (pthread_create(&relay_thread, NULL, relay_run, r) != 0) {
        close(sv[0]);
        snprintf(err, len, "could not start the TLS relay thread");
        goto fail;
    }
    relay_running = 1;
    return sv[0];
fail:
    relay_free(r);
    return -1;
}

void cli_tls_wait(void)
{
    if (relay_running) {
        pthread_join(relay_thread, NULL);
        relay_running = 0;
    }
}
