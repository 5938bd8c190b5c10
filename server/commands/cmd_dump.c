/*
 * cmd_dump.c - DUMP, RESTORE and RESTORE-ASKING: a key's value in Redis
 * 7.0's DUMP payload (persist/rdb_dump.h), so values move between rbkv and
 * redis-server either way.
 *
 * Owns: dump_commands[]. The payloads are built and read by persist's
 * codec; this file owns the command's rules, which are Redis 7.0's
 * (cluster.c's restoreCommand): options first, then the key's absence, the
 * TTL, the trailer, the body, each with Redis's error; nothing changes
 * before every check passed; a TTL relative to now is propagated as an
 * absolute one with ABSTTL, and a restore whose deadline is already past
 * deletes the key (REPLACE) and propagates as DEL.
 */
#include <limits.h>
#include <stdint.h>

#include "acl.h"
#include "args.h"
#include "blocking.h"
#include "client.h"
#include "cmd_dump.h"
#include "cmd_list.h"
#include "coll.h"
#include "evict.h"
#include "keyaccess.h"
#include "keyspace.h"
#include "mem.h"
#include "notify.h"
#include "propagate.h"
#include "rdb_dump.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "server.h"

/* sanitize-dump-payload's values, in config.c's order. */
enum sanitize { SANITIZE_NO, SANITIZE_YES, SANITIZE_CLIENTS };

static void cmd_dump(struct client *c)
{
    struct ks_entry *e = lookup_read(c, &c->argv[1]);
    if (!e) {
        resp_add_null(&c->out);
        return;
    }
    size_t len;
    char *payload = rdb_dump_payload(e, &len);
    resp_add_bulk(&c->out, payload, len);
    xfree(payload);
}

/* Whether this restore validates as Redis's deep sanitization does: always
 * (yes), never (no), or for clients but not the primary's link nor a load
 * (clients). */
static int deep_sanitize(const struct client *c)
{
    switch (server.cfg.sanitize_dump_payload) {
    case SANITIZE_YES:
        return 1;
    case SANITIZE_CLIENTS: /* and not for a user with skip-sanitize-payload */
        return !(c->flags & CLIENT_MASTER) && server.loading == LOADING_NONE &&
               !(c->user && (c->user->flags & ACL_USER_SKIP_SANITIZE));
    default:
        return 0;
    }
}

struct restore_opts {
    int replace, absttl;
    long long idle, freq; /* -1: not given */
};

static int restore_opts_or_reply(struct client *c, struct restore_opts *o)
{
    *o = (struct restore_opts){.idle = -1, .freq = -1};
    for (int j = 4; j < c->argc; j++) {
        int more = c->argc - j - 1;
        if (arg_is(&c->argv[j], "REPLACE")) {
            o->replace = 1;
        } else if (arg_is(&c->argv[j], "ABSTTL")) {
            o->absttl = 1;
        } else if (arg_is(&c->argv[j], "IDLETIME") && more >= 1 && o->freq == -1) {
            if (arg_ll_or_reply(c, &c->argv[++j], &o->idle) < 0)
                return -1;
            if (o->idle < 0) {
                resp_add_error(&c->out, "ERR Invalid IDLETIME value, must be >= 0");
                return -1;
            }
        } else if (arg_is(&c->argv[j], "FREQ") && more >= 1 && o->idle == -1) {
            if (arg_ll_or_reply(c, &c->argv[++j], &o->freq) < 0)
                return -1;
            if (o->freq < 0 || o->freq > 255) {
                resp_add_error(&c->out, "ERR Invalid FREQ value, must be >= 0 and <= 255");
                return -1;
            }
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return -1;
        }
    }
    return 0;
}

/* The thresholds restored values are built under. */
static void restore_limits(struct rdb_limits *lim)
{
    list_limits(&lim->list);
    coll_limits(KS_HASH, &lim->hash);
    coll_limits(KS_SET, &lim->set);
}

/* A relative TTL goes on as the deadline it gave, with ABSTTL added, as
 * Redis rewrites it, so a replay ends at the same time. */
static void propagate_absttl(struct client *c, long long when)
{
    struct resp_slice *argv = xmalloc(sizeof(*argv) * ((size_t)c->argc + 1));
    char ms[RESP_LL_CHARS];
    memcpy(argv, c->argv, sizeof(*argv) * (size_t)c->argc);
    argv[2] = (struct resp_slice){ms, resp_format_ll(ms, when)};
    argv[c->argc] = (struct resp_slice){"ABSTTL", 6};
    propagate_effects(c->db_index, c->argc + 1, argv);
    xfree(argv);
}

static void cmd_restore(struct client *c)
{
    const struct resp_slice *key = &c->argv[1], *payload = &c->argv[3];
    struct restore_opts o;
    long long ttl;

    if (restore_opts_or_reply(c, &o) < 0)
        return;
    if (!o.replace && lookup_write(c, key)) {
        resp_add_error(&c->out, "BUSYKEY Target key name already exists.");
        return;
    }
    if (arg_ll_or_reply(c, &c->argv[2], &ttl) < 0)
        return;
    if (ttl < 0) {
        resp_add_error(&c->out, "ERR Invalid TTL value, must be >= 0");
        return;
    }
    if (rdb_dump_verify(payload->ptr, payload->len) < 0) {
        resp_add_error(&c->out, "ERR DUMP payload version or checksum are wrong");
        return;
    }
    struct rdb_limits lim;
    struct rdb_value v;
    const char *why;
    restore_limits(&lim);
    int rc = rdb_dump_read(payload->ptr, payload->len, &lim, deep_sanitize(c), &v, &why);
    if (rc < 0) {
        resp_add_error(&c->out, "ERR Bad data format");
        return;
    }

    struct ks_entry *old = o.replace ? lookup_write(c, key) : NULL;
    if (old)
        ks_delete(c->db, old);
    long long now = server.cmd_start_us / 1000;
    /* Redis adds without a check, and a sum past the range wraps negative
     * there: it then reads as already past, as here. */
    if (ttl && !o.absttl)
        ttl = (long long)((unsigned long long)ttl + (unsigned long long)now);
    if (ttl && ttl <= now && !ks_expiry_paused()) {
        rdb_value_release(&v);
        if (old) {
            notify_key(c, NOTIFY_GENERIC, "del", key);
            struct resp_slice del[2] = {{"DEL", 3}, *key};
            propagate_effects(c->db_index, 2, del);
            server.dirty++;
        }
        reply_ok(c);
        return;
    }

    struct ks_entry *e;
    if (v.type == KS_STRING) {
        e = ks_set_string(c->db, key->ptr, key->len, v.str.p, v.str.len, 0);
        rdb_value_release(&v);
    } else {
        e = ks_add_ptr(c->db, key->ptr, key->len, (enum ks_type)v.type, v.ptr);
    }
    if (ttl) {
        e = ks_set_expire(c->db, e, ttl);
        if (!o.absttl)
            propagate_absttl(c, ttl);
    }
    ka_restore(e, evict_clock(), o.freq, o.idle);
    block_signal_key(c->db, key->ptr, key->len);
    notify_key(c, NOTIFY_NEW, "new", key);
    notify_key(c, NOTIFY_GENERIC, "restore", key);
    server.dirty++;
    reply_ok(c);
}

const struct command dump_commands[] = {
    {.name = "dump", .proc = cmd_dump, .arity = 2, .flags = CMD_READONLY,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "generic"},
    {.name = "restore", .proc = cmd_restore, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "generic"},
    {.name = "restore-asking", .proc = cmd_restore, .arity = -4,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_ASKING,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "server"},
    {0},
};
