/*
 * harness_dataset.c - comparing two servers' whole datasets
 * (harness_dataset.h).
 */
#include "harness_dataset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every key of r's current database against c's: type, deadline, then the
 * deadline dropped on both. */
static void same_keys(const char *file, int line, redisContext *c, redisContext *r)
{
    redisReply *keys = H_CALL(r, "KEYS", "*");
    if (!h_check(file, line, keys && keys->type == REDIS_REPLY_ARRAY, "KEYS * on the reference"))
        goto out;
    for (size_t i = 0; i < keys->elements; i++) {
        static const char *const cmds[] = {"TYPE", "PEXPIRETIME", "PERSIST"};
        for (size_t j = 0; j < sizeof(cmds) / sizeof(*cmds); j++) {
            const char *argv[2] = {cmds[j], keys->element[i]->str};
            size_t lens[2] = {strlen(cmds[j]), keys->element[i]->len};
            h_same(file, line, c, r, 2, argv, lens);
        }
    }
out:
    freeReplyObject(keys);
}

void h_same_dataset(const char *file, int line, redisContext *c, redisContext *r, int dbs)
{
    for (int db = dbs - 1; db >= 0; db--) {
        char name[12];
        snprintf(name, sizeof(name), "%d", db);
        const char *sel[2] = {"SELECT", name}, *size[1] = {"DBSIZE"};
        h_same(file, line, c, r, 2, sel, NULL);
        h_same(file, line, c, r, 1, size, NULL);
        same_keys(file, line, c, r);
    }
    char dc[H_DIGEST_CHARS + 1], dr[H_DIGEST_CHARS + 1];
    h_digest(c, dc);
    h_digest(r, dr);
    h_check(file, line, dc[0] && strcmp(dc, dr) == 0, "DEBUG DIGEST: %s here, %s on the reference",
            dc, dr);
    h_check(file, line, strcmp(dc, H_DIGEST_ZEROS) != 0, "an empty dataset");
}

/* Zeroes the value after every "seen-time" name in r's flat arrays, at any
 * depth (XINFO STREAM FULL's consumers). */
static void clear_seen_times(redisReply *r)
{
    if (!r || r->type != REDIS_REPLY_ARRAY)
        return;
    for (size_t i = 0; i < r->elements; i++) {
        redisReply *e = r->element[i];
        if (e->type == REDIS_REPLY_STRING && !strcmp(e->str, "seen-time") && i + 1 < r->elements &&
            r->element[i + 1]->type == REDIS_REPLY_INTEGER)
            r->element[i + 1]->integer = 0;
        clear_seen_times(e);
    }
}

int h_same_stream_full(const char *file, int line, redisContext *c, redisContext *r,
                       const char *key, int flags)
{
    redisReply *x = H_CALL(c, "XINFO", "STREAM", key, "FULL");
    redisReply *y = H_CALL(r, "XINFO", "STREAM", key, "FULL");
    int shaped = x && y && x->type == REDIS_REPLY_ARRAY && y->type == REDIS_REPLY_ARRAY &&
                 x->elements > 5 && y->elements > 5 &&
                 !strcmp(x->element[4]->str ? x->element[4]->str : "", "radix-tree-nodes");
    if (shaped) {
        x->element[5]->integer = y->element[5]->integer = 0;
        long long kx = x->element[3]->integer, ky = y->element[3]->integer;
        if (kx - ky == 1 || ky - kx == 1)
            x->element[3]->integer = y->element[3]->integer = 0;
        if (flags & H_FULL_NO_SEEN) {
            clear_seen_times(x);
            clear_seen_times(y);
        }
    }
    int ok = h_check(file, line, shaped && h_reply_equal(x, y), "XINFO STREAM %s FULL differs",
                     key);
    if (!ok) {
        char *tx = H_REPLY_TEXT(c, "XINFO", "STREAM", key, "FULL");
        char *ty = H_REPLY_TEXT(r, "XINFO", "STREAM", key, "FULL");
        printf("    here %s\n    ref  %s\n", tx, ty);
        free(tx);
        free(ty);
    }
    freeReplyObject(x);
    freeReplyObject(y);
    return ok;
}
