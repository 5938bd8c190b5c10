/*
 * wiring.h - the server's start-up wiring (wiring.c): the layers put
 * together, above all of them, beside main.c.
 */
#ifndef RBKV_WIRING_H
#define RBKV_WIRING_H

/* Starts the server from server.cfg: core (server_init), the subsystems
 * above it (scripting, replication, with the hooks they register), the
 * dataset's load from the append-only log or the snapshot, then core's
 * listeners and timers (server_serve) and a replica's link. Returns 0, or -1
 * after logging why (the caller then runs server_shutdown and
 * server_cleanup). */
int wiring_start(void);

#endif
