/*
 * mem.c - counting allocator wrappers (see mem.h).
 *
 * The counter is per thread, so the hot path needs no atomics: the loop
 * thread makes nearly every allocation; a replica's loader thread
 * (repl_replica.c) builds a keyspace on its own and hands its count over
 * with the keyspace (mem_take_thread_count, mem_add). The lazy-free thread
 * (core/lazyfree.c) only frees: after each value it adds its (negative)
 * count to `returned`, one atomic the loop thread folds into its own count
 * whenever it reads it (mem_used and the others below), so used_memory
 * drops as the thread frees without an atomic on any allocation. With
 * mimalloc the thread frees only the big blocks and gathers the others for
 * the loop thread to free (mem_defer_frees). A forked child has its own
 * copy.
 */
#include "mem.h"

#include <malloc.h>
#include <stdatomic.h>
#ifdef RBKV_MIMALLOC
#include <mimalloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"

static _Thread_local size_t used_bytes;
static _Thread_local size_t peak_bytes;
static size_t startup_bytes;
/* Bytes other threads gave back (wrapping: a negative count), not yet
 * folded into the loop thread's used_bytes. */
static _Atomic size_t returned;

/* Folds what other threads returned into this thread's count: one relaxed
 * load when there is nothing. Only the loop thread calls it. */
static void fold_returned(void)
{
    if (atomic_load_explicit(&returned, memory_order_relaxed))
        used_bytes += atomic_exchange_explicit(&returned, 0, memory_order_relaxed);
}

static void count_bytes(size_t n)
{
    used_bytes += n;
    if (used_bytes > peak_bytes)
        peak_bytes = used_bytes;
}

/* p, just allocated for size bytes, counted; a failed allocation ends the
 * process with Redis 7.0's lines, which operators watch for (the log
 * formats on the stack, so it still writes with the heap exhausted). */
static void *account(void *p, size_t size)
{
    if (!p) {
        log_warning("Out Of Memory allocating %zu bytes!", size);
        log_warning("rbkv aborting for OUT OF MEMORY. Allocated: %zu bytes!", used_bytes);
        abort();
    }
    count_bytes(malloc_usable_size(p));
    return p;
}

void *xmalloc(size_t size)
{
    return account(malloc(size ? size : 1), size);
}

void *xcalloc(size_t n, size_t size)
{
    return account(calloc(n ? n : 1, size ? size : 1), n * size);
}

void *xrealloc(void *p, size_t size)
{
    size_t old = p ? malloc_usable_size(p) : 0;
    void *q = realloc(p, size ? size : 1);
    if (q)
        used_bytes -= old;
    return account(q, size);
}

char *xmemdup(const void *p, size_t len)
{
    char *s = xmalloc(len + 1);
    memcpy(s, p, len);
    s[len] = '\0';
    return s;
}

char *xstrdup(const char *s)
{
    return xmemdup(s, strlen(s));
}

void *xmap_zeroed(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return account(NULL, size);
    count_bytes(size);
    return p;
}

void xunmap(void *p, size_t size)
{
    if (!p)
        return;
    used_bytes -= size;
    munmap(p, size);
}

/* The batch this thread's xfree appends to, and who takes it when full
 * (mem_defer_frees); NULL on every thread but a gathering helper's. */
static _Thread_local struct mem_batch *defer_batch;
static _Thread_local struct mem_batch *(*defer_full)(struct mem_batch *b);

void xfree(void *p)
{
    if (!p)
        return;
    size_t size = malloc_usable_size(p);
    if (defer_batch && size < MEM_DEFER_MAX_BYTES) {
        defer_batch->blocks[defer_batch->n++] = p;
        if (defer_batch->n == defer_batch->cap)
            defer_batch = defer_full(defer_batch);
        return;
    }
    used_bytes -= size;
    free(p);
}

int mem_defers_frees(void)
{
#ifdef RBKV_MIMALLOC
    return 1;
#else
    return 0;
#endif
}

struct mem_batch *mem_defer_frees(struct mem_batch *b, struct mem_batch *(*full)(struct mem_batch *b))
{
    struct mem_batch *was = defer_batch;
    if (!mem_defers_frees())
        return NULL;
    defer_batch = b;
    defer_full = full;
    return was;
}

size_t mem_free_batch(struct mem_batch *b, size_t max)
{
    for (; b->n && max; max--) {
        void *p = b->blocks[--b->n];
        used_bytes -= malloc_usable_size(p);
        free(p);
    }
    return b->n;
}

size_t xsize(const void *p)
{
    return malloc_usable_size((void *)p);
}

size_t mem_used(void)
{
    fold_returned();
    return used_bytes;
}

size_t mem_peak(void)
{
    fold_returned();
    return peak_bytes;
}

void mem_return_thread_count(void)
{
    size_t n = mem_take_thread_count();
    if (n)
        atomic_fetch_add_explicit(&returned, n, memory_order_relaxed);
}

size_t mem_take_thread_count(void)
{
    size_t n = used_bytes;
    used_bytes = 0;
    return n;
}

void mem_add(size_t n)
{
    used_bytes += n;
    if (used_bytes > peak_bytes)
        peak_bytes = used_bytes;
}

/* Freed memory the allocator keeps resident: a thousand clients that came
 * and went leave about 20 MB of freed buffers below the top of glibc's heap,
 * and mimalloc keeps the pages of a flushed keyspace (74 MB for 1M keys) for
 * reuse, where Redis's jemalloc purges by itself. A trim (malloc_trim walks
 * every free chunk, 1-11 ms at 2M keys; mi_collect every page of the loop
 * thread's heap) runs only after used memory fell TRIM_DROP_BYTES below its
 * high mark since the last trim, and a trim that returned little (freed
 * entries scattered among live ones) doubles the wait before the next. */
#define TRIM_DROP_BYTES ((size_t)4 << 20)
#define TRIM_USEFUL_BYTES ((size_t)1 << 20)
#define TRIM_WAIT_MIN_MS 1000
#define TRIM_WAIT_MAX_MS 64000
static size_t trim_high;
static int64_t trim_wait_ms = TRIM_WAIT_MIN_MS;
static int64_t trim_last_ms;

#ifdef RBKV_MIMALLOC
/* mimalloc gives an emptied page back only some time after it emptied, and
 * only when it is called again: after a FLUSHALL it would keep the pages
 * (33 of 74 MB for 1M keys) until the next allocations. With the delays at 0
 * for this one collect, it gives back all it can now; they stay as they were
 * for everything else, where they save reusing pages madvise() just gave
 * away. */
static void trim_now(void)
{
    long page = mi_option_get(mi_option_decommit_delay);
    long segment = mi_option_get(mi_option_segment_decommit_delay);
    mi_option_set(mi_option_decommit_delay, 0);
    mi_option_set(mi_option_segment_decommit_delay, 0);
    mi_collect(true);
    mi_option_set(mi_option_decommit_delay, page);
    mi_option_set(mi_option_segment_decommit_delay, segment);
}
#else
static void trim_now(void)
{
    malloc_trim(0);
}
#endif

static struct mem_trim_stats trim_stats;

/* A trim, timed: it runs on the loop thread, and every client waits for it. */
static void trim(void)
{
    int64_t start = ustime();
    trim_now();
    uint64_t us = (uint64_t)(ustime() - start);
    trim_stats.runs++;
    trim_stats.us_sum += us;
    trim_stats.us_last = us;
    if (us > trim_stats.us_max)
        trim_stats.us_max = us;
}

void mem_trim_get_stats(struct mem_trim_stats *out)
{
    *out = trim_stats;
}

void mem_trim_reset_stats(void)
{
    memset(&trim_stats, 0, sizeof(trim_stats));
}

void mem_purge(void)
{
    fold_returned();
    trim();
    trim_high = used_bytes;
}

int mem_trim_cron(int64_t now_ms)
{
    fold_returned();
    if (used_bytes > trim_high)
        trim_high = used_bytes;
    if (trim_high - used_bytes < TRIM_DROP_BYTES || now_ms - trim_last_ms < trim_wait_ms)
        return 0;
    size_t before = mem_rss();
    trim();
    size_t after = mem_rss();
    int useful = before > after && before - after >= TRIM_USEFUL_BYTES;
    trim_wait_ms = useful ? TRIM_WAIT_MIN_MS
                          : (trim_wait_ms * 2 > TRIM_WAIT_MAX_MS ? TRIM_WAIT_MAX_MS : trim_wait_ms * 2);
    trim_last_ms = now_ms;
    trim_high = used_bytes;
    return 1;
}

size_t mem_rss(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages_total, pages_rss;
    size_t rss = 0;
    if (!f)
        return 0;
    /* The kernel writes these numbers: no range to check. */
    if (fscanf(f, "%lu %lu", &pages_total, &pages_rss) == 2) // NOLINT(cert-err34-c)
        rss = (size_t)pages_rss * (size_t)sysconf(_SC_PAGESIZE);
    fclose(f);
    return rss;
}

void mem_mark_startup(void)
{
    startup_bytes = used_bytes;
}

size_t mem_startup(void)
{
    return startup_bytes;
}

#ifdef RBKV_MIMALLOC
void mem_allocator_stats(struct mem_allocator_stats *st)
{
    size_t elapsed, user, sys, rss, peak_rss, commit, peak_commit, faults;
    mi_process_info(&elapsed, &user, &sys, &rss, &peak_rss, &commit, &peak_commit, &faults);
    st->allocated = mem_used();
    st->resident = mem_rss();
    /* mimalloc commits whole segments ahead of use: what is untouched is
     * neither active nor resident. */
    st->active = commit < st->resident ? commit : st->resident;
}

const char *mem_allocator_name(void)
{
    static char name[32];
    /* mi_version() is major * 100 + minor * 10 + patch. */
    int v = mi_version();
    snprintf(name, sizeof(name), "mimalloc-%d.%d.%d", v / 100, v / 10 % 10, v % 10);
    return name;
}

struct report {
    char *buf;
    size_t len, cap;
};

static void report_append(const char *msg, void *arg)
{
    struct report *r = arg;
    size_t n = strlen(msg);
    if (r->len + n + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->len + n + 1)
            cap *= 2;
        r->buf = xrealloc(r->buf, cap);
        r->cap = cap;
    }
    memcpy(r->buf + r->len, msg, n + 1);
    r->len += n;
}

char *mem_allocator_report(void)
{
    struct report r = {0};
    mi_stats_print_out(report_append, &r);
    return r.buf;
}
#else
void mem_allocator_stats(struct mem_allocator_stats *st)
{
    struct mallinfo2 mi = mallinfo2();
    st->allocated = mem_used();
    st->active = mi.arena + mi.hblkhd;
    st->resident = mem_rss();
}

const char *mem_allocator_name(void)
{
    return "libc";
}

char *mem_allocator_report(void)
{
    char *text = NULL, *copy = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    if (malloc_info(0, f) == 0 && fflush(f) == 0)
        copy = xmemdup(text, len);
    fclose(f);
    free(text); /* open_memstream's, from plain malloc */
    return copy;
}
#endif

size_t mem_total_system(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

size_t mem_private_dirty(pid_t pid)
{
    char path[64], line[256];
    unsigned long long total = 0, kb;
    const char *who = pid ? NULL : "self";
    char num[24];
    if (!who) {
        snprintf(num, sizeof(num), "%ld", (long)pid);
        who = num;
    }
    snprintf(path, sizeof(path), "/proc/%s/smaps_rollup", who);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(path, sizeof(path), "/proc/%s/smaps", who);
        f = fopen(path, "r");
    }
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        /* The kernel writes these numbers: no range to check. */
        if (sscanf(line, "Private_Dirty: %llu kB", &kb) == 1) // NOLINT(cert-err34-c)
            total += kb;
    }
    fclose(f);
    return (size_t)total * 1024;
}

/* The size of a transparent huge page on x86-64 and arm64 with 4 kB pages. */
#define HUGE_PAGE ((uintptr_t)2 << 20)

char *mem_release_pages(void *p, size_t n)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(page - 1);
    if (hi <= lo || madvise((void *)lo, hi - lo, MADV_DONTNEED) != 0)
        return p;
    return (char *)hi;
}

void mem_advise_huge(void *p, size_t n)
{
    uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);
#ifdef MADV_HUGEPAGE
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)lo;
    (void)hi;
#endif
}
