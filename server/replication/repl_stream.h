/*
 * repl_stream.h - replication's shared state (prefix repl_): this server's
 * replication ID and offset, the backlog, the replicas attached to it, and
 * the stream of writes they are sent.
 *
 * The stream is the writes this server makes, as RESP commands (feed.h):
 * the same commands the append-only log gets, with deadlines as absolute
 * PEXPIREATs, expiries as DEL, pops served to blocked clients as the pop
 * they were, transactions inside MULTI/EXEC. Its offset counts its bytes
 * from the start of the replication ID's history, as Redis's
 * master_repl_offset does; a replica applies the stream and passes on the
 * very bytes it applied (repl_feed_raw), so offsets agree along a chain and
 * after a failover.
 *
 * Owns: the backlog, the stream's encoder, and each replica's struct
 * repl_peer (freed with its client). The sides are repl_primary.c (serving
 * replicas) and repl_replica.c (following a primary), above it; repl.h is
 * the module they make.
 */
#ifndef RBKV_REPL_STREAM_H
#define RBKV_REPL_STREAM_H

#include <stdint.h>

#include "resp_writer.h"

struct client;
struct command;
struct db;
struct resp_slice;

enum peer_state {
    PEER_HANDSHAKE,      /* sent REPLCONF, no SYNC/PSYNC yet: not a replica */
    PEER_WAIT_SNAPSHOT,  /* wants a full sync; the next snapshot child serves it */
    PEER_SNAPSHOT,       /* its snapshot is being made and sent */
    PEER_WAIT_ACK,       /* snapshot sent ($EOF: form); the stream waits for its first ACK */
    PEER_ONLINE,         /* gets the stream as it is made */
};

/* What a primary knows of one replica (and, before SYNC/PSYNC, of a client
 * that sent REPLCONF). */
struct repl_peer {
    struct client *c;
    struct repl_peer *prev, *next; /* repl.peers, once it is a replica */
    enum peer_state state;
    int listening_port;          /* REPLCONF listening-port */
    char ip[64];                 /* REPLCONF ip-address, else its address's */
    int capa_eof, capa_rbkv;     /* REPLCONF capa: takes $EOF: framing; is rbkv */
    int rdb_only;                /* REPLCONF rdb-only 1 (redis-cli --rdb): the file, then close */
    int old_sync;                /* came by SYNC: no +FULLRESYNC, no ACKs */
    long long ack_offset;        /* last REPLCONF ACK */
    int64_t ack_ms;              /* when it came (the loop's clock) */
    struct resp_out held;        /* stream made while its snapshot is on the way */
};

struct repl_stats {
    unsigned long long sync_full, sync_partial_ok, sync_partial_err;
};

struct repl_state {
    char replid[41], replid2[41];
    long long offset;            /* master_repl_offset */
    long long second_offset;     /* replid2 holds up to here; -1 when none */
    struct backlog *backlog;     /* NULL until the first replica (or a sync as replica) */
    struct repl_peer *peers;     /* attached replicas, any state but HANDSHAKE */
    int peer_count;
    int64_t no_peers_since_ms;   /* for repl-backlog-ttl */
    struct repl_stats stats;
    /* The stream's offset at the end of its last write only rbkv reads (a
     * range deletion as itself, propagate.h's propagate_rbkv_effect); 0
     * when none. A replica that is not rbkv may not continue from before
     * it (repl_primary.c's can_continue). */
    long long rbkv_only_end;
    /* A replica that is not rbkv attached since the backlog was made: the
     * stream stays in plain Redis commands for as long as this history
     * lasts, so that it can still continue after its link was cut. */
    int plain_peers;
};

extern struct repl_state repl;

/* At start: a new replication ID, offset 0, the stream's encoder. */
void repl_stream_init(void);
/* At shutdown: frees the stream and the backlog. */
void repl_cleanup(void);
/* 40 random hex characters and a NUL into out (IDs, the $EOF: mark). */
void repl_random_hex(char *out);
/* A new replication ID with the old one as replid2, valid up to this offset
 * (a replica promoted, or a primary turned replica: Redis's shiftReplicationId). */
void repl_shift_replid(void);
/* A new random replication ID and none as replid2, keeping the offset and
 * the backlog (DEBUG CHANGE-REPL-ID: Redis's changeReplicationId and
 * clearReplicationId2), so no replica can continue on either old ID. */
void repl_change_replid(void);
/* Takes id (40 chars) and offset as our own, forgetting replid2 (after a
 * full sync from a primary). */
void repl_adopt(const char *id, long long offset);
/* The backlog, made now at repl-backlog-size if there is none. */
struct backlog *repl_backlog(void);
/* Frees the backlog and starts a new history (new ID, no replid2): nobody
 * can continue from the old one any more. */
void repl_free_backlog(void);
/* CONFIG SET repl-backlog-size: resizes the backlog keeping its newest bytes. */
void repl_backlog_resize(void);

/* Feeding the stream (only while this server is a primary). */
void repl_feed_command(struct db *db, const struct command *cmd, int argc,
                       const struct resp_slice *argv);
void repl_feed_argv(int db, int argc, const struct resp_slice *argv);
void repl_exec_begin(int db);
void repl_exec_end(void);
/* Whether the stream is kept (a backlog exists: a replica came since the
 * last repl-backlog-ttl), Redis's shouldPropagate for the replicas. */
int repl_stream_kept(void);
/* Whether a replica that did not say REPLCONF capa rbkv (a redis-server,
 * which needs the stream in plain Redis commands) attached in this history
 * (repl.plain_peers). */
int repl_stream_plain(void);
/* The write just fed is rbkv's own: notes the offset where it ends. */
void repl_stream_rbkv_only(void);
/* Bytes of the stream held for replicas whose snapshot is on its way
 * (outside their output): maxmemory leaves them out (evict.h). */
size_t repl_held_memory(void);
/* Bytes already in stream form: a replica passing on what it applied, a
 * primary's PING. Go to the backlog and every replica. */
void repl_feed_raw(const char *p, size_t n);
/* The same as a resp_out_drain emit function (ctx unused). */
void repl_feed_raw_cb(void *ctx, const char *p, size_t n);
/* The next entry starts with a SELECT (a new replica's snapshot leaves its
 * reader's database unknown). */
void repl_reselect(void);

/* A client's peer state, made at its first REPLCONF. */
struct repl_peer *repl_peer_of(struct client *c);
/* Lists c's peer as a replica in state st. */
void repl_peer_attach(struct repl_peer *p, enum peer_state st);
/* Redis's word for a replica's state (INFO replication, the shutdown's
 * log): wait_bgsave, send_bulk, online; "handshake" before SYNC/PSYNC. */
const char *repl_peer_state_name(enum peer_state st);
/* c is being freed: drops its peer, logging a replica's lost link in
 * Redis's words. */
void repl_peer_gone(struct client *c);
/* How the log names a replica, as Redis's replicationGetSlaveName: its
 * address (p->ip, which repl_primary_sync fills) and REPLCONF
 * listening-port ("ip:port"), into buf; returns buf. */
#define REPL_PEER_NAME_MAX 96
const char *repl_peer_name(const struct repl_peer *p, char *buf, size_t cap);

#endif
