/*
 * slotindex_mem.c - memory per key of the keyspace with the per-slot key
 * index of cluster mode (server/data/slotindex.h) on or off, for
 * bench/slotindex_vs_redis.sh: used memory (mem.h's mem_used, what INFO's
 * used_memory reports) grown by loading KEYS string keys, divided by KEYS.
 *
 * usage: slotindex_mem KEYS on|off [FORMAT]
 *   FORMAT the key's printf format (key:%08d), each with a 16-byte value
 *   (value:%010d), as bench/server_vs_redis.sh loads its servers.
 * Prints one line: "keys K index on|off used_B_per_key U index_B_per_key I"
 * (I: the slot index's own bytes, ks_slots_memory).
 *
 * A program rather than the server because the server cannot yet start in
 * cluster mode on this branch; the keys go in through ks_set_string as SET
 * puts them, into the same allocator (mimalloc) the server links.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyspace.h"
#include "mem.h"
#include "slotindex.h"

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[2], "on") && strcmp(argv[2], "off"))) {
        fprintf(stderr, "usage: slotindex_mem KEYS on|off [FORMAT]\n");
        return 2;
    }
    long keys = strtol(argv[1], NULL, 10);
    const char *fmt = argc > 3 ? argv[3] : "key:%08d";
    int on = !strcmp(argv[2], "on");
    if (keys <= 0)
        return 2;
    if (on)
        ks_slots_enable();
    struct keyspace *ks = ks_new(16);
    struct db *db = &ks->dbs[0];
    size_t before = mem_used();
    char key[64], value[32];
    for (long i = 0; i < keys; i++) {
        int klen = snprintf(key, sizeof(key), fmt, (int)i);
        int vlen = snprintf(value, sizeof(value), "value:%010d", (int)i);
        ks_set_string(db, key, (size_t)klen, value, (size_t)vlen, 0);
    }
    size_t after = mem_used();
    printf("keys %ld index %s used_B_per_key %.1f index_B_per_key %.1f\n", keys, argv[2],
           (double)(after - before) / (double)keys, (double)ks_slots_memory(db) / (double)keys);
    ks_free(ks);
    return 0;
}
