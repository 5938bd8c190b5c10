/*
 * commands.c - registers the command layer with the dispatcher
 * (commands.h).
 */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>

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
#include "cmd_lolwut.h"
#include "cmd_memory.h"
#include "cmd_module.h"
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
#include "olist.h"
#include "omap.h"
#include "xstream.h"
#include "zset.h"

/* Each type's free function and effort (keyspace.h): the effort counts the
 * blocks a free gives back, as Redis's lazyfreeGetFreeEffort counts a
 * skiplist's nodes, a quicklist's nodes or a hash table's entries, and a
 * packed value (Redis's listpack or intset) is 1. */
static void zset_value_free(void *value)
{
    zs_free(value);
}

static size_t zset_effort(const void *value)
{
    /* A node per member, pending cuts' too, and the buckets. */
    return zs_len(value) + zs_cut_pending(value) + 1;
}

static void omap_value_free(void *value)
{
    om_free(value);
}

static size_t omap_effort(const void *value)
{
    return om_free_effort(value);
}

static void olist_value_free(void *value)
{
    ol_free(value);
}

static size_t olist_effort(const void *value)
{
    return ol_chunks(value) + 1;
}

static void xstream_value_free(void *value)
{
    xs_free(value);
}

static size_t xstream_effort(const void *value)
{
    return xs_free_effort(value);
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
        module_commands,
        lolwut_commands,
        memory_commands,
        xstream_commands,
        xgroup_commands,
        cluster_commands,
    };
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
        const char *bad = command_docs_misplaced(tables[i]);
        if (bad) {
            fprintf(stderr,
                    "rbkv: the row of '%s' has docs of its own where Redis 7.0's answer, or "
                    "none where they do not (command_docs_misplaced)\n",
                    bad);
            abort();
        }
        command_register(tables[i]);
    }
    keyspec_register(command_key_specs);
    migrate_link_init();
    ks_register_type(KS_ZSET, zset_value_free, zset_effort);
    ks_register_type(KS_HASH, omap_value_free, omap_effort);
    ks_register_type(KS_SET, omap_value_free, omap_effort);
    ks_register_type(KS_LIST, olist_value_free, olist_effort);
    ks_register_type(KS_STREAM, xstream_value_free, xstream_effort);
}
