/*
 * cmd_ordered.h - the command table of cmd_ordered.c, for commands_register.
 */
#ifndef RBKV_CMD_ORDERED_H
#define RBKV_CMD_ORDERED_H

#include "command.h"

extern const struct command ordered_commands[];

#endif
