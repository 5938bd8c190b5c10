/*
 * lifecycle.c - the server's lifetime (lifecycle.h): core's part of
 * start-up, the cron timer (active expiry, client timeouts, snapshot rules),
 * signals and shutdown; and the wiring of core's own modules into the
 * transport and the dispatcher, whose hooks they fill (server_init).
 *
 * It stands above every other file of core and nothing of core calls it, so
 * the start-up's calls into all of them make no cycle (the state they all
 * read is server.c's).
 *
 * Core knows no subsystem above it: the start-up that wires them in (the
 * load, replication's and scripting's inits) is wiring.c's, beside main.c,
 * and what the cron and the shutdown run of them they registered as a
 * struct server_module.
 *
 * A shutdown (SHUTDOWN, SIGTERM, SIGINT) may first wait for the replicas to
 * catch up, as Redis 7.0's does (lifecycle.h): writes paused, the asking
 * client blocked, the cron checking; replication answers through the
 * module's replicas_behind and ask_acks, core knowing nothing of it.
 *
 * Active expiry runs in slices of at most EXPIRE_SLICE_US (longer with
 * active-expire-effort, as Redis's cycle) so that a burst of
 * keys expiring together never holds the loop for long: when a slice runs out
 * of time it schedules the next one a millisecond later, and clients are
 * served in between. Until then lookups still hide due keys (lazy expiry).
 */
#include "lifecycle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl.h"
#include "acl_file.h"
#include "aof.h"
#include "bgsave.h"
#include "blocking.h"
#include "clientinfo.h"
#include "clock.h"
#include "latency.h"
#include "command.h"
#include "conn.h"
#include "keyspace.h"
#include "evict.h"
#include "group_commit.h"
#include "lazyfree.h"
#include "longrun.h"
#include "loopstat.h"
#include "log.h"
#include "client.h"
#include "mem.h"
#include "monitor.h"
#include "multi.h"
#include "pause.h"
#include "process.h"
#include "propagate.h"
#include "pubsub.h"
#include "tracking.h"
#include "server.h"
#include "snapshot.h"
#include "stream.h"
#include "tls.h"

/* A slice's length at active-expire-effort 1; each step above adds 2/25,
 * as Redis's time share per cycle grows from 25% by 2 points a step. */
#define EXPIRE_SLICE_US 1000
#define EXPIRE_BATCH 64 /* keys between two looks at the clock */

#define SERVER_MODULES_MAX 4
static const struct server_module *modules[SERVER_MODULES_MAX];
static int nmodules;

static uv_timer_t expire_timer;
static int started; /* server_serve got as far as serving */

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
    int64_t slice_us = EXPIRE_SLICE_US * (25 + 2 * (server.cfg.active_expire_effort - 1)) / 25;
    /* CLIENT PAUSE: the dataset must not change under the pause. */
    if (pause_stops_writes() || server.active_expire_off)
        return 0;
    for (int i = 0; i < server.ks->count; i++) {
        struct db *db = &server.ks->dbs[i];
        while (db->expires_count) {
            size_t n = ks_expire_due(db, now_ms, EXPIRE_BATCH);
            if (n < EXPIRE_BATCH)
                break;
            if (ustime() - start > slice_us)
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
    if (long_run_active())
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
        if (si.si_pid == persist_child_pid() || si.si_pid == aof_child_pid())
            return;
        for (int i = 0; i < nmodules; i++)
            if (modules[i]->owns_child && modules[i]->owns_child(si.si_pid))
                return;
        waitpid(si.si_pid, NULL, WNOHANG);
    }
}

static void shutdown_cron(void);

static void cron_cb(uv_timer_t *t)
{
    (void)t;
    /* Nothing of the cron runs under a busy script: expiry, saves, client
     * timeouts would all act in the middle of it (longrun.h). */
    if (long_run_active())
        return;
    server.cron_runs++;
    if (!uv_is_active((uv_handle_t *)&expire_timer) && expire_slice())
        uv_timer_start(&expire_timer, expire_timer_cb, 1, 0);
    conn_cron((int64_t)uv_now(server.loop));
    pause_cron(mstime());
    persist_cron();
    for (int i = 0; i < nmodules; i++)
        if (modules[i]->cron)
            modules[i]->cron();
    reap_orphans();
    int64_t trim_start = ustime();
    if (mem_trim_cron((int64_t)uv_now(server.loop)))
        latency_add_since(server.cfg.latency_monitor_threshold, "allocator-trim", trim_start);
    process_update();
    shutdown_cron();
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
    for (int i = 0; i < nmodules; i++)
        if (modules[i]->close_links)
            modules[i]->close_links();
    conn_close_all();
    for (int i = 0; i < nmodules; i++)
        if (modules[i]->shutdown)
            modules[i]->shutdown();
    pubsub_close();
    tracking_close();
    monitor_close();
    pause_close();
    lazyfree_close();
    evict_close();
    loopstat_close();
    close_handle((uv_handle_t *)&server.cron);
    close_handle((uv_handle_t *)&expire_timer);
    close_handle((uv_handle_t *)&server.sigterm);
    close_handle((uv_handle_t *)&server.sigint);
    for (int i = 0; i < nmodules; i++)
        if (modules[i]->stopped)
            modules[i]->stopped();
    group_commit_close();
    aof_close();
    process_stopping();
    if (started)
        log_warning("rbkv is now ready to exit, bye bye...");
    else
        log_warning("rbkv could not start (see above); exiting.");
}

/* ---- a shutdown that waits for replicas (Redis 7.0's prepareForShutdown,
 * isReadyToShutdown, finishShutdown, abortShutdown) ---- */

static struct {
    int waiting;        /* a shutdown waits for replicas */
    int flags;          /* its SHUTDOWN_FLAG_ bits */
    int64_t deadline_ms; /* wall clock: shut down then, caught up or not */
} pending;

/* A client blocked on the waiting shutdown never times out: the shutdown
 * closes it, or cancel_shutdown answers it. */
static void shutdown_wait_timeout(struct client *c, const void *how)
{
    (void)c;
    (void)how;
}

static int replicas_behind(int log, int *total)
{
    int behind = 0;
    *total = 0;
    for (int i = 0; i < nmodules; i++) {
        int n = 0;
        if (modules[i]->replicas_behind) {
            behind += modules[i]->replicas_behind(log, &n);
            *total += n;
        }
    }
    return behind;
}

/* Answers the clients blocked on the shutdown with Redis's error and resumes
 * writes (Redis's cancelShutdown). */
static void cancel_shutdown(void)
{
    pending.waiting = 0;
    pending.flags = 0;
    for (struct client *w = server.clients; w; w = w->next) {
        if (!(w->flags & CLIENT_CLOSING) && block_waiting_for(w, shutdown_wait_timeout)) {
            resp_add_error(&w->out, "ERR Errors trying to SHUTDOWN. Check logs.");
            block_release(w);
        }
    }
    pause_end(PAUSE_BY_SHUTDOWN);
}

/* Saves as the flags say and shuts down; a failed save without FORCE cancels
 * the shutdown instead. Returns 0 when shut down, else -1. */
static int finish_shutdown(void)
{
    int flags = pending.flags, total;
    int behind = replicas_behind(1, &total);
    if (total > 0)
        log_notice("%d of %d replicas are in sync when shutting down.", total - behind, total);
    enum persist_shutdown_mode mode = flags & SHUTDOWN_FLAG_SAVE     ? PERSIST_SAVE
                                      : flags & SHUTDOWN_FLAG_NOSAVE ? PERSIST_NOSAVE
                                                                     : PERSIST_DEFAULT;
    if (persist_shutdown(mode) < 0 && !(flags & SHUTDOWN_FLAG_FORCE)) {
        log_warning("Errors trying to shut down the server. Check the logs for more "
                    "information.");
        cancel_shutdown();
        return -1;
    }
    pending.waiting = 0;
    server_shutdown();
    return 0;
}

int server_request_shutdown(int flags, struct client *c)
{
    int total;
    if (server.shutting_down)
        return 0;
    if (pending.waiting) {
        if (c)
            block_client_until(c, 0, shutdown_wait_timeout, NULL, 0);
        return -1;
    }
    pending.flags = flags;
    log_warning("User requested shutdown...");
    if (!(flags & SHUTDOWN_FLAG_NOW) && server.cfg.shutdown_timeout != 0 &&
        replicas_behind(0, &total) > 0) {
        pending.waiting = 1;
        pending.deadline_ms = mstime() + server.cfg.shutdown_timeout * 1000;
        for (int i = 0; i < nmodules; i++)
            if (modules[i]->ask_acks)
                modules[i]->ask_acks();
        pause_start(PAUSE_BY_SHUTDOWN, PAUSE_WRITE, INT64_MAX);
        if (c)
            block_client_until(c, 0, shutdown_wait_timeout, NULL, 0);
        log_notice("Waiting for replicas before shutting down.");
        return 0;
    }
    if (finish_shutdown() < 0) {
        if (c)
            resp_add_error(&c->out, "ERR Errors trying to SHUTDOWN. Check logs.");
        return -1;
    }
    return 0;
}

int server_abort_shutdown(void)
{
    if (!pending.waiting)
        return -1;
    cancel_shutdown();
    log_warning("Shutdown manually aborted.");
    return 0;
}

/* From the cron: a waiting shutdown goes ahead once every replica caught up
 * or its deadline passed. */
static void shutdown_cron(void)
{
    int total;
    if (pending.waiting &&
        (mstime() >= pending.deadline_ms || replicas_behind(0, &total) == 0))
        finish_shutdown();
}

/* SIGTERM and SIGINT shut down as SHUTDOWN with the flags of
 * shutdown-on-sigterm / -on-sigint ("default": save when `save` rules are
 * set), waiting for replicas as SHUTDOWN does. */
static void signal_cb(uv_signal_t *s, int signum)
{
    int flags = signum == SIGINT ? server.cfg.shutdown_on_sigint : server.cfg.shutdown_on_sigterm;
    (void)s;
    log_warning("Received %s scheduling shutdown...", signum == SIGINT ? "SIGINT" : "SIGTERM");
    if (pending.waiting)
        return;
    if (server_request_shutdown(flags, NULL) < 0)
        log_warning("%s received but errors trying to shut down the server, check the logs for "
                    "more information", signum == SIGINT ? "SIGINT" : "SIGTERM");
}

/* Redis's rule: a certificate or key that does not load stops the start,
 * before anything is loaded or listened on. */
static int configure_tls(void)
{
    char err[512];
    if (!server.cfg.tls_port && !server.cfg.tls_replication && !server.cfg.tls_cluster)
        return 0;
    if (tls_configure(err, sizeof(err)) < 0) {
        log_warning("%s", err);
        log_warning("Failed to configure TLS. Check logs for more info.");
        return -1;
    }
    return 0;
}

/* The transport's questions about users (conn.h), answered by acl.c. */
static int default_user_nopass(void)
{
    return (acl_default_user()->flags & ACL_USER_NOPASS) != 0;
}

static const struct conn_auth users = {
    .default_user = acl_default_user,
    .requires_auth = acl_default_requires_auth,
    .no_password = default_user_nopass,
};

void server_add_module(const struct server_module *m)
{
    for (int i = 0; i < nmodules; i++)
        if (modules[i] == m)
            return;
    if (nmodules == SERVER_MODULES_MAX)
        abort(); /* more subsystems than slots: raise SERVER_MODULES_MAX */
    modules[nmodules++] = m;
}

int server_init(void)
{
    server.loop = uv_default_loop();
    server.start_ms = mstime();
    process_start();
    snap_on_save_key_delay(&server.cfg.rdb_key_save_delay);
    signal(SIGPIPE, SIG_IGN);
    /* Over a file size limit a write fails with EFBIG instead of killing us,
     * so the append-only log reports it like a full disk. */
    signal(SIGXFSZ, SIG_IGN);
    server_adjust_open_files_limit();
    command_init();
    if (configure_tls() < 0 || acl_start() < 0)
        return -1;
    conn_on_auth(&users);
    conn_on_describe(client_info_line);
    server.ks = ks_new(server.cfg.databases);
    evict_init();
    pubsub_init();
    tracking_init();
    monitor_init();
    pause_init();
    lazyfree_init();
    stream_init();
    block_init();
    multi_init();
    return 0;
}

int server_serve(void)
{
    propagate_init();
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
    loopstat_start();
    started = 1;
    log_notice("Server initialized");
    if (server.listeners)
        log_notice("Ready to accept connections tcp on port %d", server.cfg.port);
    if (server.tls_listeners)
        log_notice("Ready to accept connections tls on port %d", server.cfg.tls_port);
    if (server.unix_listening)
        log_notice("Ready to accept connections unix on %s", server.cfg.unixsocket);
    /* The data is loaded (wiring.c loads it first): tell the supervisor. A
     * replica says so too, before its first sync (Redis waits for it). */
    process_ready();
    return 0;
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
    process_release();
}
