/*
 * fuzz_snapshot.c - libFuzzer target for the snapshot loader (snap_load in
 * server/persist/snapshot.c) and, for what it accepts, the writer.
 *
 * Input: the bytes of a snapshot file, loaded from an in-memory file
 * (harness_file) into a new keyspace of HARNESS_DATABASES databases, as
 * persist_load does at start. Checked, aborting on a violation:
 *  1. Nothing crashes, leaks or reads out of bounds; a refused file gets an
 *     error text naming an offset.
 *  2. Accepted or refused, the keyspace it leaves passes ks_check and every
 *     sorted set zs_check, every hash and set om_check (a refused load's keyspace is freed by the
 *     caller, so it must be whole trees).
 *  3. An accepted file, written back with snap_write_fd and loaded again,
 *     loads the same keys, less any whose deadline came within the second.
 * A file ends with a checksum of everything before it, which a mutation
 * breaks: a refused input whose last 8 bytes are not that checksum is
 * loaded a second time with them made so, so mutations reach the
 * records' checks and the write-back (the first load still tries the
 * mismatch path).
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bgsave.h"
#include "clock.h"
#include "harness.h"
#include "keyspace.h"
#include "server.h"
#include "snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long long load(int slot, struct keyspace **out, char *err, size_t errlen)
{
    const char *path;
    int absent = 0;
    struct snap_limits lim;
    persist_snap_limits(&lim); /* the defaults: harness_init set them */
    harness_file(slot, &path);
    *out = ks_new(HARNESS_DATABASES);
    err[0] = '\0';
    long long n = snap_load(*out, path, &lim, &absent, err, errlen);
    if (absent)
        abort();
    if (n < 0 && (err[0] == '\0' || !strstr(err, "offset")))
        abort();
    harness_check_keyspace(*out);
    return n;
}

/* Keys whose deadline is within the next second: a reload may drop them. */
static long long soon(const struct keyspace *ks, int64_t now_ms)
{
    long long n = 0;
    for (int i = 0; i < ks->count; i++)
        for (struct ks_entry *e = ks_first(&ks->dbs[i]); e; e = ks_next(e))
            if (ks_get_expire(e) >= 0 && ks_get_expire(e) <= now_ms + 1000)
                n++;
    return n;
}

/* Loads data[0..size) as a file, and writes back and reloads what loads.
 * Returns whether it loaded. */
static int check_file(const uint8_t *data, size_t size)
{
    struct keyspace *ks, *again;
    char err[512];
    const char *path;

    int64_t start = mstime();
    harness_file_fill(harness_file(0, &path), data, size);
    long long n = load(0, &ks, err, sizeof(err));
    if (n >= 0) {
        int fd = harness_file(1, &path);
        harness_file_fill(fd, NULL, 0);
        /* Keys loaded were live at load time, which is after start. */
        if (snap_write_fd(fd, ks, start, err, sizeof(err)) < 0)
            abort();
        long long volatile_keys = soon(ks, mstime());
        long long m = load(1, &again, err, sizeof(err));
        if (m > n || m < n - volatile_keys)
            abort();
        ks_free(again);
    }
    ks_free(ks);
    return n >= 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char sum[8];

    harness_init();
    if (check_file(data, size) || size < 8)
        return 0;
    uint64_t crc = snap_crc64(0, data, size - 8);
    for (int i = 0; i < 8; i++)
        sum[i] = (unsigned char)(crc >> (8 * i));
    if (!memcmp(data + size - 8, sum, 8))
        return 0;
    uint8_t *fixed = malloc(size);
    if (!fixed)
        abort();
    memcpy(fixed, data, size - 8);
    memcpy(fixed + size - 8, sum, 8);
    check_file(fixed, size);
    free(fixed);
    return 0;
}
