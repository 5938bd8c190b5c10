/*
 * test_ordered.c - end-to-end tests of the ordered keyspace commands KRANGE
 * KPREFIX KCOUNT KRANK KREVRANK KFIRST KLAST KNEXT KPREV KDELRANGE KSPLIT,
 * and of SCAN and KEYS in key order, through hiredis, raw RESP3 and
 * redis-cli.
 *
 * One server for the whole file; each test FLUSHALLs first. Covered: the
 * empty keyspace, bounds that are equal or reversed, offsets past the end,
 * binary keys (NUL, 0xFF) at every boundary, keys past their deadline, every
 * error text, RESP3 pairs, COMMAND's view of the new commands; SCAN's order
 * and exactly-once promise while another client inserts and deletes, its
 * cursor errors, and redis-cli --scan --pattern; and the differential test
 * of tests/unit/ordered_diff.h through the network (SEED=<n> replays it).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "ordered_diff.h"

#define RANDOM_OPS (15000 / H_SLOW)
#define SCAN_UNIVERSE 6000 /* keys k:00000 .. k:05999; the even ones exist at the start */
#define SCAN_MUTATIONS 5   /* inserts or deletes by the other client between two SCAN calls */

static struct h_server srv;

static void set_keys(redisContext *c, const char *const *keys, int n)
{
    for (int i = 0; i < n; i++)
        EXPECT_OK(c, "SET", keys[i], "v");
}

static void test_empty(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_REPLY(c, "[]", "KRANGE", "0", "-1");
    EXPECT_REPLY(c, "[]", "KRANGE", "-", "+", "BYLEX", "LIMIT", "0", "10", "WITHVALUES");
    EXPECT_REPLY(c, "[]", "KRANGE", "+", "-", "BYLEX", "REV");
    EXPECT_REPLY(c, "[]", "KPREFIX", "");
    EXPECT_INT(c, 0, "KCOUNT", "-", "+");
    EXPECT_INT(c, 0, "KCOUNT", "PREFIX", "");
    EXPECT_NIL(c, "KRANK", "a");
    EXPECT_NIL(c, "KREVRANK", "a");
    EXPECT_REPLY(c, "[]", "KFIRST");
    EXPECT_REPLY(c, "[]", "KLAST", "5");
    EXPECT_REPLY(c, "[]", "KNEXT", "a");
    EXPECT_REPLY(c, "[]", "KPREV", "a", "3");
    EXPECT_INT(c, 0, "KDELRANGE", "-", "+");
    EXPECT_REPLY(c, "[]", "KSPLIT", "4");
    EXPECT_REPLY(c, "[]", "KEYS", "*");
    EXPECT_REPLY(c, "['0', []]", "SCAN", "0");
    EXPECT_REPLY(c, "['0', []]", "SCAN", "0", "MATCH", "a*", "COUNT", "1");
    redisFree(c);
}

static void test_ranks_and_bounds(void)
{
    redisContext *c = h_connect_flushed(&srv);
    set_keys(c, (const char *const[]){"e", "c", "a", "d", "b"}, 5);
    EXPECT_REPLY(c, "['a', 'b', 'c', 'd', 'e']", "KRANGE", "0", "-1");
    EXPECT_REPLY(c, "['b', 'c', 'd']", "KRANGE", "1", "3");
    EXPECT_REPLY(c, "['d', 'e']", "KRANGE", "-2", "-1");
    EXPECT_REPLY(c, "['e', 'd']", "KRANGE", "0", "1", "REV");
    EXPECT_REPLY(c, "['a', 'b']", "KRANGE", "-100", "1");
    EXPECT_REPLY(c, "['e']", "KRANGE", "4", "100");
    EXPECT_REPLY(c, "[]", "KRANGE", "5", "100");
    EXPECT_REPLY(c, "[]", "KRANGE", "3", "1");
    EXPECT_REPLY(c, "['a', 'v', 'b', 'v']", "KRANGE", "0", "1", "WITHVALUES");

    EXPECT_REPLY(c, "['b', 'c']", "KRANGE", "[b", "(d", "BYLEX");
    EXPECT_REPLY(c, "['d', 'c']", "KRANGE", "[d", "(b", "BYLEX", "REV");
    EXPECT_REPLY(c, "['c', 'd', 'e']", "KRANGE", "(b", "+", "BYLEX");
    EXPECT_REPLY(c, "['d', 'e']", "KRANGE", "(b", "+", "BYLEX", "LIMIT", "1", "100");
    EXPECT_REPLY(c, "['e', 'd']", "KRANGE", "+", "-", "BYLEX", "REV", "LIMIT", "0", "2");
    EXPECT_REPLY(c, "['a', 'b', 'c', 'd', 'e']", "KRANGE", "-", "+", "BYLEX", "LIMIT", "0", "-1");
    /* Offsets past the end, a negative offset (Redis lists nothing), count 0. */
    EXPECT_REPLY(c, "[]", "KRANGE", "-", "+", "BYLEX", "LIMIT", "5", "10");
    EXPECT_REPLY(c, "[]", "KRANGE", "-", "+", "BYLEX", "LIMIT", "1000000", "10");
    EXPECT_REPLY(c, "[]", "KRANGE", "-", "+", "BYLEX", "LIMIT", "-1", "10");
    EXPECT_REPLY(c, "[]", "KRANGE", "-", "+", "BYLEX", "LIMIT", "0", "0");
    EXPECT_REPLY(c, "['e']", "KRANGE", "-", "+", "BYLEX", "LIMIT", "4", "10");
    /* Bounds that are equal, on a key and between keys, and reversed. */
    EXPECT_INT(c, 1, "KCOUNT", "[c", "[c");
    EXPECT_INT(c, 0, "KCOUNT", "(c", "[c");
    EXPECT_INT(c, 0, "KCOUNT", "[c", "(c");
    EXPECT_INT(c, 0, "KCOUNT", "(c", "(c");
    EXPECT_INT(c, 0, "KCOUNT", "[cc", "[cc");
    EXPECT_INT(c, 0, "KCOUNT", "[d", "[b");
    EXPECT_INT(c, 0, "KCOUNT", "+", "-");
    EXPECT_INT(c, 5, "KCOUNT", "-", "+");
    EXPECT_INT(c, 0, "KCOUNT", "[", "(");
    EXPECT_INT(c, 5, "KCOUNT", "[", "+");
    EXPECT_REPLY(c, "['c']", "KRANGE", "[c", "[c", "BYLEX");
    EXPECT_REPLY(c, "[]", "KRANGE", "[d", "[b", "BYLEX");

    EXPECT_INT(c, 0, "KRANK", "a");
    EXPECT_INT(c, 4, "KREVRANK", "a");
    EXPECT_INT(c, 2, "KRANK", "c");
    EXPECT_NIL(c, "KRANK", "cc");
    EXPECT_REPLY(c, "['a']", "KFIRST");
    EXPECT_REPLY(c, "['a', 'b', 'c']", "KFIRST", "3");
    EXPECT_REPLY(c, "['e', 'd']", "KLAST", "2");
    EXPECT_REPLY(c, "[]", "KFIRST", "0");
    EXPECT_REPLY(c, "['a', 'b', 'c', 'd', 'e']", "KFIRST", "100");
    EXPECT_REPLY(c, "['d']", "KNEXT", "c");
    EXPECT_REPLY(c, "['d', 'e']", "KNEXT", "cc", "5");
    EXPECT_REPLY(c, "['b', 'a']", "KPREV", "c", "5");
    EXPECT_REPLY(c, "[]", "KPREV", "a");
    EXPECT_REPLY(c, "[]", "KNEXT", "e");
    EXPECT_REPLY(c, "['a']", "KNEXT", "");

    /* KSPLIT: positions floor(i*5/n); n > 5 gives every key but the first. */
    EXPECT_REPLY(c, "[]", "KSPLIT", "1");
    EXPECT_REPLY(c, "['c']", "KSPLIT", "2");
    EXPECT_REPLY(c, "['b', 'd']", "KSPLIT", "3", "-", "+");
    EXPECT_REPLY(c, "['b', 'c', 'd', 'e']", "KSPLIT", "100");
    EXPECT_REPLY(c, "['d']", "KSPLIT", "2", "(a", "+");
    EXPECT_REPLY(c, "[]", "KSPLIT", "5", "PREFIX", "c");

    EXPECT_INT(c, 2, "KDELRANGE", "(a", "[e", "LIMIT", "2");
    EXPECT_REPLY(c, "['a', 'd', 'e']", "KRANGE", "0", "-1");
    EXPECT_INT(c, 0, "KDELRANGE", "-", "+", "LIMIT", "0");
    EXPECT_INT(c, 3, "KDELRANGE", "-", "+", "LIMIT", "-1");
    EXPECT_INT(c, 0, "DBSIZE");
    redisFree(c);
}

static void test_prefix_and_keys(void)
{
    redisContext *c = h_connect_flushed(&srv);
    set_keys(c, (const char *const[]){"user:1", "user:2", "user:10", "users", "user", "u", "v"}, 7);
    EXPECT_REPLY(c, "['user', 'user:1', 'user:10', 'user:2', 'users']", "KPREFIX", "user");
    EXPECT_REPLY(c, "['user:1', 'user:10', 'user:2']", "KPREFIX", "user:");
    EXPECT_REPLY(c, "['user:2', 'user:10']", "KPREFIX", "user:", "REV", "LIMIT", "0", "2");
    EXPECT_REPLY(c, "['user:10', 'v']", "KPREFIX", "user:1", "WITHVALUES", "LIMIT", "1", "1");
    EXPECT_INT(c, 3, "KCOUNT", "PREFIX", "user:");
    EXPECT_INT(c, 7, "KCOUNT", "PREFIX", "");
    EXPECT_INT(c, 0, "KCOUNT", "PREFIX", "x");
    EXPECT_REPLY(c, "['user:1', 'user:10', 'user:2']", "KEYS", "user:*");
    EXPECT_REPLY(c, "['user:1', 'user:2']", "KEYS", "user:?");
    EXPECT_REPLY(c, "['user:1', 'user:10']", "KEYS", "*1*");
    EXPECT_REPLY(c, "['user']", "KEYS", "user");
    EXPECT_REPLY(c, "['u', 'user', 'user:1', 'user:10', 'user:2', 'users', 'v']", "KEYS", "*");
    EXPECT_REPLY(c, "['users']", "KEYS", "user[s]");
    EXPECT_REPLY(c, "['0', ['user:1', 'user:10', 'user:2']]", "SCAN", "0", "MATCH", "user:*",
                 "COUNT", "100");
    EXPECT_REPLY(c, "['0', ['user:1', 'user:10', 'user:2']]", "SCAN", "0", "MATCH", "user:*",
                 "TYPE", "string");
    EXPECT_REPLY(c, "['0', []]", "SCAN", "0", "TYPE", "zset");
    EXPECT_INT(c, 3, "KDELRANGE", "PREFIX", "user:");
    EXPECT_INT(c, 1, "KDELRANGE", "PREFIX", "user", "LIMIT", "1");
    EXPECT_REPLY(c, "['u', 'users', 'v']", "KEYS", "*");
    redisFree(c);
}

static void test_errors(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_OK(c, "SET", "a", "1");
    EXPECT_ERR(c, "ERR syntax error, LIMIT is only supported in combination with BYLEX", "KRANGE",
               "0", "1", "LIMIT", "0", "1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "KRANGE", "a", "1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "KRANGE", "0", "1.5");
    EXPECT_ERR(c, "ERR min or max not valid string range item", "KRANGE", "a", "b", "BYLEX");
    EXPECT_ERR(c, "ERR min or max not valid string range item", "KRANGE", "[a", "-x", "BYLEX");
    EXPECT_ERR(c, "ERR min or max not valid string range item", "KRANGE", "[a", "", "BYLEX");
    EXPECT_ERR(c, "ERR syntax error", "KRANGE", "0", "1", "FOO");
    EXPECT_ERR(c, "ERR syntax error", "KRANGE", "-", "+", "BYLEX", "LIMIT", "0");
    EXPECT_ERR(c, "ERR syntax error", "KRANGE", "0", "1", "TYPE");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "KRANGE", "-", "+", "BYLEX",
               "LIMIT", "x", "1");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'krange' command", "KRANGE", "0");
    EXPECT_ERR(c, "ERR syntax error", "KPREFIX", "a", "BYLEX");
    EXPECT_ERR(c, "ERR syntax error", "KPREFIX", "a", "TYPE", "string");
    EXPECT_ERR(c, "ERR min or max not valid string range item", "KCOUNT", "a", "b");
    EXPECT_ERR(c, "ERR min or max not valid string range item", "KCOUNT", "PREFIXX", "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'kcount' command", "KCOUNT", "[a");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'kcount' command", "KCOUNT", "PREFIX", "a",
               "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'krank' command", "KRANK");
    EXPECT_ERR(c, "ERR value is out of range, must be positive", "KFIRST", "-1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "KLAST", "x");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'kfirst' command", "KFIRST", "1", "2");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'knext' command", "KNEXT");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'kprev' command", "KPREV", "a", "1", "2");
    EXPECT_ERR(c, "ERR value is out of range, must be positive", "KPREV", "a", "-5");
    EXPECT_ERR(c, "ERR syntax error", "KDELRANGE", "-", "+", "LIMIT");
    EXPECT_ERR(c, "ERR syntax error", "KDELRANGE", "-", "+", "FOO", "1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "KDELRANGE", "-", "+", "LIMIT",
               "x");
    EXPECT_ERR(c, "ERR min or max not valid string range item", "KDELRANGE", "a", "b");
    EXPECT_ERR(c, "ERR value is out of range, must be positive", "KSPLIT", "0");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "KSPLIT", "x");
    EXPECT_ERR(c, "ERR syntax error", "KSPLIT", "2", "-");
    EXPECT_ERR(c, "ERR min or max not valid string range item", "KSPLIT", "2", "a", "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'keys' command", "KEYS", "a", "b");
    EXPECT_ERR(c, "ERR invalid cursor", "SCAN", "x");
    EXPECT_ERR(c, "ERR invalid cursor", "SCAN", "1x");
    EXPECT_MATCH(c, "-ERR invalid cursor: unknown, already used or expired*", "SCAN", "12345");
    EXPECT_ERR(c, "ERR syntax error", "SCAN", "0", "COUNT", "0");
    EXPECT_ERR(c, "ERR syntax error", "SCAN", "0", "MATCH");
    EXPECT_ERR(c, "ERR syntax error", "SCAN", "0", "FOO", "bar");
    /* Nothing was deleted by any of them. */
    EXPECT_BULK(c, "1", "GET", "a");
    redisFree(c);
}

static void test_binary_keys(void)
{
    redisContext *c = h_connect_flushed(&srv);
    static const struct h_arg keys[] = {H_S(""),     H_S("\0"),  H_S("\0\0"),   H_S("a\0b"),
                                        H_S("a"),    H_S("\xff"), H_S("\xff\0"), H_S("\xff\xff"),
                                        H_S("\x7f"), H_S("\x80")};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        EXPECT_BIN(c, "+OK", H_S("SET"), keys[i], H_S("v"));
    EXPECT_REPLY(c,
                 "['', '\\x00', '\\x00\\x00', 'a', 'a\\x00b', '\\x7f', '\\x80', '\\xff', "
                 "'\\xff\\x00', '\\xff\\xff']",
                 "KRANGE", "0", "-1");
    EXPECT_BIN(c, "['\\x00', '\\x00\\x00', 'a', 'a\\x00b', '\\x7f', '\\x80']", H_S("KRANGE"),
               H_S("[\0"), H_S("(\xff"), H_S("BYLEX"));
    EXPECT_BIN(c, "['\\xff', '\\xff\\x00', '\\xff\\xff']", H_S("KPREFIX"), H_S("\xff"));
    EXPECT_BIN(c, "['\\xff\\xff', '\\xff\\x00', '\\xff']", H_S("KPREFIX"), H_S("\xff"), H_S("REV"));
    EXPECT_BIN(c, "['\\x00', '\\x00\\x00']", H_S("KPREFIX"), H_S("\0"));
    EXPECT_BIN(c, "['a\\x00b']", H_S("KPREFIX"), H_S("a\0"));
    EXPECT_BIN(c, ":1", H_S("KCOUNT"), H_S("PREFIX"), H_S("\xff\xff"));
    EXPECT_BIN(c, ":0", H_S("KCOUNT"), H_S("PREFIX"), H_S("\xff\xff\xff"));
    EXPECT_BIN(c, ":3", H_S("KCOUNT"), H_S("[\x7f"), H_S("[\xff"));
    EXPECT_BIN(c, ":2", H_S("KCOUNT"), H_S("(\xff"), H_S("+"));
    EXPECT_BIN(c, ":0", H_S("KRANK"), H_S(""));
    EXPECT_BIN(c, ":0", H_S("KREVRANK"), H_S("\xff\xff"));
    EXPECT_BIN(c, ":2", H_S("KRANK"), H_S("\0\0"));
    EXPECT_BIN(c, "['\\x00']", H_S("KNEXT"), H_S(""));
    EXPECT_BIN(c, "['\\xff\\xff', '\\xff\\x00']", H_S("KPREV"), H_S("\xff\xff\xff"), H_S("2"));
    EXPECT_BIN(c, "[]", H_S("KNEXT"), H_S("\xff\xff"));
    EXPECT_BIN(c, "['\\xff', '\\xff\\x00', '\\xff\\xff']", H_S("KEYS"), H_S("\xff*"));
    EXPECT_BIN(c, "['0', ['\\x00', '\\x00\\x00']]", H_S("SCAN"), H_S("0"), H_S("MATCH"),
               H_S("\0*"));
    EXPECT_BIN(c, ":3", H_S("KDELRANGE"), H_S("PREFIX"), H_S("\xff"));
    EXPECT_BIN(c, ":1", H_S("KDELRANGE"), H_S("["), H_S("["));
    EXPECT_REPLY(c, "['\\x00', '\\x00\\x00', 'a', 'a\\x00b', '\\x7f', '\\x80']", "KRANGE", "0",
                 "-1");
    redisFree(c);
}

/* A key past its deadline is never seen, though the server has not removed
 * it yet (active expiry off): DBSIZE still counts it, as Redis's does. */
static void test_expired_keys(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_OK(c, "DEBUG", "SET-ACTIVE-EXPIRE", "0");
    set_keys(c, (const char *const[]){"a", "b", "c", "d"}, 4);
    EXPECT_INT(c, 1, "PEXPIRE", "b", "1");
    EXPECT_INT(c, 1, "PEXPIRE", "d", "1");
    EXPECT_INT(c, 1, "PEXPIRE", "c", "3600000");
    h_sleep_ms(5); /* the test: b's and d's deadlines pass */
    EXPECT_INT(c, 2, "KCOUNT", "-", "+");
    EXPECT_INT(c, 1, "KRANK", "c");
    EXPECT_INT(c, 0, "KREVRANK", "c");
    EXPECT_REPLY(c, "['a', 'c']", "KRANGE", "0", "-1");
    EXPECT_REPLY(c, "['c']", "KNEXT", "a");
    EXPECT_REPLY(c, "['c']", "KSPLIT", "2");
    EXPECT_REPLY(c, "['0', ['a', 'c']]", "SCAN", "0");
    EXPECT_INT(c, 4, "DBSIZE");
    EXPECT_OK(c, "DEBUG", "SET-ACTIVE-EXPIRE", "1");
    redisFree(c);
}

static void test_resp3(void)
{
    redisContext *c = h_connect_flushed(&srv);
    set_keys(c, (const char *const[]){"a", "b"}, 2);
    redisFree(c);
    struct h_raw r;
    if (h_raw_open_resp3(&r, &srv) < 0)
        return;
    RAW_SEND(&r, "KRANGE 0 -1 WITHVALUES\r\n");
    RAW_EXPECT(&r, "*2\r\n*2\r\n$1\r\na\r\n$1\r\nv\r\n*2\r\n$1\r\nb\r\n$1\r\nv\r\n");
    RAW_SEND(&r, "KPREFIX b WITHVALUES\r\n");
    RAW_EXPECT(&r, "*1\r\n*2\r\n$1\r\nb\r\n$1\r\nv\r\n");
    RAW_SEND(&r, "KRANGE 0 -1\r\n");
    RAW_EXPECT(&r, "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
    RAW_SEND(&r, "KRANK x\r\n");
    RAW_EXPECT(&r, "_\r\n");
    h_raw_close(&r);
}

/* COMMAND DOCS replies nest deeper than hiredis 0.14 reads (7 levels), so
 * they are checked as raw RESP2. */
static void test_command_docs(void)
{
    /* SCAN's and KEYS's are Redis's own (test_command_info compares them). */
    static const char *const names[] = {"krange", "kprefix", "kcount", "krank", "krevrank",
                                         "kfirst", "klast",   "knext",  "kprev", "kdelrange",
                                         "ksplit"};
    char cmd[64];
    redisContext *c = h_connect(&srv);
    EXPECT_MATCH(c, "[['krange', :-3, [+readonly], :0, :0, :0, [+@keyspace, +@read, +@slow], *",
                 "COMMAND", "INFO", "krange");
    EXPECT_MATCH(c, "[['krank', :2, [+readonly, +fast], :1, :1, :1, *", "COMMAND", "INFO",
                 "krank");
    EXPECT_MATCH(c, "[['kdelrange', :-3, [+write], :0, :0, :0, *", "COMMAND", "INFO", "kdelrange");
    redisFree(c);

    struct h_raw r;
    if (h_raw_open(&r, &srv) < 0)
        return;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *name = names[i];
        snprintf(cmd, sizeof(cmd), "COMMAND DOCS %s\r\n", name);
        h_raw_send(&r, cmd, strlen(cmd));
        RAW_EXPECT_MATCH(&r, "*$5\r\nsince\r\n$5\r\n0.1.0\r\n$5\r\ngroup\r\n$8\r\nkeyspace\r\n"
                             "*$9\r\narguments\r\n*");
    }
    RAW_SEND(&r, "COMMAND DOCS krange\r\n");
    RAW_EXPECT_MATCH(&r, "*$5\r\nBYLEX\r\n*$5\r\nLIMIT\r\n*$10\r\nWITHVALUES\r\n*$4\r\nTYPE\r\n*");
    h_raw_close(&r);
}

/* ---- SCAN ---- */

static void key_name(char *buf, size_t cap, int i)
{
    snprintf(buf, cap, "k:%05d", i);
}

/* One SCAN iteration by one client while another inserts and deletes keys
 * between its calls. Every key present for the whole iteration must come
 * back exactly once, everything must come back in ascending order, and
 * nothing may come back that never existed. */
static void scan_while_changing(const char *match, const char *prefix, unsigned rng)
{
    static unsigned char present[SCAN_UNIVERSE], touched[SCAN_UNIVERSE], ever[SCAN_UNIVERSE];
    static unsigned char seen[SCAN_UNIVERSE];
    redisContext *a = h_connect_flushed(&srv), *b = h_connect(&srv);
    char key[16], last[16] = "";
    size_t plen = strlen(prefix);

    if (!a || !b)
        return;
    for (int i = 0; i < SCAN_UNIVERSE; i++) {
        present[i] = ever[i] = i % 2 == 0;
        touched[i] = seen[i] = 0;
        key_name(key, sizeof(key), i);
        if (present[i])
            H_APPEND(b, "SET", key, "v");
    }
    for (int i = 0; i < SCAN_UNIVERSE; i += 2)
        freeReplyObject(h_get_reply(b));

    char cursor[32] = "0";
    int calls = 0, ordered = 1;
    do {
        redisReply *r = H_CALL(a, "SCAN", cursor, "MATCH", match, "COUNT", "7");
        if (!CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
                       r->element[0]->len < sizeof(cursor),
                   "SCAN %s: malformed reply", cursor)) {
            freeReplyObject(r);
            break;
        }
        memcpy(cursor, r->element[0]->str, r->element[0]->len + 1);
        for (size_t i = 0; i < r->element[1]->elements; i++) {
            const redisReply *k = r->element[1]->element[i];
            int n = -1;
            CHECK(sscanf(k->str, "k:%d", &n) == 1 && n >= 0 && n < SCAN_UNIVERSE &&
                      strncmp(k->str, prefix, plen) == 0,
                  "SCAN returned %s", k->str);
            if (n < 0 || n >= SCAN_UNIVERSE)
                continue;
            ordered &= strcmp(k->str, last) > 0;
            snprintf(last, sizeof(last), "%s", k->str);
            CHECK(ever[n], "SCAN returned %s, which never existed", k->str);
            seen[n]++;
        }
        freeReplyObject(r);
        for (int m = 0; m < SCAN_MUTATIONS; m++) {
            rng = rng * 1103515245u + 12345u;
            int i = (int)((rng >> 8) % SCAN_UNIVERSE);
            key_name(key, sizeof(key), i);
            freeReplyObject(present[i] ? H_CALL(b, "DEL", key) : H_CALL(b, "SET", key, "v"));
            present[i] = !present[i];
            touched[i] = ever[i] = 1;
        }
    } while (strcmp(cursor, "0") != 0 && ++calls < SCAN_UNIVERSE);
    CHECK(strcmp(cursor, "0") == 0, "the iteration did not end");
    CHECK(ordered, "SCAN returned keys out of order");
    int missing = 0, twice = 0;
    for (int i = 0; i < SCAN_UNIVERSE; i++) {
        key_name(key, sizeof(key), i);
        if (strncmp(key, prefix, plen) != 0)
            continue;
        missing += i % 2 == 0 && !touched[i] && !seen[i];
        twice += seen[i] > 1;
    }
    CHECK(missing == 0 && twice == 0, "%d stable keys missing, %d keys returned twice", missing,
          twice);
    redisFree(a);
    redisFree(b);
}

static void test_scan_while_changing(void)
{
    scan_while_changing("*", "", 1);
    scan_while_changing("k:01*", "k:01", 2);
}

/* A cursor belongs to the server, not to the connection that got it. */
static void test_scan_cursor_shared(void)
{
    redisContext *a = h_connect_flushed(&srv), *b = h_connect(&srv);
    set_keys(a, (const char *const[]){"a", "b", "c"}, 3);
    redisReply *r = H_CALL(a, "SCAN", "0", "COUNT", "2");
    if (CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2, "SCAN: malformed reply")) {
        char want[64];
        h_repr(r, want, sizeof(want));
        CHECK(h_glob("['*', ['a', 'b']]", want, strlen(want)), "SCAN 0 COUNT 2: got %s", want);
        EXPECT_REPLY(b, "['0', ['c']]", "SCAN", r->element[0]->str, "COUNT", "2");
        EXPECT_MATCH(b, "-ERR invalid cursor: unknown*", "SCAN", r->element[0]->str);
    }
    freeReplyObject(r);
    redisFree(a);
    redisFree(b);
}

/* Runs a shell command and returns its output (caller frees), or NULL. */
static char *shell_output(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t len = 0, cap = 4096;
    char *out = malloc(cap);
    size_t n;
    while (out && (n = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 2)
            out = realloc(out, cap *= 2);
    }
    if (out)
        out[len] = '\0';
    return pclose(p) == 0 ? out : (free(out), NULL);
}

static void test_redis_cli_scan(void)
{
    if (system("command -v redis-cli >/dev/null 2>&1") != 0) {
        printf("  skipped: redis-cli not found\n");
        return;
    }
    redisContext *c = h_connect_flushed(&srv);
    char key[16], want[4096] = "", cmd[256];
    for (int i = 0; i < 200; i++) {
        snprintf(key, sizeof(key), "%c:%03d", "pq"[i % 2], i / 2);
        EXPECT_OK(c, "SET", key, "v");
        if (i % 2 == 0)
            snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s\n", key);
    }
    snprintf(cmd, sizeof(cmd), "redis-cli -p %d --scan --pattern 'p:*'", srv.port);
    char *out = shell_output(cmd);
    CHECK(out && strcmp(out, want) == 0, "%s: got %s", cmd, out ? out : "(failed)");
    free(out);
    /* Without a pattern: all keys, in byte order, across 20 calls of COUNT 10. */
    snprintf(cmd, sizeof(cmd), "redis-cli -p %d --scan | LC_ALL=C sort -c && redis-cli -p %d --scan | wc -l",
             srv.port, srv.port);
    out = shell_output(cmd);
    CHECK(out && atoi(out) == 200, "%s: got %s", cmd, out ? out : "(failed: not sorted?)");
    free(out);
    redisFree(c);
}

/* ---- the differential test over the network ---- */

static redisReply *net_call(void *ctx, int argc, const char *const *argv, const size_t *lens)
{
    return h_command(ctx, argc, argv, lens);
}

/* PEXPIRE 2 ms, then sleep past it: the server's clock is ours. */
static void net_expire(void *ctx, const char *key, size_t len)
{
    redisReply *r = h_command(ctx, 3, (const char *const[]){"PEXPIRE", key, "2"},
                              (const size_t[]){7, len, 1});
    CHECK(r && r->type == REDIS_REPLY_INTEGER && r->integer == 1, "PEXPIRE of a present key");
    freeReplyObject(r);
    h_sleep_ms(3); /* the test: the deadline passes */
}

static void test_random(void)
{
    const char *env = getenv("SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    redisContext *c = h_connect(&srv);
    if (!c)
        return;
    struct od_target t = {net_call, net_expire, NULL, c};
    printf("  SEED=%" PRIu64 "\n", seed);
    /* Keys past their deadline pile up in the server, to be skipped by every
     * read until a lookup of their own deletes them. */
    EXPECT_OK(c, "DEBUG", "SET-ACTIVE-EXPIRE", "0");
    CHECK(od_run(&t, seed, RANDOM_OPS) == 0, "differential test failed, SEED=%" PRIu64, seed);
    EXPECT_OK(c, "DEBUG", "SET-ACTIVE-EXPIRE", "1");
    redisFree(c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_empty);
    H_RUN(test_ranks_and_bounds);
    H_RUN(test_prefix_and_keys);
    H_RUN(test_errors);
    H_RUN(test_binary_keys);
    H_RUN(test_expired_keys);
    H_RUN(test_resp3);
    H_RUN(test_command_docs);
    H_RUN(test_scan_while_changing);
    H_RUN(test_scan_cursor_shared);
    H_RUN(test_redis_cli_scan);
    H_RUN(test_random);
    h_stop(&srv);
    return h_finish();
}
