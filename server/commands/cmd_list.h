/*
 * cmd_list.h - the command table of cmd_list.c, for commands_register.
 */
#ifndef RBKV_CMD_LIST_H
#define RBKV_CMD_LIST_H

#include "command.h"

extern const struct command list_commands[];

#endif
