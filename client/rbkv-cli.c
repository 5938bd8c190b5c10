/*
 * rbkv-cli.c - command-line client for rbkv, on hiredis.
 *
 * Plain command mode: `rbkv-cli [flags] CMD ARG...` sends one command and
 * prints the reply the way redis-cli does when its output is not a terminal.
 * Exit codes: 0 ok, 1 the server replied with an error, 2 usage or
 * connection error. Errors go to stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>

struct options {
    const char *host;
    int port;
    const char *socket;
    const char *password;
    int db;
    double timeout_s;
};

static void usage(FILE *out)
{
    fprintf(out, "Usage: rbkv-cli [-h host] [-p port] [-s socket] [-a password] [-n db]\n"
                 "                [--timeout seconds] CMD [ARG ...]\n"
                 "The password may also come from the RBKV_PASSWORD environment variable.\n");
}

static int parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < 0 || v > 65535)
        return -1;
    *out = (int)v;
    return 0;
}

/* Parses flags; returns the index of the first command word, or -1. */
static int parse_flags(int argc, char **argv, struct options *o)
{
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i += 2) {
        const char *f = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(f, "--help")) {
            usage(stdout);
            exit(0);
        }
        if (!v) {
            fprintf(stderr, "rbkv-cli: %s needs a value\n", f);
            return -1;
        }
        if (!strcmp(f, "-h"))
            o->host = v;
        else if (!strcmp(f, "-p")) {
            if (parse_int(v, &o->port) < 0) {
                fprintf(stderr, "rbkv-cli: bad port '%s'\n", v);
                return -1;
            }
        } else if (!strcmp(f, "-s"))
            o->socket = v;
        else if (!strcmp(f, "-a") || !strcmp(f, "--pass"))
            o->password = v;
        else if (!strcmp(f, "-n")) {
            if (parse_int(v, &o->db) < 0) {
                fprintf(stderr, "rbkv-cli: bad database '%s'\n", v);
                return -1;
            }
        } else if (!strcmp(f, "--timeout")) {
            o->timeout_s = strtod(v, NULL);
            if (o->timeout_s <= 0) {
                fprintf(stderr, "rbkv-cli: bad timeout '%s'\n", v);
                return -1;
            }
        } else {
            fprintf(stderr, "rbkv-cli: unknown flag '%s'\n", f);
            return -1;
        }
    }
    return i < argc ? i : -1;
}

/* Prints a reply as redis-cli does in its non-terminal mode. */
static void print_reply(const redisReply *r)
{
    switch (r->type) {
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_STRING:
        fwrite(r->str, 1, r->len, stdout);
        putchar('\n');
        break;
    case REDIS_REPLY_ERROR:
        fprintf(stdout, "(error) %.*s\n", (int)r->len, r->str);
        break;
    case REDIS_REPLY_INTEGER:
        printf("%lld\n", r->integer);
        break;
    case REDIS_REPLY_NIL:
        putchar('\n');
        break;
    case REDIS_REPLY_ARRAY:
        for (size_t i = 0; i < r->elements; i++)
            print_reply(r->element[i]);
        break;
    }
}

static redisContext *connect_to(const struct options *o)
{
    struct timeval tv = {(time_t)o->timeout_s,
                         (suseconds_t)((o->timeout_s - (double)(time_t)o->timeout_s) * 1e6)};
    redisContext *ctx = o->socket ? redisConnectUnixWithTimeout(o->socket, tv)
                                  : redisConnectWithTimeout(o->host, o->port, tv);
    if (!ctx || ctx->err) {
        fprintf(stderr, "Could not connect to rbkv at %s:%d: %s\n", o->socket ? o->socket : o->host,
                o->socket ? 0 : o->port, ctx ? ctx->errstr : "out of memory");
        redisFree(ctx);
        return NULL;
    }
    redisSetTimeout(ctx, tv);
    return ctx;
}

/* Runs a setup command (AUTH, SELECT); returns 0 or prints the error. */
static int setup_command(redisContext *ctx, int argc, const char **argv)
{
    redisReply *r = redisCommandArgv(ctx, argc, argv, NULL);
    int rc = 0;
    if (!r) {
        fprintf(stderr, "rbkv-cli: %s\n", ctx->errstr);
        return 2;
    }
    if (r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "%s failed: %.*s\n", argv[0], (int)r->len, r->str);
        rc = 1;
    }
    freeReplyObject(r);
    return rc;
}

int main(int argc, char **argv)
{
    struct options o = {"127.0.0.1", 6379, NULL, getenv("RBKV_PASSWORD"), 0, 10.0};
    int first = parse_flags(argc, argv, &o);
    if (first < 0) {
        usage(stderr);
        return 2;
    }
    redisContext *ctx = connect_to(&o);
    if (!ctx)
        return 2;
    int rc = 0;
    if (o.password && o.password[0]) {
        const char *auth[] = {"AUTH", o.password};
        rc = setup_command(ctx, 2, auth);
    }
    if (rc == 0 && o.db) {
        char db[16];
        snprintf(db, sizeof(db), "%d", o.db);
        const char *sel[] = {"SELECT", db};
        rc = setup_command(ctx, 2, sel);
    }
    if (rc == 0) {
        redisReply *r = redisCommandArgv(ctx, argc - first, (const char **)(argv + first), NULL);
        if (!r) {
            fprintf(stderr, "rbkv-cli: %s\n", ctx->errstr);
            rc = 2;
        } else {
            if (r->type == REDIS_REPLY_ERROR) {
                fprintf(stderr, "(error) %.*s\n", (int)r->len, r->str);
                rc = 1;
            } else {
                print_reply(r);
            }
            freeReplyObject(r);
        }
    }
    redisFree(ctx);
    return rc;
}
