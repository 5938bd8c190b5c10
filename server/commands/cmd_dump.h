/*
 * cmd_dump.h - the command table of cmd_dump.c, for commands_register.
 */
#ifndef RBKV_CMD_DUMP_H
#define RBKV_CMD_DUMP_H

#include "command.h"

extern const struct command dump_commands[];

#endif
