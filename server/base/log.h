/*
 * log.h - log lines with time and level, as redis-server prints them:
 *   12345:M 03 Dec 2026 07:53:02.123 * Ready to accept connections tcp
 * Goes to the logfile setting, or standard output when it is empty.
 */
#ifndef RBKV_LOG_H
#define RBKV_LOG_H

enum log_level { LOG_DEBUG, LOG_VERBOSE, LOG_NOTICE, LOG_WARNING };

void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Where the level filter reads the level, on every line, so a change there
 * acts at once (main.c points it at server.cfg.loglevel). NULL, the default,
 * logs everything. */
void log_set_level_source(const enum log_level *level);
/* Reopens the log destination after a logfile change; returns 0 or -1. */
int log_open(const char *path);
/* The letter after the pid on every line: 'M' (the default), 'S', 'C'. */
void log_set_role(char r);
/* Also sends every line to syslog, under ident, with facility 0 (user) or
 * 1..8 (local0..local7): Redis's syslog-enabled, -ident, -facility. */
void log_use_syslog(const char *ident, int facility);

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_verbose(...) log_msg(LOG_VERBOSE, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)

#endif
