/*
 * fuzz_resp_reply.c - libFuzzer target for proto/resp_reply.c, the reader of
 * the replies one node's cluster-wide query gets from the others.
 *
 * Input: the bytes of a stream of replies. Checked, aborting on any
 * violation:
 *  1. Scanned whole, and scanned again growing one byte at a time (the
 *     resumable path), each reply gets the same length and outcome.
 *  2. A measured reply parses, and every slice lies inside its bytes.
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "resp_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok)
        abort();
}

static void inside(const char *buf, size_t len, const char *p, size_t n)
{
    check(p >= buf && p + n <= buf + len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    size_t at = 0;
    while (at < size) {
        struct resp_reply_scan whole, bytewise;
        resp_reply_scan_reset(&whole, 1024, 1 << 20);
        resp_reply_scan_reset(&bytewise, 1024, 1 << 20);
        long long n = resp_reply_measure(&whole, buf + at, size - at);
        long long m = 0;
        for (size_t k = 1; k <= size - at && m == 0; k++)
            m = resp_reply_measure(&bytewise, buf + at, k);
        check(n == m);
        if (n <= 0)
            break;
        check((size_t)n <= size - at);
        struct resp_reply r;
        if (resp_reply_parse(buf + at, (size_t)n, &r) == 0) {
            if (r.type == RESP_REPLY_STATUS || r.type == RESP_REPLY_ERROR ||
                r.type == RESP_REPLY_BULK)
                inside(buf + at, (size_t)n, r.str.ptr, r.str.len);
            for (size_t i = 0; i < r.n; i++)
                if (r.elems[i].ptr)
                    inside(buf + at, (size_t)n, r.elems[i].ptr, r.elems[i].len);
            resp_reply_clear(&r);
        }
        at += (size_t)n;
    }
    return 0;
}
