/*
 * test_acl_config.c - users declared in the config file: "user" lines and
 * --user flags (server/core/config.c reads them, acl.c's load_config_users
 * creates them at start) and CONFIG REWRITE writing them back
 * (commands/cmd_config.c).
 *
 * Every test runs unchanged against Debian's redis-server 7.0.15, which is
 * how the expected texts were checked:
 *   test_integration_acl_config redis-server
 * The refused starts listen on a unix socket only: redis-server checks that
 * it listens somewhere before it loads the users, so "--port 0" alone would
 * end it before the error under test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* A server of the tests' own, for a dir to run refused starts in. */
static struct h_server srv;

#define NOPERM_CMD(cmd) "NOPERM this user has no permissions to run the '" cmd "' command"
#define WRONGPASS "WRONGPASS invalid username-password pair or user is disabled."

/* Users from "user" lines and a --user flag: their rules (by commands' own
 * names, a rename-command's new name working for them) and passwords, a
 * disabled one logged; "user default" wins over requirepass, even one
 * later in the file, though CONFIG GET requirepass still shows it;
 * "user" is no CONFIG parameter. */
static void test_users(void)
{
    struct h_server s = {0};
    redisContext *c = NULL;
    if (h_start_config(&s,
                       "user alice on >pa ~app:* +get\n"
                       "rename-command get fetch\n"
                       "user bob off >pb +@all\n"
                       "user default on >pd ~* &* +@all\n"
                       "requirepass rp\n",
                       H_FLAGS("--user", "carol", "on", "nopass", "+ping")) < 0)
        return;
    c = h_connect(&s);
    if (!c)
        goto out;
    EXPECT_ERR(c, WRONGPASS, "AUTH", "rp");
    EXPECT_ERR(c, WRONGPASS, "AUTH", "bob", "pb");
    EXPECT_ERR(c, WRONGPASS, "AUTH", "alice", "wrong");
    EXPECT_OK(c, "AUTH", "default", "pd");
    EXPECT_OK(c, "SET", "app:1", "v");
    EXPECT_OK(c, "AUTH", "alice", "pa");
    EXPECT_BULK(c, "v", "FETCH", "app:1");
    EXPECT_ERR(c, "NOPERM this user has no permissions to access one of the keys used as arguments",
               "FETCH", "other");
    EXPECT_ERR(c, NOPERM_CMD("set"), "SET", "app:1", "w");
    EXPECT_OK(c, "AUTH", "carol", "anything");
    EXPECT_STATUS(c, "PONG", "PING");
    EXPECT_ERR(c, NOPERM_CMD("get"), "FETCH", "app:1");
    EXPECT_OK(c, "AUTH", "pd");
    EXPECT_REPLY(c, "['requirepass', 'rp']", "CONFIG", "GET", "requirepass");
    EXPECT_REPLY(c, "[]", "CONFIG", "GET", "user");
    EXPECT_ERR(c, "ERR Unknown option or number of arguments for CONFIG SET - 'user'", "CONFIG",
               "SET", "user", "dave");
    EXPECT_REPLY(c, "['alice', 'bob', 'carol', 'default']", "ACL", "USERS");
    /* Rules name commands by their own names, whatever rename-command did.
     * (One command each: Redis 7.0 lists a user's commands in no set order.) */
    EXPECT_MATCH(c, "*'user alice on #* ~app:* resetchannels -@all +get'*", "ACL", "LIST");
    CHECK(h_file_has(&s, "server.log", "The user 'bob' is disabled (there is no 'on' modifier in "
                                       "the user description). Make sure this is not a "
                                       "configuration error."),
          "a disabled user is logged");
out:
    if (c)
        redisFree(c);
    h_stop(&s);
}

/* Starts the server on the config file name (in srv's dir) holding text;
 * expects exit status 1 and want in its output. */
static void expect_refused(const char *name, const char *text, const char *want)
{
    char conf[400], out[420];
    FILE *f;
    h_path_in(&srv, name, conf, sizeof(conf));
    snprintf(out, sizeof(out), "%s.out", name);
    f = fopen(conf, "w");
    if (!CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "writing %s", conf))
        return;
    CHECK(h_exec(&srv, out, 10000, H_FLAGS(conf, "--port", "0", "--unixsocket", "s.sock")) == 1,
          "%s: the start is refused with status 1", name);
    CHECK(h_file_has(&srv, out, want), "%s tells: %s", name, want);
}

/* A bad rule, a repeated user and a missing name stop the reading of the
 * file at their line; an unknown command, a name with a space and users
 * beside an aclfile stop the start. Redis names a bad rule's error by the
 * word one before it. */
static void test_refused(void)
{
    char acl[400], text[600];
    expect_refused("rule.conf", "user alice on >pw badrule\n",
                   ">>> 'user alice on >pw badrule'\nError in user declaration 'on': Syntax error");
    expect_refused("hash.conf", "port 0\nuser alice #abc\n",
                   "at line 2\n>>> 'user alice #abc'\nError in user declaration 'user': The "
                   "password hash must be exactly 64 characters and contain only lowercase "
                   "hexadecimal characters");
    expect_refused("paren.conf", "user alice on (~x +get\n",
                   "Error in user declaration 'alice': Unknown command or category name in ACL");
    expect_refused("dup.conf", "user default on nopass\nuser alice on\nuser alice off\n",
                   "at line 3\n>>> 'user alice off'\nError in user declaration 'alice': Duplicate "
                   "user found. A user can only be defined once in config files");
    expect_refused("name.conf", "user\n",
                   ">>> 'user'\nBad directive or wrong number of arguments");
    expect_refused("cmd.conf", "user alice on >pw\nuser bob on +get +nosuch\n",
                   "Error loading ACL rule '+nosuch' for the user named 'bob': Unknown command or "
                   "category name in ACL");
    CHECK(h_file_has(&srv, "cmd.conf.out", "Critical error while loading ACLs. Exiting."),
          "an unknown command is critical");
    expect_refused("space.conf", "user \"a b\" on\n", "Spaces not allowed in ACL usernames");
    h_path_in(&srv, "users.acl", acl, sizeof(acl));
    snprintf(text, sizeof(text), "aclfile %s\nuser alice on >pw\n", acl);
    FILE *f = fopen(acl, "w");
    CHECK(f && fclose(f) == 0, "writing %s", acl);
    expect_refused("both.conf", text,
                   "Configuring Redis with users defined in redis.conf and at the same setting "
                   "an ACL file path is invalid. This setup is very likely to lead to "
                   "configuration errors and security holes, please define either an ACL file "
                   "or declare users directly in your redis.conf, but not both.");
}

/* Where text has line as a whole line, or NULL. */
static const char *find_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
            return p;
    }
    return NULL;
}

/* CONFIG REWRITE puts the users in user lines, in place of the old ones
 * (the first where alice's was, a deleted user's gone), and a restart from
 * the rewritten file has the same ACL LIST. The default user has a line
 * from the start: Redis's "reset" adds sanitize-payload to it. */
static void test_rewrite(void)
{
    struct h_server s = {0};
    redisContext *c = NULL;
    char path[400], *before = NULL, *after = NULL, *text = NULL;
    size_t len;
    if (h_start_config(&s,
                       "# users\n"
                       "user alice on >pa ~app:* %R~ro:* +get (~x +set)\n"
                       "user zed on nopass\n"
                       "# end of users\n"
                       "user default on nopass ~* &* +@all\n",
                       NULL) < 0)
        return;
    c = h_connect(&s);
    if (!c)
        goto out;
    EXPECT_OK(c, "ACL", "SETUSER", "carol", "on", ">pc", "&news", "+subscribe");
    EXPECT_INT(c, 1, "ACL", "DELUSER", "zed");
    before = H_REPLY_TEXT(c, "ACL", "LIST");
    EXPECT_OK(c, "CONFIG", "REWRITE");
    h_path_in(&s, "server.conf", path, sizeof(path));
    text = h_read_file(path, &len);
    CHECK(text != NULL, "reading %s", path);
    if (!text)
        goto out;
    const char *alice = strstr(text, "\nuser alice on #"), *users = strstr(text, "# users\n");
    CHECK(users && alice && alice == users + strlen("# users"),
          "alice's line stays first, where it was: %s", text);
    CHECK(strstr(text, "\nuser carol on #") && find_line(text, "# end of users") &&
              !strstr(text, "user zed"),
          "carol written, zed gone, comments kept: %s", text);
    redisFree(c);
    c = NULL;
    if (h_stop(&s) < 0 || h_restart(&s, NULL) < 0)
        goto out;
    c = h_connect(&s);
    if (!c)
        goto out;
    after = H_REPLY_TEXT(c, "ACL", "LIST");
    CHECK(strcmp(before, after) == 0, "the same users after a restart: %s, then %s", before,
          after);
    EXPECT_OK(c, "AUTH", "alice", "pa");
out:
    free(text);
    free(before);
    free(after);
    if (c)
        redisFree(c);
    h_stop(&s);
}

/* With an aclfile, CONFIG REWRITE writes no user line and drops any the
 * file was given since the start. */
static void test_rewrite_aclfile(void)
{
    struct h_server s = {0};
    redisContext *c = NULL;
    char acl[400], conf[400], text[600], *after = NULL;
    size_t len;
    FILE *f;
    h_path_in(&srv, "rewrite.acl", acl, sizeof(acl));
    f = fopen(acl, "w");
    if (!CHECK(f && fputs("user alice on >pa +get\n", f) >= 0 && fclose(f) == 0, "writing %s",
               acl))
        return;
    snprintf(text, sizeof(text), "aclfile %s\n", acl);
    if (h_start_config(&s, text, NULL) < 0)
        return;
    c = h_connect(&s);
    if (!c)
        goto out;
    h_path_in(&s, "server.conf", conf, sizeof(conf));
    f = fopen(conf, "a");
    if (!CHECK(f && fputs("user mallory on nopass +@all\n", f) >= 0 && fclose(f) == 0,
               "appending to %s", conf))
        goto out;
    EXPECT_OK(c, "CONFIG", "REWRITE");
    after = h_read_file(conf, &len);
    CHECK(after && !strstr(after, "user "), "no user line with an aclfile: %s",
          after ? after : "(none)");
out:
    free(after);
    if (c)
        redisFree(c);
    h_stop(&s);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_users);
    H_RUN(test_refused);
    H_RUN(test_rewrite);
    H_RUN(test_rewrite_aclfile);
    h_stop(&srv);
    return h_finish();
}
