/*
 * test_connection.c - end-to-end tests of the connection layer: PING, ECHO,
 * QUIT, SELECT, HELLO, AUTH, CLIENT, command dispatch errors, pipelining,
 * inline commands, protocol errors, maxclients (and the fd limit it needs),
 * idle timeout, big values, output buffer limits, SHUTDOWN and SIGTERM.
 *
 * Every expected reply is Redis 7's, byte for byte. Most tests share one
 * server; a test that needs its own flags starts its own.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "harness.h"

#define PIPELINE_REQUESTS 1000
#define YIELD_CONNS 4                       /* flooding connections kept, and as many killed */
#define YIELD_PINGS 4000                    /* 24 kB of inline PINGs: more than one 16 kB read */
#define INLINE_MAX (64 * 1024)              /* Redis's PROTO_INLINE_MAX_SIZE */
#define BIG_VALUE (50 * 1024 * 1024)
#define OUTPUT_VALUE (1024 * 1024)
#define OUTPUT_GETS 500
#define ERROR_ARG_SHOWN 128                 /* bytes of arguments in "unknown command" */

static struct h_server srv; /* the shared server, default flags */
static struct h_server ref; /* redis-server beside it, when have_ref */
static int have_ref;

static long long client_id(redisContext *c)
{
    redisReply *r = H_CALL(c, "CLIENT", "ID");
    long long id = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
    CHECK(id > 0, "CLIENT ID: expected a positive integer");
    freeReplyObject(r);
    return id;
}

/* Copies a field ("addr", "name", ...) of this connection's CLIENT INFO line. */
static int client_field(redisContext *c, const char *field, char *out, size_t cap)
{
    redisReply *r = H_CALL(c, "CLIENT", "INFO");
    int rc = -1;
    char key[64];
    snprintf(key, sizeof(key), " %s=", field);
    if (r && r->type == REDIS_REPLY_STRING) {
        char *line = malloc(r->len + 2);
        line[0] = ' ';
        memcpy(line + 1, r->str, r->len);
        line[r->len + 1] = '\0';
        char *p = strstr(line, key);
        if (p) {
            p += strlen(key);
            size_t n = strcspn(p, " \n");
            snprintf(out, cap, "%.*s", (int)n, p);
            rc = 0;
        }
        free(line);
    }
    freeReplyObject(r);
    CHECK(rc == 0, "CLIENT INFO has no %s field", field);
    return rc;
}

/* Polls INFO clients until connected_clients is n: the server learns of a
 * client's close asynchronously. Returns 1 when it got there. */
static int wait_connected(redisContext *c, long n)
{
    return h_wait_clients(c, n, 5000 * H_SLOW) || CHECK(0, "connected_clients never became %ld", n);
}

static void test_ping_echo(void)
{
    redisContext *c = h_connect(&srv);
    EXPECT_STATUS(c, "PONG", "PING");
    EXPECT_STATUS(c, "PONG", "pInG");
    EXPECT_BULK(c, "hello world", "PING", "hello world");
    EXPECT_BULK(c, "", "PING", "");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'ping' command", "PING", "a", "b");
    EXPECT_BULK(c, "x", "ECHO", "x");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'echo' command", "ECHO");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'echo' command", "ECHO", "a", "b");
    EXPECT_BIN(c, "'a\\x00b\\r\\n\\xff'", H_S("ECHO"), H_S("a\0b\r\n\xff"));
    redisFree(c);
}

static void test_dispatch_errors(void)
{
    redisContext *c = h_connect(&srv);
    EXPECT_ERR(c, "ERR unknown command 'foo', with args beginning with: 'a' 'b' ", "foo", "a",
               "b");
    EXPECT_ERR(c, "ERR unknown command 'FOO', with args beginning with: ", "FOO");
    /* Newlines in an error would break the protocol: Redis turns them into spaces. */
    EXPECT_ERR(c, "ERR unknown command 'foo', with args beginning with: 'a b' 'x  y' ", "foo",
               "a\nb", "x\r\ny");
    /* Redis shows at most 128 bytes of the name and of the arguments. */
    char big[300], want[600];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    snprintf(want, sizeof(want), "-ERR unknown command 'foo', with args beginning with: '%.*s' ",
             ERROR_ARG_SHOWN, big);
    EXPECT_REPLY(c, want, "foo", big, "b");
    snprintf(want, sizeof(want), "-ERR unknown command '%.*s', with args beginning with: ",
             ERROR_ARG_SHOWN, big);
    EXPECT_REPLY(c, want, big);
    EXPECT_ERR(c, "ERR wrong number of arguments for 'get' command", "GET");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'get' command", "get", "a", "b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'set' command", "SET", "k");
    /* The connection is still usable after errors. */
    EXPECT_STATUS(c, "PONG", "PING");
    redisFree(c);
}

static void test_quit(void)
{
    struct h_raw r;
    if (h_raw_open(&r, &srv) < 0)
        return;
    /* The request after QUIT in the same write is never run. */
    RAW_SEND(&r, "QUIT\r\nPING\r\n");
    if (RAW_EXPECT(&r, "+OK\r\n"))
        RAW_EXPECT_CLOSED(&r);
    h_raw_close(&r);

    redisContext *c = h_connect(&srv);
    EXPECT_OK(c, "QUIT");
    redisReply *after = H_CALL(c, "PING");
    CHECK(after == NULL, "PING after QUIT got a reply");
    freeReplyObject(after);
    redisFree(c);
}

static void test_select(void)
{
    redisContext *c = h_connect(&srv);
    EXPECT_OK(c, "SELECT", "15");
    EXPECT_OK(c, "SELECT", "0");
    EXPECT_ERR(c, "ERR DB index is out of range", "SELECT", "16");
    EXPECT_ERR(c, "ERR DB index is out of range", "SELECT", "-1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SELECT", "x");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SELECT", "1.5");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SELECT", "");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SELECT",
               "99999999999999999999");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'select' command", "SELECT");
    redisFree(c);
}

/* The HELLO reply as RESP3 sends it: a map of seven pairs. */
#define HELLO3_MAP                                                                                \
    "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$*\r\n*\r\n$5\r\nproto\r\n:3\r\n"      \
    "$2\r\nid\r\n:*\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n"         \
    "$7\r\nmodules\r\n*0\r\n"
/* The same as RESP2's flat array, in h_repr form. */
#define HELLO2_ARRAY                                                                              \
    "['server', 'redis', 'version', '*', 'proto', :2, 'id', :*, 'mode', 'standalone', "           \
    "'role', 'master', 'modules', []]"

static void test_hello(void)
{
    redisContext *c = h_connect(&srv);
    EXPECT_MATCH(c, HELLO2_ARRAY, "HELLO");
    EXPECT_MATCH(c, HELLO2_ARRAY, "HELLO", "2");
    EXPECT_ERR(c, "NOPROTO unsupported protocol version", "HELLO", "4");
    EXPECT_ERR(c, "NOPROTO unsupported protocol version", "HELLO", "1");
    EXPECT_ERR(c, "ERR Protocol version is not an integer or out of range", "HELLO", "x");
    EXPECT_ERR(c, "ERR Syntax error in HELLO option 'foo'", "HELLO", "2", "foo");
    EXPECT_ERR(c, "ERR Syntax error in HELLO option 'SETNAME'", "HELLO", "2", "SETNAME");
    EXPECT_MATCH(c, HELLO2_ARRAY, "HELLO", "2", "SETNAME", "hello-name");
    EXPECT_BULK(c, "hello-name", "CLIENT", "GETNAME");
    /* The id in HELLO's reply is CLIENT ID's. */
    char want[512];
    snprintf(want, sizeof(want),
             "['server', 'redis', 'version', '*', 'proto', :2, 'id', :%lld, 'mode', "
             "'standalone', 'role', 'master', 'modules', []]",
             client_id(c));
    EXPECT_MATCH(c, want, "HELLO", "2");
    redisFree(c);

    /* RESP3 needs a raw socket: hiredis 0.14 only parses RESP2. */
    struct h_raw r;
    if (h_raw_open(&r, &srv) < 0)
        return;
    RAW_SEND(&r, "HELLO 3\r\n");
    RAW_EXPECT_MATCH(&r, HELLO3_MAP);
    RAW_SEND(&r, "CLIENT GETNAME\r\nPING\r\nHELLO 4\r\n");
    RAW_EXPECT(&r, "_\r\n");
    RAW_EXPECT(&r, "+PONG\r\n");
    RAW_EXPECT(&r, "-NOPROTO unsupported protocol version\r\n");
    /* A failed HELLO leaves the protocol as it was. */
    RAW_SEND(&r, "CLIENT GETNAME\r\n");
    RAW_EXPECT(&r, "_\r\n");
    RAW_SEND(&r, "CLIENT INFO\r\n");
    RAW_EXPECT_MATCH(&r, "=*\r\ntxt:id=* resp=3*\n\r\n");
    RAW_SEND(&r, "HELLO 2\r\n");
    RAW_EXPECT_MATCH(&r, "*14\r\n$6\r\nserver\r\n*$5\r\nproto\r\n:2\r\n*$7\r\nmodules\r\n*0\r\n");
    RAW_SEND(&r, "CLIENT GETNAME\r\n");
    RAW_EXPECT(&r, "$-1\r\n");
    h_raw_close(&r);
}

struct proto_case {
    const char *name;
    const char *bytes;
    const char *before; /* the reply to a good request ahead of the bad one, or NULL */
    const char *reply;
};

/* Sends pc's bytes on a new connection to s and expects its error reply and
 * the close; then that other, when given, is still served. */
static void expect_protocol_error(const struct h_server *s, const struct proto_case *pc,
                                  size_t len, redisContext *other)
{
    struct h_raw r;
    printf("   protocol error: %s\n", pc->name);
    if (h_raw_open(&r, s) < 0)
        return;
    h_raw_send(&r, pc->bytes, len);
    if (pc->before)
        h_raw_expect(__FILE__, __LINE__, &r, pc->before, strlen(pc->before), 0);
    if (h_raw_expect(__FILE__, __LINE__, &r, pc->reply, strlen(pc->reply), 0))
        RAW_EXPECT_CLOSED(&r);
    h_raw_close(&r);
    /* Only that connection is closed. */
    if (other)
        EXPECT_STATUS(other, "PONG", "PING");
}

static void test_auth(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--requirepass", "s3cret"));
    if (!c)
        return;
    EXPECT_ERR(c, "NOAUTH Authentication required.", "PING");
    EXPECT_ERR(c, "NOAUTH Authentication required.", "GET", "k");
    EXPECT_ERR(c, "NOAUTH Authentication required.", "SELECT", "1");
    EXPECT_ERR(c, "NOAUTH Authentication required.", "CLIENT", "ID");
    /* Redis checks the name and the arity before authentication. */
    EXPECT_ERR(c, "ERR unknown command 'foo', with args beginning with: ", "foo");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'get' command", "GET");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'auth' command", "AUTH");
    EXPECT_ERR(c, "ERR syntax error", "AUTH", "a", "b", "c");
    EXPECT_ERR(c, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH",
               "wrong");
    EXPECT_ERR(c, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH",
               "s3cre");
    EXPECT_ERR(c, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH",
               "s3cret!");
    EXPECT_ERR(c, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH",
               "default", "wrong");
    EXPECT_ERR(c, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH",
               "nobody", "s3cret");
    /* Redis 7.0 and 7.2 word the rest of this one differently. */
    EXPECT_MATCH(c, "-NOAUTH HELLO must be called with the client already authenticated, *",
                 "HELLO", "3");
    EXPECT_ERR(c, "WRONGPASS invalid username-password pair or user is disabled.", "HELLO", "2",
               "AUTH", "default", "wrong");
    EXPECT_ERR(c, "NOAUTH Authentication required.", "PING");
    EXPECT_OK(c, "AUTH", "s3cret");
    EXPECT_STATUS(c, "PONG", "PING");
    /* A failed AUTH after a good one does not log the client out... */
    EXPECT_ERR(c, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "x");
    EXPECT_STATUS(c, "PONG", "PING");
    redisFree(c);

    c = h_connect(&s);
    EXPECT_OK(c, "AUTH", "default", "s3cret");
    EXPECT_STATUS(c, "PONG", "PING");
    redisFree(c);

    c = h_connect(&s);
    EXPECT_MATCH(c, HELLO2_ARRAY, "HELLO", "2", "AUTH", "default", "s3cret", "SETNAME", "n1");
    EXPECT_BULK(c, "n1", "CLIENT", "GETNAME");
    redisFree(c);

    struct h_raw r;
    if (h_raw_open(&r, &s) == 0) {
        RAW_SEND(&r, "HELLO 3 AUTH default s3cret\r\nPING\r\n");
        RAW_EXPECT_MATCH(&r, HELLO3_MAP);
        RAW_SEND(&r, "PING\r\n");
        RAW_EXPECT(&r, "+PONG\r\n");
        h_raw_close(&r);
    }
    if (h_raw_open(&r, &s) == 0) {
        RAW_SEND(&r, "QUIT\r\n");
        if (RAW_EXPECT(&r, "+OK\r\n"))
            RAW_EXPECT_CLOSED(&r);
        h_raw_close(&r);
    }
    /* Before AUTH a request may not be big: it could be an attacker's. */
    if (h_raw_open(&r, &s) == 0) {
        RAW_SEND(&r, "*10\r\n");
        CHECK(h_raw_wait_closed(&r, 200) == -1, "10 elements are allowed before AUTH");
        h_raw_close(&r);
    }
    static const struct proto_case unauth[] = {
        {"11 elements before AUTH", "*11\r\n", NULL,
         "-ERR Protocol error: unauthenticated multibulk length\r\n"},
        {"a 16385-byte bulk before AUTH", "*1\r\n$16385\r\n", NULL,
         "-ERR Protocol error: unauthenticated bulk length\r\n"},
    };
    for (size_t i = 0; i < sizeof(unauth) / sizeof(unauth[0]); i++)
        expect_protocol_error(&s, &unauth[i], strlen(unauth[i].bytes), NULL);
    h_stop(&s);

    /* Without a password, AUTH is a configuration mistake. */
    c = h_connect(&srv);
    EXPECT_ERR(c, "ERR AUTH <password> called without any password configured for the default "
                  "user. Are you sure your configuration is correct?",
               "AUTH", "x");
    redisFree(c);
}

static void test_client(void)
{
    redisContext *a = h_connect(&srv), *b = h_connect(&srv);
    long long ida = client_id(a), idb = client_id(b);
    CHECK(idb > ida, "client ids must grow: %lld then %lld", ida, idb);
    EXPECT_INT(a, ida, "CLIENT", "ID");
    EXPECT_ERR(a, "ERR wrong number of arguments for 'client|id' command", "CLIENT", "ID", "x");
    EXPECT_ERR(a, "ERR wrong number of arguments for 'client' command", "CLIENT");
    EXPECT_ERR(a, "ERR unknown subcommand 'foo'. Try CLIENT HELP.", "CLIENT", "foo");

    EXPECT_NIL(a, "CLIENT", "GETNAME");
    EXPECT_OK(a, "CLIENT", "SETNAME", "alpha");
    EXPECT_BULK(a, "alpha", "client", "getname");
    EXPECT_ERR(a, "ERR wrong number of arguments for 'client|getname' command", "CLIENT",
               "GETNAME", "x");
    EXPECT_ERR(a, "ERR wrong number of arguments for 'client|setname' command", "CLIENT",
               "SETNAME");
    EXPECT_ERR(a, "ERR Client names cannot contain spaces, newlines or special characters.",
               "CLIENT", "SETNAME", "a b");
    EXPECT_ERR(a, "ERR Client names cannot contain spaces, newlines or special characters.",
               "CLIENT", "SETNAME", "a\nb");
    EXPECT_BULK(a, "alpha", "CLIENT", "GETNAME");
    EXPECT_OK(b, "CLIENT", "SETNAME", "beta");

    /* CLIENT INFO: one line in Redis 7's field order. */
    char want[1024];
    snprintf(want, sizeof(want),
             "'id=%lld addr=127.0.0.1:* laddr=127.0.0.1:%d fd=* name=alpha age=* idle=* flags=N "
             "db=0 sub=0 psub=0 ssub=0 multi=-1 qbuf=* qbuf-free=* argv-mem=* multi-mem=0 rbs=* "
             "rbp=* obl=0 oll=0 omem=0 tot-mem=* events=r cmd=client|info user=default redir=-1 "
             "resp=2*\\n'",
             ida, srv.port);
    EXPECT_MATCH(a, want, "CLIENT", "INFO");
    EXPECT_ERR(a, "ERR wrong number of arguments for 'client|info' command", "CLIENT", "INFO",
               "x");

    /* CLIENT LIST: a line per client, this one and b among them. */
    redisReply *list = H_CALL(a, "CLIENT", "LIST");
    if (CHECK(list && list->type == REDIS_REPLY_STRING, "CLIENT LIST: expected a bulk")) {
        char ida_s[64], idb_s[64];
        snprintf(ida_s, sizeof(ida_s), "id=%lld addr=", ida);
        snprintf(idb_s, sizeof(idb_s), "id=%lld addr=", idb);
        CHECK(strstr(list->str, ida_s) && strstr(list->str, " name=alpha "),
              "CLIENT LIST lacks client a: %s", list->str);
        CHECK(strstr(list->str, idb_s) && strstr(list->str, " name=beta "),
              "CLIENT LIST lacks client b: %s", list->str);
        CHECK(list->len > 0 && list->str[list->len - 1] == '\n',
              "CLIENT LIST must end with a newline");
    }
    freeReplyObject(list);

    /* CLIENT SETINFO (Redis 7.2) shows in CLIENT INFO. */
    EXPECT_OK(a, "CLIENT", "SETINFO", "lib-name", "mylib");
    EXPECT_OK(a, "CLIENT", "SETINFO", "lib-ver", "1.2.3");
    EXPECT_MATCH(a, "'id=* lib-name=mylib lib-ver=1.2.3*'", "CLIENT", "INFO");
    EXPECT_ERR(a, "ERR Unrecognized option 'foo'", "CLIENT", "SETINFO", "foo", "bar");
    EXPECT_ERR(a, "ERR lib-name cannot contain spaces, newlines or special characters.",
               "CLIENT", "SETINFO", "lib-name", "a b");
    EXPECT_ERR(a, "ERR wrong number of arguments for 'client|setinfo' command", "CLIENT",
               "SETINFO", "lib-name");

    /* Empty name removes it. */
    EXPECT_OK(a, "CLIENT", "SETNAME", "");
    EXPECT_NIL(a, "CLIENT", "GETNAME");

    /* CLIENT KILL, new form by ID: b is closed. */
    char num[32];
    snprintf(num, sizeof(num), "%lld", idb);
    EXPECT_INT(a, 1, "CLIENT", "KILL", "ID", num);
    redisReply *gone = H_CALL(b, "PING");
    CHECK(gone == NULL, "a killed client still got a reply");
    freeReplyObject(gone);
    redisFree(b);
    EXPECT_INT(a, 0, "CLIENT", "KILL", "ID", num);
    EXPECT_INT(a, 0, "CLIENT", "KILL", "ID", "999999999");
    EXPECT_ERR(a, "ERR client-id should be greater than 0", "CLIENT", "KILL", "ID", "0");
    EXPECT_ERR(a, "ERR client-id should be greater than 0", "CLIENT", "KILL", "ID", "x");
    EXPECT_ERR(a, "ERR syntax error", "CLIENT", "KILL", "foo", "bar");
    EXPECT_ERR(a, "ERR syntax error", "CLIENT", "KILL", "ID", "1", "foo");
    EXPECT_ERR(a, "ERR syntax error", "CLIENT", "KILL", "SKIPME", "maybe");
    EXPECT_ERR(a, "ERR Unknown client type 'foo'", "CLIENT", "KILL", "TYPE", "foo");
    EXPECT_INT(a, 0, "CLIENT", "KILL", "ADDR", "1.2.3.4:5");
    EXPECT_ERR(a, "ERR wrong number of arguments for 'client|kill' command", "CLIENT", "KILL");

    /* By ADDR, and the old form CLIENT KILL addr. */
    char addr[64];
    b = h_connect(&srv);
    if (client_field(b, "addr", addr, sizeof(addr)) == 0)
        EXPECT_INT(a, 1, "CLIENT", "KILL", "ADDR", addr);
    gone = H_CALL(b, "PING");
    CHECK(gone == NULL, "a client killed by ADDR still got a reply");
    freeReplyObject(gone);
    redisFree(b);
    b = h_connect(&srv);
    if (client_field(b, "addr", addr, sizeof(addr)) == 0)
        EXPECT_OK(a, "CLIENT", "KILL", addr);
    gone = H_CALL(b, "PING");
    CHECK(gone == NULL, "a client killed by the old form still got a reply");
    freeReplyObject(gone);
    redisFree(b);
    EXPECT_ERR(a, "ERR No such client", "CLIENT", "KILL", "1.2.3.4:5");

    /* SKIPME: a client does not kill itself unless told to, and then still
     * gets the reply. */
    snprintf(num, sizeof(num), "%lld", ida);
    EXPECT_INT(a, 0, "CLIENT", "KILL", "ID", num);
    EXPECT_INT(a, 1, "CLIENT", "KILL", "ID", num, "SKIPME", "no");
    gone = H_CALL(a, "PING");
    CHECK(gone == NULL, "a client that killed itself still got a reply");
    freeReplyObject(gone);
    redisFree(a);
}

/* The bytes a raw connection gets back for req (inline commands) followed
 * by ECHO end, up to that reply, into out (malloc'ed, NUL-terminated). */
static char *raw_replies_until_end(struct h_raw *r, const char *req)
{
    static const char end[] = "$3\r\nend\r\n";
    size_t used = 0, len;
    char *out = calloc(1, 1);
    h_raw_send(r, req, strlen(req));
    h_raw_send(r, "ECHO end\r\n", 10);
    while (h_raw_read_reply(r, &len, H_RAW_TIMEOUT_MS) == 0) {
        int last = len == sizeof(end) - 1 && memcmp(r->buf, end, len) == 0;
        out = realloc(out, used + len + 1);
        memcpy(out + used, r->buf, len);
        used += len;
        out[used] = '\0';
        h_raw_consume(r, len);
        if (last)
            return out;
    }
    CHECK(0, "no ECHO end after %s (got %s)", req, out);
    return out;
}

/* One raw connection to s and one to ref get the same bytes back for req. */
static void raw_same(struct h_raw *a, struct h_raw *b, const char *req)
{
    char *x = raw_replies_until_end(a, req), *y = raw_replies_until_end(b, req);
    CHECK(strcmp(x, y) == 0, "%s: rbkv answered %s, redis-server %s", req, x, y);
    free(x);
    free(y);
}

/* The next reply on a and on b (a push), which must be the same bytes. */
static void raw_next_same(struct h_raw *a, struct h_raw *b, const char *what)
{
    size_t la = 0, lb = 0;
    int ga = h_raw_read_reply(a, &la, H_RAW_TIMEOUT_MS), gb = h_raw_read_reply(b, &lb, H_RAW_TIMEOUT_MS);
    if (CHECK(ga == 0 && gb == 0, "%s: no reply (rbkv %d, redis-server %d)", what, ga, gb))
        CHECK(la == lb && memcmp(a->buf, b->buf, la) == 0, "%s: rbkv sent %.*s, redis-server %.*s",
              what, (int)la, a->buf, (int)lb, b->buf);
    h_raw_consume(a, la);
    h_raw_consume(b, lb);
}

/* CLIENT REPLY ON|OFF|SKIP beside redis-server: what each mode silences,
 * SKIP over a blocked command's served reply, RESET, and the pushes (pub/sub
 * messages, keyspace events, subscription replies) that reach a silenced
 * subscriber all the same. */
static void test_client_reply(void)
{
    if (!have_ref)
        return;
    struct h_server *both[2] = {&srv, &ref};
    struct h_raw raw[2], sub[2];
    redisContext *other[2];
    for (int i = 0; i < 2; i++) {
        h_raw_open(&raw[i], both[i]);
        h_raw_open(&sub[i], both[i]);
        other[i] = h_connect_flushed(both[i]);
    }
    raw_same(&raw[0], &raw[1], "CLIENT REPLY SKIP\r\nPING\r\nPING x\r\nCLIENT REPLY foo\r\n"
                               "CLIENT REPLY\r\nCLIENT REPLY OFF\r\nSET k v\r\nGET k\r\n"
                               "CLIENT REPLY SKIP\r\nCLIENT REPLY ON\r\nGET k\r\n");
    raw_same(&raw[0], &raw[1], "CLIENT REPLY SKIP\r\nCLIENT REPLY ON\r\nGET k\r\nGET k\r\n"
                               "CLIENT REPLY SKIP\r\nGET nokey\r\nNOSUCH\r\nCLIENT REPLY OFF\r\n"
                               "RESET\r\nPING\r\n");
    /* A skipped BLPOP: its reply when LPUSH serves it is dropped too. */
    for (int i = 0; i < 2; i++) {
        RAW_SEND(&raw[i], "CLIENT REPLY SKIP\r\nBLPOP l 0\r\n");
        h_wait_blocked(other[i], 1, 5000 * H_SLOW);
        EXPECT_INT(other[i], 1, "LPUSH", "l", "a");
    }
    raw_same(&raw[0], &raw[1], "LLEN l\r\n");

    for (int i = 0; i < 2; i++) {
        EXPECT_OK(other[i], "CONFIG", "SET", "notify-keyspace-events", "KEA");
        RAW_SEND(&sub[i], "CLIENT REPLY OFF\r\nPSUBSCRIBE __keyevent@0__:*\r\nSUBSCRIBE ch\r\n");
    }
    raw_next_same(&sub[0], &sub[1], "PSUBSCRIBE's reply");
    raw_next_same(&sub[0], &sub[1], "SUBSCRIBE's reply");
    for (int i = 0; i < 2; i++) {
        EXPECT_OK(other[i], "SET", "k", "v2");
        EXPECT_INT(other[i], 1, "PUBLISH", "ch", "hi");
    }
    raw_next_same(&sub[0], &sub[1], "the keyspace event");
    raw_next_same(&sub[0], &sub[1], "the message");
    /* The subscriber's own PING, under OFF, answers nothing (nor would
     * CLIENT REPLY ON, refused while subscribed): the next reply is
     * RESET's, which ends both. */
    for (int i = 0; i < 2; i++)
        RAW_SEND(&sub[i], "PING a\r\nRESET\r\nPING b\r\n");
    raw_next_same(&sub[0], &sub[1], "RESET's reply");
    raw_next_same(&sub[0], &sub[1], "PING b's reply");
    for (int i = 0; i < 2; i++) {
        EXPECT_OK(other[i], "CONFIG", "SET", "notify-keyspace-events", "");
        h_raw_close(&raw[i]);
        h_raw_close(&sub[i]);
        redisFree(other[i]);
    }
}

/* A connection to s authenticated as user (AUTH user pw), or NULL. */
static redisContext *connect_as(const struct h_server *s, const char *user)
{
    redisContext *c = h_connect(s);
    if (c && !EXPECT_OK(c, "AUTH", user, "pw")) {
        redisFree(c);
        return NULL;
    }
    return c;
}

/* Whether c's connection was closed: its next command gets no reply. */
static int was_killed(redisContext *c)
{
    redisReply *r = H_CALL(c, "PING");
    int gone = r == NULL;
    freeReplyObject(r);
    return gone;
}

/* CLIENT KILL's filters beside redis-server: errors in Redis's parse order,
 * USER, LADDR and SKIPME alone and combined. */
static void test_client_kill_filters(void)
{
    if (!have_ref)
        return;
    struct h_server *both[2] = {&srv, &ref};
    static const char *const errors[] = {
        "CLIENT KILL ID 0 foo",
        "CLIENT KILL ID 5 SKIPME",
        "CLIENT KILL TYPE foo ID 0",
        "CLIENT KILL ID x TYPE foo",
        "CLIENT KILL SKIPME maybe USER nosuch",
        "CLIENT KILL USER nosuch SKIPME maybe",
        "CLIENT KILL ADDR 1.2.3.4:5 USER nosuch",
        "CLIENT KILL USER default ID 999999",
        "CLIENT KILL LADDR 1.2.3.4:5",
        "CLIENT KILL 1.2.3.4:5",
        "CLIENT KILL FOO bar",
    };
    for (int i = 0; i < 2; i++) {
        redisContext *c = h_connect(both[i]);
        EXPECT_OK(c, "ACL", "SETUSER", "killme", "on", ">pw", "+@all", "~*");
        EXPECT_OK(c, "ACL", "SETUSER", "other", "on", ">pw", "+@all", "~*");
        redisFree(c);
    }
    redisContext *c = h_connect(&srv), *r = h_connect(&ref);
    H_SAME_LINES(c, r, errors);
    h_close_pair(c, r);

    for (int i = 0; i < 2; i++) {
        char laddr[64], wrong[64];
        snprintf(laddr, sizeof(laddr), "127.0.0.1:%d", both[i]->port);
        snprintf(wrong, sizeof(wrong), "127.0.0.1:%d", both[i]->port + 1);
        redisContext *x = connect_as(both[i], "killme"), *y = connect_as(both[i], "killme");
        redisContext *z = connect_as(both[i], "other"), *w = connect_as(both[i], "killme");
        if (!x || !y || !z || !w)
            return;
        /* USER with a wrong LADDR kills nobody; with the right one, every
         * killme client but the caller (SKIPME yes is the default). */
        EXPECT_INT(x, 0, "CLIENT", "KILL", "USER", "killme", "LADDR", wrong);
        EXPECT_INT(x, 2, "CLIENT", "KILL", "LADDR", laddr, "USER", "killme");
        CHECK(was_killed(y) && was_killed(w), "USER killme kept a killme client");
        CHECK(!was_killed(z), "USER killme killed another user's client");
        /* SKIPME no: the caller itself too, its reply still sent. */
        EXPECT_INT(x, 1, "CLIENT", "KILL", "USER", "killme", "SKIPME", "no");
        CHECK(was_killed(x), "SKIPME no kept the caller");
        EXPECT_INT(z, 0, "CLIENT", "KILL", "USER", "other", "SKIPME", "yes");
        EXPECT_INT(z, 0, "CLIENT", "KILL", "USER", "other", "TYPE", "pubsub", "SKIPME", "no");
        EXPECT_INT(z, 1, "CLIENT", "KILL", "USER", "other", "TYPE", "normal", "SKIPME", "no");
        redisFree(x);
        redisFree(y);
        redisFree(z);
        redisFree(w);
        c = h_connect(both[i]);
        EXPECT_INT(c, 2, "ACL", "DELUSER", "killme", "other");
        redisFree(c);
    }
}

static void test_pipelining(void)
{
    struct h_raw r;
    if (h_raw_open(&r, &srv) < 0)
        return;
    size_t cap = PIPELINE_REQUESTS * 40, len = 0;
    char *req = malloc(cap);
    for (int i = 0; i < PIPELINE_REQUESTS; i++) {
        char arg[16];
        int n = snprintf(arg, sizeof(arg), "%d", i);
        len += (size_t)snprintf(req + len, cap - len, "*2\r\n$4\r\nECHO\r\n$%d\r\n%s\r\n", n, arg);
    }
    CHECK(h_raw_send(&r, req, len) == 0, "sending %d pipelined requests", PIPELINE_REQUESTS);
    free(req);
    int in_order = 0;
    for (int i = 0; i < PIPELINE_REQUESTS; i++) {
        char want[32];
        size_t n = 0;
        int wl = snprintf(want, sizeof(want), "$%d\r\n%d\r\n", i < 10 ? 1 : i < 100 ? 2 : 3, i);
        if (h_raw_read_reply(&r, &n, H_RAW_TIMEOUT_MS) < 0 || n != (size_t)wl ||
            memcmp(r.buf, want, n) != 0)
            break;
        h_raw_consume(&r, n);
        in_order++;
    }
    CHECK(in_order == PIPELINE_REQUESTS, "pipelined replies: %d of %d in order", in_order,
          PIPELINE_REQUESTS);
    h_raw_close(&r);

    /* The same through hiredis, mixing replies of every type. */
    redisContext *c = h_connect(&srv);
    for (int i = 0; i < PIPELINE_REQUESTS; i++) {
        H_APPEND(c, "PING");
        H_APPEND(c, "SELECT", "99");
    }
    int ok = 0;
    for (int i = 0; i < PIPELINE_REQUESTS; i++) {
        redisReply *p = h_get_reply(c), *e = h_get_reply(c);
        ok += p && p->type == REDIS_REPLY_STATUS && !strcmp(p->str, "PONG") && e &&
              e->type == REDIS_REPLY_ERROR && !strcmp(e->str, "ERR DB index is out of range");
        freeReplyObject(p);
        freeReplyObject(e);
    }
    CHECK(ok == PIPELINE_REQUESTS, "hiredis pipeline: %d of %d reply pairs right", ok,
          PIPELINE_REQUESTS);
    redisFree(c);
}

/* A client whose read filled its buffer waits for the loop's check phase to
 * read again (conn.c's read yield). With the server stopped, connections
 * queue more than one read's worth of PINGs, and a last one CLIENT KILLs
 * every other one; resumed, the killed ones close (some while they wait for
 * their next read) and every other gets all its replies. */
static void test_yielded_clients_killed(void)
{
    struct h_raw conns[2 * YIELD_CONNS], killer;
    char kills[YIELD_CONNS * 48], *pings = malloc(6 * YIELD_PINGS);
    size_t kills_len = 0;
    int opened = 0;
    if (!pings || h_raw_open(&killer, &srv) < 0)
        goto out;
    for (int i = 0; i < YIELD_PINGS; i++)
        memcpy(pings + 6 * i, "PING\r\n", 6);
    for (; opened < 2 * YIELD_CONNS; opened++) {
        size_t n = 0;
        if (h_raw_open(&conns[opened], &srv) < 0)
            goto out;
        RAW_SEND(&conns[opened], "CLIENT ID\r\n");
        if (h_raw_read_reply(&conns[opened], &n, H_RAW_TIMEOUT_MS) < 0 || conns[opened].buf[0] != ':') {
            CHECK(0, "CLIENT ID");
            opened++;
            goto out;
        }
        if (opened % 2)
            kills_len += (size_t)snprintf(kills + kills_len, sizeof(kills) - kills_len,
                                          "CLIENT KILL ID %.*s\r\n", (int)(n - 3),
                                          conns[opened].buf + 1);
        h_raw_consume(&conns[opened], n);
    }
    kill(srv.pid, SIGSTOP);
    for (int i = 0; i < 2 * YIELD_CONNS; i++)
        h_raw_send(&conns[i], pings, 6 * YIELD_PINGS);
    h_raw_send(&killer, kills, kills_len);
    kill(srv.pid, SIGCONT);
    for (int i = 0; i < YIELD_CONNS; i++)
        RAW_EXPECT(&killer, ":1\r\n");
    for (int i = 0; i < 2 * YIELD_CONNS; i++) {
        if (i % 2) { /* the PONGs it had before the kill, then the close */
            int st;
            while ((st = h_raw_wait_closed(&conns[i], H_RAW_TIMEOUT_MS)) == 0)
                h_raw_consume(&conns[i], conns[i].len);
            CHECK(st == 1, "killed client %d not closed", i);
            continue;
        }
        int pongs = 0;
        size_t n = 0;
        while (pongs < YIELD_PINGS && h_raw_read_reply(&conns[i], &n, H_RAW_TIMEOUT_MS) == 0 &&
               n == 7 && memcmp(conns[i].buf, "+PONG\r\n", 7) == 0) {
            h_raw_consume(&conns[i], n);
            pongs++;
        }
        CHECK(pongs == YIELD_PINGS, "client %d: %d of %d PONGs", i, pongs, YIELD_PINGS);
    }
    RAW_SEND(&killer, "PING\r\n");
    RAW_EXPECT(&killer, "+PONG\r\n");
out:
    kill(srv.pid, SIGCONT);
    for (int i = 0; i < opened; i++)
        h_raw_close(&conns[i]);
    h_raw_close(&killer);
    free(pings);
}

static void test_inline(void)
{
    struct h_raw r;
    if (h_raw_open(&r, &srv) < 0)
        return;
    RAW_SEND(&r, "PING\r\n");
    RAW_EXPECT(&r, "+PONG\r\n");
    RAW_SEND(&r, "PING\n"); /* a bare LF ends an inline line too */
    RAW_EXPECT(&r, "+PONG\r\n");
    RAW_SEND(&r, "\r\n\r\nPING\r\n"); /* empty lines are skipped */
    RAW_EXPECT(&r, "+PONG\r\n");
    RAW_SEND(&r, "ECHO   \"a b\"  \r\n");
    RAW_EXPECT(&r, "$3\r\na b\r\n");
    RAW_SEND(&r, "ECHO \"\\x41\\n\\t\\\\\"\r\n");
    RAW_EXPECT(&r, "$4\r\nA\n\t\\\r\n");
    RAW_SEND(&r, "ECHO 'it''s'\r\n");
    if (RAW_EXPECT(&r, "-ERR Protocol error: unbalanced quotes in request\r\n"))
        RAW_EXPECT_CLOSED(&r);
    h_raw_close(&r);

    if (h_raw_open(&r, &srv) < 0)
        return;
    RAW_SEND(&r, "SET \"a b\" 'c d'\r\nGET \"a b\"\r\nDEL \"a b\"\r\n");
    RAW_EXPECT(&r, "+OK\r\n");
    RAW_EXPECT(&r, "$3\r\nc d\r\n");
    RAW_EXPECT(&r, ":1\r\n");
    RAW_SEND(&r, "FOO bar\r\n");
    RAW_EXPECT(&r, "-ERR unknown command 'FOO', with args beginning with: 'bar' \r\n");
    h_raw_close(&r);
}

static void test_protocol_errors(void)
{
    static const struct proto_case cases[] = {
        {"non-numeric count", "*abc\r\n", NULL,
         "-ERR Protocol error: invalid multibulk length\r\n"},
        {"count over INT_MAX", "*2147483648\r\n", NULL,
         "-ERR Protocol error: invalid multibulk length\r\n"},
        {"element not a bulk", "*1\r\n+x\r\n", NULL,
         "-ERR Protocol error: expected '$', got '+'\r\n"},
        {"negative bulk length", "*1\r\n$-5\r\n", NULL,
         "-ERR Protocol error: invalid bulk length\r\n"},
        {"non-numeric bulk length", "*1\r\n$abc\r\n", NULL,
         "-ERR Protocol error: invalid bulk length\r\n"},
        {"bulk over proto-max-bulk-len", "*1\r\n$536870913\r\n", NULL,
         "-ERR Protocol error: invalid bulk length\r\n"},
        {"unbalanced double quote", "SET \"a b\r\n", NULL,
         "-ERR Protocol error: unbalanced quotes in request\r\n"},
        {"closing quote not followed by a space", "SET k 'a'b\r\n", NULL,
         "-ERR Protocol error: unbalanced quotes in request\r\n"},
        {"good request, bad one, good one", "PING\r\n*abc\r\nPING\r\n", "+PONG\r\n",
         "-ERR Protocol error: invalid multibulk length\r\n"},
    };
    redisContext *other = h_connect(&srv);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        expect_protocol_error(&srv, &cases[i], strlen(cases[i].bytes), other);

    /* Lines with no newline past 64 KB: an inline request, a count, a bulk length. */
    size_t n = INLINE_MAX + 1024;
    char *big = malloc(n);
    struct proto_case pc = {"inline line over 64 KB", big, NULL,
                            "-ERR Protocol error: too big inline request\r\n"};
    memset(big, 'A', n);
    expect_protocol_error(&srv, &pc, n, other);
    pc = (struct proto_case){"count line over 64 KB", big, NULL,
                             "-ERR Protocol error: too big mbulk count string\r\n"};
    big[0] = '*';
    memset(big + 1, '1', n - 1);
    expect_protocol_error(&srv, &pc, n, other);
    pc = (struct proto_case){"bulk length line over 64 KB", big, NULL,
                             "-ERR Protocol error: too big bulk count string\r\n"};
    memcpy(big, "*1\r\n$", 5);
    expect_protocol_error(&srv, &pc, n, other);
    free(big);
    redisFree(other);
}

static void test_maxclients(void)
{
    struct h_server s;
    redisContext *a = h_open(&s, H_FLAGS("--maxclients", "2"));
    if (!a)
        return;
    wait_connected(a, 1); /* the harness's readiness probe may not be gone yet */
    redisContext *b = h_connect(&s);
    EXPECT_STATUS(a, "PONG", "PING");
    EXPECT_STATUS(b, "PONG", "PING");
    struct h_raw r;
    if (h_raw_open(&r, &s) == 0) {
        if (RAW_EXPECT(&r, "-ERR max number of clients reached\r\n"))
            RAW_EXPECT_CLOSED(&r);
        h_raw_close(&r);
    }
    EXPECT_STATUS(a, "PONG", "PING");
    EXPECT_STATUS(b, "PONG", "PING");
    /* Once one leaves, a new client gets in. */
    redisFree(b);
    wait_connected(a, 1);
    b = h_connect(&s);
    EXPECT_STATUS(b, "PONG", "PING");
    redisFree(a);
    h_close(&s, b);
}

/* The soft fd limit of process pid, from /proc; -1 when unreadable. */
static long soft_nofile(pid_t pid)
{
    char path[64], line[256];
    long soft = -1;
    snprintf(path, sizeof(path), "/proc/%ld/limits", (long)pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, "Max open files", 14) == 0)
            soft = strtol(line + 14, NULL, 10);
    if (f)
        fclose(f);
    return soft;
}

/* CONFIG SET maxclients raises the fd limit as the start does; when the
 * system cannot give the fds, the whole CONFIG SET fails and changes
 * nothing, as Redis's updateMaxclients. */
static void test_maxclients_fd_limit(void)
{
    const char *wrapper = getenv("RBKV_SERVER_WRAPPER");
    struct rlimit rl, low;
    getrlimit(RLIMIT_NOFILE, &rl);
    if ((wrapper && *wrapper) || (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 2048)) {
        printf("   skipped: under a wrapper (valgrind refuses setrlimit) or a hard fd limit "
               "under 2048\n");
        return;
    }
    low = rl;
    low.rlim_cur = 256;
    setrlimit(RLIMIT_NOFILE, &low);
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--maxclients", "100"));
    setrlimit(RLIMIT_NOFILE, &rl);
    if (!c)
        return;
    CHECK(soft_nofile(s.pid) == 256, "the server started with %ld fds, not 256", soft_nofile(s.pid));
    EXPECT_OK(c, "CONFIG", "SET", "maxclients", "1000");
    CHECK(soft_nofile(s.pid) >= 1032, "maxclients 1000 left the server %ld fds",
          soft_nofile(s.pid));
    /* More than fs.nr_open, which no process may have. */
    long nr_open = 1048576;
    FILE *f = fopen("/proc/sys/fs/nr_open", "r");
    if (f) {
        if (fscanf(f, "%ld", &nr_open) != 1)
            nr_open = 1048576;
        fclose(f);
    }
    char too_many[32];
    snprintf(too_many, sizeof(too_many), "%ld", nr_open + 1);
    EXPECT_MATCH(c,
                 "-ERR CONFIG SET failed (possibly related to argument 'maxclients') - The "
                 "operating system is not able to handle the specified number of clients, try "
                 "with *",
                 "CONFIG", "SET", "maxmemory", "5mb", "maxclients", too_many);
    EXPECT_REPLY(c, "['maxclients', '1000']", "CONFIG", "GET", "maxclients");
    EXPECT_REPLY(c, "['maxmemory', '0']", "CONFIG", "GET", "maxmemory");
    EXPECT_STATUS(c, "PONG", "PING");
    h_close(&s, c);
}

static void test_idle_timeout(void)
{
    struct h_server s;
    redisContext *busy = h_open(&s, H_FLAGS("--timeout", "1"));
    if (!busy)
        return;
    struct h_raw idle;
    if (h_raw_open(&idle, &s) < 0) {
        h_close(&s, busy);
        return;
    }
    RAW_SEND(&idle, "PING\r\n");
    RAW_EXPECT(&idle, "+PONG\r\n");
    int64_t t0 = h_now_ms();
    /* An active client outlives the timeout; the idle one does not. */
    int closed = 0;
    while (h_now_ms() - t0 < 4000 * H_SLOW && !closed) {
        EXPECT_STATUS(busy, "PONG", "PING");
        closed = h_raw_wait_closed(&idle, 200) == 1;
    }
    int64_t after = h_now_ms() - t0;
    printf("   idle client closed after %lld ms\n", (long long)after);
    CHECK(closed, "the idle client was not closed within %d ms", 4000 * H_SLOW);
    CHECK(after >= 900, "the idle client was closed too early: %lld ms", (long long)after);
    EXPECT_STATUS(busy, "PONG", "PING");
    h_raw_close(&idle);
    h_close(&s, busy);
}

/* A raw socket, not hiredis: hiredis 0.14 moves its whole output buffer after
 * every partial write, which makes a 50 MB request take seconds. */
static void test_big_value(void)
{
    struct h_raw r;
    if (h_raw_open(&r, &srv) < 0)
        return;
    char *v = malloc(BIG_VALUE), head[64];
    for (size_t i = 0; i < BIG_VALUE; i++)
        v[i] = (char)(i * 31 + (i >> 13));
    int n = snprintf(head, sizeof(head), "*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$%d\r\n",
                     BIG_VALUE);
    h_raw_send(&r, head, (size_t)n);
    h_raw_send(&r, v, BIG_VALUE);
    RAW_SEND(&r, "\r\nSTRLEN big\r\nGET big\r\n");
    /* The server reads the last megabytes of the value after the send returns:
     * a fraction of a second of CPU, longer than RAW_EXPECT waits on a loaded machine. */
    size_t len = 0;
    h_raw_read_reply(&r, &len, H_RAW_TIMEOUT_MS * 5);
    RAW_EXPECT(&r, "+OK\r\n");
    n = snprintf(head, sizeof(head), ":%d\r\n", BIG_VALUE);
    h_raw_expect(__FILE__, __LINE__, &r, head, (size_t)n, 0);
    n = snprintf(head, sizeof(head), "$%d\r\n", BIG_VALUE);
    int whole = h_raw_read_reply(&r, &len, H_RAW_TIMEOUT_MS * 5) == 0;
    CHECK(whole && len == (size_t)n + BIG_VALUE + 2 && !memcmp(r.buf, head, (size_t)n) &&
              !memcmp(r.buf + n, v, BIG_VALUE) && !memcmp(r.buf + n + BIG_VALUE, "\r\n", 2),
          "GET of a %d-byte value did not return it intact", BIG_VALUE);
    if (whole)
        h_raw_consume(&r, len);
    RAW_SEND(&r, "DEL big\r\n");
    RAW_EXPECT(&r, ":1\r\n");
    free(v);
    h_raw_close(&r);
}

/* Stores OUTPUT_VALUE bytes under "v". */
static void set_big_value(redisContext *c)
{
    char *v = malloc(OUTPUT_VALUE);
    memset(v, 'v', OUTPUT_VALUE);
    EXPECT_BIN(c, "+OK", H_S("SET"), H_S("v"), H_B(v, OUTPUT_VALUE));
    free(v);
}

static void test_output_buffer_limit(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--client-output-buffer-limit", "normal 8mb 4mb 10"));
    if (!c)
        return;
    set_big_value(c);

    /* A client that asks for 500 MB of replies and reads none of them. */
    struct h_raw greedy;
    if (h_raw_open(&greedy, &s) == 0) {
        static const char get[] = "*2\r\n$3\r\nGET\r\n$1\r\nv\r\n";
        size_t len = (sizeof(get) - 1) * OUTPUT_GETS;
        char *req = malloc(len);
        for (int i = 0; i < OUTPUT_GETS; i++)
            memcpy(req + i * (sizeof(get) - 1), get, sizeof(get) - 1);
        h_raw_send(&greedy, req, len);
        free(req);

        /* Meanwhile another client is served, and soon the greedy one is gone. */
        int64_t t0 = h_now_ms(), worst = 0;
        int gone = 0;
        int pongs = 0, pings = 0;
        while (!gone && h_now_ms() - t0 < 3000 * H_SLOW) {
            int64_t p0 = h_now_ms();
            redisReply *pong = H_CALL(c, "PING");
            pongs += pong && pong->type == REDIS_REPLY_STATUS && !strcmp(pong->str, "PONG");
            pings++;
            freeReplyObject(pong);
            if (h_now_ms() - p0 > worst)
                worst = h_now_ms() - p0;
            char info[4096];
            redisReply *r = H_CALL(c, "INFO", "clients");
            gone = r && r->type == REDIS_REPLY_STRING &&
                   h_info_field(r->str, "connected_clients", info, sizeof(info)) == 0 &&
                   atoi(info) == 1;
            freeReplyObject(r);
            h_sleep_ms(20);
        }
        printf("   greedy client %s after %lld ms; worst PING %lld ms\n",
               gone ? "disconnected" : "still connected", (long long)(h_now_ms() - t0),
               (long long)worst);
        CHECK(pongs == pings, "the other client: %d PONGs for %d PINGs", pongs, pings);
        CHECK(gone, "a client over the output buffer hard limit was not disconnected");
        /* What it did get is cut short: far less than it asked for. */
        size_t got = 0;
        while (h_raw_wait_closed(&greedy, 1000 * H_SLOW) == 0) {
            got += greedy.len;
            greedy.len = 0;
        }
        CHECK(got < (size_t)OUTPUT_VALUE * OUTPUT_GETS, "the greedy client got all %zu bytes",
              got);
        h_raw_close(&greedy);
    }
    h_close(&s, c);
}

/* With no hard output limit configured, a client that pipelines requests and
 * reads nothing stops being read once about 1 MB of replies wait for it: the
 * server's memory for it stays bounded, and when it reads again every reply
 * arrives, in full and in order. */
#define PAUSE_GETS 64
static void test_output_pause(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    set_big_value(c);

    struct h_raw greedy;
    if (h_raw_open(&greedy, &s) == 0) {
        static const char get[] = "*2\r\n$3\r\nGET\r\n$1\r\nv\r\n";
        for (int i = 0; i < PAUSE_GETS; i++)
            h_raw_send(&greedy, get, sizeof(get) - 1);
        /* The test: time for the server to answer all it would (it must stop
         * near the pause threshold, so there is no condition to poll for). */
        h_sleep_ms(300 * H_SLOW);

        /* Its unsent output (omem) stays near the pause threshold, far from 64 MB. */
        redisReply *list = H_CALL(c, "CLIENT", "LIST");
        long long worst_omem = 0;
        for (const char *p = list && list->type == REDIS_REPLY_STRING ? list->str : "";
             (p = strstr(p, "omem=")); p++) {
            long long omem = atoll(p + 5);
            if (omem > worst_omem)
                worst_omem = omem;
        }
        freeReplyObject(list);
        printf("   largest unsent output while paused: %lld bytes\n", worst_omem);
        CHECK(worst_omem <= 4 * OUTPUT_VALUE, "unsent output grew to %lld bytes", worst_omem);
        EXPECT_STATUS(c, "PONG", "PING");

        int whole = 0;
        for (int i = 0; i < PAUSE_GETS; i++) {
            size_t len;
            if (h_raw_read_reply(&greedy, &len, H_RAW_TIMEOUT_MS) < 0)
                break;
            whole += len == OUTPUT_VALUE + 12 && greedy.buf[0] == '$';
            h_raw_consume(&greedy, len);
        }
        CHECK(whole == PAUSE_GETS, "%d of %d replies arrived whole", whole, PAUSE_GETS);
        h_raw_close(&greedy);
    }
    h_close(&s, c);
}

/* A unix socket beside TCP: served the same, shown with flag U, created
 * with the configured permissions. */
static void test_unix_socket(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS("--unixsocket", "rbkv.sock", "--unixsocketperm", "700"));
    if (!c)
        return;
    char path[400];
    struct stat st;
    snprintf(path, sizeof(path), "%s/rbkv.sock", s.dir);
    CHECK(stat(path, &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0700,
          "unix socket %s missing or with mode %o", path, (unsigned)(st.st_mode & 0777));
    redisContext *u = redisConnectUnix(path);
    if (CHECK(u && !u->err, "connecting to %s failed", path)) {
        EXPECT_STATUS(u, "PONG", "PING");
        EXPECT_OK(u, "SET", "via", "unix");
        EXPECT_MATCH(u, "'id=* flags=U *'", "CLIENT", "INFO");
    }
    redisFree(u);
    EXPECT_BULK(c, "unix", "GET", "via");
    h_close(&s, c);
}

static void test_shutdown(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    EXPECT_ERR(c, "ERR syntax error", "SHUTDOWN", "foo");
    redisReply *r = H_CALL(c, "SHUTDOWN");
    CHECK(r == NULL, "SHUTDOWN replied instead of closing the connection");
    freeReplyObject(r);
    redisFree(c);
    int status = h_wait_exit(&s, 5000 * H_SLOW);
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "SHUTDOWN: expected exit status 0, wait status %d", status);
}

static void test_sigterm(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    EXPECT_STATUS(c, "PONG", "PING");
    CHECK(h_stop(&s) == 0, "SIGTERM with a client connected: expected exit 0");
    redisReply *r = H_CALL(c, "PING");
    CHECK(r == NULL, "a client of a stopped server still got a reply");
    freeReplyObject(r);
    redisFree(c);
}

/* A second server on a taken port says why it could not start and exits 1,
 * without the lines of a shutdown someone asked for. */
static void test_port_taken(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    char port[16];
    snprintf(port, sizeof(port), "%d", s.port);
    int status = h_exec(&s, "taken.log", 10000 * H_SLOW, H_FLAGS("--port", port));
    CHECK(status == 1, "a server on a taken port exited %d, expected 1", status);
    CHECK(h_file_has(&s, "taken.log", "address already in use"), "no reason in taken.log");
    CHECK(h_file_has(&s, "taken.log", "could not start"), "no 'could not start' in taken.log");
    CHECK(!h_file_has(&s, "taken.log", "User requested shutdown"),
          "a refused start logged 'User requested shutdown'");
    EXPECT_STATUS(c, "PONG", "PING");
    h_close(&s, c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_ping_echo);
    H_RUN(test_dispatch_errors);
    H_RUN(test_quit);
    H_RUN(test_select);
    H_RUN(test_hello);
    H_RUN(test_auth);
    H_RUN(test_client);
    H_RUN(test_client_reply);
    H_RUN(test_client_kill_filters);
    H_RUN(test_pipelining);
    H_RUN(test_yielded_clients_killed);
    H_RUN(test_inline);
    H_RUN(test_protocol_errors);
    H_RUN(test_big_value);
    H_RUN(test_maxclients);
    H_RUN(test_maxclients_fd_limit);
    H_RUN(test_idle_timeout);
    H_RUN(test_output_buffer_limit);
    H_RUN(test_output_pause);
    H_RUN(test_unix_socket);
    H_RUN(test_shutdown);
    H_RUN(test_sigterm);
    H_RUN(test_port_taken);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
