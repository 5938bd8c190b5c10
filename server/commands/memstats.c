/*
 * memstats.c - the memory report (memstats.h).
 */
#include "memstats.h"

#include <stdint.h>

#include "aof.h"
#include "backlog.h"
#include "client.h"
#include "conn.h"
#include "keyspace.h"
#include "olist.h"
#include "omap.h"
#include "repl.h"
#include "server.h"
#include "xstream.h"
#include "zset.h"

static double ratio(size_t a, size_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

static void fill_db(struct memstats_db *d, const struct db *db)
{
    d->id = db->id;
    d->keys = ks_count(db);
    d->main = kix_memory(&db->index) + d->keys * offsetof(struct ks_entry, data);
    d->expires = db->expires_count * (sizeof(struct ks_expire) + sizeof(struct ks_expire *));
}

void memstats_fill(struct memstats *st)
{
    struct aof_rewrite_status aof;
    *st = (struct memstats){0};
    st->total = mem_used();
    st->peak = mem_peak();
    st->startup = mem_startup();
    st->repl_backlog = repl.backlog ? xsize(repl.backlog) + xsize(repl.backlog->buf) : 0;
    for (const struct client *c = server.clients; c; c = c->next) {
        if (c->flags & CLIENT_REPLICA)
            st->clients_replicas += conn_client_memory(c);
        else
            st->clients_normal += conn_client_memory(c);
    }
    aof_get_rewrite_status(&aof);
    st->aof_buffer = aof.buffer_bytes;
    /* As Redis's overhead: clients' structs and buffers and the log's
     * pending bytes are part of used_memory (main.c hands the RESP library
     * the counting allocator). */
    st->overhead_total = st->startup + st->repl_backlog + st->clients_normal +
                         st->clients_replicas + st->aof_buffer;

    st->dbs = xcalloc((size_t)server.ks->count, sizeof(*st->dbs));
    for (int i = 0; i < server.ks->count; i++) {
        const struct db *db = &server.ks->dbs[i];
        if (!ks_count(db))
            continue;
        struct memstats_db *d = &st->dbs[st->db_count++];
        fill_db(d, db);
        st->keys += d->keys;
        st->overhead_total += d->main + d->expires;
    }
    st->dataset = st->total > st->overhead_total ? st->total - st->overhead_total : 0;
    /* As Redis: shares of what the data added to an empty server. */
    size_t net = st->total > st->startup ? st->total - st->startup : 1;
    st->dataset_perc = 100.0 * (double)st->dataset / (double)net;
    st->bytes_per_key = st->keys ? net / st->keys : 0;
    st->peak_perc = 100.0 * ratio(st->total, st->peak);

    mem_allocator_stats(&st->alloc);
    st->rss = mem_rss();
    st->alloc_frag = ratio(st->alloc.active, st->alloc.allocated);
    st->alloc_frag_bytes = (long long)st->alloc.active - (long long)st->alloc.allocated;
    st->alloc_rss = ratio(st->alloc.resident, st->alloc.active);
    st->alloc_rss_bytes = (long long)st->alloc.resident - (long long)st->alloc.active;
    st->rss_overhead = ratio(st->rss, st->alloc.resident);
    st->rss_overhead_bytes = (long long)st->rss - (long long)st->alloc.resident;
    st->frag = ratio(st->rss, st->total);
    st->frag_bytes = (long long)st->rss - (long long)st->total;
}

void memstats_destroy(struct memstats *st)
{
    xfree(st->dbs);
    st->dbs = NULL;
}

size_t memstats_key_usage(const struct ks_entry *e, size_t samples)
{
    size_t bytes = ks_entry_memory(e) + sizeof(uint64_t); /* the index slot */
    switch (e->type) {
    case KS_ZSET:
        return bytes + zs_memory(ks_ptr(e), samples);
    case KS_HASH:
    case KS_SET:
        return bytes + om_memory_sampled(ks_ptr(e), samples);
    case KS_LIST:
        return bytes + ol_memory_sampled(ks_ptr(e), samples);
    case KS_STREAM:
        return bytes + xs_memory(ks_ptr(e), samples);
    default:
        return bytes;
    }
}
