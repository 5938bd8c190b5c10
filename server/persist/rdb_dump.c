/*
 * rdb_dump.c - DUMP's payload (rdb_dump.h): the value, the version, the
 * checksum. The checksum is snapshot.c's CRC-64/Jones, which is Redis's.
 */
#include "rdb_dump.h"

#include <stdint.h>

#include "mem.h"
#include "snapshot.h"

char *rdb_dump_payload(struct ks_entry *e, size_t *len)
{
    struct rdb_out o = {0};
    if (e->type == KS_STRING)
        rdb_value_write_string(&o, ks_str(e), ks_slen(e));
    else
        rdb_value_write(&o, e->type, ks_ptr(e));
    unsigned char trailer[RDB_DUMP_TRAILER];
    trailer[0] = RDB_VERSION & 0xff;
    trailer[1] = RDB_VERSION >> 8;
    rdb_out_bytes(&o, trailer, 2);
    uint64_t crc = snap_crc64(0, o.buf, o.len);
    for (int i = 0; i < 8; i++)
        trailer[2 + i] = (unsigned char)(crc >> (8 * i));
    rdb_out_bytes(&o, trailer + 2, 8);
    return rdb_out_take(&o, len);
}

int rdb_dump_verify(const char *p, size_t len)
{
    if (len < RDB_DUMP_TRAILER)
        return -1;
    const char *trailer = p + len - RDB_DUMP_TRAILER;
    if (rdb_le(trailer, 2) > RDB_VERSION)
        return -1;
    return rdb_le(trailer + 2, 8) == snap_crc64(0, p, len - 8) ? 0 : -1;
}

int rdb_dump_read(const char *p, size_t len, const struct rdb_limits *lim, int deep,
                  struct rdb_value *v, const char **why)
{
    /* Redis reads the value from the whole payload, trailer included: a
     * value cut short runs into the trailer's bytes, as there. */
    struct rdb_in in = {(const unsigned char *)p, len, 0};
    return rdb_value_read(&in, lim, deep, v, why);
}
