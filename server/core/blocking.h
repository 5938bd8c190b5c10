/*
 * blocking.h - clients blocked on keys (BZPOPMIN, BZPOPMAX, BZMPOP): who
 * waits on which key, in what order, until when, and waking them.
 *
 * Owns: server.blocking (the waited keys and the ready list) and each blocked
 * client's wait (c->blocked): private copies of the keys it waits on, its
 * timer, and the bytes describing how to serve it. A wait lives from
 * block_client until the client is served, times out, is unblocked by CLIENT
 * UNBLOCK, or disconnects (block_client_gone). Knows nothing of sorted sets:
 * the command that blocked says how to serve the client (block_serve_fn).
 *
 * Redis 7.0's rules (blocked.c): waiters on one key are served first come,
 * first served; a key that gains a value is only marked ready, and ready keys
 * are served after the whole command that filled them (after EXEC for a
 * transaction), never in the middle of it. A served client's reply is
 * written at once; the requests it pipelined behind the blocking one run
 * later, from the loop (block_next_unblocked), never nested in another
 * client's command.
 */
#ifndef RBKV_BLOCKING_H
#define RBKV_BLOCKING_H

#include <stddef.h>
#include <stdint.h>

struct client;
struct db;
struct resp_slice;

/* Tries to serve c, blocked on key in c->db: returns 1 after writing c's
 * reply (the wait then ends), or 0 when the key has nothing for it (absent,
 * empty, or of another type) nor for the clients after it, and c goes on
 * waiting; -1 when c goes on waiting but the others may still be served
 * (a stream, each read after its own ID or group). how is the copy that
 * block_client took. */
typedef int block_serve_fn(struct client *c, const struct resp_slice *key, const void *how);

/* Blocks c on keys[0..nkeys) of c->db until one can serve it through serve,
 * or timeout_ms passes (0: forever), when it gets a nil array. The keys and
 * how_len bytes of how are copied. c must not be blocked already. */
void block_client(struct client *c, const struct resp_slice *keys, int nkeys, int64_t timeout_ms,
                  block_serve_fn *serve, const void *how, size_t how_len);

/* Writes c's reply when its wait through block_client_until times out. */
typedef void block_timeout_fn(struct client *c, const void *how);

/* Blocks c on no key (WAIT): until block_release, or until timeout_ms passes
 * (0: forever) and on_timeout writes its reply. how_len bytes of how are
 * copied. */
void block_client_until(struct client *c, int64_t timeout_ms, block_timeout_fn *on_timeout,
                        const void *how, size_t how_len);
/* The copy of `how` of c's wait when it waits through on_timeout, else NULL. */
const void *block_waiting_for(const struct client *c, block_timeout_fn *on_timeout);
/* Ends c's wait, whose reply the caller wrote; its pipelined requests run
 * from the loop (block_run_unblocked). */
void block_release(struct client *c);

/* Key in db may now serve clients waiting on it: marks it ready for
 * block_serve_ready. One comparison when nobody waits on anything. */
void block_signal_key(struct db *db, const char *key, size_t klen);

/* After cmd, a write, changed something: marks ready the keys at its key
 * positions that anyone waits on, so that a waiter learns its key was
 * deleted or replaced (Redis 7.0's signalDeletedKeyAsReady: a blocked
 * XREADGROUP then gets an error). Nothing when nobody waits. */
struct command;
void block_signal_command(struct client *c, const struct command *cmd);
/* Before or after db is emptied (FLUSHDB, FLUSHALL): marks ready every
 * key of db anyone waits on. */
void block_signal_db(struct db *db);

/* Serves, in FIFO order per key, the clients waiting on keys marked ready.
 * The dispatcher calls it after each top-level command. */
void block_serve_ready(void);

/* The next client whose wait ended (served, timed out, unblocked) and whose
 * pipelined requests are still to run, oldest first; NULL when none. */
struct client *block_next_unblocked(void);
/* Runs, oldest first, the requests pipelined behind a blocking one by the
 * clients whose wait ended (served, timed out, unblocked), and sends their
 * replies. Only from the loop's own callbacks, so one client's requests
 * never run nested in another's; conn.c calls it after a client's requests
 * through the hook block_init registers. */
void block_run_unblocked(void);
/* At start: registers with the transport (conn.h) the end of a closing
 * client's wait and block_run_unblocked. */
void block_init(void);
/* How a blocked call's wait ended, for the dispatcher's statistics. */
enum block_end {
    BLOCK_SERVED,    /* served, or released by its owner (block_release) */
    BLOCK_UNBLOCKED, /* CLIENT UNBLOCK, either mode */
    BLOCK_TIMED_OUT, /* its own timeout, the client closed, or a role change failed it:
                      * no statistics, as in Redis */
};
/* Sets what is called when a blocked call's wait ends, with the time the
 * serving took (0 but for BLOCK_SERVED): the dispatcher's statistics
 * (command.c registers command_unblocked), so this file calls no one up. */
void block_on_unblocked(void (*fn)(struct client *c, enum block_end end, int64_t serve_us));

/* c is closing: ends its wait without a reply and forgets it everywhere.
 * Does nothing for a client that is not blocked or queued. */
void block_client_gone(struct client *c);

/* CLIENT UNBLOCK: ends c's wait with a nil array, or (error) Redis's
 * -UNBLOCKED error. Returns 1, or 0 when c is not blocked. */
int block_unblock(struct client *c, int error);

/* Ends every wait (keys and block_client_until alike) with the error reply
 * err (without its '-') and closes each such client once its reply is out:
 * Redis 7.0's disconnectAllBlockedClients, for a primary turned replica,
 * where a pop served later from the primary's stream would take what the
 * primary keeps. Clients held by CLIENT PAUSE are not blocked here and stay
 * held (their command runs from scratch at the pause's end). Counts as no
 * unblocked call in the commands' statistics, as in Redis; the errors count
 * in errorstats through each client's output. */
void block_fail_all(const char *err);

/* The first key c waits on (its slot is every key's, in cluster mode):
 * returns 1 with *key, *klen (owned by the wait), or 0 when c waits on no
 * key (not blocked, or WAIT). */
int block_first_key(const struct client *c, const char **key, size_t *klen);
/* Ends c's wait, whose error reply the caller wrote (cluster mode's
 * -MOVED or -CLUSTERDOWN once the slot moved away or the cluster went
 * down): counted in no command's statistics, as a timeout. The reply goes
 * out, and its pipelined requests run, at the caller's block_run_unblocked. */
void block_abort(struct client *c);
/* Clients blocked now (INFO blocked_clients). */
unsigned long block_count(void);
/* Clients blocked now with a timeout (INFO clients_in_timeout_table). */
unsigned long block_timed_count(void);

#endif
