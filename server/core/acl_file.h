/*
 * acl_file.h - the ACL file's lines, read and written (acl_file.c).
 */
#ifndef RBKV_ACL_FILE_H
#define RBKV_ACL_FILE_H

#include <stddef.h>
#include <stdio.h>

struct client;

/* At start: acl_init, then the users of the config file's "user" lines
 * (struct config's users) or of the aclfile, never both, as Redis; -1
 * (logged with Redis's texts) when they cannot be loaded. */
int acl_start(void);
/* Replaces every user by the "user <name> <rules>" lines of path, all or
 * nothing; 0, or -1 with the reason in err. Clients of users the file no
 * longer has are closed (self after its reply); NULL self at start. */
int acl_load_file(struct client *self, const char *path, char *err, size_t errlen);
/* acl_load_file on a file already open (read to its end, not closed), path
 * naming it in the errors: what a fuzz target feeds an fmemopen'd buffer.
 * Needs the command table and server.cfg (acl-pubsub-default), no loop. */
int acl_load_stream(struct client *self, FILE *f, const char *path, char *err, size_t errlen);
/* The users as "user <name> <rules>" lines, sorted by name, as ACL SAVE
 * writes them and CONFIG REWRITE without an aclfile: *n xmalloc'd strings
 * in an xmalloc'd array, both the caller's to free. */
char **acl_user_lines(size_t *n);
/* Writes every user's line to path (through a temporary file); 0 or -1. */
int acl_save_file(const char *path, char *err, size_t errlen);

#endif
