/*
 * cmd_zset.h - the command table of cmd_zset.c, for commands_register.
 */
#ifndef RBKV_CMD_ZSET_H
#define RBKV_CMD_ZSET_H

#include "command.h"

extern const struct command zset_commands[];

#endif
