/*
 * test_clientmem.c - clients in the memory accounting and their limits,
 * each scenario run the same way on rbkv and on redis-server 7.0.15 and the
 * outcomes compared (issue 34, "Memory accounting and client limits"):
 *
 * - a subscriber that does not read, under client-output-buffer-limit
 *   pubsub 100000: CLIENT LIST lists it second (oldest first, as Redis), its
 *   omem grows to Redis's order (the last figure seen before the close is
 *   70k..200k on both), it is closed with Redis's log line;
 * - a normal client pipelining MGETs of big values and not reading, under a
 *   1 MB hard limit: closed on both; under the soft limit and its seconds:
 *   closed on both, not before the seconds;
 * - several such clients under maxmemory: their replies count, so keys are
 *   evicted on both (used_memory counts the replies, INFO's
 *   mem_not_counted_for_evict is 0 with no replica and no log);
 * - maxmemory-clients: the same flood closes the biggest clients on both
 *   (evicted_clients, "Evicting client:" logged); CLIENT NO-EVICT keeps a
 *   client; the setting takes bytes and percentages with Redis's replies;
 * - a replica that reads nothing (a raw PSYNC) while a big value is
 *   overwritten: its output buffer grows in used_memory past maxmemory,
 *   INFO's mem_not_counted_for_evict shows it, and no key is evicted, on
 *   both (Redis's freeMemoryGetNotCountedMemory);
 * - a MULTI queue is the client's memory: tot-mem grows with it by the
 *   queued bytes' order on both, and a client whose queue passes
 *   maxmemory-clients is evicted on both;
 * - a request stopped half-way: its query buffer counts in used_memory and
 *   qbuf shows what came, on both;
 * - an idle client's query buffer is freed after two seconds (qbuf-free=0
 *   on both).
 *
 * Stalled readers are raw sockets with a small receive buffer, set before
 * the connect so the window stays small; every wait polls with a deadline.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"

#define BIG_LEN (100 * 1000)  /* the value every MGET asks for four times */
#define FLOOD_MGETS 20        /* MGETs a stalled client sends: 8 MB of replies */
#define STALLED_MAX 8
#define POLL_MS 20

static struct h_server srv, ref;
static int have_ref;

/* A connection to s that reads nothing: its receive buffer is set small
 * before the connect, so replies pile up in the server. -1 on failure. */
static int stalled_open(const struct h_server *s)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int small = 4096;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static long long client_field(redisContext *c, const char *name, const char *field);

/* A stalled client of s named name, seen listed by c; -1 on failure. */
static int stalled_named(const struct h_server *s, redisContext *c, const char *name)
{
    int fd = stalled_open(s);
    char setname[128];
    CHECK(fd >= 0, "a stalled client of port %d", s->port);
    if (fd < 0)
        return -1;
    int n = snprintf(setname, sizeof(setname),
                     "*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$%zu\r\n%s\r\n", strlen(name), name);
    send_all(fd, setname, (size_t)n);
    int64_t deadline = h_now_ms() + 5000 * H_SLOW;
    while (client_field(c, name, "id") < 0 && h_now_ms() < deadline)
        h_sleep_ms(POLL_MS);
    CHECK(client_field(c, name, "id") >= 0, "the client %s is listed", name);
    return fd;
}

/* That stalled client, once listed, pipelines FLOOD_MGETS MGETs of "big"
 * (8 MB of replies). */
static int stalled_flood(const struct h_server *s, redisContext *c, const char *name)
{
    static const char mget[] = "*5\r\n$4\r\nMGET\r\n$3\r\nbig\r\n$3\r\nbig\r\n$3\r\nbig\r\n"
                               "$3\r\nbig\r\n";
    int fd = stalled_named(s, c, name);
    for (int i = 0; fd >= 0 && i < FLOOD_MGETS; i++)
        send_all(fd, mget, sizeof(mget) - 1);
    return fd;
}

/* The numeric field of the CLIENT LIST line named name; -1 when no such
 * client is listed. */
static long long client_field(redisContext *c, const char *name, const char *field)
{
    redisReply *r = H_CALL(c, "CLIENT", "LIST");
    long long v = -1;
    char want[80], key[40];
    snprintf(want, sizeof(want), " name=%s ", name);
    snprintf(key, sizeof(key), " %s=", field);
    if (r && r->type == REDIS_REPLY_STRING) {
        for (char *line = r->str; line && *line;) {
            char *end = strchr(line, '\n');
            size_t len = end ? (size_t)(end - line) : strlen(line);
            char buf[2048];
            snprintf(buf, sizeof(buf), " %.*s ", (int)len, line);
            char *f = strstr(buf, key);
            if (strstr(buf, want) && f)
                v = atoll(f + strlen(key));
            line = end ? end + 1 : NULL;
        }
    }
    freeReplyObject(r);
    return v;
}

/* Whether CLIENT LIST lists the client named first before the one named
 * second. */
static int listed_before(redisContext *c, const char *first, const char *second)
{
    redisReply *r = H_CALL(c, "CLIENT", "LIST");
    char a[80], b[80];
    snprintf(a, sizeof(a), " name=%s ", first);
    snprintf(b, sizeof(b), " name=%s ", second);
    const char *text = r && r->type == REDIS_REPLY_STRING ? r->str : "";
    const char *pa = strstr(text, a), *pb = strstr(text, b);
    int before = pa && pb && pa < pb;
    freeReplyObject(r);
    return before;
}

/* Whether the client named name has CLIENT NO-EVICT's flag e. */
static int listed_flags_e(redisContext *c, const char *name)
{
    redisReply *r = H_CALL(c, "CLIENT", "LIST");
    char want[80];
    snprintf(want, sizeof(want), " name=%s ", name);
    const char *text = r && r->type == REDIS_REPLY_STRING ? r->str : "";
    const char *p = strstr(text, want);
    const char *f = p ? strstr(p, " flags=") : NULL;
    int e = f && (size_t)(strcspn(f + 7, " ")) > 0 && memchr(f + 7, 'e', strcspn(f + 7, " "));
    freeReplyObject(r);
    return e;
}

static void set_big(redisContext *c)
{
    char *v = malloc(BIG_LEN);
    memset(v, 'x', BIG_LEN);
    redisReply *r = h_command(c, 3, (const char *const[]){"SET", "big", v},
                              (const size_t[]){3, 3, BIG_LEN});
    CHECK(r && r->type == REDIS_REPLY_STATUS, "SET big");
    freeReplyObject(r);
    free(v);
}

/* ---- the servers ---- */

static const char *who(const struct h_server *s)
{
    return s == &ref ? "redis-server" : "server under test";
}

/* Runs scenario on the server under test, then on the reference when there
 * is one, each time with a fresh flushed client of it. */
static void on_each(void (*scenario)(const struct h_server *s, redisContext *c))
{
    const struct h_server *list[] = {&srv, &ref};
    for (int i = 0; i < (have_ref ? 2 : 1); i++) {
        redisContext *c = h_connect_flushed(list[i]);
        if (!c)
            continue;
        scenario(list[i], c);
        redisFree(c);
    }
}

static void close_all(const int *fds, int n)
{
    for (int k = 0; k < n; k++)
        if (fds[k] >= 0)
            close(fds[k]);
}

/* A subscriber that reads nothing, published to until it is closed: the
 * last omem seen is in Redis's own test's range, and it is listed after
 * the publisher, which connected first. */
static void pubsub_omem(const struct h_server *s, redisContext *c)
{
    char msg[10000];
    memset(msg, 'm', sizeof(msg) - 1);
    msg[sizeof(msg) - 1] = '\0';
    EXPECT_OK(c, "CLIENT", "SETNAME", "publisher");
    EXPECT_OK(c, "CONFIG", "SET", "client-output-buffer-limit", "pubsub 100000 0 0");
    int fd = stalled_named(s, c, "sub");
    static const char sub[] = "*2\r\n$9\r\nSUBSCRIBE\r\n$3\r\nfoo\r\n";
    send_all(fd, sub, sizeof(sub) - 1);
    int64_t deadline = h_now_ms() + 5000 * H_SLOW;
    while (client_field(c, "sub", "sub") != 1 && h_now_ms() < deadline)
        h_sleep_ms(POLL_MS);
    CHECK(listed_before(c, "publisher", "sub"),
          "%s: CLIENT LIST runs oldest first: the publisher before the subscriber", who(s));
    long long omem = 0, last = 0;
    deadline = h_now_ms() + 20000 * H_SLOW;
    while ((omem = client_field(c, "sub", "omem")) >= 0 && omem <= 200000 &&
           h_now_ms() < deadline) {
        last = omem;
        freeReplyObject(H_CALL(c, "PUBLISH", "foo", msg));
    }
    CHECK(omem < 0, "%s: the subscriber is closed by its hard limit (omem %lld)", who(s), omem);
    CHECK(last >= 70000 && last < 200000,
          "%s: its last omem before the close is 70000..200000, not %lld", who(s), last);
    CHECK(h_wait_log(s, "for overcoming of output buffer limits.", 5000 * H_SLOW),
          "%s: the close is logged as Redis logs it", who(s));
    close(fd);
    EXPECT_OK(c, "CONFIG", "SET", "client-output-buffer-limit", "pubsub 32mb 8mb 60");
}

static void test_pubsub_omem(void)
{
    on_each(pubsub_omem);
}

/* Polls until the client named name is no longer listed. */
static int wait_gone(redisContext *c, const char *name, int64_t deadline)
{
    while (client_field(c, name, "id") >= 0 && h_now_ms() < deadline)
        h_sleep_ms(POLL_MS);
    return client_field(c, name, "id") < 0;
}

/* A normal client's replies piling up: closed by the hard limit at once,
 * by the soft limit only once it lasted its seconds. */
static void normal_limits(const struct h_server *s, redisContext *c)
{
    set_big(c);
    EXPECT_OK(c, "CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0");
    int fd = stalled_flood(s, c, "hard");
    CHECK(wait_gone(c, "hard", h_now_ms() + 10000 * H_SLOW),
          "%s: the hard limit closed the client", who(s));
    close(fd);

    EXPECT_OK(c, "CONFIG", "SET", "client-output-buffer-limit", "normal 0 200kb 1");
    fd = stalled_flood(s, c, "soft");
    int64_t start = h_now_ms(), deadline = start + 10000 * H_SLOW;
    long long omem;
    while ((omem = client_field(c, "soft", "omem")) >= 0 && omem < 200000 &&
           h_now_ms() < deadline)
        h_sleep_ms(POLL_MS);
    /* Seen over the soft limit, or already closed by it (a busy machine may
     * let its second pass between two looks). */
    CHECK(omem >= 200000 || (omem < 0 && h_now_ms() - start >= 1000),
          "%s: the soft client is over 200kb (omem %lld)", who(s), omem);
    /* Redis looks at the limits when a reply is added: the client asks
     * again until it is gone. */
    static const char get[] = "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n";
    while (client_field(c, "soft", "id") >= 0 && h_now_ms() < deadline) {
        send_all(fd, get, sizeof(get) - 1);
        h_sleep_ms(100);
    }
    CHECK(wait_gone(c, "soft", deadline), "%s: the soft limit closed the client", who(s));
    CHECK(h_now_ms() - start >= 1000, "%s: not before the soft limit's second (%lld ms)", who(s),
          (long long)(h_now_ms() - start));
    close(fd);
    EXPECT_OK(c, "CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0");
}

static void test_normal_limits(void)
{
    on_each(normal_limits);
}

/* Replies nobody reads count toward maxmemory: keys go on both. */
static void flood_evicts_keys(const struct h_server *s, redisContext *c)
{
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    set_big(c);
    h_fill(c, "k", 2000);
    char cap[32];
    snprintf(cap, sizeof(cap), "%lld", h_info_ll(c, "memory", "used_memory") + 2 * 1024 * 1024);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "allkeys-random");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", cap);
    CHECK(h_info_ll(c, "memory", "mem_not_counted_for_evict") == 0,
          "%s: nothing left out with no replica and no log", who(s));
    int fds[STALLED_MAX];
    char name[16];
    for (int k = 0; k < STALLED_MAX; k++) {
        snprintf(name, sizeof(name), "flood%d", k);
        fds[k] = stalled_flood(s, c, name);
    }
    int64_t deadline = h_now_ms() + 15000 * H_SLOW;
    long long evicted = 0;
    for (int k = 0; (evicted = h_info_ll(c, "stats", "evicted_keys")) == 0 &&
                    h_now_ms() < deadline;
         k++) {
        char key[32];
        snprintf(key, sizeof(key), "trigger:%d", k);
        freeReplyObject(H_CALL(c, "SET", key, "x"));
        h_sleep_ms(POLL_MS);
    }
    CHECK(evicted > 0, "%s: keys evicted under the output flood", who(s));
    close_all(fds, STALLED_MAX);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "0");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "noeviction");
}

static void test_flood_evicts_keys(void)
{
    on_each(flood_evicts_keys);
}

/* maxmemory-clients: the biggest clients go, CLIENT NO-EVICT ones stay. */
static void client_eviction(const struct h_server *s, redisContext *c)
{
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    EXPECT_OK(c, "CLIENT", "NO-EVICT", "on");
    set_big(c);
    int keeper = stalled_named(s, c, "keeper");
    static const char keep[] = "*3\r\n$6\r\nCLIENT\r\n$8\r\nNO-EVICT\r\n$2\r\non\r\n";
    send_all(keeper, keep, sizeof(keep) - 1);
    int64_t deadline = h_now_ms() + 5000 * H_SLOW;
    while (!listed_flags_e(c, "keeper") && h_now_ms() < deadline)
        h_sleep_ms(POLL_MS);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-clients", "3mb");
    int fds[STALLED_MAX];
    char name[16];
    for (int k = 0; k < STALLED_MAX; k++) {
        snprintf(name, sizeof(name), "ev%d", k);
        fds[k] = stalled_flood(s, c, name);
    }
    deadline = h_now_ms() + 15000 * H_SLOW;
    while (h_info_ll(c, "stats", "evicted_clients") < 1 && h_now_ms() < deadline)
        h_sleep_ms(POLL_MS);
    CHECK(h_info_ll(c, "stats", "evicted_clients") >= 1, "%s: clients evicted", who(s));
    CHECK(client_field(c, "keeper", "id") >= 0, "%s: CLIENT NO-EVICT kept its client", who(s));
    CHECK(h_wait_log(s, "Evicting client: ", 5000 * H_SLOW), "%s: the eviction is logged",
          who(s));
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-clients", "0");
    close_all(fds, STALLED_MAX);
    close(keeper);
}

static void test_client_eviction(void)
{
    static const char *const lines[] = {
        "CONFIG SET maxmemory-clients 10%", "CONFIG GET maxmemory-clients",
        "CONFIG SET maxmemory-clients 3mb", "CONFIG GET maxmemory-clients",
        "CONFIG SET maxmemory-clients abc", "CONFIG SET maxmemory-clients 0",
        "CONFIG GET maxmemory-clients",
    };
    redisContext *r = NULL;
    redisContext *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    if (c)
        H_SAME_LINES(c, r, lines);
    h_close_pair(c, r);
    on_each(client_eviction);
}

/* Queues SET key <len bytes> on q, in MULTI; 1 when +QUEUED came back. */
static int queue_set(redisContext *q, const char *key, size_t len)
{
    char *v = malloc(len);
    memset(v, 'q', len);
    redisReply *r = h_command(q, 3, (const char *const[]){"SET", key, v},
                              (const size_t[]){3, strlen(key), len});
    int queued = r && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "QUEUED");
    freeReplyObject(r);
    free(v);
    return queued;
}

/* A MULTI queue is its client's memory (Redis's multiStateMemOverhead in
 * getClientMemoryUsage): CLIENT LIST's tot-mem grows by what was queued,
 * and maxmemory-clients evicts a client for its queue alone. */
static void multi_queue(const struct h_server *s, redisContext *c)
{
    enum { SMALL = 10 * 1000, SMALL_N = 20, BIG = 100 * 1000, BIG_MAX = 100 };
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    EXPECT_OK(c, "CLIENT", "NO-EVICT", "on");
    redisContext *q = h_connect(s);
    if (!q)
        return;
    EXPECT_OK(q, "CLIENT", "SETNAME", "queue");
    EXPECT_OK(q, "MULTI");
    long long before = client_field(c, "queue", "tot-mem");
    char key[32];
    int n = 0;
    for (int i = 0; i < SMALL_N; i++) {
        snprintf(key, sizeof(key), "q:%d", i);
        n += queue_set(q, key, SMALL);
    }
    CHECK(n == SMALL_N, "%s: %d SETs queued", who(s), n);
    long long grew = client_field(c, "queue", "tot-mem") - before;
    CHECK(grew >= SMALL_N * SMALL && grew < 2 * SMALL_N * SMALL,
          "%s: tot-mem grew by %lld with %d bytes queued", who(s), grew, SMALL_N * SMALL);

    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-clients", "1mb");
    for (int i = 0; i < BIG_MAX && client_field(c, "queue", "id") >= 0; i++) {
        snprintf(key, sizeof(key), "b:%d", i);
        if (!queue_set(q, key, BIG))
            break;
    }
    CHECK(wait_gone(c, "queue", h_now_ms() + 5000 * H_SLOW),
          "%s: the client with the big queue was evicted", who(s));
    CHECK(h_info_ll(c, "stats", "evicted_clients") >= 1, "%s: counted in evicted_clients", who(s));
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-clients", "0");
    redisFree(q);
}

static void test_multi_queue(void)
{
    on_each(multi_queue);
}

/* A request stopped half-way: its query buffer (the big bulk's, sized at
 * its announced length on both servers) is in used_memory, and qbuf shows
 * the bytes that came. */
static void half_request(const struct h_server *s, redisContext *c)
{
    enum { ANNOUNCED = 4 * 1024 * 1024, SENT = 1024 * 1024 };
    long long before = h_info_ll(c, "memory", "used_memory");
    int fd = stalled_named(s, c, "half");
    char head[64];
    int n = snprintf(head, sizeof(head), "*3\r\n$3\r\nSET\r\n$4\r\nhalf\r\n$%d\r\n", ANNOUNCED);
    char *body = malloc(SENT);
    memset(body, 'h', SENT);
    send_all(fd, head, (size_t)n);
    send_all(fd, body, SENT);
    free(body);
    int64_t deadline = h_now_ms() + 5000 * H_SLOW;
    while (client_field(c, "half", "qbuf") < SENT && h_now_ms() < deadline)
        h_sleep_ms(POLL_MS);
    long long qbuf = client_field(c, "half", "qbuf");
    CHECK(qbuf >= SENT && qbuf < SENT + 64 * 1024, "%s: qbuf %lld is the bytes that came",
          who(s), qbuf);
    long long grew = h_info_ll(c, "memory", "used_memory") - before;
    CHECK(grew >= ANNOUNCED - 64 * 1024 && grew < 2 * ANNOUNCED,
          "%s: used_memory grew by %lld: the announced bulk's buffer", who(s), grew);
    close(fd);
    CHECK(wait_gone(c, "half", h_now_ms() + 5000 * H_SLOW), "%s: the client is gone", who(s));
}

static void test_half_request(void)
{
    on_each(half_request);
}

/* An idle client's empty query buffer is freed after two seconds. */
static void idle_query_buffer(const struct h_server *s, redisContext *c)
{
    redisContext *idle = h_connect(s);
    if (!idle)
        return;
    EXPECT_OK(idle, "CLIENT", "SETNAME", "idle");
    CHECK(client_field(c, "idle", "qbuf-free") > 0, "%s: a query buffer after a request", who(s));
    int64_t start = h_now_ms(), deadline = start + 10000 * H_SLOW;
    while (client_field(c, "idle", "qbuf-free") != 0 && h_now_ms() < deadline)
        h_sleep_ms(100);
    CHECK(client_field(c, "idle", "qbuf-free") == 0 && client_field(c, "idle", "qbuf") == 0,
          "%s: the idle client's query buffer is freed", who(s));
    CHECK(h_now_ms() - start >= 1500, "%s: not before it was idle (%lld ms)", who(s),
          (long long)(h_now_ms() - start));
    redisFree(idle);
}

static void test_idle_query_buffer(void)
{
    on_each(idle_query_buffer);
}

/* Whether INFO replication lists a replica in state online. */
static int replica_online(redisContext *c)
{
    char line[256];
    return h_info_str(c, "replication", "slave0", line, sizeof(line)) == 0 &&
           strstr(line, "state=online") != NULL;
}

/* A replica that reads nothing while a big value is overwritten: its
 * output grows used_memory past maxmemory, yet no key is evicted, since
 * evicting keys would not shrink it (Redis's freeMemoryGetNotCountedMemory);
 * INFO's mem_not_counted_for_evict shows it. */
static void stalled_replica(const struct h_server *s, redisContext *c)
{
    enum { VALUE = 200 * 1000, WRITES = 60, MARGIN = 2 * 1024 * 1024 };
    h_fill(c, "k", 2000);
    EXPECT_OK(c, "CONFIG", "SET", "repl-diskless-sync-delay", "0");
    int fd = stalled_open(s);
    CHECK(fd >= 0, "%s: a connection for the replica", who(s));
    if (fd < 0)
        return;
    static const char capa[] = "*3\r\n$8\r\nREPLCONF\r\n$4\r\ncapa\r\n$4\r\nrbkv\r\n";
    static const char psync[] = "*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n";
    char ok[5];
    send_all(fd, capa, sizeof(capa) - 1);
    /* Redis refuses a PSYNC while a reply is pending: the +OK is read. */
    CHECK(read(fd, ok, sizeof(ok)) == 5 && !memcmp(ok, "+OK\r\n", 5), "%s: REPLCONF answered",
          who(s));
    send_all(fd, psync, sizeof(psync) - 1);
    int64_t deadline = h_now_ms() + 20000 * H_SLOW;
    while (!replica_online(c) && h_now_ms() < deadline)
        h_sleep_ms(POLL_MS);
    CHECK(replica_online(c), "%s: the replica is online", who(s));

    long long cap = h_info_ll(c, "memory", "used_memory") + MARGIN;
    char capstr[32];
    snprintf(capstr, sizeof(capstr), "%lld", cap);
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "allkeys-random");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", capstr);
    char *v = malloc(VALUE);
    memset(v, 'r', VALUE);
    for (int i = 0; i < WRITES; i++) {
        redisReply *r = h_command(c, 3, (const char *const[]){"SET", "big", v},
                                  (const size_t[]){3, 3, VALUE});
        CHECK(r && r->type == REDIS_REPLY_STATUS, "%s: SET %d", who(s), i);
        freeReplyObject(r);
    }
    free(v);
    long long used = h_info_ll(c, "memory", "used_memory");
    long long not_counted = h_info_ll(c, "memory", "mem_not_counted_for_evict");
    CHECK(used > cap, "%s: the replica's buffer is in used_memory (%lld over %lld)", who(s),
          used, cap);
    CHECK(not_counted >= 2 * MARGIN, "%s: mem_not_counted_for_evict %lld shows it", who(s),
          not_counted);
    CHECK(h_info_ll(c, "stats", "evicted_keys") == 0, "%s: no key evicted (%lld)", who(s),
          h_info_ll(c, "stats", "evicted_keys"));
    CHECK(replica_online(c), "%s: the replica is still there", who(s));
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "0");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory-policy", "noeviction");
    close(fd);
}

static void test_stalled_replica(void)
{
    on_each(stalled_replica);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_pubsub_omem);
    H_RUN(test_normal_limits);
    H_RUN(test_flood_evicts_keys);
    H_RUN(test_client_eviction);
    H_RUN(test_multi_queue);
    H_RUN(test_half_request);
    H_RUN(test_idle_query_buffer);
    H_RUN(test_stalled_replica);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
