/*
 * cmd_set.h - the command table of cmd_set.c, for commands_register.
 */
#ifndef RBKV_CMD_SET_H
#define RBKV_CMD_SET_H

#include "command.h"

extern const struct command set_commands[];

#endif
