/*
 * function_lua.h - the Lua engine of FUNCTION (function_lua.c): Redis 7.0's
 * function_lua.c (prefix fnlua_).
 *
 * Owns: the one Lua state every library lives in (apart from EVAL's, as in
 * Redis), the library environment their code runs in, and the load-time
 * API (redis.register_function, redis.log, the LOG_* constants and
 * REDIS_VERSION*; anything else read while loading is "Script attempted to
 * access nonexistent global variable"). A registered callback is kept in
 * the state's registry under an integer ref, which the registry
 * (functions.h) stores and hands back to call or drop it. Making the state,
 * its sandbox and running a call are script_lua.h's.
 */
#ifndef RBKV_FUNCTION_LUA_H
#define RBKV_FUNCTION_LUA_H

#include <stddef.h>

struct fn_library;
struct resp_slice;
struct script_run;

/* Frees the state, if any (FUNCTION FLUSH, shutdown). The state is made on
 * first use, by fnlua_compile: until a library is loaded there is none, and
 * fnlua_memory is 0. */
void fnlua_close(void);

/* How the registry (functions.c) takes a function the code registers into
 * lib: taking name and desc (heap strings, desc may be NULL) and the
 * engine's ref. Returns 0, or -1 with Redis's text in err when the name is
 * invalid or lib already has it; then nothing is taken. Passed in, so the
 * engine never calls the registry that calls it. */
typedef int fnlua_register_fn(struct fn_library *lib, char *name, char *desc, size_t desc_len,
                              unsigned flags, int ref, char *err, size_t errlen);
/* Runs a library's code (after its shebang line) with the load-time API,
 * adding what it registers to lib through add. Gives up after
 * timeout_ms of running (0: never). Returns 0, or -1 with Redis's text in
 * err ("Error compiling function: ...", "Error registering functions:
 * ..."); the functions lib got before the failure stay in it, for the
 * caller to free. */
int fnlua_compile(struct fn_library *lib, fnlua_register_fn *add, const char *body, size_t len,
                  long timeout_ms, char *err, size_t errlen);
/* Drops a callback's ref. */
void fnlua_unref(int ref);
/* Calls the callback ref as f(keys, args) under run (prepared); replies to
 * run->caller. */
void fnlua_call(int ref, struct script_run *run, int nkeys, const struct resp_slice *keys,
                int nargs, const struct resp_slice *args);
/* Bytes the state holds. */
size_t fnlua_memory(void);

#endif
