/*
 * resp_num.c - decimal integers to and from text (resp_num.h). On the hot
 * path of every request (headers, lengths, INCR): no snprintf, no strtoll.
 */
#include "resp_num.h"

#include <limits.h>

const char resp_digit_pairs[201] = "0001020304050607080910111213141516171819"
                                   "2021222324252627282930313233343536373839"
                                   "4041424344454647484950515253545556575859"
                                   "6061626364656667686970717273747576777879"
                                   "8081828384858687888990919293949596979899";

int resp_parse_ll(const char *p, size_t len, long long *out)
{
    unsigned long long v;
    size_t i = 0;
    int neg = 0;

    if (len == 0 || len > 20) /* 20 = strlen("-9223372036854775808") */
        return -1;
    if (len == 1 && p[0] == '0') {
        *out = 0;
        return 0;
    }
    if (p[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == len || p[i] < '1' || p[i] > '9')
        return -1;
    v = (unsigned long long)(p[i++] - '0');
    for (; i < len; i++) {
        unsigned d = (unsigned)(unsigned char)p[i] - '0';
        if (d > 9 || v > (ULLONG_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (unsigned long long)LLONG_MAX + 1)
            return -1;
        *out = v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v;
    } else {
        if (v > (unsigned long long)LLONG_MAX)
            return -1;
        *out = (long long)v;
    }
    return 0;
}

static size_t decimal_digits(unsigned long long u)
{
    size_t n = 1;
    while (u >= 10000) {
        u /= 10000;
        n += 4;
    }
    return n + (u >= 10) + (u >= 100) + (u >= 1000);
}

size_t resp_format_u64(char *buf, unsigned long long v)
{
    size_t len = decimal_digits(v);
    char *p = buf + len;

    /* Filled from the end, where the division leaves the digits. */
    for (; v >= 100; v /= 100) {
        const char *d = resp_digit_pairs + 2 * (v % 100);
        *--p = d[1];
        *--p = d[0];
    }
    if (v >= 10) {
        *--p = resp_digit_pairs[2 * v + 1];
        *--p = resp_digit_pairs[2 * v];
    } else {
        *--p = (char)('0' + v);
    }
    return len;
}

size_t resp_format_ll(char *buf, long long v)
{
    if (v >= 0)
        return resp_format_u64(buf, (unsigned long long)v);
    /* The magnitude as unsigned, so LLONG_MIN negates without overflow. */
    buf[0] = '-';
    return 1 + resp_format_u64(buf + 1, 0ULL - (unsigned long long)v);
}
