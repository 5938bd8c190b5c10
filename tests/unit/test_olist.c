/*
 * test_olist.c - the list sequence (server/data/olist.[ch]) against a
 * model: a plain array of strings, with ol_check() after every change.
 *
 * Owns: one list and its model per run. No server, no RESP.
 *
 * Parts:
 *   random_bytes, random_count
 *           for each chunk limit (-1..-6; 0, 1, 2, 128), RANDOM_OPS random
 *           pushes at either end, inserts, sets, range deletes and removes
 *           (LREM's, both ways, with and without a count) of elements
 *           from 0 bytes to past a chunk's size, integers of every width
 *           and strings that only look like integers; after each, ol_check
 *           and the whole list compared with the model, then walks both
 *           ways from random positions;
 *   ints    every integer width round-trips as its text, and text that is
 *           not Redis's canonical integer ("-0", "01", "+1", past int64)
 *           stays text; LREM tells 1 from "01";
 *   big     200,000 pushes from both ends: seeks at many positions, a
 *           middle range deleted, memory per element against the listpack
 *           figure, ol_memory_sampled against ol_memory;
 *   clone   a clone equals its source and is independent of it;
 * Every part ends with mem_used() back at zero: a leaked chunk fails.
 *
 * usage: test_olist [part]... (no argument runs all). Prints SEED=<n>;
 * SEED=<n> in the environment replays a run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "mem.h"
#include "olist.h"

#define RANDOM_OPS 4000
#define MODEL_MAX 4000 /* the random part keeps the list under this */
#define BIG_ELEM 70000 /* past the largest chunk (64 KB) */

static uint64_t seed, rng;
static unsigned long op;

struct item {
    char *p;
    size_t len;
};

static struct item model[MODEL_MAX + 8];
static size_t model_len;

static struct item item_new(const char *p, size_t len)
{
    struct item it = {malloc(len ? len : 1), len};
    CHECK(it.p != NULL);
    if (len)
        memcpy(it.p, p, len);
    return it;
}

static void model_insert(size_t k, const char *p, size_t len)
{
    memmove(&model[k + 1], &model[k], (model_len - k) * sizeof(model[0]));
    model[k] = item_new(p, len);
    model_len++;
}

static void model_del_range(size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++)
        free(model[i].p);
    memmove(&model[lo], &model[hi], (model_len - hi) * sizeof(model[0]));
    model_len -= hi - lo;
}

static int item_is(const struct item *it, const char *p, size_t len)
{
    return it->len == len && (len == 0 || memcmp(it->p, p, len) == 0);
}

/* LREM on the model: the same rule as ol_remove. */
static size_t model_remove(const char *p, size_t len, long count)
{
    size_t want = count == 0 ? SIZE_MAX : count > 0 ? (size_t)count : (size_t)-count, gone = 0;
    if (count >= 0) {
        for (size_t i = 0; i < model_len && gone < want;) {
            if (item_is(&model[i], p, len)) {
                model_del_range(i, i + 1);
                gone++;
            } else {
                i++;
            }
        }
    } else {
        for (size_t i = model_len; i > 0 && gone < want; i--) {
            if (item_is(&model[i - 1], p, len)) {
                model_del_range(i - 1, i);
                gone++;
            }
        }
    }
    return gone;
}

/* A random element into buf (BIG_ELEM bytes at least): mostly short text
 * and integers, drawn from a small alphabet so LREM finds matches, now and
 * then long or past a chunk. */
static size_t random_elem(char *buf)
{
    static const char *const odd[] = {
        "-0", "01", "+1", "-", "", " 1", "1 ", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "-9223372036854775809", "18446744073709551616", "00",
    };
    static const long long widths[] = {0,      1,       127,     128,      -1,        4095,
                                       -4096,  4096,    -4097,   32767,    -32768,    32768,
                                       8388607, -8388608, 8388608, 2147483647, -2147483648LL,
                                       2147483648LL};
    size_t r = rng_below(&rng, 100);
    if (r < 30) {
        size_t len = rng_below(&rng, 4);
        for (size_t i = 0; i < len; i++)
            buf[i] = "ab\0\xff"[rng_below(&rng, 4)];
        return len;
    }
    if (r < 45)
        return (size_t)snprintf(buf, 32, "%lld", widths[rng_below(&rng, sizeof(widths) / sizeof(widths[0]))]);
    if (r < 55)
        return (size_t)snprintf(buf, 32, "%" PRId64, (int64_t)rng_next(&rng) >> rng_below(&rng, 64));
    if (r < 65) {
        const char *s = odd[rng_below(&rng, sizeof(odd) / sizeof(odd[0]))];
        memcpy(buf, s, strlen(s));
        return strlen(s);
    }
    size_t len = r < 90 ? rng_below(&rng, 70) : r < 98 ? rng_below(&rng, 5000) : BIG_ELEM - rng_below(&rng, 100);
    char c = (char)('a' + rng_below(&rng, 3));
    memset(buf, c, len);
    return len;
}

static void check_list(const struct olist *l, const struct ol_limits *lim)
{
    const char *why = NULL;
    CHECK_MSG(ol_check(l, lim, &why) == 0, "%s", why);
    CHECK_MSG(ol_len(l) == model_len, "len %zu, model %zu", ol_len(l), model_len);
    struct ol_it it;
    size_t i = 0;
    for (ol_seek(l, 0, &it); ol_it_valid(&it); ol_next(&it), i++) {
        const char *v;
        size_t vlen;
        CHECK(i < model_len && it.pos == i);
        ol_it_get(&it, &v, &vlen);
        CHECK_MSG(item_is(&model[i], v, vlen), "position %zu differs", i);
    }
    CHECK(i == model_len);
}

/* Walks from random positions both ways, a random distance. */
static void check_walks(const struct olist *l)
{
    for (int w = 0; w < 4 && model_len; w++) {
        size_t k = rng_below(&rng, model_len), steps = rng_below(&rng, 300);
        struct ol_it it;
        int back = (int)rng_below(&rng, 2);
        CHECK(ol_seek(l, k, &it) == 0);
        for (size_t s = 0; s < steps && ol_it_valid(&it); s++) {
            const char *v;
            size_t vlen;
            CHECK(it.pos == k);
            ol_it_get(&it, &v, &vlen);
            CHECK_MSG(item_is(&model[k], v, vlen), "walk at %zu differs", k);
            if (back) {
                ol_prev(&it);
                if (k == 0) {
                    CHECK(!ol_it_valid(&it));
                    break;
                }
                k--;
            } else {
                ol_next(&it);
                k++;
                CHECK(ol_it_valid(&it) == (k < model_len));
            }
        }
    }
    struct ol_it it;
    CHECK(ol_seek(l, model_len, &it) == -1 && !ol_it_valid(&it));
}

static void run_random(long limit)
{
    static char buf[BIG_ELEM];
    struct ol_limits lim = {limit};
    size_t base = mem_used(), most = 0, most_chunks = 0;
    struct olist *l = ol_new();
    int slow = check_slow();

    model_len = 0;
    for (op = 0; op < RANDOM_OPS; op++) {
        most = ol_len(l) > most ? ol_len(l) : most;
        most_chunks = ol_chunks(l) > most_chunks ? ol_chunks(l) : most_chunks;
        size_t r = rng_below(&rng, 100), len = ol_len(l);
        /* Grow while small, shrink when near the model's room. */
        int grow = len < 50 || (len < MODEL_MAX - 4 && rng_below(&rng, 100) < 75);
        if (grow && r < 50) {
            size_t vlen = random_elem(buf);
            int tail = (int)rng_below(&rng, 2);
            ol_push(&l, tail, buf, vlen, &lim);
            model_insert(tail ? model_len : 0, buf, vlen);
        } else if (grow) {
            size_t vlen = random_elem(buf), k = rng_below(&rng, len + 1);
            ol_insert(&l, k, buf, vlen, &lim);
            model_insert(k, buf, vlen);
        } else if (r < 35 && len) {
            size_t vlen = random_elem(buf), k = rng_below(&rng, len);
            ol_set(&l, k, buf, vlen, &lim);
            free(model[k].p);
            model[k] = item_new(buf, vlen);
        } else if (r < 75 && len) {
            size_t lo = rng_below(&rng, len);
            size_t hi = lo + rng_below(&rng, rng_below(&rng, 64) ? 4 : 300);
            if (hi > len)
                hi = len;
            ol_del_range(&l, lo, hi, &lim);
            model_del_range(lo, hi);
        } else {
            size_t vlen;
            if (len && rng_below(&rng, 2)) {
                const struct item *it = &model[rng_below(&rng, len)];
                memcpy(buf, it->p, it->len);
                vlen = it->len;
            } else {
                vlen = random_elem(buf);
            }
            /* Count 0 (every match) is rare, or the list would stay short. */
            long count = rng_below(&rng, 16) ? (long)rng_below(&rng, 3) + 1 : 0;
            count = rng_below(&rng, 2) ? -count : count;
            size_t want = model_remove(buf, vlen, count);
            size_t got = ol_remove(&l, buf, vlen, count, &lim);
            CHECK_MSG(got == want, "LREM %ld removed %zu, model %zu", count, got, want);
        }
        /* The whole list after every step; under valgrind every slow-th
         * step, or the parts take past their deadline on a loaded box. */
        if (op % (unsigned long)slow == 0)
            check_list(l, &lim);
        if (op % (16 * (unsigned long)slow) == 0)
            check_walks(l);
    }
    check_list(l, &lim);
    printf("  at most %zu elements in %zu chunks\n", most, most_chunks);
    /* The walk reached many chunks, or the test tested little. */
    CHECK(most_chunks >= 8);
    model_del_range(0, model_len);
    ol_free(l);
    CHECK(mem_used() == base);
}

static void run_limits(const long *limits, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        printf("random, list-max-listpack-size %ld\n", limits[i]);
        fflush(stdout);
        run_random(limits[i]);
    }
}

/* Chunks limited by bytes (below -5 reads as -5). */
static void part_random_bytes(void)
{
    static const long limits[] = {-1, -2, -3, -4, -5, -6};
    run_limits(limits, sizeof(limits) / sizeof(limits[0]));
}

/* Chunks limited by count (0 reads as 1). */
static void part_random_count(void)
{
    static const long limits[] = {0, 1, 2, 128};
    run_limits(limits, sizeof(limits) / sizeof(limits[0]));
}

static void part_ints(void)
{
    static const char *const text[] = {
        "0", "1", "127", "128", "-1", "4095", "-4096", "4096", "-4097", "32767", "-32768",
        "32768", "-32769", "8388607", "-8388608", "8388608", "2147483647", "-2147483648",
        "2147483648", "9223372036854775807", "-9223372036854775808", "-0", "01", "+1",
        "9223372036854775808", "-9223372036854775809", "1.0", "1e3", " 1", "0x10", "-",
    };
    const size_t n = sizeof(text) / sizeof(text[0]);
    struct ol_limits lim = {-2};
    size_t base = mem_used();
    struct olist *l = ol_new();
    for (size_t i = 0; i < n; i++)
        ol_push(&l, 1, text[i], strlen(text[i]), &lim);
    const char *why = NULL;
    CHECK_MSG(ol_check(l, &lim, &why) == 0, "%s", why);
    struct ol_it it;
    size_t i = 0;
    for (ol_seek(l, 0, &it); ol_it_valid(&it); ol_next(&it), i++) {
        const char *v;
        size_t vlen;
        ol_it_get(&it, &v, &vlen);
        CHECK_MSG(vlen == strlen(text[i]) && memcmp(v, text[i], vlen) == 0, "%s came back as %.*s",
                  text[i], (int)vlen, v);
    }
    CHECK(i == n);
    /* Integers take what a listpack gives them: "127" is one byte and its
     * back length, so the list is smaller than its text (5 bytes an element)
     * even with the chunk's room to grow. */
    struct olist *small = ol_new();
    for (int k = 0; k < 1000; k++)
        ol_push(&small, 1, "127", 3, &lim);
    CHECK(ol_memory(small) < 1000 * 4);
    ol_free(small);
    /* 1 and "01" are different elements. */
    ol_push(&l, 1, "01", 2, &lim);
    ol_push(&l, 1, "1", 1, &lim);
    CHECK(ol_remove(&l, "1", 1, 0, &lim) == 2);
    CHECK(ol_remove(&l, "01", 2, 0, &lim) == 2);
    CHECK(ol_len(l) == n - 2);
    CHECK_MSG(ol_check(l, &lim, &why) == 0, "%s", why);
    ol_free(l);
    CHECK(mem_used() == base);
}

static void part_big(void)
{
    enum { N = 200000 };
    struct ol_limits lim = {-2};
    size_t base = mem_used();
    struct olist *l = ol_new();
    char buf[32];
    /* Element i is "x<i>" at position N/2 + i for i >= 0 ... pushed so the
     * head holds the odd ones in reverse. */
    for (long i = 0; i < N; i++) {
        int len = snprintf(buf, sizeof(buf), "x%ld", i);
        ol_push(&l, (int)(i & 1), buf, (size_t)len, &lim);
    }
    const char *why = NULL;
    CHECK_MSG(ol_check(l, &lim, &why) == 0, "%s", why);
    CHECK(ol_len(l) == N);
    /* Position p holds even i = 2 * (N/2 - 1 - p) for p < N/2, odd i = 2 * (p - N/2) + 1 after. */
    for (size_t p = 0; p < N; p += 997) {
        struct ol_it it;
        const char *v;
        size_t vlen;
        long want = p < N / 2 ? 2 * (long)(N / 2 - 1 - p) : 2 * (long)(p - N / 2) + 1;
        int len = snprintf(buf, sizeof(buf), "x%ld", want);
        CHECK(ol_seek(l, p, &it) == 0);
        ol_it_get(&it, &v, &vlen);
        CHECK_MSG(vlen == (size_t)len && memcmp(v, buf, vlen) == 0, "position %zu", p);
    }
    /* "x123456": 7 bytes, 9 in a listpack; chunks of 8 KB hold them with
     * little to spare, so a list costs at most a byte more per element. */
    size_t mem = ol_memory(l);
    printf("big: %zu elements in %zu chunks, %zu bytes, %.2f a element\n", ol_len(l),
           ol_chunks(l), mem, (double)mem / N);
    CHECK(mem < (size_t)N * 10);
    size_t sampled = ol_memory_sampled(l, 5000);
    CHECK_MSG(sampled > mem * 8 / 10 && sampled < mem * 12 / 10, "sampled %zu, exact %zu", sampled, mem);
    CHECK(ol_memory_sampled(l, 0) == mem && ol_memory_sampled(l, N) == mem);
    ol_del_range(&l, N / 4, 3 * N / 4, &lim);
    CHECK_MSG(ol_check(l, &lim, &why) == 0, "%s", why);
    CHECK(ol_len(l) == N / 2);
    ol_free(l);
    CHECK(mem_used() == base);
}

static void part_clone(void)
{
    struct ol_limits lim = {-1};
    size_t base = mem_used();
    struct olist *l = ol_new();
    char buf[BIG_ELEM];
    model_len = 0;
    for (int i = 0; i < 3000; i++) {
        size_t vlen = random_elem(buf);
        ol_push(&l, 1, buf, vlen, &lim);
        model_insert(model_len, buf, vlen);
    }
    struct olist *c = ol_clone(l);
    check_list(c, &lim);
    ol_del_range(&l, 0, 1500, &lim);
    check_list(c, &lim); /* the clone did not change */
    CHECK(ol_len(l) == 1500);
    ol_free(l);
    check_list(c, &lim);
    ol_free(c);
    model_del_range(0, model_len);
    struct olist *e = ol_new(), *ec = ol_clone(e);
    CHECK(ol_len(ec) == 0 && ol_chunks(ec) == 0);
    ol_free(e);
    ol_free(ec);
    ol_free(NULL);
    CHECK(mem_used() == base);
}

int main(int argc, char **argv)
{
    seed = check_seed((uint64_t)time(NULL));
    rng = seed;
    check_report_op(&op);
    for (int i = 1; i <= argc - (argc > 1); i++) {
        const char *part = argc > 1 ? argv[i] : NULL;
        if (!part || !strcmp(part, "random_bytes"))
            part_random_bytes();
        if (!part || !strcmp(part, "random_count"))
            part_random_count();
        if (!part || !strcmp(part, "ints"))
            part_ints();
        if (!part || !strcmp(part, "big"))
            part_big();
        if (!part || !strcmp(part, "clone"))
            part_clone();
    }
    puts("ok");
    return 0;
}
