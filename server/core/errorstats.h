/*
 * errorstats.h - counting the error replies the server sends: INFO
 * errorstats (errorstat_<CODE>:count=N, keyed by the error's first word as
 * Redis keys them), total_error_replies and unexpected_error_replies (those
 * sent to a primary's link, a replica or the append-only log's replay,
 * which nobody reads), and what command.c needs for failed_calls and
 * rejected_calls.
 *
 * proto/ knows nothing of the server: its writer calls the resp_out's
 * on_error hook, which errorstats_watch sets on a client's output.
 *
 * Owns: a table of up to ERRORSTATS_MAX_CODES codes. Codes are the server's
 * own words, a few dozen at most; past that many, a new code is counted in
 * total_error_replies but gets no line, as in Redis 7.2.
 */
#ifndef RBKV_ERRORSTATS_H
#define RBKV_ERRORSTATS_H

#include <stddef.h>

struct client;
struct resp_out;

#define ERRORSTATS_MAX_CODES 128
#define ERRORSTATS_CODE_MAX 32 /* Redis looks for the code's end in the first 32 bytes */

/* Counts every error reply written to c's output from now on; unexpected:
 * c is the log's replay, whose every error is unexpected (a primary's link
 * and a replica are told by their flags). */
void errorstats_watch(struct client *c, int unexpected);
/* The next error reply written to o was counted already, where a script's
 * command failed (Redis's ERR_REPLY_FLAG_NO_STATS_UPDATE): it adds to no
 * error count, yet still fails the call that replies it. A no-op on an
 * output nobody watches. */
void errorstats_skip_next(struct resp_out *o);
/* Counts msg as an error reply that was never written: a script's command
 * refused before it ran (Redis's scriptCall). msg starts with "-CODE " or
 * is counted as ERR, as Redis counts it. */
void errorstats_count(const char *msg);
/* Error replies written since start, counted or skipped: what makes a call
 * a failed or rejected one (command.c). */
unsigned long long errorstats_replies_written(void);
/* The codes seen since the last reset, sorted by code; NULL past the end. */
const char *errorstats_code_at(size_t i, unsigned long long *count);
/* CONFIG RESETSTAT. */
void errorstats_reset(void);

#endif
