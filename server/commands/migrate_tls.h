/*
 * migrate_tls.h - MIGRATE's connection to its target over TLS
 * (migrate_tls.c): with tls-cluster yes Redis 7.0 opens it with TLS, so the
 * target's tls-port (the one the cluster announces) answers.
 */
#ifndef RBKV_MIGRATE_TLS_H
#define RBKV_MIGRATE_TLS_H

struct sync_conn;

/* Puts TLS (core's tls.h, the server's context, as a replica's link) under
 * c, just opened, and completes the handshake within timeout_ms. 0, or -1
 * with errno and the reason logged; c must then be closed (sync_conn_close
 * frees the TLS state either way). */
int migrate_tls_start(struct sync_conn *c, long long timeout_ms);

#endif
