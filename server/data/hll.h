/*
 * hll.h - Redis's HyperLogLog as bytes (prefix hll_): the value PFADD,
 * PFCOUNT and PFMERGE keep in a string, byte for byte Redis 7.0's, so a GET
 * of one server's HLL is a valid SET on the other and both go on alike.
 *
 * Owns nothing: every function reads or writes the caller's bytes. Knows no
 * keyspace, client or setting (the sparse limit is an argument). The layout:
 *
 *   header (16 bytes): "HYLL", the encoding (HLL_DENSE 0 or HLL_SPARSE 1),
 *   three unused bytes, the cached cardinality (64 bits little endian; its
 *   top bit set means "stale, count again");
 *   dense: 16384 registers of 6 bits, packed from each byte's low bit up
 *   (12288 bytes);
 *   sparse: run-length opcodes covering the 16384 registers in order:
 *   ZERO 00xxxxxx (1..64 zero registers), XZERO 01xxxxxx yyyyyyyy
 *   (1..16384 zero registers), VAL 1vvvvvxx (1..4 registers of value
 *   1..32).
 *
 * A sparse value read from a client may be anything after its header: every
 * reader here stops at its length and reports what does not add up to 16384
 * registers. Redis reads the byte after an XZERO that is a value's last
 * byte as its string's terminating zero; so do these functions, so the same
 * bytes give the same answers on both servers.
 */
#ifndef RBKV_HLL_H
#define RBKV_HLL_H

#include <stddef.h>
#include <stdint.h>

#define HLL_P 14
#define HLL_REGISTERS (1u << HLL_P)
#define HLL_HDR_SIZE 16
#define HLL_DENSE_SIZE (HLL_HDR_SIZE + HLL_REGISTERS * 6 / 8)
/* An empty sparse value: the header and one XZERO of every register. */
#define HLL_SPARSE_EMPTY_SIZE (HLL_HDR_SIZE + 2)
/* Bytes a sparse write may add (an XZERO split into XZERO VAL XZERO). */
#define HLL_SPARSE_ROOM 3

enum hll_encoding { HLL_DENSE = 0, HLL_SPARSE = 1 };

/* hll_sparse_set's outcomes. */
enum hll_set {
    HLL_SET_CORRUPT = -1, /* the sparse value does not cover the register */
    HLL_SET_SAME = 0,     /* the register already held as much */
    HLL_SET_CHANGED = 1,
    HLL_SET_PROMOTE = 2,  /* only the dense encoding can hold it: convert, then set */
};

/* Whether s[0..len) is an HLL as Redis accepts one: the magic, an encoding
 * it knows and, when dense, exactly HLL_DENSE_SIZE bytes. A sparse value
 * passes whatever its opcodes say (they are judged when read). */
int hll_is_valid(const unsigned char *s, size_t len);
/* The encoding byte of a valid value. */
static inline enum hll_encoding hll_encoding_of(const unsigned char *s)
{
    return (enum hll_encoding)s[4];
}

/* Writes the empty sparse value, HLL_SPARSE_EMPTY_SIZE bytes, into out. */
void hll_init_sparse(unsigned char *out);

/* MurmurHash64A with Redis's seed, as its HLL hashes an element. */
uint64_t hll_murmur64a(const void *key, size_t len);
/* The register ele[0..len) falls in and the run it counts (1..51). */
void hll_hash(const void *ele, size_t len, unsigned *index, unsigned *count);

/* A dense value's register (s is the whole value). */
unsigned hll_dense_get(const unsigned char *s, unsigned index);
/* Raises a dense register to count; 1 when it changed, else 0. Leaves the
 * cached cardinality alone (the caller marks it stale once). */
int hll_dense_set(unsigned char *s, unsigned index, unsigned count);
/* Raises a sparse register to count (1..63), as Redis's hllSparseSet edits
 * the opcodes in place, merging equal neighbours. s holds *len bytes and
 * has room for HLL_SPARSE_ROOM more; *len is updated. A change marks the
 * cached cardinality stale. HLL_SET_PROMOTE, with nothing written, when
 * count is over 32 or the value would grow past max_bytes (header
 * included). */
enum hll_set hll_sparse_set(unsigned char *s, size_t *len, unsigned index, unsigned count,
                            size_t max_bytes);
/* The dense form of the sparse s[0..len) into dense (HLL_DENSE_SIZE bytes):
 * the header is kept but for the encoding. 0, or -1 when the opcodes do not
 * cover exactly HLL_REGISTERS registers (dense then undefined). */
int hll_sparse_to_dense(const unsigned char *s, size_t len, unsigned char *dense);

/* The cached cardinality: 1 and *card when it is current, else 0. */
int hll_cached(const unsigned char *s, uint64_t *card);
void hll_set_cached(unsigned char *s, uint64_t card);
void hll_invalidate(unsigned char *s);

/* The estimated cardinality of a valid value: 0 and *card, or -1 when a
 * sparse value's opcodes do not cover HLL_REGISTERS registers. */
int hll_count(const unsigned char *s, size_t len, uint64_t *card);
/* max[i] = MAX(max[i], register i of s), for the HLL_REGISTERS bytes of
 * max; 0, or -1 (max then partly merged) as hll_sparse_to_dense. */
int hll_merge(uint8_t *max, const unsigned char *s, size_t len);
/* The estimated cardinality of registers held one a byte (a merge). */
uint64_t hll_count_registers(const uint8_t *regs);

/* One sparse opcode at p, before end: HLL_OP_ZERO/XZERO/VAL with its run
 * and value (0 for the zeros). Returns the opcode's size (an XZERO that
 * is the last byte still counts 2: the caller stops at end). */
enum hll_op_kind { HLL_OP_ZERO, HLL_OP_XZERO, HLL_OP_VAL };
struct hll_op {
    enum hll_op_kind kind;
    unsigned run, value;
};
size_t hll_sparse_op(const unsigned char *p, const unsigned char *end, struct hll_op *op);

/* Redis's PFSELFTEST: registers read back what was written, and the
 * estimates of 1, 10, ... 10^7 distinct elements (from random bits seed)
 * are within bounds for dense and sparse values alike (sparse_max: the
 * sparse limit in force). 0, or -1 with Redis's TESTFAILED text in why. */
int hll_selftest(uint64_t seed, size_t sparse_max, char *why, size_t whylen);

#endif
