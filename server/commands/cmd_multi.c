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

/* Arity, flags and key positions as Redis 7.0's COMMAND INFO shows them
 * (COMMAND DOCS answers Redis's own docs, redis_docs.c). */
const struct command multi_commands[] = {
    {.name = "multi", .proc = cmd_multi, .arity = 1,
     .flags = TX_FLAGS | CMD_FAST | CMD_TX_NOW | CMD_ALLOW_BUSY, .group = "transactions"},
    {.name = "exec", .proc = cmd_exec, .arity = 1, .flags = TX_FLAGS | CMD_TX_NOW | CMD_TX_END | CMD_SKIP_SLOWLOG,
     .group = "transactions"},
    {.name = "discard", .proc = cmd_discard, .arity = 1,
     .flags = TX_FLAGS | CMD_FAST | CMD_TX_NOW | CMD_TX_END | CMD_ALLOW_BUSY,
     .group = "transactions"},
    {.name = "watch", .proc = cmd_watch, .arity = -2,
     .flags = TX_FLAGS | CMD_FAST | CMD_TX_NOW | CMD_ALLOW_BUSY,
     .first_key = 1, .last_key = -1, .key_step = 1, .group = "transactions"},
    {.name = "unwatch", .proc = cmd_unwatch, .arity = 1, .flags = TX_FLAGS | CMD_FAST | CMD_ALLOW_BUSY,
     .group = "transactions"},
    {0},
};
