/*
 * cmd_string.c - the string commands: GET/SET and their variants, MGET/MSET,
 * APPEND, STRLEN, GETRANGE/SETRANGE and the INCR/DECR/INCRBYFLOAT counters.
 *
 * Owns: string_commands[] and nothing else; every byte of every value lives in
 * the keyspace. Knows nothing of sockets: handlers read argument slices and
 * write replies into c->out.
 *
 * Rules kept from Redis 7.0 (t_string.c), because clients depend on them:
 *  - every check that can fail runs before the first change, so a refused
 *    command writes nothing;
 *  - a counter is stored as its decimal text, and only text that Redis's
 *    string2ll accepts ("-12", not " 12", "012" or "+12") is a number;
 *  - INCR/INCRBYFLOAT/SETRANGE/APPEND keep the key's deadline; SET, GETSET
 *    and MSET drop it (SET ... KEEPTTL keeps it);
 *  - server.dirty grows by one per key changed.
 *
 * Entries can move when written (see keyspace.h): after any ks_ call that
 * returns an entry, only the returned pointer is used.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "args.h"
#include "client.h"
#include "clock.h"
#include "cmd_string.h"
#include "keyspace.h"
#include "mem.h"
#include "notify.h"
#include "numparse.h"
#include "propagate.h"
#include "resp_num.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"

/* Options of SET and GETEX, parsed by one function as Redis does so that
 * both commands refuse the same combinations with the same error. */
#define OPT_NX (1u << 0)
#define OPT_XX (1u << 1)
#define OPT_GET (1u << 2)
#define OPT_KEEPTTL (1u << 3)
#define OPT_PERSIST (1u << 4)
#define OPT_EX (1u << 5)
#define OPT_PX (1u << 6)
#define OPT_EXAT (1u << 7)
#define OPT_PXAT (1u << 8)
#define OPT_DEADLINE (OPT_EX | OPT_PX | OPT_EXAT | OPT_PXAT)

/* Which command is parsing: a bit per command, so a word can allow several. */
#define OPTS_SET 1u
#define OPTS_GETEX 2u

struct opt_word {
    const char *word;
    unsigned flag;
    unsigned conflicts; /* options already given that make this one a syntax error */
    unsigned commands;  /* OPTS_ bits of the commands that accept it */
};

/* A deadline option conflicts with every other way of setting the deadline,
 * but repeating itself is allowed (the last value wins), as in Redis. */
#define DEADLINE_CONFLICTS(self) (OPT_KEEPTTL | OPT_PERSIST | (OPT_DEADLINE & ~(self)))
static const struct opt_word opt_words[] = {
    {"NX", OPT_NX, OPT_XX, OPTS_SET},
    {"XX", OPT_XX, OPT_NX, OPTS_SET},
    {"GET", OPT_GET, 0, OPTS_SET},
    {"KEEPTTL", OPT_KEEPTTL, OPT_PERSIST | OPT_DEADLINE, OPTS_SET},
    {"PERSIST", OPT_PERSIST, OPT_KEEPTTL | OPT_DEADLINE, OPTS_GETEX},
    {"EX", OPT_EX, DEADLINE_CONFLICTS(OPT_EX), OPTS_SET | OPTS_GETEX},
    {"PX", OPT_PX, DEADLINE_CONFLICTS(OPT_PX), OPTS_SET | OPTS_GETEX},
    {"EXAT", OPT_EXAT, DEADLINE_CONFLICTS(OPT_EXAT), OPTS_SET | OPTS_GETEX},
    {"PXAT", OPT_PXAT, DEADLINE_CONFLICTS(OPT_PXAT), OPTS_SET | OPTS_GETEX},
};

struct string_opts {
    unsigned flags;
    const struct resp_slice *expire; /* the deadline option's argument, or NULL */
};

/* Parses the options from argv[first] on. Returns 0, or replies
 * "ERR syntax error" and returns -1. */
static int string_opts_or_reply(struct client *c, int first, unsigned cmd,
                                struct string_opts *o)
{
    o->flags = 0;
    o->expire = NULL;
    for (int j = first; j < c->argc; j++) {
        const struct opt_word *w = NULL;
        for (size_t i = 0; i < sizeof(opt_words) / sizeof(opt_words[0]); i++) {
            if (arg_is(&c->argv[j], opt_words[i].word)) {
                w = &opt_words[i];
                break;
            }
        }
        if (!w || (o->flags & w->conflicts) || !(w->commands & cmd)) {
            resp_add_error(&c->out, ERR_SYNTAX);
            return -1;
        }
        if (w->flag & OPT_DEADLINE) {
            if (j + 1 == c->argc) {
                resp_add_error(&c->out, ERR_SYNTAX);
                return -1;
            }
            o->expire = &c->argv[++j];
        }
        o->flags |= w->flag;
    }
    return 0;
}

/* Turns a deadline option's argument into an absolute time in ms. Zero,
 * negative and overflowing times are refused with
 * "ERR invalid expire time in '<name>' command". Returns 0 or -1 (replied). */
static int deadline_or_reply(struct client *c, const struct resp_slice *arg, unsigned flags,
                             const char *name, int64_t *when)
{
    long long v;
    int seconds = (flags & (OPT_EX | OPT_EXAT)) != 0;

    if (arg_ll_or_reply(c, arg, &v) < 0)
        return -1;
    if (v <= 0 || (seconds && v > LLONG_MAX / 1000))
        goto invalid;
    if (seconds)
        v *= 1000;
    if (flags & (OPT_EX | OPT_PX)) {
        int64_t now = mstime();
        if (v > LLONG_MAX - now)
            goto invalid;
        v += now;
    }
    *when = v;
    return 0;
invalid:
    resp_add_errorf(&c->out, "ERR invalid expire time in '%s' command", name);
    return -1;
}

/* Returns 0 when e is a string; otherwise replies WRONGTYPE and returns -1. */
static int string_or_reply(struct client *c, const struct ks_entry *e)
{
    if (e->type == KS_STRING)
        return 0;
    resp_add_error(&c->out, ERR_WRONGTYPE);
    return -1;
}

/* The longest string a command may build: Redis's proto-max-bulk-len, and
 * never more than an entry's 32-bit length field holds. Returns 0 when
 * size + append fits, or replies and returns -1. */
static int length_ok_or_reply(struct client *c, unsigned long long size, unsigned long long append)
{
    unsigned long long max = server.cfg.proto_max_bulk_len;
    if (max > UINT32_MAX)
        max = UINT32_MAX;
    if (size > max || append > max - size) {
        resp_add_error(&c->out, "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        return -1;
    }
    return 0;
}

/* Replies with argv[1]'s value (null when missing) and sets *found to its
 * entry or NULL. On a non-string replies WRONGTYPE and returns -1. */
static int get_generic(struct client *c, struct ks_entry **found)
{
    struct ks_entry *e = lookup_read(c, &c->argv[1]);
    *found = e;
    if (!e) {
        resp_add_null(&c->out);
        return 0;
    }
    if (string_or_reply(c, e) < 0)
        return -1;
    resp_add_bulk(&c->out, ks_str(e), ks_slen(e));
    return 0;
}

static void cmd_get(struct client *c)
{
    struct ks_entry *e;
    get_generic(c, &e);
}

/* Sends "<name> key [value] <ms>" (SET key value PXAT ms, PEXPIREAT key ms)
 * in place of the running command, whose relative or second-based deadline
 * would replay to another time: Redis 7.0's rewrite. value NULL: none. */
static void propagate_deadline(struct client *c, const char *name, const struct resp_slice *value,
                               int64_t when)
{
    char ms[RESP_LL_CHARS];
    struct resp_slice ts = {ms, resp_format_ll(ms, when)};
    if (value) {
        struct resp_slice argv[5] = {{name, strlen(name)}, c->argv[1], *value, {"PXAT", 4}, ts};
        propagate_effects(c->db_index, 5, argv);
    } else {
        struct resp_slice argv[3] = {{name, strlen(name)}, c->argv[1], ts};
        propagate_effects(c->db_index, 3, argv);
    }
}

/* SET ... GET goes on without its GET words, as Redis 7.0 sends it. */
static void propagate_without_get(struct client *c)
{
    struct resp_slice *argv = xmalloc(sizeof(*argv) * (size_t)c->argc);
    int argc = 0;
    for (int i = 0; i < c->argc; i++) {
        if (i < 3 || c->argv[i].len != 3 || strncasecmp(c->argv[i].ptr, "GET", 3) != 0)
            argv[argc++] = c->argv[i];
    }
    propagate_effects(c->db_index, argc, argv);
    xfree(argv);
}

/* How SET-like commands answer: SET says OK or null, SETNX 1 or 0. */
enum set_reply { SET_REPLY_OK, SET_REPLY_INT };

/* The body of SET, SETNX, SETEX and PSETEX: argv[1] = val under opt's
 * conditions and deadline. name is the command for the expire error. */
static void set_generic(struct client *c, const struct string_opts *opt,
                        const struct resp_slice *val, const char *name, enum set_reply how)
{
    const struct resp_slice *key = &c->argv[1];
    int64_t when = 0;
    struct ks_entry *e;
    struct ks_probe probe;

    if (opt->expire && deadline_or_reply(c, opt->expire, opt->flags, name, &when) < 0)
        return;
    /* GET answers first: on a non-string it refuses the whole command. */
    if ((opt->flags & OPT_GET) && get_generic(c, &e) < 0)
        return;
    /* Nothing changes the db between this lookup and the write, so the write
     * reuses it: one hash and one index probe per SET. */
    e = lookup_write_probe(c, key, &probe);
    if (((opt->flags & OPT_NX) && e) || ((opt->flags & OPT_XX) && !e)) {
        if (opt->flags & OPT_GET)
            return;
        if (how == SET_REPLY_INT)
            resp_add_int(&c->out, 0);
        else
            resp_add_null(&c->out);
        return;
    }
    int fresh = e == NULL;
    /* val is an argument slice of c: never NULL. */
    // NOLINTNEXTLINE(clang-analyzer-core.NullDereference)
    e = ks_set_string_probed(c->db, &probe, val->ptr, val->len, (opt->flags & OPT_KEEPTTL) != 0);
    if (opt->expire)
        ks_set_expire(c->db, e, when);
    server.dirty++;
    if (fresh)
        notify_key(c, NOTIFY_NEW, "new", key);
    notify_key(c, NOTIFY_STRING, "set", key);
    if (opt->expire)
        notify_key(c, NOTIFY_GENERIC, "expire", key);
    /* SET PXAT replays as it is; EX, PX, EXAT, SETEX and PSETEX go on as
     * SET key value PXAT ms, their NX, XX and GET dropped, as in Redis. */
    if (opt->expire && !(opt->flags & OPT_PXAT))
        propagate_deadline(c, "SET", val, when);
    else if (opt->flags & OPT_GET)
        propagate_without_get(c);
    if (opt->flags & OPT_GET)
        return;
    if (how == SET_REPLY_INT)
        resp_add_int(&c->out, 1);
    else
        reply_ok(c);
}

static void cmd_set(struct client *c)
{
    struct string_opts opt;
    if (string_opts_or_reply(c, 3, OPTS_SET, &opt) < 0)
        return;
    set_generic(c, &opt, &c->argv[2], "set", SET_REPLY_OK);
}

static void cmd_setnx(struct client *c)
{
    struct string_opts opt = {OPT_NX, NULL};
    set_generic(c, &opt, &c->argv[2], "setnx", SET_REPLY_INT);
}

static void cmd_setex(struct client *c)
{
    struct string_opts opt = {OPT_EX, &c->argv[2]};
    set_generic(c, &opt, &c->argv[3], "setex", SET_REPLY_OK);
}

static void cmd_psetex(struct client *c)
{
    struct string_opts opt = {OPT_PX, &c->argv[2]};
    set_generic(c, &opt, &c->argv[3], "psetex", SET_REPLY_OK);
}

static void cmd_getset(struct client *c)
{
    struct ks_entry *e;
    if (get_generic(c, &e) < 0)
        return;
    ks_set_string(c->db, c->argv[1].ptr, c->argv[1].len, c->argv[2].ptr, c->argv[2].len, 0);
    server.dirty++;
    if (!e)
        notify_key(c, NOTIFY_NEW, "new", &c->argv[1]);
    notify_key(c, NOTIFY_STRING, "set", &c->argv[1]);
    /* Redis's stream carries it as SET, so replicas count a SET. */
    struct resp_slice argv[3] = {{"SET", 3}, c->argv[1], c->argv[2]};
    propagate_effects(c->db_index, 3, argv);
}

static void cmd_getdel(struct client *c)
{
    struct ks_entry *e;
    if (get_generic(c, &e) < 0 || !e)
        return;
    ks_delete(c->db, e);
    server.dirty++;
    notify_key(c, NOTIFY_GENERIC, "del", &c->argv[1]);
    /* As DEL, as Redis sends it. */
    struct resp_slice argv[2] = {{"DEL", 3}, c->argv[1]};
    propagate_effects(c->db_index, 2, argv);
}

static void cmd_getex(struct client *c)
{
    struct string_opts opt;
    int64_t when = 0;

    if (string_opts_or_reply(c, 2, OPTS_GETEX, &opt) < 0)
        return;
    struct ks_entry *e = lookup_read(c, &c->argv[1]);
    if (!e) {
        resp_add_null(&c->out);
        return;
    }
    if (string_or_reply(c, e) < 0)
        return;
    if (opt.expire && deadline_or_reply(c, opt.expire, opt.flags, "getex", &when) < 0)
        return;
    /* The reply copies the value, so the key may go right after. */
    resp_add_bulk(&c->out, ks_str(e), ks_slen(e));
    if ((opt.flags & (OPT_EXAT | OPT_PXAT)) && when <= mstime() && !ks_expiry_paused()) {
        ks_expire_entry(c->db, e);
        server.dirty++;
        notify_key(c, NOTIFY_GENERIC, "del", &c->argv[1]);
    } else if (opt.expire) {
        ks_set_expire(c->db, e, when);
        server.dirty++;
        notify_key(c, NOTIFY_GENERIC, "expire", &c->argv[1]);
        propagate_deadline(c, "PEXPIREAT", NULL, when);
    } else if ((opt.flags & OPT_PERSIST) && ks_persist(c->db, e)) {
        server.dirty++;
        notify_key(c, NOTIFY_GENERIC, "persist", &c->argv[1]);
        struct resp_slice argv[2] = {{"PERSIST", 7}, c->argv[1]};
        propagate_effects(c->db_index, 2, argv);
    }
}

static void cmd_mget(struct client *c)
{
    resp_add_array_len(&c->out, (size_t)c->argc - 1);
    for (int j = 1; j < c->argc; j++) {
        struct ks_entry *e = lookup_read(c, &c->argv[j]);
        if (e && e->type == KS_STRING)
            resp_add_bulk(&c->out, ks_str(e), ks_slen(e));
        else
            resp_add_null(&c->out);
    }
}

/* MSET and MSETNX. MSETNX sets nothing, and answers 0, if any key exists. */
static void mset_generic(struct client *c, int nx)
{
    if (c->argc % 2 == 0) {
        reply_wrong_arity(c);
        return;
    }
    if (nx) {
        for (int j = 1; j < c->argc; j += 2) {
            if (lookup_write(c, &c->argv[j])) {
                resp_add_int(&c->out, 0);
                return;
            }
        }
    }
    /* Looked up only for "new" (a key may be named twice). */
    int want_new = notify_enabled(NOTIFY_NEW);
    for (int j = 1; j < c->argc; j += 2) {
        int fresh = want_new && !lookup_write(c, &c->argv[j]);
        ks_set_string(c->db, c->argv[j].ptr, c->argv[j].len, c->argv[j + 1].ptr,
                      c->argv[j + 1].len, 0);
        if (fresh)
            notify_key(c, NOTIFY_NEW, "new", &c->argv[j]);
        notify_key(c, NOTIFY_STRING, "set", &c->argv[j]);
    }
    server.dirty += (unsigned long long)(c->argc - 1) / 2;
    if (nx)
        resp_add_int(&c->out, 1);
    else
        reply_ok(c);
}

static void cmd_mset(struct client *c)
{
    mset_generic(c, 0);
}

static void cmd_msetnx(struct client *c)
{
    mset_generic(c, 1);
}

static void cmd_append(struct client *c)
{
    const struct resp_slice *key = &c->argv[1], *val = &c->argv[2];
    struct ks_entry *e = lookup_write(c, key);

    if (!e) {
        e = ks_set_string(c->db, key->ptr, key->len, val->ptr, val->len, 0);
        notify_key(c, NOTIFY_NEW, "new", key);
    } else {
        size_t old = ks_slen(e);
        if (string_or_reply(c, e) < 0 || length_ok_or_reply(c, old, val->len) < 0)
            return;
        e = ks_string_resize(c->db, e, old + val->len);
        memcpy(ks_str(e) + old, val->ptr, val->len);
    }
    server.dirty++;
    notify_key(c, NOTIFY_STRING, "append", key);
    resp_add_int(&c->out, (long long)ks_slen(e));
}

static void cmd_strlen(struct client *c)
{
    struct ks_entry *e = lookup_read(c, &c->argv[1]);
    if (!e) {
        resp_add_int(&c->out, 0);
        return;
    }
    if (string_or_reply(c, e) < 0)
        return;
    resp_add_int(&c->out, (long long)ks_slen(e));
}

/* GETRANGE and SUBSTR: bytes start..end inclusive, negative counting from
 * the end, clamped to the string; an empty bulk when nothing is left. */
static void cmd_getrange(struct client *c)
{
    long long start, end;

    if (arg_ll_or_reply(c, &c->argv[2], &start) < 0 || arg_ll_or_reply(c, &c->argv[3], &end) < 0)
        return;
    struct ks_entry *e = lookup_read(c, &c->argv[1]);
    if (!e) {
        resp_add_bulk(&c->out, "", 0);
        return;
    }
    if (string_or_reply(c, e) < 0)
        return;
    long long len = (long long)ks_slen(e);
    /* Both from the end with start after end: empty even when clamping
     * would make them overlap (Redis's rule). */
    if (start < 0 && end < 0 && start > end) {
        resp_add_bulk(&c->out, "", 0);
        return;
    }
    if (start < 0)
        start += len;
    if (end < 0)
        end += len;
    if (start < 0)
        start = 0;
    if (end < 0)
        end = 0;
    if (end >= len)
        end = len - 1;
    if (len == 0 || start > end)
        resp_add_bulk(&c->out, "", 0);
    else
        resp_add_bulk(&c->out, ks_str(e) + start, (size_t)(end - start + 1));
}

static void cmd_setrange(struct client *c)
{
    const struct resp_slice *key = &c->argv[1], *val = &c->argv[3];
    long long offset;

    if (arg_ll_or_reply(c, &c->argv[2], &offset) < 0)
        return;
    if (offset < 0) {
        resp_add_error(&c->out, "ERR offset is out of range");
        return;
    }
    struct ks_entry *e = lookup_write(c, key);
    size_t old = 0;
    if (e) {
        if (string_or_reply(c, e) < 0)
            return;
        old = ks_slen(e);
    }
    /* Writing nothing changes nothing, and creates no key. */
    if (val->len == 0) {
        resp_add_int(&c->out, (long long)old);
        return;
    }
    if (length_ok_or_reply(c, (unsigned long long)offset, val->len) < 0)
        return;
    size_t end = (size_t)offset + val->len;
    if (!e) {
        e = ks_set_string(c->db, key->ptr, key->len, "", 0, 0);
        notify_key(c, NOTIFY_NEW, "new", key);
    }
    if (end > old) {
        e = ks_string_resize(c->db, e, end);
        /* A gap between the old end and offset reads as zero bytes. */
        if ((size_t)offset > old)
            memset(ks_str(e) + old, 0, (size_t)offset - old);
    }
    memcpy(ks_str(e) + offset, val->ptr, val->len);
    server.dirty++;
    notify_key(c, NOTIFY_STRING, "setrange", key);
    resp_add_int(&c->out, (long long)ks_slen(e));
}

/* Adds incr to the counter at argv[1] (0 when missing), keeping its
 * deadline, and replies with the new value. */
static void incr_generic(struct client *c, long long incr)
{
    const struct resp_slice *key = &c->argv[1];
    struct ks_entry *e = lookup_write(c, key);
    long long value = 0;

    if (e) {
        if (string_or_reply(c, e) < 0)
            return;
        if (resp_parse_ll(ks_str(e), ks_slen(e), &value) < 0) {
            resp_add_error(&c->out, ERR_NOT_INT);
            return;
        }
    }
    if (incr_or_reply(c, &value, incr) < 0)
        return;
    char buf[RESP_LL_CHARS];
    ks_set_string(c->db, key->ptr, key->len, buf, resp_format_ll(buf, value), 1);
    server.dirty++;
    if (!e)
        notify_key(c, NOTIFY_NEW, "new", key);
    notify_key(c, NOTIFY_STRING, "incrby", key);
    resp_add_int(&c->out, value);
}

static void cmd_incr(struct client *c)
{
    incr_generic(c, 1);
}

static void cmd_decr(struct client *c)
{
    incr_generic(c, -1);
}

static void cmd_incrby(struct client *c)
{
    long long incr;
    if (arg_ll_or_reply(c, &c->argv[2], &incr) == 0)
        incr_generic(c, incr);
}

static void cmd_decrby(struct client *c)
{
    long long decr;
    if (arg_ll_or_reply(c, &c->argv[2], &decr) < 0)
        return;
    /* -LLONG_MIN does not exist. */
    if (decr == LLONG_MIN) {
        resp_add_error(&c->out, "ERR decrement would overflow");
        return;
    }
    incr_generic(c, -decr);
}

static void cmd_incrbyfloat(struct client *c)
{
    const struct resp_slice *key = &c->argv[1];
    struct ks_entry *e = lookup_write(c, key);
    long double value = 0, incr;

    if (e && string_or_reply(c, e) < 0)
        return;
    if ((e && parse_long_double(ks_str(e), ks_slen(e), &value) < 0) ||
        parse_long_double(c->argv[2].ptr, c->argv[2].len, &incr) < 0) {
        resp_add_error(&c->out, ERR_NOT_FLOAT);
        return;
    }
    value += incr;
    if (isnan(value) || isinf(value)) {
        resp_add_error(&c->out, "ERR increment would produce NaN or Infinity");
        return;
    }
    char buf[NUMPARSE_LONG_DOUBLE_CHARS];
    size_t len = format_long_double(buf, value);
    ks_set_string(c->db, key->ptr, key->len, buf, len, 1);
    server.dirty++;
    if (!e)
        notify_key(c, NOTIFY_NEW, "new", key);
    notify_key(c, NOTIFY_STRING, "incrbyfloat", key);
    resp_add_bulk(&c->out, buf, len);
    /* As the value it made, so float rounding cannot differ on replay. */
    struct resp_slice argv[4] = {{"SET", 3}, *key, {buf, len}, {"KEEPTTL", 7}};
    propagate_effects(c->db_index, 4, argv);
}

/* Arity, flags and key positions as Redis 7.0's COMMAND INFO shows them
 * (COMMAND DOCS answers Redis's own docs, redis_docs.c). */
const struct command string_commands[] = {
    {.name = "get", .proc = cmd_get, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "set", .proc = cmd_set, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "setnx", .proc = cmd_setnx, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "setex", .proc = cmd_setex, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "psetex", .proc = cmd_psetex, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "getset", .proc = cmd_getset, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "getdel", .proc = cmd_getdel, .arity = 2, .flags = CMD_WRITE | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "getex", .proc = cmd_getex, .arity = -2, .flags = CMD_WRITE | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "mget", .proc = cmd_mget, .arity = -2, .flags = CMD_READONLY | CMD_FAST,
     .first_key = 1, .last_key = -1, .key_step = 1, .group = "string"},
    {.name = "mset", .proc = cmd_mset, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM,
     .first_key = 1, .last_key = -1, .key_step = 2, .group = "string"},
    {.name = "msetnx", .proc = cmd_msetnx, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM,
     .first_key = 1, .last_key = -1, .key_step = 2, .group = "string"},
    {.name = "append", .proc = cmd_append, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "strlen", .proc = cmd_strlen, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "getrange", .proc = cmd_getrange, .arity = 4, .flags = CMD_READONLY,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "substr", .proc = cmd_getrange, .arity = 4, .flags = CMD_READONLY,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "setrange", .proc = cmd_setrange, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "incr", .proc = cmd_incr, .arity = 2, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "decr", .proc = cmd_decr, .arity = 2, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "incrby", .proc = cmd_incrby, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "decrby", .proc = cmd_decrby, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {.name = "incrbyfloat", .proc = cmd_incrbyfloat, .arity = 3,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "string"},
    {0},
};
