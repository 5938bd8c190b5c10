/*
 * fuzz_dump_payload.c - libFuzzer target for Redis's RDB value format as
 * RESTORE reads it (server/persist/rdb_value.c, rdb_blobs.c, rdb_io.c,
 * lzf.c): the value's body, after the trailer's check. The checksum is
 * not in the way: the target calls the body's reader directly, which is
 * what RESTORE calls once a payload's CRC matched (rdb_dump.c only strips
 * and checks the trailer), so the fuzzer's bytes all reach the parser.
 *
 * Input: byte 0 holds options (bit 0: deep sanitization; bit 1: tiny
 * encoding thresholds, so built values cross into their tree forms); the
 * rest is a value: its type byte and body. Checked, aborting on a
 * violation:
 *  1. Nothing crashes, leaks, hangs or reads out of bounds.
 *  2. A value read is not empty (but a stream) and keeps its type's
 *     invariants (ol_check, om_check, zs_check, xs_check).
 *  3. Written back (rdb_value_write), it reads again, deeply sanitized, to
 *     a value that writes the same bytes: rbkv's output is canonical and
 *     passes its own strictest check.
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "olist.h"
#include "omap.h"
#include "rdb_value.h"
#include "xstream.h"
#include "zset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OPT_DEEP 0x01
#define OPT_TINY 0x02

static void check_value(const struct rdb_value *v, const struct rdb_limits *lim)
{
    const char *why = NULL;
    int rc = 0;
    switch (v->type) {
    case KS_LIST:
        rc = ol_len(v->ptr) == 0 ? -1 : ol_check(v->ptr, &lim->list, &why);
        break;
    case KS_SET:
    case KS_HASH:
        rc = om_len(v->ptr) == 0 ? -1 : om_check(v->ptr, &why);
        break;
    case KS_ZSET:
        rc = zs_len(v->ptr) == 0 ? -1 : zs_check(v->ptr, &why);
        break;
    case KS_STREAM:
        rc = xs_check(v->ptr, &why);
        break;
    default:
        break;
    }
    if (rc < 0)
        abort();
}

static void write_value(struct rdb_out *o, const struct rdb_value *v)
{
    if (v->type == KS_STRING)
        rdb_value_write_string(o, v->str.p, v->str.len);
    else
        rdb_value_write(o, v->type, v->ptr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct rdb_limits lim = {.list = {.max_listpack_size = -2},
                             .hash = {.entries = 128, .value = 64},
                             .set = {.entries = 128, .value = 64, .int_entries = 512}};
    if (data[0] & OPT_TINY) {
        lim.list.max_listpack_size = 2;
        lim.hash = (struct om_limits){.entries = 2, .value = 4};
        lim.set = (struct om_limits){.entries = 2, .value = 4, .int_entries = 3};
    }
    struct rdb_in in = {data + 1, size - 1, 0};
    struct rdb_value v;
    const char *why;
    if (rdb_value_read(&in, &lim, data[0] & OPT_DEEP, &v, &why) != 0)
        return 0;
    if (in.pos > size - 1)
        abort();
    check_value(&v, &lim);

    struct rdb_out first = {0}, second = {0};
    write_value(&first, &v);
    rdb_value_release(&v);
    struct rdb_in again = {(const unsigned char *)first.buf, first.len, 0};
    if (rdb_value_read(&again, &lim, 1, &v, &why) != 0 || again.pos != first.len)
        abort();
    check_value(&v, &lim);
    write_value(&second, &v);
    rdb_value_release(&v);
    if (first.len != second.len || memcmp(first.buf, second.buf, first.len) != 0)
        abort();
    rdb_out_free(&first);
    rdb_out_free(&second);
    return 0;
}
