/*
 * rdb_file.h - Redis's RDB file (rdb.c's rdbLoadRio and rdbSaveRio): the
 * "REDIS0010" header, the AUX fields, function libraries, SELECTDB and
 * RESIZEDB, each key with its expiry and LRU/LFU opcodes, EOF and the CRC-64
 * trailer. The values inside are rdb_value.h's.
 *
 * Reading takes every version Redis 7.0 reads (1 to 10) and is as strict as
 * Redis's `sanitize-dump-payload yes`: a fault fails the whole load with the
 * offset and, inside a key, the key and its database named. Module data
 * (MODULE_AUX, module values) are refused; function libraries
 * (FUNCTION2) are handed to the registry as a snapshot's are
 * (snap_take_loaded_functions). AUX fields are read and logged (redis-ver,
 * ctime, used-mem) or skipped: the replication position Redis keeps in them
 * (repl-id, repl-offset, repl-stream-db) is not adopted.
 *
 * Writing produces version 10 as redis-server 7.0 loads it: each value in
 * rdb_value.h's plain forms, expiries in milliseconds, the checksum.
 *
 * Owns: nothing past a call. The input of rdb_file_read is borrowed; keys and
 * values are copied into the keyspace. Knows data and base (and snapshot.h's
 * CRC-64 and function hand-over), never the configuration: callers pass the
 * encoding thresholds.
 */
#ifndef RBKV_RDB_FILE_H
#define RBKV_RDB_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "rdb_value.h"

/* What every RDB file starts with, before its 4-digit version. */
#define RDB_FILE_MAGIC "REDIS"
#define RDB_FILE_MAGIC_LEN 5

struct keyspace;
struct ka_clock;

struct rdb_file_opts {
    struct rdb_limits lim;         /* encoding thresholds of the values built */
    const struct ka_clock *clock;  /* IDLE and FREQ apply under it; NULL: ignored */
    int64_t now_ms;                /* keys whose deadline is <= now_ms are skipped; -1: none */
    int verbose;                   /* log the AUX fields as Redis does */
};

/* Loads the RDB file held in buf[0, len) into ks, whose databases must be
 * empty. Returns the number of keys loaded, or -1 with err naming name (the
 * file), the byte offset, the key when the fault is inside one, and the
 * fault ("Bad RDB file dump.rdb at offset 123: key \"k\" in db 0: ..."); ks
 * then holds what was read before the fault, which the caller discards. */
long long rdb_file_read(struct keyspace *ks, const unsigned char *buf, size_t len,
                        const char *name, const struct rdb_file_opts *o, char *err,
                        size_t errlen);

/* Whether the file at path starts with RDB_FILE_MAGIC: 1, or 0 (another
 * format, shorter than the magic, or no file to open). */
int rdb_file_sniff(const char *path);

/* rdb_file_read of the file at path (mapped, only read). Returns the number
 * of keys, or -1 with err set (also when the file cannot be opened). */
long long rdb_file_load(struct keyspace *ks, const char *path, const struct rdb_file_opts *o,
                        char *err, size_t errlen);

/* Writes every database of ks to the open file fd as an RDB version 10 file,
 * skipping keys whose deadline is <= now_ms, with the function libraries
 * snap_function_code hands over, then fsyncs it (a pipe's EINVAL is no
 * fault). Returns 0, or -1 with the write error in err. Does not close fd. */
int rdb_file_write_fd(int fd, const struct keyspace *ks, int64_t now_ms, char *err,
                      size_t errlen);

#endif
