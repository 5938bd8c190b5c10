/*
 * config.h - the server's settings: defaults and CONFIG GET/SET (config.c).
 * The config file and command-line flags are config_file.h's, CONFIG
 * REWRITE config_rewrite.h's.
 *
 * Owns: struct config and every string in it. Knows nothing of connections;
 * the rest of the server reads the fields directly, so a CONFIG SET takes
 * effect at the next place that reads them.
 *
 * Adding a setting: a field here and one row in config.c's defs[] table,
 * which gives it its default, file and flag syntax, CONFIG GET/SET and
 * CONFIG REWRITE at once.
 */
#ifndef RBKV_CONFIG_H
#define RBKV_CONFIG_H

#include <stddef.h>

#include "log.h"

#define CONFIG_MAX_BIND 16
#define CONFIG_MAX_SAVE 16 /* "save" rules */

/* When the append-only log is fdatasync'ed (aof.h). */
enum appendfsync { APPENDFSYNC_ALWAYS, APPENDFSYNC_EVERYSEC, APPENDFSYNC_NO };
/* Redis's protected configs (enable-debug-command): who may run the command. */
enum protected_access { PROTECTED_NO, PROTECTED_YES, PROTECTED_LOCAL };
/* repl-diskless-load: the snapshot always goes to a file first, so
 * on-empty-db acts as disabled (the old data is dropped before the load). */
enum diskless_load { DISKLESS_LOAD_DISABLED, DISKLESS_LOAD_ON_EMPTY_DB, DISKLESS_LOAD_SWAPDB };

struct output_limit {
    unsigned long long hard_bytes; /* 0 = none */
    unsigned long long soft_bytes; /* 0 = none */
    long long soft_seconds;        /* over soft for this long closes the client */
};

/* A "save <seconds> <changes>" rule: snapshot when at least `changes` writes
 * happened and `seconds` passed since the last save. */
struct save_param {
    long long seconds;
    long long changes;
};

/* maxmemory-policy, in Redis's order (config_maxmemory_policy_names). */
enum maxmemory_policy {
    MAXMEMORY_VOLATILE_LRU,
    MAXMEMORY_VOLATILE_LFU,
    MAXMEMORY_VOLATILE_RANDOM,
    MAXMEMORY_VOLATILE_TTL,
    MAXMEMORY_ALLKEYS_LRU,
    MAXMEMORY_ALLKEYS_LFU,
    MAXMEMORY_ALLKEYS_RANDOM,
    MAXMEMORY_NO_EVICTION,
};
extern const char *const config_maxmemory_policy_names[];

/* tls-auth-clients, in config order: no, yes, optional. */
enum tls_auth_clients { TLS_AUTH_NO, TLS_AUTH_YES, TLS_AUTH_OPTIONAL };

/* latency-tracking-info-percentiles: at most this many. */
#define CONFIG_MAX_PERCENTILES 16

/* A value that may hold any byte, NUL included: Redis's binary-safe (SDS)
 * settings, requirepass and masterauth (masteruser is a C string there too). len bytes at p, with a
 * NUL after them; p NULL = not set (an empty value is stored so). */
struct config_bytes {
    char *p;
    size_t len;
};

struct config {
    char *bind[CONFIG_MAX_BIND];
    int bind_count;
    int port;                 /* 0 = no TCP listener */
    char *unixsocket;         /* NULL = none */
    int unixsocketperm;       /* octal permission bits, 0 = leave as created */
    struct config_bytes requirepass; /* p NULL = no password */
    char *aclfile;            /* NULL = users only from ACL SETUSER (acl.c) */
    long long acllog_max_len; /* ACL LOG's entries */
    int acl_pubsub_default_all; /* acl-pubsub-default: 0 resetchannels, 1 allchannels */
    long long maxclients;
    long long timeout;        /* seconds of idleness before a client is closed, 0 = never */
    long long tcp_keepalive;  /* seconds, 0 = off */
    int databases;
    int io_threads;           /* always 1: accepted for Redis config files */
    unsigned long long maxmemory;       /* bytes, 0 = unlimited */
    /* maxmemory-clients: bytes, or (negative) -percent of maxmemory; 0 = off.
     * conn.c's client eviction reads it. */
    long long maxmemory_clients;
    enum maxmemory_policy maxmemory_policy;
    long long maxmemory_samples;        /* keys sampled per db to fill the eviction pool */
    long long maxmemory_eviction_tenacity; /* 0-100: how long one eviction run may take */
    long long lfu_log_factor;
    long long lfu_decay_time;           /* minutes per decrement of an LFU counter */
    unsigned long long client_query_buffer_limit;
    struct output_limit client_output_limit; /* "normal" class */
    struct output_limit replica_output_limit; /* "replica" ("slave") class */
    struct output_limit pubsub_output_limit;  /* clients with subscriptions */
    unsigned long long proto_max_bulk_len;
    enum log_level loglevel;
    char *logfile;            /* "" = standard output */
    int hz;                   /* active expiry cycles per second */
    int protected_mode;
    char *dbfilename;         /* snapshot file, in the working directory (`dir`) */
    struct save_param save_params[CONFIG_MAX_SAVE];
    int save_count;           /* 0 = no automatic snapshots */
    int stop_writes_on_bgsave_error;
    int appendonly;           /* the append-only log (aof.h) */
    enum appendfsync appendfsync;
    char *appendfilename;     /* in the working directory */
    int aof_load_truncated;   /* load a log cut mid-command up to its last whole one */
    long long auto_aof_rewrite_percentage; /* growth that starts a rewrite, 0 = never */
    unsigned long long auto_aof_rewrite_min_size;
    /* rename-command lines (file and flags only, never CONFIG SET, as in
     * Redis), in order: renames[2*i] becomes renames[2*i+1], "" disables it.
     * command_table_init applies them at start and borrows the strings, so
     * they stay unchanged until config_destroy at exit. */
    char **renames;
    int rename_count;
    /* "user <name> <rules...>" lines (file and flags only, no setting, as
     * in Redis), in order: users[i] holds the name, the rules as written,
     * then NULL. config_set checks them as Redis does while reading the
     * file; acl_start creates the users (acl.h). */
    char ***users;
    int user_count;
    /* Replication (repl.h). replicaof_host NULL: this server is a primary. */
    char *replicaof_host;
    int replicaof_port;
    struct config_bytes masterauth; /* p NULL = send no AUTH */
    char *masteruser;               /* NULL = AUTH with the password alone */
    int replica_read_only;
    int replica_serve_stale_data;
    long long replica_priority;
    char *replica_announce_ip;          /* NULL = not announced */
    long long replica_announce_port;    /* 0 = our port */
    int replica_announced;
    unsigned long long repl_backlog_size;
    long long repl_backlog_ttl;         /* seconds without replicas before the backlog goes */
    long long repl_timeout;             /* seconds */
    long long repl_ping_replica_period; /* seconds */
    int repl_diskless_sync;
    long long repl_diskless_sync_delay; /* seconds */
    long long min_replicas_to_write;
    long long min_replicas_max_lag;     /* seconds */
    int notify_keyspace_events;         /* NOTIFY_ bits (notify.h), 0 = off */
    enum protected_access enable_debug_command; /* DEBUG: nobody, everybody, local clients */
    /* When a hash or set leaves its packed encoding (omap.h); Redis's names.
     * The sorted-set pair is accepted and kept for clients that set it: a
     * sorted set has one encoding here. */
    long long hash_max_listpack_entries;
    unsigned long long hash_max_listpack_value;
    long long set_max_intset_entries;
    long long set_max_listpack_entries;
    unsigned long long set_max_listpack_value;
    long long zset_max_listpack_entries;
    long long stream_node_max_bytes, stream_node_max_entries;
    unsigned long long zset_max_listpack_value;
    /* A list's chunk size (olist.h's struct ol_limits): positive, the most
     * elements; -1..-5, the most bytes (4 to 64 KB), as Redis reads it. The
     * compress depth is accepted and shown only: chunks are never
     * compressed (docs/operations.md, "Lists"). */
    long long list_max_listpack_size;
    long long list_compress_depth;
    /* Diagnostics (slowlog.h, latency.h, INFO latencystats). */
    long long slowlog_log_slower_than;  /* microseconds; < 0 = off, 0 = every command */
    long long slowlog_max_len;
    long long latency_monitor_threshold; /* milliseconds, 0 = off */
    long long busy_reply_threshold;      /* milliseconds a script runs before -BUSY */
    int latency_tracking;                /* per-command histograms for INFO latencystats */
    double latency_percentiles[CONFIG_MAX_PERCENTILES];
    int latency_percentile_count;
    /* TLS (tls.h); Redis's names and defaults. tls_port 0 = no TLS listener.
     * Files NULL = unset. */
    int tls_port;
    char *tls_cert_file, *tls_key_file, *tls_key_file_pass;
    /* What our outgoing links (a replica's to its primary) show instead of
     * tls_cert_file when both files are set, as Redis's tls-client- settings. */
    char *tls_client_cert_file, *tls_client_key_file, *tls_client_key_file_pass;
    char *tls_ca_cert_file, *tls_ca_cert_dir, *tls_dh_params_file;
    enum tls_auth_clients tls_auth_clients;
    char *tls_protocols;      /* NULL = "TLSv1.2 TLSv1.3" */
    char *tls_ciphers, *tls_ciphersuites; /* NULL = OpenSSL's defaults */
    int tls_prefer_server_ciphers;
    int tls_session_caching;
    long long tls_session_cache_size;
    long long tls_session_cache_timeout; /* seconds */
    int tls_replication;      /* a replica's link to its primary uses TLS */

    /* Process and supervision (lifecycle.c, procinfo.c). */
    char *pidfile;              /* NULL = none */
    int supervised;             /* SUPERVISED_ (below) */
    int syslog_enabled;
    char *syslog_ident;
    int syslog_facility;        /* user, local0..local7: 0..8, as log_use_syslog takes it */
    long long tcp_backlog;      /* listen(2)'s backlog */
    int shutdown_on_sigterm, shutdown_on_sigint; /* SHUTDOWN_FLAG_ bits, 0 = default */
    long long shutdown_timeout; /* seconds a shutdown waits for replicas; 0 = none */
    int oom_score_adj;          /* OOM_SCORE_ (below) */
    int oom_score_adj_values[3]; /* primary, replica, background child */
    long long active_expire_effort; /* 1-10: scales active expiry's slice */
    int set_proc_title;
    char *proc_title_template;
    char *bind_source_addr;     /* a replica's outgoing link's source address, NULL = any */
    int repl_diskless_load;     /* enum diskless_load */
    long long repl_diskless_sync_max_replicas;
    long long rdb_key_save_delay; /* test hook: microseconds per key saved */
    long long key_load_delay;     /* test hook: microseconds per key loaded */

    /* Accepted for Redis config files with no effect here, or kept for the
     * issue that will act on them (docs/operations.md's generated list says
     * which). Only config.c reads them today. */
    int rdbchecksum, rdbcompression, rdb_del_sync_files, io_threads_do_reads, always_show_logo;
    int activerehashing, dynamic_hz, repl_disable_tcp_nodelay, aof_rewrite_incremental_fsync;
    int no_appendfsync_on_rewrite, rdb_save_incremental_fsync, aof_use_rdb_preamble;
    int aof_timestamp_enabled, replica_ignore_maxmemory, jemalloc_bg_thread, activedefrag;
    int crash_log_enabled, crash_memcheck_enabled, disable_thp, aof_disable_auto_gc;
    int replica_ignore_disk_write_errors, replica_lazy_flush;
    int lazyfree_lazy_eviction, lazyfree_lazy_expire, lazyfree_lazy_server_del;
    int lazyfree_lazy_user_del, lazyfree_lazy_user_flush;
    char *appenddirname, *server_cpulist, *bio_cpulist, *aof_rewrite_cpulist, *bgsave_cpulist;
    char *ignore_warnings;
    int sanitize_dump_payload, enable_protected_configs, enable_module_command;
    int propagation_error_behavior;
    long long active_defrag_cycle_min, active_defrag_cycle_max;
    long long active_defrag_threshold_lower, active_defrag_threshold_upper;
    long long active_defrag_max_scan_fields;
    unsigned long long active_defrag_ignore_bytes;
    unsigned long long hll_sparse_max_bytes;
    long long tracking_table_max_keys;
    long long socket_mark_id;
    /* Cluster (issue 35). */
    int cluster_enabled, cluster_require_full_coverage, cluster_replica_no_failover;
    int cluster_allow_reads_when_down, cluster_allow_pubsubshard_when_down;
    int cluster_allow_replica_migration, tls_cluster, cluster_preferred_endpoint_type;
    char *cluster_announce_ip, *cluster_config_file, *cluster_announce_hostname;
    long long cluster_replica_validity_factor, cluster_migration_barrier, cluster_port;
    long long cluster_announce_bus_port, cluster_announce_port, cluster_announce_tls_port;
    long long cluster_node_timeout;
    unsigned long long cluster_link_sendbuf_limit;
};

/* cluster-preferred-endpoint-type, in config order. */
enum cluster_endpoint { CLUSTER_ENDPOINT_IP, CLUSTER_ENDPOINT_HOSTNAME, CLUSTER_ENDPOINT_UNKNOWN };
/* supervised, in config order. */
enum supervised_mode { SUPERVISED_UPSTART, SUPERVISED_SYSTEMD, SUPERVISED_AUTO, SUPERVISED_NO };
/* oom-score-adj: index into its names no, yes, relative, absolute; "relative"
 * is stored as "yes", which CONFIG GET shows, as in Redis. */
enum oom_score_mode { OOM_SCORE_NO = 0, OOM_SCORE_RELATIVE = 1, OOM_SCORE_ABSOLUTE = 3 };
/* shutdown-on-sigterm / -sigint bits, as SHUTDOWN's flags; 0 = "default". */
#define SHUTDOWN_FLAG_SAVE 1
#define SHUTDOWN_FLAG_NOSAVE 2
#define SHUTDOWN_FLAG_NOW 4
#define SHUTDOWN_FLAG_FORCE 8

/* A latency-tracking-info-percentiles value as Redis prints it, both in
 * CONFIG GET and in INFO latencystats' names ("%f", zeros trimmed: 99.9, 50). */
void config_format_percentile(char *out, size_t len, double p);

/* Fills cfg with the defaults of config.c's table. Returns 0, or -1 (with a
 * line on stderr) if a built-in default does not parse, which is a bug:
 * running out of memory aborts in xmalloc instead. */
int config_init(struct config *cfg);
/* Frees every string cfg owns and zeroes it. */
void config_destroy(struct config *cfg);

/* Sets one setting from its words, as a config file line or a --flag does:
 * immutable settings are accepted, name is case-insensitive. A setting that
 * takes several words (bind, client-output-buffer-limit) splits a single word
 * at spaces, so "normal 0 0 0" and normal,0,0,0 are the same. Returns 0, or -1
 * with the reason in err ("argument must be a memory value", "Bad directive or
 * wrong number of arguments", ...); on error cfg keeps the old value.
 * "rename-command OLD NEW" is read here too, though it is no setting (CONFIG
 * GET, SET and REWRITE know nothing of it, as in Redis): OLD must still be
 * callable after the earlier renames and NEW (unless "") must be free, else
 * Redis's "No such command in rename-command" or "Target command name
 * already exists". "user NAME RULES..." is kept in cfg->users, as it is no
 * setting either: a repeated name or a bad rule gets Redis's "Error in user
 * declaration ..." text. */
int config_set(struct config *cfg, const char *name, int argc, const char **argv, char *err,
               size_t errlen);
/* config_set with each word's length: lens[k] bytes at argv[k], followed by
 * a NUL (lens NULL: C strings). Only a binary-safe setting (struct
 * config_bytes) takes a word with a NUL inside; any other refuses it, with
 * "argument must not contain NUL bytes", rather than cut it short. */
int config_set_len(struct config *cfg, const char *name, int argc, const char **argv,
                   const size_t *lens, char *err, size_t errlen);

/* CONFIG SET name value [name value ...] (pairs[0..2*npairs)): refuses unknown,
 * immutable and repeated names, then sets all or nothing. lens[2*i+1] is
 * value i's length, as config_set_len's (lens NULL: C strings); names are C
 * strings. Returns 0, or -1 with the whole error reply in err ("ERR CONFIG SET
 * failed (possibly related to argument 'x') - ..."). */
int config_set_many(struct config *cfg, int npairs, const char *const *pairs, const size_t *lens,
                    char *err, size_t errlen);
/* The same for a client's CONFIG SET: may_set_protected 0 (as
 * enable-protected-configs says for that client) refuses `dir` and
 * `dbfilename` as Redis 7.0 does ("can't set protected config"). */
int config_set_many_as(struct config *cfg, int npairs, const char *const *pairs,
                       const size_t *lens, int may_set_protected, char *err, size_t errlen);

/* The settings, numbered 0..config_count()-1, for CONFIG GET. */
size_t config_count(void);
/* The canonical (lower-case) name of setting i, and its other name (Redis's
 * older one: "hash-max-ziplist-entries") or NULL. */
const char *config_name(size_t i);
const char *config_alias(size_t i);
/* Whether CONFIG GET's globs skip setting i, as Redis's hidden test hooks
 * (rdb-key-save-delay): only its exact name finds it. */
int config_hidden(size_t i);
/* The number of the setting called name[0..len) (any case; its name or its
 * alias), or -1. */
int config_find(const char *name, size_t len);
/* Setting i's value as CONFIG GET shows it ("yes", "0", "normal 0 0 0 ...").
 * Returns a string the caller frees with xfree. */
char *config_get(const struct config *cfg, size_t i);
/* config_get with the value's length in *len: a binary-safe setting's value
 * may hold NULs (it is NUL-terminated after them as well). */
char *config_get_len(const struct config *cfg, size_t i, size_t *len);

/* Parses "1gb", "64mb", "100k", "12345" as Redis does (k=1000, kb=1024, ...).
 * Returns 0, or -1 when s is not a valid memory amount. */
int config_parse_memory(const char *s, unsigned long long *out);

#endif
