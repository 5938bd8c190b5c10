/*
 * load.c - `rbkv-cli load FILE|-`: tsv (key<TAB>value per line, escaped as
 * escape.c writes them) or RESP commands, sent pipelined. Owns the input
 * file, the line buffer, and the table of the commands in flight (their line
 * or command numbers, to name the one a server error answers).
 *
 * Commands are appended to hiredis's output buffer; once two batches are in
 * flight, the older batch's replies are read, which first sends the newer
 * one, so the server always has a batch to work on while the client reads.
 * Memory stays bounded by two batches whatever the input's size. A
 * progress line goes to stderr only when it is a terminal, so logs and
 * scripts never see the carriage returns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* How often the progress line is redrawn. */
#define PROGRESS_INTERVAL_S 0.2
/* RESP input is fed to hiredis's reader in chunks of this size. */
#define RESP_CHUNK 65536

struct loader {
    redisContext *ctx;
    const struct cli_load_opts *o;
    const char *name;       /* for messages */
    /* Line (tsv) or command (RESP) number of each command in flight: a ring
     * of two batches, the oldest at head. */
    unsigned long long *at;
    long long head, pending;
    unsigned long long sent, bad;
    unsigned long long bytes, size; /* input read so far, and its size (0 unknown) */
    int tty;
    double start, last_draw;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress(struct loader *l, int final)
{
    double t = now_s();

    if (!l->tty || (!final && t - l->last_draw < PROGRESS_INTERVAL_S))
        return;
    l->last_draw = t;
    double rate = t > l->start ? (double)l->sent / (t - l->start) : 0;
    fprintf(stderr, "\r%llu keys  %.0f keys/s", l->sent, rate);
    if (l->size)
        fprintf(stderr, "  %3.0f%%", 100.0 * (double)l->bytes / (double)l->size);
    fputs(final ? "\n" : "  ", stderr);
}

/* Reads the replies of the n oldest commands in flight. Returns an exit
 * code: the first error reply stops the load, naming its line. */
static int drain(struct loader *l, long long n)
{
    int rc = CLI_OK;

    for (; n > 0; n--) {
        redisReply *r;
        if (redisGetReply(l->ctx, (void **)&r) != REDIS_OK)
            return cli_conn_error(l->ctx);
        if (r->type == REDIS_REPLY_ERROR && rc == CLI_OK) {
            fprintf(stderr, "rbkv-cli: %s:%s%llu: (error) %.*s\n", l->name,
                    l->o->resp ? " command " : "", l->at[l->head], (int)r->len, r->str);
            rc = CLI_ERR_REPLY;
        }
        freeReplyObject(r);
        l->head = (l->head + 1) % (2 * l->o->batch);
        l->pending--;
    }
    progress(l, 0);
    return rc;
}

static int send_command(struct loader *l, int argc, const char **argv, const size_t *argvlen,
                        unsigned long long at)
{
    if (redisAppendCommandArgv(l->ctx, argc, argv, argvlen) != REDIS_OK)
        return cli_conn_error(l->ctx);
    l->at[(l->head + l->pending++) % (2 * l->o->batch)] = at;
    l->sent++;
    return l->pending == 2 * l->o->batch ? drain(l, l->o->batch) : CLI_OK;
}

/* A bad input line: reported; fatal unless --skip-bad. */
static int bad_line(struct loader *l, unsigned long long line, const char *why)
{
    fprintf(stderr, "rbkv-cli: %s:%s%llu: %s\n", l->name, l->o->resp ? " command " : "", line,
            why);
    l->bad++;
    return l->o->skip_bad ? CLI_OK : CLI_ERR_USAGE;
}

static int load_tsv(struct loader *l, FILE *in)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned long long lineno = 0;
    int rc = CLI_OK;

    while (rc == CLI_OK && (n = getline(&line, &cap, in)) >= 0) {
        lineno++;
        l->bytes += (unsigned long long)n;
        if (n && line[n - 1] == '\n')
            n--;
        char *tab = memchr(line, '\t', (size_t)n);
        if (!tab) {
            rc = bad_line(l, lineno, "no TAB between key and value");
            continue;
        }
        long klen = cli_tsv_unescape(line, (size_t)(tab - line));
        long vlen = cli_tsv_unescape(tab + 1, (size_t)(line + n - tab - 1));
        if (klen < 0 || vlen < 0) {
            rc = bad_line(l, lineno, "bad escape, or a second TAB");
            continue;
        }
        const char *argv[] = {"SET", line, tab + 1};
        size_t argvlen[] = {3, (size_t)klen, (size_t)vlen};
        rc = send_command(l, 3, argv, argvlen, lineno);
    }
    free(line);
    if (rc == CLI_OK && ferror(in)) {
        fprintf(stderr, "rbkv-cli: %s: %s\n", l->name, strerror(errno));
        rc = CLI_ERR_USAGE;
    }
    return rc;
}

/* Sends one parsed RESP command, which must be an array of bulk strings. */
static int send_resp(struct loader *l, const redisReply *r, unsigned long long at)
{
    const char *argv[64];
    size_t argvlen[64];
    const char **av = argv;
    size_t *al = argvlen;
    int rc;

    if (r->type != REDIS_REPLY_ARRAY || r->elements == 0)
        return bad_line(l, at, "not an array of bulk strings");
    /* Most commands fit the stack arrays; a longer one gets heap ones. */
    if (r->elements > sizeof(argv) / sizeof(argv[0])) {
        av = malloc(r->elements * sizeof(*av));
        al = malloc(r->elements * sizeof(*al));
        if (!av || !al) {
            free(av);
            free(al);
            fputs("rbkv-cli: out of memory\n", stderr);
            return CLI_ERR_USAGE;
        }
    }
    int ok = 1;
    for (size_t i = 0; i < r->elements && ok; i++) {
        ok = r->element[i]->type == REDIS_REPLY_STRING;
        av[i] = r->element[i]->str;
        al[i] = r->element[i]->len;
    }
    rc = ok ? send_command(l, (int)r->elements, av, al, at)
            : bad_line(l, at, "not an array of bulk strings");
    if (av != argv) {
        free(av);
        free(al);
    }
    return rc;
}

static int load_resp(struct loader *l, FILE *in)
{
    redisReader *reader = redisReaderCreate();
    char *buf = malloc(RESP_CHUNK);
    unsigned long long cmdno = 0;
    int rc = CLI_OK;
    size_t n;

    if (!reader || !buf) {
        fputs("rbkv-cli: out of memory\n", stderr);
        rc = CLI_ERR_USAGE;
    }
    while (rc == CLI_OK && (n = fread(buf, 1, RESP_CHUNK, in)) > 0) {
        l->bytes += n;
        redisReaderFeed(reader, buf, n);
        void *r;
        while (rc == CLI_OK) {
            if (redisReaderGetReply(reader, &r) != REDIS_OK) {
                fprintf(stderr, "rbkv-cli: %s: command %llu: %s\n", l->name, cmdno + 1,
                        reader->errstr);
                rc = CLI_ERR_USAGE;
                break;
            }
            if (!r)
                break;
            rc = send_resp(l, r, ++cmdno);
            freeReplyObject(r);
        }
    }
    if (rc == CLI_OK && ferror(in)) {
        fprintf(stderr, "rbkv-cli: %s: %s\n", l->name, strerror(errno));
        rc = CLI_ERR_USAGE;
    }
    if (rc == CLI_OK && reader->pos < reader->len) {
        fprintf(stderr, "rbkv-cli: %s: command %llu is cut short\n", l->name, cmdno + 1);
        rc = CLI_ERR_USAGE;
    }
    free(buf);
    if (reader)
        redisReaderFree(reader);
    return rc;
}

int cli_load(redisContext *ctx, const struct cli_load_opts *o)
{
    int stdin_input = !strcmp(o->path, "-");
    FILE *in = stdin_input ? stdin : fopen(o->path, "rb");
    struct loader l = {.ctx = ctx, .o = o, .name = stdin_input ? "stdin" : o->path};
    struct stat st;
    struct cli_load_opts guessed = *o;
    int rc, c;

    if (!in) {
        fprintf(stderr, "rbkv-cli: %s: %s\n", o->path, strerror(errno));
        return CLI_ERR_USAGE;
    }
    if (fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode))
        l.size = (unsigned long long)st.st_size;
    /* A tsv key never starts with '*' unescaped, unless it is one: --format
     * settles that case. */
    if (guessed.resp < 0) {
        c = getc(in);
        guessed.resp = c == '*';
        if (c != EOF)
            ungetc(c, in);
    }
    l.o = &guessed;
    l.at = malloc(2 * (size_t)o->batch * sizeof(*l.at));
    if (!l.at) {
        fputs("rbkv-cli: out of memory\n", stderr);
        rc = CLI_ERR_USAGE;
    } else {
        l.tty = isatty(STDERR_FILENO);
        l.start = l.last_draw = now_s();
        rc = guessed.resp ? load_resp(&l, in) : load_tsv(&l, in);
        /* Replies still owed are read even after a bad line, so a server
         * error among them is reported too; a lost connection ends it. */
        int drc = l.pending && !ctx->err ? drain(&l, l.pending) : CLI_OK;
        if (rc == CLI_OK)
            rc = drc;
        progress(&l, 1);
        if (l.bad)
            fprintf(stderr, "rbkv-cli: %llu bad %s skipped\n", l.bad,
                    guessed.resp ? "commands" : "lines");
    }
    free(l.at);
    if (!stdin_input)
        fclose(in);
    return rc;
}
