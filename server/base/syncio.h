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
 */
#ifndef RBKV_SYNCIO_H
#define RBKV_SYNCIO_H

#include <stddef.h>
#include <sys/types.h>

#define SYNC_CONN_BUF 4096

struct sync_conn {
    int fd;
    size_t start, end; /* unread bytes: buf[start..end) */
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
/* Closes c's socket; a closed or never opened c (fd -1) is left alone. */
void sync_conn_close(struct sync_conn *c);

#endif
