/*
 * blocking.c - clients blocked on keys (see blocking.h for what it owns and
 * Redis's rules it keeps).
 *
 * Layout: one struct waited_key per (db, key) that at least one client waits
 * on, in a red-black tree ordered by (db number, key bytes), holding the FIFO
 * of its waiters. A blocked client's struct block_wait holds one waiter per
 * key it named, so ending a wait unlinks each in O(1) after the wait is found
 * through c->blocked. A waited key leaves the tree with its last waiter,
 * unless it is in the ready list, which pins it until it has been served.
 * The table is made by the first block, so a server where nobody ever blocks
 * pays one NULL test per signalled key.
 *
 * Timeouts: each wait with a deadline owns a uv_timer_t (libuv keeps them in
 * a heap, O(log n)); the wait is freed in the timer's close callback, as
 * libuv requires, and without a timer at once.
 */
#include <string.h>

#include "blocking.h"
#include "client.h"
#include "command_table.h"
#include "clock.h"
#include "conn.h"
#include "keyspace.h"
#include "mem.h"
#include "rbtree.h"
#include "server.h"

struct waited_key {
    struct rb_node rb;           /* in block_table.keys */
    struct waiter *head, *tail;  /* first come, first served */
    struct waited_key *ready_next;
    int ready;                   /* in the ready list, or being served */
    struct db *db;
    size_t klen;
    char key[];
};

struct waiter {
    struct waiter *prev, *next;  /* in wk's FIFO */
    struct waited_key *wk;
    struct block_wait *wait;
};

struct block_wait {
    struct client *client;
    block_serve_fn *serve;
    block_timeout_fn *on_timeout; /* NULL: a nil array on timeout */
    uv_timer_t timer;            /* only when timed */
    int timed;
    int nkeys;
    void *how;                   /* the bytes after waiters[] */
    struct waiter waiters[];
};

struct block_table {
    struct rb_root keys;
    struct waited_key *ready_head, **ready_tail;
    struct client *resume_head, **resume_tail; /* linked by unblocked_next */
    unsigned long blocked;
};

static struct block_table *table(void)
{
    if (!server.blocking) {
        struct block_table *t = xcalloc(1, sizeof(*t));
        t->keys = RB_ROOT;
        t->ready_tail = &t->ready_head;
        t->resume_tail = &t->resume_head;
        server.blocking = t;
    }
    return server.blocking;
}

static int key_cmp(const struct db *db, const char *key, size_t klen, const struct waited_key *wk)
{
    if (db->id != wk->db->id)
        return db->id < wk->db->id ? -1 : 1;
    size_t n = klen < wk->klen ? klen : wk->klen;
    int r = memcmp(key, wk->key, n);
    if (r)
        return r;
    return klen < wk->klen ? -1 : klen > wk->klen;
}

/* The waited key (db, key), or with add a new one in its place; NULL when
 * absent and not added. */
static struct waited_key *find_key(struct block_table *t, struct db *db, const char *key,
                                   size_t klen, int add)
{
    struct rb_node **link = &t->keys.rb_node, *parent = NULL;
    while (*link) {
        struct waited_key *cur = rb_entry(*link, struct waited_key, rb);
        int r = key_cmp(db, key, klen, cur);
        if (!r)
            return cur;
        parent = *link;
        link = r < 0 ? &(*link)->rb_left : &(*link)->rb_right;
    }
    if (!add)
        return NULL;
    struct waited_key *wk = xcalloc(1, sizeof(*wk) + klen);
    wk->db = db;
    wk->klen = klen;
    memcpy(wk->key, key, klen);
    rb_link_node(&wk->rb, parent, link);
    rb_insert_color(&wk->rb, &t->keys);
    return wk;
}

static void drop_key_if_unused(struct block_table *t, struct waited_key *wk)
{
    if (wk->head || wk->ready)
        return;
    rb_erase(&wk->rb, &t->keys);
    xfree(wk);
}

static void wait_free_cb(uv_handle_t *h)
{
    xfree(h->data);
}

/* Ends c's wait (its reply, if any, is the caller's) and frees it. */
static void end_wait(struct client *c)
{
    struct block_table *t = server.blocking;
    struct block_wait *w = c->blocked;

    for (int i = 0; i < w->nkeys; i++) {
        struct waiter *wt = &w->waiters[i];
        struct waited_key *wk = wt->wk;
        if (wt->prev)
            wt->prev->next = wt->next;
        else
            wk->head = wt->next;
        if (wt->next)
            wt->next->prev = wt->prev;
        else
            wk->tail = wt->prev;
        drop_key_if_unused(t, wk);
    }
    c->blocked = NULL;
    t->blocked--;
    if (w->timed) {
        uv_timer_stop(&w->timer);
        uv_close((uv_handle_t *)&w->timer, wait_free_cb);
    } else {
        xfree(w);
    }
}

/* c's wait ended with a reply: the requests it pipelined may run now. */
static void queue_resume(struct client *c)
{
    struct block_table *t = server.blocking;
    c->unblocked_next = NULL;
    c->flags |= CLIENT_UNBLOCKED;
    *t->resume_tail = c;
    t->resume_tail = &c->unblocked_next;
}

static void (*on_unblocked)(struct client *c, enum block_end end, int64_t serve_us);

void block_on_unblocked(void (*fn)(struct client *c, enum block_end end, int64_t serve_us))
{
    on_unblocked = fn;
}

static void unblocked(struct client *c, enum block_end end, int64_t serve_us)
{
    if (on_unblocked)
        on_unblocked(c, end, serve_us);
}

static void timeout_cb(uv_timer_t *timer)
{
    struct block_wait *w = timer->data;
    struct client *c = w->client;
    if (w->on_timeout)
        w->on_timeout(c, w->how);
    else
        resp_add_null_array(&c->out);
    end_wait(c);
    unblocked(c, BLOCK_TIMED_OUT, 0);
    queue_resume(c);
    block_run_unblocked();
}

void block_client(struct client *c, const struct resp_slice *keys, int nkeys, int64_t timeout_ms,
                  block_serve_fn *serve, const void *how, size_t how_len)
{
    struct block_table *t = table();
    struct block_wait *w =
        xmalloc(sizeof(*w) + (size_t)nkeys * sizeof(w->waiters[0]) + how_len);

    w->client = c;
    w->serve = serve;
    w->on_timeout = NULL;
    w->nkeys = nkeys;
    w->how = w->waiters + nkeys;
    if (how_len) /* how may be NULL then, which memcpy may not be given */
        memcpy(w->how, how, how_len);
    for (int i = 0; i < nkeys; i++) {
        struct waited_key *wk = find_key(t, c->db, keys[i].ptr, keys[i].len, 1);
        struct waiter *wt = &w->waiters[i];
        wt->wk = wk;
        wt->wait = w;
        wt->next = NULL;
        wt->prev = wk->tail;
        if (wk->tail)
            wk->tail->next = wt;
        else
            wk->head = wt;
        wk->tail = wt;
    }
    w->timed = timeout_ms > 0;
    if (w->timed) {
        uv_timer_init(server.loop, &w->timer);
        w->timer.data = w;
        /* The loop's clock is as old as this iteration: a deadline counted
         * from it would come early by the time spent since. */
        uv_update_time(server.loop);
        uv_timer_start(&w->timer, timeout_cb, (uint64_t)timeout_ms, 0);
    }
    c->blocked = w;
    t->blocked++;
}

void block_client_until(struct client *c, int64_t timeout_ms, block_timeout_fn *on_timeout,
                        const void *how, size_t how_len)
{
    block_client(c, NULL, 0, timeout_ms, NULL, how, how_len);
    c->blocked->on_timeout = on_timeout;
}

const void *block_waiting_for(const struct client *c, block_timeout_fn *on_timeout)
{
    return c->blocked && c->blocked->on_timeout == on_timeout ? c->blocked->how : NULL;
}

void block_release(struct client *c)
{
    end_wait(c);
    unblocked(c, BLOCK_SERVED, 0);
    queue_resume(c);
}

void block_signal_key(struct db *db, const char *key, size_t klen)
{
    struct block_table *t = server.blocking;
    if (!t || !t->keys.rb_node)
        return;
    struct waited_key *wk = find_key(t, db, key, klen, 0);
    if (!wk || wk->ready)
        return;
    wk->ready = 1;
    wk->ready_next = NULL;
    *t->ready_tail = wk;
    t->ready_tail = &wk->ready_next;
}

void block_signal_command(struct client *c, const struct command *cmd)
{
    struct block_table *t = server.blocking;
    if (!t || !t->keys.rb_node || cmd->first_key <= 0)
        return;
    int last = cmd->last_key < 0 ? c->argc + cmd->last_key : cmd->last_key;
    int step = cmd->key_step > 0 ? cmd->key_step : 1;
    for (int i = cmd->first_key; i <= last && i < c->argc; i += step)
        block_signal_key(c->db, c->argv[i].ptr, c->argv[i].len);
}

void block_signal_db(struct db *db)
{
    struct block_table *t = server.blocking;
    if (!t)
        return;
    for (struct rb_node *n = rb_first(&t->keys); n; n = rb_next(n)) {
        struct waited_key *wk = rb_entry(n, struct waited_key, rb);
        if (wk->db == db)
            block_signal_key(db, wk->key, wk->klen);
    }
}

void block_serve_ready(void)
{
    struct block_table *t = server.blocking;
    if (!t)
        return;
    while (t->ready_head) {
        struct waited_key *wk = t->ready_head;
        t->ready_head = wk->ready_next;
        if (!t->ready_head)
            t->ready_tail = &t->ready_head;
        struct resp_slice key = {wk->key, wk->klen};
        /* wk stays pinned (ready) while its waiters leave. When a waiter
         * cannot be served the key has nothing for the others either (0),
         * unless what it waits for is its own (-1: a stream read after its
         * own ID or group). A served waiter may have left more than one
         * place in the FIFO: the walk starts again from the head. */
        struct waiter *w = wk->head;
        while (w) {
            struct client *c = w->wait->client;
            int64_t start = ustime();
            int r = c->blocked->serve(c, &key, c->blocked->how);
            if (r == 0)
                break;
            if (r < 0) {
                w = w->next;
                continue;
            }
            end_wait(c);
            unblocked(c, BLOCK_SERVED, ustime() - start);
            queue_resume(c);
            w = wk->head;
        }
        wk->ready = 0;
        drop_key_if_unused(t, wk);
    }
}

struct client *block_next_unblocked(void)
{
    struct block_table *t = server.blocking;
    if (!t || !t->resume_head)
        return NULL;
    struct client *c = t->resume_head;
    t->resume_head = c->unblocked_next;
    if (!t->resume_head)
        t->resume_tail = &t->resume_head;
    c->flags &= ~CLIENT_UNBLOCKED;
    return c;
}

void block_run_unblocked(void)
{
    struct client *c;
    while ((c = block_next_unblocked()))
        conn_process_input(c);
}

void block_init(void)
{
    conn_on_closing(block_client_gone);
    conn_on_requests_ran(block_run_unblocked);
}

void block_client_gone(struct client *c)
{
    struct block_table *t = server.blocking;
    if (c->blocked) {
        end_wait(c);
        unblocked(c, BLOCK_TIMED_OUT, 0);
    }
    if (!(c->flags & CLIENT_UNBLOCKED))
        return;
    struct client **link = &t->resume_head;
    while (*link != c)
        link = &(*link)->unblocked_next;
    *link = c->unblocked_next;
    if (!*link)
        t->resume_tail = link;
    c->flags &= ~CLIENT_UNBLOCKED;
}

int block_unblock(struct client *c, int error)
{
    if (!c->blocked)
        return 0;
    if (error)
        resp_add_error(&c->out, "UNBLOCKED client unblocked via CLIENT UNBLOCK");
    else if (c->blocked->on_timeout)
        c->blocked->on_timeout(c, c->blocked->how);
    else
        resp_add_null_array(&c->out);
    end_wait(c);
    unblocked(c, BLOCK_UNBLOCKED, 0);
    queue_resume(c);
    return 1;
}

int block_first_key(const struct client *c, const char **key, size_t *klen)
{
    if (!c->blocked || c->blocked->nkeys == 0)
        return 0;
    const struct waited_key *wk = c->blocked->waiters[0].wk;
    *key = wk->key;
    *klen = wk->klen;
    return 1;
}

void block_abort(struct client *c)
{
    end_wait(c);
    unblocked(c, BLOCK_TIMED_OUT, 0);
    queue_resume(c);
}

void block_fail_all(const char *err)
{
    if (!block_count())
        return;
    for (struct client *c = server.clients; c; c = c->next) {
        if (!c->blocked)
            continue;
        resp_add_error(&c->out, err);
        end_wait(c);
        unblocked(c, BLOCK_TIMED_OUT, 0); /* counted nowhere, as Redis; its slow log entry goes */
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        queue_resume(c); /* its reply goes out from there; nothing more runs */
    }
}

unsigned long block_count(void)
{
    return server.blocking ? server.blocking->blocked : 0;
}

unsigned long block_timed_count(void)
{
    unsigned long n = 0;
    for (const struct client *c = server.clients; c; c = c->next)
        n += c->blocked && c->blocked->timed;
    return n;
}
