/*
 * cmd_slowlog.c - SLOWLOG GET [count] | LEN | RESET | HELP, in Redis 7.0's
 * replies. The log itself is core's (slowlog.h): what is logged, and how
 * arguments are capped and redacted, is decided there.
 */
#include <limits.h>

#include "args.h"
#include "client.h"
#include "cmd_slowlog.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "slowlog.h"

#define SLOWLOG_GET_DEFAULT 10

static void slowlog_get(struct client *c)
{
    long long count = SLOWLOG_GET_DEFAULT;
    /* GET takes at most one count; Redis's handler, not its arity, says so. */
    if (c->argc > 3) {
        reply_subcommand_syntax(c, "SLOWLOG");
        return;
    }
    if (c->argc == 3 && (resp_parse_ll(c->argv[2].ptr, c->argv[2].len, &count) < 0 || count < -1)) {
        resp_add_error(&c->out, "ERR count should be greater than or equal to -1");
        return;
    }
    size_t n = slowlog_len();
    if (count >= 0 && (unsigned long long)count < n)
        n = (size_t)count;
    resp_add_array_len(&c->out, n);
    for (size_t i = 0; i < n; i++) {
        const struct slowlog_entry *e = slowlog_at(i);
        resp_add_array_len(&c->out, 6);
        resp_add_int(&c->out, e->id);
        resp_add_int(&c->out, e->time);
        resp_add_int(&c->out, e->duration_us);
        resp_add_array_len(&c->out, (size_t)e->argc);
        for (int j = 0; j < e->argc; j++)
            resp_add_bulk(&c->out, e->argv[j].ptr, e->argv[j].len);
        resp_add_bulk_cstr(&c->out, e->peer);
        resp_add_bulk_cstr(&c->out, e->name);
    }
}

static void slowlog_len_command(struct client *c)
{
    resp_add_int(&c->out, (long long)slowlog_len());
}

static void slowlog_reset_command(struct client *c)
{
    slowlog_reset();
    reply_ok(c);
}

static void slowlog_help(struct client *c)
{
    static const char *const help[] = {
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
    };
    reply_help(c, help, sizeof(help) / sizeof(help[0]));
}

static const struct command slowlog_subcommands[] = {
    {.name = "slowlog|get", .proc = slowlog_get, .arity = -2,
     .flags = CMD_ADMIN | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "slowlog|len", .proc = slowlog_len_command, .arity = 2,
     .flags = CMD_ADMIN | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "slowlog|reset", .proc = slowlog_reset_command, .arity = 2,
     .flags = CMD_ADMIN | CMD_LOADING | CMD_STALE, .group = "server"},
    SUBCOMMAND_HELP("slowlog|help", slowlog_help, "server"),
    {0},
};

const struct command slowlog_commands[] = {
    {.name = "slowlog", .arity = -2,
     .group = "server", .subcommands = slowlog_subcommands},
    {0},
};
