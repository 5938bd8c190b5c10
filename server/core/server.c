/*
 * server.c - the one struct server, the state every part of the server
 * reads (server.h), and the two services below the server's lifetime that
 * lower layers call: the open-files limit and a forked child's closing of
 * the listening sockets.
 *
 * It calls nothing of core, so reading `server` ties no file into a cycle;
 * the lifetime that starts and stops everything is lifecycle.c's.
 */
#include "server.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "log.h"

struct server server;

/* The transport's and the cluster bus's: one each. */
#define CHILD_CLOSERS 4
static void (*child_closers[CHILD_CLOSERS])(void);
static int child_closer_count;

void server_on_child_close(void (*fn)(void))
{
    if (child_closer_count == CHILD_CLOSERS) {
        log_warning("Too many listener closers for fork children; raise CHILD_CLOSERS");
        abort();
    }
    child_closers[child_closer_count++] = fn;
}

void server_child_close_listeners(void)
{
    for (int i = 0; i < child_closer_count; i++)
        child_closers[i]();
}

/* File descriptors kept for listeners, the log, snapshots and the like, as
 * Redis's CONFIG_MIN_RESERVED_FDS. */
#define RESERVED_FDS 32

int server_adjust_open_files_limit(void)
{
    struct rlimit rl;
    rlim_t want = (rlim_t)server.cfg.maxclients + RESERVED_FDS;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
        log_warning("Unable to obtain the current NOFILE limit (%s), assuming 1024 and setting "
                    "the max clients configuration accordingly.", strerror(errno));
        server.cfg.maxclients = 1024 - RESERVED_FDS;
        return -1;
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
        return 0;
    rlim_t old = rl.rlim_cur;
    rlim_t best = want;
    int err = 0;
    /* Try the wanted limit, then less and less, as Redis does. */
    while (best > old) {
        rl.rlim_cur = best;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < best)
            rl.rlim_max = best; /* only a privileged process may raise it */
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
            break;
        err = errno;
        getrlimit(RLIMIT_NOFILE, &rl);
        if (rl.rlim_max != RLIM_INFINITY && best > rl.rlim_max) {
            best = rl.rlim_max; /* the hard limit, if it is above what we had */
            continue;
        }
        best = best > 16 ? best - 16 : old;
    }
    if (best <= old)
        best = old;
    if (best < want) {
        long long reduced = (long long)best - RESERVED_FDS;
        log_warning("You requested maxclients of %lld requiring at least %llu max file "
                    "descriptors.", server.cfg.maxclients, (unsigned long long)want);
        log_warning("Server can't set maximum open files to %llu because of OS error: %s.",
                    (unsigned long long)want, strerror(err ? err : EPERM));
        if (reduced < 1) {
            log_warning("Your current 'ulimit -n' of %llu is not enough for the server to start. "
                        "Please increase your open file limit to at least %llu. Exiting.",
                        (unsigned long long)old, (unsigned long long)want);
            exit(1);
        }
        server.cfg.maxclients = reduced;
        log_warning("Current maximum open files is %llu. maxclients has been reduced to %lld to "
                    "compensate for low ulimit. If you need higher maxclients increase "
                    "'ulimit -n'.", (unsigned long long)best, reduced);
        return -1;
    }
    log_notice("Increased maximum number of open files to %llu (it was originally set to %llu).",
               (unsigned long long)want, (unsigned long long)old);
    return 0;
}
