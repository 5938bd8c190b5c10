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

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xmemdup(const void *p, size_t len); /* NUL-terminated copy */
void xfree(void *p);                        /* xfree(NULL) does nothing */
/* Usable bytes of a block from xmalloc. */
size_t xsize(const void *p);

/* Bytes currently allocated through these wrappers, by this thread (the
 * loop thread's is the server's used_memory). */
size_t mem_used(void);
/* On a helper thread, when what it built passes to the loop thread: its
 * count, which restarts at 0 (it may be "negative", wrapped, if it freed
 * more than it allocated). On the loop thread, mem_add takes it over. */
size_t mem_take_thread_count(void);
void mem_add(size_t n);
/* Resident set size of the process, from /proc, or 0. */
size_t mem_rss(void);
/* Highest mem_used() seen since start. */
size_t mem_peak(void);
/* From the cron (now_ms: the loop's clock): returns freed heap to the
 * system once used memory fell well below its recent high (malloc_trim). */
void mem_trim_cron(int64_t now_ms);

#endif
