/*
 * test_acl_revoke.c - end-to-end tests of what a change of users does to
 * the clients already connected (server/core/acl_kill.c, acl.c's ACL
 * DELUSER and ACL LOAD, server/commands/cmd_acl.c): subscribers whose
 * channels ACL SETUSER takes away are closed, with what was still waiting
 * to be sent to them; ACL DELUSER closes a user's clients, ACL LOAD every
 * client but the default user's; a user turned off or refused a command
 * keeps its connections. Also the usernames ACL SETUSER refuses.
 *
 * Every test runs unchanged against Debian's redis-server 7.0.15, which is
 * how the expectations were checked:
 *   test_integration_acl_revoke redis-server
 * except test_revoke_own, rbkv's own: redis-server 7.0.15 crashes when a
 * RESP3 subscriber revokes its own channels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static struct h_server srv;

/* A connection as user (nopass users: any password), or NULL. */
static redisContext *connect_as(const struct h_server *s, const char *user)
{
    redisContext *c = h_connect(s);
    if (c && user && !EXPECT_OK(c, "AUTH", user, "x")) {
        redisFree(c);
        return NULL;
    }
    return c;
}

/* connect_as, then a subscription (cmd is subscribe, psubscribe or
 * ssubscribe) confirmed. */
static redisContext *subscriber(const struct h_server *s, const char *user, const char *cmd,
                                const char *name)
{
    redisContext *c = connect_as(s, user);
    if (!c)
        return NULL;
    char want[200];
    snprintf(want, sizeof(want), "['%s', '%s', :1]", cmd, name);
    if (!EXPECT_REPLY(c, want, cmd, name)) {
        redisFree(c);
        return NULL;
    }
    return c;
}

/* Whether the server closed c: a PING gets no answer. Frees c when so. */
static int closed(redisContext **c)
{
    if (!*c)
        return -1;
    redisReply *r = H_CALL(*c, "PING");
    if (r) {
        freeReplyObject(r);
        return 0;
    }
    redisFree(*c);
    *c = NULL;
    return 1;
}

#define EXPECT_CLOSED(c) CHECK(closed(&(c)) == 1, "%s should have been closed", #c)
#define EXPECT_KEPT(c) CHECK(closed(&(c)) == 0, "%s should still be connected", #c)

static void free_all(redisContext **cs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (cs[i])
            redisFree(cs[i]);
        cs[i] = NULL;
    }
}

static void delete_u(redisContext *admin)
{
    freeReplyObject(H_CALL(admin, "ACL", "DELUSER", "u"));
}

#define SET_U(admin, ...)                                                                         \
    EXPECT_OK(admin, "ACL", "SETUSER", "u", "reset", "on", "nopass", "+@all", "~*", __VA_ARGS__)

/* ACL SETUSER: a subscriber goes when no new pattern grants what it holds;
 * a pattern subscription needs the same pattern, a channel one that
 * matches; SSUBSCRIBE's shard channels count as channels; other clients of
 * the user, and subscribers still granted, stay. */
static void test_setuser_channels(void)
{
    redisContext *admin = h_connect_flushed(&srv);
    redisContext *s[5] = {0};
    if (!admin)
        return;
    SET_U(admin, "&a", "&b*");
    s[0] = subscriber(&srv, "u", "subscribe", "a");
    s[1] = subscriber(&srv, "u", "psubscribe", "b*");
    s[2] = subscriber(&srv, "u", "subscribe", "bx");
    s[3] = subscriber(&srv, "u", "ssubscribe", "by");
    s[4] = connect_as(&srv, "u");
    EXPECT_OK(admin, "ACL", "SETUSER", "u", "resetchannels", "&b*");
    EXPECT_CLOSED(s[0]);
    EXPECT_KEPT(s[1]);
    EXPECT_KEPT(s[2]);
    EXPECT_KEPT(s[3]);
    EXPECT_KEPT(s[4]);
    /* b* as a channel pattern matches bx and by, but is not the pattern b*
     * itself any more. */
    EXPECT_OK(admin, "ACL", "SETUSER", "u", "resetchannels", "&b?");
    EXPECT_CLOSED(s[1]);
    EXPECT_KEPT(s[2]);
    EXPECT_KEPT(s[3]);
    /* Adding a channel, or allchannels, closes nobody. */
    EXPECT_OK(admin, "ACL", "SETUSER", "u", "&zz");
    EXPECT_OK(admin, "ACL", "SETUSER", "u", "allchannels");
    EXPECT_KEPT(s[2]);
    EXPECT_KEPT(s[3]);
    /* From allchannels to a pattern: only what the pattern grants stays. */
    EXPECT_OK(admin, "ACL", "SETUSER", "u", "resetchannels", "&bx");
    EXPECT_KEPT(s[2]);
    EXPECT_CLOSED(s[3]);
    /* reset takes every channel (acl-pubsub-default resetchannels). */
    EXPECT_OK(admin, "ACL", "SETUSER", "u", "reset");
    EXPECT_CLOSED(s[2]);
    EXPECT_KEPT(s[4]);
    free_all(s, 5);
    delete_u(admin);
    redisFree(admin);
}

/* Selectors: the new channel patterns of all selectors are pooled, and
 * only channels count, not whether the selector still allows SUBSCRIBE;
 * such a subscriber goes on receiving messages. */
static void test_setuser_selectors(void)
{
    redisContext *admin = h_connect_flushed(&srv);
    redisContext *s = NULL, *t = NULL;
    if (!admin)
        return;
    SET_U(admin, "resetchannels", "(&a +@all)");
    s = subscriber(&srv, "u", "subscribe", "a");
    t = subscriber(&srv, "u", "subscribe", "a");
    EXPECT_OK(admin, "ACL", "SETUSER", "u", "resetchannels", "(&a -@all +get)");
    EXPECT_KEPT(s);
    EXPECT_INT(admin, 2, "PUBLISH", "a", "m");
    if (s && t) {
        EXPECT_NEXT(s, "['message', 'a', 'm']");
        EXPECT_NEXT(t, "['message', 'a', 'm']");
    }
    EXPECT_OK(admin, "ACL", "SETUSER", "u", "clearselectors");
    EXPECT_CLOSED(s);
    EXPECT_CLOSED(t);
    if (s)
        redisFree(s);
    if (t)
        redisFree(t);
    delete_u(admin);
    redisFree(admin);
}

/* A user turned off keeps its connections, which are still served (only
 * new AUTHs are refused); a command taken away is refused, the connection
 * kept. */
static void test_off_and_commands(void)
{
    redisContext *admin = h_connect_flushed(&srv);
    redisContext *s = NULL, *n = NULL, *late = NULL;
    if (!admin)
        return;
    SET_U(admin, "&a");
    s = subscriber(&srv, "u", "subscribe", "a");
    n = connect_as(&srv, "u");
    if (!s || !n)
        goto out;
    EXPECT_OK(admin, "ACL", "SETUSER", "u", "off");
    EXPECT_INT(admin, 1, "PUBLISH", "a", "m");
    EXPECT_NEXT(s, "['message', 'a', 'm']");
    EXPECT_NIL(n, "GET", "k");
    EXPECT_REPLY(n, "'u'", "ACL", "WHOAMI");
    late = h_connect(&srv);
    if (late)
        EXPECT_ERR(late, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH",
                   "u", "x");
    EXPECT_OK(admin, "ACL", "SETUSER", "u", "on", "-get");
    EXPECT_ERR(n, "NOPERM this user has no permissions to run the 'get' command", "GET", "k");
    EXPECT_KEPT(n);
    EXPECT_KEPT(s);
out:
    if (s)
        redisFree(s);
    if (n)
        redisFree(n);
    if (late)
        redisFree(late);
    delete_u(admin);
    redisFree(admin);
}

/* A closed client loses what was still waiting to be sent to it: a message
 * published in the same batch as the change never arrives. ACL DELUSER
 * closes every client of the user, the one asking after its reply. */
static void test_pending_and_deluser(void)
{
    redisContext *admin = h_connect_flushed(&srv);
    redisContext *s = NULL, *n = NULL, *self = NULL;
    if (!admin)
        return;
    for (int deluser = 0; deluser < 2; deluser++) {
        SET_U(admin, "&a");
        s = subscriber(&srv, "u", "subscribe", "a");
        n = connect_as(&srv, "u");
        if (!s || !n)
            break;
        H_APPEND(admin, "PUBLISH", "a", "pending");
        if (deluser)
            H_APPEND(admin, "ACL", "DELUSER", "u");
        else
            H_APPEND(admin, "ACL", "SETUSER", "u", "resetchannels");
        EXPECT_NEXT(admin, ":1");
        EXPECT_NEXT(admin, deluser ? ":1" : "+OK");
        redisReply *r = h_get_reply(s);
        CHECK(r == NULL, "the killed subscriber got a reply after its kill");
        freeReplyObject(r);
        if (deluser)
            EXPECT_CLOSED(n);
        else
            EXPECT_KEPT(n);
        redisFree(s);
        if (n)
            redisFree(n);
        s = n = NULL;
    }
    SET_U(admin, "&a");
    self = connect_as(&srv, "u");
    if (self) {
        H_APPEND(self, "ACL", "DELUSER", "u");
        H_APPEND(self, "PING");
        EXPECT_NEXT(self, ":1");
        redisReply *r = h_get_reply(self);
        CHECK(r == NULL, "the client that deleted its own user was still served");
        freeReplyObject(r);
        redisFree(self);
    }
    if (s)
        redisFree(s);
    delete_u(admin);
    redisFree(admin);
}

/* A RESP3 subscriber may AUTH as another user and keep its channels:
 * Redis checks it at the next change of that user only when the user had
 * channels before, however the change touches them. */
static void test_auth_switch(void)
{
    static const char *const rules[] = {"&a", "resetchannels", "&x"};
    static const int kept[] = {0, 1, 1};
    redisContext *admin = h_connect_flushed(&srv);
    if (!admin)
        return;
    for (int i = 0; i < 3; i++) {
        struct h_raw r;
        SET_U(admin, rules[i]);
        if (h_raw_open_resp3(&r, &srv) < 0)
            break;
        RAW_SEND(&r, "SUBSCRIBE x\r\n");
        RAW_EXPECT(&r, ">3\r\n$9\r\nsubscribe\r\n$1\r\nx\r\n:1\r\n");
        RAW_SEND(&r, "AUTH u x\r\n");
        RAW_EXPECT(&r, "+OK\r\n");
        EXPECT_OK(admin, "ACL", "SETUSER", "u", "+get");
        if (kept[i]) {
            RAW_SEND(&r, "PING\r\n");
            RAW_EXPECT(&r, "+PONG\r\n");
        } else {
            RAW_EXPECT_CLOSED(&r);
        }
        h_raw_close(&r);
    }
    delete_u(admin);
    redisFree(admin);
}

/* rbkv's own: a RESP3 subscriber that revokes its own channels gets its
 * reply, then is closed (redis-server 7.0.15 frees it while it runs, and
 * crashes). */
static void test_revoke_own(void)
{
    if (h_is_reference())
        return;
    redisContext *admin = h_connect_flushed(&srv);
    struct h_raw r;
    if (!admin)
        return;
    SET_U(admin, "&a");
    if (h_raw_open_resp3(&r, &srv) == 0) {
        RAW_SEND(&r, "AUTH u x\r\nSUBSCRIBE a\r\n");
        RAW_EXPECT(&r, "+OK\r\n");
        RAW_EXPECT(&r, ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n");
        RAW_SEND(&r, "ACL SETUSER u resetchannels\r\n");
        RAW_EXPECT(&r, "+OK\r\n");
        RAW_EXPECT_CLOSED(&r);
        h_raw_close(&r);
    }
    EXPECT_REPLY(admin, "+PONG", "PING");
    delete_u(admin);
    redisFree(admin);
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f)
        ok &= fclose(f) == 0;
    return CHECK(ok, "writing %s", path) ? 0 : -1;
}

#define ACL_FILE "user default on nopass ~* &* +@all\nuser u on nopass ~* &a +@all\n"

/* ACL LOAD, as Redis 7.0: every client of a user other than default is
 * closed, even when the file leaves its user unchanged (the one asking
 * after its reply); the default user's clients stay, their subscriptions
 * unchecked. A refused file closes nobody. */
static void test_load(void)
{
    struct h_server other = {0};
    redisContext *admin = NULL, *u1 = NULL, *u2 = NULL, *d1 = NULL, *d2 = NULL, *self = NULL;
    char path[400];
    h_path_in(&srv, "revoke.acl", path, sizeof(path));
    if (write_file(path, ACL_FILE) < 0 || h_start(&other, H_FLAGS("--aclfile", path)) < 0)
        return;
    admin = h_connect(&other);
    u1 = connect_as(&other, "u");
    u2 = subscriber(&other, "u", "subscribe", "a");
    d1 = connect_as(&other, NULL);
    d2 = subscriber(&other, NULL, "psubscribe", "z*");
    if (!admin || !u1 || !u2 || !d1 || !d2)
        goto out;
    /* A username the file's words split apart from is refused too. */
    if (write_file(path, ACL_FILE "user a\vb on\n") < 0)
        goto out;
    EXPECT_MATCH(admin, "-ERR '*revoke.acl:3: username 'a*b' contains invalid characters. WARNING*",
                 "ACL", "LOAD");
    if (write_file(path, ACL_FILE "user w +nosuchcommand\n") < 0)
        goto out;
    EXPECT_MATCH(admin, "-ERR *Unknown command or category name in ACL*", "ACL", "LOAD");
    EXPECT_KEPT(u1);
    EXPECT_KEPT(u2);
    if (write_file(path, "user default on nopass ~* resetchannels &zz &zq +@all\n"
                         "user u on nopass ~* &a +@all\n") < 0)
        goto out;
    EXPECT_OK(admin, "ACL", "LOAD");
    EXPECT_CLOSED(u1);
    EXPECT_CLOSED(u2);
    EXPECT_KEPT(d1);
    EXPECT_KEPT(d2);
    EXPECT_INT(admin, 1, "PUBLISH", "zq", "m");
    if (d2)
        EXPECT_NEXT(d2, "['pmessage', 'z*', 'zq', 'm']");
    self = connect_as(&other, "u");
    if (self) {
        H_APPEND(self, "ACL", "LOAD");
        H_APPEND(self, "PING");
        EXPECT_NEXT(self, "+OK");
        redisReply *r = h_get_reply(self);
        CHECK(r == NULL, "the client of a reloaded user was still served");
        freeReplyObject(r);
    }
out:
    free_all((redisContext *[]){admin, u1, u2, d1, d2, self}, 6);
    if (other.pid)
        h_stop(&other);
}

/* Usernames: a space or NUL byte is refused, with Redis's text; the empty
 * name is a name. */
static void test_usernames(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    static const char *const bad[] = {"a b", "a\tb", "\n", "ab\v"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        EXPECT_ERR(c, "ERR Usernames can't contain spaces or null characters", "ACL", "SETUSER",
                   bad[i], "on");
    EXPECT_BIN(c, "-ERR Usernames can't contain spaces or null characters", H_S("ACL"),
               H_S("SETUSER"), H_S("a\0b"), H_S("on"));
    EXPECT_REPLY(c, "['default']", "ACL", "USERS");
    EXPECT_OK(c, "ACL", "SETUSER", "");
    EXPECT_REPLY(c, "['', 'default']", "ACL", "USERS");
    EXPECT_INT(c, 1, "ACL", "DELUSER", "");
    redisFree(c);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    H_RUN(test_setuser_channels);
    H_RUN(test_setuser_selectors);
    H_RUN(test_off_and_commands);
    H_RUN(test_pending_and_deluser);
    H_RUN(test_auth_switch);
    H_RUN(test_revoke_own);
    H_RUN(test_load);
    H_RUN(test_usernames);
    h_stop(&srv);
    return h_finish();
}
