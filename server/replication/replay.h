/*
 * replay.h - runs the commands of the append-only log at start, as their
 * clients did, through the dispatcher's call path (replay.c).
 *
 * Owns: the one client without a connection that the commands run on; its
 * replies are dropped.
 */
#ifndef RBKV_REPLAY_H
#define RBKV_REPLAY_H

struct resp_slice;

/* A client for replaying; replay_free(NULL) does nothing. */
struct replay *replay_new(void);
void replay_free(struct replay *r);
/* An aof_replay_fn (aof.h), ctx being a struct replay: runs argv, a write
 * or SELECT named by its own name. Returns 0, or -1 with the reason in *why
 * (an unknown or non-write command, wrong arity, a blocking command that
 * found nothing to serve it: none of which a log holds). */
int replay_command(void *ctx, int argc, struct resp_slice *argv, const char **why);
/* After the log was replayed: when it ended with a REPLCONF POSITION entry
 * (a clean shutdown's, repl_log_position), fills replid (41 bytes), *offset
 * and *db (the stream's database there) and returns 1. */
int replay_position(const struct replay *r, char *replid, long long *offset, int *db);

#endif
