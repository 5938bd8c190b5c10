/*
 * clientinfo.c - one client described as a CLIENT LIST line, for CLIENT
 * LIST and CLIENT INFO and for the ACL log's client-info.
 *
 * Reads the client and the state core keeps about it (subscriptions, MULTI's
 * queue); writes only into the caller's buffer.
 */
#include "clientinfo.h"

#include <stdio.h>

#include "acl.h"
#include "client.h"
#include "command_table.h"
#include "conn.h"
#include "multi.h"
#include "pubsub.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"
#include "tracking.h"

/* One CLIENT LIST / CLIENT INFO line, in Redis 7's field order. */
void client_info_line(const struct client *c, char *buf, size_t len)
{
    int64_t now = (int64_t)uv_now(server.loop);
    char flags[16];
    size_t f = 0;
    /* The letters rbkv has, in catClientInfoString's order. */
    if (c->flags & CLIENT_MONITOR)
        flags[f++] = 'O';
    if (c->flags & CLIENT_REPLICA)
        flags[f++] = 'S';
    if (c->flags & CLIENT_MASTER)
        flags[f++] = 'M';
    if (pubsub_client_subscribed(c))
        flags[f++] = 'P';
    if (c->multi)
        flags[f++] = 'x';
    if (c->blocked || (c->flags & CLIENT_POSTPONED))
        flags[f++] = 'b';
    unsigned tracking = tracking_flags(c);
    if (tracking & TRACKING_ON)
        flags[f++] = 't';
    if (tracking & TRACKING_BROKEN_REDIR)
        flags[f++] = 'R';
    if (tracking & TRACKING_BCAST)
        flags[f++] = 'B';
    if (c->flags & CLIENT_DIRTY_CAS)
        flags[f++] = 'd';
    if (c->flags & CLIENT_CLOSE_AFTER_REPLY)
        flags[f++] = 'c';
    if (c->flags & CLIENT_UNIX)
        flags[f++] = 'U';
    if (c->flags & CLIENT_NO_EVICT)
        flags[f++] = 'e';
    if (c->flags & CLIENT_NO_TOUCH)
        flags[f++] = 'T';
    if (!f)
        flags[f++] = 'N';
    flags[f] = '\0';
    /* A subcommand's row is named "container|sub", as Redis shows it. */
    const char *cmd = c->last_cmd ? c->last_cmd->name : "NULL";
    uv_os_fd_t fd = -1;
    uv_fileno(&c->h.handle, &fd);
    /* Redis's meanings mapped onto rbkv's buffers: qbuf is the unparsed
     * input, argv-mem the running request's arguments (in the query
     * buffer's memory, or the MULTI queue's at EXEC: tot-mem counts them
     * once), rbs/rbp the inline
     * reply buffer's size and the bytes it holds, obl/oll/omem that buffer's
     * pending bytes, the reply chunks and their memory (Redis's reply list:
     * the spare chunk kept for the next reply is not part of it). */
    size_t argv_mem = resp_slices_bytes(c->argc, c->argv);
    size_t multi_mem = multi_memory(c);
    size_t obl = c->out.inline_used - c->out.inline_start;
    size_t oll = 0;
    for (const struct resp_chunk *k = c->out.head; k; k = k->next)
        oll++;
    size_t tot = conn_client_memory(c); /* argv-mem and multi-mem are parts of it */
    char events[3] = "";
    size_t e = 0;
    if (!(c->flags & CLIENT_READ_PAUSED))
        events[e++] = 'r';
    if (c->flags & CLIENT_WRITING)
        events[e++] = 'w';
    events[e] = '\0';
    snprintf(buf, len,
             "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d sub=%zu "
             "psub=%zu ssub=%zu multi=%ld qbuf=%zu qbuf-free=%zu argv-mem=%zu multi-mem=%zu "
             "rbs=%d rbp=%zu obl=%zu oll=%zu omem=%zu tot-mem=%zu events=%s cmd=%s user=%s "
             "redir=%lld resp=%d lib-name=%s lib-ver=%s",
             (unsigned long long)c->id, c->addr, c->laddr, (int)fd, c->name ? c->name : "",
             (long long)((now - c->ctime_ms) / 1000),
             (long long)((now - c->last_interaction_ms) / 1000), flags, c->db_index,
             pubsub_client_count(c, PUBSUB_CHANNEL), pubsub_client_count(c, PUBSUB_PATTERN),
             pubsub_client_count(c, PUBSUB_SHARD), multi_queued(c),
             resp_parser_buffered(&c->parser), resp_parser_free_space(&c->parser), argv_mem,
             multi_mem, RESP_OUT_INLINE, c->out.inline_used, obl, oll, resp_out_list_memory(&c->out), tot,
             events, cmd, acl_user_name(c->user),
             (tracking & TRACKING_ON) ? (long long)tracking_redirect(c) : -1LL, c->out.proto, c->lib_name ? c->lib_name : "",
             c->lib_ver ? c->lib_ver : "");
}
