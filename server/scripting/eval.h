/*
 * eval.h - EVAL's scripts: the Lua state they run on and the script cache
 * by SHA1, as Redis 7.0's eval.c (eval.c, prefix eval_).
 *
 * Owns: the state (made at the first script, remade empty by SCRIPT
 * FLUSH) and every cached script: its body, flags and compiled function
 * (kept in the state's registry as f_<sha>). EVAL caches what it runs, as
 * Redis 7.0 does, until SCRIPT FLUSH.
 */
#ifndef RBKV_EVAL_H
#define RBKV_EVAL_H

#include <stddef.h>

struct client;
struct resp_slice;

/* EVAL / EVALSHA / EVAL_RO / EVALSHA_RO: c->argv is the request
 * (body-or-sha numkeys key... arg...). Replies to c. */
void eval_command(struct client *c, int by_sha, int ro);
/* The flags EVAL (by_sha 0) or EVALSHA (1) from c runs under, given its
 * row's: its script's (a shebang's, or the cached script's), as Redis's
 * evalGetCommandFlags; the row's for a script without a shebang, or one
 * not cached or malformed (its handler then answers). */
unsigned eval_request_flags(const struct client *c, int by_sha, unsigned flags);
/* SCRIPT LOAD body: replies the sha, or the compile error. */
void eval_script_load(struct client *c, const struct resp_slice *body);
/* Whether the script with this sha (any case) is cached. */
int eval_script_exists(const struct resp_slice *sha);
/* SCRIPT FLUSH: drops every script and the state. */
void eval_flush(void);

/* INFO memory: the state's bytes, the cache's bytes, cached scripts. */
size_t eval_vm_memory(void);
size_t eval_scripts_memory(void);
size_t eval_script_count(void);

#endif
