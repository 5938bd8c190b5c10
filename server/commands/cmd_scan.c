/*
 * cmd_scan.c - SCAN and KEYS over the ordered keyspace.
 *
 * Owns: scan_commands[]. Knows nothing of sockets: handlers read argument
 * slices and write replies into c->out.
 *
 * SCAN stays wire-compatible with Redis (an integer cursor sent as a string,
 * "0" to start and "0" at the end), so redis-cli --scan, hiredis loops and
 * client libraries' iterators work unchanged. What it promises is stronger
 * than Redis's: keys come in ascending order, and each key present for the
 * whole iteration is returned exactly once, whatever is inserted or deleted
 * meanwhile. That is because a cursor stands for the last key returned, not
 * for a position (cursor.h): the next call resumes at the first key after it.
 */
#include <stdint.h>
#include <string.h>

#include "reach.h"
#include "args.h"
#include "client.h"
#include "cmd_scan.h"
#include "cursor.h"
#include "glob.h"
#include "keyspace.h"
#include "krange.h"
#include "listing.h"
#include "live.h"
#include "mem.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"

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

    live_view_for(c, &live, server.cmd_start_us / 1000);
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
    struct scan_opts o;
    if (scan_opts_or_reply(c, 1, 1, &o) < 0)
        return;

    struct filter f;
    struct live_view live;
    live_view_for(c, &live, server.cmd_start_us / 1000);
    filter_init(&f, o.match, o.typed, o.type);
    struct kr_span span = kr_span_prefix(c->db, f.prefix, f.prefix_len);
    if (o.from) {
        size_t after = ks_count_before(c->db, o.from, o.from_len, 1);
        if (after > span.lo)
            span.lo = after < span.hi ? after : span.hi;
        xfree(o.from);
    }
    /* The positions visited, and the cursor known before any key is sent,
     * since the reply starts with it. */
    size_t len = kr_span_len(&span);
    if ((unsigned long long)o.count < len)
        len = (size_t)o.count;
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

/* Arity, flags and key positions as Redis 7.0's COMMAND INFO shows them
 * (COMMAND DOCS answers Redis's own docs, redis_docs.c). */
const struct command scan_commands[] = {
    {.name = "scan", .proc = cmd_scan, .arity = -2, .flags = CMD_READONLY,
     .group = "generic", .key_reach = reach_scan},
    {.name = "keys", .proc = cmd_keys, .arity = 2, .flags = CMD_READONLY,
     .group = "generic", .key_reach = reach_keys},
    {0},
};
