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

/* Called with each element in order; a negative return stops the walk,
 * which then fails. */
typedef int rdb_elem_cb(void *arg, const char *p, size_t len);

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
