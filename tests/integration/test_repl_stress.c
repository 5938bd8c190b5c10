/*
 * test_repl_stress.c - replication under random role switches, run on the
 * server under test and, as integration_repl_stress_on_redis, on
 * redis-server with the same seed and the same expectations.
 *
 * Five servers. Each round draws a new topology: one primary and a random
 * tree of replicas under it, so chains (A <- B <- C) come and go, a replica
 * moves to another parent, the old primary becomes anyone's replica. The
 * switch is made as an operator or Sentinel makes it: REPLICAOF NO ONE on
 * the new primary, then REPLICAOF <parent> on the others, parents first.
 * Meanwhile a client INCRs a counter and RPUSHes to two lists on the primary
 * of the moment: q, which only grows, and now and then b, on which every
 * server has a client in BLPOP (served on the primary, which pops b empty,
 * so the primary's client is blocked when the switch comes; unblocked by
 * the switch, or refused on a replica: all are Redis's answers). No element
 * of b may be popped twice: a server must not pop as a replica what its
 * primary pops.
 *
 * Before each switch every server reaches the primary's offset, so no write
 * is lost and every history continues from the one before: after the first
 * full sync of each replica, every resync must be partial. At the end every
 * server holds the same DEBUG DIGEST, the counter is the number of INCRs
 * made, the offsets are equal, and INFO stats sync_full, summed over the
 * servers, is the first four.
 *
 * SEED=<n> replays a run; RBKV_REPL_STRESS_ROUNDS sets the rounds (the CI
 * run's default is short; bench/repl_stress.sh runs it long).
 *
 * Owns: its servers, their clients and the blocked clients.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NODES 5
#define DEFAULT_ROUNDS 12
#define WRITES_PER_ROUND 40
#define SYNC_MS (60000 * H_SLOW)

struct node {
    struct h_server s;
    redisContext *c;       /* commands and INFO */
    redisContext *blocker; /* always in BLPOP b 0, or its answer unread */
    int in_blpop;          /* its BLPOP is sent, the answer not read */
    int parent;            /* -1: not a replica */
    char port[16];
};

static struct node nodes[NODES];
static uint64_t rng;
static long long incrs; /* INCRs the primaries answered */
/* b's elements are 0, 1, ... in push order; popped[n] counts BLPOPs that
 * answered n, on any server: more than one means a server popped as a
 * replica what its primary popped too (the pop itself leaves no trace in
 * the data once the primary's LPOP reaches it: the list is empty either
 * way). */
static long long b_pushed;
static unsigned char *popped;
static long long popped_cap;
static long long pops, unblocks; /* BLPOPs served, and answered -UNBLOCKED */

static uint64_t next_rand(void)
{
    /* xorshift64*: reproducible from SEED on any libc. */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ULL;
}

static int pick(int n)
{
    return (int)(next_rand() % (uint64_t)n);
}

static int primary; /* the server the client writes to */

static int primary_index(void)
{
    return primary;
}

/* A new topology into parent[]: a random primary, then each other server
 * under one already placed, in a random order (so depth varies). order[]
 * gets the servers parents first. */
static void draw_topology(int *parent, int *order)
{
    int placed = 0;
    for (int i = 0; i < NODES; i++)
        order[i] = i;
    for (int i = NODES - 1; i > 0; i--) {
        int j = pick(i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int k = 0; k < NODES; k++) {
        int i = order[k];
        parent[i] = placed == 0 ? -1 : order[pick(placed)];
        placed++;
    }
}

/* BLPOP b 0 on every server whose blocker answered (or is new): reads what
 * came first, so the blocker is never left with two calls in flight. */
static void keep_blocked(void)
{
    for (int i = 0; i < NODES; i++) {
        redisContext *b = nodes[i].blocker;
        if (!b)
            continue;
        struct pollfd pfd = {.fd = b->fd, .events = POLLIN};
        if (nodes[i].in_blpop && poll(&pfd, 1, 0) == 0)
            continue; /* still blocked */
        if (nodes[i].in_blpop) {
            redisReply *r = h_get_reply(b);
            /* A pop, -UNBLOCKED (its server became a replica: Redis then
             * closes the connection), -READONLY (a replica refuses it):
             * Redis's answers, all accepted. */
            CHECK(r && (r->type == REDIS_REPLY_ARRAY || r->type == REDIS_REPLY_ERROR),
                  "server %d's BLPOP answered %d", i, r ? r->type : -1);
            if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2) {
                long long n = atoll(r->element[1]->str);
                CHECK(n >= 0 && n < popped_cap && ++popped[n] == 1,
                      "server %d's BLPOP popped b's element %lld, which another pop had", i, n);
            }
            int closes = r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "UNBLOCKED", 9);
            unblocks += closes;
            pops += r && r->type == REDIS_REPLY_ARRAY;
            freeReplyObject(r);
            if (closes) {
                redisFree(b);
                b = nodes[i].blocker = h_connect(&nodes[i].s);
                if (!b)
                    continue;
            }
        }
        H_SEND(b, "BLPOP", "b", "0");
        nodes[i].in_blpop = 1;
    }
}

/* The primary's writes: INCR counter, RPUSH q, and every tenth RPUSH b,
 * pipelined. */
static void write_some(int n)
{
    redisContext *p = nodes[primary_index()].c;
    char v[32];
    for (int i = 0; i < n; i++) {
        if (i % 2) {
            snprintf(v, sizeof(v), "%lld", i % 10 == 1 ? b_pushed++ : incrs);
            H_APPEND(p, "RPUSH", i % 10 == 1 ? "b" : "q", v);
        } else {
            H_APPEND(p, "INCR", "counter");
        }
    }
    for (int i = 0; i < n; i++) {
        redisReply *r = h_get_reply(p);
        if (i % 2 == 0 && r && r->type == REDIS_REPLY_INTEGER)
            incrs++;
        CHECK(r && r->type == REDIS_REPLY_INTEGER, "write %d on the primary failed: %s", i,
              r && r->str ? r->str : "(no reply)");
        freeReplyObject(r);
    }
}

/* Whether server i's link is up and its offset is want. */
static int reached(int i, long long want)
{
    char link[16] = "";
    h_info_str(nodes[i].c, "replication", "master_link_status", link, sizeof(link));
    return !strcmp(link, "up") && h_info_ll(nodes[i].c, "replication", "master_repl_offset") == want;
}

/* Waits until server only (every replica when -1) has reached the primary's
 * offset; rearm: BLPOPs answered meanwhile are sent again. */
static int converge_on(int only, int rearm)
{
    int p = primary_index();
    int64_t deadline = h_now_ms() + SYNC_MS;
    long long want = -1;
    int lagging = -1;
    while (h_now_ms() < deadline) {
        want = h_info_ll(nodes[p].c, "replication", "master_repl_offset");
        lagging = -1;
        for (int i = 0; i < NODES && lagging < 0; i++) {
            if (i != p && (only < 0 || i == only) && !reached(i, want))
                lagging = i;
        }
        if (lagging < 0 && want == h_info_ll(nodes[p].c, "replication", "master_repl_offset"))
            return 0;
        if (rearm)
            keep_blocked();
        h_sleep_ms(10);
    }
    CHECK(0, "server %d never reached the primary's offset %lld (at %lld)", lagging, want,
          h_info_ll(nodes[lagging].c, "replication", "master_repl_offset"));
    return -1;
}

static int converge(void)
{
    return converge_on(-1, 1);
}

/* The primary's BLPOP pops b empty and blocks, so the switch demotes a
 * server with a client blocked; then every server catches up. */
static int settle(void)
{
    int64_t deadline = h_now_ms() + SYNC_MS;
    while (h_info_ll(nodes[primary].c, "clients", "blocked_clients") < 1 &&
           h_now_ms() < deadline) {
        keep_blocked();
        h_sleep_ms(5);
    }
    CHECK(h_info_ll(nodes[primary].c, "clients", "blocked_clients") >= 1,
          "the primary's BLPOP did not block");
    return converge();
}

/* Makes the topology parent[] (order: parents first) real, one server at a
 * time (as Sentinel with parallel-syncs 1): each is caught up before the
 * next is moved, or a server that got the new primary's first writes could
 * ask a new parent that does not have them yet, which Redis answers with a
 * full sync. No BLPOP is sent meanwhile: one served on the old primary after
 * the promotion would be a write the new primary never sees (split brain,
 * also resolved with a full sync). Either would make the number of full
 * syncs depend on timing. */
static void switch_to(const int *parent, const int *order)
{
    int p = order[0];
    EXPECT_OK(nodes[p].c, "REPLICAOF", "NO", "ONE");
    nodes[p].parent = -1;
    primary = p;
    write_some(WRITES_PER_ROUND / 4);
    for (int k = 1; k < NODES; k++) {
        int i = order[k];
        redisReply *r = H_CALL(nodes[i].c, "REPLICAOF", "127.0.0.1", nodes[parent[i]].port);
        CHECK(r && r->type == REDIS_REPLY_STATUS && !strncmp(r->str, "OK", 2),
              "REPLICAOF on server %d: %s", i, r && r->str ? r->str : "(no reply)");
        freeReplyObject(r);
        nodes[i].parent = parent[i];
        if (converge_on(i, 0) < 0)
            return;
    }
}

static long long sum_stat(const char *field)
{
    long long n = 0;
    for (int i = 0; i < NODES; i++)
        n += h_info_ll(nodes[i].c, "stats", field);
    return n;
}

static void test_role_switches(void)
{
    const char *env = getenv("RBKV_REPL_STRESS_ROUNDS");
    int rounds = env ? atoi(env) : DEFAULT_ROUNDS;
    rng = h_seed() | 1;
    incrs = 0;
    b_pushed = pops = unblocks = 0;
    /* Every write_some pushes to b at most one in ten of its writes. */
    popped_cap = (long long)(rounds + 2) * (WRITES_PER_ROUND * 2 + WRITES_PER_ROUND / 4) / 10 + 16;
    popped = calloc((size_t)popped_cap, 1);
    primary = 0;
    /* No PING of its own from a primary between a check and a switch, which
     * would put its offset past the one its replicas promote from. */
    const char *const flags[] = {"--repl-diskless-sync-delay", "0", "--repl-ping-replica-period",
                                 "3600", "--enable-debug-command", "yes", NULL};
    for (int i = 0; i < NODES; i++) {
        nodes[i].c = h_open(&nodes[i].s, flags);
        if (!nodes[i].c)
            goto out;
        nodes[i].blocker = h_connect(&nodes[i].s);
        snprintf(nodes[i].port, sizeof(nodes[i].port), "%d", nodes[i].s.port);
        nodes[i].parent = -1;
        nodes[i].in_blpop = 0;
    }
    int parent[NODES], order[NODES];
    draw_topology(parent, order);
    switch_to(parent, order);
    if (converge() < 0)
        goto out;
    /* Each replica's first sync is a full one; none after. */
    long long first_full = sum_stat("sync_full");
    CHECK(first_full == NODES - 1, "first syncs: %lld full, expected %d", first_full, NODES - 1);
    for (int round = 0; round < rounds; round++) {
        keep_blocked();
        write_some(WRITES_PER_ROUND);
        if (settle() < 0)
            goto out;
        char n[32];
        snprintf(n, sizeof(n), "%lld", incrs);
        redisReply *r = H_CALL(nodes[primary_index()].c, "GET", "counter");
        CHECK(r && r->str && !strcmp(r->str, n), "round %d: the primary's counter %s, %s INCRs made",
              round, r && r->str ? r->str : "(nil)", n);
        freeReplyObject(r);
        draw_topology(parent, order);
        printf("  round %d: primary %d, parents", round, order[0]);
        for (int i = 0; i < NODES; i++)
            printf(" %d", parent[i]);
        printf("\n");
        switch_to(parent, order);
        write_some(WRITES_PER_ROUND);
    }
    if (converge() < 0)
        goto out;
    int p = primary_index();
    char want[H_DIGEST_CHARS + 1], got[H_DIGEST_CHARS + 1], n[32];
    h_digest(nodes[p].c, want);
    long long offset = h_info_ll(nodes[p].c, "replication", "master_repl_offset");
    snprintf(n, sizeof(n), "%lld", incrs);
    for (int i = 0; i < NODES; i++) {
        h_digest(nodes[i].c, got);
        CHECK(want[0] && !strcmp(want, got), "server %d's digest %s, the primary's %s", i, got,
              want);
        redisReply *r = H_CALL(nodes[i].c, "GET", "counter");
        CHECK(r && r->str && !strcmp(r->str, n), "server %d's counter %s, %s INCRs made", i,
              r && r->str ? r->str : "(nil)", n);
        freeReplyObject(r);
        long long off = h_info_ll(nodes[i].c, "replication", "master_repl_offset");
        CHECK(off == offset, "server %d's offset %lld, the primary's %lld", i, off, offset);
    }
    long long full = sum_stat("sync_full");
    CHECK(full == NODES - 1, "%lld full syncs in all, expected the first %d only (%lld partial)",
          full, NODES - 1, sum_stat("sync_partial_ok"));
    printf("  %d rounds, %lld INCRs, offset %lld, %lld full syncs, %lld partial; BLPOP: %lld "
           "served, %lld unblocked\n",
           rounds, incrs, offset, full, sum_stat("sync_partial_ok"), pops, unblocks);
out:
    for (int i = NODES - 1; i >= 0; i--) {
        if (nodes[i].blocker)
            redisFree(nodes[i].blocker);
        nodes[i].blocker = NULL;
        if (nodes[i].c)
            h_close(&nodes[i].s, nodes[i].c);
        nodes[i].c = NULL;
    }
    free(popped);
    popped = NULL;
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_role_switches);
    return h_finish();
}
