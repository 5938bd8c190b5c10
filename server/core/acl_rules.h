/*
 * acl_rules.h - the command categories of Redis 7's ACL model (acl_rules.c,
 * which also owns the rule grammar; its other functions are the ACL files'
 * own: acl_internal.h).
 */
#ifndef RBKV_ACL_RULES_H
#define RBKV_ACL_RULES_H

#include <stddef.h>

struct command;

/* Redis's ACL categories, in the order ACL CAT lists them. */
enum acl_category {
    ACL_KEYSPACE,
    ACL_READ,
    ACL_WRITE,
    ACL_SET,
    ACL_SORTEDSET,
    ACL_LIST,
    ACL_HASH,
    ACL_STRING,
    ACL_BITMAP,
    ACL_HYPERLOGLOG,
    ACL_GEO,
    ACL_STREAM,
    ACL_PUBSUB,
    ACL_ADMIN,
    ACL_FAST,
    ACL_SLOW,
    ACL_BLOCKING,
    ACL_DANGEROUS,
    ACL_CONNECTION,
    ACL_TRANSACTION,
    ACL_SCRIPTING,
    ACL_CATEGORY_COUNT,
};

/* "keyspace", "read", ... indexed by enum acl_category (no '@'). */
extern const char *const acl_category_names[ACL_CATEGORY_COUNT];
/* The category named by name[0..len) (any case, no '@'), or -1. */
int acl_category_lookup(const char *name, size_t len);
/* A bit per enum acl_category: the ones Redis derives from the flags and
 * the docs group, plus its explicit extras (@dangerous, @keyspace, ...). */
unsigned acl_command_categories(const struct command *cmd);

#endif
