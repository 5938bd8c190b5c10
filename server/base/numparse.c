/*
 * numparse.c - bounded number parsing (numparse.h).
 */
#include "numparse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
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

int parse_double(const char *p, size_t len, double *out)
{
    char buf[256];
    char *end;
    if (len == 0 || len >= sizeof(buf) || isspace((unsigned char)p[0]))
        return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    errno = 0;
    double v = strtod(buf, &end);
    if (end != buf + len || isnan(v))
        return -1;
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || v == 0))
        return -1;
    *out = v;
    return 0;
}
