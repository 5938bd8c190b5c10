/*
 * syncio.c - blocking TCP calls bounded by a timeout (syncio.h).
 *
 * The socket is non-blocking and every wait is a poll(2) for what remains of
 * the call's deadline, so a peer that stops answering costs at most the
 * timeout, never a hang; EINTR only shortens nothing.
 */
#include "syncio.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"

/* Waits until fd is ready for events or the deadline (ms) passes: 0, or -1
 * with errno ETIMEDOUT. */
static int wait_ready(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - mstime();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, left > 1000000 ? 1000000 : (int)left);
        if (n > 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

/* Connects one address; the socket on success, -1 otherwise. */
static int connect_one(const struct addrinfo *ai, int64_t deadline)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    ai->ai_protocol);
    if (fd < 0)
        return -1;
    /* A connection refused once under way shows on the first write, not
     * here, as with Redis's connBlockingConnect (MIGRATE then says
     * "writing", as Redis does). */
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 &&
        (errno != EINPROGRESS || wait_ready(fd, POLLOUT, deadline) < 0)) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

int sync_conn_open(struct sync_conn *c, const char *host, int port, long long timeout_ms)
{
    int64_t deadline = mstime() + timeout_ms;
    char service[16];
    snprintf(service, sizeof(service), "%d", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV};
    struct addrinfo *list;
    c->fd = -1;
    c->start = c->end = 0;
    c->filter = NULL;
    c->filter_ctx = NULL;
    if (port < 0 || port > 65535 || getaddrinfo(host, service, &hints, &list) != 0) {
        errno = EINVAL;
        return -1;
    }
    for (struct addrinfo *ai = list; ai && c->fd < 0; ai = ai->ai_next)
        c->fd = connect_one(ai, deadline);
    freeaddrinfo(list);
    return c->fd < 0 ? -1 : 0;
}

int sync_conn_write(struct sync_conn *c, const char *buf, size_t len, long long timeout_ms)
{
    int64_t deadline = mstime() + timeout_ms;
    if (c->filter)
        return c->filter->write(c, buf, len, deadline);
    return sync_conn_write_raw(c, buf, len, deadline);
}

int sync_conn_write_raw(struct sync_conn *c, const char *buf, size_t len, int64_t deadline)
{
    while (len) {
        ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
        } else if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
                   wait_ready(c->fd, POLLOUT, deadline) < 0) {
            return -1;
        }
    }
    return 0;
}

ssize_t sync_conn_read_line(struct sync_conn *c, char *line, size_t size, long long timeout_ms)
{
    int64_t deadline = mstime() + timeout_ms;
    size_t got = 0;
    for (;;) {
        while (c->start < c->end) {
            char ch = c->buf[c->start++];
            if (ch == '\n') {
                if (got && line[got - 1] == '\r')
                    got--;
                line[got] = '\0';
                return (ssize_t)got;
            }
            if (got + 1 < size)
                line[got++] = ch;
        }
        ssize_t n = c->filter ? c->filter->read(c, c->buf, sizeof(c->buf), deadline)
                              : sync_conn_read_raw(c, c->buf, sizeof(c->buf), deadline);
        if (n < 0)
            return -1;
        c->start = 0;
        c->end = (size_t)n;
    }
}

ssize_t sync_conn_read_raw(struct sync_conn *c, char *buf, size_t cap, int64_t deadline)
{
    for (;;) {
        ssize_t n = read(c->fd, buf, cap);
        if (n > 0)
            return n;
        if (n == 0) {
            errno = ECONNRESET;
            return -1;
        }
        if ((errno != EAGAIN && errno != EINTR) || wait_ready(c->fd, POLLIN, deadline) < 0)
            return -1;
    }
}

void sync_conn_close(struct sync_conn *c)
{
    if (c->filter && c->filter->close)
        c->filter->close(c);
    c->filter = NULL;
    c->filter_ctx = NULL;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->start = c->end = 0;
}
