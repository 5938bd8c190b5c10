/*
 * cmd_function.c - FUNCTION LOAD | DELETE | FLUSH | LIST | DUMP | RESTORE |
 * STATS | KILL | HELP, FCALL and FCALL_RO, in Redis 7.0's replies and error
 * texts. The registry is core's (functions.h), the run script.h's.
 *
 * Each subcommand is a row of its own (function_subcommands), so the
 * dispatcher refuses the writing ones (LOAD, DELETE, FLUSH, RESTORE) on a
 * read-only replica as Redis does; they send themselves to the log and the
 * replicas (propagate_effects) once they changed the registry.
 */
#include "cmd_function.h"

#include <string.h>

#include "args.h"
#include "client.h"
#include "config.h"
#include "functions.h"
#include "function_lua.h"
#include "glob.h"
#include "keyspace.h"
#include "mem.h"
#include "propagate.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "script.h"
#include "server.h"

/* The FCALL running now, for FUNCTION STATS asked while it is busy; NULL
 * when none (an EVAL may still be running). */
static struct {
    const struct fn_function *f;
    const struct client *caller;
} now;

/* The registry changed: counted for the save rules and sent as it was. */
static void changed(struct client *c)
{
    server.dirty++;
    propagate_effects(c->db->id, c->argc, c->argv);
}

static void function_load(struct client *c)
{
    int replace = 0, at = 2;
    for (; at < c->argc - 1; at++) {
        if (!arg_is(&c->argv[at], "replace")) {
            resp_add_errorf(&c->out, "ERR Unknown option given: %.*s", (int)c->argv[at].len,
                            c->argv[at].ptr);
            return;
        }
        replace = 1;
    }
    if (at >= c->argc) {
        resp_add_error(&c->out, "ERR Function code is missing");
        return;
    }
    char err[1024];
    /* The log's replay and a primary's stream must load what the original
     * loaded, however long it takes here. */
    int obey = (c->flags & CLIENT_MASTER) || c->id == 0;
    const struct fn_library *lib = fn_load(c->argv[at].ptr, c->argv[at].len, replace,
                                           obey ? 0 : FN_LOAD_TIMEOUT_MS, err, sizeof(err));
    if (!lib) {
        resp_add_errorf(&c->out, "ERR %s", err);
        return;
    }
    resp_add_bulk_cstr(&c->out, lib->name);
    changed(c);
}

static void function_delete(struct client *c)
{
    if (fn_delete(c->argv[2].ptr, c->argv[2].len) < 0) {
        resp_add_error(&c->out, "ERR Library not found");
        return;
    }
    reply_ok(c);
    changed(c);
}

static void function_flush(struct client *c)
{
    if (c->argc > 3) {
        reply_subcommand_syntax(c, "FUNCTION");
        return;
    }
    /* ASYNC frees at once too: a library is its code and a few refs. */
    if (c->argc == 3 && !arg_is(&c->argv[2], "sync") && !arg_is(&c->argv[2], "async")) {
        resp_add_error(&c->out, "ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
        return;
    }
    fn_flush();
    reply_ok(c);
    changed(c);
}

static void reply_flags(struct client *c, unsigned flags)
{
    size_t n = 0;
    for (int i = 0; script_flag_name(i); i++)
        n += (flags >> i) & 1;
    resp_add_set_len(&c->out, n);
    for (int i = 0; script_flag_name(i); i++)
        if ((flags >> i) & 1)
            resp_add_simple(&c->out, script_flag_name(i));
}

static void reply_library(struct client *c, const struct fn_library *lib, int with_code)
{
    resp_add_map_len(&c->out, with_code ? 4 : 3);
    resp_add_bulk_cstr(&c->out, "library_name");
    resp_add_bulk_cstr(&c->out, lib->name);
    resp_add_bulk_cstr(&c->out, "engine");
    resp_add_bulk_cstr(&c->out, "LUA");
    resp_add_bulk_cstr(&c->out, "functions");
    resp_add_array_len(&c->out, lib->nfuncs);
    for (size_t i = 0; i < lib->nfuncs; i++) {
        const struct fn_function *f = lib->funcs[i];
        resp_add_map_len(&c->out, 3);
        resp_add_bulk_cstr(&c->out, "name");
        resp_add_bulk_cstr(&c->out, f->name);
        resp_add_bulk_cstr(&c->out, "description");
        if (f->desc)
            resp_add_bulk(&c->out, f->desc, f->desc_len);
        else
            resp_add_null(&c->out);
        resp_add_bulk_cstr(&c->out, "flags");
        reply_flags(c, f->flags);
    }
    if (with_code) {
        resp_add_bulk_cstr(&c->out, "library_code");
        resp_add_bulk(&c->out, lib->code, lib->code_len);
    }
}

static void function_list(struct client *c)
{
    int with_code = 0;
    const struct resp_slice *pattern = NULL;
    for (int i = 2; i < c->argc; i++) {
        if (!with_code && arg_is(&c->argv[i], "withcode")) {
            with_code = 1;
        } else if (!pattern && arg_is(&c->argv[i], "libraryname")) {
            if (i >= c->argc - 1) {
                resp_add_error(&c->out, "ERR library name argument was not given");
                return;
            }
            pattern = &c->argv[++i];
        } else {
            /* c->argv holds argc slices: never NULL here. */
            // NOLINTNEXTLINE(clang-analyzer-core.NullDereference)
            resp_add_errorf(&c->out, "ERR Unknown argument %.*s", (int)c->argv[i].len,
                            c->argv[i].ptr);
            return;
        }
    }
    struct resp_deferred d;
    if (pattern)
        resp_add_deferred(&c->out, &d);
    else
        resp_add_array_len(&c->out, fn_library_count());
    size_t n = 0;
    for (const struct fn_library *lib = fn_first(); lib; lib = fn_next(lib)) {
        if (pattern &&
            !glob_match(pattern->ptr, pattern->len, lib->name, strlen(lib->name), 1))
            continue;
        reply_library(c, lib, with_code);
        n++;
    }
    if (pattern)
        resp_set_deferred_array(&c->out, &d, n);
}

static void function_dump(struct client *c)
{
    size_t len;
    char *payload = fn_dump(&len);
    resp_add_bulk(&c->out, payload, len);
    xfree(payload);
}

static void function_restore(struct client *c)
{
    if (c->argc > 4) {
        reply_subcommand_syntax(c, "FUNCTION");
        return;
    }
    enum fn_restore_policy policy = FN_RESTORE_APPEND;
    if (c->argc == 4) {
        if (arg_is(&c->argv[3], "append")) {
            policy = FN_RESTORE_APPEND;
        } else if (arg_is(&c->argv[3], "replace")) {
            policy = FN_RESTORE_REPLACE;
        } else if (arg_is(&c->argv[3], "flush")) {
            policy = FN_RESTORE_FLUSH;
        } else {
            resp_add_error(&c->out, "ERR Wrong restore policy given, value should be either "
                                    "FLUSH, APPEND or REPLACE.");
            return;
        }
    }
    char err[1024];
    if (fn_restore(c->argv[2].ptr, c->argv[2].len, policy, err, sizeof(err)) < 0) {
        resp_add_errorf(&c->out, "ERR %s", err);
        return;
    }
    reply_ok(c);
    changed(c);
}

static void function_stats(struct client *c)
{
    /* Busy in an EVAL: Redis answers as to any command then. */
    if (script_running() && !now.f) {
        resp_add_error(&c->out, script_busy_reply());
        return;
    }
    resp_add_map_len(&c->out, 2);
    resp_add_bulk_cstr(&c->out, "running_script");
    if (!now.f) {
        resp_add_null(&c->out);
    } else {
        resp_add_map_len(&c->out, 3);
        resp_add_bulk_cstr(&c->out, "name");
        resp_add_bulk_cstr(&c->out, now.f->name);
        resp_add_bulk_cstr(&c->out, "command");
        resp_add_array_len(&c->out, (size_t)now.caller->argc);
        for (int i = 0; i < now.caller->argc; i++)
            resp_add_bulk(&c->out, now.caller->argv[i].ptr, now.caller->argv[i].len);
        resp_add_bulk_cstr(&c->out, "duration_ms");
        resp_add_int(&c->out, script_run_ms());
    }
    resp_add_bulk_cstr(&c->out, "engines");
    resp_add_map_len(&c->out, 1);
    resp_add_bulk_cstr(&c->out, "LUA");
    resp_add_map_len(&c->out, 2);
    resp_add_bulk_cstr(&c->out, "libraries_count");
    resp_add_int(&c->out, (long long)fn_library_count());
    resp_add_bulk_cstr(&c->out, "functions_count");
    resp_add_int(&c->out, (long long)fn_function_count());
}

static void function_kill(struct client *c)
{
    script_kill(c, 0);
}

static void function_help(struct client *c)
{
    static const char *const help[] = {
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
        "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
        "      libraries with the new libraries (notice that even on this option there is a chance of failure",
        "      in case of functions name collision with another library).",
    };
    reply_help(c, help, sizeof(help) / sizeof(help[0]));
}

/* FCALL function numkeys [key ...] [arg ...], and FCALL_RO. */
static void fcall_generic(struct client *c, int ro)
{
    const struct fn_function *f = fn_find(c->argv[1].ptr, c->argv[1].len);
    if (!f) {
        resp_add_error(&c->out, "ERR Function not found");
        return;
    }
    long long numkeys;
    if (resp_parse_ll(c->argv[2].ptr, c->argv[2].len, &numkeys) < 0) {
        resp_add_error(&c->out, "ERR Bad number of keys provided");
        return;
    }
    if (script_numkeys_or_reply(c, numkeys) < 0)
        return;
    struct script_run run;
    if (script_prepare_or_reply(&run, c, f->name, f->flags, 0, ro, c->argv + 3, numkeys) < 0)
        return;
    int nkeys = (int)numkeys;
    now.f = f;
    now.caller = c;
    fnlua_call(f->ref, &run, nkeys, c->argv + 3, c->argc - 3 - nkeys, c->argv + 3 + nkeys);
    now.f = NULL;
    now.caller = NULL;
    script_finish(&run);
}

/* FCALL's and FCALL_RO's flags are their function's (Redis's
 * fcallGetCommandFlags); an unknown function's handler answers. */
static unsigned fcall_flags(const struct client *c, unsigned flags)
{
    const struct fn_function *f = fn_find(c->argv[1].ptr, c->argv[1].len);
    return f ? script_command_flags(flags, f->flags) : flags;
}

static void cmd_fcall(struct client *c)
{
    fcall_generic(c, 0);
}

static void cmd_fcall_ro(struct client *c)
{
    fcall_generic(c, 1);
}

static const struct command function_subcommands[] = {
    {.name = "function|load", .proc = function_load, .arity = -3,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT, .group = "scripting"},
    {.name = "function|delete", .proc = function_delete, .arity = 3,
     .flags = CMD_WRITE | CMD_NOSCRIPT, .group = "scripting"},
    {.name = "function|flush", .proc = function_flush, .arity = -2,
     .flags = CMD_WRITE | CMD_NOSCRIPT, .group = "scripting"},
    {.name = "function|list", .proc = function_list, .arity = -2,
     .flags = CMD_NOSCRIPT, .group = "scripting"},
    {.name = "function|dump", .proc = function_dump, .arity = 2,
     .flags = CMD_NOSCRIPT, .group = "scripting"},
    {.name = "function|restore", .proc = function_restore, .arity = -3,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT, .group = "scripting"},
    {.name = "function|stats", .proc = function_stats, .arity = 2,
     .flags = CMD_NOSCRIPT | CMD_ALLOW_BUSY, .group = "scripting"},
    {.name = "function|kill", .proc = function_kill, .arity = 2,
     .flags = CMD_NOSCRIPT | CMD_ALLOW_BUSY, .group = "scripting"},
    SUBCOMMAND_HELP("function|help", function_help, "scripting"),
    {0},
};

const struct command function_commands[] = {
    {.name = "function", .arity = -2,
     .group = "scripting", .subcommands = function_subcommands},
    {.name = "fcall", .proc = cmd_fcall, .arity = -3,
     .flags = CMD_NOSCRIPT | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS | CMD_STALE |
              CMD_MOVABLE_KEYS | CMD_MAY_REPLICATE,
     .group = "scripting", .flags_of = fcall_flags},
    {.name = "fcall_ro", .proc = cmd_fcall_ro, .arity = -3,
     .flags = CMD_NOSCRIPT | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS | CMD_STALE |
              CMD_READONLY | CMD_MOVABLE_KEYS,
     .group = "scripting", .flags_of = fcall_flags},
    {0},
};
