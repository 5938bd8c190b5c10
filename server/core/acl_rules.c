/*
 * acl.c - users, their rules and the permission check (Redis 7's acl.c).
 *
 * Owns every user (a sorted array of pointers, so ACL USERS and ACL LIST
 * come out sorted as Redis's rax gives them), the ACL log and the command
 * categories. A user's struct never moves while it exists: clients point at
 * it, so ACL SETUSER builds the new rules on a copy and swaps the contents
 * in, and ACL DELUSER closes the user's clients before freeing it.
 *
 * A selector's command permissions are one byte per row (by
 * command_index), a subcommand's row ("config|get") having its own, as
 * Redis 7 gives each subcommand an id: "+config" sets the container's and
 * all its subcommands', "+config|get" that one's, "+@admin" every row in
 * the category, and the check reads the byte of the row that runs. Its
 * description is the list of rules that still matter, in order, as Redis
 * 7.0 keeps it: a rule about a command drops earlier rules about the same
 * command, a category drops earlier rules about the commands in it, and
 * +@all / -@all start the list again.
 *
 * Each key a request names is checked with the permission its key spec
 * needs (keyspec.h, as Redis's ACLSelectorCheckKey): read for ACCESS, write
 * for INSERT, DELETE or UPDATE, from one pattern that grants them all.
 *
 * Keyless listings and ranges (struct key_reach) are refused unless one
 * key pattern of the form "literal*" holds every key they can reach: a
 * filter would cost a walk over keys the user may not see, and would make
 * counts and ranks lie; docs/operations.md says it to operators.
 *
 * Passwords are kept only as SHA-256 hashes (OpenSSL's libcrypto) and
 * compared in constant time.
 */
#include "acl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "client.h"
#include "clientinfo.h"
#include "clock.h"
#include "command.h"
#include "conn.h"
#include "glob.h"
#include "keyspec.h"
#include "log.h"
#include "mem.h"
#include "resp_writer.h"
#include "server.h"

/* ---- Categories ---- */

const char *const acl_category_names[ACL_CATEGORY_COUNT] = {
    "keyspace", "read",      "write",     "set",        "sortedset",  "list",   "hash",
    "string",   "bitmap",    "hyperloglog", "geo",      "stream",     "pubsub", "admin",
    "fast",     "slow",      "blocking",  "dangerous",  "connection", "transaction",
    "scripting",
};

/* The category a docs group implies; Redis's "server" group implies none. */
static const struct {
    const char *group;
    enum acl_category category;
} group_categories[] = {
    {"generic", ACL_KEYSPACE},   {"keyspace", ACL_KEYSPACE},     {"string", ACL_STRING},
    {"list", ACL_LIST},          {"set", ACL_SET},               {"sorted-set", ACL_SORTEDSET},
    {"hash", ACL_HASH},          {"bitmap", ACL_BITMAP},         {"hyperloglog", ACL_HYPERLOGLOG},
    {"geo", ACL_GEO},            {"stream", ACL_STREAM},         {"pubsub", ACL_PUBSUB},
    {"connection", ACL_CONNECTION}, {"transactions", ACL_TRANSACTION},
    {"scripting", ACL_SCRIPTING},
};

#define CAT(c) (1u << (c))

/* Redis 7.0's explicit categories (its commands' JSON "acl_categories")
 * for the commands whose flags and group do not imply them all; checked
 * against redis-server by test_command_info. */
static const struct {
    const char *name;
    unsigned add, drop; /* drop: what the group would wrongly imply */
} extra_categories[] = {
    {"wait", CAT(ACL_CONNECTION), CAT(ACL_KEYSPACE)},
    {"keys", CAT(ACL_DANGEROUS), 0},
    {"flushdb", CAT(ACL_KEYSPACE) | CAT(ACL_DANGEROUS), 0},
    {"flushall", CAT(ACL_KEYSPACE) | CAT(ACL_DANGEROUS), 0},
    {"dbsize", CAT(ACL_KEYSPACE), 0},
    {"info", CAT(ACL_DANGEROUS), 0},
    {"role", CAT(ACL_ADMIN) | CAT(ACL_DANGEROUS), 0},
    {"lastsave", CAT(ACL_ADMIN) | CAT(ACL_DANGEROUS), 0},
    {"pubsub|help", 0, CAT(ACL_PUBSUB)},
    /* COMMAND and each of its subcommands say @connection. */
    {"command", CAT(ACL_CONNECTION), 0},
    {"command|count", CAT(ACL_CONNECTION), 0},
    {"command|docs", CAT(ACL_CONNECTION), 0},
    {"command|getkeys", CAT(ACL_CONNECTION), 0},
    {"command|getkeysandflags", CAT(ACL_CONNECTION), 0},
    {"command|help", CAT(ACL_CONNECTION), 0},
    {"command|info", CAT(ACL_CONNECTION), 0},
    {"command|list", CAT(ACL_CONNECTION), 0},
};

int acl_category_lookup(const char *name, size_t len)
{
    for (int i = 0; i < ACL_CATEGORY_COUNT; i++) {
        if (strlen(acl_category_names[i]) == len && strncasecmp(acl_category_names[i], name, len) == 0)
            return i;
    }
    return -1;
}

unsigned acl_command_categories(const struct command *cmd)
{
    unsigned cats = 0;
    /* A container's group is its subcommands'; the container itself is only
     * @slow in Redis (COMMAND's @connection aside), never called on its own. */
    const char *group = cmd->subcommands ? NULL : cmd->group;
    for (size_t i = 0; i < sizeof(group_categories) / sizeof(group_categories[0]); i++) {
        if (group && strcmp(group, group_categories[i].group) == 0)
            cats |= CAT(group_categories[i].category);
    }
    for (size_t i = 0; i < sizeof(extra_categories) / sizeof(extra_categories[0]); i++) {
        if (strcmp(cmd->name, extra_categories[i].name) == 0)
            cats = (cats | extra_categories[i].add) & ~extra_categories[i].drop;
    }
    if (cmd->flags & CMD_WRITE)
        cats |= CAT(ACL_WRITE);
    /* Redis leaves the read-only scripting commands (EVAL_RO, FCALL_RO) out
     * of @read: what they read is up to the script. */
    if ((cmd->flags & CMD_READONLY) && !(cats & CAT(ACL_SCRIPTING)))
        cats |= CAT(ACL_READ);
    if (cmd->flags & CMD_ADMIN)
        cats |= CAT(ACL_ADMIN) | CAT(ACL_DANGEROUS);
    if (cmd->flags & CMD_PUBSUB)
        cats |= CAT(ACL_PUBSUB);
    if (cmd->flags & CMD_BLOCKING)
        cats |= CAT(ACL_BLOCKING);
    cats |= CAT(cmd->flags & CMD_FAST ? ACL_FAST : ACL_SLOW);
    return cats;
}

/* ---- Users and selectors ---- */

#define KEYS_READ 1u
#define KEYS_WRITE 2u


struct acl_pattern {
    char *pat; /* owned */
    size_t len;
    unsigned perm; /* KEYS_READ | KEYS_WRITE; channels use both */
};

struct acl_selector {
    unsigned char *allowed; /* by command_index, owned: 1 allowed, 0 not */
    char **rules; /* the description's rules, owned */
    size_t nrules;
    struct acl_pattern *keys;
    size_t nkeys;
    unsigned allkeys; /* KEYS_READ | KEYS_WRITE after ~* (Redis's allkeys), else 0 */
    struct acl_pattern *chans;
    size_t nchans;
    int allchannels;
};

static struct acl_user **users;
static size_t nusers;
static struct acl_user *default_user;
/* Where a deleted user's clients point until they close: no permissions. */
static struct acl_user nobody = {.name = "(deleted)"};
/* The requirepass text the default user's password was last taken from. */
static char *applied_requirepass;

static void pattern_free(struct acl_pattern *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        xfree(p[i].pat);
    xfree(p);
}

static void selector_destroy(struct acl_selector *s)
{
    xfree(s->allowed);
    for (size_t i = 0; i < s->nrules; i++)
        xfree(s->rules[i]);
    xfree(s->rules);
    pattern_free(s->keys, s->nkeys);
    pattern_free(s->chans, s->nchans);
    memset(s, 0, sizeof(*s));
}

/* A selector with nothing allowed, except channels when
 * acl-pubsub-default is allchannels. */
static void selector_init(struct acl_selector *s)
{
    memset(s, 0, sizeof(*s));
    s->allowed = xcalloc(command_builtin_count() + 1, 1);
    s->allchannels = server.cfg.acl_pubsub_default_all;
}

static struct acl_pattern *patterns_copy(const struct acl_pattern *p, size_t n)
{
    struct acl_pattern *out = xcalloc(n + 1, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        out[i] = p[i];
        out[i].pat = xmalloc(p[i].len + 1);
        memcpy(out[i].pat, p[i].pat, p[i].len + 1);
    }
    return out;
}

static void selector_copy(struct acl_selector *dst, const struct acl_selector *src)
{
    size_t n = command_builtin_count() + 1;
    *dst = *src;
    dst->allowed = xmalloc(n);
    memcpy(dst->allowed, src->allowed, n);
    dst->rules = xcalloc(src->nrules + 1, sizeof(*dst->rules));
    for (size_t i = 0; i < src->nrules; i++)
        dst->rules[i] = xstrdup(src->rules[i]);
    dst->keys = patterns_copy(src->keys, src->nkeys);
    dst->chans = patterns_copy(src->chans, src->nchans);
}

static void user_destroy(struct acl_user *u)
{
    for (size_t i = 0; i < u->nsel; i++)
        selector_destroy(&u->sel[i]);
    xfree(u->sel);
    xfree(u->hashes);
    u->sel = NULL;
    u->hashes = NULL;
    u->nsel = u->nhashes = 0;
}

static void user_copy(struct acl_user *dst, const struct acl_user *src)
{
    *dst = *src;
    dst->hashes = xcalloc(src->nhashes + 1, sizeof(*dst->hashes));
    if (src->nhashes) /* a user without passwords may have no array at all */
        memcpy(dst->hashes, src->hashes, src->nhashes * sizeof(*dst->hashes));
    dst->sel = xcalloc(src->nsel, sizeof(*dst->sel));
    for (size_t i = 0; i < src->nsel; i++)
        selector_copy(&dst->sel[i], &src->sel[i]);
}

/* A new user, off, no passwords, one empty selector; not yet listed. */
static struct acl_user *user_new(const char *name, size_t len)
{
    struct acl_user *u = xcalloc(1, sizeof(*u));
    u->name = xmalloc(len + 1);
    memcpy(u->name, name, len);
    u->name[len] = '\0';
    u->sel = xcalloc(1, sizeof(*u->sel));
    u->nsel = 1;
    selector_init(&u->sel[0]);
    return u;
}

static void user_free(struct acl_user *u)
{
    if (!u)
        return;
    user_destroy(u);
    xfree(u->name);
    xfree(u);
}

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

const char *acl_user_name(const struct acl_user *u)
{
    return u ? u->name : "default";
}

/* ---- Passwords ---- */

static void sha256(const char *s, size_t len, unsigned char out[32])
{
    unsigned int n = 32;
    /* EVP_Digest fails only without memory or a SHA-256 provider; a zero
     * hash then matches no password's hash. */
    if (!EVP_Digest(s, len, out, &n, EVP_sha256(), NULL))
        memset(out, 0, 32);
}

/* Constant time: every byte is compared whatever the first difference. */
static int hash_equal(const unsigned char a[32], const unsigned char b[32])
{
    unsigned diff = 0;
    for (int i = 0; i < 32; i++)
        diff |= (unsigned)(a[i] ^ b[i]);
    return diff == 0;
}

static int hash_index(const struct acl_user *u, const unsigned char h[32])
{
    int at = -1;
    /* Every hash is compared, so the time says nothing of which matched. */
    for (size_t i = 0; i < u->nhashes; i++) {
        if (hash_equal(u->hashes[i], h))
            at = (int)i;
    }
    return at;
}

static void hash_add(struct acl_user *u, const unsigned char h[32])
{
    if (hash_index(u, h) >= 0)
        return;
    u->hashes = xrealloc(u->hashes, (u->nhashes + 1) * sizeof(*u->hashes));
    memcpy(u->hashes[u->nhashes++], h, 32);
}

static void hash_remove(struct acl_user *u, int at)
{
    memmove(u->hashes[at], u->hashes[at + 1], (u->nhashes - (size_t)at - 1) * 32);
    u->nhashes--;
}

static int hex_hash(const char *s, size_t len, unsigned char out[32])
{
    if (len != 64)
        return -1;
    for (size_t i = 0; i < 64; i++) {
        char ch = s[i];
        int v = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
        if (v < 0)
            return -1;
        if (i % 2 == 0)
            out[i / 2] = (unsigned char)(v << 4);
        else
            out[i / 2] |= (unsigned char)v;
    }
    return 0;
}

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
 * as CONFIG SET requirepass does in Redis; taken again whenever it changes. */
static void sync_requirepass(void)
{
    const char *pass = server.cfg.requirepass ? server.cfg.requirepass : "";
    if (!default_user)
        acl_init();
    if (applied_requirepass && strcmp(applied_requirepass, pass) == 0)
        return;
    xfree(applied_requirepass);
    applied_requirepass = xstrdup(pass);
    default_user->nhashes = 0;
    if (!pass[0]) {
        default_user->flags |= ACL_USER_NOPASS;
        return;
    }
    unsigned char h[32];
    sha256(pass, strlen(pass), h);
    default_user->flags &= ~ACL_USER_NOPASS;
    hash_add(default_user, h);
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
    sha256(pass->ptr, pass->len, h);
    if (!u || !(u->flags & ACL_USER_ON))
        return NULL;
    if (u->flags & ACL_USER_NOPASS)
        return u;
    return hash_index(u, h) >= 0 ? u : NULL;
}

/* ---- Rules ---- */

#define ERR_UNKNOWN "Unknown command or category name in ACL"
#define ERR_ALLKEYS                                                                             \
    "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not "  \
    "have any effect. Try 'resetkeys' to start with an empty list of patterns"
#define ERR_ALLCHANNELS                                                                         \
    "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does "  \
    "not have any effect. Try 'resetchannels' to start with an empty list of channels"
#define ERR_NOPASSWORD "The password you are trying to remove from the user does not exist"
#define ERR_BADHASH                                                                             \
    "The password hash must be exactly 64 characters and contain only lowercase hexadecimal "  \
    "characters"
#define ERR_SYNTAX_RULE "Syntax error"

static void rules_clear(struct acl_selector *s)
{
    for (size_t i = 0; i < s->nrules; i++)
        xfree(s->rules[i]);
    s->nrules = 0;
}

/* The row a rule token ("+get", "-config|set") names, or NULL. Rules
 * name commands by their own names whatever rename-command did, as Redis
 * looks them up in its orig_commands: ACL LIST never shows a secret new
 * name. */
static const struct command *rule_command(const char *rule)
{
    if (rule[1] == '@')
        return NULL;
    return command_lookup_builtin(rule + 1, strlen(rule + 1));
}

/* Drops the rules about commands for which drop(cmd, arg) holds. */
static void rules_drop(struct acl_selector *s, int (*drop)(const struct command *, const void *),
                       const void *arg)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->nrules; i++) {
        const struct command *cmd = rule_command(s->rules[i]);
        if (cmd && drop(cmd, arg))
            xfree(s->rules[i]);
        else
            s->rules[kept++] = s->rules[i];
    }
    s->nrules = kept;
}

/* Whether cmd is the row arg or one of its subcommands: a rule about
 * CONFIG supersedes earlier ones about CONFIG and CONFIG|GET. */
static int is_command(const struct command *cmd, const void *arg)
{
    const struct command *row = arg;
    if (cmd == row)
        return 1;
    for (const struct command *sub = row->subcommands; sub && sub->name; sub++) {
        if (cmd == sub)
            return 1;
    }
    return 0;
}

static int in_category(const struct command *cmd, const void *arg)
{
    return (acl_command_categories(cmd) & *(const unsigned *)arg) != 0;
}

static void rules_append(struct acl_selector *s, char sign, const char *name, size_t len)
{
    s->rules = xrealloc(s->rules, (s->nrules + 1) * sizeof(*s->rules));
    char *r = xmalloc(len + 2);
    r[0] = sign;
    for (size_t i = 0; i < len; i++)
        r[i + 1] = (char)tolower((unsigned char)name[i]);
    r[len + 1] = '\0';
    s->rules[s->nrules++] = r;
}

static void command_set(struct acl_selector *s, const struct command *cmd, int allow)
{
    s->allowed[command_index(cmd)] = (unsigned char)allow;
}

/* A container's rule covers its subcommands too, as Redis's
 * ACLChangeSelectorPerm. */
static void command_set_all(struct acl_selector *s, const struct command *cmd, int allow)
{
    command_set(s, cmd, allow);
    for (const struct command *sub = cmd->subcommands; sub && sub->name; sub++)
        command_set(s, sub, allow);
}

/* +cmd, -cmd, +cmd|sub, -cmd|sub, +@cat, -@cat, +@all, -@all. */
static const char *command_rule(struct acl_selector *s, const char *r, size_t len)
{
    int allow = r[0] == '+';
    if (len >= 2 && r[1] == '@') {
        if (len == 5 && strncasecmp(r + 2, "all", 3) == 0) {
            memset(s->allowed, allow, command_builtin_count() + 1);
            rules_clear(s);
            if (allow)
                rules_append(s, '+', "@all", 4);
            return NULL;
        }
        int cat = acl_category_lookup(r + 2, len - 2);
        if (cat < 0)
            return ERR_UNKNOWN;
        unsigned bit = CAT(cat);
        for (size_t i = 0; i < command_row_count(); i++) {
            const struct command *cmd = command_row_at(i);
            if (acl_command_categories(cmd) & bit)
                command_set(s, cmd, allow);
        }
        rules_drop(s, in_category, &bit);
        rules_append(s, r[0], r + 1, len - 1);
        return NULL;
    }
    /* "config|get" finds the subcommand's row; a first argument of a
     * command without subcommands ("select|0") finds nothing. */
    const struct command *cmd = command_lookup_builtin(r + 1, len - 1);
    if (!cmd)
        return ERR_UNKNOWN;
    command_set_all(s, cmd, allow);
    rules_drop(s, is_command, cmd);
    rules_append(s, r[0], r + 1, len - 1);
    return NULL;
}

static void pattern_add(struct acl_pattern **list, size_t *n, const char *p, size_t len,
                        unsigned perm)
{
    for (size_t i = 0; i < *n; i++) {
        if ((*list)[i].len == len && memcmp((*list)[i].pat, p, len) == 0) {
            (*list)[i].perm |= perm;
            return;
        }
    }
    *list = xrealloc(*list, (*n + 1) * sizeof(**list));
    struct acl_pattern *np = &(*list)[(*n)++];
    np->pat = xmalloc(len + 1);
    memcpy(np->pat, p, len);
    np->pat[len] = '\0';
    np->len = len;
    np->perm = perm;
}

/* ~pat, %R~pat, %W~pat, %RW~pat, allkeys. */
static const char *key_rule(struct acl_selector *s, const char *r, size_t len)
{
    unsigned perm = KEYS_READ | KEYS_WRITE;
    size_t at = 1;
    if (r[0] == '%') {
        perm = 0;
        for (; at < len && r[at] != '~'; at++) {
            char ch = (char)toupper((unsigned char)r[at]);
            /* A letter twice is a syntax error, as in Redis. */
            if (ch == 'R' && !(perm & KEYS_READ))
                perm |= KEYS_READ;
            else if (ch == 'W' && !(perm & KEYS_WRITE))
                perm |= KEYS_WRITE;
            else
                return ERR_SYNTAX_RULE;
        }
        if (!perm || at == len)
            return ERR_SYNTAX_RULE;
        at++;
    }
    if (s->allkeys)
        return ERR_ALLKEYS;
    /* Only ~* itself is Redis's "all keys", after which narrower patterns
     * go and no pattern may follow. %R~* (even %RW~*) is one more pattern: a
     * key needing both permissions needs one pattern that grants both, so
     * "%R~* %W~dst*" still refuses LMOVE's source. */
    if (r[0] == '~' && len == 2 && r[1] == '*') {
        pattern_free(s->keys, s->nkeys);
        s->keys = NULL;
        s->nkeys = 0;
        s->allkeys = perm;
    }
    pattern_add(&s->keys, &s->nkeys, r + at, len - at, perm);
    return NULL;
}

static const char *channel_rule(struct acl_selector *s, const char *r, size_t len)
{
    if (s->allchannels)
        return ERR_ALLCHANNELS;
    if (len == 2 && r[1] == '*') {
        pattern_free(s->chans, s->nchans);
        s->chans = NULL;
        s->nchans = 0;
        s->allchannels = 1;
        return NULL;
    }
    pattern_add(&s->chans, &s->nchans, r + 1, len - 1, KEYS_READ | KEYS_WRITE);
    return NULL;
}

static int rule_is(const char *r, size_t len, const char *word)
{
    return strlen(word) == len && strncasecmp(r, word, len) == 0;
}

static void keys_reset(struct acl_selector *s)
{
    pattern_free(s->keys, s->nkeys);
    s->keys = NULL;
    s->nkeys = 0;
    s->allkeys = 0;
}

static void channels_reset(struct acl_selector *s)
{
    pattern_free(s->chans, s->nchans);
    s->chans = NULL;
    s->nchans = 0;
    s->allchannels = 0;
}

/* A rule a selector takes (commands, keys, channels); NULL when applied. */
static const char *selector_rule(struct acl_selector *s, const char *r, size_t len)
{
    if (len == 0)
        return ERR_SYNTAX_RULE;
    if (r[0] == '+' || r[0] == '-')
        return len > 1 ? command_rule(s, r, len) : ERR_SYNTAX_RULE;
    if (r[0] == '~' || r[0] == '%')
        return key_rule(s, r, len);
    if (r[0] == '&')
        return channel_rule(s, r, len);
    if (rule_is(r, len, "allcommands"))
        return command_rule(s, "+@all", 5);
    if (rule_is(r, len, "nocommands"))
        return command_rule(s, "-@all", 5);
    if (rule_is(r, len, "allkeys"))
        return key_rule(s, "~*", 2);
    if (rule_is(r, len, "resetkeys")) {
        keys_reset(s);
        return NULL;
    }
    if (rule_is(r, len, "allchannels"))
        return channel_rule(s, "&*", 2);
    if (rule_is(r, len, "resetchannels")) {
        channels_reset(s);
        return NULL;
    }
    return ERR_SYNTAX_RULE;
}

/* A "(rule rule ...)" selector, the parentheses included. */
static const char *selector_add(struct acl_user *u, const char *r, size_t len)
{
    struct acl_selector s;
    selector_init(&s);
    size_t i = 1;
    while (i < len - 1) {
        while (i < len - 1 && r[i] == ' ')
            i++;
        size_t start = i;
        while (i < len - 1 && r[i] != ' ')
            i++;
        if (i == start)
            break;
        const char *err = selector_rule(&s, r + start, i - start);
        if (err) {
            selector_destroy(&s);
            return err;
        }
    }
    u->sel = xrealloc(u->sel, (u->nsel + 1) * sizeof(*u->sel));
    u->sel[u->nsel++] = s;
    return NULL;
}

static void selectors_clear(struct acl_user *u)
{
    for (size_t i = 1; i < u->nsel; i++)
        selector_destroy(&u->sel[i]);
    u->nsel = 1;
}

/* Adds a password's hash (">", "#") or removes it ("<", "!"). */
static const char *password_rule(struct acl_user *u, int add, const unsigned char h[32])
{
    if (add) {
        hash_add(u, h);
        u->flags &= ~ACL_USER_NOPASS;
        return NULL;
    }
    int at = hash_index(u, h);
    if (at < 0)
        return ERR_NOPASSWORD;
    hash_remove(u, at);
    return NULL;
}

/* One rule of ACL SETUSER applied to u; NULL, or the reason it failed. */
static const char *user_rule(struct acl_user *u, const char *r, size_t len)
{
    unsigned char h[32];
    if (rule_is(r, len, "on")) {
        u->flags |= ACL_USER_ON;
    } else if (rule_is(r, len, "off")) {
        u->flags &= ~ACL_USER_ON;
    } else if (rule_is(r, len, "nopass")) {
        u->flags |= ACL_USER_NOPASS;
        u->nhashes = 0;
    } else if (rule_is(r, len, "resetpass")) {
        u->flags &= ~ACL_USER_NOPASS;
        u->nhashes = 0;
    } else if (len && (r[0] == '>' || r[0] == '<')) {
        sha256(r + 1, len - 1, h);
        return password_rule(u, r[0] == '>', h);
    } else if (len && (r[0] == '#' || r[0] == '!')) {
        if (hex_hash(r + 1, len - 1, h) < 0)
            return ERR_BADHASH;
        return password_rule(u, r[0] == '#', h);
    } else if (len >= 2 && r[0] == '(' && r[len - 1] == ')') {
        return selector_add(u, r, len);
    } else if (rule_is(r, len, "clearselectors")) {
        selectors_clear(u);
    } else if (rule_is(r, len, "reset")) {
        u->flags &= ~(ACL_USER_ON | ACL_USER_NOPASS);
        u->nhashes = 0;
        selectors_clear(u);
        selector_destroy(&u->sel[0]);
        selector_init(&u->sel[0]);
    } else {
        return selector_rule(&u->sel[0], r, len);
    }
    return NULL;
}

/* Whether one selector allows every command, key and channel. */
static int selector_all(const struct acl_selector *s)
{
    for (size_t i = 0; i < command_builtin_count(); i++) {
        if (!s->allowed[i])
            return 0;
    }
    return s->allkeys == (KEYS_READ | KEYS_WRITE) && s->allchannels;
}

static void user_update_allperm(struct acl_user *u)
{
    u->flags &= ~ACL_USER_ALLPERM;
    if (u->nsel == 1 && selector_all(&u->sel[0]))
        u->flags |= ACL_USER_ALLPERM;
}

/*
 * The rule at rules[*i]: one word, or a "(...)" selector that a file's
 * spaces split over several words, joined back into one (then xmalloc'd in
 * *joined, else *joined is NULL) with *i left on its last word. Returns -1
 * when a word opens a selector that no later word closes: out is then that
 * word alone, which the rule parser refuses.
 */
static int next_rule(int argc, const struct resp_slice *rules, int *i, struct resp_slice *out,
                     char **joined)
{
    const char *r = rules[*i].ptr;
    size_t len = rules[*i].len;
    *out = rules[*i];
    *joined = NULL;
    if (!len || r[0] != '(' || r[len - 1] == ')')
        return 0;
    size_t total = len;
    int j = *i + 1;
    while (j < argc && !(rules[j].len && rules[j].ptr[rules[j].len - 1] == ')'))
        total += 1 + rules[j++].len;
    if (j == argc)
        return -1;
    total += 1 + rules[j].len;
    char *buf = xmalloc(total + 1);
    size_t at = 0;
    for (int k = *i; k <= j; k++) {
        if (k > *i)
            buf[at++] = ' ';
        memcpy(buf + at, rules[k].ptr, rules[k].len);
        at += rules[k].len;
    }
    buf[at] = '\0';
    out->ptr = buf;
    out->len = at;
    *joined = buf;
    *i = j;
    return 0;
}

static int apply_rules(struct acl_user *u, int argc, const struct resp_slice *rules, char *err,
                       size_t errlen)
{
    for (int i = 0; i < argc; i++) {
        struct resp_slice r;
        char *joined;
        next_rule(argc, rules, &i, &r, &joined);
        const char *why = user_rule(u, r.ptr, r.len);
        if (why) {
            snprintf(err, errlen, "Error in ACL SETUSER modifier '%.*s': %s",
                     (int)(r.len < 128 ? r.len : 128), r.ptr, why);
            xfree(joined);
            return -1;
        }
        xfree(joined);
    }
    user_update_allperm(u);
    return 0;
}

int acl_setuser(const struct resp_slice *name, int argc, const struct resp_slice *rules,
                char *err, size_t errlen)
{
    sync_requirepass();
    struct acl_user *u = acl_lookup(name->ptr, name->len);
    struct acl_user work;
    struct acl_user *fresh = NULL;
    if (u) {
        user_copy(&work, u);
    } else {
        fresh = user_new(name->ptr, name->len);
        work = *fresh;
    }
    if (apply_rules(&work, argc, rules, err, errlen) < 0) {
        user_destroy(&work);
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
        user_destroy(u);
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
    user_free(u);
    return 1;
}

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
static int load_config_users(void)
{
    for (int k = 0; k < server.cfg.user_count; k++) {
        char *const *line = server.cfg.users[k];
        const char *name = line[0];
        size_t len = strlen(name);
        for (size_t i = 0; i < len; i++) {
            if (isspace((unsigned char)name[i])) {
                log_warning("Spaces not allowed in ACL usernames");
                return -1;
            }
        }
        struct acl_user *u = acl_lookup(name, len);
        if (u) {
            user_rule(u, "reset", 5);
        } else {
            u = user_new(name, len);
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
            next_rule(argc, rules, &i, &r, &joined);
            why = user_rule(u, r.ptr, r.len);
            if (why)
                log_warning("Error loading ACL rule '%.*s' for the user named '%s': %s", (int)r.len,
                            r.ptr, name, why);
            xfree(joined);
        }
        xfree(rules);
        user_update_allperm(u);
        if (why)
            return -1;
        if (!(u->flags & ACL_USER_ON))
            log_notice("The user '%s' is disabled (there is no 'on' modifier in the user "
                       "description). Make sure this is not a configuration error.", name);
    }
    return 0;
}

int acl_start(void)
{
    char err[512];
    acl_init();
    if (server.cfg.aclfile && server.cfg.user_count) {
        log_warning("Configuring Redis with users defined in redis.conf and at the same setting an "
                    "ACL file path is invalid. This setup is very likely to lead to configuration "
                    "errors and security holes, please define either an ACL file or declare users "
                    "directly in your redis.conf, but not both.");
        return -1;
    }
    if (load_config_users() < 0) {
        log_warning("Critical error while loading ACLs. Exiting.");
        return -1;
    }
    if (server.cfg.aclfile && acl_load_file(NULL, server.cfg.aclfile, err, sizeof(err)) < 0) {
        log_warning("Aborting Redis startup because of ACL errors: %s", err);
        return -1;
    }
    return 0;
}

int acl_check_rules(int argc, const char *const *words, int *bad, const char **why)
{
    struct resp_slice *rules = slices_of(argc, words);
    struct acl_user *u = user_new("", 0);
    int rc = 0;
    /* Redis joins the selectors before it tries a rule, so an unclosed one
     * is told first, by its word; with whatever reason errno last held,
     * which is ENOENT's in redis-server 7.0.15. */
    for (int i = 0; i < argc && rc == 0; i++) {
        struct resp_slice r;
        char *joined;
        int open = i;
        if (next_rule(argc, rules, &i, &r, &joined) < 0) {
            *bad = open;
            *why = ERR_UNKNOWN;
            rc = -1;
        }
        xfree(joined);
    }
    for (int i = 0, merged = 0; i < argc && rc == 0; i++, merged++) {
        struct resp_slice r;
        char *joined;
        next_rule(argc, rules, &i, &r, &joined);
        const char *e = user_rule(u, r.ptr, r.len);
        if (e && strcmp(e, ERR_UNKNOWN) != 0) {
            *bad = merged;
            *why = e;
            rc = -1;
        }
        xfree(joined);
    }
    user_free(u);
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
    default_user = user_new("default", 7);
    user_insert(default_user);
    apply_rules(default_user, 5, s, err, sizeof(err));
}

void acl_init(void)
{
    if (default_user)
        return;
    default_user_create();
    sync_requirepass();
}

/* ---- Descriptions ---- */

struct text {
    char *p;
    size_t len, cap;
};

static void text_add(struct text *t, const char *s, size_t n)
{
    if (!t->p || t->len + n + 2 > t->cap) {
        t->cap = (t->len + n + 2) * 2;
        t->p = xrealloc(t->p, t->cap);
    }
    if (t->len)
        t->p[t->len++] = ' ';
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

static char *text_done(struct text *t)
{
    return t->p ? t->p : xstrdup("");
}

char *acl_describe_flags(const struct acl_user *u)
{
    struct text t = {0};
    text_add(&t, u->flags & ACL_USER_ON ? "on" : "off", u->flags & ACL_USER_ON ? 2 : 3);
    if (u->flags & ACL_USER_NOPASS)
        text_add(&t, "nopass", 6);
    for (size_t i = 0; i < u->nhashes; i++) {
        char hex[66];
        hex[0] = '#';
        for (int k = 0; k < 32; k++)
            snprintf(hex + 1 + 2 * k, 3, "%02x", u->hashes[i][k]);
        text_add(&t, hex, 65);
    }
    return text_done(&t);
}

char *acl_describe_commands(const struct acl_user *u, size_t sel)
{
    const struct acl_selector *s = &u->sel[sel];
    struct text t = {0};
    if (!s->nrules || strcmp(s->rules[0], "+@all") != 0)
        text_add(&t, "-@all", 5);
    for (size_t i = 0; i < s->nrules; i++)
        text_add(&t, s->rules[i], strlen(s->rules[i]));
    return text_done(&t);
}

static void describe_key(struct text *t, const struct acl_pattern *p, unsigned perm)
{
    char *word = xmalloc(p->len + 5);
    const char *prefix = perm == KEYS_READ ? "%R~" : perm == KEYS_WRITE ? "%W~" : "~";
    size_t n = strlen(prefix);
    memcpy(word, prefix, n);
    memcpy(word + n, p->pat, p->len);
    word[n + p->len] = '\0';
    text_add(t, word, n + p->len);
    xfree(word);
}

char *acl_describe_keys(const struct acl_user *u, size_t sel)
{
    const struct acl_selector *s = &u->sel[sel];
    struct text t = {0};
    for (size_t i = 0; i < s->nkeys; i++)
        describe_key(&t, &s->keys[i], s->keys[i].perm);
    return text_done(&t);
}

char *acl_describe_channels(const struct acl_user *u, size_t sel)
{
    const struct acl_selector *s = &u->sel[sel];
    struct text t = {0};
    if (s->allchannels)
        text_add(&t, "&*", 2);
    for (size_t i = 0; i < s->nchans; i++) {
        char *word = xmalloc(s->chans[i].len + 2);
        word[0] = '&';
        memcpy(word + 1, s->chans[i].pat, s->chans[i].len);
        text_add(&t, word, s->chans[i].len + 1);
        xfree(word);
    }
    return text_done(&t);
}

/* keys, then channels ("resetchannels" first when not all, as Redis),
 * then commands: the order ACL LIST shows a selector in. */
static void describe_selector(struct text *t, const struct acl_user *u, size_t sel)
{
    char *keys = acl_describe_keys(u, sel), *chans = acl_describe_channels(u, sel);
    char *cmds = acl_describe_commands(u, sel);
    if (keys[0])
        text_add(t, keys, strlen(keys));
    if (!u->sel[sel].allchannels)
        text_add(t, "resetchannels", 13);
    if (chans[0])
        text_add(t, chans, strlen(chans));
    text_add(t, cmds, strlen(cmds));
    xfree(keys);
    xfree(chans);
    xfree(cmds);
}

char *acl_describe(const struct acl_user *u)
{
    struct text t = {0};
    char *flags = acl_describe_flags(u);
    text_add(&t, flags, strlen(flags));
    xfree(flags);
    describe_selector(&t, u, 0);
    for (size_t i = 1; i < u->nsel; i++) {
        struct text inner = {0};
        describe_selector(&inner, u, i);
        char *word = xmalloc(inner.len + 3);
        word[0] = '(';
        memcpy(word + 1, inner.p, inner.len);
        word[inner.len + 1] = ')';
        text_add(&t, word, inner.len + 2);
        xfree(word);
        xfree(inner.p);
    }
    return text_done(&t);
}

/* ---- The check ---- */

/* Whether the space-separated words of list hold w (any case). */
/* cmd is the row that runs: a subcommand's own (command_resolve). */
static int command_allowed(const struct acl_selector *s, const struct command *cmd)
{
    return s->allowed[command_index(cmd)] != 0;
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

static int channel_allowed(const struct acl_selector *s, const struct resp_slice *ch,
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
    return (flags & KEY_ACCESS ? KEYS_READ : 0) |
           (flags & (KEY_INSERT | KEY_DELETE | KEY_UPDATE) ? KEYS_WRITE : 0);
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
    if (!command_allowed(s, cmd))
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
        if (!reach_allowed(s, &r, cmd->flags & CMD_WRITE ? KEYS_WRITE : KEYS_READ)) {
            *pos = -1;
            return ACL_DENIED_KEY;
        }
    }
    if (cmd->first_channel > 0) {
        int last = last_position(cmd->last_channel, argc);
        for (int i = cmd->first_channel; i <= last; i++) {
            if (!channel_allowed(s, &argv[i], (cmd->flags & CMD_CHANNEL_PATTERNS) != 0)) {
                *pos = i;
                return ACL_DENIED_CHANNEL;
            }
        }
    }
    return ACL_ALLOWED;
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

void acl_add_denial(struct resp_out *o, enum acl_denial d, const char *object)
{
    if (d == ACL_DENIED_KEY)
        resp_add_error(o, "NOPERM this user has no permissions to access one of the keys used "
                          "as arguments");
    else if (d == ACL_DENIED_CHANNEL)
        resp_add_error(o, "NOPERM this user has no permissions to access one of the channels "
                          "used as arguments");
    else
        resp_add_errorf(o, "NOPERM this user has no permissions to run the '%s' command", object);
}

void acl_log_denial(struct client *c, enum acl_log_context ctx, enum acl_denial d,
                    const struct command *cmd, const struct resp_slice *argv, int pos)
{
    const char *name = acl_user_name(c->user);
    if (d == ACL_DENIED_CMD) {
        /* A subcommand's row is named "container|sub", as Redis logs it. */
        acl_log_add(c, "command", ctx, cmd->name, strlen(cmd->name), name, strlen(name));
    } else if (pos > 0) {
        acl_log_add(c, d == ACL_DENIED_KEY ? "key" : "channel", ctx, argv[pos].ptr,
                    argv[pos].len, name, strlen(name));
    } else {
        acl_log_add(c, "key", ctx, cmd->name, strlen(cmd->name), name, strlen(name));
    }
}

int acl_refuses(struct client *c, const struct command *cmd)
{
    int pos = 0;
    enum acl_denial d = acl_check(c->user, cmd, c->argc, c->argv, &pos);
    if (d == ACL_ALLOWED)
        return 0;
    /* Redis 7.0 logs a command refused while MULTI queues it as "multi". */
    acl_log_denial(c, c->multi ? ACL_LOG_MULTI : ACL_LOG_TOPLEVEL, d, cmd, c->argv, pos);
    acl_add_denial(&c->out, d, cmd->name);
    return 1;
}

int acl_refuses_at_exec(struct client *c, const struct command *cmd)
{
    if (!c->user || (c->user->flags & ACL_USER_ALLPERM))
        return 0;
    int pos = 0;
    enum acl_denial d = acl_check(c->user, cmd, c->argc, c->argv, &pos);
    if (d == ACL_ALLOWED)
        return 0;
    acl_log_denial(c, ACL_LOG_MULTI, d, cmd, c->argv, pos);
    resp_add_errorf(&c->out,
                    "NOPERM ACLs rules changed between the moment the transaction was "
                    "accumulated and the EXEC call. This command is no longer allowed for the "
                    "following reason: %s",
                    d == ACL_DENIED_CMD   ? "no permission to execute the command or subcommand"
                    : d == ACL_DENIED_KEY ? "no permission to touch the specified keys"
                                          : "no permission to access one of the channels used "
                                            "as arguments");
    return 1;
}

/* ---- Files ---- */

/* Splits line on spaces into words (slices into line); returns the count. */
static int split_words(char *line, struct resp_slice *words, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(line, " \t\r\n", &save); w && n < max;
         w = strtok_r(NULL, " \t\r\n", &save)) {
        words[n].ptr = w;
        words[n].len = strlen(w);
        n++;
    }
    return n;
}

#define ACL_FILE_MAX_WORDS 1024

/* snprintf into out[0..cap) that returns how much it wrote, so appends
 * stop at the end of a full buffer. */
static size_t errf(char *out, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static size_t errf(char *out, size_t cap, const char *fmt, ...)
{
    if (cap == 0)
        return 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, cap, fmt, ap);
    va_end(ap);
    return n < 0 ? 0 : (size_t)n >= cap ? cap - 1 : (size_t)n;
}

int acl_load_file(struct client *self, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "Error loading ACLs, opening file '%s': %s", path, strerror(errno));
        return -1;
    }
    /* Built aside, then swapped in: a bad line leaves the users as they were. */
    struct acl_user **old = users, *old_default = default_user;
    size_t old_n = nusers;
    users = NULL;
    nusers = 0;
    default_user_create();
    struct resp_slice *words = xmalloc(ACL_FILE_MAX_WORDS * sizeof(*words));
    char *line = NULL;
    size_t cap = 0;
    /* The default user exists already: its line starts it over, as in Redis. */
    static const struct resp_slice reset_rule = {.ptr = "reset", .len = 5};
    int lineno = 0, rc = 0, seen_default = 0;
    size_t at = 0;
    err[0] = '\0';
    /* Every line is checked, and each error told, as Redis 7.0 does. */
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        int n = split_words(line, words, ACL_FILE_MAX_WORDS);
        if (n == 0)
            continue;
        char why[256];
        const char *reason;
        int is_default = n >= 2 && words[1].len == 7 && memcmp(words[1].ptr, "default", 7) == 0;
        if (n < 2 || words[0].len != 4 || memcmp(words[0].ptr, "user", 4) != 0) {
            at += errf(err + at, errlen - at, "%s:%d should start with user keyword followed by "
                                              "the username. ", path, lineno);
        } else if (is_default ? seen_default : acl_lookup(words[1].ptr, words[1].len) != NULL) {
            at += errf(err + at, errlen - at, "WARNING: Duplicate user '%.*s' found on line %d. ",
                       (int)words[1].len, words[1].ptr, lineno);
        } else if ((is_default && acl_setuser(&words[1], 1, &reset_rule, why, sizeof(why)) < 0) ||
                   acl_setuser(&words[1], n - 2, words + 2, why, sizeof(why)) < 0) {
            /* ACL SETUSER's "Error in ACL SETUSER modifier '<rule>': <reason>"
             * told as Redis tells a file's: the rule only for an unknown
             * command or category. */
            const char *rule = strchr(why, '\'');
            reason = strstr(why, "': ");
            if (rule && reason && strcmp(reason + 3, ERR_UNKNOWN) == 0)
                at += errf(err + at, errlen - at, "%s:%d: Error in applying operation '%.*s': %s. ",
                           path, lineno, (int)(reason - rule - 1), rule + 1, reason + 3);
            else
                at += errf(err + at, errlen - at, "%s:%d: %s. ", path, lineno,
                           reason ? reason + 3 : why);
        } else {
            seen_default |= is_default;
            continue;
        }
        rc = -1;
    }
    if (rc < 0)
        errf(err + at, errlen - at, "WARNING: ACL errors detected, no change to the previously "
                                    "active ACL rules was performed");
    free(line);
    xfree(words);
    fclose(f);
    struct acl_user **gone = rc == 0 ? old : users;
    size_t ngone = rc == 0 ? old_n : nusers;
    if (rc < 0) {
        users = old;
        nusers = old_n;
        default_user = old_default;
    }
    for (size_t i = 0; i < ngone; i++) {
        struct acl_user *now = acl_lookup(gone[i]->name, strlen(gone[i]->name));
        if (rc == 0) {
            /* Clients keep their user when it still exists, as in Redis:
             * the new rules are swapped into the struct they point at. */
            if (now) {
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
                if (default_user == now)
                    default_user = gone[i];
                user_free(now);
            } else {
                user_disconnect(gone[i], self);
                user_free(gone[i]);
            }
        } else {
            user_free(gone[i]);
        }
    }
    xfree(gone);
    return rc;
}

char **acl_user_lines(size_t *n)
{
    sync_requirepass();
    char **lines = xmalloc((nusers + 1) * sizeof(*lines));
    for (size_t i = 0; i < nusers; i++) {
        char *d = acl_describe(users[i]);
        size_t len = 5 + strlen(users[i]->name) + 1 + strlen(d) + 1;
        lines[i] = xmalloc(len);
        snprintf(lines[i], len, "user %s %s", users[i]->name, d);
        xfree(d);
    }
    *n = nusers;
    return lines;
}

int acl_save_file(const char *path, char *err, size_t errlen)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp-%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "Opening temp ACL file for ACL SAVE: %s", strerror(errno));
        return -1;
    }
    size_t n;
    char **lines = acl_user_lines(&n);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad |= fprintf(f, "%s\n", lines[i]) < 0;
        xfree(lines[i]);
    }
    xfree(lines);
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) < 0) {
        snprintf(err, errlen, "Writing ACL file for ACL SAVE: %s", strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* ---- The log ---- */

/* Redis groups equal denials closer than this into one entry... */
#define ACL_LOG_GROUPING_MS 60000
/* ...found among this many newest entries, so a denial costs bounded work
 * however long the log is. */
#define ACL_LOG_GROUPING_SCAN 10

static const char *const log_context_names[] = {"toplevel", "multi", "lua"};

struct acl_log_entry {
    long long count;
    char reason[8];
    enum acl_log_context ctx;
    char *object, *username, *cinfo; /* owned */
    size_t olen, ulen;
    int64_t ctime_ms;
};

static struct acl_log_entry *acllog; /* newest first */
static size_t acllog_len;

static void log_entry_destroy(struct acl_log_entry *e)
{
    xfree(e->object);
    xfree(e->username);
    xfree(e->cinfo);
}

static char *client_line(struct client *c)
{
    char line[1024];
    if (!c)
        return xstrdup("");
    client_info_line(c, line, sizeof(line));
    return xstrdup(line);
}

/* Moves acllog[i] to the head, the others down one. */
static void log_to_head(size_t i)
{
    struct acl_log_entry e = acllog[i];
    memmove(acllog + 1, acllog, i * sizeof(*acllog));
    acllog[0] = e;
}

void acl_log_add(struct client *c, const char *reason, enum acl_log_context ctx,
                 const char *object, size_t olen, const char *username, size_t ulen)
{
    int64_t now = mstime();
    /* A similar recent entry is counted, refreshed and made the newest, as
     * Redis 7.0's addACLLogEntry does. */
    for (size_t i = 0; i < acllog_len && i < ACL_LOG_GROUPING_SCAN; i++) {
        struct acl_log_entry *e = &acllog[i];
        if (strcmp(e->reason, reason) == 0 && e->ctx == ctx && e->olen == olen &&
            memcmp(e->object, object, olen) == 0 && e->ulen == ulen &&
            memcmp(e->username, username, ulen) == 0 && now - e->ctime_ms <= ACL_LOG_GROUPING_MS) {
            e->count++;
            e->ctime_ms = now;
            xfree(e->cinfo);
            e->cinfo = client_line(c);
            log_to_head(i);
            return;
        }
    }
    size_t max = (size_t)server.cfg.acllog_max_len;
    if (max == 0)
        return;
    while (acllog_len >= max)
        log_entry_destroy(&acllog[--acllog_len]);
    acllog = xrealloc(acllog, (acllog_len + 1) * sizeof(*acllog));
    memmove(acllog + 1, acllog, acllog_len * sizeof(*acllog));
    struct acl_log_entry *e = &acllog[0];
    memset(e, 0, sizeof(*e));
    e->count = 1;
    snprintf(e->reason, sizeof(e->reason), "%s", reason);
    e->ctx = ctx;
    e->object = xmalloc(olen + 1);
    memcpy(e->object, object, olen);
    e->olen = olen;
    e->username = xmalloc(ulen + 1);
    memcpy(e->username, username, ulen);
    e->ulen = ulen;
    e->ctime_ms = now;
    e->cinfo = client_line(c);
    acllog_len++;
}

void acl_log_reply(struct resp_out *o, long count)
{
    size_t n = count < 0 || (size_t)count > acllog_len ? acllog_len : (size_t)count;
    int64_t now = mstime();
    resp_add_array_len(o, n);
    for (size_t i = 0; i < n; i++) {
        const struct acl_log_entry *e = &acllog[i];
        resp_add_map_len(o, 7);
        resp_add_bulk_cstr(o, "count");
        resp_add_int(o, e->count);
        resp_add_bulk_cstr(o, "reason");
        resp_add_bulk_cstr(o, e->reason);
        resp_add_bulk_cstr(o, "context");
        resp_add_bulk_cstr(o, log_context_names[e->ctx]);
        resp_add_bulk_cstr(o, "object");
        resp_add_bulk(o, e->object, e->olen);
        resp_add_bulk_cstr(o, "username");
        resp_add_bulk(o, e->username, e->ulen);
        resp_add_bulk_cstr(o, "age-seconds");
        resp_add_double(o, (double)(now - e->ctime_ms) / 1000.0);
        resp_add_bulk_cstr(o, "client-info");
        resp_add_bulk_cstr(o, e->cinfo);
    }
}

void acl_log_reset(void)
{
    for (size_t i = 0; i < acllog_len; i++)
        log_entry_destroy(&acllog[i]);
    acllog_len = 0;
}
