/*
 * cmd_migrate.h - the command table of cmd_migrate.c, for commands_register.
 */
#ifndef RBKV_CMD_MIGRATE_H
#define RBKV_CMD_MIGRATE_H

#include "command.h"

extern const struct command migrate_commands[];

#endif
