/*
 * conn.c - opening rbkv-cli's one connection: connect with a timeout (TCP
 * or unix socket, or TLS through tls.c), AUTH, SELECT. Owns nothing after returning: the caller
 * owns the context.
 */
#include <stdio.h>
#include <sys/time.h>

#include "cli.h"

int cli_conn_error(const redisContext *ctx)
{
    fprintf(stderr, "rbkv-cli: connection error: %s\n", ctx->errstr[0] ? ctx->errstr : "closed");
    return CLI_ERR_USAGE;
}

/* Runs AUTH or SELECT. Returns an exit code, having printed any error. */
static int setup_command(redisContext *ctx, int argc, const char **argv)
{
    redisReply *r = redisCommandArgv(ctx, argc, argv, NULL);
    int rc = CLI_OK;

    if (!r)
        return cli_conn_error(ctx);
    if (r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "rbkv-cli: %s failed: %.*s\n", argv[0], (int)r->len, r->str);
        rc = CLI_ERR_REPLY;
    }
    freeReplyObject(r);
    return rc;
}

int cli_connect(const struct cli_conn_opts *o, redisContext **out)
{
    struct timeval tv = {(time_t)o->timeout_s,
                         (suseconds_t)((o->timeout_s - (double)(time_t)o->timeout_s) * 1e6)};
    redisContext *ctx;
    int rc = CLI_OK;

    *out = NULL;
    if (o->tls.enabled && !o->socket) {
        char err[256];
        int fd = cli_tls_connect(o, &tv, err, sizeof(err));
        if (fd < 0) {
            fprintf(stderr, "rbkv-cli: could not connect to %s:%d over TLS: %s\n", o->host, o->port,
                    err);
            return CLI_ERR_USAGE;
        }
        ctx = redisConnectFd(fd);
    } else {
        ctx = o->socket ? redisConnectUnixWithTimeout(o->socket, tv)
                        : redisConnectWithTimeout(o->host, o->port, tv);
    }
    if (!ctx || ctx->err) {
        if (o->socket)
            fprintf(stderr, "rbkv-cli: could not connect to %s: %s\n", o->socket,
                    ctx ? ctx->errstr : "out of memory");
        else
            fprintf(stderr, "rbkv-cli: could not connect to %s:%d: %s\n", o->host, o->port,
                    ctx ? ctx->errstr : "out of memory");
        redisFree(ctx);
        return CLI_ERR_USAGE;
    }
    /* The timeout also bounds every reply's wait, so a stuck server ends the
     * run instead of hanging a script. */
    redisSetTimeout(ctx, tv);
    if (o->password && o->password[0]) {
        const char *auth[] = {"AUTH", o->password};
        rc = setup_command(ctx, 2, auth);
    }
    if (rc == CLI_OK && o->db) {
        char db[16];
        snprintf(db, sizeof(db), "%d", o->db);
        const char *sel[] = {"SELECT", db};
        rc = setup_command(ctx, 2, sel);
    }
    if (rc != CLI_OK) {
        redisFree(ctx);
        return rc;
    }
    *out = ctx;
    return CLI_OK;
}
