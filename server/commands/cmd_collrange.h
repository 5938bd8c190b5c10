/*
 * cmd_collrange.h - the command table of cmd_collrange.c, for
 * commands_register.
 */
#ifndef RBKV_CMD_COLLRANGE_H
#define RBKV_CMD_COLLRANGE_H

#include "command.h"

extern const struct command collrange_commands[];

#endif
