/*
 * lazyfree.c - freeing big values in slices (see lazyfree.h).
 *
 * A slice is LAZYFREE_SLICE units (chunks of a hash or set: about a
 * microsecond's work each at most, so a slice stays well under a
 * millisecond); the idle handle runs one slice per loop turn while anything
 * is queued, and stops when the queue empties, so an idle server still
 * sleeps in its poll.
 */
#include "lazyfree.h"

#include <stdint.h>
#include <uv.h>

#include "mem.h"
#include "server.h"

#define LAZYFREE_SLICE 2048

struct lazy_item {
    struct lazy_item *next;
    lazyfree_fn *fn;
    void *value;
};

static struct {
    struct lazy_item *head, *tail;
    size_t count;
    unsigned long long freed; /* values queued here and freed since start or RESETSTAT */
    uv_idle_t idle;
    uv_thread_t loop_thread;
    int ready;
} lazy;

static void idle_cb(uv_idle_t *h)
{
    struct lazy_item *it = lazy.head;
    if (it && it->fn(it->value, LAZYFREE_SLICE)) {
        lazy.head = it->next;
        if (!lazy.head)
            lazy.tail = NULL;
        lazy.count--;
        lazy.freed++;
        xfree(it);
    }
    if (!lazy.head)
        uv_idle_stop(h);
}

void lazyfree_init(void)
{
    uv_idle_init(server.loop, &lazy.idle);
    lazy.loop_thread = uv_thread_self();
    lazy.ready = 1;
}

void lazyfree_push(lazyfree_fn *fn, void *value)
{
    uv_thread_t self = uv_thread_self();
    if (!lazy.ready || !uv_thread_equal(&self, &lazy.loop_thread)) {
        fn(value, SIZE_MAX);
        return;
    }
    struct lazy_item *it = xmalloc(sizeof(*it));
    it->next = NULL;
    it->fn = fn;
    it->value = value;
    if (lazy.tail)
        lazy.tail->next = it;
    else
        lazy.head = it;
    lazy.tail = it;
    lazy.count++;
    uv_idle_start(&lazy.idle, idle_cb);
}

size_t lazyfree_pending(void)
{
    return lazy.count;
}

unsigned long long lazyfree_freed(void)
{
    return lazy.freed;
}

void lazyfree_reset_stats(void)
{
    lazy.freed = 0;
}

void lazyfree_close(void)
{
    while (lazy.head) {
        struct lazy_item *it = lazy.head;
        it->fn(it->value, SIZE_MAX);
        lazy.head = it->next;
        xfree(it);
    }
    lazy.tail = NULL;
    lazy.count = 0;
    if (lazy.ready && !uv_is_closing((uv_handle_t *)&lazy.idle))
        uv_close((uv_handle_t *)&lazy.idle, NULL);
    lazy.ready = 0;
}
