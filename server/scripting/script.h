/*
 * script.h - one script's run, whatever its language or how it was called
 * (EVAL or FCALL): Redis 7.0's script.c (prefix script_).
 *
 * Owns: the run in progress (at most one: scripts are atomic, nothing else
 * runs meanwhile) and the client without a connection that the script's
 * redis.call commands run on. Knows nothing of Lua (script_lua.h drives a
 * run from a Lua state) and nothing of the script cache (eval.h) or of
 * functions.
 *
 * A run:
 *   struct script_run run;
 *   if (script_prepare_or_reply(&run, caller, name, flags, ro) < 0) return;
 *   ... script_call(&run, argc, argv, &err) for each redis.call ...
 *   script_finish(&run);
 * script_prepare_or_reply makes Redis's checks for the flags (read-only
 * replica, stale replica, OOM without allow-oom, MISCONF, a writing script
 * through *_RO) and answers the caller itself when it refuses. Between
 * prepare and finish the script's writes go to the log and the replicas as
 * their effects: the write commands it ran, inside MULTI ... EXEC, as
 * Redis 7 replicates scripts; a run that wrote nothing sends nothing.
 *
 * Busy: once a run is older than busy-reply-threshold, script_interrupt
 * (called by the engine from its instruction hook) serves the network from
 * inside the script: the dispatcher answers every command not flagged
 * CMD_ALLOW_BUSY with -BUSY (script_busy_reply), SCRIPT KILL / FUNCTION
 * KILL mark the run killed (script_kill) unless it wrote, SHUTDOWN NOSAVE
 * ends the server. The caller is protected meanwhile: a disconnect is
 * handled after the run.
 *
 * What the function helper may rely on: this header and script_lua.h; the
 * run's fields marked "engine" are the engine's to read; everything else
 * in struct script_run is private to script.c.
 */
#ifndef RBKV_SCRIPT_H
#define RBKV_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "longrun.h"

struct client;
struct command;
struct resp_slice;

/* Script flags: a shebang's (#!lua flags=...) or a function's. EVAL without
 * a shebang runs in SCRIPT_FLAG_EVAL_COMPAT mode: Redis's rules before
 * flags existed (writes allowed, OOM checked per command). */
#define SCRIPT_FLAG_NO_WRITES (1u << 0)
#define SCRIPT_FLAG_ALLOW_OOM (1u << 1)
#define SCRIPT_FLAG_ALLOW_STALE (1u << 2)
#define SCRIPT_FLAG_NO_CLUSTER (1u << 3)
#define SCRIPT_FLAG_ALLOW_CROSS_SLOT (1u << 4)
#define SCRIPT_FLAG_EVAL_COMPAT (1u << 5)

/* The flag named name[0..len) ("no-writes", ...), or 0 for an unknown
 * name: shebangs and functions parse their lists with it. */
unsigned script_flag_by_name(const char *name, size_t len);
/* Redis's scriptFlagsToCmdFlags: the flags a request running a script with
 * script_flags runs under, given its row's (command_table.h's flags_of);
 * EVAL without a shebang keeps the row's. */
unsigned script_command_flags(unsigned cmd_flags, unsigned script_flags);
/* The flags' names, for FUNCTION LIST: bit i of SCRIPT_FLAG_* (up to
 * SCRIPT_FLAG_ALLOW_CROSS_SLOT) is named script_flag_name(i); NULL past
 * the end. */
const char *script_flag_name(int i);

/* Run flags, in script_run.state */
#define SCRIPT_RUN_READ_ONLY (1u << 0)  /* *_RO or no-writes: writes refused */
#define SCRIPT_RUN_ALLOW_OOM (1u << 1)
#define SCRIPT_RUN_WROTE (1u << 2)      /* ran a write: unkillable */
#define SCRIPT_RUN_TIMEDOUT (1u << 3)   /* past busy-reply-threshold: the loop is served */
#define SCRIPT_RUN_KILLED (1u << 4)     /* SCRIPT KILL or FUNCTION KILL asked it to stop */
#define SCRIPT_RUN_EVAL (1u << 5)       /* an EVAL (SCRIPT KILL), else a function (FUNCTION KILL) */
#define SCRIPT_RUN_CROSS_SLOT (1u << 6) /* no shebang, or allow-cross-slot-keys: any slot of this node */

struct script_run {
    struct client *caller;       /* engine: who called EVAL/FCALL; replies go to it */
    const char *name;            /* engine: the sha or the function's name, for error texts */
    unsigned state;              /* SCRIPT_RUN_* */
    int resp;                    /* engine: 2 or 3, redis.setresp */
    int64_t start_us;            /* monotonic */
    int64_t snapshot_ms;         /* the clock keys expire by during the run */
    int repl;                    /* redis.set_repl: SCRIPT_REPL_* (accepted; effects go to both) */
    int slot;                    /* cluster mode: the slot of the keys touched, -1: none yet */
};

/* redis.set_repl's targets (REPL_* in the redis library). */
#define SCRIPT_REPL_NONE 0
#define SCRIPT_REPL_AOF 1
#define SCRIPT_REPL_SLAVE 2
#define SCRIPT_REPL_ALL 3

/* Redis's checks of EVAL's and FCALL's numkeys against the request in c
 * (keys start at argv[3]): 0, or -1 after replying the error. */
int script_numkeys_or_reply(struct client *c, long long numkeys);

/* Starts a run for caller (its db) under flags; eval: SCRIPT_RUN_EVAL's
 * kind; ro: called as EVAL_RO/EVALSHA_RO/FCALL_RO; keys[0..numkeys) the
 * declared keys (their slot is the run's first, as Redis's c->slot).
 * Returns 0, or -1 after replying Redis's refusal to the caller. name and
 * keys are borrowed for the call. */
int script_prepare_or_reply(struct script_run *run, struct client *caller, const char *name,
                            unsigned flags, int eval, int ro, const struct resp_slice *keys,
                            long long numkeys);
/* Ends the run: propagation closed, the caller unprotected (and closed now
 * if it went away meanwhile). */
void script_finish(struct script_run *run);

/* Runs argv (a redis.call) on the script's client after Redis's checks for
 * scripts (unknown command, arity, noscript, the caller's ACL permissions,
 * stale, read-only, OOM).
 * Returns the reply's bytes (RESP run->resp; borrowed until the next
 * script_call or script_finish) and sets *len; on a refusal returns NULL
 * with *err set to Redis's text without the error code's "ERR " (e.g.
 * "Write commands are not allowed from read-only scripts.") or with its
 * own code ("-OOM ..."), as scriptCall's err. */
const char *script_call(struct script_run *run, int argc, struct resp_slice *argv, size_t *len,
                        const char **err);
/* Whether run's caller may run cmd with argv[0..argc) under its ACL user
 * (redis.acl_check_cmd). */
int script_acl_allows(const struct script_run *run, const struct command *cmd, int argc,
                      const struct resp_slice *argv);

/* Called by the engine every so many instructions: returns 1 when the run
 * must stop (killed), else 0. Past busy-reply-threshold, serves the
 * network once per call (uv_run NOWAIT) without running the cron. */
int script_interrupt(struct script_run *run);

/* For the fuzz harness, which has no second client to send SCRIPT KILL:
 * stop (when set) is asked at each check of a script past
 * busy-reply-threshold, before the loop runs; nonzero ends the script as
 * SHUTDOWN NOSAVE would, written or not. NULL (the default) asks nothing. */
void script_set_busy_stop(int (*stop)(void));

/* At start: registers the running script as the dispatcher's long-running
 * command (longrun.h), so core asks it whether
 * one runs, has timed out, what -BUSY says and which clock its commands
 * see, without knowing scripting. */
void script_init(void);

/* Whether a script is running / has run past busy-reply-threshold. */
int script_running(void);
int script_timedout(void);
/* The dispatcher's -BUSY text for the running script (EVAL's or a
 * function's). */
const char *script_busy_reply(void);
/* SCRIPT KILL (eval 1) or FUNCTION KILL (eval 0): replies to c. */
void script_kill(struct client *c, int eval);
/* Milliseconds the current run has taken (0 when none). */
long long script_run_ms(void);
/* The clock the running script's commands see for expiry (Redis's
 * snapshot time), or -1 when no script runs. */
int64_t script_time_snapshot(void);
/* The script client, for callers that must recognise it: core's id for a
 * long-running command's own client (longrun.h). */
#define SCRIPT_CLIENT_ID CLIENT_ID_LONG_RUN

#endif
