/*
 * fuzz_acl_file.c - libFuzzer target for the ACL-file parser (acl_load_file
 * in server/core/acl.c: "user <name> <rules>" lines, every rule of the ACL
 * SETUSER grammar, selectors, passwords and their hashes) and, for what it
 * accepts, the lines ACL SAVE writes.
 *
 * Input: the bytes of an aclfile, loaded as ACL LOAD does into the server's
 * users (the harness's server, with no client to disconnect). Checked,
 * aborting on a violation:
 *  1. Nothing crashes, leaks or reads out of bounds; a refused file gets an
 *     error text and leaves the users as they were.
 *  2. An accepted file's users, written as acl_user_lines gives them (ACL
 *     SAVE's lines) and loaded again, give the same lines; except where a
 *     selector's pattern holds a ')' (rules "(~a))"): Redis 7.0.15 writes
 *     that selector as "(~a) ... -@all)", which neither Redis nor rbkv reads
 *     back, and rbkv writes what Redis writes (see ambiguous).
 * Each input ends by loading an empty file, which leaves the default user
 * only, so every input starts from the same users.
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "acl_file.h"
#include "harness.h"
#include "mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct lines {
    char **v;
    size_t n;
};

static void lines_free(struct lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        xfree(l->v[i]);
    xfree(l->v);
}

static int lines_same(const struct lines *a, const struct lines *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i], b->v[i]) != 0)
            return 0;
    return 1;
}

/* Whether a saved line has a word ending in ')' outside a selector: a
 * selector whose pattern held a ')' and so closed early when written, as
 * Redis 7.0.15 writes it too (ACL LIST of "(~a))" is "(~a) resetchannels
 * -@all)" on both). Such a line does not load back, on either server. */
static int ambiguous(const char *line)
{
    int in_selector = 0;
    for (const char *w = line; *w;) {
        size_t n = strcspn(w, " ");
        if (n > 0) {
            if (w[0] == '(')
                in_selector = 1;
            if (w[n - 1] == ')') {
                if (!in_selector)
                    return 1;
                in_selector = 0;
            }
        }
        w += n + (w[n] == ' ');
    }
    return 0;
}

/* Whether a selector of a saved line writes "~*" beside another key
 * pattern: "%RW~*" is one more pattern, written "~*", and "~*" read back
 * drops the patterns before it and refuses those after it, so the line
 * loads differently or not at all, on Redis 7.0.15 too (ACL LIST of
 * "%RW~s %RW~*" is "~s ~*", which loads as "~*"). */
static int narrows_on_reload(const char *line)
{
    int patterns = 0, all = 0;
    for (const char *w = line; *w;) {
        size_t n = strcspn(w, " ");
        const char *word = w;
        size_t len = n;
        if (len && word[0] == '(') {
            patterns = all = 0;
            word++;
            len--;
        }
        int closes = len && word[len - 1] == ')';
        len -= (size_t)closes;
        if (len && (word[0] == '~' || word[0] == '%')) {
            patterns++;
            all |= len == 2 && word[0] == '~' && word[1] == '*';
            if (all && patterns > 1)
                return 1;
        }
        if (closes)
            patterns = all = 0;
        w += n + (w[n] == ' ');
    }
    return 0;
}

/* ACL LOAD of data[0..size) from an in-memory file: 0, or -1 with the
 * reason in err. */
static int load(const uint8_t *data, size_t size, char *err, size_t errlen)
{
    const char *path;
    harness_file_fill(harness_file(0, &path), data, size);
    err[0] = '\0';
    return acl_load_file(NULL, path, err, errlen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lines before, saved, again;
    char err[2048];

    harness_init();
    acl_init();
    before.v = acl_user_lines(&before.n);
    if (load(data, size, err, sizeof(err)) < 0) {
        if (err[0] == '\0')
            abort();
        saved.v = acl_user_lines(&saved.n);
        if (!lines_same(&before, &saved)) {
            fprintf(stderr, "a refused file changed the users\n");
            abort();
        }
        lines_free(&saved);
    } else {
        saved.v = acl_user_lines(&saved.n);
        int round_trip = 1;
        for (size_t i = 0; i < saved.n; i++)
            round_trip &= !ambiguous(saved.v[i]) && !narrows_on_reload(saved.v[i]);
        char *text = NULL;
        size_t len = 0;
        for (size_t i = 0; i < saved.n; i++) {
            size_t n = strlen(saved.v[i]);
            text = xrealloc(text, len + n + 1);
            memcpy(text + len, saved.v[i], n);
            text[len + n] = '\n';
            len += n + 1;
        }
        int reloaded = load((const uint8_t *)text, len, err, sizeof(err));
        if (reloaded < 0 && round_trip) {
            fprintf(stderr, "the saved users do not load: %s\n", err);
            abort();
        }
        xfree(text);
        again.v = acl_user_lines(&again.n);
        /* Refused, the reload must have left the users as they were. */
        if ((round_trip || reloaded < 0) && !lines_same(&saved, &again)) {
            fprintf(stderr, "the saved users load differently\n");
            for (size_t i = 0; i < saved.n || i < again.n; i++)
                fprintf(stderr, "  %s | %s\n", i < saved.n ? saved.v[i] : "",
                        i < again.n ? again.v[i] : "");
            abort();
        }
        lines_free(&saved);
        lines_free(&again);
    }
    lines_free(&before);
    if (load(NULL, 0, err, sizeof(err)) < 0)
        abort();
    return 0;
}
