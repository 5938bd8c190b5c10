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

#include <stdio.h>
#include <string.h>

#include "acl_internal.h"
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
