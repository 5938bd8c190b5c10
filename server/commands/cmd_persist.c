/*
 * cmd_persist.c - SAVE, BGSAVE, BGREWRITEAOF and LASTSAVE: the replies around
 * the persistence layer's work (bgsave.h, aof.h), which owns the children and
 * their state.
 */
#include "cmd_persist.h"

#include "aof.h"
#include "args.h"
#include "bgsave.h"
#include "command.h"

#define ERR_BGSAVE_RUNNING "ERR Background save already in progress"

static void cmd_save(struct client *c)
{
    if (persist_child_pid()) {
        resp_add_error(&c->out, ERR_BGSAVE_RUNNING);
        return;
    }
    if (persist_save() < 0)
        resp_add_error(&c->out, "ERR");
    else
        reply_ok(c);
}

/* BGSAVE [SCHEDULE]: with no other kind of child to wait for, SCHEDULE
 * starts at once like BGSAVE. */
static void cmd_bgsave(struct client *c)
{
    if (c->argc > 2 || (c->argc == 2 && !arg_is(&c->argv[1], "SCHEDULE"))) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    if (persist_child_pid()) {
        resp_add_error(&c->out, ERR_BGSAVE_RUNNING);
        return;
    }
    if (persist_bgsave() < 0)
        resp_add_error(&c->out, "ERR");
    else
        resp_add_simple(&c->out, "Background saving started");
}

static void cmd_lastsave(struct client *c)
{
    struct persist_status st;
    persist_get_status(&st);
    resp_add_int(&c->out, st.last_save_time);
}

static void cmd_bgrewriteaof(struct client *c)
{
    if (!aof_enabled())
        resp_add_error(&c->out, "ERR the append-only log is off (appendonly no)");
    else if (aof_rewrite_in_progress())
        resp_add_error(&c->out, "ERR Background append only file rewriting already in progress");
    else if (aof_rewrite_start() < 0)
        resp_add_error(&c->out, "ERR Can't execute an AOF background rewriting. Please check "
                                "the server logs for more information.");
    else
        resp_add_simple(&c->out, "Background append only file rewriting started");
}

const struct command persist_commands[] = {
    {.name = "save", .proc = cmd_save, .arity = 1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI,
     .group = "server"},
    {.name = "bgsave", .proc = cmd_bgsave, .arity = -1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING,
     .group = "server"},
    {.name = "bgrewriteaof", .proc = cmd_bgrewriteaof, .arity = 1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING, .group = "server"},
    {.name = "lastsave", .proc = cmd_lastsave, .arity = 1,
     .flags = CMD_LOADING | CMD_STALE | CMD_FAST, .group = "server"},
    {0},
};
