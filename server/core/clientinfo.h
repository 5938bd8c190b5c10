/*
 * clientinfo.h - a client as one CLIENT LIST line (clientinfo.c).
 */
#ifndef RBKV_CLIENTINFO_H
#define RBKV_CLIENTINFO_H

#include <stddef.h>

struct client;

/* Writes c's CLIENT LIST line, in Redis 7's field order, into buf[0..len),
 * NUL-terminated (truncated when it does not fit). */
void client_info_line(const struct client *c, char *buf, size_t len);

#endif
