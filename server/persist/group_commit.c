/*
 * group_commit.c - when a batch's replies may go, and the one sync at the
 * loop turn's end that lets the held ones go (group_commit.h).
 *
 * A check handle runs after the turn's I/O callbacks, once per turn in
 * which a batch fed the log under `always`; the idle handle keeps the loop
 * from blocking in poll while replies wait for it.
 */
#include "group_commit.h"

#include <uv.h>

#include "aof.h"
#include "server.h"

static uv_check_t turn_end;
static uv_idle_t keep_polling;
static int handles_open;
static group_commit_synced_fn *synced;

static void keep_polling_cb(uv_idle_t *h)
{
    (void)h;
}

static void turn_end_cb(uv_check_t *h)
{
    (void)h;
    synced(group_commit_sync() < 0);
}

void group_commit_init(group_commit_synced_fn *synced_fn)
{
    synced = synced_fn;
    uv_check_init(server.loop, &turn_end);
    uv_idle_init(server.loop, &keep_polling);
    handles_open = 1;
}

void group_commit_close(void)
{
    if (!handles_open)
        return;
    uv_close((uv_handle_t *)&turn_end, NULL);
    uv_close((uv_handle_t *)&keep_polling, NULL);
    handles_open = 0;
}

unsigned long long group_commit_mark(void)
{
    return aof_fed_count();
}

int group_commit_after(unsigned long long mark)
{
    int fed = aof_fed_count() != mark;
    if (fed && aof_sync_always() && handles_open) {
        uv_check_start(&turn_end, turn_end_cb);
        uv_idle_start(&keep_polling, keep_polling_cb);
        return 1;
    }
    return aof_flush_before_reply() < 0 && fed ? -1 : 0;
}

int group_commit_sync(void)
{
    if (handles_open) {
        uv_check_stop(&turn_end);
        uv_idle_stop(&keep_polling);
    }
    return aof_flush_before_reply() < 0 ? -1 : 0;
}
