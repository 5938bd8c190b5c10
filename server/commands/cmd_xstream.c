/*
 * cmd_xstream.c - the stream commands: XADD, XTRIM, XDEL, XLEN, XRANGE,
 * XREVRANGE, XREAD (blocking too), XSETID and XINFO STREAM.
 *
 * Owns: xstream_commands[]. A stream (data/xstream.h) belongs to the
 * keyspace once a key holds it. Knows nothing of sockets: handlers read
 * argument slices and write replies into c->out.
 *
 * Rules kept from Redis 7.0 (t_stream.c): IDs parse as Redis's
 * streamGenericParseIDOrReply (strict where Redis is strict: no "-" or "+"
 * in XADD, XDEL, XREAD, MINID, XSETID); options parse in its order with its
 * error texts; a stream is never deleted for being empty; "*" and "ms-*"
 * take the next ID after the last generated one.
 *
 * Replication and the log: XADD and XTRIM go out as what they did
 * (propagate_effects), since "*" and "~" would not replay the same: XADD
 * with the ID it generated, with "MAXLEN = <length after>" when it trimmed
 * anything; XTRIM as "MAXLEN = <length after>". XREAD writes nothing, so a
 * served read propagates nothing.
 *
 * The consumer groups (XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM,
 * XAUTOCLAIM, XINFO GROUPS and CONSUMERS) are cmd_xgroup.c's; XINFO STREAM
 * FULL lists them through it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "blocking.h"
#include "client.h"
#include "cmd_xgroup.h"
#include "cmd_xstream.h"
#include "keyspace.h"
#include "mem.h"
#include "notify.h"
#include "propagate.h"
#include "resp_num.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"
#include "xstream.h"
#include "xstream_args.h"

/* Redis's default LIMIT of "~": 100 nodes' worth, or 10000 when unset. */
#define APPROX_LIMIT_NODES 100
#define APPROX_LIMIT_DEFAULT 10000
#define APPROX_LIMIT_MAX 1000000

/* XADD's argument arrays live on the stack up to this many words (the
 * propagated form's six before the fields, then 32 fields and values): the
 * common XADD allocates nothing for them. */
#define XADD_STACK_WORDS 38

/* ---- IDs ---------------------------------------------------------------- */

/* ---- lookups and replies ------------------------------------------------ */

static void stream_limits(struct xs_limits *lim)
{
    lim->node_bytes = (uint64_t)server.cfg.stream_node_max_bytes;
    lim->node_entries = (uint64_t)server.cfg.stream_node_max_entries;
}

/* Lists the entries with IDs in [start, end], reverse from end under rev,
 * at most count of them (0: all). s may be NULL (none). Returns how many. */
static size_t reply_range(struct client *c, const struct xstream *s, const struct xs_id *start,
                          const struct xs_id *end, size_t count, int rev)
{
    size_t lo = 0, hi = 0;
    if (s && xs_id_cmp(start, end) <= 0) {
        struct xs_id after = *end;
        lo = xs_count_below(s, start);
        hi = xs_id_incr(&after) ? xs_len(s) : xs_count_below(s, &after);
    }
    size_t n = hi > lo ? hi - lo : 0;
    if (count && n > count)
        n = count;
    resp_add_array_len(&c->out, n);
    if (!n)
        return 0;
    struct xs_it it;
    struct xs_entry e;
    xs_seek(s, rev ? hi - 1 : lo, &it);
    for (size_t i = 0; i < n; i++) {
        xs_entry_of(s, &it, &e);
        xentry_reply(c, &e);
        if (rev)
            xs_prev(s, &it);
        else
            xs_next(s, &it);
    }
    return n;
}

/* ---- XADD and XTRIM ----------------------------------------------------- */

struct trim_args {
    struct xs_trim t;
    int strategy;   /* 0: none; else MAXLEN or MINID given */
    int nomkstream; /* XADD only */
    int id_given, seq_given;
    struct xs_id id;
};

/* Redis's streamParseAddOrTrimArgsOrReply: the options from argv[2] on.
 * For XADD returns the ID's position; for XTRIM the end; -1 after an error. */
static int trim_args_or_reply(struct client *c, struct trim_args *a, int xadd)
{
    int i = 2, limit_given = 0;
    long long ll, limit = 0;
    memset(a, 0, sizeof(*a));
    for (; i < c->argc; i++) {
        int more = c->argc - 1 - i;
        const struct resp_slice *opt = &c->argv[i];
        if (xadd && opt->len == 1 && opt->ptr[0] == '*') {
            break;
        } else if ((arg_is(opt, "maxlen") || arg_is(opt, "minid")) && more) {
            if (a->strategy) {
                resp_add_error(&c->out, "ERR syntax error, MAXLEN and MINID options at the same "
                                        "time are not compatible");
                return -1;
            }
            a->t.minid = arg_is(opt, "minid");
            a->t.approx = 0;
            const struct resp_slice *next = &c->argv[i + 1];
            if (more >= 2 && next->len == 1 && (next->ptr[0] == '~' || next->ptr[0] == '=')) {
                a->t.approx = next->ptr[0] == '~';
                i++;
            }
            if (a->t.minid) {
                if (xid_or_reply(c, &c->argv[i + 1], 0, 1, &a->t.min, NULL) < 0)
                    return -1;
            } else {
                if (arg_ll_or_reply(c, &c->argv[i + 1], &ll) < 0)
                    return -1;
                if (ll < 0) {
                    resp_add_error(&c->out, "ERR The MAXLEN argument must be >= 0.");
                    return -1;
                }
                a->t.maxlen = (uint64_t)ll;
            }
            i++;
            a->strategy = 1;
        } else if (arg_is(opt, "limit") && more) {
            if (arg_ll_or_reply(c, &c->argv[i + 1], &limit) < 0)
                return -1;
            if (limit < 0) {
                resp_add_error(&c->out, "ERR The LIMIT argument must be >= 0.");
                return -1;
            }
            limit_given = 1;
            i++;
        } else if (xadd && arg_is(opt, "nomkstream")) {
            a->nomkstream = 1;
        } else if (xadd) {
            if (xid_or_reply(c, opt, 0, 1, &a->id, &a->seq_given) < 0)
                return -1;
            a->id_given = 1;
            break;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return -1;
        }
    }
    if (limit && !a->strategy) {
        resp_add_error(&c->out,
                       "ERR syntax error, LIMIT cannot be used without specifying a trimming "
                       "strategy");
        return -1;
    }
    if (!xadd && !a->strategy) {
        resp_add_error(&c->out, "ERR syntax error, XTRIM must be called with a trimming strategy");
        return -1;
    }
    /* What the log and a primary send is exact (see the top), so no LIMIT
     * needs lifting for them as Redis's mustObeyClient does. */
    if (limit_given) {
        if (!a->t.approx) {
            resp_add_error(&c->out,
                           "ERR syntax error, LIMIT cannot be used without the special ~ option");
            return -1;
        }
        a->t.limit = (uint64_t)limit;
    } else if (a->t.approx) {
        long long n = APPROX_LIMIT_NODES * server.cfg.stream_node_max_entries;
        a->t.limit = n <= 0 || n > APPROX_LIMIT_MAX ? APPROX_LIMIT_DEFAULT : (uint64_t)n;
    }
    return i;
}

/* Sends "cmd key MAXLEN = <length> [words...]" as what the command did. */
static void propagate_trimmed(struct client *c, const char *cmd, const struct xstream *s,
                              int nwords, const struct resp_slice *words)
{
    char len[24];
    int argc = 5 + nwords;
    struct resp_slice *argv = xmalloc(sizeof(*argv) * (size_t)argc);
    argv[0] = (struct resp_slice){cmd, strlen(cmd)};
    argv[1] = c->argv[1];
    argv[2] = (struct resp_slice){"MAXLEN", 6};
    argv[3] = (struct resp_slice){"=", 1};
    argv[4] = (struct resp_slice){len, (size_t)snprintf(len, sizeof(len), "%zu", xs_len(s))};
    for (int i = 0; i < nwords; i++)
        argv[5 + i] = words[i];
    propagate_effects(c->db_index, argc, argv);
    xfree(argv);
}

/* XADD key [MAXLEN = len] id field value ...: the words of an XADD that
 * added the entry id, and trimmed s when trimmed, from argv[field_pos] on. */
static void propagate_xadd(struct client *c, const struct xstream *s, int trimmed,
                           struct resp_slice id, int field_pos, int nargs)
{
    /* Filled from its end, so both forms share the fields' tail. */
    struct resp_slice stack[XADD_STACK_WORDS];
    size_t n = (size_t)nargs + 6;
    struct resp_slice *argv = n <= XADD_STACK_WORDS ? stack : xmalloc(sizeof(*argv) * n);
    char len[24];
    memcpy(argv + 6, c->argv + field_pos, sizeof(*argv) * (size_t)nargs);
    argv[5] = id;
    size_t first = 3;
    if (trimmed) {
        argv[2] = (struct resp_slice){"MAXLEN", 6};
        argv[3] = (struct resp_slice){"=", 1};
        argv[4] = (struct resp_slice){len, resp_format_u64(len, xs_len(s))};
        first = 0;
    }
    argv[first] = (struct resp_slice){"XADD", 4};
    argv[first + 1] = c->argv[1];
    propagate_effects(c->db_index, (int)(n - first), argv + first);
    if (argv != stack)
        xfree(argv);
}

/* Redis's streamAppendItem's choice of ID: *id as given, completed
 * ("ms-*") or generated ("*"). Returns 0, or -1 when it would not be above
 * the last ID. */
static int next_id(const struct xstream *s, const struct trim_args *a, struct xs_id *id)
{
    const struct xs_id *last = &s->last_id;
    if (!a->id_given) {
        uint64_t ms = (uint64_t)(server.cmd_start_us / 1000);
        *id = ms > last->ms ? (struct xs_id){ms, 0} : *last;
        if (ms <= last->ms)
            return xs_id_incr(id) ? -1 : 0;
        return 0;
    }
    *id = a->id;
    if (!a->seq_given) {
        if (id->ms == last->ms) {
            if (last->seq == UINT64_MAX)
                return -1;
            id->seq = last->seq + 1;
        } else if (id->ms < last->ms) {
            return -1;
        }
        return 0;
    }
    return xs_id_cmp(id, last) > 0 ? 0 : -1;
}

static void cmd_xadd(struct client *c)
{
    struct trim_args a;
    int idpos = trim_args_or_reply(c, &a, 1);
    if (idpos < 0)
        return;
    int field_pos = idpos + 1, nargs = c->argc - field_pos;
    if (nargs < 2 || nargs % 2) {
        reply_wrong_arity(c);
        return;
    }
    if (a.id_given && a.seq_given && a.id.ms == 0 && a.id.seq == 0) {
        resp_add_error(&c->out, "ERR The ID specified in XADD must be greater than 0-0");
        return;
    }
    struct ks_entry *e;
    struct xstream *s;
    if (xstream_lookup_or_reply(c, &c->argv[1], 1, &e, &s) < 0)
        return;
    if (!s && a.nomkstream) {
        resp_add_null(&c->out);
        return;
    }
    /* A new stream is empty: every ID but 0-0 (refused above) goes in. */
    struct xs_id id;
    if (s && s->last_id.ms == UINT64_MAX && s->last_id.seq == UINT64_MAX) {
        resp_add_error(&c->out,
                       "ERR The stream has exhausted the last possible ID, unable to add more items");
        return;
    }
    if (!s)
        s = xs_new();
    if (next_id(s, &a, &id) < 0) {
        resp_add_error(&c->out, "ERR The ID specified in XADD is equal or smaller than the target "
                                "stream top item");
        if (!e)
            xs_free(s);
        return;
    }
    if (!e) {
        ks_add_ptr(c->db, c->argv[1].ptr, c->argv[1].len, KS_STREAM, s);
        notify_key(c, NOTIFY_NEW, "new", &c->argv[1]);
    }
    struct xs_limits lim;
    stream_limits(&lim);
    /* resp_slice and xs_str are both a pointer and a length. */
    size_t npairs = (size_t)nargs / 2;
    struct xs_str stack_pairs[XADD_STACK_WORDS];
    struct xs_str *pairs =
        nargs <= XADD_STACK_WORDS ? stack_pairs : xmalloc(sizeof(*pairs) * (size_t)nargs);
    for (int i = 0; i < nargs; i++)
        pairs[i] = (struct xs_str){c->argv[field_pos + i].ptr, c->argv[field_pos + i].len};
    xs_append(s, &id, pairs, npairs, &lim);
    if (pairs != stack_pairs)
        xfree(pairs);
    /* Formatted once, for the reply and the propagated form. */
    char idbuf[XID_STR_LEN];
    size_t idlen = xid_format(&id, idbuf);
    resp_add_bulk(&c->out, idbuf, idlen);
    notify_key(c, NOTIFY_STREAM, "xadd", &c->argv[1]);
    server.dirty++;
    size_t trimmed = a.strategy ? xs_trim(s, &a.t) : 0;
    if (trimmed)
        notify_key(c, NOTIFY_STREAM, "xtrim", &c->argv[1]);
    /* The entry goes out with its ID, and trimmed as MAXLEN = its new
     * length, so it replays the same. With neither the log nor a kept
     * stream (propagate_wanted) nobody reads it: the command then goes out
     * as called, which feeds nothing, instead of being built. */
    if (propagate_wanted())
        propagate_xadd(c, s, trimmed != 0, (struct resp_slice){idbuf, idlen}, field_pos, nargs);
    block_signal_key(c->db, c->argv[1].ptr, c->argv[1].len);
}

static void cmd_xtrim(struct client *c)
{
    struct ks_entry *e;
    struct xstream *s;
    struct trim_args a;
    if (xstream_lookup_or_reply(c, &c->argv[1], 1, &e, &s) < 0)
        return;
    if (!s) {
        resp_add_int(&c->out, 0);
        return;
    }
    if (trim_args_or_reply(c, &a, 0) < 0)
        return;
    size_t n = xs_trim(s, &a.t);
    if (n) {
        notify_key(c, NOTIFY_STREAM, "xtrim", &c->argv[1]);
        server.dirty += n;
        propagate_trimmed(c, "XTRIM", s, 0, NULL);
    }
    resp_add_int(&c->out, (long long)n);
}

/* ---- XDEL, XLEN, XSETID ------------------------------------------------- */

static void cmd_xdel(struct client *c)
{
    int n = c->argc - 2;
    struct xs_id *ids = xmalloc(sizeof(*ids) * (size_t)n);
    struct ks_entry *e;
    struct xstream *s;
    for (int i = 0; i < n; i++)
        if (xid_or_reply(c, &c->argv[2 + i], 0, 1, &ids[i], NULL) < 0)
            goto out;
    if (xstream_lookup_or_reply(c, &c->argv[1], 1, &e, &s) < 0)
        goto out;
    long long deleted = 0;
    for (int i = 0; s && i < n; i++)
        deleted += xs_delete(s, &ids[i]);
    if (deleted) {
        notify_key(c, NOTIFY_STREAM, "xdel", &c->argv[1]);
        server.dirty += (unsigned long long)deleted;
    }
    resp_add_int(&c->out, deleted);
out:
    xfree(ids);
}

static void cmd_xlen(struct client *c)
{
    struct ks_entry *e;
    struct xstream *s;
    if (xstream_lookup_or_reply(c, &c->argv[1], 0, &e, &s) < 0)
        return;
    resp_add_int(&c->out, s ? (long long)xs_len(s) : 0);
}

static void cmd_xsetid(struct client *c)
{
    struct xs_id id, max_deleted = {0, 0};
    long long added = -1;
    if (xid_or_reply(c, &c->argv[2], 0, 1, &id, NULL) < 0)
        return;
    for (int i = 3; i < c->argc; i++) {
        int more = c->argc - 1 - i;
        if (arg_is(&c->argv[i], "entriesadded") && more) {
            if (arg_ll_or_reply(c, &c->argv[i + 1], &added) < 0)
                return;
            if (added < 0) {
                resp_add_error(&c->out, "ERR entries_added must be positive");
                return;
            }
            i++;
        } else if (arg_is(&c->argv[i], "maxdeletedid") && more) {
            if (xid_or_reply(c, &c->argv[i + 1], 0, 1, &max_deleted, NULL) < 0)
                return;
            if (xs_id_cmp(&id, &max_deleted) < 0) {
                resp_add_error(&c->out, "ERR The ID specified in XSETID is smaller than the "
                                        "provided max_deleted_entry_id");
                return;
            }
            i++;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    struct xstream *s = xstream_existing_or_reply(c, &c->argv[1], 1);
    if (!s)
        return;
    struct xs_entry last;
    if (xs_len(s) && xs_at(s, xs_len(s) - 1, &last) == 0 && xs_id_cmp(&id, &last.id) < 0) {
        resp_add_error(&c->out,
                       "ERR The ID specified in XSETID is smaller than the target stream top item");
        return;
    }
    if (added != -1 && xs_len(s) > (unsigned long long)added) {
        resp_add_error(&c->out, "ERR The entries_added specified in XSETID is smaller than the "
                                "target stream length");
        return;
    }
    s->last_id = id;
    if (added != -1)
        s->entries_added = (uint64_t)added;
    if (max_deleted.ms || max_deleted.seq)
        s->max_deleted = max_deleted;
    notify_key(c, NOTIFY_STREAM, "xsetid", &c->argv[1]);
    server.dirty++;
    reply_ok(c);
}

/* ---- XRANGE, XREVRANGE -------------------------------------------------- */

static void range_generic(struct client *c, int rev)
{
    const struct resp_slice *sa = &c->argv[rev ? 3 : 2], *ea = &c->argv[rev ? 2 : 3];
    struct xs_id start, end;
    int sx, ex;
    long long count = -1;
    if (xbound_or_reply(c, sa, 0, &start, &sx) < 0 ||
        xbound_or_reply(c, ea, UINT64_MAX, &end, &ex) < 0)
        return;
    if (sx && xs_id_incr(&start)) {
        resp_add_error(&c->out, "ERR invalid start ID for the interval");
        return;
    }
    if (ex && xs_id_decr(&end)) {
        resp_add_error(&c->out, "ERR invalid end ID for the interval");
        return;
    }
    for (int j = 4; j < c->argc; j++) {
        if (arg_is(&c->argv[j], "count") && j + 1 < c->argc) {
            if (arg_ll_or_reply(c, &c->argv[j + 1], &count) < 0)
                return;
            if (count < 0)
                count = 0;
            j++;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    struct ks_entry *e;
    struct xstream *s;
    if (xstream_lookup_or_reply(c, &c->argv[1], 0, &e, &s) < 0)
        return;
    if (!s) {
        resp_add_array_len(&c->out, 0);
        return;
    }
    if (count == 0) {
        resp_add_null_array(&c->out);
        return;
    }
    reply_range(c, s, &start, &end, count < 0 ? 0 : (size_t)count, rev);
}

static void cmd_xrange(struct client *c)
{
    range_generic(c, 0);
}

static void cmd_xrevrange(struct client *c)
{
    range_generic(c, 1);
}

/* ---- XREAD -------------------------------------------------------------- */

/* What a blocked XREAD waits for, copied by block_client: the COUNT, then
 * per key its length, the ID it reads after, and its bytes. */
struct read_how {
    size_t count;
    int nkeys;
    char keys[]; /* [size_t klen][struct xs_id][key] per key */
};

/* The entries of s after id, as one [key, entries] element of XREAD's
 * reply (its container written by the caller). */
static void reply_read_key(struct client *c, const struct resp_slice *key,
                           const struct xstream *s, const struct xs_id *after, size_t count)
{
    struct xs_id start = *after, max = {UINT64_MAX, UINT64_MAX};
    xs_id_incr(&start);
    if (c->out.proto == 2)
        resp_add_array_len(&c->out, 2);
    resp_add_bulk(&c->out, key->ptr, key->len);
    reply_range(c, s, &start, &max, count, 0);
}

/* block_serve_fn: a blocked XREAD is served by the first entries after its
 * ID on the key that got them, alone in the reply (Redis 7.0); a key
 * deleted or replaced leaves it waiting, as in Redis. */
static int read_serve(struct client *c, const struct resp_slice *key, const void *how_)
{
    const struct read_how *how = how_;
    const char *p = how->keys;
    for (int i = 0; i < how->nkeys; i++) {
        size_t klen;
        struct xs_id id;
        memcpy(&klen, p, sizeof(klen));
        memcpy(&id, p + sizeof(klen), sizeof(id));
        const char *k = p + sizeof(klen) + sizeof(id);
        p = k + klen;
        if (klen != key->len || memcmp(k, key->ptr, klen) != 0)
            continue;
        struct ks_entry *e = lookup_read(c, key);
        if (!e || e->type != KS_STREAM || !xstream_has_after(ks_ptr(e), &id))
            return -1; /* the next reader may wait for less */
        if (c->out.proto == 2)
            resp_add_array_len(&c->out, 1);
        else
            resp_add_map_len(&c->out, 1);
        reply_read_key(c, key, ks_ptr(e), &id, how->count);
        return 1;
    }
    return 0;
}

static void block_on_streams(struct client *c, const struct resp_slice *keys,
                             const struct xs_id *ids, int nkeys, size_t count, int64_t ms)
{
    size_t len = sizeof(struct read_how);
    for (int i = 0; i < nkeys; i++)
        len += sizeof(size_t) + sizeof(struct xs_id) + keys[i].len;
    struct read_how *how = xmalloc(len);
    how->count = count;
    how->nkeys = nkeys;
    char *p = how->keys;
    for (int i = 0; i < nkeys; i++) {
        memcpy(p, &keys[i].len, sizeof(size_t));
        memcpy(p + sizeof(size_t), &ids[i], sizeof(struct xs_id));
        p += sizeof(size_t) + sizeof(struct xs_id);
        memcpy(p, keys[i].ptr, keys[i].len);
        p += keys[i].len;
    }
    block_client(c, keys, nkeys, ms, read_serve, how, len);
    xfree(how);
}

static void cmd_xread(struct client *c)
{
    struct xread_opts o;
    if (xread_opts_or_reply(c, 0, &o) < 0)
        return;
    long long count = o.count;
    int64_t ms = o.ms;
    int streams = o.streams, nkeys = o.nkeys;
    const struct resp_slice *keys = &c->argv[streams];
    struct xs_id *ids = xmalloc(sizeof(*ids) * (size_t)nkeys);
    struct ks_entry *e;
    struct xstream *s;
    for (int i = 0; i < nkeys; i++) {
        const struct resp_slice *a = &c->argv[streams + nkeys + i];
        if (a->len == 1 && a->ptr[0] == '$') {
            if (xstream_lookup_or_reply(c, &keys[i], 0, &e, &s) < 0)
                goto out;
            ids[i] = s ? s->last_id : (struct xs_id){0, 0};
        } else if (a->len == 1 && a->ptr[0] == '>') {
            resp_add_error(&c->out, "ERR The > ID can be specified only when calling XREADGROUP "
                                    "using the GROUP <group> <consumer> option.");
            goto out;
        } else if (xid_or_reply(c, a, 0, 1, &ids[i], NULL) < 0) {
            goto out;
        }
    }
    /* The reply's length is known once every key is looked at; keys that
     * have nothing are left out, so count first. */
    size_t served = 0;
    for (int i = 0; i < nkeys; i++) {
        if (xstream_lookup_or_reply(c, &keys[i], 0, &e, &s) < 0)
            goto out;
        served += s && xstream_has_after(s, &ids[i]);
    }
    if (served) {
        if (c->out.proto == 2)
            resp_add_array_len(&c->out, served);
        else
            resp_add_map_len(&c->out, served);
        for (int i = 0; i < nkeys; i++) {
            e = lookup_peek(c, &keys[i]);
            if (e && xstream_has_after(ks_ptr(e), &ids[i]))
                reply_read_key(c, &keys[i], ks_ptr(e), &ids[i], (size_t)count);
        }
    } else if (ms < 0 || c->multi) {
        resp_add_null_array(&c->out);
    } else {
        block_on_streams(c, keys, ids, nkeys, (size_t)count, ms);
    }
out:
    xfree(ids);
}

/* ---- XINFO -------------------------------------------------------------- */

/* XINFO STREAM key [FULL [COUNT count]]: FULL lists entries and groups,
 * COUNT of each (default 10, 0: all), as Redis's xinfoReplyWithStreamInfo. */
static void xinfo_stream(struct client *c)
{
    int full = 0;
    long long count = 10;
    if (c->argc > 3) {
        if (!arg_is(&c->argv[3], "full") || (c->argc != 4 && c->argc != 6) ||
            (c->argc == 6 && !arg_is(&c->argv[4], "count"))) {
            reply_subcommand_syntax(c, "XINFO");
            return;
        }
        full = 1;
        if (c->argc == 6) {
            if (arg_ll_or_reply(c, &c->argv[5], &count) < 0)
                return;
            if (count < 0)
                count = 0;
        }
    }
    struct xstream *s = xstream_existing_or_reply(c, &c->argv[2], 0);
    if (!s)
        return;
    size_t nodes = xs_nodes(s);
    resp_add_map_len(&c->out, full ? 9 : 10);
    resp_add_bulk_cstr(&c->out, "length");
    resp_add_int(&c->out, (long long)xs_len(s));
    resp_add_bulk_cstr(&c->out, "radix-tree-keys");
    resp_add_int(&c->out, (long long)nodes);
    /* A radix tree of n 16-byte keys: the root and about one node per key. */
    resp_add_bulk_cstr(&c->out, "radix-tree-nodes");
    resp_add_int(&c->out, (long long)nodes + 1);
    resp_add_bulk_cstr(&c->out, "last-generated-id");
    xid_reply(c, &s->last_id);
    resp_add_bulk_cstr(&c->out, "max-deleted-entry-id");
    xid_reply(c, &s->max_deleted);
    resp_add_bulk_cstr(&c->out, "entries-added");
    resp_add_int(&c->out, (long long)s->entries_added);
    resp_add_bulk_cstr(&c->out, "recorded-first-entry-id");
    xid_reply(c, &s->first_id);
    if (full) {
        struct xs_id lo = {0, 0}, hi = {UINT64_MAX, UINT64_MAX};
        resp_add_bulk_cstr(&c->out, "entries");
        reply_range(c, s, &lo, &hi, (size_t)count, 0);
        resp_add_bulk_cstr(&c->out, "groups");
        xgroup_info_full_groups(c, s, (size_t)count);
        return;
    }
    resp_add_bulk_cstr(&c->out, "groups");
    resp_add_int(&c->out, (long long)s->ngroups);
    struct xs_entry first;
    resp_add_bulk_cstr(&c->out, "first-entry");
    if (xs_at(s, 0, &first) == 0)
        xentry_reply(c, &first);
    else
        resp_add_null(&c->out);
    resp_add_bulk_cstr(&c->out, "last-entry");
    if (xs_len(s) && xs_at(s, xs_len(s) - 1, &first) == 0)
        xentry_reply(c, &first);
    else
        resp_add_null(&c->out);
}

static void xinfo_help(struct client *c)
{
    static const char *const help[] = {
        "CONSUMERS <key> <groupname>",
        "    Show consumers of <groupname>.",
        "GROUPS <key>",
        "    Show the stream consumer groups.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    Show information about the stream.",
    };
    reply_help(c, help, sizeof(help) / sizeof(help[0]));
}

/* ---- the table ---------------------------------------------------------- */

#define XS_COMMAND(name_, proc_, arity_, flags_)                                                  \
    {.name = (name_), .proc = (proc_), .arity = (arity_), .flags = (flags_), .first_key = 1,      \
     .last_key = 1, .key_step = 1, .group = "stream"}

static const struct command xinfo_subcommands[] = {
    {.name = "xinfo|stream", .proc = xinfo_stream, .arity = -3,
     .flags = CMD_READONLY,
     .first_key = 2, .last_key = 2, .key_step = 1, .group = "stream"},
    {.name = "xinfo|groups", .proc = xgroup_info_groups, .arity = 3,
     .flags = CMD_READONLY,
     .first_key = 2, .last_key = 2, .key_step = 1, .group = "stream"},
    {.name = "xinfo|consumers", .proc = xgroup_info_consumers, .arity = 4,
     .flags = CMD_READONLY,
     .first_key = 2, .last_key = 2, .key_step = 1, .group = "stream"},
    SUBCOMMAND_HELP("xinfo|help", xinfo_help, "stream"),
    {0},
};

const struct command xstream_commands[] = {
    XS_COMMAND("xadd", cmd_xadd, -5, CMD_WRITE | CMD_DENYOOM | CMD_FAST),
    XS_COMMAND("xtrim", cmd_xtrim, -4, CMD_WRITE),
    XS_COMMAND("xdel", cmd_xdel, -3, CMD_WRITE | CMD_FAST),
    XS_COMMAND("xlen", cmd_xlen, 2, CMD_READONLY | CMD_FAST),
    XS_COMMAND("xrange", cmd_xrange, -4, CMD_READONLY),
    XS_COMMAND("xrevrange", cmd_xrevrange, -4, CMD_READONLY),
    XS_COMMAND("xsetid", cmd_xsetid, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST),
    {.name = "xread", .proc = cmd_xread, .arity = -4,
     .flags = CMD_READONLY | CMD_BLOCKING | CMD_MOVABLE_KEYS,
     .first_key = 0, .last_key = 0, .key_step = 0, .group = "stream"},
    {.name = "xinfo", .arity = -2,
     .group = "stream", .subcommands = xinfo_subcommands},
    {0},
};
