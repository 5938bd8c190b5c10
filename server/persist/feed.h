/*
 * feed.h - write commands as a stream of RESP commands (prefix feed_): what
 * the append-only log and the replication stream are made of.
 *
 * A struct feed is one such stream's pending bytes and its state: the
 * database its reader is in (a SELECT goes first when a command runs in
 * another) and whether a transaction's MULTI was written. A command goes in
 * as it was called (never under a rename-command alias): a command whose
 * words depend on the clock (SET EX, EXPIRE) has rewritten itself with an
 * absolute deadline before it gets here (propagate.h), so it replays later,
 * or on another machine, ending at the same time. Knows nothing of files or
 * sockets: the owner of a feed writes its bytes out (resp_out_peek /
 * resp_out_consume).
 */
#ifndef RBKV_FEED_H
#define RBKV_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "resp_writer.h"

struct command;
struct db;
struct resp_slice;

struct feed {
    struct resp_out buf;
    int db;                      /* of the last SELECT written, -1 none: the next entry SELECTs */
    int in_multi;                /* a MULTI written, its EXEC not yet */
};

void feed_init(struct feed *f);
void feed_destroy(struct feed *f);

/* cmd ran as argv in db and changed data. */
void feed_command(struct feed *f, struct db *db, const struct command *cmd, int argc,
                  const struct resp_slice *argv);
/* argv as one command run in database db, as it is. */
void feed_argv(struct feed *f, int db, int argc, const struct resp_slice *argv);
/* A transaction's MULTI, in database db (its first command's: a SELECT goes
 * before the MULTI, as Redis propagates MULTI with that command's db), and
 * its EXEC (nothing when no MULTI was written). Written whatever comes in
 * between, even nothing, as Redis's propagatePendingCommands does. */
void feed_begin_multi(struct feed *f, int db);
void feed_end_multi(struct feed *f);
/* Lower-level pieces for writing a whole dataset: words as one command, a
 * SELECT (recorded as the reader's database), a PEXPIREAT. */
void feed_words(struct feed *f, int argc, const char *const *words, const size_t *lens);
void feed_select(struct feed *f, int db);
void feed_pexpireat(struct feed *f, const char *key, size_t klen, int64_t when);

#endif
