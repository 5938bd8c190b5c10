/*
 * repl_failover.c - FAILOVER (repl_failover.h).
 *
 * Owns the failover's state: its target (a copy of the host), deadline and
 * FORCE, and the check handle. The check runs after every loop turn while
 * the failover waits for its target, as Redis's updateFailoverStatus runs in
 * beforeSleep: an ACK that brings the target level with us hands over in
 * the same turn, and never from inside the ACK's own command. The pause is
 * pause.c's, under its FAILOVER purpose; the switch of role is
 * repl_replica.c's (follow, unfollow), which tells us how the target
 * answered our PSYNC FAILOVER.
 *
 * Invariants: target_host is set in IN_PROGRESS and whenever TO was given;
 * the FAILOVER pause is on exactly while the state is not FAILOVER_NONE.
 */
#include "repl_failover.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "clientinfo.h"
#include "clock.h"
#include "log.h"
#include "mem.h"
#include "pause.h"
#include "repl_replica.h"
#include "repl_stream.h"
#include "server.h"

static struct {
    enum repl_failover_state state;
    char *target_host;           /* NULL: any replica, until one is chosen */
    int target_port;
    int64_t end_ms;              /* wall clock; 0 without TIMEOUT */
    int force;
    uv_check_t check;
} fo;

enum repl_failover_state repl_failover_state(void)
{
    return fo.state;
}

const char *repl_failover_state_name(void)
{
    switch (fo.state) {
    case FAILOVER_WAIT_FOR_SYNC:
        return "waiting-for-sync";
    case FAILOVER_IN_PROGRESS:
        return "failover-in-progress";
    default:
        return "no-failover";
    }
}

/* Redis's findReplica: an attached replica (any state) by the address its
 * primary knows it by and its REPLCONF listening-port. */
static struct repl_peer *find_replica(const char *host, long long port)
{
    for (struct repl_peer *p = repl.peers; p; p = p->next) {
        if (!strcasecmp(host, p->ip) && port == p->listening_port)
            return p;
    }
    return NULL;
}

/* Redis's clearFailoverState. */
static void clear_state(void)
{
    xfree(fo.target_host);
    fo.target_host = NULL;
    fo.target_port = 0;
    fo.end_ms = 0;
    fo.force = 0;
    fo.state = FAILOVER_NONE;
    uv_check_stop(&fo.check);
    pause_end(PAUSE_BY_FAILOVER);
}

/* Redis's abortFailover: a replica of the target becomes a primary again. */
static void abort_failover(const char *why)
{
    if (fo.state == FAILOVER_NONE)
        return;
    if (fo.target_host)
        log_notice("FAILOVER to %s:%d aborted: %s", fo.target_host, fo.target_port, why);
    else
        log_notice("FAILOVER to any replica aborted: %s", why);
    if (fo.state == FAILOVER_IN_PROGRESS)
        repl_replica_unfollow();
    clear_state();
}

/* Hands over to the target: we follow it, our PSYNC saying FAILOVER. */
static void hand_over(void)
{
    fo.state = FAILOVER_IN_PROGRESS;
    uv_check_stop(&fo.check);
    repl_replica_follow(fo.target_host, fo.target_port, 1);
}

/* The oldest attached replica that acknowledged our whole stream (peers
 * are listed newest first), as Redis walks its list of replicas. */
static struct repl_peer *caught_up_replica(void)
{
    struct repl_peer *last = repl.peers;
    while (last && last->next)
        last = last->next;
    for (struct repl_peer *p = last; p; p = p->prev) {
        if (p->ack_offset == repl.offset)
            return p;
    }
    return NULL;
}

/* Redis's updateFailoverStatus: the deadline, then whether the target
 * (or, without TO, any replica) caught up. */
static void update(void)
{
    if (fo.state != FAILOVER_WAIT_FOR_SYNC)
        return;
    if (fo.end_ms && fo.end_ms <= mstime()) {
        if (fo.force) {
            log_notice("FAILOVER to %s:%d time out exceeded, failing over.", fo.target_host,
                       fo.target_port);
            hand_over();
        } else {
            abort_failover("Replica never caught up before timeout");
        }
        return;
    }
    struct repl_peer *p;
    if (fo.target_host) {
        p = find_replica(fo.target_host, fo.target_port);
    } else {
        p = caught_up_replica();
        if (p) {
            fo.target_host = xstrdup(p->ip);
            fo.target_port = p->listening_port;
        }
    }
    if (p && p->ack_offset == repl.offset) {
        log_notice("Failover target %s:%d is synced, failing over.", fo.target_host,
                   fo.target_port);
        hand_over();
    }
}

static void check_cb(uv_check_t *h)
{
    (void)h;
    update();
}

/* repl_replica.c's word on our PSYNC FAILOVER. */
static void psync_answered(int accepted)
{
    if (fo.state != FAILOVER_IN_PROGRESS)
        return;
    if (accepted)
        clear_state();
    else
        abort_failover("Failover target rejected psync request");
}

const char *repl_failover_start(const char *host, long long port, long long timeout_ms,
                                int force)
{
    if (fo.state != FAILOVER_NONE)
        return "FAILOVER already in progress.";
    if (server.cfg.replicaof_host)
        return "FAILOVER is not valid when server is a replica.";
    if (!repl.peers)
        return "FAILOVER requires connected replicas.";
    if (force && (!timeout_ms || !host))
        return "FAILOVER with force option requires both a timeout and target HOST and IP.";
    if (host) {
        struct repl_peer *p = find_replica(host, port);
        if (!p)
            return "FAILOVER target HOST and PORT is not a replica.";
        if (p->state != PEER_ONLINE)
            return "FAILOVER target replica is not online.";
        fo.target_host = xstrdup(host);
        fo.target_port = (int)port;
        log_notice("FAILOVER requested to %s:%lld.", host, port);
    } else {
        log_notice("FAILOVER requested to any replica.");
    }
    if (timeout_ms)
        fo.end_ms = mstime() + timeout_ms;
    fo.force = force;
    fo.state = FAILOVER_WAIT_FOR_SYNC;
    pause_start(PAUSE_BY_FAILOVER, PAUSE_WRITE, INT64_MAX);
    uv_check_start(&fo.check, check_cb);
    return NULL;
}

int repl_failover_abort(void)
{
    if (fo.state == FAILOVER_NONE)
        return -1;
    abort_failover("Failover manually aborted");
    return 0;
}

const char *repl_failover_psync(const struct client *c, const char *replid)
{
    log_warning("Failover request received for replid %s.", replid);
    if (!server.cfg.replicaof_host)
        return "PSYNC FAILOVER can't be sent to a master.";
    if (strcasecmp(replid, repl.replid) != 0)
        return "PSYNC FAILOVER replid must match my replid.";
    repl_replica_unfollow();
    char line[1024];
    client_info_line(c, line, sizeof(line));
    log_notice("MASTER MODE enabled (failover request from '%s')", line);
    return NULL;
}

void repl_failover_init(void)
{
    uv_check_init(server.loop, &fo.check);
    repl_replica_on_failover_psync(psync_answered);
}

void repl_failover_close(void)
{
    xfree(fo.target_host);
    fo.target_host = NULL;
    fo.state = FAILOVER_NONE;
    if (fo.check.type == UV_CHECK && !uv_is_closing((uv_handle_t *)&fo.check))
        uv_close((uv_handle_t *)&fo.check, NULL);
}
