/*
 * commands.h - the command layer's tables, and registering them with the
 * dispatcher (commands.c).
 *
 * Each cmd_*.c module owns one `const` table of rows, each row beside its
 * handler, ending with a row whose name is NULL. Adding a module means adding
 * its table here and to commands_register.
 */
#ifndef RBKV_COMMANDS_H
#define RBKV_COMMANDS_H

#include "command.h"

extern const struct command connection_commands[];
extern const struct command string_commands[];
extern const struct command keys_commands[];
extern const struct command ordered_commands[];
extern const struct command zset_commands[];
extern const struct command scan_commands[];
extern const struct command server_commands[];
extern const struct command config_commands[];
extern const struct command persist_commands[];
extern const struct command command_commands[];
extern const struct command multi_commands[];

/* At start, once, before the config is read (rename-command checks names
 * against the registered commands): registers every table, in the order
 * COMMAND lists them, and the value types the commands store. */
void commands_register(void);

#endif
