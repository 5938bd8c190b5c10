/*
 * fuzz_cluster_bus.c - libFuzzer target for the cluster bus's codec
 * (server/cluster/cluster_msg.c), driven as a bus link drives it: the bytes
 * a peer sends are framed into messages (cluster_msg_frame), each decoded
 * (cluster_msg_decode), until the stream ends or framing refuses it (the
 * link would close).
 *
 * Input: byte 0 picks how the rest is cut into reads; the rest is what the
 * peer sends. Checked, aborting on a violation:
 *  1. Nothing crashes or reads out of bounds: each message is decoded from a
 *     buffer of exactly its size.
 *  2. Framed whole and framed in pieces, the stream gives the same messages,
 *     decode results and outcome.
 *  3. A message decoded is whole: header, gossip and extensions add up to
 *     totlen; every extension, the hostname (followed by its NUL), a
 *     PUBLISH's channel and message and a MODULE's payload lie inside it.
 *  4. Encoding what was decoded and decoding that again gives the same
 *     fields (the encoder and the decoder agree on every type).
 * The input is also decoded unframed, as one message of its whole length.
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LEN (1u << 16) /* the link's limit here: room for any input libFuzzer makes */
#define MAX_MESSAGES 64

#define ASSERT(cond)                                                                              \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            fprintf(stderr, "%s:%d: violated: %s\n", __FILE__, __LINE__, #cond);                  \
            abort();                                                                              \
        }                                                                                         \
    } while (0)

struct outcome {
    int count;
    uint32_t lens[MAX_MESSAGES];
    int status[MAX_MESSAGES];
    int end; /* 0: the stream ended; negative: framing refused it */
};

static int same_hdr(const struct cluster_msg_hdr *a, const struct cluster_msg_hdr *b)
{
    return a->totlen == b->totlen && a->ver == b->ver && a->port == b->port &&
           a->type == b->type && a->count == b->count && a->current_epoch == b->current_epoch &&
           a->config_epoch == b->config_epoch && a->offset == b->offset &&
           !memcmp(a->sender, b->sender, sizeof a->sender) &&
           !memcmp(a->myslots, b->myslots, sizeof a->myslots) &&
           !memcmp(a->slaveof, b->slaveof, sizeof a->slaveof) &&
           !memcmp(a->myip, b->myip, sizeof a->myip) && a->pport == b->pport &&
           a->cport == b->cport && a->flags == b->flags && a->state == b->state &&
           a->mflags[1] == b->mflags[1] && a->mflags[2] == b->mflags[2] &&
           (a->mflags[0] & ~CLUSTER_MSG_FLAG0_EXT_DATA) ==
               (b->mflags[0] & ~CLUSTER_MSG_FLAG0_EXT_DATA);
}

/* Property 3. */
static void check_whole(const struct cluster_msg *m, const unsigned char *p, size_t len)
{
    const unsigned char *end = p + len;
    ASSERT(m->hdr.totlen == len && len >= CLUSTER_MSG_HEADER_LEN);
    switch (m->hdr.type) {
    case CLUSTER_MSG_PING:
    case CLUSTER_MSG_PONG:
    case CLUSTER_MSG_MEET: {
        ASSERT(CLUSTER_MSG_HEADER_LEN + (size_t)m->hdr.count * CLUSTER_MSG_GOSSIP_LEN +
                   m->body.ping.ext_len == len);
        uint32_t pos = 0, sum = 0;
        uint16_t n = 0;
        struct cluster_msg_ext e;
        while (cluster_msg_ext_next(m, &pos, &e)) {
            ASSERT(e.data >= p && e.data + e.len <= end && (e.len + 8) % 8 == 0);
            sum += e.len + CLUSTER_MSG_EXT_HEADER_LEN;
            n++;
        }
        ASSERT(sum == m->body.ping.ext_len && n == m->body.ping.ext_count);
        if (m->body.ping.hostname) {
            const unsigned char *h = (const unsigned char *)m->body.ping.hostname;
            ASSERT(h >= p && h + m->body.ping.hostname_len < end);
            ASSERT(h[m->body.ping.hostname_len] == '\0');
            ASSERT(memchr(h, '\0', m->body.ping.hostname_len) == NULL);
        }
        break;
    }
    case CLUSTER_MSG_PUBLISH:
    case CLUSTER_MSG_PUBLISHSHARD:
        ASSERT((const unsigned char *)m->body.publish.message + m->body.publish.message_len ==
               end);
        ASSERT(m->body.publish.channel + m->body.publish.channel_len == m->body.publish.message);
        break;
    case CLUSTER_MSG_MODULE:
        ASSERT(m->body.module.payload + m->body.module.len == end);
        break;
    case CLUSTER_MSG_FAIL:
        ASSERT(len == CLUSTER_MSG_LEN_FAIL);
        break;
    case CLUSTER_MSG_UPDATE:
        ASSERT(len == CLUSTER_MSG_LEN_UPDATE);
        break;
    default:
        if (m->hdr.type < CLUSTER_MSG_TYPE_COUNT)
            ASSERT(len == CLUSTER_MSG_HEADER_LEN);
        break;
    }
}

/* Property 4. */
static void check_reencoded(const struct cluster_msg *m)
{
    size_t len;
    uint16_t type = m->hdr.type;
    switch (type) {
    case CLUSTER_MSG_PING:
    case CLUSTER_MSG_PONG:
    case CLUSTER_MSG_MEET:
        len = cluster_msg_len_ping(m->hdr.count, m->body.ping.hostname_len);
        break;
    case CLUSTER_MSG_PUBLISH:
    case CLUSTER_MSG_PUBLISHSHARD:
        len = cluster_msg_len_publish(m->body.publish.channel_len, m->body.publish.message_len);
        break;
    case CLUSTER_MSG_MODULE:
        len = cluster_msg_len_module(m->body.module.len);
        break;
    case CLUSTER_MSG_FAIL:
        len = CLUSTER_MSG_LEN_FAIL;
        break;
    case CLUSTER_MSG_UPDATE:
        len = CLUSTER_MSG_LEN_UPDATE;
        break;
    default:
        if (type >= CLUSTER_MSG_TYPE_COUNT)
            return; /* nothing to encode an unknown type from */
        len = CLUSTER_MSG_HEADER_LEN;
        break;
    }
    unsigned char *buf = malloc(len);
    struct cluster_msg_gossip *g = malloc(sizeof *g * (m->hdr.count + 1u));
    ASSERT(buf && g);
    size_t wrote;
    switch (type) {
    case CLUSTER_MSG_PING:
    case CLUSTER_MSG_PONG:
    case CLUSTER_MSG_MEET:
        for (uint16_t i = 0; i < m->hdr.count; i++)
            cluster_msg_gossip_at(m, i, &g[i]);
        wrote = cluster_msg_encode_ping(buf, &m->hdr, g, m->hdr.count, m->body.ping.hostname,
                                        m->body.ping.hostname_len);
        break;
    case CLUSTER_MSG_PUBLISH:
    case CLUSTER_MSG_PUBLISHSHARD:
        wrote = cluster_msg_encode_publish(buf, &m->hdr, m->body.publish.channel,
                                           m->body.publish.channel_len, m->body.publish.message,
                                           m->body.publish.message_len);
        break;
    case CLUSTER_MSG_MODULE:
        wrote = cluster_msg_encode_module(buf, &m->hdr, m->body.module.module_id,
                                          m->body.module.type, m->body.module.payload,
                                          m->body.module.len);
        break;
    case CLUSTER_MSG_FAIL:
        wrote = cluster_msg_encode_fail(buf, &m->hdr, m->body.fail.nodename);
        break;
    case CLUSTER_MSG_UPDATE:
        wrote = cluster_msg_encode_update(buf, &m->hdr, m->body.update.config_epoch,
                                          m->body.update.nodename, m->body.update.slots);
        break;
    default:
        wrote = cluster_msg_encode_bare(buf, &m->hdr);
        break;
    }
    ASSERT(wrote == len);
    struct cluster_msg again;
    ASSERT(cluster_msg_decode(buf, len, &again, NULL, 0) == CLUSTER_MSG_OK);
    struct cluster_msg_hdr want = m->hdr;
    want.totlen = (uint32_t)len;
    if (type > CLUSTER_MSG_MEET)
        want.count = 0; /* Redis writes a count into PING, PONG and MEET only */
    ASSERT(same_hdr(&want, &again.hdr));
    ASSERT(again.hdr.extensions == (type <= CLUSTER_MSG_MEET && m->body.ping.hostname_len ? 1 : 0));
    switch (type) {
    case CLUSTER_MSG_PING:
    case CLUSTER_MSG_PONG:
    case CLUSTER_MSG_MEET:
        for (uint16_t i = 0; i < m->hdr.count; i++) {
            struct cluster_msg_gossip d;
            cluster_msg_gossip_at(&again, i, &d);
            ASSERT(!memcmp(&d.nodename, &g[i].nodename, sizeof d.nodename) &&
                   !memcmp(d.ip, g[i].ip, sizeof d.ip) && d.ping_sent == g[i].ping_sent &&
                   d.pong_received == g[i].pong_received && d.port == g[i].port &&
                   d.cport == g[i].cport && d.flags == g[i].flags && d.pport == g[i].pport);
        }
        ASSERT(again.body.ping.hostname_len == m->body.ping.hostname_len);
        ASSERT(!m->body.ping.hostname_len ||
               !memcmp(again.body.ping.hostname, m->body.ping.hostname, m->body.ping.hostname_len));
        break;
    case CLUSTER_MSG_PUBLISH:
    case CLUSTER_MSG_PUBLISHSHARD:
        ASSERT(!memcmp(again.body.publish.channel, m->body.publish.channel,
                       (size_t)m->body.publish.channel_len + m->body.publish.message_len));
        break;
    case CLUSTER_MSG_MODULE:
        ASSERT(again.body.module.type == m->body.module.type &&
               !memcmp(again.body.module.module_id, m->body.module.module_id, 8) &&
               !memcmp(again.body.module.payload, m->body.module.payload, m->body.module.len));
        break;
    case CLUSTER_MSG_FAIL:
        ASSERT(!memcmp(again.body.fail.nodename, m->body.fail.nodename, CLUSTER_MSG_NAMELEN));
        break;
    case CLUSTER_MSG_UPDATE:
        ASSERT(!memcmp(&again.body.update, &m->body.update, sizeof m->body.update));
        break;
    default:
        break;
    }
    free(g);
    free(buf);
}

/* Decodes p[0..len) from a buffer of exactly len bytes; checks what it gives. */
static int decode_checked(const unsigned char *p, size_t len)
{
    unsigned char *copy = malloc(len ? len : 1);
    ASSERT(copy);
    memcpy(copy, p, len);
    struct cluster_msg m;
    char why[200];
    why[0] = '\0';
    int st = cluster_msg_decode(copy, len, &m, why, sizeof why);
    if (st == CLUSTER_MSG_OK) {
        check_whole(&m, copy, len);
        check_reencoded(&m);
    } else {
        ASSERT(st < 0 && why[0] != '\0');
    }
    free(copy);
    return st;
}

/* Property 2: frames the stream in reads cut by cut (0: whole). */
static void run(const unsigned char *p, size_t n, unsigned cut, struct outcome *o)
{
    unsigned char *acc = malloc(n ? n : 1);
    ASSERT(acc);
    size_t have = 0, fed = 0;
    uint64_t state = cut;
    memset(o, 0, sizeof *o);
    for (;;) {
        uint32_t want;
        int r = cluster_msg_frame(acc, have, MAX_LEN, &want, NULL, 0);
        if (r < 0) {
            o->end = r;
            break;
        }
        if (r == 1) {
            ASSERT(want >= CLUSTER_MSG_HEADER_LEN && want <= have);
            if (o->count < MAX_MESSAGES) {
                o->lens[o->count] = want;
                o->status[o->count] = decode_checked(acc, want);
            }
            o->count++;
            memmove(acc, acc + want, have - want);
            have -= want;
            continue;
        }
        ASSERT(want > have);
        if (fed == n)
            break;
        size_t piece = n - fed;
        if (cut) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            size_t most = (size_t)(state >> 33) % (2 * cut) + 1;
            if (piece > most)
                piece = most;
        }
        memcpy(acc + have, p + fed, piece);
        have += piece;
        fed += piece;
    }
    free(acc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned cut = data[0];
    const unsigned char *p = data + 1;
    size_t n = size - 1;

    decode_checked(p, n);
    struct outcome whole, pieces;
    run(p, n, 0, &whole);
    if (cut) {
        run(p, n, cut * 16u, &pieces);
        ASSERT(whole.count == pieces.count && whole.end == pieces.end);
        int shown = whole.count < MAX_MESSAGES ? whole.count : MAX_MESSAGES;
        for (int i = 0; i < shown; i++)
            ASSERT(whole.lens[i] == pieces.lens[i] && whole.status[i] == pieces.status[i]);
    }
    return 0;
}
