/*
 * cmd_xgroup.h - the command table of cmd_xgroup.c, for commands_register,
 * and the consumer groups' part of XINFO, for cmd_xstream.c.
 */
#ifndef RBKV_CMD_XGROUP_H
#define RBKV_CMD_XGROUP_H

#include <stddef.h>

#include "command.h"

struct xstream;

extern const struct command xgroup_commands[];

/* XINFO GROUPS key, XINFO CONSUMERS key group: the whole reply. */
void xgroup_info_groups(struct client *c);
void xgroup_info_consumers(struct client *c);
/* XINFO STREAM FULL's "groups" value: each group with its PEL and
 * consumers, at most count PEL entries each (0: all). */
void xgroup_info_full_groups(struct client *c, const struct xstream *s, size_t count);

#endif
