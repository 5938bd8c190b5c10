/*
 * cluster_msg.c - the cluster bus's messages to and from bytes, as
 * redis-server 7.0.15 lays them out (cluster_msg.h says what is checked and
 * who owns what).
 *
 * The wire layout, from Redis's clusterMsg (offsets in bytes):
 *   0 sig "RCmb"      4 totlen u32     8 ver u16       10 port u16
 *  12 type u16       14 count u16     16 currentEpoch u64
 *  24 configEpoch u64  32 offset u64  40 sender[40]   80 myslots[2048]
 *  2128 slaveof[40]  2168 myip[46]    2214 extensions u16
 *  2216 reserved[30] 2246 pport u16   2248 cport u16  2250 flags u16
 *  2252 state u8     2253 mflags[3]   2256 the body
 * Gossip entry (104): nodename[40], ping_sent u32, pong_received u32,
 *   ip[46], port, cport, flags, pport, reserved (u16 each).
 * Extension: length u32 (header and padding included, a multiple of 8),
 *   type u16, reserved u16, then its data.
 * Bodies: FAIL nodename[40]; PUBLISH channel_len u32, message_len u32,
 *   channel, message; UPDATE configEpoch u64, nodename[40], slots[2048];
 *   MODULE module_id[8], len u32, type u8, payload.
 * Nothing here reads past len: every offset is checked against it first.
 */
#include "cluster_msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define OFF_TOTLEN 4
#define OFF_VER 8
#define OFF_PORT 10
#define OFF_TYPE 12
#define OFF_COUNT 14
#define OFF_CURRENT_EPOCH 16
#define OFF_CONFIG_EPOCH 24
#define OFF_OFFSET 32
#define OFF_SENDER 40
#define OFF_MYSLOTS 80
#define OFF_SLAVEOF 2128
#define OFF_MYIP 2168
#define OFF_EXTENSIONS 2214
#define OFF_PPORT 2246
#define OFF_CPORT 2248
#define OFF_FLAGS 2250
#define OFF_STATE 2252
#define OFF_MFLAGS 2253

#define G_PING_SENT 40
#define G_PONG_RECEIVED 44
#define G_IP 48
#define G_PORT 94
#define G_CPORT 96
#define G_FLAGS 98
#define G_PPORT 100

/* The fixed parts of the bodies whose sizes vary. */
#define PUBLISH_FIXED 8 /* channel_len, message_len */
#define MODULE_FIXED 13 /* module_id, len, type */

static const char SIGNATURE[4] = {'R', 'C', 'm', 'b'};

static uint16_t get16(const unsigned char *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const unsigned char *p)
{
    return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}

static int refuse(int status, char *why, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(int status, char *why, size_t cap, const char *fmt, ...)
{
    if (why && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, cap, fmt, ap);
        va_end(ap);
    }
    return status;
}

const char *cluster_msg_type_name(uint16_t type)
{
    static const char *const names[CLUSTER_MSG_TYPE_COUNT] = {
        [CLUSTER_MSG_PING] = "ping",
        [CLUSTER_MSG_PONG] = "pong",
        [CLUSTER_MSG_MEET] = "meet",
        [CLUSTER_MSG_FAIL] = "fail",
        [CLUSTER_MSG_PUBLISH] = "publish",
        [CLUSTER_MSG_FAILOVER_AUTH_REQUEST] = "auth-req",
        [CLUSTER_MSG_FAILOVER_AUTH_ACK] = "auth-ack",
        [CLUSTER_MSG_UPDATE] = "update",
        [CLUSTER_MSG_MFSTART] = "mfstart",
        [CLUSTER_MSG_MODULE] = "module",
        [CLUSTER_MSG_PUBLISHSHARD] = "publishshard",
    };
    return type < CLUSTER_MSG_TYPE_COUNT ? names[type] : "unknown";
}

int cluster_msg_frame(const void *p, size_t have, uint32_t max_len, uint32_t *want, char *why,
                      size_t why_cap)
{
    const unsigned char *b = p;
    if (have < CLUSTER_MSG_PREFIX_LEN) {
        *want = CLUSTER_MSG_PREFIX_LEN;
        return 0;
    }
    uint32_t totlen = get32(b + OFF_TOTLEN);
    if (memcmp(b, SIGNATURE, sizeof SIGNATURE) != 0)
        return refuse(CLUSTER_MSG_ESIG, why, why_cap,
                      "Bad message length or signature received from Cluster bus (signature)");
    if (totlen < CLUSTER_MSG_HEADER_LEN)
        return refuse(CLUSTER_MSG_ESHORT, why, why_cap,
                      "Bad message length or signature received from Cluster bus (%u bytes)",
                      totlen);
    if (totlen > max_len)
        return refuse(CLUSTER_MSG_ETOOBIG, why, why_cap,
                      "Cluster bus message of %u bytes, above the limit of %u", totlen, max_len);
    *want = totlen;
    return have >= totlen;
}

static void get_hdr(const unsigned char *b, struct cluster_msg_hdr *h)
{
    h->totlen = get32(b + OFF_TOTLEN);
    h->ver = get16(b + OFF_VER);
    h->port = get16(b + OFF_PORT);
    h->type = get16(b + OFF_TYPE);
    h->count = get16(b + OFF_COUNT);
    h->current_epoch = get64(b + OFF_CURRENT_EPOCH);
    h->config_epoch = get64(b + OFF_CONFIG_EPOCH);
    h->offset = get64(b + OFF_OFFSET);
    memcpy(h->sender, b + OFF_SENDER, CLUSTER_MSG_NAMELEN);
    memcpy(h->myslots, b + OFF_MYSLOTS, CLUSTER_MSG_SLOT_BYTES);
    memcpy(h->slaveof, b + OFF_SLAVEOF, CLUSTER_MSG_NAMELEN);
    memcpy(h->myip, b + OFF_MYIP, CLUSTER_MSG_IPLEN);
    h->myip[CLUSTER_MSG_IPLEN] = '\0';
    h->extensions = get16(b + OFF_EXTENSIONS);
    h->pport = get16(b + OFF_PPORT);
    h->cport = get16(b + OFF_CPORT);
    h->flags = get16(b + OFF_FLAGS);
    h->state = b[OFF_STATE];
    memcpy(h->mflags, b + OFF_MFLAGS, sizeof h->mflags);
}

/* The extensions of a PING, PONG or MEET at b[at..len): each header inside
 * len before it is read, each length a multiple of 8 and at least its
 * header, within what is left. Sets the body's extension fields. */
static int decode_extensions(const unsigned char *b, uint64_t at, uint32_t len,
                             struct cluster_msg *m, char *why, size_t cap)
{
    const char *type = cluster_msg_type_name(m->hdr.type);
    uint64_t pos = at;
    for (uint16_t i = 0; i < m->hdr.extensions; i++) {
        if (len - pos < CLUSTER_MSG_EXT_HEADER_LEN)
            return refuse(CLUSTER_MSG_EEXT, why, cap,
                          "Received invalid %s packet with extension data that exceeds total "
                          "packet length (%u)", type, len);
        uint32_t extlen = get32(b + pos);
        uint16_t ext_type = get16(b + pos + 4);
        if (extlen % 8 != 0 || extlen < CLUSTER_MSG_EXT_HEADER_LEN)
            return refuse(CLUSTER_MSG_EEXT, why, cap,
                          "Received a %s packet without proper padding (%u bytes)", type, extlen);
        if (len - pos < extlen)
            return refuse(CLUSTER_MSG_EEXT, why, cap,
                          "Received invalid %s packet with extension data that exceeds total "
                          "packet length (%u)", type, len);
        if (ext_type == CLUSTER_MSG_EXT_HOSTNAME) {
            const char *text = (const char *)b + pos + CLUSTER_MSG_EXT_HEADER_LEN;
            size_t room = extlen - CLUSTER_MSG_EXT_HEADER_LEN;
            const char *nul = memchr(text, '\0', room);
            if (!nul)
                return refuse(CLUSTER_MSG_EEXT, why, cap,
                              "Received a %s packet whose hostname extension has no NUL", type);
            /* Redis keeps the last hostname sent. */
            m->body.ping.hostname = text;
            m->body.ping.hostname_len = (size_t)(nul - text);
        }
        pos += extlen;
    }
    m->body.ping.ext = b + at;
    m->body.ping.ext_len = (uint32_t)(pos - at);
    m->body.ping.ext_count = m->hdr.extensions;
    return CLUSTER_MSG_OK;
}

int cluster_msg_decode(const void *p, size_t len, struct cluster_msg *m, char *why,
                       size_t why_cap)
{
    const unsigned char *b = p;
    memset(m, 0, sizeof *m);
    if (len < CLUSTER_MSG_HEADER_LEN)
        return refuse(CLUSTER_MSG_ESHORT, why, why_cap,
                      "Cluster bus message of %zu bytes, shorter than its header", len);
    if (memcmp(b, SIGNATURE, sizeof SIGNATURE) != 0)
        return refuse(CLUSTER_MSG_ESIG, why, why_cap,
                      "Bad message length or signature received from Cluster bus (signature)");
    get_hdr(b, &m->hdr);
    const struct cluster_msg_hdr *h = &m->hdr;
    if (h->totlen != len)
        return refuse(h->totlen > len ? CLUSTER_MSG_ESHORT : CLUSTER_MSG_ELENGTH, why, why_cap,
                      "Cluster bus message of %zu bytes whose totlen says %u", len, h->totlen);
    if (h->ver != CLUSTER_MSG_VERSION)
        return refuse(CLUSTER_MSG_EVERSION, why, why_cap,
                      "Cluster bus message of version %u (only %d is spoken)", h->ver,
                      CLUSTER_MSG_VERSION);

    /* What the type's body needs, in 64 bits: no sum of 32-bit lengths wraps. */
    const unsigned char *body = b + CLUSTER_MSG_HEADER_LEN;
    uint64_t explen = CLUSTER_MSG_HEADER_LEN;
    switch (h->type) {
    case CLUSTER_MSG_PING:
    case CLUSTER_MSG_PONG:
    case CLUSTER_MSG_MEET:
        explen += (uint64_t)CLUSTER_MSG_GOSSIP_LEN * h->count;
        m->body.ping.gossip = body;
        if (explen <= len && (h->mflags[0] & CLUSTER_MSG_FLAG0_EXT_DATA)) {
            int st = decode_extensions(b, explen, h->totlen, m, why, why_cap);
            if (st != CLUSTER_MSG_OK)
                return st;
            explen += m->body.ping.ext_len;
        }
        break;
    case CLUSTER_MSG_FAIL:
        explen += CLUSTER_MSG_NAMELEN;
        if (explen == len)
            memcpy(m->body.fail.nodename, body, CLUSTER_MSG_NAMELEN);
        break;
    case CLUSTER_MSG_PUBLISH:
    case CLUSTER_MSG_PUBLISHSHARD:
        if (len < CLUSTER_MSG_HEADER_LEN + PUBLISH_FIXED) {
            explen += PUBLISH_FIXED;
            break;
        }
        m->body.publish.channel_len = get32(body);
        m->body.publish.message_len = get32(body + 4);
        explen += PUBLISH_FIXED + (uint64_t)m->body.publish.channel_len +
                  m->body.publish.message_len;
        m->body.publish.channel = (const char *)body + PUBLISH_FIXED;
        m->body.publish.message = m->body.publish.channel + m->body.publish.channel_len;
        break;
    case CLUSTER_MSG_FAILOVER_AUTH_REQUEST:
    case CLUSTER_MSG_FAILOVER_AUTH_ACK:
    case CLUSTER_MSG_MFSTART:
        break;
    case CLUSTER_MSG_UPDATE:
        explen += 8 + CLUSTER_MSG_NAMELEN + CLUSTER_MSG_SLOT_BYTES;
        if (explen == len) {
            m->body.update.config_epoch = get64(body);
            memcpy(m->body.update.nodename, body + 8, CLUSTER_MSG_NAMELEN);
            memcpy(m->body.update.slots, body + 8 + CLUSTER_MSG_NAMELEN, CLUSTER_MSG_SLOT_BYTES);
        }
        break;
    case CLUSTER_MSG_MODULE:
        if (len < CLUSTER_MSG_HEADER_LEN + MODULE_FIXED) {
            explen += MODULE_FIXED;
            break;
        }
        memcpy(m->body.module.module_id, body, sizeof m->body.module.module_id);
        m->body.module.len = get32(body + 8);
        m->body.module.type = body[12];
        m->body.module.payload = body + MODULE_FIXED;
        explen += MODULE_FIXED + (uint64_t)m->body.module.len;
        break;
    default:
        /* Redis takes a type it does not know as well formed, and ignores it. */
        explen = len;
        break;
    }
    if (explen != len) {
        int st = refuse(CLUSTER_MSG_ELENGTH, why, why_cap,
                        "Received invalid %s packet of length %zu but expected length %llu",
                        cluster_msg_type_name(h->type), len, (unsigned long long)explen);
        memset(&m->body, 0, sizeof m->body);
        return st;
    }
    return CLUSTER_MSG_OK;
}

void cluster_msg_gossip_at(const struct cluster_msg *m, uint16_t i, struct cluster_msg_gossip *g)
{
    const unsigned char *e = m->body.ping.gossip + (size_t)i * CLUSTER_MSG_GOSSIP_LEN;
    memcpy(g->nodename, e, CLUSTER_MSG_NAMELEN);
    g->ping_sent = get32(e + G_PING_SENT);
    g->pong_received = get32(e + G_PONG_RECEIVED);
    memcpy(g->ip, e + G_IP, CLUSTER_MSG_IPLEN);
    g->ip[CLUSTER_MSG_IPLEN] = '\0';
    g->port = get16(e + G_PORT);
    g->cport = get16(e + G_CPORT);
    g->flags = get16(e + G_FLAGS);
    g->pport = get16(e + G_PPORT);
}

int cluster_msg_ext_next(const struct cluster_msg *m, uint32_t *pos, struct cluster_msg_ext *e)
{
    if (m->hdr.type > CLUSTER_MSG_MEET || *pos >= m->body.ping.ext_len)
        return 0;
    const unsigned char *x = m->body.ping.ext + *pos;
    uint32_t extlen = get32(x);
    e->type = get16(x + 4);
    e->data = x + CLUSTER_MSG_EXT_HEADER_LEN;
    e->len = extlen - CLUSTER_MSG_EXT_HEADER_LEN;
    *pos += extlen;
    return 1;
}

/* A hostname extension's size: its header, the text and its NUL, padded to 8. */
static size_t hostname_ext_len(size_t hostname_len)
{
    return hostname_len ? CLUSTER_MSG_EXT_HEADER_LEN + (hostname_len + 1 + 7) / 8 * 8 : 0;
}

size_t cluster_msg_len_ping(uint16_t count, size_t hostname_len)
{
    return CLUSTER_MSG_HEADER_LEN + (size_t)count * CLUSTER_MSG_GOSSIP_LEN +
           hostname_ext_len(hostname_len);
}

size_t cluster_msg_len_publish(uint32_t channel_len, uint32_t message_len)
{
    return CLUSTER_MSG_HEADER_LEN + PUBLISH_FIXED + (size_t)channel_len + message_len;
}

size_t cluster_msg_len_module(uint32_t len)
{
    return CLUSTER_MSG_HEADER_LEN + MODULE_FIXED + (size_t)len;
}

/* The header as Redis's clusterBuildMessageHdr leaves it, with the
 * message's totlen, count and extensions. Zeroes the whole header first. */
static void put_hdr(unsigned char *b, const struct cluster_msg_hdr *h, size_t totlen,
                    uint16_t count, uint16_t extensions)
{
    memset(b, 0, CLUSTER_MSG_HEADER_LEN);
    memcpy(b, SIGNATURE, sizeof SIGNATURE);
    put32(b + OFF_TOTLEN, (uint32_t)totlen);
    put16(b + OFF_VER, CLUSTER_MSG_VERSION);
    put16(b + OFF_PORT, h->port);
    put16(b + OFF_TYPE, h->type);
    put16(b + OFF_COUNT, count);
    put64(b + OFF_CURRENT_EPOCH, h->current_epoch);
    put64(b + OFF_CONFIG_EPOCH, h->config_epoch);
    put64(b + OFF_OFFSET, h->offset);
    memcpy(b + OFF_SENDER, h->sender, CLUSTER_MSG_NAMELEN);
    memcpy(b + OFF_MYSLOTS, h->myslots, CLUSTER_MSG_SLOT_BYTES);
    memcpy(b + OFF_SLAVEOF, h->slaveof, CLUSTER_MSG_NAMELEN);
    memcpy(b + OFF_MYIP, h->myip, CLUSTER_MSG_IPLEN);
    put16(b + OFF_EXTENSIONS, extensions);
    put16(b + OFF_PPORT, h->pport);
    put16(b + OFF_CPORT, h->cport);
    put16(b + OFF_FLAGS, h->flags);
    b[OFF_STATE] = h->state;
    memcpy(b + OFF_MFLAGS, h->mflags, sizeof h->mflags);
    b[OFF_MFLAGS] &= (unsigned char)~CLUSTER_MSG_FLAG0_EXT_DATA;
    if (extensions)
        b[OFF_MFLAGS] |= CLUSTER_MSG_FLAG0_EXT_DATA;
}

size_t cluster_msg_encode_ping(void *out, const struct cluster_msg_hdr *h,
                               const struct cluster_msg_gossip *gossip, uint16_t count,
                               const char *hostname, size_t hostname_len)
{
    unsigned char *b = out;
    size_t len = cluster_msg_len_ping(count, hostname_len);
    put_hdr(b, h, len, count, hostname_len ? 1 : 0);
    unsigned char *e = b + CLUSTER_MSG_HEADER_LEN;
    for (uint16_t i = 0; i < count; i++, e += CLUSTER_MSG_GOSSIP_LEN) {
        const struct cluster_msg_gossip *g = &gossip[i];
        memcpy(e, g->nodename, CLUSTER_MSG_NAMELEN);
        put32(e + G_PING_SENT, g->ping_sent);
        put32(e + G_PONG_RECEIVED, g->pong_received);
        memcpy(e + G_IP, g->ip, CLUSTER_MSG_IPLEN);
        put16(e + G_PORT, g->port);
        put16(e + G_CPORT, g->cport);
        put16(e + G_FLAGS, g->flags);
        put16(e + G_PPORT, g->pport);
        put16(e + G_PPORT + 2, 0);
    }
    if (hostname_len) {
        size_t extlen = hostname_ext_len(hostname_len);
        memset(e, 0, extlen);
        put32(e, (uint32_t)extlen);
        put16(e + 4, CLUSTER_MSG_EXT_HOSTNAME);
        memcpy(e + CLUSTER_MSG_EXT_HEADER_LEN, hostname, hostname_len);
    }
    return len;
}

size_t cluster_msg_encode_fail(void *out, const struct cluster_msg_hdr *h, const char *nodename)
{
    unsigned char *b = out;
    put_hdr(b, h, CLUSTER_MSG_LEN_FAIL, 0, 0);
    memcpy(b + CLUSTER_MSG_HEADER_LEN, nodename, CLUSTER_MSG_NAMELEN);
    return CLUSTER_MSG_LEN_FAIL;
}

size_t cluster_msg_encode_publish(void *out, const struct cluster_msg_hdr *h, const char *channel,
                                  uint32_t channel_len, const char *message, uint32_t message_len)
{
    unsigned char *b = out;
    size_t len = cluster_msg_len_publish(channel_len, message_len);
    put_hdr(b, h, len, 0, 0);
    unsigned char *body = b + CLUSTER_MSG_HEADER_LEN;
    put32(body, channel_len);
    put32(body + 4, message_len);
    if (channel_len)
        memcpy(body + PUBLISH_FIXED, channel, channel_len);
    if (message_len)
        memcpy(body + PUBLISH_FIXED + channel_len, message, message_len);
    return len;
}

size_t cluster_msg_encode_update(void *out, const struct cluster_msg_hdr *h, uint64_t config_epoch,
                                 const char *nodename, const unsigned char *slots)
{
    unsigned char *b = out;
    put_hdr(b, h, CLUSTER_MSG_LEN_UPDATE, 0, 0);
    unsigned char *body = b + CLUSTER_MSG_HEADER_LEN;
    put64(body, config_epoch);
    memcpy(body + 8, nodename, CLUSTER_MSG_NAMELEN);
    memcpy(body + 8 + CLUSTER_MSG_NAMELEN, slots, CLUSTER_MSG_SLOT_BYTES);
    return CLUSTER_MSG_LEN_UPDATE;
}

size_t cluster_msg_encode_module(void *out, const struct cluster_msg_hdr *h,
                                 const unsigned char module_id[8], uint8_t type,
                                 const void *payload, uint32_t len)
{
    unsigned char *b = out;
    size_t total = cluster_msg_len_module(len);
    put_hdr(b, h, total, 0, 0);
    unsigned char *body = b + CLUSTER_MSG_HEADER_LEN;
    memcpy(body, module_id, 8);
    put32(body + 8, len);
    body[12] = type;
    if (len)
        memcpy(body + MODULE_FIXED, payload, len);
    return total;
}

size_t cluster_msg_encode_bare(void *out, const struct cluster_msg_hdr *h)
{
    put_hdr(out, h, CLUSTER_MSG_HEADER_LEN, 0, 0);
    return CLUSTER_MSG_HEADER_LEN;
}
