/*
 * test_keyslot.c - key_hash_slot and crc16_xmodem (server/data/keyslot.c)
 * against the slots redis-server 7.0.15's CLUSTER KEYSLOT gave for the same
 * keys (hash tags, empty tags, unclosed and nested braces, the empty key),
 * the CRC's standard check value, and the table-driven CRC (two bytes a
 * step) against the CRC's definition, a bit at a time, for every length up
 * to 64 of pseudo-random bytes (a fixed seed: the bytes only need variety).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "keyslot.h"

/* CRC-16/XMODEM by its definition: polynomial 0x1021, initial 0, a bit at
 * a time. */
static uint16_t crc16_bitwise(const unsigned char *p, size_t len)
{
    uint16_t crc = 0;
    for (size_t i = 0; i < len; i++) {
        crc ^= (uint16_t)(p[i] << 8);
        for (int b = 0; b < 8; b++)
            crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    return crc;
}

int main(void)
{
    static const struct {
        const char *key;
        unsigned slot;
    } redis[] = {
        {"foo", 12182},     {"bar", 5061},   {"somekey", 11058},
        {"hello", 866},     {"{user1000}.following", 3443},
        {"{}x", 10595},     {"a{}b{c}", 7353}, {"{a", 10276},
        {"x}{y}", 12222},   {"", 0},         {"{{a}}", 10276},
    };
    /* CRC-16/XMODEM's check value: the CRC of "123456789". */
    CHECK(crc16_xmodem("123456789", 9) == 0x31c3);
    for (size_t i = 0; i < sizeof(redis) / sizeof(redis[0]); i++)
        CHECK_MSG(key_hash_slot(redis[i].key, strlen(redis[i].key)) == redis[i].slot,
                  "'%s' in slot %u, Redis says %u", redis[i].key,
                  key_hash_slot(redis[i].key, strlen(redis[i].key)), redis[i].slot);
    /* Binary keys: a NUL inside the tag is part of it. */
    CHECK(key_hash_slot("{a\0b}1", 6) == key_hash_slot("a\0b", 3));
    CHECK(key_hash_slot("{a\0b}1", 6) != key_hash_slot("a", 1));
    unsigned char bytes[64];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof(bytes); i++) {
        x = x * 1103515245u + 12345u;
        bytes[i] = (unsigned char)(x >> 16);
    }
    for (size_t len = 0; len <= sizeof(bytes); len++)
        for (size_t off = 0; off + len <= sizeof(bytes) && off < 3; off++)
            CHECK_MSG(crc16_xmodem(bytes + off, len) == crc16_bitwise(bytes + off, len),
                      "length %zu at offset %zu", len, off);
    printf("keyslot: ok\n");
    return 0;
}
