/*
 * xstream_args.c - IDs, lookups and replies shared by the stream and the
 * consumer group commands (see xstream_args.h).
 */
#include "xstream_args.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "command.h"
#include "keyspace.h"
#include "longrun.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "server.h"

/* Redis copies an ID argument into a 128-byte buffer and refuses longer. */
#define ID_MAX_LEN 127

/* Redis's string2ull: a decimal without sign first, else what strtoull
 * takes of a whole string (so "+5" and " 5" pass, "-1" does not). */
static int parse_u64(const char *s, size_t len, uint64_t *out)
{
    long long ll;
    if (resp_parse_ll(s, len, &ll) == 0) {
        if (ll < 0)
            return -1;
        *out = (uint64_t)ll;
        return 0;
    }
    char buf[ID_MAX_LEN + 1];
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (len == 0 || memchr(buf, '-', len))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

int xid_parse(const struct resp_slice *a, uint64_t missing_seq, int strict, struct xs_id *id,
              int *seq_given)
{
    const char *p = a->ptr;
    size_t len = a->len;
    if (seq_given)
        *seq_given = 1;
    if (len > ID_MAX_LEN)
        return -1;
    if (len == 1 && (p[0] == '-' || p[0] == '+')) {
        if (strict)
            return -1;
        id->ms = id->seq = p[0] == '-' ? 0 : UINT64_MAX;
        return 0;
    }
    const char *dash = memchr(p, '-', len);
    size_t mslen = dash ? (size_t)(dash - p) : len;
    if (parse_u64(p, mslen, &id->ms) < 0)
        return -1;
    if (!dash) {
        id->seq = missing_seq;
        return 0;
    }
    const char *sp = dash + 1;
    size_t slen = len - mslen - 1;
    if (seq_given && slen == 1 && sp[0] == '*') {
        id->seq = 0;
        *seq_given = 0;
        return 0;
    }
    return parse_u64(sp, slen, &id->seq);
}

int xid_or_reply(struct client *c, const struct resp_slice *a, uint64_t missing_seq, int strict,
                 struct xs_id *id, int *seq_given)
{
    if (xid_parse(a, missing_seq, strict, id, seq_given) == 0)
        return 0;
    resp_add_error(&c->out, XERR_INVALID_ID);
    return -1;
}

/* Not snprintf: every XADD reply and every entry of a range formats one,
 * and snprintf cost XADD about 8% of its time. */
size_t xid_format(const struct xs_id *id, char buf[XID_STR_LEN])
{
    size_t n = resp_format_u64(buf, id->ms);
    buf[n++] = '-';
    n += resp_format_u64(buf + n, id->seq);
    buf[n] = '\0';
    return n;
}

void xid_reply(struct client *c, const struct xs_id *id)
{
    char buf[XID_STR_LEN];
    resp_add_bulk(&c->out, buf, xid_format(id, buf));
}

/* The stream at key: 0 with *s (and *e) set, or NULL when absent; -1 after
 * WRONGTYPE. */
int xstream_lookup_or_reply(struct client *c, const struct resp_slice *key, int write,
                                  struct ks_entry **e, struct xstream **s)
{
    *e = write ? lookup_write(c, key) : lookup_read(c, key);
    *s = NULL;
    if (!*e)
        return 0;
    if ((*e)->type != KS_STREAM) {
        resp_add_error(&c->out, ERR_WRONGTYPE);
        return -1;
    }
    *s = ks_ptr(*e);
    return 0;
}

/* The stream at key, or NULL after WRONGTYPE or "ERR no such key" (XSETID,
 * XINFO). */
struct xstream *xstream_existing_or_reply(struct client *c, const struct resp_slice *key,
                                                int write)
{
    struct ks_entry *e;
    struct xstream *s;
    if (xstream_lookup_or_reply(c, key, write, &e, &s) < 0)
        return NULL;
    if (!s)
        resp_add_error(&c->out, "ERR no such key");
    return s;
}

/* An entry: [id, [field, value, ...]] in both protocols, as Redis. */
void xentry_reply(struct client *c, const struct xs_entry *e)
{
    struct xs_str str;
    struct xs_strs w = xs_strs_of(e);
    resp_add_array_len(&c->out, 2);
    xid_reply(c, &e->id);
    resp_add_array_len(&c->out, 2 * e->nfields);
    while (xs_next_str(&w, &str) == 0)
        resp_add_bulk(&c->out, str.ptr, str.len);
}

/* Redis's getTimeoutFromObjectOrReply in milliseconds. */
int xblock_ms_or_reply(struct client *c, const struct resp_slice *a, int64_t *ms)
{
    long long t;
    if (resp_parse_ll(a->ptr, a->len, &t) < 0) {
        resp_add_error(&c->out, "ERR timeout is not an integer or out of range");
        return -1;
    }
    if (t < 0) {
        resp_add_error(&c->out, "ERR timeout is negative");
        return -1;
    }
    if (t > LLONG_MAX / 2) {
        resp_add_error(&c->out, "ERR timeout is out of range");
        return -1;
    }
    *ms = t;
    return 0;
}

/* Whether s has an entry after id. */
int xstream_has_after(const struct xstream *s, const struct xs_id *id)
{
    struct xs_entry last;
    return xs_len(s) && xs_at(s, xs_len(s) - 1, &last) == 0 && xs_id_cmp(&last.id, id) > 0;
}


int xbound_or_reply(struct client *c, const struct resp_slice *a, uint64_t missing_seq,
                    struct xs_id *id, int *excl)
{
    *excl = a->len > 1 && a->ptr[0] == '(';
    if (*excl) {
        struct resp_slice rest = {a->ptr + 1, a->len - 1};
        return xid_or_reply(c, &rest, missing_seq, 1, id, NULL);
    }
    return xid_or_reply(c, a, missing_seq, 0, id, NULL);
}

int xread_opts_or_reply(struct client *c, int readgroup, struct xread_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->ms = -1;
    for (int i = 1; i < c->argc; i++) {
        int more = c->argc - 1 - i;
        const struct resp_slice *a = &c->argv[i];
        if (arg_is(a, "block") && more) {
            /* Redis refuses BLOCK in a script outright, before reading it,
             * naming the command as it was called. */
            if (c->id == CLIENT_ID_LONG_RUN) {
                resp_add_errorf(&c->out, "ERR %.*s command is not allowed with BLOCK option "
                                "from scripts", (int)c->argv[0].len, c->argv[0].ptr);
                return -1;
            }
            if (xblock_ms_or_reply(c, &c->argv[++i], &o->ms) < 0)
                return -1;
        } else if (arg_is(a, "count") && more) {
            if (arg_ll_or_reply(c, &c->argv[++i], &o->count) < 0)
                return -1;
            if (o->count < 0)
                o->count = 0;
        } else if (arg_is(a, "streams") && more) {
            o->streams = i + 1;
            o->nkeys = c->argc - o->streams;
            if (o->nkeys % 2) {
                resp_add_errorf(&c->out,
                                "ERR Unbalanced '%s' list of streams: for each stream key an ID "
                                "or '%c' must be specified.",
                                readgroup ? "xreadgroup" : "xread", readgroup ? '>' : '$');
                return -1;
            }
            o->nkeys /= 2;
            break;
        } else if (arg_is(a, "group") && more >= 2) {
            if (!readgroup) {
                resp_add_error(&c->out, "ERR The GROUP option is only supported by XREADGROUP. "
                                        "You called XREAD instead.");
                return -1;
            }
            o->group = &c->argv[i + 1];
            o->consumer = &c->argv[i + 2];
            i += 2;
        } else if (arg_is(a, "noack")) {
            if (!readgroup) {
                resp_add_error(&c->out, "ERR The NOACK option is only supported by XREADGROUP. "
                                        "You called XREAD instead.");
                return -1;
            }
            o->noack = 1;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return -1;
        }
    }
    if (!o->streams) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return -1;
    }
    if (readgroup && !o->group) {
        resp_add_error(&c->out, "ERR Missing GROUP option for XREADGROUP");
        return -1;
    }
    return 0;
}
