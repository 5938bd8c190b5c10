/*
 * cmd_connection.h - the command table of cmd_connection.c, for commands_register.
 */
#ifndef RBKV_CMD_CONNECTION_H
#define RBKV_CMD_CONNECTION_H

#include "command.h"

extern const struct command connection_commands[];

#endif
