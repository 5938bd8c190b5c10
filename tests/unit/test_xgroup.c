/*
 * test_xgroup.c - a stream's consumer groups (server/data/xgroup.[ch])
 * against a table model: random deliveries, moves, acknowledgements,
 * consumer and group deletions over a few groups and consumers, xg_check
 * after every change, the PELs compared with the model (the group's and
 * each consumer's, in ID order, and their range seeks), clones compared
 * with their originals, and everything freed with the stream. SEED=<n>
 * replays a run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "rng.h"
#include "xgroup.h"
#include "xstream.h"

#define OPS 20000
#define GROUPS 3
#define CONSUMERS 4
#define IDS 64

/* model[g][i]: the owner (1 + consumer) of ID i pending in group g, or 0. */
static int model[GROUPS][IDS];
static uint64_t count_model[GROUPS][IDS];
static int group_exists[GROUPS];
static uint64_t rng;
static unsigned long op;

static const char *const group_names[GROUPS] = {"g0", "grp1", "g"};
static const char *const consumer_names[CONSUMERS] = {"alice", "bob", "b", "carol"};

static struct xs_id id_of(size_t i)
{
    return (struct xs_id){i / 4, i % 4};
}

/* Whether p is pending entry i. */
static int is_id(const struct xg_pending *p, size_t i)
{
    struct xs_id id = id_of(i);
    return p && xs_id_cmp(&p->id, &id) == 0;
}

static struct xg_group *group(struct xstream *s, int g)
{
    return xg_find(s, group_names[g], strlen(group_names[g]));
}

static struct xg_consumer *consumer(struct xg_group *g, int k, int create)
{
    const char *n = consumer_names[k];
    struct xg_consumer *c = xg_consumer_find(g, n, strlen(n));
    if (!c && create)
        c = xg_consumer_create(g, n, strlen(n), (int64_t)op);
    return c;
}

static int consumer_index(const struct xg_consumer *c)
{
    for (int k = 0; k < CONSUMERS; k++)
        if (c->nlen == strlen(consumer_names[k]) && !memcmp(c->name, consumer_names[k], c->nlen))
            return k;
    return -1;
}

static void check_groups(const struct xstream *s)
{
    const char *why = NULL;
    CHECK_MSG(xs_check(s, &why) == 0, "xs_check: %s", why);
    size_t ngroups = 0;
    for (int g = 0; g < GROUPS; g++) {
        struct xg_group *grp = group((struct xstream *)s, g);
        CHECK((grp != NULL) == group_exists[g]);
        if (!grp)
            continue;
        ngroups++;
        /* The group's PEL in ID order is the model's row. */
        struct xg_pending *p = xg_pending_first(grp);
        for (size_t i = 0; i < IDS; i++) {
            if (!model[g][i])
                continue;
            CHECK(is_id(p, i));
            CHECK(consumer_index(p->consumer) == model[g][i] - 1);
            CHECK(p->delivery_count == count_model[g][i]);
            p = xg_pending_next(p, NULL);
        }
        CHECK(p == NULL);
        /* A seek from a random ID lands on the next pending one, in the
         * group's PEL and in a consumer's. */
        size_t from = rng_below(&rng, IDS);
        struct xs_id fid = id_of(from);
        int k = (int)rng_below(&rng, CONSUMERS);
        struct xg_consumer *c = consumer(grp, k, 0);
        size_t want_g = from, want_c = from;
        while (want_g < IDS && !model[g][want_g])
            want_g++;
        while (want_c < IDS && model[g][want_c] != k + 1)
            want_c++;
        struct xg_pending *sg = xg_pending_seek(grp, NULL, &fid);
        CHECK(want_g == IDS ? sg == NULL : is_id(sg, want_g));
        if (c) {
            struct xg_pending *sc = xg_pending_seek(grp, c, &fid);
            CHECK(want_c == IDS ? sc == NULL : is_id(sc, want_c));
        } else {
            CHECK(want_c == IDS);
        }
    }
    CHECK(s->ngroups == ngroups);
}

static void run_random(void)
{
    struct xstream *s = xs_new();
    for (op = 0; op < OPS; op++) {
        int g = (int)rng_below(&rng, GROUPS), k = (int)rng_below(&rng, CONSUMERS);
        size_t i = rng_below(&rng, IDS);
        struct xs_id id = id_of(i);
        struct xg_group *grp = group(s, g);
        unsigned what = (unsigned)rng_below(&rng, 100);
        if (!grp) {
            struct xs_id last = id_of(rng_below(&rng, IDS));
            CHECK(xg_create(s, group_names[g], strlen(group_names[g]), &last, -1) != NULL);
            group_exists[g] = 1;
        } else if (what < 40) { /* deliver: add, or move to k and count 1 */
            struct xg_consumer *c = consumer(grp, k, 1);
            struct xg_pending *p = xg_pending_find(grp, &id);
            if (p) {
                xg_pending_move(p, c);
                p->delivery_count = 1;
            } else {
                CHECK(xg_pending_add(grp, c, &id, (int64_t)op) != NULL);
            }
            model[g][i] = k + 1;
            count_model[g][i] = 1;
        } else if (what < 60) { /* claim: move and count once more */
            struct xg_pending *p = xg_pending_find(grp, &id);
            CHECK((p != NULL) == (model[g][i] != 0));
            if (p) {
                xg_pending_move(p, consumer(grp, k, 1));
                p->delivery_count++;
                model[g][i] = k + 1;
                count_model[g][i]++;
            }
        } else if (what < 85) { /* ack */
            struct xg_pending *p = xg_pending_find(grp, &id);
            CHECK((p != NULL) == (model[g][i] != 0));
            if (p)
                xg_pending_ack(grp, p);
            model[g][i] = 0;
        } else if (what < 93) { /* delete a consumer with its entries */
            struct xg_consumer *c = consumer(grp, k, 0);
            size_t owned = 0;
            for (size_t j = 0; j < IDS; j++)
                owned += model[g][j] == k + 1;
            CHECK(c ? c->pel_count == owned : owned == 0);
            if (c)
                xg_consumer_delete(grp, c);
            for (size_t j = 0; j < IDS; j++)
                if (model[g][j] == k + 1)
                    model[g][j] = 0;
        } else if (what < 96) { /* destroy the group */
            xg_destroy(s, grp);
            group_exists[g] = 0;
            memset(model[g], 0, sizeof(model[g]));
        } else { /* clone: the same groups, then gone with the clone */
            struct xstream *copy = xs_clone(s);
            check_groups(copy);
            xs_free(copy);
        }
        check_groups(s);
    }
    /* A name taken stays taken; a freed stream takes its groups along
     * (the leak check of the sanitizer and valgrind runs sees the rest). */
    for (int g = 0; g < GROUPS; g++) {
        if (group_exists[g]) {
            struct xs_id zero = {0, 0};
            CHECK(xg_create(s, group_names[g], strlen(group_names[g]), &zero, 0) == NULL);
            int had = consumer(group(s, g), 0, 0) != NULL;
            CHECK((xg_consumer_create(group(s, g), "alice", 5, 0) == NULL) == had);
        }
    }
    xs_free(s);
}

int main(void)
{
    rng = check_seed((uint64_t)time(NULL));
    check_report_op(&op);
    run_random();
    puts("ok");
    return 0;
}
