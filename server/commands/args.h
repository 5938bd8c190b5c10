/*
 * args.h - what every command module shares: bounded parsing of argument
 * slices, key lookups with lazy expiry and hit counting, and the common
 * replies (args.c).
 *
 * The _or_reply helpers send Redis's error on failure and return -1, so a
 * handler just returns; 0 means *out is set.
 */
#ifndef RBKV_ARGS_H
#define RBKV_ARGS_H

#include <stdint.h>

#include "client.h"
#include "krange.h"

/* The Redis version rbkv answers as (INFO's redis_version, HELLO's version,
 * LOLWUT's line). */
#define RBKV_REDIS_COMPAT_VERSION "7.0.0"

struct db;
struct ks_entry;
struct ks_probe;
struct live_view;

/* Case-insensitive equality of an argument with a word. */
int arg_is(const struct resp_slice *a, const char *word);
int arg_ll_or_reply(struct client *c, const struct resp_slice *a, long long *out);
int arg_double_or_reply(struct client *c, const struct resp_slice *a, double *out);
/* A database number as SELECT, MOVE and COPY take it, with Redis's two
 * errors (not an int; no such database). */
int arg_db_or_reply(struct client *c, const struct resp_slice *a, struct db **db);
/* The grammar ZMPOP, LMPOP and their blocking forms share (Redis's
 * zmpopGenericCommand, lmpopGenericCommand): numkeys at argv[numkeys_idx],
 * the keys, then word0 or word1 (MIN|MAX, LEFT|RIGHT), then [COUNT count],
 * with Redis's errors in its order. Returns 0 with *out set (keys borrowed
 * from c->argv), or -1 after the error reply. */
struct mpop_args {
    const struct resp_slice *keys;
    int nkeys;
    int which;       /* 0: word0, 1: word1 */
    long long count; /* 1 without COUNT */
};
int arg_mpop_or_reply(struct client *c, int numkeys_idx, const char *word0, const char *word1,
                      struct mpop_args *out);
/* A blocking command's timeout, as Redis's getTimeoutFromObjectOrReply in
 * seconds: a float, truncated to milliseconds (so -0.0001 is 0, forever, as
 * there); 0 means no timeout. Redis's three errors, in its order. */
int arg_timeout_or_reply(struct client *c, const struct resp_slice *a, int64_t *ms);
/* The count of HRANDFIELD, SRANDMEMBER and ZRANDMEMBER: an integer in
 * -LLONG_MAX..LLONG_MAX (a negative count repeats, so -count must fit), with
 * Redis's error otherwise. */
int arg_rand_count_or_reply(struct client *c, const struct resp_slice *a, long long *out);
/* INCRBY's and HINCRBY's addition: *value += incr, or -1 after Redis's
 * overflow error (leaving *value). */
int incr_or_reply(struct client *c, long long *value, long long incr);
/* A copy of a slice as a NUL-terminated heap string; caller frees. */
char *arg_strdup(const struct resp_slice *a);

/* Key lookups in c's database at the command's start time, with lazy
 * expiry. lookup_read counts keyspace hits and misses for INFO; lookup_write
 * does not. Both count as an access for eviction (the key's LRU/LFU state,
 * evict.h); lookup_peek is lookup_read that does not, for what only looks at
 * a key (Redis's LOOKUP_NOTOUCH: EXISTS, TYPE, TTL, OBJECT). */
struct ks_entry *lookup_read(struct client *c, const struct resp_slice *key);
struct ks_entry *lookup_peek(struct client *c, const struct resp_slice *key);
/* lookup_read that stamps the key even for a CLIENT NO-TOUCH client:
 * TOUCH's own purpose (Redis 7.2). */
struct ks_entry *lookup_touch(struct client *c, const struct resp_slice *key);
struct ks_entry *lookup_write(struct client *c, const struct resp_slice *key);
/* lookup_write that keeps the probe for a write of the key right after
 * (ks_set_string_probed), so the key is hashed and looked up once. */
struct ks_entry *lookup_write_probe(struct client *c, const struct resp_slice *key,
                                    struct ks_probe *p);

/* Whether c's reads skip the keys past their deadline that nothing deleted
 * yet (keyspace.h, enum ks_expiry): they do, except while the log replays
 * and for a replica's primary, whose stream was written against every key
 * its own DELs have not removed yet (Redis's expireIfNeeded answers its
 * master "not expired"). */
int reads_hide_due(const struct client *c);
/* c's db as its reads see it at now_ms (live.h). */
void live_view_for(const struct client *c, struct live_view *v, int64_t now_ms);

void reply_ok(struct client *c);
/* A scan of a missing key (HSCAN, SSCAN, ZSCAN): cursor "0" and no element,
 * answered before the options are read, as Redis's shared.emptyscan. */
void reply_empty_scan(struct client *c);
/* The *STORE commands' end (SINTERSTORE, ZUNIONSTORE, ...): replaces dst
 * with value, a value of type holding n elements, or deletes dst when n is
 * 0 (value then NULL: the caller freed the empty result), as Redis does;
 * fires event of notify class cls ("del" for an old dst emptied), wakes
 * blocked clients, counts the write and replies n. The keyspace takes value. */
void store_and_reply(struct client *c, const struct resp_slice *dst, int type, void *value,
                     size_t n, int cls, const char *event);
/* A HELP reply, as Redis's addReplyHelp: "<NAME> <subcommand> ...
 * Subcommands are:" (the command's name as sent, upper-cased), the n lines,
 * then "HELP" and "    Prints this help.", each a simple string. */
void reply_help(struct client *c, const char *const *lines, size_t n);
/* Redis's addReplySubcommandSyntaxError: the subcommand at argv[1] (cut at
 * 128 bytes, as Redis's %.128s) takes other arguments; "Try <container> HELP." */
void reply_subcommand_syntax(struct client *c, const char *container);

/* A container's HELP row, alike in every container as in Redis 7.0: arity
 * 2, allowed while loading and on a stale replica. */
#define SUBCOMMAND_HELP(name_, proc_, group_)                                                   \
    {.name = (name_), .proc = (proc_), .arity = 2, .flags = CMD_LOADING | CMD_STALE,            \
     .group = (group_)}

/* rank_range (krange.h): Redis's rank range rules. */
/* rank_range's elements as positions [*lo, *hi) of the ascending order,
 * ranks counted from the last element under rev; *lo == *hi == 0 when the
 * range is empty. */
void rank_span(long long start, long long stop, size_t len, int rev, size_t *lo, size_t *hi);

/* notify_keyspace_event (notify.h) for key in c's database. */
void notify_key(struct client *c, int type, const char *event, const struct resp_slice *key);

/* A growing NUL-terminated text, as INFO's sections are built: buf is
 * xmalloc'ed (start with {xmalloc(n), 0, n}), owned by whoever holds it. */
struct text {
    char *buf;
    size_t len, cap;
};
void text_printf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sends the pop a blocking or counted pop amounted to, as Redis 7.0 does:
 * name key [n] (n, with counted, the members or elements it took), as the
 * running command's effects, or, for a served wait (no command running),
 * as it is. It replays exactly, taking the same end of the same key. */
void propagate_pop_as(struct client *c, int in_command, const char *name,
                      const struct resp_slice *key, int counted, size_t n);

#endif
