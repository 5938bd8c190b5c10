/*
 * debug_tools.c - the DEBUG subcommands that test tooling and client
 * libraries use, as Redis 7.0.15 answers them: POPULATE (bulk-made string
 * keys), PROTOCOL (one reply of each RESP type), CHANGE-REPL-ID,
 * STRINGMATCH-TEST (a fuzz run of the glob matcher), QUICKLIST-PACKED-
 * THRESHOLD, LISTPACK and JMAP. cmd_debug.c dispatches to them.
 *
 * Owns no state. Each handler writes its own reply, errors in Redis's
 * text.
 */
#include "debug_tools.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "cmd_object.h"
#include "config.h"
#include "fastrand.h"
#include "glob.h"
#include "keyspace.h"
#include "log.h"
#include "mem.h"
#include "omap.h"
#include "repl_stream.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "server.h"
#include "watch.h"

#define ERR_NOT_POSITIVE "ERR value is out of range, must be positive"

/* Redis formats each key in a 128-byte buffer ("%s:%lu"), so a longer
 * prefix is cut there: the same cut gives the same keys. */
#define POPULATE_KEY_BUF 128

/* A count or size as Redis's getPositiveLongFromObjectOrReply reads it:
 * one error for text, a negative number and an overflow alike. */
static int positive_or_reply(struct client *c, const struct resp_slice *a, long long *out)
{
    if (resp_parse_ll(a->ptr, a->len, out) < 0 || *out < 0) {
        resp_add_error(&c->out, ERR_NOT_POSITIVE);
        return -1;
    }
    return 0;
}

void debug_populate(struct client *c)
{
    long long count, size = 0;
    if (positive_or_reply(c, &c->argv[2], &count) < 0)
        return;
    if (c->argc == 5 && positive_or_reply(c, &c->argv[4], &size) < 0)
        return;
    /* Where Redis would die trying to allocate the value, refuse it. */
    if ((unsigned long long)size > server.cfg.proto_max_bulk_len) {
        resp_add_error(&c->out, "ERR DEBUG POPULATE size is larger than proto-max-bulk-len");
        return;
    }
    /* Redis reads the prefix as a C string: up to its first NUL. */
    const struct resp_slice *pre = c->argc >= 4 ? &c->argv[3] : NULL;
    size_t plen = pre ? strnlen(pre->ptr, pre->len) : 3;
    const char *prefix = pre ? pre->ptr : "key";
    char *val = size > 0 ? xcalloc(1, (size_t)size) : NULL;
    for (long long j = 0; j < count; j++) {
        char key[POPULATE_KEY_BUF], num[32];
        int klen = snprintf(key, sizeof(key), "%.*s:%lld", (int)plen, prefix, j);
        if (klen >= (int)sizeof(key))
            klen = (int)sizeof(key) - 1;
        struct resp_slice k = {key, (size_t)klen};
        /* An existing key is left as it is, as Redis skips it. */
        if (lookup_write(c, &k))
            continue;
        int nlen = snprintf(num, sizeof(num), "value:%lld", j);
        if (size == 0) {
            ks_set_string(c->db, key, (size_t)klen, num, (size_t)nlen, 0);
        } else {
            /* "value:j" cut or padded with zero bytes to size, as Redis. */
            size_t n = (size_t)nlen < (size_t)size ? (size_t)nlen : (size_t)size;
            memcpy(val, num, n);
            ks_set_string(c->db, key, (size_t)klen, val, (size_t)size, 0);
            memset(val, 0, n);
        }
        /* Redis's signalModifiedKey: WATCH and client-side caches. Not a
         * keyspace event, not propagated, not counted as dirty: as there. */
        watch_touch(c->db, key, (size_t)klen);
    }
    xfree(val);
    reply_ok(c);
}

void debug_protocol(struct client *c)
{
    const struct resp_slice *name = &c->argv[2];
    struct resp_out *o = &c->out;
    if (arg_is(name, "string")) {
        resp_add_bulk_cstr(o, "Hello World");
    } else if (arg_is(name, "integer")) {
        resp_add_int(o, 12345);
    } else if (arg_is(name, "double")) {
        resp_add_double(o, 3.141);
    } else if (arg_is(name, "bignum")) {
        static const char big[] = "1234567999999999999999999999999999999";
        resp_add_bignum(o, big, sizeof(big) - 1);
    } else if (arg_is(name, "null")) {
        resp_add_null(o);
    } else if (arg_is(name, "array") || arg_is(name, "set")) {
        if (arg_is(name, "set"))
            resp_add_set_len(o, 3);
        else
            resp_add_array_len(o, 3);
        for (int j = 0; j < 3; j++)
            resp_add_int(o, j);
    } else if (arg_is(name, "map")) {
        resp_add_map_len(o, 3);
        for (int j = 0; j < 3; j++) {
            resp_add_int(o, j);
            resp_add_bool(o, j == 1);
        }
    } else if (arg_is(name, "attrib")) {
        /* RESP2 has no attributes: only the reply they would describe. */
        if (o->proto == 3) {
            resp_add_attribute_len(o, 1);
            resp_add_bulk_cstr(o, "key-popularity");
            resp_add_array_len(o, 2);
            resp_add_bulk_cstr(o, "key:123");
            resp_add_int(o, 90);
        }
        resp_add_bulk_cstr(o, "Some real reply following the attribute");
    } else if (arg_is(name, "push")) {
        if (o->proto != 3) {
            resp_add_error(o, "ERR RESP2 is not supported by this command");
            return;
        }
        resp_add_push_len(o, 2);
        resp_add_bulk_cstr(o, "server-cpu-usage");
        resp_add_int(o, 42);
        /* A push is no answer: a real reply follows, as in Redis. */
        resp_add_bulk_cstr(o, "Some real reply following the push reply");
    } else if (arg_is(name, "true") || arg_is(name, "false")) {
        resp_add_bool(o, arg_is(name, "true"));
    } else if (arg_is(name, "verbatim")) {
        static const char text[] = "This is a verbatim\nstring";
        resp_add_verbatim(o, "txt", text, sizeof(text) - 1);
    } else {
        resp_add_error(o, "ERR Wrong protocol type name. Please use one of the following: "
                          "string|integer|double|bignum|null|array|set|map|attrib|push|"
                          "verbatim|true|false");
    }
}

void debug_change_repl_id(struct client *c)
{
    log_warning("Changing replication IDs after receiving DEBUG change-repl-id");
    repl_change_replid();
    reply_ok(c);
}

/* Random bytes from a small alphabet rich in the glob's special bytes, so
 * patterns nest classes, ranges, escapes and stars. */
static size_t random_glob_text(char *buf, size_t cap)
{
    static const char alphabet[] = "*?[]^-\\ab";
    size_t len = (size_t)fastrand_below(cap);
    for (size_t i = 0; i < len; i++)
        buf[i] = fastrand_below(4) == 0 ? (char)fastrand_below(256)
                                        : alphabet[fastrand_below(sizeof(alphabet) - 1)];
    return len;
}

/* Redis's stringmatchlen_fuzz_test: random patterns against random strings,
 * a million of them, passing when nothing crashed (or, here, read past
 * either buffer: the sanitizer builds check that). */
void debug_stringmatch_test(struct client *c)
{
    enum { RUNS = 1000000, MAX_LEN = 32 };
    char pat[MAX_LEN], str[MAX_LEN];
    unsigned long long matched = 0;
    for (int i = 0; i < RUNS; i++) {
        size_t plen = random_glob_text(pat, sizeof(pat));
        size_t slen = random_glob_text(str, sizeof(str));
        matched += (unsigned)glob_match(pat, plen, str, slen, (int)fastrand_below(2));
    }
    log_verbose("DEBUG STRINGMATCH-TEST: %llu of %d matched", matched, (int)RUNS);
    resp_add_simple(&c->out, "Apparently Redis did not crash: test passed");
}

/* Redis's quicklist packed_threshold: elements at least this big get a node
 * of their own. rbkv's chunks already give a too-big element a chunk alone,
 * whatever its size, so the value is checked as Redis checks it and then
 * changes nothing. */
void debug_quicklist_packed_threshold(struct client *c)
{
    const struct resp_slice *a = &c->argv[2];
    char buf[64];
    unsigned long long sz = 0;
    int bad = a->len >= sizeof(buf);
    if (!bad) {
        memcpy(buf, a->ptr, a->len);
        buf[a->len] = '\0';
        bad = config_parse_memory(buf, &sz) < 0;
    }
    /* As Redis's quicklistisSetPackedThreshold: not 4 GB or just under it;
     * 0 restores the default of 1 GB. */
    if (bad || sz > (1ULL << 32) - (1ULL << 20)) {
        resp_add_error(&c->out,
                       "ERR argument must be a memory value bigger than 1 and smaller than 4gb");
        return;
    }
    reply_ok(c);
}

/* Redis prints the listpack's entries on its standard output; so does this,
 * one line a field and its value. Only hashes: Redis 7.0 keeps no set in a
 * listpack (an intset or a hash table), whatever rbkv's OBJECT ENCODING of
 * a small set says. */
void debug_listpack(struct client *c)
{
    const struct resp_slice *key = &c->argv[2];
    struct ks_entry *e = lookup_peek(c, key);
    if (!e) {
        resp_add_error(&c->out, ERR_NO_SUCH_KEY);
        return;
    }
    if (strcmp(object_encoding_name(e), "listpack") != 0 ||
        e->type != KS_HASH) {
        resp_add_error(&c->out, "ERR Not a listpack encoded object.");
        return;
    }
    const struct omap *m = ks_ptr(e);
    struct om_it it;
    struct om_elem el;
    size_t i = 0;
    printf("{listpack of '%.*s'}\n", (int)(key->len < 128 ? key->len : 128), key->ptr);
    for (om_seek(m, 0, &it); om_it_valid(&it); om_next(m, &it), i++) {
        om_it_get(m, &it, &el);
        printf("{%zu} %.*s => %.*s\n", i, (int)el.flen, el.f, (int)el.vlen, el.v);
    }
    fflush(stdout);
    resp_add_simple(&c->out, "Listpack structure printed on stdout");
}
