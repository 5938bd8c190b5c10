/*
 * numparse.c - bounded number parsing and number text (numparse.h).
 */
#include "numparse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int parse_ll(const char *p, size_t len, long long *out)
{
    unsigned long long v = 0;
    size_t i = 0;
    int neg = 0;

    if (len == 0 || len > 20)
        return -1;
    if (len == 1 && p[0] == '0') {
        *out = 0;
        return 0;
    }
    if (p[0] == '-') {
        neg = 1;
        i = 1;
        if (len == 1)
            return -1;
    }
    if (p[i] < '1' || p[i] > '9')
        return -1;
    for (; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        if (v > (ULLONG_MAX - (unsigned)(p[i] - '0')) / 10)
            return -1;
        v = v * 10 + (unsigned)(p[i] - '0');
    }
    if (neg) {
        if (v > (unsigned long long)LLONG_MAX + 1)
            return -1;
        *out = v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v;
    } else {
        if (v > LLONG_MAX)
            return -1;
        *out = (long long)v;
    }
    return 0;
}

/* Copies the text into buf, NUL-terminated, for strtod and strtold. Returns
 * 0, or -1 when it is empty, longer than buf holds, or starts with a space,
 * which none of Redis's number parsers accepts. */
static int terminated(const char *p, size_t len, char *buf, size_t cap)
{
    if (len == 0 || len >= cap || isspace((unsigned char)p[0]))
        return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    errno = 0;
    return 0;
}

/* "00".."99": two digits per division, as in Redis's ull2string. */
static const char two_digits[] = "0001020304050607080910111213141516171819"
                                 "2021222324252627282930313233343536373839"
                                 "4041424344454647484950515253545556575859"
                                 "6061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

static size_t decimal_digits(unsigned long long u)
{
    size_t n = 1;
    while (u >= 10000) {
        u /= 10000;
        n += 4;
    }
    return n + (u >= 10) + (u >= 100) + (u >= 1000);
}

size_t format_ll(char *buf, long long v)
{
    /* The magnitude as unsigned, so LLONG_MIN negates without overflow. */
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    size_t len = (v < 0) + decimal_digits(u);
    char *p = buf + len;

    /* Filled from the end, where the division leaves the digits. */
    for (; u >= 100; u /= 100) {
        const char *d = two_digits + 2 * (u % 100);
        *--p = d[1];
        *--p = d[0];
    }
    if (u >= 10) {
        *--p = two_digits[2 * u + 1];
        *--p = two_digits[2 * u];
    } else {
        *--p = (char)('0' + u);
    }
    if (v < 0)
        buf[0] = '-';
    return len;
}

int parse_double(const char *p, size_t len, double *out)
{
    char buf[256];
    char *end;
    if (terminated(p, len, buf, sizeof(buf)) < 0)
        return -1;
    double v = strtod(buf, &end);
    if (end != buf + len || isnan(v))
        return -1;
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || v == 0))
        return -1;
    *out = v;
    return 0;
}

int parse_long_double(const char *p, size_t len, long double *out)
{
    char buf[NUMPARSE_LONG_DOUBLE_CHARS];
    char *end;
    if (terminated(p, len, buf, sizeof(buf)) < 0)
        return -1;
    long double v = strtold(buf, &end);
    if (end != buf + len || isnan(v) || errno == EINVAL)
        return -1;
    if (errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || v == 0))
        return -1;
    *out = v;
    return 0;
}

size_t format_long_double(char *buf, long double v)
{
    int n = snprintf(buf, NUMPARSE_LONG_DOUBLE_CHARS, "%.17Lf", v);
    size_t len = n > 0 && n < NUMPARSE_LONG_DOUBLE_CHARS ? (size_t)n : 0;

    if (memchr(buf, '.', len)) {
        while (buf[len - 1] == '0')
            len--;
        if (buf[len - 1] == '.')
            len--;
    }
    if (len == 2 && buf[0] == '-' && buf[1] == '0') {
        buf[0] = '0';
        len = 1;
    }
    return len;
}
