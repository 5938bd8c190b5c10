/*
 * cmd_acl.h - the command table of cmd_acl.c, for commands_register.
 */
#ifndef RBKV_CMD_ACL_H
#define RBKV_CMD_ACL_H

#include "command.h"

extern const struct command acl_commands[];

#endif
