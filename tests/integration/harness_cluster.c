/*
 * harness_cluster.c - cluster-mode nodes for the end-to-end tests
 * (harness_cluster.h). Every wait is a poll with a deadline (h_wait_exit).
 */
#include "harness_cluster.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_WAIT_MS (30000 * H_SLOW)

static const char *timeout_text(int timeout_ms)
{
    static char text[16];
    snprintf(text, sizeof(text), "%d", timeout_ms * H_SLOW);
    return text;
}

int h_node_start(struct h_node *n, int redis, int timeout_ms)
{
    memset(n, 0, sizeof(*n));
    n->redis = redis;
    snprintf(n->bus_port, sizeof(n->bus_port), "%d", h_free_port());
    const char *const *flags =
        H_FLAGS("--cluster-enabled", "yes", "--cluster-port", n->bus_port,
                "--cluster-node-timeout", timeout_text(timeout_ms), "--appendonly", "no");
    /* rbkv's with a config file, which CONFIG REWRITE (and redis-cli
     * --cluster set-timeout) needs. */
    int rc = redis ? h_start_reference(&n->s, flags) : h_start_config(&n->s, "", flags);
    if (rc != 0)
        return rc;
    n->c = h_connect(&n->s);
    return n->c ? 0 : -1;
}

int h_node_restart(struct h_node *n, int timeout_ms)
{
    if (n->c)
        redisFree(n->c);
    n->c = NULL;
    snprintf(n->bus_port, sizeof(n->bus_port), "%d", h_free_port());
    if (h_restart(&n->s, H_FLAGS("--cluster-enabled", "yes", "--cluster-port", n->bus_port,
                                 "--cluster-node-timeout", timeout_text(timeout_ms),
                                 "--appendonly", "no")) != 0)
        return -1;
    n->c = h_connect(&n->s);
    return n->c ? 0 : -1;
}

void h_node_stop(struct h_node *n)
{
    if (n->c)
        redisFree(n->c);
    n->c = NULL;
    if (n->s.pid)
        h_stop(&n->s);
}

void h_node_kill(struct h_node *n)
{
    if (n->c)
        redisFree(n->c);
    n->c = NULL;
    kill(n->s.pid, SIGKILL);
    h_wait_exit(&n->s, EXIT_WAIT_MS);
}

redisReply *h_cluster_call(struct h_node *nodes, int n, redisContext *c, int argc,
                           const char *const *argv, const size_t *lens)
{
    redisReply *r = h_command(c, argc, argv, lens);
    for (int hops = 0; r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "MOVED ", 6) &&
                       hops < 2;
         hops++) {
        const char *colon = strrchr(r->str, ':');
        int port = colon ? atoi(colon + 1) : 0;
        redisContext *to = NULL;
        for (int i = 0; i < n && !to; i++)
            if (nodes[i].s.port == port)
                to = nodes[i].c;
        freeReplyObject(r);
        if (!to)
            return NULL;
        r = h_command(to, argc, argv, lens);
    }
    return r;
}

void h_call_text(redisContext *c, char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    out[0] = '\0';
    if (r && r->str)
        snprintf(out, cap, "%.*s", (int)r->len, r->str);
    if (r)
        freeReplyObject(r);
}

void h_node_id(struct h_node *n, char *id)
{
    h_call_text(n->c, id, 41, "CLUSTER MYID");
}

int h_cluster_ok(struct h_node *n)
{
    char info[4096];
    h_call_text(n->c, info, sizeof(info), "CLUSTER INFO");
    return strstr(info, "cluster_state:ok\r\n") != NULL;
}

int h_redis_cli(char *out, size_t cap, const char *fmt, ...)
{
    char cmd[1024];
    va_list ap;
    va_start(ap, fmt);
    int len = snprintf(cmd, sizeof(cmd), "redis-cli ");
    len += vsnprintf(cmd + len, sizeof(cmd) - (size_t)len, fmt, ap);
    va_end(ap);
    snprintf(cmd + len, sizeof(cmd) - (size_t)len, " </dev/null 2>&1");
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t got = fread(out, 1, cap - 1, p);
    out[got] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Starts redis-cli with args (words split at spaces) in the background,
 * its output into path. Its pid, or -1. */
pid_t h_redis_cli_spawn(const char *path, const char *args)
{
    char buf[1024];
    char *argv[64];
    int argc = 0;
    snprintf(buf, sizeof(buf), "%s", args);
    argv[argc++] = "redis-cli";
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && argc < 63;
         w = strtok_r(NULL, " ", &save))
        argv[argc++] = w;
    argv[argc] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = freopen(path, "w", stdout);
        if (!f || dup2(fileno(stdout), 2) < 0 || !freopen("/dev/null", "r", stdin))
            _exit(126);
        execvp("redis-cli", argv);
        _exit(127);
    }
    return pid;
}

int h_cluster_create(struct h_node *nodes, int n, int timeout_ms)
{
    return h_cluster_create_of(nodes, n, 0, timeout_ms);
}

int h_cluster_create_of(struct h_node *nodes, int n, int redis, int timeout_ms)
{
    char args[1024], out[16384];
    int len = snprintf(args, sizeof(args), "--cluster create");
    for (int i = 0; i < n; i++) {
        int started = h_node_start(&nodes[i], redis, timeout_ms);
        if (started == 1)
            return -1;
        if (started != 0)
            return CHECK(0, "node %d did not start", i);
        len += snprintf(args + len, sizeof(args) - (size_t)len, " 127.0.0.1:%d", nodes[i].s.port);
    }
    int rc = h_redis_cli(out, sizeof(out), "%s --cluster-yes", args);
    if (!CHECK(rc == 0, "create: %d %s", rc, out))
        return 0;
    int64_t deadline = h_now_ms() + EXIT_WAIT_MS;
    while (h_now_ms() < deadline) {
        int ok = 1;
        for (int i = 0; i < n && ok; i++)
            ok = h_cluster_ok(&nodes[i]);
        if (ok)
            return 1;
        h_sleep_ms(50);
    }
    return CHECK(0, "the cluster never reached cluster_state:ok");
}

void h_cluster_destroy(struct h_node *nodes, int n)
{
    for (int i = 0; i < n; i++) {
        if (nodes[i].c)
            redisFree(nodes[i].c);
        nodes[i].c = NULL;
        if (nodes[i].s.pid && h_stop(&nodes[i].s) == 0)
            h_clean_dir(&nodes[i].s);
    }
}

int h_cluster_model_up(struct h_node *nodes, int n, int timeout_ms, struct h_server *model,
                       redisContext **mc)
{
    if (!h_cluster_create(nodes, n, timeout_ms))
        return 0;
    if (h_start(model, NULL) != 0 || !(*mc = h_connect(model)))
        return CHECK(0, "the standalone node did not start");
    return 1;
}

void h_cluster_model_down(struct h_node *nodes, int n, struct h_server *model, redisContext **mc)
{
    h_cluster_destroy(nodes, n);
    if (*mc)
        redisFree(*mc);
    *mc = NULL;
    if (model->pid)
        h_stop(model);
}

uint64_t h_xorshift(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

int h_rand_below(uint64_t *state, int n)
{
    return (int)(h_xorshift(state) % (uint64_t)n);
}

void h_rand_word(uint64_t *state, const char *alphabet, int maxlen, char *out)
{
    int len = 1 + h_rand_below(state, maxlen);
    int n = (int)strlen(alphabet);
    for (int i = 0; i < len; i++)
        out[i] = alphabet[h_rand_below(state, n)];
    out[len] = '\0';
}
