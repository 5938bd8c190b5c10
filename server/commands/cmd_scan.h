/*
 * cmd_scan.h - the command table of cmd_scan.c, for commands_register.
 */
#ifndef RBKV_CMD_SCAN_H
#define RBKV_CMD_SCAN_H

#include "command.h"

extern const struct command scan_commands[];

#endif
