/*
 * cmd_persist.h - the command table of cmd_persist.c, for commands_register.
 */
#ifndef RBKV_CMD_PERSIST_H
#define RBKV_CMD_PERSIST_H

#include "command.h"

extern const struct command persist_commands[];

#endif
