/*
 * command_table.c - the command table: the registered rows, indexed by name.
 *
 * Commands are data (struct command in each cmd_*.c module), registered at
 * start by the command layer; this file indexes them by name and number and
 * keeps their statistics. It runs nothing: the dispatcher (command.c), the
 * ACL and the key specs read the table from above.
 *
 * rename-command (config.h) changes only the names clients call commands by:
 * a struct command keeps its own name, which COMMAND, INFO commandstats,
 * CLIENT LIST and error texts show, as Redis does (so a secret new name is
 * never listed), and by which internal code finds it (command_lookup_builtin).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "command_table.h"

#include "histogram.h"
#include "resp_parser.h"
#include "mem.h"
#include "server.h"

#define INDEX_SLOTS 1024 /* power of two, well over twice the command count */
#define MAX_TABLES 64

/* The registered tables, in the order COMMAND lists them. */
static const struct command *tables[MAX_TABLES];
static size_t table_count;

/* A name clients may call a command by: its own, or a rename-command's. */
struct command_name {
    const char *name; /* the command's own, or borrowed from server.cfg.renames */
    size_t len;
    const struct command *cmd; /* NULL: an empty index slot */
};

/* Open addressing by name; lookups compare the stored length first, so a
 * probe costs no strlen. */
static struct command_name index_slots[INDEX_SLOTS];
/* The callable commands (disabled ones left out), in module order: what
 * COMMAND, COMMAND COUNT and INFO commandstats show. */
static const struct command *all_commands[INDEX_SLOTS];
static size_t total_commands;
/* all_commands, each followed by its subcommands. */
static const struct command *all_rows[INDEX_SLOTS];
static size_t total_rows;

/* INFO commandstats, apart from the read-only rows: open addressing by the
 * row's address, filled for every registered command by command_table_init. */
struct stats_slot {
    const struct command *cmd; /* NULL: an empty slot */
    size_t index;              /* command_index */
    struct command_stats stats;
};
static struct stats_slot stats_slots[INDEX_SLOTS];

void command_register(const struct command *table)
{
    if (table_count == MAX_TABLES) {
        fprintf(stderr, "rbkv: more than %d command tables\n", MAX_TABLES);
        abort();
    }
    tables[table_count++] = table;
}

static uint32_t row_hash(const struct command *cmd)
{
    /* Rows are at least 8-byte aligned; Fibonacci hashing mixes the rest. */
    return (uint32_t)(((uintptr_t)cmd >> 3) * UINT64_C(11400714819323198485) >> 54);
}

static struct stats_slot *stats_slot_of(const struct command *cmd)
{
    uint32_t slot = row_hash(cmd) & (INDEX_SLOTS - 1);
    while (stats_slots[slot].cmd && stats_slots[slot].cmd != cmd)
        slot = (slot + 1) & (INDEX_SLOTS - 1);
    return &stats_slots[slot];
}
/* Every command under its own name, renames or not (command_lookup_builtin). */
static struct command_name builtin_slots[INDEX_SLOTS];
static size_t builtin_count;

static uint32_t name_hash(const char *name, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint32_t)tolower((unsigned char)name[i])) * 16777619u;
    return h;
}

static void index_add(struct command_name *slots, const struct command_name *n)
{
    uint32_t slot = name_hash(n->name, n->len) & (INDEX_SLOTS - 1);
    while (slots[slot].cmd)
        slot = (slot + 1) & (INDEX_SLOTS - 1);
    slots[slot] = *n;
}

static const struct command *index_find(const struct command_name *slots, const char *name,
                                        size_t len)
{
    for (uint32_t slot = name_hash(name, len) & (INDEX_SLOTS - 1); slots[slot].cmd;
         slot = (slot + 1) & (INDEX_SLOTS - 1)) {
        const struct command_name *e = &slots[slot];
        if (e->len == len && strncasecmp(e->name, name, len) == 0)
            return e->cmd;
    }
    return NULL;
}

/* Fills names (room for INDEX_SLOTS) with every command under its own name,
 * in module order; returns how many. */
static size_t builtin_names(struct command_name *names)
{
    size_t n = 0;
    for (size_t t = 0; t < table_count; t++) {
        for (const struct command *cmd = tables[t]; cmd->name; cmd++)
            names[n++] = (struct command_name){cmd->name, strlen(cmd->name), cmd};
    }
    return n;
}

static size_t name_find(const struct command_name *names, size_t n, const char *name)
{
    size_t len = strlen(name), i;
    for (i = 0; i < n; i++) {
        if (names[i].len == len && strncasecmp(names[i].name, name, len) == 0)
            break;
    }
    return i;
}

/*
 * Applies rename-command pairs to names[0..*n) in order, as Redis's config
 * loader does to its command table: the old name must be callable at that
 * point, it is removed first (so renaming a command to itself works), and the
 * new one, unless "", must not be taken. Returns 0, or -1 with Redis's reason
 * in err. Runs at start only, so linear searches are fine.
 */
static int apply_renames(struct command_name *names, size_t *n, char *const *renames, int count,
                         char *err, size_t errlen)
{
    for (int r = 0; r < count; r++) {
        const char *from = renames[2 * r], *to = renames[2 * r + 1];
        size_t k = name_find(names, *n, from);
        if (k == *n) {
            snprintf(err, errlen, "No such command in rename-command");
            return -1;
        }
        const struct command *cmd = names[k].cmd;
        memmove(&names[k], &names[k + 1], (*n - k - 1) * sizeof(names[0]));
        (*n)--;
        if (!to[0])
            continue;
        if (name_find(names, *n, to) < *n) {
            snprintf(err, errlen, "Target command name already exists");
            return -1;
        }
        /* The command keeps its place in COMMAND's order. */
        memmove(&names[k + 1], &names[k], (*n - k) * sizeof(names[0]));
        names[k] = (struct command_name){to, strlen(to), cmd};
        (*n)++;
    }
    return 0;
}

int command_check_renames(char *const *renames, int count, char *err, size_t errlen)
{
    struct command_name *names = xmalloc(INDEX_SLOTS * sizeof(*names));
    size_t n = builtin_names(names);
    int rc = apply_renames(names, &n, renames, count, err, errlen);
    xfree(names);
    return rc;
}

void command_table_init(void)
{
    static struct command_name names[INDEX_SLOTS];
    char err[128];

    size_t n = builtin_names(names);

    memset(builtin_slots, 0, sizeof(builtin_slots));
    memset(stats_slots, 0, sizeof(stats_slots));
    for (size_t i = 0; i < n; i++) {
        index_add(builtin_slots, &names[i]);
        stats_slot_of(names[i].cmd)->cmd = names[i].cmd;
        stats_slot_of(names[i].cmd)->index = i;
    }
    /* Subcommands are numbered after every command, under their full
     * names; renames never apply to them, as in Redis. */
    builtin_count = n;
    for (size_t i = 0; i < n; i++) {
        for (const struct command *sub = names[i].cmd->subcommands; sub && sub->name; sub++) {
            struct command_name sn = {sub->name, strlen(sub->name), sub};
            index_add(builtin_slots, &sn);
            stats_slot_of(sub)->cmd = sub;
            stats_slot_of(sub)->index = builtin_count++;
        }
    }
    /* config_set checked this very list with command_check_renames, from the
     * same built-in names, so it cannot fail here; serving with a command
     * the operator disabled would be worse than stopping. */
    if (apply_renames(names, &n, server.cfg.renames, server.cfg.rename_count, err,
                      sizeof(err)) < 0) {
        fprintf(stderr, "rbkv: rename-command: %s\n", err);
        abort();
    }
    memset(index_slots, 0, sizeof(index_slots));
    total_rows = 0;
    for (size_t i = 0; i < n; i++) {
        index_add(index_slots, &names[i]);
        all_commands[i] = names[i].cmd;
        all_rows[total_rows++] = names[i].cmd;
        for (const struct command *sub = names[i].cmd->subcommands; sub && sub->name; sub++)
            all_rows[total_rows++] = sub;
    }
    total_commands = n;
}

/* The subcommand of container named word (any case), or NULL. */
static const struct command *subcommand_find(const struct command *container, const char *word,
                                             size_t len)
{
    size_t prefix = strlen(container->name) + 1; /* "config|" */
    for (const struct command *sub = container->subcommands; sub->name; sub++) {
        if (strlen(sub->name) == prefix + len && strncasecmp(sub->name + prefix, word, len) == 0)
            return sub;
    }
    return NULL;
}

const struct command *command_subcommand(const struct command *cmd, int argc,
                                         const struct resp_slice *argv)
{
    if (!cmd || !cmd->subcommands || argc < 2)
        return cmd;
    return subcommand_find(cmd, argv[1].ptr, argv[1].len);
}

const struct command *command_resolve(int argc, const struct resp_slice *argv)
{
    return command_subcommand(command_lookup(argv[0].ptr, argv[0].len), argc, argv);
}

const struct command *command_lookup_fullname(const char *name, size_t len)
{
    const char *bar = memchr(name, '|', len);
    const struct command *cmd = command_lookup(name, bar ? (size_t)(bar - name) : len);
    if (!bar || !cmd)
        return cmd;
    return cmd->subcommands ? subcommand_find(cmd, bar + 1, len - (size_t)(bar + 1 - name)) : NULL;
}

const struct command *command_lookup(const char *name, size_t len)
{
    return index_find(index_slots, name, len);
}

const struct command *command_lookup_builtin(const char *name, size_t len)
{
    return index_find(builtin_slots, name, len);
}

size_t command_count(void)
{
    return total_commands;
}

const struct command *command_at(size_t i)
{
    return i < total_commands ? all_commands[i] : NULL;
}

size_t command_row_count(void)
{
    return total_rows;
}

const struct command *command_row_at(size_t i)
{
    return i < total_rows ? all_rows[i] : NULL;
}

size_t command_index(const struct command *cmd)
{
    return stats_slot_of(cmd)->index;
}

size_t command_builtin_count(void)
{
    return builtin_count;
}

struct command_stats *command_stats(const struct command *cmd)
{
    return &stats_slot_of(cmd)->stats;
}

void command_reset_stats(void)
{
    for (size_t i = 0; i < INDEX_SLOTS; i++) {
        xfree(stats_slots[i].stats.latency);
        memset(&stats_slots[i].stats, 0, sizeof(stats_slots[i].stats));
    }
}
