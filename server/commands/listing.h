/*
 * listing.h - lists of consecutive keys as replies (listing.c): KRANGE,
 * KPREFIX, KFIRST ... (cmd_ordered.c) and KEYS (cmd_scan.c) end in one.
 *
 * A list longer than one chunk of output (STREAM_CHUNK) is streamed when the
 * client may stream (stream.h): the first chunk is written now, the rest as
 * the client's socket drains, so the server never holds the whole reply.
 * The count must be known up front (the array's header is out before the
 * first key), which is why a listing takes a count, not a bound.
 *
 * Owns: the state of the streams it starts (one allocation each, freed by
 * stream.c). Entries belong to the keyspace.
 */
#ifndef RBKV_LISTING_H
#define RBKV_LISTING_H

#include <stddef.h>

#include "client.h"
#include "keyspace.h"
#include "live.h"
#include "resp_writer.h"

/* listing_add for what its run cannot take: ends run, writes e through the
 * reply API, begins run again. */
void listing_add_slow(struct client *c, struct resp_bulks *run, struct ks_entry *e,
                      int withvalues);

/* Appends one key to c's reply, or with its value: flat in RESP2, a pair in
 * RESP3. A value of another type than string is nil, its contents being
 * another command's. run is a run of bulks (resp_writer.h) the caller has
 * begun on c->out and ends before writing anything else there: a key alone
 * (the listing of KRANGE, KPREFIX, KEYS) is written into it inline, with
 * no call, as are most keys of a listing. */
static inline void listing_add(struct client *c, struct resp_bulks *run, struct ks_entry *e,
                               int withvalues)
{
    if (withvalues || resp_bulks_add(run, ks_key(e), ks_klen(e)) < 0)
        listing_add_slow(c, run, e, withvalues);
}

/* The n keys live in v from e on, ascending (rev: descending), with
 * listing_add: all now, or the first chunk now and the rest streamed (with
 * a copy of v, so the rest skips what the command's start skipped). The
 * caller has written the array's header (n entries, twice n for WITHVALUES
 * in RESP2), and there must be n live entries from e on. */
void listing_span(struct client *c, struct ks_entry *e, size_t n, int rev, int withvalues,
                  const struct live_view *v);

/* Where listing_span would stop writing and start streaming: c's pending
 * output plus a chunk, or SIZE_MAX when c may not stream. For a caller that
 * walks to a bound with a deferred header and hands over to listing_span
 * once its reply reaches this. */
size_t listing_stop(const struct client *c);

#endif
