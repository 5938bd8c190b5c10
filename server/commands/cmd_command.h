/*
 * cmd_command.h - the command table of cmd_command.c, for commands_register.
 */
#ifndef RBKV_CMD_COMMAND_H
#define RBKV_CMD_COMMAND_H

#include "command.h"

extern const struct command command_commands[];

/* The full name of the first row of table, or of its subcommands, whose
 * docs are misplaced: a command Redis 7.0 has that carries docs of its own
 * (COMMAND DOCS answers Redis's, redis_docs.c, so they would be dead and
 * drift), or one of rbkv's own that carries none; NULL when every row is
 * right. commands_register refuses to start on such a row. */
const char *command_docs_misplaced(const struct command *table);

#endif
