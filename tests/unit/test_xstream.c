/*
 * test_xstream.c - the stream (server/data/xstream.[ch]) against an array
 * model: random appends, deletes and trims (exact MAXLEN and MINID, and "~"
 * checked to remove whole nodes only), xs_check after every change, the
 * counters compared after each, clones and freeing in slices. SEED=<n>
 * replays a run.
 *
 * The packed nodes' edge cases: entries of the node master's field names
 * and of their own (another count, order or name), empty and long values
 * (lengths of several varint bytes), ms deltas of 2^62 and more (the
 * head's "big" form), deletes of a node's first, middle and last entries,
 * trims that cut a node; walks forward and back from random ranks, ranks
 * of IDs inside and between nodes, the node count, and a rebuild through
 * xs_load_entry (a snapshot's path) compared with the original.
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
    unsigned shape; /* which names, how many pairs, how long the values */
    uint64_t node;  /* as xs_append chose it */
};

#define MAX_PAIRS 3
#define LONG_VALUE 300

/* The pairs of an entry of shape and value, in bufs: shape 0 to 5 use the
 * names f, g, h (1 to 3 of them; most entries), 6 "g" then "f", 7 one
 * name of 200 bytes; value % 11 == 0 makes the first value long, % 13 == 0
 * empty. */
static size_t make_pairs(unsigned shape, unsigned value, char bufs[][LONG_VALUE + 16],
                         struct xs_str *pairs)
{
    static char long_name[200];
    static const char *names = "fgh";
    memset(long_name, 'n', sizeof(long_name));
    size_t npairs = shape < 6 ? 1 + shape % MAX_PAIRS : shape == 6 ? 2 : 1;
    for (size_t i = 0; i < npairs; i++) {
        if (shape == 6)
            pairs[2 * i] = (struct xs_str){i ? "f" : "g", 1};
        else if (shape == 7)
            pairs[2 * i] = (struct xs_str){long_name, sizeof(long_name)};
        else
            pairs[2 * i] = (struct xs_str){names + i, 1};
        size_t len = 0;
        if (i == 0 && value % 11 == 0) {
            memset(bufs[i], 'v', LONG_VALUE);
            len = LONG_VALUE;
        }
        if (i > 0 || value % 13)
            len += (size_t)snprintf(bufs[i] + len, 16, "%u", value + (unsigned)i);
        pairs[2 * i + 1] = (struct xs_str){bufs[i], len};
    }
    return npairs;
}

/* Whether e holds model entry m's pairs. */
static int entry_matches(const struct xs_entry *e, const struct model_entry *m)
{
    char bufs[MAX_PAIRS][LONG_VALUE + 16];
    struct xs_str want[2 * MAX_PAIRS], got;
    size_t npairs = make_pairs(m->shape, m->value, bufs, want);
    if (xs_id_cmp(&e->id, &m->id) != 0 || e->nfields != npairs || e->node != m->node)
        return 0;
    struct xs_strs w = xs_strs_of(e);
    for (size_t i = 0; i < 2 * npairs; i++)
        if (xs_next_str(&w, &got) < 0 || got.len != want[i].len ||
            (got.len && memcmp(got.ptr, want[i].ptr, got.len)))
            return 0;
    return xs_next_str(&w, &got) < 0;
}

static struct model_entry model[MAX_ENTRIES];
static size_t model_len;
static uint64_t rng;
static unsigned long op;

static size_t model_nodes(void)
{
    size_t n = 0;
    for (size_t i = 0; i < model_len; i++)
        n += i == 0 || model[i].node != model[i - 1].node;
    return n;
}


static void check_stream(const struct xstream *s)
{
    const char *why = NULL;
    CHECK_MSG(xs_check(s, &why) == 0, "xs_check: %s", why);
    CHECK(xs_len(s) == model_len);
    CHECK(xs_nodes(s) == model_nodes());
    struct xs_entry e;
    for (size_t i = 0; i < model_len; i += 1 + rng_below(&rng, 16)) {
        CHECK(xs_at(s, i, &e) == 0);
        CHECK(entry_matches(&e, &model[i]));
    }
    CHECK(xs_at(s, model_len, &e) < 0);
    if (model_len)
        CHECK(xs_id_cmp(&s->first_id, &model[0].id) == 0);
    if (!model_len)
        return;
    /* A walk forward and one back from random ranks. */
    struct xs_it it;
    size_t k = rng_below(&rng, model_len);
    CHECK(xs_seek(s, k, &it) == 0);
    for (size_t i = k; i < model_len && i < k + 40; i++, xs_next(s, &it)) {
        CHECK(xs_it_valid(&it) && it.rank == i);
        xs_entry_of(s, &it, &e);
        CHECK(entry_matches(&e, &model[i]));
    }
    if (k + 40 >= model_len)
        CHECK(!xs_it_valid(&it));
    k = rng_below(&rng, model_len);
    CHECK(xs_seek(s, k, &it) == 0);
    for (size_t i = k + 1; i-- > 0 && i + 40 > k; xs_prev(s, &it)) {
        CHECK(xs_it_valid(&it) && it.rank == i);
        xs_entry_of(s, &it, &e);
        CHECK(entry_matches(&e, &model[i]));
    }
    /* Ranks of an entry's ID and of the IDs just around it. */
    k = rng_below(&rng, model_len);
    struct xs_id id = model[k].id;
    CHECK(xs_count_below(s, &id) == k);
    if (!xs_id_incr(&id))
        CHECK(xs_count_below(s, &id) == k + 1);
    id = model[k].id;
    if (!xs_id_decr(&id))
        CHECK(xs_count_below(s, &id) == k - (k && xs_id_cmp(&model[k - 1].id, &id) == 0));
}

/* A copy through xs_load_entry, entry by entry with their nodes, as a
 * snapshot loads; an ID or node out of order is refused. */
static void check_reload(const struct xstream *s)
{
    struct xstream *c = xs_new();
    struct xs_it it;
    struct xs_entry e;
    struct xs_str pairs[2 * MAX_PAIRS];
    for (xs_seek(s, 0, &it); xs_it_valid(&it); xs_next(s, &it)) {
        xs_entry_of(s, &it, &e);
        struct xs_strs w = xs_strs_of(&e);
        size_t n = 0;
        while (n < 2 * MAX_PAIRS && xs_next_str(&w, &pairs[n]) == 0)
            n++;
        CHECK(xs_load_entry(c, &e.id, e.node, pairs, n / 2) == 0);
    }
    if (model_len) {
        struct model_entry *m = &model[model_len - 1];
        CHECK(xs_load_entry(c, &m->id, m->node, pairs, 1) < 0);
        if (m->node) {
            struct xs_id above = m->id;
            if (!xs_id_incr(&above))
                CHECK(xs_load_entry(c, &above, m->node - 1, pairs, 1) < 0);
        }
    }
    c->first_id = s->first_id;
    c->last_id = s->last_id;
    c->entries_added = s->entries_added;
    check_stream(c);
    xs_free(c);
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
    unsigned r = (unsigned)rng_below(&rng, 100);
    if (r < 60 && id.seq < UINT64_MAX - 3)
        id.seq += 1 + rng_below(&rng, 3);
    else if (r < 98 || id.ms >= UINT64_C(1) << 62)
        id = (struct xs_id){id.ms + 1 + rng_below(&rng, r < 80 ? 5 : 300), rng_below(&rng, 3)};
    else /* a delta past the head's 62 bits */
        id = (struct xs_id){id.ms + (UINT64_C(1) << 62) + rng_below(&rng, 5), UINT64_MAX - r % 2};
    unsigned value = (unsigned)rng_below(&rng, 1000000);
    unsigned shape = rng_below(&rng, 4) ? 0 : (unsigned)rng_below(&rng, 8);
    char bufs[MAX_PAIRS][LONG_VALUE + 16];
    struct xs_str pairs[2 * MAX_PAIRS];
    size_t npairs = make_pairs(shape, value, bufs, pairs);
    uint64_t added = s->entries_added;
    xs_append(s, &id, pairs, npairs, lim);
    struct xs_entry e;
    CHECK(xs_at(s, xs_len(s) - 1, &e) == 0);
    model[model_len++] = (struct model_entry){id, value, shape, e.node};
    CHECK(model_len == 1 || e.node >= model[model_len - 2].node);
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
    /* Small nodes, so deletes and trims meet node boundaries often; now and
     * then no entry limit, so nodes close by bytes. */
    struct xs_limits lim = {.node_bytes = 4096, .node_entries = 1 + rng_below(&rng, 20)};
    if (rng_below(&rng, 4) == 0)
        lim = (struct xs_limits){.node_bytes = 1 + rng_below(&rng, 8192), .node_entries = 0};
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
            check_reload(s);
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
