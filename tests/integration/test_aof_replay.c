/*
 * test_aof_replay.c - end-to-end tests of what the append-only log must
 * make a replay see (server/persist/aof.h): a transaction is logged inside MULTI ...
 * EXEC and a log cut in the middle of one drops it whole; a pop served to a
 * waiting client because of a write inside EXEC is logged; a key removed for
 * its deadline is logged as DEL, and the replay removes nothing by the clock,
 * so a command that read a key before it expired reads it again on replay;
 * commands are logged under their own names, whatever rename-command says;
 * an EXEC or a script whose writes are PUBLISHes (for the replicas alone)
 * logs what redis-server 7.0.15 logs, byte for byte, with and without a
 * replica, and grows the replication stream by as many bytes.
 *
 * Owns: its servers and the files they leave in their dirs.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define AOF "appendonly.aof"
#define ALWAYS "--appendonly", "yes", "--appendfsync", "always"

/* A client served by a pop after the EXEC that filled the set: the
 * transaction is logged whole inside MULTI/EXEC, then the pop. */
static void test_exec_serves_pop(void)
{
    struct h_server s;
    redisContext *waiter;
    redisContext *c = h_open_blocked(&s, H_FLAGS(ALWAYS), &waiter, H_FLAGS("BZPOPMIN", "z", "5"));
    if (!c)
        return;
    EXPECT_TRANSACTION(c, "[:1, :1, +OK]", "ZADD z 1 a", "ZADD z 2 b", "SET t x");
    redisReply *r = NULL;
    CHECK(redisGetReply(waiter, (void **)&r) == REDIS_OK && r && r->type == REDIS_REPLY_ARRAY &&
              r->elements == 3 && !strcmp(r->element[1]->str, "a"),
          "BZPOPMIN should pop a after the EXEC");
    freeReplyObject(r);
    redisFree(waiter);
    h_close(&s, c);
    CHECK(h_file_has(&s, AOF, "*1\r\n$5\r\nMULTI\r\n"), "no MULTI in the log");
    CHECK(h_file_has(&s, AOF, "$1\r\nx\r\n*1\r\n$4\r\nEXEC\r\n*2\r\n$7\r\nZPOPMIN\r\n$1\r\nz\r\n"),
          "the log should hold EXEC, then the served pop");

    c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_REPLY(c, "['b', '2']", "ZRANGE", "z", "0", "-1", "WITHSCORES");
    EXPECT_BULK(c, "x", "GET", "t");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* Cuts the log right before the first byte of needle (the start of a
 * command inside the transaction). Returns 0 or -1. */
static int cut_before(const struct h_server *s, const char *needle)
{
    char p[512];
    size_t len;
    h_path_in(s, AOF, p, sizeof(p));
    char *log = h_read_file(p, &len);
    char *at = log ? strstr(log, needle) : NULL;
    int ok = CHECK(at != NULL, "'%s' not in the log", needle) &&
             CHECK(truncate(p, at - log) == 0, "truncate %s", p);
    free(log);
    return ok ? 0 : -1;
}

/* Whole commands of a transaction but not its EXEC (a crash while its
 * bytes were being written): none of it is replayed, and the log is trimmed
 * where its MULTI began. */
static void test_cut_transaction(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_OK(c, "SET", "before", "1");
    long long before_tx = h_file_size(&s, AOF);
    EXPECT_TRANSACTION(c, "[+OK, +OK]", "SET t1 x", "SET t2 y");
    h_close(&s, c);
    if (cut_before(&s, "*3\r\n$3\r\nSET\r\n$2\r\nt2\r\n") < 0)
        return;

    c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    CHECK(h_file_has(&s, "server.log", "short read while loading the AOF"), "no warning logged");
    CHECK(h_file_size(&s, AOF) == before_tx, "log trimmed to %lld bytes, want %lld (at the MULTI)",
          h_file_size(&s, AOF), before_tx);
    EXPECT_BULK(c, "1", "GET", "before");
    EXPECT_INT(c, 0, "EXISTS", "t1", "t2");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* Keys removed for their deadlines are logged as DEL; a command that read
 * a key before its deadline reads it again on replay, long after. */
static void test_expiry_in_log(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_INT(c, 2, "ZADD", "src", "1", "a", "2", "b");
    EXPECT_INT(c, 1, "PEXPIRE", "src", "300");
    EXPECT_INT(c, 2, "ZUNIONSTORE", "dst", "1", "src");
    EXPECT_OK(c, "SET", "lazy", "v", "PX", "200");
    /* A deadline given in the past removes the key at once; the replay must
     * not see it either. */
    EXPECT_INT(c, 1, "ZADD", "gone", "1", "m");
    EXPECT_INT(c, 1, "EXPIRE", "gone", "-1");
    EXPECT_INT(c, 0, "ZUNIONSTORE", "never", "1", "gone");
    h_sleep_ms(500); /* the test: past lazy's 200 ms deadline */
    EXPECT_NIL(c, "GET", "lazy");
    EXPECT_INT(c, 0, "EXISTS", "src");
    h_close(&s, c);
    CHECK(h_file_has(&s, AOF, "*2\r\n$3\r\nDEL\r\n$3\r\nsrc\r\n"), "src's expiry not logged");
    CHECK(h_file_has(&s, AOF, "*2\r\n$3\r\nDEL\r\n$4\r\nlazy\r\n"), "lazy's expiry not logged");
    CHECK(h_file_has(&s, AOF, "*2\r\n$3\r\nDEL\r\n$4\r\ngone\r\n"), "gone's removal not logged");

    c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_REPLY(c, "['a', 'b']", "ZRANGE", "dst", "0", "-1");
    EXPECT_INT(c, 0, "EXISTS", "src", "lazy", "gone", "never");
    h_close(&s, c);
    h_clean_dir(&s);
}

/* Deadlines that passed while the server was down: the keys load (the
 * replay removes nothing by the clock) and are removed right after, with
 * their DELs logged, so the next start agrees. */
static void test_expired_while_down(void)
{
    struct h_server s;
    redisContext *c = h_open(&s, H_FLAGS(ALWAYS));
    if (!c)
        return;
    EXPECT_OK(c, "SET", "k", "v", "PX", "300");
    EXPECT_INT(c, 1, "ZADD", "z", "1", "m");
    EXPECT_INT(c, 1, "PEXPIRE", "z", "300");
    EXPECT_OK(c, "SET", "stays", "v");
    h_close(&s, c);
    h_sleep_ms(500); /* the test: the 300 ms deadlines pass while the server is down */
    for (int round = 0; round < 2; round++) {
        c = h_reopen(&s, H_FLAGS(ALWAYS));
        if (!c)
            return;
        EXPECT_INT(c, 0, "EXISTS", "k", "z");
        EXPECT_INT(c, 1, "DBSIZE");
        h_close(&s, c);
    }
    CHECK(h_file_has(&s, AOF, "*2\r\n$3\r\nDEL\r\n$1\r\nz\r\n"), "z's expiry not logged");
    h_clean_dir(&s);
}

/* The log names commands by their own names: a log written while SET was
 * renamed and FLUSHALL disabled loads with those renames and without them. */
static void test_renamed_commands(void)
{
    struct h_server s;
    const char *const *renamed =
        H_FLAGS(ALWAYS, "--rename-command", "SET", "MYSET", "--rename-command", "SELECT", "");
    redisContext *c = h_open(&s, renamed);
    if (!c)
        return;
    int64_t k_set_ms = h_now_ms();
    EXPECT_OK(c, "MYSET", "k", "v", "PX", "100000");
    EXPECT_INT(c, 1, "ZADD", "z", "1", "m");
    /* Under its own name: as SET PXAT, which SET PX always becomes, and a
     * plain call under the name the table gives it. */
    EXPECT_OK(c, "MYSET", "k2", "v");
    h_close(&s, c);
    CHECK(h_file_has(&s, AOF, "$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$4\r\nPXAT\r\n"),
          "SET PX not logged as SET PXAT");
    CHECK(h_file_has(&s, AOF, "$3\r\nset\r\n$2\r\nk2\r\n"), "SET not logged under its name");
    CHECK(!h_file_has(&s, AOF, "MYSET"), "SET logged under its alias");
    for (int round = 0; round < 2; round++) {
        c = h_reopen(&s, round ? H_FLAGS(ALWAYS) : renamed);
        if (!c)
            return;
        EXPECT_BULK(c, "v", "GET", "k");
        EXPECT_INT_RANGE(c, h_ttl_floor(100, k_set_ms), 100, "TTL", "k");
        EXPECT_INT(c, 1, "ZCARD", "z");
        h_close(&s, c);
    }
    h_clean_dir(&s);
}

/* ---- PUBLISH inside EXEC: the log holds what Redis's holds ---- */

#define REDIS_INCR "appendonlydir/appendonly.aof.1.incr.aof"

/* The log's bytes from offset from on (Redis keeps its in appendonlydir),
 * malloc'ed; *len its length. */
static char *log_since(const struct h_server *s, long long from, size_t *len)
{
    char path[600];
    h_path_in(s, h_file_size(s, AOF) >= 0 ? AOF : REDIS_INCR, path, sizeof(path));
    size_t n = 0;
    char *all = h_read_file(path, &n);
    if (!all || (size_t)from > n) {
        free(all);
        *len = 0;
        return NULL;
    }
    *len = n - (size_t)from;
    memmove(all, all + from, *len);
    return all;
}

static long long log_size(const struct h_server *s)
{
    long long n = h_file_size(s, AOF);
    return n >= 0 ? n : h_file_size(s, REDIS_INCR);
}

/* Transactions of PUBLISHes, and of a PUBLISH and a SET, in db 0 then 2. */
static void publish_transactions(redisContext *c, int with_select)
{
    EXPECT_TRANSACTION(c, "[:0]", "PUBLISH ch m");
    EXPECT_TRANSACTION(c, "[:0, :0]", "PUBLISH ch m", "PUBLISH ch2 m2");
    EXPECT_TRANSACTION(c, "[:0, +OK]", "PUBLISH ch m", "SET b 2");
    if (!with_select)
        return;
    EXPECT_OK(c, "SELECT", "2");
    EXPECT_TRANSACTION(c, "[:0, :0]", "PUBLISH a b", "PUBLISH c d");
    EXPECT_INT(c, 0, "EVAL", "redis.call('publish', 'x', 'y') return redis.call('publish', 'x', 'z')",
               "0");
    EXPECT_OK(c, "SELECT", "0");
}

/* What s logs for publish_transactions, first with no replica ever (no
 * backlog), then after one came (a raw PSYNC that reads nothing, gone
 * again: the backlog stays): the two tails, malloc'ed; *streamed, the
 * bytes the second round added to the replication stream. */
static void publish_logs(const struct h_server *s, char **before, size_t *blen, char **after,
                         size_t *alen, long long *streamed)
{
    *before = *after = NULL;
    *blen = *alen = 0;
    redisContext *c = h_connect(s);
    if (!c)
        return;
    EXPECT_OK(c, "SET", "a", "1"); /* the log's SELECT 0 out of the way */
    long long from = log_size(s);
    publish_transactions(c, 0);
    *before = log_since(s, from, blen);

    struct h_raw r;
    if (h_raw_open(&r, s) == 0) {
        RAW_SEND(&r, "*3\r\n$8\r\nREPLCONF\r\n$4\r\ncapa\r\n$4\r\nrbkv\r\n");
        /* Redis refuses a PSYNC while a reply is pending. */
        RAW_EXPECT(&r, "+OK\r\n");
        RAW_SEND(&r, "*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n");
        CHECK(h_wait_info(c, "replication", "repl_backlog_active", "1", 10000 * H_SLOW),
              "a backlog once a replica asked for a sync");
        h_raw_close(&r);
    }
    from = log_size(s);
    long long offset = h_info_ll(c, "replication", "master_repl_offset");
    publish_transactions(c, 1);
    *streamed = h_info_ll(c, "replication", "master_repl_offset") - offset;
    *after = log_since(s, from, alen);
    redisFree(c);
}

static void remove_redis_log_dir(const struct h_server *s)
{
    char dir[600], p[900];
    h_path_in(s, "appendonlydir", dir, sizeof(dir));
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* Redis 7.0's shouldPropagate: a PUBLISH is held for the replicas only
 * while a backlog exists, and MULTI/EXEC wrap what was held when it is more
 * than one, going to the log as well: with no replica ever, an EXEC of
 * PUBLISHes logs nothing and one of a PUBLISH and a SET logs the SET alone;
 * after a replica came, two PUBLISHes log an empty MULTI/EXEC (after the
 * SELECT of their db) and a PUBLISH and a SET log MULTI, SET, EXEC. */
static void test_publish_in_exec(void)
{
    struct h_server s, ref;
    if (h_start(&s, H_FLAGS(ALWAYS)) < 0)
        return;
    char *before, *after;
    size_t blen, alen;
    long long streamed = 0;
    publish_logs(&s, &before, &blen, &after, &alen, &streamed);
    static const char want_before[] = "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n";
    static const char want_after[] =
        "*1\r\n$5\r\nMULTI\r\n*1\r\n$4\r\nEXEC\r\n"
        "*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n*1\r\n$4\r\nEXEC\r\n"
        "*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n*1\r\n$5\r\nMULTI\r\n*1\r\n$4\r\nEXEC\r\n"
        "*1\r\n$5\r\nMULTI\r\n*1\r\n$4\r\nEXEC\r\n";
    CHECK(before && blen == sizeof(want_before) - 1 && !memcmp(before, want_before, blen),
          "no replica ever: only the SET is logged (%zu bytes: %.*s)", blen, (int)blen,
          before ? before : "");
    CHECK(after && alen == sizeof(want_after) - 1 && !memcmp(after, want_after, alen),
          "with a backlog: empty MULTI/EXECs and MULTI SET EXEC (%zu bytes: %.*s)", alen,
          (int)alen, after ? after : "");
    CHECK(streamed > (long long)alen, "the stream carries the PUBLISHes too (%lld bytes)",
          streamed);
    h_stop(&s);
    /* Empty transactions replay as nothing. */
    redisContext *c = h_reopen(&s, H_FLAGS(ALWAYS));
    if (c) {
        EXPECT_BULK(c, "2", "GET", "b");
        h_close(&s, c);
    }
    h_clean_dir(&s);

    if (h_start_reference(&ref, H_FLAGS(ALWAYS)) == 0) {
        char *rb, *ra;
        size_t rblen, ralen;
        long long rstreamed = 0;
        publish_logs(&ref, &rb, &rblen, &ra, &ralen, &rstreamed);
        /* The stream: the PUBLISHes inside the same MULTI/EXECs. */
        CHECK(rstreamed == streamed, "the stream grew by %lld bytes, redis-server's by %lld",
              streamed, rstreamed);
        CHECK(rb && rblen == blen && before && !memcmp(rb, before, blen),
              "redis-server logs the same with no replica: %.*s", (int)rblen, rb ? rb : "");
        CHECK(ra && ralen == alen && after && !memcmp(ra, after, alen),
              "redis-server logs the same with a backlog: %.*s", (int)ralen, ra ? ra : "");
        free(rb);
        free(ra);
        h_stop(&ref);
        remove_redis_log_dir(&ref);
        h_clean_dir(&ref);
    }
    free(before);
    free(after);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_exec_serves_pop);
    H_RUN(test_cut_transaction);
    H_RUN(test_expiry_in_log);
    H_RUN(test_expired_while_down);
    H_RUN(test_renamed_commands);
    H_RUN(test_publish_in_exec);
    return h_finish();
}
