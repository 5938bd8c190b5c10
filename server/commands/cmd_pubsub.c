/*
 * cmd_pubsub.c - publish/subscribe commands: (P|S)SUBSCRIBE,
 * (P|S)UNSUBSCRIBE, PUBLISH, SPUBLISH and PUBSUB, with Redis 7's replies.
 * Subscriptions and delivery are core's (pubsub.h).
 */
#include "cmd_pubsub.h"

#include <string.h>

#include "args.h"
#include "client.h"
#include "mem.h"
#include "propagate.h"
#include "pubsub.h"
#include "resp_writer.h"

/* The reply for one (un)subscription: ["subscribe", name, count], a push
 * in RESP3. name NULL: a nil (UNSUBSCRIBE with nothing to unsubscribe). */
static void confirm(struct client *c, const char *word, const char *name, size_t len,
                    size_t count)
{
    /* A push: CLIENT REPLY OFF does not silence it (Redis 7.0.15). */
    int muted = resp_out_unmute_begin(&c->out);
    if (c->out.proto == 3)
        resp_add_push_len(&c->out, 3);
    else
        resp_add_array_len(&c->out, 3);
    resp_add_bulk(&c->out, word, strlen(word));
    if (name)
        resp_add_bulk(&c->out, name, len);
    else
        resp_add_null(&c->out);
    resp_add_int(&c->out, (long long)count);
    resp_out_unmute_end(&c->out, muted);
}

/* What a kind's confirmations count: shard channels by themselves, the
 * others together, as Redis. */
static size_t count_of(const struct client *c, enum pubsub_kind kind)
{
    return kind == PUBSUB_SHARD ? pubsub_client_count(c, PUBSUB_SHARD) : pubsub_client_total(c);
}

static void subscribe(struct client *c, enum pubsub_kind kind, const char *word)
{
    for (int i = 1; i < c->argc; i++) {
        pubsub_subscribe(c, kind, c->argv[i].ptr, c->argv[i].len);
        confirm(c, word, c->argv[i].ptr, c->argv[i].len, count_of(c, kind));
    }
}

static void unsubscribe(struct client *c, enum pubsub_kind kind, const char *word)
{
    if (c->argc > 1) {
        for (int i = 1; i < c->argc; i++) {
            pubsub_unsubscribe(c, kind, c->argv[i].ptr, c->argv[i].len);
            confirm(c, word, c->argv[i].ptr, c->argv[i].len, count_of(c, kind));
        }
        return;
    }
    if (pubsub_client_count(c, kind) == 0) {
        confirm(c, word, NULL, 0, count_of(c, kind));
        return;
    }
    /* Every subscription of the kind, each with its own reply. The name is
     * copied out before the node may be freed. */
    while (pubsub_client_count(c, kind) > 0) {
        size_t len;
        const char *name = pubsub_client_name(c, kind, 0, &len);
        char *copy = arg_strdup(&(struct resp_slice){name, len});
        pubsub_unsubscribe(c, kind, copy, len);
        confirm(c, word, copy, len, count_of(c, kind));
        xfree(copy);
    }
}

static void cmd_subscribe(struct client *c)
{
    subscribe(c, PUBSUB_CHANNEL, "subscribe");
}

static void cmd_psubscribe(struct client *c)
{
    subscribe(c, PUBSUB_PATTERN, "psubscribe");
}

static void cmd_ssubscribe(struct client *c)
{
    /* Redis 7.0 lets SUBSCRIBE run inside EXEC (old clients do it) but not
     * SSUBSCRIBE, which it refuses to any client that may not block. */
    if (c->multi) {
        resp_add_error(&c->out, "ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
        return;
    }
    subscribe(c, PUBSUB_SHARD, "ssubscribe");
}

static void cmd_unsubscribe(struct client *c)
{
    unsubscribe(c, PUBSUB_CHANNEL, "unsubscribe");
}

static void cmd_punsubscribe(struct client *c)
{
    unsubscribe(c, PUBSUB_PATTERN, "punsubscribe");
}

static void cmd_sunsubscribe(struct client *c)
{
    unsubscribe(c, PUBSUB_SHARD, "sunsubscribe");
}

/* PUBLISH reaches the replicas too (their subscribers get it), never the
 * log: a message is not data. In cluster mode the bus carries it instead
 * (to every node, or to the slot's shard for SPUBLISH), as Redis 7.0. */
static void publish(struct client *c, enum pubsub_kind kind)
{
    long long n = pubsub_publish(kind, c->argv[1].ptr, c->argv[1].len, c->argv[2].ptr,
                                 c->argv[2].len);
    if (!pubsub_relay(kind, c->argv[1].ptr, c->argv[1].len, c->argv[2].ptr, c->argv[2].len))
        propagate_to_replicas(c->db_index, c->argc, c->argv);
    resp_add_int(&c->out, n);
}

static void cmd_publish(struct client *c)
{
    publish(c, PUBSUB_CHANNEL);
}

static void cmd_spublish(struct client *c)
{
    publish(c, PUBSUB_SHARD);
}

/* ---- PUBSUB ---- */

struct name_list {
    struct client *c;
    size_t n;
};

static void add_name(void *ctx, const char *name, size_t len)
{
    struct name_list *l = ctx;
    resp_add_bulk(&l->c->out, name, len);
    l->n++;
}

static void count_name(void *ctx, const char *name, size_t len)
{
    (void)name, (void)len;
    ((struct name_list *)ctx)->n++;
}

/* CHANNELS and SHARDCHANNELS [pattern]: the row's arity (-2) lets more
 * arguments through, which Redis's handler refuses itself. */
static void list_names(struct client *c, enum pubsub_kind kind)
{
    if (c->argc > 3) {
        reply_subcommand_syntax(c, "PUBSUB");
        return;
    }
    const char *pat = c->argc > 2 ? c->argv[2].ptr : NULL;
    size_t plen = c->argc > 2 ? c->argv[2].len : 0;
    struct name_list l = {c, 0};
    pubsub_each_name(kind, pat, plen, count_name, &l);
    resp_add_array_len(&c->out, l.n);
    l.n = 0;
    pubsub_each_name(kind, pat, plen, add_name, &l);
}

static void numsub(struct client *c, enum pubsub_kind kind)
{
    resp_add_array_len(&c->out, 2 * ((size_t)c->argc - 2)); /* flat, RESP3 too, as Redis */
    for (int i = 2; i < c->argc; i++) {
        resp_add_bulk(&c->out, c->argv[i].ptr, c->argv[i].len);
        resp_add_int(&c->out, (long long)pubsub_subscribers(kind, c->argv[i].ptr,
                                                              c->argv[i].len));
    }
}

static void pubsub_channels(struct client *c)
{
    list_names(c, PUBSUB_CHANNEL);
}

static void pubsub_shardchannels(struct client *c)
{
    list_names(c, PUBSUB_SHARD);
}

static void pubsub_numsub(struct client *c)
{
    numsub(c, PUBSUB_CHANNEL);
}

static void pubsub_shardnumsub(struct client *c)
{
    numsub(c, PUBSUB_SHARD);
}

static void pubsub_numpat(struct client *c)
{
    resp_add_int(&c->out, (long long)pubsub_name_count(PUBSUB_PATTERN));
}

static void pubsub_help(struct client *c)
{
    static const char *const lines[] = {
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
    };
    reply_help(c, lines, sizeof(lines) / sizeof(lines[0]));
}

static const struct command pubsub_subcommands[] = {
    {.name = "pubsub|channels", .proc = pubsub_channels, .arity = -2,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE, .group = "pubsub"},
    {.name = "pubsub|shardchannels", .proc = pubsub_shardchannels, .arity = -2,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE, .group = "pubsub"},
    {.name = "pubsub|numsub", .proc = pubsub_numsub, .arity = -2,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE, .group = "pubsub"},
    {.name = "pubsub|shardnumsub", .proc = pubsub_shardnumsub, .arity = -2,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE, .group = "pubsub"},
    {.name = "pubsub|numpat", .proc = pubsub_numpat, .arity = 2,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE, .group = "pubsub"},
    SUBCOMMAND_HELP("pubsub|help", pubsub_help, "pubsub"),
    {0},
};

#define SUBSCRIBE_FLAGS (CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_SUBSCRIBED_OK)

const struct command pubsub_commands[] = {
    {.name = "subscribe", .proc = cmd_subscribe, .arity = -2, .flags = SUBSCRIBE_FLAGS,
     .group = "pubsub", .first_channel = 1, .last_channel = -1},
    {.name = "unsubscribe", .proc = cmd_unsubscribe, .arity = -1, .flags = SUBSCRIBE_FLAGS,
     .group = "pubsub"},
    {.name = "psubscribe", .proc = cmd_psubscribe, .arity = -2,
     .flags = SUBSCRIBE_FLAGS | CMD_CHANNEL_PATTERNS,
     .group = "pubsub", .first_channel = 1, .last_channel = -1},
    {.name = "punsubscribe", .proc = cmd_punsubscribe, .arity = -1, .flags = SUBSCRIBE_FLAGS,
     .group = "pubsub"},
    {.name = "ssubscribe", .proc = cmd_ssubscribe, .arity = -2, .flags = SUBSCRIBE_FLAGS,
     .first_key = 1, .last_key = -1, .key_step = 1,
     .group = "pubsub", .first_channel = 1, .last_channel = -1},
    {.name = "sunsubscribe", .proc = cmd_sunsubscribe, .arity = -1, .flags = SUBSCRIBE_FLAGS,
     .first_key = 1, .last_key = -1, .key_step = 1, .group = "pubsub"},
    {.name = "publish", .proc = cmd_publish, .arity = 3,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_MAY_REPLICATE,
     .group = "pubsub", .first_channel = 1, .last_channel = 1},
    {.name = "spublish", .proc = cmd_spublish, .arity = 3,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_MAY_REPLICATE,
     .first_key = 1, .last_key = 1, .key_step = 1,
     .group = "pubsub", .first_channel = 1, .last_channel = 1},
    {.name = "pubsub", .arity = -2,
     .group = "pubsub", .subcommands = pubsub_subcommands},
    {0},
};
