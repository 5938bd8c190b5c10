/*
 * backlog.c - the replication backlog's ring (backlog.h).
 */
#include "backlog.h"

#include <string.h>

#include "mem.h"

struct backlog *backlog_new(size_t size, long long end)
{
    struct backlog *b = xcalloc(1, sizeof(*b));
    b->size = size ? size : 1;
    b->buf = xmalloc(b->size);
    b->end = end;
    return b;
}

void backlog_free(struct backlog *b)
{
    if (!b)
        return;
    xfree(b->buf);
    xfree(b);
}

void backlog_append(struct backlog *b, const char *p, size_t n)
{
    b->end += (long long)n;
    if (n >= b->size) { /* only the newest bytes fit */
        memcpy(b->buf, p + n - b->size, b->size);
        b->idx = 0;
        b->histlen = b->size;
        return;
    }
    size_t first = b->size - b->idx < n ? b->size - b->idx : n;
    memcpy(b->buf + b->idx, p, first);
    memcpy(b->buf, p + first, n - first);
    b->idx = (b->idx + n) % b->size;
    b->histlen = b->histlen + n > b->size ? b->size : b->histlen + n;
}

long long backlog_first(const struct backlog *b)
{
    return b->end - (long long)b->histlen + 1;
}

int backlog_covers(const struct backlog *b, long long from)
{
    return from >= backlog_first(b) && from <= b->end + 1;
}

void backlog_copy_from(const struct backlog *b, long long from,
                       void (*emit)(void *ctx, const char *p, size_t n), void *ctx)
{
    size_t len = (size_t)(b->end + 1 - from);
    if (!len)
        return;
    /* The byte at `end` sits just before idx. */
    size_t start = (b->idx + b->size - len) % b->size;
    size_t first = b->size - start < len ? b->size - start : len;
    emit(ctx, b->buf + start, first);
    if (first < len)
        emit(ctx, b->buf, len - first);
}

static void append_cb(void *ctx, const char *p, size_t n)
{
    backlog_append(ctx, p, n);
}

void backlog_resize(struct backlog *b, size_t size)
{
    struct backlog *nb = backlog_new(size, 0);
    long long keep = b->histlen < nb->size ? (long long)b->histlen : (long long)nb->size;
    backlog_copy_from(b, b->end + 1 - keep, append_cb, nb);
    xfree(b->buf);
    b->buf = nb->buf;
    b->size = nb->size;
    b->idx = nb->idx;
    b->histlen = nb->histlen;
    xfree(nb);
}
