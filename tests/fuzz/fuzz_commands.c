/*
 * fuzz_commands.c - libFuzzer target for the whole command layer: the
 * dispatcher, every command's handler, MULTI/EXEC/WATCH, blocking pops and
 * the keyspace under them, run in-process against the real server state
 * (harness.h) with HARNESS_DATABASES databases.
 *
 * Scripts run too (EVAL and kin, SCRIPT): their bodies come from the input
 * (the dictionary holds Lua pieces), their redis.calls go through the same
 * dispatcher, and one still running after HARNESS_SCRIPT_MS is stopped.
 *
 * Input: a RESP request stream, as a client would send it (multibulk or
 * inline), cut into requests by the real parser with default limits; a
 * protocol error ends the input, as it closes a connection. Three clients
 * share the keyspace; a request "@0", "@1" or "@2" (argc 1) is not sent but
 * makes that client the sender of the requests after it (client 0 first),
 * and "@cron" runs what the server's timer would between requests: active
 * expiry of up to 64 due keys per database (ks_expire_due).
 * A request for a client that is blocked is dropped (a real one would wait
 * for its wake-up), and one that asked to close (QUIT) is replaced by a new
 * client, as after a disconnect.
 *
 * Checked, aborting on a violation: after every request, every database
 * passes ks_check and every sorted set zs_check, and no reply buffer failed.
 * After the input the clients are freed as on disconnect and the databases
 * flushed, so nothing accumulates between inputs and LeakSanitizer sees
 * every leak.
 *
 * Not deterministic in one respect: expiry uses the wall clock, so a key
 * set to expire in a few milliseconds may or may not be there when the next
 * request runs. No timer runs (no loop turn), so blocked clients never time
 * out, and commands that fork, write files, change the config or kill
 * connections answer an error (harness.c).
 *
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocking.h"
#include "client.h"
#include "clock.h"
#include "command.h"
#include "harness.h"
#include "keyspace.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"

#define CLIENTS 3
#define MAX_REQUESTS 4096 /* per input, so a long one cannot time out */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* "@<digit>": the client that sends what follows, or -1 for a request. */
static int switch_to(const struct resp_request *req)
{
    const struct resp_slice *a = &req->argv[0];
    if (req->argc != 1 || a->len != 2 || a->ptr[0] != '@' || a->ptr[1] < '0' ||
        a->ptr[1] >= '0' + CLIENTS)
        return -1;
    return a->ptr[1] - '0';
}

static int is_cron(const struct resp_request *req)
{
    return req->argc == 1 && req->argv[0].len == 5 && memcmp(req->argv[0].ptr, "@cron", 5) == 0;
}

static void cron(void)
{
    for (int i = 0; i < server.ks->count; i++)
        ks_expire_due(&server.ks->dbs[i], mstime(), 64);
    harness_check_keyspace(server.ks);
}

static void run(struct client **clients, int who, const struct resp_request *req)
{
    struct client *c = clients[who];
    if (c->blocked)
        return;
    c->argc = req->argc;
    c->argv = req->argv;
    harness_execute(c);
    c->argc = 0;
    c->argv = NULL;
    /* Clients whose wait ended have their reply; their next requests come
     * from the stream, so only the resume queue is drained. */
    while (block_next_unblocked())
        ;
    for (int i = 0; i < CLIENTS; i++) {
        if (clients[i]->out.failed)
            abort();
        resp_out_reset(&clients[i]->out);
    }
    if (c->flags & CLIENT_CLOSE_AFTER_REPLY) {
        harness_client_free(c);
        clients[who] = harness_client_new();
    }
    harness_check_keyspace(server.ks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct client *clients[CLIENTS];
    struct resp_parser parser;
    struct resp_request req;
    int who = 0, requests = 0;

    harness_init();
    for (int i = 0; i < CLIENTS; i++)
        clients[i] = harness_client_new();
    if (resp_parser_init(&parser, NULL) < 0 || resp_parser_feed(&parser, (const char *)data, size) < 0)
        abort();
    while (requests++ < MAX_REQUESTS && resp_parser_next(&parser, &req) == RESP_REQUEST) {
        int to = switch_to(&req);
        if (to >= 0)
            who = to;
        else if (is_cron(&req))
            cron();
        else
            run(clients, who, &req);
    }
    resp_parser_destroy(&parser);
    for (int i = 0; i < CLIENTS; i++)
        harness_client_free(clients[i]);
    harness_reset();
    harness_check_keyspace(server.ks);
    if (server.clients || block_count())
        abort();
    return 0;
}
