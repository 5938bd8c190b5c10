/*
 * test_pubsub.c - end-to-end tests of publish/subscribe: fan-out to many
 * subscribers, patterns, shard channels, RESP2's subscribed mode and RESP3's
 * pushes, unsubscribing from everything, PUBSUB's introspection, RESET, a
 * subscriber that stops reading (closed at its output limit while the
 * publisher goes on), CLIENT KILL TYPE pubsub, and PUBLISH reaching a
 * replica's subscribers. The same binary runs against redis-server for the
 * replies both must give.
 *
 * Owns: its servers and connections.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define FANOUT 100

/* The next message on a subscribed connection, as text. */
static void expect_message(redisContext *c, const char *want)
{
    char buf[512] = "(none)";
    redisReply *r = h_get_reply(c);
    if (r)
        h_repr(r, buf, sizeof(buf));
    CHECK(r && !strcmp(buf, want), "expected %s, got %s", want, buf);
    freeReplyObject(r);
}

static void test_fanout_and_patterns(void)
{
    struct h_server s;
    redisContext *pub = h_open(&s, NULL);
    redisContext *subs[FANOUT] = {0};
    if (!pub)
        return;
    for (int i = 0; i < FANOUT; i++) {
        subs[i] = h_connect(&s);
        if (!subs[i])
            goto out;
        EXPECT_REPLY(subs[i], "['subscribe', 'news', :1]", "SUBSCRIBE", "news");
    }
    EXPECT_REPLY(subs[0], "['psubscribe', 'n*s', :2]", "PSUBSCRIBE", "n*s");
    EXPECT_REPLY(subs[1], "['psubscribe', 'x*', :2]", "PSUBSCRIBE", "x*");
    EXPECT_INT(pub, FANOUT + 1, "PUBLISH", "news", "hello");
    for (int i = 0; i < FANOUT; i++)
        expect_message(subs[i], "['message', 'news', 'hello']");
    expect_message(subs[0], "['pmessage', 'n*s', 'news', 'hello']");
    EXPECT_INT(pub, 1, "PUBLISH", "nos", "x");
    expect_message(subs[0], "['pmessage', 'n*s', 'nos', 'x']");
    EXPECT_INT(pub, 0, "PUBLISH", "other", "x");
    EXPECT_REPLY(pub, "['news']", "PUBSUB", "CHANNELS");
    EXPECT_REPLY(pub, "[]", "PUBSUB", "CHANNELS", "z*");
    char want[64];
    snprintf(want, sizeof(want), "['news', :%d, 'none', :0]", FANOUT);
    EXPECT_REPLY(pub, want, "PUBSUB", "NUMSUB", "news", "none");
    EXPECT_INT(pub, 2, "PUBSUB", "NUMPAT");
    EXPECT_MATCH(pub, "*pubsub_channels:1\\r\\npubsub_patterns:2*", "INFO", "stats");
    /* Only the subscription commands, PING, QUIT and RESET in RESP2 mode. */
    EXPECT_ERR(subs[2],
               "ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / "
               "RESET are allowed in this context",
               "GET", "k");
    EXPECT_REPLY(subs[2], "['pong', '']", "PING");
    EXPECT_REPLY(subs[2], "['pong', 'hi']", "PING", "hi");
    /* UNSUBSCRIBE without channels leaves every one, each with its reply. */
    EXPECT_REPLY(subs[0], "['subscribe', 'b', :3]", "SUBSCRIBE", "b");
    H_APPEND(subs[0], "UNSUBSCRIBE");
    int got = 0;
    for (int i = 0; i < 2; i++) {
        redisReply *r = h_get_reply(subs[0]);
        got += r && r->type == REDIS_REPLY_ARRAY && r->elements == 3 &&
               !strcmp(r->element[0]->str, "unsubscribe");
        freeReplyObject(r);
    }
    CHECK(got == 2, "two unsubscribe replies, got %d", got);
    EXPECT_REPLY(subs[0], "['punsubscribe', 'n*s', :0]", "PUNSUBSCRIBE");
    EXPECT_REPLY(subs[0], "['unsubscribe', (nil), :0]", "UNSUBSCRIBE");
    EXPECT_OK(subs[0], "SET", "k", "v"); /* out of subscribed mode */
    EXPECT_STATUS(subs[1], "RESET", "RESET");
    EXPECT_NIL(subs[1], "GET", "none");
    snprintf(want, sizeof(want), "['news', :%d]", FANOUT - 2);
    EXPECT_REPLY(pub, want, "PUBSUB", "NUMSUB", "news");
    EXPECT_INT(pub, 0, "PUBSUB", "NUMPAT");
out:
    for (int i = 0; i < FANOUT; i++)
        if (subs[i])
            redisFree(subs[i]);
    h_close(&s, pub);
}

static void test_shard_channels(void)
{
    struct h_server s;
    redisContext *pub = h_open(&s, NULL);
    redisContext *sub = pub ? h_connect(&s) : NULL;
    if (!sub)
        goto out;
    EXPECT_REPLY(sub, "['ssubscribe', 's1', :1]", "SSUBSCRIBE", "s1");
    EXPECT_INT(pub, 0, "PUBLISH", "s1", "not for shard subscribers");
    EXPECT_INT(pub, 1, "SPUBLISH", "s1", "m");
    expect_message(sub, "['smessage', 's1', 'm']");
    EXPECT_REPLY(pub, "['s1']", "PUBSUB", "SHARDCHANNELS");
    EXPECT_REPLY(pub, "['s1', :1]", "PUBSUB", "SHARDNUMSUB", "s1");
    EXPECT_REPLY(sub, "['sunsubscribe', 's1', :0]", "SUNSUBSCRIBE", "s1");
out:
    if (sub)
        redisFree(sub);
    if (pub)
        h_close(&s, pub);
}

/* RESP3: confirmations and messages are pushes, and other commands work. */
static void test_resp3(void)
{
    struct h_server s;
    redisContext *pub = h_open(&s, NULL);
    struct h_raw raw;
    if (!pub || h_raw_open(&raw, &s) < 0)
        goto out;
    RAW_SEND(&raw, "HELLO 3\r\n");
    size_t n;
    CHECK(h_raw_read_reply(&raw, &n, H_RAW_TIMEOUT_MS) == 0, "HELLO 3 reply");
    h_raw_consume(&raw, n);
    RAW_SEND(&raw, "SUBSCRIBE c\r\n");
    RAW_EXPECT(&raw, ">3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n");
    RAW_SEND(&raw, "SET k v\r\n");
    RAW_EXPECT(&raw, "+OK\r\n");
    EXPECT_INT(pub, 1, "PUBLISH", "c", "hi");
    RAW_EXPECT(&raw, ">3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$2\r\nhi\r\n");
    RAW_SEND(&raw, "PING\r\n");
    RAW_EXPECT(&raw, "+PONG\r\n");
    h_raw_close(&raw);
out:
    if (pub)
        h_close(&s, pub);
}

/* A subscriber that reads nothing is closed at its limit; the publisher
 * never waits for it, and a subscriber that reads gets everything. */
static void test_slow_subscriber(void)
{
    struct h_server s;
    redisContext *pub = h_open(&s, NULL);
    redisContext *fast = pub ? h_connect(&s) : NULL;
    struct h_raw slow;
    if (!fast || h_raw_open(&slow, &s) < 0)
        goto out;
    EXPECT_OK(pub, "CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 512kb 60");
    RAW_SEND(&slow, "SUBSCRIBE flood\r\n");
    size_t n;
    CHECK(h_raw_read_reply(&slow, &n, H_RAW_TIMEOUT_MS) == 0, "subscribed");
    h_raw_consume(&slow, n);
    EXPECT_REPLY(fast, "['subscribe', 'flood', :1]", "SUBSCRIBE", "flood");
    char *msg = malloc(64 * 1024);
    memset(msg, 'm', 64 * 1024);
    long long delivered = 0;
    for (int i = 0; i < 400; i++) {
        redisReply *r = H_CALL_BIN(pub, H_S("PUBLISH"), H_S("flood"), H_B(msg, 64 * 1024));
        delivered += r && r->type == REDIS_REPLY_INTEGER ? r->integer : 0;
        freeReplyObject(r);
        redisReply *m = h_get_reply(fast);
        CHECK(m && m->type == REDIS_REPLY_ARRAY && m->elements == 3 &&
                  m->element[2]->len == 64 * 1024,
              "message %d to the reading subscriber", i);
        freeReplyObject(m);
    }
    free(msg);
    CHECK(delivered < 800, "the slow subscriber was dropped (%lld deliveries)", delivered);
    if (!h_is_reference()) /* Redis 7.2's field */
        EXPECT_MATCH(pub, "*client_output_buffer_limit_disconnections:1*", "INFO", "stats");
    EXPECT_REPLY(pub, "['flood', :1]", "PUBSUB", "NUMSUB", "flood");
    h_raw_close(&slow);
out:
    if (fast)
        redisFree(fast);
    if (pub)
        h_close(&s, pub);
}

static void test_kill_type_pubsub(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    redisContext *sub = c ? h_connect(&s) : NULL;
    if (!sub)
        goto out;
    EXPECT_REPLY(sub, "['subscribe', 'x', :1]", "SUBSCRIBE", "x");
    EXPECT_MATCH(c, "*flags=P*sub=1 psub=0*", "CLIENT", "LIST", "TYPE", "pubsub");
    EXPECT_INT(c, 1, "CLIENT", "KILL", "TYPE", "pubsub");
    CHECK(h_wait_clients(c, 1, 5000 * H_SLOW), "the subscriber is gone");
    EXPECT_INT(c, 0, "PUBLISH", "x", "m");
out:
    if (sub)
        redisFree(sub);
    if (c)
        h_close(&s, c);
}

/* PUBLISH on a primary reaches a replica's subscribers; a replica accepts
 * PUBLISH from its own clients (Sentinel publishes there). */
static void test_publish_through_replica(void)
{
    if (h_is_reference())
        return; /* rbkv replicas only */
    struct h_server ps, rs;
    redisContext *p = h_open(&ps, H_FLAGS("--repl-diskless-sync-delay", "0"));
    redisContext *r = h_open(&rs, H_FLAGS("--repl-diskless-sync-delay", "0"));
    redisContext *sub = r ? h_connect(&rs) : NULL;
    if (!p || !sub)
        goto out;
    char port[16];
    snprintf(port, sizeof(port), "%d", ps.port);
    EXPECT_OK(r, "REPLICAOF", "127.0.0.1", port);
    CHECK(h_wait_info(r, "replication", "master_link_status", "up", 30000 * H_SLOW), "link up");
    EXPECT_REPLY(sub, "['subscribe', 'c', :1]", "SUBSCRIBE", "c");
    EXPECT_INT(p, 0, "PUBLISH", "c", "from the primary");
    expect_message(sub, "['message', 'c', 'from the primary']");
    EXPECT_INT(r, 1, "PUBLISH", "c", "on the replica");
    expect_message(sub, "['message', 'c', 'on the replica']");
out:
    if (sub)
        redisFree(sub);
    if (r)
        h_close(&rs, r);
    if (p)
        h_close(&ps, p);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_fanout_and_patterns);
    H_RUN(test_shard_channels);
    H_RUN(test_resp3);
    H_RUN(test_slow_subscriber);
    H_RUN(test_kill_type_pubsub);
    H_RUN(test_publish_through_replica);
    return h_finish();
}
