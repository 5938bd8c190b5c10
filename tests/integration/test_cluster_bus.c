/*
 * test_cluster_bus.c - the cluster bus's codec (server/cluster/cluster_msg.c)
 * against a real redis-server 7.0.15 in cluster mode: this test plays a node
 * of its own making ("made-up"), speaking only through the codec.
 *
 *  1. It MEETs Redis on Redis's bus port and decodes the PONG: sender, slot
 *     bitmap, ports, flags, epochs, state, offset and hostname extension
 *     must be what CLUSTER MYID, CLUSTER NODES, CLUSTER INFO and INFO say.
 *  2. Redis, having taken the MEET, lists the made-up node in handshake at
 *     the address and ports the MEET announced, connects to its bus port and
 *     PINGs; the PONG the test answers with ends the handshake: Redis lists
 *     the node under its own name.
 *  3. A PING carrying slots, a gossip entry about a third made-up node and a
 *     hostname: Redis gives the slots to the made-up node, shows its
 *     hostname, and adds the third node; its next PINGs gossip about that
 *     node as CLUSTER NODES shows it.
 *  4. PUBLISH both ways: Redis's subscriber gets the made-up node's message,
 *     and a PUBLISH on Redis reaches the made-up node's link.
 *  5. Claiming Redis's slots with an older config epoch draws an UPDATE.
 *  6. The made-up node's report of the third node (PFAIL) makes the majority,
 *     and Redis broadcasts FAIL about it.
 * Every message Redis sends, decoded and encoded again, gives Redis's bytes.
 * With $RBKV_BUS_SEEDS set to a folder, the messages Redis sent are saved
 * there (the fuzz target's seeds, tests/fuzz/corpus/cluster_bus/).
 *
 * Runs only with redis-server on PATH (else it skips, or fails when the
 * reference is required). Owns: its redis-server, its listening sockets and
 * links.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cluster_msg.h"
#include "harness.h"

#define WAIT_MS (15000 * H_SLOW)
#define MAX_MSG (1u << 20)
#define MADE_UP_PORT 30001 /* the made-up node's client port: announced, never used */
#define THIRD_PORT 30002
#define NODE_MASTER 1
#define NODE_PFAIL 4

/* A bus link: a socket and the bytes read from it that are not consumed. */
struct link {
    int fd;
    unsigned char buf[1 << 16];
    size_t len;
    size_t consumed; /* the last message returned, dropped at the next read */
};

static int listen_any(int *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 4) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(sa.sin_port);
    return fd;
}

/* A port nothing listens on now, for Redis's bus (its port + 10000 may be above 65535). */
static int free_port(void)
{
    int port = -1;
    int fd = listen_any(&port);
    if (fd >= 0)
        close(fd);
    return port;
}

static int connect_port(int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                             .sin_port = htons((uint16_t)port)};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
        return fd;
    if (fd >= 0)
        close(fd);
    return -1;
}

static int accept_within(int lfd, int timeout_ms)
{
    struct pollfd p = {.fd = lfd, .events = POLLIN};
    if (poll(&p, 1, timeout_ms) != 1)
        return -1;
    return accept(lfd, NULL, NULL);
}

static int send_all(int fd, const void *p, size_t n)
{
    const char *b = p;
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

static void save_seed(const char *name, const void *p, size_t n)
{
    const char *dir = getenv("RBKV_BUS_SEEDS");
    if (!dir || !*dir)
        return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(p, 1, n, f);
        fclose(f);
    }
}

/* The next whole message on l, framed and decoded, within timeout_ms. It
 * borrows l->buf until the next call. Returns 0, or -1 after a failed CHECK. */
static int read_msg(struct link *l, struct cluster_msg *m, int timeout_ms)
{
    memmove(l->buf, l->buf + l->consumed, l->len - l->consumed);
    l->len -= l->consumed;
    l->consumed = 0;
    int64_t deadline = h_now_ms() + timeout_ms;
    for (;;) {
        uint32_t want;
        char why[200];
        int r = cluster_msg_frame(l->buf, l->len, MAX_MSG, &want, why, sizeof why);
        if (!CHECK(r >= 0, "framing refused Redis's bytes: %s", why))
            return -1;
        if (r == 1) {
            int st = cluster_msg_decode(l->buf, want, m, why, sizeof why);
            if (!CHECK(st == CLUSTER_MSG_OK, "decoding refused Redis's %s: %s",
                       cluster_msg_type_name(m->hdr.type), why))
                return -1;
            l->consumed = want;
            return 0;
        }
        if (!CHECK(want <= sizeof l->buf, "a message of %u bytes", want))
            return -1;
        int left = (int)(deadline - h_now_ms());
        struct pollfd p = {.fd = l->fd, .events = POLLIN};
        if (!CHECK(left > 0 && poll(&p, 1, left) == 1, "no message from Redis in time"))
            return -1;
        ssize_t n = recv(l->fd, l->buf + l->len, sizeof l->buf - l->len, 0);
        if (!CHECK(n > 0, "Redis closed the bus link (%s)", n < 0 ? strerror(errno) : "EOF"))
            return -1;
        l->len += (size_t)n;
    }
}

/* The made-up node. */
struct made_up {
    char name[CLUSTER_MSG_NAMELEN + 1];
    char third[CLUSTER_MSG_NAMELEN + 1];
    int cport, third_cport;
    int lfd, third_lfd;
    /* What every message announces: Redis 7.0 takes a message without the
     * hostname extension as "no hostname", and slots from every PING/PONG. */
    unsigned char slots[CLUSTER_MSG_SLOT_BYTES];
    const char *hostname; /* or NULL */
};

static void make_hdr(const struct made_up *n, struct cluster_msg_hdr *h, uint16_t type)
{
    memset(h, 0, sizeof *h);
    h->type = type;
    h->port = MADE_UP_PORT;
    h->cport = (uint16_t)n->cport;
    h->flags = NODE_MASTER;
    h->current_epoch = 3;
    h->config_epoch = 3;
    memcpy(h->sender, n->name, CLUSTER_MSG_NAMELEN);
    memcpy(h->myslots, n->slots, sizeof h->myslots);
    strcpy(h->myip, "127.0.0.1");
}

static void set_slot(unsigned char *slots, int s)
{
    slots[s / 8] |= (unsigned char)(1u << (s & 7));
}

static int has_slot(const unsigned char *slots, int s)
{
    return slots[s / 8] >> (s & 7) & 1;
}

/* Sends a PING, PONG or MEET from n with the given gossip. */
static int send_ping(int fd, const struct made_up *n, uint16_t type,
                     const struct cluster_msg_gossip *g, uint16_t count)
{
    struct cluster_msg_hdr h;
    make_hdr(n, &h, type);
    size_t hl = n->hostname ? strlen(n->hostname) : 0;
    size_t len = cluster_msg_len_ping(count, hl);
    unsigned char *buf = malloc(len);
    if (!buf)
        return -1;
    cluster_msg_encode_ping(buf, &h, g, count, n->hostname, hl);
    int r = send_all(fd, buf, len);
    free(buf);
    return r;
}

/* The first line of CLUSTER NODES that holds needle, copied into out.
 * Returns 0, or -1 when there is none. */
static int nodes_line(redisContext *c, const char *needle, char *out, size_t cap)
{
    redisReply *r = H_CALL(c, "CLUSTER", "NODES");
    int found = -1;
    if (r && r->type == REDIS_REPLY_STRING) {
        const char *p = r->str;
        while (*p) {
            const char *end = strchr(p, '\n');
            size_t n = end ? (size_t)(end - p) : strlen(p);
            if (memmem(p, n, needle, strlen(needle)) && n < cap) {
                memcpy(out, p, n);
                out[n] = '\0';
                found = 0;
                break;
            }
            p += n + (end ? 1 : 0);
        }
    }
    freeReplyObject(r);
    return found;
}

/* Polls CLUSTER NODES until the line holding needle matches pattern (h_glob), while
 * answering Redis's PINGs on l. Returns 1 when it did. */
static int wait_nodes_line(redisContext *c, const char *needle, const char *pattern,
                           struct link *l, const struct made_up *n, char *line, size_t cap)
{
    int64_t deadline = h_now_ms() + WAIT_MS;
    while (h_now_ms() < deadline) {
        if (nodes_line(c, needle, line, cap) == 0 && h_glob(pattern, line, strlen(line)))
            return 1;
        struct pollfd p = {.fd = l->fd, .events = POLLIN};
        if (poll(&p, 1, 50) == 1) {
            struct cluster_msg m;
            if (read_msg(l, &m, WAIT_MS) != 0)
                return 0;
            if (m.hdr.type == CLUSTER_MSG_PING)
                send_ping(l->fd, n, CLUSTER_MSG_PONG, NULL, 0);
        }
    }
    return 0;
}

/* The next message of the given type on l, within WAIT_MS, answering Redis's
 * PINGs and passing over other types. Returns 0, or -1 after a failed CHECK. */
static int next_msg_of_type(struct link *l, const struct made_up *n, uint16_t type,
                            struct cluster_msg *m)
{
    int64_t deadline = h_now_ms() + WAIT_MS;
    for (;;) {
        int left = (int)(deadline - h_now_ms());
        if (!CHECK(left > 0, "no %s from Redis in time", cluster_msg_type_name(type)) ||
            read_msg(l, m, left) != 0)
            return -1;
        if (m->hdr.type == type)
            return 0;
        if (m->hdr.type == CLUSTER_MSG_PING)
            send_ping(l->fd, n, CLUSTER_MSG_PONG, NULL, 0);
    }
}

/* Node flags from CLUSTER NODES's flags word. */
static unsigned flags_of(const char *word)
{
    static const struct { const char *name; unsigned bit; } names[] = {
        {"master", 1}, {"slave", 2}, {"fail?", 4}, {"fail", 8}, {"myself", 16},
        {"handshake", 32}, {"noaddr", 64}, {"nofailover", 512},
    };
    unsigned flags = 0;
    char copy[128];
    snprintf(copy, sizeof copy, "%s", word);
    for (char *save, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (!strcmp(t, names[i].name))
                flags |= names[i].bit;
    return flags;
}

/* Field i (0-based, split at spaces) of a CLUSTER NODES line into out. */
static void field(const char *line, int i, char *out, size_t cap)
{
    out[0] = '\0';
    for (; i > 0 && line; i--) {
        line = strchr(line, ' ');
        if (line)
            line++;
    }
    if (!line)
        return;
    size_t n = strcspn(line, " ");
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), line);
}

/* Byte for byte: what the encoder builds from what Redis sent decoded is
 * what Redis sent (reserved and padding bytes zero on both sides). */
static void check_reencoded(const struct cluster_msg *m, const unsigned char *raw, size_t len)
{
    unsigned char *buf = malloc(len);
    struct cluster_msg_gossip *g = calloc(m->hdr.count + 1u, sizeof *g);
    size_t wrote = 0;
    if (!CHECK(buf && g, "out of memory"))
        goto out;
    switch (m->hdr.type) {
    case CLUSTER_MSG_PING:
    case CLUSTER_MSG_PONG:
    case CLUSTER_MSG_MEET:
        if (!CHECK(cluster_msg_len_ping(m->hdr.count, m->body.ping.hostname_len) == len,
                   "%s of %zu bytes: not one the encoder builds",
                   cluster_msg_type_name(m->hdr.type), len))
            goto out;
        for (uint16_t i = 0; i < m->hdr.count; i++)
            cluster_msg_gossip_at(m, i, &g[i]);
        wrote = cluster_msg_encode_ping(buf, &m->hdr, g, m->hdr.count, m->body.ping.hostname,
                                        m->body.ping.hostname_len);
        break;
    case CLUSTER_MSG_PUBLISH:
        if (!CHECK(cluster_msg_len_publish(m->body.publish.channel_len,
                                           m->body.publish.message_len) == len, "publish length"))
            goto out;
        wrote = cluster_msg_encode_publish(buf, &m->hdr, m->body.publish.channel,
                                           m->body.publish.channel_len, m->body.publish.message,
                                           m->body.publish.message_len);
        break;
    case CLUSTER_MSG_FAIL:
        wrote = len == CLUSTER_MSG_LEN_FAIL ? cluster_msg_encode_fail(buf, &m->hdr,
                                                                      m->body.fail.nodename)
                                            : 0;
        break;
    case CLUSTER_MSG_UPDATE:
        wrote = len == CLUSTER_MSG_LEN_UPDATE
                    ? cluster_msg_encode_update(buf, &m->hdr, m->body.update.config_epoch,
                                                m->body.update.nodename, m->body.update.slots)
                    : 0;
        break;
    default:
        CHECK(0, "no re-encoding of %s here", cluster_msg_type_name(m->hdr.type));
        goto out;
    }
    size_t at = 0;
    while (at < len && buf[at] == raw[at])
        at++;
    CHECK(wrote == len && at == len, "%s re-encoded differs from Redis's at byte %zu of %zu",
          cluster_msg_type_name(m->hdr.type), at, len);
out:
    free(g);
    free(buf);
}

/* The header Redis sent checked against what its commands say. */
static void check_redis_hdr(redisContext *c, const struct cluster_msg *m, const char *myid,
                            const struct h_server *ref, int cport)
{
    const struct cluster_msg_hdr *h = &m->hdr;
    CHECK(!memcmp(h->sender, myid, CLUSTER_MSG_NAMELEN), "sender %.40s, CLUSTER MYID %s",
          h->sender, myid);
    CHECK(h->port == ref->port && h->cport == cport && h->pport == 0, "ports %u %u %u",
          h->port, h->cport, h->pport);
    char line[1024], word[128];
    if (CHECK(nodes_line(c, " myself,", line, sizeof line) == 0, "no myself line")) {
        field(line, 2, word, sizeof word);
        CHECK(h->flags == flags_of(word), "flags %u, CLUSTER NODES says %s", h->flags, word);
        field(line, 6, word, sizeof word);
        CHECK(h->config_epoch == strtoull(word, NULL, 10), "configEpoch %llu, CLUSTER NODES %s",
              (unsigned long long)h->config_epoch, word);
    }
    char val[64] = "";
    redisReply *r = H_CALL(c, "CLUSTER", "INFO");
    if (CHECK(r && r->type == REDIS_REPLY_STRING, "CLUSTER INFO")) {
        CHECK(h_info_field(r->str, "cluster_current_epoch", val, sizeof val) == 0 &&
                  h->current_epoch == strtoull(val, NULL, 10),
              "currentEpoch %llu, CLUSTER INFO %s", (unsigned long long)h->current_epoch, val);
        CHECK(h_info_field(r->str, "cluster_state", val, sizeof val) == 0 &&
                  h->state == (strcmp(val, "ok") ? 1 : 0),
              "state %u, CLUSTER INFO %s", h->state, val);
    }
    freeReplyObject(r);
    CHECK(h_info_str(c, "replication", "master_repl_offset", val, sizeof val) == 0 &&
              h->offset == strtoull(val, NULL, 10),
          "offset %llu, INFO %s", (unsigned long long)h->offset, val);
    /* ADDSLOTSRANGE 0 99 and 5000 5100, nothing else. */
    int wrong = -1;
    for (int s = 0; s < CLUSTER_MSG_SLOTS && wrong < 0; s++)
        if (has_slot(h->myslots, s) != ((s <= 99) || (s >= 5000 && s <= 5100)))
            wrong = s;
    CHECK(wrong < 0, "slot %d in the bitmap differs from ADDSLOTSRANGE", wrong);
    CHECK(h->myip[0] == '\0', "myip '%s' without cluster-announce-ip", h->myip);
    for (int i = 0; i < CLUSTER_MSG_NAMELEN; i++)
        if (h->slaveof[i]) {
            CHECK(0, "a primary's slaveof is not zeros");
            break;
        }
    if (h->type > CLUSTER_MSG_MEET)
        return;
    CHECK(m->body.ping.hostname && m->body.ping.hostname_len == strlen("redis-host-1") &&
              !memcmp(m->body.ping.hostname, "redis-host-1", m->body.ping.hostname_len),
          "hostname extension");
}

static int skipped;

static void test_wire_with_redis(void)
{
    struct h_server ref;
    int bus_port = free_port();
    char bus[16];
    snprintf(bus, sizeof bus, "%d", bus_port);
    /* Redis drops a node still in handshake after node-timeout and pings each node at least
     * every node-timeout / 2: 5 s leaves a slow run room, and the gossip comes soon enough. */
    int st = h_start_reference(&ref, H_FLAGS("--cluster-enabled", "yes", "--cluster-port", bus,
                                             "--cluster-announce-hostname", "redis-host-1",
                                             "--cluster-node-timeout", "5000"));
    if (st == 1) {
        printf("  skipped: no redis-server on PATH\n");
        skipped = 1;
        return;
    }
    if (st != 0)
        return;
    redisContext *c = h_connect(&ref);
    struct made_up n = {.lfd = -1, .third_lfd = -1};
    struct link meet = {.fd = -1}, *back = calloc(1, sizeof *back);
    if (!c || !back)
        goto out;
    back->fd = -1;
    char myid[64] = "";
    redisReply *r = H_CALL(c, "CLUSTER", "MYID");
    if (r && r->type == REDIS_REPLY_STRING)
        snprintf(myid, sizeof myid, "%s", r->str);
    freeReplyObject(r);
    if (!CHECK(strlen(myid) == CLUSTER_MSG_NAMELEN, "CLUSTER MYID '%s'", myid))
        goto out;
    EXPECT_OK(c, "CLUSTER", "SET-CONFIG-EPOCH", "7");
    EXPECT_OK(c, "CLUSTER", "ADDSLOTSRANGE", "0", "99", "5000", "5100");

    uint64_t seed = h_seed();
    snprintf(n.name, sizeof n.name, "%040llx", (unsigned long long)seed);
    memcpy(n.name, "feed", 4);
    snprintf(n.third, sizeof n.third, "%040llx", (unsigned long long)~seed);
    memcpy(n.third, "beef", 4);
    n.lfd = listen_any(&n.cport);
    n.third_lfd = listen_any(&n.third_cport);
    if (!CHECK(n.lfd >= 0 && n.third_lfd >= 0, "listen: %s", strerror(errno)))
        goto out;

    /* 1. MEET, and Redis's PONG. */
    meet.fd = connect_port(bus_port);
    if (!CHECK(meet.fd >= 0, "connect to Redis's bus port %d", bus_port))
        goto out;
    CHECK(send_ping(meet.fd, &n, CLUSTER_MSG_MEET, NULL, 0) == 0, "send MEET");
    struct cluster_msg m;
    if (read_msg(&meet, &m, WAIT_MS) != 0)
        goto out;
    CHECK(m.hdr.type == CLUSTER_MSG_PONG, "Redis answered MEET with %s",
          cluster_msg_type_name(m.hdr.type));
    CHECK(m.hdr.count == 0, "gossip about %u nodes (Redis knows none to tell of)", m.hdr.count);
    check_redis_hdr(c, &m, myid, &ref, bus_port);
    save_seed("redis_pong_to_meet", meet.buf, meet.consumed);
    check_reencoded(&m, meet.buf, meet.consumed);

    /* 2. The made-up node in handshake at the announced address; Redis's PING. */
    char line[1024], pattern[256];
    snprintf(pattern, sizeof pattern, "* 127.0.0.1:%d@%d handshake - *", MADE_UP_PORT, n.cport);
    CHECK(wait_nodes_line(c, " handshake ", pattern, &meet, &n, line, sizeof line),
          "CLUSTER NODES has no line %s", pattern);
    back->fd = accept_within(n.lfd, WAIT_MS);
    if (!CHECK(back->fd >= 0, "Redis never connected to the made-up node's bus port"))
        goto out;
    if (read_msg(back, &m, WAIT_MS) != 0)
        goto out;
    CHECK(m.hdr.type == CLUSTER_MSG_PING, "Redis's first message on its link is %s",
          cluster_msg_type_name(m.hdr.type));
    check_redis_hdr(c, &m, myid, &ref, bus_port);
    save_seed("redis_ping", back->buf, back->consumed);
    check_reencoded(&m, back->buf, back->consumed);
    CHECK(send_ping(back->fd, &n, CLUSTER_MSG_PONG, NULL, 0) == 0, "send PONG");
    snprintf(pattern, sizeof pattern, "%s 127.0.0.1:%d@%d master - *", n.name, MADE_UP_PORT,
             n.cport);
    CHECK(wait_nodes_line(c, n.name, pattern, back, &n, line, sizeof line),
          "the handshake did not end: %s", line);

    /* 3. Slots, a hostname and gossip about a third node, by PING on the MEET link. */
    for (int s = 16000; s < CLUSTER_MSG_SLOTS; s++)
        set_slot(n.slots, s);
    n.hostname = "made-up.example";
    struct cluster_msg_gossip g = {.port = THIRD_PORT, .cport = (uint16_t)n.third_cport,
                                   .flags = NODE_MASTER};
    memcpy(g.nodename, n.third, CLUSTER_MSG_NAMELEN);
    strcpy(g.ip, "127.0.0.1");
    CHECK(send_ping(meet.fd, &n, CLUSTER_MSG_PING, &g, 1) == 0, "send PING");
    snprintf(pattern, sizeof pattern,
             "%s 127.0.0.1:%d@%d,made-up.example master - * 3 * 16000-16383", n.name,
             MADE_UP_PORT, n.cport);
    CHECK(wait_nodes_line(c, n.name, pattern, back, &n, line, sizeof line),
          "slots or hostname not taken: %s", line);
    snprintf(pattern, sizeof pattern, "%s 127.0.0.1:%d@%d master *", n.third, THIRD_PORT,
             n.third_cport);
    CHECK(wait_nodes_line(c, n.third, pattern, back, &n, line, sizeof line),
          "the gossiped node is not listed: %s", line);
    /* Once Redis's link to the third node is up, its PINGs to us gossip about it. */
    int third_fd = accept_within(n.third_lfd, WAIT_MS);
    CHECK(third_fd >= 0, "Redis never connected to the third node");
    int gossiped = 0;
    int64_t deadline = h_now_ms() + WAIT_MS;
    while (!gossiped && h_now_ms() < deadline && read_msg(back, &m, WAIT_MS) == 0) {
        if (m.hdr.type != CLUSTER_MSG_PING)
            continue;
        send_ping(back->fd, &n, CLUSTER_MSG_PONG, NULL, 0);
        for (uint16_t i = 0; i < m.hdr.count; i++) {
            struct cluster_msg_gossip d;
            cluster_msg_gossip_at(&m, i, &d);
            if (memcmp(d.nodename, n.third, CLUSTER_MSG_NAMELEN))
                continue;
            gossiped = 1;
            save_seed("redis_ping_gossip", back->buf, back->consumed);
            check_reencoded(&m, back->buf, back->consumed);
            CHECK(!strcmp(d.ip, "127.0.0.1") && d.port == THIRD_PORT &&
                      d.cport == n.third_cport && d.pport == 0,
                  "gossip entry %s:%u@%u", d.ip, d.port, d.cport);
            if (CHECK(nodes_line(c, n.third, line, sizeof line) == 0, "third node's line")) {
                char word[128];
                field(line, 2, word, sizeof word);
                /* The node never answers: it may turn PFAIL between the two. */
                CHECK((d.flags & ~NODE_PFAIL) == (flags_of(word) & ~NODE_PFAIL),
                      "gossip flags %u, CLUSTER NODES %s", d.flags, word);
            }
        }
    }
    CHECK(gossiped, "Redis's PINGs never gossiped about the third node");
    if (third_fd >= 0)
        close(third_fd);

    /* 4. PUBLISH from the made-up node to Redis's subscriber, and back. */
    redisContext *sub = h_connect(&ref);
    if (sub) {
        EXPECT_REPLY(sub, "['subscribe', 'bus-news', :1]", "SUBSCRIBE", "bus-news");
        struct cluster_msg_hdr h;
        make_hdr(&n, &h, CLUSTER_MSG_PUBLISH);
        unsigned char pub[CLUSTER_MSG_HEADER_LEN + 64];
        size_t len = cluster_msg_encode_publish(pub, &h, "bus-news", 8, "from\0made-up", 12);
        CHECK(send_all(meet.fd, pub, len) == 0, "send PUBLISH");
        redisReply *msg = h_get_reply(sub);
        char text[256] = "(none)";
        if (msg)
            h_repr(msg, text, sizeof text);
        CHECK(!strcmp(text, "['message', 'bus-news', 'from\\x00made-up']"), "subscriber got %s",
              text);
        freeReplyObject(msg);
        redisFree(sub);
    }
    EXPECT_INT(c, 0, "PUBLISH", "to-the-bus", "hello bus");
    if (next_msg_of_type(back, &n, CLUSTER_MSG_PUBLISH, &m) != 0)
        goto out;
    save_seed("redis_publish", back->buf, back->consumed);
    check_reencoded(&m, back->buf, back->consumed);
    check_redis_hdr(c, &m, myid, &ref, bus_port);
    CHECK(m.body.publish.channel_len == 10 && !memcmp(m.body.publish.channel, "to-the-bus", 10) &&
              m.body.publish.message_len == 9 && !memcmp(m.body.publish.message, "hello bus", 9),
          "PUBLISH body");

    /* 5. Claiming Redis's slots 0-99 with an older config epoch: Redis answers with an
     * UPDATE about itself. */
    for (int s = 0; s <= 99; s++)
        set_slot(n.slots, s);
    CHECK(send_ping(meet.fd, &n, CLUSTER_MSG_PING, NULL, 0) == 0, "send PING");
    if (next_msg_of_type(back, &n, CLUSTER_MSG_UPDATE, &m) != 0)
        goto out;
    save_seed("redis_update", back->buf, back->consumed);
    check_reencoded(&m, back->buf, back->consumed);
    CHECK(!memcmp(m.body.update.nodename, myid, CLUSTER_MSG_NAMELEN) &&
              m.body.update.config_epoch == 7,
          "UPDATE about %.40s at epoch %llu", m.body.update.nodename,
          (unsigned long long)m.body.update.config_epoch);
    CHECK(!memcmp(m.body.update.slots, m.hdr.myslots, CLUSTER_MSG_SLOT_BYTES),
          "UPDATE's slots are not Redis's own");
    memset(n.slots, 0, sizeof n.slots);
    for (int s = 16000; s < CLUSTER_MSG_SLOTS; s++)
        set_slot(n.slots, s);

    /* 6. The third node never answers: once Redis flags it PFAIL, the made-up node's
     * report makes the majority of the two primaries with slots, and Redis broadcasts FAIL. */
    snprintf(pattern, sizeof pattern, "%s * master,fail? *", n.third);
    CHECK(wait_nodes_line(c, n.third, pattern, back, &n, line, sizeof line),
          "the third node never turned PFAIL: %s", line);
    g.flags = NODE_MASTER | NODE_PFAIL;
    CHECK(send_ping(meet.fd, &n, CLUSTER_MSG_PING, &g, 1) == 0, "send PING");
    if (next_msg_of_type(back, &n, CLUSTER_MSG_FAIL, &m) != 0)
        goto out;
    save_seed("redis_fail", back->buf, back->consumed);
    check_reencoded(&m, back->buf, back->consumed);
    CHECK(!memcmp(m.body.fail.nodename, n.third, CLUSTER_MSG_NAMELEN), "FAIL about %.40s",
          m.body.fail.nodename);
    snprintf(pattern, sizeof pattern, "%s * master,fail *", n.third);
    CHECK(wait_nodes_line(c, n.third, pattern, back, &n, line, sizeof line),
          "the third node is not FAIL: %s", line);

out:
    if (meet.fd >= 0)
        close(meet.fd);
    if (back && back->fd >= 0)
        close(back->fd);
    free(back);
    if (n.lfd >= 0)
        close(n.lfd);
    if (n.third_lfd >= 0)
        close(n.third_lfd);
    if (c)
        redisFree(c);
    h_stop(&ref);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_wire_with_redis);
    int status = h_finish();
    return skipped && !status ? H_SKIP_STATUS : status;
}
