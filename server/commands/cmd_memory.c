/*
 * cmd_memory.c - MEMORY (Redis 7.0): USAGE, STATS, DOCTOR, PURGE,
 * MALLOC-STATS and HELP.
 *
 * Owns: memory_commands[] and nothing else; the figures are memstats.c's.
 * Where rbkv parts from Redis: USAGE counts what the allocator really holds
 * for the key (malloc_usable_size of its entry, deadline record, value
 * structures) plus its index slot, where Redis adds estimated struct sizes;
 * STATS has no cluster, Lua or functions, so those fields are 0; its
 * per-database overhead is the key index and the entry headers (the tree);
 * MALLOC-STATS is mimalloc's report or glibc's malloc_info XML, not
 * jemalloc's.
 */
#include "cmd_memory.h"

#include <string.h>

#include "args.h"
#include "client.h"
#include "clock.h"
#include "keyspace.h"
#include "mem.h"
#include "memstats.h"
#include "resp_writer.h"
#include "server.h"

#define USAGE_DEFAULT_SAMPLES 5 /* Redis's OBJ_COMPUTE_SIZE_DEF_SAMPLES */

/* MEMORY DOCTOR's thresholds, Redis's. */
#define DOCTOR_EMPTY_BYTES ((size_t)5 << 20)
#define DOCTOR_PEAK_RATIO 1.5
#define DOCTOR_FRAG_RATIO 1.4
#define DOCTOR_ALLOC_RATIO 1.1
#define DOCTOR_EXCESS_BYTES (10LL << 20)
#define DOCTOR_CLIENT_BYTES ((size_t)200 << 10)
#define DOCTOR_REPLICA_BYTES ((size_t)10 << 20)

/* MEMORY USAGE key [SAMPLES count]: nil for a missing key. */
static void memory_usage(struct client *c)
{
    long long samples = USAGE_DEFAULT_SAMPLES;
    for (int j = 3; j < c->argc; j++) {
        if (arg_is(&c->argv[j], "SAMPLES") && j + 1 < c->argc) {
            if (arg_ll_or_reply(c, &c->argv[j + 1], &samples) < 0)
                return;
            if (samples < 0) {
                resp_add_error(&c->out, ERR_SYNTAX);
                return;
            }
            j++;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    /* As Redis: no hit or miss is counted, nothing is touched. */
    const struct resp_slice *key = &c->argv[2];
    struct ks_entry *e = ks_lookup(c->db, key->ptr, key->len, mstime());
    if (!e) {
        resp_add_null(&c->out);
        return;
    }
    resp_add_int(&c->out, (long long)memstats_key_usage(e, (size_t)samples));
}

static void add_field(struct client *c, const char *name, long long v)
{
    resp_add_bulk_cstr(&c->out, name);
    resp_add_int(&c->out, v);
}

static void add_ratio(struct client *c, const char *name, double v)
{
    resp_add_bulk_cstr(&c->out, name);
    resp_add_double(&c->out, v);
}

/* MEMORY STATS: Redis 7.0's names in its order. */
static void memory_stats(struct client *c)
{
    struct memstats st;
    char name[32];
    memstats_fill(&st);
    resp_add_map_len(&c->out, 27 + (size_t)st.db_count);
    add_field(c, "peak.allocated", (long long)st.peak);
    add_field(c, "total.allocated", (long long)st.total);
    add_field(c, "startup.allocated", (long long)st.startup);
    add_field(c, "replication.backlog", (long long)st.repl_backlog);
    add_field(c, "clients.slaves", (long long)st.clients_replicas);
    add_field(c, "clients.normal", (long long)st.clients_normal);
    add_field(c, "cluster.links", 0);
    add_field(c, "aof.buffer", (long long)st.aof_buffer);
    add_field(c, "lua.caches", 0);
    add_field(c, "functions.caches", 0);
    for (int i = 0; i < st.db_count; i++) {
        snprintf(name, sizeof(name), "db.%d", st.dbs[i].id);
        resp_add_bulk_cstr(&c->out, name);
        resp_add_map_len(&c->out, 3);
        add_field(c, "overhead.hashtable.main", (long long)st.dbs[i].main);
        add_field(c, "overhead.hashtable.expires", (long long)st.dbs[i].expires);
        add_field(c, "overhead.hashtable.slot-to-keys", 0);
    }
    add_field(c, "overhead.total", (long long)st.overhead_total);
    add_field(c, "keys.count", (long long)st.keys);
    add_field(c, "keys.bytes-per-key", (long long)st.bytes_per_key);
    add_field(c, "dataset.bytes", (long long)st.dataset);
    add_ratio(c, "dataset.percentage", st.dataset_perc);
    add_ratio(c, "peak.percentage", st.peak_perc);
    add_field(c, "allocator.allocated", (long long)st.alloc.allocated);
    add_field(c, "allocator.active", (long long)st.alloc.active);
    add_field(c, "allocator.resident", (long long)st.alloc.resident);
    add_ratio(c, "allocator-fragmentation.ratio", st.alloc_frag);
    add_field(c, "allocator-fragmentation.bytes", st.alloc_frag_bytes);
    add_ratio(c, "allocator-rss.ratio", st.alloc_rss);
    add_field(c, "allocator-rss.bytes", st.alloc_rss_bytes);
    add_ratio(c, "rss-overhead.ratio", st.rss_overhead);
    add_field(c, "rss-overhead.bytes", st.rss_overhead_bytes);
    add_ratio(c, "fragmentation", st.frag);
    add_field(c, "fragmentation.bytes", st.frag_bytes);
    memstats_destroy(&st);
}

static void count_clients(size_t *normal, size_t *replicas)
{
    *normal = *replicas = 0;
    for (const struct client *c = server.clients; c; c = c->next)
        ++*((c->flags & CLIENT_REPLICA) ? replicas : normal);
}

/* MEMORY DOCTOR: Redis's checks and thresholds; its two greetings word for
 * word (tools match them), the advice in rbkv's terms. */
static void memory_doctor(struct client *c)
{
    static const char empty[] =
        "Hi Sam, this instance is empty or is using very little memory, my issues detector "
        "can't be used in these conditions. Please, leave for your mission on Earth and fill it "
        "with some data. The new Sam and I will be back to our programming as soon as I "
        "finished rebooting.\n";
    static const char healthy[] = "Hi Sam, I can't find any memory issue in your instance. I can "
                                  "only account for what occurs on this base.\n";
    struct memstats st;
    struct text t = {xmalloc(1024), 0, 1024};
    size_t normal, replicas;
    int issues = 0;

    t.buf[0] = '\0';
    memstats_fill(&st);
    count_clients(&normal, &replicas);
    if (st.total < DOCTOR_EMPTY_BYTES) {
        text_printf(&t, "%s", empty);
        goto out;
    }
    text_printf(&t, "Sam, I detected a few issues in this rbkv instance memory implants:\n\n");
    if ((double)st.peak / (double)st.total > DOCTOR_PEAK_RATIO) {
        issues++;
        text_printf(&t, " * Peak memory: In the past this instance used more than 150%% the "
                        "memory that is currently using. The freed pages are given back to the "
                        "system a while after used memory falls (see 'Reading the memory "
                        "figures' in the operations guide); MEMORY PURGE gives back what it can "
                        "at once.\n\n");
    }
    if (st.frag > DOCTOR_FRAG_RATIO && st.frag_bytes > DOCTOR_EXCESS_BYTES) {
        issues++;
        text_printf(&t, " * High total RSS: the Resident Set Size of the process is more than "
                        "1.4 times the memory the server allocated. This is usually a past peak "
                        "(see above) or a workload that fragments the heap; try MEMORY PURGE. "
                        "The allocator is \"%s\".\n\n",
                    mem_allocator_name());
    }
    if (st.alloc_frag > DOCTOR_ALLOC_RATIO && st.alloc_frag_bytes > DOCTOR_EXCESS_BYTES) {
        issues++;
        text_printf(&t, " * High allocator fragmentation: the allocator holds more than 1.1 "
                        "times what the server allocated, in pages partly used. MEMORY PURGE "
                        "releases the empty ones.\n\n");
    }
    if (st.alloc_rss > DOCTOR_ALLOC_RATIO && st.alloc_rss_bytes > DOCTOR_EXCESS_BYTES) {
        issues++;
        text_printf(&t, " * High allocator RSS overhead: more of the allocator's heap is "
                        "resident than it holds data in; try MEMORY PURGE.\n\n");
    }
    if (normal && st.clients_normal / normal > DOCTOR_CLIENT_BYTES) {
        issues++;
        text_printf(&t, " * Big client buffers: the clients hold more than 200K each on "
                        "average, in query buffers or replies not yet read (large replies, long "
                        "pipelines, slow subscribers). CLIENT LIST shows which.\n\n");
    }
    if (replicas && st.clients_replicas / replicas > DOCTOR_REPLICA_BYTES) {
        issues++;
        text_printf(&t, " * Big replica buffers: the replicas hold more than 10MB each on "
                        "average of stream not yet sent: one is slow or its network is. INFO "
                        "replication and CLIENT LIST show which.\n\n");
    }
    if (issues) {
        text_printf(&t, "I'm here to keep you safe, Sam. I want to help you.\n");
    } else {
        t.len = 0;
        text_printf(&t, "%s", healthy);
    }
out:
    resp_add_verbatim(&c->out, "txt", t.buf, t.len);
    xfree(t.buf);
    memstats_destroy(&st);
}

static void memory_purge(struct client *c)
{
    mem_purge();
    reply_ok(c);
}

static void memory_malloc_stats(struct client *c)
{
    static const char none[] = "Stats not supported for the current allocator";
    char *report = mem_allocator_report();
    if (report)
        resp_add_verbatim(&c->out, "txt", report, strlen(report));
    else
        resp_add_verbatim(&c->out, "txt", none, sizeof(none) - 1);
    xfree(report);
}

static void memory_help(struct client *c)
{
    static const char *const help[] = {
        "DOCTOR",
        "    Return memory problems reports.",
        "MALLOC-STATS",
        "    Return internal statistics report from the memory allocator.",
        "PURGE",
        "    Attempt to purge dirty pages for reclamation by the allocator.",
        "STATS",
        "    Return information about the memory usage of the server.",
        "USAGE <key> [SAMPLES <count>]",
        "    Return memory in bytes used by <key> and its value. Nested values are",
        "    sampled up to <count> times (default: 5, 0 means sample all).",
    };
    reply_help(c, help, sizeof(help) / sizeof(help[0]));
}

static const struct command memory_subcommands[] = {
    {.name = "memory|usage", .proc = memory_usage, .arity = -3,
     .flags = CMD_READONLY,
     .first_key = 2, .last_key = 2, .key_step = 1, .group = "server"},
    {.name = "memory|stats", .proc = memory_stats, .arity = 2, .group = "server"},
    {.name = "memory|doctor", .proc = memory_doctor, .arity = 2, .group = "server"},
    {.name = "memory|purge", .proc = memory_purge, .arity = 2, .group = "server"},
    {.name = "memory|malloc-stats", .proc = memory_malloc_stats, .arity = 2, .group = "server"},
    SUBCOMMAND_HELP("memory|help", memory_help, "server"),
    {0},
};

const struct command memory_commands[] = {
    {.name = "memory", .arity = -2,
     .group = "server", .subcommands = memory_subcommands},
    {0},
};
