/*
 * errorstats.c - error reply counters (errorstats.h).
 *
 * The codes stay sorted on insert, so INFO lists them as Redis's radix
 * tree does, in byte order; an insert is rare (a code seen for the first
 * time), a count is a binary search.
 */
#include <stddef.h>
#include <string.h>

#include "client.h"
#include "command_table.h"
#include "errorstats.h"
#include "log.h"
#include "server.h"

struct error_code {
    char code[ERRORSTATS_CODE_MAX + 1];
    unsigned long long count;
};

static struct error_code codes[ERRORSTATS_MAX_CODES];
static size_t code_count;
/* Error replies written but not counted (errorstats_skip_next). */
static unsigned long long skipped;
/* The hook errorstats_skip_next set aside; the skip is one reply long and
 * the loop thread writes it at once, so one slot is enough. */
static void (*skipped_hook)(struct resp_out *, const char *);

static int code_cmp(const char *code, size_t len, const struct error_code *e)
{
    size_t elen = strlen(e->code);
    int r = memcmp(code, e->code, len < elen ? len : elen);
    return r ? r : (len > elen) - (len < elen);
}

static void count_code(const char *code, size_t len)
{
    size_t lo = 0, hi = code_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = code_cmp(code, len, &codes[mid]);
        if (r == 0) {
            codes[mid].count++;
            return;
        }
        if (r < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (code_count == ERRORSTATS_MAX_CODES)
        return;
    memmove(&codes[lo + 1], &codes[lo], (code_count - lo) * sizeof(codes[0]));
    memcpy(codes[lo].code, code, len);
    codes[lo].code[len] = '\0';
    codes[lo].count = 1;
    code_count++;
}

/* Redis's afterErrorReply: the code is the first word when a space ends it
 * within 32 bytes, else ERR. */
static void count_error(const char *msg)
{
    const char *space = memchr(msg, ' ', strnlen(msg, ERRORSTATS_CODE_MAX));

    server.stats.error_replies++;
    if (space && space > msg)
        count_code(msg, (size_t)(space - msg));
    else
        count_code("ERR", 3);
}

/* A command of the primary's stream failed here, so this replica's data
 * parts from its primary's (a command rbkv lacks, from a redis-server
 * primary): said in Redis's words (afterErrorReply), which operators
 * alert on. */
static void log_error_to_primary(const struct client *c, const char *msg)
{
    const struct command *cmd = c->argc ? command_lookup(c->argv[0].ptr, c->argv[0].len) : NULL;
    if (*msg == '-')
        msg++;
    if (!strncmp(msg, "ERR ", 4))
        msg += 4;
    log_warning("== CRITICAL == This replica is sending an error to its master: '%s' after "
                "processing the command '%s'",
                msg, cmd ? cmd->name : "<unknown>");
}

static void count_error_cb(struct resp_out *o, const char *msg)
{
    struct client *c = (struct client *)((char *)o - offsetof(struct client, out));

    count_error(msg);
    if (c->flags & (CLIENT_MASTER | CLIENT_REPLICA))
        server.stats.unexpected_error_replies++;
    if (c->flags & CLIENT_MASTER)
        log_error_to_primary(c, msg);
}

static void count_unexpected_cb(struct resp_out *o, const char *msg)
{
    (void)o;
    count_error(msg);
    server.stats.unexpected_error_replies++;
}

static void skip_once_cb(struct resp_out *o, const char *msg)
{
    (void)msg;
    skipped++;
    o->on_error = skipped_hook;
}

void errorstats_skip_next(struct resp_out *o)
{
    if (!o->on_error || o->on_error == skip_once_cb)
        return;
    skipped_hook = o->on_error;
    o->on_error = skip_once_cb;
}

void errorstats_count(const char *msg)
{
    if (msg[0] == '-')
        count_error(msg + 1);
    else {
        server.stats.error_replies++;
        count_code("ERR", 3);
    }
}

unsigned long long errorstats_replies_written(void)
{
    return server.stats.error_replies + skipped;
}

void errorstats_watch(struct client *c, int unexpected)
{
    c->out.on_error = unexpected ? count_unexpected_cb : count_error_cb;
}

const char *errorstats_code_at(size_t i, unsigned long long *count)
{
    if (i >= code_count)
        return NULL;
    *count = codes[i].count;
    return codes[i].code;
}

void errorstats_reset(void)
{
    code_count = 0;
}
