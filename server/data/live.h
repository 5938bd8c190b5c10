/*
 * live.h - what a read sees of a database at a time `now`: every key except
 * those past their deadline (live.c).
 *
 * Owns the one policy for keys that are due (deadline <= now) but not
 * deleted yet: reads skip them, they never delete them. Deleting stays with
 * the active expiry cycle, which is bounded per slice, and with lazy expiry
 * on single-key lookups (keyspace.h), which are the paths that tell the
 * "expired" event, the log and the replicas. So one KFIRST or KCOUNT after
 * a million keys expired together answers at once, without deleting a
 * million keys inline and stalling every client.
 *
 * Positions here are live positions: the k-th key of the db not counting the
 * due ones. While no key is due (the common case, as active expiry keeps
 * up) every function is its keyspace.h counterpart plus one comparison.
 * With D due keys left, the live count is O(log n) (the expiry tree counts
 * its records), and O(log n) too when every key is due; otherwise counting
 * the live keys before a position costs O(log n + min(D, its distance to
 * the nearer end)), a short span's O(log n + its length), and selecting by
 * live position O((log n + D) log D): each due key is a deadline comparison
 * and a key comparison, never a deletion nor a rank (docs/internals.md,
 * "Expired keys and reads", says why).
 *
 * A view made with hide_due 0 hides nothing: for replaying the log, when
 * lookups hide nothing either, and for a replica's primary, whose stream was
 * written against the keys its own DELs have not removed yet (keyspace.h,
 * enum ks_expiry; the commands' live_view_for decides).
 *
 * Never reads the clock: callers pass now. Owns nothing; a view is valid
 * only until the db next changes, except that deleting a live key keeps it
 * valid (KDELRANGE deletes as it walks).
 */
#ifndef RBKV_LIVE_H
#define RBKV_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "keyspace.h"

struct live_view {
    const struct db *db;
    int64_t now;    /* ms */
    int paused;     /* made with hide_due 0: nothing is hidden */
    int hides_none; /* paused, or no key due at init: live_hides answers at once */
    size_t due;     /* due keys in db; LIVE_DUE_UNKNOWN until first needed */
};
#define LIVE_DUE_UNKNOWN ((size_t)-1)

/* O(1): the due keys are counted only when a count or a rank needs them. */
void live_view_init(struct live_view *v, const struct db *db, int64_t now_ms, int hide_due);

/* Whether e is past its deadline, so reads skip it. O(1); inline, since a
 * listing asks it of every key it walks. */
static inline int live_hides(const struct live_view *v, const struct ks_entry *e)
{
    if (v->hides_none || !(e->flags & KS_HAS_EXPIRE))
        return 0;
    return ks_get_expire(e) <= v->now;
}

/* The due keys of the db: ks_due_count, O(log n), once per view. */
size_t live_due(struct live_view *v);

/* Live keys in the db. */
size_t live_count(struct live_view *v);

/* Live keys at raw positions (keyspace.h ranks) < pos, pos <= ks_count. */
size_t live_before(struct live_view *v, size_t pos);

/* Live keys at raw positions [lo, hi). O(log n + min(hi - lo, D)) when the
 * span is short, as SCAN's is. */
size_t live_in(struct live_view *v, size_t lo, size_t hi);

/* A span of raw positions (krange.h) as the live positions of the live keys
 * in it: [live_before(lo), live_before(hi)). */
void live_span(struct live_view *v, size_t *lo, size_t *hi);

/* The live key at live position k, or NULL when k >= live_count. */
struct ks_entry *live_select(struct live_view *v, size_t k);

/* The live position of e, a live entry. */
size_t live_rank(struct live_view *v, const struct ks_entry *e);

/* e if it is live, else the first live key after it (rev: before it); NULL
 * when there is none. e may be NULL. O(1 + keys skipped). */
struct ks_entry *live_nearest(const struct live_view *v, struct ks_entry *e, int rev);

/* The first live key after e (rev: before e), or NULL. */
struct ks_entry *live_step(const struct live_view *v, const struct ks_entry *e, int rev);

#endif
