/*
 * xstream_args.h - what the stream commands (cmd_xstream.c) and the
 * consumer group commands (cmd_xgroup.c) share: parsing IDs and BLOCK's
 * timeout as Redis's t_stream.c, looking a stream up, and replying IDs
 * and entries.
 *
 * Owns nothing: helpers that send their own error reply end in _or_reply,
 * so callers just return.
 */
#ifndef RBKV_XSTREAM_ARGS_H
#define RBKV_XSTREAM_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "xstream.h"

struct client;
struct ks_entry;
struct resp_slice;

#define XERR_INVALID_ID "ERR Invalid stream ID specified as stream command argument"
/* "18446744073709551615-18446744073709551615" and its NUL. */
#define XID_STR_LEN 42

/* xid_or_reply without the error reply: 0, or -1. */
int xid_parse(const struct resp_slice *a, uint64_t missing_seq, int strict, struct xs_id *id,
              int *seq_given);
/* Parses an ID as Redis's streamGenericParseIDOrReply: "ms-seq", "ms" (seq
 * = missing_seq), "-" and "+" unless strict, and "ms-*" when seq_given is
 * not NULL (then *seq_given is 0). Returns 0, or -1 after Redis's error. */
int xid_or_reply(struct client *c, const struct resp_slice *a, uint64_t missing_seq, int strict,
                 struct xs_id *id, int *seq_given);
/* "ms-seq" into buf; returns its length. */
size_t xid_format(const struct xs_id *id, char buf[XID_STR_LEN]);
/* An interval bound (XRANGE, XPENDING, XAUTOCLAIM): "(" before an ID
 * excludes it (*excl set; then strictly parsed). 0, or -1 after the error. */
int xbound_or_reply(struct client *c, const struct resp_slice *a, uint64_t missing_seq,
                    struct xs_id *id, int *excl);
/* The ID as a bulk string. */
void xid_reply(struct client *c, const struct xs_id *id);
/* An entry: [id, [field, value, ...]] in both protocols, as Redis. */
void xentry_reply(struct client *c, const struct xs_entry *e);

/* The stream at key: 0 with *s (and *e) set, or NULL when absent; -1 after
 * WRONGTYPE. */
int xstream_lookup_or_reply(struct client *c, const struct resp_slice *key, int write,
                            struct ks_entry **e, struct xstream **s);
/* The stream at key, or NULL after WRONGTYPE or "ERR no such key" (XSETID,
 * XINFO). */
struct xstream *xstream_existing_or_reply(struct client *c, const struct resp_slice *key,
                                          int write);
/* Whether s has an entry after id. */
int xstream_has_after(const struct xstream *s, const struct xs_id *id);

/* BLOCK's milliseconds, as Redis's getTimeoutFromObjectOrReply: 0, or -1
 * after its error. */
int xblock_ms_or_reply(struct client *c, const struct resp_slice *a, int64_t *ms);

/* XREAD's and XREADGROUP's options, as Redis's xreadCommand parses them. */
struct xread_opts {
    long long count;   /* 0: no COUNT */
    int64_t ms;        /* BLOCK's, or -1 */
    int streams;       /* the first key's argument */
    int nkeys;
    int noack;
    const struct resp_slice *group, *consumer; /* XREADGROUP's GROUP */
};
/* Parses them for XREAD, or XREADGROUP when readgroup: 0, or -1 after
 * Redis's error. */
int xread_opts_or_reply(struct client *c, int readgroup, struct xread_opts *o);

#endif
