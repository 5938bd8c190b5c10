/*
 * cmd_object.h - the command table of cmd_object.c (OBJECT), for
 * commands_register.
 */
#ifndef RBKV_CMD_OBJECT_H
#define RBKV_CMD_OBJECT_H

#include "command.h"

extern const struct command object_commands[];

struct ks_entry;
/* OBJECT ENCODING's answer for e (also DEBUG OBJECT's encoding:): a static
 * string. */
const char *object_encoding_name(const struct ks_entry *e);

#endif
