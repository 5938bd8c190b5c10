/*
 * test_command_info.c - end-to-end tests of the command flags: what
 * COMMAND INFO shows, and the one the dispatcher enforces at queue time
 * (no_multi: SAVE, SHUTDOWN, SYNC and PSYNC refused inside MULTI).
 *
 * With redis-server installed, a reference server runs beside ours and
 * every command both know is compared: its flags must be Redis's, in Redis's
 * order, and so must its ACL categories (which ACL CAT lists from the same
 * derivation, server/core/acl_rules.c). COMMAND LIST names the subcommands too
 * ("config|get"), so each subcommand's own row is compared as well as its
 * container's (test_subcommand compares the whole entries).
 *
 * COMMAND LIST itself must be Redis 7.0.15's, but for MODULE's commands and
 * the short lists below: what rbkv still lacks (each naming the issue that
 * owns it) and what rbkv has that Redis 7.0 has not. A command dropped, or
 * one gained without updating these lists, fails the test; so does an entry
 * that is no longer a difference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static struct h_server srv, ref;
static int have_ref;

/* Refused when queued, with Redis's text; EXEC then answers EXECABORT and
 * nothing ran: in particular, the server is still there. */
static void test_no_multi(void)
{
    redisContext *c = h_connect_flushed(&srv);
    if (!c)
        return;
    static const char *const refused[][3] = {
        {"SAVE"}, {"SHUTDOWN"}, {"SHUTDOWN", "NOSAVE"}, {"SYNC"}, {"PSYNC", "?", "-1"}};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        int argc = refused[i][1] ? (refused[i][2] ? 3 : 2) : 1;
        EXPECT_OK(c, "MULTI");
        EXPECT_STATUS(c, "QUEUED", "SET", "k", "v");
        redisReply *r = h_command(c, argc, refused[i], NULL);
        CHECK(r && r->type == REDIS_REPLY_ERROR &&
                  strcmp(r->str, "ERR Command not allowed inside a transaction") == 0,
              "%s inside MULTI: %s", refused[i][0], r && r->str ? r->str : "(no error)");
        freeReplyObject(r);
        EXPECT_ERR(c, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
        EXPECT_NIL(c, "GET", "k");
    }
    EXPECT_STATUS(c, "PONG", "PING");

    /* Outside MULTI, SAVE still runs; BGSAVE is allowed inside. */
    EXPECT_OK(c, "SAVE");
    /* SSUBSCRIBE may not run inside EXEC, SUBSCRIBE may (Redis 7.0). */
    EXPECT_TRANSACTION(c, "[-ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client]",
                          "SSUBSCRIBE s");
    EXPECT_TRANSACTION(c, "[['subscribe', 'ch', :1]]", "SUBSCRIBE ch");
    redisFree(c);
}

/* Element i of name's COMMAND INFO (2: flags, 6: ACL categories), as
 * text; 0 when the server does not know name. */
static int info_element(redisContext *c, const char *name, size_t i, char *buf, size_t cap)
{
    redisReply *r = H_CALL(c, "COMMAND", "INFO", name);
    int ok = r && r->type == REDIS_REPLY_ARRAY && r->elements == 1 &&
             r->element[0]->type == REDIS_REPLY_ARRAY && r->element[0]->elements >= 7;
    if (ok)
        h_repr(r->element[0]->element[i], buf, cap);
    freeReplyObject(r);
    return ok;
}

static void test_flags_as_redis(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    redisContext *c = h_connect(&srv), *r = h_connect(&ref);
    redisReply *names = c ? H_CALL(c, "COMMAND", "LIST") : NULL;
    CHECK(names && names->type == REDIS_REPLY_ARRAY && names->elements > 100, "COMMAND LIST");
    size_t compared = 0;
    for (size_t i = 0; names && r && i < names->elements; i++) {
        const char *name = names->element[i]->str;
        char ours[256], theirs[256];
        if (!info_element(r, name, 2, theirs, sizeof(theirs)) ||
            !info_element(c, name, 2, ours, sizeof(ours)))
            continue;
        compared++;
        CHECK(strcmp(ours, theirs) == 0, "COMMAND INFO %s flags: rbkv %s, redis %s", name, ours,
              theirs);
        info_element(r, name, 6, theirs, sizeof(theirs));
        info_element(c, name, 6, ours, sizeof(ours));
        CHECK(strcmp(ours, theirs) == 0, "COMMAND INFO %s ACL categories: rbkv %s, redis %s",
              name, ours, theirs);
    }
    CHECK(compared > 100, "compared the flags and categories of %zu commands", compared);
    freeReplyObject(names);
    if (c)
        redisFree(c);
    if (r)
        redisFree(r);
}

/* Redis 7.0.15's commands rbkv does not have yet, and who owns each; ends
 * with a NULL name (empty today: add {"name", "issue N: why"} rows). */
static const struct {
    const char *name, *owner;
} missing[] = {
    {NULL, NULL},
};

/* rbkv's own commands (docs/commands.md, "Ordered commands" and "Ordered
 * hashes and sets"), and Redis 7.2's CLIENT subcommands rbkv has early. */
static const char *const rbkv_only[] = {
    "hcount", "hdelrange", "hprefix", "hrange", "hrangebylex", "hrank",
    "kcount", "kdelrange", "kfirst",  "klast",  "klocal",  "knext",   "kprefix",
    "kprev",  "krange",    "krank",   "krevrank", "ksplit",    "scount",
    "srange", "srank",     "client|no-touch", "client|setinfo",
};

/* MODULE and its subcommands: Redis's are not rbkv's business here. */
static int is_module_command(const char *name)
{
    return !strcmp(name, "module") || !strncmp(name, "module|", 7);
}

static int in_reply(const redisReply *names, const char *name)
{
    for (size_t i = 0; i < names->elements; i++)
        if (names->element[i]->type == REDIS_REPLY_STRING && !strcmp(names->element[i]->str, name))
            return 1;
    return 0;
}

static int listed_missing(const char *name)
{
    for (size_t i = 0; missing[i].name; i++)
        if (!strcmp(missing[i].name, name))
            return 1;
    return 0;
}

static int listed_rbkv_only(const char *name)
{
    for (size_t i = 0; i < sizeof(rbkv_only) / sizeof(rbkv_only[0]); i++)
        if (!strcmp(rbkv_only[i], name))
            return 1;
    return 0;
}

/* Each side's names against the other's and the lists. */
static void test_command_list_as_redis(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    redisContext *c = h_connect(&srv), *r = h_connect(&ref);
    redisReply *ours = c ? H_CALL(c, "COMMAND", "LIST") : NULL;
    redisReply *theirs = r ? H_CALL(r, "COMMAND", "LIST") : NULL;
    if (CHECK(ours && ours->type == REDIS_REPLY_ARRAY && theirs &&
                  theirs->type == REDIS_REPLY_ARRAY && theirs->elements > 300,
              "COMMAND LIST of both servers")) {
        for (size_t i = 0; i < theirs->elements; i++) {
            const char *name = theirs->element[i]->str;
            if (is_module_command(name) || in_reply(ours, name))
                continue;
            CHECK(listed_missing(name),
                  "rbkv lacks Redis's '%s': a command dropped, or add it to missing[] with its "
                  "issue",
                  name);
        }
        for (size_t i = 0; i < ours->elements; i++) {
            const char *name = ours->element[i]->str;
            if (is_module_command(name) || in_reply(theirs, name))
                continue;
            CHECK(listed_rbkv_only(name),
                  "rbkv has '%s', which Redis 7.0.15 has not: add it to rbkv_only[] (and docs)",
                  name);
        }
        for (size_t i = 0; missing[i].name; i++)
            CHECK(!in_reply(ours, missing[i].name) && in_reply(theirs, missing[i].name),
                  "missing[] lists '%s' (%s), which is no longer missing: take it out",
                  missing[i].name, missing[i].owner);
        for (size_t i = 0; i < sizeof(rbkv_only) / sizeof(rbkv_only[0]); i++)
            CHECK(in_reply(ours, rbkv_only[i]) && !in_reply(theirs, rbkv_only[i]),
                  "rbkv_only[] lists '%s', which is not rbkv's alone any more: take it out",
                  rbkv_only[i]);
    }
    freeReplyObject(ours);
    freeReplyObject(theirs);
    if (c)
        redisFree(c);
    if (r)
        redisFree(r);
}

/* The reply to COMMAND DOCS name on r, as bytes (NUL-ended), or NULL; the
 * caller frees it. Raw: the hiredis here stops at 7 levels of nesting,
 * which a container's docs pass. */
static char *docs_reply(struct h_raw *r, const char *name, size_t *len)
{
    char cmd[128];
    int n = snprintf(cmd, sizeof(cmd), "*3\r\n$7\r\nCOMMAND\r\n$4\r\nDOCS\r\n$%zu\r\n%s\r\n",
                     strlen(name), name);
    if (n < 0 || (size_t)n >= sizeof(cmd) || h_raw_send(r, cmd, (size_t)n) < 0 ||
        h_raw_read_reply(r, len, H_RAW_TIMEOUT_MS) < 0)
        return NULL;
    char *out = malloc(*len + 1);
    if (out) {
        memcpy(out, r->buf, *len);
        out[*len] = 0;
    }
    h_raw_consume(r, *len);
    return out;
}

/* Redis's docs x and rbkv's y of one command alike: byte for byte, but for
 * a container's "subcommands" map, which Redis lists in its dict's order
 * and rbkv in its table's: up to it the same bytes, and as many bytes in
 * all unless rbkv has subcommands Redis 7.0 has not (each subcommand's own
 * docs are compared by name). */
static int docs_alike(const char *x, size_t lx, const char *y, size_t ly, int own_subcommand)
{
    static const char subs[] = "$11\r\nsubcommands\r\n";
    const char *at = strstr(x, subs);
    size_t prefix = at ? (size_t)(at - x) + sizeof(subs) - 1 : lx;
    return (lx == ly || (at && own_subcommand)) && ly >= prefix && !memcmp(x, y, prefix);
}

/* Whether rbkv_only[] lists a subcommand of name (CLIENT's from 7.2): its
 * docs then list more subcommands than Redis's. */
static int has_own_subcommand(const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < sizeof(rbkv_only) / sizeof(rbkv_only[0]); i++)
        if (!strncmp(rbkv_only[i], name, len) && rbkv_only[i][len] == '|')
            return 1;
    return 0;
}

/* COMMAND DOCS of every command and subcommand both servers have is
 * Redis's, in RESP2 and in RESP3. */
static void test_docs_as_redis(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    struct h_raw conn[2][2]; /* [rbkv, redis][RESP2, RESP3] */
    const struct h_server *server[2] = {&srv, &ref};
    redisContext *c = h_connect(&srv), *r = h_connect(&ref);
    int opened = 0;
    for (; opened < 4; opened++) {
        struct h_raw *h = &conn[opened / 2][opened % 2];
        if ((opened % 2 ? h_raw_open_resp3 : h_raw_open)(h, server[opened / 2]) < 0)
            break;
    }
    redisReply *ours = c && opened == 4 ? H_CALL(c, "COMMAND", "LIST") : NULL;
    redisReply *theirs = r && opened == 4 ? H_CALL(r, "COMMAND", "LIST") : NULL;
    size_t compared = 0;
    for (size_t i = 0; ours && theirs && i < theirs->elements; i++) {
        const char *name = theirs->element[i]->str;
        if (!in_reply(ours, name))
            continue;
        compared++;
        for (int proto = 0; proto < 2; proto++) {
            size_t lx = 0, ly = 0;
            char *x = docs_reply(&conn[1][proto], name, &lx);
            char *y = docs_reply(&conn[0][proto], name, &ly);
            CHECK(x && y && docs_alike(x, lx, y, ly, has_own_subcommand(name)),
                  "COMMAND DOCS %s in RESP%d differs from Redis's:\n    redis %s\n    rbkv  %s",
                  name, proto ? 3 : 2, x ? x : "(none)", y ? y : "(none)");
            free(x);
            free(y);
        }
    }
    CHECK(compared > 300, "compared the docs of %zu commands", compared);
    freeReplyObject(ours);
    freeReplyObject(theirs);
    while (opened-- > 0)
        h_raw_close(&conn[opened / 2][opened % 2]);
    if (c)
        redisFree(c);
    if (r)
        redisFree(r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_no_multi);
    H_RUN(test_flags_as_redis);
    H_RUN(test_command_list_as_redis);
    H_RUN(test_docs_as_redis);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
