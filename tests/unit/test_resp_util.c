/*
 * test_resp_util.c - shared helpers of the RESP unit tests (see the header).
 *
 * Each block carries its size in a header in front of it, so live bytes and
 * leaks are exact.
 */
#include "test_resp_util.h"

#include <stdio.h>
#include <stdlib.h>

struct test_alloc_stats test_alloc;
static long fail_countdown = -1;

/* Block header; max_align_t keeps the user pointer aligned as malloc's. */
union block {
    size_t size;
    max_align_t align;
};

static int should_fail(void)
{
    if (fail_countdown < 0)
        return 0;
    return fail_countdown-- == 0;
}

static void account(size_t added, size_t removed)
{
    test_alloc.live_bytes += added;
    test_alloc.live_bytes -= removed;
    if (test_alloc.live_bytes > test_alloc.peak_bytes)
        test_alloc.peak_bytes = test_alloc.live_bytes;
}

void *resp_test_malloc(size_t n)
{
    union block *b;

    test_alloc.calls++;
    test_alloc.last_size = n;
    if (should_fail() || (b = malloc(sizeof(*b) + n)) == NULL)
        return NULL;
    b->size = n;
    test_alloc.live++;
    account(n, 0);
    return b + 1;
}

void *resp_test_realloc(void *p, size_t n)
{
    union block *b;
    size_t old;

    if (p == NULL)
        return resp_test_malloc(n);
    test_alloc.calls++;
    test_alloc.reallocs++;
    test_alloc.last_size = n;
    if (should_fail())
        return NULL;
    b = (union block *)p - 1;
    old = b->size;
    b = realloc(b, sizeof(*b) + n);
    if (b == NULL)
        return NULL;
    b->size = n;
    account(n, old);
    return b + 1;
}

void resp_test_free(void *p)
{
    union block *b;

    if (p == NULL)
        return;
    b = (union block *)p - 1;
    test_alloc.live--;
    account(0, b->size);
    free(b);
}

void test_alloc_fail_after(long n)
{
    fail_countdown = n;
}

int test_finish(const char *name)
{
    if (test_alloc.live != 0) {
        fprintf(stderr, "%s: %ld blocks (%zu bytes) leaked\n", name, test_alloc.live,
                test_alloc.live_bytes);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}
