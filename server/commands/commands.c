/*
 * commands.c - registers the command layer with the dispatcher
 * (commands.h).
 */
#include "commands.h"

#include "cmd_command.h"
#include "cmd_config.h"
#include "cmd_connection.h"
#include "cmd_debug.h"
#include "cmd_keys.h"
#include "cmd_multi.h"
#include "cmd_ordered.h"
#include "cmd_persist.h"
#include "cmd_pubsub.h"
#include "cmd_repl.h"
#include "cmd_scan.h"
#include "cmd_server.h"
#include "cmd_set.h"
#include "cmd_string.h"
#include "cmd_zset.h"
#include "keyspace.h"
#include "omap.h"
#include "zset.h"

static void zset_value_free(void *value)
{
    zs_free(value);
}

/* Hashes and sets: a map of a million elements is about 20,000 chunks, which
 * free in a millisecond or so, so DEL and UNLINK free it on the loop
 * (docs/internals.md, "Hashes and sets"). */
static void omap_value_free(void *value)
{
    om_free(value);
}

void commands_register(void)
{
    static const struct command *const tables[] = {
        connection_commands, string_commands, keys_commands,    ordered_commands,
        zset_commands,       set_commands,    scan_commands,   server_commands,  config_commands,
        persist_commands,    command_commands, multi_commands,  repl_commands, pubsub_commands,
        debug_commands,
    };
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
        command_register(tables[i]);
    ks_register_type(KS_ZSET, zset_value_free);
    ks_register_type(KS_HASH, omap_value_free);
    ks_register_type(KS_SET, omap_value_free);
}
