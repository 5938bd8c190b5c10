/*
 * rdb_value.h - one value in Redis 7.0's RDB format (rdb.c's
 * rdbLoadObjectType + rdbLoadObject, rdbSaveObjectType + rdbSaveObject):
 * the type byte and the value's body, for strings, lists, sets, hashes,
 * sorted sets and streams (rdb_stream.h). DUMP/RESTORE use it (rdb_dump.h), and RDB files (rdb_file.h);
 * MIGRATE is meant to.
 *
 * Reading takes every encoding Redis 7.0 reads for those types (see
 * docs/persistence.md, "Redis's RDB value format"), validated as Redis's
 * deep sanitization does, and builds the value fresh: on failure nothing is
 * left behind. Module values are refused as malformed (Redis without the
 * module refuses them so).
 *
 * Writing picks one encoding per type that redis-server 7.0 loads into its
 * compact encodings itself: the plain forms (STRING raw, LIST, SET, HASH,
 * ZSET_2), and STREAM_LISTPACKS_2 for a stream, which has no other.
 *
 * Owns: a struct rdb_value's value until the caller takes it. Knows data
 * and base, not the keyspace's commands nor the configuration: the caller
 * passes the encoding thresholds.
 */
#ifndef RBKV_RDB_VALUE_H
#define RBKV_RDB_VALUE_H

#include <stddef.h>

#include "keyspace.h"
#include "olist.h"
#include "omap.h"
#include "rdb_io.h"

/* The value types of Redis 7.0's rdb.h. */
enum rdb_type {
    RDB_TYPE_STRING = 0,
    RDB_TYPE_LIST = 1,
    RDB_TYPE_SET = 2,
    RDB_TYPE_ZSET = 3,
    RDB_TYPE_HASH = 4,
    RDB_TYPE_ZSET_2 = 5,
    RDB_TYPE_MODULE = 6,
    RDB_TYPE_MODULE_2 = 7,
    RDB_TYPE_HASH_ZIPMAP = 9,
    RDB_TYPE_LIST_ZIPLIST = 10,
    RDB_TYPE_SET_INTSET = 11,
    RDB_TYPE_ZSET_ZIPLIST = 12,
    RDB_TYPE_HASH_ZIPLIST = 13,
    RDB_TYPE_LIST_QUICKLIST = 14,
    RDB_TYPE_STREAM_LISTPACKS = 15,
    RDB_TYPE_HASH_LISTPACK = 16,
    RDB_TYPE_ZSET_LISTPACK = 17,
    RDB_TYPE_LIST_QUICKLIST_2 = 18,
    RDB_TYPE_STREAM_LISTPACKS_2 = 19,
    RDB_TYPE_STREAM_LISTPACKS_3 = 21, /* Redis 7.2's (RDB 11): read, never written */
};

/* The encoding thresholds the built values follow (from the configuration). */
struct rdb_limits {
    struct ol_limits list;
    struct om_limits hash, set;
};

/* A value read: type is an enum ks_type. A string is str (borrowed from the
 * input unless it was compressed, see rdb_io.h); any other type is ptr (an
 * olist, omap, zset or xstream), owned until handed to the keyspace. */
struct rdb_value {
    int type;
    void *ptr;
    struct rdb_str str;
};

/* Why a read failed. */
enum rdb_err {
    RDB_ERR_FORMAT = -1, /* malformed, truncated, empty, duplicated, NaN, a module's */
};

/* Reads one type byte and the value after it from in. deep: refuse
 * duplicates inside listpacks and intsets, and unordered intsets, too
 * (Redis's sanitize-dump-payload yes); the plain encodings, ziplists and
 * zipmaps always refuse duplicates, as Redis's conversions of them do, and
 * every length is always checked. Returns 0 with *v set
 * (release it, or take what it holds), or an enum rdb_err with *why naming
 * the fault (a static string) and nothing allocated. */
int rdb_value_read(struct rdb_in *in, const struct rdb_limits *lim, int deep,
                   struct rdb_value *v, const char **why);
/* The same for a value whose type byte was read already (rdbtype): an RDB
 * file puts the key between the two. */
int rdb_value_read_body(struct rdb_in *in, unsigned rdbtype, const struct rdb_limits *lim,
                        int deep, struct rdb_value *v, const char **why);
/* Frees what v still holds. */
void rdb_value_release(struct rdb_value *v);

/* Appends a value (type byte and body) to o: a string's bytes, or a value
 * of another type (type an enum ks_type other than KS_STRING, value its
 * olist, omap, zset or xstream). */
void rdb_value_write_string(struct rdb_out *o, const char *p, size_t len);
void rdb_value_write(struct rdb_out *o, int type, const void *value);

#endif
