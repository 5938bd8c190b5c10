/*
 * cmd_connection.c - commands about the connection itself: PING, ECHO, QUIT,
 * HELLO, AUTH, SELECT and CLIENT.
 *
 * Owns no state: everything lives in struct client. Users and passwords
 * are acl.c's, which compares in constant time.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl.h"
#include "acl_log.h"
#include "args.h"
#include "blocking.h"
#include "client.h"
#include "clientinfo.h"
#include "cmd_connection.h"
#include "cmd_tracking.h"
#include "conn.h"
#include "keyspace.h"
#include "clock.h"
#include "mem.h"
#include "monitor.h"
#include "multi.h"
#include "pause.h"
#include "pubsub.h"
#include "resp_num.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"
#include "tracking.h"
#include "watch.h"

static void cmd_ping(struct client *c)
{
    if (c->argc > 2) {
        reply_wrong_arity(c);
        return;
    }
    /* A RESP2 subscriber's replies are arrays, as its messages are. */
    if (c->out.proto == 2 && pubsub_client_subscribed(c)) {
        resp_add_array_len(&c->out, 2);
        resp_add_bulk(&c->out, "pong", 4);
        resp_add_bulk(&c->out, c->argc == 2 ? c->argv[1].ptr : "", c->argc == 2 ? c->argv[1].len : 0);
        return;
    }
    if (c->argc == 2)
        resp_add_bulk(&c->out, c->argv[1].ptr, c->argv[1].len);
    else
        resp_add_simple(&c->out, "PONG");
}

static void cmd_echo(struct client *c)
{
    resp_add_bulk(&c->out, c->argv[1].ptr, c->argv[1].len);
}

/* Redis 6.2's RESET: the connection as it was when it connected, but
 * still open: no transaction, WATCH or subscription, database 0, RESP2, no
 * name, no longer a monitor, no NO-EVICT or NO-TOUCH (as Redis 7.2), and not
 * authenticated when a password is set. */
static void cmd_reset(struct client *c)
{
    multi_discard(c);
    watch_unwatch_all(c);
    pubsub_client_gone(c);
    monitor_stop(c);
    tracking_disable(c);
    c->flags &= ~(CLIENT_NO_EVICT | CLIENT_NO_TOUCH | CLIENT_ASKING | CLIENT_READONLY |
                  CLIENT_LOCAL_QUERY | CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP_NEXT | CLIENT_REPLY_SKIP);
    c->out.muted = 0;
    c->db_index = 0;
    c->db = &server.ks->dbs[0];
    c->out.proto = 2;
    xfree(c->name);
    c->name = NULL;
    c->user = acl_default_user();
    if (acl_default_requires_auth())
        c->flags &= ~CLIENT_AUTHENTICATED;
    else
        c->flags |= CLIENT_AUTHENTICATED;
    resp_add_simple(&c->out, "RESET");
}

static void cmd_quit(struct client *c)
{
    reply_ok(c);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

/* Checks user ("default" when NULL) and password; replies and logs the
 * failure in ACL LOG. Returns 0 when c now acts as that user. */
static int authenticate_or_reply(struct client *c, const struct resp_slice *user,
                                 const struct resp_slice *pass)
{
    static const struct resp_slice default_name = {.ptr = "default", .len = 7};
    const struct resp_slice *name = user ? user : &default_name;
    struct acl_user *u = acl_authenticate(name, pass);
    if (!u) {
        acl_log_add(c, "auth", ACL_LOG_TOPLEVEL, "AUTH", 4, name->ptr, name->len);
        resp_add_error(&c->out, ERR_WRONGPASS);
        return -1;
    }
    c->user = u;
    c->flags |= CLIENT_AUTHENTICATED;
    conn_update_limits(c);
    return 0;
}

static void cmd_auth(struct client *c)
{
    /* Redis shows a malformed AUTH to monitors unredacted: only the two
     * forms that carry a password are redacted. */
    if (c->argc > 3) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    if (c->argc == 2 && (acl_default_user()->flags & ACL_USER_NOPASS))
        resp_add_error(&c->out, "ERR AUTH <password> called without any password configured for "
                                "the default user. Are you sure your configuration is correct?");
    else if (authenticate_or_reply(c, c->argc == 3 ? &c->argv[1] : NULL,
                                   &c->argv[c->argc - 1]) == 0)
        reply_ok(c);
    for (int i = 1; i < c->argc; i++)
        command_redact_arg(c, i);
}

static void reply_hello(struct client *c)
{
    resp_add_map_len(&c->out, 7);
    resp_add_bulk_cstr(&c->out, "server");
    resp_add_bulk_cstr(&c->out, "redis");
    resp_add_bulk_cstr(&c->out, "version");
    resp_add_bulk_cstr(&c->out, RBKV_REDIS_COMPAT_VERSION);
    resp_add_bulk_cstr(&c->out, "proto");
    resp_add_int(&c->out, c->out.proto);
    resp_add_bulk_cstr(&c->out, "id");
    resp_add_int(&c->out, (long long)c->id);
    resp_add_bulk_cstr(&c->out, "mode");
    resp_add_bulk_cstr(&c->out, "standalone");
    resp_add_bulk_cstr(&c->out, "role");
    resp_add_bulk_cstr(&c->out, "master");
    resp_add_bulk_cstr(&c->out, "modules");
    resp_add_array_len(&c->out, 0);
}

/* HELLO [protover [AUTH username password] [SETNAME clientname]] */
static void cmd_hello(struct client *c)
{
    long long ver = 0;
    const struct resp_slice *setname = NULL;
    int i = 1;

    if (c->argc >= 2) {
        if (resp_parse_ll(c->argv[1].ptr, c->argv[1].len, &ver) < 0) {
            resp_add_error(&c->out, "ERR Protocol version is not an integer or out of range");
            return;
        }
        if (ver < 2 || ver > 3) {
            resp_add_error(&c->out, "NOPROTO unsupported protocol version");
            return;
        }
        i = 2;
    }
    for (; i < c->argc; i++) {
        int more = c->argc - i - 1;
        if (arg_is(&c->argv[i], "AUTH") && more >= 2) {
            int rc = authenticate_or_reply(c, &c->argv[i + 1], &c->argv[i + 2]);
            command_redact_arg(c, i + 1);
            command_redact_arg(c, i + 2);
            if (rc < 0)
                return;
            i += 2;
        } else if (arg_is(&c->argv[i], "SETNAME") && more >= 1) {
            setname = &c->argv[++i];
        } else {
            resp_add_errorf(&c->out, "ERR Syntax error in HELLO option '%.*s'",
                            (int)c->argv[i].len, c->argv[i].ptr);
            return;
        }
    }
    if (!(c->flags & CLIENT_AUTHENTICATED) && acl_default_requires_auth()) {
        resp_add_error(&c->out, "NOAUTH HELLO must be called with the client already "
                                "authenticated, otherwise the HELLO <proto> AUTH <user> <pass> "
                                "option can be used to authenticate the client and select the "
                                "RESP protocol version at the same time");
        return;
    }
    if (setname) {
        for (size_t k = 0; k < setname->len; k++) {
            if (setname->ptr[k] <= ' ' || setname->ptr[k] > '~') {
                resp_add_error(&c->out, "ERR Client names cannot contain spaces, newlines or "
                                        "special characters.");
                return;
            }
        }
        xfree(c->name);
        c->name = setname->len ? arg_strdup(setname) : NULL;
    }
    if (ver)
        c->out.proto = (int)ver;
    reply_hello(c);
}

static void cmd_select(struct client *c)
{
    struct db *db;
    long long id;
    /* Cluster mode has database 0 alone; the index is read (and its int
     * range checked, by arg_db_or_reply) first, as Redis. */
    if (server.cfg.cluster_enabled) {
        if (arg_ll_or_reply(c, &c->argv[1], &id) < 0)
            return;
        if (id != 0 && id >= INT_MIN && id <= INT_MAX) {
            resp_add_error(&c->out, "ERR SELECT is not allowed in cluster mode");
            return;
        }
    }
    if (arg_db_or_reply(c, &c->argv[1], &db) < 0)
        return;
    c->db_index = (int)(db - server.ks->dbs);
    c->db = db;
    reply_ok(c);
}

/* MONITOR: from now on c receives a line for every command the server runs
 * (monitor.h). As in Redis, a second MONITOR, or one from a replica's link,
 * is ignored without a reply; one run by EXEC is refused, since a
 * transaction's client expects one reply per command. */
static void cmd_monitor(struct client *c)
{
    if (c->multi) {
        resp_add_error(&c->out, "ERR MONITOR isn't allowed for DENY BLOCKING client");
        return;
    }
    if (c->flags & (CLIENT_MONITOR | CLIENT_REPLICA))
        return;
    monitor_start(c);
    reply_ok(c);
}

/* CLIENT LIST TYPE and CLIENT KILL TYPE's kinds, as Redis's getClientType:
 * a primary's link is "master", a replica's "replica" (or "slave"), every
 * a client with subscriptions "pubsub", every other client "normal". */
enum client_type { CLIENT_TYPE_NORMAL, CLIENT_TYPE_REPLICA, CLIENT_TYPE_PUBSUB, CLIENT_TYPE_MASTER };

static enum client_type client_type_of(const struct client *c)
{
    if (c->flags & CLIENT_MASTER)
        return CLIENT_TYPE_MASTER;
    if (c->flags & CLIENT_REPLICA)
        return CLIENT_TYPE_REPLICA;
    if (pubsub_client_subscribed(c))
        return CLIENT_TYPE_PUBSUB;
    return CLIENT_TYPE_NORMAL;
}

/* The type a TYPE argument names; -1 after replying Redis's error. */
static int client_type_or_reply(struct client *c, const struct resp_slice *a)
{
    if (arg_is(a, "normal"))
        return CLIENT_TYPE_NORMAL;
    if (arg_is(a, "replica") || arg_is(a, "slave"))
        return CLIENT_TYPE_REPLICA;
    if (arg_is(a, "pubsub"))
        return CLIENT_TYPE_PUBSUB;
    if (arg_is(a, "master"))
        return CLIENT_TYPE_MASTER;
    resp_add_errorf(&c->out, "ERR Unknown client type '%.*s'", (int)a->len, a->ptr);
    return -1;
}

/* Appends o's line to text[0..*used) of capacity *cap, growing it. */
static char *client_list_add(char *text, size_t *used, size_t *cap, const struct client *o)
{
    char line[1024];
    client_info_line(o, line, sizeof(line));
    size_t n = strlen(line);
    if (*used + n + 2 > *cap) {
        *cap = (*used + n + 2) * 2;
        text = xrealloc(text, *cap);
    }
    /* text is a length-counted reply, NUL-free by design. */
    memcpy(text + *used, line, n); // NOLINT(bugprone-not-null-terminated-result)
    *used += n;
    text[(*used)++] = '\n';
    return text;
}

/* CLIENT LIST [TYPE normal|master|replica|slave|pubsub] | CLIENT LIST ID id [id ...] */
static void client_list(struct client *c)
{
    int type = -1;
    if (c->argc == 4 && arg_is(&c->argv[2], "TYPE")) {
        if ((type = client_type_or_reply(c, &c->argv[3])) < 0)
            return;
    } else if (c->argc > 3 && arg_is(&c->argv[2], "ID")) {
        long long id;
        for (int i = 3; i < c->argc; i++) { /* all valid before any output */
            if (resp_parse_ll(c->argv[i].ptr, c->argv[i].len, &id) < 0) {
                resp_add_error(&c->out, "ERR Invalid client ID");
                return;
            }
        }
    } else if (c->argc != 2) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }

    size_t cap = 4096, used = 0;
    char *text = xmalloc(cap);
    if (c->argc > 3 && type < 0) {
        for (int i = 3; i < c->argc; i++) {
            long long id = 0;
            resp_parse_ll(c->argv[i].ptr, c->argv[i].len, &id);
            struct client *o = id > 0 ? conn_find((uint64_t)id) : NULL;
            if (o && !(o->flags & CLIENT_CLOSING))
                text = client_list_add(text, &used, &cap, o);
        }
    } else {
        for (struct client *o = server.clients; o; o = o->next) {
            if (o->flags & CLIENT_CLOSING)
                continue;
            if (type >= 0 && (int)client_type_of(o) != type)
                continue;
            text = client_list_add(text, &used, &cap, o);
        }
    }
    resp_add_verbatim(&c->out, "txt", text, used);
    xfree(text);
}

/* Whether a names address, byte for byte (Redis's strcmp: a Unix socket's
 * path keeps its case). */
static int same_address(const struct resp_slice *a, const char *address)
{
    return strlen(address) == a->len && memcmp(address, a->ptr, a->len) == 0;
}

/* CLIENT KILL addr:port | CLIENT KILL [ID id] [ADDR a] [LADDR a] [SKIPME yes|no]
 * [TYPE t] [USER name]: the filters combine (a client must pass every one),
 * parsed pair by pair in Redis's order, so the first bad pair's error is the
 * one given. The old form may kill the caller itself. */
static void client_kill(struct client *c)
{
    const struct resp_slice *addr = NULL, *laddr = NULL;
    const struct acl_user *user = NULL;
    long long id = 0;
    int skipme = 1, killed = 0, type = -1;
    int old_form = c->argc == 3;

    if (old_form) {
        addr = &c->argv[2];
        skipme = 0;
    }
    for (int i = 2; !old_form && i < c->argc; i += 2) {
        const struct resp_slice *v = i + 1 < c->argc ? &c->argv[i + 1] : NULL;
        if (v && arg_is(&c->argv[i], "ID")) {
            if (resp_parse_ll(v->ptr, v->len, &id) < 0 || id <= 0) {
                resp_add_error(&c->out, "ERR client-id should be greater than 0");
                return;
            }
        } else if (v && arg_is(&c->argv[i], "TYPE")) {
            if ((type = client_type_or_reply(c, v)) < 0)
                return;
        } else if (v && arg_is(&c->argv[i], "ADDR")) {
            addr = v;
        } else if (v && arg_is(&c->argv[i], "LADDR")) {
            laddr = v;
        } else if (v && arg_is(&c->argv[i], "USER")) {
            if (!(user = acl_lookup(v->ptr, v->len))) {
                resp_add_errorf(&c->out, "ERR No such user '%.*s'", (int)v->len, v->ptr);
                return;
            }
        } else if (v && arg_is(&c->argv[i], "SKIPME")) {
            if (arg_is(v, "yes"))
                skipme = 1;
            else if (arg_is(v, "no"))
                skipme = 0;
            else {
                resp_add_error(&c->out, ERR_SYNTAX);
                return;
            }
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    for (struct client *o = server.clients; o; o = o->next) {
        if (o->flags & CLIENT_CLOSING)
            continue;
        if (addr && !same_address(addr, o->addr))
            continue;
        if (laddr && !same_address(laddr, o->laddr))
            continue;
        if (type >= 0 && (int)client_type_of(o) != type)
            continue;
        if (id && o->id != (uint64_t)id)
            continue;
        if (user && o->user != user)
            continue;
        if (o == c && skipme)
            continue;
        killed++;
        if (o == c)
            c->flags |= CLIENT_CLOSE_AFTER_REPLY; /* our own reply still goes out */
        else
            conn_close(o);
    }
    if (old_form) {
        if (killed)
            reply_ok(c);
        else
            resp_add_error(&c->out, "ERR No such client");
    } else {
        resp_add_int(&c->out, killed);
    }
}

/* CLIENT UNBLOCK id [TIMEOUT|ERROR]: 1 when the client was blocked. */
static void client_unblock(struct client *c)
{
    long long id;
    int error = 0;

    if (c->argc > 4) {
        reply_subcommand_syntax(c, "CLIENT");
        return;
    }
    if (c->argc == 4) {
        if (arg_is(&c->argv[3], "ERROR")) {
            error = 1;
        } else if (!arg_is(&c->argv[3], "TIMEOUT")) {
            resp_add_error(&c->out, "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
            return;
        }
    }
    if (arg_ll_or_reply(c, &c->argv[2], &id) < 0)
        return;
    struct client *target = id > 0 ? conn_find((uint64_t)id) : NULL;
    resp_add_int(&c->out, target && block_unblock(target, error));
}

static int valid_client_name(const struct resp_slice *s)
{
    for (size_t k = 0; k < s->len; k++) {
        if (s->ptr[k] <= ' ' || s->ptr[k] > '~')
            return 0;
    }
    return 1;
}

/* CLIENT PAUSE timeout [WRITE|ALL]: Redis 7.0's checks, in its order. */
static void client_pause(struct client *c)
{
    enum pause_kind kind = PAUSE_ALL;
    long long ms;
    if (c->argc > 4) {
        reply_subcommand_syntax(c, "CLIENT");
        return;
    }
    if (c->argc == 4) {
        if (arg_is(&c->argv[3], "WRITE")) {
            kind = PAUSE_WRITE;
        } else if (!arg_is(&c->argv[3], "ALL")) {
            resp_add_error(&c->out, "ERR CLIENT PAUSE mode must be WRITE or ALL");
            return;
        }
    }
    if (resp_parse_ll(c->argv[2].ptr, c->argv[2].len, &ms) < 0) {
        resp_add_error(&c->out, "ERR timeout is not an integer or out of range");
        return;
    }
    if (ms < 0) {
        resp_add_error(&c->out, "ERR timeout is negative");
        return;
    }
    int64_t now = mstime();
    if (ms > INT64_MAX - now) {
        resp_add_error(&c->out, "ERR timeout is out of range");
        return;
    }
    pause_start(PAUSE_BY_CLIENT, kind, now + ms);
    reply_ok(c);
}

/* CLIENT NO-EVICT|NO-TOUCH on|off: sets or clears flag. */
static void client_flag_switch(struct client *c, unsigned flag)
{
    if (arg_is(&c->argv[2], "ON"))
        c->flags |= flag;
    else if (arg_is(&c->argv[2], "OFF"))
        c->flags &= ~flag;
    else {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    reply_ok(c);
}

/* The handlers below are the rows of client_subcommands: the dispatcher
 * checked each row's arity, so only the forms Redis's handler refuses itself
 * are refused here. */
static void client_id(struct client *c)
{
    resp_add_int(&c->out, (long long)c->id);
}

static void client_getname(struct client *c)
{
    if (c->name)
        resp_add_bulk_cstr(&c->out, c->name);
    else
        resp_add_null(&c->out);
}

static void client_setname(struct client *c)
{
    if (!valid_client_name(&c->argv[2])) {
        resp_add_error(&c->out,
                       "ERR Client names cannot contain spaces, newlines or special characters.");
        return;
    }
    xfree(c->name);
    c->name = c->argv[2].len ? arg_strdup(&c->argv[2]) : NULL;
    reply_ok(c);
}

static void client_setinfo(struct client *c)
{
    char **field;
    if (arg_is(&c->argv[2], "LIB-NAME"))
        field = &c->lib_name;
    else if (arg_is(&c->argv[2], "LIB-VER"))
        field = &c->lib_ver;
    else {
        resp_add_errorf(&c->out, "ERR Unrecognized option '%.*s'", (int)c->argv[2].len,
                        c->argv[2].ptr);
        return;
    }
    if (!valid_client_name(&c->argv[3])) {
        resp_add_errorf(&c->out, "ERR %.*s cannot contain spaces, newlines or special "
                        "characters.", (int)c->argv[2].len, c->argv[2].ptr);
        return;
    }
    xfree(*field);
    *field = arg_strdup(&c->argv[3]);
    reply_ok(c);
}

static void client_info(struct client *c)
{
    char line[1024];
    client_info_line(c, line, sizeof(line));
    size_t n = strlen(line);
    line[n++] = '\n';
    resp_add_verbatim(&c->out, "txt", line, n);
}

static void client_unpause(struct client *c)
{
    pause_end(PAUSE_BY_CLIENT);
    reply_ok(c);
}

/* CLIENT REPLY ON|OFF|SKIP, as Redis: OFF and SKIP answer nothing (the
 * mute starts with their own reply), SKIP under OFF does nothing, and ON
 * leaves a SKIP given before it pending. conn.c moves SKIP on at the next
 * request. */
static void client_reply(struct client *c)
{
    if (arg_is(&c->argv[2], "ON")) {
        c->flags &= ~(CLIENT_REPLY_SKIP | CLIENT_REPLY_OFF);
        c->out.muted = 0;
        reply_ok(c);
    } else if (arg_is(&c->argv[2], "OFF")) {
        c->flags |= CLIENT_REPLY_OFF;
        c->out.muted = 1;
    } else if (arg_is(&c->argv[2], "SKIP")) {
        if (!(c->flags & CLIENT_REPLY_OFF))
            c->flags |= CLIENT_REPLY_SKIP_NEXT;
        c->out.muted = 1;
    } else {
        resp_add_error(&c->out, ERR_SYNTAX);
    }
}

static void client_no_evict(struct client *c)
{
    client_flag_switch(c, CLIENT_NO_EVICT);
}

static void client_no_touch(struct client *c)
{
    client_flag_switch(c, CLIENT_NO_TOUCH);
}

static void client_help(struct client *c)
{
    static const char *const help[] = {
        "CACHING (YES|NO)",
        "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
        "GETREDIR", "    Return the client ID we are redirecting to when tracking is enabled.",
        "GETNAME", "    Return the name of the current connection.",
        "ID", "    Return the ID of the current connection.",
        "INFO", "    Return information about the current client connection.",
        "KILL <ip:port>", "    Kill connection made from <ip:port>.",
        "KILL <option> <value> [<option> <value> [...]]",
        "    Kill connections. Options are:",
        "    * ADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made from the specified address",
        "    * LADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made to specified local address",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Kill connections by type.",
        "    * USER <username>",
        "      Kill connections authenticated by <username>.",
        "    * SKIPME (YES|NO)",
        "      Skip killing current connection (default: yes).",
        "LIST [options ...]",
        "    Return information about client connections. Options:",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Return clients of specified type.",
        "UNPAUSE", "    Stop the current client pause, resuming traffic.",
        "PAUSE <timeout> [WRITE|ALL]",
        "    Suspend all, or just write, clients for <timeout> milliseconds.",
        "REPLY (ON|OFF|SKIP)",
        "    Control the replies sent to the current connection.",
        "SETINFO <option> <value>", "    Set client meta attr: LIB-NAME or LIB-VER.",
        "SETNAME <name>", "    Assign the name <name> to the current connection.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Unblock the specified blocked client.",
        "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
        "         [OPTIN] [OPTOUT] [NOLOOP]",
        "    Control server assisted client side caching.",
        "TRACKINGINFO", "    Report tracking status for the current connection.",
        "NO-EVICT (ON|OFF)", "    Protect current client connection from eviction.",
        "NO-TOUCH (ON|OFF)", "    Will not touch LRU/LFU stats when this mode is on.",
    };
    reply_help(c, help, sizeof(help) / sizeof(help[0]));
}

static const struct command client_subcommands[] = {
    {.name = "client|id", .proc = client_id, .arity = 2,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},
    {.name = "client|getname", .proc = client_getname, .arity = 2,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},
    {.name = "client|setname", .proc = client_setname, .arity = 3,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},
    /* Redis 7.2's, which 7.0 does not have. */
    {.name = "client|setinfo", .proc = client_setinfo, .arity = 4,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection",
     .docs = &(const struct command_docs){.since = "7.2.0",
                                          .summary = "Set client or connection specific info",
                                          .complexity = "O(1)",
                                          .args = "LIB-NAME libname|LIB-VER libver"}},
    {.name = "client|list", .proc = client_list, .arity = -2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},
    {.name = "client|info", .proc = client_info, .arity = 2,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},
    {.name = "client|kill", .proc = client_kill, .arity = -3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},
    {.name = "client|unblock", .proc = client_unblock, .arity = -3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},
    {.name = "client|pause", .proc = client_pause, .arity = -3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},
    {.name = "client|unpause", .proc = client_unpause, .arity = 2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},
    {.name = "client|reply", .proc = client_reply, .arity = 3,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},
    {.name = "client|no-evict", .proc = client_no_evict, .arity = 3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},
    /* Redis 7.2's, which 7.0 does not have. */
    {.name = "client|no-touch", .proc = client_no_touch, .arity = 3,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection",
     .docs = &(const struct command_docs){
         .since = "7.2.0",
         .summary = "Controls LRU/LFU stats tracking of the client's commands",
         .complexity = "O(1)", .args = "ON|OFF"}},
    CLIENT_TRACKING_SUBCOMMANDS,
    SUBCOMMAND_HELP("client|help", client_help, "connection"),
    {0},
};

const struct command connection_commands[] = {
    {.name = "ping", .proc = cmd_ping, .arity = -1, .flags = CMD_FAST | CMD_SUBSCRIBED_OK,
     .group = "connection"},
    {.name = "echo", .proc = cmd_echo, .arity = 2, .flags = CMD_FAST | CMD_LOADING | CMD_STALE,
     .group = "connection"},
    {.name = "reset", .proc = cmd_reset, .arity = 1,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NOAUTH | CMD_TX_NOW |
              CMD_TX_END | CMD_SUBSCRIBED_OK | CMD_ALLOW_BUSY, .group = "connection"},
    {.name = "quit", .proc = cmd_quit, .arity = -1,
     .flags = CMD_NOSCRIPT | CMD_NOAUTH | CMD_FAST | CMD_LOADING | CMD_STALE | CMD_TX_NOW |
              CMD_TX_END | CMD_SUBSCRIBED_OK | CMD_ALLOW_BUSY | CMD_NOT_DISPATCHED,
     .group = "connection"},
    {.name = "auth", .proc = cmd_auth, .arity = -2,
     .flags = CMD_NOSCRIPT | CMD_NOAUTH | CMD_FAST | CMD_LOADING | CMD_STALE | CMD_ALLOW_BUSY,
     .group = "connection"},
    {.name = "hello", .proc = cmd_hello, .arity = -1,
     .flags = CMD_NOSCRIPT | CMD_NOAUTH | CMD_FAST | CMD_LOADING | CMD_STALE | CMD_ALLOW_BUSY,
     .group = "connection"},
    {.name = "select", .proc = cmd_select, .arity = 2, .flags = CMD_FAST | CMD_LOADING | CMD_STALE,
     .group = "connection"},
    {.name = "client", .arity = -2,
     .group = "connection", .subcommands = client_subcommands},
    {.name = "monitor", .proc = cmd_monitor, .arity = 1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {0},
};
