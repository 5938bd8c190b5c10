/*
 * soak.c - a long run of mixed traffic with random disconnects against one
 * server, checked against a model of the keyspace all along and at the end.
 *
 *   soak [-h host] [-p port] [-s seconds] [-w workers] [-r readers] [-S seed]
 *        [--dump FILE] [--verify FILE] [--no-flush]
 *
 * Owns: its connections and the model; knows nothing of the server's code
 * (it speaks RESP through hiredis).
 *
 * Determinism despite disconnects: each worker thread owns a disjoint set of
 * keys ("soak:wNN:KKK") and keeps a model of them, so every reply it reads
 * can be predicted exactly and is checked. A worker sometimes disconnects on
 * purpose:
 *   - abandon: sends a burst of 1..MAX_ABANDON writes and closes without
 *     reading. Commands run in order, so the server must hold the state after
 *     some prefix of the burst: the worker reconnects, makes sure the old
 *     connection is gone (CLIENT KILL ID, after which it can change nothing),
 *     reads the keys the burst touched and finds the prefix that matches;
 *     none matching is a failure.
 *   - partial: sends the first bytes of one command and closes; the command
 *     must not have run.
 *   - quit: QUIT, then a new connection.
 * Ordered queries (KPREFIX, KCOUNT, KRANGE BYLEX with LIMIT) over a worker's
 * own keys are checked against its model while other workers write around
 * them. Keys get long TTLs (EXPIRE 100000, checked as "has a TTL"); short-TTL
 * keys live under "soakx:" and must all be gone at the end. Slow readers list
 * the whole keyspace with KRANGE ... WITHVALUES in pipelines while reading
 * 16 kB at a time with pauses, checking each listing is strictly ascending,
 * and drop the connection mid-reply now and then.
 *
 * At the end every key the server holds (SCAN) is compared with the union of
 * the models (type, value, members and scores, TTL or not), plus DBSIZE and
 * KRANGE 0 -1; a mismatch prints a diff and the exit status is 1. --dump
 * writes the expected keyspace to FILE; --verify FILE skips the traffic and
 * compares the server with such a file (soak.sh uses it after a restart).
 * SEED= is printed and -S replays the workers' choices (timing still varies).
 */
#include <errno.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NKEYS 48            /* keys per worker */
#define NMEMBERS 12         /* members a worker's sorted sets draw from */
#define MAX_ARGS 8
#define MAX_ABANDON 6       /* writes in an abandoned burst */
#define MAX_BURST 64        /* commands in a pipelined burst */
#define BIG_VALUE 8192      /* longest string value written */
#define LONG_TTL "100000"   /* seconds: never reached during a run */
#define MAX_WORKERS 64
#define MAX_READERS 16
#define MAX_DIFFS 30        /* mismatches printed */
#define SLOW_READ_PAUSE_US 2000
#define SHORT_TTL_MAX_MS 200
#define REPORT_MS 60000     /* progress line interval */

enum { T_NONE, T_STR, T_ZSET };

struct mkey {
    int type;
    int ttl; /* has a (long) deadline */
    char *val;
    size_t vlen;
    unsigned char has[NMEMBERS];
    long long score[NMEMBERS]; /* integral, so replies are exact */
};

struct model {
    struct mkey k[NKEYS];
};

struct cmd {
    int argc;
    char *argv[MAX_ARGS];
    size_t len[MAX_ARGS];
    char buf[MAX_ARGS][48]; /* small arguments live here */
    char *big;              /* a big value, owned */
    int key;                /* the key it touches, -1 for none */
    int key2;               /* a second key (MSET, MGET, RENAME), -1 for none */
    int ttl_reply;          /* TTL: any positive reply is "+" */
};

struct stats {
    unsigned long long ops, bursts, abandons, partials, quits, checks, ordered;
    unsigned long long abandon_applied, abandon_none, short_ttl;
};

struct worker {
    int id;
    pthread_t thread;
    uint64_t rng;
    struct model m;
    redisContext *c;
    long long client_id;
    char prefix[32];
    struct stats st;
};

static const char *host = "127.0.0.1";
static int port = 6379;
static volatile int stopping;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static int failures; /* under print_lock */

/* ---- helpers ------------------------------------------------------------- */

static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int rnd(struct worker *w, int n)
{
    return (int)(next_rand(&w->rng) % (uint64_t)n);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void failf(const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&print_lock);
    if (failures++ < MAX_DIFFS) {
        fputs("MISMATCH ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    pthread_mutex_unlock(&print_lock);
}

static void die_oom(void)
{
    fprintf(stderr, "soak: out of memory\n");
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die_oom();
    return p;
}

static char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        die_oom();
    return p;
}

static void key_name(char *buf, size_t cap, int worker, int k)
{
    snprintf(buf, cap, "soak:w%02d:%03d", worker, k);
}

/* A growable string for canonical texts of replies and states. */
struct text {
    char *p;
    size_t len, cap;
};

static void t_add(struct text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p)
            die_oom();
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

static void t_str(struct text *t, const char *s)
{
    t_add(t, s, strlen(s));
}

static void t_fmt(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void t_fmt(struct text *t, const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    t_add(t, buf, n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void t_clear(struct text *t)
{
    t->len = 0;
    if (t->p)
        t->p[0] = '\0';
}

/* Canonical text of a reply: :n, $bytes, nil, +status, -FIRSTWORD, [a,b].
 * ttl: a positive integer becomes :+ (a TTL's exact value is not modelled). */
static void repr(struct text *t, const redisReply *r, int ttl)
{
    if (!r) {
        t_str(t, "(no reply)");
        return;
    }
    switch (r->type) {
    case REDIS_REPLY_INTEGER:
        if (ttl && r->integer > 0)
            t_str(t, ":+");
        else
            t_fmt(t, ":%lld", r->integer);
        break;
    case REDIS_REPLY_STRING:
        t_str(t, "$");
        t_add(t, r->str, r->len);
        break;
    case REDIS_REPLY_NIL:
        t_str(t, "nil");
        break;
    case REDIS_REPLY_STATUS:
        t_str(t, "+");
        t_add(t, r->str, r->len);
        break;
    case REDIS_REPLY_ERROR:
        t_str(t, "-");
        t_add(t, r->str, strcspn(r->str, " "));
        break;
    case REDIS_REPLY_ARRAY:
        t_str(t, "[");
        for (size_t i = 0; i < r->elements; i++) {
            if (i)
                t_str(t, ",");
            repr(t, r->element[i], 0);
        }
        t_str(t, "]");
        break;
    default:
        t_fmt(t, "(type %d)", r->type);
    }
}

/* ---- the model ----------------------------------------------------------- */

static void mkey_clear(struct mkey *k)
{
    free(k->val);
    memset(k, 0, sizeof(*k));
}

static void model_copy(struct model *dst, const struct model *src)
{
    for (int i = 0; i < NKEYS; i++) {
        mkey_clear(&dst->k[i]);
        dst->k[i] = src->k[i];
        if (src->k[i].val) {
            dst->k[i].val = xmalloc(src->k[i].vlen + 1);
            memcpy(dst->k[i].val, src->k[i].val, src->k[i].vlen + 1);
        }
    }
}

static void model_free(struct model *m)
{
    for (int i = 0; i < NKEYS; i++)
        mkey_clear(&m->k[i]);
}

static void set_str(struct mkey *k, const char *v, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, v, n);
    p[n] = '\0';
    free(k->val);
    memset(k->has, 0, sizeof(k->has));
    k->val = p;
    k->vlen = n;
    k->type = T_STR;
}

/* Redis's string2ll for the values we write: optional '-', digits, no zeros
 * in front, fits in a long long. */
static int parse_ll(const char *s, size_t n, long long *out)
{
    if (n == 0 || n > 20)
        return 0;
    char buf[24];
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (errno || *end || buf[0] == '+' || buf[0] == ' ' || (buf[0] == '0' && n > 1) ||
        (buf[0] == '-' && (n == 1 || buf[1] == '0')))
        return 0;
    *out = v;
    return 1;
}

static int zcard(const struct mkey *k)
{
    int n = 0;
    for (int i = 0; i < NMEMBERS; i++)
        n += k->has[i];
    return n;
}

/* The members of a sorted set in ZRANGE order: score, then member bytes
 * (names are fixed-width, so index order is byte order). */
static int zorder(const struct mkey *k, int *out)
{
    int n = 0;
    for (int i = 0; i < NMEMBERS; i++)
        if (k->has[i])
            out[n++] = i;
    for (int i = 1; i < n; i++) {
        int x = out[i], j = i;
        while (j > 0 && (k->score[out[j - 1]] > k->score[x] ||
                         (k->score[out[j - 1]] == k->score[x] && out[j - 1] > x))) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = x;
    }
    return n;
}

static void zrange_repr(struct text *t, const struct mkey *k)
{
    int order[NMEMBERS];
    int n = zorder(k, order);
    t_str(t, "[");
    for (int i = 0; i < n; i++)
        t_fmt(t, "%s$m%02d,$%.17g", i ? "," : "", order[i], (double)k->score[order[i]]);
    t_str(t, "]");
}

/* The canonical state of one key, as state_of() reads it from the server. */
static void model_state(struct text *t, const struct mkey *k)
{
    if (k->type == T_NONE) {
        t_str(t, "none");
        return;
    }
    if (k->type == T_STR) {
        t_str(t, "string $");
        t_add(t, k->val, k->vlen);
    } else {
        t_str(t, "zset ");
        zrange_repr(t, k);
    }
    t_str(t, k->ttl ? " ttl" : " no-ttl");
}

static int member_index(const char *s, size_t n)
{
    return n == 3 && s[0] == 'm' ? (s[1] - '0') * 10 + (s[2] - '0') : -1;
}

/* The reply to KPREFIX, KCOUNT PREFIX or KRANGE [lo (hi BYLEX LIMIT off count
 * over one worker's keys. */
static void model_ordered(const struct model *m, const struct cmd *c, int worker,
                          const char *prefix, struct text *t)
{
    const char *name = c->argv[0];
    int lo = 0, hi = NKEYS, off = 0, count = -1, n = 0;
    if (name[1] == 'R') {
        lo = atoi(c->argv[1] + 1 + strlen(prefix));
        hi = atoi(c->argv[2] + 1 + strlen(prefix));
        off = atoi(c->argv[5]);
        count = atoi(c->argv[6]);
    }
    int counting = name[1] == 'C';
    if (!counting)
        t_str(t, "[");
    for (int i = lo; i < hi; i++) {
        if (m->k[i].type == T_NONE)
            continue;
        if (off > 0) {
            off--;
            continue;
        }
        if (count >= 0 && n >= count)
            break;
        if (!counting) {
            char kn[40];
            key_name(kn, sizeof(kn), worker, i);
            t_fmt(t, "%s$%s", n ? "," : "", kn);
        }
        n++;
    }
    if (counting)
        t_fmt(t, ":%d", n);
    else
        t_str(t, "]");
}

static void reply_bulk_or_nil(struct text *t, const struct mkey *k)
{
    if (k->type == T_STR) {
        t_str(t, "$");
        t_add(t, k->val, k->vlen);
    } else {
        t_str(t, "nil");
    }
}

/* Applies c to m and writes the reply it must get into t: Redis's semantics
 * for each command the workers send. */
static void model_apply(struct model *m, const struct cmd *c, int worker, const char *prefix,
                        struct text *t)
{
    const char *name = c->argv[0];
    struct mkey *k = c->key >= 0 ? &m->k[c->key] : NULL;
    if (!k) {
        model_ordered(m, c, worker, prefix, t);
    } else if (!strcmp(name, "SET")) {
        set_str(k, c->argv[2], c->len[2]);
        k->ttl = c->argc > 3;
        t_str(t, "+OK");
    } else if (!strcmp(name, "GET")) {
        if (k->type == T_ZSET)
            t_str(t, "-WRONGTYPE");
        else
            reply_bulk_or_nil(t, k);
    } else if (!strcmp(name, "INCRBY")) {
        long long by = atoll(c->argv[2]), v = 0;
        if (k->type == T_ZSET) {
            t_str(t, "-WRONGTYPE");
        } else if (k->type == T_STR && !parse_ll(k->val, k->vlen, &v)) {
            t_str(t, "-ERR");
        } else {
            char buf[32];
            int n = snprintf(buf, sizeof(buf), "%lld", v + by);
            int ttl = k->type == T_STR && k->ttl;
            set_str(k, buf, (size_t)n);
            k->ttl = ttl;
            t_fmt(t, ":%lld", v + by);
        }
    } else if (!strcmp(name, "APPEND")) {
        if (k->type == T_ZSET) {
            t_str(t, "-WRONGTYPE");
        } else {
            size_t old = k->type == T_STR ? k->vlen : 0;
            char *p = xmalloc(old + c->len[2] + 1);
            if (old)
                memcpy(p, k->val, old);
            memcpy(p + old, c->argv[2], c->len[2]);
            int ttl = k->type == T_STR && k->ttl;
            set_str(k, p, old + c->len[2]);
            k->ttl = ttl;
            free(p);
            t_fmt(t, ":%zu", k->vlen);
        }
    } else if (!strcmp(name, "DEL")) {
        t_fmt(t, ":%d", k->type != T_NONE);
        mkey_clear(k);
    } else if (!strcmp(name, "EXPIRE")) {
        t_fmt(t, ":%d", k->type != T_NONE);
        if (k->type != T_NONE)
            k->ttl = 1;
    } else if (!strcmp(name, "PERSIST")) {
        t_fmt(t, ":%d", k->type != T_NONE && k->ttl);
        k->ttl = 0;
    } else if (!strcmp(name, "TTL")) {
        t_str(t, k->type == T_NONE ? ":-2" : k->ttl ? ":+" : ":-1");
    } else if (!strcmp(name, "TYPE")) {
        t_str(t, k->type == T_NONE ? "+none" : k->type == T_STR ? "+string" : "+zset");
    } else if (!strcmp(name, "EXISTS")) {
        t_fmt(t, ":%d", k->type != T_NONE);
    } else if (!strcmp(name, "ZADD") || !strcmp(name, "ZINCRBY")) {
        int incr = name[1] == 'I';
        int mi = member_index(c->argv[3], c->len[3]);
        long long s = atoll(c->argv[2]);
        if (k->type == T_STR) {
            t_str(t, "-WRONGTYPE");
            return;
        }
        if (k->type == T_NONE) {
            mkey_clear(k);
            k->type = T_ZSET;
        }
        int added = !k->has[mi];
        k->score[mi] = incr && !added ? k->score[mi] + s : s;
        k->has[mi] = 1;
        if (incr)
            t_fmt(t, "$%.17g", (double)k->score[mi]);
        else
            t_fmt(t, ":%d", added);
    } else if (!strcmp(name, "ZREM")) {
        int mi = member_index(c->argv[2], c->len[2]);
        if (k->type == T_STR) {
            t_str(t, "-WRONGTYPE");
            return;
        }
        t_fmt(t, ":%d", k->type == T_ZSET && k->has[mi]);
        k->has[mi] = 0;
        if (k->type == T_ZSET && zcard(k) == 0)
            mkey_clear(k);
    } else if (!strcmp(name, "ZSCORE")) {
        int mi = member_index(c->argv[2], c->len[2]);
        if (k->type == T_STR)
            t_str(t, "-WRONGTYPE");
        else if (k->type == T_NONE || !k->has[mi])
            t_str(t, "nil");
        else
            t_fmt(t, "$%.17g", (double)k->score[mi]);
    } else if (!strcmp(name, "ZCARD")) {
        if (k->type == T_STR)
            t_str(t, "-WRONGTYPE");
        else
            t_fmt(t, ":%d", zcard(k));
    } else if (!strcmp(name, "ZRANGE")) {
        if (k->type == T_STR)
            t_str(t, "-WRONGTYPE");
        else
            zrange_repr(t, k);
    } else if (!strcmp(name, "MSET")) {
        set_str(k, c->argv[2], c->len[2]);
        k->ttl = 0;
        set_str(&m->k[c->key2], c->argv[4], c->len[4]);
        m->k[c->key2].ttl = 0;
        t_str(t, "+OK");
    } else if (!strcmp(name, "MGET")) {
        t_str(t, "[");
        reply_bulk_or_nil(t, k);
        t_str(t, ",");
        reply_bulk_or_nil(t, &m->k[c->key2]);
        t_str(t, "]");
    } else if (!strcmp(name, "RENAME")) {
        struct mkey *dst = &m->k[c->key2];
        if (k->type == T_NONE) {
            t_str(t, "-ERR");
        } else {
            t_str(t, "+OK");
            if (dst != k) {
                mkey_clear(dst);
                *dst = *k;
                memset(k, 0, sizeof(*k));
            }
        }
    } else {
        fprintf(stderr, "soak: no model for %s\n", name);
        exit(2);
    }
}

/* ---- commands ------------------------------------------------------------ */

static void cmd_free(struct cmd *c)
{
    free(c->big);
    c->big = NULL;
}

static void arg(struct cmd *c, const char *s)
{
    int i = c->argc++;
    snprintf(c->buf[i], sizeof(c->buf[i]), "%s", s);
    c->argv[i] = c->buf[i];
    c->len[i] = strlen(c->buf[i]);
}

static void argf(struct cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void argf(struct cmd *c, const char *fmt, ...)
{
    char buf[48];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    arg(c, buf);
}

static void arg_key(struct cmd *c, const struct worker *w, int k)
{
    char kn[40];
    key_name(kn, sizeof(kn), w->id, k);
    arg(c, kn);
}

/* A value: an integer (so INCRBY works on it), a short word, or up to
 * BIG_VALUE bytes (one big value a command at most). */
static void arg_value(struct cmd *c, struct worker *w)
{
    int kind = rnd(w, 10);
    if (kind < 4) {
        argf(c, "%d", rnd(w, 2001) - 1000);
    } else if (kind < 9 || c->big) {
        argf(c, "v%x", (unsigned)next_rand(&w->rng));
    } else {
        size_t n = 100 + (size_t)rnd(w, BIG_VALUE - 100);
        c->big = xmalloc(n + 1);
        memset(c->big, 'a' + rnd(w, 26), n);
        c->big[n] = '\0';
        int i = c->argc++;
        c->argv[i] = c->big;
        c->len[i] = n;
    }
}

/* A random write (writes_only) or any command, on the worker's keys. */
static void make_cmd(struct worker *w, struct cmd *c, int writes_only)
{
    memset(c, 0, sizeof(*c));
    c->key = rnd(w, NKEYS);
    c->key2 = -1;
    int k = c->key;
    int op = writes_only ? rnd(w, 12) : rnd(w, 24);
    switch (op) {
    case 0:
    case 1:
        arg(c, "SET");
        arg_key(c, w, k);
        arg_value(c, w);
        if (rnd(w, 3) == 0) {
            arg(c, "EX");
            arg(c, LONG_TTL);
        }
        break;
    case 2:
        arg(c, "INCRBY");
        arg_key(c, w, k);
        argf(c, "%d", rnd(w, 201) - 100);
        break;
    case 3:
        arg(c, "APPEND");
        arg_key(c, w, k);
        argf(c, "+%d", rnd(w, 100));
        break;
    case 4:
        arg(c, "DEL");
        arg_key(c, w, k);
        break;
    case 5:
        arg(c, "EXPIRE");
        arg_key(c, w, k);
        arg(c, LONG_TTL);
        break;
    case 6:
        arg(c, "PERSIST");
        arg_key(c, w, k);
        break;
    case 7:
    case 8:
        arg(c, "ZADD");
        arg_key(c, w, k);
        argf(c, "%d", rnd(w, 41) - 20);
        argf(c, "m%02d", rnd(w, NMEMBERS));
        break;
    case 9:
        arg(c, "ZREM");
        arg_key(c, w, k);
        argf(c, "m%02d", rnd(w, NMEMBERS));
        break;
    case 10:
        arg(c, "ZINCRBY");
        arg_key(c, w, k);
        argf(c, "%d", rnd(w, 21) - 10);
        argf(c, "m%02d", rnd(w, NMEMBERS));
        break;
    case 11:
        c->key2 = rnd(w, NKEYS);
        if (rnd(w, 2)) {
            arg(c, "MSET");
            arg_key(c, w, k);
            arg_value(c, w);
            arg_key(c, w, c->key2);
            argf(c, "w%d", rnd(w, 100));
        } else {
            arg(c, "RENAME");
            arg_key(c, w, k);
            arg_key(c, w, c->key2);
        }
        break;
    case 12:
    case 13:
        arg(c, "GET");
        arg_key(c, w, k);
        break;
    case 14:
        arg(c, "TTL");
        arg_key(c, w, k);
        c->ttl_reply = 1;
        break;
    case 15:
        arg(c, "TYPE");
        arg_key(c, w, k);
        break;
    case 16:
        arg(c, "ZSCORE");
        arg_key(c, w, k);
        argf(c, "m%02d", rnd(w, NMEMBERS));
        break;
    case 17:
        arg(c, "ZRANGE");
        arg_key(c, w, k);
        arg(c, "0");
        arg(c, "-1");
        arg(c, "WITHSCORES");
        break;
    case 18:
        arg(c, "ZCARD");
        arg_key(c, w, k);
        break;
    case 19:
        c->key2 = rnd(w, NKEYS);
        arg(c, "MGET");
        arg_key(c, w, k);
        arg_key(c, w, c->key2);
        break;
    case 20:
        arg(c, "EXISTS");
        arg_key(c, w, k);
        break;
    case 21:
        c->key = -1;
        arg(c, "KPREFIX");
        arg(c, w->prefix);
        break;
    case 22:
        c->key = -1;
        arg(c, "KCOUNT");
        arg(c, "PREFIX");
        arg(c, w->prefix);
        break;
    default: {
        int lo = rnd(w, NKEYS), hi = lo + rnd(w, NKEYS - lo + 1);
        c->key = -1;
        arg(c, "KRANGE");
        argf(c, "[%s%03d", w->prefix, lo);
        argf(c, "(%s%03d", w->prefix, hi);
        arg(c, "BYLEX");
        arg(c, "LIMIT");
        argf(c, "%d", rnd(w, 4));
        argf(c, "%d", rnd(w, 12) - 1);
        break;
    }
    }
}

/* ---- connections --------------------------------------------------------- */

static redisContext *connect_server(void)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        redisContext *c = redisConnect(host, port);
        if (c && !c->err)
            return c;
        redisFree(c);
        usleep(100000);
    }
    fprintf(stderr, "soak: cannot connect to %s:%d\n", host, port);
    exit(2);
}

static redisReply *call1(redisContext *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    return r;
}

static void worker_connect(struct worker *w)
{
    w->c = connect_server();
    redisReply *r = call1(w->c, "CLIENT ID");
    w->client_id = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
    freeReplyObject(r);
}

/* A new connection, after which the old one can change nothing: killing it
 * drops whatever it had not run yet; 0 killed means it was already gone. */
static void worker_reconnect(struct worker *w)
{
    long long old = w->client_id;
    redisFree(w->c);
    worker_connect(w);
    if (old >= 0) {
        redisReply *r = call1(w->c, "CLIENT KILL ID %lld", old);
        if (!r || r->type != REDIS_REPLY_INTEGER)
            failf("w%02d: CLIENT KILL ID %lld: unexpected reply", w->id, old);
        freeReplyObject(r);
    }
}

/* The state of a key as model_state() writes it. Returns 0, -1 on I/O error. */
static int state_of(redisContext *c, const char *key, struct text *t)
{
    redisReply *r = call1(c, "TYPE %s", key);
    if (!r)
        return -1;
    int is_str = r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "string");
    int is_zset = r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "zset");
    if (!is_str && !is_zset) {
        if (r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "none"))
            t_str(t, "none");
        else
            repr(t, r, 0); /* what we did not expect */
        freeReplyObject(r);
        return 0;
    }
    freeReplyObject(r);
    t_str(t, is_str ? "string " : "zset ");
    r = is_str ? call1(c, "GET %s", key) : call1(c, "ZRANGE %s 0 -1 WITHSCORES", key);
    if (!r)
        return -1;
    repr(t, r, 0);
    freeReplyObject(r);
    r = call1(c, "PTTL %s", key);
    if (!r)
        return -1;
    t_str(t, r->type == REDIS_REPLY_INTEGER && r->integer > 0 ? " ttl" : " no-ttl");
    freeReplyObject(r);
    return 0;
}

/* Whether m holds the states read from the server for the keys in states[]. */
static int touched_match(const struct model *m, const struct text *states)
{
    struct text want = {0};
    int match = 1;
    for (int k = 0; k < NKEYS && match; k++) {
        if (!states[k].p)
            continue;
        t_clear(&want);
        model_state(&want, &m->k[k]);
        match = !strcmp(want.p, states[k].p);
    }
    free(want.p);
    return match;
}

/* After cmds[0..n) may or may not have run (the connection is gone): finds
 * the prefix the server ran by reading the keys they touch. Returns its
 * length, or -1 when none matches (reported). */
static int resolve_abandoned(struct worker *w, const struct cmd *cmds, int n)
{
    struct text states[NKEYS];
    int applied = -1;
    memset(states, 0, sizeof(states));
    for (int i = 0; i < n; i++) {
        int ks[2] = {cmds[i].key, cmds[i].key2};
        for (int j = 0; j < 2; j++) {
            char kn[40];
            if (ks[j] < 0 || states[ks[j]].p)
                continue;
            key_name(kn, sizeof(kn), w->id, ks[j]);
            if (state_of(w->c, kn, &states[ks[j]]) < 0) {
                failf("w%02d: connection lost while resyncing", w->id);
                goto out;
            }
        }
    }
    struct model m = {0};
    struct text scratch = {0};
    model_copy(&m, &w->m);
    for (int k = 0; k <= n; k++) {
        if (touched_match(&m, states)) {
            applied = k;
            break;
        }
        if (k < n)
            model_apply(&m, &cmds[k], w->id, w->prefix, &scratch);
    }
    if (applied < 0) {
        for (int k = 0; k < NKEYS; k++) {
            struct text want = {0};
            if (!states[k].p)
                continue;
            model_state(&want, &w->m.k[k]);
            failf("w%02d: after a cut burst of %d, key %03d is '%.200s', which no prefix of the "
                  "burst gives (before it: '%.200s')",
                  w->id, n, k, states[k].p, want.p);
            free(want.p);
        }
        for (int i = 0; i < n; i++)
            failf("w%02d:   burst[%d] %s %s %s", w->id, i, cmds[i].argv[0],
                  cmds[i].argc > 1 ? cmds[i].argv[1] : "", cmds[i].argc > 2 ? cmds[i].argv[2] : "");
        /* Go on from what the server holds, so one bug is reported once. */
        for (int k = 0; k < NKEYS; k++)
            if (states[k].p)
                mkey_clear(&w->m.k[k]);
    } else {
        model_copy(&w->m, &m);
    }
    model_free(&m);
    free(scratch.p);
out:
    for (int k = 0; k < NKEYS; k++)
        free(states[k].p);
    return applied;
}

static void check_reply(struct worker *w, const struct cmd *c, const redisReply *r,
                        const char *want)
{
    struct text got = {0};
    repr(&got, r, c->ttl_reply);
    if (strcmp(got.p, want) != 0)
        failf("w%02d: %s %s %s: expected '%.300s', got '%.300s'", w->id, c->argv[0],
              c->argc > 1 ? c->argv[1] : "", c->argc > 2 ? c->argv[2] : "", want, got.p);
    free(got.p);
    w->st.checks++;
    w->st.ordered += c->key < 0;
}

/* Writes everything appended so far. Returns 0, or -1 on an I/O error. */
static int flush_out(redisContext *c)
{
    int done = 0;
    while (!done) {
        if (redisBufferWrite(c, &done) != REDIS_OK)
            return -1;
    }
    return 0;
}

/* ---- worker steps -------------------------------------------------------- */

/* Sends cmds[0..n) pipelined and checks every reply against the model. */
static void run_checked(struct worker *w, struct cmd *cmds, int n)
{
    struct text want = {0};
    for (int i = 0; i < n; i++)
        redisAppendCommandArgv(w->c, cmds[i].argc, (const char **)cmds[i].argv, cmds[i].len);
    for (int i = 0; i < n; i++) {
        redisReply *r = NULL;
        if (redisGetReply(w->c, (void **)&r) != REDIS_OK) {
            /* The server closed on us: the rest may or may not have run. */
            failf("w%02d: connection lost: %s", w->id, w->c->errstr);
            worker_reconnect(w);
            (void)resolve_abandoned(w, cmds + i, n - i);
            break;
        }
        t_clear(&want);
        model_apply(&w->m, &cmds[i], w->id, w->prefix, &want);
        check_reply(w, &cmds[i], r, want.p);
        freeReplyObject(r);
    }
    free(want.p);
    w->st.ops += (unsigned long long)n;
}

static void step_single(struct worker *w)
{
    struct cmd c;
    make_cmd(w, &c, 0);
    run_checked(w, &c, 1);
    cmd_free(&c);
}

static void step_burst(struct worker *w)
{
    int n = 2 + rnd(w, MAX_BURST - 1);
    struct cmd *cmds = xmalloc(sizeof(*cmds) * (size_t)n);
    for (int i = 0; i < n; i++)
        make_cmd(w, &cmds[i], 0);
    run_checked(w, cmds, n);
    for (int i = 0; i < n; i++)
        cmd_free(&cmds[i]);
    free(cmds);
    w->st.bursts++;
}

static void step_abandon(struct worker *w)
{
    int n = 1 + rnd(w, MAX_ABANDON);
    struct cmd cmds[MAX_ABANDON];
    for (int i = 0; i < n; i++) {
        make_cmd(w, &cmds[i], 1);
        redisAppendCommandArgv(w->c, cmds[i].argc, (const char **)cmds[i].argv, cmds[i].len);
    }
    (void)flush_out(w->c); /* a failed write is one more way for the burst to be cut */
    worker_reconnect(w);
    int applied = resolve_abandoned(w, cmds, n);
    w->st.abandon_applied += applied > 0;
    w->st.abandon_none += applied == 0;
    for (int i = 0; i < n; i++)
        cmd_free(&cmds[i]);
    w->st.ops += (unsigned long long)n;
    w->st.abandons++;
}

static void step_partial(struct worker *w)
{
    struct cmd c;
    char *buf;
    make_cmd(w, &c, 1);
    long long len = redisFormatCommandArgv(&buf, c.argc, (const char **)c.argv, c.len);
    if (len > 1) {
        size_t cut = 1 + (size_t)rnd(w, (int)(len - 1)); /* 1 .. len-1 bytes */
        /* A failed send leaves the command unsent: the same outcome. */
        (void)send(w->c->fd, buf, cut, MSG_NOSIGNAL);
    }
    redisFreeCommand(buf);
    worker_reconnect(w);
    /* Not one complete command went out: nothing may have changed. */
    (void)resolve_abandoned(w, &c, 0);
    if (c.key >= 0) {
        struct text got = {0}, want = {0};
        char kn[40];
        key_name(kn, sizeof(kn), w->id, c.key);
        if (state_of(w->c, kn, &got) == 0) {
            model_state(&want, &w->m.k[c.key]);
            if (strcmp(got.p, want.p) != 0)
                failf("w%02d: a cut %s changed %s: '%.200s', expected '%.200s'", w->id,
                      c.argv[0], kn, got.p, want.p);
        }
        free(got.p);
        free(want.p);
    }
    cmd_free(&c);
    w->st.partials++;
}

static void step_quit(struct worker *w)
{
    redisReply *r = call1(w->c, "QUIT");
    if (!r || r->type != REDIS_REPLY_STATUS)
        failf("w%02d: QUIT: unexpected reply", w->id);
    freeReplyObject(r);
    worker_reconnect(w);
    w->st.quits++;
}

/* A key under soakx: with a TTL of a few ms: gone by the end. */
static void step_short_ttl(struct worker *w)
{
    char kn[48];
    snprintf(kn, sizeof(kn), "soakx:w%02d:%d", w->id, rnd(w, 100));
    redisReply *r = call1(w->c, "SET %s x PX %d", kn, 1 + rnd(w, SHORT_TTL_MAX_MS));
    if (!r || r->type != REDIS_REPLY_STATUS)
        failf("w%02d: SET PX: unexpected reply", w->id);
    freeReplyObject(r);
    w->st.short_ttl++;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    worker_connect(w);
    while (!stopping) {
        int p = rnd(w, 1000);
        if (p < 15)
            step_abandon(w);
        else if (p < 25)
            step_partial(w);
        else if (p < 30)
            step_quit(w);
        else if (p < 60)
            step_burst(w);
        else if (p < 80)
            step_short_ttl(w);
        else
            step_single(w);
    }
    redisFree(w->c);
    return NULL;
}

/* ---- slow readers -------------------------------------------------------- */

struct reader {
    int id;
    pthread_t thread;
    uint64_t rng;
    unsigned long long replies, drops;
};

static int listing_sorted(const redisReply *r, int withvalues)
{
    if (r->type != REDIS_REPLY_ARRAY)
        return 0;
    size_t step = withvalues ? 2 : 1;
    for (size_t i = step; i < r->elements; i += step) {
        const redisReply *a = r->element[i - step], *b = r->element[i];
        size_t n = a->len < b->len ? a->len : b->len;
        int cmp = memcmp(a->str, b->str, n);
        if (cmp > 0 || (cmp == 0 && a->len >= b->len))
            return 0;
    }
    return 1;
}

static void *reader_main(void *arg)
{
    struct reader *rd = arg;
    while (!stopping) {
        redisContext *c = connect_server();
        int small = 4096;
        (void)setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
        int n = 1 + (int)(next_rand(&rd->rng) % 8);
        int drop_at = next_rand(&rd->rng) % 4 == 0 ? (int)(next_rand(&rd->rng) % (unsigned)n) : -1;
        int dropped = 0;
        for (int i = 0; i < n; i++)
            redisAppendCommand(c, "KRANGE 0 -1 WITHVALUES");
        if (flush_out(c) < 0)
            dropped = 1;
        for (int i = 0; i < n && !stopping && !dropped; i++) {
            void *reply = NULL;
            /* A reply may be buffered already; else read 16 kB (hiredis's
             * unit) after a pause: a slow consumer. */
            while (!dropped && redisGetReplyFromReader(c, &reply) == REDIS_OK && !reply) {
                usleep(SLOW_READ_PAUSE_US);
                dropped = (i == drop_at && next_rand(&rd->rng) % 8 == 0) ||
                          redisBufferRead(c) != REDIS_OK;
            }
            if (!reply)
                break;
            if (!listing_sorted(reply, 1))
                failf("reader %d: a KRANGE 0 -1 WITHVALUES listing is not strictly ascending",
                      rd->id);
            freeReplyObject(reply);
            rd->replies++;
        }
        rd->drops += (unsigned long long)dropped;
        redisFree(c);
    }
    return NULL;
}

/* ---- the final comparison ------------------------------------------------ */

struct entry {
    char *key;
    char *state;
};

struct entries {
    struct entry *e;
    size_t n, cap;
};

static void entries_add(struct entries *es, char *key, char *state)
{
    if (es->n == es->cap) {
        es->cap = es->cap ? es->cap * 2 : 1024;
        struct entry *ne = realloc(es->e, es->cap * sizeof(*ne));
        if (!ne)
            die_oom();
        es->e = ne;
    }
    es->e[es->n].key = key;
    es->e[es->n].state = state;
    es->n++;
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->key, ((const struct entry *)b)->key);
}

static void entries_sort(struct entries *es)
{
    if (es->n)
        qsort(es->e, es->n, sizeof(*es->e), entry_cmp);
}

static void entries_free(struct entries *es)
{
    for (size_t i = 0; i < es->n; i++) {
        free(es->e[i].key);
        free(es->e[i].state);
    }
    free(es->e);
    memset(es, 0, sizeof(*es));
}

/* Every key the server holds, with its state. Exits on an I/O error. */
static void server_entries(redisContext *c, struct entries *es)
{
    char cursor[32] = "0";
    do {
        redisReply *r = call1(c, "SCAN %s COUNT 200", cursor);
        if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
            fprintf(stderr, "soak: SCAN failed\n");
            exit(2);
        }
        snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
        for (size_t i = 0; i < r->element[1]->elements; i++) {
            const redisReply *k = r->element[1]->element[i];
            struct text t = {0};
            char *key = strndup(k->str, k->len);
            if (!key)
                die_oom();
            if (state_of(c, key, &t) < 0) {
                fprintf(stderr, "soak: connection lost in the final check\n");
                exit(2);
            }
            entries_add(es, key, t.p);
        }
        freeReplyObject(r);
    } while (strcmp(cursor, "0") != 0);
    entries_sort(es);
}

static void model_entries(const struct worker *ws, int nw, struct entries *es)
{
    for (int i = 0; i < nw; i++) {
        for (int k = 0; k < NKEYS; k++) {
            char kn[40];
            struct text t = {0};
            if (ws[i].m.k[k].type == T_NONE)
                continue;
            key_name(kn, sizeof(kn), ws[i].id, k);
            model_state(&t, &ws[i].m.k[k]);
            entries_add(es, xstrdup(kn), t.p);
        }
    }
    entries_sort(es);
}

/* Reads a --dump file: "key\tstate" lines. */
static void file_entries(const char *path, struct entries *es)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) > 0) {
        if (line[len - 1] == '\n')
            line[len - 1] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        *tab = '\0';
        entries_add(es, xstrdup(line), xstrdup(tab + 1));
    }
    free(line);
    fclose(f);
    entries_sort(es);
}

/* Prints the differences; returns how many there are. */
static int diff_entries(const struct entries *want, const struct entries *got)
{
    size_t i = 0, j = 0;
    int diffs = 0;
    while (i < want->n || j < got->n) {
        int cmp = i == want->n ? 1 : j == got->n ? -1 : strcmp(want->e[i].key, got->e[j].key);
        if (cmp < 0) {
            failf("missing key %s: expected '%.200s'", want->e[i].key, want->e[i].state);
            diffs++;
            i++;
        } else if (cmp > 0) {
            failf("unexpected key %s: '%.200s'", got->e[j].key, got->e[j].state);
            diffs++;
            j++;
        } else {
            if (strcmp(want->e[i].state, got->e[j].state) != 0) {
                failf("key %s: expected '%.200s', got '%.200s'", want->e[i].key,
                      want->e[i].state, got->e[j].state);
                diffs++;
            }
            i++;
            j++;
        }
    }
    return diffs;
}

/* The checks besides SCAN: DBSIZE and KRANGE 0 -1 list the same keys. */
static int check_listing(redisContext *c, const struct entries *want)
{
    int bad = 0;
    redisReply *r = call1(c, "DBSIZE");
    if (!r || r->type != REDIS_REPLY_INTEGER || (size_t)r->integer != want->n) {
        failf("DBSIZE: expected %zu, got %lld", want->n,
              r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1);
        bad++;
    }
    freeReplyObject(r);
    r = call1(c, "KRANGE 0 -1");
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != want->n) {
        failf("KRANGE 0 -1: expected %zu keys, got %zu", want->n,
              r && r->type == REDIS_REPLY_ARRAY ? r->elements : 0);
        bad++;
    } else {
        for (size_t i = 0; i < want->n; i++) {
            if (strcmp(r->element[i]->str, want->e[i].key) != 0) {
                failf("KRANGE 0 -1 [%zu]: expected %s, got %s", i, want->e[i].key,
                      r->element[i]->str);
                bad++;
                break;
            }
        }
    }
    freeReplyObject(r);
    return bad;
}

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [-h host] [-p port] [-s seconds] [-w workers] [-r readers] [-S seed]\n"
            "          [--dump FILE] [--verify FILE] [--no-flush]\n",
            argv0);
    exit(2);
}

static int verify_file(redisContext *c, const char *path)
{
    struct entries want = {0}, got = {0};
    file_entries(path, &want);
    server_entries(c, &got);
    int diffs = diff_entries(&want, &got) + check_listing(c, &want);
    printf("soak --verify %s: %zu keys expected, %zu on the server, %d differences\n", path,
           want.n, got.n, diffs);
    entries_free(&want);
    entries_free(&got);
    return diffs ? 1 : 0;
}

int main(int argc, char **argv)
{
    double seconds = 10;
    int nworkers = 8, nreaders = 2, flush = 1;
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16);
    const char *dump = NULL, *verify = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--no-flush")) {
            flush = 0;
            continue;
        }
        if (i + 1 >= argc)
            usage(argv[0]);
        const char *v = argv[++i];
        if (!strcmp(a, "-h"))
            host = v;
        else if (!strcmp(a, "-p"))
            port = atoi(v);
        else if (!strcmp(a, "-s"))
            seconds = atof(v);
        else if (!strcmp(a, "-w"))
            nworkers = atoi(v);
        else if (!strcmp(a, "-r"))
            nreaders = atoi(v);
        else if (!strcmp(a, "-S"))
            seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--dump"))
            dump = v;
        else if (!strcmp(a, "--verify"))
            verify = v;
        else
            usage(argv[0]);
    }
    if (nworkers < 1 || nworkers > MAX_WORKERS || nreaders < 0 || nreaders > MAX_READERS)
        usage(argv[0]);

    redisContext *main_c = connect_server();
    if (verify) {
        int rc = verify_file(main_c, verify);
        redisFree(main_c);
        return rc;
    }

    printf("SEED=%" PRIu64 " workers=%d readers=%d seconds=%g\n", seed, nworkers, nreaders,
           seconds);
    fflush(stdout);
    if (flush)
        freeReplyObject(call1(main_c, "FLUSHALL"));
    struct worker *ws = calloc((size_t)nworkers, sizeof(*ws));
    struct reader *rs = calloc((size_t)nreaders + 1, sizeof(*rs));
    if (!ws || !rs)
        die_oom();
    for (int i = 0; i < nworkers; i++) {
        ws[i].id = i;
        ws[i].rng = seed + (uint64_t)i * 7919;
        snprintf(ws[i].prefix, sizeof(ws[i].prefix), "soak:w%02d:", i);
        pthread_create(&ws[i].thread, NULL, worker_main, &ws[i]);
    }
    for (int i = 0; i < nreaders; i++) {
        rs[i].id = i;
        rs[i].rng = seed ^ (0xabcdefULL + (uint64_t)i);
        pthread_create(&rs[i].thread, NULL, reader_main, &rs[i]);
    }
    int64_t start = now_ms(), end = start + (int64_t)(seconds * 1000);
    int64_t next_report = start + REPORT_MS;
    while (now_ms() < end) {
        usleep(100000);
        if (now_ms() >= next_report) {
            unsigned long long ops = 0;
            for (int i = 0; i < nworkers; i++)
                ops += ws[i].st.ops; /* a racy read, for a progress line only */
            pthread_mutex_lock(&print_lock);
            printf("  %llds: %llu commands, %d mismatches\n",
                   (long long)(now_ms() - start) / 1000, ops, failures);
            fflush(stdout);
            pthread_mutex_unlock(&print_lock);
            next_report += REPORT_MS;
        }
    }
    stopping = 1;
    struct stats tot = {0};
    unsigned long long slow = 0, drops = 0;
    for (int i = 0; i < nworkers; i++) {
        const struct stats *s = &ws[i].st;
        pthread_join(ws[i].thread, NULL);
        tot.ops += s->ops;
        tot.bursts += s->bursts;
        tot.abandons += s->abandons;
        tot.partials += s->partials;
        tot.quits += s->quits;
        tot.checks += s->checks;
        tot.ordered += s->ordered;
        tot.abandon_applied += s->abandon_applied;
        tot.abandon_none += s->abandon_none;
        tot.short_ttl += s->short_ttl;
    }
    for (int i = 0; i < nreaders; i++) {
        pthread_join(rs[i].thread, NULL);
        slow += rs[i].replies;
        drops += rs[i].drops;
    }
    double secs = (double)(now_ms() - start) / 1000;
    int during = failures;

    /* Short-TTL keys must be gone once their deadlines passed: wait them out. */
    usleep((SHORT_TTL_MAX_MS + 100) * 1000);
    struct entries want = {0}, got = {0};
    model_entries(ws, nworkers, &want);
    server_entries(main_c, &got);
    int diffs = diff_entries(&want, &got) + check_listing(main_c, &want);
    if (dump) {
        FILE *f = fopen(dump, "w");
        if (!f) {
            perror(dump);
            return 2;
        }
        for (size_t i = 0; i < want.n; i++)
            fprintf(f, "%s\t%s\n", want.e[i].key, want.e[i].state);
        fclose(f);
    }
    printf("soak: %.0f s, %llu commands (%.0f/s), %llu replies checked (%llu ordered queries), "
           "%llu pipelined bursts\n",
           secs, tot.ops, (double)tot.ops / secs, tot.checks, tot.ordered, tot.bursts);
    printf("soak: disconnects: %llu abandoned bursts (%llu ran a prefix, %llu ran nothing), "
           "%llu cut commands, %llu QUIT; %llu short-TTL keys; slow readers: %llu listings, "
           "%llu dropped mid-reply\n",
           tot.abandons, tot.abandon_applied, tot.abandon_none, tot.partials, tot.quits,
           tot.short_ttl, slow, drops);
    printf("soak: final keyspace: %zu keys expected, %zu on the server; %d mismatches during the "
           "run, %d differences at the end\n",
           want.n, got.n, during, diffs);
    int status = failures ? 1 : 0;
    for (int i = 0; i < nworkers; i++)
        model_free(&ws[i].m);
    entries_free(&want);
    entries_free(&got);
    free(ws);
    free(rs);
    redisFree(main_c);
    printf("soak: %s (SEED=%" PRIu64 ")\n", status ? "FAILED" : "OK", seed);
    return status;
}
