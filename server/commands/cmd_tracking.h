/*
 * cmd_tracking.h - CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO
 * (cmd_tracking.c): the rows cmd_connection.c puts among CLIENT's
 * subcommands, kept here beside their handlers.
 */
#ifndef RBKV_CMD_TRACKING_H
#define RBKV_CMD_TRACKING_H

#include "command.h"

void client_tracking(struct client *c);
void client_caching(struct client *c);
void client_getredir(struct client *c);
void client_trackinginfo(struct client *c);

/* Redis 7.0's rows: flags and arity (their docs are Redis's, redis_docs.c). */
#define CLIENT_TRACKING_SUBCOMMANDS                                                               \
    {.name = "client|tracking", .proc = client_tracking, .arity = -3,                             \
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},                     \
    {.name = "client|caching", .proc = client_caching, .arity = 3,                                \
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},                     \
    {.name = "client|getredir", .proc = client_getredir, .arity = 2,                              \
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"},                     \
    {.name = "client|trackinginfo", .proc = client_trackinginfo, .arity = 2,                      \
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "connection"}

#endif
