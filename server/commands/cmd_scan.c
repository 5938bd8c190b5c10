/*
 * cmd_scan.c - SCAN and KEYS over the ordered keyspace, and SCAN's cursor
 * table.
 *
 * Owns: scan_commands[] and the cursor table below. Knows nothing of
 * sockets: handlers read argument slices and write replies into c->out.
 *
 * SCAN stays wire-compatible with Redis (an integer cursor sent as a string,
 * "0" to start and "0" at the end), so redis-cli --scan, hiredis loops and
 * client libraries' iterators work unchanged. What it promises is stronger
 * than Redis's: keys come in ascending order, and each key present for the
 * whole iteration is returned exactly once, whatever is inserted or deleted
 * meanwhile. That is because a cursor stands for the last key returned, not
 * for a position: the next call resumes at the first key after it.
 *
 * Cursor table invariants: a cursor is a random nonzero 53-bit number, so a
 * client cannot guess another's, and JavaScript clients (node-redis keeps the
 * cursor as a Number, exact only up to 2^53) send it back unchanged; each is valid for one call (using it
 * retires it and the reply carries its successor), so one iteration holds one
 * entry; at most SCAN_CURSORS_MAX are kept, and the least recently issued is
 * dropped first. A cursor that is unknown, already used or dropped gets an
 * error, never a silent restart from the beginning.
 *
 * The table is file-static rather than in struct server because nothing
 * outside SCAN may look at it; the one loop thread owns it like all state.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reach.h"
#include "args.h"
#include "client.h"
#include "cmd_scan.h"
#include "glob.h"
#include "keyspace.h"
#include "krange.h"
#include "listing.h"
#include "live.h"
#include "mem.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"

#define SCAN_CURSORS_MAX 10000
#define SCAN_BUCKETS 16384 /* power of two, above SCAN_CURSORS_MAX: chains stay short */
#define SCAN_DEFAULT_COUNT 10

#define ERR_INVALID_CURSOR "ERR invalid cursor"
#define ERR_UNKNOWN_CURSOR                                                                       \
    "ERR invalid cursor: unknown, already used or expired (at most 10000 are kept); "           \
    "restart the scan from 0"

/* Where an iteration stands: the last key (or, for HSCAN and SSCAN, field
 * or member) it returned. */
struct scan_cursor {
    uint64_t id;
    struct scan_cursor *bucket_next;
    struct scan_cursor *older, *newer; /* issue order */
    size_t klen;
    char key[];
};

static struct {
    struct scan_cursor *buckets[SCAN_BUCKETS];
    struct scan_cursor *oldest, *newest;
    size_t count;
} cursors;

static struct scan_cursor **bucket_of(uint64_t id)
{
    return &cursors.buckets[id & (SCAN_BUCKETS - 1)];
}

/* Unlinks cur from its bucket and the issue order; the caller frees it. */
static void cursor_unlink(struct scan_cursor *cur)
{
    struct scan_cursor **link = bucket_of(cur->id);
    while (*link != cur)
        link = &(*link)->bucket_next;
    *link = cur->bucket_next;
    if (cur->older)
        cur->older->newer = cur->newer;
    else
        cursors.oldest = cur->newer;
    if (cur->newer)
        cur->newer->older = cur->older;
    else
        cursors.newest = cur->older;
    cursors.count--;
}

/* Retires cursor id and returns it (the caller frees it), or NULL when the
 * table does not hold it. */
static struct scan_cursor *cursor_take_entry(uint64_t id)
{
    struct scan_cursor *cur = *bucket_of(id);
    while (cur && cur->id != id)
        cur = cur->bucket_next;
    if (cur)
        cursor_unlink(cur);
    return cur;
}

static int cursor_exists(uint64_t id)
{
    for (const struct scan_cursor *cur = *bucket_of(id); cur; cur = cur->bucket_next)
        if (cur->id == id)
            return 1;
    return 0;
}

#define CURSOR_MASK ((UINT64_C(1) << 53) - 1)

uint64_t scan_cursor_issue(const char *last, size_t len)
{
    uint64_t id;
    do {
        id = ((uint64_t)arc4random() << 32 | arc4random()) & CURSOR_MASK;
    } while (id == 0 || cursor_exists(id));

    if (cursors.count == SCAN_CURSORS_MAX) {
        struct scan_cursor *old = cursors.oldest;
        cursor_unlink(old);
        xfree(old);
    }
    struct scan_cursor *cur = xmalloc(sizeof(*cur) + len);
    cur->id = id;
    cur->klen = len;
    memcpy(cur->key, last, len);
    cur->bucket_next = *bucket_of(id);
    *bucket_of(id) = cur;
    cur->older = cursors.newest;
    cur->newer = NULL;
    if (cursors.newest)
        cursors.newest->newer = cur;
    else
        cursors.oldest = cur;
    cursors.newest = cur;
    cursors.count++;
    return id;
}

int scan_cursor_take_or_reply(struct client *c, uint64_t id, char **last, size_t *len)
{
    struct scan_cursor *cur = cursor_take_entry(id);
    if (!cur) {
        resp_add_error(&c->out, ERR_UNKNOWN_CURSOR);
        return -1;
    }
    *len = cur->klen;
    *last = xmalloc(cur->klen + 1);
    memcpy(*last, cur->key, cur->klen);
    xfree(cur);
    return 0;
}

int scan_cursor_arg_or_reply(struct client *c, const struct resp_slice *a, uint64_t *id)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; i < a->len && a->ptr[i] >= '0' && a->ptr[i] <= '9'; i++) {
        unsigned d = (unsigned)(a->ptr[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            break;
        v = v * 10 + d;
    }
    if (a->len == 0 || i != a->len) {
        resp_add_error(&c->out, ERR_INVALID_CURSOR);
        return -1;
    }
    *id = v;
    return 0;
}

/* Which visited keys KEYS and SCAN list: those matching a pattern and, for
 * SCAN's TYPE, of one type. The pattern also says what need not be
 * visited: keys outside its literal prefix never match, and when the rest is
 * only '*' every key inside does. */
struct filter {
    const char *pat; /* NULL: no MATCH */
    size_t plen;
    char *prefix;    /* owned; freed by filter_destroy */
    size_t prefix_len;
    int prefix_only; /* every key with the prefix matches */
    int typed, type; /* type: enum ks_type, or -1 for a name no type has */
};

static void filter_init(struct filter *f, const struct resp_slice *match, int typed, int type)
{
    f->pat = match ? match->ptr : NULL;
    f->plen = match ? match->len : 0;
    f->prefix = xmalloc(f->plen + 1);
    f->prefix_len = match ? kr_glob_prefix(match->ptr, match->len, f->prefix, &f->prefix_only) : 0;
    if (!match)
        f->prefix_only = 1;
    f->typed = typed;
    f->type = type;
}

static void filter_destroy(struct filter *f)
{
    xfree(f->prefix);
}

static int filter_keeps(const struct filter *f, const struct ks_entry *e)
{
    return (!f->typed || e->type == f->type) &&
           (f->prefix_only || glob_match(f->pat, f->plen, ks_key(e), ks_klen(e), 0));
}

/* Lists the keys that f keeps among the len from position first on, those
 * past their deadline skipped (live.h). */
static void reply_keys(struct client *c, size_t first, size_t len, const struct filter *f,
                       struct live_view *live)
{
    struct ks_entry *e = len ? ks_select(c->db, first) : NULL;

    /* Every live key of the span matches: the length is known, so a long
     * reply streams (listing.h). */
    if (!f->typed && f->prefix_only) {
        size_t n = live_in(live, first, first + len);
        resp_add_array_len(&c->out, n);
        listing_span(c, e, n, 0, 0, live);
        return;
    }
    struct resp_deferred d;
    size_t n = 0;
    resp_add_deferred(&c->out, &d);
    for (size_t i = 0; i < len && !c->out.failed; i++, e = ks_next(e)) {
        if (!live_hides(live, e) && filter_keeps(f, e)) {
            resp_add_bulk(&c->out, ks_key(e), ks_klen(e));
            n++;
        }
    }
    resp_set_deferred_array(&c->out, &d, n);
}

/* KEYS pattern: every matching key, ascending; only the keys with the
 * pattern's literal prefix are visited. */
static void cmd_keys(struct client *c)
{
    struct filter f;
    struct live_view live;

    live_view_init(&live, c->db, server.cmd_start_us / 1000);
    filter_init(&f, &c->argv[1], 0, 0);
    struct kr_span span = kr_span_prefix(c->db, f.prefix, f.prefix_len);
    reply_keys(c, span.lo, kr_span_len(&span), &f, &live);
    filter_destroy(&f);
}

/* SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]: visits at most
 * count keys (as Redis, COUNT bounds the work, not the reply), starting
 * after the cursor's key and inside the pattern's literal prefix. */
static void cmd_scan(struct client *c)
{
    const struct resp_slice *match = NULL;
    long long count = SCAN_DEFAULT_COUNT;
    int type = -1, typed = 0;
    uint64_t id;

    /* Every check that can fail runs before the cursor is retired, so a
     * mistyped call can be corrected and retried. */
    if (scan_cursor_arg_or_reply(c, &c->argv[1], &id) < 0)
        return;
    for (int j = 2; j < c->argc; j += 2) {
        const struct resp_slice *a = &c->argv[j];
        if (j + 1 >= c->argc) {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
        if (arg_is(a, "MATCH")) {
            match = &c->argv[j + 1];
        } else if (arg_is(a, "COUNT")) {
            if (arg_ll_or_reply(c, &c->argv[j + 1], &count) < 0)
                return;
            if (count < 1) {
                resp_add_error(&c->out, ERR_SYNTAX);
                return;
            }
        } else if (arg_is(a, "TYPE")) {
            type = kr_type_by_name(c->argv[j + 1].ptr, c->argv[j + 1].len);
            typed = 1;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    char *from = NULL;
    size_t from_len = 0;
    if (id != 0 && scan_cursor_take_or_reply(c, id, &from, &from_len) < 0)
        return;

    struct filter f;
    struct live_view live;
    live_view_init(&live, c->db, server.cmd_start_us / 1000);
    filter_init(&f, match, typed, type);
    struct kr_span span = kr_span_prefix(c->db, f.prefix, f.prefix_len);
    if (from) {
        size_t after = ks_count_before(c->db, from, from_len, 1);
        if (after > span.lo)
            span.lo = after < span.hi ? after : span.hi;
        xfree(from);
    }
    /* The positions visited, and the cursor known before any key is sent,
     * since the reply starts with it. */
    size_t len = kr_span_len(&span);
    if ((unsigned long long)count < len)
        len = (size_t)count;
    resp_add_array_len(&c->out, 2);
    if (span.lo + len < span.hi) {
        const struct ks_entry *last = ks_select(c->db, span.lo + len - 1);
        resp_add_bulk_ll(&c->out, (long long)scan_cursor_issue(ks_key(last), ks_klen(last)));
    } else {
        resp_add_bulk(&c->out, "0", 1);
    }
    reply_keys(c, span.lo, len, &f, &live);
    filter_destroy(&f);
}

/* Arity, flags, key positions and docs as Redis 7.0's COMMAND INFO and
 * COMMAND DOCS show them, the complexities restated for the ordered
 * keyspace. */
const struct command scan_commands[] = {
    {.name = "scan", .proc = cmd_scan, .arity = -2, .flags = CMD_READONLY,
     .group = "generic", .since = "2.8.0",
     .summary = "Incrementally iterate the keys space, in ascending key order",
     .complexity = "O(log(N)+C) for every call, with N the number of keys and C the COUNT "
                  "(default 10). A MATCH pattern with a literal prefix visits only the keys with "
                  "that prefix.",
     .args = "cursor [MATCH pattern] [COUNT count] [TYPE type]", .key_reach = reach_scan},
    {.name = "keys", .proc = cmd_keys, .arity = 2, .flags = CMD_READONLY,
     .group = "generic", .since = "1.0.0",
     .summary = "Find all keys matching the given pattern, in ascending key order",
     .complexity = "O(log(N)+M) with N the number of keys in the database and M the number of "
                  "keys with the pattern's literal prefix (all of them when it starts with a "
                  "wildcard).",
     .args = "pattern", .key_reach = reach_keys},
    {0},
};
