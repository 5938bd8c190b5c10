/*
 * range_opts.h - the options of the range commands on ordered things that
 * are not sorted sets (range_opts.c): KRANGE and KPREFIX over the keyspace
 * (cmd_ordered.c), HRANGE, SRANGE and their kin over a hash's or set's map
 * (cmd_collrange.c, coll.c). One grammar, ZRANGE's, with Redis 7.0's error
 * texts (t_zset.c): BYLEX, REV, LIMIT offset count, WITHVALUES, and KRANGE's
 * TYPE filter, each only where the command takes it.
 */
#ifndef RBKV_RANGE_OPTS_H
#define RBKV_RANGE_OPTS_H

#include "client.h"

#define ERR_LIMIT_BYLEX "ERR syntax error, LIMIT is only supported in combination with BYLEX"

#define RANGE_BYLEX (1u << 0)
#define RANGE_REV (1u << 1)
#define RANGE_LIMIT (1u << 2)
#define RANGE_WITHVALUES (1u << 3)
#define RANGE_TYPE (1u << 4)

/* A TYPE filter that keeps every key; an unknown type name is -1, which no
 * entry has, so it keeps none (as SCAN's TYPE does in Redis 7.0). */
#define RANGE_TYPE_ANY (-2)

struct range_opts {
    unsigned flags;   /* RANGE_ bits given */
    long long offset; /* LIMIT's (negative: list nothing); 0 without */
    long long count;  /* LIMIT's (negative: all); -1 without */
    int type;         /* TYPE's enum ks_type, -1 for an unknown name; RANGE_TYPE_ANY without */
};

/* The options from argv[first] on, those in allowed only; a word outside
 * them, or LIMIT or TYPE without their arguments, is ERR syntax error. Where
 * BYLEX is allowed (ranks are the default), LIMIT without it is
 * ERR_LIMIT_BYLEX, after every option was read, as Redis. Returns 0, or -1
 * (replied). */
int range_opts_or_reply(struct client *c, int first, unsigned allowed, struct range_opts *o);

#endif
