/*
 * print.c - what rbkv-cli writes to stdout: a plain-mode reply in
 * redis-cli's non-terminal form, and the entries of range, prefix and dump
 * in one of the formats plain, tsv, json or resp. Owns the cli_writer state
 * (whether an entry came before, for json's commas); the bytes come from
 * hiredis replies the caller owns.
 */
#include <string.h>

#include "cli.h"

int cli_format_parse(const char *name, enum cli_format *out)
{
    static const char *const names[] = {"plain", "tsv", "json", "resp"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!strcmp(name, names[i])) {
            *out = (enum cli_format)i;
            return 0;
        }
    }
    return -1;
}

/* redis-cli's cliFormatReplyRaw: an array's elements joined by newlines, so
 * an empty nested array still leaves its separator. */
static void print_raw(const redisReply *r)
{
    switch (r->type) {
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_ERROR:
        fwrite(r->str, 1, r->len, stdout);
        break;
    case REDIS_REPLY_INTEGER:
        printf("%lld", r->integer);
        break;
    case REDIS_REPLY_ARRAY:
        for (size_t i = 0; i < r->elements; i++) {
            if (i)
                putchar('\n');
            print_raw(r->element[i]);
        }
        break;
    default: /* nil: an empty line */
        break;
    }
}

void cli_print_reply(const redisReply *r)
{
    print_raw(r);
    putchar('\n');
}

static void resp_bulk(const char *s, size_t len)
{
    if (!s) {
        fputs("$-1\r\n", stdout);
        return;
    }
    printf("$%zu\r\n", len);
    fwrite(s, 1, len, stdout);
    fputs("\r\n", stdout);
}

static void json_string(const char *s, size_t len)
{
    if (!s) {
        fputs("null", stdout);
        return;
    }
    putchar('"');
    cli_json_escape(stdout, s, len);
    putchar('"');
}

void cli_writer_begin(struct cli_writer *w)
{
    w->count = 0;
    if (w->format == FMT_JSON)
        putchar('[');
}

void cli_writer_entry(struct cli_writer *w, const char *key, size_t klen, const char *val,
                      size_t vlen)
{
    switch (w->format) {
    case FMT_PLAIN:
        fwrite(key, 1, klen, stdout);
        putchar('\n');
        if (w->values) {
            if (val)
                fwrite(val, 1, vlen, stdout);
            putchar('\n');
        }
        break;
    case FMT_TSV:
        cli_tsv_escape(stdout, key, klen);
        /* A value that is not a string has no TAB, so load rejects the line
         * rather than storing an empty string. */
        if (w->values && val) {
            putchar('\t');
            cli_tsv_escape(stdout, val, vlen);
        }
        putchar('\n');
        break;
    case FMT_JSON:
        fputs(w->count ? ",\n" : "\n", stdout);
        if (w->values) {
            fputs("{\"key\":", stdout);
            json_string(key, klen);
            fputs(",\"value\":", stdout);
            json_string(val, vlen);
            putchar('}');
        } else {
            json_string(key, klen);
        }
        break;
    case FMT_RESP:
        if (w->as_set) {
            fputs("*3\r\n$3\r\nSET\r\n", stdout);
            resp_bulk(key, klen);
            resp_bulk(val, vlen);
        } else {
            resp_bulk(key, klen);
            if (w->values)
                resp_bulk(val, vlen);
        }
        break;
    }
    w->count++;
}

void cli_writer_command(struct cli_writer *w, int argc, const char *const *argv,
                        const size_t *lens)
{
    printf("*%d\r\n", argc);
    for (int i = 0; i < argc; i++)
        resp_bulk(argv[i], lens[i]);
    w->count++;
}

void cli_writer_end(struct cli_writer *w)
{
    if (w->format == FMT_JSON)
        fputs(w->count ? "\n]\n" : "]\n", stdout);
}
