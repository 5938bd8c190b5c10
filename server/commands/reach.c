/*
 * reach.c - the keys a keyless command can reach, read from its arguments
 * the way the command itself reads them (see reach.h). Owns nothing: the
 * reach points into the request's slices.
 */
#include "reach.h"

#include <string.h>

#include "args.h"
#include "resp_parser.h"

void reach_all(int argc, const struct resp_slice *argv, struct key_reach *r)
{
    (void)argc;
    (void)argv;
    r->kind = KEY_REACH_ALL;
}

static void reach_prefix(const struct resp_slice *p, struct key_reach *r)
{
    r->kind = KEY_REACH_PREFIX;
    r->lo = p->ptr;
    r->lolen = p->len;
}

void reach_prefix_arg(int argc, const struct resp_slice *argv, struct key_reach *r)
{
    (void)argc;
    reach_prefix(&argv[1], r);
}

/* A lexical bound "[x" or "(x" is x; "-", "+" or anything else leaves the
 * reach unbounded. */
static int lex_bound(const struct resp_slice *b, const char **p, size_t *len)
{
    if (b->len < 1 || (b->ptr[0] != '[' && b->ptr[0] != '('))
        return -1;
    *p = b->ptr + 1;
    *len = b->len - 1;
    return 0;
}

static void reach_lex(const struct resp_slice *a, const struct resp_slice *b, struct key_reach *r)
{
    r->kind = KEY_REACH_ALL;
    if (lex_bound(a, &r->lo, &r->lolen) == 0 && lex_bound(b, &r->hi, &r->hilen) == 0)
        r->kind = KEY_REACH_LEX;
}

/* "min max" or "PREFIX p" at argv[j], as span_or_reply in cmd_ordered.c. */
static void reach_span(int argc, const struct resp_slice *argv, int j, struct key_reach *r)
{
    r->kind = KEY_REACH_ALL;
    if (j + 1 >= argc)
        return;
    if (arg_is(&argv[j], "PREFIX"))
        reach_prefix(&argv[j + 1], r);
    else
        reach_lex(&argv[j], &argv[j + 1], r);
}

void reach_span_arg(int argc, const struct resp_slice *argv, struct key_reach *r)
{
    reach_span(argc, argv, 1, r);
}

void reach_krange(int argc, const struct resp_slice *argv, struct key_reach *r)
{
    r->kind = KEY_REACH_ALL;
    for (int i = 3; i < argc; i++) {
        if (arg_is(&argv[i], "BYLEX")) {
            reach_lex(&argv[1], &argv[2], r);
            return;
        }
    }
}

void reach_ksplit(int argc, const struct resp_slice *argv, struct key_reach *r)
{
    reach_span(argc, argv, 2, r);
}

/* Every key a glob matches starts with its characters before the first
 * special one. */
static void reach_glob(const struct resp_slice *pat, struct key_reach *r)
{
    size_t n = 0;
    while (n < pat->len && pat->ptr[n] != '*' && pat->ptr[n] != '?' && pat->ptr[n] != '[' &&
           pat->ptr[n] != '\\')
        n++;
    r->kind = KEY_REACH_PREFIX;
    r->lo = pat->ptr;
    r->lolen = n;
}

void reach_keys(int argc, const struct resp_slice *argv, struct key_reach *r)
{
    (void)argc;
    reach_glob(&argv[1], r);
}

void reach_scan(int argc, const struct resp_slice *argv, struct key_reach *r)
{
    r->kind = KEY_REACH_ALL;
    /* The last MATCH wins, as the command's own parse. */
    for (int i = 2; i + 1 < argc; i += 2) {
        if (arg_is(&argv[i], "MATCH"))
            reach_glob(&argv[i + 1], r);
    }
}
