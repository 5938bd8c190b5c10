/*
 * server.c - the server's lifetime: start-up, the cron timer (active expiry,
 * client timeouts, snapshot rules), signals and shutdown.
 *
 * Active expiry runs in slices of at most EXPIRE_SLICE_US so that a burst of
 * keys expiring together never holds the loop for long: when a slice runs out
 * of time it schedules the next one a millisecond later, and clients are
 * served in between. Until then lookups still hide due keys (lazy expiry).
 */
#include "acl.h"
#include "script.h"
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aof.h"
#include "bgsave.h"
#include "clock.h"
#include "latency.h"
#include "command.h"
#include "conn.h"
#include "keyspace.h"
#include "evict.h"
#include "functions.h"
#include "lazyfree.h"
#include "log.h"
#include "mem.h"
#include "monitor.h"
#include "pause.h"
#include "propagate.h"
#include "pubsub.h"
#include "repl.h"
#include "repl_primary.h"
#include "repl_replica.h"
#include "replay.h"
#include "stream.h"
#include "tls.h"

#define EXPIRE_SLICE_US 1000
#define EXPIRE_BATCH 64 /* keys between two looks at the clock */

struct server server;

static uv_timer_t expire_timer;
static int started; /* server_start got as far as serving */

/* Keys past their deadline that a slice out of time left, in % of the keys
 * with one: Redis's expired_stale_perc, which it estimates from samples.
 * Here the earliest deadlines come first, so only a slice that ran out of
 * time leaves any; they are counted up to STALE_COUNT_MAX. */
#define STALE_COUNT_MAX 1024
static double stale_perc(int64_t now_ms)
{
    size_t stale = 0, with_deadline = 0;
    for (int i = 0; i < server.ks->count; i++) {
        const struct db *db = &server.ks->dbs[i];
        with_deadline += db->expires_count;
        for (struct rb_node *n = rb_first_cached(&db->expires);
             n && stale < STALE_COUNT_MAX && rb_entry(n, struct ks_expire, node)->when <= now_ms;
             n = rb_next(n))
            stale++;
    }
    return with_deadline ? 100.0 * (double)stale / (double)with_deadline : 0.0;
}

/* Deletes due keys for at most EXPIRE_SLICE_US from start. Returns 1 when
 * keys are left. */
static int expire_due_keys(int64_t start)
{
    int64_t now_ms = start / 1000;
    /* CLIENT PAUSE: the dataset must not change under the pause. */
    if (pause_stops_writes() || server.active_expire_off)
        return 0;
    for (int i = 0; i < server.ks->count; i++) {
        struct db *db = &server.ks->dbs[i];
        while (db->expires_count) {
            size_t n = ks_expire_due(db, now_ms, EXPIRE_BATCH);
            if (n < EXPIRE_BATCH)
                break;
            if (ustime() - start > EXPIRE_SLICE_US)
                return 1;
        }
    }
    return 0;
}

/* A slice of active expiry: its figures for INFO stats, and its time for
 * the latency monitor as Redis's expire-cycle. */
static int expire_slice(void)
{
    int64_t start = ustime();
    int left = expire_due_keys(start);
    server.stats.expire_time_cap_reached += (unsigned long long)left;
    server.stats.expired_stale_perc = left ? stale_perc(start / 1000) : 0.0;
    server.stats.expire_cycle_us += (unsigned long long)(ustime() - start);
    latency_add_since(server.cfg.latency_monitor_threshold, "expire-cycle", start);
    return left;
}

static void expire_timer_cb(uv_timer_t *t)
{
    /* A busy script serves the loop: no key may expire under it (the
     * cron starts the slices again afterwards). */
    if (script_running())
        return;
    if (expire_slice())
        uv_timer_start(t, expire_timer_cb, 1, 0);
}

/* As PID 1 in a container the server is the parent of every orphan there
 * (a `docker exec` that left a process behind), and a zombie nobody reaps
 * stays forever. Exited children that are not ours are reaped here; ours
 * (BGSAVE, BGREWRITEAOF) are left to their owners, which need their status:
 * peeking (WNOWAIT) tells whose the next one is. Once one of ours is first,
 * the rest wait for the next tick, after its owner reaped it. */
static void reap_orphans(void)
{
    if (getpid() != 1)
        return;
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof(si));
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
            return;
        if (si.si_pid == persist_child_pid() || si.si_pid == aof_child_pid() ||
            si.si_pid == repl_primary_child_pid())
            return;
        waitpid(si.si_pid, NULL, WNOHANG);
    }
}

static void cron_cb(uv_timer_t *t)
{
    (void)t;
    /* Nothing of the cron runs under a busy script: expiry, saves, client
     * timeouts would all act in the middle of it (script.c). */
    if (script_running())
        return;
    server.cron_runs++;
    if (!uv_is_active((uv_handle_t *)&expire_timer) && expire_slice())
        uv_timer_start(&expire_timer, expire_timer_cb, 1, 0);
    conn_cron((int64_t)uv_now(server.loop));
    pause_cron(mstime());
    persist_cron();
    repl_primary_cron();
    repl_replica_cron();
    reap_orphans();
    mem_trim_cron((int64_t)uv_now(server.loop));
}

static void close_handle(uv_handle_t *h)
{
    /* A start that failed early (a bad snapshot, a taken port) leaves some
     * handles never initialised: zeroed, of no type, not ours to close. */
    if (h->type != UV_UNKNOWN_HANDLE && !uv_is_closing(h))
        uv_close(h, NULL);
}

void server_shutdown(void)
{
    if (server.shutting_down)
        return;
    server.shutting_down = 1;
    conn_close_listeners();
    repl_replica_close();
    conn_close_all();
    repl_primary_shutdown();
    repl_cleanup();
    pubsub_close();
    monitor_close();
    pause_close();
    lazyfree_close();
    close_handle((uv_handle_t *)&server.cron);
    close_handle((uv_handle_t *)&expire_timer);
    close_handle((uv_handle_t *)&server.sigterm);
    close_handle((uv_handle_t *)&server.sigint);
    repl_log_position();
    aof_close();
    if (started)
        log_warning("rbkv is now ready to exit, bye bye...");
    else
        log_warning("rbkv could not start (see above); exiting.");
}

static void signal_cb(uv_signal_t *s, int signum)
{
    (void)s;
    log_warning("Received %s scheduling shutdown...", signum == SIGINT ? "SIGINT" : "SIGTERM");
    log_warning("User requested shutdown...");
    if (persist_shutdown(PERSIST_DEFAULT) < 0) {
        log_warning("%s received but errors trying to shut down the server, check the logs for "
                    "more information", signum == SIGINT ? "SIGINT" : "SIGTERM");
        return;
    }
    server_shutdown();
}

/* File descriptors kept for listeners, the log, snapshots and the like, as
 * Redis's CONFIG_MIN_RESERVED_FDS. */
#define RESERVED_FDS 32

int server_adjust_open_files_limit(void)
{
    struct rlimit rl;
    rlim_t want = (rlim_t)server.cfg.maxclients + RESERVED_FDS;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
        log_warning("Unable to obtain the current NOFILE limit (%s), assuming 1024 and setting "
                    "the max clients configuration accordingly.", strerror(errno));
        server.cfg.maxclients = 1024 - RESERVED_FDS;
        return -1;
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
        return 0;
    rlim_t old = rl.rlim_cur;
    rlim_t best = want;
    int err = 0;
    /* Try the wanted limit, then less and less, as Redis does. */
    while (best > old) {
        rl.rlim_cur = best;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < best)
            rl.rlim_max = best; /* only a privileged process may raise it */
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
            break;
        err = errno;
        getrlimit(RLIMIT_NOFILE, &rl);
        if (rl.rlim_max != RLIM_INFINITY && best > rl.rlim_max) {
            best = rl.rlim_max; /* the hard limit, if it is above what we had */
            continue;
        }
        best = best > 16 ? best - 16 : old;
    }
    if (best <= old)
        best = old;
    if (best < want) {
        long long reduced = (long long)best - RESERVED_FDS;
        log_warning("You requested maxclients of %lld requiring at least %llu max file "
                    "descriptors.", server.cfg.maxclients, (unsigned long long)want);
        log_warning("Server can't set maximum open files to %llu because of OS error: %s.",
                    (unsigned long long)want, strerror(err ? err : EPERM));
        if (reduced < 1) {
            log_warning("Your current 'ulimit -n' of %llu is not enough for the server to start. "
                        "Please increase your open file limit to at least %llu. Exiting.",
                        (unsigned long long)old, (unsigned long long)want);
            exit(1);
        }
        server.cfg.maxclients = reduced;
        log_warning("Current maximum open files is %llu. maxclients has been reduced to %lld to "
                    "compensate for low ulimit. If you need higher maxclients increase "
                    "'ulimit -n'.", (unsigned long long)best, reduced);
        return -1;
    }
    log_notice("Increased maximum number of open files to %llu (it was originally set to %llu).",
               (unsigned long long)want, (unsigned long long)old);
    return 0;
}

/* Redis's rule: a certificate or key that does not load stops the start,
 * before anything is loaded or listened on. */
static int configure_tls(void)
{
    char err[512];
    if (!server.cfg.tls_port && !server.cfg.tls_replication)
        return 0;
    if (tls_configure(err, sizeof(err)) < 0) {
        log_warning("%s", err);
        log_warning("Failed to configure TLS. Check logs for more info.");
        return -1;
    }
    return 0;
}

int server_start(void)
{
    server.loop = uv_default_loop();
    server.start_ms = mstime();
    repl_random_hex(server.run_id);
    signal(SIGPIPE, SIG_IGN);
    /* Over a file size limit a write fails with EFBIG instead of killing us,
     * so the append-only log reports it like a full disk. */
    signal(SIGXFSZ, SIG_IGN);
    server_adjust_open_files_limit();
    command_table_init();
    if (configure_tls() < 0 || acl_start() < 0)
        return -1;
    server.ks = ks_new(server.cfg.databases);
    evict_init();
    repl_init();
    repl_replica_init();
    pubsub_init();
    monitor_init();
    pause_init();
    lazyfree_init();
    stream_init();
    mem_mark_startup();
    fn_init();
    if (server.cfg.appendonly) {
        struct replay *replay = replay_new();
        int rc = aof_load(replay_command, replay);
        char replid[41];
        long long offset;
        if (rc == 0 && replay_position(replay, replid, &offset))
            repl_adopt_position(replid, offset);
        replay_free(replay);
        if (rc < 0 || (rc == 1 && (persist_load() < 0 || fn_install_loaded() < 0)) ||
            aof_open() < 0)
            return -1;
    } else if (persist_load() < 0 || fn_install_loaded() < 0) {
        return -1;
    }
    propagate_init();
    repl_restore_position();
    if (conn_listen() < 0)
        return -1;
    uv_signal_init(server.loop, &server.sigterm);
    uv_signal_start(&server.sigterm, signal_cb, SIGTERM);
    uv_signal_init(server.loop, &server.sigint);
    uv_signal_start(&server.sigint, signal_cb, SIGINT);
    uv_timer_init(server.loop, &server.cron);
    uv_timer_start(&server.cron, cron_cb, 1000 / (uint64_t)server.cfg.hz,
                   1000 / (uint64_t)server.cfg.hz);
    uv_timer_init(server.loop, &expire_timer);
    started = 1;
    log_notice("Server initialized");
    if (server.cfg.replicaof_host)
        repl_replica_start();
    if (server.listeners)
        log_notice("Ready to accept connections tcp on port %d", server.cfg.port);
    if (server.tls_listeners)
        log_notice("Ready to accept connections tls on port %d", server.cfg.tls_port);
    if (server.unix_listening)
        log_notice("Ready to accept connections unix on %s", server.cfg.unixsocket);
    return 0;
}

void server_child_close_listeners(void)
{
    conn_close_listener_fds();
}

void server_run(void)
{
    uv_run(server.loop, UV_RUN_DEFAULT);
}

void server_cleanup(void)
{
    /* Let close callbacks of the last handles run, then verify none is left. */
    uv_run(server.loop, UV_RUN_DEFAULT);
    ks_free(server.ks);
    server.ks = NULL;
    tls_cleanup();
    if (uv_loop_close(server.loop) != 0)
        log_warning("Event loop closed with handles still open");
}
