/*
 * cmd_script.c - EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT LOAD |
 * EXISTS | FLUSH | KILL | DEBUG | HELP, with Redis 7.0's replies. The
 * cache and the state are core's (eval.h), the engine too (script.h,
 * script_lua.h): this file reads arguments and answers.
 */
#include "args.h"
#include "client.h"
#include "cmd_script.h"
#include "eval.h"
#include "resp_writer.h"
#include "script.h"

/* The flags EVAL and EVALSHA (and their _RO forms) run under: their
 * script's (eval.h). */
static unsigned eval_flags(const struct client *c, unsigned flags)
{
    return eval_request_flags(c, 0, flags);
}

static unsigned evalsha_flags(const struct client *c, unsigned flags)
{
    return eval_request_flags(c, 1, flags);
}

static void cmd_eval(struct client *c)
{
    eval_command(c, 0, 0);
}

static void cmd_evalsha(struct client *c)
{
    eval_command(c, 1, 0);
}

static void cmd_eval_ro(struct client *c)
{
    eval_command(c, 0, 1);
}

static void cmd_evalsha_ro(struct client *c)
{
    eval_command(c, 1, 1);
}

static void script_load(struct client *c)
{
    eval_script_load(c, &c->argv[2]);
}

static void script_exists(struct client *c)
{
    resp_add_array_len(&c->out, (size_t)(c->argc - 2));
    for (int i = 2; i < c->argc; i++)
        resp_add_int(&c->out, eval_script_exists(&c->argv[i]));
}

/* ASYNC is accepted and flushes at once: the cache and the state are small
 * next to a dataset, so no background free is worth a thread. */
static void script_flush(struct client *c)
{
    if (c->argc > 3 || (c->argc == 3 && !arg_is(&c->argv[2], "sync") &&
                        !arg_is(&c->argv[2], "async"))) {
        resp_add_error(&c->out, "ERR SCRIPT FLUSH only support SYNC|ASYNC option");
        return;
    }
    eval_flush();
    reply_ok(c);
}

static void script_kill_command(struct client *c)
{
    script_kill(c, 1);
}

/* There is no Lua debugger: NO is what is already so, YES and SYNC are
 * refused (docs/scripting.md). */
static void script_debug(struct client *c)
{
    const struct resp_slice *mode = &c->argv[2];
    if (arg_is(mode, "no"))
        reply_ok(c);
    else if (arg_is(mode, "yes") || arg_is(mode, "sync"))
        resp_add_error(&c->out, "ERR SCRIPT DEBUG is not supported: rbkv has no Lua debugger");
    else
        resp_add_error(&c->out, "ERR Use SCRIPT DEBUG YES/SYNC/NO");
}

static void script_help(struct client *c)
{
    static const char *const help[] = {
        "DEBUG (YES|SYNC|NO)",
        "    Set the debug mode for subsequent scripts executed.",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
    };
    reply_help(c, help, sizeof(help) / sizeof(help[0]));
}

#define EVAL_FLAGS (CMD_NOSCRIPT | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS | CMD_STALE | CMD_MOVABLE_KEYS)

/* Flags and arity as Redis 7.0's COMMAND INFO (its docs: redis_docs.c). */
static const struct command script_subcommands[] = {
    {.name = "script|load", .proc = script_load, .arity = 3,
     .flags = CMD_NOSCRIPT | CMD_STALE, .group = "scripting"},
    {.name = "script|exists", .proc = script_exists, .arity = -3,
     .flags = CMD_NOSCRIPT, .group = "scripting"},
    {.name = "script|flush", .proc = script_flush, .arity = -2,
     .flags = CMD_NOSCRIPT, .group = "scripting"},
    {.name = "script|kill", .proc = script_kill_command, .arity = 2,
     .flags = CMD_NOSCRIPT | CMD_ALLOW_BUSY, .group = "scripting"},
    {.name = "script|debug", .proc = script_debug, .arity = 3,
     .flags = CMD_NOSCRIPT, .group = "scripting"},
    SUBCOMMAND_HELP("script|help", script_help, "scripting"),
    {0},
};

const struct command script_commands[] = {
    {.name = "eval", .proc = cmd_eval, .arity = -3, .flags = EVAL_FLAGS | CMD_MAY_REPLICATE,
     .group = "scripting", .flags_of = eval_flags},
    {.name = "evalsha", .proc = cmd_evalsha, .arity = -3, .flags = EVAL_FLAGS | CMD_MAY_REPLICATE,
     .group = "scripting", .flags_of = evalsha_flags},
    {.name = "eval_ro", .proc = cmd_eval_ro, .arity = -3, .flags = EVAL_FLAGS | CMD_READONLY,
     .group = "scripting", .flags_of = eval_flags},
    {.name = "evalsha_ro", .proc = cmd_evalsha_ro, .arity = -3, .flags = EVAL_FLAGS | CMD_READONLY,
     .group = "scripting", .flags_of = evalsha_flags},
    {.name = "script", .arity = -2,
     .group = "scripting", .subcommands = script_subcommands},
    {0},
};
