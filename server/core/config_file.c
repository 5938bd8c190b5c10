/*
 * config_file.c - the config file's syntax, and reading a config file and
 * the command line's --flags into struct config.
 *
 * Owns the syntax as redis-server has it: lines, '#' comments, words split
 * as sdssplitargs splits them ("double quotes" with escapes, 'single
 * quotes'), and the quoting that writes a word back (CONFIG REWRITE, error
 * texts). Each line or flag goes to config_set (config.c), which knows the
 * settings; this file knows none of them but whether one takes several
 * words, which decides how a --flag takes its values.
 */
#include "config_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config_internal.h"
#include "mem.h"

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : tolower((unsigned char)c) - 'a' + 10;
}

/*
 * Splits a line into words as Redis's sdssplitargs does: blanks separate
 * words; "double quotes" take \n \r \t \b \a \xHH and \<any>; 'single quotes'
 * take only \'; a closing quote must end the word. Returns argc words
 * allocated with xmalloc (free with config_free_words), or NULL with the
 * reason in *why. A word may hold a NUL (from "\x00"), as Redis's may: when
 * lens is not NULL, *lens gets each word's length (xmalloc'd), which
 * config_set_len takes, so that only a binary-safe setting accepts one.
 */
char **config_split_words(const char *line, int *argc, size_t **lens, const char **why)
{
    char *buf = xmalloc(strlen(line) + 1); /* no word is longer than the line */
    char **v = NULL;
    size_t *len_of = NULL;
    const char *p = line;
    int n = 0;

    for (;;) {
        size_t len = 0;
        int inq = 0, insq = 0, done = 0;

        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        while (!done) {
            if (inq) {
                if (!*p)
                    goto unbalanced;
                if (p[0] == '\\' && p[1] == 'x' && isxdigit((unsigned char)p[2]) &&
                    isxdigit((unsigned char)p[3])) {
                    buf[len++] = (char)(hex_value(p[2]) * 16 + hex_value(p[3]));
                    p += 3;
                } else if (p[0] == '\\' && p[1]) {
                    static const char from[] = "nrtba", to[] = "\n\r\t\b\a";
                    const char *e = strchr(from, p[1]);
                    buf[len++] = e ? to[e - from] : p[1];
                    p++;
                } else if (*p == '"') {
                    if (p[1] && !isspace((unsigned char)p[1]))
                        goto unbalanced;
                    done = 1;
                } else {
                    buf[len++] = *p;
                }
            } else if (insq) {
                if (!*p)
                    goto unbalanced;
                if (p[0] == '\\' && p[1] == '\'') {
                    buf[len++] = '\'';
                    p++;
                } else if (*p == '\'') {
                    if (p[1] && !isspace((unsigned char)p[1]))
                        goto unbalanced;
                    done = 1;
                } else {
                    buf[len++] = *p;
                }
            } else if (!*p || isspace((unsigned char)*p)) {
                done = 1;
            } else if (*p == '"') {
                inq = 1;
            } else if (*p == '\'') {
                insq = 1;
            } else {
                buf[len++] = *p;
            }
            if (*p)
                p++;
        }
        v = xrealloc(v, sizeof(*v) * (size_t)(n + 1));
        len_of = xrealloc(len_of, sizeof(*len_of) * (size_t)(n + 1));
        len_of[n] = len;
        v[n++] = xmemdup(buf, len);
    }
    xfree(buf);
    *argc = n;
    if (lens)
        *lens = len_of ? len_of : xmalloc(sizeof(*len_of));
    else
        xfree(len_of);
    return v ? v : xmalloc(sizeof(*v));

unbalanced:
    *why = "Unbalanced quotes in configuration line";
    xfree(buf);
    xfree(len_of);
    config_free_words(v, n);
    return NULL;
}

/* Appends s[0..len) to t, in double quotes with Redis's escapes (its
 * sdscatrepr's: a NUL is "\x00") when a config file would otherwise read it
 * differently. */
void config_add_quoted(struct config_text *t, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    int plain = len != 0;

    for (; p < end && plain; p++)
        plain = isgraph(*p) && *p != '"' && *p != '\'' && *p != '\\';
    if (plain) {
        config_text_add(t, s, len);
        return;
    }
    config_text_adds(t, "\"");
    for (p = (const unsigned char *)s; p < end; p++) {
        char esc[8];
        switch (*p) {
        case '\\': config_text_adds(t, "\\\\"); break;
        case '"': config_text_adds(t, "\\\""); break;
        case '\n': config_text_adds(t, "\\n"); break;
        case '\r': config_text_adds(t, "\\r"); break;
        case '\t': config_text_adds(t, "\\t"); break;
        case '\a': config_text_adds(t, "\\a"); break;
        case '\b': config_text_adds(t, "\\b"); break;
        default:
            if (isprint(*p)) {
                config_text_add(t, (const char *)p, 1);
            } else {
                snprintf(esc, sizeof(esc), "\\x%02x", *p);
                config_text_adds(t, esc);
            }
        }
    }
    config_text_adds(t, "\"");
}

/* Reads a whole file into a NUL-terminated xmalloc'd buffer; NULL with errno
 * set on failure. */
char *config_read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    struct config_text t = {0};
    char chunk[4096];
    size_t n;

    if (!f)
        return NULL;
    config_text_add(&t, "", 0);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        config_text_add(&t, chunk, n);
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        xfree(t.p);
        errno = e;
        return NULL;
    }
    fclose(f);
    return t.p;
}

/* Cuts buf into lines in place (at '\n'); returns how many, with the line
 * starts in *lines (xmalloc'd). A final line without '\n' counts. */
size_t config_split_lines(char *buf, char ***lines)
{
    size_t n = 0, cap = 0;
    char **v = NULL;

    while (*buf) {
        char *nl = strchr(buf, '\n');
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            v = xrealloc(v, cap * sizeof(*v));
        }
        v[n++] = buf;
        if (!nl)
            break;
        *nl = '\0';
        buf = nl + 1;
    }
    *lines = v;
    return n;
}

/* Strips blanks at both ends as Redis does (" \t\r\n"), in place. */
char *config_trim(char *s)
{
    size_t n;
    while (*s && strchr(" \t\r\n", *s))
        s++;
    n = strlen(s);
    while (n && strchr(" \t\r\n", s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Applies one "name value..." line; the reason goes to err. */
static int set_line(struct config *cfg, const char *line, char *err, size_t errlen)
{
    const char *why;
    size_t *lens;
    int n, rc = 0;
    char **words = config_split_words(line, &n, &lens, &why);

    if (!words)
        return config_fail(err, errlen, "%s", why);
    if (n && strlen(words[0]) != lens[0])
        rc = config_fail(err, errlen, "Bad directive or wrong number of arguments");
    else if (n)
        rc = config_set_len(cfg, words[0], n - 1, (const char **)words + 1, lens + 1, err, errlen);
    config_free_words(words, n);
    xfree(lens);
    return rc;
}

int config_load_file(struct config *cfg, const char *path, char *err, size_t errlen)
{
    char *buf = config_read_file(path);
    int rc;

    if (!buf)
        return config_fail(err, errlen, "Fatal error, can't open config file '%s': %s", path,
                           strerror(errno));
    rc = config_load_buffer(cfg, buf, path, err, errlen);
    xfree(buf);
    return rc;
}

int config_load_buffer(struct config *cfg, char *buf, const char *path, char *err, size_t errlen)
{
    char reason[256];
    char **lines;
    size_t n;
    int rc = 0;

    n = config_split_lines(buf, &lines);
    for (size_t i = 0; i < n; i++) {
        char *line = config_trim(lines[i]);
        if (!line[0] || line[0] == '#')
            continue;
        if (set_line(cfg, line, reason, sizeof(reason)) < 0) {
            rc = config_fail(err, errlen,
                             "Reading the configuration file %s, at line %zu\n>>> '%s'\n%s", path,
                             i + 1, line, reason);
            break;
        }
    }
    xfree(lines);
    return rc;
}

static int is_flag(const char *arg)
{
    return arg[0] == '-' && arg[1] == '-';
}

/*
 * As redis-server: "--name" takes the words after it up to the next "--word".
 * The first word after a one-word setting's name is taken even if it starts
 * with "--" (a password may); a several-word setting takes none then, so
 * "--bind --port 7000" gives bind no address. "--port 7000" as one argument
 * is split, as Redis does.
 */
int config_load_args(struct config *cfg, int argc, char **argv, char *err, size_t errlen)
{
    char reason[256];
    int i = 0, rc = 0;

    while (i < argc && rc == 0) {
        const char *why = NULL, **vals; /* NULL for clang-analyzer; set on failure */
        char **words;
        size_t *lens, *vals_len;
        int nwords, nvals = 0, j = i + 1, def;
        struct config_text shown = {0};

        if (!is_flag(argv[i])) {
            rc = config_fail(err, errlen, "Reading the command line: '%s' is not a --name flag",
                             argv[i]);
            break;
        }
        words = config_split_words(argv[i] + 2, &nwords, &lens, &why);
        if (!words) {
            rc = config_fail(err, errlen, "Reading the command line, at flag '%s'\n%s", argv[i],
                             why);
            break;
        }
        if (nwords == 0) {
            config_free_words(words, nwords);
            xfree(lens);
            rc = config_fail(err, errlen, "Reading the command line: '%s' names no setting",
                             argv[i]);
            break;
        }
        def = config_find(words[0], strlen(words[0]));
        vals = xmalloc(sizeof(*vals) * (size_t)(nwords + argc));
        vals_len = xmalloc(sizeof(*vals_len) * (size_t)(nwords + argc));
        for (int k = 1; k < nwords; k++) {
            vals_len[nvals] = lens[k];
            vals[nvals++] = words[k];
        }
        if (nwords == 1 && j < argc && def >= 0 && !config_takes_words((size_t)def)) {
            vals_len[nvals] = strlen(argv[j]);
            vals[nvals++] = argv[j++];
        }
        while (j < argc && !is_flag(argv[j])) {
            vals_len[nvals] = strlen(argv[j]);
            vals[nvals++] = argv[j++];
        }
        if (strlen(words[0]) != lens[0]) {
            rc = config_fail(err, errlen, "Reading the command line: '%s' names no setting",
                             argv[i]);
        } else if (config_set_len(cfg, words[0], nvals, vals, vals_len, reason,
                                  sizeof(reason)) < 0) {
            config_text_adds(&shown, words[0]);
            for (int k = 0; k < nvals; k++) {
                config_text_adds(&shown, " ");
                config_add_quoted(&shown, vals[k], vals_len[k]);
            }
            rc = config_fail(err, errlen, "Reading the command line, at flag '%s'\n>>> '%s'\n%s",
                             argv[i], shown.p, reason);
            xfree(shown.p);
        }
        config_free_words(words, nwords);
        xfree(lens);
        xfree(vals);
        xfree(vals_len);
        i = j;
    }
    return rc;
}
