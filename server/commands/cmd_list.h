/*
 * cmd_list.h - the command table of cmd_list.c, for commands_register.
 */
#ifndef RBKV_CMD_LIST_H
#define RBKV_CMD_LIST_H

#include "command.h"

extern const struct command list_commands[];

struct ol_limits;
/* A list's chunk size from list-max-listpack-size, capped as Redis caps it. */
void list_limits(struct ol_limits *lim);

#endif
