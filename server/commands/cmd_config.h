/*
 * cmd_config.h - the command table of cmd_config.c, for commands_register.
 */
#ifndef RBKV_CMD_CONFIG_H
#define RBKV_CMD_CONFIG_H

#include "command.h"

extern const struct command config_commands[];

#endif
