/*
 * test_collrange.c - end-to-end tests of the ordered commands over hash
 * fields and set members (server/commands/cmd_collrange.c): HRANGE,
 * HRANGEBYLEX, HPREFIX, HCOUNT, HRANK, HDELRANGE, SRANGE, SCOUNT, SRANK, and
 * HSCAN/SSCAN's ordered cursor, and big maps freed on the lazy-free thread (core/lazyfree.c).
 *
 * One server for the whole file; each test FLUSHALLs first. The random part
 * is differential: a hash, a set and a sorted set whose members all score 0
 * hold the same names, so HRANGE/SRANGE must answer exactly what ZRANGE
 * answers with the same arguments (its rank and BYLEX grammar is the one
 * they share), HCOUNT/SCOUNT what ZLEXCOUNT does, HRANK/SRANK what ZRANK
 * does, and HDELRANGE must remove what ZREMRANGEBYLEX removes. ZRANGE is
 * itself compared with Redis in test_zset.c. Small packed thresholds make the
 * maps convert back and forth between encodings while it runs.
 * SEED=<n> replays the random part.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

#define RANDOM_OPS (4000 / H_SLOW)

static struct h_server srv;

static void test_empty_and_errors(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_REPLY(c, "[]", "HRANGE", "h", "0", "-1");
    EXPECT_REPLY(c, "[]", "HRANGE", "h", "-", "+", "BYLEX", "LIMIT", "0", "10", "WITHVALUES");
    EXPECT_REPLY(c, "[]", "HRANGEBYLEX", "h", "-", "+");
    EXPECT_REPLY(c, "[]", "HPREFIX", "h", "a");
    EXPECT_INT(c, 0, "HCOUNT", "h", "-", "+");
    EXPECT_INT(c, 0, "HCOUNT", "h", "PREFIX", "a");
    EXPECT_NIL(c, "HRANK", "h", "a");
    EXPECT_INT(c, 0, "HDELRANGE", "h", "-", "+");
    EXPECT_REPLY(c, "[]", "SRANGE", "s", "0", "-1");
    EXPECT_INT(c, 0, "SCOUNT", "s", "-", "+");
    EXPECT_NIL(c, "SRANK", "s", "a");
    EXPECT_INT(c, 0, "EXISTS", "h", "s");

    EXPECT_OK(c, "SET", "str", "v");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "HRANGE",
               "str", "0", "-1");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "SCOUNT",
               "str", "-", "+");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "HDELRANGE",
               "str", "-", "+");
    EXPECT_ERR(c, "ERR syntax error, LIMIT is only supported in combination with BYLEX", "HRANGE",
               "h", "0", "1", "LIMIT", "0", "1");
    EXPECT_ERR(c, "ERR syntax error", "SRANGE", "s", "0", "1", "WITHVALUES");
    EXPECT_ERR(c, "ERR syntax error", "HRANGE", "h", "0", "1", "LIMIT", "0");
    EXPECT_ERR(c, "ERR min or max not valid string range item", "HRANGE", "h", "a", "b",
               "BYLEX");
    EXPECT_ERR(c, "ERR min or max not valid string range item", "HCOUNT", "h", "a", "+");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "HRANGE", "h", "a", "1");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'hrank' command", "HRANK", "h");
    redisFree(c);
}

static void test_hash_ranges(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 5, "HSET", "h", "b", "2", "a", "1", "d", "4", "c", "3", "ab", "12");
    EXPECT_REPLY(c, "['a', 'ab', 'b', 'c', 'd']", "HRANGE", "h", "0", "-1");
    EXPECT_REPLY(c, "['d', 'c']", "HRANGE", "h", "0", "1", "REV");
    EXPECT_REPLY(c, "['a', '1', 'ab', '12']", "HRANGE", "h", "[a", "(b", "BYLEX", "WITHVALUES");
    EXPECT_REPLY(c, "['c', 'b']", "HRANGE", "h", "[c", "(ab", "BYLEX", "REV");
    EXPECT_REPLY(c, "['b', 'c']", "HRANGE", "h", "-", "+", "BYLEX", "LIMIT", "2", "2");
    EXPECT_REPLY(c, "[]", "HRANGE", "h", "-", "+", "BYLEX", "LIMIT", "-1", "2");
    EXPECT_REPLY(c, "['ab', 'b', 'c', 'd']", "HRANGE", "h", "-", "+", "BYLEX", "LIMIT", "1", "-1");
    EXPECT_REPLY(c, "['b', '2', 'c', '3']", "HRANGEBYLEX", "h", "(ab", "[c");
    EXPECT_REPLY(c, "['c', '3']", "HRANGEBYLEX", "h", "[c", "(ab", "REV", "LIMIT", "0", "1");
    EXPECT_REPLY(c, "['a', 'ab']", "HPREFIX", "h", "a");
    EXPECT_REPLY(c, "['ab', '12']", "HPREFIX", "h", "a", "REV", "LIMIT", "0", "1", "WITHVALUES");
    EXPECT_INT(c, 3, "HCOUNT", "h", "(a", "[c");
    EXPECT_INT(c, 2, "HCOUNT", "h", "PREFIX", "a");
    EXPECT_INT(c, 0, "HRANK", "h", "a");
    EXPECT_INT(c, 4, "HRANK", "h", "d");
    EXPECT_NIL(c, "HRANK", "h", "e");
    EXPECT_INT(c, 2, "HDELRANGE", "h", "PREFIX", "a");
    EXPECT_REPLY(c, "['b', 'c', 'd']", "HKEYS", "h");
    EXPECT_INT(c, 3, "HDELRANGE", "h", "-", "+");
    EXPECT_INT(c, 0, "EXISTS", "h");
    redisFree(c);
}

static void test_set_ranges_and_resp3(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 4, "SADD", "s", "10", "9", "100", "-1");
    /* Byte order, not numeric: "-1" < "10" < "100" < "9". */
    EXPECT_REPLY(c, "['-1', '10', '100', '9']", "SRANGE", "s", "0", "-1");
    EXPECT_REPLY(c, "['9', '100']", "SRANGE", "s", "0", "1", "REV");
    EXPECT_REPLY(c, "['10', '100']", "SRANGE", "s", "[1", "(9", "BYLEX");
    EXPECT_INT(c, 2, "SCOUNT", "s", "PREFIX", "10");
    EXPECT_INT(c, 3, "SRANK", "s", "9");
    EXPECT_INT(c, 2, "HSET", "h", "a", "1", "b", "2");
    redisFree(c);

    /* RESP3: WITHVALUES as pairs, as WITHSCORES is. */
    struct h_raw r;
    if (h_raw_open(&r, &srv) < 0)
        return;
    const char hello[] = "*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n";
    h_raw_send(&r, hello, sizeof(hello) - 1);
    size_t len;
    if (h_raw_read_reply(&r, &len, 5000) == 0)
        h_raw_consume(&r, len);
    const char req[] = "*5\r\n$6\r\nHRANGE\r\n$1\r\nh\r\n$1\r\n0\r\n$2\r\n-1\r\n$10\r\nWITHVALUES\r\n";
    h_raw_send(&r, req, sizeof(req) - 1);
    const char want[] = "*2\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n";
    h_raw_expect(__FILE__, __LINE__, &r, want, sizeof(want) - 1, 5000);
    h_raw_close(&r);
}

/* HSCAN walks in order with an integer cursor and returns each field present
 * throughout exactly once while others come and go. */
static void test_scan_while_changing(void)
{
    redisContext *c = h_connect_flushed(&srv);
    char f[32];
    enum { N = 3000 };
    static unsigned char seen[N];

    memset(seen, 0, sizeof(seen));
    for (int i = 0; i < N; i += 2) {
        snprintf(f, sizeof(f), "f:%05d", i);
        freeReplyObject(H_CALL(c, "HSET", "h", f, "v"));
    }
    char cursor[32] = "0";
    char last[32] = "";
    int calls = 0, ok = 1;
    do {
        redisReply *r = H_CALL(c, "HSCAN", "h", cursor, "COUNT", "50");
        if (!CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2, "HSCAN reply")) {
            freeReplyObject(r);
            break;
        }
        snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
        const redisReply *items = r->element[1];
        for (size_t i = 0; i < items->elements; i += 2) {
            const char *name = items->element[i]->str;
            int k = atoi(name + 2);
            ok &= strcmp(name, last) > 0;
            snprintf(last, sizeof(last), "%s", name);
            if (k % 2 == 0)
                ok &= !seen[k]++;
        }
        freeReplyObject(r);
        /* Meanwhile: an odd field in, an even one far ahead out and back. */
        snprintf(f, sizeof(f), "f:%05d", (calls * 37) % N | 1);
        freeReplyObject(H_CALL(c, "HSET", "h", f, "w"));
        snprintf(f, sizeof(f), "f:%05d", (calls * 53) % N | 1);
        freeReplyObject(H_CALL(c, "HDEL", "h", f));
        calls++;
    } while (strcmp(cursor, "0") != 0 && calls < 10 * N);
    CHECK(ok, "HSCAN returned fields out of order or twice");
    for (int k = 0; k < N; k += 2)
        ok &= seen[k] == 1;
    CHECK(ok, "HSCAN missed a field present throughout");
    CHECK(calls > 20, "HSCAN took %d calls", calls);
    EXPECT_ERR(c, "ERR invalid cursor", "HSCAN", "h", "x1");
    redisFree(c);
}

/* DEL (at once) and UNLINK (on core/lazyfree.c's thread) of a big set or
 * hash: the key is gone at once, the server answers, and the memory comes
 * back. */
static void test_big_delete(void)
{
    redisContext *c = h_connect_flushed(&srv);
    enum { N = 200000, BATCH = 1000 };
    char buf[BATCH][16];
    const char *argv[2 * BATCH + 2];
    long long base = h_info_ll(c, "memory", "used_memory");

    for (int k = 0; k < 2; k++) { /* a set, then a hash */
        for (int i = 0; i < N; i += BATCH) {
            int argc = 0;
            argv[argc++] = k ? "HSET" : "SADD";
            argv[argc++] = "big";
            for (int j = 0; j < BATCH; j++) {
                snprintf(buf[j], sizeof(buf[j]), "m:%09d", i + j);
                argv[argc++] = buf[j];
                if (k)
                    argv[argc++] = buf[j];
            }
            freeReplyObject(h_command(c, argc, argv, NULL));
        }
        EXPECT_INT(c, N, k ? "HLEN" : "SCARD", "big");
        long long full = h_info_ll(c, "memory", "used_memory");
        CHECK(full > base + N * 10, "used_memory %lld after %d elements (from %lld)", full, N, base);
        EXPECT_INT(c, 1, k ? "UNLINK" : "DEL", "big");
        EXPECT_INT(c, 0, "EXISTS", "big");
        EXPECT_STATUS(c, "PONG", "PING");
        CHECK(h_wait_info(c, "memory", "lazyfree_pending_objects", "0", 10000 * H_SLOW),
              "the big value was never freed");
        long long after = h_info_ll(c, "memory", "used_memory");
        CHECK(after < base + (full - base) / 10, "used_memory %lld after freeing (full %lld, base %lld)",
              after, full, base);
    }
    redisFree(c);
}

/* ---- the differential part ---------------------------------------------- */

static uint64_t rng;

static uint64_t next_rand(void)
{
    rng += UINT64_C(0x9e3779b97f4a7c15);
    uint64_t z = rng;
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void random_name(char *buf)
{
    size_t len = 1 + next_rand() % 3;
    for (size_t i = 0; i < len; i++)
        buf[i] = "abc"[next_rand() % 3];
    buf[len] = '\0';
}

static void random_bound(char *buf)
{
    switch (next_rand() % 6) {
    case 0:
        strcpy(buf, "-");
        return;
    case 1:
        strcpy(buf, "+");
        return;
    default:
        buf[0] = next_rand() % 2 ? '[' : '(';
        random_name(buf + 1);
    }
}

/* Sends the same query to a (hash or set) and to the sorted set z, and
 * checks the replies' text forms are equal. */
static int same_reply(redisContext *c, int argc, const char **argv, const char *zcmd)
{
    char a[8192], b[8192];
    redisReply *r1 = h_command(c, argc, argv, NULL);
    const char *key = argv[1];
    const char *cmd = argv[0];
    argv[0] = zcmd;
    argv[1] = "z";
    redisReply *r2 = h_command(c, argc, argv, NULL);
    argv[0] = cmd;
    argv[1] = key;
    h_repr(r1, a, sizeof(a));
    h_repr(r2, b, sizeof(b));
    int ok = CHECK(strcmp(a, b) == 0, "%s %s ...: %s, but %s on the sorted set: %s", cmd, key, a,
                   zcmd, b);
    freeReplyObject(r1);
    freeReplyObject(r2);
    return ok;
}

static void test_random(void)
{
    redisContext *c = h_connect_flushed(&srv);
    uint64_t seed = getenv("SEED") ? strtoull(getenv("SEED"), NULL, 10) : (uint64_t)time(NULL);
    printf("SEED=%" PRIu64 "\n", seed);
    rng = seed;
    EXPECT_OK(c, "CONFIG", "SET", "hash-max-listpack-entries", "6");
    EXPECT_OK(c, "CONFIG", "SET", "set-max-listpack-entries", "6");

    for (int op = 0; op < RANDOM_OPS; op++) {
        char n[8], lo[8], hi[8], o1[24], o2[24];
        const char *argv[12];
        int argc = 0, ok = 1;
        random_name(n);
        switch (next_rand() % 9) {
        case 0:
        case 1:
            freeReplyObject(H_CALL(c, "HSET", "h", n, n));
            freeReplyObject(H_CALL(c, "SADD", "s", n));
            freeReplyObject(H_CALL(c, "ZADD", "z", "0", n));
            break;
        case 2:
            freeReplyObject(H_CALL(c, "HDEL", "h", n));
            freeReplyObject(H_CALL(c, "SREM", "s", n));
            freeReplyObject(H_CALL(c, "ZREM", "z", n));
            break;
        case 3: { /* ranks, maybe REV */
            snprintf(o1, sizeof(o1), "%d", (int)(next_rand() % 30) - 15);
            snprintf(o2, sizeof(o2), "%d", (int)(next_rand() % 30) - 15);
            const char *q[] = {"HRANGE", "h", o1, o2, "REV"};
            argc = next_rand() % 2 ? 5 : 4;
            memcpy(argv, q, sizeof(q));
            ok &= same_reply(c, argc, argv, "ZRANGE");
            argv[0] = "SRANGE";
            argv[1] = "s";
            ok &= same_reply(c, argc, argv, "ZRANGE");
            break;
        }
        case 4:
        case 5: { /* BYLEX, maybe REV, maybe LIMIT */
            random_bound(lo);
            random_bound(hi);
            argv[argc++] = "HRANGE";
            argv[argc++] = "h";
            argv[argc++] = lo;
            argv[argc++] = hi;
            argv[argc++] = "BYLEX";
            if (next_rand() % 2)
                argv[argc++] = "REV";
            if (next_rand() % 2) {
                snprintf(o1, sizeof(o1), "%d", (int)(next_rand() % 8) - 1);
                snprintf(o2, sizeof(o2), "%d", (int)(next_rand() % 8) - 1);
                argv[argc++] = "LIMIT";
                argv[argc++] = o1;
                argv[argc++] = o2;
            }
            ok &= same_reply(c, argc, argv, "ZRANGE");
            argv[0] = "SRANGE";
            argv[1] = "s";
            ok &= same_reply(c, argc, argv, "ZRANGE");
            break;
        }
        case 6: {
            random_bound(lo);
            random_bound(hi);
            const char *q[] = {"HCOUNT", "h", lo, hi};
            memcpy(argv, q, sizeof(q));
            ok &= same_reply(c, 4, argv, "ZLEXCOUNT");
            argv[0] = "SCOUNT";
            argv[1] = "s";
            ok &= same_reply(c, 4, argv, "ZLEXCOUNT");
            break;
        }
        case 7: {
            const char *q[] = {"HRANK", "h", n};
            memcpy(argv, q, sizeof(q));
            ok &= same_reply(c, 3, argv, "ZRANK");
            argv[0] = "SRANK";
            argv[1] = "s";
            ok &= same_reply(c, 3, argv, "ZRANK");
            break;
        }
        default: {
            if (next_rand() % 4)
                break; /* deletes rarely, so the maps stay filled */
            random_bound(lo);
            random_bound(hi);
            const char *q[] = {"HDELRANGE", "h", lo, hi};
            memcpy(argv, q, sizeof(q));
            ok &= same_reply(c, 4, argv, "ZREMRANGEBYLEX");
            /* The set follows: remove the same members with SREM. */
            redisReply *r = H_CALL(c, "ZRANGE", "z", "0", "-1");
            freeReplyObject(H_CALL(c, "DEL", "s"));
            for (size_t i = 0; r && i < r->elements; i++)
                freeReplyObject(H_CALL(c, "SADD", "s", r->element[i]->str));
            freeReplyObject(r);
        }
        }
        if (!ok) {
            printf("SEED=%" PRIu64 " operation %d\n", seed, op);
            break;
        }
    }
    EXPECT_OK(c, "CONFIG", "SET", "hash-max-listpack-entries", "128");
    EXPECT_OK(c, "CONFIG", "SET", "set-max-listpack-entries", "128");
    redisFree(c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_empty_and_errors);
    H_RUN(test_hash_ranges);
    H_RUN(test_set_ranges_and_resp3);
    H_RUN(test_scan_while_changing);
    H_RUN(test_big_delete);
    H_RUN(test_random);
    h_stop(&srv);
    return h_finish();
}
