/*
 * test_xstream.c - the stream (server/data/xstream.[ch]) against an array
 * model: random appends, deletes and trims (exact MAXLEN and MINID, and "~"
 * checked to remove whole nodes only), xs_check after every change, the
 * counters compared after each, clones and freeing in slices. SEED=<n>
 * replays a run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "xstream.h"

#define OPS 20000
#define MAX_ENTRIES 4096

struct model_entry {
    struct xs_id id;
    unsigned value;
    uint64_t node; /* as xs_append chose it */
};

static struct model_entry model[MAX_ENTRIES];
static size_t model_len;
static uint64_t rng;
static unsigned long op;

static void check_stream(const struct xstream *s)
{
    const char *why = NULL;
    CHECK_MSG(xs_check(s, &why) == 0, "xs_check: %s", why);
    CHECK(xs_len(s) == model_len);
    for (size_t i = 0; i < model_len; i += 1 + rng_below(&rng, 16)) {
        struct xs_entry e;
        struct xs_str f, v;
        CHECK(xs_at(s, i, &e) == 0);
        CHECK(xs_id_cmp(&e.id, &model[i].id) == 0);
        CHECK(e.nfields == 1);
        struct xs_strs w = xs_strs_of(&e);
        CHECK(xs_next_str(&w, &f) == 0 && xs_next_str(&w, &v) == 0);
        char want[16];
        int n = snprintf(want, sizeof(want), "%u", model[i].value);
        CHECK(f.len == 1 && f.ptr[0] == 'f' && v.len == (size_t)n && !memcmp(v.ptr, want, v.len));
        CHECK(xs_next_str(&w, &f) < 0);
    }
    if (model_len)
        CHECK(xs_id_cmp(&s->first_id, &model[0].id) == 0);
}

static void model_remove_prefix(size_t n)
{
    memmove(model, model + n, (model_len - n) * sizeof(model[0]));
    model_len -= n;
}

static void do_append(struct xstream *s, const struct xs_limits *lim)
{
    if (model_len == MAX_ENTRIES)
        return;
    struct xs_id id = s->last_id;
    if (rng_below(&rng, 3))
        id.seq += 1 + rng_below(&rng, 3);
    else
        id = (struct xs_id){id.ms + 1 + rng_below(&rng, 5), rng_below(&rng, 3)};
    unsigned value = (unsigned)rng_below(&rng, 1000000);
    char buf[16];
    struct xs_str pair[2] = {{"f", 1}, {buf, (size_t)snprintf(buf, sizeof(buf), "%u", value)}};
    uint64_t added = s->entries_added;
    xs_append(s, &id, pair, 1, lim);
    struct xs_entry e;
    CHECK(xs_at(s, xs_len(s) - 1, &e) == 0);
    model[model_len++] = (struct model_entry){id, value, e.node};
    CHECK(s->entries_added == added + 1 && xs_id_cmp(&s->last_id, &id) == 0);
}

static void do_delete(struct xstream *s)
{
    struct xs_id id = {rng_below(&rng, s->last_id.ms + 2), rng_below(&rng, 4)};
    size_t at = model_len;
    if (model_len && rng_below(&rng, 2)) {
        at = rng_below(&rng, model_len);
        id = model[at].id;
    } else {
        for (size_t i = 0; i < model_len; i++)
            if (xs_id_cmp(&model[i].id, &id) == 0)
                at = i;
    }
    struct xs_id max_before = s->max_deleted;
    CHECK(xs_delete(s, &id) == (at < model_len));
    if (at < model_len) {
        memmove(model + at, model + at + 1, (model_len - at - 1) * sizeof(model[0]));
        model_len--;
        CHECK(xs_id_cmp(&s->max_deleted, &id) >= 0);
        CHECK(xs_id_cmp(&s->max_deleted, &max_before) >= 0);
    }
    if (!model_len)
        CHECK(s->first_id.ms == 0 && s->first_id.seq == 0);
}

/* Exact trims against the model; "~" checked to stop at a node's start
 * and to keep at least the threshold. */
static void do_trim(struct xstream *s)
{
    struct xs_trim t = {0};
    t.minid = (int)rng_below(&rng, 2);
    t.approx = rng_below(&rng, 3) == 0;
    size_t want;
    if (t.minid) {
        t.min = (struct xs_id){rng_below(&rng, s->last_id.ms + 2), rng_below(&rng, 3)};
        want = 0;
        while (want < model_len && xs_id_cmp(&model[want].id, &t.min) < 0)
            want++;
    } else {
        t.maxlen = rng_below(&rng, model_len + 3);
        want = model_len > t.maxlen ? model_len - t.maxlen : 0;
    }
    size_t got = xs_trim(s, &t);
    if (!t.approx) {
        CHECK(got == want);
    } else {
        CHECK(got <= want);
        /* What is left starts a node: the last entry removed was another's. */
        if (got && got < model_len)
            CHECK(model[got - 1].node != model[got].node);
    }
    model_remove_prefix(got);
}

static void run_random(void)
{
    struct xstream *s = xs_new();
    struct xs_limits lim = {.node_bytes = 4096, .node_entries = 1 + rng_below(&rng, 20)};
    model_len = 0;
    for (op = 0; op < OPS; op++) {
        unsigned r = (unsigned)rng_below(&rng, 100);
        if (r < 60)
            do_append(s, &lim);
        else if (r < 85)
            do_delete(s);
        else
            do_trim(s);
        check_stream(s);
        if (op % 1000 == 999) {
            struct xstream *c = xs_clone(s);
            check_stream(c);
            CHECK(c->entries_added == s->entries_added && c->node == s->node);
            xs_free(c);
        }
    }
    xs_free(s);
}

/* Trimming with "~" by count removes whole nodes: with nodes of 10 and 95
 * entries, MAXLEN ~ 50 leaves 50 only where a node boundary falls. */
static void part_nodes(void)
{
    struct xstream *s = xs_new();
    struct xs_limits lim = {.node_bytes = 4096, .node_entries = 10};
    char buf[16];
    for (unsigned i = 1; i <= 95; i++) {
        struct xs_id id = {i, 0};
        struct xs_str pair[2] = {{"f", 1}, {buf, (size_t)snprintf(buf, sizeof(buf), "%u", i)}};
        xs_append(s, &id, pair, 1, &lim);
    }
    CHECK(xs_nodes(s) == 10);
    struct xs_trim t = {.maxlen = 50, .approx = 1};
    CHECK(xs_trim(s, &t) == 40); /* four whole nodes; a fifth would leave 45 */
    CHECK(xs_len(s) == 55 && xs_nodes(s) == 6);
    t.limit = 15; /* one node fits the limit, two do not */
    t.maxlen = 0;
    CHECK(xs_trim(s, &t) == 10);
    t = (struct xs_trim){.maxlen = 3};
    CHECK(xs_trim(s, &t) == 42);
    const char *why;
    CHECK(xs_check(s, &why) == 0);
    xs_free(s);
}

int main(int argc, char **argv)
{
    rng = check_seed((uint64_t)time(NULL));
    check_report_op(&op);
    const char *part = argc > 1 ? argv[1] : NULL;
    if (!part || !strcmp(part, "random"))
        run_random();
    if (!part || !strcmp(part, "nodes"))
        part_nodes();
    puts("ok");
    return 0;
}
