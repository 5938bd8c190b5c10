/*
 * monitor.h - MONITOR: the clients that receive a line for every command
 * the server runs (prefix monitor_).
 *
 * Owns the list of monitoring clients, in the order they asked, and the
 * check handle that sends what they were fed once per loop turn. A monitor
 * is an ordinary client otherwise: its output obeys the normal class's
 * client-output-buffer-limit, as Redis 7 counts monitors as normal clients.
 *
 * Redis 7.0's rules (call() and replicationFeedMonitors): a command is shown
 * after it ran, so SELECT shows the db it selected and EXEC follows the
 * commands of its transaction; a command refused before running (unknown,
 * wrong arity, NOAUTH, OOM, queued in MULTI) is not shown; nor is one
 * flagged admin (or an admin subcommand of a container), which keeps
 * CONFIG SET requirepass off the wire; arguments a handler redacted
 * (command_redact_arg: AUTH's and HELLO's passwords) show "(redacted)".
 */
#ifndef RBKV_MONITOR_H
#define RBKV_MONITOR_H

struct client;
struct command;

/* At start: the send handle, and monitor_stop on the client-gone list. */
void monitor_init(void);
/* Closes the check handle and forgets every monitor; at shutdown. */
void monitor_close(void);

/* c becomes a monitor (CLIENT_MONITOR). c must not be one already. */
void monitor_start(struct client *c);
/* c stops being a monitor (RESET, or closing); nothing when it is not one. */
void monitor_stop(struct client *c);
/* Monitors now (INFO, CLIENT LIST TYPE). */
unsigned long monitor_count(void);

/* Shows the request c->argc/argv, which cmd just ran for c, to every
 * monitor, unless Redis hides it. One comparison when nobody monitors. */
void monitor_feed(const struct client *c, const struct command *cmd);

#endif
