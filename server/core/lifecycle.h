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
};
void server_add_module(const struct server_module *m);
/* Runs the loop until shutdown. */
void server_run(void);
/* Stops accepting, sends pending replies as far as possible, closes every
 * client and handle; the loop then ends. Safe to call twice. */
void server_shutdown(void);
/* Frees what server_init and server_serve made. */
void server_cleanup(void);

#endif
