/*
 * acl_describe.c - a user's rules written back as text, as Redis 7.0 shows
 * them: ACL LIST's and ACL SAVE's lines and ACL GETUSER's fields.
 *
 * Reads a user's contents (acl_internal.h) and changes nothing; knows
 * nothing of the store, clients or files. What it writes is read back by
 * the rule grammar (acl_rules.c): ACL SAVE's file and CONFIG REWRITE's
 * "user" lines are loaded through it.
 */
#include "acl_describe.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl_internal.h"
#include "acl_rules.h"
#include "command_table.h"
#include "mem.h"

/* A space-separated list of words being built. */
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

size_t acl_flag_words(const struct acl_user *u, const char **words)
{
    size_t n = 0;
    words[n++] = u->flags & ACL_USER_ON ? "on" : "off";
    if (u->flags & ACL_USER_NOPASS)
        words[n++] = "nopass";
    if (u->flags & ACL_USER_SKIP_SANITIZE)
        words[n++] = "skip-sanitize-payload";
    if (u->flags & ACL_USER_SANITIZE)
        words[n++] = "sanitize-payload";
    return n;
}

char *acl_describe_flags(const struct acl_user *u)
{
    struct text t = {0};
    const char *words[ACL_FLAG_WORDS_MAX];
    size_t n = acl_flag_words(u, words);
    for (size_t i = 0; i < n; i++)
        text_add(&t, words[i], strlen(words[i]));
    for (size_t i = 0; i < u->nhashes; i++) {
        char hex[66];
        hex[0] = '#';
        for (int k = 0; k < 32; k++)
            snprintf(hex + 1 + 2 * k, 3, "%02x", u->hashes[i][k]);
        text_add(&t, hex, 65);
    }
    return text_done(&t);
}

/* Sets row i's permission in bits to v, and its subcommands' when it is a
 * container (the rows after it), as Redis's ACLChangeSelectorPerm. */
static void set_row(unsigned char *bits, size_t i, int v)
{
    const struct command *cmd = command_row_at(i);
    bits[command_index(cmd)] = (unsigned char)v;
    for (size_t k = 0; cmd->subcommands && cmd->subcommands[k].name; k++)
        bits[command_index(command_row_at(i + 1 + k))] = (unsigned char)v;
}

/* The categories of the description, best fit first (Redis 7.0's loop):
 * while a category not yet used has more commands where temp agrees with
 * the starting point's opposite than where it does not, the one with the
 * fewest disagreements (then the most agreements) is written, applied to
 * fake, and its opposite to temp. cats[i] is row i's categories. */
static void describe_categories(struct text *t, unsigned char *fake, unsigned char *temp,
                                const unsigned *cats, int additive)
{
    size_t rows = command_row_count();
    unsigned applied = 0;
    for (;;) {
        int best = -1;
        size_t mindiff = SIZE_MAX, maxsame = 0;
        for (int j = 0; j < ACL_CATEGORY_COUNT; j++) {
            size_t on = 0, off = 0;
            for (size_t i = 0; !(applied & 1u << j) && i < rows; i++)
                if (cats[i] & 1u << j)
                    temp[command_index(command_row_at(i))] ? on++ : off++;
            size_t diff = additive ? off : on, same = additive ? on : off;
            if (same > diff && (diff < mindiff || (diff == mindiff && same > maxsame))) {
                best = j;
                mindiff = diff;
                maxsame = same;
            }
        }
        if (best < 0)
            return;
        for (size_t i = 0; i < rows; i++)
            if (cats[i] & 1u << best) {
                set_row(fake, i, additive);
                set_row(temp, i, !additive);
            }
        char word[32];
        int n = snprintf(word, sizeof(word), "%c@%s", additive ? '+' : '-',
                         acl_category_names[best]);
        text_add(t, word, (size_t)n);
        applied |= 1u << best;
    }
}

/* What the categories left different: each command whose permission in
 * fake is not s's (a container's change reaching its subcommands), then
 * the first-argument rules of a command not allowed. */
static void describe_single_commands(struct text *t, const struct acl_selector *s,
                                     unsigned char *fake)
{
    for (size_t i = 0; i < command_row_count(); i++) {
        const struct command *cmd = command_row_at(i);
        size_t idx = command_index(cmd);
        if (s->allowed[idx] != fake[idx]) {
            size_t len = strlen(cmd->name);
            char *word = xmalloc(len + 2);
            word[0] = s->allowed[idx] ? '+' : '-';
            memcpy(word + 1, cmd->name, len + 1);
            text_add(t, word, len + 1);
            xfree(word);
            set_row(fake, i, s->allowed[idx]);
        }
        for (size_t f = 0; !s->allowed[idx] && f < s->nfirstargs; f++) {
            if (s->firstargs[f].cmd != idx)
                continue;
            for (size_t a = 0; a < s->firstargs[f].n; a++) {
                size_t nlen = strlen(cmd->name), alen = strlen(s->firstargs[f].args[a]);
                char *word = xmalloc(nlen + alen + 3);
                snprintf(word, nlen + alen + 3, "+%s|%s", cmd->name, s->firstargs[f].args[a]);
                text_add(t, word, nlen + alen + 2);
                xfree(word);
            }
        }
    }
}

/* Redis 7.0's description (acl.c, ACLDescribeSelectorCommandRules): worked
 * out from what the selector allows, not from the rules as given. +@all
 * when it started so (it allows commands to come), else -@all; then
 * the categories that fit, then single commands, in the table's order where
 * Redis lists them in its hash table's (which changes from run to run). */
char *acl_describe_commands(const struct acl_user *u, size_t sel)
{
    const struct acl_selector *s = &u->sel[sel];
    int additive = !s->allcommands;
    size_t bytes = command_builtin_count() + 1, rows = command_row_count();
    unsigned char *fake = xmalloc(bytes), *temp = xmalloc(bytes);
    unsigned *cats = xmalloc(rows * sizeof(*cats));
    memset(fake, !additive, bytes);
    memcpy(temp, s->allowed, bytes);
    for (size_t i = 0; i < rows; i++)
        cats[i] = acl_command_categories(command_row_at(i));
    struct text t = {0};
    text_add(&t, additive ? "-@all" : "+@all", 5);
    describe_categories(&t, fake, temp, cats, additive);
    describe_single_commands(&t, s, fake);
    xfree(fake);
    xfree(temp);
    xfree(cats);
    return text_done(&t);
}

static void describe_key(struct text *t, const struct acl_pattern *p, unsigned perm)
{
    char *word = xmalloc(p->len + 5);
    const char *prefix = perm == ACL_KEYS_READ ? "%R~" : perm == ACL_KEYS_WRITE ? "%W~" : "~";
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
