/*
 * resp_alloc.h - the allocator seam of the RESP library (private to proto/).
 *
 * The library allocates only through RESP_MALLOC / RESP_REALLOC / RESP_FREE.
 * A normal build maps them to the allocator resp_heap.h sets (the C
 * library's unless the program handed over its own). The unit tests compile the same
 * sources with -DRESP_MALLOC=... pointing at a counting allocator, so every
 * test checks for leaks and can make the Nth allocation fail.
 */
#ifndef RBKV_RESP_ALLOC_H
#define RBKV_RESP_ALLOC_H

#include <stddef.h>
#include <stdlib.h>

#ifdef RESP_MALLOC
void *RESP_MALLOC(size_t n);
void *RESP_REALLOC(void *p, size_t n);
void RESP_FREE(void *p);
#else
#include "resp_heap.h"
extern struct resp_heap resp_heap;
#define RESP_MALLOC resp_heap.alloc
#define RESP_REALLOC resp_heap.resize
#define RESP_FREE resp_heap.release
#endif

#endif
