/*
 * xstream.h - a Redis stream (prefix xs_): entries of field-value pairs
 * under strictly increasing IDs (ms-seq), with the stream's own counters.
 * ("stream" alone is core/stream.c's streamed replies.)
 *
 * Owns: the struct xstream and its ordered map (omap.h), through mem.h.
 * Knows nothing of RESP, clients, the clock or the configuration: callers
 * pass the node limits and parse the IDs.
 *
 * Layout, and why: the entries are an omap keyed by the 16-byte big-endian
 * ID, so byte order is ID order and ranges, XLEN, trimming by count
 * (om_del_span) and by MINID (om_count_before) are the map's O(log n)
 * operations. An entry's value is [varint node][varint nfields] then
 * [varint len][bytes] per field and per value.
 *
 * "node" emulates Redis's radix tree of listpacks, which XADD and XTRIM
 * with "~" trim a whole node at a time: an entry joins the tail node until
 * that holds node_entries entries (deleted ones included) or about
 * node_bytes bytes, as Redis's streamAppendItem decides, so "~" removes
 * what Redis would remove while nodes fill by count. The bytes are an
 * estimate of the listpack's size (fields stored once per node, as Redis
 * stores the master entry's).
 *
 * Invariants (xs_check): every entry's ID is at most last_id; first_id is
 * the first entry's ID when there is one; entries_added >= length; nodes
 * never decrease along the entries.
 */
#ifndef RBKV_XSTREAM_H
#define RBKV_XSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "omap.h"
#include "rbtree.h"

#define XS_ID_LEN 16

struct xs_id {
    uint64_t ms, seq;
};

struct xstream {
    struct omap *m;           /* the entries */
    struct xs_id last_id;     /* the last generated ID (XADD, XSETID) */
    struct xs_id first_id;    /* recorded-first-entry-id, as Redis keeps it */
    struct xs_id max_deleted; /* the largest ID deleted by XDEL */
    uint64_t entries_added;   /* every entry ever added */
    uint64_t node;            /* the tail node's number */
    uint64_t node_entries;    /* entries added to the tail node */
    uint64_t node_bytes;      /* estimated bytes of the tail node */
    struct rb_root groups;    /* consumer groups by name (xgroup.h) */
    size_t ngroups;
};

/* One string of an entry, or one argument given to xs_append. */
struct xs_str {
    const char *ptr;
    size_t len;
};

/* An entry, borrowed from the map: valid until the stream next changes. */
struct xs_entry {
    struct xs_id id;
    uint64_t node;    /* the emulated node it joined */
    size_t nfields;   /* field-value pairs */
    const char *data; /* the pairs, as [varint len][bytes] each */
    const char *end;
};

/* Redis's stream-node-max-bytes and stream-node-max-entries (0: no limit). */
struct xs_limits {
    uint64_t node_bytes, node_entries;
};

/* An empty stream, owned by the caller; xs_free(NULL) does nothing. */
struct xstream *xs_new(void);
void xs_free(struct xstream *s);
/* Blocks xs_free gives back, at least: the entries' chunks and the groups. */
size_t xs_free_effort(const struct xstream *s);
struct xstream *xs_clone(const struct xstream *s);
size_t xs_len(const struct xstream *s);
/* Bytes allocated; sampled as om_memory_sampled. */
size_t xs_memory(const struct xstream *s, size_t samples);

/* Inline, so xgroup.c (which xstream.c calls) calls nothing back here. */
static inline int xs_id_cmp(const struct xs_id *a, const struct xs_id *b)
{
    if (a->ms != b->ms)
        return a->ms < b->ms ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return 0;
}
/* The next ID (1 and *id untouched when id is the largest) and the one
 * before (1 when id is 0-0). 0 on success. */
int xs_id_incr(struct xs_id *id);
int xs_id_decr(struct xs_id *id);
void xs_id_encode(const struct xs_id *id, char out[XS_ID_LEN]);

/* Appends an entry of pairs (2 * npairs strings: field, value, ...) under
 * id, which must be greater than last_id (the caller checks), and makes it
 * last_id. */
void xs_append(struct xstream *s, const struct xs_id *id, const struct xs_str *pairs,
               size_t npairs, const struct xs_limits *lim);
/* Deletes the entry id: 1, or 0 when absent. */
int xs_delete(struct xstream *s, const struct xs_id *id);

/* XTRIM's strategies: keep at most maxlen entries, or none below minid. */
struct xs_trim {
    int minid;            /* 0: MAXLEN */
    uint64_t maxlen;      /* MAXLEN's threshold */
    struct xs_id min;     /* MINID's threshold */
    int approx;           /* "~": whole nodes only */
    uint64_t limit;       /* approx: at most this many entries (0: no limit) */
};
/* Trims s as Redis's streamTrim; returns the entries removed. */
size_t xs_trim(struct xstream *s, const struct xs_trim *t);

/* Entries with an ID below id: the rank of the first entry >= id. */
size_t xs_count_below(const struct xstream *s, const struct xs_id *id);
/* The entry at rank k into *e; 0, or -1 past the end. */
int xs_at(const struct xstream *s, size_t k, struct xs_entry *e);
/* The entry at a valid om_it position of s->m. */
void xs_entry_of(const struct xstream *s, struct om_it *it, struct xs_entry *e);
/* The next string of an entry's pairs, from *p (advanced); 0, or -1 at the end. */
int xs_next_str(const char **p, const char *end, struct xs_str *out);
/* Nodes holding entries (XINFO's radix-tree-keys). O(n). */
size_t xs_nodes(const struct xstream *s);

/* Builds a stream from a snapshot: entries in increasing ID order given
 * with their node numbers (the caller then sets the counters). Returns -1
 * when id does not increase or the node decreases. */
int xs_load_entry(struct xstream *s, const struct xs_id *id, uint64_t node,
                  const struct xs_str *pairs, size_t npairs);

/* The entries added up to id (a consumer group's entries-read counter for
 * a last delivered ID of id), or -1 (xgroup.h's XG_ENTRIES_READ_INVALID)
 * when unknown: Redis's streamEstimateDistanceFromFirstEverEntry, for
 * XGROUP and XINFO's lag and for groups read from RDB files that do not
 * record the counter. Here, since it reads only the stream's counters. */
int64_t xs_estimate_entries_read(const struct xstream *s, const struct xs_id *id);

/* Checks the invariants above; 0, or -1 with *why set. */
int xs_check(const struct xstream *s, const char **why);

#endif
