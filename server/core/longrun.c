/*
 * longrun.c - the long-running command hook's one pointer (longrun.h). A
 * file of its own so that eviction and the cron, which the dispatcher calls,
 * can ask it without calling the dispatcher back.
 */
#include "longrun.h"

#include <stddef.h>

const struct long_run *long_run;

void long_run_register(const struct long_run *hooks)
{
    long_run = hooks;
}

int long_run_active(void)
{
    return long_run && long_run->running();
}
