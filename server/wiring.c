/*
 * wiring.c - the start-up that puts the layers together (wiring.h).
 *
 * Core knows no layer above it, so what connects them lives here, above
 * them all, next to main.c: the order of start-up (core's server_init, the
 * subsystems' inits, the load, core's server_serve), and the one hook a
 * layer below core cannot register itself: persist/ knows no connection,
 * so the append-only log's group commit (persist/group_commit.h) reaches
 * the transport (conn.h, struct conn_log) from here. Scripting, replication and cluster
 * register their own hooks in script_init, repl_init and cluster_init. docs/internals.md, "Layers".
 */
#include "wiring.h"

#include "aof.h"
#include "bgsave.h"
#include "cluster_start.h"
#include "conn.h"
#include "functions.h"
#include "group_commit.h"
#include "lifecycle.h"
#include "mem.h"
#include "repl.h"
#include "repl_replica.h"
#include "replay.h"
#include "script.h"
#include "server.h"

static const struct conn_log append_only_log = {
    .mark = group_commit_mark,
    .after = group_commit_after,
    .sync = group_commit_sync,
};

/* The dataset from the append-only log when it is on (its replay may end
 * in a snapshot preamble, rc 1), else from the snapshot; then the
 * functions it held. Returns 0 or -1 (logged). */
static int load_dataset(void)
{
    if (server.cfg.appendonly) {
        struct replay *replay = replay_new();
        int rc = aof_load(replay_command, replay);
        char replid[41];
        long long offset;
        int db;
        if (rc == 0 && replay_position(replay, replid, &offset, &db))
            repl_adopt_position(replid, offset, db);
        replay_free(replay);
        if (rc < 0 || (rc == 1 && (persist_load() < 0 || fn_install_loaded() < 0)) ||
            aof_open() < 0)
            return -1;
        return 0;
    }
    return persist_load() < 0 || fn_install_loaded() < 0 ? -1 : 0;
}

int wiring_start(void)
{
    if (server_init() < 0)
        return -1;
    repl_random_hex(server.run_id);
    group_commit_init(conn_release_held);
    conn_on_log(&append_only_log);
    repl_init();
    repl_replica_init();
    mem_mark_startup();
    script_init();
    fn_init();
    if (server.cfg.cluster_enabled && cluster_init() < 0)
        return -1;
    if (load_dataset() < 0)
        return -1;
    repl_restore_position();
    if (server_serve() < 0)
        return -1;
    if (server.cfg.replicaof_host)
        repl_replica_start();
    return 0;
}
