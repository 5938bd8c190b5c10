/*
 * config_doc.c - the Markdown list of every setting (config_doc.h): name and
 * alias, default, whether CONFIG SET may change it, and its status in rbkv,
 * all read from config.c's table through config_internal.h, so that
 * docs/operations.md cannot drift from the code (tests/docs/check_config_doc.sh).
 */
#include "config_doc.h"

#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "mem.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(config_name(*(const size_t *)a), config_name(*(const size_t *)b));
}

/* "as Redis", "accepted, no effect: why", ... for setting i. */
static char *status_text(size_t i)
{
    const char *note = config_note(i);
    char *only = config_only_default(i)
                     ? config_textf("only `%s` is accepted: %s", config_default(i), note)
                     : NULL;
    char *s;
    switch (config_status_of(i)) {
    case CONFIG_NOOP:
        s = config_textf("accepted, no effect: %s", note);
        break;
    case CONFIG_REFUSED:
        s = only ? config_textf("%s", only) : config_textf("some values refused: %s", note);
        break;
    case CONFIG_LATER:
        s = only ? config_textf("accepted, not yet acted on: issue %d; %s", config_issue(i), only)
                 : config_textf("accepted, not yet acted on: issue %d", config_issue(i));
        break;
    case CONFIG_AS_REDIS:
    default:
        s = note ? config_textf("as Redis; %s", note) : config_textf("as Redis");
        break;
    }
    xfree(only);
    return s;
}

static void add_row(struct config_text *t, size_t i)
{
    const char *alias = config_alias(i), *def = config_default(i);
    char *status = status_text(i);
    char *row = config_textf("| `%s`%s%s%s | %s%s%s | %s | %s |\n", config_name(i),
                             alias ? ", `" : "", alias ? alias : "", alias ? "`" : "",
                             def[0] ? "`" : "", def[0] ? def : "`\"\"`", def[0] ? "`" : "",
                             config_immutable(i) ? "no" : "yes", status);
    config_text_adds(t, row);
    xfree(row);
    xfree(status);
}

char *config_doc_markdown(void)
{
    struct config_text t = {0};
    size_t n = config_count(), *order = xmalloc(sizeof(*order) * n);

    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort(order, n, sizeof(*order), by_name);
    config_text_adds(&t, "| setting | default | CONFIG SET | in rbkv |\n"
                         "| --- | --- | --- | --- |\n");
    for (size_t k = 0; k < n; k++)
        if (!config_hidden(order[k]))
            add_row(&t, order[k]);
    config_text_adds(&t, "\nHidden from `CONFIG GET *` as in Redis (test hooks; `CONFIG GET` of the "
                         "exact name shows them):\n\n");
    for (size_t k = 0; k < n; k++) {
        if (!config_hidden(order[k]))
            continue;
        char *status = status_text(order[k]);
        char *line = config_textf("- `%s`, default `%s`: %s\n", config_name(order[k]),
                                  config_default(order[k]), status);
        config_text_adds(&t, line);
        xfree(line);
        xfree(status);
    }
    xfree(order);
    return t.p;
}
