/*
 * watch.c - WATCH's table of watched keys (see watch.h for what it owns).
 *
 * Layout: one struct watched_key per (db, key) that at least one client
 * watches, in a chained hash table (server.watch) hashed with the db's own
 * seeded key hash, so colliding keys cost an attacker as much as in the
 * keyspace. Each (client, key) pair is one struct watcher, linked both in the
 * key's list (touching walks it) and in the client's list (unwatching walks
 * it). The table is created by the first WATCH and freed when its last key
 * goes, so a server nobody WATCHes pays one NULL test per write.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "clock.h"
#include "command.h"
#include "keyspace.h"
#include "mem.h"
#include "server.h"
#include "watch.h"

#define WATCH_MIN_SLOTS 16 /* power of two */

struct watched_key {
    struct watched_key *chain;   /* next in the hash slot */
    struct watcher *watchers;    /* never empty while linked */
    uint64_t hash;
    struct db *db;
    size_t klen;
    char key[];
};

struct watcher {
    struct watcher *key_prev, *key_next; /* in wk->watchers */
    struct watcher *client_next;         /* in client->watching */
    struct watched_key *wk;
    struct client *client;
    int was_live;                        /* the key existed, unexpired, at WATCH */
};

struct watch_table {
    struct watched_key **slots;
    size_t mask;                 /* slot count - 1 */
    size_t count;                /* watched keys */
};

static struct watched_key **slot_of(struct watch_table *t, uint64_t hash)
{
    return &t->slots[hash & t->mask];
}

static struct watched_key *find_key(struct db *db, const char *key, size_t klen, uint64_t hash)
{
    struct watch_table *t = server.watch;
    if (!t)
        return NULL;
    for (struct watched_key *wk = *slot_of(t, hash); wk; wk = wk->chain) {
        if (wk->hash == hash && wk->db == db && wk->klen == klen && memcmp(wk->key, key, klen) == 0)
            return wk;
    }
    return NULL;
}

/* Doubles the slots once keys outnumber them, keeping chains short. */
static void grow(struct watch_table *t)
{
    size_t n = (t->mask + 1) * 2;
    struct watched_key **slots = xcalloc(n, sizeof(*slots));
    for (size_t i = 0; i <= t->mask; i++) {
        struct watched_key *next;
        for (struct watched_key *wk = t->slots[i]; wk; wk = next) {
            next = wk->chain;
            wk->chain = slots[wk->hash & (n - 1)];
            slots[wk->hash & (n - 1)] = wk;
        }
    }
    xfree(t->slots);
    t->slots = slots;
    t->mask = n - 1;
}

static struct watched_key *add_key(struct db *db, const char *key, size_t klen, uint64_t hash)
{
    struct watch_table *t = server.watch;
    if (!t) {
        t = server.watch = xcalloc(1, sizeof(*t));
        t->slots = xcalloc(WATCH_MIN_SLOTS, sizeof(*t->slots));
        t->mask = WATCH_MIN_SLOTS - 1;
    }
    if (t->count > t->mask)
        grow(t);
    struct watched_key *wk = xmalloc(sizeof(*wk) + klen);
    wk->watchers = NULL;
    wk->hash = hash;
    wk->db = db;
    wk->klen = klen;
    memcpy(wk->key, key, klen);
    wk->chain = *slot_of(t, hash);
    *slot_of(t, hash) = wk;
    t->count++;
    return wk;
}

static void remove_key(struct watched_key *wk)
{
    struct watch_table *t = server.watch;
    struct watched_key **link = slot_of(t, wk->hash);
    while (*link != wk)
        link = &(*link)->chain;
    *link = wk->chain;
    xfree(wk);
    if (--t->count == 0) {
        xfree(t->slots);
        xfree(t);
        server.watch = NULL;
    }
}

void watch_key(struct client *c, struct db *db, const char *key, size_t klen)
{
    uint64_t hash = kix_hash(&db->index, key, klen);
    struct watched_key *wk = find_key(db, key, klen, hash);
    if (wk) {
        for (struct watcher *w = wk->watchers; w; w = w->key_next)
            if (w->client == c)
                return;
    } else {
        wk = add_key(db, key, klen, hash);
    }
    struct watcher *w = xmalloc(sizeof(*w));
    w->wk = wk;
    w->client = c;
    w->was_live = ks_lookup(db, key, klen, mstime()) != NULL;
    w->key_prev = NULL;
    w->key_next = wk->watchers;
    if (wk->watchers)
        wk->watchers->key_prev = w;
    wk->watchers = w;
    w->client_next = c->watching;
    c->watching = w;
}

void watch_unwatch_all(struct client *c)
{
    struct watcher *next;
    for (struct watcher *w = c->watching; w; w = next) {
        next = w->client_next;
        if (w->key_prev)
            w->key_prev->key_next = w->key_next;
        else
            w->wk->watchers = w->key_next;
        if (w->key_next)
            w->key_next->key_prev = w->key_prev;
        if (!w->wk->watchers)
            remove_key(w->wk);
        xfree(w);
    }
    c->watching = NULL;
    c->flags &= ~CLIENT_DIRTY_CAS;
}

static void mark_dirty(struct watched_key *wk)
{
    for (struct watcher *w = wk->watchers; w; w = w->key_next)
        w->client->flags |= CLIENT_DIRTY_CAS;
}

static watch_touch_fn *touch_hook;

void watch_on_touch(watch_touch_fn *fn)
{
    touch_hook = fn;
}

void watch_touch(struct db *db, const char *key, size_t klen)
{
    if (touch_hook)
        touch_hook(db, key, klen);
    if (!server.watch)
        return;
    struct watched_key *wk = find_key(db, key, klen, kix_hash(&db->index, key, klen));
    if (wk)
        mark_dirty(wk);
}

/* Touches every watched key of db for which holds(db, key) says so. */
static void touch_where(struct db *db, int (*holds)(const struct db *, const char *, size_t))
{
    struct watch_table *t = server.watch;
    if (!t)
        return;
    for (size_t i = 0; i <= t->mask; i++) {
        for (struct watched_key *wk = t->slots[i]; wk; wk = wk->chain) {
            if (wk->db == db && holds(db, wk->key, wk->klen))
                mark_dirty(wk);
        }
    }
}

static int holds_key(const struct db *db, const char *key, size_t klen)
{
    return ks_find(db, key, klen) != NULL;
}

void watch_touch_db(struct db *db)
{
    touch_where(db, holds_key);
}

void watch_touch_cut(struct db *db)
{
    touch_where(db, ks_cut_holds);
}

/* Whether key is in db and not past its deadline at now_ms. */
static int live_in(struct db *db, const char *key, size_t klen, int64_t now_ms)
{
    const struct ks_entry *e = ks_find(db, key, klen);
    if (!e)
        return 0;
    int64_t when = ks_get_expire(e);
    return when == -1 || when > now_ms;
}

void watch_touch_swap(struct db *a, struct db *b, int64_t now_ms)
{
    struct watch_table *t = server.watch;
    if (!t)
        return;
    for (size_t i = 0; i <= t->mask; i++) {
        for (struct watched_key *wk = t->slots[i]; wk; wk = wk->chain) {
            if ((wk->db == a || wk->db == b) &&
                (live_in(a, wk->key, wk->klen, now_ms) || live_in(b, wk->key, wk->klen, now_ms)))
                mark_dirty(wk);
        }
    }
}

void watch_touch_command(struct client *c, const struct command *cmd)
{
    /* Redis signals only the keys a command modified: a command that names
     * keys it may leave alone (a blocking pop names many and changes one,
     * SINTERSTORE reads its sources) touches what it changed itself. */
    if ((!server.watch && !touch_hook) || cmd->first_key <= 0 ||
        (cmd->flags & CMD_TOUCHES_OWN_KEYS))
        return;
    int last = cmd->last_key < 0 ? c->argc + cmd->last_key : cmd->last_key;
    int step = cmd->key_step > 0 ? cmd->key_step : 1;
    for (int i = cmd->first_key; i <= last && i < c->argc; i += step)
        watch_touch(c->db, c->argv[i].ptr, c->argv[i].len);
}

int watch_expired(const struct client *c)
{
    int64_t now = mstime();
    for (const struct watcher *w = c->watching; w; w = w->client_next) {
        if (!w->was_live)
            continue;
        const struct ks_entry *e = ks_find(w->wk->db, w->wk->key, w->wk->klen);
        if (!e)
            return 1;
        int64_t when = ks_get_expire(e);
        if (when != -1 && when <= now)
            return 1;
    }
    return 0;
}
