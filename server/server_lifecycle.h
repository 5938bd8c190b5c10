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

#endif
