/*
 * test_keyslot.c - key_hash_slot and crc16_xmodem (server/data/keyslot.c)
 * against the slots redis-server 7.0.15's CLUSTER KEYSLOT gave for the same
 * keys (hash tags, empty tags, unclosed and nested braces, the empty key),
 * and the CRC's standard check value.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "keyslot.h"

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
    printf("keyslot: ok\n");
    return 0;
}
