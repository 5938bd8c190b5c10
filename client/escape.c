/*
 * escape.c - how binary keys and values are written as tsv and json text,
 * and how tsv text is read back. Owns nothing but the two encodings; knows
 * nothing of hiredis.
 *
 * tsv: \t \n \r \\ are two-character escapes, any other byte below 0x20 or
 * from 0x7f up is \xHH (lower-case hex written, either case read), the rest
 * is itself. So an escaped string holds no TAB and no newline, and a line is
 * exactly key<TAB>value.
 * json: one code point per byte (\u00XX for control bytes and from 0x7f up),
 * so the text is plain ASCII and every byte string survives; UTF-8 input
 * thus shows as its bytes, not as the characters they encode.
 */
#include "cli.h"

static const char hex[] = "0123456789abcdef";

/* A byte tsv and json both write as itself. */
static int is_plain(unsigned char c)
{
    return c >= 0x20 && c < 0x7f && c != '\\' && c != '"';
}

void cli_tsv_escape(FILE *out, const char *s, size_t len)
{
    size_t run = 0; /* plain bytes not yet written: written in one go, for speed */

    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (is_plain(c) || c == '"') {
            run++;
            continue;
        }
        fwrite(s + i - run, 1, run, out);
        run = 0;
        putc('\\', out);
        switch (c) {
        case '\t': putc('t', out); break;
        case '\n': putc('n', out); break;
        case '\r': putc('r', out); break;
        case '\\': putc('\\', out); break;
        default:
            putc('x', out);
            putc(hex[c >> 4], out);
            putc(hex[c & 15], out);
        }
    }
    fwrite(s + len - run, 1, run, out);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

long cli_tsv_unescape(char *s, size_t len)
{
    size_t o = 0;

    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '\t' || c == '\n')
            return -1;
        if (c != '\\') {
            s[o++] = c;
            continue;
        }
        if (++i == len)
            return -1;
        switch (s[i]) {
        case 't': s[o++] = '\t'; break;
        case 'n': s[o++] = '\n'; break;
        case 'r': s[o++] = '\r'; break;
        case '\\': s[o++] = '\\'; break;
        case 'x': {
            int hi = i + 2 < len ? hex_digit(s[i + 1]) : -1;
            int lo = hi >= 0 ? hex_digit(s[i + 2]) : -1;
            if (lo < 0)
                return -1;
            s[o++] = (char)(hi << 4 | lo);
            i += 2;
            break;
        }
        default:
            return -1;
        }
    }
    return (long)o;
}

void cli_json_escape(FILE *out, const char *s, size_t len)
{
    size_t run = 0;

    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (is_plain(c)) {
            run++;
            continue;
        }
        fwrite(s + i - run, 1, run, out);
        run = 0;
        if (c == '\\' || c == '"') {
            putc('\\', out);
            putc(c, out);
        } else {
            fputs("\\u00", out);
            putc(hex[c >> 4], out);
            putc(hex[c & 15], out);
        }
    }
    fwrite(s + len - run, 1, run, out);
}
