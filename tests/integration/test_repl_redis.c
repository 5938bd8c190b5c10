/*
 * test_repl_redis.c - replication between rbkv and redis-server 7.0.15, both
 * ways (server/replication/, persist/rdb_file.c):
 *  - `redis-cli --rdb FILE` against rbkv (REPLCONF capa eof, rdb-only 1,
 *    SYNC), with the streamed ($EOF:) and the sized ($<length>) framing: the
 *    file starts redis-server with rbkv's dataset of every type, deadlines,
 *    three databases and a function library; rbkv lets the link go after
 *    the file, as Redis does;
 *  - rbkv as the replica of a redis-server primary under pipelined writes
 *    (deadlines short and long, MULTI, EVAL, a blocking pop, SPOP, several
 *    databases): a sized full sync, the stream, WAIT answered through REPLCONF
 *    GETACK/ACK, +CONTINUE after the link is cut from either side (Redis's
 *    sync_partial_ok), a streamed ($EOF:) full sync, a command rbkv lacks
 *    (SWAPDB) logged as Redis logs it, then REPLICAOF NO ONE: the dataset
 *    is Redis's and rbkv takes writes;
 *  - redis-server as the replica of an rbkv primary: the RDB full sync, then
 *    the same writes and rbkv's own (KDELRANGE, HDELRANGE, more than a batch
 *    of each) as the plain commands Redis applies, +CONTINUE after a cut,
 *    and the datasets compared after Redis's REPLICAOF NO ONE;
 *  - both ways, a stream with consumer groups, pending entries, acks, claims
 *    and deletions, and random streams under every group command
 *    (stream_random), in the full sync and in the command stream, compared
 *    entry by entry, by XINFO GROUPS to the byte (entries-read and lag
 *    too: an XREADGROUP reaches an rbkv replica of redis-server as XCLAIMs
 *    alone, see cmd_xgroup.c) and by XINFO STREAM FULL but for the
 *    consumers' seen-times; the same for an rbkv replica of rbkv.
 * Random writes print SEED=. Without redis-server (or redis-cli) the tests
 * are skipped unless the reference is required.
 *
 * Owns: its servers (each test stops them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "harness_blocking.h"
#include "harness_dataset.h"
#include "rng.h"

#define SYNC_MS (60000 * H_SLOW)
#define DBS 16
#define FAST "--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes"
#define LIBRARY "#!lua name=repllib\nredis.register_function('replf', function() return 'r' end)"
#define EVAL_SCRIPT                                                                              \
    "redis.call('SET', KEYS[1], ARGV[1]); redis.call('INCR', 'counter'); "                      \
    "return redis.call('LPUSH', 'evl', ARGV[1])"

static uint64_t rng;

static unsigned rnd(unsigned n)
{
    return (unsigned)rng_below(&rng, n);
}

/* The words of one command, built up and sent pipelined (h_append). */
struct words {
    const char *argv[2 + 3000];
    char buf[3000][32];
    int argc;
};

static void words_start(struct words *w, const char *cmd, const char *key)
{
    w->argc = 0;
    w->argv[w->argc++] = cmd;
    if (key)
        w->argv[w->argc++] = key;
}

static void words_add(struct words *w, const char *fmt, unsigned a, unsigned b)
{
    char *p = w->buf[w->argc - 2];
    snprintf(p, sizeof(w->buf[0]), fmt, a, b);
    w->argv[w->argc++] = p;
}

/* One collection of n elements under key (per element: a score for a
 * sorted set, a value for a hash); ints: members that are integers. */
static void add_collection(redisContext *c, const char *cmd, const char *key, unsigned n,
                           int ints)
{
    static struct words w;
    words_start(&w, cmd, key);
    for (unsigned i = 0; i < n; i++) {
        if (cmd[0] == 'Z')
            words_add(&w, "%u.%u", rnd(100000), rnd(4));
        words_add(&w, ints ? "%u%03u" : "m%u-%u", i, rnd(1000));
        if (cmd[0] == 'H')
            words_add(&w, "v%u-%u", rnd(1000), i);
    }
    redisReply *r = h_command(c, w.argc, w.argv, NULL);
    CHECK(r && r->type == REDIS_REPLY_INTEGER, "%s %s", cmd, key);
    freeReplyObject(r);
}

/* A dataset of every type and of both sides of each encoding's bounds, with
 * deadlines, in three databases, and a function library. */
static void fill(redisContext *c)
{
    static char big[20000], bin[256];
    memset(big, 'a', sizeof(big) - 1);
    for (size_t i = 0; i < sizeof(bin); i++)
        bin[i] = (char)i;
    EXPECT_OK(c, "SET", "s:raw", "hello world");
    EXPECT_OK(c, "SET", "s:int", "-9000000000");
    EXPECT_OK(c, "SET", "s:big", big);
    freeReplyObject(H_CALL_BIN(c, H_S("SET"), H_S("s:bin"), H_B(bin, sizeof(bin))));
    EXPECT_INT(c, 1, "PFADD", "hll:sparse", "a", "b", "c");
    add_collection(c, "PFADD", "hll:dense", 1100, 0);
    static const char *const types[] = {"RPUSH", "SADD", "HSET", "ZADD"};
    for (int t = 0; t < 4; t++) {
        char key[32];
        for (unsigned size = 3; size <= 700; size *= 15) {
            for (int ints = 0; ints < 2; ints++) {
                snprintf(key, sizeof(key), "%s:%u:%d", types[t], size, ints);
                add_collection(c, types[t], key, size, ints);
            }
        }
    }
    EXPECT_INT(c, 3, "ZADD", "z:inf", "-inf", "lo", "inf", "hi", "0.125", "mid");
    EXPECT_OK(c, "SET", "s:ttl", "v", "PX", "100000000");
    EXPECT_INT(c, 1, "PEXPIRE", "HSET:3:0", "200000000");
    EXPECT_INT(c, 1, "EXPIRE", "ZADD:675:1", "300000");
    EXPECT_OK(c, "SELECT", "2");
    EXPECT_OK(c, "SET", "in2", "two");
    EXPECT_OK(c, "SELECT", "15");
    EXPECT_OK(c, "SET", "in15", "fifteen", "EX", "5000");
    EXPECT_OK(c, "SELECT", "0");
    EXPECT_BULK(c, "repllib", "FUNCTION", "LOAD", LIBRARY);
}

/* The writes a primary must stream so that its replica ends with the same
 * data: deadlines (long ones, and 1 ms ones that run out and come back as
 * DEL), MULTI/EXEC, EVAL, SPOP, INCRBYFLOAT, pops, several databases. One
 * entry is one or more commands split at ';', each split at spaces, with
 * $k a random key, $v a random value, $t a deadline of 1 ms or a long one,
 * $d a database and $lua EVAL_SCRIPT. The last two are rbkv's own. */
static const char *const templates[] = {
    "SET $k $v",
    "SET $k $v PX $t",
    "EXPIRE $k 100000",
    "EXPIRE $k -1",
    "DEL $k",
    "INCRBYFLOAT float 0.5",
    "ZADD z $v $k",
    "RPUSH l $v",
    "LPOP l",
    "SELECT $d",
    "MULTI;SET $k $v;HSET mh $k $v;PEXPIRE $k 1;EXEC",
    "EVAL $lua 1 $k $v",
    "HSET h $k $v",
    "SADD s $k $v",
    "SPOP s 3",
    "ZPOPMIN z",
    "GETEX $k PX 100000000",
    "KDELRANGE [k1 (k2 LIMIT 5",
    "HDELRANGE h [k2 (k3",
};
#define TEMPLATES_RBKV ((unsigned)(sizeof(templates) / sizeof(*templates)))
#define TEMPLATES_BOTH (TEMPLATES_RBKV - 2)

/* Queues one command of a template (text up to end) on p, with its words
 * filled in. */
static void queue_filled(redisContext *p, const char *text, size_t end)
{
    char cmd[200];
    snprintf(cmd, sizeof(cmd), "%.*s", (int)end, text);
    struct h_line l;
    h_split(cmd, &l);
    for (int i = 0; i < l.argc; i++) {
        if (!strcmp(l.argv[i], "$lua"))
            l.argv[i] = EVAL_SCRIPT;
        else if (!strcmp(l.argv[i], "$k"))
            snprintf(l.words[i], H_LINE_CHARS, "k%u", rnd(300));
        else if (!strcmp(l.argv[i], "$v"))
            snprintf(l.words[i], H_LINE_CHARS, "%u", rnd(1000));
        else if (!strcmp(l.argv[i], "$t"))
            snprintf(l.words[i], H_LINE_CHARS, "%s", rnd(2) ? "1" : "100000000");
        else if (!strcmp(l.argv[i], "$d"))
            snprintf(l.words[i], H_LINE_CHARS, "%u", rnd(3));
    }
    h_append(p, l.argc, l.argv, NULL);
}

/* n random writes of the templates (rbkv_only: rbkv's own too), pipelined;
 * their replies are read and dropped (some meet a key of another type). */
static void writes(redisContext *p, int n, int rbkv_only)
{
    int queued = 0;
    for (int i = 0; i < n; i++) {
        const char *t = templates[rnd(rbkv_only ? TEMPLATES_RBKV : TEMPLATES_BOTH)];
        for (const char *semi; (semi = strchr(t, ';')); t = semi + 1, queued++)
            queue_filled(p, t, (size_t)(semi - t));
        queue_filled(p, t, strlen(t));
        queued++;
    }
    for (int i = 0; i < queued; i++)
        freeReplyObject(h_get_reply(p));
    EXPECT_OK(p, "SELECT", "0");
}

/* A client blocked on the primary p, served by a push: the pop reaches the
 * replica as the pop it was. */
static void blocking_pop(const struct h_server *ps, redisContext *p)
{
    redisContext *b = h_connect(ps);
    if (!b)
        return;
    H_BLOCK(b, p, 1, "BLPOP", "bl", "0");
    EXPECT_INT(p, 2, "RPUSH", "bl", "one", "two");
    EXPECT_NEXT(b, "['bl', 'one']");
    redisFree(b);
}

/* The 1 ms deadlines are past, and a lookup on the primary p met each key
 * that had one (Redis 7.0's KEYS removes none), so its DEL is in the
 * stream. */
static void expire_short(redisContext *p)
{
    int64_t until = h_now_ms() + 5;
    while (h_now_ms() < until)
        ;
    for (int db = 0; db < 3; db++) {
        char name[4];
        snprintf(name, sizeof(name), "%d", db);
        EXPECT_OK(p, "SELECT", name);
        for (int i = 0; i < 300; i++) {
            char k[16];
            snprintf(k, sizeof(k), "k%d", i);
            H_APPEND(p, "EXISTS", k);
        }
        for (int i = 0; i < 300; i++)
            freeReplyObject(h_get_reply(p));
    }
    EXPECT_OK(p, "SELECT", "0");
}

/* A stream with two consumer groups written on the primary p under key:
 * entries with known IDs, reads that leave entries pending for three
 * consumers, an ack, a claim, a deletion; before a full sync this goes in
 * the RDB, after it in the command stream (XREADGROUP goes out as XCLAIM
 * and XGROUP SETID, XADD with the ID it made). `from` numbers the IDs, so
 * a second call on the same key appends. */
static void stream_writes(redisContext *p, const char *key, int from)
{
    char id[32], want[40], f[16];
    for (int i = from; i < from + 20; i++) {
        snprintf(id, sizeof(id), "%d-1", i + 1);
        snprintf(want, sizeof(want), "'%s'", id);
        snprintf(f, sizeof(f), "v%d", i);
        EXPECT_REPLY(p, want, "XADD", key, id, "f", f);
    }
    if (!from) {
        EXPECT_OK(p, "XGROUP", "CREATE", key, "g1", "0");
        EXPECT_OK(p, "XGROUP", "CREATE", key, "g2", "$");
    }
    freeReplyObject(H_CALL(p, "XREADGROUP", "GROUP", "g1", "alice", "COUNT", "5", "STREAMS", key,
                           ">"));
    freeReplyObject(H_CALL(p, "XREADGROUP", "GROUP", "g1", "bob", "COUNT", "3", "STREAMS", key,
                           ">"));
    snprintf(id, sizeof(id), "%d-1", from + 1);
    freeReplyObject(H_CALL(p, "XACK", key, "g1", id)); /* pending or not: compared later */
    snprintf(id, sizeof(id), "%d-1", from + 7);
    freeReplyObject(H_CALL(p, "XCLAIM", key, "g1", "carol", "0", id));
    snprintf(id, sizeof(id), "%d-1", from + 12);
    EXPECT_INT(p, 1, "XDEL", key, id);
    snprintf(id, sizeof(id), "%d-2", from + 20);
    snprintf(want, sizeof(want), "'%s'", id);
    EXPECT_REPLY(p, want, "XADD", key, id, "f", "last");
    freeReplyObject(H_CALL(p, "XREADGROUP", "GROUP", "g2", "dave", "STREAMS", key, ">"));
}

/* The stream at key compared on c and r: its entries, XINFO GROUPS to the
 * byte (entries-read and lag too), XINFO STREAM FULL (the PELs with their
 * delivery times and counts, the consumers; not their seen-times) and each
 * group's pending summary. */
static void same_stream(redisContext *c, redisContext *r, const char *key)
{
    H_SAME(c, r, "XLEN", key);
    H_SAME(c, r, "XRANGE", key, "-", "+");
    H_SAME(c, r, "XINFO", "GROUPS", key);
    H_SAME_STREAM_FULL(c, r, key, H_FULL_NO_SEEN);
    H_SAME(c, r, "XPENDING", key, "g1");
    H_SAME(c, r, "XPENDING", key, "g2");
}

/* Random stream writes: XRANDOM_KEYS streams of up to 3 groups and 4
 * consumers, under every command that moves a group's last-delivered ID or
 * entries-read counter or the stream's counters (XREADGROUP new and
 * history, NOACK, XACK, XCLAIM with FORCE, JUSTID, RETRYCOUNT and LASTID,
 * XAUTOCLAIM, XDEL, XTRIM, XGROUP SETID and CREATE with ENTRIESREAD,
 * XSETID, DEL). Entry IDs are <ms>-1 with ms counting up per key in
 * xrandom_ms; a LASTID is <ms>-5, never a claimed ID (an XCLAIM of one ID
 * with LASTID that ID reads as an XREADGROUP delivery: docs/operations.md).
 * The history reads (XREADGROUP ... 0) are for an rbkv primary only: Redis
 * 7.0 sends nothing for them, so its replicas, rbkv's too, keep the
 * delivery counts and times they had (docs/operations.md). */
#define XRANDOM_KEYS 3
static unsigned xrandom_ms[XRANDOM_KEYS];

static void xrandom_one(redisContext *p, int history)
{
    unsigned k = rnd(XRANDOM_KEYS), top = xrandom_ms[k] + 1;
    char key[16], g[8], c[8];
    snprintf(key, sizeof(key), "xr%u", k);
    snprintf(g, sizeof(g), "g%u", rnd(3));
    snprintf(c, sizeof(c), "c%u", rnd(4));
    struct h_line l;
    l.argc = 0;
    switch (rnd(16)) {
    case 0:
    case 1:
    case 2:
        h_line_add(&l, "XADD");
        h_line_add(&l, "%s", key);
        if (!rnd(4)) {
            h_line_add(&l, "MAXLEN");
            h_line_add(&l, "%s", rnd(2) ? "~" : "=");
            h_line_add(&l, "%u", 5 + rnd(40));
        }
        h_line_add(&l, "%u-1", ++xrandom_ms[k]);
        h_line_add(&l, "f");
        h_line_add(&l, "v%u", rnd(100));
        break;
    case 3:
        h_line_add(&l, "XDEL");
        h_line_add(&l, "%s", key);
        h_line_add(&l, "%u-1", rnd(top));
        if (rnd(2))
            h_line_add(&l, "%u-1", rnd(top));
        break;
    case 4:
        h_line_add(&l, "XTRIM");
        h_line_add(&l, "%s", key);
        if (rnd(2)) {
            h_line_add(&l, "MAXLEN");
            h_line_add(&l, "%u", 10 + rnd(40));
        } else {
            h_line_add(&l, "MINID");
            h_line_add(&l, "%u-1", top > 30 ? top - 30 + rnd(10) : 0);
        }
        break;
    case 5:
        h_line_add(&l, "XGROUP");
        h_line_add(&l, "%s", rnd(2) ? "CREATE" : "SETID");
        h_line_add(&l, "%s", key);
        h_line_add(&l, "%s", g);
        if (rnd(3))
            h_line_add(&l, "%s", rnd(2) ? "$" : "0");
        else
            h_line_add(&l, "%u-1", rnd(top));
        if (!rnd(3)) {
            h_line_add(&l, "ENTRIESREAD");
            h_line_add(&l, "%d", (int)rnd(top) - 1);
        }
        if (!strcmp(l.argv[1], "CREATE") && rnd(2))
            h_line_add(&l, "MKSTREAM");
        break;
    case 6:
        h_line_add(&l, "XGROUP");
        h_line_add(&l, "%s", rnd(2) ? "CREATECONSUMER" : "DELCONSUMER");
        h_line_add(&l, "%s", key);
        h_line_add(&l, "%s", g);
        h_line_add(&l, "%s", c);
        break;
    case 7:
    case 8:
    case 9:
        h_line_add(&l, "XREADGROUP");
        h_line_add(&l, "GROUP");
        h_line_add(&l, "%s", g);
        h_line_add(&l, "%s", c);
        h_line_add(&l, "COUNT");
        h_line_add(&l, "%u", 1 + rnd(6));
        if (!rnd(4))
            h_line_add(&l, "NOACK");
        h_line_add(&l, "STREAMS");
        h_line_add(&l, "%s", key);
        h_line_add(&l, "%s", rnd(5) || !history ? ">" : "0");
        break;
    case 10:
        h_line_add(&l, "XACK");
        h_line_add(&l, "%s", key);
        h_line_add(&l, "%s", g);
        for (unsigned i = 1 + rnd(3); i; i--)
            h_line_add(&l, "%u-1", rnd(top));
        break;
    case 11:
    case 12:
        h_line_add(&l, "XCLAIM");
        h_line_add(&l, "%s", key);
        h_line_add(&l, "%s", g);
        h_line_add(&l, "%s", c);
        h_line_add(&l, "0");
        for (unsigned i = 1 + rnd(2); i; i--)
            h_line_add(&l, "%u-1", rnd(top));
        if (rnd(2))
            h_line_add(&l, "FORCE");
        if (rnd(2))
            h_line_add(&l, "JUSTID");
        if (!rnd(3)) {
            h_line_add(&l, "RETRYCOUNT");
            h_line_add(&l, "%u", rnd(3));
        }
        if (rnd(2)) {
            h_line_add(&l, "LASTID");
            h_line_add(&l, "%u-5", rnd(top + 2));
        }
        break;
    case 13:
        h_line_add(&l, "XAUTOCLAIM");
        h_line_add(&l, "%s", key);
        h_line_add(&l, "%s", g);
        h_line_add(&l, "%s", c);
        h_line_add(&l, "0");
        h_line_add(&l, "%u-1", rnd(top));
        h_line_add(&l, "COUNT");
        h_line_add(&l, "%u", 1 + rnd(5));
        if (rnd(2))
            h_line_add(&l, "JUSTID");
        break;
    case 14:
        h_line_add(&l, "XSETID");
        h_line_add(&l, "%s", key);
        h_line_add(&l, "%u-9", xrandom_ms[k]);
        break;
    default:
        h_line_add(&l, "%s", rnd(10) ? "XLEN" : "DEL");
        h_line_add(&l, "%s", key);
        break;
    }
    h_append(p, l.argc, l.argv, NULL);
}

/* n of xrandom_one on p, pipelined; the replies (errors among them: a
 * group not there yet, an ID at or below the top) are dropped. history:
 * p is rbkv, whose history reads reach its replicas. */
static void stream_random(redisContext *p, int n, int history)
{
    for (int i = 0; i < n; i++)
        xrandom_one(p, history);
    for (int i = 0; i < n; i++)
        freeReplyObject(h_get_reply(p));
}

/* Every random stream compared on c and r (stream_random). */
static void same_random_streams(redisContext *c, redisContext *r)
{
    for (unsigned k = 0; k < XRANDOM_KEYS; k++) {
        char key[16];
        snprintf(key, sizeof(key), "xr%u", k);
        H_SAME(c, r, "XINFO", "GROUPS", key);
        H_SAME(c, r, "XRANGE", key, "-", "+");
        redisReply *e = H_CALL(r, "EXISTS", key);
        if (e && e->type == REDIS_REPLY_INTEGER && e->integer)
            H_SAME_STREAM_FULL(c, r, key, H_FULL_NO_SEEN);
        freeReplyObject(e);
    }
}

static int follow(redisContext *replica, const struct h_server *primary)
{
    char port[16];
    snprintf(port, sizeof(port), "%d", primary->port);
    EXPECT_OK(replica, "REPLICAOF", "127.0.0.1", port);
    int up = h_wait_info(replica, "replication", "master_link_status", "up", SYNC_MS);
    return CHECK(up, "the link to port %d did not come up", primary->port) ? 0 : -1;
}

/* Cuts the replica's link (on the replica, or the primary's side), writes
 * meanwhile, and expects +CONTINUE: stats's sync_partial_ok on the primary
 * at partial_ok. */
static void cut_and_continue(redisContext *p, redisContext *r, int on_replica, int rbkv_only,
                             long long partial_ok)
{
    if (on_replica)
        EXPECT_INT(r, 1, "CLIENT", "KILL", "TYPE", "master");
    else
        EXPECT_INT(p, 1, "CLIENT", "KILL", "TYPE", "replica");
    writes(p, 300, rbkv_only);
    CHECK(h_wait_info(r, "replication", "master_link_status", "up", SYNC_MS), "link back up");
    CHECK(h_wait_caught_up(p, r, SYNC_MS), "caught up after the cut");
    CHECK(h_info_ll(p, "stats", "sync_partial_ok") == partial_ok,
          "sync_partial_ok %lld after the cut (on the %s), want %lld",
          h_info_ll(p, "stats", "sync_partial_ok"), on_replica ? "replica" : "primary",
          partial_ok);
}

/* The start both ways between rbkv and redis-server, p the primary on ps
 * and r its replica (rbkv_primary: p is rbkv): p filled, r follows it, the
 * random streams compared after the full sync; more writes, and every
 * stream compared again after the command stream carried them (rbkv's
 * side first in each comparison). Returns 0, or -1 when the link did not
 * come up. */
static int fill_follow_compare(redisContext *p, redisContext *r, const struct h_server *ps,
                               int rbkv_primary)
{
    redisContext *ours = rbkv_primary ? p : r, *theirs = rbkv_primary ? r : p;
    rng = h_seed();
    fill(p);
    writes(p, 2000, rbkv_primary);
    stream_writes(p, "xs", 0);
    memset(xrandom_ms, 0, sizeof(xrandom_ms));
    stream_random(p, 400, rbkv_primary);
    if (follow(r, ps) < 0)
        return -1;
    same_random_streams(ours, theirs);
    writes(p, 2000, rbkv_primary);
    stream_writes(p, "xs", 100);
    stream_writes(p, "xs2", 0);
    stream_random(p, 3000, rbkv_primary);
    CHECK(h_wait_caught_up(p, r, SYNC_MS), "caught up after the streams");
    same_stream(ours, theirs, "xs");
    same_stream(ours, theirs, "xs2");
    same_random_streams(ours, theirs);
    return 0;
}

/* The end of a test of rbkv (s, its client c) with the reference ref (its
 * client rc): both stopped, their dirs removed. */
static void close_with_reference(struct h_server *s, redisContext *c, struct h_server *ref,
                                 redisContext *rc)
{
    if (rc)
        redisFree(rc);
    if (c)
        h_close(s, c);
    h_clean_dir(s);
    h_stop(ref);
    h_clean_dir(ref);
}

/* A peer that said REPLCONF rdb-only 1 gets the file and then rbkv closes
 * its connection, as Redis does (redis-cli --rdb exits by itself). */
static void expect_rdb_only_closed(const struct h_server *s)
{
    struct h_raw raw;
    if (h_raw_open(&raw, s) < 0)
        return;
    RAW_SEND(&raw, "REPLCONF capa eof\r\nREPLCONF rdb-only 1\r\n");
    RAW_EXPECT(&raw, "+OK\r\n");
    RAW_EXPECT(&raw, "+OK\r\n");
    RAW_SEND(&raw, "SYNC\r\n");
    int64_t deadline = h_now_ms() + SYNC_MS;
    int closed;
    while ((closed = h_raw_wait_closed(&raw, H_RAW_TIMEOUT_MS)) != 1 && h_now_ms() < deadline)
        raw.len = 0; /* the file's bytes */
    CHECK(closed == 1, "the rdb-only peer's connection was not closed after the file");
    CHECK(h_file_has(s, "server.log", "RDB transfer completed, rdb only replica"), "its log line");
    h_raw_close(&raw);
}

static int have_redis_cli(void)
{
    if (system("command -v redis-cli >/dev/null 2>&1") == 0)
        return 1;
    CHECK(!h_reference_required(), "no redis-cli on PATH");
    return 0;
}

/* redis-cli --rdb against rbkv, streamed and sized; redis-server starts
 * from the file with rbkv's data. */
static void test_redis_cli_rdb(void)
{
    if (h_is_reference() || !have_redis_cli())
        return;
    static const char *const diskless[] = {"yes", "no"};
    for (int mode = 0; mode < 2; mode++) {
        struct h_server s, ref;
        redisContext *c = h_open(&s, H_FLAGS(FAST, "--repl-diskless-sync", diskless[mode]));
        if (!c)
            return;
        rng = h_seed();
        fill(c);
        writes(c, 500, 0);
        expire_short(c);
        expect_rdb_only_closed(&s);
        int rc = h_start_reference(&ref, H_FLAGS(FAST));
        char path[600], cmd[1200];
        h_path_in(&ref, "dump.rdb", path, sizeof(path));
        snprintf(cmd, sizeof(cmd), "timeout %d redis-cli -p %d --rdb '%s' >'%s/cli.log' 2>&1",
                 60 * H_SLOW, s.port, path, s.dir);
        /* The reference's dir is made again after its stop, for the file. */
        int ran = rc == 0 && h_stop(&ref) == 0 && (mkdir(ref.dir, 0700) == 0 || errno == EEXIST)
                      ? system(cmd)
                      : -1;
        char log[600];
        size_t len;
        h_path_in(&s, "cli.log", log, sizeof(log));
        char *out = rc == 0 ? h_read_file(log, &len) : NULL;
        if (rc == 0 && CHECK(ran == 0, "%s: %s", cmd, out ? out : "")) {
            CHECK(h_file_has(&s, "cli.log", mode ? "SYNC sent to master, writing " :
                             "writing bytes of bulk transfer until EOF marker"), "the framing");
            CHECK(h_wait_info(c, "replication", "connected_slaves", "0", SYNC_MS),
                  "redis-cli's link closed after the file");
            redisContext *r = h_restart(&ref, H_FLAGS(FAST)) == 0 ? h_connect(&ref) : NULL;
            if (r) {
                H_SAME(c, r, "FCALL", "replf", "0");
                H_SAME(c, r, "GET", "s:big");
                H_SAME(c, r, "LRANGE", "RPUSH:675:0", "0", "-1");
                H_SAME(c, r, "ZRANGE", "z:inf", "0", "-1", "WITHSCORES");
                H_SAME(c, r, "PFCOUNT", "hll:dense");
                H_SAME_DATASET(c, r, DBS);
                redisFree(r);
            }
        }
        free(out);
        if (rc == 0) {
            h_stop(&ref);
            h_clean_dir(&ref);
        }
        h_close(&s, c);
        h_clean_dir(&s);
    }
}

/* redis-server primary, rbkv replica: the migration path. */
static void test_redis_primary(void)
{
    if (h_is_reference())
        return;
    struct h_server s, ref;
    int rc = h_start_reference(&ref, H_FLAGS(FAST, "--repl-diskless-sync", "no"));
    if (rc != 0)
        return;
    redisContext *p = h_connect(&ref), *c = h_open(&s, H_FLAGS(FAST));
    if (!p || !c)
        goto out;
    if (fill_follow_compare(p, c, &ref, 0) < 0)
        goto out;
    CHECK(h_file_has(&s, "server.log", "bytes from master to disk"), "a sized full sync");
    blocking_pop(&ref, p);
    EXPECT_INT(p, 1, "WAIT", "1", "60000"); /* REPLCONF GETACK answered */
    cut_and_continue(p, c, 1, 0, 1);
    cut_and_continue(p, c, 0, 0, 2);
    /* A second full sync, streamed: rbkv promoted has a history Redis does
     * not know. */
    EXPECT_OK(p, "CONFIG", "SET", "repl-diskless-sync", "yes");
    EXPECT_OK(c, "REPLICAOF", "NO", "ONE");
    writes(p, 500, 0);
    if (follow(c, &ref) < 0)
        goto out;
    CHECK(h_file_has(&s, "server.log", "receiving streamed RDB from master with EOF to disk"),
          "a streamed full sync");
    CHECK(h_info_ll(p, "stats", "sync_full") == 2, "two full syncs");
    writes(p, 500, 0);
    /* SWAPDB (twice: Redis's data as it was) applies on the replica too. */
    EXPECT_OK(p, "SWAPDB", "1", "2");
    EXPECT_OK(p, "SWAPDB", "1", "2");
    expire_short(p);
    /* A command that fails on the replica (a key written there by hand
     * holds another type) is logged in Redis's words; the key goes again. */
    EXPECT_OK(c, "CONFIG", "SET", "replica-read-only", "no");
    EXPECT_OK(c, "SET", "clash", "here");
    EXPECT_INT(p, 1, "LPUSH", "clash", "there");
    EXPECT_INT(p, 1, "DEL", "clash");
    CHECK(h_wait_caught_up(p, c, SYNC_MS), "caught up");
    EXPECT_OK(c, "CONFIG", "SET", "replica-read-only", "yes");
    CHECK(h_file_has(&s, "server.log",
                     "== CRITICAL == This replica is sending an error to its master: 'WRONGTYPE "
                     "Operation against a key holding the wrong kind of value' after processing "
                     "the command 'lpush'"),
          "the failed command logged");
    /* The migration's last step: rbkv on its own with Redis's data. */
    EXPECT_OK(c, "REPLICAOF", "NO", "ONE");
    H_SAME(c, p, "FCALL", "replf", "0");
    H_SAME(c, p, "LRANGE", "evl", "0", "-1");
    H_SAME_DATASET(c, p, DBS);
    EXPECT_OK(c, "SET", "after", "promotion");
out:
    close_with_reference(&s, c, &ref, p);
}

/* rbkv primary, redis-server replica: the way back. */
static void test_redis_replica(void)
{
    if (h_is_reference())
        return;
    struct h_server s, ref;
    int rc = h_start_reference(&ref, H_FLAGS(FAST));
    if (rc != 0)
        return;
    redisContext *r = h_connect(&ref), *c = h_open(&s, H_FLAGS(FAST));
    if (!r || !c)
        goto out;
    if (fill_follow_compare(c, r, &s, 1) < 0)
        goto out;
    blocking_pop(&s, c);
    /* rbkv's range deletions, past one batch of the DELs and HDELs they
     * go out as. */
    add_collection(c, "HSET", "wide", 1300, 0);
    EXPECT_INT(c, 1300, "HDELRANGE", "wide", "-", "+");
    /* The fields m1... and m2... of about 4,000 (some 1,800): whole chunks
     * cut out of the middle, partial ones trimmed at both ends, the rest
     * left. */
    for (int k = 0; k < 3; k++)
        add_collection(c, "HSET", "wide2", 1400, 0);
    redisReply *n = H_CALL(c, "HCOUNT", "wide2", "[m1", "(m3");
    CHECK(n && n->type == REDIS_REPLY_INTEGER && n->integer > 1500, "HCOUNT wide2");
    if (n) {
        EXPECT_INT(c, n->integer, "HDELRANGE", "wide2", "[m1", "(m3");
        freeReplyObject(n);
    }
    EXPECT_INT(c, 0, "HCOUNT", "wide2", "[m1", "(m3");
    for (int i = 0; i < 1100; i++) {
        char key[16];
        snprintf(key, sizeof(key), "span:%d", i);
        H_APPEND(c, "SET", key, "v");
    }
    for (int i = 0; i < 1100; i++)
        freeReplyObject(h_get_reply(c));
    EXPECT_INT(c, 1100, "KDELRANGE", "PREFIX", "span:");
    EXPECT_INT(c, 1, "WAIT", "1", "60000");
    cut_and_continue(c, r, 0, 1, 1);
    expire_short(c);
    CHECK(h_wait_caught_up(c, r, SYNC_MS), "caught up");
    CHECK(!h_file_has(&ref, "server.log", "CRITICAL"), "Redis applied every command");
    EXPECT_OK(r, "REPLICAOF", "NO", "ONE");
    H_SAME(c, r, "FCALL", "replf", "0");
    H_SAME_DATASET(c, r, DBS);
out:
    close_with_reference(&s, c, &ref, r);
}

/* rbkv primary, rbkv replica: the same random streams, in the snapshot
 * and in the command stream, end the same. */
static void test_rbkv_replica_streams(void)
{
    if (h_is_reference())
        return;
    struct h_server ps = {0}, rs = {0};
    redisContext *p = h_open(&ps, H_FLAGS(FAST)), *r = p ? h_open(&rs, H_FLAGS(FAST)) : NULL;
    if (!p || !r)
        goto out;
    rng = h_seed();
    memset(xrandom_ms, 0, sizeof(xrandom_ms));
    stream_random(p, 400, 1);
    if (follow(r, &ps) < 0)
        goto out;
    same_random_streams(r, p);
    stream_random(p, 3000, 1);
    CHECK(h_wait_caught_up(p, r, SYNC_MS), "caught up after the streams");
    same_random_streams(r, p);
out:
    if (r)
        h_close(&rs, r);
    if (p)
        h_close(&ps, p);
    h_clean_dir(&rs);
    h_clean_dir(&ps);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_redis_cli_rdb);
    H_RUN(test_redis_primary);
    H_RUN(test_redis_replica);
    H_RUN(test_rbkv_replica_streams);
    return h_finish();
}
