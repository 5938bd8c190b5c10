/*
 * migrate_tls.c - MIGRATE's connection over TLS (migrate_tls.h): a filter
 * of syncio.h whose calls run core's tls.c over the blocking socket, so
 * OpenSSL is driven here exactly as under the loop's connections (memory
 * BIOs: ciphertext in through tls_read_space, out through tls_wire).
 *
 * Owns each connection's struct migrate_tls (the filter's context), freed
 * by sync_conn_close through the filter's close.
 */
#include "migrate_tls.h"

#include <errno.h>

#include "clock.h"
#include "log.h"
#include "mem.h"
#include "resp_writer.h"
#include "syncio.h"
#include "tls.h"

struct migrate_tls {
    struct tls_conn *t;
    struct resp_out plain; /* written, not yet encrypted */
};

/* Sends the ciphertext t holds (handshake messages, records). */
static int send_wire(struct sync_conn *c, struct tls_conn *t, int64_t deadline)
{
    struct resp_out *wire = tls_wire(t);
    struct resp_iov iov;
    while (resp_out_pending(wire) && resp_out_peek(wire, &iov, 1) == 1) {
        if (sync_conn_write_raw(c, iov.base, iov.len, deadline) < 0)
            return -1;
        resp_out_consume(wire, iov.len);
    }
    return 0;
}

/* One read of ciphertext from the socket into t. */
static int feed(struct sync_conn *c, struct tls_conn *t, int64_t deadline)
{
    char *p;
    size_t cap;
    tls_read_space(t, &p, &cap);
    ssize_t n = sync_conn_read_raw(c, p, cap, deadline);
    if (n < 0)
        return -1;
    tls_read_commit(t, (size_t)n);
    return 0;
}

static int failed(const struct migrate_tls *m)
{
    log_warning("MIGRATE: TLS with the target failed: %s", tls_error(m->t));
    errno = ECONNRESET;
    return -1;
}

/* buf is written through the tls_fixed_room it is put in. */
// NOLINTNEXTLINE(readability-non-const-parameter): syncio.h's filter type fixes the signature
static ssize_t filter_read(struct sync_conn *c, char *buf, size_t cap, int64_t deadline)
{
    struct migrate_tls *m = c->filter_ctx;
    for (;;) {
        struct tls_fixed_room r = {.buf = buf, .cap = cap};
        int rc = tls_read_all(m->t, 0, tls_fixed_room, &r);
        if (r.len)
            return (ssize_t)r.len;
        if (rc < 0)
            return failed(m);
        /* Reading may have made something to answer (a key update). */
        if (send_wire(c, m->t, deadline) < 0 || feed(c, m->t, deadline) < 0)
            return -1;
    }
}

static int filter_write(struct sync_conn *c, const char *buf, size_t len, int64_t deadline)
{
    struct migrate_tls *m = c->filter_ctx;
    resp_add_raw(&m->plain, buf, len);
    while (resp_out_pending(&m->plain)) {
        if (tls_encrypt(m->t, &m->plain) < 0)
            return failed(m);
        if (send_wire(c, m->t, deadline) < 0)
            return -1;
    }
    return 0;
}

static void filter_close(struct sync_conn *c)
{
    struct migrate_tls *m = c->filter_ctx;
    if (!m)
        return;
    tls_conn_free(m->t);
    resp_out_destroy(&m->plain);
    xfree(m);
}

static const struct sync_conn_filter tls_filter = {
    .read = filter_read, .write = filter_write, .close = filter_close};

int migrate_tls_start(struct sync_conn *c, long long timeout_ms)
{
    int64_t deadline = mstime() + timeout_ms;
    struct tls_conn *t = tls_conn_new(0);
    if (!t) {
        log_warning("MIGRATE: tls-cluster yes needs the TLS settings (tls-cert-file, "
                    "tls-key-file, tls-ca-cert-file)");
        errno = EINVAL;
        return -1;
    }
    struct migrate_tls *m = xcalloc(1, sizeof(*m));
    m->t = t;
    resp_out_init(&m->plain);
    c->filter = &tls_filter;
    c->filter_ctx = m;
    /* The handshake: ClientHello out, the server's flight in, our Finished
     * out. Plaintext cannot come before our first request, but what
     * tls_read_all returns lands in c's buffer all the same. */
    while (!tls_handshake_done(t)) {
        if (send_wire(c, t, deadline) < 0 || feed(c, t, deadline) < 0)
            return -1;
        struct tls_fixed_room r = {.buf = c->buf, .cap = sizeof(c->buf), .len = c->end};
        if (tls_read_all(t, 0, tls_fixed_room, &r) < 0)
            return failed(m);
        c->end = r.len;
    }
    return send_wire(c, t, deadline);
}
