/*
 * propagate.c - a write's way to the log and the replicas (propagate.h).
 * The log is persist/'s, below core, called directly; the replicas' stream
 * is replication/'s, above core, reached through the feed it registered.
 */
#include "propagate.h"

#include "aof.h"
#include "keyspace.h"
#include "notify.h"
#include "resp_parser.h"
#include "server.h"

static const struct propagate_feed *feed;

void propagate_on_feed(const struct propagate_feed *f)
{
    feed = f;
}

/* Only a primary makes a stream of its own. */
static int feeds_stream(void)
{
    return feed && server.cfg.replicaof_host == NULL;
}

/* ks_expired_fn: a key removed for its deadline goes on as DEL key, and
 * fires "expired" when lazy or active expiry removed it. The entry still holds the key's bytes here; publishing copies
 * them, and nothing reads the keyspace in between, so firing before the
 * removal is the same as Redis's firing after it. */
static void expired(struct db *db, const char *key, size_t klen, int due)
{
    struct resp_slice argv[2] = {{"DEL", 3}, {key, klen}};
    /* A command that gave a deadline in the past fires "del" itself. */
    if (due)
        notify_keyspace_event(NOTIFY_EXPIRED, "expired", key, klen, db->id);
    propagate_argv(db->id, 2, argv);
}

void propagate_init(void)
{
    ks_on_expired(expired);
}

void propagate_command(struct db *db, const struct command *cmd, int argc,
                       const struct resp_slice *argv)
{
    aof_feed(db, cmd, argc, argv);
    if (feeds_stream())
        feed->command(db, cmd, argc, argv);
}

void propagate_argv(int db, int argc, const struct resp_slice *argv)
{
    aof_feed_argv(db, argc, argv);
    if (feeds_stream())
        feed->argv(db, argc, argv);
}

void propagate_effects(int db, int argc, const struct resp_slice *argv)
{
    server.effects_propagated++;
    propagate_argv(db, argc, argv);
}

void propagate_to_replicas(int db, int argc, const struct resp_slice *argv)
{
    if (feeds_stream())
        feed->argv(db, argc, argv);
}

void propagate_exec_begin(void)
{
    aof_exec_begin();
    if (feed)
        feed->exec_begin();
}

void propagate_exec_end(void)
{
    aof_exec_end();
    if (feed)
        feed->exec_end();
}
