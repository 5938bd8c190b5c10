/*
 * cmd_debug.c - DEBUG: DIGEST and DIGEST-VALUE (a fingerprint of the whole
 * dataset or of single values, for checking that a replica, a reloaded
 * snapshot or a replayed log holds what the original held), RELOAD (save
 * the snapshot and load it back), OBJECT (a key's low-level line), SLEEP,
 * SET-ACTIVE-EXPIRE and HELP, and the dispatch to the test tooling's
 * subcommands (debug_tools.c). Who may run DEBUG at all is the dispatcher's
 * business (enable-debug-command, CMD_PROTECTED). Redis's subcommands rbkv
 * has not (crashes, jemalloc, SDS and hash-table internals, LOADAOF, ...)
 * get Redis's answer to an unknown one.
 *
 * Owns no state. The digest is built as Redis 7.0's (debug.c): SHA-1 mixes,
 * where mixing bytes into a digest is digest = SHA1(digest ^ SHA1(bytes)), so
 * order matters, and XOR of SHA1s to combine what has no order (the keys of a
 * database, the members of a set, the fields of a hash). Redis's type codes
 * are used, so a dataset without deadlines gives Redis's digest (scores as
 * "%.17g", as 7.0 prints them; a hash's or set's elements whatever the
 * encoding). A deadline's value is mixed in where Redis mixes only that there is
 * one, so a changed TTL changes the digest: keys with one differ from Redis's.
 * Keys past their deadline are left out, as no command sees them.
 */
#include "cmd_debug.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "bgsave.h"
#include "cmd_object.h"
#include "command.h"
#include "debug_tools.h"
#include "evict.h"
#include "functions.h"
#include "keyaccess.h"
#include "keyspace.h"
#include "log.h"
#include "olist.h"
#include "omap.h"
#include "server.h"
#include "sha1.h"
#include "snapshot.h"
#include "tracking.h"
#include "watch.h"
#include "xstream.h"
#include "zset.h"

/* digest ^= SHA1(p[0..len)): a commutative "add". */
static void digest_xor(unsigned char *digest, const void *p, size_t len)
{
    unsigned char h[SHA1_LEN];
    sha1(p, len, h);
    for (int i = 0; i < SHA1_LEN; i++)
        digest[i] ^= h[i];
}

/* digest = SHA1(digest ^ SHA1(p[0..len))): an ordered "append". */
static void digest_mix(unsigned char *digest, const void *p, size_t len)
{
    digest_xor(digest, p, len);
    sha1(digest, SHA1_LEN, digest);
}

static void digest_mix_u32(unsigned char *digest, uint32_t v)
{
    unsigned char be[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                           (unsigned char)(v >> 8), (unsigned char)v};
    digest_mix(digest, be, sizeof(be));
}

/* XORs into digest the fingerprint of e's type, value and deadline (not its
 * key), as Redis's xorObjectDigest. */
static void digest_value(unsigned char *digest, const struct ks_entry *e)
{
    /* Redis's OBJ_STRING, OBJ_LIST, OBJ_SET, OBJ_ZSET, OBJ_HASH and OBJ_STREAM. */
    static const uint32_t redis_type[KS_TYPE_COUNT] = {
        [KS_STRING] = 0, [KS_LIST] = 1, [KS_SET] = 2, [KS_ZSET] = 3, [KS_HASH] = 4, [KS_STREAM] = 6};
    char buf[64];
    digest_mix_u32(digest, redis_type[e->type]);
    if (e->type == KS_STRING) {
        digest_mix(digest, ks_str((struct ks_entry *)e), ks_slen(e));
    } else if (e->type == KS_ZSET) {
        /* Members in (score, member) order, but XORed as Redis does, so the
         * digest does not depend on how a set is laid out. */
        const struct zset *z = ks_ptr(e);
        for (const struct zs_node *n = zs_first(z); n; n = zs_next(n)) {
            unsigned char el[SHA1_LEN] = {0};
            digest_mix(el, n->member, n->len);
            int len = snprintf(buf, sizeof(buf), "%.17g", n->score);
            digest_mix(el, buf, (size_t)len);
            digest_xor(digest, el, SHA1_LEN);
        }
    } else if (e->type == KS_LIST) {
        /* As Redis: the elements mixed in order, integers as their text. */
        const struct olist *l = ks_ptr(e);
        struct ol_it it;
        const char *v;
        size_t vlen;
        for (ol_seek(l, 0, &it); ol_it_valid(&it); ol_next(&it)) {
            ol_it_get(&it, &v, &vlen);
            digest_mix(digest, v, vlen);
        }
    } else if (e->type == KS_SET || e->type == KS_HASH) {
        /* As Redis: a set XORs in each member's SHA1; a hash mixes field
         * then value into an element's digest and XORs that in. */
        const struct omap *m = ks_ptr(e);
        struct om_it it;
        struct om_elem el;
        for (om_seek(m, 0, &it); om_it_valid(&it); om_next(m, &it)) {
            om_it_get(m, &it, &el);
            if (!el.v) {
                digest_xor(digest, el.f, el.flen);
                continue;
            }
            unsigned char ed[SHA1_LEN] = {0};
            digest_mix(ed, el.f, el.flen);
            digest_mix(ed, el.v, el.vlen);
            digest_xor(digest, ed, SHA1_LEN);
        }
    } else if (e->type == KS_STREAM) {
        /* As Redis: each entry's "ms.seq", then its fields and values, mixed
         * in order. */
        const struct xstream *s = ks_ptr(e);
        struct xs_it it;
        struct xs_entry x;
        struct xs_str str;
        for (xs_seek(s, 0, &it); xs_it_valid(&it); xs_next(s, &it)) {
            xs_entry_of(s, &it, &x);
            int len = snprintf(buf, sizeof(buf), "%llu.%llu", (unsigned long long)x.id.ms,
                               (unsigned long long)x.id.seq);
            digest_mix(digest, buf, (size_t)len);
            for (struct xs_strs w = xs_strs_of(&x); xs_next_str(&w, &str) == 0;)
                digest_mix(digest, str.ptr, str.len);
        }
    }
    int64_t when = ks_get_expire(e);
    if (when != -1) {
        digest_xor(digest, "!!expire!!", 10);
        int len = snprintf(buf, sizeof(buf), "%lld", (long long)when);
        digest_mix(digest, buf, (size_t)len);
    }
}

static void reply_digest(struct client *c, const unsigned char *digest)
{
    static const char hex[] = "0123456789abcdef";
    char text[2 * SHA1_LEN + 1];
    for (int i = 0; i < SHA1_LEN; i++) {
        text[2 * i] = hex[digest[i] >> 4];
        text[2 * i + 1] = hex[digest[i] & 15];
    }
    text[2 * SHA1_LEN] = '\0';
    resp_add_simple(&c->out, text);
}

/* All zeros for an empty dataset, as Redis: a database with no keys adds
 * nothing, not even its number. O(N) in keys plus members: it blocks the
 * loop, as Redis's does. */
static void debug_digest(struct client *c)
{
    unsigned char final[SHA1_LEN] = {0};
    int64_t now_ms = server.cmd_start_us / 1000;
    int hide_due = reads_hide_due(c);
    for (int i = 0; i < server.ks->count; i++) {
        struct db *db = &server.ks->dbs[i];
        int seen = 0;
        for (struct ks_entry *e = ks_first(db); e; e = ks_next(e)) {
            int64_t when = ks_get_expire(e);
            if (hide_due && when != -1 && when <= now_ms)
                continue;
            if (!seen) {
                /* The database's number, so the same keys in another
                 * database give another digest. */
                digest_mix_u32(final, (uint32_t)db->id);
                seen = 1;
            }
            unsigned char d[SHA1_LEN] = {0};
            digest_mix(d, ks_key(e), ks_klen(e));
            digest_value(d, e);
            digest_xor(final, d, SHA1_LEN);
        }
    }
    reply_digest(c, final);
}

/* An array of one digest per key, zeros for a missing key. */
static void debug_digest_value(struct client *c)
{
    resp_add_array_len(&c->out, (size_t)(c->argc - 2));
    for (int i = 2; i < c->argc; i++) {
        unsigned char d[SHA1_LEN] = {0};
        struct ks_entry *e = lookup_read(c, &c->argv[i]);
        if (e)
            digest_value(d, e);
        reply_digest(c, d);
    }
}

/* Redis reads the seconds with strtod and no check, so "abc" sleeps 0 s;
 * the text is copied because slices are not NUL-terminated. The loop
 * blocks: that is the point (tests of timeouts and of slow replies). */
static void debug_sleep(struct client *c)
{
    const struct resp_slice *a = &c->argv[2];
    char buf[64];
    size_t n = a->len < sizeof(buf) - 1 ? a->len : sizeof(buf) - 1;
    memcpy(buf, a->ptr, n);
    buf[n] = '\0';
    double secs = strtod(buf, NULL);
    if (secs > 0) {
        if (secs > 1e9) /* a double too big for time_t's conversion */
            secs = 1e9;
        struct timespec ts = {.tv_sec = (time_t)secs};
        ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
        }
    }
    reply_ok(c);
}

/* NOFLUSH: the loaded keys join the live ones. A key in both is replaced
 * under MERGE; without it (where Redis kills the server) nothing is moved
 * and the reply names the key. Returns 0, or -1 after the error reply. */
static int reload_merge(struct client *c, struct keyspace *loaded, int merge)
{
    for (int i = 0; i < loaded->count && !merge; i++) {
        struct db *live = &server.ks->dbs[i];
        for (struct ks_entry *e = ks_first(&loaded->dbs[i]); e; e = ks_next(e)) {
            if (ks_find(live, ks_key(e), ks_klen(e))) {
                resp_add_errorf(&c->out,
                                "ERR DEBUG RELOAD NOFLUSH: key '%.*s' in db %d is also in the "
                                "file; add MERGE to replace it",
                                (int)(ks_klen(e) < 128 ? ks_klen(e) : 128), ks_key(e), i);
                return -1;
            }
        }
    }
    for (int i = 0; i < loaded->count; i++) {
        struct db *from = &loaded->dbs[i], *live = &server.ks->dbs[i];
        struct ks_entry *e;
        while ((e = ks_first(from)) != NULL) {
            struct ks_entry *old = ks_find(live, ks_key(e), ks_klen(e));
            if (old)
                ks_delete(live, old);
            /* e's own key: ks_move reads it before it frees e. */
            ks_move(from, e, live, ks_key(e), ks_klen(e));
        }
        watch_touch_db(live);
    }
    return 0;
}

/* DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: saves the snapshot (unless
 * NOSAVE) and loads it back. The file is loaded into a keyspace of its
 * own first, so a file that does not load leaves the data as it was
 * (Redis has flushed it by then); then it replaces the data, or with
 * NOFLUSH joins it. */
static void debug_reload(struct client *c)
{
    int merge = 0, noflush = 0, nosave = 0;
    for (int j = 2; j < c->argc; j++) {
        if (arg_is(&c->argv[j], "MERGE")) {
            merge = 1;
        } else if (arg_is(&c->argv[j], "NOFLUSH")) {
            noflush = 1;
        } else if (arg_is(&c->argv[j], "NOSAVE")) {
            nosave = 1;
        } else {
            resp_add_error(&c->out,
                           "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
            return;
        }
    }
    if (!nosave && persist_save() < 0) {
        resp_add_error(&c->out, "ERR"); /* Redis's shared.err */
        return;
    }
    struct snap_limits lim;
    char err[512];
    int absent = 0;
    struct keyspace *loaded = ks_new(server.ks->count);
    persist_snap_limits(&lim);
    long long n = snap_load(loaded, server.cfg.dbfilename, &lim, &absent, err, sizeof(err));
    if (n < 0 || absent) {
        log_warning("DEBUG RELOAD: %s", absent ? "no snapshot file" : err);
        resp_add_error(&c->out, "ERR Error trying to load the RDB dump, check server logs.");
        ks_free(loaded);
        return;
    }
    if (noflush) {
        if (reload_merge(c, loaded, merge) < 0) {
            ks_free(loaded);
            return;
        }
    } else {
        for (int i = 0; i < loaded->count; i++) {
            ks_swap(&server.ks->dbs[i], &loaded->dbs[i]);
            watch_touch_db(&server.ks->dbs[i]);
        }
        /* As Redis's emptyData: cached copies are all stale. */
        tracking_flush();
    }
    ks_free(loaded); /* what was replaced, or the loaded keyspace emptied by the merge */
    fn_install_loaded();
    log_warning("DB reloaded by DEBUG RELOAD");
    reply_ok(c);
}

/* DEBUG OBJECT key: Redis's line. refcount is 1: rbkv shares no values;
 * lru is the entry's 24 access bits as Redis prints its object's;
 * serializedlength is what the value takes in rbkv's snapshot. A list adds
 * Redis's quicklist fields, read from its chunks: ql_nodes the chunks,
 * ql_avg_node the elements per chunk, ql_listpack_max the configured
 * list-max-listpack-size, ql_compressed 0 (chunks are never compressed),
 * ql_uncompressed_size the bytes of the encoded elements. */
static void debug_object(struct client *c)
{
    const struct resp_slice *key = &c->argv[2];
    struct ks_entry *e = ks_lookup(c->db, key->ptr, key->len, server.cmd_start_us / 1000);
    if (!e) {
        resp_add_error(&c->out, ERR_NO_SUCH_KEY);
        return;
    }
    char line[384], extra[160] = "";
    if (e->type == KS_LIST) {
        const struct olist *l = ks_ptr(e);
        snprintf(extra, sizeof(extra),
                 " ql_nodes:%zu ql_avg_node:%.2f ql_listpack_max:%lld ql_compressed:0"
                 " ql_uncompressed_size:%zu",
                 ol_chunks(l), (double)ol_len(l) / (double)ol_chunks(l),
                 server.cfg.list_max_listpack_size, ol_bytes(l));
    }
    snprintf(line, sizeof(line),
             "Value at:%p refcount:1 encoding:%s serializedlength:%zu lru:%u "
             "lru_seconds_idle:%llu%s",
             (void *)e, object_encoding_name(e), snap_value_len(e), (unsigned)e->access,
             (unsigned long long)(ka_idle_ms(e, evict_clock()) / 1000), extra);
    resp_add_simple(&c->out, line);
}

/* DEBUG SET-ACTIVE-EXPIRE 0|1: Redis's switch for active expiry, so tests
 * can keep keys past their deadline in the db (reads skip them, lookups
 * still delete them). Any integer other than 0 switches it on; text that is
 * not an integer is an error, where Redis's atoi would read it as 0. */
static void debug_set_active_expire(struct client *c)
{
    long long on;
    if (arg_ll_or_reply(c, &c->argv[2], &on) < 0)
        return;
    server.active_expire_off = on == 0;
    reply_ok(c);
}

static void debug_help(struct client *c)
{
    static const char *const help[] = {
        "CHANGE-REPL-ID",
        "    Change the replication IDs of the instance.",
        "    Dangerous: should be used only for testing the replication subsystem.",
        "DIGEST",
        "    Output a hex signature representing the current DB content.",
        "DIGEST-VALUE <key> [<key> ...]",
        "    Output a hex signature of the values of all the specified keys.",
        "JMAP",
        "    Accepted and ignored (there is no Java heap to dump).",
        "LISTPACK <key>",
        "    Show low level info about the listpack encoding of <key>.",
        "OBJECT <key>",
        "    Show low level info about `key` and associated value.",
        "POPULATE <count> [<prefix>] [<size>]",
        "    Create <count> string keys named key:<num>. If <prefix> is specified then",
        "    it is used instead of the 'key' prefix. These are not propagated to",
        "    replicas. Cluster slots are not respected so keys not belonging to the",
        "    current node can be created in cluster mode.",
        "PROTOCOL <type>",
        "    Reply with a test value of the specified type. <type> can be: string,",
        "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
        "    true, false.",
        "RELOAD [option ...]",
        "    Save the snapshot on disk and reload it back to memory. Valid <option> values:",
        "    * MERGE: conflicting keys will be loaded from the snapshot.",
        "    * NOFLUSH: the existing database will not be removed before load, and",
        "      conflicting keys refuse the load (unless MERGE).",
        "    * NOSAVE: the database will be loaded from an existing snapshot file.",
        "SET-ACTIVE-EXPIRE <0|1>",
        "    Setting it to 0 disables expiring keys in background when they are not",
        "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
        "    default.",
        "QUICKLIST-PACKED-THRESHOLD <size>",
        "    Checked as Redis checks it (1 to just under 4gb, 0 for the default), then",
        "    ignored: a list element too big for a chunk always gets a chunk alone.",
        "SLEEP <seconds>",
        "    Stop the server for <seconds>. Decimals allowed.",
        "STRINGMATCH-TEST",
        "    Run a fuzz tester against the glob-style pattern matcher.",
    };
    reply_help(c, help, sizeof(help) / sizeof(help[0]));
}

static void cmd_debug(struct client *c)
{
    const struct resp_slice *sub = &c->argv[1];
    if (arg_is(sub, "HELP") && c->argc == 2)
        debug_help(c);
    else if (arg_is(sub, "DIGEST") && c->argc == 2)
        debug_digest(c);
    else if (arg_is(sub, "DIGEST-VALUE"))
        debug_digest_value(c);
    else if (arg_is(sub, "SLEEP") && c->argc == 3)
        debug_sleep(c);
    else if (arg_is(sub, "RELOAD"))
        debug_reload(c);
    else if (arg_is(sub, "OBJECT") && c->argc == 3)
        debug_object(c);
    else if (arg_is(sub, "SET-ACTIVE-EXPIRE") && c->argc == 3)
        debug_set_active_expire(c);
    else if (arg_is(sub, "POPULATE") && c->argc >= 3 && c->argc <= 5)
        debug_populate(c);
    else if (arg_is(sub, "PROTOCOL") && c->argc == 3)
        debug_protocol(c);
    else if (arg_is(sub, "CHANGE-REPL-ID") && c->argc == 2)
        debug_change_repl_id(c);
    else if (arg_is(sub, "STRINGMATCH-TEST") && c->argc == 2)
        debug_stringmatch_test(c);
    else if (arg_is(sub, "QUICKLIST-PACKED-THRESHOLD") && c->argc == 3)
        debug_quicklist_packed_threshold(c);
    else if (arg_is(sub, "LISTPACK") && c->argc == 3)
        debug_listpack(c);
    else if (arg_is(sub, "JMAP") && c->argc == 2)
        reply_ok(c); /* as the issue asks; Redis 7.0 has no JMAP (docs/commands.md) */
    else
        reply_subcommand_syntax(c, "DEBUG");
}

const struct command debug_commands[] = {
    {.name = "debug", .proc = cmd_debug, .arity = -2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_PROTECTED,
     .group = "server"},
    {0},
};
