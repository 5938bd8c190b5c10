/*
 * cmd_hll.c - the HyperLogLog commands: PFADD PFCOUNT PFMERGE PFDEBUG
 * PFSELFTEST, on string values holding Redis's HLL bytes (data/hll.h).
 *
 * Owns: hll_commands[] and nothing else; an HLL is a plain string entry, so
 * GET, SET, APPEND and the rest see its bytes as Redis's do. Knows nothing
 * of sockets.
 *
 * Rules kept from Redis 7.0 (hyperloglog.c), checked against redis-server
 * 7.0.15 (tests/integration/test_hll.c):
 *  - a string that is no HLL answers "WRONGTYPE Key is not a valid
 *    HyperLogLog string value."; one whose sparse opcodes do not add up
 *    answers "INVALIDOBJ Corrupted HLL object detected" when a command
 *    reads them (a cached count is returned without reading them);
 *  - a sparse value grows in place until a write would take it past
 *    hll-sparse-max-bytes or needs a register over 32: then it turns dense
 *    for good (PFDEBUG TODENSE and GETREG turn it too, as a write);
 *  - PFADD counts one change per register raised (and one for a new key);
 *    a corrupt value stops it with the registers raised so far kept;
 *  - PFCOUNT of one key stores the count it computed in the value's header
 *    when the cache was stale: a write although the command is read-only,
 *    so it touches WATCH and is propagated as itself, as Redis does;
 *  - PFMERGE's sources include its destination; its result is written
 *    register by register in index order, which decides the sparse bytes;
 *    it fires "pfadd" and touches WATCH for the destination only, as Redis
 *    does.
 *
 * Entries can move when written (see keyspace.h): after any ks_ call that
 * returns an entry, only the returned pointer is used.
 */
#include <string.h>

#include "args.h"
#include "client.h"
#include "cmd_hll.h"
#include "fastrand.h"
#include "hll.h"
#include "keyspace.h"
#include "mem.h"
#include "notify.h"
#include "propagate.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"
#include "watch.h"

#define ERR_NOT_HLL "WRONGTYPE Key is not a valid HyperLogLog string value."
#define ERR_CORRUPT_HLL "INVALIDOBJ Corrupted HLL object detected"

static unsigned char *hll_bytes(struct ks_entry *e)
{
    return (unsigned char *)ks_str(e);
}

/* Redis's isHLLObjectOrReply: 0 for a valid HLL, else replies, -1. */
static int hll_or_reply(struct client *c, struct ks_entry *e)
{
    if (e->type != KS_STRING) {
        resp_add_error(&c->out, ERR_WRONGTYPE);
        return -1;
    }
    if (!hll_is_valid(hll_bytes(e), ks_slen(e))) {
        resp_add_error(&c->out, ERR_NOT_HLL);
        return -1;
    }
    return 0;
}

/* A new key holding an empty sparse HLL, with Redis's "new" event. */
static struct ks_entry *hll_create(struct client *c, const struct resp_slice *key)
{
    unsigned char empty[HLL_SPARSE_EMPTY_SIZE];
    hll_init_sparse(empty);
    struct ks_entry *e =
        ks_set_string(c->db, key->ptr, key->len, (const char *)empty, sizeof(empty), 0);
    notify_key(c, NOTIFY_NEW, "new", key);
    return e;
}

/* Turns e's sparse value, of len bytes (the entry may hold more: room
 * for a write), dense, keeping the entry and its deadline. Returns the
 * entry, or NULL when the opcodes are corrupt (e then unchanged). */
static struct ks_entry *hll_to_dense(struct db *db, struct ks_entry *e, size_t len)
{
    unsigned char *dense = xmalloc(HLL_DENSE_SIZE);
    if (hll_sparse_to_dense(hll_bytes(e), len, dense) < 0) {
        xfree(dense);
        return NULL;
    }
    /* From an empty string, ks_string_resize allocates the exact size
     * rather than adding the slack of a growing string: a dense value
     * never grows again. */
    e = ks_string_resize(db, e, 0);
    e = ks_string_resize(db, e, HLL_DENSE_SIZE);
    memcpy(hll_bytes(e), dense, HLL_DENSE_SIZE);
    xfree(dense);
    return e;
}

/* An HLL being written register by register: the entry and, while sparse,
 * the value's true length (the entry keeps HLL_SPARSE_ROOM bytes more for
 * the next write). hll_write_end gives the entry its true length back. */
struct hll_writer {
    struct db *db;
    struct ks_entry *e;
    size_t len;
};

/* Raises register index to count: 1 when it changed, 0 when not, -1 when
 * the sparse value is corrupt (a sparse value may turn dense). */
static int hll_write_reg(struct hll_writer *w, unsigned index, unsigned count)
{
    if (hll_encoding_of(hll_bytes(w->e)) == HLL_DENSE)
        return hll_dense_set(hll_bytes(w->e), index, count);
    if (ks_slen(w->e) < w->len + HLL_SPARSE_ROOM)
        w->e = ks_string_resize(w->db, w->e, w->len + HLL_SPARSE_ROOM);
    enum hll_set r =
        hll_sparse_set(hll_bytes(w->e), &w->len, index, count, server.cfg.hll_sparse_max_bytes);
    if (r != HLL_SET_PROMOTE)
        return r;
    struct ks_entry *dense = hll_to_dense(w->db, w->e, w->len);
    if (!dense)
        return -1;
    w->e = dense;
    w->len = HLL_DENSE_SIZE;
    hll_dense_set(hll_bytes(w->e), index, count);
    return 1;
}

static struct ks_entry *hll_write_end(struct hll_writer *w)
{
    if (ks_slen(w->e) != w->len)
        w->e = ks_string_resize(w->db, w->e, w->len);
    return w->e;
}

static void cmd_pfadd(struct client *c)
{
    const struct resp_slice *key = &c->argv[1];
    struct ks_entry *e = lookup_write(c, key);
    unsigned long long updated = 0;

    if (!e) {
        e = hll_create(c, key);
        updated++;
    } else if (hll_or_reply(c, e) < 0) {
        return;
    }
    struct hll_writer w = {c->db, e, ks_slen(e)};
    int corrupt = 0;
    for (int j = 2; j < c->argc && !corrupt; j++) {
        unsigned index, count;
        hll_hash(c->argv[j].ptr, c->argv[j].len, &index, &count);
        int r = hll_write_reg(&w, index, count);
        if (r < 0)
            corrupt = 1;
        else
            updated += (unsigned long long)r;
    }
    e = hll_write_end(&w);
    if (corrupt) {
        /* What was raised before stays, uncounted, as in Redis. */
        resp_add_error(&c->out, ERR_CORRUPT_HLL);
        return;
    }
    if (updated) {
        hll_invalidate(hll_bytes(e));
        notify_key(c, NOTIFY_STRING, "pfadd", key);
        server.dirty += updated;
    }
    resp_add_int(&c->out, updated != 0);
}

/* Merges the registers of the HLLs at argv[1..] into max (HLL_REGISTERS
 * bytes), missing keys counting as empty; *dense tells whether one was
 * dense. 0, or -1 after replying. */
static int merge_keys_or_reply(struct client *c, uint8_t *max, int *dense)
{
    memset(max, 0, HLL_REGISTERS);
    *dense = 0;
    for (int j = 1; j < c->argc; j++) {
        struct ks_entry *e = lookup_read(c, &c->argv[j]);
        if (!e)
            continue;
        if (hll_or_reply(c, e) < 0)
            return -1;
        if (hll_encoding_of(hll_bytes(e)) == HLL_DENSE)
            *dense = 1;
        if (hll_merge(max, hll_bytes(e), ks_slen(e)) < 0) {
            resp_add_error(&c->out, ERR_CORRUPT_HLL);
            return -1;
        }
    }
    return 0;
}

/* PFCOUNT of several keys: the count of their union, computed on a merge
 * of their registers; no cache is read or written. */
static void pfcount_union(struct client *c)
{
    uint8_t *max = xmalloc(HLL_REGISTERS);
    int dense;
    if (merge_keys_or_reply(c, max, &dense) == 0)
        resp_add_int(&c->out, (long long)hll_count_registers(max));
    xfree(max);
}

static void cmd_pfcount(struct client *c)
{
    if (c->argc > 2) {
        pfcount_union(c);
        return;
    }
    const struct resp_slice *key = &c->argv[1];
    struct ks_entry *e = lookup_read(c, key);
    if (!e) {
        resp_add_int(&c->out, 0);
        return;
    }
    if (hll_or_reply(c, e) < 0)
        return;
    uint64_t card;
    if (!hll_cached(hll_bytes(e), &card)) {
        if (hll_count(hll_bytes(e), ks_slen(e), &card) < 0) {
            resp_add_error(&c->out, ERR_CORRUPT_HLL);
            return;
        }
        /* The value changes in place: streamed replies over this db end
         * first, WATCH sees it, and the log and replicas get this PFCOUNT,
         * which writes the same bytes there. */
        ks_will_change(c->db);
        hll_set_cached(hll_bytes(e), card);
        watch_touch(c->db, key->ptr, key->len);
        server.dirty++;
        propagate_effects(c->db_index, c->argc, c->argv);
    }
    resp_add_int(&c->out, (long long)card);
}

static void cmd_pfmerge(struct client *c)
{
    const struct resp_slice *dst = &c->argv[1];
    uint8_t *max = xmalloc(HLL_REGISTERS);
    int use_dense;

    if (merge_keys_or_reply(c, max, &use_dense) < 0)
        goto out;
    struct ks_entry *e = lookup_write(c, dst);
    if (!e)
        e = hll_create(c, dst);
    /* A dense source makes the result dense at once, as in Redis. The
     * destination was checked among the sources, so it converts. */
    if (use_dense && hll_encoding_of(hll_bytes(e)) == HLL_SPARSE) {
        struct ks_entry *dense = hll_to_dense(c->db, e, ks_slen(e));
        if (!dense) {
            resp_add_error(&c->out, ERR_CORRUPT_HLL);
            goto out;
        }
        e = dense;
    }
    struct hll_writer w = {c->db, e, ks_slen(e)};
    for (unsigned j = 0; j < HLL_REGISTERS; j++) {
        /* A checked value cannot turn out corrupt here: Redis ignores the
         * outcome as well. */
        if (max[j])
            (void)hll_write_reg(&w, j, max[j]);
    }
    e = hll_write_end(&w);
    hll_invalidate(hll_bytes(e));
    /* Only the destination changed: WATCHes of the sources hold. */
    watch_touch(c->db, dst->ptr, dst->len);
    /* "pfadd": a merge is many adds at once, in Redis's words. */
    notify_key(c, NOTIFY_STRING, "pfadd", dst);
    server.dirty++;
    reply_ok(c);
out:
    xfree(max);
}

/* PFDEBUG DECODE: the sparse opcodes as text, "Z:<run>" for XZERO, "z:<run>"
 * for ZERO, "v:<value>,<run>" for VAL, separated by spaces. */
static void pfdebug_decode(struct client *c, struct ks_entry *e)
{
    const unsigned char *s = hll_bytes(e), *p = s + HLL_HDR_SIZE, *end = s + ks_slen(e);
    if (hll_encoding_of(s) != HLL_SPARSE) {
        resp_add_error(&c->out, "ERR HLL encoding is not sparse");
        return;
    }
    struct text t = {xmalloc(64), 0, 64};
    t.buf[0] = '\0';
    while (p < end) {
        struct hll_op op;
        p += hll_sparse_op(p, end, &op);
        const char *sep = t.len ? " " : "";
        if (op.kind == HLL_OP_VAL)
            text_printf(&t, "%sv:%u,%u", sep, op.value, op.run);
        else
            text_printf(&t, "%s%c:%u", sep, op.kind == HLL_OP_XZERO ? 'Z' : 'z', op.run);
    }
    resp_add_bulk(&c->out, t.buf, t.len);
    xfree(t.buf);
}

/* PFDEBUG GETREG and TODENSE turn a sparse value dense first: 1 when they
 * did (a write, propagated as the command, though no WATCH sees it, as in
 * Redis), 0 when it was dense, -1 after replying that it is corrupt. */
static int pfdebug_to_dense(struct client *c, struct ks_entry **e)
{
    if (hll_encoding_of(hll_bytes(*e)) == HLL_DENSE)
        return 0;
    struct ks_entry *dense = hll_to_dense(c->db, *e, ks_slen(*e));
    if (!dense) {
        resp_add_error(&c->out, ERR_CORRUPT_HLL);
        return -1;
    }
    *e = dense;
    server.dirty++;
    return 1;
}

static void cmd_pfdebug(struct client *c)
{
    const struct resp_slice *sub = &c->argv[1];
    struct ks_entry *e = lookup_write(c, &c->argv[2]);
    if (!e) {
        resp_add_error(&c->out, "ERR The specified key does not exist");
        return;
    }
    if (hll_or_reply(c, e) < 0)
        return;

    if (arg_is(sub, "getreg")) {
        if (pfdebug_to_dense(c, &e) < 0)
            return;
        resp_add_array_len(&c->out, HLL_REGISTERS);
        for (unsigned j = 0; j < HLL_REGISTERS; j++)
            resp_add_int(&c->out, hll_dense_get(hll_bytes(e), j));
    } else if (arg_is(sub, "decode")) {
        pfdebug_decode(c, e);
    } else if (arg_is(sub, "encoding")) {
        resp_add_simple(&c->out, hll_encoding_of(hll_bytes(e)) == HLL_DENSE ? "dense" : "sparse");
    } else if (arg_is(sub, "todense")) {
        int converted = pfdebug_to_dense(c, &e);
        if (converted >= 0)
            resp_add_int(&c->out, converted);
    } else {
        /* Redis prints the name as a C string: up to a NUL. */
        resp_add_errorf(&c->out, "ERR Unknown PFDEBUG subcommand '%.*s'",
                        (int)strnlen(sub->ptr, sub->len), sub->ptr);
    }
}

static void cmd_pfselftest(struct client *c)
{
    char why[128];
    if (hll_selftest(fastrand(), server.cfg.hll_sparse_max_bytes, why, sizeof(why)) < 0)
        resp_add_errorf(&c->out, "ERR %s", why);
    else
        reply_ok(c);
}

/* Arity, flags and key positions as Redis 7.0's COMMAND INFO shows them
 * (COMMAND DOCS answers Redis's own docs, redis_docs.c); the key specs are
 * in key_specs.c. */
const struct command hll_commands[] = {
    {.name = "pfadd", .proc = cmd_pfadd, .arity = -2,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "hyperloglog"},
    {.name = "pfcount", .proc = cmd_pfcount, .arity = -2, .flags = CMD_READONLY | CMD_MAY_REPLICATE,
     .first_key = 1, .last_key = -1, .key_step = 1, .group = "hyperloglog"},
    {.name = "pfmerge", .proc = cmd_pfmerge, .arity = -2,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_TOUCHES_OWN_KEYS,
     .first_key = 1, .last_key = -1, .key_step = 1, .group = "hyperloglog"},
    {.name = "pfdebug", .proc = cmd_pfdebug, .arity = 3,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_ADMIN | CMD_TOUCHES_OWN_KEYS,
     .first_key = 2, .last_key = 2, .key_step = 1, .group = "hyperloglog"},
    {.name = "pfselftest", .proc = cmd_pfselftest, .arity = 1, .flags = CMD_ADMIN,
     .group = "hyperloglog"},
    {0},
};
