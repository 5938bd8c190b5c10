/*
 * keyspec.h - which arguments of a request are keys, and what the command
 * does with each: Redis 7's key specs (keyspec.c).
 *
 * A key spec says where its keys begin (at an index, or after a keyword
 * searched from an index) and how many follow (a range, or a count read
 * from the request), with flags telling how the command uses them. The ACL
 * check, COMMAND GETKEYS / GETKEYSANDFLAGS and COMMAND INFO all read keys
 * through keyspec_visit, so no other place knows how a movable command
 * names its keys.
 *
 * The specs are data of the command layer, apart from the command rows: a
 * row needs none when one spec drawn from its first_key/last_key/key_step
 * and its flags says it (RO access for reads, RW access update for writes);
 * a table registered at start (keyspec_register) holds the others, and the
 * specs of containers' subcommands ("object|encoding"). The table is
 * borrowed for the server's life.
 */
#ifndef RBKV_KEYSPEC_H
#define RBKV_KEYSPEC_H

#include "command_table.h"

/* Key spec flags, as Redis 7 names them, in the order COMMAND prints them.
 * How much of the key is touched: RO read only, RW read and written, OW
 * overwritten, RM removed; what the command does with its data: ACCESS
 * returns or uses it, INSERT adds, DELETE removes, UPDATE changes it. */
#define KEY_RO (1u << 0)
#define KEY_RW (1u << 1)
#define KEY_OW (1u << 2)
#define KEY_RM (1u << 3)
#define KEY_ACCESS (1u << 4)
#define KEY_UPDATE (1u << 5)
#define KEY_INSERT (1u << 6)
#define KEY_DELETE (1u << 7)
#define KEY_NOT_KEY (1u << 8)       /* a shard channel at a key position: no key */
#define KEY_VARIABLE_FLAGS (1u << 9) /* the flags depend on the request: see flags_for */
/* The spec may miss keys (MIGRATE's KEYS keyword could be a key): keys_for
 * answers, the spec only describes. */
#define KEY_INCOMPLETE (1u << 10)

struct key_spec {
    unsigned flags;
    const char *notes; /* COMMAND INFO's notes, or NULL */
    /* Redis's "unknown" begin_search and find_keys: nothing in the
     * request's shape says where these keys are (SORT's BY and GET keys come
     * from the data, its STORE keyword may stand anywhere). The spec only
     * describes; its command's keys_for finds the keys. */
    int unknown;
    /* Where the keys begin: at argument `index` when keyword is NULL; else
     * right after the first argument equal to keyword (any case), searched
     * from argument `index` on, or backwards from argc + index when index
     * is negative. No keyword found: the spec names no key. */
    const char *keyword;
    int index;
    /* How many: 0, a range from that first key to lastkey (relative to it;
     * negative: from the end of the request, where limit > 1 keeps only the
     * first 1/limit of the rest), every keystep arguments; 1, a count at
     * first + keynumidx, the keys from first + firstkey every keystep. */
    int keynum;
    int lastkey, keystep, limit;
    int keynumidx, firstkey;
};

#define KEY_SPECS_MAX 3

/* Narrows a VARIABLE_FLAGS command's flags for one request (SET without GET
 * overwrites without reading): the flags of every key it names. */
typedef unsigned key_flags_fn(int argc, const struct resp_slice *argv);

/* Called for each key of a request, in Redis's order: pos is its argument,
 * flags its spec's (0 where Redis's fallback gives none). Nonzero stops the
 * walk. */
typedef int key_visit_fn(void *ctx, int pos, unsigned flags);

/* Redis's getkeys_proc for a command with an unknown spec: visits the keys
 * of argv[0..argc) with their flags, as keyspec_visit does, and returns the
 * number visited, the stopping one included. */
typedef int key_finder_fn(int argc, const struct resp_slice *argv, key_visit_fn *visit,
                          void *ctx);

struct command_key_specs {
    const char *name;  /* a command's name, or "container|sub", lower case */
    int count;         /* of specs */
    struct key_spec specs[KEY_SPECS_MAX];
    key_flags_fn *flags_for; /* NULL unless a spec has KEY_VARIABLE_FLAGS */
    key_finder_fn *keys_for; /* set when a spec is unknown, else NULL */
};

/* Registers the table of explicit specs (ending with a NULL name; a
 * subcommand under its "container|sub" name), before command_table_init. */
void keyspec_register(const struct command_key_specs *table);
/* Matches the registered commands with their specs; called by
 * command_table_init. Aborts the start when a row of the registered table
 * names no command (keyspec_unknown): a typo there must not pass. */
void keyspec_table_init(void);
/* The name of table t's first row that names no built-in command or
 * subcommand, or NULL when every row does. Reads the command index, so
 * command_table_init has run. */
const char *keyspec_unknown(const struct command_key_specs *t);

/* The specs of cmd, the row a request runs (a subcommand's own, from
 * command_resolve; a container's, which are none). NULL: it names no keys. */
const struct command_key_specs *keyspec_of(const struct command *cmd);

/* Whether specs can name a key at all (a spec that is no NOT_KEY). */
int keyspec_has_keys(const struct command_key_specs *specs);

/* The index of the request's only key when specs name exactly one key at a
 * fixed place (GET, SET, INCR...: one spec, a range of one key from a
 * fixed index) and a request of argc arguments holds it; else 0, and
 * keyspec_visit is the way to the keys. */
int keyspec_single_key(const struct command_key_specs *specs, int argc);

/* Visits the keys the specs find in argv[0..argc) (arity checked already).
 * As Redis: a keyword that is missing names no key; a count that is not a
 * number, or keys past the end, make the specs invalid, and then Redis's
 * older rules give the keys without flags (a count read as C's atoi reads
 * it, between 1 and what the request holds; otherwise no key); specs with
 * keys_for are never read, keys_for answers. Returns the number of keys
 * visited, the stopping one included. */
int keyspec_visit(const struct command_key_specs *specs, int argc, const struct resp_slice *argv,
                  key_visit_fn *visit, void *ctx);

#endif
