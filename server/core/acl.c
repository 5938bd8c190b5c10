/*
 * acl.c - the user store, AUTH and the permission check (Redis 7's acl.c).
 *
 * Owns every user (a sorted array of pointers, so ACL USERS and ACL LIST
 * come out sorted as Redis's rax gives them) and the default user, whose
 * password follows requirepass. A user's struct never moves while it
 * exists: clients point at it, so ACL SETUSER builds the new rules on a
 * copy and swaps the contents in, ACL LOAD swaps the file's default user
 * into the default's struct and closes every other old user's clients, as
 * Redis 7.0 does, and ACL DELUSER closes the user's clients before freeing
 * it. Creates the config file's users at
 * start (its "user" lines, checked here while the file is read).
 *
 * What a user may do is the rule grammar's (acl_rules.c), which this file
 * calls and never reaches around; the ACL file (and the users at start) is
 * acl_file.c's, the log acl_log.c's, a refused request's reply and log entry
 * acl_deny.c's and the descriptions acl_describe.c's.
 *
 * Each key a request names is checked with the permission its key spec
 * needs (keyspec.h, as Redis's ACLSelectorCheckKey): read for ACCESS, write
 * for INSERT, DELETE or UPDATE, from one pattern that grants them all.
 *
 * Keyless listings and ranges (struct key_reach) are refused unless one
 * key pattern of the form "literal*" holds every key they can reach: a
 * filter would cost a walk over keys the user may not see, and would make
 * counts and ranks lie; docs/operations.md says it to operators.
 */
#include "acl.h"

#include <ctype.h>
#include <string.h>

#include <openssl/rand.h>

#include "acl_file.h"
#include "acl_internal.h"
#include "acl_log.h"
#include "client.h"
#include "command_table.h"
#include "conn.h"
#include "glob.h"
#include "keyspec.h"
#include "log.h"
#include "mem.h"
#include "resp_writer.h"
#include "server.h"

/* ---- Users ---- */

static struct acl_user **users;
static size_t nusers;
static struct acl_user *default_user;
/* Where a deleted user's clients point until they close: no permissions. */
static struct acl_user nobody = {.name = "(deleted)"};
/* The requirepass bytes the default user's password was last taken from
 * (p NULL: none yet). */
static struct config_bytes applied_requirepass;

/* The position of name in the sorted users, or where it would go. */
static size_t user_pos(const char *name, size_t len, int *found)
{
    size_t lo = 0, hi = nusers;
    *found = 0;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        size_t ml = strlen(users[mid]->name);
        int cmp = memcmp(users[mid]->name, name, ml < len ? ml : len);
        if (cmp == 0)
            cmp = ml < len ? -1 : ml > len;
        if (cmp == 0) {
            *found = 1;
            return mid;
        }
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void user_insert(struct acl_user *u)
{
    int found;
    size_t at = user_pos(u->name, strlen(u->name), &found);
    users = xrealloc(users, (nusers + 1) * sizeof(*users));
    memmove(users + at + 1, users + at, (nusers - at) * sizeof(*users));
    users[at] = u;
    nusers++;
}

static void sync_requirepass(void);

struct acl_user *acl_lookup(const char *name, size_t len)
{
    sync_requirepass();
    int found;
    size_t at = user_pos(name, len, &found);
    return found ? users[at] : NULL;
}

size_t acl_user_count(void)
{
    sync_requirepass();
    return nusers;
}

struct acl_user *acl_user_at(size_t i)
{
    return i < nusers ? users[i] : NULL;
}

int acl_username_valid(const char *name, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (isspace((unsigned char)name[i]) || name[i] == '\0')
            return 0;
    }
    return 1;
}

const char *acl_user_name(const struct acl_user *u)
{
    return u ? u->name : "default";
}

/* ---- Passwords and AUTH ---- */

int acl_random_hex(char *out, size_t chars)
{
    unsigned char raw[64];
    for (size_t done = 0; done < chars;) {
        if (RAND_bytes(raw, sizeof(raw)) != 1)
            return -1;
        for (size_t i = 0; i < sizeof(raw) * 2 && done < chars; i++, done++)
            out[done] = "0123456789abcdef"[i % 2 ? raw[i / 2] & 15 : raw[i / 2] >> 4];
    }
    return 0;
}

/* requirepass is the default user's one password (or nopass when empty),
 * as CONFIG SET requirepass does in Redis; taken again whenever it changes.
 * Binary-safe: the password is all of its bytes, NULs included. */
static void sync_requirepass(void)
{
    const struct config_bytes *pass = &server.cfg.requirepass;
    size_t len = pass->p ? pass->len : 0;
    if (!default_user)
        acl_init();
    if (applied_requirepass.p && applied_requirepass.len == len &&
        memcmp(applied_requirepass.p, pass->p ? pass->p : "", len) == 0)
        return;
    xfree(applied_requirepass.p);
    applied_requirepass.p = xmemdup(pass->p ? pass->p : "", len);
    applied_requirepass.len = len;
    default_user->nhashes = 0;
    if (!len) {
        default_user->flags |= ACL_USER_NOPASS;
        return;
    }
    unsigned char h[32];
    acl_sha256(pass->p, len, h);
    default_user->flags &= ~ACL_USER_NOPASS;
    acl_hash_add(default_user, h);
}

struct acl_user *acl_default_user(void)
{
    if (!default_user)
        acl_init();
    sync_requirepass();
    return default_user;
}

int acl_default_requires_auth(void)
{
    const struct acl_user *u = acl_default_user();
    return !(u->flags & ACL_USER_ON) || !(u->flags & ACL_USER_NOPASS);
}

struct acl_user *acl_authenticate(const struct resp_slice *name, const struct resp_slice *pass)
{
    sync_requirepass();
    struct acl_user *u = acl_lookup(name->ptr, name->len);
    unsigned char h[32];
    /* Hashed even for a missing user, so the time does not tell. */
    acl_sha256(pass->ptr, pass->len, h);
    if (!u || !(u->flags & ACL_USER_ON))
        return NULL;
    if (u->flags & ACL_USER_NOPASS)
        return u;
    return acl_hash_index(u, h) >= 0 ? u : NULL;
}

/* ---- ACL SETUSER and DELUSER ---- */

int acl_setuser(const struct resp_slice *name, int argc, const struct resp_slice *rules,
                char *err, size_t errlen)
{
    sync_requirepass();
    struct acl_user *u = acl_lookup(name->ptr, name->len);
    struct acl_user work;
    struct acl_user *fresh = NULL;
    if (u) {
        acl_user_copy(&work, u);
    } else {
        fresh = acl_user_new(name->ptr, name->len);
        work = *fresh;
    }
    if (acl_apply_rules(&work, argc, rules, err, errlen) < 0) {
        acl_user_destroy(&work);
        if (fresh) {
            xfree(fresh->name);
            xfree(fresh);
        }
        return -1;
    }
    if (fresh) {
        *fresh = work;
        user_insert(fresh);
    } else {
        acl_user_destroy(u);
        *u = work;
    }
    return 0;
}

/* Clients of u are closed (after their reply, for the one asking) and
 * point at nobody until then. */
static void user_disconnect(struct acl_user *u, struct client *self)
{
    for (struct client *c = server.clients, *next; c; c = next) {
        next = c->next;
        if (c->user != u)
            continue;
        c->user = &nobody;
        if (c == self)
            c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else
            conn_close(c);
    }
}

int acl_deluser(struct client *self, const struct resp_slice *name)
{
    int found;
    size_t at = user_pos(name->ptr, name->len, &found);
    if (!found)
        return 0;
    struct acl_user *u = users[at];
    user_disconnect(u, self);
    memmove(users + at, users + at + 1, (nusers - at - 1) * sizeof(*users));
    nusers--;
    acl_user_free(u);
    return 1;
}

/* ---- The config file's users, the start ---- */

/* words[0..argc) as slices, in an xmalloc'd array (the words stay the
 * caller's). */
static struct resp_slice *slices_of(int argc, const char *const *words)
{
    struct resp_slice *s = xmalloc((size_t)(argc + 1) * sizeof(*s));
    for (int i = 0; i < argc; i++) {
        s[i].ptr = words[i];
        s[i].len = strlen(words[i]);
    }
    return s;
}

/*
 * The config file's "user" lines (config.h), as Redis's
 * ACLLoadConfiguredUsers: config_set checked their rules but for names of
 * commands and categories, told here. Only "default" exists already, and
 * its line starts it over. Returns 0, or -1 having logged why.
 */
int acl_load_config_users(void)
{
    for (int k = 0; k < server.cfg.user_count; k++) {
        char *const *line = server.cfg.users[k];
        const char *name = line[0];
        size_t len = strlen(name);
        if (!acl_username_valid(name, len)) {
            log_warning("Spaces not allowed in ACL usernames");
            return -1;
        }
        struct acl_user *u = acl_lookup(name, len);
        if (u) {
            acl_user_rule(u, "reset", 5);
        } else {
            u = acl_user_new(name, len);
            user_insert(u);
        }
        int argc = 0;
        while (line[argc + 1])
            argc++;
        struct resp_slice *rules = slices_of(argc, (const char *const *)line + 1);
        const char *why = NULL;
        for (int i = 0; i < argc && !why; i++) {
            struct resp_slice r;
            char *joined;
            acl_next_rule(argc, rules, &i, &r, &joined);
            why = acl_user_rule(u, r.ptr, r.len);
            if (why)
                log_warning("Error loading ACL rule '%.*s' for the user named '%s': %s", (int)r.len,
                            r.ptr, name, why);
            xfree(joined);
        }
        xfree(rules);
        acl_user_update_allperm(u);
        if (why)
            return -1;
        if (!(u->flags & ACL_USER_ON))
            log_notice("The user '%s' is disabled (there is no 'on' modifier in the user "
                       "description). Make sure this is not a configuration error.", name);
    }
    return 0;
}

int acl_check_rules(int argc, const char *const *words, int *bad, const char **why)
{
    struct resp_slice *rules = slices_of(argc, words);
    struct acl_user *u = acl_user_new("", 0);
    int rc = 0;
    /* Redis joins the selectors before it tries a rule, so an unclosed one
     * is told first, by its word; with whatever reason errno last held,
     * which is ENOENT's in redis-server 7.0.15. */
    for (int i = 0; i < argc && rc == 0; i++) {
        struct resp_slice r;
        char *joined;
        int open = i;
        if (acl_next_rule(argc, rules, &i, &r, &joined) < 0) {
            *bad = open;
            *why = ACL_ERR_UNKNOWN;
            rc = -1;
        }
        xfree(joined);
    }
    for (int i = 0, merged = 0; i < argc && rc == 0; i++, merged++) {
        struct resp_slice r;
        char *joined;
        acl_next_rule(argc, rules, &i, &r, &joined);
        const char *e = acl_user_rule(u, r.ptr, r.len);
        if (e && strcmp(e, ACL_ERR_UNKNOWN) != 0) {
            *bad = merged;
            *why = e;
            rc = -1;
        }
        xfree(joined);
    }
    acl_user_free(u);
    xfree(rules);
    return rc;
}

/* Redis's default user, listed: it may do everything, with no password. */
static void default_user_create(void)
{
    static const char *const rules[] = {"on", "nopass", "~*", "&*", "+@all"};
    struct resp_slice s[5];
    char err[256];
    for (int i = 0; i < 5; i++) {
        s[i].ptr = rules[i];
        s[i].len = strlen(rules[i]);
    }
    default_user = acl_user_new("default", 7);
    user_insert(default_user);
    acl_apply_rules(default_user, 5, s, err, sizeof(err));
}

void acl_init(void)
{
    if (default_user)
        return;
    default_user_create();
    sync_requirepass();
}

/* ---- ACL LOAD's replacement of every user ---- */

/* The users acl_store_begin_replace set aside. */
static struct acl_user **stashed;
static size_t nstashed;
static struct acl_user *stashed_default;

void acl_store_begin_replace(void)
{
    stashed = users;
    nstashed = nusers;
    stashed_default = default_user;
    users = NULL;
    nusers = 0;
    default_user_create();
}

void acl_store_default_start_over(void)
{
    acl_user_start_over(default_user);
    acl_user_update_allperm(default_user);
}

void acl_store_end_replace(struct client *self, int keep)
{
    struct acl_user **gone = keep ? stashed : users;
    size_t ngone = keep ? nstashed : nusers;
    if (!keep) {
        users = stashed;
        nusers = nstashed;
        default_user = stashed_default;
    }
    for (size_t i = 0; i < ngone; i++) {
        if (!keep) {
            acl_user_free(gone[i]);
        } else if (gone[i] == stashed_default) {
            /* The default user's clients stay, unchecked, as in Redis 7.0:
             * the file's rules are swapped into the struct they point at. */
            struct acl_user *now = default_user;
            struct acl_user tmp = *now;
            now->sel = gone[i]->sel;
            now->nsel = gone[i]->nsel;
            now->hashes = gone[i]->hashes;
            gone[i]->sel = tmp.sel;
            gone[i]->nsel = tmp.nsel;
            gone[i]->hashes = tmp.hashes;
            gone[i]->nhashes = tmp.nhashes;
            gone[i]->flags = tmp.flags;
            now->nhashes = 0;
            for (size_t k = 0; k < nusers; k++) {
                if (users[k] == now)
                    users[k] = gone[i];
            }
            default_user = gone[i];
            acl_user_free(now);
        } else {
            /* Redis 7.0 frees every other old user with its clients, even
             * one the file leaves unchanged: they must log in again. */
            user_disconnect(gone[i], self);
            acl_user_free(gone[i]);
        }
    }
    xfree(gone);
    stashed = NULL;
    nstashed = 0;
    stashed_default = NULL;
}

/* ---- The check ---- */

/* Whether the space-separated words of list hold w (any case). */
/* cmd is the row that runs: a subcommand's own (command_resolve); a
 * command not allowed may be for its first argument (Redis's
 * allowed_firstargs; only commands without subcommands have them). */
static int command_allowed(const struct acl_selector *s, const struct command *cmd, int argc,
                           const struct resp_slice *argv)
{
    size_t i = command_index(cmd);
    if (s->allowed[i])
        return 1;
    return s->nfirstargs && argc >= 2 && acl_selector_firstarg_allowed(s, i, &argv[1]);
}

/* As Redis's ACLSelectorCheckKey: one pattern must match the key and grant
 * every permission needed (none: any pattern that matches will do). */
static int key_allowed(const struct acl_selector *s, const char *k, size_t len, unsigned need)
{
    if (s->allkeys)
        return 1;
    for (size_t i = 0; i < s->nkeys; i++) {
        const struct acl_pattern *p = &s->keys[i];
        if ((p->perm & need) == need && glob_match(p->pat, p->len, k, len, 0))
            return 1;
    }
    return 0;
}

/* The n of "literal*" (n literal bytes then one star at the end), or -1. */
static long prefix_pattern_len(const struct acl_pattern *p)
{
    if (!p->len || p->pat[p->len - 1] != '*')
        return -1;
    for (size_t i = 0; i + 1 < p->len; i++) {
        if (strchr("*?[\\", p->pat[i]))
            return -1;
    }
    return (long)p->len - 1;
}

static int starts_with(const char *s, size_t len, const char *prefix, size_t n)
{
    return len >= n && memcmp(s, prefix, n) == 0;
}

/* Keys with one prefix are one interval of key order, so a LEX reach whose
 * both ends have the prefix holds only keys with it. */
static int reach_allowed(const struct acl_selector *s, const struct key_reach *r, unsigned need)
{
    if ((s->allkeys & need) == need)
        return 1;
    for (size_t i = 0; i < s->nkeys; i++) {
        const struct acl_pattern *p = &s->keys[i];
        long n = prefix_pattern_len(p);
        if (n < 0 || ((p->perm | s->allkeys) & need) != need || r->kind == KEY_REACH_ALL)
            continue;
        if (starts_with(r->lo, r->lolen, p->pat, (size_t)n) &&
            (r->kind == KEY_REACH_PREFIX || starts_with(r->hi, r->hilen, p->pat, (size_t)n)))
            return 1;
    }
    return 0;
}

int acl_selector_channel_allowed(const struct acl_selector *s, const struct resp_slice *ch,
                                 int literal)
{
    if (s->allchannels)
        return 1;
    for (size_t i = 0; i < s->nchans; i++) {
        const struct acl_pattern *p = &s->chans[i];
        if (literal ? (p->len == ch->len && memcmp(p->pat, ch->ptr, ch->len) == 0)
                    : glob_match(p->pat, p->len, ch->ptr, ch->len, 0))
            return 1;
    }
    return 0;
}

/* The last argument of a position range (last < 0 counts from the end),
 * capped to the request. */
static int last_position(int last, int argc)
{
    last = last < 0 ? argc + last : last;
    return last >= argc ? argc - 1 : last;
}

/* The permissions a key's spec flags need, as Redis maps them. */
static unsigned key_need(unsigned flags)
{
    return (flags & KEY_ACCESS ? ACL_KEYS_READ : 0) |
           (flags & (KEY_INSERT | KEY_DELETE | KEY_UPDATE) ? ACL_KEYS_WRITE : 0);
}

struct key_check {
    const struct acl_selector *s;
    const struct resp_slice *argv;
    int denied; /* the refused key's argument, or 0 */
};

static int key_check_cb(void *ctx, int pos, unsigned flags)
{
    struct key_check *kc = ctx;
    if (key_allowed(kc->s, kc->argv[pos].ptr, kc->argv[pos].len, key_need(flags)))
        return 0;
    kc->denied = pos;
    return 1;
}

static enum acl_denial selector_check(const struct acl_selector *s, const struct command *cmd,
                                      int argc, const struct resp_slice *argv, int *pos)
{
    if (!command_allowed(s, cmd, argc, argv))
        return ACL_DENIED_CMD;
    if (!s->allkeys) {
        struct key_check kc = {s, argv, 0};
        keyspec_visit(keyspec_of(cmd), argc, argv, key_check_cb, &kc);
        if (kc.denied) {
            *pos = kc.denied;
            return ACL_DENIED_KEY;
        }
    }
    /* What a keyless listing or range reaches is read, or deleted by the
     * writes (KDELRANGE, FLUSHALL), as DEL's keys are. */
    if (cmd->key_reach) {
        struct key_reach r = {0};
        cmd->key_reach(argc, argv, &r);
        if (!reach_allowed(s, &r, cmd->flags & CMD_WRITE ? ACL_KEYS_WRITE : ACL_KEYS_READ)) {
            *pos = -1;
            return ACL_DENIED_KEY;
        }
    }
    if (cmd->first_channel > 0) {
        int last = last_position(cmd->last_channel, argc);
        for (int i = cmd->first_channel; i <= last; i++) {
            if (!acl_selector_channel_allowed(s, &argv[i],
                                              (cmd->flags & CMD_CHANNEL_PATTERNS) != 0)) {
                *pos = i;
                return ACL_DENIED_CHANNEL;
            }
        }
    }
    return ACL_ALLOWED;
}

/* Redis's ACLSelectorHasUnrestrictedKeyAccess for reads. */
static int selector_reads_every_key(const struct acl_selector *s)
{
    if (s->allkeys & ACL_KEYS_READ)
        return 1;
    for (size_t i = 0; i < s->nkeys; i++) {
        const struct acl_pattern *p = &s->keys[i];
        if ((p->perm & ACL_KEYS_READ) && p->len == 1 && p->pat[0] == '*')
            return 1;
    }
    return 0;
}

int acl_reads_every_key(const struct acl_user *u, const struct command *cmd, int argc,
                        const struct resp_slice *argv)
{
    if (!u || (u->flags & ACL_USER_ALLPERM))
        return 1;
    for (size_t i = 0; i < u->nsel; i++) {
        int pos = 0;
        if (selector_reads_every_key(&u->sel[i]) &&
            selector_check(&u->sel[i], cmd, argc, argv, &pos) == ACL_ALLOWED)
            return 1;
    }
    return 0;
}

enum acl_denial acl_check(const struct acl_user *u, const struct command *cmd, int argc,
                          const struct resp_slice *argv, int *pos)
{
    enum acl_denial worst = ACL_DENIED_CMD;
    int worst_pos = 0;
    /* AUTH, HELLO, QUIT and RESET need no permission, as in Redis: a
     * connection whose user is allowed nothing (an aclfile's `user default
     * off`) must still be able to log in as another user. */
    if ((u->flags & ACL_USER_ALLPERM) || (cmd->flags & CMD_NOAUTH))
        return ACL_ALLOWED;
    /* Allowed when one selector allows it; otherwise the denial that got
     * furthest (a key or channel, over the command), as Redis reports it. */
    for (size_t i = 0; i < u->nsel; i++) {
        int p = 0;
        enum acl_denial d = selector_check(&u->sel[i], cmd, argc, argv, &p);
        if (d == ACL_ALLOWED)
            return ACL_ALLOWED;
        if (d > worst) {
            worst = d;
            worst_pos = p;
        }
    }
    *pos = worst_pos;
    return worst;
}
