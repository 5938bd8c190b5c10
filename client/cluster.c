/*
 * cluster.c - rbkv-cli's cluster awareness (-c): following -MOVED and -ASK
 * as redis-cli -c does, and reading a cluster's primaries from CLUSTER
 * SLOTS. Owns the redirect target's host string while it is followed, and
 * the node list it returns (then the caller's).
 *
 * A redirect is "MOVED slot host:port" or "ASK slot host:port"; the host
 * may be empty (cluster-preferred-endpoint-type unknown-endpoint), which
 * means the node already connected to, as redis-cli reads it. redis-cli
 * prints "-> Redirected to slot [N] located at host:port" at its prompt
 * only; rbkv-cli has no prompt, so it prints the line when stdout is a
 * terminal and never into a pipe, where the output stays redis-cli -c's.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_parse_redirect(const redisReply *r, int *slot, char *host, size_t cap, int *port)
{
    int ask;

    if (r->type != REDIS_REPLY_ERROR)
        return -1;
    if (!strncmp(r->str, "MOVED ", 6))
        ask = 0;
    else if (!strncmp(r->str, "ASK ", 4))
        ask = 1;
    else
        return -1;
    const char *sp = strchr(r->str, ' ');
    char *end;
    long s = strtol(sp + 1, &end, 10);
    if (end == sp + 1 || *end != ' ' || s < 0 || s > 16383)
        return -1;
    const char *h = end + 1;
    const char *colon = strrchr(h, ':');
    if (!colon)
        return -1;
    long p = strtol(colon + 1, &end, 10);
    size_t len = (size_t)(colon - h);
    if (*end || end == colon + 1 || p <= 0 || p > 65535 || len >= cap)
        return -1;
    memcpy(host, h, len);
    host[len] = '\0';
    *slot = (int)s;
    *port = (int)p;
    return ask;
}

int cli_cluster_command(redisContext **ctx, struct cli_conn_opts *o, int argc, const char **argv,
                        redisReply **out)
{
    static char host[256]; /* the host o points to after a redirect */
    int asking = 0;

    for (int hops = 0;; hops++) {
        if (asking) {
            redisReply *a = redisCommand(*ctx, "ASKING");
            if (!a)
                return cli_conn_error(*ctx);
            freeReplyObject(a);
        }
        redisReply *r = redisCommandArgv(*ctx, argc, argv, NULL);
        if (!r)
            return cli_conn_error(*ctx);
        int slot, port;
        char to[sizeof(host)];
        asking = cli_parse_redirect(r, &slot, to, sizeof(to), &port);
        if (asking < 0) {
            *out = r;
            return CLI_OK;
        }
        if (hops == CLI_MAX_REDIRECTS) {
            fprintf(stderr, "rbkv-cli: too many redirects (%d), the last: %s\n",
                    CLI_MAX_REDIRECTS, r->str);
            freeReplyObject(r);
            return CLI_ERR_REPLY;
        }
        freeReplyObject(r);
        if (to[0]) {
            memcpy(host, to, sizeof(host));
            o->host = host;
        }
        o->port = port;
        o->socket = NULL; /* the node named is a TCP address */
        if (isatty(STDOUT_FILENO))
            printf("-> Redirected to slot [%d] located at %s:%d\n", slot, o->host, o->port);
        redisFree(*ctx);
        *ctx = NULL;
        int rc = cli_connect(o, ctx);
        if (rc != CLI_OK)
            return rc;
    }
}

/* A CLUSTER SLOTS entry's primary: [host, port, ...]. */
static int slot_primary(const redisReply *e, long long *start, long long *end,
                        const redisReply **host, long long *port)
{
    if (e->type != REDIS_REPLY_ARRAY || e->elements < 3 ||
        e->element[0]->type != REDIS_REPLY_INTEGER || e->element[1]->type != REDIS_REPLY_INTEGER)
        return -1;
    const redisReply *p = e->element[2];
    if (p->type != REDIS_REPLY_ARRAY || p->elements < 2 ||
        p->element[1]->type != REDIS_REPLY_INTEGER ||
        (p->element[0]->type != REDIS_REPLY_STRING && p->element[0]->type != REDIS_REPLY_NIL))
        return -1;
    *start = e->element[0]->integer;
    *end = e->element[1]->integer;
    *host = p->element[0];
    *port = p->element[1]->integer;
    return *start >= 0 && *start <= *end && *end <= 16383 && *port > 0 && *port <= 65535 ? 0 : -1;
}

int cli_cluster_primaries(redisContext *ctx, const char *seed_host, struct cli_node **nodes,
                          int *n, char **map, short *owner)
{
    redisReply *r = redisCommand(ctx, "CLUSTER SLOTS");
    struct cli_node *list = NULL;
    char *text = NULL;
    size_t text_len = 0;
    int count = 0, rc = CLI_OK;

    if (!r)
        return cli_conn_error(ctx);
    if (r->type == REDIS_REPLY_ERROR) {
        /* Redis's text; -c against one node is plain mode with no redirect. */
        rc = strstr(r->str, "cluster support disabled") ? CLI_NOT_CLUSTER : CLI_ERR_REPLY;
        if (rc == CLI_ERR_REPLY)
            fprintf(stderr, "rbkv-cli: CLUSTER SLOTS: (error) %s\n", r->str);
        freeReplyObject(r);
        return rc;
    }
    if (r->type != REDIS_REPLY_ARRAY || !r->elements) {
        fprintf(stderr, "rbkv-cli: CLUSTER SLOTS: %s\n",
                r->type == REDIS_REPLY_ARRAY ? "no slot is served" : "unexpected reply");
        freeReplyObject(r);
        return CLI_ERR_REPLY;
    }
    for (int s = 0; owner && s < CLI_SLOTS; s++)
        owner[s] = -1;
    list = calloc(r->elements, sizeof(*list));
    /* A line per entry: 2 numbers, a host and a port. */
    size_t text_cap = r->elements * (sizeof(list->host) + 64) + 1;
    text = malloc(text_cap);
    if (!list || !text) {
        fputs("rbkv-cli: out of memory\n", stderr);
        rc = CLI_ERR_USAGE;
    }
    for (size_t i = 0; rc == CLI_OK && i < r->elements; i++) {
        long long start, end, port;
        const redisReply *h;
        /* A host is a name or an address: one with a NUL byte is no host. */
        if (slot_primary(r->element[i], &start, &end, &h, &port) < 0 ||
            (h->type == REDIS_REPLY_STRING &&
             (h->len >= sizeof(list->host) || memchr(h->str, '\0', h->len)))) {
            fputs("rbkv-cli: CLUSTER SLOTS: unexpected reply\n", stderr);
            rc = CLI_ERR_REPLY;
            break;
        }
        struct cli_node node = {.port = (int)port};
        if (h->type == REDIS_REPLY_NIL || !h->len || !strcmp(h->str, "?"))
            snprintf(node.host, sizeof(node.host), "%s", seed_host);
        else
            memcpy(node.host, h->str, h->len + 1);
        text_len += (size_t)snprintf(text + text_len, text_cap - text_len, "%lld-%lld %s:%d\n",
                                     start, end, node.host, node.port);
        int j = 0;
        while (j < count && (list[j].port != node.port || strcmp(list[j].host, node.host)))
            j++;
        if (j == count)
            list[count++] = node;
        for (long long s = start; owner && s <= end; s++)
            owner[s] = (short)j;
    }
    freeReplyObject(r);
    if (rc != CLI_OK) {
        free(list);
        free(text);
        return rc;
    }
    *nodes = list;
    *n = count;
    if (map)
        *map = text;
    else
        free(text);
    return CLI_OK;
}
