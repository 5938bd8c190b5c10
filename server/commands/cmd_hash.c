/*
 * cmd_hash.c - the hash commands of Redis 7.0: HSET, HSETNX, HMSET, HGET,
 * HMGET, HDEL, HEXISTS, HLEN, HSTRLEN, HGETALL, HKEYS, HVALS, HINCRBY,
 * HINCRBYFLOAT, HRANDFIELD and HSCAN.
 *
 * Owns: hash_commands[]. A hash's value is an ordered map with values
 * (omap.h), owned by the keyspace once it holds a key; coll.h has the
 * lookups, the key's creation and removal, and HSCAN's walk, which the set
 * commands share. Knows nothing of sockets: handlers read argument slices
 * and write replies into c->out.
 *
 * Rules kept from Redis 7.0 (t_hash.c): arguments are parsed and every
 * error replied before the first change, in Redis's order and with its
 * texts; a key is created only by a command that then adds a field, so no
 * error leaves an empty hash behind; a hash left empty is deleted with its
 * key ("hdel", then "del"); every field set counts one change in
 * server.dirty, as Redis counts them, so the dispatcher propagates the
 * command. HGETALL is a map in RESP3 and HRANDFIELD ... WITHVALUES gives
 * [field, value] pairs. Unlike Redis, fields come back in byte order
 * (HGETALL, HKEYS, HVALS, HSCAN, and HRANDFIELD with a count of at least the
 * hash's size), since the map keeps them sorted.
 *
 * HINCRBYFLOAT propagates as it was called, not rewritten to HSET as Redis
 * does: long double arithmetic and its formatting (format_long_double) are
 * the same on every rbkv, so a replica or the log's replay computes the
 * same value.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "args.h"
#include "client.h"
#include "cmd_hash.h"
#include "cursor.h"
#include "coll.h"
#include "keyspace.h"
#include "mem.h"
#include "notify.h"
#include "numparse.h"
#include "omap.h"
#include "propagate.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "sample.h"
#include "server.h"

#define ERR_HASH_NOT_INT "ERR hash value is not an integer"
#define ERR_HASH_NOT_FLOAT "ERR hash value is not a float"
#define ERR_INCR_NAN_INF "ERR increment would produce NaN or Infinity"
#define ERR_ARG_NAN_INF "ERR value is NaN or Infinity"
#define ERR_OUT_OF_RANGE "ERR value is out of range"

/* The hash at argv[1] for a write: 0 with *m (NULL when absent), or -1
 * (replied WRONGTYPE). */
static int hash_write_or_reply(struct client *c, struct ks_entry **e, struct omap **m)
{
    return coll_lookup_or_reply(c, &c->argv[1], KS_HASH, 1, e, m);
}

/* The hash at argv[1] for a read: 0 with *m (NULL when absent), or -1
 * (replied WRONGTYPE). */
static int hash_read_or_reply(struct client *c, struct omap **m)
{
    struct ks_entry *e;
    return coll_lookup_or_reply(c, &c->argv[1], KS_HASH, 0, &e, m);
}

/* The value of field argv[2] of the hash at argv[1]: 1 with *v and *vlen,
 * 0 when the key or the field is absent, -1 (replied WRONGTYPE). */
static int field_or_reply(struct client *c, const char **v, size_t *vlen)
{
    struct omap *m;
    if (hash_read_or_reply(c, &m) < 0)
        return -1;
    return m && om_get(m, c->argv[2].ptr, c->argv[2].len, v, vlen);
}

/* ---- HSET, HMSET, HSETNX ------------------------------------------------ */

/* HSET replies the fields added, HMSET OK; both take pairs only, checked
 * here (Redis's arity can say "at least 4", not "even"). */
static void hset_generic(struct client *c, int hmset)
{
    struct ks_entry *e;
    struct omap *m;
    struct om_limits lim;
    long long added = 0;

    if (c->argc % 2) {
        reply_wrong_arity(c);
        return;
    }
    if (hash_write_or_reply(c, &e, &m) < 0)
        return;
    int created = m == NULL;
    if (created)
        m = om_new(1);
    coll_limits(KS_HASH, &lim);
    for (int j = 2; j < c->argc; j += 2)
        added += om_set(&m, c->argv[j].ptr, c->argv[j].len, c->argv[j + 1].ptr,
                        c->argv[j + 1].len, &lim);
    if (created)
        coll_add_key(c, &c->argv[1], KS_HASH, m);
    else
        ks_set_ptr(e, m); /* a packed hash moves as it grows */
    if (hmset)
        reply_ok(c);
    else
        resp_add_int(&c->out, added);
    notify_key(c, NOTIFY_HASH, "hset", &c->argv[1]);
    server.dirty += (unsigned long long)(c->argc - 2) / 2;
}

static void cmd_hset(struct client *c)
{
    hset_generic(c, 0);
}

static void cmd_hmset(struct client *c)
{
    hset_generic(c, 1);
}

static void cmd_hsetnx(struct client *c)
{
    struct ks_entry *e;
    struct omap *m;
    struct om_limits lim;
    const struct resp_slice *f = &c->argv[2], *v = &c->argv[3];

    if (hash_write_or_reply(c, &e, &m) < 0)
        return;
    coll_limits(KS_HASH, &lim);
    int created = m == NULL;
    if (created)
        m = om_new(1);
    if (!om_add(&m, f->ptr, f->len, v->ptr, v->len, &lim)) {
        resp_add_int(&c->out, 0);
        return;
    }
    if (created)
        coll_add_key(c, &c->argv[1], KS_HASH, m);
    else
        ks_set_ptr(e, m);
    resp_add_int(&c->out, 1);
    notify_key(c, NOTIFY_HASH, "hset", &c->argv[1]);
    server.dirty++;
}

/* ---- lookups ------------------------------------------------------------ */

static void cmd_hget(struct client *c)
{
    const char *v;
    size_t vlen;
    int found = field_or_reply(c, &v, &vlen);

    if (found > 0)
        resp_add_bulk(&c->out, v, vlen);
    else if (found == 0)
        resp_add_null(&c->out);
}

static void cmd_hmget(struct client *c)
{
    struct omap *m;
    const char *v;
    size_t vlen;

    if (hash_read_or_reply(c, &m) < 0)
        return;
    resp_add_array_len(&c->out, (size_t)(c->argc - 2));
    for (int j = 2; j < c->argc; j++) {
        if (m && om_get(m, c->argv[j].ptr, c->argv[j].len, &v, &vlen))
            resp_add_bulk(&c->out, v, vlen);
        else
            resp_add_null(&c->out);
    }
}

static void cmd_hexists(struct client *c)
{
    struct omap *m;
    struct om_it it;

    if (hash_read_or_reply(c, &m) < 0)
        return;
    resp_add_int(&c->out, m && om_find(m, c->argv[2].ptr, c->argv[2].len, &it));
}

static void cmd_hlen(struct client *c)
{
    struct omap *m;

    if (hash_read_or_reply(c, &m) < 0)
        return;
    resp_add_int(&c->out, m ? (long long)om_len(m) : 0);
}

static void cmd_hstrlen(struct client *c)
{
    const char *v;
    size_t vlen;
    int found = field_or_reply(c, &v, &vlen);

    if (found >= 0)
        resp_add_int(&c->out, found ? (long long)vlen : 0);
}

/* ---- HDEL --------------------------------------------------------------- */

static void cmd_hdel(struct client *c)
{
    struct ks_entry *e;
    struct omap *m;
    struct om_limits lim;
    long long deleted = 0;

    if (hash_write_or_reply(c, &e, &m) < 0)
        return;
    if (!m) {
        resp_add_int(&c->out, 0);
        return;
    }
    coll_limits(KS_HASH, &lim);
    for (int j = 2; j < c->argc && om_len(m); j++)
        deleted += om_del(&m, c->argv[j].ptr, c->argv[j].len, &lim);
    ks_set_ptr(e, m);
    resp_add_int(&c->out, deleted);
    if (deleted) {
        server.dirty += (unsigned long long)deleted;
        /* May delete the key and free m. */
        coll_removed(c, &c->argv[1], e, m, NOTIFY_HASH, "hdel");
    }
}

/* ---- HGETALL, HKEYS, HVALS ---------------------------------------------- */

#define WITH_FIELDS (1u << 0)
#define WITH_VALUES (1u << 1)

static void getall_generic(struct client *c, unsigned what)
{
    struct omap *m;
    int pairs = what == (WITH_FIELDS | WITH_VALUES);

    if (hash_read_or_reply(c, &m) < 0)
        return;
    size_t n = m ? om_len(m) : 0;
    /* A map in RESP3 (flat in RESP2), even for an absent key, as Redis. */
    if (pairs)
        resp_add_map_len(&c->out, n);
    else
        resp_add_array_len(&c->out, n);
    if (!n)
        return;
    struct om_it it;
    struct om_elem el;
    om_seek(m, 0, &it);
    /* A client over its hard output limit is closed after this command:
     * walking on would only hold the loop. */
    for (; om_it_valid(&it) && !c->out.failed; om_next(m, &it)) {
        om_it_get(m, &it, &el);
        if (what & WITH_FIELDS)
            resp_add_bulk(&c->out, el.f, el.flen);
        if (what & WITH_VALUES)
            resp_add_bulk(&c->out, el.v, el.vlen);
    }
}

static void cmd_hgetall(struct client *c)
{
    getall_generic(c, WITH_FIELDS | WITH_VALUES);
}

static void cmd_hkeys(struct client *c)
{
    getall_generic(c, WITH_FIELDS);
}

static void cmd_hvals(struct client *c)
{
    getall_generic(c, WITH_VALUES);
}

/* ---- HINCRBY, HINCRBYFLOAT ---------------------------------------------- */

/* Sets field argv[2] of the hash at argv[1] (entry e and map m, NULL when
 * absent) to v[0..vlen), creating the key when absent, and counts the
 * change. */
static void incr_store(struct client *c, struct ks_entry *e, struct omap *m, const char *v,
                       size_t vlen, const char *event)
{
    struct om_limits lim;
    int created = m == NULL;

    if (created)
        m = om_new(1);
    coll_limits(KS_HASH, &lim);
    om_set(&m, c->argv[2].ptr, c->argv[2].len, v, vlen, &lim);
    if (created)
        coll_add_key(c, &c->argv[1], KS_HASH, m);
    else
        ks_set_ptr(e, m);
    notify_key(c, NOTIFY_HASH, event, &c->argv[1]);
    server.dirty++;
}

static void cmd_hincrby(struct client *c)
{
    struct ks_entry *e;
    struct omap *m;
    long long incr, value = 0;
    const char *v;
    size_t vlen;

    if (arg_ll_or_reply(c, &c->argv[3], &incr) < 0)
        return;
    if (hash_write_or_reply(c, &e, &m) < 0)
        return;
    if (m && om_get(m, c->argv[2].ptr, c->argv[2].len, &v, &vlen) &&
        resp_parse_ll(v, vlen, &value) < 0) {
        resp_add_error(&c->out, ERR_HASH_NOT_INT);
        return;
    }
    if (incr_or_reply(c, &value, incr) < 0)
        return;
    char buf[RESP_LL_CHARS];
    incr_store(c, e, m, buf, resp_format_ll(buf, value), "hincrby");
    resp_add_int(&c->out, value);
}

static void cmd_hincrbyfloat(struct client *c)
{
    struct ks_entry *e;
    struct omap *m;
    long double incr, value = 0;
    const char *v;
    size_t vlen;

    if (parse_long_double(c->argv[3].ptr, c->argv[3].len, &incr) < 0) {
        resp_add_error(&c->out, ERR_NOT_FLOAT);
        return;
    }
    if (isnan(incr) || isinf(incr)) {
        resp_add_error(&c->out, ERR_ARG_NAN_INF);
        return;
    }
    if (hash_write_or_reply(c, &e, &m) < 0)
        return;
    if (m && om_get(m, c->argv[2].ptr, c->argv[2].len, &v, &vlen) &&
        parse_long_double(v, vlen, &value) < 0) {
        resp_add_error(&c->out, ERR_HASH_NOT_FLOAT);
        return;
    }
    value += incr;
    if (isnan(value) || isinf(value)) {
        resp_add_error(&c->out, ERR_INCR_NAN_INF);
        return;
    }
    char buf[NUMPARSE_LONG_DOUBLE_CHARS];
    size_t len = format_long_double(buf, value);
    incr_store(c, e, m, buf, len, "hincrbyfloat");
    resp_add_bulk(&c->out, buf, len);
    /* As the value it made, so float rounding cannot differ on replay. */
    struct resp_slice argv[4] = {{"HSET", 4}, c->argv[1], c->argv[2], {buf, len}};
    propagate_effects(c->db_index, 4, argv);
}

/* ---- HRANDFIELD --------------------------------------------------------- */

/* The element at a uniformly drawn rank of the non-empty m. */
static void random_elem(const struct omap *m, struct om_elem *el)
{
    struct om_it it;
    /* A map counts its elements in 32 bits, so its length fits arc4random's
     * range. */
    om_seek(m, arc4random_uniform((uint32_t)om_len(m)), &it);
    om_it_get(m, &it, el);
}

/* count (< om_len) distinct fields, drawn uniformly (sample.h). */
static void random_distinct(struct client *c, const struct omap *m, size_t count, int withvalues)
{
    size_t *ranks = xmalloc(count * sizeof(*ranks));
    struct om_it it;
    struct om_elem el;

    sample_distinct(om_len(m), count, ranks);
    for (size_t i = 0; i < count && !c->out.failed; i++) {
        om_seek(m, ranks[i], &it);
        om_it_get(m, &it, &el);
        coll_add_elem(c, &el, withvalues);
    }
    xfree(ranks);
}

static size_t list_len(const struct client *c, size_t n, int withvalues)
{
    return withvalues && c->out.proto == 2 ? 2 * n : n;
}

/* HRANDFIELD key count [WITHVALUES]: Redis's cases. A negative count may
 * repeat fields (and is the only case in random order besides a count
 * smaller than the hash); a count of at least the size is the whole hash. */
static void randfield_count(struct client *c, long long l, int withvalues)
{
    struct omap *m;

    if (hash_read_or_reply(c, &m) < 0)
        return;
    if (!m || l == 0) {
        resp_add_array_len(&c->out, 0);
        return;
    }
    size_t size = om_len(m);
    /* l > LLONG_MIN (checked), so -l fits. */
    unsigned long long count = l >= 0 ? (unsigned long long)l : (unsigned long long)-l;
    struct om_elem el;
    if (l < 0 || count == 1) {
        resp_add_array_len(&c->out, list_len(c, count, withvalues));
        /* A client asking for more than it lets us buffer is closed after
         * this command: stop producing once its reply broke the limit. */
        for (unsigned long long i = 0; i < count && !c->out.failed; i++) {
            random_elem(m, &el);
            coll_add_elem(c, &el, withvalues);
        }
        return;
    }
    if (count >= size) {
        struct om_it it;
        resp_add_array_len(&c->out, list_len(c, size, withvalues));
        om_seek(m, 0, &it);
        for (; om_it_valid(&it) && !c->out.failed; om_next(m, &it)) {
            om_it_get(m, &it, &el);
            coll_add_elem(c, &el, withvalues);
        }
        return;
    }
    resp_add_array_len(&c->out, list_len(c, count, withvalues));
    random_distinct(c, m, (size_t)count, withvalues);
}

static void cmd_hrandfield(struct client *c)
{
    struct omap *m;

    if (c->argc >= 3) {
        long long l;
        if (arg_rand_count_or_reply(c, &c->argv[2], &l) < 0)
            return;
        if (c->argc > 4 || (c->argc == 4 && !arg_is(&c->argv[3], "withvalues"))) {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
        /* Twice the count must fit, for RESP2's flat reply's length. */
        if (c->argc == 4 && (l < -LLONG_MAX / 2 || l > LLONG_MAX / 2)) {
            resp_add_error(&c->out, ERR_OUT_OF_RANGE);
            return;
        }
        randfield_count(c, l, c->argc == 4);
        return;
    }
    if (hash_read_or_reply(c, &m) < 0)
        return;
    if (!m) {
        resp_add_null(&c->out);
        return;
    }
    struct om_elem el;
    random_elem(m, &el);
    resp_add_bulk(&c->out, el.f, el.flen);
}

/* ---- HSCAN -------------------------------------------------------------- */

static void cmd_hscan(struct client *c)
{
    struct omap *m;
    uint64_t id;

    /* Redis reads the cursor before the key, so a bad cursor is reported
     * before WRONGTYPE; coll_scan reads it again. */
    if (scan_cursor_arg_or_reply(c, &c->argv[2], &id) < 0)
        return;
    if (hash_read_or_reply(c, &m) < 0)
        return;
    coll_scan(c, m);
}

/* ---- the table ---------------------------------------------------------- */

#define HASH_COMMAND(name_, proc_, arity_, flags_)                                                \
    {.name = (name_), .proc = (proc_), .arity = (arity_), .flags = (flags_), .first_key = 1,      \
     .last_key = 1, .key_step = 1, .group = "hash"}

#define WRITE_FAST (CMD_WRITE | CMD_DENYOOM | CMD_FAST)
#define READ_FAST (CMD_READONLY | CMD_FAST)

/* Arity, flags and key positions as Redis 7.0's COMMAND INFO shows them
 * (HRANDFIELD's and HSCAN's "random" output is a command tip in Redis's
 * docs, redis_docs.c, not a flag). */
const struct command hash_commands[] = {
    HASH_COMMAND("hset", cmd_hset, -4, WRITE_FAST),
    HASH_COMMAND("hsetnx", cmd_hsetnx, 4, WRITE_FAST),
    HASH_COMMAND("hmset", cmd_hmset, -4, WRITE_FAST),
    HASH_COMMAND("hget", cmd_hget, 3, READ_FAST),
    HASH_COMMAND("hmget", cmd_hmget, -3, READ_FAST),
    HASH_COMMAND("hdel", cmd_hdel, -3, CMD_WRITE | CMD_FAST),
    HASH_COMMAND("hexists", cmd_hexists, 3, READ_FAST),
    HASH_COMMAND("hlen", cmd_hlen, 2, READ_FAST),
    HASH_COMMAND("hstrlen", cmd_hstrlen, 3, READ_FAST),
    HASH_COMMAND("hgetall", cmd_hgetall, 2, CMD_READONLY),
    HASH_COMMAND("hkeys", cmd_hkeys, 2, CMD_READONLY),
    HASH_COMMAND("hvals", cmd_hvals, 2, CMD_READONLY),
    HASH_COMMAND("hincrby", cmd_hincrby, 4, WRITE_FAST),
    HASH_COMMAND("hincrbyfloat", cmd_hincrbyfloat, 4, WRITE_FAST),
    HASH_COMMAND("hrandfield", cmd_hrandfield, -2, CMD_READONLY),
    HASH_COMMAND("hscan", cmd_hscan, -3, CMD_READONLY),
    {0},
};
