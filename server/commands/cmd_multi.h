/*
 * cmd_multi.h - the command table of cmd_multi.c, for commands_register.
 */
#ifndef RBKV_CMD_MULTI_H
#define RBKV_CMD_MULTI_H

#include "command.h"

extern const struct command multi_commands[];

#endif
