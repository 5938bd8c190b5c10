/*
 * command_table.h - the shape of a command table, and the table itself
 * (command_table.c).
 *
 * Commands are data: each cmd_*.c module owns a `const` table of rows, each
 * row beside its handler, and the command layer registers the tables at
 * start (commands_register, called by main.c), in the order COMMAND lists
 * them. The table never names a module: it knows commands only through
 * what was registered. Statistics (INFO commandstats) live here, apart from
 * the rows, so the rows stay read-only.
 */
#ifndef RBKV_COMMAND_TABLE_H
#define RBKV_COMMAND_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct client;

/* Command flags, as in Redis's command table. */
#define CMD_WRITE (1u << 0)
#define CMD_READONLY (1u << 1)
#define CMD_DENYOOM (1u << 2)    /* refused when over maxmemory */
#define CMD_ADMIN (1u << 3)
#define CMD_NOAUTH (1u << 4)     /* allowed before AUTH */
#define CMD_FAST (1u << 5)
#define CMD_LOADING (1u << 6)
#define CMD_STALE (1u << 7)
#define CMD_NOSCRIPT (1u << 8)
#define CMD_PUBSUB (1u << 9)
/* Bit 10 is free: a container is a row with subcommands (struct command). */
/* Inside MULTI: runs at once instead of queueing (MULTI EXEC DISCARD WATCH
 * QUIT), and of those, ends the transaction, so it never grows the queue
 * (EXEC DISCARD QUIT). Not shown by COMMAND INFO. */
#define CMD_TX_NOW (1u << 11)
#define CMD_TX_END (1u << 12)
/* Allowed to a RESP2 client with subscriptions: (P|S)(UN)SUBSCRIBE, PING,
 * QUIT, RESET. Not shown by COMMAND INFO. */
#define CMD_SUBSCRIBED_OK (1u << 13)
/* Redis 7's remaining flags, shown by COMMAND INFO. NO_MULTI is refused
 * inside MULTI at queue time; SKIP_MONITOR and SKIP_SLOWLOG keep a command
 * out of MONITOR and SLOWLOG; the others describe the command (BLOCKING may
 * wait, MOVABLE_KEYS finds its keys in its arguments, ALLOW_BUSY runs while
 * a script is busy, NO_ASYNC_LOADING not while a replica loads, and
 * NO_MANDATORY_KEYS may name no key). */
#define CMD_BLOCKING (1u << 14)
#define CMD_SKIP_MONITOR (1u << 15)
#define CMD_SKIP_SLOWLOG (1u << 16)
#define CMD_NO_MANDATORY_KEYS (1u << 17)
#define CMD_NO_ASYNC_LOADING (1u << 18)
#define CMD_NO_MULTI (1u << 19)
#define CMD_MOVABLE_KEYS (1u << 20)
#define CMD_ALLOW_BUSY (1u << 21)
/* Answered by Redis before dispatch (QUIT), so never shown to MONITOR.
 * Not shown by COMMAND INFO. */
#define CMD_NOT_DISPATCHED (1u << 22)
/* Refused unless enable-debug-command allows this client (DEBUG), with
 * Redis's text, before authentication. Not shown by COMMAND INFO. */
#define CMD_PROTECTED (1u << 23)
/* Runs on a cluster node that is importing its key's slot when the
 * client said ASKING (RESTORE-ASKING); shown by COMMAND INFO as "asking". */
#define CMD_ASKING (1u << 24)

/* Its channel arguments are patterns (PSUBSCRIBE): an ACL allows one only
 * when the user has that very pattern. Not shown by COMMAND INFO. */
#define CMD_CHANNEL_PATTERNS (1u << 25)

/* WATCH learns of its changes from the command itself (watch_touch on each
 * key it changed), not from the dispatcher's touching every key it names:
 * SINTERSTORE changes its destination, not its sources, DEL only the keys
 * it found, as Redis signals them. Not shown by COMMAND INFO. */
#define CMD_TOUCHES_OWN_KEYS (1u << 26)

/* May reach the replicas without being a write: EVAL, EVALSHA and FCALL of
 * a script that declares no flags, PUBLISH, SPUBLISH, PFCOUNT (which may
 * rewrite its key's cache). CLIENT PAUSE WRITE holds it, as Redis 7.0's
 * CMD_MAY_REPLICATE; a script's declared flags drop it (script.h). Not
 * shown by COMMAND INFO. */
#define CMD_MAY_REPLICATE (1u << 27)

/* The keys a command that names none may reach (a listing, a range, a
 * whole-dataset command): an ACL with key patterns allows it only when the
 * reach stays inside one of them (acl.c). PREFIX: every key starting with
 * lo; LEX: keys from lo to hi in key order; the slices are the request's. */
struct key_reach {
    enum { KEY_REACH_ALL, KEY_REACH_PREFIX, KEY_REACH_LEX } kind;
    const char *lo, *hi;
    size_t lolen, hilen;
};
struct resp_slice;
/* Fills r for argv[0..argc) (arity already checked). */
typedef void key_reach_fn(int argc, const struct resp_slice *argv, struct key_reach *r);

typedef void cmd_handler(struct client *c);

/* What COMMAND DOCS says of a command Redis does not have, beside its
 * group; redis-cli builds its hints from it. */
struct command_docs {
    const char *since;
    const char *summary;
    const char *complexity;
    const char *args; /* argument syntax, e.g. "key min max|PREFIX prefix" (cmd_command.c) */
};

struct command {
    const char *name;            /* lower case */
    cmd_handler *proc;
    int arity;                   /* argc including the name; -N means at least N */
    unsigned flags;
    int first_key, last_key, key_step; /* key positions, as COMMAND INFO shows them */
    /* Redis's command group ("string", "keyspace", ...): the ACL categories
     * it implies (acl_rules.c), and COMMAND DOCS's group for docs. */
    const char *group;
    /* COMMAND DOCS of one of rbkv's own commands. NULL on the row of a
     * command Redis 7.0 has, whose docs are Redis's own (redis_docs.c);
     * the start refuses a row that breaks this either way
     * (command_docs_misplaced, cmd_command.h). */
    const struct command_docs *docs;
    /* A container's subcommands (CONFIG GET, CLIENT ID), as Redis 7 has them:
     * rows of their own named "container|sub", each with its arity, flags,
     * categories and key specs, ending with a NULL name; NULL for a plain
     * command. The dispatcher runs the subcommand's row, so every check
     * (ACL, noscript, admin, write, ...) reads the subcommand's flags. */
    const struct command *subcommands;
    /* NULL: the command reaches only the keys at its key positions. */
    key_reach_fn *key_reach;
    /* Channel arguments, as the key positions (last -1: to the end); 0: none. */
    int first_channel, last_channel;
    /* The flags a request runs under where they depend on its arguments,
     * given the row's: EVAL's and FCALL's take their script's (shebang or
     * function flags), as Redis's getCommandFlags, so the dispatcher's
     * refusals (OOM, MISCONF, READONLY, NOREPLICAS, MASTERDOWN), pauses and
     * MULTI's queue treat a #!lua script without no-writes as a write.
     * NULL: .flags. */
    unsigned (*flags_of)(const struct client *c, unsigned flags);
};

/* Registers a table, whose last row has a NULL name; before
 * command_table_init and before any rename-command is read. The rows are
 * borrowed for the server's life. */
void command_register(const struct command *table);
/* Indexes the registered commands under their names after server.cfg's
 * renames; at start, once every table is registered. */
void command_table_init(void);
/* The command clients call by name[0..len) (any case), or NULL. */
const struct command *command_lookup(const char *name, size_t len);
/* A command by its own name whatever the renames (for internal callers such
 * as replaying the append-only log); NULL when there is none. Subcommands
 * are found by their full names ("config|get"), as ACL rules name them. */
const struct command *command_lookup_builtin(const char *name, size_t len);
/* The row the request argv[0..argc) runs, as Redis's lookupCommand: the
 * command, or for a container given a subcommand, that subcommand's row;
 * NULL for an unknown command or subcommand. Renames apply to argv[0]. */
const struct command *command_resolve(int argc, const struct resp_slice *argv);
/* command_resolve after the lookup: cmd itself (NULL too), or for a
 * container given a subcommand, its row, NULL when it has none by that
 * name (the log's replay resolves a built-in name so). */
const struct command *command_subcommand(const struct command *cmd, int argc,
                                         const struct resp_slice *argv);
/* A callable command or subcommand by its full name ("config|get", any
 * case), as COMMAND INFO and DOCS take it; NULL when there is none. */
const struct command *command_lookup_fullname(const char *name, size_t len);
/* rename-command's check, in the table that owns the names: whether count
 * pairs (as in struct config) apply in order to the registered names; 0, or
 * -1 with the reason in err. */
int command_check_renames(char *const *renames, int count, char *err, size_t errlen);
/* The callable commands, numbered 0..command_count()-1 in registration order
 * (COMMAND, INFO commandstats); command_at returns NULL past the end. */
size_t command_count(void);
const struct command *command_at(size_t i);
/* The same commands each followed by its subcommands' rows, numbered
 * 0..command_row_count()-1 (ACL categories, INFO commandstats). */
size_t command_row_count(void);
const struct command *command_row_at(size_t i);
/* Every registered command, renamed or disabled ones too, has a number in
 * 0..command_builtin_count()-1 (ACL permissions are arrays by it). */
size_t command_index(const struct command *cmd);
size_t command_builtin_count(void);

struct histogram;

/* INFO commandstats' figures for one command. rejected_calls: refused
 * before running (arity, OOM, ...); failed_calls: ran and replied with an
 * error; both as Redis counts them. latency: the durations of its calls in
 * microseconds while latency-tracking is on (INFO latencystats, LATENCY
 * HISTOGRAM), made at its first call, owned here; NULL before. */
struct command_stats {
    unsigned long long calls, usec, failed_calls, rejected_calls;
    struct histogram *latency;
};
/* The figures of a registered command (never NULL for one), which the
 * dispatcher counts into. */
struct command_stats *command_stats(const struct command *cmd);
void command_reset_stats(void); /* CONFIG RESETSTAT: the histograms too */

#endif
