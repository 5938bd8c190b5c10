/*
 * replay.c - the append-only log's commands run on a client of their own
 * (replay.h).
 */
#include "replay.h"

#include "blocking.h"
#include "client.h"
#include "command.h"
#include "keyspace.h"
#include "mem.h"
#include "server.h"

struct replay {
    struct client client;
};

struct replay *replay_new(void)
{
    struct replay *r = xcalloc(1, sizeof(*r));
    struct client *c = &r->client;
    resp_out_init(&c->out);
    c->out.proto = 2;
    c->flags = CLIENT_AUTHENTICATED;
    c->db = &server.ks->dbs[0];
    return r;
}

void replay_free(struct replay *r)
{
    if (!r)
        return;
    resp_out_destroy(&r->client.out);
    xfree(r);
}

int replay_command(void *ctx, int argc, struct resp_slice *argv, const char **why)
{
    struct client *c = &((struct replay *)ctx)->client;
    /* The log names commands by their own names (and SELECT, DEL, ... are
     * written by the log itself): renames do not apply here. */
    const struct command *cmd = command_lookup_builtin(argv[0].ptr, argv[0].len);
    if (!cmd) {
        *why = "unknown command";
        return -1;
    }
    /* What the dispatcher would check, and what the log can hold: writes and
     * SELECT. Anything else (WATCH, CONFIG, SHUTDOWN, ...) is corruption,
     * and would leave state on the replaying client or act on the server. */
    if (cmd->arity >= 0 ? argc != cmd->arity : argc < -cmd->arity) {
        *why = "wrong number of arguments";
        return -1;
    }
    if (!(cmd->flags & CMD_WRITE) && cmd != command_lookup_builtin("select", 6)) {
        *why = "not a write command";
        return -1;
    }
    c->argc = argc;
    c->argv = argv;
    command_call(c, cmd);
    resp_out_reset(&c->out);
    /* A blocking pop is logged only once it popped, so its replay finds the
     * same members; one that would wait means the log lies. */
    if (c->blocked) {
        block_client_gone(c);
        *why = "a blocking command found nothing to serve it";
        return -1;
    }
    return 0;
}
