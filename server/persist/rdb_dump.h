/*
 * rdb_dump.h - DUMP's payload, as Redis 7.0's cluster.c builds and checks
 * it: one value in the RDB format (rdb_value.h), then the RDB version in 2
 * bytes and the CRC-64 of everything before it in 8, both little endian.
 *
 * Owns: the payload it returns, until the caller frees it (xfree).
 */
#ifndef RBKV_RDB_DUMP_H
#define RBKV_RDB_DUMP_H

#include <stddef.h>

#include "keyspace.h"
#include "rdb_value.h"

/* The RDB version Redis 7.0 writes; payloads of later versions are refused. */
#define RDB_VERSION 10
/* Version and checksum after the value. */
#define RDB_DUMP_TRAILER 10

/* e's value as a payload, owned by the caller. */
char *rdb_dump_payload(struct ks_entry *e, size_t *len);

/* Whether p[0, len) ends in a trailer of a version up to RDB_VERSION and a
 * CRC-64 matching the bytes before it (Redis's verifyDumpPayload): 0, or -1. */
int rdb_dump_verify(const char *p, size_t len);

/* Reads the value of a verified payload (rdb_value_read's contract). As in
 * Redis, the value is read from the whole payload: bytes after it are
 * ignored, and a value cut short may read into the trailer. */
int rdb_dump_read(const char *p, size_t len, const struct rdb_limits *lim, int deep,
                  struct rdb_value *v, const char **why);

#endif
