/*
 * test_function.c - end-to-end tests of FUNCTION and FCALL
 * (server/commands/cmd_function.c, server/core/functions.c,
 * function_lua.c): every subcommand and its errors compared with
 * redis-server 7 when one is installed (h_start_comparison), FCALL and
 * FCALL_RO with flags, DUMP/RESTORE round trips and bad payloads, and the
 * libraries surviving DEBUG RELOAD, a restart from the snapshot and one
 * from the append-only log.
 *
 * A library registers its functions in Redis's dictionary order, which is
 * not rbkv's sorted order, so the comparisons load one function per
 * library where FUNCTION LIST shows them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static struct h_server srv, ref;
static int have_ref;

#define LIB1                                                                                      \
    "#!lua name=lib1\n"                                                                           \
    "redis.register_function('f1', function(keys, args) return #keys + #args end)\n"            \
    "redis.register_function{function_name='getit', flags={'no-writes'},\n"                        \
    "  callback=function(keys) return redis.call('get', keys[1]) end}"
#define LIB2                                                                                      \
    "#!lua name=lib2\n"                                                                           \
    "redis.register_function{function_name='setit', callback=function(keys, args)\n"              \
    "  return redis.call('set', keys[1], args[1]) end, description='sets a key'}"
#define LIB3                                                                                      \
    "#!lua name=lib3\n"                                                                           \
    "redis.register_function{function_name='ro', callback=function(keys, args)\n"                \
    "  return redis.call('set', keys[1], 'x') end, flags={'no-writes'}}"

/* Both servers with no library and no key. */
static redisContext *open_pair(redisContext **r)
{
    redisContext *c = h_connect_pair(&srv, have_ref ? &ref : NULL, r);
    H_SAME(c, *r, "FUNCTION", "FLUSH");
    return c;
}

static void load_three(redisContext *c, redisContext *r)
{
    H_SAME(c, r, "FUNCTION", "LOAD", LIB1);
    H_SAME(c, r, "FUNCTION", "LOAD", LIB2);
    H_SAME(c, r, "FUNCTION", "LOAD", LIB3);
}

/* The engine's state is made by the first load (freed by FUNCTION FLUSH):
 * every path that reaches the registry works with none, and a server with
 * no library holds no Lua heap in used_memory. Runs first, on a fresh
 * server. */
static void test_no_state(void)
{
    redisContext *r = have_ref ? h_connect_flushed(&ref) : NULL;
    redisContext *c = h_connect_flushed(&srv);
    int ours = !h_is_reference();
    if (ours)
        CHECK(h_info_ll(c, "memory", "used_memory_vm_functions") == 0,
              "no Lua state at start");
    H_SAME(c, r, "FUNCTION", "LIST");
    H_SAME(c, r, "FUNCTION", "STATS");
    H_SAME(c, r, "FCALL", "nosuch", "0");
    H_SAME(c, r, "FCALL_RO", "nosuch", "0");
    H_SAME(c, r, "FUNCTION", "DELETE", "nosuch");
    H_SAME(c, r, "FUNCTION", "FLUSH");
    EXPECT_OK(c, "DEBUG", "RELOAD");
    H_SAME(c, r, "FUNCTION", "LIST");
    redisReply *dump = redisCommand(c, "FUNCTION DUMP");
    if (CHECK(dump && dump->type == REDIS_REPLY_STRING, "FUNCTION DUMP with none")) {
        redisReply *x = redisCommand(c, "FUNCTION RESTORE %b FLUSH", dump->str, dump->len);
        CHECK(x && x->type == REDIS_REPLY_STATUS, "RESTORE of nothing: %s",
              x && x->str ? x->str : "(none)");
        freeReplyObject(x);
    }
    freeReplyObject(dump);
    if (ours)
        CHECK(h_info_ll(c, "memory", "used_memory_vm_functions") == 0,
              "still no Lua state after the paths that need none");
    H_SAME(c, r, "FUNCTION", "LOAD", LIB1);
    H_SAME(c, r, "FCALL", "f1", "1", "a", "b");
    if (ours)
        CHECK(h_info_ll(c, "memory", "used_memory_vm_functions") > 0, "a load makes the state");
    EXPECT_OK(c, "DEBUG", "RELOAD");
    EXPECT_INT(c, 2, "FCALL", "f1", "1", "a", "b");
    H_SAME(c, r, "FUNCTION", "FLUSH");
    if (ours)
        CHECK(h_info_ll(c, "memory", "used_memory_vm_functions") == 0, "FLUSH frees the state");
    H_SAME(c, r, "FUNCTION", "LOAD", LIB2);
    H_SAME(c, r, "FCALL", "setit", "1", "k", "v");
    H_SAME(c, r, "FUNCTION", "FLUSH");
    h_close_pair(c, r);
}

static void test_load_errors(void)
{
    redisContext *r, *c = open_pair(&r);
    static const char *const codes[] = {
        "local x = 1",
        "#!lua",
        "#!lua\nlocal x = 1",
        "#!lua name=a-b\nlocal x = 1",
        "#!js name=ab\nlocal x = 1",
        "#!lua name=ab foo=bar\nlocal x = 1",
        "#!lua name=ab name=c\nlocal x = 1",
        "#!lua name=ab\nlocal x = 1",
        "#!lua name=ab\nredis.call('ping')",
        "#!lua name=ab\nstring.format('x')",
        "#!lua name=ab\nx = 5",
        "#!lua name=ab\nredis.register_function('f-1', function() end)",
        "#!lua name=ab\nredis.register_function('z', function() end) "
        "redis.register_function('z', function() end)",
        "#!lua name=ab\nredis.register_function{function_name='z', callback=function() end, "
        "flags={'bogus'}}",
        "#!lua name=ab\nredis.register_function{function_name='z'}",
        "#!lua name=ab\nredis.register_function{callback=function() end}",
        "#!lua name=ab\nredis.register_function{function_name='z', callback=function() end, "
        "foo=1}",
        "#!lua name=ab\nredis.register_function('z')",
        "#!lua name=ab\nredis.register_function(1, 2, 3)",
        "#!lua name=ab\nredis.register_function(5)",
        "#!lua name=ab\nsyntax error here",
        "#!lua name=ab\nredis.setresp(3)",
        "#!lua name=ab\nredis.log(redis.LOG_WARNING, 'loading') "
        "redis.register_function('zz', function() return 1 end)",
    };
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
        H_SAME(c, r, "FUNCTION", "LOAD", codes[i]);
    /* A load that never ends is stopped after 500 ms, and leaves nothing. */
    int64_t start = h_now_ms();
    H_SAME(c, r, "FUNCTION", "LOAD", "#!lua name=slow\nlocal i = 0 while true do i = i + 1 end");
    CHECK(h_now_ms() - start < 5000 * H_SLOW, "the endless load took %lld ms",
          (long long)(h_now_ms() - start));
    H_SAME(c, r, "FUNCTION", "LIST");
    H_SAME(c, r, "FUNCTION", "LOAD");
    H_SAME(c, r, "FUNCTION", "LOAD", "REPLACE");
    H_SAME(c, r, "FUNCTION", "LOAD", "foo", LIB1);
    H_SAME(c, r, "FUNCTION", "LOAD", LIB1);
    H_SAME(c, r, "FUNCTION", "LOAD", LIB1);
    H_SAME(c, r, "FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('F1', "
                                   "function() return 2 end)");
    H_SAME(c, r, "FUNCTION", "LOAD", "replace", LIB1);
    H_SAME(c, r, "FCALL", "F1", "0");
    h_close_pair(c, r);
}

static void test_subcommand_errors(void)
{
    redisContext *r, *c = open_pair(&r);
    static const char *const lines[][5] = {
        {"FUNCTION", "DELETE"},
        {"FUNCTION", "DELETE", "nope"},
        {"FUNCTION", "DELETE", "a", "b"},
        {"FUNCTION", "FLUSH", "foo"},
        {"FUNCTION", "FLUSH", "async", "x"},
        {"FUNCTION", "FLUSH", "SYNC"},
        {"FUNCTION", "FLUSH", "async"},
        {"FUNCTION", "LIST", "foo"},
        {"FUNCTION", "LIST", "libraryname"},
        {"FUNCTION", "LIST", "withcode", "withcode"},
        {"FUNCTION", "LIST", "libraryname", "a", "libraryname"},
        {"FUNCTION", "STATS", "x"},
        {"FUNCTION", "KILL"},
        {"FUNCTION", "DUMP", "x"},
        {"FUNCTION", "RESTORE"},
        {"FUNCTION", "RESTORE", "abc"},
        {"FUNCTION", "RESTORE", "abc", "foo"},
        {"FUNCTION", "RESTORE", "abc", "flush", "x"},
        {"FUNCTION", "NOPE"},
        {"FUNCTION"},
        {"FUNCTION", "HELP", "x"},
        {"FCALL"},
        {"FCALL", "f"},
        {"FCALL", "f", "0"},
        {"FCALL_RO", "f", "0"},
        {"FUNCTION", "STATS"},
        {"FUNCTION", "LIST"},
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        int argc = 0;
        while (argc < 5 && lines[i][argc])
            argc++;
        h_same(__FILE__, __LINE__, c, r, argc, lines[i], NULL);
    }
    H_SAME(c, r, "FUNCTION", "HELP");
    h_close_pair(c, r);
}

static void test_list_and_stats(void)
{
    redisContext *r, *c = open_pair(&r);
    load_three(c, r);
    H_SAME(c, r, "FUNCTION", "LIST", "LIBRARYNAME", "lib2");
    H_SAME(c, r, "FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "lib3");
    H_SAME(c, r, "FUNCTION", "LIST", "LIBRARYNAME", "nomatch*");
    H_SAME(c, r, "FUNCTION", "STATS");
    /* rbkv lists libraries by name */
    EXPECT_MATCH(c, "[['library_name', 'lib1', *], ['library_name', 'lib2', *], ['library_name', 'lib3', *]]",
                 "FUNCTION", "LIST");
    CHECK(h_info_ll(c, "memory", "number_of_functions") == 4 &&
              h_info_ll(c, "memory", "number_of_libraries") == 3 &&
              h_info_ll(c, "memory", "used_memory_functions") > 0 &&
              h_info_ll(c, "memory", "used_memory_vm_functions") > 0,
          "INFO memory's function figures");
    if (r)
        CHECK(h_info_ll(r, "memory", "number_of_functions") == 4 &&
                  h_info_ll(r, "memory", "number_of_libraries") == 3,
              "redis-server counts the same");
    H_SAME(c, r, "FUNCTION", "DELETE", "lib1");
    H_SAME(c, r, "FCALL", "f1", "0");
    H_SAME(c, r, "FUNCTION", "STATS");
    CHECK(h_info_ll(c, "memory", "number_of_functions") == 2, "a deleted library's functions");
    h_close_pair(c, r);
}

static void test_fcall(void)
{
    redisContext *r, *c = open_pair(&r);
    load_three(c, r);
    H_SAME(c, r, "FCALL", "f1", "2", "a", "b", "c");
    H_SAME(c, r, "FCALL", "f1", "x");
    H_SAME(c, r, "FCALL", "f1", "4", "a");
    H_SAME(c, r, "FCALL", "f1", "-1");
    H_SAME(c, r, "FCALL", "setit", "1", "k", "v");
    H_SAME(c, r, "GET", "k");
    H_SAME(c, r, "FCALL_RO", "setit", "1", "k", "w");
    H_SAME(c, r, "FCALL", "ro", "1", "k");
    H_SAME(c, r, "FCALL_RO", "f1", "0");
    H_SAME(c, r, "FCALL_RO", "getit", "1", "k");
    /* At run time: the sandbox, but no register_function; globals read-only. */
    H_SAME(c, r, "FUNCTION", "LOAD",
         "#!lua name=rt\nlocal r = redis\n"
         "redis.register_function('reg', function() redis.register_function('x', print) end)\n"
         "redis.register_function('kept', function() r.register_function('x', print) end)\n"
         "redis.register_function('glob', function() return string.upper('a') .. type(cjson) end)\n"
         "redis.register_function('setg', function() x = 1 end)");
    H_SAME(c, r, "FCALL", "reg", "0");
    H_SAME(c, r, "FCALL", "kept", "0");
    H_SAME(c, r, "FCALL", "glob", "0");
    H_SAME(c, r, "FCALL", "setg", "0");
    H_SAME(c, r, "GET", "k");
    /* Inside MULTI: queued, then run in order; a load's error is EXEC's. */
    H_SAME(c, r, "MULTI");
    H_SAME(c, r, "FUNCTION", "DELETE", "lib3");
    H_SAME(c, r, "FUNCTION", "LOAD", LIB3);
    H_SAME(c, r, "FUNCTION", "LOAD", LIB3);
    H_SAME(c, r, "FCALL", "setit", "1", "k", "multi");
    H_SAME(c, r, "EXEC");
    H_SAME(c, r, "GET", "k");
    h_close_pair(c, r);
}

static void test_dump_restore(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_OK(c, "FUNCTION", "FLUSH");
    EXPECT_BULK(c, "lib1", "FUNCTION", "LOAD", LIB1);
    EXPECT_BULK(c, "lib2", "FUNCTION", "LOAD", LIB2);
    redisReply *dump = redisCommand(c, "FUNCTION DUMP");
    if (!CHECK(dump && dump->type == REDIS_REPLY_STRING, "FUNCTION DUMP gave no bulk")) {
        freeReplyObject(dump);
        redisFree(c);
        return;
    }
    redisReply *x = redisCommand(c, "FUNCTION RESTORE %b", dump->str, dump->len);
    CHECK(x && x->type == REDIS_REPLY_ERROR && strcmp(x->str, "ERR Library lib1 already exists") == 0,
          "RESTORE over the same libraries: %s", x ? x->str : "(none)");
    freeReplyObject(x);
    EXPECT_OK(c, "FUNCTION", "FLUSH");
    x = redisCommand(c, "FUNCTION RESTORE %b", dump->str, dump->len);
    CHECK(x && x->type == REDIS_REPLY_STATUS, "RESTORE into empty: %s", x ? x->str : "(none)");
    freeReplyObject(x);
    EXPECT_INT(c, 2, "FCALL", "f1", "1", "a", "b");
    x = redisCommand(c, "FUNCTION RESTORE %b REPLACE", dump->str, dump->len);
    CHECK(x && x->type == REDIS_REPLY_STATUS, "RESTORE REPLACE: %s", x ? x->str : "(none)");
    freeReplyObject(x);
    EXPECT_BULK(c, "lib3", "FUNCTION", "LOAD", LIB3);
    x = redisCommand(c, "FUNCTION RESTORE %b FLUSH", dump->str, dump->len);
    CHECK(x && x->type == REDIS_REPLY_STATUS, "RESTORE FLUSH: %s", x ? x->str : "(none)");
    freeReplyObject(x);
    EXPECT_ERR(c, "ERR Function not found", "FCALL", "ro", "0");
    /* A flipped byte fails the checksum; the registry stays. */
    dump->str[2] ^= 1;
    x = redisCommand(c, "FUNCTION RESTORE %b FLUSH", dump->str, dump->len);
    CHECK(x && x->type == REDIS_REPLY_ERROR &&
              strcmp(x->str, "ERR DUMP payload version or checksum are wrong") == 0,
          "corrupt payload: %s", x ? x->str : "(none)");
    freeReplyObject(x);
    EXPECT_INT(c, 0, "FCALL", "f1", "0");
    freeReplyObject(dump);
    redisFree(c);
}

/* The libraries after a reload, a restart from the snapshot and one from
 * the log. */
static void test_persistence(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_OK(c, "FUNCTION", "FLUSH");
    EXPECT_BULK(c, "lib1", "FUNCTION", "LOAD", LIB1);
    EXPECT_BULK(c, "lib2", "FUNCTION", "LOAD", LIB2);
    EXPECT_OK(c, "DEBUG", "RELOAD");
    EXPECT_INT(c, 1, "FCALL", "f1", "1", "a");
    EXPECT_MATCH(c, "*sets a key*", "FUNCTION", "LIST", "LIBRARYNAME", "lib2");
    EXPECT_OK(c, "SAVE");
    redisFree(c);
    h_stop(&srv);
    c = h_reopen(&srv, NULL);
    EXPECT_INT(c, 2, "FCALL", "f1", "2", "a", "b");
    EXPECT_OK(c, "FCALL", "setit", "1", "k", "v");
    redisFree(c);

    static const char *const aof[] = {"--appendonly", "yes", NULL};
    h_stop(&srv);
    c = h_reopen(&srv, aof);
    EXPECT_OK(c, "FUNCTION", "DELETE", "lib1");
    EXPECT_BULK(c, "lib3", "FUNCTION", "LOAD", LIB3);
    /* A call is logged as what it did: the SET, never the FCALL. */
    EXPECT_OK(c, "FCALL", "setit", "1", "k", "from-fcall");
    CHECK(h_file_has(&srv, "appendonly.aof", "from-fcall") &&
              !h_file_has(&srv, "appendonly.aof", "FCALL"),
          "the log should hold FCALL's SET, not the FCALL");
    redisFree(c);
    h_stop(&srv);
    c = h_reopen(&srv, aof);
    EXPECT_ERR(c, "ERR Function not found", "FCALL", "f1", "0");
    EXPECT_BULK(c, "from-fcall", "GET", "k");
    EXPECT_MATCH(c, "*Write commands are not allowed from read-only scripts*", "FCALL", "ro", "1",
                 "k");
    EXPECT_STATUS(c, "Background append only file rewriting started", "BGREWRITEAOF");
    CHECK(h_wait_info(c, "persistence", "aof_rewrite_in_progress", "0", 30000 * H_SLOW),
          "the rewrite did not end");
    CHECK(h_file_has(&srv, "appendonly.aof", "FUNCTION") &&
              !h_file_has(&srv, "appendonly.aof", "DELETE"),
          "the rewritten log should load the libraries and hold no DELETE");
    redisFree(c);
    h_stop(&srv);
    c = h_reopen(&srv, aof);
    EXPECT_MATCH(c, "[['library_name', 'lib2', *], ['library_name', 'lib3', *]]", "FUNCTION", "LIST");
    redisFree(c);
}

/* A function looping past busy-reply-threshold: other clients get -BUSY
 * but for FUNCTION STATS (which names it) and FUNCTION KILL; a load waits;
 * the caller learns it was killed. On both servers, as the same texts. */
static void busy_on(struct h_server *s)
{
    redisContext *a = h_connect_flushed(s), *b = h_connect(s);
    EXPECT_OK(a, "FUNCTION", "FLUSH");
    EXPECT_OK(a, "CONFIG", "SET", "busy-reply-threshold", "100");
    EXPECT_BULK(a, "spin", "FUNCTION", "LOAD",
                "#!lua name=spin\nredis.register_function{function_name='spin', flags={'no-writes'},"
                "\n  callback=function() while true do end end}");
    h_send(a, 3, (const char *const[]){"FCALL", "spin", "0"}, NULL);
    h_wait_busy(b, 5000 * H_SLOW);
    EXPECT_ERR(b, "BUSY Redis is busy running a script. You can only call FUNCTION KILL or "
                  "SHUTDOWN NOSAVE.",
               "GET", "k");
    EXPECT_MATCH(b, "['running_script', ['name', 'spin', 'command', ['FCALL', 'spin', '0'], 'duration_ms', :*], "
                 "'engines', ['LUA', ['libraries_count', :1, 'functions_count', :1]]]",
                 "FUNCTION", "STATS");
    EXPECT_ERR(b, "BUSY Redis is busy running a script. You can only call FUNCTION KILL or "
                  "SHUTDOWN NOSAVE.",
               "FUNCTION", "LOAD", LIB1);
    EXPECT_OK(b, "FUNCTION", "KILL");
    redisReply *r = h_get_reply(a);
    CHECK(r && r->type == REDIS_REPLY_ERROR &&
              strncmp(r->str, "ERR Script killed by user with ", 31) == 0,
          "the killed call: %s", r && r->str ? r->str : "(none)");
    freeReplyObject(r);
    EXPECT_ERR(b, "NOTBUSY No scripts in execution right now.", "FUNCTION", "KILL");
    EXPECT_OK(b, "CONFIG", "SET", "busy-reply-threshold", "5000");
    redisFree(a);
    redisFree(b);
}

static void test_busy(void)
{
    busy_on(&srv);
    if (have_ref)
        busy_on(&ref);
}

/* The next raw reply's bytes into out (NUL-terminated), "" on a timeout. */
static void raw_reply(struct h_raw *raw, char *out, size_t cap)
{
    size_t len;
    out[0] = '\0';
    if (h_raw_read_reply(raw, &len, H_RAW_TIMEOUT_MS) < 0)
        return;
    snprintf(out, cap, "%.*s", (int)len, raw->buf);
    h_raw_consume(raw, len);
}

/* FUNCTION LIST and STATS in RESP3 (maps, a set of flags, a null
 * description), byte for byte as redis-server sends them. */
static void test_resp3_shapes(void)
{
    redisContext *r, *c = open_pair(&r);
    if (!r) {
        h_close_pair(c, r);
        return;
    }
    H_SAME(c, r, "FUNCTION", "LOAD", LIB2);
    H_SAME(c, r, "FUNCTION", "LOAD", LIB3);
    static const char req[] = "HELLO 3\r\nFUNCTION LIST LIBRARYNAME lib2 WITHCODE\r\n"
                              "FUNCTION LIST LIBRARYNAME lib3\r\nFUNCTION STATS\r\n";
    struct h_raw ours, theirs;
    if (h_raw_open(&ours, &srv) < 0 || h_raw_open(&theirs, &ref) < 0) {
        h_close_pair(c, r);
        return;
    }
    RAW_SEND(&ours, req);
    RAW_SEND(&theirs, req);
    char a[4096], b[4096];
    raw_reply(&ours, a, sizeof(a)); /* HELLO's: the servers differ */
    raw_reply(&theirs, b, sizeof(b));
    for (int i = 0; i < 3; i++) {
        raw_reply(&ours, a, sizeof(a));
        raw_reply(&theirs, b, sizeof(b));
        CHECK(a[0] && strcmp(a, b) == 0, "RESP3 reply %d: rbkv %s, redis %s", i, a, b);
    }
    h_raw_close(&ours);
    h_raw_close(&theirs);
    h_close_pair(c, r);
}

/* Polls until key reads want on c (a replica applying its stream). */
static int wait_value(redisContext *c, const char *key, const char *want)
{
    int64_t deadline = h_now_ms() + 10000 * H_SLOW;
    while (h_now_ms() < deadline) {
        redisReply *r = redisCommand(c, "GET %s", key);
        int ok = r && r->type == REDIS_REPLY_STRING && strcmp(r->str, want) == 0;
        freeReplyObject(r);
        if (ok)
            return 1;
        h_sleep_ms(20);
    }
    return 0;
}

/* A replica gets the libraries with its full sync, then FUNCTION LOAD and
 * DELETE in the stream, and FCALL's writes as their effects; it refuses
 * FUNCTION LOAD of its own but lists and calls read-only functions. */
static void test_replica(void)
{
    struct h_server rep;
    redisContext *p = h_connect_flushed(&srv);
    EXPECT_OK(p, "FUNCTION", "FLUSH");
    EXPECT_BULK(p, "lib1", "FUNCTION", "LOAD", LIB1);
    EXPECT_BULK(p, "lib2", "FUNCTION", "LOAD", LIB2);
    EXPECT_OK(p, "CONFIG", "SET", "repl-diskless-sync-delay", "0");
    char port[16];
    snprintf(port, sizeof(port), "%d", srv.port);
    redisContext *r = h_open(&rep, H_FLAGS("--replicaof", "127.0.0.1", port));
    if (!r) {
        redisFree(p);
        return;
    }
    CHECK(h_wait_info(r, "replication", "master_link_status", "up", 10000 * H_SLOW),
          "the replica's link did not come up");
    EXPECT_ERR(r, "READONLY You can't write against a read only replica.", "FCALL_RO", "f1", "1",
               "a");
    EXPECT_OK(p, "FCALL", "setit", "1", "k", "v1");
    CHECK(wait_value(r, "k", "v1"), "FCALL's SET did not reach the replica");
    EXPECT_BULK(r, "v1", "FCALL_RO", "getit", "1", "k");
    EXPECT_OK(p, "FUNCTION", "DELETE", "lib1");
    EXPECT_BULK(p, "lib3", "FUNCTION", "LOAD", LIB3);
    EXPECT_OK(p, "SET", "k", "v2");
    CHECK(wait_value(r, "k", "v2"), "the stream did not reach the replica");
    EXPECT_MATCH(r, "[['library_name', 'lib2', *], ['library_name', 'lib3', *]]", "FUNCTION",
                 "LIST");
    EXPECT_ERR(r, "READONLY You can't write against a read only replica.", "FUNCTION", "LOAD",
               LIB1);
    EXPECT_ERR(r, "READONLY You can't write against a read only replica.", "FUNCTION", "FLUSH");
    EXPECT_ERR(r, "ERR Function not found", "FCALL_RO", "getit", "1", "k");
    EXPECT_ERR(r, "READONLY You can't write against a read only replica.", "FCALL", "setit", "1",
               "k", "v");
    h_close(&rep, r);
    redisFree(p);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_no_state);
    H_RUN(test_load_errors);
    H_RUN(test_subcommand_errors);
    H_RUN(test_list_and_stats);
    H_RUN(test_fcall);
    H_RUN(test_dump_restore);
    H_RUN(test_resp3_shapes);
    H_RUN(test_busy);
    if (!h_is_reference()) {
        H_RUN(test_persistence);
        H_RUN(test_replica);
    }
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
