/*
 * harness_dataset.c - comparing two servers' whole datasets
 * (harness_dataset.h).
 */
#include "harness_dataset.h"

#include <stdio.h>
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
