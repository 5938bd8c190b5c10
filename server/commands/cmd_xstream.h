/*
 * cmd_xstream.h - the command table of cmd_xstream.c, for commands_register.
 */
#ifndef RBKV_CMD_XSTREAM_H
#define RBKV_CMD_XSTREAM_H

#include "command.h"

extern const struct command xstream_commands[];

#endif
