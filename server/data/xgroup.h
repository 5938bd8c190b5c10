/*
 * xgroup.h - a stream's consumer groups (prefix xg_): per group its last
 * delivered ID, its entries-read counter, its consumers and its pending
 * entries list (PEL); per consumer its own PEL and seen time.
 *
 * Owns: every group of a stream (struct xstream's groups), each group's
 * consumers and PEL entries, through mem.h. They are freed with the stream
 * (xs_free calls xg_free_all) or when XGROUP DESTROY / DELCONSUMER and XACK
 * remove them. Knows nothing of RESP, clients or the clock: callers pass
 * `now` in milliseconds.
 *
 * Layout, and why: groups by name and consumers by name are trees of the
 * repo's intrusive rbtree (byte order, as Redis's rax lists them); a
 * pending entry (struct xg_pending) sits in two trees by ID at once, its
 * group's PEL and its consumer's, so XPENDING, XAUTOCLAIM and a consumer's
 * history are range scans from a lower bound, and XACK or a claim moves an
 * entry between consumers without copying it.
 *
 * Invariants (xg_check): every pending entry is in its group's PEL and in
 * its consumer's PEL, and nowhere else; the counts equal the trees' sizes.
 */
#ifndef RBKV_XGROUP_H
#define RBKV_XGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "rbtree.h"
#include "xstream.h"

/* Redis's SCG_INVALID_ENTRIES_READ: the group's counter is unknown. */
#define XG_ENTRIES_READ_INVALID (-1)

struct xg_consumer;

/* A delivered, not yet acknowledged entry. */
struct xg_pending {
    struct rb_node gnode;         /* in the group's PEL, by id */
    struct rb_node cnode;         /* in its consumer's PEL, by id */
    struct xs_id id;
    int64_t delivery_time;        /* ms, when last delivered */
    uint64_t delivery_count;
    struct xg_consumer *consumer; /* the owner */
};

struct xg_consumer {
    struct rb_node node;          /* in the group's consumers, by name */
    struct rb_root pel;
    size_t pel_count;
    int64_t seen_time;            /* ms, when last seen by a command */
    size_t nlen;
    char name[];
};

struct xg_group {
    struct rb_node node;          /* in the stream's groups, by name */
    struct xs_id last_id;         /* the last delivered ID */
    int64_t entries_read;         /* or XG_ENTRIES_READ_INVALID */
    struct rb_root pel;
    size_t pel_count;
    struct rb_root consumers;
    size_t nconsumers;
    size_t nlen;
    char name[];
};

/* Frees every group of s (xs_free's part). */
void xg_free_all(struct xstream *s);
/* Copies every group of from into to (COPY), which has none. */
void xg_clone_all(struct xstream *to, const struct xstream *from);
/* Bytes the groups of s hold. O(groups + consumers + pending). */
size_t xg_memory(const struct xstream *s);

/* The group name of s, or NULL. */
struct xg_group *xg_find(const struct xstream *s, const char *name, size_t nlen);
/* A new group name of s, or NULL when it exists. */
struct xg_group *xg_create(struct xstream *s, const char *name, size_t nlen,
                           const struct xs_id *last_id, int64_t entries_read);
/* Removes and frees g, its consumers and its PEL. */
void xg_destroy(struct xstream *s, struct xg_group *g);
/* Groups in name order: the first, then the next (NULL at the end). */
struct xg_group *xg_first(const struct xstream *s);
struct xg_group *xg_next(const struct xg_group *g);

/* The consumer name of g, or NULL. */
struct xg_consumer *xg_consumer_find(const struct xg_group *g, const char *name, size_t nlen);
/* A new consumer of g seen at now, or NULL when it exists. */
struct xg_consumer *xg_consumer_create(struct xg_group *g, const char *name, size_t nlen,
                                       int64_t now);
/* Removes and frees c with its pending entries (also from g's PEL). */
void xg_consumer_delete(struct xg_group *g, struct xg_consumer *c);
struct xg_consumer *xg_consumer_first(const struct xg_group *g);
struct xg_consumer *xg_consumer_next(const struct xg_consumer *c);

/* The pending entry id of g, or NULL. */
struct xg_pending *xg_pending_find(const struct xg_group *g, const struct xs_id *id);
/* Adds id to g's PEL owned by c, delivered at now once. id must not be
 * pending in g. c NULL leaves it unowned, which only a snapshot's loader
 * does until xg_pending_attach (xg_check refuses an unowned entry). */
struct xg_pending *xg_pending_add(struct xg_group *g, struct xg_consumer *c,
                                  const struct xs_id *id, int64_t now);
/* Gives the unowned p to c. */
void xg_pending_attach(struct xg_pending *p, struct xg_consumer *c);
/* Gives p to c (a claim or a redelivery); nothing when c owns it. */
void xg_pending_move(struct xg_pending *p, struct xg_consumer *c);
/* Acknowledges p: out of both PELs, freed. */
void xg_pending_ack(struct xg_group *g, struct xg_pending *p);
/* The first pending entry of g (or of c when c is not NULL) with an ID >=
 * id; NULL when none. */
struct xg_pending *xg_pending_seek(const struct xg_group *g, const struct xg_consumer *c,
                                   const struct xs_id *id);
/* The next pending entry after p in the same tree as xg_pending_seek's
 * (group's when c is NULL). */
struct xg_pending *xg_pending_next(const struct xg_pending *p, const struct xg_consumer *c);
/* The first and last pending entries of g; NULL when none. */
struct xg_pending *xg_pending_first(const struct xg_group *g);
struct xg_pending *xg_pending_last(const struct xg_group *g);

/* Checks the invariants above for every group of s; 0, or -1 with *why. */
int xg_check(const struct xstream *s, const char **why);

#endif
