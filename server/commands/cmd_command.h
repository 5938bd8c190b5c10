/*
 * cmd_command.h - the command table of cmd_command.c, for commands_register.
 */
#ifndef RBKV_CMD_COMMAND_H
#define RBKV_CMD_COMMAND_H

#include "command.h"

extern const struct command command_commands[];

#endif
