/*
 * acl_rules.c - a user's contents and the rule grammar (Redis 7's ACL
 * SETUSER rules): the command categories, a user's selectors and password
 * hashes, and the parser of its rules: on/off, nopass, resetpass, >pass,
 * <pass, #hash, !hash, +cmd, -cmd, +cmd|sub, +@cat, ~pattern, %R~ / %W~,
 * &channel, allkeys, allchannels, resetkeys, resetchannels, reset,
 * "(...)" selectors and clearselectors.
 *
 * Works on a user it is given and knows nothing of the store (acl.c: which
 * users exist, the default user, AUTH), of clients, files or the log. The
 * rules of a user in the store are changed on a copy that acl.c swaps in,
 * so a rule that fails here may leave the user it was applied to half
 * changed.
 *
 * A selector's command permissions are one byte per row (by
 * command_index), a subcommand's row ("config|get") having its own, as
 * Redis 7 gives each subcommand an id: "+config" sets the container's and
 * all its subcommands', "+config|get" that one's, "+@admin" every row in
 * the category, and the check reads the byte of the row that runs; and
 * whether it started from +@all (commands to come allowed, Redis's
 * reserved bit), from which acl_describe.c rebuilds its description.
 *
 * Passwords are kept only as SHA-256 hashes (OpenSSL's libcrypto) and
 * compared in constant time.
 */
#include "acl_rules.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#include "acl_internal.h"
#include "command_table.h"
#include "log.h"
#include "mem.h"
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
    {"restore", CAT(ACL_DANGEROUS), 0},
    {"migrate", CAT(ACL_DANGEROUS), 0},
    {"restore-asking", CAT(ACL_KEYSPACE) | CAT(ACL_DANGEROUS), 0},
    {"flushdb", CAT(ACL_KEYSPACE) | CAT(ACL_DANGEROUS), 0},
    {"flushall", CAT(ACL_KEYSPACE) | CAT(ACL_DANGEROUS), 0},
    {"dbsize", CAT(ACL_KEYSPACE), 0},
    {"swapdb", CAT(ACL_KEYSPACE) | CAT(ACL_DANGEROUS), 0},
    {"info", CAT(ACL_DANGEROUS), 0},
    {"role", CAT(ACL_ADMIN) | CAT(ACL_DANGEROUS), 0},
    {"lastsave", CAT(ACL_ADMIN) | CAT(ACL_DANGEROUS), 0},
    {"pubsub|help", 0, CAT(ACL_PUBSUB)},
    {"sort", CAT(ACL_SET) | CAT(ACL_SORTEDSET) | CAT(ACL_LIST) | CAT(ACL_DANGEROUS),
     CAT(ACL_KEYSPACE)},
    {"sort_ro", CAT(ACL_SET) | CAT(ACL_SORTEDSET) | CAT(ACL_LIST) | CAT(ACL_DANGEROUS),
     CAT(ACL_KEYSPACE)},
    {"asking", CAT(ACL_CONNECTION), 0},
    {"readonly", CAT(ACL_CONNECTION), 0},
    {"readwrite", CAT(ACL_CONNECTION), 0},
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

/* ---- Selectors and users ---- */

static void pattern_free(struct acl_pattern *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        xfree(p[i].pat);
    xfree(p);
}

/* ---- First-argument rules ---- */

static struct acl_firstargs *firstargs_of(const struct acl_selector *s, size_t cmd)
{
    for (size_t i = 0; i < s->nfirstargs; i++) {
        if (s->firstargs[i].cmd == cmd)
            return &s->firstargs[i];
    }
    return NULL;
}

static void firstargs_free_one(struct acl_firstargs *f)
{
    for (size_t i = 0; i < f->n; i++)
        xfree(f->args[i]);
    xfree(f->args);
}

/* Redis's ACLResetFirstArgsForCommand: a rule about the whole command
 * (or a category holding it) replaces its first arguments. */
static void firstargs_reset(struct acl_selector *s, size_t cmd)
{
    struct acl_firstargs *f = firstargs_of(s, cmd);
    if (!f)
        return;
    firstargs_free_one(f);
    *f = s->firstargs[--s->nfirstargs];
}

static void firstargs_reset_all(struct acl_selector *s)
{
    for (size_t i = 0; i < s->nfirstargs; i++)
        firstargs_free_one(&s->firstargs[i]);
    xfree(s->firstargs);
    s->firstargs = NULL;
    s->nfirstargs = 0;
}

/* Adds arg[0..len) to cmd's first arguments unless it is there in any
 * case, as Redis's ACLAddAllowedFirstArg. */
static void firstarg_add(struct acl_selector *s, size_t cmd, const char *arg, size_t len)
{
    struct acl_firstargs *f = firstargs_of(s, cmd);
    if (!f) {
        s->firstargs = xrealloc(s->firstargs, (s->nfirstargs + 1) * sizeof(*s->firstargs));
        f = &s->firstargs[s->nfirstargs++];
        *f = (struct acl_firstargs){.cmd = cmd};
    }
    for (size_t i = 0; i < f->n; i++) {
        if (strlen(f->args[i]) == len && strncasecmp(f->args[i], arg, len) == 0)
            return;
    }
    f->args = xrealloc(f->args, (f->n + 1) * sizeof(*f->args));
    char *copy = xmalloc(len + 1);
    memcpy(copy, arg, len);
    copy[len] = '\0';
    f->args[f->n++] = copy;
}

int acl_selector_firstarg_allowed(const struct acl_selector *s, size_t cmd,
                                  const struct resp_slice *arg)
{
    const struct acl_firstargs *f = firstargs_of(s, cmd);
    for (size_t i = 0; f && i < f->n; i++) {
        if (strlen(f->args[i]) == arg->len && strncasecmp(f->args[i], arg->ptr, arg->len) == 0)
            return 1;
    }
    return 0;
}

static void selector_destroy(struct acl_selector *s)
{
    firstargs_reset_all(s);
    xfree(s->allowed);
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
    dst->keys = patterns_copy(src->keys, src->nkeys);
    dst->chans = patterns_copy(src->chans, src->nchans);
    dst->firstargs = xcalloc(src->nfirstargs + 1, sizeof(*dst->firstargs));
    for (size_t i = 0; i < src->nfirstargs; i++) {
        const struct acl_firstargs *f = &src->firstargs[i];
        dst->firstargs[i] = (struct acl_firstargs){.cmd = f->cmd, .n = f->n};
        dst->firstargs[i].args = xcalloc(f->n + 1, sizeof(char *));
        for (size_t k = 0; k < f->n; k++)
            dst->firstargs[i].args[k] = xstrdup(f->args[k]);
    }
}

void acl_user_destroy(struct acl_user *u)
{
    for (size_t i = 0; i < u->nsel; i++)
        selector_destroy(&u->sel[i]);
    xfree(u->sel);
    xfree(u->hashes);
    u->sel = NULL;
    u->hashes = NULL;
    u->nsel = u->nhashes = 0;
}

void acl_user_copy(struct acl_user *dst, const struct acl_user *src)
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
struct acl_user *acl_user_new(const char *name, size_t len)
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

void acl_user_free(struct acl_user *u)
{
    if (!u)
        return;
    acl_user_destroy(u);
    xfree(u->name);
    xfree(u);
}

/* ---- Password hashes ---- */

void acl_sha256(const char *s, size_t len, unsigned char out[32])
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

int acl_hash_index(const struct acl_user *u, const unsigned char h[32])
{
    int at = -1;
    /* Every hash is compared, so the time says nothing of which matched. */
    for (size_t i = 0; i < u->nhashes; i++) {
        if (hash_equal(u->hashes[i], h))
            at = (int)i;
    }
    return at;
}

void acl_hash_add(struct acl_user *u, const unsigned char h[32])
{
    if (acl_hash_index(u, h) >= 0)
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

/* ---- Rules ---- */

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

static void command_set(struct acl_selector *s, const struct command *cmd, int allow)
{
    s->allowed[command_index(cmd)] = (unsigned char)allow;
    if (s->nfirstargs)
        firstargs_reset(s, command_index(cmd));
}

/* +cmd|arg of cmd, a command without subcommands: arg (kept as given) is
 * one of its first arguments. */
static void firstarg_rule(struct acl_selector *s, const struct command *cmd, const char *arg,
                          size_t len)
{
    log_warning("Deprecation warning: Allowing a first arg of an otherwise blocked command is a "
                "misuse of ACL and may get disabled in the future (offender: +%s|%.*s)",
                cmd->name, (int)len, arg);
    firstarg_add(s, command_index(cmd), arg, len);
}

/* +cmd|arg where cmd|arg is no subcommand's row, Redis's ACLSetSelector:
 * arg is a first argument of a command without subcommands; a container's
 * unknown subcommand, or a command not known, is unknown; a subcommand's
 * first argument is refused. NULL when applied. */
static const char *plus_with_bar(struct acl_selector *s, const char *r, size_t len)
{
    const char *bar = r + len;
    while (bar[-1] != '|')
        bar--;
    bar--;
    const struct command *cmd = command_lookup_builtin(r + 1, (size_t)(bar - r - 1));
    if (!cmd)
        return ACL_ERR_UNKNOWN;
    if (strchr(cmd->name, '|'))
        return "Allowing first-arg of a subcommand is not supported";
    if (bar + 1 == r + len)
        return ERR_SYNTAX_RULE;
    if (cmd->subcommands)
        return ACL_ERR_UNKNOWN; /* the whole name found no subcommand */
    firstarg_rule(s, cmd, bar + 1, (size_t)(r + len - bar - 1));
    return NULL;
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
            firstargs_reset_all(s);
            s->allcommands = allow;
            return NULL;
        }
        int cat = acl_category_lookup(r + 2, len - 2);
        if (cat < 0)
            return ACL_ERR_UNKNOWN;
        unsigned bit = CAT(cat);
        for (size_t i = 0; i < command_row_count(); i++) {
            const struct command *cmd = command_row_at(i);
            if (acl_command_categories(cmd) & bit)
                command_set(s, cmd, allow);
        }
        return NULL;
    }
    /* "config|get" finds the subcommand's row; a first argument of a
     * command without subcommands ("select|0") finds nothing, and is one
     * when allowed ("-select|0" is unknown, as in Redis). */
    const struct command *cmd = command_lookup_builtin(r + 1, len - 1);
    if (!cmd && allow && memchr(r, '|', len))
        return plus_with_bar(s, r, len);
    if (!cmd)
        return ACL_ERR_UNKNOWN;
    command_set_all(s, cmd, allow);
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
    unsigned perm = ACL_KEYS_READ | ACL_KEYS_WRITE;
    size_t at = 1;
    if (r[0] == '%') {
        perm = 0;
        for (; at < len && r[at] != '~'; at++) {
            char ch = (char)toupper((unsigned char)r[at]);
            /* A letter twice is a syntax error, as in Redis. */
            if (ch == 'R' && !(perm & ACL_KEYS_READ))
                perm |= ACL_KEYS_READ;
            else if (ch == 'W' && !(perm & ACL_KEYS_WRITE))
                perm |= ACL_KEYS_WRITE;
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
    pattern_add(&s->chans, &s->nchans, r + 1, len - 1, ACL_KEYS_READ | ACL_KEYS_WRITE);
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
        acl_hash_add(u, h);
        u->flags &= ~ACL_USER_NOPASS;
        return NULL;
    }
    int at = acl_hash_index(u, h);
    if (at < 0)
        return ERR_NOPASSWORD;
    hash_remove(u, at);
    return NULL;
}

void acl_user_start_over(struct acl_user *u)
{
    u->flags &= ~(ACL_USER_ON | ACL_USER_NOPASS | ACL_USER_SANITIZE | ACL_USER_SKIP_SANITIZE);
    u->nhashes = 0;
    selectors_clear(u);
    selector_destroy(&u->sel[0]);
    selector_init(&u->sel[0]);
}

/* One rule of ACL SETUSER applied to u; NULL, or the reason it failed. */
const char *acl_user_rule(struct acl_user *u, const char *r, size_t len)
{
    unsigned char h[32];
    if (rule_is(r, len, "on")) {
        u->flags |= ACL_USER_ON;
    } else if (rule_is(r, len, "off")) {
        u->flags &= ~ACL_USER_ON;
    } else if (rule_is(r, len, "nopass")) {
        u->flags |= ACL_USER_NOPASS;
        u->nhashes = 0;
    } else if (rule_is(r, len, "sanitize-payload")) {
        u->flags = (u->flags & ~ACL_USER_SKIP_SANITIZE) | ACL_USER_SANITIZE;
    } else if (rule_is(r, len, "skip-sanitize-payload")) {
        u->flags = (u->flags & ~ACL_USER_SANITIZE) | ACL_USER_SKIP_SANITIZE;
    } else if (rule_is(r, len, "resetpass")) {
        u->flags &= ~ACL_USER_NOPASS;
        u->nhashes = 0;
    } else if (len && (r[0] == '>' || r[0] == '<')) {
        acl_sha256(r + 1, len - 1, h);
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
        /* Redis's reset ends with sanitize-payload. */
        acl_user_start_over(u);
        u->flags |= ACL_USER_SANITIZE;
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
    return s->allkeys == (ACL_KEYS_READ | ACL_KEYS_WRITE) && s->allchannels;
}

void acl_user_update_allperm(struct acl_user *u)
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
int acl_next_rule(int argc, const struct resp_slice *rules, int *i, struct resp_slice *out,
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

int acl_apply_rules(struct acl_user *u, int argc, const struct resp_slice *rules, char *err,
                    size_t errlen)
{
    for (int i = 0; i < argc; i++) {
        struct resp_slice r;
        char *joined;
        acl_next_rule(argc, rules, &i, &r, &joined);
        const char *why = acl_user_rule(u, r.ptr, r.len);
        if (why) {
            snprintf(err, errlen, "Error in ACL SETUSER modifier '%.*s': %s",
                     (int)(r.len < 128 ? r.len : 128), r.ptr, why);
            xfree(joined);
            return -1;
        }
        xfree(joined);
    }
    acl_user_update_allperm(u);
    return 0;
}
