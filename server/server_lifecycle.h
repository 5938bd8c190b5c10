/*
 * server_lifecycle.h - start, run and stop the one server (server.c).
 */
#ifndef RBKV_SERVER_LIFECYCLE_H
#define RBKV_SERVER_LIFECYCLE_H

/* Creates the keyspace, listeners, signals and timers from server.cfg.
 * Returns 0, or -1 after logging why. */
int server_start(void);
/* Runs the loop until shutdown. */
void server_run(void);
/* Stops accepting, sends pending replies as far as possible, closes every
 * client and handle; the loop then ends. Safe to call twice. */
void server_shutdown(void);
/* Frees what server_start made. */
void server_cleanup(void);
/* As Redis's adjustOpenFilesLimit(), at start and when CONFIG SET raises
 * maxclients: raises RLIMIT_NOFILE to maxclients plus a reserve. When the
 * system refuses, takes the most it allows and lowers maxclients to fit, with
 * log lines, so that a client over the real limit gets "max number of clients
 * reached" rather than a failed accept; then returns -1, else 0. */
int server_adjust_open_files_limit(void);

#endif
