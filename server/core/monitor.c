/*
 * monitor.c - MONITOR (monitor.h).
 *
 * A fed line is formatted once, in Redis's form
 *   +<sec>.<usec> [<db> <addr>] "arg" "arg"...\r\n
 * (a unix socket client's address as "unix:<path>"), appended to each
 * monitor's output as a status reply in RESP2 and RESP3 alike, and sent at
 * the end of the loop turn, so a pipelined batch costs a monitor one write.
 */
#include <stdio.h>
#include <string.h>

#include "monitor.h"

#include "client.h"
#include "clock.h"
#include "command.h"
#include "conn.h"
#include "mem.h"
#include "repr.h"
#include "server.h"

static struct client **monitors;
static size_t nmonitors, monitors_cap;
static uv_check_t send_check;
static int send_on;

void monitor_init(void)
{
    uv_check_init(server.loop, &send_check);
    conn_on_gone(monitor_stop);
}

void monitor_close(void)
{
    if (send_check.type == UV_CHECK && !uv_is_closing((uv_handle_t *)&send_check))
        uv_close((uv_handle_t *)&send_check, NULL);
    xfree(monitors);
    monitors = NULL;
    nmonitors = monitors_cap = 0;
}

void monitor_start(struct client *c)
{
    if (nmonitors == monitors_cap) {
        monitors_cap = monitors_cap ? monitors_cap * 2 : 4;
        monitors = xrealloc(monitors, monitors_cap * sizeof(*monitors));
    }
    monitors[nmonitors++] = c;
    c->flags |= CLIENT_MONITOR;
}

void monitor_stop(struct client *c)
{
    if (!(c->flags & CLIENT_MONITOR))
        return;
    c->flags &= ~CLIENT_MONITOR;
    for (size_t i = 0; i < nmonitors; i++) {
        if (monitors[i] == c) {
            memmove(&monitors[i], &monitors[i + 1], (nmonitors - i - 1) * sizeof(*monitors));
            nmonitors--;
            return;
        }
    }
}

unsigned long monitor_count(void)
{
    return (unsigned long)nmonitors;
}

/* Redis hides admin commands and subcommands from monitors (CMD_ADMIN:
 * CONFIG GET, CLIENT KILL, DEBUG, MONITOR itself...) and QUIT, which it
 * answers before dispatch; cmd is the row that ran, a subcommand's own. */
static int hidden(const struct command *cmd)
{
    return (cmd->flags & (CMD_ADMIN | CMD_SKIP_MONITOR | CMD_NOT_DISPATCHED)) != 0;
}

static void send_cb(uv_check_t *h)
{
    (void)h;
    uv_check_stop(&send_check);
    send_on = 0;
    /* conn_send may close a monitor (a write error); closing unlists it only
     * from its close callback, so the array holds still meanwhile. */
    for (size_t i = 0; i < nmonitors; i++) {
        if (resp_out_pending(&monitors[i]->out))
            conn_send(monitors[i]);
    }
}

void monitor_feed(const struct client *c, const struct command *cmd)
{
    if (!nmonitors || hidden(cmd))
        return;
    const char *where = (c->flags & CLIENT_UNIX) ? server.cfg.unixsocket : c->addr;
    /* "+" seconds "." micros " [" db " unix:" address "] ", args, CRLF. */
    size_t cap = 64 + strlen(where) + (size_t)c->argc;
    for (int i = 0; i < c->argc; i++)
        cap += REPR_MAX(c->argv[i].len);
    char *line = xmalloc(cap);
    int64_t now = ustime();
    int n = snprintf(line, cap, "+%lld.%06lld [%d %s%s] ", (long long)(now / 1000000),
                     (long long)(now % 1000000), c->db_index,
                     (c->flags & CLIENT_UNIX) ? "unix:" : "", where);
    size_t used = n < 0 ? 0 : (size_t)n;
    for (int i = 0; i < c->argc; i++) {
        used += repr_write(line + used, c->argv[i].ptr, c->argv[i].len);
        if (i != c->argc - 1)
            line[used++] = ' ';
    }
    line[used++] = '\r';
    line[used++] = '\n';
    for (size_t i = 0; i < nmonitors; i++) {
        struct client *m = monitors[i];
        if (m->flags & CLIENT_CLOSING)
            continue;
        resp_add_raw(&m->out, line, used);
        conn_check_output_limits(m);
    }
    xfree(line);
    if (!send_on) {
        uv_check_start(&send_check, send_cb);
        send_on = 1;
    }
}
