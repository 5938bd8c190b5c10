/*
 * acl_deny.c - what a refused request gets: Redis's NOPERM reply and its
 * ACL LOG entry.
 *
 * The dispatcher asks here (acl_refuses, and acl_refuses_at_exec at EXEC),
 * a script's redis.call logs through acl_log_denial; the check itself is
 * acl.c's and the log acl_log.c's, so neither of those needs the other.
 */
#include "acl_deny.h"

#include <string.h>

#include "acl_log.h"
#include "client.h"
#include "command_table.h"
#include "resp_writer.h"

void acl_add_denial(struct resp_out *o, enum acl_denial d, const char *object)
{
    if (d == ACL_DENIED_KEY)
        resp_add_error(o, "NOPERM this user has no permissions to access one of the keys used "
                          "as arguments");
    else if (d == ACL_DENIED_CHANNEL)
        resp_add_error(o, "NOPERM this user has no permissions to access one of the channels "
                          "used as arguments");
    else
        resp_add_errorf(o, "NOPERM this user has no permissions to run the '%s' command", object);
}

void acl_log_denial(struct client *c, enum acl_log_context ctx, enum acl_denial d,
                    const struct command *cmd, const struct resp_slice *argv, int pos)
{
    const char *name = acl_user_name(c->user);
    if (d == ACL_DENIED_CMD) {
        /* A subcommand's row is named "container|sub", as Redis logs it. */
        acl_log_add(c, "command", ctx, cmd->name, strlen(cmd->name), name, strlen(name));
    } else if (pos > 0) {
        acl_log_add(c, d == ACL_DENIED_KEY ? "key" : "channel", ctx, argv[pos].ptr,
                    argv[pos].len, name, strlen(name));
    } else {
        acl_log_add(c, "key", ctx, cmd->name, strlen(cmd->name), name, strlen(name));
    }
}

int acl_refuses(struct client *c, const struct command *cmd)
{
    int pos = 0;
    enum acl_denial d = acl_check(c->user, cmd, c->argc, c->argv, &pos);
    if (d == ACL_ALLOWED)
        return 0;
    /* Redis 7.0 logs a command refused while MULTI queues it as "multi". */
    acl_log_denial(c, c->multi ? ACL_LOG_MULTI : ACL_LOG_TOPLEVEL, d, cmd, c->argv, pos);
    acl_add_denial(&c->out, d, cmd->name);
    return 1;
}

int acl_refuses_at_exec(struct client *c, const struct command *cmd)
{
    if (!c->user || (c->user->flags & ACL_USER_ALLPERM))
        return 0;
    int pos = 0;
    enum acl_denial d = acl_check(c->user, cmd, c->argc, c->argv, &pos);
    if (d == ACL_ALLOWED)
        return 0;
    acl_log_denial(c, ACL_LOG_MULTI, d, cmd, c->argv, pos);
    resp_add_errorf(&c->out,
                    "NOPERM ACLs rules changed between the moment the transaction was "
                    "accumulated and the EXEC call. This command is no longer allowed for the "
                    "following reason: %s",
                    d == ACL_DENIED_CMD   ? "no permission to execute the command or subcommand"
                    : d == ACL_DENIED_KEY ? "no permission to touch the specified keys"
                                          : "no permission to access one of the channels used "
                                            "as arguments");
    return 1;
}
