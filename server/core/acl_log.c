/*
 * acl_log.c - ACL LOG: the denials and failed AUTHs, newest first, at most
 * acllog-max-len of them, equal ones grouped as Redis 7.0 groups them.
 *
 * Owns the entries and copies of every string in them. Knows nothing of
 * users or rules: callers pass the names (acl_deny.c's acl_log_denial, AUTH in
 * cmd_connection.c).
 */
#include "acl_log.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "clientinfo.h"
#include "clock.h"
#include "mem.h"
#include "resp_writer.h"
#include "server.h"

/* Redis groups equal denials closer than this into one entry... */
#define ACL_LOG_GROUPING_MS 60000
/* ...found among this many newest entries, so a denial costs bounded work
 * however long the log is. */
#define ACL_LOG_GROUPING_SCAN 10

static const char *const log_context_names[] = {"toplevel", "multi", "lua"};

struct acl_log_entry {
    long long count;
    char reason[8];
    enum acl_log_context ctx;
    char *object, *username, *cinfo; /* owned */
    size_t olen, ulen;
    int64_t ctime_ms;
};

static struct acl_log_entry *acllog; /* newest first */
static size_t acllog_len;

static void log_entry_destroy(struct acl_log_entry *e)
{
    xfree(e->object);
    xfree(e->username);
    xfree(e->cinfo);
}

static char *client_line(struct client *c)
{
    char line[1024];
    if (!c)
        return xstrdup("");
    client_info_line(c, line, sizeof(line));
    return xstrdup(line);
}

/* Moves acllog[i] to the head, the others down one. */
static void log_to_head(size_t i)
{
    struct acl_log_entry e = acllog[i];
    memmove(acllog + 1, acllog, i * sizeof(*acllog));
    acllog[0] = e;
}

void acl_log_add(struct client *c, const char *reason, enum acl_log_context ctx,
                 const char *object, size_t olen, const char *username, size_t ulen)
{
    int64_t now = mstime();
    /* A similar recent entry is counted, refreshed and made the newest, as
     * Redis 7.0's addACLLogEntry does. */
    for (size_t i = 0; i < acllog_len && i < ACL_LOG_GROUPING_SCAN; i++) {
        struct acl_log_entry *e = &acllog[i];
        if (strcmp(e->reason, reason) == 0 && e->ctx == ctx && e->olen == olen &&
            memcmp(e->object, object, olen) == 0 && e->ulen == ulen &&
            memcmp(e->username, username, ulen) == 0 && now - e->ctime_ms <= ACL_LOG_GROUPING_MS) {
            e->count++;
            e->ctime_ms = now;
            xfree(e->cinfo);
            e->cinfo = client_line(c);
            log_to_head(i);
            return;
        }
    }
    size_t max = (size_t)server.cfg.acllog_max_len;
    if (max == 0)
        return;
    while (acllog_len >= max)
        log_entry_destroy(&acllog[--acllog_len]);
    acllog = xrealloc(acllog, (acllog_len + 1) * sizeof(*acllog));
    memmove(acllog + 1, acllog, acllog_len * sizeof(*acllog));
    struct acl_log_entry *e = &acllog[0];
    memset(e, 0, sizeof(*e));
    e->count = 1;
    snprintf(e->reason, sizeof(e->reason), "%s", reason);
    e->ctx = ctx;
    e->object = xmalloc(olen + 1);
    memcpy(e->object, object, olen);
    e->olen = olen;
    e->username = xmalloc(ulen + 1);
    memcpy(e->username, username, ulen);
    e->ulen = ulen;
    e->ctime_ms = now;
    e->cinfo = client_line(c);
    acllog_len++;
}

void acl_log_reply(struct resp_out *o, long count)
{
    size_t n = count < 0 || (size_t)count > acllog_len ? acllog_len : (size_t)count;
    int64_t now = mstime();
    resp_add_array_len(o, n);
    for (size_t i = 0; i < n; i++) {
        const struct acl_log_entry *e = &acllog[i];
        resp_add_map_len(o, 7);
        resp_add_bulk_cstr(o, "count");
        resp_add_int(o, e->count);
        resp_add_bulk_cstr(o, "reason");
        resp_add_bulk_cstr(o, e->reason);
        resp_add_bulk_cstr(o, "context");
        resp_add_bulk_cstr(o, log_context_names[e->ctx]);
        resp_add_bulk_cstr(o, "object");
        resp_add_bulk(o, e->object, e->olen);
        resp_add_bulk_cstr(o, "username");
        resp_add_bulk(o, e->username, e->ulen);
        resp_add_bulk_cstr(o, "age-seconds");
        resp_add_double(o, (double)(now - e->ctime_ms) / 1000.0);
        resp_add_bulk_cstr(o, "client-info");
        resp_add_bulk_cstr(o, e->cinfo);
    }
}

void acl_log_reset(void)
{
    for (size_t i = 0; i < acllog_len; i++)
        log_entry_destroy(&acllog[i]);
    acllog_len = 0;
}
