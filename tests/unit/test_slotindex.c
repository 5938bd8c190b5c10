/*
 * test_slotindex.c - the per-slot key index (server/data/slotindex.h)
 * against a reference model, through the keyspace that feeds it.
 *
 * Owns: the model, a fixed universe of keys (a third of them under five hash
 * tags, so a few slots hold hundreds of keys and their sets grow, shrink
 * and move; the rest spread over many slots) with, per database, whether
 * each is present and its deadline; and per slot the number of keys present.
 *
 * Parts (each its own process, as the index's switch is for the process):
 *   off     the same random operations with the index never enabled: the
 *           keyspace builds no index (ks_check fails if db->slots is set) and
 *           every slot counts 0.
 *   random  ks_slots_enable, then random inserts, overwrites and resizes
 *           with values of other sizes (entries that move), deletes,
 *           deadlines set and removed, active and lazy expiry, renames
 *           within and across dbs, walks that delete some of what they
 *           visit, flushes, SWAPDB and snapshot round trips (snap_save,
 *           snap_load into a new keyspace). Every CHECK_EVERY operations,
 *           and after flushes, swaps and reloads: ks_check (which checks the
 *           index's invariants and that it holds exactly the tree's entries),
 *           every slot's count, and the key set of every slot of the
 *           universe by a walk.
 *   edge    one slot of 20,000 keys walked and emptied, a walk that stops,
 *           the set's memory given back.
 *   cut     range deletion (ks_cut) in cluster mode: a range over two tags is
 *           refused; a range of one tag leaves the tree at once while its
 *           entries stay in the slot's set, uncounted and not walked, until
 *           ks_cut_step frees them (ks_check between slices); a key cut and
 *           set again counts once; pending cuts go with a flush and with a
 *           detached db.
 * Every part ends with mem_used() back where it started. The seed is printed
 * as SEED=<n>; SEED=<n> in the environment replays it.
 *
 * usage: test_slotindex off|random|edge|cut
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "keyslot.h"
#include "keyspace.h"
#include "mem.h"
#include "slotindex.h"
#include "snapshot.h"

#define DBS 3
#define NKEYS 3000
#define TAGS 5
#define OPS 60000
#define CHECK_EVERY 500
#define START_MS 4000000000000LL /* year 2096: loading keeps every deadline set from it */

static unsigned long test_op;
static uint64_t rng;

static char keys[NKEYS][24];
static size_t klens[NKEYS];
static unsigned key_slot[NKEYS];

struct model_db {
    unsigned char present[NKEYS];
    int64_t when[NKEYS]; /* -1: none */
    unsigned count[CLUSTER_SLOTS];
};
static struct model_db model[DBS];
static int64_t now = START_MS;
static char value_buf[4096];
static char snap_path[300];

static void make_universe(void)
{
    for (int i = 0; i < NKEYS; i++) {
        int n = i % 3 == 0 ? snprintf(keys[i], sizeof(keys[i]), "{tag%d}:%d", i % TAGS, i)
                           : snprintf(keys[i], sizeof(keys[i]), "k:%d", i);
        klens[i] = (size_t)n;
        key_slot[i] = key_hash_slot(keys[i], klens[i]);
    }
    for (size_t i = 0; i < sizeof(value_buf); i++)
        value_buf[i] = (char)('a' + i % 26);
}

static void model_add(int d, int k, int64_t when)
{
    if (!model[d].present[k])
        model[d].count[key_slot[k]]++;
    model[d].present[k] = 1;
    model[d].when[k] = when;
}

static void model_del(int d, int k)
{
    CHECK(model[d].present[k]);
    model[d].present[k] = 0;
    model[d].count[key_slot[k]]--;
}

/* The universe's number of e's key: what follows its last ':'. */
static int key_index(const struct ks_entry *e)
{
    const char *key = ks_key(e);
    size_t at = ks_klen(e);
    int k = 0, scale = 1;
    while (at > 0 && key[at - 1] != ':') {
        k += (key[--at] - '0') * scale;
        scale *= 10;
    }
    CHECK_MSG(k < NKEYS && klens[k] == ks_klen(e) && !memcmp(keys[k], key, klens[k]),
              "walk gave a key outside the universe");
    return k;
}

/* Sizes that cross the entry's allocation classes both ways: shrinking
 * from past 256 bytes to under half moves the entry, growing moves it. */
static size_t random_vlen(void)
{
    switch (rng_below(&rng, 4)) {
    case 0: return rng_below(&rng, 16);
    case 1: return 16 + rng_below(&rng, 100);
    case 2: return 200 + rng_below(&rng, 600);
    default: return 1000 + rng_below(&rng, sizeof(value_buf) - 1000);
    }
}

/* A walk's visits: each key once, and the ones fn deleted. */
struct visit {
    int db;
    unsigned char seen[NKEYS];
    int delete_odds; /* delete one in delete_odds visited (0: none) */
    size_t stop_after; /* stop after this many calls (0: never) */
    size_t calls;
};

static int visit_cb(struct db *db, struct ks_entry *e, void *arg)
{
    struct visit *v = arg;
    int k = key_index(e);
    CHECK_MSG(!v->seen[k], "walk visited %s twice", keys[k]);
    v->seen[k] = 1;
    v->calls++;
    if (v->delete_odds && rng_below(&rng, (size_t)v->delete_odds) == 0) {
        ks_delete(db, e);
        model_del(v->db, k);
        v->seen[k] = 2;
    }
    return v->stop_after && v->calls == v->stop_after;
}

/* Walks slot of db (deleting some when delete_odds) and checks it visited
 * exactly the model's keys of that slot as they were before it. */
static void walk_and_compare(struct keyspace *ks, int d, unsigned slot, int delete_odds)
{
    static struct visit v;
    memset(&v, 0, sizeof(v));
    v.db = d;
    v.delete_odds = delete_odds;
    unsigned char before[NKEYS];
    for (int k = 0; k < NKEYS; k++)
        before[k] = key_slot[k] == slot && model[d].present[k];
    size_t calls = ks_slot_walk(&ks->dbs[d], slot, visit_cb, &v);
    CHECK(calls == v.calls);
    for (int k = 0; k < NKEYS; k++)
        CHECK_MSG((v.seen[k] != 0) == before[k], "db %d slot %u: %s %s", d, slot, keys[k],
                  before[k] ? "not visited" : "visited but absent");
    CHECK(ks_slot_count(&ks->dbs[d], slot) == model[d].count[slot]);
}

static void compare_all(struct keyspace *ks, int enabled)
{
    for (int d = 0; d < DBS; d++) {
        const char *why = NULL;
        CHECK_MSG(ks_check(&ks->dbs[d], &why) == 0, "db %d: ks_check: %s", d, why);
        for (unsigned s = 0; s < CLUSTER_SLOTS; s++)
            CHECK_MSG(ks_slot_count(&ks->dbs[d], s) == (enabled ? model[d].count[s] : 0),
                      "db %d slot %u: count %zu, model %u", d, s, ks_slot_count(&ks->dbs[d], s),
                      model[d].count[s]);
        if (!enabled) {
            CHECK(ks->dbs[d].slots == NULL && ks_slots_memory(&ks->dbs[d]) == 0);
            continue;
        }
        /* One walk per slot of the universe, each key seen once and in
         * its slot; then exactly the present keys seen. */
        static unsigned char walked[CLUSTER_SLOTS];
        static struct visit v;
        memset(walked, 0, sizeof(walked));
        memset(&v, 0, sizeof(v));
        v.db = d;
        for (int k = 0; k < NKEYS; k++) {
            unsigned s = key_slot[k];
            if (walked[s])
                continue;
            walked[s] = 1;
            size_t before = v.calls;
            CHECK(ks_slot_walk(&ks->dbs[d], s, visit_cb, &v) == v.calls - before);
            CHECK(v.calls - before == model[d].count[s]);
        }
        for (int k = 0; k < NKEYS; k++)
            CHECK_MSG(v.seen[k] == model[d].present[k], "db %d: %s %s by the walks", d, keys[k],
                      v.seen[k] ? "seen but absent" : "present but not seen");
    }
}

/* Saves ks and loads it into a new keyspace, which replaces it. Keys due
 * by now go first (the model's and the keyspace's), so both agree on what
 * the file holds. */
static struct keyspace *snapshot_roundtrip(struct keyspace *ks)
{
    static const struct snap_limits limits = {{128, 64, 0}, {128, 64, 512}, {-2}, 0};
    char err[512];
    int absent = 0;
    CHECK_MSG(snap_save(ks, snap_path, now, err, sizeof(err)) == 0, "%s", err);
    struct keyspace *loaded = ks_new(DBS);
    CHECK_MSG(snap_load(loaded, snap_path, &limits, &absent, err, sizeof(err)) >= 0 && !absent,
              "%s", err);
    ks_free(ks);
    return loaded;
}

static int random_key(void)
{
    return (int)rng_below(&rng, NKEYS);
}

static struct keyspace *random_op(struct keyspace *ks, int enabled)
{
    int d = (int)rng_below(&rng, DBS), k = random_key();
    struct db *db = &ks->dbs[d];
    struct ks_entry *e = ks_find(db, keys[k], klens[k]);
    CHECK_MSG((e != NULL) == model[d].present[k], "db %d: %s presence differs", d, keys[k]);
    unsigned r = (unsigned)rng_below(&rng, 1000);

    if (r < 300) { /* create or overwrite */
        int keep = (int)rng_below(&rng, 2);
        ks_set_string(db, keys[k], klens[k], value_buf, random_vlen(), keep);
        model_add(d, k, keep && e ? model[d].when[k] : -1);
    } else if (r < 400) { /* resize in place or by a move */
        if (e) {
            size_t old = ks_slen(e), len = random_vlen();
            e = ks_string_resize(db, e, len);
            if (len > old) /* the new bytes are the caller's to write */
                memset(ks_str(e) + old, 'x', len - old);
        }
    } else if (r < 550) {
        if (e) {
            ks_delete(db, e);
            model_del(d, k);
        }
    } else if (r < 650) { /* a deadline: the entry grows by its pointer, may move */
        if (e) {
            int64_t when = now + (int64_t)rng_below(&rng, 200);
            ks_set_expire(db, e, when);
            model[d].when[k] = when;
        }
    } else if (r < 690) {
        if (e) {
            ks_persist(db, e);
            model[d].when[k] = -1;
        }
    } else if (r < 760) { /* time passes; active expiry */
        now += (int64_t)rng_below(&rng, 60);
        ks_expire_due(db, now, SIZE_MAX);
        for (int j = 0; j < NKEYS; j++)
            if (model[d].present[j] && model[d].when[j] >= 0 && model[d].when[j] <= now)
                model_del(d, j);
    } else if (r < 830) { /* lazy expiry */
        ks_lookup(db, keys[k], klens[k], now);
        if (e && model[d].when[k] >= 0 && model[d].when[k] <= now)
            model_del(d, k);
    } else if (r < 900) { /* RENAME / MOVE: to an absent key, here or in another db */
        int d2 = (int)rng_below(&rng, DBS), k2 = random_key();
        if (e && !model[d2].present[k2]) {
            ks_move(db, e, &ks->dbs[d2], keys[k2], klens[k2]);
            model_add(d2, k2, model[d].when[k]);
            model_del(d, k);
        }
    } else if (r < 960) { /* resharding: walk a slot, deleting some keys */
        if (enabled)
            walk_and_compare(ks, d, key_slot[k], 1 + (int)rng_below(&rng, 3));
    } else if (r < 970) { /* a walk that stops early visits what it says */
        if (enabled) {
            static struct visit v;
            memset(&v, 0, sizeof(v));
            v.stop_after = 1 + rng_below(&rng, 5);
            size_t calls = ks_slot_walk(db, key_slot[k], visit_cb, &v);
            size_t expect = model[d].count[key_slot[k]];
            CHECK(calls == (expect < v.stop_after ? expect : v.stop_after));
        }
    } else if (r < 975) {
        ks_flush(db);
        for (int j = 0; j < NKEYS; j++)
            if (model[d].present[j])
                model_del(d, j);
        compare_all(ks, enabled);
    } else if (r < 985) { /* SWAPDB */
        int d2 = (int)rng_below(&rng, DBS);
        ks_swap(db, &ks->dbs[d2]);
        struct model_db tmp = model[d];
        model[d] = model[d2];
        model[d2] = tmp;
        compare_all(ks, enabled);
    } else if (r < 988) {
        for (int i = 0; i < DBS; i++) {
            ks_expire_due(&ks->dbs[i], now, SIZE_MAX);
            for (int j = 0; j < NKEYS; j++)
                if (model[i].present[j] && model[i].when[j] >= 0 && model[i].when[j] <= now)
                    model_del(i, j);
        }
        ks = snapshot_roundtrip(ks);
        compare_all(ks, enabled);
    } else {
        ks_lookup(db, keys[k], klens[k], now); /* a read */
        if (e && model[d].when[k] >= 0 && model[d].when[k] <= now)
            model_del(d, k);
    }
    return ks;
}

static void test_random(int enabled)
{
    size_t mem0 = mem_used();
    rng = check_seed((uint64_t)time(NULL));
    check_report_op(&test_op);
    memset(model, 0, sizeof(model));
    if (enabled)
        ks_slots_enable();
    CHECK(ks_slots_enabled() == enabled);
    struct keyspace *ks = ks_new(DBS);
    for (test_op = 0; test_op < OPS; test_op++) {
        ks = random_op(ks, enabled);
        if (test_op % CHECK_EVERY == 0)
            compare_all(ks, enabled);
    }
    compare_all(ks, enabled);
    ks_free(ks);
    CHECK_MSG(mem_used() == mem0, "leak: %zu bytes", mem_used() - mem0);
}

/* Deletes every key it visits, as a node does when it loses a slot. */
static int delete_cb(struct db *db, struct ks_entry *e, void *arg)
{
    (*(size_t *)arg)++;
    ks_delete(db, e);
    return 0;
}

static int stop_cb(struct db *db, struct ks_entry *e, void *arg)
{
    (void)db, (void)e;
    return ++*(size_t *)arg == 10;
}

static void test_edge(void)
{
    size_t mem0 = mem_used();
    enum { BIG = 20000 };
    ks_slots_enable();
    struct keyspace *ks = ks_new(1);
    struct db *db = &ks->dbs[0];
    const char *why = NULL;
    unsigned slot = key_hash_slot("{big}", 5);
    char k[32];
    CHECK(ks_slot_count(db, slot) == 0 && ks_slot_count(db, CLUSTER_SLOTS) == 0);
    CHECK(ks_slot_walk(db, CLUSTER_SLOTS, stop_cb, &(size_t){0}) == 0);
    size_t spread_in_slot = 0; /* of the spread keys, those that share the slot */
    for (int i = 0; i < BIG; i++) {
        int n = snprintf(k, sizeof(k), "{big}%d", i);
        ks_set_string(db, k, (size_t)n, "v", 1, 0);
        ks_set_string(db, k + 5, (size_t)n - 5, "v", 1, 0); /* spread over other slots */
        spread_in_slot += key_hash_slot(k + 5, (size_t)n - 5) == slot;
    }
    const size_t in_slot = BIG + spread_in_slot;
    CHECK(ks_slot_count(db, slot) == in_slot);
    CHECK_MSG(ks_check(db, &why) == 0, "%s", why);
    size_t with_big = ks_slots_memory(db);
    /* Sets grow by half and are sized to the allocator's blocks: 20,000
     * pointers take at most 160,000 / 0.5 bytes. */
    CHECK(ks_slots_memory(db) > (size_t)BIG * 8);

    size_t calls = 0;
    CHECK(ks_slot_walk(db, slot, stop_cb, &calls) == 10 && calls == 10);
    CHECK(ks_slot_count(db, slot) == in_slot);

    calls = 0;
    CHECK(ks_slot_walk(db, slot, delete_cb, &calls) == in_slot && calls == in_slot);
    CHECK(ks_slot_count(db, slot) == 0 && db->slots->slot[slot].cell == NULL);
    CHECK(ks_slots_memory(db) < with_big - (size_t)BIG * 8);
    CHECK(ks_count(db) == 2 * BIG - in_slot);
    CHECK_MSG(ks_check(db, &why) == 0, "%s", why);

    ks_flush(db);
    CHECK(db->slots == NULL && ks_slots_memory(db) == 0);
    ks_free(ks);
    CHECK_MSG(mem_used() == mem0, "leak: %zu bytes", mem_used() - mem0);
}

/* Counts the walk's calls into *arg and checks none is a cut entry. */
static int count_live_cb(struct db *db, struct ks_entry *e, void *arg)
{
    CHECK(!ks_entry_cut(db, e));
    ++*(size_t *)arg;
    return 0;
}

/* db holds "{cut}%05d" for i < n, each spread key "%d" and "{cut}" itself;
 * returns how many keys the slot of "{cut}" holds. */
static size_t cut_fill(struct db *db, int n)
{
    unsigned slot = key_hash_slot("{cut}", 5);
    size_t in_slot = 1;
    char k[32];
    ks_set_string(db, "{cut}", 5, "v", 1, 0);
    for (int i = 0; i < n; i++) {
        int len = snprintf(k, sizeof(k), "{cut}%05d", i);
        ks_set_string(db, k, (size_t)len, "v", 1, 0);
        len = snprintf(k, sizeof(k), "%d", i);
        ks_set_string(db, k, (size_t)len, "v", 1, 0);
        in_slot += 1 + (key_hash_slot(k, (size_t)len) == slot);
    }
    return in_slot;
}

static void test_cut(void)
{
    size_t mem0 = mem_used();
    enum { N = 5000, CUT = 4000 };
    ks_slots_enable();
    struct keyspace *ks = ks_new(1);
    struct db *db = &ks->dbs[0];
    const char *why = NULL;
    unsigned slot = key_hash_slot("{cut}", 5);
    size_t in_slot = cut_fill(db, N), total = ks_count(db);
    /* "{cut}" and "{cut}00000".. are consecutive in key order. */
    struct ks_entry *tagged = ks_lookup(db, "{cut}00000", 10, 0);
    size_t at = ks_rank(tagged);
    /* Spread keys (digits sort before '{') and tagged ones: refused. */
    CHECK(ks_cut(db, 0, total) == NULL);
    CHECK(ks_cut(db, at - 2, 3) == NULL);
    CHECK(ks_count(db) == total && ks_slot_count(db, slot) == in_slot);

    struct ks_entry *first = ks_cut(db, at, CUT);
    CHECK(first == tagged);
    CHECK(ks_count(db) == total - CUT && ks_slot_count(db, slot) == in_slot - CUT);
    CHECK_MSG(ks_check(db, &why) == 0, "%s", why);
    size_t calls = 0;
    CHECK(ks_slot_walk(db, slot, count_live_cb, &calls) == in_slot - CUT && calls == in_slot - CUT);
    CHECK(ks_lookup(db, "{cut}00007", 10, 0) == NULL);
    /* Set again while its old entry waits in the set: counted once. */
    ks_set_string(db, "{cut}00007", 10, "w", 1, 0);
    CHECK(ks_slot_count(db, slot) == in_slot - CUT + 1);
    CHECK_MSG(ks_check(db, &why) == 0, "%s", why);
    size_t freed = 0;
    while (db->cuts) {
        freed += ks_cut_step(db, 300);
        CHECK_MSG(ks_check(db, &why) == 0, "%s", why);
        CHECK(ks_slot_count(db, slot) == in_slot - CUT + 1);
    }
    CHECK(freed == CUT && db->cut_keys == 0 && db->slots->cut == NULL);
    calls = 0;
    CHECK(ks_slot_walk(db, slot, count_live_cb, &calls) == in_slot - CUT + 1);

    /* Pending cuts go with a flush, and with a detached db. */
    CHECK(ks_cut(db, at, 1000) != NULL && db->slots->cut != NULL); /* 00007, 04000.. */
    ks_flush(db);
    CHECK(db->slots == NULL && db->cuts == NULL);
    cut_fill(db, N);
    CHECK(ks_cut(db, at, CUT) != NULL);
    ks_detached_free(ks_detach_all(db));
    ks_free(ks);
    CHECK_MSG(mem_used() == mem0, "leak: %zu bytes", mem_used() - mem0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_slotindex off|random|edge|cut\n");
        return 2;
    }
    make_universe();
    char dir[] = "/tmp/test_slotindex.XXXXXX";
    snprintf(snap_path, sizeof(snap_path), "%s/dump.rbkv", check_tmpdir(dir));
    if (!strcmp(argv[1], "off"))
        test_random(0);
    else if (!strcmp(argv[1], "random"))
        test_random(1);
    else if (!strcmp(argv[1], "edge"))
        test_edge();
    else if (!strcmp(argv[1], "cut"))
        test_cut();
    else
        return 2;
    printf("ok %s\n", argv[1]);
    return 0;
}
