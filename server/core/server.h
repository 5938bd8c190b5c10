/*
 * server.h - the one struct server (server.c), the state every part of the
 * server reads; its start, run and stop are lifecycle.h's.
 *
 * Ownership: the loop thread owns everything reachable from `server`.
 */
#ifndef RBKV_SERVER_H
#define RBKV_SERVER_H

#include <stdint.h>
#include <uv.h>

#include "config.h"

struct client;
struct keyspace;
struct watch_table;
struct block_table;

struct server_stats {
    unsigned long long total_connections;
    unsigned long long total_commands;
    unsigned long long rejected_connections;
    unsigned long long evicted_keys;
    unsigned long long evicted_clients; /* conn.c: closed by maxmemory-clients */
    unsigned long long keyspace_hits, keyspace_misses;
    unsigned long long net_input_bytes, net_output_bytes;
    unsigned long long error_replies;            /* errorstats.c: every error reply */
    unsigned long long unexpected_error_replies; /* to a primary, replica or the log's replay */
    unsigned long long output_limit_disconnects;
    /* INFO stats' I/O and active expiry figures (all cleared by CONFIG RESETSTAT) */
    unsigned long long total_reads, total_writes; /* read callbacks with data; writes done */
    unsigned long long expire_cycle_us;           /* time the active expiry took */
    unsigned long long expire_time_cap_reached;   /* slices that ran out of time */
    double expired_stale_perc; /* due keys the last slice left, in % of keys with a deadline */
};

struct server {
    uv_loop_t *loop;
    struct config cfg;
    char *config_file;           /* absolute path, owned, NULL when none */

    /* port's and tls-port's sockets, one per bind address; NULL when not
     * listening (conn.c, which replaces them on a CONFIG SET of the port). */
    struct listener_set *listeners, *tls_listeners;
    uv_pipe_t unix_listener;
    int unix_listening;
    uv_signal_t sigterm, sigint;
    uv_timer_t cron;             /* hz timer: active expiry, client timeouts */

    struct keyspace *ks;
    struct watch_table *watch;   /* watch.c: WATCHed keys, NULL while none */
    struct block_table *blocking; /* blocking.c: waited keys, NULL until a client blocks */

    struct client *clients;      /* list head */
    unsigned long long client_count;
    uint64_t next_client_id;

    int64_t cmd_start_us;        /* when the running command started (wall clock) */
    int active_expire_off;       /* DEBUG SET-ACTIVE-EXPIRE 0: only lookups delete due keys */
    unsigned long long dirty;    /* changes since the last save: every write command adds its count */
    unsigned long long effects_propagated; /* propagate_effects calls (propagate.h), ever */
    int shutting_down;
    /* A replica loading its primary's snapshot (replication/ sets it):
     * the dispatcher refuses what Redis refuses meanwhile. */
    enum server_loading { LOADING_NONE, LOADING_SYNC, LOADING_ASYNC } loading;
    int64_t start_ms;
    uint64_t cron_runs;
    char run_id[41];
    struct server_stats stats;
};

extern struct server server;

/* In a forked child (snapshot, log rewrite), before its long work: closes
 * its copies of the listening sockets without libuv, so a parent killed
 * meanwhile frees its ports at once. */
void server_child_close_listeners(void);
/* Adds a closing of listening sockets' fds (the transport's, the cluster
 * bus's) to what server_child_close_listeners runs; registered at start. */
void server_on_child_close(void (*fn)(void));
/* As Redis's adjustOpenFilesLimit(), at start and when CONFIG SET raises
 * maxclients: raises RLIMIT_NOFILE to maxclients plus a reserve. When the
 * system refuses, takes the most it allows and lowers maxclients to fit, with
 * log lines, so that a client over the real limit gets "max number of clients
 * reached" rather than a failed accept; then returns -1, else 0. */
int server_adjust_open_files_limit(void);

#endif
