/*
 * acl.h - users and their permissions, Redis 7's ACL model: the user store,
 * AUTH and the check (acl.c). The rest of the model has headers of its own:
 * the categories (acl_rules.h), descriptions (acl_describe.h), the ACL file
 * (acl_file.h) and ACL LOG (acl_log.h).
 *
 * A user has a name, an on/off switch, SHA-256 hashes of its passwords (or
 * nopass) and one or more selectors: the root selector, plus any added with
 * "(...)"; a request is allowed when one selector allows all of it. A
 * selector allows commands (by command, "cmd|sub" and @category), keys
 * (~pattern, %R~ / %W~ for reads or writes only) and pub/sub channels
 * (&pattern).
 *
 * Ownership: acl.c owns every user; clients point at theirs (c->user) and a
 * user is freed only after its clients are closed (acl_deluser). The default
 * user always exists; requirepass is its password, as in Redis.
 *
 * The dispatcher pays one flag test for a user that may do everything
 * (ACL_USER_ALLPERM); only others go through acl_check.
 */
#ifndef RBKV_ACL_H
#define RBKV_ACL_H

#include <stddef.h>
#include <stdint.h>

#include "resp_parser.h"

struct client;
struct command;
struct resp_out;

#define ACL_USER_ON (1u << 0)
#define ACL_USER_NOPASS (1u << 1)
/* One selector with every command, key and channel: acl_check is skipped. */
#define ACL_USER_ALLPERM (1u << 2)
/* sanitize-payload and skip-sanitize-payload, at most one set: what RESTORE
 * does under sanitize-dump-payload clients (skip: no deep check). */
#define ACL_USER_SANITIZE (1u << 3)
#define ACL_USER_SKIP_SANITIZE (1u << 4)

struct acl_selector;

struct acl_user {
    char *name;                   /* owned, NUL-terminated */
    unsigned flags;
    unsigned char (*hashes)[32];  /* SHA-256 of each password, owned */
    size_t nhashes;
    struct acl_selector *sel;     /* sel[0] is the root selector; owned */
    size_t nsel;
};

/* Creates the default user once (after the command tables), as later
 * calls do. */
void acl_init(void);
/* The config file's "user" lines (struct config's users), at start:
 * 0, or -1 having logged why (acl_start, acl_file.h). */
int acl_load_config_users(void);
/* A config file's "user" line as Redis checks it while reading the file:
 * its rules, words[0..argc), tried on a user of their own. Returns 0 when
 * they apply, or fail only on the name of a command or category, which
 * acl_start tells (Redis leaves those to the start, for modules'
 * commands); else -1 with Redis's reason in *why (a static string) and in
 * *bad the number Redis names the error by: the failed rule's, counted
 * after joining "(...)" selectors split over words, or an unclosed
 * selector's word's. */
int acl_check_rules(int argc, const char *const *words, int *bad, const char **why);
/* The default user (never NULL after acl_init). */
struct acl_user *acl_default_user(void);
/* Whether a new connection must authenticate: the default user is off or
 * has a password (requirepass). */
int acl_default_requires_auth(void);
/* A user's name; "default" for NULL (the replay and primary's clients). */
const char *acl_user_name(const struct acl_user *u);
/* Whether name[0..len) may name a user, as Redis's ACLStringHasSpaces
 * decides: no byte isspace() takes and no NUL, so that the ACL file's line
 * reads back with the name as one word. */
int acl_username_valid(const char *name, size_t len);
/* The user named name[0..len), or NULL. */
struct acl_user *acl_lookup(const char *name, size_t len);
/* The user that name and password open (on, and nopass or a matching
 * hash, compared in constant time), or NULL. */
struct acl_user *acl_authenticate(const struct resp_slice *name, const struct resp_slice *pass);

/* Creates or changes a user by rules, all or nothing: 0, or -1 with Redis's
 * "Error in ACL SETUSER modifier ..." reason in err. */
int acl_setuser(const struct resp_slice *name, int argc, const struct resp_slice *rules,
                char *err, size_t errlen);
/* Deletes a user (never "default") and closes its clients (self, the one
 * asking, after its reply); 1 if it existed. */
int acl_deluser(struct client *self, const struct resp_slice *name);
/* The users sorted by name: 0..acl_user_count()-1. */
size_t acl_user_count(void);
struct acl_user *acl_user_at(size_t i);
/* chars random hex digits from OpenSSL's generator (ACL GENPASS); 0, or -1
 * when it has none to give. */
int acl_random_hex(char *out, size_t chars);

/* Why a request is refused. */
enum acl_denial { ACL_ALLOWED, ACL_DENIED_CMD, ACL_DENIED_KEY, ACL_DENIED_CHANNEL };
/* Whether u may run cmd with argv[0..argc): on a key or channel denial,
 * *pos is the argument at fault (-1 for a listing that would leave the
 * user's keys). */
enum acl_denial acl_check(const struct acl_user *u, const struct command *cmd, int argc,
                          const struct resp_slice *argv, int *pos);
/* Redis's ACLUserCheckCmdWithUnrestrictedKeyAccess for reads: whether one
 * selector of u allows cmd with argv[0..argc) and may also read every key
 * (~*, or a * pattern with read permission). SORT's BY and GET read keys
 * that come from the data, which no check of the request can see. A NULL
 * u (the log's replay, a primary's link) may. */
int acl_reads_every_key(const struct acl_user *u, const struct command *cmd, int argc,
                        const struct resp_slice *argv);
/* Where a denied request ran, ACL LOG's "context". */
enum acl_log_context { ACL_LOG_TOPLEVEL, ACL_LOG_MULTI, ACL_LOG_LUA };

#endif
