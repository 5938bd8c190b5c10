/*
 * lua_random_value.h - random Lua values written as Lua source text, for the
 * tests of cmsgpack (server/core/lua_cmsgpack.c): the round trips of
 * tests/unit/test_lua_libs.c and the byte-for-byte comparison with
 * redis-server of tests/integration/test_script_libs.c.
 *
 * The values: numbers at the encodings' edges, random integers and
 * fractions, strings of every header size (string.rep, so the text stays
 * short), booleans and nil, arrays and maps nested a few deep.
 *
 * Header-only, on rng.h alone (not check.h, whose CHECK is not the
 * integration harness's). The caller owns the state word and the output
 * buffer.
 */
#ifndef RBKV_TEST_LUA_RANDOM_VALUE_H
#define RBKV_TEST_LUA_RANDOM_VALUE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rng.h"

/* What the values may be, for what the caller compares. */
struct lua_value_shape {
    size_t long_string; /* one string in eight is shorter than this; the rest below 40 */
    int one_key_maps;   /* maps of one key only: their packed bytes do not depend on the
                           order a Lua table keeps its keys in, which differs between servers */
};

/* A random value as Lua source text into out (cap bytes), tables nested
 * below depth 4. Returns its length, or 0 when it did not fit (a table then
 * leaves it out). */
static inline size_t lua_random_value(uint64_t *rng, char *out, size_t cap, int depth,
                                      const struct lua_value_shape *shape)
{
    static const char *const numbers[] = {
        "0", "1", "-1", "127", "128", "-32", "-33", "255", "256", "-128", "-129", "65535",
        "65536", "-32768", "-32769", "4294967295", "4294967296", "-2147483648", "-2147483649",
        "2^53", "-2^53", "2^63", "-2^63", "0.5", "0.1", "-2.75", "1e300", "1/0", "-1/0", "1e-45",
        "16777217",
    };
    static const char *const words[] = {"true", "false", "nil"};
    int n;
    switch (rng_below(rng, depth > 3 ? 5 : 7)) {
    case 0:
        n = snprintf(out, cap, "%s",
                     numbers[rng_below(rng, sizeof(numbers) / sizeof(numbers[0]))]);
        break;
    case 1:
        n = snprintf(out, cap, "string.rep('%c', %zu)", 'a' + (int)rng_below(rng, 26),
                     rng_below(rng, 8) ? rng_below(rng, 40)
                                              : rng_below(rng, shape->long_string));
        break;
    case 2:
        n = snprintf(out, cap, "%s", words[rng_below(rng, 3)]);
        break;
    case 3:
        n = snprintf(out, cap, "%lld",
                     (long long)(rng_next(rng) >> rng_below(rng, 64)) *
                         (rng_below(rng, 2) ? 1 : -1));
        break;
    case 4:
        n = snprintf(out, cap, "%.17g",
                     (double)(int64_t)(rng_next(rng) >> rng_below(rng, 64)) /
                         (double)(1 + rng_below(rng, 3)));
        break;
    default: {
        int map = rng_below(rng, 2) == 0;
        size_t items = map && shape->one_key_maps
                           ? 1
                           : rng_below(rng, rng_below(rng, 4) == 0 ? 20 : 5);
        size_t used = 1;
        if (cap < 3)
            return 0;
        out[0] = '{';
        for (size_t i = 0; i < items; i++) {
            int key = map ? snprintf(out + used, cap - used, "['k%zu'] = ", i) : 0;
            if (key < 0 || (size_t)key >= cap - used)
                break;
            size_t len = lua_random_value(rng, out + used + (size_t)key,
                                          cap - used - (size_t)key, depth + 1, shape);
            if (!len || used + (size_t)key + len + 3 >= cap)
                break;
            used += (size_t)key + len;
            out[used++] = ',';
        }
        out[used++] = '}';
        out[used] = '\0';
        return used;
    }
    }
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

#endif
