/*
 * propagate.h - where a write goes once it has run (prefix propagate_): the
 * append-only log, and the replication stream when this server is a primary.
 *
 * Both get the same deterministic form (feed.h): the command under its own
 * name with absolute deadlines, a key removed for its deadline as DEL, a pop
 * served to a blocked client as that pop, an EXEC's writes inside MULTI/EXEC.
 * A replica's own writes (from its primary, or a client when
 * replica-read-only is no) reach its log but not its stream: what it passes
 * on to its replicas is exactly what its primary sent (repl_replica.h).
 */
#ifndef RBKV_PROPAGATE_H
#define RBKV_PROPAGATE_H

struct command;
struct db;
struct resp_slice;

/* At start: the keyspace's expiry hook. */
void propagate_init(void);
/* cmd ran as argv in db and changed data. */
void propagate_command(struct db *db, const struct command *cmd, int argc,
                       const struct resp_slice *argv);
/* argv, run in database db, as it is. */
void propagate_argv(int db, int argc, const struct resp_slice *argv);
/* argv to the replicas only (PUBLISH: a message is not data, the log
 * does not keep it). */
void propagate_to_replicas(int db, int argc, const struct resp_slice *argv);
/* Around an EXEC's commands. */
void propagate_exec_begin(void);
void propagate_exec_end(void);

#endif
