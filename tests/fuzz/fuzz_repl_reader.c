/*
 * fuzz_repl_reader.c - libFuzzer target for what a replica reads from its
 * primary before the stream (server/core/repl_reader.c), driven as
 * repl_replica.c drives it: three reply lines (PING, REPLCONF
 * listening-port, REPLCONF capa), the answer to PSYNC after any empty
 * keepalive lines, then for +FULLRESYNC the snapshot's preamble line
 * ($<len> or $EOF:<mark>, after keepalives) and the snapshot, and last the
 * command stream, parsed as the link's client parses it.
 *
 * Input: byte 0 picks how the rest is cut into reads (bit 7: the payload's
 * writes fail past PAYLOAD_ROOM bytes, as a full disk); the rest is what
 * the primary sends. Checked, aborting on a violation:
 *  1. Nothing crashes, leaks or reads out of bounds.
 *  2. Read whole and read in pieces, the input gives the same lines,
 *     answers, payload, stream and outcome (without failing writes).
 *  3. A line is shorter than REPL_READER_LINE_MAX and holds no LF; a
 *     +FULLRESYNC accepted has a 40-byte printable replid and an offset >= 0.
 *  4. A sized payload that ended has its declared length; an EOF-mode one
 *     holds no mark, and the bytes after the preamble are exactly payload,
 *     mark and stream.
 *  5. A reader whose writes fail ends in REPL_READ_ERROR exactly when a
 *     whole read's payload would have passed PAYLOAD_ROOM.
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repl_reader.h"
#include "resp_parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PAYLOAD_ROOM 64
#define HANDSHAKE_LINES 3

struct bytes {
    char *p;
    size_t len;
};

static void bytes_add(struct bytes *b, const void *p, size_t n)
{
    if (!n)
        return;
    b->p = realloc(b->p, b->len + n);
    if (!b->p)
        abort();
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

enum outcome { ENDED_EARLY, REFUSED, BAD_HEAD, FAILED, STREAM };

struct run {
    struct bytes log;     /* the lines and answers, in order */
    struct bytes payload;
    struct bytes stream;  /* what came after the handshake and the payload */
    struct bytes after_head; /* every byte after the preamble line */
    enum outcome outcome;
    int full, eof_mode, payload_ended;
    long long declared;
    char mark[REPL_READER_MARK_LEN];
    int fail_writes;
};

static int write_cb(void *ctx, const char *p, size_t n)
{
    struct run *run = ctx;
    if (run->fail_writes && run->payload.len + n > PAYLOAD_ROOM)
        return -1;
    bytes_add(&run->payload, p, n);
    return 0;
}

/* The next read's length: 1 to 64 bytes from a small generator seeded by
 * the input's first byte, or everything when cut is 0. */
static size_t next_read(uint32_t *state, size_t left)
{
    if (!*state)
        return left;
    *state = *state * 1103515245u + 12345u;
    size_t n = ((*state >> 16) & 63) + 1;
    return n < left ? n : left;
}

static void check_line(const struct repl_reader *r)
{
    size_t len = strnlen(r->line, sizeof(r->line));
    if (len >= REPL_READER_LINE_MAX || memchr(r->line, '\n', len))
        abort();
}

/* One reply line at handshake step *step; returns 0 to go on, or 1 when
 * the replica would stop (the outcome set). */
static int on_line(struct run *run, struct repl_reader *r, int *step)
{
    const char *line = r->line;
    check_line(r);
    bytes_add(&run->log, "L", 1);
    bytes_add(&run->log, line, strlen(line) + 1);
    if (*step < HANDSHAKE_LINES) { /* any answer: errors are logged, not fatal, but PING's */
        (*step)++;
        return 0;
    }
    if (line[0] == '\0')
        return 0; /* a keepalive */
    if (*step == HANDSHAKE_LINES) {
        struct repl_psync_reply reply;
        enum repl_psync_answer a = repl_reader_psync_reply(line, &reply);
        char tag = (char)('0' + a);
        bytes_add(&run->log, &tag, 1);
        if (a == REPL_PSYNC_FULL) {
            if (strlen(reply.replid) != REPL_READER_REPLID_LEN || reply.offset < 0)
                abort();
            for (size_t i = 0; i < REPL_READER_REPLID_LEN; i++)
                if (reply.replid[i] <= ' ' || reply.replid[i] > '~')
                    abort();
            bytes_add(&run->log, reply.replid, sizeof(reply.replid));
            bytes_add(&run->log, &reply.offset, sizeof(reply.offset));
            run->full = 1;
            (*step)++;
            return 0;
        }
        if (a == REPL_PSYNC_CONTINUE) {
            if (reply.replid[0] && strlen(reply.replid) != REPL_READER_REPLID_LEN)
                abort();
            bytes_add(&run->log, reply.replid, strlen(reply.replid) + 1);
            run->outcome = STREAM;
            return 1;
        }
        run->outcome = REFUSED;
        return 1;
    }
    /* The preamble. */
    if (line[0] != '$' || repl_reader_begin_payload(r, line) < 0) {
        run->outcome = BAD_HEAD;
        return 1;
    }
    run->eof_mode = r->eof_mode;
    if (r->eof_mode)
        memcpy(run->mark, r->mark, REPL_READER_MARK_LEN);
    else
        run->declared = r->remaining;
    bytes_add(&run->log, "H", 1);
    (*step)++;
    return 0;
}

static void read_all(struct run *run, const char *in, size_t size, uint32_t cut)
{
    struct repl_reader r;
    int step = 0, stopped = 0, in_payload = 0;
    repl_reader_init(&r, write_cb, run);
    run->outcome = ENDED_EARLY;
    while (size && !stopped) {
        size_t n = next_read(&cut, size);
        const char *p = in;
        in += n;
        size -= n;
        if (in_payload)
            bytes_add(&run->after_head, p, n);
        while (n && !stopped) {
            enum repl_read ev;
            size_t used = repl_reader_feed(&r, p, n, &ev);
            if (used > n)
                abort();
            p += used;
            n -= used;
            switch (ev) {
            case REPL_READ_MORE:
                if (n)
                    abort();
                break;
            case REPL_READ_ERROR:
                if (!r.err)
                    abort();
                run->outcome = FAILED;
                stopped = 1;
                break;
            case REPL_READ_PAYLOAD_END:
                if (r.in_payload || r.pending)
                    abort();
                run->payload_ended = 1;
                run->outcome = STREAM;
                stopped = 1;
                break;
            case REPL_READ_LINE:
                stopped = on_line(run, &r, &step);
                if (!stopped && r.in_payload && !in_payload) {
                    in_payload = 1;
                    bytes_add(&run->after_head, p, n);
                }
                break;
            }
        }
        if (run->outcome == STREAM) {
            bytes_add(&run->stream, p, n);
            bytes_add(&run->stream, in, size);
            if (in_payload)
                bytes_add(&run->after_head, in, size);
        }
    }
    repl_reader_reset(&r);
}

static void free_run(struct run *run)
{
    free(run->log.p);
    free(run->payload.p);
    free(run->stream.p);
    free(run->after_head.p);
}

static int same(const struct bytes *a, const struct bytes *b)
{
    return a->len == b->len && (!a->len || !memcmp(a->p, b->p, a->len));
}

/* The stream as the link's client reads it, to its first error or end. */
static void parse_stream(const struct bytes *s)
{
    struct resp_parser parser;
    struct resp_request req;
    int rc;
    if (resp_parser_init(&parser, NULL) < 0 || resp_parser_feed(&parser, s->p, s->len) < 0)
        abort();
    while ((rc = resp_parser_next(&parser, &req)) == RESP_REQUEST)
        if (req.argc < 1)
            abort();
    if (rc == RESP_ERR && !resp_parser_error(&parser))
        abort();
    resp_parser_destroy(&parser);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct run whole = {0}, pieces = {0};
    const char *in = (const char *)data + 1;
    size_t n = size - 1;

    read_all(&whole, in, n, 0);
    pieces.fail_writes = data[0] >> 7;
    read_all(&pieces, in, n, (uint32_t)(data[0] & 0x7f) + 1);

    if (!pieces.fail_writes) {
        if (whole.outcome != pieces.outcome || !same(&whole.log, &pieces.log) ||
            !same(&whole.payload, &pieces.payload) || !same(&whole.stream, &pieces.stream))
            abort();
    } else {
        /* The writes fail once past the room, and only then. */
        if (pieces.outcome == FAILED && whole.outcome != FAILED && whole.payload.len <= PAYLOAD_ROOM)
            abort();
        if (whole.payload_ended && whole.payload.len > PAYLOAD_ROOM && pieces.outcome != FAILED)
            abort();
    }
    if (whole.payload_ended) {
        if (!whole.eof_mode && (long long)whole.payload.len != whole.declared)
            abort();
        if (whole.eof_mode) {
            if (whole.payload.len >= REPL_READER_MARK_LEN &&
                memmem(whole.payload.p, whole.payload.len, whole.mark, REPL_READER_MARK_LEN))
                abort();
            /* After the preamble: the payload, the mark, the stream. */
            if (whole.after_head.len != whole.payload.len + REPL_READER_MARK_LEN + whole.stream.len ||
                (whole.payload.len && memcmp(whole.after_head.p, whole.payload.p, whole.payload.len)) ||
                memcmp(whole.after_head.p + whole.payload.len, whole.mark, REPL_READER_MARK_LEN))
                abort();
        }
    }
    if (whole.outcome == STREAM)
        parse_stream(&whole.stream);
    free_run(&whole);
    free_run(&pieces);
    return 0;
}
