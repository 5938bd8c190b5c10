/*
 * coll.c - lookups, replies, ranges and scans shared by the hash and set
 * commands (see coll.h).
 */
#include "coll.h"

#include <stdint.h>
#include <string.h>

#include "args.h"
#include "blocking.h"
#include "cmd_scan.h"
#include "glob.h"
#include "krange.h"
#include "lexrange.h"
#include "mem.h"
#include "notify.h"
#include "resp_writer.h"
#include "server.h"
#include "watch.h"

#define ERR_LIMIT_BYLEX "ERR syntax error, LIMIT is only supported in combination with BYLEX"
#define SCAN_DEFAULT_COUNT 10

void coll_limits(int type, struct om_limits *lim)
{
    const struct config *cfg = &server.cfg;
    if (type == KS_HASH) {
        lim->entries = (size_t)cfg->hash_max_listpack_entries;
        lim->value = (size_t)cfg->hash_max_listpack_value;
        lim->int_entries = 0;
    } else {
        lim->entries = (size_t)cfg->set_max_listpack_entries;
        lim->value = (size_t)cfg->set_max_listpack_value;
        lim->int_entries = (size_t)cfg->set_max_intset_entries;
    }
}

int coll_lookup_or_reply(struct client *c, const struct resp_slice *key, int type, int write,
                         struct ks_entry **e, struct omap **m)
{
    *e = write ? lookup_write(c, key) : lookup_read(c, key);
    *m = NULL;
    if (!*e)
        return 0;
    if ((*e)->type != type) {
        resp_add_error(&c->out, ERR_WRONGTYPE);
        return -1;
    }
    *m = ks_ptr(*e);
    return 0;
}

struct ks_entry *coll_add_key(struct client *c, const struct resp_slice *key, int type,
                              struct omap *m)
{
    struct ks_entry *e = ks_add_ptr(c->db, key->ptr, key->len, (enum ks_type)type, m);
    notify_key(c, NOTIFY_NEW, "new", key);
    return e;
}

void coll_removed(struct client *c, const struct resp_slice *key, struct ks_entry *e,
                  struct omap *m, int cls, const char *event)
{
    notify_key(c, cls, event, key);
    if (om_len(m) == 0) {
        ks_delete(c->db, e);
        notify_key(c, NOTIFY_GENERIC, "del", key);
    }
}

void coll_store(struct client *c, const struct resp_slice *dst, int type, struct omap *m,
                const char *event)
{
    struct ks_entry *old = lookup_write(c, dst);
    size_t n = om_len(m);

    if (old) {
        ks_delete(c->db, old);
        if (!n) {
            watch_touch(c->db, dst->ptr, dst->len);
            server.dirty++;
            notify_key(c, NOTIFY_GENERIC, "del", dst);
        }
    }
    if (n) {
        ks_add_ptr(c->db, dst->ptr, dst->len, (enum ks_type)type, m);
        block_signal_key(c->db, dst->ptr, dst->len);
        watch_touch(c->db, dst->ptr, dst->len);
        server.dirty++;
        /* Redis overwrites an old dst in place: "new" only when there was none. */
        if (!old)
            notify_key(c, NOTIFY_NEW, "new", dst);
        notify_key(c, type == KS_HASH ? NOTIFY_HASH : NOTIFY_SET, event, dst);
    } else {
        om_free(m);
    }
    resp_add_int(&c->out, (long long)n);
}

void coll_add_elem(struct client *c, const struct om_elem *e, int withvalues)
{
    if (withvalues && c->out.proto == 3)
        resp_add_array_len(&c->out, 2);
    resp_add_bulk(&c->out, e->f, e->flen);
    if (withvalues)
        resp_add_bulk(&c->out, e->v, e->vlen);
}

/* ---- ranges ------------------------------------------------------------- */

int coll_opts_or_reply(struct client *c, int first, unsigned allowed, struct coll_opts *o)
{
    o->flags = 0;
    o->offset = 0;
    o->count = -1;
    for (int j = first; j < c->argc; j++) {
        const struct resp_slice *a = &c->argv[j];
        if ((allowed & COLL_BYLEX) && arg_is(a, "BYLEX")) {
            o->flags |= COLL_BYLEX;
        } else if ((allowed & COLL_REV) && arg_is(a, "REV")) {
            o->flags |= COLL_REV;
        } else if ((allowed & COLL_WITHVALUES) && arg_is(a, "WITHVALUES")) {
            o->flags |= COLL_WITHVALUES;
        } else if ((allowed & COLL_LIMIT) && arg_is(a, "LIMIT") && c->argc - j - 1 >= 2) {
            if (arg_ll_or_reply(c, &c->argv[j + 1], &o->offset) < 0 ||
                arg_ll_or_reply(c, &c->argv[j + 2], &o->count) < 0)
                return -1;
            o->flags |= COLL_LIMIT;
            j += 2;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return -1;
        }
    }
    /* BYLEX is part of the grammar only where ranks are the default. */
    if ((o->flags & COLL_LIMIT) && (allowed & COLL_BYLEX) && !(o->flags & COLL_BYLEX)) {
        resp_add_error(&c->out, ERR_LIMIT_BYLEX);
        return -1;
    }
    return 0;
}

/* rank_range's span, ranks counted from the last element under REV. */
static struct om_span rank_span(size_t len, long long start, long long stop, int rev)
{
    struct om_span s = {0, 0};
    size_t lo, hi;

    if (rank_range(start, stop, len, &lo, &hi) == 0) {
        s.lo = rev ? len - 1 - hi : lo;
        s.hi = rev ? len - lo : hi + 1;
    }
    return s;
}

int coll_span_or_reply(struct client *c, const struct omap *m, int j, const struct coll_opts *o,
                       struct om_span *span)
{
    int rev = (o->flags & COLL_REV) != 0;
    const struct resp_slice *a = &c->argv[j], *b = &c->argv[j + 1];

    if (o->flags & COLL_BYLEX) {
        struct lex_bound min, max;
        const struct resp_slice *smin = rev ? b : a, *smax = rev ? a : b;
        if (lex_bound_parse(smin->ptr, smin->len, &min) < 0 ||
            lex_bound_parse(smax->ptr, smax->len, &max) < 0) {
            resp_add_error(&c->out, ERR_LEX_RANGE);
            return -1;
        }
        *span = m ? om_lex_span(m, &min, &max) : (struct om_span){0, 0};
        return 0;
    }
    long long start, stop;
    if (arg_ll_or_reply(c, a, &start) < 0 || arg_ll_or_reply(c, b, &stop) < 0)
        return -1;
    *span = rank_span(m ? om_len(m) : 0, start, stop, rev);
    return 0;
}

void coll_reply_span(struct client *c, const struct omap *m, struct om_span span,
                     const struct coll_opts *o)
{
    int rev = (o->flags & COLL_REV) != 0, withvalues = (o->flags & COLL_WITHVALUES) != 0;
    size_t len = span.hi > span.lo ? span.hi - span.lo : 0, n;

    if (!m || o->offset < 0 || (unsigned long long)o->offset >= len) {
        n = 0;
    } else {
        n = len - (size_t)o->offset;
        if (o->count >= 0 && (unsigned long long)o->count < n)
            n = (size_t)o->count;
    }
    resp_add_array_len(&c->out, withvalues && c->out.proto == 2 ? 2 * n : n);
    if (!n)
        return;
    struct om_it it;
    struct om_elem e;
    om_seek(m, rev ? span.hi - 1 - (size_t)o->offset : span.lo + (size_t)o->offset, &it);
    /* Once the reply failed (over the client's hard output limit) the client
     * will be dropped: walking on would only hold the loop. */
    for (size_t i = 0; i < n && !c->out.failed; i++) {
        om_it_get(m, &it, &e);
        coll_add_elem(c, &e, withvalues);
        if (rev)
            om_prev(m, &it);
        else
            om_next(m, &it);
    }
}

/* ---- HSCAN and SSCAN ---------------------------------------------------- */

void coll_scan(struct client *c, const struct omap *m)
{
    const struct resp_slice *match = NULL;
    long long count = SCAN_DEFAULT_COUNT;
    uint64_t id;

    /* Every check that can fail runs before the cursor is retired, so a
     * mistyped call can be corrected and retried. */
    if (scan_cursor_arg_or_reply(c, &c->argv[2], &id) < 0)
        return;
    for (int j = 3; j < c->argc; j += 2) {
        if (j + 1 >= c->argc) {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
        if (arg_is(&c->argv[j], "MATCH")) {
            match = &c->argv[j + 1];
        } else if (arg_is(&c->argv[j], "COUNT")) {
            if (arg_ll_or_reply(c, &c->argv[j + 1], &count) < 0)
                return;
            if (count < 1) {
                resp_add_error(&c->out, ERR_SYNTAX);
                return;
            }
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    char *from = NULL;
    size_t from_len = 0;
    if (id != 0 && scan_cursor_take_or_reply(c, id, &from, &from_len) < 0)
        return;

    /* Only the elements with the pattern's literal prefix can match. */
    char *prefix = xmalloc(match ? match->len + 1 : 1);
    int prefix_only = 1;
    size_t plen = match ? kr_glob_prefix(match->ptr, match->len, prefix, &prefix_only) : 0;
    struct om_span span = m ? om_prefix_span(m, prefix, plen) : (struct om_span){0, 0};
    if (from && m) {
        size_t after = om_count_before(m, from, from_len, 1);
        if (after > span.lo)
            span.lo = after < span.hi ? after : span.hi;
    }
    xfree(from);
    xfree(prefix);
    /* A packed map is small: all of it in one call, as Redis answers for its
     * listpack and intset encodings. Else COUNT bounds the elements visited. */
    size_t len = span.hi > span.lo ? span.hi - span.lo : 0;
    if (m && !m->packed && (unsigned long long)count < len)
        len = (size_t)count;

    struct om_it it;
    struct om_elem e;
    resp_add_array_len(&c->out, 2);
    if (m && span.lo + len < span.hi) {
        om_seek(m, span.lo + len - 1, &it);
        om_it_get(m, &it, &e);
        resp_add_bulk_ll(&c->out, (long long)scan_cursor_issue(e.f, e.flen));
    } else {
        resp_add_bulk(&c->out, "0", 1);
    }
    struct resp_deferred d;
    size_t n = 0;
    resp_add_deferred(&c->out, &d);
    if (len)
        om_seek(m, span.lo, &it);
    for (size_t i = 0; i < len && !c->out.failed; i++, om_next(m, &it)) {
        om_it_get(m, &it, &e);
        if (!prefix_only && !glob_match(match->ptr, match->len, e.f, e.flen, 0))
            continue;
        resp_add_bulk(&c->out, e.f, e.flen);
        if (m->values)
            resp_add_bulk(&c->out, e.v, e.vlen);
        n++;
    }
    resp_set_deferred_array(&c->out, &d, m && m->values ? 2 * n : n);
}
