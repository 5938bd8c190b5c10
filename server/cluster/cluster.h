/*
 * cluster.h - cluster mode's state (cluster.c): this node and the nodes it
 * knows, the slot map, the slots being migrated or imported, the epochs,
 * and whether the cluster is up, as Redis 7.0's clusterState.
 *
 * Owns: `cluster` (NULL unless cluster-enabled) and every node reachable
 * from it. The state is changed only through the functions below, after
 * which the caller says what must follow (a new cluster state, a save of
 * nodes.conf: cluster_config.h's cluster_changed); the bus learns nodes
 * and slots through the same calls.
 * Knows nothing of the bus's transport, of commands or of redirection
 * (cluster_route.c reads the state).
 *
 * Invariants: cluster->myself is in the node list; slots[s] is NULL or a
 * node of the list, whose numslots counts it; a replica's primary is in the
 * list (a forgotten primary leaves its replicas with none).
 */
#ifndef RBKV_CLUSTER_H
#define RBKV_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include "keyslot.h"

struct cluster_link;

#define CLUSTER_NAMELEN 40
#define CLUSTER_IPLEN 46 /* INET6_ADDRSTRLEN */

/* A node's flags, Redis's CLUSTER_NODE_* (nodes.conf names them). */
#define CNODE_MYSELF (1u << 0)
#define CNODE_MASTER (1u << 1)
#define CNODE_SLAVE (1u << 2)
#define CNODE_PFAIL (1u << 3)     /* "fail?": no answer within the node timeout */
#define CNODE_FAIL (1u << 4)      /* a majority of primaries agreed it failed */
#define CNODE_HANDSHAKE (1u << 5) /* met, not yet answered: its name is a placeholder */
#define CNODE_NOADDR (1u << 6)    /* its address is unknown */
#define CNODE_MEET (1u << 7)      /* send it a MEET, not a PING (never saved or shown) */
#define CNODE_MIGRATE_TO (1u << 8) /* has had replicas: one may migrate to it (never saved or sent) */
#define CNODE_NOFAILOVER (1u << 9)

struct cluster_node {
    char name[CLUSTER_NAMELEN + 1]; /* 40 hex digits */
    char ip[CLUSTER_IPLEN];         /* "" until known */
    int port, cport;                /* clients' and the bus's ports */
    int pport;                      /* the plaintext clients' port when port is the TLS
                                     * one (tls-cluster yes), else 0: as its messages say */
    char *hostname;                 /* owned; NULL when none announced */
    unsigned flags;                 /* CNODE_ */
    struct cluster_node *primary;   /* a replica's primary, or NULL */
    int64_t ping_sent, pong_received; /* unix ms, 0 = none */
    uint64_t config_epoch;
    int link_up;                    /* the bus has a link to it (always 1 for myself) */
    long long repl_offset;          /* as the bus last heard it */
    int numslots;
    int failure_reports;            /* primaries that flagged it PFAIL: reports[] */
    struct cluster_fail_report *reports; /* owned; failure_reports of them */
    struct cluster_link *link;         /* the bus's link to it (cluster_bus.h), or NULL */
    struct cluster_link *inbound_link; /* the link it opened to us, once it sent on it */
    int64_t ctime;                  /* unix ms it was created: a handshake times out */
    int64_t data_received;          /* unix ms of its last message */
    int64_t fail_time;              /* unix ms it was flagged FAIL */
    int64_t voted_time;             /* unix ms this node last voted for a replica of it */
    int64_t orphaned_time;          /* unix ms since it is a primary without working replicas */
};

/* A primary's word that a node is PFAIL or FAIL, as gossip carried it
 * (Redis's clusterNodeFailReport); it expires (cluster_failure.c). */
struct cluster_fail_report {
    struct cluster_node *reporter;
    int64_t time; /* unix ms of the latest such word */
};

#define CLUSTER_STATE_OK 0
#define CLUSTER_STATE_FAIL 1

struct cluster_state {
    struct cluster_node *myself;
    struct cluster_node **nodes; /* owned, node_count of them, in the order learned */
    int node_count, node_cap;
    struct cluster_node *slots[CLUSTER_SLOTS];
    struct cluster_node *migrating_to[CLUSTER_SLOTS];
    struct cluster_node *importing_from[CLUSTER_SLOTS];
    uint64_t current_epoch, last_vote_epoch;
    int state;    /* CLUSTER_STATE_ */
    int size;     /* primaries serving one slot at least */
    int64_t first_update_ms;   /* the first cluster_update_state, for the writable delay */
    int64_t among_minority_ms; /* when a majority of primaries was last out of reach */
    unsigned todo;      /* CLUSTER_TODO_ bits */
    /* A replica's election (cluster_failover.c, Redis's failover_auth_*). */
    int64_t failover_auth_time; /* unix ms the election starts or started */
    int failover_auth_count;    /* votes received */
    int failover_auth_sent;     /* the request is out */
    int failover_auth_rank;
    uint64_t failover_auth_epoch; /* the epoch the request was made in */
    /* A manual failover (Redis's mf_*): on both sides, mf_end is when it
     * gives up (0: none). A primary pauses writes for mf_replica; the
     * replica waits to reach mf_primary_offset (-1: not heard yet). */
    int64_t mf_end;
    struct cluster_node *mf_replica;
    long long mf_primary_offset;
    int mf_can_start;
};

extern struct cluster_state *cluster;

/* What a change asks to follow (cluster_changed). */
#define CLUSTER_TODO_UPDATE_STATE (1u << 0)
#define CLUSTER_TODO_SAVE (1u << 1)
/* With CLUSTER_TODO_SAVE: fsync nodes.conf and its folder. Set exactly
 * where Redis 7.0 sets CLUSTER_TODO_FSYNC_CONFIG or saves with fsync: an
 * epoch taken or learnt, a vote cast, an election started, slots taken
 * from a node of a lower epoch, a role won by failover, start, RESET and
 * SAVECONFIG. Other changes (SETSLOT, ADDSLOTS, FAIL flags, addresses)
 * are saved without it: the cluster tells a node that lost them again. */
#define CLUSTER_TODO_FSYNC (1u << 2)

/* At shutdown: frees the state and every node; cluster is NULL after. */
void cluster_free(void);

/* ---- The nodes ---- */
/* A new node named name (40 chars; NULL: a random name), with flags, not
 * yet in the list; the caller adds it (cluster_add_node) or frees it. */
struct cluster_node *cluster_node_new(const char *name, unsigned flags);
void cluster_node_free(struct cluster_node *n);
/* Adds n to the list, which owns it from then on. */
void cluster_add_node(struct cluster_node *n);
/* The node named name[0..len), or NULL. */
struct cluster_node *cluster_lookup(const char *name, size_t len);
/* Registers fn, called with a node about to be forgotten (cluster_del_node),
 * before its memory goes: the bus closes its links. */
typedef void cluster_node_gone_fn(struct cluster_node *n);
void cluster_on_node_gone(cluster_node_gone_fn *fn);
/* Forgets n (never myself): its slots become unassigned, migrations to or
 * from it closed, its replicas left without a primary; frees it. */
void cluster_del_node(struct cluster_node *n);
/* Sets n's address (ip may be NULL: unchanged; hostname NULL or "": none). */
void cluster_node_set_addr(struct cluster_node *n, const char *ip, int port, int cport,
                           const char *hostname);
/* Makes n a replica of primary (NULL: a primary). A primary given a
 * replica, or a replica turned primary (not myself), is flagged
 * CNODE_MIGRATE_TO, as Redis: a replica may migrate to it once orphaned. */
void cluster_node_set_primary(struct cluster_node *n, struct cluster_node *primary);
/* Failure reports on n: reporter's is added or refreshed to now, or
 * removed (returns 1 when there was one). */
void cluster_node_add_report(struct cluster_node *n, struct cluster_node *reporter, int64_t now);
int cluster_node_del_report(struct cluster_node *n, const struct cluster_node *reporter);
/* The node whose slots n serves: n, or its primary when a replica. */
struct cluster_node *cluster_node_owner(struct cluster_node *n);
/* How many replicas n has. */
int cluster_replica_count(const struct cluster_node *n);
/* The config epoch that counts for n: its own, or its primary's for a
 * replica (Redis's nodeEpoch). */
uint64_t cluster_node_epoch(const struct cluster_node *n);

/* ---- The slot map ---- */
/* Gives slot to n; -1 when someone holds it already. */
int cluster_add_slot(struct cluster_node *n, int slot);
/* Makes slot unassigned (and closes an import of it); -1 when it was. */
int cluster_del_slot(int slot);
/* Unassigns every slot of n; returns how many. */
int cluster_del_node_slots(struct cluster_node *n);
/* Redis's UPDATE/claim rule for the bus: n, at config epoch epoch, serves
 * slot unless its present owner has a greater epoch; returns 1 if taken. */
int cluster_claim_slot(struct cluster_node *n, int slot, uint64_t epoch);

/* Whether db 0 holds a key of slot. A walk of every key for now: the
 * per-slot key index (data/, ks_slot_count) answers it in O(1) once wired. */
int cluster_slot_has_keys(int slot);
/* Deletes every key of slot in db 0 (a slot this primary lost), each
 * propagated as DEL and notified; returns how many. */
size_t cluster_del_slot_keys(int slot);

/* ---- Epochs and the cluster's state ---- */
/* The greatest config epoch known, or the current epoch if greater. */
uint64_t cluster_max_epoch(void);
/* CLUSTER BUMPEPOCH: myself takes a new config epoch unless its own is
 * already the only greatest; returns 1 when bumped (then save). */
int cluster_bump_epoch(void);
/* Redis's clusterUpdateState: ok when every slot is served by a node not
 * FAIL (or cluster-require-full-coverage is no) and a majority of the
 * slot-serving primaries is reachable; a primary stays fail for its first
 * 2 s, and for the rejoin delay after it last saw no majority (none serve
 * a slot counts too). Called after each change and by the cron while fail. */
void cluster_update_state(void);

#endif
