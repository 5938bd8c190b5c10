/*
 * repl_reader.c - the replica's reading of the handshake and the snapshot
 * (repl_reader.h).
 *
 * Owns the line being read and, in EOF mode, the few bytes held back
 * because they may begin the mark. Knows nothing of sockets, files or the
 * server: what it reads goes back to the caller, the payload to a callback.
 */
#include "repl_reader.h"

#include <string.h>

#include "mem.h"
#include "resp_num.h"

void repl_reader_init(struct repl_reader *r, repl_reader_write_cb write, void *ctx)
{
    memset(r, 0, sizeof(*r));
    r->write = write;
    r->write_ctx = ctx;
}

void repl_reader_reset(struct repl_reader *r)
{
    xfree(r->pending);
    r->pending = NULL;
    r->pending_len = 0;
    r->line_len = 0;
    r->in_payload = 0;
    r->err = NULL;
}

static int fail(struct repl_reader *r, enum repl_read *ev, const char *why)
{
    r->err = why;
    *ev = REPL_READ_ERROR;
    return -1;
}

/* Up to one line from p[0..n); returns the bytes used. */
static size_t take_line(struct repl_reader *r, const char *p, size_t n, enum repl_read *ev)
{
    const char *nl = memchr(p, '\n', n);
    size_t take = nl ? (size_t)(nl - p) + 1 : n;
    if (r->line_len + take >= sizeof(r->line)) {
        fail(r, ev, "reply line too long during the handshake");
        return 0;
    }
    memcpy(r->line + r->line_len, p, take);
    r->line_len += take;
    if (!nl) {
        *ev = REPL_READ_MORE;
        return take;
    }
    size_t len = r->line_len - 1; /* the \n */
    if (len && r->line[len - 1] == '\r')
        len--;
    r->line[len] = '\0';
    r->line_len = 0;
    *ev = REPL_READ_LINE;
    return take;
}

static int emit(struct repl_reader *r, const char *p, size_t n, enum repl_read *ev)
{
    if (n && r->write(r->write_ctx, p, n) < 0)
        return fail(r, ev, "the snapshot could not be kept");
    return 0;
}

static void payload_end(struct repl_reader *r, enum repl_read *ev)
{
    xfree(r->pending);
    r->pending = NULL;
    r->pending_len = 0;
    r->in_payload = 0;
    *ev = REPL_READ_PAYLOAD_END;
}

/* Payload bytes from p[0..n); returns how many were part of it. */
static size_t take_payload(struct repl_reader *r, const char *p, size_t n, enum repl_read *ev)
{
    if (!r->eof_mode) {
        size_t take = (long long)n < r->remaining ? n : (size_t)r->remaining;
        if (emit(r, p, take, ev) < 0)
            return 0;
        r->remaining -= (long long)take;
        if (r->remaining == 0)
            payload_end(r, ev);
        else
            *ev = REPL_READ_MORE;
        return take;
    }
    /* Up to MARK_LEN - 1 bytes are held back: they may begin the mark. */
    size_t had = r->pending_len;
    r->pending = xrealloc(r->pending, had + n);
    memcpy(r->pending + had, p, n);
    r->pending_len += n;
    char *hit = memmem(r->pending, r->pending_len, r->mark, REPL_READER_MARK_LEN);
    if (hit) {
        size_t before = (size_t)(hit - r->pending);
        if (emit(r, r->pending, before, ev) < 0)
            return 0;
        payload_end(r, ev);
        /* Of p, what came before the mark's end: the held bytes hold no
         * whole mark, so it ends in p. */
        return before + REPL_READER_MARK_LEN - had;
    }
    size_t keep = r->pending_len < REPL_READER_MARK_LEN - 1 ? r->pending_len
                                                             : REPL_READER_MARK_LEN - 1;
    if (emit(r, r->pending, r->pending_len - keep, ev) < 0)
        return 0;
    memmove(r->pending, r->pending + r->pending_len - keep, keep);
    r->pending_len = keep;
    *ev = REPL_READ_MORE;
    return n;
}

size_t repl_reader_feed(struct repl_reader *r, const char *p, size_t n, enum repl_read *ev)
{
    return r->in_payload ? take_payload(r, p, n, ev) : take_line(r, p, n, ev);
}

int repl_reader_begin_payload(struct repl_reader *r, const char *head)
{
    size_t len = strlen(head);
    if (len == 5 + REPL_READER_MARK_LEN && !strncmp(head, "$EOF:", 5)) {
        r->eof_mode = 1;
        memcpy(r->mark, head + 5, REPL_READER_MARK_LEN);
    } else {
        long long size;
        if (head[0] != '$' || resp_parse_ll(head + 1, len - 1, &size) < 0 || size < 0)
            return -1;
        r->eof_mode = 0;
        r->remaining = size;
    }
    r->pending_len = 0;
    r->in_payload = 1;
    return 0;
}

/* Whether id[0..REPL_READER_REPLID_LEN) is a replid's text. */
static int replid_ok(const char *id)
{
    for (size_t i = 0; i < REPL_READER_REPLID_LEN; i++)
        if (id[i] < '!' || id[i] > '~')
            return 0;
    return 1;
}

enum repl_psync_answer repl_reader_psync_reply(const char *line, struct repl_psync_reply *out)
{
    out->replid[0] = '\0';
    out->offset = 0;
    if (!strncmp(line, "+FULLRESYNC ", 12)) {
        const char *id = line + 12;
        const char *sp = strchr(id, ' ');
        if (!sp || sp - id != REPL_READER_REPLID_LEN || !replid_ok(id) ||
            resp_parse_ll(sp + 1, strlen(sp + 1), &out->offset) < 0 || out->offset < 0)
            return REPL_PSYNC_BAD_FULL;
        memcpy(out->replid, id, REPL_READER_REPLID_LEN);
        out->replid[REPL_READER_REPLID_LEN] = '\0';
        return REPL_PSYNC_FULL;
    }
    if (!strncmp(line, "+CONTINUE", 9)) {
        const char *id = line + 9;
        while (*id == ' ')
            id++;
        if (strlen(id) == REPL_READER_REPLID_LEN && replid_ok(id)) {
            memcpy(out->replid, id, REPL_READER_REPLID_LEN);
            out->replid[REPL_READER_REPLID_LEN] = '\0';
        }
        return REPL_PSYNC_CONTINUE;
    }
    return REPL_PSYNC_REFUSED;
}
