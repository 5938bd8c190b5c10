/*
 * cmd_hll.h - the command table of cmd_hll.c, for commands_register.
 */
#ifndef RBKV_CMD_HLL_H
#define RBKV_CMD_HLL_H

#include "command.h"

extern const struct command hll_commands[];

#endif
