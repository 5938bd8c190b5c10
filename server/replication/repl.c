/*
 * repl.c - replication as a module of the server (repl.h): what it
 * registers with core at start, and the position (replication ID and
 * offset) a snapshot or the log records so a restart continues the history.
 *
 * The top of the folder: it sees both sides, repl_primary.c (serving
 * replicas) and repl_replica.c (following a primary), which share the
 * state and the stream (repl_stream.c) and are called by nothing below.
 */
#include "repl.h"

#include <stdio.h>
#include <string.h>

#include "aof.h"
#include "command.h"
#include "conn.h"
#include "evict.h"
#include "lifecycle.h"
#include "log.h"
#include "propagate.h"
#include "resp_parser.h"
#include "repl_failover.h"
#include "repl_primary.h"
#include "repl_replica.h"
#include "server.h"
#include "snapshot.h"

/* snap_repl_fn: a snapshot records where our history is, so a restart from
 * it continues it (PSYNC with this ID and offset). Not while the primary's
 * transaction is half applied: the offset counts its queued commands, the
 * data does not have them yet. */
static int snapshot_position_ok(void)
{
    return (repl.offset || server.cfg.replicaof_host) && !repl_replica_in_transaction();
}

static int snapshot_position(struct snap_repl *pos)
{
    if (!snapshot_position_ok())
        return 0;
    memcpy(pos->replid, repl.replid, sizeof(pos->replid));
    pos->offset = repl.offset;
    /* A primary's own stream starts with a SELECT after a restart. */
    pos->db = server.cfg.replicaof_host ? repl_replica_stream_db() : 0;
    return 1;
}

void repl_adopt_position(const char *replid, long long offset, int db)
{
    repl_adopt(replid, offset);
    repl_replica_resume_in(db);
    /* With a backlog, writes made here before any PSYNC move the offset on,
     * so this history cannot pass for the old one any more. */
    repl_backlog();
    log_notice("Replication position from the data loaded: replid %s offset %lld db %d",
               repl.replid, repl.offset, db);
}

void repl_restore_position(void)
{
    struct snap_repl pos;
    if (snap_loaded_repl(&pos))
        repl_adopt_position(pos.replid, pos.offset, pos.db);
}

void repl_log_position(void)
{
    char off[24], db[16];
    struct snap_repl pos;
    if (!aof_enabled() || !snapshot_position(&pos))
        return;
    int n = snprintf(off, sizeof(off), "%lld", pos.offset);
    int m = snprintf(db, sizeof(db), "%d", pos.db);
    struct resp_slice argv[5] = {{"REPLCONF", 8}, {"POSITION", 8}, {pos.replid, 40},
                                 {off, (size_t)n}, {db, (size_t)m}};
    aof_feed_argv(0, 5, argv);
}

/* ---- what replication registers with core (its hooks: command.h,
 * propagate.h, conn.h, server.h) ---- */

static const struct propagate_feed stream_feed = {
    .command = repl_feed_command,
    .argv = repl_feed_argv,
    .exec_begin = repl_exec_begin,
    .exec_end = repl_exec_end,
    .kept = repl_stream_kept,
    .plain = repl_stream_plain,
    .rbkv_only = repl_stream_rbkv_only,
};

static const struct command_write_gate write_gate = {
    .link_up = repl_replica_link_up,
    .refuses_writes = repl_primary_refuses_writes,
};

static void cron(void)
{
    repl_primary_cron();
    repl_replica_cron();
}

static void shutdown_links(void)
{
    repl_failover_close();
    repl_primary_shutdown();
    repl_cleanup();
}

static int owns_child(int pid)
{
    return pid == repl_primary_child_pid();
}

static const struct server_module lifetime = {
    .cron = cron,
    .close_links = repl_replica_close,
    .shutdown = shutdown_links,
    .stopped = repl_log_position,
    .owns_child = owns_child,
    .replicas_behind = repl_primary_behind,
    .ask_acks = repl_primary_ask_acks,
};

void repl_init(void)
{
    repl_stream_init();
    repl_failover_init();
    snap_on_write_repl(snapshot_position);
    propagate_on_feed(&stream_feed);
    command_on_write_gate(&write_gate);
    conn_on_gone(repl_peer_gone);
    evict_on_replica_held(repl_held_memory);
    server_add_module(&lifetime);
}
