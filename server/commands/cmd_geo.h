/*
 * cmd_geo.h - the command table of cmd_geo.c, for commands_register.
 */
#ifndef RBKV_CMD_GEO_H
#define RBKV_CMD_GEO_H

#include "command.h"

extern const struct command geo_commands[];

#endif
