/*
 * cmd_scan.h - the command table of cmd_scan.c, for commands_register.
 */
#ifndef RBKV_CMD_SCAN_H
#define RBKV_CMD_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "client.h"
#include "command.h"

extern const struct command scan_commands[];

/* SCAN's cursor table (see cmd_scan.c), shared with HSCAN and SSCAN: a
 * cursor is a random number standing for the last key, field or member an
 * iteration returned, good for one call. */
/* A cursor argument: decimal digits of an unsigned 64-bit number, as Redis
 * accepts them. Returns 0, or -1 (replied). */
int scan_cursor_arg_or_reply(struct client *c, const struct resp_slice *a, uint64_t *id);
/* Retires cursor id (nonzero): 0 with *last (an xmalloc'ed copy the caller
 * frees) and *len, or -1 after replying that the cursor is unknown. */
int scan_cursor_take_or_reply(struct client *c, uint64_t id, char **last, size_t *len);
/* Issues a cursor standing for last[0..len); returns its number. */
uint64_t scan_cursor_issue(const char *last, size_t len);

#endif
