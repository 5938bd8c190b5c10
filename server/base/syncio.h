/*
 * syncio.h - a TCP connection used with blocking calls bounded by a timeout
 * (syncio.c), as Redis's syncio.c: for the one command that talks to another
 * server and waits for it while the loop waits too (MIGRATE, docs/cluster.md
 * "MIGRATE and the loop"). Nothing else may use it: everywhere else the loop
 * must not wait.
 *
 * Owns its socket and a small read buffer, so replies read a line at a time
 * cost one read(2) per buffer, not one per byte as Redis's. Knows no server
 * state. Every call fails with -1 and errno set (ETIMEDOUT when the time ran
 * out; ECONNRESET when the peer closed); after a failure the connection is
 * only good for sync_conn_close.
 *
 * A filter (TLS, which a higher layer owns) may stand between the calls and
 * the socket: then sync_conn_write and sync_conn_read_line go through it,
 * and it reaches the socket with sync_conn_read_raw and sync_conn_write_raw.
 */
#ifndef RBKV_SYNCIO_H
#define RBKV_SYNCIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SYNC_CONN_BUF 4096

struct sync_conn;

/* What stands between a connection's calls and its socket. Deadlines are
 * unix ms; failures are -1 with errno, as the calls'. */
struct sync_conn_filter {
    /* Up to cap bytes into buf: how many (> 0), or -1. */
    ssize_t (*read)(struct sync_conn *c, char *buf, size_t cap, int64_t deadline);
    /* buf[0..len) whole: 0 or -1. */
    int (*write)(struct sync_conn *c, const char *buf, size_t len, int64_t deadline);
    /* Frees filter_ctx (the socket is closed after). */
    void (*close)(struct sync_conn *c);
};

struct sync_conn {
    int fd;
    size_t start, end; /* unread bytes: buf[start..end) */
    const struct sync_conn_filter *filter; /* NULL: the socket itself */
    void *filter_ctx;                      /* the filter's, owned by it */
    char buf[SYNC_CONN_BUF];
};

/* Connects c to host:port (a name or an address, resolved now) within
 * timeout_ms, TCP_NODELAY on. 0, or -1 with errno and c not open. */
int sync_conn_open(struct sync_conn *c, const char *host, int port, long long timeout_ms);
/* Sends buf[0..len) whole within timeout_ms. 0 or -1. */
int sync_conn_write(struct sync_conn *c, const char *buf, size_t len, long long timeout_ms);
/* Reads one line ending in "\r\n" within timeout_ms into line (NUL-ended,
 * without the "\r\n"; a longer line is cut at size - 1 bytes, the rest
 * dropped). Its length, or -1. */
ssize_t sync_conn_read_line(struct sync_conn *c, char *line, size_t size, long long timeout_ms);
/* The socket under a filter: reads up to cap bytes (how many, > 0), writes
 * buf[0..len) whole (0); -1 with errno when the deadline (unix ms) passed
 * or the socket failed. */
ssize_t sync_conn_read_raw(struct sync_conn *c, char *buf, size_t cap, int64_t deadline);
int sync_conn_write_raw(struct sync_conn *c, const char *buf, size_t len, int64_t deadline);
/* Closes c's filter and socket; a closed or never opened c (fd -1) is left
 * alone. */
void sync_conn_close(struct sync_conn *c);

#endif
