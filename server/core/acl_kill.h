/*
 * acl_kill.h - the subscribers a change of rules leaves without permission
 * (acl_kill.c), closed as Redis 7.0 closes them.
 */
#ifndef RBKV_ACL_KILL_H
#define RBKV_ACL_KILL_H

struct acl_user;
struct client;

/* Whether any selector of u names a channel pattern or has allchannels:
 * what ACL SETUSER must note before it changes u, for
 * acl_kill_revoked_subscribers. */
int acl_user_has_channels(const struct acl_user *u);
/* After ACL SETUSER changed u's rules in place (had_channels: what
 * acl_user_has_channels said before), closes those of u's clients with a
 * subscription the new rules no longer grant; self, the client asking,
 * once its reply is out. */
void acl_kill_revoked_subscribers(struct acl_user *u, int had_channels, struct client *self);

#endif
