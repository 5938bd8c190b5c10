/*
 * harness_cluster.h - cluster-mode nodes for the end-to-end tests
 * (harness_cluster.c): an rbkv or redis-server 7.0.15 node started with
 * cluster-enabled, its bus on a free port, stopped, killed and restarted
 * in its dir (nodes.conf kept); a reply's text; redis-cli's exit status.
 */
#ifndef RBKV_HARNESS_CLUSTER_H
#define RBKV_HARNESS_CLUSTER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "harness.h"

struct h_node {
    struct h_server s;
    char bus_port[8];
    int redis; /* a redis-server 7.0.15 */
    redisContext *c;
};

/* Starts n in cluster mode (redis: a redis-server), cluster-node-timeout
 * timeout_ms times H_SLOW, its bus on a free port (the client port + 10000
 * may not fit), no append-only log; an rbkv node has a config file
 * (server.conf), for CONFIG REWRITE. Returns 0, 1 when there is no
 * redis-server to start (skip), -1 on failure. */
int h_node_start(struct h_node *n, int redis, int timeout_ms);
/* Starts n again in its dir (nodes.conf and snapshot kept), on new ports. */
int h_node_restart(struct h_node *n, int timeout_ms);
void h_node_stop(struct h_node *n);
/* SIGKILL, then waits for the process to go. */
void h_node_kill(struct h_node *n);
/* argv sent to c, following -MOVED (twice at most) to the node of
 * nodes[0..n) it names, as a cluster client does. The reply (the caller
 * frees it), or NULL when it names none of them. */
redisReply *h_cluster_call(struct h_node *nodes, int n, redisContext *c, int argc,
                           const char *const *argv, const size_t *lens);
/* A reply's text (status, bulk or verbatim), copied into out; "" else. */
void h_call_text(redisContext *c, char *out, size_t cap, const char *fmt, ...);
/* CLUSTER MYID into id (41 bytes). */
void h_node_id(struct h_node *n, char *id);
/* Whether n's CLUSTER INFO says cluster_state:ok. */
int h_cluster_ok(struct h_node *n);
/* `redis-cli <fmt ...>`'s exit status, its output (stdout and stderr) in
 * out; stdin is empty, so a question it asks gets no answer. */
int h_redis_cli(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Starts redis-cli with args (words split at spaces) in the background,
 * its output (stdout and stderr) into path, stdin empty. Its pid, or -1. */
pid_t h_redis_cli_spawn(const char *path, const char *args);

/* Starts n rbkv nodes (cluster-node-timeout timeout_ms), makes them one
 * cluster of n primaries with `redis-cli --cluster create` and waits until
 * each says cluster_state:ok. Returns 1, or 0 after a failed CHECK. */
int h_cluster_create(struct h_node *nodes, int n, int timeout_ms);
/* The same with redis-server 7.0.15 nodes when redis is set; -1 (a skip)
 * when there is no redis-server to start. */
int h_cluster_create_of(struct h_node *nodes, int n, int redis, int timeout_ms);
/* Stops the nodes h_cluster_create started and removes their dirs. */
void h_cluster_destroy(struct h_node *nodes, int n);
/* h_cluster_create, then a standalone rbkv node, the model the tests
 * compare the cluster with, and *mc a client of it. Returns 1, or 0 after
 * a failed CHECK (h_cluster_model_down still cleans up). */
int h_cluster_model_up(struct h_node *nodes, int n, int timeout_ms, struct h_server *model,
                       redisContext **mc);
/* Stops the cluster (h_cluster_destroy) and the model; *mc becomes NULL. */
void h_cluster_model_down(struct h_node *nodes, int n, struct h_server *model, redisContext **mc);
/* The next of a xorshift sequence in *state (never 0), for the random
 * tests' SEED. */
uint64_t h_xorshift(uint64_t *state);
/* A number in [0, n) from the sequence. */
int h_rand_below(uint64_t *state, int n);
/* 1 to maxlen bytes of alphabet, NUL-terminated, into out. */
void h_rand_word(uint64_t *state, const char *alphabet, int maxlen, char *out);

#endif
