/*
 * commands.h - the command tables each cmd_*.c module exports.
 *
 * A module's table is an array of struct command ending with an entry whose
 * name is NULL. command.c gathers them all at start; adding a module means
 * adding its table to the list in command.c.
 */
#ifndef RBKV_COMMANDS_H
#define RBKV_COMMANDS_H

#include "server.h"

extern struct command string_commands[];
extern struct command keys_commands[];
extern struct command ordered_commands[];
extern struct command scan_commands[];
extern struct command server_commands[];
extern struct command connection_commands[];
extern struct command command_commands[];
extern struct command zset_commands[];

/* Registers the sorted-set value type with the keyspace; once, at start. */
void cmd_zset_init(void);

#endif
