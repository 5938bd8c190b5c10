/*
 * cmd_lolwut.c - LOLWUT [VERSION version [args ...]], as Redis 7.0.15
 * answers it.
 *
 * Without VERSION, and for every version but 5 and 6, Redis 7.0 answers the
 * line "Redis ver. <its version>\n" as a verbatim text. VERSION 5 draws
 * Schotter (lolwut_art.c) for its three integer arguments (columns,
 * squares per row, rows), as Redis's lolwut5; VERSION 6 the skyline for its
 * two (columns, rows), as lolwut6 (docs/commands.md).
 */
#include "args.h"
#include "client.h"
#include "cmd_lolwut.h"
#include "lolwut_art.h"
#include "mem.h"
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
        /* Redis's defaults: 66 columns, 8 squares a row, 12 rows. */
        long long args[LOLWUT5_ARGS] = {66, 8, 12};
        for (int i = 3; i < c->argc && i < 3 + nargs; i++) {
            if (arg_ll_or_reply(c, &c->argv[i], &args[i - 3]) < 0)
                return;
        }
        if (version == 6) {
            size_t len;
            /* lolwut6's defaults: 80 columns, 20 rows. */
            long long cols = c->argc > 3 ? args[0] : 80, rows = c->argc > 4 ? args[1] : 20;
            char *art = lolwut_skyline(cols, rows, RBKV_REDIS_COMPAT_VERSION, &len);
            resp_add_verbatim(&c->out, "txt", art, len);
            xfree(art);
            return;
        }
        if (version == 5) {
            size_t len;
            char *art = lolwut_schotter(args[0], args[1], args[2], RBKV_REDIS_COMPAT_VERSION, &len);
            if (!art) {
                resp_add_error(&c->out, "ERR LOLWUT picture too large: use fewer columns or rows");
                return;
            }
            resp_add_verbatim(&c->out, "txt", art, len);
            xfree(art);
            return;
        }
    }
    resp_add_verbatim(&c->out, "txt", line, sizeof(line) - 1);
}

const struct command lolwut_commands[] = {
    {.name = "lolwut", .proc = cmd_lolwut, .arity = -1, .flags = CMD_READONLY | CMD_FAST,
     .group = "server"},
    {0},
};
