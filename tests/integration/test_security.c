/*
 * test_security.c - end-to-end tests of the security defaults (issue #10):
 * protected mode, the start-up warning for a server listening beyond
 * loopback without a password, and rename-command.
 *
 * Protected mode can only be seen from a non-loopback address. The remote
 * test makes its own network namespace with such addresses on its loopback
 * device, so nothing it sends can leave this process's sandbox; where it
 * cannot (not root) it says so and, when it is the only test run, exits 77
 * so that CTest reports it skipped instead of passed. RBKV_SECURITY_PART
 * (set by tests/security.cmake) picks "local" or "remote" tests; unset, all run.
 *
 * AUTH itself is covered by test_connection.c (test_auth); here only its
 * interplay with protected mode.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* What a refused client reads before the server closes: the -DENIED prefix
 * and the ways out, as Redis 7 words them. */
#define DENIED_PATTERN                                                                            \
    "-DENIED rbkv is running in protected mode because protected mode is enabled and no "        \
    "password is set for the default user. In this mode connections are only accepted from "    \
    "the loopback interface. *'CONFIG SET protected-mode no'*'--protected-mode no'*"              \
    "(requirepass)*\r\n"

#define WARN_PROTECTED "WARNING: listening on 0.0.0.0 with no requirepass. Protected mode is on"
#define WARN_EXPOSED "with no requirepass and protected-mode no: this server is exposed"

static const char *server_path;
static int remote_skipped, local_ran;

/* ---- helpers ---- */

/* Whether the server's log so far contains text. */
static int log_has(const struct h_server *s, const char *text)
{
    static char buf[1 << 16];
    FILE *f = fopen(s->log_path, "r");
    size_t n = 0;
    if (f) {
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

/* Non-loopback addresses that exist only inside this process's own network
 * namespace (made by private_network): connecting to one arrives with it as
 * the peer, and the traffic never leaves the namespace. 198.18.0.0/15 is
 * the range reserved for network tests, fd00::/8 unique local. */
#define TEST_IP4 "198.18.0.1"
#define TEST_IP6 "fd00:7262:6b76::1"
static int have_network;

/* Enters a network namespace of our own (the servers started later inherit
 * it) with loopback up and TEST_IP4/TEST_IP6 on it. Needs root; returns 0,
 * or -1 after saying why. */
static int private_network(void)
{
    if (unshare(CLONE_NEWNET) < 0) {
        printf("cannot make a network namespace: %s (needs root)\n", strerror(errno));
        return -1;
    }
    if (system("ip link set lo up && ip addr add " TEST_IP4 "/32 dev lo && "
               "ip -6 addr add " TEST_IP6 "/128 dev lo") != 0) {
        printf("cannot set up the namespace's addresses with ip(8)\n");
        return -1;
    }
    have_network = 1;
    return 0;
}

/* The namespace's non-loopback address of that family, as text into ip;
 * 0, or -1 when there is none. */
static int own_address(int family, char *ip, size_t cap)
{
    if (!have_network)
        return -1;
    snprintf(ip, cap, "%s", family == AF_INET ? TEST_IP4 : TEST_IP6);
    return 0;
}

/* A raw connection to ip:port (the harness's own go to 127.0.0.1). */
static int raw_to(struct h_raw *r, const char *ip, int port)
{
    struct sockaddr_storage ss;
    socklen_t len;
    memset(r, 0, sizeof(*r));
    memset(&ss, 0, sizeof(ss));
    if (strchr(ip, ':')) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)port);
        inet_pton(AF_INET6, ip, &a->sin6_addr);
        len = sizeof(*a);
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t)port);
        inet_pton(AF_INET, ip, &a->sin_addr);
        len = sizeof(*a);
    }
    r->fd = socket(ss.ss_family, SOCK_STREAM, 0);
    if (r->fd >= 0 && connect(r->fd, (struct sockaddr *)&ss, len) == 0)
        return 0;
    CHECK(0, "raw connect to %s port %d: %s", ip, port, strerror(errno));
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    return -1;
}

/* A client from ip gets the DENIED text, unasked, then the server closes. */
static void expect_denied(const char *ip, int port)
{
    struct h_raw r;
    if (raw_to(&r, ip, port) < 0)
        return;
    if (RAW_EXPECT_MATCH(&r, DENIED_PATTERN))
        RAW_EXPECT_CLOSED(&r);
    h_raw_close(&r);
}

/* A client from ip is served: PING answers PONG, or NOAUTH with a password. */
static void expect_served(const char *ip, int port, const char *reply)
{
    struct h_raw r;
    if (raw_to(&r, ip, port) < 0)
        return;
    RAW_SEND(&r, "PING\r\n");
    h_raw_expect(__FILE__, __LINE__, &r, reply, strlen(reply), 0);
    h_raw_close(&r);
}

/* Whether an array reply of bulks holds name. */
static int array_has(const redisReply *r, const char *name)
{
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
        if (r->element[i]->type == REDIS_REPLY_STRING && !strcmp(r->element[i]->str, name))
            return 1;
    }
    return 0;
}

/* ---- protected mode, from loopback and the unix socket ---- */

static void test_protected_mode_local(void)
{
    struct h_server s;
    char sock[300];
    local_ran++;

    /* Listening everywhere without a password: loopback and the unix socket
     * are served, and the log says who is not. */
    redisContext *c = h_open(&s, H_FLAGS("--bind", "0.0.0.0", "--unixsocket", "sec.sock"));
    if (!c)
        return;
    EXPECT_STATUS(c, "PONG", "PING");
    EXPECT_REPLY(c, "['protected-mode', 'yes']", "CONFIG", "GET", "protected-mode");
    CHECK(h_info_ll(c, "stats", "rejected_connections") == 0, "no client was refused");
    redisFree(c);
    h_path_in(&s, "sec.sock", sock, sizeof(sock));
    c = redisConnectUnix(sock);
    CHECK(c && !c->err, "unix socket connect: %s", c ? c->errstr : "out of memory");
    if (c && !c->err)
        EXPECT_STATUS(c, "PONG", "PING");
    redisFree(c);
    CHECK(log_has(&s, WARN_PROTECTED), "the start-up warning about protected mode");
    h_stop(&s);

    /* The same with protected mode off: the warning says it is exposed. */
    if (h_start(&s, H_FLAGS("--bind", "0.0.0.0", "--protected-mode", "no")) < 0)
        return;
    CHECK(log_has(&s, WARN_EXPOSED), "the start-up warning about an exposed server");
    h_stop(&s);

    /* Loopback only, or a password: nothing to warn about. */
    if (h_start(&s, H_FLAGS("--bind", "127.0.0.1", "-::1")) < 0)
        return;
    CHECK(!log_has(&s, "WARNING: listening on"), "no warning when bound to loopback");
    h_stop(&s);
    if (h_start(&s, H_FLAGS("--bind", "0.0.0.0", "--requirepass", "s3cret")) < 0)
        return;
    CHECK(!log_has(&s, "WARNING: listening on"), "no warning with a password");
    h_stop(&s);
}

/* ---- protected mode, from this machine's non-loopback addresses ---- */

static void test_protected_mode_remote(void)
{
    struct h_server s;
    char ip[INET6_ADDRSTRLEN], ip6[INET6_ADDRSTRLEN];

    if (own_address(AF_INET, ip, sizeof(ip)) < 0) {
        printf("SKIP test_protected_mode_remote: no network namespace with a non-loopback "
               "address to connect from, so protected mode cannot be seen refusing a client\n");
        remote_skipped = 1;
        return;
    }
    printf("connecting from %s\n", ip);
    redisContext *c = h_open(&s, H_FLAGS("--bind", "0.0.0.0"));
    if (!c)
        return;
    expect_denied(ip, s.port);
    EXPECT_STATUS(c, "PONG", "PING"); /* loopback still served */
    CHECK(h_info_ll(c, "stats", "rejected_connections") == 1, "the refusal counts as rejected");

    /* At run time, both ways. */
    EXPECT_OK(c, "CONFIG", "SET", "protected-mode", "no");
    expect_served(ip, s.port, "+PONG\r\n");
    EXPECT_OK(c, "CONFIG", "SET", "protected-mode", "yes");
    expect_denied(ip, s.port);

    /* A password lifts it: the remote client is served, and must AUTH. */
    EXPECT_OK(c, "CONFIG", "SET", "requirepass", "s3cret");
    expect_served(ip, s.port, "-NOAUTH Authentication required.\r\n");
    struct h_raw r;
    if (raw_to(&r, ip, s.port) == 0) {
        RAW_SEND(&r, "AUTH s3cret\r\nPING\r\n");
        if (RAW_EXPECT(&r, "+OK\r\n"))
            RAW_EXPECT(&r, "+PONG\r\n");
        h_raw_close(&r);
    }
    EXPECT_OK(c, "AUTH", "s3cret");
    EXPECT_OK(c, "CONFIG", "SET", "requirepass", "");
    expect_denied(ip, s.port);
    h_close(&s, c);

    /* The same from the command line. */
    if (h_start(&s, H_FLAGS("--bind", "0.0.0.0", "--requirepass", "s3cret")) == 0) {
        expect_served(ip, s.port, "-NOAUTH Authentication required.\r\n");
        h_stop(&s);
    }
    /* How the container image runs it. */
    if (h_start(&s, H_FLAGS("--bind", "0.0.0.0", "--protected-mode", "no")) == 0) {
        expect_served(ip, s.port, "+PONG\r\n");
        h_stop(&s);
    }

    /* IPv6, where the machine has an address of its own. */
    if (own_address(AF_INET6, ip6, sizeof(ip6)) < 0) {
        printf("no non-loopback IPv6 address: IPv6 part not run\n");
        return;
    }
    printf("connecting from %s\n", ip6);
    if (h_start(&s, H_FLAGS("--bind", "0.0.0.0", "::")) < 0)
        return;
    expect_denied(ip6, s.port);
    expect_served("::1", s.port, "+PONG\r\n");
    h_stop(&s);
}

/* ---- rename-command ---- */

static void test_rename_command(void)
{
    struct h_server plain, s;
    local_ran++;

    redisContext *c = h_open(&plain, NULL);
    if (!c)
        return;
    long long builtin = H_INT_REPLY(c, "COMMAND", "COUNT");
    h_close(&plain, c);

    /* As flags, which Redis 7 also takes; files are test_config's. */
    c = h_open(&s, H_FLAGS("--rename-command", "CONFIG", "MyConfig", "--rename-command",
                           "FLUSHALL", ""));
    if (!c)
        return;
    char port[16];
    snprintf(port, sizeof(port), "%d", s.port);

    /* The new name works in any case; the old and the disabled ones are
     * unknown, with Redis's text. */
    EXPECT_ERR(c, "ERR unknown command 'CONFIG', with args beginning with: 'GET' 'port' ",
               "CONFIG", "GET", "port");
    EXPECT_ERR(c, "ERR unknown command 'FLUSHALL', with args beginning with: ", "FLUSHALL");
    EXPECT_ERR(c, "ERR unknown command 'flushall', with args beginning with: 'ASYNC' ",
               "flushall", "ASYNC");
    redisReply *r = H_CALL(c, "myconfig", "GET", "port");
    CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
              !strcmp(r->element[1]->str, port),
          "MYCONFIG GET port answers the port");
    freeReplyObject(r);
    EXPECT_OK(c, "SET", "k", "v");
    EXPECT_INT(c, 1, "DBSIZE");
    EXPECT_OK(c, "FLUSHDB"); /* only what was named */
    /* Errors name the command by its own name, as in Redis. */
    EXPECT_ERR(c, "ERR wrong number of arguments for 'config' command", "MYCONFIG");

    /* Not a setting: CONFIG SET refuses it and CONFIG GET does not know it. */
    EXPECT_ERR(c, "ERR Unknown option or number of arguments for CONFIG SET - 'rename-command'",
               "MYCONFIG", "SET", "rename-command", "GET X");
    EXPECT_REPLY(c, "[]", "MYCONFIG", "GET", "rename-command");

    /* COMMAND, as Redis 7: a renamed command is listed under its own name
     * (so a secret new name is never shown) and found by its new one; a
     * disabled one is gone from every form. */
    EXPECT_INT(c, builtin - 1, "COMMAND", "COUNT");
    r = H_CALL(c, "COMMAND", "LIST");
    /* Subcommands ("config|get") are listed too, as in Redis 7.0. */
    long long listed = 0;
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++)
        listed += strchr(r->element[i]->str, '|') == NULL;
    CHECK(r && r->type == REDIS_REPLY_ARRAY && listed == builtin - 1,
          "COMMAND LIST has COMMAND COUNT commands besides subcommands");
    CHECK(array_has(r, "config"), "COMMAND LIST lists config by its own name");
    CHECK(!array_has(r, "myconfig") && !array_has(r, "MyConfig"), "nor by its new name");
    CHECK(!array_has(r, "flushall"), "COMMAND LIST leaves out the disabled FLUSHALL");
    CHECK(array_has(r, "flushdb"), "COMMAND LIST still has FLUSHDB");
    freeReplyObject(r);
    r = H_CALL(c, "COMMAND");
    CHECK(r && r->type == REDIS_REPLY_ARRAY && (long long)r->elements == builtin - 1,
          "COMMAND has COMMAND COUNT entries");
    freeReplyObject(r);
    EXPECT_REPLY(c, "['flushdb']", "COMMAND", "LIST", "FILTERBY", "PATTERN", "flush*");
    EXPECT_MATCH(c, "[['config', :-2, *", "COMMAND", "INFO", "myconfig");
    EXPECT_REPLY(c, "[(nil), (nil)]", "COMMAND", "INFO", "config", "flushall");
    EXPECT_MATCH(c, "['config', *", "COMMAND", "DOCS", "MYCONFIG");
    EXPECT_REPLY(c, "[]", "COMMAND", "DOCS", "flushall", "config");
    EXPECT_ERR(c, "ERR Invalid command specified", "COMMAND", "GETKEYS", "FLUSHALL", "x");

    /* Stats under its own name, as Redis's cmdstat_config. */
    r = H_CALL(c, "INFO", "commandstats");
    CHECK(r && r->type == REDIS_REPLY_STRING && strstr(r->str, "cmdstat_config:calls=") &&
              !strstr(r->str, "cmdstat_myconfig") && !strstr(r->str, "cmdstat_flushall"),
          "INFO commandstats names config by its own name");
    freeReplyObject(r);

    /* In a transaction, the same names. */
    EXPECT_TRANSACTION(c, "[['maxmemory', '0']]", "MYCONFIG GET maxmemory");
    EXPECT_OK(c, "MULTI");
    EXPECT_ERR(c, "ERR unknown command 'FLUSHALL', with args beginning with: ", "FLUSHALL");
    EXPECT_ERR(c, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    h_close(&s, c);
}

/* A rename that cannot apply stops the start with Redis's reason. */
static void test_rename_refused(void)
{
    static const struct {
        const char *flags, *reason;
    } cases[] = {
        {"--rename-command nosuch x", "No such command in rename-command"},
        {"--rename-command get set", "Target command name already exists"},
        {"--rename-command get", "Bad directive or wrong number of arguments"},
    };
    local_ran++;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char cmd[512], out[4096];
        snprintf(cmd, sizeof(cmd), "'%s' --port 0 --unixsocket /nonexistent/x.sock %s 2>&1",
                 server_path, cases[i].flags);
        FILE *p = popen(cmd, "r");
        size_t n = p ? fread(out, 1, sizeof(out) - 1, p) : 0;
        int status = p ? pclose(p) : -1;
        out[n] = '\0';
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1, "%s: exit status 1 (got %d)",
              cases[i].flags, status);
        CHECK(strstr(out, cases[i].reason) != NULL, "%s: says '%s'; said:\n%s", cases[i].flags,
              cases[i].reason, out);
    }
}

int main(int argc, char **argv)
{
    const char *part = getenv("RBKV_SECURITY_PART");
    h_init(argc, argv);
    server_path = argv[1];
    if (!part || strcmp(part, "remote")) {
        H_RUN(test_protected_mode_local);
        H_RUN(test_rename_command);
        H_RUN(test_rename_refused);
    }
    if ((!part || strcmp(part, "local")) && private_network() == 0)
        H_RUN(test_protected_mode_remote);
    else if (!part || strcmp(part, "local"))
        remote_skipped = 1;
    int rc = h_finish();
    /* Only the remote test was to run, and it could not: CTest's
     * SKIP_RETURN_CODE shows that, where passing would hide it. */
    return rc == 0 && remote_skipped && !local_ran ? 77 : rc;
}
