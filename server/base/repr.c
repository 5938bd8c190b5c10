/*
 * repr.c - Redis's sdscatrepr quoting (repr.h).
 *
 * isprint is taken in the "C" locale sense, as Redis runs: bytes 0x20-0x7e.
 */
#include "repr.h"

static const char hex[] = "0123456789abcdef";

size_t repr_write(char *dst, const char *s, size_t len)
{
    char *d = dst;
    *d++ = '"';
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        char named = 0;
        switch (ch) {
        case '\\': named = '\\'; break;
        case '"': named = '"'; break;
        case '\n': named = 'n'; break;
        case '\r': named = 'r'; break;
        case '\t': named = 't'; break;
        case '\a': named = 'a'; break;
        case '\b': named = 'b'; break;
        default: break;
        }
        if (named) {
            *d++ = '\\';
            *d++ = named;
        } else if (ch >= 0x20 && ch < 0x7f) {
            *d++ = (char)ch;
        } else {
            *d++ = '\\';
            *d++ = 'x';
            *d++ = hex[ch >> 4];
            *d++ = hex[ch & 15];
        }
    }
    *d++ = '"';
    return (size_t)(d - dst);
}
