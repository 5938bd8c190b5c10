/*
 * script_lua.h - the Lua 5.1 engine scripts run on (script_lua.c, with
 * script_lua_conv.c): Redis 7.0's script_lua.c (prefix script_lua_).
 *
 * Owns: Lua states made here (each freed by script_lua_free), the redis
 * library in them (call, pcall, error_reply, status_reply, sha1hex, log,
 * setresp, set_repl, replicate_commands, breakpoint, debug, the REPL_* and
 * LOG_* constants, REDIS_VERSION, REDIS_VERSION_NUM), the sandbox, and the
 * conversion between replies and Lua values both ways. A state's memory is
 * counted by its own allocator (script_lua_memory). Knows nothing of the
 * script cache or of functions: those own their states and their
 * compiled functions.
 *
 * A state is made in two steps so that its owner may add to it before
 * scripts see it (FUNCTION's redis.register_function, for one):
 *   lua_State *L = script_lua_new();
 *   ... add globals or fields of the redis table ...
 *   script_lua_seal(L);
 * After script_lua_seal every global and library table is read-only
 * ("Attempt to modify a readonly table") and reading a missing global is
 * an error ("Script attempted to access nonexistent global variable 'x'"),
 * as in Redis 7.0.15. There is no os, io, loadfile, dofile, require,
 * package, module or print-to-stdout; cjson and bit come from Debian's
 * lua-cjson and lua-bitop; cmsgpack and struct, which Debian does not
 * package, are ours (lua_cmsgpack.h, lua_struct.h).
 *
 * Running a function (the engine side of script.h's run):
 *   script_lua_load(L, "@user_script", body, len, err, sizeof(err))
 *       pushes the compiled chunk; the owner keeps it (registry, a table);
 *   push it again, then script_lua_call(L, &run, ...): pops it, runs it
 *   with KEYS/ARGV (or as f(keys, args)) and answers run->caller with the
 *   converted result or the error in Redis's format.
 * The run must have been prepared (script_prepare_or_reply); the caller of
 * script_lua_call still calls script_finish.
 */
#ifndef RBKV_SCRIPT_LUA_H
#define RBKV_SCRIPT_LUA_H

#include <stddef.h>

#include <lua.h>

struct resp_slice;
struct script_run;

/* A new state with the libraries and the redis library, not sealed yet;
 * NULL when Lua cannot allocate. */
lua_State *script_lua_new(void);
/* Protects the globals (see above); call once, after adding to the state. */
void script_lua_seal(lua_State *L);
/* lua_close with the state's allocator's accounting; NULL does nothing. */
void script_lua_free(lua_State *L);
/* Bytes the state holds now (its allocator's count). */
size_t script_lua_memory(lua_State *L);

/* Compiles code, as text only (bytecode is refused as Redis's Lua refuses
 * it), under chunkname ("@user_script" for EVAL, "@user_function" for a
 * library). Returns 0 with the function pushed, or
 * -1 with Lua's message ("user_script:1: ...") in err and nothing pushed. */
int script_lua_load(lua_State *L, const char *chunkname, const char *code, size_t len, char *err,
                    size_t errlen);

/* How the keys and arguments reach the function. */
enum script_lua_pass {
    SCRIPT_LUA_GLOBALS, /* EVAL: the globals KEYS and ARGV, set for the call */
    SCRIPT_LUA_ARGS,    /* FCALL: two table arguments, f(keys, args) */
};

/* Pops the function on top of L's stack and runs it under run (prepared),
 * with a hook calling script_interrupt; replies to run->caller: the result
 * converted as Redis does, or the error as "ERR <msg> script: <name>, on
 * <chunk>:<line>." when the script raised one. */
void script_lua_call(lua_State *L, struct script_run *run, enum script_lua_pass pass, int nkeys,
                     const struct resp_slice *keys, int nargs, const struct resp_slice *args);

/* The redis library's version constants: rbkv answers as this Redis. */
#define SCRIPT_REDIS_VERSION "7.0.15"
#define SCRIPT_REDIS_VERSION_NUM 0x07000f

#endif
