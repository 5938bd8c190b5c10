/*
 * cli.h - the parts of rbkv-cli and what each file owns:
 *   main.c    flags, usage and dispatch to a mode;
 *   conn.c    connecting, AUTH and SELECT;
 *   print.c   plain-mode replies (redis-cli's non-terminal form) and the
 *             entry formats of range, prefix and dump;
 *   escape.c  the tsv and json escaping of binary strings, and its reverse;
 *   range.c   range, prefix, count and dump: paging through KRANGE;
 *   load.c    load: tsv or RESP input, pipelined;
 *   convert.c convert: an RDB file to an rbkv snapshot or back, by exec'ing
 *             rbkv-server --convert-rdb (the codec is server code).
 * The client uses hiredis only and never links server code.
 *
 * Exit codes, returned by every mode: CLI_OK, CLI_ERR_REPLY when the server
 * answered with an error, CLI_ERR_USAGE for bad usage, bad input or a
 * connection error. Errors go to stderr.
 */
#ifndef RBKV_CLI_H
#define RBKV_CLI_H

#include <stddef.h>
#include <stdio.h>

#include <hiredis/hiredis.h>

enum { CLI_OK = 0, CLI_ERR_REPLY = 1, CLI_ERR_USAGE = 2 };

/* conn.c */

/* redis-cli's TLS flags (tls.c). */
struct cli_tls_opts {
    int enabled;          /* --tls */
    int insecure;         /* --insecure: the server's certificate is not verified */
    const char *cacert, *cacertdir; /* NULL both: the system's CAs */
    const char *cert, *key;         /* our certificate, for tls-auth-clients */
    const char *sni;
};

struct cli_conn_opts {
    const char *host;
    int port;
    const char *socket;   /* a unix socket path: then host and port are unused */
    const char *password; /* NULL or "": no AUTH */
    int db;
    double timeout_s;
    struct cli_tls_opts tls;
};

/* Connects, authenticates and selects the database. Returns CLI_OK with
 * *out set (the caller frees it with redisFree), or an exit code after
 * printing why. */
int cli_connect(const struct cli_conn_opts *o, redisContext **out);

/* tls.c */

struct timeval;
/* Connects to o->host:o->port over TLS with o->tls; returns a plaintext fd
 * for redisConnectFd (a relay thread carries it over the TLS connection),
 * or -1 with the reason in err. */
int cli_tls_connect(const struct cli_conn_opts *o, const struct timeval *tv, char *err, size_t len);
/* Waits for the relay of cli_tls_connect's connection, whose fd hiredis
 * closed, to end; does nothing without one. */
void cli_tls_wait(void);

/* Reports a failed redisCommand/redisGetReply (ctx->err set) and returns
 * CLI_ERR_USAGE, the code of a lost connection. */
int cli_conn_error(const redisContext *ctx);

/* print.c */

enum cli_format { FMT_PLAIN, FMT_TSV, FMT_JSON, FMT_RESP };

/* Parses "plain", "tsv", "json" or "resp". Returns 0, or -1. */
int cli_format_parse(const char *name, enum cli_format *out);

/* Prints a reply to stdout as redis-cli does when stdout is not a terminal. */
void cli_print_reply(const redisReply *r);

/* Writes a stream of entries to stdout: begin, any number of entries, end.
 * as_set (RESP only) writes each entry as a SET command, for dump; other
 * formats ignore it. */
struct cli_writer {
    enum cli_format format;
    int values;  /* entries carry a value */
    int as_set;
    size_t count; /* entries written so far: json puts commas between them */
};
void cli_writer_begin(struct cli_writer *w);
/* val is NULL for a key whose value is not a string (WITHVALUES's nil). */
void cli_writer_entry(struct cli_writer *w, const char *key, size_t klen, const char *val,
                      size_t vlen);
/* Writes one RESP command of argc arguments (dump --format resp of a hash,
 * set or sorted set: HSET, SADD, ZADD). */
void cli_writer_command(struct cli_writer *w, int argc, const char *const *argv,
                        const size_t *lens);
void cli_writer_end(struct cli_writer *w);

/* escape.c */

/* Writes s as tsv text: \t \n \r \\ as those two-character escapes, other
 * bytes below 0x20 or from 0x7f up as \xHH, the rest as they are. */
void cli_tsv_escape(FILE *out, const char *s, size_t len);

/* Reverses cli_tsv_escape in place (the result is never longer). Returns the
 * new length, or -1 for a bad escape or a raw TAB or newline. */
long cli_tsv_unescape(char *s, size_t len);

/* Writes s as the inside of a JSON string, one code point per byte: " and \
 * escaped, bytes below 0x20 or from 0x7f up as \u00XX, so every byte string
 * round-trips (reading each code point back as one byte). */
void cli_json_escape(FILE *out, const char *s, size_t len);

/* range.c */

struct cli_range_opts {
    const char *min, *max; /* KRANGE BYLEX bounds: "[x", "(x", "-" or "+" */
    int rev;
    long long limit; /* at most this many entries; negative: all */
    int values;
    long long page;  /* keys per KRANGE */
    int dump;        /* dump: in RESP, write hashes, sets and sorted sets as HSET,
                      * SADD and ZADD; in tsv skip them and say how many */
};

/* Checks a bound's syntax, so a bad one is a usage error. Returns 0 or -1. */
int cli_bound_check(const char *b);

/* Streams the keys between o->min and o->max through w, page by page, each
 * page resuming after the last key of the one before. Returns an exit code. */
int cli_range(redisContext *ctx, const struct cli_range_opts *o, struct cli_writer *w);

/* Sets o's bounds to those of the keys starting with prefix; buf must hold
 * CLI_PREFIX_BOUNDS_SIZE(plen) bytes: "[" or "(", the prefix and a NUL for
 * each of the two bounds. */
#define CLI_PREFIX_BOUNDS_SIZE(plen) (2 * ((plen) + 2))
void cli_prefix_bounds(const char *prefix, size_t plen, char *buf, struct cli_range_opts *o);

/* load.c */

struct cli_load_opts {
    const char *path; /* "-" for stdin */
    int resp;         /* 1 RESP, 0 tsv, -1 guess from the first byte */
    int skip_bad;
    long long batch;  /* commands in flight */
};

/* Loads the file. Returns an exit code. */
int cli_load(redisContext *ctx, const struct cli_load_opts *o);

/* convert.c */

/* Runs rbkv-server --convert-rdb in out in place of this process; returns
 * (CLI_ERR_USAGE, reason printed) only when it cannot be started. */
int run_convert(const char *in, const char *out);

#endif
