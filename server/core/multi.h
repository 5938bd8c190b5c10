/*
 * multi.h - transactions: MULTI's queue of commands and running it at EXEC
 * (the commands themselves are cmd_multi.c's).
 *
 * Owns: each client's queue (c->multi), including private copies of the
 * queued arguments, since the parser's slices die when the handler returns.
 * The queue lives from MULTI to EXEC, DISCARD or the client's disconnect
 * (multi_discard).
 */
#ifndef RBKV_MULTI_H
#define RBKV_MULTI_H

#include <stddef.h>

struct client;
struct command;

/* MULTI: c, not in a transaction yet, starts queueing. */
void multi_start(struct client *c);
struct multi_runner {
    /* The dispatcher's refusal of c's queued commands now (OOM, MISCONF, a
     * replica's READONLY or MASTERDOWN), or NULL: cmd_flags is the union of
     * their flags, missing_flags the flags one of them at least lacks. */
    const char *(*refusal)(const struct client *c, unsigned cmd_flags, unsigned missing_flags);
    /* Runs one queued command, the request in c->argc/argv. */
    void (*call)(struct client *c, const struct command *cmd);
};
/* EXEC for c, in a transaction: refuses the whole queue (EXECABORT) as the
 * dispatcher would now, or answers nil when a WATCHed key changed, or runs
 * every queued command into one array reply; then ends the transaction.
 * The dispatcher is above the queue, so EXEC's caller (command_exec) passes
 * run, its part of the run. */
void multi_exec(struct client *c, const struct multi_runner *run);

/* The dispatcher, for a client in MULTI whose request passed every check:
 * queues it and replies +QUEUED, returning 1; returns 0 for the commands that
 * run at once even inside MULTI (flag CMD_TX_NOW). flags: the request's
 * (command.h's flags_of), which EXEC's checks read. */
int multi_queue(struct client *c, const struct command *cmd, unsigned flags);

/* Whether running cmd now would grow c's queue (or its MULTI state): then
 * the dispatcher refuses it over maxmemory whatever its flags, as Redis
 * does, since a queue could otherwise grow without bound. */
int multi_queue_grows(const struct client *c, const struct command *cmd);

/* The dispatcher refused a request (unknown, arity, NOAUTH, OOM): inside
 * MULTI this dooms the transaction, whose EXEC then answers EXECABORT. */
void multi_refused(struct client *c);

/* Drops c's queue (if any) and its watched keys: DISCARD, and disconnect. */
void multi_discard(struct client *c);
/* At start: registers multi_discard with the transport's client-gone list
 * (conn.h). */
void multi_init(void);

/* The number of queued commands, or -1 when c is not in MULTI (CLIENT LIST). */
long multi_queued(const struct client *c);
/* Bytes c's queue holds (CLIENT LIST multi-mem); 0 outside MULTI. */
size_t multi_memory(const struct client *c);
/* Calls visit for each command in c's queue, in order, with its arguments;
 * nonzero from visit stops the walk and is returned. 0 outside MULTI. */
struct resp_slice;
typedef int multi_visit_fn(void *ctx, const struct command *cmd, int argc,
                           const struct resp_slice *argv);
int multi_visit(const struct client *c, multi_visit_fn *visit, void *ctx);
/* Whether c's queue holds a write (cluster routing asks). */
int multi_has_write(const struct client *c);
/* The flags of every command in c's queue together (0 outside MULTI): EXEC
 * of a queue holding a write or what may replicate is held by CLIENT PAUSE
 * WRITE, as Redis does. */
unsigned multi_queued_flags(const struct client *c);

#endif
