/*
 * cmd_sort.h - the command table of cmd_sort.c, for commands_register.
 */
#ifndef RBKV_CMD_SORT_H
#define RBKV_CMD_SORT_H

#include "command.h"

extern const struct command sort_commands[];

#endif
