/*
 * client.h - one connected client (struct client) and its flags.
 *
 * Ownership: a client owns its handle, parser, output buffer and name; it is
 * freed only from its handle's close callback (libuv's rule), by conn.c.
 * Command handlers read the client's argument slices, which are borrowed
 * from the parser until the handler returns, and write their reply into
 * c->out; they never touch a socket.
 */
#ifndef RBKV_CLIENT_H
#define RBKV_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "resp_parser.h"
#include "resp_writer.h"

struct db;
struct acl_user;
struct command;
struct reply_stream;
struct slowlog_entry;
struct postponed_request;
struct tls_conn;
struct tracking_client;

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
#define CLIENT_REPLICA (1u << 9)           /* on a primary: a replica's link (after SYNC/PSYNC), flag S */
#define CLIENT_MASTER (1u << 10)           /* on a replica: the link to its primary, flag M */
#define CLIENT_PUBSUB_PENDING (1u << 11)   /* pubsub.c: messages queued, sent at the loop turn's end */
#define CLIENT_STREAM_ENDED (1u << 12)     /* stream.c: its streamed reply is all in out; run what follows */
#define CLIENT_NO_TOUCH (1u << 13)         /* CLIENT NO-TOUCH: its reads leave keys' LRU/LFU state alone */
#define CLIENT_NO_EVICT (1u << 14)         /* CLIENT NO-EVICT: never closed to bring client memory down */
#define CLIENT_MONITOR (1u << 15)          /* monitor.c: receives every command run, flag O */
#define CLIENT_POSTPONED (1u << 16)        /* pause.c: its request waits for CLIENT PAUSE to end */
#define CLIENT_PROTECTED (1u << 17)        /* script.c: a busy script's caller: not read, close put off */
#define CLIENT_READ_YIELDED (1u << 18)     /* conn.c: had its read this loop turn, on its yielded list */
#define CLIENT_ASKING (1u << 19)           /* cluster: ASKING, for its next command only */
#define CLIENT_READONLY (1u << 20)         /* cluster: READONLY, reads served by a replica */
#define CLIENT_REPLY_OFF (1u << 21)        /* CLIENT REPLY OFF: replies dropped (c->out.muted) */
#define CLIENT_REPLY_SKIP_NEXT (1u << 22)  /* CLIENT REPLY SKIP: the next request's reply is dropped */
#define CLIENT_REPLY_SKIP (1u << 23)       /* this request's reply is dropped (was SKIP_NEXT) */
#define CLIENT_LOCAL_QUERY (1u << 24)      /* cluster: KLOCAL, ordered queries answer this node's keys */

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
    size_t mem_tracked;          /* conn.c: its memory as last added to maxmemory-clients' sum */
    const struct command *last_cmd; /* for CLIENT LIST cmd= */
    int64_t blocked_call_us;     /* the blocking call's own run time, for command_unblocked */
    struct slowlog_entry *blocked_entry; /* its slow log entry while it waits; owned, freed when the wait ends */

    struct resp_parser parser;
    struct resp_out out;          /* plaintext replies */
    struct tls_conn *tls;         /* tls.c: owned; NULL on a plaintext connection */
    void (*raw_read)(struct client *c, const char *p, ssize_t n); /* conn_read_raw's owner */
    /* Run by conn.c after each request of c's: the primary's link, whose
     * applied offset repl_replica.c counts; NULL for every other client. */
    void (*after_command)(struct client *c);

    /* The request being executed. */
    int argc;
    struct resp_slice *argv;

    struct multi_state *multi;   /* multi.c: the queue, NULL when not in MULTI */
    size_t multi_mem;            /* multi.c: bytes the queue holds, kept as it grows (conn.c reads) */
    struct watcher *watching;    /* watch.c: this client's WATCHed keys */
    struct block_wait *blocked;  /* blocking.c: what it waits for, NULL when not blocked */
    struct client *unblocked_next; /* blocking.c: next whose requests are due to resume */
    struct repl_peer *repl;      /* repl.c: what a replica (or one in its handshake) told us */
    struct pubsub_client *pubsub; /* pubsub.c: its subscriptions, NULL when none ever */
    struct tracking_client *tracking; /* tracking.c: CLIENT TRACKING's state, NULL when never on */
    struct reply_stream *stream; /* stream.c: the reply being streamed, NULL when none */
    struct postponed_request *postponed; /* pause.c: its request held by CLIENT PAUSE, or NULL */

    /* acl.c: the user it acts as, owned there; the default user until
     * AUTH. NULL for the log's replay and the primary's link, which ACLs
     * never limit. */
    struct acl_user *user;

    struct client *prev, *next;  /* server.clients list */
    struct client *yield_prev, *yield_next; /* conn.c: clients to read again next turn */
};

#endif
