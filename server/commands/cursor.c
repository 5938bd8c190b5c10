/*
 * cursor.c - the cursor table of SCAN, HSCAN and SSCAN (cursor.h).
 *
 * Invariants: a cursor is a random nonzero 53-bit number, so a client cannot
 * guess another's, and JavaScript clients (node-redis keeps the cursor as a
 * Number, exact only up to 2^53) send it back unchanged; each is valid for
 * one call (using it retires it and the reply carries its successor), so one
 * iteration holds one entry; at most SCAN_CURSORS_MAX are kept, and the least
 * recently issued is dropped first. A cursor that is unknown, already used
 * or dropped gets an error, never a silent restart from the beginning.
 *
 * The table is file-static rather than in struct server because nothing
 * outside the scans may look at it; the one loop thread owns it like all
 * state.
 */
#include "cursor.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "command.h"
#include "krange.h"
#include "mem.h"
#include "resp_writer.h"

#define SCAN_CURSORS_MAX 10000
#define SCAN_BUCKETS 16384 /* power of two, above SCAN_CURSORS_MAX: chains stay short */
#define SCAN_DEFAULT_COUNT 10

#define ERR_INVALID_CURSOR "ERR invalid cursor"
#define ERR_UNKNOWN_CURSOR                                                                       \
    "ERR invalid cursor: unknown, already used or expired (at most 10000 are kept); "           \
    "restart the scan from 0"

/* Where an iteration stands: the last key (or, for HSCAN and SSCAN, field
 * or member) it returned. */
struct scan_cursor {
    uint64_t id;
    struct scan_cursor *bucket_next;
    struct scan_cursor *older, *newer; /* issue order */
    size_t klen;
    char key[];
};

static struct {
    struct scan_cursor *buckets[SCAN_BUCKETS];
    struct scan_cursor *oldest, *newest;
    size_t count;
} cursors;

static struct scan_cursor **bucket_of(uint64_t id)
{
    return &cursors.buckets[id & (SCAN_BUCKETS - 1)];
}

/* Unlinks cur from its bucket and the issue order; the caller frees it. */
static void cursor_unlink(struct scan_cursor *cur)
{
    struct scan_cursor **link = bucket_of(cur->id);
    while (*link != cur)
        link = &(*link)->bucket_next;
    *link = cur->bucket_next;
    if (cur->older)
        cur->older->newer = cur->newer;
    else
        cursors.oldest = cur->newer;
    if (cur->newer)
        cur->newer->older = cur->older;
    else
        cursors.newest = cur->older;
    cursors.count--;
}

/* Retires cursor id and returns it (the caller frees it), or NULL when the
 * table does not hold it. */
static struct scan_cursor *cursor_take_entry(uint64_t id)
{
    struct scan_cursor *cur = *bucket_of(id);
    while (cur && cur->id != id)
        cur = cur->bucket_next;
    if (cur)
        cursor_unlink(cur);
    return cur;
}

static int cursor_exists(uint64_t id)
{
    for (const struct scan_cursor *cur = *bucket_of(id); cur; cur = cur->bucket_next)
        if (cur->id == id)
            return 1;
    return 0;
}

#define CURSOR_MASK ((UINT64_C(1) << 53) - 1)

uint64_t scan_cursor_issue(const char *last, size_t len)
{
    uint64_t id;
    do {
        id = ((uint64_t)arc4random() << 32 | arc4random()) & CURSOR_MASK;
    } while (id == 0 || cursor_exists(id));

    if (cursors.count == SCAN_CURSORS_MAX) {
        struct scan_cursor *old = cursors.oldest;
        cursor_unlink(old);
        xfree(old);
    }
    struct scan_cursor *cur = xmalloc(sizeof(*cur) + len);
    cur->id = id;
    cur->klen = len;
    memcpy(cur->key, last, len);
    cur->bucket_next = *bucket_of(id);
    *bucket_of(id) = cur;
    cur->older = cursors.newest;
    cur->newer = NULL;
    if (cursors.newest)
        cursors.newest->newer = cur;
    else
        cursors.oldest = cur;
    cursors.newest = cur;
    cursors.count++;
    return id;
}

int scan_cursor_take_or_reply(struct client *c, uint64_t id, char **last, size_t *len)
{
    struct scan_cursor *cur = cursor_take_entry(id);
    if (!cur) {
        resp_add_error(&c->out, ERR_UNKNOWN_CURSOR);
        return -1;
    }
    *len = cur->klen;
    *last = xmalloc(cur->klen + 1);
    memcpy(*last, cur->key, cur->klen);
    xfree(cur);
    return 0;
}

int scan_cursor_arg_or_reply(struct client *c, const struct resp_slice *a, uint64_t *id)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; i < a->len && a->ptr[i] >= '0' && a->ptr[i] <= '9'; i++) {
        unsigned d = (unsigned)(a->ptr[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            break;
        v = v * 10 + d;
    }
    if (a->len == 0 || i != a->len) {
        resp_add_error(&c->out, ERR_INVALID_CURSOR);
        return -1;
    }
    *id = v;
    return 0;
}

int scan_opts_or_reply(struct client *c, int cursor_at, int allow_type, struct scan_opts *o)
{
    uint64_t id;

    *o = (struct scan_opts){.count = SCAN_DEFAULT_COUNT, .type = -1};
    /* Every check that can fail runs before the cursor is retired, so a
     * mistyped call can be corrected and retried. */
    if (scan_cursor_arg_or_reply(c, &c->argv[cursor_at], &id) < 0)
        return -1;
    for (int j = cursor_at + 1; j < c->argc; j += 2) {
        const struct resp_slice *a = &c->argv[j];
        if (j + 1 >= c->argc) {
            resp_add_error(&c->out, ERR_SYNTAX);
            return -1;
        }
        if (arg_is(a, "MATCH")) {
            o->match = &c->argv[j + 1];
        } else if (arg_is(a, "COUNT")) {
            if (arg_ll_or_reply(c, &c->argv[j + 1], &o->count) < 0)
                return -1;
            if (o->count < 1) {
                resp_add_error(&c->out, ERR_SYNTAX);
                return -1;
            }
        } else if (allow_type && arg_is(a, "TYPE")) {
            o->type = kr_type_by_name(c->argv[j + 1].ptr, c->argv[j + 1].len);
            o->typed = 1;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return -1;
        }
    }
    if (id != 0 && scan_cursor_take_or_reply(c, id, &o->from, &o->from_len) < 0)
        return -1;
    return 0;
}
