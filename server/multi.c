/*
 * multi.c - transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH, and the
 * queue the dispatcher fills between MULTI and EXEC.
 *
 * Owns: multi_commands[] and each client's struct multi_state. One
 * allocation per queued command holds its argument slices and their bytes,
 * copied from the parser's buffer, whose slices die when the handler returns.
 * Knows nothing of sockets; watched keys belong to watch.c.
 *
 * Redis 7.0's rules (multi.c, server.c processCommand): a request the
 * dispatcher refuses inside MULTI (unknown, arity, NOAUTH, OOM, MISCONF)
 * gets its error now and makes EXEC answer EXECABORT; MULTI, EXEC, DISCARD,
 * WATCH and QUIT run at once instead of queueing, and nested MULTI or WATCH
 * errors do not doom the transaction. EXEC itself re-checks OOM and MISCONF
 * for the queue as a whole. EXEC runs each queued command through
 * command_call (stats and key-change reports as usual) inside one array;
 * errors at run time are just that command's reply, nothing rolls back.
 */
#include <string.h>

#include "aof.h"
#include "commands.h"
#include "mem.h"
#include "multi.h"
#include "server.h"
#include "watch.h"

struct multi_cmd {
    struct multi_cmd *next;
    const struct command *cmd;
    int argc;
    struct resp_slice argv[];    /* then the argument bytes the slices point into */
};

struct multi_state {
    struct multi_cmd *head, **tail;
    long count;
    unsigned cmd_flags;          /* the union of the queued commands' flags */
    int refused;                 /* a request was refused while queueing: EXECABORT */
};

static void cmd_multi(struct client *c);
static void cmd_exec(struct client *c);
static void cmd_discard(struct client *c);
static void cmd_watch(struct client *c);

/* QUIT's handler is private to cmd_connection.c: its name is the handle. */
static int is_quit(const struct command *cmd)
{
    return strcmp(cmd->name, "quit") == 0;
}

static int runs_now(const struct command *cmd)
{
    return cmd->proc == cmd_multi || cmd->proc == cmd_exec || cmd->proc == cmd_discard ||
           cmd->proc == cmd_watch || is_quit(cmd);
}

int multi_queue_grows(const struct client *c, const struct command *cmd)
{
    return c->multi && cmd->proc != cmd_exec && cmd->proc != cmd_discard && !is_quit(cmd);
}

int multi_queue(struct client *c, const struct command *cmd)
{
    if (runs_now(cmd))
        return 0;
    size_t bytes = 0;
    for (int i = 0; i < c->argc; i++)
        bytes += c->argv[i].len;
    struct multi_cmd *q = xmalloc(sizeof(*q) + (size_t)c->argc * sizeof(q->argv[0]) + bytes);
    char *p = (char *)(q->argv + c->argc);
    for (int i = 0; i < c->argc; i++) {
        memcpy(p, c->argv[i].ptr, c->argv[i].len);
        q->argv[i].ptr = p;
        q->argv[i].len = c->argv[i].len;
        p += c->argv[i].len;
    }
    q->next = NULL;
    q->cmd = cmd;
    q->argc = c->argc;
    *c->multi->tail = q;
    c->multi->tail = &q->next;
    c->multi->count++;
    c->multi->cmd_flags |= cmd->flags;
    resp_add_simple(&c->out, "QUEUED");
    return 1;
}

void multi_refused(struct client *c)
{
    if (c->multi)
        c->multi->refused = 1;
}

static void state_free(struct multi_state *m)
{
    struct multi_cmd *next;
    for (struct multi_cmd *q = m->head; q; q = next) {
        next = q->next;
        xfree(q);
    }
    xfree(m);
}

void multi_discard(struct client *c)
{
    if (c->multi)
        state_free(c->multi);
    c->multi = NULL;
    watch_unwatch_all(c);
}

long multi_queued(const struct client *c)
{
    return c->multi ? c->multi->count : -1;
}

static void cmd_multi(struct client *c)
{
    if (c->multi) {
        resp_add_error(&c->out, "ERR MULTI calls can not be nested");
        return;
    }
    c->multi = xcalloc(1, sizeof(*c->multi));
    c->multi->tail = &c->multi->head;
    reply_ok(c);
}

static void cmd_exec(struct client *c)
{
    struct multi_state *m = c->multi;
    if (!m) {
        resp_add_error(&c->out, "ERR EXEC without MULTI");
        return;
    }
    /* Refusals the dispatcher would give the queued commands now, for the
     * transaction as a whole, as Redis checks EXEC. */
    const char *refusal = NULL;
    if (server.cfg.maxmemory && (m->cmd_flags & CMD_DENYOOM) && mem_used() > server.cfg.maxmemory)
        refusal = ERR_OOM;
    else if ((m->cmd_flags & (CMD_WRITE | CMD_DENYOOM)) && persist_writes_refused())
        refusal = ERR_MISCONF;
    if (refusal) {
        resp_add_errorf(&c->out, "EXECABORT Transaction discarded because of: %s", refusal);
        multi_discard(c);
        return;
    }
    if (m->refused) {
        resp_add_error(&c->out, "EXECABORT Transaction discarded because of previous errors.");
        multi_discard(c);
        return;
    }
    if ((c->flags & CLIENT_DIRTY_CAS) || watch_expired(c)) {
        resp_add_null_array(&c->out);
        multi_discard(c);
        return;
    }
    /* Unwatched first, so the transaction's own writes cost no touching.
     * c->multi stays until the end because CLIENT LIST run inside shows the
     * transaction, as in Redis; command_call never queues. */
    watch_unwatch_all(c);
    int argc = c->argc;
    struct resp_slice *argv = c->argv;
    resp_add_array_len(&c->out, (size_t)m->count);
    aof_exec_begin();
    for (struct multi_cmd *q = m->head; q; q = q->next) {
        c->argc = q->argc;
        c->argv = q->argv;
        server.stats.total_commands++; /* Redis counts a queued command again when it runs */
        command_call(c, q->cmd);
    }
    aof_exec_end();
    c->argc = argc;
    c->argv = argv;
    c->multi = NULL;
    state_free(m);
}

static void cmd_discard(struct client *c)
{
    if (!c->multi) {
        resp_add_error(&c->out, "ERR DISCARD without MULTI");
        return;
    }
    multi_discard(c);
    reply_ok(c);
}

static void cmd_watch(struct client *c)
{
    if (c->multi) {
        resp_add_error(&c->out, "ERR WATCH inside MULTI is not allowed");
        return;
    }
    for (int i = 1; i < c->argc; i++)
        watch_key(c, c->db, c->argv[i].ptr, c->argv[i].len);
    reply_ok(c);
}

static void cmd_unwatch(struct client *c)
{
    watch_unwatch_all(c);
    reply_ok(c);
}

#define TX_FLAGS (CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

/* Arity, flags, key positions and docs as Redis 7.0's COMMAND INFO and
 * COMMAND DOCS show them. */
struct command multi_commands[] = {
    {"multi", cmd_multi, 1, TX_FLAGS | CMD_FAST, 0, 0, 0, "transactions", "1.2.0",
     "Mark the start of a transaction block", "O(1)", "", 0, 0, 0},
    {"exec", cmd_exec, 1, TX_FLAGS, 0, 0, 0, "transactions", "1.2.0",
     "Execute all commands issued after MULTI", "Depends on commands in the transaction", "", 0,
     0, 0},
    {"discard", cmd_discard, 1, TX_FLAGS | CMD_FAST, 0, 0, 0, "transactions", "2.0.0",
     "Discard all commands issued after MULTI", "O(N), when N is the number of queued commands",
     "", 0, 0, 0},
    {"watch", cmd_watch, -2, TX_FLAGS | CMD_FAST, 1, -1, 1, "transactions", "2.2.0",
     "Watch the given keys to determine execution of the MULTI/EXEC block",
     "O(1) for every key.", "key [key ...]", 0, 0, 0},
    {"unwatch", cmd_unwatch, 1, TX_FLAGS | CMD_FAST, 0, 0, 0, "transactions", "2.2.0",
     "Forget about all watched keys", "O(1)", "", 0, 0, 0},
    {NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0},
};
