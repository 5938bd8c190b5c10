/*
 * test_hll.c - end-to-end tests of the HyperLogLog commands (PFADD PFCOUNT
 * PFMERGE PFDEBUG PFSELFTEST) and of HLL values as strings.
 *
 * Fixed expectations (Redis 7.0.15's replies, bytes and error texts) hold on
 * their own, so the program also passes against redis-server. With
 * redis-server installed a reference runs beside ours and the same commands
 * go to both, every reply and every value (GET: the HLL's bytes, sparse or
 * dense, its cached count included) compared byte for byte:
 *  - random PFADDs of random elements to a few keys, PFCOUNT of one and of
 *    several, PFMERGE, PFDEBUG, the sparse limit changed now and then, so
 *    values cross from sparse to dense at different sizes;
 *  - values moved between the servers (GET on one, SET on the other), then
 *    counted and added to on both;
 *  - corrupted values (bytes flipped or overwritten, cut, lengthened) set on
 *    both, then every command run on them;
 *  - keyspace events, dirty counts, WATCH, and what a replica receives
 *    (PFCOUNT's cache write goes to it as PFCOUNT).
 * SEED=<n> replays the random parts; the seed is printed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "rng.h"

#define RANDOM_OPS 3000  /* commands of the random comparison (divided by H_SLOW) */
#define CORRUPT_RUNS 300 /* corrupted values tried (divided by H_SLOW) */
#define KEYS 5           /* keys the random sequence works on */
#define MAX_ELEMENTS 120 /* elements of one random PFADD */
#define ELEMENT_MAX 24   /* bytes of one random element */
#define HLL_HDR 16
#define HLL_DENSE_LEN 12304
#define NOT_HLL "WRONGTYPE Key is not a valid HyperLogLog string value."
#define CORRUPT "INVALIDOBJ Corrupted HLL object detected"

static struct h_server srv, ref;
static int have_ref;

static uint64_t rng_state;

/* ---- fixed expectations ---- */

static void test_basics(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_INT(c, 1, "PFADD", "h", "a", "b", "c");
    EXPECT_INT(c, 0, "PFADD", "h", "a");
    EXPECT_INT(c, 3, "PFCOUNT", "h");
    /* The count is cached in the header, little endian; sparse opcodes
     * after it. */
    EXPECT_BIN(c, "'HYLL\\x01\\x00\\x00\\x00\\x03\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
                  "`\\xf3\\x80P\\xb1\\x84K\\xfb\\x80BZ'",
               H_S("GET"), H_S("h"));
    EXPECT_BULK(c, "Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603", "PFDEBUG", "DECODE", "h");
    EXPECT_STATUS(c, "sparse", "PFDEBUG", "ENCODING", "h");
    /* An empty PFADD creates the empty HLL, its cache marked stale. */
    EXPECT_INT(c, 1, "PFADD", "e");
    EXPECT_BIN(c, "'HYLL\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x80\\x7f\\xff'",
               H_S("GET"), H_S("e"));
    EXPECT_INT(c, 0, "PFCOUNT", "e");
    EXPECT_INT(c, 0, "PFCOUNT", "missing");
    EXPECT_INT(c, 3, "PFCOUNT", "h", "e", "missing");
    EXPECT_OK(c, "PFMERGE", "m", "h", "e", "missing");
    EXPECT_INT(c, 3, "PFCOUNT", "m");
    EXPECT_INT(c, 1, "PFDEBUG", "TODENSE", "m");
    EXPECT_INT(c, 0, "PFDEBUG", "todense", "m");
    EXPECT_STATUS(c, "dense", "PFDEBUG", "ENCODING", "m");
    EXPECT_INT(c, HLL_DENSE_LEN, "STRLEN", "m");
    EXPECT_INT(c, 3, "PFCOUNT", "m");
    EXPECT_ERR(c, "ERR HLL encoding is not sparse", "PFDEBUG", "DECODE", "m");
    redisReply *regs = H_CALL(c, "PFDEBUG", "GETREG", "m");
    CHECK(regs && regs->type == REDIS_REPLY_ARRAY && regs->elements == 16384 &&
              regs->element[8436]->integer == 1 && regs->element[12711]->integer == 2,
          "PFDEBUG GETREG: 16384 registers, 8436 at 1 and 12711 at 2");
    freeReplyObject(regs);
    /* A dense source makes PFMERGE's result dense. */
    EXPECT_OK(c, "PFMERGE", "m2", "h", "m");
    EXPECT_STATUS(c, "dense", "PFDEBUG", "ENCODING", "m2");
    EXPECT_OK(c, "PFSELFTEST");
    redisFree(c);
}

static void test_errors(void)
{
    redisContext *c = h_connect_flushed(&srv);
    EXPECT_OK(c, "SET", "s", "not an hll at all, long enough");
    EXPECT_OK(c, "SET", "short", "HYLL");
    EXPECT_INT(c, 1, "LPUSH", "l", "x");
    EXPECT_ERR(c, NOT_HLL, "PFADD", "s", "a");
    EXPECT_ERR(c, NOT_HLL, "PFCOUNT", "short");
    EXPECT_ERR(c, NOT_HLL, "PFCOUNT", "missing", "s");
    EXPECT_ERR(c, NOT_HLL, "PFMERGE", "d", "s");
    EXPECT_INT(c, 0, "EXISTS", "d");
    EXPECT_ERR(c, NOT_HLL, "PFDEBUG", "ENCODING", "s");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "PFADD",
               "l", "a");
    EXPECT_ERR(c, "ERR The specified key does not exist", "PFDEBUG", "GETREG", "missing");
    EXPECT_INT(c, 1, "PFADD", "h", "a");
    EXPECT_ERR(c, "ERR Unknown PFDEBUG subcommand 'nope'", "PFDEBUG", "nope", "h");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'pfdebug' command", "PFDEBUG", "GETREG",
               "h", "x");
    /* A dense value of the wrong length is no HLL; a sparse one whose
     * opcodes do not cover 16384 registers is corrupt. */
    EXPECT_OK(c, "SET", "d", "x");
    EXPECT_INT(c, 1, "DEL", "d");
    freeReplyObject(H_CALL(c, "APPEND", "h", "x"));
    EXPECT_ERR(c, CORRUPT, "PFCOUNT", "h");
    EXPECT_ERR(c, CORRUPT, "PFMERGE", "d", "h");
    EXPECT_ERR(c, CORRUPT, "PFDEBUG", "TODENSE", "h");
    EXPECT_INT(c, 0, "EXISTS", "d");
    /* 16383 registers: PFADD to the last one finds no opcode for it. */
    EXPECT_BIN(c, "+OK", H_S("SET"), H_S("k"), H_S("HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f\xfe"));
    EXPECT_ERR(c, CORRUPT, "PFCOUNT", "k");
    EXPECT_BIN(c, "-" CORRUPT, H_S("PFADD"), H_S("k"),
               H_S("e1674"));
    /* A current cached count is answered without reading the opcodes. */
    EXPECT_BIN(c, "+OK", H_S("SET"), H_S("k"), H_S("HYLL\x01\0\0\0\x07\0\0\0\0\0\0\0\x7f\xfe"));
    EXPECT_INT(c, 7, "PFCOUNT", "k");
    redisFree(c);
}

/* ---- comparisons with redis-server ---- */

/* A random element: 0 to ELEMENT_MAX bytes, binary, often repeated. */
static size_t rnd_element(char *buf)
{
    if (rng_next(&rng_state) % 3 == 0)
        return (size_t)snprintf(buf, ELEMENT_MAX, "%llu", (unsigned long long)(rng_next(&rng_state) % 500));
    size_t n = (size_t)rng_range(&rng_state, 0, ELEMENT_MAX);
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)rng_next(&rng_state);
    return n;
}

/* A random command on keys k0..k(KEYS-1), in argv/lens (room for
 * MAX_ELEMENTS + 2 arguments, their bytes in store). Returns argc. */
static int random_command(const char **argv, size_t *lens, char store[][ELEMENT_MAX + 1])
{
    static const char *const keys[KEYS] = {"k0", "k1", "k2", "k3", "k4"};
    static const char *const debug[] = {"ENCODING", "DECODE", "GETREG", "TODENSE", "encoding"};
    static const char *const limits[] = {"0", "40", "300", "3000", "12000"};
    int argc = 0;
    long long what = rng_range(&rng_state, 0, 99);
#define ARG(s) (argv[argc] = (s), lens[argc] = strlen(argv[argc]), argc++)
    if (what < 65) {
        ARG("PFADD");
        ARG(keys[rng_next(&rng_state) % KEYS]);
        /* Mostly a few, sometimes many: a key crosses into dense in a
         * single command too. */
        int n = (int)(rng_next(&rng_state) % 8 ? rng_range(&rng_state, 0, 12) : rng_range(&rng_state, 0, MAX_ELEMENTS));
        for (int i = 0; i < n; i++) {
            lens[argc] = rnd_element(store[argc]);
            argv[argc] = store[argc];
            argc++;
        }
    } else if (what < 80) {
        ARG("PFCOUNT");
        int n = (int)(rng_next(&rng_state) % 3 ? 1 : rng_range(&rng_state, 2, 4));
        for (int i = 0; i < n; i++)
            ARG(keys[rng_next(&rng_state) % KEYS]);
    } else if (what < 88) {
        ARG("PFMERGE");
        int n = (int)rng_range(&rng_state, 1, 4);
        for (int i = 0; i < n; i++)
            ARG(keys[rng_next(&rng_state) % KEYS]);
    } else if (what < 94) {
        ARG("PFDEBUG");
        ARG(debug[rng_next(&rng_state) % 5]);
        ARG(keys[rng_next(&rng_state) % KEYS]);
    } else if (what < 97) {
        ARG("CONFIG");
        ARG("SET");
        ARG("hll-sparse-max-bytes");
        ARG(limits[rng_next(&rng_state) % 5]);
    } else {
        ARG(rng_next(&rng_state) % 2 ? "DEL" : "GET");
        ARG(keys[rng_next(&rng_state) % KEYS]);
    }
#undef ARG
    return argc;
}

static int same_values(redisContext *c, redisContext *r)
{
    static const char *const keys[KEYS] = {"k0", "k1", "k2", "k3", "k4"};
    int ok = 1;
    for (int k = 0; k < KEYS; k++)
        ok &= H_SAME(c, r, "GET", keys[k]);
    return ok;
}

/* A random comparison's start: the seed printed and the generator seeded
 * from it, and a flushed client of each server. NULL, said so, when there
 * is no reference. */
static redisContext *random_pair(redisContext **r, uint64_t *seed)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return NULL;
    }
    *seed = h_seed();
    rng_state = *seed;
    return h_connect_pair(&srv, &ref, r);
}

static void test_random_against_redis(void)
{
    uint64_t seed;
    redisContext *r, *c = random_pair(&r, &seed);
    if (!c)
        return;
    static char store[MAX_ELEMENTS + 2][ELEMENT_MAX + 1];
    const char *argv[MAX_ELEMENTS + 2];
    size_t lens[MAX_ELEMENTS + 2];
    const int n = RANDOM_OPS / H_SLOW;
    int failures = 0;
    for (int i = 0; i < n && failures < 5; i++) {
        int argc = random_command(argv, lens, store);
        int ok = h_same(__FILE__, __LINE__, c, r, argc, argv, lens);
        if (!same_values(c, r) || !ok) {
            char cmd[512];
            printf("  at command %d: %s\n", i, h_command_text(cmd, sizeof(cmd), argc, argv, lens));
            failures++;
        }
    }
    H_SAME(c, r, "CONFIG", "SET", "hll-sparse-max-bytes", "3000");
    CHECK(failures == 0, "random comparison failed, SEED=%" PRIu64, seed);
    h_close_pair(c, r);
}

/* GET of key on from, SET as to_key on to. Returns 1 when it moved. */
static int move_value(redisContext *from, const char *key, redisContext *to, const char *to_key)
{
    redisReply *v = H_CALL(from, "GET", key);
    int ok = CHECK(v && v->type == REDIS_REPLY_STRING, "GET %s", key);
    if (ok) {
        redisReply *s = H_CALL_BIN(to, H_S("SET"), H_B(to_key, strlen(to_key)),
                                   H_B(v->str, v->len));
        ok = CHECK(s && s->type == REDIS_REPLY_STATUS, "SET %s", to_key);
        freeReplyObject(s);
    }
    freeReplyObject(v);
    return ok;
}

/* HLLs made on one server go on on the other: sparse and dense, each way. */
static void test_values_move_between_servers(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    redisContext *r, *c = h_connect_pair(&srv, &ref, &r);
    char e[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(e, sizeof(e), "el-%d", i);
        if (i < 40)
            freeReplyObject(H_CALL(r, "PFADD", "sparse", e));
        freeReplyObject(H_CALL(r, "PFADD", "dense", e));
        freeReplyObject(H_CALL(c, "PFADD", "ours", e));
    }
    EXPECT_STATUS(r, "dense", "PFDEBUG", "ENCODING", "dense");
    /* Redis's to ours as "sparse" and "dense"; ours to Redis's as "ours". */
    if (move_value(r, "sparse", c, "sparse") && move_value(r, "dense", c, "dense") &&
        move_value(c, "ours", r, "ours")) {
        static const char *const keys[] = {"sparse", "dense", "ours"};
        for (size_t k = 0; k < 3; k++) {
            H_SAME(c, r, "GET", keys[k]);
            H_SAME(c, r, "PFCOUNT", keys[k]);
            H_SAME(c, r, "GET", keys[k]);
            H_SAME(c, r, "PFADD", keys[k], "x1", "x2", "x3", "el-1");
            H_SAME(c, r, "GET", keys[k]);
            H_SAME(c, r, "PFCOUNT", keys[k]);
        }
        H_SAME(c, r, "PFCOUNT", "sparse", "dense", "ours");
        H_SAME(c, r, "PFMERGE", "sparse", "ours");
        H_SAME(c, r, "GET", "sparse");
    }
    h_close_pair(c, r);
}

/* Whether the sparse value v ends with an XZERO missing its second byte:
 * Redis reads its string's terminator as that byte, and a PFADD splitting
 * the run writes one byte into the terminator, which later reads of the
 * key see; rbkv has no terminator (docs/commands.md, PFADD). */
static int truncated_xzero(const redisReply *v)
{
    if (!v || v->type != REDIS_REPLY_STRING || v->len <= HLL_HDR || v->str[4] != 1)
        return 0;
    size_t p = HLL_HDR;
    while (p < v->len) {
        if (((unsigned char)v->str[p] & 0xc0) == 0x40) {
            if (p + 1 == v->len)
                return 1;
            p += 2;
        } else {
            p++;
        }
    }
    return 0;
}

/* A valid HLL of n elements made on the reference as "src" and copied to
 * c, then corrupted into buf: bytes flipped or overwritten (in the header
 * too, now and then), cut or lengthened. */
static void corrupt_value(redisContext *c, redisContext *r, int n, char *buf, size_t *len)
{
    freeReplyObject(H_CALL(r, "DEL", "src"));
    char e[32];
    for (int i = 0; i < n; i++) {
        snprintf(e, sizeof(e), "%llu", (unsigned long long)rng_next(&rng_state));
        freeReplyObject(H_CALL(r, "PFADD", "src", e));
    }
    move_value(r, "src", c, "src");
    redisReply *v = H_CALL(r, "GET", "src");
    *len = v && v->type == REDIS_REPLY_STRING ? v->len : 0;
    if (*len)
        memcpy(buf, v->str, *len);
    freeReplyObject(v);
    if (*len <= HLL_HDR)
        return;
    int flips = (int)rng_range(&rng_state, 1, 3);
    for (int f = 0; f < flips; f++) {
        size_t pos = rng_next(&rng_state) % 8 ? (size_t)rng_range(&rng_state, HLL_HDR, (long long)*len - 1)
                               : (size_t)(rng_next(&rng_state) % *len);
        if (rng_next(&rng_state) % 2)
            buf[pos] ^= (char)(1u << (rng_next(&rng_state) % 8));
        else
            buf[pos] = (char)rng_next(&rng_state);
    }
    if (rng_next(&rng_state) % 5 == 0)
        *len = (size_t)rng_range(&rng_state, 0, (long long)*len - 1);
    else if (rng_next(&rng_state) % 10 == 0)
        for (int i = (int)rng_range(&rng_state, 1, 3); i > 0; i--)
            buf[(*len)++] = (char)rng_next(&rng_state);
}

static void test_corrupt_against_redis(void)
{
    uint64_t seed;
    redisContext *r, *c = random_pair(&r, &seed);
    if (!c)
        return;
    static char buf[HLL_DENSE_LEN + 8];
    static const int sizes[] = {3, 30, 300, 3000};
    int failures = 0;
    const int runs = CORRUPT_RUNS / H_SLOW;
    for (int run = 0; run < runs && failures < 5; run++) {
        size_t len;
        corrupt_value(c, r, sizes[rng_next(&rng_state) % 4], buf, &len);
        for (int k = 0; k < 2; k++) {
            const char *key = k ? "k2" : "k";
            H_SAME(c, r, "DEL", key);
            h_same(__FILE__, __LINE__, c, r, 3, (const char *const[]){"SET", key, buf},
                   (const size_t[]){3, strlen(key), len});
        }
        H_SAME(c, r, "DEL", "d");
        static const char *const ops[][5] = {
            {"PFCOUNT", "k"},       {"PFCOUNT", "k", "src"},       {"PFMERGE", "d", "k"},
            {"PFDEBUG", "DECODE", "k"}, {"PFDEBUG", "ENCODING", "k"}, {"PFADD", "k", "a", "b", "c"},
            {"PFDEBUG", "TODENSE", "k2"}, {"PFDEBUG", "GETREG", "k2"}, {"PFMERGE", "src", "k2"},
        };
        int tainted = 0; /* which of k, k2, d, src the terminator's byte reached */
        static const char *const keys[] = {"k", "k2", "d", "src"};
        for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
            size_t i = (o + (size_t)run) % (sizeof(ops) / sizeof(ops[0]));
            int argc = 0;
            while (argc < 5 && ops[i][argc])
                argc++;
            /* A write splitting a truncated XZERO taints what it writes. */
            int target = !strcmp(ops[i][0], "PFDEBUG") ? 2 : 1;
            int reads_tainted = 0;
            for (int a = 1; a < argc; a++)
                for (int kk = 0; kk < 4; kk++)
                    if (!strcmp(ops[i][a], keys[kk]) && (tainted & (1 << kk)))
                        reads_tainted = 1;
            if (!strcmp(ops[i][0], "PFADD") || !strcmp(ops[i][0], "PFMERGE")) {
                redisReply *before = H_CALL(r, "GET", ops[i][1]);
                reads_tainted |= truncated_xzero(before);
                freeReplyObject(before);
            }
            if (reads_tainted) {
                for (int kk = 0; kk < 4; kk++)
                    if (!strcmp(ops[i][target], keys[kk]))
                        tainted |= 1 << kk;
                freeReplyObject(h_command(c, argc, ops[i], NULL));
                freeReplyObject(h_command(r, argc, ops[i], NULL));
            } else if (!h_same(__FILE__, __LINE__, c, r, argc, ops[i], NULL)) {
                failures++;
            }
            for (int kk = 0; kk < 4; kk++)
                if (!(tainted & (1 << kk)) && !H_SAME(c, r, "GET", keys[kk]))
                    failures++;
        }
    }
    CHECK(failures == 0, "corrupt values compared differently, SEED=%" PRIu64, seed);
    h_close_pair(c, r);
}

/* The keyspace events and dirty counts of a sequence. */
static const char *const event_lines[] = {
    "PFADD h a b c", /* new, pfadd */
    "PFADD h a",     /* nothing changed */
    "PFADD h d e",   /* pfadd: dirty counts each register raised */
    "PFCOUNT h",     /* writes the cache: dirty, no event */
    "PFCOUNT h",     /* cached */
    "PFMERGE m h",   /* new, pfadd */
    "PFMERGE m",     /* pfadd, even with nothing new */
    "PFDEBUG TODENSE m",
    "PFDEBUG TODENSE m",
    "SET end end",
};

static void test_events_and_dirty(void)
{
    char ours[1024], theirs[1024];
    long long dirty[16] = {0}, ref_dirty[16] = {0};
    h_events_and_dirty(&srv, event_lines, sizeof(event_lines) / sizeof(event_lines[0]), ours,
                       sizeof(ours), dirty);
    const char *want = "new h;pfadd h;pfadd h;new m;pfadd m;pfadd m;new end;set end;";
    CHECK(!strcmp(ours, want), "events: got %s, want %s", ours, want);
    long long want_dirty[] = {4, 0, 2, 1, 0, 1, 1, 1, 0, 1};
    for (size_t i = 0; i < sizeof(want_dirty) / sizeof(want_dirty[0]); i++)
        CHECK(dirty[i] == want_dirty[i], "command %zu changed dirty by %lld, want %lld", i,
              dirty[i], want_dirty[i]);
    if (!have_ref)
        return;
    h_events_and_dirty(&ref, event_lines, sizeof(event_lines) / sizeof(event_lines[0]), theirs,
                       sizeof(theirs), ref_dirty);
    CHECK(!strcmp(ours, theirs), "events: rbkv %s, redis %s", ours, theirs);
}

/* A PFCOUNT that refreshes the cache changes the value: WATCH sees it; a
 * cached one changes nothing; PFMERGE touches its destination alone. */
static void test_watch(void)
{
    redisContext *c = h_connect_flushed(&srv), *o = h_connect(&srv);
    EXPECT_INT(c, 1, "PFADD", "h", "a", "b");
    EXPECT_OK(c, "WATCH", "h");
    EXPECT_INT(o, 2, "PFCOUNT", "h");
    EXPECT_TRANSACTION(c, "(nil)", "PING");
    EXPECT_OK(c, "WATCH", "h");
    EXPECT_INT(o, 2, "PFCOUNT", "h");
    EXPECT_INT(o, 0, "PFADD", "h", "a");
    EXPECT_TRANSACTION(c, "[+PONG]", "PING");
    /* PFMERGE changes its destination only. */
    EXPECT_OK(c, "WATCH", "h");
    EXPECT_OK(o, "PFMERGE", "m", "h");
    EXPECT_TRANSACTION(c, "[+PONG]", "PING");
    EXPECT_OK(c, "WATCH", "m");
    EXPECT_OK(o, "PFMERGE", "m", "h");
    EXPECT_TRANSACTION(c, "(nil)", "PING");
    redisFree(o);
    redisFree(c);
}

/* A replica gets PFADD, PFMERGE and PFDEBUG's conversions as called, and
 * PFCOUNT when it wrote the cache: its values are the primary's bytes. */
static void test_replica_gets_the_same_bytes(void)
{
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
        EXPECT_INT(pc, 1, "PFADD", "a", "x", "y", "z");
        EXPECT_INT(pc, 3, "PFCOUNT", "a");
        EXPECT_OK(pc, "PFMERGE", "b", "a");
        EXPECT_INT(pc, 3, "PFCOUNT", "b");
        EXPECT_INT(pc, 1, "PFADD", "c", "q");
        EXPECT_INT(pc, 1, "PFDEBUG", "TODENSE", "c");
        EXPECT_INT(pc, 1, "PFCOUNT", "c");
        if (h_wait_caught_up(pc, rc, 10000 * H_SLOW)) {
            static const char *const keys[] = {"a", "b", "c"};
            for (size_t k = 0; k < 3; k++) {
                redisReply *x = H_CALL(pc, "GET", keys[k]), *y = H_CALL(rc, "GET", keys[k]);
                CHECK(x && y && h_reply_equal(x, y), "the replica's %s is the primary's bytes",
                      keys[k]);
                freeReplyObject(x);
                freeReplyObject(y);
            }
        }
    }
    redisFree(pc);
    redisFree(rc);
    h_stop(&rep);
    h_stop(&p);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_basics);
    H_RUN(test_errors);
    H_RUN(test_random_against_redis);
    H_RUN(test_values_move_between_servers);
    H_RUN(test_corrupt_against_redis);
    H_RUN(test_events_and_dirty);
    H_RUN(test_watch);
    H_RUN(test_replica_gets_the_same_bytes);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
