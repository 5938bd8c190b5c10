/*
 * cursor.h - the cursors of SCAN, HSCAN and SSCAN (cursor.c): a cursor is a
 * random number standing for the last key, field or member an iteration
 * returned, good for one call, so an iteration resumes after that element
 * whatever changed meanwhile.
 */
#ifndef RBKV_CURSOR_H
#define RBKV_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "client.h"

/* A cursor argument: decimal digits of an unsigned 64-bit number, as Redis
 * accepts them. Returns 0, or -1 (replied). */
int scan_cursor_arg_or_reply(struct client *c, const struct resp_slice *a, uint64_t *id);
/* Retires cursor id (nonzero): 0 with *last (an xmalloc'ed copy the caller
 * frees) and *len, or -1 after replying that the cursor is unknown. */
int scan_cursor_take_or_reply(struct client *c, uint64_t id, char **last, size_t *len);
/* Issues a cursor standing for last[0..len); returns its number. */
uint64_t scan_cursor_issue(const char *last, size_t len);

/* The grammar SCAN, HSCAN and SSCAN share: "cursor [MATCH pattern] [COUNT
 * count]" from argv[cursor_at] on, and [TYPE type] where allow_type (SCAN),
 * each option taking the last of its kind. Every check runs before the
 * cursor is retired (scan_cursor_take_or_reply), so a mistyped call can be
 * corrected and retried. Returns 0 with *o set, or -1 (replied). */
struct scan_opts {
    const struct resp_slice *match; /* NULL without MATCH; borrowed from c->argv */
    long long count;                /* COUNT's (at least 1); 10 without, as Redis */
    int typed, type;                /* TYPE's enum ks_type, or -1 for a name no type has */
    char *from;                     /* the cursor's last element (xmalloc'ed, the caller
                                     * frees); NULL for cursor 0 */
    size_t from_len;
};
int scan_opts_or_reply(struct client *c, int cursor_at, int allow_type, struct scan_opts *o);

#endif
