/*
 * test_resp_hiredis.c - the reply writer checked by an independent reader.
 *
 * Random RESP2 reply trees (every reply function, nested and deferred
 * aggregates, binary and big bulks, integer extremes) are written with
 * resp_writer.c and also kept as a model tree; the bytes, taken out in random
 * pieces through peek/consume, go to hiredis's reader (redisReaderFeed /
 * redisReaderGetReply), and every reply it returns must equal the model.
 * hiredis 0.14 speaks only RESP2, so RESP3-only types are checked in their
 * RESP2 fallbacks. SEED=... replays one run.
 */
#include <hiredis/hiredis.h>
#include <hiredis/read.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "test_resp_util.h"

/* What hiredis should return: a type of hiredis's and its payload. */
struct node {
    int type;
    long long integer;
    char *str;
    size_t len;
    size_t n;
    struct node *el;
};

static void node_free(struct node *m)
{
    for (size_t i = 0; i < m->n; i++)
        node_free(&m->el[i]);
    free(m->el);
    free(m->str);
}

static void node_str(struct node *m, int type, const char *s, size_t len)
{
    m->type = type;
    m->str = malloc(len + 1);
    memcpy(m->str, s, len);
    m->len = len;
}

static void gen(uint64_t *rs, struct resp_out *o, struct node *m, int depth, const char *blob)
{
    size_t k = rng_below(rs, depth < 3 ? 17 : 12);

    memset(m, 0, sizeof(*m));
    switch (k) {
    case 0: {
        static const long long edge[] = { 0, 1, -1, LLONG_MAX, LLONG_MIN, 1000000007, -99 };
        long long v = rng_below(rs, 2) ? edge[rng_below(rs, 7)] : (long long)rng_next(rs);
        resp_add_int(o, v);
        m->type = REDIS_REPLY_INTEGER;
        m->integer = v;
        break;
    }
    case 1: {
        size_t n = rng_below(rs, 8) == 0 ? rng_below(rs, 100000) : rng_below(rs, 50);
        size_t off = rng_below(rs, 1000);
        resp_add_bulk(o, blob + off, n);
        node_str(m, REDIS_REPLY_STRING, blob + off, n);
        break;
    }
    case 2:
        resp_add_simple(o, "QUEUED");
        node_str(m, REDIS_REPLY_STATUS, "QUEUED", 6);
        break;
    case 3:
        resp_add_error(o, "WRONGTYPE Operation against a key\nholding the wrong kind of value");
        node_str(m, REDIS_REPLY_ERROR, "WRONGTYPE Operation against a key holding the wrong kind of value", 65);
        break;
    case 4:
        resp_add_null(o);
        m->type = REDIS_REPLY_NIL;
        break;
    case 5:
        resp_add_null_array(o);
        m->type = REDIS_REPLY_NIL;
        break;
    case 6: {
        double d = (double)(long long)rng_next(rs) / (double)(1 + rng_below(rs, 1000000));
        char txt[RESP_DOUBLE_BUFLEN];
        int n = resp_format_double(txt, d);
        resp_add_double(o, d);
        node_str(m, REDIS_REPLY_STRING, txt, (size_t)n);
        break;
    }
    case 7: {
        int b = (int)rng_below(rs, 2);
        resp_add_bool(o, b);
        m->type = REDIS_REPLY_INTEGER;
        m->integer = b;
        break;
    }
    case 8:
        resp_add_bignum(o, "123456789012345678901234567890", 30);
        node_str(m, REDIS_REPLY_STRING, "123456789012345678901234567890", 30);
        break;
    case 9:
        resp_add_verbatim(o, "txt", "verbatim\r\ntext", 14);
        node_str(m, REDIS_REPLY_STRING, "verbatim\r\ntext", 14);
        break;
    case 10: {
        long long v = (long long)rng_next(rs);
        char txt[32];
        int n = snprintf(txt, sizeof(txt), "%lld", v);
        resp_add_bulk_ll(o, v);
        node_str(m, REDIS_REPLY_STRING, txt, (size_t)n);
        break;
    }
    case 11:
        resp_add_bulk_cstr(o, "cstr");
        node_str(m, REDIS_REPLY_STRING, "cstr", 4);
        break;
    default: { /* array, map, set, push, deferred array */
        size_t n = rng_below(rs, 7);
        int kind = (int)(k - 12);
        struct resp_deferred d;
        m->type = REDIS_REPLY_ARRAY;
        m->n = kind == 1 ? 2 * n : n;
        m->el = calloc(m->n ? m->n : 1, sizeof(*m->el));
        if (kind == 0)
            resp_add_array_len(o, n);
        else if (kind == 1)
            resp_add_map_len(o, n);
        else if (kind == 2)
            resp_add_set_len(o, n);
        else if (kind == 3)
            resp_add_push_len(o, n);
        else
            resp_add_deferred(o, &d);
        for (size_t i = 0; i < m->n; i++)
            gen(rs, o, &m->el[i], depth + 1, blob);
        if (kind == 4)
            resp_set_deferred_array(o, &d, n);
        break;
    }
    }
}

static int same(const redisReply *r, const struct node *m)
{
    if (r->type != m->type)
        return 0;
    switch (m->type) {
    case REDIS_REPLY_INTEGER:
        return r->integer == m->integer;
    case REDIS_REPLY_NIL:
        return 1;
    case REDIS_REPLY_ARRAY:
        if (r->elements != m->n)
            return 0;
        for (size_t i = 0; i < m->n; i++)
            if (!same(r->element[i], &m->el[i]))
                return 0;
        return 1;
    default:
        return (size_t)r->len == m->len && memcmp(r->str, m->str, m->len) == 0;
    }
}

int main(void)
{
    uint64_t rs = check_seed((uint64_t)time(NULL));
    char *blob = malloc(101000);
    long replies = 0;

    for (size_t i = 0; i < 101000; i++)
        blob[i] = (char)rng_next(&rs);
    for (int round = 0; round < 300; round++) {
        struct resp_out o;
        redisReader *reader = redisReaderCreate();
        int count = 1 + (int)rng_below(&rs, 50);
        struct node *model = calloc((size_t)count, sizeof(*model));
        int got = 0;

        resp_out_init(&o);
        for (int i = 0; i < count; i++)
            gen(&rs, &o, &model[i], 0, blob);
        CHECK(!o.failed);
        while (resp_out_pending(&o) > 0) {
            struct resp_iov iov[4];
            int n = resp_out_peek(&o, iov, 4);
            size_t take;
            void *reply;

            CHECK(n > 0);
            if (n <= 0)
                break;
            take = 1 + rng_below(&rs, rng_below(&rs, 4) ? 64 : 20000);
            if (take > iov[0].len)
                take = iov[0].len;
            CHECK(redisReaderFeed(reader, iov[0].base, take) == REDIS_OK);
            resp_out_consume(&o, take);
            while (redisReaderGetReply(reader, &reply) == REDIS_OK && reply != NULL) {
                CHECK(got < count);
                CHECK_MSG(same(reply, &model[got]), "reply %d of round %d differs", got, round);
                got++;
                freeReplyObject(reply);
            }
            CHECK(reader->err == 0);
        }
        CHECK(got == count);
        replies += got;
        for (int i = 0; i < count; i++)
            node_free(&model[i]);
        free(model);
        redisReaderFree(reader);
        resp_out_destroy(&o);
    }
    free(blob);
    printf("test_resp_hiredis: %ld replies read back by hiredis\n", replies);
    return test_finish("test_resp_hiredis");
}
