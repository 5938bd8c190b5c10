/*
 * cmd_module.c - MODULE LIST | LOAD | LOADEX | UNLOAD | HELP, as Redis 7.0
 * registers them, for a server that has no module ABI: it never loads a
 * shared object, so LIST is always Redis's answer with no module loaded, and
 * LOAD and LOADEX are refused with Redis's error prefix and the reason.
 *
 * LOAD, LOADEX and UNLOAD are protected by enable-module-command (default
 * no), which the dispatcher checks before the handler (command.c), so with
 * the default they answer Redis's "MODULE command not allowed" text.
 */
#include "args.h"
#include "client.h"
#include "cmd_module.h"
#include "resp_writer.h"

/* Redis's text is "ERR Error loading the extension. Please check the server
 * logs."; the same prefix, so clients matching it still do, then why. */
#define ERR_MODULE_LOAD                                                                        \
    "ERR Error loading the extension. rbkv does not load Redis modules (no module ABI)."

static void module_list(struct client *c)
{
    resp_add_array_len(&c->out, 0);
}

/* LOAD and LOADEX: Redis answers one error whatever the arguments (a bad
 * LOADEX argument list is only logged), and so does rbkv. */
static void module_load(struct client *c)
{
    resp_add_error(&c->out, ERR_MODULE_LOAD);
}

/* No module is ever loaded, so every name is Redis's unknown one. */
static void module_unload(struct client *c)
{
    resp_add_error(&c->out, "ERR Error unloading module: no such module with that name");
}

static void module_help(struct client *c)
{
    static const char *const help[] = {
        "LIST",
        "    Return a list of loaded modules.",
        "LOAD <path> [<arg> ...]",
        "    Load a module library from <path>, passing to it any optional arguments.",
        "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
        /* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one line, split for width */
        "    Load a module library from <path>, while passing it module configurations and "
        "optional arguments.",
        "UNLOAD <name>",
        "    Unload a module.",
    };
    reply_help(c, help, sizeof(help) / sizeof(help[0]));
}

#define MODULE_CHANGE_FLAGS (CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_PROTECTED)

static const struct command module_subcommands[] = {
    {.name = "module|list", .proc = module_list, .arity = 2, .flags = CMD_ADMIN | CMD_NOSCRIPT,
     .group = "server"},
    {.name = "module|load", .proc = module_load, .arity = -3, .flags = MODULE_CHANGE_FLAGS,
     .group = "server"},
    {.name = "module|loadex", .proc = module_load, .arity = -3, .flags = MODULE_CHANGE_FLAGS,
     .group = "server"},
    {.name = "module|unload", .proc = module_unload, .arity = 3, .flags = MODULE_CHANGE_FLAGS,
     .group = "server"},
    SUBCOMMAND_HELP("module|help", module_help, "server"),
    {0},
};

const struct command module_commands[] = {
    {.name = "module", .arity = -2,
     .group = "server", .subcommands = module_subcommands},
    {0},
};
