/*
 * test_syncio.c - the bounded blocking connection (server/base/syncio.c)
 * over a socketpair: replies read a line at a time from one buffer, fed
 * whole and split at every offset; a line longer than the caller's buffer
 * cut and the rest dropped; a peer that closes (ECONNRESET) and one that
 * says nothing (ETIMEDOUT within the timeout); a write whole; a connect
 * where nothing listens refused on its first write, as Redis's.
 */
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "clock.h"
#include "syncio.h"

/* c reads from the socketpair's end; *peer is the other end. */
static void pair_open(struct sync_conn *c, int *peer)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
    c->fd = sv[0];
    c->start = c->end = 0;
    c->filter = NULL;
    c->filter_ctx = NULL;
    *peer = sv[1];
}

static void write_all(int fd, const char *p, size_t n)
{
    CHECK((size_t)write(fd, p, n) == n);
}

static const char replies[] = "+OK\r\n-BUSYKEY Target key name already exists.\r\n+OK\r\n";

static void expect_replies(struct sync_conn *c)
{
    char line[128];
    CHECK(sync_conn_read_line(c, line, sizeof(line), 1000) == 3 && !strcmp(line, "+OK"));
    CHECK(sync_conn_read_line(c, line, sizeof(line), 1000) == 40 &&
          !strcmp(line, "-BUSYKEY Target key name already exists."));
    CHECK(sync_conn_read_line(c, line, sizeof(line), 1000) == 3 && !strcmp(line, "+OK"));
}

/* The replies whole, then split at every offset with the second part
 * written only once the lines wholly inside the first were read: the
 * partial line kept in the buffer is completed by the next read. */
static void test_lines_split_everywhere(void)
{
    static const char *const want[] = {"+OK", "-BUSYKEY Target key name already exists.", "+OK"};
    struct sync_conn c;
    int peer;
    pair_open(&c, &peer);
    write_all(peer, replies, sizeof(replies) - 1);
    expect_replies(&c);
    for (size_t cut = 1; cut < sizeof(replies) - 1; cut++) {
        char line[128];
        int next = 0;
        write_all(peer, replies, cut);
        for (const char *p = replies; (p = memchr(p, '\n', cut - (size_t)(p - replies))); p++) {
            CHECK_MSG(sync_conn_read_line(&c, line, sizeof(line), 1000) >= 0 &&
                          !strcmp(line, want[next]), "cut %zu line %d", cut, next);
            next++;
        }
        write_all(peer, replies + cut, sizeof(replies) - 1 - cut);
        for (; next < 3; next++)
            CHECK_MSG(sync_conn_read_line(&c, line, sizeof(line), 1000) >= 0 &&
                          !strcmp(line, want[next]), "cut %zu line %d", cut, next);
        CHECK(c.start == c.end);
    }
    sync_conn_close(&c);
    close(peer);
}

static void test_long_line_cut(void)
{
    struct sync_conn c;
    int peer;
    pair_open(&c, &peer);
    char big[3 * SYNC_CONN_BUF];
    memset(big, 'x', sizeof(big));
    big[0] = '-';
    write_all(peer, big, sizeof(big));
    write_all(peer, "\r\n+OK\r\n", 7);
    char line[16];
    CHECK(sync_conn_read_line(&c, line, sizeof(line), 1000) == 15 && line[0] == '-' &&
          line[15] == '\0');
    CHECK(sync_conn_read_line(&c, line, sizeof(line), 1000) == 3 && !strcmp(line, "+OK"));
    sync_conn_close(&c);
    CHECK(c.fd == -1);
    sync_conn_close(&c); /* closed twice: nothing */
    close(peer);
}

static void test_eof_and_timeout(void)
{
    struct sync_conn c;
    int peer;
    char line[64];
    pair_open(&c, &peer);
    int64_t t0 = mstime();
    CHECK(sync_conn_read_line(&c, line, sizeof(line), 50) < 0 && errno == ETIMEDOUT);
    CHECK(mstime() - t0 >= 50);
    write_all(peer, "+O", 2);
    close(peer);
    CHECK(sync_conn_read_line(&c, line, sizeof(line), 1000) < 0 && errno == ECONNRESET);
    sync_conn_close(&c);
}

static void test_write_whole_and_refused(void)
{
    struct sync_conn c;
    int peer;
    pair_open(&c, &peer);
    CHECK(sync_conn_write(&c, replies, sizeof(replies) - 1, 1000) == 0);
    char got[sizeof(replies)];
    CHECK(read(peer, got, sizeof(got)) == (ssize_t)sizeof(replies) - 1);
    CHECK(!memcmp(got, replies, sizeof(replies) - 1));
    sync_conn_close(&c);
    close(peer);

    /* A port nobody listens on: bound, never listened. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
          getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    if (sync_conn_open(&c, "127.0.0.1", ntohs(a.sin_port), 1000) == 0) {
        CHECK(sync_conn_write(&c, "PING\r\n", 6, 1000) < 0 && errno == ECONNREFUSED);
        sync_conn_close(&c);
    } else {
        CHECK(errno == ECONNREFUSED); /* some kernels say it at once */
    }
    CHECK(sync_conn_open(&c, "no-such-host.invalid", 1, 1000) < 0 && c.fd == -1);
    close(fd);
}

int main(void)
{
    test_lines_split_everywhere();
    test_long_line_cut();
    test_eof_and_timeout();
    test_write_whole_and_refused();
    printf("syncio: ok\n");
    return 0;
}
