/*
 * coll.h - what the hash and set commands share (coll.c): their values are
 * both ordered maps (omap.h), a hash's with values and a set's without.
 *
 * Owns nothing: maps belong to the keyspace once a key holds them. The
 * _or_reply helpers send Redis's error and return -1, as args.h's do.
 *
 * The range helpers give HRANGE, SRANGE and their kin KRANGE's grammar
 * (options: range_opts.h): "[a" "(a" "-" "+" bounds with BYLEX, ranks by
 * default, REV taking max first with BYLEX, WITHVALUES flat in RESP2 and
 * pairs in RESP3.
 */
#ifndef RBKV_COLL_H
#define RBKV_COLL_H

#include <stddef.h>

#include "client.h"
#include "keyspace.h"
#include "omap.h"
#include "range_opts.h"

/* The packed encoding's thresholds for a KS_HASH or KS_SET, from the
 * configuration (hash-max-listpack-*, set-max-*). */
void coll_limits(int type, struct om_limits *lim);

/* The map of type at key: 0 with *m (and *e) set, or NULL when the key is
 * absent; -1 after replying WRONGTYPE. write: a write's lookup (no hit
 * counting). */
int coll_lookup_or_reply(struct client *c, const struct resp_slice *key, int type, int write,
                         struct ks_entry **e, struct omap **m);

/* Adds key (absent) holding m, which the keyspace then owns, and fires
 * "new" as Redis does for a created key. */
struct ks_entry *coll_add_key(struct client *c, const struct resp_slice *key, int type,
                              struct omap *m);

/* After a command removed elements from m at key (entry e): fires event (of
 * notify class cls), then deletes the key when m is empty and fires "del", in
 * Redis's order. */
void coll_removed(struct client *c, const struct resp_slice *key, struct ks_entry *e,
                  struct omap *m, int cls, const char *event);

/* store_and_reply (args.h) for a hash or set m: replaces dst with m, or
 * deletes dst when m is empty, and replies m's length. Takes m. */
void coll_store(struct client *c, const struct resp_slice *dst, int type, struct omap *m,
                const char *event);

/* An element, or a field with its value: flat in RESP2, a pair in RESP3. */
void coll_add_elem(struct client *c, const struct om_elem *e, int withvalues);

/* ---- ranges ------------------------------------------------------------- */

/* The span of "min max" at argv[j], argv[j + 1]: lex bounds with BYLEX
 * (taken max first under REV), else ranks as ZRANGE takes them. Returns
 * 0, or -1 (replied: a bad bound, a rank that is not an integer). */
int coll_span_or_reply(struct client *c, const struct omap *m, int j, const struct range_opts *o,
                       struct om_span *span);

/* Lists the elements of span in order (reverse under REV) after LIMIT's
 * offset, at most its count, with values under WITHVALUES. m may be NULL
 * (an absent key: an empty array). */
void coll_reply_span(struct client *c, const struct omap *m, struct om_span span,
                     const struct range_opts *o);

/* HSCAN and SSCAN: "key cursor [MATCH pattern] [COUNT count]" from argv[2]
 * on (ZSCAN's NOVALUES-less grammar), fields with values for a hash. The
 * cursor is SCAN's: an integer standing for the last element returned, so
 * the walk is in order and each element present throughout comes once,
 * whatever changes meanwhile. m may be NULL (absent key): reply_empty_scan,
 * whatever the options. */
void coll_scan(struct client *c, const struct omap *m);

#endif
