/*
 * omap.h - the ordered map behind hashes and sets: binary-safe elements
 * (a hash's fields, each with a value; a set's members, without) kept in
 * byte order, with ranks, lexicographic spans and lookups.
 *
 * Owns: the struct omap and its chunks (through mem.h). Knows nothing of
 * RESP, clients, the keyspace or the configuration: callers pass the
 * thresholds (struct om_limits) of each write.
 *
 * Layout, and why: elements are packed in sorted runs ("chunks"), each one
 * allocation holding [varint len][bytes] per member, or [varint flen][field]
 * [varint vlen][value] per field, back to back. The chunks are the nodes of
 * a red-black tree in element order, augmented with the number of elements
 * in each subtree, so rank, select and counting below a bound cost
 * O(log(n / B) + B) for chunks of at most B elements, and a range walks
 * memory in order instead of chasing a pointer per element. A member costs
 * its bytes plus a length byte or two, and about 50 bytes per chunk.
 *
 * Two encodings, as Redis has listpack and hashtable:
 *  - packed ("listpack", or "intset" for a set of integers only): the
 *    elements in the struct omap's own allocation after 19 bytes of header,
 *    grown to the byte as a listpack is, while the map holds at most
 *    limits->entries elements (limits->int_entries for an all-integer set)
 *    none longer than limits->value bytes;
 *  - tree ("rbtree"): chunks of at most OM_CHUNK_ENTRIES elements and about
 *    OM_CHUNK_BYTES bytes (a longer element sits in a chunk of its own),
 *    split when they grow past it and merged with a neighbour when small.
 * A write that breaks the packed limits converts to the tree; a delete that
 * brings the map to half the entry limit with every element within the
 * value limit converts back to packed, so a map that grew and
 * shrank does not keep the tree's overhead (Redis never converts back).
 *
 * A write may move a packed map (it grows by realloc): the write functions
 * take the caller's pointer and update it, and a caller whose map sits in
 * the keyspace stores it back (ks_set_ptr).
 *
 * Invariants (om_check): a tree map has chunks, a packed one none; no chunk
 * is empty; elements strictly increase across the whole walk; each run's n
 * and used describe its bytes exactly; every total is its subtree's
 * element count.
 */
#ifndef RBKV_OMAP_H
#define RBKV_OMAP_H

#include <stddef.h>
#include <stdint.h>

#include "ctree.h"
#include "lexrange.h"
#include "rbtree.h"

/* A tree chunk splits past either. */
#define OM_CHUNK_ENTRIES 64
#define OM_CHUNK_BYTES 2048

struct omap {
    struct rb_root tree; /* tree encoding: the chunks; packed: empty */
    uint32_t n, used;    /* packed encoding: elements and bytes in data */
    uint8_t values;      /* 1: a hash (every element has a value), 0: a set */
    uint8_t packed;      /* the packed encoding: the elements are in data */
    uint8_t allint;      /* set only: every member is an integer (for "intset") */
    char data[];
};

/* The thresholds of the packed encoding, from the configuration. */
struct om_limits {
    size_t entries;     /* hash-max-listpack-entries, set-max-listpack-entries */
    size_t value;       /* ...-max-listpack-value: longest element, in bytes */
    size_t int_entries; /* set-max-intset-entries; 0 for hashes */
};

/* One element, borrowed from its chunk: valid until the map next changes. */
struct om_elem {
    const char *f;
    size_t flen;
    const char *v; /* NULL in a set */
    size_t vlen;
};

/* A position in the map: the element at rank, index idx and byte offset off
 * of its run. Invalid (data == NULL) past either end. Valid until the map
 * changes. */
struct om_it {
    struct ct_chunk *c;   /* NULL in a packed map */
    const char *data;     /* the run of elements: c's, or the packed map's; NULL past the ends */
    uint32_t n, idx, off; /* elements in the run, this one's index and offset */
    uint32_t end;         /* offset after the element, once om_it_get decoded it; else 0 */
    size_t rank;
};

/* A span of positions [lo, hi); empty when lo >= hi. */
struct om_span {
    size_t lo, hi;
};

/* An empty map (values: 1 for a hash, 0 for a set), packed; owned by the
 * caller, freed with om_free. om_free(NULL) does nothing. */
struct omap *om_new(int values);
void om_free(struct omap *m);
/* Blocks om_free gives back, at least: 1 packed, else the fewest chunks
 * that hold its elements (a lower bound, so a map judged worth freeing on
 * another thread is). */
size_t om_free_effort(const struct omap *m);
/* A deep copy, with the same encoding. O(bytes). */
struct omap *om_clone(const struct omap *m);

/* Elements held. O(1). */
size_t om_len(const struct omap *m);
/* Bytes allocated for the map. O(chunks). */
size_t om_memory(const struct omap *m);
/* om_memory from the chunks holding the first `samples` elements, scaled
 * to the whole map (MEMORY USAGE's SAMPLES); exact for a packed map, when
 * samples is 0, or when those chunks are all there is. */
size_t om_memory_sampled(const struct omap *m, size_t samples);
/* "listpack", "intset" or "rbtree". */
const char *om_encoding(const struct omap *m);

/* Looks f up: 1 with *it at it, or 0 with *it at the first element after
 * it (invalid when none). O(log(n / B) + B). */
int om_find(const struct omap *m, const char *f, size_t flen, struct om_it *it);
/* The value of field f of a hash: 1 and *v, *vlen set, or 0. */
int om_get(const struct omap *m, const char *f, size_t flen, const char **v, size_t *vlen);
/* Sets f (with value v of a hash; v is ignored in a set). Returns 1 when f
 * was added, 0 when it was there (a hash's value replaced). */
int om_set(struct omap **mp, const char *f, size_t flen, const char *v, size_t vlen,
           const struct om_limits *lim);
/* Adds f only when absent: 1 added, 0 there (untouched). */
int om_add(struct omap **mp, const char *f, size_t flen, const char *v, size_t vlen,
           const struct om_limits *lim);
/* Adds f, which sorts after every element m holds (the caller knows: a
 * snapshot's elements come in order, so does a merge's output): no search,
 * O(log(n / B)), so building a map in order is linear even in one huge
 * packed chunk. */
void om_append(struct omap **mp, const char *f, size_t flen, const char *v, size_t vlen,
               const struct om_limits *lim);
/* Removes f: 1, or 0 when absent. */
int om_del(struct omap **mp, const char *f, size_t flen, const struct om_limits *lim);
/* Removes the elements at positions [lo, hi). O(log n + removed). */
void om_del_span(struct omap **mp, size_t lo, size_t hi, const struct om_limits *lim);
/* Fewer whole-chunk elements than this are deleted in place by om_cut_span:
 * a cut and a map of its own cost more than they save. */
#define OM_CUT_MIN 1024
/* Removes the elements at positions [lo, hi) as om_del_span does (the same
 * elements, the same encoding after), but the tree chunks wholly inside the
 * span leave at once as a map of their own (ct_cut: O(log^2 (n / B))),
 * which is returned for the caller to free when it likes (om_free reads
 * nothing of *mp); only the partial chunks at the ends are trimmed in place.
 * Returns NULL, every element deleted in place, when fewer than OM_CUT_MIN
 * elements fill whole chunks (a packed map has none). */
struct omap *om_cut_span(struct omap **mp, size_t lo, size_t hi, const struct om_limits *lim);

/* Positions: *it at rank k (0-based); returns 0, or -1 (invalid) when
 * k >= om_len. O(log(n / B) + B). */
int om_seek(const struct omap *m, size_t k, struct om_it *it);
static inline int om_it_valid(const struct om_it *it) { return it->data != NULL; }
/* The element at a valid position (remembered, so om_next need not decode
 * it again). */
void om_it_get(const struct omap *m, struct om_it *it, struct om_elem *e);
/* One step forward (O(1)) or back (O(B): a chunk keeps no back links). */
void om_next(const struct omap *m, struct om_it *it);
void om_prev(const struct omap *m, struct om_it *it);

/* Number of elements that sort before f (or at or before it when
 * inclusive). */
size_t om_count_before(const struct omap *m, const char *f, size_t flen, int inclusive);
/* The positions of the elements within [min, max] (lexrange.h bounds). */
struct om_span om_lex_span(const struct omap *m, const struct lex_bound *min,
                           const struct lex_bound *max);
/* The positions of the elements that start with p[0..plen). */
struct om_span om_prefix_span(const struct omap *m, const char *p, size_t plen);

/* Checks the invariants above. Returns 0, or -1 with *why set. O(bytes). */
int om_check(const struct omap *m, const char **why);

#endif
