/*
 * config_internal.h - what the config files share and nothing else
 * includes:
 *
 *   config.c          the settings table, CONFIG SET and GET
 *   config_file.c     the config file's syntax, files and --flags
 *   config_rewrite.c  CONFIG REWRITE
 *   config_doc.c      the list of every setting for docs/operations.md
 *
 * The table itself (defs[]) stays config.c's: the others see a setting
 * only through config.h and the accessors below.
 */
#ifndef RBKV_CONFIG_INTERNAL_H
#define RBKV_CONFIG_INTERNAL_H

#include <stddef.h>

#include "config.h"

/* A growable NUL-terminated string; {0} is empty, p is xmalloc'd. */
struct config_text {
    char *p;
    size_t len, cap;
};

/* What a setting does in rbkv (docs/operations.md's list says it). */
enum config_status {
    CONFIG_AS_REDIS, /* behaves as in Redis 7.0 */
    CONFIG_NOOP,     /* accepted and shown, no effect here (the note says why) */
    CONFIG_REFUSED,  /* some values refused with the note's reason */
    CONFIG_LATER,    /* accepted and shown, not yet acted on: an open issue's */
};

/* ---- Defined in config.c ---- */

/* Setting i's status, its issue (CONFIG_LATER), its note (or NULL), its
 * default as a config file says it, whether only that default is accepted
 * and whether CONFIG SET refuses it (file and flags only). */
enum config_status config_status_of(size_t i);
int config_issue(size_t i);
const char *config_note(size_t i);
const char *config_default(size_t i);
int config_only_default(size_t i);
int config_immutable(size_t i);

/* Whether setting i takes several words (bind, client-output-buffer-limit). */
int config_takes_words(size_t i);
/* Whether CONFIG REWRITE removes setting i's lines when it is at its default. */
int config_rewrite_drops(size_t i);
/* 0 with setting i's value in *bytes when it is a memory setting, else -1. */
int config_memory_value(const struct config *cfg, size_t i, unsigned long long *bytes);

/* Formats the reason into err[0..errlen) (when errlen); returns -1. */
int config_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A formatted string allocated with xmalloc. */
char *config_textf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Append s[0..n), or the string s, to t. */
void config_text_add(struct config_text *t, const char *s, size_t n);
void config_text_adds(struct config_text *t, const char *s);
/* Frees v[0..n) and v. */
void config_free_words(char **v, int n);
/* Splits s at runs of blanks, without quote handling, so any word free of
 * blanks comes back as itself: how a several-word setting reads a single
 * word (CONFIG SET bind "a b", or its own GET text when rolling back).
 * Returns *argc xmalloc'd words (free with config_free_words). */
char **config_split_blanks(const char *s, int *argc);

/* ---- Defined in config_file.c ---- */

/* A config line's words as redis-server splits them (quotes, escapes):
 * *argc xmalloc'd words, each NUL-terminated, with their lengths in *lens
 * (xmalloc'd; unless lens is NULL), as a word may hold a NUL ("\x00"); or
 * NULL with the reason in *why. */
char **config_split_words(const char *line, int *argc, size_t **lens, const char **why);
/* Appends s[0..len) to t, quoted when a config file would otherwise read it
 * differently. */
void config_add_quoted(struct config_text *t, const char *s, size_t len);
/* A whole file in a NUL-terminated xmalloc'd buffer; NULL with errno set. */
char *config_read_file(const char *path);
/* Cuts buf into lines in place; returns how many, their starts in *lines
 * (xmalloc'd). */
size_t config_split_lines(char *buf, char ***lines);
/* s without blanks at either end, cut in place. */
char *config_trim(char *s);

#endif
