/*
 * test_resp_util.h - shared helpers of the RESP unit tests.
 *
 * Owns: the counting allocator the proto/ sources are compiled against in the
 * tests (see tests/resp.cmake). CHECK, the seed and the generator are
 * check.h's. Every test binary ends with test_finish(), which fails on a
 * leaked allocation.
 */
#ifndef RBKV_TEST_RESP_UTIL_H
#define RBKV_TEST_RESP_UTIL_H

#include <stddef.h>

/* The allocator behind RESP_MALLOC / RESP_REALLOC / RESP_FREE in the tests. */
void *resp_test_malloc(size_t n);
void *resp_test_realloc(void *p, size_t n);
void resp_test_free(void *p);

struct test_alloc_stats {
    long live;          /* blocks not freed yet */
    long calls;         /* malloc + realloc calls */
    long reallocs;      /* realloc calls */
    size_t live_bytes;  /* bytes in live blocks */
    size_t peak_bytes;  /* most live_bytes ever */
    size_t last_size;   /* size asked by the last malloc/realloc */
};
extern struct test_alloc_stats test_alloc;
/* Makes the allocation after n more succeed fail (0: the next one); -1 never. */
void test_alloc_fail_after(long n);

/* Prints the verdict on leaks; returns the process exit status. */
int test_finish(const char *name);

#endif
