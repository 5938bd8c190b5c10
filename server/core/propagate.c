/*
 * propagate.c - a write's way to the log and the replicas (propagate.h).
 * The log is persist/'s, below core, called directly; the replicas' stream
 * is replication/'s, above core, reached through the feed it registered.
 *
 * Owns the writes held while a unit runs (Redis 7.0's also_propagate): a
 * copy of each command a unit's commands propagate, sent when the outermost
 * unit ends, inside MULTI/EXEC when there are more than one. A lone command
 * that propagates itself when nothing is held (the common write) is sent at
 * once, uncopied.
 */
#include "propagate.h"

#include <string.h>

#include "aof.h"
#include "blocking.h"
#include "keyspace.h"
#include "mem.h"
#include "notify.h"
#include "resp_parser.h"
#include "server.h"
#include "tracking.h"

static const struct propagate_feed *feed;

/* One held write: cmd NULL for words sent as they are; to_log 0 for one
 * that goes to the replicas only. argv and its bytes are one block. */
struct held {
    int db, argc, to_log, rbkv_only;
    const struct command *cmd;
    struct resp_slice *argv;
};

static struct {
    int depth;        /* units open (propagate_unit_begin), nested */
    struct held *held;
    size_t count, cap;
} unit;

void propagate_on_feed(const struct propagate_feed *f)
{
    feed = f;
}

/* Only a primary makes a stream of its own. */
static int feeds_stream(void)
{
    return feed && server.cfg.replicaof_host == NULL;
}

static void send_command(struct db *db, const struct command *cmd, int argc,
                         const struct resp_slice *argv)
{
    aof_feed(db, cmd, argc, argv);
    if (feeds_stream())
        feed->command(db, cmd, argc, argv);
}

static void send_argv(int db, int to_log, int rbkv_only, int argc,
                      const struct resp_slice *argv)
{
    if (to_log)
        aof_feed_argv(db, argc, argv);
    if (feeds_stream()) {
        feed->argv(db, argc, argv);
        if (rbkv_only)
            feed->rbkv_only();
    }
}

static void hold(int db, int to_log, int rbkv_only, const struct command *cmd, int argc,
                 const struct resp_slice *argv)
{
    size_t bytes = 0;
    for (int i = 0; i < argc; i++)
        bytes += argv[i].len;
    struct resp_slice *copy = xmalloc(sizeof(*copy) * (size_t)argc + bytes);
    char *p = (char *)(copy + argc);
    for (int i = 0; i < argc; i++) {
        memcpy(p, argv[i].ptr, argv[i].len);
        copy[i] = (struct resp_slice){p, argv[i].len};
        p += argv[i].len;
    }
    if (unit.count == unit.cap) {
        unit.cap = unit.cap ? unit.cap * 2 : 8;
        unit.held = xrealloc(unit.held, unit.cap * sizeof(*unit.held));
    }
    unit.held[unit.count++] = (struct held){db, argc, to_log, rbkv_only, cmd, copy};
}

/* The outermost unit ended: what it held goes out, as one transaction when
 * it is more than one write, as Redis's propagatePendingCommands does: its
 * MULTI and EXEC go to both the log and the stream, whichever of them the
 * writes between are for. */
static void send_held(void)
{
    int wrap = unit.count > 1;
    if (wrap) {
        aof_exec_begin(unit.held[0].db);
        if (feeds_stream())
            feed->exec_begin(unit.held[0].db);
    }
    for (size_t i = 0; i < unit.count; i++) {
        struct held *h = &unit.held[i];
        if (h->cmd)
            send_command(&server.ks->dbs[h->db], h->cmd, h->argc, h->argv);
        else
            send_argv(h->db, h->to_log, h->rbkv_only, h->argc, h->argv);
        xfree(h->argv);
    }
    /* Nothing stays allocated between units. */
    xfree(unit.held);
    unit.held = NULL;
    unit.count = unit.cap = 0;
    if (wrap) {
        aof_exec_end();
        if (feeds_stream())
            feed->exec_end();
    }
}

/* ks_expired_fn: a key removed for its deadline goes on as DEL key, and
 * fires "expired" when lazy or active expiry removed it. The entry still
 * holds the key's bytes here; publishing copies them, and nothing reads the
 * keyspace in between, so firing before the removal is the same as Redis's
 * firing after it. Removed by expiry, the DEL goes out at once, before the
 * command that met the key (Redis's propagateNow); removed by a command
 * given a deadline in the past (EXPIRE, GETEX), it is that command's own
 * propagation, as Redis rewrites it. */
static void expired(struct db *db, const char *key, size_t klen, int due)
{
    struct resp_slice argv[2] = {{"DEL", 3}, {key, klen}};
    /* A waiter learns its key is gone (a blocked XREADGROUP's error), as
     * from any deletion: after the command that met the key, or, removed
     * by the active cycle, after the next command. */
    block_signal_key(db, key, klen);
    /* Cached copies of it are stale, however it went (Redis signals the
     * key as modified). */
    tracking_invalidate_key(key, klen);
    /* A command that gave a deadline in the past fires "del" itself. */
    if (due) {
        notify_keyspace_event(NOTIFY_EXPIRED, "expired", key, klen, db->id);
        propagate_argv(db->id, 2, argv);
    } else {
        propagate_effects(db->id, 2, argv);
    }
}

void propagate_init(void)
{
    ks_on_expired(expired);
}

void propagate_command(struct db *db, const struct command *cmd, int argc,
                       const struct resp_slice *argv)
{
    if (unit.depth > 1 || unit.count)
        hold(db->id, 1, 0, cmd, argc, argv);
    else
        send_command(db, cmd, argc, argv);
}

void propagate_argv(int db, int argc, const struct resp_slice *argv)
{
    send_argv(db, 1, 0, argc, argv);
}

static void effect(int db, int rbkv_only, int argc, const struct resp_slice *argv)
{
    server.effects_propagated++;
    if (unit.depth)
        hold(db, 1, rbkv_only, NULL, argc, argv);
    else
        send_argv(db, 1, rbkv_only, argc, argv);
}

void propagate_effects(int db, int argc, const struct resp_slice *argv)
{
    effect(db, 0, argc, argv);
}

void propagate_rbkv_effect(int db, int argc, const struct resp_slice *argv)
{
    effect(db, 1, argc, argv);
}

int propagate_plain_wanted(void)
{
    return feeds_stream() && feed->kept() && feed->plain();
}

void propagate_to_replicas(int db, int argc, const struct resp_slice *argv)
{
    if (!feeds_stream() || !feed->kept())
        return;
    /* PUBLISH is no write, so it opens no unit of its own: one open is an
     * EXEC's or a script's, whose other writes it goes out with. */
    if (unit.depth)
        hold(db, 0, 0, NULL, argc, argv);
    else
        send_argv(db, 0, 0, argc, argv);
}

int propagate_wanted(void)
{
    return aof_enabled() || (feeds_stream() && feed->kept());
}

void propagate_unit_begin(void)
{
    unit.depth++;
}

void propagate_unit_end(void)
{
    if (--unit.depth == 0 && unit.count)
        send_held();
}
