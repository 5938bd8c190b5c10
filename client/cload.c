/*
 * cload.c - `rbkv-cli -c load`: each command of a load goes to the primary
 * serving its key's slot, pipelined per node, following -MOVED and -ASK,
 * and sending a command again after -TRYAGAIN. Owns a connection per
 * primary, each one's commands in flight (formatted, to send again after a
 * redirect), the slot map, the commands waiting to be sent again, the
 * slots whose multi-key command is not settled, and the table of which
 * keys each command names. load.c owns the input and calls cli_cload_send
 * per command.
 *
 * The map comes from CLUSTER SLOTS on the seed node, which then only
 * answers COMMAND INFO (which argument is a command's first key) and
 * COMMAND GETKEYS (for a command whose keys move, as EVAL's); each primary
 * gets a connection of its own. A node's commands are pipelined as load.c
 * does on one server: once two batches are in flight, the older batch's
 * replies are read.
 *
 * Invariants:
 *  - Commands of one slot are on one node's pipe, in input order, until a
 *    reply redirects one. Then every reply of that node still owed is read
 *    before the next input, and the redirected commands are sent again
 *    before it, a slot's in their input order (one that meets more
 *    redirects of its slot waits behind them, and so do the rest of its
 *    slot's), so two writes of one key never swap. That holds for
 *    commands of one key because a key only ever leaves the source of a
 *    migration: a later command of the key is redirected too.
 *  - A command of several keys (MSET, DEL k1 k2...) can be redirected
 *    while a later command of one of its keys is served where it is, so
 *    none of its slot is sent after it until it is settled: at most one
 *    per slot is unsettled (multi_open), and always the last of its slot
 *    sent.
 *  - -TRYAGAIN (a command of several keys that a migration has split
 *    between its source and its target) sends the command again, to the
 *    slot's owner in the map, after a pause of TRYAGAIN_FIRST_MS doubled
 *    at each attempt up to TRYAGAIN_MAX_MS (the other nodes keep working
 *    meanwhile); after CLI_MAX_TRYAGAIN attempts the load ends.
 *  - -MOVED slot host:port changes the map for that slot (a node not seen
 *    yet gets a connection); -ASK sends ASKING, then the command, to the
 *    node named, once, and leaves the map. A command redirected more than
 *    CLI_MAX_REDIRECTS times ends the load, as plain mode does.
 *  - Memory is two batches per node, plus the redirected commands.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "keyslot.h"

/* The pause before the first attempt after -TRYAGAIN, doubled at each
 * attempt up to the last: a slot's migration moves its keys in batches
 * (redis-cli --cluster reshard's --cluster-pipeline, 10 keys a MIGRATE),
 * so a split of one slot usually lasts less than a second; CLI_MAX_TRYAGAIN
 * attempts wait 14.5 s in all. */
#define TRYAGAIN_FIRST_MS 50
#define TRYAGAIN_MAX_MS 1000

/* One command in flight: its formatted bytes (NULL for the ASKING sent
 * before it after -ASK), its line or command number, slot, hops (redirects
 * since it was last sent to its slot's owner), -TRYAGAIN replies, and
 * whether it names several keys. */
struct cmd {
    char *buf;
    size_t len;
    unsigned long long at;
    int slot, hops, tries, multi;
};

/* A primary's connection and its commands in flight, a ring of two
 * batches, the oldest at head. */
struct pipe {
    struct cli_node addr;
    redisContext *ctx;
    struct cmd *ring;
    long long head, pending;
};

/* Where a command's keys are: its name (lower case) and COMMAND INFO's
 * positions. */
#define KEYSPEC_NAME 32
#define KEYSPEC_MAX 256
struct keyspec {
    char name[KEYSPEC_NAME];
    size_t len;
    struct cli_keyspec pos;
};

struct cli_cload {
    redisContext *seed;
    struct cli_conn_opts conn; /* host and port change per node */
    const char *name;          /* the input's, for messages */
    int resp;
    long long batch;
    struct pipe *pipes;
    int npipes;
    short owner[CLI_SLOTS]; /* a pipe's index, or -1: no node serves the slot */
    unsigned char multi_open[CLI_SLOTS]; /* a multi-key command of the slot is unsettled */
    /* Commands redirected, to send again in this order (-ASK: to pipe ask). */
    struct resend {
        struct cmd c;
        int ask;  /* the pipe for ASKING + command, or -1 */
        int wait; /* ms to pause before it is sent (-TRYAGAIN) */
    } *resend;
    size_t nresend, resend_cap;
    struct keyspec specs[KEYSPEC_MAX];
    int nspecs;
    int rc; /* the first failure's exit code */
};

static int oom(void)
{
    fputs("rbkv-cli: out of memory\n", stderr);
    return CLI_ERR_USAGE;
}

/* The pipe of node host:port, connected on first use. Returns its index,
 * or -1 after printing why. */
static int pipe_of(struct cli_cload *c, const char *host, int port)
{
    for (int i = 0; i < c->npipes; i++)
        if (c->pipes[i].addr.port == port && !strcmp(c->pipes[i].addr.host, host))
            return i;
    if (c->npipes == CLI_SLOTS) /* more nodes than slots: not a cluster */
        return -1;
    struct pipe *grown = realloc(c->pipes, (size_t)(c->npipes + 1) * sizeof(*grown));
    if (!grown)
        return oom(), -1;
    c->pipes = grown;
    struct pipe *p = &c->pipes[c->npipes];
    memset(p, 0, sizeof(*p));
    snprintf(p->addr.host, sizeof(p->addr.host), "%s", host);
    p->addr.port = port;
    struct cli_conn_opts o = c->conn;
    o.host = p->addr.host;
    o.port = port;
    o.socket = NULL;
    if (!(p->ring = calloc(2 * (size_t)c->batch, sizeof(*p->ring))))
        return oom(), -1;
    if (cli_connect(&o, &p->ctx) != CLI_OK) {
        free(p->ring);
        return -1;
    }
    return c->npipes++;
}

/* Appends an entry to pipe i's ring (which has room) and its bytes to the
 * connection's output. Takes cmd's buffer. */
static void pipe_push(struct cli_cload *c, int i, struct cmd cmd)
{
    struct pipe *p = &c->pipes[i];
    static const char asking[] = "*1\r\n$6\r\nASKING\r\n";

    if (cmd.buf)
        redisAppendFormattedCommand(p->ctx, cmd.buf, cmd.len);
    else
        redisAppendFormattedCommand(p->ctx, asking, sizeof(asking) - 1);
    p->ring[(p->head + p->pending++) % (2 * c->batch)] = cmd;
}

static int queue_resend(struct cli_cload *c, struct cmd cmd, int ask, int wait)
{
    if (c->nresend == c->resend_cap) {
        size_t cap = c->resend_cap ? 2 * c->resend_cap : 64;
        struct resend *grown = realloc(c->resend, cap * sizeof(*grown));
        if (!grown) {
            free(cmd.buf);
            return c->rc = oom();
        }
        c->resend = grown;
        c->resend_cap = cap;
    }
    c->resend[c->nresend++] = (struct resend){cmd, ask, wait};
    return CLI_OK;
}

/* cmd is done with (answered, or the load ends): its slot is open to the
 * commands after it. Frees its buffer. */
static void done(struct cli_cload *c, struct cmd *cmd)
{
    if (cmd->multi)
        c->multi_open[cmd->slot] = 0;
    free(cmd->buf);
    cmd->buf = NULL;
}

/* Whether r is Redis's -TRYAGAIN (its code alone, or with its text). */
static int is_tryagain(const redisReply *r)
{
    return r->type == REDIS_REPLY_ERROR && r->len >= 8 && !memcmp(r->str, "TRYAGAIN", 8) &&
           (r->len == 8 || r->str[8] == ' ');
}

/* cmd got -TRYAGAIN r: queued to go to its slot's owner again after a
 * pause, unless it had its CLI_MAX_TRYAGAIN attempts. Takes the command's
 * buffer. Returns 1, or -1 on a failure that ends the load. */
static int try_again(struct cli_cload *c, struct cmd cmd, const redisReply *r)
{
    if (++cmd.tries > CLI_MAX_TRYAGAIN) {
        if (c->rc == CLI_OK)
            fprintf(stderr,
                    "rbkv-cli: %s:%s%llu: still -TRYAGAIN after %d attempts (its keys stay split "
                    "by a slot's migration), the last: %.*s\n",
                    c->name, c->resp ? " command " : "", cmd.at, CLI_MAX_TRYAGAIN, (int)r->len,
                    r->str);
        c->rc = CLI_ERR_REPLY;
        done(c, &cmd);
        return -1;
    }
    int wait = TRYAGAIN_FIRST_MS;
    for (int k = 1; k < cmd.tries && wait < TRYAGAIN_MAX_MS; k++)
        wait *= 2;
    /* From the owner again: the migration may have ended, or moved more. */
    cmd.hops = 0;
    if (queue_resend(c, cmd, -1, wait < TRYAGAIN_MAX_MS ? wait : TRYAGAIN_MAX_MS) != CLI_OK)
        return -1;
    return 1;
}

/* One reply of pipe i's oldest command: an error other than a redirect
 * reported (the first only), a redirect or -TRYAGAIN queued to be sent
 * again. Takes the command's buffer. Returns 1 for a redirect, 0 else, or
 * -1 on a failure that ends the load. */
static int settle(struct cli_cload *c, int i, struct cmd cmd, const redisReply *r)
{
    char host[sizeof(c->pipes->addr.host)];
    int slot, port, ask;

    if (cmd.buf && is_tryagain(r))
        return try_again(c, cmd, r);
    if (!cmd.buf || r->type != REDIS_REPLY_ERROR ||
        (ask = cli_parse_redirect(r, &slot, host, sizeof(host), &port)) < 0) {
        /* ASKING's +OK, a reply, or an error that is no redirect. */
        if (r->type == REDIS_REPLY_ERROR && c->rc == CLI_OK) {
            fprintf(stderr, "rbkv-cli: %s:%s%llu: (error) %.*s\n", c->name,
                    c->resp ? " command " : "", cmd.at, (int)r->len, r->str);
            c->rc = CLI_ERR_REPLY;
        }
        done(c, &cmd);
        return 0;
    }
    if (++cmd.hops > CLI_MAX_REDIRECTS) {
        if (c->rc == CLI_OK)
            fprintf(stderr, "rbkv-cli: %s:%s%llu: too many redirects (%d), the last: %s\n",
                    c->name, c->resp ? " command " : "", cmd.at, CLI_MAX_REDIRECTS, r->str);
        c->rc = CLI_ERR_REPLY;
        done(c, &cmd);
        return -1;
    }
    /* An empty host is the node that answered, as redis-cli reads it
     * (copied: pipe_of may move the pipes). */
    if (!host[0])
        memcpy(host, c->pipes[i].addr.host, sizeof(host));
    int to = pipe_of(c, host, port);
    if (to < 0) {
        done(c, &cmd);
        c->rc = CLI_ERR_USAGE;
        return -1;
    }
    if (!ask)
        c->owner[slot] = (short)to;
    if (queue_resend(c, cmd, ask ? to : -1, 0) != CLI_OK)
        return -1;
    return 1;
}

/* Hands every node's commands not written yet to the kernel: hiredis
 * writes a context's output only when a reply is read from it, so without
 * this the other nodes would wait while the client waits for one. A node's
 * replies to its two batches fit the socket buffers, so it keeps reading
 * and a write cannot block for long. Returns c->rc, or a connection
 * error's code. */
static int flush_all(struct cli_cload *c)
{
    for (int j = 0; j < c->npipes && c->rc == CLI_OK; j++) {
        int done = 0;
        while (!done)
            if (redisBufferWrite(c->pipes[j].ctx, &done) != REDIS_OK) {
                fprintf(stderr, "rbkv-cli: %s:%d: ", c->pipes[j].addr.host, c->pipes[j].addr.port);
                return c->rc = cli_conn_error(c->pipes[j].ctx);
            }
    }
    return c->rc;
}

/* Reads the replies of pipe i's n oldest commands, and all it still owes
 * once one redirects. Returns c->rc, or a connection error's code. */
static int drain(struct cli_cload *c, int i, long long n)
{
    if (flush_all(c) != CLI_OK && c->rc != CLI_ERR_REPLY)
        return c->rc;
    while (n-- > 0 && c->pipes[i].pending) {
        /* Taken again each time: a redirect to a new node moves the pipes. */
        struct pipe *p = &c->pipes[i];
        redisReply *r;
        if (redisGetReply(p->ctx, (void **)&r) != REDIS_OK) {
            fprintf(stderr, "rbkv-cli: %s:%d: ", p->addr.host, p->addr.port);
            return c->rc = cli_conn_error(p->ctx);
        }
        struct cmd cmd = p->ring[p->head];
        p->head = (p->head + 1) % (2 * c->batch);
        p->pending--;
        int moved = settle(c, i, cmd, r);
        freeReplyObject(r);
        if (moved < 0)
            return c->rc;
        if (moved)
            n = c->pipes[i].pending;
    }
    return c->rc;
}

/* Whether a command of slot was redirected since the list held from. */
static int redirected_since(const struct cli_cload *c, size_t from, int slot)
{
    for (size_t k = from; k < c->nresend; k++)
        if (c->resend[k].c.slot == slot)
            return 1;
    return 0;
}

/* Sends cmd to pipe i (ASKING first when ask), reading the older batch's
 * replies first when two are in flight. When those redirect a command of
 * cmd's slot (sent before it), cmd joins the commands to send again, after
 * them, and *held is set. Takes cmd's buffer. */
static int pipe_send(struct cli_cload *c, int i, struct cmd cmd, int ask, int *held)
{
    long long need = ask ? 2 : 1;
    size_t before = c->nresend;

    *held = 0;
    /* Twice with a batch of 1 for ASKING and its command. */
    while (c->rc == CLI_OK && c->pipes[i].pending + need > 2 * c->batch)
        drain(c, i, c->batch);
    if (c->rc != CLI_OK) {
        free(cmd.buf);
        return c->rc;
    }
    if (redirected_since(c, before, cmd.slot)) {
        *held = 1;
        return queue_resend(c, cmd, ask ? i : -1, 0);
    }
    if (ask)
        pipe_push(c, i, (struct cmd){.at = cmd.at, .slot = cmd.slot});
    pipe_push(c, i, cmd);
    return CLI_OK;
}

/* Sends cmd to the primary of its slot (*held as pipe_send's). Takes
 * cmd's buffer. */
static int route(struct cli_cload *c, struct cmd cmd, int *held)
{
    int i = c->owner[cmd.slot];

    *held = 0;
    if (i < 0) {
        if (c->rc == CLI_OK)
            fprintf(stderr, "rbkv-cli: %s:%s%llu: no node serves slot %d\n", c->name,
                    c->resp ? " command " : "", cmd.at, cmd.slot);
        free(cmd.buf);
        return c->rc = CLI_ERR_REPLY;
    }
    return pipe_send(c, i, cmd, 0, held);
}

/* Pauses ms milliseconds, once every node has what was sent to it, so
 * that they work meanwhile. Returns c->rc, or a connection error's code. */
static int pause_ms(struct cli_cload *c, int ms)
{
    if (flush_all(c) != CLI_OK)
        return c->rc;
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    return CLI_OK;
}

/* Sends the redirected commands again, in their order, a pass at a time:
 * sending may read replies that redirect more, which wait for the next
 * pass. A pass starts with the longest pause one of its commands asks for
 * (-TRYAGAIN). A command held back behind those (pipe_send) holds back the
 * rest of its slot's in this pass, so a slot's commands keep their order. */
static int resend_all(struct cli_cload *c)
{
    static unsigned char held_slot[CLI_SLOTS];

    while (c->nresend && c->rc == CLI_OK) {
        struct resend *pass = c->resend;
        size_t n = c->nresend, k = 0;
        int wait = 0;
        c->resend = NULL;
        c->nresend = c->resend_cap = 0;
        memset(held_slot, 0, sizeof(held_slot));
        for (size_t j = 0; j < n; j++)
            wait = pass[j].wait > wait ? pass[j].wait : wait;
        if (wait)
            pause_ms(c, wait);
        for (; k < n && c->rc == CLI_OK; k++) {
            struct resend e = pass[k];
            int held = 0;
            pass[k].c.buf = NULL;
            if (held_slot[e.c.slot])
                queue_resend(c, e.c, e.ask, 0);
            else if (e.ask >= 0)
                pipe_send(c, e.ask, e.c, 1, &held);
            else
                route(c, e.c, &held);
            held_slot[e.c.slot] |= (unsigned char)held;
        }
        for (; k < n; k++)
            free(pass[k].c.buf);
        free(pass);
    }
    for (size_t k = 0; k < c->nresend; k++)
        free(c->resend[k].c.buf);
    c->nresend = 0;
    return c->rc;
}

int cli_keyspec_parse(const redisReply *r, struct cli_keyspec *out)
{
    *out = (struct cli_keyspec){.first = 0};
    /* [[name, arity, flags, first key, last key, step, ...]]; nil for an
     * unknown command. */
    const redisReply *e = r->type == REDIS_REPLY_ARRAY && r->elements == 1 ? r->element[0] : NULL;
    if (!e || e->type != REDIS_REPLY_ARRAY || e->elements < 6 ||
        e->element[2]->type != REDIS_REPLY_ARRAY || e->element[3]->type != REDIS_REPLY_INTEGER)
        return -1;
    /* 0 or less names no key (a negative index is no position). */
    out->first = e->element[3]->integer > 0 ? e->element[3]->integer : 0;
    /* A last key or step that is no number names one key: the first. */
    if (out->first && e->element[4]->type == REDIS_REPLY_INTEGER &&
        e->element[5]->type == REDIS_REPLY_INTEGER && e->element[5]->integer > 0) {
        out->last = e->element[4]->integer;
        out->step = e->element[5]->integer;
    }
    for (size_t j = 0; j < e->element[2]->elements; j++) {
        const redisReply *f = e->element[2]->element[j];
        if (f->type == REDIS_REPLY_STATUS && f->len == 11 && !memcmp(f->str, "movablekeys", 11))
            out->movable = 1;
    }
    return 0;
}

int cli_keyspec_many(const struct cli_keyspec *s, long long argc)
{
    if (!s->first || s->first >= argc || s->step <= 0)
        return 0;
    /* A negative last counts from the end: -1 is the last argument. */
    long long last = s->last < 0 ? argc + s->last : s->last;
    if (last >= argc)
        last = argc - 1;
    return last - s->first >= s->step;
}

/* The index of argv's first key for the command: COMMAND INFO's first key,
 * cached by name, or COMMAND GETKEYS's first for a command whose keys move;
 * whether it names more keys into *multi. Returns it, 0 when the command
 * names no key, or -1 on a failure (printed, c->rc set). */
static long long first_key(struct cli_cload *c, int argc, const char **argv, const size_t *lens,
                           int *multi)
{
    struct keyspec found = {.len = 0}, *s = NULL;
    char name[KEYSPEC_NAME];

    if (lens[0] < sizeof(name)) {
        for (size_t j = 0; j < lens[0]; j++)
            name[j] = (char)tolower((unsigned char)argv[0][j]);
        for (int j = 0; j < c->nspecs && !s; j++)
            if (c->specs[j].len == lens[0] && !memcmp(c->specs[j].name, name, lens[0]))
                s = &c->specs[j];
    }
    if (!s) {
        const char *q[] = {"COMMAND", "INFO", argv[0]};
        size_t ql[] = {7, 4, lens[0]};
        redisReply *r = redisCommandArgv(c->seed, 3, q, ql);
        if (!r)
            return c->rc = cli_conn_error(c->seed), -1;
        cli_keyspec_parse(r, &found.pos);
        freeReplyObject(r);
        s = &found; /* a long name, or a full table: looked up each time */
        if (lens[0] < sizeof(name) && c->nspecs < KEYSPEC_MAX) {
            memcpy(found.name, name, lens[0]);
            found.len = lens[0];
            c->specs[c->nspecs] = found;
            s = &c->specs[c->nspecs++];
        }
    }
    if (!s->pos.movable) {
        *multi = cli_keyspec_many(&s->pos, argc);
        return s->pos.first < argc ? s->pos.first : 0;
    }
    /* COMMAND GETKEYS names the keys themselves: find the first's index. */
    const char **q = malloc(((size_t)argc + 2) * sizeof(*q));
    size_t *ql = malloc(((size_t)argc + 2) * sizeof(*ql));
    if (!q || !ql) {
        free(q);
        free(ql);
        return c->rc = oom(), -1;
    }
    q[0] = "COMMAND";
    q[1] = "GETKEYS";
    ql[0] = 7;
    ql[1] = 7;
    memcpy(q + 2, argv, (size_t)argc * sizeof(*q));
    memcpy(ql + 2, lens, (size_t)argc * sizeof(*ql));
    redisReply *r = redisCommandArgv(c->seed, argc + 2, q, ql);
    free(q);
    free(ql);
    if (!r)
        return c->rc = cli_conn_error(c->seed), -1;
    long long at = 0;
    *multi = r->type == REDIS_REPLY_ARRAY && r->elements > 1;
    if (r->type == REDIS_REPLY_ARRAY && r->elements && r->element[0]->type == REDIS_REPLY_STRING)
        for (int j = 1; j < argc && !at; j++)
            if (lens[j] == r->element[0]->len && !memcmp(argv[j], r->element[0]->str, lens[j]))
                at = j;
    freeReplyObject(r);
    return at;
}

/* The pipe where slot's unsettled multi-key command waits for its reply,
 * and in *n how many replies that pipe owes up to it; -1 when it is not
 * in flight (it waits to be sent again). */
static int multi_in_flight(const struct cli_cload *c, int slot, long long *n)
{
    for (int i = 0; i < c->npipes; i++) {
        const struct pipe *p = &c->pipes[i];
        for (long long k = 0; k < p->pending; k++) {
            const struct cmd *e = &p->ring[(p->head + k) % (2 * c->batch)];
            if (e->buf && e->multi && e->slot == slot) {
                *n = k + 1;
                return i;
            }
        }
    }
    return -1;
}

/* Waits until slot's multi-key command is settled: its reply read, and it
 * sent again as often as it is redirected or told to try again. Returns
 * c->rc. */
static int settle_slot(struct cli_cload *c, int slot)
{
    while (c->rc == CLI_OK && c->multi_open[slot]) {
        long long n = 0;
        int i = multi_in_flight(c, slot, &n);
        if (i >= 0)
            drain(c, i, n);
        else if (c->nresend)
            resend_all(c);
        else
            break; /* not found: it was dropped with the load's failure */
    }
    return c->rc;
}

int cli_cload_send(struct cli_cload *c, int argc, const char **argv, const size_t *lens,
                   unsigned long long at)
{
    int multi = 0;
    long long k = c->resp ? first_key(c, argc, argv, lens, &multi) : 1;

    if (k < 0)
        return c->rc;
    if (k == 0)
        return CLI_CLOAD_NO_KEY;
    struct cmd cmd = {.at = at, .slot = (int)key_hash_slot(argv[k], lens[k]), .multi = multi};
    if (settle_slot(c, cmd.slot) != CLI_OK)
        return c->rc;
    int len = redisFormatCommandArgv(&cmd.buf, argc, argv, lens);
    if (len < 0)
        return c->rc = oom();
    cmd.len = (size_t)len;
    c->multi_open[cmd.slot] = (unsigned char)multi;
    int held;
    if (route(c, cmd, &held) != CLI_OK)
        return c->rc;
    return c->nresend ? resend_all(c) : CLI_OK;
}

int cli_cload_finish(struct cli_cload *c)
{
    /* Reading a node's replies can send redirected commands to others:
     * until no node owes any. After an error reply the rest are read (and
     * only dropped), as load does on one server. */
    for (int busy = 1; busy;) {
        busy = 0;
        for (int i = 0; i < c->npipes; i++) {
            if (!c->pipes[i].pending)
                continue;
            busy = 1;
            drain(c, i, c->pipes[i].pending);
            if (c->rc != CLI_OK && c->rc != CLI_ERR_REPLY)
                return c->rc;
        }
        resend_all(c);
    }
    return c->rc;
}

int cli_cload_nodes(const struct cli_cload *c)
{
    return c->npipes;
}

int cli_cload_new(redisContext *seed, const struct cli_conn_opts *conn, const char *name,
                  int resp, long long batch, struct cli_cload **out)
{
    struct cli_cload *c = calloc(1, sizeof(*c));
    struct cli_node *nodes = NULL;
    int n = 0, rc;

    if (!c)
        return oom();
    c->seed = seed;
    c->conn = *conn;
    c->name = name;
    c->resp = resp;
    c->batch = batch;
    /* The primaries come deduplicated: node i gets pipe i. */
    rc = cli_cluster_primaries(seed, conn->socket ? "127.0.0.1" : conn->host, &nodes, &n, NULL, c->owner);
    for (int i = 0; rc == CLI_OK && i < n; i++)
        if (pipe_of(c, nodes[i].host, nodes[i].port) != i)
            rc = CLI_ERR_USAGE;
    free(nodes);
    if (rc != CLI_OK) {
        cli_cload_free(c);
        return rc;
    }
    *out = c;
    return CLI_OK;
}

void cli_cload_free(struct cli_cload *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->npipes; i++) {
        struct pipe *p = &c->pipes[i];
        for (long long k = 0; k < p->pending; k++)
            free(p->ring[(p->head + k) % (2 * c->batch)].buf);
        free(p->ring);
        redisFree(p->ctx);
    }
    free(c->pipes);
    for (size_t k = 0; k < c->nresend; k++)
        free(c->resend[k].c.buf);
    free(c->resend);
    free(c);
}
