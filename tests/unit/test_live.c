/*
 * test_live.c - what reads see of a db with keys past their deadline
 * (server/data/live.h), against a brute-force model: the entries in key
 * order, filtered by deadline.
 *
 * Each round builds a db of up to ROUND_KEYS_MAX keys, some without a
 * deadline, some due and some not at the round's `now` (the share of due
 * keys drawn per round, from none to all, so every way live.c counts them
 * is taken: near either end, by comparing keys, and the fast path), then
 * checks every live position, count, span, select, rank and step against
 * the model, and that nothing was deleted. One round in eight pauses expiry,
 * which must hide nothing. Ends with mem_used() back at zero.
 *
 * usage: test_live. SEED=<n> in the environment replays a run (printed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "keyspace.h"
#include "live.h"
#include "mem.h"
#include "rng.h"

#define ROUNDS 400
#define ROUND_KEYS_MAX 300
#define SPANS_PER_ROUND 200
#define NOW_MS 1000000

static unsigned long test_op;
static uint64_t rng;

/* The model: the db's entries in key order, and which are live. */
struct model {
    struct ks_entry **e;
    int *live;
    size_t n, live_n;
};

static void model_build(struct model *m, const struct db *db, int64_t now, int paused)
{
    m->n = ks_count(db);
    m->e = calloc(m->n + 1, sizeof(*m->e));
    m->live = calloc(m->n + 1, sizeof(*m->live));
    CHECK(m->e && m->live);
    m->live_n = 0;
    size_t i = 0;
    for (struct ks_entry *e = ks_first(db); e; e = ks_next(e), i++) {
        int64_t when = ks_get_expire(e);
        m->e[i] = e;
        m->live[i] = paused || when == -1 || when > now;
        m->live_n += (size_t)m->live[i];
    }
    CHECK(i == m->n);
}

static void model_free(struct model *m)
{
    free(m->e);
    free(m->live);
}

/* Live entries at raw positions < pos. */
static size_t model_before(const struct model *m, size_t pos)
{
    size_t n = 0;
    for (size_t i = 0; i < pos; i++)
        n += (size_t)m->live[i];
    return n;
}

static void check_round(struct db *db, int64_t now, int paused)
{
    struct model m;
    model_build(&m, db, now, paused);
    size_t due_want = m.n - m.live_n;

    struct live_view v;
    live_view_init(&v, db, now, !paused);
    CHECK(v.paused == paused);
    CHECK(live_count(&v) == m.live_n);
    CHECK(live_due(&v) == due_want);

    /* Positions, ranks, selects and steps, each in a fresh view as well as
     * the shared one: a fresh one has not counted its due keys yet. */
    size_t k = 0;
    for (size_t pos = 0; pos <= m.n; pos++) {
        struct live_view fresh;
        live_view_init(&fresh, db, now, !paused);
        size_t want = model_before(&m, pos);
        CHECK(live_before(&v, pos) == want);
        CHECK(live_before(&fresh, pos) == want);
        if (pos == m.n)
            break;
        struct ks_entry *e = m.e[pos];
        CHECK(live_hides(&v, e) == !m.live[pos]);
        /* The nearest live entry each way from pos. */
        size_t up = pos, down = pos;
        while (up < m.n && !m.live[up])
            up++;
        while (down != (size_t)-1 && !m.live[down])
            down--;
        CHECK(live_nearest(&v, e, 0) == (up < m.n ? m.e[up] : NULL));
        CHECK(live_nearest(&v, e, 1) == (down != (size_t)-1 ? m.e[down] : NULL));
        if (!m.live[pos])
            continue;
        CHECK(live_rank(&v, e) == k);
        CHECK(live_select(&v, k) == e);
        live_view_init(&fresh, db, now, !paused);
        CHECK(live_select(&fresh, k) == e);
        size_t next = pos + 1, prev = pos - 1;
        while (next < m.n && !m.live[next])
            next++;
        while (prev != (size_t)-1 && !m.live[prev])
            prev--;
        CHECK(live_step(&v, e, 0) == (next < m.n ? m.e[next] : NULL));
        CHECK(live_step(&v, e, 1) == (prev != (size_t)-1 ? m.e[prev] : NULL));
        k++;
    }
    CHECK(k == m.live_n);
    CHECK(live_select(&v, m.live_n) == NULL);
    CHECK(live_nearest(&v, NULL, 0) == NULL);

    for (int s = 0; s < SPANS_PER_ROUND; s++) {
        size_t lo = rng_below(&rng, m.n + 1), hi = lo + rng_below(&rng, m.n + 1 - lo);
        struct live_view fresh;
        live_view_init(&fresh, db, now, !paused);
        size_t want = model_before(&m, hi) - model_before(&m, lo);
        CHECK(live_in(&fresh, lo, hi) == want);
        size_t slo = lo, shi = hi;
        live_span(&v, &slo, &shi);
        CHECK(slo == model_before(&m, lo) && shi == slo + want);
    }
    /* Reads delete nothing. */
    CHECK(ks_count(db) == m.n);
    const char *why = NULL;
    CHECK_MSG(ks_check(db, &why) >= 0, "ks_check: %s", why);
    model_free(&m);
}

static void one_round(void)
{
    struct keyspace *ks = ks_new(1);
    struct db *db = &ks->dbs[0];
    size_t keys = rng_below(&rng, ROUND_KEYS_MAX + 1);
    /* Per round, the shares of keys with a deadline and of those that are
     * due, so rounds range from no due key to nothing but due keys. */
    size_t with_deadline = rng_below(&rng, 101), due_share = rng_below(&rng, 101);
    for (size_t i = 0; i < keys; i++) {
        char key[16];
        int len = snprintf(key, sizeof(key), "k%05zu", rng_below(&rng, 4 * ROUND_KEYS_MAX));
        if (ks_find(db, key, (size_t)len))
            continue;
        struct ks_entry *e = ks_set_string(db, key, (size_t)len, "v", 1, 0);
        if (rng_below(&rng, 100) >= with_deadline)
            continue;
        int due = rng_below(&rng, 100) < due_share;
        /* Deadlines at now exactly are due; ties in the expiry tree too. */
        int64_t off = (int64_t)rng_below(&rng, 3);
        ks_set_expire(db, e, due ? NOW_MS - off : NOW_MS + 1 + off);
    }
    int paused = rng_below(&rng, 8) == 0;
    check_round(db, NOW_MS, paused);
    ks_free(ks);
    CHECK(mem_used() == 0);
}

int main(void)
{
    rng = check_seed(20261206);
    check_report_op(&test_op);
    for (test_op = 0; test_op < ROUNDS; test_op++)
        one_round();
    printf("live: ok\n");
    return 0;
}
