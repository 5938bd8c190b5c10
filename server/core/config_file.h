/*
 * config_file.h - the config file and the command line's --flags
 * (config_file.c).
 */
#ifndef RBKV_CONFIG_FILE_H
#define RBKV_CONFIG_FILE_H

#include <stddef.h>

#include "config.h"

/* Reads a file of "name value..." lines as redis-server does: '#' comment
 * lines, blank lines, "double quoted" values with \n \xHH \" escapes and
 * 'single quoted' ones. Later lines override earlier ones. Returns 0; on error
 * -1 with, in err, Redis's three lines: the file and line number, ">>> 'the
 * line'", and the reason. */
int config_load_file(struct config *cfg, const char *path, char *err, size_t errlen);

/* config_load_file on a file's text already in buf (NUL-terminated, cut into
 * lines in place), path naming it in the errors: what a fuzz target feeds.
 * "rename-command" lines need the command table, "user" lines the command
 * table and server.cfg; no other line needs a running server. */
int config_load_buffer(struct config *cfg, char *buf, const char *path, char *err, size_t errlen);

/* Applies "--name value..." flags (argv[0] is the first flag, not the program
 * nor the config file); each flag takes the words up to the next "--word".
 * Returns 0; on error -1 with a message naming the flag in err. */
int config_load_args(struct config *cfg, int argc, char **argv, char *err, size_t errlen);

#endif
