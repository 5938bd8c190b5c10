/*
 * harness.c - the server set up for in-process fuzzing (see harness.h).
 *
 * The loop is uv_default_loop(), never run except to reap handles already
 * closed, so no timer fires: a blocked client's deadline never passes, and
 * nothing reaches a socket. Commands are data, so the few that must not run
 * in a fuzzer (they fork, write files, stop the process, change the shared
 * config, connect to other servers, sleep, or close a connection the fake
 * clients do not have) get their
 * handler replaced by one that answers an error; that holds for every way a
 * command runs: the dispatcher, EXEC's queue and the log's replay. MULTI,
 * EXEC, DISCARD and WATCH keep their handlers here, as multi.c recognises
 * them by address.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "args.h"
#include "blocking.h"
#include "client.h"
#include "clock.h"
#include "command.h"
#include "commands.h"
#include "config.h"
#include "conn.h"
#include "eval.h"
#include "functions.h"
#include "keyspace.h"
#include "log.h"
#include "mem.h"
#include "monitor.h"
#include "multi.h"
#include "olist.h"
#include "omap.h"
#include "pause.h"
#include "pubsub.h"
#include "repl.h"
#include "repl_replica.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "script.h"
#include "server.h"
#include "stream.h"
#include "xstream.h"
#include "zset.h"

#define REFUSED "ERR refused by the fuzz harness"

static int ready;

static int stop_busy_script(void)
{
    return 1;
}

static void fail(const char *what, const char *why)
{
    fprintf(stderr, "fuzz harness: %s: %s\n", what, why ? why : "(no reason)");
    abort();
}

static int is(const struct command *cmd, const char *name)
{
    return cmd && strcmp(cmd->name, name) == 0;
}

/* Whether c's request would fork, write files, change what the next input
 * runs with (CONFIG SET, REWRITE) or close real connections (CLIENT KILL:
 * fake clients have no handles). */
static int guarded(const struct client *c)
{
    const struct command *cmd = command_lookup(c->argv[0].ptr, c->argv[0].len);
    if (is(cmd, "shutdown") || is(cmd, "save") || is(cmd, "bgsave") || is(cmd, "bgrewriteaof"))
        return 1;
    /* Replication connects to other servers or forks the sync child. */
    if (is(cmd, "replicaof") || is(cmd, "slaveof") || is(cmd, "sync") || is(cmd, "psync"))
        return 1;
    if (c->argc < 2)
        return 0;
    if (is(cmd, "config"))
        return arg_is(&c->argv[1], "SET") || arg_is(&c->argv[1], "REWRITE");
    if (is(cmd, "debug"))
        return arg_is(&c->argv[1], "SLEEP"); /* would stall the fuzzer */
    return is(cmd, "client") && arg_is(&c->argv[1], "KILL");
}

void harness_execute(struct client *c)
{
    /* Before the dispatcher, so a guarded request is never queued by MULTI
     * either. */
    if (guarded(c))
        resp_add_error(&c->out, REFUSED);
    else
        command_execute(c);
}

void harness_init(void)
{
    if (ready)
        return;
    if (config_init(&server.cfg) < 0)
        fail("config_init", NULL);
    server.cfg.databases = HARNESS_DATABASES;
    server.cfg.save_count = 0;
    /* A script that loops is stopped at its first busy check: there is no
     * second client to send SCRIPT KILL, and an input must end. */
    server.cfg.busy_reply_threshold = HARNESS_SCRIPT_MS;
    script_set_busy_stop(stop_busy_script);
    if (!getenv("RBKV_FUZZ_LOG") && log_open("/dev/null") < 0)
        fail("log_open", "/dev/null");
    server.loop = uv_default_loop();
    server.start_ms = mstime();
    memset(server.run_id, '0', sizeof(server.run_id) - 1);
    commands_register();
    command_init();
    server.ks = ks_new(server.cfg.databases);
    /* Their handles are made on the loop, which never runs here. Core's
     * modules and the subsystems register their client-gone and dispatcher
     * hooks here, as at the server's start (server_init, wiring.c). */
    pubsub_init();
    monitor_init();
    pause_init();
    stream_init();
    block_init();
    multi_init();
    repl_init();
    repl_replica_init();
    script_init();
    fn_init();
    ready = 1;
}

struct client *harness_client_new(void)
{
    struct client *c = xcalloc(1, sizeof(*c));
    if (resp_parser_init(&c->parser, NULL) < 0)
        fail("resp_parser_init", NULL);
    resp_out_init(&c->out);
    c->out.proto = 2;
    c->id = ++server.next_client_id;
    c->db = &server.ks->dbs[0];
    c->ctime_ms = c->last_interaction_ms = (int64_t)uv_now(server.loop);
    c->h.handle.data = c;
    snprintf(c->addr, sizeof(c->addr), "127.0.0.1:%llu", (unsigned long long)c->id);
    snprintf(c->laddr, sizeof(c->laddr), "127.0.0.1:6379");
    c->next = server.clients;
    if (server.clients)
        server.clients->prev = c;
    server.clients = c;
    server.client_count++;
    return c;
}

void harness_client_free(struct client *c)
{
    if (!c)
        return;
    /* conn_close and its close_cb, without the handle. */
    block_client_gone(c);
    conn_client_free(c);
}

void harness_reset(void)
{
    for (int i = 0; i < server.ks->count; i++)
        ks_flush(&server.ks->dbs[i]);
    server.dirty = 0;
    eval_flush(); /* cached scripts would pile up from input to input */
    fn_flush();   /* and function libraries */
    /* Only handles closed already are left: this reaps them, fires nothing. */
    uv_run(server.loop, UV_RUN_NOWAIT);
}

void harness_check_keyspace(const struct keyspace *ks)
{
    const char *why = NULL;
    for (int i = 0; i < ks->count; i++) {
        const struct db *db = &ks->dbs[i];
        if (ks_check(db, &why) < 0)
            fail("ks_check", why);
        size_t n = 0;
        for (struct ks_entry *e = ks_first(db); e; e = ks_next(e), n++) {
            if (e->type == KS_ZSET && zs_check(ks_ptr(e), &why) < 0)
                fail("zs_check", why);
            if (e->type == KS_ZSET && zs_len(ks_ptr(e)) == 0)
                fail("zs_check", "an empty sorted set is stored");
            if ((e->type == KS_HASH || e->type == KS_SET) && om_check(ks_ptr(e), &why) < 0)
                fail("om_check", why);
            if ((e->type == KS_HASH || e->type == KS_SET) && om_len(ks_ptr(e)) == 0)
                fail("om_check", "an empty hash or set is stored");
            if ((e->type == KS_HASH || e->type == KS_SET) &&
                ((const struct omap *)ks_ptr(e))->values != (e->type == KS_HASH))
                fail("om_check", "a hash's map without values, or a set's with them");
            /* The limit is not checked: CONFIG SET may have changed it. */
            if (e->type == KS_LIST && ol_check(ks_ptr(e), NULL, &why) < 0)
                fail("ol_check", why);
            if (e->type == KS_LIST && ol_len(ks_ptr(e)) == 0)
                fail("ol_check", "an empty list is stored");
            if (e->type == KS_STREAM && xs_check(ks_ptr(e), &why) < 0)
                fail("xs_check", why);
            if (e->type >= KS_TYPE_COUNT)
                fail("ks_check", "entry of unknown type");
        }
        if (n != ks_count(db))
            fail("ks_check", "walk and count disagree");
    }
}

int harness_file(int slot, const char **path)
{
    static int fds[2] = {-1, -1};
    static char paths[2][64];
    if (slot < 0 || slot > 1)
        fail("harness_file", "slot");
    if (fds[slot] < 0) {
        fds[slot] = memfd_create(slot ? "rbkv-fuzz-1" : "rbkv-fuzz-0", 0);
        if (fds[slot] < 0)
            fail("memfd_create", NULL);
        snprintf(paths[slot], sizeof(paths[slot]), "/proc/self/fd/%d", fds[slot]);
    }
    *path = paths[slot];
    return fds[slot];
}

void harness_file_fill(int fd, const uint8_t *data, size_t size)
{
    size_t done = 0;
    if (ftruncate(fd, 0) < 0)
        fail("ftruncate", NULL);
    while (done < size) {
        ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);
        if (w <= 0)
            fail("pwrite", NULL);
        done += (size_t)w;
    }
    /* For a writer using the fd's own offset. */
    if (lseek(fd, 0, SEEK_SET) < 0)
        fail("lseek", NULL);
}
