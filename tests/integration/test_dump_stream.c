/*
 * test_dump_stream.c - streams in DUMP / RESTORE (server/persist/
 * rdb_stream.c) against redis-server 7.0 side by side:
 *  - random streams (fields shared with the node's master entry or not,
 *    IDs with large jumps and sequence numbers that fall between nodes,
 *    XDEL, XTRIM by MAXLEN and MINID, exact and "~", consumer groups made
 *    at 0, $ or an ID, XREADGROUP by several
 *    consumers, XACK, XCLAIM, XGROUP CREATECONSUMER and SETID, XSETID,
 *    (no ENTRIESREAD past the entries added: XINFO's lag of such a group
 *    is computed apart from what is restored),
 *    streams emptied with their groups kept), under several
 *    stream-node-max-entries, are written in redis-server, DUMPed there,
 *    RESTOREd here and compared (XINFO STREAM FULL, XRANGE, XINFO GROUPS,
 *    XPENDING's summary of each group); then the reverse, written here and
 *    RESTOREd on Redis; then an XADD on both continues the same;
 *  - corrupt stream payloads (every byte flipped, every length cut, the
 *    checksum sealed again so the body is read): rbkv answers OK or
 *    "Bad data format" and keeps serving, and a key it took DUMPs and
 *    RESTOREs again; payloads Redis 7.0 refuses under
 *    sanitize-dump-payload yes are refused here too.
 * SEED=<n> replays the random streams.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "harness_dataset.h"
#include "rng.h"

#define MAX_IDS 200
#define GROUPS 3

static struct h_server srv, ref;
static int have_ref; /* ref runs: compare with it */
static uint64_t rng;

static uint64_t next(void)
{
    return rng_next(&rng);
}

/* Runs l on c; the reply is dropped (a random step may be refused). */
static redisReply *run(redisContext *c, struct h_line *l)
{
    return h_command(c, l->argc, l->argv, NULL);
}

static void run_free(redisContext *c, struct h_line *l)
{
    freeReplyObject(run(c, l));
}

/* A random field value: an integer (listpack int encodings), a word, or a
 * long run. */
static void add_value(struct h_line *l)
{
    switch (next() % 4) {
    case 0:
        h_line_add(l, "%lld", (long long)(next() % 100000) - 50000);
        break;
    case 1:
        h_line_add(l, "%llu", (unsigned long long)next());
        break;
    case 2:
        h_line_add(l, "v%llu", (unsigned long long)(next() % 1000));
        break;
    default:
        h_line_add(l, "%060llu", (unsigned long long)(next() % 1000));
        break;
    }
}

/* The IDs added so far, as text. */
struct ids {
    char id[MAX_IDS][48];
    int n;
};

static const char *some_id(const struct ids *ids)
{
    return ids->n ? ids->id[next() % (uint64_t)ids->n] : "0-0";
}

static void random_adds(redisContext *c, const char *key, struct ids *ids)
{
    static const char *const names[] = {"a", "b", "123", "field"};
    struct h_line l;
    uint64_t ms = 1 + next() % 1000000, seq = 0;
    int n = 1 + (int)(next() % 120);
    for (int i = 0; i < n; i++) {
        l.argc = 0;
        h_line_add(&l, "XADD");
        h_line_add(&l, "%s", key);
        if (next() % 10 == 0)
            h_line_add(&l, "MAXLEN"), h_line_add(&l, "~"), h_line_add(&l, "%d", 5 + (int)(next() % 40));
        switch (next() % 6) {
        case 0: /* a jump past 32 bits, the sequence from a number above the last */
            ms += 1 + (next() % 2 ? (1ull << 33) : next() % 1000);
            seq = next() % 5000;
            h_line_add(&l, "%llu-%llu", (unsigned long long)ms, (unsigned long long)seq);
            break;
        case 1:
            ms += next() % 3;
            h_line_add(&l, "%llu-*", (unsigned long long)ms);
            break;
        default:
            h_line_add(&l, "%llu-%llu", (unsigned long long)ms, (unsigned long long)++seq);
            break;
        }
        int shape = (int)(next() % 3);
        int nf = shape == 0 ? 2 : 1 + (int)(next() % 3);
        for (int f = 0; f < nf; f++) {
            h_line_add(&l, "%s", shape == 0 ? names[f] : names[next() % 4]);
            add_value(&l);
        }
        redisReply *r = run(c, &l);
        if (r && r->type == REDIS_REPLY_STRING && ids->n < MAX_IDS) {
            snprintf(ids->id[ids->n++], sizeof(ids->id[0]), "%s", r->str);
            if (sscanf(r->str, "%*u-%llu", (unsigned long long *)&seq) != 1)
                seq = 0;
        }
        freeReplyObject(r);
    }
}

static void random_removals(redisContext *c, const char *key, const struct ids *ids)
{
    struct h_line l;
    for (int i = (int)(next() % 8); i > 0; i--) {
        l.argc = 0;
        h_line_add(&l, "XDEL");
        h_line_add(&l, "%s", key);
        h_line_add(&l, "%s", some_id(ids));
        run_free(c, &l);
    }
    if (next() % 3 == 0) {
        l.argc = 0;
        h_line_add(&l, "XTRIM");
        h_line_add(&l, "%s", key);
        int minid = next() % 2;
        h_line_add(&l, minid ? "MINID" : "MAXLEN");
        h_line_add(&l, next() % 2 ? "~" : "=");
        if (minid)
            h_line_add(&l, "%s", some_id(ids));
        else
            h_line_add(&l, "%d", next() % 8 == 0 ? 0 : (int)(next() % 60));
        run_free(c, &l);
    }
}

/* Starts l as "verb [sub] key [g<g>]" (g < 0: no group). */
static void begin(struct h_line *l, const char *verb, const char *sub, const char *key, int g)
{
    l->argc = 0;
    h_line_add(l, "%s", verb);
    if (sub)
        h_line_add(l, "%s", sub);
    h_line_add(l, "%s", key);
    if (g >= 0)
        h_line_add(l, "g%d", g);
}

static void random_groups(redisContext *c, const char *key, const struct ids *ids)
{
    struct h_line l;
    int ng = (int)(next() % (GROUPS + 1));
    for (int g = 0; g < ng; g++) {
        begin(&l, "XGROUP", "CREATE", key, g);
        int at = (int)(next() % 3);
        h_line_add(&l, "%s", at == 0 ? "0" : at == 1 ? "$" : some_id(ids));
        run_free(c, &l);
        for (int i = (int)(next() % 6); i > 0; i--) {
            char group[8];
            snprintf(group, sizeof(group), "g%d", g);
            begin(&l, "XREADGROUP", "GROUP", group, -1);
            h_line_add(&l, "c%d", (int)(next() % 3));
            h_line_add(&l, "COUNT");
            h_line_add(&l, "%d", 1 + (int)(next() % 10));
            h_line_add(&l, "STREAMS");
            h_line_add(&l, "%s", key);
            h_line_add(&l, ">");
            run_free(c, &l);
        }
        switch (next() % 5) {
        case 0:
            begin(&l, "XACK", NULL, key, g);
            for (int i = 0; i < 4; i++)
                h_line_add(&l, "%s", some_id(ids));
            break;
        case 1:
            begin(&l, "XCLAIM", NULL, key, g);
            h_line_add(&l, "other");
            h_line_add(&l, "0");
            h_line_add(&l, "%s", some_id(ids));
            h_line_add(&l, "%s", some_id(ids));
            h_line_add(&l, "RETRYCOUNT");
            h_line_add(&l, "%d", (int)(next() % 9));
            break;
        case 2:
            begin(&l, "XGROUP", "CREATECONSUMER", key, g);
            h_line_add(&l, "idle");
            break;
        case 3:
            begin(&l, "XGROUP", "SETID", key, g);
            h_line_add(&l, "%s", some_id(ids));
            break;
        default:
            continue;
        }
        run_free(c, &l);
    }
}

/* A random stream at key on c. */
static void random_stream(redisContext *c, const char *key)
{
    struct ids ids = {.n = 0};
    random_adds(c, key, &ids);
    if (next() % 2)
        random_removals(c, key, &ids);
    random_groups(c, key, &ids);
    if (next() % 2)
        random_removals(c, key, &ids);
    if (next() % 6 == 0) {
        struct h_line l;
        begin(&l, "XSETID", NULL, key, -1);
        h_line_add(&l, "99999999999999-5");
        if (next() % 2)
            h_line_add(&l, "ENTRIESADDED"), h_line_add(&l, "1000000"), h_line_add(&l, "MAXDELETEDID"),
                h_line_add(&l, "%s", some_id(&ids));
        run_free(c, &l);
    }
}

/* Compares key on a and b: entries, counters, groups, PELs, consumers. */
static int same_stream(redisContext *a, redisContext *b, const char *key)
{
    int ok = H_SAME_STREAM_FULL(a, b, key, 0);
    ok &= H_SAME(a, b, "XRANGE", key, "-", "+");
    ok &= H_SAME(a, b, "XINFO", "GROUPS", key);
    for (int g = 0; g < GROUPS; g++) {
        char name[8];
        snprintf(name, sizeof(name), "g%d", g);
        ok &= H_SAME(a, b, "XPENDING", key, name);
    }
    return ok;
}

static void test_random_both_ways(void)
{
    redisContext *r, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    if (!c || !r)
        goto out;
    rng = h_seed();
    int rounds = 60 / H_SLOW + 4;
    for (int i = 0; i < rounds; i++) {
        static const char *const node_entries[] = {"3", "10", "100"};
        const char *ne = node_entries[next() % 3];
        EXPECT_OK(c, "CONFIG", "SET", "stream-node-max-entries", ne);
        EXPECT_OK(r, "CONFIG", "SET", "stream-node-max-entries", ne);
        char key[32];
        snprintf(key, sizeof(key), "r%d", i);
        random_stream(r, key);
        if (h_move_key(r, c, key, "0") && !same_stream(r, c, key))
            printf("  (Redis -> rbkv, round %d, stream-node-max-entries %s)\n", i, ne);
        /* Both go on alike from what was restored. */
        H_SAME(c, r, "XADD", key, "MAXLEN", "~", "20", "99999999999999-*", "a", "1");
        H_SAME_STREAM_FULL(c, r, key, 0);

        snprintf(key, sizeof(key), "s%d", i);
        random_stream(c, key);
        if (h_move_key(c, r, key, "0") && !same_stream(c, r, key))
            printf("  (rbkv -> Redis, round %d, stream-node-max-entries %s)\n", i, ne);
    }
out:
    h_close_pair(c, r);
}

/* ---- corrupt payloads ---- */

/* payload[0, n) with its checksum sealed again (its version kept). */
static void reseal(unsigned char *p, size_t n)
{
    uint64_t crc = h_crc64(p, n - 8);
    for (int i = 0; i < 8; i++)
        p[n - 8 + i] = (unsigned char)(crc >> (8 * i));
}

/* RESTOREs p[0, n) (its value cut to body bytes, trailer re-added) at k
 * on c: OK or Bad data format, never a lost connection; a key taken goes
 * through DUMP and RESTORE again. */
static void restore_corrupt(redisContext *c, const unsigned char *p, size_t n, const char *what,
                            size_t at)
{
    const char *argv[] = {"RESTORE", "k", "0", (const char *)p, "REPLACE"};
    size_t lens[] = {7, 1, 1, n, 7};
    redisReply *rep = h_command(c, 5, argv, lens);
    int ok = rep && ((rep->type == REDIS_REPLY_STATUS && !strcmp(rep->str, "OK")) ||
                     (rep->type == REDIS_REPLY_ERROR && !strcmp(rep->str, "ERR Bad data format")));
    CHECK(ok, "RESTORE of a payload %s at %zu: %s", what, at,
          rep && rep->str ? rep->str : "(no reply)");
    if (ok && rep->type == REDIS_REPLY_STATUS) {
        redisReply *d = H_CALL(c, "DUMP", "k");
        if (CHECK(d && d->type == REDIS_REPLY_STRING, "DUMP after a corrupt RESTORE")) {
            const char *again[] = {"RESTORE", "k2", "0", d->str, "REPLACE"};
            size_t alens[] = {7, 2, 1, d->len, 7};
            redisReply *a = h_command(c, 5, again, alens);
            CHECK(a && a->type == REDIS_REPLY_STATUS, "RESTORE of rbkv's own DUMP (%s at %zu)",
                  what, at);
            freeReplyObject(a);
        }
        freeReplyObject(d);
    }
    freeReplyObject(rep);
}

static void test_corrupt(void)
{
    redisContext *r, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    redisContext *src = r ? r : c;
    redisReply *d = NULL;
    if (!c)
        goto out;
    /* Two nodes, a deletion, a group with two consumers and pending entries. */
    EXPECT_OK(src, "CONFIG", "SET", "stream-node-max-entries", "3");
    /* Redis compresses a DUMP's listpacks with LZF: raw ones here, so the
     * test below finds the count it changes. */
    if (r)
        EXPECT_OK(r, "CONFIG", "SET", "rdbcompression", "no");
    for (int i = 1; i <= 7; i++) {
        char id[16];
        snprintf(id, sizeof(id), "%d-1", i);
        freeReplyObject(H_CALL(src, "XADD", "st", id, "f", i % 2 ? "v" : "123", "g", "w"));
    }
    freeReplyObject(H_CALL(src, "XADD", "st", "8-1", "other", "x"));
    freeReplyObject(H_CALL(src, "XDEL", "st", "2-1"));
    freeReplyObject(H_CALL(src, "XGROUP", "CREATE", "st", "grp", "0"));
    freeReplyObject(H_CALL(src, "XREADGROUP", "GROUP", "grp", "alice", "COUNT", "2", "STREAMS",
                           "st", ">"));
    freeReplyObject(H_CALL(src, "XREADGROUP", "GROUP", "grp", "bob", "COUNT", "2", "STREAMS", "st",
                           ">"));
    d = H_CALL(src, "DUMP", "st");
    if (!CHECK(d && d->type == REDIS_REPLY_STRING && d->len > 10, "DUMP st"))
        goto out;
    size_t n = d->len;
    unsigned char *p = malloc(n);
    for (size_t at = 0; at < n - 10; at++) {
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(p, d->str, n);
            p[at] ^= (unsigned char)(1u << bit);
            reseal(p, n);
            restore_corrupt(c, p, n, "with a flipped bit", at);
        }
    }
    /* Cut short: the value ends early, the trailer follows it. */
    for (size_t body = 1; body < n - 10; body++) {
        memcpy(p, d->str, body);
        memcpy(p + body, d->str + n - 10, 10);
        reseal(p, body + 10);
        restore_corrupt(c, p, body + 10, "cut", body);
    }
    free(p);
    EXPECT_STATUS(c, "PONG", "PING");
    /* Redis refuses under deep sanitization what rbkv refuses always: a
     * listpack's count of live entries past its entries (the first
     * listpack's first element: 2 live, 1 deleted; made 9 here). */
    if (r) {
        H_SAME(c, r, "CONFIG", "SET", "sanitize-dump-payload", "yes");
        p = malloc(n);
        memcpy(p, d->str, n);
        /* The type, the listpack count, the 16-byte key with its length
         * byte, the listpack's string length (1 or 2 bytes), its 6-byte
         * header: the count. */
        size_t len_at = 1 + 1 + 17;
        size_t count_at = len_at + (p[len_at] >> 6 == 0 ? 1 : 2) + 6;
        CHECK(p[count_at] == 2, "the first listpack's count is at %zu (%u)", count_at,
              p[count_at]);
        p[count_at] = 9; /* more entries than the listpack holds */
        reseal(p, n);
        const char *argv[] = {"RESTORE", "bad", "0", (const char *)p};
        size_t lens[] = {7, 3, 1, n};
        h_same(__FILE__, __LINE__, c, r, 4, argv, lens);
        free(p);
    }
out:
    freeReplyObject(d);
    h_close_pair(c, r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    int rc = h_is_reference() ? 1 : h_start_reference(&ref, NULL);
    have_ref = rc == 0;
    if (rc > 0 && !h_is_reference())
        printf("  comparisons skipped: no redis-server to compare with\n");
    H_RUN(test_random_both_ways);
    H_RUN(test_corrupt);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
