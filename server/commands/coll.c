/*
 * coll.c - lookups, replies, ranges and scans shared by the hash and set
 * commands (see coll.h).
 */
#include "coll.h"

#include <stdint.h>
#include <string.h>

#include "args.h"
#include "command.h"
#include "cursor.h"
#include "glob.h"
#include "krange.h"
#include "lexrange.h"
#include "mem.h"
#include "notify.h"
#include "resp_writer.h"
#include "server.h"


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
    size_t n = om_len(m);
    if (!n) {
        om_free(m);
        m = NULL;
    }
    store_and_reply(c, dst, type, m, n, type == KS_HASH ? NOTIFY_HASH : NOTIFY_SET, event);
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

int coll_span_or_reply(struct client *c, const struct omap *m, int j, const struct range_opts *o,
                       struct om_span *span)
{
    int rev = (o->flags & RANGE_REV) != 0;
    const struct resp_slice *a = &c->argv[j], *b = &c->argv[j + 1];

    if (o->flags & RANGE_BYLEX) {
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
    rank_span(start, stop, m ? om_len(m) : 0, rev, &span->lo, &span->hi);
    return 0;
}

void coll_reply_span(struct client *c, const struct omap *m, struct om_span span,
                     const struct range_opts *o)
{
    int rev = (o->flags & RANGE_REV) != 0, withvalues = (o->flags & RANGE_WITHVALUES) != 0;
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
    struct scan_opts o;
    if (!m) {
        reply_empty_scan(c);
        return;
    }
    if (scan_opts_or_reply(c, 2, 0, &o) < 0)
        return;
    const struct resp_slice *match = o.match;

    /* Only the elements with the pattern's literal prefix can match. */
    char *prefix = xmalloc(match ? match->len + 1 : 1);
    int prefix_only = 1;
    size_t plen = match ? kr_glob_prefix(match->ptr, match->len, prefix, &prefix_only) : 0;
    struct om_span span = om_prefix_span(m, prefix, plen);
    if (o.from) {
        size_t after = om_count_before(m, o.from, o.from_len, 1);
        if (after > span.lo)
            span.lo = after < span.hi ? after : span.hi;
    }
    xfree(o.from);
    xfree(prefix);
    /* A packed map is small: all of it in one call, as Redis answers for its
     * listpack and intset encodings. Else COUNT bounds the elements visited. */
    size_t len = span.hi > span.lo ? span.hi - span.lo : 0;
    if (!m->packed && (unsigned long long)o.count < len)
        len = (size_t)o.count;

    struct om_it it;
    struct om_elem e;
    resp_add_array_len(&c->out, 2);
    if (span.lo + len < span.hi) {
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
    resp_set_deferred_array(&c->out, &d, m->values ? 2 * n : n);
}
