/*
 * repl_reader.h - reading what a primary sends a replica before the command
 * stream (prefix repl_reader_): the reply lines of the handshake, the answer
 * to PSYNC (+FULLRESYNC <replid> <offset>, +CONTINUE [<replid>]), the
 * snapshot's preamble ($<len>, or $EOF:<mark> for a diskless one) and the
 * snapshot itself up to its end, after which the bytes are the stream.
 *
 * Bytes in, parsed results out: no socket, file, clock or server state, so
 * the replica (repl_replica.c) and its fuzz target
 * (tests/fuzz/fuzz_repl_reader.c) run the same code. The payload goes to a
 * callback (the replica's temporary file). Every length from the wire is
 * capped: a reply line at REPL_READER_LINE_MAX bytes with its CRLF, a sized
 * payload's length by parse_ll, and in EOF mode at most
 * REPL_READER_MARK_LEN - 1 bytes are held between two feeds.
 */
#ifndef RBKV_REPL_READER_H
#define RBKV_REPL_READER_H

#include <stddef.h>

#define REPL_READER_LINE_MAX 512
#define REPL_READER_MARK_LEN 40
#define REPL_READER_REPLID_LEN 40

/* What repl_reader_feed stopped at. */
enum repl_read {
    REPL_READ_MORE,        /* every byte was used: the next read goes on */
    REPL_READ_LINE,        /* r->line holds a whole reply line */
    REPL_READ_PAYLOAD_END, /* the snapshot's last byte went to the callback */
    REPL_READ_ERROR,       /* r->err says why; the link is done */
};

/* Takes payload bytes p[0..n): 0, or -1 when they could not be kept (the
 * callback reports why). */
typedef int (*repl_reader_write_cb)(void *ctx, const char *p, size_t n);

struct repl_reader {
    /* After REPL_READ_LINE: the line without its LF or CRLF, NUL-terminated
     * (a NUL inside it ends it for the C string functions). */
    char line[REPL_READER_LINE_MAX];
    size_t line_len;             /* bytes of a line not yet whole */
    const char *err;             /* after REPL_READ_ERROR: a static text */
    int in_payload;              /* between repl_reader_begin_payload and its end */
    int eof_mode;                /* $EOF:<mark>; else sized */
    char mark[REPL_READER_MARK_LEN];
    char *pending;               /* EOF mode: bytes that may begin the mark (owned) */
    size_t pending_len;
    long long remaining;         /* sized mode: bytes still to come */
    repl_reader_write_cb write;
    void *write_ctx;
};

/* The answer to PSYNC. */
enum repl_psync_answer {
    REPL_PSYNC_FULL,     /* +FULLRESYNC: replid and offset set */
    REPL_PSYNC_CONTINUE, /* +CONTINUE: replid set, or "" when the primary named none */
    REPL_PSYNC_BAD_FULL, /* +FULLRESYNC without a 40-byte replid and an offset >= 0 */
    REPL_PSYNC_REFUSED,  /* anything else (-NOMASTERLINK, -LOADING, an error) */
};

struct repl_psync_reply {
    char replid[REPL_READER_REPLID_LEN + 1];
    long long offset;
};

/* Starts reading reply lines; payload bytes will go to write(ctx, ...). */
void repl_reader_init(struct repl_reader *r, repl_reader_write_cb write, void *ctx);
/* Frees what r holds and goes back to reading reply lines (a new attempt). */
void repl_reader_reset(struct repl_reader *r);
/* Reads from p[0..n): reply lines, or payload once begun. Returns how many
 * bytes it used (all of them for REPL_READ_MORE); *ev says why it stopped.
 * After REPL_READ_PAYLOAD_END the bytes not used are the command stream,
 * and r reads lines again. */
size_t repl_reader_feed(struct repl_reader *r, const char *p, size_t n, enum repl_read *ev);
/* The payload's preamble line, "$<len>" or "$EOF:<40-byte mark>": the next
 * feed reads the payload. Returns 0, or -1 for any other line. */
int repl_reader_begin_payload(struct repl_reader *r, const char *head);
/* Classifies a reply line to PSYNC, filling *out as the answer says. A replid
 * has REPL_READER_REPLID_LEN bytes from '!' to '~' (no blank, no control
 * byte, as it goes to INFO and to our own replicas). */
enum repl_psync_answer repl_reader_psync_reply(const char *line, struct repl_psync_reply *out);

#endif
