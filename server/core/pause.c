/*
 * pause.c - CLIENT PAUSE (pause.h).
 *
 * Held requests are resumed from an idle handle, never from inside the
 * command that ended the pause (CLIENT UNPAUSE) nor the cron, so one
 * client's request never runs nested in another's, and the idle handle
 * keeps the loop from sleeping in poll while some are due.
 */
#include <string.h>

#include "pause.h"

#include "blocking.h"
#include "client.h"
#include "clock.h"
#include "command.h"
#include "conn.h"
#include "mem.h"
#include "multi.h"
#include "server.h"

struct postponed_request {
    struct postponed_request *next;
    struct client *c;
    int writes; /* held under a WRITE pause too */
    int argc;
    struct resp_slice argv[]; /* then the bytes they point to */
};

/* Each purpose's pause; kind is the strongest of them, end_ms the first
 * deadline among them (when pause_current must look again). */
static struct {
    enum pause_kind kind;
    int64_t end_ms;
} purposes[PAUSE_PURPOSES];
static enum pause_kind kind;
static int64_t end_ms = INT64_MAX;
static struct postponed_request *head, **tail = &head;
static unsigned long held;
static uv_idle_t resume_idle;

static void resume_cb(uv_idle_t *h);

void pause_init(void)
{
    uv_idle_init(server.loop, &resume_idle);
    /* Its held request goes once the close starts, and again, in case one
     * was held after that, when it is freed. */
    conn_on_closing(pause_client_gone);
    conn_on_gone(pause_client_gone);
}

void pause_close(void)
{
    while (head)
        pause_client_gone(head->c);
    if (resume_idle.type == UV_IDLE && !uv_is_closing((uv_handle_t *)&resume_idle))
        uv_close((uv_handle_t *)&resume_idle, NULL);
    memset(purposes, 0, sizeof(purposes));
    kind = PAUSE_NONE;
    end_ms = INT64_MAX;
}

/* Recomputes kind and end_ms from the purposes, ending those whose
 * deadline passed; when the pause weakened, the held requests it no
 * longer holds run from the loop. */
static void update(int64_t now)
{
    enum pause_kind old = kind;
    kind = PAUSE_NONE;
    end_ms = INT64_MAX;
    for (int i = 0; i < PAUSE_PURPOSES; i++) {
        if (purposes[i].kind != PAUSE_NONE && now >= purposes[i].end_ms) {
            purposes[i].kind = PAUSE_NONE;
            purposes[i].end_ms = 0;
        }
        if (purposes[i].kind == PAUSE_NONE)
            continue;
        if (purposes[i].kind > kind)
            kind = purposes[i].kind;
        if (purposes[i].end_ms < end_ms)
            end_ms = purposes[i].end_ms;
    }
    if (kind < old && head)
        uv_idle_start(&resume_idle, resume_cb);
}

void pause_start(enum pause_purpose purpose, enum pause_kind k, int64_t end)
{
    purposes[purpose].kind = k;
    if (end > purposes[purpose].end_ms)
        purposes[purpose].end_ms = end;
    update(mstime());
}

void pause_end(enum pause_purpose purpose)
{
    purposes[purpose].kind = PAUSE_NONE;
    purposes[purpose].end_ms = 0;
    update(mstime());
}

enum pause_kind pause_current(void)
{
    if (kind != PAUSE_NONE && mstime() >= end_ms)
        update(mstime());
    return kind;
}

int pause_by(enum pause_purpose purpose)
{
    pause_current();
    return purposes[purpose].kind != PAUSE_NONE;
}

int pause_stops_writes(void)
{
    return pause_current() != PAUSE_NONE;
}

void pause_cron(int64_t now_ms)
{
    if (kind != PAUSE_NONE && now_ms >= end_ms)
        update(now_ms);
}

/* Whether a WRITE pause holds cmd, run by c under flags: a write, or what
 * may replicate (a script without flags, PUBLISH, PFCOUNT), or EXEC of a
 * queue holding either. */
static int writes(const struct client *c, const struct command *cmd, unsigned flags)
{
    const unsigned holds = CMD_WRITE | CMD_MAY_REPLICATE;
    return (flags & holds) || (!strcmp(cmd->name, "exec") && (multi_queued_flags(c) & holds));
}

static int held_back(const struct client *c, const struct command *cmd, unsigned flags)
{
    if (c->flags & (CLIENT_REPLICA | CLIENT_MASTER | CLIENT_MONITOR))
        return 0;
    switch (pause_current()) {
    case PAUSE_ALL:
        return 1;
    case PAUSE_WRITE:
        return writes(c, cmd, flags);
    default:
        return 0;
    }
}

int pause_postpones(struct client *c, const struct command *cmd, unsigned flags)
{
    if (!held_back(c, cmd, flags))
        return 0;
    size_t bytes = resp_slices_bytes(c->argc, c->argv);
    struct postponed_request *r =
        xmalloc(sizeof(*r) + (size_t)c->argc * sizeof(r->argv[0]) + bytes);
    resp_slices_copy(r->argv, (char *)(r->argv + c->argc), c->argc, c->argv);
    r->argc = c->argc;
    r->writes = writes(c, cmd, flags);
    r->c = c;
    r->next = NULL;
    *tail = r;
    tail = &r->next;
    held++;
    c->postponed = r;
    c->flags |= CLIENT_POSTPONED;
    return 1;
}

/* Unlinks r from the queue. */
static void unlink_request(struct postponed_request *r)
{
    struct postponed_request **p = &head;
    while (*p != r)
        p = &(*p)->next;
    *p = r->next;
    if (tail == &r->next)
        tail = p;
    held--;
    r->c->postponed = NULL;
    r->c->flags &= ~CLIENT_POSTPONED;
}

void pause_client_gone(struct client *c)
{
    struct postponed_request *r = c->postponed;
    if (!r)
        return;
    unlink_request(r);
    xfree(r);
}

unsigned long pause_postponed_count(void)
{
    return held;
}

/* The first held request the pause now lets through, NULL when none. */
static struct postponed_request *next_runnable(void)
{
    if (kind == PAUSE_ALL)
        return NULL;
    struct postponed_request *r = head;
    while (r && kind == PAUSE_WRITE && r->writes)
        r = r->next;
    return r;
}

/* Runs the held requests the pause lets through in arrival order, each
 * client's pipelined requests after its own; stops if one of them paused
 * again (CLIENT PAUSE), leaving the rest held in order. A read held by an
 * ALL pause runs when only a WRITE one is left, as Redis 7.0 lets it. */
static void resume_cb(uv_idle_t *h)
{
    struct postponed_request *r;
    uv_idle_stop(h);
    while ((r = next_runnable())) {
        struct client *c = r->c;
        unlink_request(r);
        if (c->flags & CLIENT_CLOSING) {
            xfree(r);
            continue;
        }
        c->argc = r->argc;
        c->argv = r->argv;
        conn_dispatch(c);
        c->argc = 0;
        c->argv = NULL;
        xfree(r);
        conn_process_input(c);
    }
    block_run_unblocked();
}
