/*
 * aof.h - the append-only log (prefix aof_): every write command that
 * changed data, in RESP, appended after it runs; replayed at start.
 *
 * Owns: the log's file descriptor, the bytes not yet written, the fsync
 * timer, and the write-error state that refuses writes (MISCONF). Knows a
 * command only by its table row (name and key positions); it replays through
 * the function its caller passes, and reads the keyspace only for deadlines
 * and to write a whole dataset as commands.
 *
 * Durability: appended bytes reach the file before the replies of the same
 * loop turn go out (aof_flush_before_reply); with `appendfsync always` they
 * are also fdatasync'ed then, once for all of that turn's writes (group
 * commit). `everysec` fdatasyncs every second on a libuv worker thread, `no`
 * leaves it to the OS.
 *
 * Deadlines are logged as absolute times: after a write, every key it names
 * that has a deadline is followed in the log by PEXPIREAT key <unix ms>, so a
 * relative EXPIRE or SET EX replayed later ends at the original deadline, and
 * a key whose deadline has passed by the replay is deleted by it.
 */
#ifndef RBKV_AOF_H
#define RBKV_AOF_H

#include <stddef.h>
#include <sys/types.h>

struct command;
struct db;
struct resp_slice;

/* Redis's text after a failed write of the log; the errno's text follows. */
#define AOF_ERR_MISCONF "MISCONF Errors writing to the AOF file: "

/* Runs one command read from the log (argv[0] is its own name, never a
 * rename). Returns 0, or -1 with *why saying why the log cannot hold it; the
 * load then stops there as at a corrupt byte. */
typedef int aof_replay_fn(void *ctx, int argc, struct resp_slice *argv, const char **why);

/* At start, when appendonly is yes: replays `appendfilename` into the empty
 * keyspace. Returns 1 when there is no log (the caller loads the snapshot,
 * then calls aof_open), 0 when it was loaded, -1 after logging the file, the
 * offset and the fault (the server must not start; the file is untouched). A
 * log cut in the middle of a command is loaded up to the last whole one and
 * trimmed there, with a warning, when aof-load-truncated is yes. */
int aof_load(aof_replay_fn *replay, void *ctx);
/* Opens the log for appending and starts the fsync timer. When the log did
 * not exist, first writes the keyspace's current contents into it (what a
 * snapshot loaded), so the log alone restores the dataset. Returns 0 or -1
 * (logged). */
int aof_open(void);
/* Writes and syncs what is pending, stops the timer, closes the file. */
void aof_close(void);

/* From command_call: cmd just ran as argv in db and changed data. Appends
 * argv under cmd's own name (with SELECT first when db differs from the
 * log's) and the deadlines of the keys it names. */
void aof_feed(struct db *db, const struct command *cmd, int argc, const struct resp_slice *argv);
/* Appends argv as one command run in database db: a blocked client's pop,
 * logged as the ZPOPMIN/ZPOPMAX it amounted to. */
void aof_feed_argv(int db, int argc, const struct resp_slice *argv);
/* Around the writes a unit sends together (propagate.c: more than one held
 * for the log or the replicas): MULTI, in db (the first one's), at once,
 * then EXEC, even when none of them is for the log (two PUBLISHes make an
 * empty MULTI/EXEC, as in Redis 7.0), so a crash in the middle of writing
 * a transaction never replays half of it: the loader drops a MULTI whose
 * EXEC is missing, as a cut tail. */
void aof_exec_begin(int db);
void aof_exec_end(void);
/* How many commands were fed so far: a connection compares it around a batch
 * of requests to know whether the batch wrote. */
unsigned long long aof_fed_count(void);
/* Before replies go out: writes the pending bytes, and fdatasyncs them under
 * `always`. Returns 0, or -1 when under `always` they could not be made
 * durable: replies acknowledging those writes must not be sent. */
int aof_flush_before_reply(void);
/* Whether the log is on with appendfsync always: a batch of requests that
 * fed it then keeps its replies until the group commit, one write and
 * fsync at the end of the loop turn for every client (group_commit.h). */
int aof_sync_always(void);
/* Whether write commands are refused: the last write of the log failed.
 * When so, *why is the errno's text. */
int aof_writes_refused(const char **why);

/* INFO persistence fields. */
int aof_enabled(void);
int aof_last_write_ok(void);
int aof_rewrite_in_progress(void);
/* The running rewrite child, 0 when none: only the log's timer may reap it. */
pid_t aof_child_pid(void);
/* INFO persistence's rewrite figures, and MEMORY STATS' aof.buffer. */
struct aof_rewrite_status {
    long long last_time_s;    /* duration of the last rewrite, -1 before the first */
    long long current_time_s; /* of the running one, -1 when none */
    size_t last_cow_bytes;    /* copy-on-write of the last rewrite's child */
    size_t current_cow_bytes; /* of the running child so far, 0 when none */
    long long current_cow_age_s; /* how old that figure is (read off the loop) */
    size_t buffer_bytes;      /* fed and not yet written: the log's, and the rewrite's */
    unsigned long long rewrites;             /* children started since start or RESETSTAT */
    unsigned long long consecutive_failures; /* rewrites failed since the last good one */
};
/* Heap bytes the log's buffers hold (fed, not yet written, and a
 * rewrite's): what maxmemory leaves out, as Redis's aof_buf. */
size_t aof_buffer_memory(void);
void aof_get_rewrite_status(struct aof_rewrite_status *st);
/* CONFIG RESETSTAT: the rewrite counters. */
void aof_reset_stats(void);

/* BGREWRITEAOF: forks a child that writes the dataset as a compact log
 * (SET, ZADD, PEXPIREAT per key) into temp-rewriteaof-<pid>.aof, while new
 * writes are also kept aside; when it is done the kept writes are appended
 * and the file is renamed onto the log. Automatic when the log has grown by
 * auto-aof-rewrite-percentage since the last rewrite and is at least
 * auto-aof-rewrite-min-size. Returns 0, or -1 after logging why; the caller
 * checks aof_enabled and aof_rewrite_in_progress first. */
int aof_rewrite_start(void);

/* rbkv-server --check-aof FILE [--fix]: verifies the log's format; with
 * --fix, truncates a log cut mid-command to its last whole command. Returns
 * the process's exit status (0 valid or fixed, 1 otherwise). */
int aof_check_main(int argc, char **argv);

#endif
