/*
 * test_script.c - end-to-end tests of Lua scripting (server/core/script.c,
 * script_lua.c, script_conv.c, eval.c, server/commands/cmd_script.c):
 * EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT.
 *
 * Most checks send the same request to rbkv and to a redis-server 7 started
 * beside it (h_start_comparison) over raw connections in RESP2 and RESP3
 * and compare the reply bytes: the conversion table both ways, every error
 * path, the sandbox, shebang flags, the _RO variants, SCRIPT's
 * subcommands. Without a redis-server the same requests still run against
 * rbkv alone (nothing crashes, every reply is whole).
 *
 * Then what needs a second client or a second server, against rbkv only:
 * a busy script answered -BUSY, SCRIPT KILL, UNKILLABLE, SHUTDOWN NOSAVE;
 * a script's writes in the append-only log as MULTI/EXEC of its commands
 * (and a restart replaying them), and on a replica; EVAL inside MULTI and
 * under WATCH.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static struct h_server srv, ref;
static int have_ref;

/* One raw connection to each server in the given protocol. */
struct pair {
    struct h_raw ours, theirs;
    int proto;
};

static void send_cmd(struct h_raw *r, int argc, const char *const *argv)
{
    char head[32];
    int n = snprintf(head, sizeof(head), "*%d\r\n", argc);
    h_raw_send(r, head, (size_t)n);
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(argv[i]);
        n = snprintf(head, sizeof(head), "$%zu\r\n", len);
        h_raw_send(r, head, (size_t)n);
        h_raw_send(r, argv[i], len);
        h_raw_send(r, "\r\n", 2);
    }
}

/* The next reply's bytes, malloc'ed and NUL-terminated; "(none)" on a
 * timeout. */
static char *next_reply(struct h_raw *r)
{
    size_t len;
    if (h_raw_read_reply(r, &len, H_RAW_TIMEOUT_MS) < 0)
        return strdup("(none)");
    char *s = malloc(len + 1);
    memcpy(s, r->buf, len);
    s[len] = '\0';
    h_raw_consume(r, len);
    return s;
}

static int pair_open(struct pair *p, int proto)
{
    p->proto = proto;
    p->theirs.fd = -1;
    if (h_raw_open(&p->ours, &srv) < 0)
        return -1;
    if (have_ref && h_raw_open(&p->theirs, &ref) < 0)
        return -1;
    const char *hello[] = {"HELLO", proto == 3 ? "3" : "2"};
    const char *flush[] = {"FLUSHALL"};
    const char *sflush[] = {"SCRIPT", "FLUSH"};
    for (int side = 0; side < 1 + have_ref; side++) {
        struct h_raw *r = side ? &p->theirs : &p->ours;
        send_cmd(r, 2, hello);
        send_cmd(r, 1, flush);
        send_cmd(r, 2, sflush);
        for (int i = 0; i < 3; i++)
            free(next_reply(r));
    }
    return 0;
}

static void pair_close(struct pair *p)
{
    h_raw_close(&p->ours);
    if (have_ref)
        h_raw_close(&p->theirs);
}

/* Sends argv to both and checks the replies are the same bytes; without a
 * reference, that rbkv answered. */
static int same_at(const char *file, int line, struct pair *p, int argc, const char *const *argv)
{
    send_cmd(&p->ours, argc, argv);
    char *a = next_reply(&p->ours);
    int ok;
    if (have_ref) {
        send_cmd(&p->theirs, argc, argv);
        char *b = next_reply(&p->theirs);
        ok = h_check(file, line, strcmp(a, b) == 0, "RESP%d %s %s: rbkv %s, redis %s", p->proto,
                     argv[0], argc > 1 ? argv[1] : "", a, b);
        free(b);
    } else {
        ok = h_check(file, line, strcmp(a, "(none)") != 0, "%s %s: no reply", argv[0],
                     argc > 1 ? argv[1] : "");
    }
    free(a);
    return ok;
}
#define SAME(p, ...)                                                                              \
    same_at(__FILE__, __LINE__, (p), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__})

/* Each body run as EVAL body 0 in both protocols. */
static void same_bodies(const char *const *bodies, size_t n)
{
    for (int proto = 2; proto <= 3; proto++) {
        struct pair p;
        if (pair_open(&p, proto) < 0)
            return;
        SAME(&p, "HSET", "h", "a", "1");
        SAME(&p, "ZADD", "z", "1.5", "m");
        SAME(&p, "SADD", "s", "x");
        SAME(&p, "SET", "str", "abc");
        for (size_t i = 0; i < n; i++)
            SAME(&p, "EVAL", bodies[i], "0");
        pair_close(&p);
    }
}

static void test_conversion(void)
{
    static const char *const bodies[] = {
        /* Lua -> reply */
        "return 1", "return -7", "return 3.99", "return -3.99", "return 1e30", "return 0/0",
        "return 'a'", "return ''", "return 'a\\r\\nb'", "return true", "return false",
        "return nil", "return {}", "return {1, 2, {3, 'x'}, nil, 4}", "return {1, false, 3}",
        "return {ok = 'fine'}", "return {ok = 'a\\r\\nb'}", "return {err = 'bad thing'}",
        "return {err = 'X bad'}", "return {double = 1.5}", "return {double = 3.14}",
        "return {double = 1/0}", "return {big_number = '12345678901234567890'}",
        "return {verbatim_string = {format = 'txt', string = 'hi'}}",
        "return {map = {a = 1}}", "return {set = {a = true}}", "return {map = {}}",
        "return redis.status_reply('FINE')", "return redis.error_reply('CODE msg')",
        "return redis.error_reply('-X y')", "return redis.error_reply('plain')",
        "return redis.status_reply(1)", "return redis.error_reply()",
        "return redis.sha1hex('abc')", "return redis.sha1hex('')",
        /* reply -> Lua, RESP2 */
        "return redis.call('get', 'str')", "return redis.call('get', 'nokey')",
        "return redis.call('get', 'nokey') == false", "return redis.call('set', 'k', 'v')",
        "return redis.call('set', 'k', 'v').ok", "return redis.call('hgetall', 'h')",
        "return redis.call('zscore', 'z', 'm')", "return redis.call('smembers', 's')",
        "return redis.call('incr', 'cnt')", "return type(redis.call('incr', 'cnt'))",
        "return redis.pcall('incr', 'str')", "return redis.pcall('incr', 'str').err",
        "return redis.pcall('hget', 'str', 'f')", "return redis.call('exists', 'nokey')",
        "return redis.call('zrange', 'z', 0, -1, 'withscores')",
        "return redis.call('bzpopmin', 'nozset', 0)",
        "return redis.call('ping')", "return redis.call('ping').ok",
        /* reply -> Lua under setresp(3) */
        "redis.setresp(3) return redis.call('hgetall', 'h')",
        "redis.setresp(3) local r = redis.call('hgetall', 'h') return r.map.a",
        "redis.setresp(3) return redis.call('zscore', 'z', 'm')",
        "redis.setresp(3) return redis.call('zscore', 'z', 'm').double",
        "redis.setresp(3) return redis.call('get', 'nokey') == nil",
        "redis.setresp(3) return redis.call('smembers', 's')",
        "redis.setresp(3) return redis.call('smembers', 's').set.x",
        "redis.setresp(3) return true", "redis.setresp(3) return false",
        "redis.setresp(3) return {true, false}",
        "redis.setresp(3) return redis.call('sismember', 's', 'x')",
        "redis.setresp(2) return redis.call('hgetall', 'h')",
        /* numbers as arguments keep their digits */
        "return redis.call('set', 'n', 3.5)", "return redis.call('get', 'n')",
        "redis.call('set', 'n', 1e20) return redis.call('get', 'n')",
        "redis.call('set', 'n', 12345678901234) return redis.call('get', 'n')",
        /* libraries */
        "return cjson.encode({1, 2, 3})", "return cjson.decode('{\"a\":[1,2]}').a[2]",
        "return cjson.encode(cjson.decode('{\"a\":\"b\"}'))", "return bit.band(7, 3)",
        "return bit.tohex(255)", "return bit.bxor(5, 3)", "return string.format('%d-%s', 4, 'x')",
        "return table.concat({'a', 'b'}, ',')", "return math.floor(3.7)",
        "return tostring(redis.REDIS_VERSION_NUM)", "return redis.REDIS_VERSION",
        "return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}",
        /* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one script on two lines */
        "return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, "
        "redis.REPL_ALL}",
        "return redis.replicate_commands()", "return redis.breakpoint()",
        "return redis.debug('x')", "redis.set_repl(redis.REPL_ALL) return 1",
        "redis.log(redis.LOG_WARNING, 'from', 'a script') return 1",
        "return {pcall(error, 'x')}", "return {pcall(redis.call, 'incr', 'str')}",
        "return select('#', 1, 2, 3)", "return loadstring('return 7')()",
        "return #ARGV + #KEYS",
    };
    same_bodies(bodies, sizeof(bodies) / sizeof(bodies[0]));

    struct pair p;
    if (pair_open(&p, 2) < 0)
        return;
    SAME(&p, "EVAL", "return {KEYS[1], KEYS[2], ARGV[1], #KEYS, #ARGV}", "2", "k1", "k2", "a1");
    SAME(&p, "EVAL", "return {KEYS[1], ARGV[1], ARGV[2]}", "0", "x", "y");
    SAME(&p, "EVAL", "return redis.call('set', KEYS[1], ARGV[1])", "1", "key", "val");
    SAME(&p, "GET", "key");
    pair_close(&p);
}

static void test_errors(void)
{
    static const char *const bodies[] = {
        "error('x')", "error({err = 'MY code'})", "error()", "error(42)",
        "return redis.call('nosuch')", "return redis.pcall('nosuch')",
        "return redis.call('get')", "return redis.call('get', 'a', 'b')",
        "return redis.call('multi')", "return redis.call('acl', 'whoami')",
        "return redis.call('eval', 'return 1', 0)",
        "return redis.call('subscribe', 'c')", "return redis.call('watch', 'a')",
        "return redis.call()", "return redis.call({})", "return redis.call('get', {})",
        "return redis.pcall({})", "return redis.call('incr', 'str')",
        "return redis.call('hget', 'str', 'f')", "redis.log()", "redis.log('x', 'y')",
        "redis.log(99, 'y')", "redis.setresp()", "redis.setresp(4)", "redis.set_repl()",
        "redis.set_repl(8)", "return redis.sha1hex()", "return redis.sha1hex(1, 2)",
        "return 'unfinished", "return 1 +", "local t = nil; return t.x",
        "return redis.call('set', 'k', 'v', 'badopt')",
        "#!lua\nreturn 1", "#!lua flags=no-writes\nreturn 1",
        "#!lua flags=no-writes,allow-oom\nreturn 1", "#!lua flags=\nreturn 1",
        "#!lua flags=bogus\nreturn 1", "#!lua flags=no-writes,\nreturn 1",
        "#!lua name=x\nreturn 1", "#!py\nreturn 1", "#!lua", "#!\nreturn 1",
        "#!lua flags=no-writes\nreturn redis.call('set', 'a', 'b')",
        "#!lua flags=no-writes\nreturn redis.pcall('set', 'a', 'b')",
        "#!lua flags=allow-stale,no-cluster\nreturn 1",
        "#!lua\nerror('on line two')",
    };
    same_bodies(bodies, sizeof(bodies) / sizeof(bodies[0]));

    struct pair p;
    if (pair_open(&p, 2) < 0)
        return;
    SAME(&p, "SET", "str", "abc");
    SAME(&p, "EVAL", "return 1", "-1");
    SAME(&p, "EVAL", "return 1", "2", "a");
    SAME(&p, "EVAL", "return 1", "x");
    SAME(&p, "EVAL", "return 1", "99999999999999999999");
    SAME(&p, "EVAL", "return 1");
    SAME(&p, "EVALSHA", "abc", "0");
    SAME(&p, "EVALSHA", "0123456789012345678901234567890123456789", "0");
    SAME(&p, "EVALSHA", "0123456789012345678901234567890123456789", "x");
    SAME(&p, "EVAL_RO", "return redis.call('set', 'a', 'b')", "0");
    SAME(&p, "EVAL_RO", "return redis.pcall('set', 'a', 'b')", "0");
    SAME(&p, "EVAL_RO", "return redis.call('get', 'str')", "0");
    SAME(&p, "EVAL_RO", "#!lua\nreturn 1", "0");
    SAME(&p, "EVAL_RO", "#!lua flags=no-writes\nreturn redis.call('get', 'str')", "0");
    SAME(&p, "SCRIPT", "LOAD", "return 'loaded'");
    SAME(&p, "EVALSHA_RO", "b534286061d4b9e4026607613b95c06c06015ae8", "0");
    SAME(&p, "EVALSHA", "B534286061D4B9E4026607613B95C06C06015AE8", "0");
    SAME(&p, "EVALSHA_RO", "B534286061D4B9E4026607613B95C06C06015AE8", "0");
    pair_close(&p);
}

/* math.random is one sequence from rand.c's initial state, as Redis 7.0's:
 * run first, before any other script draws from either server's sequence. */
static void test_math_random(void)
{
    struct pair p;
    if (pair_open(&p, 2) < 0)
        return;
    const char *draw = "return {math.random(1000000), math.random(1000000)}";
    const char *first[] = {"EVAL", draw, "0"};
    send_cmd(&p.ours, 3, first);
    char *a = next_reply(&p.ours);
    CHECK(strcmp(a, "*2\r\n:396465\r\n:840486\r\n") == 0, "first draws as redis-server's: %s", a);
    free(a);
    if (have_ref) { /* keeps the two sequences in step */
        send_cmd(&p.theirs, 3, first);
        free(next_reply(&p.theirs));
    }
    SAME(&p, "EVAL", draw, "0"); /* the sequence goes on across calls */
    SAME(&p, "SCRIPT", "FLUSH");
    SAME(&p, "EVAL", draw, "0"); /* and across SCRIPT FLUSH */
    SAME(&p, "EVAL", "math.randomseed(7) return {math.random(), math.random(5, 9)}", "0");
    SAME(&p, "EVAL", draw, "0");
    pair_close(&p);
}

static void test_sandbox(void)
{
    static const char *const bodies[] = {
        "x = 1", "return x", "redis = 1", "redis.call = 1", "string.x = 1",
        "cjson.encode = 1", "math.huge = 1", "_G.y = 2", "return _G.nothere",
        "rawset(_G, 'z', 1) return 1", "setmetatable(_G, nil) return 1",
        "getmetatable('').__index = nil return 1", "getmetatable('').__index.upper = nil",
        "return ('abc'):upper()", "return os", "return io", "return loadfile", "return dofile",
        "return require", "return package", "return module", "return print", "return debug",
        "return getfenv", "return setfenv", "return newproxy", "return type(_G)",
        "return type(coroutine.create)", "return type(unpack)", "return type(xpcall)",
        "local t = {} t.a = 1 return t.a", "local s = 'a' return s:rep(3)",
        "return loadstring('x = 5')()", "return loadstring('return _G')() == _G",
        "return type(__redis__err__handler)", "return tostring(KEYS ~= nil)",
    };
    same_bodies(bodies, sizeof(bodies) / sizeof(bodies[0]));
}

/* Lua bytecode is never loaded (CVE-2015-4335: crafted bytecode corrupts
 * memory): loadstring and load refuse a chunk that starts with ESC as
 * Redis's Lua does, with the text parser's error, and so do script and
 * function bodies. */
static void test_bytecode(void)
{
    static const char *const bodies[] = {
        "return loadstring(string.dump(function() return 1 end))()",
        "local f, e = loadstring(string.dump(function() return 1 end)) return {tostring(f), e}",
        "local f, e = loadstring(string.dump(function() return 1 end), '=x') return {tostring(f), e}",
        "local s = string.dump(function() return 1 end) local i = 0 "
        "local f, e = load(function() i = i + 1 if i == 1 then return s:sub(1, 1) "
        "elseif i == 2 then return s:sub(2) end end) return {tostring(f), e}",
        "local s = string.dump(function() return 1 end) local i = 0 "
        "local f, e = load(function() i = i + 1 if i == 1 then return '' "
        "elseif i == 2 then return s end end) return {type(f), e}",
        "return {pcall(loadstring, string.dump(function() return 1 end))}",
        "return loadstring('  return 3')()", "return load(function() return nil end)()",
        "local n = 0 return {load(function() n = n + 1 if n == 1 then return 5 end end)}",
        "local f, e = load(function() error('boom') end) return {tostring(f), e}",
        "return {pcall(load, 3)}", "return {pcall(loadstring)}",
    };
    same_bodies(bodies, sizeof(bodies) / sizeof(bodies[0]));

    /* A script whose body is bytecode, sent as EVAL, SCRIPT LOAD and a
     * library: refused with the compile error, on both servers. */
    static const char dump[] = "\033LuaQ\000\001\004\010\004\010\000";
    static const char *const reqs[][2] = {
        {"*3\r\n$4\r\nEVAL\r\n$12\r\n", "\r\n$1\r\n0\r\n"},
        {"*3\r\n$6\r\nSCRIPT\r\n$4\r\nLOAD\r\n$12\r\n", "\r\n"},
        {"*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n$25\r\n#!lua name=x\n", "\r\n"},
    };
    static const char *const want[] = {
        "-ERR Error compiling script (new function): user_script:1: unexpected symbol near "
        "'char(27)'\r\n",
        "-ERR Error compiling script (new function): user_script:1: unexpected symbol near "
        "'char(27)'\r\n",
        "-ERR Error compiling function: user_function:2: unexpected symbol near 'char(27)'\r\n",
    };
    struct pair p;
    if (pair_open(&p, 2) < 0)
        return;
    for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
        for (int side = 0; side < 1 + have_ref; side++) {
            struct h_raw *r = side ? &p.theirs : &p.ours;
            h_raw_send(r, reqs[i][0], strlen(reqs[i][0]));
            h_raw_send(r, dump, sizeof(dump) - 1);
            h_raw_send(r, reqs[i][1], strlen(reqs[i][1]));
            char *got = next_reply(r);
            CHECK(strcmp(got, want[i]) == 0, "%s bytecode: %s", side ? "redis" : "rbkv", got);
            free(got);
        }
    }
    pair_close(&p);
}

static void test_script_command(void)
{
    struct pair p;
    if (pair_open(&p, 2) < 0)
        return;
    SAME(&p, "SCRIPT", "LOAD", "return 1");
    SAME(&p, "SCRIPT", "LOAD", "return 'unfinished");
    SAME(&p, "SCRIPT", "LOAD", "#!lua flags=nope\nreturn 1");
    SAME(&p, "SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db",
         "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "abc", "ffffffffffffffffffffffffffffffffffffffff");
    SAME(&p, "EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0");
    /* EVAL caches what it runs. */
    SAME(&p, "EVAL", "return 'cached'", "0");
    SAME(&p, "SCRIPT", "EXISTS", "952f49ffc8f7b098d8ab5da45d3164ca36ed18b1");
    SAME(&p, "SCRIPT", "FLUSH");
    SAME(&p, "SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
    SAME(&p, "EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0");
    SAME(&p, "SCRIPT", "FLUSH", "ASYNC");
    SAME(&p, "SCRIPT", "FLUSH", "sync");
    SAME(&p, "SCRIPT", "FLUSH", "bad");
    SAME(&p, "SCRIPT", "FLUSH", "sync", "async");
    SAME(&p, "SCRIPT", "KILL");
    SAME(&p, "SCRIPT", "KILL", "x");
    SAME(&p, "SCRIPT", "EXISTS");
    SAME(&p, "SCRIPT", "LOAD");
    SAME(&p, "SCRIPT", "DEBUG", "no");
    SAME(&p, "SCRIPT", "DEBUG", "maybe");
    SAME(&p, "SCRIPT", "HELP");
    SAME(&p, "SCRIPT", "NOSUCH");
    SAME(&p, "SCRIPT");
    SAME(&p, "CONFIG", "GET", "busy-reply-threshold");
    SAME(&p, "CONFIG", "GET", "lua-time-limit");
    pair_close(&p);

    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_OK(c, "SCRIPT", "FLUSH");
    CHECK(h_info_ll(c, "memory", "number_of_cached_scripts") == 0, "no script cached");
    EXPECT_BULK(c, "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "SCRIPT", "LOAD", "return 1");
    EXPECT_INT(c, 2, "EVAL", "return 2", "0");
    EXPECT_REPLY(c, "[:1]", "SCRIPT", "EXISTS", "7f923f79fe76194c868d7e1d0820de36700eb649");
    CHECK(h_info_ll(c, "memory", "number_of_cached_scripts") == 2, "two scripts cached");
    CHECK(h_info_ll(c, "memory", "used_memory_lua") > 10000, "the Lua state counted");
    CHECK(h_info_ll(c, "memory", "used_memory_scripts_eval") > 0, "the cache counted");
    EXPECT_ERR(c, "ERR SCRIPT DEBUG is not supported: rbkv has no Lua debugger", "SCRIPT", "DEBUG",
           "yes");
    redisFree(c);
}

/* A second client's view of a script looping past busy-reply-threshold. */
static void test_busy_and_kill(void)
{
    struct h_server s;
    redisContext *a = h_open(&s, H_FLAGS("--busy-reply-threshold", "100"));
    redisContext *b = a ? h_connect(&s) : NULL;
    if (!a || !b)
        return;
    EXPECT_REPLY(b, "['lua-time-limit', '100']", "CONFIG", "GET", "lua-time-limit");
    H_SEND(a, "EVAL", "local i = 0 while true do i = i + 1 end", "0");
    h_wait_busy(b, 5000 * H_SLOW);
    EXPECT_ERR(b, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
              "NOSAVE.", "GET", "k");
    EXPECT_ERR(b, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
              "NOSAVE.", "SCRIPT", "FLUSH");
    EXPECT_ERR(b, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
              "NOSAVE.", "SHUTDOWN");
    EXPECT_OK(b, "MULTI"); /* allowed while busy, as in Redis */
    EXPECT_ERR(b, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
              "NOSAVE.", "SET", "k", "v");
    EXPECT_OK(b, "DISCARD");
    EXPECT_OK(b, "SCRIPT", "KILL");
    redisReply *r = h_get_reply(a);
    CHECK(r && r->type == REDIS_REPLY_ERROR &&
              h_glob("ERR Script killed by user with SCRIPT KILL... script: *, on @user_script:1.",
                     r->str, r->len),
          "the killed script's caller gets the kill error, got %s", r ? r->str : "(none)");
    freeReplyObject(r);
    EXPECT_STATUS(a, "PONG", "PING"); /* the caller is served again */
    EXPECT_ERR(b, "NOTBUSY No scripts in execution right now.", "SCRIPT", "KILL");

    /* A script that wrote cannot be killed; SHUTDOWN NOSAVE ends it all. */
    H_SEND(a, "EVAL", "redis.call('set', 'w', '1') while true do end", "0");
    h_wait_busy(b, 5000 * H_SLOW);
    EXPECT_ERR(b, "UNKILLABLE Sorry the script already executed write commands against the dataset. "
              "You can either wait the script termination or kill the server in a hard way using "
              "the SHUTDOWN NOSAVE command.", "SCRIPT", "KILL");
    freeReplyObject(H_CALL(b, "SHUTDOWN", "NOSAVE"));
    CHECK(h_wait_exit(&s, 5000 * H_SLOW) == 0, "SHUTDOWN NOSAVE ended the server under a script");
    redisFree(a);
    redisFree(b);
}

/* The log holds a script's effects, not the script: replayed, they give the
 * same data whatever the script computed from. */
static void test_effects_in_log(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--appendonly", "yes", "--appendfsync", "always"));
    if (!c)
        return;
    EXPECT_OK(c, "SET", "base", "10");
    EXPECT_INT(c, 3, "EVAL",
           "redis.call('set', KEYS[1], math.random(1000)) redis.call('incrby', 'base', 5) "
           "redis.call('get', 'base') return redis.call('sadd', 'l', 'a', 'b', 'c')",
           "1", "rnd");
    EXPECT_BULK(c, "15", "EVAL_RO", "return redis.call('get', 'base')", "0");
    redisReply *before = H_CALL(c, "GET", "rnd");
    CHECK(h_file_has(&s, "appendonlydir/appendonly.aof.1.incr.aof", "MULTI") ||
              h_file_has(&s, "appendonly.aof", "MULTI"),
          "the script's writes are in a MULTI in the log");
    CHECK(!h_file_has(&s, "appendonlydir/appendonly.aof.1.incr.aof", "math.random") &&
              !h_file_has(&s, "appendonly.aof", "math.random"),
          "the script itself is not in the log");
    redisFree(c);
    h_stop(&s);
    c = h_reopen(&s, H_FLAGS("--appendonly", "yes"));
    if (c && before) {
        redisReply *after = H_CALL(c, "GET", "rnd");
        CHECK(after && after->str && before->str && strcmp(after->str, before->str) == 0,
              "the random value came back from the log");
        freeReplyObject(after);
        EXPECT_BULK(c, "15", "GET", "base");
    }
    freeReplyObject(before);
    if (c)
        h_close(&s, c);
}

static void test_replica(void)
{
    struct h_server rep;
    redisContext *c = h_connect_flushed(&srv);
    char port[16];
    snprintf(port, sizeof(port), "%d", srv.port);
    redisContext *r = h_open(&rep, H_FLAGS("--replicaof", "127.0.0.1", port));
    if (!c || !r)
        goto out;
    if (h_wait_info(r, "replication", "master_link_status", "up", 5000 * H_SLOW) < 0)
        goto out;
    EXPECT_INT(c, 2, "EVAL",
           "redis.call('set', 'a', math.random(1000000)) return redis.call('incr', 'b') + 1", "0");
    EXPECT_OK(c, "EVAL", "return redis.call('set', 'ro', 'x')", "0");
    redisReply *mine = H_CALL(c, "GET", "a");
    int64_t deadline = h_now_ms() + 5000 * H_SLOW;
    redisReply *theirs = NULL;
    while (h_now_ms() < deadline) {
        freeReplyObject(theirs);
        theirs = H_CALL(r, "GET", "ro");
        if (theirs && theirs->type == REDIS_REPLY_STRING)
            break;
        h_sleep_ms(20);
    }
    freeReplyObject(theirs);
    theirs = H_CALL(r, "GET", "a");
    CHECK(mine && theirs && mine->str && theirs->str && strcmp(mine->str, theirs->str) == 0,
          "the replica holds the script's effects");
    freeReplyObject(mine);
    freeReplyObject(theirs);
    EXPECT_BULK(r, "1", "GET", "b");
    /* A read-only replica refuses a script's writes, and scripts that may
     * write at all when they say so. */
    EXPECT_MATCH(r, "-READONLY You can't write against a read only replica. script: *", "EVAL",
                 "return redis.call('set', 'x', 1)", "0");
    EXPECT_ERR(r, "READONLY You can't write against a read only replica.", "EVAL",
               "#!lua\nreturn 1", "0");
    EXPECT_BULK(r, "1", "EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'b')", "0");
out:
    if (c)
        redisFree(c);
    if (r)
        h_close(&rep, r);
}

static void test_multi_and_watch(void)
{
    struct pair p;
    if (pair_open(&p, 2) < 0)
        return;
    SAME(&p, "MULTI");
    SAME(&p, "EVAL", "return redis.call('incr', 'm')", "0");
    SAME(&p, "EVAL", "return redis.call('incrby', 'm', 10)", "0");
    SAME(&p, "EVAL", "return redis.call('nosuch')", "0");
    SAME(&p, "EXEC");
    SAME(&p, "GET", "m");
    pair_close(&p);

    redisContext *a = h_connect_flushed(&srv), *b = h_connect(&srv);
    if (!a || !b)
        return;
    EXPECT_OK(a, "WATCH", "w");
    EXPECT_INT(b, 1, "EVAL", "return redis.call('incr', 'w')", "0");
    EXPECT_TRANSACTION(a, "(nil)", "GET w");
    redisFree(a);
    redisFree(b);
}

/* ---- random scripts, compared with redis-server ---- */

struct buf {
    char p[4096];
    size_t n;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->n, sizeof(b->p) - b->n, fmt, ap);
    va_end(ap);
    if (n > 0 && b->n + (size_t)n < sizeof(b->p))
        b->n += (size_t)n;
}

static const char *pick(const char *const *v, size_t n)
{
    return v[(size_t)rand() % n];
}
#define PICK(...) pick((const char *const[]){__VA_ARGS__}, H_ARGC(__VA_ARGS__))

/* A Lua expression of depth at most depth: every kind the conversion knows. */
static void random_value(struct buf *b, int depth)
{
    switch (rand() % (depth > 0 ? 12 : 8)) {
    case 0: put(b, "%d", rand() % 2000 - 1000); break;
    case 1: put(b, "%d.%d", rand() % 100 - 50, rand() % 1000); break;
    case 2: put(b, "'%s'", PICK("", "a", "text", "with space", "1e3")); break;
    case 3: put(b, "%s", PICK("true", "false", "nil")); break;
    case 4: put(b, "{ok='%s'}", PICK("OK", "fine", "")); break;
    case 5: put(b, "{err='%s'}", PICK("ERR bad", "CODE thing", "x")); break;
    case 6: put(b, "{double=%d.25}", rand() % 100); break;
    case 7: put(b, "r"); break; /* what the calls returned */
    case 8: put(b, "{map={%s=", PICK("a", "b")); random_value(b, depth - 1); put(b, "}}"); break;
    case 9: put(b, "{set={%s=true}}", PICK("a", "b", "c")); break;
    default: {
        int n = rand() % 4;
        put(b, "{");
        for (int i = 0; i < n; i++) {
            random_value(b, depth - 1);
            put(b, ", ");
        }
        put(b, "}");
    }
    }
}

/* A few redis.pcall's on a handful of keys of several types, their
 * results in the table r, then a random return. */
static void random_script(struct buf *b)
{
    b->n = 0;
    if (rand() % 3 == 0)
        put(b, "redis.setresp(3) ");
    put(b, "local r = {} ");
    for (int i = rand() % 5; i > 0; i--) {
        const char *key = PICK("KEYS[1]", "KEYS[2]", "'k'", "'h'", "'s'", "'z'");
        put(b, "r[#r+1] = redis.pcall(");
        switch (rand() % 9) {
        case 0: put(b, "'set', %s, ARGV[1])", key); break;
        case 1: put(b, "'incrby', %s, %d)", key, rand() % 10); break;
        case 2: put(b, "'get', %s)", key); break;
        case 3: put(b, "'hset', %s, 'f', ARGV[1])", key); break;
        case 4: put(b, "'hgetall', %s)", key); break;
        case 5: put(b, "'sadd', %s, 'm%d')", key, rand() % 3); break;
        case 6: put(b, "'zadd', %s, %d.5, 'm')", key, rand() % 5); break;
        case 7: put(b, "'zscore', %s, 'm')", key); break;
        default: put(b, "'del', %s)", key); break;
        }
        put(b, " ");
    }
    put(b, "return ");
    random_value(b, 3);
}

static void test_random_scripts(void)
{
    const char *seed_env = getenv("SEED");
    unsigned seed = seed_env ? (unsigned)strtoul(seed_env, NULL, 10) : (unsigned)h_now_ms();
    printf("  SEED=%u\n", seed);
    srand(seed);
    int bad = 0;
    for (int proto = 2; proto <= 3; proto++) {
        struct pair p;
        if (pair_open(&p, proto) < 0)
            return;
        for (int i = 0; i < 300; i++) {
            struct buf b;
            random_script(&b);
            const char *ro = rand() % 8 ? "EVAL" : "EVAL_RO";
            bad |= !SAME(&p, ro, b.p, "2", "a", "b", PICK("1", "x", "2.5"));
        }
        SAME(&p, "HGETALL", "h");
        SAME(&p, "ZRANGE", "z", "0", "-1", "WITHSCORES");
        pair_close(&p);
    }
    if (bad)
        printf("  replay with SEED=%u\n", seed);
}

/* total_commands_processed grows by EVAL and each command it ran (three
 * here: the refused one never runs), as redis-server's call() counts them. */
static long long commands_run_by(struct h_server *s)
{
    redisContext *c = h_connect_flushed(s);
    long long before = h_info_ll(c, "stats", "total_commands_processed");
    redisReply *x = redisCommand(c, "EVAL %s 0",
                                 "redis.call('set','x','1'); redis.pcall('nosuch'); "
                                 "return redis.call('get','x')");
    freeReplyObject(x);
    long long after = h_info_ll(c, "stats", "total_commands_processed");
    redisFree(c);
    return after - before;
}

static void test_commands_counted(void)
{
    long long ours = commands_run_by(&srv);
    CHECK(ours == 4, "EVAL and its commands counted: %lld", ours);
    if (have_ref) {
        long long theirs = commands_run_by(&ref);
        CHECK(ours == theirs, "total_commands_processed: rbkv +%lld, redis +%lld", ours, theirs);
    }
}

/* An error counts once in INFO errorstats, where it happened: a failing
 * redis.call's command (failed_calls) or its refusal (rejected_calls), not
 * again as EVAL's reply of it, which still makes EVAL a failed call; a
 * swallowed redis.pcall error counts for its command only. */
static void error_stats_of(struct h_server *s, char *out, size_t cap)
{
    static const char *const scripts[] = {
        "return redis.call('INCR', KEYS[1])",
        "return redis.error_reply('MYERR custom')",
        "return redis.pcall('INCR', KEYS[1])",
        "redis.pcall('INCR', KEYS[1]); return 1",
        "return redis.call('NOSUCH')",
        "return {err = 'OTHER thing'}",
        "return redis.call('SET')",
    };
    static const char *const fields[] = {"total_error_replies", "cmdstat_eval", "cmdstat_incr",
                                         "cmdstat_set"};
    static char all[65536];
    out[0] = '\0';
    redisContext *c = h_connect_flushed(s);
    if (!c)
        return;
    freeReplyObject(H_CALL(c, "CONFIG", "RESETSTAT"));
    freeReplyObject(H_CALL(c, "SET", "s", "text"));
    for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++)
        freeReplyObject(H_CALL(c, "EVAL", scripts[i], "1", "s"));
    redisReply *r = H_CALL(c, "INFO", "all");
    if (CHECK(r && r->type == REDIS_REPLY_STRING, "INFO all"))
        snprintf(all, sizeof(all), "%s", r->str);
    freeReplyObject(r);
    redisFree(c);
    size_t used = 0;
    for (const char *line = strstr(all, "errorstat_"); line; line = strstr(line + 1, "errorstat_"))
        used += (size_t)snprintf(out + used, cap - used, "%.*s;", (int)strcspn(line, "\r\n"), line);
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]) && used < cap; i++) {
        char v[256] = "";
        h_info_field(all, fields[i], v, sizeof(v));
        /* The counts only: the times differ. */
        const char *counts = strstr(v, "rejected");
        used += (size_t)snprintf(out + used, cap - used, "%s=%s;", fields[i], counts ? counts : v);
    }
}

static void test_error_stats(void)
{
    char ours[2048], theirs[2048];
    error_stats_of(&srv, ours, sizeof(ours));
    CHECK(!strcmp(ours, "errorstat_ERR:count=5;errorstat_MYERR:count=1;errorstat_OTHER:count=1;"
                        "total_error_replies=7;cmdstat_eval=rejected_calls=0,failed_calls=6;"
                        "cmdstat_incr=rejected_calls=0,failed_calls=3;"
                        "cmdstat_set=rejected_calls=1,failed_calls=0;"),
          "error stats: %s", ours);
    if (have_ref) {
        error_stats_of(&ref, theirs, sizeof(theirs));
        CHECK(!strcmp(ours, theirs), "error stats: rbkv %s, redis %s", ours, theirs);
    }
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_math_random);
    H_RUN(test_conversion);
    H_RUN(test_errors);
    H_RUN(test_commands_counted);
    H_RUN(test_error_stats);
    H_RUN(test_sandbox);
    H_RUN(test_bytecode);
    H_RUN(test_script_command);
    H_RUN(test_multi_and_watch);
    H_RUN(test_random_scripts);
    H_RUN(test_effects_in_log);
    H_RUN(test_replica);
    H_RUN(test_busy_and_kill);
    h_stop(&srv);
    if (have_ref)
        h_stop(&ref);
    return h_finish();
}
