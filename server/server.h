/*
 * server.h - the one struct server, clients, and the command table's shape.
 *
 * Ownership: the loop thread owns everything reachable from `server`. A
 * client owns its handle, parser, output buffer and name; it is freed only
 * from its handle's close callback (libuv's rule). Command handlers read the
 * client's argument slices, which are borrowed from the parser until the
 * handler returns, and write their reply into c->out; they never touch a
 * socket.
 */
#ifndef RBKV_SERVER_H
#define RBKV_SERVER_H

#include <stdint.h>
#include <stddef.h>
#include <uv.h>

#include "config.h"
#include "resp_parser.h"
#include "resp_writer.h"

struct keyspace;
struct db;

/* Client flags. */
#define CLIENT_CLOSE_AFTER_REPLY (1u << 0) /* QUIT, protocol error: close once replies are out */
#define CLIENT_CLOSING (1u << 1)           /* uv_close called; the struct dies in close_cb */
#define CLIENT_AUTHENTICATED (1u << 2)
#define CLIENT_READ_PAUSED (1u << 3)       /* output over the pause threshold */
#define CLIENT_UNIX (1u << 4)
#define CLIENT_WRITING (1u << 5)           /* a uv_write is in flight */
#define CLIENT_DIRTY_CAS (1u << 6)         /* a WATCHed key changed: EXEC answers nil */
#define CLIENT_UNBLOCKED (1u << 7)         /* its wait ended; its pipelined requests are due */
#define CLIENT_AWAIT_SYNC (1u << 8)        /* replies held until the log's fsync (appendfsync always) */

/* Unsent output beyond which we stop reading the client's requests until it
 * drains, when no hard output limit is configured: a pipelining client that
 * does not read cannot make us buffer its replies without bound. */
#define CLIENT_PAUSE_OUTPUT (1024 * 1024)

struct client {
    union {
        uv_handle_t handle;
        uv_stream_t stream;
        uv_tcp_t tcp;
        uv_pipe_t pipe;
    } h;
    uv_write_t write_req;
    size_t write_len;            /* bytes of the write in flight */

    uint64_t id;
    unsigned flags;
    int db_index;
    struct db *db;
    char *name;                  /* CLIENT SETNAME, owned; NULL when unset */
    char *lib_name, *lib_ver;    /* CLIENT SETINFO, owned */
    char addr[64];               /* "ip:port" of the peer */
    char laddr[64];              /* "ip:port" of our side */
    int64_t ctime_ms;            /* when it connected */
    int64_t last_interaction_ms; /* for `timeout` and CLIENT LIST idle */
    int64_t soft_limit_since_ms; /* when output first passed the soft limit, 0 = not over */
    const struct command *last_cmd; /* for CLIENT LIST cmd= */
    char last_sub[24];               /* its subcommand, lower case, for containers */

    struct resp_parser parser;
    struct resp_out out;

    /* The request being executed. */
    int argc;
    struct resp_slice *argv;

    struct multi_state *multi;   /* multi.c: the queue, NULL when not in MULTI */
    struct watcher *watching;    /* watch.c: this client's WATCHed keys */
    struct block_wait *blocked;  /* blocking.c: what it waits for, NULL when not blocked */
    struct client *unblocked_next; /* blocking.c: next whose requests are due to resume */

    struct client *prev, *next;  /* server.clients list */
};

/* Command flags, as in Redis's command table. */
#define CMD_WRITE (1u << 0)
#define CMD_READONLY (1u << 1)
#define CMD_DENYOOM (1u << 2)    /* refused when over maxmemory */
#define CMD_ADMIN (1u << 3)
#define CMD_NOAUTH (1u << 4)     /* allowed before AUTH */
#define CMD_FAST (1u << 5)
#define CMD_LOADING (1u << 6)
#define CMD_STALE (1u << 7)
#define CMD_NOSCRIPT (1u << 8)
#define CMD_PUBSUB (1u << 9)
#define CMD_CONTAINER (1u << 10) /* has subcommands: CLIENT LIST shows "name|sub" */

typedef void cmd_handler(struct client *c);

struct command {
    const char *name;            /* lower case */
    cmd_handler *proc;
    int arity;                   /* argc including the name; -N means at least N */
    unsigned flags;
    int first_key, last_key, key_step; /* key positions, as COMMAND INFO shows them */
    const char *group;           /* COMMAND DOCS group: "string", "keyspace", ... */
    const char *since;           /* COMMAND DOCS since */
    const char *summary;         /* COMMAND DOCS summary */
    const char *complexity;
    const char *args;            /* argument syntax for hints, e.g. "key value [NX|XX]" */
    /* Stats for INFO commandstats. */
    unsigned long long calls, usec, failed_calls;
};

struct server_stats {
    unsigned long long total_connections;
    unsigned long long total_commands;
    unsigned long long rejected_connections;
    unsigned long long evicted_keys;
    unsigned long long keyspace_hits, keyspace_misses;
    unsigned long long net_input_bytes, net_output_bytes;
    unsigned long long error_replies;
    unsigned long long output_limit_disconnects;
};

struct server {
    uv_loop_t *loop;
    struct config cfg;
    char *config_file;           /* absolute path, owned, NULL when none */

    uv_tcp_t listeners[CONFIG_MAX_BIND];
    int listener_count;
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
    unsigned long long dirty;    /* changes since the last save: every write command adds its count */
    int shutting_down;
    int64_t start_ms;
    uint64_t cron_runs;
    char run_id[41];
    struct server_stats stats;
};

extern struct server server;

/* Wall-clock milliseconds and microseconds. */
int64_t mstime(void);
int64_t ustime(void);

/* command.c */
const struct command *command_lookup(const char *name, size_t len);
void command_execute(struct client *c);
/* Runs an accepted request: the handler, its stats, and reporting the keys a
 * write changed to WATCH (EXEC runs its queue through this). */
void command_call(struct client *c, const struct command *found);
void command_table_init(void);
size_t command_count(void);
void command_reset_stats(void); /* CONFIG RESETSTAT */
const struct command *command_at(size_t i);
/* rename-command's side, in the table that owns the names.
 * command_check_renames: whether count pairs (as in struct config) apply in
 * order to the built-in names; 0, or -1 with the reason in err.
 * command_lookup_builtin: a command by its own name whatever the renames
 * (for internal callers such as replaying the append-only log); NULL when
 * there is none. */
int command_check_renames(char *const *renames, int count, char *err, size_t errlen);
const struct command *command_lookup_builtin(const char *name, size_t len);

/* conn.c */
int conn_listen(void);
void conn_close_listeners(void);
void conn_close(struct client *c);
/* Unlists c and frees it with what it owns (its transaction and WATCHes
 * too), once its handle is closed or for a client that never had one (the
 * fuzz harness's). Its wait must be gone already (conn_close ends it). */
void conn_client_free(struct client *c);
void conn_close_all(void);
void conn_cron(int64_t now_ms);
struct client *conn_find(uint64_t id);
/* Re-reads the parser limits for c (after AUTH, or a limit's CONFIG SET). */
void conn_update_limits(struct client *c);
/* Runs, oldest first, the requests pipelined behind a blocking one by the
 * clients whose wait ended (blocking.h), and sends their replies. Only from
 * the loop's own callbacks, so one client's requests never run nested in
 * another's. */
void conn_run_unblocked(void);

/* Error replies used across commands (Redis's exact texts). */
#define ERR_SYNTAX "ERR syntax error"
#define ERR_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"
#define ERR_NOT_INT "ERR value is not an integer or out of range"
#define ERR_NOT_FLOAT "ERR value is not a valid float"
#define ERR_OVERFLOW "ERR increment or decrement would overflow"
#define ERR_NO_SUCH_KEY "ERR no such key"
#define ERR_DB_INDEX "ERR DB index is out of range"
#define ERR_OOM "OOM command not allowed when used memory > 'maxmemory'."
#define ERR_NOAUTH "NOAUTH Authentication required."
#define ERR_WRONGPASS "WRONGPASS invalid username-password pair or user is disabled."

void reply_wrong_arity(struct client *c);
/* Key lookups for commands, with lazy expiry. lookup_read counts keyspace
 * hits and misses for INFO; lookup_write does not. */
struct ks_entry;
struct ks_entry *lookup_read(struct client *c, const struct resp_slice *key);
struct ks_entry *lookup_write(struct client *c, const struct resp_slice *key);
/* lookup_write that keeps the probe for a write of the key right after
 * (ks_set_string_probed), so the key is hashed and looked up once. */
struct ks_probe;
struct ks_entry *lookup_write_probe(struct client *c, const struct resp_slice *key,
                                    struct ks_probe *p);
void reply_ok(struct client *c);

/* Argument helpers: bounded parsing of slices. Each returns 0 on success;
 * the _or_reply forms send Redis's error on failure and return -1. */
int arg_is(const struct resp_slice *a, const char *word); /* case-insensitive equality */
int parse_ll(const char *p, size_t len, long long *out);
int parse_double(const char *p, size_t len, double *out);
int arg_ll_or_reply(struct client *c, const struct resp_slice *a, long long *out);
int arg_double_or_reply(struct client *c, const struct resp_slice *a, double *out);
/* A database number as SELECT, MOVE and COPY take it, with Redis's two
 * errors (not an int; no such database). */
int arg_db_or_reply(struct client *c, const struct resp_slice *a, struct db **db);
/* A copy of a slice as a NUL-terminated heap string; caller frees. */
char *arg_strdup(const struct resp_slice *a);

#endif
