/*
 * watch.h - WATCH's optimistic locks: which clients watch which keys, and
 * which of them a change has made "dirty" (their next EXEC answers nil).
 *
 * Owns: the table of watched keys (server.watch) and each client's list of
 * watchers (c->watching). A client's watchers live until UNWATCH, EXEC,
 * DISCARD or its disconnect (watch_unwatch_all). The keyspace knows nothing
 * of this module: the dispatcher reports what write commands changed, and
 * the few deletions that do not name their keys (FLUSHDB, FLUSHALL,
 * KDELRANGE) report themselves.
 *
 * Expiry is the change nobody reports: as Redis 7 does, WATCH records whether
 * the key was live, and EXEC asks watch_expired() whether such a key has
 * since passed its deadline or gone.
 */
#ifndef RBKV_WATCH_H
#define RBKV_WATCH_H

#include <stddef.h>
#include <stdint.h>

struct client;
struct command;
struct db;

/* WATCH: c watches key in db (again is a no-op). An expired entry found is
 * deleted, so a key watched while already expired counts as absent. */
void watch_key(struct client *c, struct db *db, const char *key, size_t klen);

/* Forgets every key c watches and clears CLIENT_DIRTY_CAS. */
void watch_unwatch_all(struct client *c);

/* Marks dirty every client watching key in db, and tells the touch hook. */
void watch_touch(struct db *db, const char *key, size_t klen);

/* Told of every key that watch_touch and watch_touch_command report,
 * whether or not anyone WATCHes it: the one report of "this key changed"
 * (Redis's signalModifiedKey), which client-side caching (tracking.c)
 * invalidates from. One hook, set at start; NULL unsets. */
typedef void watch_touch_fn(struct db *db, const char *key, size_t klen);
void watch_on_touch(watch_touch_fn *fn);

/* Before db is emptied: marks dirty the watchers of every key it holds (a
 * watched key that does not exist is not changed by a flush, as in Redis 7). */
void watch_touch_db(struct db *db);
/* Touches every watched key of db that a range cut just took out
 * (ks_cut_holds): O(watched keys), not O(keys cut). */
void watch_touch_cut(struct db *db);

/* Before SWAPDB swaps a and b: marks dirty the watchers, in either db, of
 * every key live (present, not past its deadline at now_ms) in a or in b,
 * as Redis's touchAllWatchedKeysInDb both ways. A key live in neither is
 * left alone; one watched while live that has expired since is still caught
 * at EXEC by watch_expired. */
void watch_touch_swap(struct db *a, struct db *b, int64_t now_ms);

/* After cmd, a write command, changed something: marks dirty the watchers of
 * the keys its key spec names in c->db. (A key written in another database,
 * as MOVE and COPY do, is the command's to watch_touch, as are the keys of a
 * CMD_TOUCHES_OWN_KEYS command, which changes only some of those it names.) */
void watch_touch_command(struct client *c, const struct command *cmd);

/* 1 when a key c watched while it was live has since expired (gone, or past
 * its deadline), else 0. */
int watch_expired(const struct client *c);

#endif
