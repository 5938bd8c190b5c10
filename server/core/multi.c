/*
 * multi.c - transactions: the queue the dispatcher fills between MULTI and
 * EXEC, and running it (the commands themselves are cmd_multi.c's).
 *
 * Owns: each client's struct multi_state. One
 * allocation per queued command holds its argument slices and their bytes,
 * copied from the parser's buffer, whose slices die when the handler returns.
 * Knows nothing of sockets; watched keys belong to watch.c.
 *
 * Redis 7.0's rules (multi.c, server.c processCommand): a request the
 * dispatcher refuses inside MULTI (unknown, arity, NOAUTH, OOM, MISCONF)
 * gets its error now and makes EXEC answer EXECABORT; MULTI, EXEC, DISCARD,
 * WATCH and QUIT run at once instead of queueing, and nested MULTI or WATCH
 * errors do not doom the transaction. EXEC itself re-checks OOM, MISCONF,
 * READONLY and MASTERDOWN for the queue as a whole. EXEC runs each queued
 * command through command_call (stats and key-change reports as usual)
 * inside one array; errors at run time are just that command's reply,
 * nothing rolls back.
 */
#include "multi.h"

#include <string.h>

#include "client.h"
#include "command.h"
#include "conn.h"
#include "mem.h"
#include "propagate.h"
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
    unsigned missing_flags;      /* the union of their complements (Redis's cmd_inv_flags) */
    int refused;                 /* a request was refused while queueing: EXECABORT */
};

int multi_queue_grows(const struct client *c, const struct command *cmd)
{
    return c->multi && !(cmd->flags & CMD_TX_END);
}
int multi_queue(struct client *c, const struct command *cmd, unsigned flags)
{
    if (cmd->flags & CMD_TX_NOW)
        return 0;
    size_t size = sizeof(struct multi_cmd) + (size_t)c->argc * sizeof(struct resp_slice) +
                  resp_slices_bytes(c->argc, c->argv);
    struct multi_cmd *q = xmalloc(size);
    resp_slices_copy(q->argv, (char *)(q->argv + c->argc), c->argc, c->argv);
    q->next = NULL;
    q->cmd = cmd;
    q->argc = c->argc;
    *c->multi->tail = q;
    c->multi->tail = &q->next;
    c->multi->count++;
    c->multi_mem += size;
    c->multi->cmd_flags |= flags;
    c->multi->missing_flags |= ~flags;
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

void multi_init(void)
{
    conn_on_gone(multi_discard);
}

void multi_discard(struct client *c)
{
    if (c->multi)
        state_free(c->multi);
    c->multi = NULL;
    c->multi_mem = 0;
    watch_unwatch_all(c);
}

long multi_queued(const struct client *c)
{
    return c->multi ? c->multi->count : -1;
}

size_t multi_memory(const struct client *c)
{
    return c->multi_mem;
}

int multi_visit(const struct client *c, multi_visit_fn *visit, void *ctx)
{
    if (!c->multi)
        return 0;
    for (const struct multi_cmd *q = c->multi->head; q; q = q->next) {
        int rc = visit(ctx, q->cmd, q->argc, q->argv);
        if (rc)
            return rc;
    }
    return 0;
}

int multi_has_write(const struct client *c)
{
    return (multi_queued_flags(c) & CMD_WRITE) != 0;
}

unsigned multi_queued_flags(const struct client *c)
{
    return c->multi ? c->multi->cmd_flags : 0;
}

void multi_start(struct client *c)
{
    c->multi = xcalloc(1, sizeof(*c->multi));
    c->multi->tail = &c->multi->head;
}

void multi_exec(struct client *c, const struct multi_runner *run)
{
    struct multi_state *m = c->multi;
    /* Refusals the dispatcher would give the queued commands now, for the
     * transaction as a whole, as Redis checks EXEC. */
    const char *refusal = run->refusal(c, m->cmd_flags, m->missing_flags);
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
    propagate_unit_begin();
    for (struct multi_cmd *q = m->head; q; q = q->next) {
        c->argc = q->argc;
        c->argv = q->argv;
        server.stats.total_commands++; /* Redis counts a queued command again when it runs */
        run->call(c, q->cmd);
    }
    propagate_unit_end();
    c->argc = argc;
    c->argv = argv;
    c->multi = NULL;
    c->multi_mem = 0;
    state_free(m);
}
