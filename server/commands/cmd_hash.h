/*
 * cmd_hash.h - the command table of cmd_hash.c, for commands_register.
 */
#ifndef RBKV_CMD_HASH_H
#define RBKV_CMD_HASH_H

#include "command.h"

extern const struct command hash_commands[];

#endif
