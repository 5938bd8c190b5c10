/*
 * test_tracking.c - end-to-end tests of client-side caching (CLIENT
 * TRACKING, CACHING, GETREDIR, TRACKINGINFO; server/core/tracking.c).
 *
 * - Dialogues side by side with redis-server: several raw connections on
 *   each server run the same steps; after each step every connection is
 *   synced with a PING and all it received (replies and pushes) is compared
 *   byte for byte, client ids written as the connection's name. Covers the
 *   default mode in RESP3 and RESP2 with REDIRECT (to a subscriber and to a
 *   RESP3 client, and a redirect client that went away), OPTIN/OPTOUT with
 *   CACHING, NOLOOP, BCAST with prefixes (batched, sorted, deduplicated),
 *   MULTI, scripts, expiry, FLUSHDB/FLUSHALL's null, every error text, RESET,
 *   CLIENT INFO's flags and redir, and INFO's tracking fields.
 * - tracking-table-max-keys: keys past the limit are dropped with an
 *   invalidation each (which ones is random, so counted, not named).
 * - Eviction: a key evicted by maxmemory is invalidated.
 * - A cache kept under concurrent writes (SEED=<n> replays it): a RESP3
 *   client caches what it reads, another writes at random (SET, DEL, INCR,
 *   APPEND, EXPIRE to the past and short deadlines, MULTI, scripts,
 *   FLUSHDB), and after each write, once the cache's connection is synced,
 *   every cached value equals the server's: an invalidation always comes
 *   before a stale read could. In default, BCAST and OPTIN modes.
 * The fixed expectations hold on redis-server too (integration_tracking_on_redis).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "rng.h"

#define RANDOM_STEPS 1500 /* divided by H_SLOW */
#define MAX_CONNS 8

static struct h_server srv, ref;
static int have_ref;

/* ---- dialogues ----------------------------------------------------------- */

struct dialogue {
    const struct h_server *s;
    struct h_raw raw[MAX_CONNS];
    char id[MAX_CONNS][24];
    int open[MAX_CONNS], subscribed[MAX_CONNS], in_multi[MAX_CONNS];
};

static int conn_index(char name)
{
    return name - 'a';
}

/* Reads replies on r until the sync PING's answer (QUEUED inside MULTI),
 * appending all before it to out (capped). Returns 0, or -1 when no answer
 * came. */
static int sync_conn(struct h_raw *r, int subscribed, int in_multi, char *out, size_t cap)
{
    const char *pong = in_multi ? "+QUEUED\r\n" : "+PONG\r\n";
    static const char sub_pong[] = "*2\r\n$4\r\npong\r\n$0\r\n\r\n";
    static const char sub_pong3[] = ">2\r\n$4\r\npong\r\n$0\r\n\r\n";
    RAW_SEND(r, "PING\r\n");
    for (;;) {
        size_t len;
        if (h_raw_read_reply(r, &len, H_RAW_TIMEOUT_MS) < 0)
            return -1;
        int done = (len == strlen(pong) && memcmp(r->buf, pong, len) == 0) ||
                   (subscribed && len == sizeof(sub_pong) - 1 &&
                    (memcmp(r->buf, sub_pong, len) == 0 || memcmp(r->buf, sub_pong3, len) == 0));
        if (!done) {
            size_t used = strlen(out);
            if (used + len < cap) {
                memcpy(out + used, r->buf, len);
                out[used + len] = '\0';
            }
        }
        h_raw_consume(r, len);
        if (done)
            return 0;
    }
}

/* Replaces each ":<id>\r\n" and "redir=<id> " of a connection with its name,
 * so the two servers' different ids compare equal. */
static void name_ids(const struct dialogue *d, char *text, size_t cap)
{
    for (int i = 0; i < MAX_CONNS; i++) {
        if (!d->id[i][0])
            continue;
        const char *forms[2][2] = {{":%s\r\n", ":ID_%c\r\n"}, {"redir=%s ", "redir=ID_%c "}};
        for (int f = 0; f < 2; f++) {
            char from[48], to[48];
            snprintf(from, sizeof(from), forms[f][0], d->id[i]);
            snprintf(to, sizeof(to), forms[f][1], 'a' + i);
            /* Only where a reply starts: a key may hold the same bytes. */
            char *p = text;
            while ((p = strstr(p, from)) != NULL) {
                if (f == 0 && p != text && p[-1] != '\n') {
                    p++;
                    continue;
                }
                size_t fl = strlen(from), tl = strlen(to), rest = strlen(p + fl);
                if (strlen(text) - fl + tl >= cap)
                    break;
                memmove(p + tl, p + fl, rest + 1);
                memcpy(p, to, tl);
            }
        }
    }
}

/* Keeps only INFO's tracking_ lines. */
static void keep_tracking_lines(char *text)
{
    char kept[512] = "";
    for (const char *p = strstr(text, "tracking_"); p; p = strstr(p + 1, "\ntracking_")) {
        if (*p == '\n')
            p++;
        const char *end = strchr(p, '\r');
        if (!end)
            break;
        size_t used = strlen(kept);
        snprintf(kept + used, sizeof(kept) - used, "%.*s ", (int)(end - p), p);
    }
    strcpy(text, kept);
}

/* Keeps only the fields of a CLIENT INFO line that tracking owns. */
static void keep_tracking_fields(char *text)
{
    char flags[32] = "", redir[32] = "";
    const char *f = strstr(text, "flags="), *r = strstr(text, "redir=");
    if (f)
        sscanf(f, "flags=%31s", flags);
    if (r)
        sscanf(r, "redir=%31s", redir);
    sprintf(text, "flags=%s redir=%s ", flags, redir);
}

/* Runs one step "x WORDS..." on d: '@y' words become y's id. A step whose
 * command is "QUIT" closes x without syncing it. Writes every connection's
 * received bytes into out. */
static void dialogue_step(struct dialogue *d, const char *step, char *out, size_t cap)
{
    int x = conn_index(step[0]);
    out[0] = '\0';
    if (!d->open[x]) {
        if (h_raw_open(&d->raw[x], d->s) < 0)
            return;
        d->open[x] = 1;
        RAW_SEND(&d->raw[x], "CLIENT ID\r\n");
        size_t len;
        if (h_raw_read_reply(&d->raw[x], &len, H_RAW_TIMEOUT_MS) == 0) {
            snprintf(d->id[x], sizeof(d->id[x]), "%.*s", (int)(len - 3), d->raw[x].buf + 1);
            h_raw_consume(&d->raw[x], len);
        }
    }
    struct h_line l;
    h_split(step + 2, &l);
    char cmd[2048] = "";
    size_t off = (size_t)snprintf(cmd, sizeof(cmd), "*%d\r\n", l.argc);
    for (int i = 0; i < l.argc; i++) {
        const char *w = l.argv[i];
        if (w[0] == '@')
            w = d->id[conn_index(w[1])];
        off += (size_t)snprintf(cmd + off, sizeof(cmd) - off, "$%zu\r\n%s\r\n", strlen(w), w);
    }
    h_raw_send(&d->raw[x], cmd, off);
    if (strcmp(l.argv[0], "QUIT") == 0) {
        size_t len;
        h_raw_read_reply(&d->raw[x], &len, H_RAW_TIMEOUT_MS);
        h_raw_wait_closed(&d->raw[x], H_RAW_TIMEOUT_MS);
        h_raw_close(&d->raw[x]);
        d->open[x] = 0;
    }
    if (strcmp(l.argv[0], "SUBSCRIBE") == 0)
        d->subscribed[x] = 1;
    if (strcmp(l.argv[0], "RESET") == 0)
        d->subscribed[x] = d->in_multi[x] = 0;
    if (strcmp(l.argv[0], "MULTI") == 0)
        d->in_multi[x] = 1;
    if (strcmp(l.argv[0], "EXEC") == 0 || strcmp(l.argv[0], "DISCARD") == 0)
        d->in_multi[x] = 0;
    /* The command's own reply (after any invalidations before it) before
     * the sync PING: pipelined behind it, the PING could run in the same
     * loop turn, before the turn's BCAST messages. */
    char first[8192] = "";
    while (d->open[x]) {
        size_t len;
        if (h_raw_read_reply(&d->raw[x], &len, H_RAW_TIMEOUT_MS) < 0) {
            CHECK(0, "step '%s': no reply", step);
            break;
        }
        int push = len > 21 && memcmp(d->raw[x].buf, ">2\r\n$10\r\ninvalidate\r\n", 21) == 0;
        size_t used = strlen(first);
        if (used + len < sizeof(first)) {
            memcpy(first + used, d->raw[x].buf, len);
            first[used + len] = '\0';
        }
        h_raw_consume(&d->raw[x], len);
        if (!push)
            break;
    }
    /* The one that ran the command first: its reply is then out, and so is
     * everything the command queued for the others. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < MAX_CONNS; i++) {
            if (!d->open[i] || (pass == 0) != (i == x))
                continue;
            char got[8192] = "";
            if (i == x)
                strcpy(got, first);
            if (sync_conn(&d->raw[i], d->subscribed[i], d->in_multi[i], got, sizeof(got)) < 0)
                CHECK(0, "step '%s': connection %c did not answer its PING", step, 'a' + i);
            if (!got[0])
                continue;
            if (i == x && strcmp(l.argv[0], "CLIENT") == 0 && l.argc == 2 &&
                strcmp(l.argv[1], "INFO") == 0)
                keep_tracking_fields(got);
            if (i == x && strcmp(l.argv[0], "INFO") == 0)
                keep_tracking_lines(got);
            name_ids(d, got, sizeof(got));
            size_t used = strlen(out);
            snprintf(out + used, cap - used, "[%c] %s", 'a' + i, got);
        }
    }
}

static void dialogue_close(struct dialogue *d)
{
    for (int i = 0; i < MAX_CONNS; i++)
        if (d->open[i])
            h_raw_close(&d->raw[i]);
}

/* Runs steps on rbkv and redis-server, comparing each step's bytes. */
static void same_dialogue(const char *name, const char *const *steps, size_t n)
{
    if (!have_ref)
        return;
    struct dialogue a = {.s = &srv}, b = {.s = &ref};
    redisContext *fa = h_connect_flushed(&srv), *fb = h_connect_flushed(&ref);
    if (fa)
        redisFree(fa);
    if (fb)
        redisFree(fb);
    for (size_t i = 0; i < n; i++) {
        static char got_a[16384], got_b[16384];
        dialogue_step(&a, steps[i], got_a, sizeof(got_a));
        dialogue_step(&b, steps[i], got_b, sizeof(got_b));
        /* HELLO's map names the server's version: only its length is ours. */
        if (strstr(steps[i], "HELLO"))
            continue;
        CHECK(strcmp(got_a, got_b) == 0, "%s, step '%s':\n  rbkv:  %s\n  redis: %s", name, steps[i],
              got_a, got_b);
    }
    dialogue_close(&a);
    dialogue_close(&b);
}
#define SAME_DIALOGUE(steps) same_dialogue(#steps, steps, sizeof(steps) / sizeof(steps[0]))

static void test_default_mode_resp3(void)
{
    static const char *const steps[] = {
        "a HELLO 3",
        "a CLIENT TRACKING on",
        "b SET k 1",
        "a GET k",
        "b SET k 2",     /* a hears of k */
        "b SET k 3",     /* no longer tracked for a: nothing */
        "a GET k",
        "a SET k 3",     /* its own write: the push after its reply */
        "a GET k",
        "a MGET k k2 k3",
        "b DEL k k2 k3", /* one push per key */
        "a GET k",
        "a MULTI", "a SET k 4", "a GET k", "a EXEC",
        "a GET k",
        "b EXPIRE k 0",
        "a GET k",
        "a HSET h f v",
        "a HGET h f",
        "b HDEL h f",
        "a GET k",
        "b FLUSHALL",    /* a null for all */
        "a GET k",
        "a FLUSHDB",     /* a null after the reply */
        "a GET a1", "a GET a2",
        "b EVAL \"redis.call('set','a1','x') return redis.call('set','a2','y')\" 0",
        "a EVAL \"return redis.call('get',KEYS[1])\" 1 s1",
        "b SET s1 1",
        "a EVAL_RO \"return 1\" 1 s2", /* a read-only script's keys are not tracked */
        "b SET s2 1",
        "b DEBUG SET-ACTIVE-EXPIRE 0", /* the expiry below is the lookup's */
        "a SET px 1 PX 100",
        "a GET px",
        "b DEBUG SLEEP 0.2",
        "b GET px",      /* lazily expired: a hears of it */
        "b DEBUG SET-ACTIVE-EXPIRE 1",
        "a CLIENT INFO",
        "a CLIENT TRACKINGINFO",
        "a CLIENT GETREDIR",
        "a CLIENT TRACKING off",
        "a CLIENT TRACKINGINFO",
        "a CLIENT GETREDIR",
        "a CLIENT INFO",
    };
    SAME_DIALOGUE(steps);
}

static void test_redirect(void)
{
    static const char *const steps[] = {
        "c SUBSCRIBE __redis__:invalidate",
        "b CLIENT TRACKING on REDIRECT @c",
        "b CLIENT GETREDIR",
        "b CLIENT INFO",
        "b GET k1",
        "b MGET k2 k3",
        "a SET k1 x",
        "a MSET k2 1 k3 2",
        "b GET k1",
        "a FLUSHDB",     /* RESP2 null on the channel */
        "b SET k1 1",
        "a SET k1 x",    /* b's own write */
        "e HELLO 3",
        "f CLIENT TRACKING on REDIRECT @e", /* RESP2 tracker, RESP3 target: pushes */
        "f GET r1",
        "a SET r1 1",
        "f GET r1",
        "a FLUSHALL",    /* f's null is RESP2's, sent to e */
        "f GET r1",
        "e QUIT",
        "a SET r1 2",    /* RESP2 f cannot be told the redirect broke */
        "f CLIENT TRACKINGINFO",
        "f CLIENT INFO",
        "g HELLO 3",
        "h HELLO 3",
        "g CLIENT TRACKING on REDIRECT @h",
        "g GET r2",
        "h QUIT",
        "a SET r2 1",    /* RESP3 g is told */
        "g GET r2",
        "a SET r2 2",
        "g CLIENT TRACKINGINFO",
        "g CLIENT INFO",
        "g CLIENT TRACKING on",
        "g CLIENT TRACKINGINFO",
        "d CLIENT TRACKING on",  /* RESP2, no redirect: nothing can be sent */
        "d GET q",
        "a SET q 1",
        "d PING",
    };
    SAME_DIALOGUE(steps);
}

static void test_optin_optout_noloop(void)
{
    static const char *const steps[] = {
        "a HELLO 3",
        "a CLIENT TRACKING on OPTIN",
        "a GET o1",
        "a CLIENT CACHING yes",
        "a CLIENT TRACKINGINFO", /* CLIENT commands keep CACHING */
        "a GET o2",
        "a CLIENT TRACKINGINFO",
        "a GET o3",
        "b MSET o1 1 o2 2 o3 3",
        "a CLIENT CACHING yes",
        "a MULTI", "a GET o4", "a GET o5", "a EXEC",
        "a GET o6",
        "b MSET o4 1 o5 2 o6 3",
        "a CLIENT CACHING no",
        "a CLIENT TRACKING on OPTOUT",
        "a CLIENT TRACKING off",
        "a CLIENT TRACKING on OPTOUT NOLOOP",
        "a CLIENT CACHING yes",
        "a GET p1",
        "a CLIENT CACHING no",
        "a GET p2",
        "a GET p3",
        "b MSET p1 1 p2 2",
        "a SET p3 1",    /* NOLOOP: its own write is not sent */
        "a GET p3",
        "b SET p3 2",
        "a CLIENT TRACKINGINFO",
        "a CLIENT TRACKING on BCAST",
        "a RESET",
        "a CLIENT TRACKINGINFO",
        "a CLIENT INFO",
    };
    SAME_DIALOGUE(steps);
}

static void test_bcast(void)
{
    static const char *const steps[] = {
        "a HELLO 3",
        "a CLIENT TRACKING on BCAST PREFIX user: PREFIX item:",
        "a CLIENT TRACKINGINFO",
        "a CLIENT INFO",
        "b SET user:1 x",
        "b SET other 1",
        "b MSET item:2 1 user:3 1 user:1 y",
        "b MULTI", "b SET user:9 1", "b SET user:2 1", "b SET user:9 2", "b DEL user:0 user:5",
        "b SET item:1 1", "b EXEC",
        "c HELLO 3",
        "c CLIENT TRACKING on BCAST PREFIX us NOLOOP",
        "c CLIENT TRACKING on BCAST PREFIX user:",
        "c CLIENT TRACKING on BCAST PREFIX u",
        "c CLIENT TRACKING on BCAST PREFIX usx PREFIX zz PREFIX z",
        "c CLIENT TRACKING on BCAST PREFIX usx PREFIX us",
        "c CLIENT TRACKINGINFO",
        "c SET user:7 1",   /* c's own: left out for c, sent to a */
        "b SET user:8 1",
        "c MSET user:6 1 usx 2",
        "d HELLO 3",
        "d CLIENT TRACKING on BCAST",
        "b SET anything 1",
        "b SET user:4 1",
        "b DEBUG SET-ACTIVE-EXPIRE 0",
        "d SET px 1 PX 100",
        "b DEBUG SLEEP 0.2",
        "b GET px",
        "b DEBUG SET-ACTIVE-EXPIRE 1",
        "b FLUSHALL",
        "d CLIENT TRACKING on",
        "d CLIENT TRACKING off",
        "d CLIENT TRACKING on",
        "d CLIENT TRACKING on BCAST",
        "e CLIENT TRACKING on BCAST OPTIN",
        "e CLIENT TRACKING on PREFIX a",
        "e CLIENT TRACKING on BCAST PREFIX a PREFIX ab",
        "e CLIENT TRACKING on BCAST PREFIX ab PREFIX a",
        "e CLIENT TRACKING on BCAST PREFIX x PREFIX y PREFIX x",
        "f SUBSCRIBE __redis__:invalidate",
        "e CLIENT TRACKING on BCAST PREFIX e: REDIRECT @f",
        "b MSET e:2 1 e:1 1",
        "e CLIENT INFO",
        "a CLIENT TRACKING off",
        "b SET user:1 z",
        "a CLIENT TRACKINGINFO",
    };
    SAME_DIALOGUE(steps);
}

static void test_errors_and_info(void)
{
    static const char *const steps[] = {
        "a CLIENT TRACKING",
        "a CLIENT TRACKING maybe",
        "a CLIENT TRACKING on FOO",
        "a CLIENT TRACKING on REDIRECT",
        "a CLIENT TRACKING on REDIRECT x",
        "a CLIENT TRACKING on REDIRECT 0",
        "a CLIENT TRACKING on REDIRECT -3",
        "a CLIENT TRACKING on REDIRECT 999999",
        "a CLIENT TRACKING on REDIRECT @b REDIRECT @b",
        "a CLIENT TRACKING on OPTIN OPTOUT",
        "a CLIENT TRACKING on PREFIX",
        "a CLIENT TRACKING off BCAST PREFIX a PREFIX ab",
        "a CLIENT TRACKING on OPTIN",
        "a CLIENT TRACKING on OPTOUT",
        "a CLIENT TRACKING on BCAST",
        "a CLIENT CACHING no",
        "a CLIENT CACHING maybe",
        "a CLIENT CACHING yes extra",
        "b CLIENT CACHING yes",
        "a CLIENT GETREDIR x",
        "a CLIENT TRACKINGINFO x",
        "b CLIENT TRACKING on BCAST PREFIX p",
        "c CLIENT TRACKING on BCAST PREFIX p PREFIX q",
        "a GET k1",
        "a GET k2",
        "a EVAL \"return redis.call('get',KEYS[1])\" 1 k3",
        "a INFO",        /* its tracking_ fields */
        "b CLIENT TRACKING off",
        "a INFO",
        "a SET k1 1",
        "a INFO",
    };
    SAME_DIALOGUE(steps);
}

/* Random BCAST prefixes (overlapping across clients, from a two-letter
 * alphabet so that they nest) and random writes, side by side with Redis:
 * each client's messages, prefix by prefix, byte for byte. SEED= replays. */
static void test_bcast_random(void)
{
    if (!have_ref)
        return;
    uint64_t rng = h_seed() ^ UINT64_C(0xb0ca57);
    printf("SEED=%llu (prefixes)\n", (unsigned long long)(rng ^ UINT64_C(0xb0ca57)));
    enum { CLIENTS = 5, STEPS = 120 };
    static char text[STEPS + CLIENTS * 4][160];
    const char *steps[STEPS + CLIENTS * 4];
    size_t n = 0;
    /* A word of 0 to max letters from {a, b}. */
#define WORD(buf, max)                                                                             \
    do {                                                                                           \
        size_t len_ = rng_below(&rng, (max) + 1);                                                  \
        for (size_t i_ = 0; i_ < len_; i_++)                                                       \
            (buf)[i_] = rng_below(&rng, 2) ? 'a' : 'b';                                            \
        (buf)[len_] = '\0';                                                                        \
    } while (0)
    for (int c = 0; c < CLIENTS; c++) {
        snprintf(text[n], sizeof(text[n]), "%c HELLO 3", 'b' + c);
        steps[n] = text[n];
        n++;
    }
    for (size_t i = 0; i < STEPS; i++) {
        char *t = text[n];
        int c = (int)rng_below(&rng, CLIENTS);
        if (rng_below(&rng, 4) == 0) {
            /* (Re)register 1 to 3 prefixes: overlapping ones answer Redis's error. */
            int off = snprintf(t, sizeof(text[n]), "%c CLIENT TRACKING %s", 'b' + c,
                               rng_below(&rng, 6) == 0 ? "off" : "on BCAST");
            if (strstr(t, "BCAST")) {
                /* Prefixes that overlap one another in one call are left
                 * out: Redis 7.0 answers the error and then +OK for all
                 * but the first of them, which rbkv does not copy
                 * (docs/commands.md). */
                char given[3][8];
                size_t np = 1 + rng_below(&rng, 3), ng = 0;
                for (size_t j = 0; j < np; j++) {
                    char w[8];
                    WORD(w, 3);
                    int clash = !w[0]; /* "" cannot go through the space split */
                    for (size_t g = 0; g < ng && !clash; g++)
                        clash = strncmp(given[g], w, strlen(given[g]) < strlen(w)
                                                          ? strlen(given[g]) : strlen(w)) == 0;
                    if (clash)
                        continue;
                    strcpy(given[ng++], w);
                    off += snprintf(t + off, sizeof(text[n]) - (size_t)off, " PREFIX %s", w);
                }
            }
        } else if (rng_below(&rng, 3) == 0) {
            int off = snprintf(t, sizeof(text[n]), "a MSET");
            for (size_t j = 1 + rng_below(&rng, 4); j > 0; j--) {
                char w[8];
                WORD(w, 4);
                if (!w[0])
                    strcpy(w, "ab");
                off += snprintf(t + off, sizeof(text[n]) - (size_t)off, " %s 1", w);
            }
        } else {
            char w[8];
            WORD(w, 4);
            if (!w[0])
                strcpy(w, "a");
            snprintf(t, sizeof(text[n]), "a SET %s 1", w);
        }
        steps[n] = text[n];
        n++;
    }
#undef WORD
    for (int c = 0; c < CLIENTS; c++) {
        snprintf(text[n], sizeof(text[n]), "%c CLIENT TRACKINGINFO", 'b' + c);
        steps[n] = text[n];
        n++;
    }
    same_dialogue("random BCAST prefixes", steps, n);
}

/* ---- fixed expectations -------------------------------------------------- */

/* A flushed server, a RESP3 connection *a with tracking on and a RESP2
 * hiredis one *b beside it. Returns 0, or -1 (nothing left open). */
static int open_tracking_pair(struct h_raw *a, redisContext **b)
{
    *b = h_connect_flushed(&srv);
    if (!*b)
        return -1;
    if (h_raw_open_resp3(a, &srv) < 0) {
        redisFree(*b);
        return -1;
    }
    RAW_SEND(a, "CLIENT TRACKING on\r\n");
    RAW_EXPECT(a, "+OK\r\n");
    return 0;
}

static void test_pushes(void)
{
    struct h_raw a;
    redisContext *b;
    if (open_tracking_pair(&a, &b) < 0)
        return;
    RAW_SEND(&a, "GET k\r\n");
    RAW_EXPECT(&a, "_\r\n");
    EXPECT_OK(b, "SET", "k", "v");
    RAW_SEND(&a, "GET k\r\n");
    RAW_EXPECT(&a, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n");
    RAW_EXPECT(&a, "$1\r\nv\r\n");
    /* Its own write: the push follows the reply. */
    RAW_SEND(&a, "SET k w\r\n");
    RAW_EXPECT(&a, "+OK\r\n");
    RAW_EXPECT(&a, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n");
    RAW_SEND(&a, "GET k\r\n");
    RAW_EXPECT(&a, "$1\r\nw\r\n");
    EXPECT_OK(b, "FLUSHALL");
    RAW_SEND(&a, "PING\r\n");
    RAW_EXPECT(&a, ">2\r\n$10\r\ninvalidate\r\n_\r\n");
    RAW_EXPECT(&a, "+PONG\r\n");
    /* BCAST: a turn's keys in one message, sorted, each once. */
    RAW_SEND(&a, "CLIENT TRACKING off\r\n");
    RAW_EXPECT(&a, "+OK\r\n");
    RAW_SEND(&a, "CLIENT TRACKING on BCAST PREFIX p: PREFIX q:\r\n");
    RAW_EXPECT(&a, "+OK\r\n");
    EXPECT_OK(b, "MSET", "p:2", "1", "x", "1", "p:1", "1", "p:2", "2", "q:1", "1");
    RAW_SEND(&a, "PING\r\n");
    RAW_EXPECT(&a, ">2\r\n$10\r\ninvalidate\r\n*2\r\n$3\r\np:1\r\n$3\r\np:2\r\n");
    RAW_EXPECT(&a, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$3\r\nq:1\r\n");
    RAW_EXPECT(&a, "+PONG\r\n");
    EXPECT_MATCH(b, "*flags=tB *", "CLIENT", "LIST");
    h_raw_close(&a);
    redisFree(b);
}

/* Reads replies on r until "+PONG\r\n", counting the invalidation pushes. */
static long count_pushes_until_pong(struct h_raw *r)
{
    long pushes = 0;
    for (;;) {
        size_t len;
        if (h_raw_read_reply(r, &len, H_RAW_TIMEOUT_MS) < 0) {
            CHECK(0, "no PONG");
            return -1;
        }
        int pong = len == 7 && memcmp(r->buf, "+PONG\r\n", 7) == 0;
        if (len > 18 && memcmp(r->buf, ">2\r\n$10\r\ninvalidate\r\n", 21) == 0)
            pushes++;
        h_raw_consume(r, len);
        if (pong)
            return pushes;
    }
}

static void test_max_keys(void)
{
    struct h_raw a;
    redisContext *b = h_connect_flushed(&srv);
    if (!b || h_raw_open_resp3(&a, &srv) < 0) {
        if (b)
            redisFree(b);
        return;
    }
    EXPECT_OK(b, "CONFIG", "SET", "tracking-table-max-keys", "3");
    RAW_SEND(&a, "CLIENT TRACKING on\r\n");
    RAW_EXPECT(&a, "+OK\r\n");
    /* Before each command the table comes down to the limit: the GETs of
     * the 5th to the 10th key and the PING each drop one key. */
    for (int i = 0; i < 10; i++) {
        char get[32];
        int n = snprintf(get, sizeof(get), "GET key%d\r\n", i);
        h_raw_send(&a, get, (size_t)n);
    }
    RAW_SEND(&a, "PING\r\n");
    long pushes = count_pushes_until_pong(&a);
    CHECK(pushes == 7, "expected 7 invalidations of dropped keys, got %ld", pushes);
    redisReply *info = H_CALL(b, "INFO", "stats");
    char keys[32] = "";
    if (info && info->str)
        h_info_field(info->str, "tracking_total_keys", keys, sizeof(keys));
    CHECK(strcmp(keys, "3") == 0, "tracking_total_keys: expected 3, got %s", keys);
    freeReplyObject(info);
    EXPECT_OK(b, "CONFIG", "SET", "tracking-table-max-keys", "1000000");
    h_raw_close(&a);
    redisFree(b);
}

static void test_eviction(void)
{
    struct h_raw a;
    redisContext *b;
    if (open_tracking_pair(&a, &b) < 0)
        return;
    static char big[20000];
    memset(big, 'v', sizeof(big) - 1);
    for (int i = 0; i < 40; i++) {
        char key[16];
        snprintf(key, sizeof(key), "ev%d", i);
        freeReplyObject(H_CALL(b, "SET", key, big));
        char get[32];
        int n = snprintf(get, sizeof(get), "STRLEN %s\r\n", key);
        h_raw_send(&a, get, (size_t)n);
        size_t len;
        if (h_raw_read_reply(&a, &len, H_RAW_TIMEOUT_MS) == 0)
            h_raw_consume(&a, len);
    }
    redisReply *info = H_CALL(b, "INFO", "memory");
    char used[32] = "0";
    if (info && info->str)
        h_info_field(info->str, "used_memory", used, sizeof(used));
    freeReplyObject(info);
    char max[32];
    snprintf(max, sizeof(max), "%lld", atoll(used) - 300000);
    EXPECT_OK(b, "CONFIG", "SET", "maxmemory-policy", "allkeys-random");
    EXPECT_OK(b, "CONFIG", "SET", "maxmemory", max);
    freeReplyObject(H_CALL(b, "SET", "trigger", "1"));
    EXPECT_OK(b, "CONFIG", "SET", "maxmemory", "0");
    RAW_SEND(&a, "PING\r\n");
    long pushes = count_pushes_until_pong(&a);
    CHECK(pushes >= 1, "expected invalidations of the evicted keys, got %ld", pushes);
    EXPECT_OK(b, "CONFIG", "SET", "maxmemory-policy", "noeviction");
    h_raw_close(&a);
    redisFree(b);
}

/* ---- a cache under concurrent writes ------------------------------------- */

#define CACHE_KEYS 12

struct cache {
    int held[CACHE_KEYS];
    char value[CACHE_KEYS][64]; /* the raw reply, RESP2's null for a null */
};

static int key_of(const char *k, size_t len)
{
    if (len < 2 || len > 3 || k[0] != 'c')
        return -1;
    int n = atoi(k + 1);
    return n >= 0 && n < CACHE_KEYS ? n : -1;
}

/* Applies an invalidation push at p[0..len) to the cache. */
static void apply_push(struct cache *cache, const char *p, size_t len)
{
    const char *v = p + 21; /* past ">2\r\n$10\r\ninvalidate\r\n" */
    if (v[0] == '_' || strncmp(v, "$-1", 3) == 0) {
        memset(cache->held, 0, sizeof(cache->held));
        return;
    }
    long n = strtol(v + 1, NULL, 10);
    const char *q = strstr(v, "\r\n") + 2;
    for (long i = 0; i < n && q < p + len; i++) {
        long kl = strtol(q + 1, NULL, 10);
        q = strstr(q, "\r\n") + 2;
        int k = key_of(q, (size_t)kl);
        if (k >= 0)
            cache->held[k] = 0;
        q += kl + 2;
    }
}

/* Reads on r until a reply that is not an invalidation, applying those;
 * copies that reply (NUL-terminated, RESP3's null as RESP2's) into out. */
static int read_reply_applying(struct h_raw *r, struct cache *cache, char *out, size_t cap)
{
    for (;;) {
        size_t len;
        if (h_raw_read_reply(r, &len, H_RAW_TIMEOUT_MS) < 0)
            return -1;
        if (len > 21 && memcmp(r->buf, ">2\r\n$10\r\ninvalidate\r\n", 21) == 0) {
            apply_push(cache, r->buf, len);
            h_raw_consume(r, len);
            continue;
        }
        if (len == 3 && memcmp(r->buf, "_\r\n", 3) == 0)
            snprintf(out, cap, "$-1\r\n");
        else
            snprintf(out, cap, "%.*s", (int)len, r->buf);
        h_raw_consume(r, len);
        return 0;
    }
}

static void random_write(redisContext *w, uint64_t *rng)
{
    char k1[8], k2[8], v[24];
    snprintf(k1, sizeof(k1), "c%zu", rng_below(rng, CACHE_KEYS));
    snprintf(k2, sizeof(k2), "c%zu", rng_below(rng, CACHE_KEYS));
    snprintf(v, sizeof(v), "%zu", rng_below(rng, 1000));
    redisReply *r = NULL;
    switch (rng_below(rng, 13)) {
    case 0: case 1: case 2: r = H_CALL(w, "SET", k1, v); break;
    case 3: r = H_CALL(w, "DEL", k1, k2); break;
    case 4: r = H_CALL(w, "INCR", k1); break;
    case 5: r = H_CALL(w, "APPEND", k1, v); break;
    case 6: r = H_CALL(w, "SET", k1, v, "PX", "1"); break;
    case 7: r = H_CALL(w, "EXPIRE", k1, "-1"); break;
    case 8: r = H_CALL(w, "RENAME", k1, k2); break;
    case 9:
        freeReplyObject(H_CALL(w, "MULTI"));
        freeReplyObject(H_CALL(w, "SET", k1, v));
        freeReplyObject(H_CALL(w, "APPEND", k2, "x"));
        r = H_CALL(w, "EXEC");
        break;
    case 10:
        r = H_CALL(w, "EVAL", "redis.call('set', KEYS[1], ARGV[1]) return redis.call('del', KEYS[2])",
                   "2", k1, k2, v);
        break;
    case 11: r = H_CALL(w, "LPUSH", k1, v); break;
    default:
        if (rng_below(rng, 8) == 0)
            r = H_CALL(w, "FLUSHDB");
        else
            r = H_CALL(w, "SETRANGE", k1, "1", v);
        break;
    }
    freeReplyObject(r);
}

enum cache_mode { MODE_DEFAULT, MODE_BCAST, MODE_OPTIN };

static void cache_run(enum cache_mode mode, uint64_t seed)
{
    static const char *const modes[] = {"CLIENT TRACKING on\r\n",
                                        "CLIENT TRACKING on BCAST PREFIX c\r\n",
                                        "CLIENT TRACKING on OPTIN\r\n"};
    struct h_raw a, v;
    redisContext *w = h_connect_flushed(&srv);
    if (!w)
        return;
    if (h_raw_open_resp3(&a, &srv) < 0 || h_raw_open(&v, &srv) < 0) {
        redisFree(w);
        return;
    }
    h_raw_send(&a, modes[mode], strlen(modes[mode]));
    RAW_EXPECT(&a, "+OK\r\n");
    struct cache cache = {0};
    uint64_t rng = seed;
    int steps = RANDOM_STEPS / H_SLOW, stale = 0;
    for (int step = 0; step < steps && !stale; step++) {
        random_write(w, &rng);
        /* What the server holds now, read by a client that caches nothing
         * (a due key it meets is removed, and invalidated, first). */
        char actual[CACHE_KEYS][64];
        for (int k = 0; k < CACHE_KEYS; k++) {
            char get[24];
            int n = snprintf(get, sizeof(get), "GET c%d\r\n", k);
            h_raw_send(&v, get, (size_t)n);
        }
        for (int k = 0; k < CACHE_KEYS; k++) {
            size_t len;
            actual[k][0] = '\0';
            if (h_raw_read_reply(&v, &len, H_RAW_TIMEOUT_MS) == 0) {
                snprintf(actual[k], sizeof(actual[k]), "%.*s", (int)len, v.buf);
                h_raw_consume(&v, len);
            }
        }
        /* The cache's connection answers a PING after every push queued
         * for it so far: a cached value must still be the server's. */
        char pong[64];
        RAW_SEND(&a, "PING\r\n");
        if (read_reply_applying(&a, &cache, pong, sizeof(pong)) < 0)
            break;
        for (int k = 0; k < CACHE_KEYS; k++) {
            if (cache.held[k] && strcmp(cache.value[k], actual[k]) != 0) {
                CHECK(0, "mode %d SEED=%llu step %d: c%d cached %s but the server has %s",
                      (int)mode, (unsigned long long)seed, step, k, cache.value[k], actual[k]);
                stale = 1;
            }
        }
        /* Read (and cache) a key it does not hold. */
        int k = (int)rng_below(&rng, CACHE_KEYS);
        if (cache.held[k])
            continue;
        if (mode == MODE_OPTIN) {
            RAW_SEND(&a, "CLIENT CACHING yes\r\n");
            if (read_reply_applying(&a, &cache, pong, sizeof(pong)) < 0)
                break;
        }
        char get[24];
        int n = snprintf(get, sizeof(get), "GET c%d\r\n", k);
        h_raw_send(&a, get, (size_t)n);
        if (read_reply_applying(&a, &cache, cache.value[k], sizeof(cache.value[k])) == 0)
            cache.held[k] = 1;
    }
    h_raw_close(&a);
    h_raw_close(&v);
    redisFree(w);
}

static void test_cache_under_writes(void)
{
    uint64_t seed = h_seed();
    printf("SEED=%llu\n", (unsigned long long)seed);
    cache_run(MODE_DEFAULT, seed);
    cache_run(MODE_BCAST, seed + 1);
    cache_run(MODE_OPTIN, seed + 2);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, H_FLAGS("--enable-debug-command", "yes")) < 0)
        return h_finish();
    /* As h_start_comparison, with DEBUG SLEEP allowed (a key's deadline
     * passing between two steps). */
    if (!h_is_reference()) {
        int rc = h_start_reference(&ref, H_FLAGS("--enable-debug-command", "yes"));
        if (rc == 1)
            printf("no redis-server on PATH: the comparisons with Redis are skipped\n");
        have_ref = rc == 0;
    }
    H_RUN(test_default_mode_resp3);
    H_RUN(test_redirect);
    H_RUN(test_optin_optout_noloop);
    H_RUN(test_bcast);
    H_RUN(test_errors_and_info);
    H_RUN(test_bcast_random);
    H_RUN(test_pushes);
    H_RUN(test_max_keys);
    H_RUN(test_eviction);
    H_RUN(test_cache_under_writes);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
