/*
 * cmd_module.h - the command table of cmd_module.c (MODULE), for
 * commands_register.
 */
#ifndef RBKV_CMD_MODULE_H
#define RBKV_CMD_MODULE_H

#include "command.h"

extern const struct command module_commands[];

#endif
