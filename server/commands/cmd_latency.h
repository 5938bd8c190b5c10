/*
 * cmd_latency.h - the command table of cmd_latency.c (LATENCY), for
 * commands_register.
 */
#ifndef RBKV_CMD_LATENCY_H
#define RBKV_CMD_LATENCY_H

#include "command.h"

extern const struct command latency_commands[];

#endif
