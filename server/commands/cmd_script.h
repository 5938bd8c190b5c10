/*
 * cmd_script.h - the command table of cmd_script.c (EVAL, EVALSHA,
 * EVAL_RO, EVALSHA_RO, SCRIPT), for commands_register.
 */
#ifndef RBKV_CMD_SCRIPT_H
#define RBKV_CMD_SCRIPT_H

#include "command.h"

extern const struct command script_commands[];

#endif
