/*
 * harness.c - the end-to-end harness: server processes, hiredis and raw
 * connections, expectations and counters (see harness.h).
 *
 * Owns every server child it forks until it reaps it. A child gets
 * PR_SET_PDEATHSIG, so a test program killed by CTest's timeout takes its
 * servers with it; servers still running at h_finish or exit are killed.
 */
#include "harness.h"

#include <dirent.h>
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SERVERS 16
#define MAX_FLAGS 32
#define START_ATTEMPTS 5                  /* new port each time the port was taken */
#define READY_TIMEOUT_MS (10000 * H_SLOW) /* until the first PING answers */
#define STOP_TIMEOUT_MS (5000 * H_SLOW)   /* from SIGTERM to exit */
#define REPLY_TIMEOUT_S (20 * H_SLOW)     /* hiredis: a hung server fails, not hangs */
#define REPR_CAP 4096
#define ARG_SHOWN 64                      /* bytes of one argument shown in a failure */
#define CMD_SHOWN 400                     /* bytes of a command shown in a failure */
#define LOG_TAIL 3000                     /* bytes of server.log printed on a bad exit */
#define RAW_MAX_DEPTH 64                  /* nesting of RESP3 aggregates we accept */
#define MAX_BIN_ARGS 64                   /* arguments of one EXPECT_BIN */
#define MAX_WRAPPER_WORDS 32              /* words of $RBKV_SERVER_WRAPPER */
#define BLOCKED_TIMEOUT_MS (3000 * H_SLOW) /* until a client is counted blocked */
#define INFO_POLL_MS 5                    /* between two INFOs of a wait for a field */

static const char *server_bin;
static int is_reference; /* the binary is Debian's redis-server */
static int passed, failed;
static const char *current_test = "";
static int64_t test_started_ms;
static char **selected; /* test functions named on the command line */
static int selected_count;
/* The servers started and not yet reaped, by pid: killed at exit. The pid is
 * kept here, not read through s, since a test that failed half way may have
 * left its struct h_server on a stack long gone. */
static struct {
    const struct h_server *s;
    pid_t pid;
} running[MAX_SERVERS];
static char *wrapper[MAX_WRAPPER_WORDS + 1]; /* $RBKV_SERVER_WRAPPER split, NULL-terminated */
static int wrapper_words;

int h_slow(void)
{
    static int factor;
    if (!factor) {
        const char *env = getenv("RBKV_TEST_SLOW");
        long f = env && *env ? strtol(env, NULL, 10) : 1;
        factor = H_SLOW_BUILD * (int)(f >= 1 && f <= 1000 ? f : 1);
    }
    return factor;
}

/* Splits $RBKV_SERVER_WRAPPER at spaces into wrapper[] (the strings live until exit). */
static void read_wrapper(void)
{
    const char *env = getenv("RBKV_SERVER_WRAPPER");
    static char *copy; /* wrapper[] points into it */
    copy = env && *env ? strdup(env) : NULL;
    char *save = NULL;
    char *w = copy ? strtok_r(copy, " \t", &save) : NULL;
    for (; w && wrapper_words < MAX_WRAPPER_WORDS; w = strtok_r(NULL, " \t", &save))
        wrapper[wrapper_words++] = w;
    wrapper[wrapper_words] = NULL;
}

int64_t h_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long h_ttl_floor(long long ttl_s, int64_t set_ms)
{
    return ttl_s - (h_now_ms() - set_ms) / 1000 - 1;
}

void h_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

static void fail_header(const char *file, int line)
{
    failed++;
    if (line)
        fprintf(stderr, "FAIL %s:%d [%s] ", file, line, current_test);
    else
        fprintf(stderr, "FAIL %s [%s] ", file, current_test);
}

int h_check(const char *file, int line, int cond, const char *fmt, ...)
{
    if (cond) {
        passed++;
        return 1;
    }
    fail_header(file, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 0;
}

/* Records a failure of the harness itself (starting, stopping, connecting) and
 * returns -1. */
static int harness_failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int harness_failure(const char *fmt, ...)
{
    fail_header("harness", 0);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

/* Whether name is one of the words of $RBKV_TEST_SKIP (separated by spaces or
 * commas): test functions a build cannot run, such as long double arithmetic
 * under valgrind, which computes it in double precision. */
static int skipped_by_env(const char *name)
{
    const char *skip = getenv("RBKV_TEST_SKIP");
    size_t n = strlen(name);
    for (const char *p = skip; p && *p; p += strcspn(p, " ,")) {
        p += strspn(p, " ,");
        if (strncmp(p, name, n) == 0 && (p[n] == '\0' || p[n] == ' ' || p[n] == ','))
            return 1;
    }
    return 0;
}

int h_begin(const char *name)
{
    int wanted = selected_count == 0;
    for (int i = 0; i < selected_count && !wanted; i++)
        wanted = strcmp(selected[i], name) == 0;
    if (!wanted)
        return 0;
    if (skipped_by_env(name)) {
        printf("== %s: skipped ($RBKV_TEST_SKIP)\n", name);
        return 0;
    }
    current_test = name;
    test_started_ms = h_now_ms();
    printf("== %s\n", name);
    return 1;
}

void h_end(void)
{
    printf("   %s: %lld ms\n", current_test, (long long)(h_now_ms() - test_started_ms));
}

/* ---- text forms ---------------------------------------------------------- */

struct sbuf {
    char *p;
    size_t len, cap; /* cap includes room for the NUL */
};

static void sb_putc(struct sbuf *b, char ch)
{
    if (b->len + 1 < b->cap)
        b->p[b->len++] = ch;
    b->p[b->len < b->cap ? b->len : b->cap - 1] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
    while (*s)
        sb_putc(b, *s++);
}

/* Bytes as they appear inside quotes: printable ASCII as is, the rest escaped.
 * At most shown bytes, then "...(N bytes)". */
static void sb_escaped(struct sbuf *b, const char *p, size_t n, char quote, size_t shown)
{
    char tmp[32];
    for (size_t i = 0; i < n && i < shown; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch == (unsigned char)quote || ch == '\\') {
            sb_putc(b, '\\');
            sb_putc(b, (char)ch);
        } else if (ch == '\r') {
            sb_puts(b, "\\r");
        } else if (ch == '\n') {
            sb_puts(b, "\\n");
        } else if (ch == '\t') {
            sb_puts(b, "\\t");
        } else if (ch < 0x20 || ch >= 0x7f) {
            snprintf(tmp, sizeof(tmp), "\\x%02x", ch);
            sb_puts(b, tmp);
        } else {
            sb_putc(b, (char)ch);
        }
    }
    if (n > shown) {
        snprintf(tmp, sizeof(tmp), "...(%zu bytes)", n);
        sb_puts(b, tmp);
    }
}

static void sb_repr(struct sbuf *b, const redisReply *r)
{
    char tmp[32];
    switch (r->type) {
    case REDIS_REPLY_STATUS:
        sb_putc(b, '+');
        sb_escaped(b, r->str, r->len, 0, r->len);
        break;
    case REDIS_REPLY_ERROR:
        sb_putc(b, '-');
        sb_escaped(b, r->str, r->len, 0, r->len);
        break;
    case REDIS_REPLY_INTEGER:
        snprintf(tmp, sizeof(tmp), ":%lld", r->integer);
        sb_puts(b, tmp);
        break;
    case REDIS_REPLY_STRING:
        sb_putc(b, '\'');
        sb_escaped(b, r->str, r->len, '\'', r->len);
        sb_putc(b, '\'');
        break;
    case REDIS_REPLY_NIL:
        sb_puts(b, "(nil)");
        break;
    case REDIS_REPLY_ARRAY:
        sb_putc(b, '[');
        for (size_t i = 0; i < r->elements; i++) {
            if (i)
                sb_puts(b, ", ");
            sb_repr(b, r->element[i]);
        }
        sb_putc(b, ']');
        break;
    default:
        snprintf(tmp, sizeof(tmp), "(type %d)", r->type);
        sb_puts(b, tmp);
    }
}

char *h_repr(const redisReply *r, char *buf, size_t cap)
{
    struct sbuf b = {buf, 0, cap};
    buf[0] = '\0';
    sb_repr(&b, r);
    return buf;
}

char *h_reply_text(redisContext *c, int argc, const char *const *argv)
{
    char buf[REPR_CAP];
    redisReply *r = h_command(c, argc, argv, NULL);
    char *text = strdup(r ? h_repr(r, buf, sizeof(buf)) : "(no reply)");
    freeReplyObject(r);
    return text;
}

char *h_command_text(char *buf, size_t cap, int argc, const char *const *argv,
                     const size_t *lens)
{
    struct sbuf b = {buf, 0, cap};
    buf[0] = '\0';
    for (int i = 0; i < argc; i++) {
        size_t n = lens ? lens[i] : strlen(argv[i]);
        if (i)
            sb_putc(&b, ' ');
        int plain = n > 0;
        for (size_t k = 0; k < n && plain; k++)
            plain = argv[i][k] > ' ' && argv[i][k] < 0x7f && argv[i][k] != '"';
        if (plain && n <= ARG_SHOWN) {
            sb_escaped(&b, argv[i], n, '"', n);
        } else {
            sb_putc(&b, '"');
            sb_escaped(&b, argv[i], n, '"', ARG_SHOWN);
            sb_putc(&b, '"');
        }
    }
    return buf;
}

/* ---- commands and expectations ------------------------------------------ */

int h_glob(const char *pattern, const char *text, size_t len)
{
    const char *star = NULL, *resume = NULL, *end = text + len;
    while (text < end) {
        if (*pattern == '*') {
            star = pattern++;
            resume = text;
        } else if (*pattern && *pattern == *text) {
            pattern++;
            text++;
        } else if (star) {
            pattern = star + 1;
            text = ++resume;
        } else {
            return 0;
        }
    }
    while (*pattern == '*')
        pattern++;
    return *pattern == '\0';
}

redisReply *h_command(redisContext *c, int argc, const char *const *argv, const size_t *lens)
{
    if (!c || c->err)
        return NULL;
    return redisCommandArgv(c, argc, (const char **)argv, lens);
}

void h_append(redisContext *c, int argc, const char *const *argv, const size_t *lens)
{
    if (c && !c->err)
        redisAppendCommandArgv(c, argc, (const char **)argv, lens);
}

void h_send(redisContext *c, int argc, const char *const *argv, const size_t *lens)
{
    int done = 0;
    h_append(c, argc, argv, lens);
    while (c && !c->err && !done && redisBufferWrite(c, &done) == REDIS_OK) {
    }
}

redisReply *h_get_reply(redisContext *c)
{
    void *reply = NULL;
    if (!c || c->err || redisGetReply(c, &reply) != REDIS_OK)
        return NULL;
    return reply;
}

int h_expect(const char *file, int line, redisContext *c, const char *want, int glob, int argc,
             const char *const *argv, const size_t *lens)
{
    char got[REPR_CAP];
    redisReply *r = h_command(c, argc, argv, lens);
    if (r)
        h_repr(r, got, sizeof(got));
    else
        snprintf(got, sizeof(got), "(connection error: %s)", c ? c->errstr : "no connection");
    int ok = r && (glob ? h_glob(want, got, strlen(got)) : strcmp(want, got) == 0);
    freeReplyObject(r);
    if (ok) {
        passed++;
        return 1;
    }
    char cmd[CMD_SHOWN];
    h_command_text(cmd, sizeof(cmd), argc, argv, lens);
    fail_header(file, line);
    fprintf(stderr, "%s\n    expected %s%s\n    got      %s\n", cmd, glob ? "match " : "", want,
            got);
    return 0;
}

int h_expect_next(const char *file, int line, redisContext *c, const char *want)
{
    char got[REPR_CAP];
    redisReply *r = h_get_reply(c);
    if (r)
        h_repr(r, got, sizeof(got));
    else
        snprintf(got, sizeof(got), "(connection error: %s)", c ? c->errstr : "no connection");
    freeReplyObject(r);
    return h_check(file, line, strcmp(got, want) == 0, "next reply: expected %s, got %s", want,
                   got);
}

int h_expect_transaction(const char *file, int line, redisContext *c, const char *want,
                         const char *const *lines, size_t n)
{
    static const char *const multi[] = {"MULTI"}, *const exec[] = {"EXEC"};
    int ok = h_expect(file, line, c, "+OK", 0, 1, multi, NULL);
    for (size_t i = 0; i < n; i++) {
        struct h_line l;
        h_split(lines[i], &l);
        ok = h_expect(file, line, c, "+QUEUED", 0, l.argc, l.argv, NULL) && ok;
    }
    return h_expect(file, line, c, want, 0, 1, exec, NULL) && ok;
}

int h_count_distinct(const redisReply *r, size_t start, size_t step)
{
    int distinct = 0;
    for (size_t i = start; i < r->elements; i += step) {
        size_t j = start;
        while (j < i && strcmp(r->element[j]->str, r->element[i]->str) != 0)
            j += step;
        distinct += j == i;
    }
    return distinct;
}

int h_reply_equal(const redisReply *a, const redisReply *b)
{
    if (!a || !b)
        return a == b;
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case REDIS_REPLY_INTEGER:
        return a->integer == b->integer;
    case REDIS_REPLY_ARRAY:
        if (a->elements != b->elements)
            return 0;
        for (size_t i = 0; i < a->elements; i++) {
            if (!h_reply_equal(a->element[i], b->element[i]))
                return 0;
        }
        return 1;
    case REDIS_REPLY_NIL:
        return 1;
    default: /* status, error, bulk string: their bytes */
        return a->len == b->len && (!a->len || memcmp(a->str, b->str, a->len) == 0);
    }
}

int h_same(const char *file, int line, redisContext *c, redisContext *r, int argc,
           const char *const *argv, const size_t *lens)
{
    redisReply *ours = h_command(c, argc, argv, lens);
    redisReply *theirs = r ? h_command(r, argc, argv, lens) : NULL;
    int ok = ours && (!r || h_reply_equal(ours, theirs));
    if (ok) {
        passed++;
    } else {
        char cmd[CMD_SHOWN], a[REPR_CAP], b[REPR_CAP];
        h_command_text(cmd, sizeof(cmd), argc, argv, lens);
        if (ours)
            h_repr(ours, a, sizeof(a));
        else
            snprintf(a, sizeof(a), "(connection error: %s)", c ? c->errstr : "no connection");
        if (theirs)
            h_repr(theirs, b, sizeof(b));
        else
            snprintf(b, sizeof(b), "(reference's connection error: %s)", r ? r->errstr : "");
        fail_header(file, line);
        fprintf(stderr, "%s\n    redis-server %s\n    rbkv         %s\n", cmd, r ? b : "(none)",
                a);
    }
    freeReplyObject(ours);
    freeReplyObject(theirs);
    return ok;
}

int h_split(const char *text, struct h_line *l)
{
    l->argc = 0;
    while (*text && l->argc < H_LINE_ARGS) {
        while (*text == ' ')
            text++;
        size_t len = strcspn(text, " ");
        if (!len)
            break;
        int empty = len == 2 && text[0] == '\'' && text[1] == '\'';
        snprintf(l->words[l->argc], H_LINE_CHARS, "%.*s", empty ? 0 : (int)len, text);
        l->argv[l->argc] = l->words[l->argc];
        l->argc++;
        text += len;
    }
    return l->argc;
}

void h_line_add(struct h_line *l, const char *fmt, ...)
{
    if (l->argc == H_LINE_ARGS) {
        CHECK(0, "a command of more than %d words", H_LINE_ARGS);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->words[l->argc], H_LINE_CHARS, fmt, ap);
    va_end(ap);
    l->argv[l->argc] = l->words[l->argc];
    l->argc++;
}

uint64_t h_seed(void)
{
    const char *env = getenv("SEED");
    uint64_t seed = env && *env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    printf("  SEED=%" PRIu64 "\n", seed);
    return seed;
}

redisContext *h_connect_pair(const struct h_server *s, const struct h_server *ref,
                             redisContext **r)
{
    *r = ref ? h_connect_flushed(ref) : NULL;
    return h_connect_flushed(s);
}

void h_close_pair(redisContext *c, redisContext *r)
{
    redisFree(c);
    redisFree(r);
}

int h_move_key(redisContext *from, redisContext *to, const char *key, const char *ttl)
{
    redisReply *d = H_CALL(from, "DUMP", key);
    int ok = CHECK(d && d->type == REDIS_REPLY_STRING, "DUMP %s", key);
    if (ok) {
        const char *argv[] = {"RESTORE", key, ttl, d->str};
        size_t lens[] = {7, strlen(key), strlen(ttl), d->len};
        redisReply *r = h_command(to, 4, argv, lens);
        ok = CHECK(r && r->type == REDIS_REPLY_STATUS, "RESTORE %s: %s", key,
                   r && r->str ? r->str : "(no reply)");
        freeReplyObject(r);
    }
    freeReplyObject(d);
    return ok;
}

void h_same_lines(const char *file, int line, redisContext *c, redisContext *r,
                  const char *const *lines, size_t n)
{
    struct h_line l;
    for (size_t i = 0; i < n; i++) {
        h_split(lines[i], &l);
        h_same(file, line, c, r, l.argc, l.argv, NULL);
    }
}

int h_expect_int(const char *file, int line, redisContext *c, long long want, int argc,
                 const char *const *argv)
{
    char text[32];
    snprintf(text, sizeof(text), ":%lld", want);
    return h_expect(file, line, c, text, 0, argc, argv, NULL);
}

int h_expect_int_range(const char *file, int line, redisContext *c, long long lo, long long hi,
                       int argc, const char *const *argv)
{
    redisReply *r = h_command(c, argc, argv, NULL);
    int ok = r && r->type == REDIS_REPLY_INTEGER && r->integer >= lo && r->integer <= hi;
    if (ok) {
        passed++;
    } else {
        char cmd[CMD_SHOWN], got[REPR_CAP];
        h_command_text(cmd, sizeof(cmd), argc, argv, NULL);
        if (r)
            h_repr(r, got, sizeof(got));
        else
            snprintf(got, sizeof(got), "(connection error: %s)", c ? c->errstr : "no connection");
        fail_header(file, line);
        fprintf(stderr, "%s\n    expected an integer in %lld..%lld\n    got      %s\n", cmd, lo,
                hi, got);
    }
    freeReplyObject(r);
    return ok;
}

/* Splits h_arg lists into hiredis's argv and lengths. */
static void split_args(int argc, const struct h_arg *args, const char **argv, size_t *lens)
{
    for (int i = 0; i < argc; i++) {
        argv[i] = args[i].p;
        lens[i] = args[i].len;
    }
}

redisReply *h_command_bin(redisContext *c, int argc, const struct h_arg *args)
{
    const char *argv[MAX_BIN_ARGS];
    size_t lens[MAX_BIN_ARGS];
    if (argc > MAX_BIN_ARGS)
        return NULL;
    split_args(argc, args, argv, lens);
    return h_command(c, argc, argv, lens);
}

int h_expect_bin(const char *file, int line, redisContext *c, const char *want, int argc,
                 const struct h_arg *args)
{
    const char *argv[MAX_BIN_ARGS];
    size_t lens[MAX_BIN_ARGS];
    if (argc > MAX_BIN_ARGS)
        return h_check(file, line, 0, "EXPECT_BIN: more than %d arguments", MAX_BIN_ARGS);
    split_args(argc, args, argv, lens);
    return h_expect(file, line, c, want, 0, argc, argv, lens);
}

int h_info_field(const char *info, const char *name, char *out, size_t cap)
{
    size_t n = strlen(name);
    for (const char *p = info; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, name, n) == 0 && p[n] == ':') {
            size_t len = strcspn(p + n + 1, "\r\n");
            if (len >= cap)
                len = cap - 1;
            memcpy(out, p + n + 1, len);
            out[len] = '\0';
            return 0;
        }
    }
    return -1;
}

/* ---- server processes ---------------------------------------------------- */

int h_free_port(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    int port = -1;
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
        getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
        port = ntohs(sa.sin_port);
    close(fd);
    return port;
}

static void track(const struct h_server *s, int on)
{
    for (int i = 0; i < MAX_SERVERS; i++) {
        if (on && !running[i].s) {
            running[i].s = s;
            running[i].pid = s->pid;
            return;
        }
        if (!on && running[i].s == s) {
            running[i].s = NULL;
            running[i].pid = 0;
            return;
        }
    }
}

static void print_log_tail(const struct h_server *s)
{
    FILE *f = fopen(s->log_path, "r");
    if (!f)
        return;
    char buf[LOG_TAIL + 1];
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size > LOG_TAIL ? size - LOG_TAIL : 0, SEEK_SET);
    size_t n = fread(buf, 1, LOG_TAIL, f);
    buf[n] = '\0';
    fclose(f);
    fprintf(stderr, "---- %s (last %zu bytes) ----\n%s---- end of log ----\n", s->log_path, n,
            buf);
}

static void kill_and_reap(struct h_server *s)
{
    if (s->pid > 0) {
        kill(s->pid, SIGKILL);
        waitpid(s->pid, NULL, 0);
        s->pid = 0;
    }
    track(s, 0);
}

static void kill_all_at_exit(void)
{
    for (int i = 0; i < MAX_SERVERS; i++) {
        if (running[i].pid > 0) {
            kill(running[i].pid, SIGKILL);
            waitpid(running[i].pid, NULL, 0);
        }
        running[i].s = NULL;
        running[i].pid = 0;
    }
}

/* The first redis-server on $PATH, in a static buffer, or NULL. Looked up
 * here, not left to execvp, so a missing binary can be a skip, not a failure. */
static const char *find_redis_server(void)
{
    static char found[PATH_MAX];
    if (found[0])
        return found;
    for (const char *path = getenv("PATH"); path && *path;) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        snprintf(found, sizeof(found), "%.*s/redis-server", (int)n, path);
        if (n > 0 && access(found, X_OK) == 0)
            return found;
        path = colon ? colon + 1 : NULL;
    }
    found[0] = '\0';
    return NULL;
}

#define REFERENCE_REQUIRED_WHY                                                                    \
    "required here ($CI=true or $RBKV_REQUIRE_REFERENCE=1): scripts/deps.sh test installs it"

void h_init(int argc, char **argv)
{
    static char path[PATH_MAX];
    const char *given = argc > 1 ? argv[1] : getenv("RBKV_SERVER");
    if (!given || !*given) {
        fprintf(stderr, "usage: %s SERVER_BINARY [TEST_FUNCTION...] (or set RBKV_SERVER)\n",
                argv[0]);
        exit(2);
    }
    /* The server runs in its temp dir, so a relative path must be made absolute;
     * a bare name ("redis-server") is left for execvp's PATH search. */
    server_bin = strchr(given, '/') && realpath(given, path) ? path : given;
    if (argc > 2) {
        selected = argv + 2;
        selected_count = argc - 2;
    }
    const char *base = strrchr(server_bin, '/');
    is_reference = strcmp(base ? base + 1 : server_bin, "redis-server") == 0;
    /* A bare "redis-server" (ctest's *_on_redis twins) that is not installed:
     * a skip for a developer, a failure where the reference is required. */
    if (is_reference && !strchr(server_bin, '/') && !find_redis_server()) {
        if (h_reference_required()) {
            fprintf(stderr, "FAIL: no redis-server on PATH to run the test against, "
                            REFERENCE_REQUIRED_WHY "\n");
            exit(1);
        }
        printf("SKIP: no redis-server on PATH to run the test against\n");
        exit(H_SKIP_STATUS);
    }
    read_wrapper();
    /* A server that closes on us must fail a check, not kill the test. */
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    atexit(kill_all_at_exit);
}

int h_finish(void)
{
    kill_all_at_exit();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

int h_bare_start;

static int names_flag(const char *const *flags, const char *name)
{
    for (int i = 0; flags && flags[i]; i++)
        if (!strcmp(flags[i], name))
            return 1;
    return 0;
}

static pid_t spawn(struct h_server *s, const char *const *flags)
{
    const char *args[MAX_WRAPPER_WORDS + MAX_FLAGS + 10];
    char port[16];
    int n = 0;
    snprintf(port, sizeof(port), "%d", s->port);
    /* The reference runs bare: the wrapper checks the binary under test. */
    for (int i = 0; !s->bin && i < wrapper_words; i++)
        args[n++] = wrapper[i];
    args[n++] = s->bin ? s->bin : server_bin;
    if (s->config_path[0])
        args[n++] = s->config_path;
    args[n++] = "--port";
    args[n++] = port;
    if (is_reference || s->bin) {
        args[n++] = "--save";
        args[n++] = "";
        args[n++] = "--appendonly";
        args[n++] = "no";
    }
    /* DEBUG is refused by default (enable-debug-command no, as Redis 7.0);
     * the tests use it as Redis's own suite does, so the binary under test
     * gets local unless the test names the setting or asks for a bare
     * start. A reference started by h_start_reference gets its flags. */
    if (!s->bin && !h_bare_start && !names_flag(flags, "--enable-debug-command")) {
        args[n++] = "--enable-debug-command";
        args[n++] = "local";
    }
    for (int i = 0; flags && flags[i] && n < wrapper_words + MAX_FLAGS + 9; i++)
        args[n++] = flags[i];
    args[n] = NULL;

    pid_t pid = fork();
    if (pid != 0)
        return pid;
    int fd = open(s->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || chdir(s->dir) < 0)
        _exit(127);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    execvp(args[0], (char *const *)args);
    fprintf(stderr, "exec %s: %s\n", args[0], strerror(errno));
    _exit(127);
}

/* Polls for the child's exit. Returns its wait status, or -1 while running. */
static int reap(struct h_server *s, int timeout_ms)
{
    int64_t deadline = h_now_ms() + timeout_ms;
    for (;;) {
        int status;
        pid_t r = waitpid(s->pid, &status, WNOHANG);
        if (r == s->pid) {
            s->pid = 0;
            track(s, 0);
            return status;
        }
        if (h_now_ms() >= deadline)
            return -1;
        h_sleep_ms(5);
    }
}

static int log_says_port_taken(const struct h_server *s)
{
    char buf[8192];
    FILE *f = fopen(s->log_path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, "in use") != NULL;
}

/* Connects and sends PING until anything answers. Returns 1 when it did, 0 when
 * the child exited, -1 on timeout. */
static int wait_ready(struct h_server *s)
{
    int64_t deadline = h_now_ms() + READY_TIMEOUT_MS;
    while (h_now_ms() < deadline) {
        struct timeval tv = {1, 0};
        redisContext *c = redisConnectWithTimeout("127.0.0.1", s->port, tv);
        if (c && !c->err) {
            redisSetTimeout(c, tv);
            redisReply *r = redisCommand(c, "PING");
            int answered = r != NULL;
            freeReplyObject(r);
            redisFree(c);
            if (answered)
                return 1;
        } else {
            redisFree(c);
        }
        if (reap(s, 0) != -1)
            return 0;
        h_sleep_ms(10);
    }
    return -1;
}

/* h_start of bin (NULL: the binary under test), given a config file holding
 * config first (NULL: none). */
static int start_binary(struct h_server *s, const char *bin, const char *config,
                        const char *const *flags)
{
    memset(s, 0, sizeof(*s));
    s->bin = bin;
    const char *tmp = getenv("TMPDIR");
    snprintf(s->dir, sizeof(s->dir), "%s/rbkv-it-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(s->dir))
        return harness_failure("mkdtemp %s: %s", s->dir, strerror(errno));
    snprintf(s->log_path, sizeof(s->log_path), "%s/server.log", s->dir);
    if (config) {
        h_path_in(s, "server.conf", s->config_path, sizeof(s->config_path));
        FILE *f = fopen(s->config_path, "w");
        int bad = !f || fputs(config, f) < 0;
        if ((f && fclose(f) != 0) || bad)
            return harness_failure("writing %s: %s", s->config_path, strerror(errno));
    }
    return h_restart(s, flags);
}

int h_start(struct h_server *s, const char *const *flags)
{
    return start_binary(s, NULL, NULL, flags);
}

int h_start_config(struct h_server *s, const char *text, const char *const *flags)
{
    return start_binary(s, NULL, text, flags);
}

int h_start_comparison(struct h_server *ref)
{
    if (h_is_reference()) {
        printf("running against redis-server itself: nothing to compare with\n");
        return 0;
    }
    int rc = h_start_reference(ref, NULL);
    if (rc == 1)
        printf("no redis-server on PATH: the comparisons with Redis are skipped (a failure under "
               "$CI=true or $RBKV_REQUIRE_REFERENCE=1)\n");
    return rc == 0;
}

int h_start_reference(struct h_server *s, const char *const *flags)
{
    const char *found = find_redis_server();
    if (!found && h_reference_required())
        return harness_failure("no redis-server on PATH, and the comparisons with Redis are "
                               REFERENCE_REQUIRED_WHY);
    if (!found)
        return 1;
    return start_binary(s, found, NULL, flags) < 0 ? -1 : 0;
}

int h_reference_required(void)
{
    const char *ci = getenv("CI"), *req = getenv("RBKV_REQUIRE_REFERENCE");
    return (ci && !strcmp(ci, "true")) || (req && *req && strcmp(req, "0") != 0);
}

int h_restart(struct h_server *s, const char *const *flags)
{
    for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
        s->port = h_free_port();
        if (s->port < 0)
            return harness_failure("no free port: %s", strerror(errno));
        s->pid = spawn(s, flags);
        if (s->pid < 0)
            return harness_failure("fork: %s", strerror(errno));
        track(s, 1);
        int ready = wait_ready(s);
        if (ready == 1)
            return 0;
        if (ready == 0 && log_says_port_taken(s))
            continue; /* another test took the port between our probe and the bind */
        if (ready == -1)
            kill_and_reap(s);
        print_log_tail(s);
        return harness_failure("server %s on port %d %s", s->bin ? s->bin : server_bin, s->port,
                               ready == 0 ? "exited at start" : "never answered PING");
    }
    return harness_failure("no free port after %d attempts", START_ATTEMPTS);
}

/* Under `make test-valgrind` the wrapper writes valgrind.<pid>.log into the
 * server's dir (a fork child's log is its own file, and its leaks by design:
 * it leaves with _exit). Memory errors fail through the exit status
 * (--error-exitcode); leaks are not counted as errors there, since a child
 * would then fail its BGSAVE, so the main process's leak summary is read here.
 * Records a failure, printing the log, when it reports lost bytes. */
static void check_valgrind_log(const struct h_server *s, pid_t pid)
{
    char path[600], buf[16384];
    snprintf(path, sizeof(path), "%s/valgrind.%d.log", s->dir, (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    int lost = 0;
    static const char *const kinds[] = {"definitely lost: ", "indirectly lost: ",
                                        "possibly lost: "};
    /* The summary is near the end: read the last part when the log is long. */
    if (n == sizeof(buf) - 1 && fseek(f, -(long)(sizeof(buf) / 2), SEEK_END) == 0) {
        size_t m = fread(buf + sizeof(buf) / 2, 1, sizeof(buf) / 2 - 1, f);
        buf[sizeof(buf) / 2 + m] = '\0';
    }
    fclose(f);
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        const char *p = strstr(buf, kinds[k]);
        lost |= p && p[strlen(kinds[k])] != '0';
    }
    if (!lost)
        return;
    buf[sizeof(buf) / 2] = '\0';
    fprintf(stderr, "---- %s (first %zu bytes) ----\n%s\n---- end ----\n", path, strlen(buf), buf);
    harness_failure("valgrind reports lost memory in server pid %d: see %s", (int)pid, path);
}

static void remove_dir(struct h_server *s)
{
    /* The log is the only file we let the server write, besides a wrapper's
     * valgrind.<pid>.log files; keep them when failing. */
    if (failed)
        return;
    DIR *d = opendir(s->dir);
    struct dirent *e;
    char p[600];
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "valgrind.", 9) != 0)
            continue;
        snprintf(p, sizeof(p), "%s/%s", s->dir, e->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    unlink(s->log_path);
    rmdir(s->dir);
}

int h_wait_exit(struct h_server *s, int timeout_ms)
{
    pid_t pid = s->pid;
    int status = s->pid > 0 ? reap(s, timeout_ms) : -1;
    if (status != -1) {
        check_valgrind_log(s, pid);
        remove_dir(s);
    }
    return status;
}

int h_stop(struct h_server *s)
{
    if (s->pid <= 0)
        return -1;
    pid_t pid = s->pid;
    kill(s->pid, SIGTERM);
    int status = reap(s, STOP_TIMEOUT_MS);
    if (status == -1) {
        kill_and_reap(s);
        print_log_tail(s);
        return harness_failure("server did not exit within %d ms of SIGTERM; killed",
                               STOP_TIMEOUT_MS);
    }
    int clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!clean)
        print_log_tail(s);
    CHECK(clean, "server exit after SIGTERM: %s %d (expected exit 0)",
          WIFEXITED(status) ? "exit" : "signal",
          WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    /* rbkv closes every handle it opened before it closes its loop. */
    if (!is_reference && !s->bin)
        CHECK(!h_file_has(s, "server.log", "handles still open"),
              "the server's loop closed with handles still open");
    check_valgrind_log(s, pid);
    remove_dir(s);
    return clean ? 0 : -1;
}

redisContext *h_connect(const struct h_server *s)
{
    struct timeval tv = {5 * H_SLOW, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", s->port, tv);
    if (!c || c->err) {
        harness_failure("connect to port %d: %s", s->port, c ? c->errstr : "out of memory");
        redisFree(c);
        return NULL;
    }
    struct timeval rt = {REPLY_TIMEOUT_S, 0};
    redisSetTimeout(c, rt);
    return c;
}

redisContext *h_connect_flushed(const struct h_server *s)
{
    redisContext *c = h_connect(s);
    EXPECT_OK(c, "FLUSHALL");
    return c;
}

/* The client of h_open and h_reopen, once start (h_start's or h_restart's
 * result) said whether s runs. */
static redisContext *connect_started(struct h_server *s, int start)
{
    redisContext *c = start == 0 ? h_connect(s) : NULL;
    if (start == 0 && !c)
        h_stop(s);
    return c;
}

redisContext *h_open(struct h_server *s, const char *const *flags)
{
    return connect_started(s, h_start(s, flags));
}

redisContext *h_reopen(struct h_server *s, const char *const *flags)
{
    return connect_started(s, h_restart(s, flags));
}

int h_close(struct h_server *s, redisContext *c)
{
    redisFree(c);
    return h_stop(s);
}

redisContext *h_open_two(struct h_server *a, struct h_server *b, redisContext **bc)
{
    redisContext *ac = h_open(a, NULL);
    if (!ac)
        return NULL;
    if (!(*bc = h_open(b, NULL))) {
        h_close(a, ac);
        return NULL;
    }
    return ac;
}

redisContext *h_open_blocked(struct h_server *s, const char *const *flags, redisContext **waiter,
                             const char *const *argv)
{
    redisContext *c = h_open(s, flags);
    int argc = 0;
    *waiter = c ? h_connect(s) : NULL;
    if (!*waiter) {
        h_close(s, c);
        return NULL;
    }
    while (argv[argc])
        argc++;
    h_send(*waiter, argc, argv, NULL);
    h_wait_blocked(c, 1, BLOCKED_TIMEOUT_MS);
    return c;
}

/* ---- raw connections ----------------------------------------------------- */

int h_raw_open(struct h_raw *r, const struct h_server *s)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    memset(r, 0, sizeof(*r));
    r->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (r->fd >= 0 && connect(r->fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
        int one = 1;
        setsockopt(r->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        return 0;
    }
    harness_failure("raw connect to port %d: %s", s->port, strerror(errno));
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    return -1;
}

int h_raw_open_resp3(struct h_raw *r, const struct h_server *s)
{
    static const char hello[] = "HELLO 3\r\n";
    if (h_raw_open(r, s) < 0)
        return -1;
    h_raw_send(r, hello, sizeof(hello) - 1);
    if (h_raw_expect(__FILE__, __LINE__, r, "%*", 2, 1))
        return 0;
    h_raw_close(r);
    return -1;
}

void h_raw_close(struct h_raw *r)
{
    if (r->fd >= 0)
        close(r->fd);
    free(r->buf);
    memset(r, 0, sizeof(*r));
    r->fd = -1;
}

int h_raw_send(struct h_raw *r, const void *p, size_t n)
{
    const char *b = p;
    while (n > 0 && r->fd >= 0) {
        ssize_t w = send(r->fd, b, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return r->fd >= 0 ? 0 : -1;
}

/* Reads what is available within timeout_ms into r->buf. Returns bytes read,
 * 0 on EOF or a reset, -1 on timeout. */
static ssize_t raw_fill(struct h_raw *r, int timeout_ms)
{
    if (r->fd < 0)
        return 0;
    struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
    int pr = poll(&pfd, 1, timeout_ms);
    if (pr < 0 && errno == EINTR)
        return -1;
    if (pr <= 0)
        return -1;
    if (r->cap - r->len < 65536) {
        size_t cap = r->cap ? r->cap * 2 : 131072;
        char *nb = realloc(r->buf, cap);
        if (!nb)
            return 0;
        r->buf = nb;
        r->cap = cap;
    }
    ssize_t n = recv(r->fd, r->buf + r->len, r->cap - r->len, 0);
    if (n <= 0)
        return 0; /* EOF, or ECONNRESET: either way the server closed it */
    r->len += (size_t)n;
    return n;
}

/* Length of the reply line starting at p (up to and including CRLF), or 0 if
 * there is no CRLF yet. */
static size_t line_len(const char *p, size_t avail)
{
    for (size_t i = 0; i + 1 < avail; i++) {
        if (p[i] == '\r' && p[i + 1] == '\n')
            return i + 2;
    }
    return 0;
}

/* Length of the complete reply at p, 0 if incomplete, -1 if malformed. */
static long long frame_len(const char *p, size_t avail, int depth)
{
    if (avail == 0)
        return 0;
    if (depth > RAW_MAX_DEPTH)
        return -1;
    size_t ll = line_len(p, avail);
    if (!ll)
        return 0;
    long long n = strtoll(p + 1, NULL, 10);
    switch (p[0]) {
    case '+': case '-': case ':': case '_': case ',': case '#': case '(':
        return (long long)ll;
    case '$': case '=': case '!':
        if (n < 0)
            return (long long)ll;
        return avail >= ll + (size_t)n + 2 ? (long long)(ll + (size_t)n + 2) : 0;
    case '*': case '~': case '>': case '%': case '|': {
        long long elems = (p[0] == '%' || p[0] == '|') ? n * 2 : n;
        size_t off = ll;
        for (long long i = 0; i < elems; i++) {
            long long e = frame_len(p + off, avail - off, depth + 1);
            if (e <= 0)
                return e;
            off += (size_t)e;
        }
        return (long long)off;
    }
    default:
        return -1;
    }
}

int h_raw_read_reply(struct h_raw *r, size_t *len, int timeout_ms)
{
    int64_t deadline = h_now_ms() + timeout_ms;
    for (;;) {
        /* No buffer until the first read: nothing to frame yet. */
        long long n = r->buf ? frame_len(r->buf, r->len, 0) : 0;
        if (n < 0)
            return -1;
        if (n > 0) {
            *len = (size_t)n;
            return 0;
        }
        int64_t left = deadline - h_now_ms();
        if (left <= 0 || raw_fill(r, (int)left) <= 0)
            return -1;
    }
}

void h_raw_consume(struct h_raw *r, size_t n)
{
    memmove(r->buf, r->buf + n, r->len - n);
    r->len -= n;
}

int h_raw_wait_closed(struct h_raw *r, int timeout_ms)
{
    if (r->len > 0)
        return 0;
    ssize_t n = raw_fill(r, timeout_ms);
    return n == 0 ? 1 : n > 0 ? 0 : -1;
}

int h_raw_expect(const char *file, int line, struct h_raw *r, const char *want, size_t len,
                 int glob)
{
    size_t n = 0;
    int ok = h_raw_read_reply(r, &n, H_RAW_TIMEOUT_MS) == 0;
    if (ok && (glob ? h_glob(want, r->buf, n) : n == len && memcmp(r->buf, want, len) == 0)) {
        h_raw_consume(r, n);
        passed++;
        return 1;
    }
    char w[REPR_CAP], g[REPR_CAP];
    struct sbuf bw = {w, 0, sizeof(w)}, bg = {g, 0, sizeof(g)};
    w[0] = g[0] = '\0';
    sb_escaped(&bw, want, len, '"', REPR_CAP / 4);
    sb_escaped(&bg, r->buf, r->len, '"', REPR_CAP / 4);
    fail_header(file, line);
    fprintf(stderr, "raw reply\n    expected %s\"%s\"\n    got      \"%s\"%s\n",
            glob ? "match " : "", w, g,
            ok ? "" : " (incomplete: timeout, EOF or malformed)");
    if (ok)
        h_raw_consume(r, n);
    return 0;
}

void h_same_lines_resp3(const char *file, int line, const struct h_server *s,
                        const struct h_server *ref, const char *const *lines, size_t n)
{
    static const char start[] = "FLUSHALL\r\nHELLO 3\r\n";
    struct h_raw a, b;
    if (h_raw_open(&a, s) < 0)
        return;
    if (h_raw_open(&b, ref) < 0) {
        h_raw_close(&a);
        return;
    }
    h_raw_send(&a, start, sizeof(start) - 1);
    h_raw_send(&b, start, sizeof(start) - 1);
    /* HELLO's reply names the server: read, not compared. */
    for (struct h_raw *x = &a; x; x = x == &a ? &b : NULL) {
        h_raw_expect(file, line, x, "+OK\r\n", 5, 0);
        h_raw_expect(file, line, x, "%*", 2, 1);
    }
    for (size_t i = 0; i < n; i++) {
        struct h_line l;
        char cmd[H_LINE_ARGS * (H_LINE_CHARS + 16) + 16];
        h_split(lines[i], &l);
        size_t used = (size_t)snprintf(cmd, sizeof(cmd), "*%d\r\n", l.argc);
        for (int k = 0; k < l.argc; k++)
            used += (size_t)snprintf(cmd + used, sizeof(cmd) - used, "$%zu\r\n%s\r\n",
                                     strlen(l.argv[k]), l.argv[k]);
        h_raw_send(&a, cmd, used);
        h_raw_send(&b, cmd, used);
        size_t len = 0;
        if (!h_check(file, line, h_raw_read_reply(&b, &len, H_RAW_TIMEOUT_MS) == 0,
                     "%s: no reply from the reference", lines[i]))
            break;
        if (!h_raw_expect(file, line, &a, b.buf, len, 0))
            fprintf(stderr, "    (the reference's reply to %s, in RESP3)\n", lines[i]);
        h_raw_consume(&b, len);
    }
    h_raw_close(&a);
    h_raw_close(&b);
}

void h_path_in(const struct h_server *s, const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", s->dir, name);
}

int h_wait_blocked(redisContext *c, long n, int timeout_ms)
{
    char want[32];
    snprintf(want, sizeof(want), "%ld", n);
    int ok = h_wait_info(c, "clients", "blocked_clients", want, timeout_ms);
    long got = ok ? n : (long)h_info_ll(c, "clients", "blocked_clients");
    return CHECK(ok, "expected blocked_clients:%ld, got %ld", n, got) ? 0 : -1;
}

void h_digest(redisContext *c, char *out)
{
    /* A digest reads every key and value: a million keys on a machine whose
     * load is 30 took longer than the usual reply timeout. */
    struct timeval longer = {6 * REPLY_TIMEOUT_S, 0}, usual = {REPLY_TIMEOUT_S, 0};
    redisSetTimeout(c, longer);
    redisReply *r = H_CALL(c, "DEBUG", "DIGEST");
    redisSetTimeout(c, usual);
    out[0] = '\0';
    if (CHECK(r && r->type == REDIS_REPLY_STATUS && r->len == H_DIGEST_CHARS,
              "DEBUG DIGEST: %d hex digits", H_DIGEST_CHARS))
        memcpy(out, r->str, H_DIGEST_CHARS + 1);
    freeReplyObject(r);
}

const char *h_wait_bgsave(redisContext *c, int timeout_ms)
{
    static char status[16];
    if (h_wait_info(c, "persistence", "rdb_bgsave_in_progress", "0", timeout_ms) &&
        h_info_str(c, "persistence", "rdb_last_bgsave_status", status, sizeof(status)) == 0)
        return status;
    CHECK(0, "BGSAVE did not finish within %d ms", timeout_ms);
    return "timeout";
}

char *h_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
        *len = fread(buf, 1, (size_t)n, f);
        buf[*len] = '\0';
    }
    fclose(f);
    return buf;
}

uint64_t h_crc64(const unsigned char *p, size_t n)
{
    uint64_t crc = 0;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc & 1) ? (crc >> 1) ^ 0x95ac9329ac4bc9b5ULL : crc >> 1;
    }
    return crc;
}

int h_write_snapshot(const struct h_server *s, const void *records, size_t len)
{
    static const unsigned char head[] = {'R', 'B', 'K', 'V', 1, 0, 0, 0, 0, 0,
                                         0, 0, 0, 0, 0, 0, 0xFE, 0};
    unsigned char *buf = malloc(sizeof(head) + len + 9);
    char p[512];
    if (!buf)
        return -1;
    mkdir(s->dir, 0700); /* h_stop removed it if the server left nothing there */
    memcpy(buf, head, sizeof(head));
    memcpy(buf + sizeof(head), records, len);
    size_t n = sizeof(head) + len;
    buf[n++] = 0xFF;
    uint64_t crc = h_crc64(buf, n);
    for (int i = 0; i < 8; i++)
        buf[n++] = (unsigned char)(crc >> (8 * i));
    h_path_in(s, "dump.rbkv", p, sizeof(p));
    FILE *f = fopen(p, "wb");
    int rc = f && fwrite(buf, 1, n, f) == n ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    free(buf);
    return rc;
}

size_t h_snapshot_map(unsigned char *out, int hash, const char *key, int n,
                      const char *const *elems)
{
    size_t at = 0;
    int count = hash ? 2 * n : n;
    out[at++] = hash ? 0x02 : 0x03;
    out[at++] = 0; /* no deadline */
    out[at++] = (unsigned char)strlen(key);
    memcpy(out + at, key, strlen(key));
    at += strlen(key);
    out[at++] = (unsigned char)n;
    for (int i = 0; i < count; i++) {
        size_t l = strlen(elems[i]);
        out[at++] = (unsigned char)l;
        memcpy(out + at, elems[i], l);
        at += l;
    }
    return at;
}

int h_file_has(const struct h_server *s, const char *name, const char *text)
{
    char p[512];
    size_t len;
    h_path_in(s, name, p, sizeof(p));
    char *buf = h_read_file(p, &len);
    int found = buf && strstr(buf, text) != NULL;
    free(buf);
    return found;
}

long long h_file_size(const struct h_server *s, const char *name)
{
    char p[512];
    struct stat st;
    h_path_in(s, name, p, sizeof(p));
    return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

int h_exec(const struct h_server *s, const char *out, int timeout_ms, const char *const *args)
{
    const char *argv[MAX_FLAGS + 2] = {server_bin};
    char path[512];
    int n = 1;
    for (; args && args[n - 1] && n <= MAX_FLAGS; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    h_path_in(s, out, path, sizeof(path));
    pid_t pid = fork();
    if (pid < 0)
        return harness_failure("fork: %s", strerror(errno));
    if (pid == 0) {
        if (!freopen(path, "w", stdout) || chdir(s->dir) < 0)
            _exit(127);
        dup2(STDOUT_FILENO, STDERR_FILENO);
        execvp(server_bin, (char *const *)argv);
        _exit(127);
    }
    int status = -1;
    pid_t done;
    int64_t deadline = h_now_ms() + timeout_ms;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && h_now_ms() < deadline)
        h_sleep_ms(10);
    if (done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void h_clean_dir(const struct h_server *s)
{
    DIR *d = opendir(s->dir);
    struct dirent *e;
    char p[600];
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "%s/%s", s->dir, e->d_name);
        if (unlink(p) < 0)
            rmdir(p);
    }
    if (d)
        closedir(d);
    rmdir(s->dir);
}

long long h_int_reply(redisContext *c, int argc, const char *const *argv)
{
    redisReply *r = h_command(c, argc, argv, NULL);
    long long v = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -999;
    freeReplyObject(r);
    return v;
}

void h_fill(redisContext *c, const char *prefix, int n)
{
    char k[64];
    for (int i = 0; i < n; i++) {
        snprintf(k, sizeof(k), "%s:%d", prefix, i);
        H_APPEND(c, "SET", k, k);
    }
    for (int i = 0; i < n; i++)
        freeReplyObject(h_get_reply(c));
}

void h_coll_fill(redisContext *c, const struct h_coll *t, const char *key, int n)
{
    char name[16], value[16];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "%c%05d", t->prefix, i);
        snprintf(value, sizeof(value), "%d", i);
        H_APPEND(c, t->add, key, t->value_first ? value : name, t->value_first ? name : value);
    }
    for (int i = 0; i < n; i++)
        freeReplyObject(h_get_reply(c));
}

int h_coll_scan_churn(const char *file, int line, redisContext *c, const struct h_coll *t,
                      const char *key, int n)
{
    unsigned char *seen = calloc((size_t)n, 1);
    char cursor[32] = "0";
    int calls = 0;
    if (!h_check(file, line, seen != NULL, "out of memory"))
        return n;
    do {
        redisReply *r = H_CALL(c, t->scan, key, cursor, "COUNT", "100");
        if (!h_check(file, line, r && r->type == REDIS_REPLY_ARRAY && r->elements == 2,
                     "%s reply", t->scan)) {
            freeReplyObject(r);
            break;
        }
        snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
        const redisReply *items = r->element[1];
        for (size_t i = 0; i + 1 < items->elements; i += 2) {
            if (items->element[i]->str[0] != t->prefix)
                continue; /* one of the entries that come and go */
            int k = atoi(items->element[i]->str + 1);
            h_check(file, line, k >= 0 && k < n && atoi(items->element[i + 1]->str) == k,
                    "a scanned pair");
            if (k >= 0 && k < n)
                seen[k] = 1;
        }
        freeReplyObject(r);
        char extra[32], gone[32];
        for (int j = 0; j < 50; j++) {
            snprintf(extra, sizeof(extra), "x%d", calls * 50 + j);
            H_APPEND(c, t->add, key, t->value_first ? "-1" : extra, t->value_first ? extra : "-1");
            snprintf(gone, sizeof(gone), "x%d", calls * 50 + j - 120);
            H_APPEND(c, t->del, key, gone);
        }
        for (int j = 0; j < 100; j++)
            freeReplyObject(h_get_reply(c));
    } while (strcmp(cursor, "0") != 0 && ++calls < 10 * n);
    int missed = 0;
    for (int k = 0; k < n; k++)
        missed += !seen[k];
    free(seen);
    h_check(file, line, missed == 0, "%s missed %d entries", t->scan, missed);
    return missed;
}

void h_kill9_with_child(struct h_server *s, int timeout_ms)
{
    long child = h_child_of(s->pid);
    kill(s->pid, SIGKILL);
    if (child > 0)
        kill((pid_t)child, SIGKILL);
    h_wait_exit(s, timeout_ms);
}

long h_child_of(pid_t pid)
{
    char p[64];
    long child = -1;
    snprintf(p, sizeof(p), "/proc/%d/task/%d/children", (int)pid, (int)pid);
    FILE *f = fopen(p, "r");
    char line[32], *end;
    if (f) {
        if (fgets(line, sizeof(line), f)) {
            child = strtol(line, &end, 10);
            if (end == line)
                child = -1;
        }
        fclose(f);
    }
    return child;
}

int h_is_reference(void)
{
    return is_reference;
}

long h_rss_kb(pid_t pid)
{
    char p[64], line[256];
    long kb = -1;
    snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
    FILE *f = fopen(p, "r");
    while (f && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    }
    if (f)
        fclose(f);
    return kb;
}

int h_info_str(redisContext *c, const char *section, const char *field, char *out, size_t cap)
{
    redisReply *r = H_CALL(c, "INFO", section);
    int rc = r && r->type == REDIS_REPLY_STRING ? h_info_field(r->str, field, out, cap) : -1;
    freeReplyObject(r);
    return rc;
}

long long h_info_ll(redisContext *c, const char *section, const char *field)
{
    char val[64];
    return h_info_str(c, section, field, val, sizeof(val)) == 0 ? strtoll(val, NULL, 10) : -1;
}

void h_events_and_dirty(const struct h_server *s, const char *const *lines, size_t n,
                        char *events, size_t cap, long long *dirty)
{
    redisContext *c = h_connect_flushed(s);
    redisContext *sub = h_connect(s);
    events[0] = '\0';
    if (!c || !sub) {
        redisFree(c);
        redisFree(sub);
        return;
    }
    freeReplyObject(H_CALL(c, "CONFIG", "SET", "notify-keyspace-events", "KEAn"));
    freeReplyObject(H_CALL(sub, "PSUBSCRIBE", "__keyevent@*__:*"));
    for (size_t i = 0; i < n; i++) {
        struct h_line l;
        long long before = h_info_ll(c, "persistence", "rdb_changes_since_last_save");
        freeReplyObject(h_command(c, h_split(lines[i], &l), l.argv, NULL));
        dirty[i] = h_info_ll(c, "persistence", "rdb_changes_since_last_save") - before;
    }
    size_t used = 0;
    for (;;) {
        redisReply *m = NULL;
        if (redisGetReply(sub, (void **)&m) != REDIS_OK || !m || m->elements != 4) {
            freeReplyObject(m);
            CHECK(0, "a keyspace event");
            break;
        }
        const char *ev = strrchr(m->element[2]->str, ':');
        int end = !strcmp(m->element[3]->str, "end") && ev && !strcmp(ev, ":set");
        int w = snprintf(events + used, cap - used, "%s %s;", ev ? ev + 1 : "?",
                         m->element[3]->str);
        freeReplyObject(m);
        if (w > 0 && (size_t)w < cap - used)
            used += (size_t)w;
        if (end)
            break;
    }
    freeReplyObject(H_CALL(c, "CONFIG", "SET", "notify-keyspace-events", ""));
    redisFree(sub);
    redisFree(c);
}

int h_wait_info(redisContext *c, const char *section, const char *field, const char *want,
                int timeout_ms)
{
    int64_t deadline = h_now_ms() + timeout_ms;
    for (;;) {
        char val[256];
        if (h_info_str(c, section, field, val, sizeof(val)) == 0 && !strcmp(val, want))
            return 1;
        if (h_now_ms() >= deadline || !c || c->err)
            return 0;
        h_sleep_ms(INFO_POLL_MS);
    }
}

int h_wait_clients(redisContext *c, long n, int timeout_ms)
{
    char want[32];
    snprintf(want, sizeof(want), "%ld", n);
    return h_wait_info(c, "clients", "connected_clients", want, timeout_ms);
}

int h_replicate(redisContext *replica, const struct h_server *primary, int timeout_ms)
{
    char port[16];
    snprintf(port, sizeof(port), "%d", primary->port);
    EXPECT_OK(replica, "REPLICAOF", "127.0.0.1", port);
    int up = h_wait_info(replica, "replication", "master_link_status", "up", timeout_ms);
    CHECK(up, "the replica never synced with the primary on port %s", port);
    return up;
}

int h_wait_caught_up(redisContext *primary, redisContext *replica, int timeout_ms)
{
    int64_t deadline = h_now_ms() + timeout_ms;
    long long want = -1, got = -2;
    while (h_now_ms() < deadline) {
        want = h_info_ll(primary, "replication", "master_repl_offset");
        got = h_info_ll(replica, "replication", "slave_repl_offset");
        if (want == got && want >= 0)
            return 1;
        h_sleep_ms(INFO_POLL_MS);
    }
    return CHECK(0, "replica at offset %lld, primary at %lld", got, want);
}

int h_wait_busy(redisContext *c, int timeout_ms)
{
    int64_t deadline = h_now_ms() + timeout_ms;
    for (;;) {
        redisReply *r = H_CALL(c, "PING");
        int busy = r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "BUSY ", 5);
        int gone = !r;
        freeReplyObject(r);
        if (busy)
            return 1;
        if (gone || h_now_ms() >= deadline)
            return CHECK(0, "PING never answered -BUSY: no script ran past busy-reply-threshold");
        h_sleep_ms(INFO_POLL_MS);
    }
}

long h_raise_nofile(long n)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return -1;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)n) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= (rlim_t)n ? (rlim_t)n
                                                                               : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur == RLIM_INFINITY ? LONG_MAX : (long)rl.rlim_cur;
}

char h_proc_state(long pid)
{
    char p[64], line[512];
    char state = 0;
    snprintf(p, sizeof(p), "/proc/%ld/stat", pid);
    FILE *f = fopen(p, "r");
    if (f && fgets(line, sizeof(line), f)) {
        const char *close = strrchr(line, ')'); /* the name may hold spaces */
        if (close && close[1] == ' ')
            state = close[2];
    }
    if (f)
        fclose(f);
    return state;
}

long h_freeze_child(pid_t pid, int timeout_ms)
{
    int64_t deadline = h_now_ms() + timeout_ms;
    long child;
    while ((child = h_child_of(pid)) < 0 && h_now_ms() < deadline)
        h_sleep_ms(1);
    if (child < 0 || kill((pid_t)child, SIGSTOP) < 0)
        return -1;
    /* SIGSTOP lands asynchronously: T once it did, Z when the child had
     * already exited (its parent not having reaped it yet). */
    char state;
    while ((state = h_proc_state(child)) != 'T' && state != 't' && state != 'Z' && state != 0 &&
           h_now_ms() < deadline)
        h_sleep_ms(1);
    return state == 'T' || state == 't' ? child : -1;
}

int h_wait_log(const struct h_server *s, const char *text, int timeout_ms)
{
    int64_t deadline = h_now_ms() + timeout_ms;
    while (!h_file_has(s, "server.log", text)) {
        if (h_now_ms() >= deadline)
            return 0;
        h_sleep_ms(INFO_POLL_MS);
    }
    return 1;
}

int h_dir_has_prefix(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d)))
        found |= !strncmp(e->d_name, prefix, strlen(prefix));
    if (d)
        closedir(d);
    return found;
}

void h_fill_big(redisContext *c, const char *prefix, int n, size_t size)
{
    char *value = malloc(size);
    if (!value) {
        CHECK(0, "no memory for a %zu-byte value", size);
        return;
    }
    memset(value, 'x', size);
    for (int i = 0; i < n; i++) {
        char k[64];
        int kn = snprintf(k, sizeof(k), "%s:%d", prefix, i);
        freeReplyObject(H_CALL_BIN(c, H_S("SET"), H_B(k, (size_t)kn), H_B(value, size)));
    }
    free(value);
}

size_t h_write_filler(const char *path, size_t n)
{
    char block[8192];
    size_t done = 0;
    memset(block, 'f', sizeof(block));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    while (fd >= 0 && done < n) {
        ssize_t w = write(fd, block, n - done < sizeof(block) ? n - done : sizeof(block));
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    if (fd >= 0)
        close(fd);
    return done;
}
