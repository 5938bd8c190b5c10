/*
 * cmd_bitmap.h - the command table of cmd_bitmap.c, for commands_register.
 */
#ifndef RBKV_CMD_BITMAP_H
#define RBKV_CMD_BITMAP_H

#include "command.h"

extern const struct command bitmap_commands[];

#endif
