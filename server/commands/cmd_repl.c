/*
 * cmd_repl.c - the replication commands: REPLICAOF (SLAVEOF), ROLE,
 * REPLCONF, PSYNC, SYNC, WAIT, FAILOVER, and INFO's replication section. The work is
 * core's (repl.h, repl_primary.h, repl_replica.h); this is the Redis syntax
 * and replies around it.
 */
#include "reach.h"
#include "cmd_repl.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "args.h"
#include "backlog.h"
#include "client.h"
#include "log.h"
#include "mem.h"
#include "repl.h"
#include "repl_failover.h"
#include "repl_primary.h"
#include "repl_replica.h"
#include "resp_num.h"
#include "resp_writer.h"
#include "server.h"

static void cmd_replicaof(struct client *c)
{
    /* A cluster node's primary is the cluster's business (CLUSTER
     * REPLICATE). */
    if (server.cfg.cluster_enabled) {
        resp_add_error(&c->out, "ERR REPLICAOF not allowed in cluster mode.");
        return;
    }
    if (repl_failover_state() != FAILOVER_NONE) {
        resp_add_error(&c->out, "ERR REPLICAOF not allowed while failing over.");
        return;
    }
    if (arg_is(&c->argv[1], "no") && arg_is(&c->argv[2], "one")) {
        if (repl_replica_unfollow())
            log_notice("MASTER MODE enabled (user request from '%s')", c->addr);
        reply_ok(c);
        return;
    }
    /* Redis's reason: following a new primary drops our replicas, this
     * client among them. */
    if (c->flags & CLIENT_REPLICA) {
        resp_add_error(&c->out, "ERR Command is not valid when client is a replica.");
        return;
    }
    long long port;
    if (arg_ll_or_reply(c, &c->argv[2], &port) < 0)
        return;
    if (port < 0 || port > 65535) {
        resp_add_error(&c->out, "ERR Invalid master port");
        return;
    }
    char *host = arg_strdup(&c->argv[1]);
    if (server.cfg.replicaof_host && !strcasecmp(host, server.cfg.replicaof_host) &&
        server.cfg.replicaof_port == port) {
        xfree(host);
        log_notice("REPLICAOF would result into synchronization with the master we are "
                   "already connected with. No operation performed.");
        resp_add_simple(&c->out, "OK Already connected to specified master");
        return;
    }
    repl_replica_follow(host, (int)port, 0);
    log_notice("REPLICAOF %s:%d enabled (user request from '%s')", host, (int)port, c->addr);
    xfree(host);
    reply_ok(c);
}

static void cmd_role(struct client *c)
{
    if (!server.cfg.replicaof_host) {
        int n = 0;
        for (struct repl_peer *p = repl.peers; p; p = p->next)
            n += p->state == PEER_ONLINE;
        resp_add_array_len(&c->out, 3);
        resp_add_bulk(&c->out, "master", 6);
        resp_add_int(&c->out, repl.offset);
        resp_add_array_len(&c->out, (size_t)n);
        for (struct repl_peer *p = repl.peers; p; p = p->next) {
            if (p->state != PEER_ONLINE)
                continue;
            char port[16], off[32];
            snprintf(port, sizeof(port), "%d", p->listening_port);
            snprintf(off, sizeof(off), "%lld", p->ack_offset);
            resp_add_array_len(&c->out, 3);
            resp_add_bulk(&c->out, p->ip, strlen(p->ip));
            resp_add_bulk(&c->out, port, strlen(port));
            resp_add_bulk(&c->out, off, strlen(off));
        }
        return;
    }
    struct repl_link_status st;
    repl_replica_status(&st);
    resp_add_array_len(&c->out, 5);
    resp_add_bulk(&c->out, "slave", 5);
    resp_add_bulk(&c->out, server.cfg.replicaof_host, strlen(server.cfg.replicaof_host));
    resp_add_int(&c->out, server.cfg.replicaof_port);
    resp_add_bulk(&c->out, st.state, strlen(st.state));
    resp_add_int(&c->out, st.up ? repl.offset : -1);
}

/* REPLCONF option value [option value ...]: from a replica to its primary
 * (listening-port, ip-address, capa, ack), or the primary's GETACK. */
static void cmd_replconf(struct client *c)
{
    if (c->argc % 2 == 0) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    for (int i = 1; i < c->argc; i += 2) {
        const struct resp_slice *opt = &c->argv[i], *val = &c->argv[i + 1];
        if (arg_is(opt, "ack")) {
            long long off;
            /* No reply: the replica reads none. */
            if (c->repl && resp_parse_ll(val->ptr, val->len, &off) == 0)
                repl_primary_ack(c, off);
            return;
        }
        if (arg_is(opt, "getack")) {
            if (c->flags & CLIENT_MASTER)
                repl_replica_getack();
            return;
        }
        if (arg_is(opt, "listening-port")) {
            long long port;
            if (arg_ll_or_reply(c, val, &port) < 0)
                return;
            repl_peer_of(c)->listening_port = (int)port;
        } else if (arg_is(opt, "ip-address")) {
            struct repl_peer *p = repl_peer_of(c);
            size_t n = val->len < sizeof(p->ip) - 1 ? val->len : sizeof(p->ip) - 1;
            memcpy(p->ip, val->ptr, n);
            p->ip[n] = '\0';
        } else if (arg_is(opt, "capa")) {
            struct repl_peer *p = repl_peer_of(c);
            if (arg_is(val, "eof"))
                p->capa_eof = 1;
            else if (arg_is(val, "rbkv"))
                p->capa_rbkv = 1;
        } else if (arg_is(opt, "rdb-only")) {
            /* redis-cli --rdb: the file alone, then the link closes. */
            long long on;
            if (arg_ll_or_reply(c, val, &on) < 0)
                return;
            if (on < 0 || on > 1) {
                resp_add_error(&c->out, "ERR value is out of range, value must between 0 and 1");
                return;
            }
            repl_peer_of(c)->rdb_only = (int)on;
        } else if (arg_is(opt, "rdb-filter-only")) {
            /* redis-cli --functions-rdb's: accepted, the whole file is sent. */
        } else {
            resp_add_errorf(&c->out, "ERR Unrecognized REPLCONF option: %.*s", (int)opt->len,
                            opt->ptr);
            return;
        }
    }
    reply_ok(c);
}

/* A replica cannot serve a sync while it has no data of its primary's. */
static int sync_refused(struct client *c)
{
    /* Our replicas wait until we know which side of the failover we are on. */
    if (repl_failover_state() != FAILOVER_NONE) {
        resp_add_error(&c->out, "NOMASTERLINK Can't SYNC while failing over");
        return 1;
    }
    if (server.cfg.replicaof_host && !repl_replica_link_up()) {
        resp_add_error(&c->out, "NOMASTERLINK Can't SYNC while not connected with my master");
        return 1;
    }
    return 0;
}

static void cmd_psync(struct client *c)
{
    long long offset;
    if (c->flags & CLIENT_REPLICA)
        return; /* already a replica: ignored, as in Redis */
    char replid[41];
    size_t n = c->argv[1].len < 40 ? c->argv[1].len : 40;
    memcpy(replid, c->argv[1].ptr, n);
    replid[n] = '\0';
    /* A primary handing over to us (Redis's syncCommand): we become the
     * primary, and its PSYNC continues from our old history. */
    if (c->argc > 3 && arg_is(&c->argv[3], "failover")) {
        const char *err = repl_failover_psync(c, replid);
        if (err) {
            resp_add_errorf(&c->out, "ERR %s", err);
            return;
        }
    }
    if (sync_refused(c))
        return;
    if (arg_ll_or_reply(c, &c->argv[2], &offset) < 0)
        return;
    repl_primary_sync(c, replid, offset, 0);
}

static void cmd_sync(struct client *c)
{
    if (c->flags & CLIENT_REPLICA)
        return;
    if (sync_refused(c))
        return;
    repl_primary_sync(c, "?", -1, 1);
}

/* FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT milliseconds]: Redis
 * 7.0's syntax, read in its order (repl_failover.h does the rest). */
static void cmd_failover(struct client *c)
{
    if (server.cfg.cluster_enabled) {
        resp_add_error(&c->out,
                       "ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command "
                       "instead.");
        return;
    }
    if (c->argc == 2 && arg_is(&c->argv[1], "abort")) {
        if (repl_failover_abort() < 0)
            resp_add_error(&c->out, "ERR No failover in progress.");
        else
            reply_ok(c);
        return;
    }
    long long timeout = 0, port = 0;
    int force = 0;
    const struct resp_slice *host = NULL;
    for (int j = 1; j < c->argc; j++) {
        if (arg_is(&c->argv[j], "timeout") && j + 1 < c->argc && timeout == 0) {
            if (arg_ll_or_reply(c, &c->argv[j + 1], &timeout) < 0)
                return;
            if (timeout <= 0) {
                resp_add_error(&c->out, "ERR FAILOVER timeout must be greater than 0");
                return;
            }
            j++;
        } else if (arg_is(&c->argv[j], "to") && j + 2 < c->argc && !host) {
            if (arg_ll_or_reply(c, &c->argv[j + 2], &port) < 0)
                return;
            host = &c->argv[j + 1];
            j += 2;
        } else if (arg_is(&c->argv[j], "force") && !force) {
            force = 1;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
    }
    char *h = host ? arg_strdup(host) : NULL;
    const char *err = repl_failover_start(h, port, timeout, force);
    xfree(h);
    if (err)
        resp_add_errorf(&c->out, "ERR %s", err);
    else
        reply_ok(c);
}

static void cmd_wait(struct client *c)
{
    long long numreplicas, timeout;
    if (server.cfg.replicaof_host) {
        resp_add_error(&c->out, "ERR WAIT cannot be used with replica instances. Please also "
                                "note that since Redis 4.0 if a replica is configured to be "
                                "writable (which is not the default) writes to replicas are "
                                "just local and are not propagated.");
        return;
    }
    if (arg_ll_or_reply(c, &c->argv[1], &numreplicas) < 0)
        return;
    if (resp_parse_ll(c->argv[2].ptr, c->argv[2].len, &timeout) < 0) {
        resp_add_error(&c->out, "ERR timeout is not an integer or out of range");
        return;
    }
    if (timeout < 0) {
        resp_add_error(&c->out, "ERR timeout is negative");
        return;
    }
    repl_primary_wait(c, numreplicas, timeout);
}

/* ---- INFO replication ---- */

void cmd_repl_info(struct text *t)
{
    int64_t now = (int64_t)uv_now(server.loop);
    text_printf(t, "# Replication\r\nrole:%s\r\n", server.cfg.replicaof_host ? "slave" : "master");
    if (server.cfg.replicaof_host) {
        struct repl_link_status st;
        repl_replica_status(&st);
        text_printf(t,
            "master_host:%s\r\nmaster_port:%d\r\nmaster_link_status:%s\r\n"
            "master_last_io_seconds_ago:%lld\r\nmaster_sync_in_progress:%d\r\n"
            "slave_read_repl_offset:%lld\r\nslave_repl_offset:%lld\r\n",
            server.cfg.replicaof_host, server.cfg.replicaof_port, st.up ? "up" : "down",
            st.last_io_ms ? (long long)(now - st.last_io_ms) / 1000 : -1LL, st.sync_in_progress,
            repl.offset, repl.offset);
        if (st.sync_in_progress)
            text_printf(t, "master_sync_total_bytes:-1\r\nmaster_sync_read_bytes:%lld\r\n",
                st.transferred);
        if (!st.up)
            text_printf(t, "master_link_down_since_seconds:%lld\r\n",
                st.down_since_ms ? (long long)(now - st.down_since_ms) / 1000 : -1LL);
        text_printf(t, "slave_priority:%lld\r\nslave_read_only:%d\r\nreplica_announced:%d\r\n",
            server.cfg.replica_priority, server.cfg.replica_read_only,
            server.cfg.replica_announced);
    }
    text_printf(t, "connected_slaves:%d\r\n", repl.peer_count);
    int i = 0;
    for (struct repl_peer *p = repl.peers; p; p = p->next, i++) {
        text_printf(t, "slave%d:ip=%s,port=%d,state=%s,offset=%lld,lag=%lld\r\n", i, p->ip,
            p->listening_port, repl_peer_state_name(p->state), p->ack_offset,
            (long long)(now - p->ack_ms) / 1000);
    }
    struct backlog *b = repl.backlog;
    text_printf(t,
        "master_failover_state:%s\r\nmaster_replid:%s\r\nmaster_replid2:%s\r\n"
        "master_repl_offset:%lld\r\nsecond_repl_offset:%lld\r\nrepl_backlog_active:%d\r\n"
        "repl_backlog_size:%llu\r\nrepl_backlog_first_byte_offset:%lld\r\n"
        "repl_backlog_histlen:%llu\r\n",
        repl_failover_state_name(), repl.replid, repl.replid2, repl.offset, repl.second_offset, b != NULL,
        server.cfg.repl_backlog_size, b ? backlog_first(b) : 0LL,
        b ? (unsigned long long)b->histlen : 0ULL);
}

const struct command repl_commands[] = {
    {.name = "replicaof", .proc = cmd_replicaof, .arity = 3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE | CMD_NO_ASYNC_LOADING, .group = "server"},
    {.name = "slaveof", .proc = cmd_replicaof, .arity = 3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE | CMD_NO_ASYNC_LOADING, .group = "server"},
    {.name = "role", .proc = cmd_role, .arity = 1,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST, .group = "server"},
    {.name = "replconf", .proc = cmd_replconf, .arity = -1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_ALLOW_BUSY,
     .group = "server"},
    {.name = "psync", .proc = cmd_psync, .arity = -3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI,
     .group = "server", .key_reach = reach_all},
    {.name = "sync", .proc = cmd_sync, .arity = 1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI,
     .group = "server", .key_reach = reach_all},
    {.name = "failover", .proc = cmd_failover, .arity = -1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE, .group = "server"},
    {.name = "wait", .proc = cmd_wait, .arity = 3,
     .flags = CMD_NOSCRIPT, .group = "generic"},
    {0},
};
