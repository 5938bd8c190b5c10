/*
 * evict.c - maxmemory eviction (evict.h), after Redis 7's evict.c.
 *
 * LRU and LFU policies keep Redis's eviction pool: POOL_SIZE candidates in
 * ascending order of "idle" (LRU: ms since the last access; LFU: 255 minus
 * the decayed counter), refilled before each eviction with
 * maxmemory-samples keys of every database, the last (best) one evicted.
 * The pool holds copies of keys, never entry pointers, since entries move
 * and go between runs: a candidate is looked up again before it is evicted.
 *
 * Sampling: allkeys-* draw from the hash index (ks_random: two cache misses,
 * where a rank drawn from the tree's order statistics costs a descent and
 * measured four times slower). volatile-lru/lfu/random walk the deadline tree
 * from its root to a random leaf, which has no counts; volatile-ttl needs
 * no sampling: it takes the nearest deadline of all databases exactly,
 * where Redis approximates it from samples.
 *
 * What counts: used_memory, clients' query buffers and replies included (the
 * RESP library allocates through mem.h), less what Redis leaves out because
 * evicting keys would not shrink it: the replicas' output buffers (and the
 * stream held for a replica during its snapshot), the append-only log's
 * buffer (evict_not_counted_memory). The backlog counts, as in Redis, whose
 * shared replication buffer is left out only beyond repl-backlog-size.
 *
 * An evicted key is deleted as DEL deletes one (WATCH, streamed replies,
 * lazy freeing of big values, the trees' counts), and goes on as DEL to the
 * append-only log and the replicas, with the "evicted" keyspace event.
 */
#include "evict.h"

#include <math.h>
#include <string.h>

#include "aof.h"
#include "bgsave.h"
#include "client.h"
#include "clock.h"
#include "command.h"
#include "fastrand.h"
#include "keyspace.h"
#include "latency.h"
#include "lazyfree.h"
#include "longrun.h"
#include "mem.h"
#include "notify.h"
#include "pause.h"
#include "propagate.h"
#include "resp_parser.h"
#include "server.h"
#include "watch.h"

#define POOL_SIZE 16       /* Redis's EVPOOL_SIZE */
#define CHECK_EVERY 16     /* keys evicted between checks of memory and time */

struct pool_slot {
    uint64_t idle;  /* higher is a better candidate */
    int dbid;
    int used;
    size_t klen, cap;
    char *key;      /* owned buffer of cap bytes, kept when the slot empties */
};

static struct pool_slot pool[POOL_SIZE];
static struct ka_clock access_clock;
static uv_timer_t again_timer; /* goes on evicting after a slice ran out */
static int again_pending;
static unsigned next_random_db;

static int policy_is_lfu(enum maxmemory_policy p)
{
    return p == MAXMEMORY_VOLATILE_LFU || p == MAXMEMORY_ALLKEYS_LFU;
}

int evict_policy_is_lfu(void)
{
    return policy_is_lfu(server.cfg.maxmemory_policy);
}

static void clock_refresh(int64_t now_us)
{
    ka_clock_set_time(&access_clock, now_us / 1000);
    access_clock.lfu = evict_policy_is_lfu();
    /* As Redis: no access stamps while a child holds the pages copy-on-write. */
    access_clock.touch = persist_child_pid() <= 0;
    access_clock.log_factor = server.cfg.lfu_log_factor;
    access_clock.decay_time = server.cfg.lfu_decay_time;
}

static void again_cb(uv_timer_t *t)
{
    (void)t;
    again_pending = 0;
    /* Not under a busy script: the next command evicts instead. */
    if (!long_run_active())
        evict_perform();
}

void evict_init(void)
{
    clock_refresh(ustime());
    ks_access_clock(&access_clock);
    uv_timer_init(server.loop, &again_timer);
}

void evict_close(void)
{
    /* A start that failed before evict_init leaves the timer zeroed. */
    uv_handle_t *h = (uv_handle_t *)&again_timer;
    if (h->type != UV_UNKNOWN_HANDLE && !uv_is_closing(h))
        uv_close(h, NULL);
}

const struct ka_clock *evict_clock(void)
{
    return &access_clock;
}

void evict_begin_command(int64_t now_us)
{
    clock_refresh(now_us);
}

/* Redis's evictionTimeLimitUs: linear up to tenacity 10 (500 us), then 15%
 * more per step, unlimited at 100. */
static uint64_t slice_us(void)
{
    long long t = server.cfg.maxmemory_eviction_tenacity;
    if (t <= 10)
        return 50u * (uint64_t)t;
    if (t < 100)
        return (uint64_t)(500.0 * pow(1.15, (double)t - 10.0));
    return UINT64_MAX;
}

static int policy_allkeys(enum maxmemory_policy p)
{
    return p == MAXMEMORY_ALLKEYS_LRU || p == MAXMEMORY_ALLKEYS_LFU ||
           p == MAXMEMORY_ALLKEYS_RANDOM;
}

/* A random entry with a deadline: a walk from the deadline tree's root
 * taking either child at random until it runs out. */
static struct ks_entry *random_volatile(const struct db *db)
{
    const struct rb_node *n = db->expires.rb_root.rb_node;
    while (n) {
        const struct rb_node *next = (fastrand() & 1) ? n->rb_left : n->rb_right;
        if (!next)
            break;
        n = next;
    }
    return n ? rb_entry(n, struct ks_expire, node)->entry : NULL;
}

static struct ks_entry *random_key(const struct db *db, int allkeys)
{
    if (!allkeys)
        return random_volatile(db);
    return ks_random(db, fastrand());
}

static size_t keys_to_sample(const struct db *db, int allkeys)
{
    return allkeys ? ks_count(db) : db->expires_count;
}

static uint64_t idle_of(const struct ks_entry *e)
{
    if (evict_policy_is_lfu())
        return 255 - ka_freq(e, &access_clock);
    return ka_idle_ms(e, &access_clock);
}

static void slot_store(struct pool_slot *s, const struct ks_entry *e, int dbid, uint64_t idle)
{
    size_t klen = ks_klen(e);
    if (klen > s->cap) {
        xfree(s->key);
        s->key = xmalloc(klen);
        s->cap = klen;
    }
    memcpy(s->key, ks_key(e), klen);
    s->klen = klen;
    s->dbid = dbid;
    s->idle = idle;
    s->used = 1;
}

static int slot_holds(const struct pool_slot *s, int dbid, const struct ks_entry *e)
{
    return s->used && s->dbid == dbid && s->klen == ks_klen(e) &&
           memcmp(s->key, ks_key(e), s->klen) == 0;
}

/* Redis's evictionPoolPopulate: inserts e in idle order, dropping the worst
 * candidate when the pool is full and e is better than it. */
static void pool_offer(int dbid, const struct ks_entry *e)
{
    uint64_t idle = idle_of(e);
    int k = 0;
    for (int i = 0; i < POOL_SIZE; i++)
        if (slot_holds(&pool[i], dbid, e))
            return; /* sampled again: already a candidate */
    while (k < POOL_SIZE && pool[k].used && pool[k].idle < idle)
        k++;
    if (k == 0 && pool[POOL_SIZE - 1].used)
        return; /* worse than every candidate of a full pool */
    if (k == POOL_SIZE || pool[k].used) {
        struct pool_slot spare;
        if (!pool[POOL_SIZE - 1].used) {
            /* Room at the right end: shift [k, end) right by one. */
            spare = pool[POOL_SIZE - 1];
            memmove(&pool[k + 1], &pool[k], (size_t)(POOL_SIZE - 1 - k) * sizeof(pool[0]));
        } else {
            /* Full: drop the worst, at the left end, shifting [1, k) left. */
            k--;
            spare = pool[0];
            memmove(&pool[0], &pool[1], (size_t)k * sizeof(pool[0]));
        }
        pool[k] = spare; /* the dropped slot's buffer, reused */
    }
    slot_store(&pool[k], e, dbid, idle);
}

/* The best candidate still present (and, for volatile-*, still with a
 * deadline), taken out of the pool; NULL when the pool runs dry. */
static struct ks_entry *pool_take(int allkeys, struct db **db_out)
{
    for (int k = POOL_SIZE - 1; k >= 0; k--) {
        struct pool_slot *s = &pool[k];
        if (!s->used)
            continue;
        s->used = 0;
        if (s->dbid >= server.cfg.databases)
            continue;
        struct db *db = &server.ks->dbs[s->dbid];
        struct ks_entry *e = ks_find(db, s->key, s->klen);
        if (e && (allkeys || ks_get_expire(e) >= 0)) {
            *db_out = db;
            return e;
        }
    }
    return NULL;
}

static struct ks_entry *pick_from_pool(int allkeys, struct db **db_out)
{
    for (;;) {
        size_t total = 0;
        for (int i = 0; i < server.cfg.databases; i++) {
            struct db *db = &server.ks->dbs[i];
            size_t n = keys_to_sample(db, allkeys);
            if (!n)
                continue;
            total += n;
            /* No more draws than keys, as Redis's dictGetSomeKeys. */
            size_t samples = (size_t)server.cfg.maxmemory_samples;
            size_t draws = samples < n ? samples : n;
            for (size_t j = 0; j < draws; j++) {
                const struct ks_entry *e = random_key(db, allkeys);
                if (e)
                    pool_offer(i, e);
            }
        }
        if (!total)
            return NULL;
        struct ks_entry *e = pool_take(allkeys, db_out);
        if (e)
            return e;
        /* Every candidate was a ghost (deleted since it was pooled): again. */
    }
}

/* volatile-ttl: the nearest deadline of all databases, exactly. */
static struct ks_entry *pick_nearest_deadline(struct db **db_out)
{
    struct ks_expire *best = NULL;
    for (int i = 0; i < server.cfg.databases; i++) {
        struct rb_node *n = rb_first_cached(&server.ks->dbs[i].expires);
        struct ks_expire *x = n ? rb_entry(n, struct ks_expire, node) : NULL;
        if (x && (!best || x->when < best->when)) {
            best = x;
            *db_out = &server.ks->dbs[i];
        }
    }
    return best ? best->entry : NULL;
}

/* Random policies take databases in turn, as Redis's next_db does. */
static struct ks_entry *pick_random(int allkeys, struct db **db_out)
{
    for (int i = 0; i < server.cfg.databases; i++) {
        struct db *db = &server.ks->dbs[next_random_db++ % (unsigned)server.cfg.databases];
        if (keys_to_sample(db, allkeys)) {
            *db_out = db;
            return random_key(db, allkeys);
        }
    }
    return NULL;
}

static struct ks_entry *pick_victim(struct db **db_out)
{
    enum maxmemory_policy p = server.cfg.maxmemory_policy;
    int allkeys = policy_allkeys(p);
    if (p == MAXMEMORY_VOLATILE_TTL)
        return pick_nearest_deadline(db_out);
    if (p == MAXMEMORY_ALLKEYS_RANDOM || p == MAXMEMORY_VOLATILE_RANDOM)
        return pick_random(allkeys, db_out);
    return pick_from_pool(allkeys, db_out);
}

/* Deletes e as DEL would and tells the log, the replicas, WATCH and the
 * keyspace events first, while the entry still holds the key's bytes.
 * Returns the bytes the deletion itself gave back. */
static size_t evict_entry(struct db *db, struct ks_entry *e)
{
    const char *key = ks_key(e);
    size_t klen = ks_klen(e);
    struct resp_slice argv[2] = {{"DEL", 3}, {key, klen}};
    propagate_argv(db->id, 2, argv);
    notify_keyspace_event(NOTIFY_EVICTED, "evicted", key, klen, db->id);
    watch_touch(db, key, klen);
    size_t before = mem_used();
    ks_delete_how(db, e, server.cfg.lazyfree_lazy_eviction ? KS_FREE_LAZY : KS_FREE_SYNC);
    server.stats.evicted_keys++;
    size_t after = mem_used();
    return before > after ? before - after : 0;
}

static size_t (*replica_held)(void);

void evict_on_replica_held(size_t (*fn)(void))
{
    replica_held = fn;
}

size_t evict_not_counted_memory(void)
{
    size_t n = aof_buffer_memory() + (replica_held ? replica_held() : 0);
    for (const struct client *c = server.clients; c; c = c->next)
        if (c->flags & CLIENT_REPLICA)
            n += c->out.chunk_bytes;
    return n;
}

/* Bytes over maxmemory as eviction counts them, 0 when under. The clients'
 * list is walked only once used_memory itself is over, as Redis's
 * getMaxmemoryState looks at the replicas only then. */
static size_t over_by(void)
{
    size_t used = mem_used();
    if (used <= server.cfg.maxmemory)
        return 0;
    size_t not_counted = evict_not_counted_memory();
    used = used > not_counted ? used - not_counted : 0;
    return used > server.cfg.maxmemory ? used - server.cfg.maxmemory : 0;
}

static int over_maxmemory(void)
{
    return over_by() != 0;
}

/* Evicts from start until memory is under the cap or the slice ends. */
static enum evict_result evict_run(int64_t start)
{
    uint64_t limit = slice_us();
    size_t to_free = over_by(), freed = 0;
    unsigned long long evicted = 0;
    clock_refresh(start);
    while (freed < to_free) {
        struct db *db = NULL;
        struct ks_entry *e = pick_victim(&db);
        if (!e) {
            /* Big values on the lazy-free thread still give memory back. */
            return lazyfree_pending() ? EVICT_RUNNING : EVICT_FAIL;
        }
        freed += evict_entry(db, e);
        if (++evicted % CHECK_EVERY)
            continue;
        if (!over_maxmemory())
            break;
        if ((uint64_t)(ustime() - start) > limit) {
            if (!again_pending) {
                again_pending = 1;
                uv_timer_start(&again_timer, again_cb, 0, 0);
            }
            return EVICT_RUNNING;
        }
    }
    return EVICT_OK;
}

enum evict_result evict_perform(void)
{
    if (!server.cfg.maxmemory || !over_maxmemory())
        return EVICT_OK;
    /* A replica is its primary's copy: unless told otherwise
     * (replica-ignore-maxmemory, yes by default) it neither evicts nor
     * refuses anything for memory, as Redis 7.0's isSafeToPerformEvictions
     * (a write there is refused as READONLY, or taken with
     * replica-read-only no). */
    if (server.cfg.replicaof_host && server.cfg.replica_ignore_maxmemory)
        return EVICT_OK;
    if (server.cfg.maxmemory_policy == MAXMEMORY_NO_EVICTION)
        return EVICT_FAIL;
    /* CLIENT PAUSE: the dataset must not change under the pause (Redis
     * 7.0 evicts nothing while clients are paused). */
    if (pause_stops_writes())
        return EVICT_OK;
    int64_t start = ustime();
    enum evict_result r = evict_run(start);
    latency_add_since(server.cfg.latency_monitor_threshold, "eviction-cycle", start);
    return r;
}
