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
 *
 * A bad line (or a RESP command that is not an array of bulk strings) stops
 * the load there unless --skip-bad; malformed RESP always stops it, as the
 * next command cannot be found. Either way the last message says where it
 * stopped and how much was sent before, so a rerun can start after it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* RESP input is fed to hiredis's reader in chunks of this size. */
#define RESP_CHUNK 65536
/* The most elements a RESP array of the input may announce: the server's
 * limit on a command's arguments (proto/'s RESP_DEFAULT_MAX_MULTIBULK_LEN).
 * hiredis allocates an array's slots when it reads the header, so without
 * it "*2000000000" asks for 16 GB. */
#define RESP_MAX_ELEMENTS (1024 * 1024)

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
    /* RESP only: the offset in the input where the next command starts. */
    unsigned long long cmd_offset;
    /* The line or command the load stopped at (0: it did not stop on bad
     * input), and whether --skip-bad would have gone past it. */
    unsigned long long stopped_at;
    int skippable;
    int too_long;           /* RESP only: the reader met an array over RESP_MAX_ELEMENTS */
    struct cli_cload *cluster; /* -c: the commands go through it, not ctx */
    struct cli_progress progress; /* on a terminal only */
};

static void progress(struct loader *l, int final)
{
    char pct[16] = "", nodes[32] = "";

    if (l->size)
        snprintf(pct, sizeof(pct), "  %3.0f%%", 100.0 * (double)l->bytes / (double)l->size);
    if (l->cluster)
        snprintf(nodes, sizeof(nodes), "  %d nodes", cli_cload_nodes(l->cluster));
    cli_progress_draw(&l->progress, final, "%llu keys  %.0f keys/s%s%s", l->sent,
                      cli_progress_rate(&l->progress, l->sent), pct, nodes);
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

static int bad_input(struct loader *l, unsigned long long at, int skippable, const char *why);

static int send_command(struct loader *l, int argc, const char **argv, const size_t *argvlen,
                        unsigned long long at)
{
    if (l->cluster) {
        int rc = cli_cload_send(l->cluster, argc, argv, argvlen, at);
        if (rc == CLI_CLOAD_NO_KEY)
            return bad_input(l, at, 1, "names no key, so no slot picks its node (-c)");
        if (rc == CLI_OK)
            l->sent++;
        progress(l, 0);
        return rc;
    }
    if (redisAppendCommandArgv(l->ctx, argc, argv, argvlen) != REDIS_OK)
        return cli_conn_error(l->ctx);
    l->at[(l->head + l->pending++) % (2 * l->o->batch)] = at;
    l->sent++;
    return l->pending == 2 * l->o->batch ? drain(l, l->o->batch) : CLI_OK;
}

static const char *plural(unsigned long long n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* "line 7", or "command 7 (byte offset 120)": where a tsv line or a RESP
 * command is, for messages. Returns buf. */
static const char *where(const struct loader *l, unsigned long long at, char *buf, size_t size)
{
    if (l->o->resp)
        snprintf(buf, size, "command %llu (byte offset %llu)", at, l->cmd_offset);
    else
        snprintf(buf, size, "line %llu", at);
    return buf;
}

/* Bad input at line or command at: reported, and the load stops there
 * unless skippable and --skip-bad. Returns an exit code. */
static int bad_input(struct loader *l, unsigned long long at, int skippable, const char *why)
{
    char pos[64];

    /* tsv keeps the FILE:LINE: form that editors jump to. */
    if (l->o->resp)
        fprintf(stderr, "rbkv-cli: %s: %s: %s\n", l->name, where(l, at, pos, sizeof(pos)), why);
    else
        fprintf(stderr, "rbkv-cli: %s:%llu: %s\n", l->name, at, why);
    if (skippable && l->o->skip_bad) {
        l->bad++;
        return CLI_OK;
    }
    l->stopped_at = at;
    l->skippable = skippable;
    return CLI_ERR_USAGE;
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
            rc = bad_input(l, lineno, 1, "no TAB between key and value");
            continue;
        }
        long klen = cli_tsv_unescape(line, (size_t)(tab - line));
        long vlen = cli_tsv_unescape(tab + 1, (size_t)(line + n - tab - 1));
        if (klen < 0 || vlen < 0) {
            rc = bad_input(l, lineno, 1, "bad escape, or a second TAB");
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
        return bad_input(l, at, 1, "not an array of bulk strings");
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
            : bad_input(l, at, 1, "not an array of bulk strings");
    if (av != argv) {
        free(av);
        free(al);
    }
    return rc;
}

/* hiredis words its reader's errors for a server's replies ("Protocol
 * error, got "x" as reply type byte"); this says the same of an input file
 * into buf. Returns buf. */
static const char *resp_input_error(const char *errstr, char *buf, size_t size)
{
    static const char type_prefix[] = "Protocol error, got ";
    const char *end = strstr(errstr, " as reply type byte");

    if (!strncmp(errstr, type_prefix, sizeof(type_prefix) - 1) && end) {
        const char *got = errstr + sizeof(type_prefix) - 1;
        snprintf(buf, size, "%.*s where '*' or '$' belongs", (int)(end - got), got);
    } else if (strstr(errstr, "nested")) {
        snprintf(buf, size, "arrays nested too deep");
    } else {
        /* "Bad bulk string length", "Multi-bulk length out of range"... */
        snprintf(buf, size, "%c%s", errstr[0] ? tolower((unsigned char)errstr[0]) : '?',
                 errstr[0] ? errstr + 1 : "");
    }
    return buf;
}

/* hiredis's own array maker, and ours in its place: NULL, which the reader
 * reports as running out of memory, for an array over RESP_MAX_ELEMENTS. */
static void *(*create_array_hiredis)(const redisReadTask *, int);

static void *create_array(const redisReadTask *task, int elements)
{
    if (elements > RESP_MAX_ELEMENTS) {
        ((struct loader *)task->privdata)->too_long = 1;
        return NULL;
    }
    return create_array_hiredis(task, elements);
}

static int load_resp(struct loader *l, FILE *in)
{
    static redisReplyObjectFunctions capped;
    redisReader *reader = redisReaderCreate();
    char *buf = malloc(RESP_CHUNK);
    unsigned long long cmdno = 0;
    int rc = CLI_OK;
    size_t n;

    if (!reader || !buf) {
        fputs("rbkv-cli: out of memory\n", stderr);
        rc = CLI_ERR_USAGE;
    } else {
        capped = *reader->fn;
        create_array_hiredis = capped.createArray;
        capped.createArray = create_array;
        reader->fn = &capped;
        reader->privdata = l;
    }
    while (rc == CLI_OK && (n = fread(buf, 1, RESP_CHUNK, in)) > 0) {
        l->bytes += n;
        redisReaderFeed(reader, buf, n);
        void *r;
        while (rc == CLI_OK) {
            if (redisReaderGetReply(reader, &r) != REDIS_OK) {
                char why[160], what[128];
                if (l->too_long)
                    snprintf(why, sizeof(why), "malformed RESP: an array of more than %d elements",
                             RESP_MAX_ELEMENTS);
                else
                    snprintf(why, sizeof(why), "malformed RESP: %s",
                             resp_input_error(reader->errstr, what, sizeof(what)));
                rc = bad_input(l, cmdno + 1, 0, why);
                break;
            }
            if (!r)
                break;
            rc = send_resp(l, r, ++cmdno);
            freeReplyObject(r);
            /* The reader holds len - pos bytes not parsed yet. A command
             * the load stopped at keeps its own offset, for report_end. */
            if (rc == CLI_OK)
                l->cmd_offset = l->bytes - (reader->len - reader->pos);
        }
    }
    if (rc == CLI_OK && ferror(in)) {
        fprintf(stderr, "rbkv-cli: %s: %s\n", l->name, strerror(errno));
        rc = CLI_ERR_USAGE;
    }
    /* Bytes after the last whole command: not parsed yet, or parsed into a
     * command begun (the input may end right after one of its elements,
     * which leaves the reader nothing unparsed). */
    if (rc == CLI_OK && l->cmd_offset < l->bytes)
        rc = bad_input(l, cmdno + 1, 0, "cut short: the input ends inside it");
    free(buf);
    if (reader)
        redisReaderFree(reader);
    return rc;
}

/* The last word on bad input: what was skipped, or where the load stopped
 * and how much went to the server before that. */
static void report_end(struct loader *l)
{
    char pos[64];

    if (l->bad)
        fprintf(stderr, "rbkv-cli: %s: %llu bad %s skipped\n", l->name, l->bad,
                l->o->resp ? plural(l->bad, "command", "commands")
                           : plural(l->bad, "line", "lines"));
    if (!l->stopped_at)
        return;
    fprintf(stderr, "rbkv-cli: %s: stopped at %s: %llu %s sent before it, none after it%s\n",
            l->name, where(l, l->stopped_at, pos, sizeof(pos)), l->sent,
            plural(l->sent, "command", "commands"),
            l->skippable ? " (--skip-bad goes past bad input)" : "");
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
    /* -c against a server not in cluster mode loads it alone. */
    rc = o->cluster ? cli_cload_new(ctx, o->cluster, l.name, guessed.resp, o->batch, &l.cluster)
                    : CLI_OK;
    if (rc == CLI_NOT_CLUSTER)
        rc = CLI_OK;
    l.at = rc == CLI_OK ? malloc(2 * (size_t)o->batch * sizeof(*l.at)) : NULL;
    if (rc == CLI_OK && !l.at) {
        fputs("rbkv-cli: out of memory\n", stderr);
        rc = CLI_ERR_USAGE;
    } else if (rc == CLI_OK) {
        cli_progress_init(&l.progress, CLI_PROGRESS_TTY);
        rc = guessed.resp ? load_resp(&l, in) : load_tsv(&l, in);
        /* Replies still owed are read even after a bad line, so a server
         * error among them is reported too; a lost connection ends it. */
        int drc = l.cluster                  ? cli_cload_finish(l.cluster)
                  : l.pending && !ctx->err ? drain(&l, l.pending)
                                             : CLI_OK;
        if (rc == CLI_OK)
            rc = drc;
        progress(&l, 1);
        report_end(&l);
    }
    cli_cload_free(l.cluster);
    free(l.at);
    if (!stdin_input)
        fclose(in);
    return rc;
}
