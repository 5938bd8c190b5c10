/*
 * test_sort.c - end-to-end tests of SORT and SORT_RO (server/commands/cmd_sort.c).
 *
 * Fixed expectations (Redis 7.0.15's replies and error texts) hold on their
 * own, so the program also passes against redis-server. With redis-server
 * installed a reference runs beside ours and the same commands go to both,
 * replies compared byte for byte:
 *  - random SORT and SORT_RO calls (BY a string, a hash field, nosort or a
 *    constant; GET #, patterns and fields; LIMIT; ASC/DESC; ALPHA; STORE) on
 *    lists, sets and sorted sets of numbers, words and odd numbers (" 7",
 *    "0x10", "1e2", ""), each STORE's list read back after it; SEED=<n>
 *    replays them. Two orders are Redis's hash tables' and not compared
 *    element for element: a set's members unsorted (BY nosort, outside
 *    STORE and scripts: compared as a multiset), and the order of equal
 *    values under ALPHA BY in a set or sorted set, or with LIMIT (Redis's
 *    partial quicksort is not stable): there the random calls sort ALPHA BY
 *    values that differ for each element;
 *  - the same inside scripts (a set is sorted there), in RESP3, COMMAND
 *    INFO and GETKEYSANDFLAGS, the ACL refusals of BY and GET, keyspace
 *    events and dirty counts of STORE;
 *  - cluster mode's refusals of BY and GET.
 * WATCH, the wake-up of a client blocked on STORE's destination and what a
 * replica receives are checked on rbkv (and hold on Redis).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "rng.h"

#define RANDOM_SORTS 3000 /* random calls compared (divided by H_SLOW) */
#define SORTS_PER_DATASET 60
#define NOT_DOUBLE "ERR One or more scores can't be converted into double"

static struct h_server srv, ref;
static int have_ref;

static uint64_t rng_state;

/* The random comparison's one stream (rng.h). */
static uint64_t rnd(void)
{
    return rng_next(&rng_state);
}

/* ---- fixed expectations -------------------------------------------------- */

static void test_basics(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_INT(c, 5, "RPUSH", "l", "3", "1", "2", "10", "1");
    EXPECT_REPLY(c, "['1', '1', '2', '3', '10']", "SORT", "l");
    EXPECT_REPLY(c, "['10', '3', '2', '1', '1']", "SORT", "l", "DESC");
    EXPECT_REPLY(c, "['1', '1', '10', '2', '3']", "SORT", "l", "ALPHA");
    EXPECT_REPLY(c, "['2', '3']", "SORT", "l", "LIMIT", "2", "2");
    EXPECT_REPLY(c, "['3', '10']", "SORT", "l", "LIMIT", "3", "9223372036854775807");
    EXPECT_REPLY(c, "[]", "SORT", "l", "LIMIT", "9223372036854775807", "1");
    EXPECT_REPLY(c, "['1', '1']", "SORT", "l", "LIMIT", "-5", "2");
    EXPECT_REPLY(c, "['1', '2', '3', '10']", "SORT", "l", "LIMIT", "1", "-3");
    /* BY without '*': the list's own order, DESC reversing it. */
    EXPECT_REPLY(c, "['3', '1', '2', '10', '1']", "SORT", "l", "BY", "nosort");
    EXPECT_REPLY(c, "['10', '2']", "SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1", "2");
    /* A BY without '*' leaves the call unsorted, even before one with it. */
    EXPECT_REPLY(c, "['3', '1', '2', '10', '1']", "SORT", "l", "BY", "x", "BY", "w_*");

    /* BY and GET: strings and hash fields; missing weighs 0, GETs nil. */
    EXPECT_OK(c, "MSET", "w_3", "-1", "w_10", "5", "x_1", "one");
    EXPECT_INT(c, 2, "HSET", "h_2", "f", "20", "g", "two");
    EXPECT_REPLY(c, "['3', '1', '1', '2', '10']", "SORT", "l", "BY", "w_*");
    EXPECT_REPLY(c, "['1', '1', '10', '3', '2']", "SORT", "l", "BY", "h_*->f");
    EXPECT_REPLY(c, "['1', 'one', (nil), '1', 'one', (nil), '2', (nil), 'two', '3', (nil), (nil), "
                    "'10', (nil), (nil)]",
                 "SORT", "l", "GET", "#", "GET", "x_*", "GET", "h_*->g");
    /* A hash read as a string, a string read as a hash: nil. */
    EXPECT_REPLY(c, "[(nil), (nil)]", "SORT", "l", "BY", "nosort", "LIMIT", "2", "1", "GET",
                 "h_*", "GET", "x_*->f");
    /* ALPHA BY: a missing value first; equal ones in the list's order. */
    EXPECT_REPLY(c, "['3', '1', '10', '1', '2']", "SORT", "l", "BY", "h_*->g", "ALPHA");

    /* Sets and sorted sets: the members' own values, not the scores. */
    EXPECT_INT(c, 3, "SADD", "s", "b", "a", "c");
    EXPECT_REPLY(c, "['c', 'b', 'a']", "SORT", "s", "ALPHA", "DESC");
    EXPECT_INT(c, 3, "ZADD", "z", "1", "30", "2", "10", "3", "20");
    EXPECT_REPLY(c, "['10', '20', '30']", "SORT", "z");
    EXPECT_REPLY(c, "['30', '10', '20']", "SORT", "z", "BY", "nosort");
    EXPECT_REPLY(c, "['10', '30']", "SORT", "z", "BY", "nosort", "DESC", "LIMIT", "1", "5");
    /* Numbers as strtod reads them; ties by the bytes. */
    EXPECT_INT(c, 7, "RPUSH", "n", " 2", "0x10", "", "1e1", "-inf", "2", "02");
    EXPECT_REPLY(c, "['-inf', '', ' 2', '02', '2', '1e1', '0x10']", "SORT", "n");
    EXPECT_REPLY(c, "[]", "SORT", "missing");
    EXPECT_REPLY(c, "['1', '1', '2', '3', '10']", "SORT_RO", "l");
    redisFree(c);
}

static void test_errors(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_INT(c, 2, "RPUSH", "l", "1", "x");
    EXPECT_OK(c, "SET", "str", "v");
    EXPECT_ERR(c, NOT_DOUBLE, "SORT", "l");
    EXPECT_REPLY(c, "['1', 'x']", "SORT", "l", "ALPHA");
    static const char *const bad[] = {"12 ", "nan", "1e400", "1e-400", "4e-320", "1x"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        EXPECT_OK(c, "SET", "w_1", bad[i]);
        EXPECT_ERR(c, NOT_DOUBLE, "SORT", "l", "BY", "w_*", "LIMIT", "0", "1");
    }
    /* The error comes instead of the STORE: dst is left alone. */
    EXPECT_OK(c, "SET", "dst", "old");
    EXPECT_ERR(c, NOT_DOUBLE, "SORT", "l", "STORE", "dst");
    EXPECT_BULK(c, "old", "GET", "dst");
    EXPECT_ERR(c, "ERR syntax error", "SORT", "l", "LIMIT", "1");
    EXPECT_ERR(c, "ERR syntax error", "SORT", "l", "STORE");
    EXPECT_ERR(c, "ERR syntax error", "SORT", "l", "GET");
    EXPECT_ERR(c, "ERR syntax error", "SORT", "l", "BY");
    EXPECT_ERR(c, "ERR syntax error", "SORT", "l", "ALPHA", "nope");
    EXPECT_ERR(c, "ERR syntax error", "SORT_RO", "l", "STORE", "dst");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SORT", "l", "LIMIT", "a", "1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SORT", "l", "LIMIT", "0", "1.5");
    /* Options first, then the key's type. */
    EXPECT_ERR(c, "ERR syntax error", "SORT", "str", "nope");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "SORT",
               "str");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "SORT_RO",
               "str", "ALPHA");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sort' command", "SORT");
    redisFree(c);
}

/* STORE: a list, dst replaced whatever it held (its deadline too), an
 * empty result deleting it; GET's missing values stored as "". */
static void test_store(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    EXPECT_INT(c, 3, "SADD", "s", "3", "1", "2");
    EXPECT_OK(c, "SET", "dst", "old", "EX", "100");
    EXPECT_INT(c, 3, "SORT", "s", "STORE", "dst");
    EXPECT_REPLY(c, "['1', '2', '3']", "LRANGE", "dst", "0", "-1");
    EXPECT_INT(c, -1, "TTL", "dst");
    EXPECT_OK(c, "SET", "w_2", "x");
    EXPECT_INT(c, 6, "SORT", "s", "GET", "#", "GET", "w_*", "STORE", "dst");
    EXPECT_REPLY(c, "['1', '', '2', 'x', '3', '']", "LRANGE", "dst", "0", "-1");
    /* The last STORE wins; the source itself may be the destination. */
    EXPECT_INT(c, 3, "SORT", "s", "DESC", "STORE", "a", "STORE", "s");
    EXPECT_STATUS(c, "list", "TYPE", "s");
    EXPECT_REPLY(c, "['3', '2', '1']", "LRANGE", "s", "0", "-1");
    EXPECT_INT(c, 0, "EXISTS", "a");
    EXPECT_INT(c, 0, "SORT", "s", "LIMIT", "5", "1", "STORE", "dst");
    EXPECT_INT(c, 0, "EXISTS", "dst");
    EXPECT_INT(c, 0, "SORT", "missing", "STORE", "dst");
    /* An unsorted set is sorted ALPHA for STORE. */
    EXPECT_INT(c, 4, "SADD", "t", "b", "10", "a", "9");
    EXPECT_INT(c, 4, "SORT", "t", "BY", "nosort", "STORE", "dst");
    EXPECT_REPLY(c, "['10', '9', 'a', 'b']", "LRANGE", "dst", "0", "-1");
    redisFree(c);
}

/* ---- comparisons with redis-server ---------------------------------------- */

/* A flushed client of each server; NULL, said so, without a reference. */
static redisContext *ref_pair(redisContext **r)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return NULL;
    }
    return h_connect_pair(&srv, &ref, r);
}

/* The elements the random data is made of: numbers, words, odd numbers. */
static const char *const pool[] = {
    "0", "1", "2", "3", "5", "7", "10", "11", "20", "42", "100", "-1", "-7", "2.5", "-0.5",
    "1e2", "0x10", " 7", "007", "", "inf", "a", "b", "c", "abc", "B", "a b", "Z",
    "\xc3\xa9t\xc3\xa9", "x\xff", "ab",
};
#define POOL (sizeof(pool) / sizeof(pool[0]))
#define NUMERIC 20 /* pool[0..NUMERIC) read as numbers */

static const char *pick(size_t limit)
{
    return pool[rnd() % limit];
}

/* Sends the words of l to both servers, expecting the same reply. */
static int same_line(redisContext *c, redisContext *r, const struct h_line *l)
{
    return h_same(__FILE__, __LINE__, c, r, l->argc, l->argv, NULL);
}

/* New random data on both: lists, sets and sorted sets of numbers only
 * (…n) and of anything (…m), weights w_ (numbers, some missing), m_
 * (anything), u_ and uh_ (a different value for every element), hashes h_
 * (fields f, a number, and g, a word, some missing). */
static void random_data(redisContext *c, redisContext *r)
{
    struct h_line l;
    H_SAME(c, r, "FLUSHALL");
    static const char *const kinds[] = {"RPUSH", "SADD", "ZADD"};
    static const char *const names[][2] = {{"ln", "lm"}, {"sn", "sm"}, {"zn", "zm"}};
    for (int k = 0; k < 3; k++) {
        for (int mixed = 0; mixed < 2; mixed++) {
            int n = (int)(rnd() % 25);
            if (!n)
                continue;
            l.argc = 0;
            h_line_add(&l, "%s", kinds[k]);
            h_line_add(&l, "%s", names[k][mixed]);
            for (int i = 0; i < n && l.argc + 2 < H_LINE_ARGS; i++) {
                if (k == 2)
                    h_line_add(&l, "%d", (int)(rnd() % 4));
                h_line_add(&l, "%s", pick(mixed ? POOL : NUMERIC));
            }
            same_line(c, r, &l);
        }
    }
    for (size_t i = 0; i < POOL; i++) {
        /* The element joins the key's prefix: built by hand for binary bytes. */
        char key[64], val[64];
        size_t plen = strlen(pool[i]);
        const char *fams[] = {"w_", "m_", "u_"};
        for (int f = 0; f < 3; f++) {
            if (f == 0 && rnd() % 5 == 0)
                continue;
            snprintf(key, sizeof(key), "%s%s", fams[f], pool[i]);
            if (f == 0)
                snprintf(val, sizeof(val), "%d", (int)(rnd() % 20) - 5);
            else if (f == 1)
                snprintf(val, sizeof(val), "%s", rnd() % 4 ? pick(NUMERIC) : pick(POOL));
            else
                snprintf(val, sizeof(val), "%c%02zu", (char)('a' + rnd() % 26), i);
            h_same(__FILE__, __LINE__, c, r, 3, (const char *const[]){"SET", key, val},
                   (const size_t[]){3, 2 + plen, strlen(val)});
        }
        snprintf(key, sizeof(key), "h_%s", pool[i]);
        char f[16], g[16];
        snprintf(f, sizeof(f), "%d", (int)(rnd() % 9));
        snprintf(g, sizeof(g), "%s", pick(POOL));
        if (rnd() % 4)
            h_same(__FILE__, __LINE__, c, r, 6,
                   (const char *const[]){"HSET", key, "f", f, "g", g},
                   (const size_t[]){4, 2 + plen, 1, strlen(f), 1, strlen(g)});
        snprintf(key, sizeof(key), "uh_%s", pool[i]);
        snprintf(val, sizeof(val), "%c%02zu", (char)('a' + rnd() % 26), i);
        h_same(__FILE__, __LINE__, c, r, 4, (const char *const[]){"HSET", key, "v", val},
               (const size_t[]){4, 3 + plen, 1, strlen(val)});
    }
    H_SAME(c, r, "SET", "str", "x");
    if (rnd() % 2)
        H_SAME(c, r, "SET", "dst", "old");
}

/* A random SORT in l. Returns what the reply's order owes to a hash table
 * (a set unsorted outside STORE): 1, compared as a multiset of groups of
 * *group elements. */
static int random_sort(struct h_line *l, int *group, int *stores)
{
    static const char *const keys[] = {"ln", "lm", "sn", "sm", "zn", "zm", "missing", "str"};
    static const char *const bys[] = {"w_*", "m_*", "h_*->f", "h_*->g", "u_*",
                                      "uh_*->v", "nosort", "constant", "w_*->f"};
    static const char *const gets[] = {"#", "w_*", "h_*->f", "h_*->g", "nosuch_*",
                                       "h_*", "w_*->f", "u_*", "m_*"};
    static const char *const offsets[] = {"-2", "0", "1", "3", "10", "100"};
    static const char *const counts[] = {"-1", "0", "1", "2", "5", "100"};
    int ro = rnd() % 5 == 0;
    const char *key = keys[rnd() % 8];
    int set = key[0] == 's';
    const char *by = rnd() % 2 ? bys[rnd() % 9] : NULL;
    int alpha = rnd() % 3 == 0 || key[1] == 'm';
    int limit = rnd() % 3 == 0;
    int store = !ro && rnd() % 4 == 0;
    int ngets = rnd() % 3 ? 0 : (int)(rnd() % 3) + 1;
    int starred = by && strchr(by, '*');

    /* Equal ALPHA BY values keep Redis's hash order in a set or sorted
     * set, and any order under its partial sort: sort by distinct ones. */
    if (alpha && starred && (key[0] != 'l' || limit))
        by = rnd() % 2 ? "u_*" : "uh_*->v";
    int unordered = set && by && !starred && !store;
    if (unordered)
        limit = 0;

    l->argc = 0;
    h_line_add(l, "%s", ro ? "SORT_RO" : "SORT");
    h_line_add(l, "%s", key);
    /* The options present, in a random order. */
    int opts[6], nopts = 0;
    int present[6] = {by != NULL, limit, ngets > 0, alpha, store, rnd() % 3 == 0};
    for (int o = 0; o < 6; o++) {
        if (present[o])
            opts[nopts++] = o;
    }
    for (int i = nopts - 1; i > 0; i--) {
        int j = (int)(rnd() % (uint64_t)(i + 1)), t = opts[i];
        opts[i] = opts[j];
        opts[j] = t;
    }
    for (int i = 0; i < nopts; i++) {
        switch (opts[i]) {
        case 0:
            h_line_add(l, "BY");
            h_line_add(l, "%s", by);
            break;
        case 1:
            h_line_add(l, "LIMIT");
            h_line_add(l, "%s", offsets[rnd() % 6]);
            h_line_add(l, "%s", counts[rnd() % 6]);
            break;
        case 2:
            for (int g = 0; g < ngets; g++) {
                h_line_add(l, "GET");
                h_line_add(l, "%s", gets[rnd() % 9]);
            }
            break;
        case 3:
            h_line_add(l, "ALPHA");
            break;
        case 4:
            h_line_add(l, "STORE");
            h_line_add(l, "dst");
            break;
        default:
            h_line_add(l, rnd() % 2 ? "DESC" : "ASC");
            break;
        }
    }
    *group = ngets ? ngets : 1;
    *stores = store;
    return unordered;
}

static int cmp_repr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The replies of l on both as multisets of groups of group elements. */
static int same_unordered(redisContext *c, redisContext *r, const struct h_line *l, int group)
{
    redisReply *a = h_command(c, l->argc, l->argv, NULL);
    redisReply *b = h_command(r, l->argc, l->argv, NULL);
    int ok = a && b && a->type == b->type;
    if (ok && a->type != REDIS_REPLY_ARRAY) {
        ok = h_reply_equal(a, b);
    } else if (ok) {
        ok = a->elements == b->elements;
        size_t n = a->elements / (size_t)group;
        char **x = calloc(n + 1, sizeof(*x)), **y = calloc(n + 1, sizeof(*y));
        for (size_t i = 0; ok && i < n; i++) {
            redisReply ga = {.type = REDIS_REPLY_ARRAY, .elements = (size_t)group,
                             .element = a->element + i * (size_t)group};
            redisReply gb = {.type = REDIS_REPLY_ARRAY, .elements = (size_t)group,
                             .element = b->element + i * (size_t)group};
            x[i] = h_repr(&ga, malloc(256), 256);
            y[i] = h_repr(&gb, malloc(256), 256);
        }
        if (ok) {
            qsort(x, n, sizeof(*x), cmp_repr);
            qsort(y, n, sizeof(*y), cmp_repr);
            for (size_t i = 0; i < n; i++)
                ok &= strcmp(x[i], y[i]) == 0;
        }
        for (size_t i = 0; i < n; i++) {
            free(x[i]);
            free(y[i]);
        }
        free(x);
        free(y);
    }
    char cmd[512];
    CHECK(ok, "as multisets: %s", h_command_text(cmd, sizeof(cmd), l->argc, l->argv, NULL));
    freeReplyObject(a);
    freeReplyObject(b);
    return ok;
}

static void test_random_against_redis(void)
{
    redisContext *r, *c = ref_pair(&r);
    if (!c)
        return;
    uint64_t seed = h_seed();
    rng_state = seed;
    int failures = 0, n = RANDOM_SORTS / H_SLOW;
    for (int i = 0; i < n && failures < 5; i++) {
        if (i % SORTS_PER_DATASET == 0)
            random_data(c, r);
        struct h_line l;
        int group, store;
        int ok = random_sort(&l, &group, &store) ? same_unordered(c, r, &l, group)
                                                 : same_line(c, r, &l);
        if (store)
            ok &= H_SAME(c, r, "LRANGE", "dst", "0", "-1") & H_SAME(c, r, "TYPE", "dst");
        if (!ok) {
            char cmd[512];
            printf("  at call %d: %s\n", i, h_command_text(cmd, sizeof(cmd), l.argc, l.argv, NULL));
            failures++;
        }
    }
    CHECK(failures == 0, "random comparison failed, SEED=%" PRIu64, seed);
    h_close_pair(c, r);
}

/* Inside scripts, an unsorted set comes sorted ALPHA; RESP3's nulls. */
static void test_scripts_and_resp3(void)
{
    redisContext *r, *c = ref_pair(&r);
    if (!c)
        return;
    static const char *const lines[] = {
        "SADD s 3 b 10 a 2",
        "ZADD z 1 b 2 a",
        "EVAL \"return redis.call('sort',KEYS[1],'by','nosort')\" 1 s",
        "EVAL \"return redis.call('sort',KEYS[1],'by','nosort','desc','limit','1','2')\" 1 s",
        "EVAL \"return redis.call('sort_ro',KEYS[1],'by','nosort','get','#','get','x_*')\" 1 s",
        "EVAL \"return redis.call('sort',KEYS[1],'by','nosort')\" 1 z",
        "EVAL \"return redis.call('sort',KEYS[1])\" 1 s",
        "EVAL \"return redis.call('sort',KEYS[1],'by','nosort','store','d')\" 1 s",
        "LRANGE d 0 -1",
    };
    H_SAME_LINES(c, r, lines);
    h_close_pair(c, r);
    static const char *const resp3[] = {
        "RPUSH l 2 1", "SET x_1 one", "SORT l GET # GET x_*", "SORT l BY nosort GET x_*",
        "SORT l STORE d",
    };
    H_SAME_LINES_RESP3(&srv, &ref, resp3);
}

/* COMMAND INFO (flags, categories, key specs) and the keys GETKEYS finds,
 * Redis's sortGetKeys: the last STORE, options skipped by their arity. */
static void test_command_info(void)
{
    redisContext *r, *c = ref_pair(&r);
    if (!c)
        return;
    static const char *const lines[] = {
        "COMMAND INFO sort sort_ro",
        "COMMAND GETKEYSANDFLAGS sort k",
        "COMMAND GETKEYSANDFLAGS sort k STORE d",
        "COMMAND GETKEYSANDFLAGS sort k STORE d STORE e BY x",
        "COMMAND GETKEYSANDFLAGS sort k GET STORE x",
        "COMMAND GETKEYSANDFLAGS sort k LIMIT STORE x STORE y",
        "COMMAND GETKEYSANDFLAGS sort k ALPHA STORE",
        "COMMAND GETKEYSANDFLAGS sort_ro k STORE d",
        "COMMAND GETKEYS sort k by b get c store q",
    };
    H_SAME_LINES(c, r, lines);
    h_close_pair(c, r);
}

/* Users who may not read every key may not use BY patterns or GET; the
 * refusal comes at the option's place, and for a script's commands from
 * the caller's permissions. */
static void test_acl(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    static const char *const users[][4] = {
        {"u1", "~l*", NULL},
        {"u2", "%R~*", NULL},
        {"u3", "%R~l*", "%W~*", NULL},
        {"u4", "~l*", "(+@all ~*)", NULL},
        {"u5", "allkeys", NULL},
    };
    EXPECT_INT(c, 2, "RPUSH", "l", "2", "1");
    for (size_t u = 0; u < sizeof(users) / sizeof(users[0]); u++) {
        const char *argv[8] = {"ACL", "SETUSER", users[u][0], "on", "nopass", "+@all"};
        int argc = 6;
        for (int k = 1; k < 4 && users[u][k]; k++)
            argv[argc++] = users[u][k];
        freeReplyObject(h_command(c, argc, argv, NULL));
    }
    static const struct {
        const char *user;
        int full; /* may use BY and GET */
    } cases[] = {{"u1", 0}, {"u2", 1}, {"u3", 0}, {"u4", 1}, {"u5", 1}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        redisContext *u = h_connect(&srv);
        if (!u)
            break;
        EXPECT_OK(u, "AUTH", cases[i].user, "x");
        if (cases[i].full) {
            EXPECT_REPLY(u, "['1', '2']", "SORT", "l", "BY", "w_*", "GET", "#");
        } else {
            EXPECT_ERR(u, "ERR BY option of SORT denied due to insufficient ACL permissions.",
                       "SORT", "l", "BY", "w_*", "GET", "#");
            EXPECT_ERR(u, "ERR GET option of SORT denied due to insufficient ACL permissions.",
                       "SORT", "l", "GET", "#", "BY", "w_*");
            EXPECT_ERR(u, "ERR GET option of SORT denied due to insufficient ACL permissions.",
                       "SORT_RO", "l", "BY", "nosort", "GET", "#");
            EXPECT_ERR(u, "ERR syntax error", "SORT", "l", "nope", "GET", "#");
            /* A BY without '*' reads no key. */
            EXPECT_REPLY(u, "['2', '1']", "SORT", "l", "BY", "nosort");
            EXPECT_MATCH(u, "-ERR GET option of SORT denied due to insufficient ACL "
                            "permissions. script*",
                         "EVAL_RO", "return redis.call('sort_ro', KEYS[1], 'get', '#')", "1",
                         "l");
        }
        redisFree(u);
    }
    /* u4's second selector reads everything, but may not write d: it
     * does not count for a STORE there, and the first may not read x_*. */
    redisContext *u = h_connect(&srv);
    if (u) {
        EXPECT_OK(u, "AUTH", "u4", "x");
        EXPECT_INT(u, 2, "SORT", "l", "GET", "#", "STORE", "lout");
        freeReplyObject(H_CALL(c, "ACL", "SETUSER", "u4", "resetkeys", "~l*", "clearselectors",
                               "(+@all %R~*)"));
        EXPECT_ERR(u, "ERR GET option of SORT denied due to insufficient ACL permissions.",
                   "SORT", "l", "GET", "#", "STORE", "lout");
        EXPECT_REPLY(u, "['1', '2']", "SORT", "l", "GET", "#");
        redisFree(u);
    }
    redisFree(c);
}

/* A sequence whose keyspace events and dirty counts are compared. */
static const char *const event_lines[] = {
    "RPUSH l 3 1 2",         /* new, rpush */
    "SORT l",                /* nothing */
    "SORT l STORE d",        /* new, sortstore; 3 changes */
    "SORT l LIMIT 0 1 STORE d", /* sortstore, over d */
    "SORT l LIMIT 9 1 STORE d", /* del */
    "SORT l LIMIT 9 1 STORE d", /* nothing */
    "SORT l GET # GET nosuch_* STORE d", /* new, sortstore; 6 changes */
    "SET end end",
};

static void test_events_and_dirty(void)
{
    char ours[1024], theirs[1024];
    long long dirty[16] = {0}, ref_dirty[16] = {0};
    h_events_and_dirty(&srv, event_lines, sizeof(event_lines) / sizeof(event_lines[0]), ours,
                       sizeof(ours), dirty);
    const char *want = "new l;rpush l;new d;sortstore d;sortstore d;del d;new d;sortstore d;"
                       "new end;set end;";
    CHECK(!strcmp(ours, want), "events: got %s, want %s", ours, want);
    long long want_dirty[] = {3, 0, 3, 1, 1, 0, 6, 1};
    for (size_t i = 0; i < sizeof(want_dirty) / sizeof(want_dirty[0]); i++)
        CHECK(dirty[i] == want_dirty[i], "command %zu changed dirty by %lld, want %lld", i,
              dirty[i], want_dirty[i]);
    if (!have_ref)
        return;
    h_events_and_dirty(&ref, event_lines, sizeof(event_lines) / sizeof(event_lines[0]), theirs,
                       sizeof(theirs), ref_dirty);
    CHECK(!strcmp(ours, theirs), "events: rbkv %s, redis %s", ours, theirs);
}

/* WATCH sees STORE's destination change, not a read of the source; a
 * client blocked on the destination is served by the STORE. */
static void test_watch_and_wakeup(void)
{
    redisContext *c = h_connect_flushed(&srv), *o = h_connect(&srv), *w = h_connect(&srv);
    if (!c || !o || !w) {
        redisFree(c);
        redisFree(o);
        redisFree(w);
        return;
    }
    EXPECT_INT(c, 2, "RPUSH", "l", "2", "1");
    EXPECT_OK(c, "WATCH", "l");
    EXPECT_INT(o, 2, "SORT", "l", "STORE", "d");
    EXPECT_REPLY(o, "['1', '2']", "SORT", "l");
    EXPECT_TRANSACTION(c, "[+PONG]", "PING");
    EXPECT_OK(c, "WATCH", "d");
    EXPECT_INT(o, 2, "SORT", "l", "DESC", "STORE", "d");
    EXPECT_TRANSACTION(c, "(nil)", "PING");
    EXPECT_OK(c, "WATCH", "d");
    EXPECT_INT(o, 0, "SORT", "missing", "STORE", "d");
    EXPECT_TRANSACTION(c, "(nil)", "PING");

    H_SEND(w, "BLPOP", "q", "10");
    h_wait_blocked(c, 1, 5000 * H_SLOW);
    EXPECT_INT(o, 2, "SORT", "l", "STORE", "q");
    EXPECT_NEXT(w, "['q', '1']");
    EXPECT_REPLY(c, "['2']", "LRANGE", "q", "0", "-1");
    redisFree(w);
    redisFree(o);
    redisFree(c);
}

/* A replica gets SORT ... STORE as called: the same list. */
static void test_replica(void)
{
    if (h_is_reference())
        return;
    struct h_server p, rep;
    char port[16];
    if (h_start(&p, NULL) != 0)
        return;
    if (h_start(&rep, NULL) != 0) {
        h_stop(&p);
        return;
    }
    redisContext *pc = h_connect(&p), *rc = h_connect(&rep);
    snprintf(port, sizeof(port), "%d", p.port);
    if (pc && rc && EXPECT_OK(rc, "REPLICAOF", "127.0.0.1", port) &&
        CHECK(h_wait_info(rc, "replication", "master_link_status", "up", 10000 * H_SLOW),
              "the replica's link came up")) {
        EXPECT_INT(pc, 4, "SADD", "s", "b", "3", "a", "1");
        EXPECT_OK(pc, "SET", "w_a", "x");
        EXPECT_INT(pc, 4, "SORT", "s", "BY", "nosort", "GET", "w_*", "STORE", "d1");
        EXPECT_INT(pc, 2, "SORT", "s", "LIMIT", "1", "2", "ALPHA", "DESC", "STORE", "d2");
        EXPECT_INT(pc, 0, "SORT", "s", "LIMIT", "9", "2", "ALPHA", "STORE", "d2");
        if (h_wait_caught_up(pc, rc, 10000 * H_SLOW)) {
            EXPECT_REPLY(rc, "['', '', 'x', '']", "LRANGE", "d1", "0", "-1");
            EXPECT_INT(rc, 0, "EXISTS", "d2");
        }
    }
    redisFree(pc);
    redisFree(rc);
    h_stop(&rep);
    h_stop(&p);
}

/* Cluster mode refuses BY patterns and GET (the keys could live on any
 * node), on rbkv and on Redis alike. */
static void test_cluster(void)
{
    char bus[8];
    int bport = h_free_port();
    if (!CHECK(bport > 0, "a free port for the bus"))
        return;
    snprintf(bus, sizeof(bus), "%d", bport);
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--cluster-enabled", "yes", "--cluster-config-file",
                                         "nodes-sort.conf", "--cluster-port", bus));
    if (!c)
        return;
    EXPECT_OK(c, "CLUSTER", "ADDSLOTSRANGE", "0", "16383");
    int64_t deadline = h_now_ms() + 10000 * H_SLOW;
    while (h_now_ms() < deadline) {
        redisReply *r = H_CALL(c, "SET", "{l}w_1", "1");
        int ok = r && r->type == REDIS_REPLY_STATUS;
        freeReplyObject(r);
        if (ok)
            break;
        h_sleep_ms(50);
    }
    EXPECT_INT(c, 2, "RPUSH", "l", "2", "1");
    EXPECT_REPLY(c, "['1', '2']", "SORT", "l");
    EXPECT_REPLY(c, "['2', '1']", "SORT", "l", "BY", "nosort");
    EXPECT_ERR(c, "ERR BY option of SORT denied in Cluster mode.", "SORT", "l", "BY", "w_*");
    EXPECT_ERR(c, "ERR GET option of SORT denied in Cluster mode.", "SORT", "l", "GET", "#");
    EXPECT_ERR(c, "ERR GET option of SORT denied in Cluster mode.", "SORT_RO", "l", "GET", "#",
               "BY", "w_*");
    EXPECT_INT(c, 2, "SORT", "l", "STORE", "{l}d");
    EXPECT_ERR(c, "CROSSSLOT Keys in request don't hash to the same slot", "SORT", "l", "STORE",
               "d");
    h_close(&s, c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_basics);
    H_RUN(test_errors);
    H_RUN(test_store);
    H_RUN(test_random_against_redis);
    H_RUN(test_scripts_and_resp3);
    H_RUN(test_command_info);
    H_RUN(test_acl);
    H_RUN(test_events_and_dirty);
    H_RUN(test_watch_and_wakeup);
    H_RUN(test_replica);
    H_RUN(test_cluster);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
