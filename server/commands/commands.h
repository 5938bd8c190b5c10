/*
 * commands.h - registering the command layer with the dispatcher
 * (commands.c).
 *
 * Each cmd_*.c module owns one `const` table of rows, each row beside its
 * handler, ending with a row whose name is NULL, and declares it in its own
 * cmd_*.h. Adding a module means adding its table to commands_register.
 */
#ifndef RBKV_COMMANDS_H
#define RBKV_COMMANDS_H

/* At start, once, before the config is read (rename-command checks names
 * against the registered commands): registers every table, in the order
 * COMMAND lists them, and the value types the commands store. Aborts the
 * start on a row whose docs are misplaced (command_docs_misplaced,
 * cmd_command.h): only rbkv's own commands carry docs. */
void commands_register(void);

#endif
