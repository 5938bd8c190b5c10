/*
 * feed.c - write commands as RESP commands (feed.h).
 */
#include "feed.h"

#include <string.h>
#include <strings.h>

#include "command_table.h"
#include "keyspace.h"
#include "resp_num.h"
#include "resp_parser.h"

void feed_init(struct feed *f)
{
    resp_out_init(&f->buf);
    f->db = -1;
    f->in_multi = 0;
}

void feed_destroy(struct feed *f)
{
    resp_out_destroy(&f->buf);
}

void feed_words(struct feed *f, int argc, const char *const *words, const size_t *lens)
{
    /* Bulk by bulk: any argc, no array to outgrow (a 4-slot one once took
     * the rewrite's 7-word XADD of an empty stream past its end). */
    resp_add_array_len(&f->buf, (size_t)argc);
    for (int i = 0; i < argc; i++)
        resp_add_bulk(&f->buf, words[i], lens[i]);
}

void feed_select(struct feed *f, int db)
{
    char num[RESP_LL_CHARS];
    const char *w[] = {"SELECT", num};
    size_t l[] = {6, resp_format_ll(num, db)};
    feed_words(f, 2, w, l);
    f->db = db;
}

void feed_pexpireat(struct feed *f, const char *key, size_t klen, int64_t when)
{
    char num[RESP_LL_CHARS];
    const char *w[] = {"PEXPIREAT", key, num};
    size_t l[] = {9, klen, resp_format_ll(num, when)};
    feed_words(f, 3, w, l);
}

/* Before an entry in database db: a SELECT when the reader is elsewhere. */
static void begin_entry(struct feed *f, int db)
{
    if (db != f->db)
        feed_select(f, db);
}

void feed_command(struct feed *f, struct db *db, const struct command *cmd, int argc,
                  const struct resp_slice *argv)
{
    begin_entry(f, db->id);
    /* As the client wrote it, as Redis sends it ("set" stays "set"), unless
     * it was called by a rename-command alias: then under its own name, so
     * the stream replays whatever rename-command says where it is read. A
     * subcommand's row ("xgroup|create") goes out under its container's
     * name, the subcommand following as the client wrote it. */
    const char *bar = strchr(cmd->name, '|');
    size_t nlen = bar ? (size_t)(bar - cmd->name) : strlen(cmd->name);
    resp_add_array_len(&f->buf, (size_t)argc);
    if (argv[0].len == nlen && strncasecmp(argv[0].ptr, cmd->name, nlen) == 0)
        resp_add_bulk(&f->buf, argv[0].ptr, argv[0].len);
    else
        resp_add_bulk(&f->buf, cmd->name, nlen);
    for (int i = 1; i < argc; i++)
        resp_add_bulk(&f->buf, argv[i].ptr, argv[i].len);
}

void feed_argv(struct feed *f, int db, int argc, const struct resp_slice *argv)
{
    begin_entry(f, db);
    resp_add_command(&f->buf, argc, argv);
}

void feed_begin_multi(struct feed *f, int db)
{
    const char *w[] = {"MULTI"};
    size_t l[] = {5};
    begin_entry(f, db);
    feed_words(f, 1, w, l);
    f->in_multi = 1;
}

void feed_end_multi(struct feed *f)
{
    if (!f->in_multi)
        return;
    const char *w[] = {"EXEC"};
    size_t l[] = {4};
    feed_words(f, 1, w, l);
    f->in_multi = 0;
}
