/*
 * test_cluster_msg.c - the cluster bus's codec (server/cluster/cluster_msg.c):
 * the header's fields at Redis 7.0's offsets, every type encoded and decoded
 * back, the hostname extension's padding, framing a stream fed whole and byte
 * by byte, and a refusal for every malformed shape (short, signature,
 * version, totlen against each type's body, a gossip count that overruns,
 * bad extension lengths). Random fields come from a seed (SEED= replays).
 * Each message decoded sits in a buffer of exactly its size, so that an
 * over-read shows under ASan and valgrind.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cluster_msg.h"

#define MAX_LEN (1u << 20)
#define OFF_EXT_COUNT_LO 2215 /* the low byte of the header's extensions */

static uint64_t rng;

static void fill_random(void *p, size_t n)
{
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)rng_next(&rng);
}

static void random_name(char *name)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < CLUSTER_MSG_NAMELEN; i++)
        name[i] = hex[rng_below(&rng, 16)];
}

static void random_hdr(struct cluster_msg_hdr *h, uint16_t type)
{
    memset(h, 0, sizeof *h);
    h->ver = CLUSTER_MSG_VERSION;
    h->type = type;
    h->port = (uint16_t)rng_next(&rng);
    h->pport = (uint16_t)rng_next(&rng);
    h->cport = (uint16_t)rng_next(&rng);
    h->flags = (uint16_t)rng_next(&rng);
    h->current_epoch = rng_next(&rng);
    h->config_epoch = rng_next(&rng);
    h->offset = rng_next(&rng);
    random_name(h->sender);
    if (rng_below(&rng, 2))
        random_name(h->slaveof);
    fill_random(h->myslots, sizeof h->myslots);
    snprintf(h->myip, sizeof h->myip, "10.%u.%u.%u", (unsigned)rng_below(&rng, 256),
             (unsigned)rng_below(&rng, 256), (unsigned)rng_below(&rng, 256));
    h->state = (uint8_t)rng_below(&rng, 2);
    h->mflags[0] =
        (uint8_t)(rng_next(&rng) & (CLUSTER_MSG_FLAG0_PAUSED | CLUSTER_MSG_FLAG0_FORCEACK));
}

/* The decoded header equals the one encoded, but for what the encoder computes. */
static void check_hdr(const struct cluster_msg_hdr *want, const struct cluster_msg_hdr *got,
                      size_t len)
{
    CHECK(got->totlen == len);
    CHECK(got->ver == CLUSTER_MSG_VERSION);
    CHECK(got->type == want->type);
    CHECK(got->port == want->port && got->pport == want->pport && got->cport == want->cport);
    CHECK(got->flags == want->flags && got->state == want->state);
    CHECK(got->current_epoch == want->current_epoch);
    CHECK(got->config_epoch == want->config_epoch && got->offset == want->offset);
    CHECK(memcmp(got->sender, want->sender, CLUSTER_MSG_NAMELEN) == 0);
    CHECK(memcmp(got->slaveof, want->slaveof, CLUSTER_MSG_NAMELEN) == 0);
    CHECK(memcmp(got->myslots, want->myslots, CLUSTER_MSG_SLOT_BYTES) == 0);
    CHECK(strcmp(got->myip, want->myip) == 0);
    CHECK((got->mflags[0] & ~CLUSTER_MSG_FLAG0_EXT_DATA) == want->mflags[0]);
    CHECK(got->mflags[1] == want->mflags[1] && got->mflags[2] == want->mflags[2]);
}

/* Decodes a copy of p[0..len) in a buffer of exactly len bytes. */
static int decode_exact(const unsigned char *p, size_t len, struct cluster_msg *m,
                        unsigned char **copy, char *why, size_t cap)
{
    *copy = malloc(len ? len : 1);
    CHECK(*copy);
    memcpy(*copy, p, len);
    return cluster_msg_decode(*copy, len, m, why, cap);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The header's fields sit at the offsets Redis 7.0's static asserts name. */
static void test_layout(void)
{
    struct cluster_msg_hdr h;
    random_hdr(&h, CLUSTER_MSG_PING);
    h.port = 0x1234;
    h.cport = 0x5678;
    h.pport = 0x9abc;
    h.flags = 0x0102;
    h.state = 1;
    h.current_epoch = 0x0102030405060708ull;
    h.mflags[0] = CLUSTER_MSG_FLAG0_PAUSED;
    unsigned char buf[CLUSTER_MSG_HEADER_LEN];
    CHECK(cluster_msg_encode_bare(buf, &h) == CLUSTER_MSG_HEADER_LEN);
    CHECK(memcmp(buf, "RCmb", 4) == 0);
    CHECK(be32(buf + 4) == CLUSTER_MSG_HEADER_LEN);
    CHECK(buf[8] == 0 && buf[9] == 1);         /* ver */
    CHECK(buf[10] == 0x12 && buf[11] == 0x34); /* port */
    CHECK(buf[12] == 0 && buf[13] == 0);       /* type */
    CHECK(buf[16] == 1 && buf[23] == 8);       /* currentEpoch, big-endian */
    CHECK(memcmp(buf + 40, h.sender, 40) == 0);
    CHECK(memcmp(buf + 80, h.myslots, 2048) == 0);
    CHECK(memcmp(buf + 2128, h.slaveof, 40) == 0);
    CHECK(strcmp((const char *)buf + 2168, h.myip) == 0);
    for (int i = 2214; i < 2246; i++)
        CHECK(buf[i] == 0); /* extensions and the reserved bytes */
    CHECK(buf[2246] == 0x9a && buf[2247] == 0xbc); /* pport */
    CHECK(buf[2248] == 0x56 && buf[2249] == 0x78); /* cport */
    CHECK(buf[2250] == 0x01 && buf[2251] == 0x02); /* flags */
    CHECK(buf[2252] == 1 && buf[2253] == CLUSTER_MSG_FLAG0_PAUSED);
}

static void test_ping_round_trip(uint16_t type, uint16_t count, size_t hostname_len)
{
    struct cluster_msg_hdr h;
    random_hdr(&h, type);
    struct cluster_msg_gossip g[8];
    CHECK(count <= 8);
    memset(g, 0, sizeof g);
    for (uint16_t i = 0; i < count; i++) {
        random_name(g[i].nodename);
        g[i].ping_sent = (uint32_t)rng_next(&rng);
        g[i].pong_received = (uint32_t)rng_next(&rng);
        snprintf(g[i].ip, sizeof g[i].ip, "::ffff:127.0.0.%u", (unsigned)i);
        g[i].port = (uint16_t)rng_next(&rng);
        g[i].cport = (uint16_t)rng_next(&rng);
        g[i].flags = (uint16_t)rng_next(&rng);
        g[i].pport = (uint16_t)rng_next(&rng);
    }
    char hostname[64];
    for (size_t i = 0; i < hostname_len; i++)
        hostname[i] = (char)('a' + rng_below(&rng, 26));
    size_t len = cluster_msg_len_ping(count, hostname_len);
    unsigned char *buf = malloc(len);
    CHECK(buf);
    memset(buf, 0xee, len); /* every byte must be written */
    CHECK(cluster_msg_encode_ping(buf, &h, g, count, hostname, hostname_len) == len);
    size_t ext_len = len - CLUSTER_MSG_HEADER_LEN - (size_t)count * CLUSTER_MSG_GOSSIP_LEN;
    CHECK(ext_len % 8 == 0);
    if (hostname_len) {
        /* Redis's size: header, the text, its NUL, zeros to a multiple of 8. */
        CHECK(ext_len == 8 + (hostname_len + 1 + 7) / 8 * 8);
        const unsigned char *x = buf + len - ext_len;
        CHECK(be32(x) == ext_len && x[4] == 0 && x[5] == 0 && x[6] == 0 && x[7] == 0);
        for (size_t i = 8 + hostname_len; i < ext_len; i++)
            CHECK(x[i] == 0);
    } else {
        CHECK(ext_len == 0);
    }

    struct cluster_msg m;
    unsigned char *copy;
    char why[160];
    CHECK_MSG(decode_exact(buf, len, &m, &copy, why, sizeof why) == CLUSTER_MSG_OK, "%s", why);
    check_hdr(&h, &m.hdr, len);
    CHECK(m.hdr.count == count);
    CHECK(m.hdr.extensions == (hostname_len ? 1 : 0));
    CHECK(!!(m.hdr.mflags[0] & CLUSTER_MSG_FLAG0_EXT_DATA) == !!hostname_len);
    for (uint16_t i = 0; i < count; i++) {
        struct cluster_msg_gossip d;
        cluster_msg_gossip_at(&m, i, &d);
        CHECK(memcmp(d.nodename, g[i].nodename, CLUSTER_MSG_NAMELEN) == 0);
        CHECK(d.ping_sent == g[i].ping_sent && d.pong_received == g[i].pong_received);
        CHECK(strcmp(d.ip, g[i].ip) == 0);
        CHECK(d.port == g[i].port && d.cport == g[i].cport && d.flags == g[i].flags &&
              d.pport == g[i].pport);
    }
    if (hostname_len) {
        CHECK(m.body.ping.hostname && m.body.ping.hostname_len == hostname_len);
        CHECK(memcmp(m.body.ping.hostname, hostname, hostname_len) == 0);
        uint32_t pos = 0;
        struct cluster_msg_ext e;
        CHECK(cluster_msg_ext_next(&m, &pos, &e) == 1);
        CHECK(e.type == CLUSTER_MSG_EXT_HOSTNAME && e.len == ext_len - 8);
        CHECK(cluster_msg_ext_next(&m, &pos, &e) == 0);
    } else {
        CHECK(!m.body.ping.hostname && m.body.ping.ext_count == 0);
    }
    /* Encoded again from what was decoded: the same bytes. */
    unsigned char *again = malloc(len);
    CHECK(again);
    struct cluster_msg_gossip d[8];
    for (uint16_t i = 0; i < count; i++)
        cluster_msg_gossip_at(&m, i, &d[i]);
    CHECK(cluster_msg_encode_ping(again, &m.hdr, d, count, m.body.ping.hostname,
                                  m.body.ping.hostname_len) == len);
    CHECK(memcmp(again, buf, len) == 0);
    free(again);
    free(copy);
    free(buf);
}

static void test_round_trips(void)
{
    for (uint16_t type = CLUSTER_MSG_PING; type <= CLUSTER_MSG_MEET; type++)
        for (uint16_t count = 0; count <= 3; count++)
            for (size_t hl = 0; hl <= 17; hl++)
                test_ping_round_trip(type, count, hl);
    test_ping_round_trip(CLUSTER_MSG_PONG, 8, 63);

    struct cluster_msg m;
    unsigned char *copy;
    char why[160];
    struct cluster_msg_hdr h;

    /* FAIL */
    random_hdr(&h, CLUSTER_MSG_FAIL);
    char about[CLUSTER_MSG_NAMELEN];
    random_name(about);
    unsigned char fail[CLUSTER_MSG_LEN_FAIL];
    CHECK(cluster_msg_encode_fail(fail, &h, about) == sizeof fail);
    CHECK(decode_exact(fail, sizeof fail, &m, &copy, why, sizeof why) == CLUSTER_MSG_OK);
    check_hdr(&h, &m.hdr, sizeof fail);
    CHECK(memcmp(m.body.fail.nodename, about, CLUSTER_MSG_NAMELEN) == 0);
    free(copy);

    /* PUBLISH and PUBLISHSHARD, with empty and binary parts */
    static const struct { const char *ch, *msg; uint32_t cl, ml; } pubs[] = {
        {"news", "hello", 4, 5}, {"", "", 0, 0}, {"a\0b", "\r\n\0x", 3, 4}, {"only", "", 4, 0},
    };
    for (size_t i = 0; i < sizeof pubs / sizeof pubs[0]; i++) {
        for (uint16_t type = CLUSTER_MSG_PUBLISH; type <= CLUSTER_MSG_PUBLISHSHARD;
             type += CLUSTER_MSG_PUBLISHSHARD - CLUSTER_MSG_PUBLISH) {
            random_hdr(&h, type);
            size_t len = cluster_msg_len_publish(pubs[i].cl, pubs[i].ml);
            CHECK(len == CLUSTER_MSG_HEADER_LEN + 8 + pubs[i].cl + pubs[i].ml);
            unsigned char *buf = malloc(len);
            CHECK(buf);
            CHECK(cluster_msg_encode_publish(buf, &h, pubs[i].ch, pubs[i].cl, pubs[i].msg,
                                             pubs[i].ml) == len);
            CHECK(decode_exact(buf, len, &m, &copy, why, sizeof why) == CLUSTER_MSG_OK);
            check_hdr(&h, &m.hdr, len);
            CHECK(m.body.publish.channel_len == pubs[i].cl);
            CHECK(m.body.publish.message_len == pubs[i].ml);
            CHECK(memcmp(m.body.publish.channel, pubs[i].ch, pubs[i].cl) == 0);
            CHECK(memcmp(m.body.publish.message, pubs[i].msg, pubs[i].ml) == 0);
            free(copy);
            free(buf);
        }
    }

    /* UPDATE */
    random_hdr(&h, CLUSTER_MSG_UPDATE);
    unsigned char slots[CLUSTER_MSG_SLOT_BYTES];
    fill_random(slots, sizeof slots);
    char owner[CLUSTER_MSG_NAMELEN];
    random_name(owner);
    static unsigned char update[CLUSTER_MSG_LEN_UPDATE];
    CHECK(CLUSTER_MSG_LEN_UPDATE == 2256 + 2096);
    CHECK(cluster_msg_encode_update(update, &h, 42, owner, slots) == sizeof update);
    CHECK(decode_exact(update, sizeof update, &m, &copy, why, sizeof why) == CLUSTER_MSG_OK);
    check_hdr(&h, &m.hdr, sizeof update);
    CHECK(m.body.update.config_epoch == 42);
    CHECK(memcmp(m.body.update.nodename, owner, CLUSTER_MSG_NAMELEN) == 0);
    CHECK(memcmp(m.body.update.slots, slots, sizeof slots) == 0);
    free(copy);

    /* The header alone */
    static const uint16_t bare[] = {CLUSTER_MSG_FAILOVER_AUTH_REQUEST,
                                    CLUSTER_MSG_FAILOVER_AUTH_ACK, CLUSTER_MSG_MFSTART};
    for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++) {
        random_hdr(&h, bare[i]);
        h.mflags[0] = CLUSTER_MSG_FLAG0_FORCEACK;
        unsigned char buf[CLUSTER_MSG_HEADER_LEN];
        CHECK(cluster_msg_encode_bare(buf, &h) == sizeof buf);
        CHECK(decode_exact(buf, sizeof buf, &m, &copy, why, sizeof why) == CLUSTER_MSG_OK);
        check_hdr(&h, &m.hdr, sizeof buf);
        free(copy);
    }

    /* MODULE, decoded so that the caller can ignore it */
    random_hdr(&h, CLUSTER_MSG_MODULE);
    const unsigned char id[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    size_t len = cluster_msg_len_module(5);
    CHECK(len == CLUSTER_MSG_HEADER_LEN + 13 + 5);
    unsigned char *mod = malloc(len);
    CHECK(mod);
    CHECK(cluster_msg_encode_module(mod, &h, id, 7, "hello", 5) == len);
    CHECK(decode_exact(mod, len, &m, &copy, why, sizeof why) == CLUSTER_MSG_OK);
    check_hdr(&h, &m.hdr, len);
    CHECK(memcmp(m.body.module.module_id, id, 8) == 0 && m.body.module.type == 7);
    CHECK(m.body.module.len == 5 && memcmp(m.body.module.payload, "hello", 5) == 0);
    free(copy);
    free(mod);

    CHECK(strcmp(cluster_msg_type_name(CLUSTER_MSG_FAILOVER_AUTH_REQUEST), "auth-req") == 0);
    CHECK(strcmp(cluster_msg_type_name(CLUSTER_MSG_TYPE_COUNT), "unknown") == 0);
}

/* A refusal of p[0..len) with status want and a reason to log. */
static void expect_refused(const unsigned char *p, size_t len, int want, const char *what)
{
    struct cluster_msg m;
    unsigned char *copy;
    char why[160] = "";
    int got = decode_exact(p, len, &m, &copy, why, sizeof why);
    CHECK_MSG(got == want, "%s: got %d, want %d (%s)", what, got, want, why);
    CHECK_MSG(why[0] != '\0', "%s: no reason given", what);
    free(copy);
}

static void set32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void test_refusals(void)
{
    struct cluster_msg_hdr h;
    static unsigned char buf[CLUSTER_MSG_HEADER_LEN + 4096];

    /* Short, signature, version, totlen against the bytes given. */
    random_hdr(&h, CLUSTER_MSG_MFSTART);
    cluster_msg_encode_bare(buf, &h);
    for (size_t n = 0; n < CLUSTER_MSG_HEADER_LEN; n += 97)
        expect_refused(buf, n, CLUSTER_MSG_ESHORT, "shorter than a header");
    expect_refused(buf, CLUSTER_MSG_HEADER_LEN - 1, CLUSTER_MSG_ESHORT, "one byte short");
    buf[3] = 'B';
    expect_refused(buf, CLUSTER_MSG_HEADER_LEN, CLUSTER_MSG_ESIG, "signature");
    buf[3] = 'b';
    buf[9] = 2;
    expect_refused(buf, CLUSTER_MSG_HEADER_LEN, CLUSTER_MSG_EVERSION, "version 2");
    buf[9] = 1;
    buf[8] = 1;
    expect_refused(buf, CLUSTER_MSG_HEADER_LEN, CLUSTER_MSG_EVERSION, "version 257");
    buf[8] = 0;
    set32(buf + 4, CLUSTER_MSG_HEADER_LEN + 1);
    expect_refused(buf, CLUSTER_MSG_HEADER_LEN, CLUSTER_MSG_ESHORT, "totlen above the bytes");
    set32(buf + 4, CLUSTER_MSG_HEADER_LEN);
    memset(buf + CLUSTER_MSG_HEADER_LEN, 0, 8);
    expect_refused(buf, CLUSTER_MSG_HEADER_LEN + 8, CLUSTER_MSG_ELENGTH, "totlen below the bytes");

    /* Each type's body against totlen: one byte more or less. */
    struct { uint16_t type; size_t len; } sized[] = {
        {CLUSTER_MSG_FAIL, CLUSTER_MSG_LEN_FAIL},
        {CLUSTER_MSG_UPDATE, CLUSTER_MSG_LEN_UPDATE},
        {CLUSTER_MSG_FAILOVER_AUTH_REQUEST, CLUSTER_MSG_HEADER_LEN},
        {CLUSTER_MSG_FAILOVER_AUTH_ACK, CLUSTER_MSG_HEADER_LEN},
        {CLUSTER_MSG_MFSTART, CLUSTER_MSG_HEADER_LEN},
        {CLUSTER_MSG_PING, CLUSTER_MSG_HEADER_LEN},
        {CLUSTER_MSG_PUBLISH, CLUSTER_MSG_HEADER_LEN + 8},
        {CLUSTER_MSG_MODULE, CLUSTER_MSG_HEADER_LEN + 13},
    };
    for (size_t i = 0; i < sizeof sized / sizeof sized[0]; i++) {
        random_hdr(&h, sized[i].type);
        memset(buf, 0, sizeof buf);
        cluster_msg_encode_bare(buf, &h); /* the header of that type; the body zeros */
        for (int delta = -1; delta <= 1; delta += 2) {
            size_t len = sized[i].len + (size_t)delta;
            if (len < CLUSTER_MSG_HEADER_LEN)
                continue;
            set32(buf + 4, (uint32_t)len);
            expect_refused(buf, len, CLUSTER_MSG_ELENGTH, cluster_msg_type_name(sized[i].type));
        }
        set32(buf + 4, (uint32_t)sized[i].len);
        struct cluster_msg m;
        unsigned char *copy;
        CHECK(decode_exact(buf, sized[i].len, &m, &copy, NULL, 0) == CLUSTER_MSG_OK);
        free(copy);
    }

    /* PUBLISH whose lengths would wrap a 32-bit sum to the bytes given. */
    random_hdr(&h, CLUSTER_MSG_PUBLISH);
    size_t len = cluster_msg_encode_publish(buf, &h, "ab", 2, "cd", 2);
    set32(buf + CLUSTER_MSG_HEADER_LEN, 0xffffffffu);
    set32(buf + CLUSTER_MSG_HEADER_LEN + 4, 5);
    expect_refused(buf, len, CLUSTER_MSG_ELENGTH, "publish lengths that wrap");
    set32(buf + CLUSTER_MSG_HEADER_LEN, 3);
    expect_refused(buf, len, CLUSTER_MSG_ELENGTH, "publish lengths over the body");
    /* MODULE whose payload length overruns. */
    random_hdr(&h, CLUSTER_MSG_MODULE);
    len = cluster_msg_encode_module(buf, &h, (const unsigned char *)"12345678", 1, "xy", 2);
    set32(buf + CLUSTER_MSG_HEADER_LEN + 8, 0xfffffff3u);
    expect_refused(buf, len, CLUSTER_MSG_ELENGTH, "module length that wraps");

    /* A gossip count that overruns the message, with and without extensions. */
    struct cluster_msg_gossip g[2];
    memset(g, 0, sizeof g);
    random_hdr(&h, CLUSTER_MSG_PING);
    len = cluster_msg_encode_ping(buf, &h, g, 2, NULL, 0);
    buf[15] = 3;
    expect_refused(buf, len, CLUSTER_MSG_ELENGTH, "gossip count over the bytes");
    len = cluster_msg_encode_ping(buf, &h, g, 2, "host", 4);
    buf[15] = 40;
    expect_refused(buf, len, CLUSTER_MSG_ELENGTH, "gossip count over the bytes, extensions");
    buf[15] = 1; /* the extension's header is read from the second gossip entry */
    expect_refused(buf, len, CLUSTER_MSG_EEXT, "gossip count short of the extension");

    /* Extension lengths: not a multiple of 8, under its header, past totlen, too few
     * extensions' bytes, a header cut by totlen, a hostname without its NUL. */
    size_t ext_at = CLUSTER_MSG_HEADER_LEN + 2 * CLUSTER_MSG_GOSSIP_LEN;
    static const uint32_t bad_lengths[] = {0, 4, 12, 17, 24 + 8, 0x80000000u, 0xfffffff8u};
    for (size_t i = 0; i < sizeof bad_lengths / sizeof bad_lengths[0]; i++) {
        len = cluster_msg_encode_ping(buf, &h, g, 2, "hostname", 8); /* ext of 24 */
        set32(buf + ext_at, bad_lengths[i]);
        expect_refused(buf, len, CLUSTER_MSG_EEXT, "bad extension length");
    }
    len = cluster_msg_encode_ping(buf, &h, g, 2, "hostname", 8);
    buf[OFF_EXT_COUNT_LO] = 2; /* a second extension that is not there */
    expect_refused(buf, len, CLUSTER_MSG_EEXT, "extension count over the bytes");
    buf[OFF_EXT_COUNT_LO] = 1;
    set32(buf + ext_at, 16); /* "hostnam" and a NUL; 8 bytes left over after the extensions */
    buf[ext_at + 8 + 7] = '\0';
    expect_refused(buf, len, CLUSTER_MSG_ELENGTH, "extensions shorter than the bytes");
    len = cluster_msg_encode_ping(buf, &h, g, 2, "hostname", 8);
    memset(buf + ext_at + 8, 'x', 16);
    expect_refused(buf, len, CLUSTER_MSG_EEXT, "hostname without its NUL");
}

/* What Redis accepts and ignores: an unknown type, an unknown extension, an
 * extension count without the EXT_DATA flag. */
static void test_accepted_oddities(void)
{
    static unsigned char buf[CLUSTER_MSG_HEADER_LEN + 256];
    struct cluster_msg_hdr h;
    struct cluster_msg m;
    unsigned char *copy;
    char why[160];

    random_hdr(&h, 77);
    cluster_msg_encode_bare(buf, &h);
    set32(buf + 4, CLUSTER_MSG_HEADER_LEN + 5);
    CHECK(decode_exact(buf, CLUSTER_MSG_HEADER_LEN + 5, &m, &copy, why, sizeof why) ==
          CLUSTER_MSG_OK);
    CHECK(m.hdr.type == 77);
    free(copy);

    /* A hostname, then an extension of type 9 with 16 bytes of data. */
    random_hdr(&h, CLUSTER_MSG_PONG);
    size_t len = cluster_msg_encode_ping(buf, &h, NULL, 0, "h", 1);
    CHECK(len == CLUSTER_MSG_HEADER_LEN + 16);
    unsigned char *x = buf + len;
    memset(x, 0, 24);
    set32(x, 24);
    x[5] = 9;
    memcpy(x + 8, "sixteen bytes!!!", 16);
    len += 24;
    set32(buf + 4, (uint32_t)len);
    buf[OFF_EXT_COUNT_LO] = 2;
    CHECK_MSG(decode_exact(buf, len, &m, &copy, why, sizeof why) == CLUSTER_MSG_OK, "%s", why);
    CHECK(m.body.ping.ext_count == 2 && m.body.ping.hostname_len == 1);
    uint32_t pos = 0;
    struct cluster_msg_ext e;
    CHECK(cluster_msg_ext_next(&m, &pos, &e) && e.type == CLUSTER_MSG_EXT_HOSTNAME);
    CHECK(cluster_msg_ext_next(&m, &pos, &e) && e.type == 9 && e.len == 16);
    CHECK(memcmp(e.data, "sixteen bytes!!!", 16) == 0);
    CHECK(!cluster_msg_ext_next(&m, &pos, &e));
    free(copy);

    /* extensions = 3 without EXT_DATA: Redis does not walk them. */
    random_hdr(&h, CLUSTER_MSG_PING);
    len = cluster_msg_encode_ping(buf, &h, NULL, 0, NULL, 0);
    buf[OFF_EXT_COUNT_LO] = 3;
    CHECK(decode_exact(buf, len, &m, &copy, why, sizeof why) == CLUSTER_MSG_OK);
    CHECK(m.hdr.extensions == 3 && m.body.ping.ext_count == 0 && !m.body.ping.hostname);
    free(copy);
}

/* Messages of a stream fed whole, byte by byte and in random pieces come out
 * the same; the framing refusals. */
static void test_framing(void)
{
    struct cluster_msg_hdr h;
    unsigned char stream[3 * CLUSTER_MSG_LEN_UPDATE];
    size_t lens[3], total = 0;
    random_hdr(&h, CLUSTER_MSG_PING);
    lens[0] = cluster_msg_encode_ping(stream, &h, NULL, 0, "node-1.example", 14);
    random_hdr(&h, CLUSTER_MSG_UPDATE);
    unsigned char slots[CLUSTER_MSG_SLOT_BYTES] = {0};
    lens[1] = cluster_msg_encode_update(stream + lens[0], &h, 7, h.sender, slots);
    random_hdr(&h, CLUSTER_MSG_PUBLISH);
    lens[2] = cluster_msg_encode_publish(stream + lens[0] + lens[1], &h, "c", 1, "m", 1);
    total = lens[0] + lens[1] + lens[2];

    for (int mode = 0; mode < 3; mode++) {
        unsigned char *acc = malloc(total);
        CHECK(acc);
        size_t have = 0, fed = 0, done = 0;
        while (fed < total) {
            size_t piece = mode == 0 ? total : mode == 1 ? 1 : 1 + rng_below(&rng, 3000);
            if (piece > total - fed)
                piece = total - fed;
            memcpy(acc + have, stream + fed, piece);
            have += piece;
            fed += piece;
            uint32_t want;
            int r;
            while ((r = cluster_msg_frame(acc, have, MAX_LEN, &want, NULL, 0)) == 1) {
                CHECK(done < 3 && want == lens[done]);
                struct cluster_msg m;
                CHECK(cluster_msg_decode(acc, want, &m, NULL, 0) == CLUSTER_MSG_OK);
                memmove(acc, acc + want, have - want);
                have -= want;
                done++;
            }
            CHECK(r == 0);
            CHECK(want > have);
        }
        CHECK(done == 3 && have == 0);
        free(acc);
    }

    uint32_t want = 0;
    char why[160];
    unsigned char bad[8] = {'R', 'C', 'm', 'b', 0, 0, 0x08, 0xcf}; /* 2255 */
    CHECK(cluster_msg_frame(bad, 7, MAX_LEN, &want, why, sizeof why) == 0 && want == 8);
    CHECK(cluster_msg_frame(bad, 8, MAX_LEN, &want, why, sizeof why) == CLUSTER_MSG_ESHORT);
    bad[7] = 0xd0; /* 2256: a header alone is whole at 2256 bytes */
    CHECK(cluster_msg_frame(bad, 8, MAX_LEN, &want, why, sizeof why) == 0 && want == 2256);
    CHECK(cluster_msg_frame(bad, 8, 2255, &want, why, sizeof why) == CLUSTER_MSG_ETOOBIG);
    bad[0] = 'G';
    CHECK(cluster_msg_frame(bad, 8, MAX_LEN, &want, why, sizeof why) == CLUSTER_MSG_ESIG);
    CHECK(strstr(why, "signature") != NULL);
    memcpy(bad, "GET / HT", 8);
    CHECK(cluster_msg_frame(bad, 8, MAX_LEN, &want, why, sizeof why) == CLUSTER_MSG_ESIG);
}

/* Every prefix of valid messages, and random bytes over them, decode or are
 * refused without reading out of bounds (ASan, valgrind). */
static void test_prefixes_and_noise(void)
{
    struct cluster_msg_hdr h;
    struct cluster_msg_gossip g[3];
    memset(g, 0, sizeof g);
    random_hdr(&h, CLUSTER_MSG_MEET);
    unsigned char msg[CLUSTER_MSG_HEADER_LEN + 3 * CLUSTER_MSG_GOSSIP_LEN + 64];
    size_t len = cluster_msg_encode_ping(msg, &h, g, 3, "some.host.name", 14);
    for (size_t n = 0; n < len; n++) {
        struct cluster_msg m;
        unsigned char *copy;
        CHECK(decode_exact(msg, n, &m, &copy, NULL, 0) != CLUSTER_MSG_OK);
        free(copy);
    }
    for (int round = 0; round < 2000; round++) {
        unsigned char noisy[sizeof msg];
        memcpy(noisy, msg, len);
        for (int k = 0; k < 4; k++) {
            size_t at = rng_below(&rng, len);
            /* Aim at the fields that steer the decoder half of the time. */
            static const size_t hot[] = {4, 5, 6, 7, 12, 13, 14, 15, 2214, 2215, 2253};
            if (rng_below(&rng, 2))
                at = hot[rng_below(&rng, sizeof hot / sizeof hot[0])];
            noisy[at] = (unsigned char)rng_next(&rng);
        }
        struct cluster_msg m;
        unsigned char *copy;
        if (decode_exact(noisy, len, &m, &copy, NULL, 0) == CLUSTER_MSG_OK &&
            m.hdr.type <= CLUSTER_MSG_MEET) {
            for (uint16_t i = 0; i < m.hdr.count; i++) {
                struct cluster_msg_gossip d;
                cluster_msg_gossip_at(&m, i, &d);
            }
            uint32_t pos = 0;
            struct cluster_msg_ext e;
            while (cluster_msg_ext_next(&m, &pos, &e))
                CHECK(e.data + e.len <= copy + len);
        }
        free(copy);
    }
}

int main(void)
{
    rng = check_seed(0x62757321);
    test_layout();
    test_round_trips();
    test_refusals();
    test_accepted_oddities();
    test_framing();
    test_prefixes_and_noise();
    printf("test_cluster_msg: ok\n");
    return 0;
}
