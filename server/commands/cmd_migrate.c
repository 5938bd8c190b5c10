/*
 * cmd_migrate.c - MIGRATE: keys moved to another server (rbkv or
 * redis-server) as RESTORE commands carrying their DUMP payloads
 * (persist/rdb_dump.h), Redis 7.0's migrateCommand.
 *
 * Owns the command's rules; the connections are migrate_link.c's. The
 * request runs to its end inside the handler, the loop waiting, bounded by
 * the timeout per connect, write and reply, exactly as Redis: the keys can
 * then not change between their DUMP and their DEL, and redis-cli --cluster
 * finds the keys gone when MIGRATE answers (docs/cluster.md, "MIGRATE and
 * the loop", says why this is the one command allowed to wait).
 *
 * Order, as Redis: options (syntax errors), the timeout and the database,
 * the keys that exist (+NOKEY when none), the connection (-IOERR), then one
 * write of [AUTH] [SELECT] and a RESTORE (RESTORE-ASKING in cluster mode) per
 * key, then the replies in order. A key the target took is deleted here
 * unless COPY, and the deletions go to the log and the replicas as one DEL;
 * the first error the target sent is the reply. A failed socket with nothing
 * read yet is retried once on a new connection, unless it timed out.
 */
#include <errno.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "cmd_migrate.h"
#include "command.h"
#include "keyspace.h"
#include "mem.h"
#include "migrate_link.h"
#include "notify.h"
#include "propagate.h"
#include "rdb_dump.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "server.h"
#include "watch.h"

/* Replies are single lines: AUTH's, SELECT's and RESTORE's. Redis reads
 * them into 1024 bytes too. */
#define MIGRATE_LINE_MAX 1024

struct migrate_req {
    int copy, replace;
    /* Copies of the slices, which the redaction replaces in argv. */
    struct resp_slice username, password;
    int has_username, has_password;
    int first_key, num_keys;
    long long timeout, dbid;
};

static int migrate_opts_or_reply(struct client *c, struct migrate_req *r)
{
    *r = (struct migrate_req){.first_key = 3, .num_keys = 1};
    for (int j = 6; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        if (arg_is(&c->argv[j], "COPY")) {
            r->copy = 1;
        } else if (arg_is(&c->argv[j], "REPLACE")) {
            r->replace = 1;
        } else if (arg_is(&c->argv[j], "AUTH")) {
            if (more < 1)
                goto syntax;
            r->password = c->argv[++j];
            r->has_password = 1;
            command_redact_arg(c, j);
        } else if (arg_is(&c->argv[j], "AUTH2")) {
            if (more < 2)
                goto syntax;
            r->username = c->argv[++j];
            command_redact_arg(c, j);
            r->password = c->argv[++j];
            command_redact_arg(c, j);
            r->has_username = r->has_password = 1;
        } else if (arg_is(&c->argv[j], "KEYS")) {
            if (c->argv[3].len != 0) {
                resp_add_error(&c->out, "ERR When using MIGRATE KEYS option, the key argument "
                                        "must be set to the empty string");
                return -1;
            }
            r->first_key = j + 1;
            r->num_keys = c->argc - j - 1;
            break;
        } else {
            goto syntax;
        }
    }
    if (arg_ll_or_reply(c, &c->argv[5], &r->timeout) < 0 ||
        arg_ll_or_reply(c, &c->argv[4], &r->dbid) < 0)
        return -1;
    if (r->timeout <= 0)
        r->timeout = 1000;
    return 0;
syntax:
    resp_add_error(&c->out, ERR_SYNTAX);
    return -1;
}

/* The requests for the keys keys[0..n): AUTH and SELECT when needed, then a
 * RESTORE per key still alive, with its TTL from now. Keys whose deadline
 * passed since they were found are dropped from keys; returns how many
 * remain, or -1 after an error reply (a value DUMP cannot encode). */
static int migrate_build_or_reply(struct client *c, const struct migrate_req *r, int need_select,
                                  struct resp_slice *keys, int n, struct resp_out *out)
{
    if (r->has_password) {
        struct resp_slice auth[3] = {{"AUTH", 4}};
        int argc = 1;
        if (r->has_username)
            auth[argc++] = r->username;
        auth[argc++] = r->password;
        resp_add_command(out, argc, auth);
    }
    if (need_select) {
        char db[RESP_LL_CHARS];
        struct resp_slice sel[2] = {{"SELECT", 6}, {db, resp_format_ll(db, r->dbid)}};
        resp_add_command(out, 2, sel);
    }
    long long now = server.cmd_start_us / 1000;
    int kept = 0;
    for (int j = 0; j < n; j++) {
        struct ks_entry *e = ks_lookup(c->db, keys[j].ptr, keys[j].len, now);
        if (!e)
            continue; /* gone since it was found: Redis skips an expired one */
        long long ttl = 0, when = ks_get_expire(e);
        if (when != -1) {
            ttl = when - now;
            if (ttl < 1)
                ttl = 1;
        }
        size_t plen;
        char *payload = rdb_dump_payload(e, &plen);
        if (!payload) {
            resp_add_error(&c->out, "ERR DUMP of stream values is not supported yet");
            return -1;
        }
        char ttlbuf[RESP_LL_CHARS];
        struct resp_slice restore[5] = {
            server.cfg.cluster_enabled ? (struct resp_slice){"RESTORE-ASKING", 14}
                                       : (struct resp_slice){"RESTORE", 7},
            keys[j],
            {ttlbuf, resp_format_ll(ttlbuf, ttl)},
            {payload, plen},
            {"REPLACE", 7},
        };
        resp_add_command(out, r->replace ? 5 : 4, restore);
        xfree(payload);
        keys[kept++] = keys[j];
    }
    return kept;
}

static int migrate_send(struct migrate_link *l, struct resp_out *out, long long timeout)
{
    struct resp_iov iov[16];
    while (resp_out_pending(out)) {
        int n = resp_out_peek(out, iov, 16);
        for (int i = 0; i < n; i++) {
            if (sync_conn_write(&l->conn, iov[i].base, iov[i].len, timeout) < 0)
                return -1;
            resp_out_consume(out, iov[i].len);
        }
    }
    return 0;
}

/* A key the target took: gone here, unless COPY. */
static void migrate_delete(struct client *c, const struct resp_slice *key)
{
    struct ks_entry *e = ks_lookup(c->db, key->ptr, key->len, server.cmd_start_us / 1000);
    if (!e)
        return; /* a key named twice in KEYS */
    ks_delete(c->db, e);
    watch_touch(c->db, key->ptr, key->len);
    notify_key(c, NOTIFY_GENERIC, "del", key);
    server.dirty++;
}

static void cmd_migrate(struct client *c)
{
    struct migrate_req r;
    if (migrate_opts_or_reply(c, &r) < 0)
        return;

    /* The keys here; none: nothing to do, and no error, as a key may just
     * have expired. */
    struct resp_slice *keys = xmalloc(sizeof(*keys) * ((size_t)r.num_keys + 1));
    int n = 0;
    for (int j = 0; j < r.num_keys; j++)
        if (lookup_read(c, &c->argv[r.first_key + j]))
            keys[n++] = c->argv[r.first_key + j];
    if (n == 0) {
        xfree(keys);
        resp_add_simple(&c->out, "NOKEY");
        return;
    }

    /* del[0] is "DEL", then each key the target took, for the propagation. */
    struct resp_slice *del = xmalloc(sizeof(*del) * ((size_t)n + 1));
    struct resp_out out;
    resp_out_init(&out);
    int may_retry = 1, write_error, io_errno = 0;
again:
    write_error = 0;
    struct migrate_link *l = migrate_link_get(c->argv[1].ptr, c->argv[1].len, c->argv[2].ptr,
                                              c->argv[2].len, r.timeout);
    if (!l) {
        resp_add_error(&c->out, "IOERR error or timeout connecting to the client");
        goto done;
    }
    int need_select = l->last_dbid != r.dbid;
    resp_out_reset(&out);
    n = migrate_build_or_reply(c, &r, need_select, keys, n, &out);
    if (n < 0)
        goto done;
    if (migrate_send(l, &out, r.timeout) < 0) {
        write_error = 1;
        io_errno = errno;
        goto socket_err;
    }

    char auth_line[MIGRATE_LINE_MAX], select_line[MIGRATE_LINE_MAX], line[MIGRATE_LINE_MAX];
    struct sync_conn *conn = &l->conn;
    if ((r.has_password && sync_conn_read_line(conn, auth_line, MIGRATE_LINE_MAX, r.timeout) < 0) ||
        (need_select && sync_conn_read_line(conn, select_line, MIGRATE_LINE_MAX, r.timeout) < 0)) {
        io_errno = errno;
        goto socket_err;
    }

    int target_error = 0, socket_error = 0, ndel = 1, j;
    for (j = 0; j < n; j++) {
        if (sync_conn_read_line(conn, line, sizeof(line), r.timeout) < 0) {
            socket_error = 1;
            io_errno = errno;
            break;
        }
        const char *err = r.has_password && auth_line[0] == '-'  ? auth_line
                          : need_select && select_line[0] == '-' ? select_line
                          : line[0] == '-'                  ? line
                                                            : NULL;
        if (err) {
            if (!target_error) {
                target_error = 1;
                l->last_dbid = -1; /* the SELECT may not have happened */
                resp_add_errorf(&c->out, "ERR Target instance replied with error: %s", err + 1);
            }
        } else if (!r.copy) {
            migrate_delete(c, &keys[j]);
            del[ndel++] = keys[j];
        }
    }
    /* Nothing was read, so nothing happened there: a cached connection the
     * target closed meanwhile is worth one more try. */
    if (!target_error && socket_error && j == 0 && may_retry && io_errno != ETIMEDOUT)
        goto socket_err;
    if (socket_error)
        migrate_link_close(l);
    if (ndel > 1) {
        del[0] = (struct resp_slice){"DEL", 3};
        propagate_effects(c->db_index, ndel, del);
    }
    if (!target_error && socket_error) {
        may_retry = 0;
        l = NULL;
        goto socket_err;
    }
    if (!target_error) {
        l->last_dbid = r.dbid;
        reply_ok(c);
    }
    goto done;

socket_err:
    if (l)
        migrate_link_close(l);
    if (io_errno != ETIMEDOUT && may_retry) {
        may_retry = 0;
        goto again;
    }
    resp_add_errorf(&c->out, "IOERR error or timeout %s to target instance",
                    write_error ? "writing" : "reading");
done:
    resp_out_destroy(&out);
    xfree(del);
    xfree(keys);
}

const struct command migrate_commands[] = {
    {.name = "migrate", .proc = cmd_migrate, .arity = -6,
     .flags = CMD_WRITE | CMD_MOVABLE_KEYS | CMD_TOUCHES_OWN_KEYS,
     .first_key = 3, .last_key = 3, .key_step = 1,
     .group = "generic"},
    {0},
};
