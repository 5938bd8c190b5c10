/*
 * function_lua.c - the Lua engine of FUNCTION (function_lua.h).
 *
 * Every library's chunk runs with one environment table of ours, env, in
 * place of the globals: env is empty and read-only, and its metatable's
 * __index says what a name means. While a library loads it points at the
 * load-time API (a table holding only `redis`, itself holding only
 * register_function, log, the LOG_* constants and REDIS_VERSION*), so the
 * code can do nothing but register; otherwise it points at the sealed
 * globals of script_lua.h, so the callbacks, which keep env as their
 * environment, see the whole sandbox when FCALL runs them. This is how
 * Redis 7.0 swaps its globals' __index between LIBRARY_API and GLOBALS_API,
 * done on a table of our own so the engine's sealed globals are untouched.
 */
#include "function_lua.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <lauxlib.h>
#include <lua.h>

#include "clock.h"
#include "functions.h"
#include "log.h"
#include "mem.h"
#include "script.h"
#include "script_lua.h"

/* The load hook looks at the clock every so many instructions. */
#define LOAD_HOOK_INSTRUCTIONS 100000

static struct {
    lua_State *L;
    int env;                   /* ref: the libraries' environment */
    int env_meta;              /* ref: its metatable, whose __index is switched */
    int globals;               /* ref: the sealed globals (run time) */
    int load_api;              /* ref: the load-time API (load time) */
    struct fn_library *loading; /* the library being loaded, NULL otherwise */
    fnlua_register_fn *add;     /* what takes its functions, while loading */
    int64_t load_start_us;
    long load_timeout_ms;
} fl;

/* Raises a Redis error table {err = "ERR msg"}, as luaPushError + luaError:
 * it reaches the caller without a position, as Redis's does. */
static int raise_error(lua_State *L, const char *msg)
{
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushfstring(L, "ERR %s", msg);
    lua_rawset(L, -3);
    return lua_error(L);
}

static int readonly_error(lua_State *L)
{
    return luaL_error(L, "Attempt to modify a readonly table");
}

static int nonexistent_error(lua_State *L)
{
    return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                      lua_tostring(L, 2) ? lua_tostring(L, 2) : "?");
}

/* Pushes a metatable that refuses writes, hides itself, and answers a
 * missing name with the value at index (made absolute by the caller). */
static void push_guard(lua_State *L, int index)
{
    lua_newtable(L);
    lua_pushvalue(L, index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, readonly_error);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
}

/* Gives the table on top a guard whose missing names raise the
 * nonexistent-global error. */
static void seal_table(lua_State *L)
{
    lua_pushcfunction(L, nonexistent_error);
    push_guard(L, lua_gettop(L));
    lua_remove(L, -2);
    lua_setmetatable(L, -2);
}

/* A string argument at idx as a heap copy (NUL-terminated, *len set), or
 * NULL when it is not a string (nor a number, which Lua converts). */
static char *dup_string(lua_State *L, int idx, size_t *len)
{
    if (!lua_isstring(L, idx))
        return NULL;
    const char *s = lua_tolstring(L, idx, len);
    return xmemdup(s, *len);
}

/* The flags table on top of the stack, as 1, 2, ... until nil. */
static int read_flags(lua_State *L, unsigned *flags)
{
    *flags = 0;
    for (int j = 1;; j++) {
        lua_rawgeti(L, -1, j);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            return 0;
        }
        size_t len = 0;
        const char *s = lua_isstring(L, -1) ? lua_tolstring(L, -1, &len) : NULL;
        unsigned f = s ? script_flag_by_name(s, len) : 0;
        lua_pop(L, 1);
        if (!f)
            return -1;
        *flags |= f;
    }
}

struct registration {
    char *name, *desc;
    size_t name_len, desc_len;
    unsigned flags;
    int ref; /* LUA_NOREF until the callback is taken */
};

static void registration_drop(lua_State *L, struct registration *r)
{
    xfree(r->name);
    xfree(r->desc);
    if (r->ref != LUA_NOREF)
        luaL_unref(L, LUA_REGISTRYINDEX, r->ref);
}

/* redis.register_function{function_name=, callback=, flags=, description=}:
 * returns NULL, or the error text. */
static const char *read_named(lua_State *L, struct registration *r)
{
    if (!lua_istable(L, 1))
        return "calling redis.register_function with a single argument is only applicable to "
               "Lua table (representing named arguments).";
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        if (!lua_isstring(L, -2))
            return "named argument key given to redis.register_function is not a string";
        const char *key = lua_tostring(L, -2);
        if (!strcasecmp(key, "function_name")) {
            xfree(r->name);
            if (!(r->name = dup_string(L, -1, &r->name_len)))
                return "function_name argument given to redis.register_function must be a "
                       "string";
        } else if (!strcasecmp(key, "description")) {
            xfree(r->desc);
            if (!(r->desc = dup_string(L, -1, &r->desc_len)))
                return "description argument given to redis.register_function must be a string";
        } else if (!strcasecmp(key, "callback")) {
            if (!lua_isfunction(L, -1))
                return "callback argument given to redis.register_function must be a function";
            if (r->ref != LUA_NOREF)
                luaL_unref(L, LUA_REGISTRYINDEX, r->ref);
            r->ref = luaL_ref(L, LUA_REGISTRYINDEX); /* pops the value */
            continue;
        } else if (!strcasecmp(key, "flags")) {
            if (!lua_istable(L, -1))
                return "flags argument to redis.register_function must be a table representing "
                       "function flags";
            if (read_flags(L, &r->flags) < 0)
                return "unknown flag given";
        } else {
            return "unknown argument given to redis.register_function";
        }
        lua_pop(L, 1);
    }
    if (!r->name)
        return "redis.register_function must get a function name argument";
    if (r->ref == LUA_NOREF)
        return "redis.register_function must get a callback argument";
    return NULL;
}

/* redis.register_function(name, callback) */
static const char *read_positional(lua_State *L, struct registration *r)
{
    if (!(r->name = dup_string(L, 1, &r->name_len)))
        return "first argument to redis.register_function must be a string";
    if (!lua_isfunction(L, 2))
        return "second argument to redis.register_function must be a function";
    r->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return NULL;
}

static int register_function(lua_State *L)
{
    /* A callback that kept the load-time redis table (local r = redis)
     * may call it later. */
    if (!fl.loading)
        return raise_error(L, "redis.register_function can only be called on FUNCTION LOAD "
                              "command");
    int argc = lua_gettop(L);
    if (argc < 1 || argc > 2)
        return raise_error(L, "wrong number of arguments to redis.register_function");
    struct registration r = {.ref = LUA_NOREF};
    const char *bad = argc == 1 ? read_named(L, &r) : read_positional(L, &r);
    char err[256];
    if (!bad && strlen(r.name) == r.name_len &&
        fl.add(fl.loading, r.name, r.desc, r.desc_len, r.flags, r.ref, err,
                       sizeof(err)) == 0)
        return 0;
    if (!bad && strlen(r.name) != r.name_len)
        bad = "Library names can only contain letters, numbers, or underscores(_) and must be "
              "at least one character long";
    else if (!bad)
        bad = err;
    /* The message may live in err, on this C stack: copy it to Lua first. */
    lua_pushstring(L, bad);
    registration_drop(L, &r);
    return raise_error(L, lua_tostring(L, -1));
}

static void load_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    if (ustime() - fl.load_start_us > (int64_t)fl.load_timeout_ms * 1000) {
        /* Once per line from now on, so a loop that catches the error with
         * pcall is stopped again at once. */
        lua_sethook(L, load_hook, LUA_MASKLINE, 0);
        raise_error(L, "FUNCTION LOAD timeout");
    }
}

/* The load-time API: {redis = {register_function, log, LOG_*,
 * REDIS_VERSION, REDIS_VERSION_NUM}}, both sealed. Takes log and the
 * constants from the redis table of the globals on top of the stack. */
static void push_load_api(lua_State *L)
{
    static const char *const from_redis[] = {"log",         "LOG_DEBUG",     "LOG_VERBOSE",
                                             "LOG_NOTICE",  "LOG_WARNING",   "REDIS_VERSION",
                                             "REDIS_VERSION_NUM"};
    lua_getfield(L, -1, "redis");
    lua_newtable(L); /* api */
    lua_newtable(L); /* its redis */
    for (size_t i = 0; i < sizeof(from_redis) / sizeof(from_redis[0]); i++) {
        lua_getfield(L, -3, from_redis[i]);
        lua_setfield(L, -2, from_redis[i]);
    }
    lua_pushcfunction(L, register_function);
    lua_setfield(L, -2, "register_function");
    seal_table(L);
    lua_setfield(L, -2, "redis");
    seal_table(L);
    lua_remove(L, -2); /* the globals' redis */
}

/* Makes the state on first use, as EVAL's: a server that never loads a
 * library never holds the ~35 KB heap in used_memory, where eviction could
 * not free it. */
static void ensure_state(void)
{
    if (fl.L)
        return;
    lua_State *L = script_lua_new();
    if (!L) {
        log_warning("Can't create the Lua state for functions: out of memory");
        abort();
    }
    script_lua_seal(L);
    fl.L = L;
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    push_load_api(L);
    fl.load_api = luaL_ref(L, LUA_REGISTRYINDEX);
    fl.globals = luaL_ref(L, LUA_REGISTRYINDEX);

    lua_newtable(L); /* env */
    lua_rawgeti(L, LUA_REGISTRYINDEX, fl.globals);
    push_guard(L, lua_gettop(L));
    lua_remove(L, -2);
    lua_pushvalue(L, -1);
    fl.env_meta = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_setmetatable(L, -2);
    fl.env = luaL_ref(L, LUA_REGISTRYINDEX);
    fl.loading = NULL;
}

void fnlua_close(void)
{
    script_lua_free(fl.L);
    fl.L = NULL;
}

/* Points env's names at the registry's table ref. */
static void env_index(int ref)
{
    lua_rawgeti(fl.L, LUA_REGISTRYINDEX, fl.env_meta);
    lua_rawgeti(fl.L, LUA_REGISTRYINDEX, ref);
    lua_setfield(fl.L, -2, "__index");
    lua_pop(fl.L, 1);
}

int fnlua_compile(struct fn_library *lib, fnlua_register_fn *add, const char *body, size_t len,
                  long timeout_ms, char *err, size_t errlen)
{
    ensure_state();
    lua_State *L = fl.L;
    char msg[512];
    if (script_lua_load(L, "@user_function", body, len, msg, sizeof(msg)) < 0) {
        snprintf(err, errlen, "Error compiling function: %s", msg);
        return -1;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, fl.env);
    lua_setfenv(L, -2);
    env_index(fl.load_api);
    fl.loading = lib;
    fl.add = add;
    fl.load_start_us = ustime();
    fl.load_timeout_ms = timeout_ms;
    if (timeout_ms > 0)
        lua_sethook(L, load_hook, LUA_MASKCOUNT, LOAD_HOOK_INSTRUCTIONS);
    int rc = lua_pcall(L, 0, 0, 0);
    lua_sethook(L, NULL, 0, 0);
    fl.loading = NULL;
    env_index(fl.globals);
    if (rc == 0)
        return 0;
    /* A Redis error table carries its text in err; anything else is Lua's
     * own error, which Redis's handler prefixes with "ERR ". */
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "err");
        snprintf(err, errlen, "Error registering functions: %s",
                 lua_isstring(L, -1) ? lua_tostring(L, -1) : "ERR unknown error");
        lua_pop(L, 1);
    } else {
        snprintf(err, errlen, "Error registering functions: ERR %s",
                 lua_isstring(L, -1) ? lua_tostring(L, -1) : "unknown error");
    }
    lua_pop(L, 1);
    return -1;
}

void fnlua_unref(int ref)
{
    if (fl.L)
        luaL_unref(fl.L, LUA_REGISTRYINDEX, ref);
}

void fnlua_call(int ref, struct script_run *run, int nkeys, const struct resp_slice *keys,
                int nargs, const struct resp_slice *args)
{
    lua_rawgeti(fl.L, LUA_REGISTRYINDEX, ref);
    script_lua_call(fl.L, run, SCRIPT_LUA_ARGS, nkeys, keys, nargs, args);
}

size_t fnlua_memory(void)
{
    return fl.L ? script_lua_memory(fl.L) : 0;
}
