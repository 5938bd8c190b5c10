/*
 * cmd_config.c - the CONFIG command: GET, SET, RESETSTAT, REWRITE, HELP.
 *
 * Owns no state: it turns argument slices into calls on config.c (which owns
 * server.cfg's table and texts) and config_rewrite.c, and writes Redis 7's
 * replies and errors. Knows nothing of how a setting is stored.
 */
#include "cmd_config.h"

#include <string.h>
#include <strings.h>

#include "acl_file.h"
#include "aof.h"
#include "args.h"
#include "bgsave.h"
#include "childinfo.h"
#include "client.h"
#include "command.h"
#include "config.h"
#include "config_rewrite.h"
#include "conn.h"
#include "errorstats.h"
#include "evict.h"
#include "glob.h"
#include "keyspace.h"
#include "lazyfree.h"
#include "log.h"
#include "loopstat.h"
#include "mem.h"
#include "process.h"
#include "repl.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"
#include "tls.h"

/* CONFIG GET pattern [pattern ...]: a map of each matching name once, in
 * the order first matched. A pattern without glob characters is a plain
 * lookup, and Redis 7 echoes the name as the client spelled it; a glob
 * matches a setting's alias as a name of its own, as Redis 7 lists
 * "hash-max-ziplist-entries" beside "hash-max-listpack-entries". Names are
 * numbered 2k (setting k's name) and 2k + 1 (its alias). */
static void config_get_command(struct client *c)
{
    size_t n = 2 * config_count(), count = 0;
    size_t *order = xmalloc(sizeof(*order) * n);
    const struct resp_slice **spelled = xcalloc(n, sizeof(*spelled));
    unsigned char *seen = xcalloc(n, 1);

    for (int i = 2; i < c->argc; i++) {
        const struct resp_slice *pat = &c->argv[i];
        int globbing = memchr(pat->ptr, '*', pat->len) || memchr(pat->ptr, '?', pat->len) ||
                       memchr(pat->ptr, '[', pat->len);
        if (!globbing) {
            int k = config_find(pat->ptr, pat->len);
            if (k >= 0 && !seen[2 * k] && !seen[2 * k + 1]) {
                seen[2 * k] = 1;
                spelled[2 * k] = pat;
                order[count++] = 2 * (size_t)k;
            }
            continue;
        }
        for (size_t j = 0; j < n; j++) {
            const char *name = j % 2 ? config_alias(j / 2) : config_name(j / 2);
            if (name && !seen[j] && !config_hidden(j / 2) &&
                glob_match(pat->ptr, pat->len, name, strlen(name), 1)) {
                seen[j] = 1;
                order[count++] = j;
            }
        }
    }
    resp_add_map_len(&c->out, count);
    for (size_t i = 0; i < count; i++) {
        size_t j = order[i];
        size_t len;
        char *value = config_get_len(&server.cfg, j / 2, &len);
        if (spelled[j])
            resp_add_bulk(&c->out, spelled[j]->ptr, spelled[j]->len);
        else
            resp_add_bulk_cstr(&c->out, j % 2 ? config_alias(j / 2) : config_name(j / 2));
        resp_add_bulk(&c->out, value, len);
        xfree(value);
    }
    xfree(seen);
    xfree(spelled);
    xfree(order);
}

/* The first tls- setting among the pairs, whose change rebuilds the TLS
 * context; NULL when none. */
static const char *first_tls_setting(int npairs, const char *const *pairs)
{
    for (int i = 0; i < npairs; i++)
        if (!strncasecmp(pairs[2 * i], "tls-", 4))
            return pairs[2 * i];
    return NULL;
}

/* The values a CONFIG SET replaces, as name/value pairs with their lengths
 * (a binary-safe setting's value may hold NULs), to set back when the system
 * cannot take the new ones. */
struct config_before {
    int npairs;
    const char **pairs;
    size_t *lens;
};

static void set_back(const struct config_before *before)
{
    char err[512];
    config_set_many(&server.cfg, before->npairs, before->pairs, before->lens, err, sizeof(err));
}

/* Rebuilds the TLS context from the settings just set, when TLS is in use
 * (tls-port or tls-replication); on failure logs why and sets the values in
 * before back. Returns 0 or -1. New connections get the new certificate;
 * those already made keep theirs. */
static int tls_reconfigure_or_undo(const struct config_before *before)
{
    char err[512];
    if (!server.cfg.tls_port && !server.cfg.tls_replication && !server.cfg.tls_cluster)
        return 0;
    if (tls_configure(err, sizeof(err)) == 0)
        return 0;
    log_warning("%s", err);
    set_back(before);
    return -1;
}

/* Redis's updateMaxmemory: a new maxmemory under what the data already uses
 * is logged with its words, the line operators' alerts match; eviction
 * then runs as for any write. */
static void warn_if_under_used(unsigned long long maxmemory)
{
    size_t used = mem_used() - evict_not_counted_memory();
    if (maxmemory && maxmemory < used)
        log_warning("WARNING: the new maxmemory value set via CONFIG SET (%llu) is smaller than "
                    "the current memory usage (%zu). This will result in key eviction and/or the "
                    "inability to accept new write commands depending on the maxmemory-policy.",
                    maxmemory, used);
}

/* Redis's updatePort and applyTLSPort: a port or tls-port that changed
 * (from port, tls_port) listens on the new port, then closes the old one;
 * connections stay. Returns NULL, or the setting whose port could not be
 * listened on, after setting the values in before back, and the listeners
 * and the TLS context with them. */
static const char *relisten_or_undo(int port, int tls_port, const struct config_before *before)
{
    char err[512];
    const char *failed = NULL;
    int moved = 0;

    if (server.cfg.port != port) {
        if (conn_relisten(0) < 0)
            failed = "port";
        else
            moved = 1;
    }
    if (!failed && server.cfg.tls_port != tls_port && conn_relisten(1) < 0)
        failed = "tls-port";
    if (!failed)
        return NULL;
    set_back(before);
    if (moved && conn_relisten(0) < 0)
        log_warning("Could not listen on port %d again", port);
    if ((server.cfg.tls_port || server.cfg.tls_replication || server.cfg.tls_cluster) &&
        tls_configure(err, sizeof(err)) < 0)
        log_warning("%s", err);
    return failed;
}

static int bind_changed(const char *before)
{
    char *now = config_get(&server.cfg, (size_t)config_find("bind", 4));
    int changed = strcmp(now, before) != 0;
    xfree(now);
    return changed;
}

/* Redis's applyBind: the listeners move to the new `bind` addresses; when
 * one cannot be listened on, the settings in before are set back and the
 * old addresses listened on again. Returns 0 or -1. */
static int rebind_or_undo(const struct config_before *before)
{
    if (conn_rebind() == 0)
        return 0;
    set_back(before);
    if (conn_rebind() < 0)
        log_warning("Failed to restore the old bind addresses");
    return -1;
}

/* CONFIG SET name value [name value ...]: all or nothing (config_set_many). */
static void config_set_command(struct client *c)
{
    int npairs = (c->argc - 2) / 2;
    const char **pairs;
    size_t *lens;
    char err[512];

    if (c->argc % 2) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    /* Names are C strings: a NUL inside would cut one short, so it is no
     * setting's. Values carry their lengths: config.c refuses a NUL in any
     * but a binary-safe setting's (requirepass...). */
    for (int i = 2; i < c->argc; i += 2) {
        const struct resp_slice *name = &c->argv[i];
        if (memchr(name->ptr, '\0', name->len)) {
            resp_add_errorf(&c->out, "ERR Unknown option or number of arguments for CONFIG SET - '%.*s'",
                            (int)name->len, name->ptr);
            return;
        }
    }
    pairs = xmalloc(sizeof(*pairs) * (size_t)(c->argc - 2));
    lens = xmalloc(sizeof(*lens) * (size_t)(c->argc - 2));
    for (int i = 2; i < c->argc; i++) {
        pairs[i - 2] = arg_strdup(&c->argv[i]);
        lens[i - 2] = c->argv[i].len;
    }
    /* Redis's sensitive settings: their values never reach the slow log or
     * MONITOR (redacted once copied, since redaction replaces the argument).
     * Redis 7.0 shows the TLS key passphrases; rbkv hides them too. */
    for (int i = 2; i + 1 < c->argc; i += 2)
        if (arg_is(&c->argv[i], "requirepass") || arg_is(&c->argv[i], "masterauth") ||
            arg_is(&c->argv[i], "masteruser") ||
            arg_is(&c->argv[i], "tls-key-file-pass") ||
            arg_is(&c->argv[i], "tls-client-key-file-pass"))
            command_redact_arg(c, i + 1);
    /* The values before, to set back when the system cannot take them. */
    struct config_before before = {
        .npairs = npairs,
        .pairs = xcalloc((size_t)(c->argc - 2), sizeof(*before.pairs)),
        .lens = xcalloc((size_t)(c->argc - 2), sizeof(*before.lens)),
    };
    for (int i = 0; i < npairs; i++) {
        int idx = config_find(pairs[2 * i], strlen(pairs[2 * i]));
        before.pairs[2 * i] = pairs[2 * i];
        before.lens[2 * i] = lens[2 * i];
        if (idx >= 0)
            before.pairs[2 * i + 1] =
                config_get_len(&server.cfg, (size_t)idx, &before.lens[2 * i + 1]);
    }
    long long maxclients = server.cfg.maxclients;
    unsigned long long maxmemory = server.cfg.maxmemory;
    char *bind_before = config_get(&server.cfg, (size_t)config_find("bind", 4));
    int port = server.cfg.port, tls_port = server.cfg.tls_port;
    const char *unlistened = NULL;
    const char *tls_name = first_tls_setting(npairs, pairs);
    if (config_set_many_as(&server.cfg, npairs, pairs, lens,
                           command_protected_allowed(c, server.cfg.enable_protected_configs), err,
                           sizeof(err)) < 0) {
        resp_add_error(&c->out, err);
    } else if (tls_name && tls_reconfigure_or_undo(&before) < 0) {
        /* Redis's applyTlsCfg: the certificate, key or CAs did not load, so
         * the old context keeps serving and the settings go back. */
        resp_add_errorf(&c->out,
                        "ERR CONFIG SET failed (possibly related to argument '%s') - Unable to "
                        "update TLS configuration. Check server logs.",
                        tls_name);
    } else if (server.cfg.maxclients > maxclients && server_adjust_open_files_limit() < 0) {
        /* Redis's updateMaxclients: the new maxclients needs the fds, and
         * the whole CONFIG SET fails when it cannot have them. */
        long long fits = server.cfg.maxclients;
        set_back(&before);
        resp_add_errorf(&c->out,
                        "ERR CONFIG SET failed (possibly related to argument 'maxclients') - The "
                        "operating system is not able to handle the specified number of clients, "
                        "try with %lld",
                        fits);
    } else if (bind_changed(bind_before) && rebind_or_undo(&before) < 0) {
        resp_add_error(&c->out, "ERR CONFIG SET failed (possibly related to argument 'bind') - "
                                "Failed to bind to specified addresses.");
    } else if (!bind_changed(bind_before) &&
               (unlistened = relisten_or_undo(port, tls_port, &before))) {
        /* (A new bind listened on the new ports already.) */
        resp_add_errorf(&c->out,
                        "ERR CONFIG SET failed (possibly related to argument '%s') - Unable to "
                        "listen on this port. Check server logs.",
                        unlistened);
    } else {
        if (server.cfg.maxmemory != maxmemory)
            warn_if_under_used(server.cfg.maxmemory);
        /* Redis applies the title and OOM score as the setting changes,
         * not at the next cron. */
        process_update();
        reply_ok(c);
    }
    for (int i = 0; i < npairs; i++)
        xfree((char *)before.pairs[2 * i + 1]);
    xfree(before.pairs);
    xfree(before.lens);
    xfree(bind_before);
    for (int i = 0; i < c->argc - 2; i++)
        xfree((char *)pairs[i]);
    xfree(pairs);
    xfree(lens);
}

/* Every counter INFO shows, as Redis's resetServerStats: not the gauges
 * (used memory and its peak, clients, keys). */
static void config_resetstat_command(struct client *c)
{
    memset(&server.stats, 0, sizeof(server.stats));
    command_reset_stats();
    errorstats_reset();
    for (int i = 0; i < server.ks->count; i++)
        server.ks->dbs[i].expired = 0;
    memset(&repl.stats, 0, sizeof(repl.stats));
    child_info_reset_stats();
    lazyfree_reset_stats();
    loopstat_reset();
    mem_trim_reset_stats();
    persist_reset_stats();
    aof_reset_stats();
    reply_ok(c);
}

static void config_rewrite_command(struct client *c)
{
    char err[256];

    if (!server.config_file) {
        resp_add_error(&c->out, "ERR The server is running without a config file");
        return;
    }
    /* The users go in "user" lines unless they have an aclfile (ACL SAVE's),
     * whose servers refuse such lines at start (acl_start): as in Redis. */
    size_t nusers = 0;
    char **users = server.cfg.aclfile ? NULL : acl_user_lines(&nusers);
    int rc = config_rewrite(&server.cfg, server.config_file, (const char *const *)users, nusers,
                            err, sizeof(err));
    for (size_t i = 0; i < nusers; i++)
        xfree(users[i]);
    xfree(users);
    if (rc < 0) {
        log_warning("CONFIG-REWRITE failed: %s", err);
        resp_add_errorf(&c->out, "ERR Rewriting config file: %s", err);
        return;
    }
    log_notice("CONFIG REWRITE executed with success.");
    reply_ok(c);
}

static void config_help_command(struct client *c)
{
    static const char *const help[] = {
        "GET <pattern>",
        "    Return parameters matching the glob-like <pattern> and their values.",
        "SET <directive> <value>",
        "    Set the configuration <directive> to <value>.",
        "RESETSTAT",
        "    Reset statistics reported by the INFO command.",
        "REWRITE",
        "    Rewrite the configuration file.",
    };
    reply_help(c, help, sizeof(help) / sizeof(help[0]));
}

static const struct command config_subcommands[] = {
    {.name = "config|get", .proc = config_get_command, .arity = -3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "config|set", .proc = config_set_command, .arity = -4,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "config|resetstat", .proc = config_resetstat_command, .arity = 2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "config|rewrite", .proc = config_rewrite_command, .arity = 2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    SUBCOMMAND_HELP("config|help", config_help_command, "server"),
    {0},
};

const struct command config_commands[] = {
    {.name = "config", .arity = -2,
     .group = "server", .subcommands = config_subcommands},
    {0},
};
