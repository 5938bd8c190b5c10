/*
 * keyslot.c - Redis Cluster's hash slot of a key (keyslot.h).
 *
 * The CRC is computed a byte at a time from a 256-entry table built on first
 * use: keys are short, and the table costs 512 bytes.
 */
#include "keyslot.h"

#include <string.h>

static uint16_t crc_table[256];

static void build_table(void)
{
    for (unsigned b = 0; b < 256; b++) {
        uint16_t crc = (uint16_t)(b << 8);
        for (int i = 0; i < 8; i++)
            crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
        crc_table[b] = crc;
    }
}

uint16_t crc16_xmodem(const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint16_t crc = 0;
    /* Entry 1 is 0x1021 once built: one test serves as the "built" flag. */
    if (!crc_table[1])
        build_table();
    for (size_t i = 0; i < len; i++)
        crc = (uint16_t)((crc << 8) ^ crc_table[((crc >> 8) ^ p[i]) & 0xff]);
    return crc;
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
