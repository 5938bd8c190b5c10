/*
 * resp_heap.h - where the RESP library's buffers come from (resp_heap.c).
 *
 * By default the C library's malloc, realloc and free. A program that counts
 * its memory (the server: every query buffer, argument vector and reply
 * chunk is part of used_memory, as in Redis) hands its own allocator over
 * once, before the first parser or writer exists: a buffer must be freed by
 * the allocator that made it.
 */
#ifndef RBKV_RESP_HEAP_H
#define RBKV_RESP_HEAP_H

#include <stddef.h>

struct resp_heap {
    void *(*alloc)(size_t n);
    void *(*resize)(void *p, size_t n);
    void (*release)(void *p);
};

/* Copies *h: from now on the library allocates through it. */
void resp_set_heap(const struct resp_heap *h);

#endif
