/*
 * memstats.h - where the server's memory goes, as MEMORY STATS, MEMORY
 * DOCTOR and INFO memory report it (memstats.c), and what one key costs
 * (MEMORY USAGE).
 *
 * Owns nothing between calls: a report is filled from the allocator's
 * counters, the clients and the keyspace when asked. The split follows
 * Redis's getMemoryOverheadData: overhead is what the server spends to hold
 * the data (its start, clients, the replication backlog, and per database
 * the key index and each key's entry header, which is the tree), dataset is
 * the rest of used_memory, so overhead + dataset = used_memory. The RESP
 * library's buffers (clients' queries and replies, the log's pending bytes)
 * are allocated outside used_memory's count: clients.* and aof.buffer
 * report them in full, overhead counts only the client structs.
 */
#ifndef RBKV_MEMSTATS_H
#define RBKV_MEMSTATS_H

#include <stddef.h>

#include "mem.h"

struct ks_entry;

struct memstats_db {
    int id;
    size_t keys;
    size_t main;    /* the key index's slots and every entry's header (tree node, counts) */
    size_t expires; /* the deadline records and their pointers in the entries */
};

struct memstats {
    size_t peak, total, startup;
    size_t repl_backlog, clients_replicas, clients_normal, aof_buffer;
    size_t overhead_total, keys, bytes_per_key, dataset;
    double dataset_perc, peak_perc;
    struct mem_allocator_stats alloc;
    size_t rss;
    /* Ratios and differences as Redis's: the allocator's heap over what was
     * asked (fragmentation), its resident part over the heap, the process's
     * RSS over the allocator's, and the RSS over used_memory (the total). */
    double alloc_frag, alloc_rss, rss_overhead, frag;
    long long alloc_frag_bytes, alloc_rss_bytes, rss_overhead_bytes, frag_bytes;
    struct memstats_db *dbs; /* the databases holding keys; owned */
    int db_count;
};

/* Fills *st from the live server; memstats_destroy frees what it holds.
 * O(clients + databases). */
void memstats_fill(struct memstats *st);
void memstats_destroy(struct memstats *st);

/* Bytes key e costs: its entry (with the key and a string's bytes), its
 * deadline record, its slot in the index and its value's structures, those
 * measured on `samples` members (0: all) and scaled to the whole. */
size_t memstats_key_usage(const struct ks_entry *e, size_t samples);

#endif
