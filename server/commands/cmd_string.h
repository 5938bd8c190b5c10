/*
 * cmd_string.h - the command table of cmd_string.c, for commands_register.
 */
#ifndef RBKV_CMD_STRING_H
#define RBKV_CMD_STRING_H

#include "command.h"

extern const struct command string_commands[];

#endif
