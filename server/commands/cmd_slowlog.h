/*
 * cmd_slowlog.h - the command table of cmd_slowlog.c (SLOWLOG), for
 * commands_register.
 */
#ifndef RBKV_CMD_SLOWLOG_H
#define RBKV_CMD_SLOWLOG_H

#include "command.h"

extern const struct command slowlog_commands[];

#endif
