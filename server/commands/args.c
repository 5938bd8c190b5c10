/*
 * args.c - argument parsing, key lookups and common replies shared by the
 * command modules (args.h).
 */
#include "args.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "blocking.h"
#include "command.h"
#include "evict.h"
#include "keyspace.h"
#include "live.h"
#include "mem.h"
#include "notify.h"
#include "numparse.h"
#include "propagate.h"
#include "resp_num.h"
#include "server.h"
#include "watch.h"

int arg_is(const struct resp_slice *a, const char *word)
{
    size_t n = strlen(word);
    return a->len == n && strncasecmp(a->ptr, word, n) == 0;
}

int arg_ll_or_reply(struct client *c, const struct resp_slice *a, long long *out)
{
    if (resp_parse_ll(a->ptr, a->len, out) == 0)
        return 0;
    resp_add_error(&c->out, ERR_NOT_INT);
    return -1;
}

int arg_db_or_reply(struct client *c, const struct resp_slice *a, struct db **db)
{
    long long id;
    if (arg_ll_or_reply(c, a, &id) < 0)
        return -1;
    /* getIntFromObjectOrReply's range check comes before selectDb's. */
    if (id < INT_MIN || id > INT_MAX) {
        resp_add_errorf(&c->out, "ERR value is out of range, value must between %d and %d",
                        INT_MIN, INT_MAX);
        return -1;
    }
    if (id < 0 || id >= server.ks->count) {
        resp_add_error(&c->out, ERR_DB_INDEX);
        return -1;
    }
    *db = &server.ks->dbs[id];
    return 0;
}

int arg_double_or_reply(struct client *c, const struct resp_slice *a, double *out)
{
    if (parse_double(a->ptr, a->len, out) == 0)
        return 0;
    resp_add_error(&c->out, ERR_NOT_FLOAT);
    return -1;
}

int arg_timeout_or_reply(struct client *c, const struct resp_slice *a, int64_t *ms)
{
    double t;
    if (parse_double(a->ptr, a->len, &t) < 0) {
        resp_add_error(&c->out, "ERR timeout is not a float or out of range");
        return -1;
    }
    t *= 1000;
    /* Redis casts the milliseconds to a long long, which on x86 makes what
     * does not fit LLONG_MIN: "negative" too. */
    if (t <= -1 || t >= 0x1p63) {
        resp_add_error(&c->out, "ERR timeout is negative");
        return -1;
    }
    /* Redis's bound: the deadline, now plus this, must fit a long long. */
    if (t >= (double)(LLONG_MAX / 2)) {
        resp_add_error(&c->out, "ERR timeout is out of range");
        return -1;
    }
    *ms = (int64_t)t;
    return 0;
}

/* Redis's getRangeLongFromObjectOrReply(1, LONG_MAX) with a message: one
 * error, err, for "not a number" and "below 1" alike. */
static int positive_or_reply(struct client *c, const struct resp_slice *a, const char *err,
                             long long *out)
{
    if (resp_parse_ll(a->ptr, a->len, out) < 0 || *out < 1) {
        resp_add_error(&c->out, err);
        return -1;
    }
    return 0;
}

int arg_mpop_or_reply(struct client *c, int numkeys_idx, const char *word0, const char *word1,
                      struct mpop_args *out)
{
    long long numkeys, count = -1;

    if (positive_or_reply(c, &c->argv[numkeys_idx], "ERR numkeys should be greater than 0",
                          &numkeys) < 0)
        return -1;
    if (numkeys >= c->argc - numkeys_idx - 1) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return -1;
    }
    int where = numkeys_idx + (int)numkeys + 1;
    if (arg_is(&c->argv[where], word0)) {
        out->which = 0;
    } else if (arg_is(&c->argv[where], word1)) {
        out->which = 1;
    } else {
        resp_add_error(&c->out, ERR_SYNTAX);
        return -1;
    }
    for (int j = where + 1; j < c->argc; j++) {
        if (count == -1 && j + 1 < c->argc && arg_is(&c->argv[j], "COUNT")) {
            if (positive_or_reply(c, &c->argv[++j], "ERR count should be greater than 0",
                                  &count) < 0)
                return -1;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return -1;
        }
    }
    out->keys = &c->argv[numkeys_idx + 1];
    out->nkeys = (int)numkeys;
    out->count = count == -1 ? 1 : count;
    return 0;
}

char *arg_strdup(const struct resp_slice *a)
{
    return xmemdup(a->ptr, a->len);
}

int arg_rand_count_or_reply(struct client *c, const struct resp_slice *a, long long *out)
{
    if (arg_ll_or_reply(c, a, out) < 0)
        return -1;
    if (*out == LLONG_MIN) {
        resp_add_error(&c->out, "ERR value is out of range, value must between "
                                "-9223372036854775807 and 9223372036854775807");
        return -1;
    }
    return 0;
}

int incr_or_reply(struct client *c, long long *value, long long incr)
{
    if ((incr < 0 && *value < 0 && incr < LLONG_MIN - *value) ||
        (incr > 0 && *value > 0 && incr > LLONG_MAX - *value)) {
        resp_add_error(&c->out, ERR_OVERFLOW);
        return -1;
    }
    *value += incr;
    return 0;
}

void rank_span(long long start, long long stop, size_t len, int rev, size_t *lo, size_t *hi)
{
    size_t first, last;

    *lo = *hi = 0;
    if (rank_range(start, stop, len, &first, &last) == 0) {
        *lo = rev ? len - 1 - last : first;
        *hi = rev ? len - first : last + 1;
    }
}

void store_and_reply(struct client *c, const struct resp_slice *dst, int type, void *value,
                     size_t n, int cls, const char *event)
{
    struct ks_entry *old = lookup_write(c, dst);

    if (old) {
        ks_delete(c->db, old);
        if (!n) {
            watch_touch(c->db, dst->ptr, dst->len);
            server.dirty++;
            notify_key(c, NOTIFY_GENERIC, "del", dst);
        }
    }
    if (n) {
        ks_add_ptr(c->db, dst->ptr, dst->len, (enum ks_type)type, value);
        block_signal_key(c->db, dst->ptr, dst->len);
        watch_touch(c->db, dst->ptr, dst->len);
        server.dirty++;
        /* Redis overwrites an old dst in place: "new" only when there was none. */
        if (!old)
            notify_key(c, NOTIFY_NEW, "new", dst);
        notify_key(c, cls, event, dst);
    }
    resp_add_int(&c->out, (long long)n);
}

void reply_help(struct client *c, const char *const *lines, size_t n)
{
    /* The command's name as sent, upper-cased, as Redis's addReplyHelp. */
    char head[128];
    size_t nlen = c->argv[0].len < 48 ? c->argv[0].len : 48;
    for (size_t i = 0; i < nlen; i++)
        head[i] = (char)toupper((unsigned char)c->argv[0].ptr[i]);
    snprintf(head + nlen, sizeof(head) - nlen,
             " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    resp_add_array_len(&c->out, n + 3);
    resp_add_simple(&c->out, head);
    for (size_t i = 0; i < n; i++)
        resp_add_simple(&c->out, lines[i]);
    resp_add_simple(&c->out, "HELP");
    resp_add_simple(&c->out, "    Prints this help.");
}

void reply_subcommand_syntax(struct client *c, const char *container)
{
    const struct resp_slice *sub = &c->argv[1];
    resp_add_errorf(&c->out,
                    "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try %s HELP.",
                    (int)(sub->len < 128 ? sub->len : 128), sub->ptr, container);
}

void reply_empty_scan(struct client *c)
{
    resp_add_array_len(&c->out, 2);
    resp_add_bulk(&c->out, "0", 1);
    resp_add_array_len(&c->out, 0);
}

void reply_ok(struct client *c)
{
    /* The same bytes in RESP2 and RESP3, appended whole (Redis's shared.ok):
     * every SET answers this, and framing it costs more than copying it. */
    static const char ok[] = "+OK\r\n";
    resp_add_raw(&c->out, ok, sizeof(ok) - 1);
}

struct ks_entry *lookup_write(struct client *c, const struct resp_slice *key)
{
    struct ks_probe p;
    return lookup_write_probe(c, key, &p);
}

/* Whether a lookup stamps the key's access bits (keyaccess.h). */
enum lookup_touch { TOUCH_NEVER, TOUCH_UNLESS_NO_TOUCH, TOUCH_ALWAYS };

static struct ks_entry *lookup_generic(struct client *c, const struct resp_slice *key,
                                       struct ks_probe *p, enum lookup_touch touch)
{
    /* The command's start time, read once by the dispatcher: a clock read
     * per lookup showed up in profiles of pipelined GETs. */
    struct ks_entry *e =
        ks_lookup_probe(c->db, key->ptr, key->len, server.cmd_start_us / 1000, p);
    if (e && (touch == TOUCH_ALWAYS ||
              (touch == TOUCH_UNLESS_NO_TOUCH && !(c->flags & CLIENT_NO_TOUCH))))
        ka_touch(e, evict_clock());
    return e;
}

struct ks_entry *lookup_write_probe(struct client *c, const struct resp_slice *key,
                                    struct ks_probe *p)
{
    return lookup_generic(c, key, p, TOUCH_UNLESS_NO_TOUCH);
}

static struct ks_entry *lookup_read_generic(struct client *c, const struct resp_slice *key,
                                            enum lookup_touch touch)
{
    struct ks_probe p;
    struct ks_entry *e = lookup_generic(c, key, &p, touch);
    /* A replica removes nothing by itself (its primary's DEL does), but its
     * clients do not read a key past its deadline, as in Redis. */
    if (e && ks_expiry() == KS_EXPIRY_HELD && reads_hide_due(c) && ks_get_expire(e) >= 0 &&
        ks_get_expire(e) <= server.cmd_start_us / 1000)
        e = NULL;
    if (e)
        server.stats.keyspace_hits++;
    else {
        server.stats.keyspace_misses++;
        /* Redis's "keymiss" comes with every read lookup it counts a miss. */
        notify_key(c, NOTIFY_KEY_MISS, "keymiss", key);
    }
    return e;
}

int reads_hide_due(const struct client *c)
{
    enum ks_expiry mode = ks_expiry();
    return mode == KS_EXPIRY_ON || (mode == KS_EXPIRY_HELD && !(c->flags & CLIENT_MASTER));
}

void live_view_for(const struct client *c, struct live_view *v, int64_t now_ms)
{
    live_view_init(v, c->db, now_ms, reads_hide_due(c));
}

struct ks_entry *lookup_read(struct client *c, const struct resp_slice *key)
{
    return lookup_read_generic(c, key, TOUCH_UNLESS_NO_TOUCH);
}

struct ks_entry *lookup_peek(struct client *c, const struct resp_slice *key)
{
    return lookup_read_generic(c, key, TOUCH_NEVER);
}

struct ks_entry *lookup_touch(struct client *c, const struct resp_slice *key)
{
    return lookup_read_generic(c, key, TOUCH_ALWAYS);
}

void notify_key(struct client *c, int type, const char *event, const struct resp_slice *key)
{
    notify_keyspace_event(type, event, key->ptr, key->len, c->db->id);
}

void text_printf(struct text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap * 2 + (n > 0 ? (size_t)n : 0);
        t->buf = xrealloc(t->buf, t->cap);
    }
}

void propagate_pop_as(struct client *c, int in_command, const char *name,
                      const struct resp_slice *key, int counted, size_t n)
{
    char count[RESP_LL_CHARS];
    struct resp_slice argv[3] = {{name, strlen(name)}, *key, {count, 0}};
    if (counted)
        argv[2].len = resp_format_ll(count, (long long)n);
    if (in_command)
        propagate_effects(c->db_index, counted ? 3 : 2, argv);
    else
        propagate_argv(c->db_index, counted ? 3 : 2, argv);
}
