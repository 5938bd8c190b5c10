/*
 * test_config.c - unit tests of server/core/config*.c (defaults, config files,
 * --flags, config_set/config_set_many, CONFIG GET texts, CONFIG REWRITE,
 * rename-command and its effect on the command table) and server/base/glob.c.
 *
 * Expected texts are Redis 7's (checked against redis-server 7.0). Every
 * part ends by checking that the counting allocator (mem.h) holds no more
 * than before it: config_destroy must free everything.
 * Usage: test_config [part]; with no part, all parts run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "command.h"
#include "commands.h"
#include "config.h"
#include "config_file.h"
#include "config_rewrite.h"
#include "glob.h"
#include "mem.h"
#include "server.h"

/* got equals want. */
#define CHECK_STR(got, want)                                                                      \
    do {                                                                                          \
        const char *got_ = (got), *want_ = (want);                                                \
        CHECK_MSG(strcmp(got_, want_) == 0, "got '%s'\n    want '%s'", got_, want_);              \
    } while (0)

/* err contains want (the reason part of a longer message). */
#define CHECK_HAS(err, want)                                                                      \
    do {                                                                                          \
        const char *err_ = (err), *want_ = (want);                                                \
        CHECK_MSG(strstr(err_, want_) != NULL, "'%s'\n    lacks '%s'", err_, want_);              \
    } while (0)

static char tmpdir[] = "/tmp/rbkv-test-config-XXXXXX";

/* Writes text to a fresh file in tmpdir; returns its path (static buffer). */
static const char *write_temp(const char *name, const char *text)
{
    static char path[256];
    FILE *f;
    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
    return path;
}

static char *slurp(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    size_t n = 0;
    if (f) {
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
    return buf;
}

/* The CONFIG GET text of name, into a static buffer. */
static const char *get(const struct config *cfg, const char *name)
{
    static char buf[512];
    int i = config_find(name, strlen(name));
    if (i < 0)
        return "<unknown>";
    char *v = config_get(cfg, (size_t)i);
    snprintf(buf, sizeof(buf), "%s", v);
    xfree(v);
    return buf;
}

/* config_set with one value; returns its result, the reason in err. */
static int set1(struct config *cfg, const char *name, const char *value, char *err, size_t errlen)
{
    return config_set(cfg, name, 1, &value, err, errlen);
}

static void test_defaults(void)
{
    struct config cfg;
    CHECK(config_init(&cfg) == 0);
    CHECK(cfg.bind_count == 1);
    CHECK_STR(cfg.bind[0], "127.0.0.1");
    CHECK(cfg.port == 6379);
    CHECK(cfg.unixsocket == NULL);
    CHECK(cfg.unixsocketperm == 0);
    CHECK(cfg.requirepass.p == NULL);
    CHECK(cfg.maxclients == 10000);
    CHECK(cfg.timeout == 0);
    CHECK(cfg.tcp_keepalive == 300);
    CHECK(cfg.databases == 16);
    CHECK(cfg.maxmemory == 0);
    CHECK(cfg.maxmemory_policy == MAXMEMORY_NO_EVICTION);
    CHECK(cfg.maxmemory_samples == 5 && cfg.maxmemory_eviction_tenacity == 10);
    CHECK(cfg.lfu_log_factor == 10 && cfg.lfu_decay_time == 1);
    CHECK(cfg.client_query_buffer_limit == 1024ULL * 1024 * 1024);
    CHECK(cfg.client_output_limit.hard_bytes == 0 && cfg.client_output_limit.soft_bytes == 0 &&
          cfg.client_output_limit.soft_seconds == 0);
    CHECK(cfg.proto_max_bulk_len == 512ULL * 1024 * 1024);
    CHECK(cfg.loglevel == LOG_NOTICE);
    CHECK_STR(cfg.logfile, "");
    CHECK(cfg.hz == 10);
    CHECK(cfg.protected_mode == 1);

    /* CONFIG GET texts, as redis-server 7.0 prints its defaults. */
    static const char *const want[][2] = {
        {"bind", "127.0.0.1"},
        {"port", "6379"},
        {"unixsocket", ""},
        {"unixsocketperm", "0"},
        {"requirepass", ""},
        {"tls-port", "0"},
        {"tls-cert-file", ""},
        {"tls-key-file", ""},
        {"tls-key-file-pass", ""},
        {"tls-client-cert-file", ""},
        {"tls-client-key-file", ""},
        {"tls-client-key-file-pass", ""},
        {"tls-ca-cert-file", ""},
        {"tls-ca-cert-dir", ""},
        {"tls-dh-params-file", ""},
        {"tls-auth-clients", "yes"},
        {"tls-protocols", ""},
        {"tls-ciphers", ""},
        {"tls-ciphersuites", ""},
        {"tls-prefer-server-ciphers", "no"},
        {"tls-session-caching", "yes"},
        {"tls-session-cache-size", "20480"},
        {"tls-session-cache-timeout", "300"},
        {"tls-replication", "no"},
        {"aclfile", ""},
        {"acllog-max-len", "128"},
        {"acl-pubsub-default", "resetchannels"},
        {"maxclients", "10000"},
        {"timeout", "0"},
        {"tcp-keepalive", "300"},
        {"databases", "16"},
        {"maxmemory", "0"},
        {"maxmemory-policy", "noeviction"},
        {"maxmemory-samples", "5"},
        {"maxmemory-eviction-tenacity", "10"},
        {"lfu-log-factor", "10"},
        {"lfu-decay-time", "1"},
        {"maxmemory-clients", "0"},
        {"io-threads", "1"},
        {"client-query-buffer-limit", "1073741824"},
        {"client-output-buffer-limit",
         "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
        {"proto-max-bulk-len", "536870912"},
        {"loglevel", "notice"},
        {"logfile", ""},
        {"hz", "10"},
        {"protected-mode", "yes"},
        {"daemonize", "no"},
        {"dbfilename", "dump.rbkv"},
        {"save", ""},
        {"stop-writes-on-bgsave-error", "yes"},
        {"appendonly", "no"},
        {"appendfsync", "everysec"},
        {"appendfilename", "appendonly.aof"},
        {"aof-load-truncated", "yes"},
        {"auto-aof-rewrite-percentage", "100"},
        {"auto-aof-rewrite-min-size", "67108864"},
        {"replicaof", ""},
        {"masterauth", ""},
        {"masteruser", ""},
        {"replica-read-only", "yes"},
        {"replica-serve-stale-data", "yes"},
        {"replica-priority", "100"},
        {"replica-announce-ip", ""},
        {"replica-announce-port", "0"},
        {"replica-announced", "yes"},
        {"repl-backlog-size", "1048576"},
        {"repl-backlog-ttl", "3600"},
        {"repl-timeout", "60"},
        {"repl-ping-replica-period", "10"},
        {"repl-diskless-sync", "yes"},
        {"repl-diskless-sync-delay", "5"},
        {"min-replicas-to-write", "0"},
        {"min-replicas-max-lag", "10"},
        {"notify-keyspace-events", ""},
        {"enable-debug-command", "no"},
        {"hash-max-listpack-entries", "128"},
        {"hash-max-listpack-value", "64"},
        {"set-max-intset-entries", "512"},
        {"set-max-listpack-entries", "128"},
        {"set-max-listpack-value", "64"},
        {"zset-max-listpack-entries", "128"},
        {"zset-max-listpack-value", "64"},
        {"list-max-listpack-size", "-2"},
        {"list-compress-depth", "0"},
        {"stream-node-max-bytes", "4096"},
        {"stream-node-max-entries", "100"},
        {"slowlog-log-slower-than", "10000"},
        {"slowlog-max-len", "128"},
        {"latency-monitor-threshold", "0"},
        {"latency-tracking", "yes"},
        {"latency-tracking-info-percentiles", "50 99 99.9"},
        {"busy-reply-threshold", "5000"},
        /* Redis 7.0's others, at redis-server 7.0.15's defaults. */
        {"pidfile", ""},
        {"supervised", "no"},
        {"syslog-enabled", "no"},
        {"syslog-ident", "redis"},
        {"syslog-facility", "local0"},
        {"tcp-backlog", "511"},
        {"shutdown-on-sigterm", "default"},
        {"shutdown-on-sigint", "default"},
        {"shutdown-timeout", "10"},
        {"oom-score-adj", "no"},
        {"oom-score-adj-values", "0 200 800"},
        {"set-proc-title", "yes"},
        {"proc-title-template", "{title} {listen-addr} {server-mode}"},
        {"active-expire-effort", "1"},
        {"bind-source-addr", ""},
        {"repl-diskless-load", "disabled"},
        {"repl-diskless-sync-max-replicas", "0"},
        {"replica-ignore-maxmemory", "yes"},
        {"replica-lazy-flush", "no"},
        {"repl-disable-tcp-nodelay", "no"},
        {"rdb-del-sync-files", "no"},
        {"replica-ignore-disk-write-errors", "no"},
        {"rdb-key-save-delay", "0"},
        {"key-load-delay", "0"},
        {"rdbchecksum", "yes"},
        {"rdbcompression", "yes"},
        {"aof-use-rdb-preamble", "yes"},
        {"sanitize-dump-payload", "no"},
        {"rdb-save-incremental-fsync", "yes"},
        {"aof-rewrite-incremental-fsync", "yes"},
        {"no-appendfsync-on-rewrite", "no"},
        {"aof-timestamp-enabled", "no"},
        {"aof-disable-auto-gc", "no"},
        {"appenddirname", "appendonlydir"},
        {"lazyfree-lazy-eviction", "no"},
        {"lazyfree-lazy-expire", "no"},
        {"lazyfree-lazy-server-del", "no"},
        {"lazyfree-lazy-user-del", "no"},
        {"lazyfree-lazy-user-flush", "no"},
        {"hll-sparse-max-bytes", "3000"},
        {"tracking-table-max-keys", "1000000"},
        {"activedefrag", "no"},
        {"active-defrag-cycle-min", "1"},
        {"active-defrag-cycle-max", "25"},
        {"active-defrag-threshold-lower", "10"},
        {"active-defrag-threshold-upper", "100"},
        {"active-defrag-max-scan-fields", "1000"},
        {"active-defrag-ignore-bytes", "104857600"},
        {"jemalloc-bg-thread", "yes"},
        {"disable-thp", "yes"},
        {"activerehashing", "yes"},
        {"dynamic-hz", "yes"},
        {"server_cpulist", ""},
        {"bio_cpulist", ""},
        {"aof_rewrite_cpulist", ""},
        {"bgsave_cpulist", ""},
        {"io-threads-do-reads", "no"},
        {"always-show-logo", "no"},
        {"crash-log-enabled", "yes"},
        {"crash-memcheck-enabled", "yes"},
        {"ignore-warnings", ""},
        {"enable-protected-configs", "no"},
        {"enable-module-command", "no"},
        {"propagation-error-behavior", "ignore"},
        {"socket-mark-id", "0"},
        {"cluster-enabled", "no"},
        {"cluster-config-file", "nodes.conf"},
        {"cluster-port", "0"},
        {"cluster-node-timeout", "15000"},
        {"cluster-announce-ip", ""},
        {"cluster-announce-hostname", ""},
        {"cluster-announce-port", "0"},
        {"cluster-announce-bus-port", "0"},
        {"cluster-announce-tls-port", "0"},
        {"cluster-preferred-endpoint-type", "ip"},
        {"cluster-require-full-coverage", "yes"},
        {"cluster-allow-reads-when-down", "no"},
        {"cluster-allow-pubsubshard-when-down", "yes"},
        {"cluster-replica-validity-factor", "10"},
        {"cluster-migration-barrier", "1"},
        {"cluster-allow-replica-migration", "yes"},
        {"cluster-replica-no-failover", "no"},
        {"cluster-link-sendbuf-limit", "0"},
        {"tls-cluster", "no"},
    };
    /* One more: "dir", whose default is wherever the server was started. */
    CHECK(config_count() == sizeof(want) / sizeof(want[0]) + 1);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        CHECK_STR(get(&cfg, want[i][0]), want[i][1]);
    CHECK(config_find("MaxMemory", 9) == config_find("maxmemory", 9));
    /* Redis's older names find the same setting. */
    CHECK(config_find("hash-max-ziplist-entries", 24) == config_find("hash-max-listpack-entries", 25));
    CHECK(config_find("zset-max-ziplist-value", 22) == config_find("zset-max-listpack-value", 23));
    CHECK(config_find("lua-time-limit", 14) == config_find("busy-reply-threshold", 20));
    CHECK(config_find("slaveof", 7) == config_find("replicaof", 9));
    CHECK(config_find("slave-read-only", 15) == config_find("replica-read-only", 17));
    CHECK(config_find("min-slaves-to-write", 19) == config_find("min-replicas-to-write", 21));
    CHECK(config_find("repl-ping-slave-period", 22) == config_find("repl-ping-replica-period", 24));
    CHECK(config_find("maxmemoryx", 9) == config_find("maxmemory", 9)); /* length-bounded */
    CHECK(config_find("nosuch", 6) == -1);
    config_destroy(&cfg);
}

static void test_memory(void)
{
    static const struct {
        const char *text;
        unsigned long long bytes;
    } good[] = {
        {"0", 0},           {"12345", 12345},     {"1b", 1},
        {"1k", 1000},       {"1kb", 1024},        {"1K", 1000},
        {"1KB", 1024},      {"2m", 2000000},      {"2mb", 2097152},
        {"1g", 1000000000}, {"1gb", 1073741824},  {"3Gb", 3221225472ULL},
        {"18446744073709551615", 18446744073709551615ULL},
    };
    static const char *const bad[] = {
        "", "kb", "-1", "1.5gb", "1 kb", " 1", "1kbb", "1t", "abc", "+1",
        "18446744073709551616", "17179869184gb", /* overflow */
    };
    unsigned long long v;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        v = 7;
        CHECK(config_parse_memory(good[i].text, &v) == 0);
        CHECK_MSG(v == good[i].bytes, "'%s' gave %llu", good[i].text, v);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_MSG(config_parse_memory(bad[i], &v) != 0, "'%s' parsed", bad[i]);
}

static void test_set(void)
{
    struct config cfg;
    char err[512];
    config_init(&cfg);

    /* Reasons, exactly as Redis 7 words them. */
    static const char *const cases[][3] = {
        {"port", "abc", "argument couldn't be parsed into an integer"},
        {"port", "12x", "argument couldn't be parsed into an integer"},
        {"port", "65536", "argument must be between 0 and 65535 inclusive"},
        {"port", "-1", "argument must be between 0 and 65535 inclusive"},
        {"maxclients", "0", "argument must be between 1 and 4294967295 inclusive"},
        {"timeout", "-1", "argument must be between 0 and 2147483647 inclusive"},
        {"databases", "0", "argument must be between 1 and 2147483647 inclusive"},
        {"maxmemory", "abc", "argument must be a memory value"},
        {"maxmemory", "-1", "argument must be a memory value"},
        {"proto-max-bulk-len", "1",
         "argument must be between 1048576 and 9223372036854775807 inclusive"},
        {"client-query-buffer-limit", "1k",
         "argument must be between 1048576 and 9223372036854775807 inclusive"},
        {"unixsocketperm", "778", "argument couldn't be parsed as an octal number"},
        {"unixsocketperm", "1000", "argument must be between 0 and 777 inclusive"},
        {"loglevel", "loud",
         "argument(s) must be one of the following: debug, verbose, notice, warning"},
        {"protected-mode", "maybe", "argument must be 'yes' or 'no'"},
        {"maxmemory-policy", "lru",
         "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, "
         "volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"},
        {"maxmemory-samples", "0", "argument must be between 1 and 2147483647 inclusive"},
        {"maxmemory-eviction-tenacity", "101", "argument must be between 0 and 100 inclusive"},
        {"lfu-log-factor", "-1", "argument must be between 0 and 2147483647 inclusive"},
        {"daemonize", "yes", "rbkv does not daemonize"},
        {"daemonize", "perhaps", "argument must be 'yes' or 'no'"},
        {"client-output-buffer-limit", "normal 1 2",
         "Wrong number of arguments in buffer limit configuration."},
        {"client-output-buffer-limit", "master 1 2 3",
         "Invalid client class specified in buffer limit configuration."},
        {"client-output-buffer-limit", "normal 1 2 x",
         "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
        {"client-output-buffer-limit", "",
         "Wrong number of arguments in buffer limit configuration."},
        {"bind", "a b c d e f g h i j k l m n o p q", "Too many bind addresses specified."},
        {"nosuch", "1", "Bad directive or wrong number of arguments"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char before[512];
        snprintf(before, sizeof(before), "%s", get(&cfg, cases[i][0]));
        err[0] = '\0';
        CHECK(set1(&cfg, cases[i][0], cases[i][1], err, sizeof(err)) == -1);
        CHECK_HAS(err, cases[i][2]);
        CHECK_STR(get(&cfg, cases[i][0]), before[0] == '<' ? "<unknown>" : before);
    }
    /* A one-word setting with two words. */
    const char *two[] = {"1", "2"};
    CHECK(config_set(&cfg, "port", 2, two, err, sizeof(err)) == -1);
    CHECK_STR(err, "wrong number of arguments");

    /* Good values, and what CONFIG GET then shows. */
    static const char *const ok[][3] = {
        {"maxmemory", "100mb", "104857600"},
        {"MAXMEMORY", "1G", "1000000000"},
        {"maxmemory-policy", "NOEVICTION", "noeviction"},
        {"maxmemory-policy", "Allkeys-LFU", "allkeys-lfu"},
        {"maxmemory-samples", "10", "10"},
        {"lfu-decay-time", "0", "0"},
        {"loglevel", "WARNING", "warning"},
        {"protected-mode", "No", "no"},
        {"unixsocketperm", "700", "700"},
        {"hz", "1000", "500"}, /* Redis clamps hz */
        {"hz", "0", "1"},
        {"hz", "100", "100"},
        {"requirepass", "s3cret pass", "s3cret pass"},
        {"requirepass", "", ""},
        {"bind", "127.0.0.1   ::1", "127.0.0.1 ::1"},
        {"bind", "", ""},
        {"client-output-buffer-limit", "normal 1k 2kb 3",
         "normal 1000 2048 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
        {"client-output-buffer-limit", "pubsub 1 2 3 replica 4 5 6",
         "normal 1000 2048 3 slave 4 5 6 pubsub 1 2 3"},
        {"daemonize", "no", "no"},
        {"unixsocket", "/tmp/x.sock", "/tmp/x.sock"},
        {"logfile", "/tmp/x.log", "/tmp/x.log"},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        err[0] = '\0';
        CHECK_MSG(set1(&cfg, ok[i][0], ok[i][1], err, sizeof(err)) >= 0, "%s %s: %s", ok[i][0],
                  ok[i][1], err);
        CHECK_STR(get(&cfg, ok[i][0]), ok[i][2]);
    }
    CHECK(cfg.requirepass.p == NULL); /* "" means no password */
    CHECK(cfg.bind_count == 0);
    CHECK(cfg.client_output_limit.hard_bytes == 1000 && cfg.client_output_limit.soft_bytes == 2048 &&
          cfg.client_output_limit.soft_seconds == 3);
    CHECK(cfg.unixsocketperm == 0700);
    CHECK(cfg.loglevel == LOG_WARNING);

    /* Several words given separately, as a file line gives them. */
    const char *obuf[] = {"normal", "1mb", "2mb", "30"};
    CHECK(config_set(&cfg, "client-output-buffer-limit", 4, obuf, err, sizeof(err)) == 0);
    CHECK(cfg.client_output_limit.hard_bytes == 1048576 && cfg.client_output_limit.soft_seconds == 30);
    config_destroy(&cfg);
}

/* Every value's GET text sets back to itself: config_set_many's rollback
 * depends on it. Checked at the defaults and at unusual values. */
static void test_round_trip(void)
{
    struct config cfg;
    char err[512];
    static const char *const odd[][2] = {
        {"requirepass", "a \"quoted\" 'pass' \\ with spaces"},
        {"bind", "10.0.0.1 ::1 /weird\\addr it's\"q"},
        {"client-output-buffer-limit", "normal 1gb 512mb 120"},
        {"maxmemory", "18446744073709551615"},
        {"unixsocketperm", "755"},
        {"logfile", "has space.log"},
    };
    config_init(&cfg);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < config_count(); i++) {
            char *before = config_get(&cfg, i);
            const char *v = before;
            err[0] = '\0';
            CHECK_MSG(config_set(&cfg, config_name(i), 1, &v, err, sizeof(err)) >= 0,
                      "%s '%s': %s", config_name(i), before, err);
            CHECK_STR(get(&cfg, config_name(i)), before);
            xfree(before);
        }
        for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
            CHECK(set1(&cfg, odd[i][0], odd[i][1], err, sizeof(err)) == 0);
    }
    config_destroy(&cfg);
}

static void test_set_many(void)
{
    struct config cfg;
    char err[512];
    config_init(&cfg);

    const char *unknown[] = {"maxmemory", "1", "xyz", "1"};
    CHECK(config_set_many(&cfg, 2, unknown, NULL, err, sizeof(err)) == -1);
    CHECK_STR(err, "ERR Unknown option or number of arguments for CONFIG SET - 'xyz'");

    const char *immutable[] = {"maxmemory", "1", "Databases", "2", "xyz", "3"};
    CHECK(config_set_many(&cfg, 3, immutable, NULL, err, sizeof(err)) == -1);
    CHECK_STR(err, "ERR CONFIG SET failed (possibly related to argument 'Databases') - can't set "
                   "immutable config");

    const char *dup[] = {"maxmemory", "1", "MAXMEMORY", "2"};
    CHECK(config_set_many(&cfg, 2, dup, NULL, err, sizeof(err)) == -1);
    CHECK_STR(err, "ERR CONFIG SET failed (possibly related to argument 'MAXMEMORY') - duplicate "
                   "parameter");

    const char *bad[] = {"MaxMemory", "abc"};
    CHECK(config_set_many(&cfg, 1, bad, NULL, err, sizeof(err)) == -1);
    CHECK_STR(err, "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument "
                   "must be a memory value");

    const char *logfile[] = {"logfile", "x"};
    CHECK(config_set_many(&cfg, 1, logfile, NULL, err, sizeof(err)) == -1);
    CHECK_HAS(err, "can't set immutable config");

    CHECK(cfg.maxmemory == 0); /* nothing above changed anything */

    /* The third value fails: the first two must be rolled back. */
    const char *partial[] = {"maxmemory", "1mb", "requirepass", "pw", "loglevel", "loud"};
    CHECK(config_set_many(&cfg, 3, partial, NULL, err, sizeof(err)) == -1);
    CHECK_HAS(err, "'loglevel') - argument(s) must be one of the following");
    CHECK(cfg.maxmemory == 0);
    CHECK(cfg.requirepass.p == NULL);
    CHECK(cfg.loglevel == LOG_NOTICE);

    const char *good[] = {"maxmemory", "1mb", "requirepass", "pw", "loglevel", "debug",
                          "client-output-buffer-limit", "normal 10 20 30"};
    CHECK(config_set_many(&cfg, 4, good, NULL, err, sizeof(err)) == 0);
    CHECK(cfg.maxmemory == 1048576);
    CHECK_STR(cfg.requirepass.p, "pw");
    CHECK(cfg.loglevel == LOG_DEBUG);
    CHECK(cfg.client_output_limit.soft_seconds == 30);
    config_destroy(&cfg);
}

static void test_file(void)
{
    struct config cfg;
    char err[512];
    const char *path;

    path = write_temp("good.conf",
                      "# a comment\n"
                      "\n"
                      "   # an indented comment\n"
                      "PORT 7000\r\n"
                      "bind 127.0.0.1 ::1\n"
                      "requirepass \"pa ss\\\"word\\x41\\n\"\n"
                      "unixsocket '/tmp/it\\'s.sock'\n"
                      "maxmemory 2gb\n"
                      "protected-mode no\n"
                      "client-output-buffer-limit normal 1mb 512kb 60\n"
                      "save-me-not\"\" x\n"
                      "loglevel verbose");
    config_init(&cfg);
    CHECK(config_load_file(&cfg, path, err, sizeof(err)) == -1);
    CHECK_HAS(err, "at line 11\n>>> 'save-me-not\"\" x'\nBad directive or wrong number of arguments");
    config_destroy(&cfg);

    path = write_temp("good.conf",
                      "# a comment\n"
                      "\n"
                      "   # an indented comment\n"
                      "PORT 7000\r\n"
                      "bind 127.0.0.1 ::1\n"
                      "requirepass \"pa ss\\\"word\\x41\\n\"\n"
                      "unixsocket '/tmp/it\\'s.sock'\n"
                      "maxmemory 2gb\n"
                      "protected-mode no\n"
                      "client-output-buffer-limit normal 1mb 512kb 60\n"
                      "daemonize no\n"
                      "bind \"10.0.0.1 10.0.0.2\"\n"
                      "loglevel verbose"); /* no final newline */
    config_init(&cfg);
    err[0] = '\0';
    CHECK(config_load_file(&cfg, path, err, sizeof(err)) == 0);
    CHECK_STR(err, "");
    CHECK(cfg.port == 7000);
    CHECK(cfg.bind_count == 2); /* the later bind line wins; a quoted list splits */
    CHECK_STR(get(&cfg, "bind"), "10.0.0.1 10.0.0.2");
    CHECK_STR(cfg.requirepass.p, "pa ss\"wordA\n");
    CHECK_STR(cfg.unixsocket, "/tmp/it's.sock");
    CHECK(cfg.maxmemory == 2147483648ULL);
    CHECK(cfg.protected_mode == 0);
    CHECK(cfg.client_output_limit.hard_bytes == 1048576 &&
          cfg.client_output_limit.soft_bytes == 524288 && cfg.client_output_limit.soft_seconds == 60);
    CHECK(cfg.loglevel == LOG_VERBOSE);
    config_destroy(&cfg);

    /* Bad lines: the error names the file, the line number, the line as
     * written, and Redis's reason. */
    static const char *const bad[][3] = {
        {"# c\n\nport abc\n", "3", "'port abc'\nargument couldn't be parsed into an integer"},
        {"port 1 2\n", "1", "'port 1 2'\nwrong number of arguments"},
        {"foo bar\n", "1", "'foo bar'\nBad directive or wrong number of arguments"},
        {"port \"12\n", "1", "'port \"12'\nUnbalanced quotes in configuration line"},
        {"port \"12\"x\n", "1", "Unbalanced quotes in configuration line"},
        {"maxmemory 3x\n", "1", "'maxmemory 3x'\nargument must be a memory value"},
        {"protected-mode 1\n", "1", "argument must be 'yes' or 'no'"},
        {"daemonize yes\n", "1", "rbkv does not daemonize"},
        /* Only a binary-safe setting (requirepass...) takes a NUL. */
        {"port \"1\\x002\"\n", "1", "argument must not contain NUL bytes"},
        {"masteruser \"u\\x00\"\n", "1", "argument must not contain NUL bytes"},
        {"rename-command get \"g\\x00\"\n", "1", "argument must not contain NUL bytes"},
        {"\"port\\x00\" 1\n", "1", "Bad directive or wrong number of arguments"},
        {"port\n", "1", "'port'\nwrong number of arguments"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char want[512];
        path = write_temp("bad.conf", bad[i][0]);
        config_init(&cfg);
        err[0] = '\0';
        CHECK(config_load_file(&cfg, path, err, sizeof(err)) == -1);
        snprintf(want, sizeof(want), "%s, at line %s\n>>> ", path, bad[i][1]);
        CHECK_HAS(err, want);
        CHECK_HAS(err, bad[i][2]);
        config_destroy(&cfg);
    }

    /* "\x00" in double quotes is a NUL byte, as in Redis's sdssplitargs:
     * the binary-safe settings keep every byte. */
    path = write_temp("nul.conf", "requirepass \"a\\x00b\"\nmasterauth \"\\x00\\xff\"\n");
    config_init(&cfg);
    CHECK(config_load_file(&cfg, path, err, sizeof(err)) == 0);
    CHECK(cfg.requirepass.len == 3 && !memcmp(cfg.requirepass.p, "a\0b", 4));
    CHECK(cfg.masterauth.len == 2 && !memcmp(cfg.masterauth.p, "\0\xff", 3));
    config_destroy(&cfg);

    config_init(&cfg);
    CHECK(config_load_file(&cfg, "/nonexistent/rbkv.conf", err, sizeof(err)) == -1);
    CHECK_HAS(err, "can't open config file '/nonexistent/rbkv.conf'");
    config_destroy(&cfg);
}

static int load_args(struct config *cfg, char *err, size_t errlen, ...)
{
    char *argv[32];
    int argc = 0;
    va_list ap;
    va_start(ap, errlen);
    while ((argv[argc] = va_arg(ap, char *)) != NULL)
        argc++;
    va_end(ap);
    return config_load_args(cfg, argc, argv, err, errlen);
}

static void test_flags(void)
{
    struct config cfg;
    char err[512];
    const char *path = write_temp("flags.conf", "port 7000\nmaxmemory 1mb\nloglevel warning\n");

    config_init(&cfg);
    CHECK(config_load_file(&cfg, path, err, sizeof(err)) == 0);
    CHECK(load_args(&cfg, err, sizeof(err), "--port", "7001", "--bind", "127.0.0.1", "::1",
                     "--client-output-buffer-limit", "normal", "0", "0", "0", "--LogLevel",
                     "debug", "--requirepass", "--starts-with-dashes", "--maxmemory 2mb", NULL) == 0);
    CHECK(cfg.port == 7001); /* flags apply after the file */
    CHECK(cfg.bind_count == 2);
    CHECK_STR(get(&cfg, "bind"), "127.0.0.1 ::1");
    CHECK(cfg.loglevel == LOG_DEBUG);
    CHECK_STR(cfg.requirepass.p, "--starts-with-dashes");
    CHECK(cfg.maxmemory == 2097152);
    config_destroy(&cfg);

    config_init(&cfg);
    CHECK(load_args(&cfg, err, sizeof(err), NULL) == 0);
    CHECK(load_args(&cfg, err, sizeof(err), "--bind", "--port", "1", NULL) == 0);
    CHECK(cfg.bind_count == 0 && cfg.port == 1); /* a list flag takes no "--word" */
    CHECK(load_args(&cfg, err, sizeof(err), "--client-output-buffer-limit", "normal 5 6 7", NULL) ==
          0);
    CHECK(cfg.client_output_limit.hard_bytes == 5);

    CHECK(load_args(&cfg, err, sizeof(err), "--port", "abc", NULL) == -1);
    CHECK_HAS(err, "'--port'\n>>> 'port abc'\nargument couldn't be parsed into an integer");
    CHECK(load_args(&cfg, err, sizeof(err), "--foo", "1", NULL) == -1);
    CHECK_HAS(err, "'--foo'\n>>> 'foo 1'\nBad directive or wrong number of arguments");
    CHECK(load_args(&cfg, err, sizeof(err), "--port", NULL) == -1);
    CHECK_HAS(err, "wrong number of arguments");
    CHECK(load_args(&cfg, err, sizeof(err), "--port", "1", "2", NULL) == -1);
    CHECK_HAS(err, ">>> 'port 1 2'\nwrong number of arguments");
    CHECK(load_args(&cfg, err, sizeof(err), "--maxmemory", "1mb", "--requirepass", "a b", "--hz",
                    "x", NULL) == -1);
    CHECK_HAS(err, "'--hz'");
    /* A flag's own words are split as a file line: "\x00" is a NUL there,
     * kept by a binary-safe setting, shown escaped in an error. */
    CHECK(load_args(&cfg, err, sizeof(err), "--requirepass \"x\\x00y\"", NULL) == 0);
    CHECK(cfg.requirepass.len == 3 && !memcmp(cfg.requirepass.p, "x\0y", 4));
    CHECK(load_args(&cfg, err, sizeof(err), "--port \"1\\x00\"", NULL) == -1);
    CHECK_HAS(err, ">>> 'port \"1\\x00\"'\nargument must not contain NUL bytes");
    CHECK(load_args(&cfg, err, sizeof(err), "port", "1", NULL) == -1);
    CHECK_HAS(err, "'port' is not a --name flag");
    CHECK(load_args(&cfg, err, sizeof(err), "--", NULL) == -1);
    CHECK(load_args(&cfg, err, sizeof(err), "--daemonize", "yes", NULL) == -1);
    CHECK_HAS(err, "rbkv does not daemonize");
    config_destroy(&cfg);
}

static void test_rewrite(void)
{
    struct config cfg, again;
    char err[512];
    const char *path = write_temp("rewrite.conf",
                                  "# keep this comment\n"
                                  "port 7000\n"
                                  "\n"
                                  "MaxMemory 1mb   \n"
                                  "# and this one\n"
                                  "bind 127.0.0.1\n"
                                  "bind 127.0.0.2\n"
                                  "loglevel warning\n");
    char saved[256];
    snprintf(saved, sizeof(saved), "%s", path);

    config_init(&cfg);
    CHECK(config_load_file(&cfg, saved, err, sizeof(err)) == 0);
    const char *changes[] = {"maxmemory", "3gb", "requirepass", "p w", "timeout", "30",
                             "loglevel", "notice"};
    CHECK(config_set_many(&cfg, 4, changes, NULL, err, sizeof(err)) == 0);
    CHECK(config_rewrite(&cfg, saved, NULL, 0, err, sizeof(err)) == 0);
    CHECK_STR(slurp(saved), "# keep this comment\n"
                            "port 7000\n"
                            "\n"
                            "maxmemory 3gb\n"
                            "# and this one\n"
                            "bind 127.0.0.2\n"
                            "loglevel notice\n"
                            "# Generated by CONFIG REWRITE\n"
                            "requirepass \"p w\"\n"
                            "timeout 30\n");
    config_init(&again);
    CHECK(config_load_file(&again, saved, err, sizeof(err)) == 0);
    for (size_t i = 0; i < config_count(); i++) {
        char *a = config_get(&cfg, i), *b = config_get(&again, i);
        CHECK_STR(b, a);
        xfree(a);
        xfree(b);
    }
    config_destroy(&again);

    /* Rewriting again changes nothing and adds no second marker. */
    char first[8192];
    snprintf(first, sizeof(first), "%s", slurp(saved));
    CHECK(config_rewrite(&cfg, saved, NULL, 0, err, sizeof(err)) == 0);
    CHECK_STR(slurp(saved), first);

    /* A file that does not exist yet is created. */
    char fresh[256];
    snprintf(fresh, sizeof(fresh), "%s/fresh.conf", tmpdir);
    CHECK(config_rewrite(&cfg, fresh, NULL, 0, err, sizeof(err)) == 0);
    CHECK_HAS(slurp(fresh), "# Generated by CONFIG REWRITE\nbind 127.0.0.2\nport 7000\n");

    /* Words a file would misread are quoted, and read back the same. */
    CHECK(set1(&cfg, "bind", "a\"b c\\d", err, sizeof(err)) == 0);
    CHECK(set1(&cfg, "logfile", "", err, sizeof(err)) == 0);
    CHECK(set1(&cfg, "requirepass", "tab\there\x01", err, sizeof(err)) == 0);
    CHECK(config_rewrite(&cfg, fresh, NULL, 0, err, sizeof(err)) == 0);
    CHECK_HAS(slurp(fresh), "bind \"a\\\"b\" \"c\\\\d\"\n");
    CHECK_HAS(slurp(fresh), "requirepass \"tab\\there\\x01\"\n");
    config_init(&again);
    CHECK(config_load_file(&again, fresh, err, sizeof(err)) == 0);
    CHECK_STR(get(&again, "bind"), "a\"b c\\d");
    CHECK_STR(again.requirepass.p, "tab\there\x01");
    config_destroy(&again);

    /* A binary-safe value with NULs is written with "\x00" escapes, read back
     * whole; its GET text has every byte, and sets back to itself. */
    const char *nul_pass = "\0a\0";
    size_t nul_len = 3, got_len;
    CHECK(config_set_len(&cfg, "requirepass", 1, &nul_pass, &nul_len, err, sizeof(err)) == 0);
    CHECK(config_rewrite(&cfg, fresh, NULL, 0, err, sizeof(err)) == 0);
    CHECK_HAS(slurp(fresh), "requirepass \"\\x00a\\x00\"\n");
    config_init(&again);
    CHECK(config_load_file(&again, fresh, err, sizeof(err)) == 0);
    char *got = config_get_len(&again, (size_t)config_find("requirepass", 11), &got_len);
    CHECK(got_len == 3 && !memcmp(got, "\0a\0", 3));
    const char *undo[] = {"requirepass", got};
    const size_t undo_len[] = {11, got_len};
    CHECK(config_set_many(&cfg, 1, undo, undo_len, err, sizeof(err)) == 0);
    CHECK(cfg.requirepass.len == 3 && !memcmp(cfg.requirepass.p, "\0a\0", 3));
    xfree(got);
    config_destroy(&again);
    /* Any other setting refuses a NUL rather than cut the value short. */
    const char *nul_port[] = {"port", "1\0002"};
    const size_t nul_port_len[] = {4, 3};
    CHECK(config_set_many(&cfg, 1, nul_port, nul_port_len, err, sizeof(err)) == -1);
    CHECK_STR(err, "ERR CONFIG SET failed (possibly related to argument 'port') - argument must "
                   "not contain NUL bytes");

    CHECK(config_rewrite(&cfg, "/nonexistent/dir/x.conf", NULL, 0, err, sizeof(err)) == -1);
    CHECK_STR(err, "No such file or directory");
    config_destroy(&cfg);
}

/* "user" lines: kept in order as written, checked with Redis's texts (a
 * name of a command is acl_start's to check), freed by config_destroy;
 * CONFIG REWRITE puts its caller's user lines in their place, in turn. */
static void test_users(void)
{
    struct config cfg;
    char err[512], saved[256];
    const char *dup[] = {"bob", "on"};
    const char *bad[] = {"dave", "on", "~x", "~*", "~y"};
    const char *later[] = {"erin", "+nosuchcommand"};
    const char *two[] = {"user alice 1", "user bob 2"};
    const char *three[] = {"user a", "user b", "user c"};

    snprintf(saved, sizeof(saved), "%s",
             write_temp("users.conf", "user alice on >pw ~a* +get\n# between\nuser bob off\n"
                                      "port 7000\nuser carol\n"));
    config_init(&cfg);
    CHECK(config_load_file(&cfg, saved, err, sizeof(err)) == 0);
    CHECK(cfg.user_count == 3);
    CHECK_STR(cfg.users[0][0], "alice");
    CHECK_STR(cfg.users[0][4], "+get");
    CHECK(cfg.users[0][5] == NULL);
    CHECK_STR(cfg.users[2][0], "carol");
    CHECK(cfg.users[2][1] == NULL);
    CHECK(config_set(&cfg, "user", 2, dup, err, sizeof(err)) == -1);
    CHECK_STR(err, "Error in user declaration 'bob': Duplicate user found. A user can only be "
                   "defined once in config files");
    /* Redis names the word before the bad rule ("~y"). */
    CHECK(config_set(&cfg, "USER", 5, bad, err, sizeof(err)) == -1);
    CHECK_STR(err, "Error in user declaration '~x': Adding a pattern after the * pattern (or the "
                   "'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' "
                   "to start with an empty list of patterns");
    CHECK(config_set(&cfg, "user", 0, bad, err, sizeof(err)) == -1);
    CHECK_STR(err, "Bad directive or wrong number of arguments");
    CHECK(config_set(&cfg, "user", 2, later, err, sizeof(err)) == 0);
    CHECK(cfg.user_count == 4);

    CHECK(config_rewrite(&cfg, saved, two, 2, err, sizeof(err)) == 0);
    CHECK_STR(slurp(saved), "user alice 1\n# between\nuser bob 2\nport 7000\n");
    CHECK(config_rewrite(&cfg, saved, three, 3, err, sizeof(err)) == 0);
    CHECK_STR(slurp(saved), "user a\n# between\nuser b\nport 7000\n"
                            "# Generated by CONFIG REWRITE\nuser c\n");
    CHECK(config_rewrite(&cfg, saved, NULL, 0, err, sizeof(err)) == 0);
    CHECK_STR(slurp(saved), "# between\nport 7000\n# Generated by CONFIG REWRITE\n");
    config_destroy(&cfg);
}

/* The command names a config's renames give, through the table itself. */
static void apply_table(const struct config *cfg)
{
    server.cfg.renames = cfg->renames;
    server.cfg.rename_count = cfg->rename_count;
    command_table_init();
}

static const struct command *lookup(const char *name)
{
    return command_lookup(name, strlen(name));
}

/* rename-command: read from files and flags in order, checked against the
 * command names with Redis 7's texts, unknown to CONFIG GET/SET/REWRITE. */
static void test_rename(void)
{
    struct config cfg;
    char err[512];
    size_t builtin_count;

    command_table_init();
    builtin_count = command_count();
    const struct command *config_cmd = lookup("config"), *flushall = lookup("flushall"),
                         *get_cmd = lookup("get");
    CHECK(config_cmd && flushall && get_cmd);

    const char *path = write_temp("rename.conf", "rename-command CONFIG b840fc02d52404542\n"
                                                 "Rename-Command flushall \"\"\n"
                                                 "rename-command get get\n");
    config_init(&cfg);
    CHECK(config_load_file(&cfg, path, err, sizeof(err)) == 0);
    CHECK(load_args(&cfg, err, sizeof(err), "--rename-command", "FLUSHDB", "", "--port", "7000",
                    NULL) == 0);
    CHECK(cfg.rename_count == 4 && cfg.port == 7000);
    CHECK_STR(cfg.renames[0], "CONFIG");
    CHECK_STR(cfg.renames[1], "b840fc02d52404542");
    CHECK_STR(cfg.renames[3], "");
    CHECK_STR(cfg.renames[7], "");

    /* Not a setting: CONFIG GET lists nothing, CONFIG SET refuses as Redis does. */
    CHECK(config_find("rename-command", 14) < 0);
    const char *pairs[] = {"rename-command", "get x"};
    CHECK(config_set_many(&cfg, 1, pairs, NULL, err, sizeof(err)) == -1);
    CHECK_STR(err, "ERR Unknown option or number of arguments for CONFIG SET - 'rename-command'");
    CHECK(cfg.rename_count == 4);

    /* The table: new names call the command, old and disabled ones nothing;
     * the command keeps its own name and place, which COMMAND shows. */
    apply_table(&cfg);
    CHECK(lookup("B840FC02D52404542") == config_cmd);
    CHECK(lookup("config") == NULL);
    CHECK(lookup("flushall") == NULL && lookup("flushdb") == NULL);
    CHECK(lookup("get") == get_cmd);
    CHECK(command_lookup_builtin("config", 6) == config_cmd);
    CHECK(command_lookup_builtin("flushall", 8) == flushall);
    CHECK(command_count() == builtin_count - 2);
    int seen_config = 0;
    for (size_t i = 0; i < command_count(); i++) {
        CHECK(command_at(i) != flushall);
        seen_config += command_at(i) == config_cmd;
    }
    CHECK(seen_config == 1);
    CHECK_STR(config_cmd->name, "config");

    /* CONFIG REWRITE keeps the lines as they are and adds none. */
    CHECK(set1(&cfg, "port", "7001", err, sizeof(err)) == 0);
    CHECK(config_rewrite(&cfg, path, NULL, 0, err, sizeof(err)) == 0);
    CHECK_STR(slurp(path), "rename-command CONFIG b840fc02d52404542\n"
                           "Rename-Command flushall \"\"\n"
                           "rename-command get get\n"
                           "# Generated by CONFIG REWRITE\n"
                           "port 7001\n");
    config_destroy(&cfg);

    /* Each line is checked against the names the earlier ones left. */
    static const struct {
        const char *file, *reason;
    } bad[] = {
        {"rename-command nosuchcommand x\n", "No such command in rename-command"},
        {"rename-command get set\n", "Target command name already exists"},
        {"rename-command get SET\n", "Target command name already exists"},
        {"rename-command get g2\nrename-command get g3\n", "No such command in rename-command"},
        {"rename-command get \"\"\nrename-command get x\n", "No such command in rename-command"},
        {"rename-command get g2\nrename-command set g2\n", "Target command name already exists"},
        {"rename-command config|get x\n", "No such command in rename-command"},
        {"rename-command get\n", "Bad directive or wrong number of arguments"},
        {"rename-command get a b\n", "Bad directive or wrong number of arguments"},
        {"rename-command\n", "Bad directive or wrong number of arguments"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        config_init(&cfg);
        CHECK(config_load_file(&cfg, write_temp("bad.conf", bad[i].file), err, sizeof(err)) == -1);
        CHECK_HAS(err, bad[i].reason);
        config_destroy(&cfg);
    }
    config_init(&cfg);
    CHECK(config_load_file(&cfg, write_temp("bad.conf", "port 1\nrename-command nope x\n"), err,
                           sizeof(err)) == -1);
    CHECK_HAS(err, "at line 2\n>>> 'rename-command nope x'\nNo such command in rename-command");
    CHECK(load_args(&cfg, err, sizeof(err), "--rename-command", "nope", "x", NULL) == -1);
    CHECK_HAS(err, "'--rename-command'\n>>> 'rename-command nope x'\n"
                   "No such command in rename-command");
    CHECK(cfg.rename_count == 0);

    /* A chain, a freed name taken by another command, any case. */
    CHECK(config_load_file(&cfg, write_temp("chain.conf", "rename-command get g2\n"
                                                           "rename-command G2 g3\n"
                                                           "rename-command set get\n"
                                                           "rename-command DEL Remove\n"),
                           err, sizeof(err)) == 0);
    apply_table(&cfg);
    CHECK(lookup("g3") == get_cmd && lookup("g2") == NULL);
    CHECK(lookup("GET") == command_lookup_builtin("set", 3));
    CHECK(lookup("remove") == command_lookup_builtin("del", 3) && lookup("del") == NULL);
    CHECK(command_count() == builtin_count);
    config_destroy(&cfg);

    /* Back to the built-in names, for the parts that follow. */
    server.cfg.renames = NULL;
    server.cfg.rename_count = 0;
    command_table_init();
    CHECK(lookup("config") == config_cmd && command_count() == builtin_count);
}

static int match(const char *pat, const char *s, int nocase)
{
    return glob_match(pat, strlen(pat), s, strlen(s), nocase);
}

static void test_glob(void)
{
    /* pattern, subject, expected (Redis 7's stringmatchlen, case-sensitive) */
    static const struct {
        const char *pat, *s;
        int want;
    } cases[] = {
        {"*", "anything", 1},      {"*", "", 1},              {"", "", 1},
        {"", "a", 0},              {"a*", "a", 1},            {"a*", "abc", 1},
        {"*c", "abc", 1},          {"*b*", "abc", 1},         {"a*c", "ac", 1},
        {"a*c", "ab", 0},          {"h?llo", "hello", 1},     {"h?llo", "hllo", 0},
        {"h[ae]llo", "hallo", 1},  {"h[ae]llo", "hillo", 0},  {"h[^e]llo", "hallo", 1},
        {"h[^e]llo", "hello", 0},  {"h[a-b]llo", "hbllo", 1}, {"h[a-b]llo", "hcllo", 0},
        {"h[b-a]llo", "hallo", 1}, {"\\*", "*", 1},           {"\\*", "a", 0},
        {"a\\", "a\\", 1},         {"a\\", "a", 0},           {"[\\]]", "]", 1},
        {"[\\-]", "-", 1},         {"[a-]", "a", 1},          {"[abc", "b", 1},
        {"[abc", "d", 0},          {"x[*]", "x*", 1},         {"x[*]", "xa", 0},
        {"[?]", "?", 1},           {"**a", "ba", 1},          {"a**", "a", 1},
        {"Hello", "hello", 0},     {"*a*b*c*", "xaybzc", 1},  {"*a*b*c*", "xaybz", 0},
        {"maxmemory*", "maxmemory-policy", 1},                {"[]]", "]", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CHECK_MSG(match(cases[i].pat, cases[i].s, 0) == cases[i].want,
                  "glob '%s' on '%s' should give %d", cases[i].pat, cases[i].s, cases[i].want);

    CHECK(match("HeLLo", "hello", 1));
    CHECK(match("MAX*", "maxmemory", 1));
    CHECK(match("[A-C]x", "bx", 1));
    CHECK(match("[a-c]x", "BX", 1));
    CHECK(!match("[^A]", "a", 1));
    CHECK(match("\\A", "a", 1));

    /* Binary-safe: NUL and high bytes are ordinary bytes; lengths bound reads. */
    CHECK(glob_match("a\0*", 3, "a\0bc", 4, 0));
    CHECK(!glob_match("a\0*", 3, "a\1bc", 4, 0));
    CHECK(glob_match("?\xff", 2, "\0\xff", 2, 0));
    CHECK(glob_match("[\x80-\xff]", 5, "\xc3", 1, 0));
    CHECK(!glob_match("[\x80-\xff]", 5, "a", 1, 0));
    CHECK(glob_match("ab", 1, "a", 1, 0)); /* plen 1: only "a" is the pattern */

    /* A pattern that is exponential for a naive backtracker. */
    static char s[200001];
    memset(s, 'a', sizeof(s) - 1);
    const char *evil = "*a*a*a*a*a*a*a*a*a*a*a*a*b";
    clock_t t0 = clock();
    CHECK(!glob_match(evil, strlen(evil), s, sizeof(s) - 1, 0));
    CHECK(match("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac", 0) == 0);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(secs < 5.0);
}

static const struct {
    const char *name;
    void (*run)(void);
} parts[] = {
    {"defaults", test_defaults}, {"memory", test_memory},   {"set", test_set},
    {"round_trip", test_round_trip}, {"set_many", test_set_many}, {"file", test_file},
    {"flags", test_flags},       {"rewrite", test_rewrite}, {"glob", test_glob},
    {"rename", test_rename},     {"users", test_users},
};

int main(int argc, char **argv)
{
    int ran = 0;
    commands_register(); /* the names rename-command checks against */
    check_tmpdir(tmpdir);
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        if (argc > 1 && strcmp(argv[1], parts[i].name))
            continue;
        size_t before = mem_used();
        parts[i].run();
        CHECK_MSG(mem_used() == before, "%s: leaked %zd bytes", parts[i].name,
                  (ssize_t)(mem_used() - before));
        printf("%s: ok\n", parts[i].name);
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "no part named %s\n", argv[1]);
        return 2;
    }
    return 0;
}
