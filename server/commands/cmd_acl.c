/*
 * cmd_acl.c - the ACL command and its subcommands, in Redis 7.0's reply
 * shapes and texts. Users and the check are acl.c's, the rules and
 * categories acl_rules.c's, their text acl_describe.c's, the ACL file
 * acl_file.c's and the log acl_log.c's; this module only reads arguments
 * and writes replies.
 */
#include <stdio.h>
#include <string.h>

#include "acl.h"
#include "acl_describe.h"
#include "acl_file.h"
#include "acl_kill.h"
#include "acl_log.h"
#include "acl_rules.h"
#include "args.h"
#include "client.h"
#include "cmd_acl.h"
#include "command.h"
#include "log.h"
#include "mem.h"
#include "resp_num.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"

static void acl_setuser_cmd(struct client *c)
{
    char err[512];
    struct acl_user *u = acl_lookup(c->argv[2].ptr, c->argv[2].len);
    int had_channels = u && acl_user_has_channels(u);
    if (!acl_username_valid(c->argv[2].ptr, c->argv[2].len)) {
        resp_add_error(&c->out, "ERR Usernames can't contain spaces or null characters");
    } else if (acl_setuser(&c->argv[2], c->argc - 3, c->argv + 3, err, sizeof(err)) < 0) {
        resp_add_errorf(&c->out, "ERR %s", err);
    } else {
        /* Subscribers whose channels the new rules took away go. */
        if (u)
            acl_kill_revoked_subscribers(u, had_channels, c);
        reply_ok(c);
    }
    /* Redis 7.0 hides every argument after SETUSER from the slow log and
     * MONITOR, the name too: any of them may be a secret. */
    for (int i = 2; i < c->argc; i++)
        command_redact_arg(c, i);
}

static void acl_deluser_cmd(struct client *c)
{
    long long deleted = 0;
    for (int i = 2; i < c->argc; i++) {
        if (arg_is(&c->argv[i], "default")) {
            resp_add_error(&c->out, "ERR The 'default' user cannot be removed");
            return;
        }
    }
    for (int i = 2; i < c->argc; i++)
        deleted += acl_deluser(c, &c->argv[i]);
    resp_add_int(&c->out, deleted);
}

static struct acl_user *user_or_reply(struct client *c, const struct resp_slice *name)
{
    struct acl_user *u = acl_lookup(name->ptr, name->len);
    if (!u)
        resp_add_errorf(&c->out, "ERR User '%.*s' not found", (int)name->len, name->ptr);
    return u;
}

/* commands, keys and channels of selector i, as strings. */
static void add_selector(struct client *c, const struct acl_user *u, size_t i)
{
    char *s = acl_describe_commands(u, i);
    resp_add_bulk_cstr(&c->out, "commands");
    resp_add_bulk_cstr(&c->out, s);
    xfree(s);
    s = acl_describe_keys(u, i);
    resp_add_bulk_cstr(&c->out, "keys");
    resp_add_bulk_cstr(&c->out, s);
    xfree(s);
    s = acl_describe_channels(u, i);
    resp_add_bulk_cstr(&c->out, "channels");
    resp_add_bulk_cstr(&c->out, s);
    xfree(s);
}

static void acl_getuser_cmd(struct client *c)
{
    const struct acl_user *u = acl_lookup(c->argv[2].ptr, c->argv[2].len);
    if (!u) {
        resp_add_null(&c->out);
        return;
    }
    resp_add_map_len(&c->out, 6);
    resp_add_bulk_cstr(&c->out, "flags");
    const char *words[ACL_FLAG_WORDS_MAX];
    size_t n = acl_flag_words(u, words);
    resp_add_array_len(&c->out, n);
    for (size_t i = 0; i < n; i++)
        resp_add_bulk_cstr(&c->out, words[i]);
    resp_add_bulk_cstr(&c->out, "passwords");
    resp_add_array_len(&c->out, u->nhashes);
    for (size_t i = 0; i < u->nhashes; i++) {
        char hex[65];
        for (int k = 0; k < 32; k++)
            snprintf(hex + 2 * k, 3, "%02x", u->hashes[i][k]);
        resp_add_bulk(&c->out, hex, 64);
    }
    add_selector(c, u, 0);
    resp_add_bulk_cstr(&c->out, "selectors");
    resp_add_array_len(&c->out, u->nsel - 1);
    for (size_t i = 1; i < u->nsel; i++) {
        resp_add_map_len(&c->out, 3);
        add_selector(c, u, i);
    }
}

static void acl_list_cmd(struct client *c)
{
    resp_add_array_len(&c->out, acl_user_count());
    for (size_t i = 0; i < acl_user_count(); i++) {
        const struct acl_user *u = acl_user_at(i);
        char *d = acl_describe(u);
        size_t len = strlen(u->name) + strlen(d) + 7;
        char *line = xmalloc(len);
        snprintf(line, len, "user %s %s", u->name, d);
        resp_add_bulk_cstr(&c->out, line);
        xfree(line);
        xfree(d);
    }
}

static void acl_users_cmd(struct client *c)
{
    resp_add_array_len(&c->out, acl_user_count());
    for (size_t i = 0; i < acl_user_count(); i++)
        resp_add_bulk_cstr(&c->out, acl_user_at(i)->name);
}

static void acl_whoami_cmd(struct client *c)
{
    resp_add_bulk_cstr(&c->out, acl_user_name(c->user));
}

static void acl_cat_cmd(struct client *c)
{
    if (c->argc == 2) {
        resp_add_array_len(&c->out, ACL_CATEGORY_COUNT);
        for (int i = 0; i < ACL_CATEGORY_COUNT; i++)
            resp_add_bulk_cstr(&c->out, acl_category_names[i]);
        return;
    }
    if (c->argc > 3) {
        reply_wrong_arity(c);
        return;
    }
    int cat = acl_category_lookup(c->argv[2].ptr, c->argv[2].len);
    if (cat < 0) {
        resp_add_errorf(&c->out, "ERR Unknown category '%.*s'", (int)c->argv[2].len,
                        c->argv[2].ptr);
        return;
    }
    struct resp_deferred len;
    size_t n = 0;
    resp_add_deferred(&c->out, &len);
    for (size_t i = 0; i < command_row_count(); i++) {
        const struct command *cmd = command_row_at(i);
        if (acl_command_categories(cmd) & 1u << cat) {
            resp_add_bulk_cstr(&c->out, cmd->name);
            n++;
        }
    }
    resp_set_deferred_array(&c->out, &len, n);
}

/* Redis's GENPASS: bits of randomness (256 by default) as hex. */
#define GENPASS_MAX_BITS 4096

static void acl_genpass_cmd(struct client *c)
{
    long long bits = 256;
    if (c->argc > 3) {
        reply_wrong_arity(c);
        return;
    }
    if (c->argc == 3 && (resp_parse_ll(c->argv[2].ptr, c->argv[2].len, &bits) < 0 || bits <= 0 ||
                         bits > GENPASS_MAX_BITS)) {
        resp_add_error(&c->out, "ERR ACL GENPASS argument must be the number of bits for the "
                                "output password, a positive number up to 4096");
        return;
    }
    size_t chars = (size_t)(bits + 3) / 4;
    char hex[GENPASS_MAX_BITS / 4 + 1];
    if (acl_random_hex(hex, chars) < 0)
        resp_add_error(&c->out, "ERR no secure random bytes available");
    else
        resp_add_bulk(&c->out, hex, chars);
}

static void acl_log_cmd(struct client *c)
{
    long long count = 10;
    if (c->argc > 3) {
        reply_wrong_arity(c);
        return;
    }
    if (c->argc == 3) {
        if (arg_is(&c->argv[2], "RESET")) {
            acl_log_reset();
            reply_ok(c);
            return;
        }
        if (resp_parse_ll(c->argv[2].ptr, c->argv[2].len, &count) < 0 || count < 0) {
            resp_add_error(&c->out, ERR_NOT_INT);
            return;
        }
    }
    acl_log_reply(&c->out, (long)count);
}

#define ERR_NO_ACLFILE                                                                          \
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify "   \
    "users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a "  \
    "Redis configuration file set) in order to store users in the Redis configuration."

static void acl_load_cmd(struct client *c)
{
    char err[512];
    if (!server.cfg.aclfile)
        resp_add_error(&c->out, ERR_NO_ACLFILE);
    else if (acl_load_file(c, server.cfg.aclfile, err, sizeof(err)) < 0)
        resp_add_errorf(&c->out, "ERR %s", err);
    else
        reply_ok(c);
}

static void acl_save_cmd(struct client *c)
{
    char err[512];
    if (!server.cfg.aclfile)
        resp_add_error(&c->out, ERR_NO_ACLFILE);
    else if (acl_save_file(server.cfg.aclfile, err, sizeof(err)) < 0) {
        /* Redis's reply, word for word; the cause goes to the log. */
        log_warning("%s", err);
        resp_add_error(&c->out, "ERR There was an error trying to save the ACLs. Please check "
                                "the server logs for more information");
    } else
        reply_ok(c);
}

/* ACL DRYRUN user command arg...: the check alone, answered "OK" or with
 * Redis's sentence as a bulk string. */
static void acl_dryrun_cmd(struct client *c)
{
    const struct acl_user *u = user_or_reply(c, &c->argv[2]);
    if (!u)
        return;
    int argc = c->argc - 3;
    const struct command *cmd = command_resolve(argc, c->argv + 3);
    if (!cmd) {
        resp_add_errorf(&c->out, "ERR Command '%.*s' not found", (int)c->argv[3].len,
                        c->argv[3].ptr);
        return;
    }
    if (cmd->arity >= 0 ? argc != cmd->arity : argc < -cmd->arity) {
        resp_add_errorf(&c->out, "ERR wrong number of arguments for '%s' command", cmd->name);
        return;
    }
    int pos = 0;
    enum acl_denial d = acl_check(u, cmd, argc, c->argv + 3, &pos);
    char text[256];
    const struct resp_slice *arg = pos > 0 ? &c->argv[3 + pos] : NULL;
    int alen = arg ? (int)(arg->len < 128 ? arg->len : 128) : 0;
    if (d == ACL_ALLOWED) {
        reply_ok(c);
        return;
    }
    if (d == ACL_DENIED_CMD)
        snprintf(text, sizeof(text), "This user has no permissions to run the '%s' command",
                 cmd->name);
    else if (!arg)
        snprintf(text, sizeof(text), "This user has no permissions to access the keys '%s' "
                                     "reaches",
                 cmd->name);
    else
        snprintf(text, sizeof(text), "This user has no permissions to access the '%.*s' %s", alen,
                 arg->ptr, d == ACL_DENIED_KEY ? "key" : "channel");
    resp_add_bulk_cstr(&c->out, text);
}

static void acl_help_cmd(struct client *c)
{
    static const char *const lines[] = {
        "CAT [<category>]",
        "    List all commands that belong to <category>, or all command categories",
        "    when no category is specified.",
        "DELUSER <username> [<username> ...]",
        "    Delete a list of users.",
        "DRYRUN <username> <command> [<arg> ...]",
        /* One line of Redis's text, split for width. */
        // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
        "    Returns whether the user can execute the given command without executing the "
        "command.",
        "GETUSER <username>",
        "    Get the user's details.",
        "GENPASS [<bits>]",
        "    Generate a secure 256-bit user password. The optional `bits` argument can",
        "    be used to specify a different size.",
        "LIST",
        "    Show users details in config file format.",
        "LOAD",
        "    Reload users from the ACL file.",
        "LOG [<count> | RESET]",
        "    Show the ACL log entries.",
        "SAVE",
        "    Save the current config to the ACL file.",
        "SETUSER <username> <attribute> [<attribute> ...]",
        "    Create or modify a user with the specified attributes.",
        "USERS",
        "    List all the registered usernames.",
        "WHOAMI",
        "    Return the current connection username.",
    };
    reply_help(c, lines, sizeof(lines) / sizeof(lines[0]));
}

static const struct command acl_subcommands[] = {
    {.name = "acl|setuser", .proc = acl_setuser_cmd, .arity = -3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "acl|getuser", .proc = acl_getuser_cmd, .arity = 3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "acl|deluser", .proc = acl_deluser_cmd, .arity = -3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "acl|list", .proc = acl_list_cmd, .arity = 2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "acl|users", .proc = acl_users_cmd, .arity = 2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "acl|whoami", .proc = acl_whoami_cmd, .arity = 2,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "acl|cat", .proc = acl_cat_cmd, .arity = -2,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "acl|genpass", .proc = acl_genpass_cmd, .arity = -2,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "acl|log", .proc = acl_log_cmd, .arity = -2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "acl|load", .proc = acl_load_cmd, .arity = 2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "acl|save", .proc = acl_save_cmd, .arity = 2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "acl|dryrun", .proc = acl_dryrun_cmd, .arity = -4,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    SUBCOMMAND_HELP("acl|help", acl_help_cmd, "server"),
    {0},
};

const struct command acl_commands[] = {
    /* Redis puts noscript, loading and stale on every subcommand but HELP;
     * rbkv's flags are the container's, as CONFIG's. */
    {.name = "acl", .arity = -2,
     .group = "server", .subcommands = acl_subcommands},
    {0},
};
