/*
 * test_aof_replay.c - end-to-end tests of what the append-only log must
 * make a replay see (server/persist/aof.h): a transaction is logged inside MULTI ...
 * EXEC and a log cut in the middle of one drops it whole; a pop served to a
 * waiting client because of a write inside EXEC is logged; a key removed for
 * its deadline is logged as DEL, and the replay removes nothing by the clock,
 * so a command that read a key before it expired reads it again on replay;
 * commands are logged under their own names, whatever rename-command says.
 *
 * Owns: its servers and the files they leave in their dirs.
 */
#include <stdio.h>
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

int main(int argc, char **argv)
{
    h_init(argc, argv);
    H_RUN(test_exec_serves_pop);
    H_RUN(test_cut_transaction);
    H_RUN(test_expiry_in_log);
    H_RUN(test_expired_while_down);
    H_RUN(test_renamed_commands);
    return h_finish();
}
