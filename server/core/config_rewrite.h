/*
 * config_rewrite.h - CONFIG REWRITE (config_rewrite.c).
 */
#ifndef RBKV_CONFIG_REWRITE_H
#define RBKV_CONFIG_REWRITE_H

#include <stddef.h>

#include "config.h"

/* CONFIG REWRITE: rewrites the file at path so that loading it gives cfg.
 * Comments, blank lines and lines it does not know stay as they are; a
 * setting's first line is replaced in place and its later lines dropped;
 * settings that differ from their defaults and have no line are appended.
 * The file's "user" lines become user_lines[0..nuser_lines) ("user <name>
 * <rules>", the caller's): in place of the old ones in turn, the rest
 * appended, old ones left over dropped, as Redis does. The new file
 * replaces the old one by rename, so a crash leaves one or the other.
 * Returns 0, or -1 with strerror's text in err. */
int config_rewrite(const struct config *cfg, const char *path, const char *const *user_lines,
                   size_t nuser_lines, char *err, size_t errlen);

#endif
