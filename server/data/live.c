/*
 * live.c - the keys a read sees at a time now: due keys skipped, never
 * deleted (see live.h).
 *
 * How many keys are due is one descent of the counted expiry tree
 * (ks_due_count). Which of them lie before a position has two ways, and
 * each call takes the cheaper: walking the keys between the position and the nearer end of
 * the db (checking each deadline), or walking the due end of the expiry tree
 * (checking each key against the position's key). Neither computes a rank
 * per due key, which would cost a climb to the root each.
 */
#include "live.h"

#include "rbtree.h"

/* The expiry tree's first record if it is due, else NULL. */
static const struct ks_expire *first_due(const struct live_view *v)
{
    const struct rb_node *n = rb_first_cached(&v->db->expires);
    if (v->paused || !n)
        return NULL;
    const struct ks_expire *x = rb_entry(n, struct ks_expire, node);
    return x->when <= v->now ? x : NULL;
}

void live_view_init(struct live_view *v, const struct db *db, int64_t now_ms, int hide_due)
{
    v->db = db;
    v->now = now_ms;
    v->paused = !hide_due;
    v->due = LIVE_DUE_UNKNOWN;
    /* The earliest deadline is in the future: no key hides, and a listing
     * pays one test a key, not a look at each key's deadline. */
    v->hides_none = first_due(v) == NULL;
    if (v->hides_none)
        v->due = 0;
}

static const struct ks_expire *next_due(const struct live_view *v, const struct ks_expire *x)
{
    const struct rb_node *n = rb_next(&x->node);
    if (!n)
        return NULL;
    x = rb_entry(n, struct ks_expire, node);
    return x->when <= v->now ? x : NULL;
}

/* min(D, cap). */
static size_t due_upto(struct live_view *v, size_t cap)
{
    size_t due = live_due(v);
    return due < cap ? due : cap;
}

size_t live_due(struct live_view *v)
{
    if (v->due == LIVE_DUE_UNKNOWN)
        v->due = v->paused ? 0 : ks_due_count(v->db, v->now);
    return v->due;
}

size_t live_count(struct live_view *v)
{
    return ks_count(v->db) - live_due(v);
}

/* Hidden keys among the n from e on, ascending. */
static size_t hidden_in(const struct live_view *v, const struct ks_entry *e, size_t n)
{
    size_t h = 0;
    for (; n > 0; n--, e = ks_next(e))
        h += (size_t)live_hides(v, e);
    return h;
}

/* Due keys whose key sorts before at's. O(D). */
static size_t due_before_key(const struct live_view *v, const struct ks_entry *at)
{
    const char *key = ks_key(at);
    size_t klen = ks_klen(at), n = 0;
    for (const struct ks_expire *x = first_due(v); x; x = next_due(v, x))
        n += ks_keycmp(ks_key(x->entry), ks_klen(x->entry), key, klen) < 0;
    return n;
}

size_t live_before(struct live_view *v, size_t pos)
{
    size_t count = ks_count(v->db);
    if (pos == 0 || !first_due(v))
        return pos;
    /* All due (a mass expiry): nothing is live anywhere. */
    if (pos >= count || live_due(v) == count)
        return count - live_due(v);
    if (due_upto(v, pos) == pos)
        return pos - hidden_in(v, ks_first(v->db), pos);
    size_t after = count - pos;
    if (due_upto(v, after) == after)
        return pos - (v->due - hidden_in(v, ks_select(v->db, pos), after));
    return pos - due_before_key(v, ks_select(v->db, pos));
}

size_t live_in(struct live_view *v, size_t lo, size_t hi)
{
    size_t len = hi - lo;
    if (len == 0 || !first_due(v))
        return len;
    if (live_due(v) == ks_count(v->db))
        return 0;
    /* A short span (SCAN's COUNT) is cheaper to look at than the due keys. */
    if (due_upto(v, len) == len)
        return len - hidden_in(v, ks_select(v->db, lo), len);
    return live_before(v, hi) - live_before(v, lo);
}

void live_span(struct live_view *v, size_t *lo, size_t *hi)
{
    size_t n = live_in(v, *lo, *hi);
    *lo = live_before(v, *lo);
    *hi = *lo + n;
}

/* Whether the raw position p has k + 1 live keys at or before it. */
static int reaches(struct live_view *v, size_t p, size_t k)
{
    return live_before(v, p + 1) >= k + 1;
}

struct ks_entry *live_select(struct live_view *v, size_t k)
{
    size_t count = ks_count(v->db);
    if (!first_due(v))
        return k < count ? ks_select(v->db, k) : NULL;
    size_t due = live_due(v), live = count - due;
    if (k >= live)
        return NULL;
    /* The smallest raw position p that reaches k: p is live and has k live
     * keys before it. p lies in [k, k + due]. Counting near an end of the db
     * is cheap (a walk from that end), so the search gallops from the end k
     * is nearer before it bisects: KFIRST and KLAST pay for the keys they
     * skip, not for D. */
    size_t lo = k, hi = k + due < count - 1 ? k + due : count - 1;
    size_t step = 1;
    if (k < live - k) {
        while (lo < hi) {
            size_t p = hi - lo >= step ? lo + step - 1 : hi;
            if (reaches(v, p, k)) {
                hi = p;
                break;
            }
            lo = p + 1;
            step *= 2;
        }
    } else {
        while (lo < hi) {
            size_t p = hi - lo >= step ? hi - step : lo;
            if (!reaches(v, p, k)) {
                lo = p + 1;
                break;
            }
            hi = p;
            step *= 2;
        }
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (reaches(v, mid, k))
            hi = mid;
        else
            lo = mid + 1;
    }
    return ks_select(v->db, lo);
}

size_t live_rank(struct live_view *v, const struct ks_entry *e)
{
    return live_before(v, ks_rank(e));
}

struct ks_entry *live_nearest(const struct live_view *v, struct ks_entry *e, int rev)
{
    while (e && live_hides(v, e))
        e = rev ? ks_prev(e) : ks_next(e);
    return e;
}

struct ks_entry *live_step(const struct live_view *v, const struct ks_entry *e, int rev)
{
    return live_nearest(v, rev ? ks_prev(e) : ks_next(e), rev);
}
