/*
 * snapshot.h - the snapshot file: writing a keyspace to disk and reading it
 * back (prefix snap_).
 *
 * Owns: the file format, its checksum, and the write-to-temp, fsync, rename,
 * fsync-directory sequence that makes a save all or nothing. Knows nothing of
 * clients, commands, the loop or fork(): bgsave.c decides when to save
 * and in which process.
 *
 * Format, version 1, or 2 when a REPL record is present. Integers are little-endian; "varint" is LEB128 (7 bits a
 * byte, low first, at most 10 bytes); every length is a varint.
 *
 * The HASH and SET records came later without a version of their own: a
 * build that predates them stops at the first one with "unknown record type
 * 0x02 at offset N", a clear refusal, while a file holding no hash or set is
 * byte for byte what it wrote, so it still reads it. A version naming them
 * would have to be known before the header is written, which means a walk of
 * every key first (or a per-type count the keyspace does not keep), and
 * would buy only a different wording of the same refusal. The LIST record
 * came the same way.
 *
 *   header   "RBKV" | u16 version (1) | u16 flags (0) | i64 unix ms of the save
 *   records, each starting with an opcode byte:
 *     0xFD REPL    replid (40 bytes) | varint offset | varint db (version 3)
 *                                       version 2 or 3 only, first if present:
 *                                       the replication position the data is
 *                                       at, and the database the stream's
 *                                       last SELECT chose there (Redis's
 *                                       repl-stream-db; version 2 files,
 *                                       without it, read as 0)
 *     0xF5 FUNCTION code                 after REPL, before the first SELECT:
 *                                       one a function library, its FUNCTION
 *                                       LOAD text (shebang included)
 *     0xFE SELECT  varint db            databases in increasing order, only
 *                                       non-empty ones
 *     0x00 STRING  flags | [i64 deadline] | key | value
 *     0x01 ZSET    flags | [i64 deadline] | key | varint n | n * (member | f64 score)
 *                  members in (score, member) order, n >= 1
 *     0x02 HASH    flags | [i64 deadline] | key | varint n | n * (field | value)
 *     0x03 SET     flags | [i64 deadline] | key | varint n | n * member
 *                  fields and members strictly increasing in memcmp order
 *                  (shorter prefix first), n >= 1; the loader rebuilds each
 *                  map in that order under the caller's packed thresholds, so
 *                  its encoding follows those in force at load, as Redis's
 *     0x04 LIST    flags | [i64 deadline] | key | varint n | n * element
 *                  head to tail, n >= 1; the loader appends them in order
 *                  in chunks of the caller's list-max-listpack-size
 *     0x05 STREAM  flags | [i64 deadline] | key | 3 * (u64 ms | u64 seq) (last,
 *                  first, max deleted ID) | varint entries added | varint tail
 *                  node, its entries, its bytes | varint n | n * (u64 ms |
 *                  u64 seq | varint node | varint pairs | pairs * (field |
 *                  value)); IDs strictly increasing, nodes never decreasing,
 *                  n >= 0 (an empty stream is a value); checked whole
 *                  (xs_check) once read
 *     0x06 STREAMG a stream with consumer groups: 0x05's fields, then
 *                  varint groups | groups * (name | u64 ms | u64 seq (last
 *                  delivered) | varint entries read + 1 (0: unknown) |
 *                  varint pending | pending * (u64 ms | u64 seq | i64
 *                  delivery ms | varint deliveries) | varint consumers |
 *                  consumers * (name | i64 seen ms | varint owned | owned *
 *                  (u64 ms | u64 seq))); names unique in their list,
 *                  the pending IDs strictly increasing, each owned ID
 *                  pending in the group, every pending entry owned by
 *                  exactly one consumer. A stream without groups
 *                  is still written 0x05, so older files and older readers
 *                  of them stay as they were
 *     0xFF END     u64 checksum
 *   key, value, field and member are a varint length then that many bytes; flags bit
 *   0 says a deadline follows (absolute unix ms); other bits must be 0.
 *
 * The checksum is CRC-64/Jones (reflected, polynomial 0xad93d23594c935a9,
 * Redis's) over every byte before it; nothing may follow it.
 *
 * Within a database the keys are in the keyspace's order (memcmp, shorter
 * prefix first), strictly increasing, so the loader builds each tree in O(n)
 * without comparing keys (ks_bulk_add, ks_bulk_finish), checking only that
 * each key sorts after the previous one: a key out of order is corruption. Keys already expired at save time are not written; those
 * expired by load time are skipped.
 */
#ifndef RBKV_SNAPSHOT_H
#define RBKV_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "olist.h"
#include "omap.h"

struct keyspace;

#define SNAP_VERSION 1
#define SNAP_VERSION_REPL_NO_DB 2 /* a file with a REPL record without its db (read only) */
#define SNAP_VERSION_REPL 3       /* a file with a REPL record */

/* The replication position a snapshot records, so a restarted server can
 * continue its replication history (a replica resynchronizes partially). */
struct snap_repl {
    char replid[41];
    long long offset;
    int db; /* the stream's database at offset */
};
/* Asked when a snapshot is written: fills *pos and returns 1 to record it,
 * 0 to record none. Set once at start by the replication code; NULL: none. */
typedef int snap_repl_fn(struct snap_repl *pos);
void snap_on_write_repl(snap_repl_fn *fn);
/* The position the last snap_load read, if it had one: returns 1 and fills
 * *pos, else 0. */
int snap_loaded_repl(struct snap_repl *pos);

/* Function libraries (FUNCTION LOAD's code), which the registry in core/
 * owns: a snapshot carries them as opaque texts. The writer asks the hook
 * for the i-th library's code (borrowed, *len set) until it returns NULL;
 * set once at start by the registry, NULL: none written. A forked child
 * reads its copy of the registry through it. */
typedef const char *snap_function_fn(size_t i, size_t *len);
void snap_on_write_functions(snap_function_fn *fn);
/* The hook's answer, NULL when no hook is set (the log's rewrite uses it). */
const char *snap_function_code(size_t i, size_t *len);
/* The libraries the last snap_load read, in file order, handed to the
 * caller, who xfrees each code and the array; NULL with *n = 0 when none.
 * The registry compiles them on the loop thread once the load is over (a
 * replica loads on a worker). */
struct snap_code {
    char *code;
    size_t len;
};
struct snap_code *snap_take_loaded_functions(size_t *n);
/* Another loader's library (an RDB file's FUNCTION2), owned from now on,
 * appended to those snap_take_loaded_functions hands over. */
void snap_keep_loaded_function(char *code, size_t len);
/* Frees the libraries not taken (a load starting over). */
void snap_drop_loaded_functions(void);

struct ks_entry;
/* Bytes e's value takes in a snapshot record (after the key): DEBUG
 * OBJECT's serializedlength. O(members). */
size_t snap_value_len(const struct ks_entry *e);

/* Redis's test hooks that slow a save or a load (rdb-key-save-delay,
 * key-load-delay): sleeps us microseconds, or -us nanoseconds when
 * negative, as Redis's debugDelay; 0 returns at once. */
void snap_key_delay(long long us);
/* Where snap_write_fd reads rdb-key-save-delay, for every key (a forked
 * child reads its copy); set once at start, NULL: no delay. */
void snap_on_save_key_delay(const long long *us);

/* The CRC-64/Jones of n bytes at p, continuing from crc (0 to start). */
uint64_t snap_crc64(uint64_t crc, const void *p, size_t n);

/* Writes every database of ks to the open file fd, skipping keys whose
 * deadline is <= now_ms, then fsyncs it. Returns 0, or -1 with the reason in
 * err. Does not close fd, which may be a pipe (fsync of a pipe fails with
 * EINVAL, and is no fault). */
int snap_write_fd(int fd, const struct keyspace *ks, int64_t now_ms, char *err, size_t errlen);

/* Progress of a long read or write, of a snapshot or an RDB file: the hook
 * is called every SNAP_PROGRESS_EVERY keys and once at the end, with the
 * keys done so far, and the bytes read of total (reading) or the keys of
 * total (writing). NULL, the default in a server: nothing is reported;
 * --convert-rdb sets one to draw its progress line. */
#define SNAP_PROGRESS_EVERY 65536
typedef void snap_progress_cb(int writing, long long keys, unsigned long long done,
                              unsigned long long total);
void snap_on_progress(snap_progress_cb *cb);
/* Calls the hook, when one is set. */
void snap_progress(int writing, long long keys, unsigned long long done,
                   unsigned long long total);

/* Saves ks to path: writes "temp-<pid>.rbkv" in path's directory, fsyncs it,
 * renames it onto path and fsyncs the directory, so path holds either the old
 * snapshot or the whole new one. On failure the temp file is removed and path
 * is untouched. Returns 0, or -1 with the reason in err. */
int snap_save(const struct keyspace *ks, const char *path, int64_t now_ms, char *err,
              size_t errlen);

/* The temp file name snap_save uses in process pid, into buf. */
void snap_temp_name(char *buf, size_t cap, const char *path, long pid);

/* The thresholds of the packed encodings a load builds hashes and sets
 * with, and the chunk size of its lists: the configuration's
 * (hash-max-listpack-*, set-max-*, list-max-listpack-size), which this file
 * does not read, so a load on a worker thread takes a copy made on the loop. */
struct snap_limits {
    struct om_limits hash, set;
    struct ol_limits list;
    long long key_delay; /* key-load-delay: sleep per key, snap_key_delay's units */
};

/* Loads the snapshot at path into ks, whose databases must be empty, its
 * hashes and sets packed within lim (borrowed for the call).
 * Returns the number of keys loaded, 0 with *absent set when there is no
 * file, or -1 with err naming the file, the byte offset and the fault
 * ("Bad snapshot file dump.rbkv at offset 123: checksum mismatch"); ks then
 * holds what was read before the fault, which the caller discards. Logs
 * progress every few million keys. The file is only read. */
long long snap_load(struct keyspace *ks, const char *path, const struct snap_limits *lim,
                    int *absent, char *err, size_t errlen);

#endif
