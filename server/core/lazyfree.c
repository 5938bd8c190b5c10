/*
 * lazyfree.c - the lazy-free thread (see lazyfree.h).
 *
 * The loop thread queues jobs under a mutex and signals; the thread takes
 * one at a time, frees it outside the lock, and counts it. The loop never
 * waits on the thread except in lazyfree_drain (FLUSHALL SYNC, shutdown),
 * and the thread never calls back into the loop: the counters are atomics
 * and freed memory reaches used_memory through mem.h's returned count, so
 * no uv_async_t is needed. The thread blocks every signal, so they all
 * still reach the loop thread's handlers.
 *
 * A value goes to the thread only from the loop thread: another thread (a
 * replica's loader) frees what it drops itself.
 *
 * With mimalloc (mem.h's mem_defers_frees) the thread walks the value but
 * frees only its big blocks: it gathers the others into batches of
 * LAZYFREE_BATCH and hands each to the loop thread through a uv_async_t,
 * which frees it LAZYFREE_SLICE_US a turn, while the thread gathers the
 * next (two batches, so walking and freeing overlap). A block mimalloc's thread frees
 * itself would cost the loop more, later and all at once (mem.h), so the
 * loop frees them, but a batch at a time between other clients' requests.
 * The thread waits when its batch is full and the loop has not freed the
 * one handed before; lazyfree_drain frees the handed batches itself while
 * it waits, so it cannot wait for a thread that waits for it.
 *
 * The thread runs at LAZYFREE_NICE more than the loop (its own nice value,
 * set on its thread id) and is named "rbkv-lazyfree": on a machine with
 * more runnable threads than cores, a wakeup of an equal-priority thread
 * often preempts the loop, which then queues behind every other runnable
 * task for a CPU (docs/internals.md, "Lazy freeing": a loop turn of 425 ms
 * wall for 19 ms of CPU was that wait, not a lock). The loop wakes it
 * (the condition `taken`) after dropping the lock, so the thread does not
 * wake only to sleep on the lock the loop still holds.
 */
#include "lazyfree.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <uv.h>

#include "clock.h"
#include "keyspace.h"
#include "log.h"
#include "mem.h"
#include "server.h"
#include "zset.h"

struct lazy_job {
    struct lazy_job *next;
    enum ks_type type;
    void *value;               /* a value of type, or NULL */
    struct ks_detached *db;    /* or a db's former contents */
    size_t objects;            /* what it counts for in INFO */
};

static struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t work;       /* the loop queued a job, or asks the thread to stop */
    pthread_cond_t progress;   /* the queue emptied and the thread holds no job, or it handed a batch */
    pthread_cond_t taken;      /* the loop freed the handed batch */
    struct lazy_job *head, *tail; /* under lock */
    int busy, stop;            /* under lock */
    struct mem_batch *handed;  /* under lock: a full batch for the loop to free, or NULL */
    struct mem_batch batch[2]; /* the one the thread fills, and the handed one */
    uv_async_t async;          /* wakes the loop to free the handed batch */
    int running;               /* the thread was started (loop thread only) */
    uv_thread_t loop_thread;
    _Atomic size_t pending;
    _Atomic unsigned long long freed;
} lazy = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .work = PTHREAD_COND_INITIALIZER,
    .progress = PTHREAD_COND_INITIALIZER,
    .taken = PTHREAD_COND_INITIALIZER,
};

/* Thread: hands b, full, to the loop once the loop freed the batch handed
 * before, and returns that one, empty, to fill next. */
static struct mem_batch *hand_batch_cb(struct mem_batch *b)
{
    pthread_mutex_lock(&lazy.lock);
    while (lazy.handed)
        pthread_cond_wait(&lazy.taken, &lazy.lock);
    lazy.handed = b;
    pthread_cond_broadcast(&lazy.progress);
    pthread_mutex_unlock(&lazy.lock);
    uv_async_send(&lazy.async);
    return b == &lazy.batch[0] ? &lazy.batch[1] : &lazy.batch[0];
}

/* Loop thread, lock held: frees the handed batch, if any, outside the lock,
 * all of it or (slice) for about LAZYFREE_SLICE_US; returns whether there
 * was one. The batch stays handed until it is empty, so the thread, which
 * fills the other one meanwhile, waits for it rather than hand another.
 * When it emptied the batch, *taken is set and the caller signals `taken`
 * (once it dropped the lock, when it can). */
static int free_handed_locked(int slice, int *taken)
{
    struct mem_batch *b = lazy.handed;
    if (!b)
        return 0;
    pthread_mutex_unlock(&lazy.lock);
    if (!slice) {
        mem_free_batch(b, SIZE_MAX);
    } else {
        int64_t start = ustime();
        while (mem_free_batch(b, LAZYFREE_SLICE_STEP) && ustime() - start < LAZYFREE_SLICE_US)
            ;
    }
    pthread_mutex_lock(&lazy.lock);
    if (b->n)
        return 1;
    lazy.handed = NULL;
    *taken = 1;
    return 1;
}

/* A slice of the handed batch a turn: what is left waits for the next turn
 * (the async handle signalled again, from the loop itself), so the clients
 * ready meanwhile are served in between. */
static void async_cb(uv_async_t *h)
{
    int taken = 0;
    pthread_mutex_lock(&lazy.lock);
    free_handed_locked(1, &taken);
    int more = lazy.handed != NULL;
    pthread_mutex_unlock(&lazy.lock);
    if (taken)
        pthread_cond_signal(&lazy.taken);
    if (more)
        uv_async_send(h);
}

static void job_run(struct lazy_job *j)
{
    mem_defer_frees(&lazy.batch[0], hand_batch_cb);
    if (j->db)
        ks_detached_free(j->db);
    else
        ks_value_free(j->type, j->value);
    size_t objects = j->objects;
    xfree(j);
    if (mem_defers_frees()) {
        /* The last, partial batch, and the job ends when the loop freed
         * it (and so every batch before it). */
        struct mem_batch *b = mem_defer_frees(NULL, NULL);
        if (b->n)
            hand_batch_cb(b);
        pthread_mutex_lock(&lazy.lock);
        while (lazy.handed)
            pthread_cond_wait(&lazy.taken, &lazy.lock);
        pthread_mutex_unlock(&lazy.lock);
    }
    /* The bytes first, then the count: whoever sees the pending count at 0
     * finds used_memory already down. */
    mem_return_thread_count();
    atomic_fetch_add_explicit(&lazy.freed, objects, memory_order_relaxed);
    atomic_fetch_sub_explicit(&lazy.pending, objects, memory_order_release);
}

/* Thread: names itself and lowers its own priority by LAZYFREE_NICE (on
 * Linux a nice value belongs to a thread, set through its thread id). Only
 * ever lower: raising it back needs a privilege, and a server started at
 * nice 19 keeps its thread there. A failure leaves the thread at the
 * loop's priority, as before: slower for the loop on a busy machine,
 * nothing wrong. */
static void thread_set_priority(void)
{
    pthread_setname_np(pthread_self(), "rbkv-lazyfree");
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, tid);
    if (nice == -1 && errno != 0)
        return;
    nice += LAZYFREE_NICE;
    (void)setpriority(PRIO_PROCESS, tid, nice > 19 ? 19 : nice);
}

static void *thread_main(void *arg)
{
    (void)arg;
    thread_set_priority();
    pthread_mutex_lock(&lazy.lock);
    for (;;) {
        while (!lazy.head && !lazy.stop)
            pthread_cond_wait(&lazy.work, &lazy.lock);
        struct lazy_job *j = lazy.head;
        if (!j)
            break; /* stopping, and nothing is left */
        lazy.head = j->next;
        if (!lazy.head)
            lazy.tail = NULL;
        lazy.busy = 1;
        pthread_mutex_unlock(&lazy.lock);
        job_run(j);
        pthread_mutex_lock(&lazy.lock);
        lazy.busy = 0;
        if (!lazy.head)
            pthread_cond_broadcast(&lazy.progress);
    }
    pthread_mutex_unlock(&lazy.lock);
    return NULL;
}

static void push(struct lazy_job *j)
{
    j->next = NULL;
    atomic_fetch_add_explicit(&lazy.pending, j->objects, memory_order_relaxed);
    pthread_mutex_lock(&lazy.lock);
    if (lazy.tail)
        lazy.tail->next = j;
    else
        lazy.head = j;
    lazy.tail = j;
    pthread_cond_signal(&lazy.work);
    pthread_mutex_unlock(&lazy.lock);
}

static int on_loop_thread(void)
{
    uv_thread_t self = uv_thread_self();
    return lazy.running && uv_thread_equal(&self, &lazy.loop_thread);
}

/* Redis's rule (freeObjAsync): lazily when the setting for this kind of
 * deletion says so and the value is worth it. */
static void release_cb(enum ks_type type, void *value, enum ks_free_how how)
{
    int lazily = how == KS_FREE_LAZY ||
                 (how == KS_FREE_SERVER && server.cfg.lazyfree_lazy_server_del) ||
                 (how == KS_FREE_EXPIRE && server.cfg.lazyfree_lazy_expire);
    if (!lazily || !on_loop_thread() || ks_value_effort(type, value) <= LAZYFREE_THRESHOLD) {
        ks_value_free(type, value);
        return;
    }
    struct lazy_job *j = xmalloc(sizeof(*j));
    *j = (struct lazy_job){.type = type, .value = value, .objects = 1};
    push(j);
}

/* A forked child has no lazy-free thread (fork copies only the loop
 * thread) and may have copied the queue's lock held: it frees at once. */
static void forget_thread_in_child(void)
{
    lazy.running = 0;
}

void lazyfree_init(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&lazy.thread, NULL, thread_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        /* Without the thread every value is freed at once, as with the
         * settings off: slower deletes, nothing wrong. */
        log_warning("Could not start the lazy-free thread: values are freed at once");
        return;
    }
    lazy.loop_thread = uv_thread_self();
    lazy.running = 1;
    uv_async_init(server.loop, &lazy.async, async_cb);
    for (int i = 0; i < 2; i++) {
        lazy.batch[i].cap = mem_defers_frees() ? LAZYFREE_BATCH : 0;
        lazy.batch[i].blocks = lazy.batch[i].cap ? xmalloc(LAZYFREE_BATCH * sizeof(void *)) : NULL;
    }
    pthread_atfork(NULL, NULL, forget_thread_in_child);
    ks_on_release(release_cb);
}

void lazyfree_flush_db(struct db *db)
{
    if (!ks_count(db))
        return;
    if (!lazy.running) {
        ks_flush(db);
        return;
    }
    struct lazy_job *j = xmalloc(sizeof(*j));
    *j = (struct lazy_job){.db = ks_detach_all(db)};
    j->objects = ks_detached_count(j->db);
    push(j);
}

void lazyfree_drain(void)
{
    if (!lazy.running)
        return;
    pthread_mutex_lock(&lazy.lock);
    while (lazy.head || lazy.busy) {
        int taken = 0;
        if (!free_handed_locked(0, &taken))
            pthread_cond_wait(&lazy.progress, &lazy.lock);
        else if (taken)
            pthread_cond_signal(&lazy.taken);
    }
    pthread_mutex_unlock(&lazy.lock);
}

/* The sorted sets with cuts to clear (lazyfree_zset_cut), by name, oldest
 * first. */
struct zset_cut {
    struct zset_cut *next;
    int db;
    size_t klen;
    char key[];
};
static struct {
    struct zset_cut *head, *tail;
} zcuts;

/* The sorted set a registration names, if that key still holds one with
 * cuts to clear. */
static struct zset *zset_with_cuts(const struct zset_cut *zc)
{
    if (!server.ks || zc->db >= server.ks->count)
        return NULL;
    struct ks_entry *e = ks_find(&server.ks->dbs[zc->db], zc->key, zc->klen);
    if (!e || e->type != KS_ZSET)
        return NULL;
    struct zset *z = ks_ptr(e);
    return z->cuts ? z : NULL;
}

/* The registrations whose set is still there with cuts: a set flushed,
 * deleted or freed leaves none pending, though its registration waits for
 * the next slice to go. */
static size_t zset_cuts_pending(void)
{
    size_t n = 0;
    for (const struct zset_cut *zc = zcuts.head; zc; zc = zc->next)
        n += zset_with_cuts(zc) != NULL;
    return n;
}

size_t lazyfree_pending(void)
{
    size_t cut = 0;
    if (server.ks)
        for (int i = 0; i < server.ks->count; i++)
            cut += server.ks->dbs[i].cut_keys;
    return atomic_load_explicit(&lazy.pending, memory_order_acquire) + cut + zset_cuts_pending();
}

/* Range deletion's second half (ks_cut): the cut entries are in no tree
 * and no due count, so freeing them is invisible to every client; only the
 * time it takes is not, hence slices. Cut entries stay on the loop thread:
 * each must leave the index, which is live data. */
static struct {
    /* An idle handle, not a zero-delay timer: libuv runs a timer restarted
     * with no delay again within the same turn, so the slices would follow
     * each other without a poll between; an idle callback runs once per
     * turn, after the poll, which it makes non-blocking. */
    uv_idle_t idle;
    int started;      /* handle initialised */
} cuts;

/* Cut entries freed per check of the clock. */
#define CUT_BATCH 128

static void cuts_slice_cb(uv_idle_t *h)
{
    int64_t start = ustime();
    for (int i = 0; i < server.ks->count; i++) {
        struct db *db = &server.ks->dbs[i];
        while (db->cuts) {
            ks_cut_step(db, CUT_BATCH);
            if (db->cuts && ustime() - start > LAZYFREE_CUT_SLICE_US)
                return; /* the next turn goes on */
        }
    }
    while (zcuts.head) {
        struct zset_cut *zc = zcuts.head;
        struct zset *z = zset_with_cuts(zc);
        while (z && zs_cut_step(z, CUT_BATCH)) {
            if (ustime() - start > LAZYFREE_CUT_SLICE_US)
                return;
        }
        zcuts.head = zc->next;
        if (!zcuts.head)
            zcuts.tail = NULL;
        xfree(zc);
    }
    uv_idle_stop(h);
}

void lazyfree_zset_cut(int db, const char *key, size_t klen)
{
    struct zset_cut *zc = xmalloc(sizeof(*zc) + klen);
    zc->next = NULL;
    zc->db = db;
    zc->klen = klen;
    memcpy(zc->key, key, klen);
    if (zcuts.tail)
        zcuts.tail->next = zc;
    else
        zcuts.head = zc;
    zcuts.tail = zc;
    lazyfree_cuts_start();
}

void lazyfree_zset_moved(const struct db *db, const struct ks_entry *e)
{
    if (e->type == KS_ZSET && ((const struct zset *)ks_ptr(e))->cuts)
        lazyfree_zset_cut(db->id, ks_key(e), ks_klen(e));
}

void lazyfree_zset_dbs_swapped(int a, int b)
{
    for (struct zset_cut *zc = zcuts.head; zc; zc = zc->next) {
        if (zc->db == a)
            zc->db = b;
        else if (zc->db == b)
            zc->db = a;
    }
}

void lazyfree_cuts_start(void)
{
    if (!cuts.started) {
        uv_idle_init(server.loop, &cuts.idle);
        cuts.started = 1;
    }
    if (!uv_is_active((uv_handle_t *)&cuts.idle))
        uv_idle_start(&cuts.idle, cuts_slice_cb);
}

unsigned long long lazyfree_freed(void)
{
    return atomic_load_explicit(&lazy.freed, memory_order_relaxed);
}

void lazyfree_reset_stats(void)
{
    atomic_store_explicit(&lazy.freed, 0, memory_order_relaxed);
}

void lazyfree_close(void)
{
    if (cuts.started && !uv_is_closing((uv_handle_t *)&cuts.idle)) {
        /* What is left is freed with the keyspace. */
        uv_idle_stop(&cuts.idle);
        uv_close((uv_handle_t *)&cuts.idle, NULL);
    }
    while (zcuts.head) {
        struct zset_cut *zc = zcuts.head;
        zcuts.head = zc->next;
        xfree(zc);
    }
    zcuts.tail = NULL;
    if (!lazy.running)
        return;
    ks_on_release(NULL);
    /* The thread may wait for the loop to free a batch: drain first. */
    lazyfree_drain();
    pthread_mutex_lock(&lazy.lock);
    lazy.stop = 1;
    pthread_cond_signal(&lazy.work);
    pthread_mutex_unlock(&lazy.lock);
    pthread_join(lazy.thread, NULL);
    lazy.running = 0;
    lazy.stop = 0;
    uv_close((uv_handle_t *)&lazy.async, NULL);
    for (int i = 0; i < 2; i++) {
        xfree(lazy.batch[i].blocks);
        lazy.batch[i] = (struct mem_batch){0};
    }
}
