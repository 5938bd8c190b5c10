/*
 * commands.h - the command tables each cmd_*.c module exports.
 *
 * A module's table is an array of struct command ending with an entry whose
 * name is NULL. command.c gathers them all at start; adding a module means
 * adding its table to the list in command.c.
 */
#ifndef RBKV_COMMANDS_H
#define RBKV_COMMANDS_H

#include <sys/types.h>

#include "server.h"

extern struct command string_commands[];
extern struct command keys_commands[];
extern struct command ordered_commands[];
extern struct command scan_commands[];
extern struct command server_commands[];
extern struct command connection_commands[];
extern struct command command_commands[];
extern struct command zset_commands[];
extern struct command persist_commands[];
extern struct command multi_commands[];

/* Registers the sorted-set value type with the keyspace; once, at start. */
void cmd_zset_init(void);

/* Snapshots (cmd_persist.c). */

/* Redis's shared.bgsaveerr, word for word: clients match on it. */
#define ERR_MISCONF                                                                               \
    "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist "    \
    "to disk. Commands that may modify the data set are disabled, because this instance is "      \
    "configured to report errors during writes if RDB snapshotting fails "                        \
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the "    \
    "RDB error."

enum persist_shutdown_mode {
    PERSIST_DEFAULT, /* save when `save` rules are set (SIGTERM, plain SHUTDOWN) */
    PERSIST_SAVE,    /* SHUTDOWN SAVE */
    PERSIST_NOSAVE,  /* SHUTDOWN NOSAVE */
};

struct persist_status {
    long long last_save_time;   /* unix seconds of the last good save (or of the start) */
    int bgsave_in_progress;
    int last_bgsave_ok;
};

/* Loads `dbfilename` from the working directory into the empty keyspace, at
 * start. Returns 0 (also when there is no file), or -1 after logging the file,
 * offset and fault: the server must not start, and the file is left alone. */
int persist_load(void);
/* From the cron: reaps a finished BGSAVE child, then starts one when a
 * `save` rule is due. */
void persist_cron(void);
/* Before shutting down: stops a BGSAVE child (removing its temp file), then
 * saves as mode says. Returns 0, or -1 when the save failed (logged) and the
 * server should stay up. */
int persist_shutdown(enum persist_shutdown_mode mode);
/* The running BGSAVE child, 0 when none: only persist_cron may reap it. */
pid_t persist_child_pid(void);
/* Whether write commands get ERR_MISCONF: the last background save failed,
 * `save` rules are set and stop-writes-on-bgsave-error is yes (Redis's rule). */
int persist_writes_refused(void);
void persist_get_status(struct persist_status *st);

#endif
