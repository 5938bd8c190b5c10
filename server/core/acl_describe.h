/*
 * acl_describe.h - a user's rules as text (acl_describe.c).
 */
#ifndef RBKV_ACL_DESCRIBE_H
#define RBKV_ACL_DESCRIBE_H

#include <stddef.h>

struct acl_user;

/* What a user's description is made of, each an xmalloc'd string: the flags
 * and passwords ("on #..."), and for selector i its commands, keys and
 * channels. acl_describe is ACL LIST's whole line after "user <name> ". */
char *acl_describe(const struct acl_user *u);
char *acl_describe_flags(const struct acl_user *u);
/* u's flags as Redis 7.0 lists them (ACL GETUSER's "flags", the start of
 * ACL LIST's line): "on" or "off", then "nopass", "skip-sanitize-payload",
 * "sanitize-payload" when set. Fills words (static strings) and returns how
 * many, at most ACL_FLAG_WORDS_MAX. */
#define ACL_FLAG_WORDS_MAX 3
size_t acl_flag_words(const struct acl_user *u, const char **words);
char *acl_describe_commands(const struct acl_user *u, size_t sel);
char *acl_describe_keys(const struct acl_user *u, size_t sel);
char *acl_describe_channels(const struct acl_user *u, size_t sel);

#endif
