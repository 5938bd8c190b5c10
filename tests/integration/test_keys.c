/*
 * test_keys.c - end-to-end tests of the keyspace and server commands: DEL
 * UNLINK EXISTS TYPE RENAME RENAMENX COPY TOUCH RANDOMKEY DBSIZE FLUSHDB
 * FLUSHALL MOVE, EXPIRE PEXPIRE EXPIREAT PEXPIREAT (NX XX GT LT), TTL PTTL
 * PERSIST EXPIRETIME PEXPIRETIME, TIME, INFO, CONFIG GET/SET/RESETSTAT, the
 * isolation of databases, OBJECT; and the generic commands on hashes and
 * sets, from a snapshot (passes without the hash and set commands) and
 * written by HSET and SADD (needs them).
 *
 * One server for the whole file; each test FLUSHALLs first. Expected replies
 * are Redis 7's; where Redis has more of something than rbkv (CONFIG GET
 * globs, INFO fields) the checks hold for both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

#define RANDOMKEY_DRAWS 200

static struct h_server srv;

/* The INFO text of some sections, or NULL; the caller frees the reply. */
static redisReply *info(redisContext *c, const char *section)
{
    redisReply *r = section ? H_CALL(c, "INFO", section) : H_CALL(c, "INFO");
    if (!CHECK(r && r->type == REDIS_REPLY_STRING, "INFO %s: expected a bulk",
               section ? section : "")) {
        freeReplyObject(r);
        return NULL;
    }
    return r;
}

static void test_del_exists_type(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_OK(c, "MSET", "a", "1", "b", "2", "c", "3");
    EXPECT_INT(c, 3, "EXISTS", "a", "b", "c");
    EXPECT_INT(c, 2, "EXISTS", "a", "a");
    EXPECT_INT(c, 0, "EXISTS", "nope");
    EXPECT_STATUS(c, "string", "TYPE", "a");
    EXPECT_STATUS(c, "none", "TYPE", "nope");
    EXPECT_INT(c, 2, "DEL", "a", "b", "b", "nope");
    EXPECT_INT(c, 0, "DEL", "a");
    EXPECT_INT(c, 1, "UNLINK", "c", "nope");
    EXPECT_INT(c, 0, "DBSIZE");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'del' command", "DEL");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'unlink' command", "UNLINK");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'exists' command", "EXISTS");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'type' command", "TYPE");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'dbsize' command", "DBSIZE", "x");
    redisFree(c);
}

static void test_rename_copy_move(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_ERR(c, "ERR no such key", "RENAME", "nope", "x");
    EXPECT_ERR(c, "ERR no such key", "RENAMENX", "nope", "x");
    EXPECT_OK(c, "SET", "a", "1", "EX", "100");
    EXPECT_OK(c, "RENAME", "a", "b");
    EXPECT_INT(c, 0, "EXISTS", "a");
    EXPECT_BULK(c, "1", "GET", "b");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "b"); /* the TTL travels with the key */
    EXPECT_OK(c, "RENAME", "b", "b");
    EXPECT_INT(c, 0, "RENAMENX", "b", "b");
    /* Renaming over a key replaces it, TTL included. */
    EXPECT_OK(c, "SET", "z", "zz");
    EXPECT_OK(c, "RENAME", "z", "b");
    EXPECT_BULK(c, "zz", "GET", "b");
    EXPECT_INT(c, -1, "TTL", "b");
    EXPECT_OK(c, "SET", "y", "yy");
    EXPECT_INT(c, 0, "RENAMENX", "y", "b");
    EXPECT_INT(c, 1, "RENAMENX", "y", "x");
    EXPECT_BULK(c, "yy", "GET", "x");
    EXPECT_INT(c, 0, "EXISTS", "y");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'rename' command", "RENAME", "x");

    EXPECT_ERR(c, "ERR source and destination objects are the same", "COPY", "x", "x");
    EXPECT_INT(c, 0, "COPY", "nope", "n2");
    EXPECT_OK(c, "SET", "src", "v", "EX", "100");
    EXPECT_INT(c, 1, "COPY", "src", "dst");
    EXPECT_BULK(c, "v", "GET", "dst");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "dst");
    EXPECT_OK(c, "SET", "src", "w");
    EXPECT_INT(c, 0, "COPY", "src", "dst");
    EXPECT_BULK(c, "v", "GET", "dst");
    EXPECT_INT(c, 1, "COPY", "src", "dst", "REPLACE");
    EXPECT_BULK(c, "w", "GET", "dst");
    EXPECT_INT(c, -1, "TTL", "dst");
    EXPECT_INT(c, 1, "COPY", "src", "dst", "DB", "1");
    EXPECT_INT(c, 0, "COPY", "src", "dst", "DB", "1");
    EXPECT_ERR(c, "ERR DB index is out of range", "COPY", "src", "dst", "DB", "16");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "COPY", "src", "dst", "DB", "x");
    EXPECT_ERR(c, "ERR syntax error", "COPY", "src", "dst", "foo");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'copy' command", "COPY", "src");

    EXPECT_OK(c, "SET", "m", "moved", "EX", "100");
    EXPECT_INT(c, 1, "MOVE", "m", "2");
    EXPECT_INT(c, 0, "EXISTS", "m");
    EXPECT_INT(c, 0, "MOVE", "m", "2");
    EXPECT_OK(c, "SET", "m", "again");
    EXPECT_INT(c, 0, "MOVE", "m", "2"); /* the target has it: nothing moves */
    EXPECT_BULK(c, "again", "GET", "m");
    EXPECT_ERR(c, "ERR source and destination objects are the same", "MOVE", "m", "0");
    EXPECT_ERR(c, "ERR DB index is out of range", "MOVE", "m", "16");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "MOVE", "m", "x");
    EXPECT_OK(c, "SELECT", "1");
    EXPECT_BULK(c, "w", "GET", "dst");
    EXPECT_OK(c, "SELECT", "2");
    EXPECT_BULK(c, "moved", "GET", "m");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "m");
    redisFree(c);
}

static void test_object(void)
{
    redisContext *c = h_connect_flushed(&srv);
    static const struct {
        const char *value, *encoding;
    } strings[] = {
        {"12345", "int"}, {"-9223372036854775808", "int"}, {"0", "int"},
        {"-0", "embstr"}, {"007", "embstr"}, {"+1", "embstr"}, {" 1", "embstr"},
        {"9223372036854775808", "embstr"}, {"", "embstr"},
        {"12345678901234567890123456789012345678901234", "embstr"}, /* 44 bytes */
        {"123456789012345678901234567890123456789012345", "raw"},
    };
    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
        EXPECT_OK(c, "SET", "k", strings[i].value);
        redisReply *r = H_CALL(c, "OBJECT", "ENCODING", "k");
        CHECK(r && r->type == REDIS_REPLY_STRING && strcmp(r->str, strings[i].encoding) == 0,
              "OBJECT ENCODING of '%s': %s, expected %s", strings[i].value,
              r && r->str ? r->str : "(none)", strings[i].encoding);
        freeReplyObject(r);
    }
    EXPECT_INT(c, 1, "ZADD", "z", "1", "a");
    EXPECT_BULK(c, "rbtree", "OBJECT", "ENCODING", "z");
    EXPECT_BULK(c, "rbtree", "object", "encoding", "z");
    EXPECT_INT(c, 1, "OBJECT", "REFCOUNT", "k");
    EXPECT_INT(c, 1, "OBJECT", "REFCOUNT", "z");
    EXPECT_INT(c, 0, "OBJECT", "IDLETIME", "k");
    EXPECT_ERR(c,
               "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please "
               "note that when switching between policies at runtime LRU and LFU data will take "
               "some time to adjust.",
               "OBJECT", "FREQ", "k");
    EXPECT_NIL(c, "OBJECT", "ENCODING", "nokey");
    EXPECT_NIL(c, "OBJECT", "REFCOUNT", "nokey");
    EXPECT_NIL(c, "OBJECT", "IDLETIME", "nokey");
    EXPECT_NIL(c, "OBJECT", "FREQ", "nokey");
    EXPECT_ERR(c, "ERR unknown subcommand 'foo'. Try OBJECT HELP.", "OBJECT", "foo");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'object|encoding' command", "OBJECT",
               "ENCODING");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'object|encoding' command", "OBJECT",
               "ENCODING", "a", "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'object|help' command", "OBJECT", "HELP",
               "x");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'object' command", "OBJECT");
    redisReply *r = H_CALL(c, "OBJECT", "HELP");
    CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 15 &&
              strcmp(r->element[0]->str,
                     "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:") == 0,
          "OBJECT HELP: Redis's 15 lines");
    freeReplyObject(r);
    redisFree(c);
}

/* TYPE, OBJECT, COPY (deep), RENAME, MOVE and SCAN ... TYPE on a hash and
 * sets loaded from a snapshot. */
static void test_maps_generic(void)
{
    static const char *const h[] = {"a", "1", "b", "2"};
    static const char *const ints[] = {"1", "2"};
    static const char *const set[] = {"x", "y"};
    unsigned char rec[1024];
    size_t n = h_snapshot_map(rec, 1, "h", 2, h);
    n += h_snapshot_map(rec + n, 0, "ints", 2, ints);
    n += h_snapshot_map(rec + n, 0, "s", 2, set);
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    h_close(&s, c);
    CHECK(h_write_snapshot(&s, rec, n) == 0, "writing the snapshot");
    c = h_reopen(&s, NULL);
    if (!c)
        return;
    EXPECT_STATUS(c, "hash", "TYPE", "h");
    EXPECT_STATUS(c, "set", "TYPE", "s");
    EXPECT_BULK(c, "listpack", "OBJECT", "ENCODING", "h");
    EXPECT_BULK(c, "listpack", "OBJECT", "ENCODING", "s");
    EXPECT_BULK(c, "intset", "OBJECT", "ENCODING", "ints");
    EXPECT_INT(c, 1, "OBJECT", "REFCOUNT", "h");
    EXPECT_REPLY(c, "['0', ['h']]", "SCAN", "0", "TYPE", "hash");
    EXPECT_REPLY(c, "['0', ['ints', 's']]", "SCAN", "0", "TYPE", "set");
    EXPECT_REPLY(c, "['0', ['ints']]", "SCAN", "0", "MATCH", "i*", "TYPE", "SET");
    redisReply *before = H_CALL(c, "DEBUG", "DIGEST-VALUE", "h", "s");
    /* COPY: deep, so the copies outlive the originals (ASan sees a shared map). */
    EXPECT_INT(c, 1, "COPY", "h", "h2");
    EXPECT_INT(c, 1, "COPY", "s", "s2", "DB", "3");
    EXPECT_INT(c, 1, "EXPIRE", "h2", "100");
    EXPECT_INT(c, 1, "COPY", "h2", "h3");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "h3");
    EXPECT_INT(c, 0, "COPY", "s", "h3");
    EXPECT_INT(c, 1, "COPY", "s", "h3", "REPLACE");
    EXPECT_STATUS(c, "set", "TYPE", "h3");
    EXPECT_INT(c, -1, "TTL", "h3");
    EXPECT_INT(c, 2, "DEL", "h", "s");
    EXPECT_OK(c, "RENAME", "h2", "h");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "h");
    EXPECT_INT(c, 1, "PERSIST", "h");
    EXPECT_OK(c, "SELECT", "3");
    EXPECT_OK(c, "RENAME", "s2", "s");
    EXPECT_INT(c, 1, "MOVE", "s", "0");
    EXPECT_OK(c, "SELECT", "0");
    EXPECT_STATUS(c, "set", "TYPE", "s");
    redisReply *after = H_CALL(c, "DEBUG", "DIGEST-VALUE", "h", "s");
    CHECK(before && after && before->type == REDIS_REPLY_ARRAY &&
              after->type == REDIS_REPLY_ARRAY && before->elements == 2 &&
              after->elements == 2 &&
              strcmp(before->element[0]->str, after->element[0]->str) == 0 &&
              strcmp(before->element[1]->str, after->element[1]->str) == 0,
          "the copied, renamed and moved values digest as the originals");
    freeReplyObject(before);
    freeReplyObject(after);
    h_close(&s, c);
    h_clean_dir(&s);
}

/* COPY's copy is its own: writes to it leave the original; RENAME, MOVE,
 * TYPE and SCAN ... TYPE on maps written by commands. Needs the hash and
 * set commands. */
static void test_maps_commands(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 2, "HSET", "h", "f", "v", "g", "w");
    EXPECT_INT(c, 2, "SADD", "s", "m", "n");
    EXPECT_INT(c, 1, "COPY", "h", "h2");
    EXPECT_INT(c, 1, "COPY", "s", "s2");
    EXPECT_INT(c, 0, "HSET", "h2", "f", "changed");
    EXPECT_INT(c, 1, "SADD", "s2", "o");
    EXPECT_BULK(c, "v", "HGET", "h", "f");
    EXPECT_INT(c, 2, "SCARD", "s");
    EXPECT_INT(c, 3, "SCARD", "s2");
    EXPECT_OK(c, "RENAME", "h2", "hr");
    EXPECT_STATUS(c, "hash", "TYPE", "hr");
    EXPECT_BULK(c, "changed", "HGET", "hr", "f");
    EXPECT_INT(c, 1, "MOVE", "s2", "1");
    EXPECT_REPLY(c, "['0', ['h', 'hr']]", "SCAN", "0", "TYPE", "hash");
    EXPECT_REPLY(c, "['0', ['s']]", "SCAN", "0", "TYPE", "set");
    EXPECT_OK(c, "SELECT", "1");
    EXPECT_STATUS(c, "set", "TYPE", "s2");
    EXPECT_INT(c, 3, "SCARD", "s2");
    EXPECT_OK(c, "SELECT", "0");
    EXPECT_BULK(c, "listpack", "OBJECT", "ENCODING", "h");
    for (int i = 0; i < 200; i++) {
        char f[16];
        snprintf(f, sizeof(f), "%d", i);
        H_APPEND(c, "SADD", "ints", f);
    }
    for (int i = 0; i < 200; i++)
        freeReplyObject(h_get_reply(c));
    EXPECT_BULK(c, "intset", "OBJECT", "ENCODING", "ints");
    EXPECT_INT(c, 1, "SADD", "ints", "x");
    EXPECT_BULK(c, "rbtree", "OBJECT", "ENCODING", "ints");
    redisFree(c);
}

static void test_touch_randomkey_dbsize(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_NIL(c, "RANDOMKEY");
    EXPECT_INT(c, 0, "DBSIZE");
    EXPECT_OK(c, "SET", "only", "1");
    EXPECT_BULK(c, "only", "RANDOMKEY");
    EXPECT_OK(c, "MSET", "a", "1", "b", "2", "c", "3");
    EXPECT_INT(c, 4, "DBSIZE");
    EXPECT_INT(c, 2, "TOUCH", "a", "b", "nope");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'touch' command", "TOUCH");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'randomkey' command", "RANDOMKEY", "x");

    /* Every draw is a key that exists, and over many draws each key shows up. */
    int seen[4] = {0};
    static const char *keys[] = {"only", "a", "b", "c"};
    for (int i = 0; i < RANDOMKEY_DRAWS; i++) {
        redisReply *r = H_CALL(c, "RANDOMKEY");
        int found = 0;
        for (int k = 0; r && r->type == REDIS_REPLY_STRING && k < 4; k++) {
            if (!strcmp(r->str, keys[k])) {
                seen[k]++;
                found = 1;
            }
        }
        freeReplyObject(r);
        if (!CHECK(found, "RANDOMKEY returned something that is not a key"))
            break;
    }
    CHECK(seen[0] && seen[1] && seen[2] && seen[3],
          "RANDOMKEY in %d draws: only=%d a=%d b=%d c=%d", RANDOMKEY_DRAWS, seen[0], seen[1],
          seen[2], seen[3]);
    redisFree(c);
}

static void test_flush(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_OK(c, "SET", "a", "1");
    EXPECT_OK(c, "SELECT", "3");
    EXPECT_OK(c, "SET", "b", "2");
    EXPECT_OK(c, "FLUSHDB");
    EXPECT_INT(c, 0, "DBSIZE");
    EXPECT_OK(c, "SELECT", "0");
    EXPECT_INT(c, 1, "DBSIZE"); /* FLUSHDB only empties the selected one */
    EXPECT_OK(c, "SELECT", "3");
    EXPECT_OK(c, "SET", "b", "2");
    EXPECT_OK(c, "FLUSHALL", "ASYNC");
    EXPECT_INT(c, 0, "DBSIZE");
    EXPECT_OK(c, "SELECT", "0");
    EXPECT_INT(c, 0, "DBSIZE");
    EXPECT_OK(c, "FLUSHDB", "SYNC");
    EXPECT_OK(c, "FLUSHALL", "sync");
    EXPECT_OK(c, "FLUSHDB", "async");
    EXPECT_ERR(c, "ERR syntax error", "FLUSHALL", "foo");
    EXPECT_ERR(c, "ERR syntax error", "FLUSHDB", "a", "b");
    redisFree(c);
}

static void test_expire_family(void)
{
    redisContext *c = h_connect_flushed(&srv);
    char at[32];
    EXPECT_INT(c, 0, "EXPIRE", "nope", "10");
    EXPECT_INT(c, 0, "PEXPIRE", "nope", "10");
    EXPECT_OK(c, "SET", "k", "v");
    EXPECT_INT(c, -1, "TTL", "k");
    EXPECT_INT(c, -1, "PTTL", "k");
    EXPECT_INT(c, -2, "TTL", "nope");
    EXPECT_INT(c, -2, "PTTL", "nope");

    EXPECT_INT(c, 1, "EXPIRE", "k", "100");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "k");
    EXPECT_INT_RANGE(c, 99000, 100000, "PTTL", "k");
    EXPECT_INT(c, 1, "PEXPIRE", "k", "200000");
    EXPECT_INT_RANGE(c, 199000, 200000, "PTTL", "k");
    snprintf(at, sizeof(at), "%lld", (long long)time(NULL) + 300);
    EXPECT_INT(c, 1, "EXPIREAT", "k", at);
    EXPECT_INT_RANGE(c, 298, 300, "TTL", "k");
    EXPECT_INT(c, atoll(at), "EXPIRETIME", "k");
    snprintf(at, sizeof(at), "%lld", ((long long)time(NULL) + 400) * 1000);
    EXPECT_INT(c, 1, "PEXPIREAT", "k", at);
    EXPECT_INT_RANGE(c, 398, 400, "TTL", "k");
    EXPECT_INT(c, atoll(at), "PEXPIRETIME", "k");
    EXPECT_INT(c, atoll(at) / 1000, "EXPIRETIME", "k");
    EXPECT_INT(c, -2, "EXPIRETIME", "nope");
    EXPECT_INT(c, -2, "PEXPIRETIME", "nope");

    EXPECT_INT(c, 1, "PERSIST", "k");
    EXPECT_INT(c, 0, "PERSIST", "k");
    EXPECT_INT(c, 0, "PERSIST", "nope");
    EXPECT_INT(c, -1, "TTL", "k");
    EXPECT_INT(c, -1, "EXPIRETIME", "k");
    EXPECT_INT(c, -1, "PEXPIRETIME", "k");

    /* NX XX GT LT; a key without TTL counts as an infinite one. */
    EXPECT_INT(c, 0, "EXPIRE", "k", "100", "XX");
    EXPECT_INT(c, 0, "EXPIRE", "k", "100", "GT");
    EXPECT_INT(c, 1, "EXPIRE", "k", "100", "NX");
    EXPECT_INT(c, 0, "EXPIRE", "k", "100", "NX");
    EXPECT_INT(c, 0, "EXPIRE", "k", "50", "GT");
    EXPECT_INT(c, 1, "EXPIRE", "k", "200", "gt");
    EXPECT_INT(c, 0, "EXPIRE", "k", "300", "LT");
    EXPECT_INT(c, 1, "EXPIRE", "k", "150", "LT");
    EXPECT_INT(c, 1, "EXPIRE", "k", "120", "XX");
    EXPECT_INT_RANGE(c, 119, 120, "TTL", "k");
    EXPECT_INT(c, 1, "PEXPIRE", "k", "130000", "XX", "GT");
    EXPECT_INT(c, 0, "PEXPIRE", "k", "100", "NX");
    EXPECT_OK(c, "SET", "p", "v");
    EXPECT_INT(c, 1, "EXPIRE", "p", "100", "LT");
    EXPECT_INT_RANGE(c, 99, 100, "TTL", "p");
    EXPECT_ERR(c, "ERR NX and XX, GT or LT options at the same time are not compatible", "EXPIRE",
               "k", "10", "NX", "XX");
    EXPECT_ERR(c, "ERR NX and XX, GT or LT options at the same time are not compatible", "EXPIRE",
               "k", "10", "NX", "GT");
    EXPECT_ERR(c, "ERR GT and LT options at the same time are not compatible", "EXPIRE", "k", "10",
               "GT", "LT");
    EXPECT_ERR(c, "ERR Unsupported option FOO", "EXPIRE", "k", "10", "FOO");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "EXPIRE", "k", "abc");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "PEXPIRE", "k", "1.5");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "EXPIREAT", "k", "");
    EXPECT_ERR(c, "ERR invalid expire time in 'expire' command", "EXPIRE", "k",
               "9223372036854775807");
    EXPECT_ERR(c, "ERR invalid expire time in 'expire' command", "EXPIRE", "k",
               "-9223372036854775808");
    EXPECT_ERR(c, "ERR invalid expire time in 'pexpire' command", "PEXPIRE", "k",
               "9223372036854775807");
    EXPECT_ERR(c, "ERR invalid expire time in 'expireat' command", "EXPIREAT", "k",
               "9223372036854775807");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'expire' command", "EXPIRE", "k");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'ttl' command", "TTL", "a", "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'persist' command", "PERSIST");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'expiretime' command", "EXPIRETIME");
    EXPECT_INT_RANGE(c, 129, 130, "TTL", "k"); /* failed calls changed nothing */
    /* PEXPIREAT takes the full range: nothing is multiplied. */
    EXPECT_INT(c, 1, "PEXPIREAT", "k", "9223372036854775807");
    EXPECT_INT(c, 9223372036854775807LL, "PEXPIRETIME", "k");

    /* A TTL of zero or less, or a past deadline, deletes the key at once. */
    EXPECT_INT(c, 1, "EXPIRE", "k", "0");
    EXPECT_INT(c, 0, "EXISTS", "k");
    EXPECT_OK(c, "SET", "k", "v");
    EXPECT_INT(c, 1, "PEXPIRE", "k", "-1");
    EXPECT_INT(c, 0, "EXISTS", "k");
    EXPECT_OK(c, "SET", "k", "v");
    EXPECT_INT(c, 1, "EXPIREAT", "k", "-5");
    EXPECT_NIL(c, "GET", "k");
    EXPECT_OK(c, "SET", "k", "v", "EX", "100");
    EXPECT_INT(c, 1, "PEXPIREAT", "k", "1", "XX", "LT");
    EXPECT_INT(c, 0, "EXISTS", "k");
    redisFree(c);
}

static void test_time(void)
{
    redisContext *c = h_connect(&srv);
    redisReply *r = H_CALL(c, "TIME");
    if (CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
                  r->element[0]->type == REDIS_REPLY_STRING &&
                  r->element[1]->type == REDIS_REPLY_STRING,
              "TIME: expected two bulks")) {
        long long sec = atoll(r->element[0]->str), usec = atoll(r->element[1]->str);
        CHECK(llabs(sec - (long long)time(NULL)) <= 2, "TIME seconds %lld, now %lld", sec,
              (long long)time(NULL));
        CHECK(usec >= 0 && usec < 1000000, "TIME microseconds %lld", usec);
    }
    freeReplyObject(r);
    EXPECT_ERR(c, "ERR wrong number of arguments for 'time' command", "TIME", "x");
    redisFree(c);
}

static void test_info(void)
{
    redisContext *c = h_connect_flushed(&srv);
    char val[256];
    redisReply *r = info(c, NULL);
    if (r) {
        static const char *sections[] = {"# Server\r\n", "# Clients\r\n", "# Memory\r\n",
                                         "# Stats\r\n", "# Keyspace\r\n"};
        CHECK(!strncmp(r->str, "# Server\r\n", 10), "INFO must open with # Server");
        for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
            CHECK(strstr(r->str, sections[i]) != NULL, "INFO lacks %.*s",
                  (int)strlen(sections[i]) - 2, sections[i]);
        CHECK(h_info_field(r->str, "redis_version", val, sizeof(val)) == 0 && val[0] == '7',
              "INFO redis_version: expected 7.x, got %s", val);
        CHECK(h_info_field(r->str, "used_memory", val, sizeof(val)) == 0 && atoll(val) > 0,
              "INFO used_memory: expected a positive number");
        CHECK(h_info_field(r->str, "tcp_port", val, sizeof(val)) == 0 && atoi(val) == srv.port,
              "INFO tcp_port: expected %d", srv.port);
    }
    freeReplyObject(r);

    /* Keyspace: a line per database that has keys. */
    EXPECT_OK(c, "SET", "a", "1", "EX", "100");
    EXPECT_OK(c, "SET", "b", "2");
    EXPECT_OK(c, "SELECT", "2");
    EXPECT_OK(c, "SET", "c", "3");
    EXPECT_OK(c, "SELECT", "0");
    EXPECT_MATCH(c, "'# Keyspace\\r\\ndb0:keys=2,expires=1,avg_ttl=*\\r\\n"
                    "db2:keys=1,expires=0,avg_ttl=0\\r\\n'",
                 "INFO", "keyspace");
    r = info(c, "keyspace");
    if (r && h_info_field(r->str, "db0", val, sizeof(val)) == 0) {
        long long avg = atoll(strstr(val, "avg_ttl=") + 8);
        CHECK(avg >= 0 && avg <= 100000, "db0 avg_ttl %lld: expected 0..100000", avg);
    }
    freeReplyObject(r);
    EXPECT_OK(c, "FLUSHALL");
    EXPECT_BULK(c, "# Keyspace\\r\\n", "INFO", "keyspace");

    /* Sections by name; several at once; unknown ones are empty. */
    EXPECT_MATCH(c, "'# Memory\\r\\nused_memory:*'", "INFO", "memory");
    EXPECT_MATCH(c, "'# Clients\\r\\nconnected_clients:*'", "INFO", "CLIENTS");
    r = H_CALL(c, "INFO", "keyspace", "stats");
    CHECK(r && r->type == REDIS_REPLY_STRING && strstr(r->str, "# Stats\r\n") &&
              strstr(r->str, "# Keyspace\r\n") && !strstr(r->str, "# Server"),
          "INFO keyspace stats: expected exactly those two sections");
    freeReplyObject(r);
    EXPECT_BULK(c, "", "INFO", "nosuchsection");
    redisFree(c);
}

/* Checks that CONFIG GET pattern returns name/value pairs whose names all
 * match, among them want_name = want_value. */
static void expect_config_pair(redisContext *c, const char *pattern, const char *want_name,
                               const char *want_value)
{
    redisReply *r = H_CALL(c, "CONFIG", "GET", pattern);
    int found = 0, names_match = 1;
    if (CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements % 2 == 0,
              "CONFIG GET %s: expected a flat array of pairs", pattern)) {
        for (size_t i = 0; i + 1 < r->elements; i += 2) {
            const char *name = r->element[i]->str, *value = r->element[i + 1]->str;
            names_match &= h_glob(pattern, name, strlen(name));
            found |= !strcmp(name, want_name) && !strcmp(value, want_value);
        }
        CHECK(names_match, "CONFIG GET %s returned a name that does not match", pattern);
        CHECK(found, "CONFIG GET %s lacks %s = %s", pattern, want_name, want_value);
    }
    freeReplyObject(r);
}

static void test_config(void)
{
    redisContext *c = h_connect(&srv);
    char port[16];
    snprintf(port, sizeof(port), "%d", srv.port);
    EXPECT_REPLY(c, "['maxmemory', '0']", "CONFIG", "GET", "maxmemory");
    /* An exact name comes back as it was asked for. */
    EXPECT_REPLY(c, "['DATABASES', '16']", "config", "get", "DATABASES");
    EXPECT_REPLY(c, "[]", "CONFIG", "GET", "nonexistent");
    EXPECT_REPLY(c, "['requirepass', '']", "CONFIG", "GET", "requirepass");
    expect_config_pair(c, "maxmemory*", "maxmemory", "0");
    expect_config_pair(c, "maxmemory*", "maxmemory-policy", "noeviction");
    expect_config_pair(c, "*", "port", port);
    expect_config_pair(c, "*", "timeout", "0");
    expect_config_pair(c, "maxclient*", "maxclients", "10000");
    /* Several parameters at once (Redis 7). */
    expect_config_pair(c, "timeout", "timeout", "0");
    redisReply *r = H_CALL(c, "CONFIG", "GET", "timeout", "maxclients");
    CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 4,
          "CONFIG GET timeout maxclients: expected two pairs");
    freeReplyObject(r);

    EXPECT_OK(c, "CONFIG", "SET", "timeout", "10");
    EXPECT_REPLY(c, "['timeout', '10']", "CONFIG", "GET", "timeout");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "1gb");
    EXPECT_REPLY(c, "['maxmemory', '1073741824']", "CONFIG", "GET", "maxmemory");
    EXPECT_OK(c, "CONFIG", "SET", "timeout", "5", "maxmemory", "0");
    EXPECT_REPLY(c, "['timeout', '5']", "CONFIG", "GET", "timeout");
    EXPECT_REPLY(c, "['maxmemory', '0']", "CONFIG", "GET", "maxmemory");
    EXPECT_OK(c, "CONFIG", "SET", "hz", "0"); /* clamped to 1 */
    EXPECT_REPLY(c, "['hz', '1']", "CONFIG", "GET", "hz");
    EXPECT_OK(c, "CONFIG", "SET", "hz", "10");

    EXPECT_ERR(c, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'", "CONFIG",
               "SET", "foo", "bar");
    EXPECT_ERR(c, "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument "
                  "must be a memory value",
               "CONFIG", "SET", "maxmemory", "abc");
    EXPECT_ERR(c, "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument "
                  "must be between 0 and 2147483647 inclusive",
               "CONFIG", "SET", "timeout", "-1");
    EXPECT_ERR(c, "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument "
                  "couldn't be parsed into an integer",
               "CONFIG", "SET", "timeout", "abc");
    EXPECT_ERR(c, "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
                  "immutable config",
               "CONFIG", "SET", "databases", "5");
    /* The list of policies is what the server supports; the wording is Redis's. */
    EXPECT_MATCH(c, "-ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - "
                    "argument(s) must be one of the following: *noeviction*",
                 "CONFIG", "SET", "maxmemory-policy", "foo");
    EXPECT_ERR(c, "ERR CONFIG SET failed (possibly related to argument 'timeout') - duplicate "
                  "parameter",
               "CONFIG", "SET", "timeout", "1", "timeout", "2");
    EXPECT_ERR(c, "ERR syntax error", "CONFIG", "SET", "timeout", "0", "maxclients");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'config|set' command", "CONFIG", "SET",
               "timeout");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'config|get' command", "CONFIG", "GET");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'config' command", "CONFIG");
    EXPECT_ERR(c, "ERR unknown subcommand 'foo'. Try CONFIG HELP.", "CONFIG", "foo");
    /* A failed CONFIG SET changes nothing. */
    EXPECT_REPLY(c, "['timeout', '5']", "CONFIG", "GET", "timeout");
    EXPECT_OK(c, "CONFIG", "SET", "timeout", "0");

    /* RESETSTAT zeroes the counters INFO stats shows. */
    char val[64];
    EXPECT_OK(c, "SET", "hit", "1");
    EXPECT_BULK(c, "1", "GET", "hit");
    EXPECT_NIL(c, "GET", "miss");
    r = info(c, "stats");
    CHECK(r && h_info_field(r->str, "keyspace_hits", val, sizeof(val)) == 0 && atoll(val) >= 1,
          "keyspace_hits: expected at least 1 before CONFIG RESETSTAT");
    freeReplyObject(r);
    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    r = info(c, "stats");
    CHECK(r && h_info_field(r->str, "keyspace_hits", val, sizeof(val)) == 0 && !strcmp(val, "0"),
          "keyspace_hits after CONFIG RESETSTAT: expected 0");
    CHECK(r && h_info_field(r->str, "keyspace_misses", val, sizeof(val)) == 0 &&
              !strcmp(val, "0"),
          "keyspace_misses after CONFIG RESETSTAT: expected 0");
    freeReplyObject(r);
    EXPECT_ERR(c, "ERR wrong number of arguments for 'config|resetstat' command", "CONFIG",
               "RESETSTAT", "x");
    EXPECT_INT(c, 1, "DEL", "hit");
    redisFree(c);
}

static void test_select_isolation(void)
{
    redisContext *a = h_connect_flushed(&srv), *b = h_connect(&srv);
    EXPECT_OK(a, "SET", "k", "db0");
    EXPECT_OK(b, "SELECT", "1");
    EXPECT_NIL(b, "GET", "k");
    EXPECT_INT(b, 0, "DBSIZE");
    EXPECT_OK(b, "SET", "k", "db1");
    EXPECT_BULK(a, "db0", "GET", "k"); /* each connection keeps its own database */
    EXPECT_BULK(b, "db1", "GET", "k");
    EXPECT_INT(a, 1, "DEL", "k");
    EXPECT_BULK(b, "db1", "GET", "k");
    EXPECT_OK(a, "SELECT", "15");
    EXPECT_INT(a, 0, "EXISTS", "k");
    EXPECT_OK(a, "SELECT", "1");
    EXPECT_BULK(a, "db1", "GET", "k");
    /* A new connection starts in database 0. */
    redisContext *c = h_connect(&srv);
    EXPECT_NIL(c, "GET", "k");
    redisFree(c);
    redisFree(a);
    redisFree(b);
}

/* used_memory follows the data, and maxmemory (noeviction) refuses writes
 * that can grow memory while reads and deletes go on working. */
static long long used_memory(redisContext *c)
{
    char field[64] = "";
    redisReply *r = H_CALL(c, "INFO", "memory");
    if (r && r->type == REDIS_REPLY_STRING)
        h_info_field(r->str, "used_memory", field, sizeof(field));
    freeReplyObject(r);
    return atoll(field);
}

static void test_maxmemory(void)
{
    redisContext *c = h_connect_flushed(&srv);
    long long before = used_memory(c);
    char value[200];
    memset(value, 'v', sizeof(value));
    for (int i = 0; i < 1000; i++) {
        char key[32];
        snprintf(key, sizeof(key), "mem:%d", i);
        redisReply *r = H_CALL_BIN(c, H_S("SET"), H_B(key, strlen(key)), H_B(value, sizeof(value)));
        freeReplyObject(r);
    }
    long long grown = used_memory(c);
    CHECK(grown - before >= 1000 * 200, "used_memory grew by %lld bytes for 200 KB of values",
          grown - before);
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "1");
    EXPECT_ERR(c, "OOM command not allowed when used memory > 'maxmemory'.", "SET", "x", "y");
    EXPECT_ERR(c, "OOM command not allowed when used memory > 'maxmemory'.", "APPEND", "mem:1",
               "y");
    EXPECT_INT(c, 200, "STRLEN", "mem:1");
    EXPECT_INT(c, 1, "DEL", "mem:1");
    EXPECT_OK(c, "CONFIG", "SET", "maxmemory", "0");
    EXPECT_OK(c, "SET", "x", "y");
    EXPECT_OK(c, "FLUSHALL");
    long long after = used_memory(c);
    CHECK(after < grown - 1000 * 200, "used_memory %lld after FLUSHALL (was %lld)", after, grown);
    redisFree(c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_del_exists_type);
    H_RUN(test_rename_copy_move);
    H_RUN(test_object);
    H_RUN(test_maps_generic);
    H_RUN(test_maps_commands);
    H_RUN(test_touch_randomkey_dbsize);
    H_RUN(test_flush);
    H_RUN(test_expire_family);
    H_RUN(test_time);
    H_RUN(test_info);
    H_RUN(test_config);
    H_RUN(test_select_isolation);
    H_RUN(test_maxmemory);
    h_stop(&srv);
    return h_finish();
}
