/*
 * config.c - the settings table and the ways to set and read a setting:
 * defaults, one "name value..." as a file line or a --flag gives it, CONFIG
 * SET and CONFIG GET's text forms.
 *
 * Reading the config file and the flags is config_file.c's, CONFIG REWRITE
 * config_rewrite.c's: they reach the table through config.h and the few
 * accessors of config_internal.h, never defs[] itself, and this file knows
 * nothing of files, quoting or lines.
 *
 * One table, defs[], describes every setting: its name, type, the field of
 * struct config that holds it, bounds, flags and default text, plus optional
 * set/get functions for what a type cannot express. Defaults, files, flags,
 * CONFIG SET, CONFIG GET and CONFIG REWRITE all go through it, so a new
 * setting is one new row (and usually one new field). config_init applies the
 * defaults through the same setters as a file line, so a default that does
 * not parse is caught at start.
 *
 * Invariants:
 *  - a setter validates everything before it changes anything, so a failed
 *    set leaves the old value;
 *  - a value's CONFIG GET text, set again, gives the same value (words of
 *    several-word settings never hold blanks, as they come from a split):
 *    config_set_many rolls back that way, and the unit test checks it.
 *
 * rename-command lines are no setting (CONFIG GET/SET/REWRITE skip them, as
 * in Redis): config_set keeps them in order in struct config, checked
 * against the command names (command.c), which apply them at start. "user"
 * lines neither: kept the same way, their rules checked by acl.c, which
 * creates the users at start; CONFIG REWRITE writes the lines its caller
 * gives in their place.
 *
 * Knows nothing of clients or RESP; cmd_config.c turns CONFIG into calls here.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "acl.h"
#include "config_internal.h"
#include "command.h"
#include "mem.h"
#include "notify.h"
#include "numparse.h"
#include "resp_num.h"
#include "server.h"

enum config_type {
    CONFIG_BOOL,    /* int field; "yes" / "no" */
    CONFIG_INT,     /* int or long long field; decimal */
    CONFIG_OCTAL,   /* int field; octal digits, as unixsocketperm */
    CONFIG_MEMORY,  /* unsigned long long field; bytes, or k/kb/m/mb/g/gb units */
    CONFIG_ENUM,    /* int-sized field holding an index into enum_names */
    CONFIG_STRING,  /* char * field, owned; freed by config_destroy */
    CONFIG_BYTES,   /* struct config_bytes field, owned: any byte, NUL too (Redis's SDS) */
    CONFIG_SPECIAL, /* no generic field: set and get do everything */
};

#define CONFIG_IMMUTABLE (1u << 0)     /* file and flags only: CONFIG SET refuses it */
#define CONFIG_MULTI_ARG (1u << 1)     /* takes several words (bind, buffer limits) */
#define CONFIG_EMPTY_IS_NULL (1u << 2) /* CONFIG_STRING, CONFIG_BYTES: "" is stored as NULL */
#define CONFIG_REWRITE_DROPS (1u << 3)  /* CONFIG REWRITE removes its lines when at its default,
                                          * and always in cluster mode */
#define CONFIG_HIDDEN (1u << 4)        /* not matched by CONFIG GET's globs (Redis's test hooks) */
#define CONFIG_ONLY_DEFAULT (1u << 5)  /* any other value is refused, .note says why */
#define CONFIG_PROTECTED (1u << 6)     /* CONFIG SET only as enable-protected-configs allows */

struct config_def;
/* Sets def from argc words; returns 0, or -1 with the reason in err. */
typedef int config_setter(struct config *cfg, const struct config_def *def, int argc,
                          const char *const *argv, char *err, size_t errlen);
/* The CONFIG GET text, allocated with xmalloc. */
typedef char *config_getter(const struct config *cfg, const struct config_def *def);

struct config_def {
    const char *name;
    const char *alias;                /* Redis's other name for it, or NULL */
    enum config_type type;
    unsigned flags;
    size_t offset, size;              /* the field in struct config */
    unsigned long long min, max;      /* numeric types, inclusive; never negative */
    const char *const *enum_names;    /* CONFIG_ENUM: NULL-terminated, in value order */
    const char *default_value;        /* as a config file would say it */
    config_setter *set;               /* NULL: parse by type; else replaces that */
    config_getter *get;               /* NULL: format by type */
    /* What it does here, for docs/operations.md's generated list
     * (config_doc.c): 0 is CONFIG_AS_REDIS. */
    enum config_status status;
    int issue;                        /* CONFIG_LATER: the issue that will act on it */
    const char *note;                 /* why, for any status but CONFIG_AS_REDIS */
};

#define NOOP(why) .status = CONFIG_NOOP, .note = why
#define LATER(n) .status = CONFIG_LATER, .issue = n

#define FIELD(f) .offset = offsetof(struct config, f), .size = sizeof(((struct config *)0)->f)

#define MB (1024ULL * 1024)

/* Redis clamps hz into this range instead of refusing it (its updateHz). */
#define CONFIG_MIN_HZ 1
#define CONFIG_MAX_HZ 500

static config_setter set_bind, set_hz, set_output_limit, set_daemonize;
static config_getter get_bind, get_output_limit, get_daemonize;
static config_setter set_dir, set_dbfilename, set_save, set_replicaof;
static config_getter get_dir, get_save, get_replicaof;
static config_setter set_notify;
static config_getter get_notify;
static config_setter set_slowlog_threshold, set_percentiles;
static config_getter get_slowlog_threshold, get_percentiles;
static config_setter set_maxmemory_clients;
static config_getter get_maxmemory_clients;
static config_setter set_shutdown_flags, set_oom_score_adj, set_oom_values;
static config_getter get_shutdown_flags, get_oom_values;
static config_setter set_proc_title_template, set_signed_int, set_activedefrag;
static config_getter get_signed_int;

/* Same order as enum log_level. */
static const char *const loglevel_names[] = {"debug", "verbose", "notice", "warning", NULL};
const char *const config_maxmemory_policy_names[] = {
    "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
    "allkeys-lru",  "allkeys-lfu",  "allkeys-random",  "noeviction", NULL};
/* Same order as enum appendfsync. */
static const char *const appendfsync_names[] = {"always", "everysec", "no", NULL};
/* acl-pubsub-default: what a new user's channels are. */
static const char *const acl_pubsub_names[] = {"resetchannels", "allchannels", NULL};
/* Same order as enum protected_access. */
static const char *const protected_names[] = {"no", "yes", "local", NULL};

/* Same order as enum tls_auth_clients. */
static const char *const tls_auth_names[] = {"no", "yes", "optional", NULL};
/* Same order as enum supervised_mode. */
static const char *const supervised_names[] = {"upstart", "systemd", "auto", "no", NULL};
/* syslog-facility: log_use_syslog's order. */
static const char *const facility_names[] = {"user",   "local0", "local1", "local2", "local3",
                                             "local4", "local5", "local6", "local7", NULL};
/* Indexes of enum oom_score_mode ("relative" is stored as "yes"). */
static const char *const oom_names[] = {"no", "yes", "relative", "absolute", NULL};
static const char *const diskless_load_names[] = {"disabled", "on-empty-db", "swapdb", NULL};
static const char *const sanitize_names[] = {"no", "yes", "clients", NULL};
static const char *const propagation_error_names[] = {"ignore", "panic", "panic-on-replicas",
                                                      NULL};
static const char *const endpoint_names[] = {"ip", "hostname", "unknown-endpoint", NULL};

static const struct config_def defs[] = {
    {.name = "bind", .type = CONFIG_SPECIAL, .flags = CONFIG_MULTI_ARG,
     .default_value = "127.0.0.1", .set = set_bind, .get = get_bind,
     .note = "loopback only by default (Redis: `* -::*`)"},
    {.name = "port", .type = CONFIG_INT, FIELD(port), .max = 65535,
     .default_value = "6379"},
    {.name = "unixsocket", .type = CONFIG_STRING, .flags = CONFIG_IMMUTABLE | CONFIG_EMPTY_IS_NULL,
     FIELD(unixsocket), .default_value = ""},
    {.name = "unixsocketperm", .type = CONFIG_OCTAL, .flags = CONFIG_IMMUTABLE,
     FIELD(unixsocketperm), .max = 0777, .default_value = "0"},
    /* TLS (tls.c). A CONFIG SET of any tls- setting rebuilds the context
     * (cmd_config.c), so certificates are reloaded without a restart; one of
     * port or tls-port moves the listener (conn_relisten). */
    {.name = "tls-port", .type = CONFIG_INT, FIELD(tls_port),
     .max = 65535, .default_value = "0"},
    {.name = "tls-cert-file", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(tls_cert_file), .default_value = ""},
    {.name = "tls-key-file", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(tls_key_file), .default_value = ""},
    {.name = "tls-key-file-pass", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(tls_key_file_pass), .default_value = ""},
    {.name = "tls-client-cert-file", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(tls_client_cert_file), .default_value = ""},
    {.name = "tls-client-key-file", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(tls_client_key_file), .default_value = ""},
    {.name = "tls-client-key-file-pass", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(tls_client_key_file_pass), .default_value = ""},
    {.name = "tls-ca-cert-file", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(tls_ca_cert_file), .default_value = ""},
    {.name = "tls-ca-cert-dir", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(tls_ca_cert_dir), .default_value = ""},
    {.name = "tls-dh-params-file", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(tls_dh_params_file), .default_value = ""},
    {.name = "tls-auth-clients", .type = CONFIG_ENUM, FIELD(tls_auth_clients),
     .enum_names = tls_auth_names, .default_value = "yes"},
    {.name = "tls-protocols", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(tls_protocols), .default_value = ""},
    {.name = "tls-ciphers", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(tls_ciphers), .default_value = ""},
    {.name = "tls-ciphersuites", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(tls_ciphersuites), .default_value = ""},
    {.name = "tls-prefer-server-ciphers", .type = CONFIG_BOOL, FIELD(tls_prefer_server_ciphers),
     .default_value = "no"},
    {.name = "tls-session-caching", .type = CONFIG_BOOL, FIELD(tls_session_caching),
     .default_value = "yes"},
    {.name = "tls-session-cache-size", .type = CONFIG_INT, FIELD(tls_session_cache_size),
     .max = INT_MAX, .default_value = "20480"},
    {.name = "tls-session-cache-timeout", .type = CONFIG_INT, FIELD(tls_session_cache_timeout),
     .max = INT_MAX, .default_value = "300"},
    {.name = "tls-replication", .type = CONFIG_BOOL, FIELD(tls_replication),
     .default_value = "no"},
    {.name = "requirepass", .type = CONFIG_BYTES, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(requirepass), .default_value = ""},
    {.name = "aclfile", .type = CONFIG_STRING, .flags = CONFIG_IMMUTABLE | CONFIG_EMPTY_IS_NULL,
     FIELD(aclfile), .default_value = ""},
    {.name = "acllog-max-len", .type = CONFIG_INT, FIELD(acllog_max_len), .max = LLONG_MAX,
     .default_value = "128"},
    {.name = "acl-pubsub-default", .type = CONFIG_ENUM, FIELD(acl_pubsub_default_all),
     .enum_names = acl_pubsub_names, .default_value = "resetchannels"},
    {.name = "maxclients", .type = CONFIG_INT, FIELD(maxclients), .min = 1, .max = UINT_MAX,
     .default_value = "10000"},
    {.name = "timeout", .type = CONFIG_INT, FIELD(timeout), .max = INT_MAX, .default_value = "0"},
    {.name = "tcp-keepalive", .type = CONFIG_INT, FIELD(tcp_keepalive), .max = INT_MAX,
     .default_value = "300"},
    {.name = "databases", .type = CONFIG_INT, .flags = CONFIG_IMMUTABLE, FIELD(databases),
     .min = 1, .max = INT_MAX, .default_value = "16"},
    /* Redis's I/O threads: rbkv does all I/O on its one loop thread, so only
     * Redis's default is accepted (a config file asking for more is told). */
    {.name = "io-threads", .type = CONFIG_INT, .flags = CONFIG_IMMUTABLE | CONFIG_ONLY_DEFAULT,
     FIELD(io_threads), .min = 1, .max = 128, .default_value = "1",
     .status = CONFIG_REFUSED, .note = "rbkv does all I/O on its one event loop thread"},
    {.name = "maxmemory", .type = CONFIG_MEMORY, FIELD(maxmemory), .max = ULLONG_MAX,
     .default_value = "0"},
    {.name = "maxmemory-policy", .type = CONFIG_ENUM, FIELD(maxmemory_policy),
     .enum_names = config_maxmemory_policy_names, .default_value = "noeviction"},
    {.name = "maxmemory-samples", .type = CONFIG_INT, FIELD(maxmemory_samples), .min = 1,
     .max = INT_MAX, .default_value = "5"},
    {.name = "maxmemory-eviction-tenacity", .type = CONFIG_INT,
     FIELD(maxmemory_eviction_tenacity), .max = 100, .default_value = "10"},
    {.name = "lfu-log-factor", .type = CONFIG_INT, FIELD(lfu_log_factor), .max = INT_MAX,
     .default_value = "10"},
    {.name = "lfu-decay-time", .type = CONFIG_INT, FIELD(lfu_decay_time), .max = INT_MAX,
     .default_value = "1"},
    {.name = "maxmemory-clients", .type = CONFIG_SPECIAL, .default_value = "0",
     .set = set_maxmemory_clients, .get = get_maxmemory_clients},
    {.name = "client-query-buffer-limit", .type = CONFIG_MEMORY, FIELD(client_query_buffer_limit),
     .min = MB, .max = LONG_MAX, .default_value = "1gb"},
    {.name = "client-output-buffer-limit", .type = CONFIG_SPECIAL, .flags = CONFIG_MULTI_ARG,
     .default_value = "normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60", .set = set_output_limit, .get = get_output_limit},
    {.name = "proto-max-bulk-len", .type = CONFIG_MEMORY, FIELD(proto_max_bulk_len), .min = MB,
     .max = LONG_MAX, .default_value = "512mb"},
    {.name = "loglevel", .type = CONFIG_ENUM, FIELD(loglevel), .enum_names = loglevel_names,
     .default_value = "notice"},
    {.name = "logfile", .type = CONFIG_STRING, .flags = CONFIG_IMMUTABLE, FIELD(logfile),
     .default_value = ""},
    {.name = "hz", .type = CONFIG_INT, FIELD(hz), .max = INT_MAX, .default_value = "10",
     .set = set_hz},
    {.name = "protected-mode", .type = CONFIG_BOOL, FIELD(protected_mode), .default_value = "yes"},
    {.name = "daemonize", .type = CONFIG_SPECIAL, .flags = CONFIG_IMMUTABLE, .default_value = "no",
     .set = set_daemonize, .get = get_daemonize, .status = CONFIG_REFUSED,
     .note = "`yes` is refused: run it in the foreground under a supervisor (`supervised`)"},
    /* Snapshots (snapshot.h). `save` is off by default: rbkv is in memory
     * unless asked to persist (issue #4). */
    {.name = "dir", .type = CONFIG_SPECIAL, .flags = CONFIG_PROTECTED, .default_value = "./",
     .set = set_dir, .get = get_dir},
    {.name = "dbfilename", .type = CONFIG_STRING, .flags = CONFIG_PROTECTED, FIELD(dbfilename),
     .default_value = "dump.rbkv", .set = set_dbfilename, .note = "rbkv's own snapshot format, hence its own default name"},
    {.name = "save", .type = CONFIG_SPECIAL, .flags = CONFIG_MULTI_ARG, .default_value = "",
     .set = set_save, .get = get_save,
     .note = "no snapshots unless asked (Redis: `3600 1 300 100 60 10000`)"},
    {.name = "stop-writes-on-bgsave-error", .type = CONFIG_BOOL,
     FIELD(stop_writes_on_bgsave_error), .default_value = "yes"},
    /* The append-only log (aof.h). Switching it on at run time would need a
     * rewrite of the dataset first, which is not done yet: immutable. */
    {.name = "appendonly", .type = CONFIG_BOOL, .flags = CONFIG_IMMUTABLE, FIELD(appendonly),
     .default_value = "no", .note = "startup only (Redis switches it at run time)"},
    {.name = "appendfsync", .type = CONFIG_ENUM, FIELD(appendfsync),
     .enum_names = appendfsync_names, .default_value = "everysec"},
    {.name = "appendfilename", .type = CONFIG_STRING, .flags = CONFIG_IMMUTABLE,
     FIELD(appendfilename), .default_value = "appendonly.aof"},
    {.name = "aof-load-truncated", .type = CONFIG_BOOL, FIELD(aof_load_truncated),
     .default_value = "yes"},
    {.name = "auto-aof-rewrite-percentage", .type = CONFIG_INT,
     FIELD(auto_aof_rewrite_percentage), .max = INT_MAX, .default_value = "100"},
    {.name = "auto-aof-rewrite-min-size", .type = CONFIG_MEMORY, FIELD(auto_aof_rewrite_min_size),
     .max = LLONG_MAX, .default_value = "64mb"},
    /* Replication (repl.h). replicaof is set by REPLICAOF at run time, as in
     * Redis, and written by CONFIG REWRITE. */
    {.name = "replicaof", .alias = "slaveof", .type = CONFIG_SPECIAL,
     .flags = CONFIG_IMMUTABLE | CONFIG_MULTI_ARG | CONFIG_REWRITE_DROPS,
     .default_value = "", .set = set_replicaof, .get = get_replicaof},
    {.name = "masterauth", .type = CONFIG_BYTES, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(masterauth), .default_value = ""},
    {.name = "masteruser", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(masteruser), .default_value = ""},
    {.name = "replica-read-only", .alias = "slave-read-only", .type = CONFIG_BOOL,
     FIELD(replica_read_only),
     .default_value = "yes"},
    {.name = "replica-serve-stale-data", .alias = "slave-serve-stale-data", .type = CONFIG_BOOL,
     FIELD(replica_serve_stale_data),
     .default_value = "yes"},
    {.name = "replica-priority", .alias = "slave-priority", .type = CONFIG_INT,
     FIELD(replica_priority), .max = INT_MAX,
     .default_value = "100"},
    {.name = "replica-announce-ip", .alias = "slave-announce-ip", .type = CONFIG_STRING,
     .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(replica_announce_ip), .default_value = ""},
    {.name = "replica-announce-port", .alias = "slave-announce-port", .type = CONFIG_INT,
     FIELD(replica_announce_port),
     .max = 65535, .default_value = "0"},
    {.name = "replica-announced", .type = CONFIG_BOOL, FIELD(replica_announced),
     .default_value = "yes"},
    {.name = "repl-backlog-size", .type = CONFIG_MEMORY, FIELD(repl_backlog_size), .min = 1,
     .max = LLONG_MAX, .default_value = "1mb"},
    {.name = "repl-backlog-ttl", .type = CONFIG_INT, FIELD(repl_backlog_ttl), .max = INT_MAX,
     .default_value = "3600"},
    {.name = "repl-timeout", .type = CONFIG_INT, FIELD(repl_timeout), .min = 1, .max = INT_MAX,
     .default_value = "60"},
    {.name = "repl-ping-replica-period", .alias = "repl-ping-slave-period", .type = CONFIG_INT, FIELD(repl_ping_replica_period),
     .min = 1, .max = INT_MAX, .default_value = "10"},
    {.name = "repl-diskless-sync", .type = CONFIG_BOOL, FIELD(repl_diskless_sync),
     .default_value = "yes"},
    {.name = "repl-diskless-sync-delay", .type = CONFIG_INT, FIELD(repl_diskless_sync_delay),
     .max = INT_MAX, .default_value = "5"},
    {.name = "min-replicas-to-write", .alias = "min-slaves-to-write", .type = CONFIG_INT, FIELD(min_replicas_to_write),
     .max = INT_MAX, .default_value = "0"},
    {.name = "min-replicas-max-lag", .alias = "min-slaves-max-lag", .type = CONFIG_INT, FIELD(min_replicas_max_lag),
     .max = INT_MAX, .default_value = "10"},
    /* Keyspace notifications (notify.h): Redis's letters. */
    {.name = "notify-keyspace-events", .type = CONFIG_SPECIAL, FIELD(notify_keyspace_events),
     .default_value = "", .set = set_notify, .get = get_notify},
    /* Who may run DEBUG: nobody by default, as Redis 7.0 (issue 37); the
     * tests start servers with "local". Only at start, as in Redis. */
    {.name = "enable-debug-command", .type = CONFIG_ENUM, .flags = CONFIG_IMMUTABLE,
     FIELD(enable_debug_command), .enum_names = protected_names, .default_value = "no"},
    /* Encodings of hashes and sets (omap.h), Redis 7's names and defaults;
     * set-max-listpack-* are Redis 7.2's. */
    {.name = "hash-max-listpack-entries", .alias = "hash-max-ziplist-entries", .type = CONFIG_INT,
     FIELD(hash_max_listpack_entries), .max = LONG_MAX, .default_value = "128",
     .note = "default 128 (Redis: 512)"},
    {.name = "hash-max-listpack-value", .alias = "hash-max-ziplist-value", .type = CONFIG_MEMORY,
     FIELD(hash_max_listpack_value), .max = LONG_MAX, .default_value = "64"},
    {.name = "set-max-intset-entries", .type = CONFIG_INT, FIELD(set_max_intset_entries),
     .max = LONG_MAX, .default_value = "512"},
    {.name = "set-max-listpack-entries", .type = CONFIG_INT, FIELD(set_max_listpack_entries), .max = LONG_MAX, .default_value = "128",
     .note = "Redis 7.2's name: not in Redis 7.0"},
    {.name = "set-max-listpack-value", .type = CONFIG_MEMORY, FIELD(set_max_listpack_value),
     .max = LONG_MAX, .default_value = "64", .note = "Redis 7.2's name: not in Redis 7.0"},
    {.name = "zset-max-listpack-entries", .alias = "zset-max-ziplist-entries", .type = CONFIG_INT,
     FIELD(zset_max_listpack_entries), .max = LONG_MAX, .default_value = "128",
     NOOP("a sorted set has one encoding")},
    {.name = "zset-max-listpack-value", .alias = "zset-max-ziplist-value", .type = CONFIG_MEMORY,
     FIELD(zset_max_listpack_value), .max = LONG_MAX, .default_value = "64",
     NOOP("a sorted set has one encoding")},
    /* Lists (olist.h): Redis 7.0's names, aliases and defaults. */
    {.name = "list-max-listpack-size", .alias = "list-max-ziplist-size", .type = CONFIG_SPECIAL,
     FIELD(list_max_listpack_size), .default_value = "-2", .set = set_signed_int,
     .get = get_signed_int},
    {.name = "list-compress-depth", .type = CONFIG_INT, FIELD(list_compress_depth), .max = INT_MAX,
     .default_value = "0", NOOP("a list's chunks are never compressed")},
    /* Streams (xstream.h): the emulated node's limits, which "~" trims by. */
    {.name = "stream-node-max-bytes", .type = CONFIG_MEMORY, FIELD(stream_node_max_bytes),
     .max = LONG_MAX, .default_value = "4096"},
    {.name = "stream-node-max-entries", .type = CONFIG_INT, FIELD(stream_node_max_entries),
     .max = LONG_MAX, .default_value = "100"},
    /* Diagnostics (slowlog.h, latency.h): Redis 7's names and defaults. */
    {.name = "slowlog-log-slower-than", .type = CONFIG_SPECIAL, .default_value = "10000",
     .set = set_slowlog_threshold, .get = get_slowlog_threshold},
    {.name = "slowlog-max-len", .type = CONFIG_INT, FIELD(slowlog_max_len), .max = LLONG_MAX,
     .default_value = "128"},
    {.name = "latency-monitor-threshold", .type = CONFIG_INT, FIELD(latency_monitor_threshold),
     .max = LLONG_MAX, .default_value = "0"},
    {.name = "latency-tracking", .type = CONFIG_BOOL, FIELD(latency_tracking),
     .default_value = "yes"},
    {.name = "latency-tracking-info-percentiles", .type = CONFIG_SPECIAL,
     .flags = CONFIG_MULTI_ARG, .default_value = "50 99 99.9", .set = set_percentiles,
     .get = get_percentiles},
    /* Scripts (script.h): how long a script runs before other clients get
     * -BUSY and SCRIPT KILL may stop it; Redis 7's name, default and alias. */
    {.name = "busy-reply-threshold", .alias = "lua-time-limit", .type = CONFIG_INT,
     FIELD(busy_reply_threshold), .max = LLONG_MAX, .default_value = "5000"},

    /* The process: pid file, supervisor, syslog, signals, the kernel's OOM
     * killer, the process title (procinfo.c, lifecycle.c). */
    {.name = "pidfile", .type = CONFIG_STRING, .flags = CONFIG_IMMUTABLE | CONFIG_EMPTY_IS_NULL,
     FIELD(pidfile), .default_value = ""},
    {.name = "supervised", .type = CONFIG_ENUM, .flags = CONFIG_IMMUTABLE, FIELD(supervised),
     .enum_names = supervised_names, .default_value = "no"},
    {.name = "syslog-enabled", .type = CONFIG_BOOL, .flags = CONFIG_IMMUTABLE,
     FIELD(syslog_enabled), .default_value = "no"},
    {.name = "syslog-ident", .type = CONFIG_STRING, .flags = CONFIG_IMMUTABLE, FIELD(syslog_ident),
     .default_value = "redis"},
    {.name = "syslog-facility", .type = CONFIG_ENUM, .flags = CONFIG_IMMUTABLE,
     FIELD(syslog_facility), .enum_names = facility_names, .default_value = "local0"},
    {.name = "tcp-backlog", .type = CONFIG_INT, .flags = CONFIG_IMMUTABLE, FIELD(tcp_backlog),
     .max = INT_MAX, .default_value = "511"},
    {.name = "shutdown-on-sigterm", .type = CONFIG_SPECIAL, .flags = CONFIG_MULTI_ARG,
     FIELD(shutdown_on_sigterm), .default_value = "default", .set = set_shutdown_flags,
     .get = get_shutdown_flags},
    {.name = "shutdown-on-sigint", .type = CONFIG_SPECIAL, .flags = CONFIG_MULTI_ARG,
     FIELD(shutdown_on_sigint), .default_value = "default", .set = set_shutdown_flags,
     .get = get_shutdown_flags},
    {.name = "shutdown-timeout", .type = CONFIG_INT, FIELD(shutdown_timeout), .max = INT_MAX,
     .default_value = "10"},
    {.name = "oom-score-adj", .type = CONFIG_ENUM, FIELD(oom_score_adj),
     .enum_names = oom_names, .default_value = "no", .set = set_oom_score_adj},
    {.name = "oom-score-adj-values", .type = CONFIG_SPECIAL, .flags = CONFIG_MULTI_ARG,
     .default_value = "0 200 800", .set = set_oom_values, .get = get_oom_values},
    {.name = "set-proc-title", .type = CONFIG_BOOL, .flags = CONFIG_IMMUTABLE,
     FIELD(set_proc_title), .default_value = "yes"},
    {.name = "proc-title-template", .type = CONFIG_STRING, FIELD(proc_title_template),
     .default_value = "{title} {listen-addr} {server-mode}", .set = set_proc_title_template},
    /* Active expiry's effort, 1-10: the slice grows as Redis's time share. */
    {.name = "active-expire-effort", .type = CONFIG_INT, FIELD(active_expire_effort), .min = 1,
     .max = 10, .default_value = "1"},
    /* Replication's other settings (repl.h). */
    {.name = "bind-source-addr", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(bind_source_addr), .default_value = ""},
    {.name = "repl-diskless-load", .type = CONFIG_ENUM, FIELD(repl_diskless_load),
     .enum_names = diskless_load_names, .default_value = "disabled",
     .note = "the snapshot always goes to a file first, so `on-empty-db` acts as `disabled`: "
             "the old data is dropped, then commands without the loading flag get -LOADING "
             "until the new data is in; `swapdb` serves the old data meanwhile (async "
             "loading), which needs memory for both datasets"},
    {.name = "repl-diskless-sync-max-replicas", .type = CONFIG_INT,
     FIELD(repl_diskless_sync_max_replicas), .max = INT_MAX, .default_value = "0"},
    {.name = "replica-ignore-maxmemory", .alias = "slave-ignore-maxmemory", .type = CONFIG_BOOL,
     FIELD(replica_ignore_maxmemory), .default_value = "yes"},
    {.name = "replica-lazy-flush", .alias = "slave-lazy-flush", .type = CONFIG_BOOL,
     FIELD(replica_lazy_flush), .default_value = "no"},
    {.name = "repl-disable-tcp-nodelay", .type = CONFIG_BOOL, FIELD(repl_disable_tcp_nodelay),
     .default_value = "no", NOOP("a replica's link always sends at once (TCP_NODELAY)")},
    {.name = "rdb-del-sync-files", .type = CONFIG_BOOL, FIELD(rdb_del_sync_files),
     .default_value = "no", NOOP("a sync's temporary file is always removed")},
    {.name = "replica-ignore-disk-write-errors", .type = CONFIG_BOOL,
     FIELD(replica_ignore_disk_write_errors), .default_value = "no",
     NOOP("a replica does not refuse its primary's stream after a failed save")},
    /* Redis's test hooks, hidden from CONFIG GET's globs as in Redis:
     * microseconds of sleep per key saved or loaded (negative: nanoseconds
     * in Redis, rounded up to one microsecond here). */
    {.name = "rdb-key-save-delay", .type = CONFIG_SPECIAL, .flags = CONFIG_HIDDEN,
     FIELD(rdb_key_save_delay), .default_value = "0", .set = set_signed_int,
     .get = get_signed_int},
    {.name = "key-load-delay", .type = CONFIG_SPECIAL, .flags = CONFIG_HIDDEN,
     FIELD(key_load_delay), .default_value = "0", .set = set_signed_int, .get = get_signed_int},
    /* Persistence: Redis's RDB format's settings (issue 36) and tuning that
     * has no object here. */
    {.name = "rdbchecksum", .type = CONFIG_BOOL, .flags = CONFIG_IMMUTABLE, FIELD(rdbchecksum),
     .default_value = "yes", LATER(36)},
    {.name = "rdbcompression", .type = CONFIG_BOOL, FIELD(rdbcompression), .default_value = "yes"},
    {.name = "aof-use-rdb-preamble", .type = CONFIG_BOOL, FIELD(aof_use_rdb_preamble),
     .default_value = "yes", LATER(36)},
    {.name = "sanitize-dump-payload", .type = CONFIG_ENUM, FIELD(sanitize_dump_payload),
     .enum_names = sanitize_names, .default_value = "no"},
    {.name = "rdb-save-incremental-fsync", .type = CONFIG_BOOL,
     FIELD(rdb_save_incremental_fsync), .default_value = "yes",
     NOOP("a snapshot is fsynced once, when written")},
    {.name = "aof-rewrite-incremental-fsync", .type = CONFIG_BOOL,
     FIELD(aof_rewrite_incremental_fsync), .default_value = "yes",
     NOOP("a rewritten log is fsynced once, when written")},
    {.name = "no-appendfsync-on-rewrite", .type = CONFIG_BOOL, FIELD(no_appendfsync_on_rewrite),
     .default_value = "no", NOOP("the log is fsynced as `appendfsync` says, rewrite or not")},
    {.name = "aof-timestamp-enabled", .type = CONFIG_BOOL, FIELD(aof_timestamp_enabled),
     .default_value = "no", NOOP("the log holds no timestamp annotations")},
    {.name = "aof-disable-auto-gc", .type = CONFIG_BOOL, FIELD(aof_disable_auto_gc),
     .default_value = "no", NOOP("the log is one file: there are no old parts to remove")},
    {.name = "appenddirname", .type = CONFIG_STRING,
     .flags = CONFIG_IMMUTABLE | CONFIG_ONLY_DEFAULT, FIELD(appenddirname),
     .default_value = "appendonlydir", .status = CONFIG_REFUSED,
     .note = "the log is one file, `appendfilename` in `dir`"},
    /* Lazy freeing: which deletions leave big values to the lazy-free thread
     * (lazyfree.h). */
    {.name = "lazyfree-lazy-eviction", .type = CONFIG_BOOL, FIELD(lazyfree_lazy_eviction),
     .default_value = "no"},
    {.name = "lazyfree-lazy-expire", .type = CONFIG_BOOL, FIELD(lazyfree_lazy_expire),
     .default_value = "no"},
    {.name = "lazyfree-lazy-server-del", .type = CONFIG_BOOL, FIELD(lazyfree_lazy_server_del),
     .default_value = "no"},
    {.name = "lazyfree-lazy-user-del", .type = CONFIG_BOOL, FIELD(lazyfree_lazy_user_del),
     .default_value = "no"},
    {.name = "lazyfree-lazy-user-flush", .type = CONFIG_BOOL, FIELD(lazyfree_lazy_user_flush),
     .default_value = "no"},
    /* The most bytes a sparse HyperLogLog grows to before it turns dense
     * (cmd_hll.c). Client-side caching: issue 37. */
    {.name = "hll-sparse-max-bytes", .type = CONFIG_MEMORY, FIELD(hll_sparse_max_bytes),
     .max = LONG_MAX, .default_value = "3000"},
    {.name = "tracking-table-max-keys", .type = CONFIG_INT, FIELD(tracking_table_max_keys),
     .max = LONG_MAX, .default_value = "1000000",
     .note = "past it, keys leave the tracking table (each invalidated) before each command; 0 is "
             "no limit"},
    /* Memory and the allocator: nothing to defragment, no jemalloc thread,
     * no rehashing for the cron to do (every table rehashes as it is used). */
    {.name = "activedefrag", .type = CONFIG_BOOL, FIELD(activedefrag), .default_value = "no",
     .set = set_activedefrag, .status = CONFIG_REFUSED,
     .note = "`yes` is refused, as by a Redis built without jemalloc: rbkv's allocator has no "
             "defragmenter"},
    {.name = "active-defrag-cycle-min", .type = CONFIG_INT, FIELD(active_defrag_cycle_min),
     .min = 1, .max = 99, .default_value = "1", NOOP("no active defragmentation")},
    {.name = "active-defrag-cycle-max", .type = CONFIG_INT, FIELD(active_defrag_cycle_max),
     .min = 1, .max = 99, .default_value = "25", NOOP("no active defragmentation")},
    {.name = "active-defrag-threshold-lower", .type = CONFIG_INT,
     FIELD(active_defrag_threshold_lower), .max = 1000, .default_value = "10",
     NOOP("no active defragmentation")},
    {.name = "active-defrag-threshold-upper", .type = CONFIG_INT,
     FIELD(active_defrag_threshold_upper), .max = 1000, .default_value = "100",
     NOOP("no active defragmentation")},
    {.name = "active-defrag-max-scan-fields", .type = CONFIG_INT,
     FIELD(active_defrag_max_scan_fields), .min = 1, .max = LONG_MAX, .default_value = "1000",
     NOOP("no active defragmentation")},
    {.name = "active-defrag-ignore-bytes", .type = CONFIG_MEMORY,
     FIELD(active_defrag_ignore_bytes), .min = 1, .max = LLONG_MAX, .default_value = "100mb",
     NOOP("no active defragmentation")},
    {.name = "jemalloc-bg-thread", .type = CONFIG_BOOL, FIELD(jemalloc_bg_thread),
     .default_value = "yes", NOOP("no jemalloc background thread")},
    {.name = "disable-thp", .type = CONFIG_BOOL, .flags = CONFIG_IMMUTABLE, FIELD(disable_thp),
     .default_value = "yes",
     NOOP("transparent huge pages are left as the system has them, but a key index of 16 MB or "
          "more asks for them (madvise)")},
    {.name = "activerehashing", .type = CONFIG_BOOL, FIELD(activerehashing),
     .default_value = "yes",
     NOOP("the key index and sorted sets' member tables resize a bounded step at a time as "
          "they are used (docs/internals.md), so no resize waits for the cron")},
    {.name = "dynamic-hz", .type = CONFIG_BOOL, FIELD(dynamic_hz), .default_value = "yes",
     NOOP("`hz` stays as set, whatever the number of clients")},
    {.name = "server_cpulist", .type = CONFIG_STRING,
     .flags = CONFIG_IMMUTABLE | CONFIG_EMPTY_IS_NULL, FIELD(server_cpulist),
     .default_value = "", NOOP("no CPU pinning: use taskset or the supervisor's")},
    {.name = "bio_cpulist", .type = CONFIG_STRING,
     .flags = CONFIG_IMMUTABLE | CONFIG_EMPTY_IS_NULL, FIELD(bio_cpulist),
     .default_value = "", NOOP("no CPU pinning: use taskset or the supervisor's")},
    {.name = "aof_rewrite_cpulist", .type = CONFIG_STRING,
     .flags = CONFIG_IMMUTABLE | CONFIG_EMPTY_IS_NULL, FIELD(aof_rewrite_cpulist),
     .default_value = "", NOOP("no CPU pinning: use taskset or the supervisor's")},
    {.name = "bgsave_cpulist", .type = CONFIG_STRING,
     .flags = CONFIG_IMMUTABLE | CONFIG_EMPTY_IS_NULL, FIELD(bgsave_cpulist),
     .default_value = "", NOOP("no CPU pinning: use taskset or the supervisor's")},
    {.name = "io-threads-do-reads", .type = CONFIG_BOOL, .flags = CONFIG_IMMUTABLE,
     FIELD(io_threads_do_reads), .default_value = "no",
     NOOP("rbkv does all I/O on its one event loop thread")},
    /* The rest of Redis's process settings. */
    {.name = "always-show-logo", .type = CONFIG_BOOL, .flags = CONFIG_IMMUTABLE,
     FIELD(always_show_logo), .default_value = "no", NOOP("rbkv shows no logo")},
    {.name = "crash-log-enabled", .type = CONFIG_BOOL, FIELD(crash_log_enabled),
     .default_value = "yes", NOOP("no crash report is written")},
    {.name = "crash-memcheck-enabled", .type = CONFIG_BOOL, FIELD(crash_memcheck_enabled),
     .default_value = "yes", NOOP("no crash report is written")},
    {.name = "ignore-warnings", .type = CONFIG_STRING, FIELD(ignore_warnings),
     .default_value = "", NOOP("rbkv gives none of Redis's start-up warnings")},
    {.name = "enable-protected-configs", .type = CONFIG_ENUM, .flags = CONFIG_IMMUTABLE,
     FIELD(enable_protected_configs), .enum_names = protected_names, .default_value = "no"},
    {.name = "enable-module-command", .type = CONFIG_ENUM, .flags = CONFIG_IMMUTABLE,
     FIELD(enable_module_command), .enum_names = protected_names, .default_value = "no",
     NOOP("rbkv has no modules and no MODULE command")},
    {.name = "propagation-error-behavior", .type = CONFIG_ENUM,
     FIELD(propagation_error_behavior), .enum_names = propagation_error_names,
     .default_value = "ignore", NOOP("a replica ignores an error in its primary's stream")},
    {.name = "socket-mark-id", .type = CONFIG_INT,
     .flags = CONFIG_IMMUTABLE | CONFIG_ONLY_DEFAULT, FIELD(socket_mark_id), .max = UINT_MAX,
     .default_value = "0", .status = CONFIG_REFUSED,
     .note = "sockets are not marked (SO_MARK)"},
    /* Cluster mode (issue 35). */
    {.name = "cluster-enabled", .type = CONFIG_BOOL, .flags = CONFIG_IMMUTABLE,
     FIELD(cluster_enabled), .default_value = "no"},
    {.name = "cluster-config-file", .type = CONFIG_STRING, .flags = CONFIG_IMMUTABLE,
     FIELD(cluster_config_file), .default_value = "nodes.conf"},
    {.name = "cluster-port", .type = CONFIG_INT, .flags = CONFIG_IMMUTABLE, FIELD(cluster_port),
     .max = 65535, .default_value = "0"},
    {.name = "cluster-node-timeout", .type = CONFIG_INT, FIELD(cluster_node_timeout),
     .max = LLONG_MAX, .default_value = "15000"},
    {.name = "cluster-announce-ip", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(cluster_announce_ip), .default_value = ""},
    {.name = "cluster-announce-hostname", .type = CONFIG_STRING, .flags = CONFIG_EMPTY_IS_NULL,
     FIELD(cluster_announce_hostname), .default_value = ""},
    {.name = "cluster-announce-port", .type = CONFIG_INT, FIELD(cluster_announce_port),
     .max = 65535, .default_value = "0"},
    {.name = "cluster-announce-bus-port", .type = CONFIG_INT, FIELD(cluster_announce_bus_port),
     .max = 65535, .default_value = "0"},
    {.name = "cluster-announce-tls-port", .type = CONFIG_INT, FIELD(cluster_announce_tls_port),
     .max = 65535, .default_value = "0"},
    {.name = "cluster-preferred-endpoint-type", .type = CONFIG_ENUM,
     FIELD(cluster_preferred_endpoint_type), .enum_names = endpoint_names,
     .default_value = "ip"},
    {.name = "cluster-require-full-coverage", .type = CONFIG_BOOL,
     FIELD(cluster_require_full_coverage), .default_value = "yes"},
    {.name = "cluster-allow-reads-when-down", .type = CONFIG_BOOL,
     FIELD(cluster_allow_reads_when_down), .default_value = "no"},
    {.name = "cluster-allow-pubsubshard-when-down", .type = CONFIG_BOOL,
     FIELD(cluster_allow_pubsubshard_when_down), .default_value = "yes"},
    {.name = "cluster-replica-validity-factor", .alias = "cluster-slave-validity-factor",
     .type = CONFIG_INT, FIELD(cluster_replica_validity_factor), .max = INT_MAX,
     .default_value = "10"},
    {.name = "cluster-migration-barrier", .type = CONFIG_INT, FIELD(cluster_migration_barrier),
     .max = INT_MAX, .default_value = "1"},
    {.name = "cluster-allow-replica-migration", .type = CONFIG_BOOL,
     FIELD(cluster_allow_replica_migration), .default_value = "yes"},
    {.name = "cluster-replica-no-failover", .alias = "cluster-slave-no-failover",
     .type = CONFIG_BOOL, FIELD(cluster_replica_no_failover), .default_value = "no"},
    {.name = "cluster-link-sendbuf-limit", .type = CONFIG_MEMORY,
     FIELD(cluster_link_sendbuf_limit), .max = ULLONG_MAX, .default_value = "0"},
    {.name = "tls-cluster", .type = CONFIG_BOOL, FIELD(tls_cluster), .default_value = "no"},
};

#define NDEFS (sizeof(defs) / sizeof(defs[0]))

/* ---- small helpers (the non-static ones shared: config_internal.h) ---- */

int config_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Sized by retrying rather than by a vsnprintf(NULL, 0) probe, which trips
 * gcc 12's -Wformat-truncation under -O1 -fsanitize=undefined. */
char *config_textf(const char *fmt, ...)
{
    size_t cap = 64;
    char *s = NULL;

    for (;;) {
        va_list ap;
        s = xrealloc(s, cap);
        va_start(ap, fmt);
        int n = vsnprintf(s, cap, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < cap)
            return s;
        cap = n >= 0 ? (size_t)n + 1 : cap * 2;
    }
}

void config_text_add(struct config_text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->p = xrealloc(t->p, t->cap);
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

void config_text_adds(struct config_text *t, const char *s)
{
    config_text_add(t, s, strlen(s));
}

static void *field_of(struct config *cfg, const struct config_def *def)
{
    return (char *)cfg + def->offset;
}

static const void *cfield_of(const struct config *cfg, const struct config_def *def)
{
    return (const char *)cfg + def->offset;
}

/* Integer fields are int or long long (enum fields are int-sized). */
static long long load_int(const void *field, size_t size)
{
    return size == sizeof(int) ? *(const int *)field : *(const long long *)field;
}

static void store_int(void *field, size_t size, long long v)
{
    if (size == sizeof(int))
        *(int *)field = (int)v;
    else
        *(long long *)field = v;
}

static void store_string(struct config *cfg, const struct config_def *def, const char *v)
{
    char **field = field_of(cfg, def);
    xfree(*field);
    *field = (def->flags & CONFIG_EMPTY_IS_NULL) && !v[0] ? NULL : xstrdup(v);
}

static void store_bytes(struct config *cfg, const struct config_def *def, const char *v,
                        size_t len)
{
    struct config_bytes *field = field_of(cfg, def);
    xfree(field->p);
    field->p = (def->flags & CONFIG_EMPTY_IS_NULL) && !len ? NULL : xmemdup(v, len);
    field->len = field->p ? len : 0;
}

void config_free_words(char **v, int n)
{
    for (int i = 0; i < n; i++)
        xfree(v[i]);
    xfree(v);
}

char **config_split_blanks(const char *s, int *argc)
{
    char *copy = xstrdup(s), *save, *w;
    char **v = xmalloc(sizeof(*v) * (strlen(s) / 2 + 1)); /* words alternate with blanks */
    int n = 0;

    for (w = strtok_r(copy, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save))
        v[n++] = xstrdup(w);
    xfree(copy);
    *argc = n;
    return v;
}

/* ---- parsing by type ---- */

static int parse_bool(const char *v, int *out)
{
    if (!strcasecmp(v, "yes"))
        *out = 1;
    else if (!strcasecmp(v, "no"))
        *out = 0;
    else
        return -1;
    return 0;
}

int config_parse_memory(const char *s, unsigned long long *out)
{
    static const struct {
        const char *suffix;
        unsigned long long mul;
    } units[] = {
        {"", 1},          {"b", 1},          {"k", 1000},          {"kb", 1024},
        {"m", 1000000},   {"mb", MB},        {"g", 1000000000ULL}, {"gb", 1024 * MB},
    };
    unsigned long long v = 0;
    const char *u = s;

    for (; *u >= '0' && *u <= '9'; u++) {
        unsigned d = (unsigned)(*u - '0');
        if (v > (ULLONG_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    /* Redis takes "" and "kb" as 0 by accident; a unit alone is a typo. */
    if (u == s)
        return -1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (!strcasecmp(u, units[i].suffix)) {
            if (v > ULLONG_MAX / units[i].mul)
                return -1;
            *out = v * units[i].mul;
            return 0;
        }
    }
    return -1;
}

/* Parses a numeric setting's word and checks its bounds, with Redis's texts. */
static int parse_number(const struct config_def *def, const char *v, unsigned long long *out,
                        char *err, size_t errlen)
{
    unsigned long long n;
    int negative = 0;

    if (def->type == CONFIG_MEMORY) {
        if (config_parse_memory(v, &n) < 0)
            return config_fail(err, errlen, "argument must be a memory value");
    } else if (def->type == CONFIG_OCTAL) {
        char *end;
        errno = 0;
        long long o = strtoll(v, &end, 8);
        if (errno || !*v || *end)
            return config_fail(err, errlen, "argument couldn't be parsed as an octal number");
        negative = o < 0;
        n = (unsigned long long)o;
    } else {
        long long ll;
        if (resp_parse_ll(v, strlen(v), &ll) < 0)
            return config_fail(err, errlen, "argument couldn't be parsed into an integer");
        negative = ll < 0;
        n = (unsigned long long)ll;
    }
    if (negative || n < def->min || n > def->max) {
        if (def->type == CONFIG_OCTAL)
            return config_fail(err, errlen, "argument must be between %llo and %llo inclusive",
                               def->min, def->max);
        return config_fail(err, errlen, "argument must be between %llu and %llu inclusive",
                           def->min, def->max);
    }
    *out = n;
    return 0;
}

static int enum_error(const char *const *names, char *err, size_t errlen)
{
    struct config_text t = {0};
    config_text_adds(&t, "argument(s) must be one of the following: ");
    for (size_t i = 0; names[i]; i++) {
        if (i)
            config_text_adds(&t, ", ");
        config_text_adds(&t, names[i]);
    }
    config_fail(err, errlen, "%s", t.p);
    xfree(t.p);
    return -1;
}

/* Sets a single-word setting by its type; v is len bytes (NULs only in a
 * CONFIG_BYTES value, apply made sure). */
static int set_by_type(struct config *cfg, const struct config_def *def, const char *v, size_t len,
                       char *err, size_t errlen)
{
    void *field = field_of(cfg, def);
    unsigned long long n = 0;
    int b = 0;

    switch (def->type) {
    case CONFIG_BOOL:
        if (parse_bool(v, &b) < 0)
            return config_fail(err, errlen, "argument must be 'yes' or 'no'");
        *(int *)field = b;
        return 0;
    case CONFIG_INT:
    case CONFIG_OCTAL:
        if (parse_number(def, v, &n, err, errlen) < 0)
            return -1;
        store_int(field, def->size, (long long)n);
        return 0;
    case CONFIG_MEMORY:
        if (parse_number(def, v, &n, err, errlen) < 0)
            return -1;
        *(unsigned long long *)field = n;
        return 0;
    case CONFIG_ENUM:
        for (int i = 0; def->enum_names[i]; i++) {
            if (!strcasecmp(v, def->enum_names[i])) {
                store_int(field, def->size, i);
                return 0;
            }
        }
        return enum_error(def->enum_names, err, errlen);
    case CONFIG_STRING:
        store_string(cfg, def, v);
        return 0;
    case CONFIG_BYTES:
        store_bytes(cfg, def, v, len);
        return 0;
    case CONFIG_SPECIAL:
        break;
    }
    return config_fail(err, errlen, "no setter for '%s'", def->name);
}

static char *get_by_type(const struct config *cfg, const struct config_def *def)
{
    const void *field = cfield_of(cfg, def);

    switch (def->type) {
    case CONFIG_BOOL:
        return xstrdup(*(const int *)field ? "yes" : "no");
    case CONFIG_INT:
        return config_textf("%lld", load_int(field, def->size));
    case CONFIG_OCTAL:
        return config_textf("%llo", (unsigned long long)load_int(field, def->size));
    case CONFIG_MEMORY:
        return config_textf("%llu", *(const unsigned long long *)field);
    case CONFIG_ENUM:
        return xstrdup(def->enum_names[load_int(field, def->size)]);
    case CONFIG_STRING: {
        const char *s = *(char *const *)field;
        return xstrdup(s ? s : "");
    }
    case CONFIG_BYTES:   /* config_get_len's, with its length */
    case CONFIG_SPECIAL:
        break;
    }
    return xstrdup("");
}

/* A CONFIG_ONLY_DEFAULT setting: a value of Redis's grammar gets Redis's
 * error; a good one other than the default is refused with the note, and
 * the old value stays (its GET text sets it back, see the invariants). */
static int set_only_default(struct config *cfg, const struct config_def *def, const char *v,
                            char *err, size_t errlen)
{
    char *old = get_by_type(cfg, def);
    int rc = set_by_type(cfg, def, v, strlen(v), err, errlen);
    if (rc == 0) {
        char *now = get_by_type(cfg, def);
        if (strcmp(now, def->default_value)) {
            char ignored[64];
            set_by_type(cfg, def, old, strlen(old), ignored, sizeof(ignored));
            rc = config_fail(err, errlen, "only '%s' is supported: %s", def->default_value,
                             def->note);
        }
        xfree(now);
    }
    xfree(old);
    return rc;
}

/* Whether a word of argv[0..argc) holds a NUL before its end (lens[k]). */
static int has_inner_nul(int argc, const char *const *argv, const size_t *lens)
{
    for (int k = 0; lens && k < argc; k++)
        if (memchr(argv[k], '\0', lens[k]))
            return 1;
    return 0;
}

/* Applies argc words (lens as config_set_len's) to def: the one path every
 * way of setting takes. Only a CONFIG_BYTES setting reads lens; any other
 * sees C strings, so a NUL inside a word is refused here, once. */
static int apply(struct config *cfg, const struct config_def *def, int argc,
                 const char *const *argv, const size_t *lens, char *err, size_t errlen)
{
    if (def->type != CONFIG_BYTES && has_inner_nul(argc, argv, lens))
        return config_fail(err, errlen, "argument must not contain NUL bytes");
    if ((def->flags & CONFIG_MULTI_ARG) && argc == 1) {
        /* CONFIG SET bind "a b" and a file's bind "a b" mean bind a b. */
        int n, rc;
        char **words = config_split_blanks(argv[0], &n);
        rc = def->set(cfg, def, n, (const char *const *)words, err, errlen);
        config_free_words(words, n);
        return rc;
    }
    if (!(def->flags & CONFIG_MULTI_ARG) && argc != 1)
        return config_fail(err, errlen, "wrong number of arguments");
    if (def->flags & CONFIG_ONLY_DEFAULT)
        return set_only_default(cfg, def, argv[0], err, errlen);
    if (def->set)
        return def->set(cfg, def, argc, argv, err, errlen);
    return set_by_type(cfg, def, argv[0], lens ? lens[0] : strlen(argv[0]), err, errlen);
}

/* ---- settings a type cannot express ---- */

static int set_bind(struct config *cfg, const struct config_def *def, int argc,
                    const char *const *argv, char *err, size_t errlen)
{
    (void)def;
    if (argc > CONFIG_MAX_BIND)
        return config_fail(err, errlen, "Too many bind addresses specified.");
    /* CONFIG GET joins the addresses with spaces: an empty one, or one with
     * a blank, would not read back as itself (CONFIG REWRITE, a rollback). */
    for (int i = 0; i < argc; i++) {
        if (!argv[i][0] || strpbrk(argv[i], " \t\r\n"))
            return config_fail(err, errlen, "Invalid bind address '%s'", argv[i]);
    }
    for (int i = 0; i < cfg->bind_count; i++)
        xfree(cfg->bind[i]);
    for (int i = 0; i < argc; i++)
        cfg->bind[i] = xstrdup(argv[i]);
    cfg->bind_count = argc;
    return 0;
}

static char *get_bind(const struct config *cfg, const struct config_def *def)
{
    struct config_text t = {0};
    (void)def;
    config_text_add(&t, "", 0);
    for (int i = 0; i < cfg->bind_count; i++) {
        if (i)
            config_text_adds(&t, " ");
        config_text_adds(&t, cfg->bind[i]);
    }
    return t.p;
}

static int set_hz(struct config *cfg, const struct config_def *def, int argc,
                  const char *const *argv, char *err, size_t errlen)
{
    unsigned long long n = 0;
    (void)argc;
    if (parse_number(def, argv[0], &n, err, errlen) < 0)
        return -1;
    cfg->hz = n < CONFIG_MIN_HZ ? CONFIG_MIN_HZ : n > CONFIG_MAX_HZ ? CONFIG_MAX_HZ : (int)n;
    return 0;
}

/* maxmemory-clients: bytes (Redis's memory units) or a percentage of
 * maxmemory, "N%" with N up to 100, kept as -N. */
static int set_maxmemory_clients(struct config *cfg, const struct config_def *def, int argc,
                                 const char *const *argv, char *err, size_t errlen)
{
    unsigned long long n;
    size_t len = strlen(argv[0]);
    (void)def, (void)argc;
    if (len > 1 && argv[0][len - 1] == '%') {
        char digits[24];
        if (len - 1 >= sizeof(digits))
            return config_fail(err, errlen, "argument must be a memory or percent value");
        memcpy(digits, argv[0], len - 1);
        digits[len - 1] = '\0';
        if (config_parse_memory(digits, &n) < 0 || n > 100)
            return config_fail(err, errlen, "argument must be a memory or percent value");
        cfg->maxmemory_clients = -(long long)n;
        return 0;
    }
    if (config_parse_memory(argv[0], &n) < 0 || n > LLONG_MAX)
        return config_fail(err, errlen, "argument must be a memory or percent value");
    cfg->maxmemory_clients = (long long)n;
    return 0;
}

static char *get_maxmemory_clients(const struct config *cfg, const struct config_def *def)
{
    char buf[32];
    (void)def;
    if (cfg->maxmemory_clients < 0)
        snprintf(buf, sizeof(buf), "%lld%%", -cfg->maxmemory_clients);
    else
        snprintf(buf, sizeof(buf), "%lld", cfg->maxmemory_clients);
    return xstrdup(buf);
}

/* client-output-buffer-limit <class> <hard> <soft> <soft-seconds> [...]:
 * Redis's syntax and texts. Only the normal class is stored. */
static int set_output_limit(struct config *cfg, const struct config_def *def, int argc,
                            const char *const *argv, char *err, size_t errlen)
{
    static const char *const classes[] = {"normal", "replica", "slave", "pubsub", NULL};
    (void)def;
    if (argc < 1 || argc % 4)
        return config_fail(err, errlen, "Wrong number of arguments in buffer limit configuration.");
    for (int i = 0; i < argc; i++) {
        unsigned long long v;
        size_t k = 0;
        if (i % 4 == 0) {
            while (classes[k] && strcasecmp(argv[i], classes[k]))
                k++;
            if (!classes[k])
                return config_fail(err, errlen,
                                   "Invalid client class specified in buffer limit configuration.");
        } else if (config_parse_memory(argv[i], &v) < 0 || v > LLONG_MAX) {
            return config_fail(err, errlen,
                               "Error in hard, soft or soft_seconds setting in buffer limit "
                               "configuration.");
        }
    }
    for (int i = 0; i < argc; i += 4) {
        unsigned long long seconds = 0;
        struct output_limit *lim = !strcasecmp(argv[i], "normal")   ? &cfg->client_output_limit
                                   : !strcasecmp(argv[i], "pubsub") ? &cfg->pubsub_output_limit
                                                                    : &cfg->replica_output_limit;
        config_parse_memory(argv[i + 1], &lim->hard_bytes);
        config_parse_memory(argv[i + 2], &lim->soft_bytes);
        config_parse_memory(argv[i + 3], &seconds);
        lim->soft_seconds = (long long)seconds;
    }
    return 0;
}

static char *get_output_limit(const struct config *cfg, const struct config_def *def)
{
    const struct output_limit *n = &cfg->client_output_limit, *r = &cfg->replica_output_limit,
                              *p = &cfg->pubsub_output_limit;
    (void)def;
    return config_textf("normal %llu %llu %lld slave %llu %llu %lld pubsub %llu %llu %lld",
                        n->hard_bytes, n->soft_bytes, n->soft_seconds, r->hard_bytes,
                        r->soft_bytes, r->soft_seconds, p->hard_bytes, p->soft_bytes,
                        p->soft_seconds);
}

static int set_daemonize(struct config *cfg, const struct config_def *def, int argc,
                         const char *const *argv, char *err, size_t errlen)
{
    int yes;
    (void)cfg, (void)def, (void)argc;
    if (parse_bool(argv[0], &yes) < 0)
        return config_fail(err, errlen, "argument must be 'yes' or 'no'");
    if (yes)
        return config_fail(err, errlen,
                           "rbkv does not daemonize: run it in the foreground under a supervisor "
                           "(systemd, runit, a container) and use 'daemonize no'");
    return 0;
}

static char *get_daemonize(const struct config *cfg, const struct config_def *def)
{
    (void)cfg, (void)def;
    return xstrdup("no");
}

/* dir: the working directory, where snapshots are written. As in Redis,
 * setting it changes directory at once, so a relative path is relative to
 * the current one. */
static int set_dir(struct config *cfg, const struct config_def *def, int argc,
                   const char *const *argv, char *err, size_t errlen)
{
    (void)cfg, (void)def, (void)argc;
    if (chdir(argv[0]) < 0)
        return config_fail(err, errlen, "%s", strerror(errno));
    return 0;
}

static char *get_dir(const struct config *cfg, const struct config_def *def)
{
    char path[PATH_MAX];
    (void)cfg, (void)def;
    return xstrdup(getcwd(path, sizeof(path)) ? path : "");
}

/* notify-keyspace-events: letters of classes, any order, "" for none. */
static int set_notify(struct config *cfg, const struct config_def *def, int argc,
                      const char *const *argv, char *err, size_t errlen)
{
    (void)def, (void)argc;
    int flags = notify_flags_parse(argv[0]);
    if (flags < 0)
        return config_fail(err, errlen, "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
    cfg->notify_keyspace_events = flags;
    return 0;
}

static char *get_notify(const struct config *cfg, const struct config_def *def)
{
    char buf[NOTIFY_FLAGS_CHARS];
    (void)def;
    notify_flags_format(cfg->notify_keyspace_events, buf);
    return xstrdup(buf);
}

static int set_dbfilename(struct config *cfg, const struct config_def *def, int argc,
                          const char *const *argv, char *err, size_t errlen)
{
    (void)argc;
    if (strchr(argv[0], '/'))
        return config_fail(err, errlen, "dbfilename can't be a path, just a filename");
    if (!argv[0][0])
        return config_fail(err, errlen, "dbfilename can't be empty");
    store_string(cfg, def, argv[0]);
    return 0;
}

/* save <seconds> <changes> [...], or "" for none: Redis's syntax and texts. */
static int set_save(struct config *cfg, const struct config_def *def, int argc,
                    const char *const *argv, char *err, size_t errlen)
{
    struct save_param p[CONFIG_MAX_SAVE];
    (void)def;
    if (argc % 2)
        return config_fail(err, errlen, "Invalid save parameters");
    if (argc / 2 > CONFIG_MAX_SAVE)
        return config_fail(err, errlen, "Too many save parameters (at most %d)", CONFIG_MAX_SAVE);
    for (int i = 0; i < argc; i += 2) {
        if (resp_parse_ll(argv[i], strlen(argv[i]), &p[i / 2].seconds) < 0 ||
            resp_parse_ll(argv[i + 1], strlen(argv[i + 1]), &p[i / 2].changes) < 0 ||
            p[i / 2].seconds < 1 || p[i / 2].changes < 0)
            return config_fail(err, errlen, "Invalid save parameters");
    }
    memcpy(cfg->save_params, p, sizeof(p[0]) * (size_t)(argc / 2));
    cfg->save_count = argc / 2;
    return 0;
}

static char *get_save(const struct config *cfg, const struct config_def *def)
{
    struct config_text t = {0};
    (void)def;
    config_text_add(&t, "", 0);
    for (int i = 0; i < cfg->save_count; i++) {
        char *s = config_textf("%s%lld %lld", i ? " " : "", cfg->save_params[i].seconds,
                               cfg->save_params[i].changes);
        config_text_adds(&t, s);
        xfree(s);
    }
    return t.p;
}

/* slowlog-log-slower-than: the one signed setting (-1 and below turn the log
 * off), so the unsigned table range does not fit it. */
static int set_slowlog_threshold(struct config *cfg, const struct config_def *def, int argc,
                                 const char *const *argv, char *err, size_t errlen)
{
    long long n;
    (void)def, (void)argc;
    if (resp_parse_ll(argv[0], strlen(argv[0]), &n) < 0)
        return config_fail(err, errlen, "argument couldn't be parsed into an integer");
    if (n < -1)
        return config_fail(err, errlen, "argument must be between -1 and %lld inclusive",
                           LLONG_MAX);
    cfg->slowlog_log_slower_than = n;
    return 0;
}

static char *get_slowlog_threshold(const struct config *cfg, const struct config_def *def)
{
    (void)def;
    return config_textf("%lld", cfg->slowlog_log_slower_than);
}

/* Any int into a long long field, as Redis takes list-max-listpack-size
 * (olist.h's limits read the meaningful part) and its test hooks: the one
 * range the unsigned table bounds cannot express. */
static int set_signed_int(struct config *cfg, const struct config_def *def, int argc,
                          const char *const *argv, char *err, size_t errlen)
{
    long long n;
    (void)argc;
    if (resp_parse_ll(argv[0], strlen(argv[0]), &n) < 0)
        return config_fail(err, errlen, "argument couldn't be parsed into an integer");
    if (n < INT_MIN || n > INT_MAX)
        return config_fail(err, errlen, "argument must be between %d and %d inclusive", INT_MIN,
                           INT_MAX);
    *(long long *)field_of(cfg, def) = n;
    return 0;
}

static char *get_signed_int(const struct config *cfg, const struct config_def *def)
{
    return config_textf("%lld", *(const long long *)cfield_of(cfg, def));
}

/* shutdown-on-sigterm / -sigint: SHUTDOWN's flags, any of them, or
 * "default" (none); Redis's names, order and conflict text. */
static const char *const shutdown_flag_names[] = {"default", "save", "nosave", "now", "force",
                                                  NULL};

static int set_shutdown_flags(struct config *cfg, const struct config_def *def, int argc,
                              const char *const *argv, char *err, size_t errlen)
{
    int flags = 0;
    for (int i = 0; i < argc; i++) {
        int k = 0;
        while (shutdown_flag_names[k] && strcasecmp(argv[i], shutdown_flag_names[k]))
            k++;
        if (!shutdown_flag_names[k])
            return enum_error(shutdown_flag_names, err, errlen);
        flags |= k ? 1 << (k - 1) : 0;
    }
    if (argc == 0)
        return enum_error(shutdown_flag_names, err, errlen);
    if ((flags & SHUTDOWN_FLAG_SAVE) && (flags & SHUTDOWN_FLAG_NOSAVE))
        return config_fail(err, errlen,
                           "shutdown options SAVE and NOSAVE can't be used simultaneously");
    *(int *)field_of(cfg, def) = flags;
    return 0;
}

static char *get_shutdown_flags(const struct config *cfg, const struct config_def *def)
{
    struct config_text t = {0};
    int flags = *(const int *)cfield_of(cfg, def);
    config_text_add(&t, "", 0);
    for (int k = 1; shutdown_flag_names[k]; k++) {
        if (flags & (1 << (k - 1))) {
            if (t.len)
                config_text_adds(&t, " ");
            config_text_adds(&t, shutdown_flag_names[k]);
        }
    }
    if (!t.len)
        config_text_adds(&t, shutdown_flag_names[0]);
    return t.p;
}

/* oom-score-adj: "relative" is "yes" (CONFIG GET shows "yes"). */
static int set_oom_score_adj(struct config *cfg, const struct config_def *def, int argc,
                             const char *const *argv, char *err, size_t errlen)
{
    (void)argc;
    if (set_by_type(cfg, def, argv[0], strlen(argv[0]), err, errlen) < 0)
        return -1;
    if (cfg->oom_score_adj == 2)
        cfg->oom_score_adj = OOM_SCORE_RELATIVE;
    return 0;
}

/* oom-score-adj-values <primary> <replica> <child>: Redis's bounds and texts. */
static int set_oom_values(struct config *cfg, const struct config_def *def, int argc,
                          const char *const *argv, char *err, size_t errlen)
{
    long long v[3];
    (void)def;
    if (argc != 3)
        return config_fail(err, errlen, "wrong number of arguments");
    for (int i = 0; i < 3; i++) {
        if (resp_parse_ll(argv[i], strlen(argv[i]), &v[i]) < 0 || v[i] < -2000 || v[i] > 2000)
            return config_fail(err, errlen,
                               "Invalid oom-score-adj-values, elements must be between -2000 "
                               "and 2000.");
    }
    for (int i = 0; i < 3; i++)
        cfg->oom_score_adj_values[i] = (int)v[i];
    return 0;
}

static char *get_oom_values(const struct config *cfg, const struct config_def *def)
{
    const int *v = cfg->oom_score_adj_values;
    (void)def;
    return config_textf("%d %d %d", v[0], v[1], v[2]);
}

/* proc-title-template: Redis's variables only, and a title that is not
 * blank once they are filled in as Redis checks it: {title}, {server-mode}
 * (standalone) and an unset {unixsocket} empty, the others not. */
static int set_proc_title_template(struct config *cfg, const struct config_def *def, int argc,
                                   const char *const *argv, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        int empty;
    } vars[] = {{"{title}", 1},      {"{listen-addr}", 0}, {"{server-mode}", 1}, {"{port}", 0},
                {"{tls-port}", 0},   {"{unixsocket}", -1}, {"{config-file}", 0}};
    const char *p = argv[0];
    int shows = 0; /* something not blank would be shown */
    (void)argc;
    for (const char *q = p; *q; q++) {
        if (*q != '{') {
            shows |= *q != ' ';
            continue;
        }
        size_t k = 0, n = sizeof(vars) / sizeof(vars[0]);
        while (k < n && strncmp(q, vars[k].name, strlen(vars[k].name)))
            k++;
        if (k == n)
            goto invalid;
        shows |= vars[k].empty < 0 ? cfg->unixsocket != NULL : !vars[k].empty;
        q += strlen(vars[k].name) - 1;
    }
    if (!shows)
        goto invalid;
    store_string(cfg, def, p);
    return 0;
invalid:
    return config_fail(err, errlen, "template format is invalid or contains unknown variables");
}

/* activedefrag: "no" only, as a Redis built without jemalloc's defragmenter. */
static int set_activedefrag(struct config *cfg, const struct config_def *def, int argc,
                            const char *const *argv, char *err, size_t errlen)
{
    (void)argc;
    if (set_by_type(cfg, def, argv[0], strlen(argv[0]), err, errlen) < 0)
        return -1;
    if (cfg->activedefrag) {
        cfg->activedefrag = 0;
        return config_fail(err, errlen,
                           "Active defragmentation cannot be enabled: rbkv's allocator has no "
                           "defragmenter");
    }
    return 0;
}

/* latency-tracking-info-percentiles: numbers in [0, 100], "" for none. */
static int set_percentiles(struct config *cfg, const struct config_def *def, int argc,
                           const char *const *argv, char *err, size_t errlen)
{
    double p[CONFIG_MAX_PERCENTILES] = {0};
    int n = 0;
    (void)def;
    for (int i = 0; i < argc; i++) {
        if (!argv[i][0])
            continue;
        if (n == CONFIG_MAX_PERCENTILES ||
            parse_double(argv[i], strlen(argv[i]), &p[n]) < 0)
            return config_fail(err, errlen, "Invalid latency-tracking-info-percentiles parameters");
        if (p[n] < 0 || p[n] > 100)
            return config_fail(err, errlen,
                               "latency-tracking-info-percentiles parameters should sit between "
                               "[0.0,100.0]");
        n++;
    }
    memcpy(cfg->latency_percentiles, p, sizeof(p[0]) * (size_t)n);
    cfg->latency_percentile_count = n;
    return 0;
}

static char *get_percentiles(const struct config *cfg, const struct config_def *def)
{
    struct config_text t = {0};
    (void)def;
    config_text_add(&t, "", 0);
    for (int i = 0; i < cfg->latency_percentile_count; i++) {
        char num[64];
        config_format_percentile(num, sizeof(num), cfg->latency_percentiles[i]);
        char *s = config_textf("%s%s", i ? " " : "", num);
        config_text_adds(&t, s);
        xfree(s);
    }
    return t.p;
}

void config_format_percentile(char *out, size_t len, double p)
{
    /* Redis prints "%f" and trims the zeros: 99.9, 50, 0. */
    snprintf(out, len, "%f", p);
    char *dot = strchr(out, '.');
    if (!dot)
        return;
    char *end = out + strlen(out);
    while (end > dot + 1 && end[-1] == '0')
        end--;
    if (end == dot + 1)
        end = dot;
    *end = '\0';
}

/* replicaof <host> <port>, or "" / "no one" for none. */
static int set_replicaof(struct config *cfg, const struct config_def *def, int argc,
                         const char *const *argv, char *err, size_t errlen)
{
    long long port;
    (void)def;
    if (argc == 0 || (argc == 1 && !argv[0][0]) ||
        (argc == 2 && !strcasecmp(argv[0], "no") && !strcasecmp(argv[1], "one"))) {
        xfree(cfg->replicaof_host);
        cfg->replicaof_host = NULL;
        cfg->replicaof_port = 0;
        return 0;
    }
    if (argc != 2)
        return config_fail(err, errlen, "Bad directive or wrong number of arguments");
    if (resp_parse_ll(argv[1], strlen(argv[1]), &port) < 0 || port < 0 || port > 65535)
        return config_fail(err, errlen, "Invalid master port");
    xfree(cfg->replicaof_host);
    cfg->replicaof_host = xstrdup(argv[0]);
    cfg->replicaof_port = (int)port;
    return 0;
}

static char *get_replicaof(const struct config *cfg, const struct config_def *def)
{
    (void)def;
    if (!cfg->replicaof_host)
        return xstrdup("");
    return config_textf("%s %d", cfg->replicaof_host, cfg->replicaof_port);
}

/* ---- the public interface ---- */

size_t config_count(void)
{
    return NDEFS;
}

const char *config_name(size_t i)
{
    return defs[i].name;
}

const char *config_alias(size_t i)
{
    return defs[i].alias;
}

int config_hidden(size_t i)
{
    return (defs[i].flags & CONFIG_HIDDEN) != 0;
}

enum config_status config_status_of(size_t i)
{
    return defs[i].status;
}

int config_issue(size_t i)
{
    return defs[i].issue;
}

const char *config_note(size_t i)
{
    return defs[i].note;
}

const char *config_default(size_t i)
{
    return defs[i].default_value;
}

int config_only_default(size_t i)
{
    return (defs[i].flags & CONFIG_ONLY_DEFAULT) != 0;
}

int config_immutable(size_t i)
{
    return (defs[i].flags & CONFIG_IMMUTABLE) != 0;
}

int config_takes_words(size_t i)
{
    return (defs[i].flags & CONFIG_MULTI_ARG) != 0;
}

int config_rewrite_drops(size_t i)
{
    return (defs[i].flags & CONFIG_REWRITE_DROPS) != 0;
}

int config_memory_value(const struct config *cfg, size_t i, unsigned long long *bytes)
{
    if (defs[i].type != CONFIG_MEMORY)
        return -1;
    *bytes = *(const unsigned long long *)cfield_of(cfg, &defs[i]);
    return 0;
}

static int name_is(const char *s, const char *name, size_t len)
{
    return s && strlen(s) == len && !strncasecmp(s, name, len);
}

int config_find(const char *name, size_t len)
{
    for (size_t i = 0; i < NDEFS; i++) {
        if (name_is(defs[i].name, name, len) || name_is(defs[i].alias, name, len))
            return (int)i;
    }
    return -1;
}

char *config_get_len(const struct config *cfg, size_t i, size_t *len)
{
    const struct config_def *def = &defs[i];
    if (def->type == CONFIG_BYTES) {
        const struct config_bytes *b = cfield_of(cfg, def);
        *len = b->len;
        return b->p ? xmemdup(b->p, b->len) : xstrdup("");
    }
    char *v = def->get ? def->get(cfg, def) : get_by_type(cfg, def);
    *len = strlen(v);
    return v;
}

char *config_get(const struct config *cfg, size_t i)
{
    size_t len;
    return config_get_len(cfg, i, &len);
}

int config_init(struct config *cfg)
{
    char err[256];
    memset(cfg, 0, sizeof(*cfg));
    for (size_t i = 0; i < NDEFS; i++) {
        if (apply(cfg, &defs[i], 1, &defs[i].default_value, NULL, err, sizeof(err)) < 0) {
            fprintf(stderr, "rbkv: bad default for %s: %s\n", defs[i].name, err);
            config_destroy(cfg);
            return -1;
        }
    }
    return 0;
}

void config_destroy(struct config *cfg)
{
    for (int i = 0; i < cfg->bind_count; i++)
        xfree(cfg->bind[i]);
    for (size_t i = 0; i < NDEFS; i++) {
        if (defs[i].type == CONFIG_STRING)
            xfree(*(char **)field_of(cfg, &defs[i]));
        else if (defs[i].type == CONFIG_BYTES)
            xfree(((struct config_bytes *)field_of(cfg, &defs[i]))->p);
    }
    xfree(cfg->replicaof_host);
    for (int i = 0; i < 2 * cfg->rename_count; i++)
        xfree(cfg->renames[i]);
    xfree(cfg->renames);
    for (int i = 0; i < cfg->user_count; i++) {
        for (char **w = cfg->users[i]; *w; w++)
            xfree(*w);
        xfree(cfg->users[i]);
    }
    xfree(cfg->users);
    memset(cfg, 0, sizeof(*cfg));
}

/*
 * rename-command OLD NEW: checked against the command names now, as Redis
 * does while reading the file, so a typo stops the start with its line
 * number instead of leaving a dangerous command enabled. A wrong word count
 * gets the generic text, as in Redis, whose loader only knows this line with
 * exactly two words.
 */
static int add_rename(struct config *cfg, int argc, const char **argv, char *err, size_t errlen)
{
    int n = cfg->rename_count;
    if (argc != 2)
        return config_fail(err, errlen, "Bad directive or wrong number of arguments");
    cfg->renames = xrealloc(cfg->renames, sizeof(*cfg->renames) * (size_t)(2 * n + 2));
    cfg->renames[2 * n] = xstrdup(argv[0]);
    cfg->renames[2 * n + 1] = xstrdup(argv[1]);
    if (command_check_renames(cfg->renames, n + 1, err, errlen) < 0) {
        xfree(cfg->renames[2 * n]);
        xfree(cfg->renames[2 * n + 1]);
        return -1;
    }
    cfg->rename_count = n + 1;
    return 0;
}

/*
 * user NAME RULES...: checked now, as Redis does while reading the file, so
 * a bad rule stops the start with its line number. Redis names the error by
 * the line's word at the failed rule's number ("user" being word 0), which
 * is not the rule; kept, so that the texts are Redis's.
 */
static int add_user(struct config *cfg, const char *directive, int argc, const char **argv,
                    char *err, size_t errlen)
{
    int bad;
    const char *why;
    if (argc < 1)
        return config_fail(err, errlen, "Bad directive or wrong number of arguments");
    for (int i = 0; i < cfg->user_count; i++) {
        if (!strcmp(cfg->users[i][0], argv[0]))
            return config_fail(err, errlen, "Error in user declaration '%s': Duplicate user found. "
                               "A user can only be defined once in config files", argv[0]);
    }
    if (acl_check_rules(argc - 1, argv + 1, &bad, &why) < 0)
        return config_fail(err, errlen, "Error in user declaration '%s': %s",
                           bad == 0 ? directive : argv[bad - 1], why);
    char **line = xmalloc(sizeof(*line) * (size_t)(argc + 1));
    for (int i = 0; i < argc; i++)
        line[i] = xstrdup(argv[i]);
    line[argc] = NULL;
    cfg->users = xrealloc(cfg->users, sizeof(*cfg->users) * (size_t)(cfg->user_count + 1));
    cfg->users[cfg->user_count++] = line;
    return 0;
}

int config_set(struct config *cfg, const char *name, int argc, const char **argv, char *err,
               size_t errlen)
{
    return config_set_len(cfg, name, argc, argv, NULL, err, errlen);
}

int config_set_len(struct config *cfg, const char *name, int argc, const char **argv,
                   const size_t *lens, char *err, size_t errlen)
{
    int i = config_find(name, strlen(name));
    if (i < 0 && has_inner_nul(argc, argv, lens))
        return config_fail(err, errlen, "argument must not contain NUL bytes");
    if (i < 0 && !strcasecmp(name, "rename-command"))
        return add_rename(cfg, argc, argv, err, errlen);
    if (i < 0 && !strcasecmp(name, "user"))
        return add_user(cfg, name, argc, argv, err, errlen);
    if (i < 0)
        return config_fail(err, errlen, "Bad directive or wrong number of arguments");
    return apply(cfg, &defs[i], argc, argv, lens, err, errlen);
}

int config_set_many(struct config *cfg, int npairs, const char *const *pairs, const size_t *lens,
                    char *err, size_t errlen)
{
    return config_set_many_as(cfg, npairs, pairs, lens, 1, err, errlen);
}

int config_set_many_as(struct config *cfg, int npairs, const char *const *pairs,
                       const size_t *lens, int may_set_protected, char *err, size_t errlen)
{
    int *idx = xmalloc(sizeof(*idx) * (size_t)(npairs + 1));
    char **old = xcalloc((size_t)npairs + 1, sizeof(*old));
    size_t *old_len = xcalloc((size_t)npairs + 1, sizeof(*old_len));
    char reason[256];
    int rc = -1, i, j;

    /* Like Redis, the first bad name in argument order decides the error,
     * before any value is looked at. */
    for (i = 0; i < npairs; i++) {
        const char *name = pairs[2 * i];
        idx[i] = config_find(name, strlen(name));
        if (idx[i] < 0) {
            config_fail(err, errlen,
                        "ERR Unknown option or number of arguments for CONFIG SET - '%s'", name);
            goto out;
        }
        /* As in Redis, a setting named twice is refused, but its name
         * beside its alias is not: both apply, in order. */
        for (j = 0; j < i && (idx[j] != idx[i] || strcasecmp(pairs[2 * j], name)); j++)
            ;
        /* Redis's order: immutable, then protected, then twice named. */
        unsigned flags = defs[idx[i]].flags;
        if ((flags & CONFIG_IMMUTABLE) || ((flags & CONFIG_PROTECTED) && !may_set_protected) ||
            j < i) {
            config_fail(err, errlen,
                        "ERR CONFIG SET failed (possibly related to argument '%s') - %s", name,
                        flags & CONFIG_IMMUTABLE   ? "can't set immutable config"
                        : flags & CONFIG_PROTECTED && !may_set_protected
                            ? "can't set protected config"
                            : "duplicate parameter");
            goto out;
        }
    }
    for (i = 0; i < npairs; i++)
        old[i] = config_get_len(cfg, (size_t)idx[i], &old_len[i]);
    for (i = 0; i < npairs; i++) {
        if (apply(cfg, &defs[idx[i]], 1, &pairs[2 * i + 1], lens ? &lens[2 * i + 1] : NULL,
                  reason, sizeof(reason)) < 0) {
            /* Redis names the setting as the client did, in lower case. */
            char *lower = xstrdup(pairs[2 * i]);
            for (char *q = lower; *q; q++)
                *q = (char)tolower((unsigned char)*q);
            config_fail(err, errlen,
                        "ERR CONFIG SET failed (possibly related to argument '%s') - %s", lower,
                        reason);
            xfree(lower);
            /* The GET text always sets back (see the invariants above). */
            while (i-- > 0)
                apply(cfg, &defs[idx[i]], 1, (const char *const *)&old[i], &old_len[i], reason,
                      sizeof(reason));
            goto out;
        }
    }
    rc = 0;
out:
    for (i = 0; i < npairs; i++)
        xfree(old[i]);
    xfree(old);
    xfree(old_len);
    xfree(idx);
    return rc;
}
