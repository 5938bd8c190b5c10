/*
 * cmd_lolwut.c - LOLWUT [VERSION version], as Redis 7.0.15 answers it.
 *
 * Redis 7.0 draws no art of its own: without VERSION, and for every version
 * but 5 and 6, it answers the line "Redis ver. <its version>\n" as a
 * verbatim text. Versions 5 and 6 draw random pictures (Schotter, the
 * skyline), of which rbkv draws none: it checks their arguments as Redis
 * does, with Redis's error, and answers the line (docs/commands.md).
 */
#include "args.h"
#include "client.h"
#include "cmd_lolwut.h"
#include "resp_writer.h"

/* Redis's art versions read this many integer arguments after VERSION n
 * (lolwut5: columns, squares per row and per column; lolwut6: columns and
 * rows), erring on the first that is not one. */
#define LOLWUT5_ARGS 3
#define LOLWUT6_ARGS 2

static void cmd_lolwut(struct client *c)
{
    static const char line[] = "Redis ver. " RBKV_REDIS_COMPAT_VERSION "\n";
    if (c->argc >= 3 && arg_is(&c->argv[1], "version")) {
        long long v;
        if (arg_ll_or_reply(c, &c->argv[2], &v) < 0)
            return;
        /* Redis prints the version with "%u.0.0" from an unsigned int, so
         * it picks the art by the low 32 bits. */
        unsigned version = (unsigned)v;
        int nargs = version == 5 ? LOLWUT5_ARGS : version == 6 ? LOLWUT6_ARGS : 0;
        for (int i = 3; i < c->argc && i < 3 + nargs; i++) {
            long long ignored;
            if (arg_ll_or_reply(c, &c->argv[i], &ignored) < 0)
                return;
        }
    }
    resp_add_verbatim(&c->out, "txt", line, sizeof(line) - 1);
}

const struct command lolwut_commands[] = {
    {.name = "lolwut", .proc = cmd_lolwut, .arity = -1, .flags = CMD_READONLY | CMD_FAST,
     .group = "server", .since = "5.0.0",
     .summary = "Display some computer art and the Redis version",
     .args = "[VERSION version]"},
    {0},
};
