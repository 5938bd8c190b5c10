/*
 * cmd_object.c - OBJECT (Redis 7.0): ENCODING, REFCOUNT, IDLETIME, FREQ and
 * HELP, what a value looks like inside.
 *
 * Owns: object_commands[] and nothing else; it only reads entries. Knows
 * nothing of sockets.
 *
 * Answers, and where they part from Redis's:
 *  - ENCODING: a string is "int" when it is a canonical integer (Redis's
 *    string2l: no '+', no leading zero, no "-0") of at most 20 bytes,
 *    "embstr" up to 44 bytes, else "raw", as Redis decides when a value is
 *    stored; Redis also turns a string changed in place (APPEND, SETRANGE)
 *    into "raw", which rbkv, keeping no such history, does not. A hash or a
 *    set answers its map's encoding (om_encoding: "listpack", "intset" or
 *    "rbtree", Redis's "hashtable"); a sorted set "rbtree", which it always
 *    is (a tree of members with a hash table beside it), where Redis says
 *    "listpack" or "skiplist".
 *  - REFCOUNT: 1. rbkv shares no values; Redis answers 2147483647 for its
 *    shared small integers (0 to 9999) and 1 otherwise.
 *  - IDLETIME: seconds since the key's last access, and FREQ: its
 *    logarithmic access counter after decay, from the entry's access bits
 *    (keyaccess.h) as Redis computes them, each with Redis's error under the
 *    other kind of policy (IDLETIME under an LFU policy, FREQ under any
 *    other).
 * A missing key is a nil reply for every subcommand, as in Redis, and the
 * lookup counts as a read (keyspace hits and misses, lazy expiry) but not
 * as an access: OBJECT IDLETIME does not reset what it reports.
 */
#include "cmd_object.h"

#include <stddef.h>

#include "args.h"
#include "client.h"
#include "evict.h"
#include "keyspace.h"
#include "omap.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "xstream.h"

#define EMBSTR_MAX 44       /* Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT */
#define INT_STRING_MAX 20   /* the longest text Redis tries as an integer */

#define ERR_LFU                                                                                   \
    "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "      \
    "switching between policies at runtime LRU and LFU data will take some time to adjust."
#define ERR_NO_LFU                                                                                \
    "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note "    \
    "that when switching between policies at runtime LRU and LFU data will take some time to "   \
    "adjust."

static const char *string_encoding(const struct ks_entry *e)
{
    long long v;
    size_t len = ks_slen(e);
    if (len <= INT_STRING_MAX && resp_parse_ll(ks_str((struct ks_entry *)e), len, &v) == 0)
        return "int";
    return len <= EMBSTR_MAX ? "embstr" : "raw";
}

const char *object_encoding_name(const struct ks_entry *e)
{
    switch (e->type) {
    case KS_STRING:
        return string_encoding(e);
    case KS_HASH:
    case KS_SET:
        return om_encoding(ks_ptr(e));
    case KS_LIST:
        return "quicklist"; /* Redis 7.0's one name for every list */
    case KS_STREAM:
        return "stream";
    default:
        return "rbtree";
    }
}

/* The key at argv[2], or NULL after the nil reply. */
static struct ks_entry *object_lookup(struct client *c)
{
    struct ks_entry *e = lookup_peek(c, &c->argv[2]);
    if (!e)
        resp_add_null(&c->out);
    return e;
}

static void object_encoding(struct client *c)
{
    struct ks_entry *e = object_lookup(c);
    if (e)
        resp_add_bulk_cstr(&c->out, object_encoding_name(e));
}

static void object_refcount(struct client *c)
{
    if (object_lookup(c))
        resp_add_int(&c->out, 1);
}

static void object_idletime(struct client *c)
{
    struct ks_entry *e = object_lookup(c);
    if (!e)
        return;
    if (evict_policy_is_lfu())
        resp_add_error(&c->out, ERR_LFU);
    else
        resp_add_int(&c->out, (long long)(ka_idle_ms(e, evict_clock()) / 1000));
}

static void object_freq(struct client *c)
{
    struct ks_entry *e = object_lookup(c);
    if (!e)
        return;
    if (!evict_policy_is_lfu())
        resp_add_error(&c->out, ERR_NO_LFU);
    else
        resp_add_int(&c->out, ka_freq(e, evict_clock()));
}

static void object_help(struct client *c)
{
    static const char *const help[] = {
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned integer is",
        "    proportional to the logarithm of the recent access frequency of the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with the specified",
        "    <key>.",
    };
    reply_help(c, help, sizeof(help) / sizeof(help[0]));
}

static const struct command object_subcommands[] = {
    {.name = "object|encoding", .proc = object_encoding, .arity = 3,
     .flags = CMD_READONLY,
     .first_key = 2, .last_key = 2, .key_step = 1, .group = "generic"},
    {.name = "object|refcount", .proc = object_refcount, .arity = 3,
     .flags = CMD_READONLY,
     .first_key = 2, .last_key = 2, .key_step = 1, .group = "generic"},
    {.name = "object|idletime", .proc = object_idletime, .arity = 3,
     .flags = CMD_READONLY,
     .first_key = 2, .last_key = 2, .key_step = 1, .group = "generic"},
    {.name = "object|freq", .proc = object_freq, .arity = 3,
     .flags = CMD_READONLY,
     .first_key = 2, .last_key = 2, .key_step = 1, .group = "generic"},
    SUBCOMMAND_HELP("object|help", object_help, "generic"),
    {0},
};

const struct command object_commands[] = {
    {.name = "object", .arity = -2,
     .group = "generic", .subcommands = object_subcommands},
    {0},
};
