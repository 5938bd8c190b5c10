/*
 * reach.h - what the commands that name no key reach, for ACL key patterns
 * (struct key_reach in command.h; acl.c decides). Each function fills r from
 * a request whose arity the dispatcher checked; a request the command would
 * refuse anyway may get any answer, as the command then reads no key.
 */
#ifndef RBKV_REACH_H
#define RBKV_REACH_H

#include "command.h"

/* The whole dataset: KFIRST, KNEXT, RANDOMKEY, FLUSHALL, SYNC ... */
key_reach_fn reach_all;
/* PREFIX argv[1]: KPREFIX. */
key_reach_fn reach_prefix_arg;
/* "min max|PREFIX p" at argv[1]: KCOUNT, KDELRANGE. */
key_reach_fn reach_span_arg;
/* KRANGE start stop [BYLEX] ...: the bounds with BYLEX, else by rank, all. */
key_reach_fn reach_krange;
/* KSPLIT n [min max|PREFIX p]. */
key_reach_fn reach_ksplit;
/* KEYS pattern: the pattern's literal start. */
key_reach_fn reach_keys;
/* SCAN cursor [MATCH pattern] ...: the MATCH pattern's literal start. */
key_reach_fn reach_scan;

#endif
