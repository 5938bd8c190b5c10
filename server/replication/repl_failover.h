/*
 * repl_failover.h - FAILOVER, Redis 6.2's coordinated switch-over of a
 * primary and one of its replicas (prefix repl_failover_).
 *
 * The primary pauses writes (a FAILOVER pause, pause.h: CLIENT UNPAUSE does
 * not end it), waits for the target replica (or, without TO, the first
 * replica to get there, oldest first) to acknowledge the whole stream, then
 * turns replica of it and sends PSYNC <replid> <offset> FAILOVER; the
 * replica, seeing its own replication ID, promotes itself and answers
 * +CONTINUE, and the pause ends (the writes it held then meet a replica:
 * -READONLY, so no acknowledged write is lost). TIMEOUT without FORCE gives
 * up and stays primary; with FORCE (and TO) it hands over anyway. ABORT
 * stops a failover in either state, a primary again. Redis 7.0's states,
 * words and errors throughout (replication.c failoverCommand,
 * updateFailoverStatus, abortFailover, syncCommand).
 */
#ifndef RBKV_REPL_FAILOVER_H
#define RBKV_REPL_FAILOVER_H

struct client;

enum repl_failover_state {
    FAILOVER_NONE,          /* no-failover */
    FAILOVER_WAIT_FOR_SYNC, /* waiting-for-sync: writes paused, the target catching up */
    FAILOVER_IN_PROGRESS,   /* failover-in-progress: a replica of the target, PSYNC FAILOVER sent */
};

/* At start: the check that runs after each loop turn while a failover
 * waits, and the replica link's PSYNC hook. */
void repl_failover_init(void);
/* At shutdown: closes the check handle. */
void repl_failover_close(void);

enum repl_failover_state repl_failover_state(void);
/* INFO replication's master_failover_state. */
const char *repl_failover_state_name(void);

/* FAILOVER [TO host port [FORCE]] [TIMEOUT ms], its syntax already read:
 * host NULL without TO (copied when not), timeout_ms 0 without TIMEOUT.
 * Starts the failover and returns NULL, or returns Redis's error text
 * (without "ERR ") and changes nothing. */
const char *repl_failover_start(const char *host, long long port, long long timeout_ms,
                                int force);
/* FAILOVER ABORT: a primary again, writes resumed. Returns -1 when no
 * failover is under way. */
int repl_failover_abort(void);

/* PSYNC <replid> <offset> FAILOVER from c: a replica whose replication ID
 * is replid becomes a primary (the PSYNC then continues as any other).
 * Returns NULL, or Redis's error text (without "ERR ") for c. */
const char *repl_failover_psync(const struct client *c, const char *replid);

#endif
