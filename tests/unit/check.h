/*
 * check.h - what every unit test shares: CHECK, the seed of a run, the
 * random numbers drawn from it, and a temp dir that goes away.
 *
 * Owns: the seed of this run, a pointer to the test's operation counter
 * (both kept only to be printed on failure) and the test's temp dir.
 * Header-only, so a test program needs no library to link; each program
 * keeps its own copy of that state, so the test that took the seed is the one
 * whose checks print it. Not for tests/integration/, whose harness counts
 * expectations and goes on (harness.h).
 *
 * CHECK(expr) stops the test at the first false expr: it prints
 * "file:line: CHECK failed: expr", then the seed and the operation number
 * when the test set them, and exits with status 1. CHECK_MSG(expr, fmt, ...)
 * adds a printf-style message. Stopping rather than counting and going on,
 * because what follows a check relies on it: a pointer checked non-NULL is
 * used next, a tree that failed its invariant check may no longer be
 * walkable, and a random test that went wrong once goes wrong at every later
 * step. Not <assert.h>: checks must run under NDEBUG too. Since a failed
 * check exits, cleanup that must happen anyway runs from atexit, as
 * check_tmpdir's does.
 *
 * The seed: check_seed(fallback) takes $SEED (decimal) when it is set, else
 * fallback (a fixed number, or the clock for tests that try a new seed each
 * run), prints SEED=<n> and returns it. SEED=<n> in the environment replays
 * a run.
 *
 * The generator (rng_): splitmix64, in rng.h.
 */
#ifndef RBKV_TEST_CHECK_H
#define RBKV_TEST_CHECK_H

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rng.h"

#define CHECK(expr) ((expr) ? (void)0 : check_failed(__FILE__, __LINE__, #expr))
#define CHECK_MSG(expr, ...)                                                                      \
    ((expr) ? (void)0 : check_failedf(__FILE__, __LINE__, #expr, __VA_ARGS__))

struct check_state {
    uint64_t seed;
    int seeded;              /* check_seed was called */
    const unsigned long *op; /* the test's operation counter, or NULL */
    char tmpdir[256];        /* check_tmpdir's directory, or "" */
};

static inline struct check_state *check_state(void)
{
    static struct check_state state;
    return &state;
}

/* Prints what replays the run, then ends the test as failed. */
static inline _Noreturn void check_exit(void)
{
    const struct check_state *st = check_state();
    if (st->seeded) {
        fprintf(stderr, "SEED=%" PRIu64, st->seed);
        if (st->op)
            fprintf(stderr, " (operation %lu)", *st->op);
        fputc('\n', stderr);
    }
    exit(1);
}

static inline _Noreturn void check_failed(const char *file, int line, const char *expr)
{
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, expr);
    check_exit();
}

static inline _Noreturn void check_failedf(const char *file, int line, const char *expr,
                                           const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline _Noreturn void check_failedf(const char *file, int line, const char *expr,
                                           const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: CHECK failed: %s: ", file, line, expr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    check_exit();
}

/* The seed of this run: $SEED when set, else fallback. Prints SEED=<n>. */
static inline uint64_t check_seed(uint64_t fallback)
{
    struct check_state *st = check_state();
    const char *env = getenv("SEED");
    st->seed = env && *env ? strtoull(env, NULL, 10) : fallback;
    st->seeded = 1;
    printf("SEED=%" PRIu64 "\n", st->seed);
    fflush(stdout);
    return st->seed;
}

/* A failed check also prints *op, the number of the operation under way
 * (the counter stays the test's; NULL forgets it). */
static inline void check_report_op(const unsigned long *op)
{
    check_state()->op = op;
}

/* nftw's callback for check_remove_tmpdir: children come before their dir. */
/* How many times slower this run is: $RBKV_TEST_SLOW (make test-valgrind sets
 * it), else 1. A test that checks a whole structure after each step may check
 * it every check_slow() steps instead. */
static inline int check_slow(void)
{
    const char *slow = getenv("RBKV_TEST_SLOW");
    return slow && atoi(slow) > 1 ? atoi(slow) : 1;
}

static inline int check_remove_cb(const char *path, const struct stat *st, int type,
                                  struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    remove(path);
    return 0;
}

static inline void check_remove_tmpdir(void)
{
    nftw(check_state()->tmpdir, check_remove_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* Makes a new directory from pattern (ending in XXXXXX, which mkdtemp
 * replaces), removed with all it holds when the test exits, passed or
 * failed. Returns pattern; exits with status 2 when it cannot be made. One
 * per program. */
static inline char *check_tmpdir(char *pattern)
{
    struct check_state *st = check_state();
    errno = ENAMETOOLONG; /* what perror says when pattern is too long */
    if (strlen(pattern) >= sizeof(st->tmpdir) || !mkdtemp(pattern)) {
        perror(pattern);
        exit(2);
    }
    strcpy(st->tmpdir, pattern);
    atexit(check_remove_tmpdir);
    return pattern;
}

#endif
