/*
 * lifecycle.h - the server's lifetime (lifecycle.c): core's start in two
 * steps, the loop, the shutdown, and the subsystems above core as the
 * cron and the shutdown see them.
 */
#ifndef RBKV_LIFECYCLE_H
#define RBKV_LIFECYCLE_H

/* Core's start, in two steps around what the start-up wiring (wiring.c)
 * adds between them (the subsystems above core, the dataset's load):
 * server_init makes the loop, the command table, TLS, ACLs, the keyspace
 * and core's modules, with their hooks; server_serve the propagation hook,
 * the listeners, signals and timers. Each returns 0, or -1 after logging
 * why. */
int server_init(void);
int server_serve(void);

/* A subsystem above core, as the server's lifetime runs it (replication/
 * registers its own, repl_init): each member may be NULL, and they run in
 * the order registered. m must outlive the server; registering it again
 * does nothing. */
struct server_module {
    void (*cron)(void);        /* every cron tick, after core's own */
    void (*close_links)(void); /* shutdown: before the clients are closed */
    void (*shutdown)(void);    /* shutdown: after the clients are closed */
    void (*stopped)(void);     /* shutdown: last, before the log closes */
    int (*owns_child)(int pid); /* a fork of its own, which reap_orphans leaves to it */
    /* A shutdown's wait for replicas (shutdown-timeout): how many attached
     * replicas have not acknowledged this server's whole stream yet, each
     * logged with its lag when log is 1; and asking them to acknowledge. */
    int (*replicas_behind)(int log, int *total);
    void (*ask_acks)(void);
};
void server_add_module(const struct server_module *m);
/* Runs the loop until shutdown. */
void server_run(void);
struct client;
/* SHUTDOWN and SIGTERM/SIGINT (flags: SHUTDOWN_FLAG_ bits of config.h), as
 * Redis 7.0's prepareForShutdown: unless NOW, shutdown-timeout is 0 or
 * every replica has acknowledged the whole stream, writes are paused, the
 * replicas asked for an ACK, and the shutdown waits (c, when not NULL, blocked
 * until it ends) for them to catch up or the timeout, checked by the cron;
 * then saves as flags say and shuts down. Returns 0 when the shutdown went
 * ahead or waits, -1 when it failed (a save failed without FORCE: c got
 * Redis's error, the server stays up) or one is already waiting (c then
 * waits for it too). */
int server_request_shutdown(int flags, struct client *c);
/* SHUTDOWN ABORT: cancels a waiting shutdown, its clients answered with an
 * error, writes resumed. Returns 0, or -1 when none waits. */
int server_abort_shutdown(void);
/* Stops accepting, sends pending replies as far as possible, closes every
 * client and handle; the loop then ends. Safe to call twice. */
void server_shutdown(void);
/* Frees what server_init and server_serve made. */
void server_cleanup(void);

#endif
