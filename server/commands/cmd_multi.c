/*
 * cmd_multi.c - MULTI, EXEC, DISCARD, WATCH and UNWATCH: the replies around
 * the transaction queue (multi.h) and the watched keys (watch.h).
 */
#include "cmd_multi.h"

#include "args.h"
#include "command.h"
#include "multi.h"
#include "watch.h"

static void cmd_discard(struct client *c)
{
    if (!c->multi) {
        resp_add_error(&c->out, "ERR DISCARD without MULTI");
        return;
    }
    multi_discard(c);
    reply_ok(c);
}

static void cmd_watch(struct client *c)
{
    if (c->multi) {
        resp_add_error(&c->out, "ERR WATCH inside MULTI is not allowed");
        return;
    }
    for (int i = 1; i < c->argc; i++)
        watch_key(c, c->db, c->argv[i].ptr, c->argv[i].len);
    reply_ok(c);
}

static void cmd_unwatch(struct client *c)
{
    watch_unwatch_all(c);
    reply_ok(c);
}

static void cmd_multi(struct client *c)
{
    if (c->multi) {
        resp_add_error(&c->out, "ERR MULTI calls can not be nested");
        return;
    }
    multi_start(c);
    reply_ok(c);
}

static void cmd_exec(struct client *c)
{
    if (!c->multi) {
        resp_add_error(&c->out, "ERR EXEC without MULTI");
        return;
    }
    command_exec(c);
}

#define TX_FLAGS (CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

/* Arity, flags, key positions and docs as Redis 7.0's COMMAND INFO and
 * COMMAND DOCS show them. */
const struct command multi_commands[] = {
    {.name = "multi", .proc = cmd_multi, .arity = 1,
     .flags = TX_FLAGS | CMD_FAST | CMD_TX_NOW | CMD_ALLOW_BUSY,
     .group = "transactions", .since = "1.2.0",
     .summary = "Mark the start of a transaction block",
     .complexity = "O(1)",
     .args = ""},
    {.name = "exec", .proc = cmd_exec, .arity = 1, .flags = TX_FLAGS | CMD_TX_NOW | CMD_TX_END | CMD_SKIP_SLOWLOG,
     .group = "transactions", .since = "1.2.0",
     .summary = "Execute all commands issued after MULTI",
     .complexity = "Depends on commands in the transaction",
     .args = ""},
    {.name = "discard", .proc = cmd_discard, .arity = 1,
     .flags = TX_FLAGS | CMD_FAST | CMD_TX_NOW | CMD_TX_END | CMD_ALLOW_BUSY,
     .group = "transactions", .since = "2.0.0",
     .summary = "Discard all commands issued after MULTI",
     .complexity = "O(N), when N is the number of queued commands",
     .args = ""},
    {.name = "watch", .proc = cmd_watch, .arity = -2,
     .flags = TX_FLAGS | CMD_FAST | CMD_TX_NOW | CMD_ALLOW_BUSY,
     .first_key = 1, .last_key = -1, .key_step = 1,
     .group = "transactions", .since = "2.2.0",
     .summary = "Watch the given keys to determine execution of the MULTI/EXEC block",
     .complexity = "O(1) for every key.",
     .args = "key [key ...]"},
    {.name = "unwatch", .proc = cmd_unwatch, .arity = 1, .flags = TX_FLAGS | CMD_FAST | CMD_ALLOW_BUSY,
     .group = "transactions", .since = "2.2.0",
     .summary = "Forget about all watched keys",
     .complexity = "O(1)",
     .args = ""},
    {0},
};
