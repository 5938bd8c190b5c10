/*
 * acl_log.h - ACL LOG (acl_log.c).
 */
#ifndef RBKV_ACL_LOG_H
#define RBKV_ACL_LOG_H

#include <stddef.h>

#include "acl.h"

struct client;
struct resp_out;

/* ACL LOG: reason "auth", "command", "key" or "channel"; object the
 * command's name, key or channel (copied). c may be NULL. */
void acl_log_add(struct client *c, const char *reason, enum acl_log_context ctx,
                 const char *object, size_t olen, const char *username, size_t ulen);
/* ACL LOG [count]: the newest count entries (all for count < 0) as Redis's
 * maps. */
void acl_log_reply(struct resp_out *o, long count);
/* ACL LOG RESET. */
void acl_log_reset(void);

#endif
