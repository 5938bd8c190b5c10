/*
 * rdb_blobs.h - readers of the packed blobs Redis stores inside RDB values:
 * listpack (7.0's small hashes, sorted sets and list nodes), ziplist (the
 * same before 7.0), intset (sets of integers) and zipmap (hashes before
 * 2.6). Each walks a blob, validating it as Redis's deep sanitization does
 * (lpValidateIntegrity, ziplistValidateIntegrity, intsetValidateIntegrity,
 * zipmapValidateIntegrity): the header's byte count is the blob's size, the
 * element count matches (unless it is the "unknown" marker), every entry's
 * encoding and length stay inside the blob, listpack back lengths and
 * ziplist previous-entry lengths agree with the entries, the terminator
 * ends the blob exactly, and an intset is strictly increasing.
 *
 * Owns nothing: the blob is borrowed; an element handed to the callback is
 * valid only during the call (an integer entry is given as decimal text in
 * a buffer of the walker's).
 */
#ifndef RBKV_RDB_BLOBS_H
#define RBKV_RDB_BLOBS_H

#include <stddef.h>

#include "rdb_io.h"

/* Called with each element in order; a negative return stops the walk,
 * which then fails. */
typedef int rdb_elem_cb(void *arg, const char *p, size_t len);

/* A listpack read one element at a time (a stream's listpacks mix integers
 * and strings whose meaning depends on their place). rdb_lp_open checks the
 * header and the terminator: 0, or -1. */
struct rdb_lp_it {
    const unsigned char *lp, *p, *end;
    long count;
};
/* An element: an integer v, or the string p[0, len) (inside the blob). */
struct rdb_lp_elem {
    int is_int;
    long long v;
    const char *p;
    size_t len;
};
int rdb_lp_open(struct rdb_lp_it *it, const unsigned char *lp, size_t size);
/* 1 with *e set, 0 at the end (the header's count then agrees, unless it
 * is the "unknown" marker), -1 when the blob is malformed. */
int rdb_lp_next(struct rdb_lp_it *it, struct rdb_lp_elem *e);

/* A listpack written into o: rdb_lp_begin reserves the header (its offset
 * into *start), the appends add elements in listpack.c's smallest
 * encodings, rdb_lp_end writes the terminator and the header (count
 * elements). */
void rdb_lp_begin(struct rdb_out *o, size_t *start);
void rdb_lp_append_int(struct rdb_out *o, long long v);
void rdb_lp_append_str(struct rdb_out *o, const char *p, size_t len);
void rdb_lp_end(struct rdb_out *o, size_t start, size_t count);

/* Each returns the number of elements walked, or -1 when the blob is
 * malformed or the callback refused an element. */
long rdb_listpack_walk(const unsigned char *lp, size_t size, rdb_elem_cb *cb, void *arg);
long rdb_ziplist_walk(const unsigned char *zl, size_t size, rdb_elem_cb *cb, void *arg);
/* strict: the members must strictly increase (deep sanitization). */
long rdb_intset_walk(const unsigned char *is, size_t size, int strict, rdb_elem_cb *cb,
                     void *arg);
/* Fields and values alternate, as in a hash's listpack. */
long rdb_zipmap_walk(const unsigned char *zm, size_t size, rdb_elem_cb *cb, void *arg);

#endif
