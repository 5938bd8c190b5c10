/*
 * cmd_keys.h - the command table of cmd_keys.c, for commands_register.
 */
#ifndef RBKV_CMD_KEYS_H
#define RBKV_CMD_KEYS_H

#include "command.h"

extern const struct command keys_commands[];

#endif
