/*
 * acl_deny.h - the NOPERM reply and ACL LOG entry of a refused request
 * (acl_deny.c).
 */
#ifndef RBKV_ACL_DENY_H
#define RBKV_ACL_DENY_H

#include "acl.h"

struct client;
struct command;
struct resp_out;
struct resp_slice;

/* Checks c's request, and on a denial replies with Redis's NOPERM text and
 * logs it. Returns 1 when refused. */
int acl_refuses(struct client *c, const struct command *cmd);
/* EXEC's check of a queued command (c->argv), as Redis re-checks it there:
 * the rules may have changed since it was queued. On a denial replies with
 * Redis's "ACLs rules changed" NOPERM and logs it; returns 1. */
int acl_refuses_at_exec(struct client *c, const struct command *cmd);
/* Redis's NOPERM error for a denial; object is the command's name (with
 * "|sub") for ACL_DENIED_CMD, unused otherwise. */
void acl_add_denial(struct resp_out *o, enum acl_denial d, const char *object);

/* Logs denial d of cmd, the row that would run (a subcommand's own), with
 * the request's argv (pos as acl_check gave it) for c's user. */
void acl_log_denial(struct client *c, enum acl_log_context ctx, enum acl_denial d,
                    const struct command *cmd, const struct resp_slice *argv, int pos);

#endif
