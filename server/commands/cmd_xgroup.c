/*
 * cmd_xgroup.c - the stream consumer group commands: XGROUP (CREATE, SETID,
 * DESTROY, CREATECONSUMER, DELCONSUMER, HELP), XREADGROUP (blocking too),
 * XACK, XPENDING, XCLAIM, XAUTOCLAIM, and the groups' part of XINFO.
 *
 * Owns: xgroup_commands[]. The groups live in their stream
 * (data/xgroup.h); a handler reads argument slices and writes replies into
 * c->out. Knows nothing of sockets.
 *
 * Rules kept from Redis 7.0 (t_stream.c): the argument checks in its
 * order with its error texts; a group's entries-read counter advanced or
 * estimated as streamEstimateDistanceFromFirstEverEntry, and the lag as
 * streamReplyWithCGLag; a PEL entry for an entry that is gone is dropped
 * by XCLAIM and XAUTOCLAIM (the latter lists it in its third element).
 *
 * Replication and the log: XREADGROUP, XCLAIM and XAUTOCLAIM go out as
 * what they did, as Redis propagates them: each delivered or claimed entry
 * as "XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n FORCE JUSTID
 * LASTID last" and a moved last-delivered ID as "XGROUP SETID key group id
 * ENTRIESREAD n". Three differences make a replica end identical where Redis
 * leaves it behind: a consumer XREADGROUP creates goes out as XGROUP
 * CREATECONSUMER, a history read's new delivery counts as XCLAIM, and an
 * XCLAIM whose LASTID moved the last-delivered ID sends the XGROUP SETID
 * even when it claimed something (Redis 7.0 then sends none).
 *
 * The entries-read counter on a replica of redis-server 7.0: Redis sends an
 * XREADGROUP that acknowledges (no NOACK) as its XCLAIMs alone, one per new
 * entry with LASTID that entry, and no XGROUP SETID with the counter, so its
 * own replicas are left with the counter unknown (XINFO GROUPS's
 * entries-read nil, lag nil or wrong). An XCLAIM from the primary's link
 * that has exactly that shape (one ID, FORCE JUSTID RETRYCOUNT 1, LASTID
 * the ID, and the ID the first entry after the group's last-delivered ID)
 * is therefore counted as the delivery it was, by the primary's rule, on
 * the same stream: the replica ends with the primary's counter. A client's
 * own XCLAIM of that exact shape on a redis-server primary (which does not
 * count it) is the one case this miscounts (docs/operations.md).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "blocking.h"
#include "client.h"
#include "cmd_xgroup.h"
#include "keyspace.h"
#include "mem.h"
#include "notify.h"
#include "propagate.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "server.h"
#include "xgroup.h"
#include "xstream.h"
#include "xstream_args.h"

/* Redis's XREAD_BLOCKED_DEFAULT_COUNT: a blocked read without COUNT. */
#define BLOCKED_DEFAULT_COUNT 1000
/* XAUTOCLAIM's default COUNT, and the PEL entries it looks at per entry. */
#define AUTOCLAIM_COUNT 100
#define AUTOCLAIM_ATTEMPTS 10

static int64_t now_ms(void)
{
    return server.cmd_start_us / 1000;
}

static int id_is_zero(const struct xs_id *id)
{
    return !id->ms && !id->seq;
}

/* ---- entries-read and lag (Redis 7.0's rules) ---- */

/* Whether a deleted entry may lie in [start, end] (NULL: open). */
static int range_has_tombstones(const struct xstream *s, const struct xs_id *start,
                                const struct xs_id *end)
{
    if (!xs_len(s) || id_is_zero(&s->max_deleted))
        return 0;
    if (xs_id_cmp(&s->first_id, &s->max_deleted) > 0)
        return 0;
    struct xs_id lo = start ? *start : (struct xs_id){0, 0};
    struct xs_id hi = end ? *end : (struct xs_id){UINT64_MAX, UINT64_MAX};
    return xs_id_cmp(&lo, &s->max_deleted) <= 0 && xs_id_cmp(&s->max_deleted, &hi) <= 0;
}

/* The group's lag into *lag: 0, or -1 when unknown (a nil). The lag is
 * negative when XGROUP SETID or CREATE gave an ENTRIESREAD past the
 * entries added, and Redis replies it so. */
static int group_lag(const struct xstream *s, const struct xg_group *g, int64_t *lag)
{
    int64_t read;
    if (!s->entries_added)
        read = 0;
    else if (g->entries_read != XG_ENTRIES_READ_INVALID &&
             !range_has_tombstones(s, &g->last_id, NULL))
        read = g->entries_read;
    else if ((read = xs_estimate_entries_read(s, &g->last_id)) == XG_ENTRIES_READ_INVALID)
        return -1;
    *lag = (int64_t)s->entries_added - read;
    return 0;
}

/* Counts the delivery of the entry id in g's entries-read counter, as
 * Redis's streamReplyWithRange: one more when the counter is known and no
 * deleted entry may lie from id on, else estimated from the stream. */
static void group_count_delivery(const struct xstream *s, struct xg_group *g,
                                 const struct xs_id *id)
{
    if (g->entries_read != XG_ENTRIES_READ_INVALID && !range_has_tombstones(s, id, NULL))
        g->entries_read++;
    else if (s->entries_added)
        g->entries_read = xs_estimate_entries_read(s, id);
}

/* ---- lookups, replies, propagation ---- */

static void reply_nogroup_key(struct client *c, const struct resp_slice *key,
                              const struct resp_slice *group)
{
    resp_add_errorf(&c->out, "NOGROUP No such key '%.*s' or consumer group '%.*s'",
                    (int)key->len, key->ptr, (int)group->len, group->ptr);
}

/* The stream and group of a command that needs both (XPENDING, XCLAIM,
 * XAUTOCLAIM, which look their key up as a read, as Redis does): the
 * group, or NULL after WRONGTYPE or NOGROUP. */
static struct xg_group *group_or_reply(struct client *c, const struct resp_slice *key,
                                       const struct resp_slice *group, struct xstream **s)
{
    struct ks_entry *e;
    if (xstream_lookup_or_reply(c, key, 0, &e, s) < 0)
        return NULL;
    struct xg_group *g = *s ? xg_find(*s, group->ptr, group->len) : NULL;
    if (!g)
        reply_nogroup_key(c, key, group);
    return g;
}

/* The entry id of s into *e: 1, or 0 when it is not there. */
static int entry_find(const struct xstream *s, const struct xs_id *id, struct xs_entry *e)
{
    size_t k = xs_count_below(s, id);
    return xs_at(s, k, e) == 0 && xs_id_cmp(&e->id, id) == 0;
}

#define SLICE(s_) ((struct resp_slice){(s_), strlen(s_)})

/* XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n FORCE JUSTID LASTID
 * last: Redis's streamPropagateXCLAIM, which replays p's state exactly. */
static void propagate_claim(struct client *c, const struct resp_slice *key,
                            const struct xg_group *g, const struct xg_pending *p)
{
    char id[XID_STR_LEN], last[XID_STR_LEN], time[RESP_LL_CHARS], count[RESP_LL_CHARS];
    size_t idlen = xid_format(&p->id, id), lastlen = xid_format(&g->last_id, last);
    size_t timelen = resp_format_ll(time, p->delivery_time);
    size_t countlen = resp_format_ll(count, (long long)p->delivery_count);
    struct resp_slice argv[14] = {
        SLICE("XCLAIM"), *key, {g->name, g->nlen}, {p->consumer->name, p->consumer->nlen},
        SLICE("0"), {id, idlen}, SLICE("TIME"), {time, timelen}, SLICE("RETRYCOUNT"),
        {count, countlen}, SLICE("FORCE"), SLICE("JUSTID"), SLICE("LASTID"), {last, lastlen},
    };
    propagate_effects(c->db_index, 14, argv);
}

/* XGROUP SETID key group id ENTRIESREAD n: Redis's streamPropagateGroupID. */
static void propagate_group_id(struct client *c, const struct resp_slice *key,
                               const struct xg_group *g)
{
    char id[XID_STR_LEN], read[RESP_LL_CHARS];
    size_t idlen = xid_format(&g->last_id, id), readlen = resp_format_ll(read, g->entries_read);
    struct resp_slice argv[7] = {
        SLICE("XGROUP"), SLICE("SETID"), *key, {g->name, g->nlen}, {id, idlen},
        SLICE("ENTRIESREAD"), {read, readlen},
    };
    propagate_effects(c->db_index, 7, argv);
}

static void propagate_consumer_created(struct client *c, const struct resp_slice *key,
                                       const struct xg_group *g, const struct xg_consumer *k)
{
    struct resp_slice argv[5] = {
        SLICE("XGROUP"), SLICE("CREATECONSUMER"), *key, {g->name, g->nlen}, {k->name, k->nlen},
    };
    propagate_effects(c->db_index, 5, argv);
}

/* The consumer name of g, created (with its event) when new; seen now. */
static struct xg_consumer *consumer_get(struct client *c, const struct resp_slice *key,
                                        struct xg_group *g, const struct resp_slice *name,
                                        int *created)
{
    struct xg_consumer *k = xg_consumer_find(g, name->ptr, name->len);
    *created = !k;
    if (!k) {
        k = xg_consumer_create(g, name->ptr, name->len, now_ms());
        notify_key(c, NOTIFY_STREAM, "xgroup-createconsumer", key);
        server.dirty++;
    }
    k->seen_time = now_ms();
    return k;
}

/* ---- XGROUP ---- */

static const char *const xgroup_help_lines[] = {
    "CREATE <key> <groupname> <id|$> [option]",
    "    Create a new consumer group. Options are:",
    "    * MKSTREAM",
    "      Create the empty stream if it does not exist.",
    "    * ENTRIESREAD entries_read",
    "      Set the group's entries_read counter (internal use).",
    "CREATECONSUMER <key> <groupname> <consumer>",
    "    Create a new consumer in the specified group.",
    "DELCONSUMER <key> <groupname> <consumer>",
    "    Remove the specified consumer.",
    "DESTROY <key> <groupname>",
    "    Remove the specified group.",
    "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
    "    Set the current group ID and entries_read counter.",
};

static void xgroup_help(struct client *c)
{
    reply_help(c, xgroup_help_lines, sizeof(xgroup_help_lines) / sizeof(xgroup_help_lines[0]));
}

/* XGROUP's common part, as Redis's xgroupCommand: the options of CREATE and
 * SETID, then the stream (which must exist unless MKSTREAM) and the group
 * (which SETID, CREATECONSUMER and DELCONSUMER need). Returns 0 with *s and
 * *g set (either may be NULL for CREATE), or -1 after an error. */
struct xgroup_args {
    int mkstream;
    int64_t entries_read;
};

static int xgroup_prepare_or_reply(struct client *c, int create, int setid,
                                   struct xgroup_args *a, struct xstream **s,
                                   struct xg_group **g)
{
    a->mkstream = 0;
    a->entries_read = XG_ENTRIES_READ_INVALID;
    if (create || setid) {
        for (int i = 5; i < c->argc;) {
            if (create && arg_is(&c->argv[i], "mkstream")) {
                a->mkstream = 1;
                i++;
            } else if (arg_is(&c->argv[i], "entriesread") && i + 1 < c->argc) {
                long long n;
                if (arg_ll_or_reply(c, &c->argv[i + 1], &n) < 0)
                    return -1;
                if (n < 0 && n != XG_ENTRIES_READ_INVALID) {
                    resp_add_error(&c->out, "ERR value for ENTRIESREAD must be positive or -1");
                    return -1;
                }
                a->entries_read = n;
                i += 2;
            } else {
                reply_subcommand_syntax(c, "XGROUP");
                return -1;
            }
        }
    }
    struct ks_entry *e;
    if (xstream_lookup_or_reply(c, &c->argv[2], 1, &e, s) < 0)
        return -1;
    *g = NULL;
    if (a->mkstream)
        return 0;
    if (!*s) {
        resp_add_error(&c->out, "ERR The XGROUP subcommand requires the key to exist. Note that "
                                "for CREATE you may want to use the MKSTREAM option to create an "
                                "empty stream automatically.");
        return -1;
    }
    *g = xg_find(*s, c->argv[3].ptr, c->argv[3].len);
    if (!*g && !create && c->argc >= 4 && !arg_is(&c->argv[1], "destroy")) {
        resp_add_errorf(&c->out, "NOGROUP No such consumer group '%.*s' for key name '%.*s'",
                        (int)c->argv[3].len, c->argv[3].ptr, (int)c->argv[2].len,
                        c->argv[2].ptr);
        return -1;
    }
    return 0;
}

static void xgroup_create(struct client *c)
{
    struct xgroup_args a;
    struct xstream *s;
    struct xg_group *g;
    if (xgroup_prepare_or_reply(c, 1, 0, &a, &s, &g) < 0)
        return;
    if (c->argc > 8) {
        reply_subcommand_syntax(c, "XGROUP");
        return;
    }
    struct xs_id id = {0, 0};
    const struct resp_slice *ida = &c->argv[4];
    if (ida->len == 1 && ida->ptr[0] == '$') {
        if (s)
            id = s->last_id;
    } else if (xid_or_reply(c, ida, 0, 1, &id, NULL) < 0) {
        return;
    }
    if (!s) {
        s = xs_new();
        ks_add_ptr(c->db, c->argv[2].ptr, c->argv[2].len, KS_STREAM, s);
        notify_key(c, NOTIFY_NEW, "new", &c->argv[2]);
    } else if (xg_find(s, c->argv[3].ptr, c->argv[3].len)) {
        resp_add_error(&c->out, "BUSYGROUP Consumer Group name already exists");
        return;
    }
    xg_create(s, c->argv[3].ptr, c->argv[3].len, &id, a.entries_read);
    reply_ok(c);
    server.dirty++;
    notify_key(c, NOTIFY_STREAM, "xgroup-create", &c->argv[2]);
}

static void xgroup_setid(struct client *c)
{
    struct xgroup_args a;
    struct xstream *s;
    struct xg_group *g;
    if (xgroup_prepare_or_reply(c, 0, 1, &a, &s, &g) < 0)
        return;
    if (c->argc != 5 && c->argc != 7) {
        reply_subcommand_syntax(c, "XGROUP");
        return;
    }
    struct xs_id id;
    const struct resp_slice *ida = &c->argv[4];
    if (ida->len == 1 && ida->ptr[0] == '$')
        id = s->last_id;
    else if (xid_or_reply(c, ida, 0, 0, &id, NULL) < 0)
        return;
    g->last_id = id;
    g->entries_read = a.entries_read;
    reply_ok(c);
    server.dirty++;
    notify_key(c, NOTIFY_STREAM, "xgroup-setid", &c->argv[2]);
}

static void xgroup_destroy(struct client *c)
{
    struct xgroup_args a;
    struct xstream *s;
    struct xg_group *g;
    if (xgroup_prepare_or_reply(c, 0, 0, &a, &s, &g) < 0)
        return;
    if (!g) {
        resp_add_int(&c->out, 0);
        return;
    }
    xg_destroy(s, g);
    resp_add_int(&c->out, 1);
    server.dirty++;
    notify_key(c, NOTIFY_STREAM, "xgroup-destroy", &c->argv[2]);
    /* A reader blocked on the group gets Redis's NOGROUP error. */
    block_signal_key(c->db, c->argv[2].ptr, c->argv[2].len);
}

static void xgroup_createconsumer(struct client *c)
{
    struct xgroup_args a;
    struct xstream *s;
    struct xg_group *g;
    if (xgroup_prepare_or_reply(c, 0, 0, &a, &s, &g) < 0)
        return;
    const struct resp_slice *name = &c->argv[4];
    if (xg_consumer_find(g, name->ptr, name->len)) {
        resp_add_int(&c->out, 0);
        return;
    }
    xg_consumer_create(g, name->ptr, name->len, now_ms());
    server.dirty++;
    notify_key(c, NOTIFY_STREAM, "xgroup-createconsumer", &c->argv[2]);
    resp_add_int(&c->out, 1);
}

static void xgroup_delconsumer(struct client *c)
{
    struct xgroup_args a;
    struct xstream *s;
    struct xg_group *g;
    if (xgroup_prepare_or_reply(c, 0, 0, &a, &s, &g) < 0)
        return;
    struct xg_consumer *k = xg_consumer_find(g, c->argv[4].ptr, c->argv[4].len);
    size_t pending = 0;
    if (k) {
        pending = k->pel_count;
        xg_consumer_delete(g, k);
        server.dirty++;
        notify_key(c, NOTIFY_STREAM, "xgroup-delconsumer", &c->argv[2]);
    }
    resp_add_int(&c->out, (long long)pending);
}

/* ---- XREADGROUP ---- */

/* Delivers to consumer k of g the entries of s after g's last ID, at most
 * count (0: all), as XREADGROUP's [key, entries] element: each joins the
 * PELs unless noack, and goes out as an XCLAIM; the moved last ID as
 * XGROUP SETID. Returns how many. */
static size_t deliver_new(struct client *c, const struct resp_slice *key, struct xstream *s,
                          struct xg_group *g, struct xg_consumer *k, size_t count, int noack)
{
    struct xs_id start = g->last_id;
    size_t lo = xs_id_incr(&start) ? xs_len(s) : xs_count_below(s, &start);
    size_t n = xs_len(s) - lo;
    if (count && n > count)
        n = count;
    if (c->out.proto == 2)
        resp_add_array_len(&c->out, 2);
    resp_add_bulk(&c->out, key->ptr, key->len);
    resp_add_array_len(&c->out, n);
    struct xs_it it;
    struct xs_entry e;
    int64_t now = now_ms();
    xs_seek(s, lo, &it);
    for (size_t i = 0; i < n; i++, xs_next(s, &it)) {
        xs_entry_of(s, &it, &e);
        group_count_delivery(s, g, &e.id);
        g->last_id = e.id;
        xentry_reply(c, &e);
        if (noack)
            continue;
        struct xg_pending *p = xg_pending_find(g, &e.id);
        if (p) {
            /* XGROUP SETID can hand out an entry again: it changes hands. */
            xg_pending_move(p, k);
            p->delivery_time = now;
            p->delivery_count = 1;
        } else {
            p = xg_pending_add(g, k, &e.id, now);
        }
        propagate_claim(c, key, g, p);
    }
    if (n) {
        propagate_group_id(c, key, g);
        server.dirty++;
    }
    return n;
}

/* A consumer's history: its pending entries from start on, at most count
 * (0: all), each delivered again (an entry no longer in the stream as
 * [id, nil]), as XREADGROUP's [key, entries] element. */
static void deliver_history(struct client *c, const struct resp_slice *key,
                            const struct xstream *s, struct xg_group *g, struct xg_consumer *k,
                            const struct xs_id *start, size_t count)
{
    size_t n = 0;
    for (struct xg_pending *p = xg_pending_seek(g, k, start); p && (!count || n < count);
         p = xg_pending_next(p, k))
        n++;
    if (c->out.proto == 2)
        resp_add_array_len(&c->out, 2);
    resp_add_bulk(&c->out, key->ptr, key->len);
    resp_add_array_len(&c->out, n);
    struct xg_pending *p = xg_pending_seek(g, k, start);
    int64_t now = now_ms();
    for (size_t i = 0; i < n; i++, p = xg_pending_next(p, k)) {
        struct xs_entry e;
        if (!entry_find(s, &p->id, &e)) {
            resp_add_array_len(&c->out, 2);
            xid_reply(c, &p->id);
            resp_add_null_array(&c->out);
            continue;
        }
        xentry_reply(c, &e);
        p->delivery_time = now;
        p->delivery_count++;
        propagate_claim(c, key, g, p);
        server.dirty++;
    }
}

/* What a blocked XREADGROUP waits for, copied by block_client. */
struct readgroup_how {
    size_t count;
    int noack;
    size_t glen, clen;
    char names[]; /* the group's, then the consumer's */
};

static void reply_read_len(struct client *c, size_t n)
{
    if (c->out.proto == 2)
        resp_add_array_len(&c->out, n);
    else
        resp_add_map_len(&c->out, n);
}

/* block_serve_fn: Redis 7.0's serving of a blocked XREADGROUP, always for
 * ">": the entries after the group's last ID when the stream's last ID is
 * past it; errors when the key or the group went away. What it did goes
 * out as one unit (no command is running), as the command's would. */
static int readgroup_serve(struct client *c, const struct resp_slice *key, const void *how_)
{
    const struct readgroup_how *how = how_;
    struct ks_entry *e = lookup_peek(c, key);
    if (!e || e->type != KS_STREAM) {
        resp_add_error(&c->out, "UNBLOCKED the stream key no longer exists");
        return 1;
    }
    struct xstream *s = ks_ptr(e);
    struct xg_group *g = xg_find(s, how->names, how->glen);
    if (!g) {
        resp_add_error(&c->out,
                       "NOGROUP the consumer group this client was blocked on no longer exists");
        return 1;
    }
    if (xs_id_cmp(&s->last_id, &g->last_id) <= 0)
        return -1; /* another group's reader may have something */
    struct resp_slice cname = {how->names + how->glen, how->clen};
    int created;
    propagate_unit_begin();
    struct xg_consumer *k = consumer_get(c, key, g, &cname, &created);
    if (created)
        propagate_consumer_created(c, key, g, k);
    reply_read_len(c, 1);
    deliver_new(c, key, s, g, k, how->count, how->noack);
    propagate_unit_end();
    return 1;
}

static void readgroup_block(struct client *c, const struct resp_slice *keys, int nkeys,
                            const struct resp_slice *group, const struct resp_slice *consumer,
                            size_t count, int noack, int64_t ms)
{
    size_t len = sizeof(struct readgroup_how) + group->len + consumer->len;
    struct readgroup_how *how = xmalloc(len);
    how->count = count ? count : BLOCKED_DEFAULT_COUNT;
    how->noack = noack;
    how->glen = group->len;
    how->clen = consumer->len;
    memcpy(how->names, group->ptr, group->len);
    memcpy(how->names + group->len, consumer->ptr, consumer->len);
    block_client(c, keys, nkeys, ms, readgroup_serve, how, len);
    xfree(how);
}

static void cmd_xreadgroup(struct client *c)
{
    struct xread_opts o;
    if (xread_opts_or_reply(c, 1, &o) < 0)
        return;
    long long count = o.count;
    int64_t ms = o.ms;
    int streams = o.streams, nkeys = o.nkeys, noack = o.noack;
    const struct resp_slice *group = o.group, *consumer = o.consumer;
    const struct resp_slice *keys = &c->argv[streams];
    struct xs_id *ids = xmalloc(sizeof(*ids) * (size_t)nkeys);
    int *history = xmalloc(sizeof(*history) * (size_t)nkeys);
    for (int i = 0; i < nkeys; i++) {
        const struct resp_slice *a = &c->argv[streams + nkeys + i];
        struct ks_entry *e;
        struct xstream *s;
        if (xstream_lookup_or_reply(c, &keys[i], 0, &e, &s) < 0)
            goto out;
        if (!s || !xg_find(s, group->ptr, group->len)) {
            resp_add_errorf(&c->out,
                            "NOGROUP No such key '%.*s' or consumer group '%.*s' in XREADGROUP "
                            "with GROUP option",
                            (int)keys[i].len, keys[i].ptr, (int)group->len, group->ptr);
            goto out;
        }
        history[i] = !(a->len == 1 && a->ptr[0] == '>');
        if (a->len == 1 && a->ptr[0] == '$') {
            resp_add_error(&c->out, "ERR The $ ID is meaningless in the context of XREADGROUP: "
                                    "you want to read the history of this consumer by "
                                    "specifying a proper ID, or use the > ID to get new "
                                    "messages. The $ ID would just return an empty result set.");
            goto out;
        }
        if (history[i] && xid_or_reply(c, a, 0, 1, &ids[i], NULL) < 0)
            goto out;
    }
    /* Which keys answer now: every history read, and ">" with entries past
     * the group's last ID; the reply's length is known first. */
    size_t served = 0;
    for (int i = 0; i < nkeys; i++) {
        struct xstream *s = ks_ptr(lookup_peek(c, &keys[i]));
        struct xg_group *g = xg_find(s, group->ptr, group->len);
        served += history[i] || xstream_has_after(s, &g->last_id);
    }
    if (served)
        reply_read_len(c, served);
    for (int i = 0; i < nkeys; i++) {
        struct xstream *s = ks_ptr(lookup_peek(c, &keys[i]));
        struct xg_group *g = xg_find(s, group->ptr, group->len);
        /* As Redis 7.0: the consumer is created (and seen) only by a read
         * that answers for this key. */
        if (!history[i] && !xstream_has_after(s, &g->last_id))
            continue;
        int created;
        struct xg_consumer *k = consumer_get(c, &keys[i], g, consumer, &created);
        if (created)
            propagate_consumer_created(c, &keys[i], g, k);
        if (history[i]) {
            /* After the ID given; past the largest, Redis's increment wraps to 0-0. */
            struct xs_id start = ids[i];
            if (xs_id_incr(&start))
                start = (struct xs_id){0, 0};
            deliver_history(c, &keys[i], s, g, k, &start, (size_t)count);
        } else {
            deliver_new(c, &keys[i], s, g, k, (size_t)count, noack);
        }
    }
    if (!served) {
        if (ms < 0 || c->multi)
            resp_add_null_array(&c->out);
        else
            readgroup_block(c, keys, nkeys, group, consumer, (size_t)count, noack, ms);
    }
out:
    xfree(ids);
    xfree(history);
}

/* ---- XACK ---- */

static void cmd_xack(struct client *c)
{
    struct ks_entry *e;
    struct xstream *s;
    if (xstream_lookup_or_reply(c, &c->argv[1], 0, &e, &s) < 0)
        return;
    struct xg_group *g = s ? xg_find(s, c->argv[2].ptr, c->argv[2].len) : NULL;
    if (!g) {
        resp_add_int(&c->out, 0);
        return;
    }
    int n = c->argc - 3;
    struct xs_id *ids = xmalloc(sizeof(*ids) * (size_t)n);
    for (int i = 0; i < n; i++) {
        if (xid_or_reply(c, &c->argv[3 + i], 0, 1, &ids[i], NULL) < 0)
            goto out;
    }
    long long acked = 0;
    for (int i = 0; i < n; i++) {
        struct xg_pending *p = xg_pending_find(g, &ids[i]);
        if (p) {
            xg_pending_ack(g, p);
            acked++;
            server.dirty++;
        }
    }
    resp_add_int(&c->out, acked);
out:
    xfree(ids);
}

/* ---- XPENDING ---- */

static void xpending_summary(struct client *c, const struct xg_group *g)
{
    resp_add_array_len(&c->out, 4);
    resp_add_int(&c->out, (long long)g->pel_count);
    if (!g->pel_count) {
        resp_add_null(&c->out);
        resp_add_null(&c->out);
        resp_add_null_array(&c->out);
        return;
    }
    xid_reply(c, &xg_pending_first(g)->id);
    xid_reply(c, &xg_pending_last(g)->id);
    size_t n = 0;
    for (struct xg_consumer *k = xg_consumer_first(g); k; k = xg_consumer_next(k))
        n += k->pel_count > 0;
    resp_add_array_len(&c->out, n);
    for (struct xg_consumer *k = xg_consumer_first(g); k; k = xg_consumer_next(k)) {
        if (!k->pel_count)
            continue;
        char num[RESP_LL_CHARS];
        resp_add_array_len(&c->out, 2);
        resp_add_bulk(&c->out, k->name, k->nlen);
        resp_add_bulk(&c->out, num, resp_format_ll(num, (long long)k->pel_count));
    }
}

static void cmd_xpending(struct client *c)
{
    long long count = 0, minidle = 0;
    struct xs_id start = {0, 0}, end = {0, 0};
    const struct resp_slice *cname = NULL;
    if (c->argc != 3 && (c->argc < 6 || c->argc > 9)) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    if (c->argc >= 6) {
        int at = 3, sx, ex;
        if (arg_is(&c->argv[3], "idle")) {
            if (arg_ll_or_reply(c, &c->argv[4], &minidle) < 0)
                return;
            if (c->argc < 8) {
                resp_add_error(&c->out, ERR_SYNTAX);
                return;
            }
            at += 2;
        }
        if (arg_ll_or_reply(c, &c->argv[at + 2], &count) < 0)
            return;
        if (count < 0)
            count = 0;
        if (xbound_or_reply(c, &c->argv[at], 0, &start, &sx) < 0)
            return;
        if (sx && xs_id_incr(&start)) {
            resp_add_error(&c->out, "ERR invalid start ID for the interval");
            return;
        }
        if (xbound_or_reply(c, &c->argv[at + 1], UINT64_MAX, &end, &ex) < 0)
            return;
        if (ex && xs_id_decr(&end)) {
            resp_add_error(&c->out, "ERR invalid end ID for the interval");
            return;
        }
        if (at + 3 < c->argc)
            cname = &c->argv[at + 3];
    }
    struct xstream *s;
    struct xg_group *g = group_or_reply(c, &c->argv[1], &c->argv[2], &s);
    if (!g)
        return;
    if (c->argc == 3) {
        xpending_summary(c, g);
        return;
    }
    struct xg_consumer *k = NULL;
    if (cname && !(k = xg_consumer_find(g, cname->ptr, cname->len))) {
        resp_add_array_len(&c->out, 0);
        return;
    }
    int64_t now = now_ms();
    size_t n = 0;
    long long left = count;
    for (struct xg_pending *p = xg_pending_seek(g, k, &start);
         left && p && xs_id_cmp(&p->id, &end) <= 0; p = xg_pending_next(p, k)) {
        if (minidle && now - p->delivery_time < minidle)
            continue;
        n++;
        left--;
    }
    resp_add_array_len(&c->out, n);
    left = (long long)n;
    for (struct xg_pending *p = xg_pending_seek(g, k, &start); left; p = xg_pending_next(p, k)) {
        if (minidle && now - p->delivery_time < minidle)
            continue;
        left--;
        int64_t idle = now - p->delivery_time;
        resp_add_array_len(&c->out, 4);
        xid_reply(c, &p->id);
        resp_add_bulk(&c->out, p->consumer->name, p->consumer->nlen);
        resp_add_int(&c->out, idle < 0 ? 0 : idle);
        resp_add_int(&c->out, (long long)p->delivery_count);
    }
}

/* ---- XCLAIM and XAUTOCLAIM ---- */

/* An entry claimed, or its ID alone under JUSTID, or nil when gone. */
static void reply_claimed(struct client *c, const struct xstream *s, const struct xs_id *id,
                          int justid)
{
    struct xs_entry e;
    if (justid)
        xid_reply(c, id);
    else if (entry_find(s, id, &e))
        xentry_reply(c, &e);
    else
        resp_add_null(&c->out);
}

/* Drops p, whose entry is gone: propagated as the XCLAIM that drops it on
 * a replica too (the replica's XCLAIM finds no entry either). */
static void drop_gone(struct client *c, struct xg_group *g, struct xg_pending *p)
{
    propagate_claim(c, &c->argv[1], g, p);
    xg_pending_ack(g, p);
    server.dirty++;
}

/* Whether id is the first entry of s after g's last-delivered ID. */
static int is_next_entry(const struct xstream *s, const struct xg_group *g,
                         const struct xs_id *id)
{
    struct xs_id from = g->last_id;
    struct xs_entry e;
    return !xs_id_incr(&from) && xs_at(s, xs_count_below(s, &from), &e) == 0 &&
           xs_id_cmp(&e.id, id) == 0;
}

static int ll_opt_or_reply(struct client *c, const struct resp_slice *a, long long *v,
                           const char *what)
{
    if (resp_parse_ll(a->ptr, a->len, v) == 0)
        return 0;
    resp_add_errorf(&c->out, "ERR %s", what);
    return -1;
}

static void cmd_xclaim(struct client *c)
{
    struct xstream *s;
    struct xg_group *g = group_or_reply(c, &c->argv[1], &c->argv[2], &s);
    if (!g)
        return;
    long long minidle, retrycount = -1, delivery = -1, v;
    int force = 0, justid = 0, propagate_last = 0;
    if (ll_opt_or_reply(c, &c->argv[4], &minidle, "Invalid min-idle-time argument for XCLAIM") <
        0)
        return;
    if (minidle < 0)
        minidle = 0;
    int j = 5;
    struct xs_id id, last = {0, 0};
    struct xs_id *ids = xmalloc(sizeof(*ids) * (size_t)(c->argc - 5));
    int nids = 0;
    for (; j < c->argc; j++) {
        if (xid_parse(&c->argv[j], 0, 1, &id, NULL) < 0)
            break;
        ids[nids++] = id;
    }
    int64_t now = now_ms();
    for (; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        const struct resp_slice *o = &c->argv[j];
        if (arg_is(o, "force")) {
            force = 1;
        } else if (arg_is(o, "justid")) {
            justid = 1;
        } else if (arg_is(o, "idle") && more) {
            if (ll_opt_or_reply(c, &c->argv[++j], &v, "Invalid IDLE option argument for XCLAIM") <
                0)
                goto out;
            delivery = now - v;
        } else if (arg_is(o, "time") && more) {
            if (ll_opt_or_reply(c, &c->argv[++j], &delivery,
                                "Invalid TIME option argument for XCLAIM") < 0)
                goto out;
        } else if (arg_is(o, "retrycount") && more) {
            if (ll_opt_or_reply(c, &c->argv[++j], &retrycount,
                                "Invalid RETRYCOUNT option argument for XCLAIM") < 0)
                goto out;
        } else if (arg_is(o, "lastid") && more) {
            if (xid_or_reply(c, &c->argv[++j], 0, 1, &last, NULL) < 0)
                goto out;
        } else {
            resp_add_errorf(&c->out, "ERR Unrecognized XCLAIM option '%.*s'", (int)o->len,
                            o->ptr);
            goto out;
        }
    }
    if (xs_id_cmp(&last, &g->last_id) > 0) {
        /* A redis-server primary's XREADGROUP delivering one entry (the
         * file's header): counted as it was counted there. */
        if ((c->flags & CLIENT_MASTER) && nids == 1 && force && justid && retrycount == 1 &&
            !xs_id_cmp(&ids[0], &last) && is_next_entry(s, g, &last))
            group_count_delivery(s, g, &last);
        g->last_id = last;
        propagate_last = 1;
    }
    if (delivery < 0 || delivery > now) /* none given (-1), or bogus */
        delivery = now;
    /* Claimed entries first, so the reply's length is known: the work is
     * done into a list, then replied. */
    struct xg_pending **claimed = xmalloc(sizeof(*claimed) * (size_t)(nids ? nids : 1));
    size_t n = 0;
    struct xg_consumer *k = NULL;
    for (int i = 0; i < nids; i++) {
        struct xg_pending *p = xg_pending_find(g, &ids[i]);
        struct xs_entry e;
        if (!entry_find(s, &ids[i], &e)) {
            if (p)
                drop_gone(c, g, p);
            continue;
        }
        int forced = 0;
        if (!p) {
            if (!force)
                continue;
            forced = 1;
        }
        if (!forced && minidle && now - p->delivery_time < minidle)
            continue;
        if (!k) {
            int created;
            k = consumer_get(c, &c->argv[1], g, &c->argv[3], &created);
        }
        if (forced) {
            p = xg_pending_add(g, k, &ids[i], delivery);
        } else {
            xg_pending_move(p, k);
        }
        p->delivery_time = delivery;
        if (retrycount >= 0)
            p->delivery_count = (uint64_t)retrycount;
        else if (!justid)
            p->delivery_count++;
        claimed[n++] = p;
        propagate_claim(c, &c->argv[1], g, p);
        server.dirty++;
    }
    if (propagate_last) {
        propagate_group_id(c, &c->argv[1], g);
        server.dirty++;
    }
    resp_add_array_len(&c->out, n);
    for (size_t i = 0; i < n; i++)
        reply_claimed(c, s, &claimed[i]->id, justid);
    xfree(claimed);
out:
    xfree(ids);
}

static void cmd_xautoclaim(struct client *c)
{
    long long minidle, count = AUTOCLAIM_COUNT;
    int justid = 0, sx;
    struct xs_id start;
    if (ll_opt_or_reply(c, &c->argv[4], &minidle,
                        "Invalid min-idle-time argument for XAUTOCLAIM") < 0)
        return;
    if (minidle < 0)
        minidle = 0;
    if (xbound_or_reply(c, &c->argv[5], 0, &start, &sx) < 0)
        return;
    if (sx && xs_id_incr(&start)) {
        resp_add_error(&c->out, "ERR invalid start ID for the interval");
        return;
    }
    for (int j = 6; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        if (arg_is(&c->argv[j], "count") && more) {
            long long max = LLONG_MAX / (long long)sizeof(struct xs_id);
            if (resp_parse_ll(c->argv[j + 1].ptr, c->argv[j + 1].len, &count) < 0 || count < 1 ||
                count > max) {
                resp_add_error(&c->out, "ERR COUNT must be > 0");
                return;
            }
            j++;
        } else if (arg_is(&c->argv[j], "justid")) {
            justid = 1;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    struct xstream *s;
    struct xg_group *g = group_or_reply(c, &c->argv[1], &c->argv[2], &s);
    if (!g)
        return;
    long long attempts = count * AUTOCLAIM_ATTEMPTS;
    int64_t now = now_ms();
    /* At most the whole PEL is claimed or dropped, whatever COUNT says. */
    size_t cap = (size_t)count < g->pel_count ? (size_t)count : g->pel_count;
    struct xs_id *deleted = xmalloc(sizeof(*deleted) * (cap ? cap : 1));
    struct xs_id *claimed = xmalloc(sizeof(*claimed) * (cap ? cap : 1));
    size_t ndeleted = 0, n = 0;
    struct xg_consumer *k = NULL;
    struct xg_pending *p = xg_pending_seek(g, NULL, &start);
    while (attempts-- && count && p) {
        struct xg_pending *next = xg_pending_next(p, NULL);
        struct xs_entry e;
        if (!entry_find(s, &p->id, &e)) {
            deleted[ndeleted++] = p->id;
            drop_gone(c, g, p);
            count--;
            p = next;
            continue;
        }
        if (minidle && now - p->delivery_time < minidle) {
            p = next;
            continue;
        }
        if (!k) {
            int created;
            k = consumer_get(c, &c->argv[1], g, &c->argv[3], &created);
        }
        xg_pending_move(p, k);
        p->delivery_time = now;
        if (!justid)
            p->delivery_count++;
        claimed[n++] = p->id;
        count--;
        propagate_claim(c, &c->argv[1], g, p);
        server.dirty++;
        p = next;
    }
    resp_add_array_len(&c->out, 3);
    struct xs_id cursor = p ? p->id : (struct xs_id){0, 0};
    xid_reply(c, &cursor);
    resp_add_array_len(&c->out, n);
    for (size_t i = 0; i < n; i++)
        reply_claimed(c, s, &claimed[i], justid);
    resp_add_array_len(&c->out, ndeleted);
    for (size_t i = 0; i < ndeleted; i++)
        xid_reply(c, &deleted[i]);
    xfree(deleted);
    xfree(claimed);
}

/* ---- XINFO GROUPS, CONSUMERS, and STREAM FULL's groups ---- */

static void reply_entries_read(struct client *c, const struct xg_group *g)
{
    if (g->entries_read != XG_ENTRIES_READ_INVALID)
        resp_add_int(&c->out, g->entries_read);
    else
        resp_add_null(&c->out);
}

static void reply_lag(struct client *c, const struct xstream *s, const struct xg_group *g)
{
    int64_t lag;
    if (group_lag(s, g, &lag) == 0)
        resp_add_int(&c->out, lag);
    else
        resp_add_null(&c->out);
}

void xgroup_info_groups(struct client *c)
{
    struct xstream *s = xstream_existing_or_reply(c, &c->argv[2], 0);
    if (!s)
        return;
    resp_add_array_len(&c->out, s->ngroups);
    for (struct xg_group *g = xg_first(s); g; g = xg_next(g)) {
        resp_add_map_len(&c->out, 6);
        resp_add_bulk_cstr(&c->out, "name");
        resp_add_bulk(&c->out, g->name, g->nlen);
        resp_add_bulk_cstr(&c->out, "consumers");
        resp_add_int(&c->out, (long long)g->nconsumers);
        resp_add_bulk_cstr(&c->out, "pending");
        resp_add_int(&c->out, (long long)g->pel_count);
        resp_add_bulk_cstr(&c->out, "last-delivered-id");
        xid_reply(c, &g->last_id);
        resp_add_bulk_cstr(&c->out, "entries-read");
        reply_entries_read(c, g);
        resp_add_bulk_cstr(&c->out, "lag");
        reply_lag(c, s, g);
    }
}

void xgroup_info_consumers(struct client *c)
{
    struct xstream *s = xstream_existing_or_reply(c, &c->argv[2], 0);
    if (!s)
        return;
    struct xg_group *g = xg_find(s, c->argv[3].ptr, c->argv[3].len);
    if (!g) {
        resp_add_errorf(&c->out, "NOGROUP No such consumer group '%.*s' for key name '%.*s'",
                        (int)c->argv[3].len, c->argv[3].ptr, (int)c->argv[2].len,
                        c->argv[2].ptr);
        return;
    }
    int64_t now = now_ms();
    resp_add_array_len(&c->out, g->nconsumers);
    for (struct xg_consumer *k = xg_consumer_first(g); k; k = xg_consumer_next(k)) {
        int64_t idle = now - k->seen_time;
        resp_add_map_len(&c->out, 3);
        resp_add_bulk_cstr(&c->out, "name");
        resp_add_bulk(&c->out, k->name, k->nlen);
        resp_add_bulk_cstr(&c->out, "pending");
        resp_add_int(&c->out, (long long)k->pel_count);
        resp_add_bulk_cstr(&c->out, "idle");
        resp_add_int(&c->out, idle < 0 ? 0 : idle);
    }
}

/* [id, consumer, delivery time, deliveries] per entry of g's PEL, or
 * without the consumer per entry of k's when k is not NULL; at most count
 * (0: all). */
static void reply_full_pel(struct client *c, const struct xg_group *g,
                           const struct xg_consumer *k, size_t count)
{
    size_t total = k ? k->pel_count : g->pel_count;
    size_t n = count && total > count ? count : total;
    resp_add_array_len(&c->out, n);
    struct xs_id zero = {0, 0};
    struct xg_pending *p = xg_pending_seek(g, k, &zero);
    for (size_t i = 0; i < n; i++, p = xg_pending_next(p, k)) {
        resp_add_array_len(&c->out, k ? 3 : 4);
        xid_reply(c, &p->id);
        if (!k)
            resp_add_bulk(&c->out, p->consumer->name, p->consumer->nlen);
        resp_add_int(&c->out, p->delivery_time);
        resp_add_int(&c->out, (long long)p->delivery_count);
    }
}

void xgroup_info_full_groups(struct client *c, const struct xstream *s, size_t count)
{
    resp_add_array_len(&c->out, s->ngroups);
    for (struct xg_group *g = xg_first(s); g; g = xg_next(g)) {
        resp_add_map_len(&c->out, 7);
        resp_add_bulk_cstr(&c->out, "name");
        resp_add_bulk(&c->out, g->name, g->nlen);
        resp_add_bulk_cstr(&c->out, "last-delivered-id");
        xid_reply(c, &g->last_id);
        resp_add_bulk_cstr(&c->out, "entries-read");
        reply_entries_read(c, g);
        resp_add_bulk_cstr(&c->out, "lag");
        reply_lag(c, s, g);
        resp_add_bulk_cstr(&c->out, "pel-count");
        resp_add_int(&c->out, (long long)g->pel_count);
        resp_add_bulk_cstr(&c->out, "pending");
        reply_full_pel(c, g, NULL, count);
        resp_add_bulk_cstr(&c->out, "consumers");
        resp_add_array_len(&c->out, g->nconsumers);
        for (struct xg_consumer *k = xg_consumer_first(g); k; k = xg_consumer_next(k)) {
            resp_add_map_len(&c->out, 4);
            resp_add_bulk_cstr(&c->out, "name");
            resp_add_bulk(&c->out, k->name, k->nlen);
            resp_add_bulk_cstr(&c->out, "seen-time");
            resp_add_int(&c->out, k->seen_time);
            resp_add_bulk_cstr(&c->out, "pel-count");
            resp_add_int(&c->out, (long long)k->pel_count);
            resp_add_bulk_cstr(&c->out, "pending");
            reply_full_pel(c, g, k, count);
        }
    }
}

/* ---- the table ---- */

#define XG_SUB(name_, proc_, arity_, flags_)                                                     \
    {.name = (name_), .proc = (proc_), .arity = (arity_), .flags = (flags_), .first_key = 2,     \
     .last_key = 2, .key_step = 1, .group = "stream"}

static const struct command xgroup_subcommands[] = {
    XG_SUB("xgroup|create", xgroup_create, -5, CMD_WRITE | CMD_DENYOOM),
    XG_SUB("xgroup|setid", xgroup_setid, -5, CMD_WRITE),
    XG_SUB("xgroup|destroy", xgroup_destroy, 4, CMD_WRITE),
    XG_SUB("xgroup|createconsumer", xgroup_createconsumer, 5, CMD_WRITE | CMD_DENYOOM),
    XG_SUB("xgroup|delconsumer", xgroup_delconsumer, 5, CMD_WRITE),
    SUBCOMMAND_HELP("xgroup|help", xgroup_help, "stream"),
    {0},
};

#define XG_COMMAND(name_, proc_, arity_, flags_)                                                  \
    {.name = (name_), .proc = (proc_), .arity = (arity_), .flags = (flags_), .first_key = 1,      \
     .last_key = 1, .key_step = 1, .group = "stream"}

const struct command xgroup_commands[] = {
    {.name = "xgroup", .arity = -2, .group = "stream", .subcommands = xgroup_subcommands},
    {.name = "xreadgroup", .proc = cmd_xreadgroup, .arity = -7,
     .flags = CMD_WRITE | CMD_BLOCKING | CMD_MOVABLE_KEYS,
     .first_key = 0, .last_key = 0, .key_step = 0, .group = "stream"},
    XG_COMMAND("xack", cmd_xack, -4, CMD_WRITE | CMD_FAST),
    XG_COMMAND("xpending", cmd_xpending, -3, CMD_READONLY),
    XG_COMMAND("xclaim", cmd_xclaim, -6, CMD_WRITE | CMD_FAST),
    XG_COMMAND("xautoclaim", cmd_xautoclaim, -6, CMD_WRITE | CMD_FAST),
    {0},
};
