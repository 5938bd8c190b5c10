/*
 * repl.h - replication as a module of the server (repl.c): its start, and
 * the position a snapshot or the log records. The shared state and the
 * stream every side uses are repl_stream.h's, which this header brings
 * along for the commands that read them.
 */
#ifndef RBKV_REPL_H
#define RBKV_REPL_H

#include "repl_stream.h"

/* At start: the stream (repl_stream_init), and replication's hooks into
 * core, which knows nothing of it: the stream's feed (propagate.h), the
 * write gate (command.h), a peer's end (conn.h) and its part of the cron
 * and the shutdown (server.h). */
void repl_init(void);
/* After the data was loaded from a snapshot: takes the replication ID and
 * offset it recorded, if any, as ours. */
void repl_restore_position(void);
/* Takes replid and offset (from a snapshot or the log) as our history. */
void repl_adopt_position(const char *replid, long long offset);
/* At a clean shutdown with the append-only log on: writes the position its
 * data is at as its last entry (REPLCONF POSITION <replid> <offset>), so a
 * restart from the log continues the history (replay.h). */
void repl_log_position(void);

#endif
