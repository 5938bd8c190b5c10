/*
 * cmd_bitmap.c - the bitmap commands: SETBIT GETBIT BITCOUNT BITPOS BITOP
 * BITFIELD BITFIELD_RO, on string values.
 *
 * Owns: bitmap_commands[] and nothing else; the bits are the bytes of string
 * entries in the keyspace. Knows nothing of sockets.
 *
 * A string is an array of bits numbered from the most significant bit of its
 * first byte: bit n is bit 7 - n % 8 of byte n / 8. Bits past the end read as
 * zero; a write past the end zero-pads the string up to the byte it needs,
 * through ks_string_resize, so growing a bitmap bit by bit is amortised O(1)
 * per byte.
 *
 * Rules kept from Redis 7.0 (bitops.c), checked against redis-server 7.0.15:
 *  - a bit offset is at most proto-max-bulk-len * 8 - 1 (so a bitmap is at
 *    most 512 MB by default), except on the stream from a primary, which the
 *    primary already judged by its own limit;
 *  - BITCOUNT and BITPOS look the key up before parsing their range, so a
 *    missing key answers 0 (BITPOS: 0 or -1) even to a malformed range;
 *  - SETBIT and BITFIELD count a change (server.dirty, the "setbit" event)
 *    only when a bit changed or the string grew; BITOP stores its result
 *    with "set", or deletes the destination with "del" when every source
 *    is empty or missing;
 *  - BITFIELD parses every subcommand before touching the key, so a refused
 *    command writes nothing.
 *
 * Entries can move when written (see keyspace.h): after any ks_ call that
 * returns an entry, only the returned pointer is used.
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "cmd_bitmap.h"
#include "keyspace.h"
#include "mem.h"
#include "notify.h"
#include "resp_num.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"
#include "watch.h"

#define ERR_BIT_OFFSET "ERR bit offset is not an integer or out of range"
#define ERR_BIT_VALUE "ERR bit is not an integer or out of range"
#define ERR_BITFIELD_TYPE                                                                        \
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but " \
    "i64 is."

/* The most bytes a bit offset may address whatever proto-max-bulk-len says:
 * an entry's length is 32 bits, and a 64-bit BITFIELD write starting in the
 * last allowed byte reaches 8 bytes further. */
#define BIT_MAX_BYTES ((unsigned long long)UINT32_MAX - 8)

/* The widest BITFIELD types: i64 and u63 (a u64 could not be replied as a
 * RESP integer). */
#define BITFIELD_MAX_SIGNED 64
#define BITFIELD_MAX_UNSIGNED 63

static int string_or_reply(struct client *c, const struct ks_entry *e)
{
    if (e->type == KS_STRING)
        return 0;
    resp_add_error(&c->out, ERR_WRONGTYPE);
    return -1;
}

/* Bytes a bit offset may address: below this many. */
static unsigned long long bit_byte_limit(const struct client *c)
{
    unsigned long long max = server.cfg.proto_max_bulk_len;
    if ((c->flags & CLIENT_MASTER) || max > BIT_MAX_BYTES)
        max = BIT_MAX_BYTES;
    return max;
}

/* A bit offset argument. With bits > 0 (BITFIELD), "#n" means n * bits; the
 * product wraps as Redis's does, and a negative result is refused. Returns 0,
 * or replies and returns -1. */
static int bit_offset_or_reply(struct client *c, const struct resp_slice *a, unsigned bits,
                               uint64_t *out)
{
    size_t hash = bits > 0 && a->len > 0 && a->ptr[0] == '#';
    long long v;

    if (resp_parse_ll(a->ptr + hash, a->len - hash, &v) < 0)
        goto refuse;
    if (hash)
        v = (long long)((unsigned long long)v * bits);
    if (v < 0 || ((unsigned long long)v >> 3) >= bit_byte_limit(c))
        goto refuse;
    *out = (uint64_t)v;
    return 0;
refuse:
    resp_add_error(&c->out, ERR_BIT_OFFSET);
    return -1;
}

/* The string at argv[1] for a write reaching byte `byte`: created when
 * missing ("new"), zero-padded when shorter. *grew says whether either
 * happened (Redis counts that as a change even when no bit moved). Returns
 * the entry, or NULL after replying WRONGTYPE. */
static struct ks_entry *string_for_bits_or_reply(struct client *c, uint64_t byte, int *grew)
{
    const struct resp_slice *key = &c->argv[1];
    struct ks_entry *e = lookup_write(c, key);

    *grew = 0;
    if (e && string_or_reply(c, e) < 0)
        return NULL;
    if (!e) {
        e = ks_set_string(c->db, key->ptr, key->len, "", 0, 0);
        notify_key(c, NOTIFY_NEW, "new", key);
    }
    size_t old = ks_slen(e);
    if (byte >= old) {
        e = ks_string_resize(c->db, e, (size_t)byte + 1);
        memset(ks_str(e) + old, 0, (size_t)byte + 1 - old);
        *grew = 1;
    }
    return e;
}

static void cmd_setbit(struct client *c)
{
    uint64_t offset;
    long long on;

    if (bit_offset_or_reply(c, &c->argv[2], 0, &offset) < 0)
        return;
    if (resp_parse_ll(c->argv[3].ptr, c->argv[3].len, &on) < 0 || (on & ~1LL)) {
        resp_add_error(&c->out, ERR_BIT_VALUE);
        return;
    }
    int grew;
    struct ks_entry *e = string_for_bits_or_reply(c, offset >> 3, &grew);
    if (!e)
        return;
    unsigned char *byte = (unsigned char *)ks_str(e) + (offset >> 3);
    unsigned mask = 0x80u >> (offset & 7);
    int was = (*byte & mask) != 0;
    if (grew || was != on) {
        *byte = (unsigned char)(on ? *byte | mask : *byte & ~mask);
        server.dirty++;
        notify_key(c, NOTIFY_STRING, "setbit", &c->argv[1]);
    }
    resp_add_int(&c->out, was);
}

static void cmd_getbit(struct client *c)
{
    uint64_t offset;

    if (bit_offset_or_reply(c, &c->argv[2], 0, &offset) < 0)
        return;
    struct ks_entry *e = lookup_read(c, &c->argv[1]);
    if (e && string_or_reply(c, e) < 0)
        return;
    int bit = 0;
    if (e && (offset >> 3) < ks_slen(e))
        bit = ((unsigned char)ks_str(e)[offset >> 3] & (0x80u >> (offset & 7))) != 0;
    resp_add_int(&c->out, bit);
}

/* ---- BITCOUNT and BITPOS ---- */

static uint64_t popcount_bytes(const unsigned char *p, size_t n)
{
    uint64_t count = 0;
    size_t i = 0;
    for (; i + sizeof(uint64_t) <= n; i += sizeof(uint64_t)) {
        uint64_t w;
        memcpy(&w, p + i, sizeof(w));
        count += (uint64_t)__builtin_popcountll(w);
    }
    for (; i < n; i++)
        count += (uint64_t)__builtin_popcount(p[i]);
    return count;
}

/* Masks of the bits at and after bit b of a byte, and at and before it. */
static unsigned from_bit_mask(uint64_t b)
{
    return 0xFFu >> (b & 7);
}
static unsigned to_bit_mask(uint64_t b)
{
    return (0xFFu << (7 - (b & 7))) & 0xFFu;
}

/* Set bits among bits sbit..ebit (inclusive) of p. */
static uint64_t count_bits(const unsigned char *p, uint64_t sbit, uint64_t ebit)
{
    size_t sb = (size_t)(sbit >> 3), eb = (size_t)(ebit >> 3);
    if (sb == eb)
        return (uint64_t)__builtin_popcount(p[sb] & from_bit_mask(sbit) & to_bit_mask(ebit));
    return (uint64_t)__builtin_popcount(p[sb] & from_bit_mask(sbit)) +
           popcount_bytes(p + sb + 1, eb - sb - 1) +
           (uint64_t)__builtin_popcount(p[eb] & to_bit_mask(ebit));
}

/* The first bit equal to `bit` among bits sbit..ebit of p, or -1. */
static long long find_bit(const unsigned char *p, uint64_t sbit, uint64_t ebit, int bit)
{
    size_t sb = (size_t)(sbit >> 3), eb = (size_t)(ebit >> 3);
    const uint64_t none = bit ? 0 : UINT64_MAX; /* a word without the bit sought */

    for (size_t i = sb; i <= eb; i++) {
        /* Whole words strictly between the two edge bytes go eight at a time. */
        while (i > sb && i + sizeof(uint64_t) <= eb) {
            uint64_t w;
            memcpy(&w, p + i, sizeof(w));
            if (w != none)
                break;
            i += sizeof(uint64_t);
        }
        unsigned v = bit ? p[i] : (unsigned char)~p[i];
        if (i == sb)
            v &= from_bit_mask(sbit);
        if (i == eb)
            v &= to_bit_mask(ebit);
        if (v)
            return (long long)i * 8 + (__builtin_clz(v) - (int)(sizeof(unsigned) * CHAR_BIT - 8));
    }
    return -1;
}

/* BYTE or BIT after a range. Returns 0 with *isbit set, or replies. */
static int unit_or_reply(struct client *c, const struct resp_slice *a, int *isbit)
{
    if (arg_is(a, "bit")) {
        *isbit = 1;
    } else if (arg_is(a, "byte")) {
        *isbit = 0;
    } else {
        resp_add_error(&c->out, ERR_SYNTAX);
        return -1;
    }
    return 0;
}

/* Redis's range rules for a string of len bytes: start and end count in
 * bytes, or in bits when isbit, negative ones from the end; then clamped to
 * the string. Returns 0 with the inclusive bit range, or -1 when it is empty. */
static int bit_range(long long start, long long end, size_t len, int isbit, uint64_t *sbit,
                     uint64_t *ebit)
{
    long long total = isbit ? (long long)len * 8 : (long long)len;
    if (start < 0)
        start += total;
    if (end < 0)
        end += total;
    if (start < 0)
        start = 0;
    if (end < 0)
        end = 0;
    if (end >= total)
        end = total - 1;
    if (start > end)
        return -1;
    *sbit = isbit ? (uint64_t)start : (uint64_t)start * 8;
    *ebit = isbit ? (uint64_t)end : (uint64_t)end * 8 + 7;
    return 0;
}

static void cmd_bitcount(struct client *c)
{
    struct ks_entry *e = lookup_read(c, &c->argv[1]);
    long long start = 0, end = -1;
    int isbit = 0;

    if (!e) {
        resp_add_int(&c->out, 0);
        return;
    }
    if (string_or_reply(c, e) < 0)
        return;
    if (c->argc == 4 || c->argc == 5) {
        if (arg_ll_or_reply(c, &c->argv[2], &start) < 0 ||
            arg_ll_or_reply(c, &c->argv[3], &end) < 0)
            return;
        if (c->argc == 5 && unit_or_reply(c, &c->argv[4], &isbit) < 0)
            return;
        /* Both from the end with start after end: empty even when clamping
         * would make them overlap. */
        if (start < 0 && end < 0 && start > end) {
            resp_add_int(&c->out, 0);
            return;
        }
    } else if (c->argc != 2) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    uint64_t sbit, ebit;
    if (bit_range(start, end, ks_slen(e), isbit, &sbit, &ebit) < 0) {
        resp_add_int(&c->out, 0);
        return;
    }
    resp_add_int(&c->out, (long long)count_bits((unsigned char *)ks_str(e), sbit, ebit));
}

static void cmd_bitpos(struct client *c)
{
    long long bit, start = 0, end = -1;
    int isbit = 0, end_given = 0;

    if (arg_ll_or_reply(c, &c->argv[2], &bit) < 0)
        return;
    if (bit != 0 && bit != 1) {
        resp_add_error(&c->out, "ERR The bit argument must be 1 or 0.");
        return;
    }
    /* A missing key is an endless run of zeros. */
    struct ks_entry *e = lookup_read(c, &c->argv[1]);
    if (!e) {
        resp_add_int(&c->out, bit ? -1 : 0);
        return;
    }
    if (string_or_reply(c, e) < 0)
        return;
    if (c->argc >= 4 && c->argc <= 6) {
        if (arg_ll_or_reply(c, &c->argv[3], &start) < 0)
            return;
        if (c->argc == 6 && unit_or_reply(c, &c->argv[5], &isbit) < 0)
            return;
        if (c->argc >= 5) {
            if (arg_ll_or_reply(c, &c->argv[4], &end) < 0)
                return;
            end_given = 1;
        }
    } else if (c->argc != 3) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    uint64_t sbit, ebit;
    if (bit_range(start, end, ks_slen(e), isbit, &sbit, &ebit) < 0) {
        resp_add_int(&c->out, -1);
        return;
    }
    long long pos = find_bit((unsigned char *)ks_str(e), sbit, ebit, (int)bit);
    /* No clear bit up to the end of the string: the padding after it is
     * zeros, unless the caller bounded the range. */
    if (pos < 0 && bit == 0 && !end_given)
        pos = (long long)ebit + 1;
    resp_add_int(&c->out, pos);
}

/* ---- BITOP ---- */

enum bitop { BITOP_AND, BITOP_OR, BITOP_XOR, BITOP_NOT };

/* res[0..maxlen) = op over the n sources, each zero-padded to maxlen. */
static void bitop_compute(unsigned char *res, size_t maxlen, enum bitop op,
                          const unsigned char *const *src, const size_t *len, size_t n)
{
    memcpy(res, src[0], len[0]);
    memset(res + len[0], 0, maxlen - len[0]);
    if (op == BITOP_NOT) {
        for (size_t i = 0; i < maxlen; i++)
            res[i] = (unsigned char)~res[i];
        return;
    }
    for (size_t k = 1; k < n; k++) {
        const unsigned char *s = src[k];
        switch (op) {
        case BITOP_AND:
            for (size_t i = 0; i < len[k]; i++)
                res[i] &= s[i];
            memset(res + len[k], 0, maxlen - len[k]);
            break;
        case BITOP_OR:
            for (size_t i = 0; i < len[k]; i++)
                res[i] |= s[i];
            break;
        case BITOP_XOR:
            for (size_t i = 0; i < len[k]; i++)
                res[i] ^= s[i];
            break;
        case BITOP_NOT:
            break;
        }
    }
}

static void cmd_bitop(struct client *c)
{
    static const struct {
        const char *name;
        enum bitop op;
    } ops[] = {{"and", BITOP_AND}, {"or", BITOP_OR}, {"xor", BITOP_XOR}, {"not", BITOP_NOT}};
    const struct resp_slice *dst = &c->argv[2];
    enum bitop op = BITOP_AND;
    size_t i;

    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (arg_is(&c->argv[1], ops[i].name)) {
            op = ops[i].op;
            break;
        }
    }
    if (i == sizeof(ops) / sizeof(ops[0])) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    if (op == BITOP_NOT && c->argc != 4) {
        resp_add_error(&c->out, "ERR BITOP NOT must be called with a single source key.");
        return;
    }

    size_t n = (size_t)c->argc - 3, maxlen = 0;
    struct ks_entry **ents = xmalloc(n * sizeof(*ents));
    const unsigned char **src = xmalloc(n * sizeof(*src));
    size_t *len = xmalloc(n * sizeof(*len));
    for (i = 0; i < n; i++) {
        /* Nothing writes until every source is found, so these stay valid. */
        ents[i] = lookup_read(c, &c->argv[3 + i]);
        if (ents[i] && string_or_reply(c, ents[i]) < 0)
            goto out;
        src[i] = ents[i] ? (const unsigned char *)ks_str(ents[i]) : (const unsigned char *)"";
        len[i] = ents[i] ? ks_slen(ents[i]) : 0;
        if (len[i] > maxlen)
            maxlen = len[i];
    }

    struct ks_entry *target = lookup_write(c, dst);
    if (maxlen == 0) {
        if (target) {
            ks_delete(c->db, target);
            watch_touch(c->db, dst->ptr, dst->len);
            server.dirty++;
            notify_key(c, NOTIFY_GENERIC, "del", dst);
        }
        resp_add_int(&c->out, 0);
        goto out;
    }
    int target_is_source = 0;
    for (i = 0; i < n; i++)
        target_is_source |= target && ents[i] == target;
    if (target_is_source) {
        /* The result overwrites one of its inputs: build it aside. */
        unsigned char *res = xmalloc(maxlen);
        bitop_compute(res, maxlen, op, src, len, n);
        ks_set_string(c->db, dst->ptr, dst->len, (const char *)res, maxlen, 0);
        xfree(res);
    } else {
        /* Straight into the destination; the sources are other entries,
         * which do not move when it does. */
        struct ks_entry *e = ks_set_string(c->db, dst->ptr, dst->len, "", 0, 0);
        e = ks_string_resize(c->db, e, maxlen);
        bitop_compute((unsigned char *)ks_str(e), maxlen, op, src, len, n);
    }
    watch_touch(c->db, dst->ptr, dst->len);
    server.dirty++;
    if (!target)
        notify_key(c, NOTIFY_NEW, "new", dst);
    notify_key(c, NOTIFY_STRING, "set", dst);
    resp_add_int(&c->out, (long long)maxlen);
out:
    xfree(ents);
    xfree(src);
    xfree(len);
}

/* ---- BITFIELD ---- */

enum bf_code { BF_GET, BF_SET, BF_INCRBY };
enum bf_overflow { BF_WRAP, BF_SAT, BF_FAIL };

struct bf_op {
    uint64_t offset;
    int64_t value; /* SET's value, INCRBY's increment */
    enum bf_code code;
    enum bf_overflow overflow;
    unsigned bits;
    int sign;
};

/* "i1".."i64" or "u1".."u63". Returns 0, or replies and returns -1. */
static int bitfield_type_or_reply(struct client *c, const struct resp_slice *a, int *sign,
                                  unsigned *bits)
{
    long long n;
    if (a->len < 1 || (a->ptr[0] != 'i' && a->ptr[0] != 'u') ||
        resp_parse_ll(a->ptr + 1, a->len - 1, &n) < 0 || n < 1 ||
        n > (a->ptr[0] == 'i' ? BITFIELD_MAX_SIGNED : BITFIELD_MAX_UNSIGNED)) {
        resp_add_error(&c->out, ERR_BITFIELD_TYPE);
        return -1;
    }
    *sign = a->ptr[0] == 'i';
    *bits = (unsigned)n;
    return 0;
}

/* The bits-wide field at bit off, as the low bits of the result; bytes at
 * and past len read as zero. */
static uint64_t field_get(const unsigned char *p, size_t len, uint64_t off, unsigned bits)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bits; i++, off++) {
        uint64_t byte = off >> 3;
        unsigned b = byte < len ? (p[byte] >> (7 - (off & 7))) & 1u : 0;
        v = v << 1 | b;
    }
    return v;
}

/* Writes the low bits of v at bit off; the bytes must exist. */
static void field_set(unsigned char *p, uint64_t off, unsigned bits, uint64_t v)
{
    for (unsigned i = 0; i < bits; i++, off++) {
        unsigned mask = 0x80u >> (off & 7);
        if ((v >> (bits - 1 - i)) & 1)
            p[off >> 3] = (unsigned char)(p[off >> 3] | mask);
        else
            p[off >> 3] = (unsigned char)(p[off >> 3] & ~mask);
    }
}

/* The low bits of v as a two's complement number of that width. */
static int64_t field_signed(uint64_t v, unsigned bits)
{
    if (bits < 64) {
        uint64_t high = UINT64_MAX << bits;
        v = (v >> (bits - 1)) & 1 ? v | high : v & ~high;
    }
    return (int64_t)v;
}

/* old + incr for an unsigned field (SET passes its value as old, incr 0).
 * Returns 0 with the sum, or 1 on overflow with what WRAP or SAT stores. */
static int unsigned_result(uint64_t old, int64_t incr, unsigned bits, enum bf_overflow how,
                           uint64_t *out)
{
    uint64_t max = (UINT64_C(1) << bits) - 1;
    uint64_t sum = old + (uint64_t)incr;
    int up = old > max || (incr > 0 && (uint64_t)incr > max - old);
    int down = !up && incr < 0 && 0 - (uint64_t)incr > old;

    *out = sum;
    if (!up && !down)
        return 0;
    if (how == BF_SAT)
        *out = up ? max : 0;
    else
        *out = sum & max;
    return 1;
}

/* The same for a signed field, whose range is [-2^(bits-1), 2^(bits-1)). */
static int signed_result(int64_t old, int64_t incr, unsigned bits, enum bf_overflow how,
                         int64_t *out)
{
    int64_t max = bits == 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
    int64_t min = -max - 1, sum;
    int up, down;

    if (__builtin_add_overflow(old, incr, &sum)) {
        up = incr > 0;
        down = !up;
    } else {
        up = sum > max;
        down = sum < min;
    }
    /* Redis's quirk, kept: it computes max - old in 64 bits, which for a
     * SET of a value below max - INT64_MAX wraps negative, so the value
     * counts as too large and SAT stores max, not min (WRAP and FAIL are
     * not affected). Only a SET can get here with old out of range. */
    if (bits < 64 && incr == 0 && (uint64_t)max - (uint64_t)old > (uint64_t)INT64_MAX) {
        up = 1;
        down = 0;
    }
    *out = sum;
    if (!up && !down)
        return 0;
    if (how == BF_SAT)
        *out = up ? max : min;
    else
        *out = field_signed((uint64_t)old + (uint64_t)incr, bits);
    return 1;
}

/* Runs one SET or INCRBY on the string p and replies with its result (null
 * when it overflowed under FAIL). Returns 1 when the field changed, 0 when
 * it was written unchanged, -1 when FAIL refused the write. */
static int bitfield_write(struct client *c, unsigned char *p, size_t len, const struct bf_op *op)
{
    uint64_t raw = field_get(p, len, op->offset, op->bits), stored;
    int overflow;
    long long reply;

    if (op->sign) {
        int64_t old = field_signed(raw, op->bits), next;
        if (op->code == BF_INCRBY)
            overflow = signed_result(old, op->value, op->bits, op->overflow, &next);
        else
            overflow = signed_result(op->value, 0, op->bits, op->overflow, &next);
        reply = op->code == BF_INCRBY ? next : old;
        stored = (uint64_t)next;
    } else {
        uint64_t next;
        if (op->code == BF_INCRBY)
            overflow = unsigned_result(raw, op->value, op->bits, op->overflow, &next);
        else
            overflow = unsigned_result((uint64_t)op->value, 0, op->bits, op->overflow, &next);
        /* At most 2^63 - 1: u64 is refused. */
        reply = (long long)(op->code == BF_INCRBY ? next : raw);
        stored = next;
    }
    if (overflow && op->overflow == BF_FAIL) {
        resp_add_null(&c->out);
        return -1;
    }
    resp_add_int(&c->out, reply);
    field_set(p, op->offset, op->bits, stored);
    if (op->bits < 64)
        stored &= (UINT64_C(1) << op->bits) - 1;
    return stored != raw;
}

/* BITFIELD, and BITFIELD_RO when readonly (GET only). */
static void bitfield_generic(struct client *c, int readonly)
{
    /* Every operation takes at least three arguments. */
    struct bf_op *ops = xmalloc(((size_t)c->argc / 3 + 1) * sizeof(*ops));
    size_t n = 0;
    enum bf_overflow overflow = BF_WRAP;
    int writes = 0;
    uint64_t highest = 0; /* the last bit a write reaches */

    for (int j = 2; j < c->argc; j++) {
        int left = c->argc - j - 1;
        const struct resp_slice *a = &c->argv[j];
        struct bf_op op = {0};

        if (arg_is(a, "get") && left >= 2) {
            op.code = BF_GET;
        } else if (arg_is(a, "set") && left >= 3) {
            op.code = BF_SET;
        } else if (arg_is(a, "incrby") && left >= 3) {
            op.code = BF_INCRBY;
        } else if (arg_is(a, "overflow") && left >= 1) {
            const struct resp_slice *how = &c->argv[++j];
            if (arg_is(how, "wrap")) {
                overflow = BF_WRAP;
            } else if (arg_is(how, "sat")) {
                overflow = BF_SAT;
            } else if (arg_is(how, "fail")) {
                overflow = BF_FAIL;
            } else {
                resp_add_error(&c->out, "ERR Invalid OVERFLOW type specified");
                goto out;
            }
            continue;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            goto out;
        }
        if (bitfield_type_or_reply(c, &c->argv[j + 1], &op.sign, &op.bits) < 0 ||
            bit_offset_or_reply(c, &c->argv[j + 2], op.bits, &op.offset) < 0)
            goto out;
        if (op.code != BF_GET) {
            long long v;
            writes = 1;
            if (highest < op.offset + op.bits - 1)
                highest = op.offset + op.bits - 1;
            if (arg_ll_or_reply(c, &c->argv[j + 3], &v) < 0)
                goto out;
            op.value = v;
        }
        op.overflow = overflow;
        ops[n++] = op;
        j += op.code == BF_GET ? 2 : 3;
    }

    struct ks_entry *e;
    int grew = 0;
    if (!writes) {
        e = lookup_read(c, &c->argv[1]);
        if (e && string_or_reply(c, e) < 0)
            goto out;
    } else {
        if (readonly) {
            resp_add_error(&c->out, "ERR BITFIELD_RO only supports the GET subcommand");
            goto out;
        }
        e = string_for_bits_or_reply(c, highest >> 3, &grew);
        if (!e)
            goto out;
    }

    unsigned long long changes = 0;
    resp_add_array_len(&c->out, n);
    for (size_t i = 0; i < n; i++) {
        const struct bf_op *op = &ops[i];
        unsigned char *p = e ? (unsigned char *)ks_str(e) : NULL;
        size_t len = e ? ks_slen(e) : 0;
        if (op->code == BF_GET) {
            uint64_t raw = field_get(p, len, op->offset, op->bits);
            resp_add_int(&c->out, op->sign ? field_signed(raw, op->bits) : (long long)raw);
        } else {
            /* A write counts when it changed the field or the string grew. */
            int changed = bitfield_write(c, p, len, op);
            if (changed > 0 || (changed == 0 && grew))
                changes++;
        }
    }
    if (changes) {
        server.dirty += changes;
        notify_key(c, NOTIFY_STRING, "setbit", &c->argv[1]);
    } else if (grew) {
        /* Every write failed under FAIL, yet the key was created or padded.
         * Redis counts no change then, and its replicas and log never see
         * the key; one change keeps ours in step (no event, as in Redis). */
        server.dirty++;
    }
out:
    xfree(ops);
}

static void cmd_bitfield(struct client *c)
{
    bitfield_generic(c, 0);
}

static void cmd_bitfield_ro(struct client *c)
{
    bitfield_generic(c, 1);
}

/* Arity, flags and key positions as Redis 7.0's COMMAND INFO shows them
 * (COMMAND DOCS answers Redis's own docs, redis_docs.c). */
const struct command bitmap_commands[] = {
    {.name = "setbit", .proc = cmd_setbit, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "bitmap"},
    {.name = "getbit", .proc = cmd_getbit, .arity = 3, .flags = CMD_READONLY | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "bitmap"},
    {.name = "bitcount", .proc = cmd_bitcount, .arity = -2, .flags = CMD_READONLY,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "bitmap"},
    {.name = "bitpos", .proc = cmd_bitpos, .arity = -3, .flags = CMD_READONLY,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "bitmap"},
    {.name = "bitop", .proc = cmd_bitop, .arity = -4,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_TOUCHES_OWN_KEYS,
     .first_key = 2, .last_key = -1, .key_step = 1, .group = "bitmap"},
    {.name = "bitfield", .proc = cmd_bitfield, .arity = -2, .flags = CMD_WRITE | CMD_DENYOOM,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "bitmap"},
    {.name = "bitfield_ro", .proc = cmd_bitfield_ro, .arity = -2,
     .flags = CMD_READONLY | CMD_FAST,
     .first_key = 1, .last_key = 1, .key_step = 1, .group = "bitmap"},
    {0},
};
