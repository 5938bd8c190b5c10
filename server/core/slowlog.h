/*
 * slowlog.h - the slow log (SLOWLOG GET/LEN/RESET): the last
 * slowlog-max-len commands that ran for at least slowlog-log-slower-than
 * microseconds, as Redis's slowlog.c.
 *
 * Owns its entries and everything in them: each argument is copied, capped
 * as Redis caps them (SLOWLOG_MAX_ARGC arguments, the last one saying how
 * many more there were; SLOWLOG_MAX_STRING bytes of each, then how many
 * more), with the arguments a command marked secret (command_redact_arg)
 * replaced by "(redacted)". Not cleared by CONFIG RESETSTAT, as in Redis.
 */
#ifndef RBKV_SLOWLOG_H
#define RBKV_SLOWLOG_H

#include <stddef.h>
#include <stdint.h>

#include "resp_parser.h"

struct client;

#define SLOWLOG_MAX_ARGC 32
#define SLOWLOG_MAX_STRING 128

struct slowlog_entry {
    long long id;
    int64_t time;                /* unix seconds when it was logged */
    long long duration_us;
    int argc;
    struct resp_slice *argv;     /* owned, each ptr owned */
    char *peer;                  /* "ip:port", owned */
    char *name;                  /* client name, "" when none; owned */
};

/* Logs the command c just ran (its argv) when duration_us reaches the
 * threshold, then trims the log to slowlog-max-len. */
void slowlog_push_if_needed(const struct client *c, long long duration_us);
/* A blocking command's entry, made when it blocks (c's arguments are gone
 * by the time it is served) and pushed by slowlog_push_entry, which owns it
 * then, once its time is known; NULL while the log is off. */
struct slowlog_entry *slowlog_entry_of(const struct client *c);
/* Logs e, as slowlog_push_if_needed would, when duration_us reaches the
 * threshold; frees it otherwise. e may be NULL. */
void slowlog_push_entry(struct slowlog_entry *e, long long duration_us);
void slowlog_entry_free(struct slowlog_entry *e);
/* The log's length, and its i-th newest entry (0 = newest); NULL past the end. */
size_t slowlog_len(void);
const struct slowlog_entry *slowlog_at(size_t i);
/* Frees every entry; ids keep counting, as in Redis. */
void slowlog_reset(void);

#endif
