/*
 * tracking.h - client-side caching (prefix tracking_), as Redis 7.0's
 * tracking.c: CLIENT TRACKING's state per client, the table of keys the
 * tracking clients read, the BCAST prefixes, and the invalidation messages.
 *
 * Two modes, as in Redis:
 * - default: after a read-only command of a tracking client, the keys it
 *   named go into the tracking table (key -> ids of the clients that may
 *   cache it). A change to such a key sends each of them one invalidation
 *   and drops the key from the table: they must read it again to hear of it
 *   again.
 * - BCAST: the client registers prefixes ("" for every key); every change to
 *   a key under a prefix is remembered for the prefix, and at the loop
 *   turn's end each prefix's keys go out as one message to its clients.
 *   The prefixes live in a tree ordered by bytes, each linked to the longest
 *   registered prefix of itself: the prefixes of a written key are found
 *   from its predecessor in the tree up that chain, never by testing every
 *   prefix.
 *
 * A message is a RESP3 push (>2 invalidate [keys]) to the client or to its
 * REDIRECT client, or, to a RESP2 redirect client in pub/sub mode, a message
 * on __redis__:invalidate; a flush sends a null instead of the keys. The
 * keys are not per database, as in Redis.
 *
 * The rest of core tells this module what happens: the dispatcher around
 * each request (tracking_command_begin/end) and after each call
 * (tracking_after_call); every reported key change through WATCH's touch
 * hook (watch_on_touch), expiry, and the flushes (tracking_flush). Owns:
 * each client's struct tracking_client (c->tracking, freed when the client
 * goes), the tables and the messages queued for the loop turn's end.
 */
#ifndef RBKV_TRACKING_H
#define RBKV_TRACKING_H

#include <stddef.h>
#include <stdint.h>

struct client;
struct command;
struct resp_slice;

/* A client's CLIENT TRACKING flags (tracking_flags). */
#define TRACKING_ON (1u << 0)
#define TRACKING_BCAST (1u << 1)
#define TRACKING_OPTIN (1u << 2)
#define TRACKING_OPTOUT (1u << 3)
#define TRACKING_CACHING (1u << 4)      /* CLIENT CACHING yes/no, for the next command */
#define TRACKING_NOLOOP (1u << 5)
#define TRACKING_BROKEN_REDIR (1u << 6) /* its REDIRECT client went away */

/* At start: the loop-turn handle and the client-gone hook. */
void tracking_init(void);
/* At shutdown: stops the handle, frees the tables. */
void tracking_close(void);

/* c's flags (0 when it never tracked). */
unsigned tracking_flags(const struct client *c);
/* The client c redirects to (0: none), meaningful while TRACKING_ON. */
uint64_t tracking_redirect(const struct client *c);
/* c's BCAST prefixes, in byte order: how many, and the i-th. */
size_t tracking_prefix_count(const struct client *c);
const char *tracking_prefix(const struct client *c, size_t i, size_t *len);
/* Whether prefixes a and b would both match some key (one starts the other). */
int tracking_prefixes_overlap(const char *a, size_t alen, const char *b, size_t blen);

/* CLIENT TRACKING on (checked by the caller): turns tracking on for c, or
 * changes its options, with options among BCAST, OPTIN, OPTOUT, NOLOOP and
 * the n prefixes (only with BCAST; none means ""). redirect 0: none. The
 * prefixes are copied. */
void tracking_enable(struct client *c, uint64_t redirect, unsigned options,
                     const struct resp_slice *prefixes, size_t n);
/* CLIENT TRACKING off, RESET: c stops tracking (its ids left in the table
 * are dropped lazily, as Redis). */
void tracking_disable(struct client *c);
/* CLIENT CACHING yes|no: the next command's keys are (OPTIN) or are not
 * (OPTOUT) remembered. */
void tracking_set_caching(struct client *c);

/* ---- the dispatcher's part ---- */
/* Before c's request: brings the table down to tracking-table-max-keys
 * (invalidating the keys it drops), then c is the client whose changes
 * NOLOOP leaves out and whose own invalidations wait for its reply. */
void tracking_command_begin(struct client *c);
/* After c's request cmd (NULL: unknown): its own invalidations, after its
 * reply; CLIENT CACHING lasts one command (or one transaction). */
void tracking_command_end(struct client *c, const struct command *cmd);
/* After cmd ran for c: a read-only command's keys go into the table for the
 * client it ran for (a script's caller, who[0] when c is the script client). */
void tracking_after_call(struct client *c, const struct command *cmd);

/* ---- what changes keys ---- */
/* key changed (any database): invalidates it for the clients that read it,
 * and queues it for the BCAST prefixes it falls under. */
void tracking_invalidate_key(const char *key, size_t klen);
/* One or all databases were flushed: a null invalidation to every tracking
 * client, and the table is emptied. */
void tracking_flush(void);
/* Whether something may push into c's output between its replies (stream.h
 * streams no reply to such a client). */
int tracking_may_push(const struct client *c);

/* ---- INFO ---- */
size_t tracking_clients(void);       /* clients with tracking on */
size_t tracking_total_keys(void);    /* keys in the table */
size_t tracking_total_items(void);   /* (key, client) pairs in the table */
size_t tracking_total_prefixes(void);/* distinct BCAST prefixes */

#endif
