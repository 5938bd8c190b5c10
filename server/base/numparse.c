/*
 * numparse.c - bounded number parsing and number text (numparse.h).
 */
#include "numparse.h"
#include "mem.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Room for every double an argument usually holds; longer text (DBL_MAX
 * written out in full is 309 digits) is copied to the heap. */
#define STRTOD_SMALL 128

double numparse_strtod(const char *p, size_t len, size_t *used, int *erange)
{
    char small[STRTOD_SMALL];
    char *buf = len < sizeof(small) ? small : xmalloc(len + 1);
    char *end;
    memcpy(buf, p, len);
    buf[len] = '\0';
    errno = 0;
    double v = strtod(buf, &end);
    *erange = errno == ERANGE;
    *used = (size_t)(end - buf);
    if (buf != small)
        xfree(buf);
    return v;
}

int parse_double(const char *p, size_t len, double *out)
{
    size_t used;
    int erange;
    if (len == 0 || isspace((unsigned char)p[0]))
        return -1;
    double v = numparse_strtod(p, len, &used, &erange);
    if (used != len || isnan(v))
        return -1;
    if (erange && (v == HUGE_VAL || v == -HUGE_VAL || v == 0))
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
