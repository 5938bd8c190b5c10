/*
 * propagate.h - where a write goes once it has run (prefix propagate_): the
 * append-only log, and the replication stream when this server is a primary.
 *
 * Both get what Redis 7.0's get (feed.h): a command as it was called, or as
 * the command rewrote itself when its own words would not replay the same
 * (SET EX as SET PXAT <unix ms>, EXPIRE as PEXPIREAT, INCRBYFLOAT as SET
 * KEEPTTL, a blocking pop as the pop it amounted to, SPOP as SREM or DEL);
 * a key removed for its deadline as DEL; a unit's writes (a command, an
 * EXEC, a script) inside MULTI/EXEC when they are more than one.
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
/* argv, run in database db, as it is, sent at once (not held by a unit):
 * a key expired or evicted, a blocked client's pop served. */
void propagate_argv(int db, int argc, const struct resp_slice *argv);
/* For a write whose own words would not replay the same (SPOP picks at
 * random, EXPIRE counts from now): the running command sends what it did
 * instead, as argv in db (SREM key member, DEL key, SET key value PXAT ms),
 * once or several times, and so is not also sent verbatim: command_call
 * compares server.effects_propagated, which this counts, around the
 * handler. WATCH is still touched, from server.dirty as for any write. The
 * effects are held until the unit ends, like any write inside one. A
 * lazily expired key's DEL goes through propagate_argv, at once, so it
 * never suppresses its command. */
void propagate_effects(int db, int argc, const struct resp_slice *argv);
/* The most keys or elements one such effect carries when an rbkv-only write
 * goes out as the Redis commands it amounts to (KDELRANGE as DEL, HDELRANGE
 * as HDEL), so that a redis-server replica can apply it (while one is in
 * the stream's history: propagate_plain_wanted): a big range is several
 * commands, in one MULTI/EXEC, rather than one unbounded one. */
#define PROPAGATE_EFFECT_BATCH 512
/* As propagate_effects, for an effect that only rbkv applies (a range
 * deletion sent as itself, with bounds that name exactly the keys it
 * deleted): the caller sends it only when propagate_plain_wanted() is 0, and
 * the stream notes where it ends, so that a redis-server replica never
 * continues from before it (it takes a full sync instead). */
void propagate_rbkv_effect(int db, int argc, const struct resp_slice *argv);
/* Whether a reader of what a write propagates needs plain Redis commands:
 * this primary keeps a stream and a replica that is not rbkv (no REPLCONF
 * capa rbkv: a redis-server) attached since the stream's history began (so
 * that it continues after a cut of its link). The log is rbkv's own and
 * never does. */
int propagate_plain_wanted(void);
/* argv to the replicas only (PUBLISH: a message is not data, the log
 * does not keep it); dropped, not held, unless this is a primary that keeps
 * a stream, so it makes no MULTI/EXEC around the log's writes where nobody
 * reads it (Redis's shouldPropagate). */
void propagate_to_replicas(int db, int argc, const struct resp_slice *argv);
/* Whether anything reads what a write propagates now: the append-only log,
 * or a primary's stream with a backlog. When not, a write that would send
 * per-key effects (KDELRANGE's DELs) may skip building them. */
int propagate_wanted(void);
/* Around a unit whose writes go out together: every command (command_call),
 * an EXEC's commands, a script's. Units nest; when the outermost ends, what
 * its commands propagated goes out, wrapped in MULTI/EXEC when it is more
 * than one command, as Redis 7.0 wraps them (an EXEC of one write, or a
 * script making one, sends that write alone). */
void propagate_unit_begin(void);
void propagate_unit_end(void);

/* A command propagated: the replication stream's feed. replication/ is above
 * core, so it registers its feed at start (repl_init) and propagate.c calls
 * it while this server is a primary; unset, writes reach the log only. The
 * struct must outlive the server. */
struct propagate_feed {
    void (*command)(struct db *db, const struct command *cmd, int argc,
                    const struct resp_slice *argv);
    void (*argv)(int db, int argc, const struct resp_slice *argv);
    void (*exec_begin)(int db);
    void (*exec_end)(void);
    /* Whether anyone can ever read the stream (a backlog exists): a write
     * for the replicas alone is dropped otherwise, not held. */
    int (*kept)(void);
    /* Whether an attached replica needs plain Redis commands. */
    int (*plain)(void);
    /* The write just fed is rbkv's own (propagate_rbkv_effect). */
    void (*rbkv_only)(void);
};
void propagate_on_feed(const struct propagate_feed *feed);

#endif
