/*
 * repl_replica.h - following a primary (prefix repl_replica_): the link's
 * connection, handshake, full or partial sync, applying the stream, ACKs.
 *
 * The link is a client (CLIENT_MASTER) made by conn_new_outgoing. Until the
 * sync is done it reads with its own callbacks: PING, AUTH, REPLCONF
 * listening-port / ip-address / capa, PSYNC <replid> <offset> with our own
 * history (so a server that was a primary, or followed another, continues
 * where the new primary's history allows), then the snapshot into a
 * temporary file. A snapshot that loads replaces the data at once; one that
 * does not (cut, corrupt, or not rbkv's) leaves the data as it was and the
 * link tries again. Then the link reads as any client does, and each command
 * it runs (repl_replica_applied) goes on, byte for byte, to this server's
 * backlog and replicas. A lost link retries with back-off.
 */
#ifndef RBKV_REPL_REPLICA_H
#define RBKV_REPL_REPLICA_H

#include <stdint.h>

struct client;

struct repl_link_status {
    const char *state;           /* ROLE's word: connect, connecting, sync, connected */
    int up;                      /* master_link_status */
    int sync_in_progress;
    int64_t last_io_ms;          /* the loop's clock, 0 never */
    int64_t down_since_ms;
    long long transferred;       /* bytes of the snapshot received so far */
};

/* At start; registers repl_replica_link_gone on the client-gone list. */
void repl_replica_init(void);
/* Closes the link and its timer (shutdown). */
void repl_replica_close(void);
/* Follows server.cfg.replicaof_host/port from now: drops any link, stops
 * expiring keys (the primary's DELs do it), connects from the loop. */
void repl_replica_start(void);
/* REPLICAOF NO ONE: drops the link; keys expire here again. */
void repl_replica_stop(void);
/* REPLICAOF host port: host (copied) and port become the primary we
 * follow (repl_replica_start). failover: our PSYNC to it says FAILOVER
 * (repl_failover.h) until it is answered. */
void repl_replica_follow(const char *host, int port, int failover);
/* REPLICAOF NO ONE: a primary again (repl_replica_stop). Returns 1, or 0
 * when this server was no replica. */
int repl_replica_unfollow(void);
/* cb learns how a FAILOVER's PSYNC was answered: accepted (+CONTINUE or
 * +FULLRESYNC) or not (an error, after which the link is closed). */
void repl_replica_on_failover_psync(void (*cb)(int accepted));
/* The client-gone hook (conn.h): does something only when c is the link's. */
void repl_replica_link_gone(struct client *c);
/* The link's client's after_command (client.h): it ran the command in
 * c->argc/argv. */
void repl_replica_applied(struct client *c);
/* REPLCONF GETACK from the primary: an ACK goes back after this command. */
void repl_replica_getack(void);
void repl_replica_cron(void);
void repl_replica_status(struct repl_link_status *st);
int repl_replica_link_up(void);
/* How old the primary's data here is, in ms (Redis's data_age of a cluster
 * replica): since the link's last I/O while it is up, else since it went
 * down; very large when it was never up. */
int64_t repl_replica_data_age(void);
/* Whether the primary's stream is inside a MULTI it has not EXECed yet. */
int repl_replica_in_transaction(void);
/* The database the primary's stream is in at our offset (its last SELECT):
 * saved with our position, where a partial resync resumes applying it. */
int repl_replica_stream_db(void);
/* At start, from the saved position: the next partial resync resumes in db. */
void repl_replica_resume_in(int db);

#endif
