/*
 * test_expiry_reads.c - reads skip keys past their deadline without deleting
 * them (server/data/live.h), end to end.
 *
 * Active expiry is switched off (DEBUG SET-ACTIVE-EXPIRE 0), so due keys stay
 * in the server; every ordered read, SCAN and KEYS must answer as if they
 * were gone, while DBSIZE still counts them and INFO's expired_keys does not
 * move. Where Redis has the command (SCAN, KEYS, DBSIZE, RANDOMKEY) the
 * answers are compared with redis-server's, also switched off (as sets:
 * Redis's SCAN and KEYS are in hash order). Also: a read that skips emits no
 * "expired" event, while a lookup that deletes and active expiry, once back
 * on, do; a streamed listing skips due keys in its streamed rest too. The
 * model-based random test of the same is tests/unit/ordered_diff.c, run by
 * test_ordered.c with active expiry off (SEED=<n> replays it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define STREAM_KEYS 30000 /* a listing long enough to stream (several chunks) */

static struct h_server srv, ref;
static int have_ref;

/* Waits until every deadline given as PEXPIRE 1 by now has passed: the
 * server's clock is ours, so 3 ms past it. */
static void pass_deadlines(void)
{
    h_sleep_ms(3);
}

static long long info_int(redisContext *c, const char *section, const char *field)
{
    redisReply *r = H_CALL(c, "INFO", section);
    char v[64] = "";
    if (!CHECK(r && r->type == REDIS_REPLY_STRING && h_info_field(r->str, field, v, sizeof(v)) == 0,
               "INFO %s has %s", section, field)) {
        freeReplyObject(r);
        return -1;
    }
    freeReplyObject(r);
    return strtoll(v, NULL, 10);
}

/* a .. j; b, e, f and j due; c with a deadline far off; g a list. */
static void load_ten(redisContext *c)
{
    EXPECT_OK(c, "DEBUG", "SET-ACTIVE-EXPIRE", "0");
    for (char k = 'a'; k <= 'j'; k++) {
        char key[2] = {k, 0};
        if (k == 'g')
            EXPECT_INT(c, 1, "RPUSH", key, "x");
        else
            EXPECT_OK(c, "SET", key, "v");
    }
    EXPECT_INT(c, 1, "PEXPIRE", "c", "3600000");
    for (const char *k = "befj"; *k; k++)
        EXPECT_INT(c, 1, "PEXPIRE", ((char[]){*k, 0}), "1");
    pass_deadlines();
}

static void test_ordered_reads(void)
{
    redisContext *c = h_connect_flushed(&srv);
    long long expired = info_int(c, "stats", "expired_keys");
    load_ten(c);
    /* Live: a c d g h i. */
    EXPECT_REPLY(c, "['a', 'c', 'd', 'g', 'h', 'i']", "KRANGE", "0", "-1");
    EXPECT_REPLY(c, "['d', 'g']", "KRANGE", "2", "3");
    EXPECT_REPLY(c, "['i', 'h']", "KRANGE", "0", "1", "REV");
    EXPECT_REPLY(c, "['h', 'i']", "KRANGE", "-2", "-1");
    EXPECT_REPLY(c, "['c', 'd']", "KRANGE", "[b", "[f", "BYLEX");
    EXPECT_REPLY(c, "['d', 'c']", "KRANGE", "[f", "[b", "BYLEX", "REV");
    EXPECT_REPLY(c, "['d', 'g']", "KRANGE", "(a", "+", "BYLEX", "LIMIT", "1", "2");
    EXPECT_REPLY(c, "['i', 'h']", "KRANGE", "+", "-", "BYLEX", "REV", "LIMIT", "0", "2");
    EXPECT_REPLY(c, "['g']", "KRANGE", "0", "-1", "TYPE", "list");
    EXPECT_REPLY(c, "['c', 'v', 'd', 'v']", "KRANGE", "1", "2", "WITHVALUES");
    EXPECT_REPLY(c, "['a', 'c', 'd', 'h', 'i']", "KRANGE", "0", "-1", "TYPE", "string");
    EXPECT_REPLY(c, "[]", "KPREFIX", "b");
    EXPECT_REPLY(c, "['c', 'd']", "KPREFIX", "", "LIMIT", "1", "2");
    EXPECT_REPLY(c, "['h', 'g']", "KPREFIX", "", "REV", "LIMIT", "1", "2");
    EXPECT_INT(c, 6, "KCOUNT", "-", "+");
    EXPECT_INT(c, 2, "KCOUNT", "[b", "[f");
    EXPECT_INT(c, 0, "KCOUNT", "PREFIX", "j");
    EXPECT_INT(c, 2, "KRANK", "d");
    EXPECT_INT(c, 3, "KREVRANK", "d");
    EXPECT_REPLY(c, "['a', 'c']", "KFIRST", "2");
    EXPECT_REPLY(c, "['i', 'h']", "KLAST", "2");
    EXPECT_REPLY(c, "['c', 'd']", "KNEXT", "a", "2");
    EXPECT_REPLY(c, "['g']", "KNEXT", "e");
    EXPECT_REPLY(c, "['d', 'c']", "KPREV", "g", "2");
    EXPECT_REPLY(c, "['i']", "KPREV", "j");
    EXPECT_REPLY(c, "['d', 'h']", "KSPLIT", "3");
    EXPECT_REPLY(c, "['c', 'd', 'g', 'h', 'i']", "KSPLIT", "9");
    EXPECT_REPLY(c, "['a', 'c', 'd', 'g', 'h', 'i']", "KEYS", "*");
    EXPECT_REPLY(c, "['c', 'd']", "KEYS", "[b-f]");
    /* SCAN visits COUNT keys, due ones included, and lists the live ones. */
    EXPECT_MATCH(c, "['*', ['a']]", "SCAN", "0", "COUNT", "2");
    EXPECT_REPLY(c, "['0', ['a', 'c', 'd', 'g', 'h', 'i']]", "SCAN", "0", "COUNT", "100");
    EXPECT_REPLY(c, "['0', []]", "SCAN", "0", "MATCH", "j*");
    /* Nothing was deleted, nor counted as expired. */
    EXPECT_INT(c, 10, "DBSIZE");
    CHECK(info_int(c, "stats", "expired_keys") == expired, "reads expired nothing");
    /* KDELRANGE deletes the live keys of its span only: the due ones are
     * active expiry's, with their "expired" events. */
    EXPECT_INT(c, 2, "KDELRANGE", "[b", "[f");
    EXPECT_INT(c, 8, "DBSIZE");
    EXPECT_INT(c, 1, "KDELRANGE", "-", "+", "LIMIT", "1");
    EXPECT_REPLY(c, "['g', 'h', 'i']", "KRANGE", "0", "-1");
    /* Back on, active expiry deletes the four and counts them. */
    EXPECT_OK(c, "DEBUG", "SET-ACTIVE-EXPIRE", "1");
    int64_t until = h_now_ms() + 5000 * H_SLOW;
    for (;;) {
        redisReply *r = H_CALL(c, "DBSIZE");
        long long n = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
        freeReplyObject(r);
        if (n == 3 || h_now_ms() > until)
            break;
        h_sleep_ms(10);
    }
    EXPECT_INT(c, 3, "DBSIZE");
    CHECK(info_int(c, "stats", "expired_keys") == expired + 4, "active expiry counted four");
    redisFree(c);
}

/* The keys of an array reply (or of a whole SCAN iteration), sorted, as
 * one line of text. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sorted_keys(redisContext *c, int scan, char *out, size_t cap)
{
    char *keys[64];
    size_t n = 0;
    char cursor[32] = "0";
    out[0] = '\0';
    do {
        redisReply *r = scan ? H_CALL(c, "SCAN", cursor, "COUNT", "3") : H_CALL(c, "KEYS", "*");
        const redisReply *list = !r ? NULL : scan ? r->element[1] : r;
        if (!CHECK(list && list->type == REDIS_REPLY_ARRAY, "an array of keys")) {
            freeReplyObject(r);
            return;
        }
        for (size_t i = 0; i < list->elements && n < 64; i++)
            keys[n++] = strdup(list->element[i]->str);
        snprintf(cursor, sizeof(cursor), "%s", scan ? r->element[0]->str : "0");
        freeReplyObject(r);
    } while (strcmp(cursor, "0") != 0);
    qsort(keys, n, sizeof(keys[0]), cmp_str);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "%s ", keys[i]);
        free(keys[i]);
    }
}

/* SCAN, KEYS, DBSIZE and RANDOMKEY beside Redis, both with active expiry
 * off: Redis's DBSIZE counts due keys too, its KEYS and SCAN skip them. */
static void test_same_as_redis(void)
{
    if (!have_ref) {
        printf("  (no reference: skipped)\n");
        return;
    }
    redisContext *r, *c = h_connect_pair(&srv, &ref, &r);
    load_ten(c);
    load_ten(r);
    H_SAME(c, r, "DBSIZE");
    char ours[512], theirs[512];
    sorted_keys(c, 0, ours, sizeof(ours));
    sorted_keys(r, 0, theirs, sizeof(theirs));
    CHECK(strcmp(ours, theirs) == 0, "KEYS *: ours %s, Redis's %s", ours, theirs);
    H_SAME(c, r, "DBSIZE");
    sorted_keys(c, 1, ours, sizeof(ours));
    sorted_keys(r, 1, theirs, sizeof(theirs));
    CHECK(strcmp(ours, theirs) == 0, "SCAN: ours %s, Redis's %s", ours, theirs);
    /* One live key left: RANDOMKEY has one answer; none left: nil. */
    for (const char *k = "acdghi"; *k; k++) {
        const char key[2] = {*k, 0};
        H_SAME(c, r, "PEXPIRE", key, k[1] ? "1" : "3600000");
    }
    pass_deadlines();
    H_SAME(c, r, "RANDOMKEY");
    H_SAME(c, r, "PEXPIRE", "i", "1");
    pass_deadlines();
    H_SAME(c, r, "RANDOMKEY");
    EXPECT_OK(c, "DEBUG", "SET-ACTIVE-EXPIRE", "1");
    EXPECT_OK(r, "DEBUG", "SET-ACTIVE-EXPIRE", "1");
    h_close_pair(c, r);
}

/* A read that skips a due key tells no one; the lookup that deletes it
 * fires "expired". */
static void test_skip_is_silent(void)
{
    redisContext *c = h_connect_flushed(&srv);
    redisContext *sub = h_connect(&srv);
    if (!sub) {
        redisFree(c);
        return;
    }
    EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "Ex");
    EXPECT_REPLY(sub, "['subscribe', '__keyevent@0__:expired', :1]", "SUBSCRIBE",
                 "__keyevent@0__:expired");
    load_ten(c);
    EXPECT_INT(c, 6, "KCOUNT", "-", "+");
    EXPECT_REPLY(c, "['a', 'c']", "KFIRST", "2");
    EXPECT_MATCH(c, "['0', *]", "SCAN", "0", "COUNT", "100");
    EXPECT_INT(c, 6, "KCOUNT", "-", "+");
    /* The first event is the lookup's, not one of the reads'. */
    EXPECT_NIL(c, "GET", "f");
    redisReply *m = h_get_reply(sub);
    CHECK(m && m->type == REDIS_REPLY_ARRAY && m->elements == 3 &&
              strcmp(m->element[2]->str, "f") == 0,
          "the first expired event is f's");
    freeReplyObject(m);
    EXPECT_INT(c, 9, "DBSIZE");
    EXPECT_OK(c, "CONFIG", "SET", "notify-keyspace-events", "");
    EXPECT_OK(c, "DEBUG", "SET-ACTIVE-EXPIRE", "1");
    redisFree(sub);
    redisFree(c);
}

/* A listing long enough to stream skips due keys in what it streams later,
 * as in what it writes at once. */
static void test_streamed_listing(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_OK(c, "DEBUG", "SET-ACTIVE-EXPIRE", "0");
    char key[32];
    for (int i = 0; i < STREAM_KEYS; i++) {
        snprintf(key, sizeof(key), "key:%06d", i);
        if (i % 3 == 1)
            H_APPEND(c, "SET", key, "v", "PX", "1");
        else
            H_APPEND(c, "SET", key, "v");
    }
    for (int i = 0; i < STREAM_KEYS; i++)
        freeReplyObject(h_get_reply(c));
    pass_deadlines();
    const int live = STREAM_KEYS - STREAM_KEYS / 3;
    EXPECT_INT(c, live, "KCOUNT", "-", "+");
    redisReply *lists[] = {H_CALL(c, "KRANGE", "0", "-1"), H_CALL(c, "KEYS", "*"),
                           H_CALL(c, "KPREFIX", "key:", "REV")};
    for (int l = 0; l < 3; l++) {
        redisReply *r = lists[l];
        int ok = r && r->type == REDIS_REPLY_ARRAY && r->elements == (size_t)live;
        for (size_t i = 0; ok && i < r->elements; i++) {
            size_t want = l == 2 ? (size_t)live - 1 - i : i;
            int n = (int)(want / 2 * 3 + want % 2 * 2); /* the want-th key not 1 mod 3 */
            snprintf(key, sizeof(key), "key:%06d", n);
            ok = strcmp(r->element[i]->str, key) == 0;
        }
        CHECK(ok, "listing %d: every live key once, in order, no due one", l);
        freeReplyObject(r);
    }
    EXPECT_INT(c, STREAM_KEYS, "DBSIZE");
    EXPECT_OK(c, "DEBUG", "SET-ACTIVE-EXPIRE", "1");
    redisFree(c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    if (!h_is_reference()) {
        int rc = h_start_reference(&ref, H_FLAGS("--enable-debug-command", "yes"));
        have_ref = rc == 0;
        if (rc == 1)
            printf("no redis-server on PATH: the comparisons with Redis are skipped\n");
    }
    H_RUN(test_ordered_reads);
    H_RUN(test_same_as_redis);
    H_RUN(test_skip_is_silent);
    H_RUN(test_streamed_listing);
    if (have_ref)
        h_stop(&ref);
    return h_finish();
}
