/*
 * acl_file.c - the ACL file (aclfile): ACL LOAD and the start read it,
 * ACL SAVE writes it, and CONFIG REWRITE takes its "user <name> <rules>"
 * lines for the config file's users.
 *
 * Knows the file's lines and Redis's texts for their errors; each line's
 * rules go through ACL SETUSER's path (acl_setuser), so the grammar is
 * acl_rules.c's alone, and the users are replaced all or nothing through
 * the store's acl_store_begin_replace / acl_store_end_replace (acl.c).
 * Knows nothing of the users' insides but what acl_describe writes.
 */
#include "acl_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl_describe.h"
#include "acl_internal.h"
#include "log.h"
#include "mem.h"
#include "server.h"

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

/* A user line's rules applied (acl_setuser's result); the default user, which
 * exists already, starts over first, as Redis builds the file's users afresh. */
static int apply_line(int is_default, const struct resp_slice *name, int argc,
                      const struct resp_slice *rules, char *why, size_t whylen)
{
    if (is_default)
        acl_store_default_start_over();
    return acl_setuser(name, argc, rules, why, whylen);
}

int acl_load_stream(struct client *self, FILE *f, const char *path, char *err, size_t errlen)
{
    /* Built aside, then swapped in: a bad line leaves the users as they were. */
    acl_store_begin_replace();
    struct resp_slice *words = xmalloc(ACL_FILE_MAX_WORDS * sizeof(*words));
    char *line = NULL;
    size_t cap = 0;
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
        } else if (!acl_username_valid(words[1].ptr, words[1].len)) {
            /* Only \v and \f get this far (the words split at the others);
             * Redis's text, its stray quote included. */
            at += errf(err + at, errlen - at, "'%s:%d: username '%.*s' contains invalid "
                                              "characters. ", path, lineno, (int)words[1].len,
                       words[1].ptr);
        } else if (is_default ? seen_default : acl_lookup(words[1].ptr, words[1].len) != NULL) {
            at += errf(err + at, errlen - at, "WARNING: Duplicate user '%.*s' found on line %d. ",
                       (int)words[1].len, words[1].ptr, lineno);
        } else if (apply_line(is_default, &words[1], n - 2, words + 2, why, sizeof(why)) < 0) {
            /* ACL SETUSER's "Error in ACL SETUSER modifier '<rule>': <reason>"
             * told as Redis tells a file's: the rule only for an unknown
             * command or category. */
            const char *rule = strchr(why, '\'');
            reason = strstr(why, "': ");
            if (rule && reason && strcmp(reason + 3, ACL_ERR_UNKNOWN) == 0)
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
    acl_store_end_replace(self, rc == 0);
    return rc;
}

int acl_load_file(struct client *self, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "Error loading ACLs, opening file '%s': %s", path, strerror(errno));
        return -1;
    }
    int rc = acl_load_stream(self, f, path, err, errlen);
    fclose(f);
    return rc;
}

char **acl_user_lines(size_t *n)
{
    size_t count = acl_user_count();
    char **lines = xmalloc((count + 1) * sizeof(*lines));
    for (size_t i = 0; i < count; i++) {
        const struct acl_user *u = acl_user_at(i);
        char *d = acl_describe(u);
        size_t len = 5 + strlen(u->name) + 1 + strlen(d) + 1;
        lines[i] = xmalloc(len);
        snprintf(lines[i], len, "user %s %s", u->name, d);
        xfree(d);
    }
    *n = count;
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
    if (acl_load_config_users() < 0) {
        log_warning("Critical error while loading ACLs. Exiting.");
        return -1;
    }
    if (server.cfg.aclfile && acl_load_file(NULL, server.cfg.aclfile, err, sizeof(err)) < 0) {
        log_warning("Aborting Redis startup because of ACL errors: %s", err);
        return -1;
    }
    return 0;
}
