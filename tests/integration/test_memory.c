/*
 * test_memory.c - end-to-end tests of MEMORY (USAGE, STATS, DOCTOR, PURGE,
 * MALLOC-STATS, HELP), DEBUG RELOAD and DEBUG OBJECT, enable-debug-command,
 * the INFO memory, stats and persistence fields of issue #21, and CONFIG
 * RESETSTAT.
 *
 * What must hold: MEMORY USAGE grows with the value and agrees with
 * used_memory's growth for one big key; MEMORY STATS has Redis 7.0's names
 * in Redis's order (compared with redis-server's when it is installed) and
 * overhead + dataset = used memory; DEBUG RELOAD keeps DEBUG DIGEST; DEBUG
 * is refused with Redis's text to whom enable-debug-command excludes; a
 * BGSAVE and a BGREWRITEAOF report their duration and copy-on-write; CONFIG
 * RESETSTAT clears the counters.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "harness.h"

#define BIG_VALUE (1024 * 1024)
#define ZSET_MEMBERS 2000
#define LOAD_KEYS 50000
#define WAIT_MS (10000 * H_SLOW)
#define DEBUG_REFUSED                                                                             \
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you " \
    "can run it from a local connection, otherwise you need to set this option in the "          \
    "configuration file, and then restart the server."

/* The integer field name of INFO section, or -1 after recording a failure. */
static long long info_ll(redisContext *c, const char *section, const char *name)
{
    char value[64];
    long long n = -1;
    redisReply *r = H_CALL(c, "INFO", section);
    if (CHECK(r && r->type == REDIS_REPLY_STRING, "INFO %s", section) &&
        CHECK(h_info_field(r->str, name, value, sizeof(value)) == 0, "INFO has no %s", name))
        n = strtoll(value, NULL, 10);
    freeReplyObject(r);
    return n;
}

/* used_memory less mem_clients_normal, from one INFO reply: the memory of
 * everything but the clients' structs and buffers, which the requests that
 * measure it change. */
static long long data_memory(redisContext *c)
{
    char used[64], clients[64];
    long long n = -1;
    redisReply *r = H_CALL(c, "INFO", "memory");
    if (CHECK(r && r->type == REDIS_REPLY_STRING, "INFO memory") &&
        CHECK(h_info_field(r->str, "used_memory", used, sizeof(used)) == 0 &&
                  h_info_field(r->str, "mem_clients_normal", clients, sizeof(clients)) == 0,
              "INFO has used_memory and mem_clients_normal"))
        n = strtoll(used, NULL, 10) - strtoll(clients, NULL, 10);
    freeReplyObject(r);
    return n;
}

/* An integer reply, or -1 after recording a failure. */
static long long call_ll(redisContext *c, int argc, const char *const *argv)
{
    redisReply *r = h_command(c, argc, argv, NULL);
    long long n = -1;
    if (CHECK(r && r->type == REDIS_REPLY_INTEGER, "%s: an integer", argv[0]))
        n = r->integer;
    freeReplyObject(r);
    return n;
}
#define CALL_LL(c, ...) call_ll((c), H_ARGC(__VA_ARGS__), (const char *const[]){__VA_ARGS__})

static void test_memory_usage(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    char *big = malloc(BIG_VALUE);
    memset(big, 'x', BIG_VALUE);

    EXPECT_OK(c, "SET", "small", "v");
    EXPECT_OK(c, "SET", "hundred", "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789");
    long long small = CALL_LL(c, "MEMORY", "USAGE", "small");
    long long hundred = CALL_LL(c, "MEMORY", "USAGE", "hundred");
    CHECK(small >= 36 + 5 + 1 && small < 200, "MEMORY USAGE of a 1-byte string: %lld", small);
    CHECK(hundred >= small + 99, "a 100-byte value uses %lld bytes, a 1-byte one %lld", hundred,
          small);

    /* One big key: its usage is what used_memory grew by, the clients'
     * buffers (part of used_memory, as in Redis) aside. */
    long long before = data_memory(c);
    redisReply *r = H_CALL_BIN(c, H_S("SET"), H_S("big"), H_B(big, BIG_VALUE));
    freeReplyObject(r);
    long long grew = data_memory(c) - before;
    long long usage = CALL_LL(c, "MEMORY", "USAGE", "big");
    /* The allocator's size class for it, not the bytes asked for. */
    CHECK(usage >= BIG_VALUE && usage < 2 * BIG_VALUE, "1 MB value: usage %lld", usage);
    CHECK(llabs(usage - grew) < 16 * 1024, "usage %lld, used_memory grew by %lld", usage, grew);

    /* A sorted set: exact with SAMPLES 0, and near it from 5 samples (the
     * members are alike); both near used_memory's growth. */
    before = data_memory(c);
    for (int i = 0; i < ZSET_MEMBERS; i++) {
        char score[16], member[32];
        snprintf(score, sizeof(score), "%d", i);
        snprintf(member, sizeof(member), "member:%06d", i);
        redisAppendCommand(c, "ZADD z %s %s", score, member);
    }
    for (int i = 0; i < ZSET_MEMBERS; i++) {
        if (redisGetReply(c, (void **)&r) == REDIS_OK)
            freeReplyObject(r);
    }
    grew = data_memory(c) - before;
    long long exact = CALL_LL(c, "MEMORY", "USAGE", "z", "SAMPLES", "0");
    long long sampled = CALL_LL(c, "MEMORY", "USAGE", "z");
    CHECK(exact >= ZSET_MEMBERS * 13, "a sorted set of %d members: %lld bytes", ZSET_MEMBERS,
          exact);
    CHECK(llabs(exact - grew) < grew / 20, "SAMPLES 0: %lld, used_memory grew by %lld", exact,
          grew);
    CHECK(llabs(sampled - exact) < exact / 5, "5 samples: %lld, all: %lld", sampled, exact);
    EXPECT_INT(c, 1, "HSET", "h", "f", "v");
    CHECK(CALL_LL(c, "MEMORY", "USAGE", "h") > small, "a hash costs more than a short string");
    EXPECT_INT(c, 3, "SADD", "s", "1", "2", "3");
    CHECK(CALL_LL(c, "MEMORY", "USAGE", "s", "SAMPLES", "1") > 0, "a set's usage");

    EXPECT_NIL(c, "MEMORY", "USAGE", "missing");
    EXPECT_ERR(c, "ERR syntax error", "MEMORY", "USAGE", "small", "SAMPLES", "-1");
    EXPECT_ERR(c, "ERR syntax error", "MEMORY", "USAGE", "small", "SAMPLES");
    EXPECT_ERR(c, "ERR syntax error", "MEMORY", "USAGE", "small", "bogus");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "MEMORY", "USAGE", "small",
               "SAMPLES", "x");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'memory|usage' command", "MEMORY", "USAGE");
    free(big);
    h_close(&s, c);
}

/* The map's keys in order, with db.N as "db.N", into out (comma-joined). */
static void stats_names(redisContext *c, char *out, size_t cap)
{
    redisReply *r = H_CALL(c, "MEMORY", "STATS");
    size_t len = 0;
    out[0] = '\0';
    if (!CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements % 2 == 0, "MEMORY STATS: a map"))
        goto out;
    for (size_t i = 0; i < r->elements; i += 2) {
        const redisReply *k = r->element[i];
        if (k->type == REDIS_REPLY_STRING || k->type == REDIS_REPLY_STATUS)
            len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? "," : "", k->str);
        if (len >= cap)
            break;
    }
out:
    freeReplyObject(r);
}

/* The value of name in MEMORY STATS (an integer, or a double's text). */
static double stats_value(redisContext *c, const char *name)
{
    redisReply *r = H_CALL(c, "MEMORY", "STATS");
    double v = -1;
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i + 1 < r->elements; i += 2) {
        if (strcmp(r->element[i]->str, name) != 0)
            continue;
        const redisReply *e = r->element[i + 1];
        v = e->type == REDIS_REPLY_INTEGER ? (double)e->integer : strtod(e->str, NULL);
    }
    freeReplyObject(r);
    CHECK(v >= 0, "MEMORY STATS has no %s", name);
    return v;
}

static void test_memory_stats(void)
{
    static const char redis_names[] =
        "peak.allocated,total.allocated,startup.allocated,replication.backlog,clients.slaves,"
        "clients.normal,cluster.links,aof.buffer,lua.caches,functions.caches,db.0,"
        "overhead.total,keys.count,keys.bytes-per-key,dataset.bytes,dataset.percentage,"
        "peak.percentage,allocator.allocated,allocator.active,allocator.resident,"
        "allocator-fragmentation.ratio,allocator-fragmentation.bytes,allocator-rss.ratio,"
        "allocator-rss.bytes,rss-overhead.ratio,rss-overhead.bytes,fragmentation,"
        "fragmentation.bytes";
    struct h_server s, ref;
    char names[2048], ref_names[2048];
    redisReply *r;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    EXPECT_OK(c, "SET", "a", "1");
    EXPECT_OK(c, "SET", "b", "2", "EX", "100");
    stats_names(c, names, sizeof(names));
    CHECK(strcmp(names, redis_names) == 0, "MEMORY STATS names:\n%s\nexpected\n%s", names,
          redis_names);
    EXPECT_MATCH(c, "[*'db.0', ['overhead.hashtable.main', :*, 'overhead.hashtable.expires', :*, "
                    "'overhead.hashtable.slot-to-keys', :0]*",
                 "MEMORY", "STATS");
    CHECK(stats_value(c, "keys.count") == 2, "keys.count");
    double total = stats_value(c, "total.allocated"), overhead = stats_value(c, "overhead.total");
    double dataset = stats_value(c, "dataset.bytes");
    CHECK(overhead + dataset == total, "overhead %.0f + dataset %.0f != total %.0f", overhead,
          dataset, total);
    CHECK(stats_value(c, "peak.allocated") >= total, "the peak is at least the total");
    CHECK(stats_value(c, "startup.allocated") <= total, "startup is at most the total");
    CHECK(stats_value(c, "clients.normal") > 0, "this client's memory");

    redisContext *rc = NULL;
    if (!h_is_reference() && h_start_reference(&ref, NULL) == 0 && (rc = h_connect(&ref))) {
        EXPECT_OK(rc, "SET", "a", "1");
        stats_names(rc, ref_names, sizeof(ref_names));
        CHECK(strcmp(names, ref_names) == 0, "MEMORY STATS names:\n%s\nredis-server's:\n%s", names,
              ref_names);
        redisFree(rc);
        h_stop(&ref);
    }

    EXPECT_MATCH(c, "'Hi Sam, *'", "MEMORY", "DOCTOR");
    EXPECT_OK(c, "MEMORY", "PURGE");
    r = H_CALL(c, "MEMORY", "MALLOC-STATS");
    CHECK(r && r->type == REDIS_REPLY_STRING && r->len > 0, "MEMORY MALLOC-STATS: text");
    freeReplyObject(r);
    EXPECT_MATCH(c, "[+MEMORY <subcommand> *, +DOCTOR, *+HELP, +    Prints this help.]", "MEMORY",
                 "HELP");
    EXPECT_ERR(c, "ERR unknown subcommand 'bogus'. Try MEMORY HELP.", "MEMORY", "bogus");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'memory|stats' command", "MEMORY", "STATS",
               "x");
    h_close(&s, c);
}

static void test_debug_reload(void)
{
    struct h_server s;
    char before[H_DIGEST_CHARS + 1], after[H_DIGEST_CHARS + 1], saved[H_DIGEST_CHARS + 1];
    /* The end sets `dbfilename`, a protected config. */
    redisContext *c = h_open(&s, H_FLAGS("--enable-protected-configs", "yes"));
    if (!c)
        return;
    EXPECT_OK(c, "SET", "str", "bar");
    EXPECT_OK(c, "SET", "num", "12345");
    EXPECT_OK(c, "SET", "ttl", "v", "PXAT", "4102444800000");
    EXPECT_INT(c, 2, "ZADD", "z", "1", "a", "2.5", "b");
    EXPECT_INT(c, 2, "HSET", "h", "f", "v", "g", "w");
    EXPECT_INT(c, 2, "SADD", "s", "1", "2");
    EXPECT_OK(c, "SELECT", "2");
    EXPECT_OK(c, "SET", "other", "db");
    EXPECT_OK(c, "SELECT", "0");
    h_digest(c, before);
    CHECK(strcmp(before, H_DIGEST_ZEROS) != 0, "a digest of data");
    EXPECT_OK(c, "DEBUG", "RELOAD");
    h_digest(c, after);
    CHECK(strcmp(before, after) == 0, "DEBUG RELOAD changed the digest: %s then %s", before,
          after);
    EXPECT_INT(c, 4102444800000LL, "PEXPIRETIME", "ttl");
    memcpy(saved, after, sizeof(saved));

    /* NOSAVE: back to the file, dropping what changed since. */
    EXPECT_OK(c, "SET", "str", "changed");
    EXPECT_OK(c, "SET", "new", "key");
    EXPECT_OK(c, "DEBUG", "RELOAD", "NOSAVE");
    h_digest(c, after);
    CHECK(strcmp(saved, after) == 0, "RELOAD NOSAVE: %s, the file's %s", after, saved);
    EXPECT_NIL(c, "GET", "new");

    /* NOFLUSH: a key in both refuses the load unless MERGE, which replaces
     * it; a key only in memory stays. */
    EXPECT_OK(c, "SET", "str", "changed");
    EXPECT_OK(c, "SET", "new", "key");
    EXPECT_ERR(c, "ERR DEBUG RELOAD NOFLUSH: key 'h' in db 0 is also in the file; add MERGE to "
                  "replace it",
               "DEBUG", "RELOAD", "NOSAVE", "NOFLUSH");
    EXPECT_BULK(c, "changed", "GET", "str");
    EXPECT_OK(c, "DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE");
    EXPECT_BULK(c, "bar", "GET", "str");
    EXPECT_BULK(c, "key", "GET", "new");
    EXPECT_INT(c, 4102444800000LL, "PEXPIRETIME", "ttl");
    EXPECT_INT(c, 7, "DBSIZE");
    EXPECT_ERR(c, "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.",
               "DEBUG", "RELOAD", "FAST");

    /* DEBUG OBJECT: Redis's line (serializedlength of "bar" is 4, as
     * Redis's). */
    EXPECT_MATCH(c, "+Value at:0x* refcount:1 encoding:embstr serializedlength:4 lru:* "
                    "lru_seconds_idle:0",
                 "DEBUG", "OBJECT", "str");
    EXPECT_MATCH(c, "+Value at:0x* encoding:int serializedlength:6 *", "DEBUG", "OBJECT", "num");
    EXPECT_MATCH(c, "+Value at:0x* encoding:listpack *", "DEBUG", "OBJECT", "h");
    EXPECT_MATCH(c, "+Value at:0x* encoding:intset *", "DEBUG", "OBJECT", "s");
    EXPECT_MATCH(c, "+Value at:0x* encoding:rbtree *", "DEBUG", "OBJECT", "z");
    EXPECT_ERR(c, "ERR no such key", "DEBUG", "OBJECT", "missing");
    EXPECT_MATCH(c, "[*+OBJECT <key>, *+RELOAD [option ...], *]", "DEBUG", "HELP");

    /* A file that does not load leaves the data as it was. */
    EXPECT_OK(c, "CONFIG", "SET", "dbfilename", "none.rbkv");
    EXPECT_ERR(c, "ERR Error trying to load the RDB dump, check server logs.", "DEBUG", "RELOAD",
               "NOSAVE");
    EXPECT_BULK(c, "bar", "GET", "str");
    h_close(&s, c);
}

/* A non-loopback IPv4 address of this host into out, or 0 when it has none. */
static int outside_address(char *out, size_t cap)
{
    struct ifaddrs *list, *i;
    int found = 0;
    if (getifaddrs(&list) < 0)
        return 0;
    for (i = list; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
            continue;
        const struct sockaddr_in *a = (const struct sockaddr_in *)i->ifa_addr;
        if ((ntohl(a->sin_addr.s_addr) >> 24) == 127)
            continue;
        found = inet_ntop(AF_INET, &a->sin_addr, out, (socklen_t)cap) != NULL;
    }
    freeifaddrs(list);
    return found;
}

static redisContext *unix_client(const struct h_server *s)
{
    char path[512];
    struct timeval tv = {5, 0};
    h_path_in(s, "rbkv.sock", path, sizeof(path));
    redisContext *c = redisConnectUnixWithTimeout(path, tv);
    if (!CHECK(c && !c->err, "connect to %s", path)) {
        if (c)
            redisFree(c);
        return NULL;
    }
    return c;
}

static void test_enable_debug_command(void)
{
    struct h_server s;
    char ip[64];
    /* The default, as Redis 7.0's: no (the harness starts every other
     * server with local). */
    h_bare_start = 1;
    redisContext *c = h_open(&s, NULL);
    h_bare_start = 0;
    if (!c)
        return;
    EXPECT_REPLY(c, "['enable-debug-command', 'no']", "CONFIG", "GET", "enable-debug-command");
    EXPECT_ERR(c, DEBUG_REFUSED, "DEBUG", "DIGEST");
    h_close(&s, c);

    /* local: loopback and the unix socket. */
    c = h_open(&s, H_FLAGS("--enable-debug-command", "local", "--unixsocket", "rbkv.sock"));
    if (!c)
        return;
    EXPECT_REPLY(c, "['enable-debug-command', 'local']", "CONFIG", "GET", "enable-debug-command");
    EXPECT_STATUS(c, H_DIGEST_ZEROS, "DEBUG", "DIGEST");
    redisContext *u = unix_client(&s);
    if (u) {
        EXPECT_STATUS(u, H_DIGEST_ZEROS, "DEBUG", "DIGEST");
        redisFree(u);
    }
    EXPECT_ERR(c, "ERR CONFIG SET failed (possibly related to argument 'enable-debug-command') - "
                  "can't set immutable config",
               "CONFIG", "SET", "enable-debug-command", "yes");
    h_close(&s, c);

    /* no: nobody, before authentication too, and a refused DEBUG aborts
     * the transaction it was queued in. */
    c = h_open(&s, H_FLAGS("--enable-debug-command", "no", "--unixsocket", "rbkv.sock"));
    if (!c)
        return;
    EXPECT_ERR(c, DEBUG_REFUSED, "DEBUG", "DIGEST");
    u = unix_client(&s);
    if (u) {
        EXPECT_ERR(u, DEBUG_REFUSED, "DEBUG", "SLEEP", "0");
        redisFree(u);
    }
    EXPECT_OK(c, "MULTI");
    EXPECT_ERR(c, DEBUG_REFUSED, "DEBUG", "DIGEST");
    EXPECT_ERR(c, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    h_close(&s, c);

    /* yes: everybody. */
    c = h_open(&s, H_FLAGS("--enable-debug-command", "yes"));
    if (!c)
        return;
    EXPECT_STATUS(c, H_DIGEST_ZEROS, "DEBUG", "DIGEST");
    EXPECT_ERR(c, "ERR CONFIG SET failed (possibly related to argument 'enable-debug-command') - "
                  "can't set immutable config",
               "CONFIG", "SET", "enable-debug-command", "no");
    h_close(&s, c);

    /* local, from this host's own outside address: not local. */
    if (!outside_address(ip, sizeof(ip))) {
        printf("  (no non-loopback IPv4 address: the remote case is skipped)\n");
        return;
    }
    char bind[128];
    snprintf(bind, sizeof(bind), "127.0.0.1 %s", ip);
    c = h_open(&s, H_FLAGS("--bind", bind, "--protected-mode", "no"));
    if (!c)
        return;
    struct timeval tv = {5, 0};
    redisContext *remote = redisConnectWithTimeout(ip, s.port, tv);
    if (CHECK(remote && !remote->err, "connect to %s:%d", ip, s.port))
        EXPECT_ERR(remote, DEBUG_REFUSED, "DEBUG", "DIGEST");
    if (remote)
        redisFree(remote);
    EXPECT_STATUS(c, H_DIGEST_ZEROS, "DEBUG", "DIGEST");
    h_close(&s, c);
}

static void test_info_fields(void)
{
    static const char *const memory_fields[] = {
        "used_memory", "used_memory_rss", "used_memory_peak", "used_memory_peak_perc",
        "used_memory_overhead", "used_memory_startup", "used_memory_dataset",
        "used_memory_dataset_perc", "allocator_allocated", "allocator_active",
        "allocator_resident", "total_system_memory", "used_memory_lua", "maxmemory",
        "maxmemory_policy", "allocator_frag_ratio", "allocator_rss_ratio", "rss_overhead_ratio",
        "mem_fragmentation_ratio", "mem_fragmentation_bytes", "mem_not_counted_for_evict",
        "mem_replication_backlog", "mem_clients_slaves", "mem_clients_normal", "mem_aof_buffer",
        "mem_allocator", "lazyfree_pending_objects", "lazyfreed_objects"};
    struct h_server s;
    char value[64];
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    redisReply *r = H_CALL(c, "INFO", "memory");
    for (size_t i = 0; r && r->type == REDIS_REPLY_STRING &&
                       i < sizeof(memory_fields) / sizeof(memory_fields[0]);
         i++)
        CHECK(h_info_field(r->str, memory_fields[i], value, sizeof(value)) == 0,
              "INFO memory has no %s", memory_fields[i]);
    freeReplyObject(r);
    long long used = info_ll(c, "memory", "used_memory");
    long long overhead = info_ll(c, "memory", "used_memory_overhead");
    long long dataset = info_ll(c, "memory", "used_memory_dataset");
    CHECK(overhead > 0 && dataset >= 0 && overhead + dataset <= used + 4096,
          "overhead %lld + dataset %lld, used %lld", overhead, dataset, used);
    CHECK(info_ll(c, "memory", "total_system_memory") > 0, "total_system_memory");

    long long reads = info_ll(c, "stats", "total_reads_processed");
    long long writes = info_ll(c, "stats", "total_writes_processed");
    CHECK(reads > 0 && writes > 0, "reads %lld, writes %lld", reads, writes);
    /* The INFO for writes in between, then this one. */
    CHECK(info_ll(c, "stats", "total_reads_processed") == reads + 2, "one read per request");
    CHECK(info_ll(c, "stats", "expired_time_cap_reached_count") == 0, "no capped expiry");
    CHECK(info_ll(c, "stats", "io_threaded_reads_processed") == 0, "no I/O threads");
    CHECK(info_ll(c, "persistence", "rdb_last_bgsave_time_sec") == -1, "no BGSAVE yet");
    CHECK(info_ll(c, "stats", "total_forks") == 0, "no fork yet");

    /* A BGSAVE while writes go on: its duration, its copy-on-write. */
    EXPECT_OK(c, "DEBUG", "SLEEP", "0");
    for (int i = 0; i < LOAD_KEYS; i++)
        redisAppendCommand(c, "SET key:%d %0128d", i, i);
    for (int i = 0; i < LOAD_KEYS; i++) {
        if (redisGetReply(c, (void **)&r) == REDIS_OK)
            freeReplyObject(r);
    }
    EXPECT_STATUS(c, "Background saving started", "BGSAVE");
    CHECK(info_ll(c, "persistence", "current_save_keys_total") == LOAD_KEYS ||
              info_ll(c, "persistence", "rdb_bgsave_in_progress") == 0,
          "the keys the child writes");
    for (int i = 0; i < LOAD_KEYS; i += 7)
        redisAppendCommand(c, "SET key:%d changed", i);
    for (int i = 0; i < LOAD_KEYS; i += 7) {
        if (redisGetReply(c, (void **)&r) == REDIS_OK)
            freeReplyObject(r);
    }
    int64_t deadline = h_now_ms() + WAIT_MS;
    while (info_ll(c, "persistence", "rdb_bgsave_in_progress") == 1 && h_now_ms() < deadline)
        h_sleep_ms(20);
    CHECK(info_ll(c, "persistence", "rdb_last_bgsave_time_sec") >= 0, "BGSAVE's duration");
    CHECK(info_ll(c, "persistence", "rdb_current_bgsave_time_sec") == -1, "none running");
    CHECK(info_ll(c, "persistence", "rdb_last_cow_size") > 0, "BGSAVE's copy-on-write");
    CHECK(info_ll(c, "stats", "total_forks") == 1, "one fork");
    CHECK(info_ll(c, "persistence", "rdb_saves") == 1, "one save");
    CHECK(info_ll(c, "stats", "latest_fork_usec") > 0, "the fork's time");
    h_close(&s, c);

    /* A log rewrite: the same figures under aof_. */
    c = h_open(&s, H_FLAGS("--appendonly", "yes"));
    if (!c)
        return;
    CHECK(info_ll(c, "persistence", "aof_last_rewrite_time_sec") == -1, "no rewrite yet");
    EXPECT_OK(c, "SET", "a", "1");
    EXPECT_MATCH(c, "+Background append only file rewriting *", "BGREWRITEAOF");
    deadline = h_now_ms() + WAIT_MS;
    while (info_ll(c, "persistence", "aof_last_rewrite_time_sec") == -1 && h_now_ms() < deadline)
        h_sleep_ms(50);
    CHECK(info_ll(c, "persistence", "aof_last_rewrite_time_sec") >= 0, "the rewrite's duration");
    CHECK(info_ll(c, "persistence", "aof_last_cow_size") > 0, "the rewrite's copy-on-write");
    CHECK(info_ll(c, "persistence", "aof_rewrites") == 1, "one rewrite");
    CHECK(info_ll(c, "persistence", "aof_rewrites_consecutive_failures") == 0, "it went well");
    h_close(&s, c);
}

static void test_resetstat(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, NULL);
    if (!c)
        return;
    EXPECT_OK(c, "SET", "a", "1");
    EXPECT_BULK(c, "1", "GET", "a");
    EXPECT_NIL(c, "GET", "b");
    EXPECT_OK(c, "SET", "gone", "1", "PX", "1");
    h_sleep_ms(20); /* the test: the deadline passes */
    EXPECT_NIL(c, "GET", "gone");
    EXPECT_STATUS(c, "Background saving started", "BGSAVE");
    CHECK(info_ll(c, "stats", "expired_keys") == 1, "an expired key");
    CHECK(info_ll(c, "stats", "keyspace_hits") == 1, "a hit");
    CHECK(info_ll(c, "stats", "total_forks") == 1, "a fork");
    int64_t deadline = h_now_ms() + WAIT_MS;
    while (info_ll(c, "persistence", "rdb_bgsave_in_progress") == 1 && h_now_ms() < deadline)
        h_sleep_ms(20);
    CHECK(info_ll(c, "persistence", "rdb_saves") == 1, "a save");

    EXPECT_OK(c, "CONFIG", "RESETSTAT");
    static const char *const zeroed[] = {
        "expired_keys", "keyspace_hits", "keyspace_misses", "total_forks", "latest_fork_usec",
        "expired_time_cap_reached_count", "expire_cycle_cpu_milliseconds"};
    for (size_t i = 0; i < sizeof(zeroed) / sizeof(zeroed[0]); i++)
        CHECK(info_ll(c, "stats", zeroed[i]) == 0, "%s after RESETSTAT", zeroed[i]);
    /* The INFO calls just made count, and nothing before them. */
    CHECK(info_ll(c, "stats", "total_reads_processed") <= 16, "reads after RESETSTAT");
    CHECK(info_ll(c, "stats", "total_commands_processed") <= 16, "commands after RESETSTAT");
    CHECK(info_ll(c, "memory", "lazyfreed_objects") == 0, "lazyfreed_objects after RESETSTAT");
    CHECK(info_ll(c, "persistence", "rdb_saves") == 0, "rdb_saves after RESETSTAT");
    h_close(&s, c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_memory_usage);
    H_RUN(test_memory_stats);
    H_RUN(test_debug_reload);
    H_RUN(test_enable_debug_command);
    H_RUN(test_info_fields);
    H_RUN(test_resetstat);
    return h_finish();
}
