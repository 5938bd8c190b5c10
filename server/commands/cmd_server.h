/*
 * cmd_server.h - the command table of cmd_server.c, for commands_register.
 */
#ifndef RBKV_CMD_SERVER_H
#define RBKV_CMD_SERVER_H

#include "command.h"

extern const struct command server_commands[];

#endif
