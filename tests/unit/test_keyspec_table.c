/*
 * test_keyspec_table.c - unit test of the start-up check that every row of
 * the key specs table (server/commands/key_specs.c) names a command
 * (keyspec_unknown, server/core/keyspec.c): the shipped table passes, and
 * tables with a row for no command, or for no subcommand of a real
 * container, are caught by that row's name, without shipping a bad row.
 */
#include <string.h>

#include "check.h"
#include "command.h"
#include "commands.h"
#include "key_specs.h"
#include "keyspec.h"

int main(void)
{
    commands_register();
    command_init(); /* aborts, as the server's start, if the shipped table had a bad row */
    CHECK(keyspec_unknown(command_key_specs) == NULL);

    static const struct command_key_specs no_command[] = {
        {.name = "get", .count = 1, .specs = {{.flags = KEY_RO | KEY_ACCESS, .index = 1}}},
        {.name = "gte", .count = 1, .specs = {{.flags = KEY_RO | KEY_ACCESS, .index = 1}}},
        {0},
    };
    const char *bad = keyspec_unknown(no_command);
    CHECK(bad && strcmp(bad, "gte") == 0);

    static const struct command_key_specs no_subcommand[] = {
        {.name = "object|encodings", .count = 1, .specs = {{.flags = KEY_RO, .index = 2}}},
        {0},
    };
    bad = keyspec_unknown(no_subcommand);
    CHECK(bad && strcmp(bad, "object|encodings") == 0);

    /* A subcommand's row under its full name is no mismatch. */
    static const struct command_key_specs subcommand[] = {
        {.name = "object|encoding", .count = 1, .specs = {{.flags = KEY_RO, .index = 2}}},
        {0},
    };
    CHECK(keyspec_unknown(subcommand) == NULL);
    CHECK(keyspec_unknown(NULL) == NULL);
    return 0;
}
