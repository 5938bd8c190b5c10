/*
 * test_acl_firstarg.c - Redis 7.0's first-argument ACL rules ("+select|0":
 * a command without subcommands allowed with one first argument only),
 * server/core/acl_rules.c, compared byte for byte with redis-server 7.0.15
 * (h_start_comparison): ACL SETUSER's replies and errors, the rules ACL
 * GETUSER and ACL LIST write back, ACL DRYRUN, and the check itself for a
 * client of that user.
 *
 * Rules naming several commands, or several categories, are left out:
 * Redis writes commands in its command table's hash order, which changes
 * with each process's hash seed, and categories by best fit
 * (docs/operations.md).
 *
 * Owns: its server and the reference, started in main.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"

static struct h_server srv, ref;
static int have_ref;

/* Rules, one case a line (words split at spaces), each applied to a user
 * reset first. */
static const char *const cases[] = {
    "+select|0",
    "+select|1 +select|2",
    "+SELECT|Ab",
    "+select|0 +select|0",
    "+select|0 +SELECT|0",
    "+select|0 +select|A +select|a",
    "+get|x",
    "+debug|object",
    "+config|get",
    "+config|get|x",
    "+config|x",
    "+acl|whoami|x",
    "+client|kill|x",
    "+ping|x|y",
    "+select|0|1",
    "+select|",
    "+config|",
    "+|x",
    "-select|0",
    "+@all -select|0",
    "+select|0 +select",
    "+select|0 -select",
    "+select|0 +select|1 -select",
    "+select|0 +@connection",
    "+select|0 -@connection",
    "+select|0 +@all",
    "+select|0 -@all",
    "+@all -select +select|0",
    "+@read +select|0",
    "-@read",
    "+select|0 resetkeys ~k*",
    "+get -get",
    "+@all -get +get",
    "+config +config|get",
    "(+select|0 ~*)",
};

static void test_rules(void)
{
    redisContext *r = NULL, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    if (!c)
        return;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct h_line l;
        h_split(cases[i], &l);
        const char *argv[H_LINE_ARGS + 4] = {"ACL", "SETUSER", "u", "reset"};
        int argc = 4;
        for (int k = 0; k < l.argc; k++)
            argv[argc++] = l.argv[k];
        h_same(__FILE__, __LINE__, c, r, argc, argv, NULL);
        H_SAME(c, r, "ACL", "GETUSER", "u");
        H_SAME(c, r, "ACL", "LIST");
    }
    h_close_pair(c, r);
}

/* The check: ACL DRYRUN and a client of the user, on both servers. */
static void test_check(void)
{
    redisContext *r = NULL, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    if (!c)
        return;
    H_SAME(c, r, "ACL", "SETUSER", "fa", "reset", "on", ">pw", "~*", "+select|0", "+select|Two",
           "+debug|object", "+client|id");
    static const char *const runs[][4] = {
        {"select", "0"}, {"select", "1"}, {"select", "two"}, {"select", "TWO"},
        {"select"},      {"debug", "object", "k"}, {"debug", "sleep", "0"},
        {"client", "id"}, {"client", "list"}, {"get", "k"},
    };
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        const char *argv[8] = {"ACL", "DRYRUN", "fa"};
        int argc = 3;
        for (int k = 0; k < 4 && runs[i][k]; k++)
            argv[argc++] = runs[i][k];
        h_same(__FILE__, __LINE__, c, r, argc, argv, NULL);
    }
    H_SAME(c, r, "AUTH", "fa", "pw");
    H_SAME(c, r, "SELECT", "0");
    H_SAME(c, r, "SELECT", "1");
    H_SAME(c, r, "SELECT", "two");
    H_SAME(c, r, "PING");
    h_close_pair(c, r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_rules);
    H_RUN(test_check);
    h_stop(&srv);
    if (have_ref)
        h_stop(&ref);
    return h_finish();
}
