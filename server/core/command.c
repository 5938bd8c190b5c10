/*
 * command.c - the dispatcher.
 *
 * Runs one request: lookup in the command table (command_table.h),
 * arity, authentication, memory limit, a failed background save (MISCONF),
 * then the handler (or, inside MULTI, the transaction's queue: multi.h), in
 * that order, with Redis's error texts for each refusal. Handlers never see
 * a request that failed these checks.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "command.h"

#include "acl.h"
#include "acl_deny.h"
#include "aof.h"
#include "bgsave.h"
#include "blocking.h"
#include "client.h"
#include "clock.h"
#include "errorstats.h"
#include "evict.h"
#include "histogram.h"
#include "latency.h"
#include "longrun.h"
#include "conn.h"
#include "keyspace.h"
#include "keyspec.h"
#include "mem.h"
#include "monitor.h"
#include "multi.h"
#include "pause.h"
#include "propagate.h"
#include "pubsub.h"
#include "server.h"
#include "slowlog.h"
#include "tracking.h"
#include "watch.h"

void command_init(void)
{
    command_table_init();
    keyspec_table_init();
    conn_on_request(command_execute);
    block_on_unblocked(command_unblocked);
}

/* Redis's incrCommandStatsOnError: the error replies sent since the last
 * call make cmd's call a rejected or a failed one. Counting from the last
 * call rather than from the command's start keeps EXEC's errors on the
 * commands inside it (each command_call settles its own) and not on EXEC. */
static unsigned long long errors_seen;

static int count_errors_since_last(const struct command *cmd, int rejected)
{
    unsigned long long written = errorstats_replies_written();
    int erred = written > errors_seen;
    errors_seen = written;
    if (!erred || !cmd)
        return 0;
    struct command_stats *st = command_stats(cmd);
    if (rejected)
        st->rejected_calls++;
    else
        st->failed_calls++;
    return 1;
}

void command_unblocked(struct client *c, enum block_end end, int64_t serve_us)
{
    struct slowlog_entry *entry = c->blocked_entry;
    c->blocked_entry = NULL;
    if (end == BLOCK_TIMED_OUT || !c->last_cmd) {
        slowlog_entry_free(entry);
        return;
    }
    /* Redis 7.0.15 counts the call's own run time again here, with the
     * serving: the slow log's entry and the command's time get both. */
    int64_t total = c->blocked_call_us + serve_us;
    struct command_stats *st = command_stats(c->last_cmd);
    st->usec += (unsigned long long)(total > 0 ? total : 0);
    if (end == BLOCK_UNBLOCKED)
        st->failed_calls++;
    if (server.cfg.latency_tracking) {
        if (!st->latency)
            st->latency = xcalloc(1, sizeof(*st->latency));
        histogram_add(st->latency, (uint64_t)(total > 0 ? total : 0));
    }
    /* CLIENT UNBLOCK ended it from another client: Redis 7.0.15 logs the
     * arguments the unblocked client holds then, which are none. */
    if (end == BLOCK_UNBLOCKED) {
        slowlog_entry_free(entry);
        slowlog_push_if_needed(c, total);
    } else {
        slowlog_push_entry(entry, total);
    }
    latency_add_sample_if_needed(server.cfg.latency_monitor_threshold, "command-unblocking",
                                 serve_us / 1000);
}

void command_redact_arg(struct client *c, int i)
{
    static const char redacted[] = "(redacted)";
    if (i < c->argc)
        c->argv[i] = (struct resp_slice){redacted, sizeof(redacted) - 1};
}

void reply_wrong_arity(struct client *c)
{
    const struct command *cmd = command_resolve(c->argc, c->argv);
    resp_add_errorf(&c->out, "ERR wrong number of arguments for '%s' command",
                    cmd ? cmd->name : "unknown");
}

/* Redis's reply to a container given a subcommand it does not have. */
static void reply_unknown_subcommand(struct client *c)
{
    char upper[64];
    size_t n = c->argv[0].len < sizeof(upper) - 1 ? c->argv[0].len : sizeof(upper) - 1;
    for (size_t i = 0; i < n; i++)
        upper[i] = (char)toupper((unsigned char)c->argv[0].ptr[i]);
    upper[n] = '\0';
    resp_add_errorf(&c->out, "ERR unknown subcommand '%.*s'. Try %s HELP.",
                    (int)(c->argv[1].len < 128 ? c->argv[1].len : 128), c->argv[1].ptr, upper);
}

static void reply_unknown_command(struct client *c)
{
    char args[160];
    size_t used = 0;
    args[0] = '\0';
    for (int i = 1; i < c->argc && used < 128; i++) {
        int n = snprintf(args + used, sizeof(args) - used, "'%.*s' ",
                         (int)(c->argv[i].len < 128 - used ? c->argv[i].len : 128 - used),
                         c->argv[i].ptr);
        if (n < 0)
            break;
        used += (size_t)n;
        if (used >= sizeof(args))
            used = sizeof(args) - 1;
    }
    resp_add_errorf(&c->out, "ERR unknown command '%.*s', with args beginning with: %s",
                    (int)(c->argv[0].len < 128 ? c->argv[0].len : 128), c->argv[0].ptr, args);
}

static const struct command_route *route;

void command_on_route(const struct command_route *r)
{
    route = r;
}

const char *command_route_script(struct client *caller, const struct command *cmd, int argc,
                                 const struct resp_slice *argv, int cross_slot, int *slot)
{
    if (!route || !route->script_refuses)
        return NULL;
    return route->script_refuses(caller, cmd, argc, argv, cross_slot, slot);
}

static const struct command_write_gate *write_gate;

void command_on_write_gate(const struct command_write_gate *gate)
{
    write_gate = gate;
}

int command_primary_link_up(void)
{
    return !write_gate || write_gate->link_up();
}

int command_replicas_refuse_writes(void)
{
    return write_gate && write_gate->refuses_writes();
}

/* Whether c may write now (flags: a command's, or the union of a queue's
 * at EXEC: Redis's is_write_command covers both): a read-only replica's
 * refusal, or a primary's short of min-replicas-to-write; NULL when it may.
 * The primary's link always may. */
static const char *write_refusal(const struct client *c, unsigned flags)
{
    if (!(flags & CMD_WRITE) || (c->flags & CLIENT_MASTER))
        return NULL;
    if (server.cfg.replicaof_host && server.cfg.replica_read_only)
        return ERR_READONLY;
    if (command_replicas_refuse_writes())
        return ERR_NOREPLICAS;
    return NULL;
}

/* Whether a replica's clients get MASTERDOWN for what lacks CMD_STALE:
 * replica-serve-stale-data no, and the link is down. replicaof_host is
 * tested first: on a primary this costs the dispatcher one branch. */
static int stale_refused(void)
{
    return server.cfg.replicaof_host && !server.cfg.replica_serve_stale_data &&
           !command_primary_link_up();
}

/* EXEC's part of the dispatcher (struct multi_runner), in processCommand's
 * order. A transaction queued on a primary that is a replica now is
 * refused here whole; so is one queued while the link was up that holds a
 * command without CMD_STALE, now that it is down (Redis's
 * is_denystale_command for EXEC: its cmd_inv_flags). */
static const char *exec_refusal(const struct client *c, unsigned cmd_flags,
                                unsigned missing_flags)
{
    if (server.cfg.maxmemory && (cmd_flags & CMD_DENYOOM) && evict_perform() == EVICT_FAIL)
        return ERR_OOM;
    if ((cmd_flags & (CMD_WRITE | CMD_DENYOOM)) && persist_writes_refused())
        return ERR_MISCONF;
    const char *err = write_refusal(c, cmd_flags);
    if (!err && (missing_flags & CMD_STALE) && stale_refused())
        err = ERR_MASTERDOWN;
    return err;
}

/* ACLs are checked again at EXEC: the rules may have changed since. */
static void exec_call(struct client *c, const struct command *cmd)
{
    if (!acl_refuses_at_exec(c, cmd))
        command_call(c, cmd);
}

void command_exec(struct client *c)
{
    static const struct multi_runner runner = {.refusal = exec_refusal, .call = exec_call};
    multi_exec(c, &runner);
}

void command_script_refused(const struct command *cmd)
{
    count_errors_since_last(cmd, 1);
}

/* A refusal before running: a transaction it was queued for aborts, and
 * the error counts as cmd's rejected call. */
static void refused(struct client *c, const struct command *cmd)
{
    multi_refused(c);
    count_errors_since_last(cmd, 1);
}

static int arity_ok(const struct command *cmd, int argc)
{
    return cmd->arity >= 0 ? argc == cmd->arity : argc >= -cmd->arity;
}

/* Clients with no user (the log's replay, the primary's link, unit
 * tests' clients) are the server's own and never authenticate. */
static int needs_auth(const struct client *c)
{
    return !(c->flags & CLIENT_AUTHENTICATED) && c->user && acl_default_requires_auth();
}

/* A replica's read-only rule and a primary's min-replicas-to-write (only
 * one of them can apply), then stale data. Replies and returns 1 when cmd
 * may not run. */
/* Replication's refusals of a request run under flags: a write on a
 * read-only replica or a primary short of min-replicas-to-write (stale 0),
 * or what lacks CMD_STALE on a stale replica (stale 1), each at its place
 * in Redis's processCommand. */
static int replication_refuses(struct client *c, const struct command *cmd, unsigned flags,
                               int stale)
{
    if (c->flags & CLIENT_MASTER)
        return 0;
    const char *err = !stale                                       ? write_refusal(c, flags)
                      : stale_refused() && !(flags & CMD_STALE) ? ERR_MASTERDOWN
                                                                  : NULL;
    if (!err)
        return 0;
    resp_add_error(&c->out, err);
    refused(c, cmd);
    return 1;
}

static int loading_refuses(struct client *c, const struct command *cmd)
{
    if (server.loading == LOADING_SYNC ? (cmd->flags & CMD_LOADING)
                                       : !(cmd->flags & CMD_NO_ASYNC_LOADING))
        return 0;
    resp_add_error(&c->out, ERR_LOADING);
    refused(c, cmd);
    return 1;
}

int command_protected_allowed(const struct client *c, int access)
{
    return access == PROTECTED_YES || (access == PROTECTED_LOCAL && conn_is_local(c));
}

/* A protected command (CMD_PROTECTED) that c may not run: replies Redis's
 * text and returns 1. As Redis's processCommand, the setting is the
 * command's own: MODULE's subcommands answer to enable-module-command,
 * DEBUG to enable-debug-command. */
static int protected_refused(struct client *c, const struct command *cmd)
{
    int module = strncmp(cmd->name, "module|", strlen("module|")) == 0;
    int access = module ? server.cfg.enable_module_command : (int)server.cfg.enable_debug_command;
    if (command_protected_allowed(c, access))
        return 0;
    resp_add_errorf(&c->out,
                    "ERR %s command not allowed. If the %s option is set to \"local\", you can "
                    "run it from a local connection, otherwise you need to set this option in the "
                    "configuration file, and then restart the server.",
                    module ? "MODULE" : "DEBUG",
                    module ? "enable-module-command" : "enable-debug-command");
    return 1;
}

static void execute(struct client *c, const struct command *cmd);

void command_execute(struct client *c)
{
    /* As Redis's processCommand, everything below reads the subcommand's
     * row, not its container's. */
    const struct command *cmd = command_resolve(c->argc, c->argv);
    tracking_command_begin(c);
    execute(c, cmd);
    tracking_command_end(c, cmd);
    if (route)
        route->done(c, cmd);
}

static void execute(struct client *c, const struct command *cmd)
{

    server.stats.total_commands++;
    count_errors_since_last(NULL, 0);
    /* Redis 7's order: unknown command and arity are reported even before
     * authentication. */
    if (!cmd) {
        if (c->argc >= 2 && command_lookup(c->argv[0].ptr, c->argv[0].len))
            reply_unknown_subcommand(c);
        else
            reply_unknown_command(c);
        refused(c, cmd);
        return;
    }
    c->last_cmd = cmd;
    if (!arity_ok(cmd, c->argc)) {
        reply_wrong_arity(c);
        refused(c, cmd);
        return;
    }
    /* What the refusals below read: the row's flags, or a script's. */
    unsigned flags = cmd->flags_of ? cmd->flags_of(c, cmd->flags) : cmd->flags;
    if ((cmd->flags & CMD_PROTECTED) && protected_refused(c, cmd)) {
        refused(c, cmd);
        return;
    }
    if (needs_auth(c) && !(cmd->flags & CMD_NOAUTH)) {
        resp_add_error(&c->out, ERR_NOAUTH);
        refused(c, cmd);
        return;
    }
    /* Redis checks this right after authentication: SAVE, SHUTDOWN,
     * SYNC and PSYNC would run at EXEC with the transaction half done. */
    if (c->multi && (cmd->flags & CMD_NO_MULTI)) {
        resp_add_error(&c->out, ERR_NO_MULTI);
        refused(c, cmd);
        return;
    }
    /* A user that may do everything costs one flag test. */
    if (c->user && !(c->user->flags & ACL_USER_ALLPERM) && acl_refuses(c, cmd)) {
        refused(c, cmd);
        return;
    }
    /* Redis's place for cluster redirection: right after the ACL check. */
    if (route && !(c->flags & CLIENT_MASTER) && route->refuses(c, cmd)) {
        refused(c, cmd);
        return;
    }
    /* The primary's stream is applied whatever the state here. */
    /* Eviction runs before every command, as in Redis, so memory taken by
     * anything (buffers too) is given back; only a command that may grow
     * memory is refused when nothing more can go. */
    if (server.cfg.maxmemory && !(c->flags & CLIENT_MASTER) && !long_run_active() &&
        evict_perform() == EVICT_FAIL &&
        ((flags & CMD_DENYOOM) || multi_queue_grows(c, cmd))) {
        resp_add_error(&c->out, ERR_OOM);
        refused(c, cmd);
        return;
    }
    if ((flags & (CMD_WRITE | CMD_DENYOOM)) && !(c->flags & CLIENT_MASTER) &&
        persist_writes_refused()) {
        resp_add_error(&c->out, ERR_MISCONF);
        refused(c, cmd);
        return;
    }
    const char *aof_why;
    if ((flags & (CMD_WRITE | CMD_DENYOOM)) && !(c->flags & CLIENT_MASTER) &&
        aof_writes_refused(&aof_why)) {
        resp_add_errorf(&c->out, AOF_ERR_MISCONF "%s", aof_why);
        refused(c, cmd);
        return;
    }
    /* Redis's order: memory, disk, replicas, the RESP2 subscriber's
     * context, then a stale replica's refusal. */
    if (replication_refuses(c, cmd, flags, 0))
        return;
    if (c->out.proto == 2 && !(cmd->flags & CMD_SUBSCRIBED_OK) && pubsub_client_subscribed(c)) {
        resp_add_errorf(&c->out,
                        "ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
                        "QUIT / RESET are allowed in this context",
                        cmd->name);
        refused(c, cmd);
        return;
    }
    if (replication_refuses(c, cmd, flags, 1))
        return;
    /* A replica loading its primary's snapshot, in Redis's place for it:
     * with the old data dropped, only what has CMD_LOADING runs; beside it
     * (swapdb), what has CMD_NO_ASYNC_LOADING waits for the end. */
    if (__builtin_expect(server.loading != LOADING_NONE, 0) && loading_refuses(c, cmd))
        return;
    /* A script past busy-reply-threshold serves the loop from inside:
     * only what may run beside it does (longrun.h). */
    if (long_run && !(cmd->flags & CMD_ALLOW_BUSY) && long_run->timed_out()) {
        /* EXEC (the one TX_END command not allowed busy) ends the
         * transaction with the refusal, as Redis's execCommandAbort: the
         * client is out of MULTI and may go on. */
        if (c->multi && (cmd->flags & CMD_TX_END)) {
            resp_add_errorf(&c->out, "EXECABORT Transaction discarded because of: %s",
                            long_run->busy_reply());
            multi_discard(c);
            count_errors_since_last(cmd, 1);
            return;
        }
        resp_add_error(&c->out, long_run->busy_reply());
        refused(c, cmd);
        return;
    }
    /* Redis counts a monitor as a replica, which may not touch the keyspace
     * (so that pauses, which replicas are exempt from, cannot be dodged). */
    if ((c->flags & CLIENT_MONITOR) && (cmd->flags & (CMD_WRITE | CMD_READONLY))) {
        resp_add_error(&c->out, "ERR Replica can't interact with the keyspace");
        multi_refused(c);
        return;
    }
    /* A held request comes through here again when the pause ends: it is
     * counted then. */
    if (pause_postpones(c, cmd, flags)) {
        server.stats.total_commands--;
        return;
    }
    if (c->multi && multi_queue(c, cmd, flags))
        return;
    command_call(c, cmd);
    /* Here, not in command_call: EXEC's commands run through that, and the
     * clients its writes can serve must wait for the whole transaction. */
    block_serve_ready();
}

/* The slow log, the latency monitor's command events and the command's
 * histogram, as Redis's call() feeds them. */
static void record_duration(struct client *c, const struct command *cmd,
                            struct command_stats *stats, long long duration)
{
    if (!(cmd->flags & CMD_SKIP_SLOWLOG))
        slowlog_push_if_needed(c, duration);
    latency_add_sample_if_needed(server.cfg.latency_monitor_threshold,
                                 cmd->flags & CMD_FAST ? "fast-command" : "command",
                                 duration / 1000);
    if (server.cfg.latency_tracking) {
        if (!stats->latency)
            stats->latency = xcalloc(1, sizeof(*stats->latency));
        histogram_add(stats->latency, (uint64_t)(duration > 0 ? duration : 0));
    }
}

void command_call(struct client *c, const struct command *cmd)
{
    struct command_stats *stats = command_stats(cmd);
    unsigned long long dirty = server.dirty, effects = server.effects_propagated;
    /* Our own clock: EXEC's commands reset the shared one. */
    int64_t start = ustime();

    /* A script's commands all see the time it started, as in Redis, so
     * no key expires halfway through it. */
    server.cmd_start_us =
        c->id == CLIENT_ID_LONG_RUN && long_run ? long_run->time_snapshot_ms() * 1000 : start;
    evict_begin_command(start);
    /* A write may change a value in place, which no keyspace call reports:
     * the replies streaming from its db are finished before it (stream.h). */
    if (cmd->flags & CMD_WRITE)
        ks_will_change(c->db);
    count_errors_since_last(NULL, 0);
    /* Only a write's effects are held as a unit: anything else propagates
     * at most one entry (PUBLISH), which goes out as it comes; EXEC and
     * scripts open their own units. */
    int unit = (cmd->flags & CMD_WRITE) != 0;
    if (unit)
        propagate_unit_begin();
    cmd->proc(c);
    /* Client-side caching remembers what a read handed out. */
    tracking_after_call(c, cmd);
    long long duration = ustime() - start;
    stats->calls++;
    stats->usec += (unsigned long long)duration;
    count_errors_since_last(cmd, 0);
    /* A client that blocked has only started waiting: as in Redis, its wait
     * is no latency of the server's. The log's replay (client id 0) is left
     * out as Redis leaves out loading. */
    if (!c->blocked && c->id != 0)
        record_duration(c, cmd, stats, duration);
    if (c->blocked) {
        c->blocked_call_us = duration;
        /* Its arguments are gone when it is served: the entry is made now. */
        if (!(cmd->flags & CMD_SKIP_SLOWLOG) && c->id != 0)
            c->blocked_entry = slowlog_entry_of(c);
    }
    monitor_feed(c, cmd);
    /* Only a write that changed something invalidates WATCH: a failed SETNX
     * or a DEL of missing keys does not, as in Redis. A write that sent its
     * effects itself (propagate_effects: SPOP as SREM or DEL, since its own
     * words pick at random) is not sent again as it was called. EXEC itself
     * is no write: its commands come through here one by one, so the
     * comparison holds for each inside a transaction too. */
    if ((cmd->flags & CMD_WRITE) && server.dirty != dirty) {
        watch_touch_command(c, cmd);
        block_signal_command(c, cmd);
        if (server.effects_propagated == effects)
            propagate_command(c->db, cmd, c->argc, c->argv);
    }
    if (unit)
        propagate_unit_end();
}
