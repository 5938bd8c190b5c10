/*
 * xstream.h - a Redis stream (prefix xs_): entries of field-value pairs
 * under strictly increasing IDs (ms-seq), with the stream's own counters.
 * ("stream" alone is core/stream.c's streamed replies.)
 *
 * Owns: the struct xstream and its nodes (ctree.h chunks), through mem.h.
 * Knows nothing of RESP, clients, the clock or the configuration: callers
 * pass the node limits and parse the IDs.
 *
 * Layout, and why: the entries sit in "nodes" as Redis's sit in listpacks
 * under a radix tree. A node is one chunk of a counted chunk tree (ctree.h),
 * ordered by the node's master ID (the ID of its first entry ever), its
 * count the node's live entries, so XLEN, rank and select stay the tree's
 * O(log n) totals and a range walks memory in order. A chunk holds a
 * header (master ID, node number, the offsets of its first and last
 * entries, the master's field count), the master's field names, then its
 * entries, each [varint head][varint seq] and the strings: head is the ms
 * delta from the master shifted left by 2, bit 1 "the master's field names"
 * (only values follow) and bit 0 "the delta follows as its own varint" (for
 * deltas of 2^62 and up); seq is a delta from the master's when the ms are
 * equal, else the sequence itself; an entry of its own field names has
 * [varint nfields] before its strings. Strings are [varint len][bytes]. So
 * an entry of a busy stream costs its values and 2 bytes, about a
 * listpack's, where a map element each cost the 16-byte ID and every name.
 * Deleting an entry removes its bytes (deltas are from the master, which a
 * node keeps after its first entry goes); a node goes with its last entry.
 *
 * The node numbers emulate Redis's radix tree of listpacks, which XADD and
 * XTRIM with "~" trim a whole node at a time: an entry joins the tail node
 * until that holds node_entries entries (deleted ones included) or about
 * node_bytes bytes, as Redis's streamAppendItem decides, so "~" removes
 * what Redis would remove while nodes fill by count. The bytes are an
 * estimate of the listpack's size (fields stored once per node, as Redis
 * stores the master entry's).
 *
 * Invariants (xs_check): every entry's ID is at most last_id; first_id is
 * the first entry's ID when there is one; entries_added >= length; node
 * numbers increase from chunk to chunk; no chunk is empty; a chunk's
 * entries are above its master ID and below the next chunk's; its header
 * offsets and counts describe its bytes exactly; nnodes counts the chunks.
 */
#ifndef RBKV_XSTREAM_H
#define RBKV_XSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "ctree.h"
#include "rbtree.h"

#define XS_ID_LEN 16

struct xs_id {
    uint64_t ms, seq;
};

struct xstream {
    struct rb_root nodes;     /* the nodes, as ct_chunks (layout above) */
    size_t nnodes;            /* chunks in nodes */
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

/* An entry, borrowed from its node: valid until the stream next changes.
 * Walk its strings with xs_strs_of and xs_next_str. */
struct xs_entry {
    struct xs_id id;
    uint64_t node;      /* the emulated node it joined */
    size_t nfields;     /* field-value pairs */
    const char *fields; /* the master's names when the entry shares them, else NULL */
    const char *strs;   /* values only (fields set), else field, value, ...; */
    const char *end;    /* each [varint len][bytes] */
};

/* A walk over an entry's strings: field, value, field, value, ... */
struct xs_strs {
    const char *f;   /* the next master name, or NULL */
    const char *p;   /* the next string of the entry */
    const char *end;
    int at_value;    /* with f: the next string is a value */
};

/* A position among the entries: the idx-th entry of node c, at byte off of
 * its data; c NULL past either end. Valid until the stream changes. */
struct xs_it {
    struct ct_chunk *c;
    uint32_t idx, off;
    uint32_t end; /* offset after the entry, once decoded; else 0 */
    size_t rank;
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
/* Bytes allocated; sampled as ct_memory_sampled. */
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
/* Positions *it at rank k: 0, or -1 (invalid) past the end. O(log n + B)
 * for nodes of B entries. */
int xs_seek(const struct xstream *s, size_t k, struct xs_it *it);
static inline int xs_it_valid(const struct xs_it *it) { return it->c != NULL; }
/* One entry forward (O(1)) or back (O(B): entries keep no back links). */
void xs_next(const struct xstream *s, struct xs_it *it);
void xs_prev(const struct xstream *s, struct xs_it *it);
/* The entry at a valid position. */
void xs_entry_of(const struct xstream *s, struct xs_it *it, struct xs_entry *e);
/* A walk over e's strings, and its next string: 0, or -1 at the end. */
struct xs_strs xs_strs_of(const struct xs_entry *e);
int xs_next_str(struct xs_strs *w, struct xs_str *out);
/* Nodes holding entries (XINFO's radix-tree-keys). O(1). */
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
