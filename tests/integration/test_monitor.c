/*
 * test_monitor.c - end-to-end tests of MONITOR, CLIENT PAUSE / UNPAUSE,
 * CLIENT NO-EVICT / NO-TOUCH, CLIENT LIST's fields and INFO clients.
 *
 * MONITOR's lines are compared, timestamp and client port masked, with a
 * fixed list taken from Redis 7.0.15 for the same commands, and, when a
 * redis-server is on PATH, with what that server prints for them now. The
 * list covers quoting (quotes, backslashes, control and high bytes), the
 * db index after SELECT, a transaction (MULTI, its commands, then EXEC),
 * redacted passwords, and the commands Redis never shows (admin ones,
 * refused ones).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness_blocking.h"

#define MAX_LINES 64
#define LINE_CAP 256

/* Redis 7.0.15's MONITOR lines for run_sequence, masked by mask_line. */
static const char *const redis_lines[] = {
    "[0 ADDR] \"SET\" \"a\" \"x\\\"y\\\\n\\r\\t\\x00\\x7f\\xff \\a\\b\"",
    "[0 ADDR] \"GET\" \"a\"",
    "[0 ADDR] \"AUTH\" \"(redacted)\"",
    "[0 ADDR] \"AUTH\" \"(redacted)\" \"(redacted)\"",
    "[0 ADDR] \"AUTH\" \"a\" \"b\" \"c\"",
    "[0 ADDR] \"HELLO\" \"2\" \"AUTH\" \"(redacted)\" \"(redacted)\"",
    "[0 ADDR] \"MULTI\"",
    "[0 ADDR] \"SET\" \"k\" \"v\"",
    "[0 ADDR] \"GET\" \"k\"",
    "[0 ADDR] \"EXEC\"",
    "[3 ADDR] \"SELECT\" \"3\"",
    "[3 ADDR] \"GET\" \"\"",
    "[0 ADDR] \"SELECT\" \"0\"",
    "[0 ADDR] \"CLIENT\" \"INFO\"",
    "[0 ADDR] \"CONFIG\" \"HELP\"",
    "[0 ADDR] \"PING\"",
    "[0 ADDR] \"DEL\" \"a\" \"k\"",
};
#define REDIS_LINES ((int)(sizeof(redis_lines) / sizeof(redis_lines[0])))

/* Commands whose lines are redis_lines, and some that show none. */
static void run_sequence(redisContext *c)
{
    freeReplyObject(H_CALL_BIN(c, H_S("SET"), H_S("a"), H_S("x\"y\\n\r\t\0\x7f\xff \a\b")));
    freeReplyObject(H_CALL(c, "GET", "a"));
    freeReplyObject(H_CALL(c, "AUTH", "foo"));
    freeReplyObject(H_CALL(c, "AUTH", "u", "p"));
    freeReplyObject(H_CALL(c, "AUTH", "a", "b", "c"));
    freeReplyObject(H_CALL(c, "HELLO", "2", "AUTH", "default", "pw"));
    freeReplyObject(H_CALL(c, "MULTI"));
    freeReplyObject(H_CALL(c, "SET", "k", "v"));
    freeReplyObject(H_CALL(c, "GET", "k"));
    freeReplyObject(H_CALL(c, "EXEC"));
    freeReplyObject(H_CALL(c, "SELECT", "3"));
    freeReplyObject(H_CALL(c, "GET", ""));
    freeReplyObject(H_CALL(c, "SELECT", "0"));
    /* Admin (CONFIG, CLIENT LIST) and refused (unknown, arity) are not shown. */
    freeReplyObject(H_CALL(c, "CONFIG", "GET", "maxmemory"));
    freeReplyObject(H_CALL(c, "NOSUCH"));
    freeReplyObject(H_CALL(c, "GET"));
    freeReplyObject(H_CALL(c, "CLIENT", "LIST"));
    freeReplyObject(H_CALL(c, "CLIENT", "INFO"));
    /* A subcommand's own flags decide: CONFIG HELP is no admin command,
     * SLOWLOG LEN and CLIENT KILL are; an unknown subcommand never ran. */
    freeReplyObject(H_CALL(c, "CONFIG", "HELP"));
    freeReplyObject(H_CALL(c, "SLOWLOG", "LEN"));
    freeReplyObject(H_CALL(c, "CLIENT", "KILL", "ID", "999999"));
    freeReplyObject(H_CALL(c, "CONFIG", "NOSUCH"));
    freeReplyObject(H_CALL(c, "PING"));
    freeReplyObject(H_CALL(c, "DEL", "a", "k"));
    freeReplyObject(H_CALL(c, "ECHO", "end"));
}

/* "+1700000000.123456 [3 127.0.0.1:5555] rest" -> "[3 ADDR] rest"; a line
 * not of that form is kept whole, so the comparison shows it. */
static void mask_line(const char *line, size_t len, char *out, size_t cap)
{
    const char *sp = memchr(line, ' ', len);
    const char *end = line + len;
    const char *db = sp ? sp + 2 : NULL;
    const char *addr_end = db ? memchr(db, ']', (size_t)(end - db)) : NULL;
    const char *db_end = db ? memchr(db, ' ', (size_t)(end - db)) : NULL;
    if (!addr_end || !db_end || db_end > addr_end || line[0] != '+') {
        snprintf(out, cap, "%.*s", (int)len, line);
        return;
    }
    snprintf(out, cap, "[%.*s ADDR]%.*s", (int)(db_end - db), db, (int)(end - addr_end - 1),
             addr_end + 1);
}

/* Reads status lines (CRLF stripped, masked) from a monitor into lines up
 * to run_sequence's last, ECHO end, which it leaves out; returns how many
 * came before it (or before a read timed out). */
static int read_lines(struct h_raw *m, char lines[][LINE_CAP])
{
    static const char last[] = "\"ECHO\" \"end\"";
    int n = 0;
    size_t len;
    while (n < MAX_LINES && h_raw_read_reply(m, &len, H_RAW_TIMEOUT_MS) == 0) {
        mask_line(m->buf, len - 2, lines[n], LINE_CAP);
        h_raw_consume(m, len);
        size_t l = strlen(lines[n]);
        if (l >= sizeof(last) - 1 && !strcmp(lines[n] + l - (sizeof(last) - 1), last))
            break;
        n++;
    }
    return n;
}

/* MONITOR on s, the sequence from another client, and the lines. */
static int monitor_sequence(const struct h_server *s, char lines[][LINE_CAP])
{
    struct h_raw m;
    int n = 0;
    if (h_raw_open(&m, s) < 0)
        return 0;
    RAW_SEND(&m, "MONITOR\r\n");
    RAW_EXPECT(&m, "+OK\r\n");
    redisContext *c = h_connect(s);
    if (c) {
        run_sequence(c);
        n = read_lines(&m, lines);
        redisFree(c);
    }
    h_raw_close(&m);
    return n;
}

static void test_monitor_lines(void)
{
    struct h_server s, ref;
    static char ours[MAX_LINES][LINE_CAP], theirs[MAX_LINES][LINE_CAP];
    if (h_start(&s, NULL) < 0)
        return;
    int n = monitor_sequence(&s, ours);
    CHECK(n == REDIS_LINES, "MONITOR printed %d lines, Redis 7.0.15 printed %d", n, REDIS_LINES);
    for (int i = 0; i < n && i < REDIS_LINES; i++)
        CHECK(!strcmp(ours[i], redis_lines[i]), "MONITOR line %d: got %s, Redis: %s", i, ours[i],
              redis_lines[i]);
    h_stop(&s);

    int rc = h_is_reference() ? 1 : h_start_reference(&ref, NULL);
    if (rc != 0) {
        printf("no redis-server to compare with: the fixed Redis lines only\n");
        return;
    }
    int m = monitor_sequence(&ref, theirs);
    CHECK(m == n, "redis-server printed %d lines, rbkv %d", m, n);
    for (int i = 0; i < n && i < m; i++)
        CHECK(!strcmp(ours[i], theirs[i]), "line %d: rbkv %s, redis-server %s", i, ours[i],
              theirs[i]);
    h_stop(&ref);
}

/* A monitor is a client: it may PING, may not touch keys, shows flag O,
 * and RESET or QUIT end it; a second MONITOR gets no reply. */
static void test_monitor_client(void)
{
    struct h_server s;
    struct h_raw m;
    redisContext *c = h_open(&s, NULL);
    if (!c || h_raw_open(&m, &s) < 0)
        return;
    RAW_SEND(&m, "MONITOR\r\n");
    RAW_EXPECT(&m, "+OK\r\n");
    EXPECT_MATCH(c, "*flags=O *cmd=monitor *", "CLIENT", "LIST");
    RAW_SEND(&m, "MONITOR\r\nPING\r\n");
    RAW_EXPECT(&m, "+PONG\r\n");
    RAW_EXPECT_MATCH(&m, "+*.* [0 127.0.0.1:*] \"PING\"\r\n");
    RAW_SEND(&m, "GET k\r\n");
    RAW_EXPECT(&m, "-ERR Replica can't interact with the keyspace\r\n");
    RAW_SEND(&m, "RESET\r\n");
    RAW_EXPECT(&m, "+RESET\r\n");
    EXPECT_NIL(c, "GET", "after-reset");
    RAW_SEND(&m, "PING\r\n");
    RAW_EXPECT(&m, "+PONG\r\n"); /* no line for the GET: RESET ended it */
    RAW_SEND(&m, "MONITOR\r\n");
    RAW_EXPECT(&m, "+OK\r\n");
    RAW_SEND(&m, "QUIT\r\n");
    RAW_EXPECT(&m, "+OK\r\n");
    RAW_EXPECT_CLOSED(&m);
    EXPECT_OK(c, "SET", "k", "v");
    EXPECT_MATCH(c, "*flags=N *", "CLIENT", "LIST");
    h_raw_close(&m);

    /* Inside a transaction MONITOR is refused, as for Redis's DENY BLOCKING. */
    EXPECT_TRANSACTION(c, "[-ERR MONITOR isn't allowed for DENY BLOCKING client]", "MONITOR");
    h_close(&s, c);
}

/* A unix socket client is shown as "unix:<path>", as Redis shows it. */
static void test_monitor_unix(void)
{
    struct h_server s;
    struct h_raw m;
    char path[64], want[128];
    snprintf(path, sizeof(path), "/tmp/rbkv-monitor-%d.sock", (int)getpid());
    redisContext *c = h_open(&s, H_FLAGS("--unixsocket", path));
    if (!c || h_raw_open(&m, &s) < 0)
        return;
    RAW_SEND(&m, "MONITOR\r\n");
    RAW_EXPECT(&m, "+OK\r\n");
    redisContext *u = redisConnectUnix(path);
    if (CHECK(u && !u->err, "connect to %s", path)) {
        EXPECT_OK(u, "SET", "k", "v");
        snprintf(want, sizeof(want), "+*.* [0 unix:%s] \"SET\" \"k\" \"v\"\r\n", path);
        RAW_EXPECT_MATCH(&m, want);
    }
    redisFree(u);
    h_raw_close(&m);
    h_close(&s, c);
}

/* On a replica, what the primary's stream applies is shown with the
 * primary's address, as Redis shows its master client's commands. */
static void test_monitor_replica(void)
{
    struct h_server p, r;
    struct h_raw m;
    char port[16], want[128];
    redisContext *pc = h_open(&p, H_FLAGS("--repl-diskless-sync-delay", "0"));
    redisContext *rc = pc ? h_open(&r, NULL) : NULL;
    if (!rc)
        return;
    snprintf(port, sizeof(port), "%d", p.port);
    EXPECT_OK(rc, "REPLICAOF", "127.0.0.1", port);
    CHECK(h_wait_info(rc, "replication", "master_link_status", "up", 10000 * H_SLOW),
          "the replica's link came up");
    if (h_raw_open(&m, &r) == 0) {
        RAW_SEND(&m, "MONITOR\r\n");
        RAW_EXPECT(&m, "+OK\r\n");
        EXPECT_OK(pc, "SET", "k", "v");
        /* The stream's PINGs and SELECT may come first: the SET's line, with
         * the primary's address, within a few lines. */
        /* The name as the stream spells it (rbkv's primary sends it in lower case). */
        snprintf(want, sizeof(want), "+*.* [0 127.0.0.1:%s] \"*\" \"k\" \"v\"\r\n", port);
        int seen = 0;
        size_t len;
        for (int i = 0; i < 8 && !seen && h_raw_read_reply(&m, &len, H_RAW_TIMEOUT_MS) == 0; i++) {
            seen = h_glob(want, m.buf, len);
            h_raw_consume(&m, len);
        }
        CHECK(seen, "the replica's monitor showed the primary's SET from port %s", port);
        h_raw_close(&m);
    }
    h_close(&r, rc);
    h_close(&p, pc);
}

/* A monitor that does not read is a normal client past its hard output
 * limit: closed, as Redis closes it. */
static void test_monitor_output_limit(void)
{
    struct h_server s;
    struct h_raw m;
    redisContext *c = h_open(&s, H_FLAGS("--client-output-buffer-limit", "normal 256kb 0 0"));
    if (!c || h_raw_open(&m, &s) < 0)
        return;
    RAW_SEND(&m, "MONITOR\r\n");
    RAW_EXPECT(&m, "+OK\r\n");
    static char value[64 * 1024];
    memset(value, 'v', sizeof(value));
    /* 64 MB of lines: more than loopback's socket buffers take. */
    for (int i = 0; i < 1024; i++) {
        redisReply *r = H_CALL_BIN(c, H_S("SET"), H_S("k"), H_B(value, sizeof(value)));
        freeReplyObject(r);
        if (i % 64 == 63) {
            redisReply *l = H_CALL(c, "CLIENT", "LIST");
            int gone = l && l->str && !strstr(l->str, "flags=O");
            freeReplyObject(l);
            if (gone)
                break;
        }
    }
    EXPECT_MATCH(c, "*flags=N*", "CLIENT", "LIST");
    redisReply *l = H_CALL(c, "CLIENT", "LIST");
    CHECK(l && l->str && !strstr(l->str, "flags=O"), "the stalled monitor was closed");
    freeReplyObject(l);
    h_raw_close(&m);
    h_close(&s, c);
}

static void expect_info(redisContext *c, const char *name, const char *want)
{
    redisReply *r = H_CALL(c, "INFO", "clients");
    char v[64] = "";
    if (CHECK(r && r->str && h_info_field(r->str, name, v, sizeof(v)) == 0, "INFO %s", name))
        CHECK(!strcmp(v, want), "INFO %s: %s, expected %s", name, v, want);
    freeReplyObject(r);
}

/* WRITE: a write waits, a read runs; writes held run in arrival order on
 * CLIENT UNPAUSE, each with what its client pipelined behind it. */
static void test_pause_write(void)
{
    struct h_server s;
    redisContext *a = h_open(&s, NULL);
    redisContext *w1 = a ? h_connect(&s) : NULL, *w2 = w1 ? h_connect(&s) : NULL;
    if (!w2)
        return;
    EXPECT_OK(a, "SET", "gone", "x", "PX", "100");
    EXPECT_OK(a, "CLIENT", "PAUSE", "20000", "WRITE");
    H_APPEND(w1, "SET", "k", "1");
    H_APPEND(w1, "GET", "k");
    H_SEND(w1, "PING");
    h_await_blocked(a, 1);
    H_BLOCK(w2, a, 2, "INCR", "k");
    EXPECT_NIL(a, "GET", "k");
    /* Oldest first, as Redis lists them. */
    EXPECT_MATCH(a, "*flags=N *flags=b *flags=b *", "CLIENT", "LIST");
    expect_info(a, "blocked_clients", "2");
    /* No active expiry under a pause: the key is due but still counted. The
     * sleep is the test: it lets the 100 ms deadline and a few expiry cycles
     * pass. */
    h_sleep_ms(300);
    EXPECT_MATCH(a, "*db0:keys=1,expires=1,*", "INFO", "keyspace");
    /* A read-only transaction runs; CLIENT PAUSE itself is no write. */
    EXPECT_TRANSACTION(a, "[(nil)]", "GET k");
    long long before = h_info_ll(a, "stats", "total_commands_processed");
    EXPECT_OK(a, "CLIENT", "UNPAUSE");
    redisReply *r;
    char buf[64];
    const char *want1[] = {"+OK", "'1'", "+PONG"};
    for (int i = 0; i < 3; i++) {
        r = h_get_reply(w1);
        CHECK(r && !strcmp(h_repr(r, buf, sizeof(buf)), want1[i]), "w1 reply %d: %s", i,
              r ? buf : "none");
        freeReplyObject(r);
    }
    r = h_get_reply(w2);
    CHECK(r && r->type == REDIS_REPLY_INTEGER && r->integer == 2, "INCR ran after w1's SET");
    freeReplyObject(r);
    expect_info(a, "blocked_clients", "0");
    /* Each held command counts once, when it runs: UNPAUSE, the four held,
     * and the two INFOs since. */
    long long after = h_info_ll(a, "stats", "total_commands_processed");
    CHECK(after == before + 7, "total_commands_processed %lld after %lld", after, before);
    redisFree(w1);
    redisFree(w2);
    h_close(&s, a);
}

/* ALL: every command waits, until the deadline. */
static void test_pause_all_timeout(void)
{
    struct h_server s;
    redisContext *a = h_open(&s, NULL);
    redisContext *b = a ? h_connect(&s) : NULL;
    if (!b)
        return;
    int64_t t0 = h_now_ms();
    EXPECT_OK(a, "CLIENT", "PAUSE", "400");
    EXPECT_STATUS(b, "PONG", "PING");
    int64_t waited = h_now_ms() - t0;
    CHECK(waited >= 350 && waited < 3000 * H_SLOW, "PING waited %lld ms for a 400 ms pause",
          (long long)waited);
    EXPECT_STATUS(b, "PONG", "PING");

    EXPECT_ERR(a, "ERR wrong number of arguments for 'client|pause' command", "CLIENT", "PAUSE");
    EXPECT_ERR(a, "ERR timeout is not an integer or out of range", "CLIENT", "PAUSE", "abc");
    EXPECT_ERR(a, "ERR timeout is negative", "CLIENT", "PAUSE", "-1");
    EXPECT_ERR(a, "ERR CLIENT PAUSE mode must be WRITE or ALL", "CLIENT", "PAUSE", "10", "foo");
    /* The subcommand as sent, as redis-server 7.0.15 names it. */
    EXPECT_ERR(a, "ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT "
                  "HELP.", "CLIENT", "PAUSE", "10", "write", "x");
    EXPECT_ERR(a, "ERR wrong number of arguments for 'client|unpause' command", "CLIENT",
               "UNPAUSE", "x");
    /* A held client that disconnects is forgotten; UNPAUSE then finds none. */
    EXPECT_OK(a, "CLIENT", "PAUSE", "20000", "WRITE");
    H_BLOCK(b, a, 1, "SET", "k", "v");
    redisFree(b);
    h_await_blocked(a, 0);
    EXPECT_OK(a, "CLIENT", "UNPAUSE");
    EXPECT_NIL(a, "GET", "k");
    h_close(&s, a);
}

static void test_client_flags(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    EXPECT_OK(c, "CLIENT", "NO-EVICT", "on");
    EXPECT_MATCH(c, "*flags=e *", "CLIENT", "INFO");
    EXPECT_OK(c, "CLIENT", "NO-TOUCH", "ON");
    EXPECT_MATCH(c, "*flags=eT *", "CLIENT", "INFO");
    EXPECT_OK(c, "CLIENT", "NO-EVICT", "off");
    EXPECT_MATCH(c, "*flags=T *", "CLIENT", "INFO");
    EXPECT_ERR(c, "ERR syntax error", "CLIENT", "NO-EVICT", "maybe");
    EXPECT_ERR(c, "ERR syntax error", "CLIENT", "NO-TOUCH", "maybe");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'client|no-evict' command", "CLIENT",
               "NO-EVICT");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'client|no-touch' command", "CLIENT",
               "NO-TOUCH", "on", "x");
    EXPECT_OK(c, "CLIENT", "NO-EVICT", "on");
    EXPECT_STATUS(c, "RESET", "RESET");
    EXPECT_MATCH(c, "*flags=N *", "CLIENT", "INFO");
    h_close(&s, c);
}

/* Redis 7.0's CLIENT LIST fields, in order, then 7.2's lib-name, lib-ver. */
static const char *const list_fields[] = {
    "id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub", "psub", "ssub",
    "multi", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp", "obl", "oll", "omem",
    "tot-mem", "events", "cmd", "user", "redir", "resp", "lib-name", "lib-ver",
};

/* The value of field in a CLIENT LIST line, as a number (-1 when absent). */
static long long field_value(const char *line, const char *field)
{
    char key[32];
    snprintf(key, sizeof(key), " %s=", field);
    const char *p = strstr(line, key);
    return p ? atoll(p + strlen(key)) : -1;
}

static void test_client_list_fields(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    redisContext *q = c ? h_connect(&s) : NULL;
    if (!q)
        return;
    redisReply *r = H_CALL(c, "CLIENT", "INFO");
    if (CHECK(r && r->str, "CLIENT INFO")) {
        const char *p = r->str;
        size_t n = sizeof(list_fields) / sizeof(list_fields[0]);
        for (size_t i = 0; i < n; i++) {
            size_t len = strlen(list_fields[i]);
            CHECK(!strncmp(p, list_fields[i], len) && p[len] == '=', "field %zu is %s: %.20s", i,
                  list_fields[i], p);
            p = strchr(p, ' ');
            if (!p)
                break;
            p++;
        }
        CHECK(field_value(r->str, "argv-mem") == 10, "argv-mem of CLIENT INFO: 10 bytes");
        CHECK(field_value(r->str, "qbuf-free") > 0, "qbuf-free");
        CHECK(field_value(r->str, "tot-mem") > 1000, "tot-mem");
        CHECK(strstr(r->str, " events=r ") != NULL, "events=r");
    }
    freeReplyObject(r);
    /* A transaction's queue counts in multi and multi-mem. */
    r = H_CALL(q, "CLIENT", "ID");
    char id[24] = "0";
    if (CHECK(r && r->type == REDIS_REPLY_INTEGER, "CLIENT ID"))
        snprintf(id, sizeof(id), "%lld", r->integer);
    freeReplyObject(r);
    EXPECT_OK(q, "MULTI");
    EXPECT_STATUS(q, "QUEUED", "SET", "key", "value");
    EXPECT_STATUS(q, "QUEUED", "GET", "key");
    r = H_CALL(c, "CLIENT", "LIST", "ID", id);
    if (CHECK(r && r->str, "CLIENT LIST ID")) {
        CHECK(field_value(r->str, "multi") == 2, "multi=2");
        CHECK(field_value(r->str, "multi-mem") >= 14, "multi-mem holds the queued arguments");
        CHECK(strstr(r->str, "flags=x ") != NULL, "flags=x");
    }
    freeReplyObject(r);
    redisFree(q);
    h_close(&s, c);
}

static void test_info_clients(void)
{
    static const char *const names[] = {
        "connected_clients", "cluster_connections", "maxclients",
        "client_recent_max_input_buffer", "client_recent_max_output_buffer", "blocked_clients",
        "tracking_clients", "clients_in_timeout_table",
    };
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    redisReply *r = H_CALL(c, "INFO", "clients");
    if (CHECK(r && r->str, "INFO clients")) {
        const char *p = r->str;
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            const char *at = strstr(p, names[i]);
            CHECK(at != NULL, "INFO clients has %s after the fields before it", names[i]);
            if (at)
                p = at;
        }
    }
    freeReplyObject(r);
    /* A 200 KB request shows in the recent input maximum once the cron saw
     * it in the query buffer: pipelined behind a pause, it stays there. */
    redisContext *b = h_connect(&s);
    static char value[200 * 1024];
    memset(value, 'v', sizeof(value));
    EXPECT_OK(c, "CLIENT", "PAUSE", "20000", "WRITE");
    if (b) {
        H_SEND(b, "SET", "a", "1");
        h_send(b, 3, (const char *const[]){"SET", "big", value},
               (const size_t[]){3, 3, sizeof(value)});
    }
    /* Polled: the cron samples the query buffers a few times a second. */
    int64_t deadline = h_now_ms() + 3000 * H_SLOW;
    long long recent;
    while ((recent = h_info_ll(c, "clients", "client_recent_max_input_buffer")) <
               (long long)sizeof(value) &&
           h_now_ms() < deadline)
        h_sleep_ms(20);
    CHECK(recent >= (long long)sizeof(value), "recent max input %lld >= 200 KB", recent);
    expect_info(c, "clients_in_timeout_table", "0");
    EXPECT_OK(c, "CLIENT", "UNPAUSE");
    redisFree(b);
    /* Client eviction itself: test_clientmem.c. */
    EXPECT_STATUS(c, "OK", "CONFIG", "SET", "maxmemory-clients", "10mb");
    EXPECT_REPLY(c, "['maxmemory-clients', '10485760']", "CONFIG", "GET", "maxmemory-clients");
    EXPECT_STATUS(c, "OK", "CONFIG", "SET", "maxmemory-clients", "0");
    EXPECT_REPLY(c, "['maxmemory-clients', '0']", "CONFIG", "GET", "maxmemory-clients");
    h_close(&s, c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_monitor_lines);
    H_RUN(test_monitor_client);
    H_RUN(test_monitor_unix);
    H_RUN(test_monitor_replica);
    H_RUN(test_monitor_output_limit);
    H_RUN(test_pause_write);
    H_RUN(test_pause_all_timeout);
    H_RUN(test_client_flags);
    H_RUN(test_client_list_fields);
    H_RUN(test_info_clients);
    return h_finish();
}
