/*
 * test_keyspec.c - end-to-end tests of the key specs (server/core/keyspec.c,
 * server/commands/key_specs.c): COMMAND INFO's key specifications, COMMAND
 * GETKEYS / GETKEYSANDFLAGS, and the ACL check that reads each key's
 * permission from its spec (server/core/acl.c).
 *
 * With redis-server 7.0.15 beside ours, each test compares the two to the
 * byte: every command both know has the same key-spec element and answers
 * GETKEYSANDFLAGS alike on a request of its minimum arity; a table of
 * representative requests (movable keys, bad counts, SET with and without
 * GET, BITFIELD, containers' subcommands) and random numkeys requests
 * (SEED=<n> replays them) give the same keys and flags; and users with
 * %R~src* %W~dst*, only %R~, only %W~ and %R~* %W~dst* get the same OK or
 * NOPERM for the multi-key commands, with the same ACL LOG entry; key
 * patterns add up as Redis's (ACL SETUSER, ACL DRYRUN).
 * Deliberate differences, left out here and listed in docs/commands.md:
 * GETKEYS on a container's unknown subcommand says "The command has no key
 * arguments" where Redis says "Invalid command specified"; rbkv's own
 * commands (KRANK, HDELRANGE, ...) are not compared. Without redis-server
 * the fixed expectations still run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static struct h_server srv, ref;
static int have_ref;

/* Whether an element of a COMMAND INFO entry is a non-empty subcommand
 * list (Redis's containers). */
static int is_container(const redisReply *entry)
{
    return entry->elements >= 10 && entry->element[9]->type == REDIS_REPLY_ARRAY &&
           entry->element[9]->elements > 0;
}

/* The COMMAND INFO entry of name on c (NULL: unknown); free the reply. */
static redisReply *info_of(redisContext *c, const char *name, const redisReply **entry)
{
    redisReply *r = H_CALL(c, "COMMAND", "INFO", name);
    *entry = r && r->type == REDIS_REPLY_ARRAY && r->elements == 1 &&
                     r->element[0]->type == REDIS_REPLY_ARRAY && r->element[0]->elements >= 9
                 ? r->element[0]
                 : NULL;
    return r;
}

/* Every command both know: the key-spec element, and GETKEYSANDFLAGS on
 * the command with its minimum number of arguments ("a1" ...). */
static void test_specs_as_redis(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    redisContext *r, *c = h_connect_pair(&srv, &ref, &r);
    redisReply *names = c ? H_CALL(c, "COMMAND", "LIST") : NULL;
    CHECK(names && names->type == REDIS_REPLY_ARRAY && names->elements > 100, "COMMAND LIST");
    size_t compared = 0;
    for (size_t i = 0; names && r && i < names->elements; i++) {
        const char *name = names->element[i]->str;
        const redisReply *ours, *theirs;
        redisReply *a = info_of(c, name, &ours), *b = info_of(r, name, &theirs);
        if (ours && theirs) {
            compared++;
            char buf[512];
            CHECK(h_reply_equal(ours->element[8], theirs->element[8]),
                  "COMMAND INFO %s key specs: rbkv %s", name,
                  h_repr(ours->element[8], buf, sizeof(buf)));
            if (!is_container(theirs)) {
                struct h_line l = {0};
                h_line_add(&l, "COMMAND");
                h_line_add(&l, "GETKEYSANDFLAGS");
                h_line_add(&l, "%s", name);
                long long n = theirs->element[1]->integer;
                for (long long k = 1; k < (n < 0 ? -n : n) && l.argc < H_LINE_ARGS; k++)
                    h_line_add(&l, "a%lld", k);
                h_same(__FILE__, __LINE__, c, r, l.argc, l.argv, NULL);
            }
        }
        freeReplyObject(a);
        freeReplyObject(b);
    }
    CHECK(compared > 150, "compared the key specs of %zu commands", compared);
    freeReplyObject(names);
    h_close_pair(c, r);
}

/* Requests whose keys depend on their arguments. */
static const char *const getkeys_lines[] = {
    "COMMAND GETKEYSANDFLAGS EVAL s 2 a b c",
    "COMMAND GETKEYSANDFLAGS EVAL s 0",
    "COMMAND GETKEYSANDFLAGS EVAL s 1x k",
    "COMMAND GETKEYSANDFLAGS EVAL s +1 k",
    "COMMAND GETKEYSANDFLAGS EVAL s 3 k",
    "COMMAND GETKEYSANDFLAGS EVAL s -1 k",
    "COMMAND GETKEYSANDFLAGS EVAL s 4294967297 k",
    "COMMAND GETKEYSANDFLAGS EVAL s 99999999999999999999 k",
    "COMMAND GETKEYSANDFLAGS EVAL_RO s 1 k",
    "COMMAND GETKEYSANDFLAGS EVALSHA s 1 k",
    "COMMAND GETKEYSANDFLAGS FCALL f 2 a b x",
    "COMMAND GETKEYSANDFLAGS FCALL_RO f 1 a",
    "COMMAND GETKEYSANDFLAGS ZUNION 2 a b WEIGHTS 1 2",
    "COMMAND GETKEYSANDFLAGS ZUNION 1x a",
    "COMMAND GETKEYSANDFLAGS ZINTER 1 a",
    "COMMAND GETKEYSANDFLAGS ZDIFF 2 a b",
    "COMMAND GETKEYSANDFLAGS ZINTERCARD 2 a b LIMIT 1",
    "COMMAND GETKEYSANDFLAGS SINTERCARD 2 a b",
    "COMMAND GETKEYSANDFLAGS SINTERCARD 1x a",
    "COMMAND GETKEYSANDFLAGS ZUNIONSTORE d 2 a b",
    "COMMAND GETKEYSANDFLAGS ZUNIONSTORE d 1x a",
    "COMMAND GETKEYSANDFLAGS ZUNIONSTORE d 0 a",
    "COMMAND GETKEYSANDFLAGS ZUNIONSTORE d 3 a",
    "COMMAND GETKEYSANDFLAGS ZINTERSTORE d 1 a",
    "COMMAND GETKEYSANDFLAGS ZDIFFSTORE d 2 a",
    "COMMAND GETKEYSANDFLAGS LMPOP 2 a b LEFT",
    "COMMAND GETKEYSANDFLAGS LMPOP 1x a LEFT",
    "COMMAND GETKEYSANDFLAGS BLMPOP 0 1 a LEFT",
    "COMMAND GETKEYSANDFLAGS ZMPOP 1 a MIN",
    "COMMAND GETKEYSANDFLAGS BZMPOP 0 2 a b MAX",
    "COMMAND GETKEYSANDFLAGS BZMPOP 1 0x1 a MIN",
    "COMMAND GETKEYSANDFLAGS XREAD STREAMS a b 0 0",
    "COMMAND GETKEYSANDFLAGS XREAD COUNT 1 BLOCK 0 STREAMS a 0",
    "COMMAND GETKEYSANDFLAGS XREAD STREAMS a b c",
    "COMMAND GETKEYSANDFLAGS XREAD COUNT streams streams a b",
    "COMMAND GETKEYSANDFLAGS XREAD COUNT 1 BLOCK 0",
    "COMMAND GETKEYSANDFLAGS SET k v",
    "COMMAND GETKEYSANDFLAGS SET k v NX GET",
    "COMMAND GETKEYSANDFLAGS SET k v get",
    "COMMAND GETKEYSANDFLAGS SET k v GETX",
    "COMMAND GETKEYSANDFLAGS BITFIELD k GET u8 0 OVERFLOW WRAP",
    "COMMAND GETKEYSANDFLAGS BITFIELD k GET u8 0 SET u8 0 1",
    "COMMAND GETKEYSANDFLAGS BITFIELD k INCRBY u8 0 1",
    "COMMAND GETKEYSANDFLAGS BITFIELD k GET u8",
    "COMMAND GETKEYSANDFLAGS BITFIELD k",
    "COMMAND GETKEYSANDFLAGS BITFIELD_RO k GET u8 0",
    "COMMAND GETKEYSANDFLAGS MSET a 1 b 2",
    "COMMAND GETKEYSANDFLAGS MSET a 1 b",
    "COMMAND GETKEYSANDFLAGS BITOP AND d a b",
    "COMMAND GETKEYSANDFLAGS LMOVE a b LEFT RIGHT",
    "COMMAND GETKEYSANDFLAGS COPY a b",
    "COMMAND GETKEYSANDFLAGS RENAME a b",
    "COMMAND GETKEYSANDFLAGS SMOVE a b m",
    "COMMAND GETKEYSANDFLAGS SINTERSTORE d a b",
    "COMMAND GETKEYSANDFLAGS ZRANGESTORE d a 0 -1",
    "COMMAND GETKEYSANDFLAGS BLPOP a b 0",
    "COMMAND GETKEYSANDFLAGS DEL a b c",
    "COMMAND GETKEYSANDFLAGS EXISTS a b",
    "COMMAND GETKEYSANDFLAGS WATCH a b",
    "COMMAND GETKEYSANDFLAGS SPUBLISH ch m",
    "COMMAND GETKEYSANDFLAGS SSUBSCRIBE ch",
    "COMMAND GETKEYSANDFLAGS OBJECT ENCODING k",
    "COMMAND GETKEYSANDFLAGS OBJECT FREQ k",
    "COMMAND GETKEYSANDFLAGS OBJECT encoding",
    "COMMAND GETKEYSANDFLAGS OBJECT HELP",
    "COMMAND GETKEYSANDFLAGS OBJECT",
    "COMMAND GETKEYSANDFLAGS MEMORY USAGE k SAMPLES 5",
    "COMMAND GETKEYSANDFLAGS XINFO STREAM k FULL",
    "COMMAND GETKEYSANDFLAGS XINFO GROUPS k",
    "COMMAND GETKEYSANDFLAGS PING",
    "COMMAND GETKEYSANDFLAGS NOSUCH k",
    "COMMAND GETKEYS ZUNIONSTORE d 2 a b",
    "COMMAND GETKEYS EVAL s 0",
    "COMMAND GETKEYS GET",
    "COMMAND GETKEYS GET a b",
};

static void test_getkeys_as_redis(void)
{
    redisContext *r, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    if (!c)
        return;
    H_SAME_LINES(c, r, getkeys_lines);
    /* Without a reference these still hold. */
    EXPECT_REPLY(c, "[['s', [+RW, +access, +delete]], ['t', [+RW, +insert]]]", "COMMAND",
                 "GETKEYSANDFLAGS", "LMOVE", "s", "t", "LEFT", "LEFT");
    EXPECT_REPLY(c, "[['k', [+OW, +update]]]", "COMMAND", "GETKEYSANDFLAGS", "SET", "k", "v");
    EXPECT_REPLY(c, "[['k', []], ['d', []]]", "COMMAND", "GETKEYSANDFLAGS", "ZUNIONSTORE", "d",
                 "1x", "k");
    EXPECT_REPLY(c, "['a']", "COMMAND", "GETKEYS", "XREAD", "STREAMS", "a", "b", "c");
    EXPECT_ERR(c, "ERR Invalid command specified", "COMMAND", "GETKEYS", "OBJECT", "foo",
               "k");
    EXPECT_REPLY(c, "[['k', [+RO]]]", "COMMAND", "GETKEYSANDFLAGS", "KRANK", "k");
    h_close_pair(c, r);
}

/* Random counts, some not numbers, some past the end, some that wrap as
 * an int, before a random number of arguments: never a read past the
 * request, and Redis's keys and flags. */
static void test_numkeys_random(void)
{
    static const char *const shapes[][2] = {
        {"EVAL", "s"}, {"FCALL_RO", "f"}, {"ZUNION", NULL}, {"ZINTERSTORE", "d"},
        {"SINTERCARD", NULL}, {"LMPOP", NULL}, {"BZMPOP", "0"}, {"ZDIFFSTORE", "d"},
    };
    static const char *const odd_counts[] = {"1x", "+1", " 2", "-1", "0", "abc", "",
                                             "4294967297", "-4294967295", "99999999999999999999"};
    uint64_t seed = h_seed();
    srand((unsigned)seed);
    redisContext *r, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    if (!c)
        return;
    for (int round = 0; round < 400 / H_SLOW; round++) {
        const char *const *shape = shapes[rand() % (int)(sizeof(shapes) / sizeof(shapes[0]))];
        struct h_line l = {0};
        h_line_add(&l, "COMMAND");
        h_line_add(&l, "GETKEYSANDFLAGS");
        h_line_add(&l, "%s", shape[0]);
        if (shape[1])
            h_line_add(&l, "%s", shape[1]);
        if (rand() % 3 == 0)
            h_line_add(&l, "%s", odd_counts[rand() % 10]);
        else
            h_line_add(&l, "%d", rand() % 6);
        int extra = rand() % 6;
        for (int k = 0; k < extra; k++)
            h_line_add(&l, "k%d", k);
        if (!h_same(__FILE__, __LINE__, c, r, l.argc, l.argv, NULL))
            break;
    }
    EXPECT_REPLY(c, "[]", "COMMAND", "GETKEYSANDFLAGS", "EVAL", "s", "99999999999999999999", "k");
    h_close_pair(c, r);
}

/* The users of the ACL comparison: reads of src, writes of dst; reads
 * only; writes only; reads of everything, writes of dst. */
static const char *const acl_users[][3] = {
    {"rw", "%R~src*", "%W~dst*"},
    {"r", "%R~src*", "%R~dst*"},
    {"w", "%W~src*", "%W~dst*"},
    {"star", "%R~*", "%W~dst*"},
};

static const char *const acl_setup[] = {
    "RPUSH src:1 a b", "RPUSH dst:1 c",      "SADD src:s a b",       "SADD dst:s x",
    "SET src:str abc", "ZADD src:z 1 a 2 b", "XADD src:x 1-1 f v", "HSET src:h f v",
};

/* Multi-key and single-key commands whose keys need read, write, both or
 * neither. */
static const char *const acl_lines[] = {
    "SINTERSTORE dst:1 src:s",
    "SUNIONSTORE dst:1 src:s",
    "SDIFFSTORE dst:1 src:s",
    "SINTERSTORE src:s dst:s",
    "COPY src:1 dst:1",
    "COPY dst:1 src:9",
    "RENAME src:1 dst:1",
    "RENAMENX src:1 dst:9",
    "LMOVE src:1 dst:1 LEFT LEFT",
    "RPOPLPUSH src:1 dst:1",
    "SMOVE src:s dst:s a",
    "BITOP AND dst:b src:str",
    "ZRANGESTORE dst:z src:z 0 -1",
    "ZUNIONSTORE dst:z 1 src:z",
    "ZINTERSTORE dst:z 1 src:z",
    "ZDIFFSTORE dst:z 1 src:z",
    "ZUNION 1 src:z",
    "ZUNIONSTORE dst:z 1x src:z",
    "EVAL return(1) 1 src:1",
    "EVAL return(1) 1 dst:1",
    "EVAL_RO return(1) 1 src:1",
    "EVAL return(1) 1x src:1",
    "EVAL return(1) 0",
    "GET src:str",
    "SET dst:str v",
    "SET dst:str v GET",
    "SET src:str v",
    "EXISTS src:1 dst:1 other",
    "TYPE dst:1",
    "DEL dst:1",
    "DEL src:1",
    "MSET dst:a 1 dst:b 2",
    "MSET dst:a 1 src:b 2",
    "LPUSH dst:1 x",
    "LPOP dst:1",
    "LLEN dst:1",
    "XREAD STREAMS src:x 0",
    "XREAD STREAMS dst:x 0",
    "XADD dst:x 5-1 f v",
    "APPEND dst:str x",
    "INCR dst:n",
    "GETDEL src:str",
    "EXPIRE dst:1 100",
    "OBJECT ENCODING src:1",
    "OBJECT ENCODING dst:1",
    "OBJECT ENCODING other",
    "XINFO STREAM dst:x",
    "BITFIELD dst:str GET u8 0",
    "BITFIELD dst:str SET u8 0 1",
    "LMPOP 1 dst:1 LEFT",
    "ZMPOP 1 src:z MIN",
    "SINTERCARD 1 src:s",
    "HDEL dst:h f",
    "WATCH dst:1",
};

/* ACL LOG's newest entry as "count reason context object username" ("" for
 * none), the fields that do not depend on the connection or the clock. */
static void last_denial(redisContext *admin, char *out, size_t cap)
{
    static const char *const fields[] = {"count", "reason", "context", "object", "username"};
    redisReply *log = H_CALL(admin, "ACL", "LOG", "1");
    out[0] = '\0';
    if (log && log->type == REDIS_REPLY_ARRAY && log->elements == 1) {
        const redisReply *e = log->element[0];
        for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
            for (size_t i = 0; i + 1 < e->elements; i += 2) {
                if (strcmp(e->element[i]->str, fields[f]) != 0)
                    continue;
                char v[128];
                h_repr(e->element[i + 1], v, sizeof(v));
                snprintf(out + strlen(out), cap - strlen(out), "%s ", v);
            }
        }
    }
    freeReplyObject(log);
}

/* Runs line as user u on s's connection c, after resetting the data and the
 * log through admin; the reply's text and the denial into reply/denial. */
static void run_as(redisContext *admin, redisContext *c, const char *line, char *reply,
                   char *denial, size_t cap)
{
    struct h_line l;
    freeReplyObject(H_CALL(admin, "FLUSHALL"));
    for (size_t i = 0; i < sizeof(acl_setup) / sizeof(acl_setup[0]); i++) {
        h_split(acl_setup[i], &l);
        freeReplyObject(h_command(admin, l.argc, l.argv, NULL));
    }
    freeReplyObject(H_CALL(admin, "ACL", "LOG", "RESET"));
    h_split(line, &l);
    redisReply *rep = h_command(c, l.argc, l.argv, NULL);
    h_repr(rep, reply, cap);
    freeReplyObject(rep);
    last_denial(admin, denial, cap);
}

static redisContext *connect_as(const struct h_server *s, const char *user)
{
    redisContext *c = h_connect(s);
    if (c)
        freeReplyObject(H_CALL(c, "AUTH", user, "x"));
    return c;
}

static void add_users(redisContext *admin)
{
    for (size_t u = 0; u < sizeof(acl_users) / sizeof(acl_users[0]); u++)
        freeReplyObject(H_CALL(admin, "ACL", "SETUSER", acl_users[u][0], "reset", "on", "nopass",
                               "+@all", acl_users[u][1], acl_users[u][2]));
}

static void test_acl_keys_as_redis(void)
{
    redisContext *ra, *a = h_connect_pair(&srv, have_ref ? &ref : NULL, &ra);
    if (!a)
        return;
    add_users(a);
    if (ra)
        add_users(ra);
    size_t compared = 0;
    for (size_t u = 0; u < sizeof(acl_users) / sizeof(acl_users[0]); u++) {
        redisContext *c = connect_as(&srv, acl_users[u][0]);
        redisContext *r = ra ? connect_as(&ref, acl_users[u][0]) : NULL;
        for (size_t i = 0; c && r && i < sizeof(acl_lines) / sizeof(acl_lines[0]); i++) {
            char ours[256], theirs[256], our_log[256], their_log[256];
            run_as(a, c, acl_lines[i], ours, our_log, sizeof(ours));
            run_as(ra, r, acl_lines[i], theirs, their_log, sizeof(theirs));
            compared++;
            CHECK(strcmp(ours, theirs) == 0, "as %s, %s: rbkv %s, redis %s", acl_users[u][0],
                  acl_lines[i], ours, theirs);
            CHECK(strcmp(our_log, their_log) == 0, "as %s, %s: ACL LOG rbkv %s, redis %s",
                  acl_users[u][0], acl_lines[i], our_log, their_log);
        }
        if (c)
            redisFree(c);
        if (r)
            redisFree(r);
    }
    CHECK(!have_ref || compared == 4 * sizeof(acl_lines) / sizeof(acl_lines[0]),
          "compared %zu requests", compared);

    /* Without a reference: LMOVE's source is read and written, so neither
     * "%R~src*" nor "%R~*" beside "%W~dst*" allows it; a destination that is
     * only written needs only %W. */
    char reply[256], denial[256];
    redisContext *c = connect_as(&srv, "star");
    run_as(a, c, "LMOVE src:1 dst:1 LEFT LEFT", reply, denial, sizeof(reply));
    CHECK(strcmp(reply, "-NOPERM this user has no permissions to access one of the keys used as "
                        "arguments") == 0,
          "LMOVE as star: %s", reply);
    CHECK(strcmp(denial, ":1 'key' 'toplevel' 'src:1' 'star' ") == 0, "its ACL LOG: %s", denial);
    redisFree(c);
    c = connect_as(&srv, "rw");
    run_as(a, c, "SINTERSTORE dst:1 src:s", reply, denial, sizeof(reply));
    CHECK(strcmp(reply, ":2") == 0 && !denial[0], "SINTERSTORE as rw: %s %s", reply, denial);
    run_as(a, c, "EXISTS src:1 dst:1", reply, denial, sizeof(reply));
    CHECK(strcmp(reply, ":2") == 0, "EXISTS as rw (needs no permission): %s", reply);
    redisFree(c);
    h_close_pair(a, ra);
}

/* How key patterns add up: only ~* itself is "all keys"; %R~* and %RW~*
 * are patterns; a letter twice is a syntax error; the same pattern twice
 * merges its permissions. ACL DRYRUN then shows what each allows. */
static const char *const pattern_sets[] = {
    "%R~* %R~x", "~* ~x", "%RW~* ~x", "%R~* %W~* ~x", "%RW~dst* %R~*", "allkeys %R~x",
    "%W~a %R~a", "%RR~x", "%R~src* %W~dst*", "%R~* %W~dst*", "~a* %R~* allkeys",
};
static const char *const dryruns[] = {
    "LMOVE x dst LEFT LEFT", "LMOVE dst x LEFT LEFT", "GET x", "SET dst v", "SET a v GET",
    "EXISTS x", "COPY a dst", "TYPE src", "OBJECT ENCODING zz",
};

static void test_key_patterns_as_redis(void)
{
    redisContext *r, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    if (!c)
        return;
    for (size_t i = 0; i < sizeof(pattern_sets) / sizeof(pattern_sets[0]); i++) {
        struct h_line l = {0};
        char words[256];
        snprintf(words, sizeof(words), "ACL SETUSER t reset on nopass +@all %s", pattern_sets[i]);
        h_split(words, &l);
        h_same(__FILE__, __LINE__, c, r, l.argc, l.argv, NULL);
        for (size_t d = 0; d < sizeof(dryruns) / sizeof(dryruns[0]); d++) {
            snprintf(words, sizeof(words), "ACL DRYRUN t %s", dryruns[d]);
            h_split(words, &l);
            h_same(__FILE__, __LINE__, c, r, l.argc, l.argv, NULL);
        }
    }
    EXPECT_OK(c, "ACL", "SETUSER", "t", "reset", "on", "nopass", "+@all", "%RW~*", "~x");
    EXPECT_ERR(c, "ERR Error in ACL SETUSER modifier '%RR~x': Syntax error", "ACL", "SETUSER", "t",
               "%RR~x");
    h_close_pair(c, r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_specs_as_redis);
    H_RUN(test_getkeys_as_redis);
    H_RUN(test_numkeys_random);
    H_RUN(test_acl_keys_as_redis);
    H_RUN(test_key_patterns_as_redis);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
