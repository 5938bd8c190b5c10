/*
 * test_acl.c - end-to-end tests of users and permissions (server/core/acl.c,
 * server/commands/cmd_acl.c, the dispatcher's check in core/command.c).
 *
 * Every test runs unchanged against Debian's redis-server 7.0.15, which is
 * how the expected texts were checked:
 *   test_integration_acl redis-server
 * except test_key_reach, rbkv's own (it skips itself there): Redis has no
 * ordered commands, and lets KEYS and SCAN list every key whatever the
 * user's patterns.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "harness.h"

static struct h_server srv, ref;
static int have_ref;

/* The SHA-256 of "p1", as ACL LIST shows it. */
#define P1_HASH "f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a"
#define NOPERM_KEYS "NOPERM this user has no permissions to access one of the keys used as arguments"
#define NOPERM_CHANNELS                                                                           \
    "NOPERM this user has no permissions to access one of the channels used as arguments"
#define WRONGPASS "WRONGPASS invalid username-password pair or user is disabled."

/* A connection authenticated as user/pass, or NULL (failed check). */
static redisContext *connect_as(const char *user, const char *pass)
{
    redisContext *c = h_connect(&srv);
    if (c && !EXPECT_OK(c, "AUTH", user, pass)) {
        redisFree(c);
        return NULL;
    }
    return c;
}

static void reset_users(redisContext *c)
{
    redisReply *r = H_CALL(c, "ACL", "USERS");
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
        if (strcmp(r->element[i]->str, "default") != 0)
            freeReplyObject(H_CALL(c, "ACL", "DELUSER", r->element[i]->str));
    }
    freeReplyObject(r);
    freeReplyObject(H_CALL(c, "ACL", "LOG", "RESET"));
}

/* Rules, their description in ACL LIST and GETUSER, and Redis's errors. */
static void test_rules(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    reset_users(c);
    EXPECT_REPLY(c, "['user default on nopass ~* &* +@all']", "ACL", "LIST");
    EXPECT_OK(c, "ACL", "SETUSER", "u", "on", ">p1", "~cache:*", "%R~ro:*", "&ch*", "+@all",
              "-debug", "+client|list", "-@dangerous", "+config|get");
    /* -@dangerous drops the earlier rules about its commands, as Redis 7.0. */
    EXPECT_REPLY(c,
                 "['user default on nopass ~* &* +@all', 'user u on #" P1_HASH
                 " ~cache:* %R~ro:* resetchannels &ch* +@all -@dangerous +config|get']",
                 "ACL", "LIST");
    EXPECT_REPLY(c,
                 "['flags', ['on'], 'passwords', ['" P1_HASH "'], 'commands', "
                 "'+@all -@dangerous +config|get', 'keys', '~cache:* %R~ro:*', 'channels', "
                 "'&ch*', 'selectors', []]",
                 "ACL", "GETUSER", "u");
    EXPECT_OK(c, "ACL", "SETUSER", "v");
    EXPECT_MATCH(c, "*'user v off resetchannels -@all']", "ACL", "LIST");
    EXPECT_OK(c, "ACL", "SETUSER", "s", "(~a* +get)", "(+set ~b)");
    EXPECT_MATCH(c, "*'user s off resetchannels -@all (~a* resetchannels -@all +get) "
                    "(~b resetchannels -@all +set)'*",
                 "ACL", "LIST");
    EXPECT_REPLY(c, "['default', 's', 'u', 'v']", "ACL", "USERS");
    EXPECT_NIL(c, "ACL", "GETUSER", "nosuch");

    EXPECT_ERR(c, "ERR Error in ACL SETUSER modifier 'bogus': Syntax error", "ACL", "SETUSER",
               "x", "bogus");
    EXPECT_ERR(c, "ERR Error in ACL SETUSER modifier '+@bogus': Unknown command or category "
                  "name in ACL",
               "ACL", "SETUSER", "x", "+@bogus");
    EXPECT_ERR(c, "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category "
                  "name in ACL",
               "ACL", "SETUSER", "x", "+nosuch");
    EXPECT_ERR(c, "ERR Error in ACL SETUSER modifier '<nope': The password you are trying to "
                  "remove from the user does not exist",
               "ACL", "SETUSER", "x", "<nope");
    EXPECT_ERR(c, "ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly "
                  "64 characters and contain only lowercase hexadecimal characters",
               "ACL", "SETUSER", "x", "#abc");
    EXPECT_ERR(c, "ERR Error in ACL SETUSER modifier '~a': Adding a pattern after the * "
                  "pattern (or the 'allkeys' flag) is not valid and does not have any effect. "
                  "Try 'resetkeys' to start with an empty list of patterns",
               "ACL", "SETUSER", "x", "allkeys", "~a");
    /* All or nothing: the failed SETUSERs created no user x. */
    EXPECT_NIL(c, "ACL", "GETUSER", "x");
    EXPECT_ERR(c, "ERR The 'default' user cannot be removed", "ACL", "DELUSER", "default");
    EXPECT_INT(c, 2, "ACL", "DELUSER", "s", "v", "nosuch");
    EXPECT_ERR(c, "ERR Unknown category 'nosuch'", "ACL", "CAT", "nosuch");
    redisReply *r = H_CALL(c, "ACL", "GENPASS");
    CHECK(r && r->type == REDIS_REPLY_STRING && r->len == 64 &&
              strspn(r->str, "0123456789abcdef") == 64,
          "GENPASS: 256 bits as 64 hex digits");
    freeReplyObject(r);
    r = H_CALL(c, "ACL", "GENPASS", "5");
    CHECK(r && r->type == REDIS_REPLY_STRING && r->len == 2, "GENPASS 5: two hex digits");
    freeReplyObject(r);
    EXPECT_ERR(c, "ERR ACL GENPASS argument must be the number of bits for the output password, "
                  "a positive number up to 4096",
               "ACL", "GENPASS", "0");
    EXPECT_BULK(c, "default", "ACL", "WHOAMI");
    /* ACL CAT and COMMAND's category filter come from one derivation. */
    char cat[8192], filtered[8192];
    r = H_CALL(c, "ACL", "CAT", "sortedset");
    h_repr(r, cat, sizeof(cat));
    freeReplyObject(r);
    r = H_CALL(c, "COMMAND", "LIST", "FILTERBY", "ACLCAT", "sortedset");
    h_repr(r, filtered, sizeof(filtered));
    freeReplyObject(r);
    CHECK(strcmp(cat, filtered) == 0 && strstr(cat, "'zadd'"), "ACL CAT sortedset %s", cat);
    EXPECT_MATCH(c, "[+ACL <subcommand> *, +    Prints this help.]", "ACL", "HELP");
    EXPECT_ERR(c, "ERR This Redis instance is not configured to use an ACL file. You may want "
                  "to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE "
                  "(assuming you have a Redis configuration file set) in order to store users in "
                  "the Redis configuration.",
               "ACL", "SAVE");
    reset_users(c);
    redisFree(c);
}

/* AUTH and HELLO AUTH with users; requirepass is the default user's. */
static void test_auth(void)
{
    redisContext *c = h_connect_flushed(&srv), *u = NULL;
    if (!c)
        return;
    reset_users(c);
    EXPECT_OK(c, "ACL", "SETUSER", "u", "on", ">p1", "allkeys", "+@all");
    EXPECT_ERR(c, WRONGPASS, "AUTH", "u", "bad");
    EXPECT_ERR(c, WRONGPASS, "AUTH", "nosuch", "p1");
    EXPECT_ERR(c, "ERR AUTH <password> called without any password configured for the default "
                  "user. Are you sure your configuration is correct?",
               "AUTH", "x");
    /* The default user has nopass: any password opens it. */
    EXPECT_OK(c, "AUTH", "default", "anything");
    EXPECT_OK(c, "AUTH", "u", "p1");
    EXPECT_BULK(c, "u", "ACL", "WHOAMI");
    EXPECT_MATCH(c, "*user=u *", "CLIENT", "INFO");
    EXPECT_MATCH(c, "['server', 'redis', *]", "HELLO", "2", "AUTH", "default", "x");
    EXPECT_BULK(c, "default", "ACL", "WHOAMI");
    EXPECT_ERR(c, WRONGPASS, "HELLO", "2", "AUTH", "u", "bad");
    /* A user switched off opens no more connections. */
    EXPECT_OK(c, "ACL", "SETUSER", "u", "off");
    EXPECT_ERR(c, WRONGPASS, "AUTH", "u", "p1");
    EXPECT_OK(c, "ACL", "SETUSER", "u", "on", "#" P1_HASH);

    /* requirepass is the default user's password. */
    EXPECT_OK(c, "CONFIG", "SET", "requirepass", "secret");
    u = h_connect(&srv);
    if (u) {
        EXPECT_ERR(u, "NOAUTH Authentication required.", "GET", "k");
        EXPECT_ERR(u, WRONGPASS, "AUTH", "wrong");
        EXPECT_OK(u, "AUTH", "secret");
        EXPECT_OK(u, "AUTH", "default", "secret");
        EXPECT_OK(u, "AUTH", "u", "p1");
        EXPECT_MATCH(u, "*'user default on #* ~* &* +@all'*", "ACL", "LIST");
        redisFree(u);
    }
    EXPECT_OK(c, "AUTH", "default", "secret");
    EXPECT_OK(c, "CONFIG", "SET", "requirepass", "");
    EXPECT_MATCH(c, "*'user default on nopass ~* &* +@all'*", "ACL", "LIST");
    /* Deleting a user closes its connections. */
    u = connect_as("u", "p1");
    if (u) {
        EXPECT_INT(c, 1, "ACL", "DELUSER", "u");
        redisReply *r = H_CALL(u, "PING");
        CHECK(!r, "a deleted user's connection was closed");
        freeReplyObject(r);
        redisFree(u);
    }
    reset_users(c);
    redisFree(c);
}

/* Commands, subcommands, keys with read and write patterns, channels and
 * selectors, with Redis's NOPERM texts; DRYRUN says the same. */
static void test_permissions(void)
{
    redisContext *c = h_connect_flushed(&srv), *u = NULL;
    if (!c)
        return;
    reset_users(c);
    EXPECT_OK(c, "ACL", "SETUSER", "u", "on", ">p1", "~cache:*", "%R~ro:*", "%W~wo:*", "&ch*",
              "+@all", "-@dangerous", "+config|get", "(~sel:* +get)");
    EXPECT_OK(c, "SET", "ro:1", "v");
    u = connect_as("u", "p1");
    if (!u)
        goto out;
    EXPECT_NIL(u, "GET", "cache:1");
    EXPECT_OK(u, "SET", "cache:1", "v");
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "other");
    EXPECT_BULK(u, "v", "GET", "ro:1");
    EXPECT_ERR(u, NOPERM_KEYS, "SET", "ro:1", "x");
    EXPECT_OK(u, "SET", "wo:1", "x");
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "wo:1");
    /* Every key of a command: one outside fails it all. */
    EXPECT_ERR(u, NOPERM_KEYS, "MGET", "cache:1", "other");
    EXPECT_ERR(u, NOPERM_KEYS, "RENAME", "cache:1", "other");
    EXPECT_ERR(u, NOPERM_KEYS, "COPY", "cache:1", "other");
    EXPECT_ERR(u, NOPERM_KEYS, "ZUNIONSTORE", "cache:d", "2", "cache:a", "other");
    EXPECT_ERR(u, NOPERM_KEYS, "SINTERCARD", "2", "cache:a", "other");
    EXPECT_INT(u, 0, "SINTERCARD", "2", "cache:a", "cache:b");
    /* The selector allows GET on sel:*, nothing else. */
    EXPECT_NIL(u, "GET", "sel:1");
    EXPECT_ERR(u, NOPERM_KEYS, "SET", "sel:1", "x");
    EXPECT_ERR(u, "NOPERM this user has no permissions to run the 'flushall' command",
               "FLUSHALL");
    EXPECT_MATCH(u, "['port', *]", "CONFIG", "GET", "port");
    EXPECT_ERR(u, "NOPERM this user has no permissions to run the 'config|set' command", "CONFIG",
               "SET", "maxclients", "10");
    EXPECT_INT(u, 0, "PUBLISH", "ch1", "m");
    EXPECT_ERR(u, NOPERM_CHANNELS, "PUBLISH", "other", "m");
    EXPECT_ERR(u, NOPERM_CHANNELS, "SUBSCRIBE", "ch1", "other");
    /* A pattern is allowed only as the user's very pattern. */
    EXPECT_ERR(u, NOPERM_CHANNELS, "PSUBSCRIBE", "ch1*");
    EXPECT_ERR(u, "NOPERM this user has no permissions to run the 'acl|setuser' command", "ACL",
               "SETUSER", "u", "allkeys");

    EXPECT_STATUS(c, "OK", "ACL", "DRYRUN", "u", "GET", "cache:1");
    EXPECT_REPLY(c, "'This user has no permissions to access the \\'other\\' key'", "ACL",
                 "DRYRUN", "u", "GET", "other");
    EXPECT_REPLY(c, "'This user has no permissions to run the \\'flushall\\' command'", "ACL",
                 "DRYRUN", "u", "FLUSHALL");
    EXPECT_ERR(c, "ERR User 'nosuch' not found", "ACL", "DRYRUN", "nosuch", "GET", "x");
    EXPECT_ERR(c, "ERR Command 'nosuchcmd' not found", "ACL", "DRYRUN", "u", "nosuchcmd");

    /* Checked at queue time: EXEC then aborts, nothing ran. */
    EXPECT_OK(u, "MULTI");
    EXPECT_STATUS(u, "QUEUED", "SET", "cache:2", "v");
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "other");
    EXPECT_ERR(u, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    EXPECT_NIL(u, "GET", "cache:2");
    /* Rules changed while connected apply to the next command. With every
     * selector refusing, the error is the one that got furthest (the
     * selector's key over the root's command), as Redis reports it. */
    EXPECT_OK(c, "ACL", "SETUSER", "u", "-get");
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "cache:1");
    EXPECT_NIL(u, "GET", "sel:1");
out:
    if (u)
        redisFree(u);
    reset_users(c);
    redisFree(c);
}

/* A script's commands run with its caller's permissions (Redis 7.0's
 * scriptVerifyACL): EVAL and FCALL reach nothing the user cannot. */
static void test_scripts(void)
{
    redisContext *c = h_connect_flushed(&srv), *u = NULL;
    if (!c)
        return;
    reset_users(c);
    EXPECT_OK(c, "ACL", "SETUSER", "u", "on", ">p1", "~app:*", "&ch", "+@all", "-flushall");
    u = connect_as("u", "p1");
    if (!u)
        goto out;
    EXPECT_OK(u, "EVAL", "return redis.call('set', KEYS[1], 'v')", "1", "app:1");
    EXPECT_MATCH(u, "-ERR The user executing the script can't access at least one of the keys "
                    "mentioned in the command *",
                 "EVAL", "return redis.call('set', 'other', 'v')", "0");
    EXPECT_MATCH(u, "-ERR The user executing the script can't run this command or subcommand *",
                 "EVAL", "return redis.call('flushall')", "0");
    EXPECT_MATCH(u, "-ERR The user executing the script can't publish to the channel mentioned "
                    "in the command *",
                 "EVAL", "return redis.call('publish', 'other', 'm')", "0");
    /* pcall hands the refusal to the script, which goes on. */
    EXPECT_BULK(u, "went on",
                "EVAL", "redis.pcall('set', 'other', 'v') return 'went on'", "0");
    EXPECT_NIL(c, "GET", "other");
    EXPECT_MATCH(c, "[*'reason', 'key', *'object', 'other', *]", "ACL", "LOG");
    EXPECT_INT(u, 1, "EVAL", "return redis.acl_check_cmd('set', 'app:1', 'v')", "0");
    EXPECT_NIL(u, "EVAL", "return redis.acl_check_cmd('set', 'other', 'v')", "0");
    EXPECT_NIL(u, "EVAL", "return redis.acl_check_cmd('flushall')", "0");
    EXPECT_MATCH(u, "-ERR Invalid command passed to redis.acl_check_cmd() *", "EVAL",
                 "return redis.acl_check_cmd('nosuch')", "0");
out:
    if (u)
        redisFree(u);
    reset_users(c);
    redisFree(c);
}

/* One entry a denial, grouped when repeated; RESET and acllog-max-len. */
static void test_log(void)
{
    redisContext *c = h_connect_flushed(&srv), *u = NULL;
    if (!c)
        return;
    reset_users(c);
    EXPECT_OK(c, "ACL", "SETUSER", "u", "on", ">p1", "~cache:*", "&ch*", "+@all", "-flushall");
    u = connect_as("u", "p1");
    if (!u)
        goto out;
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "other");
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "other");
    EXPECT_ERR(u, NOPERM_CHANNELS, "PUBLISH", "x", "m");
    EXPECT_ERR(u, "NOPERM this user has no permissions to run the 'flushall' command",
               "FLUSHALL");
    EXPECT_ERR(u, WRONGPASS, "AUTH", "u", "bad");
    EXPECT_MATCH(c,
                 "[['count', :1, 'reason', 'auth', 'context', 'toplevel', 'object', 'AUTH', "
                 "'username', 'u', 'age-seconds', *, 'client-info', 'id=* user=u *'], "
                 "['count', :1, 'reason', 'command', 'context', 'toplevel', 'object', "
                 "'flushall', 'username', 'u', *], ['count', :1, 'reason', 'channel', "
                 "'context', 'toplevel', 'object', 'x', 'username', 'u', *], ['count', :2, "
                 "'reason', 'key', 'context', 'toplevel', 'object', 'other', 'username', 'u', *]]",
                 "ACL", "LOG");
    EXPECT_MATCH(c, "[['count', :1, 'reason', 'auth', *]]", "ACL", "LOG", "1");
    EXPECT_OK(c, "ACL", "LOG", "RESET");
    EXPECT_REPLY(c, "[]", "ACL", "LOG");
    EXPECT_OK(c, "CONFIG", "SET", "acllog-max-len", "2");
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "a");
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "b");
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "c");
    EXPECT_MATCH(c, "[['count', :1, 'reason', 'key', 'context', 'toplevel', 'object', 'c', *], "
                    "['count', :1, 'reason', 'key', 'context', 'toplevel', 'object', 'b', *]]",
                 "ACL", "LOG");
    EXPECT_OK(c, "CONFIG", "SET", "acllog-max-len", "128");
out:
    if (u)
        redisFree(u);
    reset_users(c);
    redisFree(c);
}

/* How many entries ACL LOG holds (up to 100). */
static size_t log_len(redisContext *c)
{
    redisReply *r = H_CALL(c, "ACL", "LOG", "100");
    size_t n = r && r->type == REDIS_REPLY_ARRAY ? r->elements : 0;
    freeReplyObject(r);
    return n;
}

/* ACL LOG's context (Redis 7.0): "multi" for a command refused while MULTI
 * queues it and for one EXEC refuses because the rules changed since, "lua"
 * for a script's redis.call. */
static void test_log_context(void)
{
    redisContext *c = h_connect_flushed(&srv), *u = NULL;
    if (!c)
        return;
    reset_users(c);
    EXPECT_OK(c, "ACL", "SETUSER", "u", "on", ">p1", "~k*", "+@all", "-flushall");
    u = connect_as("u", "p1");
    if (!u)
        goto out;
    EXPECT_OK(u, "MULTI");
    EXPECT_ERR(u, "NOPERM this user has no permissions to run the 'flushall' command",
               "FLUSHALL");
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "other");
    EXPECT_ERR(u, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    EXPECT_MATCH(c, "[['count', :1, 'reason', 'key', 'context', 'multi', 'object', 'other', *], "
                    "['count', :1, 'reason', 'command', 'context', 'multi', 'object', "
                    "'flushall', *]]",
                 "ACL", "LOG");
    /* EXEC checks each queued command again, against the rules of now. */
    EXPECT_OK(c, "ACL", "LOG", "RESET");
    EXPECT_OK(u, "MULTI");
    EXPECT_STATUS(u, "QUEUED", "SET", "k1", "v");
    EXPECT_STATUS(u, "QUEUED", "GET", "k1");
    EXPECT_STATUS(u, "QUEUED", "CLIENT", "ID");
    EXPECT_OK(c, "ACL", "SETUSER", "u", "-get", "-client|id");
    EXPECT_MATCH(u, "[+OK, -NOPERM ACLs rules changed between the moment the transaction was "
                    "accumulated and the EXEC call. This command is no longer allowed for the "
                    "following reason: no permission to execute the command or subcommand, "
                    "-NOPERM ACLs rules changed between the moment the transaction was "
                    "accumulated and the EXEC call. This command is no longer allowed for the "
                    "following reason: no permission to execute the command or subcommand]",
                 "EXEC");
    EXPECT_MATCH(c, "[['count', :1, 'reason', 'command', 'context', 'multi', 'object', "
                    "'client|id', *], ['count', :1, 'reason', 'command', 'context', 'multi', "
                    "'object', 'get', *]]",
                 "ACL", "LOG");
    EXPECT_OK(c, "ACL", "LOG", "RESET");
    EXPECT_MATCH(u, "-ERR The user executing the script can't run this command or subcommand *",
                 "EVAL", "return redis.call('get', 'k1')", "0");
    EXPECT_MATCH(u, "-ERR The user executing the script can't access at least one of the keys "
                    "mentioned in the command *",
                 "EVAL", "return redis.call('set', 'other', 'v')", "0");
    EXPECT_MATCH(c, "[['count', :1, 'reason', 'key', 'context', 'lua', 'object', 'other', "
                    "'username', 'u', *, 'client-info', '*cmd=eval user=u *'], ['count', :1, "
                    "'reason', 'command', 'context', 'lua', 'object', 'get', *]]",
                 "ACL", "LOG");
out:
    if (u)
        redisFree(u);
    reset_users(c);
    redisFree(c);
}

/* A repeated denial bumps the count of a similar entry among the newest
 * ten and makes it the newest (Redis 7.0's addACLLogEntry); an older one
 * is not looked at, so the denial gets an entry of its own. */
static void test_log_grouping(void)
{
    redisContext *c = h_connect_flushed(&srv), *u = NULL;
    if (!c)
        return;
    reset_users(c);
    EXPECT_OK(c, "ACL", "SETUSER", "u", "on", ">p1", "~k*", "+@all");
    u = connect_as("u", "p1");
    if (!u)
        goto out;
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "a");
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "b");
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "a");
    EXPECT_MATCH(c, "[['count', :2, 'reason', 'key', 'context', 'toplevel', 'object', 'a', *], "
                    "['count', :1, 'reason', 'key', 'context', 'toplevel', 'object', 'b', *]]",
                 "ACL", "LOG");
    /* Same object, other context: another entry. */
    EXPECT_MATCH(u, "-ERR The user executing the script can't access *", "EVAL",
                 "return redis.call('get', 'a')", "0");
    EXPECT_MATCH(c, "[['count', :1, 'reason', 'key', 'context', 'lua', 'object', 'a', *], "
                    "['count', :2, *], ['count', :1, *]]",
                 "ACL", "LOG");
    /* Ten newer entries push "b" out of reach of the grouping. */
    EXPECT_OK(c, "ACL", "LOG", "RESET");
    char key[8];
    for (int i = 0; i <= 10; i++) {
        snprintf(key, sizeof(key), "x%d", i);
        EXPECT_ERR(u, NOPERM_KEYS, "GET", key);
    }
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "x0");
    CHECK(log_len(c) == 12, "ACL LOG holds %zu entries", log_len(c));
    EXPECT_MATCH(c, "[['count', :1, 'reason', 'key', 'context', 'toplevel', 'object', 'x0', *]]",
                 "ACL", "LOG", "1");
    /* Within reach it groups: x2 is the tenth newest now. */
    EXPECT_ERR(u, NOPERM_KEYS, "GET", "x2");
    EXPECT_MATCH(c, "[['count', :2, 'reason', 'key', 'context', 'toplevel', 'object', 'x2', *]]",
                 "ACL", "LOG", "1");
    CHECK(log_len(c) == 12, "ACL LOG holds %zu entries", log_len(c));
out:
    if (u)
        redisFree(u);
    reset_users(c);
    redisFree(c);
}

/* rbkv's own: a user on ~cache:* reaches nothing else through a listing, a
 * range, a whole-dataset command or replication. */
static void test_key_reach(void)
{
    if (h_is_reference()) {
        printf("  skipped: Redis has no ordered commands and does not limit KEYS or SCAN\n");
        return;
    }
    redisContext *c = h_connect_flushed(&srv), *u = NULL;
    if (!c)
        return;
    reset_users(c);
    EXPECT_OK(c, "MSET", "a", "1", "cache:1", "1", "cache:2", "2", "z", "1");
    EXPECT_OK(c, "ACL", "SETUSER", "u", "on", ">p1", "~cache:*", "+@all");
    u = connect_as("u", "p1");
    if (!u)
        goto out;
    EXPECT_REPLY(u, "['cache:1', 'cache:2']", "KRANGE", "[cache:", "[cache:\xff", "BYLEX");
    EXPECT_REPLY(u, "['cache:2', 'cache:1']", "KRANGE", "[cache:\xff", "[cache:", "BYLEX", "REV");
    EXPECT_REPLY(u, "['cache:1', 'cache:2']", "KPREFIX", "cache:");
    EXPECT_INT(u, 2, "KCOUNT", "PREFIX", "cache:");
    EXPECT_INT(u, 1, "KCOUNT", "[cache:1", "(cache:2");
    EXPECT_REPLY(u, "['cache:1', 'cache:2']", "KEYS", "cache:*");
    EXPECT_REPLY(u, "['0', ['cache:1', 'cache:2']]", "SCAN", "0", "MATCH", "cache:*", "COUNT",
                 "100");
    EXPECT_REPLY(u, "[]", "KSPLIT", "1", "PREFIX", "cache:");
    /* What could leave the pattern is refused, not filtered. */
    static const char *const refused[][6] = {
        {"KRANGE", "0", "-1"},        {"KRANGE", "-", "+", "BYLEX"},
        {"KRANGE", "[a", "[cache:2", "BYLEX"},
        {"KPREFIX", "cach"},          {"KPREFIX", ""},
        {"KCOUNT", "-", "+"},         {"KCOUNT", "PREFIX", "c"},
        {"KFIRST"},                   {"KLAST", "5"},
        {"KNEXT", "cache:1"},         {"KPREV", "cache:2"},
        {"KRANK", "cache:1"},         {"KREVRANK", "cache:1"},
        {"KSPLIT", "2"},              {"KDELRANGE", "[a", "[z"},
        {"KEYS", "*"},                {"KEYS", "cach*"},
        {"KEYS", "?ache:*"},          {"SCAN", "0"},
        {"SCAN", "0", "MATCH", "*"},  {"SCAN", "0", "MATCH", "cache:*", "MATCH", "*"},
        {"RANDOMKEY"},                {"FLUSHDB"},
        {"FLUSHALL"},                 {"SYNC"},
        {"PSYNC", "?", "-1"},         {"RENAME", "cache:1", "a"},
        {"COPY", "a", "cache:9"},     {"MOVE", "a", "1"},
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        int argc = 0;
        while (argc < 6 && refused[i][argc])
            argc++;
        redisReply *r = h_command(u, argc, refused[i], NULL);
        CHECK(r && r->type == REDIS_REPLY_ERROR && strcmp(r->str, NOPERM_KEYS) == 0,
              "%s %s by a ~cache:* user: %s", refused[i][0], argc > 1 ? refused[i][1] : "",
              r && r->str ? r->str : "(not refused)");
        freeReplyObject(r);
    }
    EXPECT_INT(u, 1, "KDELRANGE", "PREFIX", "cache:2");
    EXPECT_INT(c, 3, "DBSIZE");
    /* A read-only pattern does not let KDELRANGE through. */
    EXPECT_OK(c, "ACL", "LOG", "RESET");
    EXPECT_OK(c, "ACL", "SETUSER", "u", "resetkeys", "%R~cache:*");
    EXPECT_ERR(u, NOPERM_KEYS, "KDELRANGE", "PREFIX", "cache:");
    EXPECT_INT(u, 1, "KCOUNT", "PREFIX", "cache:");
    EXPECT_MATCH(c, "[['count', :1, 'reason', 'key', 'context', 'toplevel', 'object', "
                    "'kdelrange', *]]", "ACL", "LOG");
out:
    if (u)
        redisFree(u);
    reset_users(c);
    redisFree(c);
}

/* Writes text to the file name in srv's dir; its path into path. */
static int write_acl_file(const char *name, const char *text, char *path, size_t cap)
{
    h_path_in(&srv, name, path, cap);
    FILE *f = fopen(path, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f)
        ok &= fclose(f) == 0;
    return CHECK(ok, "writing %s", path) ? 0 : -1;
}

/* The whole ACL LIST reply as one string, for comparing two of them. */
static char *acl_list_text(redisContext *c)
{
    return H_REPLY_TEXT(c, "ACL", "LIST");
}

#define ACL_FILE_ERRORS_TAIL                                                                      \
    "WARNING: ACL errors detected, no change to the previously active ACL rules was performed"

/* aclfile (Redis 7.0's texts): users loaded at start, a bad file stops the
 * start, ACL SAVE then ACL LOAD gives back the same rules (selectors and
 * %R~ / %W~ too), a broken file leaves the users as they were, and LOAD and
 * SAVE need an aclfile. */
static void test_aclfile(void)
{
    struct h_server other = {0};
    redisContext *c = h_connect_flushed(&srv), *o = NULL;
    char path[400], bad[400], out[1200];
    char *before = NULL, *after = NULL;
    if (!c)
        return;
    reset_users(c);
    EXPECT_ERR(c, "ERR This Redis instance is not configured to use an ACL file. You may want to "
                  "specify users via the ACL SETUSER command and then issue a CONFIG REWRITE "
                  "(assuming you have a Redis configuration file set) in order to store users in "
                  "the Redis configuration.",
               "ACL", "LOAD");
    EXPECT_ERR(c, "ERR This Redis instance is not configured to use an ACL file. You may want to "
                  "specify users via the ACL SETUSER command and then issue a CONFIG REWRITE "
                  "(assuming you have a Redis configuration file set) in order to store users in "
                  "the Redis configuration.",
               "ACL", "SAVE");
    /* Every bad line is told, then the start is refused. */
    if (write_acl_file("bad.acl", "user alice on >pw ~* +@all\nuser bob bogus\nfoo x\n"
                                  "user alice off\n", bad, sizeof(bad)) < 0)
        goto out;
    CHECK(h_exec(&srv, "bad.out", 10000, H_FLAGS("--port", "0", "--aclfile", bad)) != 0,
          "a start with a bad aclfile fails");
    snprintf(out, sizeof(out), "Aborting Redis startup because of ACL errors: %s:2: Syntax error. "
             "%s:3 should start with user keyword followed by the username. WARNING: Duplicate "
             "user 'alice' found on line 4. " ACL_FILE_ERRORS_TAIL, bad, bad);
    /* Checked by hand against redis-server 7.0.15, which prints the same
     * line; its output does not reach the file here. */
    if (!h_is_reference())
        CHECK(h_file_has(&srv, "bad.out", out), "the start tells every error: %s", out);

    if (write_acl_file("users.acl", "user alice on >pw ~app:* %R~ro:* %W~wo:* &ch +@all "
                                    "-flushall\nuser sel off (~a* +get) (%R~b* +set)\n",
                       path, sizeof(path)) < 0)
        goto out;
    if (h_start(&other, H_FLAGS("--aclfile", path)) < 0)
        goto out;
    o = h_connect(&other);
    if (!o)
        goto out;
    EXPECT_REPLY(o, "['alice', 'default', 'sel']", "ACL", "USERS");
    EXPECT_MATCH(o, "*'user sel off resetchannels -@all (~a* resetchannels -@all +get) "
                    "(%R~b* resetchannels -@all +set)'*",
                 "ACL", "LIST");
    EXPECT_OK(o, "ACL", "SETUSER", "carol", "on", "nopass", "%W~w:*", "+set", "(~x +get)");
    before = acl_list_text(o);
    EXPECT_OK(o, "ACL", "SAVE");
    EXPECT_INT(o, 2, "ACL", "DELUSER", "carol", "alice");
    EXPECT_OK(o, "ACL", "LOAD");
    after = acl_list_text(o);
    CHECK(strcmp(before, after) == 0, "ACL SAVE then LOAD: %s, then %s", before, after);
    /* A broken file changes nothing and says why. */
    if (write_acl_file("users.acl", "user alice on >pw\nuser x +@bogus\n", path,
                       sizeof(path)) < 0)
        goto out;
    snprintf(out, sizeof(out), "-ERR %s:2: Error in applying operation '+@bogus': Unknown command or category name in ACL. "
             ACL_FILE_ERRORS_TAIL, path);
    EXPECT_REPLY(o, out, "ACL", "LOAD");
    free(after);
    after = acl_list_text(o);
    CHECK(strcmp(before, after) == 0, "users kept after a failed ACL LOAD: %s", after);
out:
    free(before);
    free(after);
    if (o)
        redisFree(o);
    if (other.pid)
        h_stop(&other);
    reset_users(c);
    redisFree(c);
}

/* An attacker on loopback: unauthenticated commands, then a flood of wrong
 * passwords pipelined on several connections; another client's PING is
 * answered meanwhile, as each connection gets one read a loop turn (conn.c),
 * and ACL LOG holds one grouped "auth" entry counting every failure. The
 * worst PING's wait is printed, not asserted: a bound in time fails on a
 * loaded machine (bench/ is where latency is measured). The
 * flooding connections authenticate first: Debian's redis-server 7.0.15
 * closes an unauthenticated client whose replies pass 1024 bytes beyond its
 * 16 KB buffer (CVE-2025-21605), which would end the flood early there. */
#define FLOOD_CONNS 8
#define FLOOD_ROUNDS 5
#define FLOOD_PER_ROUND 2000

static void test_attacker(void)
{
    redisContext *admin = h_connect_flushed(&srv), *bad[FLOOD_CONNS] = {0}, *good = NULL;
    if (!admin)
        return;
    reset_users(admin);
    EXPECT_OK(admin, "CONFIG", "SET", "requirepass", "secret");
    EXPECT_OK(admin, "AUTH", "secret");
    good = h_connect(&srv);
    if (!good)
        goto out;
    EXPECT_ERR(good, "NOAUTH Authentication required.", "KEYS", "*");
    EXPECT_ERR(good, "NOAUTH Authentication required.", "ACL", "LIST");
    EXPECT_ERR(good, "NOAUTH Authentication required.", "SYNC");
    EXPECT_OK(good, "AUTH", "secret");
    for (int i = 0; i < FLOOD_CONNS; i++) {
        bad[i] = h_connect(&srv);
        if (!bad[i] || !EXPECT_OK(bad[i], "AUTH", "secret"))
            goto out;
    }
    long long worst_us = 0;
    for (int round = 0; round < FLOOD_ROUNDS; round++) {
        for (int k = 0; k < FLOOD_CONNS; k++) {
            for (int i = 0; i < FLOOD_PER_ROUND; i++)
                H_APPEND(bad[k], "AUTH", "default", "guess");
            int done = 0;
            while (!done && redisBufferWrite(bad[k], &done) == REDIS_OK)
                ;
        }
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        redisReply *p = H_CALL(good, "PING");
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CHECK(p && p->type == REDIS_REPLY_STATUS, "PING during the flood");
        freeReplyObject(p);
        long long us = (t1.tv_sec - t0.tv_sec) * 1000000LL + (t1.tv_nsec - t0.tv_nsec) / 1000;
        if (us > worst_us)
            worst_us = us;
        for (int k = 0; k < FLOOD_CONNS; k++) {
            for (int i = 0; i < FLOOD_PER_ROUND; i++) {
                redisReply *r = h_get_reply(bad[k]);
                if (i == 0 || !r)
                    CHECK(r && r->type == REDIS_REPLY_ERROR && strcmp(r->str, WRONGPASS) == 0,
                          "a wrong password: %s", r && r->str ? r->str : "(none)");
                freeReplyObject(r);
                if (!r)
                    goto out;
            }
        }
    }
    printf("   %d wrong passwords on %d connections; worst PING of another client meanwhile: "
           "%lld us\n",
           FLOOD_CONNS * FLOOD_ROUNDS * FLOOD_PER_ROUND, FLOOD_CONNS, worst_us);
    EXPECT_MATCH(admin, "[['count', :80000, 'reason', 'auth', 'context', 'toplevel', 'object', "
                        "'AUTH', 'username', 'default', *]]",
                 "ACL", "LOG");
out:
    EXPECT_OK(admin, "CONFIG", "SET", "requirepass", "");
    for (int i = 0; i < FLOOD_CONNS; i++) {
        if (bad[i])
            redisFree(bad[i]);
    }
    if (good)
        redisFree(good);
    reset_users(admin);
    redisFree(admin);
}

/* Fairness, whatever the machine's load: with the server stopped (SIGSTOP),
 * FLOOD_CONNS connections queue FAIR_PER_CONN wrong passwords each and
 * another client an ACL LOG; once resumed, the server must answer the ACL
 * LOG before it has run the whole flood. A server that reads a client until
 * its socket is empty runs all of it first (rbkv did, reading up to 32
 * buffers a client); reading each client once per loop turn, Redis 7.0 ran
 * 0-8077 of 16000 here, rbkv 0-6896 on a quiet machine and up to 12930 with
 * the CPUs busy (how much each turn gets through depends on time), so only
 * "not last" is asserted and the figures are printed. The probe's request
 * is in the server's socket before it resumes (its sender's queue empty). */
#define FAIR_PER_CONN 2000
#define FAIR_TRIALS 3

static int set_blocking(redisContext *c, int on)
{
    int fl = fcntl(c->fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(c->fd, F_SETFL, on ? fl & ~O_NONBLOCK : fl | O_NONBLOCK);
}

/* Queues everything appended to c without waiting for the stopped server:
 * writes until done or the socket is full. 1 when all of it went. */
static int queue_all(redisContext *c)
{
    int done = 0;
    size_t left = SIZE_MAX;
    set_blocking(c, 0);
    c->flags &= ~REDIS_BLOCK; /* hiredis treats EAGAIN as an error otherwise */
    while (!done && sdslen(c->obuf) < left) {
        left = sdslen(c->obuf);
        if (redisBufferWrite(c, &done) != REDIS_OK)
            break;
    }
    c->flags |= REDIS_BLOCK;
    set_blocking(c, 1);
    return done;
}

static void test_fair_reads(void)
{
    redisContext *admin = h_connect_flushed(&srv), *bad[FLOOD_CONNS] = {0}, *probe = NULL;
    if (!admin)
        return;
    reset_users(admin);
    EXPECT_OK(admin, "CONFIG", "SET", "requirepass", "secret");
    EXPECT_OK(admin, "AUTH", "secret");
    /* The flood's connections first, so the server hears of them first too. */
    for (int i = 0; i < FLOOD_CONNS; i++) {
        bad[i] = connect_as("default", "secret");
        if (!bad[i])
            goto out;
    }
    probe = connect_as("default", "secret");
    for (int trial = 0; trial < FAIR_TRIALS && probe; trial++) {
        EXPECT_OK(probe, "ACL", "LOG", "RESET");
        kill(srv.pid, SIGSTOP);
        int queued = 1;
        for (int k = 0; k < FLOOD_CONNS; k++) {
            for (int i = 0; i < FAIR_PER_CONN; i++)
                H_APPEND(bad[k], "AUTH", "default", "guess");
            queued &= queue_all(bad[k]);
        }
        H_APPEND(probe, "ACL", "LOG", "1");
        queued &= queue_all(probe);
        /* A loaded kernel may hand loopback data over late (its softirqs
         * deferred): the probe's request waits in the server's socket
         * before the server runs again, or it would rightly come last. */
        int64_t deadline = h_now_ms() + 5000 * H_SLOW;
        int unsent = 1;
        while (ioctl(probe->fd, TIOCOUTQ, &unsent) == 0 && unsent > 0 && h_now_ms() < deadline)
            h_sleep_ms(1);
        kill(srv.pid, SIGCONT);
        redisReply *log = h_get_reply(probe);
        long long before = -1; /* an empty log: none ran yet */
        if (log && log->type == REDIS_REPLY_ARRAY && log->elements == 0)
            before = 0;
        else if (log && log->type == REDIS_REPLY_ARRAY && log->elements == 1 &&
            log->element[0]->elements >= 2 && log->element[0]->element[1]->type == REDIS_REPLY_INTEGER)
            before = log->element[0]->element[1]->integer;
        freeReplyObject(log);
        for (int k = 0; k < FLOOD_CONNS; k++) {
            for (int i = 0; i < FAIR_PER_CONN; i++) {
                redisReply *r = h_get_reply(bad[k]);
                freeReplyObject(r);
                if (!r) {
                    CHECK(0, "the flood's replies");
                    goto out;
                }
            }
        }
        if (!queued) {
            printf("   skipped: the sockets took less than the flood while the server was stopped\n");
            break;
        }
        printf("   trial %d: %lld of %d wrong passwords ran before the ACL LOG\n", trial, before,
               FLOOD_CONNS * FAIR_PER_CONN);
        CHECK(before >= 0 && before < FLOOD_CONNS * FAIR_PER_CONN,
              "the ACL LOG waited for %lld of %d wrong passwords", before,
              FLOOD_CONNS * FAIR_PER_CONN);
    }
out:
    EXPECT_OK(admin, "CONFIG", "SET", "requirepass", "");
    for (int i = 0; i < FLOOD_CONNS; i++) {
        if (bad[i])
            redisFree(bad[i]);
    }
    if (probe)
        redisFree(probe);
    reset_users(admin);
    redisFree(admin);
}

/* ACL GETUSER's reply, and ACL LIST's line, for users of every shape, compared
 * with redis-server: flags (on/off, nopass, sanitize-payload and
 * skip-sanitize-payload, reset's sanitize-payload), passwords, key patterns
 * (~, %R~, %W~, %RW~ shown as ~), channels, selectors. Their command rules
 * have at most one single command, which Redis 7.0 lists in no fixed order
 * (test_rules_rebuilt_like_redis). */
static void test_getuser_like_redis(void)
{
    redisContext *r = NULL, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    if (!c)
        return;
    static const char *const users[][12] = {
        {"u1", "on", ">pw1", ">pw2", "~k*", "%R~r*", "%W~w*", "&ch*", "+get", "+@string", "-set"},
        {"u2", "nopass", "off", "resetchannels", "&c2", "(~s* +@read)", "(%R~x* +get &z)"},
        {"u3", "on", "allkeys", "allchannels", "allcommands"},
        {"u4", "on", "#5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8",
         "+@all", "-@dangerous", "+config|get", "~*"},
        {"u5", "reset"},
        {"u6", "on", "resetkeys", "%RW~a*", "%R~b*", "-@all", "+client|id",
         "skip-sanitize-payload"},
        {"u7", "on", "sanitize-payload", "(+set ~a*)", "clearselectors", "(%W~w* -@all +set)"},
        {"u8", "skip-sanitize-payload", "sanitize-payload", "nopass", "resetpass", ">x"},
        {"u6", "sanitize-payload"},
        {"u5", "skip-sanitize-payload", "reset", "on"},
    };
    for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
        const char *argv[14] = {"ACL", "SETUSER"};
        int argc = 2;
        for (int k = 0; k < 12 && users[i][k]; k++)
            argv[argc++] = users[i][k];
        h_same(__FILE__, __LINE__, c, r, argc, argv, NULL);
        H_SAME(c, r, "ACL", "GETUSER", users[i][0]);
    }
    H_SAME(c, r, "ACL", "GETUSER", "default");
    H_SAME(c, r, "ACL", "GETUSER", "nosuch");
    H_SAME(c, r, "ACL", "SETUSER", "u9", "sanitize-payloadx");
    H_SAME(c, r, "ACL", "LIST");
    for (const char *const *u = (const char *const[]){"u1", "u2", "u3", "u4", "u5", "u6", "u7",
                                                      "u8", NULL};
         *u; u++)
        H_SAME(c, r, "ACL", "DELUSER", *u);
    h_close_pair(c, r);
}

/* The "commands" field of ACL GETUSER name on c, or NULL; freed by caller. */
static char *getuser_commands(redisContext *c, const char *name)
{
    redisReply *r = H_CALL(c, "ACL", "GETUSER", name);
    char *out = NULL;
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i + 1 < r->elements; i += 2)
        if (r->element[i]->str && !strcmp(r->element[i]->str, "commands") && r->element[i + 1]->str)
            out = strdup(r->element[i + 1]->str);
    freeReplyObject(r);
    return out;
}

static int cmp_words(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Command descriptions a and b alike as Redis 7.0 writes them: the same
 * start and categories in the same order, then the same single commands in
 * any order (Redis lists those in its hash table's order, which changes
 * from run to run). Splits a and b in place. */
static int same_description(char *a, char *b)
{
    char *wa[64], *wb[64];
    size_t na = 0, nb = 0;
    for (char *w = strtok(a, " "); w && na < 64; w = strtok(NULL, " "))
        wa[na++] = w;
    for (char *w = strtok(b, " "); w && nb < 64; w = strtok(NULL, " "))
        wb[nb++] = w;
    if (na != nb)
        return 0;
    size_t cats = 0;
    while (cats < na && strchr(wa[cats], '@'))
        cats++;
    qsort(wa + cats, na - cats, sizeof(wa[0]), cmp_words);
    qsort(wb + cats, nb - cats, sizeof(wb[0]), cmp_words);
    for (size_t i = 0; i < na; i++)
        if (strcmp(wa[i], wb[i]) != 0)
            return 0;
    return 1;
}

/* Overlapping command rules are described as Redis 7.0 rebuilds them from
 * what they allow: +@all or -@all, the categories that fit best first, then
 * the single commands and first-argument rules left. (Categories that hold
 * rbkv's own commands, such as @hash, @set and @keyspace, count those too,
 * so their fit may differ: docs/commands.md.) */
static void test_rules_rebuilt_like_redis(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    redisContext *r = NULL, *c = h_connect_pair(&srv, &ref, &r);
    if (!c)
        return;
    static const char *const users[][8] = {
        {"o1", "+get", "-get", "+@read", "-@read", "+set"},
        {"o2", "+@all", "-@dangerous", "+flushall", "-get"},
        {"o3", "-@all", "+@list", "+@stream", "-@blocking", "+blpop"},
        {"o4", "+@hash", "+@string", "-hset", "+@list"},
        {"o5", "+@all", "-@write", "+set", "-@read"},
        {"o6", "-@all", "+config", "-config|set", "+client|id"},
        {"o7", "+select|0", "+select|1", "+get", "+@string", "-@fast"},
        {"o8", "+@all", "-config", "+config|get", "-@scripting", "+eval"},
    };
    for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
        const char *argv[10] = {"ACL", "SETUSER"};
        int argc = 2;
        for (int k = 0; k < 8 && users[i][k]; k++)
            argv[argc++] = users[i][k];
        h_same(__FILE__, __LINE__, c, r, argc, argv, NULL);
        char *ours = getuser_commands(c, users[i][0]), *theirs = getuser_commands(r, users[i][0]);
        char *ours_copy = ours ? strdup(ours) : NULL, *theirs_copy = theirs ? strdup(theirs) : NULL;
        CHECK(ours && theirs && same_description(ours, theirs),
              "ACL GETUSER %s commands: rbkv '%s', redis '%s'", users[i][0],
              ours_copy ? ours_copy : "(none)", theirs_copy ? theirs_copy : "(none)");
        free(ours);
        free(theirs);
        free(ours_copy);
        free(theirs_copy);
        H_SAME(c, r, "ACL", "DELUSER", users[i][0]);
    }
    h_close_pair(c, r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_rules);
    H_RUN(test_rules_rebuilt_like_redis);
    H_RUN(test_auth);
    H_RUN(test_permissions);
    H_RUN(test_log);
    H_RUN(test_log_context);
    H_RUN(test_log_grouping);
    H_RUN(test_aclfile);
    H_RUN(test_scripts);
    H_RUN(test_key_reach);
    H_RUN(test_attacker);
    H_RUN(test_fair_reads);
    H_RUN(test_getuser_like_redis);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
