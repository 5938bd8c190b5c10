/*
 * debug_tools.h - DEBUG's subcommands for test tooling (debug_tools.c),
 * called by cmd_debug.c's dispatch once the argument count is checked.
 */
#ifndef RBKV_DEBUG_TOOLS_H
#define RBKV_DEBUG_TOOLS_H

struct client;

/* POPULATE count [prefix] [size]: argc 3..5. */
void debug_populate(struct client *c);
/* PROTOCOL type: argc 3. */
void debug_protocol(struct client *c);
/* CHANGE-REPL-ID: argc 2. */
void debug_change_repl_id(struct client *c);
/* STRINGMATCH-TEST: argc 2. */
void debug_stringmatch_test(struct client *c);
/* QUICKLIST-PACKED-THRESHOLD size: argc 3. */
void debug_quicklist_packed_threshold(struct client *c);
/* LISTPACK key: argc 3. */
void debug_listpack(struct client *c);

#endif
