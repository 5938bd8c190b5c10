/*
 * cmd_pubsub.h - the command table of cmd_pubsub.c, for commands_register.
 */
#ifndef RBKV_CMD_PUBSUB_H
#define RBKV_CMD_PUBSUB_H

#include "command.h"

extern const struct command pubsub_commands[];

#endif
