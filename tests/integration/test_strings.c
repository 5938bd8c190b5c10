/*
 * test_strings.c - end-to-end tests of the string commands: GET SET (every
 * option) SETNX SETEX PSETEX GETSET GETDEL GETEX MGET MSET MSETNX APPEND
 * STRLEN GETRANGE SETRANGE INCR DECR INCRBY DECRBY INCRBYFLOAT, their error
 * paths with Redis 7's exact texts, overflow, and binary-safe keys and values.
 *
 * One server for the whole file; each test works on its own keys and
 * FLUSHALLs first, so tests do not depend on each other's leftovers.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "harness.h"

static struct h_server srv;

static void test_get_set(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_NIL(c, "GET", "k");
    EXPECT_OK(c, "SET", "k", "v");
    EXPECT_BULK(c, "v", "GET", "k");
    EXPECT_OK(c, "SET", "k", "");
    EXPECT_BULK(c, "", "GET", "k");
    EXPECT_OK(c, "set", "k", "v2");
    EXPECT_BULK(c, "v2", "get", "k");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'get' command", "GET");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'get' command", "GET", "a", "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'set' command", "SET", "k");
    EXPECT_ERR(c, "ERR syntax error", "SET", "k", "v", "foo");
    EXPECT_BULK(c, "v2", "GET", "k");
    redisFree(c);
}

static void test_set_nx_xx_get(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_NIL(c, "SET", "k", "v", "XX");
    EXPECT_NIL(c, "GET", "k");
    EXPECT_OK(c, "SET", "k", "v", "NX");
    EXPECT_NIL(c, "SET", "k", "w", "NX");
    EXPECT_BULK(c, "v", "GET", "k");
    EXPECT_OK(c, "SET", "k", "w", "xx");
    EXPECT_BULK(c, "w", "GET", "k");
    EXPECT_ERR(c, "ERR syntax error", "SET", "k", "v", "NX", "XX");
    EXPECT_ERR(c, "ERR syntax error", "SET", "k", "v", "XX", "NX");

    /* GET returns the old value, whether or not the SET happened. */
    EXPECT_BULK(c, "w", "SET", "k", "x", "GET");
    EXPECT_BULK(c, "x", "GET", "k");
    EXPECT_NIL(c, "SET", "new", "1", "GET");
    EXPECT_BULK(c, "1", "GET", "new");
    EXPECT_BULK(c, "x", "SET", "k", "y", "NX", "GET");
    EXPECT_BULK(c, "x", "GET", "k");
    EXPECT_NIL(c, "SET", "k2", "y", "NX", "GET");
    EXPECT_BULK(c, "y", "GET", "k2");
    EXPECT_NIL(c, "SET", "k3", "y", "XX", "GET");
    EXPECT_INT(c, 0, "EXISTS", "k3");
    EXPECT_BULK(c, "y", "SET", "k2", "z", "XX", "GET");
    EXPECT_BULK(c, "z", "GET", "k2");
    redisFree(c);
}

static void test_set_expire_options(void)
{
    redisContext *c = h_connect_flushed(&srv);
    char at[32];
    EXPECT_OK(c, "SET", "k", "v", "EX", "100");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "k");
    EXPECT_OK(c, "SET", "k", "v", "PX", "100000");
    EXPECT_INT_RANGE(c, 99000, 100000, "PTTL", "k");
    snprintf(at, sizeof(at), "%lld", (long long)time(NULL) + 200);
    EXPECT_OK(c, "SET", "k", "v", "EXAT", at);
    EXPECT_INT_RANGE(c, 198000, 200000, "PTTL", "k");
    snprintf(at, sizeof(at), "%lld", ((long long)time(NULL) + 300) * 1000);
    EXPECT_OK(c, "SET", "k", "v", "PXAT", at);
    EXPECT_INT_RANGE(c, 298000, 300000, "PTTL", "k");

    /* KEEPTTL keeps it; a plain SET drops it. */
    EXPECT_OK(c, "SET", "k", "v2", "KEEPTTL");
    EXPECT_INT_RANGE(c, 298000, 300000, "PTTL", "k");
    EXPECT_BULK(c, "v2", "GET", "k");
    EXPECT_OK(c, "SET", "k", "v3");
    EXPECT_INT(c, -1, "TTL", "k");
    EXPECT_BULK(c, "v3", "SET", "k", "v", "ex", "100", "GET");
    EXPECT_BULK(c, "v", "SET", "k", "v4", "KEEPTTL", "GET");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "k");

    /* A deadline in the past: the key is set and already gone. */
    EXPECT_OK(c, "SET", "past", "v", "EXAT", "1");
    EXPECT_NIL(c, "GET", "past");
    EXPECT_INT(c, 0, "EXISTS", "past");
    EXPECT_OK(c, "SET", "past", "v", "PXAT", "1");
    EXPECT_INT(c, 0, "EXISTS", "past");

    EXPECT_ERR(c, "ERR invalid expire time in 'set' command", "SET", "k", "v", "EX", "0");
    EXPECT_ERR(c, "ERR invalid expire time in 'set' command", "SET", "k", "v", "EX", "-1");
    EXPECT_ERR(c, "ERR invalid expire time in 'set' command", "SET", "k", "v", "PX", "0");
    EXPECT_ERR(c, "ERR invalid expire time in 'set' command", "SET", "k", "v", "EXAT", "0");
    EXPECT_ERR(c, "ERR invalid expire time in 'set' command", "SET", "k", "v", "PXAT", "0");
    EXPECT_ERR(c, "ERR invalid expire time in 'set' command", "SET", "k", "v", "EX",
               "9223372036854775807");
    EXPECT_ERR(c, "ERR invalid expire time in 'set' command", "SET", "k", "v", "PX",
               "9223372036854775807");
    EXPECT_ERR(c, "ERR invalid expire time in 'set' command", "SET", "k", "v", "EXAT",
               "9223372036854775807");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SET", "k", "v", "EX", "abc");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SET", "k", "v", "PX", "1.5");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SET", "k", "v", "EX",
               "99999999999999999999");
    EXPECT_ERR(c, "ERR syntax error", "SET", "k", "v", "EX");
    EXPECT_ERR(c, "ERR syntax error", "SET", "k", "v", "EX", "10", "PX", "10");
    EXPECT_ERR(c, "ERR syntax error", "SET", "k", "v", "KEEPTTL", "EX", "10");
    EXPECT_ERR(c, "ERR syntax error", "SET", "k", "v", "PX", "5", "KEEPTTL");
    EXPECT_ERR(c, "ERR syntax error", "SET", "k", "v", "EXAT", "10", "PXAT", "10");
    /* Failed SETs changed nothing. */
    EXPECT_BULK(c, "v4", "GET", "k");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "k");
    redisFree(c);
}

static void test_setnx_setex_psetex(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 1, "SETNX", "k", "v");
    EXPECT_INT(c, 0, "SETNX", "k", "w");
    EXPECT_BULK(c, "v", "GET", "k");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'setnx' command", "SETNX", "k");

    EXPECT_OK(c, "SETEX", "k", "100", "x");
    EXPECT_BULK(c, "x", "GET", "k");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "k");
    EXPECT_ERR(c, "ERR invalid expire time in 'setex' command", "SETEX", "k", "0", "v");
    EXPECT_ERR(c, "ERR invalid expire time in 'setex' command", "SETEX", "k", "-5", "v");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SETEX", "k", "x", "v");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'setex' command", "SETEX", "k", "10");

    EXPECT_OK(c, "PSETEX", "p", "100000", "y");
    EXPECT_BULK(c, "y", "GET", "p");
    EXPECT_INT_RANGE(c, 99000, 100000, "PTTL", "p");
    EXPECT_ERR(c, "ERR invalid expire time in 'psetex' command", "PSETEX", "p", "-1", "v");
    EXPECT_ERR(c, "ERR invalid expire time in 'psetex' command", "PSETEX", "p", "0", "v");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "PSETEX", "p", "1e3", "v");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'psetex' command", "PSETEX", "p");
    redisFree(c);
}

static void test_getset_getdel_getex(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_NIL(c, "GETSET", "k", "a");
    EXPECT_BULK(c, "a", "GETSET", "k", "b");
    EXPECT_BULK(c, "b", "GET", "k");
    EXPECT_OK(c, "SET", "t", "v", "EX", "100");
    EXPECT_BULK(c, "v", "GETSET", "t", "w");
    EXPECT_INT(c, -1, "TTL", "t"); /* GETSET is a SET: the TTL goes */
    EXPECT_ERR(c, "ERR wrong number of arguments for 'getset' command", "GETSET", "k");

    EXPECT_BULK(c, "b", "GETDEL", "k");
    EXPECT_INT(c, 0, "EXISTS", "k");
    EXPECT_NIL(c, "GETDEL", "k");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'getdel' command", "GETDEL");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'getdel' command", "GETDEL", "a", "b");

    char at[32];
    EXPECT_NIL(c, "GETEX", "missing");
    EXPECT_NIL(c, "GETEX", "missing", "EX", "10");
    EXPECT_OK(c, "SET", "k", "v");
    EXPECT_BULK(c, "v", "GETEX", "k");
    EXPECT_INT(c, -1, "TTL", "k");
    EXPECT_BULK(c, "v", "GETEX", "k", "EX", "100");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "k");
    EXPECT_BULK(c, "v", "GETEX", "k", "PX", "200000");
    EXPECT_INT_RANGE(c, 199000, 200000, "PTTL", "k");
    snprintf(at, sizeof(at), "%lld", (long long)time(NULL) + 300);
    EXPECT_BULK(c, "v", "GETEX", "k", "EXAT", at);
    EXPECT_INT_RANGE(c, 298000, 300000, "PTTL", "k");
    snprintf(at, sizeof(at), "%lld", ((long long)time(NULL) + 400) * 1000);
    EXPECT_BULK(c, "v", "GETEX", "k", "PXAT", at);
    EXPECT_INT_RANGE(c, 398000, 400000, "PTTL", "k");
    EXPECT_BULK(c, "v", "GETEX", "k", "PERSIST");
    EXPECT_INT(c, -1, "TTL", "k");
    EXPECT_ERR(c, "ERR invalid expire time in 'getex' command", "GETEX", "k", "EX", "0");
    EXPECT_ERR(c, "ERR invalid expire time in 'getex' command", "GETEX", "k", "PX", "-1");
    EXPECT_ERR(c, "ERR invalid expire time in 'getex' command", "GETEX", "k", "EXAT", "0");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "GETEX", "k", "EX", "x");
    EXPECT_ERR(c, "ERR syntax error", "GETEX", "k", "foo");
    EXPECT_ERR(c, "ERR syntax error", "GETEX", "k", "EX");
    EXPECT_ERR(c, "ERR syntax error", "GETEX", "k", "EX", "1", "PX", "1");
    EXPECT_ERR(c, "ERR syntax error", "GETEX", "k", "PERSIST", "EX", "1");
    EXPECT_ERR(c, "ERR syntax error", "GETEX", "k", "persist", "x");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'getex' command", "GETEX");
    EXPECT_INT(c, -1, "TTL", "k");
    /* A deadline in the past returns the value and deletes the key. */
    EXPECT_BULK(c, "v", "GETEX", "k", "EXAT", "1");
    EXPECT_INT(c, 0, "EXISTS", "k");
    redisFree(c);
}

static void test_mget_mset_msetnx(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_OK(c, "MSET", "a", "1", "b", "2");
    EXPECT_REPLY(c, "['1', '2', (nil)]", "MGET", "a", "b", "c");
    EXPECT_REPLY(c, "[(nil)]", "MGET", "nope");
    EXPECT_REPLY(c, "['1', '1']", "MGET", "a", "a");
    EXPECT_OK(c, "MSET", "a", "x", "a", "y"); /* the last one wins */
    EXPECT_BULK(c, "y", "GET", "a");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'mset' command", "MSET", "a");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'mset' command", "MSET", "a", "1", "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'mget' command", "MGET");

    EXPECT_INT(c, 1, "MSETNX", "c", "3", "d", "4");
    EXPECT_REPLY(c, "['3', '4']", "MGET", "c", "d");
    /* One existing key: none is set. */
    EXPECT_INT(c, 0, "MSETNX", "e", "5", "c", "x");
    EXPECT_INT(c, 0, "EXISTS", "e");
    EXPECT_BULK(c, "3", "GET", "c");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'msetnx' command", "MSETNX", "a", "1", "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'msetnx' command", "MSETNX", "a");

    /* MSET drops TTLs like SET. */
    EXPECT_OK(c, "SET", "t", "v", "EX", "100");
    EXPECT_OK(c, "MSET", "t", "w");
    EXPECT_INT(c, -1, "TTL", "t");
    redisFree(c);
}

static void test_append_strlen_ranges(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 0, "STRLEN", "k");
    EXPECT_INT(c, 5, "APPEND", "k", "Hello");
    EXPECT_INT(c, 11, "APPEND", "k", " World");
    EXPECT_INT(c, 11, "APPEND", "k", "");
    EXPECT_INT(c, 11, "STRLEN", "k");
    EXPECT_BULK(c, "Hello World", "GET", "k");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'append' command", "APPEND", "k");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'strlen' command", "STRLEN");
    EXPECT_OK(c, "SET", "t", "v", "EX", "100");
    EXPECT_INT(c, 2, "APPEND", "t", "w");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "t"); /* APPEND keeps the TTL */

    EXPECT_BULK(c, "Hello World", "GETRANGE", "k", "0", "-1");
    EXPECT_BULK(c, "Hell", "GETRANGE", "k", "0", "3");
    EXPECT_BULK(c, "rld", "GETRANGE", "k", "-3", "-1");
    EXPECT_BULK(c, "Hello World", "GETRANGE", "k", "0", "100");
    EXPECT_BULK(c, "Hello World", "GETRANGE", "k", "-100", "100");
    EXPECT_BULK(c, "d", "GETRANGE", "k", "10", "10");
    EXPECT_BULK(c, "", "GETRANGE", "k", "11", "20");
    EXPECT_BULK(c, "", "GETRANGE", "k", "5", "3");
    EXPECT_BULK(c, "", "GETRANGE", "k", "-1", "-3");
    EXPECT_BULK(c, "", "GETRANGE", "missing", "0", "-1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "GETRANGE", "k", "a", "b");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "GETRANGE", "k", "0", "1.5");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'getrange' command", "GETRANGE", "k", "0");

    EXPECT_INT(c, 11, "SETRANGE", "k", "6", "Redis");
    EXPECT_BULK(c, "Hello Redis", "GET", "k");
    EXPECT_INT(c, 13, "SETRANGE", "k", "11", "!!");
    EXPECT_BULK(c, "Hello Redis!!", "GET", "k");
    EXPECT_INT(c, 13, "SETRANGE", "k", "100", ""); /* an empty value changes nothing */
    EXPECT_INT(c, 13, "STRLEN", "k");
    /* Past the end: zero bytes fill the gap. */
    EXPECT_INT(c, 6, "SETRANGE", "pad", "5", "x");
    EXPECT_REPLY(c, "'\\x00\\x00\\x00\\x00\\x00x'", "GET", "pad");
    EXPECT_INT(c, 0, "SETRANGE", "none", "0", "");
    EXPECT_INT(c, 0, "SETRANGE", "none", "536870911", "");
    EXPECT_INT(c, 0, "EXISTS", "none");
    EXPECT_ERR(c, "ERR offset is out of range", "SETRANGE", "k", "-1", "x");
    EXPECT_ERR(c, "ERR string exceeds maximum allowed size (proto-max-bulk-len)", "SETRANGE", "k",
               "536870912", "x");
    EXPECT_ERR(c, "ERR string exceeds maximum allowed size (proto-max-bulk-len)", "SETRANGE",
               "none", "536870911", "xy");
    EXPECT_INT(c, 0, "EXISTS", "none");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SETRANGE", "k", "x", "v");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'setrange' command", "SETRANGE", "k", "1");
    redisFree(c);
}

static void test_incr_decr(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 1, "INCR", "n");
    EXPECT_INT(c, 2, "INCR", "n");
    EXPECT_INT(c, 1, "DECR", "n");
    EXPECT_INT(c, -1, "DECR", "m");
    EXPECT_INT(c, 11, "INCRBY", "n", "10");
    EXPECT_INT(c, -89, "INCRBY", "n", "-100");
    EXPECT_INT(c, 11, "DECRBY", "n", "-100");
    EXPECT_INT(c, 0, "DECRBY", "n", "11");
    EXPECT_BULK(c, "0", "GET", "n");
    EXPECT_OK(c, "SET", "n", "-9223372036854775808");
    EXPECT_INT(c, -9223372036854775807LL, "INCR", "n");
    EXPECT_OK(c, "SET", "t", "5", "EX", "100");
    EXPECT_INT(c, 6, "INCR", "t");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "t"); /* INCR keeps the TTL */

    /* Overflow in both directions; the value stays. */
    EXPECT_INT(c, 9223372036854775807LL, "INCRBY", "big", "9223372036854775807");
    EXPECT_ERR(c, "ERR increment or decrement would overflow", "INCRBY", "big",
               "9223372036854775807");
    EXPECT_ERR(c, "ERR increment or decrement would overflow", "INCR", "big");
    EXPECT_BULK(c, "9223372036854775807", "GET", "big");
    EXPECT_OK(c, "SET", "small", "-9223372036854775808");
    EXPECT_ERR(c, "ERR increment or decrement would overflow", "DECR", "small");
    EXPECT_ERR(c, "ERR increment or decrement would overflow", "DECRBY", "small", "1");
    EXPECT_ERR(c, "ERR decrement would overflow", "DECRBY", "small", "-9223372036854775808");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "INCRBY", "big",
               "9223372036854775808");

    /* Values and increments that are not canonical integers. */
    static const char *bad[] = {" 1", "1 ", "+1", "01", "1.0", "abc", "", "0x10",
                                "9223372036854775808"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        EXPECT_OK(c, "SET", "s", bad[i]);
        EXPECT_ERR(c, "ERR value is not an integer or out of range", "INCR", "s");
        EXPECT_ERR(c, "ERR value is not an integer or out of range", "DECRBY", "s", "1");
        EXPECT_ERR(c, "ERR value is not an integer or out of range", "INCRBY", "n", bad[i]);
    }
    EXPECT_ERR(c, "ERR wrong number of arguments for 'incr' command", "INCR");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'incrby' command", "INCRBY", "n");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'decr' command", "DECR", "a", "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'decrby' command", "DECRBY", "n");
    redisFree(c);
}

static void test_incrbyfloat(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_BULK(c, "1.5", "INCRBYFLOAT", "f", "1.5");
    EXPECT_OK(c, "SET", "f", "10.5");
    EXPECT_BULK(c, "10.6", "INCRBYFLOAT", "f", "0.1");
    EXPECT_BULK(c, "5010.60000000000000009", "INCRBYFLOAT", "f", "5.0e3");
    EXPECT_OK(c, "SET", "f", "1e3");
    EXPECT_BULK(c, "1000", "INCRBYFLOAT", "f", "0");
    EXPECT_INT(c, 1001, "INCR", "f"); /* the result is stored as text "1000" */
    EXPECT_BULK(c, "1000", "INCRBYFLOAT", "f", "-1");
    EXPECT_BULK(c, "-0.5", "INCRBYFLOAT", "g", "-.5");
    EXPECT_BULK(c, "3", "INCRBYFLOAT", "i", "3");
    EXPECT_OK(c, "SET", "t", "1", "EX", "100");
    EXPECT_BULK(c, "2.5", "INCRBYFLOAT", "t", "1.5");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "t");

    EXPECT_ERR(c, "ERR value is not a valid float", "INCRBYFLOAT", "f", "abc");
    EXPECT_ERR(c, "ERR value is not a valid float", "INCRBYFLOAT", "f", "nan");
    EXPECT_ERR(c, "ERR value is not a valid float", "INCRBYFLOAT", "f", "");
    EXPECT_ERR(c, "ERR value is not a valid float", "INCRBYFLOAT", "f", "1.5x");
    EXPECT_ERR(c, "ERR increment would produce NaN or Infinity", "INCRBYFLOAT", "f", "inf");
    EXPECT_ERR(c, "ERR value is not a valid float", "INCRBYFLOAT", "f", "1e5000");
    EXPECT_OK(c, "SET", "s", "hello");
    EXPECT_ERR(c, "ERR value is not a valid float", "INCRBYFLOAT", "s", "1");
    EXPECT_BULK(c, "1000", "GET", "f");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'incrbyfloat' command", "INCRBYFLOAT", "f");
    redisFree(c);
}

static void test_binary_safe(void)
{
    redisContext *c = h_connect_flushed(&srv);
    const struct h_arg key = H_S("k\0a\r\n\xff");
    EXPECT_BIN(c, "+OK", H_S("SET"), key, H_S("v\0\0b\r\n"));
    EXPECT_BIN(c, "'v\\x00\\x00b\\r\\n'", H_S("GET"), key);
    /* Keys that differ only after a NUL are different keys. */
    EXPECT_BIN(c, "(nil)", H_S("GET"), H_S("k\0b"));
    EXPECT_BIN(c, "(nil)", H_S("GET"), H_S("k"));
    EXPECT_BIN(c, "[(nil), 'v\\x00\\x00b\\r\\n']", H_S("MGET"), H_S("k"), key);
    EXPECT_BIN(c, ":8", H_S("APPEND"), key, H_S("\0z"));
    EXPECT_BIN(c, ":8", H_S("STRLEN"), key);
    EXPECT_BIN(c, "'\\x00b\\r\\n\\x00'", H_S("GETRANGE"), key, H_S("2"), H_S("6"));
    EXPECT_BIN(c, ":8", H_S("SETRANGE"), key, H_S("1"), H_S("\0"));
    EXPECT_BIN(c, "'v\\x00\\x00b\\r\\n\\x00z'", H_S("GETDEL"), key);
    EXPECT_INT(c, 0, "DBSIZE");
    /* Every byte value survives a round trip, as key and as value. */
    char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (char)i;
    EXPECT_BIN(c, "+OK", H_S("SET"), H_B(all, sizeof(all)), H_B(all, sizeof(all)));
    redisReply *r = H_CALL_BIN(c, H_S("GET"), H_B(all, sizeof(all)));
    CHECK(r && r->type == REDIS_REPLY_STRING && r->len == sizeof(all) &&
              !memcmp(r->str, all, sizeof(all)),
          "GET of a value holding every byte did not return it intact");
    freeReplyObject(r);
    redisFree(c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_get_set);
    H_RUN(test_set_nx_xx_get);
    H_RUN(test_set_expire_options);
    H_RUN(test_setnx_setex_psetex);
    H_RUN(test_getset_getdel_getex);
    H_RUN(test_mget_mset_msetnx);
    H_RUN(test_append_strlen_ranges);
    H_RUN(test_incr_decr);
    H_RUN(test_incrbyfloat);
    H_RUN(test_binary_safe);
    h_stop(&srv);
    return h_finish();
}
