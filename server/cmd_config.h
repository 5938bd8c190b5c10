/*
 * cmd_config.h - the CONFIG command (GET, SET, RESETSTAT, REWRITE, HELP).
 */
#ifndef RBKV_CMD_CONFIG_H
#define RBKV_CMD_CONFIG_H

struct client;

/* CONFIG <subcommand> ...: arity -2 in the command table; each subcommand's
 * own arity is checked here, with Redis's 'config|get' error text. */
void cmd_config(struct client *c);

#endif
