/*
 * cmd_function.h - FUNCTION, FCALL and FCALL_RO (cmd_function.c).
 */
#ifndef RBKV_CMD_FUNCTION_H
#define RBKV_CMD_FUNCTION_H

#include "command.h"

extern const struct command function_commands[];

#endif
