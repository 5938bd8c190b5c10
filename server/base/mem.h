/*
 * mem.h - the server's allocator wrappers and used_memory accounting.
 *
 * Every allocation the server makes for data it keeps (entries, values,
 * clients) goes through these, so INFO's used_memory is what malloc really
 * handed out (malloc_usable_size). Running out of memory aborts here, in one
 * place, with a log line: only the server binary decides that.
 */
#ifndef RBKV_MEM_H
#define RBKV_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xmemdup(const void *p, size_t len); /* NUL-terminated copy */
void xfree(void *p);                        /* xfree(NULL) does nothing */
/* size bytes of zeros straight from the kernel (an anonymous mapping),
 * counted as size: nothing is written, so the pages cost nothing until
 * first touched and the resident size grows as the block fills. For a
 * large table that calloc would zero, and so fault in, all at once
 * (mimalloc's does, even on fresh pages). Give it back with xunmap(p, size),
 * on any thread as xfree. */
void *xmap_zeroed(size_t size);
void xunmap(void *p, size_t size); /* xunmap(NULL, n) does nothing */
/* Usable bytes of a block from xmalloc. */
size_t xsize(const void *p);
/* Asks the kernel to back the whole 2 MB pages inside [p, p + n) with
 * transparent huge pages (THP's "madvise" mode gives them only to memory
 * that asks): for a large table read at random, where each access would
 * otherwise miss the TLB. Only a hint: nothing changes where THP is off;
 * pages already touched stay as they are until the kernel collapses them. */
void mem_advise_huge(void *p, size_t n);
/* Gives the whole pages inside [p, p + n) back to the kernel
 * (MADV_DONTNEED: a block's pages read as zeros after, a read-only file
 * mapping's as the file again): a large block or mapped file read once
 * front to back can shed its pages as the reading goes, so the free or
 * unmap at the end does not drop hundreds of MB in one go. Returns the
 * address up to which pages were released (p when none was whole). */
char *mem_release_pages(void *p, size_t n);

/* Bytes currently allocated through these wrappers, by this thread (the
 * loop thread's, with what helper threads freed of it, is the server's
 * used_memory). */
size_t mem_used(void);
/* On a helper thread, when what it built passes to the loop thread: its
 * count, which restarts at 0 (it may be "negative", wrapped, if it freed
 * more than it allocated). On the loop thread, mem_add takes it over. */
size_t mem_take_thread_count(void);
void mem_add(size_t n);
/* On a helper thread that frees what the loop thread allocated (the
 * lazy-free thread): gives its count to the loop thread's, which takes it
 * in the next time it reads mem_used(). Thread-safe. */
void mem_return_thread_count(void);
/* Frees gathered for the loop thread. With mimalloc a block that a thread
 * frees without owning its page waits on that page's thread-free list, and
 * the owner (the loop thread, which allocated nearly everything) walks such
 * lists block by block later, all at once when it next needs those pages: a
 * helper that frees 2M blocks costs the loop a stall of that walk (docs/
 * internals.md, "Lazy freeing"). So a helper thread that frees the loop's
 * blocks may gather them instead: after mem_defer_frees(b, full) its xfree
 * of a block smaller than MEM_DEFER_MAX_BYTES only appends it to b, and when
 * b is full, full(b) takes it (to hand it to the loop thread, which frees it
 * with mem_free_batch) and returns the empty batch to go on with.
 * mem_defer_frees(NULL, NULL) ends it. A bigger block is alone on its pages,
 * so its free costs the owner one step: the helper frees it at once. With
 * glibc's malloc any thread frees into the block's arena at no later cost
 * to the loop: mem_defers_frees() is 0 and mem_defer_frees does nothing. */
struct mem_batch {
    void **blocks;
    size_t n, cap;
};
#define MEM_DEFER_MAX_BYTES ((size_t)1 << 20)
int mem_defers_frees(void);
/* Returns the batch gathered into until now (NULL if none), with what it
 * holds: the caller hands it on. */
struct mem_batch *mem_defer_frees(struct mem_batch *b, struct mem_batch *(*full)(struct mem_batch *b));
/* Frees up to max of b's blocks on this thread (counted in its
 * used_memory), the last ones first, and takes them off b. Returns how many
 * are left. */
size_t mem_free_batch(struct mem_batch *b, size_t max);
/* Resident set size of the process, from /proc, or 0. */
size_t mem_rss(void);
/* Highest mem_used() seen since start. */
size_t mem_peak(void);
/* From the cron (now_ms: the loop's clock): returns freed heap to the
 * system once used memory fell well below its recent high (malloc_trim).
 * Returns 1 when it trimmed, else 0. */
int mem_trim_cron(int64_t now_ms);
/* The trims so far (the cron's and MEMORY PURGE's), each timed on the
 * wall clock: how long the allocator held the loop thread. */
struct mem_trim_stats {
    uint64_t runs, us_sum, us_max, us_last;
};
void mem_trim_get_stats(struct mem_trim_stats *out);
void mem_trim_reset_stats(void);
/* MEMORY PURGE: gives every freed page the allocator can spare back to the
 * system now, whatever the cron's wait. */
void mem_purge(void);

/* mem_used() once the server is set up and before it loads data, as Redis's
 * startup.allocated: what an empty server costs. */
void mem_mark_startup(void);
size_t mem_startup(void);

/* The allocator's view, as Redis's allocator.* figures: allocated is what
 * the server asked for (mem_used), active the heap the allocator holds for
 * it (mimalloc's committed pages, at most the RSS; glibc's arena and
 * mmapped blocks), and resident what of that is in RAM (the process's RSS:
 * neither allocator tells its own apart). */
struct mem_allocator_stats {
    size_t allocated, active, resident;
};
void mem_allocator_stats(struct mem_allocator_stats *st);
/* "mimalloc-2.0.9" or "libc" (INFO's mem_allocator). */
const char *mem_allocator_name(void);
/* The allocator's own statistics as text (mimalloc's report, glibc's
 * malloc_info XML), NUL-terminated and owned by the caller (xfree); NULL
 * when the allocator gave nothing. */
char *mem_allocator_report(void);
/* Bytes of RAM the machine has (sysconf), or 0. */
size_t mem_total_system(void);
/* Private_Dirty bytes of process pid (from /proc/PID/smaps_rollup, or
 * smaps): for a forked child, the pages copied because one side wrote to
 * them. 0 when it cannot be read. */
size_t mem_private_dirty(pid_t pid);

#endif
