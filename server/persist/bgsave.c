/*
 * bgsave.c - when snapshots are taken: SAVE and BGSAVE's work, the `save`
 * rules checked by the cron, the save at shutdown, loading at start (rbkv's
 * snapshot, or a Redis RDB file told apart by its magic), and the
 * MISCONF refusal after a failed background save (bgsave.h).
 *
 * Owns: the BGSAVE child process (at most one) and the persistence state
 * below. The file format and the atomic write are snapshot.c's.
 *
 * BGSAVE forks; the child shares the keyspace copy-on-write, closes its
 * copies of the listening sockets (so a killed parent frees its port), writes
 * the snapshot and leaves with _exit, never returning into libuv. The parent
 * learns how it went from the cron, by waitpid(WNOHANG): no handle, no signal
 * handler. Writes the parent serves meanwhile are counted in server.dirty and
 * stay counted after the save, which only took those before the fork.
 */
#include "bgsave.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "childinfo.h"
#include "clock.h"
#include "latency.h"
#include "keyspace.h"
#include "mem.h"
#include "log.h"
#include "rdb_file.h"
#include "server.h"
#include "snapshot.h"

/* After a failed background save, rules wait this long before trying again
 * (Redis's CONFIG_BGSAVE_RETRY_DELAY), so a full disk is not hammered. */
#define BGSAVE_RETRY_DELAY_S 5

/* The state lives here, not in struct server, because server.h is shared
 * with work in flight; it belongs there once that settles. */
static struct {
    pid_t child;                       /* the BGSAVE child, 0 when none */
    struct child_info info;            /* its pipe and start */
    size_t keys_at_fork;               /* what it has to write */
    unsigned long long dirty_at_fork;
    long long last_bgsave_time_s;      /* how long the last one took, -1 none yet */
    size_t last_cow_bytes;             /* what copy-on-write the last one cost */
    unsigned long long saves;          /* good saves, SAVE's and BGSAVE's (INFO's rdb_saves) */
    long long last_save_s;             /* LASTSAVE */
    long long last_try_s;              /* the last BGSAVE attempt */
    int last_bgsave_ok;
} persist = {.last_bgsave_ok = 1, .last_bgsave_time_s = -1, .info.fd = -1};

static long long now_s(void)
{
    return mstime() / 1000;
}

void persist_snap_limits(struct snap_limits *lim)
{
    const struct config *cfg = &server.cfg;
    lim->hash.entries = (size_t)cfg->hash_max_listpack_entries;
    lim->hash.value = (size_t)cfg->hash_max_listpack_value;
    lim->hash.int_entries = 0;
    lim->set.entries = (size_t)cfg->set_max_listpack_entries;
    lim->set.value = (size_t)cfg->set_max_listpack_value;
    lim->set.int_entries = (size_t)cfg->set_max_intset_entries;
    lim->list.max_listpack_size = (long)cfg->list_max_listpack_size;
    lim->key_delay = cfg->key_load_delay;
}

int persist_load(void)
{
    struct snap_limits lim;
    char err[512];
    int absent;
    int64_t start = mstime();
    persist.last_save_s = now_s();
    persist_snap_limits(&lim);
    long long n;
    if (rdb_file_sniff(server.cfg.dbfilename)) {
        /* A Redis dump.rdb, told apart by its magic: how data moves in. */
        log_notice("Loading the Redis RDB file %s", server.cfg.dbfilename);
        struct rdb_file_opts o = {.lim = {.list = lim.list, .hash = lim.hash, .set = lim.set},
                                  .clock = ks_access_clock_in_use(),
                                  .now_ms = mstime(),
                                  .verbose = 1};
        absent = 0;
        n = rdb_file_load(server.ks, server.cfg.dbfilename, &o, err, sizeof(err));
    } else {
        log_notice("Loading the snapshot %s", server.cfg.dbfilename);
        n = snap_load(server.ks, server.cfg.dbfilename, &lim, &absent, err, sizeof(err));
    }
    if (n < 0) {
        log_warning("%s. Refusing to start: move or repair the file, it is left as it is.", err);
        return -1;
    }
    if (absent)
        log_notice("No snapshot %s to load: starting empty", server.cfg.dbfilename);
    else
        log_notice("DB loaded from disk: %lld keys in %.3f seconds", n,
                   (double)(mstime() - start) / 1000.0);
    return 0;
}

static void saved(void)
{
    server.dirty = 0;
    persist.last_save_s = now_s();
    persist.last_bgsave_ok = 1;
    persist.saves++;
}

int persist_save(void)
{
    char err[512];
    if (snap_save(server.ks, server.cfg.dbfilename, mstime(), err, sizeof(err)) < 0) {
        log_warning("%s", err);
        return -1;
    }
    log_notice("DB saved on disk");
    saved();
    return 0;
}

static void child_main(void)
{
    char err[512];
    server_child_close_listeners();
    int rc = snap_save(server.ks, server.cfg.dbfilename, mstime(), err, sizeof(err));
    if (rc < 0)
        log_warning("%s", err);
    else
        log_notice("DB saved on disk");
    log_notice("Snapshot: %zu MB of memory used by copy-on-write", mem_private_dirty(0) >> 20);
    child_info_send(&persist.info);
    _exit(rc < 0 ? 1 : 0);
}

int persist_bgsave(void)
{
    persist.last_try_s = now_s();
    int64_t fork_start = ustime();
    pid_t pid = child_info_fork(&persist.info);
    if (pid < 0) {
        log_warning("Can't save in background: fork: %s", strerror(errno));
        persist.last_bgsave_ok = 0;
        return -1;
    }
    if (pid == 0)
        child_main();
    latency_add_since(server.cfg.latency_monitor_threshold, "fork", fork_start);
    log_notice("Background saving started by pid %ld", (long)pid);
    persist.child = pid;
    persist.dirty_at_fork = server.dirty;
    persist.keys_at_fork = 0;
    for (int i = 0; i < server.ks->count; i++)
        persist.keys_at_fork += ks_count(&server.ks->dbs[i]);
    return 0;
}

static void child_done(int status)
{
    persist.last_bgsave_time_s = (mstime() - persist.info.start_ms) / 1000;
    persist.last_cow_bytes = child_info_receive(&persist.info);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        log_notice("Background saving terminated with success");
        server.dirty -= persist.dirty_at_fork;
        persist.last_save_s = now_s();
        persist.last_bgsave_ok = 1;
        persist.saves++;
    } else {
        char tmp[4096];
        if (WIFSIGNALED(status))
            log_warning("Background saving terminated by signal %d", WTERMSIG(status));
        else
            log_warning("Background saving error");
        /* A killed child cannot remove its own temp file. */
        snap_temp_name(tmp, sizeof(tmp), server.cfg.dbfilename, (long)persist.child);
        unlink(tmp);
        persist.last_bgsave_ok = 0;
    }
    persist.child = 0;
}

void persist_cron(void)
{
    int status;
    if (persist.child) {
        pid_t r = waitpid(persist.child, &status, WNOHANG);
        if (r == persist.child)
            child_done(status);
        return;
    }
    long long now = now_s();
    for (int i = 0; i < server.cfg.save_count; i++) {
        const struct save_param *p = &server.cfg.save_params[i];
        if (server.dirty >= (unsigned long long)p->changes && now - persist.last_save_s > p->seconds &&
            (persist.last_bgsave_ok || now - persist.last_try_s > BGSAVE_RETRY_DELAY_S)) {
            log_notice("%lld changes in %lld seconds. Saving...", p->changes, p->seconds);
            persist_bgsave();
            return;
        }
    }
}

void persist_kill_child(void)
{
    if (!persist.child)
        return;
    char tmp[4096];
    log_warning("There is a child saving a snapshot. Killing it!");
    kill(persist.child, SIGKILL);
    waitpid(persist.child, NULL, 0);
    child_info_receive(&persist.info);
    snap_temp_name(tmp, sizeof(tmp), server.cfg.dbfilename, (long)persist.child);
    unlink(tmp);
    persist.child = 0;
}

int persist_shutdown(enum persist_shutdown_mode mode)
{
    persist_kill_child();
    if (mode == PERSIST_NOSAVE || (mode == PERSIST_DEFAULT && !server.cfg.save_count))
        return 0;
    log_notice("Saving the final snapshot before exiting.");
    if (persist_save() < 0) {
        log_warning("Error trying to save the DB, can't exit.");
        return -1;
    }
    return 0;
}

pid_t persist_child_pid(void)
{
    return persist.child;
}

int persist_writes_refused(void)
{
    return server.cfg.stop_writes_on_bgsave_error && server.cfg.save_count &&
           !persist.last_bgsave_ok;
}

void persist_get_status(struct persist_status *st)
{
    st->last_save_time = persist.last_save_s;
    st->bgsave_in_progress = persist.child != 0;
    st->last_bgsave_ok = persist.last_bgsave_ok;
    st->last_bgsave_time_s = persist.last_bgsave_time_s;
    st->current_bgsave_time_s = persist.child ? (mstime() - persist.info.start_ms) / 1000 : -1;
    st->last_cow_bytes = persist.last_cow_bytes;
    st->current_cow_bytes = child_info_current_cow(&persist.info, &st->current_cow_age_s);
    st->current_keys_total = persist.child ? persist.keys_at_fork : 0;
    st->saves = persist.saves;
}

void persist_reset_stats(void)
{
    persist.saves = 0;
}

