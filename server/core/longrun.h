/*
 * longrun.h - the long-running command hook (longrun.c): a command that
 * serves the loop from inside itself while it runs, a busy script.
 *
 * Scripting is above core, so it registers its answers here at start
 * (script_init), as data/keyspace.h's ks_on_change; the dispatcher, eviction
 * and the cron read them through the pointer, one predictable branch. Unset,
 * no such command ever runs.
 */
#ifndef RBKV_LONGRUN_H
#define RBKV_LONGRUN_H

#include <stdint.h>

struct long_run {
    int (*running)(void);   /* one runs now (cron, expiry and eviction wait) */
    int (*timed_out)(void); /* past busy-reply-threshold: only CMD_ALLOW_BUSY runs beside it */
    const char *(*busy_reply)(void);   /* the -BUSY error the others get */
    int64_t (*time_snapshot_ms)(void); /* the clock its own commands all see */
};

/* The client a long-running command's own commands run as (the script
 * client): command_call gives them time_snapshot_ms's clock. */
#define CLIENT_ID_LONG_RUN UINT64_MAX

/* What script_init registered, or NULL: read directly on the dispatcher's
 * path. */
extern const struct long_run *long_run;
/* hooks must outlive the server; NULL unsets. */
void long_run_register(const struct long_run *hooks);
/* Whether a long-running command runs now (0 when none is registered). */
int long_run_active(void);

#endif
