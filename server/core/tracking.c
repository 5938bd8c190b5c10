/*
 * tracking.c - client-side caching (see tracking.h for what it owns).
 *
 * Layout:
 * - clients: the struct tracking_client of every client that ever turned
 *   tracking on, in an array ordered by id (found by binary search from the
 *   ids the table holds; changed only by CLIENT TRACKING and disconnects).
 * - table: one struct tracked_key per key some client read, in a chained
 *   hash table seeded as the keyspace's, each holding the sorted ids of its
 *   readers. Ids of clients that stopped tracking stay until the key is
 *   invalidated (Redis's lazy cleanup), so turning tracking off costs O(1).
 * - prefixes: one struct prefix per distinct BCAST prefix, in an rbtree
 *   ordered by bytes. p->up is the longest other registered prefix that
 *   starts p. The registered prefixes of a key K all start the longest one,
 *   L, and L starts K's predecessor P in the tree (anything between L and K
 *   in byte order starts with L), so L is P or one of P's ups: the walk is
 *   one tree search plus a few up links.
 * - queued: the keys written this loop turn under some prefix (each once per
 *   write, with its writer's id for NOLOOP), and for each prefix the indexes
 *   of its keys; the turn's end sorts them into each prefix's message.
 *
 * Messages go into the clients' output at once (the running client's own
 * wait for its reply, as Redis's tracking_pending_keys, so a push never
 * lands inside a reply), and BCAST's at the loop turn's end; both are sent
 * from a prepare handle, which runs before the loop next polls, as Redis's
 * beforeSleep: a client's next request never overtakes a message owed to
 * it (a check handle started from another check callback would run only
 * after the next poll).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "command.h"
#include "conn.h"
#include "fastrand.h"
#include "keyspace.h"
#include "keyspec.h"
#include "longrun.h"
#include "mem.h"
#include "pubsub.h"
#include "rbtree.h"
#include "server.h"
#include "tracking.h"
#include "watch.h"

#define TABLE_MIN_SLOTS 16 /* power of two */

struct prefix;

struct tracking_client {
    struct client *c;
    unsigned flags;
    uint64_t redirect;
    struct prefix **prefixes; /* BCAST: its prefixes, in byte order */
    size_t nprefixes;
};

struct tracked_key {
    struct tracked_key *chain;
    uint64_t hash;
    uint64_t *ids; /* sorted */
    size_t nids, cap;
    size_t klen;
    char key[];
};

struct prefix {
    struct rb_node node;
    struct prefix *up;                /* longest registered prefix of this one, or NULL */
    struct tracking_client **clients; /* BCAST clients registered for it */
    size_t nclients;
    size_t *queued;                   /* indexes into queued_keys written this turn */
    size_t nqueued, queued_cap;
    int listed;                       /* in dirty_prefixes */
    size_t len;
    char bytes[];
};

struct queued_key {
    uint64_t writer; /* the client that wrote it (0: none), for NOLOOP */
    size_t klen;
    char *key;
};

static struct {
    struct tracking_client **clients; /* ordered by c->id */
    size_t nclients, clients_cap;
    size_t on;                        /* with TRACKING_ON */
    size_t redirecting;               /* with TRACKING_ON and a redirect */

    struct kix hasher;                /* never holds entries: its secret seed hashes keys */
    struct tracked_key **slots;       /* NULL until a key is remembered */
    size_t mask, nkeys, nitems;
    unsigned limit_misses;            /* turns the max-keys effort fell short */

    struct rb_root prefixes;
    size_t nprefixes;
    struct queued_key *queued_keys;
    size_t nqueued, queued_cap;
    struct prefix **dirty_prefixes;
    size_t ndirty, dirty_cap;

    struct client *current;           /* whose request runs now */
    struct pending {                  /* current's own invalidations, sent after its reply */
        char *key;                    /* NULL: a flush */
        size_t klen;
    } *pending;
    size_t npending, pending_cap;

    struct client **to_send;          /* clients given output this turn */
    size_t nto_send, to_send_cap;
    uv_prepare_t turn_end;
    int turn_end_on;
} t;

static void *grow_array(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap * 2 : 8;
    while (n < need)
        n *= 2;
    *cap = n;
    return xrealloc(p, n * size);
}

/* ---- clients by id ---- */

static size_t client_slot(uint64_t id)
{
    size_t lo = 0, hi = t.nclients;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t.clients[mid]->c->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct tracking_client *client_by_id(uint64_t id)
{
    size_t i = client_slot(id);
    return i < t.nclients && t.clients[i]->c->id == id ? t.clients[i] : NULL;
}

static struct tracking_client *state_of(struct client *c)
{
    if (c->tracking)
        return c->tracking;
    struct tracking_client *tc = xcalloc(1, sizeof(*tc));
    tc->c = c;
    size_t i = client_slot(c->id);
    t.clients = grow_array(t.clients, &t.clients_cap, t.nclients + 1, sizeof(*t.clients));
    memmove(&t.clients[i + 1], &t.clients[i], (t.nclients - i) * sizeof(*t.clients));
    t.clients[i] = tc;
    t.nclients++;
    c->tracking = tc;
    return tc;
}

unsigned tracking_flags(const struct client *c)
{
    return c->tracking ? c->tracking->flags : 0;
}

uint64_t tracking_redirect(const struct client *c)
{
    return c->tracking ? c->tracking->redirect : 0;
}

size_t tracking_prefix_count(const struct client *c)
{
    return c->tracking ? c->tracking->nprefixes : 0;
}

const char *tracking_prefix(const struct client *c, size_t i, size_t *len)
{
    const struct prefix *p = c->tracking->prefixes[i];
    *len = p->len;
    return p->bytes;
}

int tracking_prefixes_overlap(const char *a, size_t alen, const char *b, size_t blen)
{
    return memcmp(a, b, alen < blen ? alen : blen) == 0;
}

int tracking_may_push(const struct client *c)
{
    return t.redirecting || (tracking_flags(c) & TRACKING_ON);
}

size_t tracking_clients(void) { return t.on; }
size_t tracking_total_keys(void) { return t.nkeys; }
size_t tracking_total_items(void) { return t.nitems; }
size_t tracking_total_prefixes(void) { return t.nprefixes; }

/* ---- sending ---- */

static void turn_end_cb(uv_prepare_t *h);

static void schedule_turn_end(void)
{
    if (!t.turn_end_on) {
        uv_prepare_start(&t.turn_end, turn_end_cb);
        t.turn_end_on = 1;
    }
}

/* c got output outside its own reply: it goes out at the turn's end. A
 * client may be listed more than once (sending it again costs a test);
 * only the last entry is compared, which catches a run of messages to one
 * client without a walk of the list per message. */
static void queue_send(struct client *c)
{
    if (conn_check_output_limits(c))
        return;
    if (t.nto_send && t.to_send[t.nto_send - 1] == c)
        return;
    t.to_send = grow_array(t.to_send, &t.to_send_cap, t.nto_send + 1, sizeof(*t.to_send));
    t.to_send[t.nto_send++] = c;
    schedule_turn_end();
}

/* The client tc's messages go to, or NULL when it redirects to a client
 * that is gone (then marked broken, and told so in RESP3, as Redis). */
static struct client *message_target(struct tracking_client *tc)
{
    if (!tc->redirect)
        return tc->c;
    struct client *r = conn_find(tc->redirect);
    if (r)
        return r;
    tc->flags |= TRACKING_BROKEN_REDIR;
    struct client *c = tc->c;
    if (c->out.proto == 3) {
        resp_add_push_len(&c->out, 2);
        resp_add_bulk(&c->out, "tracking-redir-broken", 21);
        resp_add_int(&c->out, (long long)tc->redirect);
        queue_send(c);
    }
    return NULL;
}

/* Sends tc one invalidation: of key (raw 0), or with the value already in
 * RESP (raw 1: a BCAST array of keys, or a flush's null). */
static void send_message(struct tracking_client *tc, const char *p, size_t len, int raw)
{
    struct client *target = message_target(tc);
    if (!target || (target->flags & CLIENT_CLOSING))
        return;
    struct resp_out *o = &target->out;
    if (o->proto == 3) {
        resp_add_push_len(o, 2);
        resp_add_bulk(o, "invalidate", 10);
    } else if (tc->redirect && pubsub_client_subscribed(target)) {
        resp_add_array_len(o, 3);
        resp_add_bulk(o, "message", 7);
        resp_add_bulk(o, "__redis__:invalidate", 20);
    } else {
        /* RESP2 has no pushes on a connection that is not subscribed. */
        return;
    }
    if (raw) {
        resp_add_raw(o, p, len);
    } else {
        resp_add_array_len(o, 1);
        resp_add_bulk(o, p, len);
    }
    queue_send(target);
}

/* A flush's invalidation: the null of tc's own protocol, as Redis, also
 * when it goes to a redirect client speaking the other. */
static void send_null(struct tracking_client *tc)
{
    if (tc->c->out.proto == 3)
        send_message(tc, "_\r\n", 3, 1);
    else
        send_message(tc, "$-1\r\n", 5, 1);
}

static void add_pending(const char *key, size_t klen)
{
    t.pending = grow_array(t.pending, &t.pending_cap, t.npending + 1, sizeof(*t.pending));
    t.pending[t.npending++] = (struct pending){key ? xmemdup(key, klen) : NULL, klen};
}

/* ---- the table ---- */

static uint64_t key_hash(const char *key, size_t klen)
{
    /* The keyspace's hash with a secret seed of our own: colliding keys
     * cost an attacker as much here as there. */
    return kix_hash(&t.hasher, key, klen);
}

static struct tracked_key **find_link(const char *key, size_t klen, uint64_t hash)
{
    struct tracked_key **link = &t.slots[hash & t.mask];
    for (; *link; link = &(*link)->chain) {
        struct tracked_key *k = *link;
        if (k->hash == hash && k->klen == klen && memcmp(k->key, key, klen) == 0)
            break;
    }
    return link;
}

static void table_grow(void)
{
    size_t n = (t.mask + 1) * 2;
    struct tracked_key **slots = xcalloc(n, sizeof(*slots));
    for (size_t i = 0; i <= t.mask; i++) {
        struct tracked_key *next;
        for (struct tracked_key *k = t.slots[i]; k; k = next) {
            next = k->chain;
            k->chain = slots[k->hash & (n - 1)];
            slots[k->hash & (n - 1)] = k;
        }
    }
    xfree(t.slots);
    t.slots = slots;
    t.mask = n - 1;
}

static void remember_key(uint64_t id, const char *key, size_t klen)
{
    if (!t.slots) {
        t.slots = xcalloc(TABLE_MIN_SLOTS, sizeof(*t.slots));
        t.mask = TABLE_MIN_SLOTS - 1;
    }
    uint64_t hash = key_hash(key, klen);
    struct tracked_key **link = find_link(key, klen, hash);
    struct tracked_key *k = *link;
    if (!k) {
        if (t.nkeys > t.mask) {
            table_grow();
            link = find_link(key, klen, hash);
        }
        k = xcalloc(1, sizeof(*k) + klen);
        k->hash = hash;
        k->klen = klen;
        memcpy(k->key, key, klen);
        *link = k;
        t.nkeys++;
    }
    size_t lo = 0, hi = k->nids;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < k->nids && k->ids[lo] == id)
        return;
    k->ids = grow_array(k->ids, &k->cap, k->nids + 1, sizeof(*k->ids));
    memmove(&k->ids[lo + 1], &k->ids[lo], (k->nids - lo) * sizeof(*k->ids));
    k->ids[lo] = id;
    k->nids++;
    t.nitems++;
}

static void free_key(struct tracked_key *k)
{
    t.nitems -= k->nids;
    t.nkeys--;
    xfree(k->ids);
    xfree(k);
}

/* Unlinks the entry at link and sends its readers their invalidation. */
static void invalidate_entry(struct tracked_key **link)
{
    struct tracked_key *k = *link;
    *link = k->chain;
    for (size_t i = 0; i < k->nids; i++) {
        struct tracking_client *tc = client_by_id(k->ids[i]);
        /* One that stopped tracking, or went over to BCAST since it read
         * the key, is owed nothing. */
        if (!tc || (tc->flags & (TRACKING_ON | TRACKING_BCAST)) != TRACKING_ON)
            continue;
        if ((tc->flags & TRACKING_NOLOOP) && tc->c == t.current)
            continue;
        if (tc->c == t.current)
            add_pending(k->key, k->klen);
        else
            send_message(tc, k->key, k->klen, 0);
    }
    free_key(k);
}

static void table_clear(void)
{
    if (!t.slots)
        return;
    for (size_t i = 0; i <= t.mask; i++) {
        struct tracked_key *next;
        for (struct tracked_key *k = t.slots[i]; k; k = next) {
            next = k->chain;
            free_key(k);
        }
    }
    xfree(t.slots);
    t.slots = NULL;
    t.mask = 0;
}

/* ---- BCAST prefixes ---- */

/* The prefix of the tree at or before key (inclusive) in byte order, or NULL. */
static struct prefix *prefix_at_or_before(const char *key, size_t klen)
{
    struct rb_node *n = t.prefixes.rb_node;
    struct prefix *best = NULL;
    while (n) {
        struct prefix *p = rb_entry(n, struct prefix, node);
        int cmp = ks_keycmp(p->bytes, p->len, key, klen);
        if (cmp == 0)
            return p;
        if (cmp < 0) {
            best = p;
            n = n->rb_right;
        } else {
            n = n->rb_left;
        }
    }
    return best;
}

static int starts(const struct prefix *p, const char *key, size_t klen)
{
    return p->len <= klen && memcmp(p->bytes, key, p->len) == 0;
}

/* The longest registered prefix that starts key[0..klen), or NULL. */
static struct prefix *longest_prefix_of(const char *key, size_t klen)
{
    struct prefix *p = prefix_at_or_before(key, klen);
    while (p && !starts(p, key, klen))
        p = p->up;
    return p;
}

static struct prefix *prefix_add(const char *s, size_t len)
{
    struct rb_node **link = &t.prefixes.rb_node, *parent = NULL;
    while (*link) {
        struct prefix *q = rb_entry(*link, struct prefix, node);
        int cmp = ks_keycmp(s, len, q->bytes, q->len);
        if (cmp == 0)
            return q;
        parent = *link;
        link = cmp < 0 ? &(*link)->rb_left : &(*link)->rb_right;
    }
    struct prefix *p = xcalloc(1, sizeof(*p) + len);
    p->len = len;
    memcpy(p->bytes, s, len);
    p->up = longest_prefix_of(s, len);
    rb_link_node(&p->node, parent, link);
    rb_insert_color(&p->node, &t.prefixes);
    t.nprefixes++;
    /* The prefixes that p starts follow it; those whose longest prefix was
     * p's now have p. */
    for (struct rb_node *n = rb_next(&p->node); n; n = rb_next(n)) {
        struct prefix *q = rb_entry(n, struct prefix, node);
        if (!starts(p, q->bytes, q->len))
            break;
        if (q->up == p->up)
            q->up = p;
    }
    return p;
}

static void prefix_remove(struct prefix *p)
{
    for (struct rb_node *n = rb_next(&p->node); n; n = rb_next(n)) {
        struct prefix *q = rb_entry(n, struct prefix, node);
        if (!starts(p, q->bytes, q->len))
            break;
        if (q->up == p)
            q->up = p->up;
    }
    if (p->listed) {
        for (size_t i = 0; i < t.ndirty; i++) {
            if (t.dirty_prefixes[i] == p) {
                t.dirty_prefixes[i] = t.dirty_prefixes[--t.ndirty];
                break;
            }
        }
    }
    rb_erase(&p->node, &t.prefixes);
    t.nprefixes--;
    xfree(p->clients);
    xfree(p->queued);
    xfree(p);
}

static void bcast_subscribe(struct tracking_client *tc, const char *s, size_t len)
{
    struct prefix *p = prefix_add(s, len);
    for (size_t i = 0; i < p->nclients; i++)
        if (p->clients[i] == tc)
            return;
    size_t cap = p->nclients;
    p->clients = xrealloc(p->clients, (cap + 1) * sizeof(*p->clients));
    p->clients[p->nclients++] = tc;
    /* The client's own list stays in byte order (CLIENT TRACKINGINFO). */
    size_t i = tc->nprefixes;
    tc->prefixes = xrealloc(tc->prefixes, (tc->nprefixes + 1) * sizeof(*tc->prefixes));
    while (i > 0 && ks_keycmp(tc->prefixes[i - 1]->bytes, tc->prefixes[i - 1]->len, s, len) > 0) {
        tc->prefixes[i] = tc->prefixes[i - 1];
        i--;
    }
    tc->prefixes[i] = p;
    tc->nprefixes++;
}

static void bcast_unsubscribe_all(struct tracking_client *tc)
{
    for (size_t i = 0; i < tc->nprefixes; i++) {
        struct prefix *p = tc->prefixes[i];
        for (size_t j = 0; j < p->nclients; j++) {
            if (p->clients[j] == tc) {
                p->clients[j] = p->clients[--p->nclients];
                break;
            }
        }
        if (!p->nclients)
            prefix_remove(p);
    }
    xfree(tc->prefixes);
    tc->prefixes = NULL;
    tc->nprefixes = 0;
}

static void queue_for_prefixes(const char *key, size_t klen)
{
    struct prefix *p = longest_prefix_of(key, klen);
    if (!p)
        return;
    t.queued_keys = grow_array(t.queued_keys, &t.queued_cap, t.nqueued + 1, sizeof(*t.queued_keys));
    size_t idx = t.nqueued++;
    t.queued_keys[idx] = (struct queued_key){t.current ? t.current->id : 0, klen, xmemdup(key, klen)};
    for (; p; p = p->up) {
        p->queued = grow_array(p->queued, &p->queued_cap, p->nqueued + 1, sizeof(*p->queued));
        p->queued[p->nqueued++] = idx;
        if (!p->listed) {
            t.dirty_prefixes = grow_array(t.dirty_prefixes, &t.dirty_cap, t.ndirty + 1,
                                          sizeof(*t.dirty_prefixes));
            t.dirty_prefixes[t.ndirty++] = p;
            p->listed = 1;
        }
    }
    schedule_turn_end();
}

static int queued_cmp(const void *a, const void *b)
{
    const struct queued_key *x = &t.queued_keys[*(const size_t *)a];
    const struct queued_key *y = &t.queued_keys[*(const size_t *)b];
    int cmp = ks_keycmp(x->key, x->klen, y->key, y->klen);
    if (cmp)
        return cmp;
    /* Equal keys in write order: the last one names the last writer. */
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* A message being built: the RESP of a BCAST array. */
struct buf {
    char *p;
    size_t len, cap;
};

static void buf_append(struct buf *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->p = xrealloc(b->p, b->cap);
    }
    // NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker): b->p is set above when n > 0
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

/* "<type><n>\r\n", a RESP header. */
static void buf_header(struct buf *b, char type, size_t n)
{
    char head[32];
    int len = snprintf(head, sizeof(head), "%c%zu\r\n", type, n);
    buf_append(b, head, (size_t)len);
}

/* Whether the i-th of p's sorted keys counts for a client whose own writes
 * are skip's (NOLOOP; 0: none): of equal keys only the last written does,
 * with its last writer, as Redis keeps one entry per key. */
static int key_counts(const struct prefix *p, size_t i, uint64_t skip)
{
    const struct queued_key *k = &t.queued_keys[p->queued[i]];
    if (i + 1 < p->nqueued) {
        const struct queued_key *next = &t.queued_keys[p->queued[i + 1]];
        if (next->klen == k->klen && memcmp(next->key, k->key, k->klen) == 0)
            return 0;
    }
    return !skip || k->writer != skip;
}

/* Sets *b to the RESP array of p's keys that count for skip; returns their
 * number (0: b is left empty). */
static size_t build_keys(const struct prefix *p, uint64_t skip, struct buf *b)
{
    size_t n = 0;
    b->len = 0;
    for (size_t i = 0; i < p->nqueued; i++)
        n += (size_t)key_counts(p, i, skip);
    if (!n)
        return 0;
    buf_header(b, '*', n);
    for (size_t i = 0; i < p->nqueued; i++) {
        if (!key_counts(p, i, skip))
            continue;
        const struct queued_key *k = &t.queued_keys[p->queued[i]];
        buf_header(b, '$', k->klen);
        buf_append(b, k->key, k->klen);
        buf_append(b, "\r\n", 2);
    }
    return n;
}

static int client_id_cmp(const void *a, const void *b)
{
    uint64_t x = (*(struct tracking_client *const *)a)->c->id;
    uint64_t y = (*(struct tracking_client *const *)b)->c->id;
    return x < y ? -1 : x > y;
}

static int prefix_cmp(const void *a, const void *b)
{
    const struct prefix *x = *(struct prefix *const *)a, *y = *(struct prefix *const *)b;
    return ks_keycmp(x->bytes, x->len, y->bytes, y->len);
}

/* Sends p's keys of this turn to its clients (Redis's
 * trackingBroadcastInvalidationMessages): one array for all, built again
 * for a NOLOOP client without its own writes. */
static void broadcast(struct prefix *p, struct buf *shared, struct buf *own)
{
    qsort(p->queued, p->nqueued, sizeof(*p->queued), queued_cmp);
    qsort(p->clients, p->nclients, sizeof(*p->clients), client_id_cmp);
    build_keys(p, 0, shared);
    for (size_t i = 0; i < p->nclients; i++) {
        struct tracking_client *tc = p->clients[i];
        if (tc->flags & TRACKING_NOLOOP) {
            if (build_keys(p, tc->c->id, own))
                send_message(tc, own->p, own->len, 1);
        } else {
            send_message(tc, shared->p, shared->len, 1);
        }
    }
    p->nqueued = 0;
    p->listed = 0;
}

static void broadcast_all(void)
{
    if (!t.ndirty)
        return;
    /* In prefix order, as Redis walks its prefix table. */
    qsort(t.dirty_prefixes, t.ndirty, sizeof(*t.dirty_prefixes), prefix_cmp);
    struct buf shared = {0}, own = {0};
    for (size_t i = 0; i < t.ndirty; i++)
        broadcast(t.dirty_prefixes[i], &shared, &own);
    t.ndirty = 0;
    xfree(shared.p);
    xfree(own.p);
    for (size_t i = 0; i < t.nqueued; i++)
        xfree(t.queued_keys[i].key);
    t.nqueued = 0;
}

static void turn_end_cb(uv_prepare_t *h)
{
    (void)h;
    broadcast_all();
    uv_prepare_stop(&t.turn_end);
    t.turn_end_on = 0;
    while (t.nto_send) {
        struct client *c = t.to_send[--t.nto_send];
        if (!(c->flags & CLIENT_CLOSING))
            conn_send(c);
    }
}

/* ---- turning tracking on and off ---- */

void tracking_enable(struct client *c, uint64_t redirect, unsigned options,
                     const struct resp_slice *prefixes, size_t n)
{
    struct tracking_client *tc = state_of(c);
    if (!(tc->flags & TRACKING_ON)) {
        t.on++;
    } else if (tc->redirect) {
        t.redirecting--;
    }
    tc->flags = (tc->flags & TRACKING_CACHING) | TRACKING_ON |
                (options & (TRACKING_OPTIN | TRACKING_OPTOUT | TRACKING_NOLOOP));
    tc->redirect = redirect;
    if (redirect)
        t.redirecting++;
    if (options & TRACKING_BCAST) {
        tc->flags |= TRACKING_BCAST;
        if (!n)
            bcast_subscribe(tc, "", 0);
        for (size_t i = 0; i < n; i++)
            bcast_subscribe(tc, prefixes[i].ptr, prefixes[i].len);
    }
}

void tracking_disable(struct client *c)
{
    struct tracking_client *tc = c->tracking;
    if (!tc)
        return;
    bcast_unsubscribe_all(tc);
    if (tc->flags & TRACKING_ON) {
        t.on--;
        if (tc->redirect)
            t.redirecting--;
    }
    tc->flags = 0;
    tc->redirect = 0;
}

void tracking_set_caching(struct client *c)
{
    state_of(c)->flags |= TRACKING_CACHING;
}

static void client_gone(struct client *c)
{
    if (t.current == c)
        t.current = NULL;
    for (size_t i = t.nto_send; i-- > 0;) {
        if (t.to_send[i] == c)
            t.to_send[i] = t.to_send[--t.nto_send];
    }
    struct tracking_client *tc = c->tracking;
    if (!tc)
        return;
    tracking_disable(c);
    size_t i = client_slot(c->id);
    memmove(&t.clients[i], &t.clients[i + 1], (t.nclients - i - 1) * sizeof(*t.clients));
    t.nclients--;
    xfree(tc);
    c->tracking = NULL;
}

/* ---- the dispatcher's part ---- */

/* Redis's trackingLimitUsedSlots: over tracking-table-max-keys, drops keys
 * from a random place on, invalidating each as if it changed; the effort
 * grows each time it was not enough. */
static void limit_keys(void)
{
    long long max = server.cfg.tracking_table_max_keys;
    if (!max || t.nkeys <= (size_t)max) {
        t.limit_misses = 0;
        return;
    }
    long effort = 100L * (t.limit_misses + 1);
    size_t slot = (size_t)fastrand() & t.mask;
    for (size_t seen = 0; effort > 0 && seen <= t.mask; seen++, slot = (slot + 1) & t.mask) {
        while (t.slots[slot] && effort-- > 0) {
            invalidate_entry(&t.slots[slot]);
            if (t.nkeys <= (size_t)max) {
                t.limit_misses = 0;
                return;
            }
        }
    }
    t.limit_misses++;
}

void tracking_command_begin(struct client *c)
{
    if (t.on)
        limit_keys();
    t.current = c;
}

void tracking_command_end(struct client *c, const struct command *cmd)
{
    if (t.current == c && t.npending) {
        struct tracking_client *tc = c->tracking;
        for (size_t i = 0; i < t.npending; i++) {
            if (tc && (tc->flags & TRACKING_ON)) {
                if (t.pending[i].key)
                    send_message(tc, t.pending[i].key, t.pending[i].klen, 0);
                else
                    send_null(tc);
            }
            xfree(t.pending[i].key);
        }
        t.npending = 0;
    }
    t.current = NULL;
    /* CLIENT CACHING covers the next command, or a whole transaction; any
     * CLIENT subcommand leaves it for the next, as Redis. */
    if (c->tracking && (c->tracking->flags & TRACKING_CACHING) && !c->multi &&
        !(cmd && strncmp(cmd->name, "client|", 7) == 0))
        c->tracking->flags &= ~TRACKING_CACHING;
}

static int is_readonly_script(const struct command *cmd)
{
    return strcmp(cmd->name, "eval_ro") == 0 || strcmp(cmd->name, "evalsha_ro") == 0 ||
           strcmp(cmd->name, "fcall_ro") == 0;
}

static int remember_visit(void *ctx, int pos, unsigned flags)
{
    (void)flags;
    const struct client *c = ((const struct client **)ctx)[0];
    const struct tracking_client *tc = ((const struct tracking_client **)ctx)[1];
    remember_key(tc->c->id, c->argv[pos].ptr, c->argv[pos].len);
    return 0;
}

void tracking_after_call(struct client *c, const struct command *cmd)
{
    if (!t.on || !(cmd->flags & CMD_READONLY))
        return;
    /* A script's commands are remembered for the script's caller; a
     * read-only script itself names keys it may never read. */
    struct client *caller = c->id == CLIENT_ID_LONG_RUN ? t.current : c;
    if (!caller || !caller->tracking || is_readonly_script(cmd))
        return;
    struct tracking_client *tc = caller->tracking;
    unsigned f = tc->flags;
    if ((f & (TRACKING_ON | TRACKING_BCAST)) != TRACKING_ON)
        return;
    if (((f & TRACKING_OPTIN) && !(f & TRACKING_CACHING)) ||
        ((f & TRACKING_OPTOUT) && (f & TRACKING_CACHING)))
        return;
    const void *ctx[2] = {c, tc};
    keyspec_visit(keyspec_of(cmd), c->argc, c->argv, remember_visit, ctx);
}

/* ---- what changes keys ---- */

void tracking_invalidate_key(const char *key, size_t klen)
{
    if (t.nprefixes)
        queue_for_prefixes(key, klen);
    if (!t.nkeys)
        return;
    struct tracked_key **link = find_link(key, klen, key_hash(key, klen));
    if (*link)
        invalidate_entry(link);
}

static void touched(struct db *db, const char *key, size_t klen)
{
    (void)db;
    tracking_invalidate_key(key, klen);
}

void tracking_flush(void)
{
    for (size_t i = 0; i < t.nclients; i++) {
        struct tracking_client *tc = t.clients[i];
        if (!(tc->flags & TRACKING_ON))
            continue;
        if (tc->c == t.current)
            add_pending(NULL, 0);
        else
            send_null(tc);
    }
    table_clear();
}

void tracking_init(void)
{
    uint64_t seed[2];
    arc4random_buf(seed, sizeof(seed));
    kix_init(&t.hasher, seed);
    uv_prepare_init(server.loop, &t.turn_end);
    conn_on_gone(client_gone);
    watch_on_touch(touched);
}

void tracking_close(void)
{
    if (t.turn_end.type == UV_PREPARE && !uv_is_closing((uv_handle_t *)&t.turn_end))
        uv_close((uv_handle_t *)&t.turn_end, NULL);
    table_clear();
    for (size_t i = 0; i < t.nqueued; i++)
        xfree(t.queued_keys[i].key);
    for (size_t i = 0; i < t.npending; i++)
        xfree(t.pending[i].key);
    xfree(t.queued_keys);
    xfree(t.pending);
    xfree(t.to_send);
    xfree(t.dirty_prefixes);
    t.queued_keys = NULL;
    t.pending = NULL;
    t.to_send = NULL;
    t.dirty_prefixes = NULL;
    t.nqueued = t.npending = t.nto_send = t.ndirty = 0;
    t.queued_cap = t.pending_cap = t.to_send_cap = t.dirty_cap = 0;
}
