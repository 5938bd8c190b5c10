/*
 * test_command_docs_table.c - unit test of the start-up check that only
 * rbkv's own commands carry docs in their rows (command_docs_misplaced,
 * server/commands/cmd_command.c): the shipped tables pass, and a row of a
 * command Redis 7.0 has that carries docs (dead: COMMAND DOCS answers
 * Redis's), or a row of rbkv's own without any, is caught by its name,
 * in a table or among a container's subcommands.
 */
#include <string.h>

#include "check.h"
#include "cmd_collrange.h"
#include "cmd_command.h"
#include "cmd_connection.h"
#include "cmd_ordered.h"
#include "cmd_string.h"
#include "commands.h"

static const struct command_docs some_docs = {
    .since = "0.1.0", .summary = "a summary", .complexity = "O(1)", .args = "key"};

static void check_misplaced(const struct command *table, const char *want)
{
    const char *bad = command_docs_misplaced(table);
    if (!want)
        CHECK_MSG(bad == NULL, "%s", bad);
    else
        CHECK_MSG(bad && strcmp(bad, want) == 0, "want %s, got %s", want, bad ? bad : "NULL");
}

int main(void)
{
    commands_register(); /* aborts, as the server's start, if a shipped row were wrong */
    check_misplaced(string_commands, NULL);
    check_misplaced(ordered_commands, NULL);
    check_misplaced(collrange_commands, NULL);
    check_misplaced(connection_commands, NULL); /* CLIENT SETINFO and NO-TOUCH are rbkv's */
    check_misplaced(NULL, NULL);

    static const struct command right[] = {
        {.name = "get", .group = "string"},
        {.name = "krange", .group = "keyspace", .docs = &some_docs},
        {0},
    };
    check_misplaced(right, NULL);

    static const struct command redis_row_with_docs[] = {
        {.name = "get", .group = "string"},
        {.name = "set", .group = "string", .docs = &some_docs},
        {0},
    };
    check_misplaced(redis_row_with_docs, "set");

    static const struct command own_row_without_docs[] = {
        {.name = "krange", .group = "keyspace", .docs = &some_docs},
        {.name = "kcount", .group = "keyspace"},
        {0},
    };
    check_misplaced(own_row_without_docs, "kcount");

    /* Subcommands under their full names, both ways. */
    static const struct command sub_redis_with_docs[] = {
        {.name = "client|setinfo", .group = "connection", .docs = &some_docs},
        {.name = "client|id", .group = "connection", .docs = &some_docs},
        {0},
    };
    static const struct command sub_own_without_docs[] = {
        {.name = "client|id", .group = "connection"},
        {.name = "client|no-touch", .group = "connection"},
        {0},
    };
    static const struct command container1[] = {
        {.name = "client", .group = "connection", .subcommands = sub_redis_with_docs},
        {0},
    };
    static const struct command container2[] = {
        {.name = "client", .group = "connection", .subcommands = sub_own_without_docs},
        {0},
    };
    check_misplaced(container1, "client|id");
    check_misplaced(container2, "client|no-touch");
    return 0;
}
