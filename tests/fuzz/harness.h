/*
 * harness.h - what the fuzz targets that run server code share (harness.c):
 * the server's global state set up without a loop turn, listeners or files,
 * fake clients that run requests through the real dispatcher, the keyspace's
 * invariant checks, and memfd-backed files for the loaders.
 *
 * Not a module of the server: only tests/fuzz/ uses it. Every function
 * aborts on a violated invariant or a setup failure, as a fuzz target must.
 */
#ifndef RBKV_FUZZ_HARNESS_H
#define RBKV_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

struct client;
struct keyspace;

/* Databases of the fuzzed keyspace: few, so SELECT, MOVE and COPY ... DB
 * land on the same ones often. */
#define HARNESS_DATABASES 4
/* busy-reply-threshold under fuzzing: a script still running after this
 * many milliseconds is stopped (script_set_busy_stop), so `while true do
 * end` costs an input a few milliseconds, not a hang. */
#define HARNESS_SCRIPT_MS 5

/* Once per process, idempotent: config defaults, logging to /dev/null
 * (RBKV_FUZZ_LOG=1 keeps it on stdout), the default loop (never run but
 * to reap closed handles), the command tables, server.ks with
 * HARNESS_DATABASES empty databases, and scripts stopped once past
 * HARNESS_SCRIPT_MS. harness_reset also empties the script cache. */
void harness_init(void);

/* Runs c's request through the dispatcher, except the commands that would
 * fork, write files, change the config or close real connections: those get
 * an error reply. */
void harness_execute(struct client *c);

/* A client as conn.c makes one, without a handle: listed in server.clients
 * (so CLIENT LIST and UNBLOCK see it), RESP2, database 0. */
struct client *harness_client_new(void);
/* Ends its wait, MULTI and WATCHes as a disconnect does, then frees it.
 * NULL does nothing. */
void harness_client_free(struct client *c);

/* Empties every database of server.ks and lets libuv run the close
 * callbacks of timers stopped since (blocked clients' deadlines). */
void harness_reset(void);

/* Checks every database of ks: ks_check (tree, order, sizes, expiry tree,
 * index), zs_check for each sorted set, om_check for each hash and set
 * (none empty, a hash's map with values and a set's without). Aborts with the reason on stderr. */
void harness_check_keyspace(const struct keyspace *ks);

/* An anonymous in-memory file reachable by *path ("/proc/self/fd/N"), made
 * once per process and per slot (0 or 1); harness_file_fill replaces its
 * contents with data and rewinds the fd. Returns the fd. */
int harness_file(int slot, const char **path);
void harness_file_fill(int fd, const uint8_t *data, size_t size);

#endif
