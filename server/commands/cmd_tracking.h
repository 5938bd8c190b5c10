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

/* Redis 7.0's rows: flags, arity, docs. */
#define CLIENT_TRACKING_SUBCOMMANDS                                                               \
    {.name = "client|tracking", .proc = client_tracking, .arity = -3,                            \
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,                                             \
     .group = "connection", .since = "6.0.0",                                                     \
     .summary = "Enable or disable server assisted client side caching support",                  \
     .complexity = "O(1). Some options may introduce additional complexity.",                    \
     .args = "ON|OFF [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]] [BCAST] [OPTIN] "   \
             "[OPTOUT] [NOLOOP]"},                                                                \
    {.name = "client|caching", .proc = client_caching, .arity = 3,                               \
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,                                             \
     .group = "connection", .since = "6.0.0",                                                     \
     .summary = "Instruct the server about tracking or not keys in the next request",             \
     .complexity = "O(1)",                                                                        \
     .args = "YES|NO"},                                                                           \
    {.name = "client|getredir", .proc = client_getredir, .arity = 2,                             \
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,                                             \
     .group = "connection", .since = "6.0.0",                                                     \
     .summary = "Get tracking notifications redirection client ID if any",                        \
     .complexity = "O(1)",                                                                        \
     .args = ""},                                                                                 \
    {.name = "client|trackinginfo", .proc = client_trackinginfo, .arity = 2,                     \
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,                                             \
     .group = "connection", .since = "6.2.0",                                                     \
     .summary = "Return information about server assisted client side caching for the current "  \
                "connection",                                                                     \
     .complexity = "O(1)",                                                                        \
     .args = ""}

#endif
