/*
 * keyslot.c - Redis Cluster's hash slot of a key (keyslot.h).
 *
 * The CRC is computed four bytes a step from four 256-entry tables built on
 * first use (2 KB): in cluster mode every keyed request hashes its key (and
 * a new key hashes it again for the slot index), and a byte-a-step loop
 * took 9 to 10 instructions a byte, each step waiting on the last.
 *
 * Why four bytes at once give the same CRC: the state is 16 bits, and a
 * step from state crc over bytes b0 b1 b2 b3 is the step from state 0 over
 * b0 ^ (crc >> 8), b1 ^ (crc & 0xff), b2, b3; from state 0 the CRC is linear
 * in the bytes, so it is the xor of each byte's own part: step[k][v], the
 * state after byte v then k zero bytes (step[0] is the usual byte table).
 */
#include "keyslot.h"

#include <string.h>

static uint16_t step[4][256];
static int built;

static void build_tables(void)
{
    for (unsigned b = 0; b < 256; b++) {
        uint16_t crc = (uint16_t)(b << 8);
        for (int i = 0; i < 8; i++)
            crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
        step[0][b] = crc;
    }
    for (int k = 1; k < 4; k++)
        for (unsigned b = 0; b < 256; b++)
            step[k][b] = (uint16_t)((step[k - 1][b] << 8) ^ step[0][step[k - 1][b] >> 8]);
    built = 1;
}

uint16_t crc16_xmodem(const void *buf, size_t len)
{
    const unsigned char *p = buf;
    unsigned crc = 0;
    size_t i = 0;
    if (!built)
        build_tables();
    for (; i + 4 <= len; i += 4)
        crc = step[3][p[i] ^ (crc >> 8)] ^ step[2][p[i + 1] ^ (crc & 0xff)] ^ step[1][p[i + 2]] ^
              step[0][p[i + 3]];
    for (; i < len; i++)
        crc = ((crc << 8) & 0xffff) ^ step[0][(crc >> 8) ^ p[i]];
    return (uint16_t)crc;
}

unsigned key_hash_slot(const char *key, size_t len)
{
    const char *open = memchr(key, '{', len);
    if (open) {
        const char *tag = open + 1;
        const char *close = memchr(tag, '}', len - (size_t)(tag - key));
        if (close && close > tag)
            return crc16_xmodem(tag, (size_t)(close - tag)) & (CLUSTER_SLOTS - 1);
    }
    return crc16_xmodem(key, len) & (CLUSTER_SLOTS - 1);
}

int key_prefix_tagged(const char *p, size_t len)
{
    const char *open = memchr(p, '{', len);
    if (!open)
        return 0;
    size_t at = (size_t)(open - p) + 1;
    const char *close = memchr(p + at, '}', len - at);
    return close && close > open + 1;
}
