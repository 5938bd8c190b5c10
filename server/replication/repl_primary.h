/*
 * repl_primary.h - serving replicas (prefix repl_primary_): SYNC and PSYNC,
 * the snapshot child of a full sync, the PING and timeouts of the links,
 * acknowledgements, WAIT and min-replicas-to-write.
 *
 * A full sync forks a child that writes the snapshot into a pipe: in
 * snapshot.h's format for rbkv replicas (REPLCONF capa rbkv), as an RDB
 * file (rdb_file.h) for every other peer (redis-server, redis-cli --rdb),
 * one format per child, framed as the replica asked: "$EOF:<40 random chars>\r\n",
 * the snapshot, the same 40 chars, when every replica in it said `capa eof`
 * and repl-diskless-sync is yes; else "$<length>\r\n" and the snapshot,
 * written to a temporary file first to learn its length. The parent relays
 * the pipe's bytes to the replicas and keeps the stream made meanwhile in
 * each replica's `held` buffer, sent once the snapshot is out; a peer that
 * said REPLCONF rdb-only 1 gets no stream: its link closes after the file.
 */
#ifndef RBKV_REPL_PRIMARY_H
#define RBKV_REPL_PRIMARY_H

#include <sys/types.h>

struct client;

/* PSYNC replid offset from c (offset: the first byte it lacks): replies
 * +CONTINUE and the backlog from there, or +FULLRESYNC and a snapshot to
 * come, or an error. old_sync: it came as SYNC. */
void repl_primary_sync(struct client *c, const char *replid, long long offset, int old_sync);
/* REPLCONF ACK offset from replica c. */
void repl_primary_ack(struct client *c, long long offset);
/* WAIT numreplicas timeout_ms for c (a client of a primary). */
void repl_primary_wait(struct client *c, long long numreplicas, long long timeout_ms);
/* Sends REPLCONF GETACK * down the stream, unless one is out since the
 * last ACK (WAIT, a shutdown's wait). */
void repl_primary_ask_acks(void);
/* How many attached replicas have not acknowledged the whole stream (a
 * shutdown waits for them, Redis's isReadyToShutdown), *total set to how
 * many are attached; log: each lagging one logged as Redis's finishShutdown
 * does. */
int repl_primary_behind(int log, int *total);
/* Replicas that acknowledged at least offset. */
int repl_primary_acked(long long offset);
/* Whether min-replicas-to-write refuses writes now. */
int repl_primary_refuses_writes(void);
/* Replicas online whose last ACK is at most min-replicas-max-lag old. */
int repl_primary_good_replicas(void);
/* Once per cron tick: PINGs, timeouts, delayed syncs, the backlog's TTL. */
void repl_primary_cron(void);
/* Closes every replica's link (this server's data changed wholesale). */
void repl_primary_drop_replicas(void);
/* At shutdown: kills a running sync child and closes its pipe. */
void repl_primary_shutdown(void);
/* The running sync child, 0 when none. */
pid_t repl_primary_child_pid(void);

#endif
