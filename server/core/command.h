/*
 * command.h - the dispatcher (command.c): what runs a request, and the hooks
 * by which the subsystems above core take part in it.
 *
 * The rows it runs are command_table.h's, which this header brings along, as
 * every command module needs both.
 */
#ifndef RBKV_COMMAND_H
#define RBKV_COMMAND_H

#include <stdint.h>

#include "blocking.h"
#include "command_table.h"

/* At start, after every table is registered: indexes the table
 * (command_table_init), checks and indexes the key specs
 * (keyspec_table_init), and registers the dispatcher with the transport and
 * the blocking module. */
void command_init(void);
/* Runs the request in c->argc/argv: lookup, arity, authentication, memory
 * limit, MISCONF, then the handler or MULTI's queue, with Redis's error text
 * for each refusal. */
void command_execute(struct client *c);
/* EXEC: runs c's transaction (multi.h's multi_exec) with the dispatcher's
 * checks and command_call. */
void command_exec(struct client *c);
/* A script's command refused before it ran, its error counted with
 * errorstats_count: cmd's rejected call (NULL: an unknown command). */
void command_script_refused(const struct command *cmd);
/* Runs an accepted request: the handler, its stats, and reporting the keys a
 * write changed to WATCH and the append-only log (EXEC runs its queue through
 * this). */
void command_call(struct client *c, const struct command *cmd);
/* c's blocking command's wait ended (blocking.h's block_end), as Redis
 * 7.0.15's updateStatsOnUnblock: served or unblocked, the call's own run
 * time plus serve_us goes to its time, its latency histogram and the slow
 * log (the entry made when it blocked; the wait itself is left out), and
 * serve_us to the latency monitor's "command-unblocking"; CLIENT UNBLOCK,
 * in either mode, counts a failed call. Its call was counted when it
 * blocked. A timeout of its own counts nothing more, as in Redis. */
void command_unblocked(struct client *c, enum block_end end, int64_t serve_us);
/* Called by a handler once it has used argument i of the running request:
 * replaces it with "(redacted)", which is all MONITOR and SLOWLOG show of it
 * (Redis's redactClientCommandArgument, for passwords). */
void command_redact_arg(struct client *c, int i);
/* Redis's "wrong number of arguments" for the request in c. */
void reply_wrong_arity(struct client *c);
/* Redis's allowProtectedAction: whether c may do what an
 * enable-debug-command-style setting (enum protected_access: no, yes,
 * local) guards; local means a loopback or unix-socket client. */
int command_protected_allowed(const struct client *c, int access);

/* ---- Hooks: what the dispatcher asks of the subsystems above core ----
 * Core includes no header of scripting/ or replication/ (check_layers.sh):
 * each registers its answers here at start, as data/keyspace.h's
 * ks_on_change, and the dispatcher calls through the pointer, one
 * predictable branch on its path. Unset, the server runs as one without
 * that subsystem. The structs must outlive the server. The long-running
 * command's hook is longrun.h's (eviction and the cron ask it too). */

/* May this write proceed: replication's refusals (replication/repl.c
 * registers them, repl_init). */
struct command_write_gate {
    int (*link_up)(void);        /* a replica's link to its primary is up */
    int (*refuses_writes)(void); /* a primary short of min-replicas-to-write */
};
void command_on_write_gate(const struct command_write_gate *gate);
/* Whether a replica's link to its primary is up (1 when no gate is
 * registered): replica-serve-stale-data's test, for scripts' commands too. */
int command_primary_link_up(void);
/* Whether a primary short of min-replicas-to-write refuses writes now (0
 * when no gate is registered): for a script's start and its writes. */
int command_replicas_refuse_writes(void);

/* Where may this request run: cluster mode's redirection (cluster/
 * registers it, cluster_init). refuses answers c's request (cmd, with its
 * arguments in c->argc/argv; EXEC's answer covers its queue) with Redis's
 * -MOVED, -ASK, -CROSSSLOT, -TRYAGAIN or -CLUSTERDOWN and returns 1, or
 * returns 0 when it runs here. done runs after every request, refused or
 * not (ASKING lasts one command). A primary's link is never asked. */
struct command_route {
    int (*refuses)(struct client *c, const struct command *cmd);
    void (*done)(struct client *c, const struct command *cmd);
    /* A command a script runs (cmd, argc, argv) for caller, Redis 7.0's
     * scriptVerifyClusterState: NULL when it may run here, else the
     * refusal's text. *slot is the run's slot (-1 until a command touched
     * a key); unless cross_slot, every command must keep to it. */
    const char *(*script_refuses)(struct client *caller, const struct command *cmd, int argc,
                                  const struct resp_slice *argv, int cross_slot, int *slot);
};
void command_on_route(const struct command_route *route);
/* The route's script_refuses, or NULL when no route is registered (not in
 * cluster mode). */
const char *command_route_script(struct client *caller, const struct command *cmd, int argc,
                                 const struct resp_slice *argv, int cross_slot, int *slot);

/* Error replies used across commands (Redis's exact texts). */
#define ERR_SYNTAX "ERR syntax error"
#define ERR_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"
#define ERR_NOT_INT "ERR value is not an integer or out of range"
#define ERR_NOT_FLOAT "ERR value is not a valid float"
#define ERR_OVERFLOW "ERR increment or decrement would overflow"
#define ERR_NO_SUCH_KEY "ERR no such key"
#define ERR_DB_INDEX "ERR DB index is out of range"
#define ERR_OOM "OOM command not allowed when used memory > 'maxmemory'."
#define ERR_NOAUTH "NOAUTH Authentication required."
#define ERR_READONLY "READONLY You can't write against a read only replica."
#define ERR_MASTERDOWN                                                                          \
    "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
#define ERR_LOADING "LOADING Redis is loading the dataset in memory"
#define ERR_NOREPLICAS "NOREPLICAS Not enough good replicas to write."
#define ERR_NO_MULTI "ERR Command not allowed inside a transaction"
#define ERR_WRONGPASS "WRONGPASS invalid username-password pair or user is disabled."

#endif
