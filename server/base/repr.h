/*
 * repr.h - bytes quoted as Redis's sdscatrepr quotes them: what MONITOR
 * prints for each argument, so its lines read the same as Redis's.
 *
 * Reads no server state; binary-safe (the bytes need no NUL).
 */
#ifndef RBKV_REPR_H
#define RBKV_REPR_H

#include <stddef.h>

/* The most bytes repr_write writes for len input bytes: two quotes and
 * four ("\xff") per byte. */
#define REPR_MAX(len) (2 + 4 * (len))

/* Writes s[0..len) double-quoted into dst, escaping '\\' and '"' with a
 * backslash, \n \r \t \a \b by name and any other unprintable byte as \xhh.
 * dst must hold REPR_MAX(len) bytes; returns how many were written (no NUL). */
size_t repr_write(char *dst, const char *s, size_t len);

#endif
