/*
 * rdb_stream.h - a stream in Redis's RDB format (rdb.c's stream branches of
 * rdbLoadObject and rdbSaveObject, t_stream.c's listpack layout): the
 * radix tree's listpacks, each under its master ID, the stream's counters,
 * then the consumer groups with their PELs and consumers.
 *
 * Reading takes RDB_TYPE_STREAM_LISTPACKS (Redis 5 and 6), _2 (7.0) and _3
 * (7.2, whose consumers add an active time, skipped: rbkv keeps the seen
 * time only). Every listpack is validated whole, as Redis's deep
 * sanitization does (streamValidateListpackIntegrity), whatever the caller
 * asks, because the entries are converted into rbkv's own layout as they
 * are read; and more strictly than Redis: IDs increase across the stream,
 * a master entry's live count matches its entries, the stream's length
 * matches them all, and the built stream passes xs_check (first and last
 * IDs, entries added, every pending entry owned by one consumer).
 *
 * Writing produces RDB_TYPE_STREAM_LISTPACKS_2, as Redis 7.0 writes it (it
 * knows no _3): one listpack per node of rbkv's node emulation, its master
 * entry the node's first entry, later entries with the same fields marked
 * SAMEFIELDS.
 *
 * Owns: the stream it returns until the caller takes it. Knows data and
 * base.
 */
#ifndef RBKV_RDB_STREAM_H
#define RBKV_RDB_STREAM_H

#include "rdb_io.h"
#include "xstream.h"

/* Reads a stream's body of RDB type rdbtype (one of the three above).
 * Returns 0 with *out a new stream, owned by the caller, or -1 with *why
 * naming the fault (a static string) and nothing allocated. */
int rdb_stream_read(struct rdb_in *in, unsigned rdbtype, struct xstream **out, const char **why);

/* Appends s's body (no type byte) in RDB_TYPE_STREAM_LISTPACKS_2's form. */
void rdb_stream_write(struct rdb_out *o, const struct xstream *s);

#endif
