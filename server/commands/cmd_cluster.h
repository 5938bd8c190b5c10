/*
 * cmd_cluster.h - the command table of cmd_cluster.c (CLUSTER, ASKING,
 * READONLY, READWRITE), for commands_register.
 */
#ifndef RBKV_CMD_CLUSTER_H
#define RBKV_CMD_CLUSTER_H

#include "command.h"

extern const struct command cluster_commands[];

#endif
