/*
 * migrate_link.c - MIGRATE's cache of connections (migrate_link.h).
 *
 * Owns the links and their sockets. A fixed array, searched in order: 64
 * names are compared faster than a hash is built, and MIGRATE is one call
 * per batch of keys. The cron closes idle links; the shutdown closes all.
 */
#include "migrate_link.h"

#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "fastrand.h"
#include "lifecycle.h"
#include "mem.h"
#include "migrate_tls.h"
#include "server.h"

static struct migrate_link *links[MIGRATE_LINKS_MAX];
static size_t nlinks;

static void link_free_at(size_t i)
{
    struct migrate_link *l = links[i];
    sync_conn_close(&l->conn);
    xfree(l->name);
    xfree(l);
    links[i] = links[--nlinks];
}

struct migrate_link *migrate_link_get(const char *host, size_t hlen, const char *port,
                                      size_t plen, long long timeout_ms)
{
    size_t len = hlen + 1 + plen;
    char *name = xmalloc(len + 1);
    memcpy(name, host, hlen);
    name[hlen] = ':';
    memcpy(name + hlen + 1, port, plen);
    name[len] = '\0';
    long long now = mstime();
    for (size_t i = 0; i < nlinks; i++) {
        if (strcmp(links[i]->name, name) == 0) {
            xfree(name);
            links[i]->last_use_ms = now;
            return links[i];
        }
    }
    if (nlinks == MIGRATE_LINKS_MAX)
        link_free_at(fastrand_below(nlinks));

    struct migrate_link *l = xmalloc(sizeof(*l));
    name[hlen] = '\0'; /* the host alone, for the resolver */
    if (sync_conn_open(&l->conn, name, (int)strtol(name + hlen + 1, NULL, 10), timeout_ms) < 0) {
        xfree(l);
        xfree(name);
        return NULL;
    }
    /* With tls-cluster yes the target is reached over TLS, as Redis 7.0's
     * migrateGetSocket does (a failed handshake fails as a connect). */
    if (server.cfg.tls_cluster && migrate_tls_start(&l->conn, timeout_ms) < 0) {
        sync_conn_close(&l->conn);
        xfree(l);
        xfree(name);
        return NULL;
    }
    name[hlen] = ':';
    l->name = name;
    l->last_dbid = -1;
    l->last_use_ms = now;
    links[nlinks++] = l;
    return l;
}

void migrate_link_close(struct migrate_link *l)
{
    for (size_t i = 0; i < nlinks; i++) {
        if (links[i] == l) {
            link_free_at(i);
            return;
        }
    }
}

size_t migrate_link_count(void)
{
    return nlinks;
}

static void links_cron(void)
{
    long long now = mstime();
    for (size_t i = nlinks; i-- > 0;)
        if (now - links[i]->last_use_ms > MIGRATE_LINK_IDLE_S * 1000LL)
            link_free_at(i);
}

static void links_close_all(void)
{
    while (nlinks)
        link_free_at(nlinks - 1);
}

void migrate_link_init(void)
{
    static const struct server_module module = {.cron = links_cron,
                                                .stopped = links_close_all};
    server_add_module(&module);
}
