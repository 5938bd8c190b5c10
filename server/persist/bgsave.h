/*
 * bgsave.h - when snapshots are taken and loaded (bgsave.c): SAVE and
 * BGSAVE's work, the `save` rules, the save at shutdown, loading at start and
 * the MISCONF refusal after a failed background save.
 */
#ifndef RBKV_BGSAVE_H
#define RBKV_BGSAVE_H

#include <sys/types.h>

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
    long long last_bgsave_time_s;    /* duration of the last BGSAVE, -1 before the first */
    long long current_bgsave_time_s; /* of the running one, -1 when none */
    size_t last_cow_bytes;           /* copy-on-write of the last BGSAVE's child */
    size_t current_cow_bytes;        /* of the running child so far, 0 when none */
    long long current_cow_age_s; /* how old that figure is (read off the loop) */
    size_t current_keys_total;       /* keys the running child writes, 0 when none */
    unsigned long long saves;        /* good saves since start or RESETSTAT */
};

struct snap_limits;
/* The configuration's packed thresholds for hashes and sets, into *lim, for
 * a snapshot load (snap_load takes them; this reads the configuration, so
 * on the loop thread only). */
void persist_snap_limits(struct snap_limits *lim);

/* SAVE: saves in this process. Returns 0, or -1 after logging why. */
int persist_save(void);
/* BGSAVE: starts the child. Returns 0, or -1 after logging why. */
int persist_bgsave(void);
/* Loads `dbfilename` from the working directory into the empty keyspace, at
 * start: rbkv's snapshot, or a Redis RDB file (rdb_file.h) when it opens with
 * REDIS. Then the functions it held wait for fn_install_loaded, as a
 * snapshot's do. Returns 0 (also when there is no file), or -1 after logging the file,
 * offset and fault: the server must not start, and the file is left alone. */
int persist_load(void);
/* From the cron: reaps a finished BGSAVE child, then starts one when a
 * `save` rule is due. */
void persist_cron(void);
/* Stops the running BGSAVE child, if any, and removes its temp file; its
 * status is not counted as a failed save (FLUSHALL, shutdown). */
void persist_kill_child(void);
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
/* CONFIG RESETSTAT: the save counter. */
void persist_reset_stats(void);

#endif
