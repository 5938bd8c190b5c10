/*
 * cmd_server.c - server-wide commands: INFO, FLUSHDB, FLUSHALL, TIME,
 * SHUTDOWN (CONFIG is cmd_config.c's).
 *
 * INFO follows Redis's text format ("# Section" headers, "name:value" lines,
 * CRLF line ends) so dashboards, exporters and redis-cli --stat read it.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "reach.h"
#include "aof.h"
#include "args.h"
#include "bgsave.h"
#include "blocking.h"
#include "childinfo.h"
#include "client.h"
#include "clock.h"
#include "conn.h"
#include "cmd_repl.h"
#include "cmd_server.h"
#include "errorstats.h"
#include "eval.h"
#include "evict.h"
#include "functions.h"
#include "histogram.h"
#include "keyspace.h"
#include "lifecycle.h"
#include "log.h"
#include "loopstat.h"
#include "lazyfree.h"
#include "mem.h"
#include "migrate_link.h"
#include "pause.h"
#include "propagate.h"
#include "memstats.h"
#include "pubsub.h"
#include "repl.h"
#include "resp_writer.h"
#include "script.h"
#include "server.h"
#include "tracking.h"
#include "watch.h"

static void human_bytes(char *out, size_t len, double n)
{
    static const char units[] = "BKMGTP";
    int u = 0;
    while (n >= 1024 && u < 5) {
        n /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, len, "%.0fB", n);
    else
        snprintf(out, len, "%.2f%c", n, units[u]);
}

static void info_server(struct text *t)
{
    struct utsname un;
    int64_t uptime = (mstime() - server.start_ms) / 1000;
    uname(&un);
    text_printf(t,
                "# Server\r\nredis_version:" RBKV_REDIS_COMPAT_VERSION "\r\nrbkv_version:%s\r\nredis_mode:standalone\r\n"
                "os:%s %s %s\r\narch_bits:%d\r\nmultiplexing_api:libuv %s\r\n"
                "process_id:%d\r\nrun_id:%s\r\ntcp_port:%d\r\nserver_time_usec:%lld\r\n"
                "uptime_in_seconds:%lld\r\nuptime_in_days:%lld\r\nhz:%d\r\n"
                "executable:rbkv-server\r\nconfig_file:%s\r\n",
                RBKV_VERSION, un.sysname, un.release, un.machine, (int)(sizeof(long) * 8),
                uv_version_string(), (int)getpid(), server.run_id, server.cfg.port,
                (long long)ustime(), (long long)uptime, (long long)(uptime / 86400),
                server.cfg.hz, server.config_file ? server.config_file : "");
}

/* Redis 7.0's fields and order; a client held by CLIENT PAUSE counts as
 * blocked, as in Redis. */
static void info_clients(struct text *t)
{
    size_t in, out;
    conn_recent_max_buffers(&in, &out);
    text_printf(t,
                "# Clients\r\nconnected_clients:%llu\r\ncluster_connections:0\r\n"
                "maxclients:%lld\r\nclient_recent_max_input_buffer:%zu\r\n"
                "client_recent_max_output_buffer:%zu\r\nblocked_clients:%lu\r\n"
                "tracking_clients:%zu\r\nclients_in_timeout_table:%lu\r\n",
                server.client_count, server.cfg.maxclients, in, out,
                block_count() + pause_postponed_count(), tracking_clients(), block_timed_count());
}

/* Redis 7.0's fields in its order. What each
 * figure means here: memstats.h and docs/operations.md. */
static void info_memory(struct text *t)
{
    char used[32], rss[32], peak[32], maxmem[32], sysmem[32];
    struct memstats st;
    memstats_fill(&st);
    size_t sys = mem_total_system();
    human_bytes(used, sizeof(used), (double)st.total);
    human_bytes(rss, sizeof(rss), (double)st.rss);
    human_bytes(peak, sizeof(peak), (double)st.peak);
    human_bytes(maxmem, sizeof(maxmem), (double)server.cfg.maxmemory);
    human_bytes(sysmem, sizeof(sysmem), (double)sys);
    text_printf(t,
                "# Memory\r\nused_memory:%zu\r\nused_memory_human:%s\r\n"
                "used_memory_rss:%zu\r\nused_memory_rss_human:%s\r\n"
                "used_memory_peak:%zu\r\nused_memory_peak_human:%s\r\n"
                "used_memory_peak_perc:%.2f%%\r\nused_memory_overhead:%zu\r\n"
                "used_memory_startup:%zu\r\nused_memory_dataset:%zu\r\n"
                "used_memory_dataset_perc:%.2f%%\r\n"
                "allocator_allocated:%zu\r\nallocator_active:%zu\r\nallocator_resident:%zu\r\n"
                "total_system_memory:%zu\r\ntotal_system_memory_human:%s\r\n",
                st.total, used, st.rss, rss, st.peak, peak, st.peak_perc, st.overhead_total,
                st.startup, st.dataset, st.dataset_perc, st.alloc.allocated, st.alloc.active,
                st.alloc.resident, sys, sysmem);
    /* EVAL's Lua state and script cache (eval.h), FUNCTION's state and
     * libraries (functions.h); the totals are their sums, as Redis's. */
    size_t vm_eval = eval_vm_memory(), scripts_eval = eval_scripts_memory();
    size_t vm_fn = fn_engine_memory(), scripts_fn = fn_memory();
    char vm_human[32], vm_total_human[32], scripts_human[32];
    human_bytes(vm_human, sizeof(vm_human), (double)vm_eval);
    human_bytes(vm_total_human, sizeof(vm_total_human), (double)(vm_eval + vm_fn));
    human_bytes(scripts_human, sizeof(scripts_human), (double)(scripts_eval + scripts_fn));
    text_printf(t,
                "used_memory_lua:%zu\r\nused_memory_vm_eval:%zu\r\nused_memory_lua_human:%s\r\n"
                "used_memory_scripts_eval:%zu\r\nnumber_of_cached_scripts:%zu\r\n"
                "number_of_functions:%zu\r\nnumber_of_libraries:%zu\r\n"
                "used_memory_vm_functions:%zu\r\nused_memory_vm_total:%zu\r\n"
                "used_memory_vm_total_human:%s\r\nused_memory_functions:%zu\r\n"
                "used_memory_scripts:%zu\r\nused_memory_scripts_human:%s\r\n",
                vm_eval, vm_eval, vm_human, scripts_eval, eval_script_count(),
                fn_function_count(), fn_library_count(), vm_fn, vm_eval + vm_fn, vm_total_human,
                scripts_fn, scripts_eval + scripts_fn, scripts_human);
    text_printf(t,
                "maxmemory:%llu\r\nmaxmemory_human:%s\r\nmaxmemory_policy:%s\r\n"
                "allocator_frag_ratio:%.2f\r\nallocator_frag_bytes:%lld\r\n"
                "allocator_rss_ratio:%.2f\r\nallocator_rss_bytes:%lld\r\n"
                "rss_overhead_ratio:%.2f\r\nrss_overhead_bytes:%lld\r\n"
                "mem_fragmentation_ratio:%.2f\r\nmem_fragmentation_bytes:%lld\r\n"
                "mem_not_counted_for_evict:%zu\r\nmem_replication_backlog:%zu\r\n"
                "mem_total_replication_buffers:%zu\r\n"
                "mem_clients_slaves:%zu\r\nmem_clients_normal:%zu\r\nmem_cluster_links:0\r\n"
                "mem_aof_buffer:%zu\r\nmem_allocator:%s\r\nactive_defrag_running:0\r\n"
                "lazyfree_pending_objects:%zu\r\nlazyfreed_objects:%llu\r\n",
                server.cfg.maxmemory, maxmem,
                config_maxmemory_policy_names[server.cfg.maxmemory_policy],
                st.alloc_frag, st.alloc_frag_bytes, st.alloc_rss, st.alloc_rss_bytes,
                st.rss_overhead, st.rss_overhead_bytes, st.frag, st.frag_bytes,
                evict_not_counted_memory(), st.repl_backlog,
                st.repl_backlog + st.clients_replicas, st.clients_replicas, st.clients_normal,
                st.aof_buffer, mem_allocator_name(), lazyfree_pending(), lazyfree_freed());
    memstats_destroy(&st);
}

static void info_persistence(struct text *t)
{
    struct persist_status st;
    struct aof_rewrite_status rw;
    persist_get_status(&st);
    aof_get_rewrite_status(&rw);
    /* A child's copy-on-write so far, read from /proc on a worker at most
     * once a second (Redis's child reports it every second), and its age. */
    size_t cow = st.current_cow_bytes + rw.current_cow_bytes;
    long long cow_age = st.current_cow_bytes ? st.current_cow_age_s : rw.current_cow_age_s;
    /* A replica loading its primary's snapshot: loading:1 with the old
     * data dropped, async_loading:1 while it is served (repl-diskless-load
     * swapdb). Redis's loading_* progress fields are not shown: the load
     * runs on a worker thread that reports no progress. The child does not
     * report its progress either: keys_processed and fork_perc are 0 while
     * it runs. */
    text_printf(t, "# Persistence\r\nloading:%d\r\nasync_loading:%d\r\n",
                server.loading == LOADING_SYNC, server.loading == LOADING_ASYNC);
    text_printf(t,
                "current_cow_peak:%zu\r\ncurrent_cow_size:%zu\r\ncurrent_cow_size_age:%lld\r\n"
                "current_fork_perc:0.00\r\ncurrent_save_keys_processed:0\r\n"
                "current_save_keys_total:%zu\r\n",
                cow, cow, cow_age, st.current_keys_total);
    text_printf(t,
                "rdb_changes_since_last_save:%llu\r\n"
                "rdb_bgsave_in_progress:%d\r\nrdb_last_save_time:%lld\r\n"
                "rdb_last_bgsave_status:%s\r\nrdb_last_bgsave_time_sec:%lld\r\n"
                "rdb_current_bgsave_time_sec:%lld\r\nrdb_saves:%llu\r\nrdb_last_cow_size:%zu\r\n"
                "aof_enabled:%d\r\naof_rewrite_in_progress:%d\r\naof_rewrite_scheduled:0\r\n"
                "aof_last_rewrite_time_sec:%lld\r\naof_current_rewrite_time_sec:%lld\r\n"
                "aof_last_bgrewrite_status:%s\r\naof_rewrites:%llu\r\n"
                "aof_rewrites_consecutive_failures:%llu\r\n"
                "aof_last_write_status:%s\r\naof_last_cow_size:%zu\r\n"
                "module_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n",
                server.dirty, st.bgsave_in_progress, st.last_save_time,
                st.last_bgsave_ok ? "ok" : "err", st.last_bgsave_time_s, st.current_bgsave_time_s,
                st.saves, st.last_cow_bytes, aof_enabled(), aof_rewrite_in_progress(),
                rw.last_time_s, rw.current_time_s, rw.consecutive_failures ? "err" : "ok",
                rw.rewrites, rw.consecutive_failures, aof_last_write_ok() ? "ok" : "err",
                rw.last_cow_bytes);
}

static unsigned long long expired_keys(void)
{
    unsigned long long n = 0;
    for (int i = 0; i < server.ks->count; i++)
        n += server.ks->dbs[i].expired;
    return n;
}

/* The loop's turns (loopstat.h): eventloop_cycles and
 * eventloop_duration_sum are Redis 7.2's; the rest are rbkv's, the longest
 * turn and a histogram of turns by wall and by the loop thread's CPU time
 * ("le250us=N,le500us=N,...,inf=N", each bucket counted alone). The
 * allocator's trims (mem.h) follow, timed. */
static void info_hist(struct text *t, const char *name, const uint64_t *hist)
{
    text_printf(t, "%s:", name);
    for (int i = 0; i < LOOPSTAT_BUCKETS; i++)
        text_printf(t, "%sle%lluus=%llu", i ? "," : "", (unsigned long long)loopstat_bound(i),
                    (unsigned long long)hist[i]);
    text_printf(t, ",inf=%llu\r\n", (unsigned long long)hist[LOOPSTAT_BUCKETS]);
}

static void info_eventloop(struct text *t)
{
    const struct loopstat *l = loopstat_get();
    struct mem_trim_stats tr;
    mem_trim_get_stats(&tr);
    text_printf(t,
                "eventloop_cycles:%llu\r\neventloop_duration_sum:%llu\r\n"
                "eventloop_duration_max:%llu\r\neventloop_cpu_sum:%llu\r\n"
                "eventloop_cpu_max:%llu\r\n",
                (unsigned long long)l->turns, (unsigned long long)l->busy_us_sum,
                (unsigned long long)l->busy_us_max, (unsigned long long)l->cpu_us_sum,
                (unsigned long long)l->cpu_us_max);
    info_hist(t, "eventloop_duration_hist", l->busy_hist);
    info_hist(t, "eventloop_cpu_hist", l->cpu_hist);
    text_printf(t,
                "allocator_trims:%llu\r\nallocator_trim_usec_sum:%llu\r\n"
                "allocator_trim_usec_max:%llu\r\nallocator_trim_usec_last:%llu\r\n",
                (unsigned long long)tr.runs, (unsigned long long)tr.us_sum,
                (unsigned long long)tr.us_max, (unsigned long long)tr.us_last);
}

static void info_stats(struct text *t)
{
    const struct server_stats *s = &server.stats;
    /* Redis 7's order (client_output_buffer_limit_disconnections is 7.2's). */
    text_printf(t,
                "# Stats\r\ntotal_connections_received:%llu\r\ntotal_commands_processed:%llu\r\n"
                "total_net_input_bytes:%llu\r\ntotal_net_output_bytes:%llu\r\n"
                "rejected_connections:%llu\r\n"
                "sync_full:%llu\r\nsync_partial_ok:%llu\r\nsync_partial_err:%llu\r\n"
                "expired_keys:%llu\r\nexpired_stale_perc:%.2f\r\n"
                "expired_time_cap_reached_count:%llu\r\nexpire_cycle_cpu_milliseconds:%llu\r\n"
                "evicted_keys:%llu\r\nevicted_clients:%llu\r\n"
                "keyspace_hits:%llu\r\nkeyspace_misses:%llu\r\n"
                "pubsub_channels:%zu\r\npubsub_patterns:%zu\r\npubsubshard_channels:%zu\r\n"
                "latest_fork_usec:%lld\r\ntotal_forks:%llu\r\n"
                "migrate_cached_sockets:%zu\r\nslave_expires_tracked_keys:0\r\n"
                "tracking_total_keys:%zu\r\ntracking_total_items:%zu\r\n"
                "tracking_total_prefixes:%zu\r\n"
                "unexpected_error_replies:%llu\r\ntotal_error_replies:%llu\r\n"
                "dump_payload_sanitizations:0\r\n"
                "total_reads_processed:%llu\r\ntotal_writes_processed:%llu\r\n"
                "io_threaded_reads_processed:0\r\nio_threaded_writes_processed:0\r\n"
                "client_output_buffer_limit_disconnections:%llu\r\n",
                s->total_connections, s->total_commands, s->net_input_bytes, s->net_output_bytes,
                s->rejected_connections, repl.stats.sync_full, repl.stats.sync_partial_ok,
                repl.stats.sync_partial_err, expired_keys(), s->expired_stale_perc,
                s->expire_time_cap_reached, s->expire_cycle_us / 1000, s->evicted_keys,
                s->evicted_clients,
                s->keyspace_hits, s->keyspace_misses, pubsub_name_count(PUBSUB_CHANNEL),
                pubsub_name_count(PUBSUB_PATTERN), pubsub_name_count(PUBSUB_SHARD),
                child_info_latest_fork_usec(), child_info_total_forks(), migrate_link_count(),
                tracking_total_keys(), tracking_total_items(), tracking_total_prefixes(),
                s->unexpected_error_replies, s->error_replies, s->total_reads, s->total_writes,
                s->output_limit_disconnects);
    info_eventloop(t);
}

static void info_replication(struct text *t)
{
    cmd_repl_info(t);
}

static void info_rusage(struct text *t, const char *suffix, int who)
{
    struct rusage r;
    if (getrusage(who, &r) < 0)
        memset(&r, 0, sizeof(r));
    text_printf(t, "used_cpu_sys%s:%ld.%06ld\r\nused_cpu_user%s:%ld.%06ld\r\n", suffix,
                (long)r.ru_stime.tv_sec, (long)r.ru_stime.tv_usec, suffix,
                (long)r.ru_utime.tv_sec, (long)r.ru_utime.tv_usec);
}

/* Redis 7's lines: the process, its reaped children (BGSAVE, rewrites, full
 * syncs) and the loop thread alone (the log's fsync runs on a libuv worker). */
static void info_cpu(struct text *t)
{
    text_printf(t, "# CPU\r\n");
    info_rusage(t, "", RUSAGE_SELF);
    info_rusage(t, "_children", RUSAGE_CHILDREN);
    info_rusage(t, "_main_thread", RUSAGE_THREAD);
}

static void info_errorstats(struct text *t)
{
    const char *code;
    unsigned long long count;
    text_printf(t, "# Errorstats\r\n");
    for (size_t i = 0; (code = errorstats_code_at(i, &count)); i++)
        text_printf(t, "errorstat_%s:count=%llu\r\n", code, count);
}

/* latency_percentiles_usec_<cmd>:p50=1.003,p99=... for each command with
 * calls tracked, at latency-tracking-info-percentiles. */
static void info_latencystats(struct text *t)
{
    text_printf(t, "# Latencystats\r\n");
    for (size_t i = 0; i < command_row_count(); i++) {
        const struct command *cmd = command_row_at(i);
        const struct histogram *h = command_stats(cmd)->latency;
        if (!h || !h->total)
            continue;
        text_printf(t, "latency_percentiles_usec_%s:", cmd->name);
        for (int p = 0; p < server.cfg.latency_percentile_count; p++) {
            char name[64];
            double pct = server.cfg.latency_percentiles[p];
            config_format_percentile(name, sizeof(name), pct);
            text_printf(t, "%sp%s=%.3f", p ? "," : "", name,
                        (double)histogram_percentile(h, pct));
        }
        text_printf(t, "\r\n");
    }
}

static void info_commandstats(struct text *t)
{
    text_printf(t, "# Commandstats\r\n");
    for (size_t i = 0; i < command_row_count(); i++) {
        const struct command *cmd = command_row_at(i);
        const struct command_stats *st = command_stats(cmd);
        if (!st->calls && !st->rejected_calls && !st->failed_calls)
            continue;
        text_printf(t,
                    "cmdstat_%s:calls=%llu,usec=%llu,usec_per_call=%.2f,rejected_calls=%llu,"
                    "failed_calls=%llu\r\n",
                    cmd->name, st->calls, st->usec,
                    st->calls ? (double)st->usec / (double)st->calls : 0.0, st->rejected_calls,
                    st->failed_calls);
    }
}

static void info_cluster(struct text *t)
{
    text_printf(t, "# Cluster\r\ncluster_enabled:%d\r\n", server.cfg.cluster_enabled);
}

static void info_keyspace(struct text *t)
{
    int64_t now = mstime();
    text_printf(t, "# Keyspace\r\n");
    for (int i = 0; i < server.ks->count; i++) {
        const struct db *db = &server.ks->dbs[i];
        size_t keys = ks_count(db);
        if (!keys)
            continue;
        /* avg_ttl over a sample of the earliest deadlines, as Redis estimates it. */
        long long ttl_sum = 0, sampled = 0;
        for (struct rb_node *n = rb_first_cached(&db->expires); n && sampled < 16;
             n = rb_next(n), sampled++) {
            int64_t left = rb_entry(n, struct ks_expire, node)->when - now;
            ttl_sum += left > 0 ? left : 0;
        }
        text_printf(t, "db%d:keys=%zu,expires=%zu,avg_ttl=%lld\r\n", i, keys, db->expires_count,
                    sampled ? ttl_sum / sampled : 0);
    }
}

struct info_section {
    const char *name;
    void (*fill)(struct text *t);
    int by_default;
};

static const struct info_section sections[] = {
    {"server", info_server, 1},           {"clients", info_clients, 1},
    {"memory", info_memory, 1},           {"persistence", info_persistence, 1},
    {"stats", info_stats, 1},             {"replication", info_replication, 1},
    {"cpu", info_cpu, 1},                 {"commandstats", info_commandstats, 0},
    {"errorstats", info_errorstats, 1},   {"latencystats", info_latencystats, 0},
    {"cluster", info_cluster, 1},         {"keyspace", info_keyspace, 1},
};

#define SECTION_COUNT (sizeof(sections) / sizeof(sections[0]))

static void cmd_info(struct client *c)
{
    int want[SECTION_COUNT] = {0};
    int any = 0;

    if (c->argc == 1) {
        for (size_t s = 0; s < SECTION_COUNT; s++)
            want[s] = sections[s].by_default;
    }
    for (int i = 1; i < c->argc; i++) {
        const struct resp_slice *a = &c->argv[i];
        int all = arg_is(a, "all") || arg_is(a, "everything");
        for (size_t s = 0; s < SECTION_COUNT; s++) {
            if (all || arg_is(a, sections[s].name) ||
                (arg_is(a, "default") && sections[s].by_default))
                want[s] = 1;
        }
    }
    struct text t = {xmalloc(1024), 0, 1024};
    t.buf[0] = '\0';
    for (size_t s = 0; s < SECTION_COUNT; s++) {
        if (!want[s])
            continue;
        if (any)
            text_printf(&t, "\r\n");
        sections[s].fill(&t);
        any = 1;
    }
    resp_add_verbatim(&c->out, "txt", t.buf, t.len);
    xfree(t.buf);
}

/* FLUSHDB/FLUSHALL [ASYNC|SYNC], as Redis's getFlushCommandFlags: without
 * a mode, lazyfree-lazy-user-flush chooses. Returns 1 for ASYNC, 0 for
 * SYNC, -1 after a syntax error reply. */
static int flush_mode_or_reply(struct client *c)
{
    if (c->argc == 1)
        return server.cfg.lazyfree_lazy_user_flush;
    if (c->argc == 2 && arg_is(&c->argv[1], "ASYNC"))
        return 1;
    if (c->argc == 2 && arg_is(&c->argv[1], "SYNC"))
        return 0;
    resp_add_error(&c->out, ERR_SYNTAX);
    return -1;
}

/* Empties db after telling WATCH and blocked clients: ASYNC detaches its
 * contents in O(1) for the lazy-free thread (lazyfree.h), SYNC frees them
 * here. */
static void flush_db(struct db *db, int async)
{
    server.dirty += ks_count(db);
    watch_touch_db(db);
    block_signal_db(db);
    if (async)
        lazyfree_flush_db(db);
    else
        ks_flush(db);
}

static void cmd_flushdb(struct client *c)
{
    int async = flush_mode_or_reply(c);
    if (async < 0)
        return;
    flush_db(c->db, async);
    /* SYNC replies with every byte back, also what earlier UNLINKs left
     * pending. */
    if (!async)
        lazyfree_drain();
    /* Tracked keys are not per db: every tracking client hears of it. */
    tracking_flush();
    /* Into the log and the stream as called (ASYNC/SYNC kept), also when
     * there was nothing to flush, as Redis forces it. */
    propagate_effects(c->db_index, c->argc, c->argv);
    reply_ok(c);
}

static void cmd_flushall(struct client *c)
{
    int async = flush_mode_or_reply(c);
    if (async < 0)
        return;
    for (int i = 0; i < server.ks->count; i++)
        flush_db(&server.ks->dbs[i], async);
    if (!async)
        lazyfree_drain();
    tracking_flush();
    /* As Redis: a BGSAVE under way would write the old data back; with save
     * rules the empty dataset is saved at once (rdb_changes_since_last_save
     * reads 0 after it). Not from the log's replay (client id 0), whose
     * dataset is only half loaded. */
    persist_kill_child();
    if (server.cfg.save_count && c->id != 0)
        persist_save();
    propagate_effects(c->db_index, c->argc, c->argv);
    reply_ok(c);
}

static void cmd_time(struct client *c)
{
    int64_t us = ustime();
    resp_add_array_len(&c->out, 2);
    resp_add_bulk_ll(&c->out, us / 1000000);
    resp_add_bulk_ll(&c->out, us % 1000000);
}

/* SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]: saves when asked, or when
 * `save` rules are set; a failed save keeps the server up unless FORCE. A
 * primary first waits up to shutdown-timeout for its replicas, c blocked,
 * unless NOW (lifecycle.h); ABORT cancels that wait. */
static void cmd_shutdown(struct client *c)
{
    int flags = 0, abort_it = 0;
    for (int i = 1; i < c->argc; i++) {
        const struct resp_slice *a = &c->argv[i];
        if (arg_is(a, "NOSAVE"))
            flags |= SHUTDOWN_FLAG_NOSAVE;
        else if (arg_is(a, "SAVE"))
            flags |= SHUTDOWN_FLAG_SAVE;
        else if (arg_is(a, "NOW"))
            flags |= SHUTDOWN_FLAG_NOW;
        else if (arg_is(a, "FORCE"))
            flags |= SHUTDOWN_FLAG_FORCE;
        else if (arg_is(a, "ABORT"))
            abort_it = 1;
        else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    if ((abort_it && flags) || ((flags & SHUTDOWN_FLAG_SAVE) && (flags & SHUTDOWN_FLAG_NOSAVE))) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    if (abort_it) {
        if (server_abort_shutdown() == 0)
            reply_ok(c);
        else
            resp_add_error(&c->out, "ERR No shutdown in progress.");
        return;
    }
    /* Under a busy script only SHUTDOWN NOSAVE: a save would write the
     * script's half-done changes. */
    if (script_timedout() && !(flags & SHUTDOWN_FLAG_NOSAVE)) {
        resp_add_error(&c->out, script_busy_reply());
        return;
    }
    server_request_shutdown(flags, c);
}

const struct command server_commands[] = {
    {.name = "info", .proc = cmd_info, .arity = -1, .flags = CMD_LOADING | CMD_STALE,
     .group = "server"},
    {.name = "flushdb", .proc = cmd_flushdb, .arity = -1, .flags = CMD_WRITE,
     .group = "server", .key_reach = reach_all},
    {.name = "flushall", .proc = cmd_flushall, .arity = -1, .flags = CMD_WRITE,
     .group = "server", .key_reach = reach_all},
    {.name = "time", .proc = cmd_time, .arity = 1, .flags = CMD_LOADING | CMD_STALE | CMD_FAST,
     .group = "server"},
    {.name = "shutdown", .proc = cmd_shutdown, .arity = -1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_ALLOW_BUSY | CMD_NO_MULTI,
     .group = "server"},
    {0},
};
