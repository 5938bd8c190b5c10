/*
 * functions.h - the libraries of functions that FUNCTION LOAD creates and
 * FCALL calls: Redis 7.0's functions.c (prefix fn_).
 *
 * Owns: the registry, the libraries by name and the functions by name
 * across all libraries, both in red-black trees so FUNCTION LIST answers in
 * one stable order (libraries by name in byte order, each library's
 * functions by name ignoring case); each library's code; the DUMP payload's
 * format. Knows nothing of Lua: compiling a library and calling a function
 * are function_lua.h's, and the run itself is script.h's.
 *
 * Names: a library's is compared byte for byte, a function's ignoring case
 * (Redis's dictionaries do so: FCALL F1 finds f1, and a library may not
 * register f1 while another holds F1). Both are letters, digits and '_'.
 *
 * Invariants: every function of a linked library is in the registry's
 * function tree and nowhere else; a library is freed only once unlinked,
 * with its functions' engine handles.
 */
#ifndef RBKV_FUNCTIONS_H
#define RBKV_FUNCTIONS_H

#include <stddef.h>

#include "rbtree.h"

struct client;

struct fn_function {
    struct rb_node node;        /* in the registry's functions, by name ignoring case */
    struct fn_library *lib;
    char *name;
    char *desc;                 /* NULL when registered without one */
    size_t desc_len;
    unsigned flags;             /* SCRIPT_FLAG_* (script.h) */
    int ref;                    /* the callback, in function_lua's registry */
};

struct fn_library {
    struct rb_node node;        /* in the registry's libraries, by name */
    char *name;
    char *code;                 /* FUNCTION LOAD's whole text, shebang included */
    size_t code_len;
    struct fn_function **funcs; /* by name ignoring case; owned */
    size_t nfuncs;
};

/* At start, before anything is loaded: the empty registry and its engine. */
void fn_init(void);
/* At shutdown: frees every library and the engine. */
void fn_close(void);

/* FUNCTION LOAD [REPLACE]: compiles code[0..len) and links the library it
 * names. Returns the library (owned by the registry), or NULL with Redis's
 * error text (without "ERR ") in err. A client's load is stopped after
 * FN_LOAD_TIMEOUT_MS; one the server must obey (the log's replay, a
 * primary's stream: timed 0) runs to its end, as do restores and snapshot
 * loads, as in Redis. */
#define FN_LOAD_TIMEOUT_MS 500
const struct fn_library *fn_load(const char *code, size_t len, int replace, long timeout_ms,
                                 char *err, size_t errlen);
/* FUNCTION DELETE: 0, or -1 when there is no such library. */
int fn_delete(const char *name, size_t len);
/* FUNCTION FLUSH: every library gone, the engine's state made anew. */
void fn_flush(void);

/* A function by name (any case), or NULL. */
const struct fn_function *fn_find(const char *name, size_t len);
/* Libraries in order: fn_first() then fn_next(lib) until NULL. */
const struct fn_library *fn_first(void);
const struct fn_library *fn_next(const struct fn_library *lib);
size_t fn_library_count(void);
size_t fn_function_count(void);
/* Bytes the registry holds (names, codes, descriptions, the structs), and
 * the engine's Lua heap: INFO memory's used_memory_functions and
 * used_memory_vm_functions. */
size_t fn_memory(void);
size_t fn_engine_memory(void);

/* FUNCTION DUMP: a heap payload of every library (caller frees), *len set.
 * FUNCTION RESTORE: loads a payload under policy; 0, or -1 with Redis's
 * error text in err and the registry as it was. */
char *fn_dump(size_t *len);
enum fn_restore_policy { FN_RESTORE_APPEND, FN_RESTORE_REPLACE, FN_RESTORE_FLUSH };
int fn_restore(const char *payload, size_t len, enum fn_restore_policy policy, char *err,
               size_t errlen);

/* After a snapshot was loaded (start, DEBUG RELOAD, a replica's full sync):
 * replaces the registry by the libraries the snapshot held (none: empty).
 * Returns 0, or -1 with the reason logged and the registry unchanged. */
int fn_install_loaded(void);

#endif
