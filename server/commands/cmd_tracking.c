/*
 * cmd_tracking.c - the CLIENT subcommands of client-side caching: TRACKING,
 * CACHING, GETREDIR, TRACKINGINFO, with Redis 7.0's checks in its order and
 * its error texts. The state and the invalidations are core/tracking.c's.
 */
#include "cmd_tracking.h"

#include <string.h>

#include "args.h"
#include "client.h"
#include "conn.h"
#include "mem.h"
#include "tracking.h"

/* Redis's checkPrefixCollisionsOrReply: no new prefix may start, or be
 * started by, one the client has or another new one. Returns 0 or -1 after
 * the error reply. */
static int prefixes_collide_or_reply(struct client *c, const struct resp_slice *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < tracking_prefix_count(c); j++) {
            size_t len;
            const char *old = tracking_prefix(c, j, &len);
            if (tracking_prefixes_overlap(old, len, p[i].ptr, p[i].len)) {
                resp_add_errorf(&c->out,
                                "ERR Prefix '%.*s' overlaps with an existing prefix '%.*s'. "
                                "Prefixes for a single client must not overlap.",
                                (int)p[i].len, p[i].ptr, (int)len, old);
                return -1;
            }
        }
        for (size_t j = i + 1; j < n; j++) {
            if (tracking_prefixes_overlap(p[i].ptr, p[i].len, p[j].ptr, p[j].len)) {
                resp_add_errorf(&c->out,
                                "ERR Prefix '%.*s' overlaps with another provided prefix '%.*s'. "
                                "Prefixes for a single client must not overlap.",
                                (int)p[i].len, p[i].ptr, (int)p[j].len, p[j].ptr);
                return -1;
            }
        }
    }
    return 0;
}

/* CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN]
 * [OPTOUT] [NOLOOP]: the options are all read before ON or OFF is. */
void client_tracking(struct client *c)
{
    long long redirect = 0;
    unsigned options = 0;
    struct resp_slice *prefixes = NULL;
    size_t n = 0;
    for (int j = 3; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        const struct resp_slice *a = &c->argv[j];
        if (arg_is(a, "REDIRECT") && more) {
            j++;
            if (redirect) {
                resp_add_error(&c->out, "ERR A client can only redirect to a single other client");
                goto done;
            }
            if (arg_ll_or_reply(c, &c->argv[j], &redirect) < 0)
                goto done;
            /* The client must exist now, even if it may go later. */
            if (redirect <= 0 || !conn_find((uint64_t)redirect)) {
                resp_add_error(&c->out, "ERR The client ID you want redirect to does not exist");
                goto done;
            }
        } else if (arg_is(a, "BCAST")) {
            options |= TRACKING_BCAST;
        } else if (arg_is(a, "OPTIN")) {
            options |= TRACKING_OPTIN;
        } else if (arg_is(a, "OPTOUT")) {
            options |= TRACKING_OPTOUT;
        } else if (arg_is(a, "NOLOOP")) {
            options |= TRACKING_NOLOOP;
        } else if (arg_is(a, "PREFIX") && more) {
            j++;
            prefixes = xrealloc(prefixes, (n + 1) * sizeof(*prefixes));
            prefixes[n++] = c->argv[j];
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            goto done;
        }
    }
    unsigned now = tracking_flags(c);
    if (arg_is(&c->argv[2], "ON")) {
        if (!(options & TRACKING_BCAST) && n) {
            resp_add_error(&c->out, "ERR PREFIX option requires BCAST mode to be enabled");
            goto done;
        }
        if ((now & TRACKING_ON) && !!(now & TRACKING_BCAST) != !!(options & TRACKING_BCAST)) {
            resp_add_error(&c->out,
                           "ERR You can't switch BCAST mode on/off before disabling tracking "
                           "for this client, and then re-enabling it with a different mode.");
            goto done;
        }
        if ((options & TRACKING_BCAST) && (options & (TRACKING_OPTIN | TRACKING_OPTOUT))) {
            resp_add_error(&c->out, "ERR OPTIN and OPTOUT are not compatible with BCAST");
            goto done;
        }
        if ((options & TRACKING_OPTIN) && (options & TRACKING_OPTOUT)) {
            resp_add_error(&c->out, "ERR You can't specify both OPTIN mode and OPTOUT mode");
            goto done;
        }
        if (((options & TRACKING_OPTIN) && (now & TRACKING_OPTOUT)) ||
            ((options & TRACKING_OPTOUT) && (now & TRACKING_OPTIN))) {
            resp_add_error(&c->out,
                           "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking "
                           "for this client, and then re-enabling it with a different mode.");
            goto done;
        }
        if ((options & TRACKING_BCAST) && prefixes_collide_or_reply(c, prefixes, n) < 0)
            goto done;
        tracking_enable(c, (uint64_t)redirect, options, prefixes, n);
    } else if (arg_is(&c->argv[2], "OFF")) {
        tracking_disable(c);
    } else {
        resp_add_error(&c->out, ERR_SYNTAX);
        goto done;
    }
    reply_ok(c);
done:
    xfree(prefixes);
}

void client_caching(struct client *c)
{
    unsigned f = tracking_flags(c);
    if (!(f & TRACKING_ON)) {
        resp_add_error(&c->out, "ERR CLIENT CACHING can be called only when the client is in "
                                "tracking mode with OPTIN or OPTOUT mode enabled");
        return;
    }
    if (arg_is(&c->argv[2], "YES")) {
        if (!(f & TRACKING_OPTIN)) {
            resp_add_error(&c->out, "ERR CLIENT CACHING YES is only valid when tracking is "
                                    "enabled in OPTIN mode.");
            return;
        }
    } else if (arg_is(&c->argv[2], "NO")) {
        if (!(f & TRACKING_OPTOUT)) {
            resp_add_error(&c->out, "ERR CLIENT CACHING NO is only valid when tracking is "
                                    "enabled in OPTOUT mode.");
            return;
        }
    } else {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    tracking_set_caching(c);
    reply_ok(c);
}

void client_getredir(struct client *c)
{
    unsigned f = tracking_flags(c);
    resp_add_int(&c->out, (f & TRACKING_ON) ? (long long)tracking_redirect(c) : -1);
}

void client_trackinginfo(struct client *c)
{
    unsigned f = tracking_flags(c);
    const char *flags[8];
    size_t n = 0;
    flags[n++] = (f & TRACKING_ON) ? "on" : "off";
    if (f & TRACKING_BCAST)
        flags[n++] = "bcast";
    if (f & TRACKING_OPTIN) {
        flags[n++] = "optin";
        if (f & TRACKING_CACHING)
            flags[n++] = "caching-yes";
    }
    if (f & TRACKING_OPTOUT) {
        flags[n++] = "optout";
        if (f & TRACKING_CACHING)
            flags[n++] = "caching-no";
    }
    if (f & TRACKING_NOLOOP)
        flags[n++] = "noloop";
    if (f & TRACKING_BROKEN_REDIR)
        flags[n++] = "broken_redirect";
    resp_add_map_len(&c->out, 3);
    resp_add_bulk_cstr(&c->out, "flags");
    resp_add_set_len(&c->out, n);
    for (size_t i = 0; i < n; i++)
        resp_add_bulk_cstr(&c->out, flags[i]);
    resp_add_bulk_cstr(&c->out, "redirect");
    resp_add_int(&c->out, (f & TRACKING_ON) ? (long long)tracking_redirect(c) : -1);
    resp_add_bulk_cstr(&c->out, "prefixes");
    size_t np = tracking_prefix_count(c);
    resp_add_array_len(&c->out, np);
    for (size_t i = 0; i < np; i++) {
        size_t len;
        const char *p = tracking_prefix(c, i, &len);
        resp_add_bulk(&c->out, p, len);
    }
}
