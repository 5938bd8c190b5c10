/*
 * cmd_repl.h - the command table of cmd_repl.c, for commands_register, and
 * INFO's replication section for cmd_server.c.
 */
#ifndef RBKV_CMD_REPL_H
#define RBKV_CMD_REPL_H

#include "command.h"

extern const struct command repl_commands[];

struct text;

/* Appends INFO's "# Replication" section to t. */
void cmd_repl_info(struct text *t);

#endif
