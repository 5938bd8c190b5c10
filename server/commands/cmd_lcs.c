/*
 * cmd_lcs.c - LCS: the longest common subsequence of two strings, as Redis
 * 7.0's lcsCommand (t_string.c) computes and replies it.
 *
 * Owns: lcs_commands[] and, during one call, the dynamic-programming table,
 * freed before the handler returns. Knows nothing of sockets.
 *
 * The table holds (alen + 1) * (blen + 1) 32-bit cells: O(N*M) time and
 * memory, as in Redis. A table over proto-max-bulk-len bytes is refused with
 * Redis's error before anything is allocated, and a failed allocation is
 * refused with its other error instead of stopping the server: the table is
 * transient, so it comes from malloc, not from the accounted allocator that
 * aborts on OOM.
 *
 * The walk back through the table prefers j-- on ties, as Redis's does, so
 * the subsequence and the IDX ranges are byte for byte Redis's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "cmd_lcs.h"
#include "keyspace.h"
#include "mem.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"

struct lcs_opts {
    int len, idx, withmatchlen;
    long long minmatchlen;
};

/* The options after the two keys. Returns 0, or replies and returns -1. */
static int lcs_opts_or_reply(struct client *c, struct lcs_opts *o)
{
    memset(o, 0, sizeof(*o));
    for (int j = 3; j < c->argc; j++) {
        const struct resp_slice *a = &c->argv[j];
        if (arg_is(a, "idx")) {
            o->idx = 1;
        } else if (arg_is(a, "len")) {
            o->len = 1;
        } else if (arg_is(a, "withmatchlen")) {
            o->withmatchlen = 1;
        } else if (arg_is(a, "minmatchlen") && j + 1 < c->argc) {
            if (arg_ll_or_reply(c, &c->argv[++j], &o->minmatchlen) < 0)
                return -1;
            if (o->minmatchlen < 0)
                o->minmatchlen = 0;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return -1;
        }
    }
    if (o->idx && o->len) {
        resp_add_error(&c->out, "ERR If you want both the length and indexes, please just use IDX.");
        return -1;
    }
    return 0;
}

/* One IDX match: [[astart, aend], [bstart, bend]] and, with WITHMATCHLEN,
 * its length. */
static void add_match(struct resp_out *o, uint32_t astart, uint32_t aend, uint32_t bstart,
                      uint32_t bend, int withlen)
{
    resp_add_array_len(o, withlen ? 3 : 2);
    resp_add_array_len(o, 2);
    resp_add_int(o, astart);
    resp_add_int(o, aend);
    resp_add_array_len(o, 2);
    resp_add_int(o, bstart);
    resp_add_int(o, bend);
    if (withlen)
        resp_add_int(o, (long long)aend - astart + 1);
}

static void cmd_lcs(struct client *c)
{
    struct ks_entry *ea = lookup_read(c, &c->argv[1]);
    struct ks_entry *eb = lookup_read(c, &c->argv[2]);
    struct lcs_opts opt;

    if ((ea && ea->type != KS_STRING) || (eb && eb->type != KS_STRING)) {
        resp_add_error(&c->out, "ERR The specified keys must contain string values");
        return;
    }
    if (lcs_opts_or_reply(c, &opt) < 0)
        return;
    const unsigned char *a = ea ? (const unsigned char *)ks_str(ea) : (const unsigned char *)"";
    const unsigned char *b = eb ? (const unsigned char *)ks_str(eb) : (const unsigned char *)"";
    size_t alen = ea ? ks_slen(ea) : 0, blen = eb ? ks_slen(eb) : 0;
    if (alen >= UINT32_MAX - 1 || blen >= UINT32_MAX - 1) {
        resp_add_error(&c->out, "ERR String too long for LCS");
        return;
    }

    /* Cell (i, j) is the LCS length of a[0..i) and b[0..j). */
    unsigned long long cells = (unsigned long long)(alen + 1) * (blen + 1);
    uint32_t *t = NULL;
    if (cells <= SIZE_MAX / sizeof(*t)) {
        if (cells * sizeof(*t) > server.cfg.proto_max_bulk_len) {
            resp_add_error(&c->out, "ERR Insufficient memory, transient memory for LCS exceeds "
                                    "proto-max-bulk-len");
            return;
        }
        t = malloc((size_t)cells * sizeof(*t));
    }
    if (!t) {
        resp_add_error(&c->out, "ERR Insufficient memory, failed allocating transient memory "
                                "for LCS");
        return;
    }
#define CELL(i, j) t[(size_t)(i) * (blen + 1) + (size_t)(j)]
    for (size_t i = 0; i <= alen; i++) {
        for (size_t j = 0; j <= blen; j++) {
            if (i == 0 || j == 0) {
                CELL(i, j) = 0;
            } else if (a[i - 1] == b[j - 1]) {
                CELL(i, j) = CELL(i - 1, j - 1) + 1;
            } else {
                uint32_t up = CELL(i - 1, j), left = CELL(i, j - 1);
                CELL(i, j) = up > left ? up : left;
            }
        }
    }
    uint32_t total = CELL(alen, blen);

    if (opt.len && !opt.idx) {
        resp_add_int(&c->out, total);
        free(t);
        return;
    }

    /* Walk back from the end, writing the subsequence from its last byte
     * and, for IDX, each run of bytes matched in both strings as it ends. */
    char *result = xmalloc((size_t)total + 1);
    struct resp_deferred matches;
    size_t nmatches = 0;
    if (opt.idx) {
        resp_add_map_len(&c->out, 2);
        resp_add_bulk_cstr(&c->out, "matches");
        resp_add_deferred(&c->out, &matches);
    }
    size_t i = alen, j = blen, k = total;
    int in_run = 0;
    uint32_t astart = 0, aend = 0, bstart = 0, bend = 0;
    while (i > 0 && j > 0) {
        int run_ends = 0;
        if (a[i - 1] == b[j - 1]) {
            result[--k] = (char)a[i - 1];
            if (!in_run) {
                in_run = 1;
                aend = (uint32_t)(i - 1);
                bend = (uint32_t)(j - 1);
            }
            /* Runs only grow backwards: the previous step matched at (i, j). */
            astart = (uint32_t)(i - 1);
            bstart = (uint32_t)(j - 1);
            run_ends = astart == 0 || bstart == 0;
            i--;
            j--;
        } else {
            if (CELL(i - 1, j) > CELL(i, j - 1))
                i--;
            else
                j--;
            run_ends = in_run;
        }
        if (run_ends) {
            uint32_t mlen = aend - astart + 1;
            if (opt.idx && (opt.minmatchlen == 0 || mlen >= opt.minmatchlen)) {
                add_match(&c->out, astart, aend, bstart, bend, opt.withmatchlen);
                nmatches++;
            }
            in_run = 0;
        }
    }
#undef CELL
    free(t);

    if (opt.idx) {
        resp_set_deferred_array(&c->out, &matches, nmatches);
        resp_add_bulk_cstr(&c->out, "len");
        resp_add_int(&c->out, total);
    } else {
        resp_add_bulk(&c->out, result, total);
    }
    xfree(result);
}

/* Arity, flags and key positions as Redis 7.0's COMMAND INFO shows them
 * (COMMAND DOCS answers Redis's own docs, redis_docs.c). */
const struct command lcs_commands[] = {
    {.name = "lcs", .proc = cmd_lcs, .arity = -3, .flags = CMD_READONLY,
     .first_key = 1, .last_key = 2, .key_step = 1, .group = "string"},
    {0},
};
