/*
 * main.c - rbkv-cli's flags, usage and dispatch. Owns the parsed options
 * only; each mode lives in its own file (cli.h lists them).
 *
 * rbkv-cli [conn flags] CMD ARG...        plain mode, printed as redis-cli does
 * rbkv-cli -c ...                         cluster: redirects followed, and
 *                                         range, prefix, count, dump and load
 *                                         span every primary
 * rbkv-cli [conn flags] range|prefix|count|dump|load ...
 * rbkv-cli convert IN OUT                 no connection: rbkv-server converts
 * Connection flags come before the mode word, a mode's own flags after it.
 * The mode words are lower case only, so Redis's DUMP stays reachable as a
 * plain command by spelling it in upper case.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define DEFAULT_PAGE 1000
#define DEFAULT_BATCH 1000

static void usage(FILE *out)
{
    fputs("Usage: rbkv-cli [-h host] [-p port] [-s socket] [-a|--pass password] [-n db] [-c]\n"
          "                [--timeout seconds] [--tls [--cacert file] [--cacertdir dir]\n"
          "                [--cert file --key file] [--sni name] [--insecure]] MODE|CMD [ARG ...]\n"
          "  CMD [ARG ...]                 send one command, print the reply as redis-cli\n"
          "  range MIN MAX [opts]          keys from MIN to MAX (\"[k\" \"(k\" \"-\" \"+\")\n"
          "  prefix P [opts]               keys starting with P\n"
          "  count MIN MAX                 how many keys from MIN to MAX\n"
          "  dump [MIN MAX] [--format tsv|resp] [--page N]   keys and values, loadable\n"
          "  load FILE|- [--format tsv|resp] [--skip-bad] [--batch N]\n"
          "  convert IN OUT                a Redis RDB file into an rbkv snapshot, or back\n"
          "                                (runs rbkv-server --convert-rdb; no connection)\n"
          "range and prefix options: --rev --limit N --values --page N --progress\n"
          "                          --format plain|tsv|json|resp\n"
          "-c: cluster mode, as redis-cli -c: -MOVED and -ASK are followed; range, prefix,\n"
          "    count and dump read every primary's keys and merge them in order; load\n"
          "    sends each command to the primary of its key's slot.\n"
          "The password may also come from the RBKV_PASSWORD environment variable.\n"
          "Exit codes: 0 ok, 1 the server replied with an error, 2 usage, input or\n"
          "connection error.\n",
          out);
}

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fputs("rbkv-cli: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    usage(stderr);
    return CLI_ERR_USAGE;
}

/* A whole decimal in [min, max]. Returns 0, or -1. */
static int parse_ll(const char *s, long long min, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* Parses the connection flags, setting *first to the index of the mode
 * word. Returns CLI_OK, or an exit code (reported). */
static int parse_conn_flags(int argc, char **argv, struct cli_conn_opts *o, int *first)
{
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i += 2) {
        const char *f = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long n;
        if (!strcmp(f, "--help")) {
            usage(stdout);
            exit(CLI_OK);
        }
        /* The flags without a value: one step back, so the loop's two
         * steps land on the next flag. */
        if (!strcmp(f, "--tls") || !strcmp(f, "--insecure") || !strcmp(f, "-c")) {
            *(!strcmp(f, "--tls")        ? &o->tls.enabled
              : !strcmp(f, "--insecure") ? &o->tls.insecure
                                         : &o->cluster) = 1;
            i--;
            continue;
        }
        if (!v)
            return usage_error("%s needs a value", f);
        if (!strcmp(f, "-h")) {
            o->host = v;
        } else if (!strcmp(f, "-p")) {
            if (parse_ll(v, 0, 65535, &n) < 0)
                return usage_error("bad port '%s'", v);
            o->port = (int)n;
        } else if (!strcmp(f, "-s")) {
            o->socket = v;
        } else if (!strcmp(f, "-a") || !strcmp(f, "--pass")) {
            o->password = v;
        } else if (!strcmp(f, "-n")) {
            if (parse_ll(v, 0, 65535, &n) < 0)
                return usage_error("bad database '%s'", v);
            o->db = (int)n;
        } else if (!strcmp(f, "--cacert")) {
            o->tls.cacert = v;
        } else if (!strcmp(f, "--cacertdir")) {
            o->tls.cacertdir = v;
        } else if (!strcmp(f, "--cert")) {
            o->tls.cert = v;
        } else if (!strcmp(f, "--key")) {
            o->tls.key = v;
        } else if (!strcmp(f, "--sni")) {
            o->tls.sni = v;
        } else if (!strcmp(f, "--timeout")) {
            char *end;
            o->timeout_s = strtod(v, &end);
            if (*end || !(o->timeout_s > 0))
                return usage_error("bad timeout '%s'", v);
        } else {
            return usage_error("unknown flag '%s'", f);
        }
    }
    if (argc == 1) {
        /* A bare rbkv-cli asks what it does: the usage alone, no error
         * line, but still exit 2 so a script that lost its arguments
         * fails. */
        usage(stderr);
        return CLI_ERR_USAGE;
    }
    if (i == argc)
        return usage_error("no command");
    *first = i;
    return CLI_OK;
}

/* The flags of range, prefix, dump and load, and their other words. */
struct mode_args {
    struct cli_range_opts range;
    struct cli_writer w;
    struct cli_load_opts load;
    int format_set;
    int npos;
    char **pos;
};

/* Parses argv[first...] (after the mode word); allowed names the flags this
 * mode takes, as a space-separated list. Returns 0, or an exit code. */
static int parse_mode_args(int argc, char **argv, int first, const char *allowed,
                           struct mode_args *a)
{
    a->pos = argv + first;
    a->npos = 0;
    for (int i = first; i < argc; i++) {
        const char *f = argv[i];
        /* Bounds start with [ ( - or +, and "-" is stdin: only "--" words
         * are flags. */
        if (strncmp(f, "--", 2) != 0) {
            a->pos[a->npos++] = argv[i];
            continue;
        }
        const char *hit = strstr(allowed, f);
        size_t flen = strlen(f);
        if (!hit || (hit[flen] != ' ' && hit[flen] != '\0'))
            return usage_error("unknown flag '%s'", f);
        if (!strcmp(f, "--rev")) {
            a->range.rev = 1;
        } else if (!strcmp(f, "--values")) {
            a->range.values = 1;
        } else if (!strcmp(f, "--progress")) {
            a->range.progress = 1;
        } else if (!strcmp(f, "--skip-bad")) {
            a->load.skip_bad = 1;
        } else {
            const char *v = i + 1 < argc ? argv[++i] : NULL;
            if (!v)
                return usage_error("%s needs a value", f);
            if (!strcmp(f, "--format")) {
                if (cli_format_parse(v, &a->w.format) < 0)
                    return usage_error("unknown format '%s'", v);
                a->format_set = 1;
            } else if (!strcmp(f, "--limit")) {
                if (parse_ll(v, 0, LLONG_MAX, &a->range.limit) < 0)
                    return usage_error("bad limit '%s'", v);
            } else if (!strcmp(f, "--page")) {
                if (parse_ll(v, 1, LLONG_MAX, &a->range.page) < 0)
                    return usage_error("bad page size '%s'", v);
            } else if (parse_ll(v, 1, 1 << 20, &a->load.batch) < 0) { /* --batch, the one left */
                return usage_error("bad batch size '%s'", v);
            }
        }
    }
    return CLI_OK;
}

static int check_bounds(const char *min, const char *max)
{
    if (cli_bound_check(min) < 0)
        return usage_error("bad bound '%s': use [key, (key, - or +", min);
    if (cli_bound_check(max) < 0)
        return usage_error("bad bound '%s': use [key, (key, - or +", max);
    return CLI_OK;
}

/* Runs range, prefix, count, dump or load on the connection, with a as
 * main() checked it. Returns an exit code. */
static int run_mode(redisContext *ctx, const struct cli_conn_opts *conn, const char *mode,
                    struct mode_args *a)
{
    if (!strcmp(mode, "load"))
        return cli_load(ctx, &a->load);
    if (!strcmp(mode, "count") && conn->cluster) {
        int rc = cli_cluster_count(ctx, conn, a->range.min, a->range.max);
        if (rc != CLI_NOT_CLUSTER)
            return rc;
    }
    if (!strcmp(mode, "count")) {
        const char *argv[] = {"KCOUNT", a->range.min, a->range.max};
        redisReply *r = redisCommandArgv(ctx, 3, argv, NULL);
        int rc = CLI_OK;
        if (!r)
            return cli_conn_error(ctx);
        if (r->type == REDIS_REPLY_ERROR) {
            fprintf(stderr, "rbkv-cli: (error) %.*s\n", (int)r->len, r->str);
            rc = CLI_ERR_REPLY;
        } else {
            cli_print_reply(r);
        }
        freeReplyObject(r);
        return rc;
    }
    if (conn->cluster)
        return cli_cluster_range(ctx, conn, &a->range, &a->w);
    return cli_range(ctx, &a->range, &a->w);
}

/* Plain mode: one command, its reply on stdout, an error reply on stderr;
 * with -c, redirects followed (*ctx may change). */
static int run_plain(redisContext **ctx, struct cli_conn_opts *conn, int argc, char **argv)
{
    redisReply *r = NULL;
    int rc = CLI_OK;

    if (conn->cluster) {
        if ((rc = cli_cluster_command(ctx, conn, argc, (const char **)argv, &r)) != CLI_OK)
            return rc;
    } else if (!(r = redisCommandArgv(*ctx, argc, (const char **)argv, NULL))) {
        return cli_conn_error(*ctx);
    }
    if (r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "(error) %.*s\n", (int)r->len, r->str);
        rc = CLI_ERR_REPLY;
    } else {
        cli_print_reply(r);
    }
    freeReplyObject(r);
    return rc;
}

int main(int argc, char **argv)
{
    struct cli_conn_opts conn = {.host = "127.0.0.1", .port = 6379,
                                 .password = getenv("RBKV_PASSWORD"), .timeout_s = 10.0};
    struct mode_args a = {
        .range = {.min = "-", .max = "+", .limit = -1, .page = DEFAULT_PAGE},
        .w = {.format = FMT_PLAIN},
        .load = {.resp = -1, .batch = DEFAULT_BATCH},
    };
    char *bounds = NULL; /* prefix's bounds */
    redisContext *ctx;
    int first = 0, rc = parse_conn_flags(argc, argv, &conn, &first);

    if (rc != CLI_OK)
        return rc;
    const char *mode = argv[first];
    if (!strcmp(mode, "convert")) {
        if (argc - first - 1 != 2)
            return usage_error("%s: wrong number of arguments", mode);
        return run_convert(argv[first + 1], argv[first + 2]);
    }
    if (!strcmp(mode, "range") || !strcmp(mode, "prefix")) {
        int is_range = mode[0] == 'r';
        rc = parse_mode_args(argc, argv, first + 1,
                             "--rev --limit --values --format --page --progress", &a);
        if (rc)
            return rc;
        if (a.npos != (is_range ? 2 : 1))
            return usage_error("%s: wrong number of arguments", mode);
        if (is_range) {
            a.range.min = a.pos[0];
            a.range.max = a.pos[1];
            if ((rc = check_bounds(a.range.min, a.range.max)))
                return rc;
        } else {
            size_t plen = strlen(a.pos[0]);
            bounds = malloc(CLI_PREFIX_BOUNDS_SIZE(plen));
            if (!bounds)
                return usage_error("out of memory");
            cli_prefix_bounds(a.pos[0], plen, bounds, &a.range);
        }
        a.w.values = a.range.values;
    } else if (!strcmp(mode, "count")) {
        if (argc - first - 1 != 2)
            return usage_error("%s: wrong number of arguments", mode);
        a.range.min = argv[first + 1];
        a.range.max = argv[first + 2];
        if ((rc = check_bounds(a.range.min, a.range.max)))
            return rc;
    } else if (!strcmp(mode, "dump")) {
        if ((rc = parse_mode_args(argc, argv, first + 1, "--format --page --progress", &a)))
            return rc;
        if (a.npos != 0 && a.npos != 2)
            return usage_error("%s: wrong number of arguments", mode);
        if (a.npos) {
            a.range.min = a.pos[0];
            a.range.max = a.pos[1];
            if ((rc = check_bounds(a.range.min, a.range.max)))
                return rc;
        }
        if (!a.format_set)
            a.w.format = FMT_TSV;
        if (a.w.format != FMT_TSV && a.w.format != FMT_RESP)
            return usage_error("%s: dump writes tsv or resp", mode);
        a.range.values = a.w.values = a.w.as_set = a.range.dump = 1;
    } else if (!strcmp(mode, "load")) {
        if ((rc = parse_mode_args(argc, argv, first + 1, "--format --skip-bad --batch", &a)))
            return rc;
        if (a.npos != 1)
            return usage_error("%s: wrong number of arguments", mode);
        if (a.format_set && a.w.format != FMT_TSV && a.w.format != FMT_RESP)
            return usage_error("%s: load reads tsv or resp", mode);
        if (a.format_set)
            a.load.resp = a.w.format == FMT_RESP;
        a.load.path = a.pos[0];
        if (conn.cluster)
            a.load.cluster = &conn;
    } else {
        mode = NULL;
    }

    if ((rc = cli_connect(&conn, &ctx)) == CLI_OK) {
        rc = mode ? run_mode(ctx, &conn, mode, &a)
                  : run_plain(&ctx, &conn, argc - first, argv + first);
        redisFree(ctx);
    }
    cli_tls_wait();
    free(bounds);
    return rc;
}
