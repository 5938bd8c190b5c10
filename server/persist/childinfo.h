/*
 * childinfo.h - forking a BGSAVE or BGREWRITEAOF child and what it tells
 * its parent when it is done (prefix child_info_): the copy-on-write its
 * run cost, as Redis's child info pipe reports rdb_last_cow_size and
 * aof_last_cow_size, and fork()'s own figures (INFO's latest_fork_usec,
 * total_forks).
 *
 * Owns: each child's pipe (one end per process) and the fork counters.
 * Knows nothing of what the child writes.
 */
#ifndef RBKV_CHILDINFO_H
#define RBKV_CHILDINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct child_info {
    int fd;           /* parent: the read end; child: the write end; -1 when none */
    pid_t pid;        /* in the parent: the child, 0 when none */
    int64_t start_ms; /* when it forked (wall clock, ms) */
    /* The child's copy-on-write as last read from /proc, off the loop
     * (child_info_current_cow): the bytes, when (mstime, 0 = never), and
     * whether a read is on a worker now. */
    size_t cow_bytes;
    int64_t cow_ms;
    int cow_reading;
};

/* fork() with a pipe from child to parent. Returns as fork() does (-1 with
 * errno, 0 in the child, the child's pid in the parent). Without a pipe
 * (out of fds) the child still runs and reports nothing. */
pid_t child_info_fork(struct child_info *ci);
/* What a child does first, set by the server above (process.c: the OOM
 * score of a background child, Redis's CONFIG_OOM_BGCHILD); NULL: nothing. */
void child_info_on_start(void (*fn)(void));
/* In a child just forked: runs that. child_info_fork calls it; a fork of
 * another layer's own (a full sync's) calls it too. */
void child_info_child_started(void);
/* In the child, just before _exit: sends its Private_Dirty bytes. */
void child_info_send(struct child_info *ci);
/* In the parent, once the child is reaped or killed: the copy-on-write bytes
 * it sent (0 when it sent none: killed, or no pipe); closes the pipe. */
size_t child_info_receive(struct child_info *ci);
/* In the parent while the child runs: its copy-on-write as last read from
 * /proc (Redis's current_cow_size), or 0 before the first read. The read
 * walks the child's page tables (0.1 s and more for a child of a few hundred
 * MB on a loaded machine), so it runs on a libuv worker, at most once a
 * second, started by this call; *age_s (may be NULL) gets the figure's age
 * in seconds, as Redis's current_cow_size_age. ci must stay valid (a static
 * struct) until the read ends. */
size_t child_info_current_cow(struct child_info *ci, long long *age_s);

/* Counts a fork made by another layer (a full sync's child) that returned
 * in the parent: its time from start_us (ustime) to now. */
void child_info_forked(int64_t start_us);
/* How long the last fork() took, in µs, and how many forks there were. */
long long child_info_latest_fork_usec(void);
unsigned long long child_info_total_forks(void);
/* CONFIG RESETSTAT. */
void child_info_reset_stats(void);

#endif
