/*
 * test_numparse.c - resp_format_ll and resp_format_u64 (proto/resp_num.c)
 * against snprintf's "%lld" and "%llu": the extremes, every power of ten and
 * its neighbours of both signs, then random values of every length from a
 * seed (SEED=<n> replays). Each text must also read back through
 * resp_parse_ll, and no byte past the returned length may be written; the
 * texts string2ll refuses are refused.
 */
#include <limits.h>
#include <string.h>

#include "check.h"
#include "resp_num.h"
#include "rng.h"

#define GUARD 0x5a
#define RANDOM_VALUES 200000

static void check_one(long long v)
{
    char buf[RESP_LL_CHARS + 8];
    char want[32];
    long long back;

    memset(buf, GUARD, sizeof(buf));
    size_t len = resp_format_ll(buf, v);
    int n = snprintf(want, sizeof(want), "%lld", v);
    CHECK_MSG(len == (size_t)n && memcmp(buf, want, len) == 0, "%lld written as '%.*s'", v,
              (int)len, buf);
    for (size_t i = len; i < sizeof(buf); i++)
        CHECK_MSG((unsigned char)buf[i] == GUARD, "%lld: byte %zu written past its length", v, i);
    CHECK(resp_parse_ll(buf, len, &back) == 0 && back == v);
    if (v >= 0) {
        memset(buf, GUARD, sizeof(buf));
        CHECK(resp_format_u64(buf, (unsigned long long)v) == len && memcmp(buf, want, len) == 0);
        CHECK((unsigned char)buf[len] == GUARD);
    }
}

/* What Redis's string2ll refuses: empty, a lone '-', "-0", leading zeros,
 * '+', spaces, a byte past the digits, one past either end of the range. */
static void test_refused(void)
{
    static const char *const bad[] = {"", "-", "-0", "01", "+1", " 1", "1 ", "1a",
                                      "9223372036854775808", "-9223372036854775809",
                                      "123456789012345678901"};
    long long v;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_MSG(resp_parse_ll(bad[i], strlen(bad[i]), &v) == -1, "'%s' read", bad[i]);
    /* Bounded by the length: the digits after it are not read. */
    CHECK(resp_parse_ll("123", 2, &v) == 0 && v == 12);
    char buf[32];
    size_t n = resp_format_u64(buf, ULLONG_MAX);
    CHECK(n == 20 && memcmp(buf, "18446744073709551615", 20) == 0);
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
    char buf[RESP_LL_CHARS];
    CHECK(resp_format_ll(buf, LLONG_MIN) == RESP_LL_CHARS); /* the longest fits */
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
    test_refused();
    printf("numparse: ok\n");
    return 0;
}
