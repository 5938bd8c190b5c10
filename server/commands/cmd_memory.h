/*
 * cmd_memory.h - the command table of cmd_memory.c, for commands_register.
 */
#ifndef RBKV_CMD_MEMORY_H
#define RBKV_CMD_MEMORY_H

#include "command.h"

extern const struct command memory_commands[];

#endif
