/*
 * script.c - one script's run: Redis's checks before and during it, its
 * commands on a client of its own, its effects' propagation, busy mode and
 * SCRIPT KILL (script.h).
 *
 * Owns: the script client (made at the first run, never freed: it lives as
 * long as the server, as Redis's lua client) and the buffer the last
 * redis.call's reply is gathered into. At most one run exists at a time
 * (cur.run); scripts cannot nest because EVAL and FCALL are CMD_NOSCRIPT.
 *
 * Busy mode re-enters the loop from inside a command (uv_run NOWAIT from
 * the engine's hook). What may run then, and why it is safe:
 * - other clients' requests: the dispatcher answers -BUSY to all but
 *   CMD_ALLOW_BUSY ones (SCRIPT KILL, SHUTDOWN NOSAVE, MULTI, AUTH, ...);
 * - the caller: protected (CLIENT_PROTECTED): not read, its write callbacks
 *   run nothing, a close is put off until the run ends (conn.c);
 * - timers: the cron, active expiry and eviction skip while a script runs
 *   (script_running), so no key changes or save starts mid-script; the
 *   log's fsync, pub/sub and replication flushes, lazy frees and blocked
 *   clients' timeouts are harmless;
 * - SHUTDOWN NOSAVE: stops the loop; the hook then ends the script.
 */
#include "script.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "acl.h"
#include "acl_deny.h"
#include "aof.h"
#include "bgsave.h"
#include "client.h"
#include "clock.h"
#include "command.h"
#include "conn.h"
#include "errorstats.h"
#include "evict.h"
#include "keyslot.h"
#include "log.h"
#include "longrun.h"
#include "mem.h"
#include "multi.h"
#include "propagate.h"
#include "resp_parser.h"
#include "server.h"

#define BUSY_EVAL "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
#define BUSY_FUNCTION                                                                              \
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."

static struct {
    struct script_run *run;  /* the run in progress, NULL when none */
    struct client *client;   /* the script client */
    char *reply;             /* the last redis.call's reply, gathered */
    size_t reply_len, reply_cap;
    int oom;                 /* over maxmemory when the run started (Redis's script_oom) */
    int wrapped;             /* this run opened the propagation's MULTI */
    int stopped_reading;     /* busy mode stopped reading the caller */
    int (*busy_stop)(void);  /* script_set_busy_stop's */
    char err[256];           /* a refusal's text with a formatted part */
} cur;

static const char *const flag_names[] = {"no-writes", "allow-oom", "allow-stale", "no-cluster",
                                         "allow-cross-slot-keys"};

unsigned script_flag_by_name(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
        if (strlen(flag_names[i]) == len && memcmp(flag_names[i], name, len) == 0)
            return 1u << i;
    }
    return 0;
}

const char *script_flag_name(int i)
{
    return i >= 0 && (size_t)i < sizeof(flag_names) / sizeof(flag_names[0]) ? flag_names[i] : NULL;
}

static struct client *script_client(void)
{
    if (!cur.client) {
        struct client *c = xcalloc(1, sizeof(*c));
        resp_out_init(&c->out);
        errorstats_watch(c, 0);
        c->id = SCRIPT_CLIENT_ID;
        c->flags = CLIENT_AUTHENTICATED;
        snprintf(c->addr, sizeof(c->addr), "lua");
        /* Always "in a transaction", as Redis flags its lua client: a
         * blocking command answers at once instead of waiting, and no
         * reply streams (the reply must be whole when the call returns).
         * Commands run through command_call, never queue. */
        multi_start(c);
        cur.client = c;
    }
    return cur.client;
}

static int stale_replica(void)
{
    return server.cfg.replicaof_host && !server.cfg.replica_serve_stale_data &&
           !command_primary_link_up();
}

static int readonly_replica_refuses(const struct client *caller)
{
    return server.cfg.replicaof_host && server.cfg.replica_read_only && caller->id != 0 &&
           !(caller->flags & CLIENT_MASTER);
}

/* Redis 7.0.15's scriptPrepareForRun refusals, in its order; replies and
 * returns -1. The dispatcher has made processCommand's already, under the
 * script's flags (script_command_flags): what is left are the refusals
 * only a script's start makes, and those a request that came another way
 * (EXEC's queue, the primary's link) did not meet there. */
static int refuse_or_reply(struct client *caller, unsigned flags, int ro, int stale)
{
    const char *why;
    if (flags & SCRIPT_FLAG_EVAL_COMPAT) {
        if (!stale)
            return 0;
        resp_add_error(&caller->out, ERR_MASTERDOWN);
        return -1;
    }
    if ((flags & SCRIPT_FLAG_NO_CLUSTER) && server.cfg.cluster_enabled) {
        resp_add_error(&caller->out, "ERR Can not run script on cluster, 'no-cluster' flag is set.");
        return -1;
    }
    if (stale && !(flags & SCRIPT_FLAG_ALLOW_STALE)) {
        resp_add_error(&caller->out, "MASTERDOWN Link with MASTER is down, replica-serve-stale-data "
                                     "is set to 'no' and 'allow-stale' flag is not set on the script.");
        return -1;
    }
    if (!(flags & SCRIPT_FLAG_NO_WRITES)) {
        if (readonly_replica_refuses(caller)) {
            resp_add_error(&caller->out, "READONLY Can not run script with write flag on readonly "
                                         "replica");
            return -1;
        }
        if (!server.cfg.replicaof_host && persist_writes_refused()) {
            resp_add_error(&caller->out,
                           "MISCONF Redis is configured to save RDB snapshots, but it's currently "
                           "unable to persist to disk. Writable scripts are blocked. Use "
                           "'no-writes' flag for read only scripts.");
            return -1;
        }
        if (!server.cfg.replicaof_host && aof_writes_refused(&why)) {
            resp_add_errorf(&caller->out,
                            "MISCONF Redis is configured to persist data to AOF, but it's "
                            "currently unable to persist to disk. Writable scripts are blocked. "
                            "Use 'no-writes' flag for read only scripts. AOF error: %s",
                            why);
            return -1;
        }
        if (ro) {
            resp_add_error(&caller->out,
                           "ERR Can not execute a script with write flag using *_ro command.");
            return -1;
        }
        /* Even a script that only reads: its flags say it may write. */
        if (command_replicas_refuse_writes()) {
            resp_add_error(&caller->out, ERR_NOREPLICAS);
            return -1;
        }
    }
    if (cur.oom && !(flags & (SCRIPT_FLAG_ALLOW_OOM | SCRIPT_FLAG_NO_WRITES))) {
        resp_add_error(&caller->out, "OOM allow-oom flag is not set on the script, "
                                     "can not run it when used memory > 'maxmemory'");
        return -1;
    }
    return 0;
}

unsigned script_command_flags(unsigned cmd_flags, unsigned script_flags)
{
    if (script_flags & SCRIPT_FLAG_EVAL_COMPAT)
        return cmd_flags;
    /* Declared flags say whether it writes: no "may" left. */
    cmd_flags &= ~(CMD_STALE | CMD_DENYOOM | CMD_WRITE | CMD_MAY_REPLICATE);
    /* no-writes implies allow-oom. */
    if (!(script_flags & (SCRIPT_FLAG_ALLOW_OOM | SCRIPT_FLAG_NO_WRITES)))
        cmd_flags |= CMD_DENYOOM;
    if (!(script_flags & SCRIPT_FLAG_NO_WRITES))
        cmd_flags |= CMD_WRITE;
    if (script_flags & SCRIPT_FLAG_ALLOW_STALE)
        cmd_flags |= CMD_STALE;
    return cmd_flags;
}

int script_numkeys_or_reply(struct client *c, long long numkeys)
{
    if (numkeys > c->argc - 3) {
        resp_add_error(&c->out, "ERR Number of keys can't be greater than number of args");
        return -1;
    }
    if (numkeys < 0) {
        resp_add_error(&c->out, "ERR Number of keys can't be negative");
        return -1;
    }
    return 0;
}

int script_prepare_or_reply(struct script_run *run, struct client *caller, const char *name,
                            unsigned flags, int eval, int ro, const struct resp_slice *keys,
                            long long numkeys)
{
    /* Measured once, at the start, so the script's own stack and arguments
     * do not count against its first write (Redis's script_oom). Another
     * EVAL cannot start while one runs: -BUSY comes first. */
    cur.oom = server.cfg.maxmemory && !(caller->flags & CLIENT_MASTER) &&
              evict_perform() == EVICT_FAIL;
    if (refuse_or_reply(caller, flags, ro, stale_replica()) < 0)
        return -1;
    struct client *c = script_client();
    memset(run, 0, sizeof(*run));
    run->caller = caller;
    run->name = name;
    run->resp = 2;
    run->repl = SCRIPT_REPL_ALL;
    run->start_us = (int64_t)(uv_hrtime() / 1000);
    run->snapshot_ms = mstime();
    if (eval)
        run->state |= SCRIPT_RUN_EVAL;
    if (ro || (!(flags & SCRIPT_FLAG_EVAL_COMPAT) && (flags & SCRIPT_FLAG_NO_WRITES)))
        run->state |= SCRIPT_RUN_READ_ONLY;
    if (!(flags & SCRIPT_FLAG_EVAL_COMPAT) && (flags & SCRIPT_FLAG_ALLOW_OOM))
        run->state |= SCRIPT_RUN_ALLOW_OOM;
    /* Redis 7.0.15 holds a script with a shebang to its declared keys'
     * slot unless allow-cross-slot-keys; one without may touch any slot
     * this node serves. */
    if (flags & (SCRIPT_FLAG_EVAL_COMPAT | SCRIPT_FLAG_ALLOW_CROSS_SLOT))
        run->state |= SCRIPT_RUN_CROSS_SLOT;
    run->slot = numkeys > 0 ? (int)key_hash_slot(keys[0].ptr, keys[0].len) : -1;
    c->db = caller->db;
    c->db_index = caller->db_index;
    /* The caller's user, as Redis's script client has it: what a command
     * asks of c->user itself (SORT's BY and GET) is the caller's. */
    c->user = caller->user;
    c->out.proto = 2;
    /* The script's writes reach the log and the replicas as one
     * transaction; inside EXEC the transaction's own MULTI holds them. */
    cur.wrapped = !caller->multi;
    if (cur.wrapped)
        propagate_unit_begin();
    cur.run = run;
    return 0;
}

static void protect_caller(struct client *c)
{
    c->flags |= CLIENT_PROTECTED;
    cur.stopped_reading = 0;
    /* A client without a handle (the fuzz harness's) has nothing to stop. */
    if (c->h.handle.loop && !(c->flags & (CLIENT_READ_PAUSED | CLIENT_CLOSING))) {
        uv_read_stop(&c->h.stream);
        cur.stopped_reading = 1;
    }
}

static void unprotect_caller(struct client *c)
{
    c->flags &= ~CLIENT_PROTECTED;
    if (cur.stopped_reading && !(c->flags & (CLIENT_CLOSING | CLIENT_CLOSE_AFTER_REPLY)))
        conn_start_reading(c);
    cur.stopped_reading = 0;
}

void script_finish(struct script_run *run)
{
    if (cur.wrapped)
        propagate_unit_end();
    cur.wrapped = 0;
    if (run->state & SCRIPT_RUN_TIMEDOUT)
        unprotect_caller(run->caller);
    cur.client->user = NULL; /* the user may go before the next run */
    cur.run = NULL;
}

static int arity_ok(const struct command *cmd, int argc)
{
    return cmd->arity >= 0 ? argc == cmd->arity : argc >= -cmd->arity;
}

/* Redis 7.0's scriptVerifyACL: a script's commands run with the caller's
 * permissions, so EVAL cannot reach what the user itself cannot. A denial
 * goes to ACL LOG as the caller's. */
static const char *acl_refused(struct script_run *run, const struct command *cmd, int argc,
                               const struct resp_slice *argv)
{
    struct client *caller = run->caller;
    if (!caller->user || (caller->user->flags & ACL_USER_ALLPERM))
        return NULL;
    int pos = 0;
    enum acl_denial d = acl_check(caller->user, cmd, argc, argv, &pos);
    if (d == ACL_ALLOWED)
        return NULL;
    acl_log_denial(caller, ACL_LOG_LUA, d, cmd, argv, pos);
    switch (d) {
    case ACL_DENIED_CMD:
        return "The user executing the script can't run this command or subcommand";
    case ACL_DENIED_KEY:
        return "The user executing the script can't access at least one of the keys mentioned "
               "in the command";
    default:
        return "The user executing the script can't publish to the channel mentioned in the "
               "command";
    }
}

int script_acl_allows(const struct script_run *run, const struct command *cmd, int argc,
                      const struct resp_slice *argv)
{
    const struct acl_user *u = run->caller->user;
    int pos = 0;
    return !u || (u->flags & ACL_USER_ALLPERM) || acl_check(u, cmd, argc, argv, &pos) == ACL_ALLOWED;
}

/* Redis's scriptCall checks; returns the refusal's text or NULL. */
static const char *call_refused(struct script_run *run, const struct command *cmd, int argc,
                                const struct resp_slice *argv)
{
    const char *why;
    if (!cmd)
        return "Unknown Redis command called from script";
    if (!arity_ok(cmd, argc))
        return "Wrong number of args calling Redis command from script";
    if (cmd->flags & CMD_NOSCRIPT)
        return "This Redis command is not allowed from script";
    if ((why = acl_refused(run, cmd, argc, argv)) != NULL)
        return why;
    if (stale_replica() && !(cmd->flags & CMD_STALE))
        return "Can not execute the command on a stale replica";
    /* Once the script wrote, it cannot stop halfway: Redis checks only
     * its first write (scriptVerifyWriteCommandAllow). */
    if ((cmd->flags & CMD_WRITE) && (run->state & SCRIPT_RUN_READ_ONLY))
        return "Write commands are not allowed from read-only scripts.";
    if ((cmd->flags & CMD_WRITE) && !(run->state & SCRIPT_RUN_WROTE)) {
        if (readonly_replica_refuses(run->caller))
            return "-" ERR_READONLY;
        if (persist_writes_refused())
            return "-" ERR_MISCONF;
        if (aof_writes_refused(&why)) {
            snprintf(cur.err, sizeof(cur.err), "-" AOF_ERR_MISCONF "%s", why);
            return cur.err;
        }
        if (command_replicas_refuse_writes())
            return "-" ERR_NOREPLICAS;
    }
    /* Only before the first write: a script that changed data cannot be
     * stopped halfway. */
    if (!(run->state & (SCRIPT_RUN_ALLOW_OOM | SCRIPT_RUN_WROTE)) && cur.oom &&
        !server.cfg.replicaof_host && (cmd->flags & CMD_DENYOOM))
        return "-" ERR_OOM;
    /* Cluster mode: the keys must be this node's, in one slot. */
    return command_route_script(run->caller, cmd, argc, argv,
                                (run->state & SCRIPT_RUN_CROSS_SLOT) != 0, &run->slot);
}

static void gather_reply(void *ctx, const char *p, size_t n)
{
    (void)ctx;
    if (!cur.reply || cur.reply_len + n + 1 > cur.reply_cap) {
        cur.reply_cap = (cur.reply_len + n + 1) * 2;
        cur.reply = xrealloc(cur.reply, cur.reply_cap);
    }
    memcpy(cur.reply + cur.reply_len, p, n);
    cur.reply_len += n;
}

const char *script_call(struct script_run *run, int argc, struct resp_slice *argv, size_t *len,
                        const char **err)
{
    struct client *c = script_client();
    const struct command *cmd = command_resolve(argc, argv);
    *err = call_refused(run, cmd, argc, argv);
    if (*err) {
        /* Counted here, as Redis's scriptCall counts it: the error table
         * the script gets says so, and EVAL's reply of it counts no more. */
        errorstats_count(*err);
        command_script_refused(cmd);
        return NULL;
    }
    if (cmd->flags & CMD_WRITE)
        run->state |= SCRIPT_RUN_WROTE;
    c->argc = argc;
    c->argv = argv;
    c->out.proto = run->resp;
    c->last_cmd = cmd;
    /* Redis's call() counts every command it runs, a script's too. */
    server.stats.total_commands++;
    command_call(c, cmd);
    c->argc = 0;
    c->argv = NULL;
    cur.reply_len = 0;
    resp_out_drain(&c->out, gather_reply, NULL);
    if (!cur.reply)
        gather_reply(NULL, "", 0);
    cur.reply[cur.reply_len] = '\0';
    *len = cur.reply_len;
    return cur.reply;
}

int script_interrupt(struct script_run *run)
{
    if (!(run->state & SCRIPT_RUN_TIMEDOUT)) {
        long long elapsed = script_run_ms();
        if (elapsed < server.cfg.busy_reply_threshold)
            return 0;
        log_msg(LOG_WARNING,
                "Slow script detected: still in execution after %lld milliseconds. You can try "
                "killing the script using the %s command.",
                elapsed, (run->state & SCRIPT_RUN_EVAL) ? "SCRIPT KILL" : "FUNCTION KILL");
        run->state |= SCRIPT_RUN_TIMEDOUT;
        protect_caller(run->caller);
    }
    if (cur.busy_stop && cur.busy_stop())
        return 1;
    if (!server.shutting_down)
        uv_run(server.loop, UV_RUN_NOWAIT);
    return (run->state & SCRIPT_RUN_KILLED) || server.shutting_down;
}

/* Core's long-running command hook (longrun.h): a busy script. */
static const struct long_run busy_script = {
    .running = script_running,
    .timed_out = script_timedout,
    .busy_reply = script_busy_reply,
    .time_snapshot_ms = script_time_snapshot,
};

void script_init(void)
{
    long_run_register(&busy_script);
}

void script_set_busy_stop(int (*stop)(void))
{
    cur.busy_stop = stop;
}

int script_running(void)
{
    return cur.run != NULL;
}

int script_timedout(void)
{
    return cur.run && (cur.run->state & SCRIPT_RUN_TIMEDOUT);
}

const char *script_busy_reply(void)
{
    return cur.run && !(cur.run->state & SCRIPT_RUN_EVAL) ? BUSY_FUNCTION : BUSY_EVAL;
}

void script_kill(struct client *c, int eval)
{
    if (!cur.run) {
        resp_add_error(&c->out, "NOTBUSY No scripts in execution right now.");
        return;
    }
    if (cur.run->caller->flags & CLIENT_MASTER) {
        resp_add_error(&c->out, "UNKILLABLE The busy script was sent by a master instance in the "
                                "context of replication and cannot be killed.");
        return;
    }
    if (cur.run->state & SCRIPT_RUN_WROTE) {
        resp_add_error(&c->out, "UNKILLABLE Sorry the script already executed write commands "
                                "against the dataset. You can either wait the script termination "
                                "or kill the server in a hard way using the SHUTDOWN NOSAVE "
                                "command.");
        return;
    }
    if (eval != !!(cur.run->state & SCRIPT_RUN_EVAL)) {
        /* SCRIPT KILL stops no function, FUNCTION KILL no EVAL. */
        resp_add_error(&c->out, script_busy_reply());
        return;
    }
    cur.run->state |= SCRIPT_RUN_KILLED;
    resp_add_simple(&c->out, "OK");
}

long long script_run_ms(void)
{
    return cur.run ? ((int64_t)(uv_hrtime() / 1000) - cur.run->start_us) / 1000 : 0;
}

int64_t script_time_snapshot(void)
{
    return cur.run ? cur.run->snapshot_ms : -1;
}
