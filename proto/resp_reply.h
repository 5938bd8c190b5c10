/*
 * resp_reply.h - a reader of RESP2 replies, as a client reads them: what a
 * node sends back to another node's cluster-wide ordered query
 * (server/cluster/cluster_qlink.c).
 *
 * Owns nothing but each parsed reply's element vector. Does no I/O and
 * knows nothing of sockets: the caller feeds the bytes it holds, learns how
 * long the next reply is (resp_reply_measure, resumable so a long reply
 * arriving in many reads is scanned once), then parses that complete reply
 * (resp_reply_parse), whose slices point into the caller's bytes.
 *
 * Only the shapes the ordered commands answer with are accepted: a status,
 * an error, an integer, a bulk or nil, or one array of bulks and nils (no
 * nesting). Anything else is a protocol error, as is a length beyond the
 * caps: bytes from the wire never decide an unbounded allocation.
 */
#ifndef RBKV_RESP_REPLY_H
#define RBKV_RESP_REPLY_H

#include <stddef.h>

#include "resp_parser.h"

enum resp_reply_type {
    RESP_REPLY_STATUS,
    RESP_REPLY_ERROR,
    RESP_REPLY_INT,
    RESP_REPLY_BULK,
    RESP_REPLY_NIL,
    RESP_REPLY_ARRAY,
};

/* One element of an array: a bulk, or nil (ptr NULL). */
struct resp_reply_elem {
    const char *ptr;
    size_t len;
};

struct resp_reply {
    enum resp_reply_type type;
    long long integer;         /* RESP_REPLY_INT */
    struct resp_slice str;     /* STATUS, ERROR (without '-'), BULK */
    size_t n;                  /* ARRAY: its elements */
    struct resp_reply_elem *elems; /* owned; resp_reply_clear frees */
};

/* Where a scan of the next reply stands, so a scan resumes where the bytes
 * ran out. Zeroed (resp_reply_scan_reset) before each reply. */
struct resp_reply_scan {
    size_t pos;      /* bytes of the reply scanned */
    long long left;  /* elements of the array still to scan, -1 before the header */
    size_t max_elems;
    size_t max_bulk;
};

void resp_reply_scan_reset(struct resp_reply_scan *s, size_t max_elems, size_t max_bulk);

/* Scans buf[0..len), the bytes from the reply's start: returns the reply's
 * length once it is all there, 0 when more bytes are needed (s remembers
 * how far it got; call again with the same start and more bytes), or -1
 * when the bytes are no reply of the accepted shapes. */
long long resp_reply_measure(struct resp_reply_scan *s, const char *buf, size_t len);

/* Parses the complete reply buf[0..len) that resp_reply_measure measured
 * (len is its result) into r, whose slices point into buf. Returns 0, or -1
 * when memory runs out (r then holds nothing to free). */
int resp_reply_parse(const char *buf, size_t len, struct resp_reply *r);

/* Frees r's element vector; r may be zeroed or parsed. */
void resp_reply_clear(struct resp_reply *r);

#endif
