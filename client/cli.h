/*
 * cli.h - the parts of rbkv-cli and what each file owns:
 *   main.c    flags, usage and dispatch to a mode;
 *   conn.c    connecting, AUTH and SELECT;
 *   print.c   plain-mode replies (redis-cli's non-terminal form) and the
 *             entry formats of range, prefix and dump;
 *   escape.c  the tsv and json escaping of binary strings, and its reverse;
 *   range.c   range, prefix, count and dump: paging through KRANGE;
 *   cluster.c -c: following -MOVED and -ASK, and the primaries of a cluster
 *             from CLUSTER SLOTS;
 *   crange.c  -c with range, prefix, count and dump: each primary's keys
 *             streamed and merged in order;
 *   progress.c the progress line on stderr;
 *   load.c    load: tsv or RESP input, pipelined;
 *   cload.c   -c with load: each command to its slot's primary;
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
    int cluster; /* -c: follow -MOVED/-ASK; modes span every primary */
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

/* progress.c */

enum cli_progress_mode {
    CLI_PROGRESS_OFF,
    CLI_PROGRESS_TTY,    /* when stderr is a terminal */
    CLI_PROGRESS_ALWAYS, /* --progress: a line per draw when stderr is no terminal */
};
struct cli_progress {
    int on, tty;
    double start, last_draw;
};
/* The monotonic clock, in seconds. */
double cli_now_s(void);
void cli_progress_init(struct cli_progress *p, enum cli_progress_mode mode);
/* n per second since cli_progress_init. */
double cli_progress_rate(const struct cli_progress *p, unsigned long long n);
/* Draws the line (printf's fmt) unless the last draw was too recent; final
 * always draws, and ends the line. */
void cli_progress_draw(struct cli_progress *p, int final, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* range.c */

struct cli_range_opts {
    const char *min, *max; /* KRANGE BYLEX bounds: "[x", "(x", "-" or "+" */
    int rev;
    long long limit; /* at most this many entries; negative: all */
    int values;
    long long page;  /* keys per KRANGE */
    int dump;        /* dump: in RESP, write hashes, sets and sorted sets as HSET,
                      * SADD and ZADD; in tsv skip them and say how many */
    int progress;    /* --progress: on stderr even when it is no terminal */
};

/* Checks a bound's syntax, so a bad one is a usage error. Returns 0 or -1. */
int cli_bound_check(const char *b);

/* Streams the keys between o->min and o->max through w, page by page, each
 * page resuming after the last key of the one before. Returns an exit code. */
int cli_range(redisContext *ctx, const struct cli_range_opts *o, struct cli_writer *w);

/* The pieces of cli_range that crange.c shares. */

/* The most arguments of one page's KRANGE. */
#define CLI_RANGE_MAX_ARGS 10
/* One page's KRANGE lo hi BYLEX [REV] LIMIT 0 count [WITHVALUES] into argv
 * and lens (CLI_RANGE_MAX_ARGS each; the strings are borrowed). Returns
 * argc. */
int cli_range_page_argv(const struct cli_range_opts *o, const char *lo, size_t lo_len,
                        const char *hi, size_t hi_len, const char *count, const char **argv,
                        size_t *lens);
/* Checks a page's reply: an array of keys, each followed by its value when
 * step is 2. Returns CLI_OK, or CLI_ERR_REPLY after printing why (prefixed
 * with node, "host:port", unless NULL). r stays the caller's. */
int cli_range_page_check(const redisReply *r, size_t step, const char *node);
/* The exclusive bound "(" + key in *buf (grown as needed, the caller's to
 * free), its length in *len. Returns 0, or -1 out of memory (printed). */
int cli_range_resume(char **buf, size_t *cap, size_t *len, const char *key, size_t klen);
/* Writes one listed key k (its value v, or NULL without --values) through
 * w; dump writes a key whose value is not a string with the commands that
 * rebuild it, read through ctx (which must have no reply pending), or
 * counts it in *skipped. Returns an exit code. */
int cli_range_emit(redisContext *ctx, const struct cli_range_opts *o, struct cli_writer *w,
                   const redisReply *k, const redisReply *v, unsigned long long *skipped);
/* Where o's progress line goes: on a terminal unless the keys go there too. */
enum cli_progress_mode cli_range_progress_mode(const struct cli_range_opts *o);
/* Ends the listing: w's end, the skipped keys' count, stdout flushed.
 * Returns rc, or CLI_ERR_USAGE when stdout failed and rc was CLI_OK. */
int cli_range_end(struct cli_writer *w, unsigned long long skipped, int rc);

/* Sets o's bounds to those of the keys starting with prefix; buf must hold
 * CLI_PREFIX_BOUNDS_SIZE(plen) bytes: "[" or "(", the prefix and a NUL for
 * each of the two bounds. */
#define CLI_PREFIX_BOUNDS_SIZE(plen) (2 * ((plen) + 2))
void cli_prefix_bounds(const char *prefix, size_t plen, char *buf, struct cli_range_opts *o);

/* cluster.c */

/* One primary: its client address. */
struct cli_node {
    char host[256];
    int port;
};

/* A -MOVED or -ASK reply's slot (0 to 16383), host (into host, cap bytes;
 * "" when it names none) and port (1 to 65535). Returns 1 for -ASK, 0 for
 * -MOVED, -1 for any other reply (or a malformed redirect). */
int cli_parse_redirect(const redisReply *r, int *slot, char *host, size_t cap, int *port);

/* Sends argv through *ctx as redis-cli -c does: a -MOVED or -ASK reply
 * makes it connect to the node named (with o's flags; *ctx is replaced and
 * o's host and port follow it) and send it again, ASKING first after -ASK,
 * at most CLI_MAX_REDIRECTS times. Returns CLI_OK with the final reply in
 * *out (the caller frees it), or an exit code after printing why. */
#define CLI_MAX_REDIRECTS 16
int cli_cluster_command(redisContext **ctx, struct cli_conn_opts *o, int argc, const char **argv,
                        redisReply **out);

/* What cli_cluster_primaries returns for a server not in cluster mode. */
#define CLI_NOT_CLUSTER (-1)
/* Redis Cluster's hash slots. */
#define CLI_SLOTS 16384
/* The primaries serving slots, from CLUSTER SLOTS on ctx (connected to
 * seed_host): *nodes (the caller frees it) holds *n of them, a node that
 * names no endpoint ("" or "?") taking seed_host. map (unless NULL) gets
 * the slot map as text ("start-end host:port" lines, the caller frees it),
 * to tell whether it changed; owner (unless NULL, CLI_SLOTS entries) each
 * slot's primary, an index into *nodes, or -1 when none serves it.
 * Returns CLI_OK, CLI_NOT_CLUSTER, or an exit code after printing why. */
int cli_cluster_primaries(redisContext *ctx, const char *seed_host, struct cli_node **nodes,
                          int *n, char **map, short *owner);

/* crange.c */

/* range, prefix and dump with -c: every primary's keys from o->min to
 * o->max, streamed a page at a time from each (KLOCAL, then KRANGE) and
 * merged in order through w, progress on stderr. ctx is the seed node's
 * connection (made with conn); a server not in cluster mode gets
 * cli_range. Returns an exit code. */
int cli_cluster_range(redisContext *ctx, const struct cli_conn_opts *conn,
                      const struct cli_range_opts *o, struct cli_writer *w);
/* count with -c: the sum of every primary's KCOUNT min max, printed.
 * Returns an exit code, or CLI_NOT_CLUSTER (nothing printed) for a server
 * not in cluster mode. */
int cli_cluster_count(redisContext *ctx, const struct cli_conn_opts *conn, const char *min,
                      const char *max);

/* cload.c: load with -c. */

struct cli_cload;
/* What cli_cload_send returns for a command that names no key. */
#define CLI_CLOAD_NO_KEY (-2)
/* Reads the slot map through seed (made with conn, then used only to ask
 * which argument is a command's key) and connects to every primary. name
 * is the input's, for messages, resp whether commands are numbered (RESP)
 * or lines (tsv); batch as cli_load_opts's, per node. Returns CLI_OK with
 * *out (the caller frees it with cli_cload_free), CLI_NOT_CLUSTER for a
 * server not in cluster mode, or an exit code after printing why. */
int cli_cload_new(redisContext *seed, const struct cli_conn_opts *conn, const char *name,
                  int resp, long long batch, struct cli_cload **out);
/* Sends argv (tsv's SET: its key is argv[1]; RESP: COMMAND INFO says, or
 * COMMAND GETKEYS) to its slot's primary, line or command number at.
 * Returns CLI_OK, CLI_CLOAD_NO_KEY (nothing sent), or an exit code: the
 * first error reply (reported with its line or command) or failure. */
int cli_cload_send(struct cli_cload *c, int argc, const char **argv, const size_t *lens,
                   unsigned long long at);
/* Reads every reply still owed, sending redirected commands again. Returns
 * an exit code, as cli_cload_send. */
int cli_cload_finish(struct cli_cload *c);
/* The nodes loaded into so far (the primaries, and any a -MOVED named). */
int cli_cload_nodes(const struct cli_cload *c);
/* cli_cload_free(NULL) does nothing. */
void cli_cload_free(struct cli_cload *c);
/* Where a command's keys are, from COMMAND INFO: its first key's index (0:
 * it names none), its last's (negative: counted from the end, -1 the last
 * argument) and the step between them (0: the first is the only one), and
 * whether its keys move (movablekeys: COMMAND GETKEYS names them). */
struct cli_keyspec {
    long long first, last, step;
    int movable;
};
/* COMMAND INFO name's reply r into *out. Returns 0, or -1 (all 0) for a
 * reply that is no command's entry (nil: an unknown command). */
int cli_keyspec_parse(const redisReply *r, struct cli_keyspec *out);
/* Whether a command of argc arguments (its name included) names more than
 * one key by s (whose keys do not move). */
int cli_keyspec_many(const struct cli_keyspec *s, long long argc);
/* -TRYAGAIN replies to one command after which load -c ends (cload.c). */
#define CLI_MAX_TRYAGAIN 20

/* load.c */

struct cli_load_opts {
    const char *path; /* "-" for stdin */
    int resp;         /* 1 RESP, 0 tsv, -1 guess from the first byte */
    int skip_bad;
    long long batch;  /* commands in flight (per node with -c) */
    const struct cli_conn_opts *cluster; /* -c: the connection's flags; NULL without */
};

/* Loads the file. Returns an exit code. */
int cli_load(redisContext *ctx, const struct cli_load_opts *o);

/* convert.c */

/* Runs rbkv-server --convert-rdb in out in place of this process; returns
 * (CLI_ERR_USAGE, reason printed) only when it cannot be started. */
int run_convert(const char *in, const char *out);

#endif
