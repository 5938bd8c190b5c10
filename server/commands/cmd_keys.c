/*
 * cmd_keys.c - the generic key commands: DEL/UNLINK, EXISTS, TYPE, RENAME,
 * COPY, MOVE, TOUCH, RANDOMKEY, DBSIZE and the deadline commands (EXPIRE
 * family, TTL family, PERSIST, EXPIRETIME).
 *
 * Owns: keys_commands[] and nothing else; entries and values belong to the
 * keyspace. Knows nothing of sockets: handlers read argument slices and
 * write replies into c->out.
 *
 * Rules kept from Redis 7.0 (db.c, expire.c): every check that can fail runs
 * before the first change; a key past its deadline is gone for every command
 * (the lookups delete it); server.dirty grows by one per key changed.
 *
 * Entries can move when written (see keyspace.h): after any ks_ call that
 * returns an entry, only the returned pointer is used.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reach.h"
#include "args.h"
#include "blocking.h"
#include "client.h"
#include "clock.h"
#include "cmd_keys.h"
#include "keyspace.h"
#include "krange.h"
#include "lazyfree.h"
#include "live.h"
#include "mem.h"
#include "notify.h"
#include "olist.h"
#include "propagate.h"
#include "resp_num.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "omap.h"
#include "server.h"
#include "watch.h"
#include "xstream.h"
#include "zset.h"


static int same_bytes(const struct resp_slice *a, const struct resp_slice *b)
{
    return a->len == b->len && memcmp(a->ptr, b->ptr, a->len) == 0;
}

/* ks_move, and a client waiting for key in `to` may take it now. */
static void entry_move(struct db *from, struct ks_entry *e, struct db *to, const char *key,
                       size_t klen)
{
    lazyfree_zset_moved(to, ks_move(from, e, to, key, klen));
    block_signal_key(to, key, klen);
}

/* DEL and UNLINK (Redis's delGenericCommand): UNLINK leaves big values to
 * the lazy-free thread, DEL frees them at once unless
 * lazyfree-lazy-user-del. */
static void del_generic(struct client *c, enum ks_free_how how)
{
    long long deleted = 0;
    for (int j = 1; j < c->argc; j++) {
        struct ks_entry *e = lookup_write(c, &c->argv[j]);
        if (e) {
            ks_delete_how(c->db, e, how);
            watch_touch(c->db, c->argv[j].ptr, c->argv[j].len);
            server.dirty++;
            deleted++;
            notify_key(c, NOTIFY_GENERIC, "del", &c->argv[j]);
        }
    }
    resp_add_int(&c->out, deleted);
}

static void cmd_del(struct client *c)
{
    del_generic(c, server.cfg.lazyfree_lazy_user_del ? KS_FREE_LAZY : KS_FREE_SYNC);
}

static void cmd_unlink(struct client *c)
{
    del_generic(c, KS_FREE_LAZY);
}

/* EXISTS and TOUCH: how many of the arguments name a live key; a key named
 * twice counts twice. Only TOUCH counts as an access for eviction. */
static void exists_generic(struct client *c, struct ks_entry *(*lookup)(struct client *,
                                                                        const struct resp_slice *))
{
    long long found = 0;
    for (int j = 1; j < c->argc; j++)
        if (lookup(c, &c->argv[j]))
            found++;
    resp_add_int(&c->out, found);
}

static void cmd_exists(struct client *c)
{
    exists_generic(c, lookup_peek);
}

static void cmd_touch(struct client *c)
{
    exists_generic(c, lookup_touch);
}

static void cmd_type(struct client *c)
{
    struct ks_entry *e = lookup_peek(c, &c->argv[1]);
    resp_add_simple(&c->out, e ? kr_type_name(e->type) : "none");
}

/* RENAME (nx = 0) and RENAMENX (nx = 1). The deadline goes with the value. */
static void rename_generic(struct client *c, int nx)
{
    const struct resp_slice *src = &c->argv[1], *dst = &c->argv[2];
    struct ks_entry *e = lookup_write(c, src);

    if (!e) {
        resp_add_error(&c->out, ERR_NO_SUCH_KEY);
        return;
    }
    if (same_bytes(src, dst)) {
        if (nx)
            resp_add_int(&c->out, 0);
        else
            reply_ok(c);
        return;
    }
    /* Deleting another entry never moves e. */
    struct ks_entry *old = lookup_write(c, dst);
    if (old) {
        if (nx) {
            resp_add_int(&c->out, 0);
            return;
        }
        ks_delete(c->db, old);
    }
    entry_move(c->db, e, c->db, dst->ptr, dst->len);
    server.dirty++;
    /* Redis adds the destination anew even over an old one. */
    notify_key(c, NOTIFY_NEW, "new", dst);
    notify_key(c, NOTIFY_GENERIC, "rename_from", src);
    notify_key(c, NOTIFY_GENERIC, "rename_to", dst);
    if (nx)
        resp_add_int(&c->out, 1);
    else
        reply_ok(c);
}

static void cmd_rename(struct client *c)
{
    rename_generic(c, 0);
}

static void cmd_renamenx(struct client *c)
{
    rename_generic(c, 1);
}

static void cmd_copy(struct client *c)
{
    const struct resp_slice *src = &c->argv[1], *dst = &c->argv[2];
    struct db *to = c->db;
    int replace = 0;

    for (int j = 3; j < c->argc; j++) {
        if (arg_is(&c->argv[j], "REPLACE")) {
            replace = 1;
        } else if (arg_is(&c->argv[j], "DB") && j + 1 < c->argc) {
            if (arg_db_or_reply(c, &c->argv[++j], &to) < 0)
                return;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    /* Cluster mode has database 0 alone. */
    if (server.cfg.cluster_enabled && to != &server.ks->dbs[0]) {
        resp_add_error(&c->out, "ERR Copying to another database is not allowed in cluster mode");
        return;
    }
    if (to == c->db && same_bytes(src, dst)) {
        resp_add_error(&c->out, "ERR source and destination objects are the same");
        return;
    }
    struct ks_entry *e = lookup_read(c, src);
    if (!e) {
        resp_add_int(&c->out, 0);
        return;
    }
    struct ks_entry *old = ks_lookup(to, dst->ptr, dst->len, mstime());
    if (old && !replace) {
        resp_add_int(&c->out, 0);
        return;
    }
    /* Deleting another entry never moves e. */
    if (old)
        ks_delete(to, old);
    /* A string's bytes live in its entry; other values are copied deep. */
    struct ks_entry *copy;
    switch (e->type) {
    case KS_ZSET:
        copy = ks_add_ptr(to, dst->ptr, dst->len, KS_ZSET, zs_clone(ks_ptr(e)));
        break;
    case KS_HASH:
    case KS_SET:
        copy = ks_add_ptr(to, dst->ptr, dst->len, (enum ks_type)e->type, om_clone(ks_ptr(e)));
        break;
    case KS_LIST:
        copy = ks_add_ptr(to, dst->ptr, dst->len, KS_LIST, ol_clone(ks_ptr(e)));
        break;
    case KS_STREAM:
        copy = ks_add_ptr(to, dst->ptr, dst->len, KS_STREAM, xs_clone(ks_ptr(e)));
        break;
    default:
        copy = ks_set_string(to, dst->ptr, dst->len, ks_str(e), ks_slen(e), 0);
        break;
    }
    int64_t when = ks_get_expire(e);
    if (when != -1)
        ks_set_expire(to, copy, when);
    block_signal_key(to, dst->ptr, dst->len);
    /* Only the copy changed, in whichever database it went to. */
    watch_touch(to, dst->ptr, dst->len);
    server.dirty++;
    notify_keyspace_event(NOTIFY_NEW, "new", dst->ptr, dst->len, to->id);
    notify_keyspace_event(NOTIFY_GENERIC, "copy_to", dst->ptr, dst->len, to->id);
    resp_add_int(&c->out, 1);
}

static void cmd_move(struct client *c)
{
    const struct resp_slice *key = &c->argv[1];
    struct db *to;

    if (server.cfg.cluster_enabled) {
        resp_add_error(&c->out, "ERR MOVE is not allowed in cluster mode");
        return;
    }
    if (arg_db_or_reply(c, &c->argv[2], &to) < 0)
        return;
    if (to == c->db) {
        resp_add_error(&c->out, "ERR source and destination objects are the same");
        return;
    }
    struct ks_entry *e = lookup_write(c, key);
    if (!e || ks_lookup(to, key->ptr, key->len, mstime())) {
        resp_add_int(&c->out, 0);
        return;
    }
    entry_move(c->db, e, to, key->ptr, key->len);
    watch_touch(to, key->ptr, key->len);
    server.dirty++;
    notify_keyspace_event(NOTIFY_NEW, "new", key->ptr, key->len, to->id);
    notify_key(c, NOTIFY_GENERIC, "move_from", key);
    notify_keyspace_event(NOTIFY_GENERIC, "move_to", key->ptr, key->len, to->id);
    resp_add_int(&c->out, 1);
}

/* A db index argument of SWAPDB: an int (Redis's getIntFromObjectOrReply,
 * whose error is the given one), range checked only once both are read. */
static int swapdb_index_or_reply(struct client *c, const struct resp_slice *a, const char *err,
                                 long long *id)
{
    if (resp_parse_ll(a->ptr, a->len, id) == 0 && *id >= INT_MIN && *id <= INT_MAX)
        return 0;
    resp_add_error(&c->out, err);
    return -1;
}

/* SWAPDB index1 index2, as Redis's dbSwapDatabases: the two dbs trade
 * contents while clients, WATCHes and blocked waits stay with the index.
 * So watchers of a key live in either db are dirtied first, and afterwards
 * every key waited on in either db is signalled: a waiter whose key now
 * exists is served, an XREADGROUP whose stream went is told so. No
 * keyspace event, as Redis; the command itself is propagated. */
static void cmd_swapdb(struct client *c)
{
    long long id1, id2;
    if (server.cfg.cluster_enabled) {
        resp_add_error(&c->out, "ERR SWAPDB is not allowed in cluster mode");
        return;
    }
    if (swapdb_index_or_reply(c, &c->argv[1], "ERR invalid first DB index", &id1) < 0 ||
        swapdb_index_or_reply(c, &c->argv[2], "ERR invalid second DB index", &id2) < 0)
        return;
    if (id1 < 0 || id1 >= server.ks->count || id2 < 0 || id2 >= server.ks->count) {
        resp_add_error(&c->out, "ERR DB index is out of range");
        return;
    }
    struct db *a = &server.ks->dbs[id1], *b = &server.ks->dbs[id2];
    if (a != b) {
        watch_touch_swap(a, b, mstime());
        ks_swap(a, b);
        lazyfree_zset_dbs_swapped(a->id, b->id);
        block_signal_db(a);
        block_signal_db(b);
    }
    server.dirty++;
    reply_ok(c);
}

/* Due keys RANDOMKEY deletes before it draws among the live keys only: one
 * call after a mass expiry must not delete them all inline (live.h). */
#define RANDOMKEY_DELETES 100

/* Every key is equally likely: draw a rank, not a tree path. A key past its
 * deadline is deleted as a lookup would, and the draw repeats, as Redis's
 * does; after RANDOMKEY_DELETES of those the draw is a live position. */
static void cmd_randomkey(struct client *c)
{
    int64_t now = mstime();
    size_t count;

    for (int deleted = 0; (count = ks_count(c->db)) > 0 && deleted < RANDOMKEY_DELETES;
         deleted++) {
        /* An entry's subtree size is 32 bits, so count fits arc4random's range. */
        struct ks_entry *e = ks_select(c->db, arc4random_uniform((uint32_t)count));
        int64_t when = ks_get_expire(e);
        if (when == -1 || when > now || !reads_hide_due(c)) {
            resp_add_bulk(&c->out, ks_key(e), ks_klen(e));
            return;
        }
        /* A replica removes nothing itself (its primary's DEL will): the
         * draw is among the keys its reads see. */
        if (ks_expiry_paused())
            break;
        /* Lazy expiry, as a lookup does: the hook sends the DEL to the log
         * and the replicas and fires "expired". */
        ks_lookup(c->db, ks_key(e), ks_klen(e), now);
    }
    struct live_view live;
    live_view_for(c, &live, now);
    size_t n = live_count(&live);
    struct ks_entry *e = n ? live_select(&live, arc4random_uniform((uint32_t)n)) : NULL;
    if (e)
        resp_add_bulk(&c->out, ks_key(e), ks_klen(e));
    else
        resp_add_null(&c->out);
}

static void cmd_dbsize(struct client *c)
{
    resp_add_int(&c->out, (long long)ks_count(c->db));
}

#define EXPIRE_NX (1u << 0)
#define EXPIRE_XX (1u << 1)
#define EXPIRE_GT (1u << 2)
#define EXPIRE_LT (1u << 3)

/* Parses EXPIRE's NX|XX|GT|LT from argv[3] on. Returns 0 with *flags set,
 * or -1 (replied). */
static int expire_flags_or_reply(struct client *c, unsigned *flags)
{
    static const struct {
        const char *word;
        unsigned flag;
    } words[] = {{"NX", EXPIRE_NX}, {"XX", EXPIRE_XX}, {"GT", EXPIRE_GT}, {"LT", EXPIRE_LT}};

    *flags = 0;
    for (int j = 3; j < c->argc; j++) {
        size_t i = 0;
        while (i < sizeof(words) / sizeof(words[0]) && !arg_is(&c->argv[j], words[i].word))
            i++;
        if (i == sizeof(words) / sizeof(words[0])) {
            resp_add_errorf(&c->out, "ERR Unsupported option %.*s", (int)c->argv[j].len,
                            c->argv[j].ptr);
            return -1;
        }
        *flags |= words[i].flag;
    }
    if ((*flags & EXPIRE_NX) && (*flags & (EXPIRE_XX | EXPIRE_GT | EXPIRE_LT))) {
        resp_add_error(&c->out, "ERR NX and XX, GT or LT options at the same time are not compatible");
        return -1;
    }
    if ((*flags & EXPIRE_GT) && (*flags & EXPIRE_LT)) {
        resp_add_error(&c->out, "ERR GT and LT options at the same time are not compatible");
        return -1;
    }
    return 0;
}

/* Whether the conditions in flags allow replacing the deadline `current`
 * (-1: none, which GT and LT treat as infinite) by `when`. */
static int expire_allowed(unsigned flags, int64_t current, int64_t when)
{
    if ((flags & EXPIRE_NX) && current != -1)
        return 0;
    if ((flags & EXPIRE_XX) && current == -1)
        return 0;
    if ((flags & EXPIRE_GT) && (current == -1 || when <= current))
        return 0;
    if ((flags & EXPIRE_LT) && current != -1 && when >= current)
        return 0;
    return 1;
}

/* EXPIRE, PEXPIRE and EXPIREAT go on as PEXPIREAT key ms and their flags,
 * as Redis 7.0 rewrites them, so a replay ends at the same time. */
static void propagate_pexpireat(struct client *c, int64_t when)
{
    struct resp_slice *argv = xmalloc(sizeof(*argv) * (size_t)c->argc);
    char ms[RESP_LL_CHARS];
    memcpy(argv, c->argv, sizeof(*argv) * (size_t)c->argc);
    argv[0] = (struct resp_slice){"PEXPIREAT", 9};
    argv[2] = (struct resp_slice){ms, resp_format_ll(ms, when)};
    propagate_effects(c->db_index, c->argc, argv);
    xfree(argv);
}

/* EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT: argv[2] in seconds or ms, relative
 * to base (the command's start, or 0 for the AT forms). A deadline already
 * past the command's start deletes the key: the same instant both times, as
 * Redis's commandTimeSnapshot, so PEXPIRE k 1 never deletes k however long
 * the command ran. Negative times are allowed; only overflow is refused. */
static void expire_generic(struct client *c, int64_t base, int seconds, const char *name)
{
    unsigned flags;
    long long when;

    if (expire_flags_or_reply(c, &flags) < 0 || arg_ll_or_reply(c, &c->argv[2], &when) < 0)
        return;
    if (seconds) {
        if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000)
            goto invalid;
        when *= 1000;
    }
    if (when > LLONG_MAX - base)
        goto invalid;
    when += base;

    struct ks_entry *e = lookup_write(c, &c->argv[1]);
    if (!e || !expire_allowed(flags, ks_get_expire(e), when)) {
        resp_add_int(&c->out, 0);
        return;
    }
    if (when <= server.cmd_start_us / 1000 && !ks_expiry_paused()) {
        ks_expire_entry(c->db, e);
        notify_key(c, NOTIFY_GENERIC, "del", &c->argv[1]);
    } else {
        ks_set_expire(c->db, e, when);
        notify_key(c, NOTIFY_GENERIC, "expire", &c->argv[1]);
        if (seconds || base)
            propagate_pexpireat(c, when);
    }
    server.dirty++;
    resp_add_int(&c->out, 1);
    return;
invalid:
    resp_add_errorf(&c->out, "ERR invalid expire time in '%s' command", name);
}

static void cmd_expire(struct client *c)
{
    expire_generic(c, server.cmd_start_us / 1000, 1, "expire");
}

static void cmd_pexpire(struct client *c)
{
    expire_generic(c, server.cmd_start_us / 1000, 0, "pexpire");
}

static void cmd_expireat(struct client *c)
{
    expire_generic(c, 0, 1, "expireat");
}

static void cmd_pexpireat(struct client *c)
{
    expire_generic(c, 0, 0, "pexpireat");
}

/* TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 for a missing key, -1 without a
 * deadline; seconds are rounded to the nearest, as Redis does. */
static void ttl_generic(struct client *c, int in_ms, int absolute)
{
    struct ks_entry *e = lookup_peek(c, &c->argv[1]);
    if (!e) {
        resp_add_int(&c->out, -2);
        return;
    }
    int64_t when = ks_get_expire(e);
    if (when == -1) {
        resp_add_int(&c->out, -1);
        return;
    }
    int64_t t = absolute ? when : when - server.cmd_start_us / 1000;
    if (t < 0)
        t = 0;
    /* Unsigned, because a deadline near LLONG_MAX must round up without
     * overflowing (Redis gets 9223372036854776 for PEXPIREAT LLONG_MAX). */
    resp_add_int(&c->out, in_ms ? t : (long long)(((uint64_t)t + 500) / 1000));
}

static void cmd_ttl(struct client *c)
{
    ttl_generic(c, 0, 0);
}

static void cmd_pttl(struct client *c)
{
    ttl_generic(c, 1, 0);
}

static void cmd_expiretime(struct client *c)
{
    ttl_generic(c, 0, 1);
}

static void cmd_pexpiretime(struct client *c)
{
    ttl_generic(c, 1, 1);
}

static void cmd_persist(struct client *c)
{
    struct ks_entry *e = lookup_write(c, &c->argv[1]);
    int removed = e && ks_persist(c->db, e);
    if (removed) {
        server.dirty++;
        notify_key(c, NOTIFY_GENERIC, "persist", &c->argv[1]);
    }
    resp_add_int(&c->out, removed);
}

/* Arity, flags and key positions as Redis 7.0's COMMAND INFO shows them
 * (COMMAND DOCS answers Redis's own docs, redis_docs.c). */
const struct command keys_commands[] = {
    {.name = "del", .proc = cmd_del, .arity = -2, .flags = CMD_WRITE | CMD_TOUCHES_OWN_KEYS,
     .first_key = 1, .last_key = -1, .key_step = 1, .group = "generic"},
    {.name = "unlink", .proc = cmd_unlink, .arity = -2,
     .flags = CMD_WRITE | CMD_FAST | CMD_TOUCHES_OWN_KEYS,
     .first_key = 1, .last_key = -1, .key_step = 1, .group = "generic"},
    {.name = "exists", .proc = cmd_exists, .arity = -2, .flags = CMD_READONLY | CMD_FAST,
     .first_key = 1, .last_key = -1, .key_step = 1, .group = "generic"},
    {.name = "type", .proc = cmd_type, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "generic"},
    {.name = "rename", .proc = cmd_rename, .arity = 3, .flags = CMD_WRITE,
     .first_key = 1, .last_key = 2, .key_step = 1, .group = "generic"},
    {.name = "renamenx", .proc = cmd_renamenx, .arity = 3, .flags = CMD_WRITE | CMD_FAST,
     .first_key = 1, .last_key = 2, .key_step = 1, .group = "generic"},
    {.name = "copy", .proc = cmd_copy, .arity = -3,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_TOUCHES_OWN_KEYS,
     .first_key = 1, .last_key = 2, .key_step = 1, .group = "generic"},
    {.name = "move", .proc = cmd_move, .arity = 3, .flags = CMD_WRITE | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "generic"},
    {.name = "swapdb", .proc = cmd_swapdb, .arity = 3, .flags = CMD_WRITE | CMD_FAST,
     .group = "server"},
    {.name = "touch", .proc = cmd_touch, .arity = -2, .flags = CMD_READONLY | CMD_FAST,
     .first_key = 1, .last_key = -1, .key_step = 1, .group = "generic"},
    {.name = "randomkey", .proc = cmd_randomkey, .arity = 1, .flags = CMD_READONLY,
     .group = "generic", .key_reach = reach_all},
    {.name = "dbsize", .proc = cmd_dbsize, .arity = 1, .flags = CMD_READONLY | CMD_FAST,
     .group = "server"},
    {.name = "expire", .proc = cmd_expire, .arity = -3, .flags = CMD_WRITE | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "generic"},
    {.name = "pexpire", .proc = cmd_pexpire, .arity = -3, .flags = CMD_WRITE | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "generic"},
    {.name = "expireat", .proc = cmd_expireat, .arity = -3, .flags = CMD_WRITE | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "generic"},
    {.name = "pexpireat", .proc = cmd_pexpireat, .arity = -3, .flags = CMD_WRITE | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "generic"},
    {.name = "ttl", .proc = cmd_ttl, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "generic"},
    {.name = "pttl", .proc = cmd_pttl, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "generic"},
    {.name = "expiretime", .proc = cmd_expiretime, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "generic"},
    {.name = "pexpiretime", .proc = cmd_pexpiretime, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "generic"},
    {.name = "persist", .proc = cmd_persist, .arity = 2, .flags = CMD_WRITE | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "generic"},
    {0},
};
