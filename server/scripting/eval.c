/*
 * eval.c - EVAL's state and script cache (eval.h).
 *
 * The cache is a chained hash table by the script's SHA1 in lower-case hex;
 * each entry owns a copy of the body (SCRIPT LOAD's and EVAL's scripts are
 * kept whole, as Redis keeps them) and the flags its shebang gave. The
 * compiled function lives in the state's registry under f_<sha>, so
 * flushing the state drops every function at once.
 */
#include "eval.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "client.h"
#include "command.h"
#include "mem.h"
#include "resp_num.h"
#include "resp_parser.h"
#include "script.h"
#include "script_lua.h"
#include "sha1.h"

#define SHA_HEX 40
#define FIRST_BUCKETS 64

struct cached_script {
    struct cached_script *next;
    char sha[SHA_HEX + 1];
    unsigned flags;              /* SCRIPT_FLAG_* */
    int ref;                     /* the compiled function, in the registry */
    size_t len;
    char body[];                 /* len bytes, then a NUL */
};

static struct {
    lua_State *L;                /* NULL until the first script */
    struct cached_script **buckets;
    size_t nbuckets, count, bytes;
} ev;

/* A mix of the sha's first 16 bytes: EVALSHA looks up on every call, and
 * decoding the hex digits one by one cost more than the rest of the lookup. */
static size_t sha_bucket(const char *sha)
{
    uint64_t a, b;
    memcpy(&a, sha, sizeof(a));
    memcpy(&b, sha + sizeof(a), sizeof(b));
    uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15u)) * 0x9e3779b97f4a7c15u;
    return (size_t)(h >> 32) & (ev.nbuckets - 1);
}

static struct cached_script *cache_find(const char *sha)
{
    if (!ev.count)
        return NULL;
    for (struct cached_script *s = ev.buckets[sha_bucket(sha)]; s; s = s->next) {
        if (memcmp(s->sha, sha, SHA_HEX) == 0)
            return s;
    }
    return NULL;
}

static void cache_grow(void)
{
    size_t old = ev.nbuckets;
    struct cached_script **ob = ev.buckets;
    ev.nbuckets = old ? old * 2 : FIRST_BUCKETS;
    ev.buckets = xcalloc(ev.nbuckets, sizeof(*ev.buckets));
    for (size_t i = 0; i < old; i++) {
        struct cached_script *next;
        for (struct cached_script *s = ob[i]; s; s = next) {
            next = s->next;
            size_t b = sha_bucket(s->sha);
            s->next = ev.buckets[b];
            ev.buckets[b] = s;
        }
    }
    xfree(ob);
}

/* The SHA_HEX bytes at in, lowercased, and a NUL into out. ASCII only and
 * inline: tolower is a call per byte, on every EVALSHA. */
static void sha_lower(const char *in, char *out)
{
    for (int i = 0; i < SHA_HEX; i++)
        out[i] = in[i] >= 'A' && in[i] <= 'Z' ? (char)(in[i] - 'A' + 'a') : in[i];
    out[SHA_HEX] = '\0';
}

static void sha_hex(const char *p, size_t len, char *out)
{
    unsigned char d[SHA1_LEN];
    sha1(p, len, d);
    for (int i = 0; i < SHA1_LEN; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static lua_State *state(void)
{
    if (!ev.L) {
        ev.L = script_lua_new();
        if (!ev.L) {
            fprintf(stderr, "rbkv: cannot create the Lua state\n");
            abort();
        }
        script_lua_seal(ev.L);
    }
    return ev.L;
}

/* Redis 7.0's evalExtractShebangFlags: "#!lua" then options, only
 * flags=a,b. Returns 0 with *flags and the shebang's length (up to its
 * newline, which stays in the compiled body so line numbers hold), or -1
 * with Redis's error in err (cap bytes). */
static int shebang_parse(const char *body, size_t len, unsigned *flags, size_t *skip, char *err,
                         size_t cap)
{
    *flags = SCRIPT_FLAG_EVAL_COMPAT;
    *skip = 0;
    if (len < 2 || body[0] != '#' || body[1] != '!')
        return 0;
    const char *end = memchr(body, '\n', len);
    if (!end) {
        snprintf(err, cap, "ERR Invalid script shebang");
        return -1;
    }
    *skip = (size_t)(end - body);
    const char *p = body, *stop = end;
    int part = 0;
    *flags = 0;
    while (p < stop) {
        while (p < stop && isspace((unsigned char)*p))
            p++;
        if (p == stop)
            break;
        const char *w = p;
        while (p < stop && !isspace((unsigned char)*p))
            p++;
        size_t wl = (size_t)(p - w);
        if (part++ == 0) {
            if (wl != 5 || memcmp(w, "#!lua", 5) != 0) {
                snprintf(err, cap, "ERR Unexpected engine in script shebang: %.*s", (int)wl, w);
                return -1;
            }
            continue;
        }
        if (wl < 6 || memcmp(w, "flags=", 6) != 0) {
            snprintf(err, cap, "ERR Unknown lua shebang option: %.*s", (int)wl, w);
            return -1;
        }
        /* Redis splits on ',': "flags=" names none, "a,,b" an empty one. */
        const char *f = w + 6, *fend = p;
        while (f < fend) {
            const char *comma = memchr(f, ',', (size_t)(fend - f));
            const char *fe = comma ? comma : fend;
            unsigned bit = script_flag_by_name(f, (size_t)(fe - f));
            if (!bit) {
                snprintf(err, cap, "ERR Unexpected flag in script shebang: %.*s", (int)(fe - f),
                         f);
                return -1;
            }
            *flags |= bit;
            if (!comma)
                break;
            f = comma + 1;
            if (f == fend) {
                snprintf(err, cap, "ERR Unexpected flag in script shebang: ");
                return -1;
            }
        }
    }
    return 0;
}

unsigned eval_request_flags(const struct client *c, int by_sha, unsigned flags)
{
    const struct resp_slice *first = &c->argv[1];
    unsigned script_flags;
    if (by_sha) {
        char sha[SHA_HEX + 1];
        if (first->len != SHA_HEX)
            return flags;
        sha_lower(first->ptr, sha);
        const struct cached_script *s = cache_find(sha);
        if (!s)
            return flags;
        script_flags = s->flags;
    } else {
        /* A body's flags are its shebang's, cached or not: no hash needed,
         * and a body without one costs two byte tests. */
        char err[256];
        size_t skip;
        if (shebang_parse(first->ptr, first->len, &script_flags, &skip, err, sizeof(err)) < 0)
            return flags;
    }
    return script_command_flags(flags, script_flags);
}

/* Compiles and caches body under sha unless cached; returns the entry, or
 * NULL after replying the error. */
static struct cached_script *create_or_reply(struct client *c, const char *body, size_t len,
                                             const char *sha)
{
    struct cached_script *s = cache_find(sha);
    if (s)
        return s;
    unsigned flags;
    size_t skip;
    char err[512];
    if (shebang_parse(body, len, &flags, &skip, err, sizeof(err)) < 0) {
        resp_add_error(&c->out, err);
        return NULL;
    }
    lua_State *L = state();
    if (script_lua_load(L, "@user_script", body + skip, len - skip, err, sizeof(err)) < 0) {
        resp_add_errorf(&c->out, "ERR Error compiling script (new function): %s", err);
        return NULL;
    }
    /* By reference, not by the name "f_<sha>" as Redis keeps it: a
     * lookup by name hashes that string again on every call. */
    int ref = luaL_ref(L, LUA_REGISTRYINDEX);
    if (ev.count + 1 > ev.nbuckets)
        cache_grow();
    s = xmalloc(sizeof(*s) + len + 1);
    memcpy(s->sha, sha, SHA_HEX + 1);
    s->flags = flags;
    s->ref = ref;
    s->len = len;
    memcpy(s->body, body, len);
    s->body[len] = '\0';
    size_t b = sha_bucket(sha);
    s->next = ev.buckets[b];
    ev.buckets[b] = s;
    ev.count++;
    ev.bytes += sizeof(*s) + len + 1;
    return s;
}

void eval_command(struct client *c, int by_sha, int ro)
{
    char sha[SHA_HEX + 1];
    long long numkeys;
    const struct resp_slice *first = &c->argv[1];

    if (by_sha && first->len != SHA_HEX) {
        resp_add_error(&c->out, "NOSCRIPT No matching script. Please use EVAL.");
        return;
    }
    if (resp_parse_ll(c->argv[2].ptr, c->argv[2].len, &numkeys) < 0) {
        resp_add_error(&c->out, ERR_NOT_INT);
        return;
    }
    if (script_numkeys_or_reply(c, numkeys) < 0)
        return;
    if (by_sha) {
        sha_lower(first->ptr, sha);
    } else {
        sha_hex(first->ptr, first->len, sha);
    }
    struct cached_script *s = cache_find(sha);
    if (!s && by_sha) {
        resp_add_error(&c->out, "NOSCRIPT No matching script. Please use EVAL.");
        return;
    }
    if (!s && !(s = create_or_reply(c, first->ptr, first->len, sha)))
        return;

    struct script_run run;
    if (script_prepare_or_reply(&run, c, s->sha, s->flags, 1, ro, c->argv + 3, numkeys) < 0)
        return;
    lua_State *L = state();
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->ref);
    int n = (int)numkeys;
    script_lua_call(L, &run, SCRIPT_LUA_GLOBALS, n, c->argv + 3, c->argc - 3 - n,
                    c->argv + 3 + n);
    script_finish(&run);
}

void eval_script_load(struct client *c, const struct resp_slice *body)
{
    char sha[SHA_HEX + 1];
    sha_hex(body->ptr, body->len, sha);
    if (create_or_reply(c, body->ptr, body->len, sha))
        resp_add_bulk(&c->out, sha, SHA_HEX);
}

int eval_script_exists(const struct resp_slice *sha)
{
    char lower[SHA_HEX + 1];
    if (sha->len != SHA_HEX)
        return 0;
    sha_lower(sha->ptr, lower);
    return cache_find(lower) != NULL;
}

void eval_flush(void)
{
    for (size_t i = 0; i < ev.nbuckets; i++) {
        struct cached_script *next;
        for (struct cached_script *s = ev.buckets[i]; s; s = next) {
            next = s->next;
            xfree(s);
        }
    }
    xfree(ev.buckets);
    ev.buckets = NULL;
    ev.nbuckets = ev.count = ev.bytes = 0;
    script_lua_free(ev.L);
    ev.L = NULL;
}

/* 0 before the first script: INFO must not make the state it reports. */
size_t eval_vm_memory(void)
{
    return ev.L ? script_lua_memory(ev.L) : 0;
}

size_t eval_scripts_memory(void)
{
    return ev.bytes + ev.nbuckets * sizeof(*ev.buckets);
}

size_t eval_script_count(void)
{
    return ev.count;
}
