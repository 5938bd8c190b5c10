/*
 * cmd_lcs.h - the command table of cmd_lcs.c, for commands_register.
 */
#ifndef RBKV_CMD_LCS_H
#define RBKV_CMD_LCS_H

#include "command.h"

extern const struct command lcs_commands[];

#endif
