/*
 * test_omap.c - the ordered map behind hashes and sets
 * (server/data/omap.[ch]) against a model: a sorted array of (field, value),
 * with om_check() after every change.
 *
 * Owns: one map and its model per run. No server, no RESP.
 *
 * Parts:
 *   hash    RANDOM_OPS random sets, adds, deletes and span deletes over a
 *           small alphabet of fields with values of random length (some past
 *           the packed value limit), under small limits so the map converts
 *           to the tree and back again and again; after each, om_check, and
 *           lookups, ranks, seeks, both walks and lex and prefix spans
 *           compared with the model;
 *   set     the same for a set, with integer members (the intset rule);
 *   big     100,000 members added in order and at random, deleted at random:
 *           chunks split, merge and stay checked; seeks at every rank;
 *   clone   a clone equals its source and is independent of it;
 *   append  maps built with om_append in order, packed and tree, equal
 *           the same built with om_set;
 *   cut     spans deleted by om_cut_span and by om_del_span from two equal
 *           maps of up to 30,000 fields leave equal maps (encoding too),
 *           and the part cut off is a valid map.
 * Every part ends with mem_used() back at zero: a leaked chunk fails.
 *
 * usage: test_omap [part]... (no argument runs all). Prints SEED=<n>;
 * SEED=<n> in the environment replays a run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "lexrange.h"
#include "mem.h"
#include "omap.h"

#define RANDOM_OPS 30000
#define NAMES 200   /* integer members of a set: -50 to 149 */
#define MODEL_MAX 512 /* NAMES and every name of 1 to 3 of the bytes a b NUL 0xff */
#define NAME_MAX 6
#define VALUE_MAX 40

static uint64_t seed, rng;
static unsigned long op;

struct item {
    char f[NAME_MAX];
    size_t flen;
    char v[VALUE_MAX];
    size_t vlen;
};

static struct item model[MODEL_MAX];
static size_t model_len;

static int bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int r = n ? memcmp(a, b, n) : 0;
    return r ? r : (alen > blen) - (alen < blen);
}

/* Position of f in the model, or where it would go (and *found). */
static size_t model_find(const char *f, size_t flen, int *found)
{
    size_t i = 0;
    while (i < model_len && bytes_cmp(model[i].f, model[i].flen, f, flen) < 0)
        i++;
    *found = i < model_len && bytes_cmp(model[i].f, model[i].flen, f, flen) == 0;
    return i;
}

static void model_set(const char *f, size_t flen, const char *v, size_t vlen)
{
    int found;
    size_t i = model_find(f, flen, &found);
    if (!found) {
        memmove(&model[i + 1], &model[i], (model_len - i) * sizeof(model[0]));
        model_len++;
        memcpy(model[i].f, f, flen);
        model[i].flen = flen;
    }
    memcpy(model[i].v, v, vlen);
    model[i].vlen = vlen;
}

static void model_del_span(size_t lo, size_t hi)
{
    memmove(&model[lo], &model[hi], (model_len - hi) * sizeof(model[0]));
    model_len -= hi - lo;
}

static size_t random_name(char *f, int integers)
{
    size_t len;
    if (integers) {
        len = (size_t)snprintf(f, NAME_MAX, "%d", (int)rng_below(&rng, NAMES) - NAMES / 4);
        return len;
    }
    len = 1 + rng_below(&rng, 3);
    for (size_t i = 0; i < len; i++)
        f[i] = (char)("ab\0\xff"[rng_below(&rng, 4)]);
    return len;
}

static void random_bound(struct lex_bound *b, char *buf)
{
    switch (rng_below(&rng, 6)) {
    case 0:
        b->kind = LEX_BOUND_NEG_INF;
        return;
    case 1:
        b->kind = LEX_BOUND_POS_INF;
        return;
    default:
        b->kind = rng_below(&rng, 2) ? LEX_BOUND_INCL : LEX_BOUND_EXCL;
        b->len = random_name(buf, 0);
        b->ptr = buf;
    }
}

static int elem_is(const struct om_elem *e, const struct item *it, int values)
{
    return bytes_cmp(e->f, e->flen, it->f, it->flen) == 0 &&
           (!values || bytes_cmp(e->v, e->vlen, it->v, it->vlen) == 0);
}

/* Everything the map answers, compared with the model. */
static void compare(const struct omap *m)
{
    const char *why = "";
    struct om_it it;
    struct om_elem e;

    CHECK_MSG(om_check(m, &why) == 0, "%s", why);
    CHECK(om_len(m) == model_len);
    /* Both walks, whole. */
    size_t i = 0;
    for (om_seek(m, 0, &it); om_it_valid(&it); om_next(m, &it), i++) {
        CHECK(i < model_len && it.rank == i);
        om_it_get(m, &it, &e);
        CHECK(elem_is(&e, &model[i], m->values));
    }
    CHECK(i == model_len);
    if (model_len) {
        i = model_len;
        for (om_seek(m, model_len - 1, &it); om_it_valid(&it); om_prev(m, &it)) {
            i--;
            om_it_get(m, &it, &e);
            CHECK(elem_is(&e, &model[i], m->values));
        }
        CHECK(i == 0);
    }
    CHECK(om_seek(m, model_len, &it) < 0);
    /* Lookups and ranks of random names, present or not. */
    for (int k = 0; k < 8; k++) {
        char f[NAME_MAX];
        size_t flen = random_name(f, !m->values && rng_below(&rng, 2));
        int found;
        size_t pos = model_find(f, flen, &found);
        CHECK(om_find(m, f, flen, &it) == found);
        CHECK(it.rank == pos);
        CHECK(om_count_before(m, f, flen, 0) == pos);
        CHECK(om_count_before(m, f, flen, 1) == pos + (size_t)found);
        if (m->values) {
            const char *v;
            size_t vlen;
            CHECK(om_get(m, f, flen, &v, &vlen) == found);
            if (found)
                CHECK(bytes_cmp(v, vlen, model[pos].v, model[pos].vlen) == 0);
        }
        /* A prefix span: the positions whose field starts with f. */
        struct om_span ps = om_prefix_span(m, f, flen);
        size_t lo = pos, hi = pos;
        while (hi < model_len && model[hi].flen >= flen && !memcmp(model[hi].f, f, flen))
            hi++;
        CHECK(ps.lo == lo && ps.hi == hi);
        /* A lex span against the bound rules. */
        char b1[NAME_MAX], b2[NAME_MAX];
        struct lex_bound min, max;
        random_bound(&min, b1);
        random_bound(&max, b2);
        struct om_span s = om_lex_span(m, &min, &max);
        size_t mlo = 0, mhi;
        while (mlo < model_len && !lex_gte_min(model[mlo].f, model[mlo].flen, &min))
            mlo++;
        mhi = mlo;
        while (mhi < model_len && lex_lte_max(model[mhi].f, model[mhi].flen, &max))
            mhi++;
        CHECK((s.hi <= s.lo && mhi == mlo) || (s.lo == mlo && s.hi == mhi));
    }
}

static void run_random(int values)
{
    struct om_limits lim = {.entries = 16, .value = 24, .int_entries = values ? 0 : 40};
    struct omap *m = om_new(values);
    int conversions = 0, was_packed = 1;

    rng = seed;
    model_len = 0;
    for (op = 0; op < RANDOM_OPS; op++) {
        char f[NAME_MAX], v[VALUE_MAX];
        size_t flen = random_name(f, !values && rng_below(&rng, 4) != 0);
        size_t vlen = values ? rng_below(&rng, rng_below(&rng, 8) ? 8 : VALUE_MAX) : 0;
        int found;
        for (size_t k = 0; k < vlen; k++)
            v[k] = (char)('a' + rng_below(&rng, 26));
        size_t pos = model_find(f, flen, &found);
        /* Grow to the tree for a while, then shrink back below half. */
        int grow = (op / 2000) % 2 == 0;
        switch (grow ? rng_below(&rng, 4) : 2 + rng_below(&rng, 6)) {
        case 0:
        case 1:
            CHECK(om_set(&m, f, flen, v, vlen, &lim) == !found);
            model_set(f, flen, v, vlen);
            break;
        case 2:
            CHECK(om_add(&m, f, flen, v, vlen, &lim) == !found);
            if (!found)
                model_set(f, flen, v, vlen);
            break;
        case 3:
        case 4:
        case 5:
        case 6:
            CHECK(om_del(&m, f, flen, &lim) == found);
            if (found)
                model_del_span(pos, pos + 1);
            break;
        default: {
            size_t lo = rng_below(&rng, model_len + 1);
            size_t hi = lo + rng_below(&rng, 4);
            if (hi > model_len)
                hi = model_len;
            om_del_span(&m, lo, hi, &lim);
            model_del_span(lo, hi);
        }
        }
        if (m->packed != was_packed) {
            conversions++;
            was_packed = m->packed;
        }
        compare(m);
    }
    CHECK_MSG(conversions >= 4, "only %d conversions", conversions);
    om_free(m);
    CHECK(mem_used() == 0);
}

static void part_big(void)
{
    struct om_limits lim = {.entries = 128, .value = 64, .int_entries = 512};
    struct omap *m = om_new(0);
    enum { N = 100000 };
    char f[32];
    struct om_it it;
    struct om_elem e;
    const char *why = "";

    rng = seed;
    for (int i = 0; i < N; i++) { /* in order: appends */
        size_t len = (size_t)snprintf(f, sizeof(f), "m:%08d", 2 * i);
        CHECK(om_set(&m, f, len, NULL, 0, &lim) == 1);
    }
    for (int i = 0; i < N; i++) { /* the odd ones at random places */
        size_t len = (size_t)snprintf(f, sizeof(f), "m:%08d", 2 * (int)rng_below(&rng, N) + 1);
        om_set(&m, f, len, NULL, 0, &lim);
    }
    CHECK_MSG(om_check(m, &why) == 0, "%s", why);
    CHECK(!m->packed && strcmp(om_encoding(m), "rbtree") == 0);
    /* Dense enough: chunks near full after in-order appends. */
    CHECK_MSG(om_memory(m) < om_len(m) * 20, "%zu bytes for %zu members", om_memory(m), om_len(m));
    for (size_t k = 0; k < om_len(m); k += 997) {
        CHECK(om_seek(m, k, &it) == 0);
        om_it_get(m, &it, &e);
        CHECK(om_count_before(m, e.f, e.flen, 0) == k);
    }
    while (om_len(m) > 10) {
        size_t k = rng_below(&rng, om_len(m));
        CHECK(om_seek(m, k, &it) == 0);
        om_it_get(m, &it, &e);
        memcpy(f, e.f, e.flen);
        CHECK(om_del(&m, f, e.flen, &lim) == 1);
        if (om_len(m) % 5000 == 0)
            CHECK_MSG(om_check(m, &why) == 0, "%s", why);
    }
    CHECK_MSG(om_check(m, &why) == 0, "%s", why);
    CHECK(m->packed && strcmp(om_encoding(m), "listpack") == 0);
    om_free(m);
    CHECK(mem_used() == 0);
}

static void part_clone(void)
{
    struct om_limits lim = {.entries = 8, .value = 64, .int_entries = 0};
    struct omap *m = om_new(1);
    char f[16];
    const char *why = "", *v;
    size_t vlen;

    for (int i = 0; i < 500; i++) {
        size_t len = (size_t)snprintf(f, sizeof(f), "f%d", i);
        om_set(&m, f, len, f, len, &lim);
    }
    struct omap *c = om_clone(m);
    CHECK(om_check(c, &why) == 0);
    CHECK(om_len(c) == 500 && c->packed == m->packed);
    om_del(&m, "f1", 2, &lim);
    CHECK(om_get(c, "f1", 2, &v, &vlen) == 1 && vlen == 2 && !memcmp(v, "f1", 2));
    CHECK(om_get(m, "f1", 2, &v, &vlen) == 0);
    om_free(m);
    om_free(c);
    CHECK(mem_used() == 0);
}

/* a and b hold the same elements in the same encoding; a passes om_check. */
static void same_maps(const struct omap *a, const struct omap *b)
{
    struct om_it ia, ib;
    struct om_elem ea, eb;
    const char *why = "";
    CHECK_MSG(om_check(a, &why) == 0, "%s", why);
    CHECK(om_len(a) == om_len(b) && a->packed == b->packed);
    om_seek(a, 0, &ia);
    om_seek(b, 0, &ib);
    for (; om_it_valid(&ia); om_next(a, &ia), om_next(b, &ib)) {
        om_it_get(a, &ia, &ea);
        om_it_get(b, &ib, &eb);
        CHECK(ea.flen == eb.flen && !memcmp(ea.f, eb.f, ea.flen));
        CHECK(ea.vlen == eb.vlen && !memcmp(ea.v, eb.v, ea.vlen));
    }
}

static void part_append(void)
{
    struct om_limits small = {.entries = 16, .value = 8, .int_entries = 0};
    struct om_limits huge = {.entries = 100000, .value = 64, .int_entries = 0};
    const struct om_limits *lims[] = {&small, &huge};
    char f[32];
    const char *why = "";

    for (int k = 0; k < 2; k++) {
        struct omap *a = om_new(1), *b = om_new(1);
        for (int i = 0; i < 20000; i++) {
            size_t len = (size_t)snprintf(f, sizeof(f), "f:%06d", i);
            om_append(&a, f, len, f, i % 50 == 0 ? len : 2, lims[k]);
            om_set(&b, f, len, f, i % 50 == 0 ? len : 2, lims[k]);
        }
        same_maps(a, b);
        CHECK(a->packed == (k == 1));
        om_free(a);
        om_free(b);
    }
    /* Under the thresholds a map built in order stays packed. */
    struct omap *s = om_new(0);
    for (int i = 0; i < 100; i++) {
        size_t len = (size_t)snprintf(f, sizeof(f), "%d", 100 + i);
        om_append(&s, f, len, NULL, 0, &huge);
    }
    CHECK(om_check(s, &why) == 0 && s->packed && !strcmp(om_encoding(s), "intset"));
    om_free(s);
    CHECK(mem_used() == 0);
}

/* Two equal maps, spans deleted from one by om_cut_span and from the other
 * by om_del_span: same elements and encoding after each; the cut part is a
 * valid map of consecutive elements of the span; fields put back at random
 * keep the map big. */
static void part_cut(void)
{
    struct om_limits lim = {.entries = 128, .value = 64, .int_entries = 0};
    enum { N = 30000 };
    struct omap *a = om_new(1), *b = om_new(1);
    char f[32], first[32];
    const char *why = "";
    int cuts = 0;

    rng = seed;
    for (op = 0; op < 300; op++) {
        for (int k = 0; k < (op % 50 == 0 ? N : 300); k++) {
            size_t len = (size_t)snprintf(f, sizeof(f), "f:%06d", (int)rng_below(&rng, N));
            size_t vlen = 1 + rng_below(&rng, 30);
            om_set(&a, f, len, f, vlen, &lim);
            om_set(&b, f, len, f, vlen, &lim);
        }
        size_t n = om_len(a), lo = rng_below(&rng, n + 1);
        size_t hi = lo + rng_below(&rng, op % 7 == 0 ? 3000 : n - lo + 1);
        if (op % 11 == 0) { /* all but a few: packed again */
            lo = rng_below(&rng, 40);
            hi = n - rng_below(&rng, 20);
        }
        if (hi > n)
            hi = n;
        struct om_it it;
        struct om_elem e;
        size_t flen = 0;
        if (hi > lo) {
            om_seek(a, lo, &it);
            om_it_get(a, &it, &e);
            memcpy(first, e.f, e.flen);
            flen = e.flen;
        }
        struct omap *cut = om_cut_span(&a, lo, hi, &lim);
        om_del_span(&b, lo, hi, &lim);
        same_maps(a, b);
        if (cut) {
            cuts++;
            CHECK_MSG(om_check(cut, &why) == 0, "%s", why);
            CHECK(om_len(cut) >= OM_CUT_MIN && om_len(cut) <= hi - lo && !cut->packed);
            /* Its elements sort at or after the span's first. */
            om_seek(cut, 0, &it);
            om_it_get(cut, &it, &e);
            CHECK(memcmp(e.f, first, flen < e.flen ? flen : e.flen) >= 0);
            om_free(cut);
        }
    }
    CHECK_MSG(cuts >= 20, "only %d cuts", cuts);
    om_free(a);
    om_free(b);
    CHECK(mem_used() == 0);
}

int main(int argc, char **argv)
{
    seed = check_seed((uint64_t)time(NULL));
    check_report_op(&op);
    for (int i = 1; i <= argc - (argc > 1); i++) {
        const char *part = argc > 1 ? argv[i] : NULL;
        if (!part || !strcmp(part, "hash"))
            run_random(1);
        if (!part || !strcmp(part, "set"))
            run_random(0);
        if (!part || !strcmp(part, "big"))
            part_big();
        if (!part || !strcmp(part, "clone"))
            part_clone();
        if (!part || !strcmp(part, "append"))
            part_append();
        if (!part || !strcmp(part, "cut"))
            part_cut();
    }
    puts("ok");
    return 0;
}
