/*
 * crange.c - range, prefix, count and dump with -c: every primary's keys,
 * merged on the client. Owns the streams (one connection per primary, its
 * page in hand, the page read ahead, its resume bound) for one run.
 *
 * The primaries come from CLUSTER SLOTS on the seed node. Each stream's
 * connection starts with KLOCAL, so its KRANGE answers with that node's
 * keys only (never a cluster-wide query, never -MOVED), then pages as
 * cli_range does: KRANGE lo hi BYLEX LIMIT 0 page, resuming at "(" + the
 * last key. The next page is asked for as soon as a page arrives, so each
 * node works while the client writes. Every page request is KLOCAL
 * (again) plus KRANGE pipelined: KLOCAL's reply, how many slots the node
 * imports, tells whether a migration ran.
 *
 * The merge takes the least head of the streams (the greatest with --rev;
 * keys compare as bytes), a linear scan over the k primaries per key, and
 * writes it once even when several streams hold it (a key a migration
 * copied to its new node before deleting it from the old one), so every
 * key that stays in the range and on its node is listed exactly once, in
 * order. A key that moves to another node while the run pages past it can
 * be missed (not a snapshot, as SCAN): so a run during which a node
 * imported a slot, or the slot map changed, ends with a warning and exit
 * code 1, having written what it read.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct stream {
    struct cli_node node;
    char name[sizeof(((struct cli_node *)0)->host) + 8]; /* "host:port", for messages */
    redisContext *ctx;
    redisReply *page; /* the page in hand, at its entry at */
    size_t at;
    int last;         /* the page in hand is the node's last */
    int pending;      /* the next page is asked for, not read */
    redisReply *next; /* the next page, read ahead of its turn (dump) */
    char *resume;     /* its bound, "(" + the last key of the page in hand */
    size_t resume_cap, resume_len;
};

struct merge {
    const struct cli_range_opts *o;
    size_t step;
    char count[24]; /* keys per page */
    long long want;
    int pages; /* 0: count, which reads no page */
    int n;
    struct stream *s;
    long long imported; /* the most slots a node said it imports */
};

/* Sends what s's connection holds: hiredis sends appended commands only
 * when a reply is read, which would leave the node idle until its turn. */
static int flush(struct stream *s)
{
    int done = 0;

    while (!done)
        if (redisBufferWrite(s->ctx, &done) != REDIS_OK)
            return cli_conn_error(s->ctx);
    return CLI_OK;
}

/* Sends KLOCAL and s's next KRANGE page, whose replies are read later. */
static int ask_page(struct merge *m, struct stream *s)
{
    const struct cli_range_opts *o = m->o;
    const char *lo = o->min, *hi = o->max;
    size_t lo_len = strlen(lo), hi_len = strlen(hi);
    const char *argv[CLI_RANGE_MAX_ARGS];
    size_t lens[CLI_RANGE_MAX_ARGS];

    if (s->resume && o->rev) {
        hi = s->resume;
        hi_len = s->resume_len;
    } else if (s->resume) {
        lo = s->resume;
        lo_len = s->resume_len;
    }
    int argc = cli_range_page_argv(o, lo, lo_len, hi, hi_len, m->count, argv, lens);
    if (redisAppendCommand(s->ctx, "KLOCAL") != REDIS_OK ||
        redisAppendCommandArgv(s->ctx, argc, argv, lens) != REDIS_OK)
        return cli_conn_error(s->ctx);
    s->pending = 1;
    return flush(s);
}

/* KLOCAL's reply: how many slots the node imports. */
static int read_klocal(struct merge *m, struct stream *s)
{
    redisReply *r;

    if (redisGetReply(s->ctx, (void **)&r) != REDIS_OK)
        return cli_conn_error(s->ctx);
    int ok = r->type == REDIS_REPLY_INTEGER;
    if (ok && r->integer > m->imported)
        m->imported = r->integer;
    if (!ok)
        fprintf(stderr, "rbkv-cli: %s: KLOCAL: %s%.*s\n", s->name,
                r->type == REDIS_REPLY_ERROR ? "(error) " : "unexpected reply",
                r->type == REDIS_REPLY_ERROR ? (int)r->len : 0, r->str ? r->str : "");
    freeReplyObject(r);
    return ok ? CLI_OK : CLI_ERR_REPLY;
}

/* Reads the reply to the page asked for into s->next. */
static int receive(struct merge *m, struct stream *s)
{
    redisReply *r;
    int rc;

    if (!s->pending)
        return CLI_OK;
    if ((rc = read_klocal(m, s)) != CLI_OK)
        return rc;
    s->pending = 0;
    if (redisGetReply(s->ctx, (void **)&r) != REDIS_OK)
        return cli_conn_error(s->ctx);
    if ((rc = cli_range_page_check(r, m->step, s->name)) != CLI_OK) {
        freeReplyObject(r);
        return rc;
    }
    s->next = r;
    return CLI_OK;
}

/* Makes the page asked for the one in hand (the one before is done), and
 * asks for the next one unless it is the last. */
static int take_page(struct merge *m, struct stream *s)
{
    int rc = receive(m, s);

    if (rc != CLI_OK)
        return rc;
    freeReplyObject(s->page);
    s->page = s->next;
    s->next = NULL;
    s->at = 0;
    s->last = s->page->elements / m->step < (size_t)m->want;
    if (s->last)
        return CLI_OK;
    const redisReply *k = s->page->element[s->page->elements - m->step];
    if (cli_range_resume(&s->resume, &s->resume_cap, &s->resume_len, k->str, k->len) < 0)
        return CLI_ERR_USAGE;
    return ask_page(m, s);
}

/* The stream's head key, or NULL when it has no more. */
static const redisReply *head(const struct stream *s)
{
    return s->page && s->at < s->page->elements ? s->page->element[s->at] : NULL;
}

/* Moves s past its head, reading its next page when the one in hand ends. */
static int advance(struct merge *m, struct stream *s)
{
    s->at += m->step;
    if (s->at < s->page->elements || s->last)
        return CLI_OK;
    return take_page(m, s);
}

/* Keys as bytes, a shorter key first when one is the other's prefix. */
static int key_cmp(const redisReply *a, const redisReply *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->str, b->str, n);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* A reply that must be an integer (KCOUNT's), added to *sum; -1 for any
 * other reply. */
static int read_count(struct stream *s, long long *sum)
{
    redisReply *r;

    if (redisGetReply(s->ctx, (void **)&r) != REDIS_OK)
        return cli_conn_error(s->ctx);
    int ok = r->type == REDIS_REPLY_INTEGER;
    if (ok)
        *sum += r->integer;
    else if (r->type == REDIS_REPLY_ERROR)
        fprintf(stderr, "rbkv-cli: %s: (error) %.*s\n", s->name, (int)r->len, r->str);
    else
        fprintf(stderr, "rbkv-cli: %s: unexpected reply to KCOUNT\n", s->name);
    freeReplyObject(r);
    return ok ? CLI_OK : CLI_ERR_REPLY;
}

/* Opens a stream (m->s, allocated here) on each primary: KLOCAL, KCOUNT min max (summed into
 * *total, unless total is NULL) and the first page. */
static int open_streams(struct merge *m, const struct cli_conn_opts *conn,
                        const struct cli_node *nodes, long long *total)
{
    const char *count[] = {"KCOUNT", m->o->min, m->o->max};

    m->s = calloc((size_t)m->n, sizeof(*m->s));
    if (!m->s) {
        fputs("rbkv-cli: out of memory\n", stderr);
        return CLI_ERR_USAGE;
    }
    for (int i = 0; i < m->n; i++) {
        struct stream *s = &m->s[i];
        struct cli_conn_opts c = *conn;
        s->node = nodes[i];
        snprintf(s->name, sizeof(s->name), "%s:%d", s->node.host, s->node.port);
        c.host = s->node.host;
        c.port = s->node.port;
        c.socket = NULL;
        int rc = cli_connect(&c, &s->ctx);
        if (rc != CLI_OK)
            return rc;
        if (redisAppendCommand(s->ctx, "KLOCAL") != REDIS_OK ||
            redisAppendCommandArgv(s->ctx, 3, count, NULL) != REDIS_OK)
            return cli_conn_error(s->ctx);
        if ((rc = m->pages ? ask_page(m, s) : flush(s)) != CLI_OK)
            return rc;
    }
    for (int i = 0; i < m->n; i++) {
        struct stream *s = &m->s[i];
        int rc = read_klocal(m, s);
        if (rc == CLI_OK)
            rc = read_count(s, total);
        if (rc == CLI_OK && s->pending)
            rc = take_page(m, s);
        if (rc != CLI_OK)
            return rc;
    }
    return CLI_OK;
}

/* Frees the streams. */
static void close_streams(struct merge *m)
{
    for (int i = 0; m->s && i < m->n; i++) {
        struct stream *s = &m->s[i];
        if (s->ctx)
            redisFree(s->ctx);
        freeReplyObject(s->page);
        freeReplyObject(s->next);
        free(s->resume);
    }
    free(m->s);
}

static void draw(struct cli_progress *p, int final, unsigned long long listed, long long total,
                 int nodes)
{
    double pct = total > 0 ? 100.0 * (double)listed / (double)total : 100.0;
    cli_progress_draw(p, final, "%llu of %lld keys  %3.0f%%  %.0f keys/s  %d nodes", listed, total,
                      pct, cli_progress_rate(p, listed), nodes);
}

/* Merges the streams through w, listing at most left keys (negative: all).
 * Returns an exit code. */
static int merge_run(struct merge *m, struct cli_writer *w, unsigned long long *skipped,
                     unsigned long long *listed, struct cli_progress *p, long long total)
{
    const struct cli_range_opts *o = m->o;
    long long left = o->limit;
    int *eq = calloc((size_t)m->n, sizeof(*eq));
    int rc = CLI_OK;

    if (!eq) {
        fputs("rbkv-cli: out of memory\n", stderr);
        return CLI_ERR_USAGE;
    }
    while (rc == CLI_OK && left != 0) {
        int best = -1;
        for (int i = 0; i < m->n; i++) {
            const redisReply *k = head(&m->s[i]);
            if (!k)
                continue;
            int c = best < 0 ? 0 : key_cmp(k, head(&m->s[best]));
            if (best < 0 || (o->rev ? c > 0 : c < 0))
                best = i;
        }
        if (best < 0)
            break;
        struct stream *b = &m->s[best];
        const redisReply *k = head(b);
        /* dump reads a value of another type through the stream's
         * connection, which must owe no reply first. */
        if (o->dump && (rc = receive(m, b)) != CLI_OK)
            break;
        rc = cli_range_emit(b->ctx, o, w, k, o->values ? b->page->element[b->at + 1] : NULL,
                            skipped);
        for (int i = 0; i < m->n; i++) {
            const redisReply *h = head(&m->s[i]);
            eq[i] = h && key_cmp(h, k) == 0;
        }
        /* k is b's page's: b moves last. */
        for (int i = 0; i < m->n && rc == CLI_OK; i++)
            if (eq[i] && i != best)
                rc = advance(m, &m->s[i]);
        if (rc == CLI_OK)
            rc = advance(m, b);
        (*listed)++;
        if (left > 0)
            left--;
        draw(p, 0, *listed, total, m->n);
    }
    free(eq);
    return rc;
}

/* The primaries and the slot map from the seed; CLI_NOT_CLUSTER for a
 * node not in cluster mode. */
static int cluster_nodes(redisContext *ctx, const struct cli_conn_opts *conn,
                         struct cli_node **nodes, int *n, char **map)
{
    return cli_cluster_primaries(ctx, conn->socket ? "127.0.0.1" : conn->host, nodes, n, map, NULL);
}

/* After the run: whether a node imported a slot or the map changed, which
 * may have made it miss keys that moved. Returns rc, or CLI_ERR_REPLY
 * after the warning. */
static int check_moved(struct merge *m, redisContext *ctx, const struct cli_conn_opts *conn,
                       const char *map_before, int rc)
{
    struct cli_node *nodes = NULL;
    char *map_after = NULL;
    int n = 0;

    /* Each node's imports now, for a migration begun after its last page
     * (a page still owed, after --limit, is read first). */
    for (int i = 0; i < m->n && rc == CLI_OK; i++) {
        struct stream *s = &m->s[i];
        if ((rc = receive(m, s)) == CLI_OK && redisAppendCommand(s->ctx, "KLOCAL") != REDIS_OK)
            rc = cli_conn_error(s->ctx);
        if (rc == CLI_OK)
            rc = read_klocal(m, s);
    }
    if (rc != CLI_OK)
        return rc;
    rc = cluster_nodes(ctx, conn, &nodes, &n, &map_after);
    free(nodes);
    if (rc == CLI_OK && (m->imported || strcmp(map_before, map_after) != 0)) {
        fprintf(stderr, "rbkv-cli: slots moved while the keys were read (%s): a key that moved "
                        "during the run may be missing; run it again once they stay\n",
                m->imported ? "a node was importing a slot" : "the slot map changed");
        rc = CLI_ERR_REPLY;
    }
    free(map_after);
    return rc;
}

int cli_cluster_range(redisContext *ctx, const struct cli_conn_opts *conn,
                      const struct cli_range_opts *o, struct cli_writer *w)
{
    struct merge m = {.o = o, .step = o->values ? 2 : 1, .pages = 1};
    struct cli_node *nodes = NULL;
    char *map = NULL;
    unsigned long long skipped = 0, listed = 0;
    long long total = 0;
    struct cli_progress p;
    int rc = cluster_nodes(ctx, conn, &nodes, &m.n, &map);

    if (rc == CLI_NOT_CLUSTER)
        return cli_range(ctx, o, w);
    if (rc != CLI_OK)
        return rc;
    m.want = o->limit >= 0 && o->limit < o->page ? o->limit : o->page;
    if (m.want == 0) /* --limit 0: nothing to ask for */
        m.want = 1;
    snprintf(m.count, sizeof(m.count), "%lld", m.want);
    cli_progress_init(&p, cli_range_progress_mode(o));
    cli_writer_begin(w);
    rc = open_streams(&m, conn, nodes, &total);
    if (o->limit >= 0 && o->limit < total)
        total = o->limit;
    if (rc == CLI_OK)
        rc = merge_run(&m, w, &skipped, &listed, &p, total);
    if (rc == CLI_OK) {
        draw(&p, 1, listed, total, m.n);
        rc = check_moved(&m, ctx, conn, map, rc);
    }
    close_streams(&m);
    free(nodes);
    free(map);
    return cli_range_end(w, skipped, rc);
}

int cli_cluster_count(redisContext *ctx, const struct cli_conn_opts *conn, const char *min,
                      const char *max)
{
    struct cli_range_opts o = {.min = min, .max = max};
    struct merge m = {.o = &o, .step = 1};
    struct cli_node *nodes = NULL;
    char *map = NULL;
    long long total = 0;
    int rc = cluster_nodes(ctx, conn, &nodes, &m.n, &map);

    if (rc != CLI_OK)
        return rc;
    rc = open_streams(&m, conn, nodes, &total);
    if (rc == CLI_OK) {
        printf("%lld\n", total);
        rc = check_moved(&m, ctx, conn, map, rc);
    }
    close_streams(&m);
    free(nodes);
    free(map);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("rbkv-cli: stdout");
        return rc ? rc : CLI_ERR_USAGE;
    }
    return rc;
}
