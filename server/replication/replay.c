/*
 * replay.c - the append-only log's commands run on a client of their own
 * (replay.h).
 */
#include "replay.h"

#include <string.h>
#include <strings.h>

#include "blocking.h"
#include "client.h"
#include "command.h"
#include "errorstats.h"
#include "keyspace.h"
#include "mem.h"
#include "resp_num.h"
#include "server.h"

struct replay {
    struct client client;
    /* A REPLCONF POSITION entry (written at a clean shutdown) with no write
     * after it: the replication position the replayed data is at. */
    int has_position;
    char replid[41];
    long long offset;
    int db;
};

struct replay *replay_new(void)
{
    struct replay *r = xcalloc(1, sizeof(*r));
    struct client *c = &r->client;
    resp_out_init(&c->out);
    errorstats_watch(c, 1);
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

/* REPLCONF POSITION <replid> <offset> [<db>]: not a command a client can
 * send, an entry only the log holds (repl_log_position); logs written before
 * the stream's database was recorded have none (0). */
static int position_entry(struct replay *r, int argc, const struct resp_slice *argv,
                          const char **why)
{
    long long off, db = 0;
    if ((argc != 4 && argc != 5) || argv[2].len != 40 ||
        resp_parse_ll(argv[3].ptr, argv[3].len, &off) < 0 || off < 0 ||
        (argc == 5 && (resp_parse_ll(argv[4].ptr, argv[4].len, &db) < 0 || db < 0 ||
                       db >= server.ks->count))) {
        *why = "bad replication position";
        return -1;
    }
    r->db = (int)db;
    memcpy(r->replid, argv[2].ptr, 40);
    r->replid[40] = '\0';
    r->offset = off;
    r->has_position = 1;
    return 0;
}

int replay_position(const struct replay *r, char *replid, long long *offset, int *db)
{
    if (!r->has_position)
        return 0;
    memcpy(replid, r->replid, 41);
    *offset = r->offset;
    *db = r->db;
    return 1;
}

int replay_command(void *ctx, int argc, struct resp_slice *argv, const char **why)
{
    struct replay *r = ctx;
    struct client *c = &r->client;
    if (argc >= 2 && argv[0].len == 8 && !strncasecmp(argv[0].ptr, "replconf", 8) &&
        argv[1].len == 8 && !strncasecmp(argv[1].ptr, "position", 8))
        return position_entry(r, argc, argv, why);
    /* The log names commands by their own names (and SELECT, DEL, ... are
     * written by the log itself): renames do not apply here. */
    const struct command *cmd =
        command_subcommand(command_lookup_builtin(argv[0].ptr, argv[0].len), argc, argv);
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
    if (!(cmd->flags & CMD_WRITE) &&
        cmd != command_lookup_builtin("select", 6)) {
        *why = "not a write command";
        return -1;
    }
    if (cmd != command_lookup_builtin("select", 6))
        r->has_position = 0; /* data changed after the position was written */
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
