/*
 * test_numparse.c - format_ll (server/base/numparse.c) against snprintf's
 * "%lld": the extremes, every power of ten and its neighbours of both signs,
 * then random values of every length from a seed (SEED=<n> replays). Each
 * text must also read back through parse_ll, and no byte past the returned
 * length may be written.
 */
#include <limits.h>
#include <string.h>

#include "check.h"
#include "numparse.h"
#include "rng.h"

#define GUARD 0x5a
#define RANDOM_VALUES 200000

static void check_one(long long v)
{
    char buf[NUMPARSE_LL_CHARS + 8];
    char want[32];
    long long back;

    memset(buf, GUARD, sizeof(buf));
    size_t len = format_ll(buf, v);
    int n = snprintf(want, sizeof(want), "%lld", v);
    CHECK_MSG(len == (size_t)n && memcmp(buf, want, len) == 0, "%lld written as '%.*s'", v,
              (int)len, buf);
    for (size_t i = len; i < sizeof(buf); i++)
        CHECK_MSG((unsigned char)buf[i] == GUARD, "%lld: byte %zu written past its length", v, i);
    CHECK(parse_ll(buf, len, &back) == 0 && back == v);
}

static void test_extremes(void)
{
    check_one(0);
    check_one(-1);
    check_one(1);
    check_one(LLONG_MAX);
    check_one(LLONG_MIN);
    check_one(LLONG_MAX - 1);
    check_one(LLONG_MIN + 1);
    char buf[NUMPARSE_LL_CHARS];
    CHECK(format_ll(buf, LLONG_MIN) == NUMPARSE_LL_CHARS); /* the longest fits */
}

/* Where the digit count changes: 10^k - 1, 10^k and 10^k + 1, signed both ways. */
static void test_powers_of_ten(void)
{
    for (long long p = 1;; p *= 10) {
        for (long long d = -1; d <= 1; d++) {
            check_one(p + d);
            check_one(-(p + d));
        }
        if (p > LLONG_MAX / 10)
            break;
    }
}

/* Random magnitudes below a random power of two, so short numbers are as
 * frequent as long ones. */
static void test_random(void)
{
    uint64_t state = check_seed(20261205);
    for (int i = 0; i < RANDOM_VALUES; i++) {
        uint64_t bits = rng_next(&state) >> rng_below(&state, 64);
        long long v = (long long)(bits >> 1);
        check_one(rng_next(&state) & 1 ? -v : v);
    }
}

int main(void)
{
    test_extremes();
    test_powers_of_ten();
    test_random();
    printf("numparse: ok\n");
    return 0;
}
