/*
 * cluster_msg.h - the cluster bus's messages, byte for byte as redis-server
 * 7.0.15 writes and reads them (prefix cluster_msg_): the 2,256-byte header
 * ("RCmb", version 1), the bodies of every type (PING/PONG/MEET gossip and
 * their extensions, FAIL, PUBLISH/PUBLISHSHARD, UPDATE, FAILOVER_AUTH_
 * REQUEST/ACK, MFSTART, MODULE), the checks Redis makes before it processes a
 * message, and the framing of a byte stream into messages.
 *
 * Bytes in, native values out, and back: no socket, no libuv, no clock, no
 * server state, no allocation, so the bus's links, the unit tests and the
 * fuzz target (tests/fuzz/fuzz_cluster_bus.c) run the same code. Every
 * multi-byte integer on the wire is big-endian; the structs here hold host
 * order. Node names are 40 bytes without a NUL (Redis prints them %.40s);
 * the slot bitmaps are Redis's: slot s is bit (s & 7) of byte s / 8.
 *
 * Ownership: cluster_msg_decode borrows the caller's buffer. Gossip entries,
 * extensions, a PUBLISH's channel and message and a MODULE payload are
 * pointers into it, valid as long as it is; nothing is allocated. The
 * encoders write into a buffer of the caller's of exactly the size the
 * matching cluster_msg_len_* function gives.
 *
 * Redis 7.0's checks are kept, and a few of its gaps closed (docs/cluster.md,
 * "The bus"): lengths are summed in 64 bits (Redis's 32-bit sums of a
 * PUBLISH's lengths can wrap), no extension header is read past totlen, an
 * extension shorter than its own 8-byte header and a hostname without its
 * NUL are refused.
 */
#ifndef RBKV_CLUSTER_MSG_H
#define RBKV_CLUSTER_MSG_H

#include <stddef.h>
#include <stdint.h>

#define CLUSTER_MSG_NAMELEN 40     /* a node name: 40 hex digits, no NUL */
#define CLUSTER_MSG_SLOTS 16384
#define CLUSTER_MSG_SLOT_BYTES (CLUSTER_MSG_SLOTS / 8)
#define CLUSTER_MSG_IPLEN 46       /* Redis's NET_IP_STR_LEN, with its NUL */
#define CLUSTER_MSG_VERSION 1
#define CLUSTER_MSG_PREFIX_LEN 8   /* signature and totlen: what framing reads first */
#define CLUSTER_MSG_HEADER_LEN 2256 /* Redis's CLUSTERMSG_MIN_LEN */
#define CLUSTER_MSG_GOSSIP_LEN 104 /* one clusterMsgDataGossip */
#define CLUSTER_MSG_EXT_HEADER_LEN 8

/* Message types (clusterMsg.type). */
enum cluster_msg_type {
    CLUSTER_MSG_PING = 0,
    CLUSTER_MSG_PONG = 1,
    CLUSTER_MSG_MEET = 2,
    CLUSTER_MSG_FAIL = 3,
    CLUSTER_MSG_PUBLISH = 4,
    CLUSTER_MSG_FAILOVER_AUTH_REQUEST = 5,
    CLUSTER_MSG_FAILOVER_AUTH_ACK = 6,
    CLUSTER_MSG_UPDATE = 7,
    CLUSTER_MSG_MFSTART = 8,
    CLUSTER_MSG_MODULE = 9,
    CLUSTER_MSG_PUBLISHSHARD = 10,
    CLUSTER_MSG_TYPE_COUNT = 11, /* a type at or above it is unknown: Redis ignores it */
};

/* mflags[0] bits. */
#define CLUSTER_MSG_FLAG0_PAUSED 0x01   /* primary paused for a manual failover */
#define CLUSTER_MSG_FLAG0_FORCEACK 0x02 /* vote even though the primary is up */
#define CLUSTER_MSG_FLAG0_EXT_DATA 0x04 /* extensions follow the gossip */

/* Ping extension types Redis 7.0.15 defines (it ignores the others). */
#define CLUSTER_MSG_EXT_HOSTNAME 0

/* The header, in host order. On encoding, totlen, count and extensions are
 * computed and the values here ignored; the EXT_DATA bit of mflags[0] is set
 * exactly when extensions are written. */
struct cluster_msg_hdr {
    uint32_t totlen;
    uint16_t ver;
    uint16_t port;  /* the sender's client port (TLS port when clients use TLS) */
    uint16_t type;  /* enum cluster_msg_type, or an unknown one when decoded */
    uint16_t count; /* PING/PONG/MEET: gossip entries */
    uint64_t current_epoch;
    uint64_t config_epoch; /* the sender's, or its primary's when a replica */
    uint64_t offset;       /* replication offset */
    char sender[CLUSTER_MSG_NAMELEN];
    unsigned char myslots[CLUSTER_MSG_SLOT_BYTES];
    char slaveof[CLUSTER_MSG_NAMELEN]; /* all zeros for a primary */
    char myip[CLUSTER_MSG_IPLEN + 1];  /* announced IP; "" asks the peer to take the socket's.
                                        * Decoded: the wire's 46 bytes and a NUL after them */
    uint16_t extensions;
    uint16_t pport; /* plaintext client port when port is TLS's */
    uint16_t cport; /* bus port */
    uint16_t flags; /* the sender's node flags */
    uint8_t state;  /* 0 ok, 1 fail, in the sender's view */
    uint8_t mflags[3];
};

/* One gossip entry: what the sender knows of another node. */
struct cluster_msg_gossip {
    char nodename[CLUSTER_MSG_NAMELEN];
    uint32_t ping_sent;     /* seconds (Redis sends its milliseconds / 1000) */
    uint32_t pong_received; /* seconds */
    char ip[CLUSTER_MSG_IPLEN + 1]; /* decoded: the wire's 46 bytes and a NUL; encoded: its
                                     * first 46 bytes as they are (zeros after the text, as
                                     * Redis sends) */
    uint16_t port;
    uint16_t cport;
    uint16_t flags;
    uint16_t pport;
};

/* One ping extension, borrowed from the decoded buffer. */
struct cluster_msg_ext {
    uint16_t type;
    const unsigned char *data; /* after the 8-byte extension header */
    uint32_t len;              /* bytes at data, padding included */
};

/* A decoded message: the header, and the body its type has. Pointers are
 * into the buffer given to cluster_msg_decode. */
struct cluster_msg {
    struct cluster_msg_hdr hdr;
    union {
        struct { /* PING, PONG, MEET */
            const unsigned char *gossip; /* hdr.count entries; cluster_msg_gossip_at */
            const unsigned char *ext;    /* the extensions; cluster_msg_ext_next */
            uint32_t ext_len;            /* bytes of them; 0 without EXT_DATA */
            uint16_t ext_count;          /* hdr.extensions, or 0 without EXT_DATA */
            const char *hostname;        /* the hostname extension's text, or NULL */
            size_t hostname_len;         /* up to its NUL */
        } ping;
        struct { /* FAIL */
            char nodename[CLUSTER_MSG_NAMELEN]; /* the node that failed */
        } fail;
        struct { /* PUBLISH, PUBLISHSHARD */
            const char *channel;
            uint32_t channel_len;
            const char *message;
            uint32_t message_len;
        } publish;
        struct { /* UPDATE */
            uint64_t config_epoch;
            char nodename[CLUSTER_MSG_NAMELEN]; /* the slots' owner */
            unsigned char slots[CLUSTER_MSG_SLOT_BYTES];
        } update;
        struct { /* MODULE: decoded so that the caller can ignore it */
            unsigned char module_id[8]; /* as sent: Redis does not swap it */
            uint8_t type;
            const unsigned char *payload;
            uint32_t len;
        } module;
    } body;
};

/* Why a message was refused (cluster_msg_decode, cluster_msg_frame). */
enum cluster_msg_status {
    CLUSTER_MSG_OK = 0,
    CLUSTER_MSG_ESHORT = -1,     /* fewer bytes than a header, or than totlen says */
    CLUSTER_MSG_ESIG = -2,       /* not "RCmb" */
    CLUSTER_MSG_EVERSION = -3,   /* not version 1 */
    CLUSTER_MSG_ELENGTH = -4,    /* totlen is not what the type's body needs */
    CLUSTER_MSG_EEXT = -5,       /* a ping extension of a bad length or shape */
    CLUSTER_MSG_ETOOBIG = -6,    /* framing: totlen above the caller's limit */
};

/* Framing a byte stream: p[0..have) is what a link holds of the next message.
 * Sets *want to how many bytes that message takes in all, as far as they tell
 * (CLUSTER_MSG_PREFIX_LEN until the prefix is in, then totlen). Returns 1
 * when have >= *want (a whole message: decode p[0..*want), the rest starts
 * the next), 0 when more bytes are needed, or a negative enum
 * cluster_msg_status, as Redis closes the link: a bad signature, a totlen
 * below CLUSTER_MSG_HEADER_LEN, or one above max_len (Redis has no upper
 * limit; the link's owner picks one). why[0..why_cap) gets a text for the
 * log on a refusal (why may be NULL). */
int cluster_msg_frame(const void *p, size_t have, uint32_t max_len, uint32_t *want, char *why,
                      size_t why_cap);

/* Decodes the whole message p[0..len) into *m, checking what Redis checks
 * before it acts on one: the signature, version 1, totlen equal to len, and
 * totlen equal to what the type's body needs (the gossip count, each
 * extension's length, a PUBLISH's lengths, a MODULE's length). A type
 * Redis does not know is accepted with no body, as Redis does. Returns
 * CLUSTER_MSG_OK, or a negative enum cluster_msg_status with a text for the
 * log in why[0..why_cap) (why may be NULL): the link that sent it is closed.
 * *m borrows p. */
int cluster_msg_decode(const void *p, size_t len, struct cluster_msg *m, char *why,
                       size_t why_cap);
/* Entry i (< m->hdr.count) of a decoded PING, PONG or MEET's gossip. */
void cluster_msg_gossip_at(const struct cluster_msg *m, uint16_t i, struct cluster_msg_gossip *g);
/* Walks a decoded PING, PONG or MEET's extensions: *pos starts at 0. Returns
 * 1 with *e set to the next one, 0 after the last (at once for other types). */
int cluster_msg_ext_next(const struct cluster_msg *m, uint32_t *pos, struct cluster_msg_ext *e);
/* The name of a message type, as Redis logs it ("ping", "fail", ...), or
 * "unknown". */
const char *cluster_msg_type_name(uint16_t type);

/* The size of each message to encode. */
size_t cluster_msg_len_ping(uint16_t count, size_t hostname_len);
size_t cluster_msg_len_publish(uint32_t channel_len, uint32_t message_len);
size_t cluster_msg_len_module(uint32_t len);
#define CLUSTER_MSG_LEN_FAIL (CLUSTER_MSG_HEADER_LEN + CLUSTER_MSG_NAMELEN)
#define CLUSTER_MSG_LEN_UPDATE                                                                    \
    (CLUSTER_MSG_HEADER_LEN + 8 + CLUSTER_MSG_NAMELEN + CLUSTER_MSG_SLOT_BYTES)

/* The encoders: each writes h (its type chooses among the types the function
 * encodes) and the body into out, which holds exactly the size above, as
 * redis-server 7.0.15 builds the message, reserved and padding bytes zero.
 * Each returns the bytes written. */
/* PING, PONG or MEET: count gossip entries, then, when hostname_len > 0, the
 * hostname extension (the text, a NUL, zeros to a multiple of 8). */
size_t cluster_msg_encode_ping(void *out, const struct cluster_msg_hdr *h,
                               const struct cluster_msg_gossip *gossip, uint16_t count,
                               const char *hostname, size_t hostname_len);
/* FAIL about nodename. */
size_t cluster_msg_encode_fail(void *out, const struct cluster_msg_hdr *h, const char *nodename);
/* PUBLISH or PUBLISHSHARD. */
size_t cluster_msg_encode_publish(void *out, const struct cluster_msg_hdr *h, const char *channel,
                                  uint32_t channel_len, const char *message, uint32_t message_len);
/* UPDATE: nodename owns slots at config_epoch. */
size_t cluster_msg_encode_update(void *out, const struct cluster_msg_hdr *h, uint64_t config_epoch,
                                 const char *nodename, const unsigned char *slots);
/* MODULE. */
size_t cluster_msg_encode_module(void *out, const struct cluster_msg_hdr *h,
                                 const unsigned char module_id[8], uint8_t type,
                                 const void *payload, uint32_t len);
/* The header alone: FAILOVER_AUTH_REQUEST, FAILOVER_AUTH_ACK, MFSTART
 * (CLUSTER_MSG_HEADER_LEN bytes). */
size_t cluster_msg_encode_bare(void *out, const struct cluster_msg_hdr *h);

#endif
