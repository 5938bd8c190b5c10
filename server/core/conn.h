/*
 * conn.h - listening, accepting, reading requests and writing replies
 * (conn.c).
 */
#ifndef RBKV_CONN_H
#define RBKV_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct client;

int conn_listen(void);
/* Listens on the port (tls-port when is_tls) server.cfg now names, 0 for
 * none, then stops listening on the old one; connections stay. Returns 0, or
 * -1 (logged) with the old port still listening. */
int conn_relisten(int is_tls);
/* After a change of `bind`: stops listening on the old addresses, then
 * listens on port and tls-port at the new ones (Redis's applyBind: the same
 * port may not be bound twice). Returns 0, or -1 (logged) with some or none
 * of them listening: the caller sets `bind` back and calls it again. */
int conn_rebind(void);
void conn_close_listeners(void);
/* In a forked child: closes its copies of the listening sockets without
 * libuv (server_child_close_listeners). */
void conn_close_listener_fds(void);
void conn_close(struct client *c);
/* Unlists c and frees it with what it owns (its transaction and WATCHes
 * too), once its handle is closed or for a client that never had one (the
 * fuzz harness's). Its wait must be gone already (conn_close ends it). */
void conn_client_free(struct client *c);
/* Appends c to server.clients, which runs oldest first as Redis's list: for
 * a client made outside conn.c (the fuzz harness's); conn_client_free
 * unlists it. */
void conn_list_client(struct client *c);
void conn_close_all(void);
void conn_cron(int64_t now_ms);
/* The largest query buffer and reply list a client held in the last few
 * seconds, sampled by conn_cron (INFO client_recent_max_*_buffer). */
void conn_recent_max_buffers(size_t *in, size_t *out);
struct client *conn_find(uint64_t id);
/* Re-reads the parser limits for c (after AUTH, or a limit's CONFIG SET). */
void conn_update_limits(struct client *c);
/* Sends what c's output holds, from outside its own requests (the stream a
 * replica is owed). */
void conn_send(struct client *c);
/* Closes c when its output is over its class's limit (client-output-
 * buffer-limit); returns 1 when it did. */
int conn_check_output_limits(struct client *c);
/* Runs the whole requests c's parser holds and sends the replies (bytes
 * fed to it by hand: what followed a replica's snapshot). */
void conn_process_input(struct client *c);
/* Starts (or resumes) reading and running c's requests. */
void conn_start_reading(struct client *c);
/* A listed client with an initialised TCP handle and nothing read yet, for
 * a connection we make (a replica's link to its primary), over TLS when tls
 * (its ClientHello goes with the first conn_send after the connect); NULL
 * when out of memory or TLS is not configured. Closed with conn_close like
 * any other. */
struct client *conn_new_outgoing(int tls);
/* Called with each piece of plaintext read from c (n > 0), or with n < 0 a
 * libuv error (UV_EOF, UV_EPROTO for a TLS failure, logged) after which c
 * must be closed. */
typedef void conn_bytes_fn(struct client *c, const char *p, ssize_t n);
/* Starts reading c for its owner, which parses the bytes itself (a replica's
 * link before its stream), decrypted when c is over TLS. The owner hands c to
 * the request path with uv_read_stop and conn_start_reading. Returns 0 or a
 * libuv error. */
int conn_read_raw(struct client *c, conn_bytes_fn *on_bytes);
/* Fills c->addr and c->laddr from its connected TCP handle. */
void conn_name_peers(struct client *c);
/* Whether c came through the unix socket or from a loopback address
 * (Redis's islocalClient; an unknown peer is not local). */
int conn_is_local(const struct client *c);
/* Bytes c holds, what Redis's getClientMemoryUsage counts: its struct, its
 * query buffer with the running request's arguments (their slices and
 * bytes live in the parser's memory, so argv is counted there once), its
 * MULTI queue and its pending replies. MEMORY STATS' clients.normal and
 * clients.slaves, INFO's mem_clients_*, CLIENT LIST's tot-mem, and what
 * maxmemory-clients adds up over the normal and pub/sub clients. */
size_t conn_client_memory(const struct client *c);

/* ---- Hooks: the transport knows no module ----
 * A module that keeps state per client, or that the request path must
 * consult, registers here at start (from its own init, or wiring.c for a
 * layer below core), so conn.c calls it through a pointer and includes none
 * of their headers (check_layers.sh holds it to that). Each hook costs the
 * paths it sits on one predictable branch. */

typedef void conn_client_fn(struct client *c);
/* fn runs for every client whose close starts (conn_close: what must end at
 * once, as a wait or a held request) or that is freed (conn_client_free:
 * what a module owns for it), in the order registered; registering fn
 * again does nothing. Called from the loop thread only. */
void conn_on_closing(conn_client_fn *fn);
void conn_on_gone(conn_client_fn *fn);
/* The dispatcher, which runs the request in c->argc/argv (command.c's
 * command_execute, registered by command_table_init): the transport sits
 * below it and calls it only through this. Must be set before a client is
 * read. */
void conn_on_request(conn_client_fn *fn);
/* Runs the request in c->argc/argv through that dispatcher: for a request
 * that waited outside the read path (pause.c's, held by CLIENT PAUSE). */
void conn_dispatch(struct client *c);
/* Tops c's output up from its streamed reply (stream.c's stream_top_up,
 * registered by stream_init), called while c->stream is set. */
void conn_on_top_up(conn_client_fn *fn);
/* What the transport asks of the users (acl.c's answers, registered by
 * lifecycle.c): the user a new client acts as, whether the default user
 * has a password (the parser's smaller caps before AUTH), and whether it
 * takes any password (protected mode). Unset: no user, no caps. */
struct acl_user;
struct conn_auth {
    struct acl_user *(*default_user)(void);
    int (*requires_auth)(void);
    int (*no_password)(void);
};
void conn_on_auth(const struct conn_auth *auth);
/* fn runs after the loop's own callbacks ran a client's requests (a read,
 * a write's end): blocking.c's, which runs the requests of the clients they
 * woke up, so one client's requests never run nested in another's. */
void conn_on_requests_ran(void (*fn)(void));
/* Whether c, which has pub/sub state (c->pubsub), is subscribed now: its
 * output then counts against client-output-buffer-limit pubsub. pubsub.c
 * registers it. */
typedef int conn_client_test_fn(const struct client *c);
void conn_on_subscriber_test(conn_client_test_fn *fn);
/* The append-only log's part in sending replies: persist/ is below core
 * and knows no connection, so the start-up wiring (wiring.c) fills this
 * with persist/group_commit.c's functions and registers conn_release_held
 * as what its turn-end sync calls; unset, replies never wait for a log.
 * A batch that fed the log under appendfsync always keeps its replies until
 * one write and fsync at the loop turn's end covered it, and a failed sync
 * closes its client unanswered. */
struct conn_log {
    unsigned long long (*mark)(void);      /* before a batch */
    int (*after)(unsigned long long mark); /* 0: send; 1: hold until the sync; -1: close */
    int (*sync)(void);                     /* now (shutdown): 0, or -1 when it failed */
};
/* log must outlive the server; NULL unsets. */
void conn_on_log(const struct conn_log *log);
/* The log's turn-end sync ran: sends the held replies and goes on with
 * their clients' requests, or, when it failed, closes those clients
 * unanswered. */
void conn_release_held(int failed);
/* Writes c's CLIENT LIST line into buf (clientinfo.c's client_info_line,
 * registered by lifecycle.c), for the log lines that name a client Redis's
 * way: one closed for its output limits, one evicted by maxmemory-clients.
 * Unset: its id and address. */
typedef void conn_describe_fn(const struct client *c, char *buf, size_t len);
void conn_on_describe(conn_describe_fn *fn);

#endif
