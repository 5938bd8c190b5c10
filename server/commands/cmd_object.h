/*
 * cmd_object.h - the command table of cmd_object.c (OBJECT), for
 * commands_register.
 */
#ifndef RBKV_CMD_OBJECT_H
#define RBKV_CMD_OBJECT_H

#include "command.h"

extern const struct command object_commands[];

#endif
