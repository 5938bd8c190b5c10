/*
 * script_lua.c - Lua states for scripts: libraries, the redis library, the
 * sandbox, and running a function under a script run (script_lua.h).
 *
 * Owns: each state's allocator record (struct state_ud, freed with the
 * state) which counts its bytes and points at the run in progress, so the
 * redis library's C functions find their run without globals.
 *
 * The sandbox, as Redis 7.0.15 shows it to scripts: the globals are those
 * of Redis's allow list that Debian's Lua has (no os, io, package, require,
 * module, dofile, loadfile, print, getfenv, setfenv, newproxy, debug);
 * sealing swaps the globals table and every library table for read-only
 * proxies. A proxy is an empty table whose metatable reads through to the
 * real table and raises on writes; Redis patches its Lua to mark tables
 * read-only instead, which Debian's Lua cannot do, so pairs() over a
 * library table or _G sees nothing here (docs/scripting.md). rawset and
 * setmetatable refuse proxies, so nothing a script does outlives it.
 *
 * Every chunk is parsed as text: Lua 5.1 loads bytecode when a chunk's first
 * byte is ESC, and crafted bytecode can corrupt memory (CVE-2015-4335).
 * Redis's patched Lua never undumps; Debian's would, so loadstring, load and
 * the script and function bodies go through a reader that makes a leading
 * ESC reach the text parser (see text_only_read).
 */
#include "script_lua.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "client.h"
#include "command.h"
#include "errorstats.h"
#include "log.h"
#include "lua_cmsgpack.h"
#include "lua_struct.h"
#include "mem.h"
#include "resp_parser.h"
#include "script.h"
#include "script_conv.h"
#include "server.h"
#include "sha1.h"

int luaopen_cjson(lua_State *L);
int luaopen_bit(lua_State *L);

/* Redis's count hook period: the engine looks at the clock this often. */
#define HOOK_INSTRUCTIONS 100000
/* A GC step every so many calls, as Redis's LUA_GC_CYCLE_PERIOD, so a full
 * collection never lands in one script. */
#define GC_CYCLE_PERIOD 50
#define REAL_GLOBALS "rbkv_globals"
#define ERR_HANDLER "rbkv_err_handler"
#define READONLY_MARK "__rbkv_readonly"

struct state_ud {
    size_t bytes;              /* what the state holds */
    struct script_run *run;    /* the run in progress on this state, or NULL */
};

static struct state_ud *ud_of(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    return ud;
}

static void *lua_alloc_cb(void *ud, void *ptr, size_t osize, size_t nsize)
{
    struct state_ud *s = ud;
    if (nsize == 0) {
        xfree(ptr);
        s->bytes -= osize;
        return NULL;
    }
    void *p = xrealloc(ptr, nsize);
    s->bytes += nsize - (ptr ? osize : 0);
    return p;
}

/* ---- errors ---- */

/* Raises Redis's error table for text (see script_conv_push_error). */
static int raise_error(lua_State *L, const char *text)
{
    script_conv_push_error(L, text);
    return lua_error(L);
}

static struct script_run *run_or_raise(lua_State *L, const char *what)
{
    struct script_run *run = ud_of(L)->run;
    if (!run) {
        char msg[128];
        snprintf(msg, sizeof(msg), "%s can only be called inside a script invocation", what);
        raise_error(L, msg);
    }
    return run;
}

/* ---- the redis library ---- */

#define MAX_INLINE_ARGS 16

/* The script's arguments L[1..argc] as slices into the Lua strings (which
 * must stay on the stack while they are used), numbers printed into nums:
 * a slice array owned by the caller when it is not inline (free with
 * args_free). Returns 0, or -1 for an argument neither string nor number. */
struct lua_args {
    struct resp_slice inline_argv[MAX_INLINE_ARGS];
    char numbuf[MAX_INLINE_ARGS][32];
    struct resp_slice *argv;
    char *heap_nums;
};

static int args_from_lua(lua_State *L, int argc, struct lua_args *a)
{
    a->argv = argc <= MAX_INLINE_ARGS ? a->inline_argv : xmalloc(sizeof(*a->argv) * (size_t)argc);
    a->heap_nums = argc > MAX_INLINE_ARGS ? xmalloc(32 * (size_t)argc) : NULL;
    for (int j = 0; j < argc; j++) {
        char *num = argc <= MAX_INLINE_ARGS ? a->numbuf[j] : a->heap_nums + 32 * j;
        if (lua_type(L, j + 1) == LUA_TNUMBER) {
            /* Not lua_tolstring: its %.14g loses digits. */
            int n = snprintf(num, 32, "%.17g", (double)lua_tonumber(L, j + 1));
            a->argv[j] = (struct resp_slice){num, (size_t)n};
        } else if (lua_type(L, j + 1) == LUA_TSTRING) {
            size_t len;
            const char *str = lua_tolstring(L, j + 1, &len);
            a->argv[j] = (struct resp_slice){str, len};
        } else {
            return -1;
        }
    }
    return 0;
}

static void args_free(struct lua_args *a)
{
    if (a->argv != a->inline_argv)
        xfree(a->argv);
    xfree(a->heap_nums);
}

/* redis.call (raise 1) and redis.pcall (raise 0). */
static int redis_generic_call(lua_State *L, int raise)
{
    static int inuse; /* a debug hook could call in again; Redis refuses it too */
    struct script_run *run = run_or_raise(L, "redis.call/pcall");
    int argc = lua_gettop(L);
    if (argc == 0) {
        script_conv_push_error(L, "Please specify at least one argument for this redis lib call");
        return raise ? lua_error(L) : 1;
    }
    struct lua_args a;
    int bad = args_from_lua(L, argc, &a) < 0;
    struct resp_slice *argv = a.argv;
    if (bad || inuse) {
        args_free(&a);
        lua_settop(L, 0);
        if (inuse) {
            log_msg(LOG_WARNING, "luaRedisGenericCommand() recursive call detected. Are you "
                                 "doing funny stuff with Lua debug hooks?");
            script_conv_push_error(L, "luaRedisGenericCommand() recursive call detected. Are you "
                                      "doing funny stuff with Lua debug hooks?");
            return 1;
        }
        script_conv_push_error(L, "Lua redis lib command arguments must be strings or integers");
        return raise ? lua_error(L) : 1;
    }
    inuse = 1;
    size_t len;
    const char *err;
    /* The arguments stay on the stack (their strings are the slices)
     * until the reply is pushed. */
    const char *reply = script_call(run, argc, argv, &len, &err);
    inuse = 0;
    args_free(&a);
    if (!reply) {
        lua_settop(L, 0);
        script_conv_push_error(L, err);
        script_conv_mark_counted(L);
        return raise ? lua_error(L) : 1;
    }
    int is_error = len > 0 && reply[0] == '-';
    script_conv_push_reply(L, reply, len);
    lua_replace(L, 1);
    lua_settop(L, 1);
    return raise && is_error ? lua_error(L) : 1;
}

static int redis_call(lua_State *L)
{
    return redis_generic_call(L, 1);
}

static int redis_pcall(lua_State *L)
{
    return redis_generic_call(L, 0);
}

/* The global pcall: Redis 7 raises tables, and scripts written for older
 * versions expect pcall to hand back the message. */
static int global_pcall(lua_State *L)
{
    int argc = lua_gettop(L);
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    if (lua_pcall(L, argc - 1, LUA_MULTRET, 0)) {
        lua_remove(L, 1);
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "err");
            if (lua_isstring(L, -1))
                lua_replace(L, -2);
            else
                lua_pop(L, 1);
        }
        lua_pushboolean(L, 0);
        lua_insert(L, 1);
    }
    return lua_gettop(L);
}

static int redis_sha1hex(lua_State *L)
{
    if (lua_gettop(L) != 1)
        return raise_error(L, "wrong number of arguments");
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    unsigned char digest[SHA1_LEN];
    char hex[2 * SHA1_LEN + 1];
    sha1(s ? s : "", s ? len : 0, digest);
    for (int i = 0; i < SHA1_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    lua_pushstring(L, hex);
    return 1;
}

static int redis_error_reply(lua_State *L)
{
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
        script_conv_push_error(L, "wrong number or type of arguments");
        return 1;
    }
    const char *err = lua_tostring(L, -1);
    if (err[0] == '-') {
        script_conv_push_error(L, err);
    } else {
        lua_pushliteral(L, "-");
        lua_pushvalue(L, 1);
        lua_concat(L, 2);
        script_conv_push_error(L, lua_tostring(L, -1));
    }
    return 1;
}

static int redis_status_reply(lua_State *L)
{
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
        script_conv_push_error(L, "wrong number or type of arguments");
        return 1;
    }
    lua_newtable(L);
    lua_pushstring(L, "ok");
    lua_pushvalue(L, -3);
    lua_settable(L, -3);
    return 1;
}

static int redis_log(lua_State *L)
{
    int argc = lua_gettop(L);
    if (argc < 2)
        return raise_error(L, "redis.log() requires two arguments or more.");
    if (!lua_isnumber(L, 1))
        return raise_error(L, "First argument must be a number (log level).");
    int level = (int)lua_tonumber(L, 1);
    if (level < LOG_DEBUG || level > LOG_WARNING)
        return raise_error(L, "Invalid debug level.");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int j = 2; j <= argc; j++) {
        size_t len;
        const char *s = lua_tolstring(L, j, &len);
        if (!s)
            continue;
        if (j != 2)
            luaL_addchar(&b, ' ');
        luaL_addlstring(&b, s, len);
    }
    luaL_pushresult(&b);
    log_msg((enum log_level)level, "%s", lua_tostring(L, -1));
    return 0;
}

static int redis_setresp(lua_State *L)
{
    struct script_run *run = run_or_raise(L, "redis.setresp");
    if (lua_gettop(L) != 1)
        return raise_error(L, "redis.setresp() requires one argument.");
    int resp = (int)lua_tonumber(L, 1);
    if (resp != 2 && resp != 3)
        return raise_error(L, "RESP version must be 2 or 3.");
    run->resp = resp;
    return 0;
}

/* Accepted and checked as Redis does; every write still reaches both the
 * log and the replicas (docs/scripting.md). */
static int redis_set_repl(lua_State *L)
{
    struct script_run *run = run_or_raise(L, "redis.set_repl");
    if (lua_gettop(L) != 1)
        return raise_error(L, "redis.set_repl() requires two arguments.");
    int flags = (int)lua_tonumber(L, -1);
    if (flags & ~SCRIPT_REPL_ALL)
        return raise_error(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or "
                              "REPL_NONE.");
    run->repl = flags;
    return 0;
}

static int redis_replicate_commands(lua_State *L)
{
    lua_pushboolean(L, 1);
    return 1;
}

/* No debugger: redis.breakpoint answers false and redis.debug does
 * nothing, as in Redis without LDB. */
static int redis_breakpoint(lua_State *L)
{
    lua_pushboolean(L, 0);
    return 1;
}

static int redis_debug(lua_State *L)
{
    (void)L;
    return 0;
}

/* Whether the script's caller may run the command with these arguments
 * (Redis 7.0's acl_check_cmd). */
static int redis_acl_check_cmd(lua_State *L)
{
    struct script_run *run = run_or_raise(L, "redis.acl_check_cmd");
    int argc = lua_gettop(L);
    if (argc <= 0)
        return raise_error(L, "Please specify at least one argument for this redis lib call");
    struct lua_args a;
    if (args_from_lua(L, argc, &a) < 0) {
        args_free(&a);
        return raise_error(L, "Lua redis lib command arguments must be strings or integers");
    }
    const struct command *cmd = command_resolve(argc, a.argv);
    int allowed = cmd && script_acl_allows(run, cmd, argc, a.argv);
    args_free(&a);
    if (!cmd)
        return raise_error(L, "Invalid command passed to redis.acl_check_cmd()");
    lua_pushboolean(L, allowed);
    return 1;
}

/* ---- math.random, as Redis's (rand.c's drand48 sequence) ---- */

#define RAND48_MASK ((UINT64_C(1) << 48) - 1)

/* One sequence for the whole process, as Redis 7.0's: EVAL scripts and
 * functions draw from it, SCRIPT FLUSH does not restart it, and it starts
 * from rand.c's initial state (the seed 0x1234ABCD). Redis 7 no longer
 * reseeds before each script: scripts replicate as their effects, so
 * replicas never rerun math.random. */
static uint64_t rand48 = (UINT64_C(0x1234ABCD) << 16) | 0x330E;

static void rand48_seed(int32_t seed)
{
    rand48 = (((uint64_t)(uint32_t)seed << 16) | 0x330E) & RAND48_MASK;
}

static int32_t rand48_next(void)
{
    rand48 = (rand48 * UINT64_C(0x5DEECE66D) + 0xB) & RAND48_MASK;
    return (int32_t)(rand48 >> 17);
}

static int math_random(lua_State *L)
{
    run_or_raise(L, "math.random");
    lua_Number r = (lua_Number)(rand48_next() % INT32_MAX) / (lua_Number)INT32_MAX;
    switch (lua_gettop(L)) {
    case 0:
        lua_pushnumber(L, r);
        break;
    case 1: {
        int u = luaL_checkint(L, 1);
        luaL_argcheck(L, 1 <= u, 1, "interval is empty");
        lua_pushnumber(L, floor(r * u) + 1);
        break;
    }
    case 2: {
        int l = luaL_checkint(L, 1), u = luaL_checkint(L, 2);
        luaL_argcheck(L, l <= u, 2, "interval is empty");
        lua_pushnumber(L, floor(r * (u - l + 1)) + l);
        break;
    }
    default:
        return luaL_error(L, "wrong number of arguments");
    }
    return 1;
}

static int math_randomseed(lua_State *L)
{
    run_or_raise(L, "math.randomseed");
    rand48_seed(luaL_checkint(L, 1));
    return 0;
}

/* ---- the state ---- */

static void set_fn(lua_State *L, const char *name, lua_CFunction f)
{
    lua_pushcfunction(L, f);
    lua_setfield(L, -2, name);
}

static void set_num(lua_State *L, const char *name, lua_Number n)
{
    lua_pushnumber(L, n);
    lua_setfield(L, -2, name);
}

static void open_lib(lua_State *L, const char *name, lua_CFunction f)
{
    lua_pushcfunction(L, f);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
}

static void register_redis(lua_State *L)
{
    lua_newtable(L);
    set_fn(L, "call", redis_call);
    set_fn(L, "pcall", redis_pcall);
    set_fn(L, "log", redis_log);
    set_num(L, "LOG_DEBUG", LOG_DEBUG);
    set_num(L, "LOG_VERBOSE", LOG_VERBOSE);
    set_num(L, "LOG_NOTICE", LOG_NOTICE);
    set_num(L, "LOG_WARNING", LOG_WARNING);
    lua_pushstring(L, SCRIPT_REDIS_VERSION);
    lua_setfield(L, -2, "REDIS_VERSION");
    set_num(L, "REDIS_VERSION_NUM", SCRIPT_REDIS_VERSION_NUM);
    set_fn(L, "setresp", redis_setresp);
    set_fn(L, "sha1hex", redis_sha1hex);
    set_fn(L, "error_reply", redis_error_reply);
    set_fn(L, "status_reply", redis_status_reply);
    set_fn(L, "set_repl", redis_set_repl);
    set_num(L, "REPL_NONE", SCRIPT_REPL_NONE);
    set_num(L, "REPL_AOF", SCRIPT_REPL_AOF);
    set_num(L, "REPL_SLAVE", SCRIPT_REPL_SLAVE);
    set_num(L, "REPL_REPLICA", SCRIPT_REPL_SLAVE);
    set_num(L, "REPL_ALL", SCRIPT_REPL_ALL);
    set_fn(L, "replicate_commands", redis_replicate_commands);
    set_fn(L, "breakpoint", redis_breakpoint);
    set_fn(L, "debug", redis_debug);
    set_fn(L, "acl_check_cmd", redis_acl_check_cmd);
    lua_setglobal(L, "redis");

    lua_getglobal(L, "math");
    set_fn(L, "random", math_random);
    set_fn(L, "randomseed", math_randomseed);
    lua_pop(L, 1);
}

/* ---- text-only loading ---- */

/* Wraps a lua_Reader. lua_load picks the undumper when the first byte it
 * sees is LUA_SIGNATURE[0] (ESC); a space handed out before such a first
 * piece sends the chunk to the text parser instead, which refuses the ESC
 * exactly as Redis's Lua does ("unexpected symbol near 'char(27)'"). A space
 * is no token, so every text chunk, its line numbers and its errors are as
 * they were. */
struct text_reader {
    lua_Reader inner;
    void *inner_ud;
    int started;        /* the first piece was read */
    const char *held;   /* a first piece held back behind the space, or NULL */
    size_t held_len;
};

static const char *text_only_read(lua_State *L, void *ud, size_t *size)
{
    struct text_reader *r = ud;
    if (r->held) {
        const char *p = r->held;
        *size = r->held_len;
        r->held = NULL;
        return p;
    }
    const char *p = r->inner(L, r->inner_ud, size);
    if (!r->started) {
        r->started = 1;
        if (p && *size > 0 && p[0] == LUA_SIGNATURE[0]) {
            r->held = p; /* stays valid: the inner reader is not called again until it is used */
            r->held_len = *size;
            *size = 1;
            return " ";
        }
    }
    return p;
}

static int load_text(lua_State *L, lua_Reader reader, void *ud, const char *chunkname)
{
    struct text_reader r = {.inner = reader, .inner_ud = ud};
    return lua_load(L, text_only_read, &r, chunkname);
}

struct buffer_source {
    const char *p;
    size_t len;
};

static const char *buffer_read(lua_State *L, void *ud, size_t *size)
{
    (void)L;
    struct buffer_source *b = ud;
    if (b->len == 0)
        return NULL;
    *size = b->len;
    b->len = 0;
    return b->p;
}

static int load_text_buffer(lua_State *L, const char *code, size_t len, const char *chunkname)
{
    struct buffer_source b = {code, len};
    return load_text(L, buffer_read, &b, chunkname);
}

/* As Lua's load_aux: the function, or nil and the message. */
static int load_result(lua_State *L, int status)
{
    if (status == 0)
        return 1;
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
}

/* loadstring(s [, chunkname]), as Lua 5.1's, text only. */
static int text_loadstring(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, s);
    return load_result(L, load_text_buffer(L, s, len, name));
}

/* load's reader: calls the function at 1, keeps its string in slot 3 (as
 * Lua's generic_reader) so the piece lives until the next call. */
static const char *function_read(lua_State *L, void *ud, size_t *size)
{
    (void)ud;
    luaL_checkstack(L, 2, "too many nested functions");
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
        *size = 0;
        return NULL;
    }
    if (!lua_isstring(L, -1))
        luaL_error(L, "reader function must return a string");
    lua_replace(L, 3);
    return lua_tolstring(L, 3, size);
}

/* load(f [, chunkname]), as Lua 5.1's, text only. */
static int text_load(lua_State *L)
{
    const char *name = luaL_optstring(L, 2, "=(load)");
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 3); /* the function, the name, the piece's slot */
    return load_result(L, load_text(L, function_read, NULL, name));
}

/* Redis's error handler: every error becomes {err=, source=, line=} with
 * the script's position (the C function's caller when raised in C). It
 * keeps debug as an upvalue; the global goes. */
static const char err_handler_src[] =
    "local dbg = debug\n"
    "return function(err)\n"
    "  local i = dbg.getinfo(2, 'nSl')\n"
    "  if i and i.what == 'C' then i = dbg.getinfo(3, 'nSl') end\n"
    "  if type(err) ~= 'table' then err = {err = 'ERR ' .. tostring(err)} end\n"
    "  if i then err['source'] = i.source; err['line'] = i.currentline end\n"
    "  return err\n"
    "end\n";

lua_State *script_lua_new(void)
{
    struct state_ud *ud = xcalloc(1, sizeof(*ud));
    lua_State *L = lua_newstate(lua_alloc_cb, ud);
    if (!L) {
        xfree(ud);
        return NULL;
    }
    open_lib(L, "", luaopen_base);
    open_lib(L, LUA_TABLIBNAME, luaopen_table);
    open_lib(L, LUA_STRLIBNAME, luaopen_string);
    open_lib(L, LUA_MATHLIBNAME, luaopen_math);
    open_lib(L, LUA_DBLIBNAME, luaopen_debug);
    lua_pushcfunction(L, text_loadstring);
    lua_setglobal(L, "loadstring");
    lua_pushcfunction(L, text_load);
    lua_setglobal(L, "load");
    /* Debian builds lua-cjson without its global: set both ourselves. */
    lua_pushcfunction(L, luaopen_cjson);
    lua_call(L, 0, 1);
    lua_setglobal(L, "cjson");
    lua_pushcfunction(L, luaopen_bit);
    lua_call(L, 0, 1);
    lua_setglobal(L, "bit");
    lua_cmsgpack_open(L);
    lua_setglobal(L, "cmsgpack");
    lua_struct_open(L);
    lua_setglobal(L, "struct");
    register_redis(L);
    lua_pushcfunction(L, global_pcall);
    lua_setglobal(L, "pcall");

    if (luaL_loadbuffer(L, err_handler_src, sizeof(err_handler_src) - 1, "=err_handler") ||
        lua_pcall(L, 0, 1, 0)) {
        lua_close(L);
        xfree(ud);
        return NULL;
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, ERR_HANDLER);
    lua_setglobal(L, "__redis__err__handler");

    static const char *const removed[] = {"debug", "dofile", "loadfile", "print", "getfenv",
                                          "setfenv", "newproxy", "module", "require", "package"};
    for (size_t i = 0; i < sizeof(removed) / sizeof(removed[0]); i++) {
        lua_pushnil(L);
        lua_setglobal(L, removed[i]);
    }
    return L;
}

/* ---- sealing ---- */

static int readonly_error(lua_State *L)
{
    return luaL_error(L, "Attempt to modify a readonly table");
}

/* __index of the globals proxy: upvalue 1 is the real table. */
static int global_index(lua_State *L)
{
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (lua_isnil(L, -1)) {
        const char *name = lua_tostring(L, 2);
        return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                          name ? name : "?");
    }
    return 1;
}

/* Replaces the table at idx's place by nothing; pushes a proxy reading
 * through to it (a function __index when globals, else the table). */
static void push_proxy(lua_State *L, int idx, int globals)
{
    idx = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
    lua_newtable(L);               /* the proxy */
    lua_newtable(L);               /* its metatable */
    lua_pushvalue(L, idx);
    if (globals)
        lua_pushcclosure(L, global_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, readonly_error);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, READONLY_MARK);
    /* getmetatable(_G) gives, as Redis's, a table whose __index is a
     * function: a read-only view of this metatable. Elsewhere false. */
    if (globals)
        push_proxy(L, -1, 0);
    else
        lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}

static int is_readonly(lua_State *L, int idx)
{
    if (!lua_getmetatable(L, idx))
        return 0;
    lua_getfield(L, -1, READONLY_MARK);
    int ro = lua_toboolean(L, -1);
    lua_pop(L, 2);
    return ro;
}

/* The error Redis's patched Lua raises, without a position. */
static int raise_readonly(lua_State *L)
{
    lua_pushliteral(L, "Attempt to modify a readonly table");
    return lua_error(L);
}

static int safe_rawset(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    if (is_readonly(L, 1))
        return raise_readonly(L);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

static int safe_setmetatable(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    if (is_readonly(L, 1))
        return raise_readonly(L);
    int t = lua_type(L, 2);
    if (t != LUA_TNIL && t != LUA_TTABLE)
        return luaL_typerror(L, 2, "nil or table");
    if (luaL_getmetafield(L, 1, "__metatable"))
        return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

void script_lua_seal(lua_State *L)
{
    int top = lua_gettop(L);
    lua_pushcfunction(L, safe_rawset);
    lua_setglobal(L, "rawset");
    lua_pushcfunction(L, safe_setmetatable);
    lua_setglobal(L, "setmetatable");

    lua_pushvalue(L, LUA_GLOBALSINDEX);
    int real = lua_gettop(L);
    /* Every library table (string, math, redis, ...) behind a proxy. */
    lua_pushnil(L);
    while (lua_next(L, real)) {
        if (lua_istable(L, -1) && !lua_rawequal(L, -1, real)) {
            push_proxy(L, -1, 0);
            lua_pushvalue(L, -3); /* the key */
            lua_insert(L, -2);
            lua_rawset(L, real);
        }
        lua_pop(L, 1);
    }
    /* Strings' methods through the string proxy, and their metatable out
     * of reach (getmetatable("") gives a read-only view of it). */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lua_getfield(L, real, "string");
    lua_setfield(L, -2, "__index");
    push_proxy(L, -1, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 2);

    push_proxy(L, real, 1);
    lua_pushvalue(L, -1);
    lua_setfield(L, real, "_G");
    lua_pushvalue(L, real);
    lua_setfield(L, LUA_REGISTRYINDEX, REAL_GLOBALS);
    lua_replace(L, LUA_GLOBALSINDEX);
    lua_settop(L, top);
}

void script_lua_free(lua_State *L)
{
    if (!L)
        return;
    struct state_ud *ud = ud_of(L);
    lua_close(L);
    xfree(ud);
}

size_t script_lua_memory(lua_State *L)
{
    return ud_of(L)->bytes;
}

int script_lua_load(lua_State *L, const char *chunkname, const char *code, size_t len, char *err,
                    size_t errlen)
{
    if (load_text_buffer(L, code, len, chunkname) == 0)
        return 0;
    snprintf(err, errlen, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "unknown error");
    lua_pop(L, 1);
    return -1;
}

/* ---- running ---- */

static void count_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    struct script_run *run = ud_of(L)->run;
    if (!run || !script_interrupt(run))
        return;
    log_msg(LOG_WARNING, "Lua script killed by user with SCRIPT KILL.");
    /* Every line from now on raises again, so pcall cannot catch it for
     * good. */
    lua_sethook(L, count_hook, LUA_MASKLINE, 0);
    raise_error(L, "Script killed by user with SCRIPT KILL...");
}

static void push_array(lua_State *L, int n, const struct resp_slice *v)
{
    lua_createtable(L, n, 0);
    for (int j = 0; j < n; j++) {
        lua_pushlstring(L, v[j].ptr, v[j].len);
        lua_rawseti(L, -2, j + 1);
    }
}

static void reply_error(lua_State *L, struct script_run *run)
{
    struct resp_out *o = &run->caller->out;
    if (!lua_istable(L, -1)) {
        const char *msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
        resp_add_errorf(o, "ERR Error running script %s, %.100s", run->name, msg);
        return;
    }
    if (script_conv_is_counted(L))
        errorstats_skip_next(o);
    lua_getfield(L, -1, "err");
    lua_getfield(L, -2, "source");
    lua_getfield(L, -3, "line");
    const char *msg = lua_tostring(L, -3);
    const char *source = lua_tostring(L, -2);
    const char *line = lua_tostring(L, -1);
    if (!msg)
        msg = "";
    if (source && line)
        resp_add_errorf(o, "%s script: %s, on %s:%s.", msg, run->name, source, line);
    else
        resp_add_error(o, msg);
    lua_pop(L, 3);
}

void script_lua_call(lua_State *L, struct script_run *run, enum script_lua_pass pass, int nkeys,
                     const struct resp_slice *keys, int nargs, const struct resp_slice *args)
{
    static long gc_count;
    struct state_ud *ud = ud_of(L);
    ud->run = run;

    lua_getfield(L, LUA_REGISTRYINDEX, ERR_HANDLER);
    lua_insert(L, -2); /* handler, function */
    int handler = lua_gettop(L) - 1, nparams = 0;
    if (pass == SCRIPT_LUA_GLOBALS) {
        lua_getfield(L, LUA_REGISTRYINDEX, REAL_GLOBALS);
        push_array(L, nkeys, keys);
        lua_setfield(L, -2, "KEYS");
        push_array(L, nargs, args);
        lua_setfield(L, -2, "ARGV");
        lua_pop(L, 1);
    } else {
        push_array(L, nkeys, keys);
        push_array(L, nargs, args);
        nparams = 2;
    }
    if (server.cfg.busy_reply_threshold > 0)
        lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_INSTRUCTIONS);
    int err = lua_pcall(L, nparams, 1, handler);
    if (++gc_count == GC_CYCLE_PERIOD) {
        lua_gc(L, LUA_GCSTEP, GC_CYCLE_PERIOD);
        gc_count = 0;
    }
    if (err)
        reply_error(L, run);
    else
        script_conv_write_value(L, &run->caller->out, run->resp);
    if (err)
        lua_pop(L, 1);
    lua_pop(L, 1); /* the handler */
    lua_sethook(L, NULL, 0, 0);
    ud->run = NULL;
}
