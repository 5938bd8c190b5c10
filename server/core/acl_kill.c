/*
 * acl_kill.c - closing the subscribers whose channels ACL SETUSER took
 * away, as Redis 7.0.15's ACLKillPubsubClientsIfNeeded does.
 *
 * A subscriber is not checked at each message: it was checked when it
 * subscribed, so a change of rules must close those it no longer admits,
 * or they would go on receiving what they may not read. Redis's facts,
 * kept here (docs/operations.md tells operators):
 *  - Only channels count: a subscriber stays when the new rules grant its
 *    channels through any selector, even one that no longer allows
 *    SUBSCRIBE itself.
 *  - The new channel patterns of all selectors are pooled. A pattern
 *    subscription (PSUBSCRIBE) needs the same pattern, byte for byte; a
 *    channel or shard channel needs a pattern that matches it.
 *  - Nothing is checked when a new selector has allchannels, nor when the
 *    user had no channel at all before (Redis's "strict superset" test,
 *    which compares the patterns' pointers and so passes only then): a
 *    client that subscribed as another user and then AUTHed as this one
 *    is kept by a change of a user without channels, and closed by any
 *    change of one with channels.
 *  - A closed client loses what was still waiting to be sent to it, as
 *    Redis frees it at once.
 * The client asking (a RESP3 subscriber that revokes its own channels)
 * gets its reply, then closes; redis-server 7.0.15 crashes there.
 *
 * ACL DELUSER and ACL LOAD close whole users' clients (acl.c).
 */
#include "acl_kill.h"

#include "acl_internal.h"
#include "client.h"
#include "conn.h"
#include "pubsub.h"
#include "resp_parser.h"
#include "server.h"

int acl_user_has_channels(const struct acl_user *u)
{
    for (size_t i = 0; i < u->nsel; i++) {
        if (u->sel[i].allchannels || u->sel[i].nchans)
            return 1;
    }
    return 0;
}

/* Whether one of u's selectors grants the subscription. */
static int granted(const struct acl_user *u, enum pubsub_kind kind, const char *name, size_t len)
{
    struct resp_slice s = {.ptr = name, .len = len};
    for (size_t i = 0; i < u->nsel; i++) {
        if (acl_selector_channel_allowed(&u->sel[i], &s, kind == PUBSUB_PATTERN))
            return 1;
    }
    return 0;
}

/* Whether c holds a subscription u's rules do not grant. */
static int holds_revoked(const struct client *c, const struct acl_user *u)
{
    /* Patterns first, then channels and shard channels, as Redis looks. */
    static const enum pubsub_kind order[] = {PUBSUB_PATTERN, PUBSUB_CHANNEL, PUBSUB_SHARD};
    for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
        size_t n = pubsub_client_count(c, order[k]);
        for (size_t i = 0; i < n; i++) {
            size_t len;
            const char *name = pubsub_client_name(c, order[k], i, &len);
            if (!granted(u, order[k], name, len))
                return 1;
        }
    }
    return 0;
}

void acl_kill_revoked_subscribers(struct acl_user *u, int had_channels, struct client *self)
{
    if (!had_channels)
        return;
    for (size_t i = 0; i < u->nsel; i++) {
        if (u->sel[i].allchannels)
            return;
    }
    for (struct client *c = server.clients, *next; c; c = next) {
        next = c->next;
        if (c->user != u || (c->flags & CLIENT_CLOSING) || !pubsub_client_subscribed(c) ||
            !holds_revoked(c, u))
            continue;
        if (c == self)
            c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else
            conn_close(c);
    }
}
