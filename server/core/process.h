/*
 * process.h - the process's face to the system, as Redis 7.0 shows it
 * (process.c): the pid file, readiness and stopping told to a supervisor
 * (supervised systemd / upstart / auto), syslog, the kernel OOM killer's
 * score (oom-score-adj) and the title ps shows (set-proc-title).
 */
#ifndef RBKV_PROCESS_H
#define RBKV_PROCESS_H

/* First thing in main: keeps the command line's memory, where the title
 * goes, moving the environment out of it (as setproctitle does). argv
 * stays readable until process_start. */
void process_keep_argv(int argc, char **argv);
/* At start, once the configuration is read: syslog, the pid file and the
 * OOM score. Failures are logged, never fatal, as in Redis. */
void process_start(void);
/* Once the data is loaded and the listeners are up: READY=1 to systemd, or
 * SIGSTOP to upstart. */
void process_ready(void);
/* Under systemd: a STATUS= line with text (a replica's sync done, as Redis
 * 7.0 says it); nothing otherwise. */
void process_status(const char *text);
/* From the cron: the OOM score and the title follow the role and the
 * settings. */
void process_update(void);
/* At shutdown: STOPPING=1 to systemd, the pid file removed. */
void process_stopping(void);
/* Last, after the loop closed: frees the environment's copy and the title's
 * strings (nothing reads the environment after it). */
void process_release(void);

#endif
