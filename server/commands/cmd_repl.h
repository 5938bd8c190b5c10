/*
 * cmd_repl.h - the command table of cmd_repl.c, for commands_register, and
 * INFO's replication section for cmd_server.c.
 */
#ifndef RBKV_CMD_REPL_H
#define RBKV_CMD_REPL_H

#include "command.h"

extern const struct command repl_commands[];

/* INFO's "# Replication" section, allocated with xmalloc. */
char *cmd_repl_info(void);

#endif
