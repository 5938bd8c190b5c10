/*
 * test_resp_util.h - shared helpers of the RESP unit tests.
 *
 * Owns: the counting allocator the proto/ sources are compiled against in the
 * tests (see tests/resp.cmake), CHECK, and SEED handling. Every test binary
 * ends with test_finish(), which fails on any CHECK or on a leaked allocation.
 */
#ifndef RBKV_TEST_RESP_UTIL_H
#define RBKV_TEST_RESP_UTIL_H

#include <stddef.h>
#include <stdint.h>

extern long test_failures;

void test_fail(const char *file, int line, const char *what);
#define CHECK(cond) ((cond) ? (void)0 : test_fail(__FILE__, __LINE__, #cond))

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

/* The seed of this run: $SEED if set, else from the clock. Printed as SEED=. */
uint64_t test_seed(const char *name);
/* xorshift64*: a small, fast generator whose sequence depends only on the seed. */
uint64_t test_rand(uint64_t *state);
/* Uniform-ish in [0, n). */
size_t test_below(uint64_t *state, size_t n);

/* Prints the verdict; returns the process exit status. */
int test_finish(const char *name);

#endif
