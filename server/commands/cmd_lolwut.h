/*
 * cmd_lolwut.h - the command table of cmd_lolwut.c (LOLWUT), for
 * commands_register.
 */
#ifndef RBKV_CMD_LOLWUT_H
#define RBKV_CMD_LOLWUT_H

#include "command.h"

extern const struct command lolwut_commands[];

#endif
