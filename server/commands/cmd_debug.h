/*
 * cmd_debug.h - the command table of cmd_debug.c, for commands_register.
 */
#ifndef RBKV_CMD_DEBUG_H
#define RBKV_CMD_DEBUG_H

#include "command.h"

extern const struct command debug_commands[];

#endif
