/*
 * mem.c - counting allocator wrappers (see mem.h).
 *
 * The counter is a plain size_t: only the loop thread allocates through these
 * wrappers (a forked child has its own copy).
 */
#include "mem.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t used_bytes;
static size_t peak_bytes;

static void *account(void *p)
{
    if (!p) {
        fprintf(stderr, "rbkv: out of memory (used_memory=%zu)\n", used_bytes);
        abort();
    }
    used_bytes += malloc_usable_size(p);
    if (used_bytes > peak_bytes)
        peak_bytes = used_bytes;
    return p;
}

void *xmalloc(size_t size)
{
    return account(malloc(size ? size : 1));
}

void *xcalloc(size_t n, size_t size)
{
    return account(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t size)
{
    size_t old = p ? malloc_usable_size(p) : 0;
    void *q = realloc(p, size ? size : 1);
    if (q)
        used_bytes -= old;
    return account(q);
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

void xfree(void *p)
{
    if (!p)
        return;
    used_bytes -= malloc_usable_size(p);
    free(p);
}

size_t xsize(const void *p)
{
    return malloc_usable_size((void *)p);
}

size_t mem_used(void)
{
    return used_bytes;
}

size_t mem_peak(void)
{
    return peak_bytes;
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
