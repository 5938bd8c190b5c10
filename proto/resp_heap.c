/*
 * resp_heap.c - the RESP library's allocator (resp_heap.h); resp_alloc.h
 * routes RESP_MALLOC & co. here unless a test build names its own.
 */
#include "resp_heap.h"

#include <stdlib.h>

struct resp_heap resp_heap = {malloc, realloc, free};

void resp_set_heap(const struct resp_heap *h)
{
    resp_heap = *h;
}
