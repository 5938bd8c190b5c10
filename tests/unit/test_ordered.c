/*
 * test_ordered.c - in-process tests of the ordered keyspace commands
 * (server/commands/cmd_ordered.c, cmd_scan.c) and the layers under them
 * (server/data/lexrange.[ch], krange.[ch]).
 *
 * Owns: one fake client on a one-database keyspace, driven through the real
 * dispatcher (command_execute), its replies read back with hiredis's reader.
 * No socket and no loop: each command runs to completion in the call.
 *
 * Parts:
 *   lexrange  bound parsing and comparison, every form and edge;
 *   spans     glob literal prefixes, prefix spans at 0xFF edges, type names;
 *   resp3     WITHVALUES as pairs, a non-string value as nil, byte for byte;
 *   cursors   SCAN cursors are single-use, bounded (the oldest is dropped)
 *             and refused with an error once gone;
 *   random    the differential test of tests/unit/ordered_diff.h, RANDOM_OPS
 *             operations, ks_check() after each command. Deadlines are made
 *             to pass by setting them in the past, so an expired key stays
 *             in the tree until a command removes it.
 * Every part ends with the keyspace freed and mem_used() back at zero: the
 * allocator wrappers count every byte, so a leaked entry or cursor fails.
 *
 * usage: test_ordered [part]... (no argument runs all). The random part
 * prints SEED=<n>; SEED=<n> in the environment replays it.
 */
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "client.h"
#include "clock.h"
#include "command.h"
#include "commands.h"
#include "keyspace.h"
#include "krange.h"
#include "lexrange.h"
#include "mem.h"
#include "ordered_diff.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"

#define RANDOM_OPS 250000
#define SCAN_CURSORS_MAX 10000 /* cmd_scan.c's bound, tested here */
#define ARGS_MAX 16

static struct client cl;

static void check_db(void)
{
    const char *why = NULL;
    CHECK_MSG(ks_check(cl.db, &why) >= 0, "ks_check: %s", why);
}

static void setup(void)
{
    server.ks = ks_new(1);
    memset(&cl, 0, sizeof(cl));
    cl.db = &server.ks->dbs[0];
    resp_out_init(&cl.out);
}

static void teardown(void)
{
    resp_out_destroy(&cl.out);
    ks_free(server.ks);
    server.ks = NULL;
    CHECK(mem_used() == 0);
}

/* Runs argv[0..argc) through the dispatcher; returns the raw reply bytes
 * (NUL-terminated, caller frees) and their length in *len. */
static char *exec_raw(int argc, const char *const *argv, const size_t *lens, size_t *len)
{
    struct resp_slice args[ARGS_MAX];
    CHECK(argc <= ARGS_MAX);
    for (int i = 0; i < argc; i++)
        args[i] = (struct resp_slice){argv[i], lens ? lens[i] : strlen(argv[i])};
    cl.argc = argc;
    cl.argv = args;
    command_execute(&cl);
    check_db();

    char *out = malloc(resp_out_pending(&cl.out) + 1);
    CHECK(out);
    *len = 0;
    struct resp_iov iov[16];
    int n;
    while ((n = resp_out_peek(&cl.out, iov, 16)) > 0) {
        size_t taken = 0;
        for (int i = 0; i < n; i++) {
            memcpy(out + *len, iov[i].base, iov[i].len);
            *len += iov[i].len;
            taken += iov[i].len;
        }
        resp_out_consume(&cl.out, taken);
    }
    CHECK(resp_out_pending(&cl.out) == 0);
    out[*len] = '\0';
    return out;
}

static redisReply *exec_reply(void *ctx, int argc, const char *const *argv, const size_t *lens)
{
    size_t len;
    char *raw = exec_raw(argc, argv, lens, &len);
    redisReader *reader = ctx;
    void *reply = NULL, *extra = NULL;

    CHECK(redisReaderFeed(reader, raw, len) == REDIS_OK);
    CHECK(redisReaderGetReply(reader, &reply) == REDIS_OK && reply);
    CHECK(redisReaderGetReply(reader, &extra) == REDIS_OK && !extra);
    free(raw);
    return reply;
}

/* Expects the raw reply to a command given as NUL-terminated words. */
#define EXPECT_RAW(want, ...) expect_raw(__LINE__, (want), (const char *const[]){__VA_ARGS__, NULL})
static void expect_raw(int line, const char *want, const char *const *words)
{
    int argc = 0;
    while (words[argc])
        argc++;
    size_t len;
    char *got = exec_raw(argc, words, NULL, &len);
    if (len != strlen(want) || memcmp(got, want, len) != 0) {
        fprintf(stderr, "line %d: %s: expected %s, got %s\n", line, words[0], want, got);
        CHECK(!"reply differs");
    }
    free(got);
}

/* ---- lexrange ---- */

static struct lex_bound bound(const char *arg)
{
    struct lex_bound b;
    CHECK(lex_bound_parse(arg, strlen(arg), &b) == 0);
    return b;
}

static void test_lexrange(void)
{
    static const char *const invalid[] = {"", "a", "-a", "+a", "--", "++", "]a", " [a"};
    struct lex_bound b;

    for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++)
        CHECK(lex_bound_parse(invalid[i], strlen(invalid[i]), &b) == -1);
    CHECK(lex_bound_parse("[\0\xff", 3, &b) == 0 && b.kind == LEX_BOUND_INCL && b.len == 2 &&
          memcmp(b.ptr, "\0\xff", 2) == 0);
    b = bound("(");
    CHECK(b.kind == LEX_BOUND_EXCL && b.len == 0);
    CHECK(bound("-").kind == LEX_BOUND_NEG_INF && bound("+").kind == LEX_BOUND_POS_INF);

    /* Bytes compare unsigned, a proper prefix first. */
    struct lex_bound incl = bound("[ab"), excl = bound("(ab"), neg = bound("-"), pos = bound("+");
    CHECK(lex_gte_min("ab", 2, &incl) && !lex_gte_min("ab", 2, &excl));
    CHECK(lex_gte_min("ab\0", 3, &excl) && !lex_gte_min("a", 1, &incl));
    CHECK(lex_gte_min("a\xff", 2, &incl) && !lex_gte_min("a\x01", 2, &incl) && lex_gte_min("b", 1, &excl));
    CHECK(lex_lte_max("ab", 2, &incl) && !lex_lte_max("ab", 2, &excl));
    CHECK(lex_lte_max("a", 1, &excl) && !lex_lte_max("ab\0", 3, &incl));
    CHECK(lex_lte_max("", 0, &excl) && lex_gte_min("", 0, &neg) && !lex_gte_min("", 0, &pos));
    CHECK(lex_lte_max("\xff", 1, &pos) && !lex_lte_max("", 0, &neg));
    struct lex_bound empty_incl = bound("[");
    CHECK(lex_gte_min("", 0, &empty_incl) && lex_lte_max("", 0, &empty_incl));
}

/* ---- spans ---- */

static void glob_case(const char *pat, const char *want, int want_star)
{
    char out[64];
    int star = -1;
    size_t n = kr_glob_prefix(pat, strlen(pat), out, &star);
    if (n != strlen(want) || memcmp(out, want, n) != 0 || star != want_star) {
        fprintf(stderr, "kr_glob_prefix(%s): got %.*s %d\n", pat, (int)n, out, star);
        CHECK(!"glob prefix");
    }
}

static void add_key(const char *key, size_t len)
{
    ks_set_string(cl.db, key, len, "v", 1, 0);
}

static void test_spans(void)
{
    glob_case("", "", 0);
    glob_case("*", "", 1);
    glob_case("user:*", "user:", 1);
    glob_case("user:**", "user:", 1);
    glob_case("user:*:name", "user:", 0);
    glob_case("user", "user", 0);
    glob_case("a?c*", "a", 0);
    glob_case("a[bc]*", "a", 0);
    glob_case("a\\*b*", "a*b", 1);
    glob_case("a\\", "a\\", 0);
    glob_case("\\\\x*", "\\x", 1);

    CHECK(kr_type_by_name("string", 6) == KS_STRING && kr_type_by_name("ZSET", 4) == KS_ZSET);
    CHECK(kr_type_by_name("strin", 5) == -1 && kr_type_by_name("", 0) == -1);

    setup();
    static const struct {
        const char *p;
        size_t len;
    } keys[] = {{"", 0},         {"\0", 1},     {"a", 1},         {"a\xff", 2},
                {"a\xff\xff", 3}, {"b", 1},      {"\xff", 1},      {"\xff\0", 2},
                {"\xff\xff", 2},  {"\xff\xff\xff", 3}};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        add_key(keys[i].p, keys[i].len);
    static const struct {
        const char *p;
        size_t len, lo, hi;
    } prefixes[] = {
        {"", 0, 0, 10},         {"\0", 1, 1, 2},        {"a", 1, 2, 5},
        {"a\xff", 2, 3, 5},     {"a\xff\xff\xff", 4, 5, 5}, {"\xff", 1, 6, 10},
        {"\xff\xff", 2, 8, 10}, {"\xff\0", 2, 7, 8},     {"c", 1, 6, 6},
    };
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        struct kr_span s = kr_span_prefix(cl.db, prefixes[i].p, prefixes[i].len);
        if (s.lo != prefixes[i].lo || s.hi != prefixes[i].hi) {
            fprintf(stderr, "prefix %zu: [%zu, %zu)\n", i, s.lo, s.hi);
            CHECK(!"prefix span");
        }
    }
    /* A prefix longer than the successor's stack buffer. */
    char long_key[600];
    memset(long_key, 'k', sizeof(long_key));
    add_key(long_key, sizeof(long_key));
    struct kr_span s = kr_span_prefix(cl.db, long_key, sizeof(long_key) - 1);
    CHECK(s.hi - s.lo == 1 && ks_klen(ks_select(cl.db, s.lo)) == sizeof(long_key));

    struct lex_bound lo = bound("(a"), hi = bound("[b");
    s = kr_span_lex(cl.db, &lo, &hi);
    CHECK(s.lo == 3 && s.hi == 6);
    s = kr_span_lex(cl.db, &hi, &lo); /* reversed: empty */
    CHECK(s.lo == s.hi);
    teardown();
}

/* ---- resp3 ---- */

static void test_resp3(void)
{
    setup();
    ks_register_type(KS_ZSET, xfree, NULL);
    EXPECT_RAW("+OK\r\n", "SET", "a", "1");
    ks_add_ptr(cl.db, "z", 1, KS_ZSET, xmalloc(8));
    EXPECT_RAW("*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nz\r\n$-1\r\n", "KRANGE", "0", "-1", "WITHVALUES");
    cl.out.proto = 3;
    EXPECT_RAW("*2\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$1\r\nz\r\n_\r\n", "KRANGE", "0", "-1",
               "WITHVALUES");
    EXPECT_RAW("*1\r\n*2\r\n$1\r\nz\r\n_\r\n", "KRANGE", "-", "+", "BYLEX", "WITHVALUES", "TYPE",
               "zset");
    EXPECT_RAW("*1\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n", "KPREFIX", "a", "WITHVALUES");
    EXPECT_RAW("*2\r\n$1\r\nz\r\n$1\r\na\r\n", "KRANGE", "0", "-1", "REV");
    EXPECT_RAW("_\r\n", "KRANK", "nosuchkey");
    cl.out.proto = 2;
    EXPECT_RAW("$-1\r\n", "KRANK", "nosuchkey");
    teardown();
}

/* ---- cursors ---- */

/* Sends SCAN cursor COUNT count; returns the next cursor (0 at the end),
 * or -1 when the reply is an error. */
static long long scan_step(const char *cursor, const char *count)
{
    size_t len;
    const char *argv[] = {"SCAN", cursor, "COUNT", count};
    char *raw = exec_raw(4, argv, NULL, &len);
    long long next = -1;
    if (raw[0] == '*')
        CHECK(sscanf(raw, "*2\r\n$%*d\r\n%lld\r\n", &next) == 1);
    free(raw);
    return next;
}

static void test_cursors(void)
{
    static char ids[SCAN_CURSORS_MAX + 1][24];
    setup();
    EXPECT_RAW("*2\r\n$1\r\n0\r\n*0\r\n", "SCAN", "0");
    for (int i = 0; i < 3; i++) {
        char k[2] = {(char)('a' + i), 0};
        EXPECT_RAW("+OK\r\n", "SET", k, "v");
    }
    /* Single use: the successor works, the used cursor does not. */
    long long first = scan_step("0", "1");
    CHECK(first > 0);
    snprintf(ids[0], sizeof(ids[0]), "%lld", first);
    long long second = scan_step(ids[0], "1");
    CHECK(second > 0 && second != first);
    CHECK(scan_step(ids[0], "1") == -1);
    snprintf(ids[0], sizeof(ids[0]), "%lld", second);
    CHECK(scan_step(ids[0], "1") == 0);

    /* Malformed cursors, and checks that run before the cursor is retired. */
    EXPECT_RAW("-ERR invalid cursor\r\n", "SCAN", "x");
    EXPECT_RAW("-ERR invalid cursor\r\n", "SCAN", "-1");
    EXPECT_RAW("-ERR invalid cursor\r\n", "SCAN", "18446744073709551616");
    EXPECT_RAW("-ERR invalid cursor\r\n", "SCAN", "");
    first = scan_step("0", "1");
    snprintf(ids[0], sizeof(ids[0]), "%lld", first);
    EXPECT_RAW("-ERR syntax error\r\n", "SCAN", ids[0], "COUNT", "0");
    EXPECT_RAW("-ERR syntax error\r\n", "SCAN", ids[0], "COUNT");
    EXPECT_RAW("-ERR value is not an integer or out of range\r\n", "SCAN", ids[0], "COUNT", "x");
    CHECK(scan_step(ids[0], "10") == 0);

    /* One more than the bound: the oldest is dropped, the rest still work. */
    for (int i = 0; i <= SCAN_CURSORS_MAX; i++) {
        long long id = scan_step("0", "1");
        CHECK(id > 0);
        snprintf(ids[i], sizeof(ids[i]), "%lld", id);
    }
    CHECK(scan_step(ids[0], "10") == -1);
    /* Finishing every other iteration empties the table (teardown checks). */
    for (int i = 1; i <= SCAN_CURSORS_MAX; i++)
        CHECK(scan_step(ids[i], "10") == 0);
    teardown();
}

/* ---- random ---- */

static void expire_now(void *ctx, const char *key, size_t len)
{
    (void)ctx;
    struct ks_entry *e = ks_find(cl.db, key, len);
    CHECK(e);
    ks_set_expire(cl.db, e, mstime() - 1);
    check_db();
}

static void add_other(void *ctx, const char *key, size_t len)
{
    (void)ctx;
    /* The key may still be stored past its deadline: the lookup removes it. */
    CHECK(!ks_lookup(cl.db, key, len, mstime()));
    ks_add_ptr(cl.db, key, len, KS_ZSET, xmalloc(8));
    check_db();
}

static void test_random(void)
{
    setup();
    ks_register_type(KS_ZSET, xfree, NULL);
    redisReader *reader = redisReaderCreate();
    struct od_target t = {exec_reply, expire_now, add_other, reader};
    uint64_t seed = check_seed((uint64_t)time(NULL));
    CHECK(od_run(&t, seed, RANDOM_OPS) == 0);
    redisReaderFree(reader);
    teardown();
}

static const struct {
    const char *name;
    void (*fn)(void);
} parts[] = {
    {"lexrange", test_lexrange}, {"spans", test_spans},   {"resp3", test_resp3},
    {"cursors", test_cursors},   {"random", test_random},
};

int main(int argc, char **argv)
{
    commands_register();
    command_init();
    for (int j = 1; j < argc; j++) {
        size_t i = 0;
        while (i < sizeof(parts) / sizeof(parts[0]) && strcmp(argv[j], parts[i].name) != 0)
            i++;
        if (i == sizeof(parts) / sizeof(parts[0])) {
            fprintf(stderr, "usage: %s [lexrange|spans|resp3|cursors|random]...\n", argv[0]);
            return 2;
        }
    }
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        int wanted = argc < 2;
        for (int j = 1; j < argc; j++)
            wanted |= strcmp(argv[j], parts[i].name) == 0;
        if (wanted) {
            parts[i].fn();
            printf("%s: ok\n", parts[i].name);
        }
    }
    return 0;
}
