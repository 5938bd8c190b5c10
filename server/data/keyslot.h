/*
 * keyslot.h - Redis Cluster's hash slot of a key: CRC16 (XMODEM: polynomial
 * 0x1021, initial value 0) of the key, or of its hash tag, modulo 16384.
 *
 * The hash tag is what lies between the first '{' and the first '}' after
 * it, when that is not empty; so "{user1}.a" and "{user1}.b" share a slot.
 * Otherwise the whole key is hashed. These are the slots every cluster
 * client computes, so they must be Redis's to the bit (test_keyslot.c
 * checks values redis-server 7.0.15 gave).
 */
#ifndef RBKV_KEYSLOT_H
#define RBKV_KEYSLOT_H

#include <stddef.h>
#include <stdint.h>

#define CLUSTER_SLOTS 16384

/* CRC16-XMODEM of buf[0..len). */
uint16_t crc16_xmodem(const void *buf, size_t len);
/* The hash slot of key[0..len), 0..CLUSTER_SLOTS-1. */
unsigned key_hash_slot(const char *key, size_t len);
/* Whether every key starting with p[0..len) has the same complete hash tag,
 * so the same slot: p holds a '{' and, after it, a '}' with at least one
 * byte between. */
int key_prefix_tagged(const char *p, size_t len);

#endif
