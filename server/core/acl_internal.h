/*
 * acl_internal.h - what the ACL files share and nothing else includes: the
 * inside of a selector, and the few functions one of them defines for the
 * others.
 *
 *   acl.c          the user store, AUTH, the config file's users, the check
 *   acl_rules.c    a user's contents and the rule grammar
 *   acl_describe.c the rules written back as text (ACL LIST, GETUSER)
 *   acl_file.c     the ACL file (ACL LOAD, ACL SAVE)
 *   acl_log.c      ACL LOG
 *   acl_kill.c     the subscribers a change of rules leaves without permission
 *
 * A selector is written only by the rule grammar (acl_rules.c); the check
 * (acl.c) and the descriptions read it.
 */
#ifndef RBKV_ACL_INTERNAL_H
#define RBKV_ACL_INTERNAL_H

#include <stddef.h>

#include "acl.h"

#define ACL_KEYS_READ 1u
#define ACL_KEYS_WRITE 2u

struct acl_pattern {
    char *pat; /* owned */
    size_t len;
    unsigned perm; /* ACL_KEYS_READ | ACL_KEYS_WRITE; channels use both */
};

/* Redis 7.0's first-argument rule ("+select|0"): a command without
 * subcommands, not allowed itself, allowed with one of these first
 * arguments (compared ignoring case, kept as given). */
struct acl_firstargs {
    size_t cmd; /* command_index */
    char **args; /* owned, each NUL-terminated */
    size_t n;
};

struct acl_selector {
    unsigned char *allowed; /* by command_index, owned: 1 allowed, 0 not */
    struct acl_firstargs *firstargs; /* owned; only for commands not allowed */
    size_t nfirstargs;
    int allcommands; /* started from +@all: allows commands to come */
    struct acl_pattern *keys;
    size_t nkeys;
    unsigned allkeys; /* ACL_KEYS_READ | ACL_KEYS_WRITE after ~* (Redis's allkeys), else 0 */
    struct acl_pattern *chans;
    size_t nchans;
    int allchannels;
};

/* A rule's reason when it names no command or category; the config file's
 * "user" lines leave that error to the start, the ACL file words it apart. */
#define ACL_ERR_UNKNOWN "Unknown command or category name in ACL"

/* ---- Defined in acl_rules.c ---- */

/* A new user, off, no passwords, one empty selector; not in the store. */
struct acl_user *acl_user_new(const char *name, size_t len);
/* Frees u and its contents; NULL does nothing. */
void acl_user_free(struct acl_user *u);
/* dst becomes a deep copy of src's contents (the name is shared, not copied). */
void acl_user_copy(struct acl_user *dst, const struct acl_user *src);
/* Frees u's selectors and passwords, not u nor its name. */
void acl_user_destroy(struct acl_user *u);
/* One rule applied to u; NULL, or the reason it failed (a static string). */
const char *acl_user_rule(struct acl_user *u, const char *r, size_t len);
/* u as a user just created: off, no password, no selector, no command, key
 * or channel. ACL SETUSER's reset is this and sanitize-payload. */
void acl_user_start_over(struct acl_user *u);
/* Sets or clears ACL_USER_ALLPERM after u's rules changed. */
void acl_user_update_allperm(struct acl_user *u);
/* The rule at rules[*i] in *out, a "(...)" selector split over words joined
 * back (into *joined, the caller's to xfree, else NULL) with *i left on its
 * last word; -1 for a selector no word closes (acl_rules.c says more). */
int acl_next_rule(int argc, const struct resp_slice *rules, int *i, struct resp_slice *out,
                  char **joined);
/* ACL SETUSER's rules applied to u in turn: 0, or -1 at the first that
 * fails, with Redis's "Error in ACL SETUSER modifier ..." in err. */
int acl_apply_rules(struct acl_user *u, int argc, const struct resp_slice *rules, char *err,
                    size_t errlen);
/* Whether s allows command cmd (its command_index) for a first argument
 * arg (a first-argument rule). */
int acl_selector_firstarg_allowed(const struct acl_selector *s, size_t cmd,
                                  const struct resp_slice *arg);
/* A password's SHA-256. */
void acl_sha256(const char *s, size_t len, unsigned char out[32]);
/* Where h is among u's hashes, or -1; in constant time. */
int acl_hash_index(const struct acl_user *u, const unsigned char h[32]);
/* Adds h to u's hashes unless it is there. */
void acl_hash_add(struct acl_user *u, const unsigned char h[32]);

/* ---- Defined in acl.c ---- */

/* Whether s grants channel ch: a pattern that matches it, or for a pattern
 * subscription (literal) the same pattern; allchannels grants all. */
int acl_selector_channel_allowed(const struct acl_selector *s, const struct resp_slice *ch,
                                 int literal);

/* ACL LOAD's all-or-nothing replacement of every user (acl_file.c): begin
 * sets the users aside and leaves only a new default user, which the file's
 * lines then fill through acl_setuser; end(keep) keeps the new users (the
 * default user's clients keep their struct, which takes the new rules; every
 * other old user's clients are closed, self after its reply, as Redis 7.0)
 * or puts the old ones back. */
void acl_store_begin_replace(void);
/* The replacement's default user started over, for the file's "user
 * default" line: Redis builds that user afresh, so unlike reset it is left
 * without sanitize-payload. */
void acl_store_default_start_over(void);
void acl_store_end_replace(struct client *self, int keep);

#endif
