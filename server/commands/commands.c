/*
 * commands.c - registers the command layer with the dispatcher
 * (commands.h).
 */
#include "commands.h"

#include "cmd_bitmap.h"
#include "cmd_cluster.h"
#include "cmd_collrange.h"
#include "cmd_command.h"
#include "cmd_config.h"
#include "cmd_connection.h"
#include "cmd_debug.h"
#include "cmd_function.h"
#include "cmd_geo.h"
#include "cmd_hash.h"
#include "cmd_hll.h"
#include "cmd_keys.h"
#include "cmd_dump.h"
#include "cmd_migrate.h"
#include "migrate_link.h"
#include "cmd_lcs.h"
#include "cmd_list.h"
#include "cmd_memory.h"
#include "cmd_multi.h"
#include "cmd_latency.h"
#include "cmd_object.h"
#include "cmd_ordered.h"
#include "cmd_acl.h"
#include "cmd_persist.h"
#include "cmd_pubsub.h"
#include "cmd_repl.h"
#include "cmd_script.h"
#include "cmd_scan.h"
#include "cmd_server.h"
#include "cmd_set.h"
#include "cmd_slowlog.h"
#include "cmd_sort.h"
#include "cmd_string.h"
#include "cmd_xgroup.h"
#include "cmd_xstream.h"
#include "cmd_zset.h"
#include "key_specs.h"
#include "keyspace.h"
#include "lazyfree.h"
#include "olist.h"
#include "omap.h"
#include "xstream.h"
#include "zset.h"

static void zset_value_free(void *value)
{
    zs_free(value);
}

/* Hashes and sets past LAZYFREE_MIN elements (a hundred chunks or more) go
 * to lazyfree.h, which frees them a slice per loop turn: a set of ten
 * million members is hundreds of thousands of chunks, tens of milliseconds
 * to free at once (docs/internals.md, "Hashes and sets"). */
#define LAZYFREE_MIN 8192

static int omap_free_slice(void *value, size_t budget)
{
    return om_free_some(value, budget);
}

static void omap_value_free(void *value)
{
    if (om_len(value) > LAZYFREE_MIN)
        lazyfree_push(omap_free_slice, value);
    else
        om_free(value);
}

/* Lists of more chunks than Redis's LAZYFREE_THRESHOLD (which counts a
 * quicklist's nodes) are freed in slices too: one free per chunk. */
#define LAZYFREE_MIN_CHUNKS 64

static int olist_free_slice(void *value, size_t budget)
{
    return ol_free_some(value, budget);
}

static void olist_value_free(void *value)
{
    if (ol_chunks(value) > LAZYFREE_MIN_CHUNKS)
        lazyfree_push(olist_free_slice, value);
    else
        ol_free(value);
}

static int xstream_free_slice(void *value, size_t budget)
{
    return xs_free_some(value, budget);
}

static void xstream_value_free(void *value)
{
    if (xs_len(value) > LAZYFREE_MIN)
        lazyfree_push(xstream_free_slice, value);
    else
        xs_free(value);
}

void commands_register(void)
{
    static const struct command *const tables[] = {
        connection_commands,
        string_commands,
        lcs_commands,
        bitmap_commands,
        hll_commands,
        keys_commands,
        sort_commands,
        dump_commands,
        migrate_commands,
        ordered_commands,
        zset_commands,
        geo_commands,
        hash_commands,
        set_commands,
        list_commands,
        collrange_commands,
        scan_commands,
        server_commands,
        config_commands,
        persist_commands,
        command_commands,
        acl_commands,
        multi_commands,
        repl_commands,
        pubsub_commands,
        script_commands,
        debug_commands,
        function_commands,
        object_commands,
        slowlog_commands,
        latency_commands,
        memory_commands,
        xstream_commands,
        xgroup_commands,
        cluster_commands,
    };
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
        command_register(tables[i]);
    keyspec_register(command_key_specs);
    migrate_link_init();
    ks_register_type(KS_ZSET, zset_value_free);
    ks_register_type(KS_HASH, omap_value_free);
    ks_register_type(KS_SET, omap_value_free);
    ks_register_type(KS_LIST, olist_value_free);
    ks_register_type(KS_STREAM, xstream_value_free);
}
